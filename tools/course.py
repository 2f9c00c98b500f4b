"""The course in one data file: time, prerequisites and term plans.

`chapters/appendix/course.yml` is the one source of the book's time estimates (issue 21
item 7) and of its term plans (issue 22 item 10). From it this tool writes the
"Estimated time" line of every chapter header (that line only: the notebooks are not
executed), the minutes of `tools/exercise_map.yml` and the instructor's guide (its
exercise map and its table of chapter times), and the syllabus page with its picture of
the prerequisites. `tests/test_course.py` fails when one of them disagrees with the
data.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
import yaml

from tools import book
from tools import student_edition as se

ROOT = Path(__file__).resolve().parents[1]
DATA = Path("chapters/appendix/course.yml")
SYLLABUS = Path("chapters/appendix/syllabus.md")
GRAPH = Path("chapters/appendix/prerequisites.png")
GUIDE = Path("chapters/appendix/instructors-guide.md")
EXERCISE_MAP = Path("tools/exercise_map.yml")
TIMES_START = "<!-- chapter times: made by `python -m tools.course write` -->"
TIMES_END = "<!-- end of the chapter times -->"
# The estimate is the header's sentence that starts "**Estimated time" and runs to the
# next bold label ("**Prerequisites:**") or the end of its paragraph.
_ESTIMATE = re.compile(r"\*\*Estimated time[.:]\*\*.*?(?=\s+\*\*|\n\n|\Z)", re.S)


def load(root: Path = ROOT) -> dict:
    """The data file, with each chapter's path, number, title and exercise minutes."""
    data = yaml.safe_load((root / DATA).read_text())
    paths = {p.stem: p for p in book.chapter_notebooks(root)}
    numbers = book.chapter_numbers(root)
    if set(paths) != set(data["chapters"]):
        raise ValueError(
            f"{DATA}: chapters {sorted(data['chapters'])} differ from the notebooks of "
            f"_toc.yml {sorted(paths)}"
        )
    for stem, info in data["chapters"].items():
        path = paths[stem]
        info["doc"] = str(path.relative_to(root).with_suffix(""))
        info["number"] = numbers[info["doc"]]
        info["title"] = re.sub(r"^#\s*", "", nbformat.read(path, 4).cells[0].source)
        info["title"] = info["title"].splitlines()[0].strip()
        info["exercise_minutes"] = sum(info["exercises"].values())
        info["total"] = info["reading"] + info["exercise_minutes"]
    data["chapters"] = dict(
        sorted(data["chapters"].items(), key=lambda kv: kv[1]["number"])
    )
    return data


def duration(minutes: int) -> str:
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest:02d} min" if hours else f"{rest} min"


def estimate_line(info: dict) -> str:
    n = len(info["exercises"])
    return (
        f"**Estimated time:** {duration(info['total'])} in all: {info['reading']} min "
        f"to read the chapter and run its code, {info['exercise_minutes']} min for its "
        f"{n} exercise{'s' * (n != 1)} (the instructor's guide times each)."
    )


def with_estimate(source: str, line: str) -> str:
    if not _ESTIMATE.search(source):
        raise ValueError("the chapter header has no '**Estimated time:**' sentence")
    return _ESTIMATE.sub(lambda _: line, source, count=1)


def exercise_map_text(text: str, data: dict) -> str:
    """tools/exercise_map.yml with each exercise's minutes taken from the data."""
    minutes = {
        k: v for c in data["chapters"].values() for k, v in c["exercises"].items()
    }

    def replace(m: re.Match) -> str:
        return f"{m.group(1)}{minutes.get(m.group(2), m.group(4))}{m.group(5)}"

    return re.sub(
        r"^(  ([\w-]+): \{.*?minutes: )((\d+))(.*)$", replace, text, flags=re.M
    )


def _times(info: dict) -> str:
    """A chapter's cells: reading, exercises, in all, TA minutes per submission."""
    exercises = f"{info['exercise_minutes']} min ({len(info['exercises'])})"
    return (
        f"{info['reading']} min | {exercises} | {duration(info['total'])} | "
        f"{info['ta_minutes']} |"
    )


