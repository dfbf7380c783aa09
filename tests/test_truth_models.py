"""Truth models fitted on annotations: shares, Dawid–Skene, one-coin, MACE.

Oracles: Membership.from_annotations and the annotator worlds (shares); crowd-kit's hand values
of ``test_dawid_skene_step_by_step`` (tests/aggregation/test_ds_aggregation.py, 2 decimals) and
crowd-kit's own fits on the bundled data (Dawid–Skene, one-coin, MACE); brute-force likelihoods;
a hypothesis law (annotators who all agree give the crisp truth under every model).
"""

from __future__ import annotations

import random
import re
import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps
from hypothesis import example, given, settings
from hypothesis import strategies as st
from thread_splits import one_and_many

from fuzzytruth import Annotations, Membership, Taxonomy
from fuzzytruth.datasets import image_collection, imagenet_real
from fuzzytruth.truth.categorical_worlds import sample_labels
from fuzzytruth.truth.models import (
    DawidSkene,
    Mace,
    MaceFit,
    NonConvergenceWarning,
    OneCoin,
    OneCoinFit,
    Shares,
)
from fuzzytruth.truth.models.dawid_skene import Votes

# crowd-kit calls pandas APIs that pandas 3 deprecates: its warnings are not ours
pytestmark = pytest.mark.filterwarnings("ignore::Warning:crowdkit")


@pytest.fixture
def crowdkit():
    """crowd-kit's aggregators, an oracle: the tests that compare with them are skipped when
    the ``crowd`` extra is not installed (the others run)."""
    return pytest.importorskip("crowdkit.aggregation")

# crowd-kit's toy frame of test_dawid_skene_step_by_step
TOY = [
    ("t1", "w1", "no"), ("t1", "w2", "yes"), ("t1", "w4", "yes"), ("t1", "w5", "no"),
    ("t2", "w1", "yes"), ("t2", "w2", "yes"), ("t2", "w3", "yes"), ("t2", "w4", "no"),
    ("t2", "w5", "no"), ("t3", "w1", "yes"), ("t3", "w2", "no"), ("t3", "w3", "no"),
    ("t3", "w4", "yes"), ("t3", "w5", "no"), ("t4", "w1", "yes"), ("t4", "w2", "yes"),
    ("t4", "w3", "yes"), ("t4", "w4", "yes"), ("t4", "w5", "yes"), ("t5", "w1", "yes"),
    ("t5", "w2", "no"), ("t5", "w3", "no"), ("t5", "w4", "no"), ("t5", "w5", "no"),
]
# crowd-kit's printed values after 0 and 1 EM iterations: probas (no, yes) per task, priors,
# and errors[worker] = [[P(no|no), P(no|yes)], [P(yes|no), P(yes|yes)]] (rows: label said)
HAND = {
    0: {
        "probas": [[0.5, 0.5], [0.4, 0.6], [0.6, 0.4], [0.0, 1.0], [0.8, 0.2]],
        "priors": [0.46, 0.54],
        "errors": {"w1": [[0.22, 0.19], [0.78, 0.81]], "w2": [[0.61, 0.22], [0.39, 0.78]],
                   "w3": [[0.78, 0.27], [0.22, 0.73]], "w4": [[0.52, 0.30], [0.48, 0.70]],
                   "w5": [[1.00, 0.63], [0.00, 0.37]]},
    },
    1: {
        "probas": [[0.35, 0.65], [0.26, 0.74], [0.87, 0.13], [0.00, 1.00], [0.95, 0.05]],
        "priors": [0.49, 0.51],
        "errors": {"w1": [[0.14, 0.25], [0.86, 0.75]], "w2": [[0.75, 0.07], [0.25, 0.93]],
                   "w3": [[0.87, 0.09], [0.13, 0.91]], "w4": [[0.50, 0.31], [0.50, 0.69]],
                   "w5": [[1.00, 0.61], [0.00, 0.39]]},
    },
}


def toy_annotations() -> Annotations:
    df = pd.DataFrame(TOY, columns=["item_id", "annotator_id", "label"])
    return Annotations.from_frame(df, taxonomy=Taxonomy.flat(["no", "yes"]))


def crowd_frame(annotations: Annotations) -> pd.DataFrame:
    df = annotations.to_frame().rename(columns={"item_id": "task", "annotator_id": "worker"})
    return df[["task", "worker", "label"]].astype({"label": str})


def fit_quietly(model, annotations):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonConvergenceWarning)
        return model.fit(annotations)


# ---------------------------------------------------------------------- shares
@pytest.mark.parametrize("loader", [image_collection, lambda: _santini()])
def test_shares_equal_membership_and_annotator_worlds(loader):
    ann = loader().annotations
    fit = Shares().fit(ann)
    reference = Membership.from_annotations(ann)
    assert np.array_equal(fit.membership.matrix, reference.matrix)
    assert np.array_equal(fit.membership.direct, reference.direct)
    ours = fit.sample_labels(200, seed=np.random.default_rng(5))
    today = sample_labels(reference, 200, rng=5)
    assert np.array_equal(ours, today)
    np.testing.assert_allclose(fit.posterior.sum(axis=1), 1.0, atol=1e-12)


def _santini():
    from fuzzytruth.datasets import santini_illustrative

    return santini_illustrative()


def test_worlds_do_not_depend_on_blocks_or_item_order():
    ann = image_collection().annotations
    fit = fit_quietly(DawidSkene(max_iter=30), ann)
    whole = fit.sample_plausibilities(np.arange(6), seed=11)
    tiny = fit.sample_plausibilities(np.arange(6), seed=11, memory_budget=1.0)
    part = fit.sample_plausibilities(np.array([4, 5]), seed=11)
    assert np.array_equal(whole, tiny) and np.array_equal(whole[4:], part)
    labels = fit.sample_labels(np.arange(6), seed=11)
    assert np.array_equal(labels, fit.sample_labels(np.arange(6), seed=11, memory_budget=1.0))
    # reversed item order: each item keeps its draws
    frame = ann.to_frame().iloc[::-1]
    rev = Annotations.from_frame(frame, taxonomy=ann.taxonomy)
    fit_rev = fit_quietly(DawidSkene(max_iter=30), rev)
    pos = fit_rev.items.get_indexer(fit.items)
    np.testing.assert_allclose(fit_rev.posterior[pos], fit.posterior, atol=1e-12)
    assert np.array_equal(fit_rev.sample_labels(np.arange(6), seed=11)[:, pos], labels)


