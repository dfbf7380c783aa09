"""The same ``evaluate()`` and ``compare()`` on a Dask cluster, with the same numbers.

An optional extra (``pip install fuzzytruth[dask]``): importing :mod:`fuzzytruth` never loads
Dask; this package does, when it is imported.

* :func:`evaluate` evaluates each partition of queries with
  :func:`fuzzytruth.evaluation.evaluate` on a worker and returns one
  :class:`~fuzzytruth.evaluation.Evaluation`. Inputs: in-memory runs and truths, or Dask
  DataFrames / partitioned Parquet datasets (:func:`read_parquet`) partitioned by query.
* :func:`evaluate_per_annotator` evaluates each judgment group's qrels on a worker and
  combines them as :func:`fuzzytruth.evaluation.per_annotator.evaluate_per_annotator` does.
* :func:`compare` runs :func:`fuzzytruth.stats.compare` with each measure's resamples split
  into blocks of replicates, one task each.
* :func:`agreement` and :func:`agreement_by_level` run the collection bootstrap with its
  blocks of replicates as tasks.

Crisp and exact results equal the in-memory ones (to rounding: 1e-12); Monte Carlo results
are identical bit for bit whatever the number of workers or partitions, because every random
draw is keyed by (seed, query, document, world) (:mod:`fuzzytruth._random`) and each
replicate of ``compare`` (bootstrap resample, sign flips, permutation) and of the agreement
bootstrap from draws keyed by (seed, replicate, draw).

Examples
--------
>>> from distributed import Client, LocalCluster          # doctest: +SKIP
>>> from fuzzytruth import distributed as fd               # doctest: +SKIP
>>> with LocalCluster(n_workers=2) as cluster, Client(cluster) as client:  # doctest: +SKIP
...     ev = fd.evaluate(fd.read_parquet("run/"), fd.read_parquet("qrels/"),
...                      ["P@10", "AP"], n_worlds=200, rng=0)
...     print(ev.aggregate())
"""

from fuzzytruth.distributed.collection import agreement, agreement_by_level
from fuzzytruth.distributed.comparison import compare
from fuzzytruth.distributed.evaluation import evaluate, evaluate_per_annotator
from fuzzytruth.distributed.partitions import read_parquet

__all__ = [
    "agreement",
    "agreement_by_level",
    "compare",
    "evaluate",
    "evaluate_per_annotator",
    "read_parquet",
]
