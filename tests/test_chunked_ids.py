"""Ids held in Arrow chunks (a TREC file's columns, parsed a block at a time; a DataFrame read
or concatenated in pieces) are used in their chunks: a run or qrels grouped by query is never
joined into one array, and every path gives what one chunk gives -- the ranking (ties by
document id, in blocks of queries), the join with the judgments, the duplicate check, and every
registered measure through ``evaluate()``, with the defaults and with the blocks made small
enough that they cross the chunks' boundaries."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from registry_families import package_families, resolve_default

import fuzzytruth._pairs as pairs
import fuzzytruth.truth.judged_pairs as judged_pairs
from fuzzytruth import Qrels, Run, evaluate
from fuzzytruth.io import write_trec_qrels, write_trec_run
from fuzzytruth.runs import rank

DOCS = [f"d{i}" for i in range(14)] + ["é", "d1 ", "D"]
MEASURES = [resolve_default(n, f) for n, f in sorted(package_families().items())]


def chunked(values: list, cuts: list[int]) -> pd.arrays.ArrowStringArray:
    """``values`` as a pandas str array in chunks split at ``cuts`` (empty chunks included)."""
    bounds = [0, *sorted(min(c, len(values)) for c in cuts), len(values)]
    pieces = [pa.array(values[a:b], type=pa.large_string())
              for a, b in itertools.pairwise(bounds)]
    return pd.array(pa.chunked_array(pieces, type=pa.large_string()), dtype="str")


def frames(rows, truth, cuts) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The run and the qrels as DataFrames of one chunk and of several."""
    q, d, s = (list(c) for c in zip(*rows, strict=True))
    keys = list(truth)
    tq, td, tg = [k[0] for k in keys], [k[1] for k in keys], list(truth.values())
    one = (pd.DataFrame({"query_id": q, "doc_id": d, "score": s}),
           pd.DataFrame({"query_id": tq, "doc_id": td, "relevance": tg}))
    many = (pd.DataFrame({"query_id": chunked(q, cuts), "doc_id": chunked(d, cuts), "score": s}),
            pd.DataFrame({"query_id": chunked(tq, cuts), "doc_id": chunked(td, cuts),
                          "relevance": tg}))
    return (*one, *many)


@st.composite
def collections(draw):
    queries = draw(st.lists(st.sampled_from([f"q{i}" for i in range(6)]), min_size=1,
                            max_size=4, unique=True))
    rows = []
    for q in queries:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=9, unique=True))
        # few distinct scores: ties, broken by document id
        rows += [(q, d, float(draw(st.sampled_from([0.0, 0.5, 1.0, 2.0])))) for d in docs]
    if draw(st.booleans()):  # not grouped by query: the table joins its chunks once
        rows = draw(st.permutations(rows))
    truth = {}
    for q in sorted(set(queries) | {"q9"}, reverse=draw(st.booleans())):  # every query judged
        for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7, unique=True)):
            truth[q, d] = float(draw(st.integers(0, 3)))
    cuts = draw(st.lists(st.integers(0, len(rows)), max_size=4))
    return rows, truth, cuts


@settings(max_examples=60, deadline=None)
@given(collections(), st.sampled_from([None, 96 * 3]), st.booleans(), st.sampled_from([1, 16]))
def test_chunks_give_what_one_chunk_gives(data, budget, small, stretch):
    # small: the duplicate check's and the join's blocks of one or two rows, and the join's
    # spans of one query (the side in another query order sliced from its chunks a query at
    # a time, stretch by stretch, or taken row by row when stretches of 16 are asked)
    rows, truth, cuts = data
    run1, qrels1, run_n, qrels_n = frames(rows, truth, cuts)
    saved = (pairs._BLOCK_ROWS, judged_pairs._JOIN_BLOCK, judged_pairs._SPAN_BYTES,
             pairs._STRETCH_ROWS)
    if small:
        pairs._BLOCK_ROWS, judged_pairs._JOIN_BLOCK, judged_pairs._SPAN_BYTES = 1, 2, 1
    pairs._STRETCH_ROWS = stretch
    try:
        a, b = Run.from_dataframe(run1), Run.from_dataframe(run_n)
        options = {} if budget is None else {"memory_budget": budget}
        for ties in ("docid_desc", "docid_asc", "input_order"):
            assert (rank(a, ties=ties, **options).rows.tolist()
                    == rank(b, ties=ties, **options).rows.tolist())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # measures undefined on a query: not the point
            expected = evaluate(a, Qrels.from_dataframe(qrels1), MEASURES).to_frame()
            got = evaluate(b, Qrels.from_dataframe(qrels_n), MEASURES).to_frame()
        pd.testing.assert_frame_equal(got, expected)
    finally:
        (pairs._BLOCK_ROWS, judged_pairs._JOIN_BLOCK, judged_pairs._SPAN_BYTES,
         pairs._STRETCH_ROWS) = saved


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=6), st.data(),
       st.sampled_from([1, 16]))
