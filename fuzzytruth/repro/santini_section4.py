"""Reproduce Santini, "Benchmarking without ground truth", §4 (uncertainty in the ground truth).

Part 1 is the paper's own worked example: the Figure 1 image, labelled by 5 subjects as
people ×2, crowd ×1 and city ×2, must give the category probabilities printed in the paper.
Published and computed values are printed side by side and any mismatch exits non-zero.

Part 2 is CONSTRUCTED: the paper used 20 images and 5 subjects but published only Figure 1's
labels. fuzzytruth bundles a hand-written 20-image collection (Figure 1's image is img01) to show
what eq. 10–14 give for a result list: precision and recall as distributions, for a fixed target
category and mixed over the query's own uncertain category.

Run: ``python paper_repro/santini_section4.py`` or ``fuzzytruth repro section4``
"""

from __future__ import annotations

import fuzzytruth as ft
from fuzzytruth.datasets import SANTINI_FIGURE1_PUBLISHED, santini_figure1, santini_illustrative


def figure1() -> bool:
    """Print published vs computed p(ω | Figure 1 image); True when all agree to 1e-12."""
    mem = santini_figure1().membership
    print("Santini §4, Figure 1 image: 5 subjects -> people x2, crowd x1, city x2")
    print(f"{'category':<12}{'published':>10}{'computed':>10}")
    ok = True
    for category, published in SANTINI_FIGURE1_PUBLISHED.items():
        computed = mem.probability("fig1", category)
        ok &= abs(computed - published) <= 1e-12
        print(f"{category:<12}{published:>10.1f}{computed:>10.4f}")
    print("all published values reproduced" if ok else "MISMATCH with the published values")
    return ok


def describe(name: str, dist: ft.Distribution) -> None:
    """One line: mean, std, 95% equal-tailed interval and P(undefined)."""
    low, high = dist.interval(confidence_level=0.95)
    undefined = f", P(undefined) = {dist.p_undefined:.3f}" if dist.p_undefined else ""
    print(
        f"  {name:<34} mean {dist.mean():.3f}  std {dist.std():.3f}  "
        f"95% interval [{low:.3f}, {high:.3f}]{undefined}"
    )


def illustrative() -> None:
    """Precision and recall distributions on the constructed 20-image collection."""
    ex = santini_illustrative()
    mem = ex.membership
    print()
    print("CONSTRUCTED illustration (not in the paper): 20 images x 5 subjects, query img01")
    print("result list:", " ".join(ex.results))
    print("query category weights (share of subjects choosing each node directly):")
    weights = ft.query_category_weights(mem, ex.query)
    print("  " + ", ".join(f"{c} {w:.2f}" for c, w in weights.items()))
    print("expected category sizes |ω| (eq. 9):")
    sizes = mem.category_size()
    print("  " + ", ".join(f"{c} {s:.1f}" for c, s in sizes.items()))
    print("distributions for the whole list of 10:")
    describe(
        "precision | people (eq. 11)",
        ft.precision_distribution(mem, ex.results, category="people"),
    )
    describe(
        "recall | people, k/|ω| (eq. 12)",
        ft.recall_distribution(
            mem, ex.results, category="people", query=ex.query, recall_form="expected_size"
        ),
    )
    describe(
        "recall | people, exact TP/(TP+FN)",
        ft.recall_distribution(
            mem, ex.results, category="people", query=ex.query, recall_form="exact"
        ),
    )
    describe(
        "precision, mixed over query (eq. 13)",
        ft.precision_distribution(mem, ex.results, query=ex.query),
    )
    describe(
        "recall, mixed over query (eq. 14)",
        ft.recall_distribution(mem, ex.results, query=ex.query, recall_form="expected_size"),
    )
    literal = ft.precision_distribution(mem, ex.results, query=ex.query, weights="literal")
    describe("precision, paper's literal weights", literal)
    pmf = ft.precision_distribution(mem, ex.results, category="people").to_frame()
    print("PMF of precision | people:")
    for value, prob in pmf.itertuples(index=False):
        print(f"  P(precision = {value:.1f}) = {prob:.4f}")
    curve = ft.precision_recall_curve(mem, ex.results, category="people", query=ex.query)
    bands = curve.to_frame().pivot(
        index="cutoff", columns="measure", values=["mean", "truth_low", "truth_high"]
    )
    print("P-R curve as distributions (category people): cutoff, mean and 95% interval")
    for cutoff, row in bands.iterrows():
        print(
            f"  @{cutoff:<3} precision {row['mean', 'precision']:.3f} "
            f"[{row['truth_low', 'precision']:.2f}, {row['truth_high', 'precision']:.2f}]   "
            f"recall {row['mean', 'recall']:.3f} "
            f"[{row['truth_low', 'recall']:.2f}, {row['truth_high', 'recall']:.2f}]"
        )


def main() -> int:
    """Run both parts; exit status 1 if the published example is not reproduced."""
    ok = figure1()
    illustrative()
    return 0 if ok else 1
