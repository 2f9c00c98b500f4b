// Replaces pydata-sphinx-theme's fontawesome.js (1.45 MB: the JavaScript of every Font
// Awesome icon) on every page. The theme's stylesheet already draws the few icons the
// book shows from the icon font, subset to those icons in _static/fonts/ (book.css,
// tools/icon_fonts.py); this file stays so that the theme's <script> finds it.
