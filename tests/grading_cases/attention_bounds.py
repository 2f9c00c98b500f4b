"""Answers to attention-bounds.ipynb's checked questions by other routes
(tests/test_grading_cases.py), for the student's numbers (`variant`): queries by hand
or found by bisection, lengths by rearranged formulas, weights by a numerical
softmax."""


def _weights(q, keys):
    import numpy as np

    s = np.asarray(keys) @ q
    w = np.exp(s - s.max())
    return w / w.sum()


def _shortest(direction, keys, good, top):
    """The shortest multiple of `direction` (at most `top`) whose weights are good."""
    low, high = 0.0, top
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (low, mid) if good(_weights(mid * direction, keys)) else (mid, high)
    return high * direction


def _distance_squared(variant):
    from fractions import Fraction

    p, q = variant["distance_squared"]
    return Fraction(p, q)


def _scales(variant):
    from fractions import Fraction

    return [Fraction(g) for g in variant["noisy_scales"]]


def copy_by_hand(variant):
    """q = (2 / delta^2) ln(n/eps) k_1: every score gap is at least ln(n/eps)."""
    import math

    import numpy as np

    factor = float(2 / _distance_squared(variant))

    def q_copy(keys, eps):
        return factor * math.log(len(keys) / eps) * np.asarray(keys[0], dtype=float)

    def copy_worst(n, eps):
        if n == 2:  # Cauchy-Schwarz along k_1 - k_2
            return math.log(1 / eps) / math.sqrt(float(_distance_squared(variant)))
        return factor * math.log((n - 1) / eps)

    return {"q_copy": q_copy, "copy_worst": copy_worst}


def copy_by_bisection(variant):
    """The shortest multiple of k_1 that copies, found on the keys themselves."""
    import math

    import numpy as np

    gap = float(_distance_squared(variant)) / 2  # 1 - the largest <k_1, k_i>

    def q_copy(keys, eps):
        keys = np.asarray(keys, dtype=float)
        top = math.log(len(keys) / eps) / gap
        return _shortest(keys[0], keys, lambda w: w[0] >= 1 / (1 + eps), top)

    def copy_worst(n, eps):
        if n == 2:
            return -math.log(eps) / math.sqrt(2 * gap)
        return (math.log(n - 1) - math.log(eps)) / gap

    return {"q_copy": q_copy, "copy_worst": copy_worst}


def average_by_hand(variant):
    import math

    m = variant["n_averaged"]

    def q_avg(keys, eps):
        return math.log(len(keys) / eps) * sum(keys[:m])

    def avg_shortest(n, eps):
        return math.sqrt(m * (n - m) / n) * math.log((n - m) / eps)

    return {"q_avg": q_avg, "avg_shortest": avg_shortest}


def average_by_bisection(variant):
    """Along the sum of the averaged keys; the shortest length from the Lagrange
    condition a / b = (n - m) / m for q = a (k_1 + ... + k_m) - b (the rest)."""
    import math

    import numpy as np

    m = variant["n_averaged"]

    def q_avg(keys, eps):
        keys = np.asarray(keys, dtype=float)
        top = 2 * math.sqrt(m) * math.log(len(keys) / eps)
        mean = keys[:m].sum(axis=0) / math.sqrt(m)
        return _shortest(mean, keys, lambda w: min(w[:m]) >= 1 / (m + eps), top)

    def avg_shortest(n, eps):
        gap = math.log(n - m) - math.log(eps)  # a + b
        a, b = gap * (n - m) / n, gap * m / n
        return math.hypot(math.sqrt(m) * a, math.sqrt(n - m) * b)

    return {"q_avg": q_avg, "avg_shortest": avg_shortest}


def noisy_by_a_numerical_softmax(variant):
    import math

    import numpy as np

    m = variant["n_averaged"]

    def noisy_w(n, eps, gamma):
        beta = math.log(n / eps)
        scores = np.concatenate([[gamma * beta], np.full(m - 1, beta), np.zeros(n - m)])
        return _weights(scores, np.eye(n))[:2]

    return {"noisy_w": noisy_w}


def noisy_as_logistic_weights(variant):
    m = variant["n_averaged"]

    def noisy_w(n, eps, gamma):
        r = n / eps
        a1 = 1 / (1 + (m - 1) * r ** (1 - gamma) + (n - m) * r**-gamma)
        a2 = 1 / (r ** (gamma - 1) + (m - 1) + (n - m) / r)
        return [a1, a2]

    return {"noisy_w": noisy_w}


def heads_by_hand(variant):
    import math

    import numpy as np

    low = float(min(_scales(variant)))

    def two_heads(u, k2, n, eps):
        beta = math.log(n / eps)
        return np.array([beta / low * np.asarray(u), beta * np.asarray(k2)])

    def head1_length(n, eps):
        return math.log((n - 1) / eps) / low

    return {"two_heads": two_heads, "head1_length": head1_length}


def heads_longer_queries(variant):
    """Longer queries than needed only sharpen both heads."""
    import math

    import numpy as np

    gammas = _scales(variant)

    def two_heads(u, k2, n, eps):
        beta = math.log(n / eps)
        return np.vstack([1.5 * beta / float(min(gammas)) * u, 2 * beta * k2]).tolist()

    def head1_length(n, eps):
        return max((math.log(n - 1) - math.log(eps)) / float(g) for g in gammas)

    return {"two_heads": two_heads, "head1_length": head1_length}


def copy_at_the_worst_case_length(variant):
    """q = (2 / delta^2) ln((n-1)/eps) k_1, the worst case's length for every n: on a
    key set at the smallest distance its weight on k_1 is exactly 1/(1+eps)."""
    import math

    import numpy as np

    factor = float(2 / _distance_squared(variant))

    def q_copy(keys, eps):
        keys = np.asarray(keys, dtype=float)
        return factor * math.log((len(keys) - 1) / eps) * keys[0]

    def copy_worst(n, eps):
        delta = math.sqrt(float(_distance_squared(variant)))
        return factor * math.log((n - 1) / eps) if n > 2 else -math.log(eps) / delta

    return {"q_copy": q_copy, "copy_worst": copy_worst}


def heads_at_the_needed_lengths(variant):
    """Each head exactly as long as it must be: weight exactly 1/(1+eps) on its key
    (head 1 for the smaller gamma), no slack in the output bound."""
    import math

    import numpy as np

    low = float(min(_scales(variant)))

    def head1_length(n, eps):
        return math.log((n - 1) / eps) / low

    def two_heads(u, k2, n, eps):
        head2 = math.log((n - 1) / eps)  # k_2 has length 1, the others score 0
        return np.array([head1_length(n, eps) * np.asarray(u), head2 * np.asarray(k2)])

    return {"two_heads": two_heads, "head1_length": head1_length}


def copy_as_a_sympy_array(variant):
    """The bisection's query returned as a 1-d SymPy Array of Floats."""
    import sympy as sp

    answers = copy_by_bisection(variant)
    found = answers["q_copy"]

    def q_copy(keys, eps):
        return sp.Array([sp.Float(float(x)) for x in found(keys, eps)])

    return {**answers, "q_copy": q_copy}


ALTERNATIVES = {
    "ex-bounds-copy": [
        copy_by_hand,
        copy_by_bisection,
        copy_at_the_worst_case_length,
        copy_as_a_sympy_array,
    ],
    "ex-bounds-average": [average_by_hand, average_by_bisection],
    "ex-bounds-noisy": [noisy_by_a_numerical_softmax, noisy_as_logistic_weights],
    "ex-bounds-heads": [
        heads_by_hand,
        heads_longer_queries,
        heads_at_the_needed_lengths,
    ],
}
