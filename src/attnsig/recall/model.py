"""The model: a two-block transformer for associative recall, built by hand.

The task: a sequence of ``n`` key-value pairs, then a key, then ``?``; the answer is the
value stored under that key. Example: ``A6B8C3B?`` -> ``8``. Keys are capital letters,
values digits.

**Vocabulary.** 37 tokens ``0-9``, ``A-Z``, ``?`` with indices 0-9, 10-35, 36
(``VOCAB``).

**Embedding** (three blocks, ``d = 37 + w + 37``). A token ``x_i`` at position ``i`` of
a sequence of length ``T = 2n + 2`` becomes ``[e_token | e_code | 0]``: the token block
holds the one-hot token, the *index block* holds a position code ``c = T - i``
(positions counted from the end, as in the construction of the source sheet), and the
output block starts empty. Codes ``1..9`` reuse the digit coordinates of the index
block, codes ``>= 10`` get fresh coordinates appended to it, so the index block has
width ``w = 37 + max(0, T - 9)``. For ``n = 3`` (``T = 8``) this is the sheet's
``d = 3 * 37 = 111``. Letters in the index block are free for the keys that block 1
writes there.

**Block 1** (attention + ReLU feed-forward, both with residuals) copies the key of every
pair into the index block of the value position: the query maps an odd code ``c`` to
``c + 1`` (the code of the previous position), the key is the code itself, the value
copies the token block into the output block. The feed-forward network adds the letter
part of the output block to the index block at positions with an odd code and clears the
output block.

**Block 2** looks the key up: query = key = the index block without code 1 (so the ``?``
position carries only the queried letter), value = the token block copied into the
output block, ``?`` dropped. Its feed-forward network is zero (the block's residual
makes it the identity).

**Read-out**: the output block at the last position, read at temperature zero (argmax).

Attention is the arithmetic of ``attnsig.attention.scaled_dot_product_attention`` (its
unchecked core, on inputs checked once at the public entry) with a causal mask and the
scale ``1/sqrt(d)`` of the sheet by default; ``scale=math.inf`` is the hard
(temperature-zero) limit, uniform over the maximal scores of each row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._attention_core import _attend, _scaled_dot_product, _with_causal
from .._validation import as_float_array, check_scalar
from .task import _LETTERS, _QUERY_ID, MAX_PAIRS, VOCAB_SIZE, validate_tokens

__all__ = [
    "FeedForward",
    "Transformer",
    "Trace",
    "build_transformer",
    "embed",
    "run",
    "logits",
    "predict",
]


@dataclass(frozen=True)
class FeedForward:
    """A one-hidden-layer ReLU network ``x -> relu(x @ w_in + b_in) @ w_out + b_out``.

    Attributes
    ----------
    w_in : ndarray, shape (d, h)
    b_in : ndarray, shape (h,)
    w_out : ndarray, shape (h, d)
    b_out : ndarray, shape (d,)

    Examples
    --------
    >>> ffn = FeedForward(np.eye(2), np.array([0.0, -1.0]), np.eye(2), np.zeros(2))
    >>> ffn(np.array([3.0, 3.0]))
    array([3., 2.])
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
class Transformer:
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

    Examples
    --------
    >>> model = build_transformer(3)
    >>> model.seq_len, model.dim
    (8, 111)
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
        """Coordinates of the token block (the one-hot token)."""
        return slice(0, VOCAB_SIZE)

    @property
    def index_block(self) -> slice:
        """Coordinates of the index block (position codes, then copied keys)."""
        return slice(VOCAB_SIZE, VOCAB_SIZE + self.index_width)

    @property
    def output_block(self) -> slice:
        """Coordinates of the output block (what attention writes)."""
        return slice(VOCAB_SIZE + self.index_width, self.dim)

    def code_coordinate(self, code: int) -> int:
        """Coordinate, in the full width ``d``, of the position code ``code`` (1..T)."""
        if not 1 <= code <= self.seq_len:
            raise ValueError(f"code must be in 1..{self.seq_len}; got {code}")
        return _code_coordinate(code)


def _code_coordinate(code: int) -> int:
    # Codes 1..9 reuse the digit coordinates of the index block (as in the sheet);
    # larger codes get fresh coordinates after the 37 token coordinates of the index
    # block.
    local = code if code <= 9 else VOCAB_SIZE + (code - 10)
    return VOCAB_SIZE + local


