"""``compare()``: every pairwise comparison of systems in one tidy table.

What each number claims
-----------------------
Every row names its **estimand** (what the interval and the test generalise to) and the
**hypothesis** its test is about.

``estimand="queries"`` (crisp ground truth)
    The mean difference over the population of queries the collection's queries stand for.
    Variance component: query sampling (the spread of the per-query differences).
``estimand="collection"`` (this collection's truth; scores with ground-truth worlds)
    The mean over that population of queries of each query's *expected* difference given
    the annotators' labels as they are (the truth is a random draw consistent with those
    labels, and the estimand averages over it). Each query's score is first averaged over
    the worlds (exact where a closed form exists), then the query-level procedure runs on
    those expected scores. Variance components: query sampling plus the Monte Carlo error of
    the expected scores (``var_truth``, 0 when exact or when every world agrees). The
    truth's spread for *these* queries averages out over queries and is not charged again
    (resampling one world per replicate counted the per-query world noise twice and the
    world-to-world spread once more: 100.0 % coverage for a nominal 95 % at 10–100 queries
    on the uncertain-truth model of ``benchmarks/stats_validity.py``, 2,000 comparisons per
    cell: none of them missed, so the coverage was above 99.85 % with 95 % confidence, the
    rule of three, 3 / 2,000; a binomial Monte Carlo SE is 0 at 100 %).
``estimand="population"`` (the annotator population;
:func:`~fuzzytruth.stats.annotator_bootstrap`)
    The difference expected over new queries *and new annotators of the same kind*. Two-stage
    bootstrap: queries resampled and annotators resampled, membership and measures rebuilt
    per replicate. The annotators are resampled as the design was drawn: in a crossed design
    (some annotator labelled more than one item: what ``annotators="auto"``, the default,
    detects) the pool of annotators is resampled once per replicate and shared by every item;
    in a nested one (fresh annotators per item) within each item. Variance components: query
    sampling plus annotator sampling (``var_truth``: the replicates' spread when only the
    annotators move).

Under a truth model's fit (:mod:`fuzzytruth.truth.models`) the estimand names the model:
``"collection (truth model: dawid-skene)"``, ``"population (truth model: dawid-skene)"``.

A test and its interval come from one procedure
(:func:`~fuzzytruth.stats.procedures.paired_inference`), so ``pvalue < 1 - confidence_level``
exactly when the interval excludes 0. Stars (``summary()``, bold in ``to_latex()``, filled
markers in the forest plot) mark ``pvalue_adjusted < alpha`` with ``alpha = 1 -
confidence_level``; adjusted p-values are never below the row's own p-value, so a star
never sits beside an interval that contains 0 (the intervals are per comparison: an
unstarred row may exclude 0 when the correction is what stops it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fuzzytruth._progress import track
from fuzzytruth._random import draw_seed, named_stream, recorded_seed
from fuzzytruth._resampling import ResamplingResolutionWarning, resamples_to_bound
from fuzzytruth._validation import did_you_mean, id_text
from fuzzytruth._warnings import warn
from fuzzytruth.measures.names import label_among
from fuzzytruth.stats._validation import (
    all_pairs,
    baseline_pairs,
    check_alpha,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_n_resamples,
    check_tolerance,
    paired_differences,
    significance_level,
)
from fuzzytruth.stats.bootstrap import BootstrapResult, paired_bootstrap
from fuzzytruth.stats.effect import cohens_dz, wins_ties_losses
from fuzzytruth.stats.multiple import (
    CORRECTIONS,
    adjust_pvalues,
    can_be_significant,
    paired_tukey_hsd,
    randomized_tukey_hsd,
    romano_wolf,
    warn_if_unresolvable,
)
from fuzzytruth.stats.paired import EXACT_MAX_QUERIES, ZERO_METHODS
from fuzzytruth.stats.population import PopulationScores
from fuzzytruth.stats.procedures import (
    BOOTSTRAP_METHODS,
    INTERVALS,
    METHODS,
    check_queries,
    paired_inference,
    t_interval,
    warn_if_unreliable,
)
from fuzzytruth.stats.scores import ScoreMatrix, as_score_matrices
from fuzzytruth.stats.worlds import checked_truth_decomposition, checked_world_preference
from fuzzytruth.truth.protocol import estimand_label, split_estimand

ALL_CORRECTIONS = (*CORRECTIONS, "romano-wolf", "tukey-randomized", "tukey-anova", "none")
ESTIMANDS = ("queries", "collection", "population")
#: Methods the annotator-population bootstrap supports (BCa needs a two-level jackknife).
POPULATION_METHODS = ("percentile", "bootstrap", "basic")

PAIR_COLUMNS = (
    "measure",
    "system_a",
    "system_b",
    "mean_a",
    "mean_b",
    "difference",
    "ci_low",
    "ci_high",
    "confidence_level",
    "statistic",
    "pvalue",
    "pvalue_adjusted",
    "correction",
    "method",
    "hypothesis",
    "estimand",
    "alternative",
    "n_queries",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "interval",
)
SYSTEM_COLUMNS = (
    "measure",
    "system",
    "mean",
    "ci_low",
    "ci_high",
    "confidence_level",
    "interval",
    "estimand",
    "n_queries",
)
#: Extra columns under uncertain truth (collection and population estimands).
TRUTH_COLUMNS = ("prob_a_better", "prob_tie", "var_queries", "var_truth", "share_truth")


@dataclass(frozen=True, eq=False)
class Comparison:
    """Result of :func:`compare`: tidy tables plus text and LaTeX renderings.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per measure and pair, columns ``measure, system_a, system_b, mean_a, mean_b,
        difference, ci_low, ci_high, confidence_level, statistic, pvalue, pvalue_adjusted,
        correction, method, hypothesis, estimand, alternative, n_queries, effect_size, wins,
        ties, losses, interval``. ``difference = mean_a - mean_b``. Under uncertain truth
        also ``prob_a_better, prob_tie, var_queries, var_truth, share_truth`` (see
        :class:`~fuzzytruth.stats.UncertaintyDecomposition`) and, with worlds, ``n_worlds``.
        ``prob_a_better``: for ``estimand="collection"`` the share of ground-truth worlds in
        which A's mean over *these* queries is higher (the labels as given, the queries
        fixed: a description, not a test); for ``"population"`` the share of two-stage
        replicates (new queries and new annotators) in which A's mean is higher.
    systems : pandas.DataFrame
        One row per measure and system: ``measure, system, mean, ci_low, ci_high,
        confidence_level, interval, estimand, n_queries``.
    alpha : float
        ``1 - confidence_level``: rows with ``pvalue_adjusted < alpha`` are starred.
    n_resamples : int
        B used by the bootstrap intervals and Monte Carlo tests.
    seed : int or None
        The ``rng`` given to :func:`compare` when it was an int (or a SeedSequence of one),
        which draws the same resamples again; None when it was a Generator or None.
    scores_seed : int or None
        The seed recorded by what the scores came from: the Evaluation's worlds
        (:attr:`Evaluation.seed <fuzzytruth.evaluation.Evaluation.seed>`) or the
        PopulationScores' replicates; None for arrays and tables, or when not recorded.
    unit : str
        What the scores' paired units are, in the reports' words: ``"queries"``, or
        ``"items"`` when the scores came from an evaluation of classifiers.
    """

    table: pd.DataFrame
    systems: pd.DataFrame
    alpha: float
    n_resamples: int
    seed: int | None = None
    scores_seed: int | None = None
    unit: str = "queries"

    def __repr__(self) -> str:
        measures = self.table["measure"].nunique()
        return (
            f"Comparison({len(self.table)} pairs over {measures} measure(s), "
            f"alpha={self.alpha}; print() for the summary, .table for the numbers)"
        )

    @property
    def draws(self) -> dict[str, int | None]:
        """What was drawn at random behind the numbers, each with its recorded seed (None:
        not recorded): ``"worlds"``, the ground-truth worlds each query's score was averaged
        over (:attr:`scores_seed`); ``"replicates"``, the two-stage bootstrap of the
        annotator population (:attr:`scores_seed`); ``"resamples"``, this comparison's own
        bootstrap resamples, sign flips or permutations (:attr:`seed`). Empty when nothing
        was drawn (a t test on crisp scores).

        Examples
        --------
        >>> x = np.random.default_rng(0).random((2, 30))
        >>> compare(x, rng=5).draws, compare(x, method="randomization", rng=5).draws
        ({}, {'resamples': 5})
        """
        table = self.table
        out: dict[str, int | None] = {}
        if "n_worlds" in table.columns and table["n_worlds"].notna().any():
            out["worlds"] = self.scores_seed
        if _population_rows(table).any():
            out["replicates"] = self.scores_seed
        if _own_resampling(table).any():
            out["resamples"] = self.seed
        return out

    def significant(self) -> pd.DataFrame:
        """Rows whose adjusted p-value is below ``alpha``."""
        return self.table[self.table["pvalue_adjusted"] < self.alpha].reset_index(drop=True)

    def summary(self, *, digits: int = 3, width: int = 100) -> str:
        """The comparison as text, as the command line prints it
        (:func:`fuzzytruth.report.comparison_text`): what was computed, one table per measure
        (``*`` = significant), and what the columns mean."""
        from fuzzytruth.report import comparison_text

        return comparison_text(self, digits=digits, width=width).rstrip("\n")

    def __str__(self) -> str:
        return self.summary()

    def to_latex(
        self,
        *,
        digits: int = 3,
        caption: str | None = None,
        label: str | None = None,
    ) -> str:
        """A booktabs ``table`` environment: the tables of :meth:`summary` in one, a measure
        column first; significant differences starred and set in bold.

        Needs ``\\usepackage{booktabs}``. The caption is ``caption`` (if given) followed by
        what was computed (:func:`fuzzytruth.report.describe_comparison`: the procedure,
        estimand, worlds, B and seed); the footnotes of :meth:`summary` follow the table. The
        interval column is left out when the procedure has none (Wilcoxon, sign). Text is
        escaped for LaTeX (``_``, ``%``, ``&``, ``#``, ``$``, ``{``, ``}``, ``~``, ``^``,
        ``\\``, ``<``, ``>``, ``|``). ``label`` is written as it is, and may not hold what
        would end or break ``\\label{...}`` (``{``, ``}``, ``\\``, ``%``, ``#``) nor a line end.
        """
        from fuzzytruth.report import comparison_notes, comparison_table, describe_comparison

        if label is not None and (not isinstance(label, str) or not label
                                  or any(c in label for c in "{}\\%#\n\r")):
            raise ValueError(
                "label must be a non-empty str without {, }, \\, %, # or a line end (a LaTeX "
                f"label); got {label!r}"
            )
        if caption is not None and not isinstance(caption, str):
            raise ValueError(f"caption must be a str or None; got {caption!r}")

        parts = []
        for measure in pd.unique(self.table["measure"]):
            part = comparison_table(self, measure, digits=digits).rename(columns={"": "*"})
            part.insert(0, "measure", measure)
            parts.append(part)
        shown = pd.concat(parts, ignore_index=True).fillna("")
        rows = []
        for record in shown.to_dict("records"):
            cells = [_latex_cell(column, str(value)) for column, value in record.items()]
            if record["*"]:  # significant: the difference in bold too
                position = list(shown.columns).index("A − B")
                cells[position] = f"$\\mathbf{{{record['A − B']}}}$"
            rows.append(" & ".join(cells) + " \\\\")
        head = " & ".join(_LATEX_HEADERS.get(c, _latex_escape(c)) for c in shown.columns)
        align = "".join(_LATEX_ALIGN.get(c, "r") for c in shown.columns)
        text = describe_comparison(self)
        text = text[0].upper() + text[1:]
        if caption is not None:
            caption = caption.rstrip()
            text = f"{caption}{'' if caption.endswith(('.', '?', '!')) else '.'} {text}"
        out = ["\\begin{table}", "\\centering", f"\\caption{{{_latex_text(text)}}}"]
        if label is not None:
            out.append(f"\\label{{{label}}}")
        out += [
            f"\\begin{{tabular}}{{{align}}}",
            "\\toprule",
            head + " \\\\",
            "\\midrule",
            *rows,
            "\\bottomrule",
            "\\end{tabular}",
            "\\par\\smallskip",
            "{\\footnotesize " + " \\par\n".join(_latex_text(n) for n in comparison_notes(self))
            + "\\par}",
            "\\end{table}",
        ]
        return "\n".join(out) + "\n"


_LATEX_HEADERS = {"measure": "Measure", "A − B": "$A - B$", "p adj": "$p_{adj}$",
                  "d_z": "$d_z$", "P(A>B)": "$P(A>B)$", "p": "$p$", "*": ""}
_LATEX_ALIGN = {"measure": "l", "A": "l", "B": "l", "W/T/L": "c", "*": "l"}
_LATEX_TEXT_COLUMNS = frozenset({"measure", "A", "B", "W/T/L", "*"})


def _latex_cell(column: str, value: str) -> str:
    r"""One cell of :meth:`Comparison.to_latex`: names escaped, numbers in math mode (their
    minus signs, ``<0.001``; the open end of a one-sided interval ``\infty``, the words
    ``none`` and ``nan`` upright).

    >>> print(_latex_cell("95% CI", "[-inf, +0.105]"), _latex_cell("p", "nan"))
    $[-\infty, +0.105]$ $\mathrm{nan}$
    """
    if column in _LATEX_TEXT_COLUMNS or not value:
        return _latex_escape(value)
    value = re.sub(r"\b(none|nan)\b", r"\\mathrm{\1}", value.replace("inf", r"\infty"))
    return f"${value}$"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "\n": " ",  # a blank line ends the tabular's paragraph: an error in LaTeX
    "\r": " ",
}


def _latex_escape(value: object) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(value))


def _latex_text(text: str) -> str:
    """Prose for a caption or a footnote: escaped, "quotes" typeset as ``quotes''."""
    return re.sub(r'"([^"]*)"', r"``\1''", _latex_escape(text))


def compare(
    scores: object,
    *,
    systems: Iterable[object] | None = None,
    queries: Iterable[object] | None = None,
    measure: str | None = None,
    baseline: object | None = None,
    method: str | None = None,
    correction: str = "holm",
    confidence_level: float | None = None,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    tie_tolerance: float = 0.0,
    zero_method: str = "wilcox",
    alpha: float | None = None,
    rng: np.random.Generator | int | None = None,
    progress: bool | None = None,
) -> Comparison:
    """Compare systems pairwise on one or several measures: tests and their intervals.

    Parameters
    ----------
    scores : Evaluation, PopulationScores, array_like, mapping, ScoreMatrix or DataFrame
        An :class:`~fuzzytruth.evaluation.Evaluation` (crisp truth: estimand ``"queries"``;
        uncertain truth: ``"collection"``); the :class:`~fuzzytruth.stats.PopulationScores`
        of :func:`~fuzzytruth.stats.annotator_bootstrap` (estimand ``"population"``);
        per-query scores, an array ``(n_systems, n_queries)`` or, with ground-truth worlds,
        ``(n_worlds, n_systems, n_queries)``; a mapping of measure name to such arrays; or a
        tidy long table with columns ``system, query_id, measure, value[, world]``.
    systems, queries : sequence, optional
        Labels for array input (default ``system0, ...`` and ``q0, ...``).
    measure : str, optional
        Name of the measure for array input, or the one measure to keep from a table.
    baseline : label, optional
        Compare every other system with this one (``system_a`` = the other system,
        ``system_b`` = the baseline); default all pairs ``i < j`` in system order.
    method : {"t", "bootstrap", "bca", "percentile", "basic", "randomization", "wilcoxon", "sign"}
        The procedure giving both the test and the interval
        (:func:`~fuzzytruth.stats.procedures.paired_inference`). Default ``"t"``: in the
        validity study (``benchmarks/stats_validity.py``: eleven generating models, 2,000
        null and 2,000 effect comparisons per cell, B = 999, Monte Carlo SE about 0.5 %) no
        procedure held 93–97 % coverage and 3.5–6.5 % size on every model at any number of
        queries, and t held on the most: at 50 queries on 8 of 11 (the randomisation test 7,
        bootstrap-t 6, percentile 5, BCa 4), all but the strongly skewed ones (size 7.6–10.3 %
        there; a warning says so). At 25 queries its size ranged over 3.5–28.2 % and its
        coverage over 73.2–95.9 % across the models (the 28.2 % when 5 % of the queries carry
        a large one-sided difference: 0.95**25 = 28 % of the samples of 25 hold none of them,
        and those reject); details in
        :mod:`fuzzytruth.stats.procedures`. ``"wilcoxon"`` and ``"sign"`` test symmetry and
        the median, not the mean, and report no interval; both are exact (Wilcoxon given the
        midranks, ties and zeros included, up to 100 queries:
        :func:`~fuzzytruth.stats.paired_test`). For ``estimand="population"``:
        ``"percentile"`` (default there: it covered best with annotators shared across
        items), ``"bootstrap"`` or ``"basic"``.
    correction : {"holm", "bonferroni", "bh", "by", "romano-wolf", "tukey-randomized", \
"tukey-anova", "none"}
        Multiple-comparison adjustment within each measure over the reported pairs: Holm,
        Bonferroni, Benjamini–Hochberg, Benjamini–Yekutieli on the procedure's p-values; the
        bootstrap studentised max-|t| step-down of Romano & Wolf (no exchangeability
        needed); or a Tukey HSD family over all systems (randomised, or on the paired two-way
        ANOVA; two-sided only; **they assume exchangeable systems**, equal variances
        included: with unequal variances their family-wise error was about 10 % at 5 % and
        they found one shifted low-variance system in 9–28 % of the data sets where Holm
        found it in 77–100 %; design and figures in :mod:`fuzzytruth.stats.multiple`). An
        adjusted p-value is never below the row's own p-value.
    confidence_level : float, optional
        Coverage of the intervals; the tests reject at ``1 - confidence_level``. Default
        0.95, or ``1 - alpha`` when ``alpha`` is given.
    alternative : {"two-sided", "less", "greater"}
        Alternative hypothesis (``"greater"``: A scores higher); the intervals of a one-sided
        alternative are one-sided.
    n_resamples : int
        B for the bootstrap and randomisation procedures, Romano–Wolf and randomised Tukey
        (for ``PopulationScores`` the replicates drawn by :func:`annotator_bootstrap`).
    tie_tolerance : float
        A query is a tie when ``|score_a - score_b| <= tie_tolerance`` (default 0).
    zero_method : {"wilcox", "pratt", "zsplit"}
        Zero differences in the Wilcoxon test.
    alpha : float, optional
        Significance level of the tests and the stars, another way to give the level:
        ``alpha=0.01`` is ``confidence_level=0.99``; given both, they must agree, so that a
        star and its interval always do.
    rng : numpy.random.Generator or int, optional
        Seed or generator. Each measure draws from its own stream, derived from the seed and
        the measure's name, so adding a measure (or a system) does not change another
        measure's numbers. Within a measure every replicate (bootstrap resample, sign flips,
        permutation) is keyed by (the stream's seed, replicate, query)
        (:mod:`fuzzytruth._random`), so its blocks of replicates can be computed
        apart (:func:`fuzzytruth.distributed.compare` does) with the same result.
    progress : bool, optional
        Progress bar on stderr: None (default) draws it only when stderr is a terminal,
        True always, False never (one step per measure).

    Returns
    -------
    Comparison

    Warns
    -----
    UnreliableInferenceWarning
        Fewer than 25 queries, a pair tied on most queries, or (from 25 queries on) a pair
        whose differences are too skewed for their number of queries (skewness² > 0.06 ×
        queries, :func:`~fuzzytruth.stats.procedures.too_skewed`): no procedure held its
        level on every model there in the validity study. No warning computed from the
        sample sees where the t test fails on rare large one-sided differences: it fails on
        the samples that drew none of them, which look ordinary (25 queries, 10 % of them
        at +0.45, 20,000 null comparisons: the rule fired on 1.0 % of the failing samples
        and 96.6 % of the holding ones, Monte Carlo SE at most 0.3 %); such data need a few
        hundred queries (``benchmarks/stats_validity.py``, table 3d).
    DegenerateComparisonWarning
        A pair with the same difference on every query (its interval and effect size are NaN,
        and its test but for ``"wilcoxon"`` and ``"sign"``; an adjustment that cannot take
        the pair in, Romano–Wolf's or Tukey's, leaves its adjusted p-value NaN).
    ResamplingResolutionWarning
        When a Monte Carlo test with B resamples cannot give any p-value small enough to pass
        the correction (B + 1 <= m / alpha for Bonferroni and Holm: the tests reject when
        ``p < alpha``), and when the exact randomisation test's smallest p-value (2 / 2**n
        two-sided, up to 16 queries) cannot.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(30)
    >>> dense = base + 0.1 + 0.2 * rng.standard_normal(30)
    >>> near = base + 0.02 * rng.standard_normal(30)
    >>> res = compare(np.vstack([base, dense, near]), systems=["bm25", "dense", "near"],
    ...               measure="nDCG@10", baseline="bm25", rng=1)
    >>> res.table[["system_a", "system_b", "difference", "pvalue_adjusted", "estimand"]]
      system_a system_b  difference  pvalue_adjusted estimand
    0    dense     bm25    0.155216         0.000225  queries
    1     near     bm25    0.003493         0.391606  queries
    >>> print(res)  # doctest: +NORMALIZE_WHITESPACE
    paired t test with its t interval, two-sided, 95% level, estimand "queries" (new queries
    like these, judged the same way), Holm correction within each measure, 30 queries.
    <BLANKLINE>
    [nDCG@10]
        A    B mean A mean B  A − B           95% CI      p  p adj  d_z   W/T/L
    dense bm25  0.690  0.534 +0.155 [+0.084, +0.226] <0.001 <0.001 0.81  23/0/7 *
     near bm25  0.538  0.534 +0.003 [-0.005, +0.012]  0.392  0.392 0.16 17/0/13
    <BLANKLINE>
    Starred rows (*): adjusted p < 0.05 (Holm within each measure); their intervals exclude 0.
    d_z: Cohen's d_z, the mean difference over the standard deviation of the per-query
    differences.
    W/T/L: queries on which A's score is higher / equal / lower than B's.
    """
    population = scores if isinstance(scores, PopulationScores) else None
    if measure is not None and not isinstance(measure, str):
        # 5 named array scores np.int64(5) and drew another stream than {"5": scores} or a
        # table's measure 5 (read as "5"); a list failed as unhashable, NaN on its cast to int
        raise ValueError(f"measure must be a str (a measure's name) or None; got {measure!r}")
    if method is None:
        method = "percentile" if population is not None else "t"
    method = check_choice("method", method, METHODS)
    correction = check_choice("correction", correction, ALL_CORRECTIONS)
    if alpha is not None:
        alpha = check_alpha(alpha)
        if not 0.0 < round(alpha, 12) < 1.0:  # significance_level's rule, named for alpha
            raise ValueError(
                "alpha must differ from 0 and from 1 by more than 5e-13: every test rejects "
                f"when p < alpha, rounded to 12 decimals, which would be {round(alpha, 12):g}; "
                f"got {alpha!r}"
            )
    if confidence_level is None:  # alpha=0.01 alone asks for 99 % intervals
        confidence_level = 0.95 if alpha is None else round(1 - alpha, 12)
    level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    n_resamples = check_n_resamples(n_resamples, minimum=2)
    tol = check_tolerance(tie_tolerance)
    zero_method = check_choice("zero_method", zero_method, ZERO_METHODS)
    if alpha is None:
        alpha = significance_level(level)
    else:
        if abs(alpha - significance_level(level)) > 1e-12:
            raise ValueError(
                "alpha must equal 1 - confidence_level so that a star never sits beside an "
                f"interval that contains 0; got alpha={alpha!r} with "
                f"confidence_level={level!r} (set confidence_level={1 - alpha:g} instead)"
            )
    if correction.startswith("tukey") and alternative != "two-sided":
        raise ValueError(
            f"correction={correction!r} is two-sided only; alternative must be 'two-sided', "
            f"got {alternative!r}"
        )
    if population is not None:
        if systems is not None or queries is not None:
            raise ValueError("systems and queries must be None for PopulationScores; the "
                             "labels come from the evaluation")
        if method not in POPULATION_METHODS:
            raise ValueError(
                f"method must be one of {list(POPULATION_METHODS)} for the annotator "
                f"population estimand (a two-stage bootstrap); got {method!r}"
            )
        matrices = dict(population.scores)
        if measure is not None:
            label = label_among(measure, matrices)
            matrices = {label: matrices[label]}
    else:
        from fuzzytruth.evaluation.result import Evaluation  # deferred, as in as_score_matrices

        if isinstance(scores, Evaluation) and scores.measures:  # before its score
            check_queries(len(scores.queries))  # matrices' own, lower minimum
        matrices = as_score_matrices(scores, systems=systems, queries=queries, measure=measure)
    _warn_if_unbounded(method, population.n_resamples if population else n_resamples, level,
                       alternative)
    given_seed = recorded_seed(rng)
    base_seed = draw_seed(rng)
    pair_frames = []
    system_frames = []
    for name, sm in track(matrices.items(), total=len(matrices), desc="compare",
                          unit="measures", progress=progress):
        stream = named_stream(base_seed, name)
        pairs_df, systems_df = _compare_one(
            sm,
            population=population,
            baseline=baseline,
            method=method,
            correction=correction,
            level=level,
            alternative=alternative,
            n_resamples=n_resamples,
            tol=tol,
            zero_method=zero_method,
            alpha=alpha,
            rng=stream,
        )
        pair_frames.append(pairs_df)
        system_frames.append(systems_df)
    first = next(iter(matrices.values()))
    scores_seed = population.seed if population is not None else first.seed
    return Comparison(
        table=pd.concat(pair_frames, ignore_index=True),
        systems=pd.concat(system_frames, ignore_index=True),
        alpha=alpha,
        n_resamples=population.n_resamples if population is not None else n_resamples,
        seed=given_seed,
        scores_seed=scores_seed,
        unit=first.unit,
    )


def _warn_if_unbounded(method: str, n_resamples: int, level: float, alternative: str) -> None:
    """A bootstrap interval whose tail is not finer than ``1 / (B + 1)`` is unbounded
    (:meth:`BootstrapResult.confidence_interval`): say so, with the B that bounds it."""
    needed = resamples_to_bound(level, alternative)
    sides = "two-sided" if alternative == "two-sided" else "one-sided"
    if method in BOOTSTRAP_METHODS and n_resamples < needed:
        warn(
            f"n_resamples={n_resamples} resolves tails of 1/(B+1) = {1 / (n_resamples + 1):.3g} "
            f"at the finest: the {level * 100:g}% {sides} bootstrap intervals are unbounded (inf "
            f"ends); at least {needed} resamples bound them",
            ResamplingResolutionWarning,
        )


def _compare_one(
    sm: ScoreMatrix,
    *,
    population: PopulationScores | None,
    baseline: object | None,
    method: str,
    correction: str,
    level: float,
    alternative: str,
    n_resamples: int,
    tol: float,
    zero_method: str,
    alpha: float,
    rng: np.random.Generator,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    n_systems = len(sm.systems)
    if baseline is None:
        pairs = all_pairs(n_systems)
    else:
        # systems are named by text, unique as text (1 names the system "1"; True == 1, but
        # its text is "True")
        text = id_text(baseline, "baseline")
        found = [i for i, s in enumerate(sm.systems) if id_text(s, "systems") == text]
        if not found:
            raise ValueError(
                f"baseline must be one of the systems {list(sm.systems)} (measure "
                f"{sm.measure!r}); got {baseline!r}"
                + did_you_mean(text, [str(s) for s in sm.systems])
            )
        pairs = baseline_pairs(n_systems, found[0])
    x = sm.averaged
    n_queries = x.shape[1]
    check_queries(n_queries)
    names = np.array(sm.systems, dtype=object)
    d = paired_differences(x, pairs)
    warn_if_unreliable(
        d, labels=[f"{sm.measure}: {names[a]} - {names[b]}" for a, b in pairs], method=method,
    )
    if population is not None:
        estimand = estimand_label("population", population.truth_model)
        boot = population.bootstrap(sm.measure, pairs)
    else:
        estimand = estimand_label("collection" if sm.has_worlds else "queries", sm.truth_model)
        boot = None
        if method in BOOTSTRAP_METHODS or correction == "romano-wolf":
            boot = paired_bootstrap(x, pairs=pairs, n_resamples=n_resamples, rng=rng)
    inference = paired_inference(
        x, pairs=pairs, method=method, alternative=alternative, confidence_level=level,
        n_resamples=n_resamples, zero_method=zero_method,
        bootstrap=boot if method in BOOTSTRAP_METHODS else None, rng=rng,
    )
    p = inference.pvalue
    if correction in CORRECTIONS:
        if method in ("wilcoxon", "sign") or (
            method == "randomization" and n_queries <= EXACT_MAX_QUERIES
        ):
            _warn_if_exact_unresolvable(
                method, n_queries, len(pairs), alternative, alpha, correction
            )
        elif method in ("randomization", *BOOTSTRAP_METHODS):
            warn_if_unresolvable(
                inference.n_resamples or n_resamples, len(pairs), alpha=alpha,
                method=correction,
            )
        adjusted = adjust_pvalues(p, method=correction)
    elif correction == "romano-wolf":
        adjusted = romano_wolf(boot, alternative=alternative)
    elif correction == "tukey-randomized":
        adjusted = randomized_tukey_hsd(x, pairs=pairs, n_resamples=n_resamples, rng=rng).pvalue
    elif correction == "tukey-anova":
        adjusted = paired_tukey_hsd(x, pairs=pairs).pvalue
    else:
        adjusted = p.copy()
    # never below the row's own p-value: a star implies that row's interval excludes 0; NaN
    # where either is (a degenerate pair's wilcoxon p-value that Romano-Wolf cannot adjust)
    adjusted = np.maximum(adjusted, p)
    wtl = wins_ties_losses(x, pairs=pairs, tie_tolerance=tol)
    means = x.mean(axis=1)
    effect = np.where(inference.degenerate, np.nan, cohens_dz(x, pairs=pairs))
    table = pd.DataFrame(
        {
            "measure": sm.measure,
            "system_a": names[pairs[:, 0]],
            "system_b": names[pairs[:, 1]],
            "mean_a": means[pairs[:, 0]],
            "mean_b": means[pairs[:, 1]],
            "difference": inference.difference,
            "ci_low": inference.ci_low,
            "ci_high": inference.ci_high,
            "confidence_level": level,
            "statistic": inference.statistic,
            "pvalue": p,
            "pvalue_adjusted": adjusted,
            "correction": correction,
            "method": method,
            "hypothesis": inference.hypothesis,
            "estimand": estimand,
            "alternative": alternative,
            "n_queries": n_queries,
            "effect_size": effect,
            "wins": wtl.wins,
            "ties": wtl.ties,
            "losses": wtl.losses,
            "interval": inference.interval,
        },
        columns=list(PAIR_COLUMNS),
    )
    if population is not None:
        dist = boot.difference_distribution
        table["prob_a_better"] = (dist > 0).mean(axis=0)
        table["prob_tie"] = (dist == 0).mean(axis=0)
        dec = population.decomposition(sm.measure, pairs)
    elif sm.has_worlds:
        pref = checked_world_preference(sm.values, pairs, tol)
        table["n_worlds"] = sm.values.shape[0]
        table["prob_a_better"] = pref.prob_better
        table["prob_tie"] = pref.prob_tie
        dec = checked_truth_decomposition(sm.values, pairs)
    else:
        dec = None
    if dec is not None:
        table["var_queries"] = dec.var_queries
        table["var_truth"] = dec.var_truth
        table["share_truth"] = dec.share_truth
    low, high, interval = _system_intervals(x, inference.bootstrap, method, level)
    systems_df = pd.DataFrame(
        {
            "measure": sm.measure,
            "system": names,
            "mean": means,
            "ci_low": low,
            "ci_high": high,
            "confidence_level": level,
            "interval": interval,
            "estimand": estimand,
            "n_queries": n_queries,
        },
        columns=list(SYSTEM_COLUMNS),
    )
    return table, systems_df


def _warn_if_exact_unresolvable(
    method: str, n_queries: int, n_tests: int, alternative: str, alpha: float, correction: str
) -> None:
    """:func:`~fuzzytruth.stats.warn_if_unresolvable` for the tests whose p-values have an
    exact floor set by the number of queries: the randomisation test up to
    :data:`EXACT_MAX_QUERIES` queries, the sign test and the Wilcoxon test.

    Each one's smallest p-value is that of every difference non-zero and of one sign (and its
    mirror image, two-sided): ``2 / 2**n`` two-sided, ``1 / 2**n`` one-sided, for the exact
    flips, the binomial and the exact signed-rank law alike (ties among the sizes do not
    lower it; zero differences dropped raise it). The randomisation test enumerates all
    ``2**n`` flips whatever ``n_resamples`` is: read as B = 2**n resamples, the warning had
    said ``n_resamples=8 ... 1/(B+1) = 0.111`` for 3 queries (the smallest p is 0.25, and
    n_resamples changes nothing), and stayed silent for 36 pairs on 10 queries under Holm,
    where 36 x 2/1024 = 0.07 > 0.05. The Wilcoxon test beyond the exact range
    (:data:`~fuzzytruth.stats.paired.WILCOXON_EXACT_MAX` differences) is the normal
    approximation, whose floor there is far below any threshold.
    """
    p_min = (2.0 if alternative == "two-sided" else 1.0) / 2.0**n_queries
    if can_be_significant(p_min, n_tests, method=correction, alpha=alpha):
        return
    floor = {
        "randomization": f"the randomisation test enumerates all 2**{n_queries} sign flips "
                         "and its",
        "wilcoxon": "the signed-rank test's",
        "sign": "the sign test's",
    }[method]
    warn(
        f"with {n_queries} queries {floor} smallest {alternative} p-value is {p_min:.3g} (every "
        f"difference of one sign): with {n_tests} tests it cannot pass the {correction!r} "
        f"correction at alpha={alpha}, so no comparison can be significant whatever the data "
        "(more queries would change that"
        + (", more resamples would not)" if method == "randomization" else ")"),
        ResamplingResolutionWarning,
    )


def _system_intervals(
    x: np.ndarray, boot: BootstrapResult | None, method: str, level: float
) -> tuple[np.ndarray, np.ndarray, str]:
    """Two-sided interval of each system's mean: the bootstrap's, else the t interval."""
    if boot is not None and method in BOOTSTRAP_METHODS:
        interval = INTERVALS[method]
        ci = boot.confidence_interval(level, method=interval, target="means")
        return ci.low, ci.high, interval
    _, low, high = t_interval(x, "two-sided", significance_level(level))
    return low, high, "t"


def resampling_used(table: pd.DataFrame) -> bool:
    """Whether any row of a comparison table drew resamples (so that B means something).

    Bootstrap procedures, the randomisation test beyond its exact range
    (``n_queries > 16``: all sign flips are enumerated below), the resampled corrections
    (Romano–Wolf, randomised Tukey) and the annotator-population estimand (its replicates)
    resample; the t, Wilcoxon and sign tests with Holm-type corrections do not.

    Examples
    --------
    >>> resampling_used(pd.DataFrame({"method": ["t"], "correction": ["holm"],
    ...                               "estimand": ["queries"], "n_queries": [30]}))
    False
    >>> resampling_used(pd.DataFrame({"method": ["randomization"], "correction": ["holm"],
    ...                               "estimand": ["queries"], "n_queries": [30]}))
    True
    """
    return bool(_own_resampling(table).any() or _population_rows(table).any())


def _population_rows(table: pd.DataFrame) -> np.ndarray:
    """Rows whose estimand is the annotator population (their B replicates were drawn by
    :func:`~fuzzytruth.stats.annotator_bootstrap`)."""
    return np.array([split_estimand(e)[0] == "population" for e in table["estimand"]],
                    dtype=bool)


def _own_resampling(table: pd.DataFrame) -> np.ndarray:
    """Rows for which :func:`compare` itself drew resamples: a bootstrap procedure, sampled
    sign flips (beyond the exact range) or Romano–Wolf on its own bootstrap (the population
    estimand's come with its replicates), and the randomised Tukey test."""
    method = table["method"].to_numpy(dtype=object)
    flips = (method == "randomization") & (table["n_queries"].to_numpy() > EXACT_MAX_QUERIES)
    booted = np.isin(method, BOOTSTRAP_METHODS) | flips
    booted |= (table["correction"] == "romano-wolf").to_numpy()
    return (booted & ~_population_rows(table)) | (
        table["correction"] == "tukey-randomized").to_numpy()
