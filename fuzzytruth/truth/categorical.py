"""The truth protocol (:mod:`fuzzytruth.truth.protocol`) of a categorical truth: annotators put
items in a taxonomy, and a document is relevant when it is in the query's target category
(Santini §4).

A query's target is given (``query_categories``) or is the query item's own uncertain
category: a mixture over the nodes, weighted by the annotators' direct shares (``"direct"``) or,
as printed in the paper, by p(ω|q) over all nodes, normalised (``"literal"``).

A truth model's fit (:class:`~fuzzytruth.truth.models.base.FittedTruth`) binds to this same
truth on its membership, with its own label sampler for the worlds
(:class:`~fuzzytruth.truth.categorical_worlds.CategoricalWorlds`), its name for the outputs and
whether its worlds' items are independent (what the exact closed forms need).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from fuzzytruth._pairs import doc_positions
from fuzzytruth._resampling import row_chunks
from fuzzytruth._validation import refuse_float_ids, text_names
from fuzzytruth._warnings import warn
from fuzzytruth.runs import Ranking, Run
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.categorical_worlds import CategoricalWorlds, CategoryShares, LabelModel
from fuzzytruth.truth.protocol import (
    BoundTruth,
    Components,
    PreparedTruth,
    TruthKind,
    TruthOptions,
    spelled_otherwise,
)
from fuzzytruth.uncertain.worlds import RankedDocs

__all__ = ["CategoricalTruth", "PreparedCategorical"]


class CategoricalTruth(BoundTruth):
    """A membership under the evaluation's options: a query is judged when it is an item of
    the membership or its category is given. With ``model`` (the truth model the membership
    comes from), the worlds draw labels with the model's sampler and outputs name it."""

    kind = TruthKind.CATEGORICAL

    def __init__(
        self, membership: CategoryShares, options: TruthOptions, *, model: LabelModel | None = None
    ) -> None:
        self.membership = membership
        self.model = model
        if model is not None:
            self.truth_model = model.name
            self.independent = model.independent_items
        given = options.query_categories or {}  # keyed by text: 1 and "1" named once
        refuse_float_ids(list(given), "query_categories' keys (query ids)")
        self.categories: Mapping[str, Hashable] = dict(zip(
            text_names(given, "query_categories", "query"), given.values(), strict=True))
        self._category_node: dict[str, int] = {}  # each named query's node, found once
        for query, category in self.categories.items():  # before any query is evaluated
            try:
                self._category_node[query] = membership.taxonomy.index(category)
            except ValueError as error:
                one = ("" if not isinstance(category, list | tuple | set | dict) else
                       " (a query's category is one node of the taxonomy)")
                raise ValueError(f"query_categories[{query!r}]: {error}{one}") from None
        self.weights = options.weights
        self.exclude_query = options.exclude_query
        self.world_model = options.world_model
        # distinct as text: Membership, Annotations and Rankings refuse 1 beside "1"
        self.items = membership._item_texts

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
            + spelled_otherwise(missing, [*self.categories, *self.items])
        )

    def prepare(self, queries: np.ndarray) -> PreparedCategorical:
        tax = self.membership.taxonomy
        n_q = len(queries)
        query_item = self.items.get_indexer(queries).astype(np.int64)
        fixed = np.full(n_q, -1, dtype=np.int64)
        explicit = self._explicit(queries)
        if self.categories and n_q and not explicit.any():
            warn(unused_categories_message(self.categories, queries), UserWarning)
        if explicit.any():
            fixed[explicit] = [self._category_node[q] for q in queries[explicit]]
        mixed = np.flatnonzero(~explicit)
        source = self.membership.direct if self.weights == "direct" else self.membership.matrix
        if source is None and len(mixed):
            raise ValueError(
                "weights='direct' needs the annotators' direct shares, and this membership was "
                "built from already-closed probabilities; pass weights='literal' or give "
                f"query_categories for query(ies) {_show(queries[mixed].tolist())}"
            )
        shares = source[query_item[mixed]] if len(mixed) else np.zeros((0, len(tax)))
        shares = shares / shares.sum(axis=1, keepdims=True)
        row, node = np.nonzero(shares)
        comp_query = np.concatenate([np.flatnonzero(explicit), mixed[row]])
        comp_node = np.concatenate([fixed[explicit], node])
        comp_weight = np.concatenate([np.ones(int(explicit.sum())), shares[row, node]])
        order = np.argsort(comp_query, kind="stable")
        return PreparedCategorical(
            kind=self.kind,
            queries=queries,
            components=Components(comp_query[order], comp_node[order], comp_weight[order]),
            membership=self.membership,
            items=self.items,
            query_item=query_item,
            fixed=fixed,
            mixed=Components(mixed[row], node, shares[row, node]),
            # the query's own label as its target: the annotator worlds' law, which the
            # exact forms follow under that world model only
            own_label=self.weights == "direct" and self.world_model == "annotator",
            exclude_query=self.exclude_query,
            model=self.model,
        )

    def join(self, run: Run) -> np.ndarray:
        return doc_positions(run, self.items)


