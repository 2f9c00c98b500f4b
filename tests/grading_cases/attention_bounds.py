"""Answers to attention-bounds.ipynb's checked questions by other routes
(tests/test_grading_cases.py): queries by hand or found by bisection, lengths by
rearranged formulas, weights by a numerical softmax."""


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


def copy_by_hand():
    import math

    import numpy as np

    def q_copy(keys, eps):
        return 2 * math.log(len(keys) / eps) * np.asarray(keys[0], dtype=float)

    def copy_worst(n, eps):
        return math.log(1 / eps) if n == 2 else 2 * math.log((n - 1) / eps)

    return {"q_copy": q_copy, "copy_worst": copy_worst}


def copy_by_bisection():
    import math

    import numpy as np

    def q_copy(keys, eps):
        keys = np.asarray(keys, dtype=float)
        top = 2 * math.log(len(keys) / eps)
        return _shortest(keys[0], keys, lambda w: w[0] >= 1 / (1 + eps), top)

    def copy_worst(n, eps):
        return -math.log(eps) if n == 2 else 2 * (math.log(n - 1) - math.log(eps))

    return {"q_copy": q_copy, "copy_worst": copy_worst}


def average_by_hand():
    import math

    def q_avg(keys, eps):
        return math.log(len(keys) / eps) * (keys[0] + keys[1])

    def avg_shortest(n, eps):
        return math.sqrt(2 * (n - 2) / n) * math.log((n - 2) / eps)

    return {"q_avg": q_avg, "avg_shortest": avg_shortest}


def average_by_bisection():
    import math

    import numpy as np

    def q_avg(keys, eps):
        keys = np.asarray(keys, dtype=float)
        top = 2 * math.sqrt(2) * math.log(len(keys) / eps)
        half = (keys[0] + keys[1]) / np.linalg.norm(keys[0] + keys[1])
        return _shortest(half, keys, lambda w: min(w[:2]) >= 1 / (2 + eps), top)

    def avg_shortest(n, eps):
        return math.sqrt(2 - 4 / n) * (math.log(n - 2) - math.log(eps))

    return {"q_avg": q_avg, "avg_shortest": avg_shortest}


def noisy_by_a_numerical_softmax():
    import math

    import numpy as np

    def noisy_w(n, eps, gamma):
        beta = math.log(n / eps)
        scores = np.concatenate([[gamma * beta, beta], np.zeros(n - 2)])
        return _weights(scores, np.eye(n))[:2]

    return {"noisy_w": noisy_w}


def noisy_as_logistic_weights():
    def noisy_w(n, eps, gamma):
        r = n / eps
        a1 = 1 / (1 + r ** (1 - gamma) + (n - 2) * r**-gamma)
        a2 = 1 / (r ** (gamma - 1) + 1 + (n - 2) / r)
        return [a1, a2]

    return {"noisy_w": noisy_w}


def heads_by_hand():
    import math

    import numpy as np

    def two_heads(u, k2, n, eps):
        beta = math.log(n / eps)
        return np.array([2 * beta * np.asarray(u), beta * np.asarray(k2)])

    def head1_length(n, eps):
        return 2 * math.log((n - 1) / eps)

    return {"two_heads": two_heads, "head1_length": head1_length}


def heads_longer_queries():
    """Longer queries than needed only sharpen both heads."""
    import math

    import numpy as np

    def two_heads(u, k2, n, eps):
        beta = math.log(n / eps)
        return np.vstack([3 * beta * u, 2 * beta * k2]).tolist()

    def head1_length(n, eps):
        return 2 * (math.log(n - 1) - math.log(eps))

    return {"two_heads": two_heads, "head1_length": head1_length}


ALTERNATIVES = {
    "ex-bounds-copy": [copy_by_hand, copy_by_bisection],
    "ex-bounds-average": [average_by_hand, average_by_bisection],
    "ex-bounds-noisy": [noisy_by_a_numerical_softmax, noisy_as_logistic_weights],
    "ex-bounds-heads": [heads_by_hand, heads_longer_queries],
}
