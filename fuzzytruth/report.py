"""Text for reports, read off the result objects: what was computed, and tables without
columns that carry nothing.

Every word about a procedure here comes from the tables that :func:`fuzzytruth.evaluate` and
:func:`fuzzytruth.stats.compare` return (their ``method``, ``interval``, ``estimand``,
``correction``, ``n_worlds`` columns and the Comparison's ``n_resamples``), never from what a
caller believes it asked for: a report that runs a randomisation test says so, and says B;
one that runs a t test names the t test and prints no B.

* :func:`describe_comparison`: one sentence naming the procedure, estimand, correction, level,
  and the number of worlds, B and the seed only where they were used (the seeds as the result
  objects recorded them, :func:`seed_text`);
* :func:`comparison_table`: one measure's pairs as display strings, with a ``P(A>B)`` column
  only under uncertain truth and an interval column only when the procedure has one;
* :func:`comparison_notes`: what the stars, ``d_z``, ``W/T/L`` and ``P(A>B)`` mean, exactly;
* :func:`comparison_text`: the three together, as the command line prints a comparison;
* :func:`system_table`: each system's mean with its interval over queries (and the estimand
  it generalises to) and its spread over the truths, side by side, the spread dropped when it
  is zero-width (a crisp truth);
* :func:`system_notes`: what each of those intervals means, in words;
* :func:`drop_empty_columns`: a tidy table without all-NaN columns, zero-width interval
  pairs and all-zero Monte Carlo errors;
* :func:`notes_text`: footnotes as the command line prints them below a table.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._resampling import resamples_to_bound
from fuzzytruth._validation import (
    check_columns,
    check_confidence_level,
    check_int,
    check_real,
)
from fuzzytruth.measures.names import label_among
from fuzzytruth.truth.protocol import split_estimand

__all__ = [
    "PROCEDURES",
    "comparison_notes",
    "comparison_table",
    "comparison_text",
    "describe_comparison",
    "drop_empty_columns",
    "notes_text",
    "percent",
    "seed_text",
    "system_notes",
    "system_table",
]

PROCEDURES = {
    "t": "paired t test with its t interval",
    "bootstrap": "studentised bootstrap (bootstrap-t) test and interval",
    "bca": "BCa bootstrap interval with the test that inverts it",
    "percentile": "percentile bootstrap interval with the test that inverts it",
    "basic": "basic bootstrap interval with the test that inverts it",
    "randomization": "paired randomisation (sign-flip) test with the interval that inverts it",
    "wilcoxon": "Wilcoxon signed-rank test (symmetry about 0; no interval)",
    "sign": "sign test (median difference; no interval)",
}
"""What each ``method`` of :func:`~fuzzytruth.stats.compare` is, in words."""

ESTIMANDS = {
    "queries": "new queries like these, judged the same way",
    "collection": "new queries like these, each scored by its expected value under these "
    "annotators' labels",
    "population": "new queries and new annotators of the same kind",
}
"""What each ``estimand`` generalises to, in words."""

_UNDER_MODEL = {
    "collection": "new queries like these, each scored by its expected value under the {} "
    "truth model fitted to these annotators' labels",
    "population": "new queries and new annotators of the same kind, the {} truth model "
    "refitted on each replicate's labels",
}
"""The same words when the truth is a model's fit (``"collection (truth model: M)"``)."""

_CORRECTIONS = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini–Hochberg",
    "by": "Benjamini–Yekutieli",
    "romano-wolf": "Romano–Wolf max-|t| step-down",
    "tukey-randomized": "randomised Tukey HSD (assumes exchangeable systems)",
    "tukey-anova": "Tukey HSD on the paired ANOVA (assumes exchangeable systems)",
    "none": "no",
}


def _one(table: pd.DataFrame, column: str) -> Any:
    values = pd.unique(table[column])
    if len(values) != 1:
        raise ValueError(f"table must hold one {column} per report; got {list(values)}")
    return values[0]


def percent(level: float) -> str:
    """A confidence level as every report and figure prints it: 0.95 -> '95%'.

    >>> percent(0.95), percent(0.975)
    ('95%', '97.5%')
    """
    return f"{round(100 * check_confidence_level(level, 'level'), 6):g}%"


