"""Reading the two tables of :func:`~fuzzytruth.displacement.weighted_displacement` from files.

Both are CSV (or TSV, for a name ending in ``.tsv`` before any compression suffix) with a
header line, read by the library's one table reader
(:func:`fuzzytruth.io.tables.read_delimited`): compression recognised from the content,
byte-order marks, ``#`` comment lines and blank lines skipped, and every malformed line (a
wrong number of fields, an empty id, a number that is not one) a ``ValueError`` naming the file
and line. Ids are read as text; ``rank``, ``relevance`` and ``score`` as finite numbers.

The returned DataFrame's index is the file line of each row (named ``"line"``) and
``attrs["source"]`` the file name, so that :func:`weighted_displacement` names the file and
line of a row it refuses (a duplicate rank, a relevance outside [0, 1], ...).

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> with open(os.path.join(folder, "answers.csv"), "w") as f:
...     _ = f.write("query_id,annotator_id,item_id,rank,relevance\\n"
...                 "q1,ann1,a,1,1.0\\n# a comment\\nq1,ann1,b,2,0.5\\n")
>>> with open(os.path.join(folder, "runs.csv"), "w") as f:
...     _ = f.write("system,query_id,item_id,rank\\nS,q1,b,1\\nS,q1,a,2\\n")
>>> answers = read_answers(os.path.join(folder, "answers.csv"))
>>> answers.index.tolist(), answers["relevance"].tolist()
([2, 4], [1.0, 0.5])
>>> from fuzzytruth.displacement import weighted_displacement
>>> runs = read_runs(os.path.join(folder, "runs.csv"))
>>> weighted_displacement(answers, runs, n_items=10).to_frame()["w_a"].item()
1.5
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from fuzzytruth._validation import check_choice
from fuzzytruth.displacement.frames import column_names
from fuzzytruth.displacement.systems import RUN_ORDERS
from fuzzytruth.io.tables import finite_numbers, read_delimited
from fuzzytruth.io.text import MaxBytes, file_path

__all__ = ["read_answers", "read_runs"]

_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip")


def _delimiter(path: str | os.PathLike) -> str:
    """Tab for a ``.tsv`` name (before any compression suffix), else comma."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED:
        suffixes.pop()
    return "\t" if suffixes and suffixes[-1] == ".tsv" else ","


def _read(
    path: str | os.PathLike, ids: list[str], numbers: list[str], encoding: str,
    max_decompressed_bytes: MaxBytes,
) -> pd.DataFrame:
    name = file_path(path)
    frame = read_delimited(path, delimiter=_delimiter(path), required=[*ids, *numbers],
                           encoding=encoding, max_decompressed_bytes=max_decompressed_bytes)
    for column in numbers:
        frame[column] = finite_numbers(frame, column, name)
    frame.index = pd.Index(frame.attrs.pop("lines"), name="line")
    frame.attrs["source"] = name
    return frame


def read_answers(
    path: str | os.PathLike,
    *,
    columns: Mapping[str, str] | None = None,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> pd.DataFrame:
    """Read the annotators' answers: ``query_id, annotator_id, item_id, rank, relevance``.

    Parameters
    ----------
    path : path-like
        CSV or TSV file (compressed or not).
    columns : mapping, optional
        Other column names, as in :func:`weighted_displacement`.
    encoding : str, default "utf-8"
        Encoding of a file without a byte-order mark.
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the content of a compressed file (:func:`fuzzytruth.io.text.read_bytes`).

    Returns
    -------
    pandas.DataFrame
        Ids as text, ``rank`` and ``relevance`` as floats; indexed by file line (module
        docstring).
    """
    c = column_names(columns)
    return _read(path, [c["query_id"], c["annotator_id"], c["item_id"]],
                 [c["rank"], c["relevance"]], encoding, max_decompressed_bytes)


def read_runs(
    path: str | os.PathLike,
    *,
    run_order: str = "rank",
    columns: Mapping[str, str] | None = None,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> pd.DataFrame:
    """Read the systems' rankings: ``system, query_id, item_id`` and ``rank`` (or ``score``).

    Parameters
    ----------
    path : path-like
        CSV or TSV file (compressed or not).
    run_order : {"rank", "score"}, default "rank"
        Which column gives the positions (pass the same to :func:`weighted_displacement`).
    columns : mapping, optional
        Other column names, as in :func:`weighted_displacement`.
    encoding : str, default "utf-8"
        Encoding of a file without a byte-order mark.
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the content of a compressed file (:func:`fuzzytruth.io.text.read_bytes`).

    Returns
    -------
    pandas.DataFrame
        Ids as text, the ``run_order`` column as floats; indexed by file line (module
        docstring).
    """
    check_choice("run_order", run_order, RUN_ORDERS)
    c = column_names(columns)
    return _read(path, [c["system"], c["query_id"], c["item_id"]], [c[run_order]], encoding,
                 max_decompressed_bytes)
