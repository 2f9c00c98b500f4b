"""Recovering a function from the signature of its time-augmented path.

For the time-augmented path ``X(t) = (t, u(t))``, ``t in [0, 1]`` (letter 0 = time,
letter 1 = value, first letter = earliest time), the signature entries of the words
``0^k 1`` ("time k times, then the
value") are the moments of the measure ``du``::

    S^{0^k 1}(X) = int_0^1 s^k / k! du(s),        k = 0, 1, 2, ...

They determine ``u(t) - u(0)`` for every ``t``; a signature truncated at depth ``N``
holds the first ``N`` of them, i.e. the integrals of ``u'`` against every polynomial of
degree ``< N``. This module turns those numbers into an approximation of ``u - u(0)``:

* in the **monomial** basis (solve a Hilbert system: exact in exact arithmetic, hopeless
  in floating point beyond a dozen terms), or
* in the **orthonormal shifted Legendre** basis
  ``P~_j(s) = sqrt(2 j + 1) P_j(2 s - 1)``, whose Gram matrix is the identity for every
  ``N``: the stored numbers ``c_j = int P~_j du`` are read off and the reconstruction
  ``u'_N = sum_j c_j P~_j`` is the best ``L^2`` approximation of ``u'`` by polynomials
  of degree ``< N``, with
  ``sup_t |(u - u_N)(t)| <= ||u' - u'_N||_2 = (sum_{j >= N} c_j^2)^{1/2}``.

The Fourier connection:
``int_0^1 exp(-2 pi i n s) du(s) = sum_k (-2 pi i n)^k S^{0^k 1}(X)``.

This module computes no signatures itself; it reads the entries it needs from a flat
signature made by :func:`attnsig.signature.signature`, or takes the derivative ``u'``
directly and integrates by Gauss-Legendre quadrature
(:func:`time_moment_terms_from_derivative` for the terms themselves,
:func:`legendre_coefficients_of_derivative` for the stable route).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.polynomial import legendre as npleg

from attnsig.signature import signature_dim, word_index

from ._validation import (
    as_float_array,
    check_callable,
    check_int,
    check_positive_float,
    check_positive_int,
)

__all__ = [
    "legendre_norms",
    "gauss_nodes",
    "time_moment_words",
    "time_moment_terms",
    "time_moment_terms_from_derivative",
    "moments_from_terms",
    "shifted_legendre_monomial_coefficients",
    "legendre_coefficients_from_terms",
    "legendre_coefficients_of_derivative",
    "monomial_coefficients_from_terms",
    "derivative_from_legendre",
    "increment_from_legendre",
    "increment_from_monomial",
    "fourier_coefficient_from_terms",
    "fourier_tail_bound",
    "fourier_coefficients_of_derivative",
    "increment_from_fourier",
    "gram_matrix",
    "monomial_gram_condition",
]

TIME, VALUE = (
    0,
    1,
)  # letters of the time-augmented planar path (time first, as attnsig.signature)


# --------------------------------------------------------------------------------------
# Reading the relevant entries out of a signature
# --------------------------------------------------------------------------------------


def time_moment_words(num_terms: int) -> list[tuple[int, ...]]:
    """The words ``0^k 1``, ``k < num_terms`` (time ``k`` times, then the value).

    The word ``0^k 1`` has length ``k + 1``, so a signature of depth ``N`` holds the
    first ``N`` of them.

    Examples
    --------
    >>> time_moment_words(3)
    [(1,), (0, 1), (0, 0, 1)]
    """
    num_terms = check_positive_int(num_terms, "num_terms")
    return [(TIME,) * k + (VALUE,) for k in range(num_terms)]


def time_moment_terms(sig: Any, depth: int, num_terms: int | None = None) -> np.ndarray:
    """Read ``S^{0^k 1}``, ``k < num_terms``, from the signature of ``(t, u(t))``.

    Parameters
    ----------
    sig : array_like, shape (..., signature_dim(2, depth))
        Flat signature of a time-augmented planar path (channel 0 = time), as returned
        by ``attnsig.signature.signature(path, depth)``.
    depth : int
        Truncation depth of ``sig``.
    num_terms : int, optional
        How many terms to read, at most ``depth`` (the default).

    Returns
    -------
    ndarray, shape (..., num_terms)
        ``terms[..., k] = S^{0^k 1} = int_0^1 s^k / k! du(s)`` when the time channel
        runs over [0, 1].

    Examples
    --------
    >>> from attnsig.signature import signature, time_augment
    >>> path = time_augment(np.linspace(0.0, 1.0, 5)[:, None])  # u(t) = t
    >>> time_moment_terms(signature(path, 3), 3).round(12)  # int s^k / k! ds
    array([1.        , 0.5       , 0.16666667])
    """
    depth = check_positive_int(depth, "depth")
    num_terms = (
        depth if num_terms is None else check_positive_int(num_terms, "num_terms")
    )
    if num_terms > depth:
        raise ValueError(
            f"num_terms must be at most depth = {depth} (the word 0^k 1 has length k "
            "+ 1); "
            f"got num_terms = {num_terms}"
        )
    arr = as_float_array(sig, "sig", ndim_min=1)
    expected = signature_dim(2, depth)
    if arr.shape[-1] != expected:
        raise ValueError(
            f"sig must have signature_dim(2, {depth}) = {expected} entries on its "
            "last axis "
            f"(a planar time-augmented path); got shape {arr.shape}"
        )
    positions = [word_index(w, 2) for w in time_moment_words(num_terms)]
    return arr[..., positions]  # (..., num_terms)


def _as_terms(terms: Any, name: str = "terms") -> np.ndarray:
    arr = as_float_array(terms, name, ndim_min=1)
    if arr.shape[-1] < 1:
        raise ValueError(
            f"{name} must hold at least one term on its last axis; got shape "
            f"{arr.shape}"
        )
    return arr.astype(np.float64, copy=False)


def moments_from_terms(terms: Any) -> np.ndarray:
    """Monomial moments ``m_k = int_0^1 s^k du(s) = k! S^{0^k 1}``.

    Parameters
    ----------
    terms : array_like, shape (..., N)

    Returns
    -------
    ndarray, shape (..., N)

    Examples
    --------
    >>> moments_from_terms([1.0, 0.5, 1 / 6]).round(12)  # int s^k ds for u' = 1
    array([1.        , 0.5       , 0.33333333])
    """
    arr = _as_terms(terms)
    factorials = np.array(
        [math.factorial(k) for k in range(arr.shape[-1])], dtype=np.float64
    )
    return arr * factorials


# --------------------------------------------------------------------------------------
# Legendre basis
# --------------------------------------------------------------------------------------


def shifted_legendre_monomial_coefficients(num_terms: int) -> np.ndarray:
    """Integer coefficients of the shifted Legendre polynomials in powers of ``s``.

    ``P_j(2 s - 1) = sum_k A[j, k] s^k`` with
    ``A[j, k] = (-1)^(j + k) C(j, k) C(j + k, k)``.

    Returns
    -------
    ndarray of Python ints (dtype object), shape (num_terms, num_terms)
        Lower triangular; exact, so it can be used with ``fractions.Fraction``.

    Examples
    --------
    >>> shifted_legendre_monomial_coefficients(3).astype(int)  # P_j(2s - 1) in s^k
    array([[ 1,  0,  0],
           [-1,  2,  0],
           [ 1, -6,  6]])
    """
    num_terms = check_positive_int(num_terms, "num_terms")
    a = np.zeros((num_terms, num_terms), dtype=object)
    for j in range(num_terms):
        for k in range(j + 1):
            a[j, k] = (-1) ** (j + k) * math.comb(j, k) * math.comb(j + k, k)
    return a


def legendre_coefficients_from_terms(terms: Any) -> np.ndarray:
    """Legendre coefficients ``int_0^1 P~_j(s) du(s)`` from the terms ``S^{0^k 1}``.

    ``c_j = sqrt(2 j + 1) sum_k A[j, k] k! S^{0^k 1}`` with the exact integers ``A`` of
    :func:`shifted_legendre_monomial_coefficients`. In exact arithmetic this is the same
    information as
    the terms; in floating point the rounding of the terms is amplified by up to
    ``sqrt(2 j + 1) P_j(3) ~ (3 + 2 sqrt 2)^j`` because the integers alternate in sign
    and cancel.

    Parameters
    ----------
    terms : array_like, shape (..., N)
        ``terms[..., k] = S^{0^k 1}``.

    Returns
    -------
    ndarray, shape (..., N)

    Examples
    --------
    >>> legendre_coefficients_from_terms([1.0, 0.5, 1 / 6]).round(12) + 0.0  # u' = P_0
    array([1., 0., 0.])
    """
    moments = moments_from_terms(terms)  # (..., N)
    n = moments.shape[-1]
    a = shifted_legendre_monomial_coefficients(n).astype(np.float64)  # (N, N)
    scale = legendre_norms(n)  # (N,)
    return np.einsum("jk,...k->...j", a, moments) * scale


def legendre_norms(num_terms: int) -> np.ndarray:
    """``sqrt(2j + 1)``, ``j < num_terms``: unit norms for ``P_j(2s - 1)`` on [0, 1].

    The shifted Legendre polynomial ``P_j(2s - 1)`` has squared norm ``1 / (2j + 1)`` in
    ``L^2[0, 1]``; multiplied by these numbers the polynomials are orthonormal.

    Examples
    --------
    >>> legendre_norms(3) ** 2
    array([1., 3., 5.])
    """
    n = check_positive_int(num_terms, "num_terms")
    return np.sqrt(2.0 * np.arange(n) + 1.0)  # (n,)


def gauss_nodes(num_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [0, 1], exact for degree < ``2 num_nodes``.

    Returns
    -------
    nodes : ndarray, shape (num_nodes,)
    weights : ndarray, shape (num_nodes,)
        ``weights @ f(nodes)`` approximates ``int_0^1 f(s) ds``.

    Examples
    --------
    >>> s, w = gauss_nodes(2)
    >>> round(float(w @ s**3), 15)  # int_0^1 s^3 ds, exact with two nodes
    0.25
    """
    num_nodes = check_positive_int(num_nodes, "num_nodes")
    x, w = npleg.leggauss(num_nodes)
    return (x + 1.0) / 2.0, w / 2.0


