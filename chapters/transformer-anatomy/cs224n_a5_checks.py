"""The questions of cs224n-a5.ipynb: its exercises, graded, by label.

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


# --- ex-a5-copy


def a5_copy_draw(seed):
    """The number of keys and the tolerance of question 1(a) for one student. Seed 0
    gives the book's n = 4, eps = 0.05."""
    import numpy as np

    if seed == 0:
        return {"n_copy": 4, "eps_copy": 0.05}
    rng = np.random.default_rng(seed)
    pairs = [
        (n, eps)
        for n in (3, 4, 5, 6, 8, 10)
        for eps in (0.2, 0.1, 0.05, 0.02, 0.01)
        if (n, eps) != (4, 0.05)
    ]
    n, eps = pairs[int(rng.integers(len(pairs)))]
    return {"n_copy": n, "eps_copy": eps}


def a5_copy_cell(variant):
    """Python source of the data cell of question 1(a)."""
    return (
        "# your numbers for question 1(a), part 2: n keys and the tolerance eps\n"
        f"n_copy, eps_copy = {variant['n_copy']}, {variant['eps_copy']}\n"
    )


VARIANTS["a5-copy"] = {
    "draw": a5_copy_draw,
    "cell": a5_copy_cell,
    "names": ["n_copy", "eps_copy"],
    "after": "ex-a5-copy",
    "describe": "the number of keys n and the tolerance eps of part 2",
}


def a5_copy_form(copy_gap):
    import numpy as np

    assert copy_gap is not ... and np.ndim(copy_gap) == 0, "copy_gap: one number"
    assert float(copy_gap) > 0, "a gap is positive"


def a5_copy_gap(copy_gap, variant):
    """copy_gap is not the smallest gap that guarantees the winner a weight of
    1 - eps_copy with n_copy keys: the worst case has all other scores equal.
    """

    import math

    from scipy.optimize import brentq

    n, eps = variant["n_copy"], variant["eps_copy"]

    def excess(gap):  # the worst-case weight of the winner, less 1 - eps
        return 1 / (1 + (n - 1) * math.exp(-gap)) - (1 - eps)

    expected = brentq(excess, 0.0, 60.0, xtol=1e-14, rtol=1e-13)
    # 5e-4 relative: the three decimals the statement asks for pass, rounded or cut
    # (off by 3.7e-4 relative at most on the draws), while every typical
    # mistake is off by 1.48e-3 or more ("without the factor 1 - eps" at n = 10,
    # eps = 0.01: log(9 / 0.01) against log(9 * 0.99 / 0.01))
    assert abs(float(copy_gap) - expected) <= 5e-4 * expected, (
        "the smallest gap for your n_copy and eps_copy"
    )


def a5_copy_wrong_no_one_minus_eps(n_copy, eps_copy):
    import math

    copy_gap = math.log((n_copy - 1) / eps_copy)
    return {"copy_gap": copy_gap}


def a5_copy_wrong_n_ignored(eps_copy):
    import math

    copy_gap = math.log((1 - eps_copy) / eps_copy)
    return {"copy_gap": copy_gap}


def a5_copy_wrong_natural_scale(n_copy, eps_copy):
    import math

    copy_gap = math.log(n_copy * (1 - eps_copy) / eps_copy)
    return {"copy_gap": copy_gap}


QUESTIONS["ex-a5-copy"] = {
    "points": 1,
    "answer": ["copy_gap"],
    "variant": "a5-copy",
    "builds": BOUNDS_AND_CONSTRUCTIONS,
    "builds_in_cells": True,
    "describe": (
        "copy_gap: the smallest score gap Delta for which n_copy keys give the "
        "winner a weight of at least\n"
        "1 - eps_copy whatever the other scores (a number)"
    ),
    "public": [a5_copy_form],
    "hidden": [a5_copy_gap],
    "wrong": {
        "without the factor 1 - eps": a5_copy_wrong_no_one_minus_eps,
        "the number of keys ignored": a5_copy_wrong_n_ignored,
        "n in place of n - 1": a5_copy_wrong_natural_scale,
    },
    "rubric": [
        (
            "c is close to v_j when the score of key j beats every other score by a "
            "large gap, k_j.q - k_i.q >= g for all i != j with g >> log(n - 1), the "
            "values bounded (0.5)"
        ),
        (
            "Only the gap matters: keys opposing the query (negative scores) are "
            "neither needed nor enough, e.g. orthonormal keys and q = beta k_j copy "
            "with the other scores 0 (0.5)"
        ),
        (
            "Part 3: beta >= copy_gap for q = beta k_j, and a weight of "
            "(n-1)e^{-30}/(1 + (n-1)e^{-30}) outside key j at beta = 30 (for the "
            "book's n = 4, eps = 0.05: log 57 ~ 4.04 and 2.8e-13); the gap checked "
            "by computation (0.5)"
        ),
    ],
}


# --- ex-a5-average