def _level(table: pd.DataFrame) -> str:
    """The table's one confidence level as a percentage, checked (a number in (0, 1))."""
    return percent(check_confidence_level(_one(table, "confidence_level"),
                                          name="the table's confidence_level"))


def _comparison_table(comparison: Any) -> pd.DataFrame:
    """The ``table`` of a :class:`~fuzzytruth.stats.Comparison`, or a ValueError."""
    table = getattr(comparison, "table", None)
    if not isinstance(table, pd.DataFrame):
        raise ValueError(
            "comparison must be a Comparison (from fuzzytruth.stats.compare); got "
            f"{type(comparison).__name__}"
        )
    return table


def _estimand_words(estimand: str) -> str:
    """What an estimand label generalises to, in words, naming its truth model if any."""
    base, model = split_estimand(estimand)
    if model is not None and base in _UNDER_MODEL:
        return _UNDER_MODEL[base].format(model)
    return ESTIMANDS.get(base, estimand)


def _singular(unit: str) -> str:
    """``"query"`` for ``"queries"``, ``"item"`` for ``"items"``: a unit's adjective form."""
    return "query" if unit == "queries" else unit.removesuffix("s")


def _query_count(table: pd.DataFrame) -> str:
    """The number of queries of a table's rows: '100', or a range '98–100' when they differ
    (the expected number per world under ``undefined="skip"`` is rounded)."""
    counts = sorted({round(float(n)) for n in table["n_queries"]})
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"


def seed_text(seed: int | None) -> str:
    """How a report names a recorded seed: ``"seed 5"``, or ``"seed not recorded"`` when the
    ``rng`` was a Generator or None (or the scores came as arrays): nothing then repeats the
    draws (:func:`fuzzytruth._random.recorded_seed`).

    Examples
    --------
    >>> seed_text(5), seed_text(None)
    ('seed 5', 'seed not recorded')
    """
    return "seed not recorded" if seed is None else f"seed {seed}"


def _seeds(draws: dict[str, int | None]) -> str:
    """The seeds of what was drawn: one phrase when they are one seed, else one per draw."""
    if len(set(draws.values())) == 1:
        return seed_text(next(iter(draws.values())))
    return " and ".join(f"{seed_text(seed)} for the {kind}" for kind, seed in draws.items())


def describe_comparison(comparison: Any) -> str:
    """One sentence saying what a :class:`~fuzzytruth.stats.Comparison` computed.

    The procedure (from ``method``), its estimand and what that generalises to, the
    correction, the alternative and level, the number of queries; the number of ground-truth
    worlds only where the scores came from worlds, B only where resampling was used, and the
    seed of what was drawn only where something was (:attr:`Comparison.draws
    <fuzzytruth.stats.Comparison.draws>`: the seeds the result objects recorded,
    :func:`seed_text`).

    Examples
    --------
    >>> import numpy as np
    >>> from fuzzytruth.stats import compare
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.random((2, 30))
    >>> print(describe_comparison(compare(scores, rng=0)))
    paired t test with its t interval, two-sided, 95% level, estimand "queries" (new queries like these, judged the same way), Holm correction within each measure, 30 queries.
    >>> print(describe_comparison(compare(scores, method="randomization", n_resamples=999,
    ...                                   rng=0)))
    paired randomisation (sign-flip) test with the interval that inverts it, two-sided, 95% level, estimand "queries" (new queries like these, judged the same way), Holm correction within each measure, 30 queries, B = 999 resamples, seed 0.
    >>> describe_comparison(compare(scores, method="bootstrap", n_resamples=999,
    ...                             rng=np.random.default_rng(0))).endswith("seed not recorded.")
    True
    """  # noqa: E501
    table = _comparison_table(comparison)
    method = _one(table, "method")
    estimand = _one(table, "estimand")
    unit = comparison.unit
    parts = [
        PROCEDURES.get(method, method),
        f"{_one(table, 'alternative')}",
        f"{_level(table)} level",
        f'estimand "{estimand}" ({_estimand_words(estimand).replace("queries", unit)})',
        f"{_CORRECTIONS.get(_one(table, 'correction'), _one(table, 'correction'))} correction "
        "within each measure",
        f"{_query_count(table)} {unit}",
    ]
    draws = comparison.draws
    if "worlds" in draws:
        parts.append(f"each {_singular(unit)}'s score averaged over "
                     f"{int(table['n_worlds'].max())} sampled ground-truth worlds")
    if "replicates" in draws or "resamples" in draws:
        noun = "replicates" if "replicates" in draws else "resamples"
        parts.append(f"B = {comparison.n_resamples} {noun}")
    if draws:
        parts.append(_seeds(draws))
    return ", ".join(parts) + "."