def _evaluate_derivative(
    derivative: Callable[[np.ndarray], Any], s: np.ndarray
) -> np.ndarray:
    check_callable(derivative, "derivative", "a callable s -> u'(s) on arrays")
    values = as_float_array(derivative(s), "derivative(s)")
    if values.shape != s.shape:
        raise ValueError(
            f"derivative must return one value per node, shape {s.shape}; got shape "
            f"{values.shape}"
        )
    return values


# Largest k with k! representable in float64; beyond it s^k / k! is formed in
# logarithms.
_MAX_FLOAT_FACTORIAL = 170


def time_moment_terms_from_derivative(
    derivative: Callable[[np.ndarray], Any], num_terms: int, *, num_nodes: int = 200
) -> np.ndarray:
    """The terms ``S^{0^k 1} = int_0^1 s^k / k! u'(s) ds`` by Gauss quadrature.

    These are the entries :func:`time_moment_terms` reads out of the signature of
    ``(t, u(t))``, computed from ``u'`` without forming a path: what a perfect signature
    routine would return, up to the quadrature error and rounding of each term (no
    cancellation between terms).

    Parameters
    ----------
    derivative : callable
        ``derivative(s)`` returns ``u'(s)`` for an array ``s`` of shape (num_nodes,).
    num_terms : int
        Number ``N`` of terms, ``k = 0 .. N - 1``.
    num_nodes : int, default 200
        Gauss-Legendre nodes on [0, 1]; exact (up to rounding) when ``u'`` is a
        polynomial of degree ``< 2 num_nodes - N + 1``.

    Returns
    -------
    ndarray, shape (N,)
        ``terms[k] = S^{0^k 1}``, in the format of :func:`time_moment_terms`.

    Examples
    --------
    >>> time_moment_terms_from_derivative(np.ones_like, 3).round(12)  # u' = 1
    array([1.        , 0.5       , 0.16666667])
    """
    num_terms = check_positive_int(num_terms, "num_terms")
    num_nodes = check_positive_int(num_nodes, "num_nodes")
    s, w = gauss_nodes(num_nodes)
    du = _evaluate_derivative(derivative, s)  # (M,)
    terms = np.empty(num_terms)
    for k in range(num_terms):
        if k <= _MAX_FLOAT_FACTORIAL:
            terms[k] = np.sum(w * s**k / float(math.factorial(k)) * du)
        else:
            # k! overflows; the nodes lie inside (0, 1), so the logarithm is finite
            # s**k / k! in logarithms, not a softmax
            log_term = k * np.log(s) - math.lgamma(k + 1)
            terms[k] = np.sum(w * np.exp(log_term) * du)  # noqa: TID251
    return terms


