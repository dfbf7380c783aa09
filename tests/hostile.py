"""Hostile inputs for every reader of fuzzytruth.io, and the law they must obey.

Shared by ``tests/test_hostile_inputs.py`` (a few dozen examples per format, in the suite) and
``benchmarks/hostile_inputs.py`` (hundreds per format, outcomes tallied for the record).

Each format has a small valid file (:data:`FORMATS`); :func:`mutated` draws a hostile variant:
truncation, byte flips, inserted bytes, a field removed or added, NaN / inf / huge / negative
numbers, a line repeated, an empty file, comments only, binary garbage, a very long line, ids
with spaces, tabs and unicode, other line ends, and every compression (of the valid or of the
mutated content, whole or truncated).

The law (:func:`outcome`): a reader returns an object, or raises one ``ValueError`` whose
message is one line starting with the file's name (``"<path>: ..."`` or ``"<path>, line <n>:
..."``); never another exception type. Where an independent reading exists (TREC columns,
delimited tables: :func:`reference_trec`, :func:`reference_table`, written from the format's
rules with Python's ``str.split`` and ``csv`` modules), a read must also agree with it, value
for value, and an error must be one the reference also finds: never a silent wrong read.
"""

from __future__ import annotations

import bz2
import codecs
import csv
import gzip
import io
import lzma
import re
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import strategies as st

from fuzzytruth import Taxonomy
from fuzzytruth.displacement import read_answers
from fuzzytruth.displacement import read_runs as read_displacement_runs
from fuzzytruth.io import (
    read_annotations,
    read_probabilistic_qrels,
    read_rankings,
    read_trec_judgments,
    read_trec_prefs,
    read_trec_qrels,
    read_trec_qrels_jg,
    read_trec_qrels_prefs,
    read_trec_run,
    read_trec_zscores,
)
from fuzzytruth.io.predictions import read_predictions
from fuzzytruth.io.prefs import PREFS_FIELDS
from fuzzytruth.io.tables import (
    read_delimited,
    read_query_categories,
    read_table,
    read_taxonomy,
)
from fuzzytruth.io.trec_columns import QRELS_FIELDS, RUN_FIELDS, read_columns

TAXONOMY = Taxonomy.from_nested(
    {"all": {"people": ["single", "crowd"], "scenery": ["city", "nature"]}}
)


def _parquet(frame: pd.DataFrame) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), sink)
    return sink.getvalue()


@dataclass(frozen=True)
class Format:
    """A file format: its name, a file suffix, a valid file, the public reader, and the
    lower-level parse an independent reference can check (or None)."""

    name: str
    suffix: str
    valid: bytes
    read: Callable[[Path], Any]
    parse: Callable[[Path], Any] | None = None
    reference: Callable[[bytes], Any] | None = None


RUN = (
    b"# BM25, 2026\nq1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.5 sys\nq2 Q0 d1 1 0.5 sys\n"
    b"q2 Q0 d3 2 -1e-3 sys extra\n"
)
QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\nq2 0 d3 -1\n"
QRELS_JG = b"q1 a1 d1 1\nq1 a2 d1 0\nq2 a1 d3 1\nq2 a2 d3 2\n"
TAX_CSV = (
    b"child,parent\nall,\npeople,all\nsingle,people\ncrowd,people\nscenery,all\ncity,scenery\n"
)
ANN_CSV = b"item_id,annotator_id,label\ni1,a,people\ni1,b,crowd\ni2,a,scenery\ni2,b,city\n"
PQ_CSV = b"query_id,doc_id,probability,grade\nq1,d1,0.5,1\nq1,d2,1,2\nq2,d1,0,1\n"
CATEGORIES = b"query_id,category\nq1,people\nq2,scenery\n"
TABLE = b"query_id\titem\trank\nq1\ta\t1\nq1\tb\t2\nq2\ta\t1\n"
PREFS = b"q1 u1 s1 d1 3\nq1 u1 s1 d2 1.5\nq1 u2 s1 d2 0\nq2 u1 s2 d3 -1\n"
ZSCORES = b"301 map 0.0949 0.1053\n301\tP_10 0.42 0.3068\n302 set_F nan nan\n"
SELECTORS = b"[[[[1], [0, 2]], [[2]]],\n [[[0, 1]]],\n [[[2], [1]], [[1]]]]\n"
CLASSES = ["flu", "cold", "covid"]
RANKINGS_COLUMNS = ["item_id", "reader_id", "class", "rank_group"]
RANKINGS_CSV = (b"item_id,reader_id,class,rank_group\nx,r1,cold,0\nx,r1,flu,1\nx,r1,covid,1\n"
                b"x,r2,covid,0\ny,r1,flu,0\ny,r1,cold,0\n")
