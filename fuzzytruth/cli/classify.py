"""``fuzzytruth classify``: classifiers' predictions against uncertain (or set-valued) truth.

Each ``--predictions`` file is one classifier (:func:`fuzzytruth.io.read_predictions`: a long
or wide table, or a NumPy matrix); the truth is annotations (``--annotations`` with
``--taxonomy``) or partial rankings (``--rankings``) turned into a truth by ``--truth-model``,
or crisp label sets (``--qrels``, ImageNet ReaL). Prints each classifier's value of each
measure with its interval over items and its spread over the truth (the default), one row per
item (``-q``), or every pairwise comparison (``--compare``: :func:`fuzzytruth.stats.compare`);
``--human`` adds the annotators scored against each other (leave-one-annotator-out), and
``--certainty K`` the truth's own rank-K annotation certainty
(:func:`fuzzytruth.classify.annotation_certainty`: how far an accuracy against it can be
trusted).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from fuzzytruth.cli._errors import Flags, UserError
from fuzzytruth.cli._options import (
    add_annotation_columns,
    add_format_option,
    add_reading_options,
    add_taxonomy_options,
    add_undefined_options,
    library_option,
    listing,
    presets_epilog,
    reading,
)
from fuzzytruth.cli._output import TABLE_FORMATS, format_frame, write

__all__ = ["CERTAINTY_SYSTEM", "DEFAULT_MEASURES", "EXAMPLES", "HELP", "add_arguments",
           "run"]

HELP = "evaluate and compare classifiers against uncertain truth"
EXAMPLES = """\
examples:
  # two classifiers against annotators' labels (their shares), top-1/top-5 and cross-entropy
  fuzzytruth classify --predictions a.csv --predictions b.csv \\
      --annotations labels.csv --taxonomy tax.json -m top1 -m top5 -m CE
  # a Dawid-Skene truth, pairwise comparisons
  fuzzytruth classify --predictions a.npz --predictions b.npz --annotations labels.csv \\
      --taxonomy tax.json --truth-model dawid-skene -m Acc --compare
  # readers' partial rankings, PrIRN at reliability 5, accuracy at the risk level, and the
  # readers themselves scored against the others
  fuzzytruth classify --predictions net.csv --rankings ddx.json --classes conditions.txt \\
      --taxonomy risks.csv --truth-model prirn --reliability 5 \\
      -m "Acc(target=top1)@3" -m "Acc(level=1)" --human
  # ... with the readers' rank-1 and rank-2 annotation certainty beside it
  fuzzytruth classify --predictions net.csv --rankings ddx.json --classes conditions.txt \\
      --taxonomy risks.csv --truth-model prirn -m "Acc(target=top1)" \\
      --certainty 1 --certainty 2
  # ImageNet ReaL: crisp label sets as qrels (item, 0, class, 1)
  fuzzytruth classify --predictions net.csv --qrels real.qrels -m ReaL -m ReaL@5
