"""Evaluation against preference judgments: trec_eval's ``-R prefs`` and ``-R qrels_prefs``.

:func:`evaluate_preferences` scores runs with the preference measures (``Prefs(kind=...)``,
``NumPrefs(kind=...)``, ``NumQ``; trec_eval's ``prefs_*``, ``prefs_num_prefs_*``, ``num_q``)
against a :class:`~fuzzytruth.truth.preferences.Preferences` (several judgment groups, several
subgroups), following ``form_prefs_counts.c``: the judgment groups with one subgroup are
counted for all queries at once (:func:`fuzzytruth.metrics.prefs.ec_counts`), those with
several through their closed preference relation, one query at a time. The result is an
:class:`~fuzzytruth.evaluation.Evaluation` like any other (its values are points). A plain
qrels is the one-group case, which :func:`fuzzytruth.evaluation` also computes (and under
uncertain truth); with ties in the scores the two differ as trec_eval's do, because trec_eval
ranks ties by doc id *ascending* for these measures only (``ties="docid_asc"`` here).

Examples
--------
>>> from fuzzytruth import Run
>>> from fuzzytruth.truth.preferences import Preferences
>>> prefs = Preferences(["q"] * 4, ["u1", "u1", "u2", "u2"], ["s"] * 4,
...                     ["a", "b", "a", "b"], [2, 1, 0, 1])
>>> run = Run(["q", "q"], ["a", "b"], [2.0, 1.0])
>>> ev = evaluate_preferences(run, prefs, ["Prefs", "Prefs(kind=pair)", "NumPrefs"])
>>> ev.aggregate()[["measure", "value"]]
            measure  value
0             Prefs    0.5
1  Prefs(kind=pair)    0.5
2          NumPrefs    2.0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from fuzzytruth._resampling import MEMORY_BUDGET
from fuzzytruth._validation import (
    check_choice,
    check_confidence_level,
    check_flag,
    check_int,
    check_memory_budget,
    plain,
)
from fuzzytruth._warnings import warn
from fuzzytruth.evaluation.engine import MISSING, UNDEFINED, rank_runs
from fuzzytruth.evaluation.result import Evaluation
from fuzzytruth.measures import Measure, parse_measures
from fuzzytruth.metrics.prefs import (
    COUNTS,
    ec_counts,
    num_prefs_value,
    pa_counts,
    pair_sums,
    prefs_value,
    relation_closure,
)
from fuzzytruth.runs import TIES, Ranking, Run
from fuzzytruth.truth.preferences import Preferences
from fuzzytruth.truth.protocol import TruthKind
from fuzzytruth.uncertain.batch import DistributionBatch

__all__ = ["PREFERENCE_FAMILIES", "evaluate_preferences"]

PREFERENCE_FAMILIES = ("Prefs", "NumPrefs", "NumQ")
"""The families computed from preference judgments (trec_eval's ``-m all_prefs``)."""


def evaluate_preferences(
    runs: Run | Mapping[str, Run],
    preferences: Preferences,
    measures: str | Measure | Iterable[str | Measure] = "all_prefs",
    *,
    undefined: str = "zero",
    missing: str = "skip",
    complete: bool = False,
    depth: int | None = None,
    ties: str = "docid_asc",
    score_dtype: str = "float32",
    confidence_level: float = 0.95,
    memory_budget: float = MEMORY_BUDGET,
) -> Evaluation:
    """Evaluate runs against preference judgments (trec_eval ``-R prefs`` / ``qrels_prefs``).

    Parameters
    ----------
    runs : Run or mapping of str to Run
        One run or systems by name.
    preferences : Preferences
        The judgments (:func:`fuzzytruth.io.read_trec_prefs`,
        :func:`fuzzytruth.io.read_trec_qrels_prefs`, :meth:`Preferences.from_qrels`).
    measures : str, Measure or iterable of them, default "all_prefs"
        Preference measures in any spelling (``prefs_simp``, ``Prefs(kind=pair_ret)``,
        ``prefs_num_prefs_poss``, ``num_q``) or trec_eval's groups ``all_prefs``/``prefs``.
    undefined : {"zero", "skip"}
        A query with no preference in a measure's scope scores 0 (trec_eval) or is left out.
    missing : {"skip", "error"}
        Run queries without preferences: not evaluated, with a warning (trec_eval), or an error.
    complete : bool
        Also evaluate the judged queries no run answers, as empty lists (trec_eval ``-c``).
    depth : int, optional
        Only the top ``depth`` documents of each list (trec_eval ``-M``).
    ties : {"docid_asc", "docid_desc", "input_order"}, default "docid_asc"
        Tie rule (:func:`fuzzytruth.runs.rank`): trec_eval's preference measures break ties
        by doc id ascending. ``"average"`` is refused: the preference measures have no
        tie-averaged form (as in :func:`fuzzytruth.evaluation`).
    score_dtype : {"float32", "float64"}, default "float32"
        Precision of the scores (trec_eval reads float32).
    confidence_level : float
        Default level of the result's intervals (crisp values: points).
    memory_budget : float
        Bytes of working memory for the pairwise counts of one query.

    Returns
    -------
    Evaluation
        Truth ``"preferences"``: values are points, and ``compare()`` and every output take it
        as they take a crisp evaluation.
    """
    check_choice("undefined", undefined, UNDEFINED)
    check_choice("missing", missing, MISSING)
    check_choice("ties", ties, [t for t in TIES if t != "average"])
    complete = check_flag("complete", complete)
    confidence_level = check_confidence_level(confidence_level)
    if not isinstance(preferences, Preferences):
        raise ValueError(
            f"preferences must be a Preferences; got {type(preferences).__name__}"
        )
    if depth is not None:
        depth = check_int("depth", depth, minimum=1)
    memory_budget = check_memory_budget(memory_budget)
    asked = parse_measures(measures)
    wrong = [str(m) for m in asked if m.name not in PREFERENCE_FAMILIES]
    if wrong:
        raise ValueError(
            f"measures from preference judgments must be of the families "
            f"{list(PREFERENCE_FAMILIES)}; got {wrong}"
        )
    resolved = [m.resolve("trec") for m in asked]
    names = [str(m) for m in asked]
    rankings = rank_runs(runs, ties, score_dtype, depth)
    queries = _queries(rankings, preferences, missing, complete)
    lines = _lines(preferences, queries)
    need_pairs = any(m.name == "Prefs" and _kind(m).startswith("pair") for m in resolved)
    batches, methods = {}, {}
    for system, (ranking, run) in rankings.items():
        counts, query, pairs = _counts(ranking.on(queries), run, lines, len(queries),
                                       need_pairs, memory_budget)
        for name, measure in zip(names, resolved, strict=True):
            if measure.name == "NumQ":
                values = np.ones(len(queries))
            elif measure.name == "NumPrefs":
                values = num_prefs_value(_kind(measure), counts, query, len(queries))
            else:
                values = prefs_value(_kind(measure), counts, query, len(queries), pairs)
            batches[system, name] = DistributionBatch.from_points(values)
            methods[system, name] = "crisp"
    conventions = {
        "preset": None,
        "ties": ties,
        "score_dtype": score_dtype,
        "measures": {n: str(r) for n, r in zip(names, resolved, strict=True)},
        "truth": TruthKind.PREFERENCES.value,
        "undefined": undefined,
        "missing": missing,
        "complete": complete,
        "depth": depth,
    }
    return Evaluation(
        systems=tuple(rankings),
        queries=tuple(queries),
        measures=tuple(names),
        truth=TruthKind.PREFERENCES,
        undefined=undefined,
        conventions=conventions,
        confidence_level=confidence_level,
        families={n: r.family for n, r in zip(names, resolved, strict=True)},
        batches=batches,
        methods=methods,
        counted=dict.fromkeys(names, np.ones(len(queries), dtype=bool)),
    )


def _kind(measure: Measure) -> str:
    return measure.params.get("kind", measure.family.param("kind").default)


def _queries(
    rankings: Mapping[str, tuple[Ranking, Run]], prefs: Preferences, missing: str,
    complete: bool,
) -> np.ndarray:
    """The evaluated queries, sorted: the runs' that have preferences (and with ``complete``
    every judged query)."""
    asked = np.unique(np.concatenate([r.query_ids for r, _ in rankings.values()]))
    judged = pd.Index(prefs.queries)
    lost = asked[judged.get_indexer(asked) < 0].tolist()
    if lost:
        message = f"query(ies) {lost[:5]}{'...' if len(lost) > 5 else ''} of the runs have " \
                  "no preference judgments"
        if missing == "error":
            raise ValueError(message + " (missing='error')")
        warn(f"{message}: {len(lost)} query(ies) not evaluated, as trec_eval does "
             "(missing='skip')", UserWarning)
    queries = asked[judged.get_indexer(asked) >= 0]
    if complete:
        queries = np.union1d(queries, np.asarray(prefs.queries, dtype=object))
    if len(queries) == 0:
        raise ValueError("no query left to evaluate: no query of the runs has preferences")
    return np.sort(queries.astype(object))


def _lines(prefs: Preferences, queries: np.ndarray) -> pd.DataFrame:
    """The judgment lines of the evaluated queries: ``qi`` (query row), ``row`` (the (query,
    group) row), ``form`` (``"ec"``: one subgroup, ``"pa"``: several), sorted as trec_eval
    sorts them (group, subgroup, level descending)."""
    df = prefs.to_dataframe()
    df["qi"] = pd.Index(queries).get_indexer(df["query_id"])
    df = df[df["qi"] >= 0]
    df = df.sort_values(["qi", "group", "subgroup", "level"], ascending=[True, True, True, False],
                        kind="stable").reset_index(drop=True)
    key = df[["qi", "group"]].drop_duplicates()
    df["row"] = pd.MultiIndex.from_frame(key).get_indexer(
        pd.MultiIndex.from_frame(df[["qi", "group"]]))
    several = df.groupby("row")["subgroup"].transform("nunique") > 1
    df["form"] = np.where(several, "pa", "ec")
    return df


def _counts(
    ranking: Ranking, run: Run, lines: pd.DataFrame, n_queries: int, need_pairs: bool,
    memory_budget: float,
) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, np.ndarray] | None]:
    """Per (query, group) counts, each row's query, and the per-query pair sums."""
    ranked = pd.DataFrame({
        "qi": ranking.query, "doc_id": np.asarray(run.doc_ids, dtype=object)[ranking.rows],
        "position": ranking.position,
    })
    lines = lines.merge(ranked, on=["qi", "doc_id"], how="left")
    n_rows = int(lines["row"].max()) + 1 if len(lines) else 0
    rows = lines.drop_duplicates("row").sort_values("row")
    query = rows["qi"].to_numpy()
    table = {k: np.zeros(n_rows) for k in COUNTS}
    ec = lines[lines["form"] == "ec"]
    if len(ec):
        ec_rows = np.sort(ec["row"].unique())
        local = pd.Index(ec_rows).get_indexer(ec["row"])
        depth = max(ranking.depth, 1)
        ret_levels = np.full((len(ec_rows), depth), np.nan)
        got = ec["position"].notna().to_numpy()
        ret_levels[local[got], ec["position"].to_numpy()[got].astype(np.int64)] = (
            ec["level"].to_numpy()[got])
        slot = ec.groupby(local).cumcount().to_numpy()
        all_levels = np.full((len(ec_rows), int(slot.max()) + 1), np.nan)
        all_levels[local, slot] = ec["level"].to_numpy()
        for key, values in ec_counts(ret_levels, all_levels).items():
            table[key][ec_rows] = values
    pa_queries = set(lines.loc[lines["form"] == "pa", "qi"].tolist())
    several = lines.groupby("qi")["row"].nunique()
    pair_queries = set(several[several > 1].index.tolist()) if need_pairs else set()
    sums = {}
    for qi in sorted(pa_queries | pair_queries):  # queries whose groups need the relation
        one = lines[lines["qi"] == qi]
        docs, n_ret = _docid_order(one)
        relations = []
        for row, group in one.groupby("row", sort=True):
            relation, level = _relation(group, docs)
            if group["form"].iloc[0] == "pa":
                try:
                    relation = relation_closure(relation)
                except ValueError as error:
                    raise ValueError(
                        f"query {plain(group['query_id'].iloc[0])!r}, judgment group "
                        f"{plain(group['group'].iloc[0])!r}: {error}"
                    ) from None
                for key, value in pa_counts(relation, level, n_ret).items():
                    table[key][row] = value
            relations.append(relation)
        if qi in pair_queries:
            sums[qi] = pair_sums(relations, n_ret, memory_budget)
    pairs = _single_group_pairs(table, query, n_queries) if need_pairs else None
    for qi, found in sums.items():
        for key, value in found.items():
            pairs[key][qi] = value
    return table, query, pairs


