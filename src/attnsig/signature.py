"""Truncated path signatures of piecewise-linear paths.

Conventions
-----------
A path is an array of shape ``(..., L, d)``: ``L`` points in ``R^d``, joined by straight
segments; leading axes are a batch. The signature truncated at ``depth`` is returned
flat, of shape ``(..., d + d**2 + ... + d**depth)``:

* level 0 (the constant 1) is left out;
* levels follow each other in order, level ``k`` holding ``d**k`` entries;
* within a level, words ``(i_1, ..., i_k)`` (0-based letters) are in lexicographic
  order, so the entry of a word sits at ``offset_k + i_1 d**(k-1) + ... + i_k`` (C order
  of a ``(d,) * k`` array);
* the first letter is the earliest time:
  ``S^{i_1 ... i_k} = integral over t_1 < ... < t_k of dX^{i_1}_{t_1} ...
  dX^{i_k}_{t_k}``.

This is the convention of iisignature, pysiglib and signatory
(``signature(path, depth)`` here equals ``iisignature.sig(path, depth)``).

One function computes signatures, :func:`signature`; its ``method`` keyword chooses the
algorithm. ``"reference"`` is the one to read: it multiplies segment exponentials with
Chen's identity, level by level, below in this module. The fast methods live in private
modules and are tested against it to 1e-12:

* ``"compiled"``: the numba kernels of ``attnsig._signature_numba`` (single-threaded);
* ``"horner"`` and ``"meet-in-the-middle"``: pure NumPy, ``attnsig._signature_numpy``.

``method="auto"`` (the default) uses the compiled kernels when `numba
<https://numba.pydata.org>`_ can be imported (``pip install attnsig[fast]``) and the
NumPy ones otherwise, silently: that is the route in the browser (Pyodide) and on
machines without numba. numba is imported at the first call of :func:`signature`, not
with the package; the first call on a machine compiles the kernels (a few seconds) and
caches the machine code for later processes. The environment variable
``ATTNSIG_DISABLE_NUMBA=1`` makes ``"auto"`` use NumPy (read at every call).

The recurrence
--------------
The fast methods run, per straight segment with increment ``D``, Chen's identity with
the segment exponential ``exp(D) = sum_j D^{(x)j} / j!`` evaluated by Horner's rule,
level ``k`` from the top down (each level reads the old lower ones):

    S_k <- S_k + (S_{k-1} + (S_{k-2} + ... (S_1 + D/k) (x) D/(k-1) ...) (x) D/2) (x) D.

The compiled kernels and ``"horner"`` implement this line (the kernels also cut a few
long paths into pieces, run side by side and joined with :func:`chen`'s product);
``"meet-in-the-middle"`` sums the same terms grouped by the segment that holds the
middle letter of each word, so that one matrix product per path gives the upper levels
(see ``attnsig._signature_numpy``).
"""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from attnsig import _signature_numpy
from attnsig._validation import (
    as_float_array,
    check_choice,
    check_int,
    check_positive_int,
    check_sequence,
)

__all__ = [
    "METHODS",
    "signature",
    "signature_dim",
    "words",
    "word_index",
    "levels",
    "chen",
    "levy_area",
    "levy_area_matrix",
    "time_augment",
]

#: The algorithms of :func:`signature` (its ``method`` keyword).
METHODS = ("auto", "reference", "compiled", "horner", "meet-in-the-middle")

# The numba kernel module once imported, False if it cannot be (see _compiled_kernels).
_COMPILED: ModuleType | None | bool = None


# --------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------


def _as_path(path: Any, name: str = "path") -> np.ndarray:
    """Return ``path`` as a float64 array of shape ``(..., L, d)``.

    ``L >= 1`` and ``d >= 1``.
    """
    arr = as_float_array(path, name, ndim_min=2)
    if arr.shape[-2] == 0:
        raise ValueError(
            f"{name} must hold at least one point (L >= 1 on axis -2); got shape "
            f"{arr.shape}"
        )
    if arr.shape[-1] == 0:
        raise ValueError(
            f"{name} must have dimension d >= 1 on its last axis; got shape {arr.shape}"
        )
    return arr.astype(np.float64, copy=False)


