"""evaluate(): consistency with the crisp evaluation, the foundation, Monte Carlo; errors."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from registry_families import package_families, resolve_default

from fuzzytruth import Annotations, Membership, Taxonomy, precision_distribution
from fuzzytruth._resampling import ResamplingResolutionWarning
from fuzzytruth.crisp import compute_measures
from fuzzytruth.evaluation import Evaluation, evaluate
from fuzzytruth.measures import parse_measure
from fuzzytruth.runs import Qrels, Run, ranked_gains
from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels

TAX = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": ["b1", "b2"]}})
NODES = ["a1", "a2", "b1", "b2", "a", "b"]


def registry():
    """Every family the package registers, with default parameters (see resolve_default).

    Families reading judged status (``Measure.uses``) are left out until evaluate() builds the
    judged fields for them (issue 13: the evaluation plumbing); tests/test_trec_measures.py
    checks them on ranked_gains(..., judged=True)."""
    measures = [resolve_default(name, fam) for name, fam in package_families().items()]
    return [m for m in measures if not m.uses]


REGISTRY = registry()


def annotated(labels_by_item):
    rows = [(i, f"s{j}", lab) for i, labs in labels_by_item.items() for j, lab in enumerate(labs)]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    return Membership.from_annotations(Annotations.from_frame(frame, taxonomy=TAX))


@st.composite
def crisp_collections(draw):
    n_items = draw(st.integers(3, 14))
    items = [f"i{i}" for i in range(n_items)]
    labels = draw(st.lists(st.sampled_from(NODES), min_size=n_items, max_size=n_items))
    n_q = draw(st.integers(1, 4))
    queries = [f"q{i}" for i in range(n_q)]
    cats = {q: draw(st.sampled_from([*NODES, "all"])) for q in queries}
    rows = []
    for q in queries:
        chosen = draw(st.lists(st.sampled_from(items), min_size=1, max_size=n_items, unique=True))
        scores = draw(st.lists(st.integers(0, 3), min_size=len(chosen), max_size=len(chosen)))
        rows += [(q, d, float(s)) for d, s in zip(chosen, scores, strict=True)]
    run = Run.from_dataframe(
        pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]), name="sys"
    )
    return items, labels, cats, run


def crisp_qrels(items, labels, cats):
    rows = [
        (q, item, 1)
        for q, cat in cats.items()
        for item, label in zip(items, labels, strict=True)
        if TAX.index(cat) in np.flatnonzero(TAX.ancestor_matrix[TAX.index(label)])
    ]
    rows += [(q, "__judged__", 0) for q in cats]  # every query is judged, maybe none relevant
    return Qrels.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]))


def reference(run, qrels):
    rg = ranked_gains(run, qrels, ties="docid_desc", score_dtype="float32")
    return compute_measures(rg, REGISTRY)


def assert_point_masses(ev: Evaluation, ref: pd.DataFrame):
    """Every query of every REGISTRY measure a point mass at the reference value (NaN: undefined
    for sure); the table read once, as (queries x measures) arrays."""
    names = list(map(str, REGISTRY))
    tables = ev.to_frame().pivot(index="query_id", columns="measure")
    expected = ref[names].reindex(tables.index).to_numpy()
    mean, p_undefined, spread = (tables[c][names].to_numpy()
                                 for c in ("mean", "p_undefined", "truth_std"))
    undefined = np.isnan(expected)
    for bad in (np.where(undefined, p_undefined != 1, p_undefined != 0),
                ~undefined & ~(np.abs(mean - expected) <= 1e-12),
                ~undefined & ~(spread < 1e-12)):
        query, measure = np.argwhere(bad)[0] if bad.any() else (0, 0)
        assert not bad.any(), (names[measure], tables.index[query])


@settings(max_examples=25, deadline=None)
@given(crisp_collections())
def test_unanimous_annotators_give_the_crisp_values_for_the_whole_registry(collection):
    items, labels, cats, run = collection
    mem = annotated({i: [lab] * 3 for i, lab in zip(items, labels, strict=True)})
    qrels = crisp_qrels(items, labels, cats)
    ref = reference(run, qrels)
    ev = evaluate(run, mem, REGISTRY, query_categories=cats, n_worlds=3, rng=0)
    assert_point_masses(ev, ref)
    crisp = evaluate(run, qrels, REGISTRY)
    assert_point_masses(crisp, ref)
    assert (crisp.to_frame()["method"] == "crisp").all()
    frame = (
        crisp_qrels(items, labels, cats).to_dataframe().rename(columns={"relevance": "probability"})
    )
    pq = ProbabilisticQrels.from_dataframe(frame.astype({"probability": float}))
    assert_point_masses(evaluate(run, pq, REGISTRY, n_worlds=3, rng=0, missing="skip"), ref)


def test_crisp_qrels_equal_pytrec_eval():
    # reference values: pytrec_eval-terrier (trec_eval 9.0.8) on the same run and qrels
    rng = np.random.default_rng(2)
    rows = [
        (f"q{q}", f"d{d}", float(rng.integers(0, 5)))
        for q in range(5)
        for d in rng.choice(30, 12, replace=False)
    ]
    run = Run.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    judged = [
        (f"q{q}", f"d{d}", int(rng.integers(0, 3)))
        for q in range(5)
        for d in rng.choice(30, 15, replace=False)
    ]
    qrels = Qrels.from_dataframe(pd.DataFrame(judged, columns=["query_id", "doc_id", "relevance"]))
    evaluator = pytrec_eval.RelevanceEvaluator(
        {q: {d: r for qq, d, r in judged if qq == q} for q in {j[0] for j in judged}},
        {"P_5", "map", "ndcg_cut_10", "recip_rank"},
    )
    expected = evaluator.evaluate(
        {q: {d: s for qq, d, s in rows if qq == q} for q in {r[0] for r in rows}}
    )
    ev = evaluate(run, qrels, ["P@5", "AP", "nDCG@10", "RR"]).to_frame()
    for ours, theirs in [
        ("P@5", "P_5"),
        ("AP", "map"),
        ("nDCG@10", "ndcg_cut_10"),
        ("RR", "recip_rank"),
    ]:
        got = ev[ev["measure"] == ours].set_index("query_id")["mean"].fillna(0.0)
        for q, value in got.items():
            assert value == pytest.approx(expected[q][theirs], abs=1e-4), (ours, q)


def test_degenerate_case_matches_the_foundation_precision_distribution():
    # one code path (issue 3): crisp P through the foundation equals evaluate's point mass
    mem = annotated({"x": ["a1"] * 2, "y": ["b1"] * 2, "z": ["a2"] * 2})
    run = Run(["q"] * 3, ["x", "y", "z"], [3.0, 2.0, 1.0])
    ev = evaluate(run, mem, ["P@3"], query_categories={"q": "a"}, n_worlds=0)
    foundation = precision_distribution(mem, ["x", "y", "z"], category="a")
    assert foundation.support.tolist() == [2 / 3]
    assert ev.distribution("run", "q", "P@3").support.tolist() == pytest.approx([2 / 3])


def test_query_mixture_equals_the_foundation():
    # the query item's own uncertain category (direct weights), query not among its results
    mem = annotated(
        {
            "x": ["a1", "a1", "b1", "a"],
            "y": ["a1", "b1", "b1", "a1"],
            "z": ["a2", "a2", "a2", "b"],
            "w": ["b1", "b2", "b1", "b1"],
        }
    )
    run = Run(["x"] * 3, ["y", "z", "w"], [3.0, 2.0, 1.0])
    ev = evaluate(run, mem, ["P@3", "R@3"], n_worlds=0, recall_form="expected_size")
    p = precision_distribution(mem, ["y", "z", "w"], query="x")
    got = ev.distribution("run", "x", "P@3")
    np.testing.assert_allclose(got.support, p.support)
    np.testing.assert_allclose(got.probabilities, p.probabilities)
    from fuzzytruth import recall_distribution

    r = recall_distribution(mem, ["y", "z", "w"], query="x", recall_form="expected_size")
    got = ev.distribution("run", "x", "R@3")
    np.testing.assert_allclose(got.support, r.support)
    np.testing.assert_allclose(got.probabilities, r.probabilities)


@pytest.mark.parametrize("exclude_query", [True, False])
def test_exact_laws_of_an_uncertain_query_equal_its_enumerated_annotator_worlds(exclude_query):
    """Oracle: every labelling of the items (one annotator's label each, with its share),
    the query's target its own label, each scored by the crisp kernels on the qrels it
    defines. Kept among the documents (exclude_query=False), the query item is in its own
    category in every labelling, so its mixture's components hold it for sure."""
    mem = annotated({"x": ["a1", "b1", "a"], "y": ["a1", "b1"], "z": ["a2", "b2", "b"],
                     "w": ["b1", "a1", "a1"]})
    run = Run(["x"] * 3 + ["y"] * 2, ["x", "y", "z", "z", "w"], [3.0, 2.0, 1.0, 2.0, 1.0])
    measures = ["P@1", "P@2", "R@2", "RR", "Success@1", "F@2"]
    ev = evaluate(run, mem, measures, method="exact", n_worlds=0, exclude_query=exclude_query,
                  undefined="skip")
    items = list(mem.items)
    choices = [np.flatnonzero(mem.direct[i] > 0) for i in range(len(items))]
    laws = {}
    for labels in itertools.product(*choices):
        mass = np.prod([mem.direct[i, label] for i, label in enumerate(labels)])
        rows = [(q, item, int(TAX.ancestor_matrix[labels[i], labels[items.index(q)]]
                              and not (exclude_query and item == q)))
                for q in ("x", "y") for i, item in enumerate(items)]
        qrels = Qrels.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id",
                                                                 "relevance"]))
        crisp = evaluate(run, qrels, measures, undefined="skip").to_frame()
        for row in crisp.itertuples():
            key = (row.query_id, row.measure, None if np.isnan(row.mean) else round(row.mean, 9))
            laws[key] = laws.get(key, 0.0) + mass
    for (query, measure, value), mass in laws.items():
        dist = ev.distribution("run", query, measure)
        if value is None:
            assert dist.p_undefined == pytest.approx(mass, abs=1e-12), (query, measure)
        else:
            atoms = np.isclose(dist.support, value, rtol=0, atol=1e-9)
            got = dist.probabilities[atoms].sum() * (1 - dist.p_undefined)
            assert got == pytest.approx(mass, abs=1e-12), (query, measure, value)


