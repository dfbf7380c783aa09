"""Classifier measures against their peers: scikit-learn with one-hot truth, the hand values of
Stutz et al.'s uncertain_ground_truth tests, Kurniawan et al.'s train-eval-hlv tests, the LeWiDi
2025 official functions on their published data, and scipy's distances."""

import json
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon
from scipy.stats import pearsonr
from scipy.stats import wasserstein_distance as scipy_wasserstein
from sklearn.metrics import accuracy_score, brier_score_loss, log_loss, top_k_accuracy_score

from fuzzytruth import Membership, Qrels, Taxonomy, evaluate
from fuzzytruth.classify import Predictions, rank_k_frequencies
from fuzzytruth.classify.ranking import CLASS_TIES, candidates
from fuzzytruth.metrics.classification import (
    average_overlap,
    js_divergence,
    lewidi_average_md,
    lewidi_error_rate,
    lewidi_mean_absolute_distance,
    partial_average_overlap,
    soft_micro_f1,
)


def one_hot_case(n=300, k=6, seed=0, ties=False, dtype=np.float64):
    rng = np.random.default_rng(seed)
    classes = [f"c{i}" for i in range(k)]
    y = rng.integers(0, k, n)
    p = rng.dirichlet(np.ones(k), n)
    if ties:  # quantised probabilities: many ties, at every rank
        p = np.round(p * 4) + 1
        p /= p.sum(axis=1, keepdims=True)
    items = [f"i{i:04d}" for i in range(n)]
    truth = Membership.from_labels(dict(zip(items, np.asarray(classes)[y], strict=True)),
                                   taxonomy=Taxonomy.flat(classes))
    pred = Predictions(p.astype(dtype), items=items, classes=classes, name="net")
    return pred, truth, y, p.astype(dtype)


def values(pred, truth, measures, **kw):
    ev = evaluate(pred, truth, measures, rng=0, **kw)
    return dict(zip(ev.aggregate()["measure"], ev.aggregate()["value"], strict=True))


# ---------------------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize("ties", [False, True])
def test_one_hot_truth_gives_scikit_learns_values_with_the_defaults(ties):
    pred, truth, y, p = one_hot_case(ties=ties)
    got = values(pred, truth, ["Acc", "top2", "top3", "top5", "CE", "Brier"])
    labels = list(range(p.shape[1]))
    assert got["Acc"] == top_k_accuracy_score(y, p, k=1, labels=labels)
    for k in (2, 3, 5):
        assert got[f"Acc@{k}"] == top_k_accuracy_score(y, p, k=k, labels=labels)
    assert got["CE"] == pytest.approx(log_loss(y, p, labels=labels), rel=1e-14, abs=0)
    assert got["Brier"] == pytest.approx(brier_score_loss(y, p, labels=labels), rel=1e-14,
                                         abs=0)
    if not ties:  # accuracy_score on numpy's argmax: the same as top-1 without ties
        assert got["Acc"] == accuracy_score(y, p.argmax(axis=1))


def test_argmax_accuracy_is_the_first_tie_rule():
    pred, truth, y, p = one_hot_case(ties=True)
    got = values(pred, truth, ["Acc(ties=first)", "Acc"])
    assert got["Acc(ties=first)"] == accuracy_score(y, p.argmax(axis=1))
    assert got["Acc(ties=first)"] != got["Acc"]  # the data have top-1 ties, and they matter


def test_scikit_learns_tie_order_is_the_last_column_first():
    """The experiment behind the default: four equal scores, which class is scikit-learn's
    top 1, 2, 3?"""
    scores = np.full((1, 4), 0.25)
    hits = {y: [top_k_accuracy_score([y], scores, k=k, labels=[0, 1, 2, 3]) for k in (1, 2, 3)]
            for y in range(4)}
    assert hits == {0: [0, 0, 0], 1: [0, 0, 1], 2: [0, 1, 1], 3: [1, 1, 1]}
    ranked = candidates(scores, 3, "last").columns.tolist()
    assert ranked == [[3, 2, 1]]


