"""The questions of associative-recall.ipynb: its exercises, graded, by label.

tools/assignments.py builds the otter assignment from them; its docstring and
CONTRIBUTING.md describe the format.
"""

QUESTIONS: dict[str, dict] = {}
VARIANTS: dict[str, dict] = {}


# --- Variants: the numbers each student gets (seed 0: the book's)


def recall_perfect_draw(seed):
    """The prompt read at the sheet's scale: three pairs with distinct letters and
    distinct digits, one letter queried (never B after seed 0, the book's answer)."""
    import numpy as np

    if seed == 0:
        return {"prompt": "A6B8C3B?"}
    rng = np.random.default_rng(seed)
    letters = rng.choice(list("ACDEFGHIJKLMNOPQRSTUVWXYZ"), 3, replace=False)
    digits = rng.choice(list("0123456789"), 3, replace=False)
    queried = letters[rng.integers(3)]
    pairs = "".join(f"{k}{v}" for k, v in zip(letters, digits, strict=True))
    return {"prompt": f"{pairs}{queried}?"}


def recall_perfect_cell(variant):
    """Source of the data cell of ex-recall-perfect."""
    return f"sheet_prompt = {variant['prompt']!r}  # read at the sheet's scale\n"


VARIANTS["recall-perfect"] = {
    "draw": recall_perfect_draw,
    "cell": recall_perfect_cell,
    "names": ["sheet_prompt"],
    "after": "ex-recall-perfect",
    "describe": "the prompt read at the sheet's scale (A6B8C3B? in the book)",
}


def recall_scale_draw(seed):
    """The scale at which the accuracy is asked besides beta = 0: the sheet's
    1/sqrt(111) in the book, else one of 1.75, 1.9, 1.8, 1.845, between the scales
    where a class of prompts starts being recalled (below 1.6 the accuracy stays
    19/100), where the accuracy (43/100, 7/10, 67/100) is none the chapter prints (it
    prints those at 0, 1, 2, 2.1 and 4; 2.05 has 2.1's)."""
    import numpy as np

    if seed == 0:
        return {"scale": float(1 / np.sqrt(111)), "shown": "1 / math.sqrt(111)"}
    # Cycled by seed (the roster's seeds are random): neighbouring seeds differ.
    scale = (1.75, 1.9, 1.8, 1.845)[(seed - 1) % 4]
    return {"scale": scale, "shown": f"{scale:g}"}


def recall_scale_cell(variant):
    """Source of the data cell of ex-recall-scale."""
    return f"scale_asked = {variant['shown']}  # the scale of acc_sheet\n"


VARIANTS["recall-scale"] = {
    "draw": recall_scale_draw,
    "cell": recall_scale_cell,
    "names": ["scale_asked"],
    "after": "ex-recall-scale",
    "describe": "the scale of acc_sheet (the sheet's 1/sqrt(111) in the book)",
}


def recall_pairs_draw(seed):
    """The numbers of pairs n whose beta*(n) is asked: 2, 3, 4, 5 in the book, else
    three of 2, ..., 6 with 6, which the book does not print. Not 7: a search over its
    6139 classes, as the chapter does for n <= 5, can take minutes and time the whole
    notebook out; at n = 6 (1218 classes) the hardest class is still the hardest of all
    (tests/test_variants.py)."""
    import itertools

    if seed == 0:
        return {"ns": [2, 3, 4, 5]}
    triples = [t for t in itertools.combinations(range(2, 7), 3) if max(t) == 6]
    # Cycled by seed (the roster's seeds are random): neighbouring seeds differ.
    return {"ns": list(triples[(seed - 1) % len(triples)])}


def recall_pairs_cell(variant):
    """Source of the data cell of ex-recall-pairs."""
    return f"asked_pairs = {variant['ns']!r}  # the n of soft_scales\n"


VARIANTS["recall-pairs"] = {
    "draw": recall_pairs_draw,
    "cell": recall_pairs_cell,
    "names": ["asked_pairs"],
    "after": "ex-recall-pairs",
    "describe": "the numbers of pairs n of soft_scales (2, 3, 4, 5 in the book)",
}


