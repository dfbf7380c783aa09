"""Size of ``compare()`` between classifiers under an uncertain truth (items the sampling unit).

Design: per replication, ``n`` items drawn from a superpopulation; each item has a law over
3 classes (Dirichlet(0.7)), 5 annotators label it from that law, and the truth is their shares
(:class:`fuzzytruth.Membership`). Two classifiers are exchangeable by construction (each
item's scores are independent draws of the same Dirichlet(1) tilted by +1.5 on a class drawn
from the item's law), so the true difference of every measure is 0 under any truth: the
rejection rate at 5 % is the size, and the coverage of 0 by the 95 % interval is one minus it.
Measures: Acc (exact laws) and CE against the distribution; ``evaluate(..., n_worlds=200)``
then ``compare(..., rng)`` with the defaults (estimand: collection). Rates carry their Monte
Carlo standard error sqrt(p (1 - p) / R).

Measured 2026-11-23 (R = 1,000 per cell, 36-45 s CPU per n; size MC SE 0.7-0.8 %):

=====  =======  ===========  ====================
n      measure  size (5 %)   coverage of 0 (95 %)
=====  =======  ===========  ====================
30     Acc      5.7 %        94.3 %
30     CE       4.7 %        95.3 %
100    Acc      6.0 %        94.0 %
100    CE       4.6 %        95.4 %
=====  =======  ===========  ====================

Every cell is within 1.3 MC SE of the nominal rate. Only the null is simulated here (no
coverage under an effect, no population estimand): see the report of issue 21.

Run from the worktree root: ``PYTHONPATH=. python benchmarks/classify_validity.py [--reps R]``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

CLASSES = ["a", "b", "c"]
MEASURES = ["Acc", "CE"]


def replication(n: int, seed: int) -> pd.DataFrame:
    from fuzzytruth import Annotations, Membership, Taxonomy, compare, evaluate
    from fuzzytruth.classify import Predictions

    rng = np.random.default_rng(seed)
    law = rng.dirichlet(np.full(3, 0.7), n)
    items = [f"i{i:03d}" for i in range(n)]
    labels = np.array([rng.choice(3, 5, p=p) for p in law])
    frame = pd.DataFrame({"item_id": np.repeat(items, 5), "annotator_id": np.tile(
        [f"h{a}" for a in range(5)], n), "label": np.asarray(CLASSES)[labels.ravel()]})
    truth = Membership.from_annotations(Annotations.from_frame(
        frame, taxonomy=Taxonomy.flat(CLASSES)))
    systems = {}
    for name in ("A", "B"):
        favoured = np.array([rng.choice(3, p=p) for p in law])
        logits = np.log(rng.dirichlet(np.ones(3), n))
        logits[np.arange(n), favoured] += 1.5
        p = np.exp(logits)
        systems[name] = Predictions(p / p.sum(axis=1, keepdims=True), items=items,
                                    classes=CLASSES, name=name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(systems, truth, MEASURES, n_worlds=200, rng=seed, progress=False)
        return compare(ev, rng=seed).table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 100])
    args = parser.parse_args()
    print(__doc__.split("\n\n")[1])
    for n in args.sizes:
        cpu = time.process_time()
        tables = [replication(n, 1000 * n + r) for r in range(args.reps)]
        for measure in MEASURES:
            rows = pd.concat([t[t["measure"] == measure] for t in tables])
            reject = float((rows["pvalue"] < 0.05).mean())
            cover = float(((rows["ci_low"] <= 0) & (rows["ci_high"] >= 0)).mean())
            se = np.sqrt(reject * (1 - reject) / len(rows))
            print(f"n={n:4d} {measure:4s} R={len(rows)}: size {100 * reject:.1f} % "
                  f"(MC SE {100 * se:.1f} %), coverage of 0 {100 * cover:.1f} %, "
                  f"method {rows['method'].iloc[0]}, estimand {rows['estimand'].iloc[0]}")
        print(f"  {time.process_time() - cpu:.1f} s CPU")


if __name__ == "__main__":
    main()