def _single_group_pairs(
    table: dict[str, np.ndarray], query: np.ndarray, n_queries: int
) -> dict[str, np.ndarray]:
    """The pair sums of queries with one judgment group: each pair holds one preference, so
    the pairs are the possible preferences and the shares the fulfilled ones."""

    def per_query(values: np.ndarray) -> np.ndarray:
        return np.bincount(query, weights=values, minlength=n_queries)

    ful = {"ret": table["ful_ret"], "imp": table["ful_ret"] + table["ful_imp"]}
    poss = {"ret": table["poss_ret"], "imp": table["poss_ret"] + table["poss_imp"]}
    ful["all"], poss["all"] = ful["imp"], poss["imp"] + table["notoccur"]
    out = {f"pairs_{s}": per_query(v) for s, v in poss.items()}
    out.update({f"share_{s}": per_query(v) for s, v in ful.items()})
    return out


def _docid_order(lines: pd.DataFrame) -> tuple[pd.Index, int]:
    """The query's judged documents in trec_eval's docid order (retrieved by rank, then the
    others by doc id) and how many were retrieved."""
    docs = lines.drop_duplicates("doc_id")
    ret = docs[docs["position"].notna()].sort_values("position")["doc_id"].tolist()
    unret = sorted(docs.loc[docs["position"].isna(), "doc_id"].tolist())
    return pd.Index(ret + unret), len(ret)


def _relation(group: pd.DataFrame, docs: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """One judgment group's preferences over ``docs`` (within each subgroup, a higher level is
    preferred) and each document's level in the last subgroup holding it (-1 outside)."""
    n = len(docs)
    relation = np.zeros((n, n), dtype=bool)
    level = np.full(n, -1.0)
    for _, sub in group.groupby("subgroup", sort=True):  # sorted: the last one's level stays
        idx = docs.get_indexer(sub["doc_id"])
        lv = sub["level"].to_numpy()
        relation[np.ix_(idx, idx)] |= lv[:, None] > lv[None, :]
        level[idx] = lv
    return relation, level

