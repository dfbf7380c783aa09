"""The ``fuzzytruth`` command: evaluate, compare, displacement, repro, demo.

User errors (a bad option, a missing or malformed file, an unknown measure) print one line on
stderr and exit with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from fuzzytruth.cli._output import emit

if TYPE_CHECKING:  # pandas loads when a command runs, not for --help
    import pandas as pd


EXIT_USAGE = 2

EVALUATE_EXAMPLE = """\
examples:
  # categorical truth: a taxonomy and multi-annotator labels, runs of query-by-example
  fuzzytruth evaluate --taxonomy tax.json --annotations labels.csv \\
      --run strong.txt --run weak.txt --measure P@10 --measure AP --n-worlds 500
  # crisp TREC qrels
  fuzzytruth evaluate --qrels qrels.txt --run run.txt --measure nDCG@10 --format csv
"""
COMPARE_EXAMPLE = """\
example:
  fuzzytruth compare --taxonomy tax.json --annotations labels.csv \\
      --run a.txt --run b.txt --run c.txt --measure AP --method randomization --seed 1
"""
DISPLACEMENT_EXAMPLE = """\
example:
  fuzzytruth displacement --answers answers.csv --runs runs.csv --n-items 10000 --by system
  answers.csv: query_id,annotator_id,item_id,rank,relevance
  runs.csv:    system,query_id,item_id,rank
"""
REPRO_EXAMPLE = """\
example:
  fuzzytruth repro            # both sections
  fuzzytruth repro section4   # Santini §4: the Figure 1 image and a constructed collection
"""
DEMO_EXAMPLE = """\
example:
  fuzzytruth demo --out demo_output --figure-format pdf
"""


class UserError(Exception):
    """A mistake in the command line or its files: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ---------------------------------------------------------------------------------------------
# Shared options
def _add_truth_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("ground truth (give one kind)")
    group.add_argument(
        "--taxonomy", type=Path, help="taxonomy file (.json nested, .csv/.tsv edges)"
    )
    group.add_argument(
        "--annotations",
        type=Path,
        help="annotation table (.csv/.tsv/.parquet: item_id, annotator_id, label)",
    )
    group.add_argument(
        "--query-categories",
        type=Path,
        help="optional CSV query_id,category; default: each query item's own uncertain category",
    )
    group.add_argument("--qrels", type=Path, help="crisp TREC qrels file (qid iter docno rel)")
    group.add_argument(
        "--prob-qrels",
        type=Path,
        help="qrels with a probability column (.csv/.tsv: query_id, doc_id, probability[, grade])",
    )


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--run",
        type=Path,
        action="append",
        required=True,
        metavar="FILE",
        help="TREC run file (qid Q0 docno rank score tag); repeat for several systems",
    )
    parser.add_argument(
        "--measure",
        "-m",
        action="append",
        metavar="MEASURE",
        help=(
            "measure: canonical (P@10, AP, nDCG@10), trec_eval (map, ndcg_cut_10, P.5,10) or "
            "ir_measures spelling, or a group: official, all_trec; repeatable"
        ),
    )
    parser.add_argument("--preset", default="trec", help="convention preset (default: trec)")
    rules = parser.add_argument_group("which queries and documents count (trec_eval's flags)")
    rules.add_argument(
        "-c", "--complete", action="store_true",
        help="also score the truth's queries that a run does not answer, as empty lists",
    )
    rules.add_argument(
        "--undefined", choices=["zero", "skip"], default="zero",
        help="a query without relevant document scores 0 (default, trec_eval) or is left out",
    )
    rules.add_argument(
        "--missing", choices=["skip", "error"], default="skip",
        help="run queries the truth does not judge: ignored with a note (default) or an error",
    )
    rules.add_argument(
        "-M", "--depth", type=int, default=None, help="evaluate only the top N of each list"
    )
    rules.add_argument(
        "-l", "--relevance-level", type=float, default=None,
        help="grade from which a document is relevant (default: the preset's, 1)",
    )
    rules.add_argument(
        "-J", "--judged-only", action="store_true",
        help="crisp qrels: remove unjudged documents from the rankings first",
    )
    parser.add_argument("--n-worlds", type=int, default=1000, help="sampled ground truths")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--confidence-level", type=float, default=0.95)


def _add_format(parser: argparse.ArgumentParser, choices: Sequence[str]) -> None:
    parser.add_argument("--format", choices=choices, default="text", help="output format")


# ---------------------------------------------------------------------------------------------
# Loading
def _read_runs(paths: Sequence[Path]) -> dict[str, Any]:
    from fuzzytruth.io import read_trec_run

    runs: dict[str, Any] = {}
    for path in paths:
        run = read_trec_run(path)
        name = run.name if run.name and run.name not in runs else path.stem
        if name in runs:
            raise UserError(f"two runs are named {name!r}; rename a file or its tag column")
        runs[name] = run
    return runs