PREDICTIONS_LONG = (b"item_id,class,score\nx,cat,0.9\nx,dog,0.1\ny,cat,0.25\ny,dog,0.75\n"
                    b"z,cat,1e-300\nz,dog,1\n")
PREDICTIONS_WIDE = b"item_id,cat,dog\nx,0.9,0.1\ny,0.25,0.75\nz,-0.0,1\n"
ANSWERS = (b"query_id,annotator_id,item_id,rank,relevance\nq1,ann1,a,1,1.0\nq1,ann1,b,2,0.5\n"
           b"q1,ann2,b,1,1\nq2,ann1,c,1,0.25\n")
DISPLACEMENT_RUNS = b"system,query_id,item_id,rank\nS,q1,b,1\nS,q1,a,2\nT,q1,a,1\nS,q2,c,1\n"


def _npz(wide: bytes) -> bytes:
    """The wide predictions as an ``.npz`` archive (scores, classes, items)."""
    frame = pd.read_csv(io.BytesIO(wide))
    sink = io.BytesIO()
    np.savez(sink, scores=frame[["cat", "dog"]].to_numpy(), classes=np.array(["cat", "dog"]),
             items=frame["item_id"].to_numpy(dtype=str))
    return sink.getvalue()


def _columns(fields: tuple[str, ...], numeric: str, extra: bool) -> Callable[[Path], Any]:
    def parse(path: Path) -> list[tuple]:
        cols, _, _ = read_columns(path, fields, numeric, extra=extra)
        return list(zip(*(list(cols[f]) for f in fields), strict=True))

    return parse


def _delimited(delimiter: str, required: list[str]) -> Callable[[Path], Any]:
    def parse(path: Path) -> list[tuple]:
        frame = read_delimited(path, delimiter=delimiter, required=required)
        return list(frame.itertuples(index=False, name=None))

    return parse