@pytest.mark.parametrize("world_model", ["annotator", "bernoulli"])
def test_a_kept_query_item_has_the_same_law_in_the_exact_forms_and_the_worlds(world_model):
    """With exclude_query=False the exact forms condition each component on the query's own
    label (the annotator worlds' law, 624a976), but the Bernoulli worlds draw the query item
    independently: under world_model="bernoulli", method="auto" mixed the two laws in one
    evaluation (P@1 of x: 1.0 exact against 0.44 in the worlds). The exact forms follow the
    world model now: both agree within 5 Monte Carlo standard errors, under each model."""
    mem = annotated({"x": ["a1", "b1", "a"], "y": ["a1", "b1"], "z": ["a2", "b2", "b"],
                     "w": ["b1", "a1", "a1"]})
    run = Run(["x"] * 3 + ["y"] * 2, ["x", "y", "z", "z", "w"], [3.0, 2.0, 1.0, 2.0, 1.0])
    measures = ["P@1", "P@2", "RR", "R@2"]
    options = {"exclude_query": False, "world_model": world_model, "undefined": "zero"}
    exact = evaluate(run, mem, measures, method="exact", n_worlds=0, **options).to_frame()
    worlds = evaluate(run, mem, measures, method="worlds", n_worlds=20_000, rng=3,
                      **options).to_frame()
    both = exact.merge(worlds, on=["system", "query_id", "measure"], suffixes=("", "_w"))
    assert len(both) == 8
    assert (np.abs(both["mean"] - both["mean_w"]) <= 5 * both["mc_se_w"] + 1e-12).all(), both


def probabilistic_collection(rng, n_q=8, depth=6, n_docs=15):
    judged = [
        (f"q{q}", f"d{d}", float(rng.choice([0.0, 0.2, 0.5, 0.8, 1.0])), float(rng.integers(1, 3)))
        for q in range(n_q)
        for d in rng.choice(n_docs, 9, replace=False)
    ]
    pq = ProbabilisticQrels.from_dataframe(
        pd.DataFrame(judged, columns=["query_id", "doc_id", "p", "g"]),
        probability_col="p",
        grade_col="g",
    )
    runs = {}
    for name in ("A", "B"):
        rows = [
            (f"q{q}", f"d{d}", float(depth - r))
            for q in range(n_q)
            for r, d in enumerate(rng.choice(n_docs, depth, replace=False))
        ]
        runs[name] = Run.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    return runs, pq


def test_probabilistic_qrels_exact_agrees_with_worlds():
    runs, pq = probabilistic_collection(np.random.default_rng(4))
    measures = ["P@3", "R@4", "RR", "F(beta=2)@4", "E@2", "Success@2", "P(rel=2)@5"]
    exact = evaluate(runs, pq, measures, method="exact", n_worlds=0).to_frame()
    mc = evaluate(runs, pq, measures, method="worlds", n_worlds=3000, rng=3).to_frame()
    z = np.abs(mc["mean"] - exact["mean"]) / np.maximum(mc["mc_se"], 1e-12)
    assert np.nanmax(z) < 4.5
    assert np.allclose(mc["p_undefined"], exact["p_undefined"], atol=0.05)


