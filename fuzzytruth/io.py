"""Reading and writing TREC run and qrels files (no metric is computed here).

Formats (fields separated by whitespace):

* run, 6 columns: ``qid Q0 docno rank score tag`` (the ``Q0`` and ``rank`` columns are read but
  ignored, as trec_eval does; ranking is by score);
* qrels, 4 columns: ``qid iter docno rel`` (``iter`` is ignored);
* judgment-group qrels (trec_eval ``-R qrels_jg``), 4 columns: ``qid jg docno rel``, where
  ``jg`` names the judgment group, i.e. the annotator.

A malformed line raises a ValueError naming the file, the 1-based line number and what was
expected. Files with single spaces between fields and no blank line are read by pyarrow's CSV
reader when it is installed (else pandas' C parser); any other layout (tabs, repeated spaces,
blank lines) falls back to a line-by-line reader with the same result.

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
>>> with open(path, "w") as f:
...     _ = f.write("q1 Q0 d1 1 2.5 sys\\nq1 Q0 d2 2 1.5 sys\\n")
>>> run = read_trec_run(path)
>>> run.name, run.scores.tolist()
('sys', [2.5, 1.5])
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from typing import Any, TextIO

import numpy as np
import pandas as pd

from fuzzytruth.runs import Qrels, Run

__all__ = [
    "read_trec_qrels",
    "read_trec_qrels_jg",
    "read_trec_run",
    "write_trec_qrels",
    "write_trec_run",
]

_RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
_QRELS_FIELDS = ("qid", "iter", "docno", "rel")


def _parse_number(text: str) -> float:
    value = float(text)
    if np.isnan(value):
        raise ValueError("NaN")
    return value


def _read_slow(
    path: str, fields: tuple[str, ...], numeric: str
) -> tuple[dict[str, list], np.ndarray]:
    """Line-by-line reader: validates every line, skips blank lines."""
    columns: dict[str, list] = {f: [] for f in fields}
    lines: list[int] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != len(fields):
                raise ValueError(
                    f"{path}, line {number}: expected {len(fields)} whitespace-separated fields "
                    f"'{' '.join(fields)}'; got {len(parts)}: {line.rstrip()!r}"
                )
            try:
                value = _parse_number(parts[fields.index(numeric)])
            except ValueError:
                raise ValueError(
                    f"{path}, line {number}: expected a number in field '{numeric}'; got "
                    f"{parts[fields.index(numeric)]!r}"
                ) from None
            for f, p in zip(fields, parts, strict=True):
                columns[f].append(value if f == numeric else p)
            lines.append(number)
    return columns, np.asarray(lines, dtype=np.int64)


def _read_fast_arrow(
    path: str, fields: tuple[str, ...], numeric: str, keep: tuple[str, ...]
) -> dict[str, Any]:
    """pyarrow's multi-threaded CSV reader; strict: one space between fields, no blank line."""
    import pyarrow as pa
    from pyarrow import csv

    table = csv.read_csv(
        path,
        read_options=csv.ReadOptions(column_names=list(fields)),
        parse_options=csv.ParseOptions(delimiter=" ", quote_char=False, ignore_empty_lines=False),
        convert_options=csv.ConvertOptions(
            column_types={f: pa.float64() if f == numeric else pa.string() for f in fields},
            include_columns=list(keep),
            strings_can_be_null=False,
            null_values=[],
        ),
    )
    out: dict[str, Any] = {}
    for f in keep:
        column = table.column(f)
        out[f] = column.to_numpy() if f == numeric else pd.array(column, dtype="str")
    return out


def _read_fast_c(
    path: str, fields: tuple[str, ...], numeric: str, keep: tuple[str, ...]
) -> dict[str, Any]:
    """pandas' C parser; empty fields or a missing score mean the layout is not strict."""
    df = pd.read_csv(
        path,
        sep=" ",
        header=None,
        names=list(fields),
        dtype={f: str for f in fields if f != numeric} | {numeric: np.float64},
        engine="c",
        na_filter=False,
        skip_blank_lines=False,
        quoting=3,
    )
    text = [f for f in fields if f != numeric]
    if (df[text] == "").any().any() or np.isnan(df[numeric].to_numpy()).any():
        raise ValueError("not a strict single-space layout")
    return {f: df[f].array if f != numeric else df[f].to_numpy() for f in keep}


_ENGINE = "pyarrow" if importlib.util.find_spec("pyarrow") is not None else "c"
"""Fast-path reader: pyarrow's CSV reader when installed (several times faster), else pandas'
C parser. Either falls back to the validating line reader on any irregular line."""


def _read_table(
    path: str, fields: tuple[str, ...], numeric: str, keep: tuple[str, ...]
) -> tuple[dict[str, Any], np.ndarray]:
    """Columns ``keep`` of a whitespace-separated file, and each row's 1-based line number."""
    reader = _read_fast_arrow if _ENGINE == "pyarrow" else _read_fast_c
    try:
        cols = reader(path, fields, numeric, keep)
    except (ValueError, pd.errors.ParserError):  # pyarrow.ArrowInvalid is a ValueError
        cols, lines = _read_slow(path, fields, numeric)
        return {f: cols[f] for f in keep}, lines
    return cols, np.arange(1, len(cols[numeric]) + 1, dtype=np.int64)


