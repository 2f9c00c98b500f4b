"""The questions of position-encoding.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}
VARIANTS: dict[str, dict] = {}


# --- ex-posenc-equivariance


def posenc_equivariance_form(gap, causal_rows):
    import numpy as np

    assert callable(gap) and callable(causal_rows), "define two functions"
    value = gap(lambda x: 2 * x, np.ones((3, 2)), np.array([1, 2, 0]))
    assert np.ndim(value) == 0, "gap returns one number"
    rows = list(causal_rows(np.array([1, 2, 0])))
    # a mask over the rows reads as the numbers 0 and 1: say that it is not asked for
    assert not any(isinstance(i, bool | np.bool_) for i in rows), (
        "causal_rows: the row numbers, not a mask"
    )
    assert all(0 <= int(i) < 3 for i in rows), "rows are numbered 0 to n - 1"


def posenc_equivariance_gap(gap):
    """The gap is not the largest change under a permutation: an equivariant map
    must give 0, others their own gap.
    """

    import numpy as np

    rng = np.random.default_rng(41)

    def attention_layer(e, causal):
        """A one-head softmax attention sublayer on (n, e) inputs, in plain NumPy."""
        w_q, w_k, w_v = rng.standard_normal((3, e, e)) / np.sqrt(e)

        def f(x):
            s = (x @ w_q) @ (x @ w_k).T / np.sqrt(e)
            if causal:
                s = np.where(np.tri(len(x), dtype=bool), s, -np.inf)
            w = np.exp(s - s.max(axis=1, keepdims=True))
            return (w / w.sum(axis=1, keepdims=True)) @ (x @ w_v)

        return f

    for n, e in [(4, 6), (6, 8)]:
        x = rng.standard_normal((n, e))
        maps = [
            attention_layer(e, causal=False),
            attention_layer(e, causal=True),
            lambda x: np.cumsum(x, axis=0),
            lambda x: np.tanh(x) + 1.0,
        ]
        perms = [np.roll(np.arange(n), 1), rng.permutation(n), rng.permutation(n)]
        for f in maps:
            for perm in perms:
                ref = np.abs(f(x[perm]) - f(x)[perm]).max()
                got = float(gap(f, x.copy(), perm.copy()))
                if ref < 1e-12:
                    assert got < 1e-10, "an equivariant map has gap 0"
                else:
                    assert abs(got - ref) <= 1e-9 * ref, "the gap of a map"


def posenc_equivariance_causal_rows(causal_rows):
    """The rows a causal mask keeps equivariant are not the right ones for some
    permutation.
    """

    import itertools

    import numpy as np

    rng = np.random.default_rng(43)
    e = 3
    w_q, w_k, w_v = rng.standard_normal((3, e, e)) / e  # scores of order 1: every
    # earlier token keeps a weight far above round-off

    def causal_layer(x):
        s = (x @ w_q) @ (x @ w_k).T
        s = np.where(np.tri(len(x), dtype=bool), s, -np.inf)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        return (w / w.sum(axis=1, keepdims=True)) @ (x @ w_v)

    for n in range(1, 6):
        x = rng.standard_normal((n, e))  # a generic input: equal rows only where forced
        for perm in itertools.permutations(range(n)):
            perm = np.array(perm)
            diff = np.abs(causal_layer(x[perm]) - causal_layer(x)[perm]).max(axis=1)
            expected = [i for i in range(n) if diff[i] < 1e-9]
            got = sorted(int(i) for i in causal_rows(perm.copy()))
            assert got == expected, perm


def posenc_equivariance_wrong_fixed_points():
    def causal_rows(perm):
        return [i for i in range(len(perm)) if perm[i] == i]

    return {"causal_rows": causal_rows}


def posenc_equivariance_wrong_inverse():
    import numpy as np

    def gap(f, x, perm):
        return np.abs(f(x[perm]) - f(x)[np.argsort(perm)]).max()

    return {"gap": gap}


def posenc_equivariance_wrong_no_row():
    import numpy as np

    def causal_rows(perm):
        return (
            []
            if np.any(np.asarray(perm) != np.arange(len(perm)))
            else list(range(len(perm)))
        )

    return {"causal_rows": causal_rows}


def posenc_equivariance_wrong_output_not():
    import numpy as np

    def gap(f, x, perm):
        return np.abs(f(x[perm]) - f(x)).max()

    return {"gap": gap}


QUESTIONS["ex-posenc-equivariance"] = {
    "points": 2,
    "answer": ["gap", "causal_rows"],
    "describe": (
        "gap(f, X, perm): the largest absolute entry of f(PX) - P f(X), for a "
        "map f from (n, d)\n"
        "arrays to (n, d) arrays, an input X of shape (n, d) and a permutation "
        "perm of\n"
        "range(n) (an integer array) with (PX)[i] = X[perm[i]];\n"
        "causal_rows(perm): for f the attention sublayer with a causal mask (W_V "
        "W_O != 0), the\n"
        "sorted list of the 0-based rows i at which f(PX)[i] = (P f(X))[i] for "
        "almost every X"
    ),
    "public": [posenc_equivariance_form],
    "fixed": "the answers are functions of any map, input and permutation",
    "hidden": [posenc_equivariance_gap, posenc_equivariance_causal_rows],
    "wrong": {
        "fixed points only": posenc_equivariance_wrong_fixed_points,
        "inverse permutation on the output": posenc_equivariance_wrong_inverse,
        "no row survives the mask": posenc_equivariance_wrong_no_row,
        "output not permuted": posenc_equivariance_wrong_output_not,
    },
    "rubric": [
        (
            "Proof: row-wise maps commute with P; the scores become P S P^T; the "
            "row-wise softmax commutes with the same reordering of rows and columns; "
            "P^T P = I in the product with PV; the feed-forward part acts row by row "
            "(1)"
        ),
        (
            "Causal mask (proof of the causal theorem): row i depends only on x_i and "
            "the multiset of earlier tokens; at the first moved row the difference "
            "is real-analytic and not identically zero, so for almost every X every "
            "P != I breaks the equation; the weight on a distinct first token falls "
            "strictly with the position, so a decoder can recover positions (1)"
        ),
    ],
}


# --- ex-posenc-distinct


def posenc_distinct_draw(seed):
    """The base B of the sinusoidal schedule. Seed 0 gives the book's 10000."""
    import numpy as np

    if seed == 0:
        return {"code_base": 10000.0}
    rng = np.random.default_rng([seed, 1])
    bases = [100.0, 500.0, 1000.0, 2000.0, 5000.0, 100000.0]
    return {"code_base": bases[int(rng.integers(len(bases)))]}


