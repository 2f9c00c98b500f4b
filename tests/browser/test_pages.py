"""What a reader sees: every page of both editions in Chromium, at 1400 px and 400 px.

A page fails on raw TeX in its text or a MathJax error, a JavaScript console error, a
request to a host other than the local server, an image without alt text, a broken
internal link, a code block that scrolls sideways at desktop width, a page wider than a
phone, a display equation cut off, a sidebar toggle that does not open the navigation,
a dropdown that does not open, an explorer whose image does not follow its slider, or
an extra header bar. Search must find the book's key terms.

Screenshots of failing pages are saved in ``_build/browser-failures/``. Run with
``make browser`` after ``make book`` and ``make student`` (conftest.py says when these
tests skip).
"""

from __future__ import annotations

import functools
import html
import re
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from conftest import EDITIONS, WIDTHS, edition_pages, is_redirect, save_failure

CHECKS = (Path(__file__).with_name("checks.js")).read_text()

# Raw TeX in the text a reader sees (math and code excluded): delimiters and common
# commands.
RAW_TEX = re.compile(
    r"\$\$|\\[()\[\]]|\\(?:frac|dfrac|tfrac|begin|end|sum|prod|int|sqrt|mathbf|mathrm|mathbb|"
    r"mathcal|boldsymbol|operatorname|text|left|right|langle|rangle|cdot|cdots|ldots|dots|times|"
    r"top|leq?|geq?|neq|approx|in|notin|subset|alpha|beta|gamma|delta|varepsilon|epsilon|lambda|"
    r"mu|sigma|tau|theta|pi|phi|psi|omega|Sigma|Delta|infty|partial|nabla|hat|tilde|bar|vec|"
    r"label|tag|quad|qquad|exp|log|max|min|arg|softmax|mathsf|odot|otimes|oplus)\b"
    r"|(?<![\w$\\])\$(?=[^\s$])[^$\n]{1,120}(?<=[^\s$\\])\$(?![\w$])"
)
# Key terms that search must find in both editions.
SEARCH_TERMS = ["attention", "softmax", "signature", "positional", "singular"]


def _params():
    params = []
    for edition in EDITIONS:
        pages = edition_pages(edition)
        if not pages:
            params.append(pytest.param(edition, None, id=f"{edition}-not-built"))
        # A page's tests (desktop, then phone width on the same loaded page) stay on
        # one pytest-xdist worker (`--dist loadgroup`); the pages spread over workers.
        params += [
            pytest.param(
                edition,
                page,
                id=f"{edition}-{page}",
                marks=pytest.mark.xdist_group(f"{edition}-{page}"),
            )
            for page in pages
        ]
    return params


@functools.cache
def _ids(path: Path) -> frozenset[str]:
    text = path.read_text(errors="replace")
    return frozenset(html.unescape(m) for m in re.findall(r'\bid="([^"]+)"', text))


def _broken_link(edition: str, base: str, href: str) -> str | None:
    parts = urlsplit(href)
    rel = unquote(parts.path[len(urlsplit(base).path) :])
    target = EDITIONS[edition] / rel
    if rel == "" or rel.endswith("/"):
        target = target / "index.html"
    if not target.exists():
        return f"{rel} does not exist"
    if parts.fragment and target.suffix == ".html":
        fragment = unquote(parts.fragment)
        if fragment not in _ids(target) and not is_redirect(target):
            return f"{rel}#{fragment}: no such anchor"
    return None


def _load(tab, url: str, width: int, reuse: bool = False) -> None:
    """Show `url` at `width`; with `reuse`, a page already loaded is only resized."""
    tab.reset()
    if reuse and tab.url == url:
        tab.resize(width)
        return
    tab.resize(width)
    tab.url = url
    tab.page.goto(url, wait_until="load")
    # Typesetting is asynchronous: wait until MathJax has finished (pages without math
    # have it too).
    tab.page.evaluate(
        """() => new Promise((resolve) => {
            const done = () => (window.MathJax && MathJax.startup
                                && MathJax.startup.promise)
                ? MathJax.startup.promise.then(() => resolve(true),
                                               () => resolve(false))
                : resolve(false);
            if (window.MathJax && MathJax.startup) return done();
            setTimeout(done, 500);
        })"""
    )


