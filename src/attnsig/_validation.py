"""Input checks shared by the package: one vocabulary of clear errors.

Every public function checks its arguments with these helpers, so that bad input always
gives a ``TypeError`` (wrong kind of object) or a ``ValueError`` (right kind, wrong
value) whose message names the argument, shows what it got and says what it expects. No
other module raises ``TypeError`` or tests the type of a number itself;
``tests/test_validation.py`` enforces that.

``bool`` is refused wherever a number is expected: ``depth=True`` or ``scale=True`` is a
bug, not a 1.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "as_float_array",
    "as_float64_array",
    "as_matrix",
    "as_vector",
    "check_finite",
    "check_scalar",
    "check_positive_int",
    "check_int",
    "check_positive_float",
    "check_indices",
    "check_bool_array",
    "check_rng",
    "check_choice",
    "check_instance",
    "check_callable",
    "check_float_dtype",
    "check_sequence",
    "as_int_array",
]


def _asarray(x: Any, name: str, expected: str) -> np.ndarray:
    """``np.asarray(x)``, or a TypeError naming ``name`` when NumPy cannot make one."""
    try:
        return np.asarray(x)
    except Exception as exc:  # ragged nested lists and the like
        raise TypeError(
            f"{name} must be {expected}; got {type(x).__name__} ({exc})"
        ) from None


def _describe(value: Any) -> str:
    return f"{value!r} of type {type(value).__name__}"


def as_float_array(
    x: Any,
    name: str,
    *,
    ndim_min: int = 0,
    ndim: int | None = None,
    allow_inf: bool = False,
    allow_nan: bool = False,
    allow_bool: bool = True,
) -> np.ndarray:
    """Return ``x`` as a floating-point array, or raise an error naming ``name``.

    Integer and boolean input is converted to float64 (boolean input is refused with
    ``allow_bool=False``, for numbers such as scales where ``True`` is a bug); float32
    stays float32.

    Raises
    ------
    TypeError
        If ``x`` is not numeric (strings, objects, complex numbers).
    ValueError
        If ``x`` has fewer than ``ndim_min`` (or not exactly ``ndim``) axes, or holds
        NaN (unless ``allow_nan``) or an infinity (unless ``allow_inf``).

    Examples
    --------
    >>> as_float_array([1, 2], "x")
    array([1., 2.])
    >>> as_float_array("ab", "x")
    Traceback (most recent call last):
    ...
    TypeError: x must be an array of real numbers; got dtype <U2
    """
    arr = _asarray(x, name, "an array of real numbers")
    if arr.dtype == bool and not allow_bool:
        raise TypeError(
            f"{name} must be real numbers, not booleans; got {_describe(x)}"
        )
    if arr.dtype == bool or np.issubdtype(arr.dtype, np.integer):
        arr = arr.astype(np.float64)
    elif not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(
            f"{name} must be an array of real numbers; got dtype {arr.dtype}"
        )
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes; got shape {arr.shape}")
    if arr.ndim < ndim_min:
        raise ValueError(
            f"{name} must have at least {ndim_min} axes; got shape {arr.shape}"
        )
    check_finite(arr, name, allow_inf=allow_inf, allow_nan=allow_nan)
    return arr


def as_float64_array(
    x: Any, name: str, *, ndim_min: int = 0, ndim: int | None = None
) -> np.ndarray:
    """:func:`as_float_array`, then float64 (for exact-arithmetic constructions).

    Examples
    --------
    >>> as_float64_array(np.ones(2, np.float32), "x").dtype
    dtype('float64')
    """
    arr = as_float_array(x, name, ndim_min=ndim_min, ndim=ndim)
    return arr.astype(np.float64, copy=False)


def as_matrix(x: Any, name: str) -> np.ndarray:
    """A non-empty float64 matrix of shape (n, d), such as a set of keys as rows.

    Examples
    --------
    >>> as_matrix([[1, 0], [0, 1]], "keys").shape
    (2, 2)
    >>> as_matrix([1.0, 0.0], "keys")
    Traceback (most recent call last):
    ...
    ValueError: keys must be a non-empty 2-D array of shape (n, d); got shape (2,)
    """
    arr = as_float64_array(x, name)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(
            f"{name} must be a non-empty 2-D array of shape (n, d); "
            f"got shape {arr.shape}"
        )
    return arr


def as_vector(x: Any, name: str, dim: int | None = None) -> np.ndarray:
    """A float64 vector of shape (d,), or (dim,) when ``dim`` is given.

    Examples
    --------
    >>> as_vector([1, 2], "direction", dim=2)
    array([1., 2.])
    >>> as_vector([1, 2], "direction", dim=3)
    Traceback (most recent call last):
    ...
    ValueError: direction must have shape (3,); got shape (2,)
    """
    arr = as_float64_array(x, name)
    if arr.ndim != 1 or (dim is not None and arr.shape[0] != dim):
        expected = f"({dim},)" if dim is not None else "(d,)"
        raise ValueError(f"{name} must have shape {expected}; got shape {arr.shape}")
    return arr


def check_finite(
    arr: np.ndarray, name: str, *, allow_inf: bool = False, allow_nan: bool = False
) -> None:
    """Raise ``ValueError`` if ``arr`` holds NaN or infinite entries not allowed.

    Examples
    --------
    >>> check_finite(np.array([1.0, np.nan]), "x")
    Traceback (most recent call last):
    ...
    ValueError: x contains NaN at (1,); expected real numbers
    """
    if not allow_nan and np.isnan(arr).any():
        raise ValueError(
            f"{name} contains NaN at {_first_index(np.isnan(arr))}; expected real "
            "numbers"
        )
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(
            f"{name} contains an infinite entry at {_first_index(np.isinf(arr))}; "
            "expected finite numbers"
        )


def _first_index(flags: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(flags)[0])


_BOUNDARIES = ("both", "left", "right", "neither")


def check_scalar(
    value: Any,
    name: str,
    target_type: type = float,
    *,
    min_val: float | None = None,
    max_val: float | None = None,
    include_boundaries: str = "both",
    allow_inf: bool = False,
) -> Any:
    """Return ``value`` as an ``int`` or a ``float`` if it is a number in the bounds.

    The one number checker of the package, in the manner of scikit-learn's
    ``check_scalar``. ``bool`` is refused: ``depth=True`` is a bug, not a 1.

    Parameters
    ----------
    value : object
        The argument to check.
    name : str
        Its name, for the message.
    target_type : {float, int}
        ``int``: an integral number (Python or NumPy), returned as ``int``. ``float``: a
        real number (integers too), returned as ``float``.
    min_val, max_val : float, optional
        Bounds; ``None`` means none on that side.
    include_boundaries : {"both", "left", "right", "neither"}
        Which bounds are allowed values themselves, as in scikit-learn.
    allow_inf : bool
        Accept ``±inf`` (within the bounds) for ``float``; NaN is always refused.

    Returns
    -------
    int or float

    Raises
    ------
    TypeError
        If ``value`` is not a number of the target type.
    ValueError
        If it is NaN, infinite (unless ``allow_inf``) or out of bounds; the message
        names the argument, the expected range and what it got.

    Examples
    --------
    >>> check_scalar(3, "depth", int, min_val=1)
    3
    >>> check_scalar(0.5, "tau", min_val=0, max_val=1, include_boundaries="neither")
    0.5
    >>> check_scalar(True, "depth", int, min_val=1)
    Traceback (most recent call last):
    ...
    TypeError: depth must be an integer >= 1; got True of type bool
    >>> check_scalar(1.0, "tau", min_val=0, max_val=1, include_boundaries="neither")
    Traceback (most recent call last):
    ...
    ValueError: tau must be a real number in (0, 1); got 1.0
    """
    if include_boundaries not in _BOUNDARIES:
        raise ValueError(
            f"include_boundaries must be one of {_BOUNDARIES}; "
            f"got {include_boundaries!r}"
        )
    integral = target_type is int
    if not integral and target_type is not float:
        raise TypeError(f"target_type must be int or float; got {target_type!r}")
    low_open = include_boundaries in ("right", "neither")
    high_open = include_boundaries in ("left", "neither")
    kind = "an integer" if integral else "a real number"
    wanted = numbers.Integral if integral else numbers.Real
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, wanted):
        expected = _bounds(min_val, max_val, low_open, high_open)
        raise TypeError(f"{name} must be {kind}{expected}; got {_describe(value)}")
    number = int(value) if integral else float(value)
    if not integral and (math.isnan(number) or (math.isinf(number) and not allow_inf)):
        expected = _bounds(min_val, max_val, low_open, high_open)
        raise ValueError(f"{name} must be a finite real number{expected}; got {number}")
    too_low = min_val is not None and (
        number <= min_val if low_open else number < min_val
    )
    too_high = max_val is not None and (
        number >= max_val if high_open else number > max_val
    )
    if too_low or too_high:
        expected = _bounds(min_val, max_val, low_open, high_open)
        raise ValueError(f"{name} must be {kind}{expected}; got {number}")
    return number


def _bounds(low: Any, high: Any, low_open: bool, high_open: bool) -> str:
    """The allowed range as the messages say it: `` in (0, 1]``, `` >= 1`` or ``""``."""

    def show(x: Any) -> str:
        return str(x) if isinstance(x, numbers.Integral) else f"{x:g}"

    if low is not None and high is not None:
        left, right = "(" if low_open else "[", ")" if high_open else "]"
        return f" in {left}{show(low)}, {show(high)}{right}"
    if low is not None:
        return f" {'>' if low_open else '>='} {show(low)}"
    if high is not None:
        return f" {'<' if high_open else '<='} {show(high)}"
    return ""


# Transitional: signature.py, reconstruction.py and explorer.py still call these two
# older checkers; they are check_scalar with fixed arguments and go when those modules
# call check_scalar.
def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """:func:`check_scalar` for an integer ``>= minimum`` (transitional name).

    Examples
    --------
    >>> check_positive_int(3, "depth")
    3
    """
    return check_scalar(value, name, int, min_val=minimum)


def check_int(value: Any, name: str, *, minimum: int | None = None) -> int:
    """:func:`check_scalar` for an integer, ``>= minimum`` if given (transitional name).

    Examples
    --------
    >>> check_int(-3, "frequency")
    -3
    """
    return check_scalar(value, name, int, min_val=minimum)


def check_positive_float(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """:func:`check_scalar` for a real number ``> 0`` (transitional name).

    With ``allow_zero``, ``>= 0``.

    Examples
    --------
    >>> check_positive_float(0, "scale", allow_zero=True)
    0.0
    """
    boundaries = "both" if allow_zero else "neither"
    return check_scalar(value, name, min_val=0, include_boundaries=boundaries)


def check_indices(
    values: Any,
    n: int,
    name: str,
    *,
    count: int | None = None,
    distinct: bool = True,
) -> list[int]:
    """Return a list of ``int`` indices into ``n`` items: at least one, or ``count``.

    Examples
    --------
    >>> check_indices((0, 2), 3, "indices", count=2)
    [0, 2]
    >>> check_indices((1, 1), 3, "indices")
    Traceback (most recent call last):
    ...
    ValueError: indices must be distinct; got (1, 1)
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(
            f"{name} must be a sequence of integer indices; got {_describe(values)}"
        )
    items = list(values)
    out = [
        check_scalar(
            v, f"{name}[{i}]", int, min_val=0, max_val=n, include_boundaries="left"
        )
        for i, v in enumerate(items)
    ]
    if count is not None and len(out) != count:
        raise ValueError(f"{name} must hold {count} indices; got {values!r}")
    if not out:
        raise ValueError(f"{name} must name at least one key; got {values!r}")
    if distinct and len(set(out)) != len(out):
        raise ValueError(f"{name} must be distinct; got {values!r}")
    return out