def test_log_loss_clips_zero_probabilities_as_scikit_learn():
    classes = ["a", "b", "c"]
    p = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.2, 0.8, 0.0]])
    y = [1, 1, 2]
    items = ["x", "y", "z"]
    truth = Membership.from_labels(dict(zip(items, np.asarray(classes)[y], strict=True)),
                                   taxonomy=Taxonomy.flat(classes))
    got = values(Predictions(p, items=items, classes=classes), truth, ["CE"])
    assert got["CE"] == pytest.approx(log_loss(y, p, labels=[0, 1, 2]), rel=1e-14)
    assert got["CE"] == pytest.approx((-math.log(np.finfo(float).eps) - math.log(0.5)
                                       - math.log(np.finfo(float).eps)) / 3, rel=1e-14)


def test_float32_probabilities_clip_at_their_own_epsilon():
    pred, truth, y, p = one_hot_case(n=50, dtype=np.float32)
    p = p.copy()
    p[0] = 0
    p[0, (y[0] + 1) % p.shape[1]] = 1  # the true class gets 0
    pred = Predictions(p, items=list(pred.items), classes=pred.classes)
    ce = values(pred, truth, ["CE"])["CE"]
    expected = log_loss(y, p.astype(np.float64), labels=list(range(p.shape[1])))
    first = -math.log(np.finfo(np.float32).eps)  # sklearn would clip float32 at its own eps
    assert ce == pytest.approx(expected + (first + math.log(np.finfo(float).eps)) / len(y),
                               rel=1e-6)


def test_binary_brier_is_halved_as_scikit_learn():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 40)
    p1 = rng.random(40)
    p = np.column_stack([1 - p1, p1])
    items = [str(i) for i in range(40)]
    truth = Membership.from_labels(dict(zip(items, np.asarray(["n", "y"])[y], strict=True)),
                                   taxonomy=Taxonomy.flat(["n", "y"]))
    got = values(Predictions(p, items=items, classes=["n", "y"]), truth,
                 ["Brier", "Brier(half=no)", "Acc"])
    assert got["Brier"] == pytest.approx(brier_score_loss(y, p1), rel=1e-14)
    assert got["Brier(half=no)"] == pytest.approx(2 * brier_score_loss(y, p1), rel=1e-14)


# ---------------------------------------------------------------------------- Stutz et al.
# google-deepmind/uncertain_ground_truth @ 98349d8, classification_metrics_test.py
def test_stutz_aggregated_topk_accuracy_hand_values():
    logits = np.array([[5, 4, 3, 2, 1], [0, 0.5, 0.1, 0.3, 0.2], [1, -2, -0.1, -1, -3],
                       [0.5, 0.9, -0.1, -1, 0]])
    # the test's "distribution" sums to 1.05 (its implementation does not normalise); a truth
    # here is a distribution, so the hand values are compared after dividing by 1.05
    plaus = np.repeat(np.array([[0.1, 0.2, 0.05, 0.4, 0.3]]), 4, axis=0)
    classes = list("abcde")
    items = ["0", "1", "2", "3"]
    truth = Membership.from_probabilities(pd.DataFrame(plaus / 1.05, index=items,
                                                       columns=classes))
    ev = evaluate(Predictions(logits, items=items, classes=classes), truth,
                  ["Acc(target=distribution)@4", "Acc@4"], rng=0)
    expected = np.array([0.75, 0.95, 0.75, 0.65]) / 1.05
    for measure in ev.measures:  # the expectation and the exact law's mean agree
        assert ev.query_means(measure)[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("logits", "k", "expected"), [
    ([[5, 3, 4, 4.5, 2], [-4, 1, 3, -1, -0.5]], 3, [[1, 0, 1, 1, 0], [0, 1, 1, 0, 1]]),
    ([[5, 3, 4, 4, 2], [-4, -0.5, 3, -1, -0.5]], 3, [[1, 0, 1, 1, 0], [0, 1, 1, 0, 1]]),
    ([[5, 3, 4, 4, 2], [-4, -0.5, 3, -1, -0.5]], 2, [[1, 0, 1, 0, 0], [0, 1, 1, 0, 0]]),
])
def test_stutz_topk_sets_are_the_first_tie_rule(logits, k, expected):
    c = candidates(np.array(logits, dtype=float), k, "first")
    sets = np.zeros((2, 5), dtype=int)
    for row, cols in enumerate(c.columns):
        sets[row, cols[c.lo[row] < k]] = 1
    assert sets.tolist() == expected