def _js(tab, call: str, arg=None):
    return tab.page.evaluate(f"(arg) => ({CHECKS}).{call}", arg)


def _check_text(tab, problems: list[str]) -> None:
    text = _js(tab, "visibleText()")
    for n, match in enumerate(list(RAW_TEX.finditer(text))[:5]):
        if n == 0:
            _js(tab, "markText(arg)", match.group(0))
        start, end = max(0, match.start() - 50), min(len(text), match.end() + 50)
        snippet = " ".join(text[start:end].split())
        problems.append(f"raw TeX {match.group(0)[:20]!r} in the text: ...{snippet}...")
    for error in _js(tab, "mathErrors()"):
        problems.append(f"MathJax error: {error}")


def _check_images(tab, problems: list[str]) -> None:
    for img in _js(tab, "images()"):
        if not (img["alt"] or "").strip():
            problems.append(f"image without alt text: {img['src']}")
        if img["broken"]:
            problems.append(f"image does not load: {img['src']}")


def _check_links(tab, edition: str, base: str, problems: list[str]) -> None:
    seen = set()
    for href in _js(tab, "links()"):
        key = href.split("?")[0]
        if key in seen:
            continue
        seen.add(key)
        broken = _broken_link(edition, base, key)
        if broken:
            problems.append(f"broken internal link: {broken}")


def _check_explorers(tab, problems: list[str]) -> None:
    page = tab.page
    explorers = page.locator("div.attnsig-explorer")
    for i in range(explorers.count()):
        explorer = explorers.nth(i)
        name = explorer.get_attribute("id") or f"explorer {i + 1}"
        sliders = explorer.locator("input[type=range]")
        image = explorer.locator("img")
        if sliders.count() == 0 or image.count() == 0:
            problems.append(f"{name}: no slider or no image")
            continue
        for k in range(sliders.count()):
            slider = sliders.nth(k)
            low, high = (
                int(slider.get_attribute("min")),
                int(slider.get_attribute("max")),
            )
            start = int(slider.input_value())
            target = high if start != high else low
            if target == start:
                problems.append(f"{name}: slider {k + 1} has a single position")
                continue
            before = image.get_attribute("src")
            started = time.perf_counter()
            try:
                slider.fill(str(target), timeout=5000)
            except Exception as exc:  # hidden or disabled: the reader cannot move it
                message = str(exc).splitlines()[0]
                problems.append(f"{name}: slider {k + 1} cannot be moved: {message}")
                continue
            after = image.get_attribute("src")
            if after == before:
                problems.append(
                    f"{name}: the image does not change when slider {k + 1} moves "
                    f"from {start} to {target}"
                )
            if time.perf_counter() - started > 1.0:
                problems.append(f"{name}: slider {k + 1} took over a second to redraw")
            slider.fill(str(start))


def _check_dropdowns(tab, edition: str, page_name: str, problems: list[str]) -> None:
    """Click every closed dropdown's title, as a reader does: all must open."""
    dropdowns = _js(tab, "dropdowns()")
    clicked = []
    for d in dropdowns:
        if d["open"]:
            continue  # open from the start, or opened at the other width
        target = tab.page.locator(f'[data-browser-test-dropdown="{d["index"]}"]')
        title = target.locator(":scope > .admonition-title, :scope > summary").first
        # A reader clicks the words of the title: in a solution they are a link to the
        # exercise, which once swallowed the click.
        words = title.locator("a").first if title.locator("a").count() else title
        try:
            words.click(timeout=3000)
        except Exception as exc:  # an unclickable title is what the reader meets too
            problems.append(
                f"dropdown {d['title']!r} cannot be clicked: {str(exc).splitlines()[0]}"
            )
            continue
        clicked.append(d)
    if clicked:
        tab.page.wait_for_timeout(50)
        still_shut = _js(tab, "shutDropdowns()")
        for d in clicked:
            if d["index"] in still_shut:
                problems.append(f"dropdown {d['title']!r} does not open when clicked")
    solutions = sum(d["solution"] for d in dropdowns)
    exercises = tab.page.locator("div.exercise").count()
    if edition == "full" and exercises and not solutions and "chapters/" in page_name:
        problems.append(
            f"{exercises} exercises but no solution dropdown in the full edition"
        )


