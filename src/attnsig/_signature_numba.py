"""Compiled (numba) kernels behind :func:`attnsig.signature.signature` (optional, lazy).

The kernels compute the truncated signatures of a batch of piecewise-linear paths,
returned in the flat layout of :mod:`attnsig.signature` (levels ``1..depth``, words in
lexicographic order, first letter = earliest time), by the recurrence written out in the
docstring of :mod:`attnsig.signature`: one Horner update of the running signature per
segment, levels updated in place from the top down, the tensor products written by flat
index arithmetic.

* :func:`signature_lanes` runs ``LANES`` paths side by side with the path index
  innermost: every innermost loop is a loop of fixed length ``LANES`` over contiguous
  memory, which LLVM turns into SIMD instructions whatever ``d`` is. Each group's
  increments are read once, path by path in memory order, into a lane-major array:
  gathering them lane by lane at every segment cost a third of the time. Best for a
  batch of many paths with signatures of moderate size.
* :func:`signature_pieces` fills the lanes from a few long paths: each is cut along
  time into pieces that run side by side, then joined by Chen's identity.
* :func:`signature_per_path` runs over one path at a time, for a few paths. With small
  ``d`` the tensor product's loop over the new letter is too short to vectorise, so this
  kernel stores each level with its words *reversed* (last letter most significant):
  then ``a (x) D`` is ``d`` contiguous blocks ``D[j] * a``, each a loop over all of
  ``a``; the output is permuted back.

Single-threaded on purpose (no ``parallel=True``): the package must not grab every core
of a shared machine, and the benchmarks compare one thread per library. ``cache=True``
stores the machine code next to this file (or in numba's cache directory if that is
read-only), so only the first call on a machine pays for compilation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "signature",
    "signature_per_path",
    "signature_lanes",
    "signature_pieces",
    "LANES",
]

# Paths run side by side in signature_lanes. A compile-time constant, so the innermost
# loops have a known trip count. Measured on AVX-512 and on AVX2: with 8, 16 or 32 lanes
# LLVM vectorised few of the loops, and 64 lanes ran 1.5-3x faster than those.
LANES = 64
# A last group of fewer paths than this goes to the per-path kernel: at d = 3, depth 4,
# a 64-lane group costs about as much as 27 paths one at a time.
MIN_PATHS_FOR_LANES = 32
# Beyond this many entries per signature, LANES running signatures (512 kB here) no
# longer fit in a core's cache and the per-path kernel is faster (measured at d = 5,
# depth 5: 3905 entries, lanes 1.4x slower).
MAX_LANES_DIM = 1024
# Let LLVM fuse a multiply and an add into one FMA instruction (one rounding instead of
# two): no other fast-math licence, so a result moves by an ulp or so, far below the
# 1e-12 to which the tests hold every method.
_FASTMATH = {"contract"}
# Segments per update of the top level in signature_per_path (the four-term sum there
# is written out for this value).
TOP_BLOCK = 4


def signature(paths: np.ndarray, depth: int) -> np.ndarray:
    """Signatures of ``paths`` (B, L, d), ``L >= 2``, by the kernels below: (B, D).

    The lane kernel (SIMD across paths) takes whole groups of ``LANES`` paths while
    ``LANES`` running signatures fit in the cache (``MAX_LANES_DIM``); the per-path
    kernel takes the rest, and a last group of fewer than ``MIN_PATHS_FOR_LANES``
    paths, where padding would waste most of the lanes. A batch that small, of paths
    long enough, is instead cut along time into pieces that fill the lanes (see
    :func:`signature_pieces`).
    """
    paths = np.ascontiguousarray(paths, dtype=np.float64)  # one compiled specialisation
    depth = int(depth)
    batch, length, d = paths.shape
    tail = batch % LANES
    in_lanes = batch if tail >= MIN_PATHS_FOR_LANES else batch - tail
    if sum(d**k for k in range(1, depth + 1)) > MAX_LANES_DIM:
        return signature_per_path(paths, depth)
    if in_lanes == batch:
        return signature_lanes(paths, depth)
    if in_lanes == 0:
        pieces = 1
        while 2 * pieces * batch <= LANES and 2 * pieces * 2 * depth <= length - 1:
            pieces *= 2
        if pieces == 1:
            return signature_per_path(paths, depth)
        return signature_pieces(paths, depth, pieces)
    return np.concatenate(
        [
            signature_lanes(paths[:in_lanes], depth),
            signature_per_path(paths[in_lanes:], depth),
        ]
    )


@njit(cache=True)
def _level_offsets(d: int, depth: int) -> np.ndarray:
    """Start of levels ``1..depth`` in the flat signature, plus its end.

    Shape ``(depth + 1,)``.
    """
    offsets = np.zeros(depth + 1, dtype=np.int64)
    size = 1
    for k in range(1, depth + 1):
        size *= d
        offsets[k] = offsets[k - 1] + size
    return offsets


@njit(cache=True)
def _inverse_integers(depth: int) -> np.ndarray:
    """Reciprocals ``[nan, 1/1, 1/2, ..., 1/depth]``.

    ``D / s`` becomes a multiplication in the hot loop.
    """
    inverse = np.full(depth + 1, np.nan)
    for s in range(1, depth + 1):
        inverse[s] = 1.0 / s
    return inverse


@njit(cache=True)
def _reversal_permutation(d: int, depth: int, offsets: np.ndarray) -> np.ndarray:
    """Positions of the words when they are stored reversed.

    ``perm[p]`` is where the word at flat position ``p`` sits.
    """
    perm = np.empty(offsets[depth], dtype=np.int64)
    for k in range(1, depth + 1):
        for index in range(offsets[k] - offsets[k - 1]):
            rest, reversed_index = index, 0
            for _ in range(
                k
            ):  # read the base-d digits of index from the last letter on
                reversed_index = reversed_index * d + rest % d
                rest //= d
            perm[offsets[k - 1] + index] = offsets[k - 1] + reversed_index
    return perm


@njit(cache=True, fastmath=_FASTMATH)
def signature_per_path(paths: np.ndarray, depth: int) -> np.ndarray:
    """Truncated signatures of a batch of paths, one path at a time.

    Words are stored reversed. The top level, the largest, is updated once per
    ``TOP_BLOCK`` segments: :func:`_segment_below_top` leaves each segment's left
    factor ``a`` of ``S_depth += a (x) D`` in a buffer, and one pass over the top
    level adds the ``TOP_BLOCK`` products, so the top level is read and written a
    quarter as often (about 10% less time at d = 5, depth 5). The lower levels of a
    later segment do not read the top level, so the order of the sums is all that
    changes.

    Parameters
    ----------
    paths : ndarray, shape (B, L, d), float64
        ``L >= 1`` points per path.
    depth : int
        Truncation level, ``depth >= 1``.

    Returns
    -------
    ndarray, shape (B, d + d**2 + ... + d**depth), float64
    """
    batch, length, d = paths.shape
    offsets = _level_offsets(d, depth)
    dim = offsets[depth]
    perm = _reversal_permutation(d, depth, offsets)
    inverse = _inverse_integers(depth)
    out = np.empty((batch, dim))
    sig = np.empty(dim)  # running signature, words reversed
    steps = np.empty((TOP_BLOCK, depth + 1, d))  # steps[t, s] = D / s, segment t
    width = max(
        d, offsets[depth - 1] - offsets[max(depth - 2, 0)]
    )  # d**(depth-1), at least d
    acc = np.empty(width)  # Horner accumulator (level m)
    nxt = np.empty(width)  # next accumulator (level m + 1)
    tops = np.empty((TOP_BLOCK, width))  # left factors of the top level's update
    segments = length - 1
    top = offsets[depth - 1]
    for b in range(batch):
        sig[:] = 0.0
        for first in range(0, segments, TOP_BLOCK):
            count = min(TOP_BLOCK, segments - first)
            for t in range(count):
                for j in range(d):
                    delta = paths[b, first + t + 1, j] - paths[b, first + t, j]
                    for s in range(1, depth + 1):
                        steps[t, s, j] = delta * inverse[s]
                _segment_below_top(sig, steps[t], offsets, depth, acc, nxt, tops[t])
            if depth == 1:
                continue
            if count == TOP_BLOCK:  # S_depth += sum_t tops[t] (x) D_t, in one pass
                t0, t1, t2, t3 = tops[0], tops[1], tops[2], tops[3]
                for j in range(d):
                    f0, f1 = steps[0, 1, j], steps[1, 1, j]
                    f2, f3 = steps[2, 1, j], steps[3, 1, j]
                    block = sig[top + j * width : top + (j + 1) * width]
                    for i in range(width):
                        block[i] += (t0[i] * f0 + t1[i] * f1) + (
                            t2[i] * f2 + t3[i] * f3
                        )
            else:
                for t in range(count):
                    for j in range(d):
                        factor = steps[t, 1, j]
                        block = sig[top + j * width : top + (j + 1) * width]
                        for i in range(width):
                            block[i] += tops[t, i] * factor
        for p in range(dim):
            out[b, p] = sig[perm[p]]
    return out


@njit(cache=True, fastmath=_FASTMATH)
def _segment_below_top(
    sig: np.ndarray,
    scaled: np.ndarray,
    offsets: np.ndarray,
    depth: int,
    acc: np.ndarray,
    nxt: np.ndarray,
    top: np.ndarray,
) -> None:
    """One segment's Horner update of levels ``1..depth-1`` of ``sig`` (words reversed).

    ``scaled[s]`` is ``D / s`` (shape ``(depth + 1, d)``); ``acc`` and ``nxt`` are
    scratch of ``d**(depth-1)`` entries. The top level is left alone: its left factor
    ``S_{depth-1} + (... (S_1 + D/depth) (x) D/(depth-1) ...) (x) D/2``, from the levels
    before this update, goes to ``top``.
    """
    d = scaled.shape[1]
    for k in range(depth, 1, -1):
        for j in range(d):  # explicit loops: numba's slice assignment costs more here
            acc[j] = scaled[k, j]
        size = d
        for m in range(1, k):
            low = sig[offsets[m - 1] : offsets[m]]
            if m < k - 1:  # acc <- (S_m + acc) (x) D / (k - m): block j is D[j] acc
                for i in range(size):
                    acc[i] += low[i]
                for j in range(d):
                    factor = scaled[k - m, j]
                    block = nxt[j * size : (j + 1) * size]
                    for i in range(size):
                        block[i] = acc[i] * factor
                acc, nxt = nxt, acc
                size *= d
            elif k == depth:  # the top level's left factor, for the caller
                for i in range(size):
                    top[i] = acc[i] + low[i]
            else:  # S_k += (S_{k-1} + acc) (x) D, straight into level k
                for i in range(size):
                    acc[i] += low[i]
                for j in range(d):
                    factor = scaled[1, j]
                    block = sig[
                        offsets[k - 1] + j * size : offsets[k - 1] + (j + 1) * size
                    ]
                    for i in range(size):
                        block[i] += acc[i] * factor
    for j in range(d):
        sig[j] += scaled[1, j]


@njit(cache=True, fastmath=_FASTMATH)
def signature_lanes(paths: np.ndarray, depth: int) -> np.ndarray:
    """Truncated signatures of a batch of paths, ``LANES`` paths side by side.

    The same update per path as :func:`signature_per_path`, by :func:`_lane_group` on
    working arrays ``(entries, LANES)`` with the path innermost and words in the
    output's order. A last, partial group is padded with constant paths (zero
    increments), whose lanes are computed and dropped.

    Parameters
    ----------
    paths : ndarray, shape (B, L, d), float64
    depth : int

    Returns
    -------
    ndarray, shape (B, d + d**2 + ... + d**depth), float64
    """
    batch, length, d = paths.shape
    offsets = _level_offsets(d, depth)
    out = np.empty((batch, offsets[depth]))
    sig = np.empty((offsets[depth], LANES))  # running signatures, one per lane
    increments = np.zeros((max(length - 1, 0), d, LANES))
    for first in range(0, batch, LANES):
        used = min(LANES, batch - first)
        for lane in range(used):  # read each path once, in memory order
            for n in range(length - 1):
                for j in range(d):
                    increments[n, j, lane] = (
                        paths[first + lane, n + 1, j] - paths[first + lane, n, j]
                    )
        increments[:, :, used:] = 0.0  # padded lanes: constant paths
        _lane_group(increments, depth, offsets, sig)
        out[first : first + used] = sig[:, :used].T
    return out


@njit(cache=True, fastmath=_FASTMATH)
def signature_pieces(paths: np.ndarray, depth: int, pieces: int) -> np.ndarray:
    """Signatures of a few long paths, each cut along time into ``pieces`` pieces.

    The ``B * pieces`` pieces (``pieces`` a power of 2, ``B * pieces <= LANES``) run
    side by side in :func:`_lane_group`; then Chen's identity joins neighbouring
    pieces, ``log2(pieces)`` rounds of :func:`_chen_lanes`. A join costs a few segment
    updates, so pieces of at least ``2 * depth`` segments keep the joins a small part of
    the work.

    Parameters
    ----------
    paths : ndarray, shape (B, L, d), float64
    depth, pieces : int

    Returns
    -------
    ndarray, shape (B, d + d**2 + ... + d**depth), float64
    """
    batch, length, d = paths.shape
    offsets = _level_offsets(d, depth)
    dim = offsets[depth]
    per_piece = (length - 2) // pieces + 1  # segments per piece, the last padded
    increments = np.zeros((per_piece, d, LANES))
    for b in range(batch):
        for p in range(pieces):
            lane = b * pieces + p
            for n in range(min(per_piece, length - 1 - p * per_piece)):
                point = p * per_piece + n
                for j in range(d):
                    increments[n, j, lane] = paths[b, point + 1, j] - paths[b, point, j]
    sig = np.empty((dim, LANES))
    _lane_group(increments, depth, offsets, sig)
    width = batch * pieces
    while width > batch:  # lane 2i <- lane 2i (x) lane 2i + 1
        width //= 2
        left = np.ascontiguousarray(sig[:, 0 : 2 * width : 2])
        right = np.ascontiguousarray(sig[:, 1 : 2 * width : 2])
        _chen_lanes(left, right, offsets, depth)
        sig[:, :width] = left
    return np.ascontiguousarray(sig[:, :batch].T)


@njit(cache=True, fastmath=_FASTMATH)
def _chen_lanes(
    left: np.ndarray, right: np.ndarray, offsets: np.ndarray, depth: int
) -> None:
    """``left <- left (x) right`` (Chen's product) in place, per column of (D, n)."""
    lanes = left.shape[1]
    for k in range(depth, 0, -1):  # top down: level k reads the old lower levels
        top = offsets[k - 1]
        for i in range(1, k):  # left_k += left_i (x) right_{k-i}
            low = offsets[k - i - 1]
            size = offsets[k - i] - low  # d**(k-i)
            for a in range(offsets[i] - offsets[i - 1]):
                source = offsets[i - 1] + a
                for e in range(size):
                    row = top + a * size + e
                    for lane in range(lanes):
                        left[row, lane] += left[source, lane] * right[low + e, lane]
        for row in range(top, offsets[k]):
            for lane in range(lanes):
                left[row, lane] += right[row, lane]


@njit(cache=True, fastmath=_FASTMATH)
def _lane_group(
    increments: np.ndarray, depth: int, offsets: np.ndarray, sig: np.ndarray
) -> None:
    """Signatures ``sig`` (D, LANES) of ``LANES`` paths from their increments.

    The increments are (N, d, LANES); one Horner update per segment. Each Horner step is
    one fused pass, ``acc <- acc (x) D / (k - m) + S_{m+1}``.
    """
    segments, d, _ = increments.shape
    inverse = _inverse_integers(depth)
    width = max(d, offsets[depth - 1] - offsets[max(depth - 2, 0)])  # d**(depth-1)
    step = np.empty((depth + 1, d, LANES))  # step[s] = D / s per lane
    acc = np.empty((width, LANES))
    nxt = np.empty((width, LANES))
    sig[:] = 0.0
    for n in range(segments):
        for s in range(1, depth + 1):
            for j in range(d):
                for lane in range(LANES):
                    step[s, j, lane] = increments[n, j, lane] * inverse[s]
        for k in range(depth, 1, -1):
            for j in range(d):  # acc <- S_1 + D / k
                for lane in range(LANES):
                    acc[j, lane] = sig[j, lane] + step[k, j, lane]
            size = d
            for m in range(1, k - 1):  # acc <- acc (x) D / (k - m) + S_{m+1}
                level = offsets[m]
                for i in range(size):
                    for j in range(d):
                        row = i * d + j
                        for lane in range(LANES):
                            nxt[row, lane] = (
                                acc[i, lane] * step[k - m, j, lane]
                                + sig[level + row, lane]
                            )
                acc, nxt = nxt, acc
                size *= d
            level = offsets[k - 1]  # S_k += acc (x) D
            for i in range(size):
                for j in range(d):
                    row = level + i * d + j
                    for lane in range(LANES):
                        sig[row, lane] += acc[i, lane] * step[1, j, lane]
        for j in range(d):
            for lane in range(LANES):
                sig[j, lane] += step[1, j, lane]
