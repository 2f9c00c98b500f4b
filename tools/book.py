"""The book's layout, shared by the maintenance tools: which notebooks are chapters, in
which order, and where their gated solutions are.

The tools import this module and never the other way round: `tools.questions` and
`tools.student_edition` read the chapters through it, `tools.jupyter_markdown`
and `tools.handout` too, and `tools.assignments` through all of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

from tools.nbtools import SOLUTION_TAG, solution_flags

ROOT = Path(__file__).resolve().parents[1]
# The published student edition and the assignments live on this branch (publish.py).
STUDENT_BRANCH = "student"


def toc_entries(root: Path = ROOT) -> list[str]:
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    return [
        c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])
    ]


def chapter_notebooks(root: Path = ROOT) -> list[Path]:
    """The notebooks that the table of contents puts in the book."""
    return [
        root / f"{e}.ipynb" for e in toc_entries(root) if (root / f"{e}.ipynb").exists()
    ]


def chapter_numbers(root: Path = ROOT) -> dict[str, int]:
    """Chapter number of every toc entry: the parts are numbered, and numbering runs on
    across them.
    """
    return {entry: n for n, entry in enumerate(toc_entries(root), start=1)}


# --- Solutions

SOLUTION_LABEL = re.compile(r"```+\{solution-start\}\s*(\S+)")


def in_solution(nb) -> list[bool]:
    """Per cell: whether it belongs to a gated solution (or is tagged as one)."""
    return [
        flag or SOLUTION_TAG in cell.get("metadata", {}).get("tags", [])
        for cell, flag in zip(nb.cells, solution_flags(nb), strict=True)
    ]


def solution_blocks(nb) -> list[tuple[int, int, str]]:
    """(first cell, last cell + 1, exercise label) of every gated solution, in order."""
    blocks, flags, start = [], in_solution(nb), None
    for i, flag in enumerate([*flags, False]):
        starts_new = (
            i < len(nb.cells) and flag and SOLUTION_LABEL.search(nb.cells[i].source)
        )
        if start is not None and (not flag or starts_new):
            match = SOLUTION_LABEL.search(nb.cells[start].source)
            blocks.append((start, i, match.group(1) if match else ""))
            start = None
        if flag and start is None:
            start = i
    return blocks


# --- Numbered objects and exercises, as Sphinx numbers them

DIRECTIVE = re.compile(
    r"^[ \t]*(`{3,}|:{3,})\{([\w:-]+)\}([^\n]*)\n((?:[ \t]*:[\w-]+:[^\n]*\n)*)", re.M
)


_OPTION = re.compile(r":(label|name):\s*(\S+)")


_EQUATION = re.compile(r"\$\$\s*\(([^)\s]+)\)")


_TARGET = re.compile(r"^\(([^)\s]+)\)=\s*$", re.M)


# Directives that Sphinx numbers (sphinx-proof's proof is the one prf directive without
# a number).
_NUMBERED = re.compile(r"prf:(?!proof$)\w+|exercise|figure|table|list-table|math")


@dataclass(frozen=True)
class Numbered:
    """One numbered (or referable) object.

    Its kind is a directive name, 'figure', 'equation' or 'target'; its label is ''
    when it has none.
    """

    kind: str
    label: str


def numbered_objects(cells) -> list[Numbered]:
    """The objects of the cells that Sphinx numbers or that a reference can point to, in
    order.
    """
    found: list[Numbered] = []
    for cell in cells:
        if cell.cell_type == "markdown":
            items = [
                (m.start(), Numbered(m.group(2), directive_label(m.group(4))))
                for m in DIRECTIVE.finditer(cell.source)
                if _NUMBERED.fullmatch(m.group(2))
            ]
            for kind, pattern in (("equation", _EQUATION), ("target", _TARGET)):
                items += [
                    (m.start(), Numbered(kind, m.group(1)))
                    for m in pattern.finditer(cell.source)
                ]
            found += [item for _, item in sorted(items, key=lambda x: x[0])]
        elif cell.cell_type == "code":
            figure = figure_options(cell)
            has_image = any(
                k.startswith("image/")
                for o in cell.get("outputs", [])
                for k in o.get("data", {})
            )
            if figure and has_image:
                found.append(Numbered("figure", figure.get("name", "")))
    return found


def figure_options(cell) -> dict:
    """The MyST-NB figure options (name, caption) of a cell, or {}."""
    return cell.get("metadata", {}).get("mystnb", {}).get("figure", {})


def directive_label(options: str) -> str:
    """The `:label:` (or `:name:`) of a directive's option lines, '' when none."""
    option = _OPTION.search(options)
    return option.group(2) if option else ""


# An exercise: its title, option lines and statement (up to the next fence).
_EXERCISE = re.compile(
    r"```+\{exercise\}([^\n]*)\n((?:[ \t]*:[^\n]*\n)*)(.*?)```", re.S
)


def exercises_in(cells) -> list[tuple[str, str, str]]:
    """(label, title, statement) of every labelled exercise of the cells, in order."""
    return [
        (directive_label(m.group(2)), m.group(1).strip(), m.group(3))
        for cell in cells
        if cell.cell_type == "markdown"
        for m in _EXERCISE.finditer(cell.source)
        if directive_label(m.group(2))
    ]


def exercise_statements(cells) -> dict[str, str]:
    return {label: statement for label, _, statement in exercises_in(cells)}


def exercise_numbers(path: Path, root: Path = ROOT) -> dict[str, str]:
    """'7.5' for every exercise label of a chapter, as the book numbers them."""
    chapter = chapter_numbers(root).get(str(path.relative_to(root).with_suffix("")), 0)
    exercises = exercises_in(nbformat.read(path, as_version=4).cells)
    return {label: f"{chapter}.{k}" for k, (label, _, _) in enumerate(exercises, 1)}
