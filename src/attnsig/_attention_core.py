"""The arithmetic of attention on checked arrays (private).

The one place where scores become weights: :func:`_softmax` and its in-place core
:func:`_softmax_inplace`, and :func:`_attend` (mask the scores, softmax over the keys,
weight the values). Beside them, the head reshapes :func:`_split_heads` and
:func:`_merge_heads`.

Nothing here validates: callers pass arrays they have checked. ``attnsig.attention``
wraps these in its public, validating functions, and ``attnsig._attention_fast`` runs
the same in-place softmax by blocks; both import this module and neither imports the
other.
"""

from __future__ import annotations

import numpy as np


def _softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Softmax along ``axis`` of a float array without NaN (``±inf`` allowed).

    A slice with ``+inf`` entries is uniform over them (the temperature-zero limit); a
    slice of only ``-inf`` is all zeros. NaN (from an overflow upstream) raises
    ``ValueError``.
    """
    out = np.array(x, copy=True)
    if _softmax_inplace(out, axis):
        return out
    if np.isnan(x).any():  # an overflow upstream (inf - inf); no weights are defined
        raise ValueError(
            f"the attention scores contain NaN at {tuple(np.argwhere(np.isnan(x))[0])}"
            "; expected real numbers or infinities (did q kᵀ overflow?)"
        )
    # A slice holds +inf: the temperature-zero limit, uniform over its +inf entries.
    top = x.max(axis=axis, keepdims=True)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x - shift)  # exp(-inf) = 0 handles masked entries
    e = np.where(np.isposinf(top), np.isposinf(x).astype(x.dtype), e)
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _softmax_inplace(scores: np.ndarray, axis: int = -1) -> bool:
    """Softmax along ``axis``, in place, of finite or ``-inf`` scores; ``True`` if done.

    Subtracting the maximum leaves the result unchanged and keeps ``exp`` from
    overflowing. A slice of only ``-inf`` (every key masked out) becomes zeros. Returns
    ``False``, leaving ``scores`` garbage, when a slice holds NaN or ``+inf``: the
    caller then uses :func:`_softmax` (``+inf``) or refuses the input (NaN).
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


def _with_causal(
    allowed: np.ndarray | None, causal: bool, t: int, s: int
) -> np.ndarray | None:
    """Combine ``allowed`` (``True`` = may attend, or None) with the causal mask.

    Without ``causal`` it is returned as it is; the causal mask has shape (T, S).
    """
    if not causal:
        return allowed
    tri = np.tri(t, s, dtype=bool)  # (T, S): True on and below the diagonal
    return tri if allowed is None else allowed & tri


def _attend(
    scores: np.ndarray, allowed: np.ndarray | None, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Mask the scores, softmax over the keys, weight the values.

    ``scores`` (..., T, S) without NaN, ``allowed`` broadcastable to it (or None),
    ``values`` (..., S, d_v); returns the output (..., T, d_v) and the weights
    (..., T, S).
    """
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    weights = _softmax(scores, axis=-1)  # (..., T, S)
    return weights @ values, weights


def _scaled_dot_product(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    allowed: np.ndarray | None,
    scale: float,
) -> tuple[np.ndarray, np.ndarray]:
    """``softmax(q kᵀ · scale) v`` on checked arrays; returns (output, weights).

    ``q`` (..., T, d_k), ``k`` (..., S, d_k), ``v`` (..., S, d_v), ``allowed``
    broadcastable to (..., T, S) or None.
    """
    scores = (q @ np.swapaxes(k, -1, -2)) * scale  # (..., T, S)
    return _attend(scores, allowed, v)


def _split_heads(x: np.ndarray, num_heads: int) -> np.ndarray:
    """(..., T, E) -> (..., H, T, E / H), a view; ``num_heads`` divides ``E``."""
    *lead, t, e = x.shape
    x = x.reshape(*lead, t, num_heads, e // num_heads)  # (..., T, H, hs)
    return np.swapaxes(x, -2, -3)  # (..., H, T, hs)


def _merge_heads(x: np.ndarray) -> np.ndarray:
    """(..., H, T, hs) -> (..., T, H * hs), the inverse of :func:`_split_heads`."""
    *lead, h, t, hs = x.shape
    x = np.swapaxes(x, -2, -3)  # (..., T, H, hs)
    return x.reshape(*lead, t, h * hs)  # (..., T, E)
