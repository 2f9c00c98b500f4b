"""Reproduce the whole speed comparison of attnsig with its peers: one command, one
report.

Runs, each in a fresh Python process (so that the one-thread settings are read before
NumPy or PyTorch starts its thread pools):

* ``benchmarks/bench_attention.py``: ``attnsig.attention.MultiHeadAttention`` against
  PyTorch;
* ``benchmarks/bench_signature.py``: ``attnsig.signature`` against iisignature and
  pysiglib;
* ``benchmarks/bench_recall.py``: ``attnsig.recall`` on 10,000 associative-recall
  prompts;

and prints a Markdown report: the date, the machine (CPU, cores, load, library versions
and
BLAS) and each benchmark's table. Usage, from the repository root::

    .venv/bin/python benchmarks/run.py                       # everything, report on
    stdout .venv/bin/python benchmarks/run.py --output report.md    # ... also written
    to a file .venv/bin/python benchmarks/run.py --only attention      # one benchmark

The benchmarks are not part of ``make test``: the tests check correctness, this measures
speed. Peers needed only here: PyTorch (CPU build), iisignature and pysiglib (see
benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = {
    "attention": HERE / "bench_attention.py",
    "signature": HERE / "bench_signature.py",
    "recall": HERE / "bench_recall.py",
}
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def versions() -> str:
    found = []
    for package in ("numpy", "numba", "torch", "iisignature", "pysiglib", "attnsig"):
        try:
            found.append(f"{package} {importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{package} (not installed)")
    return ", ".join(found)


def numpy_blas() -> str:
    """The BLAS NumPy was built with (its matrix products are the bulk of the attention
    time)."""
    code = (
        "import numpy as np; c = np.show_config(mode='dicts')['Build "
        "Dependencies']['blas'];"
        "print(c.get('name', '?'), c.get('version', '?'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True
    )
    return result.stdout.strip() or "unknown"


def machine_report() -> list[str]:
    return [
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores; load average (1/5/15 "
        "min) at start: "
        f"{load_average()}",
        f"- system: {platform.system()} {platform.release()}, Python "
        f"{platform.python_version()}",
        f"- libraries: {versions()}; NumPy's BLAS: {numpy_blas()}",
        "- threads: "
        + ", ".join(f"{v}=1" for v in THREAD_VARIABLES)
        + ", torch.set_num_threads(1)",
    ]


def run_benchmark(name: str, script: Path) -> tuple[bool, str]:
    """Run one benchmark script in a fresh process; return (success, its Markdown or the
    error)."""
    if not script.exists():
        return False, f"`{script.name}` is missing: benchmark not run."
    env = dict(os.environ, **{v: "1" for v in THREAD_VARIABLES})
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=HERE.parent,
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        return False, (
            f"`{script.name}` failed (exit code {result.returncode}) after "
            f"{elapsed:.0f} s:\n\n"
            f"```\n{result.stderr.strip()[-3000:]}\n```"
        )
    return (
        True,
        result.stdout.strip() + f"\n\n(wall time of this benchmark: {elapsed:.0f} s)",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--only",
        choices=sorted(BENCHMARKS),
        action="append",
        help="run only this benchmark (repeatable)",
    )
    parser.add_argument(
        "--output", type=Path, help="also write the report to this file"
    )
    args = parser.parse_args(argv)
    names = args.only or list(BENCHMARKS)
    lines = ["# attnsig speed comparison", "", "## Machine", "", *machine_report()]
    all_ok = True
    for name in names:
        print(f"running {BENCHMARKS[name].name} ...", file=sys.stderr, flush=True)
        ok, text = run_benchmark(name, BENCHMARKS[name])
        all_ok &= ok
        # A script that prints its own "## ..." heading keeps it; the others get one.
        lines += (
            [""]
            + ([] if text.startswith("## ") else [f"## {name.capitalize()}", ""])
            + [text]
        )
    lines += ["", f"- load average (1/5/15 min) at the end: {load_average()}"]
    report = "\n".join(lines) + "\n"
    print(report)
    if args.output:
        args.output.write_text(report)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
