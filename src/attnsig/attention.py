"""Softmax, masks, scaled dot-product and multi-head attention, in NumPy.

**Conventions.**

* Boolean masks say where a query **may attend**: ``True`` = allowed, ``False`` = masked
  out. (PyTorch's ``nn.MultiheadAttention`` uses the opposite convention for boolean
  masks; ``F.scaled_dot_product_attention`` uses this one.)
* Shapes: ``T`` query positions, ``S`` key positions, ``E`` embedding size, ``H`` heads,
  ``hs = E // H`` head size; any number of leading batch axes ``...`` is allowed.
* A query row whose every key is masked out gets all-zero weights and a zero output
  (documented choice; PyTorch returns NaN there).

**Attention is written once.** :func:`scaled_dot_product_attention` checks its input,
computes the scores and hands them to one private step, ``_attend``: mask the scores,
softmax over the keys, weight the values. That step and the softmax arithmetic
(``_softmax`` and its in-place core ``_softmax_inplace``) live in the private module
``attnsig._attention_core``, beneath this module and the fast path; every other
attention in the package (``heads``, ``synthesizer``, ``recall``, the readable path of
:class:`MultiHeadAttention`) goes through them.

**Two paths in** :class:`MultiHeadAttention`. ``mha(x, reference=True)`` runs the
readable path: three projections, :func:`split_heads`,
:func:`scaled_dot_product_attention`, :func:`merge_heads`, the output projection. The
default runs the same computation with fewer passes over memory, from the private module
``attnsig._attention_fast`` (fused projections, masks and softmax in place, causal rows
by blocks); it is tested against the readable path to 1e-12 in float64.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _attention_fast
from ._attention_core import (
    _merge_heads,
    _scaled_dot_product,
    _softmax,
    _split_heads,
    _with_causal,
)
from ._validation import (
    as_float_array,
    check_bool_array,
    check_finite,
    check_float_dtype,
    check_rng,
    check_scalar,
)

__all__ = [
    "softmax",
    "causal_mask",
    "scaled_dot_product_attention",
    "split_heads",
    "merge_heads",
    "MultiHeadAttention",
]


def softmax(x: Any, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``, defined for infinite entries.

    Parameters
    ----------
    x : array_like, shape (...)
        Real logits. ``-inf`` means "weight zero"; ``+inf`` means "all the weight": a
        slice with one or more ``+inf`` entries becomes uniform over those entries (the
        temperature-zero limit). NaN is refused.
    axis : int
        The axis along which the result sums to one.

    Returns
    -------
    ndarray, same shape and floating dtype as ``x``
        Non-negative weights summing to 1 along ``axis``, except for slices whose
        entries are all ``-inf``: those are all zeros (no entry may receive weight),
        never NaN.

    Examples
    --------
    >>> softmax([1.0, 2.0, -np.inf]).round(4)
    array([0.2689, 0.7311, 0.    ])
    >>> softmax([np.inf, 0.0, np.inf])
    array([0.5, 0. , 0.5])
    """
    x = as_float_array(x, "x", ndim_min=1, allow_inf=True)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(
            f"axis must be in [-{x.ndim}, {x.ndim}) for x of shape {x.shape}; got "
            f"{axis}"
        )
    return _softmax(x, axis)


