"""Tests of attnsig.bounds: query constructions, closed-form minimal lengths,
adversarial key sets."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnsig import bounds, constructions, keysets
from attnsig.heads import attention_weights

EPS = st.floats(min_value=1e-4, max_value=0.999)


# --------------------------------------------------------------------- small hand cases
def test_copy_query_two_keys_by_hand():
    # k_1 = e_0, k_2 = (1/2, sqrt(3)/2): distance exactly 1.  n = 2, eps = 1/2: t = 2 ln
    # 4.
    keys = np.array([[1.0, 0.0], [0.5, math.sqrt(3) / 2]])
    q = constructions.copy_query(keys, 0, 0.5)
    np.testing.assert_allclose(q, [2 * math.log(4), 0.0], rtol=1e-15)
    # scores t and t/2: alpha_1 = 1 / (1 + e^{-t/2}) = 1 / (1 + 1/4)
    np.testing.assert_allclose(attention_weights(q, keys)[0], 0.8, rtol=1e-14)


def test_average_query_by_hand():
    keys = np.eye(3)
    q = constructions.average_query(keys, (0, 1), 0.5)
    np.testing.assert_allclose(q, math.log(6) * np.array([1.0, 1.0, 0.0]), rtol=1e-15)
    # alpha_1 = 6 / (6 + 6 + 1)
    np.testing.assert_allclose(
        attention_weights(q, keys)[:2], [6 / 13, 6 / 13], rtol=1e-14
    )


def test_noisy_weights_by_hand():
    # n = 2, eps = 1/2: r = 4; c = 3/2: r^c = 8; alpha = (8/12, 4/12)
    np.testing.assert_allclose(
        bounds.noisy_weights(2, 0.5, 1.5), (2 / 3, 1 / 3), rtol=1e-14
    )
    # n = 4, eps = 1/2: r = 8; c = 1/2: sqrt 8; denominator sqrt8 + 8 + 2
    s8 = math.sqrt(8)
    np.testing.assert_allclose(
        bounds.noisy_weights(4, 0.5, 0.5), (s8 / (s8 + 10), 8 / (s8 + 10)), rtol=1e-14
    )


def test_closed_forms_by_hand():
    assert bounds.copy_worst_case_length(1, 0.3) == 0.0
    assert bounds.copy_worst_case_length(2, 0.5) == pytest.approx(
        math.log(2), rel=1e-15
    )
    assert bounds.copy_worst_case_length(5, 0.5) == pytest.approx(
        2 * math.log(8), rel=1e-15
    )
    assert bounds.average_min_length(2, 0.5) == 0.0
    assert bounds.average_min_length(4, 0.5) == pytest.approx(math.log(4), rel=1e-15)
    assert bounds.head_scale_needed(5, 0.5, 0.5) == pytest.approx(
        2 * math.log(8), rel=1e-15
    )
    assert bounds.head_scale_needed(1, 0.5, 0.5) == 0.0


def test_adversarial_keys_geometry():
    keys = keysets.adversarial_copy_keys(7, 4)
    np.testing.assert_allclose(np.linalg.norm(keys, axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(
        np.linalg.norm(keys[1:] - keys[0], axis=1), 1.0, rtol=1e-14
    )
    # the components orthogonal to k_1 sum to zero
    np.testing.assert_allclose(keys[1:, 1:].sum(axis=0), 0.0, atol=1e-14)


def test_two_head_queries_shapes_and_scales():
    u, k2 = np.eye(3)[0], np.eye(3)[1]
    heads = constructions.two_head_queries(u, k2, 3, 0.5)
    np.testing.assert_allclose(
        heads, [[2 * math.log(6), 0, 0], [0, math.log(6), 0]], rtol=1e-15
    )
    sheet = constructions.two_head_queries(u, k2, 3, 0.5, c_min=1.0)
    np.testing.assert_allclose(sheet[0], [math.log(6), 0, 0], rtol=1e-15)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("eps", [0.0, 1.0, -0.1, 2.0])
def test_epsilon_out_of_range(eps):
    with pytest.raises(ValueError, match="epsilon"):
        constructions.copy_query(np.eye(2), 0, eps)


def test_bad_inputs_raise_with_names():
    with pytest.raises(TypeError, match="epsilon"):
        constructions.copy_query(np.eye(2), 0, "0.1")
    with pytest.raises(ValueError, match="keys"):
        constructions.copy_query(np.ones(3), 0, 0.1)
    with pytest.raises(ValueError, match="index"):
        constructions.copy_query(np.eye(2), 2, 0.1)
    with pytest.raises(ValueError, match="distinct"):
        constructions.average_query(np.eye(3), (1, 1), 0.1)
    with pytest.raises(ValueError, match="dim"):
        keysets.adversarial_copy_keys(5, 2)
    with pytest.raises(ValueError, match="num_keys"):
        keysets.orthonormal_keys(4, 3, np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng"):
        keysets.random_copy_keys(3, 3, 0)
    with pytest.raises(ValueError, match="second_key"):
        constructions.noisy_average_query(np.ones(3), np.ones(2), 3, 0.1)
    with pytest.raises(ValueError, match="largest score"):
        bounds.min_scale_along(np.eye(2), [0.0, 1.0], [0], 0.5)
    with pytest.raises(ValueError, match="not reachable"):
        bounds.min_scale_along(np.eye(3), [1.0, 1.0, 0.0], [0, 1], 0.6)
    with pytest.raises(ValueError, match="threshold"):
        bounds.min_query_norm(np.eye(2), [0], 1.5)


# ----------------------------------------------------------------------------- oracles
@pytest.mark.parametrize("n", [2, 3, 4, 9])
def test_adversarial_min_norm_matches_closed_form(n):
    eps = 0.05
    keys = keysets.adversarial_copy_keys(n, 3)
    norm, q = bounds.min_query_norm(
        keys, [0], 1 / (1 + eps), x0=constructions.copy_query(keys, 0, eps)
    )
    assert norm == pytest.approx(bounds.copy_worst_case_length(n, eps), rel=1e-6)
    assert attention_weights(q, keys)[0] >= (1 / (1 + eps)) * (1 - 1e-7)


@pytest.mark.parametrize("n", [2, 3, 6, 12])
def test_average_min_norm_matches_closed_form(n):
    eps = 0.2
    keys = keysets.orthonormal_keys(n, n + 2, np.random.default_rng(n))
    norm, _ = bounds.min_query_norm(
        keys, [0, 1], 1 / (2 + eps), x0=constructions.average_query(keys, (0, 1), eps)
    )
    assert norm == pytest.approx(bounds.average_min_length(n, eps), rel=1e-6, abs=1e-9)


def test_min_scale_along_matches_solved_equation():
    # Along k_1 on the adversarial set: (n-1) e^{-t/2} = eps  <=>  t = 2 ln((n-1)/eps).
    keys = keysets.adversarial_copy_keys(6, 3)
    t = bounds.min_scale_along(keys, keys[0], [0], 1 / 1.1)
    assert t == pytest.approx(2 * math.log(5 / 0.1), rel=1e-10)
    # Head 1 of the noisy setting, c = 1/2: matches head_scale_needed.
    n, eps = 8, 0.3
    noisy = np.eye(n)
    noisy[0] *= 0.5
    t1 = bounds.min_scale_along(noisy, np.eye(n)[0], [0], 1 / (1 + eps))
    assert t1 == pytest.approx(bounds.head_scale_needed(n, eps, 0.5), rel=1e-10)


def test_noisy_weights_match_direct_computation():
    rng = np.random.default_rng(3)
    for n, eps, c in [(2, 0.9, 0.5), (5, 0.1, 1.5), (40, 0.01, 0.5), (40, 0.01, 1.5)]:
        keys, u = keysets.noisy_keys(n, c, rng)
        np.testing.assert_allclose(
            np.linalg.norm(keys, axis=1), [c] + [1.0] * (n - 1), rtol=1e-12
        )
        np.testing.assert_allclose(
            keys @ keys.T, np.diag([c**2] + [1.0] * (n - 1)), atol=1e-12
        )
        q = constructions.noisy_average_query(u, keys[1], n, eps)
        np.testing.assert_allclose(
            attention_weights(q, keys)[:2], bounds.noisy_weights(n, eps, c), rtol=1e-12
        )


# -----------------------------------------------------------------------------
# properties
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 60), dim=st.integers(2, 6), eps=EPS, seed=st.integers(0, 2**31 - 1)
)
def test_copy_guarantee_on_random_admissible_keys(n, dim, eps, seed):
    keys = keysets.random_copy_keys(n, dim, np.random.default_rng(seed))
    np.testing.assert_allclose(np.linalg.norm(keys, axis=1), 1.0, rtol=1e-12)
    assert np.all(np.linalg.norm(keys[1:] - keys[0], axis=1) >= 1 - 1e-12)
    q = constructions.copy_query(keys, 0, eps)
    assert np.linalg.norm(q) <= 2 * math.log(n / eps) * (1 + 1e-12)
    assert attention_weights(q, keys)[0] >= 1 / (1 + eps) * (1 - 1e-12)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 40), eps=EPS, seed=st.integers(0, 2**31 - 1))
def test_average_guarantee_on_orthonormal_keys(n, eps, seed):
    keys = keysets.orthonormal_keys(n, n + 1, np.random.default_rng(seed))
    q = constructions.average_query(keys, (0, 1), eps)
    assert np.linalg.norm(q) <= 2 * math.sqrt(2) * math.log(n / eps)
    w = attention_weights(q, keys)
    assert min(w[0], w[1]) >= 1 / (2 + eps) * (1 - 1e-12)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 200), eps=EPS, c=st.sampled_from([0.5, 1.5]))
def test_two_head_fix_meets_guarantee(n, eps, c):
    basis = np.eye(n)
    keys = basis.copy()
    keys[0] = c * basis[0]
    heads = constructions.two_head_queries(basis[0], basis[1], n, eps)
    w = attention_weights(heads, keys)  # (2, n)
    assert w[0, 0] >= 1 / (1 + eps) * (1 - 1e-12)
    assert w[1, 1] >= 1 / (1 + eps) * (1 - 1e-12)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 500), eps=EPS)
def test_worst_case_lengths_below_sheet_bounds(n, eps):
    assert bounds.copy_worst_case_length(n, eps) < 2 * math.log(n / eps)
    assert bounds.average_min_length(n, eps) < math.sqrt(2) * math.log(n / eps)
    # The sheet's head-1 scale ln(n/eps) is below what c = 1/2 needs for every n >= 3.
    assert math.log(n / eps) < bounds.head_scale_needed(n, eps, 0.5)
