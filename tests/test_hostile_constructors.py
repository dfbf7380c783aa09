"""The in-memory constructors and procedures under hostile values: a ValueError naming the
parameter, what is allowed and what was received, never a silent wrong number (the file
readers have their own suite, tests/test_hostile_inputs.py)."""

import datetime
import decimal
import fractions
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import evaluate, stats, weighted_displacement
from fuzzytruth._random import as_generator
from fuzzytruth.annotations import Annotations
from fuzzytruth.classify.predictions import Predictions
from fuzzytruth.datasets import santini_illustrative
from fuzzytruth.evaluation.preferences import evaluate_preferences
from fuzzytruth.io.rankings import Rankings
from fuzzytruth.runs import Run, rank
from fuzzytruth.stats import paired_inference
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.truth.membership import Membership
from fuzzytruth.truth.models.choice import fit_truth
from fuzzytruth.truth.preferences import Preferences
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels
from fuzzytruth.truth.qrels import Qrels
from fuzzytruth.uncertain.batch import DistributionBatch
from fuzzytruth.uncertain.distribution import Distribution


@pytest.mark.parametrize("grade", [np.inf, -np.inf])
def test_qrels_refuse_an_infinite_grade_from_every_entry(grade):
    # the TREC reader and writer refused it already; the constructor took it, and nDCG came
    # out 0 with a RuntimeWarning
    with pytest.raises(ValueError, match=rf"relevance must be finite \(found {grade} at row 1\)"):
        Qrels(["q", "q"], ["a", "b"], [1, grade])
    with pytest.raises(ValueError, match=r"relevance must be finite numbers, without NaN or "
                       rf"missing values; qrels\['q'\]\['b'\] is {grade}$"):
        Qrels.from_dict({"q": {"a": 1, "b": grade}})
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, grade]})
    with pytest.raises(ValueError, match=r"relevance must be finite"):
        Qrels.from_dataframe(frame)
    # scores may be infinite (trec_eval reads "inf" in a run): a run keeps them and ranks them
    run = Run(["q", "q"], ["a", "b"], [grade, 1.0])
    first = "a" if grade > 0 else "b"
    p1 = evaluate(run, Qrels(["q"], [first], [1]), "P@1").to_frame()["mean"].item()
    assert p1 == 1.0


def test_probabilistic_qrels_name_the_pair_of_a_probability_out_of_range():
    with pytest.raises(ValueError, match=r"probability must be within \[0, 1\]; got inf for "
                       r"query 'q', document 'b'"):
        ProbabilisticQrels(["q", "q"], ["a", "b"], [0.5, np.inf])
    with pytest.raises(ValueError, match=r"grade must be finite and > 0 .*; numpy could not "
                       r"read them: could not convert string"):
        ProbabilisticQrels(["q"], ["a"], [0.5], ["high"])


def test_a_probability_table_names_the_item_and_category_of_a_bad_value():
    table = pd.DataFrame({"cat": [0.7, 1.0], "dog": [0.3, -0.25]}, index=["x", "y"])
    for close in (True, False):
        with pytest.raises(ValueError, match=r"within \[0, 1\]; got -0.25 for item 'y', "
                           r"category 'dog'"):
            Membership.from_probabilities(table, close=close)
    words = table.astype(object)
    words.loc["x", "cat"] = "high"
    with pytest.raises(ValueError, match=r"within \[0, 1\]; got values that are not numbers in "
                       r"column\(s\) 'cat'"):
        Membership.from_probabilities(words)


def test_scores_of_a_test_must_be_numbers():
    with pytest.raises(ValueError, match=r"scores must be a numeric array \(n_systems, "
                       r"n_queries\); numpy could not read them: could not convert string"):
        paired_inference(np.array([["a"] * 4, ["b"] * 4]))
    # rows of unequal length: numpy's own message used to escape, naming no parameter
    with pytest.raises(ValueError, match=r"scores must be a numeric array .*inhomogeneous"):
        paired_inference([[1.0, 2.0, 3.0], [1.0, 2.0]])


SCALED_PROCEDURES = {
    "paired_inference": lambda s: stats.paired_inference(s),
    "paired_test": lambda s: stats.paired_test(s),
    "paired_bootstrap": lambda s: stats.paired_bootstrap(s, rng=0, n_resamples=100),
    "compare": lambda s: stats.compare(s, rng=0, n_resamples=100),
    "paired_tukey_hsd": lambda s: stats.paired_tukey_hsd(s),
    "cohens_dz": lambda s: stats.cohens_dz(s),
}


