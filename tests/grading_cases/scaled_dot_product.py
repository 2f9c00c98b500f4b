"""Answers to scaled-dot-product.ipynb's checked questions by other routes than the
chapter's (tests/test_grading_cases.py). Each function returns one submission's names;
the checks file's typical mistakes are applied to the first of each question's list."""

# Question 3's alternatives take the student's draw (`variant`: X, W_Q, W_K, W_V, with
# the weights as strings "1/2", ...) and compute from it by routes other than the
# chapter's sympy products.


def _float_matrices(variant):
    """X and the weights as float arrays: integers and halves are exact floats."""
    from fractions import Fraction

    import numpy as np

    def to_array(m):
        return np.array([[float(Fraction(str(e))) for e in r] for r in m])

    return to_array(variant["X"]), *(
        to_array(variant[n]) for n in ("W_Q", "W_K", "W_V")
    )


def variance_by_simulation_float32():
    """Scores from float32 draws, variance with ddof=1, dims as an array."""
    import numpy as np

    rng = np.random.default_rng(5)
    dims = np.array([1, 4, 16, 64, 128, 256, 1024])
    score_var = np.array(
        [
            np.var(np.einsum("nd,nd->n", *rng.standard_normal((2, 6000, d), "f4")),
                   ddof=1)
            for d in dims
        ]
    )  # fmt: skip
    return {"dims": dims, "score_var": score_var}


def variance_exact():
    """Var(q.k) = d_k exactly (the sum of d_k products of variance 1), as lists."""
    dims = [2, 8, 32, 100, 256, 300, 512]
    return {"dims": dims, "score_var": [float(d) for d in dims]}


def _floats(variant):
    x, w_q, w_k, w_v = _float_matrices(variant)
    return x @ w_q, x @ w_k, x @ w_v


def products_as_sympy_from_floats(variant):
    """Floating-point products, made exact by nsimplify (halves are exact)."""
    import sympy as sp

    q, k, v = (sp.Matrix(m.tolist()).applyfunc(sp.nsimplify) for m in _floats(variant))
    return {"Q": q, "K": k, "V": v, "QKt": q * k.T}


def products_as_fractions_by_hand(variant):
    """Nested lists of Fractions, every sum written out."""
    from fractions import Fraction as F

    def mul(a, b):
        return [
            [sum(F(a[i][t]) * F(b[t][j]) for t in range(len(b))) for j in
             range(len(b[0]))]
            for i in range(len(a))
        ]  # fmt: skip

    x = variant["X"]
    q, k, v = (mul(x, variant[n]) for n in ("W_Q", "W_K", "W_V"))
    kt = [list(col) for col in zip(*k, strict=True)]
    return {"Q": q, "K": k, "V": v, "QKt": mul(q, kt)}


def _context(variant):
    """The names the checks file's typical mistakes read (QKt exact, Vn, to_float)."""
    import numpy as np

    found = products_as_sympy_from_floats(variant)
    return {
        "QKt": found["QKt"],
        "Vn": np.array(found["V"].tolist(), dtype=float),
        "to_float": lambda m: np.array(m.tolist(), dtype=float),
    }


def maps_to_four_decimals_by_hand(variant):
    """The weights rounded to four decimals first, then multiplied, then rounded."""
    import numpy as np

    q, k, v = _floats(variant)
    found = _context(variant)
    for tag, scale in (("s", 1 / np.sqrt(k.shape[1])), ("r", 1.0)):
        e = np.exp(q @ k.T * scale)
        a = np.round(e / e.sum(axis=1, keepdims=True), 4)
        found[f"a_{tag}"], found[f"out_{tag}"] = a, np.round(a @ v, 4)
    return found


def maps_exact_with_sympy(variant):
    """Exact weights exp(s)/sum exp, evaluated to 20 digits, as lists of floats."""
    import sympy as sp

    found = {}
    exact = products_as_fractions_by_hand(variant)
    qkt, v = sp.Matrix(exact["QKt"]), sp.Matrix(exact["V"])
    for tag, scale in (("s", 1 / sp.sqrt(2)), ("r", sp.Integer(1))):
        e = (qkt * scale).applyfunc(sp.exp)
        a = sp.Matrix([[e[i, j] / sum(e[i, :]) for j in range(3)] for i in range(3)])
        found[f"a_{tag}"] = [[float(x.evalf(20)) for x in a.row(i)] for i in range(3)]
        found[f"out_{tag}"] = (a * v).evalf(20).tolist()
    return found


def maps_by_hand_rounding_on_the_way(variant):
    """By hand to four decimals: sqrt(2) as 1.4142, the scaled scores rounded to four
    decimals, then the weights, the outputs from the rounded weights, all rounded."""
    import numpy as np

    q, k, v = _floats(variant)
    found = _context(variant)
    for tag, divide in (("s", 1.4142), ("r", 1.0)):
        z = np.round(q @ k.T / divide, 4)
        e = np.exp(z - z.max(axis=1, keepdims=True))
        a = np.round(e / e.sum(axis=1, keepdims=True), 4)
        found[f"a_{tag}"], found[f"out_{tag}"] = a, np.round(a @ v, 4)
    return found


def reading_the_scaled_map(variant):
    """Each row's largest weight, 1-based."""
    found = maps_to_four_decimals_by_hand(variant)
    found["attends_to"] = [int(j) + 1 for j in found["a_s"].argmax(axis=1)]
    return found


def reading_the_raw_map(variant):
    """The unscaled map has the same order within each row: a tuple of NumPy ints."""
    import numpy as np

    found = maps_exact_with_sympy(variant)
    found["attends_to"] = tuple(np.argmax(np.array(found["a_r"]), axis=1) + 1)
    return found


# The book's draw (seed 0), for a harness that calls a mistake without a variant.
BOOK = {
    "X": [[1, -1, 0, 2], [0, -1, 2, 1], [-2, 2, -1, 0]],
    "W_Q": [["0", "1"], ["1", "0"], ["-1/2", "0"], ["1", "1"]],
    "W_K": [["1", "-1/2"], ["0", "1"], ["1/2", "-1/2"], ["1", "1/2"]],
    "W_V": [["1", "1/2"], ["-1/2", "0"], ["-1", "2"], ["1/2", "-1"]],
}


def scaled_by_1_over_d_k(variant=None):
    """The scores divided by d_k instead of sqrt(d_k); the raw map right."""
    import numpy as np

    q, k, v = _floats(variant or BOOK)
    found = {}
    for tag, scale in (("s", 1 / k.shape[1]), ("r", 1.0)):
        e = np.exp(q @ k.T * scale)
        found[f"a_{tag}"] = e / e.sum(axis=1, keepdims=True)
        found[f"out_{tag}"] = found[f"a_{tag}"] @ v
    return found


MISTAKES = {"ex-abh-q3b": [scaled_by_1_over_d_k]}

ALTERNATIVES = {
    "ex-abh-q2a1": [variance_by_simulation_float32, variance_exact],
    "ex-abh-q3a": [products_as_sympy_from_floats, products_as_fractions_by_hand],
    "ex-abh-q3b": [
        maps_to_four_decimals_by_hand,
        maps_exact_with_sympy,
        maps_by_hand_rounding_on_the_way,
    ],
    "ex-abh-q3d": [reading_the_scaled_map, reading_the_raw_map],
}
