"""Associative recall by a two-block transformer built by hand (no training).

The subpackage is split by what each part is:

* :mod:`attnsig.recall.task`: the task itself: vocabulary, tokens, well-formed prompts,
  their answers, and prompt sets (random, one per symmetry class, the hardest);
* :mod:`attnsig.recall.model`: the model: its weights, the forward pass (every
  intermediate kept, or the read-out only), the prediction;
* :mod:`attnsig.recall.analysis`: the analysis: margins, sampled and exact accuracy, the
  critical attention scales.

Everything a chapter uses is re-exported here: ``from attnsig import recall`` and then
``recall.build_transformer(3)``, ``recall.run(...)``, ``recall.exact_accuracy(...)``.
Names are read with the subpackage's name in front, so none repeats "recall".

The names of release 0.1.0 that did (``recall.build_recall_transformer``,
``recall.recall_accuracy``, ...) still work, are deprecated, and warn with a
``DeprecationWarning`` naming their replacement; they will be removed in 0.2.0.
"""

from .._deprecated import renamed as _renamed
from .analysis import (
    accuracy,
    critical_scales,
    exact_accuracy,
    ideal_critical_scale,
    margins,
)
from .model import (
    FeedForward,
    Trace,
    Transformer,
    build_transformer,
    embed,
    logits,
    predict,
    run,
)
from .task import (
    MAX_PAIRS,
    QUERY_TOKEN,
    VOCAB,
    VOCAB_SIZE,
    answers,
    canonical_tokens,
    detokenize,
    hardest_tokens,
    random_tokens,
    tokenize,
    validate_tokens,
)

__all__ = [
    "VOCAB",
    "VOCAB_SIZE",
    "QUERY_TOKEN",
    "MAX_PAIRS",
    "FeedForward",
    "Transformer",
    "Trace",
    "build_transformer",
    "tokenize",
    "detokenize",
    "validate_tokens",
    "answers",
    "embed",
    "run",
    "logits",
    "predict",
    "margins",
    "accuracy",
    "random_tokens",
    "canonical_tokens",
    "exact_accuracy",
    "hardest_tokens",
    "critical_scales",
    "ideal_critical_scale",
]

# Release 0.1.0's names, kept as thin deprecated aliases (CHANGELOG.md, "Deprecated").
__getattr__ = _renamed(
    __name__,
    globals(),
    {
        "RecallTransformer": "Transformer",
        "RecallTrace": "Trace",
        "build_recall_transformer": "build_transformer",
        "validate_recall_tokens": "validate_tokens",
        "recall_answers": "answers",
        "recall_logits": "logits",
        "recall_margins": "margins",
        "recall_accuracy": "accuracy",
        "exact_recall_accuracy": "exact_accuracy",
        "random_recall_tokens": "random_tokens",
        "canonical_recall_tokens": "canonical_tokens",
        "hardest_recall_tokens": "hardest_tokens",
    },
)
