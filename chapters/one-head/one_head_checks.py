"""The questions of one-head.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}
VARIANTS: dict[str, dict] = {}


# Every public function of attnsig.bounds and attnsig.constructions. Each answers the
# copy and average questions in a call or two (a construction's norm is the gap, a
# worst-case length with eps / (1 - eps) is twice it, an outside weight inverted by a
# root finder), and the book's solutions use none of them: all are blocked there.
BOUNDS_AND_CONSTRUCTIONS = ["attnsig.bounds.*", "attnsig.constructions.*"]


# --- ex-onehead-copy


def onehead_copy_callable(smallest_gap):
    import math

    assert callable(smallest_gap), "define smallest_gap as a function of (n_keys, eps)"
    value = float(smallest_gap(6, 1e-3))
    assert math.isfinite(value), "smallest_gap(6, 1e-3) should be a finite number"


def onehead_copy_formula(smallest_gap):
    """smallest_gap is not the right function of its arguments: redo the margin of
    the copied key.
    """

    import math

    import numpy as np

    rng = np.random.default_rng(5)
    cases = [(2, 0.1), (3, 0.5), (6, 1e-3), (100, 1e-6), (1000, 0.25)]
    ks, es = rng.integers(2, 500, 20), 10 ** rng.uniform(-8, -0.1, 20)
    cases += [(int(k), float(e)) for k, e in zip(ks, es, strict=True)]
    for k, e in cases:
        # The tight gap: all other scores exactly Delta below give alpha_j = 1 - eps.
        expected = math.log((k - 1) * (1 - e) / e)
        got = float(smallest_gap(k, e))
        assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12), (
            f"n_keys = {k}, eps = {e:.3g}"
        )


def onehead_copy_wrong_n_instead():
    import math

    def smallest_gap(n_keys, eps):
        return math.log(n_keys * (1 - eps) / eps)

    return {"smallest_gap": smallest_gap}


def onehead_copy_wrong_the_factor():
    import math

    def smallest_gap(n_keys, eps):
        return math.log((n_keys - 1) / eps)

    return {"smallest_gap": smallest_gap}


def onehead_copy_wrong_the_number():
    import math

    def smallest_gap(n_keys, eps):
        return math.log((1 - eps) / eps)

    return {"smallest_gap": smallest_gap}


QUESTIONS["ex-onehead-copy"] = {
    "points": 3,
    "answer": ["smallest_gap"],
    "fixed": (
        "the answer is a function of any n_keys and eps; the statement gives no numbers"
    ),
    "builds": BOUNDS_AND_CONSTRUCTIONS,
    "describe": (
        "smallest_gap(n_keys, eps): the smallest gap Delta (part 2) for n_keys "
        "keys and\n"
        "tolerance eps, 0 < eps < 1 (a function returning a float)"
    ),
    "public": [onehead_copy_callable],
    "hidden": [onehead_copy_formula],
    "wrong": {
        "n instead of n - 1 competitors": onehead_copy_wrong_n_instead,
        "the factor 1 - eps dropped": onehead_copy_wrong_the_factor,
        "the number of keys ignored": onehead_copy_wrong_the_number,
    },
    "rubric": [
        (
            "Written part 1: the weights are positive and sum to one (strictly "
            "inside (0, 1) for finite scores and n >= 2), so they are a categorical "
            "distribution (1)"
        ),
        (
            "Written part 2: the gap is tight: with every other score exactly "
            "Delta_n(eps) below s_j, alpha_j = 1 - eps (0.5)"
        ),
        (
            "Written part 3: |c - v_j| <= (1 - alpha_j) max_i |v_i - v_j| <= eps "
            "max_i |v_i - v_j| (1)"
        ),
        (
            "Written part 4: the output is one value, chosen by the query and moved "
            "unchanged to the query's position: a copy (0.5)"
        ),
    ],
}


# --- ex-onehead-projection


def onehead_projection_form(keep_a, is_unique):
    import numpy as np

    assert callable(keep_a) and callable(is_unique), (
        "keep_a and is_unique are functions"
    )
    A, B = np.eye(4)[:, :1], np.eye(4)[:, 1:3]
    assert np.shape(np.asarray(keep_a(A, B), dtype=float)) == (4, 4), "M acts on R^d"
    assert is_unique(4, 1, 2) in (True, False), "is_unique answers True or False"


def onehead_projection_keeps_v_a(keep_a, is_unique):
    """The projection does not keep v_a for some d, m, p, or is_unique says the
    wrong thing.
    """

    import numpy as np

    rng = np.random.default_rng(7)
    for d, m, p in ((3, 1, 2), (10, 3, 4), (5, 2, 2), (6, 1, 1), (4, 2, 2)):
        basis = np.linalg.qr(rng.normal(size=(d, m + p)))[0]
        A, B = basis[:, :m], basis[:, m:]
        M = np.asarray(keep_a(A, B), dtype=float)
        assert M.shape == (d, d), f"d, m, p = {d, m, p}: M should be (d, d)"
        x, y = rng.normal(size=(m, 20)), rng.normal(size=(p, 20))
        np.testing.assert_allclose(
            M @ (A @ x + B @ y), A @ x, atol=1e-9, err_msg=f"d, m, p = {d, m, p}"
        )
    for d, m, p in ((3, 1, 2), (4, 2, 2), (2, 1, 1), (10, 3, 4), (7, 1, 1), (5, 2, 2)):
        assert bool(is_unique(d, m, p)) == (m + p == d), f"d, m, p = {d, m, p}"


def onehead_projection_wrong_always_unique():
    def is_unique(d, m, p):
        return True

    return {"is_unique": is_unique}


def onehead_projection_wrong_projection_onto():
    def keep_a(A, B):
        return B @ B.T

    return {"keep_a": keep_a}


def onehead_projection_wrong_the_sheet():
    def keep_a(A, B):
        return A.T @ A

    return {"keep_a": keep_a}


QUESTIONS["ex-onehead-projection"] = {
    "points": 3,
    "answer": ["keep_a", "is_unique"],
    "fixed": (
        "the answers are functions of any A, B and sizes d, m, p; the statement gives "
        "no numbers"
    ),
    "describe": (
        "keep_a(A, B): your matrix M (shape (d, d)), given A (d, m) and B (d, p) "
        "whose\n"
        "columns are the a's and the b's (numpy arrays);\n"
        "is_unique(d, m, p): True if M is the only matrix that works for these "
        "sizes, else\n"
        "False"
    ),
    "public": [onehead_projection_form],
    "hidden": [onehead_projection_keeps_v_a],
    "wrong": {
        "always unique": onehead_projection_wrong_always_unique,
        "projection onto the b's": onehead_projection_wrong_projection_onto,
        "the sheet's A^T A": onehead_projection_wrong_the_sheet,
    },
    "rubric": [
        (
            "Written part: the proof that A A^T (Ax + By) = Ax, from A^T A = I_m and "
            "A^T B = 0 (1)"
        ),
        (
            "Written part: M' works for every pair iff M'A = A and M'B = 0; the "
            "family A A^T + N(I - A A^T - B B^T), so M is unique exactly when m + p "
            "= d (1)"
        ),
    ],
}


# --- The test bed of the averaging questions


def onehead_bed_draw(seed):
    """The test bed and the tolerance eps of the averaging questions for one student.
    Seed 0 gives the book's: the bed of the set-up cell and eps = 1e-3.

    Other seeds draw another seed of the same construction (orthonormal means in
    R^8 and orthonormal values by QR of normal matrices, so that every theorem the
    questions cite holds as in the book) and another tolerance; n = 6, d = 8 and
    a, b = 0, 1 stay the book's. A bed on which the book's means still single out keys
    a and b is drawn again, so that the book's queries do not average on it.
    """
    import numpy as np

    common = {"n": 6, "d": 8, "a": 0, "b": 1, "nu_small": 1e-6}
    if seed == 0:
        return {"bed_seed": 20240501, "eps": 0.001, **common}
    rng = np.random.default_rng(seed)

    def frame(bed_seed):  # the means of the data cell
        return np.linalg.qr(np.random.default_rng(bed_seed).normal(size=(8, 6)))[0].T

    book = frame(20240501)
    while True:
        # A bed on which the book's means still pick keys a and b (the book's q_heads
        # or q_win would average there, at any scale) is drawn again: about 1 in 10.
        bed_seed = int(rng.integers(1, 2**31 - 1))
        means = frame(bed_seed)
        heads = {int(np.argmax(means @ book[0])), int(np.argmax(means @ book[1]))}
        pair = {int(i) for i in np.argsort(means @ (book[0] + book[1]))[-2:]}
        if heads != {0, 1} and pair != {0, 1}:
            break
    eps = [0.01, 0.005, 0.002, 0.0005][int(rng.integers(4))]
    return {"bed_seed": bed_seed, "eps": eps, **common}


def onehead_bed_cell(variant):
    """Python source of the data cell of the averaging questions: the set-up cell's
    test bed drawn from the student's seed, and the tolerance eps."""
    return (
        "# your test bed (replaces the set-up cell's) and your tolerance eps\n"
        f"bed_rng = np.random.default_rng({variant['bed_seed']})\n"
        f"n, d = {variant['n']}, {variant['d']}\n"
        "means = np.linalg.qr(bed_rng.normal(size=(d, n)))[0].T  # (n, d): rows mu_i\n"
        "values = np.linalg.qr(bed_rng.normal(size=(n, n)))[0]  # (n, n): rows v_i\n"
        f"a, b = {variant['a']}, {variant['b']}\n"
        "v_a, v_b = values[a], values[b]\n"
        "v_avg = (v_a + v_b) / 2\n"
        f"eps = {variant['eps']!r}\n"
    )