def _check_code(tab, problems: list[str]) -> None:
    for code in _js(tab, "scrollingCode()")[:6]:
        problems.append(
            f"{code['kind']} scrolls sideways at {tab.width}px "
            f"({code['columns']} columns): {code['line']!r}"
        )


def _check_overflow(tab, problems: list[str]) -> None:
    overflow = _js(tab, "overflow()")
    if overflow:
        problems.append(
            f"the page is {overflow['pageWidth']}px wide at {overflow['width']}px: "
            + "; ".join(overflow["culprits"] or ["(no single culprit found)"])
        )
    for clipped in _js(tab, "clippedMath()")[:4]:
        problems.append(f"formula cut off: {clipped}")


def _until(tab, call: str, done, timeout: float = 2.0):
    """Poll an in-page check until `done(result)` or the timeout; the last result."""
    end = time.perf_counter() + timeout
    while True:
        result = _js(tab, call)
        if done(result) or time.perf_counter() > end:
            return result
        tab.page.wait_for_timeout(50)


def _visible_toggle(tab, selector: str):
    toggles = tab.page.locator(f"{selector}:visible")
    return toggles.first if toggles.count() else None


def _check_toggles(tab, problems: list[str]) -> None:
    page = tab.page
    if not page.locator(".bd-sidebar-primary nav a").count():
        return  # a page without navigation
    if _js(tab, "headerBar()") > 0:
        problems.append("an extra header bar (with a second search box) above the page")
    visible = page.locator(".primary-toggle:visible").count()
    if visible != 1:
        problems.append(f"{visible} visible primary-sidebar toggles (expected one)")
    toggle = _visible_toggle(tab, ".primary-toggle")
    if toggle is None:
        return
    if tab.width >= 992:
        if not _js(tab, "primaryNav()")["links"]:
            problems.append("the navigation is not shown at desktop width")
            return
        toggle.click()
        state = _until(tab, "primaryNav()", lambda s: s["dialogOpen"] or not s["links"])
        if state["dialogOpen"]:
            problems.append(
                "the sidebar toggle opens a dialog at desktop width instead of "
                "hiding the sidebar"
            )
            page.keyboard.press("Escape")
        elif state["links"]:
            problems.append(
                "the sidebar toggle does not hide the navigation at desktop width"
            )
        toggle.click()
        if not _until(tab, "primaryNav()", lambda s: s["links"])["links"]:
            problems.append(
                "the sidebar toggle does not bring the navigation back at desktop width"
            )
    else:
        if _js(tab, "primaryNav()")["links"]:
            problems.append(
                "the navigation covers the page at phone width before any click"
            )
        toggle.click()
        state = _until(tab, "primaryNav()", lambda s: s["dialogOpen"] and s["links"])
        if not (state["dialogOpen"] and state["links"]):
            problems.append(
                "the sidebar toggle does not open the navigation at phone width"
            )
        page.keyboard.press("Escape")
        if _until(tab, "primaryNav()", lambda s: not s["dialogOpen"])["dialogOpen"]:
            problems.append("Escape does not close the navigation at phone width")
        secondary = _visible_toggle(tab, ".secondary-toggle")
        if secondary is not None:
            secondary.click()
            state = _until(
                tab, "secondaryNav()", lambda s: s["dialogOpen"] and s["links"]
            )
            if not (state["dialogOpen"] and state["links"]):
                problems.append(
                    "the 'On this page' toggle does not open the page's contents at "
                    "phone width"
                )
            page.keyboard.press("Escape")
            _until(tab, "secondaryNav()", lambda s: not s["dialogOpen"])


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("edition, page_name", _params())
def test_page(edition, page_name, width, servers, tab):
    base = servers(edition)  # skips (or fails in CI) when the edition is not built
    assert page_name is not None, f"the {edition} edition has no pages"
    if is_redirect(EDITIONS[edition] / page_name):
        target = re.search(
            r'url=([^"]+)"', (EDITIONS[edition] / page_name).read_text(), re.I
        )
        assert (
            target
            and (EDITIONS[edition] / Path(page_name).parent / target.group(1)).exists()
        ), f"{page_name} redirects to a page that does not exist"
        return
    problems: list[str] = []
    # The phone-width test of a page follows its desktop test and measures the same
    # loaded page.
    _load(tab, base + page_name, WIDTHS[width], reuse=width != "desktop")
    _check_text(tab, problems)
    if width == "desktop":
        # Checks that do not depend on the width run once.
        _check_images(tab, problems)
        _check_links(tab, edition, base, problems)
    # Dropdowns first: the code and explorers inside solutions are then shown too.
    _check_dropdowns(tab, edition, page_name, problems)
    if width == "desktop":
        _check_explorers(tab, problems)
        _check_code(tab, problems)
    else:
        _check_overflow(tab, problems)
    _check_toggles(tab, problems)
    tab.page.wait_for_timeout(50)  # late console errors of the clicks above
    problems += [
        f"JavaScript console error: {e[:300]}" for e in dict.fromkeys(tab.errors)
    ]
    problems += [
        f"request to another host: {u[:120]}" for u in dict.fromkeys(tab.external)
    ]
    if problems:
        tab.settle()  # the sidebar may still be sliding back after the toggle check
        shot = save_failure(tab.page, f"{edition}-{page_name}-{width}")
        pytest.fail(
            f"{edition} edition, {page_name} at {tab.width}px ({shot.name}):\n  "
            + "\n  ".join(problems),
            pytrace=False,
        )


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_search_finds_key_terms(edition, servers, tab):
    base = servers(edition)
    problems = []
    for term in SEARCH_TERMS:
        _load(tab, f"{base}search.html?q={term}", WIDTHS["desktop"])
        try:
            tab.page.wait_for_function(
                "() => { const s = document.querySelector("
                "'#search-results p.search-summary');"
                " return s && s.textContent.trim().length > 0; }",
                timeout=15000,
            )
        except Exception:
            problems.append(f"search for {term!r} never finished")
            continue
        hits = tab.page.locator("#search-results ul.search > li").count()
        if hits == 0:
            problems.append(f"search for {term!r} found nothing")
        for snippet in tab.page.locator(
            "#search-results p.context"
        ).all_text_contents()[:20]:
            if "$$" in snippet:
                problems.append(
                    f"search snippet for {term!r} shows raw TeX: {snippet[:100]!r}"
                )
                break
    problems += [
        f"JavaScript console error: {e[:300]}" for e in dict.fromkeys(tab.errors)
    ]
    problems += [
        f"request to another host: {u[:120]}" for u in dict.fromkeys(tab.external)
    ]
    if problems:
        shot = save_failure(tab.page, f"{edition}-search")
        pytest.fail(
            f"{edition} edition search ({shot.name}):\n  " + "\n  ".join(problems),
            pytrace=False,
        )


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_search_box_at_phone_width(edition, servers, tab):
    """The search button opens a search box that leads to results, on a phone too."""
    base = servers(edition)
    pages = [p for p in edition_pages(edition) if p.startswith("chapters/")]
    if not pages:
        pytest.skip("no chapter pages")
    _load(tab, base + pages[0], WIDTHS["phone"])
    button = tab.page.locator(
        ".search-button:visible, .search-button-field:visible"
    ).first
    button.click()
    field = tab.page.locator("#pst-search-dialog input[name=q]")
    field.wait_for(state="visible", timeout=5000)
    field.fill(SEARCH_TERMS[0])
    field.press("Enter")
    tab.page.wait_for_url(re.compile(r"search\.html\?q="), timeout=10000)
    tab.page.wait_for_function(
        "() => document.querySelectorAll('#search-results ul.search > li').length > 0",
        timeout=15000,
    )
