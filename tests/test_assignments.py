"""Assignments check themselves: solutions pass, stubs fail, typical mistakes fail.

For every chapter with a checks file (`tools/assignments.py`), the assignment is
built with otter-grader and one folder of submissions is graded locally (`otter run`, no
Docker) into one score table:

* `solution.ipynb`, the solution notebook of the assignment: full points;
* `student.ipynb`, the student notebook as handed out (stubs `name = ...`): no point on
  any auto-checked question;
* `mistakes-<k>.ipynb`, the solution notebook with the k-th typical wrong answer of
  every question (`wrong` in its checks file) put in place of the answer: each of those
  questions loses points (all of them, unless the question gives partial credit, as a
  verdict question does per claim). The k-th mistakes of all questions share one
  notebook, so a chapter costs a few grading runs.

In every chapter at least three quarters of the exercises with a computable answer are
auto-checked (`assignments.COVERAGE`).

Every chapter with a worked solution has a checks file beside it
(`chapters/<part>/<name>_checks.py`); a notebook without one is skipped by the build
(`test_chapters_without_checks_are_skipped`).
"""

from __future__ import annotations

import copy
import csv
import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("otter", reason="otter-grader is not installed")

from tools import assignments, nbtools  # noqa: E402

# Every chapter with a worked solution is an assignment.
ANNOTATED = [p for p in assignments.chapters() if assignments.questions(p)]


def _with_mistakes(solution, auto: dict, k: int):
    """The solution notebook with the k-th typical mistake of every question."""
    nb = copy.deepcopy(solution)
    wrong, cells = {}, []
    for i, cell in enumerate(nb.cells):
        cells.append(cell)
        nxt = nb.cells[i + 1].source.strip() if i + 1 < len(nb.cells) else ""
        for qname, spec in auto.items():
            mistakes = list(spec.get("wrong", {}).items())
            if nxt == f'grader.check("{qname}")' and k < len(mistakes):
                label, code = mistakes[k]
                cells.append(nbformat.v4.new_code_cell(code))
                wrong[qname] = label
    nb.cells = cells
    return nb, wrong


@pytest.fixture(scope="module", params=ANNOTATED, ids=lambda p: p.stem)
def graded(request, tmp_path_factory):
    """Build one chapter's assignment and grade a folder of submissions."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    path = request.param
    tmp = tmp_path_factory.mktemp(path.stem)
    dest = assignments.build_one(path, tmp / "out")
    name = path.stem
    qs = assignments.questions(path)
    auto = {q["name"]: q["spec"] for q in qs if q["answer_cell"] is not None}
    subs = tmp / "submissions"
    subs.mkdir()
    solution = nbformat.read(dest / "autograder" / f"{name}.ipynb", as_version=4)
    nbformat.write(solution, subs / "solution.ipynb")
    student = nbformat.read(dest / "student" / f"{name}.ipynb", as_version=4)
    nbformat.write(student, subs / "student.ipynb")
    mistakes = {}
    rounds = max((len(spec.get("wrong", {})) for spec in auto.values()), default=0)
    for k in range(rounds):
        notebook, mistakes[f"mistakes-{k}.ipynb"] = _with_mistakes(solution, auto, k)
        nbformat.write(notebook, subs / f"mistakes-{k}.ipynb")
    rows = assignments.grade(
        dest / "autograder" / "autograder.zip", sorted(subs.glob("*.ipynb"))
    )
    assignments.write_table(rows, subs / "scores.csv")
    table = {r["submission"]: r for r in csv.DictReader((subs / "scores.csv").open())}
    return {"dest": dest, "qs": qs, "auto": auto, "table": table, "mistakes": mistakes}


def test_every_exercise_is_annotated(graded):
    """An annotated chapter grades each exercise: by checks, or by a rubric."""
    missing = [q["label"] for q in graded["qs"] if q["spec"] is None]
    assert not missing, f"exercises without a question in the checks file: {missing}"
    for q in graded["qs"]:
        spec = q["spec"]
        if q["answer_cell"] is None:
            assert spec.get("manual") and spec.get("rubric"), q["label"]
            assert spec.get("kind") in assignments.KINDS, f"{q['label']}: kind?"
        else:
            assert spec.get("hidden") and spec.get("public"), q["label"]
            assert spec.get("wrong"), f"{q['label']}: no typical wrong answer to test"


def test_solutions_follow_their_statements():
    """The generated question puts the answer right after the statement: a code cell
    between an exercise and its solution would run after the student's answer.
    """
    for path in ANNOTATED:
        nb = nbformat.read(path, as_version=4)
        for q in assignments.questions(path, nb):
            assert q["exercise"] is not None, f"{q['label']}: no exercise statement"
            between = nb.cells[q["exercise"] + 1 : q["start"]]
            code = [c for c in between if c.cell_type == "code"]
            assert not code, f"{path.name}: code between {q['label']} and its solution"


def _assigned(source: str) -> set[str]:
    """Names a cell binds, as the chapter checks see them (tools/nbtools.py)."""
    tree = nbtools._parse(source)
    return set() if tree is None else nbtools._assigned_names(tree)


def test_answers_are_not_reassigned_later():
    """otter grades the names as they are at the end of the notebook: no cell after a
    question's answer cell may bind an answer name again.
    """
    for path in ANNOTATED:
        nb = nbformat.read(path, as_version=4)
        for q in assignments.questions(path, nb):
            if q["answer_cell"] is None or q["claims"]:
                continue
            later = nb.cells[q["answer_cell"] + 1 :]
            for name in q["spec"]["answer"]:
                again = [
                    i + q["answer_cell"] + 1
                    for i, c in enumerate(later)
                    if c.cell_type == "code" and name in _assigned(c.source)
                ]
                where = f"{path.name}: {name} of {q['label']}"
                assert not again, f"{where} is bound again in cells {again}"


def test_explorers_can_be_left_out():
    """The assignment leaves the explorer cells out: no later cell may use a name that
    only an explorer cell binds.
    """
    for path in ANNOTATED:
        nb = nbformat.read(path, as_version=4)
        bound: dict[str, int] = {}
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            if assignments._is_explorer(cell):
                bound.update(dict.fromkeys(_assigned(cell.source), i))
                continue
            tree = nbtools._parse(cell.source)
            used = set() if tree is None else nbtools._loaded_names(tree)
            lost = sorted(name for name in used & set(bound))
            assert not lost, f"{path.name}, cell {i} uses {lost} of an explorer cell"
            for name in _assigned(cell.source):
                bound.pop(name, None)


def test_rubric_items_carry_points(graded):
    """Each criterion of a rubric ends with its points; a manual question's add up."""
    for q in graded["qs"]:
        total = assignments.rubric_points(q["spec"].get("rubric", []))
        if q["answer_cell"] is None:
            assert total == q["spec"]["points"], f"{q['label']}: rubric adds to {total}"
    with pytest.raises(ValueError, match="should end with its points"):
        assignments.rubric_points(["a criterion without points"])


