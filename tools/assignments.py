"""Self-checking assignments, generated from the chapter notebooks with otter-grader.

    python -m tools.assignments build [CHAPTER...]  student + autograder per chapter
    python -m tools.assignments distribute CHAPTER --roster R.csv --out DIR
                                                    one notebook per student (variants)
    python -m tools.assignments grade CHAPTER DIR   grade DIR (tools/grading.py)
    python -m tools.assignments rubric|merge ...    rubric pages; final grades
    python -m tools.assignments page                the book's table of assignments

Run from the repository root. An assignment is made of the chapter notebook and its
checks file, the Python file beside it: `chapters/<part>/<name>_checks.py` for
`chapters/<part>/<name>.ipynb` (`-` becomes `_`; `tools.questions.checks_path`). The
notebook carries no grading metadata. The checks file defines `QUESTIONS`, a dict from
an exercise's label (the `:label:` of its `{exercise}`, named by its gated solution
`solution-start` ... `solution-end`, CONTRIBUTING.md) to its question:

* an auto-checked question::

      def q_form(Q):                      # a public check
          import numpy as np

          assert np.shape(Q) == (3, 2), "Q: shape (3, 2)"


      def q_exact(Q, K):                  # a hidden check
          ...


      def q_wrong_transposed(Q):          # a typical mistake
          return {"Q": Q.T}


      QUESTIONS["ex-label"] = {
          "points": 2,
          "answer": ["Q", "K"],
          "describe": "what the student defines",
          "public": [q_form],
          "hidden": [q_exact],
          "wrong": {"transposed": q_wrong_transposed},
          "rubric": ["a written part, graded by hand (1)"],  # optional
      }

  The student notebook gets the exercise statement, one stub `name = ...` per answer
  name (with the `describe` comment) and a public check (`grader.check("q")`). The
  public checks test only properties the statement gives (type, shape, sums); the
  hidden ones compare with the solution's answer as the chapter's asserts do and
  reject the classic wrong answers. A check is a plain function: its arguments are
  the notebook names it reads (otter's exception-based tests look them up by name),
  it imports what it needs in its body, and its source (`inspect.getsource`) becomes
  one test of otter's test file, so it may use nothing else of the checks file. A
  typical mistake is a function of notebook names too, returning the answer names it
  changes: `tests/test_assignments.py` puts it after the solution and checks that the
  question is lost. The answer is computed by the last solution code cell that binds
  an answer name. A check tests the mathematical object, not the route to it (a
  stated precision tolerates the rounding it implies): `tests/grading_cases/
  <chapter>.py` gives each auto-checked question two or more answers by other routes,
  which must score full marks (tests/test_grading_cases.py, without notebooks).
  Per-student numbers: a question that gives numbers has `"variant": KEY`, one that
  gives none `"fixed": "why"`. `VARIANTS[KEY]` is `{"draw": draw, "cell": cell,
  "names": [...], "after": "ex-label", "describe": "..."}`: `draw(seed)` the numbers
  (JSON-able; seed 0 the book's), `cell(variant)` the source of the data cell that
  `distribute` puts after the `after` exercise's statement, defining `names`. A hidden
  check taking an argument `variant` gets `draw(seed)` of the student's roster seed
  (`tools.questions.variant_check`, `tools.grading.with_seed`); the rules: CONTRIBUTING.
  A question that asks the student to build what the package provides lists those
  functions, `"builds": ["attnsig.bounds.copy_gap", ...]` ("attnsig.bounds.*": all of
  the module's `__all__`; every name a student may
  reach them by that is a different function object, such as a private fast path; a
  class's methods as "attnsig.attention.MultiHeadAttention.__call__"):
  the graded run blocks them while a check calls the question's function answers
  and, with `"builds_in_cells": True` (a value answer, or a function of few inputs
  that a table could answer), while its answer cells run (`attnsig._grading`); the
  question gets a public check that warns at once.
* a verdict exercise (the sheet's claims judged in a table whose header has a
  "verdict" column)::

      QUESTIONS["ex-label"] = {"points": 3, "verdicts": True, "rubric": [...]}

  The table is the answer key: each row's claim (the column before the verdict, after
  a leading part/question column if there is one) becomes a numbered claim, each
  verdict cell starts with one of `VERDICTS`. The student defines `verdicts`, a dict
  claim number -> verdict. Only judgement scores (`tools.questions.verdict_points`):
  with n claims, c of them judged as the book does (a flagged claim, "wrong" or
  "garbled", must be flagged, an accepted one accepted) and b the most claims one
  verdict given to every claim would judge, the question gives points * max(0, c - b)
  / (n - b). "right" everywhere, "wrong" everywhere or the hedge "right with a caveat"
  everywhere score 0. The typical wrong answers are "trusting the sheet" and "rejecting
  every claim".
* a question graded by hand (e.g. a proof)::

      QUESTIONS["ex-label"] = {"points": 3, "manual": True, "kind": "proof",
                               "rubric": ["criterion (points)", ...]}

  `kind` is "proof", "explanation", "figure" or, for an answer that could be computed
  but is graded by hand, "computable" (it counts against `COVERAGE`). The rubric goes
  to the grader's material (`autograder/rubric.md`).

In each chapter at least `COVERAGE` of the exercises with a computable answer (auto,
verdicts, manual "computable") are auto-checked.

A chapter without a checks file is skipped (and listed as such). Output:
`_build/assignments/<chapter>/{student,autograder}` (otter assign's layout: the student
notebook with its public tests; the solution notebook, all tests and `autograder.zip`).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell as _code
from nbformat.v4 import new_markdown_cell as _md
from nbformat.v4 import new_raw_cell as _raw

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python tools/assignments.py` as well as `-m`
    sys.path.insert(0, str(ROOT))


from tools import grading  # noqa: E402
from tools.book import STUDENT_BRANCH, chapter_notebooks  # noqa: E402
from tools.jupyter_markdown import context_for, to_jupyter  # noqa: E402
from tools.nbtools import is_setup_cell, repository_url  # noqa: E402
from tools.questions import (  # noqa: E402, F401 (the tests use them from here)
    _EXERCISE,
    ACCEPTS,
    COVERAGE,
    KINDS,
    VERDICTS,
    checks_path,
    claim_accepts,
    coverage,
    is_annotated,
    load_variants,
    questions,
    roster_key,
    rubric_points,
    variant_problems,
    verdict_of,
    verdict_spec,
    verdict_table,
)

# The checks need otter-grader: the set-up cell installs it where it is missing (Colab,
# Binder) and creates the `grader` that the check cells call.
SETUP_OTTER = """
import os

