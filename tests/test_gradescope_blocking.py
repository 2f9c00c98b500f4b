"""Build it yourself on Gradescope: the autograder zip's otter plugin
(`attnsig._grading.Blocking`) blocks the package's functions at run time, as `grade`
does, so a call of the package scores 0 by whatever route it takes, and a self-check
against the package beside an answer built by hand costs nothing.

The cases run through `otter run -a autograder.zip`, as Gradescope runs a submission.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest

from attnsig._grading import with_blocking

pytest.importorskip("otter", reason="otter-grader is not installed")

from tools import assignments  # noqa: E402

ROOT = assignments.ROOT
MESSAGE = "is not available for question {}: build it yourself"


def _cell(source, editable=None):
    cell = nbformat.v4.new_code_cell(source)
    if editable is not None:
        cell.metadata["editable"] = editable
    return cell


def _statement(text):
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["editable"] = False
    return cell


def test_with_blocking_switches_the_blocks_where_grade_does():
    nb = nbformat.v4.new_notebook(
        cells=[
            _cell("import numpy as np"),
            _statement("**Exercise 1**"),
            _cell("x = 1"),
            _cell('grader.check("q1")', editable=False),
            _statement("**Exercise 2**"),
            _cell("def f(): ..."),
            _cell('grader.check("q2")', editable=False),
            _statement("**Exercise 3** (a value)"),
            _cell("y = 2"),  # its check cell deleted
            _statement("**Exercise 4**"),
            _cell("z = 3"),  # its check cell deleted, and no statement known
        ]
    )
    questions = {
        "q1": {"builds": ["attnsig.bounds.copy_gap"], "in_cells": True},
        "q2": {"builds": ["attnsig.bounds.subset_gap"], "in_cells": False},
        "q3": {
            "builds": ["attnsig.bounds.copy_gap"],
            "in_cells": True,
            "statement": "**Exercise 3**",
        },
        "q4": {"builds": ["attnsig.bounds.copy_gap"], "in_cells": True},
    }
    checks = {q: ["x"] for q in ("q1", "q2", "q3", "q4", "q5")}
    made = with_blocking(nb, questions, checks)
    cells = [c.source for c in made.cells]
    switches = [
        (i, s.split(".switch(")[1].strip())
        for i, s in enumerate(cells)
        if "switch(" in s
    ]
    assert f"set_up({questions!r}, {checks!r})" in cells[0]  # checks under blocks
    q1, q3 = (f"{questions[q]['builds']!r}, {q!r})" for q in ("q1", "q3"))
    none = "[], '')"
    # the answer cells of the value answers q1 and q3 (found by its statement); q2's
    # function may be compared with the package in its cells; q4's are not known
    assert [s for _, s in switches] == [q1, none, q3, none]
    at = [i for i, _ in switches]
    assert cells[at[0] + 1] == "x = 1"
    assert cells[at[1] + 1] == 'grader.check("q1")'
    assert cells[at[2] + 1] == "y = 2"
    assert cells[at[3] + 1] == "z = 3"
    # then every question checked again, on the notebook as it stands at the end
    assert ".check_all(['q1', 'q2', 'q3', 'q4', 'q5'])" in cells[-1]
    assert len(nb.cells) == 11, "the submission itself is not changed"


def test_the_zip_names_the_plugin_and_its_questions(tmp_path):
    dest = assignments.build_one(ROOT / "chapters/memory/signatures.ipynb", tmp_path)
    config = json.loads((dest / "autograder" / "otter_config.json").read_text())
    (plugin,) = config["plugins"]
    plugin = plugin["attnsig._grading.Blocking"]
    assert set(plugin["questions"]) == {"sigch_ex_area", "sigch_ex_recall"}
    assert (
        "attnsig.signature.levy_area" in plugin["questions"]["sigch_ex_area"]["builds"]
    )
    tests = {p.stem for p in (dest / "autograder" / "tests").glob("*.py")}
    assert set(plugin["checks"]) == tests  # each checked again at the end


def test_statements_are_read_beside_other_plugins(tmp_path):
    """R18b: a zip whose otter_config.json names another plugin as well."""
    import zipfile

    from tools import grading

    config = {"plugins": [
        {"otter.plugins.builtin.GoogleSheetsGradeOverride": {"sheet": "x"}},
        "otter.plugins.builtin.RateLimiting",
        {"attnsig._grading.Blocking": {"questions": {"q": {"statement": "**Ex 1**"}}}},
    ]}  # fmt: skip
    zipped = tmp_path / "autograder.zip"
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.writestr("otter_config.json", json.dumps(config))
    assert grading.statements(zipped) == {"q": "**Ex 1**"}


# Each case: (chapter, question, its score, edits of the solution notebook). An edit is
# (where, source): the answer cell replaced ("answer"), a cell inserted after it
# ("after"), before the question's statement ("before") or at the end ("end"), the
# check cell deleted ("no check").
HAND_AREA = """\
def swept_area(path):
    sig = signature(path, 2)
    return 0.5 * (sig[word_index((0, 1), 2)] - sig[word_index((1, 0), 2)])