def _interval(low: float, high: float, digits: int, sign: str = "") -> str:
    """An interval as ``[low, high]`` to ``digits`` decimals (``sign`` ``"+"`` prints the
    plus sign), more for an end that is not 0 but would print as one, so that whether the
    interval holds 0 reads off it; an infinite end (a one-sided interval) printed as ``-inf``
    or ``+inf``; ``"none"`` when an end is NaN (no interval).

    Examples
    --------
    >>> _interval(-float("inf"), 0.25, 3, "+"), _interval(0.1, float("nan"), 3)
    ('[-inf, +0.250]', 'none')
    >>> _interval(0.00004, 0.062, 3, "+"), _interval(-0.0004, 0.2, 3)
    ('[+0.00004, +0.062]', '[-0.0004, 0.200]')
    """
    if np.isnan(low) or np.isnan(high):
        return "none"
    ends = []
    for end in (low, high):
        decimals = digits
        while np.isfinite(end) and end != 0 and float(f"{end:.{decimals}f}") == 0:
            decimals += 1
        ends.append(f"{end:{sign}.{decimals}f}")
    return f"[{ends[0]}, {ends[1]}]"


def _p(value: float, alpha: float) -> str:
    """A p-value as :func:`comparison_table` prints it: three decimals, ``<0.001`` below
    0.001 (below ``alpha`` when that is smaller), and more decimals where three would put it
    on the other side of ``alpha`` than it is, so that the printed value agrees with the star
    (``p < alpha``) beside it: 0.04975 prints as 0.0497, not as 0.050 with a star.

    Examples
    --------
    >>> _p(0.04975, 0.05), _p(0.0503, 0.05), _p(0.0004, 0.05), _p(0.0004, 0.0001)
    ('0.0497', '0.050', '<0.001', '0.0004')
    """
    if not np.isfinite(value):
        return "nan"
    floor = min(0.001, alpha)
    if value < floor:
        return f"<{np.format_float_positional(floor)}"
    decimals = 3
    while (float(f"{value:.{decimals}f}") < alpha) != (value < alpha):
        decimals += 1
    return f"{value:.{decimals}f}"


def _share(value: float) -> str:
    """A share (``P(A>B)``) to two decimals, more where two would print a share strictly
    between 0 and 1 as 0.00 or 1.00, the words for none and all of the worlds.

    Examples
    --------
    >>> _share(0.9975), _share(0.0025), _share(0.994), _share(1.0)
    ('0.998', '0.003', '0.99', '1.00')
    """
    decimals = 2
    while 0 < value < 1 and float(f"{value:.{decimals}f}") in (0, 1):
        decimals += 1
    return f"{value:.{decimals}f}"


