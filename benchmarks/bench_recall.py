"""How long attnsig.recall takes to score 10,000 associative-recall prompts.

    .venv/bin/python benchmarks/bench_recall.py [--rounds 7]

The performance goal: the recall accuracy of the constructive transformer over 10,000
random 3-pair sequences in under one second, batched (one forward pass over a (B, T,
111) array). Prints a Markdown table: median and best wall and CPU time over rounds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from attnsig import recall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sequences", type=int, default=10_000)
    args = parser.parse_args()
    model = recall.build_transformer(3)
    tokens = recall.random_tokens(3, args.sequences, np.random.default_rng(0))
    recall.accuracy(model, tokens[:100], 3.0)  # warm-up: imports, caches
    wall, cpu = [], []
    for _ in range(args.rounds):
        w0, c0 = time.perf_counter(), time.process_time()
        accuracy = recall.accuracy(model, tokens, 3.0)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    if accuracy != 1.0:  # scale 3 is above the critical scale (about 2.10) for 3 pairs
        raise SystemExit(f"unexpected accuracy {accuracy} at scale 3")
    print("## Associative recall\n")
    print(
        f"Recall accuracy of `attnsig.recall` over {args.sequences:,} random 3-pair "
        "sequences "
        f"(scale 3, accuracy {accuracy:.0%}), {args.rounds} rounds, one thread.\n"
    )
    print("| time | median (s) | best (s) | goal |")
    print("| --- | ---: | ---: | --- |")
    print(
        f"| wall | {np.median(wall):.3f} | {min(wall):.3f} | < 1 s: "
        f"{'met' if np.median(wall) < 1 else 'NOT met'} |"
    )
    print(f"| CPU | {np.median(cpu):.3f} | {min(cpu):.3f} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
