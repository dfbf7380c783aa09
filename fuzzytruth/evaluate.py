"""evaluate(): every measure of the registry, under crisp or uncertain ground truth.

One entry point for both worlds. The ground truth is one of

* a :class:`~fuzzytruth.membership.Membership` (categorical, uncertain: annotators put items in
  a taxonomy; a document is relevant to a query when it belongs to the query's category);
* a :class:`~fuzzytruth.uncertain.probabilistic_qrels.ProbabilisticQrels` (each judged
  (query, document) relevant independently with a probability, e.g. the share of assessors);
* a crisp :class:`~fuzzytruth.runs.Qrels` (point masses, equal to
  :func:`fuzzytruth.crisp.evaluate_crisp`'s per-query values).

Every (system, query, measure) gets a distribution of the crisp measure's value over the
uncertain truth:

* **exact** (``method="exact"``) where a closed form exists — P@k, R@k, Success@k, RR, F_β and
  E_β at a cutoff (:mod:`fuzzytruth.uncertain.closed_form`), when documents are independent
  given the target category (Santini's model) and the ranking is a strict order. With an
  uncertain query category the distribution is the mixture over the query's categories;
* **Monte Carlo** (``method="worlds"``) for every measure: crisp ground truths drawn from the
  annotations (:mod:`fuzzytruth.uncertain.worlds`) and the registered kernels run in each.
  ``method="auto"`` (default) takes the exact form where it exists, worlds otherwise.

The worlds (``n_worlds``, default 1000) are drawn whenever the truth is uncertain: they are
shared by every system and measure, and they give :meth:`Evaluation.aggregate` (the mean over
queries, whose distribution needs the joint law of the queries: under categorical truth queries
share items and are not independent) and :meth:`Evaluation.world_scores` (the input of
:mod:`fuzzytruth.stats`).

Definitions (each an option, default named):

* which category a query asks for: ``query_categories[query_id]`` when given, otherwise the
  query item's own uncertain category, mixed with ``weights="direct"`` (the share of its
  annotators who chose each node directly, summing to 1) or ``"literal"`` (Santini eq. 13–14,
  normalised; see :func:`~fuzzytruth.uncertain.categorical.query_category_weights`);
* ``exclude_query=True``: a query item is not a member of its own category — it is not relevant
  to itself, neither in the ranked list nor in the relevant count (shape benchmarks). The
  foundation's :func:`~fuzzytruth.uncertain.categorical.recall_distribution` still counts the
  query when it is among its own results; here it never does, so that the crisp special case is
  a qrels without the query;
* recall: ``recall_form="exact"`` (default here: TP/(TP+FN), the registry's recall, what worlds
  estimate) or ``"expected_size"`` (TP/E|ω|, Santini eq. 12 as printed);
* ``missing="error"``: a query of a run that the truth cannot answer is an error;
  ``"skip"`` drops it (trec_eval's rule);
* a system without results for an evaluated query scores as an empty list there
  (trec_eval ``-c``);
* undefined values (no relevant document): reported as ``p_undefined``; distributions are
  conditional on being defined. :meth:`Evaluation.aggregate` skips undefined queries world by
  world (trec_eval's rule) or counts them as 0 (``undefined="zero"``).

Examples
--------
>>> import pandas as pd
>>> from fuzzytruth import Annotations, Membership, Taxonomy
>>> from fuzzytruth.runs import Run
>>> tax = Taxonomy.from_nested({"all": {"cat": None, "dog": None}})
>>> ann = Annotations.from_frame(pd.DataFrame({
...     "item_id": ["a", "a", "b", "b", "c", "c"], "annotator_id": ["x", "y"] * 3,
...     "label": ["cat", "cat", "cat", "dog", "dog", "dog"]}), taxonomy=tax)
>>> mem = Membership.from_annotations(ann)
>>> run = Run(["q1", "q1", "q1"], ["c", "b", "a"], [3.0, 2.0, 1.0], name="sys")
>>> ev = evaluate(run, mem, ["P@2", "AP"], query_categories={"q1": "cat"}, rng=0)
>>> ev.to_frame()[["system", "query_id", "measure", "mean", "method"]]
  system query_id measure      mean       method
0    sys       q1     P@2  0.250000        exact
1    sys       q1      AP  0.460583  monte_carlo
>>> ev.distribution("sys", "q1", "P@2").to_frame()
   value  probability
0    0.0          0.5
1    0.5          0.5
>>> ev.distribution("sys", "q1", "AP").support.round(4).tolist()   # b relevant or not
[0.3333, 0.5833]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth.crisp import compute_measures
from fuzzytruth.measures import Measure, Preset, get_preset, parse_measures
from fuzzytruth.membership import Membership
from fuzzytruth.runs import Qrels, Run, ranked_gains
from fuzzytruth.taxonomy import _show
from fuzzytruth.uncertain import closed_form, poibin
from fuzzytruth.uncertain.batch import DistributionBatch
from fuzzytruth.uncertain.distribution import Distribution
from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels
from fuzzytruth.uncertain.worlds import (
    CategoricalWorlds,
    QrelsWorlds,
    RankedDocs,
    check_world_model,
    kernel_params,
    world_values,
)

__all__ = ["Evaluation", "evaluate", "precision_recall_bands"]

METHODS = ("auto", "exact", "worlds")
MISSING = ("error", "skip")
WEIGHTS = ("direct", "literal")
RECALL_FORMS = ("exact", "expected_size")
UNDEFINED = ("skip", "zero")
UNDEFINED_SCORES = ("zero", "nan")
_EXACT_FAMILIES = ("P", "R", "Success", "RR", "F", "E")


def _check(name: str, value: Any, allowed: tuple) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}; got {value!r}")


# ---------------------------------------------------------------------------------------------
# ranking the runs


def _rank(
    run: Run, ties: str, score_dtype: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any, Any]:
    """Rank a run with the crisp tie rules: (query ids, doc-id matrix, lengths, tie bounds).

    The run's own row numbers are passed as "grades" to :func:`fuzzytruth.runs.ranked_gains`,
    so its ordering (ties, score precision) is exactly the crisp one.
    """
    rows = Qrels(run.query_ids, run.doc_ids, np.arange(1, len(run) + 1))
    rg = ranked_gains(run, rows, ties=ties, score_dtype=score_dtype, queries="run")
    index = rg.gains.astype(np.int64) - 1
    docs = np.where(index >= 0, run.doc_ids[np.maximum(index, 0)], None)
    return np.asarray(rg.query_ids, dtype=object), docs, rg.lengths, rg.tie_start, rg.tie_stop


@dataclass
class _System:
    name: str
    queries: np.ndarray  # its query ids, sorted
    docs: np.ndarray  # (n_its_queries, depth) doc ids (None padding)
    lengths: np.ndarray
    tie_start: Any
    tie_stop: Any
    run: Run

    def on(self, queries: np.ndarray, fill: Any = None) -> tuple[np.ndarray, np.ndarray, Any, Any]:
        """Its lists on the evaluated queries (empty lists where it has none)."""
        pos = pd.Index(self.queries).get_indexer(queries)
        found = pos >= 0
        depth = self.docs.shape[1]
        docs = np.full((len(queries), depth), fill, dtype=object)
        docs[found] = self.docs[pos[found]]
        lengths = np.zeros(len(queries), dtype=np.int64)
        lengths[found] = self.lengths[pos[found]]
        tie_start = tie_stop = None
        if self.tie_start is not None:
            cols = np.broadcast_to(np.arange(depth), (len(queries), depth))
            tie_start, tie_stop = cols.copy(), cols + 1
            tie_start[found] = self.tie_start[pos[found]]
            tie_stop[found] = self.tie_stop[pos[found]]
        return docs, lengths, tie_start, tie_stop


# ---------------------------------------------------------------------------------------------
# truth adapters: per-rank relevance probabilities, unretrieved relevant documents, worlds


class _CategoricalTruth:
    kind = "categorical"

    def __init__(
        self,
        membership: Membership,
        query_categories: Mapping[Hashable, Hashable] | None,
        weights: str,
        exclude_query: bool,
    ) -> None:
        _check("weights", weights, WEIGHTS)
        if weights == "direct" and membership.direct is None and query_categories is None:
            raise ValueError(
                "weights='direct' needs the annotators' direct shares, and this membership was "
                "built from already-closed probabilities; pass weights='literal' or "
                "query_categories"
            )
        self.membership = membership
        self.categories = {str(k): v for k, v in (query_categories or {}).items()}
        self.weights = weights
        self.exclude_query = exclude_query
        self.items = pd.Index([str(i) for i in membership.items])
        if self.items.has_duplicates:
            raise ValueError("membership item ids must be distinct once converted to str")

    def answerable(self, queries: np.ndarray) -> np.ndarray:
        explicit = np.array([q in self.categories for q in queries], dtype=bool)
        return explicit | (self.items.get_indexer(queries) >= 0)

    def missing_message(self, missing: list[str]) -> str:
        return (
            f"query(ies) {_show(missing)} have no category: give them in query_categories or "
            "make them items of the membership (or pass missing='skip' to drop them)"
        )

    def prepare(self, queries: np.ndarray) -> None:
        tax = self.membership.taxonomy
        n_q = len(queries)
        self.query_item = self.items.get_indexer(queries).astype(np.int64)
        fixed = np.full(n_q, -1, dtype=np.int64)
        explicit = np.array([q in self.categories for q in queries], dtype=bool)
        if explicit.any():
            fixed[explicit] = tax.indices([self.categories[q] for q in queries[explicit]])
        self.fixed = fixed
        mixed = np.flatnonzero(~explicit)
        source = self.membership.direct if self.weights == "direct" else self.membership.matrix
        shares = source[self.query_item[mixed]] if len(mixed) else np.zeros((0, len(tax)))
        shares = shares / shares.sum(axis=1, keepdims=True)
        row, node = np.nonzero(shares)
        comp_query = np.concatenate([np.flatnonzero(explicit), mixed[row]])
        comp_node = np.concatenate([fixed[explicit], node])
        comp_weight = np.concatenate([np.ones(int(explicit.sum())), shares[row, node]])
        order = np.argsort(comp_query, kind="stable")
        self.comp = (comp_query[order], comp_node[order], comp_weight[order])
        self.mixed_comp = (mixed[row], node, shares[row, node])

    def doc_index(self, system: _System, queries: np.ndarray) -> RankedDocs:
        docs, lengths, tie_start, tie_stop = system.on(queries)
        present = docs != None  # noqa: E711 - object array comparison, elementwise
        codes = np.full(docs.shape, -1, dtype=np.int64)
        codes[present] = self.items.get_indexer(docs[present].astype(str))
        unknown = present & (codes < 0)
        if unknown.any():
            raise ValueError(
                f"document(s) {_show(pd.unique(docs[unknown]).tolist())} of system "
                f"{system.name!r} are not items of the membership; every ranked document "
                "needs a category"
            )
        if self.exclude_query:
            own = (codes == self.query_item[:, None]) & (self.query_item[:, None] >= 0)
            codes[own] = -1  # a query item is not relevant to itself
        return RankedDocs(codes, lengths, tie_start, tie_stop)

    def probabilities(self, docs: RankedDocs, rel: float) -> np.ndarray:
        """(n_components, depth) P(relevant) of the ranked documents, per component."""
        q, node, _ = self.comp
        if rel > 1:  # categorical membership has grade 1
            return np.zeros((len(q), docs.docs.shape[1]))
        matrix = np.vstack([self.membership.matrix, np.zeros(len(self.membership.categories))])
        return matrix[docs.docs[q], node[:, None]]

    def rest(self, docs: RankedDocs, rel: float) -> tuple[np.ndarray, np.ndarray]:
        """Members of each component's category not retrieved (and not the excluded query)."""
        q, node, _ = self.comp
        n_items = len(self.items)
        if rel > 1:
            return np.zeros((len(q), 0)), np.zeros(len(q), dtype=np.int64)
        matrix = self.membership.matrix
        retrieved = np.zeros((len(q), n_items + 1), dtype=bool)
        retrieved[np.arange(len(q))[:, None], docs.docs[q]] = True  # -1 marks the last column
        if self.exclude_query:
            item = self.query_item[q]
            retrieved[np.arange(len(q)), np.where(item >= 0, item, n_items)] = True
        retrieved = retrieved[:, :n_items]
        probs = np.where(retrieved, 0.0, matrix[:, node].T)
        certain = (probs == 1).sum(axis=1)
        uncertain = np.where(probs < 1, probs, 0.0)
        keep = uncertain.any(axis=0)
        return uncertain[:, keep], certain

    def expected_size(self, docs: RankedDocs) -> np.ndarray:
        q, node, _ = self.comp
        sizes = self.membership.matrix.sum(axis=0)[node]
        if self.exclude_query:
            item = self.query_item[q]
            own = np.where(item >= 0, self.membership.matrix[np.maximum(item, 0), node], 0.0)
            sizes = sizes - own
        return sizes

    def worlds(self, world_model: str) -> CategoricalWorlds:
        return CategoricalWorlds(
            self.membership,
            self.fixed,
            self.query_item,
            self.mixed_comp,
            own_label=self.weights == "direct",
            exclude_query=self.exclude_query,
            world_model=world_model,
        )


