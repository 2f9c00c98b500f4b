"""Pure-NumPy kernels behind :func:`attnsig.signature.signature` (no numba needed).

They return the flat layout of :mod:`attnsig.signature` and are tested against its
reference to 1e-12. Pure NumPy, so the aim is few Python-level operations on large
arrays; every array is letter-major, ``(d**m, B, N)`` or ``(d**m, B)``, with the batch
(and time) innermost, so that a tensor product is a broadcast multiply over long
contiguous rows.

* :func:`signature_horner`: the per-segment Horner update of the module docstring of
  :mod:`attnsig.signature`, run once per segment for the whole batch. Its Python loop
  runs once per segment, so it pays off on a batch wider than its paths are long; its
  memory is a few signatures per path, whatever the length. Its levels store each word
  reversed (last letter first, permuted back at the end), so that ``a (x) D`` is ``d``
  blocks ``D[j] * a`` written in order.
* :func:`signature_meet_in_middle`: whole-path array operations and one matrix product
  per path (see :func:`_meet_in_middle`); its Python overhead does not grow with the
  path length, at the price of memory proportional to it.

:func:`signature` takes the Horner update for a batch of at least as many paths as
segments, or when one path would need more than ``MAX_PATH_ENTRIES`` float64 entries;
meet-in-the-middle otherwise. Measured on a busy 2-core machine (nine shapes): the
Horner update took 0.7-0.9x the time of meet-in-the-middle on 200 to 1000 paths of 10 to
100 points at d = 3 or 5, but up to 4x longer on long paths and wide signatures, and on
two wide batches (d = 4 depth 3, d = 2 depth 6) it was slower too: a simple rule, not
an optimum. Both methods were since made faster (issue 24); on the three benchmark
shapes the rule still picks the faster one.

Both methods run with NumPy's ufunc buffer fitted to their rows (:func:`_ufunc_buffer`):
with the default buffer, longer than the rows, every broadcast outer product was copied
through it, which had cost a tenth (wide signatures) to a quarter of their time.
Meet-in-the-middle runs a plan, a fixed list of ufunc calls on arrays and views made
once per shape and kept from call to call (:func:`_cached_plan`): on one long path,
choosing the factors, building the views and allocating the arrays at every call had
cost about as much as the arithmetic. The Horner update keeps its increments and state
in arrays reused from call to call (:func:`_scratch`), which spares the page faults of
fresh memory.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading

import numpy as np

__all__ = ["signature", "signature_horner", "signature_meet_in_middle"]

# Working memory per chunk of paths, in float64 entries: 2 MB, for both methods (a
# single path larger than this is one chunk).
CHUNK_ENTRIES = 1 << 18
# Meet-in-the-middle holds whole trajectories: beyond this many entries for a single
# path (128 MB), signature() uses the Horner update, whose memory does not grow with L.
MAX_PATH_ENTRIES = 1 << 24
# Meet-in-the-middle keeps its most recent plans (arrays and ufunc calls, see
# _cached_plan) while their arrays hold at most this many entries in all (8 MB); the
# Horner update keeps its arrays from SMALL_ENTRIES (128 KB) up to that size (see
# _scratch).
SCRATCH_ENTRIES = 1 << 20
SMALL_ENTRIES = 1 << 14
_SCRATCH = threading.local()
# Rows shorter than this keep NumPy's default ufunc buffer (see _ufunc_buffer).
SHORT_ROWS = 128


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


def _ufunc_buffer(run: int) -> contextlib.AbstractContextManager:
    """Run NumPy's ufuncs with a buffer at most ``run`` elements long, then restore it.

    ``run`` is the length of the contiguous rows the kernels work on (the batch for the
    Horner update, the segments for meet-in-the-middle). A ufunc whose operands do not
    form one contiguous block (a broadcast outer product, a strided view) goes through
    NumPy's buffered iterator; when the buffer (8192 elements by default) is longer
    than the rows, it copies them through the buffer, and such a call cost 1.5 to 2.5x
    the time of the same call on a buffer that fits the rows (NumPy 2.4, measured on
    (3, 1, 1000) x (1, 27, 1000) and on a strided (81, 1000) view). The size is set
    for this thread (NumPy 2's ``np.errstate`` scopes it) and restored on exit,
    explicitly too, for NumPy 1.26. Rows shorter than ``SHORT_ROWS`` keep the default:
    a buffer that short only cuts the loops into more pieces, on problems so small that
    the set-up costs more than it saves.
    """
    if run < SHORT_ROWS:  # too short to gain: a small buffer would only add calls
        return contextlib.nullcontext()
    return _buffer_size(min(8192, run - run % 16))


@contextlib.contextmanager
def _buffer_size(size: int):
    """NumPy's ufunc buffer set to ``size`` elements inside the block, then restored."""
    with np.errstate():
        previous = np.setbufsize(size)
        try:
            yield
        finally:
            np.setbufsize(previous)


def _scratch(name: str, shape: tuple[int, ...]) -> np.ndarray:
    """An uninitialised array of ``shape``, reused from the last call in this thread.

    The Horner update's increments and state (a few MB on a wide batch) are kept
    between calls: allocated afresh, they came from new pages of memory at every call
    once the C allocator had returned the previous ones to the system, and the page
    faults (with np.diff and a transposed copy) cost a fifth of the time on 1000 paths
    of 100 points.
    """
    size = math.prod(shape)
    if size < SMALL_ENTRIES:  # below the C allocator's threshold for fresh pages
        return np.empty(shape)
    buffer = getattr(_SCRATCH, name, None)
    if buffer is None or buffer.size < size:
        buffer = np.empty(size)
        if size <= SCRATCH_ENTRIES:
            setattr(_SCRATCH, name, buffer)
    return buffer[:size].reshape(shape)


def _chunks(batch: int, per_path: int):
    """Slices of the batch holding about ``CHUNK_ENTRIES`` entries of working memory."""
    step = max(1, CHUNK_ENTRIES // per_path)
    return (slice(start, min(batch, start + step)) for start in range(0, batch, step))


# --------------------------------------------------------------------------------------
# The Horner update, one segment at a time
# --------------------------------------------------------------------------------------


def signature_horner(paths: np.ndarray, depth: int) -> np.ndarray:
    """Signatures (B, D) of paths (B, L, d), ``L >= 2``, by the per-segment update."""
    batch, _, d = paths.shape
    with _ufunc_buffer(min(batch, max(1, CHUNK_ENTRIES // d**depth))):
        return _signature_horner(paths, depth)


def _signature_horner(paths: np.ndarray, depth: int) -> np.ndarray:
    batch, _, d = paths.shape
    out = np.empty((batch, sum(d**k for k in range(1, depth + 1))))
    unreverse = [_reversal(d, k) for k in range(1, depth + 1)]
    for chunk in _chunks(batch, d**depth):
        points = paths[chunk].transpose(1, 2, 0)  # (L, d, B_chunk), a view
        # Differences written straight into a kept array: np.diff, then a transposed
        # copy, took two fresh arrays and three times as long (page faults).
        increments = np.subtract(
            points[1:], points[:-1], out=_scratch("increments", points[1:].shape)
        )  # (N, d, B_chunk)
        start = 0
        for k, level in enumerate(_horner(increments, depth), start=1):
            out[chunk, start : start + d**k] = level[unreverse[k - 1]].T
            start += d**k
    return out


def _reversal(d: int, k: int) -> np.ndarray:
    """Rows of a level stored with reversed words, in the order of the flat layout.

    ``reversed_level[_reversal(d, k)]`` lists the words in lexicographic order.
    """
    letters = np.arange(d**k).reshape((d,) * k)
    return letters.transpose(tuple(range(k - 1, -1, -1))).reshape(-1)


def _horner(increments: np.ndarray, depth: int) -> list[np.ndarray]:
    """Levels ``(d**k, B)`` from increments (N, d, B), one update per segment.

    Level ``k`` from the top down, each reading the old lower levels:
    ``S_k += (S_{k-1} + ... (S_1 + D/k) (x) D/(k-1) ...) (x) D``. Words are stored
    reversed (last letter first), so that ``a (x) D`` is the ``d`` blocks
    ``D[j] * a``: one broadcast multiply whose inner loop runs over the whole batch
    and whose output is written in order.
    """
    segments, d, batch = increments.shape
    inverse = (1.0 / np.arange(1.0, depth + 1))[:, None, None]  # (depth, 1, 1)
    # All working arrays are views of one kept array (see _scratch): levels, then
    # the products D/s (x) acc, then D/s per s, then S_1 + D/k.
    sizes = [d**k for k in range(1, depth + 1)]
    rows = 2 * sum(sizes) + depth * d + d
    state = _scratch("horner", (rows, batch))
    views = np.split(state, np.cumsum(sizes + sizes + [depth * d]))
    running = views[:depth]
    for level in running:
        level.fill(0.0)
    products = [view.reshape(d, -1, batch) for view in views[depth : 2 * depth]]
    step = views[2 * depth].reshape(depth, d, batch)  # this segment's D/s at step[s-1]
    first = views[2 * depth + 1]  # S_1 + D / k
    # The update as a fixed list of ufunc calls on views made once: a segment then
    # costs one multiply and these calls, without Python building views at every step
    # (a tenth of the time on 1000 paths of 100 points). The sums S_m + acc are formed
    # in place in the product buffers: two arrays streamed instead of three.
    program = []
    for k in range(depth, 1, -1):
        program.append((np.add, running[0], step[k - 1], first))
        acc = first
        for m in range(1, k):
            if m > 1:
                program.append((np.add, acc, running[m - 1], acc))
            factor = step[k - m - 1][:, None]
            program.append((np.multiply, factor, acc[None], products[m]))
            acc = products[m].reshape(d ** (m + 1), batch)
        program.append((np.add, running[k - 1], acc, running[k - 1]))
    program.append((np.add, running[0], step[0], running[0]))
    for n in range(segments):
        np.multiply(increments[n], inverse, out=step)
        for ufunc, left, right, out in program:
            ufunc(left, right, out=out)
    return running


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
    with _ufunc_buffer(length - 1):  # rows run along the segments
        for chunk in _chunks(batch, per_path):
            points = paths[chunk].transpose(2, 0, 1)  # (d, B_c, L), copied by the plan
            _meet_in_middle(points, depth, split, out[chunk])
    return out


def _meet_in_middle_entries(
    d: int, depth: int, segments: int, split: int | None = None
) -> int:
    """Bound the float64 entries per path of the largest meet-in-the-middle arrays."""
    split = min(depth // 2 + 1 if split is None else split, depth)
    right = depth - split
    lefts = d**split * (right + 1)
    rights = sum(d**r for r in range(1, right + 1)) * (right + 1)
    trajectories = 3 * sum(d**m for m in range(1, max(split, right + 1)))
    return (lefts + rights + trajectories) * segments


def _meet_in_middle(
    points: np.ndarray, depth: int, split: int, out: np.ndarray
) -> None:
    """Write into ``out`` (B, D) the signatures of paths given as points (d, B, L).

    Runs the plan of :func:`_meet_in_middle_plan` for this shape, kept from the last
    call of the same shape in this thread when it is small enough (see
    :func:`_cached_plan`).
    """
    d, batch, length = points.shape
    source, result, program = _cached_plan(d, batch, length, depth, split)
    np.copyto(source, points)
    for operation in program:
        operation()
    np.copyto(out, result)


def _cached_plan(
    d: int, batch: int, length: int, depth: int, split: int
) -> tuple[np.ndarray, np.ndarray, list]:
    """The plan for this shape, reused from an earlier call in this thread if kept.

    A plan's arrays are allocated once and its operations work on views made once, so
    a call of a known shape costs its ufunc calls and nothing else: on one path of
    1000 points, building the views, choosing the factors and allocating the arrays
    at every call had cost about as much as the arithmetic. The most recent plans are
    kept while their arrays hold at most ``SCRATCH_ENTRIES`` entries in all; kept
    arrays also spare the page faults of memory that the C allocator had returned to
    the system between calls (they had doubled the time of a 1000-point path).
    """
    key = (d, batch, length, depth, split)
    plans = getattr(_SCRATCH, "plans", None)
    if plans is None:
        plans = _SCRATCH.plans = {}
    plan = plans.pop(key, None)
    if plan is None:
        plan = _meet_in_middle_plan(d, batch, length, depth, split)
    entries, *plan = plan
    if entries <= SCRATCH_ENTRIES:
        plans[key] = (entries, *plan)  # most recent last
        while sum(kept[0] for kept in plans.values()) > SCRATCH_ENTRIES:
            del plans[next(iter(plans))]
    return tuple(plan)


def _meet_in_middle_plan(
    d: int, batch: int, length: int, depth: int, split: int
) -> tuple[int, np.ndarray, np.ndarray, list]:
    """Arrays and ufunc calls that compute the signatures of ``batch`` paths.

    Returns ``(entries, points, out, program)``: the paths' points are copied into
    ``points`` (d, B, L), every call of ``program`` is made in order, and ``out``
    (B, D) then holds the signatures; ``entries`` counts the float64 entries of the
    plan's arrays.

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
    Levels up to ``q`` are sums over ``n`` of their increments (``L_0``). Every array
    is letter-major, ``(d**m, B, N)``, and each factor is written straight into the
    matrix it belongs to: no concatenation, no copies.
    """
    segments = length - 1
    right_top = depth - split  # highest level needed on the right
    offsets = [sum(d**j for j in range(1, k)) for k in range(1, depth + 2)]
    arrays: list[np.ndarray] = []
    program: list = []

    def array(*shape: int) -> np.ndarray:
        arrays.append(np.empty(shape))
        return arrays[-1]

    def emit(function, *args, **kwargs) -> None:
        program.append(functools.partial(function, *args, **kwargs))

    def level_of(level: int) -> np.ndarray:
        """Level ``level`` of every path in ``out``, as a (d**level, B) view."""
        return out[:, offsets[level - 1] : offsets[level]].T

    points = array(d, batch, length)
    out = array(batch, offsets[-1])
    emit(np.subtract, points[..., -1], points[..., 0], out=level_of(1))
    # Left factors side by side along n, right factors stacked by level: matrices
    # (d**q, B, r+1, N) and (d + ... + d**r, B, r+1, N); block (j, b) of the right is
    # R_b at level j, zero for b > j (zeroed here, never written).
    left = array(d**split, batch, right_top + 1, segments)
    rows = sum(d**j for j in range(1, right_top + 1))
    right = array(rows, batch, right_top + 1, segments)
    right[...] = 0.0
    blocks = [np.empty(0)]  # blocks[j]: the rows of level j
    for j in range(1, right_top + 1):
        blocks.append(right[offsets[j - 1] : offsets[j]])
    # the increments D_n, (d, B, N): R_1 at level 1 if there is a right side
    increments = blocks[1][:, :, 1] if right_top else array(d, batch, segments)
    emit(np.subtract, points[..., 1:], points[..., :-1], out=increments)
    # D / s for every divisor s below, in one operation (a multiplication by 1/s,
    # which may differ from D / s in the last bit): (len, d, B, N)
    divisors = sorted(
        set(range(1, depth + 1)) | {math.factorial(1 + b) for b in range(right_top + 1)}
    )
    inverse = (1.0 / np.array(divisors, dtype=float))[:, None, None, None]
    table = array(len(divisors), d, batch, segments)
    emit(np.multiply, increments[None], inverse, out=table)
    scaled = dict(zip(divisors, table, strict=True))
    prefixes = [np.ones(1), array(d, batch, segments)]  # P_1(n) = X_n - X_0
    emit(np.subtract, points[..., :-1], points[..., :1], out=prefixes[1])
    # one scratch array per level for the chains, shared by all of them
    chain = [None] + [array(d**m, batch, segments) for m in range(1, depth)]

    def left_factor(level: int, b: int, target: np.ndarray) -> None:
        """L_b for words cut at ``level`` into ``target`` (d**level, B, N).

        By Horner from the innermost term ``D / (level + b)``; the last factor
        ``D / (1 + b)!`` carries the common denominator. The sum ``P_m + acc`` is
        formed in the array of the product before it.
        """
        if level == 1:
            emit(np.copyto, target, scaled[math.factorial(1 + b)])
            return
        acc = scaled[level + b]
        for m in range(1, level):  # prefix level added, then one more letter
            summed = chain[m]
            emit(np.add, prefixes[m], acc, out=summed)
            last = m == level - 1
            factor = scaled[math.factorial(1 + b) if last else level - m + b]
            acc = target if last else chain[m + 1]
            emit(
                np.multiply,
                summed[:, None],
                factor[None],
                out=acc.reshape(d**m, d, batch, segments),
            )

    for level in range(2, split):  # prefix trajectories P_2 .. P_{q-1}
        steps = array(d**level, batch, segments)
        left_factor(level, 0, steps)
        running = array(d**level, batch, segments)
        emit(np.add.accumulate, steps, axis=-1, out=running)
        emit(np.copyto, level_of(level), running[..., -1])
        emit(np.subtract, running, steps, out=running)  # exclusive: the path before n
        prefixes.append(running)  # (d**level, B, N)
    if right_top == 0:  # split == depth: nothing to the right of the cut
        if split >= 2:
            left_factor(split, 0, left[:, :, 0])
            emit(np.add.reduce, left[:, :, 0], axis=-1, out=level_of(split))
        return sum(a.size for a in arrays), points, out, program

    for b in range(right_top + 1):
        left_factor(split, b, left[:, :, b])
    if split >= 2:
        emit(np.add.reduce, left[:, :, 0], axis=-1, out=level_of(split))
    emit(np.subtract, points[..., -1:], points[..., 1:], out=blocks[1][:, :, 0])  # Q_1
    for j in range(2, right_top + 1):
        # D^{(x)j}, then Q_j(n) = sum_{m>n} D_m (x) (Q_{j-1} + D_m/2 (x) (... + D_m/j))
        emit(
            np.multiply,
            blocks[j - 1][:, None, :, j - 1],
            increments[None],
            out=blocks[j][:, :, j].reshape(d ** (j - 1), d, batch, segments),
        )
        acc = scaled[j]
        for i in range(1, j):
            summed = chain[i]
            emit(np.add, blocks[i][:, :, 0], acc, out=summed)
            acc = chain[i + 1]
            emit(
                np.multiply,
                scaled[j - i][:, None],
                summed[None],
                out=acc.reshape(d, d**i, batch, segments),
            )
        suffix = blocks[j][:, :, 0]
        emit(np.add.accumulate, acc, axis=-1, out=suffix)
        emit(np.subtract, suffix[..., -1:], suffix, out=suffix)  # exclusive: after n
        for b in range(1, j):
            emit(
                np.multiply,
                blocks[b][:, None, :, b],
                blocks[j - b][None, :, :, 0],
                out=blocks[j][:, :, b].reshape(d**b, d ** (j - b), batch, segments),
            )
    # One matrix product per path; BLAS reads the transposed views as strided matrices.
    contracted = array(batch, d**split, rows)
    emit(
        np.matmul,
        left.reshape(d**split, batch, -1).transpose(1, 0, 2),
        right.reshape(rows, batch, -1).transpose(1, 2, 0),
        out=contracted,
    )
    for j in range(1, right_top + 1):
        level = out[:, offsets[split + j - 1] : offsets[split + j]]
        emit(
            np.copyto,
            level.reshape(batch, d**split, d**j),
            contracted[:, :, offsets[j - 1] : offsets[j]],
        )
    return sum(a.size for a in arrays), points, out, program