def legendre_coefficients_of_derivative(
    derivative: Callable[[np.ndarray], Any], num_terms: int, *, num_nodes: int = 200
) -> np.ndarray:
    """Legendre coefficients ``int_0^1 P~_j(s) u'(s) ds`` by Gauss quadrature.

    This is the stable way to fill a Legendre memory: the stored numbers are the same
    linear functionals of the signature as in :func:`legendre_coefficients_from_terms`,
    but evaluated without passing through the monomial terms (no cancellation).

    Parameters
    ----------
    derivative : callable
        ``derivative(s)`` returns ``u'(s)`` for an array ``s`` of shape (num_nodes,).
    num_terms : int
        Number ``N`` of coefficients.
    num_nodes : int, default 200
        Gauss-Legendre nodes on [0, 1]; exact when ``u'`` is a polynomial of degree
        ``< 2 num_nodes - N``.

    Returns
    -------
    ndarray, shape (N,)

    Examples
    --------
    >>> legendre_coefficients_of_derivative(lambda s: 2 * s, 3).round(12) + 0.0
    array([1.        , 0.57735027, 0.        ])
    """
    num_terms = check_positive_int(num_terms, "num_terms")
    num_nodes = check_positive_int(num_nodes, "num_nodes")
    s, w = gauss_nodes(num_nodes)
    du = _evaluate_derivative(derivative, s)  # (M,)
    basis = npleg.legvander(2.0 * s - 1.0, num_terms - 1) * legendre_norms(
        num_terms
    )  # (M, N)
    return basis.T @ (w * du)