def test_stretches_sliced_from_chunks_are_the_rows_taken(sizes, data, stretch):
    """``take_stretches`` gives ``ids[rows]`` (stretches of consecutive rows in any order,
    within a chunk or across chunks, empty chunks included), or None when the stretches are
    short (never when stretches of one row are long enough)."""
    values = [f"d{i}" for i in range(sum(sizes))]
    pieces, at = [], 0
    for n in sizes:
        pieces.append(pa.array(values[at:at + n], type=pa.large_string()))
        at += n
    ids = pa.chunked_array(pieces, type=pa.large_string())
    cuts = data.draw(st.lists(st.integers(0, len(values)), max_size=6))
    bounds = sorted({0, len(values), *cuts})
    stretches = data.draw(st.permutations(list(itertools.pairwise(bounds))))
    kept = data.draw(st.lists(st.booleans(), min_size=len(stretches),
                              max_size=len(stretches)))
    rows = np.array([r for (a, b), keep in zip(stretches, kept, strict=True) if keep
                     for r in range(a, b)], dtype=np.int64)
    saved = pairs._STRETCH_ROWS
    pairs._STRETCH_ROWS = stretch
    try:
        got_chunked = pairs.take_stretches(ids, rows)
        got_whole = pairs.take_stretches(ids.combine_chunks(), rows)
    finally:
        pairs._STRETCH_ROWS = saved
    for got in (got_chunked, got_whole):
        n_stretches = 1 + int(np.count_nonzero(rows[1:] != rows[:-1] + 1)) if len(rows) else 0
        if got is None:
            assert stretch > 1 and n_stretches - 1 > max(len(rows) // stretch, 1)
        else:
            assert got.to_pylist() == [values[r] for r in rows]
            assert got.type == pa.large_string()


@pytest.mark.parametrize("rows", [[3, 4, 5], [-1, 0, 1], [5]])
def test_stretches_outside_the_ids_are_refused(rows):
    """A slice clips a row past the end, and a negative chunk index wraps round: a row outside
    the ids is an error, not a shorter or other array."""
    ids = pa.chunked_array([["a", "b"], ["c", "d", "e"]])
    for source in (ids, ids.combine_chunks()):
        with pytest.raises(ValueError, match=r"rows must be in \[0, 5\)"):
            pairs.take_stretches(source, np.array(rows))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(DOCS[:5])),
                min_size=1, max_size=25),
       st.lists(st.integers(0, 25), max_size=4))
def test_duplicates_are_found_across_chunks(pair_list, cuts):
    saved = pairs._BLOCK_ROWS
    pairs._BLOCK_ROWS = 1
    try:
        frame = pd.DataFrame({"query_id": chunked([q for q, _ in pair_list], cuts),
                              "doc_id": chunked([d for _, d in pair_list], cuts),
                              "score": np.arange(len(pair_list), dtype=float)})
        if len(set(pair_list)) == len(pair_list):
            assert len(Run.from_dataframe(frame)) == len(pair_list)
            return
        with pytest.raises(ValueError, match=r"is listed \d+ times"):
            Run.from_dataframe(frame)
        kept = Run.from_dataframe(frame, duplicates="max")
        assert sorted(zip(kept.query_ids, kept.doc_ids, strict=True)) == sorted(set(pair_list))
        # the highest score of each pair is kept (scores are the row numbers)
        best = {p: i for i, p in enumerate(pair_list)}
        assert sorted(kept.scores.tolist()) == sorted(float(i) for i in best.values())
    finally:
        pairs._BLOCK_ROWS = saved


def _buffers(array: pa.Array | pa.ChunkedArray) -> set[int]:
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    return {c.buffers()[2].address for c in chunks}


