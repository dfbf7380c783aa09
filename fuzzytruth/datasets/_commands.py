"""What the data sets' small commands (``python -m fuzzytruth.datasets.<module>``) share."""

from __future__ import annotations

import argparse
from pathlib import Path


def make_folder(parser: argparse.ArgumentParser, folder: Path) -> None:
    """Create ``--out`` (and its parents) when missing; a usage error when it is a file.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     make_folder(argparse.ArgumentParser(), Path(tmp) / "a" / "b")
    ...     (Path(tmp) / "a" / "b").is_dir()
    True
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        parser.error(f"--out must be a folder; {str(folder)!r} exists and is not one")
