"""Fixtures of the browser tests: both editions served on 127.0.0.1, one Chromium.

The tests run when they are asked for by path (``pytest tests/browser``, which
``make browser`` does after building both editions); inside a plain ``pytest tests``
they are skipped, because the editions are built after that run. They need Debian's
``chromium`` (or ``ATTNSIG_CHROMIUM``) and the ``playwright`` Python package; without
either they skip with a message. No browser is ever downloaded.
"""

from __future__ import annotations

import datetime
import functools
import http.server
import json
import os
import re
import statistics
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EDITIONS = {
    "full": ROOT / "_build" / "html",
    "student": ROOT / "_build" / "student" / "html",
}
BUILD_COMMANDS = {
    "full": "make book (jupyter-book build . -W -n --keep-going)",
    "student": "make student (python tools/student_edition.py build)",
}
WIDTHS = {"desktop": 1400, "phone": 400}
FAILURES = ROOT / "_build" / "browser-failures"
# Per-page measurements (one JSON file a page, written by whichever worker tests it) and
# their summary, written at the end of the run: the README's figures come from it.
METRICS = ROOT / "_build" / "browser-metrics"
REPORT = ROOT / "_build" / "browser-report.json"
# The median chapter page fetches at most this many bytes (each at most 3.0 MB:
# test_pages.py).
MAX_MEDIAN_CHAPTER_BYTES = 2_000_000
ICON_FONTS = ROOT / "_static" / "fonts"
CHROMIUM = os.environ.get("ATTNSIG_CHROMIUM", "/usr/bin/chromium")
# In CI (and with ATTNSIG_REQUIRE_BROWSER=1) a missing browser or edition is a failure.
REQUIRED = (
    os.environ.get("CI") == "true" or os.environ.get("ATTNSIG_REQUIRE_BROWSER") == "1"
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
_SKIP_DIRS = {"_static", "_sources", "_images", "_downloads"}


def _requested(config) -> bool:
    """Whether the browser tests were named on the command line (or by environment)."""
    if os.environ.get("ATTNSIG_BROWSER_TESTS") == "1":
        return True
    for arg in config.args:
        path = Path(arg.split("::")[0]).resolve()
        if path == HERE or HERE in path.parents:
            return True
    return False


def _controller(config) -> bool:
    return not hasattr(config, "workerinput")


def pytest_configure(config):
    if _controller(config) and _requested(config) and METRICS.is_dir():
        for old in METRICS.glob("*.json"):
            old.unlink()


def record(edition: str, page: str, **values) -> None:
    """Add measurements of a page to its metrics file."""
    METRICS.mkdir(parents=True, exist_ok=True)
    path = METRICS / (re.sub(r"[^A-Za-z0-9.-]+", "_", f"{edition}-{page}") + ".json")
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(values, edition=edition, page=page)
    path.write_text(json.dumps(data))


def summary() -> dict | None:
    """Page weights and axe results of the run, per edition, from the metrics files."""
    pages = [json.loads(p.read_text()) for p in sorted(METRICS.glob("*.json"))]
    if not pages:
        return None
    report: dict = {"date": datetime.date.today().isoformat(), "editions": {}}
    for edition in EDITIONS:
        mine = [p for p in pages if p["edition"] == edition]
        chapters = [
            p["weight"]["total"]
            for p in mine
            if "weight" in p and p["page"].startswith("chapters/")
        ]
        axe = [p["axe"] for p in mine if "axe" in p]
        report["editions"][edition] = {
            "pages": len(mine),
            "chapter_pages": len(chapters),
            "median_chapter_bytes": int(statistics.median(chapters))
            if chapters
            else None,
            "max_chapter_bytes": max(chapters) if chapters else None,
            "axe_pages": len(axe),
            "axe": {
                mode: {
                    level: sum(a[mode][level] for a in axe)
                    for level in ("critical", "serious", "moderate", "minor")
                }
                for mode in ("light", "dark")
            },
        }
    return report


def _report_markdown(report: dict) -> str:
    lines = [f"Browser suite, {report['date']}:", ""]
    for edition, r in report["editions"].items():
        if not r["chapter_pages"]:
            continue
        light, dark = r["axe"]["light"], r["axe"]["dark"]
        mb = r["median_chapter_bytes"] / 1e6, r["max_chapter_bytes"] / 1e6
        lines.append(
            f"- {edition} edition: chapter pages fetch {mb[0]:.2f} MB (median of "
            f"{r['chapter_pages']}), at most {mb[1]:.2f} MB; axe-core (WCAG 2.1 A/AA) "
            f"on {r['axe_pages']} pages: {light['critical']} critical and "
            f"{light['serious']} serious violations in light mode, {dark['critical']} "
            f"and {dark['serious']} in dark mode"
        )
    return "\n".join(lines) + "\n"


def pytest_sessionfinish(session, exitstatus):
    if not _controller(session.config) or not _requested(session.config):
        return
    report = summary()
    if report is None:
        return
    REPORT.write_text(json.dumps(report, indent=2) + "\n")
    REPORT.with_suffix(".md").write_text(_report_markdown(report))
    heavy = {
        e: r["median_chapter_bytes"]
        for e, r in report["editions"].items()
        if r["median_chapter_bytes"]
        and r["median_chapter_bytes"] > MAX_MEDIAN_CHAPTER_BYTES
    }
    session.config._attnsig_heavy = heavy
    if heavy:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@functools.cache
def icon_fonts() -> dict[str, set[int]]:
    """Code points of the subset icon fonts (tools/icon_fonts.py), by family."""
    from fontTools.ttLib import TTFont

    fonts = {}
    for family, name in (("solid", "fa-solid-900"), ("brands", "fa-brands-400")):
        path = ICON_FONTS / f"{name}.subset.woff"
        fonts[family] = set(TTFont(path).getBestCmap()) if path.exists() else set()
    return fonts


def pytest_collection_modifyitems(config, items):
    if _requested(config):
        return
    # Inside a plain `pytest tests` run (before the editions are built): not run, not
    # counted as skipped either.
    browser = [i for i in items if HERE in Path(str(i.fspath)).resolve().parents]
    if browser:
        config.hook.pytest_deselected(items=browser)
        items[:] = [i for i in items if i not in browser]
        config._attnsig_browser_deselected = len(browser)


def pytest_terminal_summary(terminalreporter, config):
    if (
        REPORT.with_suffix(".md").exists()
        and _controller(config)
        and _requested(config)
    ):
        terminalreporter.write_line(REPORT.with_suffix(".md").read_text().strip())
    for edition, median in getattr(config, "_attnsig_heavy", {}).items():
        terminalreporter.write_line(
            f"FAILED: the median chapter page of the {edition} edition fetches "
            f"{median:,} bytes (at most {MAX_MEDIAN_CHAPTER_BYTES:,})",
            red=True,
        )
    count = getattr(config, "_attnsig_browser_deselected", 0)
    if count:
        terminalreporter.write_line(
            f"{count} browser tests not run here: they need both editions built; "
            "run `make browser` (or `pytest tests/browser`)"
        )


def _skip(reason: str):
    if REQUIRED:
        pytest.fail(f"{reason} (required here: CI or ATTNSIG_REQUIRE_BROWSER=1)")
    pytest.skip(reason)


def is_redirect(path: Path) -> bool:
    head = path.read_text(errors="replace")[:400]
    return bool(re.search(r'http-equiv="Refresh"', head, re.I))


def edition_pages(edition: str) -> list[str]:
    """Every HTML page of a built edition, as paths relative to its root."""
    root = EDITIONS[edition]
    if not root.is_dir():
        return []
    pages = []
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root)
        if _SKIP_DIRS & set(rel.parts[:-1]):
            continue
        pages.append(rel.as_posix())
    return pages


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@pytest.fixture(scope="session")
def servers():
    """Start (lazily) one local HTTP server per edition; yields edition -> base URL."""
    running: dict[str, tuple[http.server.ThreadingHTTPServer, str]] = {}

    def start(edition: str) -> str:
        root = EDITIONS[edition]
        if not root.is_dir():
            _skip(
                f"the {edition} edition is not built ({root} is missing): run "
                f"{BUILD_COMMANDS[edition]} first"
            )
        if edition not in running:
            handler = functools.partial(_QuietHandler, directory=str(root))
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            running[edition] = (server, f"http://127.0.0.1:{server.server_address[1]}/")
        return running[edition][1]

    yield start
    for server, _ in running.values():
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (Debian's; never a downloaded one)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _skip("playwright is not installed: pip install -r requirements-test.txt")
    if not Path(CHROMIUM).exists():
        _skip(
            f"no Chromium at {CHROMIUM}: install Debian's `chromium` "
            "(apt-get install chromium) or set ATTNSIG_CHROMIUM"
        )
    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


class Tab:
    """The one browser page of the session: console errors and requests off the server.

    A page is loaded once and then measured at each width by resizing the viewport (the
    layout follows the width through CSS media queries, and the theme's scripts read the
    width when a toggle is clicked): loading and typesetting every page twice would
    double the run time.
    """

    def __init__(self, browser, width: int):
        self.width = width
        self.url: str | None = None
        self.context = browser.new_context(
            viewport={"width": width, "height": 900}, service_workers="block"
        )
        self.errors: list[str] = []
        self.external: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))

    def _route(self, route):
        url = route.request.url
        if re.match(r"^https?://127\.0\.0\.1(:\d+)?/", url):
            route.continue_()
        else:
            self.external.append(url)
            route.abort()

    def _console(self, message):
        if message.type == "error":
            self.errors.append(message.text)

    def reset(self) -> None:
        self.errors.clear()
        self.external.clear()

    def resize(self, width: int) -> None:
        if width != self.width:
            self.page.set_viewport_size({"width": width, "height": 900})
            self.width = width
            # the page's own resize handler (book.js: which boxes scroll, and so take
            # a tab stop) runs once more 100 ms after the last resize event
            self.page.wait_for_timeout(250)
            self.settle()

    def settle(self, timeout: float = 3000) -> None:
        """Wait for CSS transitions (a sidebar sliding out after a resize) to end."""
        try:
            self.page.wait_for_function(
                "() => document.getAnimations().every(a => a.playState !== 'running'"
                " || a.effect?.getComputedTiming().iterations === Infinity)",
                timeout=timeout,
                polling=50,
            )
        except Exception:
            pass  # an endless animation is not what these tests look at

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="session")
def tab(browser):
    """One page reused by every test (a context per test would double the run time)."""
    made = Tab(browser, WIDTHS["desktop"])
    yield made
    made.close()


def save_failure(page, name: str) -> Path:
    """Screenshot of the first problem marked by the checks (outlined in red)."""
    FAILURES.mkdir(parents=True, exist_ok=True)
    path = FAILURES / (re.sub(r"[^A-Za-z0-9.-]+", "_", name) + ".png")
    try:
        marked = page.locator("[data-browser-test-problem]")
        if marked.count():
            first = marked.first
            first.evaluate(
                "el => { el.style.outline = '3px solid red'; "
                "el.scrollIntoView({block: 'center'}); }"
            )
            page.screenshot(path=str(path), timeout=15000)
        else:
            height = page.evaluate("() => document.documentElement.scrollHeight")
            page.screenshot(path=str(path), full_page=height < 6000, timeout=15000)
    except Exception:  # a screenshot must not hide the failure it documents
        page.screenshot(path=str(path), timeout=15000)
    return path
