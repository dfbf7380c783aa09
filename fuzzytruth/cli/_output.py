"""How the command line prints a table: aligned text, CSV or JSON on stdout."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas loads when a command runs, not for --help
    import pandas as pd

__all__ = ["emit", "text_table"]


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


def emit(frame: pd.DataFrame, fmt: str) -> None:
    if fmt == "csv":
        frame.to_csv(sys.stdout, index=False)
    elif fmt == "json":
        json.dump(json.loads(frame.to_json(orient="records")), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text_table(frame) + "\n")