def test_aggregates_read_the_closed_forms_means_and_laws_are_built_on_demand():
    """The exact recall's law holds (k + 1) x (judged documents outside the top k + 1) atoms
    per query: R@1000 on 50 queries of 1,500 uncertain judgments held 800 MB, 10,000 ragged
    queries 12 GB, before any aggregate was asked for. The evaluation keeps each closed
    form's mean (a Membership truth's too, mixed over the query's categories); the law is
    built when a distribution is asked for, and its mean is the one kept."""
    from fuzzytruth.uncertain.batch import DeferredBatch

    runs, pq = probabilistic_collection(np.random.default_rng(4))
    rng = np.random.default_rng(8)
    membership = annotated({f"i{i}": list(rng.choice(NODES, 3)) for i in range(12)})
    items = [f"i{i}" for i in range(12)]
    mrun = Run(np.repeat(items[:4], 5), [items[(i * 5 + j) % 12] for i in range(4)
                                          for j in range(5)], np.tile(np.arange(5.0), 4))
    measures = ["R@4", "R", "P@3", "RR", "Success@2", "F(beta=2)@3", "E@2", "F"]
    for evaluated in (evaluate(runs, pq, measures, n_worlds=0),
                      evaluate(mrun, membership, measures, n_worlds=0)):
        assert all(isinstance(b, DeferredBatch) for b in evaluated._batches.values())
        table = evaluated.aggregate()
        assert all(b._built is None for b in evaluated._batches.values())  # not built
        frame = evaluated.to_frame()  # builds the laws
        for system, measure in itertools.product(evaluated.systems, measures):
            law_means = frame.query("system == @system and measure == @measure")["mean"]
            s = evaluated.systems.index(system)
            np.testing.assert_allclose(law_means, evaluated.query_means(measure)[s],
                                       rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(
            table["value"], frame.groupby(["system", "measure"], sort=False)["mean"].mean()
            .loc[list(zip(table["system"], table["measure"], strict=True))],
            rtol=1e-12)


def test_per_query_laws_are_built_in_blocks_of_queries_and_not_kept(monkeypatch):
    """to_frame() summarises a closed form's laws a block of queries at a time within the
    memory budget, keeping none (the exact recall's atoms of 10,000 ragged queries took
    9.9 GB at once); one query's distribution builds that query's law alone. Oracle: the
    laws built whole (batch()), on a ProbabilisticQrels and on a Membership mixed over the
    queries' categories, evaluated in one table and in blocks of ragged queries."""
    from fuzzytruth.uncertain import batch as batches

    runs, pq = probabilistic_collection(np.random.default_rng(4))
    rng = np.random.default_rng(8)
    membership = annotated({f"i{i}": list(rng.choice(NODES, 3)) for i in range(12)})
    items = [f"i{i}" for i in range(12)]
    lengths = [9, 1, 2, 1, 5, 1]  # ragged: blocks of queries under a small budget
    mrun = Run(np.repeat(items[:6], lengths),
               [items[(i * 5 + j) % 12] for i, n in enumerate(lengths) for j in range(n)],
               np.concatenate([np.arange(n, dtype=float) for n in lengths]))
    measures = ["R@4", "R", "P@3", "RR", "Success@2", "F(beta=2)@3", "E@2", "F"]
    built = []

    def three_blocks(widths, *_):  # rows in another order, cut in three
        built.append(1)
        return np.array_split(np.random.default_rng(len(built)).permutation(widths.size), 3)

    monkeypatch.setattr(batches, "length_blocks", three_blocks)
    for run, truth, options in ((runs, pq, {}), (mrun, membership, {}),
                                (mrun, membership, {"memory_budget": 64.0 * 20})):
        ev = evaluate(run, truth, measures, n_worlds=0, undefined="skip", **options)
        before = len(built)
        frame = ev.to_frame(0.9)
        assert len(built) > before  # summarised in blocks
        assert all(b._built is None for b in ev._batches.values())  # and none kept
        for system, measure in itertools.product(ev.systems, measures):
            whole = ev.batch(system, measure)  # the laws built whole
            rows = frame.query("system == @system and measure == @measure")
            low, high = whole.interval(0.9)
            for column, want in (("mean", whole.mean()), ("truth_std", whole.std()),
                                 ("truth_low", low), ("truth_high", high)):
                np.testing.assert_allclose(rows[column], want, rtol=1e-12, atol=1e-15)
            q = ev.queries[-1]
            one = ev.distribution(system, q, measure)
            assert one.mean() == pytest.approx(whole.distribution(len(ev.queries) - 1).mean(),
                                               rel=1e-12, nan_ok=True)


def test_per_query_tables_of_sampled_and_closed_form_measures_are_the_same_in_blocks(
        monkeypatch):
    """to_frame() reads a sampled measure's world values a block of queries at a time (their
    law: 100,000 queries x 1,000 worlds took 9 GB at once) and a closed form's law in blocks of
    like widths: under a budget of two queries' worlds, the same table as the laws built
    whole (batch()), and one query's distribution is its row."""
    import fuzzytruth.evaluation.result as result

    runs, pq = probabilistic_collection(np.random.default_rng(4))
    measures = ["AP", "nDCG@4", "P@3", "R@4"]
    ev = evaluate(runs, pq, measures, n_worlds=50, rng=2)
    whole = ev.to_frame(0.8)
    monkeypatch.setattr(result, "MEMORY_BUDGET", 2 * 50 * 64.0)
    blocked = ev.to_frame(0.8)
    pd.testing.assert_frame_equal(blocked, whole, check_exact=False, rtol=1e-12, atol=1e-15)
    for system, measure in itertools.product(ev.systems, measures):
        law = ev.batch(system, measure)
        rows = blocked.query("system == @system and measure == @measure")
        low, high = law.interval(0.8)
        for column, want in (("mean", law.mean()), ("truth_std", law.std()),
                             ("truth_low", low), ("truth_high", high),
                             ("mc_se", law.mc_standard_error())):
            np.testing.assert_allclose(rows[column], want, rtol=1e-12, atol=1e-15)
        i = len(ev.queries) // 2
        one = ev.distribution(system, ev.queries[i], measure)
        assert one.mean() == pytest.approx(law.distribution(i).mean(), rel=1e-12)
        for q in (0.1, 0.9):
            assert one.quantile(q) == pytest.approx(law.distribution(i).quantile(q), rel=1e-12)


def test_aggregate_mean_is_the_mean_of_the_query_expectations():
    """Under undefined='zero' the system's value is the mean of the per-query expectations
    (exact where the family has a closed form): the same number as the per-query table's; the
    spread comes from the shared worlds, whose mean agrees within Monte Carlo error."""
    runs, pq = probabilistic_collection(np.random.default_rng(6))
    ev = evaluate(runs, pq, ["P@3", "Success@2", "AP", "R@4", "F@3"], n_worlds=3000, rng=1)
    agg = ev.aggregate().set_index(["system", "measure"])
    assert agg["method"].to_dict() == {
        ("A", "P@3"): "exact",
        ("A", "Success@2"): "exact",
        ("A", "AP"): "worlds_binary",
        ("A", "R@4"): "exact",
        ("A", "F@3"): "exact",
        ("B", "P@3"): "exact",
        ("B", "Success@2"): "exact",
        ("B", "AP"): "worlds_binary",
        ("B", "R@4"): "exact",
        ("B", "F@3"): "exact",
    }
    per_query = ev.to_frame().groupby(["system", "measure"], sort=False)["mean"].mean()
    np.testing.assert_allclose(agg["value"], per_query[agg.index], atol=1e-12)
    for measure in ev.measures:
        world_means = ev.world_scores(measure).mean(axis=2).mean(axis=0)
        se = ev.world_scores(measure).mean(axis=2).std(axis=0) / np.sqrt(ev.n_worlds)
        exact = agg.xs(measure, level="measure")["value"].to_numpy()
        assert (np.abs(world_means - exact) < 4.5 * np.maximum(se, 1e-12)).all(), measure
        # the Monte Carlo error is the value's: none for the closed-form means, the world
        # means' standard error (ddof=1) for the sampled ones
        mc_se = agg.xs(measure, level="measure")["mc_se"].to_numpy()
        if measure == "AP":
            sampled = ev.world_scores(measure).mean(axis=2)
            want = sampled.std(axis=0, ddof=1) / np.sqrt(ev.n_worlds)
            np.testing.assert_allclose(mc_se, want, rtol=1e-9)
        else:
            assert (mc_se == 0).all(), measure
    assert ev.conventions["seed"] == 1
    unseeded = evaluate(runs, pq, "P@3", n_worlds=10, rng=np.random.default_rng(1))
    assert unseeded.conventions["seed"] is None


@pytest.mark.parametrize("n_worlds", [0, 1, 2, 40])
def test_a_single_world_leaves_the_exact_aggregate_exact(n_worlds):
    """However few the worlds, a closed-form measure's value is the mean of its exact
    per-query expectations; one world gives no spread to report (NaN, not 0), and
    undefined='skip' averages that world rather than asking for worlds."""
    runs, pq = probabilistic_collection(np.random.default_rng(6))
    ev = evaluate(runs, pq, ["P@3", "AP"] if n_worlds else "P@3", n_worlds=n_worlds, rng=2)
    agg = ev.aggregate().set_index(["system", "measure"])
    exact = evaluate(runs, pq, "P@3", method="exact", n_worlds=0).query_means("P@3")
    np.testing.assert_allclose(agg.xs("P@3", level="measure")["value"], exact.mean(axis=1),
                               rtol=0, atol=1e-12)
    assert (agg.xs("P@3", level="measure")["mc_se"] == 0).all()
    if n_worlds == 1:
        ap = agg.xs("AP", level="measure")
        assert ap["truth_std"].isna().all() and ap["mc_se"].isna().all()
        skipped = evaluate(runs, pq, ["P@3", "AP"], n_worlds=1, rng=2, undefined="skip")
        one_world = skipped.world_scores("AP")[0]  # (n_systems, n_queries)
        np.testing.assert_allclose(skipped.aggregate().query("measure == 'AP'")["value"],
                                   np.nanmean(one_world, axis=1), rtol=0, atol=1e-12)


def test_categorical_aggregate_uses_shared_worlds():
    rng = np.random.default_rng(9)
    mem = annotated({f"i{i}": list(rng.choice(NODES, 3)) for i in range(20)})
    rows = [
        (f"q{q}", f"i{d}", float(-r))
        for q in range(4)
        for r, d in enumerate(rng.choice(20, 6, replace=False))
    ]
    run = Run.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    ev = evaluate(
        {"s": run},
        mem,
        ["P@3", "nDCG@5"],
        query_categories={f"q{q}": c for q, c in enumerate(["a", "b", "a1", "all"])},
        n_worlds=200,
        rng=0,
    )
    agg = ev.aggregate()
    assert agg["method"].tolist() == ["exact", "worlds_binary"]
    scores = ev.world_scores("nDCG@5")
    assert scores.shape == (200, 1, 4)
    assert agg.loc[1, "value"] == pytest.approx(scores.mean())
    assert agg.loc[0, "value"] == pytest.approx(ev.query_means("P@3").mean())


def test_tables_for_the_statistics_module():
    runs, pq = probabilistic_collection(np.random.default_rng(1), n_q=3)
    ev = evaluate(runs, pq, ["AP", "P@2"], n_worlds=20, rng=0)
    frame = ev.to_frame()
    assert list(frame.columns) == [
        "system",
        "query_id",
        "measure",
        "mean",
        "truth_std",
        "truth_low",
        "truth_high",
        "confidence_level",
        "p_undefined",
        "method",
        "mc_se",
    ]
    assert len(frame) == 2 * 3 * 2
    assert ev.world_scores("AP").shape == (20, 2, 3)
    assert ev.query_means("AP").shape == (2, 3)
    # the per-query table's means are the query means, whatever the path (exact or worlds)
    for measure in ("AP", "P@2"):
        table = frame[frame["measure"] == measure].pivot(
            index="system", columns="query_id", values="mean"
        )
        np.testing.assert_allclose(table.to_numpy(), ev.query_means(measure), atol=1e-15)
    with pytest.warns(UserWarning, match="not evaluated"):
        crisp = evaluate(runs["A"], Qrels(["q0"], ["d1"], [1]), ["P@2"])
    assert crisp.world_scores("P@2").shape == (1, 1, 1)


def test_confidence_interval_of_a_point_and_of_an_exact_distribution():
    pq = ProbabilisticQrels(["q", "q"], ["a", "b"], [0.5, 0.5])
    ev = evaluate(Run(["q", "q"], ["a", "b"], [2.0, 1.0]), pq, ["P@2"], n_worlds=0)
    row = ev.to_frame(confidence_level=0.4).iloc[0]
    # TP ~ Binomial(2, 1/2): P@2 in {0, .5, 1} w.p. 1/4, 1/2, 1/4 (hand derivation); the
    # 0.3 and 0.7 quantiles are both 0.5
    assert (row["mean"], row["truth_low"], row["truth_high"]) == (0.5, 0.5, 0.5)
    assert ev.distribution("run", "q", "P@2").interval(0.4) == (0.5, 0.5)
    row = ev.to_frame(confidence_level=0.9).iloc[0]
    assert (row["truth_low"], row["truth_high"]) == (0.0, 1.0)
    assert row["truth_std"] == pytest.approx(np.sqrt(0.125))


def test_each_row_of_the_table_is_its_system_measure_and_query_distribution():
    """to_frame() lays every (system, measure) batch out in one table (systems, then measures,
    then queries): each row is what batch() and method() say of its own three keys."""
    rng = np.random.default_rng(5)
    queries = [f"q{i}" for i in range(4)]
    docs = [f"d{j}" for j in range(6)]
    pq = ProbabilisticQrels(np.repeat(queries, 6), docs * 4, rng.random(24))
    runs = {name: Run(np.repeat(queries, 6), docs * 4, rng.random(24)) for name in "ABC"}
    measures = ["P@2", "R@3", "RR", "Success@2"]  # closed forms, and each by worlds
    for options in ({"n_worlds": 0}, {"n_worlds": 40, "method": "worlds", "rng": 1}):
        ev = evaluate(runs, pq, measures, undefined="skip", **options)
        frame = ev.to_frame(confidence_level=0.8)
        assert len(frame) == 3 * 4 * 4
        for (system, measure, query), row in frame.set_index(
                ["system", "measure", "query_id"]).iterrows():
            b, q = ev.batch(system, measure), ev.queries.index(query)
            low, high = b.interval(0.8)
            expected = [b.mean()[q], b.std()[q], low[q], high[q], 0.8,
                        ev._raw_batch(system, measure).p_undefined[q],
                        b.mc_standard_error()[q]]
            np.testing.assert_array_equal(row.drop("method").to_numpy(float), expected)
            assert row["method"] == ev.method(system, measure)
        assert frame["system"].tolist() == np.repeat(list("ABC"), 16).tolist()
        assert frame["query_id"].tolist() == queries * 12


def test_the_spread_over_one_world_is_undefined_and_few_worlds_warn():
    # with n_worlds=1 the truth interval was that world's value at both ends (P@2: 0.25 to
    # 0.25 beside an exact value of 0.3) while truth_std was NaN; with fewer worlds than the
    # level needs its ends are the extreme worlds, which the percentile interval says
    run = Run(["q1"] * 4 + ["q2"] * 3, ["d1", "d2", "d3", "d4", "d1", "d2", "d3"],
              [4, 3, 2, 1, 3, 2, 1.0])
    pq = ProbabilisticQrels(["q1", "q1", "q2", "q2"], ["d1", "d3", "d2", "d9"],
                            [0.3, 0.6, 0.9, 0.1])
    single = evaluate(run, pq, ["P@2", "AP"], n_worlds=1, rng=0)
    one = single.aggregate()
    assert one[["truth_std", "truth_low", "truth_high"]].isna().all(axis=None)
    # per query, one world's Monte Carlo error is unknown (it was 0.0, which reads as exact)
    per_query = single.to_frame()
    sampled = per_query["method"].str.startswith("worlds")
    assert sampled.any() and per_query.loc[sampled, "mc_se"].isna().all()
    assert (per_query.loc[~sampled, "mc_se"] == 0).all()
    ev = evaluate(run, pq, ["P@2", "AP"], n_worlds=10, rng=0)
    with pytest.warns(ResamplingResolutionWarning, match="10 replicates are too few"):
        few = ev.aggregate()
    for measure, row in few.set_index("measure").iterrows():
        per_world = ev.world_scores(measure)[:, 0].mean(axis=1)  # (worlds, systems, queries)
        expected = np.quantile(per_world, [0.025, 0.975])
        assert (row["truth_low"], row["truth_high"]) == pytest.approx(expected, abs=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(run, pq, ["P@2", "AP"], n_worlds=39, rng=0).aggregate()


def test_systems_without_results_for_a_query_score_an_empty_list():
    pq = ProbabilisticQrels(["q1", "q2"], ["a", "b"], [1.0, 1.0])
    runs = {"A": Run(["q1", "q2"], ["a", "b"], [1.0, 1.0]), "B": Run(["q1"], ["a"], [1.0])}
    ev = evaluate(runs, pq, ["P@1", "AP"], n_worlds=2, rng=0)
    assert ev.distribution("B", "q2", "P@1").mean() == 0.0
    assert ev.distribution("B", "q2", "AP").mean() == 0.0


# ------------------------------------------------------------------------------- errors


MEM = annotated({"x": ["a1", "b1"], "y": ["a2", "a2"]})
RUN = Run(["q"], ["y"], [1.0])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"measures": ["Bogus@3"]}, r"unknown measure 'Bogus@3'.*canonical families"),
        (
            {"method": "closed"},
            r"method must be one of \['auto', 'exact', 'worlds'\]; got "
            r"'closed'",
        ),
        (
            {"world_model": "urn"},
            r"world_model must be one of \['annotator', 'bernoulli'\]; "
            r"got 'urn'",
        ),
        ({"missing": "drop"}, r"missing must be one of \['skip', 'error'\]; got 'drop'"),
        (
            {"recall_form": "printed"},
            r"recall_form must be one of \['exact', "
            r"'expected_size'\]; got 'printed'",
        ),
        ({"weights": "flat"}, r"weights must be one of \['direct', 'literal'\]; got 'flat'"),
        ({"n_worlds": -1}, r"n_worlds must be an integer >= 0; got -1"),
        (
            {"confidence_level": 1.5},
            r"confidence_level must be a number strictly between 0 and 1; got 1.5",
        ),
        (
            {"query_categories": None, "missing": "error"},
            r"query\(ies\) 'q' have no category: give them in "
            r"query_categories",
        ),
        (
            {"measures": ["AP"], "method": "exact"},
            r"method='exact': no closed form for "
            r"\['AP'\]",
        ),
        # the measures were not named (P@1 has a closed form, AP none)
        ({"measures": ["P@1", "AP"], "n_worlds": 0},
         r"^n_worlds=0 leaves no way to compute \['AP'\], which have no closed form; give "
         r"n_worlds > 0$"),
        ({"runs": {"s": "not a run"}}, r"runs\['s'\] must be a Run; got str"),
        (
            {"truth": {"q": "a"}},
            r"truth must be a Membership, a fitted truth model, a ProbabilisticQrels or a "
            r"Qrels; got dict",
        ),
    ],
)
def test_errors_are_pinned(kwargs, message):
    args = {
        "runs": RUN,
        "truth": MEM,
        "measures": ["P@1"],
        "query_categories": {"q": "a"},
        **kwargs,
    }
    runs, truth, measures = args.pop("runs"), args.pop("truth"), args.pop("measures")
    with pytest.raises(ValueError, match=message):
        evaluate(runs, truth, measures, **args)