# ---------------------------------------------------------------------- Dawid–Skene oracles
@pytest.mark.parametrize("n_iter", [0, 1])
def test_dawid_skene_reproduces_crowdkit_step_by_step_hand_values(n_iter):
    fit = fit_quietly(DawidSkene(max_iter=n_iter), toy_annotations())
    assert fit.classes == ("no", "yes")
    np.testing.assert_allclose(fit.posterior, HAND[n_iter]["probas"], atol=0.005)
    np.testing.assert_allclose(fit.priors, HAND[n_iter]["priors"], atol=0.005)
    for a, worker in enumerate(fit.annotators):
        said_given_true = fit.errors[a].T  # rows: label said, columns: true class
        np.testing.assert_allclose(said_given_true, HAND[n_iter]["errors"][worker], atol=0.005)


def test_dawid_skene_overlap_case_of_crowdkit():
    # crowd-kit's test_dawid_skene_overlap: 300 workers, 3 tasks, posterior (1/3, 2/3) each
    rows = [(t, w, "yes" if (w - t) % 3 else "no") for w in range(300) for t in range(3)]
    df = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(["no", "yes"]))
    fit = fit_quietly(DawidSkene(max_iter=20), ann)
    np.testing.assert_allclose(fit.posterior, [[1 / 3, 2 / 3]] * 3, atol=0.005)
    np.testing.assert_allclose(fit.priors, [1 / 3, 2 / 3], atol=0.005)


@pytest.mark.parametrize(("dataset", "n_iter"), [
    ("image_collection", 10),
    ("imagenet_real", 3),  # crowd-kit takes 0.3-0.5 s per iteration on ReaL's 925k votes
])
@pytest.mark.parametrize("model", ["dawid-skene", "one-coin"])
def test_equal_to_crowdkit_on_bundled_data(crowdkit, dataset, n_iter, model):
    ann = image_collection().annotations if dataset == "image_collection" else (
        imagenet_real().annotations)
    ours_model, theirs_model = (
        (DawidSkene, crowdkit.DawidSkene) if model == "dawid-skene"
        else (OneCoin, crowdkit.OneCoinDawidSkene)
    )
    fit = fit_quietly(ours_model(max_iter=n_iter, tol=0.0), ann)
    ck = theirs_model(n_iter=n_iter, tol=-np.inf).fit(crowd_frame(ann))
    ours = fit.posterior_frame()
    theirs = ck.probas_.reindex(index=ours.index, columns=[str(c) for c in ours.columns])
    # crowd-kit clips its returned posteriors at 1e-10 (in its ELBO); ours are not clipped
    assert np.abs(ours.to_numpy() - theirs.to_numpy()).max() < 1e-6
    np.testing.assert_allclose(fit.priors, ck.priors_.reindex(theirs.columns), atol=1e-9)
    if model == "dawid-skene":
        errors = ck.errors_.stack().rename_axis(["annotator_id", "label", "true_class"])
        errors = errors.unstack("label").reindex(
            index=pd.MultiIndex.from_product([fit.annotators, list(theirs.columns)]),
            columns=list(theirs.columns)).fillna(0.0)
        assert np.abs(fit.errors_frame().to_numpy() - errors.to_numpy()).max() < 1e-9
    else:
        skills = ck.skills_.reindex(fit.annotators)
        assert np.abs(fit.skills.to_numpy() - skills.to_numpy()).max() < 1e-9


def mace_from_crowdkit_start(crowdkit, frame, method, n_iter):
    """MACE fitted by crowd-kit and by us from crowd-kit's random initial parameters, on
    ``frame`` (item_id, annotator_id, label): ``(our fit, crowd-kit's)``."""
    df = frame.astype({"label": str, "annotator_id": str})
    # crowd-kit aligns its strategy counts by sorted worker and label while it indexes its
    # parameters by first appearance: make the two orders agree
    df = df.sort_values("annotator_id", kind="stable")
    first = df.groupby("label").head(1).sort_values("label")
    df = pd.concat([first, df.drop(first.index)]).reset_index(drop=True)
    for column in ("annotator_id", "label"):  # else the comparison is of misaligned rows
        assert list(pd.unique(df[column])) == sorted(df[column].unique()), column
    labels = sorted(df["label"].unique())
    ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(labels))
    # crowd-kit reads the rows in the order arranged above (Annotations sorts its own rows)
    arranged = df.rename(columns={"item_id": "task", "annotator_id": "worker"})
    ck = crowdkit.MACE(n_restarts=1, n_iter=n_iter, method=method).fit(
        arranged[["task", "worker", "label"]])
    # crowd-kit's initial parameters: scipy uniform(1, 1 + 0.5) draws with random_state=0
    n_w, n_l = ann.n_annotators, len(labels)
    knowing = sps.uniform(1, 1.5).rvs(size=(n_w, 2), random_state=0)
    strategy = sps.uniform(1, 1.5).rvs(size=(n_w, n_l), random_state=0)
    model = Mace(method=method, max_iter=n_iter, tol=0.0)
    with pytest.warns(NonConvergenceWarning):  # tol=0: a fixed number of iterations
        fit = model._iterate(ann, Votes.from_annotations(ann),
                             knowing / knowing.sum(axis=1, keepdims=True),
                             strategy / strategy.sum(axis=1, keepdims=True))
    return fit, ck


def assert_mace_equal(fit, ck):
    theirs = ck.probas_.reindex(index=fit.items, columns=list(fit.classes))
    assert np.abs(fit.posterior - theirs.to_numpy()).max() < 1e-6
    assert np.abs(fit.knowing - ck.spamming_).max() < 1e-9
    assert np.abs(fit.strategy - ck.thetas_).max() < 1e-9


@pytest.mark.parametrize(("dataset", "method", "n_iter"), [
    ("image_collection", "em", 10), ("image_collection", "vb", 10),
    ("imagenet_real", "em", 2),  # crowd-kit takes about a second per iteration on ReaL
])
def test_mace_equal_to_crowdkit_from_its_initialisation(crowdkit, dataset, method, n_iter):
    ann = image_collection().annotations if dataset == "image_collection" else (
        imagenet_real().annotations)
    assert_mace_equal(*mace_from_crowdkit_start(crowdkit, ann.to_frame(), method, n_iter))


# ---------------------------------------------------------------------- laws and diagnostics
def brute_force_posterior(annotations, priors, errors):
    """p(c | i) ∝ π_c Π θ_a[c, l], one item and one class at a time."""
    frame = annotations.to_frame()
    classes = sorted(frame["label"].unique(), key=annotations.taxonomy.index)
    annots = list(annotations.annotators)
    out = []
    for item in annotations.items:
        rows = frame[frame["item_id"] == item]
        lik = np.array([priors[c] * np.prod([
            errors[annots.index(a), c, classes.index(lab)]
            for a, lab in zip(rows["annotator_id"], rows["label"], strict=True)
        ]) for c in range(len(classes))])
        out.append(lik / lik.sum())
    return np.array(out)


