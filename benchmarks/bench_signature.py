"""How fast is attnsig.signature? A side-by-side comparison with iisignature and
pysiglib.

Run from the repository root (peers are optional; a missing one is reported and left
out)::

    .venv/bin/pip install --no-build-isolation iisignature
    .venv/bin/pip install pysiglib  # after the CPU build of torch is installed
    .venv/bin/python benchmarks/bench_signature.py [--rounds 21] [--more]

attnsig is timed twice: with its compiled numba kernels (the default when numba is
installed) and with its NumPy fallback (forced per call through
``ATTNSIG_DISABLE_NUMBA=1``).

Method: every library runs with one thread (OMP/OpenBLAS/MKL threads set to 1 before
NumPy is imported, ``torch.set_num_threads(1)``, pysiglib with ``n_jobs=1``). In each
round every library computes the same signature once (short cases repeat the call to
fill ~20 ms and report the mean per call); the rounds interleave the libraries so that
slow phases of a shared machine hit all of them alike, in an order rotated every round.
The table gives the median over
rounds of the process CPU time (robust to other processes competing for the cores) and
of the wall time, and the median over rounds of the per-round ratio attnsig / peer.
Before timing, every attnsig backend is checked against its reference and against each
peer to 1e-12 (relative to the largest entry). The compiled kernels are compiled (or
loaded from numba's cache) by the warm-up call, not timed. A summary gives the ratios
the project holds itself to: attnsig (numba) / each peer and attnsig (NumPy) / attnsig
(numba).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy (and its BLAS) is imported

import argparse  # noqa: E402
import contextlib  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402

from attnsig import signature as sigmod  # noqa: E402
from attnsig.signature import signature  # noqa: E402

Case = tuple[str, np.ndarray, int]


@contextlib.contextmanager
def numpy_fallback():
    """Force attnsig's NumPy fallback inside the block (the switch is read at every
    call)."""
    previous = os.environ.get("ATTNSIG_DISABLE_NUMBA")
    os.environ["ATTNSIG_DISABLE_NUMBA"] = "1"
    try:
        yield
    finally:
        if previous is None:
            del os.environ["ATTNSIG_DISABLE_NUMBA"]
        else:
            os.environ["ATTNSIG_DISABLE_NUMBA"] = previous


def signature_numpy(path: np.ndarray, depth: int) -> np.ndarray:
    """attnsig.signature on its NumPy fallback (a few microseconds of set-up per
    call)."""
    with numpy_fallback():
        return signature(path, depth)


def attnsig_backends() -> dict[str, Callable[[np.ndarray, int], np.ndarray]]:
    """attnsig's backends available here: the compiled one if numba imports, and the
    NumPy fallback."""
    backends: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {}
    if sigmod._compiled_kernels() is not None:
        backends["attnsig (numba)"] = signature
    backends["attnsig (NumPy)"] = signature_numpy
    return backends


def load_peers() -> tuple[
    dict[str, Callable[[np.ndarray, int], np.ndarray]], list[str]
]:
    """Installed peers as functions (path, depth) -> signature without level 0, and
    notes on the missing."""
    peers: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {}
    missing = []
    try:
        import iisignature

        peers["iisignature"] = iisignature.sig
    except ImportError:
        missing.append(
            "iisignature is not installed: left out (pip install --no-build-isolation "
            "iisignature)"
        )
    try:
        import torch

        torch.set_num_threads(1)
        import pysiglib

        peers["pysiglib"] = lambda path, depth: pysiglib.sig(path, depth, n_jobs=1)
    except ImportError:
        missing.append(
            "pysiglib is not installed: left out (install the CPU torch first, then "
            "pip install pysiglib)"
        )
    return peers, missing


def machine_description() -> str:
    """CPU model, cores, load, NumPy/BLAS and library versions, for the record."""
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    lines = [
        f"- CPU: {cpu}, {os.cpu_count()} logical cores",
        f"- OS: {platform.platform()}; Python {platform.python_version()}; NumPy "
        f"{np.__version__}",
    ]
    if hasattr(os, "getloadavg"):
        lines.append(
            "- load average at start: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
        )
    try:
        from threadpoolctl import threadpool_info

        for pool in threadpool_info():
            lines.append(
                f"- BLAS: {pool.get('internal_api')} {pool.get('version')} "
                f"({pool.get('architecture')}), {pool.get('num_threads')} thread(s)"
            )
    except ImportError:
        pass
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if name in os.environ:
            lines.append(
                f"- {name}={os.environ[name]} is set (it can slow NumPy's BLAS)"
            )
    for module in ("numba", "iisignature", "pysiglib", "torch"):
        if module in sys.modules:
            lines.append(
                f"- {module} {getattr(sys.modules[module], '__version__', '?')}"
            )
    return "\n".join(lines)


def cases(more: bool) -> list[Case]:
    """The benchmark shapes: (description, path, depth). Seeded random walks."""
    rng = np.random.default_rng(0)
    chosen = [
        (
            "batch of 1000 paths, L=100, d=3, depth 4",
            rng.standard_normal((1000, 100, 3)).cumsum(axis=1),
            4,
        ),
        (
            "one path, L=1000, d=2, depth 6",
            rng.standard_normal((1000, 2)).cumsum(axis=0),
            6,
        ),
        (
            "batch of 100 paths, L=200, d=5, depth 5",
            rng.standard_normal((100, 200, 5)).cumsum(axis=1),
            5,
        ),
    ]
    if more:
        chosen += [
            (
                "batch of 32 paths, L=1000, d=2, depth 6",
                rng.standard_normal((32, 1000, 2)).cumsum(axis=1),
                6,
            ),
            (
                "batch of 1000 paths, L=10, d=5, depth 3",
                rng.standard_normal((1000, 10, 5)).cumsum(axis=1),
                3,
            ),
            (
                "one path, L=100, d=3, depth 4",
                rng.standard_normal((100, 3)).cumsum(axis=0),
                4,
            ),
        ]
    return chosen


def check_agreement(path: np.ndarray, depth: int, peers: dict) -> list[str]:
    """attnsig's backends against its reference (relative to the signature's size);
    peers against attnsig."""
    ours = signature(path, depth)
    scale = np.max(np.abs(ours))
    reference = signature(path, depth, method="reference")
    notes = [
        f"|{name} - reference| / max|S| = "
        f"{np.max(np.abs(backend(path, depth) - reference)) / scale:.1e}"
        for name, backend in attnsig_backends().items()
    ]
    for name, peer in peers.items():
        theirs = np.asarray(peer(path, depth))
        notes.append(
            f"|attnsig - {name}| / max|S| = {np.max(np.abs(ours - theirs)) / scale:.1e}"
        )
        # Time nothing that disagrees: every backend against every peer, to 1e-12.
        for backend_name, backend in attnsig_backends().items():
            np.testing.assert_allclose(
                backend(path, depth),
                theirs,
                rtol=1e-12,
                atol=1e-12 * scale,
                err_msg=f"{backend_name} against {name}",
            )
    return notes


def time_interleaved(
    path: np.ndarray, depth: int, functions: dict, rounds: int
) -> dict[str, dict[str, np.ndarray]]:
    """Per-round (CPU, wall) seconds per call for each function, the functions
    interleaved."""
    warm = {}
    for name, function in functions.items():  # warm up, then ~20 ms samples
        function(path, depth)
        start = time.perf_counter()
        function(path, depth)
        warm[name] = time.perf_counter() - start
    reps = {
        name: max(1, int(0.02 / max(seconds, 1e-6))) for name, seconds in warm.items()
    }
    results = {
        name: {"cpu": np.empty(rounds), "wall": np.empty(rounds)} for name in functions
    }
    names = list(functions)
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            function = functions[name]
            cpu, wall = time.process_time(), time.perf_counter()
            for _ in range(reps[name]):
                function(path, depth)
            results[name]["cpu"][round_index] = (time.process_time() - cpu) / reps[name]
            results[name]["wall"][round_index] = (time.perf_counter() - wall) / reps[
                name
            ]
    return results


def summarise(description: str, results: dict) -> str:
    """The ratios the project holds itself to, for one case (CPU time)."""

    def ratio(ours: str, theirs: str) -> str:
        if ours not in results or theirs not in results:
            return f"{ours} / {theirs}: not measured"
        value = np.median(results[ours]["cpu"] / results[theirs]["cpu"])
        return f"{ours} / {theirs} = {value:.2f}"

    pairs = [("attnsig (numba)", peer) for peer in ("pysiglib", "iisignature")]
    pairs.append(("attnsig (NumPy)", "attnsig (numba)"))
    return f"{description}: " + "; ".join(ratio(*pair) for pair in pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=21, help="interleaved rounds (default 21)"
    )
    parser.add_argument(
        "--more", action="store_true", help="also time a few other shapes"
    )
    args = parser.parse_args()

    peers, missing = load_peers()
    backends = attnsig_backends()
    functions = {**backends, **peers}
    print("## Signatures: attnsig against peer libraries\n")
    print(machine_description() + "\n")
    if "attnsig (numba)" not in backends:
        missing.append(
            "numba is not installed: attnsig runs on its NumPy fallback only (pip "
            "install numba)"
        )
    for note in missing:
        print(f"- {note}")
    print(
        f"Medians over {args.rounds} interleaved rounds, one thread per library; "
        "ratio = attnsig backend / "
        "library in the row (below 1: attnsig is faster), median of the per-round "
        "ratios, CPU / wall.\n"
    )
    header = (
        "| case | library | CPU time (ms) | wall time (ms) | "
        + " | ".join(f"ratio {name} / row (CPU / wall)" for name in backends)
        + " |"
    )
    print(header)
    print("| --- | --- | ---: | ---: |" + " ---: |" * len(backends))
    notes, summary = [], []
    for description, path, depth in cases(args.more):
        notes.append(
            f"{description}: " + "; ".join(check_agreement(path, depth, peers))
        )
        results = time_interleaved(path, depth, functions, args.rounds)
        summary.append(summarise(description, results))
        for name, times in results.items():
            ratios = []
            for ours in backends:
                if ours == name:
                    ratios.append("1 (itself)")
                else:
                    ratios.append(
                        f"{np.median(results[ours]['cpu'] / times['cpu']):.2f} / "
                        f"{np.median(results[ours]['wall'] / times['wall']):.2f}"
                    )
            print(
                f"| {description} | {name} | {np.median(times['cpu']) * 1e3:.3f} | "
                f"{np.median(times['wall']) * 1e3:.3f} | " + " | ".join(ratios) + " |"
            )
    print("\nSummary (median of per-round CPU-time ratios; below 1: attnsig faster):\n")
    for line in summary:
        print(f"- {line}")
    print("\nAgreement (max difference relative to the largest entry):\n")
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    main()
