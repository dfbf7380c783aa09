"""Evaluation by blocks of queries: a run whose lists differ wildly in length is padded per
block, not to its longest list (crisp truth always within the budget; uncertain truth when
padding dominates), and the numbers are those of one block to rounding (a
kernel's sum over a row padded to another width may round its last bit differently: the
Judged rate of 7 tied documents was 0.14285714285714282 padded to 7, ...85 padded to 21);
which queries are undefined is the same exactly.

Oracle: the same evaluation in one block (the default budget on these small runs), for every
ranking family the package registers, under the presets and options that change the grades
(trec's atol truncation, psb's class-size rule, judged-only, tie-averaging).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from registry_families import package_families, resolve_default

from fuzzytruth.evaluation import evaluate
from fuzzytruth.runs import Qrels, Run, rank

MEASURES = [resolve_default(name, fam) for name, fam in package_families().items()]


@st.composite
def ragged_collections(draw):
    n_q = draw(st.integers(2, 9))
    lengths = draw(st.lists(st.integers(0, 12), min_size=n_q, max_size=n_q))
    lengths[draw(st.integers(0, n_q - 1))] = draw(st.integers(20, 60))  # one long list
    run_rows, qrels_rows = [], []
    for q, n in enumerate(lengths):
        scores = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
        run_rows += [(f"q{q}", f"d{d}", float(s)) for d, s in enumerate(scores)]
        judged = draw(st.lists(st.integers(0, 70), max_size=15, unique=True))
        grades = draw(st.lists(st.sampled_from([-1, 0, 1, 2, 3]), min_size=len(judged),
                               max_size=len(judged)))
        qrels_rows += [(f"q{q}", f"d{d}", g) for d, g in zip(judged, grades, strict=True)]
    qrels_rows += [(f"q{q}", "__judged__", 0) for q in range(n_q)]
    if draw(st.booleans()):  # judgments not grouped by query, their queries in another order
        qrels_rows = draw(st.permutations(qrels_rows))
    run = Run.from_dataframe(pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"]))
    qrels = Qrels.from_dataframe(pd.DataFrame(qrels_rows,
                                              columns=["query_id", "doc_id", "relevance"]))
    return run, qrels


@settings(max_examples=80, deadline=None)
@given(ragged_collections(),
       st.sampled_from([{}, {"preset": "psb"}, {"judged_only": True}, {"ties": "average"},
                        {"complete": True}]))
def test_blocks_of_queries_give_the_numbers_of_one_block(collection, options):
    run, qrels = collection
    measures = MEASURES
    if options.get("ties") == "average":  # the tie-averaged forms: the families that have one
        measures = [m for m in MEASURES if m.family.tie_averaged]
    whole = evaluate(run, qrels, measures, **options).to_frame()
    blocked = evaluate(run, qrels, measures, memory_budget=64.0 * 40, **options).to_frame()
    pd.testing.assert_frame_equal(blocked, whole, check_exact=False, rtol=1e-12, atol=1e-15)
    assert blocked["p_undefined"].equals(whole["p_undefined"])


def test_a_block_costs_its_own_queries(monkeypatch):
    """A block of the crisp path is cut from the ranking and the judgments by position: ids
    are hashed as often for 12 blocks as for one (each block used to look up every query of
    the run, and walk every judgment: 1 M queries in five blocks took 36 s against 2.6 s for
    the same rows as 10,000 queries)."""
    rng = np.random.default_rng(3)
    n_q = 60
    q = np.repeat([f"q{i}" for i in rng.permutation(n_q)], 5)
    run = Run(q, [f"d{i}" for i in range(len(q))], rng.random(len(q)))
    judged = rng.random(len(q)) < 0.5
    qrels = Qrels(q[judged][::-1], np.array([f"d{i}" for i in range(len(q))])[judged][::-1],
                  rng.integers(0, 3, judged.sum()))
    calls = []
    original = pd.Index.get_indexer
    monkeypatch.setattr(pd.Index, "get_indexer",
                        lambda self, *a, **k: calls.append(len(self)) or original(self, *a, **k))
    whole = evaluate(run, qrels, ["nDCG@10", "AP", "Judged@5"]).to_frame()
    one = len(calls)
    blocked = evaluate(run, qrels, ["nDCG@10", "AP", "Judged@5"],
                       memory_budget=64.0 * 5 * 5).to_frame()
    assert len(calls) - one == one
    pd.testing.assert_frame_equal(blocked, whole)


def test_a_block_is_padded_to_its_own_lengths():
    """Rows by length, each block's (rows x its longest list) within the budget, every row
    once; a list longer than the budget is a block alone."""
    lengths = [3, 1, 500, 2, 2, 40, 1]
    run = Run(np.repeat([f"q{i}" for i in range(len(lengths))], lengths),
              [f"d{j}" for n in lengths for j in range(n)], np.ones(sum(lengths)))
    ranking = rank(run)
    blocks = ranking.row_blocks(8.0, 8.0 * 50)
    assert sorted(np.concatenate(blocks).tolist()) == list(range(len(lengths)))
    for block in blocks:
        cells = len(block) * ranking.lengths[block].max()
        assert cells <= 50 or len(block) == 1
    assert [ranking.lengths[b].tolist() for b in blocks] == [[1, 1, 2, 2, 3], [40], [500]]
    assert ranking.row_blocks(8.0, 8.0 * 7 * 500) is None


def test_one_long_list_no_longer_pads_every_query():
    """One query of 200,000 documents beside 2,000 queries of one: the gains were a
    2,001 x 200,000 table (3.2 GB with the kernels' temporaries); by blocks each block is
    padded to its own longest list. The blocks are what the budget allows (measured through
    the tables the kernels receive, not by timing)."""
    n_long, n_short = 200_000, 2_000
    q = np.concatenate([np.zeros(n_long, dtype=np.int64), np.arange(1, n_short + 1)])
    run = Run(q.astype(str), np.arange(len(q)).astype(str), np.linspace(1, 0, len(q)))
    qrels = Qrels(["0", "1"], ["0", "200000"], [1, 1])
    ranking = rank(run)
    blocks = ranking.row_blocks(64.0, 128e6)
    assert max(len(b) * ranking.lengths[b].max() for b in blocks) <= 128e6 / 64.0
    assert [len(b) for b in blocks] == [n_short, 1]
    got = evaluate(run, qrels, ["P@10", "AP", "R@1000"], complete=False).aggregate()
    # by hand: the two judged queries ("0", "1") each rank their one relevant document first
    # (P@10 = 1/10, AP = R@1000 = 1); the 1,999 others have no judgments and are skipped
    assert got["value"].tolist() == pytest.approx([0.1, 1.0, 1.0])


def test_empty_lists_score_alike_in_a_table_of_no_columns_and_in_a_padded_one():
    """Every family on queries with empty lists (one without relevant documents, one with),
    alone (a table 0 wide) and beside a query that retrieved something: AP gave 0 for the
    query without relevant documents when no query retrieved anything (NaN otherwise), so a
    block of empty lists changed it."""
    from fuzzytruth.metrics.base import RankedGains

    beside = RankedGains.from_lists(["q0", "q1", "q2"], [[], [], [0]], [[], [1, 2], []],
                                    [[], [], [True]])
    alone = RankedGains.from_lists(["q0", "q1"], [[], []], [[], [1, 2]], [[], []])
    for measure in MEASURES:
        np.testing.assert_array_equal(measure.compute(alone), measure.compute(beside)[:2],
                                      err_msg=str(measure))


def _uncertain_collection(rng: np.random.Generator):
    """Ragged lists over 30 annotated items (a taxonomy of two levels), one list long."""
    from fuzzytruth import Annotations, Membership, Taxonomy

    tax = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": ["b1", "b2"]}})
    items = [f"i{i}" for i in range(30)]
    labels = rng.choice(["a1", "a2", "b1", "b2", "a", "b"], size=(30, 3))
    frame = pd.DataFrame([(item, f"s{j}", labels[i, j]) for i, item in enumerate(items)
                          for j in range(3)], columns=["item_id", "annotator_id", "label"])
    membership = Membership.from_annotations(Annotations.from_frame(frame, taxonomy=tax))
    lengths = [30, 2, 1, 3, 0, 2, 1, 4, 2, 1]
    rows = [(f"i{q}", d, float(s)) for q, n in enumerate(lengths)
            for d, s in zip(rng.permutation(items)[:n], rng.integers(0, 3, n), strict=True)]
    run = Run.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    return run, membership


@pytest.mark.parametrize("options", [
    {}, {"query_categories": {"i1": "a", "i7": "b2"}}, {"exclude_query": False},
    {"n_worlds": 0}, {"method": "worlds"}, {"complete": True, "query_categories": {"zz": "a"}},
    {"preset": "psb"},
])
def test_uncertain_blocks_of_queries_give_the_numbers_of_one_block(options):
    """A Membership truth by blocks of queries of like lengths (the budget forces them): the
    exact forms to rounding, the worlds keyed by (seed, query, document, world) the same
    draws, so the per-query and aggregate numbers agree; the keys that name no query of a
    block do not warn (a key names a query of another block)."""
    from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels

    rng = np.random.default_rng(4)
    run, membership = _uncertain_collection(rng)
    measures = (["P@2", "AP", "nDCG@3", "RR", "R@3"] if options.get("n_worlds") != 0
                else ["P@2", "RR", "R@3"])
    kwargs = {"n_worlds": 60, "rng": 3, **options}
    from fuzzytruth.evaluation.engine import _padding_blocks

    assert len(_padding_blocks({"run": (rank(run), run)}, 64.0 * 12)) >= 3  # blocks are made
    pq = ProbabilisticQrels(run.query_ids, run.doc_ids, rng.random(len(run.query_ids)))
    for truth in (membership, pq):
        if truth is pq and ("query_categories" in kwargs or "exclude_query" in kwargs):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            whole = evaluate(run, truth, measures, **kwargs)
            blocked = evaluate(run, truth, measures, memory_budget=64.0 * 12, **kwargs)
        pd.testing.assert_frame_equal(blocked.to_frame(), whole.to_frame(), check_exact=False,
                                      rtol=1e-12, atol=1e-15)
        pd.testing.assert_frame_equal(blocked.aggregate(), whole.aggregate(),
                                      check_exact=False, rtol=1e-12, atol=1e-15)


def test_uncertain_blocks_join_each_run_once(monkeypatch):
    """Each block of ragged queries joined every row of the run with the truth again
    (100,000 ragged queries in 7 blocks: 9.9 s of 18): the run's rows are matched with the
    truth's documents once (BoundTruth.join) and every block reads that, for judged pairs
    and for a membership's items alike."""
    from fuzzytruth.evaluation.engine import _padding_blocks
    from fuzzytruth.truth import categorical, judged_pairs
    from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels

    rng = np.random.default_rng(4)
    run, membership = _uncertain_collection(rng)
    pq = ProbabilisticQrels(run.query_ids, run.doc_ids, rng.random(len(run.query_ids)))
    budget = 64.0 * 12
    assert len(_padding_blocks({"run": (rank(run), run)}, budget)) >= 3
    calls = []
    for module, name in ((judged_pairs, "judged_rows"), (categorical, "doc_positions")):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _f=original, _n=name, **k:
                            calls.append(_n) or _f(*a, **k))
    for truth, join in ((pq, "judged_rows"), (membership, "doc_positions")):
        for options in ({}, {"memory_budget": budget}):
            calls.clear()
            evaluate(run, truth, ["P@2", "R@3"], n_worlds=20, rng=0, **options)
            assert calls.count(join) == 1, (join, options, calls)