def comparison_table(comparison: Any, measure: str, *, digits: int = 3) -> pd.DataFrame:
    """One measure's pairs as display strings, without columns that carry nothing.

    Columns ``A, B, mean A, mean B, A − B``, the interval (``95% CI``; left out when the
    procedure has none, as the Wilcoxon and sign tests), ``p, p adj, d_z, W/T/L``,
    ``P(A>B)`` (only when the table has ``prob_a_better``: uncertain truth) and a star
    column (``*`` where ``pvalue_adjusted < alpha``). :func:`comparison_notes` explains them.
    p-values have three decimals, more where three would round them across ``alpha`` (so a
    printed p-value is below ``alpha`` exactly when it is); an interval's end that is not 0
    gets more decimals where ``digits`` would print it as 0, and ``P(A>B)`` where two would
    print a share that is neither 0 nor 1 as one of them.

    Examples
    --------
    >>> import numpy as np
    >>> from fuzzytruth.stats import compare
    >>> rng = np.random.default_rng(0)
    >>> result = compare(rng.random((2, 30)) + [[0.2], [0.0]], measure="AP", rng=0)
    >>> print(comparison_table(result, "AP").to_string(index=False))
          A       B mean A mean B  A − B           95% CI     p p adj  d_z  W/T/L
    system0 system1  0.734  0.476 +0.258 [+0.103, +0.413] 0.002 0.002 0.62 22/0/8 *
    """
    digits = check_int("digits", digits)
    every = _comparison_table(comparison)
    known = list(pd.unique(every["measure"]))
    if not isinstance(measure, str):
        raise ValueError(f"measure must be one of {known}; got {measure!r}")
    table = every[every["measure"] == label_among(measure, known)]  # "map" finds "AP"
    level = f"{_level(table)} CI"
    shown = pd.DataFrame({
        "A": table["system_a"].astype(str),
        "B": table["system_b"].astype(str),
        "mean A": table["mean_a"].map(lambda v: f"{v:.{digits}f}"),
        "mean B": table["mean_b"].map(lambda v: f"{v:.{digits}f}"),
        "A − B": table["difference"].map(lambda v: f"{v:+.{digits}f}"),
    })
    if table[["ci_low", "ci_high"]].notna().any(axis=None):
        shown[level] = [_interval(lo, hi, digits, "+")
                        for lo, hi in zip(table["ci_low"], table["ci_high"], strict=True)]
    shown["p"] = table["pvalue"].map(lambda v: _p(v, comparison.alpha))
    shown["p adj"] = table["pvalue_adjusted"].map(lambda v: _p(v, comparison.alpha))
    shown["d_z"] = table["effect_size"].map(lambda v: f"{v:.2f}")
    shown["W/T/L"] = [f"{w}/{t}/{lo}" for w, t, lo in
                      zip(table["wins"], table["ties"], table["losses"], strict=True)]
    if "prob_a_better" in table.columns and table["prob_a_better"].notna().any():
        shown["P(A>B)"] = table["prob_a_better"].map(_share)
    shown[""] = np.where(table["pvalue_adjusted"] < comparison.alpha, "*", "")
    return shown.reset_index(drop=True)


