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

One function computes signatures, :func:`signature`, and its ``method`` keyword chooses
the algorithm: ``"reference"`` multiplies segment exponentials with Chen's identity
level by level (obviously correct, slow), the others compute the same numbers fast and
are tested against it to 1e-12.

The recurrence
--------------
Every fast method runs one update of the running signature ``S`` per straight segment
with increment ``D``, Chen's identity with the segment exponential
``exp(D) = sum_j D^{(x)j} / j!`` evaluated by Horner's rule, level ``k`` from the top
down (each level reads the old lower ones):

    S_k <- S_k + (S_{k-1} + (S_{k-2} + ... (S_1 + D/k) (x) D/(k-1) ...) (x) D/2) (x) D.

The compiled kernels and ``_signature_by_segments`` implement exactly this line; the
meet-in-the-middle method sums the same terms grouped differently.

Methods
-------
``method="auto"`` uses the compiled kernel (``attnsig._signature_numba``, the recurrence
above, single-threaded) when `numba <https://numba.pydata.org>`_ is installed
(``pip install attnsig[fast]``), and otherwise one of the pure-NumPy methods below; all
give the reference's numbers up to rounding. ``method=`` selects one explicitly (tests
and benchmarks do). numba is imported at the first call of :func:`signature`, not with
the package; the first call on a machine compiles the kernels (a few seconds) and caches
the machine code, later processes load it from the cache. Set the environment variable
``ATTNSIG_DISABLE_NUMBA=1`` to make ``"auto"`` use the NumPy methods (it is read at
every call).

How the NumPy fallback works
----------------------------
Pure NumPy, so the aim is few Python-level operations on large arrays. Two methods,
chosen by shape by ``"auto"`` (see ``benchmarks/bench_signature.py`` for the
measurements behind the choice):

* ``"horner"`` (``_signature_by_segments``), for a wide batch of short paths: the
  recurrence above on letter-major arrays ``(d**k, B)`` with the batch innermost; the
  Python loop runs once per segment for the whole batch, and memory is a few signatures
  per path.
* ``"meet-in-the-middle"`` (``_signature_meet_in_middle``), for a few long paths: the
  words of each level are split at their ``q``-th letter (``q`` about half the depth);
  prefix and suffix trajectories of level below ``q`` and ``depth - q`` are cumulative
  sums over the segments, and all levels above ``q`` come from one matrix product per
  path of "left" and "right" factors. The Python overhead does not grow with the path
  length.
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

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

# Compiled backend: the kernel module once imported, False if numba is missing (see
# _compiled_kernels).
_COMPILED: ModuleType | None | bool = None
# The lane kernel runs groups of _signature_numba.LANES paths; a last group of fewer
# paths than this
# goes to the per-path kernel instead (from the measured costs at d = 3, depth 4: a
# 64-lane group
# costs about as much as 27 paths one at a time).
_MIN_PATHS_FOR_LANES = 32

# Algorithm choice of the NumPy fallback (measured with benchmarks/bench_signature.py on
# a 2-core
# machine): from this many paths on, and for paths of at most _MAX_SEGMENTS_FOR_LOOP
# segments, the
# per-segment update amortises its Python loop over a wide batch and is as fast or
# faster;
# otherwise the meet-in-the-middle method, whose Python overhead does not grow with the
# path
# length, wins.
_MIN_BATCH_FOR_SEGMENTS = 32
_MAX_SEGMENTS_FOR_LOOP = 256
# The meet-in-the-middle method holds whole trajectories: paths are processed in chunks
# of about
# this many float64 entries (0.5 MB, near the cache), and a single path that would need
# more
# than the second bound (about 128 MB) goes to the per-segment update, whose memory is
# one
# signature per path.
_MEET_IN_MIDDLE_CHUNK_ENTRIES = 1 << 16
_MAX_MEET_IN_MIDDLE_ENTRIES = 1 << 24
# The per-segment update holds a few signatures per path: chunks of about this many
# top-level
# entries (d**depth per path; 400 paths at d = 3, depth 4) keep them near the cache.
_SEGMENT_CHUNK_ENTRIES = 1 << 15


