"""Every public function and constructor given the wrong kind of object (a table where a Run
goes, pytrec_eval's dicts where a table goes, a list, None, a path) says so in a ValueError
or TypeError, never in an AttributeError, KeyError or IndexError raised from inside it
('DataFrame' object has no attribute 'name'); and the common mistakes name the call that
makes the right object, which is then accepted."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

import fuzzytruth as ft
from fuzzytruth import classify, collection, datasets, displacement, io, plots, report, stats
from fuzzytruth.classify import Predictions
from fuzzytruth.datasets import santini_figure1
from fuzzytruth.truth import models

MODULES = {"fuzzytruth": ft, "io": io, "stats": stats, "classify": classify,
           "displacement": displacement, "collection": collection, "plots": plots,
           "report": report, "models": models, "datasets": datasets}
WRONG = {
    "DataFrame": pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]}),
    "nested dict": {"q": {"d": 1.0}},
    "list": [1, 2, 3],
    "None": None,
    "int": 3,
    "matrix": np.ones((2, 3)),
}
ALLOWED = (ValueError, TypeError, NotImplementedError, FileNotFoundError)


def _entries():
    """Each public callable, and each from_* constructor of each public class, with the
    number of its required positional parameters."""
    seen = set()
    for module_name, module in MODULES.items():
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                if issubclass(obj, BaseException):
                    continue
                targets = [(f"{name}.{m}", getattr(obj, m)) for m in dir(obj)
                           if m.startswith("from_")]
            elif callable(obj):
                targets = [(name, obj)]
            else:
                continue
            for label, target in targets:
                if id(target) in seen:
                    continue
                seen.add(id(target))
                try:
                    parameters = inspect.signature(target).parameters.values()
                except (TypeError, ValueError):
                    continue
                required = [p for p in parameters if p.default is p.empty
                            and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
                if required:
                    yield pytest.param(target, len(required), id=f"{module_name}.{label}")


@pytest.mark.parametrize("entry, n_required", list(_entries()))
def test_no_public_entry_fails_from_inside_on_the_wrong_kind_of_object(entry, n_required,
                                                                       tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a path-like argument names nothing here
    table = WRONG["DataFrame"]
    for wrong in WRONG.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                entry(wrong, *[table] * (n_required - 1))
            except ALLOWED:
                pass


def test_the_common_wrong_objects_name_the_call_that_makes_the_right_one():
    example = santini_figure1()
    with pytest.raises(ValueError, match=r"^membership must be a Membership; got SantiniExample: "
                                         r"pass its \.membership$"):
        ft.precision_distribution(example, ["fig1"], category="people")
    with pytest.raises(ValueError, match=r"got Annotations: the annotators' shares are "
                                         r"Membership\.from_annotations\(annotations\)$"):
        ft.query_category_weights(example.annotations, "fig1")
    assert ft.precision_distribution(example.membership, ["fig1"],
                                     category="people").mean() == pytest.approx(0.6)
    with pytest.raises(ValueError, match=r"^df must be a pandas DataFrame; got dict: a mapping "
                                         r"\{query: \{document: value\}\} \(pytrec_eval's\) is "
                                         r"Run\.from_dict\(\.\.\.\) of it$"):
        ft.Run.from_dataframe({"q": {"d": 1.0}})
    with pytest.raises(ValueError, match=r"is Qrels\.from_dict\(\.\.\.\) of it$"):
        ft.Qrels.from_dataframe({"q": {"d": 1}})
    columns = {"query_id": ["q"], "doc_id": ["d"], "score": [1.0]}
    with pytest.raises(ValueError, match=r"got dict: a mapping of column name to values is "
                                         r"pd\.DataFrame\(mapping\)$"):
        ft.Run.from_dataframe(columns)
    assert ft.Run.from_dataframe(pd.DataFrame(columns)).doc_ids.tolist() == ["d"]
    with pytest.raises(ValueError, match=r"^frame must be a DataFrame; got ndarray: a matrix is "
                                         r"Predictions\(scores, items=\.\.\., classes=\.\.\.\)$"):
        Predictions.from_wide(np.eye(2))
    with pytest.raises(ValueError, match=r"got 'TREC' \(did you mean 'trec'\?\)$"):
        ft.get_preset("TREC")
    with pytest.raises(ValueError, match=r"^scores must have shape \(n_systems, n_queries\) "):
        ft.compare([0.1, 0.2, 0.3])  # a list's .index is a method, not labels
    with pytest.raises(ValueError, match=r"^edges must be an iterable of \(parent, child\) "
                                         r"pairs; got NoneType$"):
        ft.Taxonomy.from_edges(None)
    with pytest.raises(ValueError, match=r"^preset must be a Preset; got dict"):
        ft.register_preset({"name": "mine"})


def test_a_confidence_level_given_as_a_percentage_is_offered_as_a_fraction(tmp_path, capsys):
    """95 for 0.95 (Stata's and SAS's habit): refused, as before, with the fraction it means,
    in the Python API and, spelled as the flag, on the command line."""
    run, qrels = ft.Run(["q"], ["d"], [1.0]), ft.Qrels(["q"], ["d"], [1])
    with pytest.raises(ValueError, match=r"got 95 \(a percentage\? 95% is "
                                         r"confidence_level=0\.95\)$"):
        ft.evaluate(run, qrels, ["AP"]).aggregate(confidence_level=95)
    with pytest.raises(ValueError, match=r"got 1\.5$"):  # not a percentage of anything
        ft.evaluate(run, qrels, ["AP"], confidence_level=1.5)
    from fuzzytruth.cli import main

    (tmp_path / "qrels.txt").write_text("q 0 d 1\n")
    for name in "ab":
        (tmp_path / f"{name}.txt").write_text(f"q Q0 d 1 1.0 {name}\n")
    files = [str(tmp_path / f) for f in ("qrels.txt", "a.txt", "b.txt")]
    assert main(["compare", "--confidence-level", "90", *files]) != 0
    assert "(a percentage? 90% is --confidence-level 0.9)" in capsys.readouterr().err


def test_systems_evaluated_apart_are_told_to_be_evaluated_together():
    """compare([evaluation_a, evaluation_b]) said numpy could not read an Evaluation, and
    Evaluation.concatenate of two systems' evaluations gave its rule alone; both now give the
    call that pairs the systems, which compares."""
    qrels = ft.Qrels(["q1", "q2", "q3"], ["d1", "d2", "d3"], [1, 1, 1])
    docs = ["d1", "x", "d2", "x", "d3", "x"]
    runs = {name: ft.Run(["q1", "q1", "q2", "q2", "q3", "q3"], docs, scores, name=name)
            for name, scores in (("a", [2.0, 1.0, 1.0, 2.0, 2.0, 1.0]),
                                 ("b", [1.0, 2.0, 2.0, 1.0, 1.0, 2.0]))}
    apart = [ft.evaluate(run, qrels, ["AP"]) for run in runs.values()]
    for given in (apart, dict(zip(runs, apart, strict=True))):
        with pytest.raises(ValueError, match=r"of Evaluations: evaluate the systems together, "
                                             r"compare\(evaluate\(\{name: run, \.\.\.\}, "
                                             r"truth, measures\)\)"):
            ft.compare(given)
    with pytest.raises(ValueError, match=r"; systems evaluated apart are compared when "
                                         r"evaluated together"):
        ft.Evaluation.concatenate(apart)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few queries
        assert len(ft.compare(ft.evaluate(runs, qrels, ["AP"]), rng=0).table) == 1


def test_a_run_named_by_no_text_and_labels_for_no_item_are_refused():
    """Run(..., name=None) (or a list, a table) was kept as the name and refused only at
    evaluate() time, or printed as a table's repr in every output; Membership.from_labels(None)
    and ({}) made a truth of no item, refused only at evaluate() time as 'no query left'."""
    for name in (None, ["bm25"], pd.DataFrame({"a": [1]}), True):
        with pytest.raises(ValueError, match=r"^name must be a str \(the system's name\); got "):
            ft.Run(["q"], ["d"], [1.0], name=name)
        with pytest.raises(ValueError, match=r"^name must be a str"):
            ft.Run.from_dict({"q": {"d": 1.0}}, name=name)
    assert ft.Run(["q"], ["d"], [1.0], name=7).name == 7  # an int names a system as its text
    taxonomy = ft.Taxonomy.flat(["a", "b"])
    for labels in (None, {}, pd.Series(dtype=object), 3):
        with pytest.raises(ValueError, match=r"^labels must give at least one item its label"):
            ft.Membership.from_labels(labels, taxonomy=taxonomy)


def test_query_categories_given_as_a_table_or_a_path_name_the_call_that_reads_them(tmp_path):
    taxonomy = ft.Taxonomy.flat(["a", "b"])
    membership = ft.Membership.from_labels({"d1": "a", "d2": "b"}, taxonomy=taxonomy)
    run = ft.Run(["q1", "q1"], ["d1", "d2"], [2.0, 1.0])
    frame = pd.DataFrame({"query_id": ["q1"], "category": ["a"]})
    with pytest.raises(ValueError, match=r"got DataFrame: a table's two columns make one, "
                                         r"dict\(zip\(frame\['query_id'\], "
                                         r"frame\['category'\]\)\)$"):
        ft.evaluate(run, membership, ["P@1"], query_categories=frame, n_worlds=0)
    path = tmp_path / "categories.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"got \w*Path: read the file first, with "
                                         r"fuzzytruth\.io\.read_query_categories\(path\)$"):
        ft.evaluate(run, membership, ["P@1"], query_categories=path, n_worlds=0)
    for given in (dict(zip(frame["query_id"], frame["category"], strict=True)),
                  io.read_query_categories(path)):
        assert ft.evaluate(run, membership, ["P@1"], query_categories=given,
                           n_worlds=0).value("run", "P@1") == 1.0


def test_lists_of_documents_per_query_name_the_dicts_that_read_them():
    """{query: [relevant documents]} and {query: [ranked documents]}, the forms many scripts
    keep, were refused as 'must be a mapping {doc_id: value}; got list'; the messages now give
    the comprehension that makes the mapping, which reads (the ranked list in its order)."""
    qrels, run = {"q": {"d1", "d2"}}, {"q": ["d2", "d1", "d3"]}
    with pytest.raises(ValueError, match=r"got set: a collection of relevant documents is "
                                         r"\{doc_id: 1\}, Qrels\.from_dict\(\{q: "
                                         r"dict\.fromkeys\(docs, 1\) for q, docs in "
                                         r"qrels\.items\(\)\}\)$"):
        ft.Qrels.from_dict(qrels)
    with pytest.raises(ValueError, match=r"got list: a ranked list gives each document its "
                                         r"negated rank as score, Run\.from_dict\(\{q: \{d: "
                                         r"-rank for rank, d in enumerate\(docs\)\} for q, docs "
                                         r"in run\.items\(\)\}\)$"):
        ft.Run.from_dict(run)
    made_qrels = ft.Qrels.from_dict({q: dict.fromkeys(docs, 1) for q, docs in qrels.items()})
    made_run = ft.Run.from_dict({q: {d: -rank for rank, d in enumerate(docs)}
                                 for q, docs in run.items()})
    ranking = ft.rank(made_run)
    assert made_run.doc_ids[ranking.rows].tolist() == ["d2", "d1", "d3"]
    assert ft.evaluate(made_run, made_qrels, ["P@1"]).value("run", "P@1") == 1.0


def test_ids_in_a_frames_index_or_a_series_name_reset_index():
    """A frame whose ids were set as its index (set_index, groupby results) or a Series of
    scores indexed by (query, document) was answered with the missing column alone or 'must
    be a DataFrame'; the message now says the column is in the index, and reset_index reads."""
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    indexed = frame.set_index(["query_id", "doc_id"])
    with pytest.raises(ValueError, match=r"columns are \['score'\]: 'query_id' is in the index; "
                                         r"pass df\.reset_index\(\)$"):
        ft.Run.from_dataframe(indexed)
    with pytest.raises(ValueError, match=r"got Series: a Series \(its ids in the index\) "
                                         r"becomes one with series\.reset_index\(\)$"):
        ft.Run.from_dataframe(indexed["score"])
    labels = pd.DataFrame({"item_id": ["i"], "annotator_id": ["a"], "label": ["x"]})
    with pytest.raises(ValueError, match=r"'item_id' is in the index; pass "
                                         r"frame\.reset_index\(\)$"):
        ft.Annotations.from_frame(labels.set_index("item_id"), taxonomy=None)
    assert ft.Run.from_dataframe(indexed["score"].reset_index()).doc_ids.tolist() == ["a", "b"]


