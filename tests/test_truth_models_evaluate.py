"""A fitted truth model is one more truth: evaluate(), compare(), the P-R bands, the population
bootstrap and the collection analysis take it, name it beside the estimand, and reduce to
today's numbers under the shares model.

Oracles: ``Membership.from_annotations`` (the shares model must give its numbers bit for bit,
worlds included); the crisp evaluation of the same labels as TREC-style qrels (annotators who all
agree); the exact closed forms against the worlds (within Monte Carlo error) where the worlds are
independent items; brute-force identities of the annotator resampling.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fuzzytruth as ft
from fuzzytruth import Annotations, Membership, Qrels, Run, Taxonomy, report
from fuzzytruth.datasets import image_collection
from fuzzytruth.io.rankings import Rankings
from fuzzytruth.stats import annotator_bootstrap, compare
from fuzzytruth.truth.models import (
    IRN,
    DawidSkene,
    Mace,
    NonConvergenceWarning,
    OneCoin,
    PrIRN,
    Shares,
    fit_truth,
)

MEASURES = ["P@5", "R@5", "RR", "AP", "nDCG@10"]


@pytest.fixture(scope="module")
def collection():
    """The bundled image collection, its runs cut to 15 queries."""
    data = image_collection()
    runs = {}
    for name, run in data.run_objects().items():
        frame = run.to_dataframe()
        keep = sorted(frame["query_id"].unique())[:15]
        runs[name] = Run.from_dataframe(frame[frame["query_id"].isin(keep)], name=name)
    return data, runs


# ---------------------------------------------------------------------- shares = today's truth
@pytest.mark.parametrize("options", [
    {},  # the defaults: exact where a closed form exists, 1,000 annotator worlds
    {"world_model": "bernoulli", "n_worlds": 300},
    {"weights": "literal", "n_worlds": 300},
    {"method": "worlds", "n_worlds": 300, "exclude_query": False},
])
def test_shares_fit_evaluates_as_the_membership_bit_for_bit(collection, options):
    data, runs = collection
    today = ft.evaluate(runs, Membership.from_annotations(data.annotations), MEASURES, rng=4,
                        **options)
    fit = ft.evaluate(runs, Shares().fit(data.annotations), MEASURES, rng=4, **options)
    for measure in MEASURES:
        assert np.array_equal(fit.world_scores(measure), today.world_scores(measure))
        assert np.array_equal(fit.query_means(measure), today.query_means(measure))
    assert fit.to_frame().equals(today.to_frame())
    a, b = fit.aggregate(), today.aggregate()
    assert a.drop(columns="estimand").equals(b.drop(columns="estimand"))
    assert set(a["estimand"]) == {"collection (truth model: shares)"}
    assert set(b["estimand"]) == {"collection"}
    assert fit.conventions["truth_model"] == "shares" and today.conventions["truth_model"] is None


def test_shares_fit_with_given_query_categories(collection):
    data, runs = collection
    queries = sorted(set().union(*(r.queries for r in runs.values())))
    categories = dict(zip(queries, ["people", "city", "animals"] * 5, strict=False))
    args = dict(query_categories=categories, rng=2, n_worlds=200)
    today = ft.evaluate(runs, data.membership, ["P@10", "AP"], **args)
    fit = ft.evaluate(runs, Shares().fit(data.annotations), ["P@10", "AP"], **args)
    assert np.array_equal(fit.world_scores("AP"), today.world_scores("AP"))
    assert fit.to_frame().equals(today.to_frame())


# ---------------------------------------------------------------------- crisp under agreement
def _crisp_case(truth: list[str], scores: np.ndarray):
    """Items ``i0..`` with the given classes, every item a query asking for its own class, one
    system ranking every item by ``scores``; the crisp qrels of the same labels (a query item
    is not relevant to itself: ``exclude_query``)."""
    items = [f"i{k}" for k in range(len(truth))]
    n = len(items)
    run = Run(np.repeat(items, n), np.tile(items, n), scores.ravel(), name="s")
    relevance = [int(truth[q] == truth[d] and q != d) for q in range(n) for d in range(n)]
    return items, {"s": run}, Qrels(np.repeat(items, n), np.tile(items, n), relevance)


def _agreeing_annotations(items, truth, n_annotators):
    rows = [(i, f"r{a}", t) for i, t in zip(items, truth, strict=True)
            for a in range(n_annotators)]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    return Annotations.from_frame(frame, taxonomy=Taxonomy.flat(["a", "b", "c"]))


def _distance_from_crisp(fit, truth) -> float:
    """1 − the smallest posterior of an item's true class."""
    column = [fit.classes.index(t) for t in truth]
    return float(1 - fit.posterior[np.arange(len(truth)), column].min())


