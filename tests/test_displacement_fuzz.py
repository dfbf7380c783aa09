"""Differential and hostile-input fuzzing of the weighted displacement (Santini §5).

Oracle: a brute-force implementation written here from the definitions of
:mod:`fuzzytruth.displacement` (Santini eq. 17-23, positions 1-based): per (query, annotator)
list and system, read the run's first ``L`` items, place each annotator item (set A) or list it
as missing (set B, in annotator order), and sum. With ``annotator_ties="best"`` the oracle
enumerates every ordering of the tie groups and takes the smallest ``w`` (the rule's claim).
The regressions at the end each failed on the parent commit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fuzzytruth.displacement import weighted_displacement

ANSWERS = pd.DataFrame({"query_id": "q", "annotator_id": "u", "item_id": ["a", "b", "c"],
                        "rank": [1, 2, 3], "relevance": [1.0, 0.5, 0.5]})
RUNS = pd.DataFrame({"system": "S", "query_id": "q", "item_id": ["b", "a", "x"],
                     "rank": [1, 2, 3]})


# ---------------------------------------------------------------------- regressions
@pytest.mark.parametrize("n_items", [np.uint64(2**64 - 1), np.uint64(2**63),
                                     pd.Series({"q": np.uint64(2**63 + 5)})])
def test_n_items_past_int64_names_the_value_given(n_items):
    """An unsigned N past 2**63 - 1 was cast to int64 and wrapped: the message said "n_items
    must be >= 1; got -1" for N = 2**64 - 1, a value nobody gave."""
    with pytest.raises(ValueError) as caught:
        weighted_displacement(ANSWERS, RUNS, n_items=n_items)
    given = int(np.asarray(n_items).max())
    assert str(caught.value) == f"n_items must be at most 2**63 - 1; got {given}"


def test_n_items_up_to_int64_max_is_taken():
    out = weighted_displacement(ANSWERS, RUNS, n_items=np.uint64(2**63 - 1)).to_frame()
    assert out["n_items"].item() == 2**63 - 1
    assert out["w_optimist"].item() == 2.0  # eq. 22: c at L + 1 = 4, 0.5 * |3 - 4|, + w_a 1.5
