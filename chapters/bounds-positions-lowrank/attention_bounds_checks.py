"""The questions of attention-bounds.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}


# --- ex-bounds-copy


def bounds_copy_form(q_copy, copy_worst):
    import numpy as np

    assert callable(q_copy) and callable(copy_worst), "define two functions"
    keys = np.array([[1.0, 0.0], [-1.0, 0.0]])
    assert np.shape(q_copy(keys, 0.1)) == (2,), "one query of shape (d,)"
    assert np.ndim(copy_worst(3, 0.1)) == 0, "copy_worst returns one number"


def bounds_copy_copy_query(q_copy):
    """The copy query is too long or does not put enough weight on the copied key
    for some n and eps.
    """

    import math

    import numpy as np

    from attnsig import keysets

    def weights(q, keys):
        s = keys @ q
        w = np.exp(s - s.max())
        return w / w.sum()

    rng = np.random.default_rng(47)
    for n in (2, 3, 10, 100):
        for eps in (0.5, 0.1, 0.001):
            sets = [keysets.adversarial_copy_keys(n, 3)]
            sets += [keysets.random_copy_keys(n, 4, rng) for _ in range(3)]
            for keys in sets:
                q = np.asarray(q_copy(keys.copy(), eps), dtype=float)
                assert q.shape == (keys.shape[1],), "shape (d,)"
                assert np.linalg.norm(q) <= 2 * math.log(n / eps) * (1 + 1e-9), "length"
                assert weights(q, keys)[0] >= 1 / (1 + eps) * (1 - 1e-12), (n, eps)


def bounds_copy_copy_worst(copy_worst):
    """copy_worst(n, eps) does not give the worst-case length for every n and eps:
    redo the bound's algebra.
    """

    import math

    for n in (2, 3, 4, 10, 1000):
        for eps in (0.9, 0.5, 0.1, 1e-3):
            ref = math.log(1 / eps) if n == 2 else 2 * math.log((n - 1) / eps)
            assert abs(float(copy_worst(n, eps)) - ref) <= 1e-9 * ref, (n, eps)


def bounds_copy_wrong_half_the():
    import math

    def q_copy(keys, eps):
        return math.log(len(keys) / eps) * keys[0]

    return {"q_copy": q_copy}


def bounds_copy_wrong_the_n():
    import math

    def copy_worst(n, eps):
        return 2 * math.log((n - 1) / eps) if n > 2 else 2 * math.log(1 / eps)

    return {"copy_worst": copy_worst}


def bounds_copy_wrong_the_sheet():
    import math

    def copy_worst(n, eps):
        return 2 * math.log(n / eps)

    return {"copy_worst": copy_worst}


QUESTIONS["ex-bounds-copy"] = {
    "points": 2,
    "answer": ["q_copy", "copy_worst"],
    "builds": [
        "attnsig.constructions.copy_query",
        "attnsig.bounds.copy_worst_case_length",
    ],
    "describe": (
        "q_copy(keys, eps): for unit keys of shape (n, d) with k_1 = keys[0] at "
        "distance >= 1\n"
        "from every other key, a query of shape (d,) with ||q|| <= 2 ln(n/eps) "
        "and weight\n"
        "at least 1/(1+eps) on k_1;\n"
        "copy_worst(n, eps): the smallest length L such that every such key set "
        "of n >= 2 keys\n"
        "has a query of length L with weight at least 1/(1+eps) on k_1 (the "
        "worst case)"
    ),
    "public": [bounds_copy_form],
    "hidden": [bounds_copy_copy_query, bounds_copy_copy_worst],
    "wrong": {
        "half the length": bounds_copy_wrong_half_the,
        "the n >= 3 formula at n = 2": bounds_copy_wrong_the_n,
        "the sheet's bound as the worst case": bounds_copy_wrong_the_sheet,
    },
    "rubric": [
        (
            "||k_1 - k_i||^2 = 2 - 2<k_1, k_i> gives <k_1, k_i> <= 1/2, so q = beta "
            "k_1 has score gaps >= beta/2 and alpha_1 >= 1/(1 + (n-1) e^{-beta/2}) "
            ">= 1/(1+eps) at beta = 2 ln(n/eps) (1)"
        ),
        (
            "Worst case: keys at distance exactly 1 with the w_i summing to zero and "
            "the AM-GM inequality show that no query shorter than 2 ln((n-1)/eps) "
            "works (n >= 3); ln(1/eps) for n = 2 by Cauchy-Schwarz (1)"
        ),
    ],
}


# --- ex-bounds-average


def bounds_average_form(q_avg, avg_shortest):
    import numpy as np

    assert callable(q_avg) and callable(avg_shortest), "define two functions"
    assert np.shape(q_avg(np.eye(3), 0.1)) == (3,), "one query of shape (d,)"
    assert np.ndim(avg_shortest(3, 0.1)) == 0, "avg_shortest returns one number"


def bounds_average_average_query(q_avg):
    """The averaging query is too long or does not split enough weight between the
    two keys for some n and eps.
    """

    import math

    import numpy as np

    from attnsig import keysets

    def weights(q, keys):
        s = keys @ q
        w = np.exp(s - s.max())
        return w / w.sum()

    rng = np.random.default_rng(53)
    for n in (2, 3, 10, 50):
        for eps in (0.5, 0.1, 0.01):
            keys = keysets.orthonormal_keys(n, n + 2, rng)
            q = np.asarray(q_avg(keys.copy(), eps), dtype=float)
            assert q.shape == (n + 2,), "shape (d,)"
            assert np.linalg.norm(q) <= 2 * math.sqrt(2) * math.log(n / eps) * (
                1 + 1e-9
            )
            w = weights(q, keys)
            assert min(w[0], w[1]) >= 1 / (2 + eps) * (1 - 1e-12), (n, eps)


def bounds_average_shortest(avg_shortest):
    """avg_shortest(n, eps) is not the shortest length for every n and eps: check
    the factor the two keys share.
    """

    import math

    for n in (3, 4, 10, 1000):
        for eps in (0.9, 0.5, 0.1, 1e-3):
            ref = math.sqrt(2 * (n - 2) / n) * math.log((n - 2) / eps)
            assert abs(float(avg_shortest(n, eps)) - ref) <= 1e-9 * ref, (n, eps)


def bounds_average_wrong_bisector_of():
    import math

    def q_avg(keys, eps):
        return math.log(len(keys) / eps) * (keys[0] + keys[1]) / math.sqrt(2)

    return {"q_avg": q_avg}


def bounds_average_wrong_shortest_along():
    import math

    def avg_shortest(n, eps):
        return math.sqrt(2) * math.log((n - 2) / eps)

    return {"avg_shortest": avg_shortest}


def bounds_average_wrong_the_sheet():
    import math

    def avg_shortest(n, eps):
        return math.sqrt(2) * math.log(n / eps)

    return {"avg_shortest": avg_shortest}


QUESTIONS["ex-bounds-average"] = {
    "points": 2,
    "answer": ["q_avg", "avg_shortest"],
    "builds": [
        "attnsig.constructions.average_query",
        "attnsig.bounds.average_min_length",
    ],
    "describe": (
        "q_avg(keys, eps): for orthonormal keys of shape (n, d), a query of "
        "shape (d,) with\n"
        "||q|| <= 2 sqrt(2) ln(n/eps) and weight at least 1/(2+eps) on each of "
        "keys[0], keys[1];\n"
        "avg_shortest(n, eps): the length of the shortest such query, for n >= 3 "
        "keys"
    ),
    "public": [bounds_average_form],
    "hidden": [bounds_average_average_query, bounds_average_shortest],
    "wrong": {
        "bisector of length ln(n/eps)": bounds_average_wrong_bisector_of,
        "shortest along the bisector only": bounds_average_wrong_shortest_along,
        "the sheet's query as the shortest": bounds_average_wrong_the_sheet,
    },
    "rubric": [
        (
            "q = beta (k_1 + k_2) gives alpha_1 = alpha_2 = 1/(2 + (n-2) e^{-beta}), "
            "and beta = ln(n/eps) gives at least 1/(2+eps) within the allowed length "
            "(1)"
        ),
        (
            "Shortest query: the feasible set is convex and invariant under the "
            "symmetries of the keys, so q = a(k_1 + k_2) - b sum_{i>=3} k_i; "
            "Cauchy-Schwarz on a + b >= ln((n-2)/eps) gives L* = sqrt(2(n-2)/n) "
            "ln((n-2)/eps) (1)"
        ),
    ],
}


# --- ex-bounds-noisy


def bounds_noisy_form(noisy_w):
    import numpy as np

    assert callable(noisy_w), "define noisy_w as a function of n, eps, gamma"
    pair = noisy_w(3, 0.5, 0.5)
    assert np.shape(pair) == (2,), "a pair (alpha_1, alpha_2)"
    assert 0 < sum(pair) <= 1 + 1e-12, "two weights of one softmax"


def bounds_noisy_weights(noisy_w):
    """The noisy-key weights are off: recompute the softmax with the perturbed keys."""

    import math

    import numpy as np

    for n in (2, 3, 10, 1000):
        for eps in (0.9, 0.1, 0.01):
            for gamma in (0.5, 1.5):
                beta = math.log(n / eps)
                s = np.r_[gamma * beta, beta, np.zeros(n - 2)]  # the scores
                w = np.exp(s - s.max())
                w /= w.sum()
                got = np.asarray(noisy_w(n, eps, gamma), dtype=float)
                np.testing.assert_allclose(
                    got, w[:2], rtol=1e-9, err_msg=f"{(n, eps, gamma)}"
                )


def bounds_noisy_wrong_k_1():
    def noisy_w(n, eps, gamma):
        r = n / eps
        return r / (2 * r + n - 2), r / (2 * r + n - 2)

    return {"noisy_w": noisy_w}


def bounds_noisy_wrong_the_other():
    def noisy_w(n, eps, gamma):
        r = n / eps
        return r**gamma / (r**gamma + r), r / (r**gamma + r)

    return {"noisy_w": noisy_w}


def bounds_noisy_wrong_weights_swapped():
    def noisy_w(n, eps, gamma):
        r = n / eps
        return r / (r**gamma + r + n - 2), r**gamma / (r**gamma + r + n - 2)

    return {"noisy_w": noisy_w}


QUESTIONS["ex-bounds-noisy"] = {
    "points": 2,
    "answer": ["noisy_w"],
    "builds": [
        "attnsig.bounds.noisy_weights",
    ],
    "describe": (
        "noisy_w(n, eps, gamma): the pair (alpha_1, alpha_2) of weights of the "
        "query\n"
        "q = ln(n/eps)(u + k_2) on k_1 = gamma u and on k_2, for n >= 2 keys and "
        "gamma = 1/2 or 3/2"
    ),
    "public": [bounds_noisy_form],
    "hidden": [bounds_noisy_weights],
    "wrong": {
        "k_1 taken as a unit key": bounds_noisy_wrong_k_1,
        "the other keys forgotten": bounds_noisy_wrong_the_other,
        "weights swapped": bounds_noisy_wrong_weights_swapped,
    },
    "rubric": [
        (
            "Scores gamma ln r, ln r and 0 (r = n/eps), hence the weights and the "
            "ratio alpha_1/alpha_2 = r^(gamma-1) (1)"
        ),
        (
            "Not close to (v_1 + v_2)/2 for large n/eps: gamma = 3/2 copies v_1, "
            "gamma = 1/2 mostly v_2 (alpha_2 -> 1/(1+eps)); for small n/eps neither "
            "dominates; a failure of this query, not of one head (1)"
        ),
    ],
}


# --- ex-bounds-heads


def bounds_heads_form(two_heads, head1_length):
    import numpy as np

    assert callable(two_heads) and callable(head1_length), "define two functions"
    u, k2 = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    assert np.shape(two_heads(u, k2, 3, 0.1)) == (2, 3), "two queries, shape (2, d)"
    assert np.ndim(head1_length(3, 0.1)) == 0, "head1_length returns one number"


def bounds_heads_output(two_heads):
    """The two-head output is not within the tolerance of the average for some n,
    eps and gamma.
    """

    import numpy as np

    from attnsig import keysets

    rng = np.random.default_rng(59)
    for n in (3, 10, 100, 1000):
        for eps in (0.5, 0.1):
            for gamma in (0.5, 1.5):
                keys, u = keysets.noisy_keys(n, gamma, rng)
                q = np.asarray(two_heads(u.copy(), keys[1].copy(), n, eps), dtype=float)
                assert q.shape == (2, keys.shape[1]), "shape (2, d)"
                s = q @ keys.T  # (2, n) scores per head
                w = np.exp(s - s.max(axis=1, keepdims=True))
                w /= w.sum(axis=1, keepdims=True)
                values = np.eye(n)  # max ||v_i - v_j|| = sqrt(2)
                out = (w @ values).mean(axis=0)
                err = np.linalg.norm(out - (values[0] + values[1]) / 2)
                assert err <= eps / (1 + eps) * np.sqrt(2) * (1 + 1e-9), (n, eps, gamma)


def bounds_heads_length(head1_length):
    """head1_length(n, eps) is not right for every n and eps: the first head's query
    length.
    """

    import math

    for n in (2, 3, 10, 1000):
        for eps in (0.9, 0.5, 0.1, 1e-3):
            ref = 2 * math.log((n - 1) / eps)
            assert abs(float(head1_length(n, eps)) - ref) <= 1e-9 * ref, (n, eps)


def bounds_heads_wrong_one_averaging():
    import math

    import numpy as np

    def two_heads(u, k2, n, eps):
        q = math.log(n / eps) * (u + k2)
        return np.stack([q, q])

    return {"two_heads": two_heads}


def bounds_heads_wrong_the_sheet():
    import math

    import numpy as np

    def two_heads(u, k2, n, eps):
        return np.stack([math.log(n / eps) * u, math.log(n / eps) * k2])

    return {"two_heads": two_heads}


def bounds_heads_wrong_the_sufficient():
    import math

    def head1_length(n, eps):
        return 2 * math.log(n / eps)

    return {"head1_length": head1_length}


QUESTIONS["ex-bounds-heads"] = {
    "points": 2,
    "answer": ["two_heads", "head1_length"],
    "builds": [
        "attnsig.constructions.two_head_queries",
        "attnsig.bounds.head_scale_needed",
    ],
    "describe": (
        "two_heads(u, k2, n, eps): the two queries as an array of shape (2, d), "
        "row 0 = q^(1),\n"
        "row 1 = q^(2), for the unit vectors u (k_1 = gamma u) and k2 = k_2 "
        "(shape (d,));\n"
        "head1_length(n, eps): the smallest beta for which q^(1) = beta u puts "
        "weight at least\n"
        "1/(1+eps) on k_1 for both values of gamma (n >= 2 keys)"
    ),
    "public": [bounds_heads_form],
    "hidden": [bounds_heads_output, bounds_heads_length],
    "wrong": {
        "one averaging query in both heads": bounds_heads_wrong_one_averaging,
        "the sheet's head 1 (length ln(n/eps))": bounds_heads_wrong_the_sheet,
        "the sufficient length as the needed one": bounds_heads_wrong_the_sufficient,
    },
    "rubric": [
        (
            "Head 1's weight is 1/(1 + (n-1) e^{-gamma beta}), at least 1/(1+eps) "
            "iff beta >= ln((n-1)/eps)/gamma; gamma = 1/2 is the worst case (1)"
        ),
        (
            "Output: ||c^(h) - v_h|| <= (1 - alpha) max ||v_i - v_j|| for each head, "
            "and the triangle inequality on the mean of the two heads (1)"
        ),
    ],
}


# --- ex-bounds-verdict


QUESTIONS["ex-bounds-verdict"] = {
    "points": 3,
    "verdicts": True,
    "rubric": [
        (
            "Notes that (d) does not restate t (2 ln(n/eps) in (a), ln(n/eps) in "
            "(b) and (c)) and judges (d) under both readings (0.5)"
        ),
        (
            "Points to a computation for each verdict that is not 'right': the "
            "single-head pushing query for (c), the head-1 weight "
            "sqrt(n/eps)/(sqrt(n/eps) + n - 1) for (d) (0.5)"
        ),
    ],
}