@settings(max_examples=12, deadline=None)
@given(
    truth=st.lists(st.sampled_from(["a", "b", "c"]), min_size=2, max_size=7),
    n_annotators=st.integers(2, 4),
    seed=st.integers(0, 2**16),
)
def test_annotators_who_all_agree_give_the_crisp_numbers(truth, n_annotators, seed):
    """Shares, Dawid–Skene, one-coin (annotations) and IRN, PrIRN with α = 0 (rankings whose
    readers all name the same single class): the crisp truth, and evaluate() with its
    defaults gives the crisp evaluation of the same labels. MACE (smoothed counts, VB priors)
    and PrIRN with its default α = 0.01 are not crisp by construction: their P@5 stays within
    3ε of the crisp value, ε the distance of the posterior from crisp (plus Monte Carlo error
    for MACE's parameter worlds)."""
    items, runs, qrels = _crisp_case(truth, np.random.default_rng(seed).random(len(truth) ** 2))
    expected = ft.evaluate(runs, qrels, MEASURES).aggregate().set_index("measure")["value"]
    annotations = _agreeing_annotations(items, truth, n_annotators)
    selectors = [[[[["a", "b", "c"].index(t)]]] * n_annotators for t in truth]
    rankings = Rankings.from_selectors(selectors, classes=["a", "b", "c"], items=items)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonConvergenceWarning)
        crisp = [Shares().fit(annotations), DawidSkene().fit(annotations),
                 OneCoin().fit(annotations), IRN().fit(rankings),
                 PrIRN(alpha=0.0).fit(rankings)]
        near = [Mace().fit(annotations), Mace(method="vb").fit(annotations),
                PrIRN().fit(rankings)]
    for fit in crisp:
        table = ft.evaluate(runs, fit, MEASURES, rng=seed).aggregate().set_index("measure")
        np.testing.assert_allclose(table["value"], expected[table.index], rtol=0, atol=1e-12,
                                   err_msg=fit.name)
        assert (table["truth_std"] <= 1e-12).all(), fit.name
    for fit in near:
        eps = _distance_from_crisp(fit, truth)
        table = ft.evaluate(runs, fit, "P@5", rng=seed).aggregate().iloc[0]
        bound = 3 * eps + 5 * table["mc_se"] + 1e-12
        assert abs(table["value"] - expected["P@5"]) <= bound, (fit.name, fit.settings)


# ---------------------------------------------------------------------- exact forms or worlds
def test_parameter_worlds_compute_every_measure_from_the_worlds(collection):
    data, runs = collection
    fit = DawidSkene().fit(data.annotations)
    assert not fit.independent_items
    ev = ft.evaluate(runs, fit, ["P@10", "RR", "AP"], n_worlds=200, rng=0)
    assert set(ev.to_frame()["method"]) == {"worlds_binary"}
    with pytest.raises(ValueError, match="method='exact': the worlds of the dawid-skene truth "
                                         "draw shared parameters"):
        ft.evaluate(runs, fit, "P@10", method="exact", rng=0)
    with pytest.raises(ValueError, match="world_model='bernoulli' draws every"):
        ft.evaluate(runs, fit, "AP", world_model="bernoulli", n_worlds=10, rng=0)
    with pytest.raises(ValueError, match=r"n_worlds=0 leaves no way .* dawid-skene truth's "
                                         "worlds are dependent"):
        ft.evaluate(runs, fit, "P@10", n_worlds=0)
    with pytest.raises(ValueError, match="precision_recall_bands is exact"):
        ft.precision_recall_bands(runs, fit)