"""
DEFAULT_MEASURES = ("Acc", "top5")
"""What ``classify`` reports without ``-m``: top-5 accuracy only where every classifier has
more than 5 classes (with fewer it is 1 whatever the scores)."""


def add_arguments(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The options of ``classify``."""
    from fuzzytruth.classify.human import leave_one_annotator_out
    from fuzzytruth.evaluation.engine import evaluate
    from fuzzytruth.io.predictions import LAYOUTS, read_predictions
    from fuzzytruth.measures.catalog import presets
    from fuzzytruth.stats.compare import ALL_CORRECTIONS, compare
    from fuzzytruth.stats.procedures import METHODS
    from fuzzytruth.truth.models import TRUTH_MODELS, PrIRN

    parser.add_argument(
        "--predictions", type=Path, action="append", required=True, metavar="FILE",
        help="one classifier's predictions, repeatable: a long table (item_id, class, score), "
        "a wide one (item_id, then one column per class) as .csv/.tsv/.parquet, or a .npy/.npz "
        "matrix (named after the file)",
    )
    library_option(
        parser, flags, "--layout", param="layout", function=read_predictions, choices=LAYOUTS,
        help="how a predictions table is laid out (default: %(default)s: long when the header "
        "names item_id, class and score)",
    )
    library_option(
        parser, flags, "--prediction-classes", param="classes", type=Path, default=None,
        metavar="FILE", help="the classes of a .npy matrix's columns, one per line",
    )
    library_option(
        parser, flags, "--prediction-items", param="items", type=Path, default=None,
        metavar="FILE", help="the item ids of a .npy matrix's rows, one per line (default: an "
        ".npz's items array, else 0, 1, ...)",
    )
    truth = parser.add_argument_group(
        "ground truth (one kind: --annotations with --taxonomy, --rankings, or --qrels)")
    add_taxonomy_options(truth, flags, help="taxonomy file (.json nested, .csv/.tsv edges); "
                         "its levels are what level= in a measure counts")
    truth.add_argument("--annotations", type=Path,
                       help="annotation table (.csv/.tsv/.parquet: item_id, annotator_id, label)")
    add_annotation_columns(truth, flags)
    truth.add_argument(
        "--rankings", type=Path, metavar="FILE",
        help="partial rankings with ties: selectors JSON or a long table item_id, reader_id, "
        "class, rank_group",
    )
    truth.add_argument("--classes", type=Path, metavar="FILE",
                       help="with --rankings: the class names, one per line (a selectors "
                       "file's class id i is line i + 1)")
    truth.add_argument("--qrels", type=Path,
                       help="crisp label sets as TREC qrels (item 0 class 1): ImageNet ReaL")
    library_option(
        truth, flags, "--truth-model", param="truth_model", default="shares",
        choices=tuple(TRUTH_MODELS),
        help="the model that turns the labels into the truth: shares, dawid-skene, one-coin, "
        "mace, irn or prirn (the last two need --rankings) (default: %(default)s)",
    )
    library_option(
        truth, flags, "--reliability", param="temperature", type=float, default=None,
        metavar="T", help="with --truth-model prirn, its temperature (the readers' "
        f"reliability; default {PrIRN.temperature:g})",
    )
    library_option(
        parser, flags, "--measure", "-m", param="measures", action="append", metavar="MEASURE",
        default=None,
        help="classifier measure, repeatable: Acc, top1, top5, Acc(level=1)@3, "
        "Acc(target=top1), ReaL, CE, KL, JS, poJSD, TV, MD, Wasserstein, SoftAcc, SoftF1, "
        "Brier, ECE, EntropyCorr, or as scikit-learn names them (acc, accuracy, log_loss, ce, "
        f"brier, ece...) (default: {listing(DEFAULT_MEASURES)}; top5 only where every "
        "classifier has more than 5 classes)",
    )
    table = presets()
    library_option(
        parser, flags, "--preset", param="preset", function=evaluate, choices=tuple(table),
        help="convention preset, described below (default: %(default)s; lewidi rounds as the "
        "LeWiDi scripts)",
    )
    rules = parser.add_argument_group("which items count")
    add_undefined_options(rules, flags, unit="an item", missing="predicted items the truth lacks")
    library_option(rules, flags, "-c", "--complete", param="complete", function=evaluate,
                   action="store_true", help="every item of the truth must be predicted")
    group = parser.add_argument_group("uncertainty")
    library_option(group, flags, "--n-worlds", param="n_worlds", function=evaluate, type=int,
                   help="truth worlds sampled (default: %(default)s)")
    library_option(group, flags, "--seed", param="rng", type=int, default=0,
                   help="seed of the one random generator (default: %(default)s)")
    library_option(group, flags, "--confidence-level", param="confidence_level",
                   function=evaluate, type=float,
                   help="level of the intervals (default: %(default)s)")
    out = parser.add_argument_group("output")
    out.add_argument("-q", "--per-item", action="store_true",
                     help="one row per (classifier, item, measure) instead of the aggregates")
    out.add_argument("--compare", action="store_true",
                     help="every pair of classifiers: tests with their intervals")
    library_option(out, flags, "--baseline", param="baseline", function=compare,
                   help="with --compare: compare every other classifier with this one")
    library_option(out, flags, "--method", param="method", function=compare, choices=METHODS,
                   help="with --compare: the procedure (default: compare()'s, t)")
    library_option(out, flags, "--correction", param="correction", function=compare,
                   choices=ALL_CORRECTIONS,
                   help="with --compare: multiple-comparison adjustment (default: %(default)s)")
    library_option(out, flags, "--n-resamples", param="n_resamples", function=compare,
                   type=int, help="with --compare: resamples of the bootstrap and "
                   "randomisation procedures (default: %(default)s)")
    out.add_argument(
        "--human", action="store_true",
        help="add the annotators, each scored against the others' truth (leave-one-annotator-"
        f"out, {leave_one_annotator_out.__module__})",
    )
    library_option(
        out, flags, "--certainty", param="k", type=int, action="append", default=None,
        metavar="K", help="add the truth's rank-K annotation certainty, repeatable (Stutz et "
        "al. 2023): per item, the share of the truth's worlds that agree on its K-th most "
        "plausible class; its mean over the items, with a t interval (one row per item with "
        "-q)",
    )
    add_reading_options(parser, flags)
    add_format_option(parser, TABLE_FORMATS)
    parser.epilog = f"{EXAMPLES}\n{presets_epilog()}\n"


