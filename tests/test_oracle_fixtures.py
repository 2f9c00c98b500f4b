"""attnsig against stored answers of PyTorch and RoughPy, without installing them.

``tests/make_oracle_fixtures.py`` wrote ``tests/fixtures/oracles.npz`` with the oracles
installed; these tests need only ``requirements.txt``. The live oracle tests (in the
other test files) run the same comparisons on more cases when the oracles are installed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attnsig import recall
from attnsig.attention import MultiHeadAttention, scaled_dot_product_attention
from attnsig.signature import signature

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "oracles.npz"


@pytest.fixture(scope="module")
def stored():
    with np.load(FIXTURE) as data:
        return {name: data[name] for name in data.files}


def test_multi_head_attention_matches_stored_torch(stored):
    mha = MultiHeadAttention.from_weights(
        stored["mha_in_proj_weight"],
        stored["mha_in_proj_bias"],
        stored["mha_out_proj_weight"],
        stored["mha_out_proj_bias"],
        int(stored["mha_num_heads"]),
    )
    x, memory = stored["mha_x"], stored["mha_memory"]
    for reference in (False, True):
        out, w = mha(x, causal=True, reference=reference)
        np.testing.assert_allclose(out, stored["mha_self_out"], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(w, stored["mha_self_w"], rtol=1e-12, atol=1e-12)
        out, w = mha(x, memory, mask=stored["mha_allowed"], reference=reference)
        np.testing.assert_allclose(out, stored["mha_cross_out"], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(w, stored["mha_cross_w"], rtol=1e-12, atol=1e-12)


def test_scaled_dot_product_attention_matches_stored_torch(stored):
    out, _ = scaled_dot_product_attention(
        stored["sdpa_q"],
        stored["sdpa_k"],
        stored["sdpa_v"],
        stored["sdpa_allowed"],
        scale=0.7,
    )
    np.testing.assert_allclose(out, stored["sdpa_out"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", ["a", "b", "c"])
@pytest.mark.parametrize(
    "method", ["reference", "auto", "horner", "meet-in-the-middle"]
)
def test_signature_matches_stored_roughpy(stored, case, method):
    path, depth = stored[f"sig_{case}_path"], int(stored[f"sig_{case}_depth"])
    expected = stored[f"sig_{case}_value"]
    scale = np.abs(expected).max()
    np.testing.assert_allclose(
        signature(path, depth, method=method), expected, rtol=0, atol=1e-13 * scale
    )


def test_recall_matches_stored_torch(stored):
    model = recall.build_transformer(3)
    for scale, logits in zip(
        stored["recall_scales"], stored["recall_logits"], strict=True
    ):
        np.testing.assert_allclose(
            recall.logits(model, stored["recall_tokens"], float(scale)),
            logits,
            rtol=1e-12,
            atol=1e-12,
        )


def test_the_fixture_is_not_trivial(stored):
    # A fixture of zeros or of attnsig's own output would make the checks above vacuous.
    assert np.abs(stored["mha_self_out"]).max() > 0.1
    assert not np.allclose(stored["mha_self_w"][0, 0], np.tril(np.ones((6, 6))) / 6)
    # The stored read-outs recall every prompt at scale 3 (above the critical scale 2.1)
    # and fail most of them at scale 1: the two cases test different regimes.
    answers = recall.answers(stored["recall_tokens"], 3)
    assert (stored["recall_logits"][1].argmax(axis=1) == answers).all()
    assert (stored["recall_logits"][0].argmax(axis=1) == answers).mean() < 0.5