def derivative_from_legendre(coeffs: Any, t: Any) -> np.ndarray:
    """Evaluate ``u'_N(t) = sum_j c_j P~_j(t)``.

    Parameters
    ----------
    coeffs : array_like, shape (N,)
    t : array_like, any shape, entries in [0, 1]

    Returns
    -------
    ndarray, same shape as ``t``

    Examples
    --------
    >>> derivative_from_legendre([1.0, 0.0], [0.0, 0.5, 1.0])
    array([1., 1., 1.])
    """
    c = _as_coeffs(coeffs)
    tt = _as_times(t)
    return npleg.legval(2.0 * tt - 1.0, c * legendre_norms(c.size))


def increment_from_legendre(coeffs: Any, t: Any) -> np.ndarray:
    """Evaluate the reconstruction ``u_N(t) - u(0) = sum_j c_j int_0^t P~_j(s) ds``.

    Parameters
    ----------
    coeffs : array_like, shape (N,)
        ``c_j = int_0^1 P~_j du``.
    t : array_like, any shape, entries in [0, 1]

    Returns
    -------
    ndarray, same shape as ``t``

    Examples
    --------
    >>> increment_from_legendre([1.0], [0.0, 0.5, 1.0])  # u' = 1: u(t) - u(0) = t
    array([0. , 0.5, 1. ])
    """
    c = _as_coeffs(coeffs)
    tt = _as_times(t)
    # In x = 2 s - 1: P~_j(s) ds = sqrt(2j+1) P_j(x) dx / 2; integrate the Legendre
    # series from x = -1.
    series = c * legendre_norms(c.size) / 2.0  # (N,)
    antiderivative = npleg.legint(series, lbnd=-1.0)  # (N + 1,), vanishes at x = -1
    return npleg.legval(2.0 * tt - 1.0, antiderivative)