def _read_truth(args: argparse.Namespace) -> tuple[Any, dict | None]:
    from fuzzytruth.io import (
        read_annotations,
        read_probabilistic_qrels,
        read_taxonomy,
        read_trec_qrels,
    )
    from fuzzytruth.truth.membership import Membership

    kinds = [k for k in ("annotations", "qrels", "prob_qrels") if getattr(args, k) is not None]
    if len(kinds) != 1:
        raise UserError(
            "give exactly one ground truth: --taxonomy with --annotations, --qrels, or "
            f"--prob-qrels (got {len(kinds)})"
        )
    categories = None
    if args.query_categories is not None:
        from fuzzytruth.io.tables import read_delimited

        path = args.query_categories
        tab = ".tsv" in Path(path).name.lower()
        frame = read_delimited(path, delimiter="\t" if tab else ",",
                               required=["query_id", "category"], only_required=True)
        again = frame["query_id"].duplicated().to_numpy()
        if again.any():
            line = int(frame.attrs["lines"][again.argmax()])
            raise UserError(f"{path}, line {line}: query {frame['query_id'][again].iloc[0]!r} "
                            "has a second category (--query-categories: one row per query)")
        categories = dict(zip(frame["query_id"], frame["category"], strict=True))
    if kinds[0] == "annotations":
        if args.taxonomy is None:
            raise UserError("--annotations needs --taxonomy")
        taxonomy = read_taxonomy(args.taxonomy)
        return Membership.from_annotations(
            read_annotations(args.annotations, taxonomy=taxonomy)
        ), categories
    if kinds[0] == "qrels":
        return read_trec_qrels(args.qrels), None
    return read_probabilistic_qrels(args.prob_qrels), None


