"""The questions of attention-bounds.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}
VARIANTS: dict[str, dict] = {}


# --- ex-bounds-copy


def bounds_copy_draw(seed):
    """The squared distance of k_1 from the other keys, as a fraction [p, q]. Seed 0
    gives the book's distance 1."""
    import numpy as np

    if seed == 0:
        return {"distance_squared": [1, 1]}
    rng = np.random.default_rng([seed, 1])
    # below 4 (unit keys are at most 2 apart), so that 2 / delta^2 is a simple fraction
    choices = [[1, 4], [1, 3], [1, 2], [3, 2], [9, 4], [3, 1]]
    return {"distance_squared": choices[int(rng.integers(len(choices)))]}


def bounds_copy_cell(variant):
    """Defines copy_distance: the distance of k_1 from every other key."""
    p, q = variant["distance_squared"]
    roots = {1: "1", 4: "2", 9: "3"}
    if p in roots and q in roots:
        value = roots[p] if q == 1 else f"{roots[p]} / {roots[q]}"
    else:
        value = f"math.sqrt({p})" if q == 1 else f"math.sqrt({p} / {q})"
    return f"copy_distance = {value}  # ||k_1 - k_i|| >= copy_distance for i != 1\n"


VARIANTS["bounds-copy"] = {
    "draw": bounds_copy_draw,
    "cell": bounds_copy_cell,
    "names": ["copy_distance"],
    "after": "ex-bounds-copy",
    "describe": (
        "the distance of the first key from the other keys (1 in the book; the "
        "allowed length 2 ln(n/eps) becomes 2 ln(n/eps) / copy_distance^2)"
    ),
}


def bounds_copy_form(q_copy, copy_worst):
    import numpy as np

    assert callable(q_copy) and callable(copy_worst), "define two functions"
    keys = np.array([[1.0, 0.0], [-1.0, 0.0]])
    assert np.shape(q_copy(keys, 0.1)) == (2,), "one query of shape (d,)"
    assert np.ndim(copy_worst(3, 0.1)) == 0, "copy_worst returns one number"


def bounds_copy_copy_query(q_copy, variant):
    """The copy query is too long or does not put enough weight on the copied key
    for some n and eps.
    """

    import math

    import numpy as np

    p, q = variant["distance_squared"]
    top = 1 - p / q / 2  # the largest <k_1, k_i> the distance allows
    rng = np.random.default_rng(47)

    def weights(query, keys):
        s = keys @ query
        w = np.exp(s - s.max())
        return w / w.sum()

    def key_set(n, adversarial):
        """Unit keys (n, 4), k_1 = keys[0]; the adversarial set puts every other key
        at the smallest distance, its directions off k_1 summing to zero."""
        if adversarial:
            cosines = np.full(n - 1, top)
            angles = 2 * np.pi * np.arange(n - 1) / (n - 1)
            off = np.zeros((n - 1, 4))
            off[:, 1], off[:, 2] = np.cos(angles), np.sin(angles)
        else:
            cosines = rng.uniform(-1, top, n - 1)
            off = rng.standard_normal((n - 1, 4))
            off[:, 0] = 0
            off /= np.linalg.norm(off, axis=1, keepdims=True)
        keys = np.zeros((n, 4))
        keys[0, 0] = 1
        keys[1:] = cosines[:, None] * keys[0] + np.sqrt(1 - cosines**2)[:, None] * off
        rotation, _ = np.linalg.qr(rng.standard_normal((4, 4)))
        return keys @ rotation.T

    for n in (2, 3, 10, 100):
        for eps in (0.5, 0.1, 0.001):
            allowed = 2 * math.log(n / eps) * q / p  # the question's length
            for adversarial in (True, False, False, False):
                keys = key_set(n, adversarial)
                found = np.asarray(q_copy(keys.copy(), eps), dtype=float)
                assert found.shape == (4,), "shape (d,)"
                assert np.linalg.norm(found) <= allowed * (1 + 1e-9), "length"
                assert weights(found, keys)[0] * (1 + eps) >= 1 - 1e-12, (n, eps)


