"""The front door of Santini §5: :func:`weighted_displacement` scores every system against every
annotator's own ranked answer. The definitions are in :mod:`fuzzytruth.displacement`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_choice, check_flag
from fuzzytruth.displacement.answers import AnnotatorLists, annotator_lists, rankings_answers
from fuzzytruth.displacement.frames import column_names
from fuzzytruth.displacement.g import qualities, resolve_g
from fuzzytruth.displacement.kernel import HYPOTHESES, displacement_kernel
from fuzzytruth.displacement.positions import POSITION_TIES, run_positions
from fuzzytruth.displacement.result import DisplacementResult
from fuzzytruth.displacement.systems import as_systems
from fuzzytruth.displacement.ties import in_run_order
from fuzzytruth.measures import Preset, get_preset
from fuzzytruth.runs import SCORE_DTYPES, Run

if TYPE_CHECKING:
    from fuzzytruth.io.rankings import Rankings

__all__ = ["DEFAULT_PRESET", "weighted_displacement"]

DEFAULT_PRESET = "trec10"
"""The preset whose ranking rule :func:`weighted_displacement` uses by default: trec_eval's
(score descending, ties by item id descending) with scores compared as doubles."""


def weighted_displacement(
    annotations: pd.DataFrame | Rankings,
    runs: pd.DataFrame | Run | Mapping[Any, Run],
    *,
    n_items: int | Mapping[Any, int] | pd.Series | None = None,
    g: str | Callable[[np.ndarray], Any] = "rational",
    use_deeper_ranks: bool = True,
    run_order: str | None = None,
    preset: str | Preset = DEFAULT_PRESET,
    ties: str | None = None,
    score_dtype: str | None = None,
    on_unsorted: str = "raise",
    annotator_ties: str | None = None,
    columns: Mapping[str, str] | None = None,
) -> DisplacementResult:
    """Score every system against every annotator's own ranked answer (Santini §5).

    The definitions (``m``, run depth ``L``, sets A/B/C, the three hypotheses, ``g``) are in
    the module docstring of :mod:`fuzzytruth.displacement`.

    Parameters
    ----------
    annotations : pandas.DataFrame or Rankings
        Long table with columns ``query_id``, ``annotator_id``, ``item_id``, ``rank``,
        ``relevance``: each annotator's answer, full or truncated. Within a (query, annotator)
        list, ascending ``rank`` gives the order (positions 1..m; ranks must be unique, unless
        ``annotator_ties="best"``, but need not be contiguous) and relevance must lie in
        [0, 1]. Ids are matched with the runs' as text (``1`` and ``"1"`` are the same id), as
        everywhere in the library, so two query ids, or two annotator ids, with the same text
        are refused. Or partial rankings with ties
        (:class:`~fuzzytruth.io.rankings.Rankings`, e.g. from
        :func:`~fuzzytruth.io.read_rankings`): each case a query, each reader an annotator,
        the classes the items, a class in tie group ``g`` of relevance ``1 / (1 + g)`` (IRN's
        weight; :func:`~fuzzytruth.displacement.answers.rankings_answers` writes the table, to
        change the weights and pass it back).
    runs : Run, mapping of str to Run, or pandas.DataFrame
        The systems' ranked lists: one :class:`~fuzzytruth.runs.Run` (a system named by
        ``run.name``) or systems by name, ranked by score; or a long table with columns
        ``system``, ``query_id``, ``item_id`` and ``rank`` (or ``score``, see ``run_order``),
        converted once into one Run per system. A system is scored on every annotated query;
        a query it has no rows for counts as an empty answer. Rows for queries nobody
        annotated are ignored. Systems are named by text, as in :func:`~fuzzytruth.evaluate`:
        two names with the same text (``1`` and ``"1"``) are refused.
    n_items : int or mapping
        Database size ``N``, for all queries or per ``query_id`` (a mapping's keys are matched
        with the query ids as text, as every id is). It must be at least the number
        of distinct items in each (annotator list, whole run) pair of the query. Required for a
        table; for rankings the default is their number of classes.
    g : {'rational', 'exponential', 'scale_free'} or callable, default 'rational'
        Normalisation of ``w`` into ``q``: ``'rational'`` is ``RationalG(p=1)``,
        ``'exponential'`` is ``ExponentialG(lam=1)``; pass an instance for other parameters, or
        any vectorised monotone decreasing callable into [0, 1] (checked by :func:`check_g`).
        ``'scale_free'`` is ``q = 1 − w / (N Σ s)`` (beyond the paper).
    use_deeper_ranks : bool, default True
        Read the whole run (the paper's incremental case) rather than cutting it at the
        annotator's list length ``m`` (the paper's ``C^m_μ``).
    run_order : {'rank', 'score'}, optional
        For a DataFrame of runs, how positions are taken: ascending ``rank`` (default; unique
        within a (system, query)), or descending ``score``, ranked like Runs. Runs are always
        ranked by score (None or ``'score'``).
    preset : str or Preset, default 'trec10'
        The ranking rule of runs ranked by score: its tie rule and score precision
        (:func:`fuzzytruth.runs.rank`, the step every evaluation uses). The default,
        ``'trec10'``, orders tied scores by item id descending (trec_eval) and compares scores
        as doubles; ``'trec'`` (the default of :func:`~fuzzytruth.evaluate`) compares them in
        float32 as trec_eval 9 does, ``'psb'`` breaks ties by item id ascending,
        ``'shrec2006'`` keeps the run's row order.
    ties : {'docid_desc', 'docid_asc', 'input_order'}, optional
        Override the preset's tie rule. Displacement needs one position per item, so the
        averaging rule (``'average'``, of presets ``'textbook'`` and ``'crossmodal'``) is
        refused: pass one of these with such a preset.
    score_dtype : {'float64', 'float32'}, optional
        Override the preset's score precision.
    on_unsorted : {'raise', 'sort'}, default 'raise'
        What to do with an annotator list whose relevance increases down the list: raise, or
        re-order it by decreasing relevance (stable, so ties keep their rank order) with a
        ``UserWarning``.
    annotator_ties : {'raise', 'best'}, optional
        Equal ranks within an annotator's list: an error (the default for a table), or a tie
        read in the system's favour (the default for rankings): within a tie group the items
        the run placed come first, in the run's order, then the others. It is the ordering
        consistent with the ties that minimises ``w`` under the optimist and the exact
        pessimist; see :mod:`fuzzytruth.displacement.ties` for the rule, the proof and the
        rules rejected. A list without ties gives the same numbers under both.
    columns : mapping, optional
        Rename columns: keys among ``system``, ``query_id``, ``annotator_id``, ``item_id``,
        ``rank``, ``relevance``, ``score``; values are the names in both tables.

    Returns
    -------
    DisplacementResult
        One row per (system, query, annotator), systems in the order given (a DataFrame's
        sorted), then queries and annotators sorted; aggregates through its methods.

    Raises
    ------
    ValueError
        On missing columns or values, duplicate items or ranks within a list, relevance outside
        [0, 1] or increasing down a list (with ``on_unsorted='raise'``), ``N`` smaller than the
        lists, or an invalid option. For tables read by :func:`read_answers` and
        :func:`read_runs`, a message about one row names its file and line.

    Examples
    --------
    >>> import pandas as pd
    >>> answers = pd.DataFrame({
    ...     "query_id": ["q1"] * 4, "annotator_id": ["ann1"] * 4,
    ...     "item_id": ["a", "b", "c", "d"], "rank": [1, 2, 3, 4],
    ...     "relevance": [1.0, 0.8, 0.6, 0.4]})
    >>> runs = pd.DataFrame({"system": "S", "query_id": "q1",
    ...                      "item_id": ["b", "a", "x", "c", "d"], "rank": [1, 2, 3, 4, 5]})
    >>> res = weighted_displacement(answers, runs, n_items=100, use_deeper_ranks=False)
    >>> res.to_frame()[["n_a", "n_b", "n_c", "w_a", "w_optimist", "w_pessimist"]]
       n_a  n_b  n_c  w_a  w_optimist  w_pessimist
    0    3    1    1  2.4         2.8         42.4
    >>> weighted_displacement(answers, runs, n_items=100).to_frame()["w_pessimist"].item()
    2.8

    A :class:`~fuzzytruth.runs.Run` is ranked by score with the preset's tie rule: ``a`` and
    ``c`` tie, so the run reads ``b, c, a`` by item id descending (``w_a = 1·2 + .8·1 + .6·1``)
    and ``b, a, c`` ascending (``w_a = 1·1 + .8·1``):

    >>> from fuzzytruth.runs import Run
    >>> run = Run(["q1"] * 3, ["b", "a", "c"], [2.0, 1.0, 1.0], name="S")
    >>> weighted_displacement(answers, run, n_items=100).to_frame()["w_a"].item()
    3.4
    >>> weighted_displacement(answers, run, n_items=100, ties="docid_asc").to_frame()["w_a"].item()
    1.8

    Partial rankings: reader 0 ranks ``c`` first, then ``a`` and ``b`` tied (positions 2-3,
    relevance 1/2). The run ``c, b, x, a`` is read as the tie ordered ``b, a``: ``w_a`` is
    ``1·0 + .5·0 + .5·|3 − 4|``.

    >>> from fuzzytruth.io.rankings import Rankings
    >>> r = Rankings.from_selectors([[[[2], [0, 1]]]], classes=["a", "b", "c", "x"])
    >>> run = Run([0] * 4, ["c", "b", "x", "a"], [4.0, 3.0, 2.0, 1.0], name="S")
    >>> weighted_displacement(r, run).to_frame()[["query_id", "m", "n_items", "w_a"]]
       query_id  m  n_items  w_a
    0         0  3        4  0.5
    """
    use_deeper_ranks = check_flag("use_deeper_ranks", use_deeper_ranks)
    g_func, g_name = resolve_g(g)
    p = get_preset(preset)
    ties = ties or p.ties
    score_dtype = score_dtype or p.score_dtype
    if ties == "average":
        raise ValueError(
            f"ties must be one of {list(POSITION_TIES)}: displacement needs one position per "
            f"item, and preset {p.name!r} with ties='average' keeps tied items together; got "
            "'average'"
        )
    check_choice("ties", ties, POSITION_TIES)
    check_choice("score_dtype", score_dtype, SCORE_DTYPES)
    names = column_names(columns)
    if not isinstance(annotations, pd.DataFrame):
        annotations, n_items, annotator_ties = _rankings_input(
            annotations, names, n_items, annotator_ties)
    elif n_items is None:
        raise ValueError("n_items (the database size N) is required with a table of answers; "
                         "got None")
    lists = annotator_lists(annotations, names=names, on_unsorted=on_unsorted,
                            ties=annotator_ties or "raise")
    systems = as_systems(runs, names=names, run_order=run_order, query_keys=lists.query_keys)
    placed = run_positions(lists, systems, ties=ties, score_dtype=score_dtype)
    list_n = _n_items_per_query(n_items, lists.query_ids)[lists.list_query]
    valid = np.arange(lists.relevance.shape[1]) < lists.lengths[:, None]
    parts: dict[str, list[np.ndarray]] = {}
    for j, system in enumerate(systems.names):  # one pass per system; all its lists at once
        pi = placed.positions(j)
        depth = placed.run_lengths[j, lists.list_query]
        missing = np.count_nonzero((pi == 0) & valid, axis=1)
        _check_database_size(lists, depth + missing, list_n, system)
        if not use_deeper_ranks:
            depth = np.minimum(depth, lists.lengths)
            pi = np.where(pi > lists.lengths[:, None], 0, pi)
        relevance = lists.relevance
        if lists.groups is not None:  # tied items in the run's order (displacement.ties)
            relevance, pi = in_run_order(lists.groups, relevance, pi)
        out = displacement_kernel(
            relevance, pi, lengths=lists.lengths, run_depth=depth, n_items=list_n
        )
        out["run_depth"] = depth
        for key, val in out.items():
            parts.setdefault(key, []).append(val)
    cols = {key: np.concatenate(val) for key, val in parts.items()}
    q = qualities({h: cols[f"w_{h}"] for h in HYPOTHESES}, cols["w_max"], g_func)
    n_sys, n_lists = len(systems.names), len(lists.lengths)
    system_col = np.empty(n_sys, dtype=object)
    system_col[:] = systems.names
    table = pd.DataFrame(
        {
            "system": np.repeat(system_col, n_lists),
            "query_id": np.tile(lists.query_ids[lists.list_query], n_sys),
            "annotator_id": np.tile(lists.list_annotator, n_sys),
            "m": np.tile(lists.lengths, n_sys),
            "run_depth": cols["run_depth"],
            "n_items": np.tile(list_n, n_sys),
            "n_a": cols["n_a"],
            "n_b": cols["n_b"],
            "n_c": cols["n_c"],
            "w_a": cols["w_a"],
            **{f"w_b_{h}": cols[f"w_b_{h}"] for h in HYPOTHESES},
            **{f"w_{h}": cols[f"w_{h}"] for h in HYPOTHESES},
            "w_max": cols["w_max"],
            **{f"q_{h}": q[h] for h in HYPOTHESES},
        }
    )
    by_score = systems.run_order == "score"
    return DisplacementResult(
        table=table,
        g=g_name,
        use_deeper_ranks=bool(use_deeper_ranks),
        run_order=systems.run_order,
        ties=ties if by_score else None,
        score_dtype=score_dtype if by_score else None,
    )


def _rankings_input(
    rankings: Any, names: dict[str, str], n_items: Any, ties: str | None
) -> tuple[pd.DataFrame, Any, str]:
    """The answers table of partial rankings, their number of classes as the default ``N``,
    and ``"best"`` as the default tie rule."""
    from fuzzytruth.io.rankings import Rankings  # deferred: the reader loads the table I/O

    if not isinstance(rankings, Rankings):
        raise ValueError("annotations must be a pandas DataFrame of answers or Rankings; got "
                         f"{type(rankings).__name__}")
    n = len(rankings.classes) if n_items is None else n_items
    return rankings_answers(rankings, names=names), n, ties or "best"


def _check_database_size(
    lists: AnnotatorLists, union: np.ndarray, list_n: np.ndarray, system: Any
) -> None:
    """``N`` is at least the number of distinct items of each list and the whole run."""
    if np.any(union > list_n):
        r = int(np.argmax(union > list_n))
        raise ValueError(
            "n_items (N) must be at least the number of distinct items in each annotator's "
            f"list and each run together; {lists.where(r)}, system {system!r} name "
            f"{union[r]} items but N={list_n[r]}"
        )


def _n_items_per_query(n_items: Any, query_ids: np.ndarray) -> np.ndarray:
    """``N`` of each query: one int for all, or a mapping (or Series) by query id, whose keys
    are matched with the query ids as text, as every id is (``7`` gives N of query ``"7"``)."""
    if isinstance(n_items, Mapping | pd.Series):
        lookup = pd.Series(n_items) if isinstance(n_items, Mapping) else n_items
        keys = pd.Index([str(key) for key in lookup.index])
        if keys.has_duplicates:
            text = keys[keys.duplicated()][0]
            same = [key for key in lookup.index if str(key) == text]
            twice = (f"query {same[0]!r} more than once" if len(set(map(repr, same))) == 1
                     else f"queries {same[0]!r} and {same[1]!r}, one id as text")
            raise ValueError(f"n_items must give one N per query; got {twice}")
        found = keys.get_indexer([str(q) for q in query_ids])
        if (found < 0).any():
            absent = query_ids[found < 0]
            raise ValueError(
                f"n_items must give N for every query; missing {len(absent)} queries, e.g. "
                f"{absent[0]!r}"
            )
        values = lookup.to_numpy()[found]
    elif isinstance(n_items, int | np.integer) and not isinstance(n_items, bool):
        values = np.full(len(query_ids), n_items)
    else:
        raise ValueError(
            "n_items must be an int or a mapping query_id -> int (the database size N); got "
            f"{type(n_items).__name__}"
        )
    if not np.issubdtype(np.asarray(values).dtype, np.integer):
        raise ValueError(f"n_items must hold integers; got dtype {np.asarray(values).dtype}")
    if np.any(values > np.iinfo(np.int64).max):  # unsigned: the cast would wrap them negative
        raise ValueError(f"n_items must be at most 2**63 - 1; got {int(values.max())}")
    values = values.astype(np.int64)
    if np.any(values < 1):
        raise ValueError(f"n_items must be >= 1; got {int(values.min())}")
    return values
