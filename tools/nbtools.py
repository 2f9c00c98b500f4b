"""Maintenance of the chapter notebooks.

    python tools/nbtools.py fix NOTEBOOK...      refresh the set-up cell, tag solutions
    python tools/nbtools.py execute NOTEBOOK...  fix, then execute in place (outputs)
    python tools/nbtools.py check NOTEBOOK...    report convention violations (exit 1)

The conventions are those of CONTRIBUTING.md; `tests/test_book.py` runs `check` on every
chapter.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import nbformat
import yaml

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
    first_code = next(
        (i for i, c in enumerate(nb.cells) if c.cell_type == "code"), None
    )
    if first_code is not None and is_setup_cell(nb.cells[first_code]):
        cell = nb.cells[first_code]
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
    nb.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
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


_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*(\{[^}]*\})?")
_VERBATIM = {"{code-cell}", "{code-block}", "{code}", "{math}", "{raw}", "{eval-rst}"}
_BEGIN = re.compile(r"^\s*\\begin\{([A-Za-z*]+)\}")
_GLUED = "right after a line of text: leave a blank line before it"
_TEXT_BEFORE = "text before `$$` on its line: put the display on lines of its own"
_TEXT_AFTER = "text after the closing `$$` on its line: start a new paragraph"


def glued_math(source: str) -> list[tuple[int, str]]:
    """Display math that MyST cannot parse because it is glued to text: (line, message).

    A `$$` block (or an amsmath `\\begin{...}` environment) starts only after a blank
    line. Glued to the line of text above it, or with text before it on its line, it
    stays inside the paragraph and the reader sees raw TeX (and run-together italics)
    instead of an equation. Code fences are skipped; directive bodies (theorems,
    admonitions) are checked.
    """
    problems: list[tuple[int, str]] = []
    lines = source.splitlines()
    fence: str | None = None  # inside a code fence: its marker
    environment: str | None = None  # inside an amsmath environment: its name
    in_math = False  # inside a $$ block
    previous = ""
    for number, line in enumerate(lines, start=1):
        if fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip("`~"):
                fence = None
            previous = ""
            continue
        fenced = _FENCE.match(line)
        if fenced and not in_math and environment is None:
            if fenced.group(2) is None or fenced.group(2) in _VERBATIM:
                fence = fenced.group(1)
            previous = ""  # a directive's first line is not text
            continue
        # Directive options (":label: ...") are not text either.
        glued = bool(previous.strip()) and not previous.lstrip().startswith(":")
        previous = line
        if environment is not None:
            if f"\\end{{{environment}}}" in line:
                environment = None
            continue
        begin = None if in_math else _BEGIN.match(line)
        if begin:
            if glued:
                problems.append((number, f"\\begin{{{begin.group(1)}}} {_GLUED}"))
            if f"\\end{{{begin.group(1)}}}" not in line:
                environment = begin.group(1)
            continue
        # Inline code shows its text as typed (a sheet's raw TeX, say): no math there.
        line = re.sub(r"`[^`]*`", lambda m: " " * len(m.group()), line)
        count = line.count("$$")
        if not count:
            continue
        first = line.index("$$")
        if not in_math:
            if line[:first].strip():
                problems.append((number, _TEXT_BEFORE))
            elif glued:
                problems.append((number, f"`$$` block {_GLUED}"))
        if count % 2:
            in_math = not in_math
        after = line[line.rindex("$$") + 2 :].strip()
        label = re.fullmatch(r"\([^()\s]+\)", after)
        if not in_math and after and not label and (count > 1 or first):
            problems.append((number, _TEXT_AFTER))
    if in_math:
        problems.append((len(lines), "a `$$` block is never closed"))
    return problems


def check(nb, name: str = "notebook") -> list[str]:
    """Convention violations of one notebook, as readable messages."""
    problems: list[str] = []
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    if (
        not code_cells
        or not is_setup_cell(code_cells[0])
        or code_cells[0].source != SETUP_SOURCE
    ):
        problems.append(
            f"{name}: first code cell is not the set-up cell (run tools/nbtools.py fix)"
        )
    flags = solution_flags(nb)
    starts = sum(
        1 for c in nb.cells if c.cell_type == "markdown" and _START.search(c.source)
    )
    ends = sum(
        1 for c in nb.cells if c.cell_type == "markdown" and _END.search(c.source)
    )
    if starts != ends:
        problems.append(
            f"{name}: {starts} solution-start cells but {ends} solution-end cells"
        )
    for i, (cell, in_solution) in enumerate(zip(nb.cells, flags, strict=True)):
        tagged = SOLUTION_TAG in _tags(cell)
        if in_solution != tagged:
            problems.append(
                f"{name}: cell {i} {'lacks' if in_solution else 'wrongly has'} the tag "
                f"'{SOLUTION_TAG}' (run tools/nbtools.py fix)"
            )
        if cell.cell_type == "markdown" and re.search(r"```+\{solution\}", cell.source):
            problems.append(
                f"{name}: cell {i} uses an ungated {{solution}}; use solution-start/end"
            )
        if cell.cell_type == "markdown":
            for line, message in glued_math(cell.source):
                problems.append(
                    f"{name}: cell {i}, line {line}: {message} (it renders as raw TeX)"
                )
        if cell.cell_type == "code":
            if cell.source.strip() and cell.get("execution_count") is None:
                problems.append(f"{name}: code cell {i} has no stored execution")
            lines = sum(1 for line in cell.source.splitlines() if line.strip())
            if lines > MAX_CELL_LINES and LONG_CELL_TAG not in _tags(cell):
                problems.append(
                    f"{name}: code cell {i} has {lines} lines; split it (at most "
                    f"{MAX_CELL_LINES}, or tag it '{LONG_CELL_TAG}')"
                )
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    problems.append(f"{name}: code cell {i} stores an error")
    # Names first defined inside a solution must not be used by later cells outside
    # solutions.
    defined_outside: set[str] = set()
    solution_only: dict[str, int] = {}
    for i, (cell, in_solution) in enumerate(zip(nb.cells, flags, strict=True)):
        if cell.cell_type != "code":
            continue
        tree = _parse(cell.source)
        if tree is None:
            problems.append(f"{name}: code cell {i} does not parse as Python")
            continue
        if in_solution:
            for n in _assigned_names(tree) - defined_outside:
                solution_only.setdefault(n, i)
        else:
            used = _loaded_names(tree) - _assigned_names(tree)
            for n in sorted(used & set(solution_only)):
                problems.append(
                    f"{name}: cell {i} uses '{n}', defined only in the solution at "
                    "cell "
                    f"{solution_only[n]}; the student notebook would fail"
                )
            defined_outside |= _assigned_names(tree)
            for n in _assigned_names(tree):
                solution_only.pop(n, None)
    return problems


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


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in {"fix", "execute", "check"}:
        print(__doc__)
        return 2
    command, paths = argv[0], [Path(p) for p in argv[1:]]
    status = 0
    for path in paths:
        if command == "execute":
            execute(path)
            print(f"executed {path}")
        else:
            nb = nbformat.read(path, as_version=4)
            if command == "fix":
                fix(nb)
                nbformat.write(nb, path)
                print(f"fixed {path}")
            else:
                problems = check(nb, str(path))
                for p in problems:
                    print(p)
                status |= bool(problems)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
