"""Possible worlds: the sampler's laws, reproducibility, and agreement with exact forms."""

import zlib
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from registry_families import package_families, resolve_default

from fuzzytruth import Annotations, Membership, ProbabilisticQrels, Taxonomy
from fuzzytruth._random import draw_seed, pair_keys, uniforms, unit_keys
from fuzzytruth.evaluation import evaluate
from fuzzytruth.measures import Measure, families, parse_measure
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.runs import Qrels, Run
from fuzzytruth.truth.pair_worlds import QrelsWorlds
from fuzzytruth.uncertain.worlds import (
    CategoricalWorlds,
    RankedDocs,
    kernel_params,
    sample_labels,
    world_values,
)
from fuzzytruth.uncertain.worlds import (
    compress as _compress,
)

TAX = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": ["b1", "b2"]}})


def membership(labels_by_item):
    """Membership from {item: [label of each annotator]}."""
    rows = [
        (item, f"s{j}", label)
        for item, labels in labels_by_item.items()
        for j, label in enumerate(labels)
    ]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    return Membership.from_annotations(Annotations.from_frame(frame, taxonomy=TAX))


def random_membership(n_items, rng, n_annotators=4):
    leaves = ["a1", "a2", "b1", "b2", "a", "b"]
    return membership(
        {
            f"i{i}": list(rng.choice(leaves, size=n_annotators, p=[0.3, 0.2, 0.2, 0.2, 0.05, 0.05]))
            for i in range(n_items)
        }
    )


def random_run(items, queries, rng, depth=8, name="run"):
    rows = []
    for q in queries:
        for rank, d in enumerate(rng.choice(items, size=depth, replace=False)):
            rows.append((q, d, float(depth - rank)))
    return Run.from_dataframe(
        pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]), name=name
    )


def test_labels_follow_the_annotator_shares():
    mem = membership({"x": ["a1", "a1", "b", "a2"], "y": ["b2"] * 4})
    labels = sample_labels(mem, 20_000, rng=1)
    share = np.mean(labels[:, 0] == TAX.index("a1"))
    assert share == pytest.approx(0.5, abs=4 * np.sqrt(0.25 / 20_000))
    assert np.all(labels[:, 1] == TAX.index("b2"))  # unanimous: always the same label
    assert set(np.unique(labels[:, 0])) == set(TAX.indices(["a1", "b", "a2"]))


def test_labels_need_direct_shares():
    closed = Membership.from_probabilities(
        pd.DataFrame({"a": [0.5]}, index=["x"]), taxonomy=TAX, close=False
    )
    with pytest.raises(ValueError, match="needs the annotators' direct shares"):
        sample_labels(closed, 5, rng=0)
    with pytest.raises(ValueError, match="n_worlds must be a positive integer; got 0"):
        sample_labels(closed, 0, rng=0)


@pytest.mark.parametrize("world_model", ["annotator", "bernoulli"])
def test_results_do_not_depend_on_the_chunk_size(world_model):
    rng = np.random.default_rng(3)
    mem = random_membership(40, rng)
    items = list(mem.items)
    truth_args = dict(
        fixed=np.array([TAX.index("a"), TAX.index("b1"), -1, -1, TAX.index("all")]),
        query_item=np.array([-1, -1, 0, 1, -1]),
    )
    q, n = np.nonzero(mem.direct[[0, 1]])
    comps = (np.array([2, 3])[q], n, mem.direct[[0, 1]][q, n])
    docs = RankedDocs(rng.integers(-1, len(items), size=(5, 7)), np.full(5, 7))
    measures = [
        Measure("AP").resolve("trec"),
        Measure("nDCG", k=5).resolve("trec"),
        Measure("Rprec").resolve("trec"),
    ]  # two on the binary route, one generic
    out = []
    for budget in (1.0, 1e9):  # one world per chunk, then all worlds in one chunk
        truth = CategoricalWorlds(
            mem,
            **truth_args,
            components=comps,
            own_label=True,
            exclude_query=True,
            world_model=world_model,
        )
        out.append(
            world_values(
                truth,
                [docs],
                measures,
                n_worlds=30,
                seed=7,
                memory_budget=budget,
            )[0]
        )
    np.testing.assert_array_equal(out[0], out[1])


def test_kernels_accept_int8_binary_relevance():
    # the worlds engine passes int8 gains and ideal; every registered kernel must give the
    # values it gives on float64 input
    rng = np.random.default_rng(0)
    gains = (rng.random((300, 20)) < 0.3).astype(np.int8)
    gains[rng.random((300, 20)) < 0.1] = 0
    count = gains.sum(axis=1) + rng.integers(0, 5, 300)
    ideal = (np.arange(25)[None] < count[:, None]).astype(np.int8)
    lengths = rng.integers(0, 21, 300)
    gains[np.arange(20)[None] >= lengths[:, None]] = 0
    ids = np.arange(300).astype(object)
    # judged fields for the families that read them: every relevant document and some others
    shown = np.arange(20)[None] < lengths[:, None]
    judged = (gains > 0) | ((rng.random((300, 20)) < 0.5) & shown)
    n_zero = rng.integers(0, 4, 300)
    judged_grades = np.full((300, 28), np.nan)
    judged_grades[:, :25] = np.where(ideal > 0, 1.0, np.nan)
    judged_grades[:, 25:][np.arange(3)[None] < n_zero[:, None]] = 0.0
    judged_grades = -np.sort(-judged_grades, axis=1)  # descending, NaN padding last
    extra = {"judged": judged, "n_judged": (~np.isnan(judged_grades)).sum(axis=1),
             "judged_grades": judged_grades}
    small = RankedGains(ids, gains, lengths, ideal, **extra)
    wide = RankedGains(ids, gains.astype(float), lengths, ideal.astype(float), **extra)
    for name, fam in package_families().items():
        measure = resolve_default(name, fam)
        np.testing.assert_array_equal(measure.compute(small), measure.compute(wide), err_msg=name)


