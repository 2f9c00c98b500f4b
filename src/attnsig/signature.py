"""Truncated path signatures of piecewise-linear paths.

Conventions
-----------
A path is an array of shape ``(..., L, d)``: ``L`` points in ``R^d``, joined by straight segments;
leading axes are a batch. The signature truncated at ``depth`` is returned flat, of shape
``(..., d + d**2 + ... + d**depth)``:

* level 0 (the constant 1) is left out;
* levels follow each other in order, level ``k`` holding ``d**k`` entries;
* within a level, words ``(i_1, ..., i_k)`` (0-based letters) are in lexicographic order, so the
  entry of a word sits at ``offset_k + i_1 d**(k-1) + ... + i_k`` (C order of a ``(d,) * k`` array);
* the first letter is the earliest time:
  ``S^{i_1 ... i_k} = integral over t_1 < ... < t_k of dX^{i_1}_{t_1} ... dX^{i_k}_{t_k}``.

This is the convention of iisignature, pysiglib and signatory (``signature(path, depth)`` here equals
``iisignature.sig(path, depth)``).

Two implementations are kept: :func:`signature_reference`, a plain loop over segments that
multiplies segment exponentials with Chen's identity level by level (obviously correct, slow), and
:func:`signature`, which computes the same numbers with whole-array NumPy operations and is tested
against the reference to 1e-12.

How the fast path works
-----------------------
For a piecewise-linear path with increments ``D_1, ..., D_N`` let ``P_m(n)`` be level ``m`` of the
signature of the path up to the start of segment ``n`` (``P_0 = 1``). Chen's identity with the
segment exponential ``exp(D_n) = sum_j D_n^{(x)j} / j!`` gives, for every level ``k``,

    S_k = sum_n U_{k-1}(n) (x) D_n,
    U_{k-1}(n) = P_{k-1}(n) + P_{k-2}(n) (x) D_n / 2! + ... + P_0 (x) D_n^{(x)(k-1)} / k!,

and ``U_{k-1}`` is evaluated by Horner's rule. Level ``k``'s trajectory ``P_k`` is an (exclusive)
cumulative sum over ``n`` of ``U_{k-1}(n) (x) D_n``, so all segments are handled at once by
array operations, and the top level needs no trajectory: it is one contraction over ``n`` (a
matrix product). The arrays are kept "letter-major", shape ``(d**m, N, B)`` with the batch ``B``
innermost, so that every tensor product with an increment is a broadcast multiply over long
contiguous rows. Batches are processed in chunks that fit in cache; a path whose trajectories
would not fit in memory falls back to a per-segment Horner update of the running signature
(``_signature_by_segments``), which needs memory for one signature per path only.
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from attnsig._validation import as_float_array, check_positive_int

__all__ = [
    "signature",
    "signature_reference",
    "signature_dim",
    "words",
    "word_index",
    "levels",
    "chen",
    "levy_area",
    "levy_area_matrix",
    "time_augment",
]

# Above this many float64 entries of the largest level trajectory (d**(depth-1) * N per path), the
# cumulative-sum method would need too much memory: use the per-segment update instead.
_MAX_TRAJECTORY_ENTRIES = 1 << 22
# Target number of entries of the largest trajectory in one batch chunk (keeps chunks near cache).
_CHUNK_TRAJECTORY_ENTRIES = 1 << 16


# --------------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------------

def _as_path(path: Any, name: str = "path") -> np.ndarray:
    """Return ``path`` as a float64 array of shape ``(..., L, d)`` with ``L >= 1`` and ``d >= 1``."""
    arr = as_float_array(path, name, ndim_min=2)
    if arr.shape[-2] == 0:
        raise ValueError(f"{name} must hold at least one point (L >= 1 on axis -2); got shape {arr.shape}")
    if arr.shape[-1] == 0:
        raise ValueError(f"{name} must have dimension d >= 1 on its last axis; got shape {arr.shape}")
    return arr.astype(np.float64, copy=False)


def _check_depth(depth: Any) -> int:
    return check_positive_int(depth, "depth")


def _check_dim(d: Any) -> int:
    return check_positive_int(d, "d")


def _as_signature(sig: Any, name: str, d: int, depth: int) -> np.ndarray:
    """Return a flat signature array whose last axis has length ``signature_dim(d, depth)``."""
    arr = as_float_array(sig, name, ndim_min=1).astype(np.float64, copy=False)
    expected = signature_dim(d, depth)
    if arr.shape[-1] != expected:
        raise ValueError(f"{name} must have last axis of length signature_dim(d={d}, depth={depth}) = "
                         f"{expected}; got shape {arr.shape}")
    return arr


# --------------------------------------------------------------------------------------------------
# Indexing: words <-> positions in the flat signature
# --------------------------------------------------------------------------------------------------

def signature_dim(d: int, depth: int) -> int:
    """Length ``d + d**2 + ... + d**depth`` of a signature truncated at ``depth`` (level 0 left out).

    Parameters
    ----------
    d : int
        Dimension of the path, ``d >= 1``.
    depth : int
        Truncation level, ``depth >= 1``.
    """
    d = _check_dim(d)
    depth = _check_depth(depth)
    return sum(d**k for k in range(1, depth + 1))


def _level_offsets(d: int, depth: int) -> list[int]:
    """Start of each level ``1..depth`` in the flat signature (plus the end), length ``depth + 1``."""
    return [sum(d**j for j in range(1, k)) for k in range(1, depth + 2)]


def words(d: int, depth: int) -> list[tuple[int, ...]]:
    """All words of length ``1..depth`` over the letters ``0..d-1``, in the order of the signature.

    Returns
    -------
    list of tuple of int
        ``words(d, depth)[i]`` is the word whose signature entry is ``signature(path, depth)[..., i]``;
        the list has ``signature_dim(d, depth)`` entries.
    """
    d = _check_dim(d)
    depth = _check_depth(depth)
    return [w for k in range(1, depth + 1) for w in itertools.product(range(d), repeat=k)]


def word_index(word: Sequence[int], d: int) -> int:
    """Position of ``word`` (0-based letters, first letter = earliest time) in the flat signature.

    The inverse of ``words``: ``words(d, depth)[word_index(w, d)] == tuple(w)`` for every word of
    length at most ``depth``.

    Raises
    ------
    TypeError
        If ``word`` is not a sequence of integers.
    ValueError
        If ``word`` is empty (level 0 is not stored) or a letter is outside ``0..d-1``.
    """
    d = _check_dim(d)
    if isinstance(word, (str, bytes)) or not isinstance(word, Sequence) and not isinstance(word, np.ndarray):
        raise TypeError(f"word must be a sequence of integer letters; got {word!r}")
    letters = list(word)
    if not letters:
        raise ValueError("word must have at least one letter (level 0 is not stored); got an empty word")
    for letter in letters:
        if isinstance(letter, (bool, np.bool_)) or not isinstance(letter, (int, np.integer)):
            raise TypeError(f"word must hold integer letters; got {letter!r} in {word!r}")
        if not 0 <= letter < d:
            raise ValueError(f"word letters must be in 0..{d - 1} for d = {d}; got {letter} in {tuple(word)!r}")
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
        ``depth`` arrays (views) of shapes ``(..., d)``, ``(..., d, d)``, ..., ``(..., d, ..., d)``;
        ``levels(sig, d, depth)[k - 1][..., i_1, ..., i_k]`` is the entry of the word ``(i_1, ..., i_k)``.
    """
    d = _check_dim(d)
    depth = _check_depth(depth)
    arr = _as_signature(sig, "sig", d, depth)
    offsets = _level_offsets(d, depth)
    batch = arr.shape[:-1]
    return [arr[..., offsets[k - 1]:offsets[k]].reshape(batch + (d,) * k)  # (..., d, ..., d)
            for k in range(1, depth + 1)]


