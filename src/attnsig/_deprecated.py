"""Names of release 0.1.0 that were renamed, kept as aliases that warn.

A module that renamed public names sets ``__getattr__ = renamed(__name__, globals(),
{"old": "new"})``; the old name then returns the new object with a
``DeprecationWarning`` naming the replacement. The aliases go in 0.2.0.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any


def renamed(
    module: str, namespace: dict[str, Any], names: dict[str, str]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` that serves each old name of ``names`` with a warning.

    Examples
    --------
    >>> import warnings
    >>> getattr_ = renamed("demo", {"new": 1}, {"old": "new"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     getattr_("old")
    1
    >>> print(caught[0].message)
    demo.old was renamed demo.new after release 0.1.0; the old name is deprecated and
    will be removed in 0.2.0
    """

    def __getattr__(name: str) -> Any:
        if name in names:
            new = names[name]
            warnings.warn(
                f"{module}.{name} was renamed {module}.{new} after release 0.1.0; the "
                "old name is deprecated and will be removed in 0.2.0",
                DeprecationWarning,
                stacklevel=2,
            )
            return namespace[new]
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
