# Two entry points for a fresh machine: `make demo` and `make test`.
# Both create .venv when it is missing and install the package with its test extras.
# make demo: the paper reproductions, then the bundled collection end to end (demo_output/).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/fuzzytruth repro
	$(VENV)/bin/fuzzytruth demo --out demo_output

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP) lint
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	for f in benchmarks/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache
