"""The questions of tour.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}


# --- ex-tour-1d


def tour_1d_callable(signature_term):
    import numpy as np

    assert callable(signature_term), "define signature_term as a function of a and k"
    # One number: exact (a Fraction, a SymPy number) or a float, or a one-element
    # array or list holding it (np.array([x]), [x]), as the hidden checks read it.
    value = np.asarray(signature_term(0.5, 3), dtype=object).ravel()
    assert value.size == 1, "signature_term(a, k) returns one number"
    assert abs(float(value[0])) < 1, "a real number, small for a = 1/2"


def tour_1d_random_cases(signature_term):
    """The signature term is wrong on random paths: a 1-d path's level-k term
    depends on its increment only.
    """

    import math

    import numpy as np

    def term(a, k):  # one number; a one-element array or list is the number it holds
        value = np.asarray(signature_term(a, k), dtype=object).ravel()
        assert value.size == 1, "signature_term(a, k) returns one number"
        return float(value[0])

    # rtol 1e-4: the statement asks for no precision, so float32, five significant
    # digits or a fine quadrature are answers; a wrong formula is off by a factor
    rng = np.random.default_rng(17)
    for _ in range(40):
        a, k = rng.uniform(-3, 3), int(rng.integers(1, 9))
        np.testing.assert_allclose(term(a, k), a**k / math.factorial(k), rtol=1e-4)


def tour_1d_iterated_integrals(signature_term):
    """The signature term is not the iterated integral of X_t = a t over the simplex
    0 < t_1 < ... < t_k < 1 for some a and level k.
    """

    import numpy as np

    def term(a, k):  # one number; a one-element array or list is the number it holds
        value = np.asarray(signature_term(a, k), dtype=object).ravel()
        assert value.size == 1, "signature_term(a, k) returns one number"
        return float(value[0])

    # S_k(t) = int_0^t S_{k-1}(s) a ds with S_0 = 1, level by level on a fine grid
    # (cumulative trapezoid rule; its relative error, of order h^2, is below 1e-7).
    grid = np.linspace(0.0, 1.0, 20001)
    h = grid[1] - grid[0]
    for a in (-0.75, 1.5, 2.25):
        level = np.ones_like(grid)
        for k in range(1, 7):
            f = a * level
            level = np.concatenate([[0.0], np.cumsum(h / 2 * (f[:-1] + f[1:]))])
            np.testing.assert_allclose(term(a, k), level[-1], rtol=1e-4)  # as above


def tour_1d_wrong_divided_by():
    def signature_term(a, k):
        return a**k / k

    return {"signature_term": signature_term}


def tour_1d_wrong_no_factorial():
    def signature_term(a, k):
        return a**k

    return {"signature_term": signature_term}


QUESTIONS["ex-tour-1d"] = {
    "points": 2,
    "answer": ["signature_term"],
    "builds": [
        "attnsig.signature.signature",
        "attnsig._signature_numpy.signature",
        "attnsig._signature_numpy.signature_horner",
        "attnsig._signature_numpy.signature_meet_in_middle",
        # private, but one line each: a segment's signature, and the reference route
        "attnsig.signature._segment_exponential",
        "attnsig.signature._signature_reference",
        # the compiled route: its Python entry, and its kernels (numba dispatchers,
        # blocked where their module holds them, `attnsig._grading.blocking`)
        "attnsig._signature_numba.signature",
        "attnsig._signature_numba.signature_per_path",
        "attnsig._signature_numba.signature_lanes",
        "attnsig._signature_numba.signature_pieces",
        # the NumPy route's own kernels, a call each
        "attnsig._signature_numpy._signature_horner",
        "attnsig._signature_numpy._horner",
        "attnsig._signature_numpy._meet_in_middle",
        "attnsig._signature_numpy._cached_plan",
        "attnsig._signature_numpy._meet_in_middle_plan",
    ],
    "describe": (
        "signature_term(a, k): the level-k term of the signature of X_t = a t, k >= 1"
    ),
    "fixed": "the answer is a function of a and k, checked on many values",
    "public": [tour_1d_callable],
    "hidden": [tour_1d_random_cases, tour_1d_iterated_integrals],
    "wrong": {
        "divided by k": tour_1d_wrong_divided_by,
        "no factorial": tour_1d_wrong_no_factorial,
    },
}
