"""Benchmark: collection agreement (fuzzytruth.collection) vs krippendorff and statsmodels.

10,000 items x 10 annotators x 50 leaf categories (taxonomy: root -> 5 groups -> 10 leaves),
nominal and taxonomy-distance Krippendorff's alpha (and Fleiss' kappa) with 1,000 bootstrap
replicates over items.

Bars (issue 8): point estimates < 1 s, intervals < 10 s, peak memory < 500 MB.

Second part, a real collection (issue 14): ImageNet ReaL's 924,810 votes on 184,962 items
(bundled, :func:`fuzzytruth.datasets.imagenet_real`), 1,000 replicates. Bars: under 10 s and
under 400 MB peak traced memory; the point estimates are checked against krippendorff and
statsmodels on the same counts.

Peers: ``krippendorff.alpha`` (nominal, and a callable metric returning the taxonomy path
length) and ``statsmodels.stats.inter_rater.fleiss_kappa``. Neither bootstraps, so the peer
bootstrap is a Python loop of ``PEER_REPLICATES`` calls on resampled value counts, timed and
scaled to 1,000 replicates (marked "est.").

Run: ``.venv/bin/python benchmarks/agreement.py``. Timings are best of ``REPEATS`` runs;
on a shared machine (other jobs on the same cores) expect noise of tens of percent.
"""

from __future__ import annotations

import time
import tracemalloc

import krippendorff
import numpy as np
import pandas as pd
from statsmodels.stats.inter_rater import fleiss_kappa

from fuzzytruth import Annotations, Taxonomy
from fuzzytruth.collection import agreement, agreement_by_level
from fuzzytruth.collection._counts import label_counts
from fuzzytruth.datasets import imagenet_real

N_ITEMS, N_ANNOTATORS, N_GROUPS, N_LEAVES = 10_000, 10, 5, 10
N_RESAMPLES = 1_000
PEER_REPLICATES = 20
REPEATS = 3


def make_data(seed: int = 0) -> tuple[Taxonomy, Annotations, np.ndarray]:
    """Annotations where each annotator gives the item's true leaf with probability 0.6, a
    sibling of it with probability 0.2, and any leaf otherwise."""
    rng = np.random.default_rng(seed)
    tax = Taxonomy.from_nested(
        {"root": {f"g{g}": [f"g{g}l{k}" for k in range(N_LEAVES)] for g in range(N_GROUPS)}}
    )
    n_leaves = N_GROUPS * N_LEAVES
    truth = rng.integers(n_leaves, size=N_ITEMS)
    draw = rng.random((N_ITEMS, N_ANNOTATORS))
    sibling = (truth // N_LEAVES * N_LEAVES)[:, None] + rng.integers(
        N_LEAVES, size=(N_ITEMS, N_ANNOTATORS)
    )
    anything = rng.integers(n_leaves, size=(N_ITEMS, N_ANNOTATORS))
    leaf = np.where(draw < 0.6, truth[:, None], np.where(draw < 0.8, sibling, anything))
    names = np.array([f"g{g}l{k}" for g in range(N_GROUPS) for k in range(N_LEAVES)])
    frame = pd.DataFrame(
        {
            "item_id": np.repeat(np.arange(N_ITEMS), N_ANNOTATORS),
            "annotator_id": np.tile(np.arange(N_ANNOTATORS), N_ITEMS),
            "label": names[leaf.ravel()],
        }
    )
    return tax, Annotations.from_frame(frame, taxonomy=tax), leaf