def a5_average_form(average_query, outside_weight):
    import numpy as np

    assert callable(average_query) and callable(outside_weight), (
        "define both as functions"
    )
    q = np.asarray(average_query(np.eye(4), 0, 1, 3.0), dtype=float)
    assert q.shape == (4,), "a query is a vector of shape (d,)"
    assert 0 <= float(outside_weight(3.0, 4)) <= 1, (
        "a total weight lies between 0 and 1"
    )


def a5_average_random_cases(average_query, outside_weight):
    """The averaging query or the outside weight is off on random cases: check that
    the query gives the two keys equal, dominant weights, and the exact weight it
    leaves outside the pair.
    """

    import numpy as np

    rng = np.random.default_rng(17)
    for n, d in ((3, 3), (5, 7), (8, 8)):
        keys = np.linalg.qr(rng.normal(size=(d, d)))[0][:n]  # orthonormal rows
        a, b = (int(i) for i in rng.choice(n, size=2, replace=False))
        others = [i for i in range(n) if i not in (a, b)]
        for beta in (0.5, 2.0, 5.0, 40.0):
            s = keys @ np.asarray(average_query(keys, a, b, beta), dtype=float)
            w = np.exp(s - s.max(axis=-1, keepdims=True))
            w /= w.sum(axis=-1, keepdims=True)
            assert np.isclose(w[a], w[b], rtol=1e-9, atol=0), (
                "k_a and k_b should get equal weights"
            )
            np.testing.assert_allclose(
                float(outside_weight(beta, n)),
                w[others].sum(),
                rtol=1e-9,
                # one minus the pair's weight is exact too, but rounds to 0 at beta = 40
                atol=1e-12,
                err_msg="the weight outside the pair",
            )
        assert w[a] > 0.5 - 1e-6, (
            "for a large beta the pair should take almost all the weight"
        )


def a5_average_wrong_copies_one():
    def average_query(keys, a, b, beta):
        return beta * keys[a]

    return {"average_query": average_query}


def a5_average_wrong_no_large():
    import math

    def average_query(keys, a, b, beta):
        return keys[a] + keys[b]

    def outside_weight(beta, n):
        return (n - 2) / (2 * math.e + n - 2)

    return {"average_query": average_query, "outside_weight": outside_weight}


def a5_average_wrong_the_sheet():
    import math

    def outside_weight(beta, n):
        return 1 / (2 * math.exp(beta))

    return {"outside_weight": outside_weight}


QUESTIONS["ex-a5-average"] = {
    "points": 2,
    "answer": ["average_query", "outside_weight"],
    "fixed": (
        "the answers are functions of any keys, a, b, beta and n; the statement "
        "gives no numbers"
    ),
    "builds": [
        "attnsig.bounds.outside_weight",
    ],
    "describe": (
        "average_query(keys, a, b, beta): your query q, shape (d,), for "
        "orthonormal keys (the rows of\n"
        "keys, shape (n, d)), two indices a != b (0-based) and the large scalar "
        "beta > 0 of your construction;\n"
        "outside_weight(beta, n): the exact total weight your query leaves on "
        "the n - 2 keys other than a, b"
    ),
    "public": [a5_average_form],
    "hidden": [a5_average_random_cases],
    "wrong": {
        "copies one key": a5_average_wrong_copies_one,
        "no large scale": a5_average_wrong_no_large,
        "the sheet's weight 1/(2e^beta)": a5_average_wrong_the_sheet,
    },
}


# --- The test bed of questions 1(c) and 1(d)


def a5_bed_draw(seed):
    """The means, the values and the scales of questions 1(c) and 1(d) for one
    student. Seed 0 gives the book's: mu_i = e_i, v_a = (1, 0), v_b = (0, 1).

    For other seeds the means are the rows of a signed permutation matrix
    (orthonormal, integer) and v_a, v_b two signed unit vectors of the plane
    (orthonormal, as the theorems the questions cite assume), so that the predicted
    probabilities of the chapter hold unchanged while the queries and the places of
    the outputs change; a and b stay the first two keys, beta, nu and the number of
    draws stay the book's.
    """
    import numpy as np

    common = {
        "ia": 0,
        "ib": 1,
        "nu_small": 1e-8,
        "scale_beta": 30.0,
        "num_samples": 2000,
    }
    if seed == 0:
        return {
            "means": np.eye(4, dtype=int).tolist(),
            "vals": [[1, 0], [0, 1], [0, 0], [0, 0]],
            **common,
        }
    rng = np.random.default_rng(seed)
    while True:
        means = np.zeros((4, 4), dtype=int)
        means[np.arange(4), rng.permutation(4)] = rng.choice([-1, 1], size=4)
        # The book's query e_1 + e_2 (any positive multiple) must not average a and
        # b here too: its scores on a and b must not tie above the others. (This
        # also excludes mu_a, mu_b = e_1, e_2 in either order, where the book's two
        # heads would still average.)
        s = means[:, 0] + means[:, 1]
        if not s[0] == s[1] > s[2:].max():
            break
    units = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    pairs = [
        (u, w)
        for u in units
        for w in units
        if u[0] * w[0] + u[1] * w[1] == 0 and (u[0] + w[0], u[1] + w[1]) != (1, 1)
    ]  # orthonormal pairs whose average is not the book's (1/2, 1/2)
    v_a, v_b = pairs[int(rng.integers(len(pairs)))]
    vals = [list(v_a), list(v_b), [0, 0], [0, 0]]
    return {"means": means.tolist(), "vals": vals, **common}