@pytest.mark.parametrize("procedure", list(SCALED_PROCEDURES))
@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_scores_whose_squares_overflow_or_underflow_are_refused(procedure, scale):
    """Scaled by 1e200, the t test's variance overflowed and it said t = 0, p = 1 (the
    unscaled scores give p = 0.45); scaled by 1e-200, the squares underflowed and every
    procedure returned NaN as if the differences had no spread."""
    scores = np.random.default_rng(0).random((3, 30))
    with pytest.raises(ValueError, match=r"scores must be at most 1e\+140 in absolute value, and "
                       r"not all below 1e-140.*got largest \|value\| 9.97e[-+]\d+ at index "
                       r"\(0, 26\)"):
        SCALED_PROCEDURES[procedure](scores * scale)
    # within the limits the procedures are scale-equivariant: the same p-values
    unscaled = stats.paired_test(scores).pvalue
    for inside in (1e139, 1e-139):
        np.testing.assert_allclose(stats.paired_test(scores * inside).pvalue, unscaled,
                                   rtol=1e-12)


def test_complex_scores_are_refused_not_cut_to_their_real_parts():
    scores = np.random.default_rng(0).random((3, 30)) + 1j
    for given in (scores, pd.DataFrame(scores)):
        with pytest.raises(ValueError, match=r"scores must be real numbers; got complex values"):
            paired_inference(given)


# every entry that takes numbers as a list: (call, the parameter named)
LIST_ENTRIES = {
    "Run scores": (lambda v: Run(["q", "q"], ["a", "b"], v), "scores"),
    "Qrels relevance": (lambda v: Qrels(["q", "q"], ["a", "b"], v), "relevance"),
    "ProbabilisticQrels probability": (
        lambda v: ProbabilisticQrels(["q", "q"], ["a", "b"], v), "probability"),
    "ProbabilisticQrels grade": (
        lambda v: ProbabilisticQrels(["q", "q"], ["a", "b"], [0.5, 0.5], v), "grade"),
    "Preferences levels": (
        lambda v: Preferences(["q", "q"], ["g", "g"], ["1", "2"], ["a", "b"], v), "levels"),
    "Distribution values": (lambda v: Distribution.from_pmf(v, [0.5, 0.5]), "values"),
    "Distribution probabilities": (
        lambda v: Distribution.from_pmf([0.0, 1.0], v), "probabilities"),
    "Distribution weights": (
        lambda v: Distribution.mixture([Distribution.point_mass(0.0)] * 2, v), "weights"),
    "DistributionBatch masses": (
        lambda v: DistributionBatch(np.array([[0.0, 1.0]]), [v], np.zeros(1)), "masses"),
    "Membership matrix": (
        lambda v: Membership(Taxonomy.from_edges([("all", "a"), ("all", "b")]), ["x"],
                             [[1.0, *v]]), "matrix"),  # the root's column is 1
    "adjust_pvalues": (lambda v: stats.adjust_pvalues(v), "pvalues"),
    "paired_inference": (lambda v: paired_inference([list(v) * 2, [0.5] * 4]), "scores"),
}


@pytest.mark.parametrize("entry", list(LIST_ENTRIES))
@pytest.mark.parametrize("imaginary", [np.complex128(0.5 + 1j), np.complex64(0.5 + 1j),
                                       0.5 + 1j], ids=["complex128", "complex64", "python"])
def test_a_list_holding_a_complex_number_is_refused_naming_the_parameter(entry, imaginary):
    """A numpy complex scalar in a list, or in an array of objects, was cast to its real part
    with only numpy's ComplexWarning (Qrels graded the document 0.5, the p-value adjusted
    0.5); a Python complex failed the cast with a message that named no complex value."""
    call, name = LIST_ENTRIES[entry]
    for values in ([0.5, imaginary], [imaginary, None],
                   np.array([0.5, imaginary], dtype=object)):
        with pytest.raises(ValueError, match=rf"^{name} must be real numbers; got complex "
                           r"values$"):
            call(values)
    call([0.5, 0.5])  # the same entry takes real numbers


# the run and qrels entries from a {query: {doc: value}} mapping: (call, the values named)
DICT_ENTRIES = {
    "Run.from_dict": (Run.from_dict, "scores"),
    "Qrels.from_dict": (Qrels.from_dict, "relevance"),
}


@pytest.mark.parametrize("entry", list(DICT_ENTRIES))
@pytest.mark.parametrize("imaginary", [np.complex128(0.5 + 1j), np.complex64(0.5 + 1j),
                                       np.complex128(2.0)], ids=["complex128", "complex64",
                                                                 "imaginary_part_0"])
