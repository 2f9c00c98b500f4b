"""Associative recall by a two-block transformer built by hand (explicit weights, no training).

The task: a sequence of ``n`` key-value pairs, then a key, then ``?``; the answer is the value
stored under that key. Example: ``A6B8C3B?`` -> ``8``. Keys are capital letters, values digits.

**Vocabulary.** 37 tokens ``0-9``, ``A-Z``, ``?`` with indices 0-9, 10-35, 36 (``VOCAB``).

**Embedding** (three blocks, ``d = 37 + w + 37``). A token ``x_i`` at position ``i`` of a sequence of
length ``T = 2n + 2`` becomes ``[e_token | e_code | 0]``: the token block holds the one-hot token,
the *index block* holds a position code ``c = T - i`` (positions counted from the end, as in the
construction of the source sheet), and the output block starts empty. Codes ``1..9`` reuse the
digit coordinates of the index block, codes ``>= 10`` get fresh coordinates appended to it, so the
index block has width ``w = 37 + max(0, T - 9)``. For ``n = 3`` (``T = 8``) this is the sheet's
``d = 3 * 37 = 111``. Letters in the index block are free for the keys that block 1 writes there.

**Block 1** (attention + ReLU feed-forward, both with residuals) copies the key of every pair into
the index block of the value position: the query maps an odd code ``c`` to ``c + 1`` (the code of
the previous position), the key is the code itself, the value copies the token block into the
output block. The feed-forward network adds the letter part of the output block to the index block
at positions with an odd code and clears the output block.

**Block 2** looks the key up: query = key = the index block without code 1 (so the ``?`` position
carries only the queried letter), value = the token block copied into the output block, ``?``
dropped. Its feed-forward network is zero (the block's residual makes it the identity).

**Read-out**: the output block at the last position, read at temperature zero (argmax).

Attention is ``attnsig.attention.scaled_dot_product_attention`` with a causal mask and the scale
``1/sqrt(d)`` of the sheet by default; ``scale=math.inf`` is the hard (temperature-zero) limit,
uniform over the maximal scores of each row.
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from ._validation import as_float_array, check_positive_int
from .attention import causal_mask, scaled_dot_product_attention, softmax

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

VOCAB: tuple[str, ...] = tuple(string.digits) + tuple(string.ascii_uppercase) + ("?",)
VOCAB_SIZE = len(VOCAB)  # 37
QUERY_TOKEN = "?"
_TOKEN_ID = {t: i for i, t in enumerate(VOCAB)}
_DIGITS = np.arange(0, 10)
_LETTERS = np.arange(10, 36)
_QUERY_ID = 36
MAX_PAIRS = len(_LETTERS)  # keys are distinct letters
_NUM_DIGITS = len(_DIGITS)


# --------------------------------------------------------------------------------------------
# The weights
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FeedForward:
    """A one-hidden-layer ReLU network ``x -> relu(x @ w_in + b_in) @ w_out + b_out``.

    Attributes
    ----------
    w_in : ndarray, shape (d, h)
    b_in : ndarray, shape (h,)
    w_out : ndarray, shape (h, d)
    b_out : ndarray, shape (d,)
    """

    w_in: np.ndarray
    b_in: np.ndarray
    w_out: np.ndarray
    b_out: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Apply the network to ``x`` of shape (..., d); returns shape (..., d)."""
        hidden = np.maximum(x @ self.w_in + self.b_in, 0.0)  # (..., h)
        return hidden @ self.w_out + self.b_out


