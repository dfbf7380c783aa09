"""The truth protocol: what :func:`fuzzytruth.evaluate` asks a ground truth, whatever its kind.

A crisp qrels is the degenerate case of the same path, not a second engine. A truth answers in
three steps, each a typed object:

1. the truth itself (:class:`Truth`: :class:`~fuzzytruth.truth.qrels.Qrels`,
   :class:`~fuzzytruth.truth.probabilistic_qrels.ProbabilisticQrels`,
   :class:`~fuzzytruth.truth.membership.Membership`, or any object with these members) says
   its :attr:`~Truth.truth_kind`, whether it can be cut by query (:attr:`~Truth.per_query`:
   qrels can, a membership is shared by every query), and binds the evaluation's options;
2. the bound truth (:class:`BoundTruth`) says which queries it can judge and what to say
   about the others, and prepares the evaluated queries; its ``join(run)`` matches a run's
   rows with its documents once for every block of queries evaluated apart;
3. the prepared truth (:class:`PreparedTruth`, frozen) holds the *components* — one row per
   (query, target): one per query, except a categorical query with an uncertain category,
   which is a mixture over the query's categories — and answers per system (an uncertain
   truth the first three, a crisp one the last; what a truth does not answer raises
   ``NotImplementedError``):

   ``doc_index(ranking, run, joined=None)``
       the ranked documents as indices in the truth's document space
       (:class:`~fuzzytruth.uncertain.worlds.RankedDocs`; -1 for padding and unknown ones),
       from the run's ``join`` when given;
   ``probabilities(docs, rel)``, ``rest(docs, rel)``, ``expected_size(docs)``
       per component, P(relevant at threshold ``rel``) of each ranked document, the relevance
       probabilities of the relevant documents not retrieved, and E|relevant| — what the exact
       closed forms read (:class:`~fuzzytruth.uncertain.closed_form.ExactInput`);
   ``worlds(world_model)``
       the truth's own sampler of complete crisp truths (a
       :class:`~fuzzytruth.uncertain.worlds.WorldSampler`);
   ``ranked_gains(ranking, run, judged=...)`` (crisp truth only)
       the :class:`~fuzzytruth.metrics.base.RankedGains` every crisp kernel reads.

Examples
--------
>>> from fuzzytruth.truth.qrels import Qrels
>>> bound = as_truth(Qrels(["q1", "q1"], ["a", "b"], [1, 0]))
>>> bound.kind, bound.kind.crisp, bound.answerable(np.array(["q1", "q2"], dtype=object))
(<TruthKind.CRISP: 'crisp'>, True, array([ True, False]))
>>> prepared = bound.prepare(np.array(["q1"], dtype=object))
>>> prepared.components.query, prepared.components.weight
(array([0]), array([1.]))
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_choice, check_flag, record_fields, type_label

if TYPE_CHECKING:
    from fuzzytruth.metrics.base import RankedGains
    from fuzzytruth.runs import Ranking, Run
    from fuzzytruth.uncertain.worlds import RankedDocs, WorldSampler

__all__ = [
    "WEIGHTS",
    "WORLD_MODELS",
    "BoundTruth",
    "Components",
    "PreparedTruth",
    "Truth",
    "TruthKind",
    "TruthOptions",
    "as_truth",
    "check_world_model",
    "estimand_label",
    "split_estimand",
    "truth_hint",
]

WEIGHTS = ("direct", "literal")
#: How worlds are drawn (:mod:`fuzzytruth.uncertain.worlds`); a categorical truth's exact
#: forms follow the same law.
WORLD_MODELS = ("annotator", "bernoulli")


def check_world_model(world_model: str) -> str:
    """Validate ``world_model``; return it."""
    return check_choice("world_model", world_model, WORLD_MODELS)


class TruthKind(StrEnum):
    """The kind of ground truth behind an evaluation (equal to its name as a string)."""

    CRISP = "crisp"
    PROBABILISTIC_QRELS = "probabilistic_qrels"
    CATEGORICAL = "categorical"
    JUDGMENT_GROUPS = "judgment_groups"
    PREFERENCES = "preferences"

    @property
    def crisp(self) -> bool:
        """True when every value is a point: one world, no spread over truths (crisp qrels,
        the per-annotator mean of crisp qrels, preference judgments).

        Examples
        --------
        >>> TruthKind.JUDGMENT_GROUPS.crisp, TruthKind.CATEGORICAL.crisp
        (True, False)
        """
        return self in (TruthKind.CRISP, TruthKind.JUDGMENT_GROUPS, TruthKind.PREFERENCES)


@dataclass(frozen=True)
class TruthOptions:
    """The evaluation's options a truth reads (see :func:`fuzzytruth.evaluate`).

    ``query_categories`` and ``weights`` apply to a categorical truth only; ``exclude_query``
    leaves a query item out of its own category (shape benchmarks); ``world_model`` is the law
    of the worlds, which the exact forms follow too (a query item kept among the documents is
    in its own category for sure under ``"annotator"``, independently under ``"bernoulli"``).
    """

    query_categories: Mapping[Hashable, Hashable] | None = None
    weights: str = "direct"
    exclude_query: bool = True
    world_model: str = "annotator"

    def __post_init__(self) -> None:
        check_choice("weights", self.weights, WEIGHTS)
        check_world_model(self.world_model)
        object.__setattr__(self, "exclude_query", check_flag("exclude_query", self.exclude_query))
        given = self.query_categories
        if given is not None and not isinstance(given, Mapping):
            how = ""
            if isinstance(given, str | os.PathLike):
                how = ": read the file first, with fuzzytruth.io.read_query_categories(path)"
            elif hasattr(given, "columns") and len(given.columns) == 2:
                query, category = (repr(c) for c in given.columns)
                how = (f": a table's two columns make one, dict(zip(frame[{query}], "
                       f"frame[{category}]))")
            raise ValueError(
                "query_categories must be a mapping of query id to category (a dict; a pandas "
                f"Series gives one by .to_dict()); got {type(given).__name__}{how}"
            )


@dataclass(frozen=True, eq=False)
class Components:
    """The rows the exact forms compute: component ``i`` is target ``node[i]`` of query
    ``query[i]`` (sorted by query), weighing ``weight[i]`` in the query's mixture."""

    query: np.ndarray
    node: np.ndarray
    weight: np.ndarray

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.query, self.node, self.weight))

    @classmethod
    def one_per_query(cls, n_queries: int) -> Components:
        """Every query its own single component of weight 1 (qrels truths)."""
        return cls(np.arange(n_queries), np.zeros(n_queries, dtype=np.int64), np.ones(n_queries))


