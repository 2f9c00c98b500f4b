"""Answers to cs224n-a5.ipynb's checked questions by other routes
(tests/test_grading_cases.py), computed from the student's variant (the draws of
cs224n_a5_checks.py): the test bed of questions 1(c)-(d) (means, vals, ia, ib,
nu_small, scale_beta) and the frame u_a ... u_d and X of question 1(e)."""

import math


def _bed(variant):
    import numpy as np

    return {
        "n_keys": len(variant["means"]),
        "means": np.array(variant["means"], dtype=float),
        "vals": np.array(variant["vals"], dtype=float),
        "ia": variant["ia"],
        "ib": variant["ib"],
        "nu_small": variant["nu_small"],
        "scale_beta": variant["scale_beta"],
    }


def _frame(variant):
    import numpy as np

    rho = variant["rho"]
    gen = np.random.default_rng(variant["frame_seed"])
    frame = np.linalg.qr(gen.normal(size=(6, 6)))[0]
    u_a, u_b, u_c, u_d = (rho * frame[:, i] for i in range(4))
    x = np.stack([u_d + u_b, u_a, u_c + u_b])
    return {"rho": rho, "u_a": u_a, "u_b": u_b, "u_c": u_c, "u_d": u_d, "X": x}


def copy_by_formula(variant):
    n, eps = variant["n_copy"], variant["eps_copy"]
    return {"n_copy": n, "eps_copy": eps,
            "copy_gap": math.log((n - 1) * (1 - eps) / eps)}  # fmt: skip


def copy_by_bisection(variant):
    """The gap at which the weight of the winner, computed as a softmax with n - 1
    equal other scores, reaches 1 - eps (a NumPy float)."""
    import numpy as np

    n, eps = variant["n_copy"], variant["eps_copy"]
    lo, hi = np.float64(0.0), np.float64(40.0)
    for _ in range(200):
        mid = (lo + hi) / 2
        s = np.r_[mid, np.zeros(n - 1)]
        w = np.exp(s - s.max())
        lo, hi = (lo, mid) if w[0] / w.sum() >= 1 - eps else (mid, hi)
    return {"n_copy": n, "eps_copy": eps, "copy_gap": hi}


def copy_to_four_decimals(variant):
    """The gap by the closed form, written down to four decimals (a float literal)."""
    n, eps = variant["n_copy"], variant["eps_copy"]
    gap = float(f"{math.log((n - 1) / eps) + math.log1p(-eps):.4f}")
    return {"n_copy": n, "eps_copy": eps, "copy_gap": gap}


def copy_to_three_decimals(variant):
    """The gap as the book's prose prints it, three decimals (log 57 ~ 4.043)."""
    n, eps = variant["n_copy"], variant["eps_copy"]
    return {"n_copy": n, "eps_copy": eps,
            "copy_gap": round(math.log((n - 1) * (1 - eps) / eps), 3)}  # fmt: skip


def average_by_formula():
    import numpy as np

    def average_query(keys, a, b, beta):
        return beta * (np.asarray(keys[a]) + np.asarray(keys[b]))

    def outside_weight(beta, n):
        return (n - 2) / (2 * math.exp(beta) + n - 2)

    return {"average_query": average_query, "outside_weight": outside_weight}


def average_by_least_squares_and_softmax():
    """The query with scores beta on a and b, 0 elsewhere, by least squares; the
    outside weight from a numerical softmax of those scores."""
    import numpy as np

    def average_query(keys, a, b, beta):
        scores = np.zeros(len(keys))
        scores[[a, b]] = beta
        return np.linalg.lstsq(keys, scores, rcond=None)[0]

    def outside_weight(beta, n):
        s = np.r_[beta, beta, np.zeros(n - 2)]
        w = np.exp(s - s.max())
        return float(w[2:].sum() / w.sum())

    return {"average_query": average_query, "outside_weight": outside_weight}


def average_by_complement():
    """The outside weight as one minus the pair's weight (0.0 at large beta)."""
    import numpy as np

    def average_query(keys, a, b, beta):
        return beta * (np.asarray(keys[a]) + np.asarray(keys[b]))

    def outside_weight(beta, n):
        return 1 - 2 * math.exp(beta) / (2 * math.exp(beta) + n - 2)

    return {"average_query": average_query, "outside_weight": outside_weight}


def noisy_small_by_hand(variant):
    """The scores wanted (30 on a and b, 0 elsewhere) mapped back through the
    orthogonal matrix of the means: q = M^T s, as lists."""
    bed = _bed(variant)
    scores = [30.0 if i in (bed["ia"], bed["ib"]) else 0.0 for i in range(4)]
    q = [sum(bed["means"][i][k] * scores[i] for i in range(4)) for k in range(4)]
    return {**bed, "q_avg": q}


def noisy_small_by_least_squares(variant):
    import numpy as np

    bed = _bed(variant)
    scores = np.zeros(4)
    scores[[bed["ia"], bed["ib"]]] = 50.0
    return {**bed, "q_avg": np.linalg.lstsq(bed["means"], scores, rcond=None)[0]}


