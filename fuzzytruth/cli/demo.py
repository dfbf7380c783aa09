"""``fuzzytruth demo``: the bundled image collection end to end (:func:`fuzzytruth.demo.run_demo`).

The report, tables and figures are written into a hidden folder beside ``--out`` and moved into
``--out`` only when all of them are done, so that an error or a Ctrl-C leaves no half-written
file behind.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import tempfile
from pathlib import Path

from fuzzytruth.cli._errors import Flags
from fuzzytruth.cli._options import library_option

__all__ = ["EXAMPLES", "HELP", "add_arguments", "run"]

HELP = "bundled data end to end; writes a report and figures"
EXAMPLES = """\
example:
  fuzzytruth demo --out demo_output --figure-format pdf
"""


def add_arguments(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The options of ``demo``."""
    from fuzzytruth.demo import FIGURE_FORMATS, run_demo

    library_option(parser, flags, "--out", param="out", type=Path, default=Path("demo_output"),
                   help="output folder (default: %(default)s)")
    library_option(parser, flags, "--figure-format", param="figure_format", function=run_demo,
                   choices=FIGURE_FORMATS, help="format of the figures (default: %(default)s)")
    library_option(parser, flags, "--n-worlds", param="n_worlds", function=run_demo, type=int,
                   help="ground-truth worlds sampled from the annotators (default: %(default)s)")
    library_option(parser, flags, "--seed", param="seed", function=run_demo, type=int,
                   help="random seed (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    """Run the demo in a staging folder, then move its files into ``--out``."""
    from fuzzytruth.cli._output import write
    from fuzzytruth.demo import run_demo

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as err:  # not the staging folder's name: the folder the user gave
        raise ValueError(f"--out {out}: cannot write into {out.parent} ({err.strerror})") from None
    summary = io.StringIO()
    try:
        run_demo(staging, figure_format=args.figure_format, n_worlds=args.n_worlds,
                 seed=args.seed, stream=summary)
        out.mkdir(exist_ok=True)
        for path in sorted(staging.iterdir()):
            os.replace(path, out / path.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    write(summary.getvalue().replace(str(staging), str(out)))
    return 0