@dataclass(frozen=True)
class RecallTransformer:
    """The hand-built two-block recall transformer for ``num_pairs`` key-value pairs.

    All maps act on row vectors: ``Q = X @ w_q1`` for ``X`` of shape (..., T, d).

    Attributes
    ----------
    num_pairs : int
        Number ``n`` of key-value pairs; sequences have length ``T = 2n + 2``.
    index_width : int
        Width ``w`` of the index block, ``37 + max(0, T - 9)``.
    w_q1, w_k1, w_v1 : ndarray, shape (d, d)
        Block 1 query, key and value weights.
    ffn1 : FeedForward
        Block 1 feed-forward network (hidden width 26 + 2 * 37).
    w_q2, w_k2, w_v2 : ndarray, shape (d, d)
        Block 2 weights (``w_q2`` equals ``w_k2``).
    ffn2 : FeedForward
        Block 2 feed-forward network, all zeros.
    w_out : ndarray, shape (d, 37)
        Read-out: the output block.
    """

    num_pairs: int
    index_width: int
    w_q1: np.ndarray
    w_k1: np.ndarray
    w_v1: np.ndarray
    ffn1: FeedForward
    w_q2: np.ndarray
    w_k2: np.ndarray
    w_v2: np.ndarray
    ffn2: FeedForward
    w_out: np.ndarray

    @property
    def seq_len(self) -> int:
        """Sequence length ``T = 2n + 2``."""
        return 2 * self.num_pairs + 2

    @property
    def dim(self) -> int:
        """Model width ``d = 37 + w + 37``."""
        return 2 * VOCAB_SIZE + self.index_width

    @property
    def token_block(self) -> slice:
        return slice(0, VOCAB_SIZE)

    @property
    def index_block(self) -> slice:
        return slice(VOCAB_SIZE, VOCAB_SIZE + self.index_width)

    @property
    def output_block(self) -> slice:
        return slice(VOCAB_SIZE + self.index_width, self.dim)

    def code_coordinate(self, code: int) -> int:
        """Coordinate (in the full width ``d``) of the position code ``code`` in ``1..T``."""
        if not 1 <= code <= self.seq_len:
            raise ValueError(f"code must be in 1..{self.seq_len}; got {code}")
        return _code_coordinate(code)


def _code_coordinate(code: int) -> int:
    # Codes 1..9 reuse the digit coordinates of the index block (as in the sheet); larger codes
    # get fresh coordinates after the 37 token coordinates of the index block.
    local = code if code <= 9 else VOCAB_SIZE + (code - 10)
    return VOCAB_SIZE + local


def build_recall_transformer(num_pairs: int = 3) -> RecallTransformer:
    """Build the explicit weights of the two-block recall transformer.

    Parameters
    ----------
    num_pairs : int
        Number ``n`` of key-value pairs, ``1 <= n <= 26`` (keys are distinct letters).
        ``n = 3`` gives the sheet's model with ``d = 111``.

    Returns
    -------
    RecallTransformer
    """
    n = check_positive_int(num_pairs, "num_pairs")
    if n > MAX_PAIRS:
        raise ValueError(f"num_pairs must be at most {MAX_PAIRS} (keys are distinct letters); got {n}")
    seq_len = 2 * n + 2
    width = VOCAB_SIZE + max(0, seq_len - 9)
    d = 2 * VOCAB_SIZE + width
    tok, idx, out = 0, VOCAB_SIZE, VOCAB_SIZE + width  # first coordinate of each block
    codes = range(1, seq_len + 1)
    odd_codes = [c for c in codes if c % 2 == 1]

    # Block 1. Query: odd code c -> code c + 1 (the position just before), other index
    # coordinates unchanged; key: the index block as it is; value: token block -> output block.
    w_q1 = np.zeros((d, d))
    w_k1 = np.zeros((d, d))
    code_coords = {_code_coordinate(c) for c in codes}
    for j in range(idx, idx + width):
        w_k1[j, j] = 1.0
        if j not in code_coords:
            w_q1[j, j] = 1.0
    for c in codes:
        w_q1[_code_coordinate(c), _code_coordinate(c + 1 if c % 2 else c)] = 1.0
    w_v1 = np.zeros((d, d))
    w_v1[tok + np.arange(VOCAB_SIZE), out + np.arange(VOCAB_SIZE)] = 1.0

    # Block 1 feed-forward network. Unit for letter L: relu(out_L + [code odd] - 1), which is
    # out_L at odd codes and 0 at even ones because 0 <= out_L <= 1 (it is an attention average
    # of one-hot vectors); it writes into the letter coordinate of the index block. Two units
    # per output coordinate, relu(o) - relu(-o) = o, clear the output block.
    n_letters = len(_LETTERS)
    hidden = n_letters + 2 * VOCAB_SIZE
    w_in = np.zeros((d, hidden))
    b_in = np.zeros(hidden)
    w_out1 = np.zeros((hidden, d))
    for unit, letter in enumerate(_LETTERS):
        w_in[out + letter, unit] = 1.0
        for c in odd_codes:
            w_in[_code_coordinate(c), unit] = 1.0
        b_in[unit] = -1.0
        w_out1[unit, idx + letter] = 1.0
    for t in range(VOCAB_SIZE):
        plus, minus = n_letters + t, n_letters + VOCAB_SIZE + t
        w_in[out + t, plus], w_out1[plus, out + t] = 1.0, -1.0
        w_in[out + t, minus], w_out1[minus, out + t] = -1.0, 1.0
    ffn1 = FeedForward(w_in, b_in, w_out1, np.zeros(d))

    # Block 2. Query = key = index block without code 1; value: token block -> output block,
    # the query token "?" dropped.
    w_q2 = np.zeros((d, d))
    for j in range(idx, idx + width):
        if j != _code_coordinate(1):
            w_q2[j, j] = 1.0
    w_v2 = np.zeros((d, d))
    w_v2[tok + np.arange(_QUERY_ID), out + np.arange(_QUERY_ID)] = 1.0
    ffn2 = FeedForward(np.zeros((d, 1)), np.zeros(1), np.zeros((1, d)), np.zeros(d))

    w_read = np.zeros((d, VOCAB_SIZE))
    w_read[out + np.arange(VOCAB_SIZE), np.arange(VOCAB_SIZE)] = 1.0
    return RecallTransformer(n, width, w_q1, w_k1, w_v1, ffn1, w_q2, w_q2.copy(), w_v2, ffn2, w_read)


