"""The questions of review-notes.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}
VARIANTS: dict[str, dict] = {}


# --- ex-tr-softmax-axis


def tr_softmax_axis_draw(seed):
    """The batch x whose scores the softmax question normalises, for one student.

    Seed 0 gives the book's: 2 sentences of 4 tokens of width 3, drawn by the
    chapter's first cell. Other seeds draw the sizes (B in 2..3, T in 3..5, E in
    2..4) and the entries (normal, two decimals), so the weights change.
    """
    import numpy as np

    if seed == 0:
        return {"x": np.random.default_rng(0).normal(size=(2, 4, 3)).tolist()}
    rng = np.random.default_rng(seed)
    size = (int(rng.integers(2, 4)), int(rng.integers(3, 6)), int(rng.integers(2, 5)))
    return {"x": rng.normal(size=size).round(2).tolist()}


def tr_softmax_axis_cell(variant):
    """Python source of the data cell of the softmax question: the batch x and its
    scores, as the chapter's first cell defines them."""
    sentences = "".join(f"        {sentence!r},\n" for sentence in variant["x"])
    return (
        "# your batch for this question: B sentences of T tokens of width E\n"
        f"x = np.array(\n    [\n{sentences}    ]\n)  # (B, T, E)\n"
        "B, T, E = x.shape\n"
        "scores = x @ x.mT  # (B, T, E) @ (B, E, T) -> (B, T, T)\n"
    )


VARIANTS["tr-softmax-axis"] = {
    "draw": tr_softmax_axis_draw,
    "cell": tr_softmax_axis_cell,
    "names": ["x", "B", "T", "E", "scores"],
    "after": "ex-tr-softmax-axis",
    "describe": "the batch x (B, T, E) and its scores of the softmax question",
}


def tr_softmax_axis_shape(w_rows):
    import numpy as np

    # only what the answer itself shows: a later cell may reuse the data's names
    shape = np.shape(w_rows) if w_rows is not ... else ()
    assert len(shape) == 3 and shape[1] == shape[2], "one weight per score, (B, T, T)"
    assert np.all(np.asarray(w_rows) >= 0), "weights are not negative"


def tr_softmax_axis_rows(w_rows, variant):
    """The weights are not a softmax over each row of your scores (one distribution
    per query).
    """

    import numpy as np

    x = np.asarray(variant["x"], dtype=float)
    s = np.einsum("bie,bje->bij", x, x)  # the scores of your batch, (B, T, T)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    expected = e / e.sum(axis=-1, keepdims=True)
    assert np.shape(w_rows) == expected.shape, "one weight per score of your batch"
    # float32 precision: torch's default dtype gives a right softmax to about 1e-7
    np.testing.assert_allclose(w_rows, expected, rtol=1e-6, atol=1e-7)


def tr_softmax_axis_wrong_column_wise(scores):
    from attnsig.attention import softmax

    w_rows = softmax(scores, axis=1)
    return {"w_rows": w_rows}


def tr_softmax_axis_wrong_softmax_over(scores):
    from attnsig.attention import softmax

    w_rows = softmax(scores, axis=0)
    return {"w_rows": w_rows}


QUESTIONS["ex-tr-softmax-axis"] = {
    "points": 2,
    "answer": ["w_rows"],
    "variant": "tr-softmax-axis",
    "describe": (
        "w_rows: the attention weights of your `scores` (shape (B, T, T)), each "
        "query's a distribution over the keys"
    ),
    "public": [tr_softmax_axis_shape],
    "hidden": [tr_softmax_axis_rows],
    "wrong": {
        "column-wise softmax": tr_softmax_axis_wrong_column_wise,
        "softmax over the batch": tr_softmax_axis_wrong_softmax_over,
    },
}


# --- ex-tr-bilinear


def tr_bilinear_callable(pair_score):
    import numpy as np

    assert callable(pair_score), "define pair_score as a function"
    value = pair_score(np.ones(3), np.ones(3), np.eye(3), np.eye(3))
    assert np.ndim(value) == 0, "a score is one number"


