"""Tests of attnsig.attention: hand-known cases, PyTorch as oracle, hypothesis
properties."""

import math

import numpy as np
import pytest
from _oracles import torch  # imported when first used; skips without it
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


# ------------------------------------------------------------ small cases known by hand
def test_softmax_hand_cases():
    e = math.e
    np.testing.assert_allclose(
        softmax([1.0, 2.0, -np.inf]), [1 / (1 + e), e / (1 + e), 0.0], rtol=1e-15
    )
    np.testing.assert_array_equal(softmax([0.0, 0.0, 0.0, 0.0]), [0.25] * 4)
    np.testing.assert_array_equal(
        softmax([3.0, np.inf, 1.0, np.inf]), [0.0, 0.5, 0.0, 0.5]
    )
    np.testing.assert_array_equal(softmax([-np.inf, -np.inf]), [0.0, 0.0])
    # Large logits do not overflow.
    np.testing.assert_allclose(
        softmax([1000.0, 1000.0 + math.log(3)]), [0.25, 0.75], rtol=1e-12
    )


def test_softmax_axis_and_dtype():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert softmax(x, axis=0).dtype == np.float32
    np.testing.assert_allclose(softmax(x, axis=0).sum(axis=0), 1.0, rtol=1e-6)
    np.testing.assert_allclose(softmax(x, axis=0)[:, 0], softmax([0.0, 3.0]), rtol=1e-6)


def test_softmax_rows_with_mixed_infinities():
    x = np.array([[1.0, -np.inf], [-np.inf, -np.inf], [np.inf, 5.0], [2.0, 2.0]])
    np.testing.assert_array_equal(
        softmax(x), [[1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.5, 0.5]]
    )


@pytest.mark.parametrize(
    "bad, error, words",
    [
        ([1.0, np.nan], ValueError, "NaN"),
        (["a", "b"], TypeError, "dtype"),
        (3.0, ValueError, "axes"),
    ],
)
def test_softmax_rejects_bad_input(bad, error, words):
    with pytest.raises(error, match=words):
        softmax(bad)


def test_softmax_rejects_bad_axis():
    with pytest.raises(ValueError, match="axis"):
        softmax([1.0, 2.0], axis=1)


def test_causal_mask():
    np.testing.assert_array_equal(causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    assert causal_mask(2, 4).tolist() == [
        [True, False, False, False],
        [True, True, False, False],
    ]
    with pytest.raises(ValueError, match="n must be"):
        causal_mask(0)
    with pytest.raises(TypeError, match="n must be"):
        causal_mask(2.0)


def test_attention_one_key_copies_its_value():
    out, w = scaled_dot_product_attention(
        [[1.0, 2.0]], [[3.0, -1.0]], [[7.0, 8.0, 9.0]]
    )
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


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        (
            dict(q=np.ones((2, 3)), k=np.ones((2, 4)), v=np.ones((2, 1))),
            ValueError,
            "d_k",
        ),
        (
            dict(q=np.ones((2, 3)), k=np.ones((2, 3)), v=np.ones((3, 1))),
            ValueError,
            "positions",
        ),
        (
            dict(q=np.ones(3), k=np.ones((2, 3)), v=np.ones((2, 1))),
            ValueError,
            "q must have",
        ),
        (
            dict(
                q=np.ones((2, 3)),
                k=np.ones((2, 3)),
                v=np.ones((2, 1)),
                mask=np.ones((2, 2)),
            ),
            TypeError,
            "boolean",
        ),
        (
            dict(
                q=np.ones((2, 3)),
                k=np.ones((2, 3)),
                v=np.ones((2, 1)),
                mask=np.ones((3, 2), bool),
            ),
            ValueError,
            "mask of shape",
        ),
        (
            dict(q=np.ones((2, 3)), k=np.ones((2, 3)), v=np.ones((2, 1)), scale=-1.0),
            ValueError,
            "scale",
        ),
        (
            dict(q=np.full((2, 3), np.nan), k=np.ones((2, 3)), v=np.ones((2, 1))),
            ValueError,
            "q contains NaN",
        ),
        (
            dict(q=np.ones((4, 2, 3)), k=np.ones((3, 2, 3)), v=np.ones((3, 2, 1))),
            ValueError,
            "batch axes",
        ),
    ],
)
def test_attention_rejects_bad_input(kwargs, error, words):
    with pytest.raises(error, match=words):
        scaled_dot_product_attention(**kwargs)


