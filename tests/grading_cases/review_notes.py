"""Answers to review-notes.ipynb's checked questions by other routes
(tests/test_grading_cases.py), with the notebook's names the checks and the typical
mistakes read (scores, T, keep). An alternative that takes `variant` computes from
the student's draw (`VARIANTS` of the checks file)."""


def rows_by_scipy(variant):
    """The scores by einsum, the rows by scipy's softmax."""
    import numpy as np
    from scipy.special import softmax

    x = np.array(variant["x"])
    scores = np.einsum("bik,bjk->bij", x, x)  # (B, T, T)
    return {"scores": scores, "w_rows": softmax(scores, axis=-1)}


def rows_by_log_sum_exp_loops(variant):
    """The scores as sums of products, each row by log-sum-exp, in nested lists."""
    import math

    scores = [
        [[math.fsum(a * b for a, b in zip(xi, xj, strict=True)) for xj in sentence]
         for xi in sentence]
        for sentence in variant["x"]
    ]  # fmt: skip
    w = []
    for batch in scores:
        w.append([])
        for row in batch:
            top = max(row)
            lse = top + math.log(sum(math.exp(s - top) for s in row))
            w[-1].append([math.exp(s - lse) for s in row])
    return {"scores": scores, "w_rows": w}


def bilinear_as_one_matrix():
    """x_i^T (W_Q^T W_K) x_j, with einsum."""
    import numpy as np

    def pair_score(x_i, x_j, Wq, Wk):
        return np.einsum("a,ab,b->", x_i, Wq.T @ Wk, x_j)

    return {"pair_score": pair_score}


def bilinear_as_projected_dot():
    """The projected query W_Q x_i dotted with the projected key W_K x_j, by hand."""

    def pair_score(x_i, x_j, Wq, Wk):
        q = [sum(Wq[r][c] * x_i[c] for c in range(len(x_i))) for r in range(len(Wq))]
        k = [sum(Wk[r][c] * x_j[c] for c in range(len(x_j))) for r in range(len(Wk))]
        return sum(a * b for a, b in zip(q, k, strict=True))

    return {"pair_score": pair_score}


def scaling_plain():
    return {"protects_against": "vanishing"}


def scaling_as_numpy_string():
    import numpy as np

    return {"protects_against": np.str_("VANISHING").lower()}


def scaling_capitalised():
    """The word as a sentence starts it (R20a M1)."""
    return {"protects_against": "Vanishing "}


def scaling_mistake_a_phrase():
    """An answer outside the two words asked for."""
    return {"protects_against": "vanishing gradients"}


def masks_by_comparison(variant):
    import numpy as np

    T = variant["T"]
    i, j = np.indices((T, T))
    return {"T": T, "torch_bool_mask": j > i,
            "additive": np.where(j > i, -np.inf, 0.0)}  # fmt: skip


def masks_from_torch(variant):
    import torch

    T = variant["T"]
    bool_mask = torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)
    additive = torch.zeros(T, T).masked_fill(bool_mask, float("-inf"))
    return {"T": T, "torch_bool_mask": bool_mask.numpy(), "additive": additive.numpy()}


def masks_with_a_finite_minus_1e9(variant):
    """An additive mask with -1e9 for the future (as many code bases write it)."""
    import numpy as np

    T = variant["T"]
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    return {"T": T, "torch_bool_mask": future,
            "additive": np.where(future, -1e9, 0.0)}  # fmt: skip


def rows_in_float32_with_torch(variant):
    """The scores and rows in torch's default float32."""
    import torch

    x = torch.tensor(variant["x"], dtype=torch.float32)
    scores = x @ x.transpose(-1, -2)  # (B, T, T)
    return {"scores": scores.numpy(), "w_rows": torch.softmax(scores, -1).numpy()}


def _row_and_keep(seed, p):
    import numpy as np

    rng = np.random.default_rng(seed)
    logits = rng.normal(size=6)
    row = np.exp(logits) / np.exp(logits).sum()
    return row, rng.random(size=(20000, 6)) >= p


def dropout_with_a_boolean_mask(variant):
    """Inverted dropout: kept entries divided by 1 - p."""
    import numpy as np

    p = variant["p"]
    row, keep = _row_and_keep(1, p)
    dropped = np.where(keep, row / (1 - p), 0.0)
    return {"row": row, "keep": keep, "dropped": dropped, "sums_to_one": False}