def test_computable_answers_are_checked(graded):
    auto, computable = assignments.coverage(graded["qs"])
    assert auto >= assignments.COVERAGE * computable, (
        f"{auto} of {computable} computable answers auto-checked"
    )


def test_one_table_for_the_folder(graded):
    names = set(graded["table"])
    assert {"solution.ipynb", "student.ipynb"} | set(graded["mistakes"]) == names


def test_solution_full_points(graded):
    row, auto = graded["table"]["solution.ipynb"], graded["auto"]
    lost = {q: row.get(q) for q in auto if float(row.get(q) or 0) != auto[q]["points"]}
    assert not lost, f"the solution loses points: {lost}"
    assert float(row["total"]) == float(row["possible"]) > 0


def test_stubs_fail(graded):
    row = graded["table"]["student.ipynb"]
    scored = {q: row[q] for q in graded["auto"] if float(row.get(q) or 0)}
    assert not scored, f"unchanged stubs score points: {scored}"


def test_typical_mistakes_fail(graded):
    auto = graded["auto"]
    for sub, wrong in graded["mistakes"].items():
        row = graded["table"][sub]
        passed = {
            q: label
            for q, label in wrong.items()
            if float(row.get(q) or 0) >= auto[q]["points"]
            or (not auto[q].get("partial") and float(row.get(q) or 0))
        }
        assert not passed, f"{sub}: typical mistakes that still score: {passed}"


def test_students_see_plain_markdown(graded):
    """Jupyter and Colab do not render MyST: no role or directive is left."""
    name = graded["dest"].name
    student = nbformat.read(graded["dest"] / "student" / f"{name}.ipynb", as_version=4)
    for i, cell in enumerate(student.cells):
        if cell.cell_type == "markdown":
            left = re.findall(r"\{[a-z:-]+\}`|^[`:]{3,}\{", cell.source, flags=re.M)
            assert not left, f"cell {i} of the student notebook shows MyST: {left}"


def test_students_get_no_hidden_test(graded):
    for test in (graded["dest"] / "student" / "tests").glob("*.py"):
        assert "hidden=True" not in test.read_text(), test.name


def test_rubrics_reach_the_grader(graded):
    text = (graded["dest"] / "autograder" / "rubric.md").read_text()
    for q in graded["qs"]:
        if q["answer_cell"] is None:
            assert f"## {q['name']} " in text
        for item in q["spec"].get("rubric", []):
            assert item in text, f"{q['label']}: a rubric item is missing"