# --------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------


def _as_path(path: Any, name: str = "path") -> np.ndarray:
    """Return ``path`` as a float64 array of shape ``(..., L, d)`` with ``L >= 1`` and
    ``d >= 1``."""
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


def _check_depth(depth: Any) -> int:
    return check_positive_int(depth, "depth")


def _check_dim(d: Any) -> int:
    return check_positive_int(d, "d")


def _as_signature(sig: Any, name: str, d: int, depth: int) -> np.ndarray:
    """Return a flat signature array whose last axis has length
    ``signature_dim(d, depth)``."""
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
    """Length ``d + d**2 + ... + d**depth`` of a signature truncated at ``depth`` (level
    0 left out).

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
    d = _check_dim(d)
    depth = _check_depth(depth)
    return sum(d**k for k in range(1, depth + 1))


def _level_offsets(d: int, depth: int) -> list[int]:
    """Start of each level ``1..depth`` in the flat signature (plus the end), length
    ``depth + 1``."""
    return [sum(d**j for j in range(1, k)) for k in range(1, depth + 2)]


def words(d: int, depth: int) -> list[tuple[int, ...]]:
    """All words of length ``1..depth`` over the letters ``0..d-1``, in the order of the
    signature.

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
    d = _check_dim(d)
    depth = _check_depth(depth)
    return [
        w for k in range(1, depth + 1) for w in itertools.product(range(d), repeat=k)
    ]


def word_index(word: Sequence[int], d: int) -> int:
    """Position of ``word`` (0-based letters, first letter = earliest time) in the flat
    signature.

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
    d = _check_dim(d)
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
    d = _check_dim(d)
    depth = _check_depth(depth)
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
    """Tensor product of flat levels ``a`` (..., d**i) and ``b`` (..., d**j) -> (...,
    d**(i+j)).

    Entry ``ia * d**j + ib`` is ``a[ia] * b[ib]``: the letters of ``a`` come first.
    """
    outer = a[..., :, None] * b[..., None, :]  # (..., d**i, d**j)
    return outer.reshape(outer.shape[:-2] + (-1,))  # (..., d**(i+j))


def _chen_flat(a: list[np.ndarray], b: list[np.ndarray]) -> list[np.ndarray]:
    """Truncated product ``(1 + a) (x) (1 + b)`` of two signatures given as lists of
    flat levels."""
    depth = len(a)
    out = []
    for k in range(1, depth + 1):
        level = a[k - 1] + b[k - 1]
        for i in range(1, k):
            level = level + _tensor(a[i - 1], b[k - i - 1])
        out.append(level)
    return out


def _segment_exponential(delta: np.ndarray, depth: int) -> list[np.ndarray]:
    """Signature of one straight segment with increment ``delta`` (..., d): level k =
    delta^(x)k / k!."""
    out = [delta]
    for k in range(2, depth + 1):
        out.append(_tensor(out[-1], delta) / k)
    return out


def chen(sig_a: Any, sig_b: Any, d: int, depth: int) -> np.ndarray:
    """Signature of the concatenation of two paths, from their signatures (Chen's
    identity).

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
    d = _check_dim(d)
    depth = _check_depth(depth)
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

        * ``"reference"``: the definition at work: multiply the segment exponentials one
          by one with Chen's identity, level by level. Plainly correct, slow: read this
          one.
        * ``"compiled"``: the numba kernels of ``attnsig._signature_numba`` (one Horner
          update of the running signature per segment, SIMD across paths); needs numba.
        * ``"horner"``: the same update in NumPy, vectorised over a wide batch of paths.
        * ``"meet-in-the-middle"``: NumPy, for a few long paths (whole-path array
          operations and one matrix product per path).
        * ``"auto"`` (default): ``"compiled"`` when numba is installed (and the
          environment variable ``ATTNSIG_DISABLE_NUMBA`` is not ``1``); otherwise
          ``"horner"`` for a wide batch of short paths and ``"meet-in-the-middle"`` for
          the rest.

        A textbook package carries the reference (to read), one fast path for real work
        (the compiled kernel) and one pure-NumPy path that works wherever NumPy does;
        the second NumPy method stays because without numba long paths would otherwise
        be orders of magnitude slower (see ``benchmarks/bench_signature.py``).

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
    depth = _check_depth(depth)
    method = check_choice(method, "method", METHODS)
    *batch_shape, length, d = x.shape
    batch = int(np.prod(batch_shape, dtype=np.int64))
    dim = signature_dim(d, depth)
    if length == 1 or batch == 0:
        return np.zeros(tuple(batch_shape) + (dim,))
    if method == "reference":
        return _signature_reference(x, depth)
    flat_paths = x.reshape(batch, length, d)  # (B, L, d)
    if method in ("auto", "compiled"):
        kernels = _compiled_kernels(forced=method == "compiled")
        if kernels is not None:
            out = _signature_compiled(kernels, flat_paths, depth)  # (B, D)
            return out.reshape(tuple(batch_shape) + (dim,))  # (..., D)
        if method == "compiled":
            raise ValueError(
                "method='compiled' needs numba (pip install attnsig[fast]); "
                "use method='auto' to fall back to NumPy"
            )
        method = _numpy_method(batch, length, d, depth)
    if method == "horner":
        out = _signature_horner(flat_paths, depth, dim)
    else:
        out = _signature_meet_in_middle_batch(flat_paths, depth, dim)
    return out.reshape(tuple(batch_shape) + (dim,))  # (..., D)


