"""Measure the sizes and import circles that issue 23 limits, and check the limits.

    .venv/bin/python benchmarks/sizes.py [--report-only]

Prints a Markdown table, one row per measure, and exits with status 1 when a limit is
exceeded (``--report-only``: always 0). The measures, read from the source without
importing it:

* code lines of ``tools/`` (docstrings, comments and blank lines aside), at most 1,800;
* code lines of ``attnsig.attention.MultiHeadAttention``, counted the same way, at most
  100;
* characters of non-standard cell metadata in the chapter notebooks (keys other than
  nbformat's own and MyST-NB's ``mystnb``), at most 10,000;
* import circles among the modules of ``src/attnsig`` and among those of ``tools/``:
  none.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS_MAX_LINES = 1800
MHA_MAX_LINES = 100
METADATA_MAX_CHARS = 10_000
# Cell metadata keys of nbformat 4.5's schema, and the key of the book's builder
# (MyST-NB's figure captions and alt text). Every other key counts as non-standard.
STANDARD_CELL_KEYS = {
    "collapsed",
    "scrolled",
    "deletable",
    "editable",
    "format",
    "name",
    "tags",
    "jupyter",
    "execution",
    "mystnb",
}
_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
    tokenize.ENCODING,
}


def _docstring_lines(tree: ast.AST) -> set[int]:
    """Line numbers of the docstrings of the module, its classes and functions."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(
            node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def code_lines(source: str, first: int = 1, last: int | None = None) -> int:
    """Lines holding code between ``first`` and ``last`` (1-based, inclusive).

    A line counts when a token other than a comment or a docstring starts or continues
    on it; blank lines, comment lines and docstring lines do not.

    Examples
    --------
    >>> code_lines("def f(x):\\n    'Doc.'\\n\\n    # why\\n    return x\\n")
    2
    """
    docstrings = _docstring_lines(ast.parse(source))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _NOT_CODE:
            continue
        lines.update(range(token.start[0], token.end[0] + 1))
    last = max(lines, default=0) if last is None else last
    return sum(1 for n in lines - docstrings if first <= n <= last)


def tools_code_lines(root: Path = ROOT) -> int:
    """Code lines of every Python file under ``tools/``."""
    paths = sorted((root / "tools").rglob("*.py"))
    return sum(code_lines(p.read_text()) for p in paths)


def class_code_lines(path: Path, name: str) -> int:
    """Code lines of the class ``name`` defined at the top level of ``path``."""
    source = path.read_text()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            return code_lines(source, first, node.end_lineno)
    raise LookupError(f"no class {name} in {path}")


def nonstandard_metadata(root: Path = ROOT) -> dict[str, int]:
    """Characters of non-standard cell metadata per key, over every chapter notebook.

    A key's characters are those of its JSON text ``"key": value``.
    """
    sizes: dict[str, int] = {}
    for path in sorted((root / "chapters").rglob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            for key, value in cell.get("metadata", {}).items():
                if key not in STANDARD_CELL_KEYS:
                    text = json.dumps({key: value}, ensure_ascii=False)
                    sizes[key] = sizes.get(key, 0) + len(text) - 2  # without { }
    return sizes


def _in_type_checking(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def import_graph(directory: Path, package: str) -> dict[str, set[str]]:
    """Who imports whom among the modules of ``directory`` (the package ``package``).

    Every import statement counts, also inside functions, except under
    ``if TYPE_CHECKING:``. Module names are dotted from the package, e.g.
    ``attnsig.recall.model``; a package is named by its ``__init__``.
    """
    modules: dict[str, Path] = {}
    for path in sorted(directory.rglob("*.py")):
        parts = path.relative_to(directory).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join((package, *parts))] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if _in_type_checking(node, parents):
                continue
            for target in _targets(node, name, is_package, set(modules)):
                if target != name:
                    graph[name].add(target)
    return graph


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]
) -> set[str]:
    """The modules of ``known`` that one import statement of ``module`` loads."""
    package = module.split(".")[0]
    if isinstance(node, ast.Import):
        found = {_resolve(alias.name, known, package) for alias in node.names}
        return found - {None}
    if node.level:  # relative: from the package that holds ``module``
        here = module.split(".") if is_package else module.split(".")[:-1]
        stem = ".".join(here[: len(here) - node.level + 1] + [node.module or ""])
        stem = stem.rstrip(".")
    else:
        stem = node.module or ""
    found = set()
    for alias in node.names:  # ``from p import m`` loads the module p.m if there is one
        submodule = f"{stem}.{alias.name}"
        for candidate in (submodule, f"{package}.{submodule}"):
            if candidate in known:
                found.add(candidate)
                break
        else:
            found.add(_resolve(stem, known, package))
    return found - {None}


def _resolve(name: str, known: set[str], package: str) -> str | None:
    """The module of ``known`` (the package ``package``) that importing ``name`` loads.

    A script of ``tools/`` run as ``python tools/x.py`` imports its siblings without
    the package name (``import nbtools``), so ``name`` is also tried under the package.
    """
    if not (name == package or name.startswith(package + ".")):
        if f"{package}.{name.split('.')[0]}" not in known:
            return None  # the standard library or a third-party package
        name = f"{package}.{name}"
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected groups of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def measure(root: Path = ROOT) -> list[tuple[str, object, str, bool]]:
    """Rows (measure, value, limit, within the limit)."""
    tools = tools_code_lines(root)
    mha = class_code_lines(root / "src/attnsig/attention.py", "MultiHeadAttention")
    metadata = nonstandard_metadata(root)
    total = sum(metadata.values())
    by_key = ", ".join(f"{k}: {v:,}" for k, v in sorted(metadata.items())) or "none"
    src_circles = circles(import_graph(root / "src/attnsig", "attnsig"))
    tools_circles = circles(import_graph(root / "tools", "tools"))

    def show(groups: list[list[str]]) -> str:
        return "; ".join(" <-> ".join(g) for g in groups) or "none"

    return [
        ("tools/ code lines", f"{tools:,}", f"<= {TOOLS_MAX_LINES:,}", tools <= 1800),
        ("MultiHeadAttention code lines", mha, f"<= {MHA_MAX_LINES}", mha <= 100),
        (
            f"non-standard cell metadata, characters ({by_key})",
            f"{total:,}",
            f"<= {METADATA_MAX_CHARS:,}",
            total <= METADATA_MAX_CHARS,
        ),
        ("import circles in src/attnsig", show(src_circles), "none", not src_circles),
        ("import circles in tools/", show(tools_circles), "none", not tools_circles),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="print the table and exit 0 even when a limit is exceeded",
    )
    args = parser.parse_args(argv)
    rows = measure()
    print("| measure | value | limit | ok |")
    print("| --- | --- | --- | --- |")
    for name, value, limit, ok in rows:
        print(f"| {name} | {value} | {limit} | {'yes' if ok else 'NO'} |")
    exceeded = [name for name, _, _, ok in rows if not ok]
    if exceeded:
        print(f"\nOver the limit: {', '.join(exceeded)}")
    return 0 if args.report_only or not exceeded else 1


if __name__ == "__main__":
    sys.exit(main())
