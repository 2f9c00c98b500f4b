"""The student edition: no answers given away, the same numbers, sentences that read,
notebooks that students can get.

The checks of the built editions (numbering read from both builds, rendered references,
shipped notebooks) run in `python -m tools.student_edition check`, after both builds of
`make test`; these tests check the sources, and that each check can fail.
"""

import re
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml

# `tools` is a package of the repository root, as `python -m tools.X` runs it;
# `python -m pytest` puts the root on the path, a bare `pytest` does not.
if str(Path(__file__).resolve().parents[1]) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools import book as book_layout  # noqa: E402
from tools import student_edition as se  # noqa: E402
from tools.nbtools import is_setup_cell  # noqa: E402

ROOT = se.ROOT
NOTEBOOKS = se.chapter_notebooks()


def md(source: str):
    return nbformat.v4.new_markdown_cell(source)


def code(source: str, outputs=(), figure=None):
    cell = nbformat.v4.new_code_cell(source)
    cell.outputs = list(outputs)
    if figure:
        cell.metadata["mystnb"] = {"figure": figure}
    return cell


PNG = nbformat.v4.new_output(
    "display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}
)


def book(*cells):
    return nbformat.v4.new_notebook(
        cells=[
            code(
                "# Set-up for Colab: install the companion package `attnsig` when it "
                "is missing.\npass"
            ),
            *cells,
        ]
    )


def solved_exercise(label="ex-x", body=()):
    return [
        md(f"```{{exercise}} E\n:label: {label}\n\nDo it.\n```"),
        md(f"```{{solution-start}} {label}\n:class: dropdown\n```"),
        *body,
        md("```{solution-end}\n```"),
    ]


# --- Numbering: placeholders keep every numbered object
# -----------------------------------------------


def test_placeholder_numbers_what_the_solution_numbered():
    body = [
        md(
            "```{prf:theorem} Temperature\n:label: "
            "thm-x\n\nTrue.\n```\n```{prf:proof}\nEasy.\n```"
        ),
        code("plt.show()", [PNG], {"caption": "Spread", "name": "fig-x"}),
        md("$$\na = b\n$$ (eq-x)\n\n(sec-x)=\nMore."),
    ]
    nb = book(
        *solved_exercise(body=body),
        md("By {prf:ref}`thm-x`, see {numref}`fig-x` and {eq}`eq-x`."),
    )
    student, removed = se.student_notebook(nb)
    placeholder = student.cells[2]
    assert book_layout.numbered_objects(
        placeholder_cells := [placeholder]
    ) == book_layout.numbered_objects(removed["ex-x"])
    assert [o.label for o in book_layout.numbered_objects(placeholder_cells)] == [
        "thm-x",
        "fig-x",
        "eq-x",
        "sec-x",
    ]
    assert (
        "```{prf:theorem} proved in the solutions\n:label: thm-x" in placeholder.source
    )
    assert "Temperature" not in placeholder.source and "a = b" not in placeholder.source
    assert student.cells[-1].source.startswith(
        "By {prf:ref}`thm-x`"
    )  # the reference is untouched
    assert se.labels_defined([placeholder]) >= se.labels_defined(removed["ex-x"])


def test_a_solution_without_numbered_objects_leaves_no_placeholder():
    nb = book(*solved_exercise(body=[md("Because."), code("assert 1 + 1 == 2")]))
    student, removed = se.student_notebook(nb)
    assert [c.source[:12] for c in student.cells[1:]] == ["```{exercise"]
    assert len(removed["ex-x"]) == 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_solution_is_replaced_by_the_same_numbered_objects(path):
    nb = nbformat.read(path, as_version=4)
    blocks = book_layout.solution_blocks(nb)
    student, removed = se.student_notebook(nbformat.from_dict(nb))
    placeholders = {
        c.source: c
        for c in student.cells
        if se.PLACEHOLDER_TAG in c.metadata.get("tags", [])
    }
    expected = [book_layout.numbered_objects(nb.cells[a:b]) for a, b, _ in blocks]
    shown = [book_layout.numbered_objects([c]) for c in placeholders.values()]
    assert [o for o in expected if o] == shown
    # Outside the solutions the notebooks are the same cell for cell: nothing else moves
    # a number.
    kept = [
        c
        for c, inside in zip(nb.cells, book_layout.in_solution(nb), strict=True)
        if not inside
    ]
    assert [c.source for c in kept] == [
        c.source for c in student.cells if c.source not in placeholders
    ]


