"""Differential and hostile-input fuzzing of the label models (Dawid–Skene, one-coin, MACE,
shares, IRN/PrIRN).

Oracles: crowd-kit 1.4.2's ``DawidSkene`` and ``OneCoinDawidSkene`` on random small collections
(the same start, the vote shares, and a fixed number of iterations with ``tol`` below any
change: the conventions under which the two agree, see ``tests/test_truth_models.py``); laws
that hold exactly (posteriors are distributions; renaming items, annotators and classes and
shuffling rows relabels the fit; a collection given twice, as new items labelled by the same
annotators, has the same EM trajectory: every M-step's normalised counts are the same); the
Dirichlet law of PrIRN's samples. The regressions at the end each failed on the parent commit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from fuzzytruth import Annotations, Taxonomy
from fuzzytruth.truth.models import DawidSkene, Mace, NonConvergenceWarning, OneCoin, Shares

pytestmark = pytest.mark.filterwarnings("ignore::Warning:crowdkit")


def fit_quietly(model, annotations):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonConvergenceWarning)
        return model.fit(annotations)


def _frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])


# ---------------------------------------------------------------------- random collections
LABEL_SETS = {"str": ["a", "b", "c"], "int": [0, 1, 2]}


@st.composite
def collections(draw, max_items=6, max_annotators=4, min_classes=1):
    """A small collection: (frame, classes). Each (item, annotator) cell is labelled or not;
    degenerate shapes come up on purpose: one item, one annotator, one class used, a class
    nobody uses, an annotator labelling one item, unbalanced classes, ids of mixed types."""
    kind = draw(st.sampled_from(sorted(LABEL_SETS)))
    classes = LABEL_SETS[kind][: draw(st.integers(min_classes, 3))]
    n_items = draw(st.integers(1, max_items))
    n_annotators = draw(st.integers(1, max_annotators))
    rows = []
    for i in range(n_items):
        for a in range(n_annotators):
            if draw(st.booleans()) or a == 0:
                rows.append((i if i % 2 else f"i{i}", f"w{a}",
                             classes[draw(st.integers(0, len(classes) - 1))]))
    extra = draw(st.sampled_from(["none", "unused class", "one-item annotator"]))
    if extra == "unused class":
        classes = [*classes, "zz" if kind == "str" else 9]
    elif extra == "one-item annotator":
        rows.append((rows[0][0], "solo", rows[0][2]))
    return _frame(rows), classes


def crowdkit_fit(model, frame, n_iter):
    aggregation = pytest.importorskip("crowdkit.aggregation")
    peer = {DawidSkene: aggregation.DawidSkene, OneCoin: aggregation.OneCoinDawidSkene}[model]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return peer(n_iter=n_iter, tol=-np.inf).fit(
            frame.rename(columns={"item_id": "task", "annotator_id": "worker"}))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=collections(min_classes=2), model=st.sampled_from([DawidSkene, OneCoin]),
       n_iter=st.integers(1, 6))
@example(drawn=(_frame([("i0", "w0", "a"), (1, "w0", "b"), ("i0", "w1", "b"),
                        (1, "w1", "b")]), ["a", "b", "c"]), model=OneCoin, n_iter=3)
@example(drawn=(_frame([("i0", "w0", 0), (1, "w0", 0), ("i0", "w1", 0)]), [0, 1]),
         model=DawidSkene, n_iter=2)  # one class used
@example(drawn=(_frame([("i0", "w0", "a"), (1, "w0", "b")]), ["a", "b"]),
         model=DawidSkene, n_iter=2)  # one annotator: refused
def test_equal_to_crowdkit_on_random_small_collections(drawn, model, n_iter):
    """crowd-kit's DawidSkene / OneCoinDawidSkene, the same start (vote shares) and the same
    number of iterations: posteriors, priors (and one-coin skills) to 1e-9. Where no item has
    two annotators ours refuses (crowd-kit returns numbers no vote supports)."""
    frame, classes = drawn
    ann = Annotations.from_frame(frame, taxonomy=Taxonomy.flat(classes))
    try:
        fit = fit_quietly(model(max_iter=n_iter, tol=0.0), ann)
    except ValueError as err:
        if "single label" in str(err):  # Dawid-Skene: every annotator gave one label
            assert model is DawidSkene
            event("refused: every annotator of one label")
            return
        assert "needs items labelled by at least two annotators" in str(err)
        event("refused: no item of two annotators")
        return
    ours = fit.posterior_frame()
    assert_distributions(fit.posterior)
    if len(fit.classes) == 1:  # nothing to fit: probability 1, as crowd-kit's
        assert (fit.posterior == 1.0).all()
        return
    event("compared with crowd-kit")
    ck = crowdkit_fit(model, frame, n_iter)
    theirs = ck.probas_.reindex(index=ours.index, columns=ours.columns)
    assert np.abs(ours.to_numpy() - theirs.to_numpy()).max() < 1e-9
    np.testing.assert_allclose(fit.priors, ck.priors_.reindex(ours.columns), rtol=0, atol=1e-9)
    if model is OneCoin:
        np.testing.assert_allclose(fit.skills, ck.skills_.reindex(fit.annotators), rtol=0,
                                   atol=1e-9)


def assert_distributions(posterior):
    assert np.isfinite(posterior).all()
    assert ((posterior >= 0) & (posterior <= 1)).all()
    np.testing.assert_allclose(posterior.sum(axis=1), 1.0, rtol=0, atol=1e-12)


MODELS = [Shares(), DawidSkene(), OneCoin(), Mace(), Mace(method="vb"),
          DawidSkene(uncertainty="posterior", max_iter=3, tol=0.0)]


@settings(max_examples=40, deadline=None)
@given(drawn=collections(), which=st.integers(0, len(MODELS) - 1),
       weights=st.lists(st.sampled_from([0.0, 1e-300, 1e-12, 0.5, 1.0, 3.0, 1e12]),
                        min_size=5, max_size=5))
def test_posteriors_and_worlds_are_distributions_under_any_weights(drawn, which, weights):
    """Every model, annotator weights from 0 to 1e12: the posterior and every world's
    plausibilities are probability distributions (or a ValueError naming the cause: no item
    of two weighted annotators, an item of total weight 0), and no numpy warning."""
    frame, classes = drawn
    names = sorted(frame["annotator_id"].unique())
    ann = Annotations.from_frame(frame, taxonomy=Taxonomy.flat(classes),
                                 annotator_weights=dict(zip(names, weights, strict=False)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonConvergenceWarning)
        warnings.simplefilter("error", RuntimeWarning)
        try:
            fit = MODELS[which].fit(ann)
        except ValueError as err:
            assert ("at least two annotators" in str(err)
                    or "total annotator weight 0" in str(err)
                    or "annotators with a weighted vote here did" in str(err)), err
            return
        assert_distributions(fit.posterior)
        worlds = fit.sample_plausibilities(3, seed=1)
        labels = fit.sample_labels(3, seed=1, encoding="class")
    assert np.isfinite(worlds).all() and (worlds >= 0).all()
    np.testing.assert_allclose(worlds.sum(axis=2), 1.0, rtol=0, atol=1e-9)
    assert ((labels >= 0) & (labels < len(fit.classes))).all()


@settings(max_examples=30, deadline=None)
@given(drawn=collections(max_items=5), model=st.sampled_from([DawidSkene, OneCoin]),
       n_iter=st.integers(0, 8))
def test_a_collection_given_twice_has_the_same_em_trajectory(drawn, model, n_iter):
    """The collection and a copy of it (the same annotators on new items): every M-step sees
    each expected count doubled, the same normalised parameters and priors, so each item and
    its copy get the fit's posterior, iteration by iteration (rounding, and the 1e-10 floor of
    the counts, apart). Not a law of MACE: its smoothing is a fixed count."""
    frame, classes = drawn
    copy = frame.assign(item_id=frame["item_id"].map(lambda i: f"copy-{i}"))
    tax = Taxonomy.flat(classes)
    once = Annotations.from_frame(frame, taxonomy=tax)
    twice = Annotations.from_frame(pd.concat([frame, copy]), taxonomy=tax)
    try:
        fit = fit_quietly(model(max_iter=n_iter, tol=0.0), once)
    except ValueError:
        return
    doubled = fit_quietly(model(max_iter=n_iter, tol=0.0), twice).posterior_frame()
    items = list(fit.posterior_frame().index)
    expected = fit.posterior_frame().to_numpy()
    # A posterior made by the floor is not doubled with the counts: a confusion never seen
    # gets 1e-10 / (its class's count), halved in the copy, and so may the posterior it
    # drives (found: 1.69e-7 once, 8.47e-8 doubled, after 4 iterations). The law is checked
    # where the posterior is above that regime; below it, both sides stay in it.
    floor_made = expected < 1e-6
    for rows in (items, [f"copy-{i}" for i in items]):
        got = doubled.loc[rows].to_numpy()
        np.testing.assert_allclose(got[~floor_made], expected[~floor_made], rtol=0, atol=1e-8)
        assert (got[floor_made] < 1e-6).all()


# ---------------------------------------------------------------------- hostile arguments
HOSTILE = [
    (lambda: DawidSkene(max_iter=-1), "max_iter must be an integer >= 0; got -1"),
    (lambda: OneCoin(tol=float("nan")), "tol must be a finite number >= 0; got nan"),
    (lambda: Mace(prior=-0.5), "prior must be a finite number >= 0; got -0.5"),
    (lambda: Mace(alpha=0), "alpha must be a finite number > 0; got 0"),
    (lambda: Mace(method="EM"), "method must be one of ['em', 'vb']; got 'EM'"),
    (lambda: DawidSkene(uncertainty="bootstrap"), "uncertainty must be one of"),
    (lambda: _toy_fit().sample_labels(2, seed=-1), "seed must be a non-negative int"),
    (lambda: _toy_fit().sample_labels(2, seed=0.5), "seed must be an int, a numpy Generator"),
    (lambda: _toy_fit().sample_labels(True, seed=0), "worlds must be a count"),
    (lambda: _toy_fit().sample_labels(np.array([0.5]), seed=0), "worlds must be a positive"),
    (lambda: _toy_fit().sample_labels(2, seed=0, encoding="x"), "encoding must be one of"),
]


def _toy_fit():
    rows = [("i1", "x", "a"), ("i1", "y", "a"), ("i2", "x", "b"), ("i2", "y", "a")]
    return fit_quietly(DawidSkene(), Annotations.from_frame(
        _frame(rows), taxonomy=Taxonomy.flat(["a", "b"])))


@pytest.mark.parametrize(("call", "message"), HOSTILE)
def test_hostile_arguments_are_refused_naming_the_parameter(call, message):
    with pytest.raises(ValueError) as caught:
        call()
    assert str(caught.value).startswith(message)


# ---------------------------------------------------------------------- regressions: MACE
UNANIMOUS_PLUS_ONE = [(i, who, "abc"[i % 3]) for i in range(6) for who in "xyz"] + [
    (0, "w", "b"), (1, "w", "b"), (2, "w", "c"), (3, "w", "a")]


@pytest.mark.parametrize("settings_", [
    {"method": "vb", "strategy_prior": 1e-300, "max_iter": 0},
    {"method": "vb", "strategy_prior": 1e-300},
])
def test_mace_reads_a_zero_confusion_cell_as_evidence_against_not_for(settings_):
    """Items 1, 2, 4 and 5 are labelled alike by all four annotators: every model must give
    them that label. Under VB with a tiny strategy prior a strategy's cell is exp ψ(1e-300) = 0,
    so θ[c, l] = p ξ[l] = 0 for every class c but the label l, and the E-step's safe log read
    log 0 as log 1: the four votes for c on item 2 counted *for* a and b (posterior 0.4, 0.4,
    0.2 at max_iter=0; to convergence item 4 stayed at 0.976). Floored at 1e-10, as
    Dawid–Skene's cells and MACE's own worlds are, the votes rule the other classes out."""
    ann = Annotations.from_frame(_frame(UNANIMOUS_PLUS_ONE), taxonomy=Taxonomy.flat(list("abc")))
    fit = fit_quietly(Mace(**settings_), ann)
    assert np.all(np.isfinite(fit.posterior))
    np.testing.assert_allclose(fit.posterior.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    most = fit.most_probable()
    assert most.loc[[1, 2, 4, 5]].tolist() == ["b", "c", "b", "c"]
    assert (fit.posterior[[1, 2, 4, 5]].max(axis=1) > 0.999999).all()


def test_mace_smoothing_must_be_positive():
    """With ``smoothing=0`` the first M-step of annotators who all agree normalised a strategy
    of 0 expected spammed votes: 0/0, NaN strategies behind a numpy RuntimeWarning, confusion
    cells of NaN read as log 1, and the posterior of 18 votes that all agree was uniform,
    (1/3, 1/3, 1/3) for every item at max_iter=0. Refused, as the other priors' 0 is."""
    with pytest.raises(ValueError) as caught:
        Mace(smoothing=0.0)
    assert str(caught.value) == "smoothing must be None or a finite number > 0; got 0.0"
    rows = [(i, who, "abc"[i % 3]) for i in range(6) for who in "xyz"]
    ann = Annotations.from_frame(_frame(rows), taxonomy=Taxonomy.flat(list("abc")))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning either
        fit = Mace(smoothing=1e-300, max_iter=0).fit(ann)
    assert fit.most_probable().tolist() == ["abc"[i % 3] for i in range(6)]
    assert (fit.posterior.max(axis=1) > 1 - 1e-9).all()