def test_documents_must_be_items_of_the_membership():
    with pytest.raises(
        ValueError,
        match=r"document\(s\) 'nope' of run 'run' are not "
        r"items of the membership",
    ):
        evaluate(
            Run(["q", "q"], ["y", "nope"], [2.0, 1.0]), MEM, ["P@1"], query_categories={"q": "a"}
        )


@pytest.mark.parametrize(("query_categories", "named"), [(None, "'x', 'y'"), ({"y": "a"}, "'x'")])
def test_direct_weights_without_direct_shares_name_the_queries_lacking_a_category(
    query_categories, named
):
    """A membership of already-closed probabilities has no annotator shares to mix a query's
    own category over: the queries whose category is not given are named (with some given,
    it was a TypeError on None)."""
    closed = Membership.from_probabilities(pd.DataFrame(MEM.matrix, index=MEM.items,
                                                        columns=MEM.categories),
                                           taxonomy=TAX, close=False)
    run = Run(["x", "y"], ["y", "x"], [1.0, 1.0])
    with pytest.raises(ValueError, match=r"weights='direct' needs the annotators' direct "
                       r"shares.*pass weights='literal' or give query_categories for "
                       rf"query\(ies\) {named}$"):
        evaluate(run, closed, ["P@1"], query_categories=query_categories, n_worlds=0)
    literal = evaluate(run, closed, ["P@1"], query_categories=query_categories, n_worlds=0,
                       weights="literal")
    assert literal.queries == ("x", "y")