FORMATS = {
    f.name: f
    for f in [
        Format("trec_run", "run.txt", RUN, read_trec_run, _columns(RUN_FIELDS, "score", True),
               lambda b: reference_trec(b, RUN_FIELDS, "score", extra=True)),
        Format("trec_qrels", "qrels.txt", QRELS, read_trec_qrels,
               _columns(QRELS_FIELDS, "rel", False),
               lambda b: reference_trec(b, QRELS_FIELDS, "rel", extra=False)),
        Format("trec_qrels_jg", "qrels.jg", QRELS_JG, read_trec_qrels_jg,
               _columns(QRELS_FIELDS, "rel", False),
               lambda b: reference_trec(b, QRELS_FIELDS, "rel", extra=False)),
        Format("taxonomy_json", "tax.json",
               b'{"all": {"people": ["single", "crowd"], "scenery": {"city": {}}}}\n',
               read_taxonomy),
        Format("taxonomy_csv", "tax.csv", TAX_CSV, read_taxonomy,
               _delimited(",", ["child", "parent"]),
               lambda b: reference_table(b, ",", ["child", "parent"])),
        Format("taxonomy_tsv", "tax.tsv", TAX_CSV.replace(b",", b"\t"), read_taxonomy),
        Format("annotations_csv", "ann.csv", ANN_CSV,
               lambda p: read_annotations(p, taxonomy=TAXONOMY),
               _delimited(",", ["item_id", "annotator_id", "label"]),
               lambda b: reference_table(b, ",", ["item_id", "annotator_id", "label"])),
        Format("annotations_tsv", "ann.tsv", ANN_CSV.replace(b",", b"\t"),
               lambda p: read_annotations(p, taxonomy=None),
               _delimited("\t", ["item_id", "annotator_id", "label"]),
               lambda b: reference_table(b, "\t", ["item_id", "annotator_id", "label"])),
        Format("annotations_parquet", "ann.parquet",
               _parquet(pd.read_csv(io.BytesIO(ANN_CSV))),
               lambda p: read_annotations(p, taxonomy=TAXONOMY)),
        Format("prob_qrels_csv", "pq.csv", PQ_CSV, read_probabilistic_qrels),
        Format("prob_qrels_tsv", "pq.tsv", PQ_CSV.replace(b",", b"\t"),
               read_probabilistic_qrels),
        Format("query_categories", "categories.csv", CATEGORIES, read_query_categories),
        Format("table_tsv", "answers.tsv", TABLE,
               lambda p: read_table(p, required=["query_id", "item"], numeric=["rank"])),
        Format("trec_prefs", "prefs.txt", PREFS, read_trec_prefs,
               _columns(PREFS_FIELDS, "rel", False),
               lambda b: reference_trec(b, PREFS_FIELDS, "rel", extra=False)),
        Format("trec_qrels_prefs", "qrels.prefs", QRELS, read_trec_qrels_prefs,
               _columns(QRELS_FIELDS, "rel", False),
               lambda b: reference_trec(b, QRELS_FIELDS, "rel", extra=False)),
        Format("trec_judgments_prefs", "judgments.txt", PREFS,
               lambda p: read_trec_judgments(p, rel_format="prefs")),
        Format("trec_zscores", "zscores.txt", ZSCORES, read_trec_zscores),
        Format("rankings_json", "sel.json", SELECTORS,
               lambda p: read_rankings(p, classes=CLASSES)),
        Format("rankings_csv", "rankings.csv", RANKINGS_CSV,
               lambda p: read_rankings(p, classes=CLASSES),
               _delimited(",", RANKINGS_COLUMNS),
               lambda b: reference_table(b, ",", RANKINGS_COLUMNS)),
        Format("rankings_parquet", "rankings.parquet",
               _parquet(pd.read_csv(io.BytesIO(RANKINGS_CSV))), read_rankings),
        Format("predictions_long_csv", "net.csv", PREDICTIONS_LONG, read_predictions,
               _delimited(",", ["item_id", "class", "score"]),
               lambda b: reference_table(b, ",", ["item_id", "class", "score"])),
        Format("predictions_wide_tsv", "net.tsv", PREDICTIONS_WIDE.replace(b",", b"\t"),
               read_predictions),
        Format("predictions_parquet", "net.parquet",
               _parquet(pd.read_csv(io.BytesIO(PREDICTIONS_LONG))), read_predictions),
        Format("predictions_npz", "net.npz", _npz(PREDICTIONS_WIDE), read_predictions),
        Format("displacement_answers", "answers.csv", ANSWERS, read_answers,
               _delimited(",", ["query_id", "annotator_id", "item_id", "rank", "relevance"]),
               lambda b: reference_table(
                   b, ",", ["query_id", "annotator_id", "item_id", "rank", "relevance"])),
        Format("displacement_runs", "druns.tsv", DISPLACEMENT_RUNS.replace(b",", b"\t"),
               read_displacement_runs),
    ]
}


# ------------------------------------------------------------------ references
def _decoded(data: bytes) -> str:
    """The text a reader sees: decompressed, byte-order mark, UTF-8, universal newlines.
    Raises ValueError (any reason) where the readers must refuse the bytes."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    elif data[:3] == b"BZh":
        data = bz2.decompress(data)
    elif data[:6] == b"\xfd7zXZ\x00":
        data = lzma.decompress(data)
    elif data[:4] == b"\x28\xb5\x2f\xfd":
        with pa.input_stream(pa.BufferReader(data), compression="zstd") as stream:
            data = stream.read()
    elif data[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            (name,) = [n for n in archive.namelist() if not n.endswith("/")]
            data = archive.read(name)
    for bom, encoding in ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                          (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                          (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom):].decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _content_lines(text: str) -> list[str]:
    """Lines that are neither empty nor comments (a ``#`` first)."""
    return [line for line in text.split("\n") if line and not line.startswith("#")]


_NUMBER = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.I
)


