"""nbval under a second OpenBLAS kernel; the test build from stored outputs.

    python tools/blas_kernels.py info
    python tools/blas_kernels.py nbval --junit-into _build/pytest.xml -- PYTEST_ARGS...
    python tools/blas_kernels.py stored-config _config.yml _build/_config.stored.yml

OpenBLAS picks its compute kernels for the CPU it runs on (Haswell, SkylakeX, Zen, ...),
and kernels differ in the order of floating-point operations: a round-off-dominated
number differs in its last digits from one CPU to the next. A stored output that prints
such a number passes nbval on the machine that wrote it and fails on a reader's. `make
test` therefore runs nbval twice: on this CPU's own kernel, then under
`OPENBLAS_CORETYPE` set to a second kernel that this CPU can run (Haswell, or Prescott
where the own kernel already is Haswell or the CPU lacks AVX2). Where the variable means
nothing (not x86-64, or NumPy not built on OpenBLAS) the second run is skipped with a
message.

`nbval` runs pytest under the second kernel and appends its results to the JUnit file of
the first run, so that `tools/test_summary.py` counts both. `stored-config` writes a
copy of the book's configuration that renders the stored outputs (`execute_notebooks:
off`): nbval has just shown that they are what the code produces, so the test build need
not execute the notebooks again.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

# Kernels of OpenBLAS's DYNAMIC_ARCH x86-64 builds (NumPy's wheels): Haswell needs AVX2
# and FMA, Prescott needs SSE3 only, which every x86-64 CPU made since 2005 has.
_AVX2_KERNEL = "Haswell"
_BASELINE_KERNEL = "Prescott"

_PROBE = """
import json
import numpy  # noqa: F401  (loads NumPy's OpenBLAS)
from threadpoolctl import threadpool_info
from numpy._core._multiarray_umath import __cpu_features__ as cpu
blas = [i for i in threadpool_info() if i.get("internal_api") == "openblas"]
print(json.dumps({"kernel": blas[0].get("architecture") if blas else None,
                  "avx2": bool(cpu.get("AVX2")) and bool(cpu.get("FMA3"))}))
"""


def probe(env: dict[str, str] | None = None) -> dict:
    """OpenBLAS kernel NumPy runs (None without OpenBLAS); whether the CPU has AVX2."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True
    )
    if out.returncode:
        raise RuntimeError(f"could not probe the BLAS library:\n{out.stderr}")
    return json.loads(out.stdout)


def second_kernel() -> tuple[str | None, str]:
    """The `OPENBLAS_CORETYPE` of the second nbval run (or None) and why."""
    machine = platform.machine()
    if machine.lower() not in {"x86_64", "amd64"}:
        return None, f"OPENBLAS_CORETYPE selects x86-64 kernels; this is {machine}"
    if importlib.util.find_spec("threadpoolctl") is None:
        return None, "threadpoolctl (requirements-test.txt) is missing: no kernel known"
    found = probe()
    own = found["kernel"]
    if own is None:
        return None, "NumPy does not use OpenBLAS here, so OPENBLAS_CORETYPE is moot"
    if own.lower() != _AVX2_KERNEL.lower() and found["avx2"]:
        second = _AVX2_KERNEL
    elif own.lower() not in {_BASELINE_KERNEL.lower(), "katmai", "core2"}:
        second = _BASELINE_KERNEL
    else:
        return None, f"this CPU's kernel ({own}) is already the baseline, without AVX2"
    return second, f"this CPU's own kernel is {own}; the second run uses {second}"


def run_nbval(junit_into: Path, pytest_args: list[str]) -> int:
    second, why = second_kernel()
    if second is None:
        print(f"second BLAS kernel: skipped ({why})")
        return 0
    env = dict(os.environ, OPENBLAS_CORETYPE=second)
    reported = probe(env)["kernel"]
    print(
        f"second BLAS kernel: {why} "
        f"(OpenBLAS reports {reported} under OPENBLAS_CORETYPE={second})",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "second-kernel.xml"
        cmd = [sys.executable, "-m", "pytest", *pytest_args, f"--junitxml={junit}"]
        status = subprocess.run(cmd, env=env).returncode
        if junit.exists() and junit_into.exists():
            merge_junit(junit_into, junit, suffix=f" (OPENBLAS_CORETYPE={second})")
    return status


def merge_junit(into: Path, extra: Path, suffix: str) -> None:
    """Append the test suites of `extra` to the JUnit file `into`."""
    root = ET.parse(into).getroot()
    if root.tag != "testsuites":
        root = ET.Element("testsuites")
        root.append(ET.parse(into).getroot())
    for suite in ET.parse(extra).getroot().iter("testsuite"):  # the root if it is one
        suite.set("name", suite.get("name", "pytest") + suffix)
        root.append(suite)
    ET.ElementTree(root).write(into, encoding="utf-8", xml_declaration=True)


def stored_config(source: Path, target: Path) -> int:
    import yaml

    config = yaml.safe_load(source.read_text())
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    target.parent.mkdir(parents=True, exist_ok=True)
    header = (
        f"# Generated by tools/blas_kernels.py from {source.name}: stored outputs.\n"
    )
    target.write_text(
        header + yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    )
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="print this CPU's OpenBLAS kernel and the second one")
    nbval = sub.add_parser("nbval", help="run pytest under the second kernel")
    nbval.add_argument("--junit-into", type=Path, required=True)
    nbval.add_argument("pytest_args", nargs=argparse.REMAINDER)
    config = sub.add_parser(
        "stored-config", help="write the test build's configuration"
    )
    config.add_argument("source", type=Path)
    config.add_argument("target", type=Path)
    args = parser.parse_args(argv)
    if args.command == "info":
        second, why = second_kernel()
        print(why if second else f"no second kernel: {why}")
        return 0
    if args.command == "nbval":
        pytest_args = (
            args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
        )
        return run_nbval(args.junit_into, pytest_args)
    return stored_config(args.source, args.target)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
