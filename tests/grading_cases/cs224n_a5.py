"""Answers to cs224n-a5.ipynb's checked questions by other routes
(tests/test_grading_cases.py), with the notebook's test bed (means, vals, ia, ib,
nu_small, scale_beta; the frame u_a ... u_d and X of question 1(e))."""

import math


def _bed():
    import numpy as np

    means, vals = np.eye(4), np.zeros((4, 2))
    vals[0], vals[1] = [1.0, 0.0], [0.0, 1.0]
    return {"means": means, "vals": vals, "ia": 0, "ib": 1, "nu_small": 1e-8,
            "scale_beta": 30.0}  # fmt: skip


def _frame():
    import numpy as np

    rng = np.random.default_rng(4)
    rho = 6.0
    frame = np.linalg.qr(rng.normal(size=(6, 6)))[0]
    u_a, u_b, u_c, u_d = (rho * frame[:, i] for i in range(4))
    x = np.stack([u_d + u_b, u_a, u_c + u_b])
    return {"rho": rho, "u_a": u_a, "u_b": u_b, "u_c": u_c, "u_d": u_d, "X": x}


def copy_by_formula():
    return {"copy_gap": math.log(3 * (1 - 0.05) / 0.05)}


def copy_by_bisection():
    """The gap at which the weight of the winner, computed as a softmax with three
    equal other scores, reaches 0.95 (a NumPy float)."""
    import numpy as np

    lo, hi = np.float64(0.0), np.float64(20.0)
    for _ in range(200):
        mid = (lo + hi) / 2
        s = np.array([mid, 0.0, 0.0, 0.0])
        w = np.exp(s - s.max())
        lo, hi = (lo, mid) if w[0] / w.sum() >= 0.95 else (mid, hi)
    return {"copy_gap": hi}


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


def noisy_small_by_hand():
    bed = _bed()
    return {**bed, "q_avg": [30.0, 30.0, 0.0, 0.0]}


def noisy_small_by_least_squares():
    import numpy as np

    bed = _bed()
    scores = np.array([50.0, 50.0, 0.0, 0.0])
    return {**bed, "q_avg": np.linalg.lstsq(bed["means"], scores, rcond=None)[0]}


def two_heads_by_hand():
    import numpy as np

    bed = _bed()
    return {**bed, "q_two": np.array([[30.0, 0, 0, 0], [0, 30.0, 0, 0]])}


def two_heads_longer_as_lists():
    bed = _bed()
    means = bed["means"]
    return {**bed, "q_two": [list(60 * means[0]), list(60 * means[1])]}


def identity_by_running_attention():
    """Identity weights at the frame's scale: y_2 computed, can_reach from the
    argument that a convex combination of the rows reaches u_b only with weight on
    rows holding u_d or u_c too (a NumPy bool)."""
    import numpy as np

    found = _frame()
    x = found["X"]
    s = x @ x.T
    w = np.exp(s - s.max(axis=1, keepdims=True))
    out = (w / w.sum(axis=1, keepdims=True)) @ x
    return {**found, "out": out, "y2_limit": out[1], "can_reach_u_b": np.bool_(False)}


def identity_by_hand():
    found = _frame()
    return {**found, "y2_limit": found["X"][1].tolist(), "can_reach_u_b": False}


def design_as_in_the_answer():
    import numpy as np

    f = _frame()
    rho, u_a, u_b, u_c, u_d = f["rho"], f["u_a"], f["u_b"], f["u_c"], f["u_d"]
    w_v = (np.outer(u_b, u_b) - np.outer(u_c, u_c)) / rho**2
    w_q = (np.outer(u_a, u_d) + np.outer(u_d, u_c)) / rho**2
    return {**f, "W_K": np.eye(6), "W_Q": w_q, "W_V": w_v}


