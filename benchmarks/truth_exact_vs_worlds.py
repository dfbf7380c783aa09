"""Evidence: when must ``evaluate()`` use worlds rather than the exact closed forms under a
fitted truth model?

The exact forms assume that, for a fixed target category, the items are independent with
P(item in the category) = the truth's membership. Dawid–Skene's default worlds
(``uncertainty="parameters"``) draw the priors and confusion matrices per world and recompute
every posterior: items labelled by the same annotators move together, and an item's marginal in
the worlds is the posterior averaged over the drawn parameters, not the fitted (plug-in)
posterior that the membership holds.

Design. Two collections: the bundled image collection (500 items, 5–7 annotators each, 100
queries whose target is the query item's own uncertain category, 3 systems) and one simulated
sparse collection (120 items, 3 classes with priors 0.5/0.3/0.2, 8 one-coin annotators of
accuracy uniform in [0.55, 0.9], 3 labels per item; 30 queries, targets their own category; two
systems scoring the true class plus Gaussian noise of sd 0.5 and 2). Dawid–Skene is fitted with
its defaults (``tol=1e-6``) under both samplers; P@10 and RR per query:

* the exact forms on the plug-in posterior (``uncertainty="posterior"``, ``method="exact"``);
* the worlds of the plug-in posterior (a control: they must agree with the exact forms);
* the worlds of the parameter draws (``method="worlds"``, the default sampler),

each with ``N_WORLDS`` worlds (seed 1). Printed: per-query |difference| between the exact forms
and the parameter worlds (mean, max) and the share of queries where it exceeds 3 Monte Carlo
standard errors (the larger of the worlds' and the exact distribution's standard deviation
over sqrt(N_WORLDS)); the same share for the control (expected: 0.3 %);
each system's mean (and its MC SE); the spread of each system's mean over the worlds
(``truth_std``) under both samplers. CPU time (``time.process_time``) and the load average.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/truth_exact_vs_worlds.py``.
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (benchmarks/_smoke.py).
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
import pandas as pd
from _smoke import size

import fuzzytruth as ft
from fuzzytruth import Annotations, Run, Taxonomy
from fuzzytruth.datasets import image_collection
from fuzzytruth.truth.models import DawidSkene, NonConvergenceWarning

N_WORLDS = size(4000, 100)
MEASURES = ("P@10", "RR")


def mc_se(evaluation: ft.Evaluation, exact: ft.Evaluation, measure: str) -> np.ndarray:
    """``(n_systems, n_queries)`` Monte Carlo standard error of each query's world mean: the
    larger of the worlds' and the exact distribution's standard deviation over sqrt(worlds)
    (a query whose worlds never moved still has the exact form's spread)."""
    frame = exact.to_frame()
    frame = frame[frame["measure"] == measure]
    std = frame.pivot(index="system", columns="query_id", values="truth_std")
    std = std.loc[list(exact.systems), list(exact.queries)].to_numpy()
    return np.maximum(evaluation.world_scores(measure).std(axis=0, ddof=1), std) / np.sqrt(
        N_WORLDS)


def report(label: str, annotations: Annotations, runs: dict[str, Run]) -> None:
    plug_in = DawidSkene(uncertainty="posterior").fit(annotations)
    drawn = DawidSkene().fit(annotations)
    cpu = time.process_time()
    exact = ft.evaluate(runs, plug_in, list(MEASURES), method="exact", n_worlds=N_WORLDS,
                        rng=1)
    control = ft.evaluate(runs, plug_in, list(MEASURES), method="worlds", n_worlds=N_WORLDS,
                          rng=1)
    worlds = ft.evaluate(runs, drawn, list(MEASURES), n_worlds=N_WORLDS, rng=1)
    cpu = time.process_time() - cpu
    print(f"\n{label}: {len(runs)} systems x {len(exact.queries)} queries, {N_WORLDS} worlds "
          f"(cpu {cpu:.1f} s for the three evaluations)")
    for measure in MEASURES:
        e = exact.query_means(measure)
        diff = np.abs(worlds.query_means(measure) - e)
        off = diff > 3 * mc_se(worlds, exact, measure) + 1e-12  # rounding
        off_control = np.abs(control.query_means(measure) - e) > 3 * mc_se(control, exact,
                                                                            measure) + 1e-12
        tables = []
        for ev in (exact, control, worlds):
            table = ev.aggregate()
            tables.append(table[table["measure"] == measure])
        print(f"  {measure}: per query |exact(plug-in) - worlds(parameters)| mean "
              f"{diff.mean():.4f}, max {diff.max():.4f}; beyond 3 MC SE: {off.mean():.0%} of "
              f"(system, query) (control, plug-in worlds: {off_control.mean():.0%})")
        print(f"    system means, exact on the plug-in posterior: "
              f"{tables[0]['value'].round(4).tolist()}")
        print(f"    system means, parameter worlds:               "
              f"{tables[2]['value'].round(4).tolist()} (MC SE "
              f"{tables[2]['mc_se'].round(4).tolist()})")
        print(f"    spread over the truth (truth_std), plug-in worlds:   "
              f"{tables[1]['truth_std'].round(4).tolist()}")
        print(f"    spread over the truth (truth_std), parameter worlds: "
              f"{tables[2]['truth_std'].round(4).tolist()}")


def sparse_collection(rng: np.random.Generator) -> tuple[Annotations, dict[str, Run]]:
    n_items, n_annotators, per_item = 120, 8, 3
    truth = rng.choice(3, size=n_items, p=[0.5, 0.3, 0.2])
    accuracy = rng.uniform(0.55, 0.9, size=n_annotators)
    who = np.argsort(rng.random((n_items, n_annotators)), axis=1)[:, :per_item]
    right = rng.random(who.shape) < accuracy[who]
    wrong = (truth[:, None] + rng.integers(1, 3, size=who.shape)) % 3
    label = np.where(right, truth[:, None], wrong)
    items = np.array([f"i{i}" for i in range(n_items)], dtype=object)
    frame = pd.DataFrame({"item_id": np.repeat(items, per_item), "annotator_id": who.ravel(),
                          "label": np.array(["c0", "c1", "c2"])[label.ravel()]})
    annotations = Annotations.from_frame(frame, taxonomy=Taxonomy.flat(["c0", "c1", "c2"]))
    runs = {}
    for name, noise in (("good", 0.5), ("bad", 2.0)):
        scores = (truth[None, :30].T == truth[None, :]) + noise * rng.standard_normal((30, n_items))
        runs[name] = Run(np.repeat(items[:30], n_items), np.tile(items, 30), scores.ravel(),
                         name=name)
    return annotations, runs


def main() -> None:
    print(f"load average: {os.getloadavg()}")
    warnings.simplefilter("ignore", NonConvergenceWarning)
    data = image_collection()
    report("image collection", data.annotations, data.run_objects())
    report("simulated sparse collection", *sparse_collection(np.random.default_rng(7)))


if __name__ == "__main__":
    main()