@pytest.mark.parametrize("model", [DawidSkene(uncertainty="posterior"), IRN(), PrIRN()])
def test_independent_worlds_keep_the_exact_forms_and_agree_with_them(model):
    """Exact P@5 and RR against the worlds' means: within 4 Monte Carlo standard errors (the
    larger of the worlds' and the exact distribution's spread) on every (system, query)."""
    if isinstance(model, DawidSkene):
        data = image_collection()
        truth_data = data.annotations
        runs = {n: Run.from_dataframe(r.to_dataframe().query("query_id < 'img0100'"), name=n)
                for n, r in data.run_objects().items()}
    else:
        truth_data = _small_rankings()
        items = [str(i) for i in truth_data.items]
        rng = np.random.default_rng(1)
        runs = {n: Run(np.repeat(items[:20], len(items)), np.tile(items, 20),
                       rng.random(20 * len(items)), name=n) for n in ("x", "y")}
    fit = model.fit(truth_data)
    assert fit.independent_items
    n_worlds = 3000
    exact = ft.evaluate(runs, fit, ["P@5", "RR"], n_worlds=0)
    worlds = ft.evaluate(runs, fit, ["P@5", "RR"], method="worlds", n_worlds=n_worlds, rng=3)
    assert set(exact.to_frame()["method"]) == {"exact"}
    frame = exact.to_frame()
    for measure in ("P@5", "RR"):
        std = frame[frame["measure"] == measure].pivot(index="system", columns="query_id",
                                                       values="truth_std")
        std = std.loc[list(exact.systems), list(exact.queries)].to_numpy()
        spread = np.maximum(worlds.world_scores(measure).std(axis=0), std)
        gap = np.abs(worlds.query_means(measure) - exact.query_means(measure))
        assert (gap <= 4 * spread / np.sqrt(n_worlds) + 1e-12).all(), measure


def _small_rankings() -> Rankings:
    """60 cases of 3 readers ranking among 6 classes, from a fixed seed."""
    rng = np.random.default_rng(5)
    selectors = []
    for _ in range(60):
        readers = []
        for _ in range(3):
            order = rng.permutation(6)[: rng.integers(1, 4)]
            readers.append([[int(c)] for c in order])
        selectors.append(readers)
    return Rankings.from_selectors(selectors, classes=list("uvwxyz"),
                                   items=[f"c{k}" for k in range(60)])


# ---------------------------------------------------------------------- outputs name the model
@pytest.mark.filterwarnings("ignore::fuzzytruth.stats.UnreliableInferenceWarning")  # 15 queries
def test_outputs_name_the_model_beside_the_estimand(collection):
    data, runs = collection
    fit = DawidSkene().fit(data.annotations)
    ev = ft.evaluate(runs, fit, ["P@10"], n_worlds=100, rng=0)
    assert ev.conventions["truth_model"] == "dawid-skene"
    assert ev.estimand == "collection (truth model: dawid-skene)"
    assert "truth_model='dawid-skene'" in repr(ev)
    assert set(ev.aggregate()["estimand"]) == {"collection (truth model: dawid-skene)"}
    comparison = compare(ev, n_resamples=200, rng=0)
    assert set(comparison.table["estimand"]) == {"collection (truth model: dawid-skene)"}
    assert set(comparison.systems["estimand"]) == {"collection (truth model: dawid-skene)"}
    assert 'estimand "collection (truth model: dawid-skene)"' in " ".join(
        comparison.summary().split())
    # the report names it with its words (it printed the label twice: no words for it)
    assert ('estimand "collection (truth model: dawid-skene)" (new queries like these, each '
            "scored by its expected value under the dawid-skene truth model fitted to these "
            "annotators' labels)") in report.describe_comparison(comparison)
    notes = report.system_notes(ev.aggregate(), n_worlds=ev.n_worlds)
    assert "dawid-skene truth model fitted to these annotators' labels" in notes[0]
    assert "how much the dawid-skene truth model's uncertainty about the labels" in notes[1]
    crisp = ft.evaluate(Run(["q"], ["d"], [1.0]), Qrels(["q"], ["d"], [1]), "P@1")
    assert crisp.estimand == "queries" and crisp.conventions["truth_model"] is None