@pytest.mark.parametrize("world_model", ["annotator", "bernoulli"])
def test_monte_carlo_agrees_with_exact(world_model):
    rng = np.random.default_rng(5)
    mem = random_membership(30, rng)
    items = list(mem.items)
    queries = [f"q{i}" for i in range(6)]
    run = random_run(items, queries, rng)
    cats = dict(zip(queries, ["a", "a1", "b", "b2", "a2", "all"], strict=True))
    measures = ["P@5", "R@5", "RR", "F@3", "Success@2"]
    exact = evaluate(run, mem, measures, query_categories=cats, method="exact", n_worlds=0)
    mc = evaluate(
        run,
        mem,
        measures,
        query_categories=cats,
        method="worlds",
        n_worlds=4000,
        world_model=world_model,
        rng=11,
    )
    e, m = exact.to_frame(), mc.to_frame()
    assert m["method"].isin(["worlds", "worlds_binary"]).all() and (e["method"] == "exact").all()
    se = np.maximum(m["mc_se"], 1e-12)
    z = np.abs(m["mean"] - e["mean"]) / se
    assert np.nanmax(z) < 4.5
    assert np.allclose(m["p_undefined"], e["p_undefined"], atol=0.05)


def test_annotator_worlds_are_consistent_with_the_taxonomy():
    # the same list judged for a parent and for its child: in every annotator world the child's
    # hits are a subset of the parent's, so P@k(child) <= P@k(parent)
    rng = np.random.default_rng(8)
    mem = random_membership(25, rng)
    run = random_run(list(mem.items), ["parent"], rng)
    child = Run(["child"] * len(run), run.doc_ids, run.scores)
    ev = evaluate(
        {
            "s": Run(
                np.concatenate([run.query_ids, child.query_ids]),
                np.concatenate([run.doc_ids, child.doc_ids]),
                np.concatenate([run.scores, child.scores]),
            )
        },
        mem,
        ["P@8"],
        query_categories={"parent": "a", "child": "a1"},
        rng=2,
        n_worlds=300,
    )
    scores = ev.world_scores("P@8")[:, 0, :]  # (worlds, queries) in sorted query order
    child_pos, parent_pos = ev.queries.index("child"), ev.queries.index("parent")
    assert np.all(scores[:, child_pos] <= scores[:, parent_pos])
    assert np.any(scores[:, child_pos] < scores[:, parent_pos])


def test_query_target_is_its_own_label_in_each_world():
    # query item x: half its annotators say a1, half b1; the results are certainly a1. In each
    # annotator world P@2 is 1 (x labelled a1) or 0 (x labelled b1).
    mem = membership(
        {"x": ["a1", "a1", "b1", "b1"], "y": ["a1"] * 4, "z": ["a1"] * 4, "w": ["b2"] * 4}
    )
    run = Run(["x", "x"], ["y", "z"], [2.0, 1.0])
    ev = evaluate(run, mem, ["P@2"], method="worlds", rng=4, n_worlds=2000)
    values = ev.world_scores("P@2")[:, 0, 0]
    assert set(np.unique(values)) == {0.0, 1.0}
    assert values.mean() == pytest.approx(0.5, abs=4 * np.sqrt(0.25 / 2000))
    exact = evaluate(run, mem, ["P@2"], method="exact", n_worlds=0)
    assert exact.distribution("run", "x", "P@2").mean() == pytest.approx(0.5)


def test_world_model_is_validated():
    mem = membership({"x": ["a1"] * 2})
    with pytest.raises(
        ValueError,
        match=r"world_model must be one of \['annotator', "
        r"'bernoulli'\]; got 'dirichlet'",
    ):
        evaluate(
            Run(["q"], ["x"], [1.0]),
            mem,
            ["AP"],
            query_categories={"q": "a"},
            world_model="dirichlet",
        )


BINARY_SPELLINGS = [
        "P@3",
        "P",
        "P@40",
        "R@5",
        "R",
        "Success@2",
        "Success",
        "RR",
        "RR@4",
        "AP",
        "AP@6",
        "AP(denominator=retrieved_relevant)",
        "AP(denominator=retrieved_relevant)@6",
        "DCG@5",
        "DCG",
        "nDCG@10",
        "nDCG(discount=jk)@7",
        "nDCG(gain=exp)@3",
        "nDCG(gain={1:3})@4",
        "nDCG(ideal=list)@6",
        "nDCG(ideal=list,discount=jk)@25",
        "P(rel=2)@3",
        "Rprec",
        "Rprec(rel=2)",
        # cutoffs far past any list (trec_eval's recall_1000 on 100-document runs, and
        # beyond): their kernels and ideals were sized by k (nDCG@10**12 asked for a
        # 10**12 x 10**12 matrix; R@10,000 under a membership was killed for memory)
        "nDCG@1000000000000",
        "nDCG(ideal=list,gain=exp)@1000000000000",
        "DCG@1000000000000",
        "AP@1000000000000",
        "RR@1000000000000",
        "R@1000000000000",
        "P@1000000000000",
    ]