try:
    import otter
except ImportError:  # a fresh Colab runtime
    %pip install --quiet otter-grader==7.0.0
    import otter
if not os.path.isdir("tests"):  # the notebook opened alone (Colab): fetch its checks
    import urllib.request

    os.makedirs("tests")
    checks = "{tests_url}"
    for q in {questions}:
        urllib.request.urlretrieve(f"{{checks}}/{{q}}.py", f"tests/{{q}}.py")
# No file name: a student may rename the notebook, and the grader renames it too.
grader = otter.Notebook()"""
EXPLORER_NOTE = (
    "*The explorer is left out of this assignment: its sliders are on the book's page, "
    "and its live cell is in the chapter's own notebook, from the book.*"
)
WRITTEN = (
    "**Written part** (graded by hand): replace this text with your argument, and say "
    "which computation supports it."
)
EXPORT_NOTE = (
    "Run the cell below and hand in the zip file it makes (or the notebook itself, "
    "as your course asks); it holds your answers only."
)
# Where the published student branch keeps the assignments (tools/publish.py).
ASSIGNMENTS_DIR = "assignments"
_GATE = re.compile(r"```+\{solution-(start|end)\}")


def tests_url(name: str) -> str:
    """The public checks of an assignment on the published student branch."""
    owner_repo = repository_url().split("github.com/", 1)[1]
    return (
        f"https://raw.githubusercontent.com/{owner_repo}/{STUDENT_BRANCH}/"
        f"{ASSIGNMENTS_DIR}/{name}/tests"
    )


OUT = ROOT / "_build" / "assignments"


def chapters() -> list[Path]:
    """The chapter notebooks, in the book's order."""
    return chapter_notebooks(ROOT)


# --- The otter assign master notebook


def _clean(cell):
    cell = copy.deepcopy(cell)
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None
    return cell


def _test_cell(source: str, config: dict):
    header = f'""" # BEGIN TEST CONFIG\n{_yaml(config)}""" # END TEST CONFIG\n'
    return _code(header + source.strip() + "\n")