def test_a_grouped_run_keeps_the_chunks_it_was_given():
    """No copy of the document ids: the Run holds the caller's chunks, after its duplicate
    check, a ranking with ties and a join (chunks of 20,000 rows: more than a block)."""
    n_q, depth = 60, 1_000
    docs = [f"doc-{i}" for i in range(n_q * depth)]
    column = chunked(docs, [20_000, 40_000])
    frame = pd.DataFrame({"query_id": np.repeat([f"q{i}" for i in range(n_q)], depth),
                          "doc_id": column, "score": np.tile(np.arange(depth) % 7, n_q)})
    given_buffers = _buffers(column.__arrow_array__())
    run = Run.from_dataframe(frame)
    qrels = Qrels([f"q{i}" for i in range(n_q)], [f"doc-{i * 1_017}" for i in range(n_q)],
                  np.arange(n_q) % 3)
    table = evaluate(run, qrels, ["P@10", "AP"]).to_frame().set_index(["query_id", "measure"])
    kept = pairs.arrow_strings(run._docs)
    assert isinstance(kept, pa.ChunkedArray) and kept.num_chunks == 3
    assert _buffers(kept) == given_buffers
    # and the numbers are those of the same run in one chunk
    one = evaluate(Run.from_dataframe(frame.assign(doc_id=docs)), qrels, ["P@10", "AP"])
    pd.testing.assert_frame_equal(table, one.to_frame().set_index(["query_id", "measure"]))


def test_a_grouped_run_in_another_query_order_than_the_qrels_keeps_its_chunks(monkeypatch):
    """The join reads the smaller side in the larger one's query order: a run grouped by query,
    in chunks, beside larger qrels listing the queries the other way round is sliced from its
    chunks a span of queries at a time (spans of a few queries here), never joined into one
    array, and every run row gets the grade the qrels give it."""
    monkeypatch.setattr(judged_pairs, "_SPAN_BYTES", 64)
    monkeypatch.setattr(pairs, "_BLOCK_ROWS", 1)  # chunks of any length are kept
    n_q, depth = 30, 40
    queries = [f"q{i:02d}" for i in range(n_q)]
    docs = [f"doc-{(i * 7) % 97}" for i in range(n_q * depth)]
    column = chunked(docs, [100, 450, 451, 900])
    frame = pd.DataFrame({"query_id": np.repeat(queries, depth), "doc_id": column,
                          "score": np.arange(n_q * depth, 0, -1.0)})
    run = Run.from_dataframe(frame)
    assert pairs.arrow_strings(run._docs).num_chunks == 5
    judged = [(q, f"doc-{j}") for q in reversed(queries) for j in range(0, 97, 2)]
    grade = {pair: (hash(pair) % 3) for pair in judged}
    qrels = Qrels([q for q, _ in judged], [d for _, d in judged], [grade[p] for p in judged])
    assert len(qrels) > len(run)
    judging = judged_pairs.judged_rows(run, qrels)
    rows = list(zip(np.repeat(queries, depth).tolist(), docs, strict=True))
    assert [judged[r] if r >= 0 else None for r in judging.tolist()] == [
        p if p in grade else None for p in rows]
    held = pairs.arrow_strings(run._docs)
    assert isinstance(held, pa.ChunkedArray) and held.num_chunks == 5


def test_an_ungrouped_run_joins_its_chunks_once(monkeypatch):
    """A run not grouped by query is taken from in any order: its chunks are joined once, at
    construction, and that array is what every later take reads."""
    frame = pd.DataFrame({"query_id": ["q2", "q1", "q2", "q1"],
                          "doc_id": chunked(["a", "b", "c", "d"], [2]), "score": [1.0] * 4})
    monkeypatch.setattr(pairs, "_BLOCK_ROWS", 1)  # chunks of any length are kept
    run = Run.from_dataframe(frame)
    held = pairs.arrow_strings(run._docs)
    assert isinstance(held, pa.Array) and held.to_pylist() == ["a", "b", "c", "d"]
    assert rank(run).rows.tolist() == [3, 1, 2, 0]  # q1: d, b; q2: c, a (ties: id descending)
    qrels = Qrels(["q1", "q2"], ["b", "a"], [1, 1])
    assert evaluate(run, qrels, ["RR"]).to_frame()["mean"].tolist() == [0.5, 0.5]
    assert _buffers(pairs.arrow_strings(run._docs)) == _buffers(held)


def test_chunks_shorter_than_a_block_are_joined():
    """Thousands of tiny chunks would make every block's slice a walk over them: joined once."""
    values = [f"d{i}" for i in range(5_000)]
    frame = pd.DataFrame({"query_id": ["q"] * 5_000, "doc_id": chunked(values, list(range(
        1, 5_000, 2))), "score": np.arange(5_000.0)})
    run = Run.from_dataframe(frame)
    held = pairs.arrow_strings(run._docs)
    assert isinstance(held, pa.Array)
    assert held.to_pylist() == values


