"""Write tests/fixtures/oracles.npz: answers of the oracles, for runs without them.

The oracle tests compare attnsig with PyTorch and RoughPy when those are installed
(``requirements-test.txt``). This script stores a few of their answers, with the inputs
that produced them, so that ``tests/test_oracle_fixtures.py`` checks attnsig against
them with ``requirements.txt`` alone. Regenerate (and commit) after changing a case::

    .venv/bin/python tests/make_oracle_fixtures.py

Inputs come from fixed seeds; nothing here depends on attnsig except the recall weights,
which the oracle runs through its own primitives.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import roughpy
import torch

OUT = Path(__file__).resolve().parent / "fixtures" / "oracles.npz"


def multi_head_cases(arrays: dict[str, np.ndarray]) -> None:
    """torch.nn.MultiheadAttention, float64, random biases: self-attention with a causal
    mask and cross-attention with a boolean mask."""
    rng = np.random.default_rng(2026)
    torch.manual_seed(2026)  # the module's initial weights
    e, h = 12, 3
    module = torch.nn.MultiheadAttention(e, h, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        for p in (module.in_proj_bias, module.out_proj.bias):
            p.copy_(torch.from_numpy(rng.normal(size=p.shape)))
    module.eval()
    arrays["mha_in_proj_weight"] = module.in_proj_weight.detach().numpy().copy()
    arrays["mha_in_proj_bias"] = module.in_proj_bias.detach().numpy().copy()
    arrays["mha_out_proj_weight"] = module.out_proj.weight.detach().numpy().copy()
    arrays["mha_out_proj_bias"] = module.out_proj.bias.detach().numpy().copy()
    arrays["mha_num_heads"] = np.array(h)
    x = rng.normal(size=(2, 6, e))  # (B, T, E)
    memory = rng.normal(size=(2, 9, e))  # (B, S, E)
    allowed = rng.random((6, 9)) < 0.6  # True = may attend (attnsig's convention)
    allowed[:, 0] = True  # every query keeps a key
    causal = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)  # True = masked
    with torch.no_grad():
        out, w = module(
            *(torch.from_numpy(x),) * 3, attn_mask=causal, average_attn_weights=False
        )
        arrays["mha_x"], arrays["mha_self_out"], arrays["mha_self_w"] = (
            x,
            out.numpy(),
            w.numpy(),
        )
        out, w = module(
            torch.from_numpy(x),
            *(torch.from_numpy(memory),) * 2,
            attn_mask=torch.from_numpy(~allowed),
            average_attn_weights=False,
        )
        arrays["mha_memory"], arrays["mha_allowed"] = memory, allowed
        arrays["mha_cross_out"], arrays["mha_cross_w"] = out.numpy(), w.numpy()


def sdpa_cases(arrays: dict[str, np.ndarray]) -> None:
    """F.scaled_dot_product_attention with a boolean mask and an explicit scale."""
    rng = np.random.default_rng(7)
    q, k, v = (
        rng.normal(size=(2, 3, 4, 5)),
        rng.normal(size=(2, 3, 6, 5)),
        rng.normal(size=(2, 3, 6, 2)),
    )
    allowed = rng.random((4, 6)) < 0.6
    allowed[:, 0] = True
    out = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(a) for a in (q, k, v)),
        attn_mask=torch.from_numpy(allowed),
        scale=0.7,
    )
    arrays.update(
        sdpa_q=q, sdpa_k=k, sdpa_v=v, sdpa_allowed=allowed, sdpa_out=out.numpy()
    )


def signature_cases(arrays: dict[str, np.ndarray]) -> None:
    """RoughPy signatures (its own algebra), level 0 dropped."""
    rng = np.random.default_rng(11)
    for name, (length, d, depth) in {
        "a": (6, 2, 4),
        "b": (12, 3, 3),
        "c": (30, 2, 6),
    }.items():
        path = np.cumsum(rng.normal(size=(length, d)) / np.sqrt(length), axis=0)
        context = roughpy.get_context(width=d, depth=depth, coeffs=roughpy.DPReal)
        stream = roughpy.LieIncrementStream.from_increments(
            np.diff(path, axis=0), ctx=context
        )
        full = np.array(stream.signature(roughpy.RealInterval(0, length - 1)))
        assert full[0] == 1.0
        arrays[f"sig_{name}_path"], arrays[f"sig_{name}_depth"] = path, np.array(depth)
        arrays[f"sig_{name}_value"] = full[1:]


def recall_cases(arrays: dict[str, np.ndarray]) -> None:
    """The recall network re-implemented with torch primitives, on fixed prompts."""
    from attnsig import recall  # only for the weights; the forward pass is torch's

    model = recall.build_transformer(3)
    tokens = recall.random_tokens(3, 12, np.random.default_rng(5))
    t = torch.from_numpy(tokens)
    batch, seq_len = t.shape
    results = []
    for scale in (1.0, 3.0):
        x = torch.zeros(batch, seq_len, model.dim, dtype=torch.float64)
        x[:, :, :37] = torch.nn.functional.one_hot(t, 37).double()
        for i in range(seq_len):
            code = seq_len - i
            x[:, i, 37 + (code if code <= 9 else 37 + code - 10)] = 1.0
        for wq, wk, wv, ffn in (
            (model.w_q1, model.w_k1, model.w_v1, model.ffn1),
            (model.w_q2, model.w_k2, model.w_v2, model.ffn2),
        ):
            q, k, v = (x @ torch.from_numpy(w) for w in (wq, wk, wv))
            scores = scale * q @ k.transpose(1, 2)
            future = torch.triu(
                torch.ones(seq_len, seq_len, dtype=torch.bool), diagonal=1
            )
            h = x + torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1) @ v
            hidden = torch.relu(
                h @ torch.from_numpy(ffn.w_in) + torch.from_numpy(ffn.b_in)
            )
            x = h + hidden @ torch.from_numpy(ffn.w_out) + torch.from_numpy(ffn.b_out)
        results.append((x[:, -1] @ torch.from_numpy(model.w_out)).numpy())
    arrays["recall_tokens"] = tokens
    arrays["recall_scales"] = np.array([1.0, 3.0])
    arrays["recall_logits"] = np.stack(results)  # (2, B, 37)


def main() -> int:
    arrays: dict[str, np.ndarray] = {}
    multi_head_cases(arrays)
    sdpa_cases(arrays)
    signature_cases(arrays)
    recall_cases(arrays)
    OUT.parent.mkdir(exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(
        f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(arrays)} arrays): "
        f"torch {torch.__version__}, roughpy {roughpy.__version__}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
