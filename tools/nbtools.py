"""Maintenance of the chapter notebooks.

    python tools/nbtools.py fix NOTEBOOK...      refresh the set-up cell, tag solutions
    python tools/nbtools.py execute NOTEBOOK...  fix, then execute in place (outputs)
    python tools/nbtools.py check NOTEBOOK...    report convention violations (exit 1)

The conventions are those of CONTRIBUTING.md; `tests/test_book.py` runs `check` on every
chapter.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

import nbformat
import yaml
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

ROOT = Path(__file__).resolve().parents[1]


def repository_url(root: Path = ROOT) -> str:
    """The book's repository: `repository.url` in `_config.yml`, its one setting.

    The launch buttons (Jupyter Book reads the same key) and the set-up cell derive
    from it; a fork changes that line and runs `make setup-cells`, which runs
    `tools/nbtools.py fix` on the chapters.
    """
    config = yaml.safe_load((root / "_config.yml").read_text())
    return str(config["repository"]["url"]).rstrip("/")


def book_version(root: Path = ROOT) -> str:
    """The one version number of the package and the book (`attnsig.__version__`)."""
    text = (root / "src" / "attnsig" / "__init__.py").read_text()
    match = re.search(r"^__version__\s*=\s*[\"']([^\"']+)[\"']", text, flags=re.M)
    if match is None:
        raise ValueError("src/attnsig/__init__.py defines no __version__ string")
    return match.group(1)


_SETUP_TEMPLATE = """\
# Set-up for Colab: install the companion package `attnsig` when it is missing.
try:
    import attnsig  # noqa: F401
except ImportError:  # a fresh Colab runtime: the package of this edition of the book
    %pip install --quiet "attnsig @ git+{url}@v{version}\""""


def setup_source(url: str, version: str) -> str:
    """The set-up cell: on Colab, install `attnsig` at this edition's release tag."""
    return _SETUP_TEMPLATE.format(url=url, version=version)


REPO_URL = repository_url()
SETUP_SOURCE = setup_source(REPO_URL, book_version())

SETUP_TAGS = ["remove-cell"]
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
SOLUTION_TAG = "solution"
IGNORE_OUTPUT_TAG = "nbval-ignore-output"
# One idea per code cell: at most this many non-blank lines, unless the cell is tagged
# LONG_CELL_TAG (for the rare table or construction that reads better whole).
MAX_CELL_LINES = 30
LONG_CELL_TAG = "long-cell"

_START = re.compile(r"```+\{solution-start\}")
_END = re.compile(r"```+\{solution-end\}")


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _set_tags(cell, tags: list[str]) -> None:
    if tags:
        cell.setdefault("metadata", {})["tags"] = tags
    else:
        cell.get("metadata", {}).pop("tags", None)


def solution_flags(nb) -> list[bool]:
    """For each cell, whether it lies in a gated solution (start and end cells too)."""
    flags, inside = [], False
    for cell in nb.cells:
        src = cell.source if cell.cell_type == "markdown" else ""
        if _START.search(src):
            inside = True
        flags.append(inside)
        if _END.search(src):
            inside = False
    return flags


def is_setup_cell(cell) -> bool:
    return cell.cell_type == "code" and cell.source.startswith("# Set-up for Colab")


def fix(nb) -> None:
    """Insert or refresh the set-up cell and tag every cell of a gated solution."""
    cell = next((c for c in nb.cells if c.cell_type == "code"), None)
    if cell is not None and is_setup_cell(cell):
        cell.source = SETUP_SOURCE
    else:
        cell = nbformat.v4.new_code_cell(SETUP_SOURCE)
        # After the title cell, so the notebook still opens with its title.
        position = 1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0
        nb.cells.insert(position, cell)
    _set_tags(cell, sorted(set(_tags(cell)) | set(SETUP_TAGS)))
    for cell, in_solution in zip(nb.cells, solution_flags(nb), strict=True):
        tags = [t for t in _tags(cell) if t != SOLUTION_TAG]
        if in_solution:
            tags.append(SOLUTION_TAG)
        _set_tags(cell, tags)
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata.setdefault("language_info", {"name": "python"})
    # Live explorers run only with a kernel; their stored widget state would only add
    # JSON to the page (no widget scripts are loaded to show it).
    nb.metadata.pop("widgets", None)


def _assigned_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return names