def binary_kernel(measure, depth):
    """The family's 0/1-world kernel for a resolved measure (None when it has none)."""
    factory = measure.family.binary
    return None if factory is None else factory(depth, **kernel_params(measure))


@pytest.mark.parametrize("spelling", BINARY_SPELLINGS)

def test_binary_route_equals_the_registered_kernels(spelling):
    rng = np.random.default_rng(zlib.crc32(spelling.encode()))
    n, depth = 400, 20
    lengths = rng.integers(0, depth + 1, n)
    relevant = (rng.random((n, depth)) < 0.3) & (np.arange(depth)[None] < lengths[:, None])
    n_relevant = relevant.sum(axis=1) + rng.integers(0, 4, n)
    ideal = (np.arange(n_relevant.max())[None] < n_relevant[:, None]).astype(float)
    rg = RankedGains(np.zeros(n, dtype=object), relevant.astype(float), lengths, ideal)
    measure = parse_measure(spelling).resolve("trec")
    kernel = binary_kernel(measure, depth)
    if measure.name in ("P", "Rprec") and measure.params.get("rel") == 2:
        assert kernel is None  # grade-1 relevance never reaches rel = 2: the generic route
        return
    expected = measure.compute(rg)
    dense = np.arange(depth)[:, None]
    got = kernel(np.ascontiguousarray(relevant.T), dense, lengths, n_relevant)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    # compressed: only some ranks are candidates (every relevant one among them), in rank
    # order with their ranks, as the engine passes them under probabilistic qrels
    candidate = relevant | (rng.random((n, depth)) < 0.3)
    _, ranks = _compress(np.where(relevant, 1, 0), candidate)
    compressed = np.take_along_axis(relevant, np.minimum(ranks, depth - 1), axis=1) & (
        ranks < depth
    )
    got = kernel(np.ascontiguousarray(compressed.T), ranks.T.copy(), lengths, n_relevant)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_every_family_with_a_binary_kernel_is_checked_above():
    """Every 0/1 kernel is checked against its crisp kernel: here, or (the trec_eval and
    user-model families) in tests/test_trec_measures_uncertain.py."""
    from test_trec_measures_uncertain import NEW_MODULES

    checked = {parse_measure(s).name for s in BINARY_SPELLINGS}
    supplied = {
        name
        for name, fam in families().items()
        if fam.binary is not None
        and fam.kernel.__module__.startswith("fuzzytruth.")
        and fam.kernel.__module__ not in NEW_MODULES
    }
    assert supplied <= checked, f"add spellings for {sorted(supplied - checked)}"


def test_binary_route_is_not_taken_without_a_closed_count_form():
    assert binary_kernel(Measure("nDCG").resolve("trec"), 10) is None  # no cutoff: ideal needed


# ------------------------------------------------------------------- blocks, threads, oracles
def qrels_worlds(rng, n_q=9, graded=False):
    """A hand-built probabilistic qrels sampler (some pairs certain, some impossible, some
    queries without judged pairs) and two systems ranking judged and unjudged documents."""
    n_judged = rng.integers(0, 12, n_q)
    pair_query = np.repeat(np.arange(n_q), n_judged)
    u = rng.random(len(pair_query))
    probability = np.where(u < 0.15, 0.0, np.where(u < 0.3, 1.0, rng.beta(0.6, 1.2, len(u))))
    grade = rng.integers(1, 4, len(u)).astype(float) if graded else np.ones(len(u))
    order = np.lexsort((-grade, pair_query))  # by query, then grade descending
    pair_query, probability, grade = pair_query[order], probability[order], grade[order]
    start = np.concatenate([[0], np.cumsum(n_judged)[:-1]])
    systems = []
    for depth in (7, 15):
        docs = np.full((n_q, depth), -1)
        for q in range(n_q):  # setup only
            mine = start[q] + rng.permutation(n_judged[q])[: rng.integers(0, n_judged[q] + 1)]
            slots = rng.choice(depth, size=min(len(mine), depth), replace=False)
            docs[q, np.sort(slots)] = mine[: len(slots)]
        lengths = rng.integers(0, depth + 1, n_q)
        docs[np.arange(depth)[None, :] >= lengths[:, None]] = -1
        systems.append(RankedDocs(docs, lengths))
    truth = QrelsWorlds(pair_query, probability, grade, n_q)
    return truth, systems


def categorical_worlds(rng, world_model):
    mem = random_membership(40, rng)
    q, n = np.nonzero(mem.direct[[0, 1]])
    truth = CategoricalWorlds(
        mem,
        fixed=np.array([TAX.index("a"), TAX.index("b1"), -1, -1, TAX.index("all")]),
        query_item=np.array([-1, -1, 0, 1, -1]),
        components=(np.array([2, 3])[q], n, mem.direct[[0, 1]][q, n]),
        own_label=True,
        exclude_query=True,
        world_model=world_model,
    )
    systems = [RankedDocs(rng.integers(-1, 40, size=(5, d)), np.full(5, d)) for d in (7, 9)]
    return truth, systems


