// Behaviour fixes of the book's pages (sphinx-book-theme 1.3.0, sphinx-togglebutton 0.4.5,
// sphinx-exercise 1.2.1); registered in _config.yml (sphinx.config.html_js_files).
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
})();
