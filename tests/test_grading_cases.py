"""Answers by another route get full marks; typical mistakes and empty judgement lose.

The judge (`tools.grading.judge_answers`) grades answers handed to it as a dict, as if
exported from a submission, with the checks the autograder zip holds
(`tools.grading.check_of`); no notebook runs, so the whole file takes seconds.

* Verdict questions (every chapter that has one): one verdict for every claim,
  whichever, scores 0; the book's key scores full marks, and so does a key that uses
  verdicts the book's accepts in their place.
* Every other auto-checked question: `tests/grading_cases/<chapter>.py` gives, per
  exercise label, `ALTERNATIVES` (functions returning answers computed by another route
  than the chapter's solution) and may give `MISTAKES` (more wrong answers); the checks
  file's own typical mistakes (`wrong`) are applied to the first alternative. Each
  alternative scores full marks, each mistake loses the question's points.
* Variants: an alternative may take one argument, `variant` (the question's draw, a
  dict); it is then graded for seed 0 and for each of `VARIANT_SEEDS` on the draw of
  that seed, with full marks each time, and the seed-0 answers graded under each
  other seed lose the question (the variant changes the answer). Mistakes are applied
  to the seed-0 answers; a mistake of `MISTAKES` that takes `variant` is instead
  graded on the draw of each of `MISTAKE_SEEDS`, for mistakes that the book's
  numbers make right or hide (the statement's sigma^2 = 1/2 in place of a drawn one).
"""

from __future__ import annotations

import datetime
import importlib
import inspect
from fractions import Fraction

import nbformat
import pytest

from tools import assignments, grading
from tools.questions import (
    VERDICTS,
    claim_accepts,
    load_checks,
    load_variants,
    verdict_points,
)

# The seeds besides 0 (the book's numbers) on which variant alternatives are graded.
VARIANT_SEEDS = (1, 2, 3)
# The seeds on which a mistake taking `variant` must lose.
MISTAKE_SEEDS = (1, 2, 3, 4, 5)

CHAPTERS = {p.stem: p for p in assignments.chapters() if assignments.questions(p)}
QS = {
    stem: {q["label"]: q for q in assignments.questions(path)}
    for stem, path in CHAPTERS.items()
}
VERDICT_QS = [
    (stem, label) for stem, qs in QS.items() for label, q in qs.items() if q["claims"]
]


def _check(stem: str, label: str) -> dict:
    q = QS[stem][label]
    return grading.check_of(q["name"], q["spec"])


@pytest.mark.parametrize(("stem", "label"), VERDICT_QS, ids=[s for s, _ in VERDICT_QS])
def test_verdicts_reward_judgement(stem, label):
    """One verdict for every claim (trusting, rejecting, hedging, ...) scores 0; the
    key scores full marks; one claim misjudged costs a share, not the question."""
    check, key = _check(stem, label), QS[stem][label]["spec"]["key"]
    points = QS[stem][label]["spec"]["points"]
    assert check["possible"] == pytest.approx(points)
    for verdict in VERDICTS:
        got = grading.judge_answers(check, {"verdicts": dict.fromkeys(key, verdict)})
        assert got["score"] == 0, f"{verdict!r} for every claim scores {got['score']}"
    # Where "right" and "right with a caveat" accept each other, a mix of the two is
    # no judgement either.
    if any(len(a) > 1 for a in claim_accepts(key).values() if "right" in a):
        mixed = {i: VERDICTS[i % 2] for i in key}
        assert grading.judge_answers(check, {"verdicts": mixed})["score"] == 0
    assert grading.judge_answers(check, {"verdicts": dict(key)})["score"] == (
        pytest.approx(points)
    )
    # the key typed as people type: capitals, a space after (R17: scored 0 before)
    typed = {i: f"{v[0].upper()}{v[1:]} ".replace(" ", "  ") for i, v in key.items()}
    got = grading.judge_answers(check, {"verdicts": typed})
    assert got["score"] == pytest.approx(points), got["hints"]
    # another full-marks key: each claim given the last verdict its book verdict
    # accepts (garbled -> wrong, right -> right with a caveat, ...)
    accepts = claim_accepts(key)
    other = {i: a[-1] for i, a in accepts.items()}
    assert other != key or all(len(a) == 1 for a in accepts.values())
    got = grading.judge_answers(check, {"verdicts": other})
    assert got["score"] == pytest.approx(points), got["hints"]
    flagged = 1
    off = {**key, 1: next(v for v in VERDICTS if v not in accepts[1])}
    got = grading.judge_answers(check, {"verdicts": off})
    assert 0 < got["score"] < points
    assert got["score"] == pytest.approx(verdict_points(off, key, points))
    assert got["hints"] and "claims judged as the book does" in got["hints"][0]
    assert f"claim {flagged}" not in " ".join(got["hints"])  # which claim: not said
    # Claims left as the template's `...` are unjudged, the rest scored (as otter
    # scores the same table on Gradescope), not the whole table "not answered yet".
    partial = {**key, 1: ..., len(key): ...}
    got = grading.judge_answers(check, {"verdicts": partial})
    assert got["score"] == pytest.approx(verdict_points(partial, key, points))
    # the feedback names the claims without a verdict, not "not answered yet"
    assert got["hints"][0].startswith("answer one of ("), got
    assert got["hints"][0].endswith(f"'unverifiable'): claims [1, {len(key)}]"), got
    assert not any(grading.NOT_ANSWERED in h for h in got["hints"]), got["hints"]


