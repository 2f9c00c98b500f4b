"""The questions of signatures.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}


# --- sigch-ex-area


def sigch_ex_area_form(swept_area, area_words):
    import numpy as np

    assert callable(swept_area), "define swept_area as a function of a path"
    value = swept_area(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]))
    assert np.ndim(value) == 0, "an area is one number"
    # a list or a row of an array is a word as well as a tuple; a string is not: "12"
    assert area_words is not ... and all(
        isinstance(w, tuple | list) or (isinstance(w, np.ndarray) and w.ndim == 1)
        for w in area_words
    ), "words as tuples"


def sigch_ex_area_random_paths(swept_area):
    """swept_area is wrong on random paths: the signed (Levy) area, by any valid
    formula.
    """

    import numpy as np

    rng = np.random.default_rng(17)
    for length in (2, 3, 5, 12, 40):
        for _ in range(4):
            path = rng.normal(size=(length, 2)).cumsum(axis=0) * rng.uniform(0.2, 3)
            x, y = path[:, 0], path[:, 1]
            shoelace = 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
            np.testing.assert_allclose(
                float(swept_area(path)), shoelace, rtol=1e-9, atol=1e-12
            )


def sigch_ex_area_words(area_words):
    """area_words is not a set of signature entries that determines the area with
    none to spare: every word needed, none that could be left out.
    """

    import itertools
    import math

    import numpy as np

    words = [tuple(int(a) for a in w) for w in area_words]
    assert words, "a list of words"
    assert len(set(words)) == len(words), "each word once"
    assert len(words) <= 8, "at most 8 words"
    assert all(1 <= len(w) <= 4 and set(w) <= {0, 1} for w in words), (
        "words of one to four 0-based letters, 0 or 1"
    )
    # Entries of piecewise linear paths by Chen's identity, segment by segment:
    # S^w(path + step) = sum over the splits w = ab of S^a(path) step^b / |b|!.
    prefixes = sorted({w[:i] for w in words for i in range(len(w) + 1)}, key=len)
    rng = np.random.default_rng(41)
    entries, areas = [], []
    for _ in range(120):
        path = rng.normal(size=(int(rng.integers(2, 7)), 2)).cumsum(axis=0)
        value = dict.fromkeys(prefixes, 0.0)
        value[()] = 1.0
        for step in np.diff(path, axis=0):
            value = {
                w: sum(
                    value[w[:i]]
                    * math.prod(step[a] for a in w[i:])
                    / math.factorial(len(w) - i)
                    for i in range(len(w) + 1)
                )
                for w in prefixes
            }
        entries.append([value[w] for w in words])
        chord, step = path[:-1] - path[0], np.diff(path, axis=0)
        areas.append(0.5 * np.sum(chord[:, 0] * step[:, 1] - chord[:, 1] * step[:, 0]))
    entries, areas = np.array(entries), np.array(areas)

    def determines(columns):
        # The area is a polynomial of the entries (a function of them at all only
        # if of degree <= 2: level k scales like theta^k, the area like theta^2).
        e = entries[:, columns]
        pairs = itertools.combinations_with_replacement(range(len(columns)), 2)
        features = [np.ones(len(e)), *e.T, *(e[:, i] * e[:, j] for i, j in pairs)]
        a = np.array(features).T
        fit = np.linalg.lstsq(a, areas, rcond=None)[0]
        return np.linalg.norm(a @ fit - areas) <= 1e-8 * np.linalg.norm(areas)

    everything = list(range(len(words)))
    assert determines(everything), "these entries do not determine the area"
    assert not any(determines([i for i in everything if i != j]) for j in everything), (
        "a word that could be left out"
    )


def sigch_ex_area_wrong_1_based():
    area_words = [(1, 2), (2, 1)]
    return {"area_words": area_words}


def sigch_ex_area_wrong_no_factor():
    from attnsig.signature import signature, word_index

    def swept_area(path):
        sig = signature(path, 2)
        return sig[word_index((0, 1), 2)] - sig[word_index((1, 0), 2)]

    return {"swept_area": swept_area}


def sigch_ex_area_wrong_unsigned_area():
    import numpy as np

    def swept_area(path):
        chord, step = path[:-1] - path[0], np.diff(path, axis=0)
        return 0.5 * np.sum(np.abs(chord[:, 0] * step[:, 1] - chord[:, 1] * step[:, 0]))

    return {"swept_area": swept_area}


QUESTIONS["sigch-ex-area"] = {
    "points": 3,
    "answer": ["swept_area", "area_words"],
    "fixed": (
        "the answers are a function of any planar path and a list of words; no "
        "numbers are given"
    ),
    "builds": [
        "attnsig.signature.levy_area",
        "attnsig.signature.levy_area_matrix",
    ],
    "describe": (
        "swept_area(path): the signed area (counter-clockwise positive) swept by "
        "the chord from path[0]\n"
        "to the moving point, for a sampled planar path of shape (L, 2) read as "
        "piecewise linear,\n"
        "computed from its signature; area_words: the words of the signature "
        "entries it needs, a list\n"
        "of tuples of 0-based letters (the word 12 is (0, 1))"
    ),
    "public": [sigch_ex_area_form],
    "hidden": [sigch_ex_area_random_paths, sigch_ex_area_words],
    "wrong": {
        "1-based words": sigch_ex_area_wrong_1_based,
        "no factor 1/2": sigch_ex_area_wrong_no_factor,
        "unsigned area": sigch_ex_area_wrong_unsigned_area,
    },
    "rubric": [
        (
            "Derives the signed area of the thin triangles, (1/2)(u_t - u_0) x du_t, "
            "and identifies S^{ij} = int (u^i - u^i_0) du^j: A = (S^12 - S^21)/2, "
            "two level-two entries (both needed; S^12 - S^1 S^2 / 2 by the shuffle "
            "identity is the same number) (1)"
        ),
        (
            "Checks against the shoelace formula and a direct integral, and draws "
            "the region (1)"
        ),
        (
            "Says the area is signed and why it matters: the unsigned area is not a "
            "function of the signature (a tree-like out-and-back path has the "
            "trivial signature but sweeps a positive area) (1)"
        ),
    ],
}


# --- sigch-ex-recall


def sigch_ex_recall_form(reconstruct_increment, fourier_from_terms):
    import numpy as np

    assert callable(reconstruct_increment) and callable(fourier_from_terms), (
        "define both functions"
    )
    terms, t = np.array([1.0, 0.5, 1 / 6]), np.linspace(0, 1, 5)
    assert np.shape(reconstruct_increment(terms, t)) == t.shape, "one value per time"
    complex(fourier_from_terms(terms, 1))  # one number


def sigch_ex_recall_reconstruction(reconstruct_increment):
    """reconstruct_increment does not recover the path from its terms: the
    least-squares fit on the polynomial basis.
    """

    import math

    import numpy as np
    from numpy.polynomial import legendre as L
    from numpy.polynomial import polynomial as P

    def _numbers(values):
        # an object array of exact numbers (Fractions, SymPy) is right too; as complex
        # numbers, so that an imaginary part still counts, and never text
        got = np.asarray(values)
        if got.dtype == object:
            text = any(isinstance(v, str | bytes) for v in got.ravel())
            assert not text, "reconstruct_increment returns numbers, not text"
            got = got.astype(complex)
        return got

    x, w = L.leggauss(60)
    s, w = (x + 1) / 2, w / 2  # Gauss nodes on [0, 1]
    t = np.linspace(0, 1, 11)
    rng = np.random.default_rng(11)
    for n in (1, 2, 4, 7):
        # u' a polynomial of degree < N: reconstructed exactly
        du = rng.normal(size=n)
        terms = np.array(
            [np.sum(w * s**k / math.factorial(k) * P.polyval(s, du)) for k in range(n)]
        )
        got = _numbers(reconstruct_increment(terms, t))
        np.testing.assert_allclose(got, P.polyval(t, P.polyint(du)), atol=1e-9)
        # u' = cos(3 s + 1): the L^2 projection onto degree < N, integrated
        f = np.cos(3 * s + 1)
        terms = np.array([np.sum(w * s**k / math.factorial(k) * f) for k in range(n)])
        basis = [
            L.Legendre.basis(j, domain=[0, 1]) * math.sqrt(2 * j + 1) for j in range(n)
        ]
        proj = sum(np.sum(w * b(s) * f) * b.integ(lbnd=0) for b in basis)
        got = _numbers(reconstruct_increment(terms, t))
        np.testing.assert_allclose(got, proj(t), atol=1e-9)


def sigch_ex_recall_fourier(fourier_from_terms):
    """fourier_from_terms(terms, n) is wrong: expand exp(-2 pi i n t) as a series in
    t.
    """

    import numpy as np

    rng = np.random.default_rng(12)
    for size in (1, 3, 8):
        terms = rng.normal(size=size)
        for n in (-2, 0, 1, 3):
            expected = np.sum((-2j * np.pi * n) ** np.arange(size) * terms)
            assert abs(complex(fourier_from_terms(terms, n)) - expected) <= 1e-10 * max(
                1, abs(expected)
            ), n


def sigch_ex_recall_wrong_the_derivative():
    from attnsig import reconstruction as rec

    def reconstruct_increment(terms, t):
        return rec.derivative_from_legendre(
            rec.legendre_coefficients_from_terms(terms), t
        )

    return {"reconstruct_increment": reconstruct_increment}


def sigch_ex_recall_wrong_the_moments():
    import math

    import numpy as np

    def reconstruct_increment(terms, t):
        m = [math.factorial(k) * a for k, a in enumerate(terms)]
        return sum(mk * np.asarray(t) ** (k + 1) / (k + 1) for k, mk in enumerate(m))

    return {"reconstruct_increment": reconstruct_increment}


def sigch_ex_recall_wrong_the_sheet():
    import math

    import numpy as np

    def fourier_from_terms(terms, n):
        k = np.arange(len(terms))
        f = np.array([math.factorial(int(j)) for j in k], dtype=float)
        return complex(np.sum((2j * np.pi * n) ** k / f * terms))

    return {"fourier_from_terms": fourier_from_terms}


QUESTIONS["sigch-ex-recall"] = {
    "points": 5,
    "answer": ["reconstruct_increment", "fourier_from_terms"],
    "fixed": (
        "the answers are functions of any terms, times and frequency; the checks "
        "draw their own paths"
    ),
    "builds": [
        "attnsig.reconstruction.increment_from_legendre",
        "attnsig.reconstruction.legendre_coefficients_from_terms",
        "attnsig.reconstruction.increment_from_monomial",
        "attnsig.reconstruction.monomial_coefficients_from_terms",
        "attnsig.reconstruction.fourier_coefficient_from_terms",
    ],
    "describe": (
        "terms: the array (S^{1^k 2}(X))_{k<N} of a time-augmented path X = (t, "
        "u(t)), letter 1 = time.\n"
        "reconstruct_increment(terms, t): U_N(t) for an array t in [0, 1], where "
        "U_N(0) = 0 and U_N' is\n"
        "the best L^2[0, 1] approximation of u' by polynomials of degree < N;\n"
        "fourier_from_terms(terms, n): the partial sum over k < N of the series "
        "in the terms that\n"
        "converges to the Fourier coefficient int_0^1 exp(-2 pi i n s) u'(s) ds "
        "(a complex number)"
    ),
    "public": [sigch_ex_recall_form],
    "hidden": [sigch_ex_recall_reconstruction, sigch_ex_recall_fourier],
    "wrong": {
        "the derivative instead of the increment": sigch_ex_recall_wrong_the_derivative,
        "the moments read as monomial coefficients": sigch_ex_recall_wrong_the_moments,
        "the sheet's extra factorial": sigch_ex_recall_wrong_the_sheet,
    },
    "rubric": [
        (
            "Part 1: proves the time-moments theorem: S^{1^k 2} = int s^k/k! du(s) "
            "(the time integrals done first), and that these entries determine "
            "u - u(0) (polynomials dense in C[0,1] by Weierstrass, so u' is "
            "determined) (1)"
        ),
        (
            "Part 2: proves the reconstruction theorem (Parseval for the first "
            "error, Cauchy-Schwarz for the supremum, the two-term integral of the "
            "Legendre polynomials for the L^2 bound); criterion the L^2 error = the "
            "discarded gamma_j, with an a-priori bound and an a-posteriori "
            "certificate (one more number, the energy, not a signature entry); a "
            "plot of the L^2 error against N along the routes; says why the routes "
            "through the monomial entries (Hilbert matrix, alternating integers) "
            "lose their digits (2)"
        ),
        (
            "Part 3: the Fourier coefficient is sum_k (-2 pi i n)^k S^{1^k 2}, "
            "checked numerically, with the loss of about 2.7|n| digits in floating "
            "point; the sheet's formula (1) has one factorial too many (and an "
            "index u, Delta for s, e for n) (1)"
        ),
    ],
}
