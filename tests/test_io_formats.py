"""Every reader: what trec_eval accepts (extra fields, comments, CRLF, BOM), compression,
encodings, errors with file and line; every writer: round trips (hypothesis) and refusals."""

import bz2
import codecs
import gzip
import lzma
import re
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fuzzytruth import Annotations, Taxonomy
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
from fuzzytruth.io.delimited import read_delimited
from fuzzytruth.io.text import load_text, plain_file
from fuzzytruth.io.trec_columns import RUN_FIELDS, ConsecutiveLines, _read_slow, read_columns
from fuzzytruth.runs import Qrels, Run
from fuzzytruth.uncertain import ProbabilisticQrels

RUN = "q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.5 sys\nq2 Q0 d1 1 0.5 sys\n"
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def scores_of(run):
    frame = run.to_dataframe()
    return sorted(zip(frame["query_id"], frame["doc_id"], frame["score"], strict=True))


# ---------------------------------------------------------------- what trec_eval accepts
@pytest.mark.parametrize(
    "text",
    [
        "# run of 2026-11-22\n" + RUN,  # trec_eval 10's comment lines
        RUN.replace("\n", "\r\n"),  # CRLF
        "\ufeff" + RUN,  # byte-order mark
        RUN.replace(" sys\n", " sys extra fields\n"),  # fields after the run tag
        RUN.replace(" ", "\t").replace("q1\tQ0", "q1  Q0"),  # tabs and repeated spaces
        RUN.replace("q2", "\nq2") + "\n\n",  # blank lines
        RUN.replace("q2", "   \t\nq2"),  # a line of whitespace only
        "\ufeff# all at once\r\n"
        + RUN.replace(" sys\n", "\tsys  x y \r\n").replace(" ", "\t").replace("q2", "  q2"),
    ],
    ids=[
        "comments", "crlf", "bom", "extra-fields", "whitespace", "blank-lines", "spaces-line",
        "all-at-once",
    ],
)
def test_run_reader_accepts_what_trec_eval_accepts(tmp_path, text):
    path = tmp_path / "run.txt"
    path.write_bytes(text.encode("utf-8"))
    plain = tmp_path / "plain.txt"
    plain.write_text(RUN)
    assert scores_of(read_trec_run(path)) == scores_of(read_trec_run(plain))
    assert read_trec_run(path).name == "sys"


@st.composite
def run_lines(draw):
    """A run line, well formed or with one defect: an empty field (two spaces in a row, a
    space at the start or the end), a field missing, fields after the tag, a line of
    whitespace only or an empty one (skipped), or a comment that would read as a line; a
    document id may hold a ``#`` (no comment)."""
    fields = [draw(st.sampled_from(["q1", "q2"])), "Q0",
              draw(st.sampled_from(["d1", "d2", "d3", "d#"])),
              draw(st.sampled_from(["1", "2"])), draw(st.sampled_from(["2.5", "-1", "0"])),
              draw(st.sampled_from(["t", "u"]))]
    defect = draw(st.sampled_from(["none", "none", "empty", "start", "end", "missing", "extra",
                                   "blank", "comment"]))
    if defect == "blank":
        return draw(st.sampled_from(["", " ", "\t ", "   "]))
    at = draw(st.integers(0, 5))
    if defect == "empty":
        fields[at] = ""
        if draw(st.booleans()):  # and a field missing: six fields where the fast reader splits
            del fields[draw(st.integers(0, 5))]
    elif defect == "missing":
        del fields[at]
    elif defect == "extra":
        fields.append("x")
    line = " ".join(fields)
    if defect == "comment":
        return "#" + line
    return " " + line if defect == "start" else line + " " if defect == "end" else line


@SETTINGS
@given(st.lists(run_lines(), min_size=1, max_size=4),
       st.sampled_from([("qid", "docno", "score", "tag"), ("score",), ("docno", "score")]),
       st.booleans())
