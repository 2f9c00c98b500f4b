"""Answers to rnn-mlp-attention.ipynb's checked questions by other routes
(tests/test_grading_cases.py). Each alternative takes the student's draw (`variant`)
and returns, with its answer, the notebook's names the typical mistakes read (e, t for
ex-abh-q1b; D, hidden_width, w1, w2 for ex-abh-q1d), set from that draw."""


def counts_by_terms(variant):
    """Per token: RNN W_ih x and W_hh h; attention Q, K, V, O projections, then
    T x T scores and T x T mixing, per head summed over the heads."""
    t, e, heads = variant["t"], variant["e"], variant["heads"]
    width = e // heads
    rnn = t * e * e + t * e * e
    attention = 4 * t * e * e + heads * (t * t * width) * 2
    return {"t": t, "e": e, "rnn_count": int(rnn), "att_count": int(attention)}


def counts_by_running(variant):
    """Multiply-adds tallied while the layers run on zeros of the right shapes."""
    import numpy as np

    t, e, heads = variant["t"], variant["e"], variant["heads"]
    width = e // heads
    tally = [0]

    def matmul(a, b):
        tally[0] += a.shape[0] * a.shape[1] * b.shape[1]
        return a @ b

    w = np.zeros((e, e))
    h = np.zeros((1, e))
    for x_t in np.zeros((t, 1, e)):
        h = np.tanh(matmul(x_t, w) + matmul(h, w))
    rnn, tally[0] = tally[0], 0
    x = np.zeros((t, e))
    q, k, v = (matmul(x, w) for _ in range(3))
    heads_out = [
        matmul(matmul(q[:, c], k[:, c].T), v[:, c])
        for c in (slice(i * width, (i + 1) * width) for i in range(heads))
    ]
    matmul(np.concatenate(heads_out, axis=1), w)
    return {"t": t, "e": e, "rnn_count": int(np.int64(rnn)), "att_count": tally[0]}


def _mlp_names(variant):
    """The notebook's MLP for the draw: D, hidden_width and weights of those shapes."""
    import numpy as np

    hidden, d = variant["hidden_width"], variant["D"]
    rng = np.random.default_rng(0)
    # the chapter's T = 6 tokens: the mistake "independent of T" counts these
    w1, w2 = rng.normal(size=(hidden, 6 * d)), rng.normal(size=(6 * d, hidden))
    return {"D": d, "hidden_width": hidden, "w1": w1, "w2": w2}


def weights_from_shapes(variant):
    """W1: hidden x (t D), W2: (t D) x hidden, counted from arrays of those shapes."""
    import numpy as np

    hidden, d = variant["hidden_width"], variant["D"]

    def mlp_params(t):
        w1 = np.zeros((hidden, t * d))
        return int(w1.size + w1.T.size)

    return {**_mlp_names(variant), "mlp_params": mlp_params}


def weights_by_formula(variant):
    hidden, d = variant["hidden_width"], variant["D"]

    def mlp_params(t):
        return 2 * hidden * d * t

    return {**_mlp_names(variant), "mlp_params": mlp_params}


def heads_of_full_width(variant=None):
    """Every head's scores and mixing counted at the full width e, not e // heads."""
    variant = variant or {"t": 100, "e": 64, "heads": 4}  # the book's, seed 0
    t, e, heads = variant["t"], variant["e"], variant["heads"]
    return {"att_count": 4 * t * e * e + heads * 2 * t * t * e}


def counts_as_numpy_integers(variant):
    """The counts as NumPy integers (np.prod of the shapes), as a student gets them."""
    import numpy as np

    t, e, heads = variant["t"], variant["e"], variant["heads"]
    shapes = [(1, e, e)] * (2 * t) + [(t, e, e)] * 4
    shapes += [(t, e // heads, t), (t, t, e // heads)] * heads
    rnn = np.sum([np.prod(s) for s in shapes[: 2 * t]])
    return {
        "t": t,
        "e": e,
        "rnn_count": rnn,
        "att_count": np.sum([np.prod(s) for s in shapes[2 * t :]]),
    }


def weights_as_numpy_integers(variant):
    """mlp_params(t) returning a NumPy integer (np.prod of the weight shapes)."""
    import numpy as np

    hidden, d = variant["hidden_width"], variant["D"]

    def mlp_params(t):
        return np.prod((hidden, t * d)) + np.prod((t * d, hidden))

    return {**_mlp_names(variant), "mlp_params": mlp_params}


def counts_as_floats(variant):
    """The counts as Python floats (a formula with a float factor), whole numbers."""
    t, e, heads = variant["t"], variant["e"], variant["heads"]
    rnn = 2.0 * t * e**2
    attention = 4.0 * t * e**2 + 2.0 * heads * t**2 * (e / heads)
    return {"t": t, "e": e, "rnn_count": rnn, "att_count": attention}


MISTAKES = {"ex-abh-q1b": [heads_of_full_width]}

ALTERNATIVES = {
    "ex-abh-q1b": [
        counts_by_terms,
        counts_by_running,
        counts_as_numpy_integers,
        counts_as_floats,
    ],
    "ex-abh-q1d": [weights_from_shapes, weights_by_formula, weights_as_numpy_integers],
}
