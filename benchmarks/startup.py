"""Benchmark: start-up cost of a crisp evaluation (issue 24), each probe in a fresh process.

Probes, each run ``--repeat`` times (interleaved, the median printed), wall and CPU time of
the whole process (``os.wait4``: user + system, children included):

* ``python -c pass``: the interpreter alone, the baseline;
* ``fuzzytruth --help``;
* ``fuzzytruth evaluate`` on a three-line qrels file and a three-line run (P@10, AP, nDCG@10,
  the table printed);
* ``import fuzzytruth`` and the first ``ft.evaluate(run, qrels, ["P@10", "AP", "nDCG@10"])``
  with ``aggregate()``: the CPU time of the evaluation alone (``time.process_time`` inside);
* the floor: ``import pyarrow`` and its CSV reader, and one ``pa.array``. pyarrow imports
  pandas on its first array when pandas is installed (its pandas shim), so no evaluator
  working on Arrow arrays starts faster: numpy, pyarrow and pandas are loaded before any
  work. The summary prints what the bar leaves for fuzzytruth over that floor;

with the bytecode caches written first (an environment with ``PYTHONDONTWRITEBYTECODE`` would
compile every module at every start: 0.4 s that no user pays); then the heavy modules each
probe loaded and, with ``--importtime``, the modules that cost
most to import on the first evaluation (``python -X importtime``, cumulative microseconds).
Bars: the command ≤ 0.5 s wall over ``python -c pass`` on a quiet machine, the first
evaluation ≤ 0.6 s CPU. Print the load (``uptime``) beside the figures: wall time is noisy on a
shared machine. Run from a checkout: ``PYTHONPATH=. python benchmarks/startup.py``.
``FUZZYTRUTH_BENCH_SMOKE=1`` runs each probe once (benchmarks/_smoke.py).
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _smoke import size

HEAVY = ("scipy.stats", "scipy.special", "numba", "matplotlib", "seaborn", "statsmodels",
         "dask", "pandas", "pyarrow")

EVALUATE = """
import sys, time
import fuzzytruth as ft
start = time.process_time()
run = ft.Run(["q1", "q1", "q2"], ["d1", "d2", "d1"], [3.0, 2.0, 1.0])
qrels = ft.Qrels(["q1", "q1", "q2"], ["d1", "d3", "d1"], [1, 1, 2])
ft.evaluate(run, qrels, ["P@10", "AP", "nDCG@10"]).aggregate()
print(time.process_time() - start)
"""

# the floor of any evaluator whose columns are Arrow arrays: pyarrow's first array (or compute
# call with a scalar, or to_numpy of a chunked array) imports pandas when pandas is installed
# (pyarrow's pandas shim), so numpy, pyarrow and pandas are all loaded before any work
FLOOR = """
import pyarrow as pa
from pyarrow import csv
pa.array([1.0])
"""

REPORT = "\nimport sys\nprint(sorted(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)\n"


# as a user's interpreter runs: bytecode cached (a PYTHONDONTWRITEBYTECODE environment would
# compile every module on every start, 0.4 s more)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cpu_of(argv: list[str]) -> tuple[float, float, str, str]:
    """Wall and CPU seconds (user + system) of one process, from the children's rusage."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise SystemExit(f"{argv} failed:\n{out.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout, out.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=size(5, 1))
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    py = sys.executable
    folder = Path(tempfile.mkdtemp(prefix="fuzzytruth-startup-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n")
    run.write_text("q1 Q0 d1 1 3.0 sys\nq1 Q0 d2 2 2.0 sys\nq2 Q0 d1 1 1.0 sys\n")
    cli = "from fuzzytruth.cli import main\nimport sys\ntry:\n    main(sys.argv[1:])\n" \
          "except SystemExit:\n    pass\n" + REPORT.format(heavy=HEAVY)
    probes = {
        "python -c pass": [py, "-c", "pass"],
        "fuzzytruth --help": [py, "-c", cli, "--help"],
        "fuzzytruth evaluate (3 lines)": [py, "-c", cli, "evaluate", "--qrels", str(qrels),
                                          "--run", str(run)],
        "import + first ft.evaluate": [py, "-c", EVALUATE + REPORT.format(heavy=HEAVY)],
        "floor: first pyarrow array": [py, "-c", FLOOR + REPORT.format(heavy=HEAVY)],
    }
    print(f"load before: {os.getloadavg()}")
    for argv in probes.values():  # once untimed: writes the bytecode caches
        cpu_of(argv)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in probes}
    loaded: dict[str, str] = {}
    inner: list[float] = []
    for _ in range(args.repeat):  # interleaved
        for name, argv in probes.items():
            wall, cpu, out, err = cpu_of(argv)
            samples[name].append((wall, cpu))
            loaded[name] = err.strip().splitlines()[-1] if err.strip() else "[]"
            if name.startswith("import"):
                inner.append(float(out.strip().splitlines()[-1]))
    base_wall = statistics.median(w for w, _ in samples["python -c pass"])
    print(f"{'probe':<32} {'wall s':>7} {'over pass':>9} {'CPU s':>6}  heavy modules loaded")
    for name in probes:
        wall = statistics.median(w for w, _ in samples[name])
        cpu = statistics.median(c for _, c in samples[name])
        print(f"{name:<32} {wall:>7.3f} {wall - base_wall:>9.3f} {cpu:>6.3f}  "
              f"{loaded.get(name, '')}")
    print(f"first ft.evaluate + aggregate after import: {statistics.median(inner):.3f} s CPU "
          f"(median of {len(inner)}; bar 0.6 s)")
    floor = statistics.median(w for w, _ in samples["floor: first pyarrow array"]) - base_wall
    command = statistics.median(w for w, _ in samples["fuzzytruth evaluate (3 lines)"])
    print(f"floor over pass: {floor:.3f} s wall; the bar (0.5 s) leaves {0.5 - floor:.3f} s for "
          f"fuzzytruth's modules and work, which take {command - base_wall - floor:.3f} s")
    print(f"load after: {os.getloadavg()}")
    if args.importtime:
        out = subprocess.run([py, "-X", "importtime", "-c", EVALUATE], capture_output=True,
                             text=True, env=ENV)
        rows = []
        for line in out.stderr.splitlines():
            parts = line.split("|")
            if len(parts) == 3 and parts[1].strip().isdigit():
                name = parts[2].strip()
                if name.count(".") <= 1:
                    rows.append((int(parts[1]), name))
        print("\nimport time of the first evaluation (cumulative, top 15):")
        for micro, name in sorted(rows, reverse=True)[:15]:
            print(f"  {micro / 1e6:7.3f} s  {name}")


if __name__ == "__main__":
    main()