VARIANTS["onehead-bed"] = {
    "draw": onehead_bed_draw,
    "cell": onehead_bed_cell,
    "names": [
        "bed_rng",
        "n",
        "d",
        "means",
        "values",
        "a",
        "b",
        "v_a",
        "v_b",
        "v_avg",
        "eps",
    ],
    "after": "ex-onehead-average",
    "describe": (
        "the test bed (means mu_i and values v_i, from a seed of the set-up cell's "
        "construction) and the tolerance eps of the averaging questions"
    ),
}


# --- ex-onehead-average


def onehead_average_shape(q_eps):
    import numpy as np

    # only what the answer itself shows: a later cell may reuse the data's names
    assert q_eps is not ..., "define q_eps"
    q = np.asarray(q_eps, dtype=float)
    assert q.ndim == 1, "a query of the test bed has shape (d,)"
    assert np.all(np.isfinite(q)), "finite entries"


def onehead_average_weights(q_eps, variant):
    """The two keys do not each get (1 - eps)/2 of the weight, with eps left for the
    others (your test bed and your eps).
    """

    import numpy as np

    bed_rng = np.random.default_rng(variant["bed_seed"])
    n, d, a, b = variant["n"], variant["d"], variant["a"], variant["b"]
    means = np.linalg.qr(bed_rng.normal(size=(d, n)))[0].T
    eps = variant["eps"]
    q = np.asarray(q_eps, dtype=float)
    assert q.shape == (d,), "q_eps: shape (d,)"
    s = means @ q
    w = np.exp(s - s.max())
    w /= w.sum()
    np.testing.assert_allclose([w[a], w[b]], (1 - eps) / 2, rtol=1e-9, atol=0)
    np.testing.assert_allclose(1 - w[a] - w[b], eps, rtol=1e-6)