def test_the_dataset_readers_given_a_table_say_they_read_a_file():
    """They raised os.fspath's 'expected str, bytes or os.PathLike object', not the readers'
    one message for what is not a path."""
    for read in (datasets.read_cifar10h_counts, datasets.read_cifar10h_raw,
                 datasets.read_crowd_relevance):
        with pytest.raises(TypeError, match=r"^path must be a file's path \(a str or "
                                            r"os\.PathLike\); got DataFrame"):
            read(pd.DataFrame({"a": [1]}))


def test_the_imagenet_real_reader_given_a_table_says_it_reads_a_folder():
    """read_imagenet_real raised pathlib's 'argument should be a str or an os.PathLike
    object ... not DataFrame'."""
    with pytest.raises(TypeError, match=r"^folder must be a folder's path \(a str or "
                                        r"os\.PathLike\); got DataFrame$"):
        datasets.read_imagenet_real(pd.DataFrame({"a": [1]}))


def test_ids_that_name_rows_by_position_may_not_be_a_set():
    """Predictions(scores, items={...}), Membership(taxonomy, {...}, matrix) and
    ScoreMatrix(values, systems={...}) bound rows to ids in the set's iteration order, which
    changes with string hashing: scores went to the wrong items in silence. Refused; where the
    ids name no positional data (a long table's classes, labels' one-hot columns) a set is
    taken in its text's order."""
    for build in (lambda: Predictions(np.eye(2), items={"x", "y"}, classes=["a", "b"]),
                  lambda: Predictions(np.eye(2), items=["x", "y"], classes={"a", "b"}),
                  lambda: ft.Membership(ft.Taxonomy.flat(["a", "b"]), {"x", "y"},
                                        np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]])),
                  lambda: ft.ScoreMatrix(np.ones((2, 3)), systems={"A", "B"}, measure="AP")):
        with pytest.raises(ValueError, match=r"must be in the order of the rows or columns they "
                                             r"name \(a list, a tuple or an array\); got a set"):
            build()
    assert Predictions.from_labels({"x": "b"}, classes={"b", "c", "a"}).classes == ("a", "b",
                                                                                    "c")
    long = pd.DataFrame({"item_id": ["x", "x"], "class": ["b", "a"], "score": [0.9, 0.1]})
    made = Predictions.from_frame(long, classes={"b", "a"})
    assert made.classes == ("a", "b") and made.scores.tolist() == [[0.1, 0.9]]