def comparison_notes(comparison: Any) -> list[str]:
    """Footnotes for :func:`comparison_table`: the star, ``d_z``, ``W/T/L``, the pairs whose
    numbers are not defined (``nan``: no spread) and ``P(A>B)``.

    ``P(A>B)`` is explained as :func:`~fuzzytruth.stats.compare` computes it: for estimand
    "collection" the share of the sampled ground-truth worlds in which A's mean over these
    queries is higher than B's (queries and labels fixed: a description of the truth's
    uncertainty, not a test); for "population" the share of the two-stage replicates (new
    queries and new annotators) in which A's mean is higher.

    Examples
    --------
    >>> import numpy as np
    >>> from fuzzytruth.stats import compare
    >>> worlds = np.random.default_rng(0).random((40, 2, 30))  # 40 worlds, 2 systems
    >>> for note in comparison_notes(compare(worlds, rng=0)):
    ...     print(note)
    Starred rows (*): adjusted p < 0.05 (Holm within each measure); their intervals exclude 0.
    d_z: Cohen's d_z, the mean difference over the standard deviation of the per-query differences.
    W/T/L: queries on which A's score is higher / equal / lower than B's.
    P(A>B): the share of the 40 sampled ground-truth worlds in which A's mean over these 30 queries is higher than B's (ties apart); the queries and the labels are held fixed, so it describes the truth's uncertainty and is not a test.
    """  # noqa: E501
    table = _comparison_table(comparison)
    unit = comparison.unit
    correction = _one(table, "correction")
    if correction == "none":  # nothing adjusted
        star = f"Starred rows (*): p < {comparison.alpha:g} (no correction)"
    else:
        star = (f"Starred rows (*): adjusted p < {comparison.alpha:g} "
                f"({_CORRECTIONS.get(correction, correction)} within each measure)")
    notes = [
        star + "; their intervals exclude 0."
        if table[["ci_low", "ci_high"]].notna().any(axis=None) else star + ".",
        "d_z: Cohen's d_z, the mean difference over the standard deviation of the "
        f"per-{_singular(unit)} differences.",
        f"W/T/L: {unit} on which A's score is higher / equal / lower than B's.",
    ]
    alternative, level = _one(table, "alternative"), _one(table, "confidence_level")
    bounded = [end for end, side in (("ci_low", "less"), ("ci_high", "greater"))
               if alternative != side]  # the ends an interval of this alternative bounds
    if np.isinf(table[bounded].to_numpy(dtype=float)).any():  # bootstrap tails unresolved
        needed = resamples_to_bound(level, alternative)
        notes.append(
            f"inf: B = {comparison.n_resamples} resamples resolve tails of "
            f"1/(B+1) = {1 / (comparison.n_resamples + 1):.3g} at the finest, so the "
            f"{percent(level)} intervals are unbounded; at least {needed} bound them."
        )
    flat = table["effect_size"].isna() & table["difference"].notna()
    if flat.any():  # the pairs compare() warned about, named where the warning is not seen
        undefined = ["d_z"] + [what for what, columns in (("a test", ["pvalue"]),
                                                          ("an interval", ["ci_low", "ci_high"]))
                               if table.loc[flat, columns].isna().all(axis=None)]
        listed = (f"{', '.join(undefined[:-1])} and {undefined[-1]} are" if len(undefined) > 1
                  else "d_z is")
        notes.append(f"nan: {int(flat.sum())} pair(s) have the same difference on every "
                     f"{_singular(unit)} (no spread), so {listed} not defined for them.")
    if "prob_a_better" in table.columns and table["prob_a_better"].notna().any():
        estimand = _one(table, "estimand")
        n_queries = _query_count(table)
        base, model = split_estimand(estimand)
        if base == "population":
            rebuilt = "membership rebuilt" if model is None else f"{model} refitted"
            notes.append(
                f"P(A>B): the share of the {comparison.n_resamples} two-stage bootstrap "
                f"replicates ({unit} and annotators resampled, {rebuilt}) in which "
                "A's mean is higher than B's."
            )
        else:
            worlds = int(table["n_worlds"].max())
            notes.append(
                f"P(A>B): the share of the {worlds} sampled ground-truth worlds in which A's "
                f"mean over these {n_queries} {unit} is higher than B's (ties apart); the "
                f"{unit} and the labels are held fixed, so it describes the truth's "
                "uncertainty and is not a test."
            )
    return notes


def _fill(text: str, width: int) -> str:
    """``text`` wrapped to ``width``, never inside a word (``per-query`` stays whole)."""
    width = check_int("width", width, minimum=1)
    return textwrap.fill(text, width=width, break_on_hyphens=False, break_long_words=False)


def notes_text(notes: list[str], *, width: int = 100) -> str:
    """Footnotes as plain text, one a line, each wrapped to ``width`` characters (never
    inside a word), as the command line prints them below a table.

    Examples
    --------
    >>> print(notes_text(["W/T/L: queries on which A's score is higher / equal / lower."],
    ...                  width=40))
    W/T/L: queries on which A's score is
    higher / equal / lower.
    """
    if not isinstance(notes, list | tuple) or not all(isinstance(n, str) for n in notes):
        raise ValueError(f"notes must be a list of str; got {notes!r}")
    return "\n".join(_fill(note, width) for note in notes)