def times_table(data: dict) -> str:
    rows = [
        "| chapter | reading | exercises | in all | TA minutes per submission |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for info in data["chapters"].values():
        rows.append(f"| {info['number']}. {{doc}}`/{info['doc']}` | {_times(info)}")
    reading = sum(c["reading"] for c in data["chapters"].values())
    work = sum(c["exercise_minutes"] for c in data["chapters"].values())
    return "\n".join(
        [
            *rows,
            "",
            f"The whole book: {duration(reading)} of reading and {duration(work)} "
            f"of exercises, {duration(reading + work)} in all. The chapter headers "
            "give the same numbers; both are written from "
            "`chapters/appendix/course.yml`.",
        ]
    )


def guide_text(text: str, data: dict, root: Path = ROOT) -> str:
    start, end = text.index(TIMES_START) + len(TIMES_START), text.index(TIMES_END)
    text = text[:start] + "\n\n" + times_table(data) + "\n\n" + text[end:]
    return se.guide_page(text, root)


# --- The syllabus page and its picture
# ------------------------------------------------------------------


def levels(data: dict) -> dict[str, int]:
    """The length of each chapter's longest chain of prerequisites."""
    found: dict[str, int] = {}
    for stem, info in data["chapters"].items():  # in book order: prerequisites first
        found[stem] = 1 + max((found[p] for p in info["prerequisites"]), default=-1)
    return found


def graph_description(data: dict) -> str:
    """The picture's alt text: every chapter and what it relies on."""
    parts = []
    for info in data["chapters"].values():
        needs = [str(data["chapters"][p]["number"]) for p in info["prerequisites"]]
        title = re.sub(r"[`$*]", "", info["title"])
        parts.append(
            f"{info['number']} {title}"
            + (f" (after {', '.join(needs)})" if needs else " (no prerequisite)")
        )
    return "Prerequisite graph of the chapters: " + "; ".join(parts) + "."


def draw_graph(data: dict, path: Path) -> None:
    """The prerequisite graph: one column per level, an arrow from each prerequisite."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    level, rows = levels(data), {}
    columns: dict[int, list[str]] = {}
    for stem in data["chapters"]:
        columns.setdefault(level[stem], []).append(stem)
    for x in sorted(columns):  # each chapter near the rows of its prerequisites
        prereq_rows = {
            s: [rows[p] for p in data["chapters"][s]["prerequisites"]]
            for s in columns[x]
        }
        columns[x].sort(key=lambda s: sum(prereq_rows[s]) / max(len(prereq_rows[s]), 1))
        rows |= {s: y for y, s in enumerate(columns[x])}
    height = max(map(len, columns.values()))
    fig, ax = plt.subplots(figsize=(2.9 * len(columns), 0.85 * height + 0.4))
    ax.set_xlim(-0.5, len(columns) - 0.5)
    ax.set_ylim(height - 0.5, -0.5)
    ax.set_axis_off()
    box = {"boxstyle": "round,pad=0.4", "fc": "#eef3fb", "ec": "#3b6db3"}
    style = {"ha": "center", "va": "center", "fontsize": 9, "bbox": box}
    label = {}
    for s, info in data["chapters"].items():
        y = rows[s] + (height - len(columns[level[s]])) / 2
        label[s] = ax.text(level[s], y, f"{info['number']}. {s}", **style)
    arrow = {"arrowstyle": "-|>", "lw": 0.9, "connectionstyle": "arc3,rad=0.08"}
    for stem, info in data["chapters"].items():
        for p in info["prerequisites"]:
            color = "#9a9a9a" if p == "tour" else "#333333"
            ends = {"xy": (0, 0.5), "xycoords": label[stem], "xytext": (1, 0.5)}
            ax.annotate(
                "", **ends, textcoords=label[p], arrowprops=arrow | {"color": color}
            )
    fig.savefig(
        path,
        dpi=110,
        bbox_inches="tight",
        metadata={"Software": None, "Description": graph_description(data)},
    )
    plt.close(fig)


def syllabus_page(data: dict) -> str:
    chapters = data["chapters"]
    lines = [
        "(syllabus)=",
        "# Syllabus and term plans",
        "",
        "<!-- Made by `python -m tools.course write` from "
        "chapters/appendix/course.yml: edit the data, not this page. -->",
        "",
        "Every time on this page comes from one data file, "
        "`chapters/appendix/course.yml`, which also writes the estimate at the top of "
        "each chapter and the times of the {doc}`instructors-guide`. A student's time "
        "is the chapter's reading (the main text, its code and its explorer) plus its "
        "exercises; a teaching assistant's time is for grading one submission of the "
        "chapter's assignment by hand (the rubric questions of {doc}`assignments`; the "
        "auto-checked questions grade themselves).",
        "",
        "## What relies on what",
        "",
        f"```{{figure}} {GRAPH.name}",
        f":alt: {graph_description(data)}",
        ":name: fig-syllabus-prerequisites",
        "",
        "The chapters and their prerequisites: an arrow runs from a chapter to one "
        "that relies on it (grey: from the tour of the package).",
        "```",
        "",
        "## The assignments",
        "",
        "| chapter | prerequisites | reading | exercises | student time | "
        "TA minutes per submission |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for info in chapters.values():
        needs = ", ".join(str(chapters[p]["number"]) for p in info["prerequisites"])
        doc = f"{{doc}}`/{info['doc']}`"
        lines.append(f"| {info['number']}. {doc} | {needs or '—'} | {_times(info)}")
    for plan in data["plans"]:
        lines += ["", f"## {plan['title']}", ""]
        if plan.get("assumes"):
            known = ", ".join(
                f"{{doc}}`/{chapters[s]['doc']}`" for s in plan["assumes"]
            )
            lines += [f"Assumes from an earlier course: {known}.", ""]
        lines += [
            "| week | chapters | student time | TA minutes per student |",
            "| --- | --- | ---: | ---: |",
        ]
        every = [s for week in plan["weeks"] for s in week]
        rows = [
            (week, ", ".join(f"{{doc}}`/{chapters[s]['doc']}`" for s in stems), stems)
            for week, stems in enumerate(plan["weeks"], start=1)
        ]
        for name, shown, stems in [*rows, ("in all", f"{len(every)} chapters", every)]:
            student = sum(chapters[s]["total"] for s in stems)
            ta = sum(chapters[s]["ta_minutes"] for s in stems)
            lines.append(f"| {name} | {shown} | {duration(student)} | {ta} |")
    return "\n".join(lines) + "\n"


def plan_problems(data: dict) -> list[str]:
    """Prerequisites that come later in the book or later in a term plan."""
    problems, order = [], list(data["chapters"])
    for stem, info in data["chapters"].items():
        for p in info["prerequisites"]:
            if p not in order or order.index(p) >= order.index(stem):
                problems.append(f"{stem}: prerequisite {p} is not an earlier chapter")
    for plan in data["plans"]:
        seen = set(plan.get("assumes", []))
        for week in plan["weeks"]:
            for stem in week:
                missing = (
                    set(data["chapters"][stem]["prerequisites"]) - seen - set(week)
                )
                if missing:
                    problems.append(
                        f"{plan['title']}: {stem} comes before {sorted(missing)}"
                    )
            seen |= set(week)
    return problems


# --- Writing and checking
# --------------------------------------------------------------------------------


def expected(root: Path = ROOT) -> dict[Path, str]:
    """Every text file that the data writes, as it should read."""
    data = load(root)
    files = {
        root / EXERCISE_MAP: exercise_map_text((root / EXERCISE_MAP).read_text(), data),
        root / SYLLABUS: syllabus_page(data),
    }
    for info in data["chapters"].values():
        path = root / f"{info['doc']}.ipynb"
        nb = nbformat.read(path, 4)
        nb.cells[0].source = with_estimate(nb.cells[0].source, estimate_line(info))
        files[path] = nbformat.writes(nb) + "\n"
    # The guide's exercise map reads the exercise map's minutes: write those first.
    files[root / GUIDE] = guide_text((root / GUIDE).read_text(), data, root)
    return files


def write(root: Path = ROOT) -> int:
    data = load(root)
    problems = plan_problems(data)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    (root / EXERCISE_MAP).write_text(
        exercise_map_text((root / EXERCISE_MAP).read_text(), data)
    )
    for path, text in expected(root).items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path.relative_to(root)}")
    draw_graph(data, root / GRAPH)
    return 0


def check(root: Path = ROOT) -> list[str]:
    """What disagrees with the data file."""
    data = load(root)
    problems = plan_problems(data)
    files = expected(root)
    for path, text in files.items():
        if not path.exists() or path.read_text() != text:
            problems.append(f"{path.relative_to(root)} is not current")
    book = {e["label"]: e["doc"].lstrip("/") for e in se.exercises(root)}
    listed = {k: c["doc"] for c in data["chapters"].values() for k in c["exercises"]}
    if listed != book:
        problems.append(
            f"{DATA}: exercises not listed under their chapter: "
            f"{sorted(set(listed.items()) ^ set(book.items()))}"
        )
    from PIL import Image

    if Image.open(root / GRAPH).info.get("Description") != graph_description(data):
        problems.append(f"{GRAPH} does not show the prerequisites of {DATA}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.course",
        description=__doc__.split("\n\n")[0],
        epilog=f"Edit {DATA}, then run `write`; tests/test_course.py runs `check`.",
    )
    parser.add_argument(
        "command",
        choices=["write", "check"],
        help="write: headers, exercise map, guide, syllabus page and picture from the "
        "data; check: list what disagrees with it (exit 1 if anything does)",
    )
    args = parser.parse_args(argv)
    if args.command == "write":
        return write()
    problems = check()
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
