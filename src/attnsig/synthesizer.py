"""Synthesizer attention: attention weights made without comparing positions.

Key-query-value attention scores a pair of positions by a dot product ``q_i · k_j``, so
the weight that position ``i`` puts on position ``j`` depends on the contents of both. A
*synthesizer* (Tay et al., 2020, "Synthesizer: Rethinking Self-Attention in Transformer
Models") produces the scores without such a comparison:

* **dense**: row ``i`` of the logits is a small MLP of ``x_i`` alone,
  ``relu(x_i A + b1) B + b2`` with ``B`` of shape (F, L); column ``j`` of that row is
  the logit for *position* ``j``. This is the variant of CS224N assignment 5.
* **random**: the logits are a parameter matrix ``R`` of shape (L, L) that ignores the
  input.

Either way the weights multiply values ``x V`` exactly as in ordinary attention. ``L``
is the largest sequence length the layer accepts; a sequence of length ``T <= L`` uses
the top-left (T, T) block of the logits, as minGPT-style code does.

Matrices here are in the *formula* layout (row vectors times matrices, ``x @ A``), as in
the assignment's equation; :class:`DenseSynthesizer` stores PyTorch's ``nn.Linear``
layout (``weight`` of shape (out, in)) for its projections, like
:class:`attnsig.attention.MultiHeadAttention`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._attention_core import _attend, _merge_heads, _split_heads
from ._deprecated import renamed as _renamed
from ._validation import as_float_array, check_finite, check_rng, check_scalar
from .attention import _allowed

__all__ = [
    "dense_logits",
    "attend",
    "dense_attention",
    "random_attention",
    "DenseSynthesizer",
]


def dense_logits(x: Any, a: Any, b1: Any, b: Any, b2: Any) -> np.ndarray:
    """Dense-synthesizer logits ``relu(x A + b1) B + b2``, cut to the sequence length.

    Parameters
    ----------
    x : array_like, shape (..., T, E)
        The input sequence.
    a : array_like, shape (E, F)
        First layer of the per-position MLP.
    b1 : array_like, shape (F,)
    b : array_like, shape (F, L)
        Second layer; output column ``j`` scores position ``j``. Needs ``L >= T``.
    b2 : array_like, shape (L,)

    Returns
    -------
    ndarray, shape (..., T, T)
        Row ``i`` depends on ``x[..., i, :]`` only.

    Examples
    --------
    >>> x = np.ones((2, 3))  # (T, E)
    >>> a, b1, b, b2 = np.ones((3, 4)), np.zeros(4), np.ones((4, 5)), np.zeros(5)
    >>> logits = dense_logits(x, a, b1, b, b2)
    >>> logits.shape  # (T, T): the first T of L = 5 positions
    (2, 2)
    """
    x = as_float_array(x, "x", ndim_min=2)
    return _dense_logits(x, *_checked_dense(x, a, b1, b, b2))


def _checked_dense(
    x: Any, a: Any, b1: Any, b: Any, b2: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The arguments of :func:`dense_logits` after ``x``, checked against ``x``.

    ``x`` must already be a float array of shape (..., T, E).
    """
    a = as_float_array(a, "a", ndim=2)
    b1 = as_float_array(b1, "b1", ndim=1)
    b = as_float_array(b, "b", ndim=2)
    b2 = as_float_array(b2, "b2", ndim=1)
    t, e = x.shape[-2:]
    if a.shape[0] != e:
        raise ValueError(
            f"a must have shape (E, F) with E={e} the width of x {x.shape}; got "
            f"{a.shape}"
        )
    f = a.shape[1]
    if b1.shape != (f,):
        raise ValueError(f"b1 must have shape (F,) = ({f},); got {b1.shape}")
    if b.shape[0] != f:
        raise ValueError(
            f"b must have shape (F, L) with F={f} the width of a {a.shape}; got "
            f"{b.shape}"
        )
    max_len = b.shape[1]
    if b2.shape != (max_len,):
        raise ValueError(
            f"b2 must have shape (L,) = ({max_len},) to match b {b.shape}; got "
            f"{b2.shape}"
        )
    if t > max_len:
        raise ValueError(
            f"x has T={t} positions but the synthesizer scores at most L={max_len} "
            f"(the width of b {b.shape})"
        )
    return a, b1, b, b2