def test_pr_bands_name_the_estimand_as_evaluate_does(collection):
    """The bands' estimand column is evaluate()'s, with the truth model of a fit, for the
    truths the bands take; the values are the P@k and R@k of evaluate() at each cutoff."""
    data, runs = collection
    rankings = _small_rankings()
    items = [str(i) for i in rankings.items]
    rng = np.random.default_rng(2)
    ranked_runs = {"x": Run(np.repeat(items[:6], len(items)), np.tile(items, 6),
                            rng.random(6 * len(items)), name="x")}
    truths = [(runs, data.membership), (runs, DawidSkene(uncertainty="posterior").fit(
        data.annotations)), (runs, Shares().fit(data.annotations)),
        (ranked_runs, IRN().fit(rankings)), (ranked_runs, PrIRN().fit(rankings))]
    for system_runs, truth in truths:
        bands = ft.precision_recall_bands(system_runs, truth)
        ev = ft.evaluate(system_runs, truth, ["P@3"], n_worlds=0)
        assert set(bands["estimand"]) == {ev.estimand}, ev.estimand
        at3 = bands[(bands["cutoff"] == 3) & (bands["measure"] == "precision")]
        means = ev.query_means("P@3")
        for s, system in enumerate(ev.systems):
            rows = at3[at3["system"] == system].set_index("query_id")["mean"]
            np.testing.assert_allclose(rows.loc[list(ev.queries)], means[s], atol=1e-12)
    assert {ft.evaluate(r, t, ["P@3"], n_worlds=0).estimand for r, t in truths} == {
        "collection", "collection (truth model: dawid-skene)",
        "collection (truth model: shares)", "collection (truth model: irn)",
        "collection (truth model: prirn)"}


def test_a_truth_model_s_input_is_not_a_truth():
    data = image_collection()
    with pytest.raises(ValueError, match=r"got Annotations .*: fit a truth model on it first"):
        ft.evaluate(data.run_objects(), data.annotations, "P@10")
    with pytest.raises(ValueError, match=r"truth_model must be one of \['shares', "):
        fit_truth(data.annotations, "majority-vote")
    with pytest.raises(ValueError, match="irn needs partial rankings"):
        fit_truth(data.annotations, "irn")


SETTINGS = {"dawid-skene": (DawidSkene, {"max_iter": 3, "prior": 0.5}),
            "one-coin": (OneCoin, {"tol": 1e-3}),
            "mace": (Mace, {"method": "vb", "max_iter": 5}),
            "prirn": (PrIRN, {"temperature": 3.0})}


@pytest.mark.parametrize("name", list(SETTINGS))
def test_a_named_model_takes_its_settings_as_its_constructor_does(name):
    """``fit_truth(data, name, **settings)`` is ``Model(**settings).fit(data)`` (it was
    Python's TypeError: unexpected keyword argument)."""
    model, settings = SETTINGS[name]
    data = image_collection().annotations if name != "prirn" else _small_rankings()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonConvergenceWarning)
        got, expected = fit_truth(data, name, **settings), model(**settings).fit(data)
    assert got.settings == expected.settings != model().fit(data).settings
    np.testing.assert_array_equal(got.posterior, expected.posterior)


def test_a_setting_the_model_has_not_is_named_with_the_ones_it_has():
    data = image_collection().annotations
    with pytest.raises(ValueError, match=r"^'dawid-skene' has no setting maxiter \(did you "
                       r"mean 'max_iter'\?\); its settings: \['tol', 'max_iter', "):
        fit_truth(data, "dawid-skene", maxiter=5)
    with pytest.raises(ValueError, match=r"^'shares' has no setting tol; it takes none$"):
        fit_truth(data, "shares", tol=1e-3)
    with pytest.raises(ValueError, match=r"a configured truth_model carries its settings; got "
                       r"DawidSkene\(.*\) and max_iter=5: give them to its constructor, "
                       r"DawidSkene\(max_iter=...\), or pass its name 'dawid-skene'"):
        fit_truth(data, DawidSkene(), max_iter=5)


