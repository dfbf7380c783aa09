"""Taxonomy and annotation files: round trips and malformed-file messages."""

import pandas as pd
import pytest

from fuzzytruth import Annotations, Taxonomy
from fuzzytruth.datasets import santini_illustrative, santini_taxonomy
from fuzzytruth.io import (
    read_annotations,
    read_probabilistic_qrels,
    read_taxonomy,
    write_annotations,
    write_probabilistic_qrels,
    write_taxonomy,
)
from fuzzytruth.uncertain import ProbabilisticQrels

TAX = santini_taxonomy()


@pytest.mark.parametrize("suffix", ["json", "csv", "tsv"])
def test_taxonomy_round_trip(tmp_path, suffix):
    path = tmp_path / f"tax.{suffix}"
    write_taxonomy(TAX, path)
    back = read_taxonomy(path)
    assert back.nodes == TAX.nodes and back.to_edges() == TAX.to_edges()


def test_dag_round_trips_as_edge_list_not_json(tmp_path):
    dag = Taxonomy.from_edges([("r", "a"), ("r", "b"), ("a", "ab"), ("b", "ab")])
    write_taxonomy(dag, tmp_path / "dag.tsv")
    assert read_taxonomy(tmp_path / "dag.tsv").parents("ab") == ("a", "b")
    with pytest.raises(ValueError, match="nested JSON holds trees only"):
        write_taxonomy(dag, tmp_path / "dag.json")


@pytest.mark.parametrize("suffix", ["csv", "tsv", "parquet"])
def test_annotations_round_trip(tmp_path, suffix):
    ann = santini_illustrative().annotations
    path = tmp_path / f"ann.{suffix}"
    write_annotations(ann, path)
    back = read_annotations(path, taxonomy=TAX)
    pd.testing.assert_frame_equal(back.to_frame(), ann.to_frame())


def test_configurable_columns(tmp_path):
    path = tmp_path / "ann.csv"
    path.write_text("# collected 2026\nimage,rater,cat\nx,r1,city\nx,r2,crowd\n")
    ann = read_annotations(path, taxonomy=TAX, item="image", annotator="rater", label="cat")
    assert ann.n_items == 1 and ann.n_annotators == 2


def test_wrong_field_count_names_file_and_line(tmp_path):
    path = tmp_path / "ann.csv"
    path.write_text("item_id,annotator_id,label\nx,s1,city\n# a comment\nx,s2,city,extra\n")
    with pytest.raises(ValueError, match=r"ann.csv, line 4: expected 3 fields .*found 4"):
        read_annotations(path, taxonomy=TAX)


def test_empty_value_names_line(tmp_path):
    path = tmp_path / "ann.tsv"
    path.write_text("item_id\tannotator_id\tlabel\nx\t\tcity\n")
    with pytest.raises(ValueError, match=r"ann.tsv, line 2: empty value in column 'annotator_id'"):
        read_annotations(path, taxonomy=TAX)


def test_missing_header_column_and_empty_file(tmp_path):
    path = tmp_path / "ann.csv"
    path.write_text("item,annotator_id,label\nx,s1,city\n")
    with pytest.raises(
        ValueError, match=r"line 1: header must name the columns.*missing \['item_id'\]"
    ):
        read_annotations(path, taxonomy=TAX)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match=r"empty\.csv: the file is empty"):
        read_taxonomy(empty)


def test_bad_label_error_names_the_file(tmp_path):
    path = tmp_path / "ann.csv"
    path.write_text("item_id,annotator_id,label\nx,s1,citty\n")
    with pytest.raises(ValueError, match=r"ann\.csv, line 2: label 'citty' is not.*'city'"):
        read_annotations(path, taxonomy=TAX)


def test_invalid_json_names_line(tmp_path):
    path = tmp_path / "tax.json"
    path.write_text('{"all": {\n  "people": {},\n  "scenery": {,}\n}}\n')
    with pytest.raises(ValueError, match=r"tax.json, line 3: invalid JSON"):
        read_taxonomy(path)
    path.write_text("[1, 2]")
    with pytest.raises(ValueError, match="expected a JSON object"):
        read_taxonomy(path)


def test_taxonomy_error_names_the_file(tmp_path):
    path = tmp_path / "tax.csv"
    path.write_text("child,parent\nall,\npeople,all\ncrowd,peple\n")
    message = r"tax\.csv, line 4: parent 'peple' of 'crowd' has no row.*'people'.*CSV line 'peple,'"
    with pytest.raises(ValueError, match=message):
        read_taxonomy(path)


def test_unknown_format(tmp_path):
    """A format read from the file name says so (the user named no format); a format given
    by name is checked against the allowed ones."""
    inferred = r"tax\.xml: the format is read from the file name.*\.json, \.csv, \.tsv.*got \.xml"
    with pytest.raises(ValueError, match=inferred):
        read_taxonomy(tmp_path / "tax.xml")
    with pytest.raises(ValueError, match=r"got no suffix"):
        read_taxonomy(tmp_path / "taxonomy")
    with pytest.raises(ValueError, match=r"\.parquet.*got \.xlsx"):
        write_annotations(santini_illustrative().annotations, tmp_path / "a.xlsx")
    with pytest.raises(ValueError, match=r"format must be one of .*'parquet'.*got 'xlsx'"):
        write_annotations(santini_illustrative().annotations, tmp_path / "a.csv", format="xlsx")


def test_annotations_object_is_returned():
    assert isinstance(santini_illustrative().annotations, Annotations)


@pytest.mark.parametrize("suffix", ["csv", "tsv"])
def test_probabilistic_qrels_round_trip(tmp_path, suffix):
    pq = ProbabilisticQrels(["q1", "q1", "q2"], ["a", "b", "a"], [0.6, 1.0, 0.2], [1, 2, 1])
    write_probabilistic_qrels(pq, tmp_path / f"pq.{suffix}")
    back = read_probabilistic_qrels(tmp_path / f"pq.{suffix}")
    pd.testing.assert_frame_equal(back.to_dataframe(), pq.to_dataframe())


def test_probabilistic_qrels_malformed(tmp_path):
    path = tmp_path / "pq.csv"
    path.write_text("query_id,doc_id,probability\nq1,a,high\n")
    with pytest.raises(ValueError, match=r"pq\.csv, line 2: column 'probability' must.*'high'"):
        read_probabilistic_qrels(path)
    path.write_text("query_id,doc_id,probability\nq1,a,1.5\n")
    with pytest.raises(ValueError, match=r"pq\.csv, line 2: .*must be in \[0, 1\]; got .1\.5."):
        read_probabilistic_qrels(path)
    path.write_text("query_id,doc_id\nq1,a\n")
    with pytest.raises(ValueError, match=r"line 1: header must name the columns"):
        read_probabilistic_qrels(path)
