"""Low-rank approximation by truncated SVD (Eckart–Young–Mirsky); projections."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import as_float_array, check_scalar

__all__ = ["truncated_svd", "best_rank_k", "low_rank_errors", "projection_onto_span"]


def _matrix_and_rank(a: Any, k: int) -> tuple[np.ndarray, int]:
    a = as_float_array(a, "a", ndim=2)
    if a.size == 0:
        raise ValueError(f"a must be a non-empty matrix; got shape {a.shape}")
    k = check_scalar(k, "k", int, min_val=0)
    return a, k


def truncated_svd(a: Any, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``k`` leading singular triplets of ``a``.

    Parameters
    ----------
    a : array_like, shape (m, n)
    k : int
        Number of triplets kept, ``k >= 0``; values above ``min(m, n)`` keep all of
        them.

    Returns
    -------
    u : ndarray, shape (m, r)
    s : ndarray, shape (r,)
        Singular values in decreasing order.
    vt : ndarray, shape (r, n)
        with ``r = min(k, m, n)``, so that ``u @ np.diag(s) @ vt`` is
        :func:`best_rank_k`.

    Examples
    --------
    >>> u, s, vt = truncated_svd(np.diag([3.0, 2.0, 1.0]), 2)
    >>> s
    array([3., 2.])
    >>> u.shape, vt.shape
    ((3, 2), (2, 3))
    """
    a, k = _matrix_and_rank(a, k)
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    r = min(k, s.size)
    return u[:, :r], s[:r], vt[:r]


def best_rank_k(a: Any, k: int) -> np.ndarray:
    """A best approximation of rank at most ``k`` in the spectral and Frobenius norms.

    By the Eckart–Young–Mirsky theorem the truncated SVD ``A_k = Σ_{i<k} σ_i u_i v_iᵀ``
    minimises ``‖A − B‖`` over all ``B`` of rank at most ``k``, in both norms.

    Parameters
    ----------
    a : array_like, shape (m, n)
    k : int
        Target rank, ``k >= 0`` (``k = 0`` gives the zero matrix).

    Returns
    -------
    ndarray, shape (m, n)

    Examples
    --------
    >>> best_rank_k(np.diag([3.0, 2.0, 1.0]), 1)
    array([[3., 0., 0.],
           [0., 0., 0.],
           [0., 0., 0.]])
    """
    u, s, vt = truncated_svd(a, k)
    return (u * s) @ vt  # (m, r) * (r,) scales columns: U diag(s)


def low_rank_errors(a: Any, k: int) -> tuple[float, float]:
    """Errors of the best rank-``k`` approximation, from the singular values alone.

    Returns
    -------
    spectral_error : float
        ``‖A − A_k‖₂ = σ_{k+1}`` (0 when ``k >= rank``).
    frobenius_error : float
        ``‖A − A_k‖_F = sqrt(σ_{k+1}² + σ_{k+2}² + ...)``.

    Examples
    --------
    >>> low_rank_errors(np.diag([3.0, 2.0, 1.0]), 1)  # sigma_2 and sqrt(2**2 + 1**2)
    (2.0, 2.23606797749979)
    """
    a, k = _matrix_and_rank(a, k)
    s = np.linalg.svd(a, compute_uv=False)
    tail = s[k:]
    return (float(tail[0]) if tail.size else 0.0), float(np.sqrt(np.sum(tail**2)))


def projection_onto_span(basis) -> np.ndarray:
    """Orthogonal projection onto the span of the columns of ``basis``.

    For orthonormal columns ``A`` this is ``A A^T``; in general ``A (A^T A)^{-1} A^T``
    (computed through an orthonormal basis of the column space, so dependent columns are
    fine).

    Parameters
    ----------
    basis : array_like, shape (d, m)
        Columns spanning the subspace (``m = 0`` gives the zero matrix).

    Returns
    -------
    projection : ndarray, shape (d, d)
        Symmetric, idempotent, with range the span of the columns.

    Examples
    --------
    >>> projection_onto_span([[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]).round(12)
    array([[1., 0., 0.],
           [0., 0., 0.],
           [0., 0., 0.]])
    """
    a = as_float_array(basis, "basis", ndim_min=2).astype(np.float64, copy=False)
    if a.ndim != 2:
        raise ValueError(
            f"basis must have shape (d, m) with the vectors as columns, got {a.shape}"
        )
    d, m = a.shape
    if m == 0:
        return np.zeros((d, d))
    u, s, _ = np.linalg.svd(a, full_matrices=False)  # u (d, min(d, m))
    rank = (
        int(np.sum(s > s.max() * max(d, m) * np.finfo(float).eps)) if s.max() > 0 else 0
    )
    u = u[:, :rank]  # (d, rank): orthonormal basis of the span
    return u @ u.T