def test_a_nested_dict_holding_a_numpy_complex_number_is_refused(entry, imaginary):
    """A numpy complex scalar among a pytrec_eval-style dict's values was cast to its real part
    with only numpy's ComplexWarning (the run scored the document 0.5, the qrels graded it
    0.5), where a Python complex, and the same scalar in a list, were refused."""
    call, name = DICT_ENTRIES[entry]
    for nested in ({"q1": {"a": 1.0, "b": imaginary}},
                   {1: {2: 1.0, 3: imaginary}}):  # ids that are not str: the other path
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # refused, not warned about
            with pytest.raises(ValueError, match=rf"^{name} must be real numbers; got complex "
                               r"values$"):
                call(nested)
    assert call({"q1": {"a": 1.0, "b": np.float32(0.5)}}).query_ids.tolist() == ["q1", "q1"]


NUMBERS = {
    "floats, ints and bools": [0.25, 3, True],
    "numpy scalars": [np.float32(0.5), np.int64(2), np.float16(1.5)],
    "numpy bool": [np.bool_(True), 0.5, 1.0],
    "ints beyond 2**53": [2**53 + 1, -(2**60), 1.0],
    "decimals and fractions": [decimal.Decimal("0.1"), fractions.Fraction(1, 3), 2.0],
    "infinite": [float("inf"), 1.0, -float("inf")],
}


@pytest.mark.parametrize(("entry", "numbers"), [
    (entry, numbers) for entry in DICT_ENTRIES for numbers in NUMBERS
    if entry == "Run.from_dict" or numbers != "infinite"])  # grades must be finite
def test_a_nested_dicts_numbers_of_every_kind_are_read_as_float_casts_them(entry, numbers):
    """A pytrec_eval-style dict's values are read in one pass when all are floats, bools or
    ints float64 holds exactly, and otherwise type by type: either way each value is what
    ``float`` makes of it (the oracle), in the dict's order."""
    call, _ = DICT_ENTRIES[entry]
    values = NUMBERS[numbers]
    made = call({"q1": dict(zip("abc", values, strict=True))})
    held = made.scores if hasattr(made, "scores") else made.relevance
    assert held.tolist() == [float(v) for v in values]
    assert not held.flags.writeable


@pytest.mark.parametrize("entry", list(DICT_ENTRIES))
def test_a_nested_dict_holding_none_is_refused_naming_the_values(entry):
    call, name = DICT_ENTRIES[entry]
    what = "run" if name == "scores" else "qrels"
    # rows of a mapping mean nothing to its user: the message names the keys (it said "found
    # at row 1"), with the value as given (the array read it as NaN), in every query
    for bad in (None, float("nan"), "yes", [2.0], np.array([1.0, 2.0])):
        given = re.escape(repr(bad))
        with pytest.raises(ValueError, match=rf"^{name} must be (finite )?numbers, without NaN "
                           rf"or missing values; {what}\['q2'\]\['7'\] is {given}$"):
            call({"q1": {"a": 1.0, "b": True}, "q0": {}, "q2": {"c": 2, 7: bad}})


DATES = {
    "numpy datetime64": np.datetime64("2024-05-01", "D"),
    "numpy timedelta64": np.timedelta64(3, "s"),
    "pandas Timestamp": pd.Timestamp("2024-05-01"),
    "pandas Timedelta": pd.Timedelta(3, "s"),
    "datetime.datetime": datetime.datetime(2024, 5, 1),
    "datetime.date": datetime.date(2024, 5, 1),
    "datetime.timedelta": datetime.timedelta(seconds=3),
}


@pytest.mark.parametrize("date", list(DATES))
def test_dates_and_durations_are_refused_as_scores_and_grades(date):
    """A run's scores or a qrels' grades given as dates or durations were taken as numbers
    by some entries: numpy's cast turns a datetime64 array into a count of its unit
    (2024-05-01 as the score 19844), a pandas column of Timestamps into microseconds since
    1970, a dict holding numpy datetime64 or timedelta64 likewise, and the others failed
    with "numpy could not read them". Every entry now names the parameter and the dates."""
    value = DATES[date]
    series = pd.Series([value, value])  # pandas makes datetime64 / timedelta64 columns
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": series,
                          "relevance": series})
    entries = {
        "Run list": (lambda: Run(["q", "q"], ["a", "b"], [1.0, value]), "scores"),
        "Run array": (lambda: Run(["q", "q"], ["a", "b"], np.array([value, value])), "scores"),
        "Run Series": (lambda: Run(["q", "q"], ["a", "b"], series), "scores"),
        "Run.from_dataframe": (lambda: Run.from_dataframe(frame), "scores"),
        "Run.from_dict": (lambda: Run.from_dict({"q": {"a": 1.0, "b": value}}), "scores"),
        "Qrels list": (lambda: Qrels(["q", "q"], ["a", "b"], [1, value]), "relevance"),
        "Qrels Series": (lambda: Qrels(["q", "q"], ["a", "b"], series), "relevance"),
        "Qrels.from_dataframe": (lambda: Qrels.from_dataframe(frame), "relevance"),
        "Qrels.from_dict": (lambda: Qrels.from_dict({"q": {"a": 1, "b": value}}), "relevance"),
    }
    for entry, (call, name) in entries.items():
        with pytest.raises(ValueError, match=rf"^{name} must be real numbers; got dates or "
                           r"durations \(\w+(\[[\w, ]+\])?\)$"):
            call()
            pytest.fail(f"{entry} took {value!r}")


