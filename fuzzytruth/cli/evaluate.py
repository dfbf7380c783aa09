"""``fuzzytruth evaluate``: runs against crisp or uncertain truth.

Per-system aggregates (default), per-query values (``-q``), or, with ``--format trec``,
trec_eval's own output (:mod:`fuzzytruth.cli._trec`) — the default when the truth is crisp
qrels and every ``-m`` is a trec_eval name, as a trec_eval user types them.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from fuzzytruth.cli._errors import Flags, UserError
from fuzzytruth.cli._options import (
    DEFAULT_MEASURES,
    add_format_option,
    add_measure_option,
    add_rule_options,
    add_run_options,
    add_truth_options,
    add_world_options,
    presets_epilog,
)
from fuzzytruth.cli._output import TABLE_FORMATS, format_frame, write

__all__ = ["EXAMPLES", "HELP", "add_arguments", "measure_list", "run"]

HELP = "evaluate runs against uncertain or crisp truth"
EXAMPLES = """\
examples:
  # categorical truth: a taxonomy and multi-annotator labels, runs of query-by-example
  fuzzytruth evaluate --taxonomy tax.json --annotations labels.csv \\
      --run strong.txt --run weak.txt --measure P@10 --measure AP --n-worlds 500
  # the truth of a label model that weighs each annotator by its estimated reliability
  fuzzytruth evaluate --taxonomy tax.json --annotations labels.csv --run strong.txt \
      --measure AP --truth-model dawid-skene
  # dermatologists' partial rankings, PrIRN at temperature (readers' reliability) 3
  fuzzytruth evaluate --rankings selectors.json --classes conditions.txt --run model.txt \
      --measure P@10 --truth-model prirn --reliability 3
  # crisp TREC qrels, a tidy table as CSV
  fuzzytruth evaluate --qrels qrels.txt --run run.txt --measure nDCG@10 --format csv
  # trec_eval's flags and names print trec_eval's output
  fuzzytruth evaluate --qrels qrels.txt --run run.txt -m official -q -c
"""
FORMATS = ("trec", *TABLE_FORMATS)


def add_arguments(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The options of ``evaluate``."""
    add_truth_options(parser, flags)
    add_run_options(parser, flags)
    add_measure_option(parser, flags)
    add_rule_options(parser, flags)
    add_world_options(parser, flags)
    parser.add_argument(
        "-q", "--per-query", action="store_true",
        help="one row per (system, query) instead of the aggregates; with --format trec, "
        "trec_eval's per-query lines before its summary",
    )
    add_format_option(
        parser, FORMATS, default=None,
        help="trec: trec_eval 9.0.8's output, byte for byte (the default when the truth is "
        "--qrels and every -m is a trec_eval name, e.g. map, P_10, ndcg_cut.10, official); "
        "text (the default otherwise), csv or json: a tidy table",
    )
    parser.epilog = f"{EXAMPLES}\n{presets_epilog()}\n"


def measure_list(texts: Sequence[str]) -> list[Any]:
    """The measures ``-m`` names, groups expanded (trec_eval's meaning of a bare cutoff name),
    each once."""
    from fuzzytruth.measures.names import expand

    measures: list[Any] = []
    for text in texts:
        if text.strip() == "runid" or text.strip().partition(".")[0] == "relstring":
            raise UserError(
                f"-m {text}: a line of trec_eval's output, not a measure; it is printed with "
                "--format trec"
            )
        try:
            named = expand(text, trec_groups=True)
        except ValueError as err:
            raise UserError(f"-m {text}: {err}") from None
        measures += [m for m in named if m not in measures]
    return measures


def run(args: argparse.Namespace) -> int:
    """Evaluate and print."""
    from fuzzytruth.cli._inputs import evaluate_runs, is_crisp, read_runs, read_truth
    from fuzzytruth.cli._trec import is_trec_spelling

    truth, categories = read_truth(args)
    runs = read_runs(args.run, duplicates=args.duplicates, encoding=args.encoding)
    texts = args.measure or list(DEFAULT_MEASURES)
    crisp = is_crisp(truth)
    fmt = args.format
    if fmt is None:
        trec = crisp and args.measure is not None and all(map(is_trec_spelling, texts))
        fmt = "trec" if trec else "text"
    if fmt == "trec":
        if not crisp:
            raise UserError(
                "--format trec prints trec_eval's output, one value per query: it needs crisp "
                "--qrels (under uncertain truth use --format text, csv or json)"
            )
        write(_trec_output(args, runs, truth, texts))
        return 0
    evaluation = evaluate_runs(args, runs, truth, categories, measure_list(texts))
    frame = evaluation.to_frame() if args.per_query else evaluation.aggregate()
    write(format_frame(frame, fmt))
    return 0


def _trec_output(args: argparse.Namespace, runs: dict[str, Any], qrels: Any,
                 texts: Sequence[str]) -> str:
    """trec_eval's output for each run, evaluated on its own as trec_eval evaluates it."""
    from fuzzytruth.cli._inputs import evaluate_runs
    from fuzzytruth.cli._trec import relevance_strings, render, trec_lines
    from fuzzytruth.measures import Measure

    lines = trec_lines(texts)
    # the queries and ranking conventions come from an evaluation, even of runid alone
    measures = [line.measure for line in lines if line.measure is not None] or [Measure("NumQ")]
    lengths = {line.length for line in lines if line.base == "relstring"}
    blocks = []
    for name, run in runs.items():
        evaluation = evaluate_runs(args, {name: run}, qrels, None, measures)
        frame = evaluation.to_frame()
        per_query = dict(zip(zip(frame["query_id"], frame["measure"], strict=True),
                             frame["mean"], strict=True))
        aggregate = evaluation.aggregate()
        summary = dict(zip(aggregate["measure"], aggregate["value"], strict=True))
        answered = set(run.queries)
        queries = [q for q in evaluation.queries if q in answered]  # -c adds others: not printed
        conventions = evaluation.conventions
        relstrings = {
            length: relevance_strings(
                run, qrels, queries, length=length, ties=conventions["ties"],
                score_dtype=conventions["score_dtype"], depth=conventions["depth"],
                judged_only=conventions["judged_only"],
            )
            for length in lengths
        }
        blocks.append(render(
            lines, run_name=run.name, per_query=per_query, summary=summary, queries=queries,
            relstrings=relstrings, query_lines=args.per_query,
        ))
    return "".join(blocks)
