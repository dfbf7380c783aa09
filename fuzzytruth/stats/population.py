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
   picks ``"shared"`` when some annotator labelled more than one item. The draws are keyed
   by (seed, replicate, item, slot) (:mod:`fuzzytruth.stats._annotator_resampling`);
2. rebuilds the membership from those labels (the annotators' shares,
   :meth:`fuzzytruth.Membership.from_annotations`) and every measure for every system (each
   query's expected score over the relabelled truth, as :func:`fuzzytruth.evaluate` computes
   it); with ``truth_model`` (Dawid–Skene...), it refits the model on those labels instead,
   so the estimand includes the model's fitting uncertainty ("population (truth model: M)"):
   each drawn annotator keeps one identity across the items (the k-th copy of an annotator
   drawn several times is one more annotator who labels alike). Partial rankings
   (:class:`~fuzzytruth.io.rankings.Rankings`) are resampled reader by reader within each case,
   a drawn reader bringing its whole ranking, and IRN or PrIRN is refitted on them
   ("population (truth model: irn)"); the other models read the readers' top groups;
3. resamples the queries with replacement, one count vector shared by all systems and
   measures (paired), keyed by the replicate.

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

Cost (:mod:`fuzzytruth.stats._population_replicates`): replicates are computed in blocks
sized from ``memory_budget``, and any block gives the same numbers as the whole (here or on
a cluster). The measures with an exact form (P@k, R@k, Success@k, RR, F, E, the counts) are
computed for a whole block at once: resampling annotators reweights each item's label
counts, so a block's shares are one sparse product and the exact forms run on (replicate,
component) rows — no labels written out, no worlds drawn. ``benchmarks/population.py``
(B = 1,000, CPU time of the whole call with the observed evaluation, on a shared machine at
load 3-7): P@10 on 240 items × 5 annotators × 25 queries 0.12-0.15 s (nested or crossed,
given or own categories; the general path 16-17 s), on 1,000 items × 20 annotators × 50
queries 0.68 s; P@10, R@10, Success@10 and RR together on 1,000 × 20 × 50 take 3.9-4.7 s on
every shape (flat, deep or wide taxonomy, given or own categories), 20-170 × faster than the
general path. Only the (item, node) cells some label reaches get a share, the counts by share
are sparse rows, and P, Success and RR give their means without their laws. The
others (AP, nDCG, R-prec...) take ``n_worlds`` worlds per replicate, keyed by the replicate:
a replicate's worlds read its labels through the items' direct shares only, so a block's
replicates are stacked on one world axis and the world engine runs once per block
(:mod:`fuzzytruth.stats._population_worlds`; at load 1.1-1.4, AP beside P@10 on 240 × 5 × 25
2.5-3.2 s, AP and nDCG@10 or R-prec on 1,000 × 20 × 50 8.6-9.8 s, where one ``evaluate()``
per replicate took 18-85 s).
A classifier's measures need no worlds under the shares, but for the statistics of the whole
collection read against the label: an exact measure's mean is the item's shares times the
kernel's values at its labels, computed once, and a measure read against the shares is one
kernel call with the block's replicates as its rows
(:mod:`fuzzytruth.stats._population_classifiers`; ``benchmarks/population.py``, Acc, CE and
Brier, 5 annotators per item, 1,000 replicates: 0.094 s on 100 items × 3 classes, where one
``evaluate()`` per replicate takes 18 s; 14.4 s on 10,000 × 10 classes, 292 s that way).
Under a refitted truth model, and for the classifiers' statistics of the whole collection read
against the label (ECE, soft micro-F1...), every replicate costs one
:func:`~fuzzytruth.evaluate` on its written-out labels. Every path gives the numbers of that
one evaluation per replicate on the same replicates (to 1e-12, tested for every registered
family). What is kept per measure is ``(B, n_systems)`` means and ``(B, n_systems,
n_systems)`` second moments.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from fuzzytruth._progress import track
from fuzzytruth._random import draw_seed, named_stream, recorded_seed
from fuzzytruth._resampling import (
    BLOCK_RUNNER,
    MEMORY_BUDGET,
    QueryCounts,
    replicate_blocks,
    run_blocks,
)
from fuzzytruth._warnings import warn
from fuzzytruth.stats._annotator_resampling import AnnotatorResampler
from fuzzytruth.stats._population_replicates import plan_population, replicate_block
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
    seed : int or None
        The ``rng`` given to :func:`annotator_bootstrap` when it was an int (or a SeedSequence
        of one), which draws the same replicates again; None when not recorded.
    """

    scores: dict[str, ScoreMatrix]
    replicates: dict[str, np.ndarray] = field(repr=False)
    annotators_only: dict[str, np.ndarray] = field(repr=False)
    _gram: dict[str, np.ndarray] = field(repr=False)
    # The replicates' query counts, drawn again from their keys when asked.
    _counts: QueryCounts = field(repr=False)
    n_resamples: int = 0
    annotators: str = "shared"
    truth_model: str | None = None
    seed: int | None = None

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
    memory_budget: float = MEMORY_BUDGET,
    rng: np.random.Generator | int | None = None,
    progress: bool | None = None,
    truth_model: object | None = None,
) -> PopulationScores:
    """Two-stage bootstrap replicates (queries, and annotators within items) for every measure.

    Parameters
    ----------
    runs : Run or mapping of str to Run
        The systems, as for :func:`fuzzytruth.evaluate`.
    annotations : Annotations or Rankings
        The labels (:class:`fuzzytruth.Annotations`; its annotator weights are kept), or
        partial rankings (:class:`~fuzzytruth.io.rankings.Rankings`: readers are resampled
        within cases, ``annotators="auto"`` reading them as ``"within-items"`` since a
        selectors file numbers each case's readers from 0; ``truth_model`` ``"irn"`` or
        ``"prirn"`` refits on the drawn readers' rankings, the other models and the default
        read their top groups).
    measures : str or iterable of str
        Measures to rebuild in every replicate (the keys of the result are their canonical
        names, as in :func:`~fuzzytruth.evaluate`).
    n_resamples : int
        Number of replicates B (each draws ``n_worlds`` worlds for the measures without an
        exact form; see the module docstring). Each keeps ``8 (S² + 2S)`` bytes
        per measure for S systems; a B whose replicates cannot fit in this machine's memory
        is refused after the observed evaluation, before any replicate is drawn.
    annotators : {"auto", "shared", "within-items"}
        How annotators are resampled (see the module docstring).
    query_categories : mapping, optional
        Passed to :func:`~fuzzytruth.evaluate`.
    n_worlds : int
        Worlds per replicate for each query's expected score of the measures without an
        exact form (keyed as :func:`~fuzzytruth.evaluate` keys them; their Monte Carlo error
        is part of the replicate spread). The measures with one use none.
    memory_budget : float
        Bytes of working memory per block of replicates (what the block keeps, its stacked
        worlds' values included), and again for the world engine's blocks of queries × worlds
        within it (as in :func:`~fuzzytruth.evaluate`, whose budget it is on the general
        path).
    rng : numpy.random.Generator or int, optional
        Seed or generator; the annotator draws, the query counts and the worlds are keyed
        draws under one seed taken from it (independent streams), so a replicate's numbers do
        not depend on the block it is computed in.
    progress : bool, optional
        Progress bar over the blocks of replicates (the :mod:`fuzzytruth._progress`
        convention).
    truth_model : str or model, optional
        Refit this truth model on the labels of every replicate (a name of
        :data:`fuzzytruth.truth.models.TRUTH_MODELS` or a configured model,
        :func:`fuzzytruth.truth.models.fit_truth`), so that the population estimand includes
        the model's fitting uncertainty; default None: the annotators' shares as a membership.
        Replicates whose fit stops at its iteration limit are counted in one warning (fits
        run in other processes by a block runner are not counted).

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
    from fuzzytruth.annotations import Annotations, labels_hint
    from fuzzytruth.evaluation.engine import evaluate  # deferred: evaluate pulls in the metrics
    from fuzzytruth.io.rankings import Rankings
    from fuzzytruth.measures import parse_measures
    from fuzzytruth.truth.membership import Membership
    from fuzzytruth.truth.models.choice import RANKING_MODELS, Refitter

    if not isinstance(annotations, Annotations | Rankings):
        hint = (" (a Membership holds the shares, not the labels: pass the Annotations it was "
                "built from)" if isinstance(annotations, Membership) else labels_hint(annotations))
        raise ValueError(
            "annotations must be a fuzzytruth.Annotations (or Rankings), the labels the "
            f"bootstrap resamples; got {type(annotations).__name__}{hint}"
        )
    names = [str(m) for m in parse_measures(measures)]  # refuses none, like evaluate()
    n_resamples = check_n_resamples(n_resamples, minimum=2)
    check_choice("annotators", annotators, ANNOTATOR_SCHEMES)
    refit = Refitter(truth_model)  # truth_model: None, or refitted on every replicate
    if isinstance(annotations, Rankings) and (
            refit.model is None or refit.model.name not in RANKING_MODELS):
        annotations, annotators = annotations.annotations(), (
            "within-items" if annotators == "auto" else annotators)  # readers' top groups
    resampler = AnnotatorResampler(annotations)
    scheme = resampler.scheme if annotators == "auto" else annotators
    if scheme == "shared" and resampler.annotations_in.n_annotators < FEW_ANNOTATORS:
        warn(
            f"only {resampler.annotations_in.n_annotators} annotators shared across items: the "
            "annotator "
            "level of the population interval rests on that many clusters and under-covers "
            "(with 5 annotators, 86-94 % at 95 % for 10 to 100 queries on the labelling-only "
            "model of benchmarks/stats_validity.py, 400 data sets per cell, MC SE 1.5 %; "
            "other designs differ)",
            UnreliableInferenceWarning,
        )
    given_seed = recorded_seed(rng)
    seed = draw_seed(rng)
    observed = evaluation_scores(evaluate(
        runs, refit.truth(annotations), names, query_categories=query_categories,
        n_worlds=n_worlds, rng=named_stream(seed, "worlds"), memory_budget=memory_budget,
        progress=False))
    first = next(iter(observed.values()))
    n_systems = len(first.systems)  # kept per replicate and measure: 2 means, second moments
    check_n_resamples(n_resamples, minimum=2,
                      bytes_per_resample=8 * len(names) * n_systems * (n_systems + 2))
    plan = plan_population(runs, resampler, names, scheme=scheme, seed=seed,
                           query_categories=query_categories, n_worlds=n_worlds,
                           memory_budget=memory_budget,
                           membership_of=None if _is_shares(refit.model) else refit.truth,
                           observed=(first.systems, first.queries))
    blocks = replicate_blocks(n_resamples, plan.bytes_per_replicate(), memory_budget)
    if BLOCK_RUNNER.get() is None:
        parts = [replicate_block(plan, a, b) for a, b in track(
            blocks, desc="population bootstrap", unit="blocks", progress=progress)]
    else:
        parts = run_blocks(replicate_block, plan, blocks)
    columns = [np.concatenate(c) for c in zip(*parts, strict=True)]
    replicates = dict(zip(plan.measures, columns[0::3], strict=True))
    annotators_only = dict(zip(plan.measures, columns[1::3], strict=True))
    gram = dict(zip(plan.measures, columns[2::3], strict=True))
    return PopulationScores(
        scores={
            m: ScoreMatrix(sm.averaged, systems=sm.systems, queries=sm.queries, measure=m,
                           unit=sm.unit)
            for m, sm in observed.items()
        },
        replicates=replicates,
        annotators_only=annotators_only,
        _gram=gram,
        _counts=QueryCounts(plan.seed, plan.n_queries, n_resamples, memory_budget),
        n_resamples=n_resamples,
        annotators=scheme,
        truth_model=refit.warn_and_name(n_resamples + 1),  # the observed labels too
        seed=given_seed,
    )


def _is_shares(model: object | None) -> bool:
    """No model, or the shares model itself: its fit is the annotators' shares, bit for bit,
    which the fast path computes without refitting."""
    from fuzzytruth.truth.models.shares import Shares

    return model is None or type(model) is Shares