BLOCK_MEASURES = ["P@3", "AP", "R@5", "RR", "nDCG@5", "DCG", "RBP", "Rprec", "nDCG", "ADR",
                  "Bpref", "ERR@5", "SetAP"]  # the 0/1 route, the crisp kernels, judged status


@pytest.mark.parametrize("case", ["qrels", "graded", "annotator", "bernoulli"])
def test_values_do_not_depend_on_the_memory_budget_nor_the_threads(case):
    """A world's values are the same bits whatever the blocks of queries x worlds and the
    number of threads: one world and one query per block, or everything at once; 1 or 3
    threads. The default budget and thread count give the same bits too."""
    measures = [parse_measure(m).resolve("trec") for m in BLOCK_MEASURES]
    if case == "graded":  # judged status needs one grade (module docstring of the engine)
        measures = [m for m in measures if "judged" not in m.uses]
    results = []
    for budget, threads in [(1.0, 1), (1.0, 3), (1e9, 1), (1e9, 3), (None, None)]:
        rng = np.random.default_rng(21)
        truth, systems = (
            qrels_worlds(rng, graded=case == "graded") if case in ("qrels", "graded")
            else categorical_worlds(rng, case)
        )
        options = {} if budget is None else {"memory_budget": budget, "n_threads": threads}
        results.append(world_values(truth, systems, measures, n_worlds=23, seed=5,
                                    min_relevant=2 if case in ("qrels", "graded") else 10,
                                    **options))
    for values, counted in results[1:]:
        np.testing.assert_array_equal(values, results[0][0])
        np.testing.assert_array_equal(counted, results[0][1])
    assert np.isfinite(results[0][0]).any() and results[0][1].any() and not results[0][1].all()



def test_graded_counts_are_drawn_once_for_thresholds_that_keep_the_same_pairs(monkeypatch):
    """With integer grades from 1, the threshold 1 keeps every pair, as "any grade" does: a
    block draws those counts once (P@3 and AP at rel 1 and the count of relevant per query
    world read one pass), while rel=2 keeps fewer pairs and gets a pass of its own. Each
    count is the brute-force number of drawn relevant pairs of that grade (uniforms below the
    probability), plus the certain ones."""
    import fuzzytruth.truth.pair_worlds as pair_worlds

    calls = []
    real = pair_worlds.bernoulli_sums
    monkeypatch.setattr(pair_worlds, "bernoulli_sums",
                        lambda *args: calls.append(1) or real(*args))
    truth, systems = qrels_worlds(np.random.default_rng(3), n_q=30, graded=True)
    truth.plan(systems)
    truth.draw(17, seed=11)
    state = truth.block(truth.chunk(0, 17), slice(0, 30))
    any_grade, rel1 = truth.counts(state), truth.counts(state, 1.0)
    assert rel1 is any_grade and len(calls) == 1
    rel2 = truth.counts(state, 2.0)
    assert len(calls) == 2 and (rel2 < any_grade).any()
    grade, p = truth._grade[:-1], truth.probability
    drawn = np.zeros(len(p), dtype=bool)
    drawn[truth._drawn] = True
    keys = unit_keys(np.flatnonzero(drawn))
    hits = np.zeros((17, len(p)), dtype=bool)
    hits[:, drawn] = uniforms(11, 4, keys, np.arange(17)) < p[drawn]
    hits |= p == 1
    for rel, counts in [(1.0, any_grade), (2.0, rel2)]:
        expected = np.zeros((30, 17), dtype=np.int64)
        for q in range(30):
            mine = (truth.pair_query == q) & (grade >= rel)
            expected[q] = hits[:, mine].sum(axis=1)
        np.testing.assert_array_equal(counts, expected)


@pytest.mark.parametrize("world_model", ["annotator", "bernoulli"])
def test_categorical_relevance_skips_only_documents_irrelevant_in_every_world(world_model):
    """The categorical sampler leaves undrawn the ranked items that no possible target of their
    query can hold (as candidates of the 0/1 route, and in the dense gains): the relevance is
    the same bits as when every item is drawn, and some items are skipped (the law is not
    vacuous)."""
    rng = np.random.default_rng(12)
    truth, systems = categorical_worlds(rng, world_model)
    docs = np.concatenate([s.docs for s in systems], axis=1)
    truth.draw(50, seed=9)
    state = truth.block(truth.chunk(0, 50), slice(0, 5))
    every = truth.relevant(state, docs)  # (C, n_q * n_w), every item drawn
    candidates, ranks = truth.candidates(RankedDocs(docs, np.full(5, docs.shape[1])))
    assert ranks is None and ((candidates < 0) & (docs >= 0)).any()
    np.testing.assert_array_equal(truth.relevant(state, candidates), every)
    np.testing.assert_array_equal(truth.gains(state, docs), every.T)
    assert every.any()

