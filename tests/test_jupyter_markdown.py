"""Assignment notebooks' markdown in plain Jupyter Markdown (tools/jupyter_markdown).

Hand cases for each MyST construct the chapters use, then the whole book: no role or
directive fence survives the conversion of a cell a student sees.
"""

from __future__ import annotations

import nbformat
import pytest

from tools.book import ROOT, chapter_notebooks, in_solution
from tools.handout import myst_in
from tools.jupyter_markdown import (
    Context,
    Figure,
    Reference,
    Theorem,
    context_for,
    to_jupyter,
)

CTX = Context(
    docname="chapters/one-head/one-head",
    exercises={"ex-onehead-copy": "7.1", "ex-other": "8.3"},
    theorems={
        "thm-abh-variance": Theorem("theorem", "Dot products of random vectors", "4.1"),
        "rem-x": Theorem("remark", "A remark", "7.1"),
        "thm-unnumbered": Theorem("theorem", "No number known", ""),
    },
    figures={
        "fig-abh-dependency": Figure("3.1", "Dependency maps of four layers"),
        "fig-long": Figure(
            "", "The variance of the raw score $q \\cdot k$ grows like $d_k$ here."
        ),
    },
    sections={"sec-tr-multihead": "Multi-head attention", "notation": "Notation"},
    documents={
        "chapters/one-head/one-head": "What one attention head can do",
        "chapters/appendix/notation": "Notation",
        "chapters/getting-started/how-to-use": "How to use this book",
        "chapters/appendix/sheet-map": "Sheet map",
    },
    bibliography={
        "vaswani2017attention": Reference(("Vaswani", "Shazeer", "Parmar"), "2017"),
        "smith2020": Reference(("Smith", "Jones"), "2020"),
        "elman1990finding": Reference(("Elman",), "1990"),
        "many2021": Reference(("Olsson", "others"), "2021"),
        "sheet": Reference((), "", "Self-Attention and Transformers"),
    },
)


def convert(text: str) -> str:
    return to_jupyter(text, CTX)


# --- Roles
# ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("An {term}`attention head` here.", "An attention head here."),
        ("Two {term}`heads <head>`.", "Two heads."),
        (
            "See {doc}`/chapters/one-head/one-head`.",
            "See What one attention head can do.",
        ),
        (
            "The {doc}`notation page </chapters/appendix/notation>`.",
            "The notation page.",
        ),
        ("Read {doc}`../getting-started/how-to-use`.", "Read How to use this book."),
        ("Unknown {doc}`/chapters/x/some-page`.", "Unknown some page."),
        ("As in {cite:p}`vaswani2017attention`.", "As in (Vaswani et al., 2017)."),
        ("{cite:t}`vaswani2017attention` show", "Vaswani et al. (2017) show"),
        ("{cite:t}`smith2020` show", "Smith and Jones (2020) show"),
        ("{cite:t}`many2021` show", "Olsson et al. (2021) show"),
        (
            "Both {cite:p}`elman1990finding, smith2020`.",
            "Both (Elman, 1990; Smith and Jones, 2020).",
        ),
        # A sheet is named by the sentence citing it: no title in brackets again.
        ("The sheet *Self-Attention* {cite:p}`sheet`.", "The sheet *Self-Attention*."),
        ("{cite:t}`sheet` asks", "*Self-Attention and Transformers* asks"),
        ("Both {cite:p}`sheet, smith2020`.", "Both (Smith and Jones, 2020)."),
        ("The sheet **S**\n{cite:p}`sheet`, part 2", "The sheet **S**, part 2"),
        ("The sheet **S**\n{cite:p}`sheet`\nends.", "The sheet **S**\nends."),
        ("First.\n{cite:t}`smith2020` show", "First.\nSmith and Jones (2020) show"),
        ("{cite:p}`nokey`", "(nokey)"),
        ("In {ref}`ex-onehead-copy`, part 1", "In Exercise 7.1, part 1"),
        ("In {ref}`ex-other`", "In Exercise 8.3"),
        ("Do {ref}`this one <ex-onehead-copy>`.", "Do this one."),
        ("See {ref}`sec-tr-multihead`.", "See Multi-head attention."),
        ("Page {ref}`notation`:", "Page Notation:"),
        ("Lost {ref}`sec-not-there`.", "Lost sec not there."),
        ("By {prf:ref}`thm-abh-variance`,", "By Theorem 4.1,"),
        ("By {prf:ref}`rem-x`,", "By Remark 7.1,"),
        ("By {prf:ref}`thm-unnumbered`,", "By the theorem *No number known*,"),
        ("By {prf:ref}`the bound <thm-abh-variance>`,", "By the bound,"),
        ("{numref}`fig-abh-dependency` shows", "Figure 3.1 shows"),
        ("{numref}`Fig. %s <fig-abh-dependency>` shows", "Fig. 3.1 shows"),
        (
            "{numref}`fig-long` shows",
            "the figure *The variance of the raw score $q \\cdot k$…* shows",
        ),
        ("inline {math}`x^2` math", "inline $x^2$ math"),
    ],
)
def test_roles(source, expected):
    assert convert(source) == expected