def onehead_average_wrong_copying_one(a, eps, means, n):
    import math

    q_eps = math.log((n - 1) * (1 - eps) / eps) * means[a]
    return {"q_eps": q_eps}


def onehead_average_wrong_factor_2(a, b, eps, means, n):
    import math

    q_eps = math.log((n - 2) * (1 - eps) / eps) * (means[a] + means[b])
    return {"q_eps": q_eps}


def onehead_average_wrong_the_copy(a, b, eps, means, n):
    import math

    q_eps = math.log((n - 1) * (1 - eps) / eps) * (means[a] + means[b])
    return {"q_eps": q_eps}


QUESTIONS["ex-onehead-average"] = {
    "points": 3,
    "answer": ["q_eps"],
    "variant": "onehead-bed",
    "builds": BOUNDS_AND_CONSTRUCTIONS,
    "builds_in_cells": True,
    "describe": (
        "q_eps: on your test bed (keys `means`, values `values`, a and b of your "
        "data cell), your\n"
        "averaging query at the scale that leaves a weight of exactly your eps "
        "outside the pair\n"
        "(shape (d,))"
    ),
    "public": [onehead_average_shape],
    "hidden": [onehead_average_weights],
    "wrong": {
        "copying one key": onehead_average_wrong_copying_one,
        "factor 2 of the pair missing": onehead_average_wrong_factor_2,
        "the copy gap (n - 1 competitors)": onehead_average_wrong_the_copy,
    },
    "rubric": [
        (
            "Written part: the exact error c - m = sum_{i != a,b} (v_i - m) / (2 "
            "e^beta + n - 2), with the derivation; it decays like e^{-beta} and "
            "never vanishes (1)"
        ),
        (
            "Written part: the scale beta >= log((n - 2)(1 - eps) / (2 eps)) for an "
            "outside weight of at most eps (0.5)"
        ),
    ],
}


# --- ex-onehead-small-noise


def onehead_small_noise_shape(q_win):
    import numpy as np

    # only what the answer itself shows: a later cell may reuse the data's names
    assert q_win is not ..., "define q_win"
    q = np.asarray(q_win, dtype=float)
    assert q.ndim == 1 and np.all(np.isfinite(q)), "shape (d,)"


def onehead_small_noise_averages(q_win, variant):
    """With small noise the output is not near the average of the two values often
    enough.
    """

    import numpy as np

    bed_rng = np.random.default_rng(variant["bed_seed"])
    n, d, a, b = variant["n"], variant["d"], variant["a"], variant["b"]
    means = np.linalg.qr(bed_rng.normal(size=(d, n)))[0].T
    values = np.linalg.qr(bed_rng.normal(size=(n, n)))[0]
    nu, num = variant["nu_small"], 2000
    assert np.shape(q_win) == (d,), "q_win: shape (d,)"

    rng = np.random.default_rng(33)
    keys = means + np.sqrt(nu) * rng.normal(size=(num, n, d))
    scores = keys @ np.asarray(q_win, dtype=float)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)

    c = w @ values
    m = (values[a] + values[b]) / 2
    near = np.mean(np.linalg.norm(c - m, axis=1) <= 0.05)
    assert near >= 0.99, "the output is not near the average often enough"