def test_item_ids_equal_as_text_are_refused_where_items_are_named():
    # a run's document ids are str: item 1 and item "1" would be one document. Labels,
    # rankings and a membership from an outside model's table refuse such ids when built
    taxonomy = Taxonomy.from_edges([("all", "cat"), ("all", "dog")])
    frame = pd.DataFrame({"item_id": [1, "1", 2], "annotator_id": ["a", "a", "a"],
                          "label": ["cat", "dog", "dog"]})
    with pytest.raises(ValueError, match=r"frame column 'item_id' must name each id once"):
        Annotations.from_frame(frame, taxonomy=taxonomy)
    table = pd.DataFrame({"cat": [1.0, 0.0, 0.0], "dog": [0.0, 1.0, 1.0]},
                         index=pd.Index([1, "1", 2], dtype=object))
    # refused when made (it was when evaluated), as the labels and rankings are
    with pytest.raises(ValueError, match=r"^items must name each item once as text; got "
                                         r"\[1, '1'\]$"):
        Membership.from_probabilities(table, taxonomy=taxonomy)
    rankings = frame.rename(columns={"annotator_id": "reader_id", "label": "class"}).assign(
        rank_group=0)
    with pytest.raises(ValueError, match=r"frame column 'item_id' must name each id once"):
        Rankings.from_frame(rankings, taxonomy=taxonomy)
    with pytest.raises(ValueError, match=r"^items must name each item once as text"):
        Rankings.from_selectors([[[[0]]], [[[1]]]], classes=["cat", "dog"], items=[1, "1"])


def test_systems_equal_as_text_are_refused_not_merged():
    # systems are named by text: {1: a, "1": b} kept one of them without a word (noticed by
    # the displacement hunt)
    a = Run(["q", "q"], ["d1", "d2"], [2.0, 1.0])
    b = Run(["q", "q"], ["d1", "d2"], [1.0, 2.0])
    qrels = Qrels(["q"], ["d1"], [1])
    with pytest.raises(ValueError, match=r"runs must name each system once as text; got "
                       r"\[1, '1'\]"):
        evaluate({1: a, "1": b}, qrels, "P@1")
    assert evaluate({1: a, "2": b}, qrels, "P@1").to_frame()["system"].tolist() == ["1", "2"]


def test_bytes_ids_are_their_utf8_text_wherever_ids_are_compared_as_text():
    # str(b"i1") is "b'i1'": bytes items of a membership, bytes system names, bytes ids of a
    # displacement table or of predictions matched nothing a run or a file names
    taxonomy = Taxonomy.from_edges([("all", "cat"), ("all", "dog")])
    frame = pd.DataFrame({"item_id": ["i1", "i1", "i2", "i2"], "annotator_id": ["x", "y"] * 2,
                          "label": ["cat", "cat", "dog", "cat"]})
    run = Run(["i1", "i1", "i2", "i2"], ["i2", "i1", "i1", "i2"], [2.0, 1.0, 2.0, 1.0])

    def p_at_1(items, systems=("s",)):
        ann = Annotations.from_frame(frame.assign(item_id=items), taxonomy=taxonomy)
        result = evaluate(dict.fromkeys(systems, run), Membership.from_annotations(ann), "P@1")
        return result.to_frame()[["system", "query_id", "mean"]].values.tolist()

    expected = p_at_1(frame["item_id"])
    assert p_at_1([b"i1", b"i1", b"i2", b"i2"], systems=(b"s",)) == expected
    with pytest.raises(ValueError, match=r"frame column 'item_id' given as bytes must be UTF-8 "
                       r"text; got b'\\xff'"):
        p_at_1([b"i1", b"i1", b"\xff", b"\xff"])
    answers = pd.DataFrame({"query_id": [b"q"] * 3, "annotator_id": "u",
                            "item_id": [b"a", b"b", b"c"], "rank": [1, 2, 3],
                            "relevance": [1.0, 0.5, 0.25]})
    ranked = Run(["q"] * 3, ["c", "b", "a"], [3.0, 2.0, 1.0], name="S")
    as_text = answers.assign(query_id="q", item_id=["a", "b", "c"])
    assert (weighted_displacement(answers, ranked, n_items=10).to_frame()["w_a"].tolist()
            == weighted_displacement(as_text, ranked, n_items=10).to_frame()["w_a"].tolist())
    predictions = Predictions(np.eye(2), items=[b"i1", b"i2"], classes=[b"cat", b"dog"])
    assert list(predictions.items) == ["i1", "i2"]
    assert list(predictions.classes) == ["cat", "dog"]


