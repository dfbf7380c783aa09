"""The annotator-population estimand: two-stage resampling, oracles and compare() output."""

import pickle
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from measure_variants import NO_CLOSED_FORM, refused, variants
from registry_families import package_families

from fuzzytruth import Annotations, Membership, Run, Taxonomy, evaluate
from fuzzytruth._resampling import BLOCK_RUNNER, BLOCKING
from fuzzytruth.classify import Predictions
from fuzzytruth.measures import families, family, get_preset, parse_measure
from fuzzytruth.stats import annotator_bootstrap, compare
from fuzzytruth.stats._annotator_resampling import AnnotatorResampler
from fuzzytruth.stats._population_replicates import (
    _fast_scores,
    _probe,
    plan_population,
    replicate_scores,
)
from fuzzytruth.stats.procedures import UnreliableInferenceWarning
from fuzzytruth.uncertain.worlds import kernel_params

TAX = Taxonomy.from_nested({"all": {"rel": None, "non": None}})


def labelled(shares: dict[str, list[str]], *, crossed: bool) -> Annotations:
    """Items with the given labels; annotators shared across items or fresh per item."""
    rows = [
        (item, (f"a{k}" if crossed else f"{item}-a{k}"), label)
        for item, labels in shares.items()
        for k, label in enumerate(labels)
    ]
    return Annotations.from_frame(
        pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), taxonomy=TAX
    )


def test_within_items_keeps_each_items_own_annotators_and_their_number():
    ann = labelled({"d1": ["rel", "non", "non"], "d2": ["rel", "rel"], "d3": ["non"] * 4},
                   crossed=False)
    resampler = AnnotatorResampler(ann)
    assert resampler.scheme == "within-items"
    mult = resampler.multiplicities(0, "within-items", np.arange(200))
    seen = {"d1": set(), "d2": set(), "d3": set()}
    for row in mult:
        frame = resampler.annotations(row).to_frame()
        sizes = frame.groupby("item_id").size()
        assert sizes.to_dict() == {"d1": 3, "d2": 2, "d3": 4}
        for item, group in frame.groupby("item_id"):
            seen[item].add(int((group["label"] == "rel").sum()))
    assert seen == {"d1": {0, 1, 2, 3}, "d2": {2}, "d3": {0}}  # Binomial(3, 1/3) support


def test_within_items_counts_follow_the_multinomial_law():
    # an item's n annotators drawn n times with replacement: each one's count is
    # Binomial(n, 1/n), so P(count = 0) = (1 - 1/n)^n; 4,000 keyed replicates, 5 SE bounds
    ann = labelled({"d1": ["rel", "non", "non", "rel"], "d2": ["rel", "non"]}, crossed=False)
    mult = AnnotatorResampler(ann).multiplicities(3, "within-items", np.arange(4000))
    for cols, n in ((slice(0, 4), 4), (slice(4, 6), 2)):
        p0 = (1 - 1 / n) ** n
        se = np.sqrt(p0 * (1 - p0) / 4000)
        assert np.abs((mult[:, cols] == 0).mean(axis=0) - p0).max() < 5 * se
        assert (mult[:, cols].sum(axis=1) == n).all()


def test_shared_draws_one_annotator_multiset_for_every_item():
    ann = labelled({"d1": ["rel", "non", "non"], "d2": ["rel", "non", "rel"]}, crossed=True)
    resampler = AnnotatorResampler(ann)
    assert resampler.scheme == "shared"
    for row in resampler.multiplicities(1, "shared", np.arange(50)):
        frame = resampler.annotations(row).to_frame()
        d1 = frame[frame["item_id"] == "d1"]
        d2 = frame[frame["item_id"] == "d2"]
        assert len(d1) == len(d2) == 3  # every annotator labelled every item
        # the same resampled annotators (copies named alike) label both items
        assert sorted(d1["annotator_id"]) == sorted(d2["annotator_id"])
        # annotator a0 says rel on both items, a1 non on both: the same draw on both items
        assert d1["label"].tolist().count("rel") <= d2["label"].tolist().count("rel")


def test_shared_item_with_no_drawn_annotator_keeps_its_labels():
    ann = Annotations.from_frame(pd.DataFrame({
        "item_id": ["d1", "d1", "d2"], "annotator_id": ["a", "b", "c"],
        "label": ["rel", "non", "rel"]}), taxonomy=TAX)
    mult = AnnotatorResampler(ann).multiplicities(2, "shared", np.arange(300))
    pool = mult.copy()
    nobody = mult[:, :2].sum(axis=1) == 0  # neither a nor b drawn: d1 keeps both
    assert not nobody.any()  # ... which the fallback makes impossible to observe
    drawn_c_only = (mult[:, 2] == 3)
    assert (pool[drawn_c_only, :2] == 1).all()
    assert drawn_c_only.any()  # P = 1/27 per replicate: about 11 of 300


def _by_pair(resampler: AnnotatorResampler, mult: np.ndarray) -> pd.DataFrame:
    """Multiplicities with (item, annotator) ids as columns."""
    ann = resampler.annotations_in
    cols = pd.MultiIndex.from_arrays([ann.items[resampler.pair_item],
                                      ann.annotators[resampler.pair_annot]])
    return pd.DataFrame(mult, columns=cols).sort_index(axis=1)


