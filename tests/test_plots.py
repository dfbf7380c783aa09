"""Tests for fuzzytruth.plots: each figure renders headless, draws the artists it promises into
the Axes it is given, and rejects bad input with a message that names the problem.

Expected artist data are derived from the inputs (the frames the library objects produce), not
from the plotting code: bar heights are the PMF, line data the means of ``to_frame()``, whiskers
the ``ci_low``/``ci_high`` of the comparison table.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PathCollection, PolyCollection, QuadMesh
from matplotlib.container import BarContainer, ErrorbarContainer

from fuzzytruth.collection import agreement, agreement_by_level
from fuzzytruth.collection.reliability import category_reliability
from fuzzytruth.datasets import santini_illustrative
from fuzzytruth.displacement import weighted_displacement
from fuzzytruth.plots import (
    plot_agreement_heatmap,
    plot_displacement,
    plot_distribution,
    plot_forest,
    plot_pr_curves,
)
from fuzzytruth.stats import compare
from fuzzytruth.uncertain import Distribution, precision_recall_curve


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ---------------------------------------------------------------------- inputs
@pytest.fixture(scope="module")
def example():
    return santini_illustrative()


@pytest.fixture(scope="module")
def curves(example):
    return {
        c: precision_recall_curve(example.membership, example.results, category=c)
        for c in ("people", "city", "crowd")
    }


@pytest.fixture(scope="module")
def comparison():
    rng = np.random.default_rng(0)
    base = rng.random(25)
    scores = {
        "nDCG@10": np.vstack([base, base + 0.15 + 0.1 * rng.standard_normal(25),
                              base + 0.01 * rng.standard_normal(25)]),
        # (compare() gives NaN intervals for a constant difference: keep some spread)
        "P@10": np.vstack([base, base + 0.01 * rng.standard_normal(25),
                           base - 0.2 + 0.01 * rng.standard_normal(25)]),
    }
    return compare(scores, systems=["bm25", "dense", "near"], n_resamples=200, rng=1)


@pytest.fixture(scope="module")
def displacement():
    rng = np.random.default_rng(3)
    answers = pd.DataFrame(
        [
            (q, a, f"i{k}", r + 1, 1.0 / (r + 1))
            for q in ("q1", "q2")
            for a in ("ann2", "ann1", "ann3")
            for r, k in enumerate(rng.permutation(20)[:5])
        ],
        columns=["query_id", "annotator_id", "item_id", "rank", "relevance"],
    )
    runs = pd.DataFrame(
        [
            (s, q, f"i{k}", r + 1)
            for s in ("dense", "bm25")
            for q in ("q1", "q2")
            for r, k in enumerate(rng.permutation(20)[:8])
        ],
        columns=["system", "query_id", "item_id", "rank"],
    )
    return weighted_displacement(answers, runs, n_items=20, g="scale_free")


def agreement_table() -> pd.DataFrame:
    return pd.DataFrame({
        "category": ["people", "people", "city", "city", "crowd", "crowd"],
        "measure": ["fleiss_kappa", "krippendorff_alpha"] * 3,
        "value": [0.61, 0.6, 0.32, 0.3, 0.12, np.nan],
        "ci_low": [0.5, 0.49, 0.2, 0.18, -0.05, np.nan],
        "ci_high": [0.7, 0.71, 0.44, 0.41, 0.3, np.nan],
    })


def forest_table() -> pd.DataFrame:
    return pd.DataFrame({
        "system_a": ["dense", "near", "dense"],
        "system_b": ["bm25", "bm25", "near"],
        "difference": [0.15, 0.003, 0.147],
        "ci_low": [0.08, -0.004, 0.07],
        "ci_high": [0.22, 0.011, 0.23],
        "pvalue_adjusted": [0.0002, 0.39, 0.04],
    })


def legend_texts(ax: Axes) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def tick_texts(ticks) -> list[str]:
    return [t.get_text() for t in ticks]


# ---------------------------------------------------------------------- all figures
def _calls(example, curves, comparison, displacement):
    d = Distribution.from_pmf([0, 0.5, 1], [0.2, 0.3, 0.5])
    return {
        "distribution": lambda ax: plot_distribution(d, ax=ax),
        "pr_curves": lambda ax: plot_pr_curves(curves, ax=ax),
        "forest": lambda ax: plot_forest(comparison, ax=ax),
        "displacement": lambda ax: plot_displacement(displacement, ax=ax),
        "heatmap": lambda ax: plot_agreement_heatmap(agreement_table(), ax=ax),
    }


NAMES = ["distribution", "pr_curves", "forest", "displacement", "heatmap"]


@pytest.mark.parametrize("name", NAMES)
def test_creates_a_figure_when_ax_is_none(name, example, curves, comparison, displacement):
    before = set(plt.get_fignums())
    ax = _calls(example, curves, comparison, displacement)[name](None)
    assert isinstance(ax, Axes)
    assert set(plt.get_fignums()) - before == {ax.figure.number}
    ax.figure.canvas.draw()  # renders without error


@pytest.mark.parametrize("name", NAMES)
def test_draws_into_the_given_ax_and_never_shows(
    name, example, curves, comparison, displacement, monkeypatch
):
    def no_show(*args, **kwargs):
        raise AssertionError("plt.show() must not be called")

    monkeypatch.setattr(plt, "show", no_show)
    fig, (left, right) = plt.subplots(1, 2)
    n_figures = len(plt.get_fignums())
    ax = _calls(example, curves, comparison, displacement)[name](right)
    assert ax is right
    assert len(plt.get_fignums()) == n_figures
    assert right.has_data() and not left.has_data()
    fig.canvas.draw()


@pytest.mark.parametrize(
    "call",
    [
        lambda: plot_distribution(Distribution.point_mass(0.5), ax="left"),
        lambda: plot_forest(forest_table(), ax=plt.figure()),
    ],
)
def test_ax_must_be_an_axes(call):
    with pytest.raises(ValueError, match=r"ax must be a matplotlib Axes or None; got (str|Figure)"):
        call()


# ---------------------------------------------------------------------- plot_distribution
def test_distribution_one_bar_per_support_value():
    d = Distribution.from_pmf([0, 1 / 3, 2 / 3, 1], [0.1, 0.2, 0.3, 0.4])
    ax = plot_distribution(d, label="precision")
    (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 4
    np.testing.assert_allclose([b.get_height() for b in bars], [0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose([b.get_x() + b.get_width() / 2 for b in bars], d.support)
    assert ax.get_xlabel() == "precision"
    assert ax.get_title() == "Distribution of precision"
    assert ax.get_ylabel() == "probability"


def test_distribution_marks_mean_and_interval():
    d = Distribution.from_pmf([0, 1 / 3, 2 / 3, 1], [0.1, 0.2, 0.3, 0.4])
    ax = plot_distribution(d, confidence_level=0.5, label="P@3")
    low, high = d.interval(0.5)  # (1/3, 1): the 0.25 and 0.75 quantiles
    assert (low, high) == (1 / 3, 1.0)
    mean_lines = [ln for ln in ax.lines if np.allclose(ln.get_xdata(), d.mean())]
    assert len(mean_lines) == 1 and mean_lines[0].get_linestyle() == "--"
    # the bracket spans the interval exactly, not the plot
    (bracket,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    ((x0, _), (x1, _)), = bracket.lines[2][0].get_segments()
    assert (min(x0, x1), max(x0, x1)) == pytest.approx((low, high))
    assert ax.get_xlim()[0] < low or ax.get_xlim()[1] > high or low > 0
    # bars inside the interval coloured, the one outside (value 0) grey
    bars = next(c for c in ax.containers if isinstance(c, BarContainer))
    colours = [tuple(b.get_facecolor()) for b in bars]
    assert colours[1] == colours[2] == colours[3] != colours[0]
    assert legend_texts(ax) == [
        "mean 0.667", "50% equal-tailed interval [0.333, 1]",
        "probability, inside the interval", "probability, outside",
    ]
    assert ax.get_xlabel() == "P@3"


def test_distribution_whose_interval_is_the_whole_support_says_so():
    """Issue 22: the demo's PMF shading covered the whole plot; the bracket is the interval,
    and here the interval is every value (a careless annotator can make the list all wrong)."""
    d = Distribution.from_pmf([0.0, 0.5, 0.8, 1.0], [0.12, 0.3, 0.5, 0.08])
    ax = plot_distribution(d, label="P@10")
    low, high = d.interval(0.95)
    assert (low, high) == (0.0, 1.0)
    (bracket,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    ((x0, _), (x1, _)), = bracket.lines[2][0].get_segments()
    assert (x0, x1) == pytest.approx((0.0, 1.0))
    assert "probability, outside" not in legend_texts(ax)
    bars = next(c for c in ax.containers if isinstance(c, BarContainer))
    assert len(ax.patches) == len(bars) == 4  # no shaded span behind them


def test_distribution_notes_p_undefined():
    d = Distribution.from_pmf([1.0], [0.6], p_undefined=0.4)  # exact recall, figure 1
    ax = plot_distribution(d, label="recall", title="Recall of fig1")
    assert ax.get_title() == "Recall of fig1\nP(undefined) = 0.4"
    assert ax.get_ylabel() == "probability (given defined)"
    assert len(ax.containers[0]) == 1
    assert ax.get_xlim() == (0.5, 1.5)  # a lone bar is not stretched across the Axes


def test_distribution_from_its_frame():
    d = Distribution.from_pmf([0.25, 0.75, 0.5], [0.5, 0.25, 0.25])
    ax = plot_distribution(d.to_frame())
    np.testing.assert_allclose([b.get_height() for b in ax.containers[0]], d.probabilities)


@pytest.mark.parametrize(
    ("dist", "kwargs", "message"),
    [
        (Distribution.undefined(), {}, "dist is undefined with probability 1"),
        ([0.1, 0.9], {}, "dist must be a Distribution or a DataFrame .* got list"),
        (pd.DataFrame({"value": [0.0]}), {}, r"missing \['probability'\]"),
        (pd.DataFrame({"value": [], "probability": []}), {}, "dist must not be empty"),
        (Distribution.point_mass(0.5), {"confidence_level": 1.5},
         "confidence_level must be a number strictly between 0 and 1; got 1.5"),
    ],
)
def test_distribution_rejects(dist, kwargs, message):
    with pytest.raises(ValueError, match=message):
        plot_distribution(dist, **kwargs)


# ---------------------------------------------------------------------- plot_pr_curves
def test_pr_curves_one_band_and_line_per_system(curves):
    ax = plot_pr_curves(curves)
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 3
    assert legend_texts(ax) == ["people", "city", "crowd"]
    assert "95% interval of precision" in ax.get_legend().get_title().get_text()
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("recall (mean)", "precision (mean)")
    for line, band, system in zip(ax.lines, bands, curves, strict=True):
        frame = curves[system].to_frame()
        precision = frame[frame["measure"] == "precision"]
        recall = frame[frame["measure"] == "recall"]
        np.testing.assert_allclose(line.get_xdata(), recall["mean"])
        np.testing.assert_allclose(line.get_ydata(), precision["mean"])
        ys = band.get_paths()[0].vertices[:, 1]
        assert ys.min() == pytest.approx(precision["truth_low"].min())
        assert ys.max() == pytest.approx(precision["truth_high"].max())
        assert line.get_color() == pytest.approx(band.get_facecolor()[0][:3])


def test_pr_curves_confidence_level_sets_the_bands(curves):
    narrow = plot_pr_curves(curves, confidence_level=0.5)
    wide = plot_pr_curves(curves)
    height = [
        np.ptp(c.get_paths()[0].vertices[:, 1])
        for ax in (narrow, wide)
        for c in ax.collections
        if isinstance(c, PolyCollection)
    ]
    assert sum(height[:3]) < sum(height[3:])
    assert "50% interval" in narrow.get_legend().get_title().get_text()


def test_pr_curves_from_a_tidy_frame(curves):
    frame = pd.concat([c.to_frame().assign(system=s) for s, c in curves.items()])
    from_frame = plot_pr_curves(frame)
    from_objects = plot_pr_curves(curves)
    assert legend_texts(from_frame) == legend_texts(from_objects)
    for a, b in zip(from_frame.lines, from_objects.lines, strict=True):
        np.testing.assert_allclose(a.get_xydata(), b.get_xydata())


@pytest.mark.parametrize(
    ("make", "kwargs", "message"),
    [
        (lambda c: {}, {}, "curves must not be empty"),
        (lambda c: {"a": c["people"].to_frame()}, {}, r"curves\['a'\] must be a CutoffDist"),
        (lambda c: [c["people"]], {}, "curves must be a mapping system -> CutoffDistributions"),
        (lambda c: c["people"].to_frame(), {}, r"curves must have columns .* missing \['system'\]"),
        (lambda c: c["people"].to_frame().assign(system="a").iloc[:0], {},
         "curves must not be empty"),
        (lambda c: c["people"].to_frame().assign(system="a"), {"confidence_level": 0.9},
         "confidence_level applies to a mapping"),
        (lambda c: c["people"].to_frame().assign(system="a").query("measure == 'precision'"),
         {}, "system 'a' has no 'recall' rows"),
        (lambda c: pd.concat([c["people"].to_frame().assign(system="a")] * 2), {},
         "system 'a' repeats a cutoff"),
        (lambda c: pd.concat([c["people"].to_frame(0.9), c["city"].to_frame()])
         .assign(system="a"), {}, r"curves mixes confidence levels.* got \[0.9, 0.95\]"),
        (lambda c: c, {"confidence_level": 0.0}, "confidence_level must be a number"),
    ],
)
def test_pr_curves_rejects(curves, make, kwargs, message):
    with pytest.raises(ValueError, match=message):
        plot_pr_curves(make(curves), **kwargs)


# ---------------------------------------------------------------------- plot_forest
def _whiskers(ax: Axes) -> list[tuple[float, float, float]]:
    """(low, high, y) of every errorbar container, top to bottom as drawn."""
    out = []
    for c in ax.containers:
        ((x0, y0), (x1, _)), = c.lines[2][0].get_segments()
        out.append((min(x0, x1), max(x0, x1), y0))
    return out


def test_forest_one_errorbar_per_pair_and_zero_line(comparison):
    table = comparison.table
    ax = plot_forest(comparison)
    assert all(isinstance(c, ErrorbarContainer) for c in ax.containers)
    assert len(ax.containers) == len(table) == 6
    zero = [ln for ln in ax.lines if np.array_equal(ln.get_xdata(), [0, 0])]
    assert len(zero) == 1
    whiskers = _whiskers(ax)
    np.testing.assert_allclose([w[0] for w in whiskers], table["ci_low"])
    np.testing.assert_allclose([w[1] for w in whiskers], table["ci_high"])
    assert [w[2] for w in whiskers] == list(range(5, -1, -1))  # first row on top
    labels = tick_texts(ax.get_yticklabels())
    assert labels[0] == "nDCG@10: bm25 − dense"  # several measures: prefixed
    assert labels[-1] == "P@10: dense − near"
    assert "95% t interval, estimand queries" in ax.get_xlabel()


def test_forest_highlights_significant_pairs():
    table = forest_table()
    ax = plot_forest(table)
    points = [ln for ln in ax.lines if ln.get_marker() in ("D", "o")]
    assert [ln.get_marker() for ln in points] == ["D", "o", "D"]
    np.testing.assert_allclose([ln.get_xdata()[0] for ln in points], table["difference"])
    colours = [c.lines[2][0].get_color()[0][:3] for c in ax.containers]
    assert np.allclose(colours[0], colours[2]) and not np.allclose(colours[0], colours[1])
    assert legend_texts(ax) == ["adjusted p < 0.05", "adjusted p ≥ 0.05"]
    assert ax.get_xlabel() == "difference, A − B (whiskers: interval)"
    strict = plot_forest(table, alpha=0.01)
    assert [ln.get_marker() for ln in strict.lines if ln.get_marker() in ("D", "o")] == [
        "D", "o", "o"
    ]


def test_forest_alpha_defaults_to_the_comparisons(comparison):
    significant = (comparison.table["pvalue_adjusted"] < comparison.alpha).to_numpy()
    assert 0 < significant.sum() < len(significant)
    ax = plot_forest(comparison)
    markers = [ln.get_marker() for ln in ax.lines if ln.get_marker() in ("D", "o")]
    assert markers == ["D" if s else "o" for s in significant]


def test_forest_alpha_of_a_table_follows_its_confidence_level():
    """A table from compare(confidence_level=0.99) carries its level: the diamonds are
    adjusted p < 0.01, as compare()'s stars (alpha = 1 - confidence_level), not < 0.05. The
    third pair (p = 0.04) was drawn as significant beside a 99 % interval."""
    ax = plot_forest(forest_table().assign(confidence_level=0.99))
    assert [ln.get_marker() for ln in ax.lines if ln.get_marker() in ("D", "o")] == [
        "D", "o", "o"
    ]
    assert legend_texts(ax) == ["adjusted p < 0.01", "adjusted p ≥ 0.01"]
    assert legend_texts(plot_forest(forest_table().assign(confidence_level=0.9)))[0] == (
        "adjusted p < 0.1")


def test_forest_of_a_comparisons_table_marks_what_the_comparison_marks():
    rng = np.random.default_rng(1)
    base = rng.random(30)
    scores = np.vstack([base, base + 0.05 + 0.1 * rng.standard_normal(30),
                        base + 0.08 + 0.1 * rng.standard_normal(30)])
    result = compare({"AP": scores}, systems=["a", "b", "c"], confidence_level=0.99, rng=0)
    p = result.table["pvalue_adjusted"]
    assert ((p >= 0.01) & (p < 0.05)).any()  # where 0.05 and 0.01 disagree
    markers = [[ln.get_marker() for ln in ax.lines if ln.get_marker() in ("D", "o")]
               for ax in (plot_forest(result), plot_forest(result.table))]
    assert markers[0] == markers[1] == ["D" if v < 0.01 else "o" for v in p]


def test_forest_single_measure_names_it_on_the_axis(comparison):
    table = comparison.table[comparison.table["measure"] == "P@10"]
    ax = plot_forest(table)
    assert ax.get_xlabel() == (
        "difference in P@10, A − B (whiskers: 95% t interval, estimand queries)"
    )
    assert tick_texts(ax.get_yticklabels())[0] == "bm25 − dense"


def test_forest_draws_an_interval_that_excludes_the_estimate():
    table = forest_table().assign(ci_low=[0.16, -0.004, 0.07])  # 0.15 outside [0.16, 0.22]
    ((low, high, _), *_) = _whiskers(plot_forest(table))
    assert (low, high) == pytest.approx((0.16, 0.22))


@pytest.mark.parametrize(
    ("table", "kwargs", "message"),
    [
        (forest_table().drop(columns="pvalue_adjusted"), {}, r"missing \['pvalue_adjusted'\]"),
        (forest_table().iloc[:0], {}, "comparison must not be empty"),
        (forest_table(), {"alpha": 1.5}, "alpha must be a number strictly between 0 and 1"),
        (forest_table().to_dict(), {}, "comparison must be a Comparison .* got dict"),
        # before: the imaginary part dropped with only numpy's ComplexWarning
        (forest_table().astype({"difference": complex}), {},
         "comparison column 'difference' must be real numbers; got complex values"),
        (forest_table().assign(ci_low=[0.3, -0.004, 0.07]), {},
         "columns 'ci_low' and 'ci_high' must be an interval's ends.*row 0 holds 0.3 > 0.22"),
    ],
)
def test_forest_rejects(table, kwargs, message):
    with pytest.raises(ValueError, match=message):
        plot_forest(table, **kwargs)


@pytest.mark.parametrize("alternative", ["less", "greater"])
def test_forest_draws_a_one_sided_interval_as_an_arrow_to_the_edge(alternative):
    """compare(alternative=...) gives intervals with an infinite end. Before, the whisker was
    drawn from an infinite midpoint: nothing at all, with RuntimeWarnings."""
    scores = np.random.default_rng(0).random((3, 30))
    scores[0] += 0.15
    comparison = compare(scores, alternative=alternative, rng=0)
    finite = comparison.table["ci_high" if alternative == "less" else "ci_low"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = plot_forest(comparison)
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == 3
    edge = 0.0 if alternative == "less" else 1.0
    assert [a.xy[0] for a in arrows] == [edge] * 3  # the axes' edge, in axes fraction
    np.testing.assert_allclose([a.xyann[0] for a in arrows], finite)  # from the finite end
    caps = [seg[0][0] for c in ax.containers for seg in c.lines[2][0].get_segments()]
    np.testing.assert_allclose(caps, finite)
    assert "one-sided (arrow: no bound)" in ax.get_xlabel()


def test_forest_of_a_test_without_interval_says_so():
    """Before, the axis read 'whiskers: 95% none interval' for the Wilcoxon test."""
    scores = np.random.default_rng(0).random((2, 30))
    ax = plot_forest(compare(scores, method="wilcoxon"))
    assert ax.containers == [] and "(no interval, estimand queries)" in ax.get_xlabel()


# ---------------------------------------------------------------------- plot_displacement
def test_displacement_one_segment_per_system_and_annotator(displacement):
    frame = displacement.to_frame()
    expected = frame.groupby(["system", "annotator_id"], sort=False)[
        ["q_pessimist", "q_optimist"]
    ].mean()
    ax = plot_displacement(displacement)
    (segments,) = [c for c in ax.collections if isinstance(c, LineCollection)]
    ends = np.array([[s[0][0], s[1][0]] for s in segments.get_segments()])
    assert len(ends) == 6  # 2 systems x 3 annotators, averaged over 2 queries
    np.testing.assert_allclose(ends, expected.to_numpy())
    pessimist, optimist = [c for c in ax.collections if isinstance(c, PathCollection)]
    np.testing.assert_allclose(pessimist.get_offsets()[:, 0], expected["q_pessimist"])
    np.testing.assert_allclose(optimist.get_offsets()[:, 0], expected["q_optimist"])
    assert legend_texts(ax) == ["pessimist", "optimist"]
    assert tick_texts(ax.get_yticklabels()) == list(pd.unique(frame["system"]))
    rows = {t.get_text(): y for t, y in zip(ax.get_yticklabels(), ax.get_yticks(), strict=True)}
    assert rows[frame["system"].iloc[0]] > rows[frame["system"].iloc[-1]]  # first on top
    assert ax.get_xlabel() == "quality q, mean over queries"


def test_displacement_annotators_keep_their_offset(displacement):
    ax = plot_displacement(displacement, label_annotators=True)
    labels = [t.get_text() for t in ax.texts]
    ys = np.array([t.xy[1] for t in ax.texts])
    rows = np.round(ys)  # system rows are integers, offsets within +-0.3
    offsets = {a: set(np.round(ys - rows, 9)[np.array(labels) == a]) for a in set(labels)}
    assert all(len(v) == 1 for v in offsets.values())
    assert sorted(offsets, key=lambda a: -offsets[a].pop()) == ["ann1", "ann2", "ann3"]


def test_displacement_exact_pessimist(displacement):
    frame = displacement.to_frame()
    ax = plot_displacement(frame, pessimist="exact_pessimist")
    low = next(c for c in ax.collections if isinstance(c, PathCollection))
    expected = frame.groupby(["system", "annotator_id"], sort=False)["q_exact_pessimist"].mean()
    np.testing.assert_allclose(low.get_offsets()[:, 0], expected)
    assert legend_texts(ax) == ["exact pessimist", "optimist"]


def test_displacement_one_query_is_not_averaged(displacement):
    frame = displacement.to_frame().query("query_id == 'q1'")
    ax = plot_displacement(frame)
    assert ax.get_xlabel() == "quality q"


@pytest.mark.parametrize(
    ("transform", "kwargs", "message"),
    [
        (lambda f: f, {"pessimist": "worst"},
         r"pessimist must be one of \['pessimist', 'exact_pessimist'\]; got 'worst'"),
        (lambda f: f.drop(columns="q_optimist"), {}, r"missing \['q_optimist'\]"),
        (lambda f: f.iloc[:0], {}, "table must not be empty"),
        (lambda f: f.to_numpy(), {}, "table must be a DisplacementResult .* got ndarray"),
        # before: the mean over queries skipped a NaN without a word
        (lambda f: f.assign(q_optimist=np.r_[np.nan, f["q_optimist"].iloc[1:]]), {},
         "table column 'q_optimist' must hold finite qualities; got nan"),
    ],
)
def test_displacement_rejects(displacement, transform, kwargs, message):
    with pytest.raises(ValueError, match=message):
        plot_displacement(transform(displacement.to_frame()), **kwargs)


# ---------------------------------------------------------------------- plot_agreement_heatmap
def test_heatmap_one_annotation_per_cell_with_intervals():
    ax = plot_agreement_heatmap(agreement_table())
    texts = [t.get_text() for t in ax.texts]
    assert texts == [
        "0.61\n[0.50, 0.70]", "0.60\n[0.49, 0.71]",
        "0.32\n[0.20, 0.44]", "0.30\n[0.18, 0.41]",
        "0.12\n[-0.05, 0.30]",  # the crowd / alpha cell is empty: no text
    ]
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    values = np.ma.filled(mesh.get_array(), np.nan).reshape(3, 2)
    np.testing.assert_allclose(values, [[0.61, 0.6], [0.32, 0.3], [0.12, np.nan]])
    assert tick_texts(ax.get_yticklabels()) == ["people", "city", "crowd"]
    assert tick_texts(ax.get_xticklabels()) == ["fleiss_kappa", "krippendorff_alpha"]
    assert (ax.get_ylabel(), ax.get_xlabel()) == ("category", "measure")
    assert ax.get_title() == "Agreement per category"


def test_heatmap_options():
    ax = plot_agreement_heatmap(agreement_table(), intervals=False, fmt=".1f", title="κ")
    assert [t.get_text() for t in ax.texts] == ["0.6", "0.6", "0.3", "0.3", "0.1"]
    assert ax.get_title() == "κ"


def test_heatmap_from_agreement_result(example):
    result = agreement(example.annotations, n_resamples=40, rng=0)
    frame = result.to_frame()
    ax = plot_agreement_heatmap(result)
    rows = tick_texts(ax.get_yticklabels())
    assert rows[0] == "(overall)"  # category None: the collection-wide coefficients
    assert rows[1:] == frame["category"].dropna().tolist()
    assert len(ax.texts) == frame["value"].notna().sum()


def test_heatmap_by_depth(example):
    frame = agreement_by_level(example.annotations, n_resamples=0).to_frame()
    ax = plot_agreement_heatmap(frame, index="depth")
    assert tick_texts(ax.get_yticklabels()) == ["1", "2"]  # the root (depth 0) has no row
    assert len(ax.texts) == frame["value"].notna().sum() == 6
    assert ax.get_title() == "Agreement per depth"


def _meshes(ax: Axes) -> list[QuadMesh]:
    return [c for c in ax.collections if isinstance(c, QuadMesh)]


def test_heatmap_wide_reliability_table(example):
    frame = category_reliability(example.annotations).to_frame()
    shown = ["mean_membership", "entropy", "closed_kappa"]
    ax = plot_agreement_heatmap(frame, columns=shown)
    assert tick_texts(ax.get_xticklabels()) == shown
    assert len(ax.texts) == frame[shown].notna().to_numpy().sum()
    meshes = {m.get_cmap().name: m for m in _meshes(ax)}  # one colour scale per meaning
    better, worse = meshes["Blues"], meshes["Oranges"]
    cells = np.ma.filled(better.get_array(), np.nan).reshape(len(frame), 3)
    np.testing.assert_allclose(cells[:, [0, 2]], frame[["mean_membership", "closed_kappa"]],
                               equal_nan=True)
    assert np.isnan(cells[:, 1]).all()
    cells = np.ma.filled(worse.get_array(), np.nan).reshape(len(frame), 3)
    np.testing.assert_allclose(cells[:, 1], frame["entropy"], equal_nan=True)
    assert better.get_cmap().name != worse.get_cmap().name
    bars = sorted(a.get_ylabel() for a in ax.figure.axes if a is not ax)
    assert bars == ["higher is better: mean_membership, closed_kappa", "higher is worse: entropy"]


def test_heatmap_marks_flagged_categories():
    """Issue 22: the flagged (ambiguous) categories were not marked."""
    table = pd.DataFrame({
        "category": ["people", "crowd", "city"], "mean_membership": [0.6, 0.3, 0.35],
        "ambiguous_share": [0.1, 0.56, 0.53], "ambiguous": [False, True, True],
    })
    ax = plot_agreement_heatmap(table, columns=["mean_membership", "ambiguous_share"])
    assert tick_texts(ax.get_yticklabels()) == ["people", "crowd *", "city *"]
    colours = [t.get_color() for t in ax.get_yticklabels()]
    assert colours[1] == colours[2] != colours[0]
    assert ax.get_ylabel() == "category (* flagged ambiguous)"
    plain = plot_agreement_heatmap(table, columns=["mean_membership"], flag=None)
    assert tick_texts(plain.get_yticklabels()) == ["people", "crowd", "city"]
    assert plain.get_ylabel() == "category"
    with pytest.raises(ValueError, match="table column 'ambiguous' \\(flag\\) must be boolean"):
        plot_agreement_heatmap(table.assign(ambiguous=[0.1, 2, 3]), columns=["mean_membership"])


def test_heatmap_long_table_names_its_scale():
    ax = plot_agreement_heatmap(agreement_table())
    assert len(_meshes(ax)) == 1  # one scale: every cell is an agreement coefficient
    (bar,) = [a for a in ax.figure.axes if a is not ax]
    assert bar.get_ylabel() == "agreement: fleiss_kappa, krippendorff_alpha"
    with pytest.raises(ValueError, match="cmap applies to a long table"):
        plot_agreement_heatmap(agreement_table(), columns=["value"], cmap="viridis")


@pytest.mark.parametrize(
    ("table", "kwargs", "message"),
    [
        (agreement_table().drop(columns="value"), {},
         r"table must have columns \['category', 'measure', 'value'\]; missing \['value'\]"),
        (agreement_table().iloc[:0], {}, "table must not be empty"),
        (pd.concat([agreement_table()] * 2), {},
         r"one row per \(category, measure\); repeated: \[\('people', 'fleiss_kappa'\)"),
        (agreement_table().drop(columns="ci_high"), {"intervals": True},
         r"intervals=True needs columns \['ci_low', 'ci_high'\]"),
        (agreement_table(), {"columns": ["value"], "intervals": True},
         "intervals=True needs a long table"),
        (agreement_table(), {"columns": []}, "columns must be one column name"),
        (agreement_table().assign(value="high"), {}, "table column 'value' must be numeric"),
        (agreement_table().to_numpy(), {}, "table must be a DataFrame or an object with a "),
        # before: Python's format error naming nothing, a reversed or NaN scale drawn, a str
        # read as its letters, an infinite cell a TypeError from unpacking None
        (agreement_table(), {"fmt": ".2q"}, "fmt must be a format spec for a float .*'.2q'"),
        (agreement_table(), {"vmin": 1, "vmax": 0}, "vmin must be below vmax; got vmin=1"),
        (agreement_table(), {"vmax": np.nan}, "vmax must be a finite number or None; got nan"),
        (agreement_table(), {"columns": ["value"], "worse_when_high": "value"},
         "worse_when_high must be a list of column names; got the str 'value'"),
        (agreement_table().assign(value=np.r_[np.inf, agreement_table()["value"][1:]]), {},
         r"finite values \(NaN for a blank cell\); the cell \(people, fleiss_kappa\)"),
        (agreement_table().assign(ci_low=[0.8, 0.49, 0.2, 0.18, -0.05, np.nan]), {},
         "'ci_low' <= 'ci_high'; row 0 holds 0.8 > 0.7"),
    ],
)
def test_heatmap_rejects(table, kwargs, message):
    with pytest.raises(ValueError, match=message):
        plot_agreement_heatmap(table, **kwargs)


@pytest.mark.parametrize(
    "call",
    [
        lambda c: plot_distribution(Distribution.undefined()),
        lambda c: plot_pr_curves({**c, "bad": c["people"].to_frame()}),
        lambda c: plot_pr_curves(
            pd.concat([c["people"].to_frame().assign(system="a"),
                       c["city"].to_frame().query("measure == 'recall'").assign(system="b")])
        ),
        lambda c: plot_forest(forest_table().iloc[:0]),
        lambda c: plot_displacement(pd.DataFrame({"system": ["a"]})),
        lambda c: plot_agreement_heatmap(pd.concat([agreement_table()] * 2)),
    ],
)
def test_rejected_input_opens_no_figure(curves, call):
    with pytest.raises(ValueError):
        call(curves)
    assert plt.get_fignums() == []


def test_distribution_with_many_values_is_binned_into_visible_bars():
    # a Monte Carlo distribution with ~300 distinct values (as AP over sampled worlds): one bar
    # per value would be 1e-5 wide and invisible; the masses are binned instead
    samples = np.random.default_rng(0).beta(2, 5, size=300)
    dist = Distribution.from_samples(samples)
    ax = plot_distribution(dist, max_bars=25)
    bars = ax.containers[0]
    assert len(bars) == 25
    span = samples.max() - samples.min()
    assert min(b.get_width() for b in bars) >= 0.8 * span / 25
    assert sum(b.get_height() for b in bars) == pytest.approx(1.0)
    assert ax.get_ylabel() == "probability per bin"
    with pytest.raises(ValueError, match="max_bars must be a positive integer; got 0"):
        plot_distribution(dist, max_bars=0)
    plt.close("all")


# ---------------------------------------------------------------------- every figure's texts
@pytest.fixture(scope="module")
def small_evaluation():
    from fuzzytruth import ProbabilisticQrels, Run, evaluate
    from fuzzytruth.plots import system_pr_measures

    rng = np.random.default_rng(5)
    queries = [f"q{i}" for i in range(6)]
    docs = [f"d{j}" for j in range(8)]
    pq = ProbabilisticQrels(
        np.repeat(queries, 8), np.tile(docs, 6), rng.uniform(0, 1, 48).round(2)
    )
    runs = {
        name: Run(np.repeat(queries, 8), np.tile(docs, 6), rng.permutation(48).astype(float))
        for name in ("bm25", "dense")
    }
    return evaluate(runs, pq, ["P@5", "AP", *system_pr_measures()], n_worlds=50, rng=0)


def _figure_texts(ax: Axes) -> dict[str, object]:
    legend = ax.get_legend()
    return {
        "xlabel": ax.get_xlabel(),
        "ylabel": ax.get_ylabel(),
        "title": ax.get_title(),
        "legend": legend_texts(ax) if legend is not None else None,
        "legend_title": legend.get_title().get_text() if legend is not None else None,
    }


def _reliability_table() -> pd.DataFrame:
    """Classifier accuracy against reader reliability on two items (issue 21)."""
    from fuzzytruth.classify import Predictions, reliability_curves
    from fuzzytruth.io.rankings import Rankings

    rankings = Rankings.from_selectors([[[[0]], [[0], [1]]], [[[1]], [[2]]]],
                                       classes=["a", "b", "c"])
    net = Predictions([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]], items=[0, 1], classes=["a", "b", "c"],
                      name="net")
    return reliability_curves(net, rankings, "Acc(target=top1)", temperatures=(1, 10),
                              n_worlds=50, rng=0)


def _every_figure(example, curves, comparison, displacement, small_evaluation):
    """Each public figure function, drawn from inputs a user has, with every text it shows."""
    from fuzzytruth.plots import (
        plot_annotator_scores,
        plot_query_distribution,
        plot_reliability,
        plot_system_intervals,
        plot_system_pr,
    )

    scores = pd.DataFrame({"annotator_id": list("abcdef"),
                           "majority_agreement": [0.80, 0.82, 0.85, 0.86, 0.88, 0.14],
                           "golden_accuracy": [0.78, 0.80, 0.84, 0.83, 0.87, 0.21]})
    reliability = category_reliability(example.annotations).to_frame()
    ap = comparison.table[comparison.table["measure"] == "nDCG@10"]
    return {
        "plot_distribution": (
            lambda: plot_distribution(Distribution.from_pmf([0, 0.5, 1], [0.2, 0.3, 0.5]),
                                      label="P@2"),
            {"xlabel": "P@2", "ylabel": "probability", "title": "Distribution of P@2",
             "legend": ["mean 0.65", "95% equal-tailed interval [0, 1]",
                        "probability, inside the interval"], "legend_title": ""},
        ),
        "plot_query_distribution": (
            lambda: plot_query_distribution(small_evaluation, "dense", "q1", "AP"),
            {"xlabel": "AP", "ylabel": "probability",
             "title": "AP of dense on query q1\nover 50 sampled truths (Monte Carlo)"},
        ),
        "plot_pr_curves": (
            lambda: plot_pr_curves(curves),
            {"xlabel": "recall (mean)", "ylabel": "precision (mean)",
             "title": "Precision–recall under uncertain truth",
             "legend": ["people", "city", "crowd"],
             "legend_title": "system (band: 95% interval of precision)"},
        ),
        "plot_system_pr": (
            lambda: plot_system_pr(small_evaluation, band="queries"),
            {"xlabel": "recall level", "ylabel": "interpolated precision iP@r (mean over queries)",
             "title": "System-level precision–recall: mean over 6 queries\n(bands: 95% "
                      "interval over queries, t, estimand collection)",
             "legend": ["bm25", "dense"], "legend_title": "system"},
        ),
        "plot_forest": (
            lambda: plot_forest(ap),
            {"xlabel": "difference in nDCG@10, A − B (whiskers: 95% t interval, estimand "
                       "queries)",
             "ylabel": "", "title": "Paired differences between systems",
             "legend": ["adjusted p < 0.05", "adjusted p ≥ 0.05"], "legend_title": ""},
        ),
        "plot_system_intervals": (
            lambda: plot_system_intervals(small_evaluation, measure="AP"),
            {"xlabel": "AP, mean over queries", "ylabel": "",
             "title": "Each system's mean over queries",
             "legend": ["95% interval over queries (t, estimand collection)",
                        "95% spread over the truths (queries fixed)"], "legend_title": ""},
        ),
        "plot_displacement": (
            lambda: plot_displacement(displacement),
            {"xlabel": "quality q, mean over queries", "ylabel": "system",
             "title": "Displacement quality per annotator",
             "legend": ["pessimist", "optimist"], "legend_title": "hypothesis"},
        ),
        "plot_agreement_heatmap": (
            lambda: plot_agreement_heatmap(
                reliability, columns=["mean_membership", "ambiguous_share", "closed_kappa"]),
            {"xlabel": "", "title": "Reliability per category", "legend": None,
             "ylabel": "category (* flagged ambiguous)" if reliability["ambiguous"].any()
             else "category"},
        ),
        "plot_reliability": (
            lambda: plot_reliability(_reliability_table(), measure="Acc(target=top1)"),
            {"xlabel": "reader reliability (PrIRN temperature)",
             "ylabel": "Acc(target=top1), mean over items",
             "title": "Acc(target=top1) against reader reliability",
             "legend": ["net", "deterministic aggregation (IRN argmax)",
                        "95% interval over the sampled truths"], "legend_title": ""},
        ),
        "plot_annotator_scores": (
            lambda: plot_annotator_scores(scores, "majority_agreement", "golden_accuracy"),
            {"xlabel": "majority_agreement (axis clipped: 1 off scale)",
             "ylabel": "golden_accuracy (axis clipped: 1 off scale)",
             "title": "golden_accuracy vs majority_agreement (6 annotators)",
             "legend": ["off scale: drawn on the edge, labelled (its values)"]},
        ),
    }


def test_every_figure_function_is_checked(example, curves, comparison, displacement,
                                          small_evaluation):
    import fuzzytruth.plots as plots

    public = {n for n in plots.__all__ if n.startswith("plot_")}
    assert public == set(_every_figure(example, curves, comparison, displacement,
                                       small_evaluation))


@pytest.mark.parametrize("name", [
    "plot_distribution", "plot_query_distribution", "plot_pr_curves", "plot_system_pr",
    "plot_forest", "plot_system_intervals", "plot_displacement", "plot_agreement_heatmap",
    "plot_annotator_scores", "plot_reliability",
])
def test_every_figure_renders_with_its_labels_legend_and_title(
    name, example, curves, comparison, displacement, small_evaluation
):
    """Issue 22 item 5: every figure renders headless (Agg) and says what it shows: no axis
    left as "value", every interval named with its level and what it is over."""
    draw, expected = _every_figure(example, curves, comparison, displacement,
                                   small_evaluation)[name]
    ax = draw()
    ax.figure.canvas.draw()
    texts = _figure_texts(ax)
    for key, value in expected.items():
        assert texts[key] == value, key
    assert "value" not in (texts["xlabel"], texts["ylabel"])


def test_system_pr_bands_are_the_aggregate_intervals_they_name(small_evaluation):
    """The truths band is truth_low..truth_high and the queries band ci_low..ci_high of
    aggregate() (after ci_low/ci_high became the interval over queries)."""
    from fuzzytruth.plots import plot_system_pr

    table = small_evaluation.aggregate()
    for band, (low, high) in (("truths", ("truth_low", "truth_high")),
                              ("queries", ("ci_low", "ci_high"))):
        ax = plot_system_pr(small_evaluation, band=band)
        edges = [ln for ln in ax.lines if ln.get_linestyle() == ":"]
        rows = table[(table["system"] == "bm25") & table["measure"].str.startswith("iP@")]
        rows = rows.assign(r=[float(m[3:]) for m in rows["measure"]]).sort_values("r")
        np.testing.assert_allclose(edges[0].get_ydata(), rows[low])
        np.testing.assert_allclose(edges[1].get_ydata(), rows[high])
    assert "over 50 sampled truths" in plot_system_pr(small_evaluation).get_title()
    with pytest.raises(ValueError, match=r"band must be one of \['truths', 'queries'\]"):
        plot_system_pr(small_evaluation, band="worlds")


def test_system_pr_title_counts_the_queries_averaged():
    """Under undefined="skip" a query with no relevant document in any truth (q2: every
    probability 0) is left out of the curves: the title counts the 2 queries drawn (it said
    3, every evaluated query); q3, relevant in about half the truths, makes the count an
    expected one."""
    from fuzzytruth import ProbabilisticQrels, Run, evaluate
    from fuzzytruth.plots import plot_system_pr, system_pr_measures

    queries, docs = np.repeat(["q0", "q1", "q2"], 2), ["a", "b"] * 3
    pq = ProbabilisticQrels(queries, docs, [1.0, 0.5, 0.2, 1.0, 0.0, 0.0])
    runs = {"A": Run(queries, docs, [2.0, 1.0] * 3)}
    evaluation = evaluate(runs, pq, system_pr_measures(), undefined="skip", n_worlds=20,
                          rng=0)
    assert len(evaluation.queries) == 3
    assert plot_system_pr(evaluation).get_title().startswith(
        "System-level precision–recall: mean over 2 queries\n")
    pq = ProbabilisticQrels(np.repeat(["q0", "q1", "q2", "q3"], 2), [*docs, "a", "b"],
                            [1.0, 0.5, 0.2, 1.0, 0.0, 0.0, 0.5, 0.0])
    evaluation = evaluate({"A": Run(np.repeat(["q0", "q1", "q2", "q3"], 2), [*docs, "a", "b"],
                                    [2.0, 1.0] * 4)},
                          pq, system_pr_measures(), undefined="skip", n_worlds=20, rng=0)
    expected = evaluation.aggregate()["n_queries"].iloc[0]
    assert 2 < expected < 3
    assert f"mean over {expected:.1f} queries\n" in plot_system_pr(evaluation).get_title()


def _assert_whiskers_are(ax, table):
    """The two whiskers of plot_system_intervals end at the table's interval over queries
    and its spread over the truths, row by row."""
    queries, truths = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    for container, (low, high) in ((queries, ("ci_low", "ci_high")),
                                   (truths, ("truth_low", "truth_high"))):
        segments = container.lines[2][0].get_segments()
        np.testing.assert_allclose([min(s[0][0], s[1][0]) for s in segments], table[low])
        np.testing.assert_allclose([max(s[0][0], s[1][0]) for s in segments], table[high])


def test_system_intervals_whiskers_are_the_tables_intervals(small_evaluation, comparison):
    from fuzzytruth.plots import plot_system_intervals

    table = small_evaluation.aggregate()
    table = table[table["measure"] == "AP"]
    ax = plot_system_intervals(small_evaluation, measure="AP")
    _assert_whiskers_are(ax, table)
    assert tick_texts(ax.get_yticklabels()) == ["bm25", "dense"]
    # a Comparison's systems table: the interval over queries of its procedure, no truths
    ax = plot_system_intervals(comparison)
    assert legend_texts(ax) == ["95% interval over queries (t, estimand queries)"]
    assert tick_texts(ax.get_yticklabels())[0] == "nDCG@10: bm25"
    with pytest.raises(ValueError, match="measure must be one of"):
        plot_system_intervals(small_evaluation, measure="nDCG@10")
    with pytest.raises(ValueError, match="source must be an Evaluation"):
        plot_system_intervals([1, 2])


def test_system_intervals_draws_a_mean_that_lies_outside_its_spread_over_truths():
    """Before, matplotlib refused the figure ("'xerr' must not contain negative values")
    whenever a system's mean lay outside an interval, as the exact mean 0.01 of a system
    whose documents are relevant with probability 0.01 does beside the quantiles [0, 0] of
    its sampled worlds' means."""
    from fuzzytruth import ProbabilisticQrels, Run, evaluate
    from fuzzytruth.plots import plot_system_intervals

    queries, docs = ["q1", "q2", "q1", "q2"], ["a", "b", "c", "d"]
    truth = ProbabilisticQrels(queries, docs, [0.01, 0.01, 0.6, 0.5])
    runs = {"rare": Run(queries, docs, [2.0, 2.0, 1.0, 1.0]),
            "other": Run(queries, docs, [1.0, 1.0, 2.0, 2.0])}
    evaluation = evaluate(runs, truth, "P@1", n_worlds=200, rng=0)
    table = evaluation.aggregate()
    rare = table.iloc[0]
    assert not rare["truth_low"] <= rare["value"] <= rare["truth_high"]
    ax = plot_system_intervals(evaluation)
    _assert_whiskers_are(ax, table)
    [points] = [line for line in ax.lines if line.get_marker() == "o"]
    np.testing.assert_allclose(points.get_xdata(), table["value"])
    assert tick_texts(ax.get_yticklabels()) == ["rare", "other"]
    np.testing.assert_allclose(points.get_ydata(), [1, 0])  # first row on top


