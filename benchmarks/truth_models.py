"""Benchmark and evidence: truth models (fuzzytruth.truth.models) vs crowd-kit.

Part 1, speed (issue 20 bars). Dawid–Skene on ImageNet ReaL (bundled: 924,810 votes, 184,962
items, 85 raters): fuzzytruth's fit to convergence (default tol=1e-6) must take <= 10 s and
<= 1 GB; with a fixed number of iterations (``FIXED_ITER``, tol below any reachable change,
both started from the vote shares) it is timed side by side with crowd-kit's ``DawidSkene``
and ``OneCoinDawidSkene``, and the largest posterior difference is printed. PrIRN on the
dermatology rankings (1,947 cases x 419 conditions): 1,000 worlds of crisp labels, of top-1
labels per plausibility sample, and of full plausibility vectors, read block by block
(``plausibility_blocks``, blocks sized from the memory budget: what a consumer of every world's
vectors reads; timed on ``N_WORLDS_BLOCKS`` worlds and scaled) and kept
whole (``sample_plausibilities``: the array itself is 6.5 GB for 1,000 worlds, so timed on 20
and scaled); bar <= 2 s; peer: plain numpy, every Gamma component drawn with
``Generator.standard_gamma`` and the argmax taken (what the dense Dirichlet of the reference
JAX code computes). CPU time (``time.process_time``), wall time and peak traced memory are
printed with the load average; on a shared machine expect noise of tens of percent.

Measured at load 7.6-8.3 (2 cores shared with other jobs): Dawid–Skene to convergence, 318
iterations, 5.6-5.9 s CPU, 325 MB peak resident (319 MB of it the loaded data); 20 iterations
0.39 s against crowd-kit's 7.90 s (20x), one-coin 0.40 s against 11.49 s (28x), posteriors
equal to 1e-10. On 2026-11-28 at load 1.1-1.5: to convergence 4.34 s CPU, 59 MB traced; 20
iterations 0.44 / 0.33 s against crowd-kit's 5.14 / 6.81 s (11.6x / 20.7x), posteriors equal
to 1.0e-10 / 1.6e-14 (the fit's time the same before and after the per-pair parameters: 3.7-4.0
s in interleaved runs).

Casual annotators (``casual_annotators``: 1,000 annotators who each labelled 10 of 2,000
items, 100 classes; 9,590 (annotator, label) pairs given), 2026-11-28 at load 1.1-1.5: 20
iterations of Dawid–Skene 0.23 s against crowd-kit's 2.72 s, one-coin 0.59 s against 834 s
(measured once; its side-by-side is left out of the run), posteriors equal to 1e-10; 100
worlds of labels (parameters drawn) 9.2 s CPU / 6.9 s wall (Dawid–Skene), 1.3 s (one-coin),
8.4 s, then 1.6 s with MACE's keys made once (MACE). Before the models held their
parameters per pair given (``Votes``), as dense annotators × classes × classes arrays:
Dawid–Skene's fit (50 iterations) 6.69 s, 20 worlds 13.6 s; one-coin 5.95 s / 5.34 s; MACE
9.22 s / 4.33 s; after: 0.73 / 2.56 s, 0.58 / 0.44 s, 0.77 / 0.39 s (a /tmp script's
collection of the same design: 1,985 items, 9,539 pairs).

PrIRN (CPU seconds per 1,000 worlds; before = f26c0f9 and
after = this tree, run alternately twice at load 7.4-7.9, peaks traced; the by-blocks row and
the peer from one run of this script at load 7.7-8.3):

========================  ====================  ====================  ==============
PrIRN, dermatology        before                after                 numpy peer
========================  ====================  ====================  ==============
crisp labels              0.09 (35 MB)          0.10-0.14 (35 MB)
top-1 per sample          1.42-1.64 (126 MB)    1.42-1.50 (126 MB)    31.5 (argmax)
vectors, kept whole       126-156 (345 MB/20)   64-75 (274 MB/20)
vectors, by blocks        (none)                57.6 (251 MB)
========================  ====================  ====================  ==============

Full vectors cannot meet 2 s: 1,000 worlds hold 816 million components, 808 million of them
conditions nobody ranked; each is one keyed Gamma(0.01) draw below the unranked maximum
(Ahrens–Dieter's GS cut at the bound: two uniforms, a logarithm and an exponential, 40-48 ns
compiled at that load, where the Marsaglia–Tsang draw with the small-shape boost it replaced
cost 80-90 ns and needed rejection) and 8 bytes written, 6.5 GB in all, plus the inverse
incomplete gamma of each case's unranked maximum (about 7 ms per world). The numpy peer's
``standard_gamma`` (a sequential generator, not keyed draws) is faster per component. The
labels and the top-1 draw, which Stutz et al.'s measures read, draw none of them. The
by-blocks peak is two blocks of the 128 MB budget (the consumer's and the next).

Part 2, evidence for Dawid–Skene's default world sampler. A simulated collection with a known
truth (``N_ITEMS`` items, 3 classes with priors 0.5/0.3/0.2, ``N_ANNOTATORS`` annotators of
accuracy uniform in [0.55, 0.9] with uniform errors, i.e. one-coin annotators, 3 labels per
item), ``REPLICATES`` replicates: the 95 % interval of the number of items of class 0 over
``N_WORLDS`` worlds, under ``uncertainty="parameters"`` (parameters drawn from their Dirichlet
laws) and ``"posterior"`` (plug-in), for Dawid–Skene and one-coin; how often it covers the true
count (Monte Carlo standard error sqrt(p(1-p)/REPLICATES) beside it), its mean width and the
mean error of the worlds' average count.

Run: ``.venv/bin/python benchmarks/truth_models.py`` (needs the ``crowd`` extra).
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (benchmarks/_smoke.py): ImageNet ReaL's
first ``N_QUESTIONS`` questions, few worlds and replicates.
"""