def read_classifiers(args: argparse.Namespace) -> dict[str, Any]:
    """The classifiers by name (their file names; two files of one name are an error)."""
    from fuzzytruth.io.predictions import read_predictions

    out: dict[str, Any] = {}
    for path in args.predictions:
        predictions = read_predictions(path, layout=args.layout, classes=args.prediction_classes,
                                       items=args.prediction_items, **reading(args))
        if predictions.name in out:
            raise UserError(f"two classifiers are named {predictions.name!r} (--predictions); "
                            "rename a file")
        out[predictions.name] = predictions
        args.flags.source(f"the predictions {predictions.name!r}", f"--predictions {path}")
    return out


def read_truth(args: argparse.Namespace) -> tuple[Any, Any]:
    """The truth, and the labels it was fitted on (None for label sets)."""
    from fuzzytruth.io import read_trec_qrels

    given = [f for f in ("annotations", "rankings", "qrels") if getattr(args, f) is not None]
    if len(given) != 1:
        raise UserError("give exactly one ground truth: --annotations (with --taxonomy), "
                        f"--rankings or --qrels (got {len(given)}"
                        + (f": {', '.join('--' + g for g in given)})" if given else ")"))
    if args.qrels is not None:
        for option in ("taxonomy", "classes", "reliability"):
            if getattr(args, option) is not None:
                raise UserError(f"--{option} goes with --annotations or --rankings; --qrels "
                                "would ignore it")
        if args.truth_model != "shares" or args.human:
            flag = "--human" if args.human else "--truth-model"
            raise UserError(f"{flag} needs labels (--annotations or --rankings); --qrels are "
                            "label sets already")
        return read_trec_qrels(args.qrels, **reading(args)), None
    from fuzzytruth.cli._inputs import read_labels, truth_model

    if args.annotations is not None and args.taxonomy is None:
        raise UserError("--annotations needs --taxonomy")
    labels = read_labels(args)
    model = truth_model(args)
    try:
        return model.fit(labels), labels
    except ValueError as err:
        raise UserError(f"--truth-model {args.truth_model}: {err}") from None


def run(args: argparse.Namespace) -> int:
    """Evaluate the classifiers (and compare them) and print."""
    import pandas as pd

    from fuzzytruth._validation import check_n_worlds
    from fuzzytruth.cli._inputs import check_comparable
    from fuzzytruth.cli.evaluate import measure_list
    from fuzzytruth.evaluation.engine import evaluate
    from fuzzytruth.stats import compare

    _check_certainty_flags(args)
    truth, labels = read_truth(args)
    classifiers = read_classifiers(args)
    few = min(p.n_classes for p in classifiers.values()) <= 5  # top5 would be 1: not default
    measures = measure_list(args.measure or [m for m in DEFAULT_MEASURES
                                             if not (few and m == "top5")])
    n_items = max(p.n_items for p in classifiers.values())
    check_n_worlds(args.n_worlds, bytes_per_world=8.0 * n_items)
    options = dict(preset=args.preset, undefined=args.undefined, missing=args.missing,
                   complete=args.complete, n_worlds=args.n_worlds,
                   confidence_level=args.confidence_level)
    evaluation = evaluate(classifiers, truth, measures, rng=args.seed, **options)
    if args.compare:
        check_comparable(evaluation, "classify --compare", "items", "classifiers")
        comparison = compare(evaluation, baseline=args.baseline, method=args.method,
                             correction=args.correction, n_resamples=args.n_resamples,
                             confidence_level=args.confidence_level, rng=args.seed)
        frame = comparison.table
        if args.format == "text":
            from fuzzytruth.report import comparison_text

            write(comparison_text(comparison))
            return 0
    elif args.per_item:
        frame = evaluation.to_frame().rename(columns={"query_id": "item_id"})
        if args.certainty:
            frame = pd.concat([frame, _certainty(args, truth, True)], ignore_index=True)
    else:
        aggregate = evaluation.aggregate()
        frame = aggregate.rename(columns={"n_queries": "n_items"})
        if args.human:
            frame = pd.concat([frame, _human(args, labels, measures, options)],
                              ignore_index=True)
        if args.certainty:
            frame = pd.concat([frame, _certainty(args, truth, False)], ignore_index=True)
    if args.compare:
        write(format_frame(frame, args.format))
        return 0
    from fuzzytruth.report import drop_empty_columns, notes_text, system_notes

    table = format_frame(drop_empty_columns(frame), args.format)  # as evaluate prints
    if args.format == "text" and not args.per_item:  # what the intervals mean
        notes = system_notes(aggregate, n_worlds=evaluation.n_worlds, columns=True,
                             unit="items")
        if args.certainty:
            notes.append(CERTAINTY_NOTE)
        table += "\n" + notes_text(notes) + "\n"
    write(table)
    return 0