def recall_malformed_draw(seed):
    """Two malformed prompts of three pairs: the queried key missing; a key stored
    twice with two different values and queried (its other pair anywhere)."""
    import numpy as np

    if seed == 0:
        return {"missing": "A6B8C3Z?", "repeated": "A6B8B3B?"}
    rng = np.random.default_rng(seed)
    letters = rng.choice(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), 4, replace=False)
    digits = rng.choice(list("0123456789"), 3, replace=False)
    pairs = "".join(f"{k}{v}" for k, v in zip(letters[:3], digits, strict=True))
    missing = f"{pairs}{letters[3]}?"
    twice, other = letters[:2]
    slots = [twice, twice, other]
    rng.shuffle(slots)
    values = rng.choice(list("0123456789"), 3, replace=False)
    while {v for k, v in zip(slots, values, strict=True) if k == twice} == {"8", "3"}:
        values = rng.choice(list("0123456789"), 3, replace=False)  # not the book's
    stored = "".join(f"{k}{v}" for k, v in zip(slots, values, strict=True))
    return {"missing": missing, "repeated": f"{stored}{twice}?"}


def recall_malformed_cell(variant):
    """Source of the data cell of ex-recall-malformed."""
    return (
        f"prompt_missing = {variant['missing']!r}  # the queried key is missing\n"
        f"prompt_repeated = {variant['repeated']!r}  # the queried key stored twice\n"
    )


VARIANTS["recall-malformed"] = {
    "draw": recall_malformed_draw,
    "cell": recall_malformed_cell,
    "names": ["prompt_missing", "prompt_repeated"],
    "after": "ex-recall-malformed",
    "describe": "the two malformed prompts (A6B8C3Z? and A6B8B3B? in the book)",
}


# --- ex-recall-perfect


def recall_perfect_form(answer_prompts, sheet_scale_answer):
    from attnsig import recall

    assert callable(answer_prompts), "answer_prompts: a function of a list of prompts"
    found = list(answer_prompts(["A6B8C3B?", "A6B8C3C?"]))
    assert len(found) == 2 and all(a in recall.VOCAB for a in found), (
        "answer_prompts: one token (a one-character string) per prompt"
    )
    assert sheet_scale_answer in recall.VOCAB, (
        "sheet_scale_answer: one token of recall.VOCAB"
    )


def recall_perfect_recalls(answer_prompts):
    """The construction does not recall every prompt: each of the 3000 choices of
    values and queried pair (letters drawn at random), and random prompts, must give
    the queried key's value.
    """

    import itertools
    import random
    import string

    rng = random.Random(9)
    digits, prompts = string.digits, []
    choices = itertools.product(itertools.product(digits, repeat=3), range(3))
    random_ones = [
        (rng.choices(digits, k=3), rng.randrange(3)) for _ in range(1000)
    ]  # fmt: skip
    for values, queried in [*choices, *random_ones]:
        keys = rng.sample(string.ascii_uppercase, 3)
        pairs = "".join(k + v for k, v in zip(keys, values, strict=True))
        prompts.append(pairs + keys[queried] + "?")
    found = [str(a) for a in answer_prompts(prompts)]
    expected = [p[p.index(p[-2]) + 1] for p in prompts]
    wrong = sum(a != e for a, e in zip(found, expected, strict=True))
    assert len(found) == len(prompts) and wrong == 0, f"{wrong} prompts answered wrong"


def recall_perfect_sheet_scale(sheet_scale_answer, variant):
    """The token read out at the sheet's scale is not the chapter's model's answer:
    run it at that scale.
    """
    from collections import Counter

    # At a scale this small every row is near uniform: the read-out counts the tokens
    # of the prompt (the final "?" carries value 0), and one token occurs most often.
    (top, most), (_, second) = Counter(variant["prompt"][:-1]).most_common(2)
    assert most > second, "the draw should have one most frequent token"
    assert sheet_scale_answer == top


def recall_perfect_wrong_the_sheet():
    sheet_scale_answer = "8"
    return {"sheet_scale_answer": sheet_scale_answer}


