"""Tests of attnsig.positional and attnsig.lowrank."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnsig.lowrank import best_rank_k, low_rank_errors, truncated_svd
from attnsig.positional import sinusoidal_encoding


def test_sinusoidal_hand_values():
    pe = sinusoidal_encoding(3, 4)
    # Columns: sin(p), cos(p), sin(p/100), cos(p/100) for base 10000 and dim 4.
    p = np.arange(3.0)
    np.testing.assert_allclose(
        pe,
        np.stack([np.sin(p), np.cos(p), np.sin(p / 100), np.cos(p / 100)], 1),
        rtol=1e-15,
    )


def test_sinusoidal_odd_dim_and_base():
    pe = sinusoidal_encoding(5, 3, base=4.0)
    assert pe.shape == (5, 3)
    np.testing.assert_allclose(
        pe[:, 2], np.sin(np.arange(5) / 4.0 ** (2 / 3)), rtol=1e-15
    )


@pytest.mark.parametrize(
    "args, error",
    [
        ((0, 4), ValueError),
        ((3, 0), ValueError),
        ((3.5, 4), TypeError),
        ((3, 4, -1.0), ValueError),
        ((3, True), TypeError),
    ],
)
def test_sinusoidal_rejects_bad_input(args, error):
    with pytest.raises(error):
        sinusoidal_encoding(*args)


def test_rank_one_matrix_is_recovered():
    a = np.outer([1.0, 2.0, 3.0], [4.0, 5.0])
    np.testing.assert_allclose(best_rank_k(a, 1), a, rtol=1e-13)
    spectral, frobenius = low_rank_errors(a, 1)
    assert spectral < 1e-12 and frobenius < 1e-12


def test_diagonal_matrix_errors_by_hand():
    a = np.diag([5.0, 3.0, 2.0])
    assert low_rank_errors(a, 1) == pytest.approx((3.0, np.sqrt(13.0)))
    np.testing.assert_allclose(best_rank_k(a, 2), np.diag([5.0, 3.0, 0.0]), atol=1e-15)
    np.testing.assert_array_equal(best_rank_k(a, 0), 0.0)
    assert low_rank_errors(a, 7) == (0.0, 0.0)  # k beyond the rank keeps everything
    u, s, vt = truncated_svd(a, 9)
    assert s.shape == (3,) and u.shape == (3, 3) and vt.shape == (3, 3)


@pytest.mark.parametrize(
    "args, error",
    [
        ((np.ones(3), 1), ValueError),
        ((np.ones((2, 2)), -1), ValueError),
        ((np.ones((2, 2)), 1.0), TypeError),
        ((np.full((2, 2), np.inf), 1), ValueError),
    ],
)
def test_lowrank_rejects_bad_input(args, error):
    with pytest.raises(error):
        best_rank_k(*args)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 7), st.integers(1, 7), st.integers(0, 8), st.integers(0, 2**32 - 1)
)
def test_eckart_young_errors_and_optimality(m, n, k, seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(m, n))
    b = best_rank_k(a, k)
    spectral, frobenius = low_rank_errors(a, k)
    assert np.linalg.matrix_rank(b) <= k
    np.testing.assert_allclose(
        np.linalg.norm(a - b, 2), spectral, rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(np.linalg.norm(a - b), frobenius, rtol=1e-9, atol=1e-12)
    # No random matrix of rank <= k does better (Eckart–Young), in either norm.
    r = min(k, m, n)
    other = rng.normal(size=(m, r)) @ rng.normal(size=(r, n)) if r else np.zeros((m, n))
    assert np.linalg.norm(a - other, 2) >= spectral - 1e-9
    assert np.linalg.norm(a - other) >= frobenius - 1e-9
