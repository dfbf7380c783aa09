"""``fuzzytruth agreement``: the collection analyst's command.

One command with four views of a multi-annotator table, each printed as text, CSV or JSON:

* ``coefficients`` (default): Fleiss' κ, Krippendorff's α (nominal) and taxonomy α with
  bootstrap intervals, then κ_j per raw label (``label_kappa``);
* ``levels``: the three coefficients after collapsing the labels to each taxonomy depth;
* ``reliability``: per category, membership statistics, ``closed_kappa`` and the ambiguity flag;
* ``annotators``: per annotator, leave-one-out majority agreement and mean pairwise Cohen's κ.

With ``--taxonomy`` the labels are nodes of that taxonomy; without it they are a flat label
set (the labels found in the file). The tables are the library's
(:mod:`fuzzytruth.collection`), printed as they are. The reliability view takes its membership
from a truth model (``--truth-model``, default the annotators' shares; ``--rankings`` for IRN
and PrIRN, whose table then has the membership columns and the flag only: ``closed_kappa``,
``n_confusions`` and ``confused_with`` count one label per reader, and a ranking's top group
may tie several classes (945 of the 9,602 dermatology rankings do), so they are left out, with
a note, and the flag reads ``ambiguous_share`` alone).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from fuzzytruth._lazy import Renamed, lazy_names
from fuzzytruth.cli._errors import Flags, UserError, note
from fuzzytruth.cli._options import (
    RANKINGS_HELP,
    add_annotation_columns,
    add_format_option,
    add_rankings_options,
    add_reading_options,
    add_taxonomy_options,
    add_truth_model_options,
    annotation_columns,
    library_option,
    literal_choices,
    reading,
)

__all__ = ["EXAMPLES", "HELP", "VIEWS", "add_arguments", "run"]

# the names of fuzzytruth.cli_collection (this module's old path) that changed, for one release
__getattr__, _ = lazy_names(
    __name__,
    {},
    globals(),
    renamed={
        "add_parsers": Renamed(
            "fuzzytruth.cli.app.add_command(subparsers, 'agreement')",
            serves="fuzzytruth.cli.app._agreement_parsers",
            was="fuzzytruth.cli_collection",
        ),
        "cmd_agreement": Renamed("fuzzytruth.cli.agreement.run", was="fuzzytruth.cli_collection"),
        "AGREEMENT_EXAMPLE": Renamed(
            "fuzzytruth.cli.agreement.EXAMPLES", was="fuzzytruth.cli_collection"
        ),
    },
)

HELP = "inter-annotator agreement, per-level agreement, category and annotator reliability"
DESCRIPTION = "\n\n".join(__doc__.split("\n\n")[1:3]).replace("``", "")
VIEWS = ("coefficients", "levels", "reliability", "annotators")

EXAMPLES = """\
examples:
  # overall agreement with 1,000 bootstrap resamples, on a taxonomy
  fuzzytruth agreement --taxonomy tax.json --annotations labels.csv --seed 1
  # flat labels (no taxonomy), point estimates only, as CSV
  fuzzytruth agreement --annotations votes.csv.gz --n-resamples 0 --format csv
  # where do annotators stop agreeing? which categories are ambiguous? who is careless?
  fuzzytruth agreement levels --taxonomy tax.json --annotations labels.csv
  fuzzytruth agreement reliability --taxonomy tax.json --annotations labels.csv
  fuzzytruth agreement annotators --annotations labels.csv --format json
  # the categories under a label model that weighs annotators by their estimated reliability
  fuzzytruth agreement reliability --taxonomy tax.json --annotations labels.csv \
      --truth-model dawid-skene
"""


def add_arguments(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The options of ``agreement``."""
    from fuzzytruth.annotations import DuplicatePolicy
    from fuzzytruth.collection import agreement
    from fuzzytruth.collection._counts import MetricName
    from fuzzytruth.io.tables import read_annotations

    parser.add_argument(
        "view", nargs="?", default=VIEWS[0], choices=VIEWS,
        help="what to report (default: %(default)s)",
    )
    parser.add_argument(
        "--annotations", type=Path,
        help="long table, one row per label (.csv/.tsv, possibly .gz/.bz2/.xz/.zst/.zip, "
        "or .parquet); required but with --rankings",
    )
    group = parser.add_argument_group("the truth of the reliability view")
    add_rankings_options(group, flags, help=f"instead of --annotations, {RANKINGS_HELP}")
    add_truth_model_options(group, flags)
    add_taxonomy_options(
        parser, flags, help="taxonomy (.json nested, .csv/.tsv edge list); default: flat label set"
    )
    add_annotation_columns(parser, flags)
    # agreement is defined on one label per (item, annotator): a vote split between labels
    # ("split") is refused by every coefficient, so the flag does not offer it
    library_option(
        parser, flags, "--duplicates", param="duplicates", function=read_annotations,
        choices=tuple(p for p in literal_choices(DuplicatePolicy) if p != "split"),
        help="an annotator labelling an item twice: an error, or keep the first or last label "
        "(default: %(default)s)",
    )
    add_reading_options(parser, flags)
    library_option(
        parser, flags, "--metric", param="metric", function=agreement,
        choices=literal_choices(MetricName),
        help="label distance of taxonomy_alpha (default: %(default)s)",
    )
    library_option(
        parser, flags, "--n-resamples", param="n_resamples", function=agreement, type=int,
        help="bootstrap resamples over items (0: point estimates only; default: %(default)s)",
    )
    library_option(parser, flags, "--confidence-level", param="confidence_level",
                   function=agreement, type=float,
                   help="level of the intervals (default: %(default)s)")
    library_option(parser, flags, "--seed", param="rng", type=int, default=0,
                   help="random seed (default: %(default)s)")
    add_format_option(parser, ("text", "csv", "json"))


