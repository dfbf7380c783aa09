"""Per-annotator crisp evaluation (trec_eval -R qrels_jg, map_avgjg) against pytrec_eval."""

import warnings

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

from fuzzytruth import evaluate
from fuzzytruth.crisp import evaluate_per_annotator
from fuzzytruth.io import read_trec_qrels_jg, write_trec_qrels_jg
from fuzzytruth.runs import Qrels, Run


def make_jg_file(tmp_path, rng):
    """Three judgment groups (annotators) over four queries; group 'c' judges q3 with no
    relevant document, and does not judge q4 at all."""
    lines = []
    for q in ["q1", "q2", "q3", "q4"]:
        for g in ["a", "b", "c"]:
            if q == "q4" and g == "c":
                continue
            docs = rng.choice(30, size=12, replace=False)
            rels = rng.integers(0, 3, size=12)
            if q == "q3" and g == "c":
                rels[:] = 0
            else:
                rels[0] = max(rels[0], 1)
            lines += [f"{q} {g} d{d:02d} {r}" for d, r in zip(docs, rels, strict=True)]
    path = tmp_path / "qrels.jg"
    path.write_text("\n".join(lines) + "\n")
    return path


def make_run(rng):
    rows = [(q, f"d{d:02d}", float(s)) for q in ["q1", "q2", "q3", "q4", "q5"]
            for d, s in zip(rng.choice(30, 20, replace=False), rng.integers(0, 8, 20), strict=True)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def test_map_avgjg_matches_pytrec_eval_run_once_per_group(tmp_path):
    rng = np.random.default_rng(5)
    groups = read_trec_qrels_jg(make_jg_file(tmp_path, rng))
    run_df = make_run(rng)
    run = Run.from_dataframe(run_df)
    res = evaluate_per_annotator(run, groups, ["AP", "P@5", "nDCG@10"])

    trec_run = {}
    for q, d, s in run_df.itertuples(index=False):
        trec_run.setdefault(q, {})[d] = s
    per_group = {}
    for g, qrels in groups.items():
        trec_qrels = {}
        for q, d, r in qrels.to_dataframe().itertuples(index=False):
            trec_qrels.setdefault(q, {})[d] = int(r)
        ev = pytrec_eval.RelevanceEvaluator(trec_qrels, {"map", "P.5", "ndcg_cut.10"})
        per_group[g] = ev.evaluate(trec_run)

    means = res.to_frame().rename(columns={"mean": "value"})
    assert sorted(set(means["query_id"])) == ["q1", "q2", "q3", "q4"]  # q5 has no judgments
    for measure, key in [("AP", "map"), ("P@5", "P_5"), ("nDCG@10", "ndcg_cut_10")]:
        for q in ["q1", "q2", "q3", "q4"]:
            # mean over the groups that judged q (group c did not judge q4); a group with no
            # relevant document for q contributes 0, as m_map_avgjg.c does
            vals = [per_group[g][q][key] for g in groups if q in per_group[g]]
            got = means.loc[(means["query_id"] == q) & (means["measure"] == measure), "value"]
            assert got.item() == pytest.approx(np.mean(vals), abs=1e-12)
    assert res.value("run", "AP") == pytest.approx(
        np.mean([np.mean([per_group[g][q]["map"] for g in groups if q in per_group[g]])
                 for q in ["q1", "q2", "q3", "q4"]]), abs=1e-12)
    assert set(res.groups["group"]) == {"a", "b", "c"}
    assert res.conventions["groups"] == ["a", "b", "c"]


def test_from_judgment_groups_dataframe_equals_file_reader(tmp_path):
    rng = np.random.default_rng(9)
    path = make_jg_file(tmp_path, rng)
    df = pd.read_csv(path, sep=" ", header=None, names=["query_id", "group", "doc_id", "rel"])
    from_df = Qrels.from_judgment_groups(df, relevance_col="rel")
    from_file = read_trec_qrels_jg(path)
    assert list(from_df) == list(from_file)
    for g in from_df:
        pd.testing.assert_frame_equal(from_df[g].to_dataframe(), from_file[g].to_dataframe())


def test_judgment_groups_of_a_frame_are_named_by_text_and_none_is_missing():
    # astype(str) made a group "nan" of the rows without a group, merged groups 1 and "1",
    # and named bytes groups "b'u'"
    df = pd.DataFrame({"query_id": ["q"] * 3, "group": ["u", "v", None],
                       "doc_id": ["a", "a", "b"], "relevance": [1, 0, 1]})
    with pytest.raises(ValueError, match=r"^group_col='group': the column must name a group on "
                       r"every row; missing at row\(s\) 2$"):
        Qrels.from_judgment_groups(df)
    with pytest.raises(ValueError, match=r"^group_col='group' must name each group once as "
                       r"text; got \[1, '1'\]$"):
        Qrels.from_judgment_groups(df.assign(group=[1, "1", 2]))
    assert list(Qrels.from_judgment_groups(df.assign(group=[b"u", "v", "v"]))) == ["u", "v"]


def test_per_annotator_errors():
    run = Run(["q"], ["a"], [1.0])
    with pytest.raises(ValueError, match=r"qrels_by_group must be a non-empty mapping of group "
                       r"id to Qrels; got dict"):
        evaluate_per_annotator(run, {}, "AP")
    qrels = Qrels(["q"], ["a"], [1])
    with pytest.raises(ValueError, match=r"^run must be a Run; got dict: one Run is expected "
                       r"here, not systems by name$"):
        evaluate_per_annotator({"S": run}, {"g": qrels}, "AP")
    with pytest.raises(ValueError, match=r"^qrels_by_group\['g'\] must be a Qrels; got DataFrame$"):
        evaluate_per_annotator(run, {"g": qrels.to_dataframe()}, "AP")
    with pytest.raises(ValueError, match=r"group_col='annotator' is not a column"):
        Qrels.from_judgment_groups(pd.DataFrame({"query_id": []}), group_col="annotator")
    # groups 1 and "1" were two groups printed alike as "1" in the per-group table
    with pytest.raises(ValueError, match=r"^qrels_by_group must name each group once as text; "
                       r"got \[1, '1'\]$"):
        evaluate_per_annotator(run, {1: qrels, "1": Qrels(["q"], ["a"], [0])}, "AP")
    by_number = evaluate_per_annotator(run, {1: qrels, 2: qrels}, "AP")
    assert by_number.groups["group"].tolist() == ["1", "2"]


def test_judgment_group_qrels_round_trip(tmp_path):
    groups = {
        "ann1": Qrels(["q1", "q1", "q2"], ["d1", "d2", "d1"], [1.0, 0.0, 2.0]),
        "ann2": Qrels(["q1", "q2"], ["d3", "d1"], [1.0, 1.0]),
    }
    write_trec_qrels_jg(groups, tmp_path / "qrels.jg")
    back = read_trec_qrels_jg(tmp_path / "qrels.jg")
    assert list(back) == ["ann1", "ann2"]
    for name, qrels in groups.items():
        pd.testing.assert_frame_equal(back[name].to_dataframe(), qrels.to_dataframe())
    with pytest.raises(ValueError, match=r"judgment group .ann 1. would not read back"):
        write_trec_qrels_jg({"ann 1": groups["ann1"]}, tmp_path / "bad.jg")


def test_complete_keeps_groups_that_judge_only_unanswered_queries():
    """With complete=True (trec_eval -c) a judged query the run did not answer is evaluated
    as an empty list; a group judging only such queries still counts in their mean.
    Reference: each group evaluated on its own by evaluate (the documented definition)."""
    run = Run(["q1", "q1"], ["a", "b"], [2.0, 1.0])
    groups = {"A": Qrels(["q1", "q1", "q2"], ["a", "b", "z"], [1, 0, 1]),
              "B": Qrels(["q2", "q2"], ["y", "z"], [1, 1])}
    res = evaluate_per_annotator(run, groups, ["AP", "NumRel"], complete=True)
    assert set(res.groups["group"]) == {"A", "B"}
    for measure in ("AP", "NumRel"):
        for q in ("q1", "q2"):
            vals = []
            for qrels in groups.values():
                if q in qrels.queries:
                    ev = evaluate(run, qrels, measure, complete=True).to_frame()
                    vals.append(ev.loc[ev["query_id"] == q, "mean"].item())
            got = res.to_frame().query("query_id == @q and measure == @measure")["mean"]
            assert got.item() == pytest.approx(np.mean(vals), abs=1e-12)
    assert res.to_frame().query("query_id == 'q2' and measure == 'NumRel'")["mean"].item() \
        == pytest.approx(1.5)  # group A judges 1 relevant document of q2, group B 2


def test_missing_applies_across_groups():
    """A run query some group judges is evaluated by that group, whatever ``missing``; a run
    query no group judges is skipped with a warning, or refused with missing='error'.
    Reference: each group evaluated on its own by evaluate, on the queries it judges."""
    run = Run(["q1", "q2", "q3"], ["a", "a", "a"], [1.0, 1.0, 1.0])
    groups = {"A": Qrels(["q1", "q1"], ["a", "b"], [1, 1]), "B": Qrels(["q2"], ["a"], [1])}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every group judges a query of the run: no warning
        res = evaluate_per_annotator(Run(["q1", "q2"], ["a", "a"], [1.0, 1.0]), groups, "AP",
                                     missing="error")
    for g, q in (("A", "q1"), ("B", "q2")):
        alone = evaluate(Run([q], ["a"], [1.0]), groups[g], "AP").to_frame()["mean"].item()
        assert res.to_frame().query("query_id == @q")["mean"].item() == pytest.approx(alone)
    assert res.conventions["missing"] == "error"
    with pytest.raises(ValueError, match=r"^query\(ies\) 'q3' of the run are judged by no "
                       r"group \(missing='error'\)$"):
        evaluate_per_annotator(run, groups, "AP", missing="error")
    with pytest.warns(UserWarning, match=r"'q3' of the run are judged by no group: 1 query"):
        res = evaluate_per_annotator(run, groups, "AP")
    assert res.queries == ("q1", "q2")
    with pytest.raises(ValueError, match=r"^missing must be one of \['skip', 'error'\]; got 'x'"):
        evaluate_per_annotator(run, groups, "AP", missing="x")


def test_judged_queries_the_run_does_not_answer_are_named_once_across_the_groups():
    """Each group is one evaluate(): the judged queries the run does not answer are named
    once, over every group's judgments, not once per group; complete=True scores them."""
    run = Run(["1", "2"], ["a", "a"], [1.0, 1.0])
    groups = {g: Qrels(["1", "2", "3" if g == "x" else "4"], ["a"] * 3, [1, 0, 1])
              for g in ("x", "y", "z")}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_per_annotator(run, groups, "P@1")
    assert len(caught) == 1  # not one per group
    assert str(caught[0].message).startswith("2 judged query(ies) that no run answers are not "
                                             "evaluated (complete=False, as trec_eval without "
                                             "-c): '3', '4';")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate_per_annotator(run, groups, "P@1", complete=True)


def test_a_run_no_group_judges_a_document_of_is_warned_once_a_group_alone_is_not():
    """Each judgment group is evaluated alone, so a group that judges none of what the run
    retrieves said 'retrieves no judged document' without naming the group, though other
    groups judged the run's documents. The warning now comes once, and only when no group
    judges any document the run retrieves (ids spelled otherwise, 'D1' for 'd1')."""
    groups = {"a1": Qrels(["q1", "q2"], ["d1", "d3"], [1, 1]),
              "a2": Qrels(["q1"], ["d2"], [1])}
    shouted = Run(["q1", "q1", "q2"], ["D1", "D2", "D3"], [2.0, 1.0, 1.0], name="bm25")
    with pytest.warns(UserWarning) as said:
        evaluate_per_annotator(shouted, groups, ["AP"])
    unjudged = [str(w.message) for w in said if "no judged document" in str(w.message)]
    assert len(unjudged) == 1 and unjudged[0].startswith(
        "run 'bm25' retrieves no judged document in any query of any judgment group: ")
    assert all(w.filename == __file__ for w in said)  # the user's line, not the library's
    partly = Run(["q1", "q1", "q2"], ["d1", "D2", "D3"], [2.0, 1.0, 1.0], name="bm25")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a2 judges nothing it retrieves; a1 does
        evaluate_per_annotator(partly, groups, ["AP"])
