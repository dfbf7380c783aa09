"""The judged pairs of a block of queries, found through the table's query ranges."""

import pickle

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth.runs import Qrels
from fuzzytruth.truth.judged_pairs import pair_order


def _by_hand(qrels, queries, grade):
    """Every pair of the evaluated queries sorted by (query position, grade descending, row):
    one pass over all pairs, each id compared as text (the oracle)."""
    position = {q: i for i, q in enumerate(queries)}
    rows = [r for r, q in enumerate(qrels.query_ids) if q in position]
    rows.sort(key=lambda r: (position[qrels.query_ids[r]], -grade[r], r))
    return np.array(rows, dtype=np.int64), np.array(
        [position[qrels.query_ids[r]] for r in rows], dtype=np.int64)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 9), st.integers(0, 3)),
                  max_size=40, unique_by=lambda t: (t[0], t[1])),
    evaluated=st.sets(st.integers(0, 8)),
)
def test_the_pairs_of_the_evaluated_queries_by_query_then_grade(rows, evaluated):
    """pair_order reads each evaluated query's rows from the table's ranges (rows in any
    order of queries, so the table holds a grouping order; queries not judged; judged
    queries not evaluated) and gives the pairs of the brute-force sort, and the same after
    a pickle round trip, which does not carry the ranges."""
    qrels = Qrels([f"q{q}" for q, _, _ in rows], [f"d{d}" for _, d, _ in rows],
                  [g for _, _, g in rows])
    queries = np.array(sorted(f"q{q}" for q in evaluated), dtype=object)
    grade = qrels.relevance
    order, pair_query = _by_hand(qrels, list(queries), grade)
    got = pair_order(qrels, queries, grade)
    np.testing.assert_array_equal(got["order"], order)
    np.testing.assert_array_equal(got["pair_query"], pair_query)
    assert got["pair_query"].dtype == np.int64
    copy = pickle.loads(pickle.dumps(qrels))
    assert "_query_ranges" not in copy.__dict__ and "_query_ranges" in qrels.__dict__
    np.testing.assert_array_equal(pair_order(copy, queries, grade)["order"], order)
