"""Results pickle and deep-copy, and give the same numbers afterwards.

An :class:`~fuzzytruth.evaluation.Evaluation` could not be pickled or deep-copied ("cannot
pickle 'mappingproxy' object": its measure families' aliases; a classifier's evaluation then
"Can't pickle local object '_exact.<locals>.<lambda>'": its deferred exact laws), so it could
not be cached to disk, returned from a process pool or copied.
"""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import (
    Annotations,
    Membership,
    ProbabilisticQrels,
    Qrels,
    Run,
    Taxonomy,
    compare,
    evaluate,
)
from fuzzytruth.classify import Predictions
from fuzzytruth.datasets import santini_illustrative
from fuzzytruth.measures import Param, family, get_preset, positive_float, register
from fuzzytruth.measures import registry as measure_registry

# six queries of the illustrative collection: compare() says its intervals are rough
pytestmark = pytest.mark.filterwarnings("ignore::fuzzytruth.stats.UnreliableInferenceWarning")


def _round_trips(obj):
    return [pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj)]


def _runs():
    data = santini_illustrative()
    items = list(data.membership.items)
    queries, docs = np.repeat(items[:6], len(items)), np.tile(items, 6)
    rng = np.random.default_rng(0)
    return data, {name: Run(queries, docs, rng.random(len(queries)), name=name)
                  for name in ("A", "B", "C")}


def _classifier_evaluation():
    tax = Taxonomy.flat(["cat", "dog", "fox"], root="all")
    rows = [("i1", "a", "cat"), ("i1", "b", "dog"), ("i2", "a", "dog"), ("i2", "b", "dog"),
            ("i3", "a", "fox"), ("i3", "b", "cat")]
    truth = Membership.from_annotations(Annotations.from_frame(
        pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), taxonomy=tax))
    scores = [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]
    return evaluate(Predictions(scores, items=["i1", "i2", "i3"], classes=["cat", "dog", "fox"]),
                    truth, ["top1", "CE", "ECE"])


def _evaluations():
    data, runs = _runs()
    pairs = runs["A"].to_dataframe()
    grades = np.random.default_rng(1).random(len(pairs))
    crisp = Qrels(pairs["query_id"], pairs["doc_id"], (grades > 0.6).astype(int))
    probabilistic = ProbabilisticQrels(pairs["query_id"], pairs["doc_id"], grades)
    return {
        "crisp": evaluate(runs, crisp, ["AP", "P@5", "nDCG@5"]),
        "probabilistic": evaluate(runs, probabilistic, ["AP", "P@5", "RR"], n_worlds=40, rng=0),
        "membership": evaluate(runs, data.membership, ["AP", "P@5"], n_worlds=40, rng=0),
        "classifier": _classifier_evaluation(),
    }


@pytest.mark.parametrize("kind", ["crisp", "probabilistic", "membership", "classifier"])
def test_an_evaluation_round_trips_with_its_numbers(kind):
    evaluation = _evaluations()[kind]
    for copied in _round_trips(evaluation):
        pd.testing.assert_frame_equal(copied.aggregate(), evaluation.aggregate())
        pd.testing.assert_frame_equal(copied.to_frame(), evaluation.to_frame())
        if kind != "classifier":  # three systems: the comparison from the copy is the same
            pd.testing.assert_frame_equal(compare(copied, n_resamples=200, rng=0).table,
                                          compare(evaluation, n_resamples=200, rng=0).table)


def test_a_comparison_and_a_preset_round_trip():
    evaluation = _evaluations()["membership"]
    comparison = compare(evaluation, n_resamples=200, rng=0)
    for copied in _round_trips(comparison):
        pd.testing.assert_frame_equal(copied.table, comparison.table)
    preset = get_preset("trec10")
    for copied in _round_trips(preset):
        assert copied == preset and copied.as_dict() == preset.as_dict()


def test_a_family_is_pickled_by_its_registered_name(monkeypatch):
    # kernels may be lambdas: the family travels by name, as a function does, and comes back
    # as the registered object
    monkeypatch.setattr(measure_registry, "_FAMILIES", dict(measure_registry._FAMILIES))
    monkeypatch.setattr(measure_registry, "_ALIASES", dict(measure_registry._ALIASES))
    rel = Param("rel", convert=positive_float)
    mine = register("TopOnePickled", lambda rg, *, rel: (rg.gains[:, 0] >= rel) * 1.0,
                    params=(rel,), aliases={"T1P": {}})
    assert pickle.loads(pickle.dumps(mine)) is mine is family("TopOnePickled")
    assert pickle.loads(pickle.dumps(family("AP"))) is family("AP")
    replaced = register("TopOnePickled", lambda rg, *, rel: rg.gains[:, 0], params=(rel,),
                        replace=True)
    assert replaced is not mine
    with pytest.raises(TypeError, match="cannot pickle measure family 'TopOnePickled': it is "
                                        "not the family registered under that name"):
        pickle.dumps(mine)