def test_query_categories_that_name_no_evaluated_query_warn():
    """Keys spelled unlike the runs' query ids ("X" for "x") changed no target and said
    nothing: every query silently took its own uncertain category. Now a warning names the
    keys and the queries; a mapping that names one evaluated query is silent."""
    run = Run(["x", "y"], ["y", "x"], [1.0, 1.0])
    with pytest.warns(UserWarning, match=r"^query_categories names none of the evaluated "
                      r"queries \(its keys: 'X', 'Y'; the queries: 'x', 'y'\): every query's "
                      r"target is its own uncertain category$"):
        unused = evaluate(run, MEM, ["P@1"], query_categories={"Y": "a", "X": "b"}, n_worlds=0)
    own = evaluate(run, MEM, ["P@1"], n_worlds=0)
    assert unused.to_frame().equals(own.to_frame())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        used = evaluate(run, MEM, ["P@1"], query_categories={"y": "a", "X": "b"}, n_worlds=0)
    assert not used.to_frame().equals(own.to_frame())


def test_queries_missing_from_the_truth():
    """trec_eval's rule by default: a query the truth does not judge is not evaluated (with a
    warning naming it); missing='error' raises."""
    pq = ProbabilisticQrels(["q1"], ["a"], [0.5])
    run = Run(["q1", "q2"], ["a", "a"], [1.0, 1.0])
    with pytest.warns(UserWarning, match=r"query\(ies\) 'q2' of the runs are not in the "
                      r"probabilistic qrels: 1 query\(ies\) not evaluated"):
        ev = evaluate(run, pq, ["P@1"], n_worlds=0)
    assert ev.queries == ("q1",)
    with pytest.raises(ValueError, match=r"query\(ies\) 'q2' of the runs are not in the qrels"):
        evaluate(run, Qrels(["q1"], ["a"], [1]), ["P@1"], missing="error")


def test_accessors_validate_their_arguments():
    ev = evaluate(RUN, MEM, ["P@1"], query_categories={"q": "a"}, n_worlds=0)
    with pytest.raises(ValueError, match=r"system must be one of \['run'\]; got 'other'"):
        ev.distribution("other", "q", "P@1")
    with pytest.raises(ValueError, match=r"measure must be one of \['P@1'\]; got 'AP'"):
        ev.distribution("run", "q", "AP")
    with pytest.raises(ValueError, match=r"query_id must be one of \['q'\]; got 'zz'"):
        ev.distribution("run", "zz", "P@1")
    with pytest.raises(ValueError, match=r"confidence_level must be a number strictly between"):
        ev.aggregate(confidence_level=2)