def test_columns_read_alone_equal_the_line_reader(tmp_path, lines, columns, tag_last):
    # the fast reader splits at every space, and drops no line unless a "#" is in the file: a
    # file is read or refused as the line-by-line reader (the reference, which splits at runs
    # of whitespace after comment and blank lines are dropped) reads or refuses it, whichever
    # fields are asked, with the same line numbers; a field asked for its last row only (a
    # run's tag) is that of the reference's last row
    assume(any(line.strip() and not line.startswith("#") for line in lines))  # else refused
    last = ("tag",) if tag_last and "tag" not in columns else ()
    path = tmp_path / "run.txt"
    path.write_text("".join(line + "\n" for line in lines))
    try:
        every, kept = _read_slow(load_text(path), RUN_FIELDS, "score", True)
        expected = ({f: list(every[f]) for f in columns},
                    {f: list(every[f][-1:]) for f in last}, kept.tolist())
    except ValueError as err:
        expected = str(err)
    try:
        cols, _, kept = read_columns(path, RUN_FIELDS, "score", extra=True, columns=columns,
                                     last=last)
        got = ({f: list(cols[f]) for f in columns}, {f: list(cols[f]) for f in last},
               kept.tolist())
    except ValueError as err:
        got = str(err)
    assert got == expected


@pytest.mark.parametrize("missing", range(6))
@pytest.mark.parametrize("empty", range(6))
def test_an_empty_field_does_not_hide_a_missing_one(tmp_path, missing, empty):
    # five fields and one empty one (two spaces in a row, or one at the start or the end) are
    # six where the fast reader splits at every space: refused, as trec_eval refuses five
    fields = ["q1", "Q0", "d1", "1", "2.5", "t"]
    del fields[missing]
    fields.insert(empty, "")
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d0 1 3 t\n" + " ".join(fields) + "\n")
    with pytest.raises(ValueError, match=r"run\.txt, line 2: expected at least 6 "):
        read_columns(path, RUN_FIELDS, "score", extra=True, columns=("qid", "docno", "score"))


def test_blank_lines_keep_line_numbers_without_comments(tmp_path):
    # no "#" in the file: the fast reader drops no line; a blank one sends the file to the
    # reader that drops it, so rows keep their file lines
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 t\n\nq1 Q0 d2 2 2 t\n\n")
    assert read_columns(path, RUN_FIELDS, "score", extra=True).lines.tolist() == [1, 3]


def test_blank_lines_at_the_end_only_are_parsed_once(tmp_path, monkeypatch):
    # a file ending in blank lines (a common end) is parsed as it is, once, not sent to the
    # slower reader that drops lines; a file of blank lines only is still refused
    from fuzzytruth.io import trec_columns

    calls = []
    parse = trec_columns._read_fast
    monkeypatch.setattr(trec_columns, "_read_fast",
                        lambda *a, **k: calls.append(a) or parse(*a, **k))
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 2 t\n\n\n")
    got = read_columns(path, RUN_FIELDS, "score", extra=True)
    assert (got.lines.tolist(), list(got.columns["docno"]), len(calls)) == ([1, 2], ["d1", "d2"], 1)
    path.write_text("\n\n")
    with pytest.raises(ValueError, match=r"run\.txt: no lines of data"):
        read_columns(path, RUN_FIELDS, "score", extra=True)


@SETTINGS
@given(st.lists(st.sampled_from([b"q1 0 d1 1", b"\n", b"\r", b"#", b"\t", b" ", b"\xc3\xa9",
                                 b"\xef\xbb\xbf", b"\x1f\x8b", b"BZh", b"PK\x03\x04"]),
                max_size=8))
def test_a_plain_file_is_what_load_text_gives_with_nothing_to_drop(tmp_path, parts):
    # the law the disk path rests on: a file plain_file calls plain is the content load_text
    # would give, byte for byte, with no comment line and no blank line at its end
    raw = b"".join(parts)
    path = tmp_path / "f.txt"
    path.write_bytes(raw)
    if plain_file(path, absent=b"\t") is not None:
        text = load_text(path)
        assert text.content == raw and not text.may_have_comments
        assert raw and b"\t" not in raw and not raw.endswith(b"\n\n")


@SETTINGS
@given(st.lists(st.sampled_from([b"q1 0 d1 1", b"\n", b" ", b"  ", b"\x01", b"x"]),
                min_size=1, max_size=10),
       st.integers(1, 4), st.integers(0, 6))
