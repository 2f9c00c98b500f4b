"""The package keeps the promises of its layout: attention written once, fast paths
private."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import attnsig
from attnsig import attention

ROOT = Path(__file__).resolve().parent.parent


def test_softmax_weights_are_computed_in_one_place():
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "softmax_sites.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    homes = "['_attention_core', '_attention_fast', 'attention']"
    assert f"Modules holding softmax weights: {homes}" in run.stdout


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
