"""Work-arounds for the pinned theme stack (Sphinx 7.4, sphinx-book-theme 1.3.0).

Loaded through ``sphinx.local_extensions`` in ``_config.yml``. Remove a work-around
when the package it works around is upgraded past the fix.

* Inline scripts twice on every page. Sphinx 7.4 adds an inline script
  (``add_js_file(None, body=...)``) registered after the HTML builder started a second
  time: once as ``None`` and once as ``''`` (fixed in Sphinx 8.2, sphinx-doc/sphinx
  pull request 13402; Jupyter Book 1 needs Sphinx 7). sphinx-thebe's
  ``const THEBE_JS_URL = ...`` declared twice is a JavaScript ``SyntaxError`` in the
  console of every page. Here a script the page would load twice is kept once.
"""

from __future__ import annotations

from typing import Any


def _script_key(script: Any) -> tuple:
    filename = getattr(script, "filename", script) or ""
    attributes = getattr(script, "attributes", {}) or {}
    return (str(filename), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def drop_duplicate_scripts(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple] = set()
    kept = []
    for script in scripts:
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    # The builder restores its list after each page: only this page's context changes.
    context["script_files"] = kept


def setup(app) -> dict[str, Any]:
    # After the other extensions (MyST-NB adds its per-page scripts in this event too).
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