class _JudgedQueries:
    """Answerable queries of a qrels-like truth: the queries it judges."""

    source = "qrels"

    def __init__(self, queries: list[str]) -> None:
        self.known = pd.Index(queries)

    def answerable(self, queries: np.ndarray) -> np.ndarray:
        return self.known.get_indexer(queries) >= 0

    def missing_message(self, missing: list[str]) -> str:
        return (
            f"query(ies) {_show(missing)} are missing from the {self.source} (pass "
            "missing='skip' to drop them, as trec_eval does)"
        )


class _ProbabilisticQrelsTruth(_JudgedQueries):
    kind = "probabilistic_qrels"
    source = "probabilistic qrels"

    def __init__(self, pqrels: ProbabilisticQrels) -> None:
        super().__init__(pqrels.queries)
        self.pqrels = pqrels

    def prepare(self, queries: np.ndarray) -> None:
        frame = self.pqrels.to_dataframe()
        frame["q"] = pd.Index(queries).get_indexer(frame["query_id"])
        frame = frame[frame["q"] >= 0].sort_values(
            ["q", "grade"], ascending=[True, False], kind="stable"
        )
        self.pair_query = frame["q"].to_numpy(dtype=np.int64)
        self.probability = frame["probability"].to_numpy()
        self.grade = frame["grade"].to_numpy()
        self.key = pd.Index(list(zip(frame["query_id"], frame["doc_id"], strict=True)))
        n_q = len(queries)
        self.comp = (np.arange(n_q), np.zeros(n_q, dtype=np.int64), np.ones(n_q))
        self.n_queries = n_q

    def doc_index(self, system: _System, queries: np.ndarray) -> RankedDocs:
        docs, lengths, tie_start, tie_stop = system.on(queries)
        present = docs != None  # noqa: E711 - object array comparison, elementwise
        codes = np.full(docs.shape, -1, dtype=np.int64)
        q_of = np.broadcast_to(queries[:, None], docs.shape)
        keys = list(zip(q_of[present], docs[present].astype(str), strict=True))
        codes[present] = self.key.get_indexer(keys) if keys else []
        return RankedDocs(codes, lengths, tie_start, tie_stop)

    def _effective(self, rel: float) -> np.ndarray:
        return np.where(self.grade >= rel, self.probability, 0.0)

    def probabilities(self, docs: RankedDocs, rel: float) -> np.ndarray:
        return np.append(self._effective(rel), 0.0)[docs.docs]

    def rest(self, docs: RankedDocs, rel: float) -> tuple[np.ndarray, np.ndarray]:
        p = self._effective(rel)
        retrieved = np.zeros(len(p) + 1, dtype=bool)
        retrieved[docs.docs[docs.docs >= 0]] = True
        p = np.where(retrieved[:-1], 0.0, p)
        certain = np.bincount(self.pair_query, weights=(p == 1), minlength=self.n_queries)
        uncertain = np.where(p < 1, p, 0.0)
        counts = np.bincount(self.pair_query, minlength=self.n_queries)
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        out = np.zeros((self.n_queries, int(counts.max(initial=0))))
        out[self.pair_query, np.arange(len(p)) - start[self.pair_query]] = uncertain
        return out, certain.astype(np.int64)

    def expected_size(self, docs: RankedDocs) -> np.ndarray:
        return np.bincount(self.pair_query, weights=self.probability, minlength=self.n_queries)

    def worlds(self, world_model: str) -> QrelsWorlds:
        return QrelsWorlds(self.pair_query, self.probability, self.grade, self.n_queries)


