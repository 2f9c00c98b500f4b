"""The questions of rnn-mlp-attention.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}


# --- ex-abh-q1a


QUESTIONS["ex-abh-q1a"] = {
    "points": 2,
    "manual": True,
    "kind": "explanation",
    "rubric": [
        (
            "The same weights at every position, so parameter counts independent of "
            "T and any sequence length (1)"
        ),
        (
            "Sequence in, sequence out; a causal (masked) transformer has the RNN's "
            "dependency pattern, checked on the dependency maps (1)"
        ),
    ],
}


# --- ex-abh-q1b


def abh_q1b_form(rnn_count, att_count):
    assert isinstance(rnn_count, int) and isinstance(att_count, int), "whole numbers"
    assert rnn_count > 0 and att_count > 0, "positive counts"


def abh_q1b_counts(rnn_count, att_count):
    """Count the multiplications again: the RNN's per step, and attention's
    projections plus the T x T score and mixing products.
    """

    t, e = 100, 64
    assert rnn_count == t * (e * e + e * e), "RNN"
    assert att_count == 4 * t * e**2 + 2 * t**2 * e, "attention"


def abh_q1b_wrong_rnn_without(e, t):
    rnn_count = t * e * e
    return {"rnn_count": rnn_count}


def abh_q1b_wrong_attention_without(e, t):
    att_count = 3 * t * e**2 + 2 * t**2 * e
    return {"att_count": att_count}


QUESTIONS["ex-abh-q1b"] = {
    "points": 2,
    "answer": ["rnn_count", "att_count"],
    "describe": (
        "multiply-adds of one layer for T = 100 tokens, width d_h = d = 64, 4 "
        "heads of width 16:\n"
        "rnn_count for the tanh RNN, att_count for self-attention (projections, "
        "scores, weights times V, output)"
    ),
    "public": [abh_q1b_form],
    "hidden": [abh_q1b_counts],
    "wrong": {
        "RNN without its recurrence": abh_q1b_wrong_rnn_without,
        "attention without its output projection": abh_q1b_wrong_attention_without,
    },
    "rubric": [
        (
            "Path length: one step in attention, t - r recurrent steps with "
            "geometric fading in the RNN (1)"
        ),
        (
            "Sequential (T dependent steps) versus parallel computation; fixed-size "
            "state versus a key/value memory growing with T (1)"
        ),
        (
            "Cost linear versus quadratic in T; order built in versus order-blind "
            "(positional encodings needed) (1)"
        ),
    ],
}


# --- ex-abh-q1c


QUESTIONS["ex-abh-q1c"] = {
    "points": 2,
    "manual": True,
    "kind": "explanation",
    "rubric": [
        (
            "The feed-forward half of every transformer block is an MLP applied to "
            "each position separately (diagonal dependency map) (1)"
        ),
        (
            "Both are compositions of affine maps and fixed nonlinearities trained "
            "by back-propagation; with the weights frozen, attention is linear in "
            "the values (1)"
        ),
    ],
}


# --- ex-abh-q1d


def abh_q1d_callable(mlp_params):
    assert callable(mlp_params), "define mlp_params as a function of t"
    assert isinstance(mlp_params(3), int), "a whole number"


def abh_q1d_random_lengths(mlp_params, hidden_mlp, D):
    """mlp_params(t) is not right for every length t: how do the MLP's weights grow
    with the sequence length?
    """

    import numpy as np

    for t in np.random.default_rng(5).integers(1, 500, size=20):
        assert mlp_params(int(t)) == 2 * hidden_mlp * int(t) * D


def abh_q1d_wrong_first_layer(D, hidden_mlp):
    def mlp_params(t):
        return hidden_mlp * t * D

    return {"mlp_params": mlp_params}


def abh_q1d_wrong_independent_of(w1, w2):
    def mlp_params(t):
        return w1.size + w2.size

    return {"mlp_params": mlp_params}


QUESTIONS["ex-abh-q1d"] = {
    "points": 2,
    "answer": ["mlp_params"],
    "describe": (
        "mlp_params(t): the number of weights (W1 and W2) of the MLP on vec(x) "
        "above, for length t"
    ),
    "public": [abh_q1d_callable],
    "hidden": [abh_q1d_random_lengths],
    "wrong": {
        "first layer only": abh_q1d_wrong_first_layer,
        "independent of T": abh_q1d_wrong_independent_of,
    },
    "rubric": [
        (
            "Fixed input length for the MLP (parameters grow with T) versus any "
            "length for attention (1)"
        ),
        (
            "Fixed mixing weights versus input-dependent attention weights; absolute "
            "positions versus permutation equivariance (1)"
        ),
    ],
}


# --- ex-abh-q1-verdict


QUESTIONS["ex-abh-q1-verdict"] = {
    "points": 2,
    "verdicts": True,
    "rubric": [
        (
            "Written part: for every claim not marked right, the computation above "
            "that supports the verdict (the dependency maps, the context vector as a "
            "weighted sum of all values) (1)"
        )
    ],
}