from __future__ import annotations

import os
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd
from _smoke import SMOKE, size

from fuzzytruth import Annotations, Taxonomy
from fuzzytruth.datasets import dermatology, imagenet_real
from fuzzytruth.truth.models import DawidSkene, Mace, NonConvergenceWarning, OneCoin, PrIRN

FIXED_ITER = size(20, 3)
#: ImageNet ReaL questions fitted in a smoke run (else all of them).
N_QUESTIONS = 2_000
N_WORLDS_PRIRN = size(1_000, 10)
N_WORLDS_BLOCKS = size(100, 4)
#: Worlds of the two costliest PrIRN draws (the numpy peer, the vectors kept whole), scaled.
N_WORLDS_FEW = size(20, 2)
N_ITEMS, N_ANNOTATORS, PER_ITEM = size(120, 60), 8, 3
CASUAL_ANNOTATORS, CASUAL_VOTES, CASUAL_CLASSES = size(1_000, 30), 10, size(100, 12)
CASUAL_ITEMS, N_WORLDS_CASUAL = size(2_000, 60), size(100, 3)
REPLICATES, N_WORLDS = size(200, 2), size(400, 40)


def timed(function, *args, **kwargs):
    """(result, cpu seconds, wall seconds, peak traced MB)."""
    tracemalloc.start()
    cpu, wall = time.process_time(), time.perf_counter()
    result = function(*args, **kwargs)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return result, cpu, wall, peak


def crowd_frame(annotations: Annotations) -> pd.DataFrame:
    frame = annotations.to_frame().rename(columns={"item_id": "task", "annotator_id": "worker"})
    return frame[["task", "worker", "label"]].astype({"label": str})


def imagenet_votes() -> Annotations:
    """ImageNet ReaL's votes; in a smoke run, those on its first ``N_QUESTIONS`` questions."""
    ann = imagenet_real().annotations
    if not SMOKE:
        return ann
    frame = ann.to_frame()
    return Annotations.from_frame(frame[frame["item_id"].isin(ann.items[:N_QUESTIONS])],
                                  taxonomy=ann.taxonomy)


def casual_annotators(rng: np.random.Generator) -> Annotations:
    """``CASUAL_ANNOTATORS`` annotators, each labelling ``CASUAL_VOTES`` random items of
    ``CASUAL_ITEMS``: right with probability 0.7, else a uniform class of
    ``CASUAL_CLASSES`` (a crowd of many workers who each did a few items of a fine-grained
    task; the bundled collections have few annotators who each gave most labels)."""
    truth = rng.integers(0, CASUAL_CLASSES, CASUAL_ITEMS)
    item = np.concatenate([rng.choice(CASUAL_ITEMS, CASUAL_VOTES, replace=False)
                           for _ in range(CASUAL_ANNOTATORS)])
    right = rng.random(len(item)) < 0.7
    label = np.where(right, truth[item], rng.integers(0, CASUAL_CLASSES, len(item)))
    classes = [f"c{k}" for k in range(CASUAL_CLASSES)]
    frame = pd.DataFrame({"item_id": item,
                          "annotator_id": np.repeat(np.arange(CASUAL_ANNOTATORS), CASUAL_VOTES),
                          "label": np.asarray(classes, dtype=object)[label]})
    return Annotations.from_frame(frame, taxonomy=Taxonomy.flat(classes))


