"""fuzzytruth._order.code_order: the stable order of integer codes, by 16-bit radix passes,
is NumPy's stable argsort of the codes (the oracle) in each of its three regimes; a run whose
rows are not grouped by query is grouped by it, so its numbers do not depend on it."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth import evaluate
from fuzzytruth._order import code_order
from fuzzytruth.runs import Qrels, Run


@settings(max_examples=60, deadline=None)
@given(n_codes=st.sampled_from([1, 2, 1 << 16, (1 << 16) + 1, 100_003, 1 << 32, (1 << 32) + 5,
                                1 << 40]),
       size=st.integers(0, 300), seed=st.integers(0, 2**32 - 1))
def test_code_order_is_the_stable_argsort_of_the_codes(n_codes, size, seed):
    rng = np.random.default_rng(seed)
    # few distinct codes drawn across the whole range: ties, and both 16-bit digits in use
    pool = rng.integers(0, n_codes, max(1, size // 4))
    codes = rng.choice(pool, size)
    np.testing.assert_array_equal(code_order(codes, n_codes),
                                  np.argsort(codes, kind="stable"))


def test_a_run_of_more_than_65536_queries_in_any_row_order_scores_alike():
    # 70,000 queries of one document each: the two-pass grouping of the rows, shuffled or not
    rng = np.random.default_rng(5)
    n = 70_000
    queries = np.array([f"q{i}" for i in range(n)], dtype=object)
    docs = np.where(rng.random(n) < 0.5, "a", "b").astype(object)
    qrels = Qrels(queries, np.full(n, "a", dtype=object), np.ones(n))
    shuffle = rng.permutation(n)
    grouped = evaluate(Run(queries, docs, np.ones(n)), qrels, ["P@1"])
    shuffled = evaluate(Run(queries[shuffle], docs[shuffle], np.ones(n)), qrels, ["P@1"])
    assert grouped.value("run", "P@1") == shuffled.value("run", "P@1") == np.mean(docs == "a")