def _human(args: argparse.Namespace, labels: Any, measures: list, options: dict) -> Any:
    """The leave-one-annotator-out rows, in the aggregate table's columns."""
    from fuzzytruth.classify.human import leave_one_annotator_out

    if labels is None:
        raise UserError("--human needs labels (--annotations or --rankings)")
    options = {k: v for k, v in options.items() if k != "complete"}
    from fuzzytruth.cli._inputs import truth_model

    human = leave_one_annotator_out(labels, measures, truth_model=truth_model(args),
                                    rng=args.seed, **options)
    table = human.summary()
    return table.assign(system="annotators (leave-one-out)", estimand="items",
                        method="leave-one-annotator-out").rename(
        columns={"n_items": "n_items"})[
        ["system", "measure", "value", "ci_low", "ci_high", "estimand", "n_items",
         "truth_low", "truth_high", "confidence_level", "method"]]


CERTAINTY_SYSTEM = "truth (annotation certainty)"
"""The ``system`` of the ``--certainty`` rows: they describe the truth, not a classifier."""

CERTAINTY_NOTE = (
    "certainty@K: per item, the largest share of the truth's worlds whose K-th most plausible "
    "class is one class; 1 when every world agrees (and for a truth that is one point, method "
    "exact); its mean over the items, ci_low, ci_high the t interval over them."
)
"""What the ``--certainty`` rows mean, below the text table."""


def _check_certainty_flags(args: argparse.Namespace) -> None:
    """``--certainty``: its values and the company it keeps, checked before anything is
    read."""
    if not args.certainty:
        return
    bad = [k for k in args.certainty if k < 1]
    if bad:
        raise UserError(f"--certainty must be a rank of at least 1 (1 = the most plausible "
                        f"class); got {bad[0]}")
    if args.compare:
        raise UserError("--certainty describes the truth, not a pair of classifiers; give it "
                        "without --compare")
    if args.qrels is not None:
        raise UserError("--certainty needs a categorical truth (--annotations or "
                        "--rankings); --qrels gives label sets, which have no plausibility "
                        "worlds to agree or disagree")


def _certainty(args: argparse.Namespace, truth: Any, per_item: bool) -> Any:
    """The ``--certainty`` rows: for each rank, the mean over the truth's items with its t
    interval in the aggregate table's columns, or with -q one row per item."""
    import pandas as pd

    from fuzzytruth.classify import annotation_certainty

    rows = []
    for k in dict.fromkeys(args.certainty):  # each rank once, in the order given
        result = annotation_certainty(truth, k=k, n_worlds=args.n_worlds, rng=args.seed)
        row = result.summary(confidence_level=args.confidence_level)
        if per_item:
            values = result.certainty
            rows.append(pd.DataFrame({"system": CERTAINTY_SYSTEM, "item_id": values.index,
                                      "measure": row["measure"], "mean": values.to_numpy(),
                                      "method": row["method"]}))
            continue
        rows.append(pd.DataFrame([{"system": CERTAINTY_SYSTEM, "estimand": "items",
                                   **row.drop("n_worlds").to_dict()}]))
    return pd.concat(rows, ignore_index=True)