def test_a_pass_inside_a_pool_thread_runs_in_that_thread(monkeypatch):
    """default_threads() is 1 in run_in_threads' pool threads, even with
    FUZZYTRUTH_NUM_THREADS=3: a keyed pass split over threads (gammas_below) called from a
    world-engine block stays in its block's thread (2 blocks of 3 would run 9 threads on 3
    cores); the calling thread keeps the variable's 3."""
    import threading

    from fuzzytruth._threads import default_threads, run_in_threads

    monkeypatch.setenv("FUZZYTRUTH_NUM_THREADS", "3")
    seen = run_in_threads(lambda block: (default_threads(), threading.get_ident()),
                          [0, 1, 2, 3], n_threads=2)
    assert [n for n, _ in seen] == [1] * 4
    assert threading.get_ident() not in {ident for _, ident in seen}
    assert default_threads() == 3  # the calling thread itself is no pool's


def test_evaluate_uses_the_thread_count_of_the_environment(monkeypatch):
    rng = np.random.default_rng(4)
    q = np.repeat([f"q{i}" for i in range(30)], 12)
    d = np.tile([f"d{j}" for j in range(12)], 30)
    run = Run(q, d, rng.random(len(q)))
    pq = ProbabilisticQrels(q, d, rng.random(len(q)) * (rng.random(len(q)) < 0.5))
    out = []
    for threads in ("1", "2"):
        monkeypatch.setenv("FUZZYTRUTH_NUM_THREADS", threads)
        ev = evaluate(run, pq, ["AP", "P@5"], n_worlds=50, rng=3, memory_budget=20_000.0)
        out.append(ev.world_scores("AP"))
    np.testing.assert_array_equal(out[0], out[1])
    monkeypatch.setenv("FUZZYTRUTH_NUM_THREADS", "many")
    with pytest.raises(ValueError, match="FUZZYTRUTH_NUM_THREADS must be an integer >= 1; "
                                         "got 'many'"):
        evaluate(run, pq, ["AP"], n_worlds=5, rng=3)
    monkeypatch.delenv("FUZZYTRUTH_NUM_THREADS")
    with pytest.raises(ValueError, match="n_threads must be an integer >= 1; got 0"):
        world_values(*qrels_worlds(rng), [parse_measure("AP").resolve("trec")], n_worlds=2,
                      seed=1, n_threads=0)
    with pytest.raises(ValueError, match="memory_budget must be a number of bytes > 0"):
        world_values(*qrels_worlds(rng), [parse_measure("AP").resolve("trec")], n_worlds=2,
                     seed=1, memory_budget=0)


def test_world_values_write_into_given_arrays_at_the_places_asked():
    """``out`` and ``places``: the values and counted flags of these queries written into a
    larger evaluation's arrays at their places (the blocks of ragged queries), the same as
    the arrays made for them alone; every other column left as it was; arrays of the wrong
    shape or places for another number of queries refused."""
    rng = np.random.default_rng(21)
    truth, systems = qrels_worlds(rng)
    measures = [parse_measure(m).resolve("trec") for m in ("AP", "P@3", "nDCG@5")]
    alone, counted = world_values(truth, systems, measures, n_worlds=40, seed=4,
                                  min_relevant=2)
    places = np.sort(rng.choice(14, size=9, replace=False))
    values = np.full((3, 2, 40, 14), -7.0)
    flags = np.zeros((40, 14), dtype=bool)
    got, got_counted = world_values(truth, systems, measures, n_worlds=40, seed=4,
                                    min_relevant=2, out=(values, flags), places=places)
    assert got is values and got_counted is flags
    np.testing.assert_array_equal(values[..., places], alone)
    np.testing.assert_array_equal(flags[:, places], counted)
    others = np.setdiff1d(np.arange(14), places)
    assert (values[..., others] == -7.0).all() and not flags[:, others].any()
    for wrong in (places[:5], np.append(places[:8], places[0]), places + 14):
        with pytest.raises(ValueError, match=r"places must say where the 9 queries go in the "
                                             r"last axis of out, of 14, each a different"):
            world_values(truth, systems, measures, n_worlds=40, seed=4, min_relevant=2,
                         out=(values, flags), places=wrong)
    with pytest.raises(ValueError, match=r"out\[0\] must be a float64 array of shape "
                                         r"\(3, 2, 40, 'n'\)"):
        world_values(truth, systems, measures, n_worlds=40, seed=4,
                     out=(np.empty((3, 2, 39, 9)), None))
    with pytest.raises(ValueError, match=r"out\[1\] must be a bool array of shape \(40, 9\) "
                                         r"when min_relevant > 0, else None; got None"):
        world_values(truth, systems, measures, n_worlds=40, seed=4, min_relevant=2,
                     out=(np.empty((3, 2, 40, 9)), None))


def _every_document_ranked(rng, n_q, n_d, judged_share, graded):
    """Probabilistic qrels (some pairs certain, some impossible) judging a share of the
    documents of a run that ranks every document of every query, and the judged pairs'
    grades."""
    q = np.repeat([f"q{i}" for i in range(n_q)], n_d)
    d = np.tile([f"d{j}" for j in range(n_d)], n_q)
    judged = rng.random(len(q)) < judged_share
    u = rng.random(len(q))
    p = np.where(u < 0.1, 0.0, np.where(u < 0.2, 1.0, rng.random(len(q))))
    grade = rng.integers(1, 4, len(q)) if graded else np.ones(len(q), dtype=int)
    pq = ProbabilisticQrels(q[judged], d[judged], p[judged], grade[judged])
    return pq, grade[judged], Run(q, d, rng.permutation(len(q)).astype(float))