def reference_trec(data: bytes, fields: tuple[str, ...], numeric: str, *, extra: bool) -> Any:
    """The rows of a TREC file by its rules (trec_eval's ``isspace`` separators, lines of
    whitespace only skipped), or the string "error"."""
    try:
        text = _decoded(data)
    except Exception:  # any reason a decompressor or decoder gives: the readers must refuse
        return "error"
    rows = []
    for line in _content_lines(text):
        parts = re.split(r"[ \t\n\r\f\v]+", line.strip(" \t\n\r\f\v"))
        if parts == [""]:
            continue
        if len(parts) < len(fields) or (len(parts) > len(fields) and not extra):
            return "error"
        parts = parts[: len(fields)]
        raw = parts[fields.index(numeric)]
        if not _NUMBER.fullmatch(raw):
            return "error"
        value = float(raw)
        if np.isnan(value) or (np.isinf(value) and (numeric != "score" or "n" not in raw.lower())):
            return "error"
        parts[fields.index(numeric)] = value
        rows.append(tuple(parts))
    return rows or "error"  # a file without data is refused


def reference_table(data: bytes, delimiter: str, required: list[str]) -> Any:
    """The rows of a delimited table by Python's csv module (values stripped; the header
    naming ``required``; an empty required value, a short or long record or a quote never
    closed refused), or the string "error"."""
    try:
        text = _decoded(data)
    except Exception:  # any reason a decompressor or decoder gives: the readers must refuse
        return "error"
    kept = "".join(line + "\n" for line in _content_lines(text))
    if not kept:
        return "error"
    csv.field_size_limit(max(csv.field_size_limit(), len(kept) + 1))  # a value may be long
    try:
        records = list(csv.reader(io.StringIO(kept, newline=""), delimiter=delimiter, strict=True))
    except csv.Error as err:
        if "end of data" in str(err):
            return "error"
        records = list(csv.reader(io.StringIO(kept, newline=""), delimiter=delimiter))
    header = [h.strip() for h in records[0]]
    if len(set(header)) != len(header) or any(c not in header for c in required):
        return "error"
    rows = []
    for record in records[1:]:
        if len(record) != len(header):
            return "error"
        values = tuple(v.strip() for v in record)
        if any(values[header.index(c)] == "" for c in required):
            return "error"
        rows.append(values)
    return rows or "error"  # a header without rows is refused


# ------------------------------------------------------------------ mutations
HOSTILE_IDS = ["d 1", "d\t1", "dé\u00a0x", "\u2028", "日本", "", "#x", "\ufeffq", '"q"', "q,1",
               "a" * 300, "1e400", "-0", "\x00", "q\rx"]
HOSTILE_NUMBERS = ["nan", "NaN", "inf", "-inf", "1e400", "-1e400", "1e-400", "-5", "1" * 400,
                   "0x10", "1_000", "١", "", "1e", "+.5"]
COMPRESSIONS = ["gzip", "bz2", "xz", "zstd", "zip"]


def compress(data: bytes, kind: str) -> bytes:
    if kind == "gzip":
        return gzip.compress(data, mtime=0)
    if kind == "bz2":
        return bz2.compress(data)
    if kind == "xz":
        return lzma.compress(data)
    if kind == "zstd":
        return pa.compress(data, codec="zstd", asbytes=True)
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("data", data)
    return sink.getvalue()


def _split_fields(line: bytes) -> list[bytes]:
    return re.split(rb"([ \t,]+)", line)


