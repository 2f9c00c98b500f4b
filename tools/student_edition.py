"""The student edition: the book and its notebooks with every solution removed.

    python -m tools.student_edition build      # _build/student/: html, notebooks, zip
    python -m tools.student_edition check      # solution text, numbers, references
    python -m tools.student_edition giveaways  # key results shown outside a solution
    python -m tools.student_edition guide      # the exercise map of the guide
    python -m tools.student_edition pdf        # both editions as PDF, in _build/pdf

`check` needs both editions built; `pdf` needs TeX.

Run from the repository root. Solutions are gated `{solution-start}` ...
`{solution-end}` cell ranges, every cell of which carries the tag `solution`
(CONTRIBUTING.md). The student edition replaces each solution by a placeholder cell
that keeps every numbered object of the solution (theorem, figure, equation, target)
under its label, so that theorems, figures, equations and exercises carry the same
numbers in both editions, and a reference into a solution ("By Theorem 12.2, ...")
reads the same. The edition is built from the stored outputs (already checked by
nbval). Its sources are the stripped notebooks, so the download button hands out
student notebooks, and its launch buttons point to the `student` branch, which the
publishing workflow fills with `_build/student/notebooks/` (the layout of the
repository: `chapters/<part>/<chapter>.ipynb`).

`sphinx-exercise` 1.2.1 cannot itself hide gated solutions (it crashes on
`solution_end_node` and would leave the gated code visible), hence the removal at the
notebook level.
"""

from __future__ import annotations

import argparse
import ast
import html
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

from tools import book
from tools.book import ROOT, STUDENT_BRANCH, chapter_notebooks, figure_options
from tools.handout import handout_copy, myst_left
from tools.nbtools import SOLUTION_TAG, _parse, is_setup_cell
from tools.questions import how_graded

OUT = ROOT / "_build" / "student"
SOURCE = OUT / "source"
HTML = OUT / "html"
NOTEBOOKS = OUT / "notebooks"
ARCHIVE = "student-notebooks.zip"
ARCHIVE_FOLDER = Path("attnsig-student-notebooks")
STUDENT_REQUIREMENTS = ROOT / "student" / "requirements.txt"
FULL_HTML = ROOT / "_build" / "html"
FULL_DOCTREES = ROOT / "_build" / ".doctrees"
STUDENT_DOCTREES = SOURCE / "_build" / ".doctrees"
PDF = ROOT / "_build" / "pdf"
# Pages with a version written for students, swapped in by the student build.
STUDENT_PAGES = {
    "intro.md": "student/intro.md",
    "chapters/getting-started/how-to-use.md": "student/how-to-use.md",
}
# The picture of a figure drawn in a solution: a blank panel that says so.
PLACEHOLDER_IMAGE = "_static/solution-figure.png"
PLACEHOLDER_TAG = "solution-placeholder"
GUIDE = ROOT / "chapters" / "appendix" / "instructors-guide.md"
EXERCISE_MAP = ROOT / "tools" / "exercise_map.yml"


# --- Solutions and what they number
# ---------------------------------------------------------------


def strip_solutions(nb) -> tuple[object, list]:
    """Return the notebook without its solution cells, and the removed cells."""
    kept, removed = [], []
    for cell, inside in zip(nb.cells, book.in_solution(nb), strict=True):
        (removed if inside else kept).append(cell)
    nb.cells = kept
    return nb, removed


_PROVED = {"theorem", "lemma", "proposition", "corollary", "conjecture", "property"}
_PROVED |= {"claim", "criterion"}
# What stands for each kind of numbered object of a removed solution; any other kind
# is a numbered table.
_PLACEHOLDERS = {
    "prf": "```{{{kind}}} {title}\n{label}\nIts statement and proof are part of "
    "{where}.\n```",
    "figure": "```{{figure}} /{image}\n{name}:alt: A blank panel: this figure is "
    "drawn in a solution.\n:width: 320px\n\nDrawn in {where}.\n```",
    "equation": "$$\n\\text{{(an equation of the solutions)}}\n$$ ({id})",
    "math": "```{{math}}\n{label}\n\\text{{(an equation of the solutions)}}\n```",
    "target": "({id})=\n\nThis part of the book is in {where}.",
    "exercise": "```{{exercise}} in the solutions\n{label}\nThis exercise is posed "
    "in {where}.\n```",
    "table": "```{{list-table}} In {where}.\n{name}\n* - (left out)\n```",
}


def placeholder_source(objects: list[book.Numbered], exercise: str) -> str:
    """Markdown that numbers the objects of a removed solution as the solution did.

    A theorem becomes "Theorem 4.1 (proved in the solutions)", a figure a numbered
    picture that says where it is drawn, an equation a numbered line: references into
    the solution keep their text.
    """
    where = f"the solution of {{ref}}`{exercise}`" if exercise else "the solutions"
    parts = []
    for obj in objects:
        kind = "prf" if obj.kind.startswith("prf:") else obj.kind
        proved = obj.kind.split(":", 1)[-1] in _PROVED
        fields = {
            "kind": obj.kind,
            "id": obj.label,
            "where": where,
            "image": PLACEHOLDER_IMAGE,
            "title": "proved in the solutions" if proved else "in the solutions",
            "label": f":label: {obj.label}\n" if obj.label else "",
            "name": f":name: {obj.label}\n" if obj.label else "",
        }
        parts.append(_PLACEHOLDERS.get(kind, _PLACEHOLDERS["table"]).format(**fields))
    return "\n\n".join(parts)


