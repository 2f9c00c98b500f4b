"""What one attention head can do: copying, averaging, and noisy keys.

Small, general functions for the self-attention exercises ("Self-Attention and Transformers"):
a single query attending over a set of keys, with the *unscaled* dot-product scores of the
exercise sheet,

    scores_i = scale * k_i . q,      p = softmax(scores),      c = sum_i p_i v_i,

(``scale = 1`` by default; pass ``scale=1/sqrt(d)`` for the Transformer convention).

Shapes use ``n`` for the number of keys, ``d`` for the key/query dimension, ``dv`` for the value
dimension, ``S`` for a batch of samples (any number of leading axes) and ``H`` for heads.

Contents
--------
attention_weights, single_head_output, multi_head_output
    weights and outputs of one query (or several heads) over keys; batched over leading axes.
subset_gap, copy_gap, outside_weight
    the score gap that puts all but ``tol`` of the weight on a chosen subset of keys.
query_for_scores, copying_query, averaging_query
    queries that realise prescribed scores on linearly independent keys.
sample_keys, noisy_key_covariances
    keys drawn as ``k_i ~ N(mu_i, Sigma_i)`` from a seeded ``numpy.random.Generator``.
projection_onto_span
    the orthogonal projection onto the span of some vectors (``A A^T`` for orthonormal ``A``).
segment_coordinate, fraction_near
    summaries of many outputs: where they sit between two values, how many are near a target.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from attnsig.attention import softmax
from attnsig._validation import as_float_array, check_positive_int

__all__ = [
    "attention_weights",
    "single_head_output",
    "multi_head_output",
    "subset_gap",
    "copy_gap",
    "outside_weight",
    "query_for_scores",
    "copying_query",
    "averaging_query",
    "sample_keys",
    "noisy_key_covariances",
    "projection_onto_span",
    "segment_coordinate",
    "fraction_near",
]


# --------------------------------------------------------------------------- validation helpers

def _float_array(x, name: str, ndim_min: int = 0) -> np.ndarray:
    """``x`` as a finite float64 array with at least ``ndim_min`` axes, or a clear error."""
    return as_float_array(x, name, ndim_min=ndim_min).astype(np.float64, copy=False)


def _positive_int(value, name: str) -> int:
    return check_positive_int(value, name)


def _real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def _tolerance(tol, name: str = "tol") -> float:
    tol = _real(tol, name)
    if not 0.0 < tol < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {tol}")
    return tol


# --------------------------------------------------------------------------- weights and outputs

def attention_weights(query, keys, *, scale: float = 1.0) -> np.ndarray:
    """Attention weights of one query over a set of keys.

    Parameters
    ----------
    query : array_like, shape (..., d)
    keys : array_like, shape (..., n, d)
        Leading axes of ``query`` and ``keys`` broadcast against each other.
    scale : float, default 1
        Multiplies the scores ``k_i . q`` (1 as in the exercise sheet; ``1/sqrt(d)`` for the
        Transformer convention).

    Returns
    -------
    weights : ndarray, shape (..., n)
        ``softmax(scale * keys @ query)``: non-negative, summing to 1 along the last axis.
    """
    q = _float_array(query, "query", 1)
    k = _float_array(keys, "keys", 2)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"query has dimension {q.shape[-1]} but keys have dimension "
                         f"{k.shape[-1]}; expected query (..., d) and keys (..., n, d)")
    scale = _real(scale, "scale")
    scores = scale * np.einsum("...nd,...d->...n", k, q)  # (..., n)
    return softmax(scores, axis=-1)


def single_head_output(query, keys, values, *, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Output ``c = sum_i p_i v_i`` of one attention head with a single query.

    Parameters
    ----------
    query : array_like, shape (..., d)
    keys : array_like, shape (..., n, d)
    values : array_like, shape (..., n, dv)
        Leading axes of the three arguments broadcast: e.g. one query, keys of shape (S, n, d)
        for S samples and one value matrix (n, dv) give S outputs.
    scale : float, default 1
        Multiplies the scores (see :func:`attention_weights`).

    Returns
    -------
    output : ndarray, shape (..., dv)
    weights : ndarray, shape (..., n)
    """
    v = _float_array(values, "values", 2)
    weights = attention_weights(query, keys, scale=scale)  # (..., n)
    if v.shape[-2] != weights.shape[-1]:
        raise ValueError(f"values has {v.shape[-2]} rows but there are {weights.shape[-1]} keys; "
                         "expected values (..., n, dv)")
    output = np.einsum("...n,...nv->...v", weights, v)  # (..., dv)
    return output, weights