def test_annotator_scores_outlier_on_the_edge():
    """Issue 22: notebook 05's scatter was squeezed by one outlying rater."""
    from fuzzytruth.plots import plot_annotator_scores, robust_limits

    scores = pd.DataFrame({"annotator_id": [1, 2, 3, 4, 5, 145],
                           "agreement": [0.80, 0.82, 0.85, 0.86, 0.88, 0.14],
                           "accuracy": [0.78, 0.80, 0.84, 0.83, 0.87, 0.21]})
    ax = plot_annotator_scores(scores, "agreement", "accuracy")
    low, high = ax.get_xlim()
    assert 0.14 < low < 0.80 and high > 0.88
    assert (low, high) == robust_limits(scores["agreement"].to_numpy())
    (label,) = ax.texts
    assert label.get_text() == "145 (0.14, 0.21)"
    assert label.xy == pytest.approx((low, ax.get_ylim()[0]))  # on the corner it points to
    full = plot_annotator_scores(scores, "agreement", "accuracy", robust=False)
    assert full.get_xlim()[0] < 0.14 and full.get_xlabel() == "agreement"
    assert robust_limits(np.array([0.5, 0.5, 0.5])) == pytest.approx((0.45, 0.55))
    with pytest.raises(ValueError, match=r"table must have columns .* missing \['kappa'\]"):
        plot_annotator_scores(scores, "agreement", "kappa")