def _assert_worlds_are_the_crisp_evaluations(ev, run, pq, grade, names, seed):
    """The oracle: world w of ``ev`` (``evaluate(..., rng=seed)``) is, measure by measure, the
    crisp evaluate() of the qrels whose pair is relevant (with its grade) when its keyed
    uniform (fuzzytruth._random.uniforms, stream 4, the pair's key) is below its
    probability."""
    keys = pair_keys(pq.pairs)
    for w in range(ev.n_worlds):
        relevant = uniforms(draw_seed(seed), 4, keys, np.array([w]))[0] < pq.probability
        crisp = evaluate(run, Qrels(pq.query_ids, pq.doc_ids, relevant * grade), names)
        for name in names:
            np.testing.assert_allclose(ev.world_scores(name)[w], crisp.world_scores(name)[0],
                                       rtol=0, atol=1e-12, err_msg=f"{name}, world {w}")


@pytest.mark.parametrize("graded", [False, True])
def test_each_world_is_the_crisp_evaluation_of_its_drawn_qrels(graded):
    """Oracle: world w of probabilistic qrels is the crisp qrels whose pair (q, d) is relevant
    (with its grade) when its keyed uniform (fuzzytruth._random.uniforms, stream 4, the pair's
    key) is below its probability; every measure's world value is the crisp evaluate() of that
    qrels. The run ranks every judged document, so each one is drawn (no Poisson-binomial
    rest). Graded worlds gave no judged grades (Bpref, Judged, a gain for grade 0 refused
    them), and the 0/1 kernel of DCG and nDCG gave a gain map's grade 0 no gain and a negative
    grade-1 gain a place in the ideal."""
    pq, grade, run = _every_document_ranked(np.random.default_rng(8), 12, 9, 0.7, graded)
    names = ["P@3", "AP", "R@5", "RR", "nDCG@5", "nDCG", "DCG", "Rprec", "Bpref", "ERR@4",
             "infAP", "Judged@3", "nDCG(gain={0:1,1:-1,2:5})@5", "DCG(gain={0:1,1:2})",
             "nDCG(gain={1:-1,2:5})@5"]
    ev = evaluate(run, pq, names, method="worlds", n_worlds=15, rng=6,
                  memory_budget=3_000.0)
    _assert_worlds_are_the_crisp_evaluations(ev, run, pq, grade, names, 6)


@pytest.mark.parametrize("graded", [False, True])
def test_kernels_with_cutoffs_draw_only_the_ranks_they_read(monkeypatch, graded):
    """When every 0/1 kernel of a system has a cutoff, the engine draws the relevance of the
    ranks above the deepest one only (a kernel's reach): each world is still the crisp
    evaluation of its drawn qrels (the oracle of the test above), and the columns drawn
    stop at the reach (5 of the 12 ranks here); with AP beside them, every rank is drawn."""
    import fuzzytruth.truth.pair_worlds as pair_worlds

    widths = []
    real = pair_worlds.QrelsWorlds.relevant
    monkeypatch.setattr(pair_worlds.QrelsWorlds, "relevant",
                        lambda self, state, docs, rel=None: widths.append(docs.shape[1])
                        or real(self, state, docs, rel))
    pq, grade, run = _every_document_ranked(np.random.default_rng(12), 10, 12, 0.8, graded)
    names = ["P@3", "R@5", "Success@2", "RR@4", "AP@5", "nDCG@4", "DCG@3"]
    ev = evaluate(run, pq, names, method="worlds", n_worlds=12, rng=6)
    assert widths and max(widths) == 5
    _assert_worlds_are_the_crisp_evaluations(ev, run, pq, grade, names, 6)
    widths.clear()
    evaluate(run, pq, [*names, "AP"], method="worlds", n_worlds=3, rng=6)
    assert max(widths) == 12


ROW_SPELLINGS = ["P@5", "R@5", "RR", "AP", "AP@5", "nDCG", "nDCG@5", "nDCG(gain=exp)",
                 "nDCG(discount=jk)@7", "DCG", "DCG(discount=jk)", "RBP", "RBP@10", "ERR@10",
                 "ERR(gmax=4)", "ADR", "Bpref", "infAP", "GMAP", "Rprec", "RprecMult@0.5",
                 "SetAP", "RelativeP@5", "Utility", "nDCGRel", "11pt", "iP@0.5", "F@10",
                 "E@10", "FT", "ST", "NN", "E_psb", "BinG", "RBPResidual@5", "Judged@5",
                 "NumNonrelJudgedRet"]


def ranked_batch(rng, n, depth, graded):
    """RankedGains with grades, judged status and ideals of varying widths."""
    top = 4 if graded else 2
    gains = rng.integers(0, top, (n, depth)) * (rng.random((n, depth)) < 0.4)
    lengths = rng.integers(0, depth + 1, n)
    gains = np.where(np.arange(depth)[None] < lengths[:, None], gains, 0).astype(float)
    unretrieved = rng.integers(0, 30, n)
    ideal = np.zeros((n, int(((gains > 0).sum(1) + unretrieved).max())))
    judged_grades = np.full((n, ideal.shape[1] + 3), np.nan)
    for i in range(n):  # setup only
        grades = -np.sort(-np.concatenate([gains[i][gains[i] > 0],
                                           rng.integers(1, top, unretrieved[i])]))
        ideal[i, : len(grades)] = grades
        judged_grades[i, : len(grades) + i % 4] = np.append(grades, np.zeros(i % 4))
    shown = np.arange(depth)[None] < lengths[:, None]
    judged = (gains > 0) | ((rng.random((n, depth)) < 0.5) & shown)
    return RankedGains(np.arange(n).astype(object), gains, lengths, ideal, judged=judged,
                       n_judged=(~np.isnan(judged_grades)).sum(1), judged_grades=judged_grades)


