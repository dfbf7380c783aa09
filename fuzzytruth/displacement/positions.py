"""Where each system placed each annotator's items: ``π_k``, and each run's depth ``L``.

Every system's run is ranked once by :func:`fuzzytruth.runs.rank` (the step every evaluation
uses, with the preset's tie rule and score precision); positions are 1-based ordinals. The
join between the runs' entries and the annotators' items is done once for all systems, on
(query, item) text ids: a pair code per cell of the annotator lists, and per system the pair
codes of its entries with their positions. :meth:`RunPositions.positions` then gives one
system's ``π`` for every list by a table look-up.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fuzzytruth.displacement.answers import AnnotatorLists
from fuzzytruth.displacement.systems import Systems
from fuzzytruth.runs import rank

__all__ = ["POSITION_TIES", "RunPositions", "run_positions"]

POSITION_TIES = ("docid_desc", "docid_asc", "input_order")
"""Tie rules that give every entry one position (``"average"`` keeps tied groups instead)."""


@dataclass(frozen=True, eq=False)
class RunPositions:
    """The runs' positions of the annotators' items, for every system.

    Attributes
    ----------
    pair_codes : numpy.ndarray
        ``(n_lists, width)`` code of the (query, item) pair of each list cell among the pairs
        some run holds; ``n_pairs`` for a pair no run holds and past a list's end.
    n_pairs : int
        Number of (query, item) pairs, over all runs, of annotated items.
    run_pairs : list of numpy.ndarray
        Per system: the pair codes of its entries that are annotated items.
    run_positions : list of numpy.ndarray
        Per system: the 1-based position of each of those entries.
    run_lengths : numpy.ndarray
        ``(n_systems, n_queries)`` number of entries of each system's list for each annotated
        query (0 when it did not answer).
    """

    pair_codes: np.ndarray
    n_pairs: int
    run_pairs: list[np.ndarray]
    run_positions: list[np.ndarray]
    run_lengths: np.ndarray

    def __repr__(self) -> str:
        return f"RunPositions({len(self.run_pairs)} systems, {self.n_pairs} placed pairs)"

    def positions(self, system: int) -> np.ndarray:
        """``(n_lists, width)`` position ``π_k`` of each list item in system ``system``'s run
        (1-based), 0 where the run does not hold it."""
        lookup = np.zeros(self.n_pairs + 1, dtype=np.int64)
        lookup[self.run_pairs[system]] = self.run_positions[system]
        return lookup[self.pair_codes]


def run_positions(
    lists: AnnotatorLists, systems: Systems, *, ties: str, score_dtype: str
) -> RunPositions:
    """Rank every system's run once and place the annotators' items in it.

    Parameters
    ----------
    lists : AnnotatorLists
        The annotators' answers.
    systems : Systems
        The runs; those built from a rank column are ordered by it (no tie can occur).
    ties, score_dtype : str
        Passed to :func:`fuzzytruth.runs.rank` for runs ranked by score.

    Raises
    ------
    ValueError
        If no run answers an annotated query.

    Examples
    --------
    >>> from fuzzytruth.displacement.answers import annotator_lists
    >>> from fuzzytruth.displacement.frames import column_names
    >>> from fuzzytruth.displacement.systems import as_systems
    >>> from fuzzytruth.runs import Run
    >>> answers = pd.DataFrame({"query_id": "q", "annotator_id": "u", "item_id": ["a", "b"],
    ...                         "rank": [1, 2], "relevance": [1.0, 0.5]})
    >>> lists = annotator_lists(answers, names=column_names(None))
    >>> run = Run(["q", "q", "q"], ["x", "b", "a"], [3.0, 2.0, 1.0], name="S")
    >>> systems = as_systems(run, names=column_names(None), run_order=None,
    ...                      query_keys=lists.query_keys)
    >>> placed = run_positions(lists, systems, ties="docid_desc", score_dtype="float64")
    >>> placed.positions(0).tolist(), placed.run_lengths.tolist()
    ([[3, 2]], [[3]])
    """
    n_codes = len(lists.item_ids)
    queries = pd.Index(lists.query_keys)
    rankings = [
        rank(run, ties="input_order", score_dtype="float64")  # scores -rank: no tie
        if systems.run_order == "rank"
        else rank(run, ties=ties, score_dtype=score_dtype)
        for run in systems.runs  # one rank step per system, all its queries at once
    ]
    # item code of every ranked entry: one hashing pass over the annotators' items and every
    # run's documents; codes >= n_codes are items no annotator listed (set C)
    docs = [run.doc_ids[r.rows] for run, r in zip(systems.runs, rankings, strict=True)]
    codes, _ = pd.factorize(np.concatenate([lists.item_ids, *docs]))
    bounds = np.cumsum([n_codes, *(len(d) for d in docs)])
    run_lengths = np.zeros((len(systems.runs), len(lists.query_ids)), dtype=np.int64)
    keys, positions = [], []
    for j, ranking in enumerate(rankings):
        rq = queries.get_indexer(ranking.query_ids)
        run_lengths[j, rq[rq >= 0]] = ranking.lengths[rq >= 0]
        entry_query = rq[ranking.query]
        entry_item = codes[bounds[j] : bounds[j + 1]]
        keep = (entry_query >= 0) & (entry_item < n_codes)
        keys.append(entry_query[keep] * n_codes + entry_item[keep])
        positions.append(ranking.position[keep] + 1)
    if not run_lengths.any():
        raise ValueError(
            "runs and annotations must share query ids; no run answers a query of the "
            "annotations"
        )
    pair, uniques = pd.factorize(np.concatenate(keys))
    n_pairs = len(uniques)
    present = lists.items >= 0
    wanted = (lists.list_query[:, None] * n_codes + lists.items)[present]
    found = pd.Index(uniques).get_indexer(wanted)
    pair_codes = np.full(lists.items.shape, n_pairs, dtype=np.int64)
    pair_codes[present] = np.where(found >= 0, found, n_pairs)
    splits = np.cumsum([0, *(len(k) for k in keys)])
    return RunPositions(
        pair_codes=pair_codes,
        n_pairs=n_pairs,
        run_pairs=[pair[a:b] for a, b in itertools.pairwise(splits)],
        run_positions=positions,
        run_lengths=run_lengths,
    )
