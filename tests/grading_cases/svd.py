"""Answers to svd.ipynb's checked questions by other routes
(tests/test_grading_cases.py)."""


def tight_scaled_identity_block():
    """3 times the identity on the first k coordinates: k equal singular values."""
    import numpy as np

    def tight(n, d, k):
        a = np.zeros((n, d))
        a[range(k), range(k)] = 3.0
        return a

    return {"tight": tight}


def tight_random_partial_isometry():
    """Q1 Q2^T with Q1 (n, k), Q2 (d, k) orthonormal columns, as nested lists."""
    import numpy as np

    def tight(n, d, k):
        rng = np.random.default_rng(n * 100 + d * 10 + k)
        q1, _ = np.linalg.qr(rng.standard_normal((n, k)))
        q2, _ = np.linalg.qr(rng.standard_normal((d, k)))
        return (q1 @ q2.T).tolist()

    return {"tight": tight}


def tight_as_a_numpy_matrix():
    """The scaled identity block as an np.matrix (an ndarray subclass)."""
    import numpy as np

    def tight(n, d, k):
        a = np.asmatrix(np.zeros((n, d)))
        a[range(k), range(k)] = 3.0
        return a

    return {"tight": tight}


def _floor(s, a, k):
    """Singular values below a small floor raised to it: rank exactly k - 1."""
    import numpy as np

    floor = 1e-3 * np.linalg.norm(a) / np.sqrt(k)
    return np.maximum(s[: k - 1], floor)


def lowrank_full_svd_with_floor():
    import numpy as np

    def rank_exact(a, k):
        u, s, vt = np.linalg.svd(a, full_matrices=True)
        s = _floor(s, a, k)
        return (u[:, : k - 1] * s) @ vt[: k - 1]

    return {"rank_exact": rank_exact, "always_exact": False}


def lowrank_torch_svd_with_floor():
    import numpy as np
    import torch

    def rank_exact(a, k):
        u, s, vh = torch.linalg.svd(torch.as_tensor(a, dtype=torch.float64))
        u, s, vh = u.numpy(), s.numpy(), vh.numpy()
        floor = 1e-3 * np.linalg.norm(a) / np.sqrt(k)
        s = np.maximum(s[: k - 1], floor)
        return np.einsum("ik,k,kj->ij", u[:, : k - 1], s, vh[: k - 1])

    return {"rank_exact": rank_exact, "always_exact": 0 == 1}


ALTERNATIVES = {
    "ex-svd-kth": [
        tight_scaled_identity_block,
        tight_random_partial_isometry,
        tight_as_a_numpy_matrix,
    ],
    "ex-svd-lowrank": [lowrank_full_svd_with_floor, lowrank_torch_svd_with_floor],
}