def test_single_spaced_and_last_line_whatever_the_scan_blocks(tmp_path, parts, block, longest):
    # a plain file's spaces are single when no space ends the file and no two bytes in a
    # row, nor the file's first, are at or below the space (a space, a line end, a control
    # byte: that a blank line or control bytes answer False too costs only speed), looked for
    # across the scan's block boundaries; its last line is found from its end unless longer
    # than the bytes read there
    from fuzzytruth.io import text

    raw = b"".join(parts)
    path = tmp_path / "f.txt"
    path.write_bytes(raw)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(text, "_SCAN_BLOCK", block)
        patch.setattr(text, "_LAST_LINE_MAX", longest)
        got = plain_file(path)
    if got is None:
        assume(False)
    line = raw.removesuffix(b"\n").rsplit(b"\n", 1)[-1]
    low_pair = re.search(rb"\A[\x00- ]| \Z|[\x00- ][\x00- ]", raw)
    assert got == (low_pair is None, line.decode() if len(line) <= longest else None)
    if got.single_spaced:  # what the readers rely on
        assert not re.search(rb"^ | $|  ", raw, flags=re.MULTILINE)


def test_a_single_spaced_file_converts_only_what_is_returned(tmp_path, monkeypatch):
    # the fields only checked are not converted when no field can be empty; a run's tag,
    # wanted for its last line only, is read there; a space too many anywhere brings back
    # the conversion of every field (and the check that finds the empty one)
    from fuzzytruth.io import trec_columns

    calls = []
    parse = trec_columns._read_fast
    monkeypatch.setattr(trec_columns, "_read_fast",
                        lambda *a, **k: calls.append(k.get("unconverted")) or parse(*a, **k))
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 2 u\n")
    assert Run.from_trec(path).name == "u"
    path.write_text("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 2 u")
    assert Run.from_trec(path).name == "u"
    assert list(Qrels.from_trec(_qrels_file(tmp_path)).to_dataframe()["relevance"]) == [1.0]
    path.write_text("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2  u\n")
    with pytest.raises(ValueError, match=r"run\.txt, line 2: expected at least 6"):
        Run.from_trec(path)
    assert calls[:4] == [("Q0", "rank", "tag"), ("Q0", "rank", "tag"), ("iter",), ()]


def test_a_single_spaced_file_is_not_searched_for_empty_fields(tmp_path, monkeypatch):
    # plain_file's single spacing rules out an empty field, so the parse's search for one
    # (a pass over every id's length) runs only for a file not known to be single-spaced:
    # there it finds the field two spaces make, and the file is read as whitespace-separated
    from fuzzytruth.io import trec_columns

    searched = []
    search = trec_columns._has_empty_string
    monkeypatch.setattr(trec_columns, "_has_empty_string",
                        lambda column: searched.append(len(column)) or search(column))
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 2 u\n")
    assert Run.from_trec(path).name == "u"
    assert searched == []
    path.write_text("q1 Q0 d1 1 2.5 t\nq1 Q0  d2 2 2 u\n")  # not single-spaced
    run = Run.from_trec(path)
    assert searched
    assert run.doc_ids.tolist() == ["d1", "d2"] and run.scores.tolist() == [2.5, 2.0]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 30), st.data())
def test_consecutive_lines_index_as_their_array(n, data):
    # what the readers hand the constructors instead of numpy.arange(1, n + 1): every index a
    # message or a reader uses (an int, a slice, an int array) gives what the array gives, an
    # index out of range is the array's IndexError, and a mask (no reader's) an IndexError
    lines, array = ConsecutiveLines(n), np.arange(1, n + 1)
    assert len(lines) == n and np.asarray(lines).tolist() == lines.tolist() == array.tolist()
    i = data.draw(st.integers(-n - 2, n + 1))
    if -n <= i < n:
        assert lines[i] == array[i] and lines[np.int64(i)] == array[i]
    else:
        with pytest.raises(IndexError):
            lines[i]
    cut = slice(*data.draw(st.tuples(*[st.one_of(st.none(), st.integers(-n - 2, n + 2))] * 2,
                                     st.sampled_from([None, 1, 2, -1, -3]))))
    assert lines[cut].tolist() == array[cut].tolist()
    picks = np.array(data.draw(st.lists(st.integers(-n - 1, n), max_size=6)), dtype=np.int64)
    if ((picks >= -n) & (picks < n)).all():
        assert lines[picks].tolist() == array[picks].tolist()
    else:
        with pytest.raises(IndexError):
            lines[picks]
    for other in (np.ones(n, dtype=bool), 1.5, "1", None, (0,), (0, 1)):  # no reader's
        with pytest.raises(IndexError, match="indexed by integers"):
            lines[other]
    with pytest.raises(ValueError, match="holds no array"):  # NumPy 2's copy=False
        np.asarray(lines, copy=False)