def test_chapters_without_checks_are_skipped(tmp_path):
    for p in ANNOTATED:
        assert assignments.is_annotated(p), p.name
    shutil.copy(ANNOTATED[0], tmp_path / "bare.ipynb")  # no checks file beside it
    assert assignments.build_one(tmp_path / "bare.ipynb", tmp_path / "out") is None


def test_checks_files_name_solved_exercises(tmp_path):
    """A question for an exercise the notebook does not solve (a renamed label) is an
    error, not a question silently dropped; so is an answer no solution cell binds.
    """
    path = next(p for p in ANNOTATED if p.stem == "tour")
    shutil.copy(path, tmp_path / "tour.ipynb")
    checks = assignments.checks_path(path).read_text()
    target = assignments.checks_path(tmp_path / "tour.ipynb")
    target.write_text(checks + '\nQUESTIONS["ex-gone"] = {"points": 1}\n')
    with pytest.raises(ValueError, match="does not solve"):
        assignments.questions(tmp_path / "tour.ipynb")
    label = assignments.questions(path)[0]["label"]
    extra = f'\nQUESTIONS["{label}"]["answer"] = ["never_bound"]\n'
    target.write_text(checks + extra)
    with pytest.raises(ValueError, match="no solution cell binds"):
        assignments.questions(tmp_path / "tour.ipynb")


def test_verdict_tables_parse():
    """The answer key of a verdict exercise is read off its table, row by row."""
    table = nbformat.v4.new_markdown_cell(
        "| part | the sheet says | verdict | where |\n| --- | --- | --- | --- |\n"
        "| (a) | $\\lvert x\\rvert \\| y$ | right with a caveat: small $x$ | ref |\n"
        "| (b) | the scale | Wrong mechanism: variance | ref |\n"
        "| (b) | $W_Q$ row 3 | garbled (read $-1/2$) | ref |\n"
    )
    k, claims = assignments.verdict_table([nbformat.v4.new_code_cell(""), table], "x")
    assert k == 1
    assert claims == [
        ("(a): $\\lvert x\\rvert \\| y$", "right with a caveat"),
        ("(b): the scale", "wrong"),
        ("(b): $W_Q$ row 3", "garbled"),
    ]
    spec = assignments.verdict_spec({"points": 2}, claims)
    assert spec["key"] == {1: "right with a caveat", 2: "wrong", 3: "garbled"}
    assert set(spec["wrong"]) == {"trusting the sheet", "rejecting every claim"}
    with pytest.raises(ValueError, match="should start with one of"):
        assignments.verdict_of("fine, mostly")
    with pytest.raises(ValueError, match="cells, the header"):
        bad = nbformat.v4.new_markdown_cell(table.source + "| (c) | lost | right |\n")
        assignments.verdict_table([bad], "x")


def test_page_is_current():
    text = assignments.PAGE.read_text()
    assert assignments.page_text(text) == text, "run `python -m tools.assignments page`"


def test_colab_fetches_the_public_checks(tmp_path, monkeypatch):
    """Opened alone (Colab: no `tests/` beside it), the student notebook's set-up cell
    fetches the public checks from the student branch, where `tools.publish
    student-tree` puts each assignment's student folder, and creates the grader.
    """
    import urllib.request

    from IPython.core.inputtransformer2 import TransformerManager

    from tools import publish

    path = next(p for p in ANNOTATED if p.stem == "tour")
    dest = assignments.build_one(path, tmp_path / "out")
    student = nbformat.read(dest / "student" / "tour.ipynb", as_version=4)
    setup = next(c.source for c in student.cells if "otter.Notebook" in c.source)
    url = assignments.tests_url("tour")
    branch = f"/{assignments.STUDENT_BRANCH}/{publish.ASSIGNMENTS.name}/tour/tests"
    assert url.startswith("https://raw.githubusercontent.com/") and url.endswith(branch)
    fetched = []

    def fetch(address, filename):  # the published branch, as the student folder
        fetched.append(address)
        shutil.copy(dest / "student" / "tests" / Path(address).name, filename)

    monkeypatch.setattr(urllib.request, "urlretrieve", fetch)
    colab = tmp_path / "content"
    colab.mkdir()
    monkeypatch.chdir(colab)
    namespace = {}
    exec(TransformerManager().transform_cell(setup), namespace)
    published = sorted(p.name for p in (dest / "student" / "tests").glob("*.py"))
    assert fetched == [f"{url}/{name}" for name in published]
    assert sorted(p.name for p in (colab / "tests").iterdir()) == published
    assert "grader" in namespace