def rows_of(rg, rows):
    """Rows of a batch, ideal and judged grades cut to the widest of those rows."""
    ideal, judged_grades = rg.ideal[rows], rg.judged_grades[rows]
    width = int((ideal > 0).sum(1).max(initial=0))
    judged_width = int((~np.isnan(judged_grades)).sum(1).max(initial=0))
    return RankedGains(rg.query_ids[rows], rg.gains[rows], rg.lengths[rows],
                       ideal[:, :width], judged=rg.judged[rows], n_judged=rg.n_judged[rows],
                       judged_grades=judged_grades[:, :judged_width])


@pytest.mark.parametrize("graded", [False, True])
def test_a_rows_value_does_not_depend_on_the_other_rows_of_its_batch(graded):
    """What makes world values independent of the blocks: every kernel gives a row the same
    bits in any batch (its number, order and the widths the other rows set; BLAS products and
    pairwise sums over a batch-wide width break it)."""
    rng = np.random.default_rng(17)
    rg = ranked_batch(rng, 300, 30, graded)
    for spelling in ROW_SPELLINGS:
        measure = parse_measure(spelling).resolve("trec")
        whole = measure.compute(rg)
        for rows in (np.arange(1, 300), np.arange(3, 17), np.arange(299, -1, -1),
                     np.arange(0, 300, 7)):
            np.testing.assert_array_equal(measure.compute(rows_of(rg, rows)), whole[rows],
                                          err_msg=spelling)


def test_families_with_a_relevance_level_read_grades_only_through_it():
    """The law behind the 0/1 route under graded truth (uncertain.worlds.binary_route): a
    family with a 0/1-world kernel and a ``rel`` parameter gives, on graded rankings, what it
    gives with ``rel=1`` on the 0/1 rankings ``grade >= rel``."""
    rng = np.random.default_rng(9)
    rg = ranked_batch(rng, 200, 25, graded=True)
    checked = 0
    for name, family in families().items():
        if family.binary is None or "rel" not in [p.name for p in family.params]:
            continue
        params = resolve_default(name, family).params
        for rel in (1.0, 2.0, 2.5):
            graded = Measure(name, **{**params, "rel": rel}).resolve("trec")
            binary = Measure(name, **{**params, "rel": 1.0}).resolve("trec")
            flat = replace(rg, gains=(rg.gains >= rel).astype(float),
                           ideal=(rg.ideal >= rel).astype(float))
            np.testing.assert_array_equal(graded.compute(rg), binary.compute(flat),
                                          err_msg=f"{name}, rel={rel}")
        checked += 1
    assert checked >= 10


def _every_pair_judged(rng: np.random.Generator, n_q: int, n_d: int, *, judged: float
                       ) -> tuple[ProbabilisticQrels, Run]:
    """``n_q`` queries ranking the same ``n_d`` documents in random orders, every pair in the
    probabilistic qrels: a uniform probability on a share ``judged`` of them, 0 elsewhere."""
    q = np.repeat([f"q{i}" for i in range(n_q)], n_d)
    d = np.tile([f"d{j}" for j in range(n_d)], n_q)
    pq = ProbabilisticQrels(q, d, rng.random(len(q)) * (rng.random(len(q)) < judged))
    return pq, Run(q, d, rng.permutation(len(q)).astype(float))


def test_aggregates_of_kept_worlds_do_not_depend_on_their_blocks(monkeypatch):
    """The aggregates read kept worlds in blocks sized from the memory budget: one or seven
    worlds per block give the same bits as every world in one block, and both agree with sums of the
    whole (worlds x queries) array (oracle: numpy on ``world_scores``)."""
    from fuzzytruth._resampling import MEMORY_BUDGET
    from fuzzytruth.evaluation import result

    n_q = 30
    pq, run = _every_pair_judged(np.random.default_rng(12), n_q, 10, judged=0.6)
    names = ["AP", "nDCG", "GMAP"]  # means (AP undefined in some worlds) and a geometric mean

    def run_with(bytes_per_value):
        monkeypatch.setattr(result, "_BYTES_PER_WORLD_VALUE", bytes_per_value)
        ev = evaluate(run, pq, names, method="worlds", n_worlds=200, rng=2, undefined="skip")
        return ev, ev.aggregate(), np.stack([ev.query_means(m) for m in names])

    ev, whole, means = run_with(1e-3)  # all 200 worlds in one block
    for worlds_per_block in (1, 7):
        _, blocked, blocked_means = run_with(MEMORY_BUDGET / (n_q * (worlds_per_block + 0.5)))
        pd.testing.assert_frame_equal(whole, blocked, check_exact=True)
        np.testing.assert_array_equal(means, blocked_means)
    assert np.isnan(ev.world_scores("AP")).any()  # the undefined rule is exercised
    for i, name in enumerate(names):
        scores = ev.world_scores(name)[:, 0]
        np.testing.assert_allclose(means[i, 0], np.nanmean(scores, axis=0), rtol=1e-13)


