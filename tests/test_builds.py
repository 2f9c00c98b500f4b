"""Build it yourself: where a question asks for what the package provides, calling the
package's function scores 0 on that question, and only there.

A question's `builds` (its checks file) names the package functions it blocks
(`tools.grading.blocking`): while a check calls one of its function answers, and, with
`builds_in_cells`, while its answer cells run in the grading kernel. Its public check
says so at once (`tools.grading.builds_check`).
"""

from __future__ import annotations

import importlib
import json
import zipfile

import nbformat
import pytest

from tools import assignments, grading
from tools.questions import load_checks, load_variants

CHAPTERS = {p.stem: p for p in assignments.chapters() if assignments.questions(p)}
BUILDS = [
    (stem, label)
    for stem, path in CHAPTERS.items()
    for label, spec in (load_checks(path) or {}).items()
    if spec.get("builds")
]
MESSAGE = "build it yourself"


def _one_liners() -> dict[str, dict]:
    """Per question with `builds`, the answers a student gets by calling the package
    (the rest of the answers from the first alternative of tests/grading_cases)."""
    import numpy as np

    from attnsig import bounds, constructions, recall, reconstruction, signature

    return {
        "ex-bounds-copy": {
            "q_copy": lambda keys, eps: constructions.copy_query(keys, 0, eps),
            "copy_worst": bounds.copy_worst_case_length,
        },
        "ex-bounds-average": {
            "q_avg": lambda keys, eps: constructions.average_query(keys, (0, 1), eps),
            "avg_shortest": bounds.average_min_length,
        },
        "ex-bounds-noisy": {"noisy_w": bounds.noisy_weights},
        "ex-bounds-heads": {
            "two_heads": constructions.two_head_queries,
            "head1_length": lambda n, eps: bounds.head_scale_needed(n, eps, 0.5),
        },
        "ex-onehead-copy": {"smallest_gap": bounds.copy_gap},
        "ex-a5-average": {
            "outside_weight": lambda b, n: bounds.outside_weight(b, n, subset_size=2)
        },
        "ex-recall-pairs": {"ideal_scale": recall.ideal_critical_scale},
        "sigch-ex-area": {"swept_area": signature.levy_area},
        "sigch-ex-recall": {
            "reconstruct_increment": lambda terms, t: (
                reconstruction.increment_from_legendre(
                    reconstruction.legendre_coefficients_from_terms(terms), t
                )
            ),
            "fourier_from_terms": reconstruction.fourier_coefficient_from_terms,
        },
        "ex-tour-1d": {
            "signature_term": lambda a, k: signature.signature(
                np.array([[0.0], [a]]), k
            )[k - 1]
        },
    }