@pytest.mark.parametrize("scheme", ["within-items", "shared"])
def test_annotator_draws_are_keyed_by_replicate_item_and_slot(scheme):
    rows = [("d1", "a", "rel"), ("d1", "b", "non"), ("d2", "a", "rel"), ("d2", "c", "rel"),
            ("d2", "d", "non"), ("d3", "b", "non")]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    resampler = AnnotatorResampler(Annotations.from_frame(frame, taxonomy=TAX))
    whole = resampler.multiplicities(9, scheme, np.arange(20))
    assert (resampler.multiplicities(9, scheme, np.arange(5, 9)) == whole[5:9]).all()
    # neither the order of the rows nor of the items changes a pair's draws
    swapped = AnnotatorResampler(Annotations.from_frame(frame.iloc[::-1], taxonomy=TAX))
    assert swapped.annotations_in.to_frame()["item_id"].tolist() == sorted(frame["item_id"])
    again = swapped.multiplicities(9, scheme, np.arange(20))
    pd.testing.assert_frame_equal(_by_pair(swapped, again), _by_pair(resampler, whole))
    assert not (whole == whole[0]).all()  # the replicates differ


def _runs_and_labels(shares, crossed=False):
    """Three queries with fixed categories; each system ranks one document first."""
    docs = list(shares)
    order_a = docs[:3]
    order_b = docs[3:6]
    runs = {}
    for name, top in (("A", order_a), ("B", order_b)):
        rows = [(f"q{i}", d, 2.0 if d == top[i] else 1.0 - 0.01 * j)
                for i in range(3) for j, d in enumerate(docs)]
        runs[name] = Run(*map(list, zip(*rows, strict=True)), name=name)
    ann = labelled(shares, crossed=crossed)
    return runs, ann, {f"q{i}": "rel" for i in range(3)}


def test_annotators_only_variance_matches_the_binomial_oracle():
    # P@1 of each query is the share of "rel" labels of its top document. Resampling the
    # 4 labels of a document with share p gives Bin(4, p) / 4: the annotators-only mean over
    # 3 queries has variance sum p(1 - p) / 4 / 9.
    shares = {"d1": ["rel", "non", "non", "non"], "d2": ["rel", "rel", "non", "non"],
              "d3": ["rel", "rel", "rel", "non"], "e1": ["rel"] * 4, "e2": ["non"] * 4,
              "e3": ["rel"] * 4}
    runs, ann, cats = _runs_and_labels(shares)
    pop = annotator_bootstrap(runs, ann, "P@1", n_resamples=200, query_categories=cats,
                              n_worlds=1000, annotators="within-items", rng=3)
    p = np.array([0.25, 0.5, 0.75])
    expected_var = (p * (1 - p)).sum() / 4 / 9
    only = pop.annotators_only["P@1"]
    assert only[:, 0].var(ddof=1) == pytest.approx(expected_var, rel=0.25)
    assert only[:, 1].var() == pytest.approx(0.0, abs=1e-4)  # unanimous labels: no spread
    assert pop.scores["P@1"].values[0] == pytest.approx([0.25, 0.5, 0.75], abs=0.03)


def test_a_population_bootstrap_whose_replicates_cannot_fit_is_refused_before_drawing():
    # per replicate and measure, (S,) means twice and (S, S) second moments are kept: 40
    # systems at B = 10**8 is 1.3 TB, which the blocks would have filled until killed
    from fuzzytruth._validation import physical_memory

    if physical_memory() is None:
        pytest.skip("the physical memory is unknown here: nothing to compare with")
    shares = {d: ["rel", "non"] for d in ("d1", "d2", "d3", "e1", "e2", "e3")}
    runs, ann, cats = _runs_and_labels(shares)
    many = {f"S{i}": runs["A"] for i in range(40)}
    with pytest.raises(ValueError, match=r"n_resamples=100000000 would keep 1\.34 TB of "
                                         r"resampled values \(13440 bytes per resample\)"):
        annotator_bootstrap(many, ann, "P@1", n_resamples=10**8, query_categories=cats,
                            n_worlds=10, rng=0)


def test_truth_share_is_zero_when_the_labels_cannot_move_the_scores():
    shares = {d: ["rel"] * 3 if d.startswith("d") else ["non"] * 3
              for d in ("d1", "d2", "d3", "e1", "e2", "e3")}
    shares["e1"] = ["rel", "rel", "rel"]
    runs, ann, cats = _runs_and_labels(shares)
    pop = annotator_bootstrap(runs, ann, "P@1", n_resamples=40, query_categories=cats,
                              n_worlds=50, annotators="within-items", rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableInferenceWarning)
        table = compare(pop, method="percentile", n_resamples=40).table
    assert table.loc[0, "estimand"] == "population"
    assert table.loc[0, "share_truth"] == pytest.approx(0.0, abs=1e-12)
    # A scores 1 on every query, B only on q0: they tie exactly in the replicates that draw
    # q0 alone (probability 1/27 each), and A is better in all the others
    counts = pop._counts.rows(np.arange(pop.n_resamples))
    tie = (counts[:, 1:] == 0).all(axis=1).mean()
    assert table.loc[0, "prob_tie"] == pytest.approx(tie)
    assert table.loc[0, "prob_a_better"] == pytest.approx(1 - tie)


