"""``agreement()`` and ``agreement_by_level()`` on a Dask cluster: blocks of bootstrap
replicates as tasks, the same numbers as in memory.

The bootstrap of :mod:`fuzzytruth.collection.agreement` works in blocks of replicates sized
from the memory budget, every draw of a replicate is keyed by (seed, replicate, draw)
(:func:`~fuzzytruth._resampling.resample_block`), and every replicate's sums are added up
item by item in a fixed order by a compiled pass (no BLAS). Here the blocks are Dask tasks:
the sparse per-item table (a few stored values per label given) is broadcast once, each task
draws and evaluates its block, and the driver puts the blocks back in order. Same blocks, same
draws, same sums: the result equals the in-memory one bit for bit, whatever the number of
workers.

The annotations can be given as an :class:`~fuzzytruth.annotations.Annotations`, a Dask
DataFrame or a partitioned Parquet dataset (one reader call) with columns ``item_id``,
``annotator_id``, ``label``, partitioned by item: the partitioning is checked (an item split
across partitions is an error naming it). Each worker counts its partition's labels per item
(sparse rows of the label-count table, items × taxonomy nodes) and only those rows and the
item ids come back to the driver, which puts the rows in sorted item-id order, the order of
the in-memory analysis (so neither the partitioning nor the row order changes a number): the
votes themselves never leave the workers. The bootstrap then runs on the workers.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from fuzzytruth._allocator import worker_task
from fuzzytruth._order import sorted_order
from fuzzytruth._validation import check_columns
from fuzzytruth.annotations import Annotations
from fuzzytruth.collection import agreement as agreement_in_memory
from fuzzytruth.collection import agreement_by_level as agreement_by_level_in_memory
from fuzzytruth.collection._counts import LabelCounts, label_counts
from fuzzytruth.collection.agreement import AgreementResult, LevelAgreement
from fuzzytruth.distributed.partitions import blocks_on, is_frame, read_parquet
from fuzzytruth.taxonomy import Taxonomy

__all__ = ["agreement", "agreement_by_level"]


def agreement(annotations: Any, *, client: Any = None, retries: int = 2,
              taxonomy: Taxonomy | None = None, **options: Any) -> AgreementResult:
    """:func:`fuzzytruth.collection.agreement` with its bootstrap blocks as Dask tasks.

    Parameters
    ----------
    annotations : Annotations, dask.dataframe.DataFrame or str
        As in :func:`fuzzytruth.collection.agreement`, or a Dask DataFrame / Parquet path
        partitioned by item (module docstring).
    taxonomy : Taxonomy, optional
        The labels' taxonomy, for a frame (default: the flat set of its labels).
    client : distributed.Client, optional
        The cluster (default: the active client).
    retries : int
        How often Dask reruns a block whose worker died (default 2).
    **options
        Every keyword of :func:`fuzzytruth.collection.agreement` (``n_resamples``, ``rng``,
        ``memory_budget``: the block size...).
    """
    if is_frame(annotations):
        annotations = _label_counts(annotations, taxonomy)
    with blocks_on(client, retries):
        return agreement_in_memory(annotations, **options)


def agreement_by_level(annotations: Any, *, client: Any = None, retries: int = 2,
                       taxonomy: Taxonomy | None = None, **options: Any) -> LevelAgreement:
    """:func:`fuzzytruth.collection.agreement_by_level` with its bootstrap blocks as Dask tasks
    (parameters as in :func:`agreement`)."""
    if is_frame(annotations):
        annotations = _label_counts(annotations, taxonomy)
    with blocks_on(client, retries):
        return agreement_by_level_in_memory(annotations, **options)


_ITEM = "item_id"


def _label_counts(annotations: Any, taxonomy: Taxonomy | None) -> LabelCounts:
    """The label-count table of a frame or Parquet path partitioned by item, each partition's
    rows counted on its worker; only the items, labels and counts come back (the votes stay
    where they are). The partitioning is checked: an item split across partitions is an
    error naming it."""
    import dask

    frame = read_parquet(annotations) if isinstance(annotations, str | os.PathLike) else (
        annotations
    )
    check_columns(frame, "annotations", (_ITEM, "annotator_id", "label"), rows=False)
    parts = frame[[_ITEM, "annotator_id", "label"]].to_delayed()
    if taxonomy is None:  # the flat set of the labels, in order of first appearance
        labels = dask.compute(*[dask.delayed(_unique)(part["label"]) for part in parts])
        taxonomy = Taxonomy.flat(pd.unique(np.concatenate(labels)))
    counted = dask.compute(*[dask.delayed(_partition_counts)(part, taxonomy) for part in parts])
    items = pd.Series(np.concatenate([np.empty(0, dtype=object)]
                                     + [items for items, _ in counted]))
    split = items.duplicated(keep=False).to_numpy()
    if split.any():
        item = items[split].iloc[0]
        sizes = [len(items) for items, _ in counted]
        home = np.repeat(np.arange(len(counted)), sizes)
        where = home[(items == item).to_numpy()].tolist()
        raise ValueError(
            f"annotations are not partitioned by item: item {str(item)!r} is split across "
            f"partitions {where[0]} and {where[1]}; put every item's rows in one partition"
        )
    counts = sparse.vstack([counts for _, counts in counted], format="csr")
    # rows in sorted item-id order, as the in-memory counts_of puts them
    return LabelCounts(sparse.csr_array(counts[sorted_order(items.to_numpy())]), taxonomy)


def _unique(labels: pd.Series) -> np.ndarray:
    return pd.unique(labels.to_numpy(dtype=object))


@worker_task
def _partition_counts(
    part: pd.DataFrame, taxonomy: Taxonomy
) -> tuple[np.ndarray, sparse.csr_array]:
    """On a worker: one partition's items (in order of first appearance) and their sparse
    label-count rows, validated as :class:`~fuzzytruth.annotations.Annotations` validates."""
    if not len(part):
        return np.empty(0, dtype=object), sparse.csr_array((0, len(taxonomy)))
    annotations = Annotations.from_frame(part.reset_index(drop=True), taxonomy=taxonomy)
    return np.asarray(annotations.items, dtype=object), label_counts(annotations)