def _evaluate(args: argparse.Namespace) -> Any:
    from fuzzytruth.evaluation.engine import evaluate

    truth, categories = _read_truth(args)
    runs = _read_runs(args.run)
    from fuzzytruth.measures.names import expand

    measures = [m for name in args.measure or ["P@10", "AP", "nDCG@10"] for m in expand(name)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        evaluation = evaluate(
            runs,
            truth,
            measures,
            preset=args.preset,
            undefined=args.undefined,
            missing=args.missing,
            complete=args.complete,
            depth=args.depth,
            relevance_level=args.relevance_level,
            judged_only=args.judged_only,
            query_categories=categories,
            n_worlds=args.n_worlds,
            rng=args.seed,
            confidence_level=args.confidence_level,
        )
    for warning in caught:  # one line each, naming the flag rather than the Python argument
        print(f"fuzzytruth: note: {_flag_names(str(warning.message))}", file=sys.stderr)
    return evaluation


_FLAGS = {
    "confidence_level": "--confidence-level",
    "n_worlds": "--n-worlds",
    "n_resamples": "--n-resamples",
    "missing": "--missing",
    "undefined": "--undefined",
    "complete": "--complete",
    "depth": "--depth",
    "relevance_level": "--relevance-level",
    "judged_only": "--judged-only",
    "preset": "--preset",
    "query_categories": "--query-categories",
    "method": "--method",
    "correction": "--correction",
    "baseline": "--baseline",
}


def _flag_names(message: str) -> str:
    """A library message with each Python argument name replaced by its command-line flag."""
    pattern = re.compile(r"\b(" + "|".join(_FLAGS) + r")\b(?==| must|\))")
    return pattern.sub(lambda m: _FLAGS[m.group(1)], message)


# ---------------------------------------------------------------------------------------------
# Commands
def cmd_evaluate(args: argparse.Namespace) -> int:
    """Evaluate runs; per-system aggregates, or per-query distributions with --per-query."""
    evaluation = _evaluate(args)
    frame = evaluation.to_frame() if args.per_query else evaluation.aggregate()
    emit(frame, args.format)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """Compare runs pairwise with intervals and p-values."""
    from fuzzytruth.stats import compare

    evaluation = _evaluate(args)
    comparison = compare(
        evaluation,
        baseline=args.baseline,
        method=args.method,
        correction=args.correction,
        confidence_level=args.confidence_level,
        n_resamples=args.n_resamples,
        rng=args.seed,
    )
    if args.format == "latex":
        sys.stdout.write(comparison.to_latex() + "\n")
    elif args.format == "text":
        sys.stdout.write(comparison.summary() + "\n")
    else:
        emit(comparison.table, args.format)
    return 0


def cmd_displacement(args: argparse.Namespace) -> int:
    """Santini §5 weighted displacement of each system against each annotator's answer."""
    from fuzzytruth.displacement import weighted_displacement

    answers = _read_table(args.answers)
    runs = _read_table(args.runs)
    result = weighted_displacement(
        answers, runs, n_items=args.n_items, g=args.g, use_deeper_ranks=not args.cut_at_m
    )
    frame = {"list": result.to_frame, "query": result.by_query, "system": result.by_system}[
        args.by
    ]()
    emit(frame, args.format)
    return 0


def _read_table(path: Path) -> pd.DataFrame:
    import pandas as pd

    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        return pd.read_csv(path, sep=sep, comment="#")
    except pd.errors.ParserError as err:
        raise UserError(f"{path}: {err}") from None


def cmd_repro(args: argparse.Namespace) -> int:
    """Run the paper reproductions."""
    from fuzzytruth.repro import SECTIONS

    chosen = list(SECTIONS) if args.section == "all" else [args.section]
    status = 0
    for name in chosen:
        status |= SECTIONS[name]()
        print()
    return status


def cmd_demo(args: argparse.Namespace) -> int:
    """The bundled image collection end to end: evaluation, comparison, report and figures."""
    from fuzzytruth.demo import run_demo

    run_demo(args.out, figure_format=args.figure_format, n_worlds=args.n_worlds, seed=args.seed)
    return 0


# ---------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``fuzzytruth`` command."""
    parser = _Parser(
        prog="fuzzytruth",
        description="Evaluate and compare retrieval systems when the ground truth is uncertain.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    fmt = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser(
        "evaluate",
        help="evaluate runs against uncertain or crisp truth",
        epilog=EVALUATE_EXAMPLE,
        formatter_class=fmt,
    )
    _add_truth_options(p)
    _add_run_options(p)
    p.add_argument(
        "-q", "--per-query", action="store_true", help="one row per (system, query)"
    )
    _add_format(p, ["text", "csv", "json"])
    p.set_defaults(handler=cmd_evaluate)

    p = sub.add_parser(
        "compare",
        help="pairwise comparison with intervals and p-values",
        epilog=COMPARE_EXAMPLE,
        formatter_class=fmt,
    )
    _add_truth_options(p)
    _add_run_options(p)
    p.add_argument("--baseline", help="compare every system with this one (default: all pairs)")
    p.add_argument(
        "--method", default="t", help="t, randomization, wilcoxon, sign or bootstrap (default t)"
    )
    p.add_argument(
        "--correction",
        default="holm",
        help="holm, bonferroni, fdr_bh, fdr_by or none (default holm)",
    )
    p.add_argument("--n-resamples", type=int, default=10_000)
    _add_format(p, ["text", "csv", "json", "latex"])
    p.set_defaults(handler=cmd_compare)

    p = sub.add_parser(
        "displacement",
        help="Santini §5 per-annotator weighted displacement",
        epilog=DISPLACEMENT_EXAMPLE,
        formatter_class=fmt,
    )
    p.add_argument("--answers", type=Path, required=True, help="annotators' ranked answers (CSV)")
    p.add_argument("--runs", type=Path, required=True, help="system rankings (CSV)")
    p.add_argument("--n-items", type=int, required=True, help="database size N")
    p.add_argument("--g", default="rational", help="rational, exponential or scale_free")
    p.add_argument(
        "--cut-at-m",
        action="store_true",
        help="cut runs at the annotator's list length m (the paper's setting)",
    )
    p.add_argument("--by", choices=["list", "query", "system"], default="system")
    _add_format(p, ["text", "csv", "json"])
    p.set_defaults(handler=cmd_displacement)

    p = sub.add_parser(
        "repro",
        help="reproduce the paper's worked examples",
        epilog=REPRO_EXAMPLE,
        formatter_class=fmt,
    )
    p.add_argument("section", nargs="?", default="all", choices=["all", "section4", "section5"])
    p.set_defaults(handler=cmd_repro)

    p = sub.add_parser(
        "demo",
        help="bundled data end to end; writes a report and figures",
        epilog=DEMO_EXAMPLE,
        formatter_class=fmt,
    )
    p.add_argument("--out", type=Path, default=Path("demo_output"), help="output folder")
    p.add_argument("--figure-format", choices=["png", "pdf"], default="png")
    p.add_argument("--n-worlds", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(handler=cmd_demo)

    from fuzzytruth.cli.agreement import add_parsers as add_collection_parsers

    add_collection_parsers(sub)
    return parser


def _check_inputs_exist(args: argparse.Namespace) -> None:
    """Every input file named on the command line exists (the output folder need not)."""
    for name, value in vars(args).items():
        paths = value if isinstance(value, list) else [value]
        for path in paths:
            if name != "out" and isinstance(path, Path) and not path.is_file():
                raise UserError(f"no such file: {path} (--{name.replace('_', '-')})")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fuzzytruth`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        _check_inputs_exist(args)
        return handler(args)
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stderr.close()
        return 0
    except (UserError, ValueError, OSError) as err:
        message = _flag_names(" ".join(str(err).split()))  # one line, flags not arguments
        print(f"fuzzytruth {args.command}: error: {message}", file=sys.stderr)
        return EXIT_USAGE