# --------------------------------------------------------------------------------------------
# Sequences
# --------------------------------------------------------------------------------------------

def tokenize(sequences: Any) -> np.ndarray:
    """Token indices of recall sequences.

    Parameters
    ----------
    sequences : str, sequence of str, or array_like of int
        Strings over ``VOCAB`` (all of one length), or token indices of shape (T,) or (B, T).

    Returns
    -------
    ndarray of int64, shape (B, T)
    """
    if isinstance(sequences, str):
        sequences = [sequences]
    if isinstance(sequences, (list, tuple)) and sequences and all(isinstance(s, str) for s in sequences):
        lengths = {len(s) for s in sequences}
        if len(lengths) != 1:
            raise ValueError(f"sequences must all have the same length; got lengths {sorted(lengths)}")
        for b, s in enumerate(sequences):
            bad = [ch for ch in s if ch not in _TOKEN_ID]
            if bad:
                raise ValueError(f"sequences[{b}] = {s!r} contains {bad[0]!r}, which is not in the "
                                 f"vocabulary 0-9, A-Z, '?'")
        return np.array([[_TOKEN_ID[ch] for ch in s] for s in sequences], dtype=np.int64)
    arr = np.asarray(sequences)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"sequences must be strings or integer token indices; got dtype {arr.dtype}")
    if arr.ndim == 1:
        arr = arr[None, :]  # (1, T)
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"sequences must have shape (T,) or (B, T) with T >= 1; got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= VOCAB_SIZE):
        raise ValueError(f"token indices must lie in 0..{VOCAB_SIZE - 1}; got values in "
                         f"{arr.min()}..{arr.max()}")
    return arr.astype(np.int64)


def detokenize(tokens: Any) -> list[str]:
    """Strings of token indices of shape (B, T) (or (T,))."""
    arr = tokenize(tokens)
    return ["".join(VOCAB[t] for t in row) for row in arr]


def _where(condition: np.ndarray) -> tuple[int, int]:
    b, i = np.argwhere(condition)[0]
    return int(b), int(i)


