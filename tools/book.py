"""The book's layout, shared by the maintenance tools: which notebooks are chapters, in
which order, and where their gated solutions are.

The tools import this module and never the other way round: `tools.questions` and
`tools.student_edition` read the chapters through it, `tools.jupyter_markdown`
through `tools.student_edition`, and `tools.assignments` through all of them.
"""

from __future__ import annotations

import re
from pathlib import Path

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