def test_split_and_merge_heads_shapes_and_layout():
    x = np.arange(2 * 3 * 8).reshape(2, 3, 8)  # (B, T, E)
    heads = split_heads(x, 4)
    assert heads.shape == (2, 4, 3, 2)  # (B, H, T, hs)
    np.testing.assert_array_equal(
        heads[:, 1], x[..., 2:4]
    )  # head 1 is the second slice of 2
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
    a, b = (
        MultiHeadAttention(8, 2, rng=3),
        MultiHeadAttention(8, 2, rng=np.random.default_rng(3)),
    )
    np.testing.assert_array_equal(a.in_proj_weight, b.in_proj_weight)
    assert not np.array_equal(
        a.in_proj_weight, MultiHeadAttention(8, 2, rng=4).in_proj_weight
    )


# ---------------------------------------------------------------- PyTorch as oracle
def _torch_mha(e, h, rng):
    module = torch.nn.MultiheadAttention(e, h, batch_first=True, dtype=torch.float64)
    # PyTorch initialises biases to zero, which would hide a bias bug: randomise them.
    with torch.no_grad():
        for p in (module.in_proj_bias, module.out_proj.bias):
            p.copy_(torch.from_numpy(rng.normal(size=p.shape)))
    module.eval()
    ours = MultiHeadAttention.from_weights(
        module.in_proj_weight.detach().numpy(),
        module.in_proj_bias.detach().numpy(),
        module.out_proj.weight.detach().numpy(),
        module.out_proj.bias.detach().numpy(),
        h,
    )
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
        t_out, t_w = module(
            *(torch.from_numpy(x),) * 3,
            attn_mask=torch.from_numpy(~allowed),
            need_weights=True,
            average_attn_weights=False,
        )
    out, w = ours(x, mask=allowed)
    np.testing.assert_allclose(out, t_out.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w, t_w.numpy(), rtol=1e-12, atol=1e-12)


def test_mha_matches_torch_causal_and_cross_attention():
    rng = np.random.default_rng(7)
    module, ours = _torch_mha(12, 4, rng)
    x, memory = rng.normal(size=(2, 6, 12)), rng.normal(size=(2, 4, 12))
    causal = torch.nn.Transformer.generate_square_subsequent_mask(
        6, dtype=torch.float64
    )  # additive -inf
    with torch.no_grad():
        t_causal, _ = module(*(torch.from_numpy(x),) * 3, attn_mask=causal)
        t_cross, t_cross_w = module(
            torch.from_numpy(x),
            torch.from_numpy(memory),
            torch.from_numpy(memory),
            average_attn_weights=False,
        )
    np.testing.assert_allclose(
        ours(x, causal=True)[0], t_causal.numpy(), rtol=1e-12, atol=1e-12
    )
    out, w = ours(x, memory, memory)
    assert w.shape == (2, 4, 6, 4)
    np.testing.assert_allclose(out, t_cross.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w, t_cross_w.numpy(), rtol=1e-12, atol=1e-12)


