"""``Evaluation.concatenate`` joins evaluations of disjoint query sets made under one set of
rules, and refuses parts that differ in anything else.

Before, parts evaluated with another preset, ``undefined``, ``depth``, ``judged_only``, a
relevance level or another seed were joined without a word, under the first part's
conventions (the aggregate mixed two definitions and said it used one); parts with other
systems or measures failed with a bare KeyError, and a second part's per-annotator values
were dropped.
"""

import numpy as np
import pytest

from fuzzytruth import ProbabilisticQrels, Qrels, Run, evaluate, evaluate_per_annotator
from fuzzytruth.evaluation import Evaluation

RUN_A = Run(["q1"] * 2 + ["q2"] * 2, ["a", "b"] * 2, [2.0, 1.0, 1.0, 2.0])
RUN_B = Run(["q3"] * 2, ["a", "b"], [2.0, 1.0])
QRELS = Qrels(["q1", "q2", "q3", "q4"], ["a", "a", "b", "a"], [1, 1, 2, 1])
MEASURES = ["AP", "nDCG@10"]


def test_parts_under_one_set_of_rules_join_as_one_evaluation():
    both = [np.concatenate([getattr(RUN_A, f), getattr(RUN_B, f)])
            for f in ("query_ids", "doc_ids", "scores")]
    whole = evaluate(Run(*both), QRELS, MEASURES)
    joined = Evaluation.concatenate(
        part for part in (evaluate(RUN_B, QRELS, MEASURES), evaluate(RUN_A, QRELS, MEASURES)))
    assert joined.queries == whole.queries == ("q1", "q2", "q3")
    for m in MEASURES:
        np.testing.assert_array_equal(joined.query_means(m), whole.query_means(m))


def test_parts_out_of_order_place_each_querys_world_values_and_laws():
    """The world values of parts given in any order land at their queries' places in the
    sorted order, written once (joining then reordering copied them twice more: 100,000
    queries x 1,000 worlds, 4.8 GB); the keyed worlds make them the whole evaluation's."""
    rng = np.random.default_rng(2)
    queries = [f"q{i}" for i in range(9)]
    qids = np.repeat(queries, 4)
    docs = np.tile(["a", "b", "c", "d"], 9)
    run = Run(qids, docs, rng.random(len(qids)))
    truth = ProbabilisticQrels(qids, docs, rng.random(len(qids)))
    options = {"n_worlds": 25, "rng": 4}
    measures = ["AP", "P@2", "R@3"]
    whole = evaluate(run, truth, measures, **options)
    parts = []
    for chunk in (["q7", "q2", "q5"], ["q0", "q8"], ["q4", "q1", "q6", "q3"]):
        keep = np.isin(qids, chunk)
        parts.append(evaluate(Run(qids[keep], docs[keep], run.scores[keep]),
                              ProbabilisticQrels(qids[keep], docs[keep],
                                                 truth.probability[keep]), measures, **options))
    joined = Evaluation.concatenate(parts)
    assert joined.queries == whole.queries
    for m in measures:
        np.testing.assert_array_equal(joined.world_scores(m), whole.world_scores(m))
        np.testing.assert_allclose(joined.query_means(m), whole.query_means(m), rtol=1e-12)


@pytest.mark.parametrize(("options", "said"), [
    ({"preset": "trec10"}, r"its option preset\['name'\] is 'trec10', not 'trec'"),
    ({"relevance_level": 2}, r"its option preset\['name'\] is 'trec\(rel=2\)', not 'trec'"),
    ({"undefined": "skip"}, r"its undefined is 'skip', not 'zero'"),
    ({"depth": 1}, r"its option depth is 1, not None"),
    ({"judged_only": True}, r"its option judged_only is True, not False"),
    ({"complete": True}, r"its option complete is True, not False"),
    ({"confidence_level": 0.9}, r"its confidence_level is 0\.9, not 0\.95"),
])
def test_parts_under_other_options_are_refused(options, said):
    first = evaluate(RUN_A, QRELS, MEASURES)
    other = evaluate(RUN_B, QRELS, MEASURES, **options)
    with pytest.raises(ValueError, match=r"parts\[1\] cannot be joined to parts\[0\]: " + said
                       + r" \(parts must be evaluations of disjoint query sets under the same "
                       r"systems, measures and options\)"):
        Evaluation.concatenate([first, other])