# --------------------------------------------------------------------------------------
# Monomial basis (the ill-conditioned route, kept for comparison)
# --------------------------------------------------------------------------------------


def monomial_coefficients_from_terms(terms: Any) -> np.ndarray:
    """Monomial coefficients of the L^2 projection ``u'_N`` from the terms.

    Solves the normal equations ``H a = m`` with the Hilbert matrix
    ``H[k, l] = 1 / (k + l + 1)`` and the moments ``m_k = k! S^{0^k 1}``. The result
    equals the Legendre reconstruction in exact arithmetic; in floating point
    ``cond(H)`` grows like ``e^{3.5 N}`` and the solution is garbage for ``N`` above
    about 12.

    Parameters
    ----------
    terms : array_like, shape (..., N)

    Returns
    -------
    ndarray, shape (..., N)

    Examples
    --------
    >>> monomial_coefficients_from_terms([1.0, 0.5, 1 / 6]).round(9) + 0.0  # u' = 1
    array([1., 0., 0.])
    """
    moments = moments_from_terms(terms)  # (..., N)
    n = moments.shape[-1]
    k = np.arange(n)
    hilbert = 1.0 / (k[:, None] + k[None, :] + 1.0)  # (N, N)
    return np.linalg.solve(hilbert, moments[..., None])[..., 0]  # (..., N)


def increment_from_monomial(coeffs: Any, t: Any) -> np.ndarray:
    """The increment ``sum_k a_k t^(k+1) / (k+1)`` of ``u'_N(s) = sum_k a_k s^k``.

    Parameters
    ----------
    coeffs : array_like, shape (N,)
    t : array_like, any shape, entries in [0, 1]

    Returns
    -------
    ndarray, same shape as ``t``

    Examples
    --------
    >>> increment_from_monomial([0.0, 2.0], [0.0, 0.5, 1.0])  # u' = 2s: increment t^2
    array([0.  , 0.25, 1.  ])
    """
    a = _as_coeffs(coeffs)
    tt = _as_times(t)
    integrated = np.concatenate(
        [[0.0], a / np.arange(1.0, a.size + 1.0)]
    )  # coefficients of t^0..t^N
    return np.polynomial.polynomial.polyval(tt, integrated)


# --------------------------------------------------------------------------------------
# Fourier connection
# --------------------------------------------------------------------------------------


def fourier_coefficient_from_terms(terms: Any, frequency: int) -> np.ndarray:
    """Partial sum ``sum_{k<N} (-2 pi i n)^k S^{0^k 1}`` of a Fourier coefficient.

    The full series equals ``int_0^1 exp(-2 pi i n s) u'(s) ds`` (expand the exponential
    and use ``S^{0^k 1} = int s^k / k! du``); the truncation error is at most
    :func:`fourier_tail_bound`.

    Parameters
    ----------
    terms : array_like, shape (..., N)
    frequency : int
        The frequency ``n`` (any integer, also 0 or negative).

    Returns
    -------
    ndarray of complex, shape (...)

    Examples
    --------
    >>> terms = time_moment_terms_from_derivative(np.ones_like, 40)  # u' = 1
    >>> coefficient = complex(fourier_coefficient_from_terms(terms, 1))
    >>> abs(coefficient) < 1e-12  # int e^{-2 pi i s} ds = 0
    True
    """
    arr = _as_terms(terms)
    n = check_int(frequency, "frequency")
    powers = (-2j * np.pi * n) ** np.arange(arr.shape[-1])  # (N,)
    return arr @ powers


