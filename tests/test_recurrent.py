"""Tests of attnsig.recurrent: hand cases, then torch as an independent oracle, then
properties."""

from __future__ import annotations

import numpy as np
import pytest
from _oracles import torch  # imported when first used; skips without it
from hypothesis import given, settings
from hypothesis import strategies as st

from attnsig.attention import MultiHeadAttention, softmax
from attnsig.recurrent import (
    dependency_matrix,
    numerical_jacobian,
    rnn_forward,
    rnn_input_jacobian,
    rnn_multiply_adds,
    rnn_param_count,
    self_attention_multiply_adds,
    self_attention_param_count,
    softmax_jacobian,
)


def _weights(rng, d_in=3, hidden=4, scale=0.5):
    return (
        scale * rng.standard_normal((hidden, d_in)),
        scale * rng.standard_normal((hidden, hidden)),
        scale * rng.standard_normal(hidden),
        scale * rng.standard_normal(hidden),
    )


# --- small cases known by hand
# -------------------------------------------------------------------


def test_rnn_forward_scalar_by_hand():
    # D = H = 1, w_ih = 1, w_hh = 0.5: h1 = tanh(1), h2 = tanh(0 + 0.5 tanh(1)).
    h = rnn_forward([[1.0], [0.0]], [[1.0]], [[0.5]])
    np.testing.assert_allclose(
        h[:, 0], [np.tanh(1.0), np.tanh(0.5 * np.tanh(1.0))], rtol=0, atol=1e-15
    )


def test_rnn_jacobian_scalar_by_hand():
    x = np.array([[1.0], [0.0]])
    h = rnn_forward(x, [[1.0]], [[0.5]])[:, 0]
    jac = rnn_input_jacobian(x, [[1.0]], [[0.5]])[:, 0, :, 0]  # (T, S)
    expected = np.array(
        [[1 - h[0] ** 2, 0.0], [(1 - h[1] ** 2) * 0.5 * (1 - h[0] ** 2), 1 - h[1] ** 2]]
    )
    np.testing.assert_allclose(jac, expected, rtol=0, atol=1e-15)


def test_dependency_matrix_by_hand():
    jac = np.zeros((2, 1, 2, 2))
    jac[0, 0, 1, :] = [3.0, 4.0]
    np.testing.assert_array_equal(dependency_matrix(jac), [[0.0, 5.0], [0.0, 0.0]])


def test_softmax_jacobian_by_hand():
    np.testing.assert_allclose(
        softmax_jacobian([0.5, 0.5]), [[0.25, -0.25], [-0.25, 0.25]], atol=1e-15
    )
    np.testing.assert_array_equal(softmax_jacobian([0.0, 1.0]), np.zeros((2, 2)))


def test_counts_by_hand():
    assert rnn_param_count(3, 4) == 4 * 3 + 4 * 4 + 8
    assert rnn_param_count(3, 4, bias=False) == 28
    assert self_attention_param_count(2) == 16 + 8
    assert rnn_multiply_adds(5, 3, 4) == 5 * (12 + 16)
    # T = 1, E = 1: three projections, one score, one weighted value, one output
    # projection.
    assert self_attention_multiply_adds(1, 1) == 6


def test_numerical_jacobian_of_linear_map_is_the_matrix():
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(
        numerical_jacobian(lambda v: a @ v, np.ones(3)), a, rtol=0, atol=1e-8
    )


# --- independent oracles
# ------------------------------------------------------------------------


def _torch_rnn(w_ih, w_hh, b_ih, b_hh):
    rnn = torch.nn.RNN(
        w_ih.shape[1], w_ih.shape[0], batch_first=True, dtype=torch.float64
    )
    with torch.no_grad():
        rnn.weight_ih_l0.copy_(torch.from_numpy(w_ih))
        rnn.weight_hh_l0.copy_(torch.from_numpy(w_hh))
        rnn.bias_ih_l0.copy_(torch.from_numpy(b_ih))
        rnn.bias_hh_l0.copy_(torch.from_numpy(b_hh))
    return rnn