def onehead_small_noise_wrong_copying_one(a, means):
    q_win = 8.0 * means[a]
    return {"q_win": q_win}


def onehead_small_noise_wrong_scale_as(a, b, means):
    q_win = 1e4 * (means[a] + means[b])
    return {"q_win": q_win}


def onehead_small_noise_wrong_scale_too(a, b, means):
    q_win = means[a] + means[b]
    return {"q_win": q_win}


QUESTIONS["ex-onehead-small-noise"] = {
    "points": 2,
    "answer": ["q_win"],
    "variant": "onehead-bed",
    "builds": ["attnsig.constructions.*"],
    "builds_in_cells": True,
    "describe": (
        "q_win: on your test bed (a and b of your data cell), a query (shape "
        "(d,)) whose output is within\n"
        "0.05 of (v_a + v_b)/2 in at least 99 % of the key sets when every "
        "Sigma_i = 1e-6 I"
    ),
    "public": [onehead_small_noise_shape],
    "hidden": [onehead_small_noise_averages],
    "wrong": {
        "copying one key": onehead_small_noise_wrong_copying_one,
        "scale as large as possible": onehead_small_noise_wrong_scale_as,
        "scale too small for the other keys": onehead_small_noise_wrong_scale_too,
    },
    "rubric": [
        (
            "Written part: why the query works: the scores are beta + N(0, 2 nu "
            "beta^2) for keys a, b and N(0, 2 nu beta^2) for the others (0.5)"
        ),
        (
            "Written part: the window: beta large enough that (n - 2) e^{-beta} is "
            "small, and beta sqrt(nu) small (s_a - s_b ~ N(0, 4 nu beta^2)); for "
            "fixed nu > 0 and beta -> infinity the head copies v_a or v_b at random "
            "(1)"
        ),
    ],
}


# --- The noisy length of key a


def onehead_noisy_length_draw(seed):
    """The spread sigma^2 of key a's length and the scale of the single head for one
    student, with the test bed of the averaging questions (same seed, same bed).
    Seed 0 gives the book's sigma^2 = 1/2 and scores 50 for keys a and b.

    Other seeds take sigma^2 among 1/5, 2/9 and 1/4 and a scale from 12 to 15: large
    enough for the chapter's bounds at nu = 1e-4 (beta >= Delta_n(0.1/sqrt 2) + 2r
    with r = 3), small enough that the fractions of the single head move with
    sigma^2. Two typical mistakes then lose the noisy-key question on every pair
    with probability above 0.99: the statement's sigma^2 = 1/2 (the default of
    keysets.noisy_key_covariances) in place of `spread`, and sigma^2 used as the
    standard deviation; a larger spread or scale lets one of them pass. The spreads
    are large enough that p_backwards = 0, or sigma^2 used as the sd there, misses
    P(gamma < 0) >= 0.0127 by more than its tolerance, and that the robust limit
    p_one_head with sigma^2 as the sd misses by more than 0.03 (p_two_heads by 0.025
    or more). nu = 1e-4, 4000 key sets and the
    radius 0.1 stay the book's.
    """
    import numpy as np

    common = {"n": 6, "d": 8, "a": 0, "b": 1, "nu": 1e-4}
    common.update(num_sets=4000, radius=0.1)
    if seed == 0:
        return {"bed_seed": 20240501, "spread": "1/2", "beta": 50, **common}
    rng = np.random.default_rng(seed)

    def frame(bed_seed):  # as onehead_bed_draw, which this draw keeps in step with
        return np.linalg.qr(np.random.default_rng(bed_seed).normal(size=(8, 6)))[0].T

    book = frame(20240501)
    while True:
        bed_seed = int(rng.integers(1, 2**31 - 1))
        means = frame(bed_seed)
        heads = {int(np.argmax(means @ book[0])), int(np.argmax(means @ book[1]))}
        pair = {int(i) for i in np.argsort(means @ (book[0] + book[1]))[-2:]}
        if heads != {0, 1} and pair != {0, 1}:
            break
    pairs = [
        (spread, beta)
        for spread in ("1/5", "2/9", "1/4")
        for beta in (12, 13, 14, 15)
        # at 1/4 and a scale of 14 or more, 1/2 in place of spread may pass
        if spread != "1/4" or beta <= 13
    ]
    spread, beta = pairs[int(rng.integers(len(pairs)))]
    return {"bed_seed": bed_seed, "spread": spread, "beta": beta, **common}