def design_with_sharper_keys():
    """Keys doubled (a larger score gap), the rest built from the frame's projectors
    as lists."""
    import numpy as np

    f = _frame()
    rho, u_a, u_b, u_c, u_d = f["rho"], f["u_a"], f["u_b"], f["u_c"], f["u_d"]
    p_b, p_c = np.outer(u_b, u_b) / rho**2, np.outer(u_c, u_c) / rho**2
    w_q = (np.outer(u_a, u_d) + np.outer(u_d, u_c)) / rho**2
    return {**f, "W_K": (2 * np.eye(6)).tolist(), "W_Q": w_q, "W_V": p_b - p_c}


def _noisy_bed(seed):
    """Keys with key a's length gamma ~ N(1, 1/2) along mu_a (other noise tiny), the
    noise-free keys, and the queries of the chapter."""
    import numpy as np

    bed = _bed()
    rng = np.random.default_rng(seed)
    means, beta, num = bed["means"], bed["scale_beta"], 4000
    keys_small = means + 1e-4 * rng.normal(size=(num, 4, 4))
    keys_noisy = keys_small.copy()
    gamma = rng.normal(1.0, math.sqrt(0.5), size=num)
    keys_noisy[:, 0] = gamma[:, None] * means[0] + (keys_small[:, 0] - means[0])
    q_avg = beta * (means[0] + means[1])
    q_two = np.stack([beta * means[0], beta * means[1]])
    return {**bed, "keys_small": keys_small, "keys_noisy": keys_noisy, "gamma": gamma,
            "q_avg": q_avg, "q_two": q_two}  # fmt: skip


def _softmax_rows(s):
    import numpy as np

    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True)


def one_head_by_simulating_keys():
    bed = _noisy_bed(5)
    w = _softmax_rows(bed["keys_noisy"] @ bed["q_avg"])
    return {**bed, "c_one": w @ bed["vals"]}


def one_head_by_the_reduced_model():
    """c = sig v_a + (1 - sig) v_b, sig = sigmoid(beta (gamma - 1)), gamma drawn."""
    import numpy as np

    bed = _bed()
    gamma = np.random.default_rng(6).normal(1.0, math.sqrt(0.5), size=5000)
    sig = 1 / (1 + np.exp(-bed["scale_beta"] * (gamma - 1)))
    c = sig[:, None] * bed["vals"][0] + (1 - sig)[:, None] * bed["vals"][1]
    return {**bed, "c_one": c}


def two_heads_by_simulating_keys():
    bed = _noisy_bed(7)
    heads = [_softmax_rows(bed["keys_noisy"] @ q) @ bed["vals"] for q in bed["q_two"]]
    return {**bed, "c_two": (heads[0] + heads[1]) / 2}


def two_heads_by_the_reduced_model():
    """Head 1 weighs key a by e^{beta gamma} against three keys of score 0 (one of
    them b, whose value it also carries); head 2 copies v_b."""
    import numpy as np

    bed = _bed()
    gamma = np.random.default_rng(8).normal(1.0, math.sqrt(0.5), size=5000)
    e = np.exp(bed["scale_beta"] * gamma)
    c1 = (e[:, None] * bed["vals"][0] + bed["vals"][1]) / (e + 3)[:, None]
    return {**bed, "c_two": ((c1 + bed["vals"][1]) / 2).tolist()}


ALTERNATIVES = {
    "ex-a5-copy": [copy_by_formula, copy_by_bisection],
    "ex-a5-average": [average_by_formula, average_by_least_squares_and_softmax],
    "ex-a5-noisy-small": [noisy_small_by_hand, noisy_small_by_least_squares],
    "ex-a5-two-heads": [two_heads_by_hand, two_heads_longer_as_lists],
    "ex-a5-kqv-identity": [identity_by_running_attention, identity_by_hand],
    "ex-a5-kqv-design": [design_as_in_the_answer, design_with_sharper_keys],
    "ex-a5-noisy-large": [one_head_by_simulating_keys, one_head_by_the_reduced_model],
    "ex-a5-two-heads-noisy": [
        two_heads_by_simulating_keys,
        two_heads_by_the_reduced_model,
    ],
}