area_words = [(0, 1), (1, 0)]
"""
PACKAGE_AREA = "def swept_area(path):\n    return float(levy_area(path))\n"
HAND_MAP = """\
Qn, Kn, Vn = to_float(Q), to_float(K), to_float(V)
a_s = softmax(Qn @ Kn.T / np.sqrt(float(d_k)), axis=-1)
out_s = a_s @ Vn
a_r = softmax(Qn @ Kn.T, axis=-1)
out_r = a_r @ Vn
"""
PACKAGE_MAP = """\
Qn, Kn, Vn = to_float(Q), to_float(K), to_float(V)
out_s, a_s = sdpa(Qn, Kn, Vn)
out_r, a_r = sdpa(Qn * np.sqrt(float(d_k)), Kn, Vn)
"""
SDPA = "from attnsig.attention import scaled_dot_product_attention as sdpa\n"
AREA, MAP = ("signatures", "sigch_ex_area"), ("scaled-dot-product", "abh_q3b")
TOUR = ("tour", "tour_1d")
CASES = {
    "area by hand, checked against the package in its own cell": (
        *AREA,
        3,
        [
            ("answer", HAND_AREA),
            (
                "after",
                "p = np.array([[0, 0], [1, 0], [1, 1.0]])\n"
                "assert abs(swept_area(p) - float(levy_area(p))) < 1e-12",
            ),
        ],
    ),  # fmt: skip
    "area: one line": (
        *AREA,
        0,
        [("answer", PACKAGE_AREA + "area_words = [(0, 1), (1, 0)]")],
    ),
    "area: a partial made before the statement": (
        *AREA,
        0,
        [
            ("answer", "swept_area = area_of\narea_words = [(0, 1), (1, 0)]"),
            ("before", "import functools\narea_of = functools.partial(levy_area)"),
        ],
    ),  # fmt: skip
    "area: a bound method found by getattr": (
        *AREA,
        0,
        [
            (
                "answer",
                "class A:\n    def m(self, p):\n        import attnsig\n"
                "        return getattr(attnsig.signature, 'levy' + '_area')(p)\n"
                "swept_area = A().m\narea_words = [(0, 1), (1, 0)]",
            )
        ],
    ),  # fmt: skip
    "area: the check cell deleted": (
        *AREA,
        0,
        [("answer", PACKAGE_AREA + "area_words = [(0, 1), (1, 0)]"), ("no check", "")],
    ),  # fmt: skip
    "area: one line, checked again in a later cell": (
        *AREA,
        0,
        [
            ("answer", PACKAGE_AREA + "area_words = [(0, 1), (1, 0)]"),
            ("end", "grader.check('sigch_ex_area')"),
        ],
    ),  # fmt: skip
    # both graders judge the notebook as it stands at the end (R17a F1, R17b 1-3)
    "area by hand at the check, the package bound in the last cell": (
        *AREA,
        0,
        [("answer", HAND_AREA), ("end", "swept_area = levy_area")],
    ),  # fmt: skip
    "area: the package at the check, by hand in the last cell": (
        *AREA,
        3,
        [
            ("answer", PACKAGE_AREA + "area_words = [(0, 1), (1, 0)]"),
            ("end", HAND_AREA),
        ],
    ),  # fmt: skip
    "area answered only in the last cell": (
        *AREA,
        3,
        [("answer", "swept_area = ...\narea_words = ..."), ("end", HAND_AREA)],
    ),  # fmt: skip
    "area answered in the last cell, after a change of directory (R18b 1)": (
        *AREA,
        3,
        [
            ("answer", "swept_area = ...\narea_words = ..."),
            ("end", "import os\nos.chdir('/')\n" + HAND_AREA),
        ],
    ),  # fmt: skip
    "area: a function answer that calls exit (R18a F2)": (
        *AREA,
        0,
        [
            (
                "answer",
                "def swept_area(path):\n    raise SystemExit(1)\n"
                "area_words = [(0, 1), (1, 0)]",
            )
        ],
    ),  # fmt: skip
    "area: a function answer that calls IPython's exit() (R19a F1)": (
        *AREA,
        0,
        [
            (
                "answer",
                "def swept_area(path):\n    exit()\narea_words = [(0, 1), (1, 0)]",
            )
        ],
    ),  # fmt: skip
    "area: a function answer that raises KeyboardInterrupt (R19a F3)": (
        *AREA,
        0,
        [
            (
                "answer",
                "def swept_area(path):\n    raise KeyboardInterrupt\n"
                "area_words = [(0, 1), (1, 0)]",
            )
        ],
    ),  # fmt: skip
    "area: a function answer that changes directory (R19a F2)": (
        *AREA,
        3,
        [
            (
                "answer",
                "import os\n\n\ndef swept_area(path):\n    os.chdir('/')\n"
                + HAND_AREA.split("\n", 1)[1],
            )
        ],
    ),  # fmt: skip
    # a student's %reset empties the namespace: the blocks' state is not there (R20a)
    "map: the package, after a %reset at the top": (
        *MAP,
        0,
        [("answer", SDPA + PACKAGE_MAP), ("top", "%reset -f")],
    ),  # fmt: skip
    "area by hand at the check, the package bound last, after a %reset": (
        *AREA,
        0,
        [
            ("answer", HAND_AREA),
            ("end", "swept_area = levy_area"),
            ("top", "%reset -f"),
        ],
    ),  # fmt: skip
    "area: a function answer that calls exit(), after a %reset at the top": (
        *AREA,
        0,
        [
            (
                "answer",
                "def swept_area(path):\n    exit()\narea_words = [(0, 1), (1, 0)]",
            ),
            ("top", "%reset -f"),
        ],
    ),  # fmt: skip
    "area: the package tried, its own formula where it is blocked": (
        *AREA,
        3,
        [
            (
                "answer",
                "def swept_area(path):\n    try:\n        return float("
                "levy_area(path))\n    except NotImplementedError:\n        pass\n"
                "    sig = signature(path, 2)\n    return 0.5 * (sig[word_index((0, 1)"
                ", 2)] - sig[word_index((1, 0), 2)])\narea_words = [(0, 1), (1, 0)]",
            )
        ],
    ),  # fmt: skip
    "tour: the notebook ends in a folder since deleted (R19b 1)": (
        *TOUR,
        2,
        [
            (
                "answer",
                "import math\n\n\ndef signature_term(a, k):\n"
                "    return a**k / math.factorial(k)\n",
            ),
            (
                "end",
                "import os, tempfile\nd = tempfile.mkdtemp()\nos.chdir(d)\nos.rmdir(d)",
            ),
        ],
    ),  # fmt: skip
    "map by hand, self-checked after the answer": (
        *MAP,
        3,
        [
            (
                "answer",
                HAND_MAP + SDPA + "assert np.allclose(sdpa(Qn, Kn, Vn)[0], out_s)",
            )
        ],
    ),  # fmt: skip
    "map: the package in a %%time cell": (
        *MAP,
        0,
        [("answer", "%%time\n" + SDPA + PACKAGE_MAP)],
    ),
    "map: the package, its check cell deleted": (
        *MAP,
        0,
        [("answer", SDPA + PACKAGE_MAP), ("no check", "")],
    ),  # fmt: skip
    "map: the package through an alias made before the statement": (
        *MAP,
        0,
        [("answer", PACKAGE_MAP), ("before", SDPA)],
    ),  # fmt: skip
}


def _submission(solution, question: str, edits) -> nbformat.NotebookNode:
    nb = copy.deepcopy(solution)
    check = next(
        i for i, c in enumerate(nb.cells) if c.source == f'grader.check("{question}")'
    )
    answer = check - 1
    statement = answer - 1
    for where, source in edits:
        if where == "answer":
            nb.cells[answer] = nbformat.v4.new_code_cell(source)
        elif where == "after":
            nb.cells.insert(check, nbformat.v4.new_code_cell(source))
            check += 1
        elif where == "before":
            nb.cells.insert(statement, nbformat.v4.new_code_cell(source))
            answer, check = answer + 1, check + 1
        elif where == "end":
            nb.cells.append(nbformat.v4.new_code_cell(source))
        elif where == "top":
            nb.cells.insert(0, nbformat.v4.new_code_cell(source))
            answer, check, statement = answer + 1, check + 1, statement + 1
        else:
            del nb.cells[check]
    return nb


@pytest.fixture(scope="module")
def submissions(tmp_path_factory):
    """The assignments built, and each case's notebook in a folder of its own."""
    tmp = tmp_path_factory.mktemp("gradescope")
    chapters = {
        "signatures": "memory",
        "scaled-dot-product": "attention-by-hand",
        "tour": "getting-started",
    }
    built = {
        stem: assignments.build_one(ROOT / "chapters" / part / f"{stem}.ipynb", tmp)
        for stem, part in chapters.items()
    }
    cases = []
    for k, (stem, question, _, edits) in enumerate(CASES.values()):
        autograder = built[stem] / "autograder"
        solution = nbformat.read(autograder / f"{stem}.ipynb", as_version=4)
        out = tmp / f"case{k}"
        out.mkdir()
        nbformat.write(_submission(solution, question, edits), out / f"{stem}.ipynb")
        cases.append((autograder / "autograder.zip", out / f"{stem}.ipynb", question))
    return cases


