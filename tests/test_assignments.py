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
import time
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("otter", reason="otter-grader is not installed")

from tools import assignments, grading, handout, nbtools  # noqa: E402
from tools.questions import load_checks, load_variants  # noqa: E402

# Every chapter with a worked solution is an assignment (ATTNSIG_TEST_CHAPTERS, a comma
# list, narrows the run while working on some of them).
ONLY = {c for c in os.environ.get("ATTNSIG_TEST_CHAPTERS", "").split(",") if c}
ALL = [p for p in assignments.chapters() if assignments.questions(p)]
ANNOTATED = [p for p in ALL if not ONLY or p.stem in ONLY]


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


# In these chapters the batch also holds a notebook that never finishes and a truncated
# upload (a broken LMS download); in scaled-dot-product, two that try to cheat.
HARD = ("scaled-dot-product", "attention-bounds", "signatures")
# Seconds per notebook in the test batch: a solution runs in under a minute on a quiet
# 2-core machine, but associative-recall's took over 150 s at a load of 9, so the limit
# leaves room for a busy CI runner. The hanging notebooks sleep, so the pool gets a
# worker more for each: they wait out the limit beside the others, not in their place.
TEST_TIMEOUT = float(os.environ.get("ATTNSIG_TEST_GRADE_TIMEOUT", 300))
HANG = "import time\n\nwhile True:  # a student's endless loop\n    time.sleep(1)"
REWRITE_TESTS = """import glob

# Rewrite every check file in reach so that it passes.
for path in glob.glob("tests/*.py") + glob.glob("{tests}/*.py"):
    with open(path, "w") as fh:
        fh.write("from otter.test_files import test_case\\nname = 'x'\\n")
"""
# An answer whose unpickling would run code in the judge (SymPy's classes evaluate a
# string): it would leave a file behind and give the notebook every point.
UNPICKLE = """import sympy

PAY = (
    "open({marker!r}, 'w').write('ran in the judge')\\n"
    "import sys\\n"
    "f = sys._getframe()\\n"
    "while f is not None and 'checks' not in f.f_locals:\\n"
    "    f = f.f_back\\n"
    "for q in f.f_locals['checks'].values():\\n"
    "    q['possible'] = 0\\n"
)


class Answer:
    def __reduce__(self):
        return (sympy.sin, ("__import__('builtins').exec(" + repr(PAY) + ") or 0",))


for name in {names!r}:
    globals()[name] = Answer()
"""
# A notebook that tries to undo the sandbox as its namespace root: unmount the fresh
# /tmp and the covers, remount every file system writable, then leave a file outside.
ESCAPE = """import subprocess

mounts = sorted({{line.split()[4] for line in open("/proc/self/mountinfo")}})
script = "umount -l /tmp; " + "; ".join(f"umount -l {{m}}" for m in {hidden!r})
script += "; " + "; ".join(f"mount -o remount,bind,rw {{m}}" for m in mounts)
subprocess.run(["sh", "-c", script + "; touch {marker}"], capture_output=True)
"""
CRASH = "import os\n\nos._exit(3)  # the kernel dies"
HUGE = "print('x' * 50_000_000)  # 50 MB of output"
RAISE = 'raise ValueError("my shapes are off\\nsecond line")'
PATCH_NUMPY = """import numpy as np

np.testing.assert_allclose = lambda *a, **k: None  # every check of values passes
np.allclose = lambda *a, **k: True
"""


