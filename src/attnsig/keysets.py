"""Key sets for the attention exercises: structured, adversarial, random and noisy keys.

* deterministic and random sets that satisfy the assumptions of "Attention bounds":
  :func:`orthonormal_keys`, :func:`adversarial_copy_keys` (at the edge of the copying
  assumption), :func:`random_copy_keys`, and the noisy first key ``k_1 = c u`` of
  :func:`noisy_keys`;
* Gaussian keys ``k_i ~ N(mu_i, Sigma_i)`` of "Self-Attention and Transformers":
  :func:`noisy_key_covariances` builds the sheet's covariances, :func:`sample_keys`
  draws many key sets at once.

Randomness always comes from a ``numpy.random.Generator`` passed as ``rng`` (seed it for
reproducible draws). Keys are rows; indices are 0-based (the sheet's ``k_1`` is
``keys[0]``).
"""

from __future__ import annotations

import math

import numpy as np

from ._deprecated import renamed as _renamed
from ._validation import as_float64_array, check_rng, check_scalar

__all__ = [
    "orthonormal_keys",
    "adversarial_copy_keys",
    "random_copy_keys",
    "noisy_keys",
    "noisy_key_covariances",
    "sample_keys",
]


def adversarial_copy_keys(num_keys: int, dim: int) -> np.ndarray:
    """Unit keys at the edge of the copying assumption: the worst case for copying.

    ``k_1 = e_0`` and ``k_i = e_0 / 2 + (sqrt(3)/2) w_i`` for ``i >= 2``, with the
    ``w_i`` evenly spaced on the unit circle of the plane ``span(e_1, e_2)``.  Every
    distractor is at distance exactly 1 from ``k_1``, and for ``n >= 3`` the ``w_i`` sum
    to zero, which forces the query length ``2 ln((n-1)/eps)`` (see
    :func:`attnsig.bounds.copy_worst_case_length`).

    Parameters
    ----------
    num_keys : int >= 1
    dim : int, at least 2, and at least 3 when ``num_keys >= 4``

    Returns
    -------
    numpy.ndarray, shape (num_keys, dim)

    Examples
    --------
    >>> keys = adversarial_copy_keys(4, 3)
    >>> np.linalg.norm(keys, axis=1).round(12)
    array([1., 1., 1., 1.])
    >>> np.linalg.norm(keys[1:] - keys[0], axis=1).round(12)  # all at distance 1
    array([1., 1., 1.])
    """
    n = check_scalar(num_keys, "num_keys", int, min_val=1)
    d = check_scalar(dim, "dim", int, min_val=2)
    if n >= 4 and d < 3:
        raise ValueError(
            f"dim must be at least 3 for num_keys >= 4 (the distractors need a plane "
            f"orthogonal to k_1); got dim={d}"
        )
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
    """Random unit keys with ``||k_1 - k_i|| >= 1``, i.e. ``<k_1, k_i> <= 1/2``.

    ``k_1`` is uniform on the sphere; each other key has cosine with ``k_1`` uniform in
    ``[-1, 1/2]`` and a uniformly random direction orthogonal to ``k_1``.

    Returns
    -------
    numpy.ndarray, shape (num_keys, dim)

    Examples
    --------
    >>> keys = random_copy_keys(5, 3, np.random.default_rng(0))
    >>> bool((keys[1:] @ keys[0] <= 0.5 + 1e-12).all())  # ||k_1 - k_i|| >= 1
    True
    """
    n = check_scalar(num_keys, "num_keys", int, min_val=1)
    d = check_scalar(dim, "dim", int, min_val=2)
    rng = check_rng(rng)
    k1 = rng.standard_normal(d)
    k1 /= np.linalg.norm(k1)
    cosines = rng.uniform(-1.0, 0.5, size=n - 1)  # (n-1,)
    perp = rng.standard_normal((n - 1, d))
    perp -= np.outer(perp @ k1, k1)  # remove the k_1 component
    perp /= np.linalg.norm(perp, axis=1, keepdims=True)
    others = (
        cosines[:, None] * k1 + np.sqrt(1.0 - cosines**2)[:, None] * perp
    )  # (n-1, d)
    return np.vstack([k1, others])