def tr_bilinear_random_cases(pair_score):
    """pair_score is not the bilinear score of its arguments on random cases: mind
    the transposes.
    """

    import numpy as np

    rng = np.random.default_rng(23)
    for d in (2, 3, 5):
        for _ in range(10):
            x_i, x_j = rng.normal(size=(2, d))
            Wq, Wk = rng.normal(size=(2, d, d))
            expected = x_i @ Wq.T @ Wk @ x_j
            np.testing.assert_allclose(
                pair_score(x_i, x_j, Wq, Wk), expected, rtol=1e-10
            )


def tr_bilinear_wrong_query_and():
    def pair_score(x_i, x_j, Wq, Wk):
        return float((Wq @ x_j) @ (Wk @ x_i))

    return {"pair_score": pair_score}


def tr_bilinear_wrong_softmax_of():
    def pair_score(x_i, x_j, Wq, Wk):
        return 1.0

    return {"pair_score": pair_score}


QUESTIONS["ex-tr-bilinear"] = {
    "points": 2,
    "answer": ["pair_score"],
    "fixed": "the answer is a function of any x_i, x_j, W_Q, W_K; no numbers are given",
    "describe": (
        "pair_score(x_i, x_j, Wq, Wk): the product q_i^T k_j of query x_i and key\n"
        "x_j (vectors of shape (d,)), before the 1/sqrt(d_k) scaling; Wq, Wk in\n"
        "PyTorch's layout (Wq = W_Q^T, Wk = W_K^T, as the chapter's code keeps them)"
    ),
    "public": [tr_bilinear_callable],
    "hidden": [tr_bilinear_random_cases],
    "wrong": {
        "query and key swapped": tr_bilinear_wrong_query_and,
        "softmax of the single score": tr_bilinear_wrong_softmax_of,
    },
}


# --- ex-tr-scaling


def tr_scaling_form(protects_against):
    word = " ".join(str(protects_against).split()).lower()  # "Vanishing " counts
    assert word in ("vanishing", "exploding"), 'answer "vanishing" or "exploding"'


