"""The sums of kept world values (:mod:`fuzzytruth.evaluation.world_sums`): one compiled pass
over a block gives, bit for bit, what NumPy gives through the rules (fill, counted queries
world by world and overall) and the in-order sums: each world's total as
``sum_in_order`` adds a row (``cumsum``), each query's total as a column of zeros then the
worlds added one after another.

Oracles: that NumPy computation written out here; on whole evaluations, the same sums of
``world_scores()`` (the values under the rules, read by another path) and the family's own
``combine``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fuzzytruth import Annotations, Membership, Run, Taxonomy
from fuzzytruth.evaluation import evaluate, world_sums
from fuzzytruth.evaluation.world_sums import NUMPY_CELLS, add_block
from fuzzytruth.measures import GEOMETRIC_FLOOR, family


def _reference(values, fill, fills, world_counted, counted, geometric):
    """The sums through NumPy: the rules as temporaries, then in-order sums."""
    ruled = np.where(np.isnan(values), fill, values) if fills else values.copy()
    if world_counted is not None:
        ruled = np.where(world_counted, ruled, np.nan)
    ruled = np.where(counted[None, :], ruled, np.nan)
    defined = ~np.isnan(ruled)
    terms = np.log(np.maximum(ruled, GEOMETRIC_FLOOR)) if geometric else ruled
    zeroed = np.where(defined, terms, 0.0)
    world_total = (np.cumsum(zeroed, axis=1)[:, -1] if values.shape[1]
                   else np.zeros(len(values)))
    column = np.vstack([np.zeros((1, values.shape[1])), np.where(defined, ruled, 0.0)])
    return (world_total, defined.sum(axis=1), np.cumsum(column, axis=0)[-1],
            defined.sum(axis=0))


cells = st.one_of(st.floats(-2, 2, allow_nan=False), st.just(np.nan), st.just(-0.0),
                  st.just(np.inf), st.just(0.0))


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(1, 6), st.integers(0, 9), st.booleans(), st.booleans(),
       st.booleans(), st.sampled_from([0.0, 1.0, np.nan]))
def test_a_compiled_block_is_the_numpy_sums_bit_for_bit(data, n_w, n_q, fills, by_world,
                                                       geometric, fill):
    values = data.draw(hnp.arrays(np.float64, (n_w, n_q), elements=cells))
    counted = data.draw(hnp.arrays(bool, n_q))
    flags = data.draw(hnp.arrays(bool, (n_w, n_q))) if by_world else None
    fills = fills and not np.isnan(fill)
    expected = _reference(values, fill, fills, flags, counted, geometric)
    terms = None
    if geometric:
        terms = np.log(np.maximum(np.where(np.isnan(values), fill, values) if fills else values,
                                  GEOMETRIC_FLOOR))
    for cells_for_numpy in (0, NUMPY_CELLS):  # the compiled pass, then NumPy's
        item_total, item_count = np.zeros(n_q), np.zeros(n_q, dtype=np.int64)
        try:
            world_sums.NUMPY_CELLS = cells_for_numpy
            with np.errstate(invalid="ignore", divide="ignore"):
                got = add_block(values, terms, fill, fills, flags, counted, item_total,
                                item_count)
        finally:
            world_sums.NUMPY_CELLS = NUMPY_CELLS
        for a, b in zip((*got, item_total, item_count), expected, strict=True):
            np.testing.assert_array_equal(a, b)
            assert (np.signbit(a) == np.signbit(b)).all()  # -0.0 kept where NumPy keeps it


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(1, 6), st.integers(0, 9), st.booleans(), st.booleans(),
       st.sampled_from([0.0, 1.0, np.nan]), st.booleans())
def test_the_compiled_rules_are_numpy_s_bit_for_bit(data, n_w, n_q, fills, by_world, fill,
                                                    strided):
    """apply_rules' compiled pass (a block of at least NUMPY_CELLS values) writes what its
    NumPy passes and the reference's temporaries write: the fill, NaN for queries not
    counted overall or in a world, -0.0 and infinities as they are; from a strided block
    of values too. An output that is not C-ordered takes NumPy's passes."""
    values = data.draw(hnp.arrays(np.float64, (n_w, 2 * n_q if strided else n_q),
                                  elements=cells))
    if strided:
        values = values[:, ::2]
    counted = data.draw(hnp.arrays(bool, n_q))
    flags = data.draw(hnp.arrays(bool, (n_w, n_q))) if by_world else None
    fills = fills and not np.isnan(fill)
    expected = np.where(np.isnan(values), fill, values) if fills else values.copy()
    if flags is not None:
        expected = np.where(flags, expected, np.nan)
    expected = np.where(counted[None, :], expected, np.nan)
    for cells_for_numpy, layout in ((0, "C"), (0, "F"), (NUMPY_CELLS, "C")):
        out = np.full((n_w, n_q), 7.0, order=layout)
        try:
            world_sums.NUMPY_CELLS = cells_for_numpy
            got = world_sums.apply_rules(values, fill, fills, flags, counted, out)
        finally:
            world_sums.NUMPY_CELLS = NUMPY_CELLS
        assert got is out
        np.testing.assert_array_equal(out, expected)
        assert (np.signbit(out) == np.signbit(expected)).all()


