"""IRN and PrIRN on partial rankings with ties.

Oracles: a brute-force reading of the IRN rule (reader by reader, class by class); the
Dirichlet's closed-form moments for PrIRN's samples (within Monte Carlo error); the hand values
of google-deepmind/uncertain_ground_truth's tests (irn_test.py, formats_test.py,
selectors_utils_test.py): values are facts, the code is ours.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from thread_splits import one_and_many

from fuzzytruth import Annotations, Taxonomy
from fuzzytruth.datasets import dermatology
from fuzzytruth.io.rankings import Rankings
from fuzzytruth.truth.models import IRN, PrIRN, irn


def _dedupe(groups):
    """Drop repeated classes within one reader (the format forbids them) and empty groups."""
    seen, out = set(), []
    for group in groups:
        kept = [c for c in dict.fromkeys(group) if c not in seen]
        seen.update(kept)
        if kept:
            out.append(kept)
    return out


selectors_strategy = st.lists(  # items
    st.lists(  # readers
        st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=3), min_size=1, max_size=3)
        .map(_dedupe).filter(bool),
        min_size=1, max_size=4,
    ),
    min_size=1, max_size=5,
)



def brute_force_irn(selectors, n_classes):
    out = []
    for readers in selectors:
        score = [0.0] * n_classes
        for ranking in readers:
            for g, group in enumerate(ranking):
                for c in group:
                    score[c] += 1.0 / (1 + g)
        total = sum(score)
        out.append([s / total for s in score])
    return np.array(out)


@settings(max_examples=60, deadline=None)
@given(selectors=selectors_strategy)
def test_irn_is_the_brute_force_rule(selectors):
    rankings = Rankings.from_selectors(selectors, classes=6)
    np.testing.assert_allclose(irn(rankings), brute_force_irn(selectors, 6), atol=1e-15)
    fit = IRN().fit(rankings)
    np.testing.assert_allclose(fit.membership.matrix[:, 1:], brute_force_irn(selectors, 6))
    assert rankings.to_selectors() == selectors


def test_prirn_at_huge_temperature_samples_irn():
    """irn_test.py: temperature 1e6, alpha 0: every sample equals the plausibilities to 2
    decimals."""
    plausibilities = np.array([[0.4, 0.3, 0.2, 0.1], [0.8, 0.1, 0.05, 0.05]])
    # rankings whose IRN is exactly these rows: one reader per group position weight
    fit = PrIRN(temperature=1e6, alpha=0.0).fit(_rankings_with_irn(plausibilities))
    np.testing.assert_allclose(fit.irn, plausibilities, atol=1e-12)
    samples = fit.sample_plausibilities(10, seed=0)
    assert samples.shape == (10, 2, 4)
    np.testing.assert_allclose(samples, np.broadcast_to(plausibilities, samples.shape),
                               atol=0.005)


def _rankings_with_irn(rows):
    """Items whose IRN equals ``rows`` (multiples of 0.05): 20 top-group votes per 1.0."""
    frame = []
    for i, row in enumerate(rows):
        reader = 0
        for c, p in enumerate(row):
            for _ in range(round(p * 20)):
                frame.append((i, reader, c, 0))
                reader += 1
    df = pd.DataFrame(frame, columns=["item_id", "reader_id", "class", "rank_group"])
    return Rankings.from_frame(df, classes=list(range(rows.shape[1])))


@pytest.mark.parametrize(("temperature", "alpha"), [(10.0, 0.01), (1.0, 0.5), (3.0, 0.0)])
def test_prirn_sample_moments_match_the_dirichlet(temperature, alpha):
    rankings = Rankings.from_selectors(
        [[[[0], [1, 2]], [[2]], [[0], [3]]], [[[3]]], [[[1, 2]], [[2], [0]]]], classes=5
    )
    fit = PrIRN(temperature=temperature, alpha=alpha).fit(rankings)
    a = fit.concentration
    a0 = a.sum(axis=1, keepdims=True)
    mean, var = a / a0, a * (a0 - a) / (a0**2 * (a0 + 1))
    n = 20_000
    samples = fit.sample_plausibilities(n, seed=42)
    np.testing.assert_allclose(fit.posterior, mean)
    se = np.sqrt(var / n)
    assert np.all(np.abs(samples.mean(axis=0) - mean) <= 5 * se + 1e-12)
    # variance, within 5 standard errors (the sample's own fourth central moment)
    m4 = ((samples - samples.mean(axis=0)) ** 4).mean(axis=0)
    se_var = np.sqrt(np.maximum(m4 - samples.var(axis=0) ** 2, 0) / n)
    assert np.all(np.abs(samples.var(axis=0) - var) <= 5 * se_var + 1e-12)
    # top-1 per sample is the argmax of the same samples, world by world
    top = fit.sample_top1(np.arange(50), seed=42)
    columns = fit.taxonomy.indices(fit.classes)
    assert np.array_equal(top, columns[samples[:50].argmax(axis=2)])
    # crisp labels have the mean as their law (Monte Carlo)
    labels = fit.sample_labels(n, seed=7)
    share = (labels[:, :, None] == columns[None, None, :]).mean(axis=0)
    assert np.all(np.abs(share - mean) <= 5 * np.sqrt(mean * (1 - mean) / n) + 1e-12)


@pytest.mark.parametrize("temperature", [1e-3, 1e-6])
def test_prirn_at_a_small_temperature_draws_vertices_in_the_irn_proportions(temperature):
    """At T -> 0 the Dirichlet(T · IRN) sample is a vertex of the simplex, vertex j with
    probability IRN_j (its shapes' proportions). Every Gamma draw of an item was below the
    smallest double at T = 1e-3 in about half the worlds: 0/0, NaN plausibility rows with a
    RuntimeWarning, and the first ranked class as the top-1 of every such world."""
    rankings = Rankings.from_selectors([[[[0], [1, 2]], [[1]]], [[[2]], [[0], [1]]]],
                                       classes=["a", "b", "c"])
    fit = PrIRN(temperature=temperature, alpha=0).fit(rankings)
    n = 4000
    with np.errstate(invalid="raise", divide="raise"):  # no 0/0
        samples = fit.sample_plausibilities(n, seed=11)
        top = fit.sample_top1(n, seed=11)
    np.testing.assert_allclose(samples.sum(axis=2), 1.0)
    columns = fit.taxonomy.indices(fit.classes)
    assert np.array_equal(top, columns[samples.argmax(axis=2)])
    share = (samples.argmax(axis=2)[:, :, None] == np.arange(3)).mean(axis=0)
    p = fit.irn
    assert np.all(np.abs(share - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12)
    assert (samples.max(axis=2) > 0.99).mean() > 0.98  # (nearly) a vertex, nearly always


def test_dirichlet_of_small_concentrations_keeps_its_proportions():
    """Dirichlet draws of parameters (Dawid–Skene's confusion rows, MACE, one-coin) with every
    concentration of a row below about 0.003: the Gamma draws were all 0 as doubles, the row
    0 (then made uniform by the confusion floor). Drawn in logs, each row is a near-vertex,
    vertex j with probability a_j / sum(a), and a row of zeros stays 0."""
    from fuzzytruth._random import dirichlet

    a = np.array([[1e-5, 2e-5, 7e-5], [0.0, 0.0, 0.0], [2.0, 1.0, 1.0]])
    n = 4000
    keys = np.arange(a.size, dtype=np.uint64).reshape(a.shape)
    with np.errstate(invalid="raise", divide="raise"):  # no 0/0
        rows = dirichlet(5, 6, keys, a, np.arange(n))
    np.testing.assert_allclose(rows[:, [0, 2]].sum(axis=2), 1.0)
    assert (rows[:, 1] == 0).all()
    share = (rows[:, 0].argmax(axis=1)[:, None] == np.arange(3)).mean(axis=0)
    p = a[0] / a[0].sum()
    assert np.all(np.abs(share - p) <= 5 * np.sqrt(p * (1 - p) / n))
    # an ordinary row keeps its Dirichlet mean (within 5 standard errors)
    mean = a[2] / a[2].sum()
    var = mean * (1 - mean) / (a[2].sum() + 1)
    assert np.all(np.abs(rows[:, 2].mean(axis=0) - mean) <= 5 * np.sqrt(var / n))


@settings(max_examples=40, deadline=None)
@given(lengths=st.lists(st.integers(1, 5), min_size=1, max_size=6), k=st.integers(1, 4),
       seed=st.integers(0, 2**32), small=st.booleans())
def test_dirichlet_rows_as_runs_are_the_rows_on_the_last_axis(lengths, k, seed, small):
    """``starts``: a row is a run of the second-to-last axis (Dawid–Skene's confusion rows in
    a table of (annotator, label) pairs × classes). The oracle: the same components, with the
    same keys, laid out as rows of the last axis; each variate equal to rounding (the sums
    run in another order), rows summing to 1."""
    from fuzzytruth._random import dirichlet

    rng = np.random.default_rng(seed)
    n = sum(lengths)
    scale = 1e-6 if small else 3.0
    a = rng.random((n, k)) * scale + (0 if small else 0.05)
    keys = rng.integers(0, 2**63, (n, k)).astype(np.uint64)
    starts = np.cumsum([0, *lengths[:-1]])
    worlds = np.arange(7)
    runs = dirichlet(seed, 3, keys, a, worlds, starts=starts)
    for s0, length in zip(starts, lengths, strict=True):
        cells = slice(s0, s0 + length)
        rows = dirichlet(seed, 3, keys[cells].T, a[cells].T, worlds)  # (worlds, k, length)
        np.testing.assert_allclose(runs[:, cells], rows.transpose(0, 2, 1), rtol=1e-12,
                                   atol=1e-300)
    np.testing.assert_allclose(
        np.add.reduceat(runs, starts, axis=1), 1.0, rtol=1e-12)


def test_formats_test_hand_values():
    """formats_test.py: selectors [[3], [1], [2]] and [[0], [4, 1, 2]] over 5 classes give
    their rankings/groups arrays; compared class by class (-1: unranked)."""
    rankings = Rankings.from_selectors([[[[3], [1], [2]], [[0], [4, 1, 2]]]], classes=5)
    frame = rankings.to_frame()
    groups = np.full((2, 5), -1)
    groups[frame["reader_id"].to_numpy(int), frame["class"].to_numpy(int)] = frame["rank_group"]
    # their expected rankings [3,1,2,0,4] / [0,4,1,2,3] with groups [0,1,2,-1,-1] / [0,1,1,1,-1]
    expected_rankings = np.array([[3, 1, 2, 0, 4], [0, 4, 1, 2, 3]])
    expected_groups = np.array([[0, 1, 2, -1, -1], [0, 1, 1, 1, -1]])
    by_class = np.full((2, 5), -1)
    np.put_along_axis(by_class, expected_rankings, expected_groups, axis=1)
    assert np.array_equal(groups, by_class)


@pytest.mark.parametrize(("selectors", "message"), [
    ([[[[3.0], [1], [2]], [[0], [4, 1, 2]]]], "integers"),  # float label: INVALID_TYPE
    ([[[[3], [1], [2]], [[0], [4, 1, 2]], [[]]]], "non-empty"),  # empty group
    ([[[[3], [1], [2]], [[0], [4, 1], [1, 3]]]], "twice"),  # duplicate in a reader
    ([[[[3], [1], [2]]], [[[0], [4, 1], [1, 3]]]], "twice"),
    ([[[[300]]]], "not below the number of classes"),  # id >= num_classes: INVALID_TYPE
])
def test_selectors_utils_invalid_cases_are_errors(selectors, message):
    with pytest.raises(ValueError, match=message):
        Rankings.from_selectors(selectors, classes=288)


def test_selectors_utils_valid_cases_read():
    """The valid cases of selectors_utils_test.py (num_classes 288); an empty reader is
    padding here (their check calls it an error: pad_selectors writes it)."""
    case = [[[269]], [[80], [135, 269]], [[80], [1, 269]], [[269]],
            [[135, 269], [54, 151], [87]], [[269]], [[269]], [[80]], [[135]]]
    rankings = Rankings.from_selectors([case], classes=288)
    assert rankings.to_selectors() == [case]
    padded = Rankings.from_selectors([[[[3], [1], [2]], [[0], [4, 1, 2]], []]], classes=288)
    assert padded.to_selectors() == [[[[3], [1], [2]], [[0], [4, 1, 2]]]]


def test_ranking_models_refuse_unranked_labels():
    df = pd.DataFrame({"item_id": [1, 1], "annotator_id": ["a", "b"], "label": ["x", "y"]})
    ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(["x", "y"]))
    for model in (IRN(), PrIRN()):
        with pytest.raises(ValueError, match="needs partial rankings"):
            model.fit(ann)
    with pytest.raises(ValueError, match="temperature must be"):
        PrIRN(temperature=0)
    with pytest.raises(ValueError, match="alpha must be"):
        PrIRN(alpha=-1)
    # True is not a temperature; numpy's numbers are numbers, kept as floats
    with pytest.raises(ValueError, match="alpha must be a finite number >= 0; got True"):
        PrIRN(alpha=True)
    assert PrIRN(temperature=np.int64(3), alpha=np.float32(0.5)) == PrIRN(3.0, 0.5)
    assert type(PrIRN(temperature=np.int64(3)).temperature) is float


def test_dermatology_irn_and_risk_membership():
    data = dermatology()
    fit = PrIRN(temperature=10, alpha=0.01).fit(data.rankings)  # defaults spelled out
    assert PrIRN() == PrIRN(temperature=10, alpha=0.01)
    mem = fit.membership
    risk = mem.matrix[:, data.taxonomy.indices(["low risk", "medium risk", "high risk"])]
    np.testing.assert_allclose(risk.sum(axis=1), 1.0)
    np.testing.assert_allclose(mem.matrix[:, data.taxonomy.index("skin condition")], 1.0)
    # case 0 is [[[56]]]: one reader, one condition; IRN puts all mass on it
    assert fit.irn[0, 56] == 1.0 and fit.irn[0].sum() == 1.0
    expected = (10 * 1.0 + 0.01) / (10 + 419 * 0.01)
    assert fit.posterior[0, 56] == pytest.approx(expected)


@settings(max_examples=30, deadline=None)
@given(truth=st.lists(st.integers(0, 3), min_size=1, max_size=6), n_readers=st.integers(1, 4))
def test_readers_who_all_agree_give_the_crisp_truth(truth, n_readers):
    """Every reader names the same single class: IRN is one-hot, and so is every PrIRN world
    when alpha = 0 (with alpha > 0 every class keeps some plausibility by construction, and
    the top-1 class of a sample is the named one unless an unranked class beats it)."""
    selectors = [[[[t]]] * n_readers for t in truth]
    rankings = Rankings.from_selectors(selectors, classes=4)
    onehot = np.eye(4)[truth]
    np.testing.assert_array_equal(IRN().fit(rankings).posterior, onehot)
    fit = PrIRN(temperature=5.0, alpha=0.0).fit(rankings)
    np.testing.assert_array_equal(fit.posterior, onehot)
    worlds = fit.sample_plausibilities(10, seed=2)
    np.testing.assert_array_equal(worlds, np.broadcast_to(onehot, worlds.shape))
    columns = fit.taxonomy.indices(fit.classes)
    expected = np.broadcast_to(columns[truth], (10, len(truth)))
    assert np.array_equal(fit.sample_labels(10, seed=2), expected)
    assert np.array_equal(fit.sample_top1(10, seed=2), expected)


@pytest.mark.parametrize(("a", "bound"), [
    (0.01, 1e-3), (0.01, 0.7), (0.3, 3.0), (0.9, 1e-12), (0.5, 40.0),  # GS cut at the bound
    (2.0, 1.5), (5.0, 0.3),  # a >= 1: rejection, and inversion after 32 rejections
])
def test_gammas_below_follow_the_truncated_gamma_law(a, bound):
    """PrIRN's unranked classes below the maximum: Gamma(a) conditioned below the bound, so
    P(a, x) / P(a, bound) is uniform (Kolmogorov–Smirnov on 20,000 keyed draws), every draw
    below the bound."""
    from scipy import stats
    from scipy.special import gammainc

    from fuzzytruth._random import gammas_below

    keys = np.arange(20_000, dtype=np.uint64).reshape(100, 200) * np.uint64(2654435761)
    out = gammas_below(7, 3, keys, np.full(keys.shape, a), np.full((1, 100), bound),
                       np.arange(1), np.zeros((1, 100, 200)))
    assert ((out >= 0) & (out < bound)).all()
    u = gammainc(a, out.ravel()) / gammainc(a, bound)
    assert stats.kstest(u, "uniform").pvalue > 1e-3


def test_dermatology_plausibility_worlds_are_keyed_and_argmax_is_top1():
    """The full vectors (the unranked conditions drawn below their maximum in one compiled
    pass): the same worlds in any blocks, their argmax the top-1 sampler's, rows summing to 1,
    and the unranked block's maximum where the top-1 draw put it."""
    fit = PrIRN(temperature=3, alpha=0.01).fit(dermatology().rankings)
    worlds = np.array([0, 5, 999])
    whole = fit.sample_plausibilities(worlds, seed=4)
    blocks = list(fit.plausibility_blocks(worlds, seed=4, memory_budget=1.0))
    assert [start for start, _ in blocks] == [0, 1, 2]
    assert np.array_equal(np.concatenate([b for _, b in blocks]), whole)
    assert np.array_equal(fit.sample_plausibilities(worlds[1:], seed=4), whole[1:])
    np.testing.assert_allclose(whole.sum(axis=2), 1.0, atol=1e-12)
    columns = fit.taxonomy.indices(fit.classes)
    assert np.array_equal(columns[whole.argmax(axis=2)], fit.sample_top1(worlds, seed=4))
    unranked = np.where(fit.irn > 0, -np.inf, whole)
    holders = unranked.argmax(axis=2)
    # one unranked condition holds the block's maximum; the others lie strictly below it
    top = np.take_along_axis(unranked, holders[..., None], axis=2)
    assert ((unranked < top) | (np.arange(whole.shape[2]) == holders[..., None])).all()


def test_gamma_draws_split_from_fewer_cells_than_cheap_passes(monkeypatch):
    """A Gamma draw costs about 8 of the cheapest passes' cells (by_rows' ``cost``): a world
    block of a Dawid-Skene fit's parameters, 200 worlds x 1,452 concentrations (290,400
    draws, under THREADED_CELLS), splits over two threads, with the bits of one; a pass an
    eighth of the threshold below does not."""
    from fuzzytruth import _threads
    from fuzzytruth._random import gammas

    keys = np.arange(1452, dtype=np.uint64) * np.uint64(2654435761)
    shape = np.linspace(1e-3, 40.0, 1452)
    worlds = np.arange(200)
    assert len(keys) * len(worlds) < _threads.THREADED_CELLS <= 8 * len(keys) * len(worlds)
    one_and_many(monkeypatch, "2", lambda: (gammas(7, 4, keys, shape, worlds, log=True),), 1)
    slices = []
    pool = _threads.run_in_threads
    monkeypatch.setattr(_threads, "run_in_threads", lambda work, blocks, n_threads: (
        slices.append(len(blocks)) or pool(work, blocks, n_threads=n_threads)))
    gammas(7, 4, keys, shape, worlds[: _threads.THREADED_CELLS // 8 // len(keys) - 1])
    assert slices == [1]


@pytest.mark.parametrize("threads", ["2", "3"])
def test_keyed_passes_split_over_threads_give_the_bits_of_one(monkeypatch, threads):
    """gammas, gammas_below (split by worlds), categorical_draws (split by units) and PrIRN's
    tail comparison (split by elements) run large passes over the kernels' threads; every
    draw is keyed, so the bits are those of one thread, for any count (3 threads: uneven
    slices), with the lower-tail inversion after rejections (a = 5 far below its mean) and a
    skip column varying by world and row, categorical draws with values per cell and in a
    given column order, and the tail comparison still scipy's (on a sample of its 2**20
    elements). Each pass is asserted to have been split (a slice of the skip column left
    unsliced fails it)."""
    from scipy.special import gammaincc

    from fuzzytruth import _threads
    from fuzzytruth._random import categorical_draws, gammas, gammas_below
    from fuzzytruth.truth.models.rankings import below_upper_tail

    keys = np.arange(600 * 400, dtype=np.uint64).reshape(600, 400) * np.uint64(2654435761)
    shape = np.where(np.arange(400) % 50 == 0, 5.0, 0.02)[None, :].repeat(600, axis=0)
    bound = np.linspace(1e-3, 2.0, 5 * 600).reshape(5, 600)
    worlds = np.array([0, 3, 4, 10, 11])
    skip = (np.arange(5)[:, None] * 97 + np.arange(600)) % 400  # a column per world and row
    p = np.random.default_rng(0).dirichlet(np.full(30, 0.3), size=keys.size // 60)
    units, many_worlds = keys.ravel()[: len(p)], np.arange(500)
    labels = np.arange(len(p) * 30, dtype=np.int32).reshape(len(p), 30)
    tail_rng = np.random.default_rng(1)  # t near Q(0.01, x) too, where scipy decides
    x = tail_rng.exponential(2.0, _threads.THREADED_CELLS) * (tail_rng.random(2**20) > 1e-3)
    t = tail_rng.random(2**20)
    near = tail_rng.choice(2**20, 20_000, replace=False)
    t[near] = gammaincc(0.01, x[near]) * (1 + tail_rng.normal(0, 1e-3, len(near)))
    assert 5 * keys.size >= _threads.THREADED_CELLS <= len(p) * len(many_worlds)

    def passes():
        below = gammas_below(7, 3, keys, shape, bound, worlds, np.zeros((5, 600, 400)),
                             skip=skip, normalise=True)
        return (below, gammas(7, 4, keys.ravel(), shape.ravel(), worlds, log=True),
                categorical_draws(7, 5, units, np.cumsum(p, axis=1), many_worlds,
                                  values=labels),
                categorical_draws(7, 5, units, p, many_worlds, order=np.arange(30)[::-1]),
                below_upper_tail(t, 0.01, x))

    one, many = one_and_many(monkeypatch, threads, passes, 5)
    kept = np.take_along_axis(one[0], skip[..., None], axis=2)
    assert np.isfinite(one[0]).all() and (kept == 0).all()
    assert (np.take_along_axis(labels, one[2] % 30, axis=1) == one[2]).all()
    sample = np.concatenate([near, tail_rng.choice(len(t), 20_000, replace=False)])
    assert (many[4][sample] == (t[sample] < gammaincc(0.01, x[sample]))).all()


def test_annotator_models_warn_of_readers_that_are_positions(tmp_path):
    """Selectors name no readers: reader r of one case and of another need not be one
    dermatologist, yet Dawid–Skene, one-coin and MACE fitted one confusion matrix for
    "reader 0" of every case without a word. The same rankings with reader ids do not warn,
    nor do the models that estimate no annotator."""
    import warnings

    from fuzzytruth.io.rankings import read_rankings, write_rankings
    from fuzzytruth.truth.models import AnonymousReadersWarning, DawidSkene, Mace, OneCoin, Shares

    selectors = [[[[0], [1]], [[1]]], [[[0]], [[2], [0]]], [[[1]], [[1]]]]
    positional = Rankings.from_selectors(selectors, classes=["a", "b", "c"])
    # the same readers declared as two people who read every case: the same fit, no warning
    named = Rankings.from_frame(
        positional.frame.assign(reader_id=positional.frame["reader_id"].map({0: "ann",
                                                                            1: "bob"})),
        classes=positional.classes)
    path = tmp_path / "r.json"
    write_rankings(positional, path)
    assert positional.anonymous_readers and read_rankings(path).anonymous_readers
    assert not named.anonymous_readers
    for model in (DawidSkene(), OneCoin(), Mace()):
        with pytest.warns(AnonymousReadersWarning, match=rf"^{model.name} estimates each "
                          r"annotator, but these rankings' reader ids are positions"):
            fit = model.fit(positional)
        with warnings.catch_warnings():
            warnings.simplefilter("error", AnonymousReadersWarning)
            again = model.fit(named)
        np.testing.assert_allclose(fit.posterior, again.posterior, rtol=0, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AnonymousReadersWarning)
        for model in (Shares(), IRN(), PrIRN()):
            model.fit(positional)
    with pytest.raises(ValueError, match="anonymous_readers must be True or False; got 'no'"):
        Rankings.from_frame(named.frame, anonymous_readers="no")


@settings(max_examples=300, deadline=None)
@given(a=st.one_of(st.floats(1e-8, 1.0), st.sampled_from([0.01, 1.0, 1.5, 3.0])),
       x=st.one_of(st.floats(0.0, 800.0), st.floats(1e-300, 1e-6), st.just(0.0)),
       nudge=st.floats(-1e-2, 1e-2), t_free=st.floats(0.0, 1.0))
def test_the_tail_comparison_is_scipys_wherever_its_bounds_decide(a, x, nudge, t_free):
    """PrIRN's top-1 draws compare a tail probability t with Q(α, x) through two bounds of Q
    and scipy's gammaincc only between them: the answer is scipy's, for t anywhere and for t
    next to Q (within 1 %) or next to either bound."""
    from scipy.special import gammaincc, gammaln

    from fuzzytruth.truth.models.rankings import below_upper_tail

    q = gammaincc(a, x)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        upper = np.exp((a - 1) * np.log(x) - x - gammaln(a))
        lower = upper * x / (x + (1 - a))
    t = np.array([t_free, q * (1 + nudge), upper * (1 + nudge), lower * (1 + nudge)])
    t = np.clip(np.nan_to_num(t, nan=0.5, posinf=1.0), 0.0, 1.0)
    x_all = np.full_like(t, x)
    assert below_upper_tail(t, a, x_all).tolist() == (t < gammaincc(a, x_all)).tolist()


@pytest.mark.parametrize("a", [1e-8, 0.01, 0.3, 1.0])
def test_the_power_series_decides_where_the_bounds_are_loose(a):
    """For x below 4 the two bounds of Q are far apart (their ratio is x / (x + 1 - a)) and
    left most comparisons to scipy (about 1 µs each); P's power series brackets Q there: the
    compiled pass now decides all but those within its 0.1 % margin, and every decision is
    scipy's (t uniform, and t within 0.5 % of Q)."""
    from scipy.special import gammaincc, gammaln

    from fuzzytruth.truth.models.rankings import _compiled

    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(0, 4, 50_000), 10 ** rng.uniform(-300, 0, 50_000)])
    q = gammaincc(a, x)
    near = q * (1 + rng.uniform(-5e-3, 5e-3, len(x)))
    for t, most in ((rng.random(len(x)), 0.999), (near, 0.75)):
        decided = np.empty(len(x), dtype=np.int8)
        _compiled()["tail_bounds"](t, x, a, float(gammaln(a)), decided)
        assert (decided[t < q] != 0).all() and (decided[t >= q] != 1).all()
        # every t outside the margin decided where Q is clear of the series' floor (1e-9;
        # at a = 1e-8, Q(a, x) ~ a E1(x) falls below it for x near 4 and is left to scipy)
        outside = (np.abs(t / q - 1) > 1.1e-3) & (q > 1e-8)
        assert outside.sum() > len(x) / 5 and (decided[outside] != 2).all()
        if a >= 0.01:  # where Q is never that small: nearly every comparison decided
            assert np.mean(decided != 2) >= most


@settings(max_examples=60, deadline=None)
@given(ranked=st.lists(st.lists(st.booleans(), min_size=6, max_size=6).filter(any),
                       min_size=1, max_size=6),
       n_worlds=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_ranked_maxima_and_unranked_classes_are_their_definitions(ranked, n_worlds, seed):
    """The compiled passes of PrIRN's sampler, against their definitions written with NumPy:
    each item's largest ranked draw and the first ranked class holding it (draws with ties),
    and the j-th class that an item did not rank."""
    from fuzzytruth.truth.models.rankings import _Ranked

    mask = np.array(ranked)
    rng = np.random.default_rng(seed)
    irn_ = np.where(mask, rng.random(mask.shape) + 0.1, 0.0)
    structure = _Ranked.of(irn_, irn_ + 0.01, np.arange(mask.size, dtype=np.uint64)
                           .reshape(mask.shape))
    drawn = rng.integers(0, 3, (n_worlds, len(structure.item))).astype(float)  # ties
    best, first = structure.maxima(drawn)
    for w in range(n_worlds):
        for i in range(len(mask)):
            mine = drawn[w, structure.item == i]
            assert best[w, i] == mine.max()
            assert first[w, i] == np.flatnonzero(mask[i])[np.argmax(mine)]
    rest = (~mask).sum(axis=1)
    j = np.floor(rng.random((n_worlds, len(mask))) * rest).astype(np.int64)
    got = structure.unranked_class(j)
    for w in range(n_worlds):
        for i in range(len(mask)):
            if rest[i]:
                assert got[w, i] == np.flatnonzero(~mask[i])[j[w, i]]


def test_top1_draws_of_every_temperature_and_alpha_are_the_argmax_of_the_plausibilities():
    """The bounds of the tail comparison decide most draws at α = 0.01 (high temperatures,
    every one): the top-1 classes stay the argmax of the full plausibility vectors, for α on
    both sides of 1."""
    rankings = dermatology().rankings
    for temperature, alpha in [(0.5, 0.01), (1.0, 0.3), (10.0, 0.01), (3.0, 1.0), (2.0, 2.0)]:
        fit = PrIRN(temperature=temperature, alpha=alpha).fit(rankings)
        columns = fit.taxonomy.indices(fit.classes)
        whole = fit.sample_plausibilities(4, seed=9)
        assert np.array_equal(columns[whole.argmax(axis=2)], fit.sample_top1(4, seed=9))