def test_role_across_a_line_break():
    assert convert("a {term}`memory of fixed\nsize <fixed-size memory>` b") == (
        "a memory of fixed size b"
    )


def test_caption_is_cut_after_its_formula():
    fig = Figure("", "With $a + b + c + d + e + f + g + h + i$ and more words here")
    text = to_jupyter("{numref}`f`", Context(figures={"f": fig}))
    assert text.count("$") == 2 and text.endswith("$…*")


def test_inline_code_is_left_alone():
    text = "Write ``{term}`x` `` or `` {ref}`y` `` and `a` {term}`b`."
    assert convert(text) == "Write ``{term}`x` `` or `` {ref}`y` `` and `a` b."
    assert convert("`{term}` and {term}`y`") == "`{term}` and y"


# --- Directives
# ---------------------------------------------------------------


def test_exercise():
    source = (
        "## Copying\n\n```{exercise} Copying a value\n:label: ex-onehead-copy\n\n"
        "1. Explain.\n2. Compute.\n```\n"
    )
    assert convert(source) == (
        "## Copying\n\n**Exercise 7.1** (Copying a value)\n\n1. Explain.\n2. Compute.\n"
    )


def test_exercise_without_title_or_label():
    assert convert("```{exercise}\nDo it.\n```") == "**Exercise**\n\nDo it."


def test_theorem_and_proof():
    source = (
        "```{prf:theorem} Dot products of random vectors\n:label: thm-abh-variance\n\n"
        "Let $q, k$ be random.\nThen $E[q\\cdot k] = 0$.\n```\n\n"
        "```{prf:proof}\nExpand the sum.\n```"
    )
    assert convert(source) == (
        "**Theorem 4.1** (Dot products of random vectors). Let $q, k$ be random.\n"
        "Then $E[q\\cdot k] = 0$.\n\n*Proof.* Expand the sum. ∎"
    )


def test_theorem_opening_with_a_formula_and_proof_ending_with_one():
    source = (
        "```{prf:theorem}\n$$\nx = 1\n$$\n```\n\n"
        "```{prf:proof}\nSo\n\n$$\nx = 1\n$$\n```"
    )
    assert convert(source) == (
        "**Theorem.**\n\n$$\nx = 1\n$$\n\n*Proof.* So\n\n$$\nx = 1\n$$\n\n∎"
    )


def test_index_and_targets_go():
    source = "(sec-x)=\n## Title\n\n```{index} softmax, head\n```\n\n\nText."
    assert convert(source) == "## Title\n\nText."


def test_admonition_becomes_a_blockquote():
    source = (
        "```{admonition} About the original solution\n:class: note\n\n"
        "The sheet is right.\n\nMostly, see {term}`head`.\n```"
    )
    assert convert(source) == (
        "> **About the original solution**\n>\n> The sheet is right.\n>\n"
        "> Mostly, see head."
    )


def test_dropdown_admonition_stays_folded():
    source = (
        "```{admonition} Open after the exercises\n:class: dropdown\n\n"
        '> 1. "A quoted claim."\n```'
    )
    assert convert(source) == (
        "<details>\n<summary>Open after the exercises</summary>\n\n"
        '> 1. "A quoted claim."\n\n</details>'
    )


def test_colon_fence_and_named_admonitions():
    assert convert(":::{admonition} Title\n:class: note\n\nBody.\n:::") == (
        "> **Title**\n>\n> Body."
    )
    assert convert("```{warning}\nCareful.\n```") == "> **Warning**\n>\n> Careful."
    assert convert("```{note} Inline start.\n```") == "> **Note**\n>\n> Inline start."