def master_notebook(nb, name: str, path: Path):
    """The chapter notebook `nb`, read from `path`, as an otter assign master notebook
    (format v1), its MyST markdown made plain Jupyter markdown.
    """
    config = {
        "name": name,
        "init_cell": False,
        "check_all_cell": True,
        "export_cell": {"pdf": False, "instructions": EXPORT_NOTE},
        "run_tests": False,
        "generate": True,
        "tests": {"files": True, "ok_format": False},
    }
    found = questions(path, nb)
    # On Gradescope (`otter run`) the package's plugin blocks the functions a question
    # asks the student to build and judges the notebook as it stands at the end, as
    # `grade` does (`attnsig._grading.with_blocking`).
    # A line of each statement finds the question's answer cells where the student
    # deleted its check cell.
    context, builds = context_for(path), {}
    for q in found:
        if (q["spec"] or {}).get("builds") and q["exercise"] is not None:
            said = to_jupyter(nb.cells[q["exercise"]].source, context).strip()
            builds[q["name"]] = {
                "builds": q["spec"]["builds"],
                "in_cells": bool(q["spec"].get("builds_in_cells")),
                "statement": said.splitlines()[0],
            }
    # every question checked again at the end: judged as the notebook stands then
    auto = [q["name"] for q in found if q["answer_cell"] is not None]
    checks = {
        q["name"]: q["spec"].get("answer", []) for q in found if q["name"] in auto
    }
    plugin = {"questions": builds, "checks": checks}
    config["plugins"] = [{"attnsig._grading.Blocking": plugin}]
    cells = [_raw("# ASSIGNMENT CONFIG\n" + _yaml(config))]
    after = {}  # exercise label -> the VARIANTS whose data cell follows its statement
    for key, v in load_variants(path).items():
        after.setdefault(v["after"], []).append(key)
    qs = {q["exercise"]: q for q in found if q["exercise"] is not None}
    in_block = {j for q in found for j in range(q["start"], q["stop"])}
    for i, cell in enumerate(nb.cells):
        if i in in_block:
            continue  # a solution: emitted with its question, or dropped
        if _is_explorer(cell):
            if "live_explorer(" in cell.source:
                cells.append(_md(EXPLORER_NOTE))
            continue
        if is_setup_cell(cell):
            cell = _clean(cell)
            cell.source += SETUP_OTTER.format(
                name=name, questions=json.dumps(auto), tests_url=tests_url(name)
            )
        m = _EXERCISE.search(cell.source) if cell.cell_type == "markdown" else None
        if m and m.group(1) in after:
            cell = _clean(cell)
            cell.source += "".join(VARIANT_MARK.format(k) for k in after[m.group(1)])
        if i not in qs or qs[i]["spec"] is None:
            cells.append(_clean(cell))
            continue
        q, spec, manual = qs[i], qs[i]["spec"], qs[i]["answer_cell"] is None
        qconf = {"name": q["name"], "points": spec.get("points", 1)}
        if manual or not spec.get("partial"):
            qconf["manual" if manual else "all_or_nothing"] = True
        cells += [_raw("# BEGIN QUESTION\n" + _yaml(qconf)), _clean(cell)]
        if q["claims"]:
            cells.append(_md(_claims_prompt(q["claims"], bool(after))))
        cells.append(_raw("# BEGIN SOLUTION"))
        block = nb.cells[q["start"] : q["stop"]]
        code = [
            c.source for c in block if c.cell_type == "code" and not _is_explorer(c)
        ]
        if q["claims"]:
            cells.append(_code(_verdicts_cell(spec)))
        elif manual:
            text = [c.source for c in block if c.cell_type == "markdown"]
            text = "\n\n".join(t for t in text if not _GATE.search(t))
            cells.append(_md(text or "(answer)"))
            if code:  # a place for the student's computation or figure
                lines = ["# BEGIN SOLUTION", *code, "# END SOLUTION"]
                cells.append(_code("\n".join(lines)))
        else:
            lines = ["# BEGIN SOLUTION NO PROMPT", *code, "# END SOLUTION"]
            lines += [f"# {line}" for line in spec.get("describe", "").splitlines()]
            lines += [f"{n} = {n}  # SOLUTION" for n in spec["answer"]]
            cells.append(_code("\n".join(lines)))
        cells.append(_raw("# END SOLUTION"))
        if not manual:
            cells.append(_raw("# BEGIN TESTS"))
            cells += [_test_cell(*t) for t in grading.test_cases_of(spec, q["name"])]
            cells.append(_raw("# END TESTS"))
        cells.append(_raw("# END QUESTION"))
        if not manual and spec.get("rubric"):
            # A place for the written part, which the grader marks by hand (rubric.md).
            cells.append(_md(WRITTEN))
    # Jupyter and Colab render Markdown and math but not MyST's roles and directives.
    for cell in cells:
        if cell.cell_type == "markdown":
            cell.source = to_jupyter(cell.source, context)
    cells = [c for c in cells if c.cell_type != "markdown" or c.source.strip()]
    master = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(nb.metadata))
    return master


