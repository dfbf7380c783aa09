"""Classifier evaluation under hostile inputs: the cases a differential fuzz against brute-force
oracles (every truth world enumerated, each scored by the measure's definition written out by
hand) found wrong, one test each."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Membership, Qrels, Taxonomy, evaluate
from fuzzytruth.classify import Predictions


def _value(pred, truth, measure, **kw):
    return float(evaluate(pred, truth, [measure], rng=0, **kw).aggregate()["value"].iloc[0])


@pytest.mark.parametrize("measure, kw", [
    ("Acc(target=distribution)@2", {}),
    ("Acc(ties=all,target=distribution)@5", {}),
    ("Acc(target=distribution)@20", {}),
    ("Acc@20", {"method": "worlds", "n_worlds": 200}),
])
def test_a_true_class_never_predicted_is_a_miss_even_when_k_exceeds_the_classes(measure, kw):
    """The truth puts 0.7 on "b", which the classifier does not score: whatever k, only the 0.3
    on "a" can be a hit (by hand: Σ_t p(t) 1[t in the top k] = 0.3; the top k of one class is
    that class). A k above the number of classes used to count the unscored class as a hit,
    1.0, on the paths that read a table of best ranks."""
    truth = Membership.from_probabilities(pd.DataFrame({"a": [0.3], "b": [0.7]}, index=["x"]),
                                          taxonomy=Taxonomy.flat(["a", "b"]))
    pred = Predictions([[1.0]], items=["x"], classes=["a"])
    got = _value(pred, truth, measure, **kw)
    if "method" in kw:  # 200 worlds of one Bernoulli(0.3) label: within 5 standard errors
        assert abs(got - 0.3) <= 5 * np.sqrt(0.3 * 0.7 / 200)
    else:
        assert got == pytest.approx(0.3, abs=1e-15)


def test_a_k_that_covers_every_class_warns_and_a_smaller_one_does_not():
    """Top-5 accuracy over 3 classes is 1 whatever the scores (scikit-learn warns): a warning
    names the measure, k and the number of classes, on a flat truth, at a taxonomy level and
    on label sets. k below it is silent, also where it covers every group at a level (2 of
    3 classes, 2 groups: the top 2 may both be pets, a miss for "fox", as item y shows)."""
    tax = Taxonomy.from_nested({"all": {"pets": ["cat", "dog"], "wild": ["fox"]}})
    truth = Membership.from_probabilities(
        pd.DataFrame({"cat": [0.5, 0.0], "dog": [0.5, 0.2], "fox": [0.0, 0.8]},
                     index=["x", "y"]), taxonomy=tax)
    pred = Predictions([[0.7, 0.2, 0.1], [0.5, 0.4, 0.1]], items=["x", "y"],
                       classes=["cat", "dog", "fox"], name="net")
    sets = Qrels(["x", "y", "y"], ["cat", "dog", "fox"], [1, 1, 1])
    for measure, named, on in (("Acc@3", "Acc@3", truth), ("top5", "Acc@5", truth),
                               ("Acc(level=1)@3", "Acc(level=1)@3", truth),
                               ("ReaL@3", "Acc@3", sets)):
        with pytest.warns(UserWarning, match=re.escape(
                f"'{named}': its top {named[-1]} holds all 3 classes of the predictions 'net', "
                "so every item")):
            assert _value(pred, on, measure) == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _value(pred, truth, "Acc(level=1)@2") == pytest.approx((1 + 0.2) / 2)
        _value(pred, truth, "Acc@2")
        _value(pred, sets, "ReaL@2")


def test_the_top1_target_of_a_point_truth_needs_only_its_labels_to_be_predicted():
    """Truth 0.6 a / 0.4 b, classifier scoring a and c only: target=top1 reads "a" for the item
    (the argmax), which the classifier scores, so CE and TV have values (by hand: −log 0.8 and
    ½(|0.8 − 1| + |0.2 − 0|) = 0.2); it used to be refused because "b" has mass. The
    distribution target reads "b" and is still refused."""
    truth = Membership.from_probabilities(pd.DataFrame({"a": [0.6], "b": [0.4]}, index=["x"]),
                                          taxonomy=Taxonomy.flat(["a", "b", "c"]))
    pred = Predictions([[0.8, 0.2]], items=["x"], classes=["a", "c"])
    assert _value(pred, truth, "CE(target=top1)") == pytest.approx(-np.log(0.8), rel=1e-15)
    assert _value(pred, truth, "TV(target=top1)") == pytest.approx(0.2, rel=1e-15)
    with pytest.raises(ValueError, match=r"CE.*puts mass on 'b'.*no class"):
        evaluate(pred, truth, ["CE"], rng=0)
    other = Predictions([[0.8, 0.2]], items=["x"], classes=["b", "c"])
    with pytest.raises(ValueError, match=r"an item's most plausible label 'a'.*no class"):
        evaluate(other, truth, ["CE(target=top1)"], rng=0)


def test_entropy_correlation_of_float32_predictions_is_that_of_their_values():
    """Float32 probabilities are numbers like any other: EntropyCorr of them equals scipy's
    Pearson r of the normalised entropies computed in float64 from the same float32 values.
    Entropies taken in float32 (~1e-7 relative error) moved r by ~1e-5 on three items."""
    from scipy.stats import pearsonr

    rng = np.random.default_rng(5)
    classes, items = list("abcde"), ["x", "y", "z"]
    law = rng.dirichlet(np.ones(5), 3)
    truth = Membership.from_probabilities(pd.DataFrame(law, index=items, columns=classes),
                                          taxonomy=Taxonomy.flat(classes))
    q = rng.dirichlet(np.ones(5) * 50, 3).astype(np.float32)
    q64 = q.astype(np.float64)
    h_y = -(law * np.log(law)).sum(axis=1) / np.log(5)
    h_q = -(q64 * np.log(q64)).sum(axis=1) / np.log(5)
    got = _value(Predictions(q, items=items, classes=classes), truth, "EntropyCorr")
    assert got == pytest.approx(pearsonr(h_y, h_q).statistic, rel=1e-9)


def test_a_taxonomy_with_nodes_of_the_same_text_is_a_value_error_naming_them():
    """Classes meet taxonomy nodes by their text, so nodes 1 and "1" could not both be
    matched (once pandas' InvalidIndexError from a lookup on a non-unique index): the
    taxonomy refuses them when it is made, naming them."""
    with pytest.raises(ValueError, match=r"taxonomy must name each node once as text; got "
                                         r"\[1, '1'\]"):
        Taxonomy.flat([1, "1", 2])
    truth = Membership.from_labels({"x": 1}, taxonomy=Taxonomy.flat([1, 2]))
    pred = Predictions([[0.75, 0.25]], items=["x"], classes=["1", "2"])
    assert evaluate(pred, truth, ["Acc"], rng=0).value("classifier", "Acc") == 1.0


def test_a_wide_frame_without_class_columns_is_a_value_error():
    with pytest.raises(ValueError, match="frame must have a column per class; got no class"):
        Predictions.from_wide(pd.DataFrame(index=["x", "y"]))
    with pytest.raises(ValueError, match="frame must have a column per class"):
        Predictions.from_wide(pd.DataFrame({"id": ["x"]}), item="id")


def test_from_labels_reads_a_label_set_as_a_set():
    """["a", "a"] is the set {a}: one-hot on a (it used to be refused as a row summing to 0.5);
    an empty set is refused by name."""
    p = Predictions.from_labels({"x": ["a", "a"], "y": ["b", "a", "b"]}, classes=["a", "b"])
    assert p.scores.tolist() == [[1.0, 0.0], [0.5, 0.5]]
    with pytest.raises(ValueError, match="item 'x' has an empty label set"):
        Predictions.from_labels({"x": []}, classes=["a", "b"])


def test_float32_probabilities_clip_at_their_epsilon_at_every_taxonomy_level():
    """CE clips float32 probabilities at float32's epsilon (scikit-learn's log_loss), and the
    group probabilities at level=1 are float32 numbers too: a group given 0 costs
    −log(eps32) ≈ 15.9 as a class given 0 does, not −log(eps64) ≈ 36.0. By hand: x (low)
    gets 0 + 0, y (high) 0.25; scikit-learn's log_loss on the float32 group probabilities
    agrees to its float32 arithmetic."""
    from sklearn.metrics import log_loss

    tax = Taxonomy.from_nested({"all": {"low": ["l1", "l2"], "high": ["h1"]}})
    truth = Membership.from_labels({"x": "l1", "y": "h1"}, taxonomy=tax)
    q = np.array([[0.0, 0.0, 1.0], [0.5, 0.25, 0.25]], dtype=np.float32)  # l1, l2, h1
    pred = Predictions(q, items=["x", "y"], classes=["l1", "l2", "h1"])
    expected = (-np.log(np.float64(np.finfo(np.float32).eps)) - np.log(0.25)) / 2
    assert _value(pred, truth, "CE(level=1)") == pytest.approx(expected, rel=1e-12)
    assert _value(pred, truth, "CE(level=1,target=label)") == pytest.approx(expected, rel=1e-12)
    groups = np.column_stack([q[:, 0] + q[:, 1], q[:, 2]])  # low, high: float32
    assert expected == pytest.approx(log_loss([0, 1], y_proba=groups, labels=[0, 1]), rel=1e-6)


@pytest.mark.parametrize("target", ["label", "distribution"])
def test_distances_to_a_label_read_the_rows_sum_which_float32_keeps_only_within_tolerance(
        target):
    """A float32 row summing to 0.9998 is accepted as probabilities (within sqrt(eps32) =
    3.5e-4 of 1), so the distances to a one-hot label are their definitions on it, written
    out here: MD = Σ|y − q|, TV = MD / 2, JS = ½ Σ y log2(y/m) + ½ Σ q log2(q/m), soft
    micro-F1 = 2 Σ min(y, q) / Σ (y + q). The label forms used to assume Σ q = 1 (MD 1.0
    instead of 0.9998); the distribution target always read the row."""
    q = np.array([[0.5, 0.2, 0.2998]], dtype=np.float32)
    pred = Predictions(q, items=["x"], classes=["a", "b", "c"])
    assert pred.probabilities
    truth = Membership.from_labels({"x": "a"}, taxonomy=Taxonomy.flat(["a", "b", "c"]))
    q64, y = q[0].astype(np.float64), np.array([1.0, 0.0, 0.0])
    m = (y + q64) / 2
    expected = {
        "MD": np.abs(y - q64).sum(),
        "TV": np.abs(y - q64).sum() / 2,
        "JS": 0.5 * np.log2(1 / m[0]) + 0.5 * (q64 * np.log2(q64 / m)).sum(),
        "SoftF1": 2 * np.minimum(y, q64).sum() / (y + q64).sum(),
    }
    for name, value in expected.items():
        got = _value(pred, truth, f"{name}(target={target})")
        assert got == pytest.approx(value, rel=1e-12, abs=1e-15), name


@pytest.mark.parametrize("target", ["label", "distribution"])
def test_wasserstein_to_a_label_keeps_the_absolute_value_where_the_cdf_passes_one(target):
    """float32 [0.3, 0.7001, 0] sums to 1.0001, within float32's tolerance: its CDF passes 1
    at the second class. Against the first class, by the definition Σ_j |F_y(j) − F_q(j)|
    over j < K − 1: |1 − 0.3| + |1 − 1.0001| = 0.7001; the label form used to drop the
    absolute value (0.6999)."""
    q = np.array([[0.3, 0.7001, 0.0]], dtype=np.float32)
    pred = Predictions(q, items=["x"], classes=["a", "b", "c"])
    truth = Membership.from_labels({"x": "a"}, taxonomy=Taxonomy.flat(["a", "b", "c"]))
    cdf = np.cumsum(q[0].astype(np.float64))[:-1]
    expected = np.abs(1.0 - cdf).sum()
    assert _value(pred, truth, f"Wasserstein(target={target})") == pytest.approx(expected,
                                                                                 rel=1e-12)


def test_dates_and_complex_numbers_are_not_scores_in_any_table():
    # pandas.to_numeric turns dates into nanoseconds since 1970 and passes complex values on:
    # a long table of dates was scored as 1.7e18-scale numbers without a word (as a tidy
    # table of compare() was); one rule (numeric_values) now reads every table's numbers
    when = pd.to_datetime(["2024-01-01", "2024-01-02"])
    long = pd.DataFrame({"item_id": ["a", "a"], "class": ["x", "y"], "score": when})
    with pytest.raises(ValueError, match=r"^column 'score' must be real numbers; got dates or "
                                         r"durations \(datetime64"):
        Predictions.from_frame(long)
    as_objects = long.assign(score=[0.5, 1 + 2j])
    with pytest.raises(ValueError, match=r"^column 'score' must be real numbers; got complex"):
        Predictions.from_frame(as_objects)
    wide = pd.DataFrame({"x": [0.5, 0.25], "y": when}, index=["a", "b"])
    with pytest.raises(ValueError, match=r"^frame must be real numbers; got dates"):
        Predictions.from_wide(wide)
    # text holding numbers stays numbers
    text = long.assign(score=["0.25", "0.75"])
    assert Predictions.from_frame(text).scores.tolist() == [[0.25, 0.75]]


def test_hard_labels_given_as_scores_are_pointed_to_from_labels():
    """A hard classifier's output, one predicted class per item, is not a score table: the
    error says how to score it (Predictions.from_labels), for class names and class indices;
    a 1-D array of another length gets the plain shape error."""
    for hard in (np.array(["cat", "dog"]), np.array([0, 1])):
        with pytest.raises(ValueError, match=r"\(one predicted class per item is "
                                             r"Predictions\.from_labels\(\{item: class\}, "
                                             r"classes=\.\.\.\)\)$"):
            Predictions(hard, items=["x", "y"], classes=["cat", "dog"])
    with pytest.raises(ValueError, match=r"got shape \(3,\)$"):
        Predictions(np.array([0, 1, 0]), items=["x", "y"], classes=["cat", "dog"])
    labels = Predictions.from_labels({"x": "cat", "y": "dog"}, classes=["cat", "dog"])
    assert labels.scores.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_hard_labels_and_logits_are_refused_with_the_call_that_makes_them_right():
    # scikit-learn's habits: y_true as a list of labels, decision scores as logits
    rng = np.random.default_rng(0)
    probabilities = rng.dirichlet(np.ones(3), size=5)
    labels = [0, 2, 1, 1, 0]
    pred = Predictions(probabilities, items=range(5), classes=[0, 1, 2])
    for given in (labels, pd.Series(labels), np.array(labels)):
        with pytest.raises(ValueError, match=r"hard labels, one per item, are a crisp truth: "
                                             r"Membership\.from_labels\(dict\(zip\(items, "
                                             r"labels\)\), taxonomy=Taxonomy\.flat\(classes\)\)"):
            evaluate(pred, given, ["Acc"])
    truth = Membership.from_labels(dict(zip(range(5), labels, strict=True)),
                                   taxonomy=Taxonomy.flat([0, 1, 2]))
    assert evaluate(pred, truth, ["Acc"], rng=0).value("classifier", "Acc") == pytest.approx(
        np.mean(probabilities.argmax(axis=1) == labels))
    logits = Predictions(np.log(probabilities), items=range(5), classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"must be within \[0, 1\]; .* \(logits\? "
                                         r"scipy\.special\.softmax\(scores, axis=1\) makes them "
                                         r"probabilities\)"):
        evaluate(logits, truth, ["CE"], rng=0)
    with pytest.raises(ValueError, match=r"must be within \[0, 1\]; item '0' has 1\.186\d*$"):
        evaluate(Predictions(probabilities * 2, items=range(5), classes=[0, 1, 2]), truth,
                 ["CE"], rng=0)  # above 1, not below 0: no word of logits
    with pytest.raises(ValueError, match=r"must be within \[0, 1\]; item '0' has \d+\.\d*"
                                         r" \(percentages\? divide them by 100\)$"):
        evaluate(Predictions(probabilities * 100, items=range(5), classes=[0, 1, 2]), truth,
                 ["CE"], rng=0)


def test_classes_named_otherwise_than_the_truths_are_never_scored_in_silence():
    """Classes spelled otherwise than the truth's ('Cat' for 'cat', column positions for
    names) made every item wrong: a taxonomy's truth refuses them (the positions told how to
    name them); label sets (ReaL's Qrels), against which a classifier may score classes the
    sets never name, warn when it names none of theirs, showing both spellings."""
    from fuzzytruth import Qrels

    probabilities = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    taxonomy_truth = Membership.from_labels({"x": "cat", "y": "fox"},
                                            taxonomy=Taxonomy.flat(["cat", "dog", "fox"]))
    positions = Predictions(probabilities, items=["x", "y"], classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"'0', '1', '2' of the predictions 'classifier' are "
                                         r"not nodes .*they read as column positions: .*give "
                                         r"classes= the names of the columns' classes"):
        evaluate(positions, taxonomy_truth, ["Acc"], rng=0)
    capitals = Predictions(probabilities, items=["x", "y"], classes=["Cat", "Dog", "Fox"])
    with pytest.raises(ValueError, match=r"not nodes of the truth's taxonomy \(closest to "
                                         r"'Cat': 'cat'\)$"):
        evaluate(capitals, taxonomy_truth, ["Acc"], rng=0)
    sets = Qrels(["x", "y", "y"], ["cat", "fox", "dog"], [1, 1, 1])
    for pred, shown in ((capitals, "'Cat', 'Dog', 'Fox'"), (positions, "'0', '1', '2'")):
        with pytest.warns(UserWarning, match=rf"the predictions 'classifier' name none of the "
                                             rf"classes the truth names: every item is scored "
                                             rf"as wrong\..* the predictions have {shown}, the "
                                             r"truth names '(cat|fox|dog)'"):
            assert _value(pred, sets, "Acc") == 0.0
    named = Predictions(probabilities, items=["x", "y"], classes=["cat", "dog", "wolf"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # some classes named: a classifier's own label space
        assert _value(named, sets, "Acc") == 0.5


def test_a_list_of_predictions_is_refused_with_the_mapping_that_names_them():
    """evaluate([p, q], ...) was told to give "a Predictions ... not runs", which it had done;
    the message now gives the mapping, which evaluates."""
    truth = Membership.from_labels({"x": "a"}, taxonomy=Taxonomy.flat(["a", "b"]))
    p = Predictions([[0.9, 0.1]], items=["x"], classes=["a", "b"], name="p")
    q = Predictions([[0.2, 0.8]], items=["x"], classes=["a", "b"], name="q")
    for given in ([p, q], (p, q)):
        with pytest.raises(ValueError, match=r"got (list|tuple): name the classifiers, "
                                             r"\{p\.name: p for p in predictions\}$"):
            evaluate(given, truth, ["Acc"], rng=0)
    got = evaluate({c.name: c for c in (p, q)}, truth, ["Acc"], rng=0)
    assert [got.value(s, "Acc") for s in ("p", "q")] == [1.0, 0.0]


def test_float16_probabilities_are_probabilities_within_their_own_precision():
    """Half-precision softmax outputs (mixed-precision models) sum to 1 only within float16's
    rounding (3e-4 here); they were read as scores, and CE, Brier... refused them for a sum of
    1.00034. Their tolerance is now float16's sqrt(eps): they are probabilities, held as
    float64, and CE is -mean log of the float16 values (by hand); rows off by more are not."""
    rng = np.random.default_rng(0)
    p16 = rng.dirichlet(np.ones(5), 100).astype(np.float16)
    classes = list("abcde")
    assert np.abs(p16.astype(np.float64).sum(axis=1) - 1).max() > 1e-4  # above float64's
    pred = Predictions(p16, items=range(100), classes=classes)
    assert pred.probabilities and pred.scores.dtype == np.float64
    true = rng.integers(0, 5, 100)
    truth = Membership.from_labels({i: classes[t] for i, t in enumerate(true)},
                                   taxonomy=Taxonomy.flat(classes))
    by_hand = -np.mean(np.log(p16.astype(np.float64)[np.arange(100), true]))
    assert _value(pred, truth, "CE") == pytest.approx(by_hand, rel=1e-12)
    assert not Predictions((p16 * 1.1).astype(np.float16), items=range(100),
                           classes=classes).probabilities