def a5_bed_cell(variant):
    """Python source of the data cell of questions 1(c) and 1(d): the set-up cell
    with the student's means and values."""
    return (
        "# your test bed for questions 1(c) and 1(d) (replaces the set-up cell's)\n"
        f"n_keys = {len(variant['means'])}\n"
        f"means = np.array({variant['means']}, dtype=float)  # (n, d) orthonormal\n"
        f"ia, ib = {variant['ia']}, {variant['ib']}  # the indices a and b\n"
        f"vals = np.array({variant['vals']}, dtype=float)  # (n, 2) values\n"
        "average = (vals[ia] + vals[ib]) / 2\n"
        f"nu_small = {variant['nu_small']!r}\n"
        f"scale_beta = {variant['scale_beta']!r}\n"
        f"num_samples = {variant['num_samples']}\n"
    )


VARIANTS["a5-bed"] = {
    "draw": a5_bed_draw,
    "cell": a5_bed_cell,
    "names": [
        "n_keys",
        "means",
        "ia",
        "ib",
        "vals",
        "average",
        "nu_small",
        "scale_beta",
        "num_samples",
    ],
    "after": "ex-a5-noisy-small",
    "describe": (
        "the means mu_i and the values v_i of the set-up cell of questions 1(c) "
        "and 1(d) (with your values, c = w_a v_a + w_b v_b, and the average is "
        "`average`, not (1/2, 1/2))"
    ),
}


# --- ex-a5-noisy-small


def a5_noisy_small_shape(q_avg):
    import numpy as np

    # only what the answer itself shows: a later cell may reuse the data's names
    assert q_avg is not ... and np.ndim(q_avg) == 1, "a query of shape (n_keys,)"
    assert np.all(np.isfinite(np.asarray(q_avg, dtype=float))), "finite entries"


def a5_noisy_small_averages(q_avg, variant):
    """With small noise the output is not near the average often enough."""

    import numpy as np

    means = np.array(variant["means"], dtype=float)
    vals = np.array(variant["vals"], dtype=float)
    ia, ib, nu = variant["ia"], variant["ib"], variant["nu_small"]
    rng = np.random.default_rng(31)
    keys = means + np.sqrt(nu) * rng.normal(size=(4000,) + means.shape)  # nu I
    s = keys @ np.asarray(q_avg, dtype=float)  # (S, n)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    err = np.linalg.norm(w @ vals - (vals[ia] + vals[ib]) / 2, axis=1)
    assert np.mean(err <= 0.02) >= 0.99, (
        "c should be near the average in (almost) every draw"
    )


def a5_noisy_small_wrong_no_large(ia, ib, means):
    q_avg = means[ia] + means[ib]
    return {"q_avg": q_avg}


def a5_noisy_small_wrong_one_mean(ia, means, scale_beta):
    q_avg = scale_beta * means[ia]
    return {"q_avg": q_avg}


def a5_noisy_small_wrong_scale_far(ia, ib, means):
    q_avg = 1e7 * (means[ia] + means[ib])
    return {"q_avg": q_avg}


QUESTIONS["ex-a5-noisy-small"] = {
    "points": 2,
    "answer": ["q_avg"],
    "variant": "a5-bed",
    "builds": ["attnsig.constructions.*"],
    "builds_in_cells": True,
    "describe": (
        "q_avg: your query, shape (n_keys,), built from the means (rows of "
        "`means`), the indices\n"
        "ia, ib and the scale scale_beta of the set-up cell (the noise-free keys "
        "a and b\n"
        "score scale_beta; keys drawn with Sigma_i = nu_small I)"
    ),
    "public": [a5_noisy_small_shape],
    "hidden": [a5_noisy_small_averages],
    "wrong": {
        "no large scale": a5_noisy_small_wrong_no_large,
        "one mean only": a5_noisy_small_wrong_one_mean,
        "scale far too large for the noise": a5_noisy_small_wrong_scale_far,
    },
    "rubric": [
        (
            "Argues that the noise moves each score by about beta sqrt(2 nu), so the "
            "construction needs beta large (a big gap) and beta sqrt(nu) small at "
            "once (1)"
        ),
        (
            "Evaluates the finite-window bound at r = 0.02, nu = 1e-8: about 0.0141 "
            "except with probability 8 Phi(-4.71) ~ 9.7e-6; the largest nu with "
            "probability 0.99 is about 2.4e-8; both compared with samples (1)"
        ),
    ],
}


# --- ex-a5-noisy-large


def a5_noisy_large_shape(c_one):
    import numpy as np

    assert c_one is not ... and np.ndim(c_one) == 2 and np.shape(c_one)[1] == 2, (
        "one output (2,) per draw"
    )
    assert len(c_one) >= 1000, "at least 1000 draws"


