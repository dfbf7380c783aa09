"""Hostile inputs through every reader of fuzzytruth.io, tallied (issue 23).

For each format of ``tests/hostile.py`` (TREC runs, qrels and judgment-group qrels, prefs,
qrels read as prefs, the judgments front door, z-scores; JSON, CSV and TSV taxonomies; CSV, TSV
and Parquet annotations; CSV and TSV probabilistic qrels; query categories; a generic TSV
table; rankings as selectors JSON, CSV and Parquet; predictions long, wide, Parquet and
``.npz``; the displacement tables), ``N_PER_FORMAT`` mutated files drawn by hypothesis
(truncation, byte flips, inserted bytes, wrong column counts, NaN / inf / huge / negative
numbers, duplicated lines, empty, comments only, binary garbage, very long lines, hostile ids,
CR and CRLF line ends, every compression, whole or truncated) go through the public reader.

Each outcome is one of: ``read`` (accepted; for TREC and delimited formats, value for value
what an independent reference reads), ``error+line`` (one ValueError on one line naming the
file and the line), ``error`` (naming the file, no line: e.g. a broken compressed stream, an
empty file, a Parquet footer), or a failure of the law (another exception, a message without
the file, a read the reference disagrees with), which stops the script.

Last, a "bomb": a gzip file of about 5 MB that inflates to 5 GB, read under the default cap
(200 times its size, about 1 GB) in a fresh process: its CPU time and peak memory (the
process's maximum resident set) until the refusal. The decoder keeps at most 64 MiB of content
and only counts the rest (``fuzzytruth.io.text.read_bytes``); before issue 23 it kept the cap's
worth, 1,044 MB at the peak. Then an ``.npz`` of about 1 MB whose member inflates to a 1 GiB
array, read as predictions (``fuzzytruth.io.numpy_files``): refused by the sizes its members
declare, before any is inflated.

Run: ``.venv/bin/python benchmarks/hostile_inputs.py [N_PER_FORMAT]`` (default 110).
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (3 files per format, bombs just past the
cap's 256 MiB floor; benchmarks/_smoke.py).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from collections import Counter
from pathlib import Path

from _smoke import size
from hypothesis import HealthCheck, Phase, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from hostile import FORMATS, hostile, outcome

N_PER_FORMAT = size(110, 3)
BOMB_MIB = size(5000, 300)  # the gzip bomb's content (refused above the cap's 256 MiB floor)
NPZ_BOMB_CHUNKS = size(64, 20)  # the .npz bomb's member: this many 16 MiB chunks of zeros


def tally(name: str, n: int, folder: Path) -> tuple[Counter, Counter]:
    """Outcomes, and mutation kinds, of ``n`` hostile files of format ``name``."""
    outcomes: Counter = Counter()
    kinds: Counter = Counter()
    fmt = FORMATS[name]

    @settings(max_examples=n, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=hostile(fmt))
    def run(case: tuple[str, bytes]) -> None:
        label, data = case
        kinds[label.split("+")[0]] += 1
        outcomes[outcome(fmt, data, folder)] += 1

    run()
    return outcomes, kinds


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else N_PER_FORMAT
    total: Counter = Counter()
    start = time.process_time()
    print(f"{'format':<22} {'files':>6} {'read':>6} {'error+line':>11} {'error':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(FORMATS):
            outcomes, kinds = tally(name, n, Path(tmp))
            files = sum(outcomes.values())
            total.update(outcomes)
            total["files"] += files
            print(f"{name:<22} {files:>6} {outcomes['read']:>6} {outcomes['error+line']:>11} "
                  f"{outcomes['error']:>6}   first mutations: {dict(sorted(kinds.items()))}")
    print(f"{'all':<22} {total['files']:>6} {total['read']:>6} {total['error+line']:>11} "
          f"{total['error']:>6}")
    print(f"law held on every file (no other exception, every message names the file, every "
          f"read agrees with the reference); CPU {time.process_time() - start:.1f} s")
    bomb()


def bomb() -> None:
    """A 5 MB gzip file of 5 GB of zeros, read in a child process: CPU and peak memory."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.txt.gz"
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        with open(path, "wb") as handle:
            for _ in range(BOMB_MIB):
                handle.write(packer.compress(bytes(2**20)))
            handle.write(packer.flush())
        out = _read_in_a_child("from fuzzytruth.io.text import read_bytes",
                               f"read_bytes({str(path)!r})")
        print(f"bomb: {path.stat().st_size:,} bytes of gzip -> {out}")
    npz_bomb()


def npz_bomb() -> None:
    """An .npz archive of about 1 MB whose member inflates to a 1 GiB array, read as
    predictions in a child process: CPU and peak memory until the refusal (before the
    members' declared sizes were checked against the cap, its 2**27 items took the process to
    24 GB and the kernel killed it)."""
    import io

    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "net.npz"
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive, \
                archive.open("scores.npy", "w", force_zip64=True) as member:
            header = io.BytesIO()
            np.lib.format.write_array_header_1_0(header, {
                "descr": "<f8", "fortran_order": False, "shape": (NPZ_BOMB_CHUNKS * 2**21, 1)})
            member.write(header.getvalue())
            for _ in range(NPZ_BOMB_CHUNKS):
                member.write(bytes(2**24))
        out = _read_in_a_child("from fuzzytruth.io import read_predictions",
                               f"read_predictions({str(path)!r}, classes=['a'])")
        print(f"npz bomb: {path.stat().st_size:,} bytes -> {out}")


def _read_in_a_child(setup: str, read: str) -> str:
    """Run ``read`` after ``setup`` in a fresh process: its refusal (up to the first ';'),
    CPU time and peak memory. The child reports its own peak (VmHWM, Linux): a parent's
    ru_maxrss of its children counts the parent's pages the child held between fork and
    exec."""
    code = (f"import re, time; {setup}\n"
            "t = time.process_time()\n"
            f"try: {read}\n"
            "except ValueError as err: print(str(err).split(';')[0])\n"
            "peak = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read())[1]\n"
            "print(f'(CPU {time.process_time() - t:.1f} s; peak memory of the reading "
            "process {int(peak) / 1024:.0f} MB)')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return " ".join(out.split())


if __name__ == "__main__":
    main()
