"""The set-up of "How to use": a fresh environment from the zip of student notebooks.

The zip (tools/student_edition.py, `write_archive`) is written by the student edition's
own pipeline into a temporary folder, unpacked, and installed as the student edition's
"How to use" page says: `python -m venv`, `pip install -r requirements.txt` from the
unpacked folder (pip downloads from the package index, or takes its cache). Then the
Jupyter front end must start (`jupyter lab --version`), and a student notebook must run
from top to bottom in that environment's kernel, with `attnsig` from the zip's wheel.
Slow (a few minutes the first time, while pip downloads); it needs a package index.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import nbformat

from tools import student_edition
from tools.student_edition import ROOT

# The chapter the test runs: short, and it uses the package, numpy and the explorers.
NOTEBOOK = Path("chapters") / "getting-started" / "tour.ipynb"
NOT_FOR_STUDENTS = {
    "sphinx",
    "jupyter-book",
    "myst-nb",
    "pytest",
    "ruff",
    "nbval",
    "hypothesis",
    "otter-grader",
    "playwright",
    "torch",
}


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def _pins(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z0-9][\w.-]*)==(\S+)", line.split("#")[0].strip())
        if m:
            found[_name(m.group(1))] = m.group(2)
    return found


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, (
        f"{' '.join(map(str, command))} failed:\n"
        f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )
    return result


def test_a_fresh_environment_from_the_zip_runs_a_student_notebook(tmp_path):
    source, notebooks = tmp_path / "source", tmp_path / "notebooks"
    student_edition.prepare_source(source, notebooks)
    with zipfile.ZipFile(source / student_edition.ARCHIVE) as zf:
        zf.extractall(tmp_path / "unpacked")
    folder = tmp_path / "unpacked" / student_edition.ARCHIVE_FOLDER
    assert (folder / NOTEBOOK).exists()

    # Nothing of this checkout or of the book's environment may leak in.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON", "VIRTUAL_ENV", "JUPYTER", "PIP_REQUIRE"))
    }
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    _run([base, "-m", "venv", str(venv)], env=env)
    python = venv / "bin" / "python"
    # Without byte-compiling every installed module (half of pip's CPU time here):
    # Python compiles what the notebook imports when it imports it; what is
    # installed, and at which versions, is the same.
    _run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-compile"]
        + ["-r", "requirements.txt"],
        cwd=folder,
        env=env,
    )

    # The front end that "How to use" starts, at the pinned version.
    version = _run([str(venv / "bin" / "jupyter"), "lab", "--version"], env=env)
    pins = _pins((ROOT / "constraints.txt").read_text())
    assert version.stdout.strip() == pins["jupyterlab"]

    # Every installed package at the version of constraints.txt, none of the tools.
    frozen = _run([str(python), "-m", "pip", "freeze"], env=env).stdout
    installed = _pins(frozen)
    assert "attnsig" in {_name(ln.split(" @ ")[0]) for ln in frozen.splitlines()} | set(
        installed
    )
    installed.pop("attnsig", None)
    unpinned = {n: v for n, v in installed.items() if pins.get(n) != v and n != "pip"}
    assert not unpinned, f"installed, not at the pins of constraints.txt: {unpinned}"
    assert not NOT_FOR_STUDENTS & set(installed)

    # A student notebook, top to bottom, in this environment's own kernel; its first
    # cell (the set-up) must find attnsig installed from the wheel, not install it.
    nb = nbformat.read(folder / NOTEBOOK, as_version=4)
    check = textwrap.dedent(
        f"""\
        import sys, attnsig
        assert sys.prefix == {str(venv)!r}, sys.prefix
        assert attnsig.__file__.startswith({str(venv)!r}), attnsig.__file__
        """
    )
    nb.cells.insert(0, nbformat.v4.new_code_cell(check))
    runnable = tmp_path / "run.ipynb"
    nbformat.write(nb, runnable)
    script = textwrap.dedent(
        f"""\
        import nbclient, nbformat
        nb = nbformat.read({str(runnable)!r}, as_version=4)
        client = nbclient.NotebookClient(
            nb, timeout=600, kernel_name="python3",
            resources={{"metadata": {{"path": {str(folder / NOTEBOOK.parent)!r}}}}},
        )
        client.execute()
        print(sum(c.cell_type == "code" for c in nb.cells), "cells run")
        """
    )
    # The kernel spec of this environment, not one of the user's.
    env["JUPYTER_PATH"] = str(venv / "share" / "jupyter")
    env["JUPYTER_DATA_DIR"] = str(tmp_path / "jupyter-data")
    ran = _run([str(python), "-c", script], env=env)
    assert "cells run" in ran.stdout