def test_sdpa_matches_torch_functional():
    rng = np.random.default_rng(11)
    q, k, v = (
        rng.normal(size=(2, 3, 5, 4)),
        rng.normal(size=(2, 3, 7, 4)),
        rng.normal(size=(2, 3, 7, 6)),
    )
    allowed = rng.random((5, 7)) < 0.6
    allowed[:, 0] = True
    tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
    # F.scaled_dot_product_attention's boolean mask marks what *may attend*, as ours
    # does.
    ref_mask = torch.nn.functional.scaled_dot_product_attention(
        tq, tk, tv, attn_mask=torch.from_numpy(allowed)
    )
    ref_causal = torch.nn.functional.scaled_dot_product_attention(
        tq, tk, tv, is_causal=True
    )
    ref_scaled = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, scale=0.3)
    np.testing.assert_allclose(
        scaled_dot_product_attention(q, k, v, allowed)[0],
        ref_mask.numpy(),
        rtol=1e-12,
        atol=1e-12,
    )
    np.testing.assert_allclose(
        scaled_dot_product_attention(q, k, v, causal=True)[0],
        ref_causal.numpy(),
        rtol=1e-12,
        atol=1e-12,
    )
    np.testing.assert_allclose(
        scaled_dot_product_attention(q, k, v, scale=0.3)[0],
        ref_scaled.numpy(),
        rtol=1e-12,
        atol=1e-12,
    )


# ---------------------------------------------------------------- properties
finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
        elements=finite,
    ),
    st.floats(-100, 100),
)
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
    np.testing.assert_allclose(
        mha(changed, causal=True)[0][:-1], mha(x, causal=True)[0][:-1], rtol=1e-12
    )


# ------------------------------------------------- fast path against the reference path
# ``mha(...)`` runs the fast path; ``mha(..., reference=True)`` the readable formulas.
# In float64
# they agree to 1e-12 (only the order of floating-point operations differs); in float32
# to
# rtol = atol = 1e-5 (a few float32 roundings of numbers of order one).
import attnsig._attention_fast as attention_module  # noqa: E402

FAST_VS_REFERENCE_F64 = dict(rtol=1e-12, atol=1e-12)
FAST_VS_REFERENCE_F32 = dict(rtol=1e-5, atol=1e-5)


def _random_mha(e, h, rng, dtype=np.float64, bias=True):
    mha = MultiHeadAttention(e, h, rng=rng, bias=bias, dtype=dtype)
    if bias:  # zero biases would hide a bias bug
        mha.in_proj_bias[:] = rng.normal(size=3 * e)
        mha.out_proj_bias[:] = rng.normal(size=e)
    return mha


def _assert_fast_matches_reference(mha, *args, tol=FAST_VS_REFERENCE_F64, **kwargs):
    out, w = mha(*args, **kwargs)
    ref_out, ref_w = mha(*args, reference=True, **kwargs)
    assert out.shape == ref_out.shape and w.shape == ref_w.shape
    assert out.dtype == ref_out.dtype and w.dtype == ref_w.dtype
    np.testing.assert_allclose(out, ref_out, **tol)
    np.testing.assert_allclose(w, ref_w, **tol)
    return out, w


@pytest.fixture(params=["stacked", "blocks"])
def regime(request, monkeypatch):
    """Run a test through both kernels of the fast path; small blocks so that several
    blocks of queries, of a size not dividing T, occur."""
    if request.param == "stacked":
        monkeypatch.setattr(attention_module, "_STACKED_BELOW", 10**9)
    else:
        monkeypatch.setattr(attention_module, "_STACKED_BELOW", 0)
        monkeypatch.setattr(
            attention_module, "_BLOCK_SCORES", 3 * 11
        )  # 3 query rows when S = 11
    return request.param


def test_fast_self_attention_causal_and_masks(regime):
    rng = np.random.default_rng(101)
    mha = _random_mha(12, 3, rng)
    x = rng.normal(size=(2, 11, 12))  # (B, T, E)
    allowed = rng.random((2, 11, 11)) < 0.5
    allowed[0, 4] = (
        False  # a fully masked query row: zero weights and the output is the bias
    )
    allowed[1, :, 0] = True
    x_before = x.copy()
    _assert_fast_matches_reference(mha, x)
    _assert_fast_matches_reference(mha, x, causal=True)
    _, w = _assert_fast_matches_reference(mha, x, mask=allowed)
    np.testing.assert_array_equal(w[0, :, 4], 0.0)
    _, w = _assert_fast_matches_reference(mha, x, mask=allowed, causal=True)
    np.testing.assert_array_equal(w[0, :, 4], 0.0)
    np.testing.assert_array_equal(
        np.triu(w, 1), 0.0
    )  # causal: nothing above the diagonal
    _assert_fast_matches_reference(
        mha, x, x, x, causal=True
    )  # the same array thrice: fused path
    np.testing.assert_array_equal(
        x, x_before
    )  # the in-place kernels never touch the input