def _signature_reference(x: np.ndarray, depth: int) -> np.ndarray:
    """The reference: segment exponentials multiplied one by one (Chen), level by
    level."""
    d = x.shape[-1]
    batch = x.shape[:-2]
    increments = np.diff(x, axis=-2)  # (..., L-1, d)
    # the signature of a point is zero
    running = [np.zeros(batch + (d**k,)) for k in range(1, depth + 1)]
    for n in range(increments.shape[-2]):
        running = _chen_flat(
            running, _segment_exponential(increments[..., n, :], depth)
        )
    return np.concatenate(running, axis=-1)


def _numpy_method(batch: int, length: int, d: int, depth: int) -> str:
    """The NumPy algorithm ``"auto"`` picks for this shape (measured, see the
    constants)."""
    per_path = _meet_in_middle_entries(d, depth, length - 1)
    wide_and_short = (
        batch >= _MIN_BATCH_FOR_SEGMENTS and length - 1 <= _MAX_SEGMENTS_FOR_LOOP
    )
    if wide_and_short or per_path > _MAX_MEET_IN_MIDDLE_ENTRIES:
        return "horner"
    return "meet-in-the-middle"


def _signature_horner(flat_paths: np.ndarray, depth: int, dim: int) -> np.ndarray:
    """Signatures (B, D) of paths (B, L, d) by the Horner update, in cached chunks."""
    batch, _, d = flat_paths.shape
    out = np.empty((batch, dim))
    chunk = max(1, _SEGMENT_CHUNK_ENTRIES // d**depth)
    for start in range(0, batch, chunk):
        stop = min(batch, start + chunk)
        increments = np.ascontiguousarray(
            np.diff(flat_paths[start:stop], axis=1).transpose(1, 2, 0)
        )  # (N, d, B_chunk)
        out[start:stop] = _signature_by_segments(increments, depth).T  # (B_chunk, D)
    return out


def _signature_meet_in_middle_batch(
    flat_paths: np.ndarray, depth: int, dim: int
) -> np.ndarray:
    """Signatures (B, D) of paths (B, L, d) by meet-in-the-middle, in cached chunks."""
    batch, length, d = flat_paths.shape
    out = np.empty((batch, dim))
    per_path = _meet_in_middle_entries(d, depth, length - 1)
    chunk = max(1, _MEET_IN_MIDDLE_CHUNK_ENTRIES // per_path)
    for start in range(0, batch, chunk):
        stop = min(batch, start + chunk)
        points = np.ascontiguousarray(
            flat_paths[start:stop].transpose(2, 0, 1)
        )  # (d, B_chunk, L)
        out[start:stop] = _signature_meet_in_middle(points, depth).T  # (B_chunk, D)
    return out


def _numba_disabled() -> bool:
    """Whether the environment variable ``ATTNSIG_DISABLE_NUMBA`` asks for the NumPy
    fallback."""
    return os.environ.get("ATTNSIG_DISABLE_NUMBA", "").strip() not in ("", "0")


def _compiled_kernels(forced: bool = False) -> ModuleType | None:
    """The numba kernel module, or None if numba is not installed or is disabled.

    ``forced`` (``method="compiled"``) ignores ``ATTNSIG_DISABLE_NUMBA``.

    Imported on first use rather than with the package, because importing numba takes a
    few tenths of a second that a notebook which never computes a signature should not
    pay.
    """
    global _COMPILED
    if _numba_disabled() and not forced:
        return None
    if _COMPILED is None:
        try:
            from attnsig import _signature_numba
        except ImportError:  # numba missing, or too old/new for this NumPy
            _COMPILED = False
        except (
            RuntimeError
        ) as error:  # numba found no writable cache directory (read-only install)
            warnings.warn(
                "attnsig.signature falls back to NumPy: the numba kernels are "
                f"unavailable ({error}); "
                "set NUMBA_CACHE_DIR to a writable directory to use them",
                stacklevel=3,
            )
            _COMPILED = False
        else:
            _COMPILED = _signature_numba
    return _COMPILED or None


def _signature_compiled(
    kernels: ModuleType, paths: np.ndarray, depth: int
) -> np.ndarray:
    """Signatures of ``paths`` (B, L, d), ``L >= 2``, by the compiled kernels: shape
    ``(B, D)``.

    Whole groups of ``kernels.LANES`` paths go to the lane kernel (SIMD across paths); a
    batch smaller than ``_MIN_PATHS_FOR_LANES``, or a last partial group that small,
    goes to the per-path kernel, where padding the group would waste most of the lanes.
    """
    paths = np.ascontiguousarray(
        paths, dtype=np.float64
    )  # (B, L, d); one compiled specialisation
    batch = paths.shape[0]
    lanes = kernels.LANES
    tail = batch % lanes
    in_lanes = batch if tail >= _MIN_PATHS_FOR_LANES else batch - tail
    if in_lanes == batch:
        return kernels.signature_lanes(paths, int(depth))
    if in_lanes == 0:
        return kernels.signature_per_path(paths, int(depth))
    return np.concatenate(
        [
            kernels.signature_lanes(paths[:in_lanes], int(depth)),
            kernels.signature_per_path(paths[in_lanes:], int(depth)),
        ],
        axis=0,
    )  # (B, D)


def _signature_by_segments(increments: np.ndarray, depth: int) -> np.ndarray:
    """Signature by the recurrence of the module docstring, vectorised over a batch of
    paths.

    One Horner update of the running signature per segment, levels from the top down.
    Every array is letter-major with the batch innermost, so a tensor product with ``D``
    is a broadcast multiply over rows of length ``B``, and the Python loop runs once per
    segment, not per path.

    Parameters
    ----------
    increments : ndarray, shape (N, d, B)
        ``increments[n, :, b]`` is segment ``n`` of path ``b``.
    depth : int

    Returns
    -------
    ndarray, shape (signature_dim(d, depth), B)
        Letter-major signature.
    """
    segments, d, batch = increments.shape
    # scaled[s] = D / s for s = 1..depth, computed once for all segments: (N, d, B) each
    scaled = [increments] + [increments / s for s in range(1, depth + 1)]
    running = [
        np.zeros((d**k, batch)) for k in range(1, depth + 1)
    ]  # running[k-1]: (d**k, B)
    sums = [
        np.empty((d**m, batch)) for m in range(depth)
    ]  # scratch: S_m + acc, (d**m, B)
    products = [
        np.empty((d**m, batch)) for m in range(depth + 1)
    ]  # scratch: tensor products
    for n in range(segments):
        for k in range(depth, 1, -1):
            acc = scaled[k][n]  # D / k, (d, B)
            for m in range(1, k):
                np.add(running[m - 1], acc, out=sums[m])  # (d**m, B)
                np.multiply(
                    sums[m].reshape(d**m, 1, batch),
                    scaled[k - m][n].reshape(1, d, batch),
                    out=products[m + 1].reshape(d**m, d, batch),
                )  # (d**m, d, B)
                acc = products[m + 1]  # (d**(m+1), B)
            np.add(running[k - 1], acc, out=running[k - 1])
        np.add(running[0], increments[n], out=running[0])
    return np.concatenate(running, axis=0)  # (D, B)


def _meet_in_middle_split(depth: int) -> int:
    """Level ``q`` at which the meet-in-the-middle method splits words (see its
    docstring)."""
    return depth // 2 + 1


def _meet_in_middle_entries(d: int, depth: int, segments: int) -> int:
    """Float64 entries per path of the largest arrays of the meet-in-the-middle method
    (a bound)."""
    split = _meet_in_middle_split(depth)
    blocks = depth - split + 1
    return (
        d**split + sum(d**r for r in range(1, depth - split + 1))
    ) * blocks * segments + 2 * sum(
        d**m for m in range(1, max(split, depth - split + 1))
    ) * segments


def _tensor_traj(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Tensor product along trajectories: a (d**i, B, N) and b (d**j, B, N) ->
    (d**(i+j), B, N)."""
    return (a[:, None] * b[None]).reshape((-1,) + a.shape[1:])  # (d**(i+j), B, N)


def _exclusive_prefix(steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``prefix[..., n] = sum_{m<n} steps[..., m]`` and the total
    ``sum_m steps[..., m]``."""
    running = np.cumsum(steps, axis=-1)
    prefix = np.empty_like(steps)
    prefix[..., 0] = 0.0
    prefix[..., 1:] = running[..., :-1]
    return prefix, running[..., -1]


def _exclusive_suffix(steps: np.ndarray) -> np.ndarray:
    """``suffix[..., n] = sum_{m>n} steps[..., m]``."""
    running = np.cumsum(steps[..., ::-1], axis=-1)[..., ::-1]
    suffix = np.empty_like(steps)
    suffix[..., -1] = 0.0
    suffix[..., :-1] = running[..., 1:]
    return suffix


def _signature_meet_in_middle(points: np.ndarray, depth: int) -> np.ndarray:
    """Signature from prefix and suffix trajectories of low level and one matrix
    product.

    Group the iterated integral of a word ``w`` of length ``k`` by the segment ``n``
    that holds its ``q``-th letter, and by how many letters before (``a``) and after
    (``b``) share that segment. With ``P_i(n)`` the level-``i`` signature of the path
    before segment ``n``, ``Q_j(n)`` that of the path after it, and ``D_n`` the
    increment,

        S_k = sum_n sum_{a, b} P_{q-1-a}(n) (x) D_n^{(x)(a+1+b)} / (a+1+b)! (x)
        Q_{k-q-b}(n)
            = sum_b sum_n L_b(n) (x) R_b(n),
        L_b = sum_a P_{q-1-a} (x) D^{(x)(a+1)} / (a+1+b)!,   R_b = D^{(x)b} (x)
        Q_{k-q-b},

    a contraction over ``n`` of left factors of level ``q`` with right factors of level
    ``k - q``: one matrix product gives every level above ``q`` at once. Only
    trajectories up to level ``max(q - 1, depth - q)`` (about half the depth) are
    needed, as cumulative sums, and every operation runs over whole paths, so the Python
    overhead does not grow with the path length. Levels up to ``q`` are sums over ``n``
    of the left factors with ``b = 0`` (the level's increment per segment).

    Arrays are letter-major, ``(d**m, B, N)``: a tensor product is a broadcast multiply
    over contiguous rows of length ``B N``, and each path's slice is a strided matrix
    that the final matrix product hands to BLAS without copying.

    Parameters
    ----------
    points : ndarray, shape (d, B, L)
        Points of each path, time innermost, ``L >= 2``.
    depth : int

    Returns
    -------
    ndarray, shape (signature_dim(d, depth), B)
        Letter-major signature.
    """
    d, batch, length = points.shape
    segments = length - 1
    split = min(_meet_in_middle_split(depth), depth)
    top_right = depth - split  # highest level needed on the right
    increments = np.diff(points, axis=-1)  # (d, B, N)
    scaled = [increments] + [
        increments / s for s in range(1, depth + 2)
    ]  # scaled[s] = D / s
    out: list[np.ndarray] = [np.empty(0)] * (depth + 1)
    out[1] = points[..., -1] - points[..., 0]  # (d, B)
    prefixes = [
        np.ones(1),
        points[..., :-1] - points[..., :1],
    ]  # P_1(n) = X_n - X_0, (d, B, N)

    def left_factor(level: int, b: int) -> np.ndarray:
        """L_b for words split at ``level``: sum_a P_{level-1-a} (x) D^{a+1} / (a+1+b)!,
        (d**level, B, N)."""
        if level == 1:
            return increments / math.factorial(1 + b)
        acc = scaled[
            level + b
        ]  # Horner from the innermost term, P_0 (x) D / (level + b)
        for a in range(level - 2, 0, -1):
            acc = _tensor_traj(prefixes[level - 1 - a] + acc, scaled[a + 1 + b])
        acc = _tensor_traj(prefixes[level - 1] + acc, increments)
        return acc / math.factorial(1 + b) if b else acc

    for level in range(2, split):  # prefix trajectories P_2 .. P_{q-1}
        prefix, total = _exclusive_prefix(left_factor(level, 0))
        prefixes.append(prefix)  # (d**level, B, N)
        out[level] = total
    if top_right == 0:  # depth <= 1 leaves nothing to the right of the split
        if split >= 2:
            out[split] = left_factor(split, 0).sum(axis=-1)
        return np.concatenate(out[1:], axis=0)  # (D, B)

    # suffix trajectories Q_1 .. Q_{depth-q}: Q_j(n) = sum_{m>n} D_m (x) (Q_{j-1} +
    # D_m/2 (x) (... + D_m/j))
    suffixes = [
        np.ones(1),
        points[..., -1:] - points[..., 1:],
    ]  # Q_1(n) = X_end - X_{n+1}, (d, B, N)
    for level in range(2, top_right + 1):
        acc = scaled[level]
        for i in range(1, level):
            acc = _tensor_traj(scaled[level - i], suffixes[i] + acc)
        suffixes.append(_exclusive_suffix(acc))  # (d**level, B, N)
    powers = [np.ones(1), increments]  # D^{(x)b}, (d**b, B, N)
    for _ in range(2, top_right + 1):
        powers.append(_tensor_traj(powers[-1], increments))

    # Left factors side by side along n, right factors stacked by level: (d**q, B, (r+1)
    # N) and
    # (d + ... + d**r, B, (r+1) N); right blocks with b > level - q are zero.
    left_blocks = [
        left_factor(split, b) for b in range(top_right + 1)
    ]  # each (d**q, B, N)
    left = np.concatenate(left_blocks, axis=-1)  # (d**q, B, (r+1) N)
    right_rows = sum(d**r for r in range(1, top_right + 1))
    right = np.zeros((right_rows, batch, (top_right + 1) * segments))
    row = 0
    for r in range(1, top_right + 1):
        for b in range(r + 1):
            if b == 0:
                block = suffixes[r]
            elif b == r:
                block = powers[r]
            else:
                block = _tensor_traj(powers[b], suffixes[r - b])
            right[row : row + d**r, :, b * segments : (b + 1) * segments] = block
        row += d**r
    # One matrix product per path; the transposed views are strided matrices that BLAS
    # reads as is.
    contracted = np.matmul(
        left.transpose(1, 0, 2), right.transpose(1, 2, 0)
    )  # (B, d**q, d + ... + d**r)
    if split >= 2:
        out[split] = left_blocks[0].sum(axis=-1)  # (d**q, B); a contiguous sum, fast
    row = 0
    for r in range(1, top_right + 1):
        out[split + r] = (
            contracted[:, :, row : row + d**r].reshape(batch, d ** (split + r)).T
        )  # (d**(q+r), B)
        row += d**r
    return np.concatenate(out[1:], axis=0)  # (D, B)


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
