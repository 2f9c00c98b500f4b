"""The book's icon fonts, subset to the icons its pages show.

    python tools/icon_fonts.py [BUILT_HTML_DIR ...]   (default: both built editions)

pydata-sphinx-theme draws its icons (the header buttons, the sidebar toggles, the
admonition titles) from Font Awesome's webfonts, 274 kB in all, and ships the 1.45
MB JavaScript of every Font Awesome icon besides (replaced in `_static/scripts/` by
an empty file). This writes `_static/fonts/` with the solid and brands fonts cut down
to the icons that the built pages name (``fa-*`` classes) and the theme's admonition
icons, as WOFF; `_static/book.css` declares them after the theme's fonts, so they
replace them. Run it again after a theme upgrade or a new icon; the browser tests
fail on a page whose icon is missing from these fonts.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FONTS = ROOT / "_static" / "fonts"
EDITIONS = [ROOT / "_build" / "html", ROOT / "_build" / "student" / "html"]
# (theme's font file, subset written to _static/fonts)
SUBSETS = [
    ("fa-solid-900.ttf", "fa-solid-900.subset.woff"),
    ("fa-brands-400.ttf", "fa-brands-400.subset.woff"),
]


def theme_static() -> Path:
    import pydata_sphinx_theme

    package = Path(pydata_sphinx_theme.__file__).parent
    return package / "theme" / "pydata_sphinx_theme" / "static"


def icon_names(folders: list[Path]) -> set[str]:
    """The ``fa-*`` classes of every built page (and of the theme's scripts)."""
    names: set[str] = set()
    for folder in folders:
        paths = [*folder.rglob("*.html"), *(folder / "_static").rglob("*.js")]
        for path in paths:
            text = path.read_text(errors="replace")
            names |= set(re.findall(r"\bfa-([a-z0-9-]+)", text))
    return names


def codepoints(css: str, names: set[str]) -> set[int]:
    """Code points of the named icons and of the theme's own icon variables."""
    found = set()
    for selectors, glyph in re.findall(r'([^{}]+)\{content:"\\([0-9a-f]+)"\}', css):
        shown = set(re.findall(r"\.fa-([a-z0-9-]+):{1,2}before", selectors))
        if shown & names:
            found.add(int(glyph, 16))
    for value in re.findall(r'--pst-icon-[a-z-]+:"([^"]+)"', css):
        found |= {ord(c) for c in value if ord(c) >= 0xE000}
    return found


def main(argv: list[str] | None = None) -> int:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("html", nargs="*", type=Path, help="built HTML folders")
    folders = parser.parse_args(argv).html or [f for f in EDITIONS if f.is_dir()]
    if not folders:
        print("no built edition: run `make book student` first")
        return 1
    static = theme_static()
    css = (static / "styles" / "pydata-sphinx-theme.css").read_text()
    wanted = codepoints(css, icon_names(folders))
    FONTS.mkdir(parents=True, exist_ok=True)
    for source, target in SUBSETS:
        font = TTFont(static / "vendor" / "fontawesome" / "webfonts" / source)
        present = wanted & set(font.getBestCmap())
        options = subset.Options()
        options.flavor = "woff"
        options.layout_features = []
        options.name_IDs = ["*"]  # the licence and copyright notices stay in the file
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(present))
        subsetter.subset(font)
        font.flavor = "woff"
        font.save(FONTS / target)
        print(
            f"{target}: {len(present)} icons, {(FONTS / target).stat().st_size} bytes"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
