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

.PHONY: book test unit doctest lint notebooks student venv clean

book: $(STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going
	@echo "The book is at $(CURDIR)/_build/html/index.html"

test: $(TEST_STAMP)
	$(BIN)/python -m pytest -p no:xdist -q --doctest-modules src/attnsig
	$(BIN)/python -m pytest -n 2 --dist loadfile tests chapters --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg --junitxml=_build/pytest.xml
	$(BIN)/jupyter-book build . -W -n --keep-going
	$(BIN)/python tools/student_edition.py build
	$(BIN)/python tools/student_edition.py check
	@$(BIN)/python tools/test_summary.py _build/pytest.xml --extra-checks 2

unit: $(TEST_STAMP)
	$(BIN)/python -m pytest tests

# The Examples section of every public docstring, run as a test.
doctest: $(TEST_STAMP)
	$(BIN)/python -m pytest -p no:xdist -q --doctest-modules src/attnsig

# Style (ruff, pinned in requirements.txt, configured in pyproject.toml), notebooks included.
lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests tools benchmarks chapters
	$(BIN)/ruff format --check src tests tools benchmarks chapters

notebooks: $(TEST_STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile chapters --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg

student: $(STAMP)
	$(BIN)/python tools/student_edition.py build

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