def bounds_copy_copy_worst(copy_worst, variant):
    """copy_worst(n, eps) does not give the worst-case length for every n and eps:
    redo the bound's algebra.
    """

    import math

    import numpy as np

    p, q = variant["distance_squared"]
    top = 1 - p / q / 2  # <k_1, k_i> at the smallest distance

    def shortest(n, eps):
        """The shortest query on the worst key set, by bisection on its weight:
        along k_1 for n >= 3 (the set is symmetric about k_1), along k_1 - k_2 for
        n = 2."""
        k1 = np.array([1.0, 0.0, 0.0])
        angles = 2 * np.pi * np.arange(n - 1) / (n - 1)
        off = np.stack([0 * angles, np.cos(angles), np.sin(angles)], axis=1)
        keys = np.vstack([k1, top * k1 + math.sqrt(1 - top**2) * off])
        direction = k1 if n > 2 else (k1 - keys[1]) / np.linalg.norm(k1 - keys[1])
        low, high = 0.0, 1.0
        while True:  # an upper end
            s = keys @ (high * direction)
            w = np.exp(s - s.max())
            if w[0] / w.sum() * (1 + eps) >= 1:
                break
            low, high = high, 2 * high
        for _ in range(200):
            mid = (low + high) / 2
            s = keys @ (mid * direction)
            w = np.exp(s - s.max())
            low, high = (low, mid) if w[0] / w.sum() * (1 + eps) >= 1 else (mid, high)
        return high

    for n in (2, 3, 4, 10, 1000):
        for eps in (0.9, 0.5, 0.1, 1e-3):
            ref = shortest(n, eps)
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
    "builds": ["attnsig.bounds.*", "attnsig.constructions.*"],
    "describe": (
        "q_copy(keys, eps): for unit keys of shape (n, d) with k_1 = keys[0] at "
        "distance >= copy_distance\n"
        "from every other key, a query of shape (d,) with\n"
        "||q|| <= 2 ln(n/eps) / copy_distance^2 and weight at least 1/(1+eps) on "
        "k_1;\n"
        "copy_worst(n, eps): the smallest length L such that every such key set "
        "of n >= 2 keys in d >= 3 dimensions\n"
        "has a query of length L with weight at least 1/(1+eps) on k_1 (the "
        "worst case)"
    ),
    "variant": "bounds-copy",
    "public": [bounds_copy_form],
    "hidden": [bounds_copy_copy_query, bounds_copy_copy_worst],
    "wrong": {
        "half the length": bounds_copy_wrong_half_the,
        "the n >= 3 formula at n = 2": bounds_copy_wrong_the_n,
        "the sheet's bound as the worst case": bounds_copy_wrong_the_sheet,
    },
    "rubric": [
        (
            "||k_1 - k_i||^2 = 2 - 2<k_1, k_i> gives <k_1, k_i> <= 1 - delta^2/2 "
            "(delta = copy_distance; the bound is 1/2 in the book), so q = beta k_1 "
            "has score gaps >= beta delta^2/2 and alpha_1 >= 1/(1 + (n-1) "
            "e^{-beta delta^2/2}) >= 1/(1+eps) at beta = (2/delta^2) ln(n/eps) (1)"
        ),
        (
            "Worst case: keys at distance exactly delta with the w_i summing to zero "
            "and the AM-GM inequality show that no query shorter than (2/delta^2) "
            "ln((n-1)/eps) works (n >= 3); ln(1/eps)/delta for n = 2 by "
            "Cauchy-Schwarz (1)"
        ),
    ],
}


# --- ex-bounds-average


def bounds_average_draw(seed):
    """How many keys the averaging query shares its weight among. Seed 0 gives the
    book's two."""

    if seed == 0:
        return {"n_averaged": 2}
    # The roster's seeds are random: cycling through m = 3, 4, 5 spreads a class evenly
    # and gives neighbouring seeds different numbers.
    return {"n_averaged": 3 + (seed - 1) % 3}


def bounds_average_cell(variant):
    """Defines n_averaged: the number m of keys to average."""
    m = variant["n_averaged"]
    return f"n_averaged = {m}  # average the values of the first {m} keys\n"


