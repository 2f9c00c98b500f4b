"""The questions of tour.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}


# --- ex-tour-1d


def tour_1d_callable(signature_term):
    assert callable(signature_term), "define signature_term as a function of a and k"
    value = signature_term(0.5, 3)
    assert float(value) == value and abs(value) < 1, "a real number, small for a = 1/2"


def tour_1d_random_cases(signature_term):
    """The signature term is wrong on random paths: a 1-d path's level-k term
    depends on its increment only.
    """

    import math

    import numpy as np

    rng = np.random.default_rng(17)
    for _ in range(40):
        a, k = rng.uniform(-3, 3), int(rng.integers(1, 9))
        np.testing.assert_allclose(
            signature_term(a, k), a**k / math.factorial(k), rtol=1e-12
        )


def tour_1d_against_attnsig(signature_term):
    """The signature term does not agree with attnsig.signature on some path and
    level.
    """

    import numpy as np

    from attnsig import signature

    a = -0.75
    sig = signature.signature(np.array([[0.0], [a]]), depth=6)
    np.testing.assert_allclose(
        [signature_term(a, k) for k in range(1, 7)], sig, rtol=1e-12
    )


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
    ],
    "describe": (
        "signature_term(a, k): the level-k term of the signature of X_t = a t, k >= 1"
    ),
    "public": [tour_1d_callable],
    "hidden": [tour_1d_random_cases, tour_1d_against_attnsig],
    "wrong": {
        "divided by k": tour_1d_wrong_divided_by,
        "no factorial": tour_1d_wrong_no_factorial,
    },
}
