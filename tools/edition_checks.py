"""What keeps the student edition from being a textbook (issue 21, "Done when").

    python -m tools.edition_checks              # the four counts, per chapter
    python -m tools.edition_checks --details    # and what each count holds

Counted in each chapter's student notebook (`student_edition.student_notebook`, the
notebook the student edition is built from), each to be driven to 0:

* boxes: theorem-type boxes (sphinx-proof directives other than proofs) without a
  statement, such as the placeholder "Theorem 4.1 (proved in the solutions)";
* figures: blank figures, the placeholder panels "drawn in the solution" and figure
  cells without a picture;
* judge: "Judge the sheet" exercises whose visible text quotes no claim of the sheet
  (a claim is quoted as a Markdown block quote, `> ...`, in the statement or the text
  that follows it before the next exercise or heading);
* explorers: static explorers whose frames write values computed on an exercise's data
  (the give-away check of `student_edition.giveaways`, extended to explorers). The
  frames are pictures, so the check reads the code instead: the drawing function (or a
  helper of the chapter it calls) writes a computed value into the figure (an f-string
  of something other than the explorer's own parameters), and it reads data that a
  solution also reads, directly or through the chapter's assignments, or starts from a
  string a solution uses (such as the sheet's example prompt). A picture of a simulation
  can give an answer away without writing a number: `ANSWER_FRAMES` declares, per static
  explorer, the parameter values whose frames picture an exercise's answer, and a frame
  there counts too. An explorer whose every frame pictures the data it reads (a heat map
  of attention weights) is declared in `PICTURE_EXPLORERS`: reading an exercise's data
  then counts without any number written.

`tests/test_edition_checks.py` holds today's counts as a ratchet: a count may only fall.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import re
import sys
from pathlib import Path

import nbformat

from tools import book
from tools import student_edition as se
from tools.nbtools import _loaded_names, _parse

KINDS = ("boxes", "figures", "judge", "explorers")
_JUDGE = re.compile(r"```+\{exercise\}\s*(Judge the [^\n]*)\n((?:[ \t]*:[^\n]*\n)*)")


def _markdown(cells) -> list[tuple[int, str]]:
    return [(i, c.source) for i, c in enumerate(cells) if c.cell_type == "markdown"]


def statementless_boxes(cells) -> list[str]:
    found = []
    for i, text in _markdown(cells):
        for m in se.PRF_BOX.finditer(text):
            body = re.sub(r"^[ \t]*:[\w-]+:.*$", "", m.group(3), flags=re.M).strip()
            if m.group(2) != "proof" and (
                not body or body.startswith("Its statement and proof are part of")
            ):
                label = re.search(r":label:\s*(\S+)", m.group(3))
                found.append(f"cell {i}: prf:{m.group(2)} {label and label.group(1)}")
    return found


def placeholder_figures(cells) -> list[str]:
    image = re.escape(se.PLACEHOLDER_IMAGE)
    found = [
        f"cell {i}: {name}"
        for i, text in _markdown(cells)
        for name in re.findall(rf"\{{figure\}}\s*/?{image}\s*\n:name:\s*(\S+)", text)
    ]
    for i, cell in enumerate(cells):
        outputs = cell.get("outputs", []) if cell.cell_type == "code" else []
        pictures = [k for o in outputs for k in o.get("data", {}) if "image" in k]
        figure = book.figure_options(cell)
        if figure and not pictures and cell.cell_type == "code":
            found.append(f"cell {i}: {figure.get('name', '')} has no picture")
    return found


def unquoted_judge_exercises(cells) -> list[str]:
    found = []
    for i, text in _markdown(cells):
        for m in _JUDGE.finditer(text):
            visible = [text[m.start() :]]
            for cell in cells[i + 1 :]:
                if cell.cell_type == "markdown" and (
                    "{exercise}" in cell.source or cell.source.lstrip().startswith("#")
                ):
                    break
                if cell.cell_type == "markdown":
                    visible.append(cell.source)
            if not re.search(r"^[ \t]*>", "\n".join(visible), re.M):
                label = re.search(r":label:\s*(\S+)", m.group(2))
                found.append(f"cell {i}: {label and label.group(1)} ({m.group(1)})")
    return found


# --- Explorers
# ---------------------------------------------------------------------------------


def _strings(node) -> set[str]:
    return {
        n.value
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) > 3
    }


# Static explorers (by `name`) whose frames picture an exercise's answer for some
# values of a parameter, which the code check below cannot see: parameter -> closed
# intervals of values whose frames give the answer away.
ANSWER_FRAMES = {
    # one-head: near 0 degrees the histogram is that of the copying heads
    # (ex-onehead-two-heads-noisy: most draws at 1/2), near 45 degrees that of the
    # single head (ex-onehead-noisy-key: bimodal); review 58 found 5 and 40 degrees
    # too close.
    "onehead-angle": {"theta_deg": ((0.0, 15.0), (35.0, 45.0))},
}
# (position-encoding's explorer draws the code table, not the distances whose minimum is
# ex-posenc-distinct's delta_N, so none of its frames needs declaring.)

# Explorers whose every frame pictures the data they read (a heat map of attention
# weights shows which key each query attends to at any temperature): for these,
# reading an exercise's data is a give-away even when no number is written. The
# temperature explorer of scaled-dot-product runs on scores of its own; drawing the
# worked example's map there would answer ex-abh-q3d (review 10-34) in every frame.
PICTURE_EXPLORERS = frozenset({"abh-temperature"})


def explorer_answer_frames(trees, answer_frames=None) -> list[str]:
    """Frames of static explorers at parameter values declared in `ANSWER_FRAMES`."""
    answer_frames = ANSWER_FRAMES if answer_frames is None else answer_frames
    found = []
    for call in _explorer_calls(trees):
        name = _explorer_name(call)
        try:
            grid = ast.literal_eval(call.args[1]) if len(call.args) > 1 else {}
        except ValueError:
            continue
        for param, ranges in answer_frames.get(name, {}).items():
            for value in grid.get(param, []):
                if any(lo <= value <= hi for lo, hi in ranges):
                    found.append(f"explorer {name!r} has a frame at {param}={value}")
    return found


def _explorer_calls(trees):
    """The `static_explorer(...)` calls in the parsed cells."""
    calls = [n for tree in trees for n in ast.walk(tree) if isinstance(n, ast.Call)]
    return [c for c in calls if ast.unparse(c.func).endswith("static_explorer")]


def _explorer_name(call: ast.Call):
    """The literal `name=` of a `static_explorer(...)` call, or None."""
    keywords = {k.arg: k.value for k in call.keywords}
    try:
        return ast.literal_eval(keywords.get("name", ast.Constant(None)))
    except ValueError:
        return None


def explorer_giveaways(nb, picture_explorers=None) -> list[str]:
    """Static explorers of the student notebook that draw an exercise's data.

    An explorer named in `picture_explorers` (default `PICTURE_EXPLORERS`) counts when
    it reads an exercise's data, whether or not it writes a number.
    """
    if picture_explorers is None:
        picture_explorers = PICTURE_EXPLORERS
    student, removed = se.student_notebook(nbformat.from_dict(nb))
    trees = [_parse(c.source) for c in student.cells if c.cell_type == "code"]
    solution = [
        _parse(c.source) for c in sum(removed.values(), []) if c.cell_type == "code"
    ]
    trees, solution = [t for t in trees if t], [t for t in solution if t]
    solution_reads = set().union(*map(_loaded_names, solution)) if solution else set()
    functions, depends, strings = {}, {}, set().union(*map(_strings, solution or []))
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                functions[node.name] = node
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = (
                    node.targets if isinstance(node, ast.Assign) else [node.target]
                )
                for name in set().union(*map(_loaded_names, targets)) | {
                    t.id for t in targets if isinstance(t, ast.Name)
                }:
                    depends.setdefault(name, set()).update(_loaded_names(node.value))
                    if name in solution_reads:
                        strings |= _strings(node.value)
    found = []
    for call in _explorer_calls(trees):
        draw = call.args and functions.get(getattr(call.args[0], "id", None))
        if not draw:
            continue
        params = {a.arg for a in draw.args.args + draw.args.kwonlyargs}
        bodies = [draw] + [functions[n] for n in _loaded_names(draw) if n in functions]
        local = {
            n.id
            for b in bodies
            for n in ast.walk(b)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        } | {a.arg for b in bodies for a in ast.walk(b) if isinstance(a, ast.arg)}
        writes = any(
            isinstance(v, ast.FormattedValue) and _loaded_names(v.value) - params
            for b in bodies
            for v in ast.walk(b)
        )
        data, todo = set(), set().union(*map(_loaded_names, bodies)) - local
        while todo:  # the chapter's data the explorer reads, through assignments
            name = todo.pop()
            if name in data or name in functions or hasattr(builtins, name):
                continue
            data.add(name)
            todo |= depends.get(name, set())
        shared = sorted(data & solution_reads & set(depends))
        starts = sorted(_strings(draw.args) & strings)
        pictures = _explorer_name(call) in picture_explorers
        if (writes or pictures) and (shared or starts):
            why = f"reads {', '.join(shared)}" if shared else f"starts at {starts}"
            what = "writes computed values" if writes else "pictures its data"
            found.append(f"explorer {draw.name!r} {what} and {why}")
    return found + explorer_answer_frames(trees)


# --- Counts
# ------------------------------------------------------------------------------------


def chapter_counts(path: Path) -> dict[str, list[str]]:
    """The findings of each kind in one chapter."""
    nb = nbformat.read(path, as_version=4)
    cells = se.student_notebook(nbformat.from_dict(nb))[0].cells
    return {
        "boxes": statementless_boxes(cells),
        "figures": placeholder_figures(cells),
        "judge": unquoted_judge_exercises(cells),
        "explorers": explorer_giveaways(nb),
    }


def counts(root: Path = se.ROOT) -> dict[str, dict[str, list[str]]]:
    return {p.stem: chapter_counts(p) for p in book.chapter_notebooks(root)}


def report(found: dict[str, dict[str, list[str]]], details: bool = False) -> str:
    lines = [f"{'chapter':22}" + "".join(f"{k:>11}" for k in KINDS)]
    for chapter, kinds in found.items():
        lines.append(f"{chapter:22}" + "".join(f"{len(kinds[k]):>11}" for k in KINDS))
        if details:
            lines += [f"    {k}: {item}" for k in KINDS for item in kinds[k]]
    totals = [sum(len(kinds[k]) for kinds in found.values()) for k in KINDS]
    lines.append(f"{'total':22}" + "".join(f"{t:>11}" for t in totals))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.edition_checks",
        description=__doc__.split("\n\n")[0],
        epilog="boxes: theorem boxes without a statement; figures: blank or "
        "placeholder figures; judge: 'Judge the sheet' exercises that quote no claim; "
        "explorers: explorers that draw an exercise's answer. Each should be 0.",
    )
    parser.add_argument(
        "--details", action="store_true", help="list what each count holds"
    )
    args = parser.parse_args(argv)
    found = counts()
    print(report(found, args.details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