def _dense_logits(
    x: np.ndarray, a: np.ndarray, b1: np.ndarray, b: np.ndarray, b2: np.ndarray
) -> np.ndarray:
    """:func:`dense_logits` of checked arrays: (..., T, T)."""
    hidden = np.maximum(x @ a + b1, 0.0)  # (..., T, F)
    logits = hidden @ b + b2  # (..., T, L)
    return logits[..., : x.shape[-2]]  # (..., T, T): only the first T positions exist


def attend(
    logits: Any, values: Any, mask: Any = None, *, causal: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Weights ``softmax(logits)`` (masked) applied to ``values``.

    Parameters
    ----------
    logits : array_like, shape (..., T, T)
        Synthesized scores, e.g. from :func:`dense_logits`.
    values : array_like, shape (..., T, d_v)
    mask : array_like of bool, optional
        Broadcastable to (..., T, T); ``True`` = may attend.
    causal : bool
        Also forbid attention to later positions.

    Returns
    -------
    output : ndarray, shape (..., T, d_v)
    weights : ndarray, shape (..., T, T)
        Rows sum to one; a row with every position masked is zero (as in
        :func:`attnsig.attention.softmax`).

    Examples
    --------
    >>> out, w = attend(np.zeros((2, 2)), [[1.0], [3.0]], causal=True)
    >>> w
    array([[1. , 0. ],
           [0.5, 0.5]])
    >>> out
    array([[1.],
           [2.]])
    """
    logits = as_float_array(logits, "logits", ndim_min=2)
    values = as_float_array(values, "values", ndim_min=2)
    t = logits.shape[-1]
    if logits.shape[-2] != t:
        raise ValueError(f"logits must have shape (..., T, T); got {logits.shape}")
    if values.shape[-2] != t:
        raise ValueError(
            f"values must have shape (..., T={t}, d_v) to match logits {logits.shape}; "
            f"got {values.shape}"
        )
    try:
        batch = np.broadcast_shapes(logits.shape[:-2], values.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the batch axes of logits {logits.shape} and values {values.shape} do not "
            "broadcast"
        ) from None
    allowed = _allowed(mask, causal, batch, t, t)
    return _attend(logits, allowed, values)  # the one masked-softmax step


def dense_attention(
    x: Any,
    a: Any,
    b1: Any,
    b: Any,
    b2: Any,
    value_weight: Any,
    *,
    mask: Any = None,
    causal: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """One dense-synthesizer head: ``softmax(relu(x A + b1) B + b2) (x V)``.

    Parameters
    ----------
    x : array_like, shape (..., T, E)
    a, b1, b, b2 : array_like
        As in :func:`dense_logits`: shapes (E, F), (F,), (F, L), (L,).
    value_weight : array_like, shape (E, d_v)
        ``V`` in the formula layout: values are ``x @ V``.
    mask, causal
        As in :func:`attend`.

    Returns
    -------
    output : ndarray, shape (..., T, d_v)
    weights : ndarray, shape (..., T, T)

    Examples
    --------
    >>> x = np.eye(2)  # (T, E)
    >>> a, b1, b, b2 = np.zeros((2, 3)), np.zeros(3), np.zeros((3, 2)), np.zeros(2)
    >>> out, w = dense_attention(x, a, b1, b, b2, np.eye(2))
    >>> w  # zero logits: uniform weights
    array([[0.5, 0.5],
           [0.5, 0.5]])
    """
    x = as_float_array(x, "x", ndim_min=2)
    a, b1, b, b2 = _checked_dense(x, a, b1, b, b2)
    value_weight = as_float_array(value_weight, "value_weight", ndim=2)
    if value_weight.shape[0] != x.shape[-1]:
        raise ValueError(
            f"value_weight must have shape (E, d_v) with E={x.shape[-1]} the width of "
            f"x {x.shape}; got {value_weight.shape}"
        )
    t = x.shape[-2]
    allowed = _allowed(mask, causal, x.shape[:-2], t, t)
    logits = _dense_logits(x, a, b1, b, b2)  # (..., T, T)
    check_finite(logits, "logits")  # an overflowing MLP has no weights
    return _attend(logits, allowed, x @ value_weight)


def random_attention(
    x: Any, logits: Any, value_weight: Any, *, mask: Any = None, causal: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """One random-synthesizer head ``softmax(R[:T, :T]) (x V)``: weights ignore x.

    Parameters
    ----------
    x : array_like, shape (..., T, E)
    logits : array_like, shape (L, L)
        The parameter ``R``; needs ``L >= T``.
    value_weight : array_like, shape (E, d_v)
    mask, causal
        As in :func:`attend`.

    Returns
    -------
    output : ndarray, shape (..., T, d_v)
    weights : ndarray, shape (T, T) broadcast to (..., T, T)

    Examples
    --------
    >>> logits = np.zeros((3, 3))  # R, of shape (L, L)
    >>> out, w = random_attention(np.eye(2), logits, np.eye(2), causal=True)
    >>> w  # the top-left (T, T) block of R, whatever x is
    array([[1. , 0. ],
           [0.5, 0.5]])
    """
    x = as_float_array(x, "x", ndim_min=2)
    logits = as_float_array(logits, "logits", ndim=2)
    value_weight = as_float_array(value_weight, "value_weight", ndim=2)
    t, e = x.shape[-2:]
    if logits.shape[0] != logits.shape[1]:
        raise ValueError(f"logits must be square (L, L); got {logits.shape}")
    if t > logits.shape[0]:
        raise ValueError(
            f"x has T={t} positions but logits {logits.shape} cover at most "
            f"L={logits.shape[0]}"
        )
    if value_weight.shape[0] != e:
        raise ValueError(
            f"value_weight must have shape (E, d_v) with E={e} the width of x "
            f"{x.shape}; got {value_weight.shape}"
        )
    allowed = _allowed(mask, causal, x.shape[:-2], t, t)
    values = x @ value_weight  # (..., T, d_v)
    block = np.broadcast_to(logits[:t, :t], values.shape[:-2] + (t, t))  # (..., T, T)
    return _attend(block, allowed, values)


class DenseSynthesizer:
    """Multi-head dense synthesizer with output projection (CS224N assignment 5).

    Head ``h`` computes ``softmax(relu(x A_h + b1_h) B_h + b2_h) (x V_h)``; the heads
    are concatenated and projected, as in :class:`attnsig.attention.MultiHeadAttention`.
    ``A_h`` and ``V_h`` are the ``h``-th blocks of fused (E, E) projections.

    Parameters
    ----------
    embed_dim : int
        ``E``.
    num_heads : int
        ``H``; must divide ``E``. Head size ``hs = E / H``.
    max_len : int
        ``L``, the longest sequence the layer accepts.
    rng : numpy.random.Generator or int, optional
        Source of the random initial weights.

    Attributes (PyTorch ``nn.Linear`` layout: weight (out, in), ``y = x Wᵀ + b``)
    ----------
    w1_weight : ndarray, shape (E, E)
        Fused first MLP layer; rows ``h*hs:(h+1)*hs`` are ``A_hᵀ``.
    w1_bias : ndarray, shape (E,)
    w2 : ndarray, shape (H, hs, L)
        ``B_h`` of every head (formula layout).
    b2 : ndarray, shape (H, L)
    value_weight : ndarray, shape (E, E)
    value_bias : ndarray, shape (E,)
    out_proj_weight : ndarray, shape (E, E)
    out_proj_bias : ndarray, shape (E,)

    Examples
    --------
    >>> layer = DenseSynthesizer(embed_dim=4, num_heads=2, max_len=5, rng=0)
    >>> out, weights = layer(np.ones((3, 4)), causal=True)
    >>> out.shape, weights.shape
    ((3, 4), (2, 3, 3))
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        max_len: int,
        *,
        rng: np.random.Generator | int | None = None,
    ) -> None:
        self.embed_dim = check_scalar(embed_dim, "embed_dim", int, min_val=1)
        self.num_heads = check_scalar(num_heads, "num_heads", int, min_val=1)
        self.max_len = check_scalar(max_len, "max_len", int, min_val=1)
        if self.embed_dim % self.num_heads:
            raise ValueError(f"num_heads={num_heads} must divide embed_dim={embed_dim}")
        rng = check_rng(rng, seed_ok=True)
        e, h, hs, length = self.embed_dim, self.num_heads, self.head_dim, self.max_len
        bound = 1.0 / math.sqrt(e)  # nn.Linear's default uniform range
        self.w1_weight = rng.uniform(-bound, bound, size=(e, e))
        self.w1_bias = rng.uniform(-bound, bound, size=e)
        self.w2 = rng.uniform(
            -1 / math.sqrt(hs), 1 / math.sqrt(hs), size=(h, hs, length)
        )
        self.b2 = np.zeros((h, length))
        self.value_weight = rng.uniform(-bound, bound, size=(e, e))
        self.value_bias = np.zeros(e)
        self.out_proj_weight = rng.uniform(-bound, bound, size=(e, e))
        self.out_proj_bias = np.zeros(e)

    @property
    def head_dim(self) -> int:
        """Size ``hs = E / H`` of one head."""
        return self.embed_dim // self.num_heads

    def logits(self, x: Any) -> np.ndarray:
        """Synthesized logits of every head: (..., T, E) -> (..., H, T, T)."""
        return self._logits(self._checked_x(x))

    def _checked_x(self, x: Any) -> np.ndarray:
        x = as_float_array(x, "x", ndim_min=2)
        if x.shape[-1] != self.embed_dim:
            raise ValueError(
                f"x must have shape (..., T, E={self.embed_dim}); got {x.shape}"
            )
        if x.shape[-2] > self.max_len:
            raise ValueError(
                f"x has T={x.shape[-2]} positions; this layer accepts at most "
                f"max_len={self.max_len}"
            )
        return x

    def _logits(self, x: np.ndarray) -> np.ndarray:
        """:meth:`logits` of a checked ``x``: (..., H, T, T)."""
        t = x.shape[-2]
        hidden = _split_heads(
            np.maximum(x @ self.w1_weight.T + self.w1_bias, 0.0), self.num_heads
        )  # (..., H, T, hs)
        logits = hidden @ self.w2 + self.b2[:, None, :]  # (..., H, T, L)
        return logits[..., :t]  # (..., H, T, T)

    def __call__(
        self, x: Any, *, mask: Any = None, causal: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Apply the layer.

        Parameters
        ----------
        x : array_like, shape (..., T, E)
        mask : array_like of bool, optional
            Broadcastable to (..., T, T), shared by the heads; ``True`` = may attend.
        causal : bool

        Returns
        -------
        output : ndarray, shape (..., T, E)
        weights : ndarray, shape (..., H, T, T)
        """
        x = self._checked_x(x)
        t = x.shape[-2]
        allowed = _allowed(mask, causal, x.shape[:-2], t, t)  # (..., T, T) or None
        if allowed is not None and allowed.ndim >= 2:
            allowed = allowed[
                ..., None, :, :
            ]  # (..., 1, T, T): the same for every head
        logits = self._logits(x)  # (..., H, T, T)
        check_finite(logits, "logits")  # an overflowing MLP has no weights
        values = _split_heads(
            x @ self.value_weight.T + self.value_bias, self.num_heads
        )  # (..., H, T, hs)
        heads, weights = _attend(logits, allowed, values)
        out = _merge_heads(heads) @ self.out_proj_weight.T + self.out_proj_bias
        return out, weights  # (..., T, E), (..., H, T, T)

    def __repr__(self) -> str:
        """The constructor's arguments."""
        return (
            f"DenseSynthesizer(embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
            f"max_len={self.max_len})"
        )


# Release 0.1.0's names, kept as thin deprecated aliases (CHANGELOG.md, "Deprecated").
__getattr__ = _renamed(
    __name__,
    globals(),
    {
        "dense_synthesizer_logits": "dense_logits",
        "synthesizer_attention": "attend",
        "dense_synthesizer_attention": "dense_attention",
        "random_synthesizer_attention": "random_attention",
    },
)
