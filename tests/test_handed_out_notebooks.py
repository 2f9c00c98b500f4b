"""Every notebook handed to a reader reads well in a plain Jupyter (tools/handout.py).

Each notebook is rendered the way a Jupyter without the book's extensions shows
it: nbconvert's HTML exporter (JupyterLab's markdown and styles), typeset by MathJax 3
in headless Chromium (JupyterLab's MathJax; the exporter's page loads MathJax 2 from a
CDN, which is swapped for the copy that sphinx-mathjax-offline ships). A notebook fails
on any MyST directive or role left as text, and on TeX that MathJax left untypeset or
could not typeset (an undefined macro, an error).

What is handed out: the full and the student edition's chapter notebooks as their
pipelines write them (rendered here into a temporary folder), and, when the editions
are built, the copies they ship (download buttons, the student notebooks, their zip).
One Chromium renders every notebook; identical copies are rendered once.
"""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
from pathlib import Path

import nbformat
import pytest

from tools import handout, student_edition
from tools.student_edition import ROOT, chapter_notebooks

CHROMIUM = os.environ.get("ATTNSIG_CHROMIUM", "/usr/bin/chromium")
MATHJAX = (
    Path(__import__("sysconfig").get_paths()["purelib"])
    / "sphinx-mathjax-offline"
    / "static"
    / "mathjax"
    / "tex-chtml-full.js"
)
BUILT = {
    "full edition's download copies": ROOT / "_build" / "html" / "_sources",
    "student edition's download copies": (
        ROOT / "_build" / "student" / "html" / "_sources"
    ),
    "student notebooks": ROOT / "_build" / "student" / "notebooks",
}
ZIP = ROOT / "_build" / "student" / student_edition.ARCHIVE

_MATHJAX_BLOCK = re.compile(
    r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.S
)
# JupyterLab's MathJax 3 settings: $...$ and \(...\) inline, $$...$$, \[...\] and bare
# environments displayed.
_MATHJAX_CONFIG = (
    "<script>window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], "
    "displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']], processEscapes: true, "
    "processEnvironments: true}};</script>\n<script src='{src}'></script>"
)
# What the page shows of MyST that Jupyter does not know, read from the rendered cell.
_NAMES = (
    "ref|numref|eq|doc|term|math|abbr|download|index|exercise|solution|"
    "solution-start|solution-end|admonition|note|warning|tip|hint|important|caution|"
    "danger|attention|error|seealso|figure|image|code-cell|code-block|list-table|"
    "dropdown|margin|sidebar|glossary|toctree|tableofcontents|bibliography|"
    "(?:prf|cite|glue|sub)(?::[\\w-]+)?"
)
MYST_TEXT = {
    "directive or role": re.compile(rf"\{{(?:{_NAMES})\}}"),
    "directive option": re.compile(
        r"(?<![\w:]):(?:label|name|class|nonumber|tags|alt|width|align):(?:\s|$)"
    ),
    "target": re.compile(r"\([\w.:-]+\)="),
}
RAW_TEX = re.compile(r"\$|\\[A-Za-z]+|\\[()\[\]{}]")

_READ_CELLS = """() => {
  const found = [];
  document.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown, .jp-RenderedLatex')
    .forEach((cell, i) => {
      const copy = cell.cloneNode(true);
      const html = copy.innerHTML;
      copy.querySelectorAll('mjx-container').forEach(m => m.remove());
      const text = copy.textContent;
      copy.querySelectorAll('pre, code').forEach(c => c.remove());
      const failed = [...cell.querySelectorAll(
        'mjx-assistive-mml merror, mjx-assistive-mml mtext[mathcolor="red"], ' +
        '[data-mjx-error]')
      ].map(e => e.textContent || e.getAttribute('data-mjx-error'));
      const prose = copy.textContent;
      found.push({i, html: html.slice(0, 200000), text, prose, failed});
    });
  return found;
}"""


def problems_of(cells: list[dict]) -> list[str]:
    """What a reader would see of MyST or of untypeset TeX, cell by cell."""
    found = []
    for cell in cells:
        where = f"markdown cell {cell['i']}"
        if 'class="language-{' in cell["html"]:
            found.append(f"{where}: a directive shown as a code block")
        for kind, pattern in MYST_TEXT.items():
            for m in pattern.finditer(cell["text"]):
                found.append(f"{where}: {kind} {m.group(0)!r}")
        for m in RAW_TEX.finditer(cell["prose"]):
            context = cell["prose"][max(0, m.start() - 30) : m.end() + 30]
            found.append(f"{where}: TeX not typeset {' '.join(context.split())!r}")
        for text in cell["failed"]:
            found.append(f"{where}: MathJax could not typeset {text!r}")
    return found