def test_annotator_scores_say_who_is_not_drawn_and_fences_are_checked():
    """An annotator without a score (NaN) was left out of the scatter while the title counted
    it; a negative or NaN fence raised numpy's error on an empty array, True was taken as 1,
    complex scores were cut to their real parts."""
    from fuzzytruth.plots import plot_annotator_scores, robust_limits

    scores = pd.DataFrame({"annotator_id": list("abcdef"),
                           "agreement": [np.nan, 0.82, 0.85, 0.86, 0.88, 0.84],
                           "accuracy": [0.78, 0.80, 0.84, 0.83, np.nan, 0.8]})
    for robust in (True, False):
        ax = plot_annotator_scores(scores, "agreement", "accuracy", robust=robust)
        assert ax.get_title() == (
            "accuracy vs agreement (6 annotators, 2 without both scores: not drawn)")
        ax.figure.clf()
    ax = plot_annotator_scores(scores.fillna(0.8), "agreement", "accuracy")
    assert ax.get_title() == "accuracy vs agreement (6 annotators)"
    for fence in (-1, np.nan, True, "3"):
        with pytest.raises(ValueError, match=f"fence must be a number >= 0; got {fence!r}"):
            robust_limits(np.array([0.1, 0.2, 0.3]), fence=fence)
    with pytest.raises(ValueError, match="values must be real numbers; got complex values"):
        robust_limits(np.array([0.1 + 1j, 0.2, 0.3]))