def test_a_file_parsed_from_disk_names_the_lines_of_its_rows(tmp_path):
    # a plain file's rows are its lines: read without an array of line numbers, an error
    # about two of its rows still names their lines
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq2 Q0 d1 1 2 t\nq1 Q0 d1 3 1 t\n")
    assert isinstance(read_columns(path, RUN_FIELDS, "score").lines, ConsecutiveLines)
    with pytest.raises(ValueError, match=r"run\.txt, line 4: document 'd1' is listed 2 times "
                                         r"for query 'q1' \(lines 1, 4\)"):
        Run.from_trec(path)


def _qrels_file(folder):
    path = folder / "qrels.txt"
    path.write_text("q1 0 d1 1\n")
    return path


@pytest.mark.parametrize("name", ["run.txt", "run.txt.gz"])
def test_a_plain_file_is_parsed_from_disk_never_loaded_whole(tmp_path, monkeypatch, name):
    # the usual file (ASCII, LF, no "#", no tab) is parsed from disk, its content never held;
    # a name that looks compressed does not make pyarrow decompress what is not compressed
    from fuzzytruth.io import trec_columns

    path = tmp_path / name
    path.write_text("q1 Q0 d1 1 2.5 t\nq2 Q0 d2 1 -1 t\n")
    loaded = read_columns(path, RUN_FIELDS, "score", extra=True)
    assert read_columns(path, RUN_FIELDS, "score", extra=True).source == str(path)

    def refuse(*args, **kwargs):
        raise AssertionError("load_text called for a plain file")

    monkeypatch.setattr(trec_columns, "load_text", refuse)
    got = read_columns(path, RUN_FIELDS, "score", extra=True)
    assert {f: list(got.columns[f]) for f in RUN_FIELDS} == {
        "qid": ["q1", "q2"], "Q0": ["Q0", "Q0"], "docno": ["d1", "d2"], "rank": ["1", "1"],
        "score": [2.5, -1.0], "tag": ["t", "t"]}
    assert got.lines.tolist() == loaded.lines.tolist() == [1, 2]


@pytest.mark.parametrize(
    ("module", "read", "text", "name"),
    [
        ("trec_columns", Run.from_trec,
         "".join(f"q1 Q0 d{i} {i} 2.5 t\n" for i in range(1000)), "run.txt"),
        ("delimited", lambda p: read_delimited(p, delimiter=",", required=["item_id"]),
         "item_id,label\n" + "".join(f"i{i},people\n" for i in range(1000)), "labels.csv"),
    ],
)
def test_the_parsers_allocate_from_their_own_pool(tmp_path, monkeypatch, module, read, text,
                                                   name):
    """Both pyarrow CSV parsers take their buffers from parser_pool(): jemalloc where pyarrow
    has it, not the default pool (mimalloc on Linux), whose fresh memory per block cost up
    to a third of the CPU time of a large TREC file (fuzzytruth.io.text.parser_pool)."""
    import importlib

    import pyarrow as pa

    from fuzzytruth.io.text import parser_pool

    try:
        pa.jemalloc_memory_pool()
        assert parser_pool().backend_name == "jemalloc"
    except NotImplementedError:
        assert parser_pool() is pa.default_memory_pool()
    watched = pa.proxy_memory_pool(parser_pool())  # counts what goes through it
    # a buffer freed after its pool is a use after free: the pool outlives this test (a
    # worker once crashed when a cycle holding the parsed table was collected later)
    _PROXY_POOLS.append(watched)
    monkeypatch.setattr(importlib.import_module(f"fuzzytruth.io.{module}"), "parser_pool",
                        lambda: watched)
    path = tmp_path / name
    path.write_text(text)
    read(path)
    assert watched.max_memory() > 0