def page(nb) -> str:
    """The notebook as nbconvert's HTML, with MathJax 3 from the local copy.

    Code is left out but for its TeX outputs (text/latex, which Jupyter typesets):
    code, pictures and explorers are not what this test reads, and highlighting and
    drawing them would take most of its time.
    """
    from nbconvert import HTMLExporter

    nb = nbformat.from_dict(nb)
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = ""
            cell.outputs = [
                o for o in cell.get("outputs", []) if "text/latex" in o.get("data", {})
            ]
            if not cell.outputs:
                continue
        cells.append(cell)
    nb.cells = cells
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    config = _MATHJAX_CONFIG.replace("{src}", MATHJAX.as_uri())
    assert _MATHJAX_BLOCK.search(body), "nbconvert's page no longer loads MathJax"
    return _MATHJAX_BLOCK.sub(lambda _: config, body)


@pytest.fixture(scope="module")
def render(tmp_path_factory):
    """A function: notebook -> problems, in one headless Chromium for the module."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed: pip install -r requirements-test.txt")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (set ATTNSIG_CHROMIUM)")
    if not MATHJAX.exists():
        pytest.skip(f"no local MathJax at {MATHJAX} (sphinx-mathjax-offline)")
    folder = tmp_path_factory.mktemp("rendered")
    seen: dict[str, list[str]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        # Offline: nbconvert's page asks a CDN for require.js and MathJax 2.
        tab.route(
            "**/*",
            lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort(),
        )

        def problems(nb) -> list[str]:
            # What is rendered: markdown and TeX outputs (not cell ids, which differ
            # between two runs of the student edition's pipeline).
            shown = [
                (c.cell_type, c.source if c.cell_type == "markdown" else "", o)
                for c in nb.cells
                for o in [
                    [
                        x
                        for x in c.get("outputs", [])
                        if "text/latex" in x.get("data", {})
                    ]
                ]
            ]
            key = hashlib.sha256(repr(shown).encode()).hexdigest()
            if key not in seen:
                path = folder / f"{key}.html"
                path.write_text(page(nb))
                tab.goto(path.as_uri(), wait_until="domcontentloaded")
                tab.wait_for_function("window.MathJax && MathJax.startup")
                tab.evaluate("MathJax.startup.promise")
                seen[key] = problems_of(tab.evaluate(_READ_CELLS))
            return seen[key]

        yield problems
        browser.close()


def _check(render, notebooks: dict[str, object]) -> None:
    assert notebooks, "no notebooks to check"
    report = []
    for name, nb in notebooks.items():
        report += [f"{name}: {p}" for p in render(nb)[:8]]
    assert not report, "\n".join(report)


def _chapters(folder: Path) -> dict[str, object]:
    return {
        str(path.relative_to(folder)): nbformat.read(path, as_version=4)
        for path in sorted(folder.rglob("*.ipynb"))
    }


def test_the_check_finds_myst_and_untypeset_tex(render):
    """The book's own MyST source fails: the check can fail."""
    nb = nbformat.read(ROOT / "chapters" / "one-head" / "one-head.ipynb", as_version=4)
    nb.cells.append(
        nbformat.v4.new_markdown_cell(
            "(sec-x)=\n\nA macro $\\notamacro x$ and $$\\frac{1}{2$$."
        )
    )
    found = "\n".join(render(nb))
    for needle in (
        "a directive shown as a code block",
        "directive or role '{ref}'",
        "target '(",
        "MathJax could not typeset '\\\\notamacro'",
        "TeX not typeset",
    ):
        assert needle in found, f"{needle!r} not reported:\n{found[:3000]}"


def test_full_edition_notebooks(render, tmp_path):
    """The full edition's launch targets and download copies (tools.handout)."""
    handout.write_full(tmp_path)
    notebooks = _chapters(tmp_path)
    assert len(notebooks) == len(chapter_notebooks())
    # Solutions stay, under a heading that names the exercise.
    text = "\n".join(c.source for nb in notebooks.values() for c in nb.cells)
    assert re.search(r"^#### Solution to Exercise \d+\.\d+ \(", text, re.M)
    _check(render, notebooks)


