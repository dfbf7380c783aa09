"""rank(), the run-qrels join and the duplicate check against straightforward Python (a sort
per query, a dict lookup, a set of pairs), on every internal path: runs grouped by query or
not, lists already in rank order or not, about equally long or not (per-query matrix sort or
one global sort), ids held as Arrow strings (DataFrames, TREC files) or as Python objects
(lists, object arrays, nested dicts), scores tied in float32 only, and queries ranked in one
block or in blocks of one or a few queries (``memory_budget``)."""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fuzzytruth._pairs as pairs
import fuzzytruth.runs as runs_module
import fuzzytruth.truth.judged_pairs as judged_pairs
from fuzzytruth.runs import Run, rank
from fuzzytruth.truth.judged_pairs import judged_rows
from fuzzytruth.truth.qrels import Qrels

# non-ASCII ids and prefixes: trec_eval's strcmp order is the UTF-8 bytes', which is Python's
# code point order
DOCS = [f"d{i}" for i in range(12)] + ["d1é", "é", "Ω", "z", "D", "d1 "]
#: integer ids: "docid_asc" orders a query's ids as numbers when they all are integers
INTEGER_IDS = ["7", "10", "9", "07", "-3", "100", "2", "0"]
SCORES = [0.0, 1.0, 1.0 + 1e-9, 2.0, -0.0, 0.5, 1e300]  # 1.0 and 1.0 + 1e-9 tie in float32


@st.composite
def runs(draw):
    n_q = draw(st.integers(1, 5))
    queries = [f"q{draw(st.integers(0, 30))}" for _ in range(n_q)]
    queries = list(dict.fromkeys(queries))
    balanced = draw(st.booleans())
    length = draw(st.integers(1, 8))
    rows = []
    for q in queries:
        n = length if balanced else draw(st.integers(1, 8))
        pool = draw(st.sampled_from([DOCS, INTEGER_IDS, DOCS + INTEGER_IDS]))
        docs = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n, unique=True))
        scores = draw(st.lists(st.sampled_from(SCORES) | st.floats(-5, 5), min_size=n,
                               max_size=n))
        if draw(st.booleans()):  # in rank order, as a TREC file
            scores = sorted(scores, reverse=True)
        rows += [(q, d, s) for d, s in zip(docs, scores, strict=True)]
    if draw(st.booleans()):
        rows = draw(st.permutations(rows))
    return rows