def test_a_negative_seed_is_refused_naming_rng():
    with pytest.raises(ValueError, match=r"rng must be a non-negative int seed; got -1"):
        as_generator(-1)
    with pytest.raises(ValueError, match=r"rng must be a non-negative int seed; got -3"):
        paired_inference(np.arange(8.0).reshape(2, 4), method="bootstrap", rng=-3)


def _annotations(weights):
    taxonomy = Taxonomy.from_edges([("all", "cat"), ("all", "dog")])
    frame = pd.DataFrame({"item_id": ["x", "x", "y"], "annotator_id": [1, 2, 1],
                          "label": ["cat", "dog", "dog"]})
    return Annotations.from_frame(frame, taxonomy=taxonomy, annotator_weights=weights)


def test_annotator_weights_that_name_no_annotator_are_refused():
    # would otherwise leave every vote at weight 1, silently
    with pytest.raises(ValueError, match=r"annotator_weights names no annotator of these "
                       r"annotations: got '7', '8'; the annotators are 1, 2"):
        _annotations({"7": 0.0, "8": 3.0})
    annotations = _annotations(None)
    with pytest.raises(ValueError, match=r"names no annotator"):
        annotations.with_annotator_weights({"7": 0.0})


def test_annotator_weights_are_matched_to_the_annotators_as_text():
    """As every id: "2" names annotator 2 (a weight file read as text beside a table of int
    ids); before, such a key was matched by value, and a mapping naming one annotator by value
    and another by text left the second at weight 1 without a word."""
    by_text = _annotations({"2": 3.0})
    assert by_text.annotator_weights == {2: 3.0}
    assert by_text.codes()[3].tolist() == [1.0, 3.0, 1.0]
    mixed = _annotations(None).with_annotator_weights({1: 0.5, "2": 3.0})
    assert mixed.codes()[3].tolist() == [0.5, 3.0, 0.5]
    with pytest.raises(ValueError, match=r"^annotator_weights must name each annotator once as "
                                         r"text; got \[2, '2'\]$"):
        _annotations({2: 1.0, "2": 3.0})
    # weights computed on a larger collection may name annotators absent here
    weighted = _annotations({1: 3.0, 99: 0.5})
    assert weighted.codes()[3].tolist() == [3.0, 1.0, 3.0]
    for bad in ("heavy", True, None):
        with pytest.raises(ValueError, match=rf"annotator_weights must be finite and >= 0; got "
                           rf"{bad!r} for annotator 1"):
            _annotations({1: bad})
    with pytest.raises(ValueError, match=r"annotator_weights must be a mapping .*; got list"):
        _annotations([1.0, 2.0])
    # a Series keyed by annotator (a column of a scores table) is a mapping too
    assert _annotations(pd.Series({1: 3.0})).codes()[3].tolist() == [3.0, 1.0, 3.0]


COMPLEX = np.array([0.5 + 1j, 0.25, 0.25])
COMPLEX_INPUTS = {
    "Run": (lambda: Run(["q"] * 3, ["a", "b", "c"], COMPLEX), "scores"),
    "Run.from_dataframe": (lambda: Run.from_dataframe(pd.DataFrame(
        {"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": COMPLEX})), "scores"),
    "Qrels": (lambda: Qrels(["q"] * 3, ["a", "b", "c"], COMPLEX), "relevance"),
    "ProbabilisticQrels": (lambda: ProbabilisticQrels(["q"] * 3, ["a", "b", "c"], COMPLEX),
                           "probability"),
    "ProbabilisticQrels grade": (lambda: ProbabilisticQrels(
        ["q"] * 3, ["a", "b", "c"], [0.5] * 3, grade=COMPLEX + 1), "grade"),
    "Membership.from_probabilities": (lambda: Membership.from_probabilities(
        pd.DataFrame({"cat": COMPLEX, "dog": 1 - COMPLEX}, index=["x", "y", "z"])), "table"),
    "Predictions": (lambda: Predictions(np.vstack([COMPLEX, COMPLEX]), items=["x", "y"],
                                        classes=["a", "b", "c"]), "scores"),
    "Predictions.from_frame": (lambda: Predictions.from_frame(pd.DataFrame(
        {"item_id": ["x"] * 3, "class": ["a", "b", "c"], "score": COMPLEX})), "column 'score'"),
    "Predictions.from_wide": (lambda: Predictions.from_wide(
        pd.DataFrame([COMPLEX], columns=["a", "b", "c"], index=["x"])), "frame"),
    "weighted_displacement answers": (lambda: weighted_displacement(
        pd.DataFrame({"query_id": ["q"] * 3, "annotator_id": ["a"] * 3,
                      "item_id": ["x", "y", "z"], "rank": [1, 2, 3],
                      "relevance": COMPLEX.real + 0.3j}),
        Run(["q"] * 3, ["x", "y", "z"], [3.0, 2.0, 1.0]), n_items=10),
        "annotations column 'relevance'"),
}