@st.composite
def mutation(draw: st.DrawFn, data: bytes) -> tuple[str, bytes]:
    """One hostile change of ``data``: its name and the new bytes."""
    kind = draw(st.sampled_from([
        "truncate", "flip", "insert", "drop_field", "add_field", "number", "duplicate",
        "empty", "comments_only", "garbage", "long_line", "id", "line_ends", "compress",
    ]))
    lines = data.split(b"\n")
    i = draw(st.integers(0, max(len(lines) - 1, 0)))
    if kind == "truncate":
        return kind, data[: draw(st.integers(0, max(len(data) - 1, 0)))]
    if kind == "flip":
        out = bytearray(data)
        for _ in range(draw(st.integers(1, 3))):
            if out:
                at = draw(st.integers(0, len(out) - 1))
                out[at] ^= draw(st.integers(1, 255))
        return kind, bytes(out)
    if kind == "insert":
        at = draw(st.integers(0, len(data)))
        return kind, data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    if kind in ("drop_field", "add_field", "number", "id"):
        parts = _split_fields(lines[i])
        tokens = list(range(0, len(parts), 2))
        if not tokens:
            return kind, data
        j = draw(st.sampled_from(tokens))
        if kind == "drop_field":
            parts[j : j + 2] = []
        elif kind == "add_field":
            parts[j:j] = [b"extra", b" " if b"," not in lines[i] else b","]
        elif kind == "number":
            parts[j] = draw(st.sampled_from(HOSTILE_NUMBERS)).encode()
        else:
            parts[j] = draw(st.sampled_from(HOSTILE_IDS)).encode()
        lines[i] = b"".join(parts)
        return kind, b"\n".join(lines)
    if kind == "duplicate":
        return kind, b"\n".join([*lines[: i + 1], lines[i], *lines[i + 1 :]])
    if kind == "empty":
        return kind, b""
    if kind == "comments_only":
        return kind, b"# nothing here\n#\n" * draw(st.integers(1, 3))
    if kind == "garbage":
        return kind, draw(st.binary(min_size=1, max_size=64))
    if kind == "long_line":
        lines[i] = lines[i] + b"x" * draw(st.sampled_from([10_000, 200_000]))
        return kind, b"\n".join(lines)
    if kind == "line_ends":
        end = draw(st.sampled_from([b"\r\n", b"\r"]))
        return kind, data.replace(b"\n", end)
    how = draw(st.sampled_from(COMPRESSIONS))
    packed = compress(data, how)
    if draw(st.booleans()):
        packed = packed[: draw(st.integers(0, len(packed) - 1))]
        return f"compress_{how}_truncated", packed
    return f"compress_{how}", packed


@st.composite
def hostile(draw: st.DrawFn, fmt: Format) -> tuple[str, bytes]:
    """One to three mutations of ``fmt``'s valid file (a compression last, if any)."""
    data, names = fmt.valid, []
    for _ in range(draw(st.integers(1, 3))):
        name, data = draw(mutation(data))
        names.append(name)
        if name.startswith("compress"):
            break
    return "+".join(names), data


# ------------------------------------------------------------------ the law
# "<file>[, line N[, <place in the line>]]: ..." -- the place is a selectors file's item and
# reader ("sel.json, line 3, item 2, reader 0: class id 3 is not below ...")
_MESSAGE = re.compile(r"^(?P<path>.+?)(?:, (?:line|row) (?P<line>\d+)(?:, [^:]+)?)?: \S")


def outcome(fmt: Format, data: bytes, folder: Path) -> str:
    """Write ``data`` as ``fmt`` and read it: ``"read"``, ``"error+line"`` or ``"error"``.

    Fails (AssertionError) on an exception other than ValueError, a message that does not
    start with the file's name or spans lines, or a read (or an error) the independent
    reference of the format disagrees with. A RuntimeWarning (an overflow, an invalid cast)
    is an error of its own here: the readers' numbers must not pass through one.
    """
    path = folder / fmt.suffix
    path.write_bytes(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            fmt.read(path)
    except ValueError as err:
        message = str(err)
        assert "\n" not in message, f"{fmt.name}: a message on several lines: {message!r}"
        match = _MESSAGE.match(message)
        assert match and match["path"] == str(path), (
            f"{fmt.name}: the message does not start with the file's name: {message[:300]!r}"
        )
        result = "error+line" if match["line"] else "error"
    else:
        result = "read"
    if fmt.parse is not None and fmt.reference is not None:
        expected = fmt.reference(data)
        try:
            got = fmt.parse(path)
        except ValueError:
            got = "error"
        assert _same(got, expected), (
            f"{fmt.name}: read {str(got)[:300]} where the reference reads {str(expected)[:300]}"
        )
    return result


def _same(got: Any, expected: Any) -> bool:
    if isinstance(got, str) or isinstance(expected, str):
        return got == expected
    if len(got) != len(expected):
        return False
    for a, b in zip(got, expected, strict=True):
        for x, y in zip(a, b, strict=True):
            if isinstance(y, float):
                if not (float(x) == y or (np.isnan(float(x)) and np.isnan(y))):
                    return False
                if float(x) == 0 and np.signbit(float(x)) != np.signbit(y):
                    return False
            elif str(x) != y:
                return False
    return True
