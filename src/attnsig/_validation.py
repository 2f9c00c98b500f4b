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

import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "as_float_array",
    "as_float64_array",
    "as_matrix",
    "as_vector",
    "check_unit_interval",
    "check_finite",
    "check_positive_int",
    "check_int",
    "check_real",
    "check_positive_float",
    "check_index",
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


def check_unit_interval(value: Any, name: str) -> float:
    """A real number strictly between 0 and 1 (an accuracy ``epsilon``, a threshold).

    Examples
    --------
    >>> check_unit_interval(0.1, "epsilon")
    0.1
    >>> check_unit_interval(1.0, "epsilon")
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be a real number in (0, 1); got 1.0
    """
    return check_real(value, name, low=0, high=1, low_open=True, high_open=True)


def check_finite(
    arr: np.ndarray, name: str, *, allow_inf: bool = False, allow_nan: bool = False
) -> None:
    """Raise ``ValueError`` if ``arr`` holds NaN or infinite entries that are not
    allowed.

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


def check_int(value: Any, name: str, *, minimum: int | None = None) -> int:
    """Return ``value`` as an ``int``; refuse non-integers, ``bool`` and values <
    ``minimum``.

    Examples
    --------
    >>> check_int(-3, "frequency")
    -3
    >>> check_int(2.0, "frequency")
    Traceback (most recent call last):
    ...
    TypeError: frequency must be an integer; got 2.0 of type float
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {_describe(value)}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value}")
    return int(value)


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= ``minimum``; raise
    otherwise.

    Examples
    --------
    >>> check_positive_int(3, "depth")
    3
    >>> check_positive_int(True, "depth")
    Traceback (most recent call last):
    ...
    TypeError: depth must be an integer >= 1; got True of type bool
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be an integer >= {minimum}; got {_describe(value)}"
        )
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value}")
    return int(value)


def _interval(low, high, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return (
            f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        )
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"{'<' if high_open else '<='} {high:g}"
    return "finite"


def check_real(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """Return ``value`` as a ``float`` if it is a real number in the given interval.

    Refuses ``bool``, strings and other non-numbers (``TypeError``), NaN, infinities
    (unless ``allow_inf``) and values outside ``[low, high]`` (open ends with
    ``low_open``, ``high_open``) with a ``ValueError``; every message names the
    argument.

    Examples
    --------
    >>> check_real(0.25, "epsilon", low=0, high=1, low_open=True, high_open=True)
    0.25
    >>> check_real("0.5", "threshold", low=0, high=1)
    Traceback (most recent call last):
    ...
    TypeError: threshold must be a real number in [0, 1]; got '0.5' of type str
    """

    def expected() -> str:  # built only when an error is raised
        return _interval(low, high, low_open, high_open)

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number {expected()}; got {_describe(value)}"
        )
    value = float(value)
    if np.isnan(value) or (np.isinf(value) and not allow_inf):
        raise ValueError(
            f"{name} must be a finite real number {expected()}; got {value}"
        )
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        raise ValueError(f"{name} must be a real number {expected()}; got {value}")
    return value


def check_positive_float(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a ``float`` if it is a finite positive real number; raise
    otherwise.

    Examples
    --------
    >>> check_positive_float(0, "scale", allow_zero=True)
    0.0
    >>> check_positive_float(-1.0, "scale")
    Traceback (most recent call last):
    ...
    ValueError: scale must be a finite number > 0; got -1.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {_describe(value)}")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}; got {value}")
    return value


def check_index(value: Any, n: int, name: str) -> int:
    """Return ``value`` as an ``int`` index into ``n`` items (``0 <= value < n``).

    Examples
    --------
    >>> check_index(2, 3, "index")
    2
    >>> check_index(3, 3, "index")
    Traceback (most recent call last):
    ...
    ValueError: index must be an index in [0, 3); got 3
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be an integer index in [0, {n}); got {_describe(value)}"
        )
    if not 0 <= value < n:
        raise ValueError(f"{name} must be an index in [0, {n}); got {value}")
    return int(value)


def check_indices(
    values: Any,
    n: int,
    name: str,
    *,
    count: int | None = None,
    distinct: bool = True,
) -> list[int]:
    """Return a list of ``int`` indices into ``n`` items: at least one, ``count`` if
    given.

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
    out = [check_index(v, n, f"{name}[{i}]") for i, v in enumerate(items)]
    if count is not None and len(out) != count:
        raise ValueError(f"{name} must hold {count} indices; got {values!r}")
    if not out:
        raise ValueError(f"{name} must name at least one key; got {values!r}")
    if distinct and len(set(out)) != len(out):
        raise ValueError(f"{name} must be distinct; got {values!r}")
    return out


def check_bool_array(mask: Any, name: str) -> np.ndarray:
    """Return ``mask`` as a boolean array; refuse numeric masks, whose meaning is
    ambiguous.

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
    """Return a ``numpy.random.Generator``; with ``seed_ok``, an int seed or None makes
    one.

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
    """Return ``value`` if it is an instance of ``types``; else a ``TypeError`` naming
    it.

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
    """Return ``list(value)`` for a list, tuple, range or array; refuse strings and
    others.

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
