"""Tests of attnsig.reconstruction: recovering u from the signature of (t, u(t))."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial import legendre as npleg

from attnsig import reconstruction as rec
from attnsig.signature import signature, time_augment

GAUSS_X, GAUSS_W = npleg.leggauss(200)
NODES, WEIGHTS = (
    (GAUSS_X + 1) / 2,
    GAUSS_W / 2,
)  # Gauss-Legendre on [0, 1], the test's own oracle


def quad(values: np.ndarray) -> float:
    return float(WEIGHTS @ values)


def terms_by_quadrature(du, num_terms: int) -> np.ndarray:
    """Independent oracle: S^{0^k 1} = int_0^1 s^k / k! u'(s) ds by Gauss quadrature."""
    return np.array(
        [quad(NODES**k / math.factorial(k) * du(NODES)) for k in range(num_terms)]
    )


def smooth_du(s):
    return 6 * np.cos(6 * s) + 2.0 / (1 + (2 * s - 1) ** 2)


def smooth_u(t):
    return np.sin(6 * t) + np.arctan(2 * t - 1)


# ------------------------------------------------------------------ small cases known
# by hand


def test_words_and_terms_of_a_parabola():
    assert rec.time_moment_words(3) == [(1,), (0, 1), (0, 0, 1)]
    # u(t) = t^2: S^{0^k 1} = int s^k / k! 2 s ds = 2 / (k! (k + 2)).
    terms = np.array([2 / (math.factorial(k) * (k + 2)) for k in range(4)])
    np.testing.assert_allclose(
        rec.moments_from_terms(terms), [2 / (k + 2) for k in range(4)], rtol=1e-15
    )
    coeffs = rec.legendre_coefficients_from_terms(terms)
    # u' = 2 s = P~_0 + P~_1 / sqrt(3): c = (1, 1/sqrt 3, 0, 0).
    np.testing.assert_allclose(coeffs, [1, 1 / math.sqrt(3), 0, 0], atol=1e-13)
    t = np.linspace(0, 1, 11)
    np.testing.assert_allclose(
        rec.increment_from_legendre(coeffs[:2], t), t**2, atol=1e-14
    )
    np.testing.assert_allclose(
        rec.derivative_from_legendre(coeffs[:2], t), 2 * t, atol=1e-14
    )
    a = rec.monomial_coefficients_from_terms(terms[:2])
    np.testing.assert_allclose(a, [0, 2], atol=1e-12)
    np.testing.assert_allclose(rec.increment_from_monomial(a, t), t**2, atol=1e-12)


def test_shifted_legendre_integers_are_exactly_orthogonal():
    a = rec.shifted_legendre_monomial_coefficients(7)
    for i in range(7):
        assert a[i, 0] == (-1) ** i  # P_i(-1)
        assert sum(a[i, :]) == 1  # P_i(1)
        for j in range(7):
            inner = sum(
                Fraction(a[i, p] * a[j, q], p + q + 1)
                for p in range(7)
                for q in range(7)
            )
            assert inner == (Fraction(1, 2 * i + 1) if i == j else 0)


def test_fourier_increment_of_a_cosine():
    # u'(s) = 1 + cos(2 pi s): coefficients c_0 = 1, c_{+-1} = 1/2, so u(t) - u(0) = t +
    # sin(2 pi t)/(2 pi).
    t = np.linspace(0, 1, 9)
    got = rec.increment_from_fourier(np.array([0.5, 1.0, 0.5]), t)
    np.testing.assert_allclose(got, t + np.sin(2 * np.pi * t) / (2 * np.pi), atol=1e-15)
    direct = rec.fourier_coefficients_of_derivative(
        lambda s: 1 + np.cos(2 * np.pi * s), 2
    )
    np.testing.assert_allclose(direct, [0, 0.5, 1, 0.5, 0], atol=1e-12)


def test_gram_matrices():
    k = np.arange(6)
    np.testing.assert_allclose(
        rec.gram_matrix("monomial", 6), 1 / (k[:, None] + k + 1), rtol=1e-13
    )
    np.testing.assert_allclose(rec.gram_matrix("legendre", 30), np.eye(30), atol=1e-12)
    # Bernstein polynomials sum to one, so the entries of their Gram matrix sum to int 1
    # ds = 1.
    assert abs(rec.gram_matrix("bernstein", 9).sum() - 1) < 1e-13
    for n in (1, 2, 4, 7):
        h = 1 / (np.arange(n)[:, None] + np.arange(n) + 1)
        assert rec.monomial_gram_condition(n) == pytest.approx(
            np.linalg.cond(h), rel=1e-6
        )


def test_fourier_tail_bound_is_the_exponential_tail():
    x = 2 * np.pi * 3
    brute = sum(Fraction(x) ** k / math.factorial(k) for k in range(7, 200))
    assert rec.fourier_tail_bound(7, -3, 2.0) == pytest.approx(
        2 * float(brute), rel=1e-12
    )
    assert rec.fourier_tail_bound(1, 0, 5.0) == 0.0


# ------------------------------------------------------------------ independent oracles


