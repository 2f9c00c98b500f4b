"""Explorers: a figure that follows a control, on the static page and in Jupyter.

A chapter's explorer is one drawing function
``draw(**params) -> matplotlib.figure.Figure``. Two front ends show it:

* :func:`static_explorer` draws the figure once for every value on a grid of one or two
  parameters and returns self-contained HTML: the images and a few lines of JavaScript,
  with no kernel and no script from the web. Its sliders work in the HTML book (offline
  too) and in any notebook front end that shows trusted HTML output.
* :func:`live_explorer` wraps the same function in ipywidgets sliders for Jupyter,
  Binder and Colab, where a running kernel redraws the figure for any value.

A numeric parameter is a slider that announces its value (``aria-valuetext``); a
parameter of categories (strings, booleans) is a group of radio buttons. In a notebook
the frames travel inside the HTML; in the HTML book this module is also a Sphinx
extension (``attnsig.explorer`` in the book's extensions) that writes them to image
files (lossless WebP) which the page fetches only when the reader reaches or touches
the explorer.

matplotlib and ipywidgets are imported only when an explorer is made, so the rest of the
package needs neither.
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import json
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._validation import check_callable, check_instance, check_positive_int

__all__ = ["StaticExplorer", "static_explorer", "live_explorer"]

_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


# The explorer's behaviour (ES5: any notebook front end runs it). Frames are fetched
# when the explorer comes near the screen, is pointed at or is focused; a control
# redraws the image from the frame of the chosen values.
_SCRIPT = (
    "(function(){var root=document.getElementById(UID);"
    "var sizes=JSON.parse(root.getAttribute('data-sizes'));"
    "var frames=JSON.parse(root.querySelector('script.attnsig-explorer-frames')"
    ".textContent);var img=root.querySelector('img.attnsig-explorer-frame');"
    "var controls=root.querySelectorAll('[data-param]');var kept=null;"
    "function fetchAll(){if(kept)return;kept=frames.map(function(src){"
    "var im=new Image();im.src=src;return im;});}"
    "function show(){fetchAll();var k=0;Array.prototype.forEach.call(controls,"
    "function(el,i){var j;if(el.type==='range'){j=parseInt(el.value,10);"
    "var t=JSON.parse(el.getAttribute('data-labels'))[j];"
    "el.setAttribute('aria-valuetext',t);el.nextElementSibling.textContent=t;}"
    "else{var c=el.querySelector('input:checked');j=c?parseInt(c.value,10):0;}"
    "k=k*sizes[i]+j;});img.src=frames[k];}"
    "root.addEventListener('input',show);root.addEventListener('change',show);"
    "root.addEventListener('pointerenter',fetchAll);"
    "root.addEventListener('focusin',fetchAll);"
    "if(window.IntersectionObserver){var seen=new IntersectionObserver("
    "function(es){if(es.some(function(e){return e.isIntersecting;})){fetchAll();"
    "seen.disconnect();}},{rootMargin:'300px'});seen.observe(root);}"
    "else{fetchAll();}})();"
)


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height in pixels of a PNG image (from its header)."""
    width, height = struct.unpack(">II", png[16:24])
    return width, height


