"""``fuzzytruth agreement``: the collection analyst's command.

One command with four views of a multi-annotator table, each printed as text, CSV or JSON:

* ``coefficients`` (default): Fleiss' κ, Krippendorff's α (nominal) and taxonomy α with
  bootstrap intervals, then κ_j per raw label (``label_kappa``);
* ``levels``: the three coefficients after collapsing the labels to each taxonomy depth;
* ``reliability``: per category, membership statistics, ``closed_kappa`` and the ambiguity flag;
* ``annotators``: per annotator, leave-one-out majority agreement and mean pairwise Cohen's κ.

With ``--taxonomy`` the labels are nodes of that taxonomy; without it they are a flat label
set (the labels found in the file). Errors name the command-line flag they concern; they are
ValueErrors, which the ``fuzzytruth`` entry point prints in one line with exit status 2.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import pandas as pd

from fuzzytruth.cli._output import emit

__all__ = ["add_parsers", "cmd_agreement"]

VIEWS = ("coefficients", "levels", "reliability", "annotators")

AGREEMENT_EXAMPLE = """\
examples:
  # overall agreement with 1,000 bootstrap resamples, on a taxonomy
  fuzzytruth agreement --taxonomy tax.json --annotations labels.csv --seed 1
  # flat labels (no taxonomy), point estimates only, as CSV
  fuzzytruth agreement --annotations votes.csv.gz --n-resamples 0 --format csv
  # where do annotators stop agreeing? which categories are ambiguous? who is careless?
  fuzzytruth agreement levels --taxonomy tax.json --annotations labels.csv
  fuzzytruth agreement reliability --taxonomy tax.json --annotations labels.csv
  fuzzytruth agreement annotators --annotations labels.csv --format json
"""

#: Python parameter names in library messages -> the flag a command-line user types.
_FLAGS = {
    "duplicates='first', 'last' or 'split'": "--duplicates first or last",
    "n_resamples": "--n-resamples",
    "confidence_level": "--confidence-level",
    "metric": "--metric",
    "duplicates=": "--duplicates ",
    "item=": "--item-column ",
    "annotator=": "--annotator-column ",
    "label=": "--label-column ",
    "implicit_root": "--implicit-root",
    "the encoding option": "--encoding",
}


def _as_flags(message: str) -> str:
    """A library message with its Python parameter names replaced by command-line flags."""
    for name, flag in _FLAGS.items():
        message = re.sub(rf"(?<![\w-]){re.escape(name)}", flag, message)
    return message


def add_parsers(subparsers: Any) -> None:
    """Add the ``agreement`` command to the ``fuzzytruth`` sub-command parsers."""
    p = subparsers.add_parser(
        "agreement",
        help="inter-annotator agreement, per-level agreement, category and annotator reliability",
        description="\n\n".join(__doc__.split("\n\n")[1:3]).replace("``", ""),
        epilog=AGREEMENT_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "view",
        nargs="?",
        default="coefficients",
        choices=VIEWS,
        help="what to report (default: coefficients)",
    )
    p.add_argument(
        "--annotations",
        type=Path,
        required=True,
        help="long table, one row per label (.csv/.tsv, possibly .gz/.bz2/.xz/.zst/.zip, "
        "or .parquet)",
    )
    p.add_argument(
        "--taxonomy",
        type=Path,
        help="taxonomy (.json nested, .csv/.tsv edge list); default: flat label set",
    )
    p.add_argument("--item-column", default="item_id", help="item column (default item_id)")
    p.add_argument(
        "--annotator-column", default="annotator_id", help="annotator column (default annotator_id)"
    )
    p.add_argument("--label-column", default="label", help="label column (default label)")
    p.add_argument(
        "--duplicates",
        choices=["error", "first", "last"],
        default="error",
        help="an annotator labelling an item twice: error (default), keep first or last",
    )
    p.add_argument("--encoding", default="utf-8", help="text encoding (default utf-8)")
    p.add_argument(
        "--metric",
        choices=["path", "squared_path", "nominal"],
        default="path",
        help="label distance of taxonomy_alpha (default path)",
    )
    p.add_argument(
        "--n-resamples",
        type=int,
        default=1000,
        help="bootstrap resamples over items (default 1000; 0: point estimates only)",
    )
    p.add_argument("--confidence-level", type=float, default=0.95)
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--format", choices=["text", "csv", "json"], default="text")
    p.set_defaults(handler=cmd_agreement)


def _read(args: argparse.Namespace) -> Any:
    from fuzzytruth.io.tables import read_annotations, read_taxonomy

    taxonomy = None
    if args.taxonomy is not None:
        try:
            taxonomy = read_taxonomy(args.taxonomy, encoding=args.encoding)
        except ValueError as err:
            raise ValueError(f"--taxonomy: {_as_flags(str(err))}") from None
    try:
        return read_annotations(
            args.annotations,
            taxonomy=taxonomy,
            item=args.item_column,
            annotator=args.annotator_column,
            label=args.label_column,
            duplicates=args.duplicates,
            encoding=args.encoding,
        )
    except ValueError as err:
        hint = (
            " (name the columns with --item-column, --annotator-column, --label-column)"
            if "header must name the columns" in str(err) or "missing column" in str(err)
            else ""
        )
        raise ValueError(f"--annotations: {_as_flags(str(err))}{hint}") from None


def _table(view: str, annotations: Any, args: argparse.Namespace) -> pd.DataFrame:
    from fuzzytruth import collection

    bootstrap = {
        "n_resamples": args.n_resamples,
        "confidence_level": args.confidence_level,
        "rng": args.seed,
    }
    if view == "coefficients":
        frame = collection.agreement(annotations, metric=args.metric, **bootstrap).to_frame()
        return frame.assign(category=frame["category"].fillna(""))
    if view == "levels":
        levels = collection.agreement_by_level(annotations, metric=args.metric, **bootstrap)
        return levels.to_frame()
    if view == "reliability":
        frame = collection.category_reliability(annotations).to_frame()
        return frame.assign(confused_with=frame["confused_with"].map(" ".join))
    return collection.annotator_agreement(annotations).to_frame()


def cmd_agreement(args: argparse.Namespace) -> int:
    """Read the table, compute the chosen view and print it."""
    if args.n_resamples < 0:
        raise ValueError(f"--n-resamples must be an integer >= 0; got {args.n_resamples}")
    if not 0 < args.confidence_level < 1:
        raise ValueError(f"--confidence-level must be within (0, 1); got {args.confidence_level}")
    annotations = _read(args)
    try:
        frame = _table(args.view, annotations, args)
    except ValueError as err:
        raise ValueError(f"--annotations ({args.view}): {_as_flags(str(err))}") from None
    emit(frame, args.format)
    return 0
