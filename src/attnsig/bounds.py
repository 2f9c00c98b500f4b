"""Quantitative bounds for single-query softmax attention.

A query ``q`` (shape ``(d,)``) attends over keys ``k_1, ..., k_n`` (rows of ``keys``, shape ``(n, d)``)
with scores ``s_i = <k_i, q>`` (no ``1/sqrt(d)`` scaling) and weights ``alpha = softmax(s)``.
This module holds

* the query constructions of the chapter "Attention bounds" (copying one value, averaging two,
  the noisy key ``k_1 = c u`` and the two-head fix),
* closed forms of the smallest query length that reaches each guarantee,
* two numerical ways of finding that smallest length for any key set (along a fixed direction by
  bisection, and over all directions by convex optimisation),
* key sets that satisfy the assumptions of the exercises: adversarial ones at the edge of the
  assumptions and random ones.

Indices are 0-based: the sheet's ``k_1`` is ``keys[0]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from attnsig._validation import as_float_array, check_positive_int
from attnsig.heads import attention_weights  # softmax(keys @ q), unscaled as in the sheet

__all__ = [
    "copy_query",
    "average_query",
    "noisy_average_query",
    "two_head_queries",
    "noisy_weights",
    "copy_worst_case_length",
    "average_min_length",
    "head_scale_needed",
    "min_scale_along",
    "min_query_norm",
    "adversarial_copy_keys",
    "random_copy_keys",
    "orthonormal_keys",
    "noisy_key_set",
]


# ----------------------------------------------------------------------------- validation helpers
def _as_keys(keys, name: str = "keys") -> np.ndarray:
    arr = as_float_array(keys, name).astype(np.float64, copy=False)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty 2-D array of shape (n, d); got shape {arr.shape}")
    return arr


def _as_vector(x, name: str, dim: int | None = None) -> np.ndarray:
    arr = as_float_array(x, name).astype(np.float64, copy=False)
    if arr.ndim != 1 or (dim is not None and arr.shape[0] != dim):
        expected = f"({dim},)" if dim is not None else "(d,)"
        raise ValueError(f"{name} must have shape {expected}; got shape {arr.shape}")
    return arr


def _check_epsilon(epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating, np.integer)):
        raise TypeError(f"epsilon must be a real number in (0, 1); got {type(epsilon).__name__}")
    eps = float(epsilon)
    if not 0.0 < eps < 1.0:
        raise ValueError(f"epsilon must lie in the open interval (0, 1); got {epsilon!r}")
    return eps


def _check_count(value, name: str, minimum: int) -> int:
    return check_positive_int(value, name, minimum=minimum)


def _check_index(index, n: int, name: str) -> int:
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"{name} must be an int index; got {type(index).__name__}")
    if not 0 <= index < n:
        raise ValueError(f"{name} must be an index in [0, {n}); got {index}")
    return int(index)


def _check_threshold(threshold) -> float:
    tau = float(threshold)
    if not 0.0 < tau < 1.0:
        raise ValueError(f"threshold must lie in the open interval (0, 1); got {threshold!r}")
    return tau


# ----------------------------------------------------------------------------- attention weights
def _log_weights_and_grad(query: np.ndarray, keys: np.ndarray, target: int):
    """log alpha_target(q) and its gradient k_target - sum_i alpha_i k_i."""
    scores = keys @ query  # (n,)
    top = scores.max()
    lse = top + math.log(np.exp(scores - top).sum())
    alpha = np.exp(scores - lse)  # (n,)
    return scores[target] - lse, keys[target] - alpha @ keys


# ----------------------------------------------------------------------------- query constructions
def copy_query(keys, epsilon: float, target: int = 0) -> np.ndarray:
    """Query ``2 ln(n/eps) k_target`` that copies the value of one key.

    If every key has unit norm and ``||k_target - k_i|| >= 1`` for ``i != target``, the weight on the
    target is at least ``1/(1 + eps)`` (theorem ``thm-bounds-copy`` of the book).

    Parameters
    ----------
    keys : array_like, shape (n, d)
    epsilon : float in (0, 1)
    target : int, index of the key to copy

    Returns
    -------
    numpy.ndarray, shape (d,)
    """
    k = _as_keys(keys)
    eps = _check_epsilon(epsilon)
    j = _check_index(target, k.shape[0], "target")
    return 2.0 * math.log(k.shape[0] / eps) * k[j]


def average_query(keys, epsilon: float, targets: Sequence[int] = (0, 1)) -> np.ndarray:
    """Query ``ln(n/eps) (k_a + k_b)`` that averages the values of two keys.

    For orthonormal keys both target weights are at least ``1/(2 + eps)``.

    Parameters
    ----------
    keys : array_like, shape (n, d), n >= 2
    epsilon : float in (0, 1)
    targets : pair of distinct ints

    Returns
    -------
    numpy.ndarray, shape (d,)
    """
    k = _as_keys(keys)
    eps = _check_epsilon(epsilon)
    if len(targets) != 2:
        raise ValueError(f"targets must be a pair of indices; got {targets!r}")
    a, b = (_check_index(t, k.shape[0], "targets") for t in targets)
    if a == b:
        raise ValueError(f"targets must be two distinct indices; got {targets!r}")
    return math.log(k.shape[0] / eps) * (k[a] + k[b])


def noisy_average_query(direction, second_key, num_keys: int, epsilon: float) -> np.ndarray:
    """The single-head query ``ln(n/eps) (u + k_2)`` for the noisy key ``k_1 = c u``.

    Parameters
    ----------
    direction : array_like, shape (d,)
        The unit direction ``u`` of the noisy first key.
    second_key : array_like, shape (d,)
        The key ``k_2``.
    num_keys : int, the number n of keys
    epsilon : float in (0, 1)

    Returns
    -------
    numpy.ndarray, shape (d,)
    """
    u = _as_vector(direction, "direction")
    k2 = _as_vector(second_key, "second_key", dim=u.shape[0])
    n = _check_count(num_keys, "num_keys", 2)
    eps = _check_epsilon(epsilon)
    return math.log(n / eps) * (u + k2)


def two_head_queries(direction, second_key, num_keys: int, epsilon: float,
                     c_min: float = 0.5) -> np.ndarray:
    """Queries of two heads whose averaged outputs approximate ``(v_1 + v_2)/2``.

    Head 1 looks along ``u`` with length ``ln(n/eps)/c_min``; head 2 looks along ``k_2`` with length
    ``ln(n/eps)``.  When the noisy key is ``k_1 = c u`` with ``c >= c_min`` and the keys are orthogonal
    (unit norm except ``k_1``), each head puts weight at least ``1/(1 + eps)`` on its own key.
    ``c_min = 1`` reproduces the original sheet's choice, which fails for ``c = 1/2``.

    Parameters
    ----------
    direction : array_like, shape (d,), the unit vector ``u``
    second_key : array_like, shape (d,), the key ``k_2``
    num_keys : int, the number n of keys
    epsilon : float in (0, 1)
    c_min : float > 0, the smallest possible scale of the noisy key

    Returns
    -------
    numpy.ndarray, shape (2, d)
        Row 0 is the query of head 1, row 1 the query of head 2.
    """
    u = _as_vector(direction, "direction")
    k2 = _as_vector(second_key, "second_key", dim=u.shape[0])
    n = _check_count(num_keys, "num_keys", 2)
    eps = _check_epsilon(epsilon)
    if not float(c_min) > 0:
        raise ValueError(f"c_min must be positive; got {c_min!r}")
    t = math.log(n / eps)
    return np.stack([t / float(c_min) * u, t * k2])  # (2, d)


# ----------------------------------------------------------------------------- closed forms
def noisy_weights(num_keys: int, epsilon: float, c: float) -> tuple[float, float]:
    """Weights ``(alpha_1, alpha_2)`` of the query ``ln(n/eps)(u + k_2)`` when ``k_1 = c u``.

    With ``r = n/eps`` the scores are ``c ln r``, ``ln r`` and ``0`` (``n - 2`` times), so
    ``alpha_1 = r^c / (r^c + r + n - 2)`` and ``alpha_2 = r / (r^c + r + n - 2)``.

    Returns
    -------
    tuple of float
    """
    n = _check_count(num_keys, "num_keys", 2)
    eps = _check_epsilon(epsilon)
    if not float(c) > 0:
        raise ValueError(f"c must be positive; got {c!r}")
    log_r = math.log(n / eps)
    # Divide through by the largest term so nothing overflows.
    top = max(c * log_r, log_r, 0.0)
    w1, w2, rest = math.exp(c * log_r - top), math.exp(log_r - top), (n - 2) * math.exp(-top)
    z = w1 + w2 + rest
    return w1 / z, w2 / z


def copy_worst_case_length(num_keys: int, epsilon: float) -> float:
    """Smallest query length that copies ``k_1`` with weight ``>= 1/(1+eps)`` for every admissible key set.

    Admissible: unit keys with ``||k_1 - k_i|| >= 1``.  The value is ``2 ln((n-1)/eps)`` for ``n >= 3``
    (attained by :func:`adversarial_copy_keys`) and ``ln(1/eps)`` for ``n = 2``; it is 0 for ``n = 1``.
    """
    n = _check_count(num_keys, "num_keys", 1)
    eps = _check_epsilon(epsilon)
    if n == 1:
        return 0.0
    if n == 2:
        return math.log(1.0 / eps)
    return 2.0 * math.log((n - 1) / eps)


def average_min_length(num_keys: int, epsilon: float) -> float:
    """Smallest query length giving ``alpha_1, alpha_2 >= 1/(2+eps)`` for ``n`` orthonormal keys.

    Equal to ``sqrt(2(n-2)/n) ln((n-2)/eps)`` for ``n >= 3`` and to 0 for ``n = 2``.
    """
    n = _check_count(num_keys, "num_keys", 2)
    eps = _check_epsilon(epsilon)
    if n == 2:
        return 0.0
    return math.sqrt(2.0 * (n - 2) / n) * math.log((n - 2) / eps)


def head_scale_needed(num_keys: int, epsilon: float, c: float) -> float:
    """Smallest ``t`` with weight ``>= 1/(1+eps)`` on ``k_1 = c u`` for the head-1 query ``t u``.

    The other ``n - 1`` keys are orthogonal to ``u`` and score 0, so the condition is
    ``(n - 1) exp(-c t) <= eps``, i.e. ``t >= ln((n-1)/eps) / c`` (0 when that is negative).
    """
    n = _check_count(num_keys, "num_keys", 1)
    eps = _check_epsilon(epsilon)
    if not float(c) > 0:
        raise ValueError(f"c must be positive; got {c!r}")
    if n == 1:
        return 0.0
    return max(0.0, math.log((n - 1) / eps) / float(c))


# ----------------------------------------------------------------------------- numerical minima
def min_scale_along(keys, direction, targets: Sequence[int], threshold: float,
                    rtol: float = 1e-12) -> float:
    """Smallest ``t >= 0`` such that every target weight of the query ``t * direction`` is ``>= threshold``.

    Along a direction in which every target has a largest score (ties among targets allowed, up to
    ``1e-12`` relative), each target weight is non-decreasing in ``t``, so bisection finds the
    threshold crossing.

    Parameters
    ----------
    keys : array_like, shape (n, d)
    direction : array_like, shape (d,), non-zero (it is normalised)
    targets : sequence of int
    threshold : float in (0, 1)
    rtol : relative tolerance of the bisection on ``t``

    Returns
    -------
    float
        The smallest scale ``t`` (the query length is ``t`` since the direction is normalised).

    Raises
    ------
    ValueError
        If some target is not a top scorer along ``direction``, or the threshold exceeds the limit
        ``1 / (number of top scorers)`` of the weights as ``t`` grows.
    """
    k = _as_keys(keys)
    u = _as_vector(direction, "direction", dim=k.shape[1])
    norm = np.linalg.norm(u)
    if norm == 0:
        raise ValueError("direction must be non-zero")
    u = u / norm
    idx = [_check_index(t, k.shape[0], "targets") for t in targets]
    if not idx:
        raise ValueError("targets must name at least one key")
    tau = _check_threshold(threshold)
    scores = k @ u  # (n,)
    top = scores.max()
    tie_tol = 1e-12 * max(1.0, abs(top))
    if np.any(scores[idx] < top - tie_tol):
        raise ValueError(f"every target must have the largest score along direction; target scores "
                         f"{np.round(scores[idx], 6).tolist()} but the largest is {top:.6f}")
    num_top = int(np.sum(scores >= top - tie_tol))
    if tau >= 1.0 / num_top:
        raise ValueError(f"threshold {tau} is not reachable: {num_top} keys share the largest score, "
                         f"so the target weights tend to 1/{num_top}")

    def worst(t: float) -> float:
        return float(attention_weights(t * u, k)[idx].min())

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


def min_query_norm(keys, targets: Sequence[int], threshold: float, x0=None) -> tuple[float, np.ndarray]:
    """Smallest ``||q||`` over all queries whose target weights are all ``>= threshold``.

    The feasible set ``{q : log alpha_j(q) >= log threshold for all targets j}`` is convex
    (``-log alpha_j`` is a log-sum-exp of affine functions), so this is a convex programme; it is
    solved with SciPy's SLSQP (imported lazily: SciPy is needed only here).

    Parameters
    ----------
    keys : array_like, shape (n, d)
    targets : sequence of int
    threshold : float in (0, 1)
    x0 : array_like, shape (d,), optional
        A starting query, ideally feasible; default: the sum of the target keys scaled by 10.

    Returns
    -------
    norm : float
    query : numpy.ndarray, shape (d,)

    Raises
    ------
    RuntimeError
        If the optimiser does not return a feasible query (up to a relative ``1e-7`` in the weights).
    """
    from scipy.optimize import minimize

    k = _as_keys(keys)
    idx = [_check_index(t, k.shape[0], "targets") for t in targets]
    if not idx:
        raise ValueError("targets must name at least one key")
    tau = _check_threshold(threshold)
    start = 10.0 * k[idx].sum(axis=0) if x0 is None else _as_vector(x0, "x0", dim=k.shape[1])
    log_tau = math.log(tau)
    constraints = [
        {"type": "ineq",
         "fun": (lambda q, j=j: _log_weights_and_grad(q, k, j)[0] - log_tau),
         "jac": (lambda q, j=j: _log_weights_and_grad(q, k, j)[1])}
        for j in idx
    ]
    result = minimize(lambda q: 0.5 * float(q @ q), start, jac=lambda q: q, method="SLSQP",
                      constraints=constraints, options={"ftol": 1e-14, "maxiter": 500})
    q = np.asarray(result.x, dtype=float)
    worst = float(attention_weights(q, k)[idx].min())
    if not worst >= tau * (1.0 - 1e-7):
        raise RuntimeError(f"SLSQP returned an infeasible query (worst target weight {worst:.9f} < "
                           f"threshold {tau:.9f}): {result.message}")
    return float(np.linalg.norm(q)), q


# ----------------------------------------------------------------------------- key sets
def adversarial_copy_keys(num_keys: int, dim: int) -> np.ndarray:
    """Unit keys at the edge of the copying assumption, where no query shorter than the worst case works.

    ``k_1 = e_0`` and ``k_i = e_0 / 2 + (sqrt(3)/2) w_i`` for ``i >= 2``, with the ``w_i`` evenly spaced
    on the unit circle of the plane ``span(e_1, e_2)``.  Every distractor is at distance exactly 1 from
    ``k_1``, and for ``n >= 3`` the ``w_i`` sum to zero, which forces the query length
    ``2 ln((n-1)/eps)`` (see :func:`copy_worst_case_length`).

    Parameters
    ----------
    num_keys : int >= 1
    dim : int, at least 2, and at least 3 when ``num_keys >= 4``

    Returns
    -------
    numpy.ndarray, shape (num_keys, dim)
    """
    n = _check_count(num_keys, "num_keys", 1)
    d = _check_count(dim, "dim", 2)
    if n >= 4 and d < 3:
        raise ValueError(f"dim must be at least 3 for num_keys >= 4 (the distractors need a plane "
                         f"orthogonal to k_1); got dim={d}")
    keys = np.zeros((n, d))
    keys[0, 0] = 1.0
    m = n - 1
    if m == 0:
        return keys
    angles = 2.0 * np.pi * np.arange(m) / m  # (m,)
    keys[1:, 0] = 0.5
    keys[1:, 1] = math.sqrt(3.0) / 2.0 * np.cos(angles)
    if m >= 3:
        keys[1:, 2] = math.sqrt(3.0) / 2.0 * np.sin(angles)
    return keys


def random_copy_keys(num_keys: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """Random unit keys with ``||k_1 - k_i|| >= 1`` (equivalently ``<k_1, k_i> <= 1/2``).

    ``k_1`` is uniform on the sphere; each other key has cosine with ``k_1`` uniform in ``[-1, 1/2]``
    and a uniformly random direction orthogonal to ``k_1``.

    Returns
    -------
    numpy.ndarray, shape (num_keys, dim)
    """
    n = _check_count(num_keys, "num_keys", 1)
    d = _check_count(dim, "dim", 2)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
    k1 = rng.standard_normal(d)
    k1 /= np.linalg.norm(k1)
    cosines = rng.uniform(-1.0, 0.5, size=n - 1)  # (n-1,)
    perp = rng.standard_normal((n - 1, d))
    perp -= np.outer(perp @ k1, k1)  # remove the k_1 component
    perp /= np.linalg.norm(perp, axis=1, keepdims=True)
    others = cosines[:, None] * k1 + np.sqrt(1.0 - cosines**2)[:, None] * perp  # (n-1, d)
    return np.vstack([k1, others])


def orthonormal_keys(num_keys: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """``num_keys`` random orthonormal keys in ``R^dim`` (rows), from a QR factorisation.

    Returns
    -------
    numpy.ndarray, shape (num_keys, dim)
    """
    n = _check_count(num_keys, "num_keys", 1)
    d = _check_count(dim, "dim", 1)
    if n > d:
        raise ValueError(f"num_keys must be at most dim for orthonormal keys; got num_keys={n}, dim={d}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
    q, _ = np.linalg.qr(rng.standard_normal((d, n)))  # (d, n), orthonormal columns
    return q.T.copy()  # (n, d)


def noisy_key_set(num_keys: int, c: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Orthogonal keys whose first key has length ``c``: ``k_1 = c u``, ``k_2, ..., k_n`` orthonormal.

    Parameters
    ----------
    num_keys : int >= 2
    c : float > 0, the length of the first key
    rng : numpy.random.Generator

    Returns
    -------
    keys : numpy.ndarray, shape (num_keys, num_keys + 1)
    u : numpy.ndarray, shape (num_keys + 1,), the unit direction of the first key
    """
    n = _check_count(num_keys, "num_keys", 2)
    if not float(c) > 0:
        raise ValueError(f"c must be positive; got {c!r}")
    basis = orthonormal_keys(n, n + 1, rng)  # (n, n + 1)
    keys = basis.copy()
    keys[0] = float(c) * basis[0]
    return keys, basis[0].copy()
