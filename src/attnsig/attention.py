"""Softmax, masks, scaled dot-product and multi-head attention, in NumPy.

**Conventions.**

* Boolean masks say where a query **may attend**: ``True`` = allowed, ``False`` = masked
  out. (PyTorch's ``nn.MultiheadAttention`` uses the opposite convention for boolean
  masks; ``F.scaled_dot_product_attention`` uses this one.)
* Shapes: ``T`` query positions, ``S`` key positions, ``E`` embedding size, ``H`` heads,
  ``hs = E // H`` head size; any number of leading batch axes ``...`` is allowed.
* A query row whose every key is masked out gets all-zero weights and a zero output
  (documented choice; PyTorch returns NaN there).

**Attention is written once.** :func:`scaled_dot_product_attention` computes the scores
and hands them to one private step, ``_attend``: mask the scores, softmax over the keys,
weight the values. Every other attention in the package (``heads``, ``synthesizer``,
``recall``, the readable path of :class:`MultiHeadAttention`) goes through these two.
The softmax arithmetic itself lives in :func:`softmax` and its in-place core
``_softmax_inplace``.

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

from ._validation import (
    as_float_array,
    check_bool_array,
    check_float_dtype,
    check_positive_float,
    check_positive_int,
    check_rng,
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
    out = np.array(x, copy=True)
    if _softmax_inplace(out, axis):
        return out
    # A slice holds +inf: the temperature-zero limit, uniform over its +inf entries.
    top = x.max(axis=axis, keepdims=True)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x - shift)  # exp(-inf) = 0 handles masked entries
    e = np.where(np.isposinf(top), np.isposinf(x).astype(x.dtype), e)
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _softmax_inplace(scores: np.ndarray, axis: int = -1) -> bool:
    """Softmax along ``axis``, in place, of finite or ``-inf`` scores; ``True`` on
    success.

    Subtracting the maximum leaves the result unchanged and keeps ``exp`` from
    overflowing. A slice of only ``-inf`` (every key masked out) becomes zeros. Returns
    ``False``, leaving ``scores`` garbage, when a slice holds NaN or ``+inf``: the
    caller then uses :func:`softmax`, which defines (``+inf``) or refuses (NaN) those.
    """
    top = scores.max(axis=axis, keepdims=True)  # a NaN propagates into it
    empty = False
    if not np.isfinite(top).all():  # one number per slice, not every score
        if np.isnan(top).any() or np.isposinf(top).any():
            return False
        empty = bool(np.isneginf(top).any())
        top[np.isneginf(top)] = 0.0  # exp(-inf - 0) = 0 on an all-masked slice, not NaN
    scores -= top
    np.exp(scores, out=scores)
    total = scores.sum(axis=axis, keepdims=True)
    if empty:
        total[total == 0] = 1.0  # an all-masked slice stays zeros instead of 0 / 0
    scores /= total
    return True


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
    n = check_positive_int(n, "n")
    m = n if m is None else check_positive_int(m, "m")
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
    if causal:
        allowed = causal_mask(t, s) if allowed is None else allowed & causal_mask(t, s)
    return allowed


def _attend(
    scores: np.ndarray, allowed: np.ndarray | None, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The one step where scores become weights: mask, softmax over keys, weight values.

    ``scores`` (..., T, S), ``allowed`` broadcastable to it (or None), ``values``
    (..., S, d_v); returns the output (..., T, d_v) and the weights (..., T, S).
    """
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    weights = softmax(scores, axis=-1)  # (..., T, S)
    return weights @ values, weights


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
        scale = check_positive_float(scale, "scale", allow_zero=True)
    allowed = _allowed(mask, causal, batch, q.shape[-2], k.shape[-2])
    scores = (q @ np.swapaxes(k, -1, -2)) * scale  # (..., T, S)
    return _attend(scores, allowed, v)


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
    num_heads = check_positive_int(num_heads, "num_heads")
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., T, E); got shape {x.shape}")
    *lead, t, e = x.shape
    if e % num_heads:
        raise ValueError(
            f"num_heads={num_heads} must divide the embedding size {e} of x {x.shape}"
        )
    x = x.reshape(*lead, t, num_heads, e // num_heads)  # (..., T, H, hs)
    return np.swapaxes(x, -2, -3)  # (..., H, T, hs)


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
    *lead, h, t, hs = x.shape
    x = np.swapaxes(x, -2, -3)  # (..., T, H, hs)
    return x.reshape(*lead, t, h * hs)  # (..., T, E)


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
        self.embed_dim = check_positive_int(embed_dim, "embed_dim")
        self.num_heads = check_positive_int(num_heads, "num_heads")
        if self.embed_dim % self.num_heads:
            raise ValueError(f"num_heads={num_heads} must divide embed_dim={embed_dim}")
        dtype = check_float_dtype(dtype, "dtype")
        rng = check_rng(rng, seed_ok=True)
        e = self.embed_dim
        xavier = math.sqrt(6.0 / (e + 3 * e))  # fan_in = E, fan_out = 3E when stacked
        bound = 1 / math.sqrt(e)
        self.in_proj_weight = rng.uniform(-xavier, xavier, size=(3 * e, e)).astype(
            dtype
        )
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
        w_in = as_float_array(in_proj_weight, "in_proj_weight", ndim=2)
        e = w_in.shape[1]
        if w_in.shape != (3 * e, e):
            raise ValueError(
                f"in_proj_weight must have shape (3E, E); got {w_in.shape}"
            )
        w_out = as_float_array(out_proj_weight, "out_proj_weight", ndim=2)
        if w_out.shape != (e, e):
            raise ValueError(
                f"out_proj_weight must have shape (E, E) = ({e}, {e}); got "
                f"{w_out.shape}"
            )
        if (in_proj_bias is None) != (out_proj_bias is None):
            raise ValueError(
                "in_proj_bias and out_proj_bias must be both given or both None"
            )
        self = cls(e, num_heads, bias=in_proj_bias is not None, dtype=w_in.dtype)
        self.in_proj_weight = w_in.copy()
        self.out_proj_weight = w_out.astype(w_in.dtype)
        if in_proj_bias is not None:
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
            self.in_proj_bias = b_in.astype(w_in.dtype)
            self.out_proj_bias = b_out.astype(w_in.dtype)
        return self

    @property
    def head_dim(self) -> int:
        """Size ``hs = E / H`` of one head."""
        return self.embed_dim // self.num_heads

    def projections(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three (E, E) matrices ``W_q, W_k, W_v`` (views into
        ``in_proj_weight``)."""
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
        """Attend from ``query`` to ``key``/``value`` (self-attention when they are
        omitted).

        Parameters
        ----------
        query : array_like, shape (..., T, E)
        key : array_like, shape (..., S, E), optional
            Defaults to ``query``.
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
        query, key, value, mask = self._check_inputs(query, key, value, mask)
        if reference:
            return self._readable_forward(query, key, value, mask, bool(causal))
        # The same computation with fewer passes over memory (private module).
        return _attention_fast.forward(self, query, key, value, mask, bool(causal))

    def _readable_forward(
        self,
        query: np.ndarray,
        key: np.ndarray,
        value: np.ndarray,
        mask: np.ndarray | None,
        causal: bool,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Multi-head attention written as the formulas read (inputs already
        checked)."""
        if mask is not None:
            mask = mask[..., None, :, :]  # (..., 1, T, S): the same mask for every head
        h = self.num_heads
        q = split_heads(self._project(query, 0), h)  # (..., H, T, hs)
        k = split_heads(self._project(key, 1), h)  # (..., H, S, hs)
        v = split_heads(self._project(value, 2), h)  # (..., H, S, hs)
        heads, weights = scaled_dot_product_attention(q, k, v, mask, causal=causal)
        out = merge_heads(heads) @ self.out_proj_weight.T  # (..., T, E)
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

    def _check_inputs(
        self, query: Any, key: Any, value: Any, mask: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        query = as_float_array(query, "query", ndim_min=2)
        key = query if key is None else as_float_array(key, "key", ndim_min=2)
        value = key if value is None else as_float_array(value, "value", ndim_min=2)
        e = self.embed_dim
        for name, arr in (("query", query), ("key", key), ("value", value)):
            if arr.shape[-1] != e:
                raise ValueError(
                    f"{name} must have shape (..., positions, E={e}); got {arr.shape}"
                )
        if key.shape[-2] != value.shape[-2]:
            raise ValueError(
                "key and value must have the same number of positions; "
                f"got key {key.shape} and value {value.shape}"
            )
        if mask is not None:
            mask = check_bool_array(mask, "mask")
            batch = np.broadcast_shapes(query.shape[:-2], key.shape[:-2])
            _check_mask_shape(mask, batch + (query.shape[-2], key.shape[-2]))
            if mask.ndim < 2:  # a scalar or (S,) mask: give it explicit (T, S) axes
                mask = mask.reshape((1,) * (2 - mask.ndim) + mask.shape)  # (1 | T, S)
        return query, key, value, mask

    def __repr__(self) -> str:
        return (
            f"MultiHeadAttention(embed_dim={self.embed_dim}, "
            f"num_heads={self.num_heads}, "
            f"bias={self.in_proj_bias is not None}, dtype={self.in_proj_weight.dtype})"
        )


# The fast path builds on this module's softmax core: import it once that exists.
from . import _attention_fast  # noqa: E402