# The student notebook of seed BOOK_SEED with the solution's answer cells pasted in
# place of the stubs: the book's code, run on that student's numbers, must lose every
# question that has a variant (a book function reading a name the data cell rebinds
# would answer any student's numbers).
BOOK_CELLS, BOOK_SEED = "book-cells-seed-1.ipynb", 1
# Answer cells of the book that compute the answer from the data cell's names, so that,
# pasted, they follow any student's numbers: the book's method applied to the student's
# numbers, which a public solution cannot hide (the variants stop copied numbers; the
# rubric asks for the reasoning). Graded for review-notes; the others read a data cell's
# name. The test fails on any other question that scores.
BOOK_CELLS_FOLLOW = {
    "review-notes": {"ex-tr-softmax-axis", "ex-tr-causal"},
    "scaled-dot-product": {"ex-abh-q3a", "ex-abh-q3d"},
    "one-head": {
        "ex-onehead-average",
        "ex-onehead-small-noise",
        "ex-onehead-noisy-key",
        "ex-onehead-two-heads",
        "ex-onehead-one-head-robust",
    },
    "cs224n-a5": {
        "ex-a5-noisy-small",
        "ex-a5-noisy-large",
        "ex-a5-two-heads",
        "ex-a5-two-heads-noisy",
        "ex-a5-kqv-identity",
        "ex-a5-kqv-design",
    },
}


def _book_cells_on_other_numbers(solution, student, variants: dict, auto: dict):
    nb = assignments.personalise(student, variants, BOOK_SEED)
    answers = {}
    for i, q in grading.answer_cells(solution.cells, auto).items():
        answers.setdefault(q, []).append(copy.deepcopy(solution.cells[i]))
    data = {
        assignments.variant_cells(v, BOOK_SEED)[1].source for v in variants.values()
    }
    stubs = grading.answer_cells(nb.cells, auto)
    cells, pasted = [], set()
    for i, cell in enumerate(nb.cells):
        q = stubs.get(i)
        if q is None or cell.source in data:  # the data cell stays
            cells.append(cell)
        elif q not in pasted:
            cells += answers.get(q, [])
            pasted.add(q)
    nb.cells = cells
    return nb