def test_dawid_skene_posterior_is_the_brute_force_e_step_and_likelihood_rises():
    ann = toy_annotations()
    fit = DawidSkene().fit(ann)  # the default settings
    assert fit.convergence.converged and fit.convergence.last_change <= 1e-6
    # one more E-step from the fitted parameters leaves the posterior in place (fixed point)
    np.testing.assert_allclose(brute_force_posterior(ann, fit.priors, fit.errors),
                               fit.posterior, atol=1e-5)
    assert np.all(np.diff(fit.log_likelihood) >= -1e-9)
    assert fit.membership.probability("t4", "yes") == pytest.approx(fit.posterior[3, 1])


@pytest.mark.parametrize("model", [DawidSkene, OneCoin, Mace, partial(Mace, method="vb")],
                         ids=["dawid-skene", "one-coin", "mace-em", "mace-vb"])
def test_public_confusion_matrices_give_the_fitted_posterior(model):
    """The fits read per-(annotator, label) tables (``Votes``) and publish dense
    ``errors``; one more E-step from the published matrices, brute force, is the fitted
    posterior (a fixed point within the fit's tol), at the defaults, on the toy and on 40
    image-collection items where no annotator gives every one of the 20 labels."""
    image = image_collection().annotations
    first = image.to_frame()
    first = first[first["item_id"].isin(image.items[:40])]
    sparse = Annotations.from_frame(first[["item_id", "annotator_id", "label"]],
                                    taxonomy=image.taxonomy)
    for ann in (toy_annotations(), sparse):
        fit = fit_quietly(model(), ann)
        if ann is sparse:
            assert not fit.votes.used.all(axis=1).any()  # no annotator gave every label
        np.testing.assert_allclose(brute_force_posterior(ann, fit.priors, fit.errors),
                                   fit.posterior, atol=1e-5)


def test_finds_imagenet_real_rater_145():
    fit = DawidSkene().fit(imagenet_real().annotations)
    assert fit.convergence.converged
    reliability = fit.reliability()
    assert reliability.idxmin() == 145 and reliability.min() < 0.2


def test_non_convergence_warns_with_iterations_and_change():
    with pytest.warns(NonConvergenceWarning, match=r"after 2 iterations .* change"):
        fit = DawidSkene(max_iter=2).fit(image_collection().annotations)
    assert fit.convergence.iterations == 2 and not fit.convergence.converged
    assert np.isfinite(fit.convergence.last_change)


