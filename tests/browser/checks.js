// In-page checks of the browser tests (tests/browser/test_pages.py): each function takes no argument
// and returns plain data for Python. Evaluated with page.evaluate(`(${source})()`).
({
  // Text a reader sees in the article, without rendered math, code and outputs: raw TeX found
  // here was not rendered.
  visibleText() {
    const root = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
    const skip = [
      "mjx-container", ".MathJax", "script", "style", "pre", "code", ".highlight", ".cell_output",
      ".output", ".attnsig-explorer", ".headerlink", "mjx-assistive-mml", "textarea", "kbd",
    ].join(",");
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const parts = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest(skip)) continue;
      parts.push(node.textContent);
    }
    return parts.join("");
  },

  // Mark the element whose text holds `needle` (for the failure screenshot).
  markText(needle) {
    const root = document.querySelector("article.bd-article") || document.body;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.textContent.includes(needle) && node.parentElement) {
        node.parentElement.setAttribute("data-browser-test-problem", "text");
        return true;
      }
    }
    return false;
  },

  mathErrors() {
    return Array.from(document.querySelectorAll("mjx-merror, [data-mjx-error], .MathJax_Error"))
      .slice(0, 5)
      .map((el) => (el.getAttribute("data-mjx-error") || el.textContent || "").slice(0, 120));
  },

  images() {
    return Array.from(document.querySelectorAll("img")).map((img) => ({
      src: (img.getAttribute("src") || "").slice(0, 100),
      alt: img.getAttribute("alt"),
      broken: img.complete && img.naturalWidth === 0 && img.getAttribute("loading") !== "lazy",
    }));
  },

  links() {
    return Array.from(document.querySelectorAll("a[href]"))
      .map((a) => a.href)
      .filter((href) => href.startsWith(location.origin));
  },

  // Code blocks (cell inputs, outputs, literal blocks) wider than their box: they scroll sideways.
  scrollingCode() {
    const found = [];
    document.querySelectorAll("div.highlight pre, div.cell_input pre, pre.literal-block").forEach((pre) => {
      if (!pre.getClientRects().length || pre.clientWidth === 0) return;
      if (pre.scrollWidth <= pre.clientWidth + 1) return;
      pre.setAttribute("data-browser-test-problem", "code");
      const kind = pre.closest(".cell_output, .output") ? "code output" : "code";
      const lines = pre.textContent.split("\n");
      const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), "");
      found.push({ kind, columns: longest.length, line: longest.trim().slice(0, 100) });
    });
    return found;
  },

  // Elements that stick out of the viewport without a scrolling box around them widen the page.
  overflow() {
    const doc = document.documentElement;
    const width = doc.clientWidth;
    const pageWidth = Math.max(doc.scrollWidth, document.body.scrollWidth);
    if (pageWidth <= width + 1) return null;
    const scrolls = (el) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o === "auto" || o === "scroll" || o === "hidden" || o === "clip") return true;
      }
      return false;
    };
    const culprits = [];
    const all = document.body.querySelectorAll("*");
    for (const el of all) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 1) continue;
      if (getComputedStyle(el).position === "fixed") continue;
      if (scrolls(el)) continue;
      // Report the outermost element only.
      if (culprits.some((c) => c.el.contains(el))) continue;
      culprits.push({ el, right: Math.round(r.right) });
      el.setAttribute("data-browser-test-problem", "overflow");
      if (culprits.length >= 4) break;
    }
    return {
      pageWidth,
      width,
      culprits: culprits.map(({ el, right }) => {
        const cls = (el.className && el.className.baseVal === undefined ? el.className : "")
          .toString().trim().split(/\s+/).slice(0, 3).join(".");
        const where = el.closest("section[id]");
        return `<${el.tagName.toLowerCase()}${cls ? "." + cls : ""}> reaches ${right}px` +
          (where ? ` in section #${where.id}` : "") +
          `: ${(el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 60)}`;
      }),
    };
  },

  // Formulas cut off: wider than a box that hides its overflow (e.g. pydata-sphinx-theme's
  // `span.math { overflow: hidden }` around inline math on a phone), with no scrolling box
  // between the two. A formula in a box that scrolls is fine.
  clippedMath() {
    const found = [];
    for (const m of document.querySelectorAll("mjx-container")) {
      if (!m.getClientRects().length) continue;
      const inner = (m.firstElementChild || m).getBoundingClientRect();
      for (let p = m; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o === "visible") continue;
        if ((o === "auto" || o === "scroll") && p.scrollWidth > p.clientWidth + 1) break;
        const r = p.getBoundingClientRect();
        if (o !== "auto" && o !== "scroll" && (inner.right > r.right + 1 || inner.left < r.left - 1)) {
          m.setAttribute("data-browser-test-problem", "math");
          const kind = m.getAttribute("display") === "true" ? "display equation" : "inline formula";
          found.push(`${kind} ${Math.round(inner.width)}px wide shown in ${Math.round(r.width)}px: ` +
            (m.querySelector("mjx-assistive-mml") || m).textContent.trim().slice(0, 50));
          break;
        }
      }
    }
    return found;
  },

  dropdowns() {
    return Array.from(document.querySelectorAll(".admonition.dropdown, details.sd-dropdown")).map((el, i) => {
      el.setAttribute("data-browser-test-dropdown", String(i));
      const title = el.querySelector(":scope > .admonition-title, :scope > summary");
      return {
        index: i,
        open: this.dropdownOpen(i),
        solution: el.classList.contains("solution"),
        title: title ? title.textContent.trim().replace(/\s+/g, " ").slice(0, 60) : "",
      };
    });
  },

  shutDropdowns() {
    return Array.from(document.querySelectorAll("[data-browser-test-dropdown]"))
      .map((el) => Number(el.getAttribute("data-browser-test-dropdown")))
      .filter((i) => !this.dropdownOpen(i));
  },

  // Whether the body of dropdown i is shown (at least one visible child besides the title).
  dropdownOpen(i) {
    const el = document.querySelector(`[data-browser-test-dropdown="${i}"]`);
    if (!el) return false;
    if (el.tagName === "DETAILS") return el.open && Array.from(el.children).some((c) => c.tagName !== "SUMMARY" && c.getClientRects().length);
    return Array.from(el.children).some(
      (c) => !c.classList.contains("admonition-title") && !c.classList.contains("toggle-details") &&
        c.getClientRects().length > 0 && c.getBoundingClientRect().height > 0);
  },

  // Visible navigation links of the primary sidebar (in the page or in its modal dialog).
  primaryNav() {
    const visible = (el) => {
      if (!el.getClientRects().length) return false;
      const r = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth && s.visibility !== "hidden";
    };
    const dialog = document.querySelector("#pst-primary-sidebar-modal");
    const links = Array.from(document.querySelectorAll(".bd-sidebar-primary nav a, #pst-primary-sidebar-modal nav a"));
    return {
      links: links.filter(visible).length,
      dialogOpen: !!(dialog && dialog.open),
    };
  },

  secondaryNav() {
    const dialog = document.querySelector("#pst-secondary-sidebar-modal");
    const links = Array.from(document.querySelectorAll("#pst-secondary-sidebar-modal a, .bd-sidebar-secondary a"));
    return {
      links: links.filter((a) => a.getClientRects().length && a.getBoundingClientRect().width > 0 &&
        a.getBoundingClientRect().left < innerWidth).length,
      dialogOpen: !!(dialog && dialog.open),
    };
  },

  headerBar() {
    const header = document.querySelector("header.bd-header, #pst-header");
    if (!header || !header.getClientRects().length) return 0;
    return Math.round(header.getBoundingClientRect().height);
  },

  // Bytes the page has fetched so far (uncompressed bodies: the local server does not
  // compress), with the largest files.
  weight() {
    const nav = performance.getEntriesByType("navigation")[0];
    const files = performance.getEntriesByType("resource").map((r) => ({
      name: r.name.replace(location.origin, ""),
      bytes: r.decodedBodySize || r.encodedBodySize || 0,
    }));
    const total = (nav ? nav.decodedBodySize : 0) + files.reduce((a, f) => a + f.bytes, 0);
    files.sort((a, b) => b.bytes - a.bytes);
    return { total, requests: files.length + 1, largest: files.slice(0, 5) };
  },

  // Code points of the icons the page draws from an icon font (Font Awesome classes and
  // the theme's admonition icons), with the font family that draws them.
  iconGlyphs() {
    const found = new Set();
    const all = document.querySelectorAll("i, span, p.admonition-title, .admonition-title, a, button, label");
    for (const el of all) {
      for (const pseudo of ["::before", "::after"]) {
        const style = getComputedStyle(el, pseudo);
        if (!/Font Awesome/.test(style.fontFamily)) continue;
        const content = style.content;
        if (!content || content === "none" || content === "normal") continue;
        const text = content.replace(/^"|"$/g, "");
        for (const ch of text) {
          const code = ch.codePointAt(0);
          if (code >= 0xe000) found.add(`${/Brands/.test(style.fontFamily) ? "brands" : "solid"}:${code}`);
        }
      }
    }
    return [...found];
  },

  // Keyboard: formulas are no tab stops; every control of the article (explorer inputs,
  // dropdown buttons, links) can be reached with Tab.
  keyboard() {
    // A formula wider than its column scrolls and must take focus (axe's
    // scrollable-region-focusable); every other formula is no tab stop.
    const formulaStops = Array.from(document.querySelectorAll("mjx-container")).filter((m) => m.tabIndex >= 0 && !(m.scrollWidth > m.clientWidth)).length;
    const unreachable = [];
    const root = document.querySelector("article.bd-article") || document.body;
    for (const el of root.querySelectorAll("input, select, textarea, button, summary, a[href]")) {
      if (!el.getClientRects().length || el.closest("[inert], [aria-hidden=true]")) continue;
      if (el.closest(".toggle-hidden") && !el.closest(".admonition-title")) continue; // inside a shut dropdown
      if (el.tabIndex < 0 || el.disabled) {
        el.setAttribute("data-browser-test-problem", "keyboard");
        unreachable.push(`<${el.tagName.toLowerCase()}> ${(el.getAttribute("aria-label") || el.textContent || el.name || "").trim().slice(0, 40)}`);
      }
    }
    return { formulaStops, unreachable: unreachable.slice(0, 5) };
  },

  // The explorers as a reader meets them: controls, what each announces, the picture.
  explorers() {
    return Array.from(document.querySelectorAll("div.attnsig-explorer")).map((root) => {
      const img = root.querySelector("img.attnsig-explorer-frame");
      const r = img ? img.getBoundingClientRect() : { width: 0 };
      return {
        id: root.id,
        inlined: root.innerHTML.includes("data:image/"),
        sliders: Array.from(root.querySelectorAll("input[type=range]")).map((s) => ({
          valuetext: s.getAttribute("aria-valuetext"),
          shown: s.nextElementSibling ? s.nextElementSibling.textContent.trim() : null,
          values: JSON.parse(s.dataset.labels || "[]"),
        })),
        groups: Array.from(root.querySelectorAll("fieldset")).map((f) => f.querySelectorAll("input[type=radio]").length),
        imgWidth: Math.round(r.width),
        naturalWidth: img ? img.naturalWidth || Number(img.getAttribute("width")) : 0,
        controlsRight: Math.max(0, ...Array.from(root.querySelectorAll("input, label, output, legend")).map((c) => c.getBoundingClientRect().right)),
        viewport: document.documentElement.clientWidth,
      };
    });
  },

  // The first same-page link to an element inside a shut dropdown, marked for a click.
  linkIntoShutDropdown() {
    for (const a of document.querySelectorAll("article a[href*='#']")) {
      if (a.pathname !== location.pathname || !a.hash || a.closest(".toggle-hidden")) continue;
      let target = null;
      try { target = document.getElementById(decodeURIComponent(a.hash.slice(1))); } catch (e) { continue; }
      if (!target || !target.closest(".toggle-hidden")) continue;
      if (!a.getClientRects().length) continue;
      a.setAttribute("data-browser-test-link", "");
      return { hash: a.hash, text: a.textContent.trim().slice(0, 40) };
    }
    return null;
  },

  targetShown(hash) {
    const target = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (!target) return { open: false, inView: false };
    const r = target.getBoundingClientRect();
    return {
      open: !target.closest(".toggle-hidden") && r.height > 0,
      inView: r.bottom > 0 && r.top < innerHeight,
    };
  },

  // Print layout (after emulating print media): code that does not fit the page, shut
  // solutions, explorers that may be split across pages.
  printProblems() {
    const found = [];
    document.querySelectorAll("div.highlight pre, pre.literal-block").forEach((pre) => {
      if (pre.getClientRects().length && pre.scrollWidth > pre.clientWidth + 1) {
        pre.setAttribute("data-browser-test-problem", "print");
        found.push(`code cut off in print: ${pre.textContent.split("\n")[0].trim().slice(0, 60)}`);
      }
    });
    document.querySelectorAll(".admonition.dropdown, .admonition.toggle").forEach((el) => {
      const body = Array.from(el.children).filter((c) => !c.classList.contains("admonition-title"));
      if (body.length && !body.some((c) => c.getClientRects().length && c.getBoundingClientRect().height > 0 && getComputedStyle(c).visibility !== "hidden")) {
        const title = el.querySelector(".admonition-title");
        found.push(`dropdown prints shut: ${title ? title.textContent.trim().slice(0, 50) : el.id}`);
      }
    });
    document.querySelectorAll("div.attnsig-explorer").forEach((el) => {
      const s = getComputedStyle(el);
      if (s.breakInside !== "avoid" && s.pageBreakInside !== "avoid") found.push(`explorer ${el.id} may print apart from its control`);
    });
    return found.slice(0, 6);
  },

  // Visible links that download a page's raw Markdown source.
  markdownDownloads() {
    return Array.from(document.querySelectorAll("a[href*='_sources/']"))
      .filter((a) => /\.md$/.test(a.pathname) && a.closest("li, div") && getComputedStyle(a.closest("li") || a).display !== "none")
      .map((a) => a.getAttribute("href"));
  },

  // axe-core's colour rules cost time with every element of a page: they run on one
  // element of each look (text colour, size and weight, opacity, the backgrounds behind,
  // and for a link the colour of the text around it), marked here.
  axeColourSample() {
    document.querySelectorAll("[data-axe-sample]").forEach((e) => e.removeAttribute("data-axe-sample"));
    const styles = new Map();
    const cs = (el) => {
      let s = styles.get(el);
      if (!s) styles.set(el, (s = getComputedStyle(el)));
      return s;
    };
    const seen = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (!t.textContent.trim()) continue;
      const el = t.parentElement;
      if (!el || !el.getClientRects().length) continue;
      const s = cs(el);
      const behind = [];
      let opacity = 1;
      for (let p = el; p; p = p.parentElement) {
        const ps = cs(p);
        opacity *= Number(ps.opacity);
        if (ps.backgroundImage !== "none") behind.push(ps.backgroundImage.slice(0, 60));
        const c = ps.backgroundColor;
        if (c !== "rgba(0, 0, 0, 0)") {
          behind.push(c);
          if (!c.startsWith("rgba")) break;
        }
      }
      const link = el.closest("a");
      const key = [s.color, s.fontSize, s.fontWeight, s.textShadow, opacity.toFixed(2), behind.join("|"),
        link ? `a ${cs(link.parentElement).color} ${cs(link).textDecorationLine}` : ""].join(";");
      if (seen.has(key)) continue;
      seen.add(key);
      el.setAttribute("data-axe-sample", "");
    }
    return seen.size;
  },

  // MathJax's visual glyphs (thousands of elements, hidden from screen readers, in the
  // colour of the text around them) out of the way of the colour rules.
  stripMath() {
    document.querySelectorAll("mjx-container").forEach((m) => {
      const spoken = m.querySelector("mjx-assistive-mml");
      const span = document.createElement("span");
      span.textContent = spoken ? spoken.textContent : "";
      m.replaceChildren(span);
    });
  },
})