def brute_rank(rows, ties: str, score_dtype: str) -> list[list[int]]:
    """Row indices per query (queries in id order): score descending in the given precision,
    ties by the rule (document id descending as strings; ascending as numbers, then as
    strings, in a query whose ids are all integers, as strings in the others; or row
    order)."""
    cast = np.float32 if score_dtype == "float32" else np.float64
    out = []
    for q in sorted({r[0] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r[0] == q]
        if ties == "docid_desc":
            idx.sort(key=lambda i: rows[i][1], reverse=True)
        elif ties == "docid_asc" and all(rows[i][1] in INTEGER_IDS for i in idx):
            idx.sort(key=lambda i: (int(rows[i][1]), rows[i][1]))
        elif ties == "docid_asc":
            idx.sort(key=lambda i: rows[i][1])
        with np.errstate(over="ignore"):  # 1e300 is inf in float32
            idx.sort(key=lambda i: -float(cast(rows[i][2])))  # stable: keeps the tie order
        out.append(idx)
    return out


def as_run(rows, form: str) -> Run:
    q, d, s = (list(c) for c in zip(*rows, strict=True))
    if form == "dataframe":
        return Run.from_dataframe(pd.DataFrame({"query_id": q, "doc_id": d, "score": s}))
    if form == "objects":
        return Run(np.array(q, dtype=object), np.array(d, dtype=object), np.array(s))
    return Run(q, d, s)


@contextlib.contextmanager
def patched(module, name: str, value):
    """``module.name`` set to ``value`` (None: left as it is) inside the block (hypothesis'
    tests cannot take pytest's monkeypatch): the join's blocks of run rows
    (``judged_pairs._JOIN_BLOCK``), the duplicate check's (``pairs._BLOCK_ROWS``), the rows
    of Python objects converted per Arrow chunk (``pairs._CONVERT_ROWS``)."""
    saved = getattr(module, name)
    setattr(module, name, saved if value is None else value)
    try:
        yield
    finally:
        setattr(module, name, saved)


@settings(max_examples=150, deadline=None)
@given(runs(), st.sampled_from(["docid_desc", "docid_asc", "input_order"]),
       st.sampled_from(["float32", "float64"]), st.sampled_from(["dataframe", "objects",
                                                                 "lists"]),
       st.sampled_from([None, 96, 96 * 6]), st.sampled_from([None, 1, 3]),
       st.sampled_from([None, 0.0, 1.0]), st.sampled_from([None, 1, 5]))
def test_rank_is_a_sort_per_query(rows, ties, score_dtype, form, budget, chunk, tied_share,
                                  cap):
    with patched(pairs, "_CONVERT_ROWS", chunk):
        run = as_run(rows, form)
    # the default budget ranks every query in one block; 96 bytes is one row per block (each
    # query a block of its own), 96 * 6 blocks of a few queries, equal or not in length; tied
    # entries sorted again with the whole block (tied share 0) or by themselves (share 1); the
    # cap on a block's rows (runs._RANK_BLOCK_ROWS, 65,536) made 1 or 5 splits the default
    # budget's blocks as a run of more rows than the cap would be, the path a user's large
    # run takes
    options = {} if budget is None else {"memory_budget": budget}
    with (patched(runs_module, "_TIED_SHARE", tied_share),
          patched(runs_module, "_RANK_BLOCK_ROWS", cap)):
        ranking = rank(run, ties=ties, score_dtype=score_dtype, **options)
    expected = brute_rank(rows, ties, score_dtype)
    got = [ranking.rows[ranking.query == i].tolist() for i in range(len(ranking.query_ids))]
    assert got == expected
    assert ranking.query_ids.tolist() == sorted({r[0] for r in rows})
    assert ranking.lengths.tolist() == [len(e) for e in expected]
    for i in range(len(expected)):
        assert ranking.position[ranking.query == i].tolist() == list(range(len(expected[i])))


@settings(max_examples=100, deadline=None)
@given(runs(), st.data(), st.sampled_from(["docid_desc", "average"]))
def test_a_ranking_on_other_queries_truncated_and_laid_out_keeps_each_list(rows, data, ties):
    """on() (queries dropped, added, reordered), truncate() and matrix() against each query's
    list read entry by entry: the entries stay query by query, rank by rank."""
    ranking = rank(as_run(rows, "lists"), ties=ties)
    lists = {q: ranking.rows[ranking.query == i].tolist()
             for i, q in enumerate(ranking.query_ids)}
    pool = [*sorted(lists), "q_none", "q_other"]
    queries = data.draw(st.lists(st.sampled_from(pool), unique=True))
    depth = data.draw(st.integers(1, 9))
    moved = ranking.on(np.array(queries, dtype=object))
    try:
        moved = moved.truncate(depth)
    except ValueError:  # a depth that splits a tied group is refused (tested elsewhere)
        assert ties == "average"
    cut = [lists.get(q, [])[: moved.lengths[i]] for i, q in enumerate(queries)]
    assert moved.query_ids.tolist() == queries
    assert moved.lengths.tolist() == [len(c) for c in cut]
    assert moved.rows.tolist() == [r for c in cut for r in c]
    assert moved.query.tolist() == [i for i, c in enumerate(cut) for _ in c]
    assert moved.position.tolist() == [k for c in cut for k in range(len(c))]
    layout = moved.matrix(np.arange(len(rows)), fill=-1)
    assert layout.shape == (len(queries), max((len(c) for c in cut), default=0))
    assert layout.tolist() == [c + [-1] * (layout.shape[1] - len(c)) for c in cut]


@settings(max_examples=100, deadline=None)
@given(runs(), st.data(), st.sampled_from(["docid_desc", "average"]))
def test_a_ranking_taken_by_position_keeps_each_list(rows, data, ties):
    """take() (the blocks' cut: positions in any order, -1 for an empty list) against each
    query's list read entry by entry, tie bounds included."""
    ranking = rank(as_run(rows, "lists"), ties=ties)
    n = len(ranking.query_ids)
    lists = [ranking.rows[ranking.query == i].tolist() for i in range(n)]
    bounds = ([] if ranking.tie_first is None else
              [list(zip(ranking.tie_first[ranking.query == i].tolist(),
                        ranking.tie_end[ranking.query == i].tolist(), strict=True))
               for i in range(n)])
    positions = data.draw(st.lists(st.integers(-1, n - 1)))
    part = ranking.take(np.array(positions, dtype=np.int64),
                        np.array([f"new{k}" for k in range(len(positions))], dtype=object))
    picked = [lists[p] if p >= 0 else [] for p in positions]
    assert part.query_ids.tolist() == [f"new{k}" for k in range(len(positions))]
    assert part.lengths.tolist() == [len(c) for c in picked]
    assert part.rows.tolist() == [r for c in picked for r in c]
    if bounds:
        got = list(zip(part.tie_first.tolist(), part.tie_end.tolist(), strict=True))
        assert got == [b for p in positions if p >= 0 for b in bounds[p]]
    kept = [p for p in positions if p >= 0]
    if kept:
        assert ranking.take(np.array(kept)).query_ids.tolist() == ranking.query_ids[kept].tolist()
    if len(kept) < len(positions):  # an empty list has no id of its own to default to
        with pytest.raises(ValueError, match="need their query_ids"):
            ranking.take(np.array(positions, dtype=np.int64))


@settings(max_examples=80, deadline=None)
@given(runs(), st.sampled_from(["float32", "float64"]))
def test_tie_groups_are_the_runs_of_equal_scores(rows, score_dtype):
    ranking = rank(as_run(rows, "lists"), ties="average", score_dtype=score_dtype)
    cast = np.float32 if score_dtype == "float32" else np.float64
    for i in range(len(ranking.query_ids)):
        mine = ranking.rows[ranking.query == i]
        with np.errstate(over="ignore"):
            values = [float(cast(rows[r][2])) for r in mine]
        for j, v in enumerate(values):
            same = [k for k, w in enumerate(values) if w == v]
            assert ranking.tie_start[i, j] == min(same)
            assert ranking.tie_stop[i, j] == max(same) + 1


def grades_and_hits(run, qrels):
    """Each run row's grade (0 where unjudged) and whether it is judged, read through the
    qrels row the join gives each (:func:`judged_rows`)."""
    rows = judged_rows(run, qrels)
    hit = rows >= 0
    grades = np.zeros(len(rows))
    grades[hit] = qrels.relevance[rows[hit]]
    return grades, hit


@st.composite
def judged(draw, rows):
    queries = sorted({r[0] for r in rows} | {"q99"})
    out = {}
    for q in queries:
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(14)]), max_size=6,
                             unique=True))
        for d in docs:
            out[q, d] = float(draw(st.integers(-1, 3)))
    return out