def causal_mask(n: int, m: int | None = None) -> np.ndarray:
    """Boolean causal mask: position ``i`` may attend to positions ``j <= i``.

    Parameters
    ----------
    n : int
        Number of query positions.
    m : int, optional
        Number of key positions (default ``n``). Rows and columns are aligned at the
        top-left, as in PyTorch's ``is_causal``.

    Returns
    -------
    ndarray of bool, shape (n, m)
        ``True`` on and below the diagonal (may attend), ``False`` above it.

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    n = check_scalar(n, "n", int, min_val=1)
    m = n if m is None else check_scalar(m, "m", int, min_val=1)
    return np.tri(n, m, dtype=bool)


def _check_mask_shape(
    mask: np.ndarray, target: tuple[int, ...], name: str = "mask"
) -> None:
    try:
        shape = np.broadcast_shapes(mask.shape, target)
    except ValueError:
        raise ValueError(
            f"{name} of shape {mask.shape} does not broadcast to the attention scores' "
            f"shape {target} (..., T, S)"
        ) from None
    if shape != target:
        raise ValueError(
            f"{name} of shape {mask.shape} would enlarge the attention scores' shape "
            f"{target}; expected a shape broadcastable to (..., T, S)"
        )


def _allowed(
    mask: Any, causal: bool, batch: tuple[int, ...], t: int, s: int
) -> np.ndarray | None:
    """The checked boolean mask (``True`` = may attend) combined with the causal one."""
    allowed = None
    if mask is not None:
        allowed = check_bool_array(mask, "mask")
        _check_mask_shape(allowed, batch + (t, s))
    return _with_causal(allowed, causal, t, s)


def scaled_dot_product_attention(
    q: Any,
    k: Any,
    v: Any,
    mask: Any = None,
    *,
    causal: bool = False,
    scale: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Attention ``softmax(q kᵀ · scale) v`` with optional boolean and causal masks.

    Parameters
    ----------
    q : array_like, shape (..., T, d_k)
        Queries.
    k : array_like, shape (..., S, d_k)
        Keys.
    v : array_like, shape (..., S, d_v)
        Values.
    mask : array_like of bool, optional
        Broadcastable to (..., T, S); ``True`` = the query may attend to that key.
    causal : bool
        Also forbid attention to later positions (``causal_mask(T, S)``).
    scale : float, optional
        Multiplier of the scores, ``>= 0``; default ``1 / sqrt(d_k)``. ``0`` gives
        uniform weights.

    Returns
    -------
    output : ndarray, shape (..., T, d_v)
    weights : ndarray, shape (..., T, S)
        Each row sums to one, except rows with every key masked out: those are zero, and
        so is their output.

    Examples
    --------
    >>> q = np.array([[1.0, 0.0]])
    >>> k = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> v = np.array([[10.0], [20.0]])
    >>> out, w = scaled_dot_product_attention(q, k, v, scale=0.0)
    >>> out, w
    (array([[15.]]), array([[0.5, 0.5]]))
    >>> scaled_dot_product_attention(q, k, v, causal=True)[1]
    array([[1., 0.]])
    """
    q = as_float_array(q, "q", ndim_min=2)
    k = as_float_array(k, "k", ndim_min=2)
    v = as_float_array(v, "v", ndim_min=2)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must share their last axis d_k; got q {q.shape} and k {k.shape}"
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            "k and v must have the same number of positions S (axis -2); "
            f"got k {k.shape} and v {v.shape}"
        )
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the batch axes of q {q.shape}, k {k.shape} and v {v.shape} do not "
            "broadcast"
        ) from None
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    else:
        scale = check_scalar(scale, "scale", min_val=0)
    allowed = _allowed(mask, causal, batch, q.shape[-2], k.shape[-2])
    return _scaled_dot_product(q, k, v, allowed, scale)


def split_heads(x: Any, num_heads: int) -> np.ndarray:
    """Split the last axis into heads: (..., T, E) -> (..., H, T, E / H).

    Head ``h`` takes the contiguous slice ``x[..., h*hs:(h+1)*hs]``, as in PyTorch.

    Examples
    --------
    >>> split_heads(np.arange(8.0).reshape(2, 4), 2)[1]
    array([[2., 3.],
           [6., 7.]])
    """
    x = np.asarray(x)
    num_heads = check_scalar(num_heads, "num_heads", int, min_val=1)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., T, E); got shape {x.shape}")
    if x.shape[-1] % num_heads:
        raise ValueError(
            f"num_heads={num_heads} must divide the embedding size {x.shape[-1]} of x "
            f"{x.shape}"
        )
    return _split_heads(x, num_heads)  # (..., H, T, hs)


