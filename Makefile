# `make book` builds the HTML book; `make test` runs every test. Both create .venv when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# Every installed package at one version: local runs, CI and Binder install the same environment.
CONSTRAINTS := constraints.txt
# pytest-xdist workers for the test run (the project's machine has 2 cores).
JOBS ?= 2
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg
# `make test` reports a test unit (a notebook, a test module) whose inputs are those of a run
# where it passed as passed, marked "cached", without running it again; `$(STEP) NAME` does the
# same for a command (the book, the student edition, its check). tests/result_cache.py keeps the
# results in _build/test-cache; `make test NOCACHE=1` (or ATTNSIG_NO_CACHE=1) runs everything.
CACHE := -p tests.result_cache
STEP := $(BIN)/python -m tests.result_cache step
ifneq ($(NOCACHE),)
export ATTNSIG_NO_CACHE := 1
endif
# One BLAS thread: reproducible numbers and no oversubscription on small machines.
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: book test check unit doctest lint notebooks student student-check pdf setup-cells browser venv lock clean assignments

book: $(STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going
	$(BIN)/python -m tools.handout full-html
	@echo "The book is at $(CURDIR)/_build/html/index.html"

# Each chapter notebook is executed once per BLAS kernel: nbval on this CPU's own OpenBLAS kernel,
# then nbval under a second kernel (a machine-dependent printed digit fails on the machine that
# writes it); the book is then rendered from the stored outputs nbval has just verified.
test: $(TEST_STAMP)
	@mkdir -p _build
	$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest -p no:xdist -q --doctest-modules src/attnsig
	$(BIN)/python -m pytest $(CACHE) -n $(JOBS) --dist loadfile tests chapters $(NBVAL) --junitxml=_build/pytest.xml
	$(BIN)/python tools/blas_kernels.py nbval --junit-into _build/pytest.xml -- $(CACHE) -n $(JOBS) --dist loadfile chapters $(NBVAL)
	$(BIN)/python tools/blas_kernels.py stored-config _config.yml _build/_config.stored.yml
	$(STEP) book --outputs _build/html _build/.doctrees -- sh -c \
		'$(BIN)/jupyter-book build . --config _build/_config.stored.yml --all -W -n --keep-going \
		&& $(BIN)/python -m tools.handout full-html'
	$(STEP) student --outputs _build/student -- $(BIN)/python -m tools.student_edition build
	$(STEP) student-check --inputs _build/html _build/.doctrees _build/student -- \
		$(BIN)/python -m tools.student_edition check
	$(MAKE) --no-print-directory browser
	@$(BIN)/python tools/test_summary.py _build/pytest.xml --extra-checks 3

# One assignment per annotated chapter (otter-grader): student notebook, tests, autograder.
assignments: $(TEST_STAMP)
	$(BIN)/python -m tools.assignments build

unit: $(TEST_STAMP)
	$(BIN)/python -m pytest tests

# The inner loop while editing (about a minute): lint, doctests, the unit tests without
# the slow ones below (grading, fresh environments, the browser), and nbval of the chapter
# notebooks changed since the branch left main (committed or not). `make test` runs all.
SLOW_TESTS := test_assignments test_autograder_zip test_builds test_gradescope_blocking test_grading_cases \
	test_handed_out_notebooks test_student_setup test_variants
check: $(TEST_STAMP)
	$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest -p no:xdist -q --doctest-modules src/attnsig
	$(BIN)/python -m pytest -n $(JOBS) -q tests --ignore=tests/browser \
		$(foreach t,$(SLOW_TESTS),--ignore=tests/$(t).py)
	@base=$$(git merge-base HEAD main 2>/dev/null || echo HEAD); \
	changed=$$(git diff --name-only --diff-filter=d $$base -- 'chapters/*.ipynb'); \
	if [ -n "$$changed" ]; then $(BIN)/python -m pytest -n $(JOBS) -q $$changed $(NBVAL); \
	else echo "no chapter notebook changed since main"; fi

# The Examples section of every public docstring, run as a test.
doctest: $(TEST_STAMP)
	$(BIN)/python -m pytest -p no:xdist -q --doctest-modules src/attnsig

# Style (ruff, pinned in requirements.txt, configured in pyproject.toml), notebooks included.
lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests tools benchmarks chapters
	$(BIN)/ruff format --check src tests tools benchmarks chapters

# What a reader sees: every page of both editions in Chromium at 1400 and 400 px, with
# axe-core's accessibility rules in light and dark mode and each page's weight (report:
# _build/browser-report.json and .md, the README's figures)
# (tests/browser; needs `make book student` first, which `make test` does). Installs
# Debian's chromium when it is missing and we are root (CI); elsewhere the tests skip
# with a message. Screenshots of failures: _build/browser-failures/.
CHROMIUM ?= /usr/bin/chromium
browser: $(TEST_STAMP)
	@test -x $(CHROMIUM) || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		  apt-get install -y -qq --no-install-recommends chromium; }
	ATTNSIG_CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest $(CACHE) -n $(JOBS) --dist loadgroup -q tests/browser

notebooks: $(TEST_STAMP)
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile chapters $(NBVAL)

student: $(STAMP)
	$(BIN)/python -m tools.student_edition build

# Needs both editions built (`make book student`): solution text, numbering, references, notebooks.
student-check: $(STAMP)
	$(BIN)/python -m tools.student_edition check

# Both editions as PDF (slow; not part of `make test`). TeX comes from Debian packages.
TEX_PACKAGES := texlive-latex-extra texlive-xetex texlive-fonts-recommended latexmk lmodern fonts-freefont-otf fonts-dejavu-core poppler-utils
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
pdf: $(STAMP)
	@command -v xelatex >/dev/null && command -v latexmk >/dev/null || \
		{ $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(TEX_PACKAGES); }
	$(BIN)/python -m tools.student_edition pdf

# Re-write every chapter's set-up cell from `repository.url` (_config.yml) and the version number.
setup-cells: $(STAMP)
	$(BIN)/python tools/nbtools.py fix $(sort $(wildcard chapters/*/*.ipynb))

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml $(CONSTRAINTS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) pip
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -r requirements.txt
	touch $@

$(TEST_STAMP): $(STAMP) requirements-test.txt $(CONSTRAINTS)
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -r requirements-test.txt
	touch $@

# After a change of requirements*.txt: install them (without the old pins) and re-pin every
# installed package in $(CONSTRAINTS); then run `make test`.
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt -r requirements-test.txt
	$(BIN)/python tools/lock.py $(CONSTRAINTS)

clean:
	rm -rf _build