def _membership_collection(rng):
    tax = Taxonomy.from_parents({"r": None, "a": "r", "a1": "a", "a2": "a", "b": "r",
                                 "c": "r"})
    items = [f"i{k}" for k in range(30)]
    rows = [(item, f"ann{j}", "c" if item == "i0" else rng.choice(["a1", "a2", "b", "a"]))
            for item in items for j in range(3)]  # "c": a category of one, R and AP undefined
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    membership = Membership.from_annotations(Annotations.from_frame(frame, taxonomy=tax))
    runs = {}
    for name in ("x", "y"):
        q = np.repeat(items[:12], 8)
        d = np.concatenate([rng.permutation(items)[:8] for _ in range(12)])
        runs[name] = Run(q, d, rng.random(len(q)))
    return runs, membership


@pytest.mark.parametrize("cells_for_numpy", [0, NUMPY_CELLS])
@pytest.mark.parametrize("options", [
    {}, {"undefined": "skip"}, {"preset": "psb"}, {"preset": "psb", "undefined": "skip"},
])
def test_an_evaluations_world_sums_are_those_of_its_world_scores(monkeypatch, options,
                                                                 cells_for_numpy):
    """Each (system, measure)'s sums, read by the compiled pass from the kept values, equal
    bit for bit the family's combine() of each world of world_scores() (the rules applied by
    the other path) and the in-order sum over the worlds of each query's values, for mean,
    sum and geometric families, with and without the preset's counted queries per world,
    through the compiled pass and through NumPy's."""
    runs, membership = _membership_collection(np.random.default_rng(5))
    measures = ["AP", "P@3", "GMAP", "NumRelRet"]
    ev = evaluate(runs, membership, measures, n_worlds=37, rng=4, memory_budget=4_000.0,
                  **options)
    keys = [(s, m) for s in range(2) for m in measures]
    monkeypatch.setattr(world_sums, "NUMPY_CELLS", cells_for_numpy)  # 0: compiled
    sums = ev._world_sums(keys)
    for s, m in keys:
        scores = ev.world_scores(m)[:, s, :]  # (worlds, queries) under the rules
        fam = family(m.split("@")[0])
        defined = ~np.isnan(scores)
        np.testing.assert_array_equal(sums[s, m].per_world, fam.combine(scores, axis=1))
        column = np.vstack([np.zeros((1, scores.shape[1])), np.where(defined, scores, 0.0)])
        np.testing.assert_array_equal(sums[s, m].item_total, np.cumsum(column, axis=0)[-1])
        np.testing.assert_array_equal(sums[s, m].item_count, defined.sum(axis=0))
        assert sums[s, m].defined == int(defined.sum())


@pytest.mark.parametrize("options", [{}, {"undefined": "skip"}, {"preset": "psb"}])
def test_world_scores_are_the_kept_values_under_the_rules_viewed_when_they_change_none(
        options):
    """world_scores() is the kept values under the rules (NaN scored by the family's fill
    under "zero", queries out of the aggregates NaN), as the NumPy chain of np.where gives
    them; read-only; a view of the kept values, not a copy, exactly when the rules change
    none of them (compare() reads each measure's: 1.6 GB a copy at 100,000 queries × 1,000
    worlds × 2 systems)."""
    runs, membership = _membership_collection(np.random.default_rng(6))
    ev = evaluate(runs, membership, ["P@3", "R@5", "AP"], n_worlds=23, rng=2, **options)
    for m, name in enumerate(ev.measures):
        raw = ev._worlds[m].transpose(1, 0, 2)  # (worlds, systems, queries)
        fill = family(name.split("@")[0]).undefined_value
        expected = np.where(np.isnan(raw), fill, raw) if ev.undefined.counts else raw
        if ev._world_counted is not None:
            expected = np.where(ev._world_counted[:, None, :], expected, np.nan)
        expected = np.where(ev._counted[name][None, None, :], expected, np.nan)
        got = ev.world_scores(name)
        np.testing.assert_array_equal(got, expected)
        assert not got.flags.writeable
        unchanged = bool(np.array_equal(expected, raw, equal_nan=True))
        viewed = np.shares_memory(got, ev._worlds)
        assert unchanged or not viewed, (name, options)  # a view only of what the rules keep
        if ev._world_counted is None and not np.isnan(raw).any():
            assert viewed, (name, options)  # nothing to change: no copy
    if not options:  # both paths are taken on this collection
        has_nan = np.isnan(ev._worlds).any(axis=(1, 2, 3))
        assert has_nan.any() and not has_nan.all()


def test_the_score_matrices_of_compare_hold_the_kept_values_without_a_copy():
    """An evaluation's kept world values are read-only, so the view world_scores() gives
    reaches compare()'s score matrices without a copy (ScoreMatrix copies what someone
    could still write through); a measure whose rules change values holds its own array."""
    from fuzzytruth.stats.scores import evaluation_scores

    runs, membership = _membership_collection(np.random.default_rng(6))
    ev = evaluate(runs, membership, ["P@3", "R@5"], n_worlds=23, rng=2)
    assert not ev._worlds.flags.writeable
    matrices = evaluation_scores(ev)
    assert np.shares_memory(matrices["P@3"].values, ev._worlds)  # no undefined value
    assert not np.shares_memory(matrices["R@5"].values, ev._worlds)  # "c" is undefined
    np.testing.assert_array_equal(matrices["R@5"].values, ev.world_scores("R@5"))