@pytest.mark.parametrize("t, s", [(11, 7), (7, 11)])
def test_fast_cross_attention_and_rectangular_causal(regime, t, s):
    rng = np.random.default_rng(t * 100 + s)
    mha = _random_mha(8, 2, rng)
    x, memory, values = (
        rng.normal(size=(3, t, 8)),
        rng.normal(size=(3, s, 8)),
        rng.normal(size=(3, s, 8)),
    )
    allowed = rng.random((t, s)) < 0.6
    allowed[-1] = False
    _assert_fast_matches_reference(
        mha, x, memory
    )  # keys = values: fused (E, 2E) projection
    _assert_fast_matches_reference(mha, x, memory, values)  # three separate projections
    _assert_fast_matches_reference(mha, x, memory, values, mask=allowed, causal=True)
    _assert_fast_matches_reference(mha, x, memory, memory, causal=True)


def test_fast_batch_axes_broadcast_and_no_bias(regime):
    rng = np.random.default_rng(103)
    mha = _random_mha(8, 4, rng, bias=False)
    x = rng.normal(size=(2, 3, 11, 8))  # (B1, B2, T, E)
    memory = rng.normal(size=(3, 11, 8))  # (B2, S, E): broadcast against (B1, B2)
    allowed = rng.random((3, 1, 11)) < 0.5  # (B2, 1, S): broadcast over queries
    out, w = _assert_fast_matches_reference(mha, x, memory, mask=allowed, causal=True)
    assert out.shape == (2, 3, 11, 8) and w.shape == (2, 3, 4, 11, 11)
    _assert_fast_matches_reference(
        mha, x[0, 0], memory
    )  # unbatched query, batched memory
    _assert_fast_matches_reference(
        mha, x, mask=np.array([True] * 10 + [False])
    )  # (S,) mask
    _assert_fast_matches_reference(
        mha, np.asfortranarray(x[0, 0])
    )  # non-contiguous input


def test_fast_mixed_dtypes_promote_like_the_reference(regime):
    rng = np.random.default_rng(107)
    mha = _random_mha(8, 2, rng, dtype=np.float32)
    x32 = rng.normal(size=(11, 8)).astype(np.float32)
    _assert_fast_matches_reference(
        mha, x32.astype(np.float64), tol=FAST_VS_REFERENCE_F32
    )
    _assert_fast_matches_reference(
        mha, x32, rng.normal(size=(11, 8)), tol=FAST_VS_REFERENCE_F32
    )
    mha.out_proj_bias = mha.out_proj_bias.astype(
        np.float64
    )  # a float64 bias set by hand
    out, _ = _assert_fast_matches_reference(mha, x32, tol=FAST_VS_REFERENCE_F32)
    assert out.dtype == np.float64


def test_fast_float32_stays_float32(regime):
    rng = np.random.default_rng(104)
    mha = _random_mha(16, 4, rng, dtype=np.float32)
    x = rng.normal(size=(2, 11, 16)).astype(np.float32)
    out, w = _assert_fast_matches_reference(
        mha, x, causal=True, tol=FAST_VS_REFERENCE_F32
    )
    assert out.dtype == np.float32 and w.dtype == np.float32
    # ... and agrees with the float64 computation to float32 accuracy.
    mha64 = MultiHeadAttention.from_weights(
        *(
            a.astype(np.float64)
            for a in (
                mha.in_proj_weight,
                mha.in_proj_bias,
                mha.out_proj_weight,
                mha.out_proj_bias,
            )
        ),
        4,
    )
    np.testing.assert_allclose(
        out, mha64(x.astype(np.float64), causal=True)[0], **FAST_VS_REFERENCE_F32
    )


