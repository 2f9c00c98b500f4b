"""The result cache of `make test` (tests/result_cache.py), on a tiny project.

Each test writes a git repository in a temporary folder with a passing and a failing
test module, runs pytest on it in a subprocess with the plugin (as `make test` does),
and reads which tests ran from the JUnit file: a cached test has the property `cached`.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import result_cache

ROOT = Path(__file__).resolve().parents[1]

GOOD = """
import pytest

def test_one():
    assert 1 + 1 == 2

def test_two():
    pytest.skip("more pieces than lanes")  # a skip the inputs decide
"""
BAD = """
def test_fails():
    assert 1 + 1 == 3

def test_passes():
    pass
"""
UNBUILT = """
import pytest

def test_needs_a_build():
    pytest.skip("not built: _build/html")  # may change without any input changing
"""


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


@pytest.fixture
def project(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\n")
    (project / ".gitignore").write_text("_build/\n")
    (project / "test_good.py").write_text(GOOD)
    (project / "test_bad.py").write_text(BAD)
    (project / "test_unbuilt.py").write_text(UNBUILT)
    (project / "data.txt").write_text("input\n")
    _git(project, "init", "-q")
    _git(project, "add", ".")
    return project


def run(project: Path, *args: str, **env: str) -> dict[str, str]:
    """Run pytest with the plugin; the outcome of each test: passed, failed, skipped,
    each prefixed with `cached ` when it came from the cache."""
    junit = project / "_build" / "junit.xml"
    # Not the variables of the run around this one (its cache switch, its xdist worker).
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("ATTNSIG_", "PYTEST_"))
    }
    environment.update(PYTHONPATH=str(ROOT), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", **env)
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.result_cache", *args]
        + ["-q", f"--junitxml={junit}", "-p", "no:cacheprovider"],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
    )
    outcomes = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        outcome = "passed"
        for tag in ("failure", "error", "skipped"):
            if case.find(tag) is not None:
                outcome = {"error": "failed", "failure": "failed"}.get(tag, tag)
        cached = any(p.get("name") == "cached" for p in case.iter("property"))
        outcomes[case.get("name")] = ("cached " if cached else "") + outcome
    return outcomes


FIRST = {
    "test_one": "passed",
    "test_two": "skipped",
    "test_fails": "failed",
    "test_passes": "passed",
    "test_needs_a_build": "skipped",
}
WARM = dict(FIRST, test_one="cached passed", test_two="cached skipped")


def test_only_the_passing_unchanged_module_is_not_rerun(project):
    assert run(project) == FIRST
    # The failing module is never cached, nor one with a skip that may change.
    assert run(project) == WARM
    assert run(project, ATTNSIG_NO_CACHE="1") == FIRST
    with (project / "test_good.py").open("a") as f:
        f.write("\n# edited\n")
    assert run(project) == FIRST
    assert run(project) == WARM
    (project / "data.txt").write_text(
        "changed\n"
    )  # a tracked file: any test may read it
    assert run(project) == FIRST
    (project / "new_helper.py").write_text("x = 1\n")  # untracked, not ignored
    assert run(project) == FIRST
    assert run(project, ATTNSIG_TEST_CHAPTERS="tour") == FIRST  # the environment
    (project / "_build" / "ignored.txt").write_text("x\n")  # git ignores it
    assert run(project) == WARM
    # The stored run had both tests of the module; one alone is not the same run, and
    # its record does not replace the one of the whole module.
    assert run(project, "test_good.py::test_one") == {"test_one": "passed"}
    assert run(project, "test_good.py::test_one") == {"test_one": "cached passed"}
    assert run(project) == WARM


def test_under_xdist_with_loadfile(project):
    pytest.importorskip("xdist")
    args = ("-p", "xdist.plugin", "-n", "2", "--dist", "loadfile")
    assert run(project, *args) == FIRST
    assert run(project, *args) == WARM
    assert run(project) == WARM  # the same record serves a run without workers


def test_a_notebook_is_keyed_on_its_folder_and_the_package(tmp_path, monkeypatch):
    chapter = tmp_path / "chapters" / "part"
    chapter.mkdir(parents=True)
    (chapter / "one.ipynb").write_text("{}")
    (chapter / "two.ipynb").write_text("{}")
    (chapter / "one_checks.py").write_text("x = 1\n")
    (tmp_path / "elsewhere.txt").write_text("a\n")
    options = SimpleNamespace(nbval=True, nbval_sanitize_with=None)
    cache = result_cache.ResultCache(SimpleNamespace(rootpath=tmp_path, option=options))
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    unit = "chapters/part/one.ipynb"
    first = cache.key(unit)
    (tmp_path / "elsewhere.txt").write_text("b\n")  # not an input of a notebook
    (chapter / "two.ipynb").write_text('{"cells": []}')  # another notebook
    assert cache.key(unit) == first
    (chapter / "one_checks.py").write_text("x = 2\n")
    second = cache.key(unit)
    assert second != first
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Prescott")  # the second BLAS kernel
    assert cache.key(unit) != second
    monkeypatch.delenv("OPENBLAS_CORETYPE")
    options.nbval_lax = True
    assert cache.key(unit) != second


def test_a_step_runs_again_only_when_its_inputs_or_outputs_changed(project):
    def step(*command: str) -> str:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        env.pop("ATTNSIG_NO_CACHE", None)
        args = ["step", "build", "--outputs", "_build/out", "--"]
        return subprocess.run(
            [sys.executable, "-m", "tests.result_cache", *args, *command],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
        ).stdout

    build = ("sh", "-c", "mkdir -p _build && echo ran && echo $$ > _build/out")
    assert step(*build) == "ran\n"
    assert step(*build).startswith("build: cached")
    (project / "_build" / "out").write_text("changed by hand\n")  # its output
    assert step(*build) == "ran\n"
    assert step(*build).startswith("build: cached")
    (project / "data.txt").write_text("changed\n")  # an input
    assert step(*build) == "ran\n"
    failing = ("sh", "-c", "echo ran; exit 1")
    assert step(*failing) == "ran\n"
    assert step(*failing) == "ran\n"  # a failure is not cached


# Skips that something outside the key decides (a build, an installed program): the
# unit runs again next time. Every skip reason in the tests is one or the other.
UNSTABLE_SKIPS = re.compile(
    r"not built|not installed|no Chromium|no local MathJax|not a git checkout"
    r"|no sandbox|is the independent oracle|is in requirements-test|no chapter pages"
)


def _skip_reasons():
    """(file, reason) of every skip in the tests whose reason is written out: the
    argument of `pytest.skip`, the `reason=` of `skipif` and `importorskip`."""
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name not in {"skip", "skipif", "importorskip"}:
                continue
            given = [k.value for k in node.keywords if k.arg == "reason"]
            if name == "skip" and node.args:
                given.append(node.args[0])
            for value in given:
                if isinstance(value, ast.Constant):
                    yield path.name, value.value
                elif isinstance(value, ast.JoinedStr):
                    yield (
                        path.name,
                        "".join(
                            v.value if isinstance(v, ast.Constant) else "{}"
                            for v in value.values
                        ),
                    )


def test_every_skip_reason_is_stable_or_not():
    """A skip the cache does not know as stable makes its whole module run again on
    every `make test` (test_assignments grades eleven chapters): each reason written
    in the tests is either decided by the key's inputs or by something outside."""
    reasons = list(_skip_reasons())
    assert len(reasons) > 20, reasons  # the walk finds the skips
    unknown = [
        (f, r)
        for f, r in reasons
        if not result_cache.STABLE_SKIPS.search(r) and not UNSTABLE_SKIPS.search(r)
    ]
    assert not unknown, f"classify these skips in tests/result_cache.py: {unknown}"
    assert result_cache.STABLE_SKIPS.search("no variants in this chapter")
