"""The student edition: the book and its notebooks with every solution removed.

    python tools/student_edition.py build   # _build/student/html and _build/student/notebooks
    python tools/student_edition.py check   # fail if any solution text reached the student edition

Solutions are gated `{solution-start}` ... `{solution-end}` cell ranges, every cell of which carries
the tag `solution` (CONTRIBUTING.md). Removing the tagged cells removes the solutions; the edition is
then built from the stored outputs (already checked by nbval), with `hide_solutions: true`, without
copies of the sources and without download or launch buttons, which would hand out the full notebooks.

`sphinx-exercise` 1.2.1 cannot itself hide gated solutions (it crashes on `solution_end_node` and would
leave the gated code visible), hence the removal at the notebook level.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbtools import SOLUTION_TAG, solution_flags  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "student"
SOURCE = OUT / "source"
HTML = OUT / "html"
NOTEBOOKS = OUT / "notebooks"
FULL_HTML = ROOT / "_build" / "html"


def chapter_notebooks(root: Path = ROOT) -> list[Path]:
    """The notebooks that the table of contents puts in the book."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    entries = [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return [root / f"{e}.ipynb" for e in entries if (root / f"{e}.ipynb").exists()]


def strip_solutions(nb) -> tuple[object, list]:
    """Return the notebook without its solution cells, and the removed cells."""
    flags = solution_flags(nb)
    kept, removed = [], []
    for cell, in_solution in zip(nb.cells, flags):
        tagged = SOLUTION_TAG in cell.get("metadata", {}).get("tags", [])
        (removed if (in_solution or tagged) else kept).append(cell)
    nb.cells = kept
    return nb, removed


_LABEL = re.compile(r"^:label:\s*(\S+)|^\(([^)\s]+)\)=|^\s*:name:\s*(\S+)|\"name\":\s*\"([^\"]+)\"", re.M)
_ROLE = re.compile(r"\{(?:prf:ref|ref|numref|eq)\}`(?:[^`<]*<)?([^`<>]+)>?`")
HIDDEN_REFERENCE = "*(a result shown in the solutions, which this edition leaves out)*"


def labels_defined(cells) -> set[str]:
    """Labels, targets and figure names that the given cells define."""
    found: set[str] = set()
    for cell in cells:
        for match in _LABEL.finditer(cell.source):
            found.add(next(g for g in match.groups() if g))
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
        if figure.get("name"):
            found.add(figure["name"])
    return found


def unlink_hidden(text: str, hidden: set[str]) -> str:
    """Replace references to labels that the student edition removed by a plain phrase."""
    return _ROLE.sub(lambda m: HIDDEN_REFERENCE if m.group(1).strip() in hidden else m.group(0), text)


def student_config(config: dict) -> dict:
    config = dict(config)
    config["title"] = config.get("title", "") + " (student edition)"
    # nbval has checked that the stored outputs are what the code computes; render them.
    config["execute"] = dict(config.get("execute", {}), execute_notebooks="off")
    config.pop("launch_buttons", None)
    config["html"] = dict(config.get("html", {}), use_repository_button=False)
    sphinx = dict(config.get("sphinx", {}))
    sphinx_config = dict(sphinx.get("config", {}))
    sphinx_config.update({
        "hide_solutions": True,
        "html_copy_source": False,
        "html_show_sourcelink": False,
        "html_theme_options": {"use_download_button": False, "use_repository_button": False,
                               "use_fullscreen_button": True, "launch_buttons": {}},
    })
    sphinx["config"] = sphinx_config
    config["sphinx"] = sphinx
    return config