def tr_scaling_verdict(protects_against):
    """Which failure does the 1/sqrt(d_k) scaling prevent? Reread the chapter's
    argument.
    """

    import numpy as np

    # The verdict from the computation the exercise asks for: the mean norm of the
    # softmax Jacobian diag(w) - w w^T of rows of 16 products q.k at a large width,
    # unscaled and divided by sqrt(d_k).
    rng = np.random.default_rng(29)
    dk, rows, keys = 1024, 100, 16
    q, k = rng.normal(size=(rows, dk)), rng.normal(size=(rows, keys, dk))
    s = np.einsum("rd,rkd->rk", q, k)
    size = {}
    for how, scale in (("unscaled", 1.0), ("scaled", 1 / np.sqrt(dk))):
        z = s * scale
        w = np.exp(z - z.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        jac = w[:, :, None] * np.eye(keys) - w[:, :, None] * w[:, None, :]
        size[how] = np.linalg.norm(jac, axis=(1, 2)).mean()
    # A Jacobian that shrinks without the scaling passes gradients that vanish.
    smaller = size["unscaled"] < size["scaled"]
    word = " ".join(str(protects_against).split()).lower()
    assert word == ("vanishing" if smaller else "exploding")


def tr_scaling_wrong_the_notes():
    protects_against = "exploding"
    return {"protects_against": protects_against}


QUESTIONS["ex-tr-scaling"] = {
    "points": 1,
    "answer": ["protects_against"],
    "fixed": "the answer is one of two words, the same whatever widths are sampled",
    "describe": (
        'protects_against: "vanishing" or "exploding", the gradients the scaling '
        "protects against"
    ),
    "public": [tr_scaling_form],
    "hidden": [tr_scaling_verdict],
    "wrong": {"the notes' verdict": tr_scaling_wrong_the_notes},
}


# --- ex-tr-heads-vs-layers


QUESTIONS["ex-tr-heads-vs-layers"] = {
    "points": 3,
    "manual": True,
    "kind": "explanation",
    "rubric": [
        (
            "Heads run in parallel on the same input and meet only in the output "
            "projection; layers run in sequence on the previous layer's output (1)"
        ),
        (
            "Something stacked layers can do and one layer of heads cannot, with the "
            "reason (compose: in one layer every score s_ij depends on x_i and x_j "
            "alone), and something one multi-head layer does in one step (gather "
            "from several positions into separate features) that stacked single-head "
            "layers need several sequential layers and more parameters for (1)"
        ),
        (
            "A code check of one difference, e.g. one layer's log-ratios s_ij - s_ii "
            "do not move when a third token changes while a two-layer stack's do (1)"
        ),
    ],
}


# --- ex-tr-causal


def tr_causal_draw(seed):
    """The number of tokens T of the mask question, for one student. Seed 0 gives
    the book's running T = 5; the others cycle through 6, 7, 8, 4, 9, 10 (at least 4,
    so that the solution's check can change the tokens after position 3), so that
    neighbouring seeds differ."""
    if seed == 0:
        return {"T": 5}
    return {"T": [6, 7, 8, 4, 9, 10][(seed - 1) % 6]}


def tr_causal_cell(variant):
    """Python source of the data cell of the mask question: T, and the running batch
    x of the multi-head section drawn again with T tokens, so that the chapter's
    later cell that masks x with causal_mask(T) still runs (it prints nothing that
    depends on x's numbers)."""
    return (
        "# your number of tokens T for this question\n"
        f"T = {variant['T']}\n"
        "# the running batch x of the multi-head section (Bsz = 3, E = 8), drawn\n"
        "# again with T tokens for the chapter's later cells\n"
        "x = np.random.default_rng(5).normal(size=(3, T, 8))  # (Bsz, T, E)\n"
    )


VARIANTS["tr-causal"] = {
    "draw": tr_causal_draw,
    "cell": tr_causal_cell,
    "names": ["T", "x"],
    "after": "ex-tr-causal",
    "describe": "the number of tokens T of the mask question",
}


def tr_causal_shapes(torch_bool_mask, additive):
    import numpy as np

    # only what the answer itself shows: a later cell may reuse the data's names
    shape = np.shape(torch_bool_mask)
    square = len(shape) == 2 and shape[0] == shape[1]
    assert square and np.shape(additive) == shape, "(T, T) masks"
    assert np.asarray(torch_bool_mask).dtype == bool, "a boolean mask"


def tr_causal_masks(torch_bool_mask, additive, variant):
    """A mask is wrong for your T tokens: True, or -inf (any value below -1e4 works
    the same), must mark exactly the future positions.
    """

    import numpy as np

    n = variant["T"]
    # Key j lies in the future of query i when j > i.
    future = np.array([[j > i for j in range(n)] for i in range(n)])
    assert np.shape(torch_bool_mask) == (n, n), "one entry per pair of your T tokens"
    assert np.shape(additive) == (n, n), "one entry per pair of your T tokens"
    assert np.array_equal(torch_bool_mask, future), "True = may not attend"
    additive_ = np.asarray(additive, dtype=float)
    # -inf, or a finite value so negative that its weight is 0 (-1e9, float32's min)
    assert np.all(additive_[~future] == 0) and np.all(additive_[future] <= -1e4)


def tr_causal_wrong_0_1(T):
    from attnsig.attention import causal_mask

    additive = causal_mask(T).astype(float)
    return {"additive": additive}


def tr_causal_wrong_attnsig_s(T):
    from attnsig.attention import causal_mask

    torch_bool_mask = causal_mask(T)
    return {"torch_bool_mask": torch_bool_mask}


QUESTIONS["ex-tr-causal"] = {
    "points": 2,
    "answer": ["torch_bool_mask", "additive"],
    "variant": "tr-causal",
    "describe": (
        "for your T tokens: torch_bool_mask, the causal attn_mask of "
        "torch.nn.MultiheadAttention (boolean);\n"
        "additive, the float mask added to the scores"
    ),
    "public": [tr_causal_shapes],
    "hidden": [tr_causal_masks],
    "wrong": {
        "0/1 added to the scores": tr_causal_wrong_0_1,
        "attnsig's convention": tr_causal_wrong_attnsig_s,
    },
}


# --- ex-tr-dropout


def tr_dropout_draw(seed):
    """The drop probability p of the dropout question, for one student. Seed 0
    gives the book's p = 0.1; the others cycle through 0.2, 0.3, 0.05, 0.25, 0.4,
    0.35, so that neighbouring seeds differ, shifted by one every six seeds so that
    with the mask question's T (which cycles with the same period) the seeds give all
    36 pairs (T, p), not 6. Never 1/2: there p and 1 - p agree, and "keep with
    probability p, scale by 1/p" would give the right samples."""
    if seed == 0:
        return {"p": 0.1}
    k = seed - 1
    return {"p": [0.2, 0.3, 0.05, 0.25, 0.4, 0.35][(k + k // 6) % 6]}


def tr_dropout_cell(variant):
    """Python source of the data cell of the dropout question."""
    return (
        "# your drop probability p for this question: use it where the statement\n"
        "# says p = 0.1\n"
        f"p = {variant['p']!r}\n"
    )


VARIANTS["tr-dropout"] = {
    "draw": tr_dropout_draw,
    "cell": tr_dropout_cell,
    "names": ["p"],
    "after": "ex-tr-dropout",
    "describe": "the drop probability p of the dropout question",
}


def tr_dropout_form(row, dropped, sums_to_one):
    import numpy as np

    row = np.asarray(row, dtype=float)  # a torch tensor's sum takes no axis
    # float32 weights (torch's default) sum to 1 within about 1e-7
    assert np.ndim(row) == 1 and abs(np.sum(row) - 1) < 1e-6, "row: one row of weights"
    assert np.ndim(dropped) == 2 and np.shape(dropped)[1] == len(row), (
        "dropped: (n, len(row))"
    )
    assert len(dropped) >= 10000, "at least 10000 samples"
    assert sums_to_one in (True, False), "sums_to_one: True or False"


def tr_dropout_dropout(row, dropped, sums_to_one, variant):
    """The samples are not inverted dropout of row with your p (each entry of each
    sample dropped on its own draw, kept entries rescaled so that the mean is kept,
    not the sum), or sums_to_one does not say what they do.
    """

    from statistics import NormalDist

    import numpy as np
    from scipy.stats import binom

    p, d = variant["p"], np.asarray(dropped, dtype=float)
    w = np.asarray(row, dtype=float)
    # A boolean in any form: Python's, NumPy's (np.all of a comparison) or torch's
    # (read back as a 0-d array); None, 0 or a string is no answer.
    answer = np.asarray(sums_to_one)
    assert answer.shape == () and answer.dtype == bool and not answer
    # Every entry is dropped (0) or kept and scaled up by 1 / (1 - p); the tolerance
    # admits float32 samples (torch's default), far below the factor 1 / (1 - p),
    # and the digits float32 lacks for subnormal weights (a score masked by -100).
    kept = np.isclose(d, w / (1 - p), rtol=1e-6, atol=np.finfo(np.float32).tiny)
    assert np.all(kept | (d == 0))
    # Each test below fails a right answer with a chance of at most about 1e-6,
    # whatever the row's length k (a level shared among the tests of one kind).
    # Only positive weights show a drop (a zero weight, e.g. a masked key, stays 0):
    # their drop rate is p, overall and each one's, so that with the scale above
    # each one's mean is its weight (unbiased; counted by drops, not by values,
    # which float32 rounds for subnormal weights).
    gone = d[:, w > 0] == 0  # (n, k)
    n, k = gone.shape
    z = NormalDist().inv_cdf(1 - 0.5e-6 / k)  # the normal bound, shared by k rates
    assert abs(gone.mean() - p) < z * np.sqrt(p * (1 - p) / gone.size)
    assert np.all(np.abs(gone.mean(axis=0) - p) < z * np.sqrt(p * (1 - p) / n))
    # Samples drawn anew, not a batch of one seed handed in again (a seed set inside
    # a loop over batches, the last one cut short): the first W samples recur at no
    # later sample, W holding 50 bits of collision entropy, -log2(p^2 + (1 - p)^2)
    # an entry: a right answer recurs by chance with a probability below n 2^-50 at
    # offsets of W or more, and at most 3.4e-7 at smaller ones (a sum over them of
    # the chance that the first W + t samples repeat with period t; p = 0.05, k = 1 is
    # the worst), so below 1e-6 in all.
    width = int(np.ceil(50 / (k * -np.log2(p**2 + (1 - p) ** 2))))
    hay, pattern = gone.tobytes(), gone[:width].tobytes()  # a byte an entry, by rows
    at = hay.find(pattern, 1)
    while at > 0 and at % k:  # a match that starts inside a sample is none
        at = hay.find(pattern, at + 1)
    assert at < 0
    # Each entry on its own draw, as the chapter says dropout does. The number D of
    # live entries dropped in a sample is Binomial(k, p), so (D - kp)^2 has mean
    # kp(1 - p) (dropping whole rows gives k^2 p(1 - p), a fixed number per sample 0),
    # with the variance mu_4 - sigma^4 of the binomial's central moments.
    q, drops = p * (1 - p), gone.sum(axis=1)  # (n,)
    var = k * q * (1 + 3 * (k - 2) * q) - (k * q) ** 2
    assert abs(np.mean((drops - k * p) ** 2) - k * q) < z * np.sqrt(var / n)
    # And each of the k(k - 1)/2 pairs of entries is dropped together Binomial(n, p^2)
    # times (not so a pair that shares its draw, or is drawn as u and 1 - u), within
    # the exact binomial bounds at the level 1e-6 shared among the pairs.
    if k >= 2:
        ones = gone.astype(np.float32)  # (n, k); counts below 2^24 are exact
        both = (ones.T @ ones)[np.triu_indices(k, 1)]  # (k(k - 1)/2,)
        level = 0.5e-6 / len(both)
        low, high = binom.ppf(level, n, p**2), binom.isf(level, n, p**2)
        assert np.all((low <= both) & (both <= high))


def tr_dropout_wrong_not_rescaled(keep, row):
    dropped = keep * row
    return {"dropped": dropped}


def tr_dropout_wrong_renormalised_rows(dropped):
    dropped = dropped / dropped.sum(axis=1, keepdims=True)
    sums_to_one = True
    return {"dropped": dropped, "sums_to_one": sums_to_one}


QUESTIONS["ex-tr-dropout"] = {
    "points": 2,
    "answer": ["row", "dropped", "sums_to_one"],
    "variant": "tr-dropout",
    "describe": (
        "row: a row of attention weights; dropped: (n, len(row)) samples of "
        "inverted dropout\n"
        "of row with your p, n >= 10000; sums_to_one: do the dropped rows still "
        "sum to one?"
    ),
    "public": [tr_dropout_form],
    "hidden": [tr_dropout_dropout],
    "wrong": {
        "not rescaled": tr_dropout_wrong_not_rescaled,
        "renormalised rows": tr_dropout_wrong_renormalised_rows,
    },
}


# --- ex-tr-verdict


QUESTIONS["ex-tr-verdict"] = {
    "points": 3,
    "verdicts": True,
    "rubric": [
        (
            "Written part: reads the garbled formulas and shapes as the book does: "
            "(d,1),(d,d),(d,1); q_i^T k_j / sqrt(d_k); x_2^T W_Q W_K^T x_3 (1)"
        ),
        (
            "Written part: points to a computation (an exercise of the chapter) for "
            "every verdict that is not 'right' (1)"
        ),
    ],
}