@pytest.mark.parametrize("evaluated", ["runs", "classifier"])
def test_a_truth_s_raw_material_is_refused_with_the_way_to_make_a_truth(evaluated):
    """Labels, rankings, pytrec_eval's qrels dicts and tables are the usual material of a
    truth; passed as the truth, each is refused by a message naming the call that makes one
    (on both paths of evaluate: ranked runs and classifiers)."""
    from fuzzytruth.classify import Predictions

    tax = Taxonomy.flat(["cat", "dog"])
    labels = Annotations.from_frame(pd.DataFrame({
        "item_id": ["x", "x", "y"], "annotator_id": ["a", "b", "a"],
        "label": ["cat", "dog", "dog"]}), taxonomy=tax)
    rankings = Rankings.from_selectors([[[[0]], [[1]]], [[[1]], [[1], [0]]]],
                                       classes=["cat", "dog"])
    system = (Run(["x", "y"], ["cat", "dog"], [1.0, 2.0]) if evaluated == "runs" else
              Predictions([[0.5, 0.5], [0.2, 0.8]], items=["x", "y"], classes=["cat", "dog"]))
    measure = "P@1" if evaluated == "runs" else "Acc"
    expected = {
        "labels": (labels, r'got Annotations.*: fit a truth model on it first, e.g. '
                           r'fit_truth\(annotations\)'),
        "rankings": (rankings, r'got Rankings.*: fit a truth model on it first, '
                               r'fit_truth\(rankings, "irn"\)'),
        "dict": ({"x": {"cat": 1}}, r"got dict.*Qrels\.from_dict"),
        "table": (pd.DataFrame({"query_id": ["x"], "doc_id": ["cat"], "relevance": [1]}),
                  r"got DataFrame.*Qrels\.from_dataframe"),
        "file": ("qrels.txt", r"got str.*: read the file first: read_trec_qrels\(path\)"),
    }
    for material, pattern in expected.values():
        with pytest.raises(ValueError, match=pattern):
            ft.evaluate(system, material, measure)
    # a classifier evaluation takes no probabilistic qrels: its hints do not offer them
    for material, offered in ((pd.DataFrame({"a": [1]}), "ProbabilisticQrels.from_dataframe"),
                              ("qrels.txt", "read_probabilistic_qrels")):
        with pytest.raises(ValueError) as refused:
            ft.evaluate(system, material, measure)
        assert (offered in str(refused.value)) == (evaluated == "runs")


# ---------------------------------------------------------------------- population estimand
@pytest.fixture(scope="module")
def small_population():
    tax = Taxonomy.from_nested({"all": {"cat": None, "dog": None}})
    rng = np.random.default_rng(8)
    truth = rng.integers(0, 2, 12)
    rows = [(f"i{k}", who, ["cat", "dog"][truth[k] if rng.random() < acc else 1 - truth[k]])
            for k in range(12) for who, acc in (("a", 0.9), ("b", 0.8), ("c", 0.6), ("d", 0.7))]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                             "label"]), taxonomy=tax)
    docs = [f"i{k}" for k in range(12)]
    runs = {name: Run(np.repeat(docs[:6], 12), np.tile(order, 6),
                      np.tile(np.arange(12.0, 0, -1), 6), name=name)
            for name, order in (("A", docs), ("B", docs[::-1]))}
    return ann, runs


@pytest.mark.filterwarnings("ignore::fuzzytruth.stats.UnreliableInferenceWarning",
                            "ignore::fuzzytruth.stats.ResamplingResolutionWarning")
@pytest.mark.parametrize("scheme", ["shared", "within-items"])
def test_population_bootstrap_refits_the_model_in_every_replicate(small_population, scheme):
    ann, runs = small_population
    args = dict(n_resamples=12, n_worlds=40, annotators=scheme, rng=5)
    today = annotator_bootstrap(runs, ann, ["P@3"], **args)
    shares = annotator_bootstrap(runs, ann, ["P@3"], truth_model="shares", **args)
    assert np.array_equal(shares.replicates["P@3"], today.replicates["P@3"])
    assert np.array_equal(shares.annotators_only["P@3"], today.annotators_only["P@3"])
    assert today.truth_model is None and shares.truth_model == "shares"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonConvergenceWarning)
        model = annotator_bootstrap(runs, ann, ["P@3"], truth_model=DawidSkene(max_iter=200),
                                    **args)
    assert not np.array_equal(model.replicates["P@3"], today.replicates["P@3"])
    assert np.isfinite(model.replicates["P@3"]).all()
    table = compare(model).table
    assert set(table["estimand"]) == {"population (truth model: dawid-skene)"}
    assert set(compare(shares).table["estimand"]) == {"population (truth model: shares)"}
    assert set(compare(today).table["estimand"]) == {"population"}
    # the report reads the model off the estimand: replicates, not resamples, and the words
    sentence = report.describe_comparison(compare(model))
    assert ('"population (truth model: dawid-skene)" (new queries and new annotators of the '
            "same kind, the dawid-skene truth model refitted on each replicate's labels)"
            ) in sentence
    assert "B = 12 replicates" in sentence
    assert "(queries and annotators resampled, dawid-skene refitted)" in " ".join(
        report.comparison_notes(compare(model)))
    assert "B = 12 replicates" in report.describe_comparison(compare(today))


