"""Displacement on Run objects and the preset's tie rule (fuzzytruth.displacement).

A run is ranked by fuzzytruth.runs.rank, the step every evaluation uses; the positions of tied
items are hand-derived from each tie rule below. The DataFrame input of earlier releases must
give the same table as the Run it is converted to.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth import Run, rank
from fuzzytruth.displacement import weighted_displacement

ANSWERS = pd.DataFrame(
    {
        "query_id": "q",
        "annotator_id": "u",
        "item_id": ["a", "b", "c"],
        "rank": [1, 2, 3],
        "relevance": [1.0, 0.5, 0.25],
    }
)


def w_a(res) -> float:
    return float(res.to_frame()["w_a"].item())


def test_run_is_ranked_with_the_preset_tie_rule() -> None:
    # scores b 2, then a and c tied at 1 (and x, not annotated, at 0.5)
    run = Run(["q"] * 4, ["c", "x", "a", "b"], [1.0, 0.5, 1.0, 2.0], name="S")
    # trec10 (default) and trec: item id descending -> b, c, a, x:
    #   w_a = 1*|1-3| + .5*|2-1| + .25*|3-2| = 2.75
    assert w_a(weighted_displacement(ANSWERS, run, n_items=10)) == pytest.approx(2.75)
    assert w_a(weighted_displacement(ANSWERS, run, n_items=10, preset="trec")) == pytest.approx(
        2.75
    )
    # psb: item id ascending -> b, a, c, x: 1*1 + .5*1 + 0 = 1.5
    assert w_a(weighted_displacement(ANSWERS, run, n_items=10, preset="psb")) == pytest.approx(1.5)
    # shrec2006: the run's row order among ties -> b, c, a, x (c is listed before a): 2.75
    assert w_a(
        weighted_displacement(ANSWERS, run, n_items=10, preset="shrec2006")
    ) == pytest.approx(2.75)
    # ties= overrides the preset's
    res = weighted_displacement(ANSWERS, run, n_items=10, preset="psb", ties="docid_desc")
    assert w_a(res) == pytest.approx(2.75)
    assert (res.run_order, res.ties, res.score_dtype) == ("score", "docid_desc", "float64")


def test_score_precision_follows_the_preset() -> None:
    # a and b differ beyond float32: tied under trec (float32), ordered under trec10
    run = Run(["q"] * 3, ["a", "b", "c"], [1.0, 1.0 + 1e-12, 0.5], name="S")
    # trec10: b, a, c -> 1*1 + .5*1 = 1.5; trec: a, b tie, item id descending -> b, a, c: 1.5
    # psb with float32: tie, item id ascending -> a, b, c: 0; with float64: b, a, c: 1.5
    assert w_a(weighted_displacement(ANSWERS, run, n_items=10)) == pytest.approx(1.5)
    psb32 = weighted_displacement(ANSWERS, run, n_items=10, preset="psb", score_dtype="float32")
    assert w_a(psb32) == pytest.approx(0.0)
    assert w_a(weighted_displacement(ANSWERS, run, n_items=10, preset="psb")) == pytest.approx(
        1.5
    )


def test_averaged_ties_are_refused() -> None:
    run = Run(["q"], ["a"], [1.0])
    with pytest.raises(ValueError, match=r"ties must be one of .*preset 'textbook'"):
        weighted_displacement(ANSWERS, run, n_items=10, preset="textbook")
    with pytest.raises(ValueError, match="ties must be one of"):
        weighted_displacement(ANSWERS, run, n_items=10, ties="average")
    with pytest.raises(ValueError, match="ties must be one of"):
        weighted_displacement(ANSWERS, run, n_items=10, ties="random")
    res = weighted_displacement(ANSWERS, run, n_items=10, preset="textbook", ties="docid_asc")
    assert res.ties == "docid_asc"
    with pytest.raises(ValueError, match="preset must be one of"):
        weighted_displacement(ANSWERS, run, n_items=10, preset="nope")
    with pytest.raises(ValueError, match="score_dtype must be one of"):
        weighted_displacement(ANSWERS, run, n_items=10, score_dtype="float16")


def test_runs_argument_forms() -> None:
    run = Run(["q", "q"], ["b", "a"], [2.0, 1.0], name="S")
    one = weighted_displacement(ANSWERS, run, n_items=10).to_frame()
    assert one["system"].tolist() == ["S"]
    both = weighted_displacement(ANSWERS, {"T": run, "A": run}, n_items=10).to_frame()
    assert both["system"].tolist() == ["T", "A"]  # the mapping's order
    assert both["w_a"].tolist() == [one["w_a"].item()] * 2
    with pytest.raises(ValueError, match="run_order must be None or 'score'"):
        weighted_displacement(ANSWERS, run, n_items=10, run_order="rank")
    with pytest.raises(ValueError, match=r"runs\['S'\] must be a Run"):
        weighted_displacement(ANSWERS, {"S": ANSWERS}, n_items=10)
    with pytest.raises(ValueError, match="runs must be a pandas DataFrame, a Run or"):
        weighted_displacement(ANSWERS, [run], n_items=10)
    with pytest.raises(ValueError, match="must share query ids"):
        weighted_displacement(ANSWERS, Run(["other"], ["a"], [1.0]), n_items=10)


def test_ids_are_matched_as_text() -> None:
    answers = ANSWERS.assign(query_id=7, item_id=[1, 2, 3])
    run = Run(["7", "7"], ["2", "1"], [2.0, 1.0], name="S")  # ids of a TREC file are text
    frame = weighted_displacement(answers, run, n_items=10).to_frame()
    assert frame["w_a"].item() == pytest.approx(1.5)  # 1*1 + .5*1
    assert frame["query_id"].tolist() == [7]  # the answers' own values
    mixed = pd.concat([answers, answers.assign(query_id="7", annotator_id="v")])
    with pytest.raises(ValueError, match="query ids 7 and '7' are the same id as text"):
        weighted_displacement(mixed, run, n_items=10)


def test_annotator_ids_equal_as_text_are_refused() -> None:
    # annotators 0 and "0" are one id as text (a CSV round trip merges them), as query ids 7 and
    # "7" are: they were two lists of one query, both printed as annotator 0, averaged as two
    # annotators by by_query and drawn as two by the bootstrap
    answers = pd.concat([ANSWERS.assign(annotator_id=0),
                         ANSWERS.assign(annotator_id="0", relevance=[1.0, 1.0, 1.0])])
    run = Run(["q"] * 3, ["c", "b", "a"], [3.0, 2.0, 1.0], name="S")
    with pytest.raises(ValueError, match="annotator ids 0 and '0' are the same id as text"):
        weighted_displacement(answers, run, n_items=10)
    ok = answers.assign(annotator_id=[0] * 3 + ["u"] * 3)  # distinct as text: two lists
    assert weighted_displacement(ok, run, n_items=10).to_frame()["annotator_id"].tolist() == [
        0, "u"]


def test_system_names_equal_as_text_are_refused() -> None:
    # evaluate() names systems by text and refuses runs {1: ..., "1": ...}; displacement scored
    # them as two systems that print the same, in the table, by_system and the bootstrap
    run = Run(["q"] * 3, ["c", "b", "a"], [3.0, 2.0, 1.0], name="S")
    with pytest.raises(ValueError,
                       match=r"runs must name each system once as text; got \[1, '1'\]"):
        weighted_displacement(ANSWERS, {1: run, "1": run}, n_items=10)
    frame = pd.DataFrame({"system": [1, "1"], "query_id": "q", "item_id": "a", "rank": 1})
    with pytest.raises(ValueError, match="system names 1 and '1' are the same id as text"):
        weighted_displacement(ANSWERS, frame, n_items=10)
    ok = weighted_displacement(ANSWERS, frame.assign(system=[1, "S"]), n_items=10)
    assert ok.to_frame()["system"].tolist() == [1, "S"]  # names as given, sorted


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["trec10", "trec", "psb", "shrec2006"]))
def test_dataframe_with_scores_equals_its_runs(seed: int, preset: str) -> None:
    # the long table with run_order="score" is converted once into one Run per system: the
    # same table as the Runs themselves, whatever the preset (scores with many ties)
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(3):
        for a in range(2):
            items = rng.choice(10, size=int(rng.integers(1, 6)), replace=False)
            rel = np.sort(rng.random(len(items)))[::-1]
            rows += [(f"q{q}", f"a{a}", f"i{i}", k, s) for k, (i, s) in
                     enumerate(zip(items, rel, strict=True), 1)]
    answers = pd.DataFrame(rows, columns=["query_id", "annotator_id", "item_id", "rank",
                                          "relevance"])
    run_rows = [
        (sy, f"q{q}", f"i{i}", float(rng.integers(0, 3)))
        for sy in ("S", "T") for q in range(3)
        for i in rng.choice(10, size=int(rng.integers(1, 9)), replace=False)
    ]
    table = pd.DataFrame(run_rows, columns=["system", "query_id", "item_id", "score"])
    runs = {
        sy: Run(g["query_id"], g["item_id"], g["score"], name=sy)
        for sy, g in table.groupby("system", sort=True)
    }
    from_table = weighted_displacement(answers, table, n_items=20, run_order="score",
                                       preset=preset).to_frame()
    from_runs = weighted_displacement(answers, runs, n_items=20, preset=preset).to_frame()
    pd.testing.assert_frame_equal(from_table, from_runs)
    # and the positions are those of the one ranking step
    p = {"trec10": "docid_desc", "trec": "docid_desc", "psb": "docid_asc",
         "shrec2006": "input_order"}[preset]
    dtype = "float32" if preset == "trec" else "float64"
    ranking = rank(runs["S"], ties=p, score_dtype=dtype)
    order = {q: [] for q in ranking.query_ids}
    for row, qi in zip(ranking.rows, ranking.query, strict=True):
        order[ranking.query_ids[qi]].append(runs["S"].doc_ids[row])
    for r in from_runs[from_runs["system"] == "S"].itertuples():
        lst = answers[(answers.query_id == r.query_id) & (answers.annotator_id == r.annotator_id)]
        ranked = order.get(r.query_id, [])
        expected = sum(s * abs(k - (ranked.index(i) + 1))
                       for i, k, s in zip(lst.item_id, lst["rank"], lst.relevance, strict=True)
                       if i in ranked)
        assert r.w_a == pytest.approx(expected)