def test_compare_population_table_and_errors():
    shares = {"d1": ["rel", "non", "non"], "d2": ["rel", "rel", "non"],
              "d3": ["rel", "rel", "rel"], "e1": ["non", "non", "rel"],
              "e2": ["non", "non", "non"], "e3": ["rel", "non", "non"]}
    runs, ann, cats = _runs_and_labels(shares, crossed=True)
    with pytest.warns(UnreliableInferenceWarning, match="only 3 annotators shared"):
        pop = annotator_bootstrap(runs, ann, ["P@1", "P@2"], n_resamples=60,
                                  query_categories=cats, n_worlds=100, rng=1)
    assert pop.annotators == "shared"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableInferenceWarning)
        res = compare(pop, method="bootstrap", n_resamples=60)
        again = compare(pop, method="bootstrap", n_resamples=60)
    pd.testing.assert_frame_equal(res.table, again.table)
    t = res.table
    assert (t["estimand"] == "population").all() and t["measure"].tolist() == ["P@1", "P@2"]
    assert (t["interval"] == "studentized").all()
    assert ((0 <= t["prob_a_better"]) & (t["prob_a_better"] <= 1)).all()
    assert np.allclose(t["var_queries"] + t["var_truth"],
                       [np.var(pop.replicates[m][:, 0] - pop.replicates[m][:, 1], ddof=1)
                        for m in ("P@1", "P@2")])
    assert (res.systems["estimand"] == "population").all()
    default = compare(pop)  # the percentile interval by default for this estimand
    assert (default.table["interval"] == "percentile").all()
    # the replicates' seed is the one given to annotator_bootstrap, recorded on its result
    assert pop.seed == 1 and default.draws == {"replicates": 1}
    with pytest.raises(ValueError, match=r"method must be one of \['percentile', 'bootstrap', "
                                         r"'basic'\] for the annotator population"):
        compare(pop, method="bca")
    with pytest.raises(ValueError, match=r"annotators must be one of \['auto', 'shared', "
                                         r"'within-items'\]; got 'items'"):
        annotator_bootstrap(runs, ann, "P@1", annotators="items")


# ---------------------------------------------------------------------------------------------
# the fast path (replicates computed together) against the general path (one evaluate() each)

TREE = Taxonomy.from_nested({"all": {"animal": ["cat", "dog"], "thing": ["car", "cup"]}})
NODES = ["animal", "cat", "dog", "thing", "car", "cup"]
#: one measure (or more) of every family with an exact form, defaults and options
EXACT_MEASURES = ["P@5", "P", "R@5", "R", "Success@3", "RR", "RR@4", "F@5", "E(beta=2)@5",
                  "NumNonrelJudgedRet", "Utility(a=2,b=-1)", "NumQ", "NumRet", "NumRel",
                  "NumRelRet", "Judged@5", "Unjudged@5", "RBPResidual(p=0.8)@10"]


def _collection(crossed: bool, seed: int = 0):
    """30 items labelled in a two-level tree (inner nodes too, some votes split between two
    labels), by 2-5 fresh annotators each or by subsets of 6 shared ones (two of them
    weighted); queries with a given category (a leaf, an inner node, the root) or their own
    uncertain one; two systems with lists of 6-14 items, B without a list for one query."""
    rng = np.random.default_rng(seed)
    items = [f"i{k}" for k in range(30)]
    rows = []
    for item in items:
        who = (rng.choice(6, size=rng.integers(3, 7), replace=False) if crossed
               else range(rng.integers(2, 6)))
        for a in who:
            annotator = f"a{a}" if crossed else f"{item}-a{a}"
            for label in rng.choice(NODES, size=1 + (rng.random() < 0.15), replace=False):
                rows.append((item, annotator, label))
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    ann = Annotations.from_frame(frame, taxonomy=TREE, duplicates="split",
                                 annotator_weights={"a0": 2.0, "a1": 0.5} if crossed else None)
    queries = ["i0", "i1", "i2", "i3", "x1", "x2", "x3"]
    cats = {"x1": "cat", "x2": "animal", "x3": "all"}
    runs = {}
    for name in ("A", "B"):
        qs, ds, ss = [], [], []
        for q in queries if name == "A" else queries[:-1]:
            n = int(rng.integers(6, 15))
            docs = rng.choice(items, size=n, replace=False)
            qs += [q] * n
            ds += list(docs)
            ss += list(rng.permutation(n).astype(float))
        runs[name] = Run(qs, ds, ss, name=name)
    return runs, ann, cats


def _paths_agree(plan, start: int, stop: int, shape: tuple) -> dict[str, np.ndarray]:
    """Replicates ``start .. stop - 1`` by the plan's paths and by one evaluate() each: the
    same scores within 1e-12 for every measure (returned: the plan's)."""
    fast = replicate_scores(plan, start, stop)
    general = replicate_scores(plan, start, stop, fast=False)
    for m in plan.measures:
        assert fast[m].shape == shape
        np.testing.assert_allclose(fast[m], general[m], rtol=0, atol=1e-12, err_msg=m)
    return fast


def _moved(scores: dict[str, np.ndarray], measures) -> list[str]:
    """The measures whose scores move between replicates (the labels reach them)."""
    return [m for m in measures if np.ptp(scores[m], axis=0).max() > 1e-9]


def test_every_family_with_an_exact_form_is_in_the_equality_test():
    # the built-in ones: other tests register families of their own (test_one_definition)
    covered = {parse_measure(m).family.name for m in EXACT_MEASURES}
    assert covered == {f for f in families() if family(f).exact is not None
                       and family(f).exact.__module__.startswith("fuzzytruth.")}