def test_fast_path_defers_infinities_and_errors_to_the_reference(regime):
    rng = np.random.default_rng(105)
    # Scores that overflow to +inf: the reference defines the weights (uniform over the
    # +inf
    # entries); the fast path must give exactly the same, not NaN.
    mha = MultiHeadAttention.from_weights(
        np.vstack([np.eye(4)] * 3), None, np.eye(4), None, 2
    )
    x = rng.normal(size=(11, 4))
    x[3] = 1e160  # q . k = 2e320 overflows float64 for this position's queries and keys
    with pytest.warns(
        RuntimeWarning, match="overflow"
    ):  # the reference's warning, from both
        out, w = mha(x)
    with pytest.warns(RuntimeWarning, match="overflow"):
        ref_out, ref_w = mha(x, reference=True)
    np.testing.assert_array_equal(w, ref_w)
    np.testing.assert_array_equal(out, ref_out)
    assert np.isfinite(w).all()
    np.testing.assert_array_equal(
        w[:, 3, 3], 1.0
    )  # query 3 puts all its weight on key 3
    # A projection that overflows to inf is refused by both paths with the same message.
    big = MultiHeadAttention.from_weights(
        np.full((12, 4), 1e308), None, np.eye(4), None, 2
    )
    for reference in (False, True):
        with (
            pytest.raises(ValueError, match="q contains an infinite entry"),
            pytest.warns(RuntimeWarning, match="overflow"),
        ):
            big(np.ones((3, 4)), reference=reference)


def test_fast_path_matches_torch_at_a_blocked_size():
    """The default path on a size that uses the blocked kernel (T * S >=
    _STACKED_BELOW)."""
    rng = np.random.default_rng(106)
    module, ours = _torch_mha(16, 4, rng)
    t = 130
    assert t * t >= attention_module._STACKED_BELOW
    x = rng.normal(size=(2, t, 16))
    causal = torch.nn.Transformer.generate_square_subsequent_mask(
        t, dtype=torch.float64
    )
    with torch.no_grad():
        t_out, t_w = module(
            *(torch.from_numpy(x),) * 3, attn_mask=causal, average_attn_weights=False
        )
    out, w = ours(x, causal=True)
    np.testing.assert_allclose(out, t_out.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w, t_w.numpy(), rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 9),
    st.integers(1, 9),
    st.sampled_from([(4, 1), (4, 2), (6, 3)]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_fast_equals_reference_property(t, s, e_h, causal, use_mask, blocked, seed):
    rng = np.random.default_rng(seed)
    e, h = e_h
    mha = _random_mha(e, h, rng)
    x, memory = rng.normal(size=(2, t, e)), rng.normal(size=(2, s, e))
    allowed = (
        rng.random((2, t, s)) < 0.5 if use_mask else None
    )  # fully masked rows happen
    saved = attention_module._STACKED_BELOW, attention_module._BLOCK_SCORES
    try:
        if blocked:
            attention_module._STACKED_BELOW, attention_module._BLOCK_SCORES = 0, 2 * s
        _assert_fast_matches_reference(mha, x, memory, mask=allowed, causal=causal)
    finally:
        attention_module._STACKED_BELOW, attention_module._BLOCK_SCORES = saved


def test_inputs_are_checked_once(monkeypatch):
    # MultiHeadAttention checks query, key and value at the entry; its readable path
    # then runs the unchecked core, not the public scaled_dot_product_attention.
    import attnsig.attention as attention_public

    calls = []
    checker = attention_public.as_float_array

    def counting(x, name, **kwargs):
        calls.append(name)
        return checker(x, name, **kwargs)

    monkeypatch.setattr(attention_public, "as_float_array", counting)
    mha = MultiHeadAttention(4, 2, rng=0)
    x = np.ones((3, 4))
    for reference in (False, True):
        calls.clear()
        mha(x, x[:2], causal=True, reference=reference)
        assert calls == ["query", "key"]