def _as_signature(sig: Any, name: str, d: int, depth: int) -> np.ndarray:
    """Return a flat signature array.

    Its last axis has length ``signature_dim(d, depth)``.
    """
    arr = as_float_array(sig, name, ndim_min=1).astype(np.float64, copy=False)
    expected = signature_dim(d, depth)
    if arr.shape[-1] != expected:
        raise ValueError(
            f"{name} must have last axis of length signature_dim(d={d}, "
            f"depth={depth}) = "
            f"{expected}; got shape {arr.shape}"
        )
    return arr


# --------------------------------------------------------------------------------------
# Indexing: words <-> positions in the flat signature
# --------------------------------------------------------------------------------------


def signature_dim(d: int, depth: int) -> int:
    """Length ``d + d**2 + ... + d**depth`` of a truncated signature (no level 0).

    Parameters
    ----------
    d : int
        Dimension of the path, ``d >= 1``.
    depth : int
        Truncation level, ``depth >= 1``.

    Examples
    --------
    >>> signature_dim(2, 3)  # 2 + 4 + 8
    14
    """
    d = check_positive_int(d, "d")
    depth = check_positive_int(depth, "depth")
    return sum(d**k for k in range(1, depth + 1))


def _level_offsets(d: int, depth: int) -> list[int]:
    """Start of each level ``1..depth`` in the flat signature, plus the end.

    Length ``depth + 1``.
    """
    return [sum(d**j for j in range(1, k)) for k in range(1, depth + 2)]


def words(d: int, depth: int) -> list[tuple[int, ...]]:
    """All words of length ``1..depth`` over ``0..d-1``, in the signature's order.

    Returns
    -------
    list of tuple of int
        ``words(d, depth)[i]`` is the word whose signature entry is
        ``signature(path, depth)[..., i]``; the list has ``signature_dim(d, depth)``
        entries.

    Examples
    --------
    >>> words(2, 2)
    [(0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1)]
    """
    d = check_positive_int(d, "d")
    depth = check_positive_int(depth, "depth")
    return [
        w for k in range(1, depth + 1) for w in itertools.product(range(d), repeat=k)
    ]


def word_index(word: Sequence[int], d: int) -> int:
    """Position of ``word`` (0-based letters, first = earliest) in a flat signature.

    The inverse of ``words``: ``words(d, depth)[word_index(w, d)] == tuple(w)`` for
    every word of length at most ``depth``.

    Raises
    ------
    TypeError
        If ``word`` is not a sequence of integers.
    ValueError
        If ``word`` is empty (level 0 is not stored) or a letter is outside ``0..d-1``.

    Examples
    --------
    >>> word_index((1, 0), 2)
    4
    """
    d = check_positive_int(d, "d")
    letters = check_sequence(word, "word", "a sequence of integer letters")
    if not letters:
        raise ValueError(
            "word must have at least one letter (level 0 is not stored); got an empty "
            "word"
        )
    for i, letter in enumerate(letters):
        check_int(letter, f"word[{i}] (a letter)")
        if not 0 <= letter < d:
            raise ValueError(
                f"word letters must be in 0..{d - 1} for d = {d}; got {letter} in "
                f"{tuple(word)!r}"
            )
    position = 0
    for letter in letters:  # base-d number, first letter most significant
        position = position * d + int(letter)
    return _level_offsets(d, len(letters))[len(letters) - 1] + position


def levels(sig: Any, d: int, depth: int) -> list[np.ndarray]:
    """Split a flat signature into its levels.

    Parameters
    ----------
    sig : array_like, shape (..., signature_dim(d, depth))
    d, depth : int

    Returns
    -------
    list of ndarray
        ``depth`` arrays (views) of shapes ``(..., d)``, ``(..., d, d)``, ...,
        ``(..., d, ..., d)``; ``levels(sig, d, depth)[k - 1][..., i_1, ..., i_k]`` is
        the entry of the word ``(i_1, ..., i_k)``.

    Examples
    --------
    >>> first, second = levels(np.arange(6.0), 2, 2)
    >>> first
    array([0., 1.])
    >>> second
    array([[2., 3.],
           [4., 5.]])
    """
    d = check_positive_int(d, "d")
    depth = check_positive_int(depth, "depth")
    arr = _as_signature(sig, "sig", d, depth)
    offsets = _level_offsets(d, depth)
    batch = arr.shape[:-1]
    return [
        arr[..., offsets[k - 1] : offsets[k]].reshape(
            batch + (d,) * k
        )  # (..., d, ..., d)
        for k in range(1, depth + 1)
    ]