@pytest.mark.parametrize("preset", ["trec", "psb"])
def test_uncertain_blocks_write_their_world_values_in_place(monkeypatch, preset):
    """Each block of ragged queries wrote its world values into an array of its own, which
    Evaluation.concatenate then copied into one for all queries (20,000 ragged queries with
    1,000 worlds: 1.1 s of 7.3, and two copies at once): every block now writes at its
    queries' places in the evaluation's own arrays (values, and the class-size rule's
    counted flags under psb), checked for size once for all queries."""
    from fuzzytruth.evaluation import engine
    from fuzzytruth.evaluation.engine import _padding_blocks

    rng = np.random.default_rng(4)
    run, membership = _uncertain_collection(rng)
    budget = 64.0 * 12
    assert len(_padding_blocks({"run": (rank(run), run)}, budget)) >= 3
    given = []
    original = engine.world_values
    monkeypatch.setattr(engine, "world_values",
                        lambda *a, **k: given.append(k.get("out")) or original(*a, **k))
    ev = evaluate(run, membership, ["AP", "P@2"], n_worlds=30, rng=2, preset=preset,
                  memory_budget=budget)
    assert len(given) >= 3 and all(out is not None for out in given)
    assert all(out[0] is ev._worlds and out[1] is ev._world_counted for out in given)
    assert (ev._world_counted is None) == (preset == "trec")