class PreparedTruth(ABC):
    """A truth fixed on the evaluated queries (sorted); frozen. See the module docstring."""

    kind: TruthKind
    queries: np.ndarray
    components: Components

    def doc_index(self, ranking: Ranking, run: Run, joined: Any = None) -> RankedDocs:
        """The ranked documents of one system as indices in the truth's document space;
        ``joined``: the run's :meth:`BoundTruth.join`, when made once for every block of
        queries (None: the run is joined here)."""
        raise NotImplementedError(f"a {self.kind} truth has no document space")

    def probabilities(self, docs: RankedDocs, rel: float) -> np.ndarray:
        """``(n_components, depth)`` P(relevant at threshold ``rel``) of the ranked documents."""
        raise NotImplementedError(f"a {self.kind} truth has no relevance probabilities")

    def rest(self, docs: RankedDocs, rel: float) -> tuple[np.ndarray, np.ndarray]:
        """Per component, the probabilities of the relevant documents not retrieved that are
        uncertain (``(n_components, width)``, 0-padded) and the number that are certain."""
        raise NotImplementedError(f"a {self.kind} truth has no uncertain rest")

    def expected_size(self, docs: RankedDocs) -> np.ndarray:
        """``(n_components,)`` expected number of relevant documents."""
        raise NotImplementedError(f"a {self.kind} truth has no expected size")

    def worlds(self, world_model: str) -> WorldSampler:
        """The truth's sampler of complete crisp truths."""
        raise NotImplementedError(f"a {self.kind} truth has no worlds to sample")

    def ranked_gains(self, ranking: Ranking, run: Run, *, judged: bool = False) -> RankedGains:
        """The crisp kernels' input for one system (crisp truth only)."""
        raise NotImplementedError(f"a {self.kind} truth has no crisp grades")

    def ranked_gains_blocks(
        self, ranking: Ranking, run: Run, *, judged: bool = False, memory_budget: float
    ) -> Iterator[tuple[np.ndarray | None, RankedGains]]:
        """:meth:`ranked_gains` by blocks of queries within ``memory_budget``: each block's
        rows of ``ranking`` (None: every row, one block) and its gains (crisp truth only).
        By default one block, :meth:`ranked_gains` itself; the qrels' override pads each
        block to its own longest list (:meth:`~fuzzytruth.runs.Ranking.row_blocks`)."""
        yield None, self.ranked_gains(ranking, run, judged=judged)