def onehead_noisy_length_cell(variant):
    """Python source of the data cell of the noisy-length questions."""
    top, bottom = variant["spread"].split("/")
    return (
        "# your numbers for the noisy length of key a (they replace the statement's):\n"
        "# Sigma_a = nu I + spread mu_a mu_a^T, and the single head's query scaled so\n"
        "# that keys a and b score beta when the keys equal their means\n"
        f"spread = {top} / {bottom}\n"
        f"beta = {float(variant['beta'])!r}\n"
        f"nu = {variant['nu']!r}\n"
        f"num_sets, radius = {variant['num_sets']}, {variant['radius']!r}\n"
    )


VARIANTS["onehead-noisy-length"] = {
    "draw": onehead_noisy_length_draw,
    "cell": onehead_noisy_length_cell,
    "names": ["spread", "beta", "nu", "num_sets", "radius"],
    "after": "ex-onehead-noisy-key",
    "describe": (
        "the spread sigma^2 of key a's length (with the test bed of the averaging "
        "questions) and the scale of the single head"
    ),
}


# --- ex-onehead-noisy-key


def onehead_noisy_key_form(fractions_single):
    assert isinstance(fractions_single, dict), "a dict"
    assert set(fractions_single) == {"v_a", "v_b", "average"}, "keys v_a, v_b, average"
    assert all(0 <= float(v) <= 1 for v in fractions_single.values()), (
        "each fraction lies between 0 and 1 (not a percentage)"
    )


def onehead_noisy_key_fractions(fractions_single, variant):
    """The fractions of outcomes with one noisy key are off: draw more key sets
    or recheck the cases, with the spread and the scale of your data cell.
    """

    from fractions import Fraction

    import numpy as np

    bed_rng = np.random.default_rng(variant["bed_seed"])
    n, d, a, b = variant["n"], variant["d"], variant["a"], variant["b"]
    bed_rng.normal(size=(d, n))  # the means, drawn before the values
    values = np.linalg.qr(bed_rng.normal(size=(n, n)))[0]
    nu, spread = variant["nu"], float(Fraction(variant["spread"]))
    beta, radius, num = variant["beta"], variant["radius"], 400_000

    # The means are orthonormal, so q = beta (mu_a + mu_b) scores the keys beta gamma
    # (a), beta (b) and 0, with gamma ~ N(1, spread) the length of k_a along mu_a, plus
    # independent N(0, 2 nu beta^2) noise: the scores are drawn directly, 100 times
    # as many as the student's key sets, so that the reference hardly moves.
    rng = np.random.default_rng(44)
    scores = beta * np.sqrt(2 * nu) * rng.normal(size=(num, n))
    scores[:, a] += beta * (1 + np.sqrt(spread) * rng.normal(size=num))
    scores[:, b] += beta
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)

    c = w @ values
    targets = {
        "v_a": values[a],
        "v_b": values[b],
        "average": (values[a] + values[b]) / 2,
    }
    for name, target in targets.items():
        p = np.mean(np.linalg.norm(c - target, axis=1) <= radius)
        se = np.sqrt(max(p * (1 - p), 0.005) * (1 / variant["num_sets"] + 1 / num))
        # 4.5 standard errors: a simulation from num_sets key sets misses one of the
        # three with probability below 5e-5 on every draw (exact binomial tails),
        # while the spread 1/2 in place of the data cell's, or sigma^2 used as the
        # standard deviation, misses one with probability above 0.99
        assert abs(float(fractions_single[name]) - p) <= 4.5 * se, (
            f'fractions_single["{name}"] is off'
        )


def onehead_noisy_key_wrong_percentages(fractions_single):
    fractions_single = {k: 100 * v for k, v in fractions_single.items()}
    return {"fractions_single": fractions_single}


def onehead_noisy_key_wrong_the_length(
    means, nu, num_sets, q_single, radius, rng, targets, values
):
    from attnsig import heads, keysets

    keys_w = keysets.sample_keys(
        means, keysets.noisy_key_covariances(means, nu), num_sets, rng
    )
    c_w, _ = heads.single_head_output(q_single, keys_w, values)
    fractions_single = {
        k: heads.fraction_near(c_w, t, radius) for k, t in targets.items()
    }
    return {"keys_w": keys_w, "c_w": c_w, "_": _, "fractions_single": fractions_single}


def onehead_noisy_key_wrong_the_picture():
    fractions_single = {"v_a": 0.0, "v_b": 0.0, "average": 1.0}
    return {"fractions_single": fractions_single}


