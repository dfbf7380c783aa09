"""Reading and writing partial rankings: selectors JSON and long tables, through the shared
text decoder (compression from the content, byte-order marks, file and line in errors)."""

from __future__ import annotations

import gzip
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth import Taxonomy
from fuzzytruth.io.rankings import Rankings, pair_codes, read_rankings, write_rankings

SELECTORS = [[[[1], [0, 2]], [[2]]], [[[0, 1]]], [[[2], [1]], [[1]], [[0], [2], [1]]]]
CLASSES = ["flu", "cold", "covid"]


@pytest.fixture
def rankings() -> Rankings:
    return Rankings.from_selectors(SELECTORS, classes=CLASSES)


@pytest.mark.parametrize("suffix", ["json", "csv", "tsv", "parquet"])
def test_round_trip(tmp_path, rankings, suffix):
    path = tmp_path / f"r.{suffix}"
    write_rankings(rankings, path)
    back = read_rankings(path, classes=CLASSES)
    assert back.to_selectors() == SELECTORS
    if suffix != "json":  # JSON keeps no item or reader ids: positions come back
        pd.testing.assert_frame_equal(back.to_frame().astype(str),
                                      rankings.to_frame().astype(str))


def test_gzip_content_and_bom_under_a_plain_name(tmp_path):
    path = tmp_path / "sel.json"
    path.write_bytes(gzip.compress(b"\xef\xbb\xbf" + json.dumps(SELECTORS).encode()))
    assert read_rankings(path, classes=CLASSES).to_selectors() == SELECTORS
    table = tmp_path / "long.csv"
    table.write_bytes(gzip.compress(
        b"\xef\xbb\xbfitem_id,reader_id,class,rank_group\n# note\nx,r1,flu,0\nx,r1,cold,1\n"))
    r = read_rankings(table, classes=CLASSES)
    assert r.to_selectors() == [[[[0], [1]]]]
    assert r.to_frame()["item_id"].tolist() == ["x", "x"]


@pytest.mark.parametrize(("body", "message"), [
    ("x,r1,flu,0\nx,r1,flu,1\n", r"line 3: reader 'r1' ranks class 'flu' twice"),
    ("x,r1,flu,0\nx,r1,cold,2\n", r"line 2: the rank groups .* without gaps"),
    ("x,r1,flu,zero\n", r"line 2: rank_group must be an integer >= 0"),
    ("x,r1,flux,0\n", r"line 2: class 'flux' is not a known class"),
    # found by benchmarks/hostile_inputs.py: a group of 1e20 passed the integer check and
    # overflowed the cast to int64 (a RuntimeWarning, then the gap check on garbage)
    ("x,r1,flu,0\nx,r1,cold,1e20\n", r"line 3: rank_group must be an integer >= 0 \(below "
                                      r"2\*\*53\); got '1e20'"),
])
def test_malformed_tables_name_file_and_line(tmp_path, body, message):
    path = tmp_path / "bad.csv"
    path.write_text("item_id,reader_id,class,rank_group\n" + body)
    with pytest.raises(ValueError, match=f"bad.csv, {message}"):
        read_rankings(path, classes=CLASSES)


