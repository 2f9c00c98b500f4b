"""Speed of ``attnsig.attention.MultiHeadAttention`` against PyTorch on the CPU, side by
side.

Problem: B=8 sequences, T=512 positions, E=512, 8 heads, float32, causal self-attention.
Contenders (all in this one process, one thread each):

* ``attnsig`` fast path: ``MultiHeadAttention(..., dtype=np.float32)(x, causal=True)``;
  it also returns the (B, H, T, T) per-head weights, which its API always does;
* ``attnsig`` reference path (``reference=True``), the readable formulas;
* ``torch.nn.MultiheadAttention`` in eval mode under ``no_grad``, causal,
  ``need_weights=False`` (its default-speed use; it may take PyTorch's fused fast path);
* the same module with ``need_weights=True, average_attn_weights=False``: it returns the
  same per-head weights as ``attnsig``;
* torch's ``linear`` + ``F.scaled_dot_product_attention(is_causal=True)`` + ``linear``:
  the fastest way PyTorch offers, returning no weights.

Method: every contender runs once to warm up, and all are checked to agree (float32
tolerance); then ``--rounds`` interleaved rounds each time every contender once, in an
order rotated from round to round. Each call is timed twice: wall time and the process's
CPU time (with one thread, the CPU time is what the call cost, whatever other processes
do to the shared cores). The table gives the medians over rounds and, for each peer, the
median over rounds of the per-round ratio ``attnsig fast / peer`` (below 1 = attnsig is
faster), on CPU time and on wall time. On a shared, noisy machine the ratios are the
figures to read, never a lone time.

Usage::

    .venv/bin/python benchmarks/bench_attention.py [--rounds 15] [--json results.json]

Not part of the test run: the tests check correctness, this measures speed.
"""

from __future__ import annotations

import os

# One thread per library, set before NumPy or PyTorch is imported (their pools read it
# once).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

from attnsig.attention import MultiHeadAttention  # noqa: E402

torch.set_num_threads(1)

BATCH, LENGTH, EMBED, HEADS = 8, 512, 512, 8
FAST = "attnsig fast"


def build_contenders(
    batch: int, length: int, embed: int, heads: int, seed: int = 0
) -> tuple[dict[str, Callable[[], tuple[np.ndarray, np.ndarray | None]]], np.ndarray]:
    """The contenders as zero-argument callables returning (output, per-head weights or
    None)."""
    rng = np.random.default_rng(seed)
    module = torch.nn.MultiheadAttention(
        embed, heads, batch_first=True, dtype=torch.float32
    ).eval()
    with (
        torch.no_grad()
    ):  # non-zero biases, so that a bias bug would show in the agreement check
        for p in (module.in_proj_bias, module.out_proj.bias):
            p.copy_(
                torch.from_numpy(
                    rng.normal(scale=0.1, size=tuple(p.shape)).astype(np.float32)
                )
            )
    params = [
        p.detach().numpy()
        for p in (
            module.in_proj_weight,
            module.in_proj_bias,
            module.out_proj.weight,
            module.out_proj.bias,
        )
    ]
    ours = MultiHeadAttention.from_weights(*params, heads)
    assert ours.in_proj_weight.dtype == np.float32  # the float32 weights stay float32
    x = rng.normal(size=(batch, length, embed)).astype(np.float32)  # (B, T, E)
    xt = torch.from_numpy(x)
    # PyTorch's module wants the additive/boolean mask even with is_causal=True (True =
    # masked out).
    torch_mask = torch.nn.Transformer.generate_square_subsequent_mask(
        length, dtype=torch.float32
    )
    head_dim = embed // heads

    def attnsig_fast():
        return ours(x, causal=True)

    def attnsig_reference():
        return ours(x, causal=True, reference=True)

    def torch_mha():
        with torch.inference_mode():
            out, _ = module(
                xt, xt, xt, attn_mask=torch_mask, is_causal=True, need_weights=False
            )
        return out.numpy(), None

    def torch_mha_weights():
        with torch.inference_mode():
            out, w = module(
                xt,
                xt,
                xt,
                attn_mask=torch_mask,
                need_weights=True,
                average_attn_weights=False,
            )
        return out.numpy(), w.numpy()

    def torch_sdpa():
        with torch.inference_mode():
            qkv = torch.nn.functional.linear(
                xt, module.in_proj_weight, module.in_proj_bias
            )  # (B, T, 3E)
            qkv = qkv.view(batch, length, 3, heads, head_dim).permute(
                2, 0, 3, 1, 4
            )  # (3, B, H, T, hs)
            o = torch.nn.functional.scaled_dot_product_attention(
                qkv[0], qkv[1], qkv[2], is_causal=True
            )
            o = o.transpose(1, 2).reshape(batch, length, embed)  # (B, T, E)
            out = torch.nn.functional.linear(
                o, module.out_proj.weight, module.out_proj.bias
            )
        return out.numpy(), None

    contenders = {
        FAST: attnsig_fast,
        "attnsig reference": attnsig_reference,
        "torch MultiheadAttention (need_weights=False)": torch_mha,
        "torch MultiheadAttention (per-head weights)": torch_mha_weights,
        "torch linear + SDPA(is_causal) + linear": torch_sdpa,
    }
    return contenders, x