def build_transformer(num_pairs: int = 3) -> Transformer:
    """Build the explicit weights of the two-block recall transformer.

    Parameters
    ----------
    num_pairs : int
        Number ``n`` of key-value pairs, ``1 <= n <= 26`` (keys are distinct letters).
        ``n = 3`` gives the sheet's model with ``d = 111``.

    Returns
    -------
    Transformer

    Examples
    --------
    >>> model = build_transformer(3)
    >>> model.w_q1.shape
    (111, 111)
    """
    n = check_scalar(num_pairs, "num_pairs", int, min_val=1)
    if n > MAX_PAIRS:
        raise ValueError(
            f"num_pairs must be at most {MAX_PAIRS} (keys are distinct letters); got "
            f"{n}"
        )
    seq_len = 2 * n + 2
    width = VOCAB_SIZE + max(0, seq_len - 9)
    d = 2 * VOCAB_SIZE + width
    tok, idx, out = 0, VOCAB_SIZE, VOCAB_SIZE + width  # first coordinate of each block
    codes = range(1, seq_len + 1)
    odd_codes = [c for c in codes if c % 2 == 1]

    # Block 1. Query: odd code c -> code c + 1 (the position just before), other index
    # coordinates unchanged; key: the index block as it is; value: token block -> output
    # block.
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

    # Block 1 feed-forward network. Unit for letter L: relu(out_L + [code odd] - 1),
    # which is out_L at odd codes and 0 at even ones because 0 <= out_L <= 1 (it is an
    # attention average of one-hot vectors); it writes into the letter coordinate of
    # the index block. Two units per output coordinate, relu(o) - relu(-o) = o, clear
    # the output block.
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

    # Block 2. Query = key = index block without code 1; value: token block -> output
    # block, the query token "?" dropped.
    w_q2 = np.zeros((d, d))
    for j in range(idx, idx + width):
        if j != _code_coordinate(1):
            w_q2[j, j] = 1.0
    w_v2 = np.zeros((d, d))
    w_v2[tok + np.arange(_QUERY_ID), out + np.arange(_QUERY_ID)] = 1.0
    ffn2 = FeedForward(np.zeros((d, 1)), np.zeros(1), np.zeros((1, d)), np.zeros(d))

    w_read = np.zeros((d, VOCAB_SIZE))
    w_read[out + np.arange(VOCAB_SIZE), np.arange(VOCAB_SIZE)] = 1.0
    return Transformer(
        n, width, w_q1, w_k1, w_v1, ffn1, w_q2, w_q2.copy(), w_v2, ffn2, w_read
    )