def test_recall_replicates_read_the_share_groups_not_an_items_table():
    # the exact recall's mean reads the relevant documents outside the top k grouped by share;
    # the (replicate, component, item) table of them is read by F and E only, and sizes the
    # blocks only then (built for every recall, 1,000 replicates of the deep design of
    # benchmarks/population.py took 13.5 s wall instead of 3.5 s, in blocks six times smaller)
    # (P, Success, RR and that mean read only the ranks that may hold a relevant document)
    reads = {m: _probe(parse_measure(m))[1:] for m in ("R@5", "R", "P@5", "RR", "Success@3",
                                                       "F@5", "E@5", "NumRelRet")}
    assert reads == {"R@5": (False, True, False), "R": (False, True, False),
                     "P@5": (False, False, False), "RR": (False, False, False),
                     "Success@3": (False, False, False), "F@5": (True, False, True),
                     "E@5": (True, False, True), "NumRelRet": (False, False, True)}
    runs, ann, cats = _collection(False)
    plan = plan_population(runs, AnnotatorResampler(ann), ["P@5", "R@5", "R", "RR"],
                           scheme="within-items", seed=5, query_categories=cats, n_worlds=0,
                           memory_budget=64e6)
    assert plan.fast == plan.measures and not plan.reads_rest and plan.reads_groups


def test_lists_of_the_whole_collection_read_only_the_ranks_holding_a_cell():
    # every item ranked for every query: the means of P, Success, RR and the recall read the
    # ranks whose item has a label at or below the component's node (the others have share 0
    # in every replicate), and the blocks are sized from those; the numbers are the general
    # path's, and NumRelRet (every rank) sizes the blocks from the whole lists again
    _, ann, cats = _collection(False, seed=2)
    items = list(ann.items)
    rng = np.random.default_rng(3)
    whole = {name: Run(np.repeat(["i0", "i4", "x1", "x2"], len(items)),
                       np.concatenate([rng.permutation(items) for _ in range(4)]),
                       np.tile(np.arange(len(items), 0, -1.0), 4), name=name)
             for name in ("A", "B")}
    measures = ["P@5", "P", "Success@3", "RR", "RR@4", "R@5", "R"]
    plan = plan_population(whole, AnnotatorResampler(ann), measures, scheme="within-items",
                           seed=5, query_categories=cats, n_worlds=20, memory_budget=64e6)
    assert plan.fast == plan.measures and not plan.reads_ranks
    cells, ranks = plan.geometry.hit_cells(0, None)
    assert cells.shape[1] < len(items) - 1  # fewer ranks than the lists hold are read
    assert (np.diff(ranks, axis=1) >= 0).all()  # in rank order, the padding past the lists
    _paths_agree(plan, 0, 8, (8, 2, 4))
    every = plan_population(whole, AnnotatorResampler(ann), [*measures, "NumRelRet"],
                            scheme="within-items", seed=5, query_categories=cats, n_worlds=20,
                            memory_budget=64e6)
    assert every.reads_ranks and every.bytes_per_replicate() > plan.bytes_per_replicate()


@pytest.mark.parametrize(("crossed", "scheme"), [(False, "within-items"), (True, "shared"),
                                                 (True, "within-items")])
def test_fast_path_equals_the_general_path_on_the_same_replicates(crossed, scheme):
    runs, ann, cats = _collection(crossed)
    resampler = AnnotatorResampler(ann)
    assert resampler.scheme == ("shared" if crossed else "within-items")
    plan = plan_population(runs, resampler, [*EXACT_MEASURES, "AP", "nDCG@5"], scheme=scheme,
                           seed=5, query_categories=cats, n_worlds=20, memory_budget=64e6)
    assert plan.fast == plan.measures[:-2] and plan.reads_rest
    fast = _paths_agree(plan, 3, 15, (12, 2, 7))
    moved = np.ptp(fast["P@5"], axis=0)  # the labels move the scores between replicates
    assert (moved > 0).sum() >= 4


@pytest.mark.parametrize("crossed", [False, True])
def test_fast_path_on_the_labels_as_given_is_the_evaluation(crossed):
    # every pair counted once: the fast path's shares and mixtures are Membership's and
    # evaluate()'s own (exact forms, direct-share mixtures, the query left out of its list)
    runs, ann, cats = _collection(crossed, seed=1)
    resampler = AnnotatorResampler(ann)
    plan = plan_population(runs, resampler, EXACT_MEASURES, scheme=resampler.scheme, seed=0,
                           query_categories=cats, n_worlds=0, memory_budget=64e6)
    once = _fast_scores(plan, np.ones((1, resampler.n_pairs)), plan.fast)
    ev = evaluate(runs, Membership.from_annotations(ann), EXACT_MEASURES,
                  query_categories=cats, n_worlds=0)
    assert plan.fast == ev.measures
    for m in plan.fast:
        np.testing.assert_allclose(once[m][0], ev.query_means(m), rtol=0, atol=1e-12,
                                   err_msg=m)


def test_a_refitted_truth_model_takes_the_general_path():
    runs, ann, cats = _collection(False)
    resampler = AnnotatorResampler(ann)
    calls = []

    def shares(annotations):
        calls.append(annotations.n_annotators)
        return Membership.from_annotations(annotations)

    plan = plan_population(runs, resampler, ["P@5"], scheme="within-items", seed=2,
                           query_categories=cats, n_worlds=10, memory_budget=64e6,
                           membership_of=shares)
    assert plan.fast == ()
    refit = replicate_scores(plan, 0, 4)
    assert len(calls) == 4
    fast = replicate_scores(replace(plan, fast=("P@5",), membership_of=None,
                                    geometry=_geometry_of(runs, ann, cats)), 0, 4)
    np.testing.assert_allclose(refit["P@5"], fast["P@5"], rtol=0, atol=1e-12)


