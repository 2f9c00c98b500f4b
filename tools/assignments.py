"""Self-checking assignments, generated from the chapter notebooks with otter-grader.

    python -m tools.assignments build [CHAPTER...]  student + autograder per chapter
    python -m tools.assignments grade CHAPTER DIR   grade DIR's notebooks: one table

Run from the repository root. The chapter notebook is the only source. An exercise
becomes a question through metadata on the cells of its gated solution (`solution-start`
... `solution-end`, CONTRIBUTING.md), key `assignment`:

* on the solution code cell that computes the answer (auto-checked question)::

      {"points": 2, "answer": ["Q", "K"], "describe": "what the student defines",
       "public": ["def check(Q): ..."], "hidden": ["def exact(Q, K): ..."],
       "wrong": {"transposed": "Q = Q.T"}}

  The student notebook gets the exercise statement, one stub `name = ...` per answer
  name (with the `describe` comment) and a public check (`grader.check("q")`). The
  public checks test only properties the statement gives (type, shape, sums); the
  hidden ones compare with the solution's answer as the chapter's asserts do and
  reject the classic wrong answers. `wrong` holds, per typical mistake, code that
  turns the solution's answer into that mistake: `tests/test_assignments.py` checks
  that each one loses the question. A check is a function whose arguments are looked
  up among the notebook's names (otter's exception-based tests).
* on the `solution-start` cell (question graded by hand, e.g. a proof)::

      {"points": 3, "manual": true, "rubric": ["criterion (points)", ...]}

  The rubric goes to the grader's material (`autograder/rubric.md`).

A chapter without any `assignment` metadata is skipped (and listed as such). Output:
`_build/assignments/<chapter>/{student,autograder}` (otter assign's layout: the student
notebook with its public tests; the solution notebook, all tests and `autograder.zip`).
"""

from __future__ import annotations

import copy
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python tools/assignments.py` as well as `-m`
    sys.path.insert(0, str(ROOT))


from tools.nbtools import is_setup_cell  # noqa: E402

# The checks need otter-grader: the set-up cell installs it where it is missing (Colab,
# Binder) and creates the `grader` that the check cells call.
SETUP_OTTER = """
try:
    import otter
except ImportError:  # a fresh Colab runtime
    %pip install --quiet otter-grader==7.0.0
    import otter
grader = otter.Notebook("{name}.ipynb")"""
OUT = ROOT / "_build" / "assignments"
# Seconds one grading run may take (a chapter runs in well under a minute).
RUN_TIMEOUT = 240
KEY = "assignment"
_START = re.compile(r"```+\{solution-start\}\s*(\S+)")
_EXERCISE = re.compile(r"```+\{exercise\}[^\n]*\n:label:\s*(\S+)")
_GATE = re.compile(r"```+\{solution-(start|end)\}")
_END = re.compile(r"```+\{solution-end\}")


def chapters() -> list[Path]:
    return sorted((ROOT / "chapters").glob("*/*.ipynb"))


def is_annotated(nb) -> bool:
    return any(KEY in cell.get("metadata", {}) for cell in nb.cells)