_PROXY_POOLS: list = []


def test_a_plain_file_the_parser_refuses_is_not_parsed_as_it_is_twice(tmp_path, monkeypatch):
    # a blank line inside a plain file: refused from disk, then read whole without its blank
    # line (two parses, not a third of the same bytes), the rows keeping their file lines
    from fuzzytruth.io import trec_columns

    calls = []
    parse = trec_columns._read_fast
    monkeypatch.setattr(trec_columns, "_read_fast",
                        lambda *a, **k: calls.append(a[0]) or parse(*a, **k))
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 t\n\nq1 Q0 d2 2 2 t\n")
    got = read_columns(path, RUN_FIELDS, "score", extra=True)
    assert (got.lines.tolist(), list(got.columns["docno"])) == ([1, 3], ["d1", "d2"])
    assert len(calls) == 2 and calls[0] == str(path) and not isinstance(calls[1], str)


def test_last_row_fields_must_be_fields_outside_columns(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 t\n")
    with pytest.raises(ValueError, match=r"last must be fields of .* not in columns; got "
                                         r"\('score',\)"):
        read_columns(path, RUN_FIELDS, "score", extra=True, columns=("qid", "score"),
                     last=("score",))


def test_fields_split_on_ascii_whitespace_only_on_both_paths(tmp_path):
    # trec_eval splits on C isspace; a no-break space or U+2028 stays inside an id, whether the
    # file takes pyarrow's fast path (single spaces) or the line reader (tabs)
    odd = "d\u00a01\u2028x"
    fast, slow = tmp_path / "fast.txt", tmp_path / "slow.txt"
    fast.write_text(f"q1 Q0 {odd} 1 2.5 sys\n")
    slow.write_text(f"q1\tQ0\t{odd}\t1\t2.5\tsys\n")
    assert read_trec_run(fast).doc_ids.tolist() == read_trec_run(slow).doc_ids.tolist() == [odd]


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [
        (".gz", gzip.compress),
        (".bz2", bz2.compress),
        (".xz", lzma.compress),
        ("", gzip.compress),  # a gzip file without the suffix: recognised by content
    ],
)
def test_compressed_files(tmp_path, suffix, compress):
    path = tmp_path / f"qrels.txt{suffix}"
    path.write_bytes(compress(b"q1 0 d1 1\nq1 0 d2 0\n"))
    assert read_trec_qrels(path).to_dataframe()["relevance"].tolist() == [1.0, 0.0]
    table = tmp_path / f"labels.csv{suffix}"
    table.write_bytes(compress(b"item_id,annotator_id,label\ni,a,x\ni,b,y\n"))
    assert len(read_annotations(table, taxonomy=None).to_frame()) == 2


def test_zip_with_one_file_and_with_two(tmp_path):
    path = tmp_path / "qrels.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("qrels.txt", "q1 0 d1 1\n")
    assert len(read_trec_qrels(path).to_dataframe()) == 1
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("other.txt", "x")
    with pytest.raises(ValueError, match=r"qrels\.zip: a zip archive must hold exactly one file"):
        read_trec_qrels(path)


def test_broken_gzip_names_the_file(tmp_path):
    path = tmp_path / "labels.csv.gz"
    path.write_bytes(gzip.compress(b"item_id,annotator_id,label\n" * 100)[:30])
    with pytest.raises(ValueError, match=r"labels\.csv\.gz: cannot decompress this gzip file"):
        read_annotations(path, taxonomy=None)


