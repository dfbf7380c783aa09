"""evaluate() on classifiers: exact laws against brute-force enumeration of every truth, the
worlds against the exact forms, levels of the taxonomy, the retrieval engine's reading of the
same question, compare() with its three estimands, the human baseline, and the errors."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Annotations, Membership, Qrels, Run, Taxonomy, compare, evaluate
from fuzzytruth._resampling import ResamplingResolutionWarning
from fuzzytruth.classify import (
    Predictions,
    annotation_certainty,
    leave_one_annotator_out,
    reliability_curves,
)
from fuzzytruth.evaluation import classifiers
from fuzzytruth.io.rankings import Rankings
from fuzzytruth.stats import annotator_bootstrap
from fuzzytruth.truth.models import IRN, DawidSkene, PrIRN, Shares

CLASSES = ["a", "b", "c"]


def small_case(seed=0, n_items=3):
    rng = np.random.default_rng(seed)
    shares = rng.dirichlet(np.ones(3), n_items)
    shares[0] = [0.5, 0.5, 0.0]  # an item whose support leaves a class out
    items = [f"i{i}" for i in range(n_items)]
    truth = Membership.from_probabilities(pd.DataFrame(shares, index=items, columns=CLASSES))
    preds = {
        name: Predictions(rng.dirichlet(np.ones(3), n_items), items=items, classes=CLASSES,
                          name=name)
        for name in ("p", "q")
    }
    return truth, preds, shares


def by_hand(measure, q, label):
    """A measure's value for probabilities q (one item) and a one-hot true class, written out
    from its definition."""
    y = np.eye(3)[label]
    order = np.argsort(-q, kind="stable")[::-1][::-1]  # no ties in these cases
    if measure == "Acc":
        return float(order[0] == label)
    if measure == "Acc@2":
        return float(label in order[:2])
    if measure == "CE(target=label)":
        return -np.log(q[label])
    if measure == "Brier(target=label)":
        return float(((q - y) ** 2).sum())
    if measure == "TV(target=label)":
        return 0.5 * float(np.abs(q - y).sum())
    if measure == "JS(target=label)":
        m = (q + y) / 2
        return 0.5 * float((y[y > 0] * np.log2(y[y > 0] / m[y > 0])).sum()
                           + (q * np.log2(q / m)).sum())
    raise AssertionError(measure)


PER_ITEM = ["Acc", "Acc@2", "CE(target=label)", "Brier(target=label)", "TV(target=label)",
            "JS(target=label)"]


def test_unpredicted_items_are_named_how_many_and_the_first_few():
    # 60 items in the truth, 49 predicted: the note says 11 and shows the first five
    tax = Taxonomy.flat(CLASSES)
    items = [f"i{k:02d}" for k in range(60)]
    truth = Membership.from_labels({i: CLASSES[k % 3] for k, i in enumerate(items)},
                                   taxonomy=tax)
    p = Predictions(np.full((49, 3), 1 / 3), items=items[:49], classes=CLASSES, name="p")
    with pytest.warns(UserWarning) as caught:
        ev = evaluate(p, truth, "Acc", n_worlds=0)
    notes = [str(w.message) for w in caught if "missing from the predictions" in str(w.message)]
    assert notes == ["11 item(s) of the truth missing from the predictions: 'i49', 'i50', "
                     "'i51', 'i52', 'i53', … (11 in all): not evaluated (complete=False)"]
    assert len(ev.queries) == 49 and ev.aggregate()["n_queries"].iloc[0] == 49
    with pytest.raises(ValueError, match=r"complete=True .* 11 item\(s\) of the truth"):
        evaluate(p, truth, "Acc", n_worlds=0, complete=True)
    with warnings.catch_warnings():  # every item predicted: no note
        warnings.simplefilter("error")
        evaluate(Predictions(np.full((60, 3), 1 / 3), items=items, classes=CLASSES, name="p"),
                 truth, "Acc", n_worlds=0)


@pytest.mark.parametrize("seed", [0, 1])
def test_exact_laws_equal_the_enumeration_of_every_truth(seed):
    truth, preds, shares = small_case(seed)
    ev = evaluate(preds, truth, PER_ITEM, rng=0, n_worlds=50)
    for name, pred in preds.items():
        q = pred.scores
        for measure in PER_ITEM:
            weight, per_world = enumerated_law(
                shares, lambda i, label, q=q, measure=measure: by_hand(measure, q[i], label))
            assert_law(ev, name, measure, weight, per_world)


def more_by_hand(measure, q, label):
    """KL, MD, SoftAcc, poJSD and Wasserstein against a one-hot true class, from their
    definitions (the classes in their order for Wasserstein)."""
    y = np.eye(3)[label]
    if measure == "KL(target=label)":
        return float(sum(y[j] * np.log(y[j] / q[j]) for j in range(3) if y[j] > 0))
    if measure == "MD(target=label)":
        return float(np.abs(y - q).sum())
    if measure == "SoftAcc(target=label)":
        return float(np.minimum(y, q).sum())
    if measure == "poJSD(target=label)":
        return 1.0 - by_hand("JS(target=label)", q, label)
    if measure == "Wasserstein(target=label)":
        return float(np.abs(np.cumsum(y) - np.cumsum(q))[:-1].sum())
    raise AssertionError(measure)


def enumerated_law(shares, values):
    """Each item's law over every complete truth: ``values[w][i]`` is item i's value in world
    ``w`` of ``itertools.product`` over the classes; returns (weights, per-world values)."""
    n_items, n_classes = shares.shape
    worlds = list(itertools.product(range(n_classes), repeat=n_items))
    weight = np.array([np.prod([shares[i, w[i]] for i in range(n_items)]) for w in worlds])
    return weight, np.array([[values(i, w[i]) for i in range(n_items)] for w in worlds])


def assert_law(ev, name, measure, weight, per_world):
    assert ev.method(name, measure) == "exact"
    assert ev.value(name, measure) == pytest.approx(weight @ per_world.mean(axis=1))
    for i, item in enumerate(ev.queries):
        law = pd.Series(weight).groupby(per_world[:, i].round(12)).sum()
        law = law[law > 0]
        dist = ev.distribution(name, item, measure).to_frame()
        assert dist["value"].round(12).tolist() == law.index.tolist()
        assert dist["probability"].to_numpy() == pytest.approx(law.to_numpy())


@pytest.mark.parametrize("seed", [0, 1])
def test_distances_exact_laws_equal_the_enumeration(seed):
    measures = ["KL(target=label)", "MD(target=label)", "SoftAcc(target=label)",
                "poJSD(target=label)", "Wasserstein(target=label)"]
    truth, preds, shares = small_case(seed)
    ev = evaluate(preds, truth, measures, rng=0, n_worlds=0)
    for name, pred in preds.items():
        for measure in measures:
            weight, per_world = enumerated_law(
                shares, lambda i, label, m=measure, q=pred.scores: more_by_hand(m, q[i], label))
            assert_law(ev, name, measure, weight, per_world)


def test_tie_averaged_accuracy_equals_the_enumeration_of_truths_and_orders():
    """ties='average': the expectation over every order of the tied classes (enumerated as
    permutations consistent with the scores), and over every truth."""
    classes = ["a", "b", "c", "d"]
    scores = np.array([[0.4, 0.2, 0.2, 0.2],   # three tied behind the first
                       [0.3, 0.3, 0.3, 0.1],   # three tied in front
                       [0.25, 0.25, 0.25, 0.25]])
    shares = np.array([[0.5, 0.5, 0.0, 0.0], [0.2, 0.0, 0.3, 0.5], [0.1, 0.2, 0.3, 0.4]])
    items = ["x", "y", "z"]
    truth = Membership.from_probabilities(pd.DataFrame(shares, index=items, columns=classes))
    pred = Predictions(scores, items=items, classes=classes, name="p")

    def hit(i, label, k):
        orders = [o for o in itertools.permutations(range(4))
                  if all(scores[i, o[j]] >= scores[i, o[j + 1]] for j in range(3))]
        return np.mean([label in o[:k] for o in orders])

    measures = {k: f"Acc(ties=average)@{k}" if k > 1 else "Acc(ties=average)"
                for k in (1, 2, 3)}
    ev = evaluate(pred, truth, list(measures.values()), rng=0, n_worlds=0)
    for k, measure in measures.items():
        weight, per_world = enumerated_law(shares, lambda i, label, k=k: hit(i, label, k))
        assert_law(ev, "p", measure, weight, per_world)


def test_level_exact_laws_equal_the_enumeration():
    """level=1: a prediction counts where it meets the truth's group (accuracy), and the
    predicted distribution is summed over each group (cross-entropy)."""
    tax = Taxonomy.from_nested({"all": {"g1": ["a", "b"], "g2": ["c"]}})
    group = {"a": 0, "b": 0, "c": 1}
    shares = np.array([[0.5, 0.25, 0.25], [0.0, 0.4, 0.6], [0.2, 0.0, 0.8]])
    items = ["x", "y", "z"]
    truth = Membership.from_probabilities(pd.DataFrame(shares, index=items, columns=CLASSES),
                                          taxonomy=tax)
    scores = np.array([[0.2, 0.5, 0.3], [0.1, 0.3, 0.6], [0.6, 0.1, 0.3]])
    pred = Predictions(scores, items=items, classes=CLASSES, name="p")
    ev = evaluate(pred, truth, ["Acc(level=1)", "CE(level=1,target=label)"], rng=0,
                  n_worlds=0)

    def acc(i, label):
        return float(group[CLASSES[int(np.argmax(scores[i]))]] == group[CLASSES[label]])

    def ce(i, label):
        return -np.log(sum(scores[i, j] for j in range(3)
                           if group[CLASSES[j]] == group[CLASSES[label]]))

    for measure, value in (("Acc(level=1)", acc), ("CE(level=1,target=label)", ce)):
        weight, per_world = enumerated_law(shares, value)
        assert_law(ev, "p", measure, weight, per_world)


def test_collection_statistics_from_worlds_match_the_enumeration():
    """ECE (labels) has no per-item law: its worlds' mean approaches the expectation over
    every truth, within the Monte Carlo error."""
    truth, preds, shares = small_case(3)
    worlds = list(itertools.product(range(3), repeat=3))
    weight = np.array([np.prod([shares[i, w[i]] for i in range(3)]) for w in worlds])
    q = preds["p"].scores
    conf = q.max(axis=1)
    top = q.argmax(axis=1)
    bins = np.clip(np.ceil(conf * 15).astype(int) - 1, 0, 14)

    def ece(w):
        r = (top == np.array(w)) - conf
        return sum(abs(r[bins == b].sum()) for b in set(bins)) / 3

    exact = weight @ np.array([ece(w) for w in worlds])
    ev = evaluate(preds["p"], truth, "ECE(target=label)", rng=5, n_worlds=4000)
    row = ev.aggregate().iloc[0]
    assert row["method"] == "worlds"
    assert abs(row["value"] - exact) < 4 * row["mc_se"]


@pytest.mark.parametrize("target", ["label", "distribution"])
def test_ece_with_more_bins_than_items_keeps_only_the_occupied_bins(target):
    """With n_bins far above the number of items (10**15: a table of n_bins per world would not
    fit in memory), every item has a bin of its own, so ECE is the mean |correct - confidence|:
    over every truth (its worlds' mean, within the Monte Carlo error) or against the target's
    mass on the top class."""
    truth, preds, shares = small_case(3)
    q = preds["p"].scores
    conf, top = q.max(axis=1), q.argmax(axis=1)
    assert len(set(np.ceil(conf * 1e15).tolist())) == 3  # the items' bins differ
    ev = evaluate(preds["p"], truth, f"ECE(target={target},n_bins={10**15})", rng=5,
                  n_worlds=4000)
    row = ev.aggregate().iloc[0]
    if target == "distribution":
        assert row["value"] == pytest.approx(np.abs(shares[np.arange(3), top] - conf).mean())
        return
    worlds = list(itertools.product(range(3), repeat=3))
    weight = np.array([np.prod([shares[i, w[i]] for i in range(3)]) for w in worlds])
    exact = weight @ np.array([np.abs((top == np.array(w)) - conf).mean() for w in worlds])
    assert row["method"] == "worlds"
    assert abs(row["value"] - exact) < 4 * row["mc_se"]


def test_worlds_agree_with_the_exact_means():
    truth, preds, _ = small_case(4, n_items=6)
    ev = evaluate(preds, truth, ["Acc@2", "CE(target=label)"], rng=1, n_worlds=4000)
    for measure in ev.measures:
        exact = ev.query_means(measure)
        worlds = ev.world_scores(measure)
        se = worlds.std(axis=0) / np.sqrt(len(worlds)) + 1e-12
        assert (np.abs(worlds.mean(axis=0) - exact) < 4.5 * se).all()


@pytest.mark.parametrize("chunk_bytes", [1e-12, 1.0, 1e12])
def test_world_sums_do_not_depend_on_the_label_chunks(monkeypatch, chunk_bytes):
    """The aggregates' sums read labels drawn chunk by chunk (one chunk of every world, a few
    worlds, one world each): the numbers of the labels drawn whole and kept for the world
    scores, bit for bit at the same chunks, and to rounding at any others."""
    truth, preds, _ = small_case(6, n_items=30)
    measures = ["Acc", "CE(target=label)", "ECE(target=label)"]

    def run(keep_first):
        ev = evaluate(preds, truth, measures, method="worlds", rng=3, n_worlds=200,
                      memory_budget=20_000)
        if keep_first:
            ev.world_scores("Acc")  # draws every world's labels and keeps them
        return ev.aggregate()

    default = run(keep_first=False)
    monkeypatch.setattr(classifiers, "LABEL_CHUNK_BYTES", chunk_bytes)
    drawn = run(keep_first=False)
    pd.testing.assert_frame_equal(drawn, run(keep_first=True), check_exact=True)
    pd.testing.assert_frame_equal(drawn, default, check_exact=False, rtol=1e-12)
    assert (drawn["method"] == "worlds").all()


@pytest.mark.parametrize("budget", [20_000, 2**30])
def test_labels_in_one_chunk_are_drawn_once_for_the_sums_and_the_world_scores(budget):
    """An aggregate (sums over chunks of worlds) and then per-item world values read the same
    labels: when one chunk holds every world they are drawn once and kept (a reliability
    curve's human baseline drew them twice per temperature); in several chunks each chunk is
    drawn for the sums and the whole for the world values. The numbers are the same either
    way (keyed draws)."""
    truth, preds, _ = small_case(6, n_items=30)
    ev = evaluate(preds, truth, ["Acc", "CE(target=label)"], method="worlds", rng=3,
                  n_worlds=200, memory_budget=budget)
    calls = []
    draw = ev._worlds._draw
    ev._worlds._draw = lambda target, worlds: calls.append(len(worlds)) or draw(target, worlds)
    table = ev.aggregate()
    scores = ev.world_scores("Acc")
    if budget > 200 * 30 * classifiers.LABEL_CHUNK_BYTES:  # one chunk: drawn once
        assert calls == [200]
    else:  # chunks for the sums, then every world for the world values
        assert len(calls) > 2 and calls[-1] == 200
    fresh = evaluate(preds, truth, ["Acc", "CE(target=label)"], method="worlds", rng=3,
                     n_worlds=200, memory_budget=budget)
    np.testing.assert_array_equal(fresh.world_scores("Acc"), scores)
    pd.testing.assert_frame_equal(fresh.aggregate(), table, check_exact=True)


def test_label_distribution_and_top1_targets():
    """Three readings of one truth: a label drawn per world (its expectation: the mass of the
    top-k), the plausibility vector (the same expectation, a point), the argmax (deterministic
    aggregation)."""
    truth, preds, shares = small_case(5)
    q = preds["p"].scores
    ev = evaluate(preds["p"], truth, ["Acc", "Acc(target=distribution)", "Acc(target=top1)"],
                  rng=0, n_worlds=20)
    top = q.argmax(axis=1)
    mass = shares[np.arange(3), top]
    hit = (top == shares.argmax(axis=1)).astype(float)
    assert ev.query_means("Acc")[0] == pytest.approx(mass)
    assert ev.query_means("Acc(target=distribution)")[0] == pytest.approx(mass)
    assert ev.query_means("Acc(target=top1)")[0] == pytest.approx(hit)
    spread = ev.aggregate().set_index("measure")["truth_std"]
    assert spread["Acc"] > 0 and spread["Acc(target=distribution)"] == 0


def test_levels_count_a_prediction_where_it_meets_the_truth():
    tax = Taxonomy.from_nested({"all": {"low": ["l1", "l2"], "high": ["h1", "h2"]}})
    ann = Annotations.from_frame(pd.DataFrame({
        "item_id": ["x", "x", "y", "y", "z"], "annotator_id": ["a", "b", "a", "b", "a"],
        "label": ["l1", "l2", "h1", "h1", "high"]}), taxonomy=tax)
    classes = ["l1", "l2", "h1", "h2"]
    scores = np.array([[0.1, 0.6, 0.2, 0.1],   # x: l2 (half right; its group right)
                       [0.5, 0.1, 0.3, 0.1],   # y: l1 (wrong; group wrong); top-2 has h1
                       [0.1, 0.1, 0.2, 0.6]])  # z: h2, under the annotator's 'high'
    pred = Predictions(scores, items=["x", "y", "z"], classes=classes)
    ev = evaluate(pred, Membership.from_annotations(ann),
                  ["Acc", "Acc(level=1)", "Acc@2", "CE(level=1)"], rng=0)
    means = {m: ev.query_means(m)[0] for m in ev.measures}
    assert means["Acc"] == pytest.approx([0.5, 0.0, 1.0])
    assert means["Acc(level=1)"] == pytest.approx([1.0, 0.0, 1.0])
    assert means["Acc@2"] == pytest.approx([0.5, 1.0, 1.0])
    # risk-level distributions: x low (0.7 predicted), y high (0.4), z high (0.8)
    assert means["CE(level=1)"] == pytest.approx(-np.log([0.7, 0.4, 0.8]))
    with pytest.raises(ValueError, match=r"puts mass on 'high'.*set level="):
        evaluate(pred, Membership.from_annotations(ann), "CE", rng=0)


def test_acc_is_the_retrieval_engines_success_with_classes_as_documents():
    """The design observation, checked: an item is a query, its classes ranked by the scores
    are its results, a class document belongs to its class, the item's category is uncertain
    with weights p(class | item): Success@k and P@1 of the exact mixture are Acc@k and Acc."""
    truth, preds, shares = small_case(7, n_items=5)
    items = list(truth.items)
    docs = {f"doc:{c}": c for c in CLASSES}
    table = pd.DataFrame(np.vstack([shares, np.eye(3)]), index=items + list(docs),
                         columns=CLASSES)
    both = Membership.from_probabilities(table)
    q = preds["p"].scores
    run = Run(np.repeat(items, 3), np.tile(list(docs), len(items)), q.ravel(), name="p")
    retrieval = evaluate(run, both, ["P@1", "Success@2"], method="exact", n_worlds=0)
    ours = evaluate(preds["p"], truth, ["Acc", "Acc@2"], n_worlds=0)
    assert retrieval.query_means("P@1")[0] == pytest.approx(ours.query_means("Acc")[0])
    assert retrieval.query_means("Success@2")[0] == pytest.approx(ours.query_means("Acc@2")[0])


def test_dawid_skene_parameter_worlds_are_monte_carlo():
    rng = np.random.default_rng(0)
    rows = [(f"i{i}", f"a{a}", CLASSES[rng.integers(3)]) for i in range(40) for a in range(3)]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                             "label"]),
                                 taxonomy=Taxonomy.flat(CLASSES))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = DawidSkene().fit(ann)
    pred = Predictions(rng.dirichlet(np.ones(3), 40), items=[f"i{i}" for i in range(40)],
                       classes=CLASSES)
    ev = evaluate(pred, fit, ["Acc", "CE"], rng=0, n_worlds=100)
    assert set(ev.aggregate()["method"]) == {"worlds"}
    with pytest.raises(ValueError, match=r"method='exact': no exact law"):
        evaluate(pred, fit, "Acc", method="exact", rng=0)
    with pytest.raises(ValueError, match=r"n_worlds=0"):
        evaluate(pred, fit, "Acc", n_worlds=0)


def test_prirn_top1_is_the_argmax_of_each_plausibility_sample():
    r = Rankings.from_selectors([[[[0], [1]], [[1]]], [[[2]], [[0]], [[2], [1]]]],
                                classes=CLASSES)
    fit = PrIRN(temperature=3).fit(r)
    pred = Predictions([[0.2, 0.7, 0.1], [0.5, 0.1, 0.4]], items=[0, 1], classes=CLASSES)
    ev = evaluate(pred, fit, ["Acc(target=top1)"], rng=9, n_worlds=500)
    seed_free = fit.sample_plausibilities(500, seed=123).argmax(axis=2)  # independent draws
    expected = (seed_free == np.array([1, 0])).mean(axis=0)
    worlds = ev.world_scores("Acc(target=top1)")[:, 0, :]
    se = np.sqrt(expected * (1 - expected) / 500 * 2) + 1e-9
    assert (np.abs(worlds.mean(axis=0) - expected) < 4 * se).all()
    assert ev.method(pred.name, "Acc(target=top1)") == "worlds"
    irn = evaluate(pred, IRN().fit(r), ["Acc(target=top1)", "Acc"], n_worlds=0)
    assert irn.query_means("Acc(target=top1)")[0] == pytest.approx([1.0, 0.0])  # the argmax
    # IRN, item 0: a 1, b 0.5 + 1 (of 2.5): argmax b, the prediction's top; item 1: c 1 + 1,
    # a 1, b 0.5 (of 3.5): argmax c, the prediction's top is a
    assert irn.query_means("Acc")[0] == pytest.approx([1.5 / 2.5, 1 / 3.5])


def test_compare_has_the_three_estimands():
    rng = np.random.default_rng(2)
    items = [f"i{i:02d}" for i in range(30)]
    rows = [(i, f"a{a}", CLASSES[rng.integers(3)]) for i in items for a in range(4)]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                             "label"]),
                                 taxonomy=Taxonomy.flat(CLASSES))
    preds = {n: Predictions(rng.dirichlet(np.ones(3), 30), items=items, classes=CLASSES, name=n)
             for n in ("p", "q")}
    mem = Membership.from_annotations(ann)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collection = compare(evaluate(preds, mem, ["Acc", "CE"], rng=0, n_worlds=200), rng=0)
        population = compare(annotator_bootstrap(preds, ann, ["Acc", "CE"], n_resamples=30,
                                                 n_worlds=20, rng=0), rng=0)
        labels = dict(zip(items, ann.to_frame().groupby("item_id")["label"].first(),
                          strict=True))
        crisp = Qrels(list(labels), list(labels.values()), [1] * len(labels))
        items_only = compare(evaluate(preds, crisp, ["Acc"]), rng=0)
    assert set(collection.table["estimand"]) == {"collection"}
    assert set(population.table["estimand"]) == {"population"}
    assert set(items_only.table["estimand"]) == {"queries"}
    assert collection.table["n_worlds"].iloc[0] == 200
    # the reports count items, not queries, under every estimand
    for comparison in (collection, population, items_only):
        text = comparison.summary()
        assert comparison.unit == "items" and "30 items" in text
        assert "W/T/L: items on which" in text
        assert "queries" not in text.replace('estimand "queries"', "")  # the label stays
    # the population interval is wider than the collection's: annotators move too
    width = lambda t: (t["ci_high"] - t["ci_low"]).to_numpy()  # noqa: E731
    assert (width(population.table) > 0).all()


def test_human_baseline_scores_each_reader_against_the_others():
    """Hand derivation with IRN: item 0 readers rank (a), (b), (a then b); leaving out reader 0
    the others' IRN is b: 1 + 1/2 = 1.5 vs a: 1 -> b, so reader 0 (a) misses; reader 1 (b) vs
    IRN(a + a, b/2) -> a, miss; reader 2 (a first) vs a:1, b:1 tie -> a (first), hit."""
    r = Rankings.from_selectors([[[[0]], [[1]], [[0], [1]]]], classes=CLASSES)
    human = leave_one_annotator_out(r, ["Acc(target=top1)"], truth_model="irn", n_worlds=0)
    table = human.by_annotator().set_index("annotator_id")["value"]
    assert table.to_dict() == {"0": 0.0, "1": 0.0, "2": 1.0}
    assert human.summary()["value"].iloc[0] == pytest.approx(1 / 3)


def test_human_baseline_truth_interval_is_the_spread_of_each_worlds_mean_over_items():
    """The human baseline's truth_low / truth_high: in each of the truth's worlds, each item's
    human score (the mean over its annotators' pair scores) averaged over items, and the
    percentile interval of those world means; the sums by item computed here by pandas."""
    from fuzzytruth._resampling import percentile_interval

    rng = np.random.default_rng(4)
    selectors = [[[[int(c)]] for c in rng.integers(0, 3, rng.integers(2, 5))] for _ in range(12)]
    r = Rankings.from_selectors(selectors, classes=CLASSES)
    human = leave_one_annotator_out(r, ["Acc(target=top1)"], truth_model="prirn",
                                    n_worlds=40, rng=3)
    ev = human.evaluation
    worlds = ev.world_scores("Acc(target=top1)")[:, 0, :]  # (worlds, pairs)
    item = human.pairs.set_index("pair_id").loc[list(ev.queries), "item_id"].to_numpy()
    by_item = pd.DataFrame(worlds.T).groupby(item, sort=False).mean()  # (items, worlds)
    low, high = percentile_interval(by_item.mean(axis=0).to_numpy(), 0.95)
    row = human.summary(confidence_level=0.95).iloc[0]
    assert low < high
    assert row["truth_low"] == pytest.approx(low, abs=1e-12)
    assert row["truth_high"] == pytest.approx(high, abs=1e-12)


@pytest.mark.parametrize("method", ["summary", "by_annotator"])
def test_human_baseline_refuses_a_zero_confidence_level(method):
    """confidence_level=0 was replaced by the evaluation's level (``0 or 0.95``): the table
    said 0.95 and gave its interval, with no error for a level the other functions refuse."""
    r = Rankings.from_selectors([[[[0]], [[1]], [[0], [1]]], [[[2]], [[2]]]], classes=CLASSES)
    human = leave_one_annotator_out(r, ["Acc(target=top1)"], truth_model="irn", n_worlds=0,
                                    confidence_level=0.9)
    low = lambda *level: getattr(human, method)(*level)["ci_low"].to_numpy()  # noqa: E731
    assert np.array_equal(low(), low(0.9), equal_nan=True)
    assert not np.array_equal(low(), low(0.5), equal_nan=True)
    for level in (0, 0.0):
        with pytest.raises(ValueError, match=r"^confidence_level must be a number strictly "
                           r"between 0 and 1; got 0"):
            getattr(human, method)(level)


@pytest.mark.parametrize("temperatures", ["15", 5])
def test_reliability_curves_refuse_temperatures_that_are_not_a_sequence(temperatures):
    """temperatures="15" was iterated as the characters '1' and '5': curves at
    temperatures 1 and 5, without a word; a single number raised TypeError ('int' object is
    not iterable)."""
    r = Rankings.from_selectors([[[[0]], [[0], [1]]], [[[1]], [[2]]]], classes=CLASSES)
    net = Predictions([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]], items=[0, 1], classes=CLASSES)
    with pytest.raises(ValueError, match=r"^temperatures must be a sequence of numbers > 0; "
                       rf"got {temperatures!r}$"):
        reliability_curves(net, r, "Acc", temperatures=temperatures, n_worlds=10, rng=0)


def test_one_item_gives_no_interval_and_no_numpy_warning():
    # the certainty summary over one item sent numpy's "Degrees of freedom <= 0" and "invalid
    # value" RuntimeWarnings to the user (its t interval took the sd of one value); the
    # human baseline's truth interval took numpy's quantiles of one world, a zero-width spread
    r = Rankings.from_selectors([[[[0]], [[1]], [[0], [1]]]], classes=CLASSES)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = annotation_certainty(PrIRN(temperature=1).fit(r), k=1, n_worlds=50,
                                   rng=0).summary()
        human = leave_one_annotator_out(r, ["Acc(target=top1)"], truth_model="irn",
                                        n_worlds=0).summary()
    assert row["n_items"] == 1 and np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    assert human["ci_low"].isna().all() and human["ci_high"].isna().all()
    sampled = leave_one_annotator_out(r, ["Acc(target=top1)"], truth_model=PrIRN(temperature=1),
                                      n_worlds=1, rng=0)
    with pytest.warns(ResamplingResolutionWarning, match="1 replicate gives no"):
        one_world = sampled.summary()
    assert one_world[["truth_low", "truth_high"]].isna().all(axis=None)


def test_annotation_certainty_of_point_and_sampled_truths():
    r = Rankings.from_selectors([[[[0]], [[0]], [[1]]], [[[2]]]], classes=CLASSES)
    point = annotation_certainty(IRN().fit(r), k=1)
    assert point.certainty.tolist() == [1.0, 1.0] and point.n_worlds == 1
    sampled = annotation_certainty(PrIRN(temperature=1).fit(r), k=1, n_worlds=2000, rng=0)
    assert 0.5 < sampled.certainty.iloc[0] < 1.0
    assert sampled.mode.tolist() == ["a", "c"]
    assert sampled.frequencies.sum(axis=1).to_numpy() == pytest.approx(1.0)


def test_annotation_certainty_of_a_membership_ranks_the_labels_used_not_their_ancestors():
    """A Membership's node space is the whole taxonomy, the root "(any)" (an ancestor of every
    label, direct share 0) first: a rank-k slot that only zero shares can fill went to it, and
    to "mammal", which nobody chose. The classes are the labels used, as Shares' are.

    By hand: in taxonomy order (bird, cat, dog), x's direct shares are (0, 2/3, 1/3), y's
    (1, 0, 0); ties go to the earlier class. Rank 2: x -> dog, y -> cat (was "(any)"); rank
    3: x -> bird (was "(any)"), y -> dog; at level 1 both rank-2 classes lift to mammal (y's
    was "(any)"). A rank-4 class does not exist."""
    tax = Taxonomy.from_nested({"(any)": {"mammal": ["cat", "dog"], "bird": None}})
    df = pd.DataFrame({"item_id": ["x"] * 3 + ["y"] * 4, "annotator_id": list("abcabcd"),
                       "label": ["cat", "cat", "dog", "bird", "bird", "bird", "bird"]})
    ann = Annotations.from_frame(df, taxonomy=tax)
    membership = Membership.from_annotations(ann)
    expected = {2: [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]], 3: [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]}
    for k, frequencies in expected.items():
        result = annotation_certainty(membership, k=k)
        assert list(result.frequencies.columns) == ["bird", "cat", "dog"]
        assert result.frequencies.to_numpy().tolist() == frequencies
        pd.testing.assert_frame_equal(
            result.frequencies, annotation_certainty(Shares().fit(ann), k=k).frequencies)
    lifted = annotation_certainty(membership, k=2, level=1).frequencies
    assert lifted.to_dict("list") == {"mammal": [1.0, 1.0], "bird": [0.0, 0.0]}
    with pytest.raises(ValueError, match=r"^k must be at most the number of classes \(3\); "
                       r"got 4$"):
        annotation_certainty(membership, k=4)


# ---------------------------------------------------------------------------- errors
def test_annotation_certainty_summary_is_the_t_interval_over_the_items():
    """summary(): the mean certainty with scipy's t interval over the items; a point truth's
    one world is exact."""
    from scipy import stats

    r = Rankings.from_selectors([[[[0], [1]], [[1]]], [[[2]], [[0]], [[2], [1]]],
                                 [[[1]], [[1], [0]]]], classes=CLASSES)
    result = annotation_certainty(PrIRN(temperature=1).fit(r), k=1, n_worlds=500, rng=0)
    values = result.certainty.to_numpy()
    row = result.summary(confidence_level=0.9)
    low, high = stats.t.interval(0.9, len(values) - 1, loc=values.mean(),
                                 scale=stats.sem(values))
    assert row["measure"] == "certainty@1" and row["n_items"] == 3
    assert row["value"] == pytest.approx(values.mean(), abs=1e-15)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), rel=1e-9)
    assert row["method"] == "worlds" and row["n_worlds"] == 500
    point = annotation_certainty(IRN().fit(r), k=2, level=0).summary()
    assert point["measure"] == "certainty(level=0)@2" and point["method"] == "exact"


def test_errors_name_what_is_wrong():
    truth, preds, _ = small_case(0)
    p = preds["p"]
    with pytest.raises(ValueError, match=r"not nodes of the truth's taxonomy.*closest"):
        evaluate(Predictions(p.scores, items=list(p.items), classes=["a", "b", "cc"]), truth,
                 "Acc")
    scores = Predictions(p.scores * 3, items=list(p.items), classes=CLASSES, name="logits")
    with pytest.raises(ValueError, match=r"measure 'CE' reads predicted probabilities.*'logits'"):
        evaluate(scores, truth, "CE")
    evaluate(scores, truth, "Acc")  # scores rank classes: fine
    with pytest.raises(ValueError, match=r"measure 'AP' reads a ranked run"):
        evaluate(p, truth, "AP")
    with pytest.raises(ValueError, match=r"measure 'Acc' reads a classifier's predictions"):
        evaluate(Run(["i0"], ["i1"], [1.0]), truth, "Acc")
    with pytest.raises(ValueError, match=r"ties='first' applies to runs"):
        evaluate(p, truth, "Acc", ties="first")
    with pytest.raises(ValueError, match=r"n_docs_in_collection=10 applies to runs"):
        evaluate(p, truth, "Acc", n_docs_in_collection=10)
    extra = Predictions(np.vstack([p.scores, [[0.2, 0.3, 0.5]]]), items=[*p.items, "new"],
                        classes=CLASSES, name="p")
    with pytest.warns(UserWarning, match=r"the truth has no item 'new'.*1 item"):
        ev = evaluate(extra, truth, "Acc", n_worlds=0)
    assert ev.queries == ("i0", "i1", "i2")
    with pytest.raises(ValueError, match=r"no item 'new'.*missing='error'"):
        evaluate(extra, truth, "Acc", missing="error")
    short = Predictions(p.scores[:2], items=list(p.items)[:2], classes=CLASSES, name="short")
    with pytest.raises(ValueError, match=r"'short' have no row for 1 item.*same items"):
        evaluate({"p": p, "short": short}, truth, "Acc")
    with pytest.raises(ValueError, match=r"complete=True.*missing from the predictions: 'i2'"):
        evaluate(short, truth, "Acc", complete=True)
    with pytest.warns(UserWarning, match=r"^1 item\(s\) of the truth missing from the "
                      r"predictions: 'i2': not evaluated \(complete=False\)$"):
        ev = evaluate(short, truth, "Acc", n_worlds=0)
    assert ev.queries == ("i0", "i1")
    with pytest.raises(ValueError, match=r"a set-valued truth.*gives accuracy only"), \
            pytest.warns(UserWarning, match=r"no item 'i1', 'i2'"):
        evaluate(p, Qrels(["i0"], ["a"], [1]), "CE")


def test_exact_mean_keeps_its_digits_when_the_value_is_almost_never_defined():
    """The per-item mean given defined divided by 1 - P(undefined): with P(undefined) =
    1 - 1e-9 the difference kept half its digits (0.7 came out 0.70000006). Checked on a
    kernel undefined under label 0 (no built-in one is NaN under a single label)."""
    from types import SimpleNamespace

    def kernel(view, target, **params):
        return np.where(target.labels == 0, np.nan, 0.7)

    law = np.array([[1 - 1e-9, 1e-9], [0.5, 0.5], [1.0, 0.0]])
    batch = classifiers._exact(None, kernel, {}, SimpleNamespace(law=law), 1e9)
    mean, undefined = batch.mean(), batch.p_undefined
    assert mean[:2] == pytest.approx([0.7, 0.7], rel=1e-14) and np.isnan(mean[2])
    assert undefined.tolist() == [1 - 1e-9, 0.5, 1.0]


def test_a_statistic_undefined_in_every_world_aggregates_to_nan_without_warnings():
    """EntropyCorr of one-hot truths has no defined world (every truth's entropy is 0): under
    undefined="skip" the aggregate is NaN, and numpy's "Mean of empty slice" and "All-NaN
    slice" RuntimeWarnings used to leak from the reductions over the worlds."""
    items = [f"i{k}" for k in range(5)]
    truth = Membership.from_probabilities(
        pd.DataFrame(np.eye(3)[[0, 1, 2, 0, 1]], index=items, columns=CLASSES),
        taxonomy=Taxonomy.flat(CLASSES))
    p = Predictions([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.6, 0.2, 0.2],
                     [0.3, 0.4, 0.3]], items=items, classes=CLASSES)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        row = evaluate(p, truth, "EntropyCorr", undefined="skip", n_worlds=10,
                       rng=0).aggregate().iloc[0]
    assert np.isnan(row[["value", "truth_std", "truth_low", "truth_high"]].astype(float)).all()
    assert row["n_queries"] == 0


def test_the_exact_cross_entropy_split_over_threads_is_the_one_pass(monkeypatch):
    """The exact expected cross-entropy against one label drawn per item (one compiled pass
    over items x classes: CE(target=label) under shares) runs its
    items in slices on the kernels' threads when the pass is large: the same bits as one
    thread, with 3 threads (uneven slices), float32 predictions clipped at their epsilon; the
    pass is asserted to have been split."""
    from fuzzytruth import _threads

    rng = np.random.default_rng(3)
    n_items, n_classes = 2_101, 500  # 1.05 M cells: above the threshold
    classes = [f"c{j}" for j in range(n_classes)]
    items = [f"i{i}" for i in range(n_items)]
    law = rng.dirichlet(np.full(n_classes, 0.2), size=n_items)
    truth = Membership.from_probabilities(pd.DataFrame(law, index=items, columns=classes),
                                          taxonomy=Taxonomy.flat(classes))
    scores = rng.dirichlet(np.full(n_classes, 0.5), size=n_items)
    scores[0, 1] += scores[0, 0]
    scores[0, 0] = 0.0  # clipped at float32's epsilon
    scores = scores.astype(np.float32)
    net = Predictions(scores, items=items, classes=classes, name="net")
    assert n_items * n_classes >= _threads.THREADED_CELLS

    def values():
        ev = evaluate(net, truth, ["CE(target=label)"], n_worlds=0)
        assert ev.method("net", "CE(target=label)") == "exact"
        return ev.query_means("CE(target=label)")

    monkeypatch.setenv("FUZZYTRUTH_NUM_THREADS", "1")
    one = values()
    split = []
    pool = _threads.run_in_threads
    monkeypatch.setattr(_threads, "run_in_threads", lambda work, blocks, n_threads: (
        split.append(len(blocks)) or pool(work, blocks, n_threads=n_threads)))
    monkeypatch.setenv("FUZZYTRUTH_NUM_THREADS", "3")
    assert np.array_equal(values(), one)
    assert 3 in split
    eps = np.finfo(np.float32).eps  # scikit-learn's clip: [eps, 1 - eps] of the dtype
    clipped = np.clip(scores[0], eps, np.float32(1) - eps).astype(np.float64)
    assert clipped[0] == eps
    expected = -(law[0] * np.log(clipped)).sum()
    assert one[0, 0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("budget", [16.0 * 7, 128e6])  # a block of one group; all at once
def test_hard_groups_hold_the_classes_under_them(budget):
    """A class map's hard groups (the taxonomy nodes the truth's nodes lift to) hold the
    classes at or below each (positions, increasing): in blocks of groups sized from the
    memory budget, as the definition group by group."""
    from trees import ternary_tree

    from fuzzytruth.classify.targets import _members

    tax, _ = ternary_tree(3)
    rng = np.random.default_rng(5)
    classes = rng.permutation(len(tax))[:25]  # any nodes, leaves or not, in any order
    groups = np.sort(rng.choice(len(tax), 12, replace=False))
    got = _members(tax, classes, groups, memory_budget=budget)
    want = [np.flatnonzero([tax.is_under(c, g) for c in classes]) for g in groups]
    assert len(got) == len(groups) and any(len(m) > 1 for m in want)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