@dataclass(frozen=True)
class _RecordingShares(Shares):
    """The shares model, keeping every label set it is fitted on."""

    seen: list = field(default_factory=list, compare=False, repr=False)

    def fit(self, data):
        self.seen.append(data.to_frame())
        return super().fit(data)


@pytest.mark.filterwarnings("ignore::fuzzytruth.stats.UnreliableInferenceWarning",
                            "ignore::fuzzytruth.stats.ResamplingResolutionWarning")
@pytest.mark.parametrize("scheme", ["shared", "within-items"])
def test_resampled_annotators_keep_one_identity_across_items(small_population, scheme):
    """What a refitted model sees: every drawn annotator labels only items that one original
    annotator labelled, with that annotator's labels, once per item; and it is one annotator
    across items (each pair its own annotator would leave a model of annotators nothing to
    fit: 48 one-item annotators here)."""
    ann, runs = small_population
    model = _RecordingShares()
    annotator_bootstrap(runs, ann, ["P@3"], n_resamples=6, n_worlds=10, annotators=scheme,
                        rng=2, truth_model=model)
    assert len(model.seen) == 7  # the observed labels, then each replicate's
    original = {who: dict(zip(rows["item_id"], rows["label"], strict=True))
                for who, rows in ann.to_frame().groupby("annotator_id")}
    for frame in model.seen[1:]:
        assert not frame.duplicated(["item_id", "annotator_id"]).any()
        assert len(frame) == 48  # 12 items x 4 annotators drawn (none is lost or added)
        drawn = frame.groupby("annotator_id")
        for _, rows in drawn:
            labels = dict(zip(rows["item_id"], rows["label"], strict=True))
            assert any(all(theirs.get(i) == lab for i, lab in labels.items())
                       for theirs in original.values())
        if scheme == "shared":  # every drawn annotator labels all 12 items, as its original
            assert (drawn.size() == 12).all()
        else:
            assert drawn.ngroups <= 16  # (annotator, copy) pairs: 4 x at most 4 copies


@dataclass(frozen=True)
class _RecordingIRN(IRN):
    """IRN, keeping every ranking set it is fitted on."""

    seen: list = field(default_factory=list, compare=False, repr=False)

    def fit(self, data):
        self.seen.append(data)
        return super().fit(data)


def _ranked_population():
    """The 60 small ranked cases and two query-by-example systems over 20 of them."""
    rankings = _small_rankings()
    items = [str(i) for i in rankings.items]
    rng = np.random.default_rng(3)
    runs = {n: Run(np.repeat(items[:20], len(items)), np.tile(items, 20),
                   rng.random(20 * len(items)), name=n) for n in ("x", "y")}
    return rankings, runs


def _readers(rankings):
    """{case: [each reader's ranking as a tuple of tie-groups]}."""
    out: dict = {}
    frame = rankings.to_frame()
    for (case, _), rows in frame.groupby(["item_id", "reader_id"], sort=False):
        groups = rows.groupby("rank_group")["class"].apply(lambda c: tuple(sorted(c)))
        out.setdefault(case, []).append(tuple(groups))
    return out


@pytest.mark.filterwarnings("ignore::fuzzytruth.stats.UnreliableInferenceWarning",
                            "ignore::fuzzytruth.stats.ResamplingResolutionWarning")