def _first_field(path: str, index: int) -> str | None:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            parts = line.split()
            if parts:
                return parts[index]
    return None


def read_trec_run(path: str | os.PathLike, *, duplicates: str = "error") -> Run:
    """Read a 6-column TREC run file ``qid Q0 docno rank score tag``.

    Parameters
    ----------
    path : str or path-like
        The file.
    duplicates : {"error", "max", "first", "last"}, default "error"
        What to do with a document listed twice for one query (see :class:`~fuzzytruth.Run`).

    Returns
    -------
    Run
        Named after the tag of the first line.
    """
    path = os.fspath(path)
    cols, lines = _read_table(path, _RUN_FIELDS, "score", ("qid", "docno", "score"))
    name = _first_field(path, 5) or "run"
    return Run(
        cols["qid"],
        cols["docno"],
        cols["score"],
        name=name,
        duplicates=duplicates,
        source=path,
        line_numbers=lines,
    )


def read_trec_qrels(path: str | os.PathLike, *, duplicates: str = "error") -> Qrels:
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
    path = os.fspath(path)
    cols, lines = _read_table(path, _QRELS_FIELDS, "rel", ("qid", "docno", "rel"))
    return Qrels(
        cols["qid"], cols["docno"], cols["rel"], duplicates=duplicates, source=path,
        line_numbers=lines,
    )


def read_trec_qrels_jg(path: str | os.PathLike, *, duplicates: str = "error") -> dict[str, Qrels]:
    """Read trec_eval's judgment-group qrels ``qid jg docno rel``: one Qrels per group.

    Returns
    -------
    dict of str to Qrels
        Keyed by judgment group (annotator), in sorted order.
    """
    path = os.fspath(path)
    cols, lines = _read_table(path, _QRELS_FIELDS, "rel", _QRELS_FIELDS)
    groups = np.asarray(cols["iter"], dtype=object)
    out: dict[str, Qrels] = {}
    for g in sorted(set(groups.tolist())):
        sel = np.flatnonzero(groups == g)
        out[str(g)] = Qrels(
            np.asarray(cols["qid"], dtype=object)[sel],
            np.asarray(cols["docno"], dtype=object)[sel],
            np.asarray(cols["rel"], dtype=np.float64)[sel],
            duplicates=duplicates,
            source=f"{path} (judgment group {g})",
            line_numbers=lines[sel],
        )
    return out


def _format_number(values: np.ndarray) -> list[str]:
    return [repr(float(v)) if not float(v).is_integer() else str(int(v)) for v in values]


def write_trec_run(run: Run, path: str | os.PathLike, *, tag: str | None = None) -> None:
    """Write ``run`` as a 6-column TREC run file, ranks from 1 in descending score order.

    Scores are written with ``repr`` (round-trip exact). The rank column follows the order of
    the rows sorted by query, score descending and document id descending.
    """
    df = run.to_dataframe()
    df = df.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    df["rank"] = df.groupby("query_id").cumcount() + 1
    tag = run.name if tag is None else tag
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for q, d, r, s in zip(
            df["query_id"], df["doc_id"], df["rank"], df["score"].to_numpy(), strict=True
        ):
            handle.write(f"{q} Q0 {d} {r} {float(s)!r} {tag}\n")


def _write_qrels_lines(handle: TextIO, qrels: Qrels, second: str) -> None:
    """``qid <second> docno rel`` lines (integral grades without a decimal point)."""
    df = qrels.to_dataframe()
    grades = _format_number(df["relevance"].to_numpy())
    for q, d, g in zip(df["query_id"], df["doc_id"], grades, strict=True):
        handle.write(f"{q} {second} {d} {g}\n")


def write_trec_qrels(qrels: Qrels, path: str | os.PathLike, *, iteration: str = "0") -> None:
    """Write ``qrels`` as a 4-column TREC qrels file (integral grades without a decimal point)."""
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        _write_qrels_lines(handle, qrels, iteration)


def write_trec_qrels_jg(groups: Mapping[str, Qrels], path: str | os.PathLike) -> None:
    r"""Write one Qrels per judgment group (annotator) as ``qid jg docno rel``; round-trips
    with :func:`read_trec_qrels_jg`.

    Examples
    --------
    >>> import tempfile, os
    >>> from fuzzytruth.runs import Qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.jg")
    >>> a = Qrels(["q1"], ["d1"], [1.0]); b = Qrels(["q1"], ["d2"], [2.0])
    >>> write_trec_qrels_jg({"ann1": a, "ann2": b}, path)
    >>> open(path).read()
    'q1 ann1 d1 1\nq1 ann2 d2 2\n'
    """
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for group, qrels in groups.items():
            if not str(group) or any(c.isspace() for c in str(group)):
                raise ValueError(
                    f"judgment group names must be non-empty without spaces; got {group!r}"
                )
            _write_qrels_lines(handle, qrels, str(group))
