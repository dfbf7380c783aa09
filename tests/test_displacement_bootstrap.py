"""The keyed two-stage bootstrap of Santini §5 displacement (fuzzytruth.displacement.bootstrap)
and its draws (fuzzytruth._random.two_stage_sums).

The bootstrap's draws are keyed by replicate and draw, on queries and annotators in sorted
order: the same seed must give the same bits whatever the memory budget, the blocks of
replicates, the order of the input rows and the other systems scored. Its statistical
behaviour (mean and variance of the two-stage resample) is checked against the closed form in
tests/test_displacement.py::test_bootstrap_two_stage_variance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth._random import index_counts, two_stage_sums
from fuzzytruth._resampling import BLOCKING, MEMORY_BUDGET, replicate_blocks
from fuzzytruth.displacement import DisplacementResult, weighted_displacement


def case(seed: int, systems: tuple[str, ...] = ("S1", "S2", "S3")):
    """Answers of 2-4 annotators to 6 queries over 12 items, and runs of each system."""
    rng = np.random.default_rng(seed)
    pool = [f"i{j}" for j in range(12)]
    rows, run_rows = [], []
    for q in range(6):
        for a in range(int(rng.integers(2, 5))):
            m = int(rng.integers(1, 6))
            items = rng.choice(pool, size=m, replace=False)
            rel = np.sort(rng.random(m))[::-1]
            rows += [(f"q{q}", f"a{a}", it, k, s)
                     for k, (it, s) in enumerate(zip(items, rel, strict=True), 1)]
        for sy in systems:
            items = rng.choice(pool, size=int(rng.integers(1, 8)), replace=False)
            run_rows += [(sy, f"q{q}", it, k) for k, it in enumerate(items, 1)]
    answers = pd.DataFrame(rows, columns=["query_id", "annotator_id", "item_id", "rank",
                                          "relevance"])
    runs = pd.DataFrame(run_rows, columns=["system", "query_id", "item_id", "rank"])
    return answers, runs


def test_bits_do_not_depend_on_memory_budget_or_blocks() -> None:
    res = weighted_displacement(*case(1), n_items=30)
    whole = res.bootstrap(n_resamples=500, rng=7)
    n_columns = 3 * 3  # systems x hypotheses: 8 bytes each per replicate
    assert len(replicate_blocks(500, 8.0 * n_columns, MEMORY_BUDGET)) == 1
    assert len(replicate_blocks(500, 8.0 * n_columns, 1000.0)) == 39  # 13 replicates a block
    small = res.bootstrap(n_resamples=500, rng=7, memory_budget=1000.0)
    np.testing.assert_array_equal(small.bootstrap_distribution, whole.bootstrap_distribution)
    token = BLOCKING.set((3, 1))  # the Dask back end's setting: blocks of 3 replicates
    try:
        blocked = res.bootstrap(n_resamples=500, rng=7)
    finally:
        BLOCKING.reset(token)
    np.testing.assert_array_equal(blocked.bootstrap_distribution, whole.bootstrap_distribution)
    # a prefix of the replicates is the smaller bootstrap
    head = res.bootstrap(n_resamples=120, rng=7)
    np.testing.assert_array_equal(head.bootstrap_distribution,
                                  whole.bootstrap_distribution[..., :120])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_shuffling_input_rows_changes_nothing(seed: int) -> None:
    answers, runs = case(seed % 1000)
    res = weighted_displacement(answers, runs, n_items=30, g="scale_free")
    mixed = weighted_displacement(
        answers.sample(frac=1.0, random_state=seed % 2**31),
        runs.sample(frac=1.0, random_state=(seed + 1) % 2**31),
        n_items=30,
        g="scale_free",
    )
    pd.testing.assert_frame_equal(mixed.to_frame(), res.to_frame())
    a = res.bootstrap(n_resamples=200, rng=seed)
    b = mixed.bootstrap(n_resamples=200, rng=seed)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    # the result table itself, rows shuffled
    shuffled = DisplacementResult(
        table=res.to_frame().sample(frac=1.0, random_state=seed % 2**31),
        g=res.g, use_deeper_ranks=True, run_order="rank",
    )
    c = shuffled.bootstrap(n_resamples=200, rng=seed)
    np.testing.assert_array_equal(a.bootstrap_distribution, c.bootstrap_distribution)
    np.testing.assert_array_equal(a.estimate, c.estimate)


def test_a_system_s_replicates_do_not_depend_on_the_others() -> None:
    # paired draws: every system sees the same queries and annotators in every replicate
    answers, runs = case(4)
    both = weighted_displacement(answers, runs, n_items=30).bootstrap(n_resamples=300, rng=2)
    alone = weighted_displacement(answers, runs[runs["system"] == "S2"], n_items=30)
    one = alone.bootstrap(n_resamples=300, rng=2)
    np.testing.assert_array_equal(one.bootstrap_distribution[0], both.bootstrap_distribution[1])


def test_estimate_is_by_system_and_interval_brackets_replicates() -> None:
    res = weighted_displacement(*case(5), n_items=30, g="exponential")
    boot = res.bootstrap(rng=0)  # the defaults: 9,999 replicates, 95 %
    assert boot.bootstrap_distribution.shape == (3, 3, 9999)
    frame = boot.to_frame()
    by_system = res.by_system()
    for h in ("pessimist", "exact_pessimist", "optimist"):
        np.testing.assert_array_equal(frame[h].to_numpy(), by_system[h].to_numpy())
        dist = boot.bootstrap_distribution[:, ["pessimist", "exact_pessimist", "optimist"]
                                           .index(h)]
        assert np.all(frame[f"{h}_ci_low"] >= dist.min(axis=1))
        assert np.all(frame[f"{h}_ci_high"] <= dist.max(axis=1))
        assert np.all(frame[f"{h}_ci_low"] <= frame[f"{h}_ci_high"])


def test_incomplete_table_is_refused() -> None:
    table = weighted_displacement(*case(6), n_items=30).to_frame()
    res = DisplacementResult(table=table.iloc[1:], g="x", use_deeper_ranks=True,
                             run_order="rank")
    with pytest.raises(ValueError, match=r"one row per \(system, query, annotator\)"):
        res.bootstrap(n_resamples=10, rng=0)
    with pytest.raises(ValueError, match="n_resamples must be an integer >= 1"):
        res.bootstrap(n_resamples=2.5)


# ---------------------------------------------------------------------- two_stage_sums
def test_group_draws_are_the_keyed_bootstrap_counts() -> None:
    # values: one column per group, 1 on every member row of that group; a drawn group's
    # member mean is then 1 in its own column, so sums count the draws of each group
    sizes = np.array([1, 3, 2, 4])
    width = 4
    values = np.zeros((4 * width, 4))
    for g in range(4):
        values[g * width : (g + 1) * width, g] = 1.0
    worlds = np.arange(50, 90)
    sums = two_stage_sums(11, 5, sizes, values, worlds)
    np.testing.assert_array_equal(sums, index_counts(11, 5, 4, worlds))


def test_member_draws_are_uniform_with_replacement() -> None:
    # one group of 4 members, identity values: each replicate's sum is the share of its 4
    # draws that picked each member. Over 20,000 replicates every member has share 1/4; the
    # number of replicates drawing one member k times is Binomial(4, 1/4).
    values = np.eye(4)
    sums = two_stage_sums(3, 8, np.array([4]), values, np.arange(20_000))
    counts = np.rint(sums * 4).astype(int)
    assert np.all(counts.sum(axis=1) == 4)
    se = np.sqrt(0.25 * 0.75 / 80_000)
    assert np.all(np.abs(counts.sum(axis=0) / 80_000 - 0.25) < 5 * se)
    observed = np.bincount(counts[:, 0], minlength=5) / 20_000
    # Binomial(4, 1/4): C(4, k) 3^(4 - k) / 4^4
    expected = np.array([0.31640625, 0.421875, 0.2109375, 0.046875, 0.00390625])
    assert np.all(np.abs(observed - expected) < 5 * np.sqrt(expected * (1 - expected) / 20_000))


def test_two_stage_sums_rejects_bad_layouts() -> None:
    with pytest.raises(ValueError, match="1 <= sizes <= width"):
        two_stage_sums(1, 1, np.array([3]), np.zeros((2, 1)), np.arange(2))
    with pytest.raises(ValueError, match="1 <= sizes <= width"):
        two_stage_sums(1, 1, np.array([0, 1]), np.zeros((2, 1)), np.arange(2))