def posenc_distinct_cell(variant):
    """Defines code_base: the base B of the codes' frequencies."""
    return f"code_base = {variant['code_base']!r}  # omega_r = code_base**(-2r/d)\n"


VARIANTS["posenc-distinct"] = {
    "draw": posenc_distinct_draw,
    "cell": posenc_distinct_cell,
    "names": ["code_base"],
    "after": "ex-posenc-distinct",
    "describe": "the base B of the sinusoidal codes (10000 in the book)",
}


def posenc_distinct_form(nearest_pair):
    import numpy as np

    assert callable(nearest_pair), "define nearest_pair as a function of N and d"
    value = nearest_pair(10, 4)
    assert np.ndim(value) == 0 and value > 0, "one positive number"


def posenc_distinct_nearest(nearest_pair, variant):
    """The nearest pair of codes is not the right one: compare the distances of
    all pairs of positions.
    """

    import numpy as np

    base = float(variant["code_base"])
    # Few large N: a plain double loop over the pairs must finish well inside the
    # grading timeout. N = 44 and 711 are where a new nearest offset first counts
    # (44 ~ 7 turns; 710 ~ 113 turns for the frequency 1 of d = 2, distance 6e-5).
    small = (2, 3, 10, 44, 45, 100)
    for d, sizes in ((2, (*small, 710, 711)), (4, small), (8, small)):
        top = max(sizes)
        angles = np.outer(np.arange(top), base ** (-np.arange(0, d, 2) / d))
        codes = np.hstack([np.sin(angles), np.cos(angles)])  # (top, d), any order
        # nearest[q]: the nearest pair among positions 0, ..., q (all pairs)
        nearest = np.minimum.accumulate(
            [np.inf]
            + [
                np.linalg.norm(codes[:q] - codes[q], axis=1).min()
                for q in range(1, top)
            ]
        )
        for N in sizes:
            ref = nearest[N - 1]
            got = float(nearest_pair(N, d))
            assert abs(got - ref) <= 1e-6 * ref, f"N={N}, d={d}"