@settings(max_examples=100, deadline=None)
@given(st.data(), st.sampled_from(["dataframe", "objects", "lists", "dicts"]),
       st.sampled_from(["dataframe", "objects", "dicts"]), st.sampled_from([None, 1, 40, 120]),
       st.sampled_from([None, 1, 4]), st.sampled_from([None, 1, 100]))
def test_join_is_a_lookup(data, run_form, qrels_form, join_block, chunk, span):
    """Every run row's grade is the dict lookup, with the join's blocks of queries of the
    default size (every query in one) or small (one or a few queries per block): a document
    judged for two queries of a block and retrieved for one takes the blocks' second path.
    Ids given as Python objects are converted in one chunk or in many. The join's spans of
    queries (``_SPAN_BYTES``) hold every query, one, or a few."""
    with (patched(judged_pairs, "_JOIN_BLOCK", join_block),
          patched(pairs, "_CONVERT_ROWS", chunk),
          patched(judged_pairs, "_SPAN_BYTES", span)):
        _join_is_a_lookup(data, run_form, qrels_form)


def _join_is_a_lookup(data, run_form, qrels_form):
    rows = data.draw(runs())
    truth = data.draw(judged(rows))
    if not truth:
        return
    if run_form == "dicts":
        nested: dict = {}
        for q, d, s in rows:
            nested.setdefault(q, {})[d] = s
        run = Run.from_dict(nested)
        rows = [(q, d, s) for q, docs in nested.items() for d, s in docs.items()]
    else:
        run = as_run(rows, run_form)
    keys = list(truth)
    if qrels_form == "dicts":
        nested = {}
        for (q, d), g in truth.items():
            nested.setdefault(q, {})[d] = g
        qrels = Qrels.from_dict(nested)
    elif qrels_form == "objects":
        qrels = Qrels(np.array([k[0] for k in keys], dtype=object),
                      np.array([k[1] for k in keys], dtype=object), list(truth.values()))
    else:
        qrels = Qrels.from_dataframe(pd.DataFrame(
            {"query_id": [k[0] for k in keys], "doc_id": [k[1] for k in keys],
             "relevance": list(truth.values())}))
    grades, matched = grades_and_hits(run, qrels)
    assert grades.tolist() == [truth.get((q, d), 0.0) for q, d, _ in rows]
    assert matched.tolist() == [(q, d) in truth for q, d, _ in rows]


