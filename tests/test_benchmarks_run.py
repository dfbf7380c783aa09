"""Every script in benchmarks/ runs end to end at its tiny size (``FUZZYTRUTH_BENCH_SMOKE=1``,
benchmarks/_smoke.py): a benchmark broken by a change elsewhere fails here, not at its next
measurement (benchmarks/pr_bands.py read columns that to_frame() had renamed, and crashed
unnoticed for five days). Marked slow: make test-slow runs them, each in its own process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))


def test_every_benchmark_is_listed():
    assert len(SCRIPTS) >= 20  # the glob found the scripts (a moved folder would give none)


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_the_benchmark_runs_at_its_tiny_size(script, tmp_path):
    env = {**os.environ, "FUZZYTRUTH_BENCH_SMOKE": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{script.name} failed:\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), f"{script.name} printed nothing"