@pytest.mark.parametrize("bom", [codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE])
def test_byte_order_marks_alike_in_every_format(tmp_path, bom):
    encoding = {codecs.BOM_UTF8: "utf-8", codecs.BOM_UTF16_LE: "utf-16-le"}.get(bom, "utf-16-be")
    files = {
        "run.txt": RUN,
        "labels.csv": "item_id,annotator_id,label\nimage,a,café\nimage,b,café\n",
        "tax.csv": "child,parent\nall,\ncafé,all\n",
        "tax.json": '{"all": {"café": {}}}',
        "pq.tsv": "query_id\tdoc_id\tprobability\nq\td\t0.5\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_bytes(bom + text.encode(encoding))
    assert read_trec_run(tmp_path / "run.txt").name == "sys"
    tax = read_taxonomy(tmp_path / "tax.csv")
    assert read_taxonomy(tmp_path / "tax.json").nodes == tax.nodes == ("all", "café")
    assert read_annotations(tmp_path / "labels.csv", taxonomy=tax).n_annotators == 2
    assert read_probabilistic_qrels(tmp_path / "pq.tsv").probability.tolist() == [0.5]


def test_non_utf8_bytes_name_file_and_line_in_every_format(tmp_path):
    cases = {
        "run.txt": (b"q1 Q0 d1 1 2.5 sys\nq1 Q0 d\xe9 2 1.5 sys\n", read_trec_run),
        "qrels.txt": (b"q1 0 d1 1\nq1 0 d\xe9 1\n", read_trec_qrels),
        "labels.csv": (
            b"item_id,annotator_id,label\ni,a,x\ni,b,caf\xe9\n",
            lambda p: read_annotations(p, taxonomy=None),
        ),
        "tax.json": (b'{"all":\n {"caf\xe9": {}}}', read_taxonomy),
    }
    for name, (data, reader) in cases.items():
        (tmp_path / name).write_bytes(data)
        line = data.count(b"\n", 0, data.index(b"\xe9")) + 1
        with pytest.raises(
            ValueError, match=rf"{name}, line {line}: bytes b'\\xe9.*not valid utf-8.*encoding"
        ):
            reader(tmp_path / name)
    labels = read_annotations(tmp_path / "labels.csv", taxonomy=None, encoding="latin-1")
    assert "café" in labels.taxonomy


def test_quoted_values_spanning_lines_keep_line_numbers(tmp_path):
    path = tmp_path / "judgments.csv"
    path.write_text(
        'item_id,annotator_id,label,body\n'
        'd1,w1,yes,"<p>one</p>\n<p>two</p>"\n'
        'd1,w2,no,"<p>three</p>\n\n<p>four</p>"\n'
        "d2,w1,maybee,short\n"
    )
    with pytest.raises(ValueError, match=r"judgments\.csv, line 7: label 'maybee' is not"):
        read_annotations(path, taxonomy=Taxonomy.flat(["no", "maybe", "yes"]))
    frame = read_annotations(path, taxonomy=None).to_frame()
    assert frame["label"].tolist() == ["yes", "no", "maybee"]


def test_comment_and_blank_lines_keep_line_numbers(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("# made by hand\nitem_id,annotator_id,label\n\ni,a,x\n# note\ni,b,\n")
    with pytest.raises(ValueError, match=r"labels\.csv, line 6: empty value in column 'label'"):
        read_annotations(path, taxonomy=None)
    text = load_text(path)
    assert text.lines.tolist() == [2, 4, 6]


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "NaN"])
def test_non_finite_relevance_names_file_and_line(tmp_path, value):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"q1 0 d1 1\nq1 0 d2 {value}\n")
    shown = repr(float(value))  # the number as read, not numpy's repr of it
    with pytest.raises(ValueError, match=rf"qrels\.txt, line 2: field 'rel' must be a finite "
                                         rf"number; got {shown}$"):
        read_trec_qrels(qrels)
    with pytest.raises(ValueError, match=r"line 2: field 'rel' must be a finite"):
        read_trec_qrels_jg(qrels)
    pq = tmp_path / "pq.csv"
    pq.write_text(f"query_id,doc_id,probability,grade\nq,d,0.5,1\nq,e,0.5,{value}\n")
    with pytest.raises(ValueError, match=r"pq\.csv, line 3: column 'grade' must hold finite"):
        read_probabilistic_qrels(pq)