def test_stutz_aggregated_coverage_hand_values():
    """aggregated_coverage: the plausibility mass of a prediction set; with the set as a
    classifier's top-|set| this is Acc(target=distribution)@|set|."""
    plaus = np.array([0.1, 0.2, 0.05, 0.4, 0.3]) / 1.05  # the test's sums to 1.05
    sets = np.array([[1, 1, 1, 0, 0], [0, 1, 0, 1, 0], [1, 0, 1, 0, 0], [0, 0, 0, 1, 0]])
    # the test's third set reads [0.5, -1, 1, 0, 0] > 0
    expected = np.array([0.35, 0.6, 0.15, 0.4]) / 1.05
    classes = list("abcde")
    for row, want in zip(sets, expected, strict=True):
        truth = Membership.from_probabilities(pd.DataFrame([plaus], index=["x"],
                                                           columns=classes))
        pred = Predictions(row[None].astype(float), items=["x"], classes=classes)
        k = int(row.sum())
        got = evaluate(pred, truth, f"Acc(target=distribution)@{k}", n_worlds=0)
        assert got.query_means(got.measures[0])[0, 0] == pytest.approx(want, abs=1e-12)


# ranking_metrics_test.py
def test_stutz_average_overlap_hand_values():
    predicted = np.array([[2, 0, 1, 4, 3]] * 3 + [[3, 4, 1, 0, 2]] * 3)
    rankings = np.array([[0, 1, 2, 4, 3], [1, 0, 2, 4, 3], [1, 0, 2, 4, 3], [4, 1, 3, 0, 2],
                         [3, 4, 1, 0, 2], [3, 4, 1, 0, 2]])
    depth = [3, 4, 5, 1, 2, 0]
    expected = [0.5, 0.625, 0.7, 0.0, 1.0, 0.0]
    got = [average_overlap(p, r, d) for p, r, d in zip(predicted, rankings, depth, strict=True)]
    assert got == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize(("normalize", "expected"), [
    (False, [0.9375, 0.5, 0.5, 0.6666667, 0.4444445, 0.625, 0.0, 0.0, 0.0]),
    (True, [1.0, 0.5773503, 0.5222330, 0.8164966, 0.4776652, 0.625, 0.0, 0.0, 0.0]),
])
def test_stutz_partial_average_overlap_hand_values(normalize, expected):
    predicted = [[0, 1, 2, 3]] * 4 + [[2, 0, 1, 3]] * 5
    predicted_groups = [[0, 1, 1, -1], [0, 1, 2, -1], [0, 1, 2, -1], [0, 1, 2, -1],
                        [0, 1, 1, 2], [0, 1, 2, 3], [0, 1, 1, 2], [-1, -1, -1, -1], [0, 1, 1, 2]]
    rankings = [[0, 1, 2, 3]] + [[2, 0, 1, 3]] * 3 + [[0, 1, 2, 3]] * 5
    groups = [[0, 1, 1, -1], [0, 0, 1, 2], [0, 1, 1, 2], [0, 0, 0, 1], [0, 1, -1, -1],
              [0, 1, 2, 3], [0, 1, -1, -1], [0, 1, -1, -1], [-1, -1, -1, -1]]
    depth = [4, 2, 3, 3, 3, 4, 0, 3, 3]
    got = [partial_average_overlap(*map(np.array, (a, b, c, d)), m, normalize=normalize)
           for a, b, c, d, m in zip(predicted, predicted_groups, rankings, groups, depth,
                                    strict=True)]
    assert got == pytest.approx(expected, abs=1e-7)


# eval_utils_test.py
def test_stutz_rank_k_certainties_hand_values():
    samples = np.array([
        [[0, .1, .9, 0]] * 4 + [[0, .9, .1, 0], [0, .9, 0, .1], [0, .9, .1, 0], [.9, .1, 0, 0],
                                [.9, 0, 0, .1], [0, 0, .1, .9]],
        [[1, 4, 2, 3]] * 10,
    ])
    assert rank_k_frequencies(samples, k=1) == pytest.approx(
        np.array([[0.2, 0.3, 0.4, 0.1], [0, 1, 0, 0]]))
    assert rank_k_frequencies(samples, k=2) == pytest.approx(
        np.array([[0, 0.5, 0.3, 0.2], [0, 0, 0, 1]]))