def recall_perfect_wrong_sheet_scale(model):
    import math

    from attnsig import recall

    def answer_prompts(prompts):
        scale = 1 / math.sqrt(111)
        return [recall.VOCAB[t] for t in recall.predict(model, list(prompts), scale)]

    return {"answer_prompts": answer_prompts}


def recall_perfect_wrong_latest():
    def answer_prompts(prompts):
        return [p[-3] for p in prompts]  # the last value stored

    return {"answer_prompts": answer_prompts}


QUESTIONS["ex-recall-perfect"] = {
    "points": 4,
    "variant": "recall-perfect",
    "answer": ["answer_prompts", "sheet_scale_answer"],
    "describe": (
        "answer_prompts(prompts): the construction (the chapter's or your own) as a "
        "recall machine, a list of prompts of\n"
        "length 8 (3 pairs, e.g. 'A6B8C3B?') -> the list of its answers (one-character "
        "strings),\n"
        "at the scale it needs; judged by what it recalls on every choice of values "
        "and queried pair;\n"
        "sheet_scale_answer: the token (a one-character string) the chapter's "
        "`model` (the package's\n"
        "construction) answers on sheet_prompt at the sheet's scale beta = "
        "1/sqrt(111)"
    ),
    "public": [recall_perfect_form],
    "hidden": [recall_perfect_recalls, recall_perfect_sheet_scale],
    "wrong": {
        "the sheet's answer at its scale": recall_perfect_wrong_the_sheet,
        "the construction at the sheet's scale": recall_perfect_wrong_sheet_scale,
        "the latest value wins": recall_perfect_wrong_latest,
    },
    "rubric": [
        (
            "Proves the theorem: in the limit each block-1 row is one-hot, the last "
            "query of block 2 ties the value position of the queried key with itself "
            "(weight 1/2 each, value 0 at the last position), read-out (1/2) e_v; "
            "block 1 converges like e^-beta, so beta times its error vanishes, and "
            "finitely many prompts give a finite scale beta*(n) (2)"
        ),
        (
            "At the sheet's scale 1/sqrt(111) the model answers B: near-uniform rows "
            "make the read-out count tokens, and B occurs twice (1)"
        ),
        (
            "The true last row is (1/2, 1/2) in the limit and near uniform at the "
            "sheet's scale; the sheet's lambda is the share of the value position "
            "for the two scores beta and 2 beta alone (a query keeping e_1, the six "
            "other positions ignored) (2)"
        ),
        (
            "answer_prompts runs a transformer at a finite scale (the chapter's "
            "construction or one of the student's own), not a read-off of the "
            "prompt; for a read-off give -4 here, which takes back the auto points (1)"
        ),
    ],
}


# --- ex-recall-scale


def recall_scale_form(beta_star, acc_sheet, acc_zero):
    for name, value in (
        ("beta_star", beta_star),
        ("acc_sheet", acc_sheet),
        ("acc_zero", acc_zero),
    ):
        assert value is not ..., f"define {name}"
        float(value)  # a number
    assert float(beta_star) > 0, "a scale is positive"
    assert 0 <= float(acc_zero) <= 1 and 0 <= float(acc_sheet) <= 1, (
        "fractions of prompts"
    )


def recall_scale_critical(beta_star):
    """beta_star is not where recall switches: locate the critical scale more
    precisely.
    """
    import math

    # The chapter's model on its hardest prompt A0B0C1C? (the hardest of the 15
    # classes), in closed form: block 1 puts e^b on the previous position and 1 on
    # every other one it sees; the last query of block 2 then scores value position k
    # with s_k; the answer wins when e^s_3 beats both the two 0s and the two copies
    # of the letter C (score 0 each, weight 1).
    def recalled(b, n=3):
        e = math.exp(b)
        z = e + 2 * n + 1  # the last row's block-1 normaliser
        wrong = [b * (e + k - 1) / ((e + 2 * k - 1) * z) for k in range(1, n)]
        right = b * (e * (e + 1) + n - 1) / ((e + 2 * n - 1) * z)
        return right > math.log(max(2.0, sum(math.exp(s) for s in wrong)))

    # The last switch: a coarse grid, then bisection (about 30 evaluations).
    low = max(g / 8 for g in range(8 * 12) if not recalled(g / 8))
    high = low + 1 / 8
    for _ in range(30):
        mid = (low + high) / 2
        low, high = (low, mid) if recalled(mid) else (mid, high)
    assert abs(float(beta_star) - high) < 1e-3