def test_a_refitted_model_warns_of_the_observed_labels_once():
    """A model's warnings about the collection (one-coin: annotators who labelled one item,
    here every annotator, fresh per item) come from the fit of the observed labels, once;
    the replicates' refits repeat nothing (they were all swallowed before)."""
    runs, ann, cats = _collection(False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        annotator_bootstrap(runs, ann, ["P@5"], truth_model="one-coin", n_resamples=4,
                            query_categories=cats, n_worlds=5, rng=0, progress=False)
    said = [str(w.message) for w in caught if "labelled a single item" in str(w.message)]
    assert len(said) == 1
    assert f"{ann.n_annotators} of {ann.n_annotators} annotators" in said[0]
    assert caught[[str(w.message) for w in caught].index(said[0])].filename == __file__


def _geometry_of(runs, ann, cats):
    resampler = AnnotatorResampler(ann)
    return plan_population(runs, resampler, ["P@5"], scheme="within-items", seed=2,
                           query_categories=cats, n_worlds=10, memory_budget=64e6).geometry


def test_population_defaults_are_the_same_in_any_blocks_and_on_a_runner():
    runs, ann, cats = _collection(True, seed=2)
    with pytest.warns(UnreliableInferenceWarning, match="only 6 annotators shared"):
        whole = annotator_bootstrap(runs, ann, ["P@5", "R@5", "RR", "AP"], n_resamples=30,
                                    query_categories=cats, n_worlds=20, rng=4)
    assert whole.annotators == "shared"
    token = BLOCKING.set((7, 1))
    shipped = []

    def runner(kernel, shared, blocks):  # as a cluster would: the plan pickled, any order
        shipped.append(len(pickle.dumps(shared)))
        return [kernel(pickle.loads(pickle.dumps(shared)), a, b) for a, b in blocks[::-1]][::-1]

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnreliableInferenceWarning)
            blocked = annotator_bootstrap(runs, ann, ["P@5", "R@5", "RR", "AP"], n_resamples=30,
                                          query_categories=cats, n_worlds=20, rng=4)
            runner_token = BLOCK_RUNNER.set(runner)
            try:
                remote = annotator_bootstrap(runs, ann, ["P@5", "R@5", "RR", "AP"], n_resamples=30,
                                             query_categories=cats, n_worlds=20, rng=4)
            finally:
                BLOCK_RUNNER.reset(runner_token)
    finally:
        BLOCKING.reset(token)
    assert shipped
    for pop in (blocked, remote):
        for m in ("P@5", "R@5", "RR", "AP"):
            assert (pop.replicates[m] == whole.replicates[m]).all()
            assert (pop.annotators_only[m] == whole.annotators_only[m]).all()


@pytest.mark.parametrize("dense", [0, 64])
def test_share_groups_code_every_share_and_count_them_by_node(dense):
    from fuzzytruth.stats._population_replicates import _share_groups

    rng = np.random.default_rng(4)
    shares = rng.integers(0, 6, (4, 30)) / 5.0  # 30 cells of 3 nodes, 4 replicates
    shares[1:] = np.where(rng.random((3, 30)) < 0.3, 1 / 3, shares[1:])  # not in replicate 0
    cell_col = rng.integers(0, 3, 30)
    groups = _share_groups(shares, cell_col, 3, dense)  # 5 shares: sparse, then written out
    inner = np.unique(shares[(shares > 0) & (shares < 1)])
    assert np.array_equal(groups.values, inner)
    kept = groups.column >= 0
    assert np.array_equal(kept, (shares > 0) & (shares < 1))
    assert np.array_equal(groups.values[groups.column[kept]], shares[kept])
    brute = np.array([[[((shares[r] == v) & (cell_col == n)).sum() for v in inner]
                       for n in range(3)] for r in range(4)])
    assert isinstance(groups.counts, np.ndarray) == (dense > 0)
    counts = groups.counts if dense else groups.counts.toarray()
    assert np.array_equal(counts, brute.reshape(12, len(inner)))
    ones = np.array([[((shares[r] == 1) & (cell_col == n)).sum() for n in range(3)]
                     for r in range(4)])
    assert np.array_equal(groups.certain, ones) and ones.sum() > 0


def _variants_with_an_exact_form() -> list[str]:
    """Every parameter variant (tests/measure_variants.py) of every package family with an
    exact form."""
    return [str(m) for name, fam in package_families().items() if fam.exact is not None
            for m in variants(name, fam)]


def _tied(runs: dict[str, Run]) -> dict[str, Run]:
    """The runs with their scores halved and floored: documents tied in pairs (every ranked
    document must be an item of a categorical membership: none is unjudged)."""
    return {name: Run(run.query_ids, run.doc_ids, np.floor(run.scores / 2), name=name)
            for name, run in runs.items()}


