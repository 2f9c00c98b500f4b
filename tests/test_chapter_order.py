"""No chapter relies on a later one (issue 21 item 4).

A cross-reference ({ref}, {numref}, {prf:ref}, {eq}, {doc} or a Markdown link) from a
chapter to a label or page of a chapter that comes later in _toc.yml fails this test,
unless it is one of today's, listed below. The appendix is reference material: links
into it are no forward references.
"""

import re
from collections import Counter
from pathlib import Path

import nbformat

from tools import book
from tools import student_edition as se

ROOT = Path(__file__).resolve().parents[1]

# Today's forward references, as (chapter, target label or page): number of places.
# The chapter editors remove an entry when they restate what the chapter needs (or
# reorder the chapters); the test fails when a reference is added, and when an entry is
# no longer needed, so that this list only shrinks.
KNOWN_FORWARD_REFERENCES = {}

_LINK = re.compile(
    r"\{doc\}`(?:[^`<]*<)?([^`<>]+)>?`|\]\(([^)#\s:]+?\.(?:ipynb|md))(?:#[^)]*)?\)"
)


def _page(source: str, target: str) -> str:
    """The toc entry of a {doc} or Markdown link written in the document `source`."""
    target = re.sub(r"\.(ipynb|md)$", "", target.strip())
    if target.startswith("/"):
        return target.lstrip("/")
    return str((Path(source).parent / target).resolve().relative_to(ROOT.resolve()))


def forward_references(root: Path = ROOT) -> Counter:
    """(chapter stem, target) -> places, for every reference to a later chapter."""
    entries = book.toc_entries(root)
    chapters = [
        str(p.relative_to(root).with_suffix("")) for p in book.chapter_notebooks()
    ]
    order = {entry: k for k, entry in enumerate(entries)}
    owner = {}
    for doc in chapters:
        for label in se.labels_defined(nbformat.read(root / f"{doc}.ipynb", 4).cells):
            owner.setdefault(label, doc)
    found: Counter = Counter()
    for doc in chapters:
        for cell in nbformat.read(root / f"{doc}.ipynb", 4).cells:
            if cell.cell_type != "markdown":
                continue
            targets = [(lab, owner.get(lab)) for _, lab in se.references(cell.source)]
            for m in _LINK.finditer(cell.source):
                page = _page(str(root / doc), m.group(1) or m.group(2))
                targets.append((page, page))
            for name, page in targets:
                if page in chapters and order[page] > order[doc]:
                    found[(Path(doc).name, name)] += 1
    return found


def test_no_chapter_refers_to_a_later_one():
    found = forward_references()
    new = {k: n for k, n in found.items() if n > KNOWN_FORWARD_REFERENCES.get(k, 0)}
    assert not new, (
        f"references to later chapters: {new}. Restate what the chapter needs (with "
        "its symbols) instead of pointing ahead, or move the chapter."
    )
    fixed = {k: n for k, n in KNOWN_FORWARD_REFERENCES.items() if found.get(k, 0) < n}
    assert not fixed, (
        f"fewer forward references than KNOWN_FORWARD_REFERENCES lists: {fixed}; "
        "lower or remove these entries"
    )


def test_forward_references_are_found():
    found = forward_references()
    # The detector sees every reference still listed (links and {ref} labels alike).
    assert all(found[key] >= 1 for key in KNOWN_FORWARD_REFERENCES)
    assert not any(chapter == "tour" for chapter, _ in found)
