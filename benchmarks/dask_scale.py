"""Benchmark: evaluate() on a Dask LocalCluster against the in-memory path (issue 15).

Data: a run of ``--queries`` queries x ``--docs`` documents (default 200,000 x 100: 20 M rows)
written as partitioned Parquet, ``--per-file`` queries per file (default 5,000), with a
probabilistic qrels for every (query, document) (P(relevant) drawn from a Beta(0.5, 2)) and
its crisp version (relevant when P >= 0.5) in the same files.

Workloads:

* uncertain: probabilistic qrels, P@10 + AP + nDCG@10, ``--worlds`` (200) sampled worlds;
* crisp: qrels, AP + nDCG@10.

Each is run on a LocalCluster of 1 and 2 worker processes (``--workers``, one thread each,
memory limit ``--memory-limit`` each, default 1.5 GB), reading the Parquet dataset (one reader
call), and
beside it the in-memory path (pandas reads the files, :func:`fuzzytruth.evaluation.evaluate`)
in a fresh process, where it fits (``--in-memory-max`` queries). Printed: wall time, CPU time
(in memory: the process; on the cluster: the workers' and the driver's), the time per core
(wall time x workers over the in-memory wall time; issue 24's bar: <= 1.5 for crisp at 200k
queries on 2 workers), the fixed costs of the cluster (start, with the workers' imports of
fuzzytruth and of Dask's DataFrame code, and the round trip of an empty task), the one-minute
load, peak resident memory of each worker process (Linux ``VmHWM``) and of the in-memory
process, and whether the results are identical (world values bit for bit, crisp to 1e-12).
Memory flatness: the cluster path is run on a quarter of the queries and on all of them; the
peak per worker must not grow with the input (partitions are of a fixed number of queries).

Run: ``.venv/bin/python benchmarks/dask_scale.py`` (full size: several minutes on 2 cores)
or ``--queries 20000`` for a quick look. The machine is shared: expect tens of percent noise.
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (benchmarks/_smoke.py), on 1 worker and
at ``--queries`` only, not also at a quarter of them (each cluster takes seconds to start).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path
from queue import Empty

import numpy as np
import pandas as pd
from _smoke import size

UNCERTAIN = ["P@10", "AP", "nDCG@10"]
CRISP = ["AP", "nDCG@10"]
SEED = 15
EMPTY_TASKS = size(200, 20)  # the round trip of an empty task is timed over this many


def write_dataset(root: Path, n_queries: int, n_docs: int, per_file: int) -> None:
    """``root/part.NNNNN.parquet``: whole queries per file, columns query_id, doc_id, score,
    probability, relevance."""
    root.mkdir(parents=True)
    docs = np.array([f"d{j:04d}" for j in range(n_docs)], dtype=object)
    for p, start in enumerate(range(0, n_queries, per_file)):
        rng = np.random.default_rng([SEED, p])
        n = min(per_file, n_queries - start)
        queries = np.array([f"q{i:07d}" for i in range(start, start + n)], dtype=object)
        prob = rng.beta(0.5, 2.0, size=n * n_docs)
        frame = pd.DataFrame({
            "query_id": np.repeat(queries, n_docs),
            "doc_id": np.tile(docs, n),
            "score": prob + rng.normal(0, 0.3, size=n * n_docs),
            "probability": prob,
            "relevance": (prob >= 0.5).astype(np.int64),
        })
        frame.to_parquet(root / f"part.{p:05d}.parquet", index=False)


def peak_rss_mb() -> float:
    """Peak resident memory of this process, in MB.

    Linux ``VmHWM`` (the high-water mark of this program's memory map, reset by ``exec``);
    ``ru_maxrss`` is not: it keeps the parent's resident size at fork, so a worker spawned by
    a process holding a large result would report that result as its own peak.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _in_memory(root: str, workload: str, n_worlds: int, queue: multiprocessing.Queue) -> None:
    from fuzzytruth.evaluation import evaluate
    from fuzzytruth.runs import Qrels, Run
    from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels

    start, cpu = time.perf_counter(), time.process_time()
    frame = pd.read_parquet(root)
    run = Run.from_dataframe(frame, name="run")
    if workload == "uncertain":
        truth = ProbabilisticQrels.from_dataframe(frame)
        ev = evaluate(run, truth, UNCERTAIN, n_worlds=n_worlds, rng=1, progress=False)
    else:
        truth = Qrels.from_dataframe(frame)
        ev = evaluate(run, truth, CRISP)
    del frame, run, truth
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    queue.put((seconds, cpu, peak_rss_mb(), _fingerprint(ev)))


def _fingerprint(ev) -> dict:
    return {m: (ev.world_scores(m) if ev.n_worlds else ev.query_means(m)) for m in ev.measures}


def in_memory(root: Path, workload: str, n_worlds: int) -> tuple[float, float, float, dict]:
    """Wall time, CPU time, peak RSS and results of the in-memory path, in a fresh process."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_in_memory, args=(str(root), workload, n_worlds, queue))
    proc.start()
    while True:  # a child that dies (its traceback on stderr) must end the run, not hang it
        try:
            result = queue.get(timeout=1.0)
            break
        except Empty:
            if not proc.is_alive():
                raise SystemExit(f"the in-memory {workload} run died (exit code "
                                 f"{proc.exitcode})") from None
    proc.join()
    return result


def on_cluster(root: Path, workload: str, n_worlds: int, n_workers: int, memory_limit: str
               ) -> tuple[float, float, list[float], dict, dict]:
    """Wall time (reading included), CPU time of the workers and of the driver, peak RSS of
    each worker, results, and the fixed costs (cluster start, per-task round trip) on a fresh
    LocalCluster."""
    from distributed import Client, LocalCluster

    from fuzzytruth import distributed as fd

    fixed = {}
    start = time.perf_counter()
    with (
        LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                     memory_limit=memory_limit, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        client.run(_worker_imports)
        fixed["cluster start s"] = time.perf_counter() - start
        t0 = time.perf_counter()
        client.gather(client.map(_nothing, range(EMPTY_TASKS), pure=False))
        fixed["per empty task ms"] = (time.perf_counter() - t0) / EMPTY_TASKS * 1000 * n_workers
        before = client.run(time.process_time)
        start, driver = time.perf_counter(), time.process_time()
        if workload == "uncertain":
            runs = fd.read_parquet(root, columns=["query_id", "doc_id", "score"])
            truth = fd.read_parquet(root, columns=["query_id", "doc_id", "probability"])
            ev = fd.evaluate({"run": runs}, truth, UNCERTAIN, n_worlds=n_worlds, rng=1)
        else:
            runs = fd.read_parquet(root, columns=["query_id", "doc_id", "score"])
            truth = fd.read_parquet(root, columns=["query_id", "doc_id", "relevance"])
            ev = fd.evaluate({"run": runs}, truth, CRISP)
        seconds, driver = time.perf_counter() - start, time.process_time() - driver
        after = client.run(time.process_time)
        cpu = sum(after[w] - before[w] for w in after if w in before) + driver
        peaks = sorted(client.run(peak_rss_mb).values())
    return seconds, cpu, peaks, _fingerprint(ev), fixed


def _worker_imports() -> None:
    """The modules a worker's evaluation task runs (a fixed cost of the cluster, paid once per
    worker process; ``dask worker --preload dask.dataframe`` pays it at start-up):
    fuzzytruth's, and Dask's DataFrame code, which reads the partitions (0.67 s to import; the
    in-memory path never loads it)."""
    import dask.dataframe  # noqa: F401

    import fuzzytruth.distributed.evaluation
    import fuzzytruth.evaluation  # noqa: F401


def _nothing(i: int) -> int:
    return i


def same(a: dict, b: dict, exact: bool) -> bool:
    if exact:
        return all(np.array_equal(a[m], b[m]) for m in a)
    return all(np.allclose(a[m], b[m], rtol=0, atol=1e-12) for m in a)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=size(200_000, 40))
    parser.add_argument("--docs", type=int, default=size(100, 10))
    parser.add_argument("--per-file", type=int, default=size(5_000, 10))
    parser.add_argument("--worlds", type=int, default=size(200, 10))
    parser.add_argument("--memory-limit", default="1.5GB")
    parser.add_argument("--in-memory-max", type=int, default=size(200_000, 40),
                        help="largest number of queries run in memory too")
    parser.add_argument("--workers", type=int, nargs="+", default=size([1, 2], [1]))
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="fuzzytruth-dask-"))
    try:
        sizes = size([args.queries // 4, args.queries], [args.queries])
        print(f"{args.docs} documents per query, {args.per_file} queries per Parquet file, "
              f"{args.worlds} worlds, workers limited to {args.memory_limit} each")
        header = (f"{'workload':<10} {'queries':>8} {'path':<14} {'wall s':>8} {'CPU s':>7} "
                  f"{'per core':>8} {'peak MB per process':>22}  identical  load")
        print(header)
        print("per core: wall time x workers / the in-memory wall time (bar <= 1.5 for crisp at "
              "200k queries on 2 workers)")
        for n in sizes:
            root = tmp / f"q{n}"
            t0 = time.perf_counter()
            write_dataset(root, n, args.docs, args.per_file)
            print(f"# wrote {n * args.docs:,} rows in {time.perf_counter() - t0:.1f} s")
            for workload in ("uncertain", "crisp"):
                base = None
                if n <= args.in_memory_max:
                    seconds, cpu, peak, base = in_memory(root, workload, args.worlds)
                    print(f"{workload:<10} {n:>8} {'in memory':<14} {seconds:>8.1f} {cpu:>7.1f} "
                          f"{1.0:>8.2f} {peak:>22.0f}  -          {os.getloadavg()[0]:.1f}",
                          flush=True)
                    reference = seconds
                for workers in args.workers:
                    seconds, cpu, peaks, result, fixed = on_cluster(
                        root, workload, args.worlds, workers, args.memory_limit)
                    ratio = (f"{seconds * workers / reference:>8.2f}" if base is not None
                             else f"{'-':>8}")
                    ok = "-" if base is None else same(result, base, workload == "uncertain")
                    shown = " ".join(f"{p:.0f}" for p in peaks)
                    print(f"{workload:<10} {n:>8} {f'dask {workers} worker':<14} "
                          f"{seconds:>8.1f} {cpu:>7.1f} {ratio} {shown:>22}  {ok!s:<9}  "
                          f"{os.getloadavg()[0]:.1f}", flush=True)
                    print("  fixed cost: " + ", ".join(f"{k} {v:.2f}" for k, v in fixed.items()))
            shutil.rmtree(root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