def test_pair_draws_do_not_depend_on_the_blocks_their_keys_are_made_in(monkeypatch):
    """The drawn pairs' keys are made a block of pairs at a time, sized from the memory budget
    (all at once, 20,000 queries of 1,000 judged documents added 3.2 GB): one pair per block
    gives the same worlds, bit for bit, as every pair in one block."""
    from fuzzytruth.truth import pair_worlds

    pq, run = _every_pair_judged(np.random.default_rng(4), 12, 9, judged=0.7)
    worlds = {}
    for per_pair in (1e-6, 1e12):  # every pair in one block; one pair per block
        monkeypatch.setattr(pair_worlds, "_KEY_BYTES_PER_PAIR", per_pair)
        ev = evaluate(run, pq, ["AP", "P@5"], method="worlds", n_worlds=40, rng=3)
        worlds[per_pair] = np.stack([ev.world_scores(m) for m in ("AP", "P@5")])
    np.testing.assert_array_equal(worlds[1e-6], worlds[1e12])
    assert np.ptp(worlds[1e-6], axis=1).max() > 0  # the worlds differ: pairs were drawn


def test_pair_keys_of_some_rows_are_those_rows_keys_hashing_only_their_ids():
    """A block of queries' keys hashed every pair of the table (100,000 ragged queries in
    7 blocks: 30 s of 48); the rows' own ids are hashed now, with the same keys."""
    rng = np.random.default_rng(3)
    q = rng.choice([f"q{i}" for i in range(40)], 500)  # not grouped by query
    d = np.array([f"d{j}" for j in range(500)])
    pairs = Qrels(q, d, np.ones(500))
    rows = rng.permutation(500)[:120]
    np.testing.assert_array_equal(pair_keys(pairs, rows), pair_keys(pairs)[rows])
    assert len(np.unique(pair_keys(pairs))) == 500


def _siphash24(key: bytes, data: bytes) -> int:
    """SipHash-2-4 (Aumasson and Bernstein), written from the paper's description."""
    mask = (1 << 64) - 1

    def rotl(x: int, b: int) -> int:
        return ((x << b) | (x >> (64 - b))) & mask

    def rounds(v: list[int], n: int) -> None:
        for _ in range(n):
            v[0] = (v[0] + v[1]) & mask
            v[1] = rotl(v[1], 13) ^ v[0]
            v[0] = rotl(v[0], 32)
            v[2] = (v[2] + v[3]) & mask
            v[3] = rotl(v[3], 16) ^ v[2]
            v[0] = (v[0] + v[3]) & mask
            v[3] = rotl(v[3], 21) ^ v[0]
            v[2] = (v[2] + v[1]) & mask
            v[1] = rotl(v[1], 17) ^ v[2]
            v[2] = rotl(v[2], 32)

    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261,
         k1 ^ 0x7465646279746573]
    tail = len(data) % 8
    for i in range(0, len(data) - tail, 8):
        m = int.from_bytes(data[i:i + 8], "little")
        v[3] ^= m
        rounds(v, 2)
        v[0] ^= m
    m = int.from_bytes(data[len(data) - tail:], "little") | ((len(data) & 0xFF) << 56)
    v[3] ^= m
    rounds(v, 2)
    v[0] ^= m
    v[2] ^= 0xFF
    rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def _pandas_key(text: str) -> int:
    """pandas' hash of a str: SipHash-2-4 of its UTF-8 text under pandas' hash key, spread by
    SplitMix64's finaliser (pandas.core.util.hashing)."""
    mask = (1 << 64) - 1
    z = _siphash24(b"0123456789123456", text.encode("utf-8", "surrogatepass"))
    z ^= z >> 30
    z = (z * 0xBF58476D1CE4E5B9) & mask
    z ^= z >> 27
    z = (z * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=30), st.integers(-10**12, 10**12)), max_size=40))
def test_unit_keys_are_the_siphash_of_each_ids_text(ids):
    """The keys every keyed draw starts from: pandas' hash of each id's text (SipHash-2-4
    of its UTF-8 bytes, then SplitMix64's finaliser; both written here from their
    descriptions, SipHash checked on its paper's test vectors), ints keyed by their str; the
    same as pandas' hash of the ids made str and factorised first (the definition until
    2026-11-27, whose factorisation cost nine tenths of the time) for every id but those
    ending in NUL characters, which its NumPy string array dropped."""
    assert _siphash24(bytes(range(16)), b"") == 0x726FDB47DD0E0E31
    assert _siphash24(bytes(range(16)), bytes(range(15))) == 0xA129CA6149BE45E5
    got = unit_keys(np.array(ids, dtype=object))
    assert got.tolist() == [_pandas_key(str(i)) for i in ids]
    plain = [i for i in ids if not str(i).endswith("\x00")]
    if plain:
        before = pd.util.hash_array(np.asarray(plain, dtype=object).astype(str).astype(object))
        np.testing.assert_array_equal(unit_keys(np.array(plain, dtype=object)), before)
    assert len(set(got.tolist())) == len({str(i) for i in ids})  # distinct texts, keys