def _prepare(path, tmp) -> dict:
    """Build one chapter's assignment and fill a folder of submissions."""
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
    variants = load_variants(path)
    if variants:  # the solution's answer cells in a notebook of another seed's numbers
        seeded = _book_cells_on_other_numbers(solution, student, variants, auto)
        nbformat.write(seeded, subs / BOOK_CELLS)
    mistakes = {}
    rounds = max((len(spec.get("wrong", {})) for spec in auto.values()), default=0)
    for k in range(rounds):
        notebook, mistakes[f"mistakes-{k}.ipynb"] = _with_mistakes(solution, auto, k)
        nbformat.write(notebook, subs / f"mistakes-{k}.ipynb")
    if name in HARD:
        hanging = copy.deepcopy(solution)
        hanging.cells.insert(1, nbformat.v4.new_code_cell(HANG))
        nbformat.write(hanging, subs / "hanging.ipynb")
        text = (subs / "solution.ipynb").read_text()
        (subs / "truncated.ipynb").write_text(text[: len(text) // 2])
    if name == "scaled-dot-product":
        tests = dest / "autograder" / "tests"
        cheat = copy.deepcopy(student)
        cheat.cells.append(nbformat.v4.new_code_cell(REWRITE_TESTS.format(tests=tests)))
        nbformat.write(cheat, subs / "rewrites-tests.ipynb")
        cheat, _ = _with_mistakes(solution, {"abh_q3b": auto["abh_q3b"]}, 0)
        cheat.cells.insert(2, nbformat.v4.new_code_cell(PATCH_NUMPY))
        nbformat.write(cheat, subs / "patches-numpy.ipynb")
        # q3b's answers made by a package layer in its cells (the solution's removed)
        from tests.grading_cases.scaled_dot_product import PACKAGE

        layer = copy.deepcopy(solution)
        check = 'grader.check("abh_q3b")'
        at = next(i for i, c in enumerate(layer.cells) if c.source.strip() == check)
        cell = f"del a_s, out_s, a_r, out_r\n{PACKAGE['ex-abh-q3b'][1][0]}"
        layer.cells.insert(at, nbformat.v4.new_code_cell(cell))
        nbformat.write(layer, subs / "uses-package.ipynb")
        raises = copy.deepcopy(student)
        stub = next(c for c in raises.cells if "\nQ = ..." in f"\n{c.source}")
        stub.source = f"{RAISE}\n{stub.source}"
        nbformat.write(raises, subs / "raises.ipynb")
        cheat = copy.deepcopy(student)
        names = [n for spec in auto.values() for n in spec["answer"]]
        marker = tmp / "unpickled-in-the-judge"
        code = UNPICKLE.format(marker=str(marker), names=names)
        cheat.cells.append(nbformat.v4.new_code_cell(code))
        nbformat.write(cheat, subs / "unpickles-code.ipynb")
        cheat = copy.deepcopy(solution)
        marker = tmp / "escaped-the-sandbox"
        hidden = grading.hidden_dirs(subs, dest / "autograder")
        code = ESCAPE.format(hidden=hidden, marker=str(marker))
        cheat.cells.insert(1, nbformat.v4.new_code_cell(code))
        nbformat.write(cheat, subs / "escapes.ipynb")
        for stem, code in (("crashes", CRASH), ("huge-output", HUGE)):
            notebook = copy.deepcopy(solution)
            notebook.cells.append(nbformat.v4.new_code_cell(code))
            nbformat.write(notebook, subs / f"{stem}.ipynb")
    return {"dest": dest, "qs": qs, "auto": auto, "mistakes": mistakes, "subs": subs}


def _chapter(batch, name: str) -> dict:
    """A chapter's part of the batch, skipped if ATTNSIG_TEST_CHAPTERS leaves it out."""
    if name not in batch["chapters"]:
        pytest.skip(f"{name} is not in ATTNSIG_TEST_CHAPTERS")
    return batch["chapters"][name]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """Every chapter's submissions graded in one pool (all cores), one table each."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    prepared = {p.stem: _prepare(p, tmp_path_factory.mktemp(p.stem)) for p in ANNOTATED}
    before = {
        f: f.read_bytes()
        for c in prepared.values()
        for f in (c["dest"] / "autograder" / "tests").glob("*.py")
    }
    work = {
        c["dest"] / "autograder" / "autograder.zip": (
            sorted(c["subs"].glob("*.ipynb")),
            c["subs"] / "graded",
        )
        for c in sorted(prepared.values(), key=lambda c: c["dest"].name not in HARD)
    }
    start = time.monotonic()
    jobs = (os.cpu_count() or 1) + len(HARD)
    seeds = {
        sub: BOOK_SEED if sub.name == BOOK_CELLS else 0
        for subs, _ in work.values()
        for sub in subs
    }
    tables = grading.grade_many(work, jobs=jobs, timeout=TEST_TIMEOUT, seeds=seeds)
    for c in prepared.values():
        zip_path = c["dest"] / "autograder" / "autograder.zip"
        grading.write_table(tables[zip_path], c["subs"] / "graded" / "scores.csv")
        rows = csv.DictReader((c["subs"] / "graded" / "scores.csv").open())
        c["table"] = {r["submission"]: r for r in rows}
    after = {f: f.read_bytes() for f in before}
    return {
        "chapters": prepared,
        "seconds": time.monotonic() - start,
        "checks_kept": before == after,
    }


@pytest.fixture(params=ANNOTATED, ids=lambda p: p.stem)
def graded(request, batch):
    return batch["chapters"][request.param.stem]


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


def test_left_out_explorers_say_where_they_are():
    """The student notebook keeps the prose that tells the book's reader to move the
    page's sliders and run the cell after them (unless a solution holds it); the note
    that stands for the explorer says where those are, after that prose and before
    the next section."""
    found = 0
    for path in ANNOTATED:
        nb = nbformat.read(path, as_version=4)
        cells = assignments.master_notebook(nb, path.stem, path).cells
        text = [c.source if c.cell_type == "markdown" else "" for c in cells]
        slider = re.compile(r"move\s+the\s+(two\s+)?slider")
        for i in [i for i, t in enumerate(text) if slider.search(t)]:
            found += 1
            after = text[i + 1 :]
            stop = next((j for j, t in enumerate(after) if t.startswith("#")), None)
            notes = [t for t in after[:stop] if t == assignments.EXPLORER_NOTE]
            assert notes, f"{path.name}: no note after the sliders' prose (cell {i})"
    assert found == 0 or "sliders" in assignments.EXPLORER_NOTE


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
    """Every notebook of the folder has its row, a status and, if not ok, a reason."""
    names = {p.name for p in graded["subs"].glob("*.ipynb")}
    assert {"solution.ipynb", "student.ipynb"} | set(graded["mistakes"]) <= names
    assert set(graded["table"]) == names
    for name, row in graded["table"].items():
        assert row["status"] in grading.STATUSES, name
        assert (row["status"] == "ok") == (not row["reason"]), (name, row["reason"])
        stem, out = Path(name).stem, graded["subs"] / "graded"
        assert (out / "feedback" / f"{stem}.md").exists(), name
        assert (out / "log" / f"{stem}.log").exists(), name


def test_a_bad_submission_costs_only_itself(graded):
    """A hanging notebook times out, a truncated one is invalid; both score 0 with a
    reason, and the solution graded in the same batch keeps its full marks."""
    table = graded["table"]
    if graded["dest"].name not in HARD:
        pytest.skip("no hanging or truncated notebook in this chapter's batch")
    assert table["hanging.ipynb"]["status"] == "timeout"
    assert "did not finish" in table["hanging.ipynb"]["reason"]
    # the cell it hung in, the first code cell (below the title), as a student counts
    assert "(running code cell 1 of " in table["hanging.ipynb"]["reason"]
    assert table["truncated.ipynb"]["status"] == "invalid"
    assert "not a readable notebook" in table["truncated.ipynb"]["reason"]
    for bad in ("hanging.ipynb", "truncated.ipynb"):
        assert float(table[bad]["total"]) == 0
    assert float(table["solution.ipynb"]["total"]) == float(
        table["solution.ipynb"]["possible"]
    )


def test_crash_and_huge_output(batch):
    """A kernel that dies is an error with the cell it died in; 50 MB of output is
    dropped and the notebook keeps its points."""
    table = _chapter(batch, "scaled-dot-product")["table"]
    crashed = table["crashes.ipynb"]
    assert crashed["status"] == "error" and "died in code cell" in crashed["reason"]
    huge = table["huge-output.ipynb"]
    assert huge["status"] == "ok" and huge["total"] == huge["possible"]


def test_cheating_gains_nothing(batch):
    """Rewriting the check files, or making NumPy's comparisons pass everything, does
    not change a score: the checks run in another interpreter, out of reach. A package
    layer in a build-it-yourself question's cells is stopped there. An answer that
    would run code while the judge reads it back is refused."""
    c = _chapter(batch, "scaled-dot-product")
    assert batch["checks_kept"], "a submission changed the checks"
    assert float(c["table"]["rewrites-tests.ipynb"]["total"]) == 0
    assert float(c["table"]["unpickles-code.ipynb"]["total"]) == 0
    marker = c["subs"].parent / "unpickled-in-the-judge"
    assert not marker.exists(), "an answer ran code in the judge"
    # Undoing the sandbox's mounts fails (no capability): nothing written outside, and
    # the notebook still gets its points.
    assert not (c["subs"].parent / "escaped-the-sandbox").exists(), "out of the sandbox"
    escaped = c["table"]["escapes.ipynb"]
    assert escaped["status"] == "ok" and escaped["total"] == escaped["possible"]
    patched = c["table"]["patches-numpy.ipynb"]
    assert float(patched["abh_q3b"]) == 0, "a wrong answer scored with NumPy patched"
    assert float(patched["abh_q3a"]) == 3
    layer = c["table"]["uses-package.ipynb"]  # MultiHeadAttention for q3b: blocked
    assert float(layer["abh_q3b"]) == 0 and float(layer["abh_q3a"]) == 3
    text = (c["subs"] / "graded" / "feedback" / "uses-package.md").read_text()
    assert "MultiHeadAttention.from_weights is not available" in text


def test_feedback_names_what_is_wrong_without_answers(batch):
    c = _chapter(batch, "scaled-dot-product")
    text = (c["subs"] / "graded" / "feedback" / "student.md").read_text()
    assert grading.NOT_ANSWERED in text and "ellipsis" not in text.lower()
    wrong = (c["subs"] / "graded" / "feedback" / "mistakes-0.md").read_text()
    assert "| abh_q3a | 0 / 3 | Q, K, V or QKt differ from the exact products" in wrong
    assert "Mismatched elements" not in wrong and "array(" not in wrong
    log = (c["subs"] / "graded" / "log" / "mistakes-0.log").read_text()
    assert "failed" in log
    # The answer cell raised: the feedback says what it raised, not "not answered".
    raised = (c["subs"] / "graded" / "feedback" / "raises.md").read_text()
    row = next(line for line in raised.splitlines() if line.startswith("| abh_q3a "))
    said = "raised ValueError: my shapes are off (code cell "
    assert row.count(said) == 1 and "the cell that defines " in row, row  # once
    assert grading.NOT_ANSWERED not in row and "second line" not in row


def test_rubric_pages_and_final_grades(batch, tmp_path):
    """Grade by question: a page per rubric question with each student's written
    answer (none for a placeholder left as handed out), a sheet with a column per
    rubric item, and the merge into final grades."""
    c = _chapter(batch, "scaled-dot-product")
    out = c["subs"] / "graded"
    pages = grading.rubric_pages(c["dest"], c["subs"], out / "rubric", pdf=False)
    manual = [q for q in c["qs"] if q["answer_cell"] is None]
    assert {p.stem for p in pages} >= {q["name"] for q in manual}
    first = manual[0]["spec"]["rubric"][0]
    page = (out / "rubric" / f"{manual[0]['name']}.html").read_text()
    assert "solution" in page and "(the notebook cannot be read)" in page
    written = out / "rubric" / "rubric-sheet.csv"
    # UTF-8 with a byte-order mark, which Excel needs to read it
    assert written.read_bytes().startswith("\ufeffsubmission,".encode())
    sheet = list(csv.reader(written.open(encoding="utf-8-sig")))
    assert any(first in h for h in sheet[0]) and sheet[1][0] == "(points)"
    # A written part left as handed out is no answer, not the placeholder's text.
    rubric = (c["dest"] / "autograder" / "rubric.md").read_text()
    written = [q for q in grading.rubric_questions(rubric) if not q["manual"]]
    for q in written:
        page = (out / "rubric" / f"{q['name']}.html").read_text()
        shown = page.split("<h2>student</h2>")[1].split("</section>")[0]
        assert shown == "<p>(no answer)</p>", shown
    assert written
    # The TA gives the solution every rubric point; the hanging student has no file.
    sheet[2:] = [
        [s]
        + ([p for p in sheet[1][1:]] if s == "solution" else [""] * (len(sheet[0]) - 1))
        for s, *_ in sheet[2:]
    ]
    with (tmp_path / "sheet.csv").open("w", newline="") as fh:
        csv.writer(fh).writerows(sheet)
    # Running `rubric` again (a late upload) keeps the points typed so far.
    (out / "rubric" / "rubric-sheet.csv").write_bytes(
        (tmp_path / "sheet.csv").read_bytes()
    )
    grading.rubric_pages(c["dest"], c["subs"], out / "rubric", pdf=False)
    again = (out / "rubric" / "rubric-sheet.csv").open(encoding="utf-8-sig")
    again = list(csv.reader(again))
    assert sorted(again) == sorted(sheet)
    (tmp_path / "roster.csv").write_text("id,name\nsolution,A\nstudent,B\nabsent,C\n")
    # merge checks the sheet against the rubric `rubric` wrote beside it, as the
    # command line does
    sheet_at = out / "rubric" / "rubric-sheet.csv"
    items = grading.rubric_items(sheet_at, out, "no build")
    assert items == [f"{q['name']}: {i}" for q in grading.rubric_questions(rubric)
                     for i, _ in q["items"]]  # fmt: skip
    rows = {
        r["id"]: r
        for r in grading.merge(
            out / "scores.csv",
            tmp_path / "roster.csv",
            sheet_at,
            tmp_path / "grades.csv",
            items,
        )
    }
    hand = sum(float(p) for p in sheet[1][1:])
    auto = float(c["table"]["solution.ipynb"]["total"])
    assert rows["solution"]["points"] == pytest.approx(auto + hand)
    assert rows["student"]["points"] == 0 and rows["absent"]["note"] == "no submission"
    with (tmp_path / "grades.csv").open(encoding="utf-8-sig") as fh:
        assert list(csv.DictReader(fh))[0]["name"] == "A"


def test_hidden_checks_carry_hints(graded):
    """Each hidden check has a hint (its docstring), which the feedback shows when it
    fails; a verdict claim's check is named after its claim."""
    for q in graded["qs"]:
        for source in (q["spec"] or {}).get("hidden", []) if not q["claims"] else []:
            assert grading.hint_of(source), f"{q['label']}: a hidden check has no hint"


def test_regrading_uses_the_cache(batch):
    """A second run takes from the cache what the notebook alone decides; a timeout or
    a dead kernel is not kept (it is graded again, `test_variants`)."""
    c = _chapter(batch, "scaled-dot-product")
    zip_path = c["dest"] / "autograder" / "autograder.zip"
    kept = {k for k, r in c["table"].items() if r["status"] in grading.KEPT}
    assert {"hanging.ipynb", "crashes.ipynb"} & set(c["table"]) - kept
    subs = sorted(p for p in c["subs"].glob("*.ipynb") if p.name in kept)
    seeds = {p: BOOK_SEED if p.name == BOOK_CELLS else 0 for p in subs}
    start = time.monotonic()
    rows = grading.grade(zip_path, subs, out=c["subs"] / "graded", seeds=seeds)
    assert time.monotonic() - start < 5, "a second run graded again"
    assert {r["submission"]: r["total"] for r in rows} == {
        k: float(c["table"][k]["total"]) for k in kept
    }


def test_batch_time(batch):
    """The whole grading step stays within budget: a minute per chapter on a busy
    2-core machine, plus one time limit for the hanging notebooks' tail."""
    budget = 60 * len(batch["chapters"]) + TEST_TIMEOUT
    assert batch["seconds"] < budget, f"grading took {batch['seconds']:.0f} s"


def test_solution_full_points(graded):
    row, auto = graded["table"]["solution.ipynb"], graded["auto"]
    lost = {q: row.get(q) for q in auto if float(row.get(q) or 0) != auto[q]["points"]}
    assert not lost, f"the solution loses points: {lost}"
    assert float(row["total"]) == float(row["possible"]) > 0


def _label(graded, name: str) -> str:
    return next(q["label"] for q in graded["qs"] if q["name"] == name)


def test_book_cells_lose_on_other_numbers(graded):
    """The solution's answer cells pasted into the notebook of seed 1 lose every
    question that has a variant: the book's code does not follow a data cell."""
    row = graded["table"].get(BOOK_CELLS)
    if row is None:
        pytest.skip("no variants in this chapter")
    assert row["status"] == "ok" and str(row["seed"]) == str(BOOK_SEED), row
    known = BOOK_CELLS_FOLLOW.get(graded["dest"].name, set())
    varied = [q for q, spec in graded["auto"].items() if spec.get("variant")]
    varied = [q for q in varied if _label(graded, q) not in known]
    scored = {q: row[q] for q in varied if float(row.get(q) or 0)}
    assert varied and not scored, f"the book's cells score on seed 1: {scored}"


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
            left = handout.myst_in(cell.source)
            assert not left, f"cell {i} of the student notebook shows MyST: {left}"


def test_students_get_no_hidden_test(graded):
    """No hidden check, draw function or variant lookup in the student folder: its
    public tests and the notebook."""
    name = graded["dest"].name
    path = next(p for p in ANNOTATED if p.stem == name)
    raw = load_checks(path) or {}
    secret = {f.__name__ for q in raw.values() for f in q.get("hidden", [])}
    secret |= {v["draw"].__name__ for v in load_variants(path).values()}
    secret.add("_attnsig_seed")
    student = graded["dest"] / "student"
    for test in [*(student / "tests").glob("*.py"), student / f"{name}.ipynb"]:
        text = test.read_text()
        assert "hidden=True" not in text, test.name
        assert not [s for s in secret if s in text], test.name


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
    path = next(p for p in ALL if p.stem == "tour")
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
    # A first column that numbers the claims is no part of a claim; a claim given by
    # its number alone is shown as the exercise's claim of that number.
    numbered = nbformat.v4.new_markdown_cell(
        "| # | claim | verdict |\n| --- | --- | --- |\n"
        "| 1 | a | right |\n| 2 | b | wrong |"
    )
    _, claims = assignments.verdict_table([numbered], "x")
    assert claims == [("a", "right"), ("b", "wrong")]
    # (3 claims beyond "right" or "wrong" for all: not strict, no note)
    more = [(str(i), v) for i, v in enumerate(["right", "wrong"] * 2, 3)]
    prompt = assignments._claims_prompt([("1", "right"), ("b", "wrong"), *more])
    assert prompt.splitlines()[:3] == [
        "The claims to judge, numbered as in `verdicts` below:", "",
        "1. claim 1 of the exercise",
    ]  # fmt: skip
    # Every claim by its number alone: one line, not a list of empty items.
    prompt = assignments._claims_prompt([("1", "right"), ("2", "wrong"), *more])
    assert prompt.startswith("The claims to judge are the exercise's claims 1 to 6,")
    assert "\n" not in prompt
    # Notes in paragraphs of their own, before the lead-in: the claims are the
    # sheet's numbers', and where the rule is strict, the caveat is the question.
    prompt = assignments._claims_prompt([("a", "right"), ("b", "wrong")], True)
    first, strict, lead = prompt.split("\n\n")[:3]
    assert "even where your notebook gives you other numbers" in first
    assert '"right" and "right with a caveat" are different verdicts' in strict
    assert lead == "The claims to judge, numbered as in `verdicts` below:"
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

    path = next(p for p in ALL if p.stem == "tour")
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


def test_checks_of_specs_are_the_zips(graded):
    """The checks `tools.grading.check_of` makes from a spec (which
    tests/test_grading_cases.py grades without a notebook) are the autograder zip's."""
    built = grading.read_checks(graded["dest"] / "autograder" / "autograder.zip")
    for q in graded["qs"]:
        if q["answer_cell"] is None:
            continue
        ours = grading.check_of(q["name"], q["spec"])
        theirs = grading.load_check(built[q["name"]], f"{q['name']}.py")
        assert ours["possible"] == pytest.approx(theirs["possible"]), q["label"]
        assert bool(ours["all"]) == bool(theirs["all"]), q["label"]

        def cases(check):
            return [
                (c.name, c.hidden, c.failure_message, round(c.points, 9))
                for c in check["cases"]
            ]

        assert cases(ours) == cases(theirs), q["label"]