def test_nan_score_names_file_and_line(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 nan sys\n")
    with pytest.raises(ValueError, match=r"run\.txt, line 2: field 'score' must not be NaN"):
        read_trec_run(path)


# ---------------------------------------------------------------- writers refuse
@pytest.mark.parametrize(
    ("run", "message"),
    [
        (Run(["q1"], ["d1"], [1.0], name="BM25 + RM3"), r"run tag 'BM25 \+ RM3'.*'BM25_\+_RM3'"),
        (Run(["q1"], ["d 1"], [1.0], name="x"), r"document id 'd 1'"),
        # the example drops the '#' (it suggested '#q' itself)
        (Run(["#q"], ["d1"], [1.0], name="x"), r"query id '#q'.*leading '#', e\.g\. 'q'$"),
        (Run(["# q"], ["d1"], [1.0], name="x"), r"query id '# q'.*, e\.g\. '_q'$"),
        (Run(["q1"], ["d1"], [1.0], name=""), r"run tag ''"),
    ],
)
def test_run_writer_refuses_ids_that_would_not_read_back(tmp_path, run, message):
    with pytest.raises(ValueError, match=message):
        write_trec_run(run, tmp_path / "run.txt")
    assert not (tmp_path / "run.txt").exists()


def test_table_writers_refuse_or_quote(tmp_path):
    tax = Taxonomy.flat(["x"])
    frame = pd.DataFrame({"item_id": [" i"], "annotator_id": ["a"], "label": ["x"]})
    with pytest.raises(ValueError, match=r"item_id ' i' would not read back"):
        write_annotations(Annotations.from_frame(frame, taxonomy=tax), tmp_path / "a.csv")
    frame = pd.DataFrame({"item_id": ["#1", "#1"], "annotator_id": ["a", "b"], "label": "x"})
    write_annotations(Annotations.from_frame(frame, taxonomy=tax), tmp_path / "a.csv")
    assert (tmp_path / "a.csv").read_text().splitlines()[1] == '"#1","a","x"'
    assert read_annotations(tmp_path / "a.csv", taxonomy=tax).n_annotators == 2


def test_qrels_writers_refuse_spaces(tmp_path):
    with pytest.raises(ValueError, match=r"document id 'a b'"):
        write_trec_qrels(Qrels(["q"], ["a b"], [1.0]), tmp_path / "q.txt")
    with pytest.raises(ValueError, match=r"iteration 'x y'"):
        write_trec_qrels(Qrels(["q"], ["a"], [1.0]), tmp_path / "q.txt", iteration="x y")


# ---------------------------------------------------------------- round trips (hypothesis)
ids = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
    min_size=1,
    max_size=8,
).filter(lambda s: not s.startswith(("#", "\ufeff")) and not any(c.isspace() for c in s))
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@SETTINGS
@given(rows=st.lists(st.tuples(ids, ids, finite), min_size=1, max_size=20,
                     unique_by=lambda r: (r[0], r[1])), tag=ids)
def test_run_round_trip(tmp_path, rows, tag):
    q, d, s = zip(*rows, strict=True)
    run = Run(list(q), list(d), list(s), name=tag)
    write_trec_run(run, tmp_path / "run.txt")
    back = read_trec_run(tmp_path / "run.txt")
    assert back.name == tag and scores_of(back) == scores_of(run)


@SETTINGS
@given(rows=st.lists(st.tuples(ids, ids, st.integers(-3, 5) | finite), min_size=1, max_size=20,
                     unique_by=lambda r: (r[0], r[1])))
def test_qrels_round_trip(tmp_path, rows):
    q, d, r = zip(*rows, strict=True)
    qrels = Qrels(list(q), list(d), [float(x) for x in r])
    write_trec_qrels(qrels, tmp_path / "qrels.txt")
    back = read_trec_qrels(tmp_path / "qrels.txt")
    pd.testing.assert_frame_equal(back.to_dataframe(), qrels.to_dataframe())


@SETTINGS
@given(groups=st.dictionaries(ids, st.lists(st.tuples(ids, ids, st.integers(0, 3)), min_size=1,
                                            max_size=5, unique_by=lambda r: (r[0], r[1])),
                              min_size=1, max_size=3))
def test_judgment_group_round_trip(tmp_path, groups):
    qrels = {
        g: Qrels([r[0] for r in rows], [r[1] for r in rows], [float(r[2]) for r in rows])
        for g, rows in groups.items()
    }
    write_trec_qrels_jg(qrels, tmp_path / "qrels.jg")
    back = read_trec_qrels_jg(tmp_path / "qrels.jg")
    assert sorted(back) == sorted(qrels)
    for g, q in qrels.items():
        pd.testing.assert_frame_equal(back[g].to_dataframe(), q.to_dataframe())