def posenc_distinct_wrong_neighbours_only():
    import numpy as np

    from attnsig import positional

    def nearest_pair(N, d):
        pe = positional.sinusoidal_encoding(2, d)
        return np.linalg.norm(pe[1] - pe[0])

    return {"nearest_pair": nearest_pair}


def posenc_distinct_wrong_offsets_up():
    import numpy as np

    from attnsig import positional

    def nearest_pair(N, d):
        pe = positional.sinusoidal_encoding(N + 1, d)
        return np.linalg.norm(pe[1:] - pe[0], axis=1).min()

    return {"nearest_pair": nearest_pair}


def posenc_distinct_wrong_squared_distance():
    import numpy as np

    from attnsig import positional

    def nearest_pair(N, d):
        pe = positional.sinusoidal_encoding(N, d)
        return (np.linalg.norm(pe[1:] - pe[0], axis=1) ** 2).min()

    return {"nearest_pair": nearest_pair}


QUESTIONS["ex-posenc-distinct"] = {
    "points": 2,
    "answer": ["nearest_pair"],
    "describe": (
        "nearest_pair(N, d): the smallest distance ||Phi_p - Phi_p'|| between "
        "the codes of two different\n"
        "positions among 0, ..., N - 1 (N >= 2), for the schedule of base B = "
        "code_base (d even)"
    ),
    "variant": "posenc-distinct",
    "public": [posenc_distinct_form],
    "hidden": [posenc_distinct_nearest],
    "wrong": {
        "neighbours only": posenc_distinct_wrong_neighbours_only,
        "offsets up to N": posenc_distinct_wrong_offsets_up,
        "squared distance": posenc_distinct_wrong_squared_distance,
    },
    "rubric": [
        (
            "Proof with the first pair (frequency 1): equal codes force p - p' in 2 "
            "pi Z, impossible for integers p != p' because pi is irrational (1)"
        ),
        (
            "How close: the distance depends only on the offset (sum of 4 "
            "sin^2(omega_i m / 2)); for d = 2 the nearest pair is at most 2 pi / N "
            "apart and tends to 0; a larger d keeps it at least 2 sin(omega_min / 2) "
            "while N - 1 <= pi / omega_min (1)"
        ),
    ],
}


# --- ex-posenc-verdict


QUESTIONS["ex-posenc-verdict"] = {
    "points": 3,
    "verdicts": True,
    "rubric": [
        (
            "Names the two steps the sheet's proof of (a) skips (P^T P = I in the "
            "product with PV; the row-wise feed-forward part), that its remarks "
            "hold without a mask only, and that different frequencies do not make "
            "the codes distinct (0.5)"
        ),
        (
            "Points to a computation for each caveat: a causal layer that breaks "
            "equivariance and tells the two sentences apart, a repeated token, a "
            "row-mixing map, a row-wise map that breaks the softmax identity, a "
            "rational schedule that collides (0.5)"
        ),
    ],
}