class BoundTruth(ABC):
    """A truth with the evaluation's options: which queries it judges, and their preparation.

    Two attributes say what the truth is, beyond its kind (defaults: a truth given as a table):

    ``truth_model``
        The name of the model the truth was fitted with (``"shares"``, ``"dawid-skene"``, ...;
        :data:`fuzzytruth.truth.models.TRUTH_MODELS`), named in every output beside the
        estimand; None for a truth given as a table (qrels, a membership).
    ``independent``
        True when, for a fixed target, the documents' relevance in the truth's worlds is
        independent with P(relevant) = ``probabilities()``: the model of the exact closed
        forms. False when the worlds draw something the documents share (a label model's
        parameters): the closed forms would then describe another law than the worlds', and
        :func:`fuzzytruth.evaluate` computes every measure from the worlds.
    """

    kind: TruthKind
    truth_model: str | None = None
    independent: bool = True

    @property
    @abstractmethod
    def judged_queries(self) -> np.ndarray:
        """Every query the truth judges (what ``complete=True`` adds)."""

    @abstractmethod
    def answerable(self, queries: np.ndarray) -> np.ndarray:
        """``(len(queries),)`` bool: which queries the truth can judge."""

    @abstractmethod
    def missing_message(self, missing: list[str]) -> str:
        """What to say about queries of the runs the truth cannot judge."""

    @abstractmethod
    def prepare(self, queries: np.ndarray) -> PreparedTruth:
        """The truth fixed on ``queries`` (sorted, all answerable or judged)."""

    def join(self, run: Run) -> Any:
        """What :meth:`PreparedTruth.doc_index` reads of ``run`` whatever the queries
        prepared (its rows matched with the truth's documents): made once when the queries
        are evaluated in blocks, so that a block does not join every row of the run again
        (100,000 ragged queries in 7 blocks: 9.9 s of 18). None: nothing to share."""
        return None


@runtime_checkable
class Truth(Protocol):
    """What a ground truth implements to be evaluated (see the module docstring)."""

    @property
    def truth_kind(self) -> TruthKind:
        """The kind of truth."""
        ...

    @property
    def per_query(self) -> bool:
        """True when the truth can be cut into parts by query (qrels), False when every query
        needs all of it (a membership): how a cluster partitions it."""
        ...

    def bind(self, options: TruthOptions) -> BoundTruth:
        """The truth under the evaluation's options (errors for options that do not apply)."""
        ...


def spelled_otherwise(missing: Iterable[Any], known: Iterable[Any], given: str = "the runs") -> str:
    """`` (the truth names 'q1' where the runs say 'Q1': ...)`` for the first of the
    ``missing`` ids that equals one of the ``known`` ids but for case, surrounding spaces or
    leading zeros, else ''. Ids are matched exactly, so such an id leaves its query (or item)
    out of the evaluation, told only by the warning this is added to.

    >>> spelled_otherwise(["Q1 "], ["q1", "q2"])[:45]
    " (the truth names 'q1' where the runs say 'Q1"
    >>> spelled_otherwise(["007"], ["7"])[:46]
    " (the truth names '7' where the runs say '007'"
    >>> spelled_otherwise(["q3"], ["q1"])
    ''
    """
    if isinstance(known, pd.Index):  # not one Python object at a time out of Arrow
        known = known.to_numpy(dtype=object)
    known_text = [str(k) for k in known]
    # the first known id of each form (a later duplicate key is overwritten: reversed)
    by_form = dict(zip(reversed(_folded(known_text)), reversed(known_text), strict=True))
    missing_text = [str(m) for m in missing]
    for m, form in zip(missing_text, _folded(missing_text), strict=True):
        k = by_form.get(form)
        if k is not None and k != m:
            return (f" (the truth names {k!r} where {given} say {m!r}: ids are matched "
                    "exactly, case, spaces and leading zeros included)")
    return ""


