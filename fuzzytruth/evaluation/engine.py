"""evaluate(): every measure of the registry, under crisp or uncertain ground truth, one path.

The ground truth is one of (:mod:`fuzzytruth.truth`)

* a crisp :class:`~fuzzytruth.runs.Qrels` — every value is a point (``method="crisp"``);
* a :class:`~fuzzytruth.truth.probabilistic_qrels.ProbabilisticQrels` (each judged
  (query, document) relevant independently with a probability, e.g. the share of assessors);
* a :class:`~fuzzytruth.truth.membership.Membership` (categorical: annotators put items in a
  taxonomy; a document is relevant when it belongs to the query's category);
* a fitted truth model (:mod:`fuzzytruth.truth.models`: ``DawidSkene().fit(annotations)``...):
  the categorical truth of its posterior, its worlds drawn by the model's own sampler, the
  model named beside the estimand (``conventions["truth_model"]``, the ``estimand`` column).

Each run is ranked once (:func:`fuzzytruth.runs.rank`: the preset's tie rule and score
precision), its documents are looked up in the truth, and each measure's *family* says how its
value is computed (:mod:`fuzzytruth.measures`); nothing here depends on a family's name:

* crisp truth: the family's kernel on the ranked grades;
* uncertain truth, ``method="auto"`` (default): the family's exact distribution when it has one
  and the ranking is strict (``method`` column ``"exact"``: P@k, R@k, Success@k, RR, F_β, E_β
  under independent relevance; a query with an uncertain category mixes over its categories),
  otherwise Monte Carlo over sampled crisp worlds (``"worlds"``), through the family's fast 0/1
  kernel when it has one (``"worlds_binary"``) and its crisp kernel otherwise. ``"exact"``
  requires a closed form, ``"worlds"`` never uses one. A truth whose worlds are not independent
  items with the truth's probabilities (a label model drawing shared parameters,
  :mod:`fuzzytruth.truth.models.base`) has no closed form: every measure comes from its worlds.

The worlds (``n_worlds``, default 1000) are shared by every system and measure: they give the
spread of each system's aggregate value over the truth (queries share items under categorical
truth, so the mean's law needs the joint law) and the input of :mod:`fuzzytruth.stats`.

Rules (one name each, the same in every output — per-query table, :meth:`Evaluation.aggregate`,
:meth:`Evaluation.query_means`, :meth:`Evaluation.world_scores`, ``compare()``, the CLI):

* ``undefined="zero"`` (default, trec_eval's): where a measure is undefined (no relevant
  document: AP, R, nDCG...; a category with no other member) the query still counts and scores
  the family's ``undefined_value`` (0; 1 for E). ``"skip"``: the query is left out of that
  measure's aggregate (per world under uncertain truth); ``n_queries`` says how many were
  averaged. The per-query table always reports ``p_undefined``.
* ``missing="skip"`` (default, trec_eval's): queries of the runs that the truth does not know
  are not evaluated, with a warning naming them; ``"error"`` raises.
* ``complete=False`` (default): queries are those of the runs; ``True`` (``trec_eval -c``) adds
  every query the truth judges, scored as an empty list by systems that did not answer it. A
  system without results for an evaluated query always scores an empty list there.
* ``exclude_query=True``: under categorical truth a query item is not relevant to itself (shape
  benchmarks). With False, a query whose target is its own uncertain category (direct weights)
  finds itself relevant: each component of its mixture is one of its labels, as in the
  annotator worlds (under ``world_model="bernoulli"`` the item is drawn independently of the
  query's target, in the exact forms as in the worlds).
* ``recall_form="exact"``: R is TP/(TP+FN), the crisp kernel's recall; ``"expected_size"`` is
  Santini's printed TP/E|ω| (eq. 12; exact form only).
* presets may rename a family (``crossmodal``: ``R@K`` is the community's R@K, i.e. Success@K)
  and leave out queries with too few relevant documents from every aggregate (``psb``: classes
  of fewer than 3 models); see :mod:`fuzzytruth.presets`. Under uncertain truth that rule is
  decided world by world, as ``undefined="skip"`` is: a query enters a world's aggregate when
  it has enough relevant documents in that world, ``query_means`` are its expected values over
  the worlds where it enters, and ``n_queries`` is the expected number per world. A truth all
  of whose annotators agree then gives the crisp numbers.

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
  system query_id measure      mean         method
0    sys       q1     P@2  0.250000          exact
1    sys       q1      AP  0.457333  worlds_binary
>>> ev.distribution("sys", "q1", "P@2").to_frame()
   value  probability
0    0.0          0.5
1    0.5          0.5
>>> ev.distribution("sys", "q1", "AP").support.round(4).tolist()   # b relevant or not
[0.3333, 0.5833]
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from fuzzytruth._progress import Progress, progress_enabled
from fuzzytruth._random import as_generator, draw_seed, recorded_seed
from fuzzytruth._resampling import MEMORY_BUDGET, length_blocks
from fuzzytruth._validation import (
    check_choice,
    check_confidence_level,
    check_flag,
    check_int,
    check_memory_budget,
    check_n_worlds,
    text_names,
)
from fuzzytruth._warnings import warn
from fuzzytruth.classify.predictions import is_classifier_input
from fuzzytruth.evaluation.result import Evaluation, QueryPart, joined_columns, query_placement
from fuzzytruth.evaluation.undefined import UNDEFINED, Undefined
from fuzzytruth.measures import (
    Measure,
    Preset,
    get_preset,
    parse_measures,
    positive_float,
)
from fuzzytruth.metrics.base import judged_only as judged_only_gains
from fuzzytruth.metrics.base import truncate_grades
from fuzzytruth.runs import Ranking, Run, check_runs, rank
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.categorical import UNUSED_CATEGORIES
from fuzzytruth.truth.membership import Membership
from fuzzytruth.truth.preferences import Preferences
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels
from fuzzytruth.truth.protocol import BoundTruth, PreparedTruth, as_truth, check_world_model
from fuzzytruth.truth.qrels import Qrels
from fuzzytruth.uncertain.batch import DeferredBatch, DistributionBatch
from fuzzytruth.uncertain.closed_form import RECALL_FORMS, ExactInput
from fuzzytruth.uncertain.worlds import (
    RankedDocs,
    binary_route,
    kernel_params,
    world_values,
)

__all__ = ["MISSING", "PARTIAL", "UNANSWERED", "UNDEFINED", "evaluate", "evaluated_queries",
           "exact_input", "rank_runs", "warn_if_partial", "warn_if_unanswered"]

METHODS = ("auto", "exact", "worlds")
MISSING = ("skip", "error")


def evaluate(
    runs: Run | Mapping[str, Run],
    truth: Membership | ProbabilisticQrels | Qrels,
    measures: str | Measure | Iterable[str | Measure],
    *,
    preset: str | Preset = "trec",
    undefined: str = "zero",
    missing: str = "skip",
    complete: bool = False,
    depth: int | None = None,
    relevance_level: float | None = None,
    n_docs_in_collection: int | None = None,
    judged_only: bool = False,
    query_categories: Mapping[Hashable, Hashable] | None = None,
    weights: str = "direct",
    method: str = "auto",
    n_worlds: int = 1000,
    world_model: str = "annotator",
    rng: np.random.Generator | int | None = None,
    confidence_level: float = 0.95,
    recall_form: str = "exact",
    exclude_query: bool = True,
    ties: str | None = None,
    score_dtype: str | None = None,
    memory_budget: float = MEMORY_BUDGET,
    progress: bool | None = None,
) -> Evaluation:
    """Evaluate one or several systems under crisp or uncertain ground truth.

    Parameters
    ----------
    runs : Run or mapping of str to Run, or Predictions or mapping of str to Predictions
        One run (named by ``run.name``) or systems by name; or classifiers
        (:class:`~fuzzytruth.classify.Predictions`), evaluated item by item with the
        classifier families (:mod:`fuzzytruth.evaluation.classifiers`: items play the
        queries; the options that rank runs do not apply).
    truth : Qrels, ProbabilisticQrels, Membership or FittedTruth
        Crisp qrels, probabilistic qrels, categorical uncertain truth, or a fitted truth model
        (``DawidSkene().fit(annotations)``; module docstring).
    measures : str, Measure or iterable of them
        Any registered measures (``"P@10"``, ``"AP"``, ``"nDCG@10"``, ``"FT"``...), canonical
        or in trec_eval / ir_measures spelling.
    preset : str or Preset
        Conventions for unset parameters, ties and score precision (default ``"trec"``:
        trec_eval 9.0.8).
    undefined : {"zero", "skip"}
        Where a measure is undefined: the query counts and scores the family's
        ``undefined_value`` (default, trec_eval), or is left out of the aggregate.
    missing : {"skip", "error"}
        Queries of the runs that the truth cannot answer: not evaluated, with a warning
        (default, trec_eval), or an error.
    complete : bool
        Also evaluate every query the truth judges that no run answers, as empty lists
        (``trec_eval -c``). Default False.
    depth : int, optional
        Only the top ``depth`` documents of each list are evaluated (``trec_eval -M``); under
        ``ties="average"`` it may not split a group of tied documents
        (:meth:`~fuzzytruth.runs.Ranking.truncate`).
    relevance_level : float, optional
        The grade from which a document is relevant, replacing the preset's ``rel``
        (``trec_eval -l``); a measure's own ``rel=`` still wins. With crisp qrels under a
        preset that reads grades as trec_eval does (``trec``, ``trec10``), a whole number.
    n_docs_in_collection : int, optional
        The documents in the collection (``trec_eval -N``), for the measures that count the
        non-relevant documents not retrieved, ``N + TP − retrieved − R`` (``Utility``'s ``d``
        weighs them), replacing the preset's ``n_docs`` (unset in every preset: the family's
        default 0, as trec_eval's); a measure's own ``n_docs=`` still wins, but for 0, the
        default, which a measure does not spell.
    judged_only : bool
        Crisp truth: unjudged documents are removed from each ranking before any measure
        (``trec_eval -J``; :func:`fuzzytruth.metrics.base.judged_only`). Default False. A
        list left empty scores as any empty list (``iP`` and ``11pt``: 0), where trec_eval
        computes 0/0 for some recall levels and prints ``-nan``; the CLI's trec format prints
        that (:func:`fuzzytruth.cli._trec.unset_precisions`).
    query_categories : mapping, optional
        Categorical truth: query id → target category. Queries not listed ask for their own
        (uncertain) category and must be items of the membership.
    weights : {"direct", "literal"}
        Mixture weights of a query's own category: the share of its annotators who chose each
        node directly (default) or Santini eq. 13–14 normalised
        (:func:`~fuzzytruth.uncertain.categorical.query_category_weights`).
    method : {"auto", "exact", "worlds"}
        Per-query distributions under uncertain truth (module docstring).
    n_worlds : int
        Monte Carlo worlds, shared by all systems and measures (0: none; then every measure
        needs a closed form and aggregates have no interval).
    world_model : {"annotator", "bernoulli"}
        How worlds are drawn (:mod:`fuzzytruth.uncertain.worlds`). Under a truth model's fit,
        ``"annotator"`` draws each item's label with the model's own sampler
        (:mod:`fuzzytruth.truth.categorical_worlds`).
    rng : numpy.random.Generator or int, optional
        The one source of randomness. An int seed (or a SeedSequence of one) is recorded on
        the result (:attr:`Evaluation.seed <fuzzytruth.evaluation.Evaluation.seed>`), which
        the reports print; a Generator or None leaves it unrecorded.
    confidence_level : float
        Default level of the intervals (0.95).
    recall_form : {"exact", "expected_size"}
        R as TP/(TP+FN) (default) or Santini's printed TP/E|ω| (exact form only).
    exclude_query : bool
        Categorical truth: a query item is not relevant to itself (default True).
    ties, score_dtype : str, optional
        Override the preset's tie policy and score precision (:func:`fuzzytruth.runs.rank`).
    memory_budget : float
        Bytes of working memory shared by the blocks of queries × worlds in flight (default
        :data:`~fuzzytruth._resampling.MEMORY_BUDGET`, 128 MB); the world values themselves
        (``n_measures × n_systems × n_worlds × n_queries`` float64) are kept on top. The
        blocks run on one thread per core (one inside a Dask worker; the environment
        variable ``FUZZYTRUTH_NUM_THREADS`` sets another number); the numbers depend on
        neither. Crisp truth's (queries × ranks) tables are made a block of queries of like
        lengths at a time within it, and so are an uncertain truth's when one list is far
        longer than the others (numbers equal to one table's to rounding).
    progress : bool, optional
        Progress bar on stderr while worlds are drawn: None (default) only when stderr is a
        terminal, True always, False never.

    Returns
    -------
    Evaluation

    Examples
    --------
    A query without relevant documents counts and scores 0 (trec_eval), or is left out:

    >>> run = Run(["q1", "q2"], ["a", "b"], [1.0, 1.0])
    >>> qrels = Qrels(["q1", "q2"], ["a", "b"], [1, 0])
    >>> evaluate(run, qrels, ["AP", "P@1"]).aggregate()[["measure", "value", "n_queries"]]
      measure  value  n_queries
    0      AP    0.5          2
    1     P@1    0.5          2
    >>> evaluate(run, qrels, "AP", undefined="skip").aggregate()[["value", "n_queries"]]
       value  n_queries
    0    1.0          1

    Utility worth 1 per non-relevant document left out of a collection of 10 (``trec_eval
    -N 10``): q1 retrieves its relevant document (1 + 9), q2 a non-relevant one (-1 + 9):

    >>> evaluate(run, qrels, "Utility(d=1)", n_docs_in_collection=10).to_frame()["mean"].tolist()
    [10.0, 8.0]
    """
    check_choice("method", method, METHODS)
    check_choice("missing", missing, MISSING)
    undefined = Undefined.of(undefined)
    check_choice("recall_form", recall_form, RECALL_FORMS)
    complete = check_flag("complete", complete)
    judged_only = check_flag("judged_only", judged_only)
    progress_enabled(progress)  # checks it now: a crisp evaluation draws no bar
    check_world_model(world_model)
    confidence_level = check_confidence_level(confidence_level)
    n_worlds = check_n_worlds(n_worlds)
    seed = recorded_seed(rng)
    rng = as_generator(rng)
    p = get_preset(preset)
    overrides: dict[str, float | int] = {}  # conventions of this evaluation, as the preset's
    if relevance_level is not None:
        try:
            overrides["rel"] = rel = positive_float(relevance_level)
        except ValueError as exc:
            raise ValueError(f"relevance_level {exc}") from None
    if n_docs_in_collection is not None:
        overrides["n_docs"] = check_int("n_docs_in_collection", n_docs_in_collection)
    if overrides:
        shown = ",".join(f"{k}={v:g}" for k, v in overrides.items())
        p = replace(p, params={**p.params, **overrides}, name=f"{p.name}({shown})")
    if depth is not None:
        depth = check_int("depth", depth, minimum=1)
    memory_budget = check_memory_budget(memory_budget)
    given = {"ties": ties, "score_dtype": score_dtype}  # for the classifier branch's checks
    ties = ties or p.ties
    score_dtype = score_dtype or p.score_dtype
    asked = parse_measures(measures, preset=p)
    names = [str(m) for m in asked]
    resolved = [m.resolve(p) for m in asked]
    if is_classifier_input(runs):  # items play the queries (fuzzytruth.evaluation.classifiers)
        # imported here: a retrieval evaluation does not load the classifier path
        from fuzzytruth.evaluation.classifiers import evaluate_predictions

        options = {
            "query_categories": query_categories, "weights": weights,
            "exclude_query": exclude_query, "recall_form": recall_form, "depth": depth,
            "relevance_level": relevance_level, "n_docs_in_collection": n_docs_in_collection,
            "judged_only": judged_only, **given,
            "world_model": world_model,
        }
        return evaluate_predictions(
            runs, truth, resolved, names, preset=p, undefined=undefined, missing=missing,
            complete=complete, method=method, n_worlds=n_worlds, rng=rng, recorded_seed=seed,
            confidence_level=confidence_level, memory_budget=memory_budget, progress=progress,
            options=options,
        )
    for name, m in zip(names, resolved, strict=True):
        if m.family.reads != "ranking":
            raise ValueError(
                f"measure {name!r} reads a classifier's predictions; evaluate a "
                "fuzzytruth.classify.Predictions (or a mapping of them) with it, not runs"
            )

    if isinstance(truth, Preferences):
        raise ValueError(
            "truth is a Preferences (preference judgments): evaluate it with "
            "fuzzytruth.evaluation.evaluate_preferences(runs, preferences, measures), which "
            "computes trec_eval's prefs_* measures"
        )
    if p.grades == "truncate":
        warn_if_truncated(truth, get_preset(preset).name)  # the name given, not "trec(rel=2)"
    if isinstance(truth, ProbabilisticQrels) and p.grades == "truncate":
        truth = truth.truncated()  # trec_eval reads grades with atol, as the crisp ones below
    bound = as_truth(
        truth, query_categories=query_categories, weights=weights, exclude_query=exclude_query,
        world_model=world_model,
    )
    graded = bound.kind.crisp or isinstance(truth, ProbabilisticQrels)
    if (relevance_level is not None and graded and p.grades == "truncate"
            and not rel.is_integer()):
        raise ValueError(
            f"relevance_level must be a whole number under preset {get_preset(preset).name!r}, "
            "which reads grades as trec_eval does (atol; trec_eval reads -l 1.5 as level 1, "
            "pytrec_eval refuses it); give a whole number, or a preset that keeps grades as "
            f"given (preset='textbook'); got {relevance_level!r}"
        )
    rankings = rank_runs(runs, ties, score_dtype, depth, memory_budget)
    queries = evaluated_queries(rankings, bound, missing, complete)
    if not complete and truth.per_query:
        warn_if_unanswered(bound.judged_queries, queries)
    if not complete:
        warn_if_partial({name: r.query_ids for name, (r, _) in rankings.items()}, queries)
    prepared = bound.prepare(queries)
    rankings = {name: (r.on(queries), run) for name, (r, run) in rankings.items()}
    conventions = {
        "preset": p.as_dict(),
        "ties": ties,
        "score_dtype": score_dtype,
        "measures": {n: str(r) for n, r in zip(names, resolved, strict=True)},
        "truth": str(bound.kind),
        "undefined": str(undefined),
        "missing": missing,
        "complete": complete,
        "depth": depth,
        "judged_only": judged_only,
        "truth_model": bound.truth_model,
    }
    families = {n: r.family for n, r in zip(names, resolved, strict=True)}
    common = {
        "systems": tuple(rankings), "queries": tuple(queries), "measures": tuple(names),
        "truth": bound.kind, "undefined": undefined, "conventions": conventions,
        "confidence_level": confidence_level, "families": families,
    }
    if bound.kind.crisp:
        batches, methods, counted = _crisp(prepared, rankings, names, resolved, p, judged_only,
                                           memory_budget)
        return Evaluation(**common, batches=batches, methods=methods, counted=counted)

    if judged_only:
        raise ValueError(
            "judged_only applies to crisp qrels (trec_eval -J); under uncertain truth every "
            "document the truth knows is judged"
        )
    conventions.update(
        method=method, n_worlds=n_worlds, world_model=world_model, recall_form=recall_form,
        exclude_query=exclude_query, weights=weights,
        seed=seed,
    )
    strict = ties != "average"
    if method == "exact" and not bound.independent:
        raise ValueError(
            f"method='exact': the worlds of the {bound.truth_model} truth draw shared "
            "parameters, so its items are dependent and no closed form describes them; use "
            "method='auto' or 'worlds' (or fit the model with uncertainty='posterior')"
        )
    exact_ok = [strict and bound.independent and r.family.exact is not None for r in resolved]
    if method == "exact":  # before any work
        _require_closed_forms(names, exact_ok, ties)
    if recall_form == "expected_size" and method == "worlds":
        raise ValueError("recall_form='expected_size' has a closed form only; use method='auto'")
    use_exact = [ok and method != "worlds" for ok in exact_ok]
    if p.min_relevant > 0:  # the preset's class-size rule holds world by world
        needs = []
        if n_worlds == 0:
            needs.append(f"n_worlds must be > 0; got n_worlds={n_worlds}")
        if method == "exact":
            needs.append(f"method must be 'auto' or 'worlds'; got method={method!r}")
        if needs:
            raise ValueError(
                f"preset {p.name!r} leaves out of its aggregates the queries with fewer than "
                f"{p.min_relevant} relevant documents; under uncertain truth that is decided "
                f"world by world, so {' and '.join(needs)}"
            )
        use_exact = [False] * len(resolved)
    seed_worlds = draw_seed(rng) if n_worlds > 0 else None
    options = {"method": method, "n_worlds": n_worlds, "world_model": world_model,
               "recall_form": recall_form, "ties": ties, "preset": p, "progress": progress,
               "memory_budget": memory_budget, "seed": seed_worlds}
    blocks = _padding_blocks(rankings, memory_budget)
    if blocks is None:
        return _uncertain(bound, prepared, rankings, names, resolved, use_exact, common,
                          **options)
    joined = {name: bound.join(run) for name, (_, run) in rankings.items()}  # once for all
    blocks = [np.sort(rows) for rows in blocks]
    order, at = query_placement([queries[rows] for rows in blocks])
    out = None
    if n_worlds > 0:  # every block's world values written at its queries' places
        check_n_worlds(n_worlds, bytes_per_world=8.0 * len(names) * len(rankings) * len(queries))
        out = (np.empty((len(names), len(rankings), n_worlds, len(queries))),
               np.empty((n_worlds, len(queries)), dtype=bool) if p.min_relevant > 0 else None)
    parts = []
    for rows, places in zip(blocks, at, strict=True):  # queries of like lengths: each block
        part = queries[rows]  # padded to its own longest list
        with warnings.catch_warnings():  # said once above, for every query
            warnings.filterwarnings("ignore", message=UNUSED_CATEGORIES)
            part_prepared = bound.prepare(part)
        part_rankings = {name: (r.take(rows), run) for name, (r, run) in rankings.items()}
        parts.append(_uncertain_part(bound, part_prepared, part_rankings, names, resolved,
                                     use_exact, joined=joined, out=out, places=places,
                                     **options)[0])
    return Evaluation(**{**common, **joined_columns(parts, order, at)},
                      worlds=None if out is None else out[0],
                      world_counted=None if out is None else out[1])


def warn_if_truncated(truth: object, preset: str) -> None:
    """A UserWarning when ``truth`` (crisp or probabilistic qrels) holds grades that are not
    whole numbers, which a preset reading grades as trec_eval does truncates toward zero
    (trec_eval does it silently): a grade of 0.5 then counts as 0, judged non-relevant. The
    message names the file the qrels were read from, when they were."""
    if isinstance(truth, Qrels):
        grades, source = truth.relevance, getattr(truth, "_source", None)
    elif isinstance(truth, ProbabilisticQrels):
        grades, source = truth.grade, getattr(truth.pairs, "_source", None)
    else:
        return
    count, x = 0, 0.0
    for a in range(0, len(grades), _CHECK_ROWS):  # no grade-length temporary
        block = grades[a:a + _CHECK_ROWS]
        fractional = block[block != np.trunc(block)]
        if len(fractional) and not count:
            x = float(fractional[0])
        count += len(fractional)
    if count:
        warn(
            f"{f'{source}: ' if source else ''}{count} fractional grade(s) read as "
            f"trec_eval reads them, truncated toward zero under preset={preset!r} ({x:g} is "
            f"grade {np.trunc(x) + 0.0:g}); preset='textbook' keeps them as given",
            UserWarning,
        )


_CHECK_ROWS = 1 << 16
"""Grades checked a block at a time by :func:`warn_if_truncated`: for 5 M judgments the
check of the whole column made two grade-length temporaries, 45 MB of fresh memory and
0.10 s in a line profile of a whole evaluation (2026-11-29); by blocks it took 7-11 ms,
against 16-22 ms for the whole column, in a process where that memory was no longer fresh."""

#: Bytes per (query, rank) cell of one system in the uncertain path: the ranked documents,
#: their probabilities per target component, the worlds' temporaries
UNCERTAIN_BYTES_PER_CELL = 64.0


def _padding_blocks(rankings: Mapping[str, tuple[Ranking, Run]], memory_budget: float
                    ) -> list[np.ndarray] | None:
    """Blocks of queries for the uncertain path when padding every list to the longest one
    would dominate the tables (more than twice the entries) and exceed ``memory_budget``:
    one query of 100,000 documents beside 1,000 of one made 1,001 x 100,000 cells (1.9 GB
    for P@10 with probabilistic qrels). None: one table, as before."""
    lengths = np.max([r.lengths for r, _ in rankings.values()], axis=0)
    if len(lengths) == 0 or len(lengths) * int(lengths.max()) <= 2 * int(lengths.sum()):
        return None
    return length_blocks(lengths, UNCERTAIN_BYTES_PER_CELL * len(rankings), memory_budget)


def _uncertain(
    bound: BoundTruth, prepared: PreparedTruth, rankings: Mapping[str, tuple[Ranking, Run]],
    names: list[str], resolved: list[Measure], use_exact: list[bool], common: dict,
    **options: Any,
) -> Evaluation:
    """The uncertain-truth evaluation of the queries of ``prepared`` (:func:`_uncertain_part`
    made an :class:`Evaluation`)."""
    part, worlds, world_counted = _uncertain_part(bound, prepared, rankings, names, resolved,
                                                  use_exact, **options)
    return Evaluation(
        **common, batches=part.batches, methods=part.methods, counted=part.counted,
        worlds=worlds, world_counted=world_counted,
    )


def _uncertain_part(
    bound: BoundTruth, prepared: PreparedTruth, rankings: Mapping[str, tuple[Ranking, Run]],
    names: list[str], resolved: list[Measure], use_exact: list[bool], *,
    method: str, n_worlds: int, world_model: str, recall_form: str, ties: str,
    preset: Preset, progress: bool | None, memory_budget: float, seed: int | None,
    joined: Mapping[str, Any] | None = None,
    out: tuple[np.ndarray, np.ndarray | None] | None = None,
    places: slice | np.ndarray | None = None,
) -> tuple[QueryPart, np.ndarray | None, np.ndarray | None]:
    """The uncertain-truth columns of the queries of ``prepared``, with their world values
    and counted flags (None without worlds): closed forms where ``use_exact`` says so,
    worlds keyed by ``seed`` (the same draws whatever block of queries is evaluated).
    ``joined``: each run's :meth:`BoundTruth.join`, made once for every block; ``out`` and
    ``places``: the whole evaluation's arrays of world values, checked for size by the
    caller, and where these queries go in them (:func:`world_values`), which are then
    returned."""
    p = preset
    queries = prepared.queries
    joined = joined or {}
    ranked = {name: prepared.doc_index(r, run, joined.get(name))
              for name, (r, run) in rankings.items()}
    del rankings  # their rows are not read again: free them before the worlds are drawn
    exact, use_exact = _exact_batches(prepared, ranked, resolved, use_exact, recall_form,
                                      len(queries))
    if method == "exact":  # a closed form may not cover a measure's parameters
        _require_closed_forms(names, use_exact, ties)
    worlds = world_counted = sampler = None
    if n_worlds > 0:
        if out is None:
            check_n_worlds(n_worlds,
                           bytes_per_world=8.0 * len(names) * len(ranked) * len(queries))
        sampler = prepared.worlds(world_model)
        with Progress(total=n_worlds, desc="worlds", unit="world", progress=progress) as bar:
            worlds, world_counted = world_values(
                sampler, list(ranked.values()), resolved,
                n_worlds=n_worlds, seed=seed, memory_budget=memory_budget,
                on_chunk=bar.update, min_relevant=p.min_relevant, out=out, places=places,
            )
    elif not all(use_exact):
        why = "" if bound.independent else (
            f" (the {bound.truth_model} truth's worlds are dependent: no measure has one)")
        lacking = [n for n, ok in zip(names, use_exact, strict=True) if not ok]
        raise ValueError(
            f"n_worlds=0 leaves no way to compute {lacking}, which have no closed form{why}; "
            "give n_worlds > 0"
        )
    batches: dict[tuple[str, str], DistributionBatch | None] = {}
    methods: dict[tuple[str, str], str] = {}
    for system, docs in ranked.items():
        for m, (name, measure) in enumerate(zip(names, resolved, strict=True)):
            if use_exact[m]:
                batches[system, name] = exact[system, m]
                methods[system, name] = "exact"
            else:
                batches[system, name] = None  # summarised from the world values on demand
                binary = binary_route(measure, docs, sampler) is not None
                methods[system, name] = "worlds_binary" if binary else "worlds"
    if world_counted is None:
        ever = np.ones(len(queries), dtype=bool)
    else:
        ever = (world_counted if places is None else world_counted[:, places]).any(0)
    part = QueryPart(tuple(queries), batches, methods, dict.fromkeys(names, ever))
    return part, worlds, world_counted


def rank_runs(
    runs: Run | Mapping[str, Run],
    ties: str,
    score_dtype: str,
    depth: int | None = None,
    memory_budget: float = MEMORY_BUDGET,
) -> dict[str, tuple[Ranking, Run]]:
    runs = check_runs(runs)
    out = {}
    for name, run in zip(text_names(runs, "runs", "system"), runs.values(), strict=True):
        ranking = rank(run, ties=ties, score_dtype=score_dtype, memory_budget=memory_budget)
        out[name] = (ranking if depth is None else ranking.truncate(depth), run)
    return out


UNANSWERED = "judged query(ies) that no run answers"


def warn_if_unanswered(judged: np.ndarray, evaluated: np.ndarray) -> None:
    """Warn that the ``judged`` queries outside ``evaluated`` (none of the runs answers them)
    are not evaluated, as trec_eval without ``-c``: a run's mean then leaves out the queries it
    missed (``complete=True`` scores them as empty lists)."""
    import pandas as pd  # loaded by every evaluation already (the runs' ids are Arrow's)

    # a hash lookup: NumPy's setdiff1d of object arrays compares them pairwise (100,000
    # queries: 67 s against 0.03 s)
    judged = np.asarray(judged, dtype=object)
    lost = np.sort(judged[pd.Index(np.asarray(evaluated, dtype=object)).get_indexer(judged) < 0])
    if len(lost):
        warn(
            f"{len(lost)} {UNANSWERED} are not evaluated (complete=False, as trec_eval "
            f"without -c): {_show(lost.tolist())}; complete=True scores them as empty lists, "
            "so that a run's mean counts the queries it missed",
            UserWarning,
        )


PARTIAL = "answer only some of the evaluated queries"


def warn_if_partial(answered_by: Mapping[str, np.ndarray], queries: np.ndarray) -> None:
    """Warn that systems which do not answer every evaluated query (``queries``, those of all
    the runs; ``answered_by``: each system's query ids) score the ones they miss as empty
    lists: a system's mean then differs from trec_eval's of its run alone, which leaves them
    out, and depends on the other systems evaluated."""
    import pandas as pd

    if len(answered_by) < 2:  # one system answers every query it is evaluated on
        return
    index = pd.Index(np.asarray(queries, dtype=object))
    short = {}
    for name, ids in answered_by.items():
        answered = np.zeros(len(index), dtype=bool)
        at = index.get_indexer(np.asarray(ids, dtype=object))
        answered[at[at >= 0]] = True
        if not answered.all():
            short[name] = index[~answered].tolist()
    if short:
        shown = "; ".join(f"{name!r} misses {len(lost)} ({_show(lost, limit=3)})"
                          for name, lost in list(short.items())[:5])
        warn(
            f"{len(short)} system(s) {PARTIAL} ({len(index)}, those of all the runs) and "
            f"score the others as empty lists (0 for most measures): {shown}. trec_eval, run "
            "on each run alone, leaves a run's missed queries out of its mean: evaluate a run "
            "alone for that number, or pass complete=True to count every judged query for "
            "every system (trec_eval -c)",
            UserWarning,
        )


def evaluated_queries(
    rankings: Mapping[str, tuple[Ranking, Run]], bound: BoundTruth, missing: str, complete: bool
) -> np.ndarray:
    """The evaluated queries: the runs' (and with ``complete`` the truth's) that it answers."""
    queries = np.unique(np.concatenate([r.query_ids for r, _ in rankings.values()]))
    ok = bound.answerable(queries)
    if not ok.all():
        lost = queries[~ok].tolist()
        if missing == "error":
            raise ValueError(bound.missing_message(lost) + " (missing='error')")
        warn(
            f"{bound.missing_message(lost)}: {len(lost)} query(ies) not evaluated, as "
            "trec_eval does (missing='skip')",
            UserWarning,
        )
        queries = queries[ok]
    if complete:
        queries = np.union1d(queries, bound.judged_queries)
    if len(queries) == 0:
        raise ValueError("no query left to evaluate: no query of the runs is in the truth")
    return np.sort(queries.astype(object))


def _crisp(
    prepared: PreparedTruth,
    rankings: Mapping[str, tuple[Ranking, Run]],
    names: list[str],
    resolved: list[Measure],
    preset: Preset,
    judged_only: bool = False,
    memory_budget: float = MEMORY_BUDGET,
) -> tuple[dict, dict, dict]:
    """Crisp truth: every family's kernel on the ranked grades; values are points. The
    grades' tables are made a block of queries at a time within ``memory_budget`` (a list
    far longer than the others padded every query to its length); a query's value is then
    the one-block value to rounding (a row padded to another width may sum in another
    order)."""
    judged = judged_only or any("judged" in m.uses for m in resolved)
    batches, methods = {}, {}
    counted = None
    n_queries = len(prepared.queries)
    for system, (ranking, run) in rankings.items():
        values = {name: np.empty(n_queries) for name in names}
        counts = np.empty(n_queries, dtype=bool) if counted is None else None
        for rows, rg in prepared.ranked_gains_blocks(ranking, run, judged=judged,
                                                     memory_budget=memory_budget):
            at = slice(None) if rows is None else rows
            if preset.grades == "truncate":  # trec_eval reads grades with atol
                rg = truncate_grades(rg)
            if judged_only:
                rg = judged_only_gains(rg)
            if counts is not None:
                counts[at] = preset.counts_query(rg)
            for name, measure in zip(names, resolved, strict=True):
                values[name][at] = measure.compute(rg)
        if counted is None:
            counted = counts
        for name in names:
            batches[system, name] = DistributionBatch.from_points(values[name])
            methods[system, name] = "crisp"
    return batches, methods, dict.fromkeys(names, counted)


def exact_input(prepared: PreparedTruth, docs: RankedDocs, recall_form: str) -> ExactInput:
    """What the families' exact forms read for one system under a prepared truth. Means
    first: a form that has its mean without its law (P, Success, RR, the exact recall, F and
    E) gives a :class:`~fuzzytruth.uncertain.batch.DeferredBatch`, whose atoms are built when
    a distribution is asked for; aggregates read the means. The exact recall's law holds
    (k + 1) × (judged documents outside the top k + 1) atoms per query: R@1000 on 50
    queries of 1,500 probabilistic judgments held 800 MB, on 10,000 ragged queries 12 GB."""
    q = prepared.components.query
    return ExactInput(
        lambda rel: prepared.probabilities(docs, rel),
        docs.lengths[q],
        lambda rel: prepared.rest(docs, rel),
        lambda: prepared.expected_size(docs),
        recall_form=recall_form,
        judged=docs.docs[q] >= 0,
        means_only=True,
    )


def _require_closed_forms(names: list[str], exact: list[bool], ties: str) -> None:
    """method='exact': every measure has a closed form (``exact``), or a ValueError names
    those without."""
    if not all(exact):
        lacking = [n for n, ok in zip(names, exact, strict=True) if not ok]
        raise ValueError(
            f"method='exact': no closed form for {lacking} with their parameters under "
            f"ties={ties!r}; use method='auto' or 'worlds'"
        )


def _exact_batches(
    prepared: PreparedTruth, ranked: Mapping[str, RankedDocs], resolved: list[Measure],
    use_exact: list[bool], recall_form: str, n_rows: int,
) -> tuple[dict[tuple[str, int], DistributionBatch | DeferredBatch], list[bool]]:
    """Each (system, measure index)'s distribution by its family's closed form, for the
    measures ``use_exact`` marks, and which measures have one. A closed form may not apply to
    a measure's parameters (``Utility`` with c != d): it returns None, and the measure is
    left to the worlds for every system (its parameters and the truth decide it, not the
    ranking)."""
    contexts = {system: exact_input(prepared, docs, recall_form)
                for system, docs in ranked.items()} if any(use_exact) else {}
    out: dict[tuple[str, int], DistributionBatch | DeferredBatch] = {}
    applies = list(use_exact)
    for m, measure in enumerate(resolved):
        if not applies[m]:
            continue
        comps = {s: measure.family.exact(ctx, **kernel_params(measure))
                 for s, ctx in contexts.items()}
        if any(comp is None for comp in comps.values()):
            applies[m] = False
            continue
        out |= {(s, m): _mix(comp, *prepared.components, n_rows) for s, comp in comps.items()}
    return out, applies


def _mix(
    comp: DistributionBatch | DeferredBatch, row: np.ndarray, node: np.ndarray,
    weight: np.ndarray, n_rows: int,
) -> DistributionBatch | DeferredBatch:
    """Mix component rows into ``n_rows`` rows: component i goes to row ``row[i]``."""
    order = np.argsort(row, kind="stable")
    row, weight = row[order], weight[order]
    counts = np.bincount(row, minlength=n_rows)
    if np.all(counts == 1):
        return comp.take(order)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    column = np.arange(len(row)) - start[row]
    index = np.full((n_rows, int(counts.max())), -1, dtype=np.intp)
    index[row, column] = order
    mix = np.zeros(index.shape)
    mix[row, column] = weight
    return type(comp).mixture(comp, index, mix)


