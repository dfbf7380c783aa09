"""Reading trec_eval's preference files (no metric is computed here).

Formats (fields separated by whitespace, read as :mod:`fuzzytruth.io.trec_columns` reads every
TREC file: compressed files, ``#`` comment lines and blank lines accepted, a malformed line
named by file and line):

* ``-R prefs``, 5 columns: ``qid jg jsg docno rel``: a judgment group ``jg`` (one user), a
  subgroup ``jsg`` within it, and the document's level ``rel`` (a float; 0 non-relevant);
* ``-R qrels_prefs``, 4 columns: a qrels ``qid jg docno rel`` read as preferences, its second
  column naming the judgment group (``0`` in an ordinary qrels: one group), one subgroup each.

Both give a :class:`~fuzzytruth.truth.preferences.Preferences`, to evaluate with
:func:`fuzzytruth.evaluation.preferences.evaluate_preferences`.

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "prefs.txt")
>>> with open(path, "w") as f:
...     _ = f.write("q1 u1 s1 d1 3\\nq1 u1 s1 d2 1.5\\nq1 u2 s1 d2 0\\n")
>>> read_trec_prefs(path).to_dataframe()
  query_id group subgroup doc_id  level
0       q1    u1       s1     d1    3.0
1       q1    u1       s1     d2    1.5
2       q1    u2       s1     d2    0.0
"""

from __future__ import annotations

import os

import numpy as np

from fuzzytruth.io.text import MaxBytes
from fuzzytruth.io.trec_columns import QRELS_FIELDS, read_columns
from fuzzytruth.truth.preferences import Preferences

__all__ = ["PREFS_FIELDS", "read_trec_prefs", "read_trec_qrels_prefs"]

PREFS_FIELDS = ("qid", "jg", "jsg", "docno", "rel")


def read_trec_prefs(
    path: str | os.PathLike, *, encoding: str = "utf-8", max_decompressed_bytes: MaxBytes = "auto"
) -> Preferences:
    """Read a preference file ``qid jg jsg docno rel`` (trec_eval ``-R prefs``).

    Parameters
    ----------
    path : str or path-like
        The file (compressed or not).
    encoding : str, default "utf-8"
        Encoding of a file without a byte-order mark.
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the content of a compressed file (:func:`fuzzytruth.io.text.read_bytes`).

    Returns
    -------
    Preferences
    """
    cols, source, lines = read_columns(path, PREFS_FIELDS, "rel", encoding=encoding,
                                       max_decompressed_bytes=max_decompressed_bytes)
    return Preferences(
        np.asarray(cols["qid"], dtype=object), np.asarray(cols["jg"], dtype=object),
        np.asarray(cols["jsg"], dtype=object), np.asarray(cols["docno"], dtype=object),
        cols["rel"], source=source, line_numbers=lines,
    )


def read_trec_qrels_prefs(
    path: str | os.PathLike, *, encoding: str = "utf-8", max_decompressed_bytes: MaxBytes = "auto"
) -> Preferences:
    """Read a qrels ``qid jg docno rel`` as preferences (trec_eval ``-R qrels_prefs``): one
    judgment group per value of the second column, one subgroup each; the options are those
    of :func:`read_trec_prefs`.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 0 d1 2\\nq1 0 d2 0.5\\n")
    >>> read_trec_qrels_prefs(path)
    Preferences(1 queries, 1 judgment groups, 2 lines)
    """
    cols, source, lines = read_columns(path, QRELS_FIELDS, "rel", encoding=encoding,
                                       max_decompressed_bytes=max_decompressed_bytes)
    return Preferences(
        np.asarray(cols["qid"], dtype=object), np.asarray(cols["iter"], dtype=object),
        np.full(len(lines), "0", dtype=object), np.asarray(cols["docno"], dtype=object),
        cols["rel"], source=source, line_numbers=lines,
    )