def test_an_evaluation_unpickles_in_a_fresh_process(tmp_path):
    # the case pickling is for (a cache on disk, a process pool): there the built-in families
    # are not loaded until the unpickler asks for one by name
    evaluation = _evaluations()["probabilistic"]
    path = tmp_path / "evaluation.pkl"
    path.write_bytes(pickle.dumps(evaluation))
    code = ("import pickle, sys; ev = pickle.loads(open(sys.argv[1], 'rb').read()); "
            "print(ev.aggregate().to_json())")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, check=True, timeout=120)
    assert out.stdout.strip() == evaluation.aggregate().to_json()


@pytest.mark.parametrize("copy_of", [lambda o: pickle.loads(pickle.dumps(o)), copy.deepcopy,
                                     copy.copy])
def test_held_numbers_stay_read_only_through_pickle_and_copies(copy_of):
    # NumPy gives an unpickled or deep-copied array a writeable buffer: run.scores[0] = x
    # then changed a loaded run, membership.matrix[...] a loaded membership
    from fuzzytruth import Distribution, ScoreMatrix, fit_truth

    example = santini_illustrative()
    held = {
        "scores": Run(["q", "q"], ["a", "b"], [2.0, 1.0]),
        "relevance": Qrels(["q"], ["a"], [1.0]),
        "probability": ProbabilisticQrels(["q"], ["a"], [0.5]),
        "values": ScoreMatrix(np.zeros((2, 3))),
        "support": Distribution(np.array([0.0, 1.0]), np.array([0.5, 0.5])),
        "matrix": Membership.from_annotations(example.annotations),
        "posterior": fit_truth(example.annotations, "dawid-skene"),
    }
    held["scores_of_predictions"] = Predictions(np.eye(2), items=["x", "y"], classes=["a", "b"])
    for attribute, original in held.items():
        copied = copy_of(original)
        array = getattr(copied, attribute.removesuffix("_of_predictions"))
        np.testing.assert_array_equal(array, getattr(original,
                                                     attribute.removesuffix("_of_predictions")))
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0.0


def test_closed_forms_pickle_without_building_their_laws():
    """An evaluation's deferred closed forms (P, Success, RR, the exact recall, F and E;
    mixed over a membership's query categories, joined over blocks of ragged queries) pickle
    with their inputs, not their atoms: nothing is built by the pickling, the copy builds
    what is asked of it, and every number is the original's (10,000 ragged queries' exact
    recall built 1.2 GB of atoms to pickle, in 17 s: a Dask worker returns its partition's
    evaluation pickled)."""
    from fuzzytruth.uncertain.batch import DeferredBatch

    data, runs = _runs()
    rng = np.random.default_rng(4)
    lengths = rng.integers(1, 6, 30)
    lengths[0] = 60
    items = np.array(data.membership.items, dtype=object)
    q = np.repeat([f"q{i}" for i in range(30)], lengths)
    d = np.concatenate([rng.choice(items, n, replace=n > len(items)) for n in lengths])
    d = np.array([f"{doc}-{i}" for i, doc in enumerate(d)], dtype=object)
    ragged = Run(q, d, rng.random(len(q)))
    pq = ProbabilisticQrels(q, d, rng.random(len(q)) * (rng.random(len(q)) < 0.7))
    measures = ["P@3", "Success@2", "RR", "R@4", "F@3", "E@2"]
    cases = [evaluate(ragged, pq, measures, n_worlds=0, memory_budget=64.0 * 40),
             evaluate(runs, data.membership, ["P@3", "RR", "R@4"], n_worlds=0)]
    assert len(cases[0].queries) == 30
    for evaluation in cases:
        blob = pickle.dumps(evaluation)
        assert all(b._built is None for b in evaluation._batches.values()
                   if isinstance(b, DeferredBatch))  # pickling built nothing
        copied = pickle.loads(blob)
        assert all(isinstance(b, DeferredBatch) and b._built is None
                   for b in copied._batches.values())
        pd.testing.assert_frame_equal(copied.aggregate(), evaluation.aggregate())
        pd.testing.assert_frame_equal(copied.to_frame(), evaluation.to_frame())
        system, query = evaluation.systems[-1], evaluation.queries[0]
        for m in evaluation.measures:
            a = evaluation.distribution(system, query, m)
            b = copied.distribution(system, query, m)
            assert (a.mean(), a.std(), a.p_undefined) == (b.mean(), b.std(), b.p_undefined)
            np.testing.assert_array_equal(a.support, b.support)
            np.testing.assert_array_equal(a.probabilities, b.probabilities)
