"""Every writer of fuzzytruth.io with hostile ids and values (issue 23): it refuses exactly what
its reader would refuse or read back changed, and everything else reads back identical (ids
character for character, numbers bit for bit, -0.0 included).

The refusal rules are restated here from the formats (not imported from the package), so that
a writer that refuses too much fails as surely as one that writes a file its reader changes:

* TREC files: fields are separated by ASCII whitespace (trec_eval's ``isspace``) and a line
  starting with ``#`` is a comment, so an id may not be empty or hold ASCII whitespace, and a
  query id may not start with ``#`` (or a byte-order mark); a relevance must be finite;
* CSV/TSV files: values are stripped of whitespace (``str.strip``), line ends are LF, CRLF or
  CR, and empty or ``#`` lines are dropped, so a value may not be empty, be surrounded by
  whitespace, hold a CR, an empty line (``\\n\\n``) or a line starting with ``#``;
* every taxonomy file holds names as text: two nodes with one ``str`` are refused; JSON
  names may not be blank;
* a CSV/TSV header is one line of names read like values: a wide predictions table's class may
  not break the value rule nor hold a line end, and may not be ``item_id`` (nor may ``class``
  and ``score`` both be classes: the header would read as a long table);
* a ``.npz`` archive holds NumPy text arrays, which drop trailing NUL characters;
* selectors JSON keeps no item or reader ids (its positions come back).
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fuzzytruth import Annotations, Membership, Taxonomy
from fuzzytruth.classify import Predictions
from fuzzytruth.io import (
    read_annotations,
    read_probabilistic_qrels,
    read_taxonomy,
    read_trec_qrels,
    read_trec_qrels_jg,
    read_trec_run,
    write_annotations,
    write_probabilistic_qrels,
    write_taxonomy,
    write_trec_qrels,
    write_trec_qrels_jg,
    write_trec_run,
)
from fuzzytruth.io.predictions import read_predictions, write_predictions
from fuzzytruth.io.rankings import Rankings, read_rankings, write_rankings
from fuzzytruth.runs import Qrels, Run
from fuzzytruth.uncertain import ProbabilisticQrels

ROUND_TRIP = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

#: Names a careless user or an attacker would give: line ends, comment marks, tabs, spaces,
#: unicode separators, quotes, delimiters, numbers in every spelling, a NUL byte.
NASTY = ["0", "-0.0", "0.0", "1e5", "1e308", "NaN", "inf", "a\rb", "a\n#b", "a\n\nb", "a\tb",
         "a b", " a", "a ", "#a", "\ufeffa", "日本語", "a\u2028b", "a\u00a0b", '"', '"a"', "a,b",
         "x\x00y", "\x1c", "a\nb", "a\n b", "\\", "é"]
names = st.one_of(st.sampled_from(NASTY), st.text(min_size=0, max_size=6))
numbers = st.one_of(
    st.sampled_from([-0.0, 0.0, 1e-300, -1e-300, 5e-324, 1e308, -1e308, 2.0**53 + 2, 0.1]),
    st.floats(allow_nan=False, allow_infinity=False),
)
ASCII_SPACE = set(" \t\n\r\f\v")


def trec_id_unreadable(value: str, first: bool = False) -> bool:
    return (value == "" or bool(ASCII_SPACE & set(value))
            or (first and value.startswith(("#", "\ufeff"))))


def table_value_unreadable(value: str) -> bool:
    return (value == "" or value.strip() != value or "\r" in value or "\n\n" in value
            or "\n#" in value)


def same_number(a: float, b: float) -> bool:
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def refused(write, *args, **kwargs) -> bool:
    try:
        write(*args, **kwargs)
    except ValueError as err:
        assert any(why in str(err) for why in ("would not read back", "both written",
                                               "a .npz archive drops")), str(err)
        return True
    return False


def written(bad: bool, write, value, path, **kwargs) -> bool:
    """Write ``value`` to ``path`` (removed first: hypothesis examples share ``tmp_path``);
    the writer must refuse exactly when ``bad``, leaving no file. Whether it wrote."""
    path.unlink(missing_ok=True)
    assert refused(write, value, path, **kwargs) == bad
    if bad:
        assert not path.exists()
    return not bad


# ------------------------------------------------------------------ TREC
@ROUND_TRIP
@given(rows=st.lists(st.tuples(names, names, numbers | st.sampled_from([np.inf, -np.inf])),
                     min_size=1, max_size=8, unique_by=lambda r: (r[0], r[1])),
       tag=names, suffix=st.sampled_from(["txt", "txt.gz", "txt.zst"]))
def test_run_writer_round_trip(tmp_path, rows, tag, suffix):
    run = Run([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows],
              name=tag)
    path = tmp_path / f"run.{suffix}"
    bad = (trec_id_unreadable(tag) or any(trec_id_unreadable(r[0], True) for r in rows)
           or any(trec_id_unreadable(r[1]) for r in rows))
    if not written(bad, write_trec_run, run, path):
        return
    back = read_trec_run(path)
    assert back.name == tag
    got = {(q, d): s for q, d, s in back.to_dataframe().itertuples(index=False)}
    assert set(got) == {(q, d) for q, d, _ in rows}
    assert all(same_number(got[q, d], s) for q, d, s in rows)


@ROUND_TRIP
@given(rows=st.lists(st.tuples(names, names, numbers | st.sampled_from([np.inf, -np.inf])),
                     min_size=1, max_size=8, unique_by=lambda r: (r[0], r[1])),
       group=st.one_of(st.none(), names))
def test_qrels_writers_round_trip(tmp_path, rows, group):
    queries, docs, grades = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
    if not all(np.isfinite(grades)):
        with pytest.raises(ValueError, match="relevance must be finite"):
            Qrels(queries, docs, grades)
        # the public array is read-only (it was writable, and a grade set in it afterwards
        # reached the writer); the writer still refuses a table changed behind its back
        qrels = Qrels(queries, docs, np.zeros(len(rows)))
        with pytest.raises(ValueError, match="read-only"):
            qrels.relevance[:] = grades
        qrels._values = np.asarray(grades, dtype=np.float64)
    else:
        qrels = Qrels(queries, docs, grades)
    bad = (any(trec_id_unreadable(r[0], True) or trec_id_unreadable(r[1]) for r in rows)
           or not all(np.isfinite(r[2]) for r in rows)
           or (group is not None and trec_id_unreadable(group)))
    path = tmp_path / "qrels.txt"
    path.unlink(missing_ok=True)  # examples share tmp_path
    if group is None:
        assert refused(write_trec_qrels, qrels, path) == bad
    else:
        assert refused(write_trec_qrels_jg, {group: qrels}, path) == bad
    if bad:
        assert not path.exists()
        return
    back = read_trec_qrels(path) if group is None else read_trec_qrels_jg(path)[group]
    got = {(q, d): r for q, d, r in back.to_dataframe().itertuples(index=False)}
    assert set(got) == {(q, d) for q, d, _ in rows}
    assert all(same_number(got[q, d], r) for q, d, r in rows)


# ------------------------------------------------------------------ taxonomies
@st.composite
def taxonomies(draw):
    # distinct as text: a taxonomy refuses 1 beside "1" (tests/test_taxonomy.py)
    nodes = draw(st.lists(st.one_of(names, st.integers(-3, 12)), min_size=1, max_size=8,
                          unique_by=str))
    parents = {nodes[0]: None}
    for i, node in enumerate(nodes[1:], start=1):
        parents[node] = nodes[draw(st.integers(0, i - 1))]
    return Taxonomy.from_parents(parents)


@ROUND_TRIP
@given(tax=taxonomies(), suffix=st.sampled_from(["csv", "tsv", "json", "csv.bz2"]))
def test_taxonomy_writer_round_trip(tmp_path, tax, suffix):
    texts = [str(n) for n in tax.nodes]
    if suffix == "json":
        bad = any(not t.strip() for t in texts)
    else:
        bad = any(table_value_unreadable(t) for t in texts)
    path = tmp_path / f"tax.{suffix}"
    if not written(bad, write_taxonomy, tax, path):
        return
    back = read_taxonomy(path)
    assert back.nodes == tuple(texts)
    assert back.to_edges() == [(str(p), str(c)) for p, c in tax.to_edges()]


# ------------------------------------------------------------------ annotations
@ROUND_TRIP
@given(rows=st.lists(st.tuples(names, names, st.sampled_from([*NASTY[:12], "cat"])),
                     min_size=1, max_size=8, unique_by=lambda r: (r[0], r[1])),
       suffix=st.sampled_from(["csv", "tsv", "parquet", "tsv.xz"]))
def test_annotations_writer_round_trip(tmp_path, rows, suffix):
    labels = sorted({r[2] for r in rows})
    assume(all(v != "" for r in rows for v in r))  # Annotations refuses empty ids itself
    tax = Taxonomy.flat(labels, root="(any label)")
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    ann = Annotations.from_frame(frame, taxonomy=tax)
    bad = suffix != "parquet" and any(table_value_unreadable(v) for r in rows for v in r)
    path = tmp_path / f"ann.{suffix}"
    if not written(bad, write_annotations, ann, path):
        return
    back = read_annotations(path, taxonomy=tax).to_frame()[["item_id", "annotator_id", "label"]]
    assert sorted(back.itertuples(index=False, name=None)) == sorted(rows)


def test_annotator_weights_left_out_of_the_table_are_said_to_be(tmp_path):
    # the weights were dropped without a word: the memberships of the table read back
    # differed from the written ones (p(a) 0.5 instead of 0.25 here)
    tax = Taxonomy.flat(["a", "b"])
    frame = pd.DataFrame({"item_id": ["x", "x"], "annotator_id": ["u", "v"], "label": ["a", "b"]})
    weighted = Annotations.from_frame(frame, taxonomy=tax, annotator_weights={"u": 1, "v": 3})
    path = tmp_path / "ann.csv"
    with pytest.warns(UserWarning, match=r"ann\.csv: the annotators' weights are not written "
                      r"\(the table holds item_id, annotator_id, label\); give them again to "
                      r"what is read back: read_annotations\(\.\.\.\)\.with_annotator_weights"):
        write_annotations(weighted, path)
    back = read_annotations(path, taxonomy=tax).with_annotator_weights(weighted.annotator_weights)
    assert Membership.from_annotations(back).probability("x", "a") == 0.25
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # weights of 1 change nothing: no warning
        write_annotations(weighted.with_annotator_weights({"u": 1.0, "v": 1.0}), path)


# ------------------------------------------------------------------ probabilistic qrels
probabilities = st.one_of(st.sampled_from([-0.0, 0.0, 5e-324, 1e-300, 1.0, 0.5]),
                          st.floats(0, 1))
grades = st.one_of(st.sampled_from([1e308, 1e-300, 5e-324, 1.0, 2.0]),
                   st.floats(min_value=5e-324, allow_infinity=False))


@ROUND_TRIP
@given(rows=st.lists(st.tuples(names, names, probabilities, grades), min_size=1, max_size=8,
                     unique_by=lambda r: (r[0], r[1])),
       suffix=st.sampled_from(["csv", "tsv", "csv.zip"]))
def test_probabilistic_qrels_writer_round_trip(tmp_path, rows, suffix):
    q, d, p, g = (list(c) for c in zip(*rows, strict=True))
    pq = ProbabilisticQrels(q, d, p, g)
    bad = any(table_value_unreadable(v) for v in q + d)
    path = tmp_path / f"pq.{suffix}"
    if not written(bad, write_probabilistic_qrels, pq, path):
        return
    back = read_probabilistic_qrels(path).to_dataframe()
    got = {(r.query_id, r.doc_id): (r.probability, r.grade) for r in back.itertuples()}
    assert set(got) == {(a, b) for a, b, _, _ in rows}
    assert all(same_number(got[a, b][0], x) and same_number(got[a, b][1], y)
               for a, b, x, y in rows)


@pytest.mark.parametrize("value", NASTY)
def test_each_nasty_name_is_refused_or_read_back_by_the_table_writer(tmp_path, value):
    # the same rule, value by value (hypothesis may miss a listed one in a short run)
    pq = ProbabilisticQrels([value or "q"], ["d"], [0.5])
    bad = table_value_unreadable(value or "q")
    assert refused(write_probabilistic_qrels, pq, tmp_path / "pq.csv") == bad
    if not bad:
        assert read_probabilistic_qrels(tmp_path / "pq.csv").to_dataframe()["query_id"].tolist() \
            == [value]


# ------------------------------------------------------------------ rankings
@ROUND_TRIP
@given(rows=st.lists(st.tuples(names, names, st.sampled_from([*NASTY[:12], "cat", "dog"])),
                     min_size=1, max_size=8, unique_by=lambda r: (r[0], r[1], r[2])),
       suffix=st.sampled_from(["json", "csv", "tsv", "parquet", "csv.gz", "json.xz"]))
def test_rankings_writer_round_trip(tmp_path, rows, suffix):
    # each reader ranks its classes in the order drawn, one tie-group each
    seen: dict = {}
    records = []
    for i, r, c in rows:
        seen[i, r] = seen.get((i, r), -1) + 1
        records.append((i, r, c, seen[i, r]))
    frame = pd.DataFrame(records, columns=["item_id", "reader_id", "class", "rank_group"])
    classes = sorted({c for _, _, c in rows})
    assume(all(v != "" for r in rows for v in r))
    try:
        rankings = Rankings.from_frame(frame, classes=classes)
    except ValueError:  # not the writer's concern (e.g. two classes with one text)
        assume(False)
    ids = [v for r in rows for v in r]
    bad = suffix.startswith(("csv", "tsv")) and any(table_value_unreadable(v) for v in ids)
    path = tmp_path / f"rankings.{suffix}"
    if not written(bad, write_rankings, rankings, path):
        return
    back = read_rankings(path, classes=classes)
    assert back.to_selectors() == rankings.to_selectors()
    if not suffix.startswith("json"):  # selectors keep no item or reader ids
        pd.testing.assert_frame_equal(back.to_frame(), rankings.to_frame(), check_dtype=False)


# ------------------------------------------------------------------ predictions
def header_unreadable(value: str) -> bool:
    return table_value_unreadable(value) or "\n" in value


@ROUND_TRIP
@given(items=st.lists(names, min_size=1, max_size=4, unique=True),
       classes=st.lists(st.one_of(names, st.sampled_from(["item_id", "class", "score"])),
                        min_size=1, max_size=4, unique=True),
       data=st.data(),
       layout=st.sampled_from(["long", "wide"]),
       suffix=st.sampled_from(["csv", "tsv", "parquet", "npz", "tsv.bz2"]))
def test_predictions_writer_round_trip(tmp_path, items, classes, data, layout, suffix):
    scores = np.array(data.draw(st.lists(numbers, min_size=len(items) * len(classes),
                                         max_size=len(items) * len(classes))),
                      dtype=np.float64).reshape(len(items), len(classes))
    predictions = Predictions(scores, items=items, classes=classes, name="net",
                              probabilities=False)
    text = suffix.startswith(("csv", "tsv"))
    if suffix == "npz":
        bad = any(v.endswith("\x00") for v in items + classes)
    elif layout == "long":
        bad = text and any(table_value_unreadable(v) for v in items + classes)
    else:
        bad = ("item_id" in classes or {"class", "score"} <= set(classes)
               or (text and (any(table_value_unreadable(v) for v in items)
                            or any(header_unreadable(c) for c in classes))))
    path = tmp_path / f"net.{suffix}"
    if not written(bad, write_predictions, predictions, path, layout=layout):
        return
    back = read_predictions(path, probabilities=False)
    assert sorted(back.items) == sorted(items) and sorted(back.classes) == sorted(classes)
    got = back.to_frame().set_index(["item_id", "class"])["score"]  # long tables come sorted
    assert all(same_number(got[i, c], scores[r, k]) for r, i in enumerate(items)
               for k, c in enumerate(classes))


def test_a_judgment_group_named_by_a_nul_keeps_its_rows(tmp_path):
    """Found by the round trip above (group '\\x00'): the reader selected a group's rows with
    ``groups == g``, which numpy evaluates with g made a numpy string, its trailing NULs
    dropped; the group came back with 0 rows, silently."""
    path = tmp_path / "qrels_jg.txt"
    groups = {"\x00": Qrels(["0"], ["0"], [1.0]), "a\x00": Qrels(["0", "1"], ["d", "e"], [2, 0])}
    write_trec_qrels_jg(groups, path)
    back = read_trec_qrels_jg(path)
    assert sorted(back) == ["\x00", "a\x00"]
    for name, qrels in groups.items():
        assert back[name].to_dataframe().equals(qrels.to_dataframe()), repr(name)