class _CrispTruth(_JudgedQueries):
    kind = "crisp"

    def __init__(self, qrels: Qrels) -> None:
        super().__init__(qrels.queries)
        self.qrels = qrels


# ---------------------------------------------------------------------------------------------
# the result


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Distributions of every (system, query, measure), stored as one batch per (system,
    measure), with the Monte Carlo world values when worlds were drawn.

    Use :func:`evaluate` to build one.

    Attributes
    ----------
    systems, queries, measures : tuple of str
        Labels (measures in canonical spelling, as asked).
    truth : str
        ``"categorical"``, ``"probabilistic_qrels"`` or ``"crisp"``.
    conventions : dict
        Everything that fixes the numbers (preset, ties, each measure resolved, options).
    confidence_level : float
        Default level of the intervals.
    """

    systems: tuple[str, ...]
    queries: tuple[str, ...]
    measures: tuple[str, ...]
    truth: str
    conventions: dict[str, Any]
    confidence_level: float
    _batches: dict[tuple[str, str], DistributionBatch] = field(repr=False)
    _worlds: np.ndarray | None = field(repr=False)  # (n_measures, n_systems, n_worlds, n_q)
    _exact_means: dict[tuple[str, str], Distribution] = field(repr=False)

    # ------------------------------------------------------------------ access
    def _key(self, system: str, measure: str | Measure) -> tuple[str, str]:
        name = str(measure)
        if system not in self.systems:
            raise ValueError(f"system must be one of {list(self.systems)}; got {system!r}")
        if name not in self.measures:
            raise ValueError(f"measure must be one of {list(self.measures)}; got {name!r}")
        return system, name

    def batch(self, system: str, measure: str | Measure) -> DistributionBatch:
        """The per-query distributions of one system and measure (rows in :attr:`queries`)."""
        return self._batches[self._key(system, measure)]

    def distribution(self, system: str, query_id: str, measure: str | Measure) -> Distribution:
        """The :class:`Distribution` of one (system, query, measure), built on demand."""
        key = self._key(system, measure)
        query_id = str(query_id)
        if query_id not in self.queries:
            raise ValueError(
                f"query_id must be one of the evaluated queries {_show(self.queries)}; got "
                f"{query_id!r}"
            )
        return self._batches[key].distribution(self.queries.index(query_id))

    @property
    def n_worlds(self) -> int:
        """Number of Monte Carlo worlds behind :meth:`world_scores` (0 when none)."""
        return 0 if self._worlds is None else self._worlds.shape[2]

    # ------------------------------------------------------------------ tables
    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Tidy table, one row per (system, query, measure).

        Columns ``system, query_id, measure, mean, std, ci_low, ci_high, confidence_level,
        p_undefined, method, mc_se`` (``mc_se``: Monte Carlo standard error of the mean, 0
        when exact). Intervals are equal-tailed, conditional on the value being defined.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        parts = []
        n_q = len(self.queries)
        for system in self.systems:
            for measure in self.measures:
                b = self._batches[system, measure]
                low, high = b.interval(level)
                parts.append(
                    pd.DataFrame(
                        {
                            "system": system,
                            "query_id": np.array(self.queries, dtype=object),
                            "measure": measure,
                            "mean": b.mean(),
                            "std": b.std(),
                            "ci_low": low,
                            "ci_high": high,
                            "confidence_level": level,
                            "p_undefined": b.p_undefined,
                            "method": b.method,
                            "mc_se": b.mc_standard_error(),
                        },
                        index=range(n_q),
                    )
                )
        return pd.concat(parts, ignore_index=True)

    def _mean_samples(self, system: str, measure: str, undefined: str) -> np.ndarray:
        m, s = self.measures.index(measure), self.systems.index(system)
        values = self._worlds[m, s]  # type: ignore[index]
        if undefined == "zero":
            return np.nan_to_num(values, nan=0.0).mean(axis=1)
        defined = ~np.isnan(values)
        count = defined.sum(axis=1)
        total = np.where(defined, values, 0.0).sum(axis=1)
        return np.divide(total, count, out=np.full(len(count), np.nan), where=count > 0)

    def aggregate_distribution(
        self,
        system: str,
        measure: str | Measure,
        *,
        undefined: str = "skip",
        method: str = "auto",
    ) -> Distribution:
        """Distribution of the mean over queries of one system and measure.

        Parameters
        ----------
        system, measure : str
            Which system and measure (as spelled in the evaluation).
        undefined : {"skip", "zero"}
            Queries where the value is undefined in a world: left out of that world's mean
            (trec_eval's rule for queries without relevant documents), or counted as 0.
        method : {"auto", "exact", "worlds"}
            ``"exact"``: by convolution, available for P@k and Success@k when queries are
            independent (probabilistic qrels); ``"worlds"``: the mean in each shared world;
            ``"auto"``: exact when available.
        """
        _check("undefined", undefined, UNDEFINED)
        _check("method", method, METHODS)
        key = self._key(system, measure)
        if self.truth == "crisp":
            values = self._batches[key].mean()
            if undefined == "zero":
                values = np.nan_to_num(values, nan=0.0)
            defined = values[~np.isnan(values)]
            return (
                Distribution.point_mass(float(defined.mean()))
                if len(defined)
                else Distribution.undefined()
            )
        exact = self._exact_means.get(key)
        if method == "exact" or (method == "auto" and exact is not None):
            if exact is None:
                raise ValueError(
                    f"no exact distribution of the mean of {key[1]!r}: it exists for P@k and "
                    "Success@k under probabilistic qrels (independent queries); use "
                    "method='worlds'"
                )
            return exact
        if self._worlds is None:
            raise ValueError(
                "the mean over queries needs possible worlds (queries are not independent, or "
                "the measure has no closed form); evaluate with n_worlds > 0"
            )
        return Distribution.from_samples(self._mean_samples(*key, undefined))

    def aggregate(
        self,
        *,
        undefined: str = "skip",
        method: str = "auto",
        confidence_level: float | None = None,
    ) -> pd.DataFrame:
        """Per-system results across queries: the distribution of the mean over queries.

        Columns ``system, measure, mean, std, ci_low, ci_high, confidence_level, p_undefined,
        method, mc_se, n_queries``. See :meth:`aggregate_distribution` for the options.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        rows = []
        for system in self.systems:
            for measure in self.measures:
                d = self.aggregate_distribution(system, measure, undefined=undefined, method=method)
                summary = d.summary(level)
                rows.append(
                    {
                        "system": system,
                        "measure": measure,
                        **{k: summary[k] for k in ("mean", "std", "ci_low", "ci_high")},
                        "confidence_level": level,
                        "p_undefined": d.p_undefined,
                        "method": d.method,
                        "mc_se": d.mc_standard_error(),
                        "n_queries": len(self.queries),
                    }
                )
        return pd.DataFrame(rows)

    def world_scores(self, measure: str | Measure, *, undefined: str = "zero") -> np.ndarray:
        """``(n_worlds, n_systems, n_queries)`` values of one measure in each shared world.

        The input of :mod:`fuzzytruth.stats` (``compare``, ``world_preference``). A crisp truth
        has one world. ``undefined="zero"`` (default) scores an undefined value as 0, as
        pytrec_eval prints queries without relevant documents (the statistics need a finite
        value everywhere); ``"nan"`` keeps NaN.
        """
        _check("undefined", undefined, UNDEFINED_SCORES)
        name = self._key(self.systems[0], measure)[1]
        if self.truth == "crisp":
            values = np.stack([self._batches[s, name].mean() for s in self.systems])[None]
        elif self._worlds is None:
            raise ValueError("no worlds were drawn; evaluate with n_worlds > 0")
        else:
            values = self._worlds[self.measures.index(name)].transpose(1, 0, 2)
        return np.nan_to_num(values, nan=0.0) if undefined == "zero" else values.copy()

    def scores_frame(self, *, undefined: str = "zero") -> pd.DataFrame:
        """Long table ``system, query_id, measure, value, world`` of every world's values.

        For a crisp truth there is no ``world`` column (one value per system and query).
        Feed it to :func:`fuzzytruth.stats.compare`. ``undefined`` as in :meth:`world_scores`.
        """
        parts = []
        for measure in self.measures:
            values = self.world_scores(measure, undefined=undefined)  # (W, S, Q)
            n_w, n_s, n_q = values.shape
            part = {
                "system": np.repeat(np.array(self.systems, dtype=object), n_q * n_w),
                "query_id": np.tile(np.repeat(np.array(self.queries, dtype=object), n_w), n_s),
                "measure": measure,
                "value": values.transpose(1, 2, 0).ravel(),
            }
            if self.truth != "crisp":
                part["world"] = np.tile(np.arange(n_w), n_s * n_q)
            parts.append(pd.DataFrame(part))
        return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------------------------------------
# the entry point


def evaluate(
    runs: Run | Mapping[str, Run],
    truth: Membership | ProbabilisticQrels | Qrels,
    measures: str | Measure | Iterable[str | Measure],
    *,
    preset: str | Preset = "trec",
    query_categories: Mapping[Hashable, Hashable] | None = None,
    weights: str = "direct",
    method: str = "auto",
    n_worlds: int = 1000,
    world_model: str = "annotator",
    rng: np.random.Generator | int | None = None,
    confidence_level: float = 0.95,
    recall_form: str = "exact",
    exclude_query: bool = True,
    missing: str = "error",
    ties: str | None = None,
    score_dtype: str | None = None,
    memory_budget: float = 200e6,
    progress: bool | None = None,
) -> Evaluation:
    """Evaluate one or several systems under crisp or uncertain ground truth.

    Parameters
    ----------
    runs : Run or mapping of str to Run
        One run (named by ``run.name``) or systems by name.
    truth : Membership, ProbabilisticQrels or Qrels
        Categorical uncertain truth, probabilistic qrels, or crisp qrels (see the module
        docstring).
    measures : str, Measure or iterable of them
        Any registered measures (``"P@10"``, ``"AP"``, ``"nDCG@10"``, ``"FT"``…).
    preset : str or Preset
        Conventions for unset measure parameters, ties and score precision (default "trec").
    query_categories : mapping, optional
        Categorical truth: query id → target category. Queries not listed ask for their own
        (uncertain) category and must be items of the membership.
    weights : {"direct", "literal"}
        Mixture weights of a query's own category (see the module docstring).
    method : {"auto", "exact", "worlds"}
        Per-query distributions: closed forms (error when a measure has none), worlds, or
        exact where available (default).
    n_worlds : int
        Monte Carlo worlds, shared by all systems and measures (0: none; then only exact
        measures are possible and :meth:`Evaluation.aggregate` is exact or unavailable).
    world_model : {"annotator", "bernoulli"}
        How worlds are drawn (:mod:`fuzzytruth.uncertain.worlds`).
    rng : numpy.random.Generator or int, optional
        The one source of randomness.
    confidence_level : float
        Default level of the intervals (0.95).
    recall_form : {"exact", "expected_size"}
        Recall as TP/(TP+FN) (the registry's recall) or TP/E|ω| (Santini eq. 12 as printed;
        exact closed form only).
    exclude_query : bool
        Categorical truth: a query item is not relevant to itself (default True).
    missing : {"error", "skip"}
        A query the truth cannot answer: error (default) or drop it.
    ties, score_dtype : str, optional
        Override the preset's tie policy and score precision.
    memory_budget : float
        Bytes of working memory per chunk of worlds (default 200 MB).
    progress : bool, optional
        Progress bar on stderr: None (default) draws it only when stderr is a terminal,
        True always, False never (:mod:`fuzzytruth.progress`).

    Returns
    -------
    Evaluation
    """
    _check("method", method, METHODS)
    _check("missing", missing, MISSING)
    _check("recall_form", recall_form, RECALL_FORMS)
    check_world_model(world_model)
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"confidence_level must be within (0, 1); got {confidence_level!r}")
    if isinstance(n_worlds, bool) or not isinstance(n_worlds, int | np.integer) or n_worlds < 0:
        raise ValueError(f"n_worlds must be an integer >= 0; got {n_worlds!r}")
    rng = np.random.default_rng(rng)
    p = get_preset(preset)
    ties = ties or p.ties
    score_dtype = score_dtype or p.score_dtype
    asked = parse_measures(measures)
    names = [str(m) for m in asked]
    resolved = [m.resolve(p) for m in asked]

    systems, adapter, queries = _setup(
        runs, truth, query_categories, weights, exclude_query, missing, ties, score_dtype
    )

    conventions = {
        "preset": p.as_dict(),
        "ties": ties,
        "score_dtype": score_dtype,
        "measures": {n: str(r) for n, r in zip(names, resolved, strict=True)},
        "truth": adapter.kind,
        "method": method,
        "missing": missing,
    }
    if adapter.kind == "crisp":
        batches = _crisp(systems, adapter.qrels, queries, names, resolved, p, ties, score_dtype)
        return Evaluation(
            tuple(s.name for s in systems),
            tuple(queries),
            tuple(names),
            "crisp",
            conventions,
            confidence_level,
            batches,
            None,
            {},
        )

    conventions.update(
        n_worlds=n_worlds,
        world_model=world_model,
        recall_form=recall_form,
        exclude_query=exclude_query,
        weights=weights,
    )
    adapter.prepare(queries)
    ranked = [adapter.doc_index(s, queries) for s in systems]
    exact_ok = [_exact_available(r, ties) for r in resolved]
    if method == "exact":
        lacking = [n for n, ok in zip(names, exact_ok, strict=True) if not ok]
        if lacking:
            raise ValueError(
                f"method='exact': no closed form for {lacking} (closed forms exist for "
                f"{list(_EXACT_FAMILIES)} with a strict ranking); use method='auto' or 'worlds'"
            )
    if recall_form == "expected_size" and method == "worlds":
        raise ValueError("recall_form='expected_size' has a closed form only; use method='auto'")
    worlds = None
    if n_worlds > 0:
        worlds = world_values(
            adapter.worlds(world_model),
            ranked,
            resolved,
            n_worlds=n_worlds,
            rng=rng,
            memory_budget=memory_budget,
            progress=progress,
        )
    elif method == "worlds" or not all(exact_ok):
        raise ValueError(
            "n_worlds=0 leaves no way to compute measures without a closed form; give n_worlds > 0"
        )
    batches: dict[tuple[str, str], DistributionBatch] = {}
    exact_means: dict[tuple[str, str], Distribution] = {}
    for s, (system, docs) in enumerate(zip(systems, ranked, strict=True)):
        for m, (name, measure) in enumerate(zip(names, resolved, strict=True)):
            if method != "worlds" and exact_ok[m]:
                batches[system.name, name] = _exact_batch(adapter, docs, measure, recall_form)
                if adapter.kind == "probabilistic_qrels":
                    mean = _exact_mean(adapter, docs, measure)
                    if mean is not None:
                        exact_means[system.name, name] = mean
            else:
                batches[system.name, name] = DistributionBatch.from_samples(worlds[m, s])
    return Evaluation(
        tuple(s.name for s in systems),
        tuple(queries),
        tuple(names),
        adapter.kind,
        conventions,
        confidence_level,
        batches,
        worlds,
        exact_means,
    )