def test_rank_k_frequencies_refuses_arrays_of_the_wrong_shape():
    """One item's samples given as a 2-D array raised IndexError ('tuple index out of
    range'); groups for fewer classes than the samples have raised IndexError or, when the
    ranked classes stayed within them, nothing."""
    with pytest.raises(ValueError, match=r"^plausibilities must be a 3-D array \(n_items, "
                       r"n_samples, n_classes\); got shape \(2, 3\)"):
        rank_k_frequencies(np.array([[0.2, 0.8, 0.0], [0.6, 0.3, 0.1]]))
    samples = np.array([[[0.2, 0.8, 0.0], [0.6, 0.3, 0.1]]])
    with pytest.raises(ValueError, match=r"^groups must give one group per class, shape "
                       r"\(3,\); got shape \(2,\)"):
        rank_k_frequencies(samples, groups=np.array([0, 1]))
    assert rank_k_frequencies(samples, groups=np.array([0, 1, 1])).tolist() == [[0.5, 0.5]]


# ---------------------------------------------------------------------------- Kurniawan et al.
# kmkurn/train-eval-hlv, tests/test_evaluation.py
def soft_case(p_true, p_pred):
    classes = [f"c{i}" for i in range(p_true.shape[1])]
    items = [f"i{i:03d}" for i in range(len(p_true))]  # sorted as given
    truth = Membership.from_probabilities(pd.DataFrame(p_true, index=items, columns=classes))
    return Predictions(p_pred, items=items, classes=classes), truth


def test_train_eval_hlv_hand_values():
    pred, truth = soft_case(np.array([[0.2, 0.8]]), np.array([[0.6, 0.4]]))
    got = values(pred, truth, ["poJSD", "SoftAcc", "SoftF1"])
    assert got["poJSD"] == pytest.approx(0.8754887502)
    assert got["SoftAcc"] == pytest.approx(0.6)
    assert got["SoftF1"] == pytest.approx(0.6)
    # hard accuracy: argmax of the human distribution against argmax of the prediction
    ps, qs = np.array([0.2, 0.6, 0.3]), np.array([0.4, 0.1, 0.1])
    pred, truth = soft_case(np.column_stack([ps, 1 - ps]), np.column_stack([qs, 1 - qs]))
    assert values(pred, truth, ["Acc(target=top1)"])["Acc(target=top1)"] == pytest.approx(2 / 3)


def test_train_eval_hlv_soft_micro_f1_on_multilabel_rows():
    y = np.array([[0.2, 0.3], [0.1, 0.8], [0.9, 0.7]])
    q = np.array([[0.8, 0.1], [0.3, 0.4], [0.7, 0.4]])
    assert soft_micro_f1(y, q) == pytest.approx(
        2 * (0.2 + 0.1 + 0.1 + 0.4 + 0.7 + 0.4) / (1.0 + 0.4 + 0.4 + 1.2 + 1.6 + 1.1))


def test_train_eval_hlv_entropy_correlation():
    p = np.array([0.2, 0.6, 0.9])
    q = np.array([0.3, 0.5, 0.4])
    ent = [-(x * math.log2(x) + (1 - x) * math.log2(1 - x)) for x in (*p, *q)]
    ep, eq = np.array(ent[:3]), np.array(ent[3:])
    expected = ((ep - ep.mean()) * (eq - eq.mean())).sum() / math.sqrt(
        ((ep - ep.mean()) ** 2).sum() * ((eq - eq.mean()) ** 2).sum())
    pred, truth = soft_case(np.column_stack([p, 1 - p]), np.column_stack([q, 1 - q]))
    assert values(pred, truth, ["EntropyCorr"])["EntropyCorr"] == pytest.approx(expected)