def test_refits_warn_once_with_the_largest_last_change():
    """The population bootstrap's refits: one warning for all the fits that stopped at their
    limit, with how many and the largest last change (the single fit's warning gives its own);
    a fit that converges is not counted."""
    from fuzzytruth.truth.models.choice import Refitter

    ann = image_collection().annotations
    half = Annotations(ann.to_frame().iloc[: len(ann.to_frame()) // 2], ann.taxonomy)
    refit = Refitter(DawidSkene(max_iter=2))
    changes = [refit.truth(data).convergence.last_change for data in (ann, half)]
    assert Refitter("shares").warn_and_name(3) == "shares"
    with pytest.warns(NonConvergenceWarning) as caught:
        assert refit.warn_and_name(3) == "dawid-skene"
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "dawid-skene did not converge (max_iter=2) on 2 of 3 label sets (the observed labels "
        "and each replicate's): the largest last change of an item's posterior was "
        f"{max(changes):.3g} > tol=1e-06; raise max_iter or tol")


def test_degenerate_inputs():
    tax = Taxonomy.flat(["a", "b"])
    single = pd.DataFrame({"item_id": [1, 2, 3], "annotator_id": ["x", "x", "y"],
                           "label": ["a", "b", "a"]})
    for model in (DawidSkene(), OneCoin(), Mace()):
        with pytest.raises(ValueError, match="at least two annotators"):
            model.fit(Annotations.from_frame(single, taxonomy=tax))
    # two annotators on every item, one of weight 0: the message said "2 annotator(s)" and
    # that no item had two, without naming the weights
    paired = pd.DataFrame({"item_id": [1, 1, 2, 2], "annotator_id": ["x", "y"] * 2,
                           "label": ["a", "b", "b", "b"]})
    muted = Annotations.from_frame(paired, taxonomy=tax).with_annotator_weights({"x": 0.0})
    for model in (DawidSkene(), OneCoin(), Mace()):
        with pytest.raises(ValueError, match=r"at least two annotators \(of weight above 0\): "
                                             r"here no item is \(2 items, 2 annotator"):
            model.fit(muted)
    one_class = pd.DataFrame({"item_id": [1, 1, 2], "annotator_id": ["x", "y", "x"],
                              "label": ["a", "a", "a"]})
    for model in (DawidSkene(), OneCoin(), Mace()):
        fit = model.fit(Annotations.from_frame(one_class, taxonomy=tax))
        assert fit.classes == ("a",) and np.array_equal(fit.posterior, np.ones((2, 1)))
        assert fit.convergence.converged and not np.isnan(fit.membership.matrix).any()
    with pytest.raises(ValueError, match="tol must be"):
        DawidSkene(tol=-1)
    with pytest.raises(ValueError, match="uncertainty must be one of"):
        DawidSkene(uncertainty="bootstrap")
    with pytest.raises(ValueError, match="method must be one of"):
        Mace(method="gibbs")


@pytest.mark.parametrize(("model", "setting"), [
    (DawidSkene, "tol"), (DawidSkene, "prior"), (OneCoin, "tol"), (Mace, "alpha"),
    (Mace, "beta"), (Mace, "strategy_prior"), (Mace, "smoothing"),
])
def test_numeric_settings_refuse_bools_and_take_numpy_numbers(model, setting):
    # True is not a tolerance (it stopped EM after one iteration as tol=1): refused, as
    # max_iter refuses it; numpy's numbers are numbers (np.int64(0) was refused with
    # "tol must be a finite number >= 0; got np.int64(0)")
    with pytest.raises(ValueError, match=rf"{setting} must be .*finite number .*; got True"):
        model(**{setting: True})
    for value in (np.int64(1), np.float32(0.5)):
        configured = model(**{setting: value})
        assert getattr(configured, setting) == float(value)
        assert type(getattr(configured, setting)) is float
    assert model(max_iter=np.int64(3)) == model(max_iter=3)


def test_unused_class_and_coarse_labels_close_over_ancestors():
    tax = Taxonomy.from_nested({"all": {"animal": ["cat", "dog"], "thing": ["car", "bus"]}})
    df = pd.DataFrame({
        "item_id": [1, 1, 1, 2, 2, 2, 3, 3, 3],
        "annotator_id": list("abcabcabc"),
        "label": ["cat", "cat", "animal", "car", "car", "car", "dog", "cat", "dog"],
    })
    fit = DawidSkene().fit(Annotations.from_frame(df, taxonomy=tax))
    assert fit.classes == ("animal", "cat", "dog", "car")  # "bus" unused; taxonomy order
    mem = fit.membership
    assert mem.probabilities([1, 2, 3], "bus").tolist() == [0.0, 0.0, 0.0]
    np.testing.assert_allclose(mem.probabilities([1, 2, 3], "all"), 1.0)
    expected_animal = fit.posterior[:, :3].sum(axis=1)
    np.testing.assert_allclose(mem.probabilities([1, 2, 3], "animal"), expected_animal)


def _fresh_annotators(n_items: int = 80, per_item: int = 4, seed: int = 0) -> Annotations:
    """Every item labelled by annotators of its own (each gives one label, so each used one),
    right with probability 0.8, else a uniform other class of four."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n_items)
    rows = []
    for i, t in enumerate(truth):
        for a in range(per_item):
            said = t if rng.random() < 0.8 else (t + rng.integers(1, 4)) % 4
            rows.append((i, f"{i}-{a}", "abcd"[said]))
    df = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    return Annotations.from_frame(df, taxonomy=Taxonomy.flat(list("abcd")))


@pytest.mark.parametrize("collection", ["image", "fresh annotators"])
@pytest.mark.parametrize("model", [DawidSkene, OneCoin, Mace, partial(Mace, method="vb")],
                         ids=["dawid-skene", "one-coin", "mace-em", "mace-vb"])
def test_parameter_worlds_vary_and_average_near_the_posterior(model, collection):
    """The parameter worlds are centred on the fit: each world recomputes the posteriors with
    the likelihood of the fit's E-step. MACE's worlds renormalised each annotator's confusion
    rows over the labels it used, unlike its E-step: with annotators who each gave one label
    every world was uniform over the four classes (mean |difference| 0.12 under EM and 0.35
    under VB on the fresh annotators, whose fit gives its most probable class 0.50 and 0.94 on
    average; 0.0005 and 0.006 now)."""
    ann = image_collection().annotations if collection == "image" else _fresh_annotators()
    if model is DawidSkene and collection != "image":  # refused: see the next test
        with pytest.raises(ValueError):
            model().fit(ann)
        return
    fit = fit_quietly(model(), ann)
    worlds = fit.sample_plausibilities(200, seed=3)
    if collection == "image":
        assert worlds.std(axis=0).max() > 0.01  # the parameters move between worlds
    assert np.abs(worlds.mean(axis=0) - fit.posterior).mean() < 0.02


def test_dawid_skene_refuses_annotators_who_each_gave_one_label():
    """Dawid–Skene normalises an annotator's rows over the labels it used: one who gave a
    single label has θ[c, l] = 1 for every class, and its votes are no evidence. With fresh
    annotators per item every posterior was the class priors (the same row for all 80 items)
    without a word; now refused, naming the cause. One-coin and MACE read such votes."""
    ann = _fresh_annotators()
    with pytest.raises(ValueError, match=r"dawid-skene .* single label .* each of the 320 "
                                         r"annotators .* class priors"):
        DawidSkene().fit(ann)
    for model in (OneCoin(), Mace()):
        assert len(np.unique(fit_quietly(model, ann).posterior.round(6), axis=0)) > 1


def _one_label_annotators() -> Annotations:
    """Items 0-5 labelled by a, b and c (each gives both labels); items 6 and 7 by x (two
    items, label a), y (item 6) and z (item 7): x, y and z each gave one label."""
    rows = [(i, a, "ab"[(i + (a == "c")) % 2]) for i in range(6) for a in "abc"]
    rows += [(6, "x", "a"), (6, "y", "a"), (7, "z", "b"), (7, "x", "a")]
    df = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    return Annotations.from_frame(df, taxonomy=Taxonomy.flat(["a", "b"]))


def test_dawid_skene_warns_of_items_voted_on_only_by_one_label_annotators():
    """Items 6 and 7 are voted on only by annotators x, y and z, who each gave one label: the
    warning names them, and their posterior is the class priors (the oracle: the E-step's
    product of θ[c, l] = 1 leaves the priors); the other items' votes decide."""
    ann = _one_label_annotators()
    with pytest.warns(UserWarning, match=r"2 of 8 items have votes only from such "
                                         r"annotators \(6, 7\)"):
        fit = DawidSkene().fit(ann)
    # the priors kept are the M-step's after the last E-step: equal within the fit's tol
    np.testing.assert_allclose(fit.posterior[6:], np.tile(fit.priors, (2, 1)), atol=1e-6)
    assert np.array_equal(fit.posterior[6], fit.posterior[7])
    assert not np.allclose(fit.posterior[:6], fit.priors)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DawidSkene().fit(image_collection().annotations)


def test_one_coin_warns_of_annotators_who_labelled_one_item():
    """One-coin's accuracy of an annotator who labelled one item comes from that vote and
    goes to 0 or 1 under EM (the oracle: every such skill within 1e-6 of 0 or 1), pushing the
    posteriors of its items to 0 or 1: a warning counts them and names the items. The
    bundled image collection (10 annotators of 300 items each) does not warn."""
    ann = _fresh_annotators()
    with pytest.warns(UserWarning, match=r"one-coin .* 320 of 320 annotators labelled a "
                                         r"single item.* the 80 items they labelled"):
        fit = OneCoin().fit(ann)
    skills = fit.skills.to_numpy()
    assert np.all(np.minimum(skills, 1 - skills) < 1e-6)
    assert (fit.posterior.max(axis=1) > 1 - 1e-6).all()  # certain, where the votes are not
    few = _one_label_annotators()
    with pytest.warns(UserWarning, match=r"2 of 6 annotators .* 2 items they labelled "
                                         r"\(6, 7\)"):
        OneCoin().fit(few)  # y and z; x labelled two items
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        OneCoin().fit(image_collection().annotations)


def test_a_fit_far_from_the_votes_warns():
    """300 annotators who each labelled 10 of 600 items of 30 classes, right with probability
    0.7: Dawid–Skene's confusion matrices (an entry per class and label used, about 25 times
    the votes) let EM raise the likelihood by moving the posteriors away from the votes. The
    oracle is the generating truth: the majority finds it on most items, the fit on far
    fewer, and the fit warns with the share of items where it keeps a most frequent label.
    One-coin and MACE (one or two numbers per annotator) stay with the votes and do not."""
    rng = np.random.default_rng(0)
    n_classes, n_items = 30, 600
    truth = rng.integers(0, n_classes, n_items)
    item = np.concatenate([rng.choice(n_items, 10, replace=False) for _ in range(300)])
    said = np.where(rng.random(len(item)) < 0.7, truth[item],
                    rng.integers(0, n_classes, len(item)))
    classes = [f"c{k:02d}" for k in range(n_classes)]
    df = pd.DataFrame({"item_id": item, "annotator_id": np.repeat(np.arange(300), 10),
                       "label": np.asarray(classes, dtype=object)[said]})
    ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(classes))

    def right(fit) -> float:  # share of items whose most probable class is the truth
        found = np.asarray(fit.classes)[fit.posterior.argmax(axis=1)]
        return float((found == np.asarray(classes)[truth[fit.items.to_numpy(int)]]).mean())

    with pytest.warns(UserWarning, match=r"dawid-skene's most probable class is one of the "
                                         r"annotators' most frequent labels on 4\d% of the 596"):
        fit = DawidSkene().fit(ann)
    assert right(fit) < 0.5 < 0.8 < right(Shares().fit(ann))
    for model in (OneCoin(), Mace()):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert right(model.fit(ann)) > 0.8