def test_public_checks_read_only_the_answers():
    """A public (form) check reads the question's answers only: data names such as `T`,
    `scores` or `means` are the notebook's as it ends, and a later cell that reuses
    one (a small case tried after the check) failed a right answer (R22a 4)."""
    import ast

    def params(source):
        (function,) = ast.parse(source).body
        return function.name, {a.arg for a in function.args.args}

    misread = [
        (stem, label, name, extra)
        for stem, qs in QS.items()
        for label, q in qs.items()
        for name, read in map(params, q["spec"].get("public", []))
        if (extra := read - set(q["spec"]["answer"]))
    ]
    assert not misread, misread


def test_a_wrong_form_hears_only_the_form():
    """An answer of the wrong form is told the form asked for, once, not the hint of
    a hidden check that failed on that form, which could call a right stance wrong
    (R21a 3: 'no' for False); another answer's hints stay (R22b M1)."""
    import numpy as np

    def rank_exact(a, k):  # singular values floored: rank k - 1 even where A's is less
        u, s, vt = np.linalg.svd(a, full_matrices=True)
        s = np.maximum(s[: k - 1], 1e-3 * np.linalg.norm(a) / np.sqrt(k))
        return (u[:, : k - 1] * s) @ vt[: k - 1]

    check = _check("svd", "ex-svd-lowrank")
    got = grading.judge_answers(check, {"rank_exact": rank_exact, "always_exact": "no"})
    assert got["score"] == 0 and got["hints"] == ["always_exact: True or False"], got
    got = grading.judge_answers(check, {"rank_exact": rank_exact, "always_exact": True})
    assert got["score"] == 0 and "True or False" not in " ".join(got["hints"]), got
    # another answer wrong too: its hint is kept (R22b M1)
    wrong = {"rank_exact": lambda a, k: a, "always_exact": 1j}
    got = grading.judge_answers(check, wrong)
    assert got["hints"][0] == "always_exact: True or False", got
    assert any("wrong rank" in h for h in got["hints"][1:]), got
    # a form hint that names the answers does not swallow another answer's hint, whose
    # message is that answer's name (R24b 1)
    check = _check("one-head", "ex-onehead-one-head-robust")
    answers = {"q_robust": "text", "p_one_head": 0.0, "p_two_heads": 0.0}
    got = grading.judge_answers(check, answers)
    assert "p_two_heads: of the wrong type or form" in got["hints"][0], got
    assert any("p_one_head or p_two_heads is off" in h for h in got["hints"]), got
    # a hidden check that crashed on a malformed answer does not repeat the form's hint
    # (R24b 4: verdicts as a list)
    stem, label = VERDICT_QS[0]
    got = grading.judge_answers(_check(stem, label), {"verdicts": ["right"] * 3})
    assert got["hints"] == ["verdicts: a dict, claim number -> verdict"], got


def test_a_form_check_without_a_message_names_its_answers():
    """A form check that fails with no message of its own (`float(None)` raising)
    names the answers it takes, not the check's file name (R22a 2, R23b M2)."""
    check = _check("associative-recall", "ex-recall-scale")
    answers = {"beta_star": None, "acc_sheet": 1.0, "acc_zero": 0.0}
    got = grading.judge_answers(check, answers)
    said = "beta_star, acc_sheet or acc_zero: of the wrong type or form (TypeError)"
    assert got["score"] == 0 and got["hints"][0] == said, got