def questions(nb) -> list[dict]:
    """Every exercise of a notebook with its solution block and grading metadata.

    Returns dicts with keys `label`, `name` (otter question name), `exercise` (index of
    the exercise cell), `start`, `stop` (the solution block, stop exclusive), `spec`
    (the metadata, None for an exercise without it) and `answer_cell` (index of the
    annotated code cell, None for a question graded by hand).
    """
    exercises = {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and (m := _EXERCISE.search(cell.source)):
            exercises[m.group(1)] = i
    found = []
    i = 0
    while i < len(nb.cells):
        m = (
            _START.search(nb.cells[i].source)
            if nb.cells[i].cell_type == "markdown"
            else None
        )
        if not m:
            i += 1
            continue
        start, stop = i, i + 1
        while stop < len(nb.cells) and not _END.search(nb.cells[stop].source):
            stop += 1
        stop += 1  # the solution-end cell belongs to the block
        label = m.group(1)
        spec, answer_cell = nb.cells[start].metadata.get(KEY), None
        for j in range(start, stop):
            if nb.cells[j].cell_type == "code" and KEY in nb.cells[j].metadata:
                spec, answer_cell = nb.cells[j].metadata[KEY], j
        found.append(
            {
                "label": label,
                "name": re.sub(r"\W", "_", label.removeprefix("ex-")),
                "exercise": exercises.get(label),
                "start": start,
                "stop": stop,
                "spec": spec,
                "answer_cell": answer_cell,
            }
        )
        i = stop
    return found


# --- The otter assign master notebook


def _raw(text: str):
    return nbformat.v4.new_raw_cell(text)


def _md(text: str):
    return nbformat.v4.new_markdown_cell(text)


def _code(text: str):
    return nbformat.v4.new_code_cell(text)


def _clean(cell):
    cell = copy.deepcopy(cell)
    cell.metadata.pop(KEY, None)
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None
    return cell


def _test_cell(source: str, hidden: bool):
    config = f"hidden: {str(hidden).lower()}"
    header = f'""" # BEGIN TEST CONFIG\n{config}\n""" # END TEST CONFIG\n'
    return _code(header + source.strip() + "\n")


def master_notebook(nb, name: str):
    """The chapter as an otter assign master notebook (format v1)."""
    config = {
        "name": name,
        "init_cell": False,
        "check_all_cell": False,
        "export_cell": False,
        "run_tests": False,
        "generate": True,
        "tests": {"files": True, "ok_format": False},
    }
    cells = [_raw("# ASSIGNMENT CONFIG\n" + _yaml(config))]
    qs = {q["exercise"]: q for q in questions(nb) if q["exercise"] is not None}
    in_block = {}
    for q in questions(nb):
        for j in range(q["start"], q["stop"]):
            in_block[j] = q
    for i, cell in enumerate(nb.cells):
        if i in in_block:
            continue  # a solution: emitted with its question, or dropped
        if cell.cell_type == "code" and "static_explorer(" in cell.source:
            # The pictures of the HTML page; in Jupyter the live explorer does the job,
            # and drawing every setting would slow each grading run down.
            continue
        if is_setup_cell(cell):
            cell = _clean(cell)
            cell.source += SETUP_OTTER.format(name=name)
        if i not in qs or qs[i]["spec"] is None:
            cells.append(_clean(cell))
            continue
        q = qs[i]
        spec = q["spec"]
        manual = q["answer_cell"] is None
        qconf = {"name": q["name"], "points": spec.get("points", 1)}
        if manual:
            qconf["manual"] = True
        else:
            qconf["all_or_nothing"] = True
        cells.append(_raw("# BEGIN QUESTION\n" + _yaml(qconf)))
        cells.append(_clean(cell))
        cells.append(_raw("# BEGIN SOLUTION"))
        block = nb.cells[q["start"] : q["stop"]]
        if manual:
            text = [c.source for c in block if c.cell_type == "markdown"]
            text = [t for t in text if not _GATE.search(t)]
            cells.append(_md("\n\n".join(text) or "(answer)"))
            code = [c.source for c in block if c.cell_type == "code"]
            if code:  # a place for the student's computation or figure
                lines = ["# BEGIN SOLUTION", *code, "# END SOLUTION"]
                cells.append(_code("\n".join(lines)))
            cells.append(_raw("# END SOLUTION"))
        else:
            code = [
                c.source
                for c in nb.cells[q["start"] : q["stop"]]
                if c.cell_type == "code"
            ]
            lines = ["# BEGIN SOLUTION NO PROMPT", *code, "# END SOLUTION"]
            if spec.get("describe"):
                lines += [f"# {line}" for line in spec["describe"].splitlines()]
            lines += [f"{n} = {n}  # SOLUTION" for n in spec["answer"]]
            cells.append(_code("\n".join(lines)))
            cells.append(_raw("# END SOLUTION"))
            cells.append(_raw("# BEGIN TESTS"))
            for src in spec.get("public", []):
                cells.append(_test_cell(src, hidden=False))
            for src in spec.get("hidden", []):
                cells.append(_test_cell(src, hidden=True))
            cells.append(_raw("# END TESTS"))
        cells.append(_raw("# END QUESTION"))
    master = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(nb.metadata))
    return master


def _yaml(data: dict) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False)


