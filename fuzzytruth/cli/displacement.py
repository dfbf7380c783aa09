"""``fuzzytruth displacement``: Santini §5, each system scored against each annotator's own
ranked answer (:func:`fuzzytruth.displacement.weighted_displacement`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from fuzzytruth.cli._errors import Flags
from fuzzytruth.cli._options import (
    add_format_option,
    add_reading_options,
    library_option,
    reading,
)
from fuzzytruth.cli._output import TABLE_FORMATS, format_frame, write

__all__ = ["EXAMPLES", "HELP", "VIEWS", "add_arguments", "run"]

HELP = "Santini §5 per-annotator weighted displacement"
EXAMPLES = """\
example:
  fuzzytruth displacement --answers answers.csv --runs runs.csv --n-items 10000 --by system
  answers.csv: query_id,annotator_id,item_id,rank,relevance
  runs.csv:    system,query_id,item_id,rank
"""
VIEWS = ("list", "query", "system")
"""``--by``: one row per (system, query, annotator) list, per (system, query), per system."""


def add_arguments(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The options of ``displacement``."""
    from fuzzytruth.displacement import weighted_displacement

    parser.add_argument("--answers", type=Path, required=True,
                        help="annotators' ranked answers (CSV)")
    parser.add_argument("--runs", type=Path, required=True, help="system rankings (CSV)")
    library_option(parser, flags, "--n-items", param="n_items", type=int, required=True,
                   help="database size N")
    library_option(
        parser, flags, "--g", param="g", function=weighted_displacement,
        help="weight g of a displacement: rational, exponential or scale_free "
        "(default: %(default)s)",
    )
    library_option(
        parser, flags, "--cut-at-m", param="use_deeper_ranks", action="store_true",
        help="cut runs at the annotator's list length m (the paper's setting)",
    )
    parser.add_argument("--by", choices=VIEWS, default="system",
                        help="one row per list, query or system (default: %(default)s)")
    add_reading_options(parser, flags)
    add_format_option(parser, TABLE_FORMATS)


def run(args: argparse.Namespace) -> int:
    """Score and print."""
    from fuzzytruth.displacement import read_answers, read_runs, weighted_displacement

    result = weighted_displacement(
        read_answers(args.answers, **reading(args)), read_runs(args.runs, **reading(args)),
        n_items=args.n_items, g=args.g,
        use_deeper_ranks=not args.cut_at_m,
    )
    views = {"list": result.to_frame, "query": result.by_query, "system": result.by_system}
    write(format_frame(views[args.by](), args.format))
    return 0
