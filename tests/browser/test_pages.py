"""What a reader sees: every page of both editions in Chromium, at 1400 px and 400 px.

A page fails on raw TeX in its text or a MathJax error, a JavaScript console error, a
request to a host other than the local server, an image without alt text, a broken
internal link, a code block that scrolls sideways at desktop width, a page wider than a
phone, a display equation cut off, a sidebar toggle that does not open the navigation,
a dropdown that does not open, an explorer whose image does not follow its slider, or
an extra header bar. Search must find the book's key terms.

Accessibility, weight and print are measured on the same loaded page: axe-core's WCAG
2.1 A/AA rules (no critical or serious violation, in light and in dark mode), formulas
that are no tab stops and controls that are, explorers that announce their values and
load their frames only when reached, a link into a shut dropdown that opens it, the
bytes a chapter page fetches, icons from the subset fonts, the print layout (code
wraps, solutions open, an explorer kept whole), and no download of a page's raw
Markdown. The weights and the axe results of every page go to
``_build/browser-report.json`` (and ``.md``), from which the README's figures are taken.

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
from conftest import (
    EDITIONS,
    WIDTHS,
    edition_pages,
    icon_fonts,
    is_redirect,
    record,
    save_failure,
)

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
# Searches without the accent that must find a page (the chapter writes "Lévy").
ACCENT_FREE = {"Levy area": "signatures", "Levy": "signatures"}
# Page weight: bytes fetched by the time a chapter page is typeset (uncompressed).
MAX_CHAPTER_BYTES = 3_000_000
# axe-core: the WCAG 2.1 A and AA rules; in dark mode the rules that colours decide.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
AXE_COLOUR_RULES = ["color-contrast", "link-in-text-block"]
# A critical or serious violation fails the page; all counts go to the browser report.
AXE_BLOCKING = ("critical", "serious")


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
    tab.weight = None
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
    # What the page fetched to show its first screen, typeset: measured before any
    # click or scroll of the checks fetches more.
    tab.weight = _js(tab, "weight()")


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
    """Every control of every explorer redraws the picture and announces its value."""
    page = tab.page
    for state in _js(tab, "explorers()"):
        name = state["id"]
        if state["inlined"]:
            problems.append(
                f"{name}: frames inlined in the page (not fetched when reached)"
            )
        for k, slider in enumerate(state["sliders"]):
            if slider["valuetext"] != slider["shown"]:
                problems.append(
                    f"{name}: slider {k + 1} announces {slider['valuetext']!r} but "
                    f"shows {slider['shown']!r}"
                )
            values = slider["values"]
            if values and all(v in ("True", "False", "yes", "no") for v in values):
                problems.append(
                    f"{name}: a yes/no choice is a slider, not radio buttons"
                )
        explorer = page.locator(f"#{name}")
        image = explorer.locator("img.attnsig-explorer-frame")
        sliders = explorer.locator("input[type=range]")
        radios = explorer.locator("input[type=radio]")
        if (sliders.count() + radios.count()) == 0 or image.count() == 0:
            problems.append(f"{name}: no control or no image")
            continue
        # The reader reaches the explorer first: the pictures around it load (lazily,
        # moving the layout) and its frames are fetched; the redraw is timed after that.
        explorer.scroll_into_view_if_needed()
        try:
            tab.page.wait_for_function(
                "() => Array.from(document.images).every(i => i.complete || "
                "i.getBoundingClientRect().bottom < -innerHeight || "
                "i.getBoundingClientRect().top > 2 * innerHeight)",
                timeout=10000,
            )
        except Exception:
            pass  # a picture that never loads is reported by the image check
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
            if time.perf_counter() - started > 1.0:
                problems.append(f"{name}: slider {k + 1} took over a second to redraw")
            if after == before:
                problems.append(
                    f"{name}: the image does not change when slider {k + 1} moves "
                    f"from {start} to {target}"
                )
            elif not _frame_loads(tab, image):
                problems.append(f"{name}: frame {after[:60]} does not load")
            slider.fill(str(start))
        for k in range(radios.count()):
            radio = radios.nth(k)
            if radio.is_checked():
                continue
            before = image.get_attribute("src")
            try:
                radio.check(timeout=5000)
            except Exception as exc:
                message = str(exc).splitlines()[0]
                problems.append(f"{name}: choice {k + 1} cannot be chosen: {message}")
                continue
            if image.get_attribute("src") == before:
                problems.append(f"{name}: the image does not change for choice {k + 1}")
        if radios.count():
            radios.first.check()


def _frame_loads(tab, image) -> bool:
    try:
        tab.page.wait_for_function(
            "(img) => img.complete && img.naturalWidth > 0",
            arg=image.element_handle(),
            timeout=5000,
        )
        return True
    except Exception:
        return False


def _check_explorers_phone(tab, problems: list[str]) -> None:
    """At phone width a frame keeps readable labels (it scrolls sideways instead) and
    the controls stay on the screen."""
    for state in _js(tab, "explorers()"):
        wanted = min(state["naturalWidth"], 560)
        if state["imgWidth"] + 1 < wanted:
            problems.append(
                f"{state['id']}: picture shrunk to {state['imgWidth']}px of "
                f"{state['naturalWidth']}px at {tab.width}px (labels unreadable)"
            )
        if state["controlsRight"] > state["viewport"] + 1:
            problems.append(f"{state['id']}: controls reach past the screen's edge")


def _check_weight(tab, page_name: str, problems: list[str]) -> dict:
    weight = tab.weight or {"total": 0, "requests": 0, "largest": []}
    if "chapters/" in page_name and weight["total"] > MAX_CHAPTER_BYTES:
        largest = ", ".join(f"{f['name']} {f['bytes']:,}" for f in weight["largest"])
        problems.append(
            f"the page fetches {weight['total']:,} bytes (at most "
            f"{MAX_CHAPTER_BYTES:,}); largest: {largest}"
        )
    for f in weight["largest"]:
        if "fontawesome" in f["name"] and f["bytes"] > 50_000:
            problems.append(f"the whole icon library is fetched: {f['name']}")
    return weight


def _check_icons(tab, problems: list[str]) -> None:
    fonts = icon_fonts()
    for glyph in _js(tab, "iconGlyphs()"):
        family, code = glyph.split(":")
        if int(code) not in fonts.get(family, set()):
            problems.append(
                f"icon U+{int(code):04X} ({family}) is not in the subset fonts of "
                "_static/fonts/: run tools/icon_fonts.py"
            )


def _check_keyboard(tab, problems: list[str]) -> None:
    state = _js(tab, "keyboard()")
    if state["formulaStops"]:
        problems.append(f"{state['formulaStops']} formulas are tab stops")
    for control in state["unreachable"]:
        problems.append(f"control not reachable with Tab: {control}")


def _check_link_into_dropdown(tab, problems: list[str]) -> None:
    link = _js(tab, "linkIntoShutDropdown()")
    if not link:
        return
    tab.page.locator("[data-browser-test-link]").first.click()
    state = _until(
        tab, f"targetShown({link['hash']!r})", lambda s: s["open"] and s["inView"]
    )
    if not (state["open"] and state["inView"]):
        problems.append(
            f"the link {link['text']!r} to {link['hash']} inside a shut dropdown "
            + ("does not open it" if not state["open"] else "does not scroll to it")
        )


def _check_print(tab, problems: list[str]) -> None:
    tab.page.emulate_media(media="print")
    try:
        problems += _js(tab, "printProblems()")
    finally:
        tab.page.emulate_media(media="screen")


def _axe(tab, options: dict, context: str | None = None) -> list[dict]:
    """Violations of an axe-core run on the page (or on the sampled elements)."""
    return tab.page.evaluate(
        "([options, sample]) => axe.run(sample ? {include: [['[data-axe-sample]']]}"
        " : document, options).then(r => r.violations.map(v => ({"
        "id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,"
        "target: v.nodes[0].target.join(' '),"
        "summary: (v.nodes[0].failureSummary || '').split('\\n').slice(0, 2)"
        ".join(' ')})))",
        [options, context == "sample"],
    )


@functools.cache
def _axe_script() -> str:
    from axe_playwright_python.sync_playwright import Axe

    return Axe().axe_script


def _check_axe(tab, problems: list[str]) -> dict:
    """axe-core's WCAG 2.1 A/AA rules; the colour rules in light and in dark mode.

    The page is not used afterwards: the colour rules run after MathJax's glyphs are
    taken out, on one element of each look (checks.js says why).
    """
    counts = {}
    colour = {"type": "rule", "values": AXE_COLOUR_RULES}
    if not tab.page.evaluate("() => !!window.axe"):
        tab.page.evaluate(_axe_script())
    rules = tab.page.evaluate(
        "([tags, colour]) => axe.getRules(tags).map(r => r.ruleId)"
        ".filter(r => !colour.includes(r))",
        [AXE_TAGS, AXE_COLOUR_RULES],
    )
    runs = [("light", None, {"type": "rule", "values": rules})]
    runs += [("light", "sample", colour), ("dark", "sample", colour)]
    for mode, context, rule_set in runs:
        tab.page.evaluate(f"() => document.documentElement.dataset.theme = '{mode}'")
        if context == "sample":
            _js(tab, "stripMath()")
            _js(tab, "axeColourSample()")
        # No preloading of the stylesheets: axe resolves the theme's `@import
        # "../basic.css"` against the page, not the stylesheet (a 404 on every page).
        options = {"runOnly": rule_set, "resultTypes": ["violations"], "preload": False}
        violations = _axe(tab, options, context)
        found = counts.setdefault(
            mode, dict.fromkeys(("critical", "serious", "moderate", "minor"), 0)
        )
        for v in violations:
            found[v["impact"]] = found.get(v["impact"], 0) + v["nodes"]
            if v["impact"] in AXE_BLOCKING:
                problems.append(
                    f"axe ({mode} mode), {v['impact']}: {v['id']} on {v['nodes']} "
                    f"elements ({v['help']}), first {v['target']}: {v['summary'][:200]}"
                )
    tab.page.evaluate("() => document.documentElement.dataset.theme = 'light'")
    return counts


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
        record(edition, page_name, weight=_check_weight(tab, page_name, problems))
        _check_images(tab, problems)
        _check_links(tab, edition, base, problems)
        _check_icons(tab, problems)
        _check_keyboard(tab, problems)
        if _js(tab, "markdownDownloads()"):
            problems.append("the download menu offers the raw Markdown source")
        # Before the dropdowns are opened by the clicks below.
        _check_print(tab, problems)
        _check_link_into_dropdown(tab, problems)
    # Dropdowns first: the code and explorers inside solutions are then shown too.
    _check_dropdowns(tab, edition, page_name, problems)
    if width == "desktop":
        _check_explorers(tab, problems)
        _check_code(tab, problems)
    else:
        _check_overflow(tab, problems)
        _check_explorers_phone(tab, problems)
    _check_toggles(tab, problems)
    if width == "phone":
        # Last: every dropdown is open, so axe sees the solutions too.
        record(edition, page_name, axe=_check_axe(tab, problems))
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


def _search(tab, base: str, term: str) -> bool:
    """Search the edition for `term`: whether the search finished (hits or none)."""
    _load(tab, f"{base}search.html?q={term}", WIDTHS["desktop"])
    try:
        tab.page.wait_for_function(
            "() => { const s = document.querySelector("
            "'#search-results p.search-summary');"
            " return s && s.textContent.trim().length > 0; }",
            timeout=15000,
        )
    except Exception:
        return False
    return True


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_search_finds_key_terms(edition, servers, tab):
    base = servers(edition)
    problems = []
    for term in SEARCH_TERMS:
        if not _search(tab, base, term):
            problems.append(f"search for {term!r} never finished")
            continue
        hits = tab.page.locator("#search-results ul.search > li").count()
        if hits == 0:
            problems.append(f"search for {term!r} found nothing")
        for snippet in tab.page.locator(
            "#search-results p.context"
        ).all_text_contents()[:20]:
            raw = RAW_TEX.search(snippet)
            if raw:
                problems.append(
                    f"search snippet for {term!r} shows raw TeX {raw.group(0)!r}: "
                    f"{snippet[:100]!r}"
                )
                break
    for term, page in ACCENT_FREE.items():
        if not _search(tab, base, term):
            problems.append(f"search for {term!r} never finished")
            continue
        found = tab.page.locator("#search-results ul.search > li a").evaluate_all(
            "links => links.map(a => a.getAttribute('href'))"
        )
        if not any(page in (href or "") for href in found):
            problems.append(
                f"search for {term!r} (no accent) does not find the {page} page: "
                f"{found[:5]}"
            )
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
