"""``fuzzytruth compare``: every pair of runs, tests with their intervals
(:func:`fuzzytruth.stats.compare`)."""

from __future__ import annotations

import argparse

from fuzzytruth.cli._errors import Flags
from fuzzytruth.cli._options import (
    add_format_option,
    add_measure_option,
    add_rule_options,
    add_run_options,
    add_truth_options,
    add_world_options,
    library_option,
    listing,
    presets_epilog,
    reading,
)
from fuzzytruth.cli._output import TABLE_FORMATS, format_frame, write

__all__ = ["EXAMPLES", "HELP", "add_arguments", "run"]

HELP = "pairwise comparison with intervals and p-values"
EXAMPLES = """\
example:
  fuzzytruth compare --taxonomy tax.json --annotations labels.csv \\
      --run a.txt --run b.txt --run c.txt --measure AP --method randomization --seed 1
"""


def add_arguments(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The options of ``compare``: those of ``evaluate``, then the comparison's."""
    from fuzzytruth.stats import compare
    from fuzzytruth.stats._validation import ALTERNATIVES
    from fuzzytruth.stats.compare import ALL_CORRECTIONS
    from fuzzytruth.stats.procedures import METHODS

    add_truth_options(parser, flags)
    add_run_options(parser, flags)
    add_measure_option(parser, flags)
    add_rule_options(parser, flags)
    add_world_options(parser, flags)
    group = parser.add_argument_group("comparison")
    library_option(
        group, flags, "--baseline", param="baseline", function=compare,
        help="compare every other run with this one (default: all pairs)",
    )
    library_option(
        group, flags, "--method", param="method", function=compare, choices=METHODS,
        help="the procedure giving the test and its interval; wilcoxon and sign test the "
        "median and give no interval (default: compare()'s, t)",
    )
    library_option(
        group, flags, "--correction", param="correction", function=compare,
        choices=ALL_CORRECTIONS,
        help="multiple-comparison adjustment within each measure: Holm, Bonferroni, "
        "Benjamini-Hochberg (bh), Benjamini-Yekutieli (by), the Romano-Wolf bootstrap "
        "step-down, Tukey HSD (randomised or paired ANOVA; assumes exchangeable systems) or "
        "none (default: %(default)s)",
    )
    library_option(
        group, flags, "--alternative", param="alternative", function=compare,
        choices=ALTERNATIVES,
        help="alternative hypothesis; greater: the first run scores higher "
        f"({listing(ALTERNATIVES)}; default: %(default)s)",
    )
    library_option(
        group, flags, "--n-resamples", param="n_resamples", function=compare, type=int,
        help="resamples of the bootstrap and randomisation procedures, Romano-Wolf and the "
        "randomised Tukey test (default: %(default)s)",
    )
    add_format_option(parser, (*TABLE_FORMATS, "latex"))
    parser.epilog = f"{EXAMPLES}\n{presets_epilog()}\n"


def run(args: argparse.Namespace) -> int:
    """Evaluate, compare and print."""
    from fuzzytruth.cli._inputs import check_comparable, evaluate_runs, read_runs, read_truth
    from fuzzytruth.cli._options import DEFAULT_MEASURES
    from fuzzytruth.cli.evaluate import measure_list
    from fuzzytruth.report import comparison_text
    from fuzzytruth.stats import compare

    truth, categories = read_truth(args)
    runs = read_runs(args.run, duplicates=args.duplicates, flags=args.flags, **reading(args))
    measures = measure_list(args.measure or list(DEFAULT_MEASURES), preset=args.preset)
    evaluation = evaluate_runs(args, runs, truth, categories, measures)
    check_comparable(evaluation, "compare", "queries", "runs")
    comparison = compare(
        evaluation,
        baseline=args.baseline,
        method=args.method,
        correction=args.correction,
        alternative=args.alternative,
        confidence_level=args.confidence_level,
        n_resamples=args.n_resamples,
        rng=args.seed,
    )
    if args.format == "latex":
        write(comparison.to_latex() + "\n")
    elif args.format == "text":
        write(comparison_text(comparison))
    else:
        write(format_frame(comparison.table, args.format))
    return 0