def build() -> int:
    if OUT.exists():
        shutil.rmtree(OUT)
    SOURCE.mkdir(parents=True)
    for name in ("_toc.yml", "intro.md"):
        shutil.copy(ROOT / name, SOURCE / name)
    shutil.copytree(ROOT / "chapters", SOURCE / "chapters", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    (SOURCE / "_config.yml").write_text(yaml.safe_dump(student_config(config), sort_keys=False))
    stripped, hidden = {}, set()
    for path in chapter_notebooks(SOURCE):
        nb, removed = strip_solutions(nbformat.read(path, as_version=4))
        stripped[path] = nb
        hidden |= labels_defined(removed)
    # A reference from the text to a theorem or figure inside a solution would dangle.
    for path, nb in stripped.items():
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = unlink_hidden(cell.source, hidden)
    for page in sorted((SOURCE / "chapters").rglob("*.md")) + [SOURCE / "intro.md"]:
        page.write_text(unlink_hidden(page.read_text(), hidden))
    for path, nb in stripped.items():
        nbformat.write(nb, path)
        target = NOTEBOOKS / path.relative_to(SOURCE / "chapters")
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
    jb = Path(sys.executable).parent / "jupyter-book"
    result = subprocess.run([str(jb), "build", str(SOURCE), "-W", "-n", "--keep-going"])
    if result.returncode:
        return result.returncode
    shutil.move(str(SOURCE / "_build" / "html"), str(HTML))
    print(f"Student edition: {HTML / 'index.html'}\nStudent notebooks: {NOTEBOOKS}")
    return 0


_MARKUP = re.compile(r"\$[^$]*\$|`[^`]*`|\{[^}]*\}|[*_#>|\[\]()]")


def fingerprints(cells) -> set[str]:
    """Distinctive runs of text of solution cells, as a reader would see them rendered."""
    found: set[str] = set()
    for cell in cells:
        if cell.cell_type == "code":
            runs = [ln.strip() for ln in cell.source.splitlines()]
            runs = [r for r in runs if len(r) >= 30 and not r.startswith("#")]
        else:
            if "{solution-start}" in cell.source or "{solution-end}" in cell.source:
                continue
            text = _MARKUP.sub("\n", cell.source)
            runs = [" ".join(r.split()) for r in re.split(r"[\n.:;]", text)]
            runs = [r for r in runs if len(r) >= 40]
        found.update(runs)
    return found


def visible_text(path: Path) -> str:
    text = re.sub(r"<script.*?</script>|<style.*?</style>", " ", path.read_text(errors="replace"), flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return " ".join(text.split())


def check() -> int:
    problems: list[str] = []
    if not HTML.exists():
        print(f"no student edition at {HTML}; run `python tools/student_edition.py build` first")
        return 1
    solution_runs: set[str] = set()
    public_runs: set[str] = set()
    for path in chapter_notebooks():
        nb, removed = strip_solutions(nbformat.read(path, as_version=4))
        solution_runs |= fingerprints(removed)
        public_runs |= fingerprints(nb.cells)
    solution_runs -= public_runs  # a sentence that also stands outside a solution is not a leak
    # Nor is one that the package's docstrings or the plain pages say too (the API page shows them).
    elsewhere = " ".join(" ".join(p.read_text().split()) for p in
                         [*(ROOT / "src").rglob("*.py"), *(ROOT / "chapters").rglob("*.md"), ROOT / "intro.md"])
    solution_runs = {run for run in solution_runs if run not in elsewhere}
    pages = sorted(HTML.rglob("*.html"))
    student_text = {p: visible_text(p) for p in pages}
    for page, text in student_text.items():
        if 'class="solution' in page.read_text(errors="replace"):
            problems.append(f"{page.relative_to(HTML)}: holds a solution element")
        for run in solution_runs:
            if run in text:
                problems.append(f"{page.relative_to(HTML)}: shows solution text {run[:60]!r}")
    for pattern in ("_sources", "*.ipynb"):
        for leaked in HTML.rglob(pattern):
            problems.append(f"{leaked.relative_to(HTML)}: the student edition must not ship sources")
    for path in sorted(NOTEBOOKS.rglob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if any(SOLUTION_TAG in c.get("metadata", {}).get("tags", []) for c in nb.cells):
            problems.append(f"{path.relative_to(OUT)}: student notebook still holds solution cells")
    # The check must be able to fail: the full edition, when built, shows the same solution text.
    if FULL_HTML.exists() and solution_runs:
        full_text = " ".join(visible_text(p) for p in FULL_HTML.rglob("*.html"))
        seen = sum(run in full_text for run in solution_runs)
        if seen < len(solution_runs) // 2:
            problems.append(f"only {seen} of {len(solution_runs)} solution fingerprints appear in the full "
                            "edition: the fingerprints no longer match rendered text, so this check is blind")
        print(f"{seen} of {len(solution_runs)} solution fingerprints found in the full edition, "
              f"0 allowed in the student edition")
    for p in problems:
        print(p)
    print(f"student edition check: {len(pages)} pages, {len(solution_runs)} solution fingerprints, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    commands = {"build": build, "check": check}
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        print(__doc__)
        sys.exit(2)
    sys.exit(commands[sys.argv[1]]())