def two_heads_by_hand(variant):
    """Each head's scores (30 on its key, 0 elsewhere) solved for its query."""
    import numpy as np

    bed = _bed(variant)
    targets = 30.0 * np.eye(4)[[bed["ia"], bed["ib"]]]  # (2, n) scores per head
    return {**bed, "q_two": np.linalg.solve(bed["means"], targets.T).T}


def two_heads_longer_as_lists(variant):
    bed = _bed(variant)
    means = bed["means"]
    return {**bed, "q_two": [list(60 * means[bed["ia"]]), list(60 * means[bed["ib"]])]}


def _pushing_heads(bed):
    """The review's other heads: head 1 scores key a scale_beta and pushes the three
    others down by as much, head 2 is the book's; both copy their value."""
    import numpy as np

    means, beta, ia, ib = bed["means"], bed["scale_beta"], bed["ia"], bed["ib"]
    return np.stack([beta * (2 * means[ia] - means.sum(axis=0)), beta * means[ib]])


def two_heads_pushing_the_others_down(variant):
    bed = _bed(variant)
    return {**bed, "q_two": _pushing_heads(bed)}


def identity_by_running_attention(variant):
    """Identity weights at the frame's scale: y_2 computed, can_reach from the
    argument that a convex combination of the rows reaches u_b only with weight on
    rows holding u_d or u_c too (a NumPy bool)."""
    import numpy as np

    found = _frame(variant)
    x = found["X"]
    s = x @ x.T
    w = np.exp(s - s.max(axis=1, keepdims=True))
    out = (w / w.sum(axis=1, keepdims=True)) @ x
    return {**found, "out": out, "y2_limit": out[1], "can_reach_u_b": np.bool_(False)}


def identity_by_hand(variant):
    found = _frame(variant)
    return {**found, "y2_limit": found["X"][1].tolist(), "can_reach_u_b": False}


def design_as_in_the_answer(variant):
    import numpy as np

    f = _frame(variant)
    rho, u_a, u_b, u_c, u_d = f["rho"], f["u_a"], f["u_b"], f["u_c"], f["u_d"]
    w_v = (np.outer(u_b, u_b) - np.outer(u_c, u_c)) / rho**2
    w_q = (np.outer(u_a, u_d) + np.outer(u_d, u_c)) / rho**2
    return {**f, "W_K": np.eye(6), "W_Q": w_q, "W_V": w_v}


def design_with_sharper_keys(variant):
    """Keys doubled (a larger score gap), the rest built from the frame's projectors
    as lists."""
    import numpy as np

    f = _frame(variant)
    rho, u_a, u_b, u_c, u_d = f["rho"], f["u_a"], f["u_b"], f["u_c"], f["u_d"]
    p_b, p_c = np.outer(u_b, u_b) / rho**2, np.outer(u_c, u_c) / rho**2
    w_q = (np.outer(u_a, u_d) + np.outer(u_d, u_c)) / rho**2
    return {**f, "W_K": (2 * np.eye(6)).tolist(), "W_Q": w_q, "W_V": p_b - p_c}


def _noisy_bed(seed, variant, sd=0.5**0.5):
    """Keys with key a's length gamma ~ N(1, sd^2) along mu_a (sd^2 = 1/2 as stated;
    other noise tiny), the noise-free keys, and the queries of the chapter."""
    import numpy as np

    bed = _bed(variant)
    rng = np.random.default_rng(seed)
    means, beta, num = bed["means"], bed["scale_beta"], 4000
    ia, ib = bed["ia"], bed["ib"]
    keys_small = means + 1e-4 * rng.normal(size=(num, 4, 4))
    keys_noisy = keys_small.copy()
    gamma = rng.normal(1.0, sd, size=num)
    keys_noisy[:, ia] = gamma[:, None] * means[ia] + (keys_small[:, ia] - means[ia])
    q_avg = beta * (means[ia] + means[ib])
    q_two = np.stack([beta * means[ia], beta * means[ib]])
    return {**bed, "keys_small": keys_small, "keys_noisy": keys_noisy, "gamma": gamma,
            "q_avg": q_avg, "q_two": q_two}  # fmt: skip


def _softmax_rows(s):
    import numpy as np

    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True)


def one_head_by_simulating_keys(variant):
    bed = _noisy_bed(5, variant)
    w = _softmax_rows(bed["keys_noisy"] @ bed["q_avg"])
    return {**bed, "c_one": w @ bed["vals"]}


def one_head_by_the_reduced_model(variant):
    """c = sig v_a + (1 - sig) v_b, sig = sigmoid(beta (gamma - 1)), gamma drawn."""
    import numpy as np

    bed = _bed(variant)
    v_a, v_b = bed["vals"][bed["ia"]], bed["vals"][bed["ib"]]
    gamma = np.random.default_rng(6).normal(1.0, math.sqrt(0.5), size=5000)
    sig = 1 / (1 + np.exp(-bed["scale_beta"] * (gamma - 1)))
    c = sig[:, None] * v_a + (1 - sig)[:, None] * v_b
    return {**bed, "c_one": c}