def dropout_with_torch(variant):
    """torch.nn.functional.dropout in training mode on 20000 copies of the row."""
    import numpy as np
    import torch

    row, _ = _row_and_keep(2, variant["p"])
    torch.manual_seed(0)
    copies = torch.as_tensor(np.tile(row, (20000, 1)))
    dropped = torch.nn.functional.dropout(copies, p=variant["p"], training=True)
    return {"row": row, "dropped": dropped.numpy(), "sums_to_one": bool(0)}


def dropout_as_torch_tensors(variant):
    """The answers left as torch tensors (float64), as a torch user hands them in:
    the public check (scored on Gradescope) reads them too."""
    found = dropout_with_torch(variant)
    import torch

    return {**found, "row": torch.as_tensor(found["row"]),
            "dropped": torch.as_tensor(found["dropped"])}  # fmt: skip


def dropout_of_a_causal_row_in_float32(variant):
    """torch in its default float32: a causal row (keys after the query masked, so
    weight 0 there) dropped with torch.nn.Dropout."""
    import torch

    torch.manual_seed(1)
    scores = torch.tensor([0.3, -1.2, 0.8, 2.0, 0.1])
    scores[3:] = -torch.inf  # the query at position 3 sees keys 1..3
    row = torch.softmax(scores, dim=0)  # float32, zeros at the masked keys
    drop = torch.nn.Dropout(p=variant["p"])  # a fresh module is in training mode
    dropped = drop(row.repeat(20000, 1))
    return {"row": row.numpy(), "dropped": dropped.numpy(), "sums_to_one": False}


def dropout_of_a_row_masked_by_minus_100_in_float32(variant):
    """torch float32, keys masked by a score of -100 (not -inf): their weights are
    subnormal floats, which lose digits when dropout scales them."""
    import torch

    torch.manual_seed(3)
    scores = torch.tensor([0.3, -1.2, 0.8, -100.0, -100.0])
    row = torch.softmax(scores, dim=0)  # float32; the last two about 1e-44
    dropped = torch.nn.functional.dropout(row.repeat(20000, 1), p=variant["p"])
    return {"row": row.numpy(), "dropped": dropped.numpy(), "sums_to_one": False}


def dropout_of_a_long_row(variant):
    """A row of 64 keys and the form's least 10000 samples: at p = 0.05 a test of
    each of its 2016 pairs of entries failed this right sample."""
    import numpy as np

    rng = np.random.default_rng(103)
    logits = rng.normal(size=64)
    row = np.exp(logits) / np.exp(logits).sum()
    p = variant["p"]
    keep = rng.random(size=(10000, 64)) >= p
    return {"row": row, "dropped": keep * row / (1 - p), "sums_to_one": False}


def dropout_judged_by_numpy(variant):
    """sums_to_one computed from the samples: a NumPy boolean, not Python's."""
    import numpy as np

    found = dropout_with_a_boolean_mask(variant)
    found["sums_to_one"] = np.all(np.isclose(found["dropped"].sum(axis=1), 1))
    assert type(found["sums_to_one"]) is np.bool_
    return found


def dropout_judged_by_torch(variant):
    """sums_to_one a torch boolean tensor, which the grader reads back as a 0-d
    NumPy array."""
    import torch

    found = dropout_with_torch(variant)
    dropped = torch.as_tensor(found["dropped"])
    found["sums_to_one"] = (dropped.sum(dim=1) == 1).all().numpy()
    return found


def dropout_mistake_no_answer_for_the_sum(variant=None):
    """Right samples, but None for sums_to_one."""
    found = dropout_with_a_boolean_mask(variant or {"p": 0.1})
    return {**found, "sums_to_one": None}


def dropout_mistake_keep_with_probability_p(variant):
    """Each entry kept with probability p (not 1 - p) and scaled by 1/p: at p = 1/2
    the same distribution as the right one, so no drawn p may be 1/2."""
    import numpy as np

    p = variant["p"]
    row, keep = _row_and_keep(3, 1 - p)  # kept where a uniform draw is below p
    dropped = np.where(keep, row / p, 0.0)
    return {"row": row, "keep": keep, "dropped": dropped, "sums_to_one": False}