def student_notebook(nb):
    """The student notebook: solutions replaced by placeholders.

    A placeholder keeps the numbered objects of its solution.

    Returns the notebook (modified in place) and, per exercise label, the removed cells.
    """
    cells, removed, previous = [], {}, 0
    for start, stop, exercise in book.solution_blocks(nb):
        cells += nb.cells[previous:start]
        block = nb.cells[start:stop]
        removed.setdefault(exercise, []).extend(block)
        objects = book.numbered_objects(block)
        if objects:
            cell = nbformat.v4.new_markdown_cell(placeholder_source(objects, exercise))
            cell.metadata["tags"] = [PLACEHOLDER_TAG]
            cells.append(cell)
        previous = stop
    nb.cells = cells + nb.cells[previous:]
    return nb, removed


_LABEL = re.compile(
    r"^:label:\s*(\S+)|^\(([^)\s]+)\)=|^\s*:name:\s*(\S+)|\"name\":\s*\"([^\"]+)\"",
    re.M,
)
_ROLE = re.compile(r"\{(prf:ref|ref|numref|eq)\}`([^`<]*<)?([^`<>]+)>?`")


def labels_defined(cells) -> set[str]:
    """Labels, targets and figure names that the given cells define."""
    found: set[str] = set()
    for cell in cells:
        for match in _LABEL.finditer(cell.source):
            found.add(next(g for g in match.groups() if g))
        found |= {m.group(1) for m in book._EQUATION.finditer(cell.source)}
        if figure_options(cell).get("name"):
            found.add(figure_options(cell)["name"])
    return found


def references(text: str) -> list[tuple[str, str]]:
    """(role, label) of every cross-reference in a text."""
    return [(m.group(1), m.group(3).strip()) for m in _ROLE.finditer(text)]


def unlink_hidden(text: str, hidden: set[str]) -> str:
    """Replace references to labels that no longer exist by their text or a noun phrase.

    The build keeps every label of a solution through a placeholder, so this only
    matters for a kind of object that `placeholder_source` does not know; the
    replacement still reads as a noun.
    """

    def replace(m: re.Match) -> str:
        if m.group(3).strip() not in hidden:
            return m.group(0)
        return (m.group(2) or "a result proved in the solutions<")[:-1].strip()

    return _ROLE.sub(replace, text)


# --- The build
# --------------------------------------------------------------------------------------


def student_config(config: dict) -> dict:
    config = dict(config)

    def merge(key: str, **values) -> dict:
        config[key] = dict(config.get(key, {}), **values)
        return config[key]

    config["title"] = config.get("title", "") + " (student edition)"
    # nbval has checked that the stored outputs are what the code computes; render them.
    merge("execute", execute_notebooks="off")
    # Launch buttons open the student notebooks, which the publishing workflow writes to
    # this branch.
    merge("repository", branch=STUDENT_BRANCH, path_to_book="")
    # The repository button would open the default branch, with the solutions.
    buttons = ("repository", "edit_page", "issues")
    merge("html", **{f"use_{b}_button": False for b in buttons})
    latex = merge("latex")
    documents = dict(latex.get("latex_documents", {}))
    target = Path(documents.get("targetname", "book.tex")).stem
    latex["latex_documents"] = dict(documents, targetname=target + "-student.tex")
    sphinx = merge("sphinx")
    sphinx["config"] = dict(
        sphinx.get("config", {}), hide_solutions=True, html_show_sourcelink=False
    )
    return config


def package_wheel(target: Path, root: Path = ROOT) -> Path:
    """A wheel of `attnsig` built from `root` into `target` (pip, no dependencies).

    Built from a copy of the package's files, so that no `build/` folder is left in the
    checkout, and without build isolation: setuptools and wheel are pinned in the
    environment, and the build needs no network.
    """
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "attnsig"
        ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
        shutil.copytree(root / "src", copy / "src", ignore=ignore)
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            shutil.copy(root / name, copy / name)
        target.mkdir(parents=True, exist_ok=True)
        pip = "-m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir".split()
        subprocess.run([sys.executable, *pip, str(target), str(copy)], check=True)
    return max(target.glob("attnsig-*.whl"), key=lambda p: p.stat().st_mtime)


def archive_requirements(wheel: str) -> str:
    """The zip's requirements.txt: a Jupyter front end, the pinned scientific stack
    (student/requirements.txt), `attnsig` from the wheel beside it, everything else
    at the versions of the constraints file beside it.
    """
    pinned = STUDENT_REQUIREMENTS.read_text().splitlines()
    lines = [
        "# Install from this folder (the wheel's path is relative to it):",
        "#   python -m venv .venv",
        "#   .venv/bin/python -m pip install -r requirements.txt",
        "#   .venv/bin/jupyter lab",
        *[ln for ln in pinned if ln.strip() and not ln.startswith("#")],
        f"./{wheel}",
        "-c constraints.txt",
    ]
    return "\n".join(lines) + "\n"