def test_parameter_worlds_of_the_point_posterior():
    ann = image_collection().annotations
    point = DawidSkene(uncertainty="posterior").fit(ann)
    assert np.array_equal(point.sample_plausibilities(3, seed=3)[2], point.posterior)
    labels = point.sample_labels(4000, seed=3)
    column = point.taxonomy.indices(point.classes)
    share = (labels == column[point.posterior.argmax(axis=1)][None, :]).mean(axis=0)
    mc_error = np.sqrt(0.25 / 4000)
    assert np.abs(share - point.posterior.max(axis=1)).max() < 5 * mc_error


@settings(max_examples=30, deadline=None)
@given(
    truth=st.lists(st.sampled_from(["a", "b", "c"]), min_size=2, max_size=8),
    n_annotators=st.integers(2, 4),
)
def test_annotators_who_all_agree_give_the_crisp_truth(truth, n_annotators):
    """Shares, Dawid–Skene and one-coin (defaults, parameter worlds included): one-hot
    posterior and the same labels in every world. MACE smooths its counts (EM) or shrinks
    them to its priors (VB), and on few items a spammer whose strategy hits the truth cannot
    be told from a knower, so its parameter worlds may move: for MACE the law is that the
    posterior's most probable class is the truth, with probability above 0.99."""
    rows = [(i, f"r{a}", t) for i, t in enumerate(truth) for a in range(n_annotators)]
    df = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(["a", "b", "c"]))
    crisp = Membership.from_labels(dict(enumerate(truth)), taxonomy=ann.taxonomy)
    expected = np.broadcast_to(ann.taxonomy.indices(truth), (20, len(truth)))
    for model in (Shares(), DawidSkene(), OneCoin()):
        fit = model.fit(ann)
        np.testing.assert_allclose(fit.membership.matrix, crisp.matrix, atol=1e-9)
        assert np.array_equal(fit.sample_labels(20, seed=1), expected)
    for model in (Mace(), Mace(method="vb")):
        fit = model.fit(ann)
        assert fit.most_probable().tolist() == truth
        assert fit.posterior.max(axis=1).min() > 0.99


@pytest.mark.parametrize("model", [DawidSkene, OneCoin, Mace, partial(Mace, method="vb")],
                         ids=["dawid-skene", "one-coin", "mace-em", "mace-vb"])
def test_an_annotator_of_weight_zero_changes_nothing_and_warns_nothing(model):
    """An annotator whose votes all have weight 0: the posterior is the fit without that
    annotator's rows (the oracle), its reliability NaN (nothing estimates it), under every
    label model. Each EM iteration used to divide 0 by 0 in numpy, a stream of
    RuntimeWarnings per fit; MACE used to report the reliability its smoothing or priors
    alone imply (0.525 under EM, 0.262 under VB on this collection)."""
    ann = image_collection().annotations
    first = ann.annotators[0]
    weights = pd.Series(1.0, index=list(ann.annotators))
    weights[first] = 0.0
    frame = ann.to_frame()
    without = Annotations.from_frame(frame[frame["annotator_id"] != first],
                                     taxonomy=ann.taxonomy)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fit = model().fit(ann.with_annotator_weights(weights))
        worlds = fit.sample_plausibilities(5, seed=1)
    oracle = model().fit(without)
    np.testing.assert_allclose(fit.posterior_frame().loc[oracle.posterior_frame().index],
                               oracle.posterior_frame(), atol=1e-9)
    assert np.isnan(fit.reliability()[first])
    assert fit.reliability().drop(first).notna().all()
    assert not np.isnan(worlds).any()
    if isinstance(fit, MaceFit):
        assert np.isnan(fit.spamming[first]) and np.isnan(fit.strategy[0]).all()
        assert fit.spamming.drop(first).notna().all()


# ---------------------------------------------------------------------- vote weights
MODELS = [DawidSkene, OneCoin, Mace, partial(Mace, method="vb")]
MODEL_IDS = ["dawid-skene", "one-coin", "mace-em", "mace-vb"]


@pytest.mark.parametrize("model", MODELS, ids=MODEL_IDS)
def test_vote_weights_past_the_float_range_are_refused(model):
    """Annotator weights of 1e308 overflowed the log-likelihoods: NaN posteriors
    (Dawid–Skene, one-coin) or a uniform one (MACE, which the shares contradict) behind
    RuntimeWarnings. Past MAX_VOTE_WEIGHT they are refused; up to it the fit is finite."""
    df = pd.DataFrame({"item_id": [1, 1, 2, 2, 3, 3], "annotator_id": ["x", "y"] * 3,
                       "label": ["a", "b", "a", "a", "b", "b"]})
    tax = Taxonomy.flat(["a", "b"])
    huge = Annotations.from_frame(df, taxonomy=tax, annotator_weights={"x": 1e308, "y": 1e308})
    with pytest.raises(ValueError, match=r"^annotator_weights must keep the votes' total "
                       r"weight <= 1e\+300 .*; got a total past the largest float"):
        model().fit(huge)
    over = Annotations.from_frame(df, taxonomy=tax, annotator_weights={"x": 1e300})
    with pytest.raises(ValueError, match=r"; got a total 3e\+300: scale the weights down"):
        model().fit(over)
    largest = Annotations.from_frame(df, taxonomy=tax,
                                     annotator_weights={"x": 1e300 / 6, "y": 1e300 / 6})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonConvergenceWarning)
        warnings.simplefilter("error", RuntimeWarning)
        fit = model().fit(largest)
        assert np.isfinite(fit.sample_plausibilities(3, seed=0)).all()
    assert np.isfinite(fit.posterior).all()
    assert fit.most_probable()[[2, 3]].tolist() == ["a", "b"]  # the items both agree on