def _is_explorer(cell) -> bool:
    """An explorer cell, left out of the assignment. The static explorer draws the
    pictures of the HTML page (every setting, which would slow each grading run down);
    the live one's ipywidgets now and then stall the grader's kernel client
    (jupyter/nbclient#312). The chapter's own notebook keeps both.
    """
    return cell.cell_type == "code" and (
        "static_explorer(" in cell.source or "live_explorer(" in cell.source
    )


def _claims_prompt(claims: list[tuple[str, str]], variants: bool = False) -> str:
    """The numbered claims; when the table gives every claim by its number alone, one
    line that says where the statement quotes them. Before them, with variants, that
    the claims are about the sheet's (the book's) numbers, and where `claim_accepts` is
    strict, that "right" and "right with a caveat" are different verdicts."""
    key = dict(enumerate((v for _, v in claims), 1))
    strict = claim_accepts(key) != {i: ACCEPTS[v] for i, v in key.items()}
    head = "".join(n + "\n\n" for n in [
        "The claims are about the book's numbers (those of the sheet or notes it "
        "quotes): judge them on those, even where your notebook gives you other "
        "numbers."
    ] * variants + [
        'Here "right" and "right with a caveat" are different verdicts: the question '
        "is which claims need a caveat."
    ] * strict)  # fmt: skip
    if all(claim == str(i) for i, (claim, _) in enumerate(claims, 1)):
        return (
            f"{head}The claims to judge are the exercise's claims 1 to {len(claims)}, "
            "quoted after this question's cells; `verdicts` below keeps their numbers."
        )
    lines = [head + "The claims to judge, numbered as in `verdicts` below:", ""]
    for i, (claim, _) in enumerate(claims, 1):
        said = f"claim {i} of the exercise" if claim == str(i) else claim
        lines.append(f"{i}. {said.replace(chr(92) + '|', '|')}")
    return "\n".join(lines)


def _verdicts_cell(spec: dict) -> str:
    """The student's stub (a dict with `...` for every claim), then the book's key."""
    lines = [f"# {line}" for line in spec["describe"].splitlines()]
    lines += ["verdicts = {", *(f"    {i}: ...," for i in spec["key"]), "}"]
    lines += ["# BEGIN SOLUTION NO PROMPT", "verdicts = {"]
    lines += [f"    {i}: {v!r}," for i, v in spec["key"].items()]
    lines += ["}", "# END SOLUTION"]
    return "\n".join(lines)


def _yaml(data: dict) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False)


def rubric(path: Path, nb=None) -> str:
    """The grader's material for what the checks do not grade (`rubric.md`)."""
    lines = [f"# Grading by hand: {Path(path).stem}", ""]
    for q in questions(path, nb):
        spec = q["spec"] or {}
        if q["answer_cell"] is None and spec.get("manual"):
            kind = spec.get("kind", "proof")
            lines += [f"## {q['name']} ({spec.get('points', 1)} points, {kind})", ""]
            lines += [f"- {item}" for item in spec.get("rubric", [])] + [""]
            continue
        if q["claims"]:
            title = f"## {q['name']}: the book's verdicts (checked automatically)"
            lines += [title, ""]
            lines += [f"{i}. {v}: {c}" for i, (c, v) in enumerate(q["claims"], 1)]
            n, b = len(q["claims"]), spec["baseline"]
            score = f"Score: {spec['points']} x max(0, c - {b}) / {n - b}, where c"
            judged = f"one verdict for every claim judges {b}"
            lines += ["", f"{score} claims are judged as above; {judged}.", ""]
        if spec.get("rubric"):
            # The written part of an auto-checked question, if the instructor grades it.
            lines += [f"## {q['name']}: written part (the checks grade the rest)", ""]
            lines += [f"- {item}" for item in spec["rubric"]] + [""]
    return "\n".join(lines)