def test_words_as_lists_are_words():
    """signatures' area words given as lists (json, `.tolist()`) or an array's rows
    name the same words as tuples and score; words as strings do not (R23a 4,
    R24a 2)."""
    import numpy as np

    def swept_area(path):  # the shoelace about path[0], not from a signature
        chord, step = path[:-1] - path[0], np.diff(path, axis=0)
        return 0.5 * np.sum(chord[:, 0] * step[:, 1] - chord[:, 1] * step[:, 0])

    check = _check("signatures", "sigch-ex-area")
    lists, arrays = [[0, 1], [1, 0]], np.argwhere(np.eye(2) == 0)  # (0, 1), (1, 0)
    for words, score in (lists, 3), (arrays, 3), (["01", "10"], 0):
        got = grading.judge_answers(
            check, {"swept_area": swept_area, "area_words": words}
        )
        assert got["score"] == score, (words, got)
    assert got["hints"] == ["words as tuples"], got


def test_the_tour_term_in_single_precision_scores():
    """The tour's signature term computed in float32 or rounded to five significant
    digits (the statement asks for no precision) scores; the term without its
    factorial, or off by 1e-3, still loses (R24a 4, R25b 6)."""
    import math

    import numpy as np

    check = _check("tour", "ex-tour-1d")

    def five_digits(a, k):  # rounded to five significant digits
        return float(f"{a**k / math.factorial(k):.5g}")

    for term, score in (
        (lambda a, k: np.float32(a) ** k / np.float32(math.factorial(k)), 2),
        (five_digits, 2),
        (lambda a, k: np.float32(a) ** k, 0),
        (lambda a, k: a**k / math.factorial(k) * (1 + 1e-3), 0),
    ):
        got = grading.judge_answers(check, {"signature_term": term})
        assert got["score"] == score, got


def test_rows_as_a_mask_are_told_the_form():
    """position-encoding's causal_rows returning a boolean mask over the rows (the
    statement asks for row numbers) is told so, not only that the rows are wrong
    (R24b 5)."""
    import numpy as np

    check = _check("position-encoding", "ex-posenc-equivariance")
    answers = {
        "gap": lambda f, x, perm: 0.0,
        "causal_rows": lambda perm: np.asarray(perm) == np.arange(len(perm)),
    }
    got = grading.judge_answers(check, answers)
    assert got["hints"][0] == "causal_rows: the row numbers, not a mask", got
    # a hidden check of the other answer that crashes keeps its hint: the form check
    # takes both answers, so which one it refused is not known (R25b 1)
    got = grading.judge_answers(check, {**answers, "gap": lambda f, x, perm: None})
    assert any(h.startswith("The gap is") for h in got["hints"][1:]), got


def test_stubs_and_unreadable_answers():
    """A stub is "not answered yet", an answer whose cell raised says what it raised;
    an object the judge may not unpickle scores 0."""
    stem, label = VERDICT_QS[0]
    check, key = _check(stem, label), QS[stem][label]["spec"]["key"]
    got = grading.judge_answers(check, {"verdicts": dict.fromkeys(key, ...)})
    assert got["score"] == 0 and grading.NOT_ANSWERED in got["hints"][0]

    # A cell that raised: the student reads what it raised, once for all the names the
    # cell defines, and for a question whose answer cell raised before defining any;
    # the cell is numbered as a student counts code cells (markdown cells aside).
    checks = {
        "q": grading.check_of("q", {"hidden": ["def q_ab(a, b):\n    assert a == b"]}),
        "r": grading.check_of("r", {"hidden": ["def r_c(c):\n    assert c == 1"]}),
    }
    code, statement = nbformat.v4.new_code_cell, nbformat.v4.new_markdown_cell
    cells = [code("import numpy"), statement("Question q"), code("a = f()\nb = 2")]
    cells += [code('grader.check("q")'), statement("Question r")]
    cells += [
        code('raise RuntimeError("oops")'),
        code("c = ..."),
        code('grader.check("r")'),
    ]
    for c in cells[1], cells[4]:
        c.metadata["editable"] = False
    errors = [
        "code cell 2: NameError: f\nTraceback ...",
        "code cell 4: RuntimeError: oops",
    ]
    session = grading.Exported({})
    answering = grading.answer_cells(cells, checks)
    assert answering == {2: "q", 5: "r", 6: "r"}
    session.raised, session.raised_in = grading.raised_answers(cells, errors, answering)
    said = "raised NameError: f (code cell 2)"
    assert session.raised == {"a": said, "b": said}
    assert session.raised_in == {
        "q": said,
        "r": "raised RuntimeError: oops (code cell 4)",
    }
    for name, hints in (
        ("q", [f"the cell that defines a, b {said}"]),
        ("r", ["the answer cell raised RuntimeError: oops (code cell 4)"]),
    ):
        out, log = {"score": 0.0, "hints": []}, []
        grading.judge_question(checks[name], session, out, log)
        assert out["hints"] == hints, out

    # A dict subclass is read as its items (the kernel sends plain data); a class the
    # judge does not read back (a date here, any class of the student's) scores 0.
    class Sneaky(dict):
        pass

    assert grading.judge_answers(check, {"verdicts": Sneaky(key)})["score"] > 0
    got = grading.judge_answers(check, {"verdicts": datetime.date(2026, 1, 1)})
    assert got["score"] == 0 and "cannot be read" in " ".join(got["hints"])


