"""The autograder zip grades anywhere: a fresh environment made from only what the zip
declares (its `environment.yml`: Python, the pinned pip requirements and the `attnsig`
wheel it carries) grades each assignment's solution notebook with `otter run` to full
marks, as Gradescope would.

One virtual environment serves every assignment (they declare the same packages); it
is kept in `_build/zip-venv-<hash of the requirements>` between runs, and only the
wheel is reinstalled. pip needs the package index the first time
(`ATTNSIG_SKIP_ZIP_VENV=1` skips this test on a machine without it).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

pytest.importorskip("otter", reason="otter-grader is not installed")

from tools import assignments, grading  # noqa: E402

needs_index = pytest.mark.skipif(
    os.environ.get("ATTNSIG_SKIP_ZIP_VENV") == "1", reason="ATTNSIG_SKIP_ZIP_VENV=1"
)
ROOT = grading.ROOT
CHAPTERS = [p for p in assignments.chapters() if assignments.is_annotated(p)]


def _declared(zip_path: Path) -> tuple[str, list[str]]:
    with zipfile.ZipFile(zip_path) as zf:
        env = yaml.safe_load(zf.read("environment.yml"))
    python = next(d for d in env["dependencies"] if str(d).startswith("python="))
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    return python.split("=", 1)[1], pip


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("zips")
    return {p.stem: assignments.build_one(p, out) for p in CHAPTERS}


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory):
    """A fresh venv with what the first zip declares (all declare the same)."""
    zips = [dest / "autograder" / "autograder.zip" for dest in built.values()]
    python, pip = _declared(zips[0])
    assert all(_declared(z) == (python, pip) for z in zips), "zips declare different"
    assert python == f"{sys.version_info.major}.{sys.version_info.minor}"
    key = hashlib.sha256("\n".join([python, *pip]).encode()).hexdigest()[:12]
    where = assignments.ROOT / "_build" / f"zip-venv-{key}"
    unpacked = tmp_path_factory.mktemp("unpacked")
    zipfile.ZipFile(zips[0]).extractall(unpacked)
    base = getattr(sys, "_base_executable", sys.executable)
    if not (where / "bin" / "python").exists():
        subprocess.run([base, "-m", "venv", str(where)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    reqs = unpacked / "requirements-declared.txt"
    reqs.write_text("\n".join(pip) + "\n")
    # The wheel's relative line resolves in the unpacked zip, as on Gradescope. No
    # byte-compiling of every installed module (half of pip's CPU time): the grading
    # compiles what it imports, and what is installed is the same.
    install = [where / "bin" / "python", "-m", "pip", "install", "-q", "--no-compile"]
    subprocess.run(
        [*install, "-r", reqs.name],
        check=True,
        cwd=unpacked,
        env=env,
    )
    wheel = next(p for p in pip if p.endswith(".whl"))
    subprocess.run(
        [*install, "--no-deps", "--force-reinstall", wheel],
        check=True,
        cwd=unpacked,
        env=env,
    )
    return where


@needs_index
def test_solutions_score_full_marks_in_a_fresh_venv(built, venv, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("OMP_NUM_THREADS", "1")

    def run(item) -> tuple[str, dict]:
        name, dest = item
        out = tmp_path / name
        out.mkdir()
        solution = dest / "autograder" / f"{name}.ipynb"
        # On Gradescope each run has the machine to itself; here the runs share one
        # venv and one home, so each gets its own caches (numba's, IPython's,
        # matplotlib's, Jupyter's runtime files) and no two write the same file at once.
        own = {
            key: str(out / ".cache" / key.lower())
            for key in (
                "NUMBA_CACHE_DIR",
                "IPYTHONDIR",
                "MPLCONFIGDIR",
                "JUPYTER_RUNTIME_DIR",
            )
        }
        command = [
            venv / "bin" / "python",
            "-m",
            "otter",
            "run",
            "--no-logo",
            "-a",
            dest / "autograder" / "autograder.zip",
            "-o",
            out,
            solution,
        ]
        done = subprocess.run(
            command,
            env={**env, **own},
            cwd=out,
            capture_output=True,
            text=True,
            timeout=600,
        )
        # otter's own error is the only clue to a failed run: show its end.
        assert done.returncode == 0, (
            f"{name}: otter run exited {done.returncode}:\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
        return name, json.loads((out / "results.json").read_text())

    # Each kernel picks free TCP ports and binds them a moment later: fewer kernels
    # starting together make a clash on a port less likely (on a many-core machine).
    with ThreadPoolExecutor(max_workers=min(os.cpu_count() or 1, 4)) as pool:
        results = dict(pool.map(run, built.items()))
    lost = {}
    for name, result in results.items():
        scored = [t for t in result["tests"] if "score" in t]
        assert scored, f"{name}: no test was scored"
        lost.update(
            {
                f"{name}/{t['name']}": t["score"]
                for t in scored
                if t["score"] < t["max_score"]
            }
        )
    assert not lost, f"points lost in the fresh environment: {lost}"


def test_the_wheel_folder_is_removed_at_exit():
    """The wheel the zips carry is built once per process in a temporary folder, which
    is gone when the process ends."""
    code = "from tools import grading; w = grading.wheel(); print(w, w.exists())"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, [ROOT / "src", ROOT]))}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env,
        check=True, cwd=ROOT,
    ).stdout.split()  # fmt: skip
    assert out[1] == "True" and out[0].endswith(".whl")
    assert not Path(out[0]).parent.exists(), "the wheel's folder outlived the process"
