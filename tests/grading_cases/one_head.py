"""Answers to one-head.ipynb's checked questions by other routes
(tests/test_grading_cases.py), on the student's test bed (means, values, a, b, built
from the variant as the data cell builds them) and with the notebook's names that the
typical mistakes read."""

import math
from fractions import Fraction


def _bed(variant):
    """The notebook's names after the data cells, for the variant's numbers."""
    import numpy as np

    bed_rng = np.random.default_rng(variant["bed_seed"])
    n, d = variant["n"], variant["d"]
    means = np.linalg.qr(bed_rng.normal(size=(d, n)))[0].T  # (n, d), orthonormal rows
    values = np.linalg.qr(bed_rng.normal(size=(n, n)))[0]
    push = math.log((n - 2) * (1 - 0.01) / (2 * 0.01))
    names = {"n": n, "means": means, "values": values, "a": variant["a"],
             "b": variant["b"], "beta": 8.5, "push": push}  # fmt: skip
    if "eps" in variant:
        names["eps"] = variant["eps"]
    if "spread" in variant:
        names["spread"] = float(Fraction(variant["spread"]))
        names["beta"] = float(variant["beta"])
    return names


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


def average_by_formula(variant):
    bed = _bed(variant)
    n, eps, a, b = bed["n"], bed["eps"], bed["a"], bed["b"]
    length = math.log((n - 2) * (1 - eps) / (2 * eps))
    return {**bed, "q_eps": length * (bed["means"][a] + bed["means"][b])}


def average_by_least_squares(variant):
    """The query whose scores are (L, L, 0, ...), by least squares on the means."""
    import numpy as np

    bed = _bed(variant)
    n, eps = bed["n"], bed["eps"]
    scores = np.zeros(n)
    scores[[bed["a"], bed["b"]]] = np.log((n - 2) * (1 - eps) / (2 * eps))
    return {**bed, "q_eps": np.linalg.lstsq(bed["means"], scores, rcond=None)[0]}


def small_noise_by_formula(variant):
    found = average_by_formula(variant)
    return {**found, "q_win": found["q_eps"]}


def small_noise_longer(variant):
    bed = _bed(variant)
    means = bed["means"]
    return {**bed, "q_win": 10.0 * (means[bed["a"]] + means[bed["b"]])}


def two_heads_by_copy_gaps(variant):
    import numpy as np

    bed = _bed(variant)
    length = math.log((bed["n"] - 1) * (1 - 1e-3) / 1e-3)
    means = bed["means"]
    heads = np.stack([length * means[bed["a"]], length * means[bed["b"]]])
    return {**bed, "beta": length, "q_heads": heads}


def two_heads_longer_as_lists(variant):
    bed = _bed(variant)
    means = bed["means"]
    return {**bed, "q_heads": [list(12 * means[bed["a"]]), list(12 * means[bed["b"]])]}


def backwards_by_scipy(variant):
    from scipy.stats import norm

    spread = float(Fraction(variant["spread"]))
    return {"spread": spread, "p_backwards": norm.cdf(-1 / math.sqrt(spread))}


def backwards_by_simulation(variant):
    import numpy as np

    spread = float(Fraction(variant["spread"]))
    gamma = np.random.default_rng(8).normal(1.0, math.sqrt(spread), size=400_000)
    return {"spread": spread, "p_backwards": float(np.mean(gamma < 0))}


def robust_by_hand(variant):
    """Scores 0 on keys a and b whatever their length, -L on the others."""
    from scipy.stats import norm

    bed = _bed(variant)
    means, n = bed["means"], bed["n"]
    phi = norm.cdf(1 / math.sqrt(bed["spread"]))
    others = [i for i in range(n) if i not in (bed["a"], bed["b"])]
    q = -10.0 * means[others].sum(axis=0)
    return {**bed, "q_robust": q, "p_one_head": phi ** (n - 2), "p_two_heads": phi**2}


def robust_by_least_squares(variant):
    """The same scores by least squares; the limits by erfc and by products."""
    import numpy as np

    bed = _bed(variant)
    n = bed["n"]
    scores = -8.0 * np.ones(n)
    scores[[bed["a"], bed["b"]]] = 0.0
    q = np.linalg.lstsq(bed["means"], scores, rcond=None)[0]
    phi = 0.5 * math.erfc(-1.0 / math.sqrt(2 * bed["spread"]))
    return {**bed, "q_robust": q, "p_one_head": math.prod([phi] * (n - 2)),
            "p_two_heads": phi * phi}  # fmt: skip


def _fractions(c, values, radius, a=0, b=1):
    import numpy as np

    targets = {
        "v_a": values[a],
        "v_b": values[b],
        "average": (values[a] + values[b]) / 2,
    }
    return {k: float(np.mean(np.linalg.norm(c - t, axis=1) <= radius))
            for k, t in targets.items()}  # fmt: skip


def _simulated_fractions(variant, spread, num, seed):
    """fractions_single from num key sets: isotropic noise nu, key a's length along
    mu_a 1 + N(0, spread)."""
    import numpy as np

    bed = _bed(variant)
    means, values, a, b = bed["means"], bed["values"], bed["a"], bed["b"]
    rng = np.random.default_rng(seed)
    keys = means + math.sqrt(variant["nu"]) * rng.normal(size=(num, *means.shape))
    keys[:, a] += math.sqrt(spread) * rng.normal(size=(num, 1)) * means[a]
    s = keys @ (bed["beta"] * (means[a] + means[b]))
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    c = (w / w.sum(axis=-1, keepdims=True)) @ values
    return {**bed, "fractions_single": _fractions(c, values, variant["radius"], a, b)}


