"""One source of time and of the term plans: chapters/appendix/course.yml."""

import re
from pathlib import Path

import nbformat
import yaml

from tools import book, course

ROOT = Path(__file__).resolve().parents[1]


def test_headers_guide_and_syllabus_follow_the_data_file():
    problems = course.check()
    assert not problems, "\n".join(problems) + "\nrun `python -m tools.course write`"


def test_the_sums_agree():
    data = course.load()
    minutes = yaml.safe_load((ROOT / course.EXERCISE_MAP).read_text())["exercises"]
    guide = (ROOT / course.GUIDE).read_text()
    for info in data["chapters"].values():
        header = nbformat.read(ROOT / f"{info['doc']}.ipynb", 4).cells[0].source
        numbers = re.search(
            r"\*\*Estimated time:\*\* (?:(\d+) h )?(\d+) min in all: (\d+) min .*?"
            r"(\d+) min for its (\d+) exercise",
            header,
        )
        assert numbers, f"{info['doc']}: no estimate line"
        hours, rest, reading, work, count = (int(g or 0) for g in numbers.groups())
        assert 60 * hours + rest == reading + work, info["doc"]
        assert work == sum(minutes[e]["minutes"] for e in info["exercises"])
        assert count == len(info["exercises"])
        assert f"| {reading} min | {work} min ({count}) |" in guide
    # The guide's per-sheet totals are computed from the same exercise minutes.
    total = sum(c["total"] for c in data["chapters"].values())
    assert f"{course.duration(total)} in all" in guide


def test_header_prerequisites_are_the_data_files():
    data = course.load()
    earlier: set[str] = set()
    for stem, info in data["chapters"].items():
        header = nbformat.read(ROOT / f"{info['doc']}.ipynb", 4).cells[0].source
        text = header.split("**Prerequisites", 1)[1].split("\n\n")[0]
        linked = {
            Path(doc).name
            for doc in re.findall(r"\{doc\}`(?:[^`<]*<)?/?([^`<>]+)>?`", text)
        }
        # A link to a later chapter ("the sequel") is no prerequisite: the order test
        # (tests/test_chapter_order.py) lists those.
        assert linked & earlier == set(info["prerequisites"]), stem
        earlier.add(stem)


def test_estimate_line_replaces_only_its_sentence():
    source = (
        "Intro.\n\n**Estimated time:** 2 hours (75 for the\nexercises). "
        "**Prerequisites:** x.\n"
    )
    assert course.with_estimate(source, "**Estimated time:** 1 min.") == (
        "Intro.\n\n**Estimated time:** 1 min. **Prerequisites:** x.\n"
    )


def test_plan_check_finds_a_prerequisite_taught_later():
    data = course.load()
    assert course.plan_problems(data) == []
    data["plans"] = [{"title": "bad", "weeks": [["signatures"], ["tour"]]}]
    assert course.plan_problems(data) == ["bad: signatures comes before ['tour']"]
    data["chapters"]["tour"]["prerequisites"] = ["signatures"]
    assert "tour: prerequisite signatures is not an earlier chapter" in (
        course.plan_problems(data)
    )


def test_syllabus_is_in_the_book():
    assert "chapters/appendix/syllabus" in book.toc_entries()
    page = (ROOT / course.SYLLABUS).read_text()
    assert ":alt: Prerequisite graph" in page and len(course.load()["plans"]) >= 2
