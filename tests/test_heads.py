"""Tests of attnsig.heads: hand-known cases, independent oracles, then hypothesis
properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnsig import bounds, constructions, heads, keysets, lowrank

# --------------------------------------------------------------------------- hand-known
# cases


def test_weights_of_equal_scores_are_uniform():
    keys = np.eye(3)
    np.testing.assert_allclose(
        heads.attention_weights(np.zeros(3), keys), np.full(3, 1 / 3)
    )


def test_weights_two_keys_by_hand():
    # scores (log 3, 0) give weights (3/4, 1/4)
    keys = np.array([[1.0, 0.0], [0.0, 1.0]])
    w = heads.attention_weights(np.array([math.log(3.0), 0.0]), keys)
    np.testing.assert_allclose(w, [0.75, 0.25], rtol=1e-14)


def test_scale_multiplies_scores():
    keys = np.array([[1.0, 0.0], [0.0, 1.0]])
    q = np.array([1.0, 0.0])
    np.testing.assert_allclose(
        heads.attention_weights(q, keys, scale=2.0),
        heads.attention_weights(2 * q, keys),
    )


def test_huge_scores_do_not_overflow():
    keys = np.eye(2)
    w = heads.attention_weights(np.array([1e4, 0.0]), keys)
    np.testing.assert_array_equal(w, [1.0, 0.0])


def test_single_head_output_by_hand():
    keys = np.eye(2)
    values = np.array([[2.0, 0.0], [0.0, 4.0]])
    out, w = heads.single_head_output(np.array([math.log(3.0), 0.0]), keys, values)
    np.testing.assert_allclose(w, [0.75, 0.25])
    np.testing.assert_allclose(out, [1.5, 1.0])


def test_copy_gap_by_hand():
    # n = 2, tol = 1/(1+e): gap log(1 * (e/(1+e)) / (1/(1+e))) = 1
    assert bounds.copy_gap(2, 1 / (1 + math.e)) == pytest.approx(1.0, rel=1e-14)
    assert bounds.copy_gap(5, 0.5) == pytest.approx(math.log(4.0), rel=1e-14)


def test_copy_gap_is_tight():
    n, tol = 7, 1e-3
    gap = bounds.copy_gap(n, tol)
    scores = np.concatenate([[gap], np.zeros(n - 1)])
    w = heads.attention_weights(scores, np.eye(n))
    assert w[0] == pytest.approx(1 - tol, rel=1e-12)
    assert bounds.outside_weight(gap, n) == pytest.approx(tol, rel=1e-12)


def test_subset_gap_needs_nothing_when_subset_is_everything():
    assert bounds.subset_gap(4, 4, 0.1) == 0.0
    # (n - m)(1 - tol) / (m tol) < 1 -> no gap needed
    assert bounds.subset_gap(3, 2, 0.9) == 0.0


def test_outside_weight_by_hand():
    assert bounds.outside_weight(0.0, 4, 2) == pytest.approx(0.5)
    np.testing.assert_allclose(
        bounds.outside_weight(np.array([0.0, np.log(2.0)]), 3), [2 / 3, 1 / 2]
    )


def test_copying_query_on_orthonormal_keys_is_a_multiple_of_the_key():
    keys = np.eye(4)
    q = constructions.copy_query_by_gap(keys, 2, 0.01)
    np.testing.assert_allclose(q, bounds.copy_gap(4, 0.01) * keys[2], atol=1e-12)
    assert heads.attention_weights(q, keys)[2] == pytest.approx(0.99, rel=1e-12)


def test_averaging_query_on_orthonormal_keys():
    keys = np.eye(5)
    q = constructions.average_query_by_gap(keys, (0, 3), 0.02)
    np.testing.assert_allclose(
        q, bounds.subset_gap(5, 2, 0.02) * (keys[0] + keys[3]), atol=1e-12
    )
    w = heads.attention_weights(q, keys)
    np.testing.assert_allclose(w[[0, 3]], [0.49, 0.49], rtol=1e-12)


def test_projection_by_hand():
    basis = np.array([[1.0], [1.0]])  # the diagonal of the plane
    np.testing.assert_allclose(
        lowrank.projection_onto_span(basis), [[0.5, 0.5], [0.5, 0.5]]
    )
    np.testing.assert_array_equal(
        lowrank.projection_onto_span(np.zeros((3, 0))), np.zeros((3, 3))
    )


def test_noisy_key_covariances_by_hand():
    mu = np.eye(2)
    cov = keysets.noisy_key_covariances(mu, 0.1, index=1, spread=0.5)
    np.testing.assert_allclose(cov[0], 0.1 * np.eye(2))
    np.testing.assert_allclose(cov[1], [[0.1, 0.0], [0.0, 0.6]])


def test_sample_keys_with_zero_covariance_returns_the_means():
    mu = np.arange(6.0).reshape(2, 3)
    keys = keysets.sample_keys(mu, np.zeros((3, 3)), 4, np.random.default_rng(0))
    assert keys.shape == (4, 2, 3)
    np.testing.assert_array_equal(keys, np.broadcast_to(mu, (4, 2, 3)))


def test_segment_coordinate_and_fraction_near():
    va, vb = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    pts = np.array([va, vb, (va + vb) / 2, [2.0, 2.0]])
    np.testing.assert_allclose(
        heads.segment_coordinate(pts, va, vb), [1.0, 0.0, 0.5, 0.5]
    )
    assert heads.fraction_near(pts, va, 0.1) == 0.25
    assert heads.fraction_near(pts, (va + vb) / 2, 0.1) == 0.25


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: heads.attention_weights(np.ones(3), np.ones((2, 4))), "dimension"),
        (
            lambda: heads.attention_weights(np.array([np.nan, 0.0]), np.eye(2)),
            "query contains NaN",
        ),
        (lambda: heads.attention_weights(np.ones(2), np.ones(2)), "keys"),
        (
            lambda: heads.single_head_output(np.ones(2), np.eye(2), np.ones((3, 1))),
            "values",
        ),
        (lambda: heads.multi_head_output(np.ones(2), np.eye(2), np.eye(2)), "queries"),
        (lambda: heads.attention_weights(np.ones(2), np.eye(2), scale=-1.0), "scale"),
        (lambda: bounds.copy_gap(3, 0.0), "epsilon"),
        (lambda: bounds.copy_gap(3, 1.5), "epsilon"),
        (lambda: bounds.copy_gap(0, 0.1), "num_keys"),
        (lambda: bounds.subset_gap(3, 4, 0.1), "subset_size"),
        (
            lambda: constructions.query_for_scores(np.ones((2, 3)), np.ones(2)),
            "linearly independent",
        ),
        (lambda: constructions.query_for_scores(np.eye(3), np.ones(2)), "scores"),
        (lambda: constructions.copy_query_by_gap(np.eye(3), 3, 0.1), "index"),
        (
            lambda: constructions.average_query_by_gap(np.eye(3), (1, 1), 0.1),
            "distinct",
        ),
        (lambda: keysets.noisy_key_covariances(np.eye(2), -1.0), "alpha"),
        (
            lambda: keysets.noisy_key_covariances(np.eye(2), 0.1, 0, spread=-1.0),
            "spread",
        ),
        (
            lambda: keysets.sample_keys(
                np.eye(2), -np.eye(2), 3, np.random.default_rng(0)
            ),
            "semi-definite",
        ),
        (
            lambda: keysets.sample_keys(
                np.eye(2),
                np.array([[1.0, 1.0], [0.0, 1.0]]),
                3,
                np.random.default_rng(0),
            ),
            "symmetric",
        ),
        (
            lambda: keysets.sample_keys(
                np.eye(2), np.eye(3), 3, np.random.default_rng(0)
            ),
            "covariances",
        ),
        (
            lambda: heads.segment_coordinate(np.ones((2, 2)), np.ones(2), np.ones(2)),
            "differ",
        ),
        (lambda: heads.fraction_near(np.ones((2, 2)), np.ones(2), 0.0), "radius"),
    ],
)
def test_bad_input_raises_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: heads.attention_weights("abc", np.eye(2)), "query"),
        (lambda: bounds.copy_gap(2.5, 0.1), "num_keys"),
        (lambda: constructions.copy_query_by_gap(np.eye(3), 1.0, 0.1), "index"),
        (lambda: keysets.sample_keys(np.eye(2), np.eye(2), 3, 0), "rng"),
    ],
)
def test_bad_types_raise_type_error(call, match):
    with pytest.raises(TypeError, match=match):
        call()


# ---------------------------------------------------------------------------
# independent oracles


def test_weights_against_a_loop_oracle():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(5, 3))
    k = rng.normal(size=(5, 4, 3))
    v = rng.normal(size=(5, 4, 2))
    out, w = heads.single_head_output(q, k, v, scale=0.7)
    for s in range(5):
        e = np.array([math.exp(0.7 * float(k[s, i] @ q[s])) for i in range(4)])
        np.testing.assert_allclose(w[s], e / e.sum(), rtol=1e-12)
        np.testing.assert_allclose(out[s], (e / e.sum()) @ v[s], rtol=1e-12, atol=1e-14)


def test_weights_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    q = rng.normal(size=(6, 1, 4))
    k = rng.normal(size=(6, 5, 4))
    v = rng.normal(size=(6, 5, 3))
    expected = torch.nn.functional.scaled_dot_product_attention(
        torch.tensor(q), torch.tensor(k), torch.tensor(v), scale=1.0
    ).numpy()[:, 0]
    out, _ = heads.single_head_output(q[:, 0], k, v)
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)


def test_multi_head_is_the_average_of_single_heads():
    rng = np.random.default_rng(3)
    queries = rng.normal(size=(3, 4))
    keys = rng.normal(size=(7, 5, 4))
    values = rng.normal(size=(5, 2))
    out, w = heads.multi_head_output(queries, keys, values)
    assert out.shape == (7, 2) and w.shape == (7, 3, 5)
    singles = [heads.single_head_output(q, keys, values) for q in queries]
    np.testing.assert_allclose(
        out, np.mean([c for c, _ in singles], axis=0), rtol=1e-12
    )
    for h, (_, wh) in enumerate(singles):
        np.testing.assert_allclose(w[:, h], wh, rtol=1e-12)


def test_query_for_scores_on_general_keys():
    rng = np.random.default_rng(4)
    keys = rng.normal(size=(4, 6))
    scores = rng.normal(size=4)
    q = constructions.query_for_scores(keys, scores)
    np.testing.assert_allclose(keys @ q, scores, atol=1e-10)
    # copying on non-orthogonal keys still meets the tolerance exactly
    w = heads.attention_weights(constructions.copy_query_by_gap(keys, 1, 0.05), keys)
    assert w[1] == pytest.approx(0.95, rel=1e-9)


def test_sample_keys_moments():
    rng = np.random.default_rng(5)
    mu = np.eye(3)
    cov = keysets.noisy_key_covariances(mu, 0.01, index=0, spread=0.5)
    keys = keysets.sample_keys(mu, cov, 20000, rng)
    np.testing.assert_allclose(
        keys.mean(axis=0), mu, atol=0.02
    )  # std error <= 0.71/sqrt(2e4)
    for i in range(3):
        emp = np.cov(keys[:, i].T)
        np.testing.assert_allclose(emp, cov[i], atol=0.03)


def test_sample_keys_is_reproducible():
    mu = np.eye(2)
    a = keysets.sample_keys(mu, 0.1 * np.eye(2), 3, np.random.default_rng(9))
    b = keysets.sample_keys(mu, 0.1 * np.eye(2), 3, np.random.default_rng(9))
    np.testing.assert_array_equal(a, b)


def test_projection_against_normal_equations():
    rng = np.random.default_rng(6)
    a = rng.normal(size=(6, 3))
    expected = a @ np.linalg.solve(a.T @ a, a.T)
    np.testing.assert_allclose(lowrank.projection_onto_span(a), expected, atol=1e-12)


# --------------------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 30),
    tol=st.floats(1e-9, 0.99),
    extra=st.floats(0.0, 5.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_copy_gap_guarantees_the_tolerance(n, tol, extra, seed):
    # Any scores where key 0 beats all others by at least copy_gap give it weight >= 1 -
    # tol.
    rng = np.random.default_rng(seed)
    gap = bounds.copy_gap(n, tol)
    others = -gap - extra * rng.random(n - 1)
    w = heads.attention_weights(np.concatenate([[0.0], others]), np.eye(n))
    assert w[0] >= 1 - tol - 1e-12


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 20), m=st.integers(1, 20), tol=st.floats(1e-6, 0.99))
def test_outside_weight_inverts_subset_gap(n, m, tol):
    m = min(m, n)
    gap = bounds.subset_gap(n, m, tol)
    assert bounds.outside_weight(gap, n, m) <= tol * (1 + 1e-9)
    if gap > 0:
        assert bounds.outside_weight(gap, n, m) == pytest.approx(tol, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 6), m=st.integers(0, 6))
def test_projection_is_symmetric_idempotent_and_fixes_the_span(seed, d, m):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(d, m))
    p = lowrank.projection_onto_span(a)
    np.testing.assert_allclose(p, p.T, atol=1e-10)
    np.testing.assert_allclose(p @ p, p, atol=1e-10)
    np.testing.assert_allclose(p @ a, a, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shift=st.floats(-50, 50))
def test_weights_are_a_distribution_and_shift_invariant(seed, shift):
    rng = np.random.default_rng(seed)
    keys = np.eye(4)
    q = rng.normal(scale=10, size=4)
    w = heads.attention_weights(q, keys)
    assert np.all(w >= 0)
    assert w.sum() == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(heads.attention_weights(q + shift, keys), w, atol=1e-12)


def test_degenerate_covariance_adds_no_noise_off_its_range():
    # Sigma = 1/2 mu mu^T: samples must move along mu only (no round-off noise of size
    # sqrt(1e-17)).
    rng = np.random.default_rng(7)
    mu = np.linalg.qr(rng.normal(size=(5, 5)))[0].T  # (5, 5) orthonormal rows
    cov = keysets.noisy_key_covariances(mu, 0.0, index=0, spread=0.5)
    keys = keysets.sample_keys(mu, cov, 1000, rng)
    off_axis = keys[:, 0] - np.outer(keys[:, 0] @ mu[0], mu[0])
    assert np.abs(off_axis).max() < 1e-14
    np.testing.assert_array_equal(keys[:, 1:], np.broadcast_to(mu[1:], (1000, 4, 5)))