def test_probabilistic_qrels_validation():
    with pytest.raises(ValueError, match=r"probability must be within \[0, 1\]; got 1.5"):
        ProbabilisticQrels(["q"], ["d"], [1.5])
    with pytest.raises(ValueError, match=r"document 'd' is listed 2 times for query 'q' "
                       r"\(rows 0, 1\); give one probability per \(query, document\)"):
        ProbabilisticQrels(["q", "q"], ["d", "d"], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"probability_col='p' is not a column"):
        ProbabilisticQrels.from_dataframe(
            pd.DataFrame({"query_id": [], "doc_id": []}), probability_col="p"
        )


def test_bands_equal_the_foundation_curve_and_the_per_cutoff_measures():
    from fuzzytruth import precision_recall_curve
    from fuzzytruth.evaluation import precision_recall_bands

    mem = annotated(
        {
            "x": ["a1", "a1", "b1", "a"],
            "y": ["a1", "b1", "b1", "a1"],
            "z": ["a2", "a2", "a2", "b"],
            "w": ["b1", "b2", "b1", "b1"],
            "v": ["a1", "a1", "a1", "a2"],
        }
    )
    run = Run(["x"] * 3, ["y", "z", "w"], [3.0, 2.0, 1.0])
    bands = precision_recall_bands(run, mem, recall_form="expected_size")
    foundation = precision_recall_curve(
        mem, ["y", "z", "w"], query="x", recall_form="expected_size"
    ).to_frame()
    for measure in ("precision", "recall"):
        ours = bands[bands["measure"] == measure]
        theirs = foundation[foundation["measure"] == measure]
        np.testing.assert_allclose(ours["mean"], theirs["mean"], atol=1e-12)
        for column in ("truth_std", "truth_low", "truth_high"):
            np.testing.assert_allclose(ours[column], theirs[column], atol=1e-12)
    exact = precision_recall_bands(run, mem)
    per_cutoff = evaluate(run, mem, ["P@1", "P@2", "P@3", "R@1", "R@2", "R@3"], n_worlds=0)
    frame = per_cutoff.to_frame()
    np.testing.assert_allclose(exact["mean"], frame["mean"], atol=1e-12)
    np.testing.assert_allclose(exact["p_undefined"], frame["p_undefined"], atol=1e-12)


def test_tie_averaged_policy_goes_through_worlds_and_matches_the_crisp_kernels():
    # preset "textbook": expectation over the orders of tied documents; no closed form here
    items = [f"i{i}" for i in range(8)]
    labels = ["a1", "a2", "b1", "a1", "b2", "a", "a1", "b"]
    mem = annotated({i: [lab] * 2 for i, lab in zip(items, labels, strict=True)})
    run = Run(["q"] * 6, items[:6], [2.0, 2.0, 1.0, 1.0, 1.0, 0.0])
    measures = ["AP", "P@3", "nDCG@4", "RR", "R@2"]
    ev = evaluate(
        run, mem, measures, preset="textbook", query_categories={"q": "a"}, n_worlds=2, rng=0
    )
    assert (ev.to_frame()["method"] == "worlds").all()
    qrels = crisp_qrels(items, labels, {"q": "a"})
    rg = ranked_gains(run, qrels, ties="average", score_dtype="float64")
    expected = compute_measures(rg, measures, preset="textbook").loc["q"]
    got = ev.to_frame().set_index("measure")["mean"]
    np.testing.assert_allclose(got[measures], expected[measures], atol=1e-12)
    with pytest.raises(ValueError, match=r"method='exact': no closed form for \['AP', 'P@3'"):
        evaluate(run, mem, measures, preset="textbook", query_categories={"q": "a"}, method="exact")


@pytest.mark.parametrize("kind", ["crisp", "probabilistic"])
def test_no_measures_is_refused_by_name_and_an_empty_evaluation_tabulates_to_no_rows(kind):
    # issue 23: evaluate(measures=[]) built an Evaluation whose to_frame() and compare() raised
    # pandas' "No objects to concatenate"
    from fuzzytruth.stats import compare

    run = Run(["q"] * 2, ["a", "b"], [2.0, 1.0])
    truth = (
        Qrels.from_dataframe(pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]}))
        if kind == "crisp" else ProbabilisticQrels.from_dataframe(
            pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "probability": [0.5]}))
    )
    for empty in ([], (), iter([])):
        with pytest.raises(ValueError, match=r"measures must name at least one measure.*got"):
            evaluate({"A": run, "B": run}, truth, empty)
    full = evaluate({"A": run, "B": run}, truth, ["P@1"], n_worlds=4, rng=0)
    none = full.replace(
        measures=(), families={}, counted={}, batches={}, methods={},
        worlds=None if full.n_worlds == 0 else full._worlds[:0],
    )
    frame = none.to_frame()
    assert len(frame) == 0
    assert list(frame.columns) == list(full.to_frame().columns)
    assert frame.dtypes.to_dict() == full.to_frame().dtypes.to_dict()
    with pytest.raises(ValueError, match="scores must hold at least one measure; got an Evalu"):
        compare(none)


@pytest.mark.parametrize("preset", [None, "trec", "textbook"])
def test_certain_probabilistic_qrels_are_the_crisp_qrels_with_fractional_grades(preset):
    """Probabilities of 0 and 1 give the crisp qrels' numbers for the whole registry, under
    the default preset too, with grades trec_eval truncates (2.7 is grade 2, 0.5 grade 0; the
    probabilistic grades were kept as given under every preset)."""
    rng = np.random.default_rng(7)
    docs = np.array([f"d{i:02d}" for i in range(25)])
    rows = [(f"q{q}", d, float(s)) for q in range(5)
            for d, s in zip(rng.choice(docs, 15, replace=False), rng.random(15), strict=True)]
    run = Run.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    judged = [(f"q{q}", d) for q in range(5) for d in rng.choice(docs, 12, replace=False)]
    queries, judged_docs = zip(*judged, strict=True)
    grades = rng.choice([0.0, 0.5, 1.0, 1.5, 2.7, 3.0], len(judged))
    qrels = Qrels(queries, judged_docs, grades)
    pq = ProbabilisticQrels(queries, judged_docs, (grades > 0).astype(float),
                            np.where(grades > 0, grades, 1.0))
    options = {} if preset is None else {"preset": preset}
    if preset == "textbook":  # grades as given on both sides; its tie-averaging lacks iP
        options["ties"] = "docid_desc"
    measures = [*REGISTRY, parse_measure("RBP(grading=graded)")]  # trec_eval 10's rbp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        crisp = evaluate(run, qrels, measures, **options).to_frame()
        uncertain = evaluate(run, pq, measures, n_worlds=3, rng=0, **options).to_frame()
    assert (uncertain["truth_std"].fillna(0) == 0).all()
    np.testing.assert_allclose(uncertain["mean"], crisp["mean"], rtol=0, atol=1e-12)


def test_a_fractional_relevance_level_is_refused_for_graded_probabilistic_qrels_under_trec():
    run = Run(["q"] * 2, ["a", "b"], [2.0, 1.0])
    pq = ProbabilisticQrels(["q"] * 2, ["a", "b"], [0.5, 1.0], grade=[2.0, 1.0])
    with pytest.raises(ValueError, match=r"relevance_level must be a whole number .*got 1\.5"):
        evaluate(run, pq, ["P@2"], relevance_level=1.5, preset="trec")
    ev = evaluate(run, pq, ["P@2"], relevance_level=1.5, preset="textbook", ties="docid_desc")
    assert ev.value("run", "P@2") == pytest.approx(0.25)  # only a (grade 2), relevant w.p. 0.5


