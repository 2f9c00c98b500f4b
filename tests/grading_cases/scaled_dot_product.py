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


def maps_as_a_dataframe_and_decimals(variant):
    """The rounded maps as pandas DataFrames, the outputs as Decimals (exact
    four-decimal strings): numbers in other containers, read as numbers."""
    from decimal import Decimal

    import pandas as pd

    found = maps_to_four_decimals_by_hand(variant)
    for tag in "sr":
        found[f"a_{tag}"] = pd.DataFrame(found[f"a_{tag}"])
        found[f"out_{tag}"] = [[Decimal(f"{x:.4f}") for x in row]
                               for row in found[f"out_{tag}"]]  # fmt: skip
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


def reading_as_a_dict(variant):
    """Output -> input, as the statement words it ("for outputs 1, 2, 3")."""
    found = maps_to_four_decimals_by_hand(variant)
    rows = found["a_s"].argmax(axis=1)
    found["attends_to"] = {i + 1: int(j) + 1 for i, j in enumerate(rows)}
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
        maps_as_a_dataframe_and_decimals,
    ],
    "ex-abh-q3d": [reading_the_scaled_map, reading_the_raw_map, reading_as_a_dict],
}


def _notebook_names(variant):
    """The notebook's names an answer cell of ex-abh-q3b may read, and a layer made
    outside the question's cells (the chapter makes several)."""
    import numpy as np

    from attnsig import _attention_fast
    from attnsig.attention import MultiHeadAttention

    q, k, v = _floats(variant)
    layer = MultiHeadAttention(2, 1, bias=False)
    names = {"np": np, "MultiHeadAttention": MultiHeadAttention, "layer": layer}
    return {**names, "_attention_fast": _attention_fast, "Qn": q, "Kn": k, "Vn": v}


# Answer cells that call the package where the question asks to build it, with the
# notebook names they read: unblocked they earn full marks, in the graded run they
# score 0 (tests/test_builds.py). A one-head layer with identity projections is the
# scaled map; sqrt(2) I as the query block takes the scaling back out.
PACKAGE = {
    "ex-abh-q3b": (
        _notebook_names,
        [
            "eye = np.eye(2)\n"
            "mha = MultiHeadAttention.from_weights(np.vstack([eye] * 3), None, eye,"
            " None, 1)\n"
            "out_s, w = mha(Qn, Kn, Vn)\na_s = w[0]\n"
            "raw = MultiHeadAttention.from_weights(\n"
            "    np.vstack([np.sqrt(2) * eye, eye, eye]), None, eye, None, 1\n)\n"
            "out_r, w = raw(Qn, Kn, Vn, reference=True)\na_r = w[0]",
            "mha = MultiHeadAttention(2, 1, bias=False)\n"
            "mha.in_proj_weight = np.vstack([np.eye(2)] * 3)\n"
            "mha.out_proj_weight = np.eye(2)\n"
            "out_s, a_s = mha(Qn, Kn, Vn)\n"
            "mha.in_proj_weight[:2] *= np.sqrt(2)\n"
            "out_r, a_r = mha(Qn, Kn, Vn)\na_s, a_r = a_s[0], a_r[0]",
            "layer.in_proj_weight = np.vstack([np.eye(2)] * 3)\n"
            "layer.out_proj_weight = np.eye(2)\n"
            "out_s, a_s = layer(Qn, Kn, Vn, reference=True)\n"
            "layer.in_proj_weight[:2] *= np.sqrt(2)\n"
            "out_r, a_r = layer._readable_forward(Qn, Kn, Vn, None, False)\n"
            "a_s, a_r = a_s[0], a_r[0]",
            "layer.in_proj_weight = np.vstack([np.sqrt(2) * np.eye(2), np.eye(2),"
            " np.eye(2)])\n"
            "layer.out_proj_weight = np.eye(2)\n"
            "out_r, a_r = _attention_fast.forward(layer, Qn, Kn, Vn, None, False)\n"
            "qs = Qn / np.sqrt(2)\n"
            "out_s, a_s = layer._readable_forward(qs, Kn, Vn, None, False)\n"
            "a_s, a_r = a_s[0], a_r[0]",
            # the fast path's private kernels, without a layer
            "a_s, out_s = np.empty((1, 3, 3)), np.empty((1, 3, 2))\n"
            "a_r, out_r = np.empty((1, 3, 3)), np.empty((1, 3, 2))\n"
            "_attention_fast._attend_stacked(\n"
            "    Qn[None], Kn[None], Vn[None], None, False, 2**-0.5, a_s, out_s\n"
            ")\n"
            "_attention_fast._attend_by_blocks(\n"
            "    Qn[None], Kn[None], Vn[None], None, False, 1.0, a_r, out_r, ()\n"
            ")\n"
            "a_s, out_s, a_r, out_r = a_s[0], out_s[0], a_r[0], out_r[0]",
        ],
    )
}
