"""Start-up cost (issue 24): a crisp evaluation loads none of the heavy dependencies it does
not use, and ``fuzzytruth --help`` loads none of the library.

One fresh interpreter (``sys.modules`` of this test process is full of everything the suite
imported) goes through the stages a user does, in order, and records after each which modules
of :data:`WATCHED` are loaded; each test reads one stage. The time the stages take is measured
by ``benchmarks/startup.py``, not here (no timed tests).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What a crisp evaluation must not load: scipy.stats (1.1 s of CPU to import), scipy.special
# (0.3 s: the t quantile is computed in plain Python), numba (0.3 s, plus compilation), the
# plotting stack, statsmodels and the Dask back end.
HEAVY = ("scipy.stats", "scipy.special", "numba", "matplotlib", "seaborn", "statsmodels", "dask")
# the classifier path of evaluate() (Predictions against a class truth): loaded on its first
# use only, not by an evaluation of runs
CLASSIFIERS = "fuzzytruth.evaluation.classifiers"
WATCHED = (*HEAVY, "pandas", "pyarrow", "scipy", "numpy", CLASSIFIERS)

PROBE = """
import json, sys
stages = {}
def record(stage):
    stages[stage] = sorted(m for m in WATCHED if m in sys.modules)

from fuzzytruth.cli import main
try:
    main(['--help'])
except SystemExit:
    pass
record('help')

import fuzzytruth as ft
record('import')

run = ft.Run(['q1', 'q1', 'q2', 'q2'], ['a', 'b', 'b', 'a'], [3.0, 2.0, 2.0, 1.0])
qrels = ft.Qrels(['q1', 'q2', 'q2'], ['a', 'a', 'c'], [1, 2, 0])
ev = ft.evaluate(run, qrels, ['P@10', 'AP', 'nDCG@10'])
table = ev.aggregate()  # the t interval over queries: no scipy at all
ev.to_frame()
stages['AP'] = float(table.set_index('measure').loc['AP', 'value'])
record('evaluate')

status = main(['evaluate', '--qrels', QRELS, '--run', RUN])
assert status == 0, status
record('command')

import scipy.stats
record('scipy.stats')
print(json.dumps(stages))
"""


@pytest.fixture(scope="module")
def stages(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("startup")
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text("q1 0 a 1\nq2 0 a 2\nq2 0 c 0\n")
    run.write_text("q1 Q0 a 1 3.0 sys\nq1 Q0 b 2 2.0 sys\nq2 Q0 b 1 2.0 sys\nq2 Q0 a 2 1.0 sys\n")
    code = f"WATCHED = {WATCHED!r}\nQRELS = {str(qrels)!r}\nRUN = {str(run)!r}\n{PROBE}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_probe_sees_a_heavy_module_once_it_is_loaded(stages):
    assert "scipy.stats" in stages["scipy.stats"]


def test_help_loads_none_of_the_library(stages):
    assert stages["help"] == []


def test_import_loads_none_of_the_library(stages):
    assert stages["import"] == []


def test_a_crisp_evaluation_loads_no_heavy_dependency(stages):
    # AP by hand: q1 finds its one relevant document first (1), q2 second (1/2)
    assert stages["AP"] == pytest.approx(0.75, abs=1e-12)
    assert not set(stages["evaluate"]) & set(HEAVY), stages["evaluate"]


def test_the_evaluate_command_on_crisp_files_loads_no_heavy_dependency(stages):
    assert not set(stages["command"]) & set(HEAVY), stages["command"]


def test_runs_are_evaluated_without_loading_the_classifier_path(stages):
    assert CLASSIFIERS not in stages["evaluate"], stages["evaluate"]
    assert CLASSIFIERS not in stages["command"], stages["command"]


def test_pyarrow_imports_pandas_on_its_first_array():
    """Why the crisp path loads pandas although it needs no DataFrame: pyarrow's first array
    imports pandas when it is installed (its pandas shim), the floor ``benchmarks/startup.py``
    measures. Should a pyarrow release stop doing so, a crisp path without pandas would start
    about 0.3 s faster, and the README's start-up paragraph must be revisited."""
    code = ("import sys\nimport pyarrow as pa\nbefore = 'pandas' in sys.modules\n"
            "pa.array([1.0])\nprint(before, 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