def test_join_of_an_empty_side_is_empty():
    """A run with no rows gets no grades, and a run beside qrels with no rows gets none
    judged (the join's spans are sized from the ids' bytes, none here), with the warning
    that nothing it retrieves is judged only when the qrels name one of its queries."""
    import warnings

    empty_run = Run(np.array([], dtype=object), np.array([], dtype=object), np.array([]))
    run = Run(["q", "q"], ["a", "b"], [2.0, 1.0])
    empty_qrels = Qrels(np.array([], dtype=object), np.array([], dtype=object), np.array([]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither names a query the other has: no warning
        grades, hit = grades_and_hits(empty_run, Qrels(["q"], ["d"], [1]))
        assert grades.tolist() == [] and hit.tolist() == []
        grades, hit = grades_and_hits(run, empty_qrels)
        assert grades.tolist() == [0.0, 0.0] and hit.tolist() == [False, False]
    with pytest.warns(UserWarning, match="retrieves no judged document"):
        grades, hit = grades_and_hits(run, Qrels(["q"], ["z"], [1]))  # q named, nothing judged
    assert hit.tolist() == [False, False]


@pytest.mark.parametrize("join_block", [None, 1])
def test_join_finds_a_document_judged_first_for_another_query(join_block):
    """d1 is judged for q1 (first in the block) and for q2, and retrieved for q2 and q3: the
    first judged row holding d1 is q1's, so the block's fast answer does not hold."""
    run = Run(["q1", "q2", "q2", "q3"], ["x", "d1", "y", "d1"], [1.0, 1.0, 0.5, 1.0])
    qrels = Qrels(["q1", "q2", "q2", "q3"], ["d1", "d1", "y", "z"], [1, 2, 3, 1])
    with patched(judged_pairs, "_JOIN_BLOCK", join_block):
        grades, matched = grades_and_hits(run, qrels)
    assert grades.tolist() == [0.0, 2.0, 3.0, 0.0]
    assert matched.tolist() == [False, True, True, False]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]),
                          st.sampled_from(["a", "b", "c", "d", "e"])), min_size=1, max_size=30),
       st.sampled_from(["dataframe", "objects", "lists"]), st.integers(1, 8),
       st.sampled_from([None, 1, 3]))
def test_duplicate_check_is_exact(pairs_, form, block_rows, chunk):
    # many blocks (the blocks' boundaries are crossed); ids converted in chunks or whole
    with patched(pairs, "_BLOCK_ROWS", block_rows), patched(pairs, "_CONVERT_ROWS", chunk):
        rows = [(q, d, float(i)) for i, (q, d) in enumerate(pairs_)]
        if len(set(pairs_)) == len(pairs_):
            assert len(as_run(rows, form)) == len(rows)
        else:
            with pytest.raises(ValueError, match=r"is listed \d+ times"):
                as_run(rows, form)
            kept = Run(*zip(*rows, strict=True), duplicates="max")
            assert sorted(zip(kept.query_ids, kept.doc_ids, strict=True)) == sorted(set(pairs_))


def test_from_dict_is_the_same_run_as_from_rows():
    nested = {"q2": {"b": 1.0, "a": 2.0}, "q1": {"c": 0.5}, "q3": {}}
    # pytrec_eval scores q3 0 and counts it in the mean: the difference is said
    with pytest.warns(UserWarning, match=r"^run queries with no documents are left out: 'q3' "
                      r"\(pytrec_eval scores such a query 0"):
        run = Run.from_dict(nested, name="sys")
    assert run.name == "sys" and len(run) == 3
    assert run.query_ids.tolist() == ["q2", "q2", "q1"]
    assert run.doc_ids.tolist() == ["b", "a", "c"]
    assert run.scores.tolist() == [1.0, 2.0, 0.5]
    assert run.queries == ["q1", "q2"]  # a query without documents has no rows
    # non-str ids become str, and two that become equal are duplicates
    with pytest.raises(ValueError, match="is listed 2 times"):
        Run.from_dict({"q": {1: 1.0, "1": 2.0}})
    assert Run.from_dict({"q": {1: 1.0, "1": 2.0}}, duplicates="max").scores.tolist() == [2.0]
    with pytest.raises(ValueError, match=r"run\['q'\] must be a mapping"):
        Run.from_dict({"q": [1, 2]})
    with pytest.raises(ValueError, match=r"scores must be numbers, without NaN or missing "
                       r"values; run\['q'\]\['a'\] is nan$"):
        Run.from_dict({"q": {"a": float("nan")}})


