"""Queries built to make a head copy one value, average two, or survive a noisy key.

Every construction takes the keys (rows of ``keys``, shape ``(n, d)``), the chosen
key(s) by 0-based position (``index`` for one, ``indices`` for a pair) and an accuracy
``epsilon``; each docstring states the guarantee, which is one of two kinds:

* the **gap constructions** of "Self-Attention and Transformers"
  (:func:`copy_query_by_gap`, :func:`average_query_by_gap`, built on
  :func:`query_for_scores`) work for any linearly independent keys and leave at most
  ``epsilon`` of the weight outside the chosen keys (weight ``>= 1 - epsilon`` when
  copying);
* the **length constructions** of "Attention bounds" (:func:`copy_query`,
  :func:`average_query`, :func:`noisy_average_query`, :func:`two_head_queries`) are
  multiples of the keys themselves, for unit keys under the sheet's assumptions, and
  give each chosen key weight ``>= 1/(1 + epsilon)`` (``>= 1/(2 + epsilon)`` when
  averaging).

Scores are unscaled, ``s_i = <k_i, q>``, as in both sheets. The sheet's ``k_1`` is
``keys[0]``. The gaps and the smallest lengths are in :mod:`attnsig.bounds`.
"""

from __future__ import annotations

import math

import numpy as np

from . import bounds
from ._validation import (
    as_float_array,
    as_matrix,
    as_vector,
    check_indices,
    check_scalar,
)

__all__ = [
    "query_for_scores",
    "copy_query_by_gap",
    "average_query_by_gap",
    "copy_query",
    "average_query",
    "noisy_average_query",
    "two_head_queries",
]


# ------------------------------------------------------------------------- by score gap
def query_for_scores(keys, scores) -> np.ndarray:
    """A query ``q`` with ``keys @ q = scores``, for linearly independent keys.

    Uses the minimum-norm solution ``q = pinv(keys) @ scores``.

    Parameters
    ----------
    keys : array_like, shape (n, d)
        Rows must be linearly independent (so ``n <= d``); otherwise not every score
        vector can be realised and a ``ValueError`` is raised.
    scores : array_like, shape (n,)

    Returns
    -------
    query : ndarray, shape (d,)

    Examples
    --------
    >>> query_for_scores([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]], [3.0, 4.0]).round(12)
    array([3., 2., 0.])
    """
    k = as_float_array(keys, "keys", ndim_min=2).astype(np.float64, copy=False)
    if k.ndim != 2:
        raise ValueError(f"keys must have shape (n, d), got shape {k.shape}")
    s = as_float_array(scores, "scores", ndim_min=1).astype(np.float64, copy=False)
    if s.shape != (k.shape[0],):
        raise ValueError(
            f"scores must have shape ({k.shape[0]},), one per key, got {s.shape}"
        )
    return _query_for_scores(k, s)


def _query_for_scores(k: np.ndarray, s: np.ndarray) -> np.ndarray:
    """:func:`query_for_scores` of checked keys (n, d) and scores (n,): shape (d,)."""
    n, d = k.shape
    rank = np.linalg.matrix_rank(k)
    if rank < n:
        raise ValueError(
            f"keys must be linearly independent (rank {n}) to realise any scores; "
            f"got {n} keys of dimension {d} with rank {rank}"
        )
    return np.linalg.pinv(k) @ s  # (d,)


def copy_query_by_gap(keys, index: int, epsilon: float) -> np.ndarray:
    """A query that puts weight at least ``1 - epsilon`` on key ``index``.

    The query gives key ``index`` the score ``bounds.copy_gap(n, epsilon)`` and every
    other key the score 0. For orthonormal keys this is
    ``copy_gap(n, epsilon) * keys[index]``.

    Parameters
    ----------
    keys : array_like, shape (n, d)
        Linearly independent rows.
    index : int
        The key to copy, ``0 <= index < n``.
    epsilon : float
        Tolerated weight on the other keys, ``0 < epsilon < 1``.

    Returns
    -------
    query : ndarray, shape (d,)

    Examples
    --------
    >>> from attnsig.heads import attention_weights
    >>> q = copy_query_by_gap(np.eye(3), 1, 0.01)
    >>> attention_weights(q, np.eye(3)).round(3)
    array([0.005, 0.99 , 0.005])
    """
    k = as_matrix(keys, "keys")
    n = k.shape[0]
    j = check_scalar(
        index, "index", int, min_val=0, max_val=n, include_boundaries="left"
    )
    target = np.zeros(n)
    target[j] = bounds.copy_gap(n, epsilon)
    return _query_for_scores(k, target)


def average_query_by_gap(keys, indices, epsilon: float) -> np.ndarray:
    """A query splitting the weight equally between two keys, ``indices = (a, b)``.

    Both keys get the score ``bounds.subset_gap(n, 2, epsilon)``, all others 0, so each
    of the two gets weight ``(1 - w) / 2`` with outside weight ``w <= epsilon``. For
    orthonormal keys this is ``subset_gap(n, 2, epsilon) * (keys[a] + keys[b])``.

    Parameters
    ----------
    keys : array_like, shape (n, d)
        Linearly independent rows, ``n >= 2``.
    indices : pair of int
        Two different key indices.
    epsilon : float
        Tolerated weight outside the pair, ``0 < epsilon < 1``.

    Returns
    -------
    query : ndarray, shape (d,)

    Examples
    --------
    >>> from attnsig.heads import attention_weights
    >>> q = average_query_by_gap(np.eye(4), (0, 2), 0.02)
    >>> attention_weights(q, np.eye(4)).round(3)
    array([0.49, 0.01, 0.49, 0.01])
    """
    k = as_matrix(keys, "keys")
    n = k.shape[0]
    a, b = check_indices(indices, n, "indices", count=2)
    target = np.zeros(n)
    target[[a, b]] = bounds.subset_gap(n, 2, epsilon)
    return _query_for_scores(k, target)


