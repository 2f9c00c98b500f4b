"""Structural checks of the book: conventions a reader, an instructor and CI rely on."""

import json
import re
from pathlib import Path

import nbformat
import pytest
import yaml

from tools import nbtools

ROOT = Path(__file__).resolve().parents[1]

NOTEBOOKS = sorted(
    p
    for p in (ROOT / "chapters").rglob("*.ipynb")
    if ".ipynb_checkpoints" not in p.parts
)
PAGES = sorted((ROOT / "chapters").rglob("*.md"))


def toc_files() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc["parts"]:
        assert part.get("caption"), f"every part of _toc.yml needs a caption: {part}"
        files += [chapter["file"] for chapter in part["chapters"]]
    return files


def test_toc_and_chapters_agree():
    listed = toc_files()
    assert len(listed) == len(set(listed)), "a file is listed twice in _toc.yml"
    for entry in listed:
        assert (ROOT / f"{entry}.md").exists() or (ROOT / f"{entry}.ipynb").exists(), (
            f"{entry} in _toc.yml does not exist"
        )
    on_disk = {str(p.relative_to(ROOT).with_suffix("")) for p in NOTEBOOKS + PAGES}
    assert on_disk - set(listed) == set(), (
        "chapters missing from _toc.yml (only_build_toc_files would drop them)"
    )


def test_toc_parts_follow_the_sheets():
    captions = [
        part["caption"]
        for part in yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"]
    ]
    # One part per solution sheet between the frame parts, in the foundation issue's
    # order but for one swap (issue 21): "What one attention head can do" comes before
    # the CS224N part, whose chapter builds on its theorems.
    expected = [
        "Getting started",
        "CSCI 5922",
        "Self-Attention and Transformers",
        "CS224N",
        "SVD",
        "sheet 9",
        "Appendix",
    ]
    assert len(captions) == len(expected), captions
    for caption, keyword in zip(captions, expected, strict=True):
        assert keyword in caption, (
            f"part {caption!r} is out of order: expected the part about {keyword!r}"
        )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_notebook_conventions(path):
    problems = nbtools.check(
        nbformat.read(path, as_version=4), str(path.relative_to(ROOT))
    )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_widget_cells_are_the_only_ignored_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if nbtools.IGNORE_OUTPUT_TAG in cell.get("metadata", {}).get("tags", []):
            # Explorers: widget state and pre-drawn PNG frames are not text nbval could
            # compare.
            explorer = ("widgets", "interact", "static_explorer(", "live_explorer(")
            assert any(word in cell.source for word in explorer), (
                f"cell {i} ignores its output but is not an explorer cell: "
                "nbval must compare it"
            )


def _directives(kind: str) -> list[tuple[str, str]]:
    found = []
    for path in NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                found += [
                    (str(path), m)
                    for m in re.findall(
                        rf"```+\{{{kind}\}}[^\n]*\n(?::[^\n]*\n)*?:label: (\S+)",
                        cell.source,
                    )
                ]
    return found


def test_exercise_labels_are_unique_and_solved_in_place():
    exercises = _directives("exercise")
    labels = [label for _, label in exercises]
    assert len(labels) == len(set(labels)), (
        f"duplicate exercise labels: {sorted(x for x in labels if labels.count(x) > 1)}"
    )
    for path in NOTEBOOKS:
        text = "\n".join(
            c.source
            for c in nbformat.read(path, as_version=4).cells
            if c.cell_type == "markdown"
        )
        solved = re.findall(r"\{solution-start\}\s+(\S+)", text)
        for label in solved:
            assert label in labels, (
                f"{path.name}: solution for unknown exercise {label}"
            )
        assert len(solved) == len(set(solved)), (
            f"{path.name}: an exercise has two solutions"
        )


# Cell metadata that is not Jupyter's own (nbformat's documented keys) or MyST-NB's
# figure options. Whatever grows beyond a pointer belongs in a file beside the chapter:
# the grading checks are `chapters/<part>/<name>_checks.py` (tools/questions.py).
STANDARD_CELL_METADATA = {
    "tags", "mystnb", "collapsed", "scrolled", "deletable", "editable", "format",
    "name", "jupyter", "execution",
}  # fmt: skip
CELL_METADATA_LIMIT = 10_000


def nonstandard_cell_metadata(paths) -> dict[str, int]:
    """Characters of non-standard cell metadata (as JSON) per notebook."""
    found = {}
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        found[path.name] = sum(
            len(json.dumps(value))
            for cell in nb.cells
            for key, value in cell.metadata.items()
            if key not in STANDARD_CELL_METADATA
        )
    return found


def test_cell_metadata_stays_small():
    """Code and data hidden in cell metadata escape ruff, review and the tests' imports:
    the chapters together keep at most `CELL_METADATA_LIMIT` characters of it.
    """
    sizes = nonstandard_cell_metadata(NOTEBOOKS)
    assert sum(sizes.values()) <= CELL_METADATA_LIMIT, (
        f"{sum(sizes.values())} characters of non-standard cell metadata: {sizes}"
    )


def test_markdown_pages_hold_no_solutions():
    # The student edition strips solutions from notebooks only.
    for page in PAGES + [ROOT / "intro.md"]:
        assert "{solution" not in page.read_text(), (
            f"{page}: put exercises with solutions in a notebook"
        )


def _public_modules() -> list[str]:
    """The package's public modules and subpackages, by file."""
    package = ROOT / "src" / "attnsig"
    return sorted(
        [p.stem for p in package.glob("*.py") if not p.stem.startswith("_")]
        + [
            p.parent.name
            for p in package.glob("*/__init__.py")
            if not p.parent.name.startswith("_")
        ]
    )