@pytest.mark.parametrize("constructor", list(COMPLEX_INPUTS))
def test_complex_values_are_refused_not_cut_to_their_real_parts(constructor):
    """numpy casts complex to float by dropping the imaginary parts, with only a
    ComplexWarning: every one of these kept 0.5 for 0.5 + 1j."""
    build, name = COMPLEX_INPUTS[constructor]
    with pytest.raises(ValueError, match=rf"^{name} must be real numbers; got complex values$"):
        build()


RUN = Run(["q1"] * 3, ["d1", "d2", "d3"], [3.0, 2.0, 1.0])
QRELS = Qrels(["q1", "q1"], ["d1", "d3"], [1, 2])
FIT = fit_truth(santini_illustrative().annotations)
BUDGETED = {
    "evaluate": lambda b: evaluate(RUN, QRELS, "AP", memory_budget=b),
    "rank": lambda b: rank(RUN, memory_budget=b),
    "evaluate_preferences": lambda b: evaluate_preferences(
        RUN, Preferences.from_dataframe(pd.DataFrame(
            {"query_id": ["q1", "q1"], "group": ["0", "0"], "doc_id": ["d1", "d2"],
             "level": [1, 0]}), subgroup_col=None), "prefs_simp", memory_budget=b),
    "FittedTruth.sample_labels": lambda b: FIT.sample_labels(5, seed=0, memory_budget=b),
    "FittedTruth.sample_plausibilities":
        lambda b: FIT.sample_plausibilities(5, seed=0, memory_budget=b),
}


@pytest.mark.parametrize("call", list(BUDGETED))
@pytest.mark.parametrize("budget", [0, -1, np.nan, np.inf, True, "1e9"])
def test_a_memory_budget_that_is_not_a_positive_number_of_bytes_is_refused(call, budget):
    """evaluate and rank took 0 and -1 (and ran with blocks of one row); NaN and inf raised
    numpy's 'cannot convert float NaN to integer', naming nothing."""
    with pytest.raises(ValueError, match=r"memory_budget must be a number of bytes > 0; got "):
        BUDGETED[call](budget)


PROBABILISTIC = ProbabilisticQrels(["q1"] * 3, ["d1", "d2", "d3"], [0.5, 0.2, 0.9])
UNBOUNDED = {
    **BUDGETED,
    "evaluate, method auto": lambda b: evaluate(RUN, PROBABILISTIC, ["AP", "P@2"], rng=0,
                                                memory_budget=b),
    "evaluate in worlds": lambda b: evaluate(RUN, PROBABILISTIC, ["AP", "P@2"], n_worlds=30,
                                             method="worlds", rng=0, memory_budget=b),
}


@pytest.mark.parametrize("call", list(UNBOUNDED))
def test_a_memory_budget_past_any_machine_gives_the_numbers_of_the_default(call):
    """A budget of 1e30 bytes (no limit, in effect) made a block target past int64 and
    numpy's 'Maximum allowed size exceeded', naming nothing; every block is now the whole."""
    def numbers(result):  # an Evaluation's table, a Ranking's order, or the draws
        if hasattr(result, "aggregate"):
            return result.aggregate().select_dtypes("number").to_numpy()
        return np.asarray(getattr(result, "rows", result))

    default = numbers(UNBOUNDED[call](64e6))
    for budget in (1e30, 1e300, 2.0**63):
        np.testing.assert_array_equal(numbers(UNBOUNDED[call](budget)), default)


def test_evaluate_checks_progress_even_when_it_draws_no_bar():
    with pytest.raises(ValueError, match=r"progress must be True, False or None; got 'x'"):
        evaluate(RUN, QRELS, "AP", progress="x")


