"""Associative recall by a two-block transformer built by hand (explicit weights, no
training).

The subpackage is split by what each part is:

* :mod:`attnsig.recall.task`: the task itself: vocabulary, tokens, well-formed prompts,
  their answers, and prompt sets (random, one per symmetry class, the hardest);
* :mod:`attnsig.recall.model`: the model: its weights, the forward pass (every
  intermediate kept, or the read-out only), the prediction;
* :mod:`attnsig.recall.analysis`: the analysis: margins, sampled and exact accuracy, the
  critical attention scales.

Everything a chapter uses is re-exported here: ``from attnsig import recall`` and then
``recall.build_recall_transformer(3)``, ``recall.run(...)``,
``recall.exact_recall_accuracy(...)``.
"""

from .analysis import (
    critical_scales,
    exact_recall_accuracy,
    ideal_critical_scale,
    recall_accuracy,
    recall_margins,
)
from .model import (
    FeedForward,
    RecallTrace,
    RecallTransformer,
    build_recall_transformer,
    embed,
    predict,
    recall_logits,
    run,
)
from .task import (
    MAX_PAIRS,
    QUERY_TOKEN,
    VOCAB,
    VOCAB_SIZE,
    canonical_recall_tokens,
    detokenize,
    hardest_recall_tokens,
    random_recall_tokens,
    recall_answers,
    tokenize,
    validate_recall_tokens,
)

__all__ = [
    "VOCAB",
    "VOCAB_SIZE",
    "QUERY_TOKEN",
    "MAX_PAIRS",
    "FeedForward",
    "RecallTransformer",
    "RecallTrace",
    "build_recall_transformer",
    "tokenize",
    "detokenize",
    "validate_recall_tokens",
    "recall_answers",
    "embed",
    "run",
    "recall_logits",
    "predict",
    "recall_margins",
    "recall_accuracy",
    "random_recall_tokens",
    "canonical_recall_tokens",
    "exact_recall_accuracy",
    "hardest_recall_tokens",
    "critical_scales",
    "ideal_critical_scale",
]