def validate_recall_tokens(sequences: Any, num_pairs: int, *, check_answerable: bool = True) -> np.ndarray:
    """Check that sequences are well-formed recall prompts; return their tokens.

    A prompt for ``n`` pairs has length ``2n + 2``: letter, digit (``n`` times), a letter, ``?``.
    With ``check_answerable`` the keys must be distinct and the queried letter one of them, so that
    the answer is defined (:func:`recall_answers`).

    Parameters
    ----------
    sequences : str, sequence of str, or array_like of int
        See :func:`tokenize`.
    num_pairs : int
        Expected number ``n`` of key-value pairs.
    check_answerable : bool
        Also require distinct keys and a queried key that occurs among them.

    Returns
    -------
    ndarray of int64, shape (B, 2n + 2)

    Raises
    ------
    ValueError
        Naming the first offending sequence and position.
    """
    n = check_positive_int(num_pairs, "num_pairs")
    tokens = tokenize(sequences)
    seq_len = 2 * n + 2
    if tokens.shape[1] != seq_len:
        raise ValueError(f"a recall sequence with num_pairs={n} has length {seq_len} "
                         f"(n key-value pairs, a key, '?'); got length {tokens.shape[1]}")
    keys = tokens[:, 0:2 * n:2]  # (B, n)
    values = tokens[:, 1:2 * n:2]  # (B, n)
    queried = tokens[:, 2 * n]  # (B,)
    is_letter = (tokens >= _LETTERS[0]) & (tokens <= _LETTERS[-1])
    if not is_letter[:, 0:2 * n:2].all():
        b, m = _where(~is_letter[:, 0:2 * n:2])
        raise ValueError(f"sequence {b}: position {2 * m} must hold a key (a letter A-Z); "
                         f"got {VOCAB[keys[b, m]]!r}")
    if not (values <= _DIGITS[-1]).all():
        b, m = _where(values > _DIGITS[-1])
        raise ValueError(f"sequence {b}: position {2 * m + 1} must hold a value (a digit 0-9); "
                         f"got {VOCAB[values[b, m]]!r}")
    if not is_letter[:, 2 * n].all():
        b = int(np.argmin(is_letter[:, 2 * n]))
        raise ValueError(f"sequence {b}: position {2 * n} must hold the queried key (a letter A-Z); "
                         f"got {VOCAB[queried[b]]!r}")
    if not (tokens[:, -1] == _QUERY_ID).all():
        b = int(np.argmin(tokens[:, -1] == _QUERY_ID))
        raise ValueError(f"sequence {b}: the last position must hold '?'; got {VOCAB[tokens[b, -1]]!r}")
    if check_answerable:
        sorted_keys = np.sort(keys, axis=1)  # (B, n)
        repeated = (sorted_keys[:, 1:] == sorted_keys[:, :-1]).any(axis=1)
        if repeated.any():
            b = int(np.argmax(repeated))
            row = sorted_keys[b]
            letter = VOCAB[row[1:][row[1:] == row[:-1]][0]]
            raise ValueError(f"sequence {b}: the key {letter!r} occurs more than once; associative "
                             "recall needs distinct keys (the construction would average their values)")
        found = (keys == queried[:, None]).any(axis=1)
        if not found.all():
            b = int(np.argmin(found))
            raise ValueError(f"sequence {b}: the queried key {VOCAB[queried[b]]!r} is not among the keys "
                             f"{''.join(VOCAB[k] for k in keys[b])!r}; there is nothing to recall")
    return tokens


def recall_answers(sequences: Any, num_pairs: int) -> np.ndarray:
    """The correct answers (token indices of shape (B,)) of answerable recall prompts."""
    tokens = validate_recall_tokens(sequences, num_pairs)
    n = num_pairs
    match = tokens[:, 0:2 * n:2] == tokens[:, [2 * n]]  # (B, n), one True per row
    return tokens[:, 1:2 * n:2][match]


# --------------------------------------------------------------------------------------------
# The forward pass
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RecallTrace:
    """Every intermediate matrix of one forward pass; arrays have a leading batch axis B.

    Attributes (shapes)
    -------------------
    x0 : (B, T, d) embedding;
    q1, k1, v1 : (B, T, d) block 1 queries, keys, values; weights1 : (B, T, T) its attention map;
    attention1 : (B, T, d) the head's output; residual1 = x0 + attention1; ffn1 : (B, T, d) the
    feed-forward output; x1 = residual1 + ffn1 (block 1 output);
    q2, k2, v2, weights2, attention2, residual2, ffn2, x2 : the same for block 2;
    logits : (B, T, 37) the read-out ``x2 @ w_out`` at every position (finite; temperature zero
    means taking the argmax).
    """

    x0: np.ndarray
    q1: np.ndarray
    k1: np.ndarray
    v1: np.ndarray
    weights1: np.ndarray
    attention1: np.ndarray
    residual1: np.ndarray
    ffn1: np.ndarray
    x1: np.ndarray
    q2: np.ndarray
    k2: np.ndarray
    v2: np.ndarray
    weights2: np.ndarray
    attention2: np.ndarray
    residual2: np.ndarray
    ffn2: np.ndarray
    x2: np.ndarray
    logits: np.ndarray


def embed(model: RecallTransformer, tokens: np.ndarray) -> np.ndarray:
    """Embedding ``[e_token | e_code | 0]`` of validated tokens of shape (B, T); returns (B, T, d)."""
    batch, seq_len = tokens.shape
    if seq_len != model.seq_len:
        raise ValueError(f"tokens must have length {model.seq_len} for this model; got shape {tokens.shape}")
    x = np.zeros((batch, seq_len, model.dim))
    np.put_along_axis(x, tokens[:, :, None], 1.0, axis=2)  # token block: one-hot
    code_coords = [_code_coordinate(seq_len - i) for i in range(seq_len)]
    x[:, np.arange(seq_len), code_coords] = 1.0  # index block: position code T - i
    return x


