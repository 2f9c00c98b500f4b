"""The questions of svd.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}


# --- ex-svd-energy


QUESTIONS["ex-svd-energy"] = {
    "points": 3,
    "manual": True,
    "kind": "proof",
    "rubric": [
        (
            "||A||_F^2 = tr(A^T A): the diagonal entry (l, l) of A^T A is the sum of "
            "squares of column l (1)"
        ),
        (
            "A^T A = V Sigma^T Sigma V^T using U^T U = I (Sigma^T Sigma, not "
            "Sigma^2, when the full SVD has Sigma of size n x d) (1)"
        ),
        "Cyclic trace and V^T V = I give tr(Sigma^T Sigma) = sum_i sigma_i^2 (1)",
    ],
}


# --- ex-svd-kth


def svd_kth_form(tight):
    import numpy as np

    assert callable(tight), "define tight as a function of n, d, k"
    assert np.shape(tight(3, 2, 1)) == (3, 2), "tight(n, d, k) has shape (n, d)"


def svd_kth_equality(tight):
    """The matrix does not make the bound an equality: see when each inequality of
    the proof is tight.
    """

    import numpy as np

    for n, d in [(2, 2), (3, 2), (5, 8), (6, 4), (7, 7)]:
        for k in range(1, min(n, d) + 1):
            a = np.asarray(tight(n, d, k), dtype=float)
            assert a.shape == (n, d), (n, d, k)
            s = np.linalg.svd(a, compute_uv=False)
            fro_sq = (a**2).sum()
            assert fro_sq > 1e-12, f"A = 0 for {(n, d, k)}"
            assert abs(k * s[k - 1] ** 2 - fro_sq) <= 1e-9 * fro_sq, (n, d, k)


def svd_kth_wrong_full_rank():
    import numpy as np

    def tight(n, d, k):
        return np.eye(n, d)

    return {"tight": tight}


def svd_kth_wrong_rank_k():
    import numpy as np

    def tight(n, d, k):
        a = np.zeros((n, d))
        a[np.arange(k), np.arange(k)] = np.arange(1.0, k + 1)
        return a

    return {"tight": tight}


def svd_kth_wrong_the_zero():
    import numpy as np

    def tight(n, d, k):
        return np.zeros((n, d))

    return {"tight": tight}


QUESTIONS["ex-svd-kth"] = {
    "points": 1,
    "answer": ["tight"],
    "describe": (
        "tight(n, d, k): a non-zero (n, d) numpy array A for which the bound is "
        "an\n"
        "equality at k, i.e. k * sigma_k^2 = ||A||_F^2, for any 1 <= k <= min(n, "
        "d)"
    ),
    "public": [svd_kth_form],
    "fixed": "the student builds the matrix for any n, d and k; no numbers are given",
    "hidden": [svd_kth_equality],
    "wrong": {
        "full rank (the identity)": svd_kth_wrong_full_rank,
        "rank k, distinct singular values": svd_kth_wrong_rank_k,
        "the zero matrix": svd_kth_wrong_the_zero,
    },
    "rubric": [
        (
            "Proof: sorted singular values give k sigma_k^2 <= sum_{i<=k} sigma_i^2, "
            "and the energy identity bounds the sum by ||A||_F^2 (1)"
        ),
        (
            "Equality iff sigma_1 = ... = sigma_k and sigma_i = 0 for i > k, with "
            "the reason (each of the two inequalities) (1)"
        ),
    ],
}


# --- ex-svd-lowrank


def svd_lowrank_form(rank_exact, always_exact):
    import numpy as np

    assert callable(rank_exact), "define rank_exact as a function of A and k"
    assert np.shape(rank_exact(np.eye(3), 2)) == (3, 3), "B has the shape of A"
    assert always_exact in (True, False), "always_exact: True or False"


def svd_lowrank_rank_and_error(rank_exact):
    """The approximation has the wrong rank or its error exceeds the bound for some
    k.
    """

    import numpy as np

    rng = np.random.default_rng(31)
    q, _ = np.linalg.qr(rng.standard_normal((6, 3)))
    cases = [
        rng.standard_normal((6, 4)),
        rng.standard_normal((4, 7)),
        rng.standard_normal((8, 1)) @ rng.standard_normal((1, 5)),  # rank 1
        rng.standard_normal((7, 2)) @ rng.standard_normal((2, 7)),  # rank 2
        2.0 * q,  # equal singular values
    ]
    for a in cases:
        fro = np.linalg.norm(a)
        for k in range(1, min(a.shape) + 2):
            b = np.asarray(rank_exact(a.copy(), k), dtype=float)
            assert b.shape == a.shape, (a.shape, k)
            assert np.linalg.matrix_rank(b) == k - 1, f"rank of B, k = {k}"
            assert np.linalg.norm(a - b, 2) <= fro / np.sqrt(k) * (1 + 1e-9), k


def svd_lowrank_always(always_exact):
    """Reconsider whether a B of rank exactly k - 1 exists for every matrix."""

    import numpy as np

    # One counterexample answers "for every A and k?". Try the zero matrix with
    # k = 2: its bound ||A||_F / sqrt(k) is 0, so B = A is the only candidate.
    a, k = np.zeros((3, 2)), 2
    candidate = a.copy()
    assert np.linalg.norm(a - candidate, 2) <= np.linalg.norm(a) / np.sqrt(k)
    counterexample = np.linalg.matrix_rank(candidate) != k - 1
    assert always_exact in (True, False), "True or False"
    assert bool(always_exact) != counterexample, "reconsider every A and every k"


def svd_lowrank_wrong_always_possible():
    always_exact = True
    return {"always_exact": always_exact}


def svd_lowrank_wrong_keeps_k():
    from attnsig import lowrank

    def rank_exact(a, k):
        return lowrank.best_rank_k(a, min(k, min(a.shape)))

    return {"rank_exact": rank_exact}


def svd_lowrank_wrong_the_sheet():
    from attnsig import lowrank

    def rank_exact(a, k):
        return lowrank.best_rank_k(a, k - 1)

    return {"rank_exact": rank_exact}


QUESTIONS["ex-svd-lowrank"] = {
    "points": 2,
    "answer": ["rank_exact", "always_exact"],
    "describe": (
        "rank_exact(A, k): for a non-zero (n, d) array A and 1 <= k <= min(n, d) "
        "+ 1, an (n, d)\n"
        "array B of rank exactly k - 1 (as np.linalg.matrix_rank counts it) with\n"
        "||A - B||_2 <= ||A||_F / sqrt(k), also when A has rank below k - 1;\n"
        "always_exact: True or False, can B be chosen of rank exactly k - 1 for "
        "every A and k?"
    ),
    "public": [svd_lowrank_form],
    "fixed": "B is built for any A and k the check gives; no numbers are given",
    "hidden": [svd_lowrank_rank_and_error, svd_lowrank_always],
    "wrong": {
        "always possible": svd_lowrank_wrong_always_possible,
        "keeps k components": svd_lowrank_wrong_keeps_k,
        "the sheet's B (truncated SVD)": svd_lowrank_wrong_the_sheet,
    },
    "rubric": [
        (
            "B = sum_{i<k} sigma_i u_i v_i^T; A - B = sum_{i>=k} sigma_i u_i v_i^T "
            "is an SVD of A - B (it is not diagonal), so ||A - B||_2 = sigma_k <= "
            "||A||_F / sqrt(k) by (b) (1)"
        ),
        (
            "Rank exactly k - 1: pad with small multiples of u_j v_j^T when rank A "
            "< k - 1; impossible for A = 0 and k >= 2 (the bound forces B = 0), and "
            "for k - 1 > min(n, d) (1)"
        ),
    ],
}


# --- ex-svd-verdict


QUESTIONS["ex-svd-verdict"] = {
    "points": 3,
    "verdicts": True,
    "rubric": [
        (
            "Judges the Sigma^2 line in the sheet's model: n >= d makes the thin "
            "SVD's Sigma square, so the line is right; U^T U = I used silently (0.5)"
        ),
        (
            "Points to a computation for each verdict that is not 'right': a wide "
            "matrix (n >= d unused), a square A with det A < 0 (U, V not both "
            "rotations), an A with a large row mean (not PCA), A = 0 or a low-rank A "
            "(rank exactly k - 1), the non-diagonal A - B (0.5)"
        ),
    ],
}
