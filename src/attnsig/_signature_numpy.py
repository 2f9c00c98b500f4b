"""Pure-NumPy kernels behind :func:`attnsig.signature.signature` (no numba needed).

They return the flat layout of :mod:`attnsig.signature` and are tested against its
reference to 1e-12. Pure NumPy, so the aim is few Python-level operations on large
arrays; every array is letter-major, ``(d**m, B, N)`` or ``(d**m, B)``, with the batch
(and time) innermost, so that a tensor product is a broadcast multiply over long
contiguous rows.

* :func:`signature_horner`: the per-segment Horner update of the module docstring of
  :mod:`attnsig.signature`, run once per segment for the whole batch. Its Python loop
  runs once per segment, so it pays off on a batch wider than its paths are long; its
  memory is a few signatures per path, whatever the length.
* :func:`signature_meet_in_middle`: whole-path array operations and one matrix product
  per path (see :func:`_meet_in_middle`); its Python overhead does not grow with the
  path length, at the price of memory proportional to it.

:func:`signature` takes the Horner update for a batch of at least as many paths as
segments, or when one path would need more than ``MAX_PATH_ENTRIES`` float64 entries;
meet-in-the-middle otherwise. Measured on a busy 2-core machine (nine shapes): the
Horner update took 0.7-0.9x the time of meet-in-the-middle on 200 to 1000 paths of 10 to
100 points at d = 3 or 5, but up to 4x longer on long paths and wide signatures, and on
two wide batches (d = 4 depth 3, d = 2 depth 6) it was slower too: a simple rule, not
an optimum.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["signature", "signature_horner", "signature_meet_in_middle"]

# Working memory per chunk of paths, in float64 entries: 0.5 MB, near the cache, for
# both methods (a single path larger than this is one chunk).
CHUNK_ENTRIES = 1 << 16
# Meet-in-the-middle holds whole trajectories: beyond this many entries for a single
# path (128 MB), signature() uses the Horner update, whose memory does not grow with L.
MAX_PATH_ENTRIES = 1 << 24


def signature(paths: np.ndarray, depth: int) -> np.ndarray:
    """Signatures of ``paths`` (B, L, d), ``L >= 2``, by the NumPy method for the shape.

    Returns
    -------
    ndarray, shape (B, d + d**2 + ... + d**depth)
    """
    batch, length, d = paths.shape
    too_long = _meet_in_middle_entries(d, depth, length - 1) > MAX_PATH_ENTRIES
    if batch >= length - 1 or too_long:
        return signature_horner(paths, depth)
    return signature_meet_in_middle(paths, depth)


def _chunks(batch: int, per_path: int):
    """Slices of the batch holding about ``CHUNK_ENTRIES`` entries of working memory."""
    step = max(1, CHUNK_ENTRIES // per_path)
    return (slice(start, min(batch, start + step)) for start in range(0, batch, step))


def _tensor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Tensor product of letter-major arrays (d**i, ...) and (d**j, ...).

    The result is (d**(i+j), ...), the letters of ``a`` first.
    """
    return (a[:, None] * b[None]).reshape((-1,) + a.shape[1:])


# --------------------------------------------------------------------------------------
# The Horner update, one segment at a time
# --------------------------------------------------------------------------------------


def signature_horner(paths: np.ndarray, depth: int) -> np.ndarray:
    """Signatures (B, D) of paths (B, L, d), ``L >= 2``, by the per-segment update."""
    batch, _, d = paths.shape
    out = np.empty((batch, sum(d**k for k in range(1, depth + 1))))
    for chunk in _chunks(batch, d**depth):
        increments = np.ascontiguousarray(
            np.diff(paths[chunk], axis=1).transpose(1, 2, 0)
        )  # (N, d, B_chunk)
        out[chunk] = _horner(increments, depth).T
    return out