@dataclass(frozen=True)
class Trace:
    """Every intermediate matrix of one forward pass (leading batch axis B).

    Attributes (shapes)
    -------------------
    x0 : (B, T, d) embedding;
    q1, k1, v1 : (B, T, d) block 1 queries, keys, values; weights1 : (B, T, T) its
    attention map;
    attention1 : (B, T, d) the head's output; residual1 = x0 + attention1; ffn1 : (B, T,
    d) the feed-forward output; x1 = residual1 + ffn1 (block 1 output);
    q2, k2, v2, weights2, attention2, residual2, ffn2, x2 : the same for block 2;
    logits : (B, T, 37) the read-out ``x2 @ w_out`` at every position (finite;
    temperature zero means taking the argmax).

    Examples
    --------
    >>> trace = run(build_transformer(3), "A6B8C3B?")
    >>> trace.weights1.shape, trace.logits.shape
    ((1, 8, 8), (1, 8, 37))
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


def embed(model: Transformer, tokens: np.ndarray) -> np.ndarray:
    """Embedding ``[e_token | e_code | 0]`` of tokens (B, T): shape (B, T, d).

    Examples
    --------
    >>> from attnsig.recall import tokenize
    >>> model = build_transformer(1)
    >>> x = embed(model, tokenize("A1A?"))
    >>> x.shape, int(x.sum())  # one token and one position code per position
    ((1, 4, 111), 8)
    """
    batch, seq_len = tokens.shape
    if seq_len != model.seq_len:
        raise ValueError(
            f"tokens must have length {model.seq_len} for this model; got shape "
            f"{tokens.shape}"
        )
    x = np.zeros((batch, seq_len, model.dim))
    np.put_along_axis(x, tokens[:, :, None], 1.0, axis=2)  # token block: one-hot
    code_coords = [_code_coordinate(seq_len - i) for i in range(seq_len)]
    x[:, np.arange(seq_len), code_coords] = 1.0  # index block: position code T - i
    return x


def _check_scale(scale: Any, dim: int, batch: int) -> tuple[np.ndarray, np.ndarray]:
    """(scale of block 1, scale of block 2), each 0-d (possibly inf) or of shape (B,).

    The public functions check ``scale`` here once; the forward pass takes the result
    unchecked.
    """
    if isinstance(scale, tuple):
        if len(scale) != 2:
            raise ValueError(
                "scale must be a number or a pair (block 1, block 2); got a tuple of "
                f"length {len(scale)}"
            )
        return (
            _check_one_scale(scale[0], "scale[0]", dim, batch),
            _check_one_scale(scale[1], "scale[1]", dim, batch),
        )
    one = _check_one_scale(scale, "scale", dim, batch)
    return one, one


def _check_one_scale(value: Any, name: str, dim: int, batch: int) -> np.ndarray:
    if value is None:
        return np.asarray(1.0 / math.sqrt(dim))
    arr = as_float_array(value, name, allow_inf=True, allow_bool=False)
    if arr.ndim > 1:
        raise ValueError(
            f"{name} must be a number or an array of shape (B,); got shape {arr.shape}"
        )
    if (arr < 0).any():
        raise ValueError(
            f"{name} must be >= 0 (it multiplies the attention scores); got {arr.min()}"
        )
    if arr.ndim == 1 and np.isinf(arr).any():
        raise ValueError(
            f"{name}: a per-sequence scale must be finite; use the number math.inf for "
            "the limit"
        )
    if arr.ndim == 1 and arr.shape[0] != batch:
        raise ValueError(
            f"a per-sequence scale must have shape (B,) = ({batch},); got {arr.shape}"
        )
    return arr.astype(np.float64)


def _attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: np.ndarray, causal: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Attention with a checked scalar, infinite or per-sequence scale.

    Returns (output, weights). ``causal=False`` is used only for the last query row,
    which sees every position anyway.
    """
    allowed = _with_causal(None, causal, q.shape[-2], k.shape[-2])  # (Tq, T) or None
    if scale.ndim == 0 and np.isinf(scale):
        # Temperature zero: all weight, uniformly, on the maximal scores of each row,
        # i.e. the scores become +inf at the row maxima and -inf elsewhere.
        scores = q @ np.swapaxes(k, -1, -2)  # (B, Tq, T)
        if allowed is not None:
            scores = np.where(allowed, scores, -np.inf)
        top = scores.max(axis=-1, keepdims=True)
        at_top = np.isclose(scores, top, rtol=0.0, atol=1e-12)
        return _attend(np.where(at_top, np.inf, -np.inf), None, v)
    if scale.ndim == 1:
        # Scaling the queries scales the scores row by row.
        q = q * scale[:, None, None]
        scale = np.asarray(1.0)
    return _scaled_dot_product(q, k, v, allowed, float(scale))


def _block1(model: Transformer, x0: np.ndarray, scale1: np.ndarray):
    d = model.dim
    # One product for the three projections of block 1.
    w_qkv = np.concatenate([model.w_q1, model.w_k1, model.w_v1], axis=1)  # (d, 3d)
    qkv1 = x0 @ w_qkv  # (B, T, 3d)
    q1, k1, v1 = qkv1[..., :d], qkv1[..., d : 2 * d], qkv1[..., 2 * d :]  # (B, T, d)
    attention1, weights1 = _attention(q1, k1, v1, scale1)
    residual1 = x0 + attention1
    ffn1 = model.ffn1(residual1)
    return q1, k1, v1, weights1, attention1, residual1, ffn1, residual1 + ffn1


def _trace(
    model: Transformer, x0: np.ndarray, scales: tuple[np.ndarray, np.ndarray]
) -> Trace:
    """The whole forward pass, every intermediate kept (scales checked)."""
    scale1, scale2 = scales
    block1 = _block1(model, x0, scale1)
    x1 = block1[-1]
    kv2 = x1 @ np.concatenate([model.w_k2, model.w_v2], axis=1)  # (B, T, 2d)
    k2, v2 = kv2[..., : model.dim], kv2[..., model.dim :]
    q2 = x1 @ model.w_q2  # (B, T, d)
    attention2, weights2 = _attention(q2, k2, v2, scale2)
    residual2 = x1 + attention2
    ffn2 = model.ffn2(residual2)
    x2 = residual2 + ffn2
    return Trace(
        x0, *block1, q2, k2, v2, weights2, attention2, residual2, ffn2, x2,
        x2 @ model.w_out,
    )  # fmt: skip