def rubric(nb, chapter: str) -> str:
    lines = [f"# Grading by hand: {chapter}", ""]
    for q in questions(nb):
        spec = q["spec"] or {}
        if q["answer_cell"] is None and spec.get("manual"):
            lines += [f"## {q['name']} ({spec.get('points', 1)} points)", ""]
            lines += [f"- {item}" for item in spec.get("rubric", [])] + [""]
        elif spec.get("rubric"):
            # The written part of an auto-checked question, if the instructor grades it.
            lines += [f"## {q['name']}: written part (the checks grade the rest)", ""]
            lines += [f"- {item}" for item in spec["rubric"]] + [""]
    return "\n".join(lines)


def build_one(path: Path, out: Path = OUT) -> Path | None:
    nb = nbformat.read(path, as_version=4)
    if not is_annotated(nb):
        return None
    name = path.stem
    dest = out / name
    shutil.rmtree(dest, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        master = Path(tmp) / f"{name}.ipynb"
        nbformat.write(master_notebook(nb, name), master)
        subprocess.run(
            [sys.executable, "-m", "otter", "assign", "--no-run-tests", "--no-pdfs",
             str(master), str(dest)],
            check=True, cwd=tmp, capture_output=True, text=True,
        )  # fmt: skip
    autograder = dest / "autograder"
    (autograder / "rubric.md").write_text(rubric(nb, name))
    # otter names its archive after the time of the build; the graders want one name.
    for made in autograder.glob(f"{name}-autograder_*.zip"):
        made.replace(autograder / "autograder.zip")
    return dest


# --- Grading


def _run(command: list[str], cwd: str, timeout: float) -> bool:
    """Run a command in its own process group; False if it timed out (group killed)."""
    proc = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # otter and the kernel it started
        proc.communicate()
        return False
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, command, out)
    return True


def grade(autograder_zip: Path, submissions: list[Path]) -> list[dict]:
    """Grade notebooks locally with `otter run` (no Docker); one row per submission."""
    rows = []
    for sub in submissions:
        with tempfile.TemporaryDirectory() as tmp:
            ag, nb = Path(autograder_zip).resolve(), Path(sub).resolve()
            command = [sys.executable, "-m", "otter", "run", "--no-logo", "-a", str(ag),
                       "-o", tmp, str(nb)]  # fmt: skip
            # Now and then the notebook's kernel stops answering (a lost message on
            # a busy machine) and the run waits for ever: stop it and run it again.
            for attempt in range(3):
                if _run(command, cwd=tmp, timeout=RUN_TIMEOUT):
                    break
                if attempt == 2:
                    raise TimeoutError(f"grading {sub} did not finish three times")
            tests = json.loads((Path(tmp) / "results.json").read_text())["tests"]
        row = {"submission": Path(sub).name}
        scored = [t for t in tests if "score" in t]
        for test in scored:
            row[test["name"]] = test["score"]
        row["total"] = sum(t["score"] for t in scored)
        row["possible"] = sum(t["max_score"] for t in scored)
        rows.append(row)
    return rows


def write_table(rows: list[dict], path: Path) -> None:
    fields = ["submission", "total", "possible"]
    fields += sorted({k for r in rows for k in r} - set(fields))
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"build", "grade"}:
        print(__doc__)
        return 2
    if argv[0] == "build":
        wanted = set(argv[1:])
        for path in chapters():
            if wanted and path.stem not in wanted and str(path) not in wanted:
                continue
            dest = build_one(path)
            rel = path.relative_to(ROOT)
            if dest is None:
                print(f"skipped {rel}: no grading metadata yet")
            else:
                nb = nbformat.read(path, as_version=4)
                qs = questions(nb)
                auto = sum(q["answer_cell"] is not None for q in qs)
                manual = sum(
                    q["answer_cell"] is None and q["spec"] is not None for q in qs
                )
                print(f"built {rel}: {auto} auto-checked, {manual} by rubric -> {dest}")
        return 0
    chapter, folder = argv[1], Path(argv[2])
    autograder = OUT / chapter / "autograder" / "autograder.zip"
    subs = sorted(p for p in folder.glob("*.ipynb"))
    rows = grade(autograder, subs)
    table = folder / "scores.csv"
    write_table(rows, table)
    print(f"graded {len(rows)} submissions -> {table}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
