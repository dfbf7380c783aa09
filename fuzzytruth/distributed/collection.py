"""``agreement()`` and ``agreement_by_level()`` on a Dask cluster: blocks of bootstrap
replicates as tasks, the same numbers as in memory.

The bootstrap of :mod:`fuzzytruth.collection.agreement` works in blocks of replicates sized
from the memory budget, and every draw of a replicate is keyed by (seed, replicate, draw)
(:func:`~fuzzytruth.collection._counts.resample_block`). Here the blocks are Dask tasks: the
per-item table (small: items × a few dozen columns) is broadcast once, each task draws and
evaluates its block, and the driver puts the blocks back in order. Same blocks, same draws,
same matrix products: the result equals the in-memory one bit for bit, whatever the number of
workers.

The annotations can be given as an :class:`~fuzzytruth.annotations.Annotations`, a Dask
DataFrame or a partitioned Parquet dataset (one reader call) with columns ``item_id``,
``annotator_id``, ``label``, partitioned by item: the partitioning is checked (an item split
across partitions is an error naming it). The per-item label table the coefficients need is
then assembled on the driver (items × labels, far smaller than the votes); the bootstrap runs
on the workers.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from fuzzytruth.annotations import Annotations
from fuzzytruth.collection import agreement as agreement_in_memory
from fuzzytruth.collection import agreement_by_level as agreement_by_level_in_memory
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
    annotations = _annotations(annotations, taxonomy)
    with blocks_on(client, retries):
        return agreement_in_memory(annotations, **options)


def agreement_by_level(annotations: Any, *, client: Any = None, retries: int = 2,
                       taxonomy: Taxonomy | None = None, **options: Any) -> LevelAgreement:
    """:func:`fuzzytruth.collection.agreement_by_level` with its bootstrap blocks as Dask tasks
    (parameters as in :func:`agreement`)."""
    annotations = _annotations(annotations, taxonomy)
    with blocks_on(client, retries):
        return agreement_by_level_in_memory(annotations, **options)


_ITEM = "item_id"


def _annotations(annotations: Any, taxonomy: Taxonomy | None) -> Any:
    """Annotations from a frame or Parquet path partitioned by item (checked)."""
    if isinstance(annotations, Annotations) or not is_frame(annotations):
        return annotations  # the in-memory function validates everything else
    import dask

    frame = read_parquet(annotations) if isinstance(annotations, str | os.PathLike) else (
        annotations
    )
    missing = [c for c in (_ITEM, "annotator_id", "label") if c not in frame.columns]
    if missing:
        raise ValueError(
            f"annotations must have columns item_id, annotator_id, label; missing {missing}, "
            f"got {list(frame.columns)}"
        )
    parts = dask.compute(*frame.to_delayed())
    homes = pd.concat(
        [pd.DataFrame({"item": pd.unique(part[_ITEM].astype(str)), "partition": p})
         for p, part in enumerate(parts)],
        ignore_index=True,
    )
    split = homes["item"].duplicated(keep=False)
    if split.any():
        item = homes.loc[split, "item"].iloc[0]
        where = homes.loc[homes["item"] == item, "partition"].tolist()
        raise ValueError(
            f"annotations are not partitioned by item: item {item!r} is split across "
            f"partitions {where[0]} and {where[1]}; put every item's rows in one partition"
        )
    whole = pd.concat(parts, ignore_index=True)
    if taxonomy is None:
        taxonomy = Taxonomy.flat(pd.unique(whole["label"]))
    return Annotations.from_frame(whole, taxonomy=taxonomy)