def test_oracle_predictions_score_one():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(3), 50)
    pred, truth = soft_case(p, p)
    got = values(pred, truth, ["poJSD", "SoftAcc", "SoftF1", "EntropyCorr"])
    assert got == pytest.approx(dict.fromkeys(got, 1.0))


# ---------------------------------------------------------------------------- scipy
def test_distances_against_scipy():
    rng = np.random.default_rng(1)
    y = rng.dirichlet(np.ones(5) * 0.5, 30)
    q = rng.dirichlet(np.ones(5), 30)
    pred, truth = soft_case(y, q)
    ev = evaluate(pred, truth, ["JS", "Wasserstein", "TV", "MD", "KL", "CE"], n_worlds=0)
    means = {m: ev.query_means(m)[0] for m in ev.measures}
    assert means["JS"] == pytest.approx(jensenshannon(y, q, base=2, axis=1) ** 2, abs=1e-12)
    support = np.arange(5)
    assert means["Wasserstein"] == pytest.approx(
        [scipy_wasserstein(support, support, a, b) for a, b in zip(y, q, strict=True)])
    assert means["TV"] == pytest.approx(0.5 * np.abs(y - q).sum(axis=1))
    assert means["MD"] == pytest.approx(np.abs(y - q).sum(axis=1))
    from scipy.special import rel_entr
    assert means["KL"] == pytest.approx(rel_entr(y, q).sum(axis=1))
    assert means["CE"] == pytest.approx(-(y * np.log(q)).sum(axis=1))
    assert js_divergence(y, q) == pytest.approx(jensenshannon(y, q, base=2, axis=1) ** 2)



def test_js_of_subnormal_probabilities_is_scipys_without_a_warning():
    # a class the truth gives 0 and the predictions a subnormal share: the left-out term's
    # 1 / m overflowed to inf, which a RuntimeWarning reported though the sum never read it
    y = np.array([[2 / 3, 1 / 3, 0.0], [0.0, 0.0, 1.0]])
    q = np.array([[1 - 2e-320, 1e-320, 1e-320], [1e-320, 1e-320, 1 - 2e-320]])
    pred, truth = soft_case(y, q)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev = evaluate(pred, truth, ["JS", "poJSD"], n_worlds=0)
        direct = js_divergence(y, q)
    reference = jensenshannon(y, q, base=2, axis=1) ** 2
    assert ev.query_means("JS")[0] == pytest.approx(reference, abs=1e-15)
    assert ev.query_means("poJSD")[0] == pytest.approx(1 - reference, abs=1e-15)
    assert direct == pytest.approx(reference, abs=1e-15)
    # the smallest subnormal: half of it is 0, so the mixture m of that class underflowed and
    # JS was inf (scipy's jensenshannon still says inf); JS is eps / 2 there, 0 in doubles
    y, q = np.array([[0.0, 1.0, 0.0]]), np.array([[5e-324, 1.0, 0.0]])
    pred, truth = soft_case(y, q)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev = evaluate(pred, truth, ["JS", "poJSD"], n_worlds=0)
        assert js_divergence(y, q).tolist() == [0.0]
    assert ev.query_means("JS")[0].tolist() == [0.0]
    assert ev.query_means("poJSD")[0].tolist() == [1.0]

def test_entropy_correlation_is_pearsons_r_on_normalised_entropies():
    rng = np.random.default_rng(2)
    y = rng.dirichlet(np.ones(4) * 0.7, 80)
    q = rng.dirichlet(np.ones(4), 80)
    pred, truth = soft_case(y, q)
    h = lambda x: -(x * np.log(x)).sum(axis=1) / np.log(4)  # noqa: E731
    got = values(pred, truth, ["EntropyCorr"])["EntropyCorr"]
    assert got == pytest.approx(pearsonr(h(y), h(q)).statistic, rel=1e-12)


