"""The questions of rnn-mlp-attention.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}
VARIANTS: dict[str, dict] = {}


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


def abh_q1b_draw(seed):
    """Question ex-abh-q1b's sizes for one student: the length t, the width e (d_h =
    d) and the number of heads, which divides e. Seed 0 gives the book's numbers.

    Other seeds change both counts (no draw gives the book's RNN or attention
    count), from widths 16 to 128, heads 2 to 8 of width at least 4, lengths 20 to
    300.
    """
    import numpy as np

    if seed == 0:
        return {"t": 100, "e": 64, "heads": 4}
    book = abh_q1b_draw(0)

    def counts(d):
        t, e = d["t"], d["e"]
        return 2 * t * e**2, 4 * t * e**2 + 2 * t**2 * e

    rng = np.random.default_rng(seed)
    while True:
        e = int(rng.choice([16, 32, 48, 64, 96, 128]))
        heads = int(rng.choice([h for h in (2, 4, 8) if e % h == 0 and e // h >= 4]))
        t = int(rng.choice([20, 30, 40, 50, 60, 80, 120, 150, 200, 250, 300]))
        d = {"t": t, "e": e, "heads": heads}
        if all(a != b for a, b in zip(counts(d), counts(book), strict=True)):
            return d


def abh_q1b_cell(variant):
    """The student's sizes: t tokens, width e, heads (the names of the solution)."""
    return f"t, e, heads = {variant['t']}, {variant['e']}, {variant['heads']}\n"


VARIANTS["abh-q1b"] = {
    "draw": abh_q1b_draw,
    "cell": abh_q1b_cell,
    "names": ["t", "e", "heads"],
    "after": "ex-abh-q1b",
    "describe": (
        "the sequence length t, the width e (d_h = d) and the number of heads of the "
        "cost count"
    ),
}


def abh_q1b_form(rnn_count, att_count):
    import numbers

    # Any whole number: a Python int, a NumPy integer (np.prod, np.sum) or 819200.0.
    for count in (rnn_count, att_count):
        assert isinstance(count, numbers.Real) and not isinstance(count, bool), (
            "whole numbers: an int or a float such as 12.0, not an array or text"
        )
        assert float(count).is_integer(), "whole numbers"
    assert rnn_count > 0 and att_count > 0, "positive counts"


def abh_q1b_counts(rnn_count, att_count, variant):
    """Count the multiplications again: the RNN's per step, and attention's
    projections plus the t x t score and mixing products (t tokens).
    """

    # Each product of an (a x b) and a (b x c) matrix costs a b c, listed one by one.
    t, e, heads = variant["t"], variant["e"], variant["heads"]
    width = e // heads
    rnn = [(1, e, e), (1, e, e)] * t  # per step: W_ih x_t and W_hh h_{t-1}
    att = [(t, e, e)] * 4  # projections Q, K, V and the output
    att += [(t, width, t), (t, t, width)] * heads  # per head: Q K^T, then A V
    assert rnn_count == sum(a * b * c for a, b, c in rnn), "RNN"
    assert att_count == sum(a * b * c for a, b, c in att), "attention"


def abh_q1b_wrong_rnn_without(e, t):
    rnn_count = t * e * e
    return {"rnn_count": rnn_count}


def abh_q1b_wrong_attention_without(e, t):
    att_count = 3 * t * e**2 + 2 * t**2 * e
    return {"att_count": att_count}


QUESTIONS["ex-abh-q1b"] = {
    "points": 2,
    "answer": ["rnn_count", "att_count"],
    # attnsig.recurrent computes these counts: the question is to count them.
    "builds": [
        "attnsig.recurrent.rnn_multiply_adds",
        "attnsig.recurrent.self_attention_multiply_adds",
    ],
    "builds_in_cells": True,
    "describe": (
        "multiply-adds of one layer for the t tokens, width d_h = d = e and the heads "
        "(of width e // heads) of your data cell:\n"
        "rnn_count for the tanh RNN, att_count for self-attention (projections, "
        "scores, weights times V, output)"
    ),
    "variant": "abh-q1b",
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


def abh_q1d_draw(seed):
    """Question ex-abh-q1d's MLP for one student: its hidden width hidden_width, and
    the token width D of the chapter's example, the same for everyone. Seed 0 gives
    the book's numbers; other seeds another hidden width, from 8 to 32. The name is
    not the book's hidden_mlp: the book's mlp_params reads that global, and a data
    cell rebinding it would make the book's cell answer every student's numbers.
    """
    import numpy as np

    if seed == 0:
        return {"hidden_width": 16, "D": 4}
    rng = np.random.default_rng(seed)
    return {"hidden_width": int(rng.choice([8, 10, 12, 20, 24, 32])), "D": 4}


def abh_q1d_cell(variant):
    """The student's MLP on vec(x): hidden_width, and w1, w2 of that width (for
    seed 0 the book's shapes, drawn anew: no question reads their entries), for the
    chapter's 6 tokens of width D."""
    h, width = variant["hidden_width"], variant["D"]
    return (
        f"T, D = 6, {width}  # the chapter's example: 6 tokens of width {width}\n"
        f"hidden_width = {h}\n"
        f"w1 = np.random.default_rng({h}).normal(\n"
        "    0.0, 1 / np.sqrt(T * D), (hidden_width, T * D)\n"
        ")\n"
        f"w2 = np.random.default_rng({h + 1}).normal(\n"
        "    0.0, 1 / np.sqrt(hidden_width), (T * D, hidden_width)\n"
        ")\n"
    )


VARIANTS["abh-q1d"] = {
    "draw": abh_q1d_draw,
    "cell": abh_q1d_cell,
    "names": ["T", "D", "hidden_width", "w1", "w2"],
    "after": "ex-abh-q1d",
    "describe": "the hidden width hidden_width of the MLP on vec(x) (weights w1, w2)",
}


def abh_q1d_callable(mlp_params):
    import numbers

    assert callable(mlp_params), "define mlp_params as a function of t"
    value = mlp_params(3)  # a Python int, a NumPy integer or an integral float
    assert isinstance(value, numbers.Real) and not isinstance(value, bool), (
        "a whole number: an int or a float such as 12.0, not an array or text"
    )
    assert float(value).is_integer(), "a whole number"


def abh_q1d_random_lengths(mlp_params, variant):
    """mlp_params(t) is not right for every length t: how do the MLP's weights grow
    with the sequence length?
    """

    import numpy as np

    hidden, width = variant["hidden_width"], variant["D"]
    for t in np.random.default_rng(5).integers(1, 500, size=20):
        flat = int(t) * width  # the length of vec(x)
        # W1 maps vec(x) to the hidden layer, W2 back: count their entries.
        weights = np.empty((hidden, flat)).size + np.empty((flat, hidden)).size
        assert mlp_params(int(t)) == weights


def abh_q1d_wrong_first_layer(D, w1):
    hidden = w1.shape[0]  # the hidden width, in the book's cells and a data cell's

    def mlp_params(t):
        return hidden * t * D

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
        "above, for length t, with the hidden width hidden_width of your data cell"
    ),
    "variant": "abh-q1d",
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