csv_ids = st.text(alphabet="#abcxyzé_-.0123456789 ,\"'", min_size=1, max_size=6).filter(
    lambda s: s.strip() == s
)


@SETTINGS
@given(
    rows=st.lists(st.tuples(csv_ids, csv_ids, st.sampled_from(["cat", "dog", "animal"])),
                  min_size=1, max_size=15, unique_by=lambda r: (r[0], r[1])),
    suffix=st.sampled_from(["csv", "tsv", "parquet", "csv.gz"]),
)
def test_annotations_round_trip(tmp_path, rows, suffix):
    tax = Taxonomy.from_parents({"cat": "animal", "dog": "animal"})
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    ann = Annotations.from_frame(frame, taxonomy=tax)
    path = tmp_path / f"labels.{suffix}"
    if suffix == "csv.gz":
        write_annotations(ann, tmp_path / "plain.csv")
        path.write_bytes(gzip.compress((tmp_path / "plain.csv").read_bytes()))
    else:
        write_annotations(ann, path)
    back = read_annotations(path, taxonomy=tax)
    columns = ["item_id", "annotator_id", "label"]
    pd.testing.assert_frame_equal(
        back.to_frame()[columns].astype(str), ann.to_frame()[columns].astype(str)
    )


@SETTINGS
@given(
    rows=st.lists(st.tuples(csv_ids, csv_ids, st.floats(0, 1), st.integers(1, 3)),
                  min_size=1, max_size=15, unique_by=lambda r: (r[0], r[1])),
    suffix=st.sampled_from(["csv", "tsv"]),
)
def test_probabilistic_qrels_round_trip(tmp_path, rows, suffix):
    q, d, p, g = zip(*rows, strict=True)
    pq = ProbabilisticQrels(list(q), list(d), list(p), list(g))
    write_probabilistic_qrels(pq, tmp_path / f"pq.{suffix}")
    back = read_probabilistic_qrels(tmp_path / f"pq.{suffix}")
    pd.testing.assert_frame_equal(back.to_dataframe(), pq.to_dataframe())


@SETTINGS
@given(
    children=st.lists(csv_ids, min_size=1, max_size=6, unique=True),
    suffix=st.sampled_from(["json", "csv", "tsv"]),
)
def test_taxonomy_round_trip(tmp_path, children, suffix):
    names = [c for c in children if c not in ("root", "mid")]
    if not names:
        return
    parents = {"mid": "root", **{c: ("mid" if i % 2 else "root") for i, c in enumerate(names)}}
    tax = Taxonomy.from_parents(parents)
    write_taxonomy(tax, tmp_path / f"tax.{suffix}")
    back = read_taxonomy(tmp_path / f"tax.{suffix}")
    assert back.nodes == tax.nodes and back.to_edges() == tax.to_edges()



separators = st.sampled_from([" ", "\t", "  ", " \t ", "\t\t"])


@SETTINGS
@given(
    rows=st.lists(st.tuples(ids, ids, finite), min_size=1, max_size=12,
                  unique_by=lambda r: (r[0], r[1])),
    layout=st.lists(st.tuples(separators, separators, st.sampled_from(["", " x", "\tx y"]),
                              st.sampled_from(["", " ", "\t"]), st.sampled_from(["\n", "\r\n"])),
                    min_size=12, max_size=12),
)
def test_any_whitespace_layout_reads_as_the_canonical_file(tmp_path, rows, layout):
    # the bulk normaliser (tabs, repeated spaces, CRLF, extra fields) against the plain layout
    canonical = "".join(f"{q} Q0 {d} 1 {s!r} tag\n" for q, d, s in rows)
    messy = "".join(
        f"{lead}{q}{a}Q0{b}{d}{a}1{b}{s!r}{a}tag{extra}{lead}{end}"
        for (q, d, s), (a, b, extra, lead, end) in zip(rows, layout, strict=False)
    )
    (tmp_path / "canonical.txt").write_text(canonical)
    (tmp_path / "messy.txt").write_bytes(messy.encode())
    expected = scores_of(read_trec_run(tmp_path / "canonical.txt"))
    assert scores_of(read_trec_run(tmp_path / "messy.txt")) == expected