def test_an_item_of_weight_zero_is_refused_as_by_the_shares():
    """Every model names the item as Membership.from_annotations does (it said "item(s) [2]
    have total vote weight 0")."""
    df = pd.DataFrame({"item_id": [1, 1, 2, 3, 3], "annotator_id": ["x", "y", "z", "x", "y"],
                       "label": ["a", "b", "a", "a", "a"]})
    ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(["a", "b"]),
                                 annotator_weights={"z": 0.0})
    with pytest.raises(ValueError) as shares:
        Membership.from_annotations(ann)
    assert str(shares.value) == "item(s) 2 have total annotator weight 0"
    for model in (Shares(), DawidSkene(), OneCoin(), Mace()):
        with pytest.raises(ValueError) as caught:
            model.fit(ann)
        assert str(caught.value) == str(shares.value)


# ---------------------------------------------------------------------- annotators without votes
@pytest.mark.parametrize("model", MODELS, ids=MODEL_IDS)
def test_an_annotator_without_weighted_votes_is_nan_with_one_class_used_too(model):
    """One class used and annotator z of weight 0: every parameter of z is NaN (nothing
    estimates it), as with several classes, and every accessor says so. One-coin used to
    report z's skill NaN and its reliability 1 (its matrix [[1]]), Dawid–Skene and MACE a
    reliability of 1 and MACE a spamming probability of 0, read as if measured."""
    df = pd.DataFrame({"item_id": [1, 1, 2, 2], "annotator_id": ["x", "y", "x", "z"],
                       "label": ["a"] * 4})
    ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(["a", "b"]),
                                 annotator_weights={"z": 0.0})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = model().fit(ann)
        worlds = fit.sample_plausibilities(3, seed=0)
    assert fit.classes == ("a",) and np.array_equal(fit.posterior, np.ones((2, 1)))
    assert np.array_equal(worlds, np.ones((3, 2, 1)))
    assert not np.isnan(fit.membership.matrix).any()
    expected = pd.Series([1.0, 1.0, np.nan], index=fit.annotators)
    pd.testing.assert_series_equal(fit.reliability(), expected, check_names=False)
    pd.testing.assert_series_equal(fit.errors_frame()["a"].droplevel("true_class"), expected,
                                   check_names=False)
    if isinstance(fit, OneCoinFit):
        pd.testing.assert_series_equal(fit.skills, expected, check_names=False)
    if isinstance(fit, MaceFit):
        pd.testing.assert_series_equal(fit.spamming, expected * 0.0, check_names=False)
        assert np.isnan(fit.strategy[2]).all() and np.isnan(fit.knowing[2]).all()
        assert np.array_equal(fit.strategy[:2], np.ones((2, 1)))


@st.composite
def label_frames(draw, labels=("a", "b", "c"), max_items=7):
    """A long table of 2-4 annotators and up to ``max_items`` items, at most one label per
    (item, annotator), with item 0 labelled by annotators 0 and 1 (the models need an item
    labelled twice), and a weight per annotator among 0, 0.5, 1, 3."""
    n_items, n_annot = draw(st.integers(1, max_items)), draw(st.integers(2, 4))
    cells = draw(st.lists(
        st.tuples(st.integers(0, n_items - 1), st.integers(0, n_annot - 1),
                  st.sampled_from(labels)),
        max_size=25, unique_by=lambda cell: cell[:2]))
    cells = [c for c in cells if c[:2] not in {(0, 0), (0, 1)}]
    cells += [(0, 0, draw(st.sampled_from(labels))), (0, 1, draw(st.sampled_from(labels)))]
    weights = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n_annot,
                            max_size=n_annot))
    return pd.DataFrame(cells, columns=["item_id", "annotator_id", "label"]), weights


@settings(max_examples=60, deadline=None)
@given(drawn=label_frames(), which=st.sampled_from(range(len(MODELS))))
def test_nan_parameters_exactly_for_annotators_without_weighted_votes(drawn, which):
    """The law of every label model, one class used or several: an annotator's reliability
    (and one-coin's skill, MACE's spamming probability) is NaN exactly when none of its votes
    has a positive weight; the posterior and the worlds' plausibilities are finite rows summing
    to 1; no RuntimeWarning."""
    df, weights = drawn
    ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(["a", "b", "c", "d"]),
                                 annotator_weights=dict(enumerate(weights)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonConvergenceWarning)
        warnings.simplefilter("error", RuntimeWarning)
        try:
            fit = MODELS[which]().fit(ann)
        except ValueError as err:  # every vote of an item of weight 0, no item twice, or
            # (Dawid-Skene) every annotator gave one label
            assert re.search("total annotator weight 0|at least two annotators|each of the .* "
                             "annotators with a weighted vote here did", str(err))
            return
        worlds = fit.sample_plausibilities(3, seed=1)
    for rows in (fit.posterior, worlds):
        assert np.isfinite(rows).all()
        np.testing.assert_allclose(rows.sum(axis=-1), 1.0, atol=1e-12)
    silent = pd.Series([weights[a] == 0 for a in fit.annotators], index=fit.annotators)
    pd.testing.assert_series_equal(fit.reliability().isna(), silent, check_names=False)
    if isinstance(fit, OneCoinFit):
        pd.testing.assert_series_equal(fit.skills.isna(), silent, check_names=False)
    if isinstance(fit, MaceFit):
        pd.testing.assert_series_equal(fit.spamming.isna(), silent, check_names=False)


# ---------------------------------------------------------------------- settings
@pytest.mark.parametrize("model", MODELS, ids=MODEL_IDS)
def test_max_iter_zero_returns_the_initialisation_without_a_warning(model):
    """``max_iter=0``, as each model documents it: Dawid–Skene and one-coin return the shares
    (crowd-kit's state after 0 iterations, the hand values above) and no log-likelihood;
    MACE the E-step under its initial parameters (crowd-kit's MACE with ``n_iter=0``: one
    log-likelihood). Every model: 0 iterations, last change inf, not converged, no warning."""
    ann = toy_annotations()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = model(max_iter=0).fit(ann)
    assert fit.convergence.iterations == 0 and not fit.convergence.converged
    assert fit.convergence.last_change == np.inf
    if isinstance(fit, MaceFit):
        np.testing.assert_allclose(brute_force_posterior(ann, fit.priors, fit.errors),
                                   fit.posterior, atol=1e-12)
        assert len(fit.log_likelihood) == 1
    else:
        np.testing.assert_allclose(fit.posterior, HAND[0]["probas"], atol=1e-12)
        assert fit.log_likelihood == ()


@pytest.mark.parametrize("model", MODELS, ids=MODEL_IDS)
@pytest.mark.parametrize(("setting", "value", "rule"), [
    ("max_iter", -1, "an integer >= 0"), ("max_iter", 2.0, "an integer >= 0"),
    ("max_iter", float("nan"), "an integer >= 0"), ("max_iter", True, "an integer >= 0"),
    ("max_iter", np.True_, "an integer >= 0"), ("max_iter", "10", "an integer >= 0"),
    ("tol", -1e-6, "a finite number >= 0"), ("tol", float("nan"), "a finite number >= 0"),
    ("tol", float("inf"), "a finite number >= 0"), ("tol", True, "a finite number >= 0"),
    ("tol", "1e-6", "a finite number >= 0"),
])
def test_max_iter_and_tol_refused_with_one_message_in_every_model(model, setting, value,
                                                                  rule):
    with pytest.raises(ValueError) as caught:
        model(**{setting: value})
    assert str(caught.value) == f"{setting} must be {rule}; got {value!r}"