def test_student_edition_notebooks(render, tmp_path):
    """The student notebooks as the student edition writes them, and its zip."""
    source, out = tmp_path / "source", tmp_path / "notebooks"
    student_edition.prepare_source(source, out)
    notebooks = _chapters(out)
    assert len(notebooks) == len(chapter_notebooks())
    checked = 0
    for name, nb in notebooks.items():
        tags = {t for c in nb.cells for t in c.get("metadata", {}).get("tags", [])}
        assert student_edition.SOLUTION_TAG not in tags, name
        assert not any("Solution to Exercise" in c.source for c in nb.cells), name
        # No line of a solution's code that the chapter does not also show outside.
        kept, removed = student_edition.strip_solutions(
            nbformat.read(ROOT / name, as_version=4)
        )
        hidden = student_edition.fingerprints(
            [c for c in removed if c.cell_type == "code"]
        ) - student_edition.fingerprints(kept.cells)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        assert not [run for run in hidden if run in code], name
        checked += len(hidden)
    assert checked, "no solution code to look for: the check would be blind"
    with zipfile.ZipFile(source / student_edition.ARCHIVE) as zf:
        zipped = {
            n: nbformat.reads(zf.read(n).decode(), as_version=4)
            for n in zf.namelist()
            if n.endswith(".ipynb")
        }
    assert len(zipped) == len(notebooks)
    _check(render, {**notebooks, **{f"zip:{n}": nb for n, nb in zipped.items()}})


@pytest.mark.parametrize("kind", sorted(BUILT))
def test_built_copies(render, kind):
    """The copies the built editions hand out (skipped when not built)."""
    folder = BUILT[kind]
    if not folder.is_dir():
        pytest.skip(f"not built: {folder}")
    notebooks = {
        name: nb
        for name, nb in _chapters(folder).items()
        if name.startswith("chapters/")
    }
    _check(render, notebooks)


def test_built_zip(render):
    if not ZIP.exists():
        pytest.skip(f"not built: {ZIP}")
    with zipfile.ZipFile(ZIP) as zf:
        notebooks = {
            n: nbformat.reads(zf.read(n).decode(), as_version=4)
            for n in zf.namelist()
            if n.endswith(".ipynb")
        }
    _check(render, notebooks)


def test_myst_left_finds_what_the_conversion_would_miss():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("```{exercise} T\n:label: ex-a\nText\n```"),
        nbformat.v4.new_markdown_cell("See {ref}`ex-a` and $x$."),
        nbformat.v4.new_markdown_cell("(sec-a)=\n# A"),
        nbformat.v4.new_markdown_cell("Plain *markdown* with `code` and $$y$$."),
    ]
    assert len(handout.myst_left(nb)) == 4
    nb.cells = nb.cells[3:]
    assert handout.myst_left(nb) == []


def test_full_edition_buttons_open_the_rendered_copies(tmp_path):
    """`handout full-html`: the download copy and the launch buttons of a built page."""
    chapter = chapter_notebooks()[0]
    docname = chapter.relative_to(ROOT).with_suffix("").as_posix()
    addresses = handout.launch_addresses(docname)
    assert set(addresses) == {"binder", "colab"}
    (tmp_path / "index.html").write_text("<html></html>")
    page = tmp_path / f"{docname}.html"
    page.parent.mkdir(parents=True)
    # As sphinx-book-theme writes them, from repository.url, .branch and .path_to_book.
    page.write_text("".join(f'<a href="{old}">' for old, _ in addresses.values()))
    source = tmp_path / "_sources" / f"{docname}.ipynb"
    source.parent.mkdir(parents=True)
    source.write_bytes(chapter.read_bytes())
    assert handout.myst_left(nbformat.read(source, as_version=4))
    assert handout.full_html(tmp_path) == 0
    links = page.read_text()
    for old, new in addresses.values():
        assert old not in links and new in links
        assert f"/{handout.FULL_FOLDER}/{docname}.ipynb" in new
        assert f"/{student_edition.STUDENT_BRANCH}" in new
    assert handout.myst_left(nbformat.read(source, as_version=4)) == []