def side_by_side(ann: Annotations, frame: pd.DataFrame, *, one_coin: bool = True) -> None:
    """Dawid–Skene and one-coin, ``FIXED_ITER`` iterations from the vote shares, against
    crowd-kit's on ``frame`` (the same votes): CPU, wall, their ratio and the largest
    posterior difference."""
    from crowdkit.aggregation import DawidSkene as CrowdDS
    from crowdkit.aggregation import OneCoinDawidSkene as CrowdOneCoin

    models = [("dawid-skene", DawidSkene, CrowdDS), ("one-coin", OneCoin, CrowdOneCoin)]
    for name, ours, theirs in models[: 2 if one_coin else 1]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NonConvergenceWarning)
            fit, cpu, wall, _ = timed(ours(max_iter=FIXED_ITER, tol=0.0).fit, ann)
        ck, ck_cpu, ck_wall, _ = timed(theirs(n_iter=FIXED_ITER, tol=-np.inf).fit, frame)
        table = fit.posterior_frame()
        diff = np.abs(table.to_numpy() - ck.probas_.reindex(
            index=table.index, columns=[str(c) for c in table.columns]).to_numpy()).max()
        print(f"{name:12} {cpu:9.2f} {wall:9.2f} {ck_cpu:13.2f} {ck_wall:14.2f} "
              f"{ck_cpu / cpu:8.1f}x {diff:10.1e}")


def speed() -> None:
    print(f"load average: {os.getloadavg()}")
    ann = imagenet_votes()
    fit, cpu, wall, peak = timed(DawidSkene().fit, ann)
    print(f"Dawid–Skene on ImageNet ReaL to convergence: {fit.convergence.iterations} "
          f"iterations, last change {fit.convergence.last_change:.2g}; cpu {cpu:.2f} s, wall "
          f"{wall:.2f} s, peak {peak:.0f} MB (bars: 10 s, 1 GB)")
    frame = crowd_frame(ann)
    print(f"\nfixed {FIXED_ITER} iterations from the vote shares, side by side:")
    print(f"{'model':12} {'ours cpu':>9} {'ours wall':>9} {'crowd-kit cpu':>13} "
          f"{'crowd-kit wall':>14} {'ratio cpu':>9} {'max |diff|':>10}")
    side_by_side(ann, frame)
    casual = casual_annotators(np.random.default_rng(0))
    print(f"\n{CASUAL_ANNOTATORS} casual annotators, {CASUAL_VOTES} votes each over "
          f"{CASUAL_CLASSES} classes ({casual.n_items} items; each annotator gives a few of the "
          "labels):")
    print(f"{'model':12} {'ours cpu':>9} {'ours wall':>9} {'crowd-kit cpu':>13} "
          f"{'crowd-kit wall':>14} {'ratio cpu':>9} {'max |diff|':>10}")
    side_by_side(casual, crowd_frame(casual), one_coin=False)  # crowd-kit's one-coin: 834 s
    print(f"  {N_WORLDS_CASUAL} worlds of labels (parameters drawn; no peer draws them):")
    for model in (DawidSkene(max_iter=FIXED_ITER), OneCoin(max_iter=FIXED_ITER),
                  Mace(max_iter=FIXED_ITER)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NonConvergenceWarning)
            fit = model.fit(casual)
        fit.sample_labels(1, seed=1)  # compile the kernels outside the timings
        _, cpu, wall, peak = timed(fit.sample_labels, N_WORLDS_CASUAL, seed=0)
        print(f"  {model.name:12} cpu {cpu:6.2f} s, wall {wall:6.2f} s, peak {peak:5.0f} MB")

    data = dermatology()
    fit = PrIRN().fit(data.rankings)
    print(f"\nPrIRN (T=10, alpha=0.01) on dermatology, {N_WORLDS_PRIRN} worlds "
          f"({data.rankings.n_items} cases x {len(data.conditions)} conditions):")
    fit.sample_top1(2, seed=0)  # compile the kernels outside the timings
    fit.sample_plausibilities(1, seed=0)
    rng = np.random.default_rng(0)

    def numpy_top1(worlds: int) -> np.ndarray:
        """The plain-numpy peer: every Gamma component drawn, then the argmax."""
        draws = rng.standard_gamma(fit.concentration, size=(worlds, *fit.concentration.shape))
        return draws.argmax(axis=2)

    _, peer_cpu, peer_wall, _ = timed(numpy_top1, N_WORLDS_FEW)
    peer_cpu, peer_wall = (peer_cpu * N_WORLDS_PRIRN / N_WORLDS_FEW,
                           peer_wall * N_WORLDS_PRIRN / N_WORLDS_FEW)
    print(f"  {'numpy peer: top-1':22} cpu {peer_cpu:7.2f} s, wall {peer_wall:7.2f} s "
          "(Generator.standard_gamma on every component, argmax; timed on "
          f"{N_WORLDS_FEW}, scaled)")
    def by_blocks(worlds: int, seed: int) -> None:
        """Every world's vectors read once, block by block, none kept."""
        for _ in fit.plausibility_blocks(worlds, seed=seed):
            pass

    for what, call, worlds in (
        ("crisp labels", fit.sample_labels, N_WORLDS_PRIRN),
        ("top-1 per sample", fit.sample_top1, N_WORLDS_PRIRN),
        ("vectors, by blocks", by_blocks, N_WORLDS_BLOCKS),
        ("vectors, kept whole", fit.sample_plausibilities, N_WORLDS_FEW),
    ):
        _, cpu, wall, peak = timed(call, worlds, seed=0)
        scale = N_WORLDS_PRIRN / worlds
        note = f" (timed on {worlds}, scaled)" if scale != 1 else ""
        print(f"  {what:22} cpu {cpu * scale:7.2f} s, wall {wall * scale:7.2f} s, peak "
              f"{peak:5.0f} MB, numpy peer / ours {peer_cpu / (cpu * scale):5.1f}x{note} "
              "(bar: 2 s)")