UNUSED_CATEGORIES = "query_categories names none of the evaluated queries"


def unused_categories_message(categories: Mapping[str, Hashable], queries: np.ndarray) -> str:
    """The warning of a ``query_categories`` that applies to no evaluated query: its keys
    likely spell the queries differently (``"Q1"`` for ``"q1"``), and every query then takes
    its own uncertain category as its target without it.

    Examples
    --------
    >>> unused_categories_message({"Q1": "dog"}, np.array(["q1"], dtype=object))
    "query_categories names none of the evaluated queries (its keys: 'Q1'; the queries: 'q1'): \
every query's target is its own uncertain category"
    """
    return (
        f"{UNUSED_CATEGORIES} (its keys: {_show(sorted(categories))}; the queries: "
        f"{_show(list(queries))}): every query's target is its own uncertain category"
    )


@dataclass(frozen=True, eq=False)
class PreparedCategorical(PreparedTruth):
    """A membership on the evaluated queries.

    ``query_item`` is the membership row of each query item (-1 when the query is not an item),
    ``fixed`` the node of an explicitly given target (-1 otherwise), ``mixed`` the mixture
    components of the queries whose target is uncertain, ``model`` the truth model whose
    sampler draws the worlds' labels (None: the annotators' shares).
    """

    kind: TruthKind
    queries: np.ndarray
    components: Components
    membership: CategoryShares
    items: pd.Index
    query_item: np.ndarray
    fixed: np.ndarray
    mixed: Components
    own_label: bool
    exclude_query: bool
    model: LabelModel | None = None

    def doc_index(self, ranking: Ranking, run: Run, joined: np.ndarray | None = None) -> RankedDocs:
        codes = doc_positions(run, self.items) if joined is None else joined
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
        q, node, _ = self.components
        if rel > 1:  # categorical membership has grade 1
            return np.zeros((len(q), docs.docs.shape[1]))
        matrix = self.membership.matrix
        own = self._own_item()
        out = np.empty((len(q), docs.docs.shape[1]))
        for rows in row_chunks(len(q)):  # no (n_components, depth) index temporaries
            ranked = docs.docs[q[rows]]  # -1 (none) reads the last item, then set to 0
            out[rows] = np.where(ranked >= 0, matrix[ranked, node[rows, None]], 0.0)
            out[rows] = np.where((ranked == own[rows, None]) & (ranked >= 0), 1.0, out[rows])
        return out

    def rest(self, docs: RankedDocs, rel: float) -> tuple[np.ndarray, np.ndarray]:
        """Members of each component's category not retrieved (and not the excluded query)."""
        q, node, _ = self.components
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
        own = self._own_item()
        kept = np.flatnonzero(own >= 0)
        probs[kept, own[kept]] = np.where(retrieved[kept, own[kept]], 0.0, 1.0)
        certain = (probs == 1).sum(axis=1)
        uncertain = np.where(probs < 1, probs, 0.0)
        keep = uncertain.any(axis=0)
        return uncertain[:, keep], certain

    def _own_item(self) -> np.ndarray:
        """``(n_components,)`` the query item's row where a component is the query's own label
        (direct weights) and the item is kept among the documents, else -1: the mixture is
        conditioned on the item's label, so the item belongs to the component's node for sure
        (as in the annotator worlds, whose target is that label)."""
        q = self.components.query
        if self.exclude_query or not self.own_label:
            return np.full(len(q), -1, dtype=np.int64)
        return np.where(self.fixed[q] < 0, self.query_item[q], -1)

    def expected_size(self, docs: RankedDocs) -> np.ndarray:
        q, node, _ = self.components
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
            tuple(self.mixed),
            own_label=self.own_label,
            exclude_query=self.exclude_query,
            world_model=world_model,
            query_ids=self.queries,
            model=self.model,
        )