# ---------------------------------------------------------------------- hostile but legal
def _hostile_base() -> pd.DataFrame:
    """12 items of classes a/b/c, 4 annotators right with probability 0.7 (fixed seed)."""
    rng = np.random.default_rng(0)
    rows = []
    for i, truth in enumerate(rng.choice(list("abc"), 12)):
        for a in range(4):
            label = truth if rng.random() < 0.7 else rng.choice(list("abc"))
            rows.append((f"i{i}", f"w{a}", str(label)))
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])


def _rows(*rows: tuple) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])


def _hostile_case(case: str) -> tuple[pd.DataFrame, list]:
    """A hostile-but-legal table and its taxonomy's nodes."""
    df, classes = _hostile_base(), list("abc")
    if case == "annotator labelling one item":
        df = pd.concat([df, _rows(("i0", "wz", "b"))])
    elif case == "item with one label":
        df = pd.concat([df, _rows(("solo", "w1", "c"))])
    elif case == "class never used":
        classes = list("abcd")
    elif case == "all annotators agree":
        df = _rows(*[(f"i{i}", f"w{a}", "abc"[i % 3]) for i in range(6) for a in range(3)])
    elif case == "int labels":
        df, classes = df.assign(label=df["label"].map({"a": 0, "b": 1, "c": 2})), [0, 1, 2]
    elif case == "int ids":
        df = df.assign(item_id=df["item_id"].str[1:].astype(int),
                       annotator_id=df["annotator_id"].str[1:].astype(int))
    elif case == "int and str item ids":
        df = df.assign(item_id=[int(i[1:]) if int(i[1:]) % 2 else i for i in df["item_id"]])
    elif case == "annotator alone on its items":
        df = pd.concat([df, _rows(("k1", "wy", "a"), ("k2", "wy", "b"))])
    elif case == "two items":
        df = _rows((1, "x", "a"), (1, "y", "b"), (2, "x", "b"), (2, "y", "b"))
    return df.reset_index(drop=True), classes


HOSTILE = ["annotator labelling one item", "item with one label", "class never used",
           "all annotators agree", "int labels", "int ids", "int and str item ids",
           "annotator alone on its items", "two items"]


@pytest.mark.parametrize("case", HOSTILE)
@pytest.mark.parametrize("model", ["dawid-skene", "one-coin"])
def test_equal_to_crowdkit_on_hostile_inputs(crowdkit, case, model):
    """Same iterations from the same start (10, tol below any change): crowd-kit's
    DawidSkene / OneCoinDawidSkene are the oracle. A class nobody used is in neither's
    posterior (ours gives it probability 0 in the membership); ids and labels keep their
    types in both."""
    df, classes = _hostile_case(case)
    ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(classes))
    ours, theirs = ((DawidSkene, crowdkit.DawidSkene) if model == "dawid-skene"
                    else (OneCoin, crowdkit.OneCoinDawidSkene))
    fit = fit_quietly(ours(max_iter=10, tol=0.0), ann)
    ck = theirs(n_iter=10, tol=-np.inf).fit(
        df.rename(columns={"item_id": "task", "annotator_id": "worker"}))
    frame = fit.posterior_frame()
    assert sorted(map(repr, ck.probas_.columns)) == sorted(map(repr, frame.columns))
    assert sorted(map(repr, ck.probas_.index)) == sorted(map(repr, frame.index))
    theirs_frame = ck.probas_.reindex(index=frame.index, columns=frame.columns)
    # crowd-kit clips its returned posteriors at 1e-10 (in its ELBO); ours are not clipped
    assert np.abs(frame.to_numpy() - theirs_frame.to_numpy()).max() < 1e-9
    np.testing.assert_allclose(fit.priors, ck.priors_.reindex(frame.columns), atol=1e-9)
    if model == "one-coin":
        assert np.abs(fit.skills - ck.skills_.reindex(fit.annotators)).max() < 1e-9
    else:
        errors = ck.errors_.stack().rename_axis(["annotator_id", "label", "true_class"])
        errors = errors.unstack("label").reindex(
            index=pd.MultiIndex.from_product([fit.annotators, list(frame.columns)]),
            columns=list(frame.columns)).fillna(0.0)
        assert np.abs(fit.errors_frame().to_numpy() - errors.to_numpy()).max() < 1e-9
    if case == "class never used":
        assert fit.classes == ("a", "b", "c")
        assert not fit.membership.probabilities(list(fit.items), "d").any()


@pytest.mark.parametrize("case", [c for c in HOSTILE if c != "int labels"])
@pytest.mark.parametrize("method", ["em", "vb"])
def test_mace_equal_to_crowdkit_on_hostile_inputs(crowdkit, case, method):
    """From crowd-kit's initial parameters (:func:`mace_from_crowdkit_start`, which casts
    labels and annotator ids to str for crowd-kit's alignment: the int-label case is the
    str case there)."""
    assert_mace_equal(*mace_from_crowdkit_start(crowdkit, _hostile_case(case)[0], method, 10))


def test_duplicate_rows_one_vote_here_two_in_crowdkit(crowdkit):
    """An (item, annotator) pair given twice: refused by default; kept once with
    ``duplicates="first"`` (then equal to crowd-kit on the table without the repeat), while
    crowd-kit, which has no vote weights, counts the repeated row as a second vote (the
    documented difference: Dawid–Skene's "vote weights")."""
    df = _hostile_base()
    doubled = pd.concat([df, df.iloc[[0, 5]]], ignore_index=True)
    tax = Taxonomy.flat(list("abc"))
    with pytest.raises(ValueError, match="labelled item 'i0' more than once"):
        Annotations.from_frame(doubled, taxonomy=tax)
    fit = fit_quietly(DawidSkene(max_iter=10, tol=0.0),
                      Annotations.from_frame(doubled, taxonomy=tax, duplicates="first"))
    ck_frame = doubled.rename(columns={"item_id": "task", "annotator_id": "worker"})
    once = crowdkit.DawidSkene(n_iter=10, tol=-np.inf).fit(ck_frame.iloc[: len(df)])
    twice = crowdkit.DawidSkene(n_iter=10, tol=-np.inf).fit(ck_frame)
    frame = fit.posterior_frame()
    assert np.abs(frame - once.probas_.reindex_like(frame)).to_numpy().max() < 1e-9
    assert np.abs(frame - twice.probas_.reindex_like(frame)).to_numpy().max() > 1e-3