def test_terms_from_the_signature_of_a_piecewise_linear_path():
    rng = np.random.default_rng(0)
    times = np.concatenate([[0.0], np.sort(rng.uniform(0, 1, 9)), [1.0]])
    values = rng.normal(size=times.size)
    depth = 6
    sig = signature(time_augment(values[:, None], times), depth)
    terms = rec.time_moment_terms(sig, depth)
    # Exact: int s^k / k! du = sum_i slope_i (t_{i+1}^{k+1} - t_i^{k+1}) / (k+1)!.
    slopes = np.diff(values) / np.diff(times)
    exact = [
        slopes @ np.diff(times ** (k + 1)) / math.factorial(k + 1) for k in range(depth)
    ]
    np.testing.assert_allclose(terms, exact, rtol=1e-10, atol=1e-13)
    assert rec.time_moment_terms(sig, depth, num_terms=3).shape == (3,)


@pytest.mark.parametrize("m", [1, 2, 5])
def test_terms_from_derivative_of_a_power_are_exact(m):
    # u(t) = t^m: S^{0^k 1} = int s^k / k! m s^(m-1) ds = m / (k! (k + m)), exact in
    # Fractions.
    n = 12
    exact = [Fraction(m, math.factorial(k) * (k + m)) for k in range(n)]
    got = rec.time_moment_terms_from_derivative(
        lambda s: m * s ** (m - 1), n, num_nodes=10
    )
    assert got.shape == (n,)
    np.testing.assert_allclose(got, [float(e) for e in exact], rtol=1e-14, atol=0)


def test_terms_from_derivative_agree_with_the_signature_of_a_sampled_path():
    # u(t) = 1 - 2t + 3t^3 - t^4 sampled at 4001 points: the piecewise linear path's
    # signature has the
    # terms of the interpolant, which differ from those of u by O(h^2 max|u''|) =
    # O(1e-6).
    coefficients = np.array([1.0, -2.0, 0.0, 3.0, -1.0])
    times = np.linspace(0.0, 1.0, 4001)
    values = np.polynomial.polynomial.polyval(times, coefficients)
    depth = 6
    sampled = rec.time_moment_terms(
        signature(time_augment(values[:, None], times), depth), depth
    )
    derivative = np.polynomial.polynomial.polyder(coefficients)
    got = rec.time_moment_terms_from_derivative(
        lambda s: np.polynomial.polynomial.polyval(s, derivative), depth
    )
    np.testing.assert_allclose(got, sampled, rtol=0, atol=1e-6)
    # ... and with the test's own quadrature oracle to rounding.
    np.testing.assert_allclose(
        got,
        terms_by_quadrature(
            lambda s: np.polynomial.polynomial.polyval(s, derivative), depth
        ),
        rtol=1e-14,
        atol=1e-16,
    )


def test_terms_from_derivative_feed_the_other_routes():
    n = 10
    terms = rec.time_moment_terms_from_derivative(smooth_du, n)
    np.testing.assert_allclose(
        terms, terms_by_quadrature(smooth_du, n), rtol=1e-13, atol=1e-16
    )
    # Rounding amplified by sqrt(2j+1) P_j(3) < 1e8 for j < 10, as above.
    np.testing.assert_allclose(
        rec.legendre_coefficients_from_terms(terms),
        rec.legendre_coefficients_of_derivative(smooth_du, n),
        atol=1e-7,
    )
    # Beyond k = 170 (k! overflows a float) the terms are formed in logarithms: 1 / (k!
    # (k + 1)) for u' = 1.
    many = rec.time_moment_terms_from_derivative(np.ones_like, 175)
    expected = np.array(
        [math.exp(-math.lgamma(k + 1) - math.log(k + 1)) for k in range(175)]
    )
    np.testing.assert_allclose(many[:172], expected[:172], rtol=1e-12, atol=0)
    assert (
        np.all(np.isfinite(many)) and np.all(many >= 0) and np.all(np.diff(many) <= 0)
    )


def test_legendre_routes_agree_with_quadrature_and_with_each_other():
    n = 10
    terms = terms_by_quadrature(smooth_du, n)
    direct = rec.legendre_coefficients_of_derivative(smooth_du, n)
    oracle = [
        quad(
            math.sqrt(2 * j + 1)
            * npleg.legval(2 * NODES - 1, np.eye(n)[j])
            * smooth_du(NODES)
        )
        for j in range(n)
    ]
    np.testing.assert_allclose(direct, oracle, atol=1e-13)
    # Through the monomial terms: rounding amplified by sqrt(2j+1) P_j(3) < 1e8 for j <
    # 10.
    np.testing.assert_allclose(
        rec.legendre_coefficients_from_terms(terms), direct, atol=1e-7
    )
    t = np.linspace(0, 1, 21)
    via_monomials = rec.increment_from_monomial(
        rec.monomial_coefficients_from_terms(terms), t
    )
    np.testing.assert_allclose(
        via_monomials, rec.increment_from_legendre(direct, t), atol=1e-6
    )