QUESTIONS["ex-onehead-noisy-key"] = {
    "points": 3,
    "answer": ["fractions_single"],
    "variant": "onehead-noisy-length",
    "describe": (
        'fractions_single: a dict with keys "v_a", "v_b", "average": the '
        "fractions of num_sets\n"
        "draws of the keys (Sigma_a = nu I + spread mu_a mu_a^T, Sigma_i = nu I "
        "otherwise) in which\n"
        "c is within radius of v_a, of v_b and of (v_a + v_b)/2, for your query "
        "of the previous\n"
        "exercise scaled so that keys a and b score beta when the keys equal "
        "their means (your\n"
        "test bed and the numbers of your data cell)"
    ),
    "public": [onehead_noisy_key_form],
    "hidden": [onehead_noisy_key_fractions],
    "wrong": {
        "percentages": onehead_noisy_key_wrong_percentages,
        "the length noise left out": onehead_noisy_key_wrong_the_length,
        "the picture of the mean": onehead_noisy_key_wrong_the_picture,
    },
    "rubric": [
        (
            "Written part: the distribution of c shown (a histogram or equivalent): "
            "bimodal, at v_a or at v_b in equal shares (each tending to half the "
            "draws as the scale grows), rarely near the average, although the mean "
            "of c is the average (1)"
        ),
        (
            "Written part: the explanation: the head compares k_a with k_b, and the "
            "winner is the sign of gamma - 1, a coin flip decided by the noise (1)"
        ),
    ],
}


# --- ex-onehead-two-heads


def onehead_two_heads_shape(q_heads):
    import numpy as np

    # only what the answer itself shows: a later cell may reuse the data's names
    assert q_heads is not ..., "define q_heads"
    q = np.asarray(q_heads, dtype=float)
    assert q.ndim == 2 and len(q) == 2, "two queries: shape (2, d)"
    assert np.all(np.isfinite(q)), "finite entries"


def onehead_two_heads_averages(q_heads, variant):
    """The two heads do not each copy one value (head 1 v_a, head 2 v_b, or the other
    way round), or their output is not near the average often enough.
    """

    import numpy as np

    bed_rng = np.random.default_rng(variant["bed_seed"])
    n, d, a, b = variant["n"], variant["d"], variant["a"], variant["b"]
    means = np.linalg.qr(bed_rng.normal(size=(d, n)))[0].T
    values = np.linalg.qr(bed_rng.normal(size=(n, n)))[0]
    nu, num = variant["nu_small"], 2000
    assert np.shape(q_heads) == (2, d), "q_heads: shape (2, d)"
    # With the noise-free means each head puts almost all its weight on its own key:
    # the sheet's two equal heads also average, but they are one head.
    own = []
    for q in np.asarray(q_heads, dtype=float):
        s = means @ q
        w = np.exp(s - s.max())
        own.append(w / w.sum())
    assert (own[0][a] >= 0.9 and own[1][b] >= 0.9) or (
        own[0][b] >= 0.9 and own[1][a] >= 0.9
    ), "each head should copy one value: head 1 v_a and head 2 v_b (either order)"

    rng = np.random.default_rng(55)
    keys = means + np.sqrt(nu) * rng.normal(size=(num, n, d))
    scores = keys @ np.asarray(q_heads, dtype=float).T
    w = np.exp(scores - scores.max(axis=-2, keepdims=True))
    w /= w.sum(axis=-2, keepdims=True)

    # scores: (num, n, 2), one column per head, each softmax over the n keys
    c = np.einsum("snh,ne->se", w, values) / 2
    m = (values[a] + values[b]) / 2
    near = np.mean(np.linalg.norm(c - m, axis=1) <= 0.05)
    assert near >= 0.99, "the output is not near the average often enough"


def onehead_two_heads_wrong_both_heads(a, beta, means):
    import numpy as np

    q_heads = np.stack([beta * means[a], beta * means[a]])
    return {"q_heads": q_heads}


def onehead_two_heads_wrong_scale_too(a, b, means):
    import numpy as np

    q_heads = np.stack([means[a], means[b]])
    return {"q_heads": q_heads}


def onehead_two_heads_wrong_single(a, b, means):
    import numpy as np

    q_heads = np.stack([1e4 * (means[a] + means[b])] * 2)
    return {"q_heads": q_heads}


def onehead_two_heads_wrong_the_sheet(a, b, means):
    import numpy as np

    q_heads = np.stack([20.0 * (means[a] + means[b])] * 2)
    return {"q_heads": q_heads}