def _runs(indices: np.ndarray) -> list[tuple[slice, slice]]:
    """Sorted ``indices`` as runs of consecutive ones: (in ``indices``, in the axis)."""
    breaks = np.flatnonzero(np.diff(indices) != 1) + 1
    starts = np.r_[0, breaks]
    stops = np.r_[breaks, len(indices)]
    return [
        (slice(i, j), slice(int(indices[i]), int(indices[j - 1]) + 1))
        for i, j in zip(starts, stops, strict=True)
    ]


@dataclass(frozen=True)
class _Support:
    """Where a weight matrix ``w`` (m, k) is nonzero: rows, column runs, ``w`` there."""

    rows: np.ndarray
    col_runs: list[tuple[slice, slice]]
    block: np.ndarray
    width: int


def _support(w: np.ndarray) -> _Support:
    nonzero = w != 0
    rows = np.flatnonzero(nonzero.any(axis=1))
    cols = np.flatnonzero(nonzero.any(axis=0))
    return _Support(rows, _runs(cols), w[np.ix_(rows, cols)], w.shape[1])


def _times(x: np.ndarray, support: _Support) -> np.ndarray:
    """``x @ w`` for finite ``x`` (..., m) and ``support = _support(w)``: (..., k).

    Only the products that can be nonzero are formed; the weights of the construction
    are mostly zero. A dropped term is an exact zero, so where at most two terms of a
    sum are nonzero (every projection and network of the construction on its inputs)
    the result equals the dense product bit for bit.
    """
    flat = x.reshape(-1, x.shape[-1])  # (N, m)
    product = np.take(flat, support.rows, axis=1) @ support.block  # (N, nonzero cols)
    out = np.zeros((len(flat), support.width))
    for part, cols in support.col_runs:  # a few runs of columns: slice copies
        out[:, cols] = product[:, part]
    return out.reshape(*x.shape[:-1], support.width)


@dataclass(frozen=True)
class _Sparse:
    """The nonzero parts of a model's weights, found once for many forward passes."""

    qkv1: _Support  # of [w_q1 | w_k1 | w_v1]
    ffn1_in: _Support
    ffn1_out: _Support
    kv2: _Support  # of [w_k2 | w_v2]
    q2: _Support


def _sparse(model: Transformer) -> _Sparse:
    return _Sparse(
        _support(np.concatenate([model.w_q1, model.w_k1, model.w_v1], axis=1)),
        _support(model.ffn1.w_in),
        _support(model.ffn1.w_out),
        _support(np.concatenate([model.w_k2, model.w_v2], axis=1)),
        _support(model.w_q2),
    )


