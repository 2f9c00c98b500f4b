// Behaviour fixes of the book's pages (sphinx-book-theme 1.3.0, sphinx-togglebutton 0.4.5,
// sphinx-exercise 1.2.1, Sphinx 7.4's search); Jupyter Book adds every .js file of _static/.
// tests/browser checks what each fix is for.
(function () {
  "use strict";

  // A solution's dropdown title holds a link to its exercise ("Solution to Exercise 4.1 (...)").
  // sphinx-togglebutton finds no toggle button for a click on that link (a console error, and the
  // dropdown stays shut or another one toggles), so a click anywhere on the title toggles it here.
  document.addEventListener(
    "click",
    function (event) {
      var link = event.target.closest && event.target.closest(".admonition.dropdown > .admonition-title a");
      if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
      var button = link.closest(".admonition-title").querySelector(".toggle-button");
      if (!button) return;
      event.preventDefault();
      event.stopPropagation();
      button.click();
    },
    true
  );

  // A link to something inside a closed dropdown (a theorem or an equation in a solution)
  // landed on empty space: the dropdown opens and the target is scrolled to.
  function reveal(hash) {
    if (!hash || hash.length < 2) return;
    var target;
    try {
      target = document.getElementById(decodeURIComponent(hash.slice(1)));
    } catch (e) {
      return;
    }
    if (!target) return;
    var opened = false;
    for (var el = target; el && el !== document.body; el = el.parentElement) {
      if (el.classList.contains("toggle-hidden")) {
        var button = el.querySelector(".toggle-button");
        if (button) {
          button.click();
          opened = true;
        }
      }
      if (el.tagName === "DETAILS" && !el.open) {
        el.open = true;
        opened = true;
      }
    }
    if (opened) {
      requestAnimationFrame(function () {
        target.scrollIntoView({ block: "start" });
      });
    }
  }
  window.addEventListener("hashchange", function () {
    reveal(location.hash);
  });
  // A click on a link to the anchor already in the address changes no hash.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[href*='#']");
    if (!link || link.origin !== location.origin || link.pathname !== location.pathname) return;
    if (link.hash === location.hash) setTimeout(function () { reveal(link.hash); }, 0);
  });
  window.addEventListener("load", function () {
    reveal(location.hash);
  });

  // Print: closed <details> print open too (sphinx-togglebutton opens its own dropdowns).
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details:not([open])").forEach(function (el) {
      el.open = true;
      el.setAttribute("data-book-print-opened", "");
    });
  });
  window.addEventListener("afterprint", function () {
    document.querySelectorAll("details[data-book-print-opened]").forEach(function (el) {
      el.open = false;
      el.removeAttribute("data-book-print-opened");
    });
  });

  // Search forgives accents: "Levy" finds "Lévy". The index's words are folded to their
  // letters without accents (Sphinx's index keeps them) and so is the query; snippets
  // show "…" for a formula instead of its raw TeX.
  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  }
  // A folded word is filed under itself and under its stem: the query "levy" is stemmed
  // to "levi", while Sphinx left "lévy" unstemmed (the stemmer sees no vowel in "lév").
  function foldTerms(terms) {
    if (!terms) return;
    var stemmer = typeof Stemmer === "undefined" ? null : new Stemmer();
    Object.keys(terms).forEach(function (word) {
      var plain = fold(word);
      if (plain === word) return;
      var keys = [plain];
      if (stemmer && stemmer.stemWord(plain) !== plain) keys.push(stemmer.stemWord(plain));
      keys.forEach(function (key) {
        var merged = [].concat(terms[key] === undefined ? [] : terms[key], terms[word]);
        merged = merged.filter(function (doc, i) { return merged.indexOf(doc) === i; });
        terms[key] = merged.length === 1 ? merged[0] : merged.sort(function (a, b) { return a - b; });
      });
    });
  }
  function foldIndex(index) {
    if (!index || index.bookFolded) return;
    foldTerms(index.terms);
    foldTerms(index.titleterms);
    index.bookFolded = true;
  }
  document.addEventListener("DOMContentLoaded", function () {
    if (typeof Search === "undefined") return;
    foldIndex(Search._index);
    var setIndex = Search.setIndex;
    Search.setIndex = function (index) {
      foldIndex(index);
      return setIndex(index);
    };
    var parseQuery = Search._parseQuery;
    Search._parseQuery = function (query) {
      return parseQuery(fold(query));
    };
    var htmlToText = Search.htmlToText;
    Search.htmlToText = function (html, anchor) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      doc.querySelectorAll("span.math, div.math, .math, script[type^='math']").forEach(function (el) {
        el.replaceWith("…");
      });
      return fold(htmlToText(doc.documentElement.outerHTML, anchor));
    };
  });

  // Markdown pages: the download menu offers no raw MyST source (a notebook page keeps
  // its notebook; every page keeps "print to PDF").
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".dropdown-download-buttons a[href*='_sources/'][href$='.md']").forEach(function (a) {
      (a.closest("li") || a).remove();
    });
  });

  // A box that scrolls sideways (a wide formula or explorer picture on a phone) can be
  // reached with Tab to scroll it, as the theme does for code blocks.
  // Boxes are checked again after a resize, once MathJax has typeset the formulas, and
  // after a click (a dropdown that opens shows its formulas).
  var SCROLLERS = ".attnsig-explorer-view, div.math, span.math, mjx-container[display='true'], table.indextable, div.highlight pre";
  // Only a resize takes a tab stop away: after a click (a dialog may be open and the
  // page behind it laid out otherwise) boxes only gain one.
  function updateScrollers(resized) {
    document.querySelectorAll(SCROLLERS).forEach(function (el) {
      var inline = el.matches("span.math");
      // an inline formula: its typeset box wider than its line by more than the pixel
      // of rounding (its hidden copy for screen readers does not count)
      var typeset = inline && el.querySelector("mjx-container");
      var wide = typeset
        ? typeset.getBoundingClientRect().width > el.getBoundingClientRect().width + 1
        : el.scrollWidth > el.clientWidth;
      if (inline && (wide || resized === true)) el.classList.toggle("attnsig-scrolls", wide);
      if (wide) el.tabIndex = 0;
      else if (resized === true && el.hasAttribute("tabindex")) el.removeAttribute("tabindex");
    });
  }
  var pending = null;
  window.addEventListener("resize", function () {
    updateScrollers(true);  // at once (a reader may press Tab right away), and again
    clearTimeout(pending);  // once the layout has settled
    pending = setTimeout(function () { updateScrollers(true); }, 100);
  });
  // Web fonts that arrive after MathJax has typeset change formulas' widths.
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(updateScrollers);
  // (In the capture phase: the solution titles' handler above stops the click there.)
  document.addEventListener("click", function () { setTimeout(updateScrollers, 400); }, true);
  window.addEventListener("load", function () {
    updateScrollers();
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) mj.startup.promise.then(updateScrollers);
  });

  // The bibliography (docutils): a "list" whose entries are "doc-biblioentry", which ARIA
  // does not accept as list items (axe: critical); the entries keep their own role.
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".citation-list[role='list']").forEach(function (el) {
      el.removeAttribute("role");
    });
  });

  // The module index and sphinx-proof's theorem index (Sphinx's domainindex.html) lay their
  // entries out in a table of plain cells whose letter rows only look like headings: a screen
  // reader meets a grid without headers (axe: td-has-header, critical). The table gets the
  // structure of a data table: a header row naming its two columns (read, not shown), one row
  // group per letter headed by its letter, and each entry's name as the header of its row.
  // The image that shows or hides a package's modules (first column) moves in front of the
  // package's name and becomes a button a keyboard reaches, which says whether it is open.
  function headerCell(cell, scope) {
    var th = document.createElement("th");
    th.scope = scope;
    while (cell.firstChild) th.appendChild(cell.firstChild);
    cell.replaceWith(th);
    return th;
  }
  function groupButton(img, name) {
    var sync = function () {
      img.setAttribute("aria-expanded", String(!/plus\.png$/.test(img.src)));
    };
    img.alt = "Modules of " + name;
    img.setAttribute("role", "button");
    img.tabIndex = 0;
    // (After Sphinx's own click handler has swapped the picture.)
    img.addEventListener("click", function () { setTimeout(sync, 0); });
    img.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      img.click();
    });
    sync();
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("table.modindextable").forEach(function (table) {
      if (table.tHead) return;
      var group = null;
      Array.prototype.slice.call(table.rows).forEach(function (row) {
        if (row.cells.length !== 3) return;
        if (row.classList.contains("pcap") || !group) {
          group = document.createElement("tbody");
          table.appendChild(group);
        }
        group.appendChild(row);
        var toggler = row.cells[0].querySelector("img.toggler");
        row.deleteCell(0);
        if (row.classList.contains("cap")) {
          row.deleteCell(1);
          headerCell(row.cells[0], "rowgroup").colSpan = 2;
        } else if (!row.classList.contains("pcap")) {
          var name = headerCell(row.cells[0], "row");
          if (toggler) {
            groupButton(toggler, name.textContent.trim());
            name.insertBefore(toggler, name.firstChild);
          }
        }
      });
      Array.prototype.slice.call(table.tBodies).forEach(function (body) {
        if (!body.rows.length) body.remove();
      });
      var head = table.createTHead();
      head.className = "visually-hidden";
      var columns = head.insertRow();
      ["Name", "Description"].forEach(function (name) {
        var th = document.createElement("th");
        th.scope = "col";
        th.textContent = name;
        columns.appendChild(th);
      });
    });
  });
})();