# ---------------------------------------------------------------------- regressions: PrIRN
SELECTORS = [[[[0], [1, 2]], [[2]]], [[[1]]]]


@pytest.mark.parametrize(("temperature", "alpha"), [(1e-3, 1e-3), (1e-5, 1e-3), (0.01, 1e-3)])
def test_prirn_with_small_concentrations_and_alpha_draws_dirichlet_vertices(temperature, alpha):
    """Every concentration T · IRN + α below about 0.01: each sample is nearly a vertex of the
    simplex, vertex j with probability concentration_j / total (the posterior). With α > 0 the
    sparse sampler compared the Gamma draws as doubles: when every ranked draw of an item was
    below the smallest double (half the draws at a shape of 0.001), the unranked maximum was
    pinned just above 0, the row's total was a subnormal whose inverse is infinite, and the
    row was NaN and inf: 2.9 % of the rows at T = α = 0.001, 5.8 % at T = 1e-5 (and the
    top-1 class went to an unranked class 29 % of the time where 24 % is the law). Such items
    are now drawn whole in logs."""
    from fuzzytruth.io.rankings import Rankings
    from fuzzytruth.truth.models import PrIRN

    fit = PrIRN(temperature=temperature, alpha=alpha).fit(
        Rankings.from_selectors(SELECTORS, classes=["a", "b", "c", "d"]))
    n = 4000
    with np.errstate(invalid="raise", divide="raise"):  # no 0/0
        samples = fit.sample_plausibilities(n, seed=11)
        top = fit.sample_top1(n, seed=11)
    assert np.isfinite(samples).all() and (samples >= 0).all()
    np.testing.assert_allclose(samples.sum(axis=2), 1.0, rtol=0, atol=1e-12)
    columns = fit.taxonomy.indices(fit.classes)
    assert np.array_equal(top, columns[samples.argmax(axis=2)])
    share = (samples.argmax(axis=2)[:, :, None] == np.arange(4)).mean(axis=0)
    p = fit.posterior  # the vertex probabilities at T, α -> 0: the shapes' proportions
    assert np.all(np.abs(share - p) <= 5 * np.sqrt(p * (1 - p) / n) + 0.01)
    # keyed: the same worlds in any blocks
    blocks = [b for _, b in fit.plausibility_blocks(np.arange(5), seed=11, memory_budget=1.0)]
    assert np.array_equal(np.concatenate(blocks), samples[:5])