def test_nested_directives_and_a_role_inside():
    source = (
        "````{exercise} Outer\n:label: ex-onehead-copy\n\n"
        "By {prf:ref}`thm-abh-variance`:\n\n"
        "```{admonition} Hint\n:class: tip\n\nUse {cite:t}`smith2020`.\n```\n"
        "````"
    )
    assert convert(source) == (
        "**Exercise 7.1** (Outer)\n\nBy Theorem 4.1:\n\n"
        "> **Hint**\n>\n> Use Smith and Jones (2020)."
    )


def test_code_blocks_are_left_alone():
    source = "Code:\n\n```python\nx = {term}`y`\n```{note}\n```\n\nAfter {term}`z`."
    assert convert(source) == (
        "Code:\n\n```python\nx = {term}`y`\n```{note}\n```\n\nAfter z."
    )
    inside = "```{note}\nRun:\n\n~~~python\nprint('{ref}`x`')\n~~~\n```"
    assert convert(inside) == (
        "> **Note**\n>\n> Run:\n>\n> ~~~python\n> print('{ref}`x`')\n> ~~~"
    )


def test_directive_in_a_list_item():
    source = "1. Item\n\n   ```{note}\n   Body.\n   ```\n2. Next"
    assert convert(source) == "1. Item\n\n   > **Note**\n   >\n   > Body.\n2. Next"


def test_other_directives_keep_their_body():
    assert convert("```{solution-start} ex-x\n:class: dropdown\n```") == ""
    assert convert("```{margin}\nA side note.\n```") == "A side note."
    assert convert("```{math}\nx^2\n```") == "$$\nx^2\n$$"


def test_figure_keeps_its_number_and_caption():
    source = "```{figure} /_static/x.png\n:name: fig-abh-dependency\n\nMaps.\n```"
    assert convert(source) == "*Figure 3.1.* Maps."
    assert convert(source.replace("fig-abh-dependency", "fig-unknown")) == "Maps."


def test_math_passes_through():
    source = (
        "Let $a_{ij}$ and\n\n$$\n"
        "\\begin{aligned} x &= {y} \\\\ z &= 1\\end{aligned}\n$$\n\n"
        "\\begin{align}\nx &= 1\n\\end{align}"
    )
    assert convert(source) == source


@pytest.mark.parametrize(
    "text",
    [
        "# Title\n\nPlain *markdown* with `code` and $x$.\n",
        "- a list\n- with ```` ` ```` ticks\n\n| a | b |\n|---|---|\n",
        "```\nunlabelled fence\n```\n",
        "",
    ],
)
def test_plain_markdown_is_unchanged(text):
    assert convert(text) == text


def test_idempotent():
    source = (
        "(sec-x)=\n## T\n\n```{exercise} E\n:label: ex-other\n\n{term}`a <b>`\n```\n"
    )
    once = convert(source)
    assert convert(once) == once


# --- The whole book
# ---------------------------------------------------------------


def test_context_of_the_book():
    ctx = context_for(ROOT / "chapters" / "one-head" / "one-head.ipynb")
    assert ctx.docname == "chapters/one-head/one-head"
    assert ctx.exercises["ex-onehead-copy"].endswith(".1")
    assert ctx.theorems["thm-abh-variance"].title == "Dot products of random vectors"
    assert ctx.figures["fig-abh-dependency"].caption
    assert ctx.sections["notation"] == "Notation"
    assert ctx.documents["chapters/appendix/notation"] == "Notation"
    assert ctx.bibliography["vaswani2017attention"].year == "2017"


@pytest.mark.parametrize(
    "path", chapter_notebooks(), ids=lambda p: str(p.relative_to(ROOT))
)
def test_book_has_no_myst_left(path):
    ctx = context_for(path)
    nb = nbformat.read(path, as_version=4)
    for cell, hidden in zip(nb.cells, in_solution(nb), strict=True):
        if cell.cell_type != "markdown" or hidden:
            continue
        text = to_jupyter(cell.source, ctx)
        assert not myst_in(text), text
        if cell.source.count("$") % 2 == 0:
            assert text.count("$") % 2 == 0, text
        assert to_jupyter(text, ctx) == text
