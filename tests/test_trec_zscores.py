"""trec_eval's -Z pieces: the reference file reader and the conversion (convert_zscores.c).

Oracles: the rules of ``convert_zscores.c`` written out by hand, a property (the z-score
inverts to the value wherever the standard deviation is positive), and trec_eval's own test
file (``zscores_file``, whose ``set_F`` lines hold ``nan``). The command line's ``-Z`` output
is checked byte for byte against trec_eval's ``out.test.aqZ`` in test_cli_trec_format.py.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trec_eval_files import input_file

from fuzzytruth.evaluation.zscores import MISSING_ZSCORE, trec_zscores
from fuzzytruth.io import read_trec_zscores


def test_reads_trec_evals_own_file():
    table = read_trec_zscores(input_file("zscores_file"))
    assert list(table.columns) == ["query_id", "measure", "mean", "std"]
    assert len(table) == 312 and set(table["query_id"]) == {"301", "302", "303"}
    row = table[(table["query_id"] == "301") & (table["measure"] == "map")].iloc[0]
    assert (row["mean"], row["std"]) == (0.0949, 0.1053)  # the file's line "301 map 0.0949 ..."
    assert table.loc[table["measure"] == "set_F", "std"].isna().all()


@pytest.mark.parametrize(("text", "message"), [
    ("q1 map 0.1 0.2\nq1 P_5 x 0.2\n", "line 2: expected a number in field 'mean'; got 'x'"),
    # issue 23: float() took these; the TREC readers' one number grammar does not
    ("q1 map 1_000 0.2\n", "line 1: expected a number in field 'mean'; got '1_000'"),
    ("q1 map 0.1 \u0660.\u0661\n", "line 1: expected a number in field 'stddev'"),
    ("q1 map 1e999 0.2\n", "line 1: field 'mean' holds '1e999', beyond the range"),
    ("q1 map 0.1 0.2 9\n", "line 1: expected 4 fields"),
    ("# only a comment\n", "no lines of data"),
])
def test_malformed_files_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "z.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as info:
        read_trec_zscores(path)
    assert str(info.value).startswith(str(path))


def test_rules_by_hand():
    reference = pd.DataFrame({"query_id": ["a", "a", "a", "b"], "measure": ["m", "n", "o", "m"],
                              "mean": [1.0, 2.0, np.nan, 3.0], "std": [2.0, 0.0, np.nan, 0.0]})
    z = trec_zscores(["a", "a", "a", "b", "b", "c"], ["m", "n", "o", "m", "n", "m"],
                     [5.0, 2.0, 1.0, 4.0, 1.0, 1.0], reference)
    # (5-1)/2; sd 0 and the mean; nan reference; sd 0 and not the mean; absent pair; absent query
    assert z[0] == 2.0 and z[1] == 0.0 and np.isnan(z[2])
    assert list(z[3:]) == [MISSING_ZSCORE] * 3


@settings(deadline=None, max_examples=50)
@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3), st.floats(1e-3, 1e3)),
                min_size=1, max_size=20))
def test_a_zscore_inverts_to_its_value(rows):
    values, means, stds = map(np.array, zip(*rows, strict=True))
    names = [f"q{i}" for i in range(len(rows))]
    reference = pd.DataFrame({"query_id": names, "measure": "map", "mean": means, "std": stds})
    z = trec_zscores(names, ["map"] * len(rows), values, reference)
    np.testing.assert_allclose(z * stds + means, values, rtol=1e-9, atol=1e-9)
