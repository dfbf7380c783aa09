"""The three ground truths behind one protocol: crisp Qrels, ProbabilisticQrels, Membership.

:func:`fuzzytruth.evaluation` asks a truth the same few questions whatever its kind, so a crisp
qrels is the degenerate case of the same path, not a second engine:

``answerable(queries)`` / ``missing_message(missing)``
    which queries of the runs it can judge, and what to say about the others;
``prepare(queries)``
    fix the evaluated queries (sorted) and the *components*: one row per (query, target) —
    one per query, except a categorical query with an uncertain category, which is a mixture
    over the query's categories (``comp = (query, node, weight)``);
``doc_index(ranking, run)``
    the ranked documents of one system as indices in the truth's document space
    (:class:`RankedDocs`; -1 for padding and for documents the truth does not know);
``probabilities(docs, rel)``, ``rest(docs, rel)``, ``expected_size(docs)``
    per component, P(relevant at threshold ``rel``) of each ranked document, the relevance
    probabilities of the relevant documents not retrieved, and E|relevant| — what the exact
    closed forms read (:class:`~fuzzytruth.uncertain.closed_form.ExactInput`);
``worlds(world_model)``
    a sampler of complete crisp truths (:mod:`fuzzytruth.uncertain.worlds`);
``ranked_gains(docs, judged=...)`` (crisp truth only)
    the :class:`~fuzzytruth.metrics.base.RankedGains` every crisp kernel reads.

Documents are looked up for every ranked row of a run in one block-wise join
(:func:`fuzzytruth.runs.qrels_gains`' join), never one Python object per document.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._random import pair_keys, unit_keys
from fuzzytruth._validation import check_choice
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.runs import Ranking, Run
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.membership import Membership
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels
from fuzzytruth.truth.qrels import Qrels, _grades_by_row, qrels_gains
from fuzzytruth.uncertain.worlds import CategoricalWorlds, QrelsWorlds, RankedDocs

__all__ = ["WEIGHTS", "as_truth"]

WEIGHTS = ("direct", "literal")


def as_truth(
    truth: Any,
    *,
    query_categories: Mapping[Hashable, Hashable] | None = None,
    weights: str = "direct",
    exclude_query: bool = True,
) -> CategoricalTruth | ProbabilisticQrelsTruth | CrispTruth:
    """Wrap a Membership, ProbabilisticQrels or Qrels in the truth protocol."""
    if not isinstance(truth, Membership | ProbabilisticQrels | Qrels):
        raise ValueError(
            "truth must be a Membership, a ProbabilisticQrels or a Qrels; got "
            f"{type(truth).__name__}"
        )
    if isinstance(truth, Membership):
        return CategoricalTruth(truth, query_categories, weights, exclude_query)
    if query_categories is not None:
        raise ValueError("query_categories applies to a categorical truth (a Membership) only")
    if isinstance(truth, ProbabilisticQrels):
        return ProbabilisticQrelsTruth(truth)
    return CrispTruth(truth)


def _pair_codes(run: Run, pairs: Qrels) -> np.ndarray:
    """Row of ``pairs`` holding each run row's (query, document), or -1: one block-wise join."""
    rows, _ = _grades_by_row(run, pairs, np.arange(1, len(pairs) + 1, dtype=np.float64))
    return rows.astype(np.int64) - 1


class _QrelsLike:
    """Shared by the two qrels truths: the judged queries, pairs in (query, grade desc) order."""

    source = "qrels"

    def __init__(self, pairs: Qrels) -> None:
        self._pairs = pairs
        self.known = pd.Index(self._pairs.queries)

    @property
    def judged_queries(self) -> np.ndarray:
        """Every query the truth judges (for ``complete=True``)."""
        return np.asarray(self.known, dtype=object)

    def answerable(self, queries: np.ndarray) -> np.ndarray:
        return self.known.get_indexer(queries) >= 0

    def missing_message(self, missing: list[str]) -> str:
        return f"query(ies) {_show(missing)} of the runs are not in the {self.source}"

    def _prepare_pairs(self, queries: np.ndarray, grade: np.ndarray) -> None:
        """Pairs of the evaluated queries, grouped by query then grade descending."""
        q = pd.Index(queries).get_indexer(self._pairs._q_uniques)[self._pairs._q_codes]
        keep = np.flatnonzero(q >= 0)
        order = keep[np.lexsort((-grade[keep], q[keep]))]
        self.order = order  # evaluated pair -> row of self._pairs
        self.pair_query = q[order].astype(np.int64)
        self.n_queries = len(queries)
        slot = np.full(len(self._pairs), -1, dtype=np.int64)
        slot[order] = np.arange(len(order))
        self._slot = slot
        self.comp = (
            np.arange(self.n_queries),
            np.zeros(self.n_queries, dtype=np.int64),
            np.ones(self.n_queries),
        )

    def doc_index(self, ranking: Ranking, run: Run) -> RankedDocs:
        codes = _pair_codes(run, self._pairs)
        codes = np.where(codes >= 0, self._slot[np.maximum(codes, 0)], -1)
        return RankedDocs(
            ranking.matrix(codes, fill=-1), ranking.lengths, ranking.tie_start, ranking.tie_stop
        )


