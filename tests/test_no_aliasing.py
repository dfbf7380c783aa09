"""Objects that hold a caller's numbers hold their own read-only copy.

Before, ``Run``, ``Qrels`` and ``ProbabilisticQrels`` kept the caller's NumPy array or DataFrame
column itself: an edit of the caller's data after construction changed the run's scores or the
qrels' probabilities without a word, past the checks the constructor had made (a probability
set to 1.5 was read as one), and ``run.scores[0] = ...`` changed the run; ``ScoreMatrix`` kept the
caller's array too; ``Predictions`` made the caller's own array read-only.
"""

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import ProbabilisticQrels, Qrels, Run, ScoreMatrix
from fuzzytruth.classify import Predictions


def _edit(array: np.ndarray) -> None:
    array[...] = 0.25  # a legal value everywhere, and another one


@pytest.mark.parametrize("build", [
    lambda v: (Run(["q", "q"], ["a", "b"], v), "scores"),
    lambda v: (Qrels(["q", "q"], ["a", "b"], v), "relevance"),
    lambda v: (ProbabilisticQrels(["q", "q"], ["a", "b"], v / 4), "probability"),
    lambda v: (ProbabilisticQrels(["q", "q"], ["a", "b"], [0.5, 0.5], grade=v), "grade"),
    lambda v: (ScoreMatrix(np.vstack([v, v + 1])), "values"),
    lambda v: (Predictions(np.vstack([v, v]) / 3, items=["x", "y"], classes=["a", "b"]),
               "scores"),
])
def test_an_edit_of_the_callers_array_changes_nothing_held(build):
    given = np.array([2.0, 1.0])
    held, attribute = build(given)
    before = np.array(getattr(held, attribute), copy=True)
    assert given.flags.writeable  # the caller's array is left as it was
    _edit(given)
    np.testing.assert_array_equal(getattr(held, attribute), before)
    with pytest.raises(ValueError, match="read-only"):
        _edit(getattr(held, attribute))


def test_an_edit_of_a_dataframe_column_changes_nothing_held():
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    run = Run.from_dataframe(frame)
    frame.loc[0, "score"] = -5.0
    frame["score"] *= 10
    assert run.scores.tolist() == [2.0, 1.0]
    qrels_frame = frame.rename(columns={"score": "relevance"}).assign(relevance=[1.0, 0.0])
    qrels = Qrels.from_dataframe(qrels_frame)
    qrels_frame.loc[1, "relevance"] = 3.0
    assert qrels.relevance.tolist() == [1.0, 0.0]