def recall_scale_accuracy(acc_sheet, acc_zero, variant):
    """The accuracies at the two scales are off: evaluate the model on every prompt."""
    import itertools
    import math
    from fractions import Fraction

    # The chapter's model, recall.build_transformer(3), in closed form on A v1 B v2 C
    # v3 q ?: block 1 gives value position k the letters it sees, e^b on its own key
    # and 1 on earlier keys (over e^b + 2k - 1); the last position holds the letters
    # with 1 each and e^b + 1 on the queried one (over e^b + 7). Block 2 scores value
    # position k with b times their dot product, every letter position with 0; "?"
    # carries no value. Right when the answer's read-out beats every other token's.
    def right(values, q, b):
        e = math.exp(b)
        last = [(1 + e * (m == q)) / (e + 7) for m in range(3)]
        seen = [[e if m == k else float(m < k) for m in range(3)] for k in range(3)]
        score = [
            b * sum(x * y for x, y in zip(last, row, strict=True)) / (e + 2 * k + 1)
            for k, row in enumerate(seen)
        ]
        readout = {"A": 1.0, "B": 1.0, "C": 1.0}
        readout["ABC"[q]] += 1.0  # the queried letter, again at the last position
        for v, s in zip(values, score, strict=True):
            readout[v] = readout.get(v, 0.0) + math.exp(s)
        answer = readout.pop(values[q])
        return answer > max(readout.values())

    # Every choice of three values and the queried pair, letters A, B, C: renaming
    # letters changes nothing for this model, so these are all prompts in proportion.
    choices = [
        (v, q) for v in itertools.product("0123456789", repeat=3) for q in range(3)
    ]
    for value, g in ((acc_sheet, float(variant["scale"])), (acc_zero, 0.0)):
        expected = Fraction(sum(right(v, q, g) for v, q in choices), len(choices))
        assert abs(float(value) - float(expected)) < 1e-9, "an accuracy is off"


def recall_scale_wrong_a_random(random_acc):
    import math

    acc_sheet = random_acc[1 / math.sqrt(111)]
    return {"acc_sheet": acc_sheet}


def recall_scale_wrong_block_1():
    from attnsig import recall

    beta_star = recall.ideal_critical_scale(3)
    return {"beta_star": beta_star}


def recall_scale_wrong_the_sheet(literal_critical):
    beta_star = literal_critical
    return {"beta_star": beta_star}


QUESTIONS["ex-recall-scale"] = {
    "points": 3,
    "variant": "recall-scale",
    "answer": ["beta_star", "acc_sheet", "acc_zero"],
    "describe": (
        "for the chapter's `model` (3 pairs): beta_star, the smallest scale "
        "above which every\n"
        "answerable prompt is recalled (a float, 3 decimals); acc_sheet, "
        "acc_zero: the fraction of\n"
        "ALL answerable prompts recalled correctly at beta = scale_asked and at "
        "beta = 0 (exact:\n"
        "a Fraction, or a float within 1e-9)"
    ),
    "public": [recall_scale_form],
    "hidden": [recall_scale_critical, recall_scale_accuracy],
    "wrong": {
        "a random sample instead of all prompts": recall_scale_wrong_a_random,
        "block 1 taken as exact": recall_scale_wrong_block_1,
        "the sheet's literal feed-forward step": recall_scale_wrong_the_sheet,
    },
    "rubric": [
        (
            "Uses the symmetry (renaming letters or digits) to reduce all 46.8 "
            "million prompts to 15 classes with counts, so that the accuracy is "
            "exact; a plot of accuracy against beta (1)"
        ),
        (
            "Explains the plateau 19/100 (the read-out counts tokens at small scale) "
            "and names the hardest class A0B0C1C? (1)"
        ),
    ],
}


# --- ex-recall-pairs