def test_numbering_comparison_fails_on_a_renumbering():
    full = {
        "figure:one-head#fig-a": "7.1",
        "figure:one-head#fig-b": "7.2",
        "proof:sdp#thm-a": "4.1",
    }
    assert se.compare_numbering(full, dict(full)) == []
    moved = dict(full, **{"figure:one-head#fig-b": "7.1"})
    del moved["figure:one-head#fig-a"]
    problems = se.compare_numbering(full, moved)
    assert any("fig-a is 7.1 in the full edition and missing" in p for p in problems)
    assert any("fig-b is 7.2 in the full edition and 7.1" in p for p in problems)


# --- Sentences: every reference into a removed solution still reads
# -----------------------------------


def _student_sources():
    """(where, text) of every markdown text of the student edition, and the labels
    it defines."""
    texts, defined = [], set()
    for path in NOTEBOOKS:
        student, _ = se.student_notebook(nbformat.read(path, as_version=4))
        defined |= se.labels_defined(student.cells)
        texts += [
            (f"{path.stem} cell {i}", c.source)
            for i, c in enumerate(student.cells)
            if c.cell_type == "markdown"
        ]
    for page in [
        *(ROOT / "chapters").rglob("*.md"),
        *[ROOT / p for p in se.STUDENT_PAGES.values()],
    ]:
        texts.append((str(page.relative_to(ROOT)), page.read_text()))
        defined |= se.labels_defined([md(page.read_text())])
    return texts, defined


def test_no_reference_points_into_a_solution():
    hidden = set()
    for path in NOTEBOOKS:
        _, removed = se.strip_solutions(nbformat.read(path, as_version=4))
        hidden |= se.labels_defined(removed)
    texts, defined = _student_sources()
    into_solutions = [
        (where, label)
        for where, text in texts
        for _, label in se.references(text)
        if label in hidden
    ]
    # Teaching lives in the text (issue 21): nothing outside a solution refers to a
    # label that only a solution defines, so the student edition needs no placeholder.
    assert not into_solutions, f"references into solutions: {into_solutions}"
    for where, text in texts:
        assert "which this edition leaves out" not in text, (
            f"{where}: a reference replaced by a parenthesis"
        )


@pytest.mark.parametrize(
    "sentence",
    [
        "Redo {} when the entries vary.",
        "By {}, the N entries of level N.",
        "Compare with the projection of {}: stable.",
    ],
)
@pytest.mark.parametrize(
    ("role", "noun"),
    [
        ("{prf:ref}`thm-x`", "a result proved in the solutions"),
        ("{ref}`the bound <thm-x>`", "the bound"),
        ("{numref}`fig-x`", "a result proved in the solutions"),
    ],
)
def test_a_reference_without_a_target_becomes_a_noun_phrase(sentence, role, noun):
    # Only for a kind of object without a placeholder; the noun phrase takes the
    # reference's place.
    assert se.unlink_hidden(
        sentence.format(role), {"thm-x", "fig-x"}
    ) == sentence.format(noun)


# --- Give-aways
# -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_key_result_of_a_solution_is_shown_outside_it(path):
    found = se.giveaways(path)
    assert not found, "the student edition gives answers away:\n" + "\n".join(
        f"Exercise {g.exercise}: {g.kind} {g.what[:100]!r} at {g.where}" for g in found
    )


def _giveaway_book(objective: str, printed: str, figure_outside: bool):
    solution = [
        md(
            "The gap must be "
            "$\\Delta\\ge\\log\\frac{(n-1)(1-\\varepsilon)}{\\varepsilon}$, "
            "see {numref}`fig-spread`.\n\nThe output jumps between the two values "
            "and never sits at "
            "their average."
        ),
        md(":::{admonition} About the original solution\nThe sheet errs.\n:::"),
        code(
            "assert critical == Fraction(17, 12)\nnp.testing.assert_allclose(best, "
            "3.1416, rtol=1e-3)"
        ),
    ]
    cells = [md(f"# Chapter\n\n**Learning objectives.** {objective}")]
    if figure_outside:
        cells.append(
            code("plt.show()", [PNG], {"caption": "Spread", "name": "fig-spread"})
        )
    cells.append(code("print(best)", [nbformat.v4.new_output("stream", text=printed)]))
    return book(*cells, *solved_exercise("ex-gap", solution))