@settings(max_examples=40, deadline=None)
@given(drawn=label_frames(max_items=6), which=st.sampled_from(range(len(MODELS))),
       names=st.permutations([2, 0, "1"]), order=st.randoms(use_true_random=False),
       n_iter=st.integers(0, 15))
@example(  # a flat ridge: one-coin ends at another optimum of the same height (found by a run)
    drawn=(pd.DataFrame({"item_id": [0, 0, 1, 1, 1, 1, 0, 0],
                         "annotator_id": [2, 3, 0, 1, 2, 3, 0, 1],
                         "label": list("caacbabc")}), [0.0] * 4),
    which=1, names=[2, 0, "1"], order=random.Random(0), n_iter=0,
)
def test_relabelled_copy_gives_the_relabelled_fit(drawn, which, names, order, n_iter):
    """Classes renamed (to ints and a str, in another order), items and annotators renamed,
    rows shuffled: the fit is the same posterior, relabelled, to rounding (a fixed number of
    iterations), and to within the stopping tolerance at the defaults (EM may stop one
    iteration apart)."""
    df, _ = drawn
    rename = dict(zip("abc", names, strict=True))
    items = list(pd.unique(df["item_id"]))
    new_items = [f"x{i}" for i in items]
    order.shuffle(new_items)
    item_map = dict(zip(items, new_items, strict=True))
    rows = list(range(len(df)))
    order.shuffle(rows)
    copy = df.iloc[rows].assign(label=lambda d: d["label"].map(rename),
                                item_id=lambda d: d["item_id"].map(item_map),
                                annotator_id=lambda d: "z" + (9 - d["annotator_id"]).astype(str))
    ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(list("abc")))
    ann_copy = Annotations.from_frame(copy, taxonomy=Taxonomy.flat(names))
    for settings_, atol in (({"max_iter": n_iter, "tol": 0.0}, 1e-9), ({}, 1e-5)):
        try:
            fit = fit_quietly(MODELS[which](**settings_), ann)
        except ValueError as err:  # Dawid-Skene, every annotator of one label: so the copy
            assert "single label" in str(err)
            with pytest.raises(ValueError):
                fit_quietly(MODELS[which](**settings_), ann_copy)
            return
        fit_copy = fit_quietly(MODELS[which](**settings_), ann_copy)
        expected = fit.posterior_frame().rename(index=item_map, columns=rename)
        got = fit_copy.posterior_frame().reindex(index=expected.index,
                                                 columns=expected.columns)
        if settings_ or np.allclose(got.to_numpy(), expected.to_numpy(), rtol=0, atol=atol):
            np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=0, atol=atol)
            continue
        # To convergence, EM can cross a flat ridge of the likelihood, where a sum taken over
        # the annotators in another order (1.8e-15 apart at iteration 3) sends it to another
        # optimum of the same height: one-coin on item 0 labelled b, c, c, a and item 1 a, c,
        # b, a by annotators 0-3 ends with both items c, or with the annotators renamed both
        # a, at log-likelihoods -4.8520311 and -4.8520303. The data do not tell the two
        # apart; a relabelling that changed the model would change the height too.
        heights = fit.log_likelihood[-1], fit_copy.log_likelihood[-1]
        assert heights[1] == pytest.approx(heights[0], rel=1e-5, abs=1e-5), heights


def _inverse_cdf(u: np.ndarray, probabilities: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The definition of a categorical draw, in NumPy: the first column, in ``order``, whose
    cumulative probability exceeds ``u``, the last column with a positive probability
    absorbing rounding (``u``: ``(n_worlds, n_units)``; ``probabilities``: ``(n_worlds,
    n_units, n_columns)``); a position in ``order``."""
    p = probabilities[..., order]
    cum = np.cumsum(p, axis=-1)
    last = p.shape[-1] - 1 - np.argmax((p > 0)[..., ::-1], axis=-1)
    cum[np.arange(p.shape[-1]) >= last[..., None]] = np.inf
    return (u[..., None] >= cum).sum(axis=-1)


@settings(max_examples=60, deadline=None)
@given(n_units=st.integers(1, 20), n_columns=st.integers(1, 6), n_worlds=st.integers(1, 5),
       seed=st.integers(0, 2**32 - 1))
def test_label_draws_from_a_table_per_world_are_the_inverse_cdf(n_units, n_columns, n_worlds,
                                                                 seed):
    """A label model's plausibility worlds draw each world's labels from that world's own
    table (categorical_draws with a (worlds, units, columns) table, one compiled pass): the
    inverse-CDF draw of the keyed uniform, columns walked in the given order, zeros never
    drawn, against its definition written with NumPy."""
    from fuzzytruth._random import categorical_draws, uniforms, unit_keys

    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(n_columns), size=(n_worlds, n_units))
    p *= rng.random(p.shape) < 0.7  # zeros, some rows all but one
    p[..., rng.integers(n_columns)] += 1e-3
    p /= p.sum(axis=-1, keepdims=True)
    order = rng.permutation(n_columns)
    keys = unit_keys(np.array([f"i{j}" for j in range(n_units)], dtype=object))
    worlds = np.sort(rng.choice(50, n_worlds, replace=False))
    drawn = categorical_draws(3, 4, keys, p, worlds, order=order).T
    np.testing.assert_array_equal(drawn, _inverse_cdf(uniforms(3, 4, keys, worlds), p, order))
    assert (np.take_along_axis(p[..., order], drawn[..., None], axis=-1) > 0).all()
    labels = np.arange(100, 100 + n_columns, dtype=np.int16)
    np.testing.assert_array_equal(
        categorical_draws(3, 4, keys, p, worlds, order=order, values=labels[order]).T,
        labels[order][drawn])
    # the pass reads table w for world w: a count that differs is refused, not read past
    with pytest.raises(ValueError, match=rf"one table per world; got {n_worlds} table\(s\) "
                                         rf"for {n_worlds + 1} world\(s\)"):
        categorical_draws(3, 4, keys, p, np.arange(n_worlds + 1), order=order)
    with pytest.raises(ValueError, match="holds probabilities; give order"):
        categorical_draws(3, 4, keys, np.cumsum(p, axis=-1), worlds)


@pytest.mark.parametrize("threads", ["2", "3"])
def test_label_draws_from_a_table_per_world_split_over_threads(monkeypatch, threads):
    """Split over threads by units when large: the bits of one thread."""
    from fuzzytruth._random import categorical_draws

    rng = np.random.default_rng(2)
    p = rng.dirichlet(np.ones(3), size=(4, 300_000))
    keys = np.arange(300_000, dtype=np.uint64)
    one_and_many(monkeypatch, threads, lambda: (
        categorical_draws(5, 6, keys, p, np.arange(4), order=np.array([2, 0, 1])),), 1)
