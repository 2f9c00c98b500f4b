"""Build a one-chapter book in a temporary folder and report its warnings.

    python tools/preview.py chapters/<part>/<chapter>.ipynb [--out DIR]

For authors working on one chapter while others work on theirs: it uses the book's
`_config.yml`, a table of contents of this chapter alone, and a copy of `chapters/` (so
`{doc}` links to other chapters resolve when those exist). Warnings that only concern
other documents are not shown.
It prints the path of the chapter's HTML page.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("chapter", type=Path)
    parser.add_argument(
        "--out", type=Path, default=None, help="folder for the temporary book"
    )
    args = parser.parse_args()
    chapter = args.chapter.resolve().relative_to(ROOT)
    out = args.out or Path(tempfile.mkdtemp(prefix="preview-"))
    book = out / "book"
    shutil.rmtree(book, ignore_errors=True)
    book.mkdir(parents=True)
    shutil.copy(ROOT / "_config.yml", book / "_config.yml")
    # Files the configuration names (the bibliography) and the theme's static files.
    for name in ("references.bib", "_static", "_ext"):
        if (ROOT / name).is_file():
            shutil.copy(ROOT / name, book / name)
        elif (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, book / name)
    shutil.copytree(
        ROOT / "chapters",
        book / "chapters",
        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "_build"),
    )
    (book / "intro.md").write_text("# Preview\n\n```{tableofcontents}\n```\n")
    # Other chapters are listed (so links to them resolve) but hidden and not executed.
    others = sorted(
        p.relative_to(book)
        for p in (book / "chapters").rglob("*")
        if p.suffix in {".ipynb", ".md"} and p.relative_to(book) != chapter
    )
    toc = ["format: jb-book", "root: intro", "chapters:"]
    toc += [f"  - file: {p.with_suffix('')}" for p in [chapter, *others]]
    (book / "_toc.yml").write_text("\n".join(toc) + "\n")
    config = (book / "_config.yml").read_text()
    # Only this chapter is executed; the others render from their stored outputs.
    config = config.replace(
        "execute_notebooks: force",
        "execute_notebooks: force\n  exclude_patterns: ["
        + ", ".join(f'"{p}"' for p in others if p.suffix == ".ipynb")
        + "]",
    )
    (book / "_config.yml").write_text(config)
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    cmd = [str(jupyter_book), "build", str(book), "-n", "--keep-going"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    log = result.stdout + result.stderr
    (out / "build.log").write_text(log)
    stem = str(chapter.with_suffix(""))
    flagged = [ln for ln in log.splitlines() if "WARNING" in ln or "ERROR" in ln]
    warnings = [ln for ln in flagged if stem in ln]
    others_count = len(flagged) - len(warnings)
    print(f"build exit code {result.returncode}; full log: {out / 'build.log'}")
    print(
        f"{len(warnings)} warning(s) in {chapter}"
        + (f" ({others_count} elsewhere, not shown)" if others_count else "")
    )
    for ln in warnings:
        print("  " + ln)
    print(f"HTML: {book / '_build' / 'html' / chapter.with_suffix('.html')}")
    return 1 if warnings or result.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
