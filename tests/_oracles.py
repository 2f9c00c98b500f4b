"""Oracles imported when a test first uses them.

Without PyTorch installed, the oracle tests skip and every other test in the same file
still runs (the hand cases need only requirements.txt).
"""

import pytest


class LazyOracle:
    """A module imported at its first attribute access, or the test skips."""

    def __init__(self, module: str, reason: str) -> None:
        self._module = module
        self._reason = reason

    def __getattr__(self, name):
        if name.startswith("__"):  # pytest's collector asks for __test__ and the like
            raise AttributeError(name)
        return getattr(pytest.importorskip(self._module, reason=self._reason), name)


torch = LazyOracle("torch", "the PyTorch oracle (requirements-test.txt)")
