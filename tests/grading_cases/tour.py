"""Answers to tour.ipynb's checked question by other routes
(tests/test_grading_cases.py)."""


def term_by_the_gamma_function():
    """a^k / Gamma(k + 1), a NumPy float."""
    import math

    import numpy as np

    def signature_term(a, k):
        return np.float64(a) ** k / math.gamma(k + 1)

    return {"signature_term": signature_term}


def term_by_iterated_integrals():
    """The k-fold iterated integral of dX = a dt over the simplex, built up level by
    level: S_k(t) = int_0^t S_{k-1}(s) a ds, S_k(t) = a^k t^k / k!, via the recursion
    on the coefficient c_k = c_{k-1} a / k."""

    def signature_term(a, k):
        c = 1.0
        for j in range(1, k + 1):
            c = c * a / j
        return c

    return {"signature_term": signature_term}


def term_as_a_fraction():
    """The exact value a^k / k! as a Fraction (a float a is a binary fraction)."""
    import math
    from fractions import Fraction

    def signature_term(a, k):
        return Fraction(a) ** k / math.factorial(k)

    return {"signature_term": signature_term}


def term_as_a_sympy_number():
    """The same with SymPy: a Float to a power over a SymPy factorial."""
    import sympy as sp

    def signature_term(a, k):
        return sp.Float(a, 30) ** k / sp.factorial(k)

    return {"signature_term": signature_term}


def term_as_a_one_element_array():
    """a^k / k! in a one-element NumPy array, as a vectorised formula leaves it."""
    import math

    import numpy as np

    def signature_term(a, k):
        return np.array([a]) ** k / math.factorial(k)

    return {"signature_term": signature_term}


def term_as_a_one_element_list():
    """a^k / k! in a one-element list."""
    import math

    def signature_term(a, k):
        return [a**k / math.factorial(k)]

    return {"signature_term": signature_term}


ALTERNATIVES = {
    "ex-tour-1d": [
        term_by_the_gamma_function,
        term_by_iterated_integrals,
        term_as_a_fraction,
        term_as_a_sympy_number,
        term_as_a_one_element_array,
        term_as_a_one_element_list,
    ]
}
