"""``compare()``: every pairwise comparison of systems in one tidy table."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fuzzytruth.progress import track
from fuzzytruth.stats._validation import (
    all_pairs,
    baseline_pairs,
    check_alpha,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_n_resamples,
    check_tolerance,
)
from fuzzytruth.stats.bootstrap import INTERVAL_METHODS, TWO_LEVEL_METHODS, paired_bootstrap
from fuzzytruth.stats.effect import cohens_dz, wins_ties_losses
from fuzzytruth.stats.multiple import (
    CORRECTIONS,
    adjust_pvalues,
    paired_tukey_hsd,
    randomized_tukey_hsd,
    warn_if_unresolvable,
)
from fuzzytruth.stats.paired import TESTS, ZERO_METHODS, paired_test
from fuzzytruth.stats.scores import ScoreMatrix, as_score_matrices
from fuzzytruth.stats.worlds import world_preference

ALL_CORRECTIONS = (*CORRECTIONS, "tukey-randomized", "tukey-anova", "none")

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
    "n_queries",
)


@dataclass(frozen=True, eq=False)
class Comparison:
    """Result of :func:`compare`: tidy tables plus text and LaTeX renderings.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per measure and pair, columns ``measure, system_a, system_b, mean_a, mean_b,
        difference, ci_low, ci_high, confidence_level, statistic, pvalue, pvalue_adjusted,
        correction, method, alternative, n_queries, effect_size, wins, ties, losses,
        interval``; with ground-truth worlds also ``n_worlds, prob_a_better, prob_tie,
        width_queries, width_worlds, width_combined, share_worlds`` (see
        :class:`~fuzzytruth.stats.UncertaintyDecomposition`; ``prob_a_better`` is the share of
        worlds where A's mean over all queries is higher). ``difference = mean_a - mean_b``.
    systems : pandas.DataFrame
        One row per measure and system: ``measure, system, mean, ci_low, ci_high,
        confidence_level, interval, n_queries``.
    alpha : float
        Level used to flag significant rows (``pvalue_adjusted < alpha``) in the renderings.
    n_resamples : int
        B used by the bootstrap intervals and Monte Carlo tests.
    """

    table: pd.DataFrame
    systems: pd.DataFrame
    alpha: float
    n_resamples: int

    def significant(self) -> pd.DataFrame:
        """Rows whose adjusted p-value is below ``alpha``."""
        return self.table[self.table["pvalue_adjusted"] < self.alpha].reset_index(drop=True)

    def summary(self, *, digits: int = 3) -> str:
        """A readable report: settings, then one block per measure (``*`` = significant)."""
        t = self.table
        first = t.iloc[0]
        level = f"{first['confidence_level']:.0%}"
        lines = [
            f"Paired comparison of {self.systems['system'].nunique()} systems: "
            f"test={first['method']}, "
            f"correction={first['correction']}, alternative={first['alternative']}, "
            f"{level} {first['interval']} intervals, B={self.n_resamples}, "
            f"* = adjusted p < {self.alpha:g}",
        ]
        for measure, block in t.groupby("measure", sort=False):
            lines.append("")
            lines.append(f"[{measure}] {int(block['n_queries'].iloc[0])} queries")
            shown = pd.DataFrame(
                {
                    "A": block["system_a"].astype(str),
                    "B": block["system_b"].astype(str),
                    "mean A": block["mean_a"].map(lambda v: f"{v:.{digits}f}"),
                    "mean B": block["mean_b"].map(lambda v: f"{v:.{digits}f}"),
                    "A - B": block["difference"].map(lambda v: f"{v:+.{digits}f}"),
                    f"{level} CI": [
                        f"[{lo:+.{digits}f}, {hi:+.{digits}f}]"
                        for lo, hi in zip(block["ci_low"], block["ci_high"], strict=True)
                    ],
                    "p": block["pvalue"].map(_format_p),
                    "p adj": block["pvalue_adjusted"].map(_format_p),
                    "d_z": block["effect_size"].map(lambda v: f"{v:.2f}"),
                    "W/T/L": [
                        f"{w}/{ti}/{lo}"
                        for w, ti, lo in zip(
                            block["wins"], block["ties"], block["losses"], strict=True
                        )
                    ],
                    "": np.where(block["pvalue_adjusted"] < self.alpha, "*", ""),
                }
            )
            if "prob_a_better" in block and block["prob_a_better"].notna().any():
                shown.insert(
                    len(shown.columns) - 1,
                    "P(A>B|truth)",
                    block["prob_a_better"].map(lambda v: f"{v:.2f}"),
                )
            lines.append(shown.to_string(index=False))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def to_latex(
        self,
        *,
        digits: int = 3,
        caption: str | None = None,
        label: str | None = None,
    ) -> str:
        """A booktabs ``table`` environment; significant differences are set in bold.

        Needs ``\\usepackage{booktabs}``.

        Columns: measure, A, B, A - B, the interval, the adjusted p-value, d_z and W/T/L.
        Text is escaped for LaTeX (``_``, ``%``, ``&``, ``#``, ``$``, ``{``, ``}``, ``~``,
        ``^``, ``\\``).
        """
        level = f"{self.table['confidence_level'].iloc[0] * 100:g}\\%"
        head = ("Measure", "A", "B", "$A - B$", f"{level} CI", "$p_{adj}$", "$d_z$", "W/T/L")
        rows = []
        for r in self.table.itertuples(index=False):
            diff = f"{r.difference:+.{digits}f}"
            diff = f"$\\mathbf{{{diff}}}$" if r.pvalue_adjusted < self.alpha else f"${diff}$"
            rows.append(
                (
                    _latex_escape(r.measure),
                    _latex_escape(r.system_a),
                    _latex_escape(r.system_b),
                    diff,
                    f"$[{r.ci_low:+.{digits}f}, {r.ci_high:+.{digits}f}]$",
                    _format_p(r.pvalue_adjusted),
                    f"{r.effect_size:.2f}",
                    f"{r.wins}/{r.ties}/{r.losses}",
                )
            )
        out = ["\\begin{table}", "\\centering"]
        if caption is not None:
            out.append(f"\\caption{{{_latex_escape(caption)}}}")
        if label is not None:
            out.append(f"\\label{{{label}}}")
        out += [
            "\\begin{tabular}{lllrcrrc}",
            "\\toprule",
            " & ".join(head) + " \\\\",
            "\\midrule",
            *(" & ".join(row) + " \\\\" for row in rows),
            "\\bottomrule",
            "\\end{tabular}",
            "\\end{table}",
        ]
        return "\n".join(out) + "\n"


def _format_p(p: float) -> str:
    if not np.isfinite(p):
        return "nan"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


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
}


def _latex_escape(value: object) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(value))


def compare(
    scores: object,
    *,
    systems: Iterable[object] | None = None,
    queries: Iterable[object] | None = None,
    measure: str | None = None,
    baseline: object | None = None,
    method: str = "t",
    correction: str = "holm",
    interval: str | None = None,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    tie_tolerance: float = 0.0,
    zero_method: str = "wilcox",
    alpha: float = 0.05,
    rng: np.random.Generator | int | None = None,
    progress: bool | None = None,
) -> Comparison:
    """Compare systems pairwise on one or several measures, with intervals and corrections.

    Parameters
    ----------
    scores : Evaluation, array_like, mapping, ScoreMatrix or pandas.DataFrame
        An :class:`~fuzzytruth.evaluation.Evaluation` is read through its ``scores_frame()``
        (with the ground-truth worlds when it drew any).
        Per-query scores: an array ``(n_systems, n_queries)`` or, with ground-truth worlds,
        ``(n_worlds, n_systems, n_queries)``; a mapping of measure name to such arrays; or a
        tidy long table with columns ``system, query_id, measure, value[, world]``.
    systems, queries : sequence, optional
        Labels for array input (default ``system0, ...`` and ``q0, ...``).
    measure : str, optional
        Name of the measure for array input, or the one measure to keep from a table.
    baseline : label, optional
        Compare every other system with this one (``system_a`` = the other system,
        ``system_b`` = the baseline); default all pairs ``i < j`` in system order.
    method : {"t", "randomization", "wilcoxon", "sign", "bootstrap"}
        The paired test (see :func:`~fuzzytruth.stats.paired_test`). With worlds the tests
        run on the scores averaged over worlds (each query's expected score).
    correction : {"holm", "bonferroni", "bh", "by", "tukey-randomized", "tukey-anova", "none"}
        Multiple-comparison adjustment, applied within each measure over the reported pairs
        (Holm, Bonferroni, Benjamini–Hochberg, Benjamini–Yekutieli on the test's p-values), or
        replacing them by a Tukey HSD family over all systems (randomised, or on the paired
        two-way ANOVA; two-sided only).
    interval : {"bca", "percentile", "basic", "studentized"}, optional
        Bootstrap interval for means and differences; default ``"bca"``, or ``"percentile"``
        with worlds (two-level resampling supports ``"percentile"`` and ``"basic"``).
    confidence_level : float
        Coverage of the intervals.
    alternative : {"two-sided", "less", "greater"}
        Alternative hypothesis of the tests (``"greater"``: A scores higher).
    n_resamples : int
        B for the bootstrap and the Monte Carlo tests.
    tie_tolerance : float
        A query is a tie when ``|score_a - score_b| <= tie_tolerance`` (default 0).
    zero_method : {"wilcox", "pratt", "zsplit"}
        Zero differences in the Wilcoxon test.
    alpha : float
        Significance level for flags and for the resampling-resolution warning.
    rng : numpy.random.Generator or int, optional
        Seed or generator; every random step draws from it in a fixed order.
    progress : bool, optional
        Progress bar on stderr: None (default) draws it only when stderr is a terminal,
        True always, False never (one step per measure).

    Returns
    -------
    Comparison

    Warns
    -----
    ResamplingResolutionWarning
        When a Monte Carlo test with B resamples cannot give any p-value small enough to pass
        the correction (B + 1 < m / alpha for Bonferroni and Holm).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(30)
    >>> dense = base + 0.1 + 0.2 * rng.standard_normal(30)
    >>> near = base + 0.02 * rng.standard_normal(30)
    >>> res = compare(np.vstack([base, dense, near]), systems=["bm25", "dense", "near"],
    ...               measure="nDCG@10", baseline="bm25", n_resamples=2000, rng=1)
    >>> res.table[["system_a", "system_b", "difference", "pvalue_adjusted", "wins", "losses"]]
      system_a system_b  difference  pvalue_adjusted  wins  losses
    0    dense     bm25    0.155216         0.000225    23       7
    1     near     bm25    0.003493         0.391606    17      13
    >>> print(res)  # doctest: +NORMALIZE_WHITESPACE
    Paired comparison of 3 systems: test=t, correction=holm, alternative=two-sided,
    95% bca intervals, B=2000, * = adjusted p < 0.05
    <BLANKLINE>
    [nDCG@10] 30 queries
        A    B mean A mean B  A - B           95% CI      p  p adj  d_z   W/T/L
    dense bm25  0.690  0.534 +0.155 [+0.087, +0.221] <0.001 <0.001 0.81  23/0/7 *
     near bm25  0.538  0.534 +0.003 [-0.004, +0.011]  0.392  0.392 0.16 17/0/13
    """
    method = check_choice("method", method, TESTS)
    correction = check_choice("correction", correction, ALL_CORRECTIONS)
    level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    n_resamples = check_n_resamples(n_resamples, minimum=2)
    tol = check_tolerance(tie_tolerance)
    zero_method = check_choice("zero_method", zero_method, ZERO_METHODS)
    alpha = check_alpha(alpha)
    if interval is not None:
        check_choice("interval", interval, INTERVAL_METHODS)
    if correction.startswith("tukey") and alternative != "two-sided":
        raise ValueError(
            f"correction={correction!r} is two-sided only; alternative must be 'two-sided', "
            f"got {alternative!r}"
        )
    matrices = as_score_matrices(scores, systems=systems, queries=queries, measure=measure)
    rng = np.random.default_rng(rng)
    pair_frames, system_frames = [], []
    measures = track(
        matrices.values(), total=len(matrices), desc="compare", unit="measure", progress=progress
    )
    for sm in measures:
        pairs_df, systems_df = _compare_one(
            sm,
            baseline=baseline,
            method=method,
            correction=correction,
            interval=interval,
            level=level,
            alternative=alternative,
            n_resamples=n_resamples,
            tol=tol,
            zero_method=zero_method,
            alpha=alpha,
            rng=rng,
        )
        pair_frames.append(pairs_df)
        system_frames.append(systems_df)
    return Comparison(
        table=pd.concat(pair_frames, ignore_index=True),
        systems=pd.concat(system_frames, ignore_index=True),
        alpha=alpha,
        n_resamples=n_resamples,
    )


def _compare_one(
    sm: ScoreMatrix,
    *,
    baseline: object | None,
    method: str,
    correction: str,
    interval: str | None,
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
        if baseline not in sm.systems:
            raise ValueError(
                f"baseline must be one of the systems {list(sm.systems)} (measure "
                f"{sm.measure!r}); got {baseline!r}"
            )
        pairs = baseline_pairs(n_systems, sm.systems.index(baseline))
    if interval is None:
        interval = "percentile" if sm.has_worlds else "bca"
    elif sm.has_worlds and interval not in TWO_LEVEL_METHODS:
        raise ValueError(
            f"interval must be one of {list(TWO_LEVEL_METHODS)} for scores with ground-truth "
            f"worlds (two-level resampling); got {interval!r}"
        )
    x = sm.averaged
    test = paired_test(
        x,
        pairs=pairs,
        method=method,
        alternative=alternative,
        n_resamples=n_resamples,
        zero_method=zero_method,
        rng=rng,
    )
    if correction in CORRECTIONS:
        if method in ("randomization", "bootstrap") and not test.exact.all():
            warn_if_unresolvable(
                n_resamples, len(pairs), alpha=alpha, method=correction, stacklevel=4
            )
        adjusted = adjust_pvalues(test.pvalue, method=correction, alpha=alpha)
    elif correction == "tukey-randomized":
        adjusted = randomized_tukey_hsd(x, pairs=pairs, n_resamples=n_resamples, rng=rng).pvalue
    elif correction == "tukey-anova":
        adjusted = paired_tukey_hsd(x, pairs=pairs).pvalue
    else:
        adjusted = test.pvalue.copy()
    boot = paired_bootstrap(sm.values, pairs=pairs, n_resamples=n_resamples, rng=rng)
    ci_diff = boot.confidence_interval(level, method=interval, target="differences")
    ci_mean = boot.confidence_interval(level, method=interval, target="means")
    wtl = wins_ties_losses(x, pairs=pairs, tie_tolerance=tol)
    names = np.array(sm.systems, dtype=object)
    n_queries = x.shape[1]
    table = pd.DataFrame(
        {
            "measure": sm.measure,
            "system_a": names[pairs[:, 0]],
            "system_b": names[pairs[:, 1]],
            "mean_a": boot.mean[pairs[:, 0]],
            "mean_b": boot.mean[pairs[:, 1]],
            "difference": boot.difference,
            "ci_low": ci_diff.low,
            "ci_high": ci_diff.high,
            "confidence_level": level,
            "statistic": test.statistic,
            "pvalue": test.pvalue,
            "pvalue_adjusted": adjusted,
            "correction": correction,
            "method": method,
            "alternative": alternative,
            "n_queries": n_queries,
            "effect_size": cohens_dz(x, pairs=pairs),
            "wins": wtl.wins,
            "ties": wtl.ties,
            "losses": wtl.losses,
            "interval": interval,
        },
        columns=list(PAIR_COLUMNS),
    )
    if sm.has_worlds:
        pref = world_preference(sm.values, pairs=pairs, tie_tolerance=tol)
        dec = boot.decomposition(level, target="differences")
        table["n_worlds"] = sm.values.shape[0]
        table["prob_a_better"] = pref.prob_better
        table["prob_tie"] = pref.prob_tie
        table["width_queries"] = dec.width_queries
        table["width_worlds"] = dec.width_worlds
        table["width_combined"] = dec.width_combined
        table["share_worlds"] = dec.share_worlds
    systems_df = pd.DataFrame(
        {
            "measure": sm.measure,
            "system": names,
            "mean": boot.mean,
            "ci_low": ci_mean.low,
            "ci_high": ci_mean.high,
            "confidence_level": level,
            "interval": interval,
            "n_queries": n_queries,
        },
        columns=list(SYSTEM_COLUMNS),
    )
    return table, systems_df