def comparison_text(comparison: Any, *, digits: int = 3, width: int = 100) -> str:
    """A :class:`~fuzzytruth.stats.Comparison` as plain text: what was computed
    (:func:`describe_comparison`), one table per measure (:func:`comparison_table`, numbers
    to ``digits``) and the footnotes (:func:`comparison_notes`), prose wrapped to ``width``
    characters. ``print(comparison)`` prints it.

    Examples
    --------
    >>> import numpy as np
    >>> from fuzzytruth.stats import compare
    >>> scores = np.random.default_rng(0).random((2, 30)) + [[0.2], [0.0]]
    >>> print(comparison_text(compare(scores, measure="AP", rng=0), width=72))
    paired t test with its t interval, two-sided, 95% level, estimand
    "queries" (new queries like these, judged the same way), Holm correction
    within each measure, 30 queries.
    <BLANKLINE>
    [AP]
          A       B mean A mean B  A − B           95% CI     p p adj  d_z  W/T/L
    system0 system1  0.734  0.476 +0.258 [+0.103, +0.413] 0.002 0.002 0.62 22/0/8 *
    <BLANKLINE>
    Starred rows (*): adjusted p < 0.05 (Holm within each measure); their
    intervals exclude 0.
    d_z: Cohen's d_z, the mean difference over the standard deviation of the
    per-query differences.
    W/T/L: queries on which A's score is higher / equal / lower than B's.
    """
    blocks = [_fill(describe_comparison(comparison), width)]
    for measure in pd.unique(_comparison_table(comparison)["measure"]):
        table = comparison_table(comparison, measure, digits=digits).to_string(index=False)
        blocks.append(f"[{measure}]\n{table}")
    blocks.append(notes_text(comparison_notes(comparison), width=width))
    return "\n\n".join(blocks) + "\n"


_INTERVAL_PAIRS = (("ci_low", "ci_high"), ("truth_low", "truth_high"))
_SYSTEM_COLUMNS = ("system", "measure", "value", "ci_low", "ci_high", "estimand", "method")
"""The columns :func:`system_table` reads (of :meth:`Evaluation.aggregate
<fuzzytruth.evaluation.Evaluation.aggregate>`); the truths' pair when present."""


