"""Tests of attnsig.attention: hand-known cases, PyTorch as oracle, hypothesis properties."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attnsig.attention import (
    MultiHeadAttention,
    causal_mask,
    merge_heads,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)

torch = pytest.importorskip("torch")  # installed by requirements-test.txt


# ---------------------------------------------------------------- small cases known by hand
def test_softmax_hand_cases():
    e = math.e
    np.testing.assert_allclose(softmax([1.0, 2.0, -np.inf]), [1 / (1 + e), e / (1 + e), 0.0], rtol=1e-15)
    np.testing.assert_array_equal(softmax([0.0, 0.0, 0.0, 0.0]), [0.25] * 4)
    np.testing.assert_array_equal(softmax([3.0, np.inf, 1.0, np.inf]), [0.0, 0.5, 0.0, 0.5])
    np.testing.assert_array_equal(softmax([-np.inf, -np.inf]), [0.0, 0.0])
    # Large logits do not overflow.
    np.testing.assert_allclose(softmax([1000.0, 1000.0 + math.log(3)]), [0.25, 0.75], rtol=1e-12)


def test_softmax_axis_and_dtype():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert softmax(x, axis=0).dtype == np.float32
    np.testing.assert_allclose(softmax(x, axis=0).sum(axis=0), 1.0, rtol=1e-6)
    np.testing.assert_allclose(softmax(x, axis=0)[:, 0], softmax([0.0, 3.0]), rtol=1e-6)


def test_softmax_rows_with_mixed_infinities():
    x = np.array([[1.0, -np.inf], [-np.inf, -np.inf], [np.inf, 5.0], [2.0, 2.0]])
    np.testing.assert_array_equal(softmax(x), [[1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.5, 0.5]])


@pytest.mark.parametrize("bad, error, words", [
    ([1.0, np.nan], ValueError, "NaN"),
    (["a", "b"], TypeError, "dtype"),
    (3.0, ValueError, "axes"),
])
def test_softmax_rejects_bad_input(bad, error, words):
    with pytest.raises(error, match=words):
        softmax(bad)


def test_softmax_rejects_bad_axis():
    with pytest.raises(ValueError, match="axis"):
        softmax([1.0, 2.0], axis=1)


def test_causal_mask():
    np.testing.assert_array_equal(causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    assert causal_mask(2, 4).tolist() == [[True, False, False, False], [True, True, False, False]]
    with pytest.raises(ValueError, match="n must be"):
        causal_mask(0)
    with pytest.raises(TypeError, match="n must be"):
        causal_mask(2.0)


def test_attention_one_key_copies_its_value():
    out, w = scaled_dot_product_attention([[1.0, 2.0]], [[3.0, -1.0]], [[7.0, 8.0, 9.0]])
    np.testing.assert_array_equal(w, [[1.0]])
    np.testing.assert_array_equal(out, [[7.0, 8.0, 9.0]])


def test_attention_hand_example():
    # Two keys, scores 0 and ln 3 after scaling: weights 1/4 and 3/4.
    q = np.array([[math.log(3) * math.sqrt(2), 0.0]])
    k = np.array([[0.0, 1.0], [1.0, 0.0]])
    v = np.array([[4.0], [8.0]])
    out, w = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(w, [[0.25, 0.75]], rtol=1e-14)
    np.testing.assert_allclose(out, [[7.0]], rtol=1e-14)


def test_attention_fully_masked_row_is_zero_not_nan():
    x = np.eye(3)
    mask = np.array([[False, False, False], [True, True, False], [True, True, True]])
    out, w = scaled_dot_product_attention(x, x, x, mask)
    np.testing.assert_array_equal(w[0], 0.0)
    np.testing.assert_array_equal(out[0], 0.0)
    assert np.isfinite(out).all()


def test_attention_scale_zero_is_uniform():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(2, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 5))
    out, w = scaled_dot_product_attention(q, k, v, scale=0.0)
    np.testing.assert_allclose(w, 0.25, rtol=1e-15)
    np.testing.assert_allclose(out, np.broadcast_to(v.mean(axis=0), (2, 5)), rtol=1e-13)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(q=np.ones((2, 3)), k=np.ones((2, 4)), v=np.ones((2, 1))), ValueError, "d_k"),
    (dict(q=np.ones((2, 3)), k=np.ones((2, 3)), v=np.ones((3, 1))), ValueError, "positions"),
    (dict(q=np.ones(3), k=np.ones((2, 3)), v=np.ones((2, 1))), ValueError, "q must have"),
    (dict(q=np.ones((2, 3)), k=np.ones((2, 3)), v=np.ones((2, 1)), mask=np.ones((2, 2))), TypeError, "boolean"),
    (dict(q=np.ones((2, 3)), k=np.ones((2, 3)), v=np.ones((2, 1)), mask=np.ones((3, 2), bool)), ValueError, "mask of shape"),
    (dict(q=np.ones((2, 3)), k=np.ones((2, 3)), v=np.ones((2, 1)), scale=-1.0), ValueError, "scale"),
    (dict(q=np.full((2, 3), np.nan), k=np.ones((2, 3)), v=np.ones((2, 1))), ValueError, "q contains NaN"),
    (dict(q=np.ones((4, 2, 3)), k=np.ones((3, 2, 3)), v=np.ones((3, 2, 1))), ValueError, "batch axes"),
])
def test_attention_rejects_bad_input(kwargs, error, words):
    with pytest.raises(error, match=words):
        scaled_dot_product_attention(**kwargs)


def test_split_and_merge_heads_shapes_and_layout():
    x = np.arange(2 * 3 * 8).reshape(2, 3, 8)  # (B, T, E)
    heads = split_heads(x, 4)
    assert heads.shape == (2, 4, 3, 2)  # (B, H, T, hs)
    np.testing.assert_array_equal(heads[:, 1], x[..., 2:4])  # head 1 is the second slice of 2
    np.testing.assert_array_equal(merge_heads(heads), x)
    with pytest.raises(ValueError, match="divide"):
        split_heads(x, 3)


def test_mha_rejects_bad_configuration():
    with pytest.raises(ValueError, match="divide embed_dim"):
        MultiHeadAttention(10, 3)
    with pytest.raises(TypeError, match="num_heads"):
        MultiHeadAttention(8, 2.0)
    mha = MultiHeadAttention(8, 2, rng=0)
    with pytest.raises(ValueError, match="E=8"):
        mha(np.ones((3, 6)))
    with pytest.raises(ValueError, match="in_proj_weight"):
        MultiHeadAttention.from_weights(np.ones((8, 4)), None, np.ones((4, 4)), None, 2)


def test_mha_is_seeded():
    a, b = MultiHeadAttention(8, 2, rng=3), MultiHeadAttention(8, 2, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a.in_proj_weight, b.in_proj_weight)
    assert not np.array_equal(a.in_proj_weight, MultiHeadAttention(8, 2, rng=4).in_proj_weight)


# ---------------------------------------------------------------- PyTorch as oracle
def _torch_mha(e, h, rng):
    module = torch.nn.MultiheadAttention(e, h, batch_first=True, dtype=torch.float64)
    # PyTorch initialises biases to zero, which would hide a bias bug: randomise them.
    with torch.no_grad():
        for p in (module.in_proj_bias, module.out_proj.bias):
            p.copy_(torch.from_numpy(rng.normal(size=p.shape)))
    module.eval()
    ours = MultiHeadAttention.from_weights(module.in_proj_weight.detach().numpy(),
                                           module.in_proj_bias.detach().numpy(),
                                           module.out_proj.weight.detach().numpy(),
                                           module.out_proj.bias.detach().numpy(), h)
    return module, ours


@pytest.mark.parametrize("e, h", [(8, 1), (12, 3), (16, 4)])
def test_mha_matches_torch_self_attention_with_mask(e, h):
    rng = np.random.default_rng(e * 10 + h)
    module, ours = _torch_mha(e, h, rng)
    x = rng.normal(size=(3, 5, e))
    allowed = rng.random((5, 5)) < 0.7
    allowed[np.arange(5), np.arange(5)] = True  # every query keeps at least one key
    with torch.no_grad():
        # PyTorch's boolean attn_mask marks what is *masked out*: the opposite of ours.
        t_out, t_w = module(*(torch.from_numpy(x),) * 3, attn_mask=torch.from_numpy(~allowed),
                            need_weights=True, average_attn_weights=False)
    out, w = ours(x, mask=allowed)
    np.testing.assert_allclose(out, t_out.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w, t_w.numpy(), rtol=1e-12, atol=1e-12)


def test_mha_matches_torch_causal_and_cross_attention():
    rng = np.random.default_rng(7)
    module, ours = _torch_mha(12, 4, rng)
    x, memory = rng.normal(size=(2, 6, 12)), rng.normal(size=(2, 4, 12))
    causal = torch.nn.Transformer.generate_square_subsequent_mask(6, dtype=torch.float64)  # additive -inf
    with torch.no_grad():
        t_causal, _ = module(*(torch.from_numpy(x),) * 3, attn_mask=causal)
        t_cross, t_cross_w = module(torch.from_numpy(x), torch.from_numpy(memory), torch.from_numpy(memory),
                                    average_attn_weights=False)
    np.testing.assert_allclose(ours(x, causal=True)[0], t_causal.numpy(), rtol=1e-12, atol=1e-12)
    out, w = ours(x, memory, memory)
    assert w.shape == (2, 4, 6, 4)
    np.testing.assert_allclose(out, t_cross.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w, t_cross_w.numpy(), rtol=1e-12, atol=1e-12)


def test_sdpa_matches_torch_functional():
    rng = np.random.default_rng(11)
    q, k, v = rng.normal(size=(2, 3, 5, 4)), rng.normal(size=(2, 3, 7, 4)), rng.normal(size=(2, 3, 7, 6))
    allowed = rng.random((5, 7)) < 0.6
    allowed[:, 0] = True
    tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
    # F.scaled_dot_product_attention's boolean mask marks what *may attend*, as ours does.
    ref_mask = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=torch.from_numpy(allowed))
    ref_causal = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
    ref_scaled = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, scale=0.3)
    np.testing.assert_allclose(scaled_dot_product_attention(q, k, v, allowed)[0], ref_mask.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(scaled_dot_product_attention(q, k, v, causal=True)[0], ref_causal.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(scaled_dot_product_attention(q, k, v, scale=0.3)[0], ref_scaled.numpy(), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- properties
finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6), elements=finite),
       st.floats(-100, 100))
def test_softmax_shift_invariance_and_simplex(x, shift):
    p = softmax(x)
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-12)
    assert (p >= 0).all()
    np.testing.assert_allclose(softmax(x + shift), p, rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_unmasked_attention_is_permutation_equivariant(t, d, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(t, 2 * d))
    mha = MultiHeadAttention(2 * d, 2, rng=rng)
    perm = rng.permutation(t)
    out, w = mha(x)
    out_p, w_p = mha(x[perm])
    np.testing.assert_allclose(out_p, out[perm], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w_p, w[:, perm][:, :, perm], rtol=1e-10, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 7), st.integers(0, 2**32 - 1))
def test_causal_output_ignores_the_future(t, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(t, 4))
    mha = MultiHeadAttention(4, 2, rng=rng)
    changed = x.copy()
    changed[-1] += rng.normal(size=4)  # alter only the last position
    np.testing.assert_allclose(mha(changed, causal=True)[0][:-1], mha(x, causal=True)[0][:-1], rtol=1e-12)
