"""The package keeps the promises of its layout: attention written once, fast paths
private."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import attnsig
from attnsig import attention

ROOT = Path(__file__).resolve().parent.parent


def _ruff_on(source: str, as_file: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--stdin-filename",
            as_file,
            "-",
        ],
        input=source,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\n\n\ndef f(x):\n    return np.exp(x) / np.exp(x).sum()\n",
        "import math\n\n\ndef f(x):\n    return math.exp(x)\n",
        "from scipy.special import softmax\n\nsoftmax([1.0])\n",
    ],
)
def test_softmax_weights_are_computed_in_one_place(source):
    # ruff's banned-api rule (pyproject.toml) keeps every exponential of the package in
    # attnsig._attention_core unless a noqa says why it is not a softmax: a second
    # softmax in any other module fails the lint step.
    elsewhere = _ruff_on('"""Probe."""\n\n' + source, "src/attnsig/heads.py")
    assert elsewhere.returncode == 1 and "TID251" in elsewhere.stdout, elsewhere.stdout
    home = _ruff_on(
        '"""Probe."""\n\nimport numpy as np\n\nnp.exp(1.0)\n',
        "src/attnsig/_attention_core.py",
    )
    assert "TID251" not in home.stdout, home.stdout


def test_multi_head_call_is_one_short_branch():
    # The class reads like the lesson: __call__ checks, then chooses readable or fast.
    source = inspect.getsource(attention.MultiHeadAttention.__call__)
    body = source.split('"""')[-1]
    code = [line for line in body.splitlines() if line.strip()]
    assert len(code) <= 6, code
    assert "_attention_fast" in body and "_readable_forward" in body
    assert "_attention_fast" not in inspect.getsource(
        attention.MultiHeadAttention._readable_forward
    )


def test_every_public_module_is_importable_from_the_package():
    for name in attnsig.__all__:
        module = getattr(attnsig, name)
        for public in getattr(module, "__all__", []):
            assert hasattr(module, public), f"attnsig.{name}.{public}"


# ------------------------------------------------------------------ imports and sizes
def _sizes():
    """benchmarks/sizes.py, which measures what issue 23 limits, as a module."""
    path = ROOT / "benchmarks" / "sizes.py"
    spec = importlib.util.spec_from_file_location("sizes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_package_imports_without_a_circle():
    sizes = _sizes()
    graph = sizes.import_graph(ROOT / "src" / "attnsig", "attnsig")
    assert "attnsig._attention_core" in graph["attnsig.attention"]  # edges are found
    assert sizes.circles(graph) == []


def test_the_tools_import_without_a_circle():
    sizes = _sizes()
    found = sizes.circles(sizes.import_graph(ROOT / "tools", "tools"))
    if found:
        pytest.xfail(
            f"tools/ still imports in a circle, {found}: issue 23 breaks it up in the "
            "rework of tools/"
        )
    assert found == []


def test_the_circle_finder_can_fail(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\nimport numpy\n")
    (package / "b.py").write_text("def f():\n    from .sub.c import g\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "c.py").write_text("from ..a import x\n")
    (package / "d.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n"
    )
    sizes = _sizes()
    graph = sizes.import_graph(package, "pkg")
    assert graph["pkg.d"] == set()  # imports for type checkers only do not count
    assert sizes.circles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c"]]


def test_the_size_script_reports():
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "sizes.py"), "--report-only"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "| MultiHeadAttention code lines | " in run.stdout
    mha = _sizes().class_code_lines(
        ROOT / "src" / "attnsig" / "attention.py", "MultiHeadAttention"
    )
    assert mha <= 100, f"MultiHeadAttention has {mha} code lines; issue 23 allows 100"
