"""``fuzzytruth displacement``: Santini §5, each system scored against each annotator's own
ranked answer (:func:`fuzzytruth.displacement.weighted_displacement`).

The answers are a table (``--answers``) or partial rankings with ties (``--rankings``, each
reader's ranking an answer, tied classes read in the system's favour:
:mod:`fuzzytruth.displacement.ties`); the systems a table (``--runs``) or TREC run files
(``--run``, ranked by score with trec_eval's tie rule).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fuzzytruth.cli._errors import Flags, UserError
from fuzzytruth.cli._options import (
    RANKINGS_HELP,
    add_format_option,
    add_rankings_options,
    add_reading_options,
    library_option,
    reading,
    signature_default,
)
from fuzzytruth.cli._output import TABLE_FORMATS, format_frame, write

__all__ = ["EXAMPLES", "HELP", "VIEWS", "add_arguments", "run"]

HELP = "Santini §5 per-annotator weighted displacement"
EXAMPLES = """\
examples:
  fuzzytruth displacement --answers answers.csv --runs runs.csv --n-items 10000 --by system
  answers.csv: query_id,annotator_id,item_id,rank,relevance
  runs.csv:    system,query_id,item_id,rank
  fuzzytruth displacement --rankings selectors.json --classes conditions.txt --runs runs.csv
  fuzzytruth displacement --rankings selectors.json --run model.txt
  (each reader's ranking an answer, relevance 1/(1 + tie group), N the number of classes; a
  TREC run names the classes by selector id, as names with spaces cannot be TREC ids)
"""
VIEWS = ("list", "query", "system")
"""``--by``: one row per (system, query, annotator) list, per (system, query), per system."""


def add_arguments(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The options of ``displacement``."""
    from fuzzytruth.displacement import weighted_displacement
    from fuzzytruth.displacement.ties import ANNOTATOR_TIES

    answers = parser.add_argument_group("the annotators' answers (one of)")
    answers.add_argument("--answers", type=Path, help="annotators' ranked answers (CSV)")
    add_rankings_options(answers, flags, help=f"instead of --answers, {RANKINGS_HELP}")
    systems = parser.add_argument_group("the systems' rankings (one of)")
    systems.add_argument("--runs", type=Path, help="system rankings (CSV)")
    systems.add_argument("--run", type=Path, action="append", metavar="FILE",
                         help="instead of --runs, a TREC run file (qid Q0 docno rank score "
                         "tag); repeat for several systems")
    library_option(parser, flags, "--n-items", param="n_items", type=int, default=None,
                   help="database size N (required with --answers; with --rankings the "
                   "number of classes by default)")
    library_option(
        parser, flags, "--g", param="g", function=weighted_displacement,
        help="weight g of a displacement: rational, exponential or scale_free "
        "(default: %(default)s)",
    )
    library_option(
        parser, flags, "--cut-at-m", param="use_deeper_ranks", action="store_true",
        help="cut runs at the annotator's list length m (the paper's setting)",
    )
    library_option(
        parser, flags, "--annotator-ties", param="annotator_ties", choices=ANNOTATOR_TIES,
        default=None,
        help="equal ranks in an answer: an error (raise, the default with --answers) or a tie "
        "read in the system's favour (best, the default with --rankings)",
    )
    parser.add_argument("--by", choices=VIEWS, default="system",
                        help="one row per list, query or system (default: %(default)s)")
    add_reading_options(parser, flags)
    add_format_option(parser, TABLE_FORMATS)
    parser.set_defaults(taxonomy=None, implicit_root=None, annotations=None)


def run(args: argparse.Namespace) -> int:
    """Score and print."""
    from fuzzytruth.cli._inputs import read_labels, read_runs
    from fuzzytruth.displacement import read_answers, weighted_displacement
    from fuzzytruth.displacement import read_runs as read_run_table
    from fuzzytruth.io.trec import read_trec_run

    for first, second, a, b in (("--answers", "--rankings", args.answers, args.rankings),
                                ("--runs", "--run", args.runs, args.run)):
        if (a is None) == (b is None):
            raise UserError(f"give one of {first} and {second}")
    if args.classes is not None and args.rankings is None:
        raise UserError("--classes names the class ids of --rankings; --answers names its items")
    answers = read_answers(args.answers, **reading(args)) if args.rankings is None \
        else read_labels(args)
    runs = (read_run_table(args.runs, **reading(args)) if args.run is None else
            read_runs(args.run, duplicates=signature_default(read_trec_run, "duplicates"),
                      flags=args.flags, **reading(args)))
    result = weighted_displacement(
        answers, runs, n_items=args.n_items, g=args.g, use_deeper_ranks=not args.cut_at_m,
        annotator_ties=args.annotator_ties,
    )
    views = {"list": result.to_frame, "query": result.by_query, "system": result.by_system}
    write(format_frame(views[args.by](), args.format))
    return 0