def best_of(fn, repeats: int = REPEATS) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def peak_mb(fn) -> float:
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    start = time.perf_counter()
    tax, ann, leaf = make_data()
    print(
        f"data: {N_ITEMS} items x {N_ANNOTATORS} annotators x {N_GROUPS * N_LEAVES} leaves "
        f"({len(tax)} nodes); Annotations built in {time.perf_counter() - start:.2f} s"
    )

    # ------------------------------------------------------------------ peers, point estimates
    reliability = leaf.T.astype(float)  # (annotators, items) leaf codes 0..49
    value_counts = np.zeros((N_ITEMS, N_GROUPS * N_LEAVES))
    np.add.at(value_counts, (np.repeat(np.arange(N_ITEMS), N_ANNOTATORS), leaf.ravel()), 1)
    leaf_nodes = tax.indices(f"g{g}l{k}" for g in range(N_GROUPS) for k in range(N_LEAVES))
    path = tax.distance_matrix()[np.ix_(leaf_nodes, leaf_nodes)].astype(float)

    def path_metric(v1, v2, i1, i2, n_v, dtype=np.float64):
        return path[np.asarray(v1, dtype=int), np.asarray(v2, dtype=int)].astype(dtype)

    t_kr_nom, a_kr_nom = best_of(
        lambda: krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal")
    )
    t_kr_tax, a_kr_tax = best_of(
        lambda: krippendorff.alpha(
            value_counts=value_counts,
            value_domain=np.arange(N_GROUPS * N_LEAVES),
            level_of_measurement=path_metric,
        )
    )
    t_sm, k_sm = best_of(lambda: fleiss_kappa(value_counts))

    # ------------------------------------------------------------------ fuzzytruth
    t_point, res0 = best_of(lambda: agreement(ann, n_resamples=0))
    t_boot, res = best_of(lambda: agreement(ann, n_resamples=N_RESAMPLES, rng=0))
    t_level, _ = best_of(lambda: agreement_by_level(ann, n_resamples=N_RESAMPLES, rng=0), 1)
    mem_point = peak_mb(lambda: agreement(ann, n_resamples=0))
    mem_boot = peak_mb(lambda: agreement(ann, n_resamples=N_RESAMPLES, rng=0))

    for name, ours, peer in (
        ("krippendorff_alpha", res0.value("krippendorff_alpha"), a_kr_nom),
        ("taxonomy_alpha", res0.value("taxonomy_alpha"), a_kr_tax),
        ("fleiss_kappa", res0.value("fleiss_kappa"), k_sm),
    ):
        print(
            f"check {name:<19} fuzzytruth {ours:.10f}  peer {peer:.10f}  "
            f"|diff| {abs(ours - peer):.1e}"
        )

    # ------------------------------------------------------------------ peer bootstrap (loop)
    rng = np.random.default_rng(0)

    def peer_bootstrap() -> None:
        for _ in range(PEER_REPLICATES):
            rows = rng.integers(N_ITEMS, size=N_ITEMS)
            counts = value_counts[rows]
            krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
            krippendorff.alpha(
                value_counts=counts,
                value_domain=np.arange(N_GROUPS * N_LEAVES),
                level_of_measurement=path_metric,
            )
            fleiss_kappa(counts)

    t_peer_loop, _ = best_of(peer_bootstrap, 1)
    t_peer_boot = t_peer_loop * N_RESAMPLES / PEER_REPLICATES
    t_peer_point = t_kr_nom + t_kr_tax + t_sm

    print()
    print(f"{'task':<52}{'fuzzytruth':>12}{'peers':>14}{'ratio':>9}")
    rows = [
        ("point: kappa + nominal alpha + taxonomy alpha (s)", t_point, t_peer_point, ""),
        (f"bootstrap {N_RESAMPLES} replicates, all three (s)", t_boot, t_peer_boot, " est."),
    ]
    for label, ours, peer, note in rows:
        print(f"{label:<52}{ours:>12.3f}{peer:>10.3f}{note:<4}{peer / ours:>9.1f}x")
    print(
        f"{'  peers: krippendorff nominal / taxonomy callable (s)':<52}"
        f"{'':>12}{t_kr_nom:>7.3f} / {t_kr_tax:.3f}"
    )
    print(f"{'  peers: statsmodels fleiss_kappa (s)':<52}{'':>12}{t_sm:>10.3f}")
    print(f"{f'agreement_by_level, {N_RESAMPLES} replicates, 3 depths (s)':<52}{t_level:>12.3f}")
    print(f"{'peak traced memory, point estimates (MB)':<52}{mem_point:>12.1f}")
    print(f"{f'peak traced memory, {N_RESAMPLES} replicates (MB)':<52}{mem_boot:>12.1f}")
    low, high = res.confidence_interval()
    print()
    print(res.to_frame().head(3).to_string(index=False))
    print()
    bars = [
        ("point estimates < 1 s", t_point < 1),
        ("intervals < 10 s", t_boot < 10),
        ("peak memory < 500 MB", mem_boot < 500),
    ]
    for label, ok in bars:
        print(f"bar {label}: {'PASS' if ok else 'FAIL'}")
    assert np.all(np.isfinite(low[:3])) and np.all(np.isfinite(high[:3]))


def real() -> None:
    """ImageNet ReaL: 185k items, 5 raters each, 1,000 replicates, memory-budgeted blocks."""
    t_load, data = best_of(imagenet_real, 1)
    ann = data.annotations
    print(
        f"\nImageNet ReaL: {len(ann.to_frame())} votes, {ann.n_items} items, "
        f"{ann.n_annotators} raters; loaded in {t_load:.2f} s"
    )
    counts = label_counts(ann)[:, 1:]
    t_sm, k_sm = best_of(lambda: fleiss_kappa(counts))
    t_kr, a_kr = best_of(
        lambda: krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    )
    t_point, res0 = best_of(lambda: agreement(ann, n_resamples=0))
    t_boot, res = best_of(lambda: agreement(ann, n_resamples=N_RESAMPLES, rng=0), 2)
    mem_boot = peak_mb(lambda: agreement(ann, n_resamples=N_RESAMPLES, rng=0))
    print(
        f"check fleiss_kappa {res0.value('fleiss_kappa'):.12f} statsmodels {k_sm:.12f}; "
        f"alpha {res0.value('krippendorff_alpha'):.12f} krippendorff {a_kr:.12f}"
    )
    print(f"{'point estimates, fuzzytruth / statsmodels + krippendorff (s)':<64}"
          f"{t_point:>8.3f} / {t_sm + t_kr:.3f}")
    print(f"{f'{N_RESAMPLES} replicates (s)':<64}{t_boot:>8.3f}")
    print(f"{f'peak traced memory, {N_RESAMPLES} replicates (MB)':<64}{mem_boot:>8.1f}")
    print(repr(res))
    for label, ok in (("ReaL < 10 s", t_boot < 10), ("ReaL < 400 MB", mem_boot < 400)):
        print(f"bar {label}: {'PASS' if ok else 'FAIL'}")


if __name__ == "__main__":
    main()
    real()