def test_uncertain_blocks_are_refused_when_all_their_world_values_do_not_fit(monkeypatch):
    """The world values of every block are kept together: a number of worlds whose values fit
    for each block alone but not for all the queries is refused before any is drawn (each
    block's size was checked alone, and the join then allocated the whole)."""
    from fuzzytruth import _validation as validation
    from fuzzytruth.evaluation.engine import _padding_blocks

    run, membership = _uncertain_collection(np.random.default_rng(4))
    budget = 64.0 * 12
    blocks = _padding_blocks({"run": (rank(run), run)}, budget)
    n_q = sum(len(b) for b in blocks)
    per_world = 8.0 * 2 * n_q  # two measures, one system
    monkeypatch.setattr(validation, "physical_memory", lambda: 30 * per_world - 1)
    with pytest.raises(ValueError, match=r"n_worlds=30 would keep .* at most 29 worlds fit"):
        evaluate(run, membership, ["AP", "P@2"], n_worlds=30, rng=2, memory_budget=budget)
    assert 30 * 8.0 * 2 * max(len(b) for b in blocks) < 30 * per_world - 1  # a block fits
    evaluate(run, membership, ["AP", "P@2"], n_worlds=29, rng=2, memory_budget=budget)


def test_uncertain_blocks_are_made_only_when_padding_dominates():
    from fuzzytruth.evaluation.engine import _padding_blocks

    ragged = rank(Run(["q0"] * 50 + ["q1", "q2"], [f"d{i}" for i in range(52)], np.ones(52)))
    even = rank(Run(["q0"] * 3 + ["q1"] * 2, list("abcab"), np.ones(5)))
    assert _padding_blocks({"s": (even, None)}, 1.0) is None  # 6 cells for 5 entries
    assert _padding_blocks({"s": (ragged, None)}, 1e9) is None  # within the budget
    blocks = _padding_blocks({"s": (ragged, None)}, 64.0 * 10)
    assert [sorted(b.tolist()) for b in blocks] == [[1, 2], [0]]