# ---------------------------------------------------------------------------- ReaL
def test_real_accuracy_leaves_out_empty_label_sets():
    """Beyer et al.'s ReaL accuracy: top-1 in the set, images with an empty set left out; the
    top-5 form is timm's (any of the top 5 in the set). The image with no valid label ('e') has
    judgments (grade 0) but no relevant class."""
    classes = ["cat", "dog", "fox", "owl"]
    qrels = Qrels(["a", "a", "b", "c", "c", "d", "e"],
                  ["cat", "dog", "fox", "owl", "cat", "dog", "dog"], [1, 1, 1, 1, 1, 1, 0])
    scores = np.array([[0.1, 0.6, 0.2, 0.1], [0.7, 0.1, 0.1, 0.1], [0.2, 0.1, 0.3, 0.4],
                       [0.4, 0.3, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]])
    pred = Predictions(scores, items=list("abcde"), classes=classes)
    ev = evaluate(pred, qrels, ["ReaL", "ReaL@2"])
    table = ev.aggregate().set_index("measure")
    # top 1: a dog (in), b cat (out), c owl (in), d cat (out); top 2 adds fox to a, owl to b
    # (the tie of dog, fox and owl at 0.1 goes to the last column), fox to c, dog to d
    assert table.loc["Acc", "value"] == 0.5
    assert table.loc["Acc", "n_queries"] == 4
    assert table.loc["Acc@2", "value"] == 0.75
    assert table.loc["Acc", "estimand"] == "queries"
    # the same numbers as P@1 and Success@2 of the retrieval engine on the classes as a run,
    # images with an empty set left out (undefined='skip' on ... no relevant document)
    from fuzzytruth import Run

    ranked = {"net": Run(np.repeat(list("abcde"), 4), np.tile(classes, 5), scores.ravel())}
    retrieval = evaluate(ranked, qrels, ["P@1", "Success@2"], ties="docid_desc")
    per_query = retrieval.to_frame().pivot(index="query_id", columns="measure", values="mean")
    assert per_query.loc[list("abcd"), "P@1"].mean() == 0.5
    assert per_query.loc[list("abcd"), "Success@2"].mean() == 0.75


# ---------------------------------------------------------------------------- LeWiDi 2025
# Reference values: the official functions of Evaluation_LeWiDi_2025_Metrics.ipynb
# (Le-Wi-Di/le-wi-di.github.io @ 4cc3d64; ot.emd2 replaced by scipy's one-dimensional
# wasserstein_distance, the same quantity for the |h - k| cost) run on the published dev files
# of LeWiDi_3-2025 (@ dfb846f and later): predictions uniform, the one-hot majority, or the
# dev set's mean soft label. The data are not bundled: set FUZZYTRUTH_LEWIDI_2025 to a folder
# holding MP_dev.json, Paraphrase_dev.json and CSC_dev.json.
LEWIDI = {
    "MP average_MD uniform": 0.61776,
    "MP average_MD majority": 0.38224,
    "MP error_rate majority": 0.19111817970049919,
    "Paraphrase average_WS uniform": 2.74727,
    "Paraphrase average_WS dev mean": 2.7264,
    "Paraphrase average_MD dev mean": 1.3066,
    "Paraphrase mean_absolute_distance rounded mean": 0.16909090909090907,
    "CSC average_WS uniform": 1.33819,
    "CSC average_WS dev mean": 1.11772,
    "CSC average_MD dev mean": 0.96519,
    "CSC mean_absolute_distance rounded mean": 0.15070628156565657,
}


def lewidi_file(name):
    folder = os.environ.get("FUZZYTRUTH_LEWIDI_2025")
    if not folder or not (Path(folder) / name).is_file():
        pytest.skip("set FUZZYTRUTH_LEWIDI_2025 to a folder with the LeWiDi 2025 dev files")
    data = json.loads((Path(folder) / name).read_text())
    keys = list(data)
    labels = list(data[keys[0]]["soft_label"])
    soft = np.array([[data[k]["soft_label"][lab] for lab in labels] for k in keys])
    return keys, labels, soft, data


def lewidi_eval(keys, labels, soft, prediction, measure):
    items = [str(k) for k in keys]
    truth = Membership.from_probabilities(pd.DataFrame(soft, index=items, columns=labels))
    pred = Predictions(np.broadcast_to(prediction, soft.shape) if prediction.ndim == 1
                       else prediction, items=items, classes=labels)
    return evaluate(pred, truth, measure, preset="lewidi", n_worlds=0).aggregate()["value"][0]