def test_rnn_forward_matches_torch():
    rng = np.random.default_rng(0)
    w = _weights(rng)
    x = rng.standard_normal((2, 6, 3))
    h0 = rng.standard_normal((2, 4))
    ours = rnn_forward(x, *w, h0=h0)
    theirs, _ = _torch_rnn(*w)(torch.from_numpy(x), torch.from_numpy(h0)[None])
    np.testing.assert_allclose(ours, theirs.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_rnn_jacobian_matches_torch_autograd():
    rng = np.random.default_rng(1)
    w = _weights(rng, scale=0.8)
    x = rng.standard_normal((5, 3))
    rnn = _torch_rnn(*w)
    theirs = torch.autograd.functional.jacobian(
        lambda inp: rnn(inp[None])[0][0], torch.from_numpy(x)
    )
    np.testing.assert_allclose(
        rnn_input_jacobian(x, *w), theirs.numpy(), rtol=1e-12, atol=1e-12
    )


def test_numerical_jacobian_matches_analytic():
    rng = np.random.default_rng(2)
    w = _weights(rng)
    x = rng.standard_normal((4, 3))
    num = numerical_jacobian(lambda inp: rnn_forward(inp, *w), x, eps=1e-6)
    np.testing.assert_allclose(num, rnn_input_jacobian(x, *w), rtol=0, atol=1e-8)


def test_softmax_jacobian_matches_finite_differences():
    z = np.array([0.3, -1.0, 2.0, 0.5])
    num = numerical_jacobian(lambda v: softmax(v), z, eps=1e-6)
    np.testing.assert_allclose(softmax_jacobian(softmax(z)), num, rtol=0, atol=1e-9)


def test_param_counts_match_torch_and_attnsig():
    rnn = torch.nn.RNN(5, 7)
    assert rnn_param_count(5, 7) == sum(p.numel() for p in rnn.parameters())
    mha_torch = torch.nn.MultiheadAttention(8, 2)
    assert self_attention_param_count(8) == sum(
        p.numel() for p in mha_torch.parameters()
    )
    mha = MultiHeadAttention(8, 4, rng=0)
    ours = sum(
        a.size
        for a in (
            mha.in_proj_weight,
            mha.in_proj_bias,
            mha.out_proj_weight,
            mha.out_proj_bias,
        )
    )
    assert self_attention_param_count(8) == ours


# --- properties
# ---------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 6), scale=st.floats(0.1, 2.0)
)
def test_rnn_jacobian_is_causal_and_bounded(seed, steps, scale):
    rng = np.random.default_rng(seed)
    w_ih, w_hh, b_ih, b_hh = _weights(rng, scale=scale)
    x = rng.standard_normal((steps, 3))
    dep = dependency_matrix(rnn_input_jacobian(x, w_ih, w_hh, b_ih, b_hh))
    # Causality: the state at t never depends on later inputs.
    assert np.all(np.triu(dep, k=1) == 0)
    # |tanh'| <= 1 gives ‖∂h_t/∂x_s‖_F <= ‖W_hh‖_2^(t-s) ‖W_ih‖_F.
    norm_hh, norm_ih = np.linalg.norm(w_hh, 2), np.linalg.norm(w_ih)
    t, s = np.tril_indices(steps)
    assert np.all(dep[t, s] <= norm_hh ** (t - s) * norm_ih * (1 + 1e-12))


@settings(max_examples=25, deadline=None)
@given(z=st.lists(st.floats(-20, 20), min_size=1, max_size=6))
def test_softmax_jacobian_properties(z):
    jac = softmax_jacobian(softmax(np.array(z)))
    np.testing.assert_allclose(jac, jac.T, atol=1e-15)
    np.testing.assert_allclose(
        jac.sum(axis=1), 0.0, atol=1e-12
    )  # shifting all logits changes nothing
    assert np.linalg.eigvalsh(jac).min() > -1e-12  # positive semi-definite
    assert np.abs(jac).max() <= 0.25 + 1e-15  # p(1 - p) <= 1/4 and p_i p_j <= 1/4


@settings(max_examples=20, deadline=None)
@given(t=st.integers(1, 50), d=st.integers(1, 20), h=st.integers(1, 20))
def test_cost_growth_in_sequence_length(t, d, h):
    # RNN cost is exactly linear in T; attention's second difference in T is the
    # constant 4E.
    assert rnn_multiply_adds(2 * t, d, h) == 2 * rnn_multiply_adds(t, d, h)
    e = d
    second = (
        self_attention_multiply_adds(t + 2, e)
        - 2 * self_attention_multiply_adds(t + 1, e)
        + self_attention_multiply_adds(t, e)
    )
    assert second == 4 * e


# --- bad input
# ----------------------------------------------------------------------------------


def test_bad_input_is_refused_with_clear_messages():
    w_ih, w_hh = np.ones((4, 3)), np.ones((4, 4))
    with pytest.raises(ValueError, match="x must have shape"):
        rnn_forward(np.ones((5, 2)), w_ih, w_hh)
    with pytest.raises(ValueError, match="w_hh must have shape"):
        rnn_forward(np.ones((5, 3)), w_ih, np.ones((3, 3)))
    with pytest.raises(ValueError, match="b_ih must have shape"):
        rnn_forward(np.ones((5, 3)), w_ih, w_hh, b_ih=np.ones(3))
    with pytest.raises(ValueError, match="x must have 2 axes"):
        rnn_input_jacobian(np.ones((2, 5, 3)), w_ih, w_hh)
    with pytest.raises(ValueError, match="NaN"):
        rnn_forward(np.full((2, 3), np.nan), w_ih, w_hh)
    with pytest.raises(ValueError, match="jacobian must have 4 axes"):
        dependency_matrix(np.ones((2, 2)))
    with pytest.raises(ValueError, match="probability vectors"):
        softmax_jacobian([0.5, 0.6])
    with pytest.raises(TypeError, match="f must be callable"):
        numerical_jacobian(3, np.ones(2))
    with pytest.raises(TypeError, match="seq_len"):
        rnn_multiply_adds(2.5, 3, 4)
    with pytest.raises(ValueError, match="embed_dim"):
        self_attention_param_count(0)