def test_pickled_run_joins_in_another_process():
    """A Run carries no hash of the process that built it: one built from Python objects
    and pickled (as the Dask back end does) joins correctly after unpickling."""
    import pickle
    import subprocess
    import sys

    run = Run(np.array(["q", "q"], dtype=object), np.array(["a", "b"], dtype=object), [1.0, 2.0])
    judged_rows(run, Qrels(["q"], ["b"], [3]))  # the ids hashed in this process
    code = (
        "import pickle, sys\n"
        "from fuzzytruth.truth.qrels import Qrels\n"
        "from fuzzytruth.truth.judged_pairs import judged_rows\n"
        "run = pickle.loads(sys.stdin.buffer.read())\n"
        "qrels = Qrels.from_dict({'q': {'b': 3}})\n"
        "print(judged_rows(run, qrels).tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(run),
                         capture_output=True, check=True)
    assert out.stdout.decode().strip() == "[-1, 0]"


@st.composite
def encoded_queries(draw, queries: list[str]):
    """``queries`` dictionary-encoded as a reader or a user may give them: an Arrow
    dictionary array in chunks, each with a dictionary of its own in its own order (as the
    TREC reader parses a block), or a pandas Categorical with unused categories."""
    if draw(st.booleans()):
        extra = draw(st.lists(st.sampled_from(["zz", "q99", "é"]), unique=True))
        categories = draw(st.permutations(sorted(set(queries) | set(extra))))
        return pd.Categorical(queries, categories=categories)
    cuts = sorted(draw(st.lists(st.integers(0, len(queries)), max_size=3)))
    chunks = []
    for a, b in zip([0, *cuts], [*cuts, len(queries)], strict=True):
        part = queries[a:b]
        dictionary = draw(st.permutations(sorted(set(part) | {"unused"})))
        index = {q: i for i, q in enumerate(dictionary)}
        chunks.append(pa.DictionaryArray.from_arrays(
            pa.array([index[q] for q in part], type=pa.int32()),
            pa.array(dictionary, type=pa.large_string())))
    return pa.chunked_array(chunks, type=pa.dictionary(pa.int32(), pa.large_string()))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_dictionary_encoded_query_ids_give_the_run_of_their_strings(data):
    """Query ids given dictionary-encoded (TREC files' path, Categorical columns) are the same
    Run as the same ids given as str: the same rows, the same query order, the same ranking."""
    rows = data.draw(runs())
    q, d, s = (list(c) for c in zip(*rows, strict=True))
    encoded = data.draw(encoded_queries(q))
    expected, got = Run(q, d, s), Run(encoded, d, s)
    assert got.query_ids.tolist() == expected.query_ids.tolist() == q
    assert got._q_uniques.tolist() == expected._q_uniques.tolist()
    assert got.doc_ids.tolist() == d and got.scores.tolist() == expected.scores.tolist()
    assert rank(got).rows.tolist() == rank(expected).rows.tolist()
    truth = data.draw(judged(rows))
    if truth:
        keys = list(truth)
        qrels = Qrels([k[0] for k in keys], [k[1] for k in keys], list(truth.values()))
        assert grades_and_hits(got, qrels)[0].tolist() == [truth.get((a, b), 0.0)
                                                          for a, b in zip(q, d, strict=True)]


def test_dictionary_encoded_query_ids_refuse_missing_values_and_repeat_no_id():
    with pytest.raises(ValueError, match="query_ids must not contain missing values"):
        Run(pa.array(["q1", None, "q1"]).dictionary_encode(), ["a", "b", "c"], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="query_ids must not contain missing values"):
        Run(pd.Categorical(["q1", None]), ["a", "b"], [1.0, 2.0])
    # a dictionary naming one id twice is decoded, not taken as two queries
    twice = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], type=pa.int32()),
                                           pa.array(["q1", "q1"]))
    with pytest.raises(ValueError, match="document 'a' is listed 2 times for query 'q1'"):
        Run(twice, ["a", "a", "b"], [1.0, 2.0, 3.0])
    assert Run(twice, ["a", "b", "c"], [1.0, 2.0, 3.0]).queries == ["q1"]
    # categories that are not str go through str(), as any other id
    assert Run(pd.Categorical([1, 2, 1]), ["a", "b", "c"], [1.0, 2.0, 3.0]).queries == ["1", "2"]