def check_bool_array(mask: Any, name: str) -> np.ndarray:
    """Return ``mask`` as a boolean array; refuse numeric masks, which are ambiguous.

    A float mask could be additive (0 / -inf) or multiplicative (1 / 0); the package
    only takes boolean masks with True = may attend.

    Examples
    --------
    >>> check_bool_array([True, False], "mask")
    array([ True, False])
    """
    arr = np.asarray(mask)
    if arr.dtype != bool:
        raise TypeError(
            f"{name} must be a boolean array (True = may attend); got dtype {arr.dtype}"
        )
    return arr


def check_rng(
    rng: Any, name: str = "rng", *, seed_ok: bool = False
) -> np.random.Generator:
    """Return a ``numpy.random.Generator``, or with ``seed_ok`` one made from a seed.

    With ``seed_ok``, an int seed or None is passed to ``numpy.random.default_rng``.

    Examples
    --------
    >>> check_rng(np.random.default_rng(0)).__class__.__name__
    'Generator'
    >>> check_rng(0)
    Traceback (most recent call last):
    ...
    TypeError: rng must be a numpy.random.Generator; got 0 of type int
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if seed_ok and (
        rng is None
        or (
            isinstance(rng, (numbers.Integral, np.integer))
            and not isinstance(rng, bool)
        )
    ):
        return np.random.default_rng(rng)
    expected = "a numpy.random.Generator" + (", an int seed or None" if seed_ok else "")
    raise TypeError(f"{name} must be {expected}; got {_describe(rng)}")


def check_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of the strings ``choices``.

    Examples
    --------
    >>> check_choice("auto", "method", ("auto", "reference"))
    'auto'
    >>> check_choice("fast", "method", ("auto", "reference"))
    Traceback (most recent call last):
    ...
    ValueError: method must be one of 'auto', 'reference'; got 'fast'
    """
    choices = tuple(choices)
    if isinstance(value, str) and value in choices:
        return value  # the common case, without building a message
    listed = ", ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {listed}; got {_describe(value)}")
    raise ValueError(f"{name} must be one of {listed}; got {value!r}")


