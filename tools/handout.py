"""The notebooks handed to readers, in plain Jupyter Markdown.

    python -m tools.handout full-html [HTML]   # the full edition's download and launch
    python -m tools.handout full DIR           # the full edition's notebooks, into DIR

The book's notebooks are written in MyST (```{exercise}, {ref}`...`), which only the
book's build understands: plain JupyterLab, Notebook 7, VS Code and Colab would show
the fences and roles as text. Every notebook a reader downloads or launches is
therefore a rendered copy (`tools.jupyter_markdown.to_jupyter`): numbered titles as in
the book, math in `$...$`, cross-references as links to the published page of the same
edition.

* The student edition (`tools.student_edition build`) writes its notebooks, its zip and
  its HTML download copies through `handout_notebook`; the `student` branch
  (`tools.publish student-tree`) gets them from there.
* The full edition's sources stay MyST. `full-html` replaces the download copies
  (`_sources/.../*.ipynb`) of a built full edition by rendered ones and points its
  Binder and Colab buttons at `full/` on the `student` branch, where
  `tools.publish student-tree` writes the same rendered copies (`write_full`). A
  solution keeps its cells under a heading "Solution to Exercise 4.1".
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace
from pathlib import Path

import nbformat

from tools import book
from tools.book import ROOT, STUDENT_BRANCH, chapter_notebooks, solution_blocks
from tools.jupyter_markdown import Context, context_for, to_jupyter
from tools.nbtools import repository_url

FULL_HTML = ROOT / "_build" / "html"
# The folder of the `student` branch that holds the full edition's launch targets.
FULL_FOLDER = "full"

# What is left of MyST if a conversion missed it: a directive fence (```{name} or
# :::{name}), a role ({name}`...`), a directive option line, a target line.
MYST_LEFT = re.compile(
    r"^[ \t>]*(?:`{3,}|:{3,})\{[\w:.-]+\}"
    r"|\{[a-z][\w:+.-]*\}`"
    r"|^[ \t>]*:(?:label|name|class|nonumber|tags):"
    r"|^[ \t]*\([^)\s]+\)=[ \t]*$",
    re.M,
)


def site_url(edition: str = "full", root: Path = ROOT) -> str:
    """The published address of an edition, ending in '/'.

    GitHub Pages serves the repository ``github.com/<owner>/<name>`` at
    ``<owner>.github.io/<name>/`` (`tools.publish site`: the full edition at the root,
    the student edition under ``student/``); derived from `repository.url`, so that a
    fork's notebooks link to the fork's pages.
    """
    owner, name = repository_url(root).rstrip("/").split("/")[-2:]
    base = f"https://{owner.lower()}.github.io/{name}/"
    return base + ("student/" if edition == "student" else "")


def myst_in(text: str) -> list[str]:
    """The MyST markup left in one markdown text (empty when none)."""
    # Inline code shows its text as typed (a sheet's `\\mathbf{x}`); a role's content,
    # right after its closing brace, is not inline code and stays.
    plain = re.sub(r"(?<!\})`[^`\n]*`", "``", text)
    return [m.group(0).strip() for m in MYST_LEFT.finditer(plain)]


def myst_left(nb) -> list[str]:
    """The MyST markup left in the markdown cells of a notebook (empty when none)."""
    return [
        left
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for left in myst_in(cell.source)
    ]


_SOLUTION_START = re.compile(
    r"^[ \t]*(`{3,}|:{3,})\{solution-start\}[^\n]*\n"
    r"(?:[ \t]*:[\w-]+:[^\n]*\n)*[ \t]*\1[ \t]*$",
    re.M,
)
_SOLUTION_END = re.compile(
    r"^[ \t]*(`{3,}|:{3,})\{solution-end\}[^\n]*\n[ \t]*\1[ \t]*$", re.M
)


def _mark_solutions(nb, numbers: dict[str, str], context: Context) -> None:
    """Put a heading where each solution starts and a line where it ends.

    Jupyter has no fold-out box that spans cells; a heading lets JupyterLab fold the
    solution (its cells sit under the heading) and names the exercise it answers.
    """
    titles = {label: title for label, title, _ in book.exercises_in(nb.cells)}
    for start, stop, label in solution_blocks(nb):
        name = f"Exercise {numbers[label]}" if label in numbers else "the exercise"
        title = titles.get(label, "")
        head = f"#### Solution to {name}" + (f" ({title})" if title else "")
        first, last = nb.cells[start], nb.cells[stop - 1]
        # A function as replacement: the heading is text, not a template (backslashes).
        first.source = _SOLUTION_START.sub(lambda _, h=head: h, first.source, count=1)
        if last.cell_type == "markdown":
            end = f"*End of the solution to {name}.*"
            last.source = _SOLUTION_END.sub(lambda _, e=end: e, last.source, count=1)


def handout_notebook(nb, context: Context, numbers: dict[str, str] | None = None):
    """The notebook with its markdown in plain Jupyter Markdown (modified in place).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A chapter notebook of either edition (a student notebook has no solutions
        left; a full one keeps them, under a "Solution to Exercise 4.1" heading).
    context : Context
        `tools.jupyter_markdown.context_for` the notebook, with `base_url` set to the
        published edition the links should open.
    numbers : dict, optional
        Exercise label -> number ("4.1"), for the solutions' headings.

    Returns
    -------
    nbformat.NotebookNode
        The same notebook; markdown cells that convert to nothing (an index entry, the
        end of a solution without text) are left out.

    Examples
    --------
    >>> from tools.jupyter_markdown import Context
    >>> nb = nbformat.v4.new_notebook()
    >>> nb.cells = [nbformat.v4.new_markdown_cell("See {ref}`ex-a`.")]
    >>> ctx = Context(exercises={"ex-a": "4.1"}, locations={"ex-a": "ch#ex-a"},
    ...               base_url="https://example.org/book/")
    >>> handout_notebook(nb, ctx).cells[0].source
    'See [Exercise 4.1](https://example.org/book/ch.html#ex-a).'
    """
    _mark_solutions(nb, numbers or context.exercises, context)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = to_jupyter(cell.source, context)
            # A notebook cell's attachments and ids stay; the book's figure metadata
            # (myst-nb's caption and name) means nothing to Jupyter but does no harm.
    nb.cells = [c for c in nb.cells if c.cell_type != "markdown" or c.source.strip()]
    return nb


def handout_copy(path: Path, root: Path, edition: str):
    """The rendered copy of the chapter notebook at `path` (a book under `root`)."""
    context = replace(context_for(path, root), base_url=site_url(edition, root))
    nb = nbformat.read(path, as_version=4)
    return handout_notebook(nb, context, context.exercises)


def write_full(target: Path, root: Path = ROOT) -> list[Path]:
    """The full edition's chapter notebooks, rendered, in the repository's layout."""
    written = []
    for path in chapter_notebooks(root):
        out = target / path.relative_to(root)
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(handout_copy(path, root, "full"), out)
        written.append(out)
    return written


def launch_addresses(docname: str, root: Path = ROOT) -> dict[str, tuple[str, str]]:
    """Binder's and Colab's address of a chapter as Jupyter Book writes it, and where
    the full edition's button should point instead (the rendered copy on the
    `student` branch).
    """
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text())
    repo = repository_url(root).rstrip("/")
    owner, name = repo.split("/")[-2:]
    branch = config.get("repository", {}).get("branch", "main")
    folder = str(config.get("repository", {}).get("path_to_book", "")).strip("/")
    source = f"{folder}/{docname}.ipynb" if folder else f"{docname}.ipynb"
    rendered = f"{FULL_FOLDER}/{docname}.ipynb"
    launch = config.get("launch_buttons", {})
    ui = {"classic": "tree", "jupyterlab": "lab/tree"}[
        launch.get("notebook_interface", "classic")
    ]
    found = {}
    for key, setting, template in (  # {0}: a branch, {1}: a path in it
        ("binder", "binderhub_url", "{url}/v2/gh/{owner}/{name}/{0}?urlpath={ui}/{1}"),
        ("colab", "colab_url", "{url}/github/{owner}/{name}/blob/{0}/{1}"),
    ):
        url = str(launch.get(setting, "")).rstrip("/")
        fill = {"url": url, "owner": owner, "name": name, "ui": ui}
        pairs = ((branch, source), (STUDENT_BRANCH, rendered))
        if url:
            found[key] = tuple(template.format(*pair, **fill) for pair in pairs)
    return found


def full_html(html: Path = FULL_HTML, root: Path = ROOT) -> int:
    """Rendered download copies and launch targets for a built full edition."""
    if not (html / "index.html").exists():
        print(f"no full edition at {html}: run `make book` first")
        return 1
    count = 0
    for path in chapter_notebooks(root):
        docname = path.relative_to(root).with_suffix("").as_posix()
        source = html / "_sources" / f"{docname}.ipynb"
        if source.exists():
            nb = handout_copy(path, root, "full")
            left = myst_left(nb)
            if left:
                print(f"{docname}: MyST left after the conversion: {left[:3]}")
                return 1
            nbformat.write(nb, source)
            count += 1
        page = html / f"{docname}.html"
        if page.exists():
            text = page.read_text()
            for old, new in launch_addresses(docname, root).values():
                text = text.replace(f'"{old}"', f'"{new}"')
            page.write_text(text)
    print(f"full edition: {count} download copies in plain Jupyter Markdown")
    return 0 if count else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    html = sub.add_parser("full-html", help="render a built full edition's notebooks")
    html.add_argument("html", nargs="?", type=Path, default=FULL_HTML)
    sub.add_parser("full", help="the full edition's notebooks, into DIR").add_argument(
        "target", type=Path
    )
    args = parser.parse_args(argv)
    if args.command == "full-html":
        return full_html(args.html)
    written = write_full(args.target)
    print(f"{len(written)} full-edition notebooks in {args.target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