def _setup(
    runs: Run | Mapping[str, Run],
    truth: Any,
    query_categories: Mapping[Hashable, Hashable] | None,
    weights: str,
    exclude_query: bool,
    missing: str,
    ties: str,
    score_dtype: str,
) -> tuple[list[_System], Any, np.ndarray]:
    """Validate the runs and the truth, rank the runs, and choose the evaluated queries."""
    if isinstance(runs, Run):
        runs = {runs.name: runs}
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError(
            f"runs must be a Run or a non-empty mapping of system name to Run; got "
            f"{type(runs).__name__}"
        )
    for name, run in runs.items():
        if not isinstance(run, Run):
            raise ValueError(f"runs[{name!r}] must be a Run; got {type(run).__name__}")

    if isinstance(truth, Membership):
        adapter: Any = _CategoricalTruth(truth, query_categories, weights, exclude_query)
    elif isinstance(truth, ProbabilisticQrels):
        adapter = _ProbabilisticQrelsTruth(truth)
    elif isinstance(truth, Qrels):
        adapter = _CrispTruth(truth)
    else:
        raise ValueError(
            "truth must be a Membership, a ProbabilisticQrels or a Qrels; got "
            f"{type(truth).__name__}"
        )
    if query_categories is not None and adapter.kind != "categorical":
        raise ValueError("query_categories applies to a categorical truth (a Membership) only")

    systems = [
        _System(str(name), *_rank(run, ties, score_dtype), run=run) for name, run in runs.items()
    ]
    queries = np.sort(np.unique(np.concatenate([s.queries for s in systems])).astype(object))
    ok = adapter.answerable(queries)
    if not ok.all():
        if missing == "error":
            raise ValueError(adapter.missing_message(queries[~ok].tolist()))
        queries = queries[ok]
    if len(queries) == 0:
        raise ValueError("no query left to evaluate: no query of the runs is in the truth")
    return systems, adapter, queries


