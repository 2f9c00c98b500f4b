"""Tests of attnsig.synthesizer: hand cases, an independent torch oracle, properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnsig.attention import causal_mask
from attnsig.synthesizer import (
    DenseSynthesizer,
    attend,
    dense_attention,
    dense_logits,
    random_attention,
)


def _params(rng, e=4, f=3, length=6, dv=2):
    return (
        rng.normal(size=(e, f)),
        rng.normal(size=f),
        rng.normal(size=(f, length)),
        rng.normal(size=length),
        rng.normal(size=(e, dv)),
    )


# --- small cases known by hand
# ---------------------------------------------------------------


def test_zero_second_layer_gives_uniform_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 4))
    a, b1, _, _, v = _params(rng)
    out, w = dense_attention(x, a, b1, np.zeros((3, 6)), np.zeros(6), v)
    np.testing.assert_allclose(w, np.full((5, 5), 1 / 5), rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        out, np.tile((x @ v).mean(axis=0), (5, 1)), rtol=1e-12, atol=1e-12
    )


def test_logits_by_hand():
    # relu([1, -1] I + 0) = [1, 0]; times B = [[1, 2, 3], [4, 5, 6]] gives [1, 2, 3],
    # plus b2.
    x = np.array([[1.0, -1.0], [-2.0, 3.0]])
    logits = dense_logits(
        x,
        np.eye(2),
        np.zeros(2),
        np.array([[1.0, 2, 3], [4, 5, 6]]),
        np.array([0.5, 0.0, 0.0]),
    )
    np.testing.assert_array_equal(
        logits, [[1.5, 2.0], [12.5, 15.0]]
    )  # cut to T = 2 columns


def test_random_synthesizer_with_a_shift_pattern_copies_the_previous_value():
    t = 5
    big = 50.0
    r = np.full((t, t), -big)
    r[np.arange(1, t), np.arange(t - 1)] = big  # row i prefers position i-1
    r[0, 0] = big
    x = np.random.default_rng(1).normal(size=(t, 3))
    out, w = random_attention(x, r, np.eye(3))
    expected = np.vstack([x[:1], x[:-1]])
    np.testing.assert_allclose(
        out, expected, rtol=0, atol=1e-12
    )  # off-target weights ~ e^-100
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_causal_weights_vanish_above_the_diagonal():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 6, 4))
    _, w = dense_attention(x, *_params(rng), causal=True)
    assert np.all(w[..., ~causal_mask(6)] == 0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_fully_masked_row_is_zero_not_nan():
    logits = np.zeros((3, 3))
    mask = np.ones((3, 3), dtype=bool)
    mask[1] = False
    out, w = attend(logits, np.ones((3, 2)), mask)
    assert np.all(w[1] == 0) and np.all(out[1] == 0)
    assert not np.isnan(out).any()


# --- independent oracles on random input
# -----------------------------------------------------


def test_multihead_equals_a_loop_over_single_heads():
    rng = np.random.default_rng(3)
    layer = DenseSynthesizer(6, 3, max_len=7, rng=rng)
    layer.b2 = rng.normal(size=layer.b2.shape)
    layer.value_bias = rng.normal(size=6)
    x = rng.normal(size=(2, 5, 6))
    out, w = layer(x, causal=True)
    hs = layer.head_dim
    heads = []
    for h in range(3):
        rows = slice(h * hs, (h + 1) * hs)
        # Formula layout: A_h and V_h are the transposed row blocks of the fused
        # weights.
        o_h, w_h = dense_attention(
            x,
            layer.w1_weight[rows].T,
            layer.w1_bias[rows],
            layer.w2[h],
            layer.b2[h],
            layer.value_weight[rows].T,
            causal=True,
        )
        o_h = (
            o_h + layer.value_bias[rows]
        )  # rows of w_h sum to one, so the bias passes through
        np.testing.assert_allclose(w[:, h], w_h, rtol=1e-12, atol=1e-14)
        heads.append(o_h)
    expected = (
        np.concatenate(heads, axis=-1) @ layer.out_proj_weight.T + layer.out_proj_bias
    )
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def test_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    layer = DenseSynthesizer(8, 2, max_len=9, rng=rng)
    layer.b2 = rng.normal(size=layer.b2.shape)
    layer.value_bias = rng.normal(size=8)
    layer.out_proj_bias = rng.normal(size=8)
    x = rng.normal(size=(3, 6, 8))
    out, w = layer(x, causal=True)

    tt = lambda a: torch.as_tensor(a, dtype=torch.float64)  # noqa: E731
    xt = tt(x)
    b, t, e, h, hs = 3, 6, 8, 2, 4
    hidden = torch.relu(
        torch.nn.functional.linear(xt, tt(layer.w1_weight), tt(layer.w1_bias))
    )
    hidden = hidden.view(b, t, h, hs).transpose(1, 2)  # (B, H, T, hs)
    att = (
        torch.einsum("bhts,hsl->bhtl", hidden, tt(layer.w2))
        + tt(layer.b2)[None, :, None, :]
    )
    att = att[..., :t].masked_fill(torch.tril(torch.ones(t, t)) == 0, float("-inf"))
    att = torch.softmax(att, dim=-1)
    v = torch.nn.functional.linear(xt, tt(layer.value_weight), tt(layer.value_bias))
    v = v.view(b, t, h, hs).transpose(1, 2)  # (B, H, T, hs)
    y = (att @ v).transpose(1, 2).reshape(b, t, e)  # (B, T, E)
    y = torch.nn.functional.linear(
        y, tt(layer.out_proj_weight), tt(layer.out_proj_bias)
    )
    np.testing.assert_allclose(w, att.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out, y.numpy(), rtol=1e-10, atol=1e-12)


# --- properties
# --------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), t=st.integers(2, 6), i=st.integers(0, 5))
def test_row_i_depends_on_x_i_only(seed, t, i):
    """The defining limitation: changing other positions never moves row i of the
    weights."""
    i = i % t
    rng = np.random.default_rng(seed)
    params = _params(rng)
    x = rng.normal(size=(t, 4))
    y = rng.normal(size=(t, 4))
    y[i] = x[i]
    _, wx = dense_attention(x, *params)
    _, wy = dense_attention(y, *params)
    np.testing.assert_array_equal(wx[i], wy[i])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), t=st.integers(1, 6))
def test_random_synthesizer_weights_ignore_the_input(seed, t):
    rng = np.random.default_rng(seed)
    r = rng.normal(size=(6, 6))
    v = rng.normal(size=(3, 2))
    _, w1 = random_attention(rng.normal(size=(t, 3)), r, v)
    _, w2 = random_attention(rng.normal(size=(t, 3)), r, v)
    np.testing.assert_array_equal(w1, w2)
    np.testing.assert_allclose(w1.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


# --- bad input
# ---------------------------------------------------------------------------------


def test_errors_name_the_argument():
    rng = np.random.default_rng(5)
    a, b1, b, b2, v = _params(rng)
    with pytest.raises(ValueError, match="at most L=6"):
        dense_logits(rng.normal(size=(7, 4)), a, b1, b, b2)
    with pytest.raises(ValueError, match="a must have shape"):
        dense_logits(rng.normal(size=(3, 5)), a, b1, b, b2)
    with pytest.raises(ValueError, match="b2 must have shape"):
        dense_logits(rng.normal(size=(3, 4)), a, b1, b, b2[:-1])
    with pytest.raises(ValueError, match="value_weight"):
        dense_attention(rng.normal(size=(3, 4)), a, b1, b, b2, v.T)
    with pytest.raises(ValueError, match="x contains NaN"):
        dense_logits(np.full((3, 4), np.nan), a, b1, b, b2)
    with pytest.raises(TypeError, match="mask must be a boolean"):
        attend(np.zeros((3, 3)), np.zeros((3, 2)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="logits must be square"):
        random_attention(np.zeros((3, 2)), np.zeros((4, 5)), np.eye(2))
    with pytest.raises(ValueError, match="must divide"):
        DenseSynthesizer(6, 4, 5)
    with pytest.raises(ValueError, match="max_len=5"):
        DenseSynthesizer(4, 2, 5, rng=0)(np.zeros((6, 4)))


def test_deprecated_names_of_release_0_1_0():
    from attnsig import keysets, synthesizer

    with pytest.warns(DeprecationWarning, match="renamed attnsig.synthesizer.attend"):
        assert synthesizer.synthesizer_attention is synthesizer.attend
    with pytest.warns(DeprecationWarning, match="random_attention"):
        assert synthesizer.random_synthesizer_attention is synthesizer.random_attention
    with pytest.warns(DeprecationWarning, match="renamed attnsig.keysets.noisy_keys"):
        assert keysets.noisy_key_set is keysets.noisy_keys
    with pytest.raises(AttributeError):
        synthesizer.nonsense  # noqa: B018
