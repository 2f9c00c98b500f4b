"""Answers to signatures.ipynb's checked questions by other routes than the chapter's.

Each function returns the answer names of one submission (tests/test_grading_cases.py).
"""


def area_by_the_shuffle_identity():
    """A = S^12 - S^1 S^2 / 2, since S^1 S^2 = S^12 + S^21 (the rubric accepts it)."""
    from attnsig.signature import signature, word_index

    def swept_area(path):
        sig = signature(path, 2)
        s1, s2 = sig[word_index((0,), 2)], sig[word_index((1,), 2)]
        return sig[word_index((0, 1), 2)] - s1 * s2 / 2

    return {"swept_area": swept_area, "area_words": [(0,), (1,), (0, 1)]}


def area_by_chen_by_hand():
    """The level-2 terms by Chen's identity segment by segment, no package, and the
    other half of the shuffle identity: A = S^1 S^2 / 2 - S^21."""
    import numpy as np

    def swept_area(path):
        s1 = s2 = s21 = 0.0
        for dx, dy in np.diff(np.asarray(path, dtype=float), axis=0):
            s21 += s2 * dx + dy * dx / 2  # S^21 = int (u^2 - u^2_0) du^1
            s1, s2 = s1 + dx, s2 + dy
        return s1 * s2 / 2 - s21

    return {"swept_area": swept_area, "area_words": [(1,), (0,), (1, 0)]}


def area_by_triangles():
    """The thin triangles (1/2) chord x step summed: the definition, as the levels'
    combination (S^12 - S^21)/2 would give it."""
    import numpy as np

    def swept_area(path):
        path = np.asarray(path, dtype=float)
        chord, step = path[:-1] - path[0], np.diff(path, axis=0)
        return 0.5 * np.sum(chord[:, 0] * step[:, 1] - chord[:, 1] * step[:, 0])

    return {"swept_area": swept_area, "area_words": ((1, 0), (0, 1))}


def recall_by_the_hilbert_matrix_in_high_precision():
    """Normal equations on monomials, H c = (k! terms_k), solved with 50 digits."""
    import math

    import mpmath
    import numpy as np

    def coefficients(terms):
        with mpmath.workdps(50):
            n = len(terms)
            gram = mpmath.matrix(n, n)
            for i in range(n):
                for j in range(n):
                    gram[i, j] = mpmath.mpf(1) / (i + j + 1)
            moments = mpmath.matrix([mpmath.mpf(float(a)) * math.factorial(k)
                                     for k, a in enumerate(terms)])  # fmt: skip
            return [float(c) for c in mpmath.lu_solve(gram, moments)]

    def reconstruct_increment(terms, t):
        t = np.asarray(t, dtype=float)
        c = coefficients(terms)
        return sum(cj * t ** (j + 1) / (j + 1) for j, cj in enumerate(c))

    def fourier_from_terms(terms, n):
        z = -2j * math.pi * n
        return complex(sum(z**k * complex(a) for k, a in enumerate(terms)))

    return {
        "reconstruct_increment": reconstruct_increment,
        "fourier_from_terms": fourier_from_terms,
    }


def recall_by_legendre_from_numpy():
    """Orthonormal shifted Legendre polynomials from numpy.polynomial: c_j = sum_k
    a_jk k! terms_k, U_N = sum_j c_j int_0^t P_j; the series by Horner's rule."""
    import math

    import numpy as np
    from numpy.polynomial import legendre as L
    from numpy.polynomial import polynomial as P

    def reconstruct_increment(terms, t):
        t = np.asarray(t, dtype=float)
        total = np.zeros_like(t)
        for j in range(len(terms)):
            basis = L.Legendre.basis(j, domain=[0, 1]) * math.sqrt(2 * j + 1)
            power = basis.convert(kind=P.Polynomial, domain=[0, 1], window=[0, 1])
            a = power.coef
            c = sum(a[k] * math.factorial(k) * terms[k] for k in range(len(a)))
            total = total + c * basis.integ(lbnd=0)(t)
        return total

    def fourier_from_terms(terms, n):
        z, value = -2j * math.pi * n, 0j
        for a in reversed(list(terms)):
            value = value * z + a
        return value

    return {
        "reconstruct_increment": reconstruct_increment,
        "fourier_from_terms": fourier_from_terms,
    }


def recall_in_exact_arithmetic():
    """The Hilbert system solved in fractions (the terms read as exact rationals):
    the reconstruction is an object array of Fractions, the right numbers (R12b M-6
    scored it 0 before)."""
    import math
    from fractions import Fraction

    import numpy as np
    import sympy as sp

    def coefficients(terms):
        n = len(terms)
        gram = sp.Matrix(n, n, lambda i, j: sp.Rational(1, i + j + 1))
        moments = sp.Matrix(
            [
                sp.Rational(Fraction(float(a))) * math.factorial(k)
                for k, a in enumerate(terms)
            ]
        )
        return [Fraction(int(c.p), int(c.q)) for c in gram.LUsolve(moments)]

    def reconstruct_increment(terms, t):
        t = np.array([Fraction(float(x)) for x in np.ravel(t)], dtype=object)
        c = coefficients(terms)
        return sum(cj * t ** (j + 1) / (j + 1) for j, cj in enumerate(c))

    # the Fourier coefficients as in the first route: only the reconstruction differs
    hilbert = recall_by_the_hilbert_matrix_in_high_precision()
    return {
        "reconstruct_increment": reconstruct_increment,
        "fourier_from_terms": hilbert["fourier_from_terms"],
    }


def area_words_all_of_level_two():
    """Every word of level two: the area is a function of them, but two are not
    needed (the question asks which entries, and how many)."""
    return {"area_words": [(0, 0), (0, 1), (1, 0), (1, 1)]}


def area_words_by_the_shuffle_identity_with_both():
    """S^1, S^2 and both level-two words: either of the last two can go."""
    return {"area_words": [(0,), (1,), (0, 1), (1, 0)]}


ALTERNATIVES = {
    "sigch-ex-area": [
        area_by_the_shuffle_identity,
        area_by_chen_by_hand,
        area_by_triangles,
    ],
    "sigch-ex-recall": [
        recall_by_the_hilbert_matrix_in_high_precision,
        recall_by_legendre_from_numpy,
        recall_in_exact_arithmetic,
    ],
}


def recall_with_an_imaginary_part():
    """The right real part and an imaginary part that should not be there (R18b: a
    conversion to float once dropped it)."""
    import numpy as np

    route = recall_by_the_hilbert_matrix_in_high_precision()
    right = route["reconstruct_increment"]

    def reconstruct_increment(terms, t):
        return np.array(right(terms, t), dtype=object) + 0.25j

    return {**route, "reconstruct_increment": reconstruct_increment}


def recall_as_text():
    """The right numbers written out as text, in an object array."""
    import numpy as np

    route = recall_by_the_hilbert_matrix_in_high_precision()
    right = route["reconstruct_increment"]

    def reconstruct_increment(terms, t):
        return np.array([repr(float(v)) for v in right(terms, t)], dtype=object)

    return {**route, "reconstruct_increment": reconstruct_increment}


MISTAKES = {
    "sigch-ex-area": [
        area_words_all_of_level_two,
        area_words_by_the_shuffle_identity_with_both,
    ],
    "sigch-ex-recall": [recall_with_an_imaginary_part, recall_as_text],
}