VARIANTS["bounds-average"] = {
    "draw": bounds_average_draw,
    "cell": bounds_average_cell,
    "names": ["n_averaged"],
    "after": "ex-bounds-average",
    "describe": (
        "the number m of keys to average, here and in the next exercise (2 in the "
        "book: read the first two keys as the first m, 1/(2+eps) as 1/(m+eps), 2 "
        "sqrt(2) ln(n/eps) as 2 sqrt(m) ln(n/eps), u + k_2 as u + k_2 + ... + k_m "
        "and the target (v_1 + v_2)/2 as the mean of v_1, ..., v_m)"
    ),
}


def bounds_average_form(q_avg, avg_shortest):
    import numpy as np

    assert callable(q_avg) and callable(avg_shortest), "define two functions"
    assert np.shape(q_avg(np.eye(6), 0.1)) == (6,), "one query of shape (d,)"
    assert np.ndim(avg_shortest(7, 0.1)) == 0, "avg_shortest returns one number"


def bounds_average_average_query(q_avg, variant):
    """The averaging query is too long or does not split enough weight among the
    averaged keys for some n and eps.
    """

    import math

    import numpy as np

    m = variant["n_averaged"]
    rng = np.random.default_rng(53)
    for n in (m, m + 1, 10, 50):
        for eps in (0.5, 0.1, 0.01):
            basis, _ = np.linalg.qr(rng.standard_normal((n + 2, n + 2)))
            keys = basis[:n]  # (n, n + 2), orthonormal rows
            q = np.asarray(q_avg(keys.copy(), eps), dtype=float)
            assert q.shape == (n + 2,), "shape (d,)"
            allowed = 2 * math.sqrt(m) * math.log(n / eps)  # the question's length
            assert np.linalg.norm(q) <= allowed * (1 + 1e-9), "length"
            s = keys @ q
            w = np.exp(s - s.max())
            w /= w.sum()
            assert w[:m].min() * (m + eps) >= 1 - 1e-12, (n, eps)


def bounds_average_shortest(avg_shortest, variant):
    """avg_shortest(n, eps) is not the shortest length for every n and eps: check
    the factor the averaged keys share.
    """

    import math

    m = variant["n_averaged"]

    def good(a, b, n, eps):
        """Whether a (k_1 + ... + k_m) - b (k_{m+1} + ... + k_n) averages: the
        softmax weight of k_1 (scores a for the m averaged keys, -b for the rest)."""
        top = max(a, -b)
        w1 = math.exp(a - top) / (m * math.exp(a - top) + (n - m) * math.exp(-b - top))
        return w1 * (m + eps) >= 1

    def length(theta, n, eps):
        """The shortest good query in the direction theta of that plane."""
        a, b = math.cos(theta) / math.sqrt(m), math.sin(theta) / math.sqrt(n - m)
        low, high = 0.0, 1.0
        while not good(high * a, high * b, n, eps):
            low, high = high, 2 * high
        for _ in range(60):
            mid = (low + high) / 2
            low, high = (low, mid) if good(mid * a, mid * b, n, eps) else (mid, high)
        return high

    def shortest(n, eps):
        """By symmetry the shortest query lies in that plane: golden section."""
        lo, hi = 0.0, math.pi / 2
        ratio = (math.sqrt(5) - 1) / 2
        for _ in range(40):
            x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            if length(x1, n, eps) <= length(x2, n, eps):
                hi = x2
            else:
                lo = x1
        return length((lo + hi) / 2, n, eps)

    for n in (m + 1, m + 2, 10, 1000):
        for eps in (0.9, 0.5, 0.1, 1e-3):
            ref = shortest(n, eps)
            assert abs(float(avg_shortest(n, eps)) - ref) <= 1e-8 * ref, (n, eps)


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
    "builds": ["attnsig.bounds.*", "attnsig.constructions.*"],
    "describe": (
        "q_avg(keys, eps): for orthonormal keys of shape (n, d), a query of "
        "shape (d,) with\n"
        "||q|| <= 2 sqrt(m) ln(n/eps) and weight at least 1/(m+eps) on each of "
        "keys[0], ..., keys[m-1],\n"
        "for m = n_averaged <= n;\n"
        "avg_shortest(n, eps): the length of the shortest such query, for n >= m + 1 "
        "keys"
    ),
    "variant": "bounds-average",
    "public": [bounds_average_form],
    "hidden": [bounds_average_average_query, bounds_average_shortest],
    "wrong": {
        "bisector of length ln(n/eps)": bounds_average_wrong_bisector_of,
        "shortest along the bisector only": bounds_average_wrong_shortest_along,
        "the sheet's query as the shortest": bounds_average_wrong_the_sheet,
    },
    "rubric": [
        (
            "q = beta (k_1 + ... + k_m) (m = n_averaged, 2 in the book) gives "
            "alpha_1 = ... = alpha_m = 1/(m + (n-m) e^{-beta}), and beta = ln(n/eps) "
            "gives at least 1/(m+eps) within the allowed length (1)"
        ),
        (
            "Shortest query: the feasible set is convex and invariant under the "
            "symmetries of the keys, so q = a(k_1 + ... + k_m) - b sum_{i>m} k_i; "
            "Cauchy-Schwarz on a + b >= ln((n-m)/eps) gives L* = sqrt(m(n-m)/n) "
            "ln((n-m)/eps) (1)"
        ),
    ],
}


