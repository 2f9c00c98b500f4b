"""Answers to one-head.ipynb's checked questions by other routes
(tests/test_grading_cases.py), on the chapter's test bed (means, values, a, b) and with
the notebook's names that the typical mistakes read."""

import math


def _bed():
    import numpy as np

    bed_rng = np.random.default_rng(20240501)
    n, d = 6, 8
    means = np.linalg.qr(bed_rng.normal(size=(d, n)))[0].T  # (n, d), orthonormal rows
    values = np.linalg.qr(bed_rng.normal(size=(n, n)))[0]
    push = math.log((n - 2) * (1 - 0.01) / (2 * 0.01))
    return {"n": n, "means": means, "values": values, "a": 0, "b": 1, "eps": 1e-3,
            "beta": 8.5, "spread": 0.5, "push": push}  # fmt: skip


def gap_by_hand():
    def smallest_gap(n_keys, eps):
        return math.log(n_keys - 1) + math.log1p(-eps) - math.log(eps)

    return {"smallest_gap": smallest_gap}


def gap_by_root_finding():
    """The gap Delta where e^Delta / (e^Delta + n - 1) = 1 - eps, by brentq."""
    from scipy.optimize import brentq

    def smallest_gap(n_keys, eps):
        def f(x):
            return 1 / (1 + (n_keys - 1) * math.exp(-x)) - (1 - eps)

        return brentq(f, -50, 60, xtol=1e-14, rtol=1e-15)

    return {"smallest_gap": smallest_gap}


def projection_by_pseudo_inverse():
    """M = [A 0] [A B]^+ : the coordinates in the basis, then A's part only."""
    import numpy as np

    def keep_a(A, B):
        return A @ np.linalg.pinv(np.hstack([A, B]))[: A.shape[1]]

    def is_unique(d, m, p):
        return m + p == d

    return {"keep_a": keep_a, "is_unique": is_unique}


def projection_orthogonal():
    """A and B span orthogonal spaces here: the orthogonal projection A A^T."""

    def keep_a(A, B):
        return (A @ A.T).tolist()

    def is_unique(d, m, p):
        return not (d - m - p)

    return {"keep_a": keep_a, "is_unique": is_unique}


def average_by_formula():
    bed = _bed()
    n, eps = bed["n"], bed["eps"]
    length = math.log((n - 2) * (1 - eps) / (2 * eps))
    return {**bed, "q_eps": length * (bed["means"][0] + bed["means"][1])}


def average_by_least_squares():
    """The query whose scores are (L, L, 0, ...), by least squares on the means."""
    import numpy as np

    bed = _bed()
    n, eps = bed["n"], bed["eps"]
    scores = np.zeros(n)
    scores[:2] = np.log((n - 2) * (1 - eps) / (2 * eps))
    return {**bed, "q_eps": np.linalg.lstsq(bed["means"], scores, rcond=None)[0]}


def small_noise_by_formula():
    found = average_by_formula()
    return {**found, "q_win": found["q_eps"]}


def small_noise_longer():
    bed = _bed()
    return {**bed, "q_win": 10.0 * (bed["means"][0] + bed["means"][1])}


def two_heads_by_copy_gaps():
    import numpy as np

    bed = _bed()
    length = math.log((bed["n"] - 1) * (1 - 1e-3) / 1e-3)
    means = bed["means"]
    return {**bed, "q_heads": np.stack([length * means[0], length * means[1]])}


def two_heads_longer_as_lists():
    bed = _bed()
    means = bed["means"]
    return {**bed, "q_heads": [list(12 * means[0]), list(12 * means[1])]}


def backwards_by_scipy():
    from scipy.stats import norm

    return {"spread": 0.5, "p_backwards": norm.cdf(-1 / math.sqrt(0.5))}


def backwards_by_simulation():
    import numpy as np

    gamma = np.random.default_rng(8).normal(1.0, math.sqrt(0.5), size=400_000)
    return {"spread": 0.5, "p_backwards": float(np.mean(gamma < 0))}


def robust_by_hand():
    """Scores 0 on keys a and b whatever their length, -L on the others."""
    from scipy.stats import norm

    bed = _bed()
    means = bed["means"]
    phi = norm.cdf(math.sqrt(2))
    q = -10.0 * means[2:].sum(axis=0)
    return {**bed, "q_robust": q, "p_one_head": phi**4, "p_two_heads": phi**2}


def robust_by_least_squares():
    import numpy as np

    bed = _bed()
    scores = np.r_[0.0, 0.0, -8.0 * np.ones(bed["n"] - 2)]
    q = np.linalg.lstsq(bed["means"], scores, rcond=None)[0]
    phi = 0.5 * math.erfc(-1.0)
    return {**bed, "q_robust": q, "p_one_head": phi**4, "p_two_heads": phi * phi}


def _fractions(c, values, radius=0.1):
    import numpy as np

    targets = {
        "v_a": values[0],
        "v_b": values[1],
        "average": (values[0] + values[1]) / 2,
    }
    return {k: float(np.mean(np.linalg.norm(c - t, axis=1) <= radius))
            for k, t in targets.items()}  # fmt: skip


def noisy_key_by_simulating_keys():
    """40000 key sets: isotropic noise nu = 1e-4, key a's length 1 + N(0, 1/2)."""
    import numpy as np

    bed = _bed()
    means, values = bed["means"], bed["values"]
    rng = np.random.default_rng(45)
    keys = means + 0.01 * rng.normal(size=(40000, *means.shape))
    keys[:, 0] += math.sqrt(0.5) * rng.normal(size=(40000, 1)) * means[0]
    s = keys @ (50.0 * (means[0] + means[1]))
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    c = (w / w.sum(axis=-1, keepdims=True)) @ values
    return {**bed, "fractions_single": _fractions(c, values)}


def noisy_key_by_drawing_scores():
    """The scores drawn directly: 50 (gamma [i = a] + [i = b]) plus N(0, 1/2) noise
    (50 * 0.01 * |mu_a + mu_b|), gamma ~ N(1, 1/2)."""
    import numpy as np

    bed = _bed()
    rng = np.random.default_rng(46)
    num, n = 40000, bed["n"]
    s = math.sqrt(0.5) * rng.normal(size=(num, n))
    s[:, 0] += 50 * rng.normal(1.0, math.sqrt(0.5), size=num)
    s[:, 1] += 50
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    c = (w / w.sum(axis=-1, keepdims=True)) @ bed["values"]
    return {**bed, "fractions_single": _fractions(c, bed["values"])}


ALTERNATIVES = {
    "ex-onehead-copy": [gap_by_hand, gap_by_root_finding],
    "ex-onehead-noisy-key": [noisy_key_by_simulating_keys, noisy_key_by_drawing_scores],
    "ex-onehead-projection": [projection_by_pseudo_inverse, projection_orthogonal],
    "ex-onehead-average": [average_by_formula, average_by_least_squares],
    "ex-onehead-small-noise": [small_noise_by_formula, small_noise_longer],
    "ex-onehead-two-heads": [two_heads_by_copy_gaps, two_heads_longer_as_lists],
    "ex-onehead-two-heads-noisy": [backwards_by_scipy, backwards_by_simulation],
    "ex-onehead-one-head-robust": [robust_by_hand, robust_by_least_squares],
}