def _wrong(results) -> dict:
    wrong = {}
    for (case, (_, question, score, _)), (got, output) in zip(
        CASES.items(), results, strict=True
    ):
        said = MESSAGE.format(question) in output
        # a zero by a blocked call, not by exit or an interrupt
        blocked = score == 0 and not any(w in case for w in ("exit", "Interrupt"))
        if got != score or said != blocked:
            wrong[case] = (got, output[-600:])
    return wrong


def test_otter_run_blocks_the_package_by_any_route(submissions):
    def run(case):
        zipped, nb, question = case
        own = {
            key: str(nb.parent / key.lower()) for key in ("IPYTHONDIR", "MPLCONFIGDIR")
        }
        command = [sys.executable, "-m", "otter", "run", "--no-logo", "-a", zipped,
                   "-o", nb.parent, nb]  # fmt: skip
        done = subprocess.run(
            command, cwd=nb.parent, env={**os.environ, **own}, capture_output=True,
            text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        tests = json.loads((nb.parent / "results.json").read_text())["tests"]
        result = next(t for t in tests if t["name"] == question)
        return result["score"], result.get("output", "")

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run, submissions))
    assert not (wrong := _wrong(results)), wrong


def test_grade_scores_the_same_notebooks_alike(submissions, tmp_path):
    """The local `grade` blocks in its own runner: the same scores and messages."""
    import shutil

    from tools import grading

    # One batch per assignment (its judges run in parallel; grading two batches from
    # two threads of this process would parse checks concurrently, which CPython
    # 3.11.7's ast module does not survive), each notebook under a name of its own.
    batches = {}
    for k, (zipped, nb, _) in enumerate(submissions):
        copy = tmp_path / zipped.parents[2].name / f"case{k}.ipynb"
        copy.parent.mkdir(exist_ok=True)
        shutil.copy(nb, copy)
        batches.setdefault(zipped, []).append(copy)
    rows = {}
    for zipped, copies in batches.items():
        out = copies[0].parent / "graded"
        found = grading.grade(zipped, copies, jobs=2, timeout=300, out=out)
        rows.update({c.stem: (row, out) for c, row in zip(copies, found, strict=True)})
    results = []
    for k, (_, _, question) in enumerate(submissions):
        row, out = rows[f"case{k}"]
        assert row["status"] == "ok", row
        results.append((row[question], (out / "feedback" / f"case{k}.md").read_text()))
    assert not (wrong := _wrong(results)), wrong
    # exit() with no reason: "raised SystemExit", not "raised SystemExit:" (R21b M3)
    said = [f for (_, f), case in zip(results, CASES, strict=True) if "exit()" in case]
    assert said and all("raised SystemExit |" in f for f in said), said