# --- ex-bounds-noisy


def bounds_noisy_form(noisy_w):
    import numpy as np

    assert callable(noisy_w), "define noisy_w as a function of n, eps, gamma"
    pair = noisy_w(6, 0.5, 0.5)
    assert np.shape(pair) == (2,), "a pair (alpha_1, alpha_2)"
    assert 0 < sum(pair) <= 1 + 1e-12, "two weights of one softmax"


def bounds_noisy_weights(noisy_w, variant):
    """The noisy-key weights are off: recompute the softmax with the perturbed keys."""

    import math

    import numpy as np

    m = variant["n_averaged"]
    for n in (m, m + 1, 10, 1000):
        for eps in (0.9, 0.1, 0.01):
            for gamma in (0.5, 1.5, 0.25, 4 / 3):
                keys = np.eye(n)  # k_1 = gamma u with u = e_1; k_i = e_i
                keys[0, 0] = gamma
                query = math.log(n / eps) * np.r_[np.ones(m), np.zeros(n - m)]
                s = keys @ query
                w = np.exp(s - s.max())
                w /= w.sum()
                got = np.asarray(noisy_w(n, eps, gamma), dtype=float)
                assert got.shape == (2,), "a pair (alpha_1, alpha_2)"
                assert np.all(np.abs(got - w[:2]) <= 1e-9 * w[:2]), (n, eps, gamma)


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
        "q = ln(n/eps)(u + k_2 + ... + k_m) (m = n_averaged: the averaging query "
        "with u in place\n"
        "of k_1) on k_1 = gamma u and on k_2, for n >= m keys and a scale gamma > 0"
    ),
    "variant": "bounds-average",
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
            "gamma = 1/2 mostly v_2 (alpha_2 -> 1/(1+eps); shared by v_2, ..., v_m "
            "when m = n_averaged > 2); for small n/eps neither "
            "dominates; a failure of this query, not of one head (1)"
        ),
    ],
}


# --- ex-bounds-heads


def bounds_heads_draw(seed):
    """The two scales gamma = 1 - h and 1 + h of the noisy key, as fractions. Seed 0
    gives the book's 1/2 and 3/2."""

    if seed == 0:
        return {"noisy_scales": ["1/2", "3/2"]}
    # Cycled, as in bounds_average_draw: the roster's seeds are random.
    h = ["1/4", "1/3", "2/3", "3/4"][(seed - 1) % 4]
    num, den = map(int, h.split("/"))
    return {"noisy_scales": [f"{den - num}/{den}", f"{den + num}/{den}"]}


def bounds_heads_cell(variant):
    """Defines noisy_scales: the two values of gamma."""
    low, high = (g.replace("/", " / ") for g in variant["noisy_scales"])
    return f"noisy_scales = ({low}, {high})  # the two values of gamma\n"