def test_replies_the_judge_refuses():
    """A forged reply nested 300 deep (deeper, it breaks the judge's hints), a shared
    one that doubles at every level, or a bytearray (10**10 of them would fill the
    judge's memory) is refused; plain data is read."""
    import pickle

    deep = []
    for _ in range(300):
        deep = [deep]
    doubling = [1.0]
    for _ in range(60):
        doubling = [doubling, doubling]
    for forged in (deep, doubling, bytearray(3)):
        with pytest.raises(pickle.UnpicklingError):
            grading.read_reply(pickle.dumps(("value", forged)))
    plain = ("value", {"a": [1, (2.5, Fraction(1, 3))]})
    assert grading.read_reply(pickle.dumps(plain)) == plain


def test_string_answers_are_never_run(tmp_path):
    """Strings are data the judge reads back, so a check never hands one to SymPy
    (sp.Matrix and nsimplify would run it as code): exact answers written as strings
    score 0, and the code in them does not run."""
    marker = tmp_path / "ran"
    payload = f"__import__('pathlib').Path({str(marker)!r}).write_text('x') or 1"
    check = _check("scaled-dot-product", "ex-abh-q3a")
    answers = {name: [[payload, "0"]] * 3 for name in ("Q", "K", "V")}
    answers["QKt"] = [[payload, "0", "0"]] * 3
    assert grading.judge_answers(check, answers, seed=3)["score"] == 0
    assert not marker.exists(), "a string answer ran as code in the judge"


def test_an_unreadable_return_is_not_called_raising():
    """A function answer that returns what the judge cannot read (a generator) is
    told so, not that it raised."""
    check = grading.check_of("q", {"hidden": ["def q_f(f):\n    assert f(1) == 1"]})
    got = grading.judge_answers(check, {"f": lambda x: (x for _ in "a")})
    assert got["score"] == 0
    assert "returned what the checks cannot read" in " ".join(got["hints"]), got


def test_hints_say_what_the_check_saw():
    """A function answer that raised: that alone is the hint, not also the docstrings
    of the checks it failed. An assertion message written out in the check file may
    say more than the docstring and follows it; a computed one is never shown."""
    hidden = [
        'def q_value(f):\n    """f is not the right function."""\n'
        '    assert f(0) >= 0, "f(0) is negative"\n'
        '    assert f(1) == 2, f"{f(1)} != 2"',
        'def q_more(f):\n    """f is wrong elsewhere."""\n    assert f(2) == 3',
    ]
    check = grading.check_of("q", {"hidden": hidden})

    def raises(x):
        raise ValueError("my own error")

    got = grading.judge_answers(check, {"f": raises})
    assert got["hints"] == ["f raised ValueError: my own error"], got["hints"]
    got = grading.judge_answers(check, {"f": lambda x: -1})
    said = ["f is not the right function; f(0) is negative", "f is wrong elsewhere."]
    assert got["hints"] == said, got["hints"]
    got = grading.judge_answers(check, {"f": lambda x: x})
    assert got["hints"] == ["f is not the right function.", "f is wrong elsewhere."]


def test_pair_score_states_the_layout_its_check_expects():
    """review-notes' pair_score is checked as x_i Wq^T Wk x_j (PyTorch's layout); the
    section writes q_i = W_Q^T x_i, so the answer cell's comment says which."""
    spec = QS["review-notes"]["ex-tr-bilinear"]["spec"]
    assert "Wq = W_Q^T, Wk = W_K^T" in spec["describe"].replace("\n", " ")


def test_dropout_mistake_loses_on_every_drawn_p():
    """review-notes' dropout: "keep with probability p, scale by 1/p" loses for every
    p the draw gives (at p = 1/2 it would be the right distribution)."""
    from tests.grading_cases import review_notes

    spec = load_checks(CHAPTERS["review-notes"])["ex-tr-dropout"]
    draw = load_variants(CHAPTERS["review-notes"])[spec["variant"]]["draw"]
    check = _check("review-notes", "ex-tr-dropout")
    drawn = {draw(seed)["p"] for seed in range(60)}
    assert 0.1 in drawn and len(drawn) >= 6
    for seed in range(60):
        mistake = review_notes.dropout_mistake_keep_with_probability_p(draw(seed))
        got = grading.judge_answers(check, mistake, seed)
        assert got["score"] == 0, (seed, draw(seed))