def dropout_mistake_a_fixed_number_per_row(variant):
    """round(p k) of the k = 40 entries dropped in every sample: each entry's rate
    is right, but the number dropped is not Binomial(k, p)."""
    import numpy as np

    p, rng = variant["p"], np.random.default_rng(5)
    row = np.full(40, 1 / 40)
    order = rng.random(size=(10000, 40)).argsort(axis=1)  # a random order per sample
    keep = order >= round(p * 40)  # (n, k): the first round(p k) in it dropped
    return {"row": row, "dropped": keep * row / (1 - p), "sums_to_one": False}


def dropout_mistake_antithetic_columns(variant):
    """Entry j + 32 of 64 drawn from 1 - u where entry j is drawn from u: each
    entry's rate, and the number dropped per sample on average, are right, but the
    two of a pair are (almost) never dropped together."""
    import numpy as np

    p, rng = variant["p"], np.random.default_rng(6)
    row = np.full(64, 1 / 64)
    u = rng.random(size=(10000, 32))
    keep = np.concatenate([u >= p, 1 - u >= p], axis=1)  # (n, 64)
    return {"row": row, "dropped": keep * row / (1 - p), "sums_to_one": False}


def dropout_mistake_a_batch_twice(variant):
    """The seed set inside a loop over two batches of 5000: the same samples twice."""
    import numpy as np

    p, row, batches = variant["p"], np.full(6, 1 / 6), []
    for _ in range(2):
        rng = np.random.default_rng(8)
        batches.append(rng.random(size=(5000, 6)) >= p)
    keep = np.concatenate(batches)  # (10000, 6)
    return {"row": row, "dropped": keep * row / (1 - p), "sums_to_one": False}


def dropout_mistake_batches_of_one_seed(variant):
    """The seed set inside a loop over batches of 4096, cut to 10000 samples: the
    first batch again, twice, the last time cut short."""
    import numpy as np

    p, row, batches = variant["p"], np.full(6, 1 / 6), []
    for _ in range(3):
        rng = np.random.default_rng(8)
        batches.append(rng.random(size=(4096, 6)) >= p)
    keep = np.concatenate(batches)[:10000]  # (10000, 6)
    return {"row": row, "dropped": keep * row / (1 - p), "sums_to_one": False}


def dropout_mistake_one_draw_per_sample(variant):
    """One keep-or-drop draw per sample, broadcast along the row: each entry's rate
    and mean are right, but a row is dropped whole or kept whole."""
    p = variant["p"]
    row, keep = _row_and_keep(4, p)
    dropped = keep[:, :1] * row / (1 - p)  # (n, 1) * (l,) -> (n, l)
    return {"row": row, "keep": keep, "dropped": dropped, "sums_to_one": False}


ALTERNATIVES = {
    "ex-tr-softmax-axis": [
        rows_by_scipy,
        rows_by_log_sum_exp_loops,
        rows_in_float32_with_torch,
    ],
    "ex-tr-bilinear": [bilinear_as_one_matrix, bilinear_as_projected_dot],
    "ex-tr-scaling": [scaling_plain, scaling_as_numpy_string, scaling_capitalised],
    "ex-tr-causal": [
        masks_by_comparison,
        masks_from_torch,
        masks_with_a_finite_minus_1e9,
    ],
    "ex-tr-dropout": [
        dropout_with_a_boolean_mask,
        dropout_with_torch,
        dropout_as_torch_tensors,
        dropout_of_a_causal_row_in_float32,
        dropout_of_a_long_row,
        dropout_of_a_row_masked_by_minus_100_in_float32,
        dropout_judged_by_numpy,
        dropout_judged_by_torch,
    ],
}
MISTAKES = {
    "ex-tr-scaling": [scaling_mistake_a_phrase],
    "ex-tr-dropout": [
        dropout_mistake_no_answer_for_the_sum,
        dropout_mistake_keep_with_probability_p,
        dropout_mistake_one_draw_per_sample,
        dropout_mistake_a_fixed_number_per_row,
        dropout_mistake_antithetic_columns,
        dropout_mistake_a_batch_twice,
        dropout_mistake_batches_of_one_seed,
    ],
}