@pytest.mark.parametrize(("crossed", "scheme"), [(False, "within-items"), (True, "shared")])
def test_fast_path_equals_the_general_path_for_every_parameter_variant(crossed, scheme):
    # the variants the exact form covers (_probe) take the fast path, and give the numbers of
    # one evaluate() per replicate; those it does not cover (Utility with c != d) take the
    # general path, and give its numbers too
    runs, ann, cats = _collection(crossed, seed=3)
    measures = _variants_with_an_exact_form()
    plan = plan_population(_tied(runs), AnnotatorResampler(ann), measures,
                           scheme=scheme, seed=7, query_categories=cats, n_worlds=20,
                           memory_budget=64e6)
    preset = get_preset("trec")
    rejected = {str(m) for m in map(parse_measure, plan.measures)
                if NO_CLOSED_FORM.get(m.name, lambda _: False)(kernel_params(m.resolve(preset)))}
    assert rejected and set(plan.fast) == set(plan.measures) - rejected
    assert all(not _probe(plan.resolved[m])[0] for m in rejected)
    fast = _paths_agree(plan, 2, 8, (6, 2, 7))
    # the labels move most variants' scores between replicates (not those of rel=2, rel=3:
    # categorical memberships have grade 1; nor NumQ, NumRet, Judged, Unjudged: every ranked
    # document is an item, judged)
    assert len(_moved(fast, plan.measures)) > len(plan.measures) // 2


def _variants_without_an_exact_form() -> list[str]:
    """Every parameter variant of every package family without an exact form."""
    return [m for name, fam in package_families().items() if fam.exact is None
            for m in variants(name, fam)]


@pytest.mark.filterwarnings("ignore:1 system.s. answer only some")
def test_stacked_worlds_equal_one_evaluation_per_replicate_for_every_family():
    # the measures without an exact form (and the variants an exact form does not cover)
    # run on the block's replicates stacked on one world axis; each replicate's scores are
    # those of its own evaluate() on its written-out labels, worlds keyed alike (nested
    # annotators here; the crossed design's AP and nDCG in
    # test_fast_path_equals_the_general_path_on_the_same_replicates)
    runs, ann, cats = _collection(False, seed=4)
    measures = _variants_without_an_exact_form()
    refusals = refused(measures, lambda ms: evaluate(
        _tied(runs), Membership.from_annotations(ann), ms, query_categories=cats, n_worlds=2))
    # parameters that conflict (b without discount='jk'), a grade scale below the grade 1
    assert all("applies to" in why or "above gmax" in why for why in refusals.values())
    measures = [str(m) for m in measures if str(m) not in refusals]
    plan = plan_population(_tied(runs), AnnotatorResampler(ann),
                           [*measures, "Utility(c=1)", "P@5"], scheme="within-items", seed=3,
                           query_categories=cats, n_worlds=8, memory_budget=64e6)
    assert plan.fast == ("P@5",) and set(plan.stacked) == set(plan.measures) - {"P@5"}
    stacked = _paths_agree(plan, 1, 5, (4, 2, 7))
    assert len(_moved(stacked, plan.stacked)) > len(plan.stacked) // 2


def test_stacked_worlds_are_each_replicates_own_worlds_in_any_block():
    # a replicate's world values do not depend on the block it is stacked in, nor on the
    # memory budget that cuts the stacked axis into chunks
    runs, ann, cats = _collection(False, seed=5)
    plan = plan_population(runs, AnnotatorResampler(ann), ["AP", "nDCG@5"],
                           scheme="within-items", seed=9, query_categories=cats,
                           n_worlds=30, memory_budget=64e6)
    whole = replicate_scores(plan, 0, 6)
    small = replace(plan, memory_budget=2e4)
    parts = [replicate_scores(small, a, b) for a, b in ((0, 1), (1, 4), (4, 6))]
    for m in plan.measures:
        assert np.array_equal(np.concatenate([p[m] for p in parts]), whole[m])


def test_literal_weights_and_refitted_models_do_not_stack_worlds():
    # a target drawn from literal weights is keyed by the truth's own seed: such worlds cannot
    # be stacked (the sampler refuses), and a refitted model's membership is not the shares
    from fuzzytruth.truth.protocol import as_truth

    runs, ann, cats = _collection(False)
    bound = as_truth(Membership.from_annotations(ann), weights="literal")
    worlds = bound.prepare(np.array(["i0", "i1"], dtype=object)).worlds("annotator")
    assert worlds.draws_targets
    with pytest.raises(ValueError, match="no target drawn"):
        worlds.drawing_from(None)
    plan = plan_population(runs, AnnotatorResampler(ann), ["AP"], scheme="within-items",
                           seed=2, query_categories=cats, n_worlds=5, memory_budget=64e6,
                           membership_of=Membership.from_annotations)
    assert plan.stacked == () and plan.worlds is None


def test_stacked_label_tables_draw_each_memberships_own_labels():
    # two label tables of the same items, one a reweighting of the other with some labels at
    # share 0 (in the middle of an item's labels, too): the stacked draws are each
    # membership's sample_labels under its own seed, world by world
    from fuzzytruth._order import name_order, ranks
    from fuzzytruth._random import draw_seed, unit_keys
    from fuzzytruth.truth.categorical_worlds import StackedLabelTables, sample_labels

    ann = _collection(False, seed=6)[1]
    resampler = AnnotatorResampler(ann)
    mult = resampler.multiplicities(11, "within-items", np.arange(2))
    members = [Membership.from_annotations(resampler.annotations(m)) for m in mult]
    dropped = (members[0].direct == 0) & (members[1].direct > 0)
    assert dropped.any()
    rank = ranks(name_order(members[0].categories))
    union = (members[0].direct > 0) | (members[1].direct > 0)
    width = int(union.sum(axis=1).max())
    labels = np.zeros((len(members[0].items), width), dtype=np.int16)
    shares = np.zeros((2, *labels.shape))
    for i, row in enumerate(union):
        nodes = np.flatnonzero(row)
        nodes = nodes[np.argsort(rank[nodes])]
        labels[i, : len(nodes)] = nodes
        for t in range(2):
            shares[t, i, : len(nodes)] = members[t].direct[i, nodes]
    tables = StackedLabelTables(unit_keys(np.asarray(members[0].items)), labels, shares,
                                [draw_seed(20), draw_seed(21)], 50, padding=len(rank))
    drawn = tables.draw(0, np.arange(100))
    for t in range(2):
        expected = sample_labels(members[t], 50, rng=20 + t).T
        assert np.array_equal(drawn[:, 50 * t : 50 * (t + 1)], expected)
    assert np.array_equal(tables.draw(0, np.arange(40, 70)), drawn[:, 40:70])