def test_lewidi_average_md_on_multipico():
    keys, labels, soft, data = lewidi_file("MP_dev.json")
    uniform = np.array([0.5, 0.5])
    majority = np.where(soft[:, :1] >= soft[:, 1:], [1.0, 0.0], [0.0, 1.0])
    for name, prediction in (("uniform", uniform), ("majority", majority)):
        official = LEWIDI[f"MP average_MD {name}"]
        assert round(lewidi_eval(keys, labels, soft, prediction, "MD"), 5) == official
        assert lewidi_average_md(soft, np.broadcast_to(prediction, soft.shape)) == official
    targets = [np.array([int(v) for v in data[k]["annotations"].values()]) for k in keys]
    rates = [lewidi_error_rate(t[None], np.full((1, len(t)), int(2 * t.sum() > len(t))))
             for t in targets]  # items have different numbers of annotators
    assert float(np.mean(rates)) == pytest.approx(LEWIDI["MP error_rate majority"], abs=1e-15)


@pytest.mark.parametrize("dataset", ["Paraphrase", "CSC"])
def test_lewidi_wasserstein_and_md_on_ordinal_scales(dataset):
    keys, labels, soft, data = lewidi_file(f"{dataset}_dev.json")
    uniform = np.full(len(labels), 1 / len(labels))
    mean = soft.mean(axis=0)
    assert round(lewidi_eval(keys, labels, soft, uniform, "Wasserstein"), 5) == LEWIDI[
        f"{dataset} average_WS uniform"]
    assert round(lewidi_eval(keys, labels, soft, mean, "Wasserstein"), 5) == LEWIDI[
        f"{dataset} average_WS dev mean"]
    assert round(lewidi_eval(keys, labels, soft, mean, "MD"), 5) == LEWIDI[
        f"{dataset} average_MD dev mean"]
    scale = 11 if dataset == "Paraphrase" else 6
    distances = []
    for k in keys:
        ratings = np.array([int(v) for v in data[k]["annotations"].values()])
        guess = np.full(len(ratings), int(np.round(ratings.mean())))
        distances.append(lewidi_mean_absolute_distance(ratings[None], guess[None], scale))
    assert float(np.mean(distances)) == pytest.approx(
        LEWIDI[f"{dataset} mean_absolute_distance rounded mean"], abs=1e-15)


def test_lewidi_rounding_is_per_item_then_of_the_mean():
    """Hand derivation: items at 0.123456 and 0.234564 round to 0.12346 and 0.23456 before
    averaging (0.17901); averaging first gives 0.17901 too, but 1.000005 (stored just above)
    rounds up per item as Python's round does."""
    t = np.array([[1.0, 0.0], [1.0, 0.0]])
    p = np.array([[1 - 0.123456 / 2, 0.123456 / 2], [1 - 0.234564 / 2, 0.234564 / 2]])
    assert lewidi_average_md(t, p) == 0.17901
    assert lewidi_error_rate(np.array([[1, 0, 1]]), np.array([[1, 1, 1]])) == 0.33333


# ---------------------------------------------------------------------------- laws of ties
@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=5, max_size=5), min_size=1, max_size=6),
       st.integers(1, 5))
def test_tie_rules_keep_k_slots(rows, k):
    """Every rule fills exactly k slots in expectation (the average rule's credits sum to k),
    the strict rules pick k classes, 'all' contains them, and 'average' credits lie between
    a strict rule's and 'all''s."""
    scores = np.array(rows, dtype=float)
    full = {}
    for ties in CLASS_TIES:
        c = candidates(scores, k, ties)
        credit = np.zeros(scores.shape)
        for row in range(len(scores)):
            valid = c.columns[row] >= 0
            credit[row, c.columns[row][valid]] = c.credit(k)[row][valid]
        full[ties] = credit
    assert full["average"].sum(axis=1) == pytest.approx(k)
    for strict in ("last", "first"):
        assert (full[strict].sum(axis=1) == k).all()
        assert (full[strict] <= full["all"]).all()
    assert (full["average"] <= full["all"] + 1e-12).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # k >= n_classes
        for row, r in enumerate(scores):
            hits = [top_k_accuracy_score([y], r[None], k=k, labels=range(5)) for y in range(5)]
            assert full["last"][row].tolist() == hits