TWO = [Distribution.point_mass(0.0), Distribution.point_mass(1.0)]
COMPONENTS = DistributionBatch([[0.0], [1.0]], [[1.0], [1.0]], [0.0, 0.0])
DISTRIBUTIONS = {
    # NaN masses were dropped as if zero: a point mass at 1
    "from_pmf NaN mass": (lambda: Distribution.from_pmf([0, 1], [np.nan, 1]),
                          r"probabilities must be finite and >= 0; got nan at position 0"),
    "from_pmf inf mass": (lambda: Distribution.from_pmf([0, 1], [0.5, np.inf]),
                          r"probabilities must be finite and >= 0; got inf at position 1"),
    "from_pmf complex": (lambda: Distribution.from_pmf(np.array([1j, 1]), [0.5, 0.5]),
                         r"values must be real numbers; got complex values"),
    # a NaN weight made the mixture undefined with probability 1
    "mixture NaN weight": (lambda: Distribution.mixture(TWO, [np.nan, 1]),
                           r"mixture weights must be finite and >= 0 with a positive sum; got "
                           r"nan at position 0"),
    "mixture zero weights": (lambda: Distribution.mixture(TWO, [0, 0]), r"got a sum of 0"),
    # a NaN p_undefined passed every check
    "batch NaN p_undefined": (lambda: DistributionBatch([[0.0, 1.0]], [[0.5, 0.5]], [np.nan]),
                              r"p_undefined must be within \[0, 1\]; row 0 has nan"),
    # weights summing to 1 with a negative one made negative masses: a mean of -0.5
    "batch mixture negative weight": (
        lambda: DistributionBatch.mixture(COMPONENTS, np.array([[0, 1]]),
                                          np.array([[1.5, -0.5]])),
        r"weights must be finite and >= 0; row 0, component 1 has -0.5"),
    "batch mixture index": (
        lambda: DistributionBatch.mixture(COMPONENTS, np.array([[0, 2]]),
                                          np.array([[0.5, 0.5]])),
        r"index must name rows of components \(fewer than 2, or -1 for padding\); got 2"),
    "batch complex": (lambda: DistributionBatch(np.array([[1j, 1.0]]), [[0.5, 0.5]], [0.0]),
                      r"values must be real numbers; got complex values"),
}


@pytest.mark.parametrize("case", list(DISTRIBUTIONS))
def test_distributions_refuse_values_that_would_make_a_silent_wrong_number(case):
    build, message = DISTRIBUTIONS[case]
    with pytest.raises(ValueError, match=message):
        build()


def test_a_label_model_refuses_worlds_it_could_not_hold_and_seeds_past_64_bits():
    """sample_labels(10**20) raised numpy's 'Maximum allowed size exceeded' (2**40 worlds:
    a MemoryError) naming nothing; a seed of 2**70 raised OverflowError from the uint64 of
    the keyed draws."""
    fit = fit_truth(santini_illustrative().annotations, "dawid-skene")
    with pytest.raises(ValueError, match=r"^worlds=100000000000000000000 would keep .* of world "
                       r"values \(\d+ bytes per world\), more than the .* of memory; at most \d+ "
                       r"worlds fit$"):
        fit.sample_labels(10**20, seed=0)
    with pytest.raises(ValueError, match=r"worlds=1099511627776 would keep"):
        fit.sample_plausibilities(2**40, seed=0)
    with pytest.raises(ValueError, match=r"seed must be a non-negative int below 2\*\*64; got "
                       r"1180591620717411303424"):
        fit.sample_labels(3, seed=2**70)
    assert fit.sample_labels(3, seed=2**64 - 1).shape == (3, len(fit.items))


@pytest.mark.parametrize("edge", [("a", np.nan), ("a", None), (None, "a"),
                                  ("a", np.float32("nan")), ("a", pd.NA)])
def test_a_taxonomy_node_named_by_a_missing_value_is_refused(edge):
    """Taxonomy.from_edges took None and NaN as node names (ids are never missing elsewhere:
    Run, Qrels and Annotations refuse them; NaN is not even equal to itself)."""
    with pytest.raises(ValueError, match=r"node names must not be missing values; got "
                       r"(nan|None|np.float32\(nan\)|<NA>)"):
        Taxonomy.from_edges([edge])