@settings(max_examples=30, deadline=None)
@given(n_docs=st.integers(0, 10**6), more=st.integers(0, 1000),
       d=st.floats(-4, 4, allow_nan=False), p=st.floats(0, 1))
def test_the_collection_size_is_utility_s_and_adds_d_per_document(n_docs, more, d, p):
    """trec_eval -N (m_utility.c): d weighs the N + TP - retrieved - R documents neither
    retrieved nor relevant, so each more document of the collection adds d to every query's
    utility; evaluate(n_docs_in_collection=) sets it as the measure's n_docs=, which a
    measure's own (non-zero: 0 is the family's default, unset) still overrides. Crisp and
    probabilistic qrels (the exact form, which needs c = d) alike."""
    run = Run(["q1", "q1", "q2"], ["a", "b", "c"], [2.0, 1.0, 1.0])
    truths = (Qrels(["q1", "q2", "q2"], ["a", "c", "d"], [1, 0, 2]),
              ProbabilisticQrels(["q1", "q2", "q2"], ["a", "c", "d"], [p, 1.0, 1 - p]))
    utility = f"Utility(a=2,c={d!r},d={d!r}"
    for truth in truths:
        def per_query(measure, truth=truth, **options):
            return evaluate(run, truth, measure, n_worlds=0, **options).to_frame()["mean"]

        base = per_query(f"{utility})", n_docs_in_collection=n_docs)
        np.testing.assert_allclose(base, per_query(f"{utility},n_docs={n_docs})"))
        np.testing.assert_allclose(per_query(f"{utility})", n_docs_in_collection=n_docs + more),
                                   base + d * more, atol=1e-6)
        np.testing.assert_allclose(  # the measure's own n_docs wins
            per_query(f"{utility},n_docs={n_docs + more + 1})", n_docs_in_collection=n_docs),
            base + d * (more + 1), atol=1e-6)


@pytest.mark.parametrize("bad", [-1, 2.5, True, "10"])
def test_a_collection_size_is_a_non_negative_integer(bad):
    run, qrels = Run(["q"], ["a"], [1.0]), Qrels(["q"], ["a"], [1])
    with pytest.raises(ValueError, match=rf"n_docs_in_collection must be an integer >= 0; "
                                         rf"got {bad!r}"):
        evaluate(run, qrels, "Utility", n_docs_in_collection=bad)


def test_utility_without_its_closed_form_is_given_by_the_worlds():
    """Utility's closed form holds for c = d only (with c != d it reads the relevant documents
    not retrieved too, a joint law) and returns None otherwise; the engine took any family
    with a closed form as having one for every parameter, and failed with an AttributeError
    on None. Now such a measure is given by the worlds (method='auto' and 'worlds'), refused
    by method='exact', and the mean over the worlds agrees with the expectation over every
    one of the 2^3 worlds, each evaluated as crisp qrels (the oracle)."""
    run = Run(["q1", "q1", "q2"], ["a", "b", "c"], [2.0, 1.0, 1.0])
    docs, probs = [("q1", "a"), ("q1", "x"), ("q2", "c")], [0.5, 0.7, 0.2]
    pq = ProbabilisticQrels(*zip(*docs, strict=True), probs)
    measures = ["Utility(c=-1)", "Utility(c=0.5,d=2)", "Utility(c=1,d=1)"]
    expected = np.zeros((len(measures), 2))
    for world in itertools.product([0, 1], repeat=len(docs)):
        weight = np.prod([p if r else 1 - p for p, r in zip(probs, world, strict=True)])
        crisp = Qrels(*zip(*docs, strict=True), world)
        frame = evaluate(run, crisp, measures, n_docs_in_collection=10).to_frame()
        expected += weight * frame["mean"].to_numpy().reshape(len(measures), 2)
    got = evaluate(run, pq, measures, n_docs_in_collection=10, n_worlds=20_000, rng=3)
    frame = got.to_frame()
    assert [m.split("_")[0] for m in frame["method"]] == ["worlds"] * 4 + ["exact"] * 2
    mean = frame["mean"].to_numpy().reshape(len(measures), 2)
    se = frame["mc_se"].fillna(0).to_numpy().reshape(len(measures), 2)
    assert np.all(np.abs(mean - expected) <= 4 * se + 1e-12)
    np.testing.assert_allclose(mean[2], expected[2], atol=1e-12)  # c = d: the closed form
    with pytest.raises(ValueError, match=r"no closed form for \['Utility\(c=-1\)'"):
        evaluate(run, pq, measures, n_docs_in_collection=10, method="exact")


def test_skip_keeps_the_exact_aggregate_of_a_measure_that_is_never_undefined():
    """Under undefined="skip" the aggregate was always the mean over the sampled worlds of each
    world's mean over its defined queries, a Monte Carlo estimate (0.0477 ± 0.0017 here), even
    for P@10, which no query can leave undefined: the same quantity as the mean of the
    queries' exact expectations (0.05), which undefined="zero" reports with mc_se 0. Where
    the closed form gives every query probability 0 of being undefined, skip now keeps it;
    AP, undefined where a world has no relevant document, stays the mean over the worlds."""
    run = Run(["q1", "q1", "q2", "q3"], ["d1", "d2", "d1", "d1"], [3.0, 2.0, 1.0, 1.0])
    truth = ProbabilisticQrels(["q1", "q1", "q2", "q3"], ["d1", "d3", "d1", "d2"],
                               [0.5, 0.2, 1.0, 0.3])
    skip, zero = (evaluate(run, truth, ["P@10", "AP"], n_worlds=100, rng=0,
                           undefined=rule).aggregate().set_index("measure")
                  for rule in ("skip", "zero"))
    # by hand: P@10 of q1 is 0.1 x P(d1 relevant) = 0.05, of q2 0.1 (d1 certain), of q3 0
    # (its one retrieved document is not judged for it): mean (0.05 + 0.1 + 0) / 3
    assert skip.loc["P@10", "value"] == zero.loc["P@10", "value"] == pytest.approx(0.05)
    assert skip.loc["P@10", "mc_se"] == 0.0 and skip.loc["P@10", "n_queries"] == 3
    assert skip.loc["AP", "mc_se"] > 0 and skip.loc["AP", "n_queries"] < 3
    assert skip.loc["AP", "value"] != pytest.approx(zero.loc["AP", "value"])


def test_skip_aggregates_monte_carlo_error_counts_the_worlds_it_averages():
    """Under undefined="skip" the aggregate is the mean over the worlds where some query is
    defined; its standard error divided their spread by the square root of every world
    drawn: here AP is defined in 45 % of the worlds, and the reported error was 0.67 of the
    value's spread over seeds (Monte Carlo oracle: 100 seeds)."""
    run = Run(["q"], ["a"], [1.0])
    truth = ProbabilisticQrels(["q", "q", "q"], ["a", "b", "c"], [0.05, 0.05, 0.4])
    rows = [evaluate(run, truth, "AP", undefined="skip", n_worlds=200, rng=seed).aggregate()
            for seed in range(100)]
    values = np.array([r["value"].item() for r in rows])
    reported = np.array([r["mc_se"].item() for r in rows])
    # the spread of 100 values is known to about 7 %: the error of the fix is 1.0 of it
    assert 0.8 < reported.mean() / values.std(ddof=1) < 1.25
    ev = evaluate(run, truth, "AP", undefined="skip", n_worlds=200, rng=0)
    per_world = ev.world_scores("AP")[:, 0, 0]
    defined = per_world[~np.isnan(per_world)]
    assert ev.aggregate()["mc_se"].item() == pytest.approx(
        defined.std(ddof=1) / np.sqrt(len(defined)), rel=1e-12)