CLASS_TREE = Taxonomy.from_nested({"all": {"g1": ["a", "b"], "g2": ["c", "d"]}})


def _classifiers(crossed: bool, seed: int = 0):
    """25 items labelled with leaves (and now and then the inner node g1) by 2-5 fresh
    annotators each, or by subsets of 6 shared ones; two classifiers' probabilities over the
    four leaves, with ties at the top, zeros and a one-hot row; one more item that no
    classifier scores."""
    rng = np.random.default_rng(seed)
    items = [f"i{k}" for k in range(26)]
    rows = []
    for item in items:
        who = (rng.choice(6, size=rng.integers(2, 6), replace=False) if crossed
               else range(rng.integers(2, 6)))
        law = rng.dirichlet(np.full(5, 0.6))
        for a in who:
            label = rng.choice(["a", "b", "c", "d", "g1"], p=law)
            rows.append((item, f"a{a}" if crossed else f"{item}-a{a}", label))
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]),
                                 taxonomy=CLASS_TREE)
    systems = {}
    for name in ("A", "B"):
        p = rng.dirichlet(np.ones(4), size=25)
        p[0] = [0.4, 0.4, 0.2, 0.0]  # tied at the top, a zero
        p[1] = [0.0, 1.0, 0.0, 0.0]  # one-hot
        systems[name] = Predictions(p, items=items[:25], classes=["a", "b", "c", "d"],
                                    name=name)
    return systems, ann


@pytest.mark.filterwarnings("ignore:1 item.s. of the truth missing")
@pytest.mark.parametrize(("crossed", "scheme", "families"),
                         [(True, "shared", "all"), (False, "within-items", "Acc,CE,ECE")])
def test_classifier_means_equal_one_evaluation_per_replicate_for_every_family(crossed, scheme,
                                                                               families):
    # every classifier family, with its parameters, takes its exact means or its point values
    # on the block's shares where it needs no worlds, or one evaluate() per replicate; all
    # give the numbers of that evaluation, replicate by replicate
    from registry_families import classifier_families

    systems, ann = _classifiers(crossed, seed=1)
    truth = Membership.from_annotations(ann)
    measures = [m for name, fam in classifier_families().items()
                if families == "all" or name in families.split(",") for m in variants(name, fam)]
    refusals = refused(measures, lambda ms: evaluate(systems, truth, ms, n_worlds=2))
    measures = [str(m) for m in measures if str(m) not in refusals]
    observed = evaluate(systems, truth, measures, n_worlds=2)
    plan = plan_population(systems, AnnotatorResampler(ann), measures, scheme=scheme, seed=4,
                           query_categories=None, n_worlds=10, memory_budget=64e6,
                           observed=(observed.systems, observed.queries))
    # what needs no worlds: the per-item families against the label (exact), everything
    # against the shares or their top class (points, the collection statistics too); the
    # collection statistics against the label draw worlds
    general = set(plan.measures) - set(plan.classes.plans)
    assert general and not any(plan.resolved[m].family.per_item for m in general)
    assert {p.method for p in plan.classes.plans.values()} == {"exact", "point"}
    without_worlds = set(plan.classes.plans)
    fast = _paths_agree(plan, 1, 6, (5, 2, 25))
    assert len(_moved(fast, without_worlds)) > len(without_worlds) // 2


def test_stacked_worlds_on_a_dag_equal_one_evaluation_per_replicate():
    # labels under two parents (ab, and x below it): the stacked worlds read the ancestors of
    # each drawn label as evaluate() does, the sizes of the targets a and ab too
    tax = Taxonomy.from_edges([("all", "a"), ("all", "b"), ("a", "ab"), ("b", "ab"),
                               ("a", "a1"), ("b", "b1"), ("ab", "x")])
    rng = np.random.default_rng(0)
    items = [f"i{k}" for k in range(40)]
    rows = [(i, f"{i}-{a}", rng.choice(["ab", "x", "a1", "b1", "a", "b"]))
            for i in items for a in range(rng.integers(2, 5))]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                             "label"]), taxonomy=tax)
    queries = ["i0", "i1", "i2", "q1", "q2"]
    runs = {n: Run(np.repeat(queries, 15),
                   np.concatenate([rng.choice(items, 15, replace=False) for _ in queries]),
                   np.tile(np.arange(15.0, 0, -1), 5), name=n) for n in "AB"}
    plan = plan_population(runs, AnnotatorResampler(ann), ["AP", "nDCG@5", "Rprec", "nDCG"],
                           scheme="within-items", seed=1, query_categories={"q1": "a",
                                                                            "q2": "ab"},
                           n_worlds=30, memory_budget=64e6)
    assert plan.stacked == plan.measures
    stacked = _paths_agree(plan, 0, 8, (8, 2, 5))
    assert _moved(stacked, plan.measures) == list(plan.measures)