def test_depth_splitting_a_tied_group_under_average_is_refused():
    """ties="average" is the expectation over the orders of each tied group; a depth (-M) that
    splits a group kept the documents the sort happened to put above the cut and averaged over
    them only: four tied documents, one relevant, gave P@1 = 1.0 at depth 1 where the mean
    over the 24 orders (enumerated here) is 0.25. That is refused now; a depth that splits no
    group gives the enumerated expectation."""
    import itertools

    from fuzzytruth import evaluate

    run = Run(["q"] * 5, ["a", "b", "c", "d", "e"], [2.0, 1.0, 1.0, 1.0, 1.0])
    qrels = Qrels(["q"], ["c"], [1])
    with pytest.raises(ValueError, match=r"depth=2 splits the documents tied at ranks 2-5 of "
                                         r"query 'q' under ties='average'"):
        evaluate(run, qrels, "P@2", preset="textbook", depth=2)
    orders = [("a", *tail) for tail in itertools.permutations("bcde")]
    for depth in (1, 5, None):
        kept = [order[:depth] for order in orders]
        expected = np.mean([[o[:k].count("c") / k for k in (1, 2, 3)] for o in kept], axis=0)
        got = evaluate(run, qrels, ["P@1", "P@2", "P@3"], preset="textbook", depth=depth)
        assert got.aggregate()["value"].tolist() == pytest.approx(expected.tolist())


def test_the_join_holds_few_temporaries_per_run_row():
    # the join of 200,000 run rows, half of them judged: its NumPy temporaries (traced by
    # tracemalloc; Arrow's are not) were 45 bytes per run row at the peak (the grades of every
    # hit gathered through two copies beside the row of each); reading each row's qrels row
    # in place of its position freed those: 21 (the result itself was 9: a grade and a flag);
    # each block's grades written in place (4c4fba1): 19, then 10.5 in 2026-11-29's layout;
    # the qrels row of each run row as the one result (int32): 5.5, of which the result is 4
    # (the uncertain truths' join, which made float rows of it, was 25)
    import tracemalloc

    rng = np.random.default_rng(0)
    n_queries, depth = 200, 1000
    q = np.repeat([f"q{i}" for i in range(n_queries)], depth)
    d = np.array([f"d{i}" for i in rng.permutation(n_queries * depth)], dtype=object)
    run = Run(q, d, rng.random(n_queries * depth))
    judged = rng.random(len(q)) < 0.5
    qrels = Qrels(q[judged], d[judged], rng.integers(0, 3, judged.sum()))
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        judging = judged_rows(run, qrels)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    pairs_ = list(zip(q.tolist(), d.tolist(), strict=True))
    judged_pairs_ = [p for p, j in zip(pairs_, judged.tolist(), strict=True) if j]
    expected = dict(zip(judged_pairs_, qrels.relevance.tolist(), strict=True))
    assert (judging >= 0).tolist() == [k in expected for k in pairs_]
    grades, _ = grades_and_hits(run, qrels)
    assert grades.tolist() == [float(expected.get(k, 0)) for k in pairs_]
    assert peak / len(run) < 8, peak / len(run)


def test_the_gains_read_the_grades_in_place_and_an_unjudged_row_is_zero():
    # the gains read the qrels' grades where they are (no copy ending in a 0 for row -1):
    # a row judged by none reads 0, not the last grade, even when the qrels hold no judgment
    # of the ranked queries or none at all (a direct call with the run's whole ranking)
    run = Run(["q", "q", "q", "r"], ["a", "b", "c", "a"], [3.0, 2.0, 1.0, 1.0])
    ranking = rank(run)
    none = [[False] * 3] * 2
    for qrels, expected, judged in [
        (Qrels(["q", "q"], ["a", "c"], [0.0, 1.0]), [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]],
         [[True, False, True], [False] * 3]),
        (Qrels(["x"], ["a"], [5.0]), [[0.0] * 3] * 2, none),
        (Qrels([], [], []), [[0.0] * 3] * 2, none),
    ]:
        gains = judged_pairs.qrels_gains(ranking, run, qrels, judged=True)
        assert gains.gains.tolist() == expected
        assert gains.judged.tolist() == judged