def _check_scale(scale: Any, dim: int) -> tuple[Any, Any]:
    """Return (scale of block 1, scale of block 2); each a float (possibly inf) or an array (B,)."""
    if scale is None:
        return 1.0 / math.sqrt(dim), 1.0 / math.sqrt(dim)
    if isinstance(scale, tuple):
        if len(scale) != 2:
            raise ValueError(f"scale must be a number or a pair (block 1, block 2); got a tuple of length {len(scale)}")
        return _check_one_scale(scale[0], "scale[0]", dim), _check_one_scale(scale[1], "scale[1]", dim)
    one = _check_one_scale(scale, "scale", dim)
    return one, one


def _check_one_scale(value: Any, name: str, dim: int) -> Any:
    if value is None:
        return 1.0 / math.sqrt(dim)
    arr = as_float_array(value, name, allow_inf=True)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a number or an array of shape (B,); got shape {arr.shape}")
    if (arr < 0).any():
        raise ValueError(f"{name} must be >= 0 (it multiplies the attention scores); got {arr.min()}")
    return float(arr) if arr.ndim == 0 else arr


def _attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: Any,
            causal: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Attention with a scalar, infinite or per-sequence scale; returns (output, weights).

    ``causal=False`` is used only for the last query row, which may see every position anyway.
    """
    if isinstance(scale, float) and math.isinf(scale):
        # Temperature zero: all weight, uniformly, on the maximal scores of each row.
        scores = q @ np.swapaxes(k, -1, -2)  # (B, Tq, T)
        if causal:
            scores = np.where(causal_mask(q.shape[-2], k.shape[-2]), scores, -np.inf)
        top = scores.max(axis=-1, keepdims=True)
        hard = np.where(np.isclose(scores, top, rtol=0.0, atol=1e-12), np.inf, -np.inf)
        weights = softmax(hard, axis=-1)
        return weights @ v, weights
    if isinstance(scale, np.ndarray):
        if np.isinf(scale).any():
            raise ValueError("a per-sequence scale must be finite; use the float math.inf for the limit")
        if scale.shape[0] != q.shape[0]:
            raise ValueError(f"a per-sequence scale must have shape (B,) = ({q.shape[0]},); got {scale.shape}")
        # Scaling the queries scales the scores row by row.
        return scaled_dot_product_attention(q * scale[:, None, None], k, v, causal=causal, scale=1.0)
    return scaled_dot_product_attention(q, k, v, causal=causal, scale=scale)


def _forward(model: RecallTransformer, x0: np.ndarray, scale: Any, keep: bool) -> Any:
    scale1, scale2 = _check_scale(scale, model.dim)
    d = model.dim
    # One product for the three projections of block 1.
    qkv1 = x0 @ np.concatenate([model.w_q1, model.w_k1, model.w_v1], axis=1)  # (B, T, 3d)
    q1, k1, v1 = qkv1[..., :d], qkv1[..., d:2 * d], qkv1[..., 2 * d:]  # (B, T, d) each
    attention1, weights1 = _attend(q1, k1, v1, scale1)
    residual1 = x0 + attention1
    ffn1 = model.ffn1(residual1)
    x1 = residual1 + ffn1
    kv2 = x1 @ np.concatenate([model.w_k2, model.w_v2], axis=1)  # (B, T, 2d)
    k2, v2 = kv2[..., :d], kv2[..., d:]
    if not keep:
        # Only the read-out at the last position is wanted: its query row sees every position,
        # and no other row of block 2 influences it.
        last = x1[:, -1:]  # (B, 1, d)
        attention_last, _ = _attend(last @ model.w_q2, k2, v2, scale2, causal=False)
        residual_last = last + attention_last
        x2_last = residual_last + model.ffn2(residual_last)
        return x2_last[:, 0] @ model.w_out  # (B, 37)
    q2 = x1 @ model.w_q2
    attention2, weights2 = _attend(q2, k2, v2, scale2)
    residual2 = x1 + attention2
    ffn2 = model.ffn2(residual2)
    x2 = residual2 + ffn2
    return RecallTrace(x0, q1, k1, v1, weights1, attention1, residual1, ffn1, x1,
                       q2, k2, v2, weights2, attention2, residual2, ffn2, x2, x2 @ model.w_out)


def run(model: RecallTransformer, sequences: Any, scale: Any = None, *,
        check_answerable: bool = True) -> RecallTrace:
    """Run the transformer and keep every intermediate matrix.

    Parameters
    ----------
    model : RecallTransformer
    sequences : str, sequence of str, or array_like of int, shape (B, T)
        Recall prompts of length ``T = 2n + 2``, validated by :func:`validate_recall_tokens`.
    scale : float, array of shape (B,), or pair of those, optional
        Multiplier of the attention scores, for both blocks or ``(block 1, block 2)``; default
        ``1/sqrt(d)``. ``math.inf`` is the temperature-zero limit (uniform over the row maxima).
    check_answerable : bool
        Refuse prompts with repeated keys or a missing queried key (default). ``False`` runs them,
        to see what the construction does.

    Returns
    -------
    RecallTrace
    """
    tokens = validate_recall_tokens(sequences, model.num_pairs, check_answerable=check_answerable)
    return _forward(model, embed(model, tokens), scale, keep=True)


def recall_logits(model: RecallTransformer, sequences: Any, scale: Any = None, *,
                  check_answerable: bool = True) -> np.ndarray:
    """Read-out at the last position, shape (B, 37), without keeping the intermediates."""
    tokens = validate_recall_tokens(sequences, model.num_pairs, check_answerable=check_answerable)
    return _forward(model, embed(model, tokens), scale, keep=False)


def predict(model: RecallTransformer, sequences: Any, scale: Any = None, *,
            check_answerable: bool = True, atol: float = 1e-12) -> np.ndarray:
    """Temperature-zero prediction at the last position: token indices of shape (B,).

    A row whose largest read-out value is not unique (within ``atol``) has no deterministic answer
    and gets ``-1``.
    """
    logits = recall_logits(model, sequences, scale, check_answerable=check_answerable)  # (B, 37)
    top_two = np.sort(logits, axis=1)[:, -2:]  # (B, 2)
    best = np.argmax(logits, axis=1)
    return np.where(top_two[:, 1] - top_two[:, 0] > atol, best, -1)


def recall_margins(model: RecallTransformer, sequences: Any, scale: Any = None) -> np.ndarray:
    """Read-out value of the correct answer minus the largest other one, shape (B,).

    Recall is correct at temperature zero exactly when the margin is positive.
    """
    tokens = validate_recall_tokens(sequences, model.num_pairs)
    answers = recall_answers(tokens, model.num_pairs)
    logits = _forward(model, embed(model, tokens), scale, keep=False)  # (B, 37)
    rows = np.arange(len(answers))
    correct = logits[rows, answers].copy()
    logits[rows, answers] = -np.inf
    return correct - logits.max(axis=1)


def recall_accuracy(model: RecallTransformer, sequences: Any, scale: Any = None,
                    weights: Any = None) -> float:
    """Fraction of prompts recalled correctly (positive margin), optionally weighted.

    ``weights`` (shape (B,)) lets one representative stand for many sequences
    (see :func:`canonical_recall_tokens`).
    """
    correct = recall_margins(model, sequences, scale) > 0
    if weights is None:
        return float(correct.mean())
    w = as_float_array(weights, "weights", ndim=1)
    if w.shape != correct.shape or (w < 0).any():
        raise ValueError(f"weights must be non-negative of shape {correct.shape}; got shape {w.shape}")
    return float(w[correct].sum() / w.sum())


# --------------------------------------------------------------------------------------------
# Test sets and critical scales
# --------------------------------------------------------------------------------------------

def random_recall_tokens(num_pairs: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Uniformly random answerable prompts: distinct keys, i.i.d. digit values, a random queried key.

    Returns
    -------
    ndarray of int64, shape (size, 2n + 2)
    """
    n = check_positive_int(num_pairs, "num_pairs")
    size = check_positive_int(size, "size")
    if n > MAX_PAIRS:
        raise ValueError(f"num_pairs must be at most {MAX_PAIRS}; got {n}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
    keys = _LETTERS[np.argsort(rng.random((size, len(_LETTERS))), axis=1)[:, :n]]  # (size, n) distinct
    values = rng.integers(0, _NUM_DIGITS, size=(size, n))
    which = rng.integers(0, n, size=size)
    tokens = np.empty((size, 2 * n + 2), dtype=np.int64)
    tokens[:, 0:2 * n:2] = keys
    tokens[:, 1:2 * n:2] = values
    tokens[:, 2 * n] = keys[np.arange(size), which]
    tokens[:, -1] = _QUERY_ID
    return tokens


def _value_patterns(n: int) -> list[list[int]]:
    """Restricted growth strings of length n with at most 10 blocks (equality patterns of values)."""
    patterns: list[list[int]] = []

    def extend(prefix: list[int], blocks: int) -> None:
        if len(prefix) == n:
            patterns.append(prefix)
            return
        for v in range(min(blocks + 1, _NUM_DIGITS)):
            extend(prefix + [v], max(blocks, v + 1))

    extend([], 0)
    return patterns


def canonical_recall_tokens(num_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """One prompt per class of prompts equal up to renaming letters and renaming digits.

    The weights of :func:`build_recall_transformer` treat all letters alike and all digits alike,
    so the read-out of a renamed prompt is the renamed read-out: every prompt in a class is
    recalled correctly or none is. Keys are ``A, B, C, ...``; the classes differ in which values
    are equal and which key is queried.

    Returns
    -------
    tokens : ndarray of int64, shape (C, 2n + 2)
    counts : ndarray of int64, shape (C,)
        The number of answerable prompts each representative stands for; ``counts.sum()`` is the
        number of all answerable prompts, ``26!/(26-n)! * 10**n * n``.
    """
    n = check_positive_int(num_pairs, "num_pairs")
    if n > 9:
        raise ValueError(f"num_pairs must be at most 9 here (the number of classes grows like the Bell "
                         f"numbers); got {n}")
    key_orders = math.perm(len(_LETTERS), n)
    rows, counts = [], []
    for pattern in _value_patterns(n):
        blocks = max(pattern) + 1
        digit_choices = math.perm(_NUM_DIGITS, blocks)
        for which in range(n):
            row = []
            for m in range(n):
                row += [_LETTERS[m], pattern[m]]
            rows.append(row + [_LETTERS[which], _QUERY_ID])
            counts.append(key_orders * digit_choices)
    return np.array(rows, dtype=np.int64), np.array(counts, dtype=np.int64)


_MAX_CANONICAL_PAIRS = 9  # the number of classes grows like the Bell numbers


@lru_cache(maxsize=None)
def _canonical_classes(n: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Cached :func:`canonical_recall_tokens` (read-only arrays) and the exact number of prompts."""
    tokens, counts = canonical_recall_tokens(n)
    tokens.flags.writeable = False
    counts.flags.writeable = False
    return tokens, counts, math.perm(len(_LETTERS), n) * _NUM_DIGITS**n * n


def exact_recall_accuracy(model: RecallTransformer, scale: Any = None) -> Fraction:
    """Exact fraction of *all* answerable prompts that the model recalls correctly.

    Every answerable prompt with ``n = model.num_pairs`` pairs (``26!/(26-n)! * 10**n * n`` of them)
    is counted once, through the symmetry classes of :func:`canonical_recall_tokens`: one
    representative per class is run and stands for all prompts of its class. A prompt counts as
    correct when its margin (:func:`recall_margins`) is positive, so ties count as wrong.

    Parameters
    ----------
    model : RecallTransformer
        The model; ``model.num_pairs`` must be at most 9 (the number of classes grows like the Bell
        numbers).
    scale : float or pair of floats, optional
        One attention scale for every prompt (``math.inf`` allowed), for both blocks or
        ``(block 1, block 2)``; default ``1/sqrt(d)``. Per-prompt arrays make no sense here and are
        refused.

    Returns
    -------
    fractions.Fraction
        Correctly recalled prompts divided by all answerable prompts, in exact arithmetic.
    """
    if not isinstance(model, RecallTransformer):
        raise TypeError(f"model must be a RecallTransformer (see build_recall_transformer); "
                        f"got {type(model).__name__}")
    if model.num_pairs > _MAX_CANONICAL_PAIRS:
        raise ValueError(f"model.num_pairs must be at most {_MAX_CANONICAL_PAIRS} for an exact count "
                         f"(the number of symmetry classes grows like the Bell numbers); got {model.num_pairs}")
    parts = scale if isinstance(scale, tuple) else (scale,)
    for part in parts:
        if part is not None and np.ndim(part) != 0:
            raise ValueError(f"scale must be one number (or a pair of numbers) for all prompts; "
                             f"got an array of shape {np.shape(part)}")
    tokens, counts, total = _canonical_classes(model.num_pairs)
    correct = recall_margins(model, tokens, scale) > 0  # (C,)
    return Fraction(sum(int(c) for c in counts[correct]), total)


def hardest_recall_tokens(num_pairs: int) -> np.ndarray:
    """The prompt that needs the largest attention scale: ``A0 B0 ... (n-1 equal values), last pair queried``.

    Keys ``A, B, ...``; the first ``n - 1`` pairs hold the same digit ``0``, the last pair holds ``1``
    and is queried, e.g. ``A0B0C1C?`` for ``n = 3``. Two effects make it hard: ``n - 1`` copies of
    one wrong digit compete with the answer in block 2, and block 1 copies the last pair's key with
    the smallest weight (its row sees the most positions). Checked to be the hardest symmetry class
    (largest :func:`critical_scales` with both blocks soft) by exhaustive search over
    :func:`canonical_recall_tokens` for ``2 <= n <= 5``; for larger ``n`` this is a conjecture,
    spot-checked on random prompts. For ``n = 1`` there is only one class.

    Parameters
    ----------
    num_pairs : int
        Number ``n`` of key-value pairs, ``1 <= n <= 26``.

    Returns
    -------
    ndarray of int64, shape (1, 2n + 2)
        One prompt, with a leading batch axis so it can be passed to :func:`run` and friends.
    """
    n = check_positive_int(num_pairs, "num_pairs")
    if n > MAX_PAIRS:
        raise ValueError(f"num_pairs must be at most {MAX_PAIRS} (keys are distinct letters); got {n}")
    tokens = np.empty((1, 2 * n + 2), dtype=np.int64)
    tokens[0, 0:2 * n:2] = _LETTERS[:n]
    tokens[0, 1:2 * n:2] = _DIGITS[0]
    tokens[0, 2 * n - 1] = _DIGITS[1]  # the last pair's value differs from the others
    tokens[0, 2 * n] = _LETTERS[n - 1]  # ... and it is the one queried
    tokens[0, -1] = _QUERY_ID
    return tokens


def critical_scales(model: RecallTransformer, sequences: Any, *, first_block_scale: Any = None,
                    upper: float = 40.0, iterations: int = 60) -> np.ndarray:
    """Per prompt, the scale at which recall switches from wrong to right, by bisection.

    Parameters
    ----------
    model : RecallTransformer
    sequences : prompts of shape (B, T), answerable.
    first_block_scale : float, optional
        ``None``: both blocks use the scale being searched. A number (``math.inf`` allowed): block 1
        keeps that scale and only block 2's scale is searched.
    upper : float
        Upper end of the search; a prompt still wrong there raises ``ValueError``.
    iterations : int
        Bisection steps; the result is within ``upper / 2**iterations`` above the switch point.

    Returns
    -------
    ndarray, shape (B,)
        The smallest scale found with a positive margin. Bisection assumes a single switch from
        wrong to right as the scale grows; check it on a grid when it matters.
    """
    tokens = validate_recall_tokens(sequences, model.num_pairs)
    iterations = check_positive_int(iterations, "iterations")
    answers = recall_answers(tokens, model.num_pairs)
    x0 = embed(model, tokens)
    rows = np.arange(len(answers))

    def correct(scales: np.ndarray) -> np.ndarray:
        scale = (scales, scales) if first_block_scale is None else (first_block_scale, scales)
        logits = _forward(model, x0, scale, keep=False)  # (B, 37)
        right = logits[rows, answers].copy()
        logits[rows, answers] = -np.inf
        return right > logits.max(axis=1)

    lo = np.zeros(len(answers))
    hi = np.full(len(answers), float(upper))
    if not correct(hi).all():
        b = int(np.argmin(correct(hi)))
        raise ValueError(f"prompt {b} ({detokenize(tokens[b])[0]}) is not recalled at scale upper={upper}; "
                         "raise upper")
    for _ in range(iterations):
        mid = (lo + hi) / 2
        ok = correct(mid)
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return hi


def ideal_critical_scale(num_pairs: int) -> float:
    """``ln max(2, n - 1)``: the block-2 scale above which recall is perfect when block 1 is exact.

    See the chapter: the last query scores the matching pair and itself with ``s`` and every other
    position with 0; the correct digit collects ``e^s`` against at most ``max(2, n - 1)`` for any
    other token.
    """
    n = check_positive_int(num_pairs, "num_pairs")
    return math.log(max(2, n - 1))