@pytest.mark.parametrize(("temperature", "alpha"), [(0.02, 1e-3), (1e-3, 1e-3), (1.0, 0.01)])
def test_prirn_worlds_of_an_item_do_not_depend_on_the_other_items(temperature, alpha):
    """Item 0 ranks every class; item 1 leaves three unranked. Item 0's worlds are keyed by
    it and its classes, so fitting it alone or beside item 1 gives it the same worlds. Whether
    an item of small concentrations was drawn whole in logs (its own stream) depended on
    whether *some* item had unranked classes: beside item 1 item 0 took that stream, alone
    the ranked classes' stream, and its plausibilities moved by up to 1 (0 to 1 at a vertex)."""
    from fuzzytruth.io.rankings import Rankings
    from fuzzytruth.truth.models import PrIRN

    classes = ["a", "b", "c", "d"]
    both = Rankings.from_selectors([[[[0], [1], [2, 3]]], [[[1]]]], classes=classes)
    alone = Rankings.from_selectors([[[[0], [1], [2, 3]]]], classes=classes)
    fits = [PrIRN(temperature=temperature, alpha=alpha).fit(r) for r in (both, alone)]
    beside, solo = (fit.sample_plausibilities(200, seed=5)[:, 0] for fit in fits)
    np.testing.assert_allclose(beside, solo, rtol=0, atol=1e-12)
    top_beside, top_solo = (fit.sample_top1(200, seed=5)[:, 0] for fit in fits)
    assert np.array_equal(top_beside, top_solo)


