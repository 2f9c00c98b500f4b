"""Answers to position-encoding.ipynb's checked questions by other routes
(tests/test_grading_cases.py), for the student's numbers (`variant`) where the
question has them."""


def equivariance_with_permutation_matrices():
    """P as a matrix, np.eye(n)[perm]; the causal rows: a fixed point whose prefix
    perm[:i + 1] is a permutation of range(i + 1), i.e. has maximum i."""
    import numpy as np

    def gap(f, x, perm):
        p = np.eye(len(perm))[perm]
        return float(np.max(np.abs(f(p @ x) - p @ f(x))))

    def causal_rows(perm):
        perm = list(perm)
        return [i for i in range(len(perm)) if perm[i] == i == max(perm[: i + 1])]

    return {"gap": gap, "causal_rows": causal_rows}


def equivariance_measured():
    """The gap row by row; the causal rows found by running a causal attention layer
    on a random input and comparing row by row."""
    import numpy as np

    from attnsig import attention

    layer = attention.MultiHeadAttention(4, 1, rng=np.random.default_rng(3))

    def gap(f, x, perm):
        fx, fpx = f(x), f(x[perm])
        return max(np.abs(fpx[i] - fx[perm[i]]).max() for i in range(len(perm)))

    def causal_rows(perm):
        perm = np.asarray(perm)
        x = np.random.default_rng(len(perm)).standard_normal((len(perm), 4))
        out, permuted_out = layer(x, causal=True)[0], layer(x[perm], causal=True)[0]
        same = np.abs(permuted_out - out[perm]).max(axis=1) < 1e-9
        return np.flatnonzero(same)

    return {"gap": gap, "causal_rows": causal_rows}


def nearest_over_all_pairs(variant):
    """Every pair of codes, sin and cos interleaved by hand."""
    import numpy as np

    base = variant["code_base"]

    def nearest_pair(N, d):
        p = np.arange(N)[:, None]
        w = base ** (-np.arange(0, d, 2) / d)
        pe = np.zeros((N, d))
        pe[:, 0::2], pe[:, 1::2] = np.sin(p * w), np.cos(p * w)
        gram = pe @ pe.T
        sq = np.diag(gram)[:, None] + np.diag(gram)[None] - 2 * gram
        sq[np.diag_indices(N)] = np.inf
        return float(np.sqrt(max(sq.min(), 0.0)))

    return {"nearest_pair": nearest_pair}


def nearest_by_translation(variant):
    """The distance depends on the offset only: codes against position 0."""
    import numpy as np

    from attnsig import positional

    def nearest_pair(N, d):
        pe = positional.sinusoidal_encoding(N, d, base=variant["code_base"])
        return np.linalg.norm(pe[1:] - pe[0], axis=1).min()

    return {"nearest_pair": nearest_pair}


def nearest_by_the_offset_formula(variant):
    """sum_r 4 sin^2(omega_r m / 2) over the offsets m = 1, ..., N - 1."""
    import numpy as np

    def nearest_pair(N, d):
        omega = variant["code_base"] ** (-np.arange(0, d, 2) / d)
        half = np.outer(np.arange(1, N), omega) / 2
        return float(np.sqrt(4 * (np.sin(half) ** 2).sum(axis=1)).min())

    return {"nearest_pair": nearest_pair}


def causal_rows_prefix_only():
    """A typical slip: the rows whose prefix perm[:i + 1] is a permutation of
    range(i + 1), without perm[i] = i (row 1 of perm (1, 0) sees x_1 and x_0 where
    row 0 of f(X) sees x_0 alone)."""

    def causal_rows(perm):
        perm = [int(p) for p in perm]
        return [i for i in range(len(perm)) if set(perm[: i + 1]) == set(range(i + 1))]

    return {"causal_rows": causal_rows}


MISTAKES = {"ex-posenc-equivariance": [causal_rows_prefix_only]}


ALTERNATIVES = {
    "ex-posenc-equivariance": [
        equivariance_with_permutation_matrices,
        equivariance_measured,
    ],  # fmt: skip
    "ex-posenc-distinct": [
        nearest_over_all_pairs,
        nearest_by_translation,
        nearest_by_the_offset_formula,
    ],
}