def fourier_tail_bound(num_terms: int, frequency: int, total_variation: float) -> float:
    """Error bound of :func:`fourier_coefficient_from_terms` with ``num_terms``.

    ``|S^{0^k 1}| <= ||u'||_1 / k!`` gives the bound ``||u'||_1 sum_{k >= N} x^k / k!``
    with ``x = 2 pi |n|`` (the tail of the exponential series ``e^x``).

    Parameters
    ----------
    num_terms : int
    frequency : int
    total_variation : float
        ``||u'||_1 = int_0^1 |u'(s)| ds`` (any upper bound for it).

    Examples
    --------
    >>> fourier_tail_bound(40, 1, 1.0) < 1e-10
    True
    """
    num_terms = check_positive_int(num_terms, "num_terms")
    n = check_int(frequency, "frequency")
    total_variation = check_positive_float(
        total_variation, "total_variation", allow_zero=True
    )
    x = 2.0 * np.pi * abs(n)
    if x == 0.0:
        return 0.0
    # Sum the tail term by term from k = N (in logs for the first term, to avoid
    # overflow in x^N / N!).
    log_term = num_terms * math.log(x) - math.lgamma(num_terms + 1)
    term = math.exp(log_term)  # noqa: TID251 - x^N / N!, not a softmax
    tail, k = 0.0, num_terms
    while term > 1e-18 * tail or k <= x:
        tail += term
        k += 1
        term *= x / k
    return float(total_variation * tail)


def fourier_coefficients_of_derivative(
    derivative: Callable[[np.ndarray], Any], max_frequency: int, *, num_nodes: int = 400
) -> np.ndarray:
    """Fourier coefficients of ``u'`` for ``n = -K .. K`` by Gauss quadrature.

    Returns
    -------
    ndarray of complex, shape (2 K + 1,)
        Entry ``K + n`` holds frequency ``n``.

    Examples
    --------
    >>> c = fourier_coefficients_of_derivative(np.ones_like, 1)  # n = -1, 0, 1
    >>> np.abs(c).round(12)
    array([0., 1., 0.])
    """
    max_frequency = check_positive_int(max_frequency, "max_frequency", minimum=0)
    num_nodes = check_positive_int(num_nodes, "num_nodes")
    s, w = gauss_nodes(num_nodes)
    du = _evaluate_derivative(derivative, s)  # (M,)
    n = np.arange(-max_frequency, max_frequency + 1)  # (2K+1,)
    phases = np.exp(-2j * np.pi * n[:, None] * s[None, :])  # noqa: TID251 - Fourier
    return phases @ (w * du)


def increment_from_fourier(coeffs: Any, t: Any) -> np.ndarray:
    """The increment of ``u`` from its Fourier coefficients (the real part).

    This is ``int_0^t`` of the truncated Fourier series of ``u'``; for real ``u`` the
    coefficients satisfy ``c_{-n} = conj(c_n)`` and the sum is real, so the real part is
    returned.

    Parameters
    ----------
    coeffs : array_like of complex, shape (2 K + 1,)
        Entry ``K + n`` holds frequency ``n``.
    t : array_like, any shape, entries in [0, 1]

    Returns
    -------
    ndarray, same shape as ``t``

    Examples
    --------
    >>> c = fourier_coefficients_of_derivative(np.ones_like, 2)  # u' = 1
    >>> increment_from_fourier(c, [0.0, 1.0]).round(12) + 0.0
    array([0., 1.])
    """
    c = np.asarray(coeffs)
    if c.ndim != 1 or c.size % 2 != 1:
        raise ValueError(
            "coeffs must be a 1-d array of odd length 2K+1 (frequencies -K..K); got "
            f"shape {c.shape}"
        )
    if not np.issubdtype(c.dtype, np.number) or not np.all(np.isfinite(c)):
        raise ValueError("coeffs must hold finite numbers")
    tt = _as_times(t)
    k = c.size // 2
    n = np.arange(-k, k + 1)  # (2K+1,)
    nonzero = n != 0
    # (..., 2K) Fourier phases, not a softmax
    phases = np.exp(2j * np.pi * n[nonzero] * tt[..., None])  # noqa: TID251
    oscillating = ((phases - 1.0) / (2j * np.pi * n[nonzero])) @ c[nonzero]  # (...)
    return (c[k] * tt + oscillating).real


# --------------------------------------------------------------------------------------
# Conditioning
# --------------------------------------------------------------------------------------

_BASES = ("monomial", "signature", "bernstein", "legendre")