def _horner(increments: np.ndarray, depth: int) -> np.ndarray:
    """Letter-major signatures (D, B) from increments (N, d, B), one update per segment.

    Level ``k`` from the top down, each reading the old lower levels:
    ``S_k += (S_{k-1} + ... (S_1 + D/k) (x) D/(k-1) ...) (x) D``.
    """
    segments, d, batch = increments.shape
    # scaled[s] = D / s for s = 1..depth, computed once for all segments: (N, d, B)
    scaled = [increments] + [increments / s for s in range(1, depth + 1)]
    running = [np.zeros((d**k, batch)) for k in range(1, depth + 1)]
    sums = [np.empty((d**m, batch)) for m in range(depth)]  # scratch: S_m + acc
    products = [np.empty((d**m, batch)) for m in range(depth + 1)]  # scratch
    for n in range(segments):
        for k in range(depth, 1, -1):
            acc = scaled[k][n]  # D / k, (d, B)
            for m in range(1, k):
                np.add(running[m - 1], acc, out=sums[m])  # (d**m, B)
                np.multiply(
                    sums[m].reshape(d**m, 1, batch),
                    scaled[k - m][n].reshape(1, d, batch),
                    out=products[m + 1].reshape(d**m, d, batch),
                )
                acc = products[m + 1]  # (d**(m+1), B)
            np.add(running[k - 1], acc, out=running[k - 1])
        np.add(running[0], increments[n], out=running[0])
    return np.concatenate(running, axis=0)  # (D, B)


# --------------------------------------------------------------------------------------
# Meet in the middle: whole trajectories and one matrix product per path
# --------------------------------------------------------------------------------------


