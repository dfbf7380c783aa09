"""A pandas DataFrame given where a matrix is expected, beside the ids of its rows and columns:
its labels say which row and column is which (``fuzzytruth._validation.by_labels``).

Before, the frame was read by position: predictions whose columns were ordered dog, cat under
``classes=["cat", "dog"]`` scored the classifier on swapped classes, a membership's columns
were taken as the taxonomy's nodes in their order, a ScoreMatrix's systems were renamed.
"""

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Membership, ScoreMatrix, Taxonomy
from fuzzytruth.classify import Predictions

RNG = np.random.default_rng(5)
P = RNG.dirichlet(np.ones(3), size=4)
ITEMS, CLASSES = ["i0", "i1", "i2", "i3"], ["cat", "dog", "cow"]


def _shuffled(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.iloc[RNG.permutation(len(frame.index)), RNG.permutation(len(frame.columns))]


def test_predictions_from_a_labelled_frame_follow_its_labels():
    frame = _shuffled(pd.DataFrame(P, index=ITEMS, columns=CLASSES))
    assert not (frame.index == ITEMS).all() or not (frame.columns == CLASSES).all()
    got = Predictions(frame, items=ITEMS, classes=CLASSES)
    np.testing.assert_array_equal(got.scores, P)
    # ids are matched as text, as everywhere: int labels name the items "0" ... "3"
    ints = pd.DataFrame(P, index=[3, 1, 0, 2], columns=CLASSES)
    np.testing.assert_array_equal(Predictions(ints, items=["0", "1", "2", "3"],
                                              classes=CLASSES).scores, P[[2, 1, 3, 0]])
    # ids given as a generator are read once (the label match read them a second time, empty)
    reordered = Predictions(frame, items=(i for i in ITEMS), classes=iter(CLASSES))
    np.testing.assert_array_equal(reordered.scores, P)
    # pandas' default labels carry no ids: by position
    positional = Predictions(pd.DataFrame(P), items=ITEMS, classes=CLASSES)
    np.testing.assert_array_equal(positional.scores, P)


def test_a_frame_whose_labels_are_not_the_ids_given_is_refused():
    frame = pd.DataFrame(P, index=ITEMS, columns=CLASSES)
    with pytest.raises(ValueError, match=r"scores is a DataFrame whose columns do not name the "
                       r"classes given: 'cow' is not among them \(a DataFrame's rows and "
                       r"columns are matched to the ids given by their labels; pass an array"):
        Predictions(frame, items=ITEMS, classes=["cat", "dog"])
    with pytest.raises(ValueError, match=r"scores is a DataFrame whose index does not name "
                       r"the items given: it lacks 'i9'"):
        Predictions(frame, items=[*ITEMS[:3], "i9"], classes=CLASSES)
    with pytest.raises(ValueError, match=r"the index of scores must name each of the items once; "
                       r"repeated: \['i0'\]"):
        Predictions(frame.set_axis(["i0", "i0", "i2", "i3"]), items=ITEMS, classes=CLASSES)


def test_a_membership_matrix_given_as_a_frame_follows_its_labels():
    taxonomy = Taxonomy.from_edges([("all", "cat"), ("all", "dog")])
    closed = np.array([[1.0, 0.7, 0.3], [1.0, 0.2, 0.8]])
    frame = pd.DataFrame(closed, index=["x", "y"], columns=["all", "cat", "dog"])
    expected = Membership(taxonomy, ["x", "y"], closed)
    for given in (frame.iloc[::-1, ::-1], frame[["all", "dog", "cat"]]):
        got = Membership(taxonomy, ["x", "y"], given, direct=given.assign(all=0.0))
        np.testing.assert_array_equal(got.matrix, expected.matrix)
        assert got.probability("x", "cat") == 0.7
    with pytest.raises(ValueError, match=r"matrix is a DataFrame whose columns do not name the "
                       r"taxonomy nodes given: it lacks 'dog' and has 'bird' instead"):
        Membership(taxonomy, ["x", "y"], frame.rename(columns={"dog": "bird"}))


def test_a_score_matrix_takes_a_frames_labels_or_follows_them():
    values = RNG.random((3, 5))
    frame = pd.DataFrame(values, index=["bm25", "dense", "splade"],
                         columns=[f"q{i}" for i in range(5)])
    own = ScoreMatrix(frame)
    assert own.systems == ("bm25", "dense", "splade")
    assert own.queries == tuple(frame.columns)
    reordered = ScoreMatrix(_shuffled(frame), systems=own.systems, queries=own.queries)
    np.testing.assert_array_equal(reordered.values, values)
    np.testing.assert_array_equal(
        ScoreMatrix(frame, expected=_shuffled(frame)).expected, values)
    with pytest.raises(ValueError, match=r"values is a DataFrame whose index does not name the "
                       r"systems given: it lacks 'colbert'"):
        ScoreMatrix(frame, systems=("bm25", "dense", "colbert"))


def test_a_score_matrix_prints_in_one_line_whatever_its_size():
    # it printed every value (12,456 characters for 3 systems × 200 queries), and so did
    # the PopulationScores of annotator_bootstrap that holds one per measure
    big = ScoreMatrix(RNG.random((50, 7, 2000)), systems=list("abcdefg"), measure="AP")
    assert repr(big) == ("ScoreMatrix('AP', 7 systems ('a', 'b', 'c', 'd', … (7 in all)) × 2000 "
                         "queries × 50 worlds)")
    assert repr(ScoreMatrix([[0.5, 0.25]], systems=["bm25"])) == (
        "ScoreMatrix('score', 1 system ('bm25') × 2 queries)")


def test_series_read_together_must_share_their_index():
    """Columns given as pandas Series are read row by row by position; a Series sorted on its
    own (or taken from another table) would pair the scores, grades or probabilities of other
    rows. Series of one table (a filtered one too) are read as before."""
    from fuzzytruth import Distribution, ProbabilisticQrels, Qrels, Run

    frame = pd.DataFrame({"q": ["q1", "q2", "q1", "q2"], "d": ["a", "b", "c", "d"],
                          "s": [1.0, 2.0, 3.0, 4.0]})
    kept = frame[frame["s"] > 1]
    assert Run(kept["q"], kept["d"], kept["s"]).scores.tolist() == [2.0, 3.0, 4.0]
    sorted_scores = frame["s"].sort_values(ascending=False)
    with pytest.raises(ValueError, match=r"^query_ids and scores are pandas Series with "
                                         r"different indexes: .*scores\.reindex"):
        Run(frame["q"], frame["d"], sorted_scores)
    with pytest.raises(ValueError, match=r"^query_ids and doc_ids are pandas Series"):
        Qrels(frame["q"], frame["d"].sample(frac=1.0, random_state=1), [1, 0, 1, 0])
    with pytest.raises(ValueError, match=r"^query_ids and grade are pandas Series"):
        ProbabilisticQrels(frame["q"], frame["d"], frame["s"] / 4, frame["s"][::-1])
    with pytest.raises(ValueError, match=r"^values and probabilities are pandas Series"):
        Distribution.from_pmf(frame["s"], (frame["s"] / 10).sort_values(ascending=False))
    # a Series beside arrays: nothing to disagree with, read by position as arrays are
    assert Run(frame["q"].to_numpy(), frame["d"].to_numpy(),
               sorted_scores).scores.tolist() == [4.0, 3.0, 2.0, 1.0]