def test_a_run_of_one_score_per_query_warns_that_document_ids_order_it():
    """A system that wrote its order only in the rank column (a constant score, as some do)
    is ranked by document id, as trec_eval and pytrec_eval rank it, with a warning; a run with
    some queries tied throughout (short lists of coarse scores) does not warn, nor one ranked
    in its rows' order, nor scores that differ in the precision compared."""
    import warnings

    import pytrec_eval

    from fuzzytruth import Qrels, evaluate

    frame = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 2, "doc_id": ["a", "b", "c", "a", "b"],
                          "rank": [1, 2, 3, 1, 2]})
    constant = Run.from_dataframe(frame.assign(score=1.0))
    qrels = Qrels(["q1", "q2"], ["a", "a"], [1, 1])
    with pytest.warns(UserWarning, match=r"^run 'run' gives every document of a query the same "
                                         r"score, in each of its 2 queries .* ranked by document "
                                         r"id \(ties='docid_desc', as trec_eval\)"):
        ours = evaluate(constant, qrels, "RR").value("run", "RR")
    peer = pytrec_eval.RelevanceEvaluator({"q1": {"a": 1}, "q2": {"a": 1}}, {"recip_rank"})
    scores = peer.evaluate({q: {d: 1.0 for d in frame.doc_id[frame.query_id == q]}
                            for q in ("q1", "q2")})
    assert ours == np.mean([v["recip_rank"] for v in scores.values()]) == (1 / 3 + 1 / 2) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        some_tied = frame.assign(score=[1.0, 1.0, 1.0, 2.0, 1.0])
        rank(Run.from_dataframe(some_tied))
        assert evaluate(constant, qrels, "RR", ties="input_order").value("run", "RR") == 1.0
        assert evaluate(Run.from_dataframe(frame, rank_col="rank"), qrels,
                        "RR").value("run", "RR") == 1.0
        close = frame.assign(score=[1.0, 1.0 + 1e-12, 1.0, 1.0 + 1e-12, 1.0])
        rank(Run.from_dataframe(close), score_dtype="float64")
    with pytest.warns(UserWarning, match="the same score"):  # trec_eval's float32 ties them
        rank(Run.from_dataframe(close), score_dtype="float32")


def test_a_matrix_of_tied_rows_does_not_warn_of_a_rank_column():
    """The one-score warning advises a rank column or scores: for a matrix, whose ties go by
    the ties= asked for, it does not apply (it fired on every all-tied matrix, shape and
    cross-modal alike, naming rank_col). A run's warning has its own category."""
    import warnings

    from fuzzytruth.evaluation.matrices import (
        image_text_retrieval,
        rank_by_dissimilarity,
        shape_summary,
    )
    from fuzzytruth.runs import TiedScoresWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", TiedScoresWarning)
        ranking = rank_by_dissimilarity(np.ones((4, 4)), ["a", "b", "a", "b"], ties="optimistic")
        assert ranking.ranked.gains[0].tolist()[0] == 1  # the class mate first: optimistic
        shape_summary(ranking, min_class_size=1)
        image_text_retrieval(np.zeros((2, 10)), text_to_image=np.repeat([0, 1], 5))
    with pytest.warns(TiedScoresWarning):
        rank(Run(["q", "q"], ["a", "b"], [1.0, 1.0]))


def test_scores_beyond_float32_are_ranked_without_numpy_warnings():
    """Scores past float32's range are +-inf in trec_eval's precision: ranked there without
    numpy's overflow warning leaking to the user (the one-score check cast them bare), tied
    in float32 and so ordered by document id, descending; a run whose scores all overflow to
    one infinity is all tied and says so."""
    import warnings

    from fuzzytruth.runs import TiedScoresWarning

    run = Run(["q"] * 4, ["a", "b", "c", "d"], [1e300, -1e300, 0.0, 1e39])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ranking = rank(run, score_dtype="float32")
        assert ranking.rows.tolist() == [3, 0, 2, 1]  # d and a tied at +inf: "d" > "a"
        assert rank(run, score_dtype="float64").rows.tolist() == [0, 3, 2, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(TiedScoresWarning):
            rank(Run(["q", "q"], ["a", "b"], [1e39, 1e40]), score_dtype="float32")