QUESTIONS["ex-onehead-two-heads"] = {
    "points": 2,
    "answer": ["q_heads"],
    "variant": "onehead-bed",
    "builds": ["attnsig.constructions.two_head_queries"],
    "builds_in_cells": True,
    "describe": (
        "q_heads: the two queries as the rows of an array of shape (2, d) (your "
        "test bed, a and b\n"
        "of your data cell), whose output c = (c1 + c2)/2 is within 0.05 of "
        "(v_a + v_b)/2 in at least\n"
        "99 % of the key sets when every Sigma_i = 1e-6 I; head 1 copies v_a and "
        "head 2 copies v_b\n"
        "(either order)"
    ),
    "public": [onehead_two_heads_shape],
    "hidden": [onehead_two_heads_averages],
    "wrong": {
        "both heads on v_a": onehead_two_heads_wrong_both_heads,
        "scale too small": onehead_two_heads_wrong_scale_too,
        "the single-head query, as large as possible": onehead_two_heads_wrong_single,
        "the sheet's two equal heads": onehead_two_heads_wrong_the_sheet,
    },
    "rubric": [
        (
            "Written part: why the copying heads work (each copies one value once "
            "beta >= Delta_n(eps)), beta sqrt(nu) small, and |c - m| <= eps sqrt(2) "
            "for orthonormal values (1)"
        )
    ],
}


# --- ex-onehead-two-heads-noisy


def onehead_two_heads_noisy_form(p_backwards):
    assert p_backwards is not ..., "define p_backwards"
    assert 0 <= float(p_backwards) <= 1, "a probability"


def onehead_two_heads_noisy_probability(p_backwards, variant):
    """p_backwards is off: the probability that the noisy head picks the wrong key."""

    import math
    from fractions import Fraction

    spread = Fraction(variant["spread"])
    exact = 0.5 * math.erfc(1 / math.sqrt(2 * spread))  # P(gamma < 0), N(1, sigma^2)
    # four standard errors of a simulation from 4000 key sets (the least the statement
    # asks), plus 1e-3: an honest simulation loses about once in 30,000
    # or less (exact binomial tails for N = 4000 and the drawn spreads)
    assert (
        abs(float(p_backwards) - exact)
        <= 4 * math.sqrt(exact * (1 - exact) / 4000) + 1e-3
    )


def onehead_two_heads_noisy_wrong_sigma_2(spread):
    from scipy.stats import norm

    p_backwards = 1 - norm.cdf(1 / spread)
    return {"p_backwards": p_backwards}


def onehead_two_heads_noisy_wrong_the_single():
    p_backwards = 0.5
    return {"p_backwards": p_backwards}


QUESTIONS["ex-onehead-two-heads-noisy"] = {
    "points": 2,
    "answer": ["p_backwards"],
    "variant": "onehead-noisy-length",
    "describe": (
        "p_backwards: the probability (nu = 0, sigma^2 = your spread) of the "
        "draws with q1^T k_a < 0\n"
        "(a float: exact, or simulated from at least 4000 key sets)"
    ),
    "public": [onehead_two_heads_noisy_form],
    "hidden": [onehead_two_heads_noisy_probability],
    "wrong": {
        "sigma^2 used as the standard deviation": onehead_two_heads_noisy_wrong_sigma_2,
        "the single head's coin flip": onehead_two_heads_noisy_wrong_the_single,
    },
    "rubric": [
        (
            "Written part: a simulation of c with one copying head per value: near "
            "the average in about Phi(1/sigma) of the draws (Phi(sqrt 2) = 92 % for "
            "the book's sigma^2 = 1/2); with the sheet's two equal heads c is the "
            "single head's output draw by draw (1)"
        ),
        (
            "Written part: the mechanism: head 2 does not see gamma (mu_b^T k_a = 0) "
            "and head 1 compares k_a only with keys scoring about 0, so the length "
            "changes the gap, not the winner; not two fluctuations averaging out (1)"
        ),
        (
            "Written part: the failures are the draws with gamma < 0 (c near (v_bar "
            "+ v_b)/2) (0.5)"
        ),
    ],
}


# --- ex-onehead-one-head-robust


def onehead_one_head_robust_form(q_robust, p_one_head, p_two_heads):
    import numpy as np

    # only what the answer itself shows: a later cell may reuse the data's names
    assert q_robust is not ..., "define q_robust"
    q = np.asarray(q_robust, dtype=float)
    assert q.ndim == 1 and np.all(np.isfinite(q)), "q_robust: shape (d,)"
    for name, p in (("p_one_head", p_one_head), ("p_two_heads", p_two_heads)):
        assert p is not ... and 0 <= float(p) <= 1, f"{name}: a probability"


def onehead_one_head_robust_every_length(q_robust, variant):
    """The robust query is not within 0.1 of the average for every length of k_a on
    your test bed (its means, and a and b of your data cell).
    """

    import numpy as np

    bed_rng = np.random.default_rng(variant["bed_seed"])
    n, d, a, b = variant["n"], variant["d"], variant["a"], variant["b"]
    means = np.linalg.qr(bed_rng.normal(size=(d, n)))[0].T
    values = np.linalg.qr(bed_rng.normal(size=(n, n)))[0]
    q = np.asarray(q_robust, dtype=float)
    assert q.shape == (d,), "q_robust: shape (d,)"
    m = (values[a] + values[b]) / 2
    for g in np.concatenate([np.linspace(-50, 50, 1001), [-1e4, 1e4]]):
        keys = means.copy()
        keys[a] *= g
        s = keys @ q
        w = np.exp(s - s.max())
        c = (w / w.sum()) @ values
        assert np.linalg.norm(c - m) <= 0.1, "not near the average for every length"