def test_population_bootstrap_refits_irn_on_resampled_readers():
    """Readers resampled within cases, each with its whole ranking: what IRN is refitted on
    has, per case, as many readers as the case had, each one of the case's own rankings; the
    estimand names the model; a replicate's scores are an evaluate() of IRN refitted on the
    rankings written out by hand from the keyed multiplicities."""
    from fuzzytruth._random import named_stream
    from fuzzytruth.stats._annotator_resampling import AnnotatorResampler
    from fuzzytruth.stats._population_replicates import plan_population, replicate_scores

    rankings, runs = _ranked_population()
    model = _RecordingIRN()
    pop = annotator_bootstrap(runs, rankings, ["P@5", "AP"], n_resamples=8, n_worlds=30,
                              rng=6, truth_model=model)
    assert pop.annotators == "within-items" and pop.truth_model == "irn"
    assert set(compare(pop).table["estimand"]) == {"population (truth model: irn)"}
    assert np.isfinite(pop.replicates["AP"]).all()
    assert len(model.seen) == 9  # the observed rankings, then each replicate's
    original = _readers(rankings)
    for drawn in map(_readers, model.seen[1:]):
        assert drawn.keys() == original.keys()
        for case, readers in drawn.items():
            assert len(readers) == len(original[case])
            assert all(r in original[case] for r in readers)
    assert any(_readers(r) != original for r in model.seen[1:])  # the readers did move
    # the replicate by hand: the pairs' multiplicities, each pair's reader written out
    resampler = AnnotatorResampler(rankings)
    plan = plan_population(runs, resampler, ["P@5"], scheme="within-items", seed=11,
                           query_categories=None, n_worlds=30, memory_budget=64e6,
                           membership_of=IRN().fit)
    mult = resampler.multiplicities(11, "within-items", np.arange(2))
    by_pair = rankings.to_frame().groupby(["item_id", "reader_id"], sort=False)
    pairs = [(resampler.annotations_in.items[i], resampler.annotations_in.annotators[a])
             for i, a in zip(resampler.pair_item, resampler.pair_annot, strict=True)]
    for r in range(2):
        rows = [by_pair.get_group(pair).assign(reader_id=f"{pair[1]}#{c}")
                for pair, times in zip(pairs, mult[r].astype(int), strict=True)
                for c in range(times)]
        by_hand = Rankings.from_frame(pd.concat(rows), classes=rankings.classes)
        expected = ft.evaluate(runs, IRN().fit(by_hand), ["P@5"], n_worlds=30,
                               rng=named_stream(11, "worlds", r))
        got = replicate_scores(plan, r, r + 1)["P@5"][0]
        np.testing.assert_allclose(got, expected.query_means("P@5"), rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore::fuzzytruth.stats.UnreliableInferenceWarning",
                            "ignore::fuzzytruth.stats.ResamplingResolutionWarning")
def test_population_bootstrap_on_rankings_for_every_model():
    """PrIRN refits too; the label models and the default read the readers' top groups, and
    give the numbers of the same bootstrap on those (read within items); IRN on unranked
    labels is refused by name."""
    rankings, runs = _ranked_population()
    args = dict(n_resamples=6, n_worlds=20, rng=2)
    prirn = annotator_bootstrap(runs, rankings, ["P@5"], truth_model=PrIRN(temperature=3),
                                **args)
    assert prirn.truth_model == "prirn" and np.isfinite(prirn.replicates["P@5"]).all()
    irn = annotator_bootstrap(runs, rankings, ["P@5"], truth_model="irn", **args)
    assert not np.array_equal(prirn.replicates["P@5"], irn.replicates["P@5"])
    top = rankings.annotations()
    for model in (None, "shares", OneCoin(max_iter=50)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NonConvergenceWarning)
            ranked = annotator_bootstrap(runs, rankings, ["P@5"], truth_model=model, **args)
            labels = annotator_bootstrap(runs, top, ["P@5"], truth_model=model,
                                         annotators="within-items", **args)
        assert ranked.annotators == "within-items"
        assert np.array_equal(ranked.replicates["P@5"], labels.replicates["P@5"]), model
    with pytest.raises(ValueError, match="irn needs partial rankings"):
        annotator_bootstrap(runs, top, ["P@5"], truth_model="irn", **args)


# ---------------------------------------------------------------------- collection analysis
def test_category_reliability_under_a_truth_model():
    ann = image_collection().annotations
    today = ft.category_reliability(ann).to_frame()
    assert ft.category_reliability(ann, truth_model="shares").to_frame().equals(today)
    fit = DawidSkene().fit(ann)
    table = ft.category_reliability(ann, truth_model=DawidSkene()).to_frame()
    # the label columns count the raw labels; the voted items are the annotators'
    for column in ("closed_kappa", "n_confusions", "n_voted", "depth"):
        assert table[column].equals(today[column]), column
    nodes = ann.taxonomy.indices(table["category"])
    np.testing.assert_allclose(table["size"], fit.membership.matrix.sum(axis=0)[nodes])
    with pytest.raises(ValueError, match="truth_model needs the raw labels"):
        ft.category_reliability(fit.membership, truth_model="dawid-skene")


