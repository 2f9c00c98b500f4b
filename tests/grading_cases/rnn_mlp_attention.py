"""Answers to rnn-mlp-attention.ipynb's checked questions by other routes
(tests/test_grading_cases.py). The notebook's names the checks or the typical mistakes
read (D, hidden_mlp, w1, w2, e, t) come with each submission."""

NOTEBOOK = {"e": 64, "t": 100, "D": 4, "hidden_mlp": 16}


def counts_by_terms():
    """Per token: RNN W_ih x and W_hh h; attention Q, K, V, O projections, then
    T x T scores and T x T mixing, per head summed over 4 heads of width 16."""
    t, e, heads = 100, 64, 4
    width = e // heads
    rnn = t * e * e + t * e * e
    attention = 4 * t * e * e + heads * (t * t * width) * 2
    return {**NOTEBOOK, "rnn_count": int(rnn), "att_count": int(attention)}


def counts_by_shapes():
    """Multiply-adds of each matrix product as m * n * p of its shapes."""
    import numpy as np

    t, e = 100, 64

    def cost(a, b):
        return a[0] * a[1] * b[1]

    rnn = t * (cost((1, e), (e, e)) + cost((1, e), (e, e)))
    att = 4 * cost((t, e), (e, e)) + 4 * (
        cost((t, 16), (16, t)) + cost((t, t), (t, 16))
    )
    return {**NOTEBOOK, "rnn_count": int(np.int64(rnn)), "att_count": int(att)}


def weights_from_shapes():
    """W1: hidden x (t D), W2: (t D) x hidden, counted from arrays of those shapes."""
    import numpy as np

    def mlp_params(t):
        w1 = np.zeros((16, t * 4))
        return int(w1.size + w1.T.size)

    rng = np.random.default_rng(0)
    w1, w2 = rng.normal(size=(16, 24)), rng.normal(size=(24, 16))
    return {**NOTEBOOK, "mlp_params": mlp_params, "w1": w1, "w2": w2}


def weights_by_formula():
    def mlp_params(t):
        return 2 * 16 * 4 * t

    return {**NOTEBOOK, "mlp_params": mlp_params}


ALTERNATIVES = {
    "ex-abh-q1b": [counts_by_terms, counts_by_shapes],
    "ex-abh-q1d": [weights_from_shapes, weights_by_formula],
}