@pytest.mark.filterwarnings("ignore::fuzzytruth.stats.procedures.UnreliableInferenceWarning")
@pytest.mark.filterwarnings("ignore:1 (system|item).s. ")
@pytest.mark.parametrize("kind", ["runs", "classifiers"])
def test_annotator_bootstrap_defaults_equal_one_evaluation_per_replicate(kind, monkeypatch):
    # what a user gets: annotator_bootstrap with its defaults (n_worlds, annotators="auto",
    # memory budget, blocks) through the exact forms, the stacked worlds and the classifiers'
    # means, against the same call with every replicate sent through one evaluate()
    from fuzzytruth.stats import _population_replicates as replicates

    if kind == "runs":
        runs, ann, cats = _collection(True, seed=7)
        measures, options = ["P@5", "AP", "nDCG@5"], {"query_categories": cats}
    else:
        runs, ann = _classifiers(True, seed=7)
        measures, options = ["Acc", "CE(level=1)", "ECE"], {}  # g1 labels: CE at level 1
    fast = annotator_bootstrap(runs, ann, measures, n_resamples=12, rng=3, **options)
    general = replicates.replicate_scores
    monkeypatch.setattr(replicates, "replicate_scores",
                        lambda plan, start, stop: general(plan, start, stop, fast=False))
    slow = annotator_bootstrap(runs, ann, measures, n_resamples=12, rng=3, **options)
    for m in fast.replicates:
        np.testing.assert_allclose(fast.replicates[m], slow.replicates[m], rtol=0, atol=1e-12)
        np.testing.assert_allclose(fast.annotators_only[m], slow.annotators_only[m], rtol=0,
                                   atol=1e-12)
    assert np.ptp(fast.replicates["AP" if kind == "runs" else "CE(level=1)"], axis=0).max() > 0


def test_a_population_interval_of_one_query_is_refused_in_the_users_terms():
    # annotator_bootstrap on a run of one query failed with "scores must hold at least 2
    # queries (last axis)", naming an array the user never gave
    from fuzzytruth.datasets import santini_illustrative

    annotations = santini_illustrative().annotations
    items = list(annotations.items)
    run = Run([items[0]] * len(items), items, np.arange(len(items), 0, -1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"^the evaluation holds 1 query; no statistic of "
                                             r"the systems is defined on fewer than 2 "
                                             r"\(a comparison needs 3\)$"):
            annotator_bootstrap(run, annotations, ["P@5"], n_resamples=20, rng=0)


@pytest.mark.parametrize("crossed", [False, True])
def test_counts_by_share_written_out_or_sparse_give_the_same_replicates(crossed, monkeypatch):
    # a block writes its counts by share out when they are few, else keeps them sparse; the
    # recall's replicates must not depend on which (blocks of one run may choose differently)
    import fuzzytruth.stats._population_replicates as replicates

    runs, ann, cats = _collection(crossed, seed=7)
    measures = ["R@5", "R", "P@5"]
    share_groups, made = replicates._share_groups, []

    def recorded(*args):
        made.append(share_groups(*args))
        return made[-1]

    monkeypatch.setattr(replicates, "_share_groups", recorded)
    runs_of = {}
    for limit in (10**6, 0):  # every block written out (as far as memory allows), then sparse
        monkeypatch.setattr(replicates, "_DENSE_SHARES", limit)
        made.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnreliableInferenceWarning)
            runs_of[limit] = annotator_bootstrap(runs, ann, measures, n_resamples=20,
                                                 query_categories=cats, rng=3)
        assert made and any(isinstance(g.counts, np.ndarray) for g in made) == (limit > 0)
    for m in measures:
        assert (runs_of[0].replicates[m] == runs_of[10**6].replicates[m]).all()


def test_fast_path_equals_the_general_path_where_the_recall_integrals_are_bounded(monkeypatch):
    # 400 items, most under "animal": the recall's rows at that node hold ~200 documents
    # outside the top 5, so their integrals take the bounded rule on [1 - δ, 1] (fewer nodes
    # than exactness needs), not the exact one the small collections above get; the general
    # path (one evaluate() each, the recall's mean from the laws of TP and FN) agrees
    from fuzzytruth.uncertain import pgf_moments

    rng = np.random.default_rng(8)
    items = [f"i{k}" for k in range(400)]
    true = rng.choice(NODES, size=400, p=[0.1, 0.3, 0.3, 0.1, 0.1, 0.1])
    rows = [(item, f"{item}-a{a}", label if rng.random() < 0.7 else rng.choice(NODES))
            for item, label in zip(items, true, strict=True) for a in range(5)]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]),
                                 taxonomy=TREE)
    runs = {name: Run(np.repeat(["x1", "x2", "i0"], 20),
                      np.concatenate([rng.choice(items, 20, replace=False) for _ in range(3)]),
                      np.tile(np.arange(20, 0, -1.0), 3), name=name) for name in ("A", "B")}
    rules, chosen = pgf_moments._rules, []

    def recorded(mu, top, exact):
        chosen.append((*rules(mu, top, exact), exact))
        return chosen[-1][:2]

    monkeypatch.setattr(pgf_moments, "_rules", recorded)
    plan = plan_population(runs, AnnotatorResampler(ann), ["R@5", "R", "P@5", "RR"],
                           scheme="within-items", seed=5,
                           query_categories={"x1": "animal", "x2": "cat"}, n_worlds=10,
                           memory_budget=64e6)
    assert plan.fast == plan.measures
    _paths_agree(plan, 0, 3, (3, 2, 3))
    assert any((span < 1).any() for span, _, _ in chosen)
    assert any((nodes < exact).any() for _, nodes, exact in chosen)