def test_api_reference_covers_every_public_module():
    api = (ROOT / "chapters" / "appendix" / "api.md").read_text()
    modules = _public_modules()
    missing = [m for m in modules if f"automodule:: attnsig.{m}" not in api]
    assert not missing, f"modules missing from the API reference: {missing}"


def test_requirements_are_pinned():
    for name in ("requirements.txt", "requirements-test.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.split("#")[0].strip()
            if line and not line.startswith("-"):
                assert re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[^=\s]+", line), (
                    f"{name}: not pinned exactly: {line}"
                )


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    commands = re.findall(r"^make \w+", readme, flags=re.M)
    assert "make test" in commands and "make book" in commands
    assert re.search(r"^make test$", ci, flags=re.M)


def test_package_lists_every_module():
    import attnsig

    modules = _public_modules()
    assert sorted(attnsig.__all__) == modules
    for name in modules:
        assert f"``attnsig.{name}``" in attnsig.__doc__, (
            f"the package docstring does not describe {name}"
        )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_figures_have_captions_and_alt_text(path):
    for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
        outputs = cell.get("outputs", []) if cell.cell_type == "code" else []
        # A static explorer's PNG is only its fallback for PDF builds; on the page it is
        # the explorer's own <img>, whose alt text static_explorer requires.
        if any(
            "attnsig-explorer" in o.get("data", {}).get("text/html", "")
            for o in outputs
        ):
            continue
        if any("image/png" in o.get("data", {}) for o in outputs):
            meta = cell.get("metadata", {}).get("mystnb", {})
            # A figure inside a solution is not numbered, so that both editions number
            # alike (issue 21): it needs its alt text, not a caption.
            in_solution = "solution" in cell.get("metadata", {}).get("tags", [])
            assert in_solution or meta.get("figure", {}).get("caption"), (
                f"cell {i}: a figure without a caption"
            )
            assert meta.get("image", {}).get("alt"), (
                f"cell {i}: a figure without alt text"
            )


SHEET_CHAPTERS = [
    p for p in NOTEBOOKS if p.parent.name not in {"getting-started", "appendix"}
]


@pytest.mark.parametrize("path", SHEET_CHAPTERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_sheet_chapters_have_what_an_instructor_expects(path):
    nb = nbformat.read(path, as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for needed in (
        "Learning objectives",
        "Estimated time",
        "Prerequisites",
        "Going further",
        "{exercise}",
        "{solution-start}",
    ):
        assert needed.lower() in text.lower(), f"{path.name}: no '{needed}'"
    widget_cells = [
        c
        for c in nb.cells
        if c.cell_type == "code"
        and nbtools.IGNORE_OUTPUT_TAG in c.metadata.get("tags", [])
    ]
    assert widget_cells, f"{path.name}: no ipywidgets explorer"


def test_notebook_check_catches_display_math_glued_to_text():
    glued = [
        "The output row $i$ is\n$$o_i=\\sum_j A_{ij} v_j,$$\na weighted average.",
        "so that\n$$\nx = 1\n$$",
        "```{prf:theorem} T\n:label: thm-t\n\nFor all $s$,\n$$a=b,$$\nholds.\n```",
        "The output row is $$o_i = v_i$$ here.",
        "Also\n\\begin{align}\na &= b\n\\end{align}",
    ]
    for source in glued:
        assert nbtools.glued_math(source), f"not caught: {source!r}"
    separate = [
        "The output row $i$ is\n\n$$o_i=\\sum_j A_{ij} v_j,$$\n\na weighted average.",
        "Text.\n\n$$\nx = 1\n$$ (eq-x)\n\nMore $a$ and $b$.",
        "```{prf:theorem} T\n:label: thm-t\n\n$$a=b$$\n```",
        "```python\nprice = '$$'\n```",
        "Inline $x$ only, and\n\n\\begin{align}\na &= b\n\\end{align}",
    ]
    for source in separate:
        assert not nbtools.glued_math(source), f"false alarm: {source!r}"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(glued[0])])
    assert any("raw TeX" in p for p in nbtools.check(nb, "nb"))


def test_notebook_check_caps_code_cells_unless_tagged():
    def cell(lines, tags=()):
        c = nbformat.v4.new_code_cell("\n".join(f"x{k} = {k}" for k in range(lines)))
        c.execution_count = 1
        if tags:
            c.metadata["tags"] = list(tags)
        return c

    def long_cell_problems(c):
        nb = nbformat.v4.new_notebook(cells=[c])
        return [p for p in nbtools.check(nb, "nb") if "split it" in p]

    assert not long_cell_problems(cell(nbtools.MAX_CELL_LINES))
    assert long_cell_problems(cell(nbtools.MAX_CELL_LINES + 1))
    assert not long_cell_problems(
        cell(nbtools.MAX_CELL_LINES + 1, tags=[nbtools.LONG_CELL_TAG])
    )


def test_tools_import_one_way():
    """No import circle among the maintenance tools (a circle forces lazy imports and
    breaks when a module is split): the graph of `from tools... import` is acyclic.
    """
    import ast

    graph = {}
    for path in sorted((ROOT / "tools").glob("*.py")):
        tree = ast.parse(path.read_text())
        graph[path.stem] = {
            (node.module or "").split(".")[1]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("tools.")
        } | {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "tools"
            for alias in node.names
        }

    def reaches(start, goal, seen=()):
        return any(
            nxt == goal or (nxt not in seen and reaches(nxt, goal, (*seen, nxt)))
            for nxt in graph.get(start, ())
        )

    circles = sorted(name for name in graph if reaches(name, name))
    assert not circles, f"tools in an import circle: {circles}"
