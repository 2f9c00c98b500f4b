"""The fast path of :class:`attnsig.attention.MultiHeadAttention` (private).

It computes what ``MultiHeadAttention._readable_forward`` computes, with fewer passes
over memory, and is tested against it to 1e-12 in float64:

* the projections are fused: one ``(..., T, E) x (E, 3E)`` product for self-attention,
  one ``(E, 2E)`` product when keys and values come from the same memory;
* the scores are masked and normalised in place by ``_attention_core._softmax_inplace``
  (the arithmetic of :func:`attnsig.attention.softmax`, without its copies);
* for small ``T * S`` all heads and batch entries are processed at once; above
  ``_STACKED_BELOW`` scores per head, one head at a time by blocks of query rows that
  fit in the cache, and a causal block multiplies only the keys it may see;
* no validation passes on internal arrays.

When the computation meets something unusual (a projection or a score that overflowed)
it runs the readable path instead, so that infinities and errors behave exactly as
documented there. It imports only the arithmetic of ``attnsig._attention_core``, never
``attnsig.attention``: the instance passed in brings its weights and its readable path.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ._attention_core import _softmax_inplace, _split_heads

#: Below this many scores per head (T * S) all heads and batch entries are processed at
#: once (per-slice Python overhead would dominate); above it, one head at a time, by
#: blocks of queries, so that the block of scores being normalised stays in the CPU
#: cache.
_STACKED_BELOW = 128 * 128
#: Scores per block of queries in the blocked path (about 256 KiB in float32).
_BLOCK_SCORES = 64 * 1024


def forward(mha, query, key, value, mask, causal: bool):
    """``mha(query, key, value, mask=mask, causal=causal)`` on checked inputs.

    Returns ``(output (..., T, E), weights (..., H, T, S))``.
    """
    batch = np.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    # Floating-point errors stay silent here: whatever overflows is detected below and
    # handed to the readable path, which then emits its own warnings once.
    with np.errstate(all="ignore"):
        q, k, v, computed = _in_projections(mha, query, key, value)
        # One sum per array replaces the NaN and inf scans: a NaN or an infinity
        # anywhere makes the sum non-finite (a finite overflow of the sum merely sends
        # a valid call to the readable path).
        finite = all(np.isfinite(np.sum(a)) for a in computed)
        if finite:
            result = _attend_heads(mha, q, k, v, mask, causal, batch)
    if not finite or result is None:
        return mha._readable_forward(query, key, value, mask, causal)
    return result


def _attend_heads(mha, q, k, v, mask, causal, batch):
    h, hs = mha.num_heads, mha.head_dim
    t, s = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(hs)
    forbidden = None if mask is None else ~mask  # (..., T, S); True = masked out
    dtype = np.result_type(q.dtype, k.dtype)
    weights = np.zeros(batch + (h, t, s), dtype)  # (..., H, T, S)
    heads = np.empty(
        batch + (t, mha.embed_dim), np.result_type(dtype, v.dtype)
    )  # (..., T, E)
    q4, k4, v4 = (
        _split_heads(q, h),
        _split_heads(k, h),
        _split_heads(v, h),
    )  # (..., H, *, hs)
    heads4 = _split_heads(
        heads, h
    )  # (..., H, T, hs): a view, heads are written in place
    if t * s < _STACKED_BELOW:
        ok = _attend_stacked(q4, k4, v4, forbidden, causal, scale, weights, heads4)
    else:
        ok = _attend_by_blocks(
            q4, k4, v4, forbidden, causal, scale, weights, heads4, batch
        )
    if not ok:
        return None
    out = _linear(heads, mha.out_proj_weight, mha.out_proj_bias)  # (..., T, E)
    return out, weights


def _in_projections(mha, query, key, value):
    """``Q, K, V`` (views) from as few matrix products as the inputs' aliasing allows.

    Also returns the arrays actually computed, for one finiteness check each.
    """
    e, w, b = mha.embed_dim, mha.in_proj_weight, mha.in_proj_bias

    def part(lo, hi):
        return w[lo:hi], None if b is None else b[lo:hi]

    if key is query and value is query:  # self-attention: one (E, 3E) product
        qkv = _linear(query, w, b)  # (..., T, 3E)
        return qkv[..., :e], qkv[..., e : 2 * e], qkv[..., 2 * e :], (qkv,)
    q = _linear(query, *part(0, e))  # (..., T, E)
    if value is key:  # keys and values from the same memory: one (E, 2E) product
        kv = _linear(key, *part(e, 3 * e))  # (..., S, 2E)
        return q, kv[..., :e], kv[..., e:], (q, kv)
    k = _linear(key, *part(e, 2 * e))  # (..., S, E)
    v = _linear(value, *part(2 * e, 3 * e))  # (..., S, E)
    return q, k, v, (q, k, v)


def _linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    """``x @ weight.T + bias`` as one matrix product, the bias added in place."""
    if x.flags.c_contiguous and x.ndim > 2:
        flat = x.reshape(
            -1, x.shape[-1]
        )  # (N, in): one large product, not one per batch
        out = (flat @ weight.T).reshape(*x.shape[:-1], weight.shape[0])  # (..., out)
    else:
        out = x @ weight.T  # (..., out)
    if bias is not None:
        if np.result_type(out, bias) == out.dtype:
            out += bias
        else:  # a wider bias (float64 on float32 products) promotes, like out + bias
            out = out + bias
    return out


@lru_cache(maxsize=32)
def _causal_bias(rows: int, cols: int, dtype: np.dtype) -> np.ndarray:
    """Additive causal mask (rows, cols): 0 on and below the diagonal, -inf above.

    Cached and read-only: a model calls it with the same sizes again and again.
    """
    bias = np.zeros((rows, cols), dtype)
    bias[~np.tri(rows, cols, dtype=bool)] = -np.inf
    bias.flags.writeable = False
    return bias


def _attend_stacked(q4, k4, v4, forbidden, causal, scale, weights, heads4) -> bool:
    """All heads and batch entries at once (small T * S), written into the outputs."""
    np.matmul(q4, np.swapaxes(k4, -1, -2), out=weights)  # (..., H, T, S)
    weights *= scale
    t, s = weights.shape[-2:]
    if causal:
        weights += _causal_bias(t, s, weights.dtype)
    if forbidden is not None:
        # (..., 1, T, S): the same mask for all heads
        np.copyto(weights, -np.inf, where=forbidden[..., None, :, :])
    if not _softmax_inplace(weights):
        return False
    np.matmul(weights, v4, out=heads4)  # (..., H, T, hs)
    return True


def _attend_by_blocks(
    q4, k4, v4, forbidden, causal, scale, weights, heads4, batch
) -> bool:
    """One head at a time, by blocks of query rows (large T * S).

    With ``causal``, a block of queries ``r0:r1`` only multiplies the keys ``0:r1`` it
    may see and adds the precomputed ``-inf`` triangle to its diagonal part; the weights
    beyond stay zero (``weights`` comes zero-filled). Nothing is copied: every operand
    is a 2-D view.
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
            q, k, v = q4[index][head], k4[index][head], v4[index][head]  # (T|S, hs)
            w, out = weights[index][head], heads4[index][head]  # (T, S), (T, hs)
            for r0 in range(0, t, rows):
                r1 = min(r0 + rows, t)
                c1 = min(r1, s) if causal else s  # keys this block of queries may see
                block = w[r0:r1, :c1]  # (R, C)
                np.matmul(q[r0:r1], k[:c1].T, out=block)
                block *= scale
                if causal and r0 < c1:
                    block[:, r0:c1] += diagonal[: r1 - r0, : c1 - r0]
                if forbidden is not None:
                    np.copyto(block, -np.inf, where=forbidden[index][r0:r1, :c1])
                if not _softmax_inplace(block):
                    return False
                np.matmul(block, v[:c1], out=out[r0:r1])
    return True
