"""``fuzzytruth repro``: Santini's worked examples, printed beside the paper's numbers
(:data:`fuzzytruth.repro.SECTIONS`)."""

from __future__ import annotations

import argparse

from fuzzytruth.cli._errors import Flags

__all__ = ["EXAMPLES", "HELP", "add_arguments", "run"]

HELP = "reproduce the paper's worked examples"
EXAMPLES = """\
example:
  fuzzytruth repro            # every section
  fuzzytruth repro section4   # Santini §4: the Figure 1 image and a constructed collection
"""


def add_arguments(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The option of ``repro``: which section."""
    from fuzzytruth.repro import SECTIONS

    parser.add_argument("section", nargs="?", default="all", choices=("all", *SECTIONS),
                        help="the section to reproduce (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    """Run the chosen reproductions; the status is 1 when a published value is missed."""
    from fuzzytruth.repro import SECTIONS

    chosen = list(SECTIONS) if args.section == "all" else [args.section]
    status = 0
    for name in chosen:
        status |= SECTIONS[name]()
        print()
    return status
