"""Tests of attnsig.signature: hand-known cases, an independent oracle, then
properties."""

from __future__ import annotations

import builtins
import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attnsig import _signature_numpy
from attnsig import signature as sigmod
from attnsig.signature import (
    chen,
    levels,
    levy_area,
    levy_area_matrix,
    signature,
    signature_dim,
    time_augment,
    word_index,
    words,
)


def signature_reference(path, depth):
    """The readable algorithm, chosen by the public keyword."""
    return signature(path, depth, method="reference")


@pytest.fixture(params=["numba", "numpy"])
def backend(request, monkeypatch):
    """Run a test on each backend of ``signature``: the compiled kernels and the NumPy
    fallback.

    The NumPy fallback is forced by the documented switch ``ATTNSIG_DISABLE_NUMBA=1``;
    the compiled backend is skipped where numba is not installed.
    """
    if request.param == "numpy":
        monkeypatch.setenv("ATTNSIG_DISABLE_NUMBA", "1")
    else:
        monkeypatch.delenv("ATTNSIG_DISABLE_NUMBA", raising=False)
        if sigmod._compiled_kernels() is None:
            pytest.skip("numba is not installed: the compiled backend is unavailable")
    return request.param


UNIT_SQUARE_CCW = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]])


def _random_path(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Random walk with increments of size ~ 1/sqrt(L), so every signature level is of
    order one."""
    length = shape[-2]
    steps = rng.standard_normal(shape) / math.sqrt(max(length - 1, 1))
    return np.cumsum(steps, axis=-2)


# --------------------------------------------------------------------------------------
# Indexing
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "depth", "expected"),
    [(1, 4, 4), (2, 3, 14), (3, 4, 120), (2, 6, 126), (5, 1, 5)],
)
def test_signature_dim_by_hand(d, depth, expected):
    assert signature_dim(d, depth) == expected
    assert len(words(d, depth)) == expected


def test_words_order_by_hand():
    assert words(2, 2) == [(0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1)]
    assert word_index((0,), 2) == 0
    assert word_index((1, 0), 2) == 4
    assert word_index((0, 0, 0), 2) == 6
    assert word_index((2, 1), 3) == 3 + 2 * 3 + 1


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_word_index_round_trips(d, depth):
    all_words = words(d, depth)
    assert [word_index(w, d) for w in all_words] == list(range(signature_dim(d, depth)))
    for w in all_words:
        assert all_words[word_index(w, d)] == w
        assert word_index(list(w), d) == word_index(np.array(w), d)


def test_levels_shapes_and_entries(backend):
    rng = np.random.default_rng(0)
    path = _random_path(rng, (4, 6, 3))
    sig = signature(path, 3)
    parts = levels(sig, 3, 3)
    assert [p.shape for p in parts] == [(4, 3), (4, 3, 3), (4, 3, 3, 3)]
    for w in words(3, 3):
        np.testing.assert_array_equal(
            parts[len(w) - 1][(slice(None),) + w], sig[:, word_index(w, 3)]
        )


# --------------------------------------------------------------------------------------
# Hand-known signatures
# --------------------------------------------------------------------------------------


def test_one_dimensional_path_levels_are_powers(backend):
    path = np.array([[0.5], [2.0], [-1.0], [1.5]])  # total increment 1.0, not monotone
    depth = 6
    delta = path[-1, 0] - path[0, 0]
    expected = [delta**k / math.factorial(k) for k in range(1, depth + 1)]
    np.testing.assert_allclose(signature(path, depth), expected, rtol=1e-14, atol=1e-14)


def test_straight_segment_levels_are_tensor_powers(backend):
    rng = np.random.default_rng(1)
    start, delta = rng.standard_normal(3), rng.standard_normal(3)
    fractions = np.array(
        [0.0, 0.1, 0.35, 0.35, 0.8, 1.0]
    )  # collinear points, one repeated
    path = start + fractions[:, None] * delta
    depth = 4
    parts = levels(signature(path, depth), 3, depth)
    power = np.ones(())
    for k in range(1, depth + 1):
        power = np.multiply.outer(power, delta)  # (3,) * k
        np.testing.assert_allclose(
            parts[k - 1], power / math.factorial(k), rtol=1e-13, atol=1e-14
        )


def test_two_segments_by_hand(backend):
    # Right then up: S^{01} = int x dy = 1, S^{10} = int y dx = 0, S^{ii} = 1/2.
    path = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    second = levels(signature(path, 2), 2, 2)[1]
    np.testing.assert_allclose(second, [[0.5, 1.0], [0.0, 0.5]], atol=1e-15)


def test_unit_square_levy_area(backend):
    assert levy_area(UNIT_SQUARE_CCW) == pytest.approx(1.0, abs=1e-15)
    assert levy_area(UNIT_SQUARE_CCW[::-1]) == pytest.approx(-1.0, abs=1e-15)
    # Scaled by 3 and shifted: area 9, whatever the start point.
    assert levy_area(
        3 * np.roll(UNIT_SQUARE_CCW[:-1], 1, axis=0)[[0, 1, 2, 3, 0]] + 5
    ) == pytest.approx(9.0)
    np.testing.assert_allclose(signature(UNIT_SQUARE_CCW, 1), [0.0, 0.0], atol=1e-15)


def test_levy_area_matches_shoelace_formula(backend):
    rng = np.random.default_rng(2)
    paths = rng.standard_normal((5, 9, 2))
    relative = paths - paths[:, :1]  # the chord closes the polygon at the start point
    x, y = relative[..., 0], relative[..., 1]
    shoelace = 0.5 * np.sum(x[:, :-1] * y[:, 1:] - x[:, 1:] * y[:, :-1], axis=-1)
    np.testing.assert_allclose(levy_area(paths), shoelace, rtol=1e-12, atol=1e-12)


def test_levy_area_matrix_is_antisymmetric_projection(backend):
    rng = np.random.default_rng(3)
    path = rng.standard_normal((7, 4))
    area = levy_area_matrix(path)
    assert area.shape == (4, 4)
    np.testing.assert_allclose(area, -area.T, atol=0)
    np.testing.assert_allclose(area[1, 3], levy_area(path[:, [1, 3]]), rtol=1e-12)


def test_constant_path_has_zero_signature(backend):
    assert np.array_equal(signature(np.array([[1.0, 2.0]]), 3), np.zeros(14))
    assert np.array_equal(signature(np.full((4, 5, 2), 7.0), 3), np.zeros((4, 14)))
    assert np.array_equal(signature(np.zeros((0, 3, 2)), 2), np.zeros((0, 6)))


def test_integer_and_list_input_and_dtype(backend):
    sig = signature([[0, 0], [1, 0], [1, 1]], 2)
    assert sig.dtype == np.float64
    np.testing.assert_allclose(sig, [1, 1, 0.5, 1, 0, 0.5])


def test_time_augment(backend):
    path = np.arange(12.0).reshape(2, 3, 2)
    augmented = time_augment(path)
    assert augmented.shape == (2, 3, 3)
    np.testing.assert_array_equal(
        augmented[..., 0], np.broadcast_to([0.0, 0.5, 1.0], (2, 3))
    )
    np.testing.assert_array_equal(augmented[..., 1:], path)
    custom = time_augment(path[0], times=[0.0, 2.0, 5.0])
    np.testing.assert_array_equal(custom[:, 0], [0.0, 2.0, 5.0])
    # The time channel's level-1 entry is the elapsed time.
    assert signature(custom, 1)[0] == pytest.approx(5.0)
    assert time_augment(np.array([[3.0]])).tolist() == [[0.0, 3.0]]


# --------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "depth", "error", "words_in_message"),
    [
        (np.zeros(3), 2, ValueError, ["path", "(3,)"]),
        (np.zeros((0, 2)), 2, ValueError, ["path", "L >= 1"]),
        (np.zeros((3, 0)), 2, ValueError, ["path", "d >= 1"]),
        (np.array([[0.0, np.nan], [1.0, 1.0]]), 2, ValueError, ["path", "NaN"]),
        (np.array([[0.0, np.inf], [1.0, 1.0]]), 2, ValueError, ["path", "infinite"]),
        (np.array([["a", "b"]]), 2, TypeError, ["path", "dtype"]),
        (np.zeros((3, 2), dtype=complex), 2, TypeError, ["path", "complex"]),
        (np.zeros((3, 2)), 0, ValueError, ["depth", "0"]),
        (np.zeros((3, 2)), -1, ValueError, ["depth", "-1"]),
        (np.zeros((3, 2)), True, TypeError, ["depth", "True", "bool"]),
        (np.zeros((3, 2)), 2.0, TypeError, ["depth", "2.0", "float"]),
        (np.zeros((3, 2)), "2", TypeError, ["depth", "'2'"]),
    ],
)
@pytest.mark.parametrize("function", [signature, signature_reference])
def test_bad_input_raises_naming_argument(
    backend, function, path, depth, error, words_in_message
):
    with pytest.raises(error) as info:
        function(path, depth)
    for word in words_in_message:
        assert word in str(info.value)


def test_numpy_integer_depth_is_accepted(backend):
    assert signature(np.zeros((2, 2)), np.int64(2)).shape == (6,)


def test_bad_input_to_helpers():
    with pytest.raises(ValueError, match="sig_b.*14.*shape \\(6,\\)"):
        chen(np.zeros(14), np.zeros(6), 2, 3)
    with pytest.raises(ValueError, match="batch axes"):
        chen(np.zeros((2, 6)), np.zeros((3, 6)), 2, 2)
    with pytest.raises(ValueError, match="sig.*shape \\(5,\\)"):
        levels(np.zeros(5), 2, 2)
    with pytest.raises(ValueError, match="letters must be in 0..1.*2"):
        word_index((0, 2), 2)
    with pytest.raises(ValueError, match="empty word"):
        word_index((), 2)
    with pytest.raises(TypeError, match="word"):
        word_index("01", 2)
    with pytest.raises(TypeError, match="d must be an integer"):
        signature_dim(2.5, 2)
    with pytest.raises(TypeError, match="depth"):
        words(2, False)
    with pytest.raises(ValueError, match="planar.*\\(4, 3\\)"):
        levy_area(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="times.*length L = 3"):
        time_augment(np.zeros((3, 2)), times=[0.0, 1.0])
    with pytest.raises(ValueError, match="times.*non-decreasing"):
        time_augment(np.zeros((3, 2)), times=[0.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="times.*NaN"):
        time_augment(np.zeros((3, 2)), times=[0.0, np.nan, 1.0])


# --------------------------------------------------------------------------------------
# Fast path against the reference, and against an independent library
# --------------------------------------------------------------------------------------

SHAPES_AND_DEPTHS = [
    ((50, 6, 2), 4),
    ((33, 3, 3), 3),
    ((2, 1), 3),
    ((2, 3), 1),
    ((5, 3), 4),
    ((3, 7, 2), 5),
    ((2, 3, 6, 3), 3),
    ((40, 4), 4),
    ((1, 12, 1), 6),
    ((9, 2, 5), 3),
]


@pytest.mark.parametrize(("shape", "depth"), SHAPES_AND_DEPTHS)
def test_fast_equals_reference(backend, shape, depth):
    rng = np.random.default_rng(sum(shape) + depth)
    path = _random_path(rng, shape)
    np.testing.assert_allclose(
        signature(path, depth), signature_reference(path, depth), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("method", ["auto", "compiled", "horner", "meet-in-the-middle"])
def test_every_method_equals_reference(method):
    if method == "compiled" and sigmod._compiled_kernels(forced=True) is None:
        pytest.skip("numba is not installed: method='compiled' is unavailable")
    rng = np.random.default_rng(4)
    for shape, depth in SHAPES_AND_DEPTHS:
        path = _random_path(rng, shape)
        np.testing.assert_allclose(
            signature(path, depth, method=method),
            signature_reference(path, depth),
            rtol=1e-12,
            atol=1e-12,
            err_msg=f"{method}: {shape}, depth {depth}",
        )


@pytest.mark.parametrize("method", ["horner", "meet-in-the-middle"])
@pytest.mark.parametrize("chunk", [1, 1 << 17])
def test_chunking_equals_reference(monkeypatch, method, chunk):
    # The chunk size only trades memory for speed: no size may change a number.
    monkeypatch.setattr(_signature_numpy, "CHUNK_ENTRIES", chunk)
    rng = np.random.default_rng(4)
    for shape, depth in SHAPES_AND_DEPTHS:
        path = _random_path(rng, shape)
        np.testing.assert_allclose(
            signature(path, depth, method=method),
            signature_reference(path, depth),
            rtol=1e-12,
            atol=1e-12,
        )


@pytest.mark.parametrize(
    ("shape", "cap", "expected"),
    [
        ((3, 50, 2), None, "signature_meet_in_middle"),  # few long paths
        ((60, 50, 2), None, "signature_horner"),  # more paths than segments
        ((3, 50, 2), 1, "signature_horner"),  # too long for meet-in-the-middle
    ],
)
def test_numpy_route_picks_the_method_by_shape(monkeypatch, shape, cap, expected):
    used = []
    for name in ("signature_horner", "signature_meet_in_middle"):
        original = getattr(_signature_numpy, name)
        monkeypatch.setattr(
            _signature_numpy,
            name,
            lambda *args, name=name, original=original: (
                used.append(name) or original(*args)
            ),
        )
    if cap is not None:
        monkeypatch.setattr(_signature_numpy, "MAX_PATH_ENTRIES", cap)
    monkeypatch.setenv("ATTNSIG_DISABLE_NUMBA", "1")
    path = _random_path(np.random.default_rng(9), shape)
    np.testing.assert_allclose(
        signature(path, 4), signature_reference(path, 4), rtol=1e-12, atol=1e-12
    )
    assert used == [expected]


@pytest.mark.parametrize(
    ("method", "kernel", "shape", "fitted"),
    [
        ("horner", "_horner", (200, 10, 2), 192),  # rows of the 200 paths of the batch
        ("meet-in-the-middle", "_meet_in_middle", (2, 200, 2), 192),  # 199 segments
        ("meet-in-the-middle", "_meet_in_middle", (2, 50, 2), 4096),  # short: unchanged
    ],
)
def test_numpy_methods_fit_the_ufunc_buffer_then_restore_it(
    monkeypatch, method, kernel, shape, fitted
):
    # NumPy's ufunc buffer is fitted to the kernels' rows while they run (a longer
    # buffer copies broadcast operands through it), unless they are short, and given
    # back unchanged after.
    seen = []
    original = getattr(_signature_numpy, kernel)

    def spy(*args):
        seen.append(np.getbufsize())
        return original(*args)

    monkeypatch.setattr(_signature_numpy, kernel, spy)
    path = _random_path(np.random.default_rng(12), shape)
    with np.errstate():
        np.setbufsize(4096)
        result = signature(path, 3, method=method)
        assert np.getbufsize() == 4096
    assert seen and set(seen) == {fitted}
    np.testing.assert_allclose(
        result, signature_reference(path, 3), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize(
    ("method", "batch"), [("meet-in-the-middle", 2), ("horner", 200)]
)
def test_numpy_scratch_reuse_keeps_every_result(method, batch):
    # Their arrays (meet-in-the-middle's plans, the Horner update's state) are reused
    # from call to call: a later call, of the same shape or another, must not change
    # an earlier result, nor be changed by stale entries.
    rng = np.random.default_rng(13)
    paths = [_random_path(rng, (batch, length, 2)) for length in (60, 20, 90, 20)]
    results = [signature(p, 5, method=method) for p in paths]
    kept = [r.copy() for r in results]
    for path, result, copy in zip(paths, results, kept, strict=True):
        np.testing.assert_array_equal(result, copy)
        np.testing.assert_allclose(
            result, signature_reference(path, 5), rtol=1e-12, atol=1e-12
        )
        np.testing.assert_array_equal(signature(path, 5, method=method), result)


def test_meet_in_middle_keeps_plans_within_their_memory(monkeypatch):
    # Plans are kept, most recent first, only while their arrays fit the cap; a plan
    # too large for it is used once and dropped.
    monkeypatch.setattr(_signature_numpy, "SCRATCH_ENTRIES", 5000)
    rng = np.random.default_rng(14)
    for length in (20, 30, 20, 400):
        path = _random_path(rng, (2, length, 2))
        np.testing.assert_allclose(
            signature(path, 4, method="meet-in-the-middle"),
            signature_reference(path, 4),
            rtol=1e-12,
            atol=1e-12,
        )
        plans = _signature_numpy._SCRATCH.plans
        assert sum(plan[0] for plan in plans.values()) <= 5000
        if length < 400:
            assert list(plans)[-1][2] == length  # key (d, B, L, depth, split)
    assert all(key[2] != 400 for key in plans)


def test_method_is_checked():
    with pytest.raises(ValueError, match="method must be one of 'auto'.*got 'fast'"):
        signature(np.zeros((3, 2)), 2, method="fast")
    with pytest.raises(TypeError, match="method"):
        signature(np.zeros((3, 2)), 2, method=None)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_meet_in_middle_every_split_equals_reference(d, depth):
    rng = np.random.default_rng(10 * d + depth)
    for length in (2, 3, 8):
        path = _random_path(rng, (2, length, d))
        expected = signature_reference(path, depth)
        for split in range(1, depth + 1):
            np.testing.assert_allclose(
                _signature_numpy.signature_meet_in_middle(path, depth, split),
                expected,
                rtol=1e-12,
                atol=1e-12,
                err_msg=f"split {split}",
            )


def test_long_path_equals_reference(backend):
    rng = np.random.default_rng(5)
    path = _random_path(rng, (300, 2))
    np.testing.assert_allclose(
        signature(path, 6), signature_reference(path, 6), rtol=1e-12, atol=1e-12
    )


# --------------------------------------------------------------------------------------
# Backend choice and the compiled kernels
# --------------------------------------------------------------------------------------


def _kernels_or_skip():
    kernels = sigmod._compiled_kernels()
    if kernels is None:
        pytest.skip("numba is not installed (or ATTNSIG_DISABLE_NUMBA is set)")
    return kernels


@pytest.mark.parametrize("kernel", ["signature_per_path", "signature_lanes"])
def test_each_compiled_kernel_equals_reference(monkeypatch, kernel):
    monkeypatch.delenv("ATTNSIG_DISABLE_NUMBA", raising=False)
    function = getattr(_kernels_or_skip(), kernel)
    rng = np.random.default_rng(6)
    for shape, depth in SHAPES_AND_DEPTHS + [
        ((3, 1, 2), 3)
    ]:  # L = 1 too: zero signature
        path = _random_path(rng, shape)
        flat = np.ascontiguousarray(path.reshape((-1,) + path.shape[-2:]))  # (B, L, d)
        np.testing.assert_allclose(
            function(flat, depth),
            signature_reference(flat, depth),
            rtol=1e-12,
            atol=1e-12,
            err_msg=f"{shape}, depth {depth}",
        )


@pytest.mark.parametrize(("batch", "depth"), [(1, 1), (1, 4), (3, 3), (5, 2), (31, 3)])
@pytest.mark.parametrize("pieces", [2, 4, 8])
def test_compiled_pieces_equal_reference(monkeypatch, batch, depth, pieces):
    # A few long paths cut along time, the pieces run in lanes and joined by Chen; the
    # length leaves the last piece short (padded with zero increments).
    monkeypatch.delenv("ATTNSIG_DISABLE_NUMBA", raising=False)
    kernels = _kernels_or_skip()
    if batch * pieces > kernels.LANES:
        pytest.skip("more pieces than lanes")
    path = _random_path(np.random.default_rng(batch + pieces), (batch, 45, 2))
    np.testing.assert_allclose(
        kernels.signature_pieces(path, depth, pieces),
        signature_reference(path, depth),
        rtol=1e-12,
        atol=1e-12,
    )


@pytest.mark.parametrize("length", [4, 300])
@pytest.mark.parametrize("batch", [1, 31, 32, 63, 64, 65, 95, 96, 130])
def test_compiled_batch_split_equals_reference(monkeypatch, batch, length):
    # Whole lane groups, a padded last group, a small tail handed to the per-path
    # kernel, and a few long paths cut into pieces.
    monkeypatch.delenv("ATTNSIG_DISABLE_NUMBA", raising=False)
    _kernels_or_skip()
    rng = np.random.default_rng(batch)
    path = _random_path(rng, (batch, length, 2))
    np.testing.assert_allclose(
        signature(path, 3), signature_reference(path, 3), rtol=1e-12, atol=1e-12
    )


def test_compiled_backend_is_used_unless_disabled(monkeypatch):
    monkeypatch.delenv("ATTNSIG_DISABLE_NUMBA", raising=False)
    kernels = _kernels_or_skip()
    calls = []
    original = kernels.signature_per_path
    monkeypatch.setattr(
        kernels, "signature_per_path", lambda *args: calls.append(1) or original(*args)
    )
    path = _random_path(np.random.default_rng(7), (6, 2))
    compiled = signature(path, 3)
    assert len(calls) == 1
    monkeypatch.setenv("ATTNSIG_DISABLE_NUMBA", "1")
    assert sigmod._compiled_kernels() is None
    np.testing.assert_allclose(signature(path, 3), compiled, rtol=1e-12, atol=1e-12)
    assert len(calls) == 1  # the NumPy fallback did the second call


@pytest.mark.parametrize(
    "error",
    [ImportError("No module named 'numba'"), RuntimeError("no locator available")],
)
def test_unavailable_numba_falls_back_to_numpy(monkeypatch, error):
    # numba missing (ImportError) or unable to cache in a read-only install
    # (RuntimeError, warned).
    real_import = builtins.__import__

    def failing_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "attnsig" and fromlist and "_signature_numba" in fromlist:
            raise error
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.delenv("ATTNSIG_DISABLE_NUMBA", raising=False)
    monkeypatch.setattr(sigmod, "_COMPILED", None)  # not yet imported
    monkeypatch.setattr(builtins, "__import__", failing_import)
    path = _random_path(np.random.default_rng(8), (3, 5, 2))
    if isinstance(error, RuntimeError):
        with pytest.warns(UserWarning, match="falls back to NumPy.*NUMBA_CACHE_DIR"):
            sig = signature(path, 3)
    else:
        sig = signature(path, 3)
    assert sigmod._COMPILED is False
    assert sigmod._compiled_kernels() is None
    np.testing.assert_allclose(
        sig, signature_reference(path, 3), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize(
    ("value", "disabled"), [("1", True), ("yes", True), ("0", False), ("", False)]
)
def test_disable_variable(monkeypatch, value, disabled):
    monkeypatch.setenv("ATTNSIG_DISABLE_NUMBA", value)
    assert sigmod._numba_disabled() is disabled


def _roughpy_signature(roughpy, path: np.ndarray, depth: int) -> np.ndarray:
    """Signature by RoughPy (a compiled library with its own algebra), level 0
    dropped."""
    increments = np.diff(path, axis=0)
    context = roughpy.get_context(
        width=path.shape[1], depth=depth, coeffs=roughpy.DPReal
    )
    stream = roughpy.LieIncrementStream.from_increments(increments, ctx=context)
    full = np.array(stream.signature(roughpy.RealInterval(0, len(increments))))
    assert full[0] == 1.0
    return full[1:]


@pytest.mark.parametrize(
    ("length", "d", "depth"), [(2, 2, 4), (6, 3, 4), (20, 2, 6), (11, 4, 3), (9, 1, 5)]
)
def test_against_roughpy(backend, length, d, depth):
    roughpy = pytest.importorskip(
        "roughpy", reason="roughpy is the independent oracle (requirements-test.txt)"
    )
    rng = np.random.default_rng(100 * length + 10 * d + depth)
    for _ in range(3):
        path = _random_path(rng, (length, d))
        np.testing.assert_allclose(
            signature(path, depth),
            _roughpy_signature(roughpy, path, depth),
            rtol=1e-12,
            atol=1e-12,
        )


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------

# The backend fixture is function-scoped but only sets an environment variable that
# every example
# shares, so hypothesis's warning about function-scoped fixtures does not apply.
PROPERTY_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
TOL = {"rtol": 1e-9, "atol": 1e-9}


def path_arrays(min_length: int = 1, max_length: int = 6, max_dim: int = 3):
    """Hypothesis strategy: paths (L, d) with entries in [-2, 2]."""
    shapes = st.tuples(st.integers(min_length, max_length), st.integers(1, max_dim))
    return shapes.flatmap(
        lambda shape: arrays(np.float64, shape, elements=st.floats(-2, 2, width=64))
    )


@PROPERTY_SETTINGS
@given(data=st.data(), depth=st.integers(1, 4))
def test_chen_identity(backend, data, depth):
    first = data.draw(path_arrays())
    d = first.shape[1]
    second = data.draw(
        arrays(np.float64, (data.draw(st.integers(1, 6)), d), elements=st.floats(-2, 2))
    )
    second = (
        second - second[0] + first[-1]
    )  # the second piece starts where the first ends
    joined = np.concatenate([first, second[1:]], axis=0)
    np.testing.assert_allclose(
        chen(signature(first, depth), signature(second, depth), d, depth),
        signature(joined, depth),
        **TOL,
    )


def _shuffles(u: tuple[int, ...], v: tuple[int, ...]) -> list[tuple[int, ...]]:
    """All interleavings of u and v (with multiplicity)."""
    if not u:
        return [v]
    if not v:
        return [u]
    return [(u[0],) + w for w in _shuffles(u[1:], v)] + [
        (v[0],) + w for w in _shuffles(u, v[1:])
    ]


@PROPERTY_SETTINGS
@given(path=path_arrays(min_length=2, max_dim=2), data=st.data())
def test_shuffle_identity(backend, path, data):
    d = path.shape[1]
    word_strategy = st.lists(st.integers(0, d - 1), min_size=1, max_size=2).map(tuple)
    u, v = data.draw(word_strategy), data.draw(word_strategy)
    depth = len(u) + len(v)
    sig = signature(path, depth)
    product = sig[word_index(u, d)] * sig[word_index(v, d)]
    total = sum(sig[word_index(w, d)] for w in _shuffles(u, v))
    assert len(_shuffles(u, v)) == math.comb(depth, len(u))
    np.testing.assert_allclose(product, total, **TOL)


@PROPERTY_SETTINGS
@given(path=path_arrays(min_length=2), data=st.data(), depth=st.integers(1, 4))
def test_invariant_under_inserting_collinear_points(backend, path, data, depth):
    segment = data.draw(st.integers(0, path.shape[0] - 2))
    fractions = np.sort(
        data.draw(
            arrays(np.float64, data.draw(st.integers(1, 3)), elements=st.floats(0, 1))
        )
    )
    inserted = path[segment] + fractions[:, None] * (path[segment + 1] - path[segment])
    refined = np.concatenate(
        [path[: segment + 1], inserted, path[segment + 1 :]], axis=0
    )
    np.testing.assert_allclose(signature(refined, depth), signature(path, depth), **TOL)


@PROPERTY_SETTINGS
@given(path=path_arrays(), data=st.data(), depth=st.integers(1, 4))
def test_translation_invariance(backend, path, data, depth):
    shift = data.draw(arrays(np.float64, path.shape[1], elements=st.floats(-5, 5)))
    np.testing.assert_allclose(
        signature(path + shift, depth), signature(path, depth), **TOL
    )


@PROPERTY_SETTINGS
@given(path=path_arrays(), depth=st.integers(1, 4))
def test_reversal_gives_inverse(backend, path, depth):
    d = path.shape[1]
    there_and_back = chen(
        signature(path, depth), signature(path[::-1], depth), d, depth
    )
    np.testing.assert_allclose(there_and_back, np.zeros(signature_dim(d, depth)), **TOL)


@PROPERTY_SETTINGS
@given(data=st.data(), depth=st.integers(1, 3))
def test_batch_axes_are_independent(backend, data, depth):
    batch = data.draw(st.tuples(st.integers(1, 3), st.integers(1, 2)))
    length, d = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 3))
    paths = data.draw(
        arrays(np.float64, batch + (length, d), elements=st.floats(-2, 2))
    )
    sig = signature(paths, depth)
    assert sig.shape == batch + (signature_dim(d, depth),)
    for index in itertools.product(*map(range, batch)):
        np.testing.assert_allclose(
            sig[index], signature_reference(paths[index], depth), rtol=1e-12, atol=1e-12
        )