def _basis_values(basis: str, n: int, s: np.ndarray) -> np.ndarray:
    """Values of the first ``n`` basis functions at ``s``, shape (len(s), n)."""
    k = np.arange(n)
    if basis == "monomial":
        return s[:, None] ** k
    if basis == "signature":  # the kernels s^k / k! of the terms S^{0^k 1}
        factorials = np.array([math.factorial(j) for j in range(n)], dtype=np.float64)
        return s[:, None] ** k / factorials
    if basis == "bernstein":
        binomials = np.array([math.comb(n - 1, j) for j in range(n)], dtype=np.float64)
        return binomials * s[:, None] ** k * (1.0 - s[:, None]) ** (n - 1 - k)
    return npleg.legvander(2.0 * s - 1.0, n - 1) * legendre_norms(n)


def gram_matrix(basis: str, num_terms: int) -> np.ndarray:
    """Gram matrix ``int_0^1 b_j b_k ds`` of a polynomial basis of degree ``< N``.

    Parameters
    ----------
    basis : {"monomial", "signature", "bernstein", "legendre"}
        ``s^k``; ``s^k / k!`` (the kernels of the signature terms); the Bernstein
        polynomials of degree ``num_terms - 1``; the orthonormal shifted Legendre
        polynomials.
    num_terms : int

    Returns
    -------
    ndarray, shape (num_terms, num_terms)
        Computed by Gauss quadrature, exact up to rounding (the identity for
        ``"legendre"``).

    Examples
    --------
    >>> gram_matrix("monomial", 2)  # int s^(j + k) ds
    array([[1.        , 0.5       ],
           [0.5       , 0.33333333]])
    """
    if basis not in _BASES:
        raise ValueError(f"basis must be one of {_BASES}; got {basis!r}")
    num_terms = check_positive_int(num_terms, "num_terms")
    s, w = gauss_nodes(num_terms + 1)  # exact for degree <= 2 num_terms + 1
    values = _basis_values(basis, num_terms, s)  # (M, N)
    return values.T @ (w[:, None] * values)


def monomial_gram_condition(num_terms: int) -> float:
    """Spectral condition number of the Hilbert matrix ``1 / (k + l + 1)``, k, l < N.

    ``np.linalg.cond`` saturates near ``1e17`` in double precision. Here ``H`` is
    symmetric positive definite, so ``cond = lambda_max(H) lambda_max(H^{-1})``; both
    largest eigenvalues are well conditioned, and ``H^{-1}`` has a closed form with
    integer entries.

    Examples
    --------
    >>> round(monomial_gram_condition(2), 4)  # the 2 x 2 Hilbert matrix
    19.2815
    """
    n = check_positive_int(num_terms, "num_terms")
    k = np.arange(n)
    hilbert = 1.0 / (k[:, None] + k[None, :] + 1.0)  # (N, N)
    inverse = np.empty((n, n), dtype=np.float64)
    for i in range(n):
        for j in range(n):
            entry = (
                (-1) ** (i + j)
                * (i + j + 1)
                * math.comb(n + i, n - j - 1)
                * math.comb(n + j, n - i - 1)
                * math.comb(i + j, i) ** 2
            )
            inverse[i, j] = float(entry)
    return float(np.linalg.eigvalsh(hilbert)[-1] * np.linalg.eigvalsh(inverse)[-1])


# --------------------------------------------------------------------------------------
# Small checks
# --------------------------------------------------------------------------------------


def _as_coeffs(coeffs: Any) -> np.ndarray:
    c = as_float_array(coeffs, "coeffs", ndim=1).astype(np.float64, copy=False)
    if c.size == 0:
        raise ValueError(
            "coeffs must hold at least one coefficient; got an empty array"
        )
    return c


def _as_times(t: Any) -> np.ndarray:
    tt = as_float_array(t, "t").astype(np.float64, copy=False)
    if np.any((tt < 0.0) | (tt > 1.0)):
        raise ValueError(
            f"t must lie in [0, 1] (the time-augmented path runs over [0, 1]); "
            f"got values in [{tt.min()}, {tt.max()}]"
        )
    return tt
