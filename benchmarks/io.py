"""Benchmark: reading real-size tables (fuzzytruth.io) vs plain pandas and pyarrow.

* Annotation table: ImageNet ReaL's 924,810 votes (bundled) written as a CSV
  ``item_id,annotator_id,label`` (item ids as ``<image>/<class>`` strings, as a user would have
  them), plain and gzip-compressed. ``read_annotations`` parses, validates every line and
  builds the Annotations (factorised ids, vote shares); the peers only parse. Bar (issue 14):
  under 2 s for the plain CSV.
* TREC run: 1,000,000 lines ``qid Q0 docno rank score tag``; ``read_trec_run`` builds a Run;
  the peers only parse. Then the same run as trec_eval also accepts it: tab-separated, CRLF,
  a comment line and a field after the tag (pandas needs a regex separator for it).

Times are the best of ``REPEATS`` runs, after a warm-up (imports, page cache). On a shared
machine expect tens of percent of noise.

Run: ``.venv/bin/python benchmarks/io.py``. ``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size
(the first 2,000 votes, 2,000 run lines, one run per time; benchmarks/_smoke.py).
"""

from __future__ import annotations

import gzip
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _smoke import size
from pyarrow import csv as pa_csv

from fuzzytruth.datasets import imagenet_real
from fuzzytruth.io import read_annotations, read_trec_run

REPEATS = size(3, 1)
RUN_LINES = size(1_000_000, 2_000)
VOTES = size(None, 2_000)  # rows of the annotation table kept (None: all)


def best_of(fn, repeats: int = REPEATS) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def write_inputs(folder: Path) -> tuple[Path, Path, Path]:
    data = imagenet_real()
    votes = data.annotations.to_frame().iloc[:VOTES]
    questions = data.questions.set_index("question_id")
    item = questions.loc[votes["item_id"]]
    frame = pd.DataFrame(
        {
            "item_id": item["image"].astype(str).to_numpy() + "/" + item["class_id"].astype(str),
            "annotator_id": votes["annotator_id"].to_numpy(),
            "label": votes["label"].to_numpy(),
        }
    )
    plain = folder / "votes.csv"
    frame.to_csv(plain, index=False)
    compressed = folder / "votes.csv.gz"
    compressed.write_bytes(gzip.compress(plain.read_bytes(), compresslevel=6))
    rng = np.random.default_rng(0)
    n_queries, depth = 1000, RUN_LINES // 1000
    run = pd.DataFrame(
        {
            "qid": np.repeat(np.arange(n_queries), depth).astype(str),
            "q0": "Q0",
            "docno": [f"doc{i}" for i in rng.integers(0, 10**7, RUN_LINES)],
            "rank": np.tile(np.arange(1, depth + 1), n_queries),
            "score": -np.tile(np.arange(depth), n_queries) + rng.random(RUN_LINES) / 2,
            "tag": "bm25",
        }
    )
    run = run.drop_duplicates(["qid", "docno"])
    run_path = folder / "run.txt"
    run.to_csv(run_path, sep=" ", header=False, index=False)
    irregular = folder / "run_irregular.txt"
    irregular.write_bytes(
        b"# BM25, k1=0.9\r\n"
        + run.assign(note="x").to_csv(sep="\t", header=False, index=False, lineterminator="\r\n")
        .encode()
    )
    return plain, compressed, run_path


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        plain, compressed, run_path = write_inputs(Path(tmp))
        n_rows = sum(1 for _ in plain.open()) - 1
        print(f"annotation table: {n_rows} rows, {plain.stat().st_size / 2**20:.1f} MB "
              f"({compressed.stat().st_size / 2**20:.1f} MB gzip)")
        ours = best_of(lambda: read_annotations(plain, taxonomy=None))
        ours_gz = best_of(lambda: read_annotations(compressed, taxonomy=None))
        pandas_c = best_of(lambda: pd.read_csv(plain, dtype=str))
        pandas_pa = best_of(lambda: pd.read_csv(plain, dtype=str, engine="pyarrow"))
        arrow = best_of(lambda: pa_csv.read_csv(plain))
        print(f"{'reader':<58}{'seconds':>9}{'ours / peer':>13}")
        rows = [
            ("fuzzytruth read_annotations (parse + validate + build)", ours),
            ("fuzzytruth read_annotations, .csv.gz", ours_gz),
            ("pandas.read_csv(dtype=str), C engine (parse only)", pandas_c),
            ("pandas.read_csv(dtype=str, engine='pyarrow') (parse only)", pandas_pa),
            ("pyarrow.csv.read_csv (parse only)", arrow),
        ]
        for label, seconds in rows:
            print(f"{label:<58}{seconds:>9.3f}{ours / seconds:>12.1f}x")
        print(f"bar 925k-row annotation table < 2 s: {'PASS' if ours < 2 else 'FAIL'}")

        lines = sum(1 for _ in run_path.open())
        print(f"\nTREC run: {lines} lines, {run_path.stat().st_size / 2**20:.1f} MB")
        ours_run = best_of(lambda: read_trec_run(run_path))
        pandas_run = best_of(
            lambda: pd.read_csv(run_path, sep=" ", header=None, dtype={0: str, 2: str})
        )
        arrow_run = best_of(
            lambda: pa_csv.read_csv(
                run_path,
                read_options=pa_csv.ReadOptions(autogenerate_column_names=True),
                parse_options=pa_csv.ParseOptions(delimiter=" "),
            )
        )
        for label, seconds in (
            ("fuzzytruth read_trec_run (parse + validate + build)", ours_run),
            ("pandas.read_csv, C engine (parse only)", pandas_run),
            ("pyarrow.csv.read_csv (parse only)", arrow_run),
        ):
            print(f"{label:<58}{seconds:>9.3f}{ours_run / seconds:>12.1f}x")
        irregular = run_path.with_name("run_irregular.txt")
        ours_irr = best_of(lambda: read_trec_run(irregular))
        pandas_irr = best_of(
            lambda: pd.read_csv(
                irregular, sep=r"\s+", header=None, comment="#", dtype={0: str, 2: str}
            )
        )
        print("same run with tabs, CRLF, a comment line and an extra field:")
        for label, seconds in (
            ("fuzzytruth read_trec_run", ours_irr),
            ("pandas.read_csv(sep=r'\\s+', comment='#') (parse only)", pandas_irr),
        ):
            print(f"{label:<58}{seconds:>9.3f}{ours_irr / seconds:>12.1f}x")


if __name__ == "__main__":
    main()