def test_giveaway_check_finds_each_kind_of_key_result(tmp_path):
    toc = {
        "format": "jb-book",
        "root": "intro",
        "parts": [{"caption": "P", "chapters": [{"file": "ch"}]}],
    }
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump(toc))
    clean = tmp_path / "ch.ipynb"
    nbformat.write(
        _giveaway_book("Compute the score gap.", "done\n", figure_outside=False), clean
    )
    assert se.giveaways(clean, tmp_path) == []
    nbformat.write(
        _giveaway_book(
            "Compute the score gap "
            "$\\log\\frac{(n-1)(1-\\varepsilon)}{\\varepsilon}$. The output jumps "
            "between the "
            "two values and never sits at their average. The notes About the original "
            "solution say where the sheet goes wrong.",
            "best scale 3.1416, critical 17/12\n",
            figure_outside=True,
        ),
        clean,
    )
    kinds = {(g.kind, g.what) for g in se.giveaways(clean, tmp_path)}
    assert (
        "formula of the solution",
        "$\\log\\frac{(n-1)(1-\\varepsilon)}{\\varepsilon}$",
    ) in kinds
    assert (
        "sentence of the solution",
        "The output jumps between the two values and never sits at their average",
    ) in kinds
    assert ("asserted value of the solution", "3.1416") in kinds
    assert ("asserted value of the solution", "17/12") in kinds
    assert ("figure the solution relies on", "fig-spread") in kinds
    assert (
        "pointer to a box that only solutions hold",
        "About the original solution",
    ) in kinds
    assert all(
        g.exercise.startswith("1.1 (ex-gap)") for g in se.giveaways(clean, tmp_path)
    )


def test_what_the_exercise_states_is_no_giveaway():
    values = se.asserted_values(
        [code("assert abs(x - 0.123) < 1e-6\nassert n == 1000\nassert f(111) == 2")]
    )
    assert values == {"0.123"}  # not the tolerance, not a round count, not an argument


# --- Student notebooks, pages and configuration
# -----------------------------------------------------


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_student_notebook_starts_with_the_setup_cell(path):
    student, _ = se.student_notebook(nbformat.read(path, as_version=4))
    first_code = next(c for c in student.cells if c.cell_type == "code")
    assert is_setup_cell(first_code)
    assert not any("solution" in c.metadata.get("tags", []) for c in student.cells)


@pytest.mark.parametrize("page", sorted(se.STUDENT_PAGES.values()))
def test_student_pages_are_written_for_students(page):
    text = (ROOT / page).read_text()
    for phrase in (
        "solved",
        "fold open",
        "fold-open",
        "solution box",
        "make student",
        "notes that",
        "which this edition leaves out",
        "About the original solution",
    ):
        assert phrase not in text, f"{page}: {phrase!r} is not for students"
    for target in re.findall(r"\{doc\}`([^`<]+)`", text):
        assert (ROOT / f"{target}.md").exists() or (
            ROOT / f"{target}.ipynb"
        ).exists(), target
    full = (
        ROOT / next(k for k, v in se.STUDENT_PAGES.items() if v == page)
    ).read_text()
    assert text != full


def test_student_home_page_offers_the_notebook_archive():
    assert (
        f"{{download}}`the student notebooks (zip) </{se.ARCHIVE}>`"
        in (ROOT / "student" / "intro.md").read_text()
    )


def _pins(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z0-9][\w.-]*)==(\S+)$", line.split("#")[0].strip())
        if m:
            found[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = m.group(2)
    return found


def test_student_requirements_are_what_a_student_needs_at_the_pins():
    lines = [
        ln.split("#")[0].strip()
        for ln in se.STUDENT_REQUIREMENTS.read_text().splitlines()
        if ln.split("#")[0].strip()
    ]
    student = _pins("\n".join(lines))
    assert len(student) == len(lines), "every requirement pinned exactly (==)"
    constraints = _pins((ROOT / "constraints.txt").read_text())
    for name, version in student.items():
        assert constraints.get(name) == version, (name, version, constraints.get(name))
    # A front end and a kernel; what the chapters import.
    assert {"jupyterlab", "ipykernel"} <= set(student)
    imported = set()
    for path in se.chapter_notebooks():
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                imported |= set(
                    re.findall(r"^\s*(?:from|import)\s+(\w+)", cell.source, re.M)
                )
    third_party = imported - set(sys.stdlib_module_names) - {"attnsig"}
    assert third_party and third_party <= set(student), third_party - set(student)
    # Not the book's build and test tools.
    assert not {"sphinx", "jupyter-book", "pytest", "ruff", "nbval"} & set(student)


def test_the_zip_holds_the_notebooks_the_wheel_and_the_pins(tmp_path):
    notebooks = tmp_path / "notebooks" / "chapters" / "part"
    notebooks.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(), notebooks / "chapter.ipynb")
    archive = tmp_path / "student.zip"
    se.write_archive(tmp_path / "notebooks", archive)
    folder = se.ARCHIVE_FOLDER.as_posix()
    with zipfile.ZipFile(archive) as zf:
        names = set(zf.namelist())
        requirements = zf.read(f"{folder}/requirements.txt").decode()
        constraints = zf.read(f"{folder}/constraints.txt").decode()
    wheels = [n for n in names if re.fullmatch(rf"{folder}/attnsig-[^/]+\.whl", n)]
    assert len(wheels) == 1
    assert f"{folder}/chapters/part/chapter.ipynb" in names
    assert constraints == (ROOT / "constraints.txt").read_text()
    lines = [ln for ln in requirements.splitlines() if not ln.startswith("#")]
    assert f"./{wheels[0].rsplit('/', 1)[1]}" in lines
    assert "-c constraints.txt" in lines and "-e ." not in lines
    assert _pins(requirements) == _pins(se.STUDENT_REQUIREMENTS.read_text())