def test_parts_with_other_systems_measures_or_worlds_are_refused():
    first = evaluate(RUN_A, QRELS, MEASURES)
    renamed = Run(RUN_B.query_ids, RUN_B.doc_ids, RUN_B.scores, name="other")
    with pytest.raises(ValueError, match=r"its systems are \('other',\), not \('run',\)"):
        Evaluation.concatenate([first, evaluate(renamed, QRELS, MEASURES)])
    with pytest.raises(ValueError, match=r"its measures are \('nDCG@10', 'AP'\), not "
                       r"\('AP', 'nDCG@10'\)"):
        Evaluation.concatenate([first, evaluate(RUN_B, QRELS, MEASURES[::-1])])
    with pytest.raises(ValueError, match=r"parts\[1\] must be an Evaluation; got DataFrame"):
        Evaluation.concatenate([first, first.to_frame()])
    probable = ProbabilisticQrels(["q1", "q2", "q3"], ["a", "a", "b"], [0.9, 0.4, 0.7])
    a = evaluate(RUN_A, probable, ["AP"], n_worlds=20, rng=1)
    with pytest.raises(ValueError, match=r"its option seed is 2, not 1"):
        Evaluation.concatenate([a, evaluate(RUN_B, probable, ["AP"], n_worlds=20, rng=2)])
    with pytest.raises(ValueError, match=r"its option n_worlds is 30, not 20"):
        Evaluation.concatenate([a, evaluate(RUN_B, probable, ["AP"], n_worlds=30, rng=1)])
    joined = Evaluation.concatenate([a, evaluate(RUN_B, probable, ["AP"], n_worlds=20, rng=1)])
    assert joined.world_scores("AP").shape == (20, 1, 3)  # worlds, systems, queries


def test_per_annotator_values_of_every_part_are_kept():
    groups = {"u": Qrels(["q1", "q2", "q3"], ["a", "a", "b"], [1, 0, 1]),
              "v": Qrels(["q1", "q2", "q3"], ["b", "a", "a"], [1, 1, 1])}
    parts = [evaluate_per_annotator(run, groups, "AP") for run in (RUN_A, RUN_B)]
    joined = Evaluation.concatenate(parts)
    assert sorted(joined.groups["query_id"].unique()) == ["q1", "q2", "q3"]
    assert len(joined.groups) == sum(len(p.groups) for p in parts)


def test_replace_renames_the_systems_in_order_and_their_values_follow():
    # before: every rename failed with "batches and methods must hold every (system,
    # measure) pair"
    truth = ProbabilisticQrels(["q1", "q1", "q2"], ["a", "b", "a"], [0.7, 0.4, 0.9])
    other = Run(["q1", "q1", "q2", "q2"], ["b", "a", "c", "a"], [2.0, 1.0, 2.0, 1.0])
    for ev in (evaluate({"x": RUN_A, "y": other}, QRELS, MEASURES),
               evaluate({"x": RUN_A, "y": other}, truth, MEASURES, n_worlds=50, rng=1)):
        renamed = ev.replace(systems=["bm25", "dense"])
        assert renamed.systems == ("bm25", "dense")
        for old, new in (("x", "bm25"), ("y", "dense")):
            for m in MEASURES:
                assert renamed.value(new, m) == ev.value(old, m)
        assert ev.value("x", "AP") != ev.value("y", "AP")  # a swap would be seen
        with pytest.raises(ValueError, match=r"systems must rename the 2 system\(s\) 'x', "
                                             r"'y' in order, one name each; got 1 \('x'\)"):
            ev.replace(systems=["x"])


def test_replace_refuses_queries_alone_which_would_relabel_the_values():
    ev = evaluate(RUN_A, QRELS, MEASURES)
    with pytest.raises(ValueError, match=r"queries must change together with the values "
                                         r"they label \(batches\)"):
        ev.replace(queries=("q2", "q1"))