def test_legendre_reconstruction_converges_and_obeys_the_tail_bound():
    coeffs = rec.legendre_coefficients_of_derivative(smooth_du, 60)
    t = NODES
    truth = smooth_u(t) - smooth_u(0.0)
    previous = np.inf
    for n in (4, 8, 16, 24):
        error = rec.increment_from_legendre(coeffs[:n], t) - truth
        sup_bound = np.sqrt(
            np.sum(coeffs[n:] ** 2)
        )  # ||u' - u'_N||_2 bounds the sup error
        assert np.max(np.abs(error)) <= sup_bound * (1 + 1e-9) + 1e-14
        l2 = math.sqrt(quad(error**2))
        assert l2 < previous
        previous = l2
    assert previous < 1e-8


def test_fourier_series_in_signature_terms():
    terms = terms_by_quadrature(smooth_du, 40)
    total_variation = quad(np.abs(smooth_du(NODES)))
    direct = rec.fourier_coefficients_of_derivative(smooth_du, 2)
    for n in (-2, -1, 0, 1, 2):
        for num_terms in (10, 25, 40):
            partial = rec.fourier_coefficient_from_terms(terms[:num_terms], n)
            bound = rec.fourier_tail_bound(num_terms, n, total_variation)
            # The partial sum's own rounding grows like e^{2 pi |n|} * 1e-16; allow for
            # it.
            assert (
                abs(partial - direct[2 + n])
                <= bound + 1e-16 * math.exp(2 * np.pi * abs(n)) * 100 + 1e-12
            )


# ------------------------------------------------------------------ properties


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=1, max_size=8))
def test_polynomial_derivatives_are_recovered_exactly(coefficients):
    """If u' is a polynomial of degree < N, the first N terms determine u - u(0)
    exactly."""
    a = np.array(coefficients)
    n = a.size

    def du(s):
        return np.polynomial.polynomial.polyval(s, a)

    terms = terms_by_quadrature(du, n)
    t = np.linspace(0, 1, 7)
    exact = np.polynomial.polynomial.polyval(
        t, np.concatenate([[0], a / np.arange(1, n + 1)])
    )
    recovered = rec.increment_from_legendre(
        rec.legendre_coefficients_from_terms(terms), t
    )
    np.testing.assert_allclose(recovered, exact, atol=1e-9 * (1 + np.abs(a).sum()))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=3, max_size=3), st.floats(-2, 2))
def test_terms_are_linear_in_u(first, scale):
    a = np.array(first)

    def du(s):
        return np.polynomial.polynomial.polyval(s, a)

    base = terms_by_quadrature(du, 5)
    np.testing.assert_allclose(
        rec.legendre_coefficients_from_terms(scale * base),
        scale * rec.legendre_coefficients_from_terms(base),
        atol=1e-12,
    )


# ------------------------------------------------------------------ bad input


def test_bad_input_is_refused_with_clear_errors():
    sig = np.zeros(rec.signature_dim(2, 3))
    with pytest.raises(ValueError, match="num_terms must be at most depth"):
        rec.time_moment_terms(sig, 3, num_terms=4)
    with pytest.raises(ValueError, match="signature_dim"):
        rec.time_moment_terms(np.zeros(10), 3)
    with pytest.raises(ValueError, match="NaN"):
        rec.legendre_coefficients_from_terms([1.0, np.nan])
    with pytest.raises(ValueError, match=r"t must lie in \[0, 1\]"):
        rec.increment_from_legendre([1.0], [0.5, 1.5])
    with pytest.raises(ValueError, match="odd length"):
        rec.increment_from_fourier(np.ones(4), 0.5)
    with pytest.raises(TypeError, match="frequency must be an integer"):
        rec.fourier_coefficient_from_terms([1.0], 1.5)
    with pytest.raises(ValueError, match="basis must be one of"):
        rec.gram_matrix("chebyshev", 3)
    with pytest.raises(TypeError, match="num_terms"):
        rec.time_moment_words(True)
    with pytest.raises(ValueError, match="one value per node"):
        rec.legendre_coefficients_of_derivative(lambda s: s[:3], 2)
    with pytest.raises(TypeError, match="callable"):
        rec.legendre_coefficients_of_derivative(3.0, 2)
    with pytest.raises(TypeError, match="derivative must be a callable"):
        rec.time_moment_terms_from_derivative([1.0, 2.0], 3)
    with pytest.raises(ValueError, match="one value per node"):
        rec.time_moment_terms_from_derivative(lambda s: 1.0, 3)
    with pytest.raises(ValueError, match="NaN"):
        rec.time_moment_terms_from_derivative(lambda s: np.where(s > 0.5, np.nan, s), 3)
    with pytest.raises(ValueError, match="num_terms must be an integer >= 1"):
        rec.time_moment_terms_from_derivative(np.ones_like, 0)
    with pytest.raises(TypeError, match="num_nodes"):
        rec.time_moment_terms_from_derivative(np.ones_like, 3, num_nodes=2.5)
    with pytest.raises(ValueError, match="coeffs must have 1 axes"):
        rec.increment_from_legendre(np.ones((2, 2)), 0.5)
