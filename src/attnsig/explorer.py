"""Explorers: a figure that follows a control, on the static page and in Jupyter.

A chapter's explorer is one drawing function
``draw(**params) -> matplotlib.figure.Figure``. Two front ends show it:

* :func:`static_explorer` draws the figure once for every value on a grid of one or two
  parameters and returns self-contained HTML: the images and a few lines of JavaScript,
  with no kernel and no script from the web. Its sliders work in the HTML book (offline
  too) and in any notebook front end that shows trusted HTML output.
* :func:`live_explorer` wraps the same function in ipywidgets sliders for Jupyter,
  Binder and Colab, where a running kernel redraws the figure for any value.

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
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._validation import check_callable, check_instance, check_positive_int

__all__ = ["StaticExplorer", "static_explorer", "live_explorer"]

_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


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

    def to_html(self) -> str:
        """The explorer as one HTML fragment: sliders, readouts, image and script."""
        uid = f"attnsig-explorer-{self.name}"
        sources = [
            "data:image/png;base64," + base64.b64encode(f).decode("ascii")
            for f in self.frames
        ]
        rows = []
        for k, (param, values) in enumerate(self.grid.items()):
            label = html.escape(self.labels[param])
            text = [self.formats[param].format(v) for v in values]
            rows.append(
                '<label class="attnsig-explorer-control" '
                # Spacing for notebook front ends, which do not load the book's CSS.
                f'style="margin-right:1.5em">{label} '
                f'<input type="range" min="0" max="{len(values) - 1}" step="1" '
                f'value="{self.default[k]}" data-param="{html.escape(param)}" '
                f"data-labels='{html.escape(json.dumps(text))}' "
                f'aria-label="{label}"> '
                f"<output>{html.escape(text[self.default[k]])}</output></label>"
            )
        sizes = [len(v) for v in self.grid.values()]
        first = sources[self._frame_index(self.default)]
        return (
            f'<div class="attnsig-explorer" id="{uid}">'
            f'<div class="attnsig-explorer-controls">{"".join(rows)}</div>'
            f'<img class="attnsig-explorer-frame" src="{first}" '
            f'alt="{html.escape(self.alt)}" '
            'style="max-width:100%;height:auto">'
            "<script>(function(){"
            f"var root=document.getElementById({json.dumps(uid)});"
            f"var frames={json.dumps(sources)};var sizes={json.dumps(sizes)};"
            "var inputs=root.querySelectorAll('input[type=range]');"
            "var img=root.querySelector('img');"
            "function show(){var k=0;inputs.forEach(function(el,i){"
            "k=k*sizes[i]+parseInt(el.value,10);"
            "el.nextElementSibling.textContent=JSON.parse(el.dataset.labels)[el.value];});"
            "img.src=frames[k];}"
            "inputs.forEach(function(el){el.addEventListener('input',show);});"
            "})();</script></div>"
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