def two_heads_by_simulating_keys(variant):
    bed = _noisy_bed(7, variant)
    heads = [_softmax_rows(bed["keys_noisy"] @ q) @ bed["vals"] for q in bed["q_two"]]
    return {**bed, "c_two": (heads[0] + heads[1]) / 2}


def two_heads_by_the_reduced_model(variant):
    """Head 1 weighs key a by e^{beta gamma} against three keys of score 0 (one of
    them b, whose value it also carries); head 2 copies v_b."""
    import numpy as np

    bed = _bed(variant)
    v_a, v_b = bed["vals"][bed["ia"]], bed["vals"][bed["ib"]]
    gamma = np.random.default_rng(8).normal(1.0, math.sqrt(0.5), size=5000)
    e = np.exp(bed["scale_beta"] * gamma)
    c1 = (e[:, None] * v_a + v_b) / (e + 3)[:, None]
    q_two = np.stack(
        [bed["scale_beta"] * bed["means"][i] for i in (bed["ia"], bed["ib"])]
    )
    return {**bed, "q_two": q_two, "c_two": ((c1 + v_b) / 2).tolist()}


def two_heads_noisy_with_pushing_heads(variant):
    """The review's other heads (head 1 pushes the other keys down, so it barely
    leaks weight), simulated as the statement asks: 2000 draws of the keys with
    Sigma_a = nu I + mu_a mu_a^T / 2 and Sigma_i = nu I."""
    import numpy as np

    bed = _bed(variant)
    means, nu, ia = bed["means"], bed["nu_small"], bed["ia"]
    rng = np.random.default_rng(11)
    keys = means + math.sqrt(nu) * rng.normal(size=(2000, 4, 4))
    keys[:, ia] += math.sqrt(0.5) * rng.normal(size=(2000, 1)) * means[ia]
    q_two = _pushing_heads(bed)
    outs = [_softmax_rows(keys @ q) @ bed["vals"] for q in q_two]
    return {**bed, "q_two": q_two, "c_two": (outs[0] + outs[1]) / 2}


ALTERNATIVES = {
    "ex-a5-copy": [
        copy_by_formula,
        copy_by_bisection,
        copy_to_four_decimals,
        copy_to_three_decimals,
    ],
    "ex-a5-average": [
        average_by_formula,
        average_by_least_squares_and_softmax,
        average_by_complement,
    ],
    "ex-a5-noisy-small": [noisy_small_by_hand, noisy_small_by_least_squares],
    "ex-a5-two-heads": [
        two_heads_by_hand,
        two_heads_longer_as_lists,
        two_heads_pushing_the_others_down,
    ],
    "ex-a5-kqv-identity": [identity_by_running_attention, identity_by_hand],
    "ex-a5-kqv-design": [design_as_in_the_answer, design_with_sharper_keys],
    "ex-a5-noisy-large": [one_head_by_simulating_keys, one_head_by_the_reduced_model],
    "ex-a5-two-heads-noisy": [
        two_heads_by_simulating_keys,
        two_heads_by_the_reduced_model,
        two_heads_noisy_with_pushing_heads,
    ],
}


# Typical mistakes graded on other draws than the book's (tests/test_grading_cases.py).


def one_head_sigma_2_as_sd(variant):
    """sigma^2 = 1/2 used as the standard deviation of the length (variance 1/4)."""
    bed = _noisy_bed(9, variant, sd=0.5)
    w = _softmax_rows(bed["keys_noisy"] @ bed["q_avg"])
    return {**bed, "c_one": w @ bed["vals"]}


def one_head_unit_variance(variant):
    """The length drawn as N(1, 1), the spread left out."""
    bed = _noisy_bed(10, variant, sd=1.0)
    w = _softmax_rows(bed["keys_noisy"] @ bed["q_avg"])
    return {**bed, "c_one": w @ bed["vals"]}


MISTAKES = {"ex-a5-noisy-large": [one_head_sigma_2_as_sd, one_head_unit_variance]}


def _notebook_names(variant):
    """The notebook's names an answer cell of ex-a5-copy may read: the student's n and
    eps, NumPy, the package's bounds and constructions and SciPy's root finder."""
    import numpy as np
    from scipy.optimize import brentq

    from attnsig import bounds, constructions

    return {**variant, "np": np, "bounds": bounds, "constructions": constructions,
            "brentq": brentq}  # fmt: skip


# Answer cells that call the package where the question asks to build it: unblocked
# they earn full marks, in the graded run they score 0 (tests/test_builds.py). The
# outside weight is the worst case the question derives (a root finder inverts it); a
# worst-case length with eps / (1 - eps) is twice the gap; a construction's norm is it.
PACKAGE = {
    "ex-a5-copy": (
        _notebook_names,
        [
            "copy_gap = brentq("
            "lambda g: bounds.outside_weight(g, n_copy) - eps_copy, 0, 60)",
            "copy_gap = bounds.copy_worst_case_length("
            "n_copy, eps_copy / (1 - eps_copy)) / 2",
            "copy_gap = float(np.linalg.norm("
            "constructions.copy_query_by_gap(np.eye(n_copy), 0, eps_copy)))",
        ],
    )
}
