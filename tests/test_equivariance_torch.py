"""A full PyTorch transformer encoder layer without positions is
permutation-equivariant.

The position-encoding chapter proves this and checks it on attnsig's layers; this test
extends the check to PyTorch's TransformerEncoderLayer (with layer normalisation), kept
out of the chapter so that the book needs no PyTorch.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer_is_permutation_equivariant(norm_first):
    torch.manual_seed(0)
    rng = np.random.default_rng(5)
    layer = (
        torch.nn.TransformerEncoderLayer(
            d_model=12,
            nhead=3,
            dim_feedforward=24,
            dropout=0.0,
            batch_first=True,
            norm_first=norm_first,
        )
        .double()
        .eval()
    )
    x = torch.from_numpy(rng.standard_normal((1, 7, 12)))
    perm = torch.from_numpy(rng.permutation(7))
    with torch.no_grad():
        out, out_perm = layer(x), layer(x[:, perm])
        np.testing.assert_allclose(
            out_perm.numpy(), out[:, perm].numpy(), rtol=1e-12, atol=1e-12
        )
        # With a causal mask the layer is not equivariant: the check can fail.
        mask = torch.nn.Transformer.generate_square_subsequent_mask(
            7, dtype=torch.float64
        )
        causal, causal_perm = (
            layer(x, src_mask=mask, is_causal=True),
            layer(x[:, perm], src_mask=mask, is_causal=True),
        )
        assert (causal_perm - causal[:, perm]).abs().max() > 1e-3