def a5_noisy_large_spread(c_one, variant):
    """With large noise the outputs do not spread as the model predicts (the length
    of k_a has variance sigma^2 = 1/2): simulate c_one again.
    """

    import numpy as np
    from scipy.stats import norm

    c = np.asarray(c_one, dtype=float)
    S = len(c)
    vals = np.array(variant["vals"], dtype=float)
    v_a, v_b = vals[variant["ia"]], vals[variant["ib"]]
    beta, sigma, delta = variant["scale_beta"], np.sqrt(0.5), 0.05
    span = np.linalg.norm(v_a - v_b)

    # c = sig v_a + (1 - sig) v_b with sig = sigmoid(beta (gamma - 1)) and
    # gamma ~ N(1, sigma^2), so |c - v_a| = (1 - sig) span, |c - avg| = |sig - 1/2| span
    def logit(p):
        return np.log(p / (1 - p))

    p_end = norm.sf(logit(1 - delta / span) / (beta * sigma))
    p_mid = 2 * norm.cdf(logit(0.5 + delta / span) / (beta * sigma)) - 1
    for name, target in (("v_a", v_a), ("v_b", v_b)):
        frac = np.mean(np.linalg.norm(c - target, axis=1) <= delta)
        assert abs(frac - p_end) <= 5 * np.sqrt(p_end * (1 - p_end) / S), (
            f"share of outputs near {name}"
        )
    mid = np.mean(np.linalg.norm(c - (v_a + v_b) / 2, axis=1) <= delta)
    assert mid <= p_mid + 5 * np.sqrt(p_mid * (1 - p_mid) / S), (
        "share of outputs near the average"
    )
    # The shares above hardly move with sigma at beta = 30. The position t of c on the
    # segment from v_b (0) to v_a (1) is sig: it lies in [eps, 1 - eps] when |beta
    # (gamma - 1)| <= logit(1 - eps), a share that does: 0.336 here, 0.461 with sigma^2
    # used as the standard deviation (sd 1/2), 0.241 with sd 1.
    eps = 1e-4
    t = (c - v_b) @ (v_a - v_b) / span**2
    inner = np.mean((t >= eps) & (t <= 1 - eps))
    p_inner = 2 * norm.cdf(logit(1 - eps) / (beta * sigma)) - 1
    assert abs(inner - p_inner) <= 5 * np.sqrt(p_inner * (1 - p_inner) / S), (
        "share of outputs strictly between v_a and v_b"
    )


def a5_noisy_large_wrong_noise_free(keys_small, q_avg, vals):
    from attnsig import heads

    c_one, _ = heads.single_head_output(q_avg, keys_small, vals)
    return {"c_one": c_one, "_": _}


def a5_noisy_large_wrong_the_mean(c_one):
    import numpy as np

    c_one = np.tile(c_one.mean(axis=0), (len(c_one), 1))
    return {"c_one": c_one}


def a5_noisy_large_wrong_sigma_2(ia, keys_small, means, nu_small, q_avg, vals):
    import numpy as np

    from attnsig import heads, keysets

    # sigma^2 = 1/2 taken for the standard deviation: variance 1/4
    cov_noisy = keysets.noisy_key_covariances(means, nu_small, index=ia, spread=0.25)
    rng = np.random.default_rng(2)
    keys_noisy = keysets.sample_keys(means, cov_noisy, len(keys_small), rng)
    c_one, _ = heads.single_head_output(q_avg, keys_noisy, vals)
    return {"c_one": c_one, "_": _}


def a5_noisy_large_wrong_the_two(ia, ib, keys_noisy, means, scale_beta, vals):
    import numpy as np

    from attnsig import heads

    c_one, _ = heads.multi_head_output(
        np.stack([scale_beta * means[ia], scale_beta * means[ib]]), keys_noisy, vals
    )
    return {"c_one": c_one, "_": _}


QUESTIONS["ex-a5-noisy-large"] = {
    "points": 3,
    "answer": ["c_one"],
    "variant": "a5-bed",
    "describe": (
        "c_one: the outputs c of the single head with your query q_avg for "
        "num_samples independent\n"
        "draws of the keys with the noisy length of key a (array of shape "
        "(num_samples, 2));\n"
        "keysets.noisy_key_covariances and keysets.sample_keys draw such keys"
    ),
    "public": [a5_noisy_large_shape],
    "hidden": [a5_noisy_large_spread],
    "wrong": {
        "noise-free keys": a5_noisy_large_wrong_noise_free,
        "the mean output for every draw": a5_noisy_large_wrong_the_mean,
        "the two-head layer": a5_noisy_large_wrong_the_two,
        "sigma^2 used as the standard deviation": a5_noisy_large_wrong_sigma_2,
    },
    "rubric": [
        (
            "Predicts the shares at beta = 30, delta = 0.05: the theorem's bound "
            "0.418 <= P(near v_a) <= 1/2 (valid for these values, with the reason), "
            "and 0.438 near v_a, 0.438 near v_b, 0.005 near the average from the "
            "two competing keys; compares them with the samples (1)"
        ),
        (
            "Explains the switch: c = sigmoid(beta (gamma - 1)) v_a + (1 - "
            "sigmoid(beta (gamma - 1))) v_b with k_a = gamma mu_a, the side set by "
            "the sign of gamma - 1 (1)"
        ),
    ],
}