def _read(args: argparse.Namespace) -> Any:
    from fuzzytruth.io.tables import read_annotations, read_taxonomy

    taxonomy = None
    if args.taxonomy is not None:
        try:
            taxonomy = read_taxonomy(args.taxonomy, implicit_root=args.implicit_root,
                                     **reading(args))
        except ValueError as err:
            raise ValueError(f"--taxonomy: {err}") from None
    try:
        return read_annotations(
            args.annotations,
            taxonomy=taxonomy,
            **annotation_columns(args),
            duplicates=args.duplicates,
            **reading(args),
        )
    except ValueError as err:
        hint = (
            " (name the columns with --item-column, --annotator-column, --label-column)"
            if ("header must name the columns" in str(err) or "missing column" in str(err))
            and ": pass " not in str(err)  # the reader offered the columns it found
            else ""
        )
        raise ValueError(f"--annotations: {err}{hint}") from None


def _check_truth_options(args: argparse.Namespace) -> None:
    """``--rankings``, ``--truth-model`` and ``--reliability`` go with the reliability view,
    and one of ``--annotations`` and ``--rankings`` is given."""
    if args.view != "reliability":
        given = [flag for flag, on in (("--rankings", args.rankings is not None),
                                       ("--truth-model", args.truth_model != "shares"),
                                       ("--reliability", args.reliability is not None)) if on]
        if given:
            raise UserError(f"{given[0]} goes with the reliability view (fuzzytruth agreement "
                            f"reliability); the {args.view} view reads the raw labels")
    if (args.annotations is None) == (args.rankings is None):
        raise UserError("give one of --annotations and --rankings (--rankings: reliability "
                        "view only)")


_LABEL_COLUMNS = ("closed_kappa", "n_confusions", "confused_with")
"""The reliability table's columns that count the raw labels, one per (item, annotator)."""


def _reliability_of_rankings(args: argparse.Namespace) -> Any:
    from fuzzytruth import collection
    from fuzzytruth.cli._inputs import read_labels, truth_model
    from fuzzytruth.truth.models import fit_truth

    fit = fit_truth(read_labels(args), truth_model(args))
    frame = collection.category_reliability(fit.membership).to_frame()
    note("--rankings: closed_kappa, n_confusions and confused_with are left out (they count "
         "one label per reader, and a ranking's top group may tie several classes); the "
         "ambiguous flag reads ambiguous_share alone")
    return frame.drop(columns=list(_LABEL_COLUMNS))


def _table(view: str, annotations: Any, args: argparse.Namespace) -> Any:
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
        return collection.agreement_by_level(annotations, metric=args.metric,
                                             **bootstrap).to_frame()
    if view == "reliability":
        from fuzzytruth.cli._inputs import truth_model

        frame = collection.category_reliability(annotations,
                                                truth_model=truth_model(args)).to_frame()
        return frame.assign(confused_with=frame["confused_with"].map(" ".join))
    return collection.annotator_agreement(annotations).to_frame()


def run(args: argparse.Namespace) -> int:
    """Read the table, compute the chosen view and print it."""
    from fuzzytruth._validation import check_confidence_level, check_n_resamples
    from fuzzytruth.cli._output import format_frame, write

    check_n_resamples(args.n_resamples, minimum=0)
    check_confidence_level(args.confidence_level)
    _check_truth_options(args)
    if args.rankings is not None:
        write(format_frame(_reliability_of_rankings(args), args.format))
        return 0
    annotations = _read(args)
    try:
        frame = _table(args.view, annotations, args)
    except ValueError as err:
        raise ValueError(f"--annotations {args.annotations} ({args.view}): {err}") from None
    write(format_frame(frame, args.format))
    return 0