def onehead_one_head_robust_limits(p_one_head, p_two_heads, variant):
    """p_one_head or p_two_heads is off: compare the two designs' failure
    probabilities in the limit.
    """

    import math
    from fractions import Fraction

    spread, n = Fraction(variant["spread"]), variant["n"]
    phi = 0.5 * math.erfc(-1 / math.sqrt(2 * spread))  # P(gamma > 0), N(1, sigma^2)
    # At the drawn spreads every power of phi lies within a few hundredths of the next:
    # phi^(n - 1) for p_one_head or phi for p_two_heads is 0.012 off or more (at
    # spread 1/5), so the limits are asked to within 0.005 (a simulation of 10^5 draws
    # is well inside).
    assert abs(float(p_one_head) - phi ** (n - 2)) <= 0.005, "p_one_head"
    assert abs(float(p_two_heads) - phi**2) <= 0.005, "p_two_heads"


def onehead_one_head_robust_wrong_key_b(a, means, n, push):
    q_robust = -push * means[[i for i in range(n) if i != a]].sum(axis=0)
    return {"q_robust": q_robust}


def onehead_one_head_robust_wrong_limits_swapped(p_one_head, p_two_heads):
    p_one_head, p_two_heads = p_two_heads, p_one_head
    return {"p_one_head": p_one_head, "p_two_heads": p_two_heads}


def onehead_one_head_robust_wrong_sigma_2(n, spread):
    from scipy.stats import norm

    p_one_head = norm.cdf(1 / spread) ** (n - 2)
    p_two_heads = norm.cdf(1 / spread) ** 2
    return {"p_one_head": p_one_head, "p_two_heads": p_two_heads}


def onehead_one_head_robust_wrong_the_single(a, b, means):
    q_robust = 50.0 * (means[a] + means[b])
    return {"q_robust": q_robust}


QUESTIONS["ex-onehead-one-head-robust"] = {
    "points": 3,
    "answer": ["q_robust", "p_one_head", "p_two_heads"],
    "variant": "onehead-noisy-length",
    "describe": (
        "q_robust: on your test bed (a and b of your data cell, nu = 0), one "
        "query (shape (d,))\n"
        "whose output is within 0.1 of (v_a + v_b)/2 for every length of k_a "
        "(part 1);\n"
        "p_one_head, p_two_heads: with your n and sigma^2 = your spread (part 2), "
        "the limits (to 0.005) as\n"
        "the scales grow of the probability that c is within 0.1 of the average, for "
        "q_robust and\n"
        "for the two heads of the two-heads exercises that average under a noisy "
        "length of\n"
        "k_a"
    ),
    "public": [onehead_one_head_robust_form],
    "hidden": [onehead_one_head_robust_every_length, onehead_one_head_robust_limits],
    "wrong": {
        "key b pushed down too": onehead_one_head_robust_wrong_key_b,
        "limits swapped": onehead_one_head_robust_wrong_limits_swapped,
        "sigma^2 used as the standard deviation": onehead_one_head_robust_wrong_sigma_2,
        "the single-head query": onehead_one_head_robust_wrong_the_single,
    },
    "rubric": [
        (
            "Written part: part 2's reasons: the pushing head fails when any of the "
            "n - 2 pushed keys has a negative length, a copying head only when its "
            "own key does (0.5)"
        ),
        (
            "Written part 3: |mu_a^T q| <= kappa / omega and |q| >= sqrt(n - 2) "
            "(lambda - kappa (1 + 1/omega)), from the two ends gamma_a = 1 +- omega, "
            "with the proof and the delta for which the bound is positive (1)"
        ),
        (
            "Written part: the second head buys locality: each copying head reads "
            "one key, while one head must hold down every other key and inherit "
            "their noise; with the caveat that for n = 3 the pushing head is the "
            "more robust and n = 4 ties (0.5)"
        ),
    ],
}


# --- ex-onehead-verdict


QUESTIONS["ex-onehead-verdict"] = {
    "points": 3,
    "verdicts": True,
    "rubric": [
        (
            "Written part: reads the garbled entries as the book does (the sheet's "
            "'g' as the query q, '±' as the scale beta of (c)(i), '∝' as '≈') and "
            "says why (1)"
        ),
        (
            "Written part: points to a computation for every verdict that is not "
            "'right' (the exercises of the chapter, the evidence cell of the "
            "solution) (1)"
        ),
    ],
}