def multi_head_output(queries, keys, values, *, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The simplified multi-head attention of the exercise sheet: the average of H single heads.

    Head ``h`` is a single head with query ``queries[h]`` over the *same* keys and values (no
    projections); the output is ``(c_1 + ... + c_H) / H``.

    Parameters
    ----------
    queries : array_like, shape (H, d)
    keys : array_like, shape (..., n, d)
    values : array_like, shape (..., n, dv)
    scale : float, default 1

    Returns
    -------
    output : ndarray, shape (..., dv)
        The average of the heads' outputs.
    weights : ndarray, shape (..., H, n)
        Each head's weights; the heads' outputs are ``weights @ values``.
    """
    q = _float_array(queries, "queries", 2)
    if q.ndim != 2:
        raise ValueError(f"queries must have shape (H, d), got shape {q.shape}")
    k = _float_array(keys, "keys", 2)
    v = _float_array(values, "values", 2)
    # Insert a head axis so that every head sees the same keys and values.
    head_outputs, weights = single_head_output(q, k[..., None, :, :], v[..., None, :, :],
                                               scale=scale)  # (..., H, dv), (..., H, n)
    return head_outputs.mean(axis=-2), weights


# --------------------------------------------------------------------------- how large a gap

def outside_weight(gap, num_keys: int, subset_size: int = 1):
    """Total weight outside a subset of keys whose scores tie and beat all others by ``gap``.

    If ``subset_size`` keys share the largest score and each of the other ``num_keys -
    subset_size`` keys scores exactly ``gap`` less, the weight outside the subset is

        (n - m) e^{-gap} / (m + (n - m) e^{-gap}).

    It is the *largest* outside weight over all score vectors in which the subset ties and
    beats every other key by at least ``gap``: lowering any other score lowers it.

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
    """
    n = _positive_int(num_keys, "num_keys")
    m = _positive_int(subset_size, "subset_size")
    if m > n:
        raise ValueError(f"subset_size must be at most num_keys={n}, got {m}")
    g = _float_array(gap, "gap")
    # Written with exp(-gap) only, so large gaps underflow to 0 instead of overflowing.
    rest = (n - m) * np.exp(-g)
    out = rest / (m + rest)
    return float(out) if out.ndim == 0 else out


def subset_gap(num_keys: int, subset_size: int, tol: float) -> float:
    """Smallest score gap guaranteeing that at most ``tol`` of the weight leaves a tied subset.

    Solving ``outside_weight(gap, n, m) = tol`` gives

        gap = log( (n - m)(1 - tol) / (m tol) ),

    and every gap at least this large keeps the outside weight at most ``tol``. When the
    formula is negative (or ``m = n``) no gap is needed and 0.0 is returned.

    Parameters
    ----------
    num_keys : int
        ``n``.
    subset_size : int
        ``m``, with ``1 <= m <= n``.
    tol : float
        The tolerated outside weight, ``0 < tol < 1``.

    Returns
    -------
    float
    """
    n = _positive_int(num_keys, "num_keys")
    m = _positive_int(subset_size, "subset_size")
    if m > n:
        raise ValueError(f"subset_size must be at most num_keys={n}, got {m}")
    tol = _tolerance(tol)
    if m == n:
        return 0.0
    return max(0.0, math.log((n - m) * (1.0 - tol) / (m * tol)))


def copy_gap(num_keys: int, tol: float) -> float:
    """Score gap needed to copy one value: ``log((n - 1)(1 - tol) / tol)``.

    If key ``j`` scores at least this much more than every other key, its weight is at least
    ``1 - tol`` and the output is within ``tol * max_i ||v_i - v_j||`` of ``v_j``. The gap is
    tight: with all other keys exactly this much lower, the weight of ``j`` is exactly
    ``1 - tol``. Same as ``subset_gap(num_keys, 1, tol)``.
    """
    return subset_gap(num_keys, 1, tol)


# --------------------------------------------------------------------------- designed queries

def query_for_scores(keys, scores) -> np.ndarray:
    """A query ``q`` with ``keys @ q = scores``, for linearly independent keys.

    Uses the minimum-norm solution ``q = pinv(keys) @ scores``.

    Parameters
    ----------
    keys : array_like, shape (n, d)
        Rows must be linearly independent (so ``n <= d``); otherwise not every score vector
        can be realised and a ``ValueError`` is raised.
    scores : array_like, shape (n,)

    Returns
    -------
    query : ndarray, shape (d,)
    """
    k = _float_array(keys, "keys", 2)
    if k.ndim != 2:
        raise ValueError(f"keys must have shape (n, d), got shape {k.shape}")
    s = _float_array(scores, "scores", 1)
    if s.shape != (k.shape[0],):
        raise ValueError(f"scores must have shape ({k.shape[0]},), one per key, got {s.shape}")
    n, d = k.shape
    if np.linalg.matrix_rank(k) < n:
        raise ValueError(f"keys must be linearly independent (rank {n}) to realise any scores; "
                         f"got {n} keys of dimension {d} with rank {np.linalg.matrix_rank(k)}")
    return np.linalg.pinv(k) @ s  # (d,)


def _index(value, n: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer index, got {type(value).__name__}")
    if not 0 <= value < n:
        raise ValueError(f"{name} must lie in 0..{n - 1}, got {value}")
    return int(value)


def copying_query(keys, index: int, tol: float) -> np.ndarray:
    """A query that puts weight at least ``1 - tol`` on key ``index`` (so the head copies it).

    The query gives key ``index`` the score ``copy_gap(n, tol)`` and every other key the score
    0. For orthonormal keys this is ``copy_gap(n, tol) * keys[index]``.

    Parameters
    ----------
    keys : array_like, shape (n, d)
        Linearly independent rows.
    index : int
        The key to copy, ``0 <= index < n``.
    tol : float
        Tolerated weight on the other keys, ``0 < tol < 1``.

    Returns
    -------
    query : ndarray, shape (d,)
    """
    k = _float_array(keys, "keys", 2)
    n = k.shape[0]
    j = _index(index, n, "index")
    target = np.zeros(n)
    target[j] = copy_gap(n, tol)
    return query_for_scores(k, target)


def averaging_query(keys, index_a: int, index_b: int, tol: float) -> np.ndarray:
    """A query splitting the weight equally between keys ``index_a`` and ``index_b``.

    Both keys get the score ``subset_gap(n, 2, tol)``, all others 0, so each of the two gets
    weight ``(1 - w) / 2`` with outside weight ``w <= tol``. For orthonormal keys this is
    ``subset_gap(n, 2, tol) * (keys[a] + keys[b])``.

    Parameters
    ----------
    keys : array_like, shape (n, d)
        Linearly independent rows, ``n >= 2``.
    index_a, index_b : int
        Two different key indices.
    tol : float
        Tolerated weight outside the pair, ``0 < tol < 1``.

    Returns
    -------
    query : ndarray, shape (d,)
    """
    k = _float_array(keys, "keys", 2)
    n = k.shape[0]
    a = _index(index_a, n, "index_a")
    b = _index(index_b, n, "index_b")
    if a == b:
        raise ValueError(f"index_a and index_b must differ, got {a} twice")
    target = np.zeros(n)
    target[[a, b]] = subset_gap(n, 2, tol)
    return query_for_scores(k, target)


# --------------------------------------------------------------------------- random keys

def noisy_key_covariances(means, alpha: float, noisy_index: int | None = None,
                          spread: float = 0.5) -> np.ndarray:
    """Covariances ``Sigma_i = alpha I`` with an extra ``spread * mu_a mu_a^T`` for one key.

    This is the noisy-key model of the exercises: key ``a = noisy_index`` keeps its direction
    but its length along ``mu_a`` varies (variance ``alpha + spread * ||mu_a||^2`` along it).

    Parameters
    ----------
    means : array_like, shape (n, d)
    alpha : float
        Isotropic variance, ``alpha >= 0``.
    noisy_index : int or None
        The key with the extra variance; None gives all keys ``alpha I``.
    spread : float, default 0.5
        Coefficient of ``mu_a mu_a^T``, ``>= 0`` (0.5 in the sheet).

    Returns
    -------
    covariances : ndarray, shape (n, d, d)
    """
    mu = _float_array(means, "means", 2)
    if mu.ndim != 2:
        raise ValueError(f"means must have shape (n, d), got shape {mu.shape}")
    alpha = _real(alpha, "alpha")
    spread = _real(spread, "spread")
    if alpha < 0:
        raise ValueError(f"alpha must be non-negative, got {alpha}")
    if spread < 0:
        raise ValueError(f"spread must be non-negative, got {spread}")
    n, d = mu.shape
    cov = np.broadcast_to(alpha * np.eye(d), (n, d, d)).copy()  # (n, d, d)
    if noisy_index is not None:
        a = _index(noisy_index, n, "noisy_index")
        cov[a] += spread * np.outer(mu[a], mu[a])
    return cov


def _psd_sqrt(cov: np.ndarray) -> np.ndarray:
    """Symmetric square roots of positive semi-definite matrices (..., d, d)."""
    eigvals, eigvecs = np.linalg.eigh(cov)  # (..., d), (..., d, d)
    # Round-off turns an exact zero eigenvalue into +-1e-17, whose square root (3e-9) would add
    # spurious noise in directions of zero variance: treat eigenvalues that small as zero.
    cutoff = cov.shape[-1] * np.finfo(float).eps * np.abs(eigvals).max(axis=-1, keepdims=True)
    scale = np.sqrt(np.where(eigvals > cutoff, eigvals, 0.0))
    return (eigvecs * scale[..., None, :]) @ np.swapaxes(eigvecs, -1, -2)  # (..., d, d)


def sample_keys(means, covariances, num_samples: int, rng: np.random.Generator) -> np.ndarray:
    """Draw ``num_samples`` independent sets of keys ``k_i ~ N(mu_i, Sigma_i)``.

    Parameters
    ----------
    means : array_like, shape (n, d)
    covariances : array_like, shape (n, d, d) or (d, d)
        Symmetric positive semi-definite (``(d, d)`` is shared by all keys). Zero variance is
        allowed (the key is then its mean).
    num_samples : int
        ``S``.
    rng : numpy.random.Generator
        The source of randomness (seed it for reproducible draws).

    Returns
    -------
    keys : ndarray, shape (S, n, d)
    """
    mu = _float_array(means, "means", 2)
    if mu.ndim != 2:
        raise ValueError(f"means must have shape (n, d), got shape {mu.shape}")
    n, d = mu.shape
    cov = _float_array(covariances, "covariances", 2)
    if cov.shape == (d, d):
        cov = np.broadcast_to(cov, (n, d, d))
    if cov.shape != (n, d, d):
        raise ValueError(f"covariances must have shape ({n}, {d}, {d}) or ({d}, {d}), "
                         f"got {cov.shape}")
    if not np.allclose(cov, np.swapaxes(cov, -1, -2), atol=1e-12):
        raise ValueError("covariances must be symmetric")
    if np.linalg.eigvalsh(cov).min() < -1e-10 * max(1.0, float(np.abs(cov).max())):
        raise ValueError("covariances must be positive semi-definite, got a negative eigenvalue")
    S = _positive_int(num_samples, "num_samples")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    root = _psd_sqrt(cov)  # (n, d, d), root @ root.T = cov
    z = rng.standard_normal((S, n, d))  # (S, n, d)
    return mu + np.einsum("nij,snj->sni", root, z)  # (S, n, d)


# --------------------------------------------------------------------------- projections

def projection_onto_span(basis) -> np.ndarray:
    """Orthogonal projection onto the span of the columns of ``basis``.

    For orthonormal columns ``A`` this is ``A A^T``; in general ``A (A^T A)^{-1} A^T``
    (computed through an orthonormal basis of the column space, so dependent columns are fine).

    Parameters
    ----------
    basis : array_like, shape (d, m)
        Columns spanning the subspace (``m = 0`` gives the zero matrix).

    Returns
    -------
    projection : ndarray, shape (d, d)
        Symmetric, idempotent, with range the span of the columns.
    """
    a = _float_array(basis, "basis", 2)
    if a.ndim != 2:
        raise ValueError(f"basis must have shape (d, m) with the vectors as columns, got {a.shape}")
    d, m = a.shape
    if m == 0:
        return np.zeros((d, d))
    u, s, _ = np.linalg.svd(a, full_matrices=False)  # u (d, min(d, m))
    rank = int(np.sum(s > s.max() * max(d, m) * np.finfo(float).eps)) if s.max() > 0 else 0
    u = u[:, :rank]  # (d, rank): orthonormal basis of the span
    return u @ u.T


# --------------------------------------------------------------------------- summaries

def segment_coordinate(outputs, value_a, value_b) -> np.ndarray:
    """Where outputs sit along the line from ``value_b`` (0) to ``value_a`` (1).

    Returns ``t = (c - v_b) . (v_a - v_b) / ||v_a - v_b||^2``: 1 at ``v_a``, 0 at ``v_b``,
    1/2 at their average (for points off the line, the coordinate of their projection).

    Parameters
    ----------
    outputs : array_like, shape (..., dv)
    value_a, value_b : array_like, shape (dv,)
        Two different vectors.

    Returns
    -------
    ndarray, shape (...)
    """
    c = _float_array(outputs, "outputs", 1)
    va = _float_array(value_a, "value_a", 1)
    vb = _float_array(value_b, "value_b", 1)
    if not (va.shape == vb.shape == (c.shape[-1],)):
        raise ValueError(f"value_a and value_b must have shape ({c.shape[-1]},), got "
                         f"{va.shape} and {vb.shape}")
    direction = va - vb
    length2 = float(direction @ direction)
    if length2 == 0.0:
        raise ValueError("value_a and value_b must differ")
    return (c - vb) @ direction / length2


def fraction_near(outputs, target, tol: float) -> float:
    """Fraction of outputs within Euclidean distance ``tol`` of ``target``.

    Parameters
    ----------
    outputs : array_like, shape (S, dv)
    target : array_like, shape (dv,)
    tol : float
        Positive radius.

    Returns
    -------
    float in [0, 1]
    """
    c = _float_array(outputs, "outputs", 2)
    if c.ndim != 2:
        raise ValueError(f"outputs must have shape (S, dv), got {c.shape}")
    t = _float_array(target, "target", 1)
    if t.shape != (c.shape[1],):
        raise ValueError(f"target must have shape ({c.shape[1]},), got {t.shape}")
    tol = _real(tol, "tol")
    if tol <= 0:
        raise ValueError(f"tol must be positive, got {tol}")
    return float(np.mean(np.linalg.norm(c - t, axis=1) <= tol))