def test_rows_of_is_a_view_within_a_chunk_and_a_copy_across():
    column = pa.chunked_array([pa.array(["a", "b", "c"]), pa.array(["d", "e"])])
    inside = pairs.rows_of(column, 1, 3)
    assert inside.to_pylist() == ["b", "c"]
    assert inside.buffers()[2].address == column.chunk(0).buffers()[2].address
    across = pairs.rows_of(column, 2, 5)
    assert isinstance(across, pa.Array) and across.to_pylist() == ["c", "d", "e"]
    assert pairs.rows_of(column, 3, 3).to_pylist() == []
    assert pairs.whole(column).to_pylist() == ["a", "b", "c", "d", "e"]


def test_trec_files_in_many_parse_blocks_give_the_same_numbers(tmp_path, monkeypatch):
    """The TREC reader's columns come in one chunk per parse block: with blocks of 4 KiB, a
    run and qrels of a few thousand lines are read in many chunks, and every measure equals
    the one-chunk evaluation of the same rows."""
    import fuzzytruth.io.trec_columns as trec_columns

    rng = np.random.default_rng(7)
    n_q, depth = 40, 60
    qids = np.repeat([f"q{i:02d}" for i in range(n_q)], depth)
    docs = [f"doc{int(x)}" for x in rng.integers(0, 500, n_q * depth)]
    frame = pd.DataFrame({"query_id": qids, "doc_id": docs,
                          "score": np.round(rng.random(n_q * depth) * 5) / 5})
    frame = frame.drop_duplicates(["query_id", "doc_id"])
    judged = frame.sample(frac=0.3, random_state=1).assign(
        relevance=lambda f: rng.integers(0, 3, len(f)))[["query_id", "doc_id", "relevance"]]
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    write_trec_run(Run.from_dataframe(frame), run_path)
    write_trec_qrels(Qrels.from_dataframe(judged), qrels_path)
    monkeypatch.setattr(trec_columns, "_PARSE_BLOCK", 4096)
    monkeypatch.setattr(pairs, "_BLOCK_ROWS", 16)  # blocks cross the chunks' boundaries
    run, qrels = Run.from_trec(run_path), Qrels.from_trec(qrels_path)
    assert pairs.arrow_strings(run._docs).num_chunks > 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate(run, qrels, MEASURES).to_frame()
        expected = evaluate(Run.from_dataframe(frame), Qrels.from_dataframe(judged),
                            MEASURES).to_frame()
    pd.testing.assert_frame_equal(got, expected)


def test_a_membership_truth_finds_the_items_of_a_chunked_run():
    """Under a probabilistic membership, the run's documents are looked up among the items
    (one hash lookup over the chunks): the same numbers as from one chunk."""
    from fuzzytruth import Annotations, Membership, Taxonomy

    tax = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": ["b1", "b2"]}})
    rng = np.random.default_rng(3)
    items = [f"i{i}" for i in range(40)]
    labels = pd.DataFrame({"item_id": np.repeat(items, 3), "annotator_id": ["x", "y", "z"] * 40,
                           "label": rng.choice(["a1", "a2", "b1", "b2", "a"], 120)})
    mem = Membership.from_annotations(Annotations.from_frame(labels, taxonomy=tax))
    docs = [d for _ in range(3) for d in rng.choice(items, 20, replace=False)]
    frame = pd.DataFrame({"query_id": np.repeat(["q1", "q2", "q3"], 20), "doc_id": docs,
                          "score": rng.integers(0, 4, 60).astype(float)})
    cats = {"q1": "a", "q2": "b1", "q3": "all"}
    measures = ["P@5", "R@10", "AP", "nDCG@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = evaluate(Run.from_dataframe(frame), mem, measures, query_categories=cats,
                            n_worlds=50, rng=0).to_frame()
        many = frame.assign(doc_id=chunked(docs, [7, 33, 41]))
        saved = pairs._BLOCK_ROWS
        pairs._BLOCK_ROWS = 1  # chunks of any length kept
        try:
            run = Run.from_dataframe(many)
            assert pairs.arrow_strings(run._docs).num_chunks == 4
            got = evaluate(run, mem, measures, query_categories=cats, n_worlds=50,
                           rng=0).to_frame()
        finally:
            pairs._BLOCK_ROWS = saved
    pd.testing.assert_frame_equal(got, expected)