def write_archive(notebooks: Path, archive: Path) -> None:
    """One zip of every student notebook, in the repository's layout, with what a
    student installs to run them: requirements.txt, constraints.txt and the wheel of
    `attnsig` (`archive_requirements`).
    """
    with tempfile.TemporaryDirectory() as tmp:
        wheel = package_wheel(Path(tmp))
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(notebooks.rglob("*.ipynb")):
                zf.write(path, ARCHIVE_FOLDER / path.relative_to(notebooks))
            zf.write(wheel, ARCHIVE_FOLDER / wheel.name)
            zf.write(ROOT / "constraints.txt", ARCHIVE_FOLDER / "constraints.txt")
            requirements = archive_requirements(wheel.name)
            zf.writestr(str(ARCHIVE_FOLDER / "requirements.txt"), requirements)


def _copy_book(target: Path, config: dict) -> None:
    """The book's sources in `target` (a fresh folder), with the given configuration.

    Besides the pages: the theme's static files (favicon, CSS and JS fixes) and the
    bibliography. The grading checks (tools/questions.py) belong to the instructors.
    """
    if target.exists():
        shutil.rmtree(target)
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "*_checks.py")
    shutil.copytree(ROOT / "chapters", target / "chapters", ignore=ignore)
    for name in ("_toc.yml", "intro.md", "references.bib", "_static"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, target / name)
        elif (ROOT / name).is_file():
            shutil.copy(ROOT / name, target / name)
    (target / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))


def _book_config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def prepare_source(source: Path = SOURCE, notebooks: Path | None = NOTEBOOKS) -> None:
    """Write the student edition's sources, and the student notebooks to a folder."""
    _copy_book(source, student_config(_book_config()))
    for page, student_page in STUDENT_PAGES.items():
        shutil.copy(ROOT / student_page, source / page)
    stripped, hidden, kept = {}, set(), set()
    for path in chapter_notebooks(source):
        nb = nbformat.read(path, as_version=4)
        hidden |= labels_defined(strip_solutions(nbformat.from_dict(nb))[1])
        stripped[path] = student_notebook(nb)[0]
        kept |= labels_defined(stripped[path].cells)
    lost = hidden - kept
    if lost:
        print(f"warning: labels of solutions without a placeholder: {sorted(lost)}")
    for path, nb in stripped.items():
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = unlink_hidden(cell.source, lost)
        nbformat.write(nb, path)
    for page in sorted((source / "chapters").rglob("*.md")) + [source / "intro.md"]:
        page.write_text(unlink_hidden(page.read_text(), lost))
    if notebooks is not None:
        if notebooks.exists():
            shutil.rmtree(notebooks)
        for path in stripped:  # chapters/<part>/<chapter>.ipynb
            target = notebooks / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            # Plain Jupyter Markdown: the reader opens these outside the book.
            nbformat.write(handout_copy(path, source, "student"), target)
        write_archive(notebooks, source / ARCHIVE)


def _jupyter_book(source: Path, *options: str) -> int:
    jb = Path(sys.executable).parent / "jupyter-book"
    return subprocess.run([str(jb), "build", str(source), *options]).returncode


def build() -> int:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    prepare_source()
    shutil.copy(SOURCE / ARCHIVE, OUT / ARCHIVE)
    failed = _jupyter_book(SOURCE, "-W", "-n", "--keep-going")
    if failed:
        return failed
    shutil.move(str(SOURCE / "_build" / "html"), str(HTML))
    # The download button hands out the page's source: the rendered student notebook.
    for path in NOTEBOOKS.rglob("*.ipynb"):
        copy = HTML / "_sources" / path.relative_to(NOTEBOOKS)
        if copy.exists():
            shutil.copy(path, copy)
    print(f"Student edition: {HTML / 'index.html'}")
    print(f"Student notebooks: {NOTEBOOKS} (and {OUT / ARCHIVE})")
    return 0


# --- Give-aways: key results of a solution shown outside it
# ----------------------------------------

_MARKUP = re.compile(r"\$[^$]*\$|`[^`]*`|\{[^}]*\}|[*_#>|\[\]()]")


def fingerprints(cells) -> set[str]:
    """Distinctive runs of text of solution cells, as a reader sees them rendered."""
    found: set[str] = set()
    for cell in cells:
        if cell.cell_type == "code":
            # Not comments, nor the first line of a call ("assert_equal(") that any
            # cell could start with.
            runs = [ln.strip() for ln in cell.source.splitlines()]
            found |= {
                r
                for r in runs
                if len(r) >= 30 and not r.startswith("#") and r[-1] not in "([{,"
            }
        elif not re.search(r"\{solution-(start|end)\}", cell.source):
            # Runs end at markup, at paragraphs and at punctuation, not where the source
            # happens to wrap its lines: the same sentence wraps differently elsewhere.
            text = re.sub(r"(?<!\n)\n(?!\n)", " ", _MARKUP.sub("\x00", cell.source))
            runs = [" ".join(r.split()) for r in re.split(r"[\x00\n.:;]", text)]
            found |= {r for r in runs if len(r) >= 40}
    return found