def test_judged_queries_no_run_answers_are_named_not_dropped_in_silence():
    """trec_eval without -c leaves out the judged queries a run does not answer, so a run that
    skipped its hard queries has a higher mean; the numbers stay trec_eval's (pytrec_eval
    agrees), and a warning names those queries and complete=True, as the classifier path
    names the items the predictions miss. One warning for all systems; none when every
    judged query is answered, with complete=True, or for a categorical truth (its judged
    queries are query_categories' keys, which have their own warning)."""
    qrels = Qrels(["1", "2", "3"], ["a", "a", "a"], [1, 1, 1])
    partial = Run(["1"], ["a"], [1.0], name="partial")
    with pytest.warns(UserWarning, match=r"^2 judged query\(ies\) that no run answers are not "
                                         r"evaluated \(complete=False, as trec_eval without "
                                         r"-c\): '2', '3'; complete=True scores them as empty"):
        assert evaluate(partial, qrels, "P@1").value("partial", "P@1") == 1.0
    oracle = pytrec_eval.RelevanceEvaluator({q: {"a": 1} for q in "123"}, {"P_1"})
    assert [v["P_1"] for v in oracle.evaluate({"1": {"a": 1.0}}).values()] == [1.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate({"p": partial, "q": Run(["1", "2"], ["a", "b"], [1.0, 1.0])}, qrels, "P@1")
    said = [str(w.message) for w in caught]
    unanswered = [m for m in said if "no run answers" in m]
    assert len(unanswered) == 1  # one warning for both systems: query 3, which neither answers
    assert unanswered[0].startswith("1 judged query(ies) that no run answers are not "
                                    "evaluated (complete=False, as trec_eval without -c): '3';")
    # and p, which misses query 2 that q answers, scores it as an empty list: said too
    assert [m for m in said if m not in unanswered] == [
        "1 system(s) answer only some of the evaluated queries (2, those of all the runs) and "
        "score the others as empty lists (0 for most measures): 'p' misses 1 ('2'). "
        "trec_eval, run on each run alone, leaves a run's missed queries out of its mean: "
        "evaluate a run alone for that number, or pass complete=True to count every judged "
        "query for every system (trec_eval -c)"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert evaluate(partial, qrels, "P@1", complete=True).value("partial", "P@1") == 1 / 3
        evaluate(Run(["1", "2", "3"], ["a"] * 3, [1.0] * 3), qrels, "P@1")
    taxonomy = Taxonomy.flat(["cat", "dog"])
    membership = Membership.from_labels({"x": "cat", "y": "dog"}, taxonomy=taxonomy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(Run(["x"], ["y"], [1.0]), membership, "P@1", n_worlds=0,
                 query_categories={"x": "cat", "y": "dog"})


def test_query_and_item_ids_spelled_otherwise_than_the_truths_say_which_it_names():
    """A run's query 'Q1' (or ' q1', '001') where the qrels say 'q1' (or '1') is left out, as
    trec_eval does, with a warning that named it alone; the warning now also shows the
    truth's spelling. Classifier items likewise; ids that are simply absent get no guess."""
    from fuzzytruth.classify import Predictions

    qrels = Qrels(["q1", "q2", "1"], ["d1", "d2", "d1"], [1, 1, 1])
    for query, truths in (("Q1", "q1"), (" q1", "q1"), ("001", "1")):
        run = Run([query, "q2"], ["d1", "d2"], [1.0, 1.0])
        with pytest.warns(UserWarning, match=rf"query\(ies\) '{query}' of the runs are not in "
                                             rf"the qrels \(the truth names '{truths}' where "
                                             rf"the runs say '{query}': ids are matched "
                                             r"exactly"):
            evaluate(run, qrels, "AP")
    with pytest.warns(UserWarning) as said:
        evaluate(Run(["q9", "q2"], ["d1", "d2"], [1.0, 1.0]), qrels, "AP")
    assert not any("the truth names" in str(w.message) for w in said)
    truth = Membership.from_labels({"img1": "a", "img2": "b"}, taxonomy=Taxonomy.flat(["a", "b"]))
    pred = Predictions([[0.9, 0.1], [0.2, 0.8]], items=["IMG1", "img2"], classes=["a", "b"])
    with pytest.warns(UserWarning, match=r"the truth has no item 'IMG1' \(the truth names "
                                         r"'img1' where the predictions say 'IMG1'"):
        evaluate(pred, truth, ["Acc"], rng=0)


def _spelled_otherwise_by_hand(missing, known, given="the runs"):
    """The rule of spelled_otherwise, one id at a time in plain Python (the oracle)."""
    def folded(text):
        out = str(text).strip().casefold()
        return (out.lstrip("0") or out) if out.isdigit() else out

    by_form = {}
    for k in known:
        by_form.setdefault(folded(k), k)
    for m in missing:
        k = by_form.get(folded(m))
        if k is not None and str(k) != str(m):
            return (f" (the truth names {str(k)!r} where {given} say {str(m)!r}: ids are "
                    "matched exactly, case, spaces and leading zeros included)")
    return ""


_ODD_IDS = st.lists(
    st.one_of(st.text(alphabet="0Qq1 \t\x1c\u00a0\u2003\u00b2\u0663\u00dfSs", max_size=5),
              st.integers(-3, 30)),
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(missing=_ODD_IDS, known=_ODD_IDS)
def test_the_spelling_hint_is_the_per_id_rule(missing, known):
    """spelled_otherwise folds ids with pandas' passes of Python's own string methods; it
    names the same pair as folding one id at a time (Unicode spaces such as \\x1c and
    U+2003, digits such as '²' and Arabic-Indic '٣', 'ß' against 'ss', integers)."""
    from fuzzytruth.truth.protocol import spelled_otherwise

    assert spelled_otherwise(missing, known) == _spelled_otherwise_by_hand(missing, known)


def test_a_run_that_retrieves_no_judged_document_says_so_with_both_spellings():
    """Ids spelled otherwise than the judgments' ('D1' for 'd1', a prefix, leading zeros)
    gave 0 for every measure without a word; a run none of whose documents is judged, in
    any query, now warns, showing one id of each. Crisp and probabilistic qrels alike; a run
    with a judged document anywhere does not warn."""
    qrels = Qrels(["q1", "q1", "q2"], ["d1", "d2", "d3"], [1, 0, 1])
    shouted = Run(["q1", "q1", "q2"], ["D1", "D2", "D3"], [2.0, 1.0, 1.0], name="bm25")
    said = (r"^run 'bm25' retrieves no judged document in any query: every measure reads its "
            r"lists as holding nothing relevant\. .* for query 'q1' it retrieves 'D1', the "
            r"judgments name 'd1'$")
    with pytest.warns(UserWarning, match=said):
        assert evaluate(shouted, qrels, "AP").value("bm25", "AP") == 0.0
    pq = ProbabilisticQrels(["q1", "q1", "q2"], ["d1", "d2", "d3"], [0.9, 0.2, 0.7])
    with pytest.warns(UserWarning, match=said):
        evaluate(shouted, pq, "P@1", n_worlds=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(Run(["q1", "q2"], ["d2", "x"], [1.0, 1.0]), qrels, "AP")  # d2: judged, 0