def test_a_ranking_or_a_renaming_given_as_a_set_is_refused():
    """precision_recall_curve(membership, results) reads results as a ranking and
    Evaluation.replace(systems=...) renames in order: a set gave an arbitrary ranking or
    renaming, changing with the process. Precision of an unranked set is still taken."""
    example = santini_figure1()
    with pytest.raises(ValueError, match=r"^results must be in the order of the ranking"):
        ft.precision_recall_curve(example.membership, set(example.results), category="people")
    assert ft.precision_distribution(example.membership, set(example.results),
                                     category="people").mean() == pytest.approx(0.6)
    qrels, run = ft.Qrels(["q"], ["d"], [1]), ft.Run(["q"], ["d"], [1.0])
    evaluation = ft.evaluate({"a": run, "b": run}, qrels, ["AP"])
    with pytest.raises(ValueError, match=r"^systems must be in the order of the systems they "
                                         r"rename"):
        evaluation.replace(systems={"x", "y"})


def test_selectors_classes_or_items_given_as_a_set_are_refused():
    """Selectors name class i by position: classes given as a set failed inside ('too many
    indices for array'), or would have named the classes in an arbitrary order."""
    from fuzzytruth.io.rankings import Rankings

    with pytest.raises(ValueError, match=r"^classes must be in the order of the class ids the "
                                         r"selectors use"):
        Rankings.from_selectors([[[[0], [1, 2]]]], classes={"a", "b", "c"})
    with pytest.raises(ValueError, match=r"^items must be in the order of the selectors' items"):
        Rankings.from_selectors([[[[0], [1, 2]]]], classes=["a", "b", "c"], items={"x"})
    made = Rankings.from_selectors([[[[0], [1, 2]]]], classes=["a", "b", "c"], items=["x"])
    assert made.classes == ("a", "b", "c")
