"""One front door for trec_eval's judgment formats (its ``-R``), each read by its own reader.

=================  ================================  ==========================================
``rel_format``     lines                             read as
=================  ================================  ==========================================
``qrels``          ``qid iter docno rel``            :class:`~fuzzytruth.Qrels`
                                                     (:func:`~fuzzytruth.io.read_trec_qrels`)
``qrels_jg``       ``qid jg docno rel``              one Qrels per judgment group ``jg``
                                                     (:func:`~fuzzytruth.io.read_trec_qrels_jg`)
``prefs``          ``qid jg jsg docno rel``          :class:`~fuzzytruth.truth.preferences.\
Preferences` (:func:`~fuzzytruth.io.read_trec_prefs`)
``qrels_prefs``    ``qid jg docno rel``              Preferences, one subgroup per group
                                                     (:func:`~fuzzytruth.io.read_trec_qrels_prefs`)
=================  ================================  ==========================================

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
>>> with open(path, "w") as f:
...     _ = f.write("q1 u1 d1 1\\nq1 u2 d1 0\\n")
>>> sorted(read_trec_judgments(path, rel_format="qrels_jg"))
['u1', 'u2']
"""

from __future__ import annotations

import os
from typing import Any

from fuzzytruth._validation import check_choice
from fuzzytruth.io.prefs import read_trec_prefs, read_trec_qrels_prefs
from fuzzytruth.io.text import MaxBytes
from fuzzytruth.io.trec import read_trec_qrels, read_trec_qrels_jg

__all__ = ["REL_FORMATS", "read_trec_judgments"]

REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")
"""trec_eval's ``-R`` formats of a judgments file."""


def read_trec_judgments(
    path: str | os.PathLike,
    *,
    rel_format: str = "qrels",
    duplicates: str = "error",
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> Any:
    """Read a judgments file in one of trec_eval's formats (module docstring).

    Parameters
    ----------
    path : str or path-like
        The file, compressed or not.
    rel_format : {"qrels", "qrels_jg", "prefs", "qrels_prefs"}, default "qrels"
        trec_eval's ``-R``.
    duplicates : str, default "error"
        A document judged twice for one query (qrels formats; :func:`read_trec_qrels`).
    encoding : str, default "utf-8"
        Encoding of a file without a byte-order mark.
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the content of a compressed file (:func:`fuzzytruth.io.text.read_bytes`).

    Returns
    -------
    Qrels, dict of str to Qrels, or Preferences
    """
    check_choice("rel_format", rel_format, REL_FORMATS)
    reading = {"encoding": encoding, "max_decompressed_bytes": max_decompressed_bytes}
    if rel_format == "qrels":
        return read_trec_qrels(path, duplicates=duplicates, **reading)
    if rel_format == "qrels_jg":
        return read_trec_qrels_jg(path, duplicates=duplicates, **reading)
    reader = read_trec_prefs if rel_format == "prefs" else read_trec_qrels_prefs
    return reader(path, **reading)
