"""Reading and writing TREC run and qrels files (no metric is computed here).

Formats (fields separated by whitespace):

* run, 6 columns: ``qid Q0 docno rank score tag`` (the ``Q0`` and ``rank`` columns are read but
  ignored, as trec_eval does; ranking is by score). Fields after the tag are ignored, as
  trec_eval does;
* qrels, 4 columns: ``qid iter docno rel`` (``iter`` is ignored);
* judgment-group qrels (trec_eval ``-R qrels_jg``), 4 columns: ``qid jg docno rel``, where
  ``jg`` names the judgment group, i.e. the annotator.

Every file goes through :func:`fuzzytruth.io.text.load_text`: compressed files (``.gz`` and
others; ``max_decompressed_bytes`` caps what they may inflate to), a byte-order mark, LF,
CRLF or CR line ends, lines starting with ``#`` (trec_eval 10's comments) and empty lines are
accepted. Fields are separated by runs of ASCII whitespace (trec_eval's ``isspace``). A
malformed line raises a ValueError naming the file, the 1-based line number and what was
expected; so does a score that is NaN, a relevance that is not a finite number or one
written with an exponent that trec_eval's ``atol`` reads as another grade (``1E-1``: rules in
:mod:`fuzzytruth.io.trec_columns`).

The writers refuse what would not read back the same (an id that is empty, holds whitespace
or, for a query id, starts with ``#``; a relevance that is not finite) with a ValueError
naming the value, rather than writing a broken file. Numbers are written in the shortest form
that reads back exactly (whole numbers without a decimal point, ``-0`` for negative zero;
grades without an exponent, which trec_eval's ``atol`` would not read).
They write atomically (a temporary file renamed over the target: an error leaves no partial
file) and compress when the name ends in ``.gz``, ``.bz2``, ``.xz``, ``.zst`` or ``.zip``
(:mod:`fuzzytruth.io.output`).

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
>>> with open(path, "w") as f:
...     _ = f.write("# BM25 baseline\\nq1 Q0 d1 1 2.5 sys\\nq1\\tQ0 d2 2 1.5 sys extra\\n")
>>> run = read_trec_run(path)
>>> run.name, run.scores.tolist()
('sys', [2.5, 1.5])
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from fuzzytruth._validation import check_type
from fuzzytruth.io.output import number_text, open_output
from fuzzytruth.io.text import MaxBytes, shown
from fuzzytruth.io.trec_columns import FIELD_SEPARATOR, QRELS_FIELDS, read_columns
from fuzzytruth.runs import Run, run_hint
from fuzzytruth.truth.qrels import Qrels

__all__ = [
    "read_trec_qrels",
    "read_trec_qrels_jg",
    "read_trec_run",
    "write_trec_qrels",
    "write_trec_qrels_jg",
    "write_trec_run",
]


def read_trec_run(
    path: str | os.PathLike,
    *,
    duplicates: str = "error",
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> Run:
    """Read a TREC run file ``qid Q0 docno rank score tag`` (fields after the tag ignored).

    Parameters
    ----------
    path : str or path-like
        The file (compressed or not; see the module docstring).
    duplicates : {"error", "max", "first", "last"}, default "error"
        What to do with a document listed twice for one query (see :class:`~fuzzytruth.Run`).
    encoding : str, default "utf-8"
        Encoding of a file without a byte-order mark (see :mod:`fuzzytruth.io.text`).
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the content of a compressed file: "auto" is 200 times the file's size, at
        least 256 MiB; None, no cap (see :func:`fuzzytruth.io.text.decompression_limit`).

    Returns
    -------
    Run
        Named after the tag of the last line, as trec_eval's ``runid`` (see
        :meth:`fuzzytruth.Run.from_trec`).
    """
    return Run.from_trec(
        path, duplicates=duplicates, encoding=encoding,
        max_decompressed_bytes=max_decompressed_bytes,
    )


def read_trec_qrels(
    path: str | os.PathLike,
    *,
    duplicates: str = "error",
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> Qrels:
    """Read a 4-column TREC qrels file ``qid iter docno rel``.

    Options as in :func:`read_trec_run`.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 0 d1 1\\nq1 0 d2\\n")
    >>> read_trec_qrels(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...qrels.txt, line 2: expected 4 whitespace-separated fields 'qid iter docno rel'...
    """
    return Qrels.from_trec(
        path, duplicates=duplicates, encoding=encoding,
        max_decompressed_bytes=max_decompressed_bytes,
    )


def read_trec_qrels_jg(
    path: str | os.PathLike,
    *,
    duplicates: str = "error",
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> dict[str, Qrels]:
    """Read trec_eval's judgment-group qrels ``qid jg docno rel``: one Qrels per group.

    Options as in :func:`read_trec_run`.

    Returns
    -------
    dict of str to Qrels
        Keyed by judgment group (annotator), in sorted order.
    """
    cols, source, lines = read_columns(
        path, QRELS_FIELDS, "rel", encoding=encoding, atol=True,
        max_decompressed_bytes=max_decompressed_bytes,
    )
    # codes, not groups == g: numpy compares an object array with a str scalar made a numpy
    # string, which drops trailing NUL characters (the group '\x00' matched no row)
    codes, names = pd.factorize(np.asarray(cols["iter"], dtype=object), sort=True)
    order = np.argsort(codes, kind="stable")  # each group's rows together, in file order
    bounds = np.searchsorted(codes[order], np.arange(len(names) + 1))
    qids = np.asarray(cols["qid"], dtype=object)[order]
    docnos = np.asarray(cols["docno"], dtype=object)[order]
    rels, lines = cols["rel"][order], lines[order]
    out: dict[str, Qrels] = {}
    for i, name in enumerate(names):
        sel = slice(bounds[i], bounds[i + 1])
        out[str(name)] = Qrels(qids[sel], docnos[sel], rels[sel], duplicates=duplicates,
                               source=source, line_numbers=lines[sel])
    return out


def check_ids(ids: Iterable[Any], what: str, *, first_field: bool = False) -> None:
    """A ValueError naming the first id of ``what`` that would not read back from a
    whitespace-separated file: empty, containing ASCII whitespace (line ends included), or
    (``first_field``) starting with ``#`` (a comment line) or a byte-order mark."""
    values = pd.Series(pd.unique(pd.Series(list(ids) if not hasattr(ids, "__len__") else ids)))
    text = values.astype(str)
    bad = text.str.contains(FIELD_SEPARATOR.pattern, regex=True) | (text == "")
    if first_field:
        bad |= text.str.startswith("#") | text.str.startswith("\ufeff")
    if bad.any():
        value = values[bad.to_numpy()].iloc[0]
        fixed = "_".join(str(value).split())
        if first_field:
            fixed = fixed.lstrip("#\ufeff")
        raise ValueError(
            f"{what} {shown(value)} would not read back from a TREC file (fields are "
            "separated by whitespace; a line starting with '#' is a comment): use ids without "
            "spaces" + (" or a leading '#'" if first_field else "")
            + (f", e.g. {shown(fixed)}" if fixed else "")
        )


_TEXT = pa.large_string()


def _strings(values: Any) -> pa.Array:
    """``values`` (ids, or numbers: :func:`~fuzzytruth.io.output.number_text`) as Arrow
    strings."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiu":
        return number_text(values)
    return pc.cast(pa.array(values), _TEXT)


def _lines(fields: list[Any]) -> bytes:
    """One line per row: the fields (Arrow strings, or a str for every row) joined by single
    spaces, each line ending in LF."""
    columns = [pa.scalar(f, _TEXT) if isinstance(f, str) else f for f in fields]
    joined = pc.binary_join_element_wise(*columns, pa.scalar(" ", _TEXT))
    if not isinstance(joined, pa.Array) or not len(joined):
        return b""
    joined = pc.binary_join_element_wise(joined, pa.scalar("\n", _TEXT), pa.scalar("", _TEXT))
    offsets = np.frombuffer(joined.buffers()[1], dtype=np.int64)
    first, last = offsets[joined.offset], offsets[joined.offset + len(joined)]
    return joined.buffers()[2].to_pybytes()[first:last]


def write_trec_run(run: Run, path: str | os.PathLike, *, tag: str | None = None) -> None:
    """Write ``run`` as a 6-column TREC run file, ranks from 1 in descending score order.

    Scores are written in the shortest form that reads back exactly. The rank column follows
    the order of the rows sorted by query, score descending and document id descending. Ids
    or a tag that would not read back (whitespace, empty, a query id starting with ``#``)
    raise a ValueError. Written atomically, compressed by suffix (see the module docstring).

    Examples
    --------
    >>> import tempfile, os
    >>> run = Run(["q1"], ["d1"], [1.0], name="BM25 + RM3")
    >>> write_trec_run(run, os.path.join(tempfile.mkdtemp(), "run.txt"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: run tag 'BM25 + RM3' would not read back from a TREC file ... e.g. 'BM25_+_RM3'
    """
    check_type(run, "run", Run, run_hint(run))
    tag = run.name if tag is None else tag
    check_ids([tag], "run tag")
    df = run.to_dataframe()
    check_ids(df["query_id"], "query id", first_field=True)
    check_ids(df["doc_id"], "document id")
    df = df.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    rank = df.groupby("query_id", sort=False).cumcount().to_numpy() + 1
    data = _lines([
        _strings(df["query_id"].array), "Q0", _strings(df["doc_id"].array),
        _strings(rank.astype(np.int64)), _strings(df["score"].to_numpy(np.float64)), str(tag),
    ])
    with open_output(path, binary=True) as handle:
        handle.write(data)


def _qrels_lines(qrels: Qrels, second: str, name: str = "qrels") -> bytes:
    """``qid <second> docno rel`` lines; a ValueError for what would not read back, or for
    ``qrels`` (called ``name``) that are not a Qrels."""
    check_type(qrels, name, Qrels, _qrels_hint(qrels))
    df = qrels.to_dataframe()
    check_ids(df["query_id"], "query id", first_field=True)
    check_ids(df["doc_id"], "document id")
    grades = df["relevance"].to_numpy(np.float64)
    bad = np.flatnonzero(~np.isfinite(grades))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"relevance {float(grades[i])!r} of query {shown(df['query_id'].iloc[i])}, document "
            f"{shown(df['doc_id'].iloc[i])} would not read back from a TREC qrels file "
            "(relevance must be a finite number)"
        )
    return _lines(
        [_strings(df["query_id"].array), second, _strings(df["doc_id"].array),
         _grade_strings(grades)]
    )


def _qrels_hint(given: Any) -> str:
    """How to make a :class:`Qrels` of ``given`` for a writer (empty when there is none)."""
    if isinstance(given, pd.DataFrame):
        return ": a table of (query, document, grade) rows is Qrels.from_dataframe(...) of it"
    if isinstance(given, Mapping):
        return ": pytrec_eval's {query: {document: grade}} is Qrels.from_dict(...) of it"
    return ""


def _grade_strings(grades: np.ndarray) -> pa.Array:
    """Grades as :func:`~fuzzytruth.io.output.number_text` writes numbers, but without an
    exponent (``1e-300`` written out in full): trec_eval reads a grade with C's ``atol``,
    which stops at the exponent, and the qrels readers refuse a grade it would read
    otherwise."""
    text = number_text(grades)
    exponent = pc.match_substring(text, "e").to_numpy(zero_copy_only=False)
    if not exponent.any():
        return text
    values = text.to_pylist()
    for i in np.flatnonzero(exponent):
        values[i] = np.format_float_positional(grades[i], unique=True, trim="-")
    return pa.array(values, type=_TEXT)


def write_trec_qrels(qrels: Qrels, path: str | os.PathLike, *, iteration: str = "0") -> None:
    """Write ``qrels`` as a 4-column TREC qrels file (integral grades without a decimal point).

    Ids that would not read back, or a relevance that is not finite, raise a ValueError (see
    :func:`write_trec_run`). Written atomically, compressed by suffix.
    """
    check_ids([iteration], "iteration")
    data = _qrels_lines(qrels, str(iteration))
    with open_output(path, binary=True) as handle:
        handle.write(data)


def write_trec_qrels_jg(groups: Mapping[str, Qrels], path: str | os.PathLike) -> None:
    r"""Write one Qrels per judgment group (annotator) as ``qid jg docno rel``; round-trips
    with :func:`read_trec_qrels_jg`. Written atomically, compressed by suffix.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from fuzzytruth.truth.qrels import Qrels
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.jg"
    >>> a = Qrels(["q1"], ["d1"], [1.0]); b = Qrels(["q1"], ["d2"], [2.0])
    >>> write_trec_qrels_jg({"ann1": a, "ann2": b}, path)
    >>> path.read_text()
    'q1 ann1 d1 1\nq1 ann2 d2 2\n'
    """
    if not isinstance(groups, Mapping):
        raise ValueError("groups must be a mapping of judgment group (annotator) to Qrels; "
                         f"got {type(groups).__name__}")
    names = [str(g) for g in groups]
    check_ids(names, "judgment group")
    if len(set(names)) != len(names):
        raise ValueError(
            f"judgment groups must have distinct names as text; got {sorted(map(str, groups))}"
        )
    data = b"".join(_qrels_lines(q, name, f"groups[{key!r}]")
                    for key, name, q in zip(groups, names, groups.values(), strict=True))
    with open_output(path, binary=True) as handle:
        handle.write(data)