def test_reliability_bands_are_the_tables_columns_and_irn_is_dashed():
    """The band of each system runs truth_low..truth_high (or ci_low..ci_high), the curve
    is the table's values at the finite temperatures, the IRN row a dashed line."""
    from fuzzytruth.plots import plot_reliability

    table = _reliability_table()
    for band, (low, high) in {"truth": ("truth_low", "truth_high"),
                              "items": ("ci_low", "ci_high")}.items():
        ax = plot_reliability(table, band=band)
        finite = table[np.isfinite(table["reliability"])].sort_values("reliability")
        (fill,) = ax.collections
        drawn = set(np.round(fill.get_paths()[0].vertices[:, 1], 12))
        assert drawn == set(np.round(finite[[low, high]].to_numpy().ravel(), 12))
        curve = [line for line in ax.lines if line.get_linestyle() == "-"]
        assert np.allclose(curve[0].get_ydata(), finite["value"])
        dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
        irn = table.loc[~np.isfinite(table["reliability"]), "value"]
        assert [line.get_ydata()[0] for line in dashed] == pytest.approx(list(irn))
        ax.figure.clf()
    with pytest.raises(ValueError, match="band must be one of"):
        plot_reliability(table, band="worlds")
    with pytest.raises(ValueError,
                       match=r"measure must be one of \['Acc\(target=top1\)'\]; got 'CE'"):
        plot_reliability(table, measure="CE")
    reversed_ = table.assign(truth_low=table["truth_high"] + 0.1)
    with pytest.raises(ValueError, match="'truth_low' <= 'truth_high'; row 0 holds"):
        plot_reliability(reversed_)
    # the row is the caller's: its index label, whatever the figure filtered or sorted
    other = table.assign(measure="CE")
    late = pd.concat([other, table.assign(truth_low=[0.0, 1.5, 0.5])], ignore_index=True)
    with pytest.raises(ValueError, match=r"'truth_low' <= 'truth_high'; row 4 holds 1\.5 > 1\.0"):
        plot_reliability(late, measure="Acc(target=top1)")


@pytest.mark.parametrize("name", ["plot_query_distribution", "plot_system_pr"])
def test_figures_of_an_evaluation_refuse_anything_else(name):
    """Both raised an AttributeError ('list' object has no attribute 'distribution')."""
    import fuzzytruth.plots as plots

    args = ("A", "q", "P@2") if name == "plot_query_distribution" else ()
    with pytest.raises(ValueError, match=r"evaluation must be an Evaluation .* got list"):
        getattr(plots, name)([1], *args)