def build_one(path: Path, out: Path = OUT) -> Path | None:
    if not is_annotated(path):
        return None
    nb, name = nbformat.read(path, as_version=4), path.stem
    dest = out / name
    shutil.rmtree(dest, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        master = Path(tmp) / f"{name}.ipynb"
        notebook = master_notebook(nb, name, path)
        notebook.cells[0].source += _yaml(grading.zip_environment(Path(tmp)))
        nbformat.write(notebook, master)
        subprocess.run(
            [sys.executable, "-m", "otter", "assign", "--no-run-tests", "--no-pdfs",
             str(master), str(dest)],
            check=True, cwd=tmp, capture_output=True, text=True,
        )  # fmt: skip
    autograder = dest / "autograder"
    (autograder / "rubric.md").write_text(rubric(path, nb))
    # otter names its archive after the time of the build; the graders want one name.
    for made in autograder.glob(f"{name}-autograder_*.zip"):
        made.replace(autograder / "autograder.zip")
    return dest


# --- Per-student variants: one notebook per student of a roster

# Where a variant's data cell goes: the end of its `after` exercise's statement.
VARIANT_MARK = "\n\n<!-- variant data: {} -->"
YOUR_NUMBERS = (
    "**Your numbers.** This assignment gives you numbers of your own (variant {seed}) "
    "for {describe}; use them, not the book's. The cell below defines {names}."
)
BOOK_NUMBERS = (
    "**Your numbers.** You work with the book's numbers (variant 0) for {describe}; "
    "the cell below defines {names}."
)


def variant_cells(variant: dict, seed: int) -> list:
    """The markdown note and the data cell `cell(draw(seed))` of one student."""
    names = ", ".join(f"`{n}`" for n in variant["names"])
    text = (YOUR_NUMBERS if seed else BOOK_NUMBERS).format(
        describe=variant["describe"], seed=seed, names=names
    )
    return [_md(text), _code(variant["cell"](variant["draw"](seed)).strip())]


def personalise(nb, variants: dict, seed: int):
    """The handed-out notebook `nb` with a student's data cells after the statements
    marked by `VARIANT_MARK`."""
    nb, cells = copy.deepcopy(nb), []
    mark = r"\n*<!-- variant data: (\S+) -->"
    for cell in nb.cells:
        cells.append(cell)
        for key in re.findall(mark, cell.source):
            cells += variant_cells(variants[key], seed)
        cell.source = re.sub(mark, "", cell.source)
    nb.cells = cells
    return nb


def distribute(path: Path, roster: Path, out: Path, builds: Path = OUT) -> list[dict]:
    """One student folder per roster student, `out/<id>/` (the student notebook with
    the student's numbers and the public checks), and `out/autograder.zip`: the
    assignment's zip with `variants.json` (hashed id and email -> seed) for Gradescope.
    Seeds missing from the roster are drawn and written back (`grading.assign_seeds`):
    keep it, `grade --roster` reads them.
    """
    if problems := variant_problems(path):
        raise ValueError(f"{path.name}: " + "; ".join(problems))
    grading.read_roster(roster)  # a bad roster stops before a build
    built = builds / path.stem
    handout = built / "student" / f"{path.stem}.ipynb"
    made = handout.stat().st_mtime if handout.exists() else -1
    if any(s.stat().st_mtime > made for s in (path, checks_path(path))):
        build_one(path, builds)  # none yet, or older than the chapter or its checks
    students = grading.assign_seeds(roster)
    variants = load_variants(path)
    handed = nbformat.read(handout, as_version=4)
    salt, seeds = secrets.token_hex(16), {}
    for student in students:
        sid, seed = student["id"].strip(), int(student["variant"])
        dest = out / sid
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(built / "student", dest)
        nbformat.write(personalise(handed, variants, seed), dest / f"{path.stem}.ipynb")
        # salted hashes: a notebook run on Gradescope can read the zip
        keys = (sid, (student.get("email") or "").strip())
        seeds.update({roster_key(salt, k): seed for k in keys if k})
    shutil.copy(built / "autograder" / "autograder.zip", out / "autograder.zip")
    with zipfile.ZipFile(out / "autograder.zip", "a") as zf:
        zf.writestr("variants.json", json.dumps({"salt": salt, "seeds": seeds}))
    # `grade` hides every zip handed out (its checks, the roster's ids and seeds)
    with (builds / grading.DISTRIBUTED).open("a") as record:
        record.write(f"{(out / 'autograder.zip').resolve()}\n")
    return students


# --- The assignments page of the book

PAGE = ROOT / "chapters" / "appendix" / "assignments.md"
TABLE_START = "<!-- assignment table: made by `python -m tools.assignments page` -->"
TABLE_END = "<!-- end of the assignment table -->"


def launch_links(name: str) -> tuple[str, str]:
    """Colab and Binder addresses of an assignment on the published student branch."""
    owner_repo = repository_url().split("github.com/", 1)[1]
    path = f"{ASSIGNMENTS_DIR}/{name}/{name}.ipynb"
    return (
        f"https://colab.research.google.com/github/{owner_repo}/blob/"
        f"{STUDENT_BRANCH}/{path}",
        f"https://mybinder.org/v2/gh/{owner_repo}/{STUDENT_BRANCH}?labpath={path}",
    )


def assignment_table() -> str:
    """Per chapter: what is checked, what is graded by hand, and the launch links."""
    lines = [
        "| chapter | auto-checked (points) | with a rubric (points) | open |",
        "| --- | --- | --- | --- |",
    ]
    for path in chapters():
        qs = questions(path)
        if not any(q["spec"] for q in qs):
            continue
        auto = [q for q in qs if q["answer_cell"] is not None]
        by_hand = [q for q in qs if q["spec"] and q["spec"].get("rubric")]
        colab, binder = launch_links(path.stem)
        doc = "/" + str(path.relative_to(ROOT).with_suffix(""))
        points = sum(q["spec"].get("points", 1) for q in auto)
        hand_points = sum(rubric_points(q["spec"]["rubric"]) for q in by_hand)
        lines.append(
            f"| {{doc}}`{doc}` | {len(auto)} ({points:g}) | "
            f"{len(by_hand)} ({hand_points:g}) | [Colab]({colab}), [Binder]({binder}) |"
        )
    return "\n".join(lines)


def page_text(text: str) -> str:
    start = text.index(TABLE_START) + len(TABLE_START)
    end = text.index(TABLE_END)
    return text[:start] + "\n\n" + assignment_table() + "\n\n" + text[end:]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.assignments", description=__doc__.split("\n\n")[0],
        epilog="Grading a class: see tools/grading.py and the instructor's guide.",
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="student notebook and autograder per chapter")
    build.add_argument("chapters", nargs="*", help="chapter names (default: all)")
    sub.add_parser("page", help="the book's table of assignments")
    d = sub.add_parser(
        "distribute",
        help="one notebook per student, with the student's own numbers",
        description=distribute.__doc__,
    )
    d.add_argument("chapter", help="the assignment, e.g. scaled-dot-product")
    roster = "CSV id,name[,email][,variant]"
    d.add_argument("--roster", type=Path, required=True, help=roster)
    d.add_argument("--out", type=Path, required=True, help="folder for the notebooks")
    grading.add_commands(sub)
    args = parser.parse_args(argv)
    if args.command == "page":
        PAGE.write_text(page_text(PAGE.read_text()))
        print(f"wrote the assignment table of {PAGE.relative_to(ROOT)}")
        return 0
    if args.command == "distribute":
        path = next((p for p in chapters() if p.stem == args.chapter), None)
        if path is None:
            parser.error(f"no chapter named {args.chapter!r}")
        try:
            students = distribute(path, args.roster, args.out)
        except ValueError as exc:  # a bad roster: one line, not a usage message
            raise SystemExit(str(exc)) from None
        kept = f"seeds written to {args.roster} (keep it for grading)"
        print(f"{len(students)} student notebooks -> {args.out}; {kept}")
        return 0
    if args.command != "build":
        try:
            return grading.run_command(args)
        except ValueError as exc:  # a bad sheet or roster: one line, not a traceback
            raise SystemExit(str(exc)) from None
    wanted = set(args.chapters)
    for path in chapters():
        if wanted and not wanted & {path.stem, str(path)}:
            continue
        dest, rel = build_one(path), path.relative_to(ROOT)
        if dest is None:
            print(f"skipped {rel}: no checks file yet")
            continue
        qs = questions(path)
        auto, computable = coverage(qs)
        manual = sum(q["answer_cell"] is None for q in qs)
        done = f"{auto} of {computable} computable answers auto-checked"
        dest = dest.relative_to(ROOT)
        print(f"built {rel}: {done}, {manual} graded by rubric alone -> {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
