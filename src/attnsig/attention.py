"""Softmax, masks, scaled dot-product attention and multi-head attention, in NumPy.

**Conventions.**

* Boolean masks say where a query **may attend**: ``True`` = allowed, ``False`` = masked out.
  (PyTorch's ``nn.MultiheadAttention`` uses the opposite convention for boolean masks;
  ``F.scaled_dot_product_attention`` uses this one.)
* Shapes: ``T`` query positions, ``S`` key positions, ``E`` embedding size, ``H`` heads,
  ``hs = E // H`` head size; any number of leading batch axes ``...`` is allowed.
* A query row whose every key is masked out gets all-zero weights and a zero output (documented
  choice; PyTorch returns NaN there).

**Two paths in** :class:`MultiHeadAttention`. ``mha(x, reference=True)`` runs the readable
reference: three projections, :func:`split_heads`, :func:`scaled_dot_product_attention`,
:func:`merge_heads`, the output projection. The default fast path computes the same numbers
(tested against the reference to 1e-12 in float64) with fewer passes over memory: one fused
``(3E, E)`` product for self-attention, masked softmax in place, causal rows processed by blocks of
queries that skip the keys they may not see, no validation passes on internal arrays. Whenever the
fast path meets something unusual (a non-finite projection or score), it hands the call to the
reference, so errors and infinities behave identically.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._validation import as_float_array, check_bool_array, check_positive_float, check_positive_int

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
        Real logits. ``-inf`` means "weight zero"; ``+inf`` means "all the weight": a slice with
        one or more ``+inf`` entries becomes uniform over those entries (the temperature-zero
        limit). NaN is refused.
    axis : int
        The axis along which the result sums to one.

    Returns
    -------
    ndarray, same shape and floating dtype as ``x``
        Non-negative weights summing to 1 along ``axis``, except for slices whose entries are all
        ``-inf``: those are all zeros (no entry may receive weight), never NaN.

    Examples
    --------
    >>> softmax([1.0, 2.0, -np.inf]).round(4)
    array([0.2689, 0.7311, 0.    ])
    """
    x = as_float_array(x, "x", ndim_min=1, allow_inf=True)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis must be in [-{x.ndim}, {x.ndim}) for x of shape {x.shape}; got {axis}")
    if np.isfinite(x).all():
        # Subtracting the maximum leaves the result unchanged and keeps exp from overflowing.
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
    top = x.max(axis=axis, keepdims=True)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x - shift)  # exp(-inf) = 0 handles masked entries
    positive_inf = np.isposinf(x)
    e = np.where(np.isposinf(top), positive_inf.astype(x.dtype), e)
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def causal_mask(n: int, m: int | None = None) -> np.ndarray:
    """Boolean causal mask: position ``i`` may attend to positions ``j <= i``.

    Parameters
    ----------
    n : int
        Number of query positions.
    m : int, optional
        Number of key positions (default ``n``). Rows and columns are aligned at the top-left,
        as in PyTorch's ``is_causal``.

    Returns
    -------
    ndarray of bool, shape (n, m)
        ``True`` on and below the diagonal (may attend), ``False`` above it.
    """
    n = check_positive_int(n, "n")
    m = n if m is None else check_positive_int(m, "m")
    return np.tri(n, m, dtype=bool)


def _check_mask_shape(mask: np.ndarray, target: tuple[int, ...], name: str = "mask") -> None:
    try:
        np.broadcast_shapes(mask.shape, target)
    except ValueError:
        raise ValueError(f"{name} of shape {mask.shape} does not broadcast to the attention scores' "
                         f"shape {target} (..., T, S)") from None
    if np.broadcast_shapes(mask.shape, target) != target:
        raise ValueError(f"{name} of shape {mask.shape} would enlarge the attention scores' shape "
                         f"{target}; expected a shape broadcastable to (..., T, S)")


