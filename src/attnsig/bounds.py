"""Score gaps and query lengths: how large a query must be for a guarantee, and bounds.

A query ``q`` (shape ``(d,)``) attends over keys ``k_1, ..., k_n`` (rows of ``keys``,
shape ``(n, d)``) with scores ``s_i = <k_i, q>`` (no ``1/sqrt(d)`` scaling) and weights
``alpha = softmax(s)``. This module holds

* the **score gaps** of "Self-Attention and Transformers": how far a chosen subset of
  keys must out-score the others so that at most ``epsilon`` of the weight leaves it
  (:func:`outside_weight`, :func:`subset_gap`, :func:`copy_gap`);
* **closed forms** of "Attention bounds": the smallest query length that reaches each
  guarantee, and the weights of the noisy-key query (:func:`noisy_weights`,
  :func:`copy_worst_case_length`, :func:`average_min_length`,
  :func:`head_scale_needed`);
* two **numerical** ways of finding the smallest length for any key set: along a fixed
  direction by bisection (:func:`min_scale_along`) and over all directions by convex
  optimisation (:func:`min_query_norm`).

The queries themselves are built in :mod:`attnsig.constructions`, the key sets in
:mod:`attnsig.keysets`. Indices are 0-based: the sheet's ``k_1`` is ``keys[0]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ._validation import (
    as_float_array,
    as_matrix,
    as_vector,
    check_indices,
    check_scalar,
)
from .attention import softmax
from .heads import (
    _weights,
)  # softmax(keys @ q) of checked arrays, unscaled as in the sheets

__all__ = [
    "outside_weight",
    "subset_gap",
    "copy_gap",
    "noisy_weights",
    "copy_worst_case_length",
    "average_min_length",
    "head_scale_needed",
    "min_scale_along",
    "min_query_norm",
]


def _log_weights_and_grad(query: np.ndarray, keys: np.ndarray, index: int):
    """Return log alpha_index(q) and its gradient k_index - sum_i alpha_i k_i."""
    scores = keys @ query  # (n,)
    alpha = _weights(query, keys)  # (n,)
    # log alpha_index from the log-normaliser, so that a tiny weight keeps its digits
    return scores[index] - np.logaddexp.reduce(scores), keys[index] - alpha @ keys


# --------------------------------------------------------------------------- score gaps
def outside_weight(gap, num_keys: int, subset_size: int = 1):
    """Weight outside a tied subset of keys that beats all others by ``gap``.

    If ``subset_size`` keys share the largest score and each of the other ``num_keys -
    subset_size`` keys scores exactly ``gap`` less, the weight outside the subset is

        (n - m) e^{-gap} / (m + (n - m) e^{-gap}).

    It is the *largest* outside weight over all score vectors in which the subset ties
    and beats every other key by at least ``gap``: lowering any other score lowers it.

    Parameters
    ----------
    gap : float or array_like
        Score gap(s); broadcast.
    num_keys : int
        ``n``, the number of keys.
    subset_size : int, default 1
        ``m``, the size of the favoured subset (1: copying; 2: averaging two values).

    Returns
    -------
    float or ndarray
        Same shape as ``gap``.

    Examples
    --------
    >>> outside_weight(np.log(4.0), 5)
    0.5
    """
    n = check_scalar(num_keys, "num_keys", int, min_val=1)
    m = check_scalar(subset_size, "subset_size", int, min_val=1)
    if m > n:
        raise ValueError(f"subset_size must be at most num_keys={n}, got {m}")
    g = as_float_array(gap, "gap").astype(np.float64, copy=False)
    # Written with exp(-gap) only, so large gaps underflow to 0 instead of overflowing.
    rest = (n - m) * np.exp(-g)  # noqa: TID251 - closed form, not attention
    out = rest / (m + rest)
    return float(out) if out.ndim == 0 else out


def subset_gap(num_keys: int, subset_size: int, epsilon: float) -> float:
    """Smallest score gap that lets at most ``epsilon`` of the weight leave a subset.

    Solving ``outside_weight(gap, n, m) = epsilon`` gives

        gap = log( (n - m)(1 - epsilon) / (m epsilon) ),

    and every gap at least this large keeps the outside weight at most ``epsilon``. When
    the formula is negative (or ``m = n``) no gap is needed and 0.0 is returned.

    Parameters
    ----------
    num_keys : int
        ``n``.
    subset_size : int
        ``m``, with ``1 <= m <= n``.
    epsilon : float
        The tolerated outside weight, ``0 < epsilon < 1``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(subset_gap(6, 2, 0.5), 12) == round(math.log(2.0), 12)
    True
    """
    n = check_scalar(num_keys, "num_keys", int, min_val=1)
    m = check_scalar(subset_size, "subset_size", int, min_val=1)
    if m > n:
        raise ValueError(f"subset_size must be at most num_keys={n}, got {m}")
    eps = check_scalar(
        epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="neither"
    )
    if m == n:
        return 0.0
    return max(0.0, math.log((n - m) * (1.0 - eps) / (m * eps)))


def copy_gap(num_keys: int, epsilon: float) -> float:
    """Score gap needed to copy one value: ``log((n - 1)(1 - epsilon) / epsilon)``.

    If key ``j`` scores at least this much more than every other key, its weight is at
    least ``1 - epsilon`` and the output is within ``epsilon * max_i ||v_i - v_j||`` of
    ``v_j``. The gap is tight: with all other keys exactly this much lower, the weight
    of ``j`` is exactly ``1 - epsilon``. Same as ``subset_gap(num_keys, 1, epsilon)``.

    Examples
    --------
    >>> round(copy_gap(5, 0.5), 12) == round(math.log(4.0), 12)
    True
    """
    return subset_gap(num_keys, 1, epsilon)


# ------------------------------------------------------------------------- closed forms
def noisy_weights(num_keys: int, epsilon: float, c: float) -> tuple[float, float]:
    """Weights ``(alpha_1, alpha_2)`` of ``ln(n/eps)(u + k_2)`` when ``k_1 = c u``.

    With ``r = n/eps`` the scores are ``c ln r``, ``ln r`` and ``0`` (``n - 2`` times),
    so ``alpha_1 = r^c / (r^c + r + n - 2)`` and ``alpha_2 = r / (r^c + r + n - 2)``.

    Returns
    -------
    tuple of float

    Examples
    --------
    >>> [round(w, 12) for w in noisy_weights(2, 0.5, 1.5)]  # r = 4: weights 8/12, 4/12
    [0.666666666667, 0.333333333333]
    """
    n = check_scalar(num_keys, "num_keys", int, min_val=2)
    eps = check_scalar(
        epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="neither"
    )
    c = check_scalar(c, "c", min_val=0, include_boundaries="neither")
    log_r = math.log(n / eps)
    # The n - 2 keys scoring 0 weigh as much as one key scoring ln(n - 2).
    scores = [c * log_r, log_r] + ([math.log(n - 2)] if n > 2 else [])
    w1, w2 = softmax(scores)[:2]
    return float(w1), float(w2)


def copy_worst_case_length(num_keys: int, epsilon: float) -> float:
    """Query length that copies ``k_1`` (weight ``>= 1/(1+eps)``) for all key sets.

    Admissible: unit keys with ``||k_1 - k_i|| >= 1``.  The value is ``2 ln((n-1)/eps)``
    for ``n >= 3`` (attained by :func:`attnsig.keysets.adversarial_copy_keys`) and
    ``ln(1/eps)`` for ``n = 2``; it is 0 for ``n = 1``.

    Examples
    --------
    >>> copy_worst_case_length(2, 0.5) == math.log(2.0)
    True
    >>> round(copy_worst_case_length(5, 0.5), 12) == round(2 * math.log(8.0), 12)
    True
    """
    n = check_scalar(num_keys, "num_keys", int, min_val=1)
    eps = check_scalar(
        epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="neither"
    )
    if n == 1:
        return 0.0
    if n == 2:
        return math.log(1.0 / eps)
    return 2.0 * math.log((n - 1) / eps)


def average_min_length(num_keys: int, epsilon: float) -> float:
    """Query length giving ``alpha_1, alpha_2 >= 1/(2+eps)`` on orthonormal keys.

    Equal to ``sqrt(2(n-2)/n) ln((n-2)/eps)`` for ``n >= 3`` and to 0 for ``n = 2``.

    Examples
    --------
    >>> average_min_length(2, 0.1)
    0.0
    >>> round(average_min_length(4, 0.5), 12) == round(math.log(4.0), 12)
    True
    """
    n = check_scalar(num_keys, "num_keys", int, min_val=2)
    eps = check_scalar(
        epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="neither"
    )
    if n == 2:
        return 0.0
    return math.sqrt(2.0 * (n - 2) / n) * math.log((n - 2) / eps)


def head_scale_needed(num_keys: int, epsilon: float, c: float) -> float:
    """Smallest ``t`` with weight ``>= 1/(1+eps)`` on ``k_1 = c u`` for query ``t u``.

    The other ``n - 1`` keys are orthogonal to ``u`` and score 0, so the condition is
    ``(n - 1) exp(-c t) <= eps``, i.e. ``t >= ln((n-1)/eps) / c`` (0 when that is
    negative).

    Examples
    --------
    >>> round(head_scale_needed(3, 0.5, 0.5), 12) == round(2 * math.log(4.0), 12)
    True
    """
    n = check_scalar(num_keys, "num_keys", int, min_val=1)
    eps = check_scalar(
        epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="neither"
    )
    c = check_scalar(c, "c", min_val=0, include_boundaries="neither")
    if n == 1:
        return 0.0
    return max(0.0, math.log((n - 1) / eps) / c)


# -----------------------------------------------------------------------------
# numerical minima
def min_scale_along(
    keys, direction, indices: Sequence[int], threshold: float, rtol: float = 1e-12
) -> float:
    """Smallest ``t >= 0`` giving every chosen key weight ``>= threshold`` along a line.

    Along a direction in which every target has a largest score (ties among targets
    allowed, up to ``1e-12`` relative), each target weight is non-decreasing in ``t``,
    so bisection finds the threshold crossing.

    Parameters
    ----------
    keys : array_like, shape (n, d)
    direction : array_like, shape (d,), non-zero (it is normalised)
    indices : sequence of int
        The chosen keys (0-based, distinct).
    threshold : float in (0, 1)
    rtol : relative tolerance of the bisection on ``t``

    Returns
    -------
    float
        The smallest scale ``t`` (the query length is ``t`` since the direction is
        normalised).

    Raises
    ------
    ValueError
        If some target is not a top scorer along ``direction``, or the threshold exceeds
        the limit ``1 / (number of top scorers)`` of the weights as ``t`` grows.

    Examples
    --------
    >>> t = min_scale_along(np.eye(3), [1.0, 0.0, 0.0], [0], threshold=0.5)
    >>> round(t, 9) == round(math.log(2.0), 9)  # e^t / (e^t + 2) = 1/2
    True
    """
    k = as_matrix(keys, "keys")
    u = as_vector(direction, "direction", dim=k.shape[1])
    norm = np.linalg.norm(u)
    if norm == 0:
        raise ValueError("direction must be non-zero")
    u = u / norm
    idx = check_indices(indices, k.shape[0], "indices")
    tau = check_scalar(
        threshold, "threshold", min_val=0, max_val=1, include_boundaries="neither"
    )
    rtol = check_scalar(
        rtol, "rtol", min_val=0, max_val=1, include_boundaries="neither"
    )
    scores = k @ u  # (n,)
    top = scores.max()
    tie_tol = 1e-12 * max(1.0, abs(top))
    if np.any(scores[idx] < top - tie_tol):
        raise ValueError(
            f"every target must have the largest score along direction; target scores "
            f"{np.round(scores[idx], 6).tolist()} but the largest is {top:.6f}"
        )
    num_top = int(np.sum(scores >= top - tie_tol))
    if tau >= 1.0 / num_top:
        raise ValueError(
            f"threshold {tau} is not reachable: {num_top} keys share the largest "
            f"score, so the target weights tend to 1/{num_top}"
        )

    def worst(t: float) -> float:
        return float(_weights(t * u, k)[idx].min())

    if worst(0.0) >= tau:
        return 0.0
    hi = 1.0
    while worst(hi) < tau:  # terminates: the weights tend to 1/num_top > tau
        hi *= 2.0
    lo = 0.0
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        if worst(mid) >= tau:
            hi = mid
        else:
            lo = mid
    return hi


def min_query_norm(
    keys, indices: Sequence[int], threshold: float, x0=None
) -> tuple[float, np.ndarray]:
    """Smallest ``||q||`` giving every chosen key weight ``>= threshold``.

    The feasible set ``{q : log alpha_j(q) >= log threshold for all targets j}`` is
    convex (``-log alpha_j`` is a log-sum-exp of affine functions), so this is a convex
    programme; it is solved with SciPy's SLSQP (imported lazily: SciPy is needed only
    here).

    Parameters
    ----------
    keys : array_like, shape (n, d)
    indices : sequence of int
        The chosen keys (0-based, distinct).
    threshold : float in (0, 1)
    x0 : array_like, shape (d,), optional
        A starting query, ideally feasible; default: the sum of the target keys scaled
        by 10.

    Returns
    -------
    norm : float
    query : numpy.ndarray, shape (d,)

    Raises
    ------
    RuntimeError
        If the optimiser does not return a feasible query (up to a relative ``1e-7`` in
        the weights).

    Examples
    --------
    >>> norm, q = min_query_norm(np.eye(3), [0], threshold=0.5)
    >>> round(norm, 6)  # shorter than ln 2 along k_1: it leans away from the others
    0.565952
    """
    from scipy.optimize import minimize

    k = as_matrix(keys, "keys")
    idx = check_indices(indices, k.shape[0], "indices")
    tau = check_scalar(
        threshold, "threshold", min_val=0, max_val=1, include_boundaries="neither"
    )
    start = (
        10.0 * k[idx].sum(axis=0) if x0 is None else as_vector(x0, "x0", dim=k.shape[1])
    )
    log_tau = math.log(tau)
    constraints = [
        {
            "type": "ineq",
            "fun": (lambda q, j=j: _log_weights_and_grad(q, k, j)[0] - log_tau),
            "jac": (lambda q, j=j: _log_weights_and_grad(q, k, j)[1]),
        }
        for j in idx
    ]
    result = minimize(
        lambda q: 0.5 * float(q @ q),
        start,
        jac=lambda q: q,
        method="SLSQP",
        constraints=constraints,
        options={"ftol": 1e-14, "maxiter": 500},
    )
    q = np.asarray(result.x, dtype=float)
    worst = float(_weights(q, k)[idx].min())
    if not worst >= tau * (1.0 - 1e-7):
        raise RuntimeError(
            f"SLSQP returned an infeasible query (worst target weight {worst:.9f} < "
            f"threshold {tau:.9f}): {result.message}"
        )
    return float(np.linalg.norm(q)), q