def recall_pairs_form(ideal_scale, soft_scales):
    # The n asked for are the student's (asked_pairs); the hidden check looks each up
    # among the keys (more keys are fine), since a public check cannot know the
    # student's variant.
    assert callable(ideal_scale), "define ideal_scale as a function of n"
    float(ideal_scale(3))  # a number
    assert isinstance(soft_scales, dict) and soft_scales, (
        "soft_scales: a dict n -> beta*(n), with a key for each n of asked_pairs"
    )
    assert all(int(n) == n and 2 <= n <= 26 for n in soft_scales), (
        "soft_scales: its keys are numbers of pairs n"
    )
    [float(b) for b in soft_scales.values()]  # numbers


def recall_pairs_ideal(ideal_scale):
    """ideal_scale(n) is not right for every number of pairs n."""

    import math

    for n in range(1, 27):
        assert abs(float(ideal_scale(n)) - math.log(max(2, n - 1))) < 1e-9, f"n = {n}"


def recall_pairs_soft(soft_scales, variant):
    """The soft scales are off for some number of pairs n."""
    import math

    # recall.build_transformer(n) on the hardest prompt A0 B0 ... (n - 1 zeros), the
    # last pair holding 1 and queried, in closed form: block 1 puts e^b on the previous
    # position and 1 on every other one it sees; the last query of block 2 scores value
    # position k with s_k (the letters and itself with 0, "?" carries no value); the
    # answer wins when e^s_n beats the n - 1 zeros and the two copies of its letter.
    def recalled(b, n):
        e = math.exp(b)
        z = e + 2 * n + 1  # the last row's block-1 normaliser
        wrong = [b * (e + k - 1) / ((e + 2 * k - 1) * z) for k in range(1, n)]
        right = b * (e * (e + 1) + n - 1) / ((e + 2 * n - 1) * z)
        return right > math.log(max(2.0, sum(math.exp(s) for s in wrong)))

    # A scale for more n than asked (a loop over a range of n) is no mistake: only the
    # n asked are judged, as the public check accepts any n of 2, ..., 26.
    assert set(variant["ns"]) <= set(soft_scales), "one scale for each n asked"
    for n in variant["ns"]:
        # The last switch: a coarse grid, then bisection (about 30 evaluations).
        low = max(g / 8 for g in range(8 * 12) if not recalled(g / 8, n))
        high = low + 1 / 8
        for _ in range(30):
            mid = (low + high) / 2
            low, high = (low, mid) if recalled(mid, n) else (mid, high)
        assert abs(float(soft_scales[n]) - high) < 1e-3, f"n = {n}"


def recall_pairs_wrong_block_1():
    import math

    soft_scales = {n: math.log(max(2, n - 1)) for n in range(2, 6)}
    return {"soft_scales": soft_scales}


def recall_pairs_wrong_ln():
    import math

    def ideal_scale(n):
        return math.log(max(1, n - 1))

    return {"ideal_scale": ideal_scale}


def recall_pairs_wrong_the_copying():
    import math

    def ideal_scale(n):
        return 2 * math.log(n)

    return {"ideal_scale": ideal_scale}


QUESTIONS["ex-recall-pairs"] = {
    "points": 4,
    "variant": "recall-pairs",
    "answer": ["ideal_scale", "soft_scales"],
    "builds": [
        "attnsig.recall.analysis.ideal_critical_scale",
    ],
    "describe": (
        "ideal_scale(n): the scale of block 2 above which every answerable "
        "prompt with n pairs is\n"
        "recalled when block 1 is exact (temperature zero), a function of n = 1, "
        "..., 26;\n"
        "soft_scales: a dict n -> beta*(n) for each n of asked_pairs, both "
        "blocks at the same scale\n"
        "(recall.build_transformer(n), 3 decimals)"
    ),
    "public": [recall_pairs_form],
    "hidden": [recall_pairs_ideal, recall_pairs_soft],
    "wrong": {
        "block 1 taken as exact": recall_pairs_wrong_block_1,
        "ln(n - 1), forgetting the queried letter's two copies": recall_pairs_wrong_ln,
        "the copying length 2 ln n": recall_pairs_wrong_the_copying,
    },
    "rubric": [
        (
            "Generalises the construction (codes beyond 9 get fresh coordinates, d = "
            "111 + max(0, 2n - 7), n <= 26) (1)"
        ),
        (
            "Proves the block-1-exact threshold: token t receives e^beta [t = v*] + "
            "#_t, the worst prompts have #_t = 2 for the queried letter or n - 1 "
            "copies of one wrong digit, so e^beta > max(2, n - 1) (1)"
        ),
        (
            "Relates the ln n growth to the copying bound: orthogonal keys give the "
            "gap beta (not beta/2), epsilon = 1; the soft block 1 adds a slowly "
            "growing excess (measured beta*(n) 1 to 2.5 above) (1)"
        ),
    ],
}


