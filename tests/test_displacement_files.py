"""The displacement tables read from files (fuzzytruth.displacement.read_answers/read_runs):
through the library's table reader (compression from the content, comments, file and line in
every error), and weighted_displacement naming the file and line of a row it refuses."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from fuzzytruth.displacement import read_answers, read_runs, weighted_displacement

ANSWERS = (
    "query_id,annotator_id,item_id,rank,relevance\n"
    "q1,ann1,a,1,1.0\n"
    "q1,ann1,b,2,0.5\n"
    "# ann2 answered too\n"
    "q1,ann2,b,1,1\n"
)
RUNS = "system,query_id,item_id,rank\nS,q1,b,1\nS,q1,a,2\nS,q1,x,3\n"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_read_tables_equal_the_frames(tmp_path: Path) -> None:
    answers = read_answers(write(tmp_path, "answers.csv", ANSWERS))
    runs = read_runs(write(tmp_path, "runs.csv", RUNS))
    assert answers.index.tolist() == [2, 3, 5]  # file lines (the header is line 1)
    assert answers.attrs["source"].endswith("answers.csv")
    assert answers["relevance"].tolist() == [1.0, 0.5, 1.0]
    frame_answers = pd.DataFrame(
        {"query_id": "q1", "annotator_id": ["ann1", "ann1", "ann2"], "item_id": ["a", "b", "b"],
         "rank": [1, 2, 1], "relevance": [1.0, 0.5, 1.0]}
    )
    frame_runs = pd.DataFrame({"system": "S", "query_id": "q1", "item_id": ["b", "a", "x"],
                               "rank": [1, 2, 3]})
    got = weighted_displacement(answers, runs, n_items=10).to_frame()
    expected = weighted_displacement(frame_answers, frame_runs, n_items=10).to_frame()
    pd.testing.assert_frame_equal(got, expected)
    # ann1: a at 2 (1*1), b at 1 (.5*1) -> 1.5; ann2: b at 1 -> 0
    assert got["w_a"].tolist() == pytest.approx([1.5, 0.0])


def test_compression_from_content_and_tsv_by_suffix(tmp_path: Path) -> None:
    gz = tmp_path / "answers.csv"  # gzip content under a plain name
    gz.write_bytes(gzip.compress(ANSWERS.encode()))
    tsv = tmp_path / "runs.tsv.gz"
    tsv.write_bytes(gzip.compress(RUNS.replace(",", "\t").encode()))
    res = weighted_displacement(read_answers(gz), read_runs(tsv), n_items=10).to_frame()
    assert res["w_a"].tolist() == pytest.approx([1.5, 0.0])


def test_score_runs(tmp_path: Path) -> None:
    path = write(tmp_path, "runs.csv", "system,query_id,item_id,score\nS,q1,a,1\nS,q1,b,1\n")
    runs = read_runs(path, run_order="score")
    answers = read_answers(write(tmp_path, "answers.csv", ANSWERS))
    res = weighted_displacement(answers, runs, n_items=10, run_order="score").to_frame()
    # a and b tie: item id descending puts b first -> ann1: a at 2, b at 1 -> 1.5
    assert res["w_a"].tolist() == pytest.approx([1.5, 0.0])
    with pytest.raises(ValueError, match=r"runs.csv, line 1: header must name the columns"):
        read_runs(path)  # no rank column


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (ANSWERS.replace("q1,ann1,b,2,0.5", "q1,ann1,b,two,0.5"),
         r"answers.csv, line 3: column 'rank' must hold finite numbers; got 'two'"),
        (ANSWERS.replace("q1,ann1,b,2,0.5", "q1,ann1,b,2,nan"),
         r"answers.csv, line 3: column 'relevance' must hold finite numbers"),
        (ANSWERS.replace("q1,ann1,b,2,0.5", "q1,,b,2,0.5"),
         r"answers.csv, line 3: empty value in column 'annotator_id'"),
        (ANSWERS.replace("q1,ann1,b,2,0.5", "q1,ann1,b,2"),
         r"answers.csv, line 3: expected 5 fields"),
        ("query_id,item_id\nq1,a\n", r"answers.csv, line 1: header must name the columns"),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_answers(write(tmp_path, "answers.csv", text))


@pytest.mark.parametrize(
    ("answers", "runs", "message"),
    [
        (ANSWERS.replace("q1,ann1,b,2,0.5", "q1,ann1,b,1,0.5"), RUNS,
         r"answers.csv, line 3: annotations column 'rank' must be unique"),
        (ANSWERS.replace("q1,ann2,b,1,1", "q1,ann2,b,1,1.5"), RUNS,
         r"answers.csv, line 5: annotations column 'relevance' must lie in \[0, 1\]"),
        (ANSWERS.replace("q1,ann1,b,2,0.5", "q1,ann1,a,2,0.5"), RUNS,
         r"answers.csv, line 3: annotations must list each item at most once"),
        (ANSWERS, RUNS.replace("S,q1,x,3", "S,q1,x,2"),
         r"runs.csv, line 4: runs column 'rank' must be unique"),
        (ANSWERS, RUNS.replace("S,q1,x,3", "S,q1,b,3"),
         r"runs.csv, line 4: runs must list each item at most once per \(system, query\)"),
    ],
)
def test_refused_rows_name_file_and_line(tmp_path: Path, answers: str, runs: str,
                                          message: str) -> None:
    a = read_answers(write(tmp_path, "answers.csv", answers))
    r = read_runs(write(tmp_path, "runs.csv", runs))
    with pytest.raises(ValueError, match=message):
        weighted_displacement(a, r, n_items=10)
    # the line follows the rows through sorting; a reset index drops it
    with pytest.raises(ValueError, match=message):
        weighted_displacement(a.sort_values("item_id"), r.sort_values("item_id"), n_items=10)
    with pytest.raises(ValueError) as err:
        weighted_displacement(a.reset_index(drop=True), r.reset_index(drop=True), n_items=10)
    assert "line" not in str(err.value)