def check_instance(
    value: Any, name: str, types: type | tuple[type, ...], expected: str
) -> Any:
    """Return ``value`` if it is an instance of ``types``; else raise ``TypeError``.

    Examples
    --------
    >>> check_instance("abc", "name", str, "a string")
    'abc'
    >>> check_instance(3, "name", str, "a string")
    Traceback (most recent call last):
    ...
    TypeError: name must be a string; got 3 of type int
    """
    if not isinstance(value, types):
        raise TypeError(f"{name} must be {expected}; got {_describe(value)}")
    return value


def check_callable(value: Any, name: str, expected: str = "callable") -> Callable:
    """Return ``value`` if it is callable; else a ``TypeError`` naming it.

    Examples
    --------
    >>> check_callable(len, "f") is len
    True
    """
    if not callable(value):
        raise TypeError(f"{name} must be {expected}; got {type(value).__name__}")
    return value


def check_float_dtype(dtype: Any, name: str) -> np.dtype:
    """Return ``numpy.dtype(dtype)`` if it is a floating dtype; else a ``TypeError``.

    Examples
    --------
    >>> check_float_dtype("float32", "dtype")
    dtype('float32')
    """
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        raise TypeError(
            f"{name} must be a floating dtype; got {_describe(dtype)}"
        ) from None
    if not np.issubdtype(resolved, np.floating):
        raise TypeError(f"{name} must be a floating dtype; got {resolved}")
    return resolved


def check_sequence(value: Any, name: str, expected: str = "a sequence") -> list:
    """Return ``list(value)`` for a list, tuple, range or array; refuse the rest.

    Strings are refused too: ``"01"`` is not a sequence of letters here.

    Examples
    --------
    >>> check_sequence((0, 1), "word")
    [0, 1]
    >>> check_sequence("01", "word", "a sequence of integer letters")
    Traceback (most recent call last):
    ...
    TypeError: word must be a sequence of integer letters; got '01' of type str
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be {expected}; got {_describe(value)}")
    return list(value)


def as_int_array(x: Any, name: str, expected: str = "integers") -> np.ndarray:
    """Return ``x`` as an int64 array; refuse booleans, floats and other non-integers.

    Examples
    --------
    >>> as_int_array([1, 2], "tokens")
    array([1, 2])
    >>> as_int_array([1.0], "tokens")
    Traceback (most recent call last):
    ...
    TypeError: tokens must be integers; got dtype float64
    """
    arr = _asarray(x, name, expected)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be {expected}; got dtype {arr.dtype}")
    return arr.astype(np.int64)