def test_a_choice_spelled_close_to_an_allowed_one_is_named():
    # "truth_model must be one of [...]; got 'dawid_skene'" left the reader to find the one
    # character; a model's class given for a model said only "got type"
    run = Run(["q", "q"], ["d1", "d2"], [2.0, 1.0])
    with pytest.raises(ValueError, match=r"ties must be one of \[.*\]; got 'docid-desc' \(did "
                       r"you mean 'docid_desc'\?\)$"):
        rank(run, ties="docid-desc")
    with pytest.raises(ValueError, match=r"got 'Dawid_Skene' \(did you mean 'dawid-skene'\?\)"):
        fit_truth(_annotations(None), "Dawid_Skene")
    with pytest.raises(ValueError, match=r"ties must be one of \[.*\]; got 'random'$"):
        rank(run, ties="random")  # nothing close: no guess
    from fuzzytruth import DawidSkene

    with pytest.raises(ValueError, match=r"truth_model must be a configured model; got the "
                       r"class DawidSkene itself: call it, DawidSkene\(\) \(with its "
                       r"defaults\), or pass its name 'dawid-skene'"):
        fit_truth(_annotations(None), DawidSkene)


def test_missing_ids_of_preferences_are_refused_not_named_none():
    # str() made a missing query id the query "None" and a missing group the group "nan"
    for args, name in (((["q", None], ["g", "g"], ["1", "2"], ["a", "b"]), "query_ids"),
                       ((["q", "q"], ["g", np.nan], ["1", "2"], ["a", "b"]), "groups"),
                       ((["q", "q"], ["g", "g"], ["1", "2"], ["a", pd.NA]), "doc_ids")):
        with pytest.raises(ValueError, match=rf"^{name} must not contain missing values \(found "
                           r"at row 1\)$"):
            Preferences(*args, [1.0, 2.0])


def test_missing_values_name_no_system_item_or_label():
    # str() named them "None": a classifier's item None, a system None in a comparison table
    run = Run(["q"], ["a"], [1.0])
    for key in (None, float("nan")):
        with pytest.raises(ValueError, match=rf"^runs must name each system by an id; got "
                           rf"{key!r}$"):
            evaluate({key: run}, Qrels(["q"], ["a"], [1]), "AP")
    with pytest.raises(ValueError, match=r"^item ids must not contain missing values \(found at "
                       r"position 1\)$"):
        Predictions(np.eye(2), items=["a", None], classes=["x", "y"])
    with pytest.raises(ValueError, match=r"^systems must not contain missing values \(found at "
                       r"position 0\)$"):
        stats.compare(np.arange(10.0).reshape(2, 5) % 3, systems=[np.nan, "b"])


@pytest.mark.parametrize("variable_strings", [True, False])
def test_str_ids_beside_ids_of_other_types_keep_a_final_nul(monkeypatch, variable_strings):
    """Ids not all str went through NumPy's fixed-width cast, which drops final NULs: "\\x00"
    beside the id 0 was keyed as "" (found by the SipHash property of the keyed draws). They
    are cast to NumPy 2's variable-width strings, or one at a time on NumPy 1."""
    import fuzzytruth._validation as validation

    if not variable_strings:
        monkeypatch.setattr(validation, "_VARIABLE_STRINGS", None)
    elif validation._VARIABLE_STRINGS is None:
        pytest.skip("NumPy 1 has no variable-width strings")
    ids = np.array(["\x00", 0, "a\x00", 1.5, "a"], dtype=object)
    assert validation.ids_text(ids, "items").tolist() == ["\x00", "0", "a\x00", "1.5", "a"]


def test_ids_that_differ_by_a_final_nul_stay_two_ids():
    """NumPy's str arrays drop final NUL characters: ids "a" and "a\\x00" cast through one were
    one id (the same keyed draws, the same z-score reference, a membership refused as naming
    an item twice, a block of queries sorted out of evaluate()'s order). Ids as text keep
    them."""
    from fuzzytruth import Annotations, Membership, Taxonomy
    from fuzzytruth._validation import ids_text
    from fuzzytruth.evaluation.result import query_placement
    from fuzzytruth.evaluation.zscores import trec_zscores

    assert ids_text(np.array(["a\x00", "a"], dtype=object), "items").tolist() == ["a\x00", "a"]
    tax = Taxonomy.flat(["x", "y"], root="all")
    frame = pd.DataFrame([("a", "r1", "x"), ("a\x00", "r1", "y")],
                         columns=["item_id", "annotator_id", "label"])
    membership = Membership.from_annotations(Annotations.from_frame(frame, taxonomy=tax))
    assert sorted(membership.items) == ["a", "a\x00"]
    reference = pd.DataFrame({"query_id": ["q", "q\x00"], "measure": ["map", "map"],
                              "mean": [0.5, 0.1], "std": [0.1, 0.1]})
    assert trec_zscores(["q\x00", "q"], ["map", "map"], [0.3, 0.3], reference).tolist() == \
        pytest.approx([2.0, -2.0])
    assert query_placement([["q\x00"], ["q"]])[0].tolist() == [1, 0]  # as sorted() orders