def drop_empty_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` without the columns that carry nothing.

    Dropped: columns that are NaN in every row (an interval the procedure does not give);
    the spread over truths (``truth_low/truth_high`` with ``truth_std``) when its ends are
    equal in every row (zero width: a crisp truth, or one every world agrees on); ``mc_se``
    (nothing was sampled) and ``p_undefined`` (every value defined) when 0 everywhere. The
    interval over queries (``ci_low/ci_high``) stays when it has zero width: that says the
    queries' values do not vary, and a table read by a program keeps its columns.

    Examples
    --------
    >>> from fuzzytruth import Qrels, Run, evaluate
    >>> qrels = Qrels(["q1", "q2", "q3"], ["a", "b", "c"], [1, 1, 1])
    >>> run = Run(["q1", "q2", "q3"], ["a", "x", "c"], [1.0, 1.0, 1.0])
    >>> table = evaluate(run, qrels, "P@1").aggregate()
    >>> list(drop_empty_columns(table).columns)
    ['system', 'measure', 'value', 'ci_low', 'ci_high', 'estimand', 'n_queries', 'confidence_level', 'method']
    """  # noqa: E501
    check_columns(frame, "frame", [], rows=False)
    drop = [c for c in frame.columns if frame[c].isna().all()]
    if "truth_low" in frame.columns and "truth_high" in frame.columns:
        low, high = frame["truth_low"], frame["truth_high"]
        if ((low == high) | (low.isna() & high.isna())).all():
            drop += ["truth_low", "truth_high", "truth_std"]
    for column in ("mc_se", "p_undefined"):
        if column in frame.columns and (frame[column].fillna(0) == 0).all():
            drop.append(column)
    return frame.drop(columns=[c for c in dict.fromkeys(drop) if c in frame.columns])


def system_table(aggregate: pd.DataFrame, *, digits: int = 3) -> pd.DataFrame:
    """Each system's mean with its two intervals, as display strings.

    Columns ``system, measure, mean``, ``over queries`` (``ci_low``–``ci_high``),
    ``estimand`` (what that interval generalises to), ``over truths``
    (``truth_low``–``truth_high``; left out when zero-width everywhere, as with a crisp
    truth, or absent) and ``method``. :func:`system_notes` says what the two intervals mean.

    Examples
    --------
    >>> from fuzzytruth import Qrels, Run, evaluate
    >>> qrels = Qrels(["q1", "q2", "q3"], ["a", "b", "c"], [1, 1, 1])
    >>> run = Run(["q1", "q2", "q3"], ["a", "x", "c"], [1.0, 1.0, 1.0])
    >>> print(system_table(evaluate(run, qrels, "P@1").aggregate()).to_string(index=False))
    system measure  mean    over queries estimand method
       run     P@1 0.667 [-0.768, 2.101]  queries  crisp
    """
    digits = check_int("digits", digits)
    # an Evaluation (not a table): its aggregate() is the table read
    if not hasattr(aggregate, "columns") and callable(getattr(aggregate, "aggregate", None)):
        raise ValueError(f"aggregate must be a pandas DataFrame; got "
                         f"{type(aggregate).__name__}: pass its table, evaluation.aggregate()")
    check_columns(aggregate, "aggregate", _SYSTEM_COLUMNS, rows=False)
    check_real(aggregate, "aggregate")
    kept = drop_empty_columns(aggregate)
    shown = pd.DataFrame({
        "system": aggregate["system"].astype(str),
        "measure": aggregate["measure"].astype(str),
        "mean": aggregate["value"].map(lambda v: f"{v:.{digits}f}"),
    })
    for name, (low, high) in zip(("over queries", "over truths"), _INTERVAL_PAIRS, strict=True):
        if low in kept.columns:
            shown[name] = [_interval(lo, hi, digits)
                           for lo, hi in zip(aggregate[low], aggregate[high], strict=True)]
        if name == "over queries":
            shown["estimand"] = aggregate["estimand"].astype(str)
    shown["method"] = aggregate["method"].astype(str)
    return shown.reset_index(drop=True)


def system_notes(
    aggregate: pd.DataFrame, *, n_worlds: int = 0, columns: bool = False,
    unit: str = "queries",
) -> list[str]:
    """What the two intervals of :func:`system_table` mean, in words, from the table.

    With ``columns`` the notes name the tidy table's columns (``ci_low, ci_high`` and
    ``truth_low, truth_high``, as :meth:`Evaluation.aggregate` and the command line print
    them) instead of :func:`system_table`'s headers. ``unit`` names what was sampled:
    ``"items"`` for classifiers, whose items play the queries.

    Examples
    --------
    >>> table = pd.DataFrame({"value": [0.5], "ci_low": [0.4], "ci_high": [0.6],
    ...     "estimand": ["collection"], "n_queries": [100], "truth_low": [0.48],
    ...     "truth_high": [0.52], "confidence_level": [0.95]})
    >>> for note in system_notes(table, n_worlds=500):
    ...     print(note)
    over queries: the 95% t interval over the 100 queries (estimand "collection"): where the mean would fall with new queries like these, each scored by its expected value under these annotators' labels.
    over truths: the middle 95% of the mean over 500 sampled ground-truth worlds, the queries held fixed: how much the annotators' disagreement alone moves it.
    """  # noqa: E501
    check_columns(aggregate, "aggregate", ["confidence_level", "estimand", "n_queries"])
    n_worlds = check_int("n_worlds", n_worlds)
    if not isinstance(unit, str):
        raise ValueError(f"unit must be a str (queries, items); got {unit!r}")
    level = _level(aggregate)
    estimand = _one(aggregate, "estimand")
    n_queries = _query_count(aggregate)
    queries, truths = (("ci_low, ci_high", "truth_low, truth_high") if columns
                       else ("over queries", "over truths"))
    words = _estimand_words(estimand).replace("queries", unit)
    shown = drop_empty_columns(aggregate).columns
    if "ci_low" in shown:
        notes = [
            f"{queries}: the {level} t interval over the {n_queries} {unit} (estimand "
            f'"{estimand}"): where the mean would fall with {words}.'
        ]
    else:  # one query: no t interval (the table has no such column)
        notes = [f"no interval over the {unit}: a t interval needs at least two {unit} "
                 f"with a value (here {n_queries})."]
    if "truth_low" in shown:
        model = split_estimand(estimand)[1]
        source = ("the annotators' disagreement" if model is None
                  else f"the {model} truth model's uncertainty about the labels")
        notes.append(
            f"{truths}: the middle {level} of the mean over {n_worlds} sampled "
            f"ground-truth worlds, the {unit} held fixed: how much {source} alone moves it."
        )
    return notes
