# Two entry points for a fresh machine: `make demo` and `make test`.
# Both create .venv when it is missing and install the package with its test extras.
# make demo: the paper reproductions, then the bundled collection end to end (demo_output/).
# make docs: the documentation site into docs/_build/html, offline, warnings as errors, the
# notebooks and the user guide's code executed (open docs/_build/html/index.html).
# make notebooks: re-execute notebooks/ in place, so they ship with current outputs.
# make test: every test but the simulation studies and the benchmarks' tiny runs (marked slow);
# make test-slow: those (the validity rates of the statistics' defaults, also tabulated by
# benchmarks/stats_validity.py; every script in benchmarks/ run end to end at a tiny size).
# CI runs both. After make docs, make test checks the notebooks' stored outputs against the
# docs build's execution of the same code instead of executing them again.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test test-slow lint bench docs notebooks clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# the install compiles the numba kernels into numba's cache beside the package (about a
# minute on 2 cores), so that neither the first evaluation nor the first make test pays it
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	$(PY) -m fuzzytruth._kernel_warmup
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/fuzzytruth repro
	$(VENV)/bin/fuzzytruth demo --out demo_output

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP) lint
	@echo "make test: about 4,500 tests, doctests and notebooks included, the simulation studies not (make test-slow), on 2 cores (pytest-xdist). Measured on 2 cores, after make docs in fresh clones' CI (make docs executes the notebooks, whose outputs this then reads; the install step has compiled the numba kernels): 2 min 22 s on 2026-11-28 evening (4,482 tests) in this machine's fast state, 5 min 4 s to 5 min 34 s that morning in its slow state, 7 min 21 s and 8 min 18 s on 2026-11-27 when the host's CPU was slowest (the Performance page). The 15 slowest are listed at the end."
	$(PY) -m pytest -q -m "not slow" -n 2 --dist loadfile --durations=15

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow --durations=5

# the docs extra is part of the test extra ($(STAMP)); pip (which needs the package index) runs
# only when a venv made otherwise lacks the site's tools, so that make docs works offline
docs: $(STAMP)
	$(PY) -c "import sphinx, myst_nb, furo" 2>/dev/null || $(PY) -m pip install --quiet -e '.[docs]'
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html
	@echo "Documentation: docs/_build/html/index.html"

notebooks: $(STAMP)
	$(PY) docs/execute_notebooks.py

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	for f in benchmarks/[!_]*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache docs/_build docs/api docs/notebooks \
		docs/jupyter_execute