# --- ex-a5-two-heads


def a5_two_heads_shape(q_two):
    import numpy as np

    # only what the answer itself shows: a later cell may reuse the data's names
    assert q_two is not ... and np.ndim(q_two) == 2 and len(q_two) == 2, (
        "shape (2, n_keys)"
    )


def a5_two_heads_average(q_two, variant):
    """The two heads do not each copy one value (head 1 v_a, head 2 v_b, or the other
    way round), or their output is not near the average of the two values.
    """

    import numpy as np

    means = np.array(variant["means"], dtype=float)
    vals = np.array(variant["vals"], dtype=float)
    ia, ib, nu = variant["ia"], variant["ib"], variant["nu_small"]
    # With the noise-free keys each head puts almost all its weight on its own key:
    # two copies of the single-head query also average, but they are one head.
    own = []
    for q in np.asarray(q_two, dtype=float):
        s = means @ q
        w = np.exp(s - s.max())
        own.append(w / w.sum())
    assert (own[0][ia] >= 0.9 and own[1][ib] >= 0.9) or (
        own[0][ib] >= 0.9 and own[1][ia] >= 0.9
    ), "each head should copy one value: head 1 v_a and head 2 v_b (either order)"
    rng = np.random.default_rng(37)
    keys = means + np.sqrt(nu) * rng.normal(size=(2000,) + means.shape)
    outs = []
    for q in np.asarray(q_two, dtype=float):
        s = keys @ q
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        w /= w.sum(axis=-1, keepdims=True)
        outs.append(w @ vals)
    c = (outs[0] + outs[1]) / 2
    assert np.all(np.linalg.norm(c - (vals[ia] + vals[ib]) / 2, axis=1) <= 0.01), (
        "c should be the average"
    )


def a5_two_heads_wrong_both_heads(ia, means, scale_beta):
    import numpy as np

    q_two = np.stack([scale_beta * means[ia], scale_beta * means[ia]])
    return {"q_two": q_two}


def a5_two_heads_wrong_no_large(ia, ib, means):
    import numpy as np

    q_two = np.stack([means[ia], means[ib]])
    return {"q_two": q_two}


def a5_two_heads_wrong_single_twice(ia, ib, means, scale_beta):
    import numpy as np

    q_two = np.stack([scale_beta * (means[ia] + means[ib])] * 2)
    return {"q_two": q_two}


QUESTIONS["ex-a5-two-heads"] = {
    "points": 1,
    "answer": ["q_two"],
    "variant": "a5-bed",
    "builds": ["attnsig.constructions.two_head_queries"],
    "builds_in_cells": True,
    "describe": (
        "q_two: the two queries at the scale scale_beta of the set-up cell, an "
        "array of shape (2, n_keys),\n"
        "row h = the query of head h + 1; head 1 copies v_a and head 2 copies v_b "
        "(either order)"
    ),
    "public": [a5_two_heads_shape],
    "hidden": [a5_two_heads_average],
    "wrong": {
        "both heads on key a": a5_two_heads_wrong_both_heads,
        "no large scale": a5_two_heads_wrong_no_large,
        "the single-head query twice": a5_two_heads_wrong_single_twice,
    },
}


# --- ex-a5-two-heads-noisy


def a5_two_heads_noisy_shape(c_two):
    import numpy as np

    assert c_two is not ... and np.ndim(c_two) == 2 and np.shape(c_two)[1] == 2, (
        "one output (2,) per draw"
    )
    assert len(c_two) >= 1000, "at least 1000 draws"