def simulate(rng: np.random.Generator) -> tuple[Annotations, np.ndarray]:
    priors = np.array([0.5, 0.3, 0.2])
    truth = rng.choice(3, size=N_ITEMS, p=priors)
    accuracy = rng.uniform(0.55, 0.9, size=N_ANNOTATORS)
    who = np.argsort(rng.random((N_ITEMS, N_ANNOTATORS)), axis=1)[:, :PER_ITEM]
    right = rng.random(who.shape) < accuracy[who]
    wrong = (truth[:, None] + rng.integers(1, 3, size=who.shape)) % 3
    label = np.where(right, truth[:, None], wrong)
    frame = pd.DataFrame({
        "item_id": np.repeat(np.arange(N_ITEMS), PER_ITEM),
        "annotator_id": who.ravel(),
        "label": np.array(["c0", "c1", "c2"])[label.ravel()],
    })
    return Annotations.from_frame(frame, taxonomy=Taxonomy.flat(["c0", "c1", "c2"])), truth


CONFIGURATIONS = (
    ("dawid-skene, posterior (plug-in)", DawidSkene(uncertainty="posterior")),
    ("dawid-skene, parameters (default)", DawidSkene()),
    ("dawid-skene, parameters, prior=1", DawidSkene(prior=1.0)),
    ("one-coin, posterior (plug-in)", OneCoin(uncertainty="posterior")),
    ("one-coin, parameters (default)", OneCoin()),
)


def evidence() -> None:
    rng = np.random.default_rng(2026)
    hits = {name: [] for name, _ in CONFIGURATIONS}
    widths = {name: [] for name, _ in CONFIGURATIONS}
    errors = {name: [] for name, _ in CONFIGURATIONS}
    cpu = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NonConvergenceWarning)
        for _ in range(REPLICATES):
            ann, truth = simulate(rng)
            target = int((truth == 0).sum())
            seed = int(rng.integers(2**62))
            for name, model in CONFIGURATIONS:
                fit = model.fit(ann)
                counts = (fit.sample_labels(N_WORLDS, seed=seed)
                          == fit.taxonomy.index("c0")).sum(axis=1)
                low, high = np.quantile(counts, [0.025, 0.975])
                hits[name].append(low <= target <= high)
                widths[name].append(high - low)
                errors[name].append(counts.mean() - target)
    print(f"\nworld samplers: coverage of the true class-0 count by the 95 % world interval "
          f"({REPLICATES} simulated collections: {N_ITEMS} items, {N_ANNOTATORS} one-coin "
          f"annotators, {PER_ITEM} labels per item; {N_WORLDS} worlds; "
          f"{len(caught)} fits hit max_iter; cpu {time.process_time() - cpu:.0f} s)")
    print(f"  {'model, worlds':36} {'coverage':>15} {'width':>6} {'mean error':>10}")
    for name, _ in CONFIGURATIONS:
        p = float(np.mean(hits[name]))
        se = np.sqrt(p * (1 - p) / REPLICATES)
        print(f"  {name:36} {p:8.3f} ± {se:.3f} {np.mean(widths[name]):6.1f} "
              f"{np.mean(errors[name]):+10.2f}")


if __name__ == "__main__":
    speed()
    evidence()