def test_student_config_launches_the_student_notebooks():
    config = se.student_config(yaml.safe_load((ROOT / "_config.yml").read_text()))
    assert config["repository"]["branch"] == se.STUDENT_BRANCH
    assert (
        config["launch_buttons"]["binderhub_url"]
        and config["launch_buttons"]["colab_url"]
    )
    assert (
        config["html"]["use_repository_button"] is False
    )  # it would open the default branch
    assert config["execute"]["execute_notebooks"] == "off"
    assert (
        config["latex"]["latex_documents"]["targetname"]
        == "attention-and-signatures-student.tex"
    )
    assert (
        "html_copy_source" not in config["sphinx"]["config"]
    )  # the download button needs the sources


def test_pdf_is_named_after_the_book():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert (
        config["latex"]["latex_documents"]["targetname"]
        == "attention-and-signatures.tex"
    )


def test_latex_check_finds_widget_text_and_html(tmp_path):
    tex = tmp_path / "attention-and-signatures.tex"
    tex.write_text("\\begin{document}\\section{One}\\end{document}")
    assert se.check_latex(tex) == []
    tex.write_text(
        "\\begin{sphinxVerbatim}interactive(children=(FloatSlider(value=1.0),))\\end{sphinxVerbatim}<div>"
    )
    assert len(se.check_latex(tex)) == 2
    default = tmp_path / "projectnamenotset.tex"
    default.write_text("")
    assert se.check_latex(default) == [
        "projectnamenotset.tex: the document is not named after the book"
    ]


# --- The instructor's guide
# -------------------------------------------------------------------------


def test_every_exercise_is_in_the_exercise_map():
    data = yaml.safe_load(se.EXERCISE_MAP.read_text())
    labels = [e["label"] for e in se.exercises()]
    missing = sorted(set(labels) - set(data["exercises"]))
    assert not missing, f"add these exercises to tools/exercise_map.yml: {missing}"
    for label, info in data["exercises"].items():
        assert info["sheet"] in data["sheets"] and info["needs"] in (
            "pen and paper",
            "code",
            "both",
        ), label
        assert 5 <= info["minutes"] <= 120, label


def test_instructors_guide_map_is_current():
    text = se.GUIDE.read_text()
    assert se.guide_page(text) == text, "run `python -m tools.student_edition guide`"
    assert "instructors-guide" in (ROOT / "_toc.yml").read_text()
    pages = [se.GUIDE, ROOT / "chapters/appendix/sheet-map.md", ROOT / "intro.md"]
    pages += [ROOT / page for page in [*se.STUDENT_PAGES, *se.STUDENT_PAGES.values()]]
    for page in pages:
        found = re.findall(r"\d{3}_[0-9a-f]{16}", page.read_text())
        assert not found, f"{page.name} names a seed file: {found}"


def test_exercise_numbers_follow_the_book():
    numbers = {e["label"]: e["number"] for e in se.exercises()}
    chapters = book_layout.chapter_numbers()
    assert numbers["ex-onehead-copy"] == f"{chapters['chapters/one-head/one-head']}.1"
    assert len(set(numbers.values())) == len(numbers)


def test_rendered_references_are_read_from_the_html(tmp_path):
    page = tmp_path / "ch.html"
    page.write_text(
        'By <a class="reference internal" href="#thm-x"><span class="std">Theorem'
        ' 4.1</span></a>, and <a class="reference internal" href="other.html#fig-x">'
        "Fig. 7.6</a>."
    )
    assert se.link_texts(tmp_path, {"thm-x", "fig-x"}) == {
        "thm-x": {"Theorem 4.1"},
        "fig-x": {"Fig. 7.6"},
    }