def precision_recall_bands(
    runs: Run | Mapping[str, Run],
    truth: Membership | ProbabilisticQrels,
    *,
    preset: str | Preset = "trec",
    query_categories: Mapping[Hashable, Hashable] | None = None,
    weights: str = "direct",
    confidence_level: float = 0.95,
    recall_form: str = "exact",
    exclude_query: bool = True,
    missing: str = "error",
    ties: str | None = None,
    score_dtype: str | None = None,
) -> pd.DataFrame:
    """Precision and recall at every cutoff of every list, exactly: the P–R curve as bands.

    Arguments as in :func:`evaluate` (relevance threshold: the preset's ``rel``). The ranking
    must be a strict order (no tie-averaged policy).

    Returns
    -------
    pandas.DataFrame
        ``system, query_id, cutoff, measure ("precision" or "recall"), mean, std, ci_low,
        ci_high, confidence_level, p_undefined, method``.

    Examples
    --------
    >>> pq = ProbabilisticQrels(["q", "q"], ["a", "b"], [1.0, 0.5])
    >>> bands = precision_recall_bands(Run(["q", "q"], ["a", "b"], [2.0, 1.0]), pq)
    >>> bands[["cutoff", "measure", "mean"]]
       cutoff    measure  mean
    0       1  precision  1.00
    1       2  precision  0.75
    2       1     recall  0.75
    3       2     recall  1.00
    """
    _check("missing", missing, MISSING)
    _check("recall_form", recall_form, RECALL_FORMS)
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"confidence_level must be within (0, 1); got {confidence_level!r}")
    p = get_preset(preset)
    ties = ties or p.ties
    if ties == "average":
        raise ValueError("precision_recall_bands needs a strict ranking; got ties='average'")
    if isinstance(truth, Qrels):
        raise ValueError(
            "truth must be uncertain (a Membership or a ProbabilisticQrels); use "
            "evaluate() for crisp qrels"
        )
    systems, adapter, queries = _setup(
        runs,
        truth,
        query_categories,
        weights,
        exclude_query,
        missing,
        ties,
        score_dtype or p.score_dtype,
    )
    adapter.prepare(queries)
    rel = float(p.params.get("rel", 1))
    parts = []
    for system in systems:
        docs = adapter.doc_index(system, queries)
        probs = adapter.probabilities(docs, rel)
        depth = probs.shape[1]
        if recall_form == "expected_size":
            curves = closed_form.cutoff_curves(probs, expected_size=adapter.expected_size(docs))
        else:
            rest_p, certain = adapter.rest(docs, rel)
            curves = closed_form.cutoff_curves(probs, rest_p=rest_p, rest_certain=certain)
        comp_query = adapter.comp[0]
        for measure, batch in zip(("precision", "recall"), curves, strict=True):
            mixed = _mix(
                batch,
                np.repeat(comp_query * depth, depth) + np.tile(np.arange(depth), len(comp_query)),
                np.repeat(adapter.comp[2], depth),
                len(queries) * depth,
            )
            low, high = mixed.interval(confidence_level)
            parts.append(
                pd.DataFrame(
                    {
                        "system": system.name,
                        "query_id": np.repeat(queries, depth),
                        "cutoff": np.tile(np.arange(1, depth + 1), len(queries)),
                        "measure": measure,
                        "mean": mixed.mean(),
                        "std": mixed.std(),
                        "ci_low": low,
                        "ci_high": high,
                        "confidence_level": confidence_level,
                        "p_undefined": mixed.p_undefined,
                        "method": "exact",
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


def _crisp(
    systems: list[_System],
    qrels: Qrels,
    queries: np.ndarray,
    names: list[str],
    resolved: list[Measure],
    preset: Preset,
    ties: str,
    score_dtype: str,
) -> dict[tuple[str, str], DistributionBatch]:
    out = {}
    for system in systems:
        rg = ranked_gains(system.run, qrels, ties=ties, score_dtype=score_dtype, queries="qrels")
        wide = compute_measures(rg, resolved, preset=preset)
        wide.columns = names
        wide = wide.reindex(list(queries))
        for name in names:
            out[system.name, name] = DistributionBatch.from_points(wide[name].to_numpy())
    return out


def _exact_available(measure: Measure, ties: str) -> bool:
    return measure.name in _EXACT_FAMILIES and ties != "average"


def _exact_batch(
    adapter: Any, docs: RankedDocs, measure: Measure, recall_form: str
) -> DistributionBatch:
    """Exact per-query distributions (mixed over each query's categories)."""
    params = kernel_params(measure)
    rel, k = params["rel"], params["k"]
    p = adapter.probabilities(docs, rel)
    q, _, weight = adapter.comp
    lengths = docs.lengths[q]
    family = measure.name
    if family == "P":
        comp = closed_form.precision(p, k=k, lengths=lengths)
    elif family == "Success":
        comp = closed_form.success(p, k=k)
    elif family == "RR":
        comp = closed_form.reciprocal_rank(p, k=k)
    elif family == "R" and recall_form == "expected_size":
        comp = closed_form.recall(p, k=k, expected_size=adapter.expected_size(docs))
    else:
        rest_p, certain = adapter.rest(docs, rel)
        if family == "R":
            comp = closed_form.recall(p, k=k, rest_p=rest_p, rest_certain=certain)
        else:
            comp = closed_form.f_measure(
                p, k=k, beta=params["beta"], lengths=lengths, rest_p=rest_p, rest_certain=certain
            )
            if family == "E":
                comp = DistributionBatch(1.0 - comp.values, comp.masses, comp.p_undefined)
    return _mix(comp, q, weight, len(docs.lengths))


def _mix(
    comp: DistributionBatch, row: np.ndarray, weight: np.ndarray, n_rows: int
) -> DistributionBatch:
    """Mix component rows into ``n_rows`` rows: component i goes to row ``row[i]``."""
    order = np.argsort(row, kind="stable")
    row, weight = row[order], weight[order]
    counts = np.bincount(row, minlength=n_rows)
    if np.all(counts == 1):
        return DistributionBatch(
            comp.values[order], comp.masses[order], comp.p_undefined[order], comp.method
        )
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    column = np.arange(len(row)) - start[row]
    index = np.full((n_rows, int(counts.max())), -1, dtype=np.intp)
    index[row, column] = order
    mix = np.zeros(index.shape)
    mix[row, column] = weight
    return DistributionBatch.mixture(comp, index, mix)


def _exact_mean(adapter: Any, docs: RankedDocs, measure: Measure) -> Distribution | None:
    """Exact law of the mean over independent queries: P@k and Success@k by convolution."""
    params = kernel_params(measure)
    k = params["k"]
    p = adapter.probabilities(docs, params["rel"])
    n_q = len(p)
    if measure.name == "P" and k is not None:
        top = np.zeros((n_q, k))
        width = min(k, p.shape[1])
        top[:, :width] = p[:, :width]
        pmf = poibin.pmf(top.ravel())
        return Distribution.from_pmf(np.arange(len(pmf)) / (k * n_q), pmf)
    if measure.name == "Success":
        hit = closed_form.success(p, k=k).masses[:, 1]
        pmf = poibin.pmf(hit)
        return Distribution.from_pmf(np.arange(len(pmf)) / n_q, pmf)
    return None