class CrispTruth(_QrelsLike):
    """A crisp qrels: every document's grade is known."""

    kind = "crisp"

    def __init__(self, qrels: Qrels) -> None:
        self.qrels = qrels
        super().__init__(qrels)

    def prepare(self, queries: np.ndarray) -> None:
        self.queries = queries
        self._prepare_pairs(queries, self.qrels.relevance)

    def ranked_gains(self, ranking: Ranking, run: Run, *, judged: bool = False) -> RankedGains:
        """The crisp kernels' input for one system on the evaluated queries."""
        return qrels_gains(ranking, run, self.qrels, judged=judged)

    def probabilities(self, docs: RankedDocs, rel: float) -> np.ndarray:
        grade = np.append(self.qrels.relevance[self.order], 0.0)
        return (grade[docs.docs] >= rel).astype(np.float64)


class ProbabilisticQrelsTruth(_QrelsLike):
    """Each judged (query, document) relevant independently with its probability."""

    kind = "probabilistic_qrels"
    source = "probabilistic qrels"

    def __init__(self, pqrels: ProbabilisticQrels) -> None:
        self.pqrels = pqrels
        super().__init__(pqrels.pairs)

    def prepare(self, queries: np.ndarray) -> None:
        self.queries = queries
        self._prepare_pairs(queries, self.pqrels.grade)
        self.probability = self.pqrels.probability[self.order]
        self.grade = self.pqrels.grade[self.order]

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
        pairs = self._pairs
        return QrelsWorlds(
            self.pair_query,
            self.probability,
            self.grade,
            self.n_queries,
            keys=pair_keys(pairs, self.order),
            query_keys=unit_keys(self.queries),
        )


class CategoricalTruth:
    """Annotators put items in a taxonomy; a document is relevant when it is in the query's
    target category (Santini §4)."""

    kind = "categorical"

    def __init__(
        self,
        membership: Membership,
        query_categories: Mapping[Hashable, Hashable] | None,
        weights: str,
        exclude_query: bool,
    ) -> None:
        check_choice("weights", weights, WEIGHTS)
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

    @cached_property
    def judged_queries(self) -> np.ndarray:
        """Queries named in ``query_categories`` (for ``complete=True``)."""
        return np.array(sorted(self.categories), dtype=object)

    def _explicit(self, queries: np.ndarray) -> np.ndarray:
        return pd.Index(queries).isin(list(self.categories))

    def answerable(self, queries: np.ndarray) -> np.ndarray:
        return self._explicit(queries) | (self.items.get_indexer(queries) >= 0)

    def missing_message(self, missing: list[str]) -> str:
        return (
            f"query(ies) {_show(missing)} have no category: give them in query_categories or "
            "make them items of the membership"
        )

    def prepare(self, queries: np.ndarray) -> None:
        tax = self.membership.taxonomy
        self.queries = queries
        n_q = len(queries)
        self.query_item = self.items.get_indexer(queries).astype(np.int64)
        fixed = np.full(n_q, -1, dtype=np.int64)
        explicit = self._explicit(queries)
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

    def doc_index(self, ranking: Ranking, run: Run) -> RankedDocs:
        codes = self.items.get_indexer(run.doc_ids).astype(np.int64)
        docs = ranking.matrix(codes, fill=-2)
        if (docs == -1).any():
            unknown = pd.unique(ranking.matrix(run.doc_ids, fill=None)[docs == -1]).tolist()
            raise ValueError(
                f"document(s) {_show(unknown)} of run {run.name!r} are not items of the "
                "membership; every ranked document needs a category"
            )
        docs[docs == -2] = -1
        if self.exclude_query:
            own = (docs == self.query_item[:, None]) & (self.query_item[:, None] >= 0)
            docs[own] = -1  # a query item is not relevant to itself
        return RankedDocs(docs, ranking.lengths, ranking.tie_start, ranking.tie_stop)

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
            query_ids=self.queries,
        )
