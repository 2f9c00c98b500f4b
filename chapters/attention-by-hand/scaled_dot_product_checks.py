"""The questions of scaled-dot-product.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}
VARIANTS: dict[str, dict] = {}


# --- ex-abh-q2a1


def abh_q2a1_form(dims, score_var):
    import numpy as np

    d = np.asarray(dims, dtype=float)
    v = np.asarray(score_var, dtype=float)
    assert d.ndim == 1 and len(d) >= 6, "dims: at least 6 key dimensions"
    assert d.max() >= 256, "dims: go up to 256 or more"
    assert v.shape == d.shape, "score_var: one variance per dimension"
    assert np.all(v > 0), "score_var: variances are positive"


def abh_q2a1_variance_grows_like_dk(dims, score_var):
    """The sample variances do not follow d_k: simulate the raw, unscaled scores q.k
    with enough pairs.
    """

    import numpy as np

    d = np.asarray(dims, dtype=float)
    v = np.asarray(score_var, dtype=float)
    # Var(q.k) = d_k. With the minimum of 5000 pairs the sample variance's relative
    # SD is sqrt((kurtosis - 1) / 5000) = 0.04 at d_k = 1 (kurtosis 3 + 6/d_k): 0.2
    # is 5 SDs (0.15 failed about 1 honest simulation in 4000 at d_k = 1), while the
    # standard deviation or the scaled variance is off by a factor sqrt(d_k) or d_k.
    assert np.all(np.abs(v / d - 1) < 0.2)


def abh_q2a1_wrong_standard_deviation(score_var):
    import numpy as np

    score_var = np.sqrt(score_var)
    return {"score_var": score_var}


def abh_q2a1_wrong_variance_of(score_var, dims):
    score_var = score_var / dims
    return {"score_var": score_var}


QUESTIONS["ex-abh-q2a1"] = {
    "points": 1,
    "answer": ["dims", "score_var"],
    "describe": (
        "dims: the key dimensions d_k you simulated (at least 6 values, up to "
        "256 or more);\n"
        "score_var: for each, the sample variance of the unscaled products q.k (q, k "
        "with independent\n"
        "standard normal entries, at least 5000 pairs per dimension)"
    ),
    "fixed": "the student picks the dimensions and the simulation: no numbers given",
    "public": [abh_q2a1_form],
    "hidden": [abh_q2a1_variance_grows_like_dk],
    "wrong": {
        "standard deviation instead of variance": abh_q2a1_wrong_standard_deviation,
        "variance of the scaled scores": abh_q2a1_wrong_variance_of,
    },
    "rubric": [
        (
            "States that q.k has mean 0 and variance d_k for independent "
            "unit-variance entries, with the argument (variances of uncorrelated "
            "terms add) (1)"
        ),
        (
            "Explains that widely spread scores make the softmax nearly one-hot and "
            "that its Jacobian diag(p) - pp^T then nearly vanishes, so gradients "
            "vanish (1)"
        ),
        (
            "Shows in the simulation that dividing by sqrt(d_k) keeps the weights "
            "and the gradient steady; overflow is not the reason (a stable softmax "
            "subtracts the maximum) (1)"
        ),
    ],
}


# --- ex-abh-q2a2


QUESTIONS["ex-abh-q2a2"] = {
    "points": 2,
    "manual": True,
    "kind": "explanation",
    "rubric": [
        (
            "Probability vector: positive weights (strictly, for finite scores) "
            "summing to one (0.5)"
        ),
        "Only differences of scores matter; the order of the scores is kept (0.5)",
        "Temperature: uniform as tau -> infinity, argmax as tau -> 0 (0.5)",
        "A score of -infinity gives weight exactly 0 (masking) (0.5)",
    ],
}


# --- ex-abh-q2b


QUESTIONS["ex-abh-q2b"] = {
    "points": 2,
    "manual": True,
    "kind": "explanation",
    "rubric": [
        (
            "A_ij is the share of query i's attention given to key j; rows are "
            "non-negative and sum to one (1)"
        ),
        (
            "AV: each output row is a convex combination (weighted average) of the "
            "value rows, with a proof (0.5)"
        ),
        (
            "A is not symmetric in general, even for symmetric scores, because of "
            "the row normalisation (0.5)"
        ),
    ],
}


# --- ex-abh-q2c


QUESTIONS["ex-abh-q2c"] = {
    "points": 2,
    "manual": True,
    "kind": "explanation",
    "rubric": [
        (
            "One head: one weighting per query and one value map, so the routing "
            "blocks a_ij W_O^T W_V^T, stacked, have rank at most one (1)"
        ),
        (
            "h heads give h independent weightings with the same parameter count "
            "and multiply-adds in the products, because the heads split the width; "
            "only the h n^2 attention weights grow with h (1)"
        ),
    ],
}


# --- ex-abh-q2d


QUESTIONS["ex-abh-q2d"] = {
    "points": 3,
    "manual": True,
    "kind": "explanation",
    "rubric": [
        (
            "Encoder self-attention: no mask, bidirectional; an application (e.g. "
            "classification) (1)"
        ),
        (
            "Decoder self-attention: causal mask; enables generation and parallel "
            "training with teacher forcing; an application (1)"
        ),
        (
            "Cross-attention: queries from the decoder, keys and values from the "
            "encoder, weights of shape (T_dec, T_enc); code run with attnsig (1)"
        ),
    ],
}


# --- ex-abh-q3a


def abh_q3_draw(seed):
    """Question 3's numbers for one student: X (3 x 4, integers) and W_Q, W_K, W_V
    (4 x 2, integers and halves, as strings). Seed 0 gives the book's numbers.

    Every draw has in each row of Q K^T a unique largest product, by at least 1/2,
    so that each output token attends most to one input token, and another reading
    than the book's; entries of Q, K, V at most 4 and products at most 16 in size,
    as in the book; products not symmetric; a scaled map that reads differently by
    columns than by rows, with at least one row not saturated (largest weight < 0.9).
    """
    from fractions import Fraction

    import numpy as np

    if seed == 0:
        return {
            "X": [[1, -1, 0, 2], [0, -1, 2, 1], [-2, 2, -1, 0]],
            "W_Q": [["0", "1"], ["1", "0"], ["-1/2", "0"], ["1", "1"]],
            "W_K": [["1", "-1/2"], ["0", "1"], ["1/2", "-1/2"], ["1", "1/2"]],
            "W_V": [["1", "1/2"], ["-1/2", "0"], ["-1", "2"], ["1/2", "-1"]],
        }

    def exact(m):  # an object array of Fractions: @ multiplies exactly
        return np.array([[Fraction(e) for e in row] for row in m], dtype=object)

    def products(d):
        x = exact(d["X"])
        return (x @ exact(d["W_Q"])) @ (x @ exact(d["W_K"])).T

    def entries(d):  # of Q, K and V
        x = exact(d["X"])
        return [x @ exact(d[n]) for n in ("W_Q", "W_K", "W_V")]

    book_top = [int(np.argmax(row)) for row in products(abh_q3_draw(0))]
    rng = np.random.default_rng(seed)
    pool, p = ["-1", "-1/2", "0", "1/2", "1", "2"], [4, 3, 4, 3, 4, 2]
    while True:
        d = {"X": rng.integers(-2, 3, size=(3, 4)).tolist()}
        for n in ("W_Q", "W_K", "W_V"):
            d[n] = rng.choice(pool, size=(4, 2), p=np.divide(p, sum(p))).tolist()
        s = products(d)
        gaps = [row[-1] - row[-2] for row in np.sort(s, axis=1)]
        top = [int(np.argmax(row)) for row in s]
        z = s.astype(float) / np.sqrt(2)
        w = np.exp(z - z.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)  # the scaled map
        largest = w.max(axis=1).min()
        by_columns = [int(np.argmax(col)) for col in w.T]
        if (
            max(np.abs(m).max() for m in entries(d)) <= 4
            and np.abs(s).max() <= 16
            and min(gaps) >= Fraction(1, 2)
            and top != book_top
            and by_columns != top
            and np.any(s != s.T)
            and largest < 0.9
            and np.any(entries(d)[2] != 0)
        ):
            return d


def abh_q3_cell(variant):
    """The student's data cell of question 3: I_in (the book's X), W_Q, W_K, W_V as
    exact sympy matrices, written as the book writes them."""
    from fractions import Fraction

    def entry(e):
        e = Fraction(e)
        if e.denominator == 1:
            return str(e.numerator)
        return f"R({e.numerator}, {e.denominator})"

    def matrix(m):
        rows = ", ".join("[" + ", ".join(entry(e) for e in row) + "]" for row in m)
        return f"sp.Matrix([{rows}])"

    return (
        "R = sp.Rational\n"
        f"I_in = {matrix(variant['X'])}\n"
        f"W_Q = {matrix(variant['W_Q'])}\n"
        f"W_K = {matrix(variant['W_K'])}\n"
        f"W_V = {matrix(variant['W_V'])}\n"
        "d_k = W_Q.shape[1]\n"
    )


VARIANTS["abh-q3"] = {
    "draw": abh_q3_draw,
    "cell": abh_q3_cell,
    "names": ["R", "I_in", "W_Q", "W_K", "W_V", "d_k"],
    "after": "ex-abh-q3a",
    "describe": "X (I_in) and the weights W_Q, W_K, W_V of the sheet's question 3",
}


def abh_q3a_shapes(Q, K, V, QKt):
    import sympy as sp

    def exact(m):  # entry by entry: sympify(strict) never runs a string as code
        rows = m.tolist() if hasattr(m, "tolist") else m
        return sp.Matrix([[sp.sympify(e, strict=True) for e in r] for r in rows])

    for name, m, shape in (
        ("Q", Q, (3, 2)),
        ("K", K, (3, 2)),
        ("V", V, (3, 2)),
        ("QKt", QKt, (3, 3)),
    ):
        assert m is not ... and exact(m).shape == shape, (
            f"{name} should have shape {shape}"
        )


def abh_q3a_exact(Q, K, V, QKt, variant):
    """Q, K, V or QKt differ from the exact products: X W_Q, X W_K, X W_V and Q K^T,
    without scaling.
    """

    from fractions import Fraction

    import sympy as sp

    # The student's numbers multiplied entry by entry, in Fractions.
    def mul(a, b):
        return [
            [sum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))
        ]

    x = [[Fraction(e) for e in row] for row in variant["X"]]
    q0, k0, v0 = (
        mul(x, [[Fraction(e) for e in row] for row in variant[n]])
        for n in ("W_Q", "W_K", "W_V")
    )
    s0 = mul(q0, [[k0[j][t] for j in range(len(k0))] for t in range(len(k0[0]))])

    def same(a, b):  # entry by entry: sympify(strict) never runs a string as code
        rows = a.tolist() if hasattr(a, "tolist") else a
        a = sp.Matrix([[sp.sympify(e, strict=True) for e in r] for r in rows])
        a = a.applyfunc(lambda e: sp.nsimplify(e, rational=True))
        return a.shape == (len(b), len(b[0])) and a == sp.Matrix(b)

    assert same(Q, q0) and same(K, k0) and same(V, v0), "Q, K or V"
    assert same(QKt, s0), "the products Q K^T, exactly and unscaled"


def abh_q3a_wrong_scaled_scores(QKt):
    import sympy as sp

    QKt = QKt / sp.sqrt(2)
    return {"QKt": QKt}


def abh_q3a_wrong_transposed_scores(QKt):
    QKt = QKt.T
    return {"QKt": QKt}


QUESTIONS["ex-abh-q3a"] = {
    "points": 3,
    "answer": ["Q", "K", "V", "QKt"],
    "describe": (
        "Q, K, V and the unscaled products QKt = Q K^T, exactly (sympy matrices or "
        "exact fractions)"
    ),
    "variant": "abh-q3",
    "public": [abh_q3a_shapes],
    "hidden": [abh_q3a_exact],
    "wrong": {
        "scaled scores": abh_q3a_wrong_scaled_scores,
        "transposed scores": abh_q3a_wrong_transposed_scores,
    },
}


# --- ex-abh-q3b


def abh_q3b_shapes(a_s, out_s, a_r, out_r):
    import numpy as np

    for name, m, shape in (
        ("a_s", a_s, (3, 3)),
        ("out_s", out_s, (3, 2)),
        ("a_r", a_r, (3, 3)),
        ("out_r", out_r, (3, 2)),
    ):
        assert m is not ... and np.shape(np.asarray(m, dtype=float)) == shape, (
            f"{name}: shape {shape}"
        )
    for name, a in (("a_s", a_s), ("a_r", a_r)):
        a = np.asarray(a, dtype=float)
        # three weights, each within one unit of the fourth decimal, sum to 1 +- 3e-4
        assert np.all(a >= 0) and np.allclose(a.sum(axis=1), 1, atol=3.5e-4), (
            f"{name}: each query's weights form a distribution"
        )


def abh_q3b_values(a_s, out_s, a_r, out_r, variant):
    """The attention maps or outputs are off: check the scale 1/sqrt(d_k), the
    row-wise softmax and the product with V.
    """

    from fractions import Fraction

    import numpy as np

    # Plain floats: the student's entries are integers and halves, so X W is exact.
    x = np.array(variant["X"], dtype=float)
    w = {
        n: np.array([[float(Fraction(e)) for e in row] for row in variant[n]])
        for n in ("W_Q", "W_K", "W_V")
    }
    q, k, v = x @ w["W_Q"], x @ w["W_K"], x @ w["W_V"]
    products = q @ k.T
    d_k = k.shape[1]
    # "Four decimals": each weight within one unit of the fourth decimal, so that a
    # hand computation that rounds on the way (sqrt(2) as 1.4142, the scores to four
    # decimals) keeps its marks: half a unit alone fails an entry whose exact value
    # lies near a rounding midpoint. An output from such weights (and rounded itself)
    # within 1e-4 (1 + sum_j |V_jk|). The mistakes are off by far more.
    tol_out = 1e-4 * (1 + np.abs(v).sum(axis=0)) + 1e-9
    for name, a, o, scale in (
        ("scaled", a_s, out_s, 1 / np.sqrt(d_k)),
        ("raw", a_r, out_r, 1.0),
    ):
        z = products * scale
        e = np.exp(z - z.max(axis=1, keepdims=True))
        weights = e / e.sum(axis=1, keepdims=True)  # row-wise softmax
        np.testing.assert_allclose(
            np.asarray(a, dtype=float), weights, rtol=0, atol=1e-4 + 1e-9, err_msg=name
        )
        assert np.all(np.abs(np.asarray(o, dtype=float) - weights @ v) <= tol_out), name


def abh_q3b_wrong_column_wise(QKt, Vn, to_float):
    import numpy as np

    from attnsig.attention import softmax

    a_s = softmax(to_float(QKt) / np.sqrt(2), axis=0)
    out_s = a_s @ Vn
    return {"a_s": a_s, "out_s": out_s}


def abh_q3b_wrong_missing_scale(a_r, out_r):
    a_s, out_s = a_r, out_r
    return {"a_s": a_s, "out_s": out_s}


def abh_q3b_wrong_transposed_map(a_s, Vn):
    a_s = a_s.T
    out_s = a_s @ Vn
    return {"a_s": a_s, "out_s": out_s}


QUESTIONS["ex-abh-q3b"] = {
    "points": 3,
    "answer": ["a_s", "out_s", "a_r", "out_r"],
    "builds": [
        "attnsig.attention.scaled_dot_product_attention",
        "attnsig._attention_core._scaled_dot_product",
        "attnsig._attention_core._attend",
        # one query or several at once, the same attention: a one-line answer too
        "attnsig.heads.single_head_output",
        "attnsig.heads.attention_weights",
        "attnsig.heads.multi_head_output",
        "attnsig.heads._single_head",
        "attnsig.heads._weights",
        # a layer with identity projections is the same attention: its way in, any
        # instance (from_weights builds one through __init__) and both forward paths
        "attnsig.attention.MultiHeadAttention.__call__",
        "attnsig.attention.MultiHeadAttention.__init__",
        "attnsig.attention.MultiHeadAttention.from_weights",
        "attnsig.attention.MultiHeadAttention._readable_forward",
        "attnsig._attention_fast.forward",
        # the fast path's own kernels: scores, softmax and A V in one call each (the
        # softmax alone stays free: the book's cells use it)
        "attnsig._attention_fast._attend_heads",
        # the synthesizers' and the recall model's attention steps take any logits
        "attnsig.synthesizer.attend",
        "attnsig.synthesizer.dense_attention",
        "attnsig.synthesizer.random_attention",
        "attnsig.synthesizer.DenseSynthesizer.__init__",
        "attnsig.recall.model._attention",
        "attnsig._attention_fast._attend_stacked",
        "attnsig._attention_fast._attend_by_blocks",
    ],
    "builds_in_cells": True,
    "describe": (
        "a_s, out_s: attention map and output with the 1/sqrt(d_k) scaling;\n"
        "a_r, out_r: the same without it (arrays, at least four decimals)"
    ),
    "variant": "abh-q3",
    "public": [abh_q3b_shapes],
    "hidden": [abh_q3b_values],
    "wrong": {
        "column-wise softmax": abh_q3b_wrong_column_wise,
        "missing scale": abh_q3b_wrong_missing_scale,
        "transposed map": abh_q3b_wrong_transposed_map,
    },
}


# --- ex-abh-q3c


QUESTIONS["ex-abh-q3c"] = {
    "points": 1,
    "manual": True,
    "kind": "figure",
    "rubric": [
        (
            "Two heat maps (scaled and unscaled), queries as rows and keys as "
            "columns, colour scale 0-1, labelled axes (1)"
        )
    ],
}


# --- ex-abh-q3d


def abh_q3d_form(attends_to):
    assert attends_to is not ..., "one input token per output token"
    assert not isinstance(attends_to, (set, frozenset)), (
        "a list in the order of the outputs (a set has no order)"
    )
    if isinstance(attends_to, dict):  # output -> input
        assert sorted(attends_to) == [1, 2, 3], (
            "a dict: its keys are the outputs 1, 2, 3"
        )
        attends_to = [attends_to[k] for k in (1, 2, 3)]
    assert len(list(attends_to)) == 3, "one input token per output token"
    assert all(int(j) in (1, 2, 3) for j in attends_to), "tokens are numbered 1, 2, 3"


def abh_q3d_reading(attends_to, variant):
    """Read the map by rows: each output row's largest weight names the input it
    attends to.
    """

    from fractions import Fraction

    import sympy as sp

    # The softmax keeps the order within a row: the largest exact product wins.
    x = sp.Matrix(variant["X"])
    w_q, w_k = (
        sp.Matrix([[Fraction(e) for e in row] for row in variant[n]])
        for n in ("W_Q", "W_K")
    )
    products = (x * w_q) * (x * w_k).T
    expected = [
        1 + max(range(products.cols), key=lambda j, i=i: products[i, j])
        for i in range(products.rows)
    ]
    if isinstance(attends_to, dict):  # output -> input, as the form check reads it
        attends_to = [attends_to[k] for k in (1, 2, 3)]
    assert [int(j) for j in attends_to] == expected


def abh_q3d_wrong_0_based(a_s):
    attends_to = [int(j) for j in a_s.argmax(axis=1)]
    return {"attends_to": attends_to}


def abh_q3d_wrong_read_by(a_s):
    attends_to = [int(j) + 1 for j in a_s.argmax(axis=0)]
    return {"attends_to": attends_to}


QUESTIONS["ex-abh-q3d"] = {
    "points": 1,
    "answer": ["attends_to"],
    "describe": (
        "attends_to: for outputs 1, 2, 3, the input token (numbered 1 to 3) each "
        "attends to most\n(a list in the order of the outputs, or a dict output -> "
        "input)"
    ),
    "variant": "abh-q3",
    "public": [abh_q3d_form],
    "hidden": [abh_q3d_reading],
    "wrong": {
        "0-based": abh_q3d_wrong_0_based,
        "read by columns": abh_q3d_wrong_read_by,
    },
}


# --- ex-abh-q23-verdict


QUESTIONS["ex-abh-q23-verdict"] = {
    "points": 3,
    "verdicts": True,
    "rubric": [
        (
            "Written part: reads the garbled entries as the book does (W_Q row 3 = "
            "-1/2, Q_31 = 5/2, (QK^T)_12 = -5/2) and says why (1)"
        ),
        (
            "Written part: notes that the sheet's map and outputs are for unscaled "
            "scores and rounded weights, and points to a computation for every "
            "verdict that is not 'right' (1)"
        ),
    ],
}