def scaled_dot_product_attention(q: Any, k: Any, v: Any, mask: Any = None, *, causal: bool = False,
                                 scale: float | None = None) -> tuple[np.ndarray, np.ndarray]:
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
        Multiplier of the scores; default ``1 / sqrt(d_k)``. ``0`` gives uniform weights.

    Returns
    -------
    output : ndarray, shape (..., T, d_v)
    weights : ndarray, shape (..., T, S)
        Each row sums to one, except rows with every key masked out: those are zero, and so is
        their output.
    """
    q = as_float_array(q, "q", ndim_min=2)
    k = as_float_array(k, "k", ndim_min=2)
    v = as_float_array(v, "v", ndim_min=2)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share their last axis d_k; got q {q.shape} and k {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have the same number of positions S (axis -2); "
                         f"got k {k.shape} and v {v.shape}")
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(f"the batch axes of q {q.shape}, k {k.shape} and v {v.shape} do not broadcast") from None
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else check_positive_float(scale, "scale", allow_zero=True)
    scores = (q @ np.swapaxes(k, -1, -2)) * scale  # (..., T, S)
    t, s = q.shape[-2], k.shape[-2]
    allowed = None
    if mask is not None:
        allowed = check_bool_array(mask, "mask")
        _check_mask_shape(allowed, batch + (t, s))
    if causal:
        allowed = causal_mask(t, s) if allowed is None else allowed & causal_mask(t, s)
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


def split_heads(x: Any, num_heads: int) -> np.ndarray:
    """Split the last axis into heads: (..., T, E) -> (..., H, T, E / H).

    Head ``h`` takes the contiguous slice ``x[..., h*hs:(h+1)*hs]``, as in PyTorch.
    """
    x = np.asarray(x)
    num_heads = check_positive_int(num_heads, "num_heads")
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., T, E); got shape {x.shape}")
    *lead, t, e = x.shape
    if e % num_heads:
        raise ValueError(f"num_heads={num_heads} must divide the embedding size {e} of x {x.shape}")
    x = x.reshape(*lead, t, num_heads, e // num_heads)  # (..., T, H, hs)
    return np.swapaxes(x, -2, -3)  # (..., H, T, hs)


def merge_heads(x: Any) -> np.ndarray:
    """Inverse of :func:`split_heads`: (..., H, T, hs) -> (..., T, H * hs)."""
    x = np.asarray(x)
    if x.ndim < 3:
        raise ValueError(f"x must have shape (..., H, T, hs); got shape {x.shape}")
    *lead, h, t, hs = x.shape
    x = np.swapaxes(x, -2, -3)  # (..., T, H, hs)
    return x.reshape(*lead, t, h * hs)  # (..., T, E)


class MultiHeadAttention:
    """Multi-head attention with PyTorch's parameter layout (``batch_first=True``).

    ``Q = x_q W_qᵀ + b_q``, ``K = x_k W_kᵀ + b_k``, ``V = x_v W_vᵀ + b_v``, each split into
    ``H`` heads of size ``hs = E / H``; every head runs :func:`scaled_dot_product_attention`;
    the heads are concatenated and projected by ``W_o``: ``out = concat W_oᵀ + b_o``.

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
    """

    def __init__(self, embed_dim: int, num_heads: int, *, bias: bool = True,
                 rng: np.random.Generator | int | None = None, dtype: Any = np.float64) -> None:
        self.embed_dim = check_positive_int(embed_dim, "embed_dim")
        self.num_heads = check_positive_int(num_heads, "num_heads")
        if self.embed_dim % self.num_heads:
            raise ValueError(f"num_heads={num_heads} must divide embed_dim={embed_dim}")
        dtype = np.dtype(dtype)
        if not np.issubdtype(dtype, np.floating):
            raise TypeError(f"dtype must be a floating dtype; got {dtype}")
        if rng is None or isinstance(rng, (int, np.integer)):
            rng = np.random.default_rng(rng)
        elif not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, an int seed or None; got {type(rng).__name__}")
        e = self.embed_dim
        xavier = math.sqrt(6.0 / (e + 3 * e))  # fan_in = E, fan_out = 3E for the stacked matrix
        self.in_proj_weight = rng.uniform(-xavier, xavier, size=(3 * e, e)).astype(dtype)
        self.out_proj_weight = rng.uniform(-1 / math.sqrt(e), 1 / math.sqrt(e), size=(e, e)).astype(dtype)
        self.in_proj_bias = np.zeros(3 * e, dtype) if bias else None
        self.out_proj_bias = np.zeros(e, dtype) if bias else None

    @classmethod
    def from_weights(cls, in_proj_weight: Any, in_proj_bias: Any, out_proj_weight: Any,
                     out_proj_bias: Any, num_heads: int) -> "MultiHeadAttention":
        """Build from given weights (e.g. copied from ``torch.nn.MultiheadAttention``).

        Parameters
        ----------
        in_proj_weight : array_like, shape (3E, E)
        in_proj_bias : array_like, shape (3E,), or None for no bias
        out_proj_weight : array_like, shape (E, E)
        out_proj_bias : array_like, shape (E,), or None for no bias
        num_heads : int
        """
        w_in = as_float_array(in_proj_weight, "in_proj_weight", ndim=2)
        e = w_in.shape[1]
        if w_in.shape != (3 * e, e):
            raise ValueError(f"in_proj_weight must have shape (3E, E); got {w_in.shape}")
        w_out = as_float_array(out_proj_weight, "out_proj_weight", ndim=2)
        if w_out.shape != (e, e):
            raise ValueError(f"out_proj_weight must have shape (E, E) = ({e}, {e}); got {w_out.shape}")
        if (in_proj_bias is None) != (out_proj_bias is None):
            raise ValueError("in_proj_bias and out_proj_bias must be both given or both None")
        self = cls(e, num_heads, bias=in_proj_bias is not None, dtype=w_in.dtype)
        self.in_proj_weight = w_in.copy()
        self.out_proj_weight = w_out.astype(w_in.dtype)
        if in_proj_bias is not None:
            b_in = as_float_array(in_proj_bias, "in_proj_bias", ndim=1)
            b_out = as_float_array(out_proj_bias, "out_proj_bias", ndim=1)
            if b_in.shape != (3 * e,):
                raise ValueError(f"in_proj_bias must have shape (3E,) = ({3 * e},); got {b_in.shape}")
            if b_out.shape != (e,):
                raise ValueError(f"out_proj_bias must have shape (E,) = ({e},); got {b_out.shape}")
            self.in_proj_bias, self.out_proj_bias = b_in.astype(w_in.dtype), b_out.astype(w_in.dtype)
        return self

    @property
    def head_dim(self) -> int:
        """Size ``hs = E / H`` of one head."""
        return self.embed_dim // self.num_heads

    def projections(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three (E, E) matrices ``W_q, W_k, W_v`` (views into ``in_proj_weight``)."""
        e = self.embed_dim
        return self.in_proj_weight[:e], self.in_proj_weight[e:2 * e], self.in_proj_weight[2 * e:]

    def __call__(self, query: Any, key: Any = None, value: Any = None, *, mask: Any = None,
                 causal: bool = False, reference: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Attend from ``query`` to ``key``/``value`` (self-attention when they are omitted).

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
            Run the readable reference path (separate projections, :func:`split_heads`,
            :func:`scaled_dot_product_attention`, :func:`merge_heads`) instead of the default fast
            path. Both give the same result up to rounding.

        Returns
        -------
        output : ndarray, shape (..., T, E)
        weights : ndarray, shape (..., H, T, S)
            The attention weights of every head (not averaged).
        """
        query = as_float_array(query, "query", ndim_min=2)
        key = query if key is None else as_float_array(key, "key", ndim_min=2)
        value = key if value is None else as_float_array(value, "value", ndim_min=2)
        e = self.embed_dim
        for name, arr in (("query", query), ("key", key), ("value", value)):
            if arr.shape[-1] != e:
                raise ValueError(f"{name} must have shape (..., positions, E={e}); got {arr.shape}")
        if key.shape[-2] != value.shape[-2]:
            raise ValueError(f"key and value must have the same number of positions; "
                             f"got key {key.shape} and value {value.shape}")
        if mask is not None:
            mask = check_bool_array(mask, "mask")
            batch = np.broadcast_shapes(query.shape[:-2], key.shape[:-2])
            _check_mask_shape(mask, batch + (query.shape[-2], key.shape[-2]))
            if mask.ndim < 2:  # a scalar or (S,) mask: give it explicit (T, S) axes
                mask = mask.reshape((1,) * (2 - mask.ndim) + mask.shape)  # (1 | T, S)
        if not reference:
            # Silent floating-point errors: whatever overflows is detected and handed to the
            # reference below, which then emits its own warnings once.
            with np.errstate(all="ignore"):
                fast = self._fast_forward(query, key, value, mask, bool(causal))
            if fast is not None:
                return fast
        # The reference also serves every case the fast path declines (non-finite intermediates,
        # batch axes that do not broadcast): it raises the documented errors.
        return self._reference_forward(query, key, value, mask, causal)

    # ------------------------------------------------------------ the readable reference path
    def _project(self, x: np.ndarray, which: int) -> np.ndarray:
        e = self.embed_dim
        out = x @ self.in_proj_weight[which * e:(which + 1) * e].T
        if self.in_proj_bias is not None:
            out = out + self.in_proj_bias[which * e:(which + 1) * e]
        return out

    def _reference_forward(self, query: np.ndarray, key: np.ndarray, value: np.ndarray,
                           mask: np.ndarray | None, causal: bool) -> tuple[np.ndarray, np.ndarray]:
        """Multi-head attention written as the formulas read (inputs already validated)."""
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

    # ------------------------------------------------------------ the fast path
    def _in_projections(self, query: np.ndarray, key: np.ndarray, value: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
        """``Q, K, V`` (views) with as few matrix products as the aliasing of the inputs allows,
        and the arrays actually computed (for one finiteness check each)."""
        e, w, b = self.embed_dim, self.in_proj_weight, self.in_proj_bias
        if key is query and value is query:  # self-attention: one (..., T, E) x (E, 3E) product
            qkv = _linear(query, w, b)  # (..., T, 3E)
            return qkv[..., :e], qkv[..., e:2 * e], qkv[..., 2 * e:], (qkv,)
        q = _linear(query, w[:e], None if b is None else b[:e])  # (..., T, E)
        if value is key:  # keys and values from the same memory: one (E, 2E) product
            kv = _linear(key, w[e:], None if b is None else b[e:])  # (..., S, 2E)
            return q, kv[..., :e], kv[..., e:], (q, kv)
        k = _linear(key, w[e:2 * e], None if b is None else b[e:2 * e])  # (..., S, E)
        v = _linear(value, w[2 * e:], None if b is None else b[2 * e:])  # (..., S, E)
        return q, k, v, (q, k, v)

    def _fast_forward(self, query: np.ndarray, key: np.ndarray, value: np.ndarray,
                      mask: np.ndarray | None, causal: bool) -> tuple[np.ndarray, np.ndarray] | None:
        """The same computation as :meth:`_reference_forward`, or ``None`` to decline."""
        try:
            batch = np.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
        except ValueError:
            return None  # the reference raises its error message
        q, k, v, computed = self._in_projections(query, key, value)
        # The reference refuses non-finite projections. One sum per array replaces the NaN and
        # inf scans: a NaN or an infinity anywhere makes the sum non-finite (a finite overflow of
        # the sum merely sends a valid call through the reference).
        if not all(np.isfinite(np.sum(a)) for a in computed):
            return None
        h, hs = self.num_heads, self.head_dim
        t, s = q.shape[-2], k.shape[-2]
        scale = 1.0 / math.sqrt(hs)
        forbidden = None if mask is None else ~mask  # (..., T, S); True = masked out
        weights = np.zeros(batch + (h, t, s), np.result_type(q.dtype, k.dtype))  # (..., H, T, S)
        heads = np.empty(batch + (t, self.embed_dim), np.result_type(weights.dtype, v.dtype))  # (..., T, E)
        q4, k4, v4 = split_heads(q, h), split_heads(k, h), split_heads(v, h)  # (..., H, T|S, hs)
        heads4 = split_heads(heads, h)  # (..., H, T, hs): a view, heads are written in place
        if t * s < _STACKED_BELOW:
            ok = _attend_stacked(q4, k4, v4, forbidden, causal, scale, weights, heads4)
        else:
            ok = _attend_by_blocks(q4, k4, v4, forbidden, causal, scale, weights, heads4, batch)
        if not ok:
            return None
        out = _linear(heads, self.out_proj_weight, self.out_proj_bias)  # (..., T, E)
        return out, weights

    def __repr__(self) -> str:
        return (f"MultiHeadAttention(embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
                f"bias={self.in_proj_bias is not None}, dtype={self.in_proj_weight.dtype})")


# ---------------------------------------------------------------- fast-path kernels
#: Below this many scores per head (T * S) all heads and batch entries are processed at once
#: (per-slice Python overhead would dominate); above it, one head at a time, by blocks of queries,
#: so that the block of scores being normalised stays in the CPU cache.
_STACKED_BELOW = 128 * 128
#: Scores per block of queries in the blocked path (about 256 KiB in float32).
_BLOCK_SCORES = 64 * 1024


def _linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    """``x @ weight.T + bias`` as one matrix product, the bias added in place."""
    if x.flags.c_contiguous and x.ndim > 2:
        flat = x.reshape(-1, x.shape[-1])  # (N, in): one large product instead of one per batch entry
        out = (flat @ weight.T).reshape(*x.shape[:-1], weight.shape[0])  # (..., out)
    else:
        out = x @ weight.T  # (..., out)
    if bias is not None:
        if np.result_type(out, bias) == out.dtype:
            out += bias
        else:  # a wider bias (e.g. float64 on float32 products) promotes, as `out + bias` does
            out = out + bias
    return out


def _causal_bias(rows: int, cols: int, dtype: np.dtype) -> np.ndarray:
    """Additive causal mask (rows, cols): 0 where column <= row, -inf above the diagonal."""
    bias = np.zeros((rows, cols), dtype)
    bias[~np.tri(rows, cols, dtype=bool)] = -np.inf
    return bias


def _softmax_last_axis_inplace(scores: np.ndarray) -> bool:
    """Softmax along the last axis, in place, of finite or ``-inf`` scores.

    Same operations as :func:`softmax` (hence the same rounding) without its copies; a row of
    only ``-inf`` (every key masked out) becomes zeros. Returns ``False``, leaving ``scores``
    garbage, when a row holds NaN or ``+inf`` (an overflowed product): the caller then defers to
    the reference, which defines or refuses those.
    """
    top = scores.max(axis=-1, keepdims=True)  # (..., R, 1); a NaN propagates into it
    empty_rows = False
    if not np.isfinite(top).all():  # a check on one number per row, not on every score
        if np.isnan(top).any() or np.isposinf(top).any():
            return False
        empty_rows = bool(np.isneginf(top).any())
        top[np.isneginf(top)] = 0.0  # exp(-inf - 0) = 0 on an all-masked row, not NaN
    scores -= top
    np.exp(scores, out=scores)
    total = scores.sum(axis=-1, keepdims=True)  # (..., R, 1)
    if empty_rows:
        total[total == 0] = 1.0  # an all-masked row stays zeros instead of 0 / 0
    scores /= total
    return True


def _attend_stacked(q4: np.ndarray, k4: np.ndarray, v4: np.ndarray, forbidden: np.ndarray | None,
                    causal: bool, scale: float, weights: np.ndarray, heads4: np.ndarray) -> bool:
    """All heads and batch entries at once (small T * S); writes ``weights`` and ``heads4``."""
    np.matmul(q4, np.swapaxes(k4, -1, -2), out=weights)  # (..., H, T, S)
    weights *= scale
    t, s = weights.shape[-2:]
    if causal:
        weights += _causal_bias(t, s, weights.dtype)
    if forbidden is not None:
        np.copyto(weights, -np.inf, where=forbidden[..., None, :, :])  # (..., 1, T, S) for all heads
    if not _softmax_last_axis_inplace(weights):
        return False
    np.matmul(weights, v4, out=heads4)  # (..., H, T, hs)
    return True


def _attend_by_blocks(q4: np.ndarray, k4: np.ndarray, v4: np.ndarray, forbidden: np.ndarray | None,
                      causal: bool, scale: float, weights: np.ndarray, heads4: np.ndarray,
                      batch: tuple[int, ...]) -> bool:
    """One head at a time, by blocks of query rows (large T * S); writes ``weights``, ``heads4``.

    With ``causal``, a block of queries ``r0:r1`` only multiplies the keys ``0:r1`` it may see and
    adds the precomputed ``-inf`` triangle to its diagonal part; the weights beyond stay zero
    (``weights`` comes zero-filled). Nothing is copied: every operand is a 2-D view.
    """
    num_heads, t, s = weights.shape[-3:]
    rows = max(1, min(t, _BLOCK_SCORES // s))
    diagonal = _causal_bias(rows, rows, weights.dtype) if causal else None
    q4 = np.broadcast_to(q4, batch + q4.shape[-3:])  # (..., H, T, hs)
    k4 = np.broadcast_to(k4, batch + k4.shape[-3:])  # (..., H, S, hs)
    v4 = np.broadcast_to(v4, batch + v4.shape[-3:])  # (..., H, S, hs)
    if forbidden is not None:
        forbidden = np.broadcast_to(forbidden, batch + (t, s))  # (..., T, S)
    for index in np.ndindex(*batch):
        for head in range(num_heads):
            q, k, v = q4[index][head], k4[index][head], v4[index][head]  # (T, hs), (S, hs), (S, hs)
            w, out = weights[index][head], heads4[index][head]  # (T, S), (T, hs)
            for r0 in range(0, t, rows):
                r1 = min(r0 + rows, t)
                c1 = min(r1, s) if causal else s  # keys this block of queries may see
                block = w[r0:r1, :c1]  # (R, C)
                np.matmul(q[r0:r1], k[:c1].T, out=block)
                block *= scale
                if causal and r0 < c1:
                    block[:, r0:c1] += diagonal[:r1 - r0, :c1 - r0]
                if forbidden is not None:
                    np.copyto(block, -np.inf, where=forbidden[index][r0:r1, :c1])
                if not _softmax_last_axis_inplace(block):
                    return False
                np.matmul(block, v[:c1], out=out[r0:r1])
    return True