@pytest.mark.parametrize(("setting", "value", "message"), [
    ("alpha", 5e-324, "alpha must be 0 or a finite number >= 1e-300"),
    ("alpha", 1e-310, "alpha must be 0 or a finite number >= 1e-300"),
    ("temperature", 1e-310, "temperature must be a finite number >= 1e-300"),
])
def test_prirn_refuses_subnormal_temperature_and_alpha(setting, value, message):
    """A subnormal α made SciPy's inverse incomplete gamma NaN, the bound of the unranked
    draws NaN, and sample_plausibilities loop for ever (alpha=1e-310, one world); a subnormal
    temperature with α = 0 made every log Gamma draw of an item -inf, and sample_top1 raised
    IndexError (index 4 out of bounds for a size of 4)."""
    from fuzzytruth.truth.models import PrIRN

    with pytest.raises(ValueError) as caught:
        PrIRN(**{setting: value})
    assert str(caught.value).startswith(message)
    assert str(caught.value).endswith(f"; got {value!r}")


@pytest.mark.parametrize(("temperature", "alpha"), [(1e-300, 0.0), (1e-300, 1e-300),
                                                    (1.7e308, 0.0), (1e307, 1e307)])
def test_prirn_at_the_extremes_it_takes_gives_distributions(temperature, alpha):
    from fuzzytruth.io.rankings import Rankings
    from fuzzytruth.truth.models import PrIRN

    fit = PrIRN(temperature=temperature, alpha=alpha).fit(
        Rankings.from_selectors(SELECTORS, classes=["a", "b", "c", "d"]))
    np.testing.assert_allclose(fit.posterior.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    samples = fit.sample_plausibilities(200, seed=3)
    assert np.isfinite(samples).all()
    np.testing.assert_allclose(samples.sum(axis=2), 1.0, rtol=0, atol=1e-12)
    columns = fit.taxonomy.indices(fit.classes)
    assert np.array_equal(fit.sample_top1(200, seed=3), columns[samples.argmax(axis=2)])


def test_prirn_refuses_a_total_concentration_past_the_doubles():
    """T · IRN + α summed over the classes overflowed: a posterior of 0 and NaN, behind
    overflow and invalid-value RuntimeWarnings, at temperature = alpha = 1e308."""
    from fuzzytruth.io.rankings import Rankings
    from fuzzytruth.truth.models import PrIRN

    rankings = Rankings.from_selectors(SELECTORS, classes=["a", "b", "c", "d"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError) as caught:
            PrIRN(temperature=1e308, alpha=1e308).fit(rankings)
    assert str(caught.value) == (
        "temperature + n_classes * alpha must be a finite double (the total concentration of "
        "each case's Dirichlet); got temperature=1e+308, alpha=1e+308 with 4 classes")