def test_tie_groups_are_kept_per_entry_and_laid_out_per_block():
    """ties='average' kept the tied groups as (queries x longest list) tables from the
    start: 100,000 + 1,000 x 1 documents took 1.7 GB. They are kept per entry; a block of
    queries lays out its own table, equal to the rows of the whole one up to its depth."""
    rng = np.random.default_rng(2)
    lengths = [40, 3, 0, 5, 1, 2]
    run = Run(np.repeat([f"q{i}" for i in range(len(lengths))], lengths),
              [f"d{j}" for n in lengths for j in range(n)],
              rng.integers(0, 3, sum(lengths)).astype(float))
    ranking = rank(run, ties="average")
    assert "tie_start" not in vars(ranking)  # no table until one is read
    whole_start, whole_stop = ranking.tie_start, ranking.tie_stop
    part = ranking.on(np.array(["q3", "q1", "q5"], dtype=object))
    rows, depth = [2, 1, 4], part.depth  # q2 has no list, so no row
    assert depth == 5
    np.testing.assert_array_equal(part.tie_start, whole_start[rows, :depth])
    np.testing.assert_array_equal(part.tie_stop, whole_stop[rows, :depth])
    # each entry's group holds it, and a group's entries share their bounds
    pos = ranking.position
    assert ((ranking.tie_first <= pos) & (pos < ranking.tie_end)).all()


def test_uncertain_blocks_at_the_default_budget_give_the_one_table_numbers():
    """The default memory budget (not a forced small one) blocks an uncertain truth when one
    list is far longer: 100,000 documents beside 20 lists of one are 2.1 M cells, over 128 MB
    at 64 bytes a cell. Oracle: the same evaluation as one table (a budget that holds it)."""
    from fuzzytruth.evaluation.engine import _padding_blocks
    from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels

    n_long, n_short = 100_000, 20
    q = np.concatenate([np.zeros(n_long, dtype=np.int64), np.arange(1, n_short + 1)])
    run = Run(q.astype(str), np.arange(len(q)).astype(str), np.linspace(1, 0, len(q)))
    judged = np.r_[np.arange(0, 3000, 3), np.arange(n_long, n_long + n_short)]
    rng = np.random.default_rng(5)
    pq = ProbabilisticQrels(q[judged].astype(str), judged.astype(str), rng.random(len(judged)))
    ranking = rank(run)
    assert _padding_blocks({"run": (ranking, run)}, 128e6) is not None  # the default blocks
    kwargs = {"n_worlds": 20, "rng": 1}
    blocked = evaluate(run, pq, ["P@10", "AP"], **kwargs)
    whole = evaluate(run, pq, ["P@10", "AP"], memory_budget=1e10, **kwargs)
    pd.testing.assert_frame_equal(blocked.to_frame(), whole.to_frame(), check_exact=False,
                                  rtol=1e-12, atol=1e-15)