# ---------------------------------------------------------------------- bad input, end to end
#: 6 items x 3 annotators on which Dawid–Skene's EM has not converged after its 1,000
#: iterations (largest posterior change 3.9e-6 > tol 1e-6): found by a search over random
#: labellings.
SLOW = [("i0", "x", "x", "y"), ("i1", "x", "y", "x"), ("i2", "y", "y", "x"),
        ("i3", "x", "x", "x"), ("i4", "y", "y", "x"), ("i5", "x", "y", "y")]


def slow_annotations() -> Annotations:
    rows = [(item, f"a{j}", label) for item, *labels in SLOW for j, label in enumerate(labels)]
    return Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                              "label"]),
                                  taxonomy=Taxonomy.flat(["x", "y"]))


def _qbe_runs(items):
    rng = np.random.default_rng(0)
    n = len(items)
    return {s: Run(np.repeat(items, n), np.tile(items, n), rng.random(n * n), name=s)
            for s in ("s1", "s2")}


def test_non_convergence_warns_and_still_evaluates():
    ann = slow_annotations()
    with pytest.warns(NonConvergenceWarning, match=r"after 1000 iterations .* 3\.9\d*e-06 > "
                                                   r"tol=1e-06"):
        fit = DawidSkene().fit(ann)
    table = ft.evaluate(_qbe_runs(list(ann.items)), fit, MEASURES, n_worlds=100,
                        rng=0).aggregate()
    assert np.isfinite(table[["value", "truth_std", "mc_se"]].to_numpy()).all()


def test_degenerate_labels_give_errors_or_finite_tables():
    tax = Taxonomy.flat(["x", "y"])

    def annotations(rows):
        return Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                                  "label"]), taxonomy=tax)

    one_annotator = annotations([(f"i{k}", "a", "xy"[k % 2]) for k in range(4)])
    disjoint = annotations([(f"i{k}", f"a{k}", "xy"[k % 2]) for k in range(4)])
    for model in (DawidSkene(), OneCoin(), Mace()):
        for data in (one_annotator, disjoint):
            with pytest.raises(ValueError, match="at least two annotators"):
                fit_truth(data, model)
    # one class used: its posterior is 1 (documented), the table is the crisp one
    one_class = annotations([(f"i{k}", a, "x") for k in range(4) for a in "ab"])
    runs = _qbe_runs([f"i{k}" for k in range(4)])
    for model in (DawidSkene(), OneCoin(), Mace()):
        table = ft.evaluate(runs, fit_truth(one_class, model), MEASURES, n_worlds=50,
                            rng=0).aggregate()
        assert np.isfinite(table[["value", "truth_std"]].to_numpy()).all()
        assert (table["truth_std"] <= 1e-12).all()
    # an annotator who labels one item only, and an item with one label
    sparse = annotations([("i0", "a", "x"), ("i0", "b", "x"), ("i1", "a", "y"),
                          ("i1", "b", "x"), ("i2", "c", "y"), ("i3", "a", "y")])
    for model in (DawidSkene(), OneCoin(), Mace()):
        with warnings.catch_warnings():
            # MACE stops at its iteration limit on these six labels (2.0e-06 > tol): the
            # warning of item 7, told; the table is finite all the same
            warnings.simplefilter("ignore", NonConvergenceWarning)
            fit = fit_truth(sparse, model)
        table = ft.evaluate(runs, fit, MEASURES, n_worlds=50, rng=0).aggregate()
        assert np.isfinite(table[["value", "truth_std"]].to_numpy()).all(), model


def test_mace_parameter_worlds_keep_agreeing_annotators_crisp():
    """Regression: 7 items x 3 annotators who all agree. A drawn confusion cell that underflowed
    to 0 was read as log 1, and 35 % of the world labels flipped; now none does."""
    truth = list("abcabca")
    items = [f"i{k}" for k in range(7)]
    fit = Mace().fit(_agreeing_annotations(items, truth, 3))
    labels = fit.sample_labels(2000, seed=0)
    assert (labels == fit.taxonomy.indices(truth)[None, :]).all()