def _split_flat_levels(sig: np.ndarray, d: int, depth: int) -> list[np.ndarray]:
    """Levels of a flat signature, each kept flat: shapes ``(..., d**k)``."""
    offsets = _level_offsets(d, depth)
    return [sig[..., offsets[k - 1]:offsets[k]] for k in range(1, depth + 1)]


# --------------------------------------------------------------------------------------------------
# Tensor algebra on flat levels (batch axes first): used by the reference and by chen
# --------------------------------------------------------------------------------------------------

def _tensor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Tensor product of flat levels ``a`` (..., d**i) and ``b`` (..., d**j) -> (..., d**(i+j)).

    Entry ``ia * d**j + ib`` is ``a[ia] * b[ib]``: the letters of ``a`` come first.
    """
    outer = a[..., :, None] * b[..., None, :]  # (..., d**i, d**j)
    return outer.reshape(outer.shape[:-2] + (-1,))  # (..., d**(i+j))


def _chen_flat(a: list[np.ndarray], b: list[np.ndarray]) -> list[np.ndarray]:
    """Truncated product ``(1 + a) (x) (1 + b)`` of two signatures given as lists of flat levels."""
    depth = len(a)
    out = []
    for k in range(1, depth + 1):
        level = a[k - 1] + b[k - 1]
        for i in range(1, k):
            level = level + _tensor(a[i - 1], b[k - i - 1])
        out.append(level)
    return out


def _segment_exponential(delta: np.ndarray, depth: int) -> list[np.ndarray]:
    """Signature of one straight segment with increment ``delta`` (..., d): level k = delta^(x)k / k!."""
    out = [delta]
    for k in range(2, depth + 1):
        out.append(_tensor(out[-1], delta) / k)
    return out


def chen(sig_a: Any, sig_b: Any, d: int, depth: int) -> np.ndarray:
    """Signature of the concatenation of two paths, from their signatures (Chen's identity).

    If ``sig_a`` is the signature of a path ``X`` and ``sig_b`` that of a path ``Y`` (both truncated
    at ``depth``), the result is the signature of ``X`` followed by ``Y`` (``Y`` translated to start
    where ``X`` ends): level ``k`` is ``A_k + B_k + sum_{i=1}^{k-1} A_i (x) B_{k-i}``.

    Parameters
    ----------
    sig_a, sig_b : array_like, shape (..., signature_dim(d, depth))
        Batch axes broadcast against each other.
    d, depth : int

    Returns
    -------
    ndarray, shape (broadcast batch, signature_dim(d, depth))
    """
    d = _check_dim(d)
    depth = _check_depth(depth)
    a = _as_signature(sig_a, "sig_a", d, depth)
    b = _as_signature(sig_b, "sig_b", d, depth)
    try:
        batch = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError:
        raise ValueError(f"sig_a and sig_b batch axes must broadcast; got shapes {a.shape} and {b.shape}") from None
    a = np.broadcast_to(a, batch + a.shape[-1:])
    b = np.broadcast_to(b, batch + b.shape[-1:])
    product = _chen_flat(_split_flat_levels(a, d, depth), _split_flat_levels(b, d, depth))
    return np.concatenate(product, axis=-1)


# --------------------------------------------------------------------------------------------------
# Signatures
# --------------------------------------------------------------------------------------------------

def signature_reference(path: Any, depth: int) -> np.ndarray:
    """Signature by the textbook method: multiply segment exponentials one by one (Chen).

    Slow (a Python loop over segments) but plainly correct; :func:`signature` is tested against it.

    Parameters
    ----------
    path : array_like, shape (..., L, d)
    depth : int

    Returns
    -------
    ndarray, shape (..., signature_dim(d, depth)), float64
    """
    x = _as_path(path)
    depth = _check_depth(depth)
    d = x.shape[-1]
    batch = x.shape[:-2]
    increments = np.diff(x, axis=-2)  # (..., L-1, d)
    running = [np.zeros(batch + (d**k,)) for k in range(1, depth + 1)]  # signature of a point: zero
    for n in range(increments.shape[-2]):
        running = _chen_flat(running, _segment_exponential(increments[..., n, :], depth))
    return np.concatenate(running, axis=-1)


def signature(path: Any, depth: int) -> np.ndarray:
    """Truncated signature of a piecewise-linear path (or a batch of them).

    Parameters
    ----------
    path : array_like, shape (..., L, d)
        ``L >= 1`` points in ``R^d`` joined by straight segments; leading axes are a batch. A single
        point is a constant path: its signature is zero (level 0 is left out).
    depth : int
        Truncation level, ``depth >= 1``.

    Returns
    -------
    ndarray, shape (..., signature_dim(d, depth)), float64
        Levels 1..depth, words in lexicographic order within a level, first letter = earliest time
        (see :func:`words`, :func:`word_index`, :func:`levels`). Equal to
        :func:`signature_reference` up to rounding.

    Raises
    ------
    TypeError
        If ``path`` is not real-valued or ``depth`` is not an integer (``bool`` included).
    ValueError
        If ``path`` has fewer than two axes, no points (``L = 0``), ``d = 0``, or a NaN/inf entry,
        or if ``depth < 1``.
    """
    x = _as_path(path)
    depth = _check_depth(depth)
    *batch_shape, length, d = x.shape
    batch = int(np.prod(batch_shape, dtype=np.int64))
    dim = signature_dim(d, depth)
    if length == 1 or batch == 0:
        return np.zeros(tuple(batch_shape) + (dim,))
    segments = length - 1
    flat_paths = x.reshape(batch, length, d)  # (B, L, d)
    # Letter-major increments: the batch innermost, so tensor products broadcast over long rows.
    increments = np.ascontiguousarray(np.diff(flat_paths, axis=1).transpose(2, 1, 0))  # (d, N, B)

    trajectory_entries = d ** (depth - 1) * segments  # largest trajectory, per path
    if trajectory_entries > _MAX_TRAJECTORY_ENTRIES:
        sig_letter_major = _signature_by_segments(increments, depth)  # (D, B)
    else:
        chunk = max(1, _CHUNK_TRAJECTORY_ENTRIES // trajectory_entries)
        sig_letter_major = np.empty((dim, batch))
        for start in range(0, batch, chunk):
            stop = min(batch, start + chunk)
            sig_letter_major[:, start:stop] = _signature_by_cumsum(
                np.ascontiguousarray(increments[:, :, start:stop]), depth)
    return sig_letter_major.T.reshape(tuple(batch_shape) + (dim,))  # (..., D)


def _signature_by_cumsum(increments: np.ndarray, depth: int) -> np.ndarray:
    """Signature from per-level trajectories (exclusive cumulative sums over segments).

    Parameters
    ----------
    increments : ndarray, shape (d, N, B)
        Letter-major increments: ``increments[:, n, b]`` is segment ``n`` of path ``b``.
    depth : int

    Returns
    -------
    ndarray, shape (signature_dim(d, depth), B)
        Letter-major signature.
    """
    d, segments, batch = increments.shape
    result = []
    # prefixes[m] = P_m, shape (d**m, N, B): level m of the signature before each segment.
    prefixes: list[np.ndarray | None] = [None]  # P_0 = 1 is never stored
    for k in range(1, depth + 1):
        # Horner for U_{k-1} = P_{k-1} + P_{k-2} (x) D / 2! + ... + D^{(x)(k-1)} / k!, shape (d**(k-1), N, B)
        if k == 1:
            u = None  # U_0 = 1
        else:
            u = increments / k  # P_0 (x) D / k
            for m in range(1, k - 1):
                u = ((prefixes[m] + u)[:, None] * (increments / (k - m))[None]).reshape(
                    d ** (m + 1), segments, batch)  # (d**(m+1), N, B)
            u = prefixes[k - 1] + u
        if k == depth:
            # Top level: only the total is needed, S_k = sum_n U_{k-1}(n) (x) D_n, a contraction over n.
            if u is None:
                result.append(increments.sum(axis=1))  # (d, B)
            else:
                top = np.einsum("anb,cnb->acb", u, increments, optimize=True)  # (d**(k-1), d, B)
                result.append(top.reshape(d**k, batch))  # (d**k, B)
            break
        # Lower level: the whole trajectory, an inclusive cumulative sum written after a zero row.
        steps = increments if u is None else (u[:, None] * increments[None]).reshape(
            d**k, segments, batch)  # (d**k, N, B)
        running = np.empty((d**k, segments + 1, batch))
        running[:, 0] = 0.0
        np.cumsum(steps, axis=1, out=running[:, 1:])
        prefixes.append(running[:, :-1])  # P_k before each segment, (d**k, N, B)
        result.append(running[:, -1])  # S_k of the whole path, (d**k, B)
    return np.concatenate(result, axis=0)  # (D, B)


def _signature_by_segments(increments: np.ndarray, depth: int) -> np.ndarray:
    """Signature by a per-segment Horner update of the running signature (low memory).

    For each segment, level ``k`` becomes ``S_k + (S_{k-1} + (... (S_1 + D/k) (x) D/(k-1) ...) (x) D/2) (x) D``,
    the top level first so that the lower levels it reads are still the old ones.

    Parameters
    ----------
    increments : ndarray, shape (d, N, B)

    Returns
    -------
    ndarray, shape (signature_dim(d, depth), B)
    """
    d, segments, batch = increments.shape
    running = [np.zeros((d**k, batch)) for k in range(1, depth + 1)]  # running[k-1]: (d**k, B)
    for n in range(segments):
        delta = increments[:, n]  # (d, B)
        for k in range(depth, 0, -1):
            acc = delta / k  # (d, B)
            for m in range(1, k):
                acc = ((running[m - 1] + acc)[:, None] * (delta / (k - m))[None]).reshape(
                    d ** (m + 1), batch)  # (d**(m+1), B)
            running[k - 1] += acc
    return np.concatenate(running, axis=0)  # (D, B)


# --------------------------------------------------------------------------------------------------
# Levy area and time augmentation
# --------------------------------------------------------------------------------------------------

def levy_area_matrix(path: Any) -> np.ndarray:
    """Lévy area matrix ``A_ij = (S^{ij} - S^{ji}) / 2`` of a path.

    Parameters
    ----------
    path : array_like, shape (..., L, d)

    Returns
    -------
    ndarray, shape (..., d, d)
        Antisymmetric; ``A_ij`` is the signed area enclosed by the projection of the path on the
        coordinates ``(i, j)`` and the chord back to its start.
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
    """
    x = _as_path(path)
    if x.shape[-1] != 2:
        raise ValueError(f"path must be planar (d = 2 on the last axis) for levy_area; got shape {x.shape}; "
                         "use levy_area_matrix for other dimensions")
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
    """
    x = _as_path(path)
    length = x.shape[-2]
    if times is None:
        t = np.linspace(0.0, 1.0, length)
    else:
        t = as_float_array(times, "times", ndim_min=1).astype(np.float64, copy=False)
        if t.shape[-1] != length:
            raise ValueError(f"times must have the path length L = {length} on its last axis; got shape {t.shape}")
        if np.any(np.diff(t, axis=-1) < 0):
            raise ValueError("times must be non-decreasing along the path")
    try:
        t = np.broadcast_to(t, x.shape[:-1])  # (..., L)
    except ValueError:
        raise ValueError(f"times of shape {np.shape(t)} does not broadcast to the path's points "
                         f"{x.shape[:-1]}") from None
    return np.concatenate([t[..., None], x], axis=-1)  # (..., L, d+1)
