"""The chapters' MyST markdown as plain Jupyter Markdown, for the assignment notebooks.

The book writes its markdown cells in MyST (roles such as {term}`head` or
{prf:ref}`thm-x`, directives such as ```{exercise}). Jupyter and Colab render
CommonMark with `$...$` and `$$...$$` math but no MyST, so a student would see the raw
fences and roles. `to_jupyter` rewrites one cell's markdown into what the book's page
shows, as far as that can be known without a Sphinx build:

* roles become their text: a term, a section or page title, "Exercise 7.3",
  "Theorem 7.2", "Figure 7.1", "Vaswani et al. (2017)";
* directives become plain markdown: an exercise a bold "**Exercise 7.3** (Title)"
  line, a theorem "**Theorem 7.2** (Title).", a proof "*Proof.* ... ∎", an admonition
  a blockquote; `index` directives and `(label)=` targets go;
* math, inline code and fenced code blocks are left alone.

Numbers of exercises, theorems and figures are counted per chapter, as the book counts
them (`tools.student_edition.exercise_numbers` and `numbered_objects`), not read from
a build. Citations are written author-year, whatever the book's bibliography style.

`context_for(path)` gathers what the conversion needs from the whole book (a reference
may point into another chapter).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin

from tools import book
from tools.book import ROOT


@dataclass(frozen=True)
class Theorem:
    """A numbered statement of sphinx-proof (theorem, lemma, remark, ...)."""

    kind: str  # "theorem", without the "prf:" prefix
    title: str = ""
    number: str = ""  # "7.2"; empty when unknown


@dataclass(frozen=True)
class Figure:
    """A figure: its number in the book ("7.1", empty when unknown) and caption."""

    number: str = ""
    caption: str = ""


@dataclass(frozen=True)
class Reference:
    """A bibliography entry, reduced to what an author-year citation shows."""

    authors: tuple[str, ...] = ()  # last names; "others" for a truncated list
    year: str = ""
    title: str = ""


@dataclass(frozen=True)
class Context:
    """What converting the markdown of one document needs to know about the book.

    Attributes
    ----------
    docname : str
        The document being converted, e.g. ``chapters/one-head/one-head``: relative
        {doc} targets are resolved from its folder.
    exercises : dict
        Exercise label -> number ("7.3"), over the whole book.
    theorems : dict
        Label of a sphinx-proof statement -> `Theorem`.
    figures : dict
        Figure name -> `Figure`.
    sections : dict
        Target label ``(label)=`` -> the heading that follows it.
    documents : dict
        Docname -> title (the first ``# `` heading).
    bibliography : dict
        Citation key -> `Reference`.
    locations : dict
        Label (of an exercise, statement, figure or section target) or glossary term
        (``term:<slug>``) -> ``docname#anchor``, where the book's page shows it.
    base_url : str
        The published edition's address, ending in ``/``. When set, references become
        links to the published page; when empty (the assignments), plain text.
    """

    docname: str = ""
    exercises: dict[str, str] = field(default_factory=dict)
    theorems: dict[str, Theorem] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)
    documents: dict[str, str] = field(default_factory=dict)
    bibliography: dict[str, Reference] = field(default_factory=dict)
    locations: dict[str, str] = field(default_factory=dict)
    base_url: str = ""


# --- Gathering the context
# ---------------------------------------------------------------


def _slug(text: str) -> str:
    """The anchor docutils makes of a text: lower case, runs of other characters '-'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _walk(text: str):
    """The block tokens of MyST text, directives' bodies included; a directive's token
    carries its name, arguments and options in `meta`.
    """
    for token in _MARKDOWN.parse(text):
        yield token
        directive = token.type.endswith("fence") and _DIRECTIVE_INFO.match(token.info)
        if directive:
            options, body = _options(token.content.split("\n"))
            args = directive.group("args").strip()
            token.meta.update(name=directive.group("name"), args=args, options=options)
            yield from _walk("\n".join(body))


def _plain(text: str) -> str:
    """Bib text without LaTeX grouping braces."""
    return re.sub(r"\s+", " ", text.replace("{", "").replace("}", "")).strip()


def read_bibliography(path: Path) -> dict[str, Reference]:
    """Author last names, year and title of every entry of a BibTeX file."""
    from pybtex.database import parse_file  # a dependency of sphinxcontrib-bibtex

    entries = {}
    for key, entry in parse_file(str(path)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        authors = tuple(
            _plain(" ".join([*person.prelast_names, *person.last_names]))
            for person in people
        )
        entries[key] = Reference(
            authors=authors,
            year=_plain(entry.fields.get("year", "")),
            title=_plain(entry.fields.get("title", "")),
        )
    return entries


@lru_cache(maxsize=4)
def book_context(root: Path = ROOT) -> Context:
    """The context of the whole book, without a current document."""
    chapters = book.chapter_numbers(root)
    exercises: dict[str, str] = {}
    locations: dict[str, str] = {}
    for path in book.chapter_notebooks(root):
        numbers = book.exercise_numbers(path, root)
        exercises.update(numbers)
        docname = path.relative_to(root).with_suffix("").as_posix()
        locations.update({label: f"{docname}#{label}" for label in numbers})
    theorems: dict[str, Theorem] = {}
    figures: dict[str, Figure] = {}
    sections: dict[str, str] = {}
    documents: dict[str, str] = {}
    for docname in ["intro", *book.toc_entries(root)]:
        # The page's notebook, or its markdown file as one markdown cell.
        if (root / f"{docname}.ipynb").exists():
            cells = nbformat.read(root / f"{docname}.ipynb", as_version=4).cells
        elif (root / f"{docname}.md").exists():
            text = (root / f"{docname}.md").read_text(encoding="utf-8")
            cells = [nbformat.v4.new_markdown_cell(text)]
        else:
            continue
        markdown = "\n\n".join(c.source for c in cells if c.cell_type == "markdown")
        tokens = list(_walk(markdown))
        titles = {}
        for k, token in enumerate(tokens):
            options, name = token.meta.get("options", {}), token.meta.get("name", "")
            label = options.get("label") or options.get("name")
            if token.type == "myst_target":
                label = token.content
                if tokens[k + 1 : k + 2] and tokens[k + 1].type == "heading_open":
                    sections[label] = tokens[k + 2].content.strip()
            elif token.tag == "h1" and token.type == "heading_open":
                documents.setdefault(docname, tokens[k + 1].content)
            elif name == "glossary":
                for term in re.findall(r"^(\S[^\n]*?)[ \t]*$", token.content, re.M):
                    slug = _slug(term)
                    locations.setdefault(f"term:{slug}", f"{docname}#term-{slug}")
            elif name.startswith("prf:") and label:
                titles[label] = token.meta["args"]
            # Every target Sphinx gives an anchor of the label's own name (a section
            # keeps its label among its ids), except glossary terms: "term-" and the
            # term's slug.
            if label:
                locations.setdefault(label, f"{docname}#{label}")
        for cell in cells:
            figure = book.figure_options(cell)
            if figure.get("name"):
                figures[figure["name"]] = Figure(caption=figure.get("caption", ""))
                locations.setdefault(figure["name"], f"{docname}#{figure['name']}")
        # Sphinx numbers each kind of object on its own, chapter by chapter ("7.2"):
        # sphinx-proof keeps one counter per directive type, numfig one for figures.
        chapter = chapters.get(docname)
        counts: dict[str, int] = {}
        for obj in book.numbered_objects(cells):
            counts[obj.kind] = counts.get(obj.kind, 0) + 1
            number = f"{chapter}.{counts[obj.kind]}" if chapter else ""
            if obj.kind.startswith("prf:") and obj.label:
                theorems[obj.label] = Theorem(
                    obj.kind.removeprefix("prf:"), titles.get(obj.label, ""), number
                )
            elif obj.kind == "figure" and obj.label:
                caption = figures.get(obj.label, Figure()).caption
                figures[obj.label] = Figure(number, caption)
    bib = root / "references.bib"
    return Context(
        exercises=exercises,
        theorems=theorems,
        figures=figures,
        sections=sections,
        documents=documents,
        bibliography=read_bibliography(bib) if bib.exists() else {},
        locations=locations,
    )


def context_for(notebook_path: Path, root: Path = ROOT) -> Context:
    """The context for converting the markdown of one chapter notebook (or page).

    Parameters
    ----------
    notebook_path : Path
        The chapter notebook (or markdown page) whose cells will be converted.
    root : Path
        The book's root (`_toc.yml`, `references.bib`).

    Returns
    -------
    Context
        The book-wide labels, titles and citations (gathered once per root and
        cached), with `docname` set to this document.
    """
    path = Path(notebook_path).resolve()
    try:
        docname = path.relative_to(root.resolve()).with_suffix("").as_posix()
    except ValueError:  # a copy outside the book: relative {doc} links stay unresolved
        docname = path.with_suffix("").name
    return replace(book_context(root), docname=docname)


# --- Roles
# ---------------------------------------------------------------

# A code span (left alone) or a role. A code span does not cross a blank line.
_INLINE = re.compile(
    r"(?P<code>(?<!`)(?P<ticks>`+)(?!`)(?:(?!\n[ \t]*\n)[\s\S])*?(?<!`)(?P=ticks)(?!`))"
    r"|(?P<space>[ \t]*(?:\n[ \t]*)?)\{(?P<role>[\w:+.-]+)\}`(?P<content>[^`]*)`"
)
_EXPLICIT = re.compile(r"^(?P<text>[\s\S]*?)\s*<(?P<target>[^<>]+)>$")
_ADMONITION_TITLES = {"seealso": "See also"} | {
    name: name.title()
    for name in "attention caution danger error hint important note tip warning".split()
}
_CAPTION_WORDS = 8


def _split(content: str) -> tuple[str, str]:
    """(text, target) of a role's content: ``text <target>`` or ``target``."""
    content = " ".join(content.split())
    m = _EXPLICIT.match(content)
    if m and m.group("text"):
        return m.group("text"), m.group("target").strip()
    return "", content


def _words(label: str) -> str:
    """An unknown label read as words: ``sec-tr-multihead`` -> ``sec tr multihead``."""
    return re.sub(r"[-_:]+", " ", label).strip()


def _short_caption(caption: str) -> str:
    """The first words of a caption, never cutting a formula in two."""
    words, end = caption.split(), _CAPTION_WORDS
    if len(words) <= end:
        return caption.strip()
    # An odd number of dollars would leave an open formula: run on to its end.
    while " ".join(words[:end]).count("$") % 2 and end < len(words):
        end += 1
    return " ".join(words[:end]).rstrip(",;:.") + "…"


def _author_text(ref: Reference) -> str:
    names = [n for n in ref.authors if n != "others"]
    if not names:
        return f"*{ref.title}*" if ref.title else ""
    if len(ref.authors) >= 3 or len(names) < len(ref.authors):
        return f"{names[0]} et al."
    return " and ".join(names)


def _cite(kind: str, keys: str, ctx: Context) -> str:
    textual, parts = kind in {"t", "ts", "alt", "alts"}, []
    for key in filter(None, (k.strip() for k in keys.split(","))):
        ref = ctx.bibliography.get(key)
        # A work without author or year is a course sheet, which the book names in
        # the sentence that cites it: in brackets its title would say it twice.
        if ref and not textual and not ref.year and not _named(ref):
            continue
        who = (_author_text(ref) or key) if ref else key
        if ref and ref.year:
            who = f"{who} ({ref.year})" if textual else f"{who}, {ref.year}"
        parts.append(who)
    if not parts:
        return ""
    return ", ".join(parts) if textual else "(" + "; ".join(parts) + ")"


def _named(ref: Reference) -> bool:
    return any(n != "others" for n in ref.authors)


def _document(target: str, ctx: Context, depth: int) -> str:
    name = _document_name(target, ctx)
    title = ctx.documents.get(name)
    if title is None:
        return _words(posixpath.basename(name))
    return _inline(title, ctx, depth + 1)


def _numbered(label: str, ctx: Context, depth: int) -> str | None:
    """'Exercise 7.3', 'Theorem 7.2' or 'Figure 7.1' for a label the book numbers."""
    if label in ctx.exercises:
        return f"Exercise {ctx.exercises[label]}"
    if label in ctx.theorems:
        thm = ctx.theorems[label]
        if thm.number:
            return f"{thm.kind.title()} {thm.number}"
        if thm.title:
            return f"the {thm.kind} *{_inline(thm.title, ctx, depth + 1)}*"
        return f"the {thm.kind}"
    if label in ctx.figures:
        fig = ctx.figures[label]
        if fig.number:
            return f"Figure {fig.number}"
        caption = _inline(_short_caption(fig.caption), ctx, depth + 1)
        return f"the figure *{caption}*" if caption else "the figure"
    return None


def _document_name(target: str, ctx: Context) -> str:
    """The docname a {doc} target names, from the current document's folder."""
    target = re.sub(r"\.(ipynb|md)$", "", target)
    if target.startswith("/"):
        return target.lstrip("/")
    return posixpath.normpath(posixpath.join(posixpath.dirname(ctx.docname), target))


def _address(name: str, content: str, ctx: Context) -> str | None:
    """The published page (and anchor) a role points to, when the context knows it."""
    if not ctx.base_url:
        return None
    _, target = _split(content)
    if name == "doc":
        where = _document_name(target, ctx)
        where = where if where in ctx.documents else None
    elif name in {"ref", "numref", "prf:ref", "term"}:
        key = f"term:{_slug(target)}" if name == "term" else target
        where = ctx.locations.get(key)
    else:
        return None
    if where is None:
        return None
    page, _, anchor = where.partition("#")
    return f"{ctx.base_url}{page}.html" + (f"#{anchor}" if anchor else "")


def _role(name: str, content: str, ctx: Context, depth: int) -> str:
    """A role's text, as a link to the published page when its address is known."""
    text = _role_text(name, content, ctx, depth)
    address = _address(name, content, ctx)
    if address is None or not text or depth:
        return text
    # Link text may hold math and emphasis, not brackets that would end it early.
    return f"[{text.replace('[', '(').replace(']', ')')}]({address})"


def _role_text(name: str, content: str, ctx: Context, depth: int) -> str:
    text, target = _split(content)
    domain, _, kind = name.rpartition(":")
    if domain == "cite" or name == "cite":
        return _cite(kind if domain else "p", target, ctx)
    if name == "math":
        return f"${content}$"
    if name in {"ref", "numref", "prf:ref", "eq"} and text:
        if name == "numref" and "%s" in text:  # "Figure %s": the number goes in
            number = _numbered(target, ctx, depth) or ""
            return text.replace("%s", number.rpartition(" ")[2] or _words(target))
        return text
    if name == "doc":
        return text or _document(target, ctx, depth)
    if name in {"ref", "numref", "prf:ref"}:
        found = _numbered(target, ctx, depth)
        if found is not None and (name != "ref" or target not in ctx.sections):
            return found
        if target in ctx.sections:
            return _inline(ctx.sections[target], ctx, depth + 1)
        if target in ctx.documents:  # a page's own label
            return _inline(ctx.documents[target], ctx, depth + 1)
        return _words(target)
    if name == "eq":
        return f"({_words(target)})"
    if name == "abbr":  # "CSS (Cascading Style Sheets)": the abbreviation
        return re.sub(r"\s*\([^()]*\)$", "", content)
    # {term}, {sub-ref}, {download} and any other role: the text it shows.
    return text or target


def _inline(text: str, ctx: Context, depth: int = 0) -> str:
    """Replace the roles of a run of prose, leaving code spans alone."""
    if depth > 3:  # a title that refers to itself
        return text

    def sub(m: re.Match) -> str:
        if m.group("code"):
            return m.group("code")
        text = _role(m.group("role"), m.group("content"), ctx, depth)
        return m.group("space") + text if text else ""

    return _INLINE.sub(sub, text)


# --- Directives
# ---------------------------------------------------------------

_DIRECTIVE_INFO = re.compile(r"^\{(?P<name>[\w:.-]+)\}(?P<args>.*)$")
_OPTION_LINE = re.compile(r"^[ \t]*:(?P<key>[\w-]+):(?P<value>.*)$")
# The block structure (fences, colon fences, `(label)=` targets) as MyST reads it.
_MARKDOWN = MarkdownIt("commonmark").use(colon_fence_plugin).use(myst_block_plugin)
# A first body line that starts a paragraph (not math, a list, a table, a heading...),
# onto which a theorem's or proof's heading can run on.
_NOT_PROSE = re.compile(r"^([-*+][ \t]|\d+[.)][ \t]|[#>|<]|\$\$|\\begin|[`~:]{3})")


def _blocks(lines: list[str]) -> dict[int, tuple[int, str, str, str]]:
    """First line -> (line after the end, fence, indent, info) of every directive, code
    fence and target (fence and info empty) of a run of markdown lines.
    """
    found = {}
    for token in _MARKDOWN.parse("\n".join(lines)):
        if token.map is None or token.map[0] in found:
            continue
        first = lines[token.map[0]]
        indent = first[: len(first) - len(first.lstrip())]
        if token.type == "myst_target" and not indent.strip():
            found[token.map[0]] = (token.map[1], "", indent, "")
        elif token.type in ("fence", "colon_fence") and first.strip().startswith(
            token.markup
        ):
            found[token.map[0]] = (token.map[1], token.markup, indent, token.info)
    return found


def _options(body: list[str]) -> tuple[dict[str, str], list[str]]:
    """A directive's options (``:key: value`` lines or a ``---`` YAML block)."""
    options: dict[str, str] = {}
    if body and body[0].strip() == "---":
        end = next((i for i, ln in enumerate(body[1:], 1) if ln.strip() == "---"), None)
        if end is not None:
            for line in body[1:end]:
                key, _, value = line.partition(":")
                options[key.strip()] = value.strip()
            return options, body[end + 1 :]
    i = 0
    while i < len(body) and (m := _OPTION_LINE.match(body[i])):
        options[m.group("key")] = m.group("value").strip()
        i += 1
    return options, body[i:]


def _trim(lines: list[str], start: bool = True) -> list[str]:
    """Lines without trailing blank ones, nor leading ones when `start`."""
    kept = [i for i, ln in enumerate(lines) if ln.strip()]
    return lines[kept[0] if start else 0 : kept[-1] + 1] if kept else []


def _run_on(head: str, body: list[str]) -> list[str]:
    """A heading followed by the body: on the same line when the body opens with a
    paragraph (as the book typesets a theorem), else as a paragraph of its own.
    """
    if body and body[0].strip() and not _NOT_PROSE.match(body[0].lstrip()):
        return [f"{head} {body[0].lstrip()}", *body[1:]]
    return [head, "", *body] if body else [head]


def _end_proof(body: list[str]) -> list[str]:
    """The body with the end-of-proof mark after its last paragraph."""
    if not body:
        return ["∎"]
    last = body[-1].rstrip()
    if re.search(r"(\$\$|[`~:]{3,}|\\end\{\w+\*?\}|\|)$", last) or last.startswith("#"):
        return [*body, "", "∎"]  # not onto a formula, a code block or a table row
    return [*body[:-1], f"{last} ∎"]


def _directive(
    name: str, args: str, body: list[str], ctx: Context, depth: int
) -> list[str]:
    """The markdown lines that stand for one directive."""
    options, body = _options(body)
    args = args.strip()
    if name in {"index", "solution-start", "solution-end", "tableofcontents"}:
        return []
    if name == "math":
        return ["$$", *_trim(body), "$$"]
    if name in {"code", "code-block", "code-cell", "sourcecode"}:
        return [f"```{args}", *_trim(body), "```"]
    inner = _trim(_lines(_trim(body), ctx, depth + 1))
    title = _inline(args, ctx)
    if name == "exercise":
        label = options.get("label", "")
        number = "" if "nonumber" in options else ctx.exercises.get(label, "")
        head = f"**Exercise {number}**" if number else "**Exercise**"
        head += f" ({title})" if title else ""
        return [head, "", *inner] if inner else [head]
    if name == "prf:proof":
        return _end_proof(_run_on("*Proof.*", inner))
    if name.startswith("prf:"):
        kind = name.removeprefix("prf:")
        thm = ctx.theorems.get(options.get("label", ""), Theorem(kind))
        number = "" if "nonumber" in options else thm.number
        name = f"{kind.title()} {number}" if number else kind.title()
        head = f"**{name}** ({title})." if title else f"**{name}.**"
        return _run_on(head, inner)
    if name in _ADMONITION_TITLES or name in {"admonition", "dropdown", "sidebar"}:
        if name in _ADMONITION_TITLES:
            # These take no title: text on the directive's line is the body's start.
            if args:
                inner = [_inline(args, ctx), *inner]
            title = _ADMONITION_TITLES[name]
        if "dropdown" in options.get("class", "").split():
            # Folded in the book, so folded in Jupyter too: what it holds (say, the
            # answers of earlier exercises) stays hidden until the reader opens it.
            summary = f"<summary>{title or 'Details'}</summary>"
            return ["<details>", summary, "", *inner, "", "</details>"]
        quoted = [f"> {ln}" if ln.strip() else ">" for ln in inner]
        return [f"> **{title}**", ">", *quoted] if title else quoted
    if name in {"figure", "image"}:
        # The caption, under the figure's number: the picture's path is the book's.
        figure = ctx.figures.get(options.get("name", ""))
        if name == "figure" and figure and figure.number and inner:
            return _run_on(f"*Figure {figure.number}.*", inner)
        return inner
    return inner


def _lines(lines: list[str], ctx: Context, depth: int = 0) -> list[str]:
    """Convert a run of markdown lines: directives, code blocks, targets and prose."""
    out: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        if prose:
            out.extend(_inline("\n".join(prose), ctx).split("\n"))
            prose.clear()

    def drop_blank_after_removal(i: int) -> int:
        # What was removed leaves no double blank line behind it: after a blank line,
        # or at the start, the blank lines that followed it go too.
        before = prose[-1] if prose else out[-1] if out else ""
        if not before.strip():
            while i < len(lines) and not lines[i].strip():
                i += 1
        return i

    blocks, i = _blocks(lines), 0
    while i < len(lines):
        stop, fence, indent, info = blocks.get(i, (0, None, "", ""))
        directive = _DIRECTIVE_INFO.match(info.strip())
        if fence is None or (fence[:1] == ":" and not directive):
            prose.append(lines[i])  # a colon fence without a directive is prose
            i += 1
        elif fence and not directive:  # a code block, left as it is
            flush()
            out.extend(lines[i:stop])
            i = stop
        else:  # a directive, or a target (which goes)
            rendered = []
            if directive:
                end = lines[stop - 1].strip() if stop - 1 > i else ""
                closed = re.fullmatch(f"{re.escape(fence[0])}{{{len(fence)},}}", end)
                body = [
                    ln.removeprefix(indent) for ln in lines[i + 1 : stop - bool(closed)]
                ]
                name, args = directive.group("name"), directive.group("args")
                rendered = _directive(name, args, body, ctx, depth)
            i = stop
            if rendered:
                flush()
                out.extend(indent + ln if ln else ln for ln in rendered)
            else:
                i = drop_blank_after_removal(i)
    flush()
    return out


def to_jupyter(source: str, context: Context) -> str:
    """The markdown of a cell with its MyST roles and directives in plain Markdown.

    Parameters
    ----------
    source : str
        A markdown cell's source (MyST).
    context : Context
        What the book knows about labels, titles and citations (`context_for`).

    Returns
    -------
    str
        CommonMark with ``$...$`` and ``$$...$$`` math, which Jupyter renders. Plain
        Markdown comes back unchanged; inline code and code blocks are never touched.
    """
    lines = source.split("\n")
    converted = _lines(lines, context)
    if converted == lines:
        return source
    if not any(ln.strip() for ln in converted):
        return ""
    # A removal at the end (an index entry, a target) leaves no blank tail: keep the
    # source's own ending.
    tail = len(lines) - len(_trim(lines, start=False))
    return "\n".join([*_trim(converted, start=False), *[""] * tail])