def _other_routes() -> dict[str, tuple[str, dict]]:
    """More one-call answers, by private kernels or by the package's numerical
    minimisers: route name -> (question, answers)."""
    import numpy as np
    from scipy.optimize import brentq

    from attnsig import _signature_numpy as sn
    from attnsig import bounds

    def by_plan(a, k):
        source, result, program = sn._cached_plan(1, 1, 2, k, k)
        source[...] = [[[0.0, a]]]
        for operation in program:
            operation()
        return result[0, -1]

    def by_middle(a, k):
        out = np.empty((1, k))
        sn._meet_in_middle(np.array([[[0.0, a]]]), k, k // 2 + 1, out)
        return out[0, -1]

    def along(keys, direction, targets, threshold):
        direction = np.asarray(direction, dtype=float)
        t = bounds.min_scale_along(keys, direction, targets, threshold)
        return t * direction / np.linalg.norm(direction)

    def head1(n, eps):
        # the gamma = 1/2 key set decides; its first key is gamma e_1
        keys = np.eye(n)
        keys[0, 0] = 0.5
        return bounds.min_scale_along(keys, keys[0], [0], 1 / (1 + eps))

    tour = {
        "horner": lambda a, k: sn._signature_horner(np.array([[[0.0], [a]]]), k)[0, -1],
        "horner-levels": lambda a, k: sn._horner(np.array([[[a]]]), k)[-1][0, 0],
        "meet-in-the-middle": by_middle,
        "plan": by_plan,
    }
    routes = {
        f"tour-{n}": ("ex-tour-1d", {"signature_term": f}) for n, f in tour.items()
    }
    routes["bounds-copy-along"] = (
        "ex-bounds-copy",
        {"q_copy": lambda keys, eps: along(keys, keys[0], [0], 1 / (1 + eps))},
    )
    routes["bounds-average-along"] = (
        "ex-bounds-average",
        {
            "q_avg": lambda keys, eps: along(
                keys, keys[:2].sum(0), [0, 1], 1 / (2 + eps)
            )
        },
    )
    routes["bounds-heads-along"] = ("ex-bounds-heads", {"head1_length": head1})
    # the worst-case outside weight the question derives, inverted by a root finder
    routes["onehead-copy-outside-weight"] = (
        "ex-onehead-copy",
        {
            "smallest_gap": lambda n_keys, eps: brentq(
                lambda g: bounds.outside_weight(g, n_keys) - eps, 0, 200
            )
        },
    )
    return routes


def _question(stem: str, label: str) -> dict:
    return next(q for q in assignments.questions(CHAPTERS[stem]) if q["label"] == label)


def _first_alternative(stem: str, label: str) -> dict:
    """The first alternative's answers, on the book's numbers (seed 0)."""
    module = importlib.import_module(f"tests.grading_cases.{stem.replace('-', '_')}")
    make = module.ALTERNATIVES[label][0]
    if not make.__code__.co_argcount:
        return make()
    key = load_checks(CHAPTERS[stem])[label].get("variant")
    return make(load_variants(CHAPTERS[stem])[key]["draw"](0) if key else None)


def test_builds_name_package_functions():
    """Each blocked name is a function of attnsig (or a method of its class) that the
    stub can replace."""
    import pkgutil

    for stem, label in BUILDS:
        for dotted in _question(stem, label)["spec"]["builds"]:
            function = pkgutil.resolve_name(dotted)
            function = getattr(function, "__func__", function)
            assert dotted.split(".")[0] == "attnsig", dotted
            if hasattr(function, "py_func"):  # a numba kernel: blocked by its module
                continue
            assert function.__closure__ is None and hasattr(function, "__code__"), (
                dotted
            )


def test_copy_and_average_questions_block_all_of_bounds_and_constructions():
    """Every public function of attnsig.bounds and attnsig.constructions answers the
    copy, average and two-head questions in a call or two (copy_gap at eps / (1 +
    eps) scaled by the variant's distance gives attention-bounds' worst-case length;
    a construction's norm is the gap): `"attnsig.bounds.*"` blocks them all, a
    function added to either module included."""
    from attnsig import bounds, constructions

    every = {f"attnsig.bounds.{n}" for n in bounds.__all__}
    every |= {f"attnsig.constructions.{n}" for n in constructions.__all__}
    for stem, label in [
        ("attention-bounds", "ex-bounds-copy"),
        ("attention-bounds", "ex-bounds-average"),
        ("attention-bounds", "ex-bounds-heads"),
        ("one-head", "ex-onehead-copy"),
        ("one-head", "ex-onehead-average"),
        ("cs224n-a5", "ex-a5-copy"),
    ]:
        assert every <= set(_question(stem, label)["spec"]["builds"]), label
    # R14a: query_for_scores(means, [b, b, 0, ...]) is the small-noise query too
    made = {f"attnsig.constructions.{n}" for n in constructions.__all__}
    for stem, label in [
        ("one-head", "ex-onehead-small-noise"),
        ("cs224n-a5", "ex-a5-noisy-small"),
    ]:
        assert made <= set(_question(stem, label)["spec"]["builds"]), label


def test_blocking_restores_and_lets_the_package_call_itself():
    from attnsig import bounds, constructions

    before = bounds.subset_gap(4, 1, 0.1)
    restore = grading.blocking(["attnsig.bounds.subset_gap"], "q")
    try:
        with pytest.raises(NotImplementedError, match=f"subset_gap .* q: {MESSAGE}"):
            bounds.subset_gap(4, 1, 0.1)
        assert bounds.copy_gap(4, 0.1) == before  # it calls subset_gap inside attnsig
        constructions.copy_query_by_gap([[1.0, 0.0], [0.0, 1.0]], 0, 0.1)
    finally:
        restore()
    assert bounds.subset_gap(4, 1, 0.1) == before


@pytest.mark.parametrize(("stem", "label"), BUILDS, ids=[f"{s}:{q}" for s, q in BUILDS])
def test_calling_the_package_scores_zero(stem, label):
    """The package's one-line answer loses the question and says why; the same answers
    judged without the block would pass, so the block alone takes the points."""
    spec = _question(stem, label)["spec"]
    check = grading.check_of(_question(stem, label)["name"], spec)
    if spec.get("builds_in_cells"):
        pytest.skip("a value answer: blocked in its cells (test_graded_run_blocks)")
    answers = {**_first_alternative(stem, label), **_one_liners()[label]}
    got = grading.judge_answers(check, answers)
    assert got["score"] == 0
    # the block message alone: the question's other hints follow from it
    assert got["hints"] and all(MESSAGE in h for h in got["hints"]), got["hints"]
    _passes_without_the_block(check, answers)


def _passes_without_the_block(check, answers):
    """The same answers judged without the build check and the block pass: the
    block, not a wrong answer, took the points."""
    free = {**check, "builds": []}
    free["cases"] = [tc for tc in check["cases"] if not tc.name.endswith("_builds")]
    free["possible"] = sum(tc.points for tc in free["cases"])
    got = grading.judge_answers(free, answers)
    assert got["hints"] == [], got["log"]


ROUTES = sorted(_other_routes())


@pytest.mark.parametrize("route", ROUTES)
def test_other_one_call_routes_score_zero(route):
    """A private kernel of the package (tour's NumPy signature route) or one of its
    numerical minimisers (attention-bounds) answers the question in one call: it is
    blocked too, and the same answers judged without the block would pass."""
    label, found = _other_routes()[route]
    stem = next(s for s, q in BUILDS if q == label)
    spec = _question(stem, label)["spec"]
    check = grading.check_of(_question(stem, label)["name"], spec)
    answers = {**_first_alternative(stem, label), **found}
    got = grading.judge_answers(check, answers)
    assert got["score"] == 0, got["log"]
    assert got["hints"] and all(MESSAGE in h for h in got["hints"]), got["hints"]
    _passes_without_the_block(check, answers)


PACKAGE = [
    (stem, label, k)
    for stem in CHAPTERS
    for label, (_, cells) in getattr(
        importlib.import_module(f"tests.grading_cases.{stem.replace('-', '_')}"),
        "PACKAGE",
        {},
    ).items()
    for k in range(len(cells))
]


@pytest.mark.parametrize(("stem", "label", "k"), PACKAGE)
def test_package_answer_cells_score_zero(stem, label, k, monkeypatch):
    """An answer cell of tests/grading_cases (`PACKAGE`) that computes a value answer
    with the package: unblocked it earns full marks; with the question's blocks (the
    graded run's answer cells) it stops at the package call, and the public check
    names the function at once."""
    import IPython

    module = importlib.import_module(f"tests.grading_cases.{stem.replace('-', '_')}")
    names_of, cells = module.PACKAGE[label]
    q = _question(stem, label)
    variants = load_variants(CHAPTERS[stem])
    draw = variants[q["spec"]["variant"]]["draw"](1) if variants else None
    env = names_of(draw)
    exec(cells[k], env)
    answers = {a: env[a] for a in q["spec"]["answer"]}
    check = grading.check_of(q["name"], q["spec"])
    # judged on the notebook's names: a check may read the test bed besides the answer
    got = grading.judge_answers(check, env, 1)
    assert got["score"] == q["spec"]["points"], got["log"]
    restore = grading.blocking(q["spec"]["builds"], q["name"])
    try:
        with pytest.raises(NotImplementedError, match=MESSAGE):
            exec(cells[k], names_of(draw))
    finally:
        restore()
    public = {}
    exec(compile(grading.builds_check(q["name"], q["spec"]), "c.py", "exec"), public)
    shell = type("Shell", (), {"user_ns": {**names_of(draw), "In": ["", cells[k]]}})()
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    with pytest.raises(AssertionError, match=MESSAGE):
        public[f"{q['name']}_builds"](*answers.values())


def test_outside_weight_is_named_where_it_is_blocked():
    """The worst-case outside weight inverted by a root finder answers the copy and
    average questions of one-head and cs224n-a5 in one line: the block message names
    the function."""
    label, found = _other_routes()["onehead-copy-outside-weight"]
    q = _question("one-head", label)
    got = grading.judge_answers(
        grading.check_of(q["name"], q["spec"]),
        {**_first_alternative("one-head", label), **found},
    )
    assert got["score"] == 0
    assert "attnsig.bounds.outside_weight is not available" in got["hints"][0]
    for stem, label in (
        ("one-head", "ex-onehead-average"),
        ("cs224n-a5", "ex-a5-copy"),
    ):
        module = importlib.import_module(
            f"tests.grading_cases.{stem.replace('-', '_')}"
        )
        names_of, cells = module.PACKAGE[label]
        q = _question(stem, label)
        draw = load_variants(CHAPTERS[stem])[q["spec"]["variant"]]["draw"](1)
        restore = grading.blocking(q["spec"]["builds"], q["name"])
        try:
            with pytest.raises(NotImplementedError, match="bounds.outside_weight is"):
                exec(cells[0], names_of(draw))
        finally:
            restore()


# --- A graded run in the sandbox: the answer cells and the checks' calls


def _test_file(name: str, spec: dict) -> str:
    lines = [
        "from otter.test_files import test_case",
        "",
        f"name = {name!r}",
        f"points = {spec['points']}",
        "all_or_nothing = True",
        "",
    ]
    for source, config in grading.test_cases_of(spec, name):
        lines.append(f"@test_case(hidden={config['hidden']})")
        lines += [source, ""]
    return "\n".join(lines)


def _gap_ok(gap):
    import math

    assert abs(gap - math.log(57)) < 1e-12, "not the gap"


def _other_ok(gap_too):
    import math

    assert abs(gap_too - math.log(57)) < 1e-12, "not the gap"


def _fn_ok(gap_of):
    import math

    assert abs(gap_of(4, 0.05) - math.log(57)) < 1e-12, "not the gap"


SPECS = {
    "value": {
        "points": 1,
        "answer": ["gap"],
        "hidden": [_gap_ok],
        "builds": ["attnsig.bounds.copy_gap", "attnsig.bounds.subset_gap"],
        "builds_in_cells": True,
    },
    "function": {
        "points": 1,
        "answer": ["gap_of"],
        "hidden": [_fn_ok],
        "builds": ["attnsig.bounds.copy_gap"],
    },
    "other": {"points": 1, "answer": ["gap_too"], "hidden": [_other_ok]},
}


def _notebook(value: str, function: str):
    cell, md = nbformat.v4.new_code_cell, nbformat.v4.new_markdown_cell
    setup = (
        "import math\n\nfrom attnsig import bounds\nfrom attnsig.bounds import copy_gap"
    )
    cells = [cell(setup)]
    for name, answer in (("value", value), ("function", function)):
        statement = md(f"Question {name}")
        statement.metadata["editable"] = False
        cells += [statement, cell(answer), cell(f'grader.check("{name}")')]
    # another question may call the package freely, and so may the book's cells
    cells += [cell("gap_too = copy_gap(4, 0.05)"), cell('grader.check("other")')]
    return nbformat.v4.new_notebook(cells=cells)


def test_graded_run_blocks(tmp_path):
    from tools.questions import _spec

    with zipfile.ZipFile(tmp_path / "autograder.zip", "w") as zf:
        for name, raw in SPECS.items():
            zf.writestr(f"tests/{name}.py", _test_file(name, _spec(raw, name)))
    by_hand = "gap = math.log(3 * 0.95 / 0.05)"
    defined = "def gap_of(n, eps):\n    return math.log((n - 1) * (1 - eps) / eps)"
    cases = {
        "by-hand": (by_hand, defined, {"value": 1, "function": 1, "other": 1}),
        "package": (
            "gap = bounds.copy_gap(4, 0.05)",
            "gap_of = copy_gap",
            {"value": 0, "function": 0, "other": 1},
        ),
        "imported": (
            "gap = copy_gap(4, 0.05)\nprint(gap)",
            "def gap_of(n, eps, f=bounds.subset_gap):\n    return f(n, 1, eps)",
            {"value": 0, "function": 1, "other": 1},  # subset_gap: not blocked there
        ),
    }
    subs = []
    for stem, (value, function, _) in cases.items():
        nbformat.write(_notebook(value, function), tmp_path / f"{stem}.ipynb")
        subs.append(tmp_path / f"{stem}.ipynb")
    rows = grading.grade(tmp_path / "autograder.zip", subs, jobs=2, timeout=120)
    for row, (stem, (*_, expected)) in zip(rows, cases.items(), strict=True):
        assert row["status"] == "ok" and row["seed"] == "", row  # nothing varies
        got = {q: row[q] for q in expected}
        assert got == expected, (stem, row)
    feedback = grading.grade_one(tmp_path / "autograder.zip", subs[2], 120)
    hints = feedback["questions"]["value"]["hints"]
    assert "attnsig.bounds.copy_gap is not available" in hints[0], hints
    # the cell that raised, numbered among the code cells (the statements aside)
    assert hints[1].startswith("the cell that defines gap raised Not"), hints
    assert hints[1].endswith("(code cell 2)"), hints


def test_public_check_warns_at_once():
    """The public check fails in the student's notebook on a function answer that
    calls the package, naming the function, and passes on one built by hand."""
    spec = _question("attention-bounds", "ex-bounds-noisy")["spec"]
    source = grading.builds_check("bounds_noisy", spec)
    env = {}
    exec(compile(source, "check.py", "exec"), env)
    check = env["bounds_noisy_builds"]
    from attnsig import bounds
    from attnsig.bounds import noisy_weights

    for wrapped in (
        bounds.noisy_weights,
        lambda n, e, g: noisy_weights(n, e, g),
        lambda n, e, g: bounds.noisy_weights(n, e, g),
    ):
        with pytest.raises(AssertionError, match="attnsig.bounds.noisy_weights"):
            check(wrapped)

    def by_hand(n, eps, gamma):
        r = n / eps
        return r**gamma / (r**gamma + r + n - 2), r / (r**gamma + r + n - 2)

    check(by_hand)
    assert json.loads(json.dumps(grading.builds_of(source))) == [
        ["attnsig.bounds.noisy_weights"],
        False,
    ]


def test_public_check_reads_the_answer_cell(monkeypatch):
    """A value answer: the public check reads the cell that binds it (the notebook's
    input history) and fails when that cell calls a blocked function."""
    import math

    import IPython

    from attnsig import bounds

    spec = _question("cs224n-a5", "ex-a5-copy")["spec"]
    env = {}
    exec(compile(grading.builds_check("a5_copy", spec), "check.py", "exec"), env)
    check = env["a5_copy_builds"]
    for cell, fails in (
        ("copy_gap = bounds.copy_gap(4, 0.05)", True),
        (
            "from attnsig.bounds import subset_gap\ncopy_gap = subset_gap(4, 1, 0.05)",
            True,
        ),
        ('copy_gap = math.log(57)\nprint("not bounds.copy_gap(4, 0.05)")', False),
        # named in the answer's cell, as a function to pass on (np.vectorize, ...)
        ("copy_gap = math.log(57)\nprint(bounds.copy_gap)", True),
    ):
        ns = {"In": ["", cell, "print(1)"], "bounds": bounds, "math": math}
        shell = type("Shell", (), {"user_ns": ns})()
        monkeypatch.setattr(IPython, "get_ipython", lambda shell=shell: shell)
        if fails:
            with pytest.raises(AssertionError, match=MESSAGE):
                check(3.9)
        else:
            check(3.9)


@pytest.mark.parametrize(
    ("stem", "label", "name", "cell"),
    [
        (
            "cs224n-a5",
            "ex-a5-copy",
            "a5_copy",
            "copy_gap = bounds.head_scale_needed(\n"
            "    n_copy, eps_copy / (1 - eps_copy), 1.0\n)",
        ),
        (
            "one-head",
            "ex-onehead-average",
            "onehead_average",
            "q_eps = bounds.head_scale_needed(n - 1, 2 * eps / (1 - eps), 1.0) * (\n"
            "    means[a] + means[b]\n)",
        ),
    ],
    ids=["ex-a5-copy", "ex-onehead-average"],
)
def test_a_lookup_by_another_convention_is_blocked(
    monkeypatch, stem, label, name, cell
):
    """The package's head scale, with the tolerance rewritten into its convention,
    gives the gap (or the scale) of these value answers: the cell that does so fails
    the public check, as a direct call would."""

    import IPython

    from attnsig import bounds

    spec = _question(stem, label)["spec"]
    env = {}
    exec(compile(grading.builds_check(name, spec), "check.py", "exec"), env)
    check = env[f"{name}_builds"]
    ns = {"In": ["", cell, "print(1)"], "bounds": bounds}
    shell = type("Shell", (), {"user_ns": ns})()
    monkeypatch.setattr(IPython, "get_ipython", lambda shell=shell: shell)
    with pytest.raises(AssertionError, match="attnsig.bounds.head_scale_needed"):
        check(3.9)


def test_the_zip_carries_the_builds(tmp_path):
    """The judge reads a question's builds from the autograder zip's test file, as the
    checks file declares them."""
    path = CHAPTERS["one-head"]
    dest = assignments.build_one(path, tmp_path)
    built = grading.read_checks(dest / "autograder" / "autograder.zip")
    for q in assignments.questions(path):
        if q["answer_cell"] is None:
            continue
        check = grading.load_check(built[q["name"]], f"{q['name']}.py")
        assert check["builds"] == q["spec"].get("builds", []), q["label"]
        assert check["builds_in_cells"] == bool(q["spec"].get("builds_in_cells"))


def test_a_chapter_graded_with_one_line_answers(tmp_path):
    """attention-bounds from its autograder zip: the solution scores full marks; the
    same notebook with one question answered by the package loses that question only.
    """
    path = CHAPTERS["attention-bounds"]
    dest = assignments.build_one(path, tmp_path / "out")
    solution = nbformat.read(dest / "autograder" / f"{path.stem}.ipynb", as_version=4)
    one_line = nbformat.from_dict(json.loads(json.dumps(solution)))
    check = next(
        i
        for i, c in enumerate(one_line.cells)
        if c.source.strip() == 'grader.check("bounds_noisy")'
    )
    one_line.cells.insert(
        check, nbformat.v4.new_code_cell("noisy_w = bounds.noisy_weights")
    )
    subs = [tmp_path / "solution.ipynb", tmp_path / "one-line.ipynb"]
    nbformat.write(solution, subs[0])
    nbformat.write(one_line, subs[1])
    zip_path = dest / "autograder" / "autograder.zip"
    full, lost = grading.grade(zip_path, subs, jobs=2, timeout=300)
    assert full["status"] == lost["status"] == "ok"
    assert full["total"] == full["possible"], full
    assert lost["bounds_noisy"] == 0
    assert lost["total"] == full["total"] - full["bounds_noisy"], lost


def test_feedback_rows_hold_one_line_per_hint(tmp_path):
    """A blocked call's note comes from the cell that raised, not from the judge's log
    of a failed check (a traceback with the grader's paths), and the question's other
    hints are dropped; each hint is one line of the student's feedback table, a `|` in
    it no column break, a message said once (not again inside a longer one), and hints
    ending in a full stop joined cleanly. "Your own numbers" only where the assignment
    has variants, "the book's numbers" for variant 0."""
    said = f"attnsig.bounds.copy_gap is not available for question q: {MESSAGE}"
    again = f"gap_of raised NotImplementedError: {said}"  # the same, said once
    result = {
        "status": "ok",
        "questions": {
            "q": {"score": 0.0, "hints": ["form | shape\nsecond line", again]},
            "p": {"score": 0.0, "hints": ["form | shape\nsecond line.", "Off."]},
        },
        "log": [
            f"q: q_form failed:\nTraceback (most recent call last):\n  File "
            f'"/somewhere/tools/grading.py", line 1\nStudentError: {said}',
            f"code cell 3: NotImplementedError: {said}\nmore",
        ],
    }
    grading.note_builds(result)
    hints = result["questions"]["q"]["hints"]
    assert hints == [f"NotImplementedError: {said}", again]
    # the answer was computed by hand and kept (the blocked call a self-check in
    # another cell): the check's own hint, what is wrong with it, stays
    kept = {
        "status": "ok",
        "questions": {"q": {"score": 0.0, "hints": ["off"], "answered": True}},
        "log": [f"code cell 4: NotImplementedError: {said}"],
    }
    grading.note_builds(kept)
    assert kept["questions"]["q"]["hints"] == [f"NotImplementedError: {said}", "off"]
    row = {"total": 0.0, "possible": 2.0, "q": 0.0, "p": 0.0, "seed": 7}
    grading.write_feedback("s", result, row, {"q": 1.0, "p": 1.0}, tmp_path)
    text = (tmp_path / "feedback" / "s.md").read_text()
    line = next(x for x in text.splitlines() if x.startswith("| q "))
    assert line == f"| q | 0 / 1 | NotImplementedError: {said} |"
    line = next(x for x in text.splitlines() if x.startswith("| p "))
    assert line == "| p | 0 / 1 | form / shape; Off |"
    assert "Traceback" not in text and "grading.py" not in text
    assert "your own numbers (variant 7)" in text
    grading.write_feedback("s", result, row, {"q": 1.0, "p": 1.0}, tmp_path, False)
    assert "own numbers" not in (tmp_path / "feedback" / "s.md").read_text()
    # variant 0 (the roster's, or no roster) is said too; no seed, nothing
    for seed, said in ((0, "Judged on the book's numbers (variant 0)."), ("", None)):
        grading.write_feedback("s", result, {**row, "seed": seed}, {"q": 1, "p": 1},
                               tmp_path)  # fmt: skip
        text = (tmp_path / "feedback" / "s.md").read_text()
        assert (said in text) if said else "Judged on" not in text, seed


def _copy_gap_check(name: str, answer: str, in_cells: bool):
    """The public build check of a question `name` whose answer `answer` must not
    call attnsig.bounds.copy_gap (a value answer read in its cells, or a function)."""
    spec = {"answer": [answer], "builds": ["attnsig.bounds.copy_gap"]}
    env = {}
    source = grading.builds_check(name, {**spec, "builds_in_cells": in_cells})
    exec(compile(source, "check.py", "exec"), env)
    return env[f"{name}_builds"]


def _judge_cells(monkeypatch, check, value, cases) -> None:
    """Run a value answer's build `check` in a notebook whose input history is each
    case's cells and whose names are its names (with the module `bounds`): it fails,
    naming copy_gap, exactly where the case says blocked."""
    import types

    import IPython

    from attnsig import bounds

    for cells, names, blocked in cases:
        ns = {"In": ["", *cells], "bounds": bounds, **names}
        shell = types.SimpleNamespace(user_ns=ns)
        monkeypatch.setattr(IPython, "get_ipython", lambda shell=shell: shell)
        if blocked:
            with pytest.raises(AssertionError, match="attnsig.bounds.copy_gap"):
                check(value)
        else:
            check(value)


def test_public_check_lets_an_own_function_of_that_name_pass(monkeypatch):
    """A value answer's cell that defines its own function named like the blocked one
    (and calls it) is not told to build it: it did; a package call still is."""
    own = "def copy_gap(n, eps):\n    return n / eps\n\ngap = copy_gap(4, 0.05)"
    cases = [([own], {}, False), (["gap = bounds.copy_gap(4, 0.05)"], {}, True)]
    _judge_cells(monkeypatch, _copy_gap_check("q", "gap", True), 1.0, cases)


def test_public_check_lets_own_helpers_and_comments_pass(monkeypatch):
    """R13a: on Gradescope the public check is scored, so a false "build it yourself"
    costs the question. A helper of the student's own named like a blocked function
    (defined in another cell, or used by a function answer next to a package module)
    and a comment that names one call nothing of the package's; the package's own
    function, imported or read off its module, still fails."""
    from attnsig import bounds

    def copy_gap(n, eps):  # the student's own, from an earlier cell
        return n / eps

    _judge_cells(monkeypatch, _copy_gap_check("q", "gap", True), 1.0, [
        (["gap = copy_gap(4, 0.05)"], {"copy_gap": copy_gap}, False),
        (["gap = 3.0  # unlike bounds.copy_gap(4, 0.05)"], {}, False),
        (["gap = copy_gap(4, 0.05)"], {"copy_gap": bounds.copy_gap}, True),
        (["gap = bounds.copy_gap(4, 0.05)"], {}, True),
    ])  # fmt: skip
    # a function answer beside a package module, with a helper of its own name
    check = _copy_gap_check("f", "gap_of", False)
    module = {"bounds": bounds, "copy_gap": copy_gap}
    exec("def gap_of(n, eps):\n    assert bounds\n    return copy_gap(n, eps)", module)
    check(module["gap_of"])
    exec("def gap_of(n, eps):\n    return bounds.copy_gap(n, eps)", module)
    with pytest.raises(AssertionError, match="attnsig.bounds.copy_gap"):
        check(module["gap_of"])


def test_public_check_follows_the_routes_to_the_package(monkeypatch):
    """R14b: the public check (scored on Gradescope) also fails on a call read off a
    module beside a helper of that name, on a target list in brackets, on an alias or
    a helper from another cell, and on an import inside a function answer; a string
    naming the function calls nothing."""
    from attnsig import bounds

    module = {"__name__": "__main__", "bounds": bounds}
    exec("def helper(n):\n    return bounds.copy_gap(n, 0.05)", module)
    exec("def copy_gap(n, eps):\n    return n / eps", module)
    own = {"copy_gap": module["copy_gap"]}
    _judge_cells(monkeypatch, _copy_gap_check("q", "gap", True), 1.0, [
        (["gap = bounds.copy_gap(4, 0.05)"], own, True),
        (["(gap, other) = bounds.copy_gap(4, 0.05), 1"], {}, True),
        (['gap = len("#") + bounds.copy_gap(4, 0.05)'], {}, True),
        (["gap = cg(4, 0.05)"], {"cg": bounds.copy_gap}, True),
        (["gap = helper(4)"], {"helper": module["helper"]}, True),
        # R14a: the answer named like the function, bound to its value
        (["from attnsig.bounds import copy_gap\ngap = copy_gap(4, 0.05)"],
         {"copy_gap": 3.4}, True),
        (["import attnsig.bounds as B\ngap = B.copy_gap(4, 0.05)"],
         {"B": bounds}, True),
        (['gap = 3.0\n"""not bounds.copy_gap(4, 0.05)"""'], {}, False),
        (["gap = copy_gap(4, 0.05)"], own, False),
    ])  # fmt: skip
    check = _copy_gap_check("f", "gap_of", False)
    for body in (
        "from attnsig.bounds import copy_gap\n    return copy_gap(n, eps)",
        "import attnsig.bounds as b\n    return b.copy_gap(n, eps)",
    ):
        exec(f"def gap_of(n, eps):\n    {body}", module)
        with pytest.raises(AssertionError, match="attnsig.bounds.copy_gap"):
            check(module["gap_of"])


def test_public_check_reads_every_cell_of_the_answer_and_wrapped_helpers(monkeypatch):
    """R15a, R15b: every cell run so far that names a value answer is read (a tidy
    cell after the call, a target list over lines, a walrus); a function of the
    student's own defined in any earlier cell, or a method of their own class of a
    package name, is theirs; a package function behind a decorator, np.vectorize, a
    dict, a class attribute or in brackets is the package's."""
    import functools

    import numpy as np

    from attnsig import bounds

    own_class = "class P:\n    def copy_gap(self):\n        return 1.0\n"
    _judge_cells(monkeypatch, _copy_gap_check("q", "gap", True), 1.0, [
        (["gap = bounds.copy_gap(4, 0.05)", "gap = float(gap)"], {}, True),
        (["(\n    gap,\n    other,\n) = bounds.copy_gap(4, 0.05), 1"], {}, True),
        (["print(gap := bounds.copy_gap(4, 0.05))"], {}, True),
        (["gap = (bounds.copy_gap)(4, 0.05)"], {}, True),
        ([own_class + "gap = P().copy_gap()"], {}, False),
        # R16a: the set-up cell imported the package's function of that name
        ([own_class + "gap = P().copy_gap()"], {"copy_gap": bounds.copy_gap}, False),
    ])  # fmt: skip
    # the answer named like the function, the student's own def in an earlier cell
    cells = [
        "def copy_gap(n, eps):\n    return n / eps",
        "copy_gap = copy_gap(4, 0.05)",
    ]
    _judge_cells(monkeypatch, _copy_gap_check("a", "copy_gap", True), 80.0,
                 [(cells, {"copy_gap": 80.0}, False)])  # fmt: skip
    # function answers
    check = _copy_gap_check("f", "gap_of", False)
    module = {"__name__": "__main__", "bounds": bounds, "np": np,
              "functools": functools}  # fmt: skip
    exec(own_class + "def mine(n, eps):\n    assert bounds\n    return P().copy_gap()",
         module)  # fmt: skip
    check(module["mine"])
    module["copy_gap"] = bounds.copy_gap  # imported by the set-up cell (R16a)
    check(module["mine"])
    for source in (
        "@functools.cache\ndef g(n, eps):\n    return bounds.copy_gap(n, eps)",
        "g = np.vectorize(lambda n, eps: bounds.copy_gap(n, eps))",
        "kit = {'g': bounds.copy_gap}\ndef g(n, eps):\n    return kit['g'](n, eps)",
        "class T:\n    g = staticmethod(bounds.copy_gap)\n"
        "def g(n, eps):\n    return T.g(n, eps)",
    ):
        exec(source, module)
        with pytest.raises(AssertionError, match="attnsig.bounds.copy_gap"):
            check(module["g"])


def test_timeout_in_the_checks_names_the_question(tmp_path):
    """A function answer that hangs only when the checks call it: the timeout's reason
    names the question being checked, not the notebook's last code cell."""
    from tools.questions import _spec

    with zipfile.ZipFile(tmp_path / "autograder.zip", "w") as zf:
        for name, raw in SPECS.items():
            zf.writestr(f"tests/{name}.py", _test_file(name, _spec(raw, name)))
    hangs = "def gap_of(n, eps):\n    while True:\n        pass"
    nbformat.write(_notebook("gap = 1.0", hangs), tmp_path / "slow.ipynb")
    (row,) = grading.grade(
        tmp_path / "autograder.zip", [tmp_path / "slow.ipynb"], jobs=1, timeout=40
    )
    assert row["status"] == "timeout", row
    assert "(checking function: its checks call your answers)" in row["reason"], row
