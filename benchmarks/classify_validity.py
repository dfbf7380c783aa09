"""Validity of ``compare()`` between classifiers under an uncertain truth (items the sampling
unit): size under the null, coverage under the null and under an effect, for the collection
and the population estimands, with the annotators' shares and a Dawid–Skene posterior as the
truth.

Generating model (one replication): ``n`` items from a superpopulation; each item has a law
over 3 classes (Dirichlet(0.7)); 5 annotators label it from that law; the truth is their
shares (:class:`fuzzytruth.Membership`) or a Dawid–Skene fit on the labels
(``truth_model="dawid-skene"``). Each classifier's probabilities are softmax(log Dirichlet(1)
+ s on a class drawn from the item's law), s = 1.5 for B and 1.5 + ``effect`` for A: under
``effect=0`` the two are exchangeable and every measure's true difference is 0; under an effect
the true difference (the superpopulation mean of A's minus B's expected per-item value under
the same kind of truth) is computed once from 50,000 items with the same model (its MC SE is
printed; it is small beside the intervals' widths). Measures: Acc (exact laws) and CE against
the distribution. Estimands: ``collection`` (``evaluate(..., n_worlds=200)`` then
``compare(..., rng)``, defaults: the paired t test) and ``population``
(:func:`fuzzytruth.stats.annotator_bootstrap` with B = 200, then ``compare``). Rates carry their
Monte Carlo standard error sqrt(p (1 - p) / R).

Null only, measured 2026-11-23 (R = 1,000 per cell; size MC SE 0.7-0.8 %), shares truth,
collection estimand:

=====  =======  ===========  ====================
n      measure  size (5 %)   coverage of 0 (95 %)
=====  =======  ===========  ====================
30     Acc      5.7 %        94.3 %
30     CE       4.7 %        95.3 %
100    Acc      6.0 %        94.0 %
100    CE       4.6 %        95.4 %
=====  =======  ===========  ====================

The designs with an effect, the population estimand and the Dawid–Skene truth: run this file
(``--reps``, ``--sizes``, ``--designs``); ``tests/test_classify_validity.py`` (marked slow)
asserts size and coverage within bars on a reduced design.

Run from the worktree root: ``PYTHONPATH=. python benchmarks/classify_validity.py [--reps R]``.
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (benchmarks/_smoke.py).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

CLASSES = ["a", "b", "c"]
MEASURES = ["Acc", "CE"]


DESIGNS = {
    # name: (effect, truth model, estimand)
    "null-shares-collection": (0.0, "shares", "collection"),
    "effect-shares-collection": (0.8, "shares", "collection"),
    "null-shares-population": (0.0, "shares", "population"),
    "effect-shares-population": (0.8, "shares", "population"),
    "null-ds-collection": (0.0, "dawid-skene", "collection"),
    "effect-ds-collection": (0.8, "dawid-skene", "collection"),
}


def simulate(n: int, effect: float, rng: np.random.Generator):
    """One collection: annotations and the two classifiers (module docstring)."""
    from fuzzytruth import Annotations, Taxonomy
    from fuzzytruth.classify import Predictions

    law = rng.dirichlet(np.full(3, 0.7), n)
    items = [f"i{i:05d}" for i in range(n)]
    labels = (rng.random((n, 5))[..., None] > np.cumsum(law, axis=1)[:, None, :]).sum(axis=2)
    labels = np.minimum(labels, 2)
    frame = pd.DataFrame({"item_id": np.repeat(items, 5), "annotator_id": np.tile(
        [f"h{a}" for a in range(5)], n), "label": np.asarray(CLASSES)[labels.ravel()]})
    annotations = Annotations.from_frame(frame, taxonomy=Taxonomy.flat(CLASSES))
    systems = {}
    for name, strength in (("A", 1.5 + effect), ("B", 1.5)):
        favoured = (rng.random(n)[:, None] > np.cumsum(law, axis=1)).sum(axis=1)
        logits = np.log(rng.dirichlet(np.ones(3), n))
        logits[np.arange(n), np.minimum(favoured, 2)] += strength
        p = np.exp(logits)
        systems[name] = Predictions(p / p.sum(axis=1, keepdims=True), items=items,
                                    classes=CLASSES, name=name)
    return annotations, systems


def fit_truth(annotations, truth_model: str):
    from fuzzytruth import Membership
    from fuzzytruth.truth.models import DawidSkene

    if truth_model == "shares":
        return Membership.from_annotations(annotations)
    return DawidSkene().fit(annotations)


def true_difference(effect: float, truth_model: str, n: int = 50_000,
                    seed: int = 7) -> dict[str, tuple[float, float]]:
    """Per measure, the superpopulation mean of A's minus B's expected per-item value and its
    Monte Carlo standard error (one large collection)."""
    from fuzzytruth import evaluate

    if effect == 0.0:
        return {m: (0.0, 0.0) for m in MEASURES}
    annotations, systems = simulate(n, effect, np.random.default_rng(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(systems, fit_truth(annotations, truth_model), MEASURES, n_worlds=200,
                      rng=seed)
    out = {}
    for measure in MEASURES:
        means = ev.query_means(measure)
        diff = means[0] - means[1]
        out[measure] = (float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(n)))
    return out


def replication(n: int, seed: int, design: str = "null-shares-collection",
                draws: int = 200) -> pd.DataFrame:
    """One replication's comparison table (A minus B, every measure); ``draws`` worlds or
    annotator resamples."""
    from fuzzytruth import compare, evaluate
    from fuzzytruth.stats import annotator_bootstrap

    effect, truth_model, estimand = DESIGNS[design]
    rng = np.random.default_rng(seed)
    annotations, systems = simulate(n, effect, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if estimand == "population":  # the shares rebuilt from each replicate's annotators
            scores = annotator_bootstrap(systems, annotations, MEASURES, n_resamples=draws,
                                         rng=seed, progress=False)
            return compare(scores, rng=seed).table
        ev = evaluate(systems, fit_truth(annotations, truth_model), MEASURES, n_worlds=draws,
                      rng=seed, progress=False)
        return compare(ev, rng=seed).table


def rates(tables: list[pd.DataFrame], truth: dict[str, tuple[float, float]]) -> pd.DataFrame:
    """Per measure: rejection rate at 5 %, coverage of the true difference by the 95 %
    interval, each with its Monte Carlo standard error."""
    rows = []
    for measure in MEASURES:
        t = pd.concat([table[table["measure"] == measure] for table in tables])
        target = truth[measure][0]
        reject = float((t["pvalue"] < 0.05).mean())
        cover = float(((t["ci_low"] <= target) & (t["ci_high"] >= target)).mean())
        r = len(t)
        rows.append({"measure": measure, "R": r, "true_difference": target,
                     "true_difference_se": truth[measure][1], "reject": reject,
                     "reject_se": np.sqrt(reject * (1 - reject) / r), "coverage": cover,
                     "coverage_se": np.sqrt(cover * (1 - cover) / r),
                     "method": t["method"].iloc[0], "estimand": t["estimand"].iloc[0]})
    return pd.DataFrame(rows)


def main() -> None:
    from _smoke import size  # here: tests/test_classify_validity.py loads this file alone

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=size(200, 3))
    parser.add_argument("--sizes", type=int, nargs="+", default=size([30, 100], [30]))
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=list(DESIGNS))
    args = parser.parse_args()
    print(__doc__.split("\n\n")[1])
    for design in args.designs:
        effect, truth_model, _ = DESIGNS[design]
        truth = true_difference(effect, truth_model, n=size(50_000, 500))
        for n in args.sizes:
            cpu = time.process_time()
            tables = [replication(n, 1000 * n + r, design, size(200, 20))
                      for r in range(args.reps)]
            for _, row in rates(tables, truth).iterrows():
                what = "size" if effect == 0 else "power"
                print(f"{design:26s} n={n:4d} {row['measure']:4s} R={row['R']}: true "
                      f"difference {row['true_difference']:+.4f} (MC SE "
                      f"{row['true_difference_se']:.4f}); {what} {100 * row['reject']:.1f} % "
                      f"(MC SE {100 * row['reject_se']:.1f} %), coverage "
                      f"{100 * row['coverage']:.1f} % (MC SE {100 * row['coverage_se']:.1f} %), "
                      f"method {row['method']}, estimand {row['estimand']}")
            print(f"  {time.process_time() - cpu:.1f} s CPU")


if __name__ == "__main__":
    main()
