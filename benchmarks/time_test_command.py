"""Time `make test` (fresh clone, then warm) and `make book` (fresh clone).

    python benchmarks/time_test_command.py [--book] [--keep-going] [--jobs N]

Clones the repository's HEAD commit into a temporary folder (uncommitted changes are not
measured) and runs CI's command there, `bash .ci/run` (that is `make test`, which first
creates `.venv` and installs the pinned environment), then `make test` again: the warm
run a contributor repeats. With `--book` it runs `make book` in a second fresh clone. It
prints a Markdown table with the wall-clock and CPU times, the machine (CPU model,
cores, OpenBLAS kernels) and its load average before and after each run: on a shared
machine the wall-clock time says as much about the neighbours as about the book. Results
go to `benchmarks/results/test-time.json` (not committed).

`--keep-going` sets MAKEFLAGS=i (make -i), so that every step is timed even when one
fails (the failures are counted in the table): a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from run import cpu_model  # benchmarks/run.py: one reading of the CPU model

ROOT = Path(__file__).resolve().parents[1]


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _clone(parent: Path, name: str) -> Path:
    target = parent / name
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(target)], check=True)
    return target


def _run(label: str, cmd: list[str], cwd: Path, log: Path, env: dict) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = _load()
    start = time.perf_counter()
    with log.open("w") as out:
        status = subprocess.run(
            cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env
        ).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = log.read_text(errors="replace")
    summary = [ln for ln in text.splitlines() if ln.startswith("summary:")]
    # make -i reports each failed step as "make: [...] Error N (ignored)".
    errors = sum("(ignored)" in ln or "make: ***" in ln for ln in text.splitlines())
    row = {
        "run": label,
        "command": " ".join(cmd),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "exit": status,
        "failed_steps": errors,
        "summary": summary[-1] if summary else "",
        "load_before": load_before,
        "load_after": _load(),
        "log": str(log),
    }
    print(
        f"{label}: {wall:.0f} s wall, {cpu:.0f} s CPU, exit {status}, {row['summary']}",
        flush=True,
    )
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--book", action="store_true", help="also time make book, fresh"
    )
    parser.add_argument(
        "--no-test", action="store_true", help="skip the make test runs"
    )
    parser.add_argument(
        "--keep-going", action="store_true", help="make -i: time every step"
    )
    parser.add_argument(
        "--jobs", type=int, default=None, help="pytest-xdist workers (JOBS)"
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks/results/test-time.json"
    )
    args = parser.parse_args()
    # Through the environment, so that the fresh run is exactly CI's `bash .ci/run`.
    env = dict(os.environ)
    if args.keep_going:
        env["MAKEFLAGS"] = "i"
    if args.jobs:
        env["JOBS"] = str(args.jobs)
    kernels = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "blas_kernels.py"), "info"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    machine = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "blas": kernels,
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "unset"),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip(),
    }
    rows = []
    work = Path(tempfile.mkdtemp(prefix="attnsig-timing-"))
    try:
        if not args.no_test:
            clone = _clone(work, "test")
            fresh = ["bash", ".ci/run"]
            rows.append(
                _run(
                    ".ci/run (make test), fresh clone",
                    fresh,
                    clone,
                    work / "fresh.log",
                    env,
                )
            )
            warm = ["make", "test"]
            rows.append(_run("make test, warm", warm, clone, work / "warm.log", env))
        if args.book:
            book = _clone(work, "book")
            rows.append(
                _run(
                    "make book, fresh clone",
                    ["make", "book"],
                    book,
                    work / "book.log",
                    env,
                )
            )
    finally:
        logs = args.out.parent / "test-time-logs"
        logs.mkdir(parents=True, exist_ok=True)
        for log in work.glob("*.log"):
            shutil.copy(log, logs / log.name)
        for row in rows:
            row["log"] = str(logs / Path(row["log"]).name)
        shutil.rmtree(work, ignore_errors=True)
    args.out.write_text(json.dumps({"machine": machine, "runs": rows}, indent=1) + "\n")
    print(f"\nmachine: {machine}\n")
    print("| run | wall | CPU | exit | load before -> after | summary |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for r in rows:
        print(
            f"| {r['run']} | {r['wall_s']:.0f} s | {r['cpu_s']:.0f} s | {r['exit']} | "
            f"{r['load_before']} -> {r['load_after']} | {r['summary']} |"
        )
    print(f"\nresults: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