def prose(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).split())


_MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+)\$", re.S)


def formulas(text: str, min_length: int = 24) -> set[str]:
    """Math of a text without spaces, long enough to be a result, not a symbol."""
    found = set()
    for m in _MATH.finditer(text):
        formula = re.sub(r"\s+|\\[,;!]|\\quad", "", m.group(1) or m.group(2))
        if min_length and re.fullmatch(r"[^=<>]*\\in\\mathbb[^=<>]*", formula):
            continue  # a declaration ("X in R^{T x E}") states no result
        if len(formula) >= min_length:
            found.add(formula)
    return found


def _number_text(value) -> str | None:
    """How a distinctive asserted number is printed; None for a commonplace one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int):
        return str(value) if abs(value) >= 100 and value % 100 else None
    if value != value or abs(value) < 1e-3 or abs(value) >= 1e6:
        return None  # tolerances and sentinels
    digits = f"{abs(value):.6g}".replace(".", "").strip("0")
    return f"{value:.6g}" if len(digits) >= 3 else None


def _literal(node) -> str | None:
    """The text of a distinctive number written as a literal (3.1416, -0.25,
    Fraction(7, 12)).
    """
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        text = _literal(node.operand) if isinstance(node.operand, ast.Constant) else 0
        return f"-{text}" if text else None
    if isinstance(node, ast.Constant):
        return _number_text(node.value)
    if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("Fraction"):
        ints = [
            a.value
            for a in node.args
            if isinstance(a, ast.Constant) and isinstance(a.value, int)
        ]
        if len(ints) == len(node.args) == 2 and abs(ints[0]) > 1 and abs(ints[1]) > 1:
            return f"{ints[0]}/{ints[1]}"
    return None


def asserted_values(cells) -> set[str]:
    """Distinctive numbers that a solution's asserts compare a result with.

    Not tolerances, not inputs.

    The operands of a comparison in an `assert`, and the expected value (second
    argument) of an `assert_*` call, when they are literals or lists of literals.
    """
    found: set[str] = set()
    trees = [t for c in cells if c.cell_type == "code" and (t := _parse(c.source))]
    for node in (n for tree in trees for n in ast.walk(tree)):
        operands = []
        if isinstance(node, ast.Assert):
            compares = [c for c in ast.walk(node.test) if isinstance(c, ast.Compare)]
            operands = [n for c in compares for n in [c.left, *c.comparators]]
        elif isinstance(node, ast.Call) and "assert" in ast.unparse(node.func):
            operands = node.args[1:2]
        while operands:
            operand = operands.pop()
            if isinstance(operand, ast.List | ast.Tuple):
                operands += operand.elts
            elif isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Sub):
                operands += [operand.left, operand.right]  # abs(x - 0.123) < tol
            elif isinstance(operand, ast.Call) and ast.unparse(operand.func) in (
                "abs",
                "np.abs",
                "math.fabs",
            ):
                operands += operand.args
            elif text := _literal(operand):
                found.add(text)
    return found


def figure_references(cells) -> set[str]:
    text = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    return {label for role, label in references(text) if role in ("numref", "ref")}


def cell_text(cell) -> str:
    """What a reader sees of a cell: markdown, or the printed outputs of code."""
    if cell.cell_type == "markdown":
        return cell.source
    parts = [
        o.get("text", "")
        if o.get("output_type") == "stream"
        else o.get("data", {}).get("text/plain", "")
        for o in cell.get("outputs", [])
    ]
    return "\n".join([figure_options(cell).get("caption", ""), *parts])


@dataclass(frozen=True)
class GiveAway:
    chapter: str
    exercise: str  # "7.5 (ex-onehead-noisy-key)"
    kind: str
    what: str
    where: str


def _where(cells, index: int) -> str:
    """'cell 4 under “Heading”': the cell and the heading above it."""
    heading = "top of the chapter"
    for cell in reversed(cells[: index + 1]):
        m = cell.cell_type == "markdown" and re.search(
            r"^#{1,4} (.+)$", cell.source, re.M
        )
        if m:
            heading = m.group(1).strip()
            break
    return f"cell {index} under \u201c{heading}\u201d"


_ADMONITION = re.compile(r"^[`:]{3,}\{admonition\}\s*(.+?)\s*$", re.M)
# A sphinx-proof box: its kind ("theorem", "proof") and body.
PRF_BOX = re.compile(
    r"^[ \t]*(`{3,}|:{3,})\{prf:(\w+)\}[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S
)


def giveaways(path: Path, root: Path = ROOT) -> list[GiveAway]:
    """Key results of each exercise's solution that the student edition shows elsewhere.

    Key results: the solution's sentences and formulas, the distinctive numbers its
    asserts compare with, and the figures it points to (a solution that answers "see
    Figure 6.1" means that the figure answers the exercise). A result that the
    exercise's own statement gives is not a give-away.
    """
    numbers = book.exercise_numbers(path, root)
    student, removed = student_notebook(nbformat.read(path, as_version=4))
    cells = [
        c
        for c in student.cells
        if not is_setup_cell(c) and PLACEHOLDER_TAG not in c.metadata.get("tags", [])
    ]
    markdown = [c.source for c in cells if c.cell_type == "markdown"]
    statements = book.exercise_statements(cells)
    # What any exercise of the chapter states is given to the student, and so is what a
    # theorem box of the main text states (issue 21 puts every statement that a later
    # exercise or chapter uses in the text, with its proof in a solution): their
    # formulas are no give-away.
    boxes = [
        box.group(0)
        for text in markdown
        for box in PRF_BOX.finditer(text)
        if box.group(2) != "proof"
    ]
    stated_math = {
        f for text in [*statements.values(), *boxes] for f in formulas(text, 0)
    }
    public_figures = {figure_options(c).get("name") for c in cells} - {None}
    public_figures |= {n for t in markdown for n in re.findall(r":name:\s*(\S+)", t)}
    found: list[GiveAway] = []
    for exercise, block in removed.items():
        number = f"{numbers.get(exercise, '?')} ({exercise})"

        def add(kind: str, what: str, index: int, number: str = number) -> None:
            found.append(GiveAway(path.stem, number, kind, what, _where(cells, index)))

        given = statements.get(exercise, "")
        given_prose, given_math = prose(given), formulas(given, 0) | stated_math
        solution_md = [c for c in block if c.cell_type == "markdown"]
        sentences = {r for r in fingerprints(solution_md) if r not in given_prose}
        maths = {f for c in solution_md for f in formulas(c.source, 22)}
        values = {
            v
            for v in asserted_values(block)
            if not re.search(rf"(?<![\d.]){re.escape(v)}(?![\d])", given)
        }
        for i, cell in enumerate(cells):
            text = cell_text(cell)
            flat = prose(text)
            if (
                cell.cell_type == "markdown"
                and "{exercise}" in text
                and exercise in text
            ):
                continue  # the exercise's own statement
            for run in sorted(sentences):
                if run in flat:
                    add("sentence of the solution", run, i)
            # A formula shown outside that is (part of) a formula of the solution states
            # its result.
            for formula in sorted(formulas(text, 22) - given_math):
                if any(formula in result for result in maths):
                    add("formula of the solution", f"${formula}$", i)
            for value in sorted(values):
                if re.search(rf"(?<![\w.]){re.escape(value)}(?![\d])", text):
                    add("asserted value of the solution", value, i)
        # A figure that the exercise points to is part of its question.
        given_labels = {label for _, label in references(given)}
        for label in sorted(figure_references(block) & public_figures - given_labels):
            index = next(
                i
                for i, c in enumerate(cells)
                if figure_options(c).get("name") == label
                or f":name: {label}" in c.source
            )
            add("figure the solution relies on", label, index)
    # Boxes that only solutions hold ("About the original solution") are gone from the
    # student edition: text outside the solutions must not send the reader to them.
    titles = {t for c in cells for t in _ADMONITION.findall(c.source)}
    only_in_solutions: dict[str, str] = {}
    for exercise, block in removed.items():
        for cell in block:
            for title in set(_ADMONITION.findall(cell.source)) - titles:
                only_in_solutions.setdefault(title, exercise)
    for title, exercise in only_in_solutions.items():
        number = f"{numbers.get(exercise, '?')} ({exercise}) and others"
        for i, cell in enumerate(cells):
            if cell.cell_type == "markdown" and title.lower() in cell.source.lower():
                kind = "pointer to a box that only solutions hold"
                found.append(GiveAway(path.stem, number, kind, title, _where(cells, i)))
    return sorted(set(found), key=found.index)


_REPORT_INTRO = """
Written by `python -m tools.student_edition giveaways` (student-edition check). Each
row is a key result of an exercise's solution (a sentence, a formula of at least 22
characters or a part of one, a distinctive number an assert of the solution compares
with, or a figure the solution points to) that the student edition shows outside the
solution. Move it into the solution, or phrase the outside text so it does not answer
the exercise. What an exercise's statement gives (its formulas, a figure it refers to
with {numref}) is not a give-away. Cell indices count the student notebook without the
set-up cell. `tests/test_student_edition.py` fails while a row is left.