class StaticExplorer:
    """Pre-drawn frames of an explorer and the HTML that switches between them.

    Made by :func:`static_explorer`. In a notebook it shows as HTML (sliders and image);
    where HTML cannot be shown (a PDF build) it shows as the picture at the default
    values.

    Attributes
    ----------
    name : str
        Identifier of the explorer on its page (letters, digits and hyphens).
    grid : dict of str to list
        The values of each parameter, in slider order.
    frames : list of bytes
        PNG images, one per point of the grid (row-major over ``grid``).
    default : tuple of int
        Index of the default value of each parameter.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> def draw(a):
    ...     fig, ax = plt.subplots(figsize=(1, 1))
    ...     ax.plot([0, 1], [0, a])
    ...     return fig
    >>> ex = static_explorer(draw, {"a": [1, 2]}, name="demo", alt="A line.")
    >>> isinstance(ex, StaticExplorer), "<img" in ex.to_html()
    (True, True)
    """

    def __init__(
        self,
        name: str,
        grid: dict[str, list],
        labels: dict[str, str],
        formats: dict[str, str],
        frames: list[bytes],
        default: tuple[int, ...],
        alt: str,
    ) -> None:
        self.name = name
        self.grid = grid
        self.labels = labels
        self.formats = formats
        self.frames = frames
        self.default = default
        self.alt = alt

    def _frame_index(self, indices: Sequence[int]) -> int:
        index = 0
        for values, i in zip(self.grid.values(), indices, strict=True):
            index = index * len(values) + i
        return index

    def _is_category(self, param: str) -> bool:
        """Whether a parameter's values are categories (radio buttons), not numbers."""
        # bool (a subclass of int) is a yes/no choice here, not a number.
        return any(
            issubclass(type(v), bool) or not issubclass(type(v), (int, float))
            for v in self.grid[param]
        )

    def _texts(self, param: str) -> list[str]:
        """What the reader reads for each value of a parameter (booleans: yes, no)."""
        return [
            ("yes" if v else "no")
            if issubclass(type(v), bool)
            else self.formats[param].format(v)
            for v in self.grid[param]
        ]

    def to_html(self) -> str:
        """The explorer as one HTML fragment: controls, readouts, image and script.

        A numeric parameter is a slider whose ``aria-valuetext`` is the value a reader
        sees beside it; a parameter of categories is a group of radio buttons. The
        frames are a JSON list in a ``<script type="application/json">`` element; the
        image shows one of them, and the others are fetched when the reader reaches or
        touches the explorer (the book's build puts file names in that list).
        """
        uid = f"attnsig-explorer-{self.name}"
        sources = [
            "data:image/png;base64," + base64.b64encode(f).decode("ascii")
            for f in self.frames
        ]
        rows = []
        for k, param in enumerate(self.grid):
            label = html.escape(self.labels[param])
            text = self._texts(param)
            at = self.default[k]
            if self._is_category(param):
                options = "".join(
                    f'<label style="margin-right:0.75em"><input type="radio" '
                    f'name="{uid}-{html.escape(param)}" value="{i}"'
                    f"{' checked' if i == at else ''}> {html.escape(t)}</label>"
                    for i, t in enumerate(text)
                )
                rows.append(
                    '<fieldset class="attnsig-explorer-control" '
                    f'data-param="{html.escape(param)}" '
                    # Spacing for notebook front ends, which do not load the book's CSS.
                    'style="display:inline-block;border:0;margin:0 1.5em 0 0;'
                    'padding:0"><legend style="float:left;width:auto;'
                    f'margin:0 0.75em 0 0;padding:0;font-size:inherit">{label}</legend>'
                    f"{options}</fieldset>"
                )
            else:
                rows.append(
                    '<label class="attnsig-explorer-control" '
                    'style="margin-right:1.5em">'
                    f'{label} <input type="range" min="0" max="{len(text) - 1}" '
                    f'step="1" value="{at}" data-param="{html.escape(param)}" '
                    f"data-labels='{html.escape(json.dumps(text))}' "
                    f'aria-label="{label}" aria-valuetext="{html.escape(text[at])}"> '
                    f"<output>{html.escape(text[at])}</output></label>"
                )
        sizes = [len(v) for v in self.grid.values()]
        first = self._frame_index(self.default)
        width, height = _png_size(self.frames[first])
        return (
            f'<div class="attnsig-explorer" id="{uid}" '
            f"data-sizes='{json.dumps(sizes)}'>"
            f'<div class="attnsig-explorer-controls">{"".join(rows)}</div>'
            '<div class="attnsig-explorer-view">'
            f'<img class="attnsig-explorer-frame" src="{sources[first]}" '
            f'width="{width}" height="{height}" alt="{html.escape(self.alt)}" '
            f'style="max-width:100%;height:auto;--natural-width:{width}px"></div>'
            '<script type="application/json" class="attnsig-explorer-frames">'
            f"{json.dumps(sources)}</script>"
            f"<script>{_SCRIPT.replace('UID', json.dumps(uid))}</script></div>"
        )

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        default_png = self.frames[self._frame_index(self.default)]
        return {
            "text/html": self.to_html(),
            "image/png": base64.b64encode(default_png).decode("ascii"),
            "text/plain": f"<static explorer {self.name!r}: {len(self.frames)} frames>",
        }