def _split_flat_levels(sig: np.ndarray, d: int, depth: int) -> list[np.ndarray]:
    """Levels of a flat signature, each kept flat: shapes ``(..., d**k)``."""
    offsets = _level_offsets(d, depth)
    return [sig[..., offsets[k - 1] : offsets[k]] for k in range(1, depth + 1)]


# --------------------------------------------------------------------------------------
# Tensor algebra on flat levels (batch axes first): used by the reference and by chen
# --------------------------------------------------------------------------------------


def _tensor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Tensor product of flat levels ``a`` (..., d**i) and ``b`` (..., d**j).

    The result has shape (..., d**(i+j)).

    Entry ``ia * d**j + ib`` is ``a[ia] * b[ib]``: the letters of ``a`` come first.
    """
    outer = a[..., :, None] * b[..., None, :]  # (..., d**i, d**j)
    return outer.reshape(outer.shape[:-2] + (-1,))  # (..., d**(i+j))


def _chen_flat(a: list[np.ndarray], b: list[np.ndarray]) -> list[np.ndarray]:
    """Truncated product ``(1 + a) (x) (1 + b)`` of two signatures.

    Both are given as lists of flat levels.
    """
    depth = len(a)
    out = []
    for k in range(1, depth + 1):
        level = a[k - 1] + b[k - 1]
        for i in range(1, k):
            level = level + _tensor(a[i - 1], b[k - i - 1])
        out.append(level)
    return out


def _segment_exponential(delta: np.ndarray, depth: int) -> list[np.ndarray]:
    """Signature of one straight segment with increment ``delta`` (..., d).

    Level k is delta^(x)k / k!.
    """
    out = [delta]
    for k in range(2, depth + 1):
        out.append(_tensor(out[-1], delta) / k)
    return out


def chen(sig_a: Any, sig_b: Any, d: int, depth: int) -> np.ndarray:
    """Signature of two paths joined end to end, from their signatures (Chen).

    If ``sig_a`` is the signature of a path ``X`` and ``sig_b`` that of a path ``Y``
    (both truncated at ``depth``), the result is the signature of ``X`` followed by
    ``Y`` (``Y`` translated to start where ``X`` ends): level ``k`` is
    ``A_k + B_k + sum_{i=1}^{k-1} A_i (x) B_{k-i}``.

    Parameters
    ----------
    sig_a, sig_b : array_like, shape (..., signature_dim(d, depth))
        Batch axes broadcast against each other.
    d, depth : int

    Returns
    -------
    ndarray, shape (broadcast batch, signature_dim(d, depth))

    Examples
    --------
    >>> a = signature([[0.0, 0.0], [1.0, 0.0]], 2)
    >>> b = signature([[1.0, 0.0], [1.0, 1.0]], 2)
    >>> both = signature([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]], 2)
    >>> np.allclose(chen(a, b, 2, 2), both)
    True
    """
    d = check_positive_int(d, "d")
    depth = check_positive_int(depth, "depth")
    a = _as_signature(sig_a, "sig_a", d, depth)
    b = _as_signature(sig_b, "sig_b", d, depth)
    try:
        batch = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError:
        raise ValueError(
            f"sig_a and sig_b batch axes must broadcast; got shapes {a.shape} and "
            f"{b.shape}"
        ) from None
    a = np.broadcast_to(a, batch + a.shape[-1:])
    b = np.broadcast_to(b, batch + b.shape[-1:])
    product = _chen_flat(
        _split_flat_levels(a, d, depth), _split_flat_levels(b, d, depth)
    )
    return np.concatenate(product, axis=-1)


# --------------------------------------------------------------------------------------
# Signatures
# --------------------------------------------------------------------------------------


def signature(path: Any, depth: int, *, method: str = "auto") -> np.ndarray:
    """Truncated signature of a piecewise-linear path (or a batch of them).

    Parameters
    ----------
    path : array_like, shape (..., L, d)
        ``L >= 1`` points in ``R^d`` joined by straight segments; leading axes are a
        batch. A single point is a constant path: its signature is zero (level 0 is left
        out).
    depth : int
        Truncation level, ``depth >= 1``.
    method : {"auto", "reference", "compiled", "horner", "meet-in-the-middle"}
        The algorithm; all give the same numbers up to rounding (tested to 1e-12):

        * ``"reference"``: the definition at work, segment exponentials multiplied one
          by one with Chen's identity, level by level. Plainly correct, slow: read
          this one.
        * ``"compiled"``: the numba kernels (one Horner update per segment, SIMD across
          paths); needs numba.
        * ``"horner"``: the same update in NumPy, vectorised over the batch; memory a
          few signatures per path, whatever the length.
        * ``"meet-in-the-middle"``: NumPy, whole-path array operations and one matrix
          product per path; memory grows with the length.
        * ``"auto"`` (default): ``"compiled"`` when numba can be imported (and the
          environment variable ``ATTNSIG_DISABLE_NUMBA`` is not ``1``); otherwise
          ``"horner"`` for a batch of at least as many paths as segments or a path
          too long for the memory of ``"meet-in-the-middle"``, which takes the rest.

    Returns
    -------
    ndarray, shape (..., signature_dim(d, depth)), float64
        Levels 1..depth, words in lexicographic order within a level, first letter =
        earliest time (see :func:`words`, :func:`word_index`, :func:`levels`).

    Raises
    ------
    TypeError
        If ``path`` is not real-valued or ``depth`` is not an integer (``bool``
        included).
    ValueError
        If ``path`` has fewer than two axes, no points (``L = 0``), ``d = 0``, or a
        NaN/inf entry, if ``depth < 1``, if ``method`` is unknown, or if
        ``method="compiled"`` is asked for without numba.

    Examples
    --------
    >>> square = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]
    >>> signature(square, 2).round(12)  # S1, S2, S11, S12, S21, S22
    array([ 0.,  0.,  0.,  1., -1.,  0.])
    >>> np.allclose(signature(square, 3), signature(square, 3, method="reference"))
    True
    """
    x = _as_path(path)
    depth = check_positive_int(depth, "depth")
    method = check_choice(method, "method", METHODS)
    *batch_shape, length, d = x.shape
    shape = tuple(batch_shape) + (signature_dim(d, depth),)
    if length == 1 or 0 in batch_shape:
        return np.zeros(shape)
    if method == "reference":
        return _signature_reference(x, depth)
    paths = x.reshape(-1, length, d)  # (B, L, d)
    if method in ("auto", "compiled"):
        kernels = _compiled_kernels(forced=method == "compiled")
        if kernels is not None:
            return kernels.signature(paths, depth).reshape(shape)
        if method == "compiled":
            raise ValueError(
                "method='compiled' needs numba (pip install attnsig[fast]); "
                "use method='auto' to fall back to NumPy"
            )
        return _signature_numpy.signature(paths, depth).reshape(shape)
    if method == "horner":
        return _signature_numpy.signature_horner(paths, depth).reshape(shape)
    return _signature_numpy.signature_meet_in_middle(paths, depth).reshape(shape)


def _signature_reference(x: np.ndarray, depth: int) -> np.ndarray:
    """Segment exponentials multiplied one by one (Chen), level by level."""
    d = x.shape[-1]
    batch = x.shape[:-2]
    increments = np.diff(x, axis=-2)  # (..., L-1, d)
    # the signature of a point is zero
    running = [np.zeros(batch + (d**k,)) for k in range(1, depth + 1)]
    for n in range(increments.shape[-2]):
        segment = _segment_exponential(increments[..., n, :], depth)
        running = _chen_flat(running, segment)
    return np.concatenate(running, axis=-1)


def _numba_disabled() -> bool:
    """Whether ``ATTNSIG_DISABLE_NUMBA`` asks for the NumPy methods."""
    return os.environ.get("ATTNSIG_DISABLE_NUMBA", "").strip() not in ("", "0")


def _compiled_kernels(forced: bool = False) -> ModuleType | None:
    """The numba kernel module, or None if numba cannot be imported or is disabled.

    ``forced`` (``method="compiled"``) ignores ``ATTNSIG_DISABLE_NUMBA``. Imported on
    first use rather than with the package: importing numba takes a few tenths of a
    second that a notebook which never computes a signature should not pay. A missing
    numba is the normal case in the browser and stays silent; a numba that is installed
    but cannot cache its machine code (a read-only install) warns once.
    """
    global _COMPILED
    if _numba_disabled() and not forced:
        return None
    if _COMPILED is None:
        try:
            from attnsig import _signature_numba
        except ImportError:  # numba missing, or too old/new for this NumPy
            _COMPILED = False
        except RuntimeError as error:  # numba found no writable cache directory
            warnings.warn(
                "attnsig.signature falls back to NumPy: the numba kernels are "
                f"unavailable ({error}); set NUMBA_CACHE_DIR to a writable directory "
                "to use them",
                stacklevel=3,
            )
            _COMPILED = False
        else:
            _COMPILED = _signature_numba
    return _COMPILED or None


# --------------------------------------------------------------------------------------
# Levy area and time augmentation
# --------------------------------------------------------------------------------------


def levy_area_matrix(path: Any) -> np.ndarray:
    """Lévy area matrix ``A_ij = (S^{ij} - S^{ji}) / 2`` of a path.

    Parameters
    ----------
    path : array_like, shape (..., L, d)

    Returns
    -------
    ndarray, shape (..., d, d)
        Antisymmetric; ``A_ij`` is the signed area enclosed by the projection of the
        path on the coordinates ``(i, j)`` and the chord back to its start.

    Examples
    --------
    >>> levy_area_matrix([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
    array([[ 0.,  1.],
           [-1.,  0.]])
    """
    x = _as_path(path)
    d = x.shape[-1]
    second = levels(signature(x, 2), d, 2)[1]  # (..., d, d)
    return 0.5 * (second - np.swapaxes(second, -1, -2))


def levy_area(path: Any) -> np.ndarray:
    """Lévy area ``(S^{12} - S^{21}) / 2`` of a planar path (``d = 2``).

    The unit square traversed counter-clockwise has Lévy area ``+1``.

    Parameters
    ----------
    path : array_like, shape (..., L, 2)

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> float(levy_area([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]))
    1.0
    """
    x = _as_path(path)
    if x.shape[-1] != 2:
        raise ValueError(
            "path must be planar (d = 2 on the last axis) for levy_area; got shape "
            f"{x.shape}; "
            "use levy_area_matrix for other dimensions"
        )
    return levy_area_matrix(x)[..., 0, 1]


def time_augment(path: Any, times: Any = None) -> np.ndarray:
    """Prepend a time channel to a path.

    Parameters
    ----------
    path : array_like, shape (..., L, d)
    times : array_like, shape (L,) or broadcastable to (..., L), optional
        Non-decreasing times of the points; default ``linspace(0, 1, L)``.

    Returns
    -------
    ndarray, shape (..., L, d + 1)
        Channel 0 is time, channels ``1..d`` are the path.

    Examples
    --------
    >>> time_augment([[5.0], [6.0], [8.0]])
    array([[0. , 5. ],
           [0.5, 6. ],
           [1. , 8. ]])
    """
    x = _as_path(path)
    length = x.shape[-2]
    if times is None:
        t = np.linspace(0.0, 1.0, length)
    else:
        t = as_float_array(times, "times", ndim_min=1).astype(np.float64, copy=False)
        if t.shape[-1] != length:
            raise ValueError(
                f"times must have the path length L = {length} on its last axis; got "
                f"shape {t.shape}"
            )
        if np.any(np.diff(t, axis=-1) < 0):
            raise ValueError("times must be non-decreasing along the path")
    try:
        t = np.broadcast_to(t, x.shape[:-1])  # (..., L)
    except ValueError:
        raise ValueError(
            f"times of shape {np.shape(t)} does not broadcast to the path's points "
            f"{x.shape[:-1]}"
        ) from None
    return np.concatenate([t[..., None], x], axis=-1)  # (..., L, d+1)