The check matches text, not meaning: a paraphrase of a solution's result (a caption or
an explorer's prose that says what the exercise asks to predict) passes it. Read the
text around each exercise for those too.
"""


def giveaway_report(path: Path, found: list[GiveAway]) -> str:
    lines = [f"# Give-aways in `{path.relative_to(ROOT)}`", ""]
    for paragraph in _REPORT_INTRO.strip().split("\n\n"):
        lines += [" ".join(paragraph.split()), ""]
    if not found:
        return "\n".join([*lines, "Nothing found.", ""])
    lines += ["| exercise | kind | what | where |", "| --- | --- | --- | --- |"]
    for g in found:
        what = g.what.replace("|", "\\|")
        lines.append(f"| {g.exercise} | {g.kind} | {what[:160]} | {g.where} |")
    return "\n".join([*lines, ""])


def giveaways_command(out: Path | None = None) -> int:
    total = 0
    for path in chapter_notebooks():
        found = giveaways(path)
        total += len(found)
        print(f"{path.relative_to(ROOT)}: {len(found)} give-away(s)")
        for g in found:
            print(f"  Exercise {g.exercise}: {g.kind}: {g.what[:90]!r} at {g.where}")
        if out is not None:
            (out / f"giveaways-{path.stem}.md").write_text(giveaway_report(path, found))
    return 1 if total else 0


# --- The instructor's guide: the exercise map
# -------------------------------------------------------

MAP_START = "<!-- exercise map: made by `python -m tools.student_edition guide` -->"
MAP_END = "<!-- end of the exercise map -->"


def exercises(root: Path = ROOT) -> list[dict]:
    """Every exercise of the book in order: number, label, title, chapter, whether the
    book solves it.
    """
    found = []
    for path in chapter_notebooks(root):
        nb = nbformat.read(path, as_version=4)
        solved = {label for _, _, label in book.solution_blocks(nb)}
        numbers = book.exercise_numbers(path, root)
        doc = "/" + str(path.relative_to(root).with_suffix(""))
        for label, title, _ in book.exercises_in(nb.cells):
            entry = {"number": numbers[label], "label": label, "title": title}
            found.append(entry | {"doc": doc, "solved": label in solved})
    return found


def exercise_map(root: Path = ROOT) -> str:
    """The exercise-by-exercise map of every sheet, as Markdown tables."""
    data = yaml.safe_load(EXERCISE_MAP.read_text())
    found = exercises(root)
    graded = how_graded(root)
    missing = [e["label"] for e in found if e["label"] not in data["exercises"]]
    if missing:
        where = EXERCISE_MAP.relative_to(ROOT)
        raise ValueError(f"exercises missing from {where}: {missing}")
    lines = []
    for key, sheet in data["sheets"].items():
        rows = [e for e in found if data["exercises"][e["label"]]["sheet"] == key]
        if not rows:
            continue
        minutes = sum(data["exercises"][e["label"]]["minutes"] for e in rows)
        lines += [
            f"### {sheet}",
            "",
            f"{len(rows)} exercises, {minutes // 60} h {minutes % 60:02d} min in all.",
            "",
            "| sheet question | book exercise | title | chapter | time | needs | "
            "worked solution | assignment |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for e in rows:
            info = data["exercises"][e["label"]]
            # The number is written out: in the PDF, references to sphinx-exercise
            # labels of other documents do not resolve ("Exercise ??").
            cells = [
                info["question"],
                f"{{ref}}`Exercise {e['number']} <{e['label']}>`",
                e["title"].replace("|", "\\|"),
                f"{{doc}}`{e['doc']}`",
                f"{info['minutes']} min",
                info["needs"],
                "yes" if e["solved"] else "no",
                graded.get(e["label"], "not assigned"),
            ]
            lines.append(f"| {' | '.join(map(str, cells))} |")
        lines.append("")
    return "\n".join(lines)


def guide_page(text: str, root: Path = ROOT) -> str:
    """The guide's text with its exercise map regenerated."""
    start, end = text.index(MAP_START) + len(MAP_START), text.index(MAP_END)
    return text[:start] + "\n\n" + exercise_map(root) + "\n" + text[end:]