def noisy_key_by_simulating_keys(variant):
    """40000 key sets, sigma^2 = the data cell's spread."""
    return _simulated_fractions(variant, float(Fraction(variant["spread"])), 40000, 45)


def noisy_key_from_num_sets(variant):
    """num_sets = 4000 key sets, the fewest the statement allows."""
    spread = float(Fraction(variant["spread"]))
    return _simulated_fractions(variant, spread, variant["num_sets"], 47)


def noisy_key_by_drawing_scores(variant):
    """The scores drawn directly: beta (gamma [i = a] + [i = b]) plus N(0, 2 nu
    beta^2) noise (beta sqrt(nu) |mu_a + mu_b|), gamma ~ N(1, sigma^2)."""
    import numpy as np

    bed = _bed(variant)
    beta, a, b = bed["beta"], bed["a"], bed["b"]
    rng = np.random.default_rng(46)
    num, n = 40000, bed["n"]
    s = beta * math.sqrt(2 * variant["nu"]) * rng.normal(size=(num, n))
    s[:, a] += beta * rng.normal(1.0, math.sqrt(bed["spread"]), size=num)
    s[:, b] += beta
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    c = (w / w.sum(axis=-1, keepdims=True)) @ bed["values"]
    return {
        **bed,
        "fractions_single": _fractions(c, bed["values"], variant["radius"], a, b),
    }


ALTERNATIVES = {
    "ex-onehead-copy": [gap_by_hand, gap_by_root_finding],
    "ex-onehead-noisy-key": [
        noisy_key_by_simulating_keys,
        noisy_key_by_drawing_scores,
        noisy_key_from_num_sets,
    ],
    "ex-onehead-projection": [projection_by_pseudo_inverse, projection_orthogonal],
    "ex-onehead-average": [average_by_formula, average_by_least_squares],
    "ex-onehead-small-noise": [small_noise_by_formula, small_noise_longer],
    "ex-onehead-two-heads": [two_heads_by_copy_gaps, two_heads_longer_as_lists],
    "ex-onehead-two-heads-noisy": [backwards_by_scipy, backwards_by_simulation],
    "ex-onehead-one-head-robust": [robust_by_hand, robust_by_least_squares],
}


# Typical mistakes that are right on the book's numbers (seed 0, sigma^2 = 1/2) or
# hard to tell from them there (beta = 50): graded on other draws only.


def noisy_key_half_for_spread(variant):
    """The statement's sigma^2 = 1/2 (keysets.noisy_key_covariances' default) in place
    of the data cell's spread."""
    return _simulated_fractions(variant, 0.5, variant["num_sets"], 50)


def noisy_key_spread_as_sd(variant):
    """sigma^2 used as the standard deviation: variance spread^2."""
    spread = float(Fraction(variant["spread"]))
    return _simulated_fractions(variant, spread**2, variant["num_sets"], 51)


def backwards_zero(variant):
    """Key a never flipped: a flip too rare to see in the draws."""
    return {"p_backwards": 0.0}


def backwards_half_for_spread(variant):
    from scipy.stats import norm

    return {"p_backwards": norm.cdf(-math.sqrt(2))}


def backwards_spread_as_sd(variant):
    from scipy.stats import norm

    return {"p_backwards": norm.cdf(-1 / float(Fraction(variant["spread"])))}


def robust_spread_as_sd(variant):
    from scipy.stats import norm

    found = robust_by_hand(variant)
    phi = norm.cdf(1 / found["spread"])
    return {**found, "p_one_head": phi ** (found["n"] - 2), "p_two_heads": phi**2}


def robust_half_for_spread(variant):
    from scipy.stats import norm

    found = robust_by_hand(variant)
    phi = norm.cdf(math.sqrt(2))
    return {**found, "p_one_head": phi ** (found["n"] - 2), "p_two_heads": phi**2}


def robust_key_b_among_the_pushed(variant):
    """p_one_head counts key b among the n - 1 keys held down: phi^(n - 1)."""
    found = robust_by_hand(variant)
    phi = found["p_two_heads"] ** 0.5
    return {**found, "p_one_head": phi ** (found["n"] - 1)}


def robust_one_noisy_key(variant):
    """p_two_heads as Exercise 5.7's one noisy key: phi, not phi^2."""
    found = robust_by_hand(variant)
    return {**found, "p_two_heads": found["p_two_heads"] ** 0.5}


MISTAKES = {
    "ex-onehead-noisy-key": [noisy_key_half_for_spread, noisy_key_spread_as_sd],
    "ex-onehead-two-heads-noisy": [
        backwards_zero,
        backwards_half_for_spread,
        backwards_spread_as_sd,
    ],
    "ex-onehead-one-head-robust": [
        robust_spread_as_sd,
        robust_half_for_spread,
        robust_key_b_among_the_pushed,
        robust_one_noisy_key,
    ],
}


def _notebook_names(variant):
    """The notebook's names an answer cell of ex-onehead-average may read: the test
    bed, the package's bounds and constructions and SciPy's root finder."""
    from scipy.optimize import brentq

    from attnsig import bounds, constructions

    return {**_bed(variant), "bounds": bounds, "constructions": constructions,
            "brentq": brentq}  # fmt: skip


# Answer cells that call the package where the question asks to build it: unblocked
# they earn full marks, in the graded run they score 0 (tests/test_builds.py). The
# outside weight with m = 2 is the worst case the question derives; a root finder
# turns it into the scale.
PACKAGE = {
    "ex-onehead-average": (
        _notebook_names,
        [
            "q_eps = brentq(lambda g: bounds.outside_weight(g, n, 2) - eps, 0, 60)"
            " * (means[a] + means[b])",
            "q_eps = bounds.copy_worst_case_length(n - 1, 2 * eps / (1 - eps)) / 2"
            " * (means[a] + means[b])",
        ],
    )
}