def orthonormal_keys(num_keys: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """``num_keys`` random orthonormal keys in ``R^dim`` (rows), by QR.

    Returns
    -------
    numpy.ndarray, shape (num_keys, dim)

    Examples
    --------
    >>> keys = orthonormal_keys(3, 5, np.random.default_rng(0))
    >>> np.allclose(keys @ keys.T, np.eye(3))
    True
    """
    n = check_scalar(num_keys, "num_keys", int, min_val=1)
    d = check_scalar(dim, "dim", int, min_val=1)
    if n > d:
        raise ValueError(
            f"num_keys must be at most dim for orthonormal keys; got num_keys={n}, "
            f"dim={d}"
        )
    return _orthonormal_keys(n, d, check_rng(rng))


def _orthonormal_keys(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`orthonormal_keys` of checked arguments, ``n <= d``: shape (n, d)."""
    q, _ = np.linalg.qr(rng.standard_normal((d, n)))  # (d, n), orthonormal columns
    return q.T.copy()  # (n, d)


def noisy_keys(
    num_keys: int, c: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Orthogonal keys ``k_1 = c u``, ``k_2, ..., k_n`` (unit): a first key of length c.

    Parameters
    ----------
    num_keys : int >= 2
    c : float > 0, the length of the first key
    rng : numpy.random.Generator

    Returns
    -------
    keys : numpy.ndarray, shape (num_keys, num_keys + 1)
    u : numpy.ndarray, shape (num_keys + 1,), the unit direction of the first key

    Examples
    --------
    >>> keys, u = noisy_keys(3, 0.5, np.random.default_rng(0))
    >>> np.linalg.norm(keys, axis=1).round(12)
    array([0.5, 1. , 1. ])
    >>> np.allclose(keys[0], 0.5 * u)
    True
    """
    n = check_scalar(num_keys, "num_keys", int, min_val=2)
    c = check_scalar(c, "c", min_val=0, include_boundaries="right")
    basis = _orthonormal_keys(n, n + 1, check_rng(rng))  # (n, n + 1)
    keys = basis.copy()
    keys[0] = c * basis[0]
    return keys, basis[0].copy()


def noisy_key_covariances(
    means, alpha: float, index: int | None = None, spread: float = 0.5
) -> np.ndarray:
    """Covariances ``alpha I``, plus ``spread * mu_a mu_a^T`` for one key ``a``.

    This is the noisy-key model of the exercises: key ``a = index`` keeps its direction
    but its length along ``mu_a`` varies (variance ``alpha + spread * ||mu_a||^2`` along
    it).

    Parameters
    ----------
    means : array_like, shape (n, d)
    alpha : float
        Isotropic variance, ``alpha >= 0``.
    index : int or None
        The key with the extra variance; None gives all keys ``alpha I``.
    spread : float, default 0.5
        Coefficient of ``mu_a mu_a^T``, ``>= 0`` (0.5 in the sheet).

    Returns
    -------
    covariances : ndarray, shape (n, d, d)

    Examples
    --------
    >>> noisy_key_covariances([[2.0, 0.0], [0.0, 1.0]], 0.1, index=0)[0]
    array([[2.1, 0. ],
           [0. , 0.1]])
    """
    mu = as_float64_array(means, "means", ndim_min=2)
    if mu.ndim != 2:
        raise ValueError(f"means must have shape (n, d), got shape {mu.shape}")
    alpha = check_scalar(alpha, "alpha", min_val=0)
    spread = check_scalar(spread, "spread", min_val=0)
    n, d = mu.shape
    cov = np.broadcast_to(alpha * np.eye(d), (n, d, d)).copy()  # (n, d, d)
    if index is not None:
        a = check_scalar(
            index, "index", int, min_val=0, max_val=n, include_boundaries="left"
        )
        cov[a] += spread * np.outer(mu[a], mu[a])
    return cov


def _psd_sqrt(cov: np.ndarray) -> np.ndarray:
    """Symmetric square roots of positive semi-definite matrices (..., d, d)."""
    eigvals, eigvecs = np.linalg.eigh(cov)  # (..., d), (..., d, d)
    # Round-off turns an exact zero eigenvalue into +-1e-17, whose square root (3e-9)
    # would add spurious noise in directions of zero variance: treat eigenvalues that
    # small as zero.
    cutoff = (
        cov.shape[-1]
        * np.finfo(float).eps
        * np.abs(eigvals).max(axis=-1, keepdims=True)
    )
    scale = np.sqrt(np.where(eigvals > cutoff, eigvals, 0.0))
    return (eigvecs * scale[..., None, :]) @ np.swapaxes(eigvecs, -1, -2)  # (..., d, d)


def sample_keys(
    means, covariances, num_samples: int, rng: np.random.Generator
) -> np.ndarray:
    """Draw ``num_samples`` independent sets of keys ``k_i ~ N(mu_i, Sigma_i)``.

    Parameters
    ----------
    means : array_like, shape (n, d)
    covariances : array_like, shape (n, d, d) or (d, d)
        Symmetric positive semi-definite (``(d, d)`` is shared by all keys). Zero
        variance is allowed (the key is then its mean).
    num_samples : int
        ``S``.
    rng : numpy.random.Generator
        The source of randomness (seed it for reproducible draws).

    Returns
    -------
    keys : ndarray, shape (S, n, d)

    Examples
    --------
    >>> keys = sample_keys(np.eye(2), np.zeros((2, 2)), 3, np.random.default_rng(0))
    >>> keys.shape  # zero covariance: every draw is the mean
    (3, 2, 2)
    >>> bool((keys == np.eye(2)).all())
    True
    """
    mu = as_float64_array(means, "means", ndim_min=2)
    if mu.ndim != 2:
        raise ValueError(f"means must have shape (n, d), got shape {mu.shape}")
    n, d = mu.shape
    cov = as_float64_array(covariances, "covariances", ndim_min=2)
    if cov.shape == (d, d):
        cov = np.broadcast_to(cov, (n, d, d))
    if cov.shape != (n, d, d):
        raise ValueError(
            f"covariances must have shape ({n}, {d}, {d}) or ({d}, {d}), "
            f"got {cov.shape}"
        )
    if not np.allclose(cov, np.swapaxes(cov, -1, -2), atol=1e-12):
        raise ValueError("covariances must be symmetric")
    if np.linalg.eigvalsh(cov).min() < -1e-10 * max(1.0, float(np.abs(cov).max())):
        raise ValueError(
            "covariances must be positive semi-definite, got a negative eigenvalue"
        )
    S = check_scalar(num_samples, "num_samples", int, min_val=1)
    rng = check_rng(rng)
    root = _psd_sqrt(cov)  # (n, d, d), root @ root.T = cov
    z = rng.standard_normal((S, n, d))  # (S, n, d)
    return mu + np.einsum("nij,snj->sni", root, z)  # (S, n, d)


# Release 0.1.0's names, kept as thin deprecated aliases (CHANGELOG.md, "Deprecated").
__getattr__ = _renamed(
    __name__,
    globals(),
    {
        "noisy_key_set": "noisy_keys",
    },
)
