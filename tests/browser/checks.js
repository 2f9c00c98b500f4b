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
})
