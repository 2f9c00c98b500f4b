"""The student edition's distance from issue 21's "Done when", as a ratchet.

EDITION_BOUNDS holds the counts of `python -m tools.edition_checks` on 2026-11-26. A
count above its bound fails; a count below it asks (by a warning) for the bound to be
lowered to it, so that the bounds only go down, to 0.
"""

import ast
import warnings

import nbformat
import pytest

from tools import edition_checks as ec
from tools import student_edition as se
from tools.book import Numbered

EDITION_BOUNDS = {
    # chapter: (boxes without a statement, placeholder figures, unquoted "Judge the
    # sheet" exercises, explorers that draw an exercise's answer)
    "tour": (0, 0, 0, 0),
    "rnn-mlp-attention": (0, 0, 0, 0),
    "scaled-dot-product": (0, 0, 0, 0),
    "review-notes": (0, 0, 0, 0),
    "cs224n-a5": (0, 0, 0, 0),
    "one-head": (0, 0, 0, 0),
    "attention-bounds": (0, 0, 0, 0),
    "position-encoding": (0, 0, 0, 0),
    "svd": (0, 0, 0, 0),
    "associative-recall": (0, 0, 0, 0),
    "signatures": (0, 0, 0, 0),
}


@pytest.mark.parametrize("path", se.chapter_notebooks(), ids=lambda p: p.stem)
def test_the_student_edition_only_gets_better(path):
    found = ec.chapter_counts(path)
    for kind, bound in zip(ec.KINDS, EDITION_BOUNDS[path.stem], strict=True):
        assert len(found[kind]) <= bound, (
            f"{path.stem}: {len(found[kind])} {kind} (at most {bound}): {found[kind]}"
        )
        if len(found[kind]) < bound:
            warnings.warn(
                f"{path.stem}: {kind} fell to {len(found[kind])}: lower its bound in "
                "tests/test_edition_checks.py",
                stacklevel=1,
            )


def _md(source):
    return nbformat.v4.new_markdown_cell(source)


def test_boxes_and_figures_without_content_are_counted():
    placeholder = se.placeholder_source(
        [Numbered("prf:theorem", "thm-x"), Numbered("figure", "fig-x")], "ex-x"
    )
    stated = "```{prf:theorem} Stated\n:label: thm-y\n\nFor all $x$, $x = x$.\n```"
    proof = "```{prf:proof}\n```"
    cells = [_md(placeholder), _md(stated), _md(proof)]
    assert ec.statementless_boxes(cells) == ["cell 0: prf:theorem thm-x"]
    assert ec.placeholder_figures(cells) == ["cell 0: fig-x"]
    assert ec.statementless_boxes([_md("````{prf:lemma}\n:label: l\n````")])


def test_a_judge_exercise_must_quote_its_claims():
    statement = "```{exercise} Judge the sheet\n:label: ex-v\n\nGive verdicts.\n```"
    assert ec.unquoted_judge_exercises([_md(statement)]) == [
        "cell 0: ex-v (Judge the sheet)"
    ]
    quoted = [_md(statement), _md("The sheet says:\n\n> 1. softmax is linear")]
    assert ec.unquoted_judge_exercises(quoted) == []
    # A quote after the next exercise does not count for this one.
    other = _md("```{exercise} Next\n:label: ex-n\n\nx\n```")
    assert ec.unquoted_judge_exercises([_md(statement), other, quoted[1]])


def _explorer_notebook(explorer_data: str, draw_text: str):
    data = nbformat.v4.new_code_cell(f"example = {explorer_data}\n")
    exercise = _md("```{exercise} Map\n:label: ex-map\n\nCompute the map.\n```")
    start = _md("```{solution-start} ex-map\n:class: dropdown\n```")
    solution = nbformat.v4.new_code_cell("answer = example * 2\nassert answer == 4\n")
    end = _md("```{solution-end}\n```")
    for cell in (start, solution, end):
        cell.metadata["tags"] = ["solution"]
    draw = nbformat.v4.new_code_cell(
        f"def draw(t=1.0):\n    value = {explorer_data} * t\n"
        f"    ax.set_title({draw_text})\n    return fig\n\n\n"
        'static_explorer(draw, {"t": [1.0, 2.0]}, name="x", alt="x")\n'
    )
    return nbformat.v4.new_notebook(cells=[data, exercise, start, solution, end, draw])


def test_an_explorer_that_draws_an_exercise_value_is_counted():
    nb = _explorer_notebook("example", 'f"{value:.2f}"')
    assert ec.explorer_giveaways(nb) == [
        "explorer 'draw' writes computed values and reads example"
    ]
    # Only its own parameter in the figure, or data no solution reads: no give-away.
    assert ec.explorer_giveaways(_explorer_notebook("example", 'f"t = {t}"')) == []
    assert ec.explorer_giveaways(_explorer_notebook("3.0", 'f"{value:.2f}"')) == []


def test_a_picture_explorer_that_reads_an_exercises_data_is_counted():
    # Only its own parameter in the title, but every frame pictures `example`.
    nb = _explorer_notebook("example", 'f"t = {t}"')
    assert ec.explorer_giveaways(nb, picture_explorers={"x"}) == [
        "explorer 'draw' pictures its data and reads example"
    ]
    assert ec.explorer_giveaways(_explorer_notebook("3.0", 'f"t = {t}"'), {"x"}) == []
    # The chapter's temperature explorer is declared.
    assert "abh-temperature" in ec.PICTURE_EXPLORERS


def test_an_explorer_that_starts_at_a_solutions_example_is_counted():
    nb = _explorer_notebook("3.0", 'f"{value:.2f}"')
    nb.cells[3].source += 'prompt = "A6B8C3B?"\n'
    nb.cells[5].source = nb.cells[5].source.replace("t=1.0", 't=1.0, p="A6B8C3B?"')
    assert ec.explorer_giveaways(nb) == [
        "explorer 'draw' writes computed values and starts at ['A6B8C3B?']"
    ]


def test_an_explorer_frame_declared_as_an_answer_is_counted():
    call = 'static_explorer(draw, {"theta": [0, 20, 40], "s": [0.5]}, name="angle")\n'
    trees = [ast.parse(call)]
    declared = {"angle": {"theta": ((0, 15), (35, 45))}}
    assert ec.explorer_answer_frames(trees, declared) == [
        "explorer 'angle' has a frame at theta=0",
        "explorer 'angle' has a frame at theta=40",
    ]
    assert ec.explorer_answer_frames(trees, {"other": declared["angle"]}) == []
    # The chapter's own explorer: its frames stay between the two exercise designs.
    assert "onehead-angle" in ec.ANSWER_FRAMES