# ---------------------------------------------------------------------------- by length
def copy_query(keys, index: int, epsilon: float) -> np.ndarray:
    """Query ``2 ln(n/epsilon) k_index`` that copies the value of one key.

    If every key has unit norm and ``||k_index - k_i|| >= 1`` for ``i != index``, the
    weight on key ``index`` is at least ``1/(1 + epsilon)`` (theorem ``thm-bounds-copy``
    of the book).

    Parameters
    ----------
    keys : array_like, shape (n, d)
    index : int
        The key to copy, ``0 <= index < n``.
    epsilon : float in (0, 1)

    Returns
    -------
    numpy.ndarray, shape (d,)

    Examples
    --------
    >>> from attnsig.heads import attention_weights
    >>> q = copy_query(np.eye(3), 0, 0.1)
    >>> bool(attention_weights(q, np.eye(3))[0] >= 1 / 1.1)
    True
    """
    k = as_matrix(keys, "keys")
    j = check_scalar(
        index, "index", int, min_val=0, max_val=k.shape[0], include_boundaries="left"
    )
    eps = check_scalar(
        epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="neither"
    )
    return 2.0 * math.log(k.shape[0] / eps) * k[j]


def average_query(keys, indices, epsilon: float) -> np.ndarray:
    """Query ``ln(n/epsilon) (k_a + k_b)`` that averages the values of two keys.

    For orthonormal keys both weights are at least ``1/(2 + epsilon)``.

    Parameters
    ----------
    keys : array_like, shape (n, d), n >= 2
    indices : pair of distinct int, ``(a, b)``
    epsilon : float in (0, 1)

    Returns
    -------
    numpy.ndarray, shape (d,)

    Examples
    --------
    >>> from attnsig.heads import attention_weights
    >>> w = attention_weights(average_query(np.eye(3), (0, 1), 0.1), np.eye(3))
    >>> bool(min(w[0], w[1]) >= 1 / 2.1)
    True
    """
    k = as_matrix(keys, "keys")
    a, b = check_indices(indices, k.shape[0], "indices", count=2)
    eps = check_scalar(
        epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="neither"
    )
    return math.log(k.shape[0] / eps) * (k[a] + k[b])


def noisy_average_query(
    direction, second_key, num_keys: int, epsilon: float
) -> np.ndarray:
    """The single-head query ``ln(n/epsilon) (u + k_2)`` for a noisy key ``c u``.

    Parameters
    ----------
    direction : array_like, shape (d,)
        The unit direction ``u`` of the noisy first key.
    second_key : array_like, shape (d,)
        The key ``k_2``.
    num_keys : int
        The number ``n >= 2`` of keys.
    epsilon : float in (0, 1)

    Returns
    -------
    numpy.ndarray, shape (d,)

    Examples
    --------
    >>> noisy_average_query([1.0, 0.0], [0.0, 1.0], 2, 0.5).round(6)
    array([1.386294, 1.386294])
    """
    u = as_vector(direction, "direction")
    k2 = as_vector(second_key, "second_key", dim=u.shape[0])
    n = check_scalar(num_keys, "num_keys", int, min_val=2)
    eps = check_scalar(
        epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="neither"
    )
    return math.log(n / eps) * (u + k2)


def two_head_queries(
    direction, second_key, num_keys: int, epsilon: float, c_min: float = 0.5
) -> np.ndarray:
    """Queries of two heads whose averaged outputs approximate ``(v_1 + v_2)/2``.

    Head 1 looks along ``u`` with length ``ln(n/epsilon)/c_min``; head 2 looks along
    ``k_2`` with length ``ln(n/epsilon)``. When the noisy key is ``k_1 = c u`` with
    ``c >= c_min`` and the keys are orthogonal (unit norm except ``k_1``), each head
    puts weight at least ``1/(1 + epsilon)`` on its own key. ``c_min = 1`` reproduces
    the original sheet's choice, which fails for ``c = 1/2``.

    Parameters
    ----------
    direction : array_like, shape (d,)
        The unit vector ``u``.
    second_key : array_like, shape (d,)
        The key ``k_2``.
    num_keys : int
        The number ``n >= 2`` of keys.
    epsilon : float in (0, 1)
    c_min : float > 0
        The smallest possible scale of the noisy key.

    Returns
    -------
    numpy.ndarray, shape (2, d)
        Row 0 is the query of head 1, row 1 the query of head 2.

    Examples
    --------
    >>> two_head_queries([1.0, 0.0], [0.0, 1.0], 2, 0.5, c_min=0.5).round(6)
    array([[2.772589, 0.      ],
           [0.      , 1.386294]])
    """
    u = as_vector(direction, "direction")
    k2 = as_vector(second_key, "second_key", dim=u.shape[0])
    n = check_scalar(num_keys, "num_keys", int, min_val=2)
    eps = check_scalar(
        epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="neither"
    )
    c_min = check_scalar(c_min, "c_min", min_val=0, include_boundaries="right")
    t = math.log(n / eps)
    return np.stack([t / c_min * u, t * k2])  # (2, d)