def static_explorer(
    draw: Callable[..., Any],
    grid: Mapping[str, Sequence],
    *,
    name: str,
    alt: str,
    labels: Mapping[str, str] | None = None,
    formats: Mapping[str, str] | None = None,
    default: Mapping[str, Any] | None = None,
    dpi: int = 80,
) -> StaticExplorer:
    """Draw ``draw(**params)`` for every point of ``grid`` and return a static explorer.

    Parameters
    ----------
    draw : callable
        ``draw(**params)`` returns a matplotlib figure for one value of each parameter
        in ``grid``. The figure is closed after it is drawn.
    grid : mapping of str to sequence
        One or two parameters and the values the sliders step through (at most 64 frames
        in all, so that the page stays light).
    name : str
        Identifier, unique on the page (lower-case letters, digits, hyphens).
    alt : str
        Alternative text of the image, for readers who do not see it.
    labels, formats : mapping of str to str, optional
        Slider label and ``str.format`` pattern of the readout per parameter (default:
        the parameter's name and ``"{:g}"``).
    default : mapping of str to value, optional
        Starting value of each parameter (default: the middle of its grid); must lie on
        the grid.
    dpi : int
        Resolution of the frames.

    Returns
    -------
    StaticExplorer
        Shown as HTML in notebooks and in the book, as its default picture elsewhere.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> def draw(a):
    ...     fig, ax = plt.subplots(figsize=(2, 2))
    ...     ax.plot([0, 1], [0, a])
    ...     return fig
    >>> grid = {"a": [0.5, 1.0, 2.0]}
    >>> ex = static_explorer(draw, grid, name="slope", alt="A line of slope a.")
    >>> len(ex.frames), ex.default
    (3, (1,))
    """
    import matplotlib.pyplot as plt

    check_callable(draw, "draw", "a callable returning a matplotlib figure")
    check_instance(
        name, "name", str, "a string of lower-case letters, digits and hyphens"
    )
    if not _NAME.match(name):
        raise ValueError(
            f"name must be lower-case letters, digits and hyphens; got {name!r}"
        )
    check_instance(alt, "alt", str, "a non-empty description of the image")
    if not alt.strip():
        raise ValueError(
            f"alt must be a non-empty description of the image; got {alt!r}"
        )
    check_instance(
        grid, "grid", Mapping, "a mapping of one or two parameter names to values"
    )
    if not 1 <= len(grid) <= 2:
        raise ValueError(
            f"grid must map one or two parameter names to values; got {grid!r}"
        )
    check_positive_int(dpi, "dpi")
    values = {str(k): list(v) for k, v in grid.items()}
    for param, vals in values.items():
        if not vals:
            raise ValueError(f"grid[{param!r}] must hold at least one value; got none")
    count = 1
    for vals in values.values():
        count *= len(vals)
    if count > 64:
        raise ValueError(f"grid must have at most 64 points in all; got {count}")
    labels = {p: (labels or {}).get(p, p) for p in values}
    formats = {p: (formats or {}).get(p, "{:g}") for p in values}
    start = []
    for param, vals in values.items():
        if default is not None and param in default:
            if default[param] not in vals:
                raise ValueError(
                    f"default[{param!r}] must be one of grid[{param!r}]; "
                    f"got {default[param]!r}"
                )
            start.append(vals.index(default[param]))
        else:
            start.append(len(vals) // 2)
    frames = []
    for point in itertools.product(*values.values()):
        fig = draw(**dict(zip(values, point, strict=True)))
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
        plt.close(fig)
        frames.append(buffer.getvalue())
    return StaticExplorer(name, values, labels, formats, frames, tuple(start), alt)


def live_explorer(draw: Callable[..., Any], **controls: Any):
    """An ipywidgets explorer: ``draw(**params)`` redrawn whenever a control moves.

    Parameters
    ----------
    draw : callable
        ``draw(**params)`` returns a matplotlib figure.
    **controls
        One ipywidgets control (or an ``interactive`` abbreviation such as
        ``(0.0, 1.0, 0.1)``) per parameter of ``draw``.

    Returns
    -------
    ipywidgets.interactive
        The widget; it needs a running kernel (Jupyter, Binder, Colab).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> def draw(a):
    ...     fig, ax = plt.subplots(figsize=(2, 2))
    ...     ax.plot([0, 1], [0, a])
    ...     return fig
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # no front end: drop the redraw
    ...     w = live_explorer(draw, a=(0.0, 2.0, 0.5))
    >>> type(w).__name__
    'interactive'
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    def show(**params: Any) -> None:
        draw(**params)
        plt.show()

    return widgets.interactive(show, **controls)


# --- The HTML book: frames as image files ---------------------------------------------

_FRAMES = re.compile(
    r'(<script type="application/json" class="attnsig-explorer-frames">)(.*?)'
    r"(</script>)",
    re.S,
)
_SHOWN = re.compile(r'<img class="attnsig-explorer-frame" src="(data:image/png;[^"]*)"')


def _frames_to_files(page: str, save: Callable[[bytes], str]) -> str:
    """An HTML page whose explorers name image files instead of carrying their frames.

    ``save(png)`` stores one frame and returns the address the page fetches it from.
    The image shown first is loaded lazily, when it comes near the screen.

    Examples
    --------
    >>> page = (
    ...     '<img class="attnsig-explorer-frame" src="data:image/png;base64,AAAA">'
    ...     '<script type="application/json" class="attnsig-explorer-frames">'
    ...     '["data:image/png;base64,AAAA", "data:image/png;base64,AAAB"]</script>'
    ... )
    >>> stored = []
    >>> def save(png):
    ...     stored.append(png)
    ...     return f"f{len(stored)}"
    >>> out = _frames_to_files(page, save)
    >>> print(out)  # doctest: +NORMALIZE_WHITESPACE
    <img class="attnsig-explorer-frame" loading="lazy" src="f1"><script
    type="application/json" class="attnsig-explorer-frames">["f1", "f2"]</script>
    """
    addresses: dict[str, str] = {}

    def address(source: str) -> str:
        if source not in addresses:
            png = base64.b64decode(source.split(",", 1)[1])
            addresses[source] = save(png)
        return addresses[source]

    def frames(match: re.Match) -> str:
        sources = json.loads(match.group(2))
        names = json.dumps([address(s) for s in sources])
        return match.group(1) + names + match.group(3)

    def shown(match: re.Match) -> str:
        return (
            '<img class="attnsig-explorer-frame" loading="lazy" '
            f'src="{html.escape(address(match.group(1)))}"'
        )

    page = _FRAMES.sub(frames, page)
    return _SHOWN.sub(shown, page)


_EAGER_IMG = re.compile(r"<img (?![^>]*\bloading=)")


def _lazy_images(page: str) -> str:
    """Every picture of a page fetched when it comes near the screen, not up front.

    Examples
    --------
    >>> _lazy_images('<img src="a.png" alt="A"><img loading="eager" src="b.png">')
    '<img loading="lazy" src="a.png" alt="A"><img loading="eager" src="b.png">'
    """
    return _EAGER_IMG.sub('<img loading="lazy" ', page)


def _mathjax_components(app: Any, config: Any) -> None:
    # sphinx-mathjax-offline sets the combined tex-chtml.js (with its 426 kB menu) over
    # the book's own choice; a book that lists its MathJax components
    # (``mathjax3_config.loader.load``) gets MathJax's loader, which fetches just those.
    load = ((getattr(config, "mathjax3_config", None) or {}).get("loader") or {}).get(
        "load"
    )
    path = str(getattr(config, "mathjax_path", "") or "")
    if load and path.endswith("tex-chtml.js"):
        config.mathjax_path = path[: -len("tex-chtml.js")] + "startup.js"


def setup(app: Any) -> dict[str, Any]:
    """Sphinx extension: light pages, whose pictures load when the reader reaches them.

    Each explorer frame is written once (lossless WebP, named by its content) to
    ``_images/explorer/`` of the built book; a page then holds the explorer's controls
    and file names, not its images. Every picture of a page's body (figures too) is
    loaded lazily, so that a phone fetches the pictures of the screen it shows. MathJax
    comes as its loader and the components that ``mathjax3_config.loader.load`` names,
    when the book names them.
    """
    import hashlib
    from pathlib import Path

    def page_context(app, pagename, templatename, context, doctree) -> None:
        body = context.get("body")
        if not body:
            return
        folder = Path(app.builder.outdir) / "_images" / "explorer"

        def save(png: bytes) -> str:
            from PIL import Image

            name = hashlib.sha256(png).hexdigest()[:24] + ".webp"
            path = folder / name
            if not path.exists():
                folder.mkdir(parents=True, exist_ok=True)
                with Image.open(io.BytesIO(png)) as image:
                    image.save(path, "WEBP", lossless=True)
            return context["pathto"](f"_images/explorer/{name}", 1)

        context["body"] = _lazy_images(_frames_to_files(body, save))

    app.connect("html-page-context", page_context)
    app.connect("config-inited", _mathjax_components)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