def guide() -> int:
    GUIDE.write_text(guide_page(GUIDE.read_text()))
    print(f"wrote the exercise map of {GUIDE.relative_to(ROOT)}")
    return 0


# --- Check of the built editions
# --------------------------------------------------------------------


def _text(markup: str) -> str:
    """The words of HTML without its tags, entities resolved, on one line."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())


def visible_text(path: Path) -> str:
    raw = path.read_text(errors="replace")
    return _text(re.sub(r"<script.*?</script>|<style.*?</style>", " ", raw, flags=re.S))


def numbering(doctrees: Path) -> dict[str, str]:
    """'figure:fig-x' -> '7.6' for every numbered object, and 'chapter:<doc>' -> '7' for
    documents.
    """
    with open(doctrees / "environment.pickle", "rb") as f:
        env = pickle.load(f)
    found = {
        f"chapter:{doc}": ".".join(map(str, number[""]))
        for doc, number in env.toc_secnumbers.items()
        if number.get("")
    }
    for doc, kinds in env.toc_fignumbers.items():
        for kind, ids in kinds.items():
            for id_, number in ids.items():
                found[f"{kind}:{doc}#{id_}"] = ".".join(map(str, number))
    equations = env.domaindata.get("math", {}).get("objects", {})
    for label, (doc, number) in equations.items():
        found[f"equation:{doc}#{label}"] = f"{found.get(f'chapter:{doc}', '')}.{number}"
    return found


def compare_numbering(full: dict[str, str], student: dict[str, str]) -> list[str]:
    """Every numbered object of the full edition has the same number in the student
    edition.
    """
    problems = []
    for key, number in sorted(full.items()):
        there = f"{student[key]} in the" if key in student else "missing from the"
        if student.get(key) != number:
            problems.append(
                f"{key} is {number} in the full edition and {there} student edition"
            )
    for key in sorted(set(student) - set(full)):
        problems.append(
            f"{key} is {student[key]} in the student edition and not numbered in the "
            "full edition"
        )
    return problems


_ANCHOR = re.compile(
    r'<a class="reference internal" href="[^"#]*#([^"]+)"[^>]*>(.*?)</a>', re.S
)


def link_texts(html_root: Path, labels: set[str]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for page in html_root.rglob("*.html"):
        for m in _ANCHOR.finditer(page.read_text(errors="replace")):
            if m.group(1) in labels:
                found.setdefault(m.group(1), set()).add(_text(m.group(2)))
    return found


def _solution_runs() -> tuple[set[str], set[str]]:
    """Fingerprints of the solutions that no public text holds, and their labels."""
    solution, public, hidden = set(), set(), set()
    for path in chapter_notebooks():
        nb, removed = strip_solutions(nbformat.read(path, as_version=4))
        solution |= fingerprints(removed)
        public |= fingerprints(nb.cells)
        hidden |= labels_defined(removed)
    # A sentence that also stands outside a solution is for the give-away check (it says
    # which exercise it answers); this check is about solution text that leaks through
    # the build.
    sources = [*(ROOT / "src").rglob("*.py"), *(ROOT / "chapters").rglob("*.md")]
    elsewhere = " ".join(" ".join(p.read_text().split()) for p in sources)
    elsewhere += " " + " ".join((ROOT / "intro.md").read_text().split())
    return {run for run in solution - public if run not in elsewhere}, hidden


def _check_pages(pages: list[Path], solution_runs: set[str]) -> list[str]:
    """Solution text or elements in the student pages, and their launch buttons."""
    problems = []
    chapters = {p.stem for p in NOTEBOOKS.rglob("*.ipynb")}
    for page in pages:
        name, raw = page.relative_to(HTML), page.read_text(errors="replace")
        text = visible_text(page)
        if 'class="solution' in raw:
            problems.append(f"{name}: holds a solution element")
        for run in solution_runs:
            # A run inside a longer name ("other_rng = ...") is another line.
            if run in text and re.search(rf"(?<![\w.]){re.escape(run)}", text):
                problems.append(f"{name}: shows solution text {run[:60]!r}")
        if "the solutions, which this edition leaves out" in text:
            problems.append(f"{name}: a reference replaced by a parenthesis")
        if "chapters" not in page.parts or page.stem not in chapters:
            continue
        for needed in ("mybinder.org/v2/gh/", f"/blob/{STUDENT_BRANCH}/", "download"):
            if needed not in raw:
                problems.append(f"{name}: no {needed!r} button")
        if "/blob/main/" in raw or "/gh/attnsig/attnsig-book/main" in raw:
            problems.append(f"{name}: a launch button opens the full notebook")
    return problems


def _check_notebooks() -> list[str]:
    """The sources the edition ships (download button), the notebooks and the zips."""
    problems = []
    handed_out = list(NOTEBOOKS.rglob("*.ipynb"))
    if not handed_out:
        problems.append(f"no student notebooks in {NOTEBOOKS}")
    for path in [*HTML.rglob("*.ipynb"), *handed_out]:
        nb, name = nbformat.read(path, as_version=4), path.relative_to(OUT)
        left = myst_left(nb)
        if left:
            problems.append(
                f"{name}: MyST that a plain Jupyter shows as text: {left[:3]}"
            )
        if any(SOLUTION_TAG in c.get("metadata", {}).get("tags", []) for c in nb.cells):
            problems.append(f"{name}: student notebook still holds solution cells")
        code = [c for c in nb.cells if c.cell_type == "code"]
        if not code or not is_setup_cell(code[0]):
            problems.append(f"{name}: does not start with the set-up cell")
    for archive in [OUT / ARCHIVE, *HTML.rglob(ARCHIVE)]:
        with zipfile.ZipFile(archive) as zf:
            names = [n for n in zf.namelist() if n.endswith(".ipynb")]
            name = archive.relative_to(OUT)
            if len(names) != len(handed_out):
                problems.append(f"{name}: holds {len(names)} notebooks")
            for inner in names:
                if f'"{SOLUTION_TAG}"' in zf.read(inner).decode():
                    problems.append(f"{name}:{inner}: holds solution cells")
    if not list(HTML.rglob(ARCHIVE)):
        problems.append(f"the student home page does not offer {ARCHIVE}")
    return problems


def _check_numbers(hidden: set[str]) -> list[str]:
    """The same numbers in both editions, and references into solutions that read the
    same.
    """
    full, student = numbering(FULL_DOCTREES), numbering(STUDENT_DOCTREES)
    problems = compare_numbering(full, student)
    # The exercise map writes its numbers out: they must be the book's numbers.
    for e in exercises():
        key = f"exercise:{e['doc'].lstrip('/')}#{e['label']}"
        if full.get(key, e["number"]) != e["number"]:
            problems.append(
                f"the exercise map calls {e['label']} Exercise {e['number']}, "
                f"the book numbers it {full[key]}"
            )
    in_full, in_student = link_texts(FULL_HTML, hidden), link_texts(HTML, hidden)
    for label, texts in sorted(in_student.items()):
        for text in sorted(texts - in_full.get(label, set())):
            problems.append(
                f"a reference to {label} reads {text!r} in the student edition, "
                f"{sorted(in_full.get(label, set()))} in the full edition"
            )
    references = sum(map(len, in_student.values()))
    print(
        f"{len(full)} numbered objects compared, {references} references "
        "into solutions compared"
    )
    return problems


def check() -> int:
    if not HTML.exists():
        print(
            f"no student edition at {HTML}; run `python -m tools.student_edition "
            "build` first"
        )
        return 1
    solution_runs, hidden = _solution_runs()
    pages = sorted(HTML.rglob("*.html"))
    problems = _check_pages(pages, solution_runs) + _check_notebooks()
    if (FULL_DOCTREES / "environment.pickle").exists():
        problems += _check_numbers(hidden)
    else:
        problems.append(
            f"no full edition at {FULL_DOCTREES}: build it (`make book`) before this "
            "check"
        )
    # The check must be able to fail: the full edition, when built, shows the same
    # solution text.
    if FULL_HTML.exists() and solution_runs:
        full_text = " ".join(visible_text(p) for p in FULL_HTML.rglob("*.html"))
        seen, runs = sum(run in full_text for run in solution_runs), len(solution_runs)
        if seen < runs // 2:
            problems.append(
                f"only {seen} of {runs} solution fingerprints appear in the full "
                "edition: the fingerprints no longer match rendered text, so this "
                "check is blind"
            )
        print(
            f"{seen} of {runs} solution fingerprints found in the full edition, "
            "0 allowed in the student edition"
        )
    for problem in problems:
        print(problem)
    print(
        f"student edition check: {len(pages)} pages, {len(solution_runs)} solution "
        f"fingerprints, {len(problems)} problem(s)"
    )
    return 1 if problems else 0


# --- PDF of both editions
# -----------------------------------------------------------------------------

# What must not reach the LaTeX: a widget's text fallback, raw HTML, the explorers'
# script.
_NOT_IN_LATEX = ("interactive(children", "widget-view", "VBox(children", "<div")
_NOT_IN_LATEX += ("<script", "<iframe", "<img ")
_WIDGET = "application/vnd.jupyter.widget-view+json"


def _static_outputs(source: Path) -> None:
    """Notebooks for the PDF.

    A live widget has no picture to print, so its output goes; an explorer with a static
    figure (text/html with an image/png fallback) prints as that figure.
    """
    for path in chapter_notebooks(source):
        nb = nbformat.read(path, as_version=4)
        for cell in (c for c in nb.cells if c.cell_type == "code"):
            outputs = cell.get("outputs", [])
            cell.outputs = [o for o in outputs if _WIDGET not in o.get("data", {})]
        nbformat.write(nb, path)


def check_latex(tex: Path) -> list[str]:
    """Widget text or raw HTML in the LaTeX of a book, and the default document name."""
    problems = []
    if tex.stem in ("projectnamenotset", "book", "python"):
        problems.append(f"{tex.name}: the document is not named after the book")
    text = tex.read_text(errors="replace")
    problems += [f"{tex.name}: holds {s!r}" for s in _NOT_IN_LATEX if s in text]
    return problems


def pdf() -> int:
    """Both editions as PDF with Jupyter Book's LaTeX builder, into _build/pdf."""
    if not shutil.which("xelatex") or not shutil.which("latexmk"):
        print(
            "TeX is missing: `make pdf` installs texlive-xetex, texlive-latex-extra "
            "and latexmk"
        )
        return 1
    # nbval has checked the stored outputs; the PDF prints them rather than executing
    # again.
    config = _book_config()
    config["execute"] = dict(config.get("execute", {}), execute_notebooks="off")
    _copy_book(PDF / "full-source", config)
    prepare_source(PDF / "student-source", notebooks=None)
    # The zip is an HTML download; the PDF has no place for it.
    (PDF / "student-source" / ARCHIVE).write_bytes(b"")
    problems, made = [], []
    for name in ("full", "student"):
        source = PDF / f"{name}-source"
        _static_outputs(source)
        failed = _jupyter_book(source, "--builder", "pdflatex")
        latex = source / "_build" / "latex"
        pdfs = sorted(latex.glob("*.pdf"))
        if failed or not pdfs:
            print(f"the {name} PDF was not built (see the LaTeX log in {latex})")
            problems.append(f"no {name} PDF")
            continue
        problems += check_latex(pdfs[0].with_suffix(".tex"))
        shutil.copy(pdfs[0], PDF / pdfs[0].name)
        made.append(PDF / pdfs[0].name)
    for line in [*(f"PDF: {path}" for path in made), *problems]:
        print(line)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.student_edition",
        description=__doc__.split("\n\n")[0],
        epilog="`check` needs both editions built; `pdf` needs TeX.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("build", help="_build/student/: html, notebooks, zip")
    commands.add_parser("check", help="solution text, numbers, references")
    giveaway = commands.add_parser("giveaways", help="key results shown elsewhere")
    giveaway.add_argument("out", nargs="?", type=Path, help="folder for reports")
    commands.add_parser("guide", help="the exercise map of the guide")
    commands.add_parser("pdf", help="both editions as PDF, in _build/pdf")
    args = parser.parse_args(argv)
    if args.command == "giveaways":
        return giveaways_command(args.out)
    return {"build": build, "check": check, "guide": guide, "pdf": pdf}[args.command]()


if __name__ == "__main__":
    sys.exit(main())
