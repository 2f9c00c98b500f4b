"""Input checks shared by the package: clear errors instead of silent NaNs or wrong shapes."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = [
    "as_float_array",
    "check_finite",
    "check_positive_int",
    "check_bool_array",
    "check_positive_float",
]


def as_float_array(x: Any, name: str, *, ndim_min: int = 0, ndim: int | None = None,
                   allow_inf: bool = False, allow_nan: bool = False) -> np.ndarray:
    """Return ``x`` as a floating-point array, or raise an error naming ``name``.

    Integer and boolean input is converted to float64; float32 stays float32.

    Raises
    ------
    TypeError
        If ``x`` is not numeric (strings, objects, complex numbers).
    ValueError
        If ``x`` has fewer than ``ndim_min`` (or not exactly ``ndim``) axes, or holds NaN
        (unless ``allow_nan``) or an infinity (unless ``allow_inf``).
    """
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged nested lists and the like
        raise TypeError(f"{name} must be an array of real numbers; got {type(x).__name__} ({exc})") from None
    if arr.dtype == bool or np.issubdtype(arr.dtype, np.integer):
        arr = arr.astype(np.float64)
    elif not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(f"{name} must be an array of real numbers; got dtype {arr.dtype}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes; got shape {arr.shape}")
    if arr.ndim < ndim_min:
        raise ValueError(f"{name} must have at least {ndim_min} axes; got shape {arr.shape}")
    check_finite(arr, name, allow_inf=allow_inf, allow_nan=allow_nan)
    return arr


def check_finite(arr: np.ndarray, name: str, *, allow_inf: bool = False, allow_nan: bool = False) -> None:
    """Raise ``ValueError`` if ``arr`` holds NaN or infinite entries that are not allowed."""
    if not allow_nan and np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN at {_first_index(np.isnan(arr))}; expected real numbers")
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} contains an infinite entry at {_first_index(np.isinf(arr))}; "
                         "expected finite numbers")


def _first_index(flags: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(flags)[0])


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= ``minimum``; raise otherwise.

    ``bool`` is refused although it is an ``int`` subclass: ``depth=True`` is a bug, not a 1.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r} of type {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value}")
    return int(value)


def check_positive_float(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a ``float`` if it is a finite positive real number; raise otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r} of type {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}; got {value}")
    return value


def check_bool_array(mask: Any, name: str) -> np.ndarray:
    """Return ``mask`` as a boolean array; refuse numeric masks, whose meaning is ambiguous.

    A float mask could be additive (0 / -inf) or multiplicative (1 / 0); the package only takes
    boolean masks with True = may attend.
    """
    arr = np.asarray(mask)
    if arr.dtype != bool:
        raise TypeError(f"{name} must be a boolean array (True = may attend); got dtype {arr.dtype}")
    return arr