def check_agreement(contenders: dict, rtol: float = 2e-4, atol: float = 2e-5) -> None:
    """Every contender gives the same output (and weights, where returned) within
    float32 error."""
    out0, w0 = contenders[FAST]()
    assert out0.dtype == np.float32 and w0.dtype == np.float32, (out0.dtype, w0.dtype)
    for name, run in contenders.items():
        out, w = run()
        np.testing.assert_allclose(out, out0, rtol=rtol, atol=atol, err_msg=name)
        if w is not None:
            np.testing.assert_allclose(w, w0, rtol=rtol, atol=atol, err_msg=name)


def interleaved_rounds(
    contenders: dict, rounds: int
) -> dict[str, dict[str, list[float]]]:
    """Wall and CPU seconds per call, ``rounds`` times each, the order rotated every
    round."""
    names = list(contenders)
    times = {name: {"wall": [], "cpu": []} for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            wall, cpu = time.perf_counter(), time.process_time()
            contenders[name]()
            times[name]["cpu"].append(time.process_time() - cpu)
            times[name]["wall"].append(time.perf_counter() - wall)
    return times


def summarise(times: dict[str, dict[str, list[float]]]) -> list[dict]:
    """Median times per contender and the median per-round ratios of the fast path to
    it."""
    rows = []
    for name, ts in times.items():
        row = {"contender": name}
        for clock in ("cpu", "wall"):
            ratios = [f / t for f, t in zip(times[FAST][clock], ts[clock], strict=True)]
            row[f"median_{clock}_ms"] = 1e3 * statistics.median(ts[clock])
            row[f"ratio_{clock}"] = statistics.median(ratios)
        rows.append(row)
    return rows


def markdown_table(
    rows: list[dict], rounds: int, batch: int, length: int, embed: int, heads: int
) -> str:
    lines = [
        f"Multi-head attention, B={batch}, T={length}, E={embed}, H={heads}, float32, "
        "causal; "
        f"one thread; {rounds} interleaved rounds.",
        "",
        "| contender | CPU (ms) | wall (ms) | attnsig fast / this, CPU | attnsig fast "
        "/ this, wall |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        mine = row["contender"] == FAST
        ratios = (
            ["1 (itself)"] * 2
            if mine
            else [f"{row['ratio_cpu']:.2f}", f"{row['ratio_wall']:.2f}"]
        )
        lines.append(
            f"| {row['contender']} | {row['median_cpu_ms']:.0f} | "
            f"{row['median_wall_ms']:.0f} | "
            f"{ratios[0]} | {ratios[1]} |"
        )
    lines += [
        "",
        "Times: medians over rounds. Ratios: medians over rounds of the per-round "
        "ratio "
        "(below 1 = attnsig fast is faster).",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--rounds", type=int, default=15, help="interleaved rounds (default 15)"
    )
    parser.add_argument("--batch", type=int, default=BATCH)
    parser.add_argument("--length", type=int, default=LENGTH)
    parser.add_argument("--embed", type=int, default=EMBED)
    parser.add_argument("--heads", type=int, default=HEADS)
    parser.add_argument(
        "--json", help="also write the raw times and the summary to this file"
    )
    args = parser.parse_args(argv)
    contenders, _ = build_contenders(args.batch, args.length, args.embed, args.heads)
    check_agreement(contenders)
    times = interleaved_rounds(contenders, args.rounds)
    rows = summarise(times)
    print(
        markdown_table(
            rows, args.rounds, args.batch, args.length, args.embed, args.heads
        )
    )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "problem": vars(args),
                    "times_s": times,
                    "summary": rows,
                    "versions": {
                        "python": sys.version.split()[0],
                        "numpy": np.__version__,
                        "torch": torch.__version__,
                    },
                },
                fh,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
