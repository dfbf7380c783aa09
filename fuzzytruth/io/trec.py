"""Reading and writing TREC run and qrels files (no metric is computed here).

Formats (fields separated by whitespace):

* run, 6 columns: ``qid Q0 docno rank score tag`` (the ``Q0`` and ``rank`` columns are read but
  ignored, as trec_eval does; ranking is by score). Fields after the tag are ignored, as
  trec_eval does;
* qrels, 4 columns: ``qid iter docno rel`` (``iter`` is ignored);
* judgment-group qrels (trec_eval ``-R qrels_jg``), 4 columns: ``qid jg docno rel``, where
  ``jg`` names the judgment group, i.e. the annotator.

Every file goes through :func:`fuzzytruth.io.text.load_text`: compressed files (``.gz`` and
others), a byte-order mark, CRLF line ends, lines starting with ``#`` (trec_eval 10's comments)
and blank lines are accepted. A malformed line raises a ValueError naming the file, the 1-based
line number and what was expected; so does a score that is NaN or a relevance that is not a
finite number. Fields are separated by ASCII whitespace (trec_eval's ``isspace``). Files are
parsed by pyarrow's CSV reader, after making whitespace single spaces and dropping fields
after the run tag when the file needs it; a line-by-line reader gives the same result for the
rest (lines of whitespace only) and finds the line of any error.

The writers refuse ids that would not read back (empty, containing whitespace, or a query id
starting with ``#``) with a ValueError naming the id, rather than writing a broken file.

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
from typing import Any, TextIO

import numpy as np
import pandas as pd

from fuzzytruth.io.trec_columns import FIELD_SEPARATOR, QRELS_FIELDS, read_columns
from fuzzytruth.runs import Run
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
    path: str | os.PathLike, *, duplicates: str = "error", encoding: str = "utf-8"
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

    Returns
    -------
    Run
        Named after the tag of the first line.
    """
    return Run.from_trec(path, duplicates=duplicates, encoding=encoding)


def read_trec_qrels(
    path: str | os.PathLike, *, duplicates: str = "error", encoding: str = "utf-8"
) -> Qrels:
    """Read a 4-column TREC qrels file ``qid iter docno rel``.

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
    return Qrels.from_trec(path, duplicates=duplicates, encoding=encoding)


def read_trec_qrels_jg(
    path: str | os.PathLike, *, duplicates: str = "error", encoding: str = "utf-8"
) -> dict[str, Qrels]:
    """Read trec_eval's judgment-group qrels ``qid jg docno rel``: one Qrels per group.

    Returns
    -------
    dict of str to Qrels
        Keyed by judgment group (annotator), in sorted order.
    """
    cols, source, lines = read_columns(path, QRELS_FIELDS, "rel", encoding=encoding)
    groups = np.asarray(cols["iter"], dtype=object)
    out: dict[str, Qrels] = {}
    for g in sorted(set(groups.tolist())):
        sel = np.flatnonzero(groups == g)
        out[str(g)] = Qrels(
            np.asarray(cols["qid"], dtype=object)[sel],
            np.asarray(cols["docno"], dtype=object)[sel],
            cols["rel"][sel],
            duplicates=duplicates,
            source=f"{source} (judgment group {g})",
            line_numbers=lines[sel],
        )
    return out


def check_ids(ids: Iterable[Any], what: str, *, first_field: bool = False) -> None:
    """A ValueError naming the first id of ``what`` that would not read back from a
    whitespace-separated file: empty, containing ASCII whitespace, or (``first_field``)
    starting with ``#`` (a comment line) or a byte-order mark."""
    values = pd.Series(pd.unique(pd.Series(list(ids) if not hasattr(ids, "__len__") else ids)))
    text = values.astype(str)
    bad = text.str.contains(FIELD_SEPARATOR.pattern, regex=True) | (text == "")
    if first_field:
        bad |= text.str.startswith("#") | text.str.startswith("\ufeff")
    if bad.any():
        value = values[bad.to_numpy()].iloc[0]
        raise ValueError(
            f"{what} {value!r} would not read back from a TREC file (fields are separated by "
            "whitespace; a line starting with '#' is a comment): use ids without spaces"
            + (" or a leading '#'" if first_field else "")
            + (f", e.g. {'_'.join(str(value).split()) or 'run'!r}" if str(value).strip() else "")
        )


def _format_number(values: np.ndarray) -> list[str]:
    return [repr(float(v)) if not float(v).is_integer() else str(int(v)) for v in values]


def write_trec_run(run: Run, path: str | os.PathLike, *, tag: str | None = None) -> None:
    """Write ``run`` as a 6-column TREC run file, ranks from 1 in descending score order.

    Scores are written with ``repr`` (round-trip exact). The rank column follows the order of
    the rows sorted by query, score descending and document id descending. Ids or a tag that
    would not read back (spaces, empty, a query id starting with ``#``) raise a ValueError.

    Examples
    --------
    >>> import tempfile, os
    >>> run = Run(["q1"], ["d1"], [1.0], name="BM25 + RM3")
    >>> write_trec_run(run, os.path.join(tempfile.mkdtemp(), "run.txt"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: run tag 'BM25 + RM3' would not read back from a TREC file ... e.g. 'BM25_+_RM3'
    """
    tag = run.name if tag is None else tag
    check_ids([tag], "run tag")
    df = run.to_dataframe()
    check_ids(df["query_id"], "query id", first_field=True)
    check_ids(df["doc_id"], "document id")
    df = df.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    df["rank"] = df.groupby("query_id").cumcount() + 1
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for q, d, r, s in zip(
            df["query_id"], df["doc_id"], df["rank"], df["score"].to_numpy(), strict=True
        ):
            handle.write(f"{q} Q0 {d} {r} {float(s)!r} {tag}\n")


def _write_qrels_lines(handle: TextIO, qrels: Qrels, second: str) -> None:
    """``qid <second> docno rel`` lines (integral grades without a decimal point)."""
    df = qrels.to_dataframe()
    check_ids(df["query_id"], "query id", first_field=True)
    check_ids(df["doc_id"], "document id")
    grades = _format_number(df["relevance"].to_numpy())
    for q, d, g in zip(df["query_id"], df["doc_id"], grades, strict=True):
        handle.write(f"{q} {second} {d} {g}\n")


def write_trec_qrels(qrels: Qrels, path: str | os.PathLike, *, iteration: str = "0") -> None:
    """Write ``qrels`` as a 4-column TREC qrels file (integral grades without a decimal point).

    Ids that would not read back raise a ValueError (see :func:`write_trec_run`).
    """
    check_ids([iteration], "iteration")
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        _write_qrels_lines(handle, qrels, iteration)


def write_trec_qrels_jg(groups: Mapping[str, Qrels], path: str | os.PathLike) -> None:
    r"""Write one Qrels per judgment group (annotator) as ``qid jg docno rel``; round-trips
    with :func:`read_trec_qrels_jg`.

    Examples
    --------
    >>> import tempfile, os
    >>> from fuzzytruth.truth.qrels import Qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.jg")
    >>> a = Qrels(["q1"], ["d1"], [1.0]); b = Qrels(["q1"], ["d2"], [2.0])
    >>> write_trec_qrels_jg({"ann1": a, "ann2": b}, path)
    >>> open(path).read()
    'q1 ann1 d1 1\nq1 ann2 d2 2\n'
    """
    check_ids([str(g) for g in groups], "judgment group")
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for group, qrels in groups.items():
            _write_qrels_lines(handle, qrels, str(group))