def signature_meet_in_middle(
    paths: np.ndarray, depth: int, split: int | None = None
) -> np.ndarray:
    """Signatures (B, D) of paths (B, L, d), ``L >= 2``, by meet-in-the-middle.

    ``split`` is the level ``q`` at which words are cut (default ``depth // 2 + 1``);
    every ``1 <= q <= depth`` gives the same numbers.
    """
    batch, length, d = paths.shape
    split = min(depth // 2 + 1 if split is None else split, depth)
    out = np.empty((batch, sum(d**k for k in range(1, depth + 1))))
    per_path = _meet_in_middle_entries(d, depth, length - 1, split)
    for chunk in _chunks(batch, per_path):
        points = np.ascontiguousarray(paths[chunk].transpose(2, 0, 1))  # (d, B_c, L)
        out[chunk] = _meet_in_middle(points, depth, split).T
    return out


def _meet_in_middle_entries(
    d: int, depth: int, segments: int, split: int | None = None
) -> int:
    """Bound the float64 entries per path of the largest meet-in-the-middle arrays."""
    split = min(depth // 2 + 1 if split is None else split, depth)
    right = depth - split
    lefts = d**split * (right + 1)
    rights = sum(d**r for r in range(1, right + 1)) * (right + 1)
    trajectories = 2 * sum(d**m for m in range(1, max(split, right + 1)))
    return (lefts + rights + trajectories) * segments


def _meet_in_middle(points: np.ndarray, depth: int, split: int) -> np.ndarray:
    """Letter-major signatures (D, B) of paths given as points (d, B, L), ``L >= 2``.

    Group the iterated integral of a word of length ``k`` by the segment ``n`` that
    holds its ``q``-th letter (``q = split``) and by how many letters before (``a``)
    and after (``b``) share that segment. With ``P_i(n)`` the level-``i`` signature of
    the path before segment ``n``, ``Q_j(n)`` that of the path after it, and ``D_n``
    the increment,

        S_k = sum_n sum_{a,b} P_{q-1-a} (x) D^{(x)(a+1+b)} / (a+1+b)! (x) Q_{k-q-b}
            = sum_b sum_n L_b(n) (x) R_b(n),
        L_b = sum_a P_{q-1-a} (x) D^{(x)(a+1)} / (a+1+b)!,
        R_b = D^{(x)b} (x) Q_{k-q-b},

    a contraction over ``n`` of left factors of level ``q`` with right factors of level
    ``k - q``: one matrix product per path gives every level above ``q``. Only
    trajectories up to level ``max(q - 1, depth - q)`` are needed, as cumulative sums.
    Levels up to ``q`` are sums over ``n`` of their increments (``L_0``).
    """
    d, batch, length = points.shape
    segments = length - 1
    right_top = depth - split  # highest level needed on the right
    increments = np.diff(points, axis=-1)  # (d, B, N)
    scaled = [increments] + [increments / s for s in range(1, depth + 2)]
    out: list[np.ndarray] = [np.empty(0)] * (depth + 1)
    out[1] = points[..., -1] - points[..., 0]  # (d, B)
    prefixes = [np.ones(1), points[..., :-1] - points[..., :1]]  # P_1(n) = X_n - X_0

    def left_factor(level: int, b: int) -> np.ndarray:
        """L_b for words cut at ``level``, (d**level, B, N).

        By Horner from the innermost term ``D / (level + b)``.
        """
        if level == 1:
            return increments / math.factorial(1 + b)
        acc = scaled[level + b]
        for a in range(level - 2, 0, -1):
            acc = _tensor(prefixes[level - 1 - a] + acc, scaled[a + 1 + b])
        acc = _tensor(prefixes[level - 1] + acc, increments)
        return acc / math.factorial(1 + b) if b else acc

    for level in range(2, split):  # prefix trajectories P_2 .. P_{q-1}
        steps = left_factor(level, 0)
        running = np.cumsum(steps, axis=-1)
        out[level] = running[..., -1].copy()
        running -= steps  # exclusive: the path before segment n
        prefixes.append(running)  # (d**level, B, N)
    if right_top == 0:  # split == depth: nothing to the right of the cut
        if split >= 2:
            out[split] = left_factor(split, 0).sum(axis=-1)
        return np.concatenate(out[1:], axis=0)  # (D, B)

    # Q_1 .. Q_r: Q_j(n) = sum_{m>n} D_m (x) (Q_{j-1} + D_m/2 (x) (... + D_m/j))
    suffixes = [np.ones(1), points[..., -1:] - points[..., 1:]]  # Q_1 = X_end - X_{n+1}
    for level in range(2, right_top + 1):
        acc = scaled[level]
        for i in range(1, level):
            acc = _tensor(scaled[level - i], suffixes[i] + acc)
        running = np.cumsum(acc, axis=-1)
        suffixes.append(running[..., -1:] - running)  # exclusive: after segment n
    powers = [np.ones(1), increments]  # D^{(x)b}, (d**b, B, N)
    for _ in range(2, right_top + 1):
        powers.append(_tensor(powers[-1], increments))

    # Left factors side by side along n, right factors stacked by level: (d**q, B,
    # (r+1) N) and (d + ... + d**r, B, (r+1) N); right blocks with b > level - q are 0.
    left_blocks = [left_factor(split, b) for b in range(right_top + 1)]
    left = np.concatenate(left_blocks, axis=-1)
    right = np.zeros(
        (sum(d**r for r in range(1, right_top + 1)), batch, (right_top + 1) * segments)
    )
    row = 0
    for r in range(1, right_top + 1):
        for b in range(r + 1):
            if b == 0:
                block = suffixes[r]
            elif b == r:
                block = powers[r]
            else:
                block = _tensor(powers[b], suffixes[r - b])
            right[row : row + d**r, :, b * segments : (b + 1) * segments] = block
        row += d**r
    # One matrix product per path; BLAS reads the transposed views as strided matrices.
    contracted = np.matmul(left.transpose(1, 0, 2), right.transpose(1, 2, 0))
    if split >= 2:
        out[split] = left_blocks[0].sum(axis=-1)  # (d**q, B)
    row = 0
    for r in range(1, right_top + 1):  # contracted: (B, d**q, d + ... + d**r)
        block = contracted[:, :, row : row + d**r]
        out[split + r] = block.reshape(batch, d ** (split + r)).T
        row += d**r
    return np.concatenate(out[1:], axis=0)  # (D, B)
