"""The signature tests pass where numba cannot be imported (the browser, some laptops).

The environment variable ``ATTNSIG_DISABLE_NUMBA`` only switches the default; here
``import numba`` itself fails, in a fresh interpreter, as it does where numba is not
installed, and the whole of ``tests/test_signature.py`` must pass on the NumPy route
without a warning from attnsig.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs pytest with a finder at the front of sys.meta_path that refuses numba.
RUNNER = """
import sys


class NoNumba:
    def find_spec(self, name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ImportError(f"No module named {name!r} (blocked by the test)")
        return None


sys.meta_path.insert(0, NoNumba())
import pytest

status = pytest.main(sys.argv[1:])
assert "numba" not in sys.modules, "numba was imported after all"
sys.exit(status)
"""


def test_signature_tests_pass_without_numba(tmp_path):
    env = {**os.environ, "PYTHONWARNINGS": "error::UserWarning:attnsig.signature"}
    env.pop("ATTNSIG_DISABLE_NUMBA", None)  # the import failure alone must suffice
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            RUNNER,
            "-q",
            "-rs",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            "-W",
            "error::UserWarning",
            f"--rootdir={ROOT}",
            str(ROOT / "tests" / "test_signature.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and " failed" not in run.stdout
    # The compiled backend's tests skip themselves (and the optional oracle's, if it
    # is missing); nothing else may.
    skips = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert any("numba is not installed" in line for line in skips), run.stdout[-3000:]
    expected = ("numba is not installed", "roughpy")
    assert all(any(why in line for why in expected) for line in skips), skips