def test_malformed_json_names_file_and_place(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("[[[[1], [0]]],\n [[[1, 1]]]]")
    # the line where the item starts (issue 23: "item 1, reader 0" alone did not say where)
    with pytest.raises(ValueError, match=r"bad.json, line 2, item 1, reader 0: class 1 appears "
                                         r"twice in one ranking \(items and readers counted "
                                         r"from 0\)$"):
        read_rankings(path, classes=CLASSES)
    path.write_text("[[[[1]]]\n")
    with pytest.raises(ValueError, match=r"bad.json, line 2: invalid JSON"):
        read_rankings(path)
    path.write_text("[[]]")
    with pytest.raises(ValueError, match=r"item 0: no reader ranked anything"):
        read_rankings(path)
    with pytest.raises(ValueError, match="format must be one of"):
        read_rankings(tmp_path / "r.xml")


@pytest.mark.parametrize(("body", "message"), [
    ("[5]", "item 0: expected a list of readers; got 5"),
    ("[[5]]", "item 0, reader 0: expected a list of tie-groups; got 5"),
    ('[[{"a": 1}]]', "item 0, reader 0: expected a list of tie-groups; got {'a': 1}"),
    ("[[[[0], []]]]", "item 0, reader 0: tie-group 1 must be a non-empty list of class ids; "
                      "got []"),
    ("[[[7]]]", "item 0, reader 0: tie-group 0 must be a non-empty list of class ids; got 7"),
])
def test_a_malformed_selector_names_what_it_got(tmp_path, body, message):
    # each message ended "got " with nothing: the value's repr was cut by its first and last
    # characters (5 -> "", [] -> "", {'a': 1} -> "'a': 1")
    path = tmp_path / "bad.json"
    path.write_text(body)
    with pytest.raises(ValueError, match=rf"bad.json, line 1, {re.escape(message)} \(items "):
        read_rankings(path, classes=CLASSES)


def test_annotations_are_top_groups_with_split_votes(rankings):
    ann = rankings.annotations()
    frame = ann.to_frame()
    # item 1's only reader tied flu and cold first: half a vote each
    item1 = frame[frame["item_id"] == 1]
    # (Annotations keep a pair's labels in name order)
    assert item1["label"].tolist() == ["cold", "flu"] and item1["weight"].tolist() == [0.5, 0.5]
    assert len(frame) == 1 + 1 + 2 + 1 + 1 + 1  # top groups only


def test_taxonomy_and_classes():
    tax = Taxonomy.from_nested({"all": {"viral": ["flu", "covid"], "other": ["cold"]}})
    r = Rankings.from_selectors(SELECTORS, classes=CLASSES, taxonomy=tax)
    assert r.classes == tuple(CLASSES)
    with pytest.raises(ValueError, match="not nodes of the taxonomy"):
        Rankings.from_selectors(SELECTORS, classes=["flu", "cold", "measles"], taxonomy=tax)
    assert np.array_equal(r.codes()[1], [0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 2, 2])  # reader in item


@pytest.mark.parametrize("column", ["item_id", "reader_id", "class"])
def test_missing_ids_and_classes_are_refused(column):
    frame = pd.DataFrame({"item_id": [1, 1, 2], "reader_id": ["r", "r", "s"],
                          "class": ["flu", "cold", "flu"], "rank_group": [0, 1, 0]})
    frame[column] = frame[column].astype(object)
    frame.loc[2, column] = None
    # a missing item id was kept and sorted among the others (item 1's rows then came apart:
    # items [1.0, nan, 1.0]), a missing reader became a reader; a missing class (no classes
    # given) was a TypeError from sorting the classes found
    with pytest.raises(ValueError, match=rf"^rankings, row 3: {column} must not be missing; "
                                         r"got None$"):
        Rankings.from_frame(frame)


def test_selectors_refuse_repeated_item_ids():
    # the two items' readers (both reader 0 of an item "x") were merged into one ranking
    # that tied flu and cold, without a word
    with pytest.raises(ValueError, match=r"^items must be distinct ids; got 'x' more than once$"):
        Rankings.from_selectors([[[[0]]], [[[1]]]], classes=CLASSES, items=["x", "x"])
    named = Rankings.from_selectors([[[[0]]], [[[1]]]], classes=CLASSES, items=["x", "y"])
    assert named.to_selectors() == [[[[0]]], [[[1]]]]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"classes": True}, r"^classes must be a sequence of names or their number; got True$"),
    ({"classes": "abc"}, r"^classes must be a sequence of names or their number; got 'abc'$"),
    ({"items": "xy"}, r"^items must be a sequence of ids; got 'xy'$"),
    ({"items": 5}, r"^items must be a sequence of ids; got 5$"),
])
def test_selectors_refuse_classes_and_items_that_are_not_sequences(kwargs, message):
    # a TypeError from len() or pandas, or numpy's IndexError, named no parameter
    with pytest.raises(ValueError, match=message):
        Rankings.from_selectors([[[[0]]], [[[1]]]], **kwargs)
    named = Rankings.from_selectors([[[[0]]], [[[1]]]], classes=np.int64(2),
                                    items=np.array(["x", "y"]))
    assert named.classes == (0, 1) and list(named.items) == ["x", "y"]


def test_durations_are_not_rank_groups():
    # pandas.to_numeric read Timedelta(1 ns) as the group 1: a table of durations was taken
    # as a ranking without a word
    frame = pd.DataFrame({"item_id": ["a", "a"], "reader_id": ["r", "r"], "class": ["x", "y"],
                          "rank_group": [pd.Timedelta(1), pd.Timedelta(0)]})
    with pytest.raises(ValueError, match=r"^rankings: rank_group must be real numbers; got "
                                         r"dates or durations \(timedelta64"):
        Rankings.from_frame(frame)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["r", "s", "1", 1, 2, "é"])),
                max_size=40))
def test_pair_codes_number_pairs_as_factorize_numbers_their_multiindex(pairs):
    """pair_codes (each side factorised, the pairs as one integer) is pandas' numbering of
    the MultiIndex of the pairs it replaced, in order of first appearance; 1 and "1" stay two
    readers, as they were; a pandas string column and a list give the same codes."""
    first = np.array([a for a, _ in pairs], dtype=np.int64)
    second = [b for _, b in pairs]
    got = pair_codes(first, second)
    if not pairs:
        assert got.tolist() == []
        return
    expected = pd.factorize(pd.MultiIndex.from_arrays([first, np.array(second, dtype=object)]))[0]
    assert got.tolist() == expected.tolist()
    if all(isinstance(b, str) for b in second):
        assert pair_codes(first, pd.Series(second, dtype="str")).tolist() == got.tolist()
