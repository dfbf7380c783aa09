"""The systems' answers as :class:`~fuzzytruth.runs.Run` objects, whatever form they came in.

A system's answer to a query is its ranked list. The library holds ranked lists as runs (one
score per (query, document)) and orders them in one place, :func:`fuzzytruth.runs.rank`, with a
preset's tie rule and score precision. Displacement accepts

* a :class:`~fuzzytruth.runs.Run` (one system, named by ``run.name``) or a mapping of system
  name to Run, ranked by score;
* the long DataFrame of earlier releases, one row per (system, query, item), converted here
  once into one Run per system: with ``run_order="rank"`` a row's score is ``−rank`` (ranks
  must be unique within a list, so no tie rule applies), with ``run_order="score"`` its score.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_choice, ids_text, plain, text_names
from fuzzytruth.displacement.frames import (
    as_text,
    first_duplicate,
    lexsort_unless_sorted,
    located,
    numeric,
    require,
    text_codes,
)
from fuzzytruth.runs import Run, check_runs

__all__ = ["RUN_ORDERS", "Systems", "as_systems"]

RUN_ORDERS = ("rank", "score")
"""How a DataFrame's rows give positions: ascending rank, or descending score."""


@dataclass(frozen=True, eq=False)
class Systems:
    """The systems to score: their names (as given) and one Run each, in the same order.

    ``run_order`` records how positions were taken (``"rank"``: from the rank column of a
    DataFrame; ``"score"``: ranked by score).
    """

    names: list[Any]
    runs: list[Run]
    run_order: str

    def __repr__(self) -> str:
        return f"Systems({len(self.names)} systems, run_order={self.run_order!r})"


def as_systems(
    runs: pd.DataFrame | Run | Mapping[Any, Run],
    *,
    names: dict[str, str],
    run_order: str | None,
    query_keys: np.ndarray,
) -> Systems:
    """The systems of ``runs`` (see the module docstring).

    Parameters
    ----------
    runs : pandas.DataFrame, Run or mapping of name to Run
        The systems' answers.
    names : dict
        Column name of each role (:func:`~fuzzytruth.displacement.frames.column_names`).
    run_order : {"rank", "score"} or None
        For a DataFrame: which column gives positions (None: ``"rank"``). Runs are always
        ranked by score (``"score"`` or None).
    query_keys : numpy.ndarray
        The annotated queries as text: a DataFrame's rows for other queries are dropped before
        any check (they are never read).

    Examples
    --------
    >>> from fuzzytruth.displacement.frames import column_names
    >>> frame = pd.DataFrame({"system": ["B", "A", "A"], "query_id": "q",
    ...                       "item_id": ["x", "y", "x"], "rank": [1, 2, 1]})
    >>> systems = as_systems(frame, names=column_names(None), run_order=None,
    ...                      query_keys=np.array(["q"]))
    >>> systems.names, [run.scores.tolist() for run in systems.runs]
    (['A', 'B'], [[-2.0, -1.0], [-1.0]])
    """
    if isinstance(runs, pd.DataFrame):
        order = "rank" if run_order is None else check_choice("run_order", run_order, RUN_ORDERS)
        return _from_frame(runs, names, order, query_keys)
    if run_order not in (None, "score"):
        raise ValueError(
            f"run_order must be None or 'score' when runs are Run objects (a Run is ranked by "
            f"its scores); got {run_order!r}"
        )
    runs = check_runs(runs, also="a pandas DataFrame, ")
    text_names(runs, "runs", "system")  # systems are named by text, as in evaluate()
    return Systems(list(runs), list(runs.values()), "score")


def _from_frame(
    frame: pd.DataFrame, c: dict[str, str], run_order: str, query_keys: np.ndarray
) -> Systems:
    """One Run per system of the long table (systems sorted), rows of unannotated queries
    dropped."""
    require(frame, "runs", [c["system"], c["query_id"], c["item_id"], c[run_order]])
    key = numeric(frame, "runs", c[run_order])
    q_codes, q_uniques = pd.factorize(frame[c["query_id"]].to_numpy())
    annotated = pd.Index(query_keys).get_indexer(ids_text(q_uniques, "query ids"))
    if not (annotated >= 0).any():
        raise ValueError(
            f"runs and annotations must share query ids; none of the runs' {c['query_id']!r} "
            "values appears in annotations"
        )
    keep = np.flatnonzero(annotated[q_codes] >= 0)
    sys_codes, systems = text_codes(frame[c["system"]], "system names")
    sys_codes, q_codes, key = sys_codes[keep], q_codes[keep], key[keep]
    lists = sys_codes.astype(np.int64) * len(q_uniques) + q_codes
    if run_order == "rank":
        order = lexsort_unless_sorted(key, lists)
        dup = first_duplicate(key[order], lists[order])
        if dup is not None:
            row = int(keep[order[dup]])
            raise ValueError(
                f"{located(frame, row)}runs column {c['rank']!r} must be unique within each "
                f"(system, query) list; system {plain(frame[c['system']].iat[row])!r}, query "
                f"{plain(frame[c['query_id']].iat[row])!r} repeats rank {key[order[dup]]:g} (use "
                "run_order='score' to break ties by item id)"
            )
    score = -key if run_order == "rank" else key
    queries = as_text(frame[c["query_id"]].to_numpy()[keep])
    items = as_text(frame[c["item_id"]].to_numpy()[keep])
    by_system = np.argsort(sys_codes, kind="stable")
    bounds = np.searchsorted(sys_codes[by_system], np.arange(len(systems) + 1))
    out = []
    for j, name in enumerate(systems):  # one Run per system: a handful, not per row
        rows = by_system[bounds[j] : bounds[j + 1]]
        try:
            out.append(Run(queries[rows], items[rows], score[rows], name=str(name)))
        except ValueError:
            _raise_duplicate_item(frame, c, keep[rows], name)
            raise
    return Systems(list(systems), out, run_order)


def _raise_duplicate_item(
    frame: pd.DataFrame, c: dict[str, str], rows: np.ndarray, system: Any
) -> None:
    """Raise the ValueError naming the first item listed twice for one query of ``system``
    (rows ``rows`` of ``frame``); return if there is none."""
    sub = frame.iloc[rows]
    pairs = pd.DataFrame(
        {
            "q": sub[c["query_id"]].astype(str).to_numpy(),
            "i": sub[c["item_id"]].astype(str).to_numpy(),
        }
    )
    dup = pairs.duplicated().to_numpy()
    if dup.any():
        j = int(np.argmax(dup))
        raise ValueError(
            f"{located(frame, int(rows[j]))}runs must list each item at most once per "
            f"(system, query); system {system!r}, query {plain(sub[c['query_id']].iat[j])!r} lists "
            f"item {plain(sub[c['item_id']].iat[j])!r} more than once"
        )
