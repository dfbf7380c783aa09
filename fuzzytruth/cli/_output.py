"""How the command line prints: a table as aligned text, CSV or JSON, all at once on stdout.

A command builds its whole output before printing it (:func:`write`), so that an error or a
Ctrl-C half-way leaves nothing half-written behind, in a terminal or in a file stdout is
redirected to.
"""

from __future__ import annotations

import io
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas loads when a command runs, not for --help
    import pandas as pd

__all__ = ["TABLE_FORMATS", "emit", "format_frame", "text_table", "write"]

TABLE_FORMATS = ("text", "csv", "json")
"""The formats of :func:`format_frame`."""


def text_table(frame: pd.DataFrame, *, digits: int = 4) -> str:
    """A frame as aligned text: every row and column, floats to ``digits`` decimals."""
    import pandas as pd

    with pd.option_context(
        "display.max_rows",
        None,
        "display.max_columns",
        None,
        "display.width",
        200,
        "display.float_format",
        f"{{:.{digits}f}}".format,
    ):
        return frame.to_string(index=False)


def format_frame(frame: pd.DataFrame, fmt: str) -> str:
    """``frame`` as text, CSV or JSON records, ending with a newline.

    In JSON a missing value (NaN) is ``null`` and an infinite one (the open end of a
    one-sided interval) ``Infinity`` or ``-Infinity``, as Python's :mod:`json` and
    :func:`pandas.read_json` read them (strict JSON has no infinity; pandas' own writer
    would make it ``null``, a missing value).

    Examples
    --------
    >>> import pandas as pd
    >>> print(format_frame(pd.DataFrame({"ci_low": [float("-inf"), float("nan")]}), "json"))
    [
      {
        "ci_low": -Infinity
      },
      {
        "ci_low": null
      }
    ]
    <BLANKLINE>
    """
    if fmt == "csv":
        buffer = io.StringIO()
        frame.to_csv(buffer, index=False)
        return buffer.getvalue()
    if fmt == "json":
        import numpy as np

        records = json.loads(frame.to_json(orient="records"))
        for k, column in enumerate(frame.columns):
            values = frame.iloc[:, k]
            if values.dtype.kind == "f":
                for i in np.flatnonzero(np.isinf(values.to_numpy())):
                    records[i][str(column)] = float(values.iloc[i])
        return json.dumps(records, indent=2) + "\n"
    if fmt == "text":
        return text_table(frame) + "\n"
    raise ValueError(f"format must be one of {list(TABLE_FORMATS)}; got {fmt!r}")


def write(text: str) -> None:
    """Print a command's whole output on stdout in one piece."""
    sys.stdout.write(text)
    sys.stdout.flush()


def emit(frame: pd.DataFrame, fmt: str) -> None:
    """Print ``frame`` in format ``fmt`` (:func:`format_frame`)."""
    write(format_frame(frame, fmt))