VARIANTS["bounds-heads"] = {
    "draw": bounds_heads_draw,
    "cell": bounds_heads_cell,
    "names": ["noisy_scales"],
    "after": "ex-bounds-heads",
    "describe": (
        "the two scales of the noisy key (1/2 and 3/2 in the book; both values of "
        "gamma in this exercise are yours)"
    ),
}


def bounds_heads_form(two_heads, head1_length):
    import numpy as np

    assert callable(two_heads) and callable(head1_length), "define two functions"
    u, k2 = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    assert np.shape(two_heads(u, k2, 3, 0.1)) == (2, 3), "two queries, shape (2, d)"
    assert np.ndim(head1_length(3, 0.1)) == 0, "head1_length returns one number"


def bounds_heads_output(two_heads, variant):
    """The two-head output is not within the tolerance of the average for some n,
    eps and gamma.
    """

    from fractions import Fraction

    import numpy as np

    gammas = [float(Fraction(g)) for g in variant["noisy_scales"]]
    rng = np.random.default_rng(59)
    for n in (3, 10, 100, 1000):
        for eps in (0.5, 0.1):
            for gamma in gammas:
                v = rng.standard_normal(n)
                basis = np.eye(n) - 2 * np.outer(v, v) / (v @ v)  # a reflection
                u, keys = basis[0], basis.copy()  # orthonormal rows
                keys[0] = gamma * u
                q = np.asarray(two_heads(u.copy(), keys[1].copy(), n, eps), dtype=float)
                assert q.shape == (2, n), "shape (2, d)"
                s = q @ keys.T  # (2, n) scores per head
                w = np.exp(s - s.max(axis=1, keepdims=True))
                w /= w.sum(axis=1, keepdims=True)
                values = np.eye(n)  # max ||v_i - v_j|| = sqrt(2)
                out = (w @ values).mean(axis=0)
                err = np.linalg.norm(out - (values[0] + values[1]) / 2)
                assert err <= eps / (1 + eps) * np.sqrt(2) * (1 + 1e-9), (n, eps, gamma)


def bounds_heads_length(head1_length, variant):
    """head1_length(n, eps) is not right for every n and eps: the first head's query
    length.
    """

    from fractions import Fraction

    import numpy as np

    gammas = [float(Fraction(g)) for g in variant["noisy_scales"]]

    def copies(beta, gamma, n, eps):
        """Whether beta u puts weight at least 1/(1+eps) on k_1 = gamma u."""
        s = np.r_[gamma * beta, np.zeros(n - 1)]  # the other keys are orthogonal to u
        w = np.exp(s - s.max())
        return w[0] / w.sum() * (1 + eps) >= 1

    def needed(gamma, n, eps):
        """The smallest such beta, by bisection."""
        low, high = 0.0, 1.0
        while not copies(high, gamma, n, eps):
            low, high = high, 2 * high
        for _ in range(200):
            mid = (low + high) / 2
            low, high = (low, mid) if copies(mid, gamma, n, eps) else (mid, high)
        return high

    for n in (2, 3, 10, 1000):
        for eps in (0.9, 0.5, 0.1, 1e-3):
            ref = max(needed(gamma, n, eps) for gamma in gammas)
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
    "builds": ["attnsig.bounds.*", "attnsig.constructions.*"],
    "describe": (
        "two_heads(u, k2, n, eps): the two queries as an array of shape (2, d), "
        "row 0 = q^(1),\n"
        "row 1 = q^(2), for the unit vectors u (k_1 = gamma u) and k2 = k_2 "
        "(shape (d,));\n"
        "head1_length(n, eps): the smallest beta for which q^(1) = beta u puts "
        "weight at least\n"
        "1/(1+eps) on k_1 for both values of gamma in noisy_scales (n >= 2 keys)"
    ),
    "variant": "bounds-heads",
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
            "iff beta >= ln((n-1)/eps)/gamma; the smaller gamma of noisy_scales (1/2 "
            "in the book) is the worst case (1)"
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