def _loaded_names(tree: ast.AST) -> set[str]:
    return {
        n.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def _parse(source: str) -> ast.AST | None:
    # IPython magics are not Python; blank them out before parsing.
    lines = [
        ln[: len(ln) - len(ln.lstrip())] + "pass"
        if ln.lstrip().startswith(("%", "!"))
        else ln
        for ln in source.splitlines()
    ]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


# The book's own Markdown parser (myst-parser on markdown-it-py), with its math syntax.
_MD = create_md_parser(
    MdParserConfig(enable_extensions={"amsmath", "dollarmath", "colon_fence"}),
    RendererHTML,
)
_VERBATIM = {"{code-cell}", "{code-block}", "{code}", "{math}", "{raw}", "{eval-rst}"}
_OPTIONS = re.compile(r"(?:[ \t]*:[\w-]+:[^\n]*\n)*")
_IN_PARAGRAPH = "`$$` inside a paragraph: put the display on lines of its own"
_GLUED = "\\begin{...} right after a line of text: leave a blank line before it"


def glued_math(source: str, offset: int = 0) -> list[tuple[int, str]]:
    """Display math that MyST cannot parse because it is glued to text: (line, message).

    A `$$` block starts only after a blank line and ends its line: glued to the text
    around it, it stays inside the paragraph, where MyST's parser leaves a stray `$`,
    and the reader sees raw TeX (and run-together italics) instead of an equation. An
    amsmath `\\begin{...}` environment needs a blank line before it too. Code fences
    and inline code are skipped; directive bodies (theorems, admonitions) are checked.
    """
    problems = []
    lines = source.splitlines()
    for token in _MD.parse(source):
        start = token.map[0] if token.map else 0
        if token.type in ("fence", "colon_fence") and token.info.startswith("{"):
            if token.info.split()[0] not in _VERBATIM:
                options = _OPTIONS.match(token.content).group()
                body = token.content[len(options) :]
                problems += glued_math(body, offset + start + 1 + options.count("\n"))
        elif token.type == "amsmath" and start and lines[start - 1].strip():
            problems.append((offset + start + 1, _GLUED))
        elif token.type == "inline" and any(
            c.type == "text" and "$" in c.content for c in token.children
        ):
            problems.append((offset + start + 1, _IN_PARAGRAPH))
    return problems


def check(nb, name: str = "notebook") -> list[str]:
    """Convention violations of one notebook, as readable messages."""
    found: list[str] = []  # each message without the notebook's name
    fix_it = "(run tools/nbtools.py fix)"
    first_code = next((c for c in nb.cells if c.cell_type == "code"), None)
    if first_code is None or first_code.source != SETUP_SOURCE:
        found.append(f"first code cell is not the set-up cell {fix_it}")
    flags = solution_flags(nb)
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    starts = sum(1 for text in markdown if _START.search(text))
    ends = sum(1 for text in markdown if _END.search(text))
    if starts != ends:
        found.append(f"{starts} solution-start cells but {ends} solution-end cells")
    for i, (cell, in_solution) in enumerate(zip(nb.cells, flags, strict=True)):
        if in_solution != (SOLUTION_TAG in _tags(cell)):
            verb = "lacks" if in_solution else "wrongly has"
            found.append(f"cell {i} {verb} the tag '{SOLUTION_TAG}' {fix_it}")
        if cell.cell_type == "markdown":
            if re.search(r"```+\{solution\}", cell.source):
                found.append(
                    f"cell {i} uses an ungated {{solution}}; use solution-start/end"
                )
            for line, message in glued_math(cell.source):
                found.append(
                    f"cell {i}, line {line}: {message} (it renders as raw TeX)"
                )
            continue
        if cell.source.strip() and cell.get("execution_count") is None:
            found.append(f"code cell {i} has no stored execution")
        lines = sum(1 for line in cell.source.splitlines() if line.strip())
        if lines > MAX_CELL_LINES and LONG_CELL_TAG not in _tags(cell):
            found.append(
                f"code cell {i} has {lines} lines; split it (at most "
                f"{MAX_CELL_LINES}, or tag it '{LONG_CELL_TAG}')"
            )
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append(f"code cell {i} stores an error")
    # Names first defined inside a solution must not be used by later cells outside
    # solutions.
    defined_outside: set[str] = set()
    solution_only: dict[str, int] = {}
    for i, (cell, in_solution) in enumerate(zip(nb.cells, flags, strict=True)):
        tree = _parse(cell.source) if cell.cell_type == "code" else None
        if cell.cell_type == "code" and tree is None:
            found.append(f"code cell {i} does not parse as Python")
        if tree is None:
            continue
        assigned = _assigned_names(tree)
        if in_solution:
            for n in assigned - defined_outside:
                solution_only.setdefault(n, i)
            continue
        for n in sorted((_loaded_names(tree) - assigned) & set(solution_only)):
            found.append(
                f"cell {i} uses '{n}', defined only in the solution at cell "
                f"{solution_only[n]}; the student notebook would fail"
            )
        defined_outside |= assigned
        for n in assigned:
            solution_only.pop(n, None)
    return [f"{name}: {message}" for message in found]


def execute(path: Path, timeout: int = 600) -> None:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    fix(nb)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    # nbclient 0.11 cannot run Output widgets with store_widget_state=False: let it
    # store the state, then drop it as fix() does.
    client.execute()
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["fix", "execute", "check"])
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    status = 0
    for path in args.notebooks:
        if args.command == "execute":
            execute(path)
            print(f"executed {path}")
            continue
        nb = nbformat.read(path, as_version=4)
        if args.command == "fix":
            fix(nb)
            nbformat.write(nb, path)
            print(f"fixed {path}")
            continue
        problems = check(nb, str(path))
        print(*problems, sep="\n", end="\n" if problems else "")
        status |= bool(problems)
    return status


if __name__ == "__main__":
    sys.exit(main())