def _folded(texts: list[str]) -> list[str]:
    """Each id without surrounding spaces, case-folded, and a number without its leading
    zeros (all zeros stay as they are): the forms :func:`spelled_otherwise` compares, in
    passes of Python's string methods over all ids (a Python function called per id took
    0.43 s for 100,000 queries)."""
    folded = [t.strip().casefold() for t in texts]
    return [(t.lstrip("0") or t) if t.isdigit() else t for t in folded]


def truth_hint(given: Any, *, classifiers: bool = False) -> str:
    """How to make a truth of ``given``, for the error that refuses it (empty when there is no
    obvious way): a truth model fitted on labels or rankings, qrels from pytrec_eval's nested
    dicts or from a table (for ``classifiers``, only the truths a classifier evaluation takes).

    Examples
    --------
    >>> truth_hint({"q1": {"d1": 1}})
    ": build qrels from pytrec_eval's {query: {document: grade}} with Qrels.from_dict(...)"
    """
    kind = type(given).__name__
    if type_label(given) == "ranx.Qrels":
        return ": ranx's Qrels is Qrels.from_dict(qrels.to_dict()) here"
    if kind == "Annotations":
        return (": fit a truth model on it first, e.g. fit_truth(annotations) (the annotators' "
                'shares) or fit_truth(annotations, "dawid-skene")')
    if kind == "Rankings":
        return ': fit a truth model on it first, fit_truth(rankings, "irn") or "prirn"'
    if isinstance(given, Mapping):
        return (": build qrels from pytrec_eval's {query: {document: grade}} with "
                "Qrels.from_dict(...)")
    if isinstance(given, str | os.PathLike):
        qrels = "read_trec_qrels(path)" if classifiers else (
            "read_trec_qrels(path), read_probabilistic_qrels(path)")
        return (f": read the file first: {qrels} or read_annotations(path, taxonomy=...) "
                "then fit_truth")
    if {"query_id", "doc_id", "relevance"} <= set(record_fields(given)):
        return (": records of (query_id, doc_id, relevance), as ir_datasets' qrels_iter() "
                "gives them, are Qrels.from_dataframe(pd.DataFrame(records))")
    if classifiers and (kind in ("list", "tuple", "Series") or (
            kind == "ndarray" and np.ndim(given) == 1)):
        return (": hard labels, one per item, are a crisp truth: Membership.from_labels("
                "dict(zip(items, labels)), taxonomy=Taxonomy.flat(classes))")
    if kind == "DataFrame":
        tables = ("Qrels.from_dataframe (plausible label sets)" if classifiers else
                  "Qrels.from_dataframe (grades), ProbabilisticQrels.from_dataframe "
                  "(probabilities of relevance)")
        return (f": build the truth from the table first: {tables} or Annotations.from_frame "
                "(annotators' labels, then fit_truth)")
    return ""


def as_truth(
    truth: Any,
    *,
    query_categories: Mapping[Hashable, Hashable] | None = None,
    weights: str = "direct",
    exclude_query: bool = True,
    world_model: str = "annotator",
) -> BoundTruth:
    """``truth`` bound to the evaluation's options, after checking it is a :class:`Truth`."""
    if not isinstance(truth, Truth):
        raise ValueError(
            "truth must be a Membership, a fitted truth model, a ProbabilisticQrels or a "
            f"Qrels; got {type_label(truth)} (or any object implementing "
            f"fuzzytruth.truth.Truth){truth_hint(truth)}"
        )
    options = TruthOptions(query_categories, weights, exclude_query, world_model)
    return truth.bind(options)


def estimand_label(estimand: str, truth_model: str | None) -> str:
    """An estimand as the outputs print it: with the truth model that defines the truth.

    Examples
    --------
    >>> estimand_label("collection", "dawid-skene"), estimand_label("queries", None)
    ('collection (truth model: dawid-skene)', 'queries')
    """
    return estimand if truth_model is None else f"{estimand} (truth model: {truth_model})"


def split_estimand(label: str) -> tuple[str, str | None]:
    """The estimand and the truth model of a label printed by :func:`estimand_label`.

    Examples
    --------
    >>> split_estimand("population (truth model: mace)"), split_estimand("queries")
    (('population', 'mace'), ('queries', None))
    """
    base, sep, model = label.partition(" (truth model: ")
    return (base, model[:-1]) if sep and model.endswith(")") else (label, None)
