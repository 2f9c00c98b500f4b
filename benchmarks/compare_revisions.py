"""Is attnsig as fast as it was? An old revision against the working tree.

Usage, from the repository root::

    .venv/bin/python benchmarks/compare_revisions.py REVISION [--rounds 15]

``REVISION`` is any git revision (a commit, a tag, ``main~3``). Its ``src/attnsig`` is
exported with ``git archive`` to a temporary folder and imported under the name
``attnsig_then`` next to the working tree's ``attnsig``; both then run the same calls,
on the same inputs, in interleaved rounds (the order alternates), one thread, in one
process. The report gives the median CPU time per call of each and the median over
rounds of the per-round ratio now / then: below 1, the working tree is faster. One
process makes the ratio robust to the load of a shared machine, which moves absolute
times by 2-3x.

Cases: ``MultiHeadAttention`` (fast and readable paths, at the size of
``bench_attention.py`` and at a small size where per-call overhead shows) and
``signature`` (the two cases of ``bench_signature.py``, compiled kernels and NumPy
methods).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy (and its BLAS) is imported

import argparse  # noqa: E402
import importlib  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def export_revision(revision: str, folder: Path) -> str:
    """Export ``src/attnsig`` of ``revision`` as ``folder/attnsig_then``; its hash."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", revision],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    archive = subprocess.run(
        ["git", "archive", commit, "src/attnsig"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    package = folder / "attnsig_then"
    (folder / "src" / "attnsig").rename(package)
    # Absolute imports of the package point at the renamed copy.
    for path in package.rglob("*.py"):
        text = path.read_text()
        text = re.sub(r"\b(from|import) attnsig(\.|\b)", r"\1 attnsig_then\2", text)
        path.write_text(text)
    return commit


def timed(pairs: dict, rounds: int, reps: int) -> dict[str, list[float]]:
    """CPU seconds per call of each function, ``rounds`` times, order alternating."""
    names = list(pairs)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            start = time.process_time()
            for _ in range(reps):
                pairs[name]()
            times[name].append((time.process_time() - start) / reps)
    return times


def row(case: str, times: dict[str, list[float]]) -> str:
    then, now = times["then"], times["now"]
    ratio = statistics.median(b / a for a, b in zip(then, now, strict=True))
    return (
        f"| {case} | {statistics.median(then) * 1e3:.3f} | "
        f"{statistics.median(now) * 1e3:.3f} | {ratio:.3f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("revision")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="attnsig-then-") as folder:
        commit = export_revision(args.revision, Path(folder))
        sys.path.insert(0, folder)
        sys.path.insert(0, str(ROOT / "src"))
        then_att = importlib.import_module("attnsig_then.attention")
        then_sig = importlib.import_module("attnsig_then.signature")
        now_att = importlib.import_module("attnsig.attention")
        now_sig = importlib.import_module("attnsig.signature")
        rng = np.random.default_rng(0)
        lines = [
            f"attnsig at {commit} (then) against the working tree (now), one process, "
            f"{args.rounds} interleaved rounds, CPU time per call; ratio = median of "
            "the per-round now / then (below 1: now is faster).",
            "",
            "| case | then (ms) | now (ms) | now / then |",
            "| --- | ---: | ---: | ---: |",
        ]
        for label, (b, t, e, h), dtype, reps in [
            ("MultiHeadAttention B=8 T=512 E=512 H=8 float32 causal", (8, 512, 512, 8),
             np.float32, 1),
            ("MultiHeadAttention B=2 T=10 E=16 H=4 float64 causal", (2, 10, 16, 4),
             np.float64, 300),
        ]:  # fmt: skip
            then = then_att.MultiHeadAttention(e, h, rng=1, dtype=dtype)
            weights = (then.in_proj_weight, then.in_proj_bias, then.out_proj_weight,
                       then.out_proj_bias)  # fmt: skip
            now = now_att.MultiHeadAttention.from_weights(*weights, h)
            x = rng.normal(size=(b, t, e)).astype(dtype)
            for reference in (False, True):
                runs = {
                    name: lambda m=model, r=reference, x=x: m(
                        x, causal=True, reference=r
                    )
                    for name, model in (("then", then), ("now", now))
                }
                out_then, out_now = runs["then"]()[0], runs["now"]()[0]
                np.testing.assert_allclose(out_now, out_then, rtol=1e-4, atol=1e-5)
                path = "readable path" if reference else "fast path"
                lines.append(row(f"{label}, {path}", timed(runs, args.rounds, reps)))
        paths = [
            ("signature, 1000 paths L=100 d=3 depth 4",
             np.cumsum(rng.normal(size=(1000, 100, 3)) / 10, axis=1), 4, 5),
            ("signature, one path L=1000 d=2 depth 6",
             np.cumsum(rng.normal(size=(1000, 2)) / 30, axis=0), 6, 100),
        ]  # fmt: skip
        for label, path, depth, reps in paths:
            for backend, disabled in (("numba", ""), ("NumPy", "1")):
                os.environ["ATTNSIG_DISABLE_NUMBA"] = disabled
                runs = {
                    "then": lambda p=path, d=depth: then_sig.signature(p, d),
                    "now": lambda p=path, d=depth: now_sig.signature(p, d),
                }
                np.testing.assert_allclose(
                    runs["now"](), runs["then"](), rtol=1e-12, atol=1e-12
                )  # also compiles or loads the kernels before timing
                count = reps if backend == "numba" else max(1, reps // 5)
                times = timed(runs, args.rounds, count)
                lines.append(row(f"{label}, {backend}", times))
        os.environ.pop("ATTNSIG_DISABLE_NUMBA", None)
        load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
        lines += ["", f"Load average (1/5/15 min) at the end: {load}."]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
