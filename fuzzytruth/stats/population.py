"""The annotator-population estimand: a two-stage bootstrap over queries and annotators.

*The annotator population* is the difference expected over new queries **and new annotators
of the same kind**: the labels are one draw of a random annotation process, not a fixed
fact. Its replicates resample both levels (two-stage bootstrap; Davison & Hinkley 1997
§3.8, Field & Welsh 2007, Ren et al. 2010): each replicate

1. resamples the annotators. ``annotators="shared"`` (crossed designs, where the same
   annotators label many items): the pool of annotators is resampled with replacement once
   per replicate and every item keeps the labels of the drawn annotators who labelled it, an
   annotator drawn twice counting twice (an item none of whose annotators was drawn keeps its
   labels); this carries an annotator's leniency across the items, as a crossed design does.
   ``annotators="within-items"`` (nested designs, fresh annotators per item): within every
   item, as many of its annotators as it had are drawn with replacement. ``"auto"`` (default)
   picks ``"shared"`` when some annotator labelled more than one item;
2. rebuilds the membership from those labels (:meth:`fuzzytruth.Membership.from_annotations`)
   and every measure for every system with :func:`fuzzytruth.evaluate` (each query's expected
   score over the relabelled truth); with ``truth_model`` (Dawid–Skene...), it refits the model
   on those labels instead, so the estimand includes the model's fitting uncertainty
   ("population (truth model: M)"): each drawn annotator keeps one identity across the items
   (the k-th copy of an annotator drawn several times is one more annotator who labels alike);
3. resamples the queries with replacement, one count vector shared by all systems and
   measures (paired).

Validity (``benchmarks/stats_validity.py``, table 5: the labelling-only model of
:mod:`fuzzytruth.stats._simulation_population`, 5 annotators, 10 to 100 queries, 400 data
sets per cell, B = 499, 95 % intervals, Monte Carlo SE about 1.5 %): with nested annotators
the query-only interval already covers the population difference (94.5–95.5 %) and both
two-stage schemes cover 95.5–98 %; with the same 5 annotators on every item the query-only
interval covers 46–89 % (the more queries, the worse: the shared annotator effect does not
average out), the within-item scheme 50–93 %, and the shared scheme 86.5–94 % with the
percentile interval (83–96 % studentised), falling as queries grow (86.5 % at 100): with few
annotators the annotator level rests on few clusters (a warning says so below
:data:`FEW_ANNOTATORS` annotators). These are one model's figures; other designs give others.
The percentile interval is the default for this estimand in :func:`~fuzzytruth.stats.compare`
because it covered best in the crossed design from 25 queries on.

The replicate means feed the same interval and test code as the query bootstrap
(:class:`~fuzzytruth.stats.BootstrapResult`: percentile, basic and studentised; BCa needs a
jackknife over both levels and is not offered). The variance it estimates is the query
sampling variance *plus* the annotator sampling variance; ``var_truth`` is the variance of
the replicates in which only the annotators moved (queries held at one copy each), 0 when the
systems' scores do not depend on the labels.

Cost: one :func:`~fuzzytruth.evaluate` per replicate, vectorised over systems, queries,
measures and worlds inside it and bounded by its ``memory_budget``; what is kept per measure
is ``(B, n_systems)`` means and ``(B, n_systems, n_systems)`` second moments.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fuzzytruth._progress import track
from fuzzytruth._random import draw_seed, index_counts, named_stream
from fuzzytruth._resampling import BOOTSTRAP_STREAM
from fuzzytruth.stats._validation import check_choice, check_n_resamples
from fuzzytruth.stats.bootstrap import BootstrapResult
from fuzzytruth.stats.procedures import UnreliableInferenceWarning
from fuzzytruth.stats.scores import ScoreMatrix, evaluation_scores
from fuzzytruth.stats.worlds import UncertaintyDecomposition

ANNOTATOR_SCHEMES = ("auto", "shared", "within-items")
#: Below this many annotators shared across items the population interval gets a warning.
FEW_ANNOTATORS = 20


@dataclass(frozen=True, eq=False)
class PopulationScores:
    """Replicates of the two-stage bootstrap, per measure; the input of :func:`compare`.

    Attributes
    ----------
    scores : dict of str to ScoreMatrix
        Each query's expected score under the observed labels (the estimate's input).
    replicates : dict of str to numpy.ndarray
        ``(B, n_systems)`` replicate means (queries and annotators resampled).
    annotators_only : dict of str to numpy.ndarray
        ``(B, n_systems)`` means of the same replicates over every query once (only the
        annotators resampled).
    n_resamples : int
        B.
    annotators : str
        The annotator resampling scheme used (``"shared"`` or ``"within-items"``).
    truth_model : str or None
        The truth model refitted in every replicate (named beside the estimand), or None for
        the annotators' shares as a membership.
    """

    scores: dict[str, ScoreMatrix]
    replicates: dict[str, np.ndarray] = field(repr=False)
    annotators_only: dict[str, np.ndarray] = field(repr=False)
    _gram: dict[str, np.ndarray] = field(repr=False)
    _counts: np.ndarray = field(repr=False)
    n_resamples: int = 0
    annotators: str = "shared"
    truth_model: str | None = None

    def bootstrap(self, measure: str, pairs: np.ndarray) -> BootstrapResult:
        """The replicates of ``measure`` as a :class:`BootstrapResult` over ``pairs``."""
        x = self.scores[measure].values
        mean = x.mean(axis=1)
        return BootstrapResult(
            mean=mean,
            difference=mean[pairs[:, 0]] - mean[pairs[:, 1]],
            pairs=pairs,
            bootstrap_distribution=self.replicates[measure],
            _scores=x,
            _counts=None,
            _gram=self._gram[measure],
        )

    def decomposition(self, measure: str, pairs: np.ndarray) -> UncertaintyDecomposition:
        """Two-stage variance split into query sampling and annotator sampling, per pair."""
        a, b = pairs[:, 0], pairs[:, 1]
        both = self.replicates[measure]
        only = self.annotators_only[measure]
        var_total = (both[:, a] - both[:, b]).var(axis=0, ddof=1)
        spread = (only[:, a] - only[:, b]).std(axis=0, ddof=1)
        var_truth = np.minimum(spread**2, var_total)
        return UncertaintyDecomposition(
            var_queries=var_total - var_truth, var_truth=var_truth, spread_truth=spread
        )


def annotator_bootstrap(
    runs: object,
    annotations: object,
    measures: str | Iterable[str],
    *,
    n_resamples: int = 1000,
    annotators: str = "auto",
    query_categories: Mapping[Hashable, Hashable] | None = None,
    n_worlds: int = 200,
    memory_budget: float = 200e6,
    rng: np.random.Generator | int | None = None,
    progress: bool | None = None,
    truth_model: object | None = None,
) -> PopulationScores:
    """Two-stage bootstrap replicates (queries, and annotators within items) for every measure.

    Parameters
    ----------
    runs : Run or mapping of str to Run
        The systems, as for :func:`fuzzytruth.evaluate`.
    annotations : Annotations
        The labels (:class:`fuzzytruth.Annotations`); its annotator weights are kept.
    measures : str or iterable of str
        Measures to rebuild in every replicate.
    n_resamples : int
        Number of replicates B (each costs one :func:`~fuzzytruth.evaluate`).
    annotators : {"auto", "shared", "within-items"}
        How annotators are resampled (see the module docstring).
    query_categories : mapping, optional
        Passed to :func:`~fuzzytruth.evaluate`.
    n_worlds : int
        Worlds per replicate for each query's expected score (passed to
        :func:`~fuzzytruth.evaluate`; its Monte Carlo error is part of the replicate spread).
    memory_budget : float
        Bytes of working memory per replicate (passed to :func:`~fuzzytruth.evaluate`).
    rng : numpy.random.Generator or int, optional
        Seed or generator; the annotator draws, the query counts and the worlds come from
        independent child streams.
    progress : bool, optional
        Progress bar over the replicates (the :mod:`fuzzytruth._progress` convention).
    truth_model : str or model, optional
        Refit this truth model on the labels of every replicate (a name of
        :data:`fuzzytruth.truth.models.TRUTH_MODELS` or a configured model,
        :func:`fuzzytruth.truth.models.fit_truth`), so that the population estimand includes
        the model's fitting uncertainty; default None: the annotators' shares as a membership.
        Replicates whose fit stops at its iteration limit are counted in one warning.

    Returns
    -------
    PopulationScores
        Feed it to :func:`~fuzzytruth.stats.compare` (estimand ``"population"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from fuzzytruth import Annotations, Run, Taxonomy
    >>> tax = Taxonomy.from_nested({"all": {"cat": None, "dog": None}})
    >>> labels = pd.DataFrame({
    ...     "item_id": [f"i{k}" for k in range(6) for _ in range(3)],
    ...     "annotator_id": ["a", "b", "c"] * 6,
    ...     "label": ["cat", "cat", "dog", "dog", "dog", "cat", "cat", "cat", "cat",
    ...               "dog", "cat", "dog", "cat", "dog", "dog", "dog", "dog", "dog"]})
    >>> ann = Annotations.from_frame(labels, taxonomy=tax)
    >>> docs = [f"i{k}" for k in range(6)]
    >>> runs = {name: Run(np.repeat(["i0", "i1", "i2"], 6), np.tile(order, 3),
    ...                   np.tile(np.arange(6.0, 0, -1), 3), name=name)
    ...         for name, order in (("A", docs), ("B", docs[::-1]))}
    >>> pop = annotator_bootstrap(runs, ann, "P@2", n_resamples=20, n_worlds=50,
    ...                           annotators="within-items", rng=0)
    >>> pop.replicates["P@2"].shape
    (20, 2)
    """
    from fuzzytruth.annotations import Annotations
    from fuzzytruth.evaluation.engine import evaluate  # deferred: evaluate pulls in the metrics
    from fuzzytruth.truth.membership import Membership

    if not isinstance(annotations, Annotations):
        hint = (" (a Membership holds the shares, not the labels: pass the Annotations it was "
                "built from)" if isinstance(annotations, Membership) else "")
        raise ValueError(
            "annotations must be a fuzzytruth.Annotations, the labels the bootstrap "
            f"resamples; got {type(annotations).__name__}{hint}"
        )
    names = [measures] if isinstance(measures, str) else [str(m) for m in measures]
    if not names:
        raise ValueError("measures must name at least one measure (a string or an iterable "
                         f"of strings); got {measures!r}")
    n_resamples = check_n_resamples(n_resamples, minimum=2)
    check_choice("annotators", annotators, ANNOTATOR_SCHEMES)
    relabel = _AnnotatorResampler(annotations)
    scheme = relabel.scheme if annotators == "auto" else annotators
    if scheme == "shared" and annotations.n_annotators < FEW_ANNOTATORS:
        warnings.warn(
            f"only {annotations.n_annotators} annotators shared across items: the annotator "
            "level of the population interval rests on that many clusters and under-covers "
            "(with 5 annotators, 86-94 % at 95 % for 10 to 100 queries on the labelling-only "
            "model of benchmarks/stats_validity.py, 400 data sets per cell, MC SE 1.5 %; "
            "other designs differ)",
            UnreliableInferenceWarning,
            stacklevel=2,
        )
    from fuzzytruth.truth.models.choice import Refitter  # deferred, as evaluate is

    refit = Refitter(truth_model)  # truth_model: None, or refitted on every replicate
    seed = draw_seed(rng)
    annot_rng, count_rng, world_seed = (named_stream(seed, "population", i) for i in range(3))

    def expected_scores(truth: object, world_rng: np.random.Generator) -> dict:
        ev = evaluate(runs, truth, names, query_categories=query_categories,
                      n_worlds=n_worlds, rng=world_rng, memory_budget=memory_budget,
                      progress=False)
        return evaluation_scores(ev)

    observed = expected_scores(refit.truth(annotations), world_seed)
    first = observed[names[0]]
    n_systems, n_queries = first.averaged.shape
    counts = index_counts(draw_seed(count_rng), BOOTSTRAP_STREAM, n_queries,
                          np.arange(n_resamples))
    weights = counts / n_queries
    replicates = {m: np.empty((n_resamples, n_systems)) for m in names}
    annotators_only = {m: np.empty((n_resamples, n_systems)) for m in names}
    gram = {m: np.empty((n_resamples, n_systems, n_systems)) for m in names}
    for b in track(range(n_resamples), desc="population bootstrap", unit="replicates",
                   progress=progress):
        truth = refit.truth(relabel.draw(annot_rng, scheme, identities=refit.model is not None))
        for m, sm in expected_scores(truth, world_seed).items():
            f = sm.averaged  # (n_systems, n_queries)
            w = weights[b]
            replicates[m][b] = f @ w
            annotators_only[m][b] = f.mean(axis=1)
            gram[m][b] = (f * w) @ f.T
    return PopulationScores(
        scores={
            m: ScoreMatrix(sm.averaged, systems=sm.systems, queries=sm.queries, measure=m)
            for m, sm in observed.items()
        },
        replicates=replicates,
        annotators_only=annotators_only,
        _gram=gram,
        _counts=counts,
        n_resamples=n_resamples,
        annotators=scheme,
        truth_model=refit.warn_and_name(n_resamples + 1),  # the observed labels too
    )


class _AnnotatorResampler:
    """Draws annotations with each item's annotators resampled with replacement."""

    def __init__(self, annotations: object) -> None:
        from fuzzytruth.annotations import Annotations

        self._annotations: Annotations = annotations
        item, annot, label, weight = annotations.codes()
        self._label = label
        self._weight = weight
        self._item = item
        # one entry per (item, annotator): its rows, grouped by item
        key = item.astype(np.int64) * annotations.n_annotators + annot
        order = np.argsort(key, kind="stable")
        uniq, first_row, rows_per_pair = np.unique(
            key[order], return_index=True, return_counts=True
        )
        self._order = order
        self._pair_first = first_row
        self._pair_rows = rows_per_pair
        self._pair_item = (uniq // annotations.n_annotators).astype(np.int64)
        self._pair_annot = (uniq % annotations.n_annotators).astype(np.int64)
        self._per_item = np.bincount(self._pair_item, minlength=annotations.n_items)
        self._item_start = np.concatenate([[0], np.cumsum(self._per_item)[:-1]])
        self._items = annotations.items.to_numpy()
        self._nodes = np.asarray(annotations.taxonomy.nodes, dtype=object)

    def _identities(self, pick: np.ndarray) -> np.ndarray:
        """Per drawn (item, annotator) pair, the annotator's code and copy number (its rank
        among the draws of the same pair) in one integer."""
        order = np.argsort(pick, kind="stable")
        start = np.r_[0, np.flatnonzero(np.diff(pick[order])) + 1]
        copy = np.empty(len(pick), dtype=np.int64)
        copy[order] = np.arange(len(pick)) - np.repeat(start, np.diff(np.r_[start, len(pick)]))
        return self._pair_annot[pick] * (int(copy.max(initial=0)) + 1) + copy

    @property
    def scheme(self) -> str:
        """``"shared"`` when some annotator labelled more than one item, else within items."""
        return "shared" if np.any(np.bincount(self._pair_annot) > 1) else "within-items"

    def draw(self, rng: np.random.Generator, scheme: str, *, identities: bool = False) -> object:
        """One replicate's annotations. Each drawn (item, annotator) pair is its own annotator
        (shares need no more); with ``identities`` (what a truth model refitted on the labels
        needs) the k-th copy of annotator a on an item is annotator (a, k) on every item."""
        from fuzzytruth.annotations import Annotations

        if scheme == "within-items":
            # slot s of item i picks one of the item's annotators uniformly
            slot_item = self._pair_item
            pick = self._item_start[slot_item] + np.floor(
                rng.random(len(slot_item)) * self._per_item[slot_item]
            ).astype(np.int64)
        else:
            n_pool = self._annotations.n_annotators
            mult = np.bincount(rng.integers(0, n_pool, size=n_pool), minlength=n_pool)
            times = mult[self._pair_annot]
            kept = np.bincount(self._pair_item, weights=times, minlength=len(self._per_item))
            times = np.where(kept[self._pair_item] > 0, times, 1)  # nobody drawn: keep as is
            pick = np.repeat(np.arange(len(times)), times)
        n_rows = self._pair_rows[pick]
        starts = np.repeat(self._pair_first[pick], n_rows)
        within = np.arange(n_rows.sum()) - np.repeat(np.cumsum(n_rows) - n_rows, n_rows)
        rows = self._order[starts + within]
        slot = np.repeat(np.arange(len(pick)), n_rows)
        frame = pd.DataFrame(
            {
                "item_id": self._items[self._item[rows]],
                "annotator_id": self._identities(pick)[slot] if identities else slot,
                "label": self._nodes[self._label[rows]],
                "weight": self._weight[rows],
            }
        )
        return Annotations(frame, self._annotations.taxonomy)