def a5_two_heads_noisy_spread(c_two, q_two, variant):
    """With noisy keys the two-head outputs do not spread as predicted for your
    q_two: simulate c_two again with it.
    """

    import numpy as np
    from scipy.stats import norm

    c = np.asarray(c_two, dtype=float)
    q = np.asarray(q_two, dtype=float)
    S = len(c)
    means = np.array(variant["means"], dtype=float)
    vals = np.array(variant["vals"], dtype=float)
    ia, ib = variant["ia"], variant["ib"]
    assert q.shape == (2, means.shape[1]), "q_two: shape (2, n_keys)"
    base = means @ q.T  # (n, 2): the noise-free score of key i for head h
    own = np.exp(base - base.max(axis=0))
    own /= own.sum(axis=0)
    assert (own[ia, 0] >= 0.9 and own[ib, 1] >= 0.9) or (
        own[ib, 0] >= 0.9 and own[ia, 1] >= 0.9
    ), "q_two should make each head copy one value (the previous question)"
    # The share is predicted for the student's own heads, whatever their scale or
    # the scores they give the other keys. As nu -> 0 key a is gamma mu_a with
    # gamma ~ N(1, sigma^2) and the other keys are their means, so c is a function
    # of gamma alone: the share near the average is the normal mass of the gammas
    # whose c is near it, summed over a fine grid of cells (each cell's gamma at its
    # middle, error below 1e-4; nu moves the scores by sqrt(nu) |q|, a shift in
    # gamma of relative size 1e-4 that the tolerance absorbs).
    sigma, delta = np.sqrt(0.5), 0.05
    edges = 1 + sigma * np.linspace(-9.0, 9.0, 200_001)
    gamma = (edges[1:] + edges[:-1]) / 2
    mass = np.diff(norm.cdf((edges - 1) / sigma))
    s = np.broadcast_to(base, (len(gamma),) + base.shape).copy()  # (G, n, 2)
    s[:, ia, :] = gamma[:, None] * base[ia]
    w = np.exp(s - s.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    out = np.einsum("gnh,nk->gk", w, vals) / 2  # the mean of the two heads' outputs
    near = np.linalg.norm(out - (vals[ia] + vals[ib]) / 2, axis=1) <= delta
    p = float(mass[near].sum())
    frac = np.mean(np.linalg.norm(c - (vals[ia] + vals[ib]) / 2, axis=1) <= delta)
    # five binomial standard deviations; at p near 0 or 1, at least 1 / S of variance
    assert abs(frac - p) <= 5 * np.sqrt(max(p * (1 - p), 1 / S) / S), (
        "share of outputs near the average"
    )


def a5_two_heads_noisy_wrong_flipped_keys(c_two, ia, keys_noisy, means):
    c_two = c_two[keys_noisy[:, ia] @ means[ia] >= 0]
    return {"c_two": c_two}


def a5_two_heads_noisy_wrong_noise_free(keys_small, q_two, vals):
    from attnsig import heads

    c_two, _ = heads.multi_head_output(q_two, keys_small, vals)
    return {"c_two": c_two, "_": _}


def a5_two_heads_noisy_wrong_one_head(keys_noisy, q_avg, vals):
    from attnsig import heads

    c_two, _ = heads.single_head_output(q_avg, keys_noisy, vals)
    return {"c_two": c_two, "_": _}


QUESTIONS["ex-a5-two-heads-noisy"] = {
    "points": 3,
    "answer": ["c_two"],
    "variant": "a5-bed",
    "describe": (
        "c_two: the outputs c = (c1 + c2) / 2 of the two heads with your q_two of "
        "the previous question\n"
        "(the share near the average is predicted for those heads) for\n"
        "num_samples independent draws of the keys with the noisy length of key "
        "a\n"
        "(array of shape (num_samples, 2)); keep every draw (none set aside)"
    ),
    "public": [a5_two_heads_noisy_shape],
    "hidden": [a5_two_heads_noisy_spread],
    "wrong": {
        "flipped keys set aside": a5_two_heads_noisy_wrong_flipped_keys,
        "noise-free keys": a5_two_heads_noisy_wrong_noise_free,
        "one head with the pair query": a5_two_heads_noisy_wrong_one_head,
    },
    "rubric": [
        (
            "Predicts at beta = 30, delta = 0.05: the theorem's bounds 0.886 <= P <= "
            "Phi(sqrt 2) = 0.921 (its conditions on n, delta, beta checked, and why "
            "they hold for these values), and P = Phi(sqrt 2 (1 - gamma_0)) = 0.895 "
            "with gamma_0 = log(sqrt(10)/(2 delta) - 3)/beta = 0.112 for the heads "
            "q = beta mu (for other heads, the same computation with their scores); "
            "compares with the samples (1)"
        ),
        (
            "Names the exception: a flipped k_a (gamma < 0, Phi(-sqrt 2) ~ 8% of "
            "the draws), whose outputs land near 2/3 v_b ((0, 2/3) for the book's "
            "values), position 1/6 (1)"
        ),
    ],
}


# --- The sequence of question 1(e)


def a5_frame_draw(seed):
    """The orthonormal frame of question 1(e) for one student, given by the seed of
    the random matrix it is the Q factor of; rho stays the book's 6 (e^{-36} ~ 2e-16
    is stated). Seed 0 gives the book's frame (generator seed 4)."""
    import numpy as np

    if seed == 0:
        return {"frame_seed": 4, "rho": 6.0}
    rng = np.random.default_rng(seed)
    return {"frame_seed": int(rng.integers(100, 1_000_000)), "rho": 6.0}


def a5_frame_cell(variant):
    """Python source of the data cell of question 1(e): the book's cell with the
    student's frame."""
    return (
        "# your frame for question 1(e) (replaces the cell above)\n"
        f"rng = np.random.default_rng({variant['frame_seed']})\n"
        f"rho = {variant['rho']!r}\n"
        "frame = np.linalg.qr(rng.normal(size=(6, 6)))[0]  # orthonormal columns\n"
        "u_a, u_b, u_c, u_d = (rho * frame[:, i] for i in range(4))\n"
        "X = np.stack([u_d + u_b, u_a, u_c + u_b])  # (n=3, d=6), rows x_1, x_2, x_3\n"
    )


VARIANTS["a5-frame"] = {
    "draw": a5_frame_draw,
    "cell": a5_frame_cell,
    "names": ["rng", "rho", "frame", "u_a", "u_b", "u_c", "u_d", "X"],
    "after": "ex-a5-kqv-identity",
    "describe": (
        "the orthonormal frame u_a, ..., u_d and the sequence X of question 1(e)"
    ),
}


# --- ex-a5-kqv-identity


def a5_kqv_identity_form(y2_limit, can_reach_u_b):
    import numpy as np

    # only what the answer itself shows: a later cell may reuse the data's names
    assert y2_limit is not ... and np.shape(y2_limit) == (6,), "a vector of shape (6,)"
    assert isinstance(can_reach_u_b, (bool, np.bool_)), "can_reach_u_b: True or False"


def a5_kqv_identity_answers(y2_limit, can_reach_u_b, variant):
    """y2_limit or can_reach_u_b is wrong: take the limit of large rho with
    identity weights.
    """

    import numpy as np

    rho = variant["rho"]
    frame = np.linalg.qr(
        np.random.default_rng(variant["frame_seed"]).normal(size=(6, 6))
    )[0]
    u_a, u_b, u_c, u_d = (rho * frame[:, i] for i in range(4))
    x = np.stack([u_d + u_b, u_a, u_c + u_b])
    # Identity weights: query 2's scores x_j . x_2 are rho^2 t_j with t_j fixed, so
    # as rho grows the weights go to the indicator of the largest score.
    winner = int(np.argmax(x @ x[1]))
    y2 = np.asarray(y2_limit, dtype=float)
    assert y2.shape == x[winner].shape and np.abs(y2 - x[winner]).max() <= 1e-6 * rho, (
        "y2_limit: not the vector y_2 tends to"
    )
    # With u_c or u_d added to x_2, the same limit: y_2 tends to the row that scores
    # highest against the new x_2; it reaches u_b only if that row is u_b.
    reach = False
    for added in (u_c, u_d):
        x_new = x.copy()
        x_new[1] = u_a + added
        top = x_new[int(np.argmax(x_new @ x_new[1]))]
        reach = reach or bool(np.linalg.norm(top - u_b) <= 1e-6 * rho)
    assert isinstance(can_reach_u_b, (bool, np.bool_)), "can_reach_u_b: True or False"
    assert bool(can_reach_u_b) == reach, (
        "can_reach_u_b: compare the limit of y_2 with u_b for each added vector"
    )


def a5_kqv_identity_wrong_adding_u():
    can_reach_u_b = True
    return {"can_reach_u_b": can_reach_u_b}


def a5_kqv_identity_wrong_the_row(out):
    y2_limit = out[0]
    return {"y2_limit": y2_limit}


def a5_kqv_identity_wrong_uniform_weights(X):
    y2_limit = X.mean(axis=0)
    return {"y2_limit": y2_limit}


QUESTIONS["ex-a5-kqv-identity"] = {
    "points": 3,
    "answer": ["y2_limit", "can_reach_u_b"],
    "variant": "a5-frame",
    "describe": (
        "y2_limit: the vector y_2 approximates for large rho (array of shape "
        "(6,), e.g. from u_a, u_b, u_c, u_d);\n"
        "can_reach_u_b: True if adding u_c or u_d to x_2 can bring y_2 close to "
        "u_b, False if not"
    ),
    "public": [a5_kqv_identity_form],
    "hidden": [a5_kqv_identity_answers],
    "wrong": {
        "adding u_d helps": a5_kqv_identity_wrong_adding_u,
        "the row of y_1": a5_kqv_identity_wrong_the_row,
        "uniform weights": a5_kqv_identity_wrong_uniform_weights,
    },
    "rubric": [
        (
            "Argues why not: without projections a token scores itself highest "
            "(x_j.x_2' <= |x_2'|^2 for equal norms), so y_2 stays near x_2'; or the "
            "bound |y_2 - u_b| >= rho/sqrt(2) for any weights (1)"
        )
    ],
}


# --- ex-a5-kqv-design


def a5_kqv_design_shapes(W_K, W_Q, W_V):
    import numpy as np

    # only what the answer itself shows: a later cell may reuse the data's names
    d = 6  # every variant's X has six columns
    for name, m in (("W_K", W_K), ("W_Q", W_Q), ("W_V", W_V)):
        assert m is not ... and np.shape(m) == (d, d), f"{name}: shape ({d}, {d})"


def a5_kqv_design_targets(W_K, W_Q, W_V, variant):
    """The designed W_K, W_Q, W_V do not send the outputs to their targets."""

    import numpy as np

    rho = variant["rho"]
    frame = np.linalg.qr(
        np.random.default_rng(variant["frame_seed"]).normal(size=(6, 6))
    )[0]
    u_a, u_b, u_c, u_d = (rho * frame[:, i] for i in range(4))
    x = np.stack([u_d + u_b, u_a, u_c + u_b])
    Q, K, V = (x @ np.asarray(m, dtype=float) for m in (W_Q, W_K, W_V))
    s = Q @ K.T  # rows = queries, unscaled
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    y = w @ V
    assert np.linalg.norm(y[1] - u_b) <= 1e-3 * rho, "y_2 should be close to u_b"
    assert np.linalg.norm(y[0] - (u_b - u_c)) <= 1e-3 * rho, (
        "y_1 should be close to u_b - u_c"
    )


def a5_kqv_design_wrong_w_q(W_Q):
    W_Q = W_Q.T
    return {"W_Q": W_Q}


def a5_kqv_design_wrong_no_projections():
    import numpy as np

    W_K = W_Q = W_V = np.eye(6)
    return {"W_K": W_K, "W_Q": W_Q, "W_V": W_V}


def a5_kqv_design_wrong_values_not():
    import numpy as np

    W_V = np.eye(6)
    return {"W_V": W_V}


QUESTIONS["ex-a5-kqv-design"] = {
    "points": 4,
    "answer": ["W_K", "W_Q", "W_V"],
    "variant": "a5-frame",
    "describe": (
        "W_K, W_Q, W_V: the projection matrices, arrays of shape (6, 6) for the "
        "sequence X above\n"
        "(rows are tokens: queries X @ W_Q, keys X @ W_K, values X @ W_V; scores "
        "unscaled)"
    ),
    "public": [a5_kqv_design_shapes],
    "hidden": [a5_kqv_design_targets],
    "wrong": {
        "W_Q transposed": a5_kqv_design_wrong_w_q,
        "no projections": a5_kqv_design_wrong_no_projections,
        "values not projected": a5_kqv_design_wrong_values_not,
    },
}


# --- ex-a5-synth


QUESTIONS["ex-a5-synth"] = {
    "points": 3,
    "manual": True,
    "kind": "proof",
    "rubric": [
        (
            "Row i of the synthesized weights depends on x_i alone (a random "
            "synthesizer's on nothing), with the reason: the ReLU, the products and "
            "the softmax act row by row (1)"
        ),
        (
            "A precise, testable consequence: e.g. on a content lookup over m cyclic "
            "shifts the mean weight on the matching position is at most 1/m whatever "
            "the parameters, while key-query-value attention puts almost all of it "
            "there; code that checks it (1)"
        ),
        (
            "The converse: a synthesizer expresses fixed positional patterns (attend "
            "to the previous token) that key-query-value attention without "
            "positions, being permutation equivariant, cannot (1)"
        ),
    ],
}


# --- ex-a5-pretrain-why


QUESTIONS["ex-a5-pretrain-why"] = {
    "points": 1,
    "manual": True,
    "kind": "explanation",
    "rubric": [
        (
            "The finetuning pairs contain no information about the test people's "
            "birthplaces, so a model trained on them alone can only guess (answer "
            "format, frequent places) (0.5)"
        ),
        (
            "Pretraining stores the name-place associations of those people in the "
            "weights; finetuning teaches the model to retrieve them (not just 'more "
            "data' or 'transfer learning') (0.5)"
        ),
    ],
}


# --- ex-a5-indeterminate


QUESTIONS["ex-a5-indeterminate"] = {
    "points": 1,
    "manual": True,
    "kind": "explanation",
    "rubric": [
        (
            "Fabrications look exactly like facts (same form and confidence), so "
            "users cannot calibrate their trust answer by answer (0.5)"
        ),
        (
            "A second distinct reason, e.g. errors cannot be traced to a source or "
            "corrected, or they follow regularities in the data and affect some "
            "groups systematically (0.5)"
        ),
    ],
}


# --- ex-a5-unseen-names


QUESTIONS["ex-a5-unseen-names"] = {
    "points": 1,
    "manual": True,
    "kind": "explanation",
    "rubric": [
        (
            "A strategy: guess from surface features of the name (characters, "
            "sub-word pieces, apparent origin) or fall back on frequent places; the "
            "model always outputs some place (0.5)"
        ),
        (
            "A concern: a stereotype presented as a fact, with confidence that does "
            "not reflect the absence of knowledge (not a proposed fix) (0.5)"
        ),
    ],
}


# --- ex-a5-verdict


QUESTIONS["ex-a5-verdict"] = {
    "points": 3,
    "verdicts": True,
    "rubric": [
        (
            "Reads the garbled entries as the book does: 1/(2e^s) as the weight "
            "of a key outside the pair, the OCR's sqrt(a), sqrt(b) as c1 ~ v_a, c2 ~ "
            "v_b, the label c_1 as c_2; says why (1)"
        ),
        (
            "Points to a computation for each verdict that is not 'right' (the cells "
            "of the chapter's exercises), and notes the parts the sheet leaves "
            "unanswered (the end of 1(d)ii, the second half of 1(e)i, 1(e)ii) "
            "and that its 3(c) answers another question (1)"
        ),
    ],
}
