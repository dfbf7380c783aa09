"""The matrix front doors as views over evaluate() (fuzzytruth.evaluation.matrices), the
FirstRelRank family they read ranks from, and the old import paths and tie spellings kept for
one release. The numbers themselves are tested in tests/test_shape.py and
tests/test_crossmodal.py (psbTable, VSE++/SCAN)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth import Qrels, Run, evaluate
from fuzzytruth.evaluation import matrices
from fuzzytruth.evaluation.matrices import (
    average_over_queries,
    image_text_retrieval,
    rank_by_dissimilarity,
    retrieval_ranks,
    shape_summary,
)
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.metrics.crossmodal import first_relevant_rank


def test_old_import_paths_are_the_new_objects():
    import fuzzytruth.metrics.crossmodal as old_crossmodal
    import fuzzytruth.metrics.shape as old_shape

    for name in ("ShapeRanking", "average_over_queries", "rank_by_dissimilarity",
                 "shape_summary"):
        assert getattr(old_shape, name) is getattr(matrices, name)
    for name in ("image_text_retrieval", "retrieval_ranks"):
        assert getattr(old_crossmodal, name) is getattr(matrices, name)
    from fuzzytruth.metrics.shape import shape_summary as old

    assert old is shape_summary
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        old_shape.nope  # noqa: B018


def test_first_tie_spellings_are_the_vocabulary_of_rank():
    rng = np.random.default_rng(2)
    d = rng.integers(0, 3, size=(7, 7)).astype(float)  # many ties
    labels = ["a", "a", "b", "b", "b", "c", "a"]
    for old, new in (("index_ascending", "docid_asc"), ("expected", "average")):
        with pytest.deprecated_call(match=f"ties='{old}' is deprecated .*: use ties='{new}'"):
            a = rank_by_dissimilarity(d, labels, ties=old)
        b = rank_by_dissimilarity(d, labels, ties=new)
        assert a.ties == b.ties == new
        np.testing.assert_array_equal(a.ranked.gains, b.ranked.gains)
        assert shape_summary(a) == shape_summary(b)
    sim = rng.integers(0, 3, size=(3, 9)).astype(float)
    for old, new in (("stable_index", "docid_asc"), ("expected", "average")):
        with pytest.deprecated_call(match=f"use ties='{new}'"):
            assert image_text_retrieval(sim, ties=old) == image_text_retrieval(sim, ties=new)
        with pytest.deprecated_call(match=f"use ties='{new}'"):
            assert (retrieval_ranks(sim, ties=old) == retrieval_ranks(sim, ties=new)).all()
    # in a matrix the cells are given in column order: input order is index order
    assert image_text_retrieval(sim, ties="input_order") == image_text_retrieval(
        sim, ties="docid_asc")


def test_defaults_are_the_presets_tie_rules():
    d = np.array([[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]], dtype=float)
    assert rank_by_dissimilarity(d, ["a", "b", "b", "a"]).ties == "docid_asc"  # psb's
    sim = np.zeros((2, 4))
    # crossmodal's "average": the expectation over the orders of the tied captions
    assert retrieval_ranks(sim).tolist() == pytest.approx([2 / 3, 2 / 3])


def test_shape_summary_reads_the_presets_conventions():
    rng = np.random.default_rng(4)
    labels = np.repeat(["a", "b", "c"], [3, 4, 5])
    d = rng.random((12, 12))
    ranking = rank_by_dissimilarity(d, labels)
    shrec = shape_summary(ranking, preset="shrec2006")
    precision = shape_summary(ranking, tier_style="precision")
    assert shrec["FT"] == precision["FT"] and shrec["ST"] == precision["ST"]
    # every list holds all 11 other models (Va >= 2K), so the two tier styles agree on FT
    assert shape_summary(ranking)["FT"] == pytest.approx(precision["FT"])


def test_the_view_is_evaluate_on_its_run_and_qrels():
    rng = np.random.default_rng(8)
    sim = rng.random((4, 12))
    out = image_text_retrieval(sim, ks=(1, 5), percent=False)
    i, t = np.nonzero(np.ones_like(sim, dtype=bool))
    run = Run(i.astype(str), t.astype(str), sim[i, t])
    qrels = Qrels(i.astype(str), t.astype(str), (t // 3 == i).astype(float))
    ev = evaluate(run, qrels, ["R@1", "R@5", "FirstRelRank"], preset="crossmodal")
    table = ev.aggregate().set_index("measure")["value"]
    assert out["i2t_R@1"] == pytest.approx(table["R@1"], abs=1e-12)
    assert out["i2t_R@5"] == pytest.approx(table["R@5"], abs=1e-12)
    assert out["i2t_meanr"] == pytest.approx(table["FirstRelRank"], abs=1e-12)


# ---------------------------------------------------------------------------------------------
# FirstRelRank: brute force over every order of the tied items


@st.composite
def ranked_lists(draw):
    n_q = draw(st.integers(1, 4))
    rows = []
    for _ in range(n_q):
        n = draw(st.integers(0, 6))
        scores = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        grades = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        rows.append(sorted(zip(scores, grades, strict=True), key=lambda x: -x[0]))
    return rows


def _ranked(rows, with_ties: bool) -> RankedGains:
    depth = max((len(r) for r in rows), default=0)
    gains = np.zeros((len(rows), depth))
    start = np.tile(np.arange(depth), (len(rows), 1))
    stop = start + 1
    for q, r in enumerate(rows):
        for j, (score, grade) in enumerate(r):
            gains[q, j] = grade
            same = [i for i, (s, _) in enumerate(r) if s == score]
            start[q, j], stop[q, j] = min(same), max(same) + 1
    lengths = np.array([len(r) for r in rows])
    ideal = np.ones((len(rows), 1))
    if not with_ties:
        return RankedGains(np.arange(len(rows)), gains, lengths, ideal)
    return RankedGains(np.arange(len(rows)), gains, lengths, ideal, start, stop)


@settings(max_examples=60, deadline=None)
@given(ranked_lists(), st.sampled_from([1, 2]))
def test_first_relevant_rank_matches_brute_force(rows, rel):
    strict = first_relevant_rank(_ranked(rows, False), rel=rel)
    tied = first_relevant_rank(_ranked(rows, True), rel=rel)
    for q, r in enumerate(rows):
        grades = [g for _, g in r]
        expected = next((i + 1 for i, g in enumerate(grades) if g >= rel), len(r) + 1)
        assert strict[q] == expected
        orders = [
            p for p in itertools.permutations(range(len(r)))
            if all(r[a][0] >= r[b][0] for a, b in itertools.pairwise(p))
        ]
        firsts = [next((i + 1 for i, j in enumerate(p) if grades[j] >= rel), len(r) + 1)
                  for p in orders]
        assert tied[q] == pytest.approx(np.mean(firsts), abs=1e-12)


# ---------------------------------------------------------------------------------------------
# hostile matrices and labels (found by the shape/displacement fuzz, 2026-11-25)

D4 = np.array([[0, 2, 1, 3], [2, 0, 3, 1], [1, 3, 0, 2], [3, 1, 2, 0]])


def test_labels_are_compared_as_text_in_a_list_and_in_an_object_array():
    """7 and "7" are one class as text, as every id is: numpy made a list of them strings
    (one class) but kept an object array's types (two classes: class sizes 2, 1, 2, 1), and
    the macro average could not sort mixed types (TypeError)."""
    mixed = ["a", 7, "a", "7"]
    as_text = ["a", "7", "a", "7"]
    want = rank_by_dissimilarity(D4, as_text)
    for labels in (mixed, np.array(mixed, dtype=object)):
        got = rank_by_dissimilarity(D4, labels)
        assert got.class_sizes.tolist() == want.class_sizes.tolist() == [2, 2, 2, 2]
        np.testing.assert_array_equal(got.ranked.gains, want.ranked.gains)
        assert (shape_summary(got, averaging="macro", min_class_size=1)
                == shape_summary(want, averaging="macro", min_class_size=1))
    values = np.array([1.0, 0.0, 0.5, 1.0])
    # class "a" (queries 0 and 2) alone is left once "7" is excluded, given as 7 or "7"
    for labels in (mixed, np.array(mixed, dtype=object)):
        for excluded in ([7], ["7"]):
            assert average_over_queries(values, labels, averaging="macro",
                                        exclude_classes=excluded) == 0.75


@pytest.mark.parametrize("bad, message", [
    (np.array([["a", "b"], ["c", "d"]]), "must be numbers"),
    (np.array([[1 + 1j, 2], [3, 4]]), "must be real numbers; got complex values"),
])
def test_matrices_that_are_not_real_numbers_are_refused_by_name(bad, message):
    # numpy's own "could not convert string to float", and a ComplexWarning that kept the
    # real parts, before
    with pytest.raises(ValueError, match=f"^dissimilarity {message}"):
        rank_by_dissimilarity(bad, ["a", "b"])
    with pytest.raises(ValueError, match=f"^similarity {message}"):
        retrieval_ranks(bad)


@pytest.mark.parametrize("missing", [None, np.nan])
def test_a_missing_label_is_refused_by_name(missing):
    with pytest.raises(ValueError, match=r"^labels must not contain missing values"):
        rank_by_dissimilarity(D4, ["a", missing, "a", "b"])
    with pytest.raises(ValueError, match=r"^target_labels must not contain missing values"):
        rank_by_dissimilarity(D4[:2], ["a", "b"], target_labels=["a", "b", missing, "a"])