# --- ex-recall-malformed


def recall_malformed_form(readout_missing, readout_repeated):
    import numpy as np

    from attnsig import recall

    for name, r in (
        ("readout_missing", readout_missing),
        ("readout_repeated", readout_repeated),
    ):
        assert r is not ... and np.shape(r) == (recall.VOCAB_SIZE,), (
            f"{name}: one number per token"
        )


def recall_malformed_readouts(readout_missing, readout_repeated, variant):
    """The readouts for the missing or the repeated key are off: run the model on
    those prompts.
    """
    import numpy as np

    vocab = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ?"  # the order of recall.VOCAB
    for r, prompt in (
        (readout_missing, variant["missing"]),
        (readout_repeated, variant["repeated"]),
    ):
        # At temperature zero the last query attends equally to itself (value 0) and
        # to the r positions that follow a copy of the queried key (their values).
        key, pairs = prompt[-2], prompt[:-2]
        found = [pairs[i + 1] for i in range(0, len(pairs), 2) if pairs[i] == key]
        expected = np.zeros(len(vocab))
        for value in found:
            expected[vocab.index(value)] += 1 / (len(found) + 1)
        assert np.shape(r) == expected.shape, "one number per token"
        assert np.allclose(np.asarray(r, dtype=float), expected, rtol=0, atol=1e-9), (
            "a read-out is off"
        )


def recall_malformed_wrong_no_match():
    import numpy as np

    from attnsig import recall

    readout_missing = np.eye(37)[recall.tokenize("A6B8C3Z?")[0, :-1]].sum(0) / 8
    return {"readout_missing": readout_missing}


def recall_wrong_half(letter):
    import numpy as np

    readout_repeated = 0.5 * (np.eye(37)[letter("8")] + np.eye(37)[letter("3")])
    return {"readout_repeated": readout_repeated}


def recall_wrong_latest(letter):
    import numpy as np

    readout_repeated = 0.5 * np.eye(37)[letter("3")]
    return {"readout_repeated": readout_repeated}


QUESTIONS["ex-recall-malformed"] = {
    "points": 2,
    "variant": "recall-malformed",
    "answer": ["readout_missing", "readout_repeated"],
    "describe": (
        "the read-out at the last position (trace.logits[0, -1], 37 numbers in "
        "the order of\n"
        "recall.VOCAB) of the chapter's `model` at temperature zero (scale "
        "math.inf), run with\n"
        "check_answerable=False: readout_missing for prompt_missing\n"
        "(the queried key is missing), readout_repeated for prompt_repeated (the "
        "queried key stored twice)"
    ),
    "public": [recall_malformed_form],
    "hidden": [recall_malformed_readouts],
    "wrong": {
        "no match: a uniform average over the prompt": recall_malformed_wrong_no_match,
        "repeated key: half on each value (self-match forgotten)": recall_wrong_half,
        "repeated key: the latest value wins": recall_wrong_latest,
    },
    "rubric": [
        (
            "Explains the limit: with no match the last query attends only to itself "
            "(value 0, no answer); with r matches it averages them with itself, "
            "weight 1/(r+1) each (tie for different values) (1)"
        ),
        (
            "Decides what the package does: refuse such prompts by default with a "
            "message naming the problem, an option (check_answerable=False) to run "
            "them, predict returning -1 on a tie (1)"
        ),
    ],
}