# --- Alternatives and mistakes of the other auto-checked questions


def _cases(stem: str):
    try:
        return importlib.import_module(f"tests.grading_cases.{stem.replace('-', '_')}")
    except ModuleNotFoundError:
        return None


AUTO = [
    (stem, label)
    for stem, qs in QS.items()
    for label, q in qs.items()
    if q["answer_cell"] is not None and not q["claims"]
]


def _alternatives(stem: str, label: str) -> list:
    module = _cases(stem)
    return list(getattr(module, "ALTERNATIVES", {}).get(label, [])) if module else []


def _call(function, names: dict):
    args = inspect.signature(function).parameters
    return function(**{a: names[a] for a in args})


def _mistakes(stem: str, label: str, first: dict) -> list[tuple[str, dict]]:
    raw = load_checks(CHAPTERS[stem])[label].get("wrong", {})
    # A mistake that reads notebook names the cases do not give is left to the
    # notebook batch of tests/test_assignments.py.
    found = [
        (name, {**first, **_call(f, first)})
        for name, f in raw.items()
        if set(inspect.signature(f).parameters) <= set(first)
    ]
    for f in _listed_mistakes(stem, label):
        if "variant" not in inspect.signature(f).parameters:
            found.append((f.__name__, {**first, **f()}))
    return found


def _listed_mistakes(stem: str, label: str) -> list:
    module = _cases(stem)
    return list(getattr(module, "MISTAKES", {}).get(label, [])) if module else []


def test_every_question_has_cases():
    short = [(s, label) for s, label in AUTO if len(_alternatives(s, label)) < 2]
    assert not short, f"fewer than two alternatives: {short}"


@pytest.mark.parametrize(("stem", "label"), AUTO, ids=[f"{s}:{q}" for s, q in AUTO])
def test_alternatives_pass_the_public_checks(stem, label):
    """Every right answer by another method passes its question's public checks too:
    on Gradescope (`otter run`) they are scored cases, so a form check that refuses
    a valid type (a torch tensor, say) would cost the question there alone."""
    public = load_checks(CHAPTERS[stem])[label].get("public", [])
    key = load_checks(CHAPTERS[stem])[label].get("variant")
    draw = load_variants(CHAPTERS[stem])[key]["draw"] if key else None
    for make in _alternatives(stem, label):
        takes = "variant" in inspect.signature(make).parameters
        found = make(variant=draw(0)) if takes else make()
        for form in public:
            args = inspect.signature(form).parameters
            if set(args) <= set(found):  # a form check of these answers
                form(**{a: found[a] for a in args})


@pytest.mark.parametrize(("stem", "label"), AUTO, ids=[f"{s}:{q}" for s, q in AUTO])
def test_alternatives_full_marks_mistakes_lose(stem, label):
    alternatives = _alternatives(stem, label)
    check = _check(stem, label)
    points = QS[stem][label]["spec"]["points"]
    answers = []
    key = load_checks(CHAPTERS[stem])[label].get("variant")
    draw = load_variants(CHAPTERS[stem])[key]["draw"] if key else None
    for make in alternatives:
        takes = "variant" in inspect.signature(make).parameters
        found = make(variant=draw(0)) if takes else make()
        answers.append(found)
        got = grading.judge_answers(check, found)
        assert got["score"] == pytest.approx(points), (make.__name__, got["log"])
        if not takes:
            continue
        assert draw, f"{make.__name__} takes variant, {label} has none"
        for seed in VARIANT_SEEDS:
            got = grading.judge_answers(check, make(variant=draw(seed)), seed)
            assert got["score"] == pytest.approx(points), (make.__name__, seed)
            got = grading.judge_answers(check, found, seed)
            assert got["score"] == 0, (
                f"{make.__name__}: the book's answer scores under seed {seed}"
            )
    mistakes = _mistakes(stem, label, answers[0])
    assert len(mistakes) >= 2, "fewer than two typical mistakes"
    for name, found in mistakes:
        got = grading.judge_answers(check, found)
        assert got["score"] == 0, f"the mistake {name!r} scores {got['score']}"
    for make in _listed_mistakes(stem, label):
        if "variant" not in inspect.signature(make).parameters:
            continue
        assert draw, f"{make.__name__} takes variant, {label} has none"
        for seed in MISTAKE_SEEDS:
            got = grading.judge_answers(check, make(variant=draw(seed)), seed)
            assert got["score"] == 0, f"the mistake {make.__name__!r}, seed {seed}"