def merge_heads(x: Any) -> np.ndarray:
    """Inverse of :func:`split_heads`: (..., H, T, hs) -> (..., T, H * hs).

    Examples
    --------
    >>> x = np.arange(8.0).reshape(2, 4)
    >>> bool((merge_heads(split_heads(x, 2)) == x).all())
    True
    """
    x = np.asarray(x)
    if x.ndim < 3:
        raise ValueError(f"x must have shape (..., H, T, hs); got shape {x.shape}")
    return _merge_heads(x)  # (..., T, E)


class MultiHeadAttention:
    """Multi-head attention with PyTorch's parameter layout (``batch_first=True``).

    ``Q = x_q W_qᵀ + b_q``, ``K = x_k W_kᵀ + b_k``, ``V = x_v W_vᵀ + b_v``, each split
    into ``H`` heads of size ``hs = E / H``; every head runs
    :func:`scaled_dot_product_attention`; the heads are concatenated and projected by
    ``W_o``: ``out = concat W_oᵀ + b_o``.

    Parameters
    ----------
    embed_dim : int
        ``E``, the model width; queries, keys and values all have this width.
    num_heads : int
        ``H``; must divide ``embed_dim``.
    bias : bool
        Whether the projections have biases (initialised to zero, as in PyTorch).
    rng : numpy.random.Generator or int, optional
        Source of the random initial weights (Xavier-uniform in-projection, uniform
        ``±1/sqrt(E)`` out-projection, as in PyTorch).
    dtype : numpy dtype
        Floating dtype of the weights (float64 by default; float32 for speed).

    Attributes
    ----------
    in_proj_weight : ndarray, shape (3E, E)
        ``[W_q; W_k; W_v]`` stacked.
    in_proj_bias : ndarray, shape (3E,) or None
    out_proj_weight : ndarray, shape (E, E)
    out_proj_bias : ndarray, shape (E,) or None

    Examples
    --------
    >>> mha = MultiHeadAttention(4, 2, rng=0)
    >>> x = np.ones((3, 4))  # (T, E)
    >>> out, weights = mha(x, causal=True)
    >>> out.shape, weights.shape
    ((3, 4), (2, 3, 3))
    >>> np.allclose(out, mha(x, causal=True, reference=True)[0], rtol=0, atol=1e-12)
    True
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        *,
        bias: bool = True,
        rng: np.random.Generator | int | None = None,
        dtype: Any = np.float64,
    ) -> None:
        self.embed_dim = check_scalar(embed_dim, "embed_dim", int, min_val=1)
        self.num_heads = check_scalar(num_heads, "num_heads", int, min_val=1)
        if self.embed_dim % self.num_heads:
            raise ValueError(f"num_heads={num_heads} must divide embed_dim={embed_dim}")
        dtype = check_float_dtype(dtype, "dtype")
        rng = check_rng(rng, seed_ok=True)
        e = self.embed_dim
        xavier = math.sqrt(6.0 / (e + 3 * e))  # fan_in = E, fan_out = 3E when stacked
        bound = 1 / math.sqrt(e)
        w_in = rng.uniform(-xavier, xavier, size=(3 * e, e))  # (3E, E)
        self.in_proj_weight = w_in.astype(dtype)
        self.out_proj_weight = rng.uniform(-bound, bound, size=(e, e)).astype(dtype)
        self.in_proj_bias = np.zeros(3 * e, dtype) if bias else None
        self.out_proj_bias = np.zeros(e, dtype) if bias else None

    @classmethod
    def from_weights(
        cls,
        in_proj_weight: Any,
        in_proj_bias: Any,
        out_proj_weight: Any,
        out_proj_bias: Any,
        num_heads: int,
    ) -> MultiHeadAttention:
        """Build from given weights (e.g. copied from ``torch.nn.MultiheadAttention``).

        Parameters
        ----------
        in_proj_weight : array_like, shape (3E, E)
        in_proj_bias : array_like, shape (3E,), or None for no bias
        out_proj_weight : array_like, shape (E, E)
        out_proj_bias : array_like, shape (E,), or None for no bias
        num_heads : int

        Examples
        --------
        >>> mha = MultiHeadAttention.from_weights(np.vstack([np.eye(2)] * 3), None,
        ...                                       np.eye(2), None, 1)
        >>> mha
        MultiHeadAttention(embed_dim=2, num_heads=1, bias=False, dtype=float64)
        """
        w_in, b_in, w_out, b_out = _checked_weights(
            in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias
        )
        self = cls(w_in.shape[1], num_heads, bias=b_in is not None, dtype=w_in.dtype)
        self.in_proj_weight, self.in_proj_bias = w_in, b_in
        self.out_proj_weight, self.out_proj_bias = w_out, b_out
        return self

    @property
    def head_dim(self) -> int:
        """Size ``hs = E / H`` of one head."""
        return self.embed_dim // self.num_heads

    def projections(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three (E, E) matrices ``W_q, W_k, W_v`` (views of ``in_proj_weight``)."""
        e = self.embed_dim
        w = self.in_proj_weight
        return w[:e], w[e : 2 * e], w[2 * e :]

    def __call__(
        self,
        query: Any,
        key: Any = None,
        value: Any = None,
        *,
        mask: Any = None,
        causal: bool = False,
        reference: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Attend from ``query`` to ``key`` and ``value`` (by default to ``query``).

        Parameters
        ----------
        query : array_like, shape (..., T, E)
        key : array_like, shape (..., S, E), optional
            Defaults to ``query`` (self-attention).
        value : array_like, shape (..., S, E), optional
            Defaults to ``key``.
        mask : array_like of bool, optional
            Broadcastable to (..., T, S), shared by all heads; ``True`` = may attend.
        causal : bool
            Forbid attention to later positions.
        reference : bool
            Run the readable path (separate projections, :func:`split_heads`,
            :func:`scaled_dot_product_attention`, :func:`merge_heads`) instead of the
            default fast one. Both give the same result up to rounding.

        Returns
        -------
        output : ndarray, shape (..., T, E)
        weights : ndarray, shape (..., H, T, S)
            The attention weights of every head (not averaged).
        """
        checked = _checked_inputs(self.embed_dim, query, key, value, mask)
        if reference:
            return self._readable_forward(*checked, bool(causal))
        # The same computation with fewer passes over memory (private module).
        return _attention_fast.forward(self, *checked, bool(causal))

    def _readable_forward(
        self,
        query: np.ndarray,
        key: np.ndarray,
        value: np.ndarray,
        mask: np.ndarray | None,
        causal: bool,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Multi-head attention written as the formulas read, on checked inputs."""
        h = self.num_heads
        q = _split_heads(self._project(query, 0), h)  # (..., H, T, hs)
        k = _split_heads(self._project(key, 1), h)  # (..., H, S, hs)
        v = _split_heads(self._project(value, 2), h)  # (..., H, S, hs)
        for name, projected in (("q", q), ("k", k), ("v", v)):
            check_finite(projected, name)  # a projection that overflowed has no weights
        if mask is not None:
            mask = mask[..., None, :, :]  # (..., 1, T, S): the same mask for every head
        allowed = _with_causal(mask, causal, q.shape[-2], k.shape[-2])
        scale = 1.0 / math.sqrt(self.head_dim)
        heads, weights = _scaled_dot_product(q, k, v, allowed, scale)
        out = _merge_heads(heads) @ self.out_proj_weight.T  # (..., T, E)
        if self.out_proj_bias is not None:
            out = out + self.out_proj_bias
        return out, weights

    def _project(self, x: np.ndarray, which: int) -> np.ndarray:
        """``x W_ᵀ + b`` for ``which`` = 0 (query), 1 (key) or 2 (value)."""
        e = self.embed_dim
        out = x @ self.in_proj_weight[which * e : (which + 1) * e].T
        if self.in_proj_bias is not None:
            out = out + self.in_proj_bias[which * e : (which + 1) * e]
        return out

    def __repr__(self) -> str:
        """The constructor's arguments, as PyTorch's modules show them."""
        bias = self.in_proj_bias is not None
        return (
            f"MultiHeadAttention(embed_dim={self.embed_dim}, num_heads={self.num_heads}"
            f", bias={bias}, dtype={self.in_proj_weight.dtype})"
        )


def _checked_weights(
    in_proj_weight: Any, in_proj_bias: Any, out_proj_weight: Any, out_proj_bias: Any
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray | None]:
    """The arguments of ``MultiHeadAttention.from_weights``, checked, as new arrays.

    Every array takes the floating dtype of ``in_proj_weight``.
    """
    w_in = as_float_array(in_proj_weight, "in_proj_weight", ndim=2)
    e = w_in.shape[1]
    if w_in.shape != (3 * e, e):
        raise ValueError(f"in_proj_weight must have shape (3E, E); got {w_in.shape}")
    w_out = as_float_array(out_proj_weight, "out_proj_weight", ndim=2)
    if w_out.shape != (e, e):
        raise ValueError(
            f"out_proj_weight must have shape (E, E) = ({e}, {e}); got {w_out.shape}"
        )
    if (in_proj_bias is None) != (out_proj_bias is None):
        raise ValueError(
            "in_proj_bias and out_proj_bias must be both given or both None"
        )
    if in_proj_bias is None:
        return w_in.copy(), None, w_out.astype(w_in.dtype), None
    b_in = as_float_array(in_proj_bias, "in_proj_bias", ndim=1)
    b_out = as_float_array(out_proj_bias, "out_proj_bias", ndim=1)
    if b_in.shape != (3 * e,):
        raise ValueError(
            f"in_proj_bias must have shape (3E,) = ({3 * e},); got {b_in.shape}"
        )
    if b_out.shape != (e,):
        raise ValueError(
            f"out_proj_bias must have shape (E,) = ({e},); got {b_out.shape}"
        )
    dtype = w_in.dtype
    return w_in.copy(), b_in.astype(dtype), w_out.astype(dtype), b_out.astype(dtype)


def _checked_inputs(
    embed_dim: int, query: Any, key: Any, value: Any, mask: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """The arguments of ``MultiHeadAttention.__call__``, checked.

    ``key`` defaults to ``query`` and ``value`` to ``key`` (the same arrays, which the
    fast path recognises); a mask of fewer than two axes gets explicit (T, S) axes.
    """
    query = as_float_array(query, "query", ndim_min=2)
    key = query if key is None else as_float_array(key, "key", ndim_min=2)
    value = key if value is None else as_float_array(value, "value", ndim_min=2)
    for name, arr in (("query", query), ("key", key), ("value", value)):
        if arr.shape[-1] != embed_dim:
            raise ValueError(
                f"{name} must have shape (..., positions, E={embed_dim}); got "
                f"{arr.shape}"
            )
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(
            "key and value must have the same number of positions; got key "
            f"{key.shape} and value {value.shape}"
        )
    try:
        batch = np.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the batch axes of query {query.shape}, key {key.shape} and value "
            f"{value.shape} do not broadcast"
        ) from None
    if mask is not None:
        mask = check_bool_array(mask, "mask")
        _check_mask_shape(mask, batch + (query.shape[-2], key.shape[-2]))
        if mask.ndim < 2:  # a scalar or (S,) mask: give it explicit (T, S) axes
            mask = mask.reshape((1,) * (2 - mask.ndim) + mask.shape)  # (1 | T, S)
    return query, key, value, mask
