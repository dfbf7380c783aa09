"""Reading trec_eval's z-score reference file (``trec_eval -Z file``; no value is computed here).

Format (``get_zscores.c``): one line per query and measure, four fields separated by
whitespace, ``qid measure mean stddev``: the mean and standard deviation of the measure's
per-query values over a reference set of runs, the measure named as trec_eval prints it
(``P_10``, ``map``). trec_eval reads the numbers with ``atof``, so ``nan`` is a number (its own
test file has ``set_F nan nan``); the numbers are those every TREC reader here accepts
(:data:`fuzzytruth.io.text.NUMBER`: ASCII digits, no ``1_000``). Read as every TREC file here
is read: compressed or not, ``#`` comment lines and blank lines skipped, a malformed line named
by file and line.

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "zscores")
>>> with open(path, "w") as f:
...     _ = f.write("301 map 0.0949 0.1053\\n301\\tP_10 0.42 0.3068\\n")
>>> read_trec_zscores(path)
  query_id measure    mean     std
0      301     map  0.0949  0.1053
1      301    P_10  0.4200  0.3068
"""

from __future__ import annotations

import os

import pandas as pd

from fuzzytruth.io.text import MaxBytes, load_text, shown
from fuzzytruth.io.trec_columns import _number

__all__ = ["ZSCORE_FIELDS", "read_trec_zscores"]

ZSCORE_FIELDS = ("qid", "measure", "mean", "stddev")


def read_trec_zscores(
    path: str | os.PathLike, *, encoding: str = "utf-8", max_decompressed_bytes: MaxBytes = "auto"
) -> pd.DataFrame:
    """Read a z-score reference file ``qid measure mean stddev`` (trec_eval ``-Z``).

    ``path`` may be compressed, its content up to ``max_decompressed_bytes`` (see
    :func:`fuzzytruth.io.text.read_bytes`); ``encoding`` is that of a file without a
    byte-order mark.

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id``, ``measure`` (str), ``mean``, ``std`` (float), in file order.

    Raises
    ------
    ValueError
        Naming the file and line: a line without four fields, a mean or standard deviation
        that is not a number, a (query, measure) given twice (trec_eval would use either).
    """
    text = load_text(path, encoding=encoding, max_decompressed_bytes=max_decompressed_bytes)
    rows: list[tuple[str, str, float, float]] = []
    seen: dict[tuple[str, str], int] = {}
    for index, line in enumerate(text.decoded_lines()):
        fields = line.split()
        if len(fields) != len(ZSCORE_FIELDS):
            raise text.error(index, f"expected {len(ZSCORE_FIELDS)} fields "
                             f"({' '.join(ZSCORE_FIELDS)}); got {len(fields)}: {shown(line)}")
        query, measure, *numbers = fields
        mean, std = (_number(text, index, f, v) for f, v in zip(ZSCORE_FIELDS[2:], numbers,
                                                                  strict=True))
        first = seen.setdefault((query, measure), int(text.lines[index]))
        if first != int(text.lines[index]):
            raise text.error(index, f"query {shown(query)}, measure {shown(measure)} is given "
                             f"twice (first on line {first})")
        rows.append((query, measure, mean, std))
    if not rows:
        raise ValueError(f"{text.path}: no lines of data (the file is empty, or holds only "
                         "comments and blank lines)")
    return pd.DataFrame(rows, columns=["query_id", "measure", "mean", "std"])