class _LastLogits:
    """The read-out at the last position, for many scales of one batch (private).

    What does not depend on the scale (the embedding's projections of block 1, and all
    of block 1 when its scale is fixed) is computed once. The products skip the zero
    weights (:func:`_times`); everything else is the arithmetic of :func:`_trace`.
    """

    def __init__(self, model: Transformer, x0: np.ndarray) -> None:
        self.model, self.x0, self.sparse = model, x0, _sparse(model)
        d = model.dim
        qkv1 = _times(x0, self.sparse.qkv1)  # (B, T, 3d)
        self.qkv1 = qkv1[..., :d], qkv1[..., d : 2 * d], qkv1[..., 2 * d :]
        self._block1_at: tuple[np.ndarray, np.ndarray] | None = None

    def _x1(self, scale1: np.ndarray) -> np.ndarray:
        """Block 1's output (B, T, d) at a checked scale."""
        if self._block1_at is not None and self._block1_at[0] is scale1:
            return self._block1_at[1]
        model, sparse = self.model, self.sparse
        attention1, _ = _attention(*self.qkv1, scale1)
        residual1 = attention1
        residual1 += self.x0
        # The network of block 1 and its residual, in place on fresh arrays.
        hidden = _times(residual1, sparse.ffn1_in)
        hidden += model.ffn1.b_in
        np.maximum(hidden, 0.0, out=hidden)
        x1 = _times(hidden, sparse.ffn1_out)
        x1 += model.ffn1.b_out
        x1 += residual1
        self._block1_at = (scale1, x1)
        return x1

    def __call__(self, scales: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The read-out (B, 37) at checked scales (block 1, block 2)."""
        model, sparse = self.model, self.sparse
        scale1, scale2 = scales
        x1 = self._x1(scale1)
        kv2 = _times(x1, sparse.kv2)  # (B, T, 2d)
        k2, v2 = kv2[..., : model.dim], kv2[..., model.dim :]
        last = x1[:, -1:]  # (B, 1, d)
        q_last = _times(last, sparse.q2)
        attention_last, _ = _attention(q_last, k2, v2, scale2, causal=False)
        residual_last = last + attention_last
        x2_last = residual_last + model.ffn2(residual_last)
        return x2_last[:, 0] @ model.w_out  # (B, 37)


def _last_logits(
    model: Transformer, x0: np.ndarray, scales: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """The read-out at the last position only, shape (B, 37) (scales checked).

    The last query row sees every position and no other row of block 2 influences it, so
    block 2 runs for that row alone.
    """
    return _LastLogits(model, x0)(scales)


def run(
    model: Transformer,
    sequences: Any,
    scale: Any = None,
    *,
    check_answerable: bool = True,
) -> Trace:
    """Run the transformer and keep every intermediate matrix.

    Parameters
    ----------
    model : Transformer
    sequences : str, sequence of str, or array_like of int, shape (B, T)
        Recall prompts of length ``T = 2n + 2``, validated by
        :func:`~attnsig.recall.task.validate_tokens`.
    scale : float, array of shape (B,), or pair of those, optional
        Multiplier of the attention scores, for both blocks or ``(block 1, block 2)``;
        default ``1/sqrt(d)``. ``math.inf`` is the temperature-zero limit (uniform over
        the row maxima).
    check_answerable : bool
        Refuse prompts with repeated keys or a missing queried key (default). ``False``
        runs them, to see what the construction does.

    Returns
    -------
    Trace

    Examples
    --------
    >>> import math
    >>> from attnsig.recall import VOCAB
    >>> trace = run(build_transformer(3), "A6B8C3B?", math.inf)
    >>> VOCAB[int(trace.logits[0, -1].argmax())]
    '8'
    """
    tokens = validate_tokens(
        sequences, model.num_pairs, check_answerable=check_answerable
    )
    scales = _check_scale(scale, model.dim, len(tokens))
    return _trace(model, embed(model, tokens), scales)


def logits(
    model: Transformer,
    sequences: Any,
    scale: Any = None,
    *,
    check_answerable: bool = True,
) -> np.ndarray:
    """Read-out at the last position, shape (B, 37), without keeping the intermediates.

    Examples
    --------
    >>> from attnsig.recall import VOCAB
    >>> readout = logits(build_transformer(3), "A6B8C3B?", 3.0)
    >>> readout.shape, VOCAB[int(readout[0].argmax())]
    ((1, 37), '8')
    """
    tokens = validate_tokens(
        sequences, model.num_pairs, check_answerable=check_answerable
    )
    scales = _check_scale(scale, model.dim, len(tokens))
    return _last_logits(model, embed(model, tokens), scales)


def predict(
    model: Transformer,
    sequences: Any,
    scale: Any = None,
    *,
    check_answerable: bool = True,
    atol: float = 1e-12,
) -> np.ndarray:
    """Temperature-zero prediction at the last position: token indices of shape (B,).

    A row whose largest read-out value is not unique (within ``atol``) has no
    deterministic answer and gets ``-1``.

    Examples
    --------
    >>> from attnsig.recall import VOCAB
    >>> model = build_transformer(3)
    >>> [VOCAB[t] for t in predict(model, ["A6B8C3B?", "A6B8C3C?"], 3.0)]
    ['8', '3']
    """
    readout = logits(
        model, sequences, scale, check_answerable=check_answerable
    )  # (B, 37)
    top_two = np.sort(readout, axis=1)[:, -2:]  # (B, 2)
    best = np.argmax(readout, axis=1)
    return np.where(top_two[:, 1] - top_two[:, 0] > atol, best, -1)
