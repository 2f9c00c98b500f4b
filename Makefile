# `make book` builds the HTML book; `make test` runs every test. Both create .venv when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# One BLAS thread: reproducible numbers and no oversubscription on small machines.
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: book test unit notebooks build-check student student-check pdf venv clean

book: $(STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going
	@echo "The book is at $(CURDIR)/_build/html/index.html"

test: $(TEST_STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile tests chapters --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg --junitxml=_build/pytest.xml
	$(BIN)/jupyter-book build . -W -n --keep-going
	$(BIN)/python -m tools.student_edition build
	$(BIN)/python -m tools.student_edition check
	@$(BIN)/python tools/test_summary.py _build/pytest.xml --extra-checks 2

unit: $(TEST_STAMP)
	$(BIN)/python -m pytest tests

notebooks: $(TEST_STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile chapters --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg

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

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(TEST_STAMP): $(STAMP) requirements-test.txt
	$(BIN)/python -m pip install --quiet -r requirements-test.txt
	touch $@

clean:
	rm -rf _build
