"""``fuzzytruth evaluate``: runs against crisp or uncertain truth.

Per-system aggregates (default), per-query values (``-q``), or, with ``--format trec``,
trec_eval's own output (:mod:`fuzzytruth.cli._trec`) — the default when the truth is crisp
qrels and every ``-m`` is a trec_eval name, as a trec_eval user types them, and when there is
no ``-m`` at all (trec_eval's default, ``-m official``: a drop-in). trec_eval's
``-R`` reads ``--qrels`` as judgment groups (:func:`fuzzytruth.evaluate_per_annotator`) or as
preferences (:func:`fuzzytruth.evaluation.preferences.evaluate_preferences`); its ``-Z``
prints per-query z-scores against a reference file.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
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
    library_option,
    listing,
    presets_epilog,
    reading,
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
  # trec_eval's flags and names print trec_eval's output; its form QRELS RUN too
  fuzzytruth evaluate --qrels qrels.txt --run run.txt -m official -q -c
  fuzzytruth evaluate -m map -m P.5,10 qrels.txt run.txt
  fuzzytruth evaluate --qrels prefs.txt --run run.txt -m all_prefs -R prefs
"""
FORMATS = ("trec", *TABLE_FORMATS)


def add_arguments(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The options of ``evaluate``."""
    add_truth_options(parser, flags)
    add_run_options(parser, flags)
    add_measure_option(
        parser, flags, default=f"{listing(DEFAULT_MEASURES)}; with crisp --qrels and no "
        "--format, trec_eval's own default, official, in its output")
    add_rule_options(parser, flags)
    add_world_options(parser, flags)
    parser.add_argument(
        "-q", "--per-query", action="store_true",
        help="one row per (system, query) instead of the aggregates; with --format trec, "
        "trec_eval's per-query lines before its summary",
    )
    from fuzzytruth.io.judgments import REL_FORMATS, read_trec_judgments

    trec = parser.add_argument_group("trec_eval's judgment formats and z-scores")
    library_option(
        trec, flags, "-R", "--rel-format", param="rel_format", function=read_trec_judgments,
        choices=REL_FORMATS,
        help="how --qrels is read, as trec_eval's -R: qrels (qid iter docno rel), qrels_jg (the "
        "second column names a judgment group; measures averaged over the groups: -m "
        "qrels_jg), prefs (qid jg jsg docno rel preferences) or qrels_prefs (a qrels read as "
        "preferences; -m all_prefs or prefs) (default: %(default)s)",
    )
    trec.add_argument(
        "-Z", "--zscores", type=Path, metavar="FILE",
        help="with --format trec, print each per-query value as a z-score against FILE's "
        "mean and standard deviation of that query and measure (lines: qid measure mean "
        "stddev), as trec_eval's -Z; the summary is their mean",
    )
    trec.add_argument(
        "-n", "--no-summary", action="store_true",
        help="with --format trec, leave out the summary lines (runid and the all lines), as "
        "trec_eval's -n: with -q the per-query lines alone, without it nothing",
    )
    add_format_option(
        parser, FORMATS, default=None,
        help="trec: trec_eval 9.0.8's output, byte for byte (the default when the truth is "
        "--qrels and every -m is a trec_eval name, e.g. map, P_10, ndcg_cut.10, official, or "
        "a name as trec_eval prints it, e.g. 11pt_avg_.25,.5,.75, relstring_20; and, as "
        "trec_eval prints -m official without one, when there is no -m at all); text (the "
        "default otherwise), csv or json: a tidy table",
    )
    parser.epilog = f"{EXAMPLES}\n{presets_epilog()}\n"


def measure_list(texts: Sequence[str], *, preset: str | None = None) -> list[Any]:
    """The measures ``-m`` names, groups expanded (trec_eval's meaning of a bare cutoff name;
    the groups of ``preset``), each once."""
    from fuzzytruth.cli._trec import relstring_option
    from fuzzytruth.measures.names import expand, joined_measures

    measures: list[Any] = []
    for text in texts:
        if text.strip() == "runid" or relstring_option(text) is not None:
            raise UserError(
                f"-m {text}: a line of trec_eval's output, not a measure; it is printed with "
                "--format trec"
            )
        try:
            named = expand(text, trec_groups=True, preset=preset)
        except ValueError as err:
            pieces = joined_measures(text, trec_groups=True, preset=preset)
            if pieces is not None:
                raise UserError(
                    f"-m {text}: several measures joined by commas (a comma separates the "
                    "cutoffs of one trec_eval name only, as in P.5,10): give -m once per "
                    f"measure ({' '.join(f'-m {p}' for p in pieces)})"
                ) from None
            raise UserError(f"-m {text}: {err}") from None
        measures += [m for m in named if m not in measures]
    return measures


def run(args: argparse.Namespace) -> int:
    """Evaluate and print."""
    import pandas as pd

    from fuzzytruth.cli._inputs import evaluate_runs, is_crisp, read_runs, read_truth
    from fuzzytruth.cli._trec import is_trec_spelling
    from fuzzytruth.report import drop_empty_columns, notes_text, system_notes

    truth, categories = read_truth(args)
    runs = read_runs(args.run, duplicates=args.duplicates, flags=args.flags, **reading(args))
    crisp = is_crisp(truth) or args.rel_format != "qrels"
    fmt = args.format
    if args.measure is not None:
        texts = args.measure
    elif crisp and args.rel_format == "qrels" and fmt in (None, "trec"):
        texts = ["official"]  # trec_eval without -m: its default measures, in its output
    else:
        texts = list(DEFAULT_MEASURES)
    if fmt is None:
        fmt = "trec" if crisp and all(map(is_trec_spelling, texts)) else "text"
    if args.zscores is not None and fmt != "trec":
        raise UserError("-Z prints trec_eval's per-query z-scores: it goes with --format trec")
    if args.no_summary and fmt != "trec":
        raise UserError("-n leaves out trec_eval's summary lines: it goes with --format trec")
    if fmt == "trec":
        if not crisp:
            raise UserError(
                "--format trec prints trec_eval's output, one value per query: it needs crisp "
                "--qrels (under uncertain truth use --format text, csv or json)"
            )
        write(_trec_output(args, runs, truth, texts))
        return 0
    measures = measure_list(texts, preset=args.preset)
    if args.rel_format == "qrels":
        evaluations = [evaluate_runs(args, runs, truth, categories, measures)]
    else:
        evaluations = [_evaluate_judgments(args, name, run, truth, measures)
                       for name, run in runs.items()]
    if args.per_query:  # each query's spread over the truths; on crisp qrels, none
        frame = pd.concat([e.to_frame() for e in evaluations], ignore_index=True)
        write(format_frame(drop_empty_columns(frame), fmt))
        return 0
    aggregate = pd.concat([e.aggregate() for e in evaluations], ignore_index=True)
    table = format_frame(drop_empty_columns(aggregate), fmt)
    if fmt == "text":  # what the intervals mean, below the table a person reads
        notes = system_notes(aggregate, n_worlds=evaluations[0].n_worlds, columns=True)
        table += "\n" + notes_text(notes) + "\n"
    write(table)
    return 0


def _trec_output(args: argparse.Namespace, runs: dict[str, Any], truth: Any,
                 texts: Sequence[str]) -> str:
    """trec_eval's output for each run, evaluated on its own as trec_eval evaluates it."""
    from fuzzytruth.cli._trec import (
        complete_num_rel,
        empty_list_counts,
        judged_queries,
        prints_added_queries,
        relevance_strings,
        render,
        reset_added,
        summaries,
        trec_lines,
        unset_precisions,
        with_stand_ins,
    )
    from fuzzytruth.measures import Measure, get_preset

    lines = trec_lines(texts, judgment_groups=args.rel_format == "qrels_jg",
                       preset=args.preset)
    lengths = {line.length for line in lines if line.base == "relstring"}
    if lengths and args.rel_format != "qrels":
        raise UserError(f"-m relstring prints the grades of a qrels: it needs -R qrels; got -R "
                        f"{args.rel_format}")
    reference = _zscores(args)
    # the queries and ranking conventions come from an evaluation, even of runid alone
    measures = [line.measure for line in lines if line.measure is not None] or [Measure("NumQ")]
    counts = empty_list_counts(lines) if args.rel_format == "qrels" else []
    measures += [m for m in counts if m not in measures]
    stand_ins = prints_added_queries(get_preset(args.preset).as_dict())
    truth_queries = judged_queries(truth)
    judged = truth_queries if args.complete else set()
    blocks = []
    for name, run in runs.items():
        given = set(run.queries)
        _check_stops(args, name, given, truth_queries, stand_ins=stand_ins)
        added = sorted(judged - given)  # -c's; printed too under trec_eval 10.0
        if added and stand_ins:  # scored as trec_eval 10.0 scores them: on its stand-in list
            run = with_stand_ins(run, added)
        evaluation = _evaluate_judgments(args, name, run, truth, measures)
        system = evaluation.systems[0]
        values = {(q, m): v for m in evaluation.measures for q, v in
                  zip(evaluation.queries, evaluation.batch(system, m).mean().tolist(),
                      strict=True)}
        totals = {m: evaluation.value(system, m) for m in evaluation.measures}
        answered = set(run.queries)
        queries = [q for q in evaluation.queries if q in answered]
        if counts:  # trec_eval's 0/0 of an empty list (-J drops a stand-in document)
            values |= unset_precisions(lines, values, queries, evaluation.conventions["measures"])
        valued = [line for line in lines if line.measure is not None]
        if added:  # then as trec_eval has them: reset by name (10.0), or never evaluated
            values, totals = reset_added(valued, values, totals, added, evaluation.queries,
                                         stand_ins=stand_ins)
        per_query = {(q, line.name): values[q, str(line.measure)]
                     for line in valued for q in queries}
        summary = {line.name: totals[str(line.measure)] for line in valued}
        for (_, name), value in per_query.items():  # added into trec_eval's sum, a NaN stays
            if math.isnan(value) and not math.isnan(summary[name]):
                summary[name] = value
        if reference is not None:
            per_query, summary = summaries(lines, values, queries, len(evaluation.queries),
                                           reference)
        conventions = evaluation.conventions
        if conventions["complete"] and args.rel_format == "qrels":
            for line in valued:
                if line.base == "num_rel":
                    summary[line.name] = complete_num_rel(truth, conventions["preset"]["grades"])
        relstrings = {
            length: relevance_strings(
                run, truth, queries, length=length, ties=conventions["ties"],
                score_dtype=conventions["score_dtype"], depth=conventions["depth"],
                judged_only=conventions["judged_only"],
                grades=conventions["preset"]["grades"],
            )
            for length in lengths
        }
        for line in lines:  # trec_eval's clear_relstr, of the unparameterised line alone
            if line.name == "relstring" and added and stand_ins:
                relstrings[line.length] |= dict.fromkeys(added, "")
        blocks.append(render(
            lines, run_name=run.name, per_query=per_query, summary=summary, queries=queries,
            relstrings=relstrings, query_lines=args.per_query,
            summary_lines=not args.no_summary, zscores=reference is not None,
        ))
    return "".join(blocks)


def _check_stops(args: argparse.Namespace, name: str, answered: set[str], judged: set[str],
                 *, stand_ins: bool) -> None:
    """A UserError where the trec_eval ``--format trec`` reproduces prints no output.

    trec_eval 9.0.8 (``stand_ins`` False) evaluates the queries both the run and the qrels
    have, and stops when there is none, ``-c`` or not ("No queries with both results and
    relevance info", exit status 7): without ``-c`` the evaluation refuses it already, with
    ``-c`` it would average zeros. trec_eval 10.0 (``stand_ins``) loops over the qrels'
    queries and, without ``-c``, stops at the first the run does not answer (exit status 4,
    with the message "result qid '...' not found in qrels", which names a qrels query).
    """
    from fuzzytruth.io.text import shown

    if not stand_ins and args.complete and not answered & judged:
        raise UserError(
            f"no query of run {name!r} is in the truth (--qrels {args.qrels}): trec_eval 9.0.8 "
            "prints nothing here, -c or not ('No queries with both results and relevance "
            "info'); --preset trec10 -c scores the truth's queries on empty lists, as trec_eval "
            "10.0 -c does"
        )
    missing = sorted(judged - answered)
    if stand_ins and not args.complete and missing:
        listed = ", ".join(shown(q) for q in missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise UserError(
            f"run {name!r} has no line for {len(missing)} query(ies) of the truth (--qrels "
            f"{args.qrels}): {listed}; trec_eval 10.0 prints nothing here (it stops at the "
            f"first, exit status 4, saying \"result qid {shown(missing[0])} not found in "
            "qrels\"); pass -c to score them on empty lists, as trec_eval 10.0 -c does, or "
            "--preset trec for trec_eval 9.0.8's average over the queries both have"
        )


def _evaluate_judgments(args: argparse.Namespace, name: str, run: Any, truth: Any,
                        measures: Sequence[Any]) -> Any:
    """One run evaluated against ``--qrels`` read as ``-R`` says."""
    from fuzzytruth.cli._inputs import evaluate_runs

    if args.rel_format == "qrels":
        return evaluate_runs(args, {name: run}, truth, None, measures)
    if args.rel_format == "qrels_jg":
        from fuzzytruth.evaluation.per_annotator import evaluate_per_annotator

        return evaluate_per_annotator(
            run, truth, list(measures), preset=args.preset, ties=args.ties,
            undefined=args.undefined, missing=args.missing, complete=args.complete,
            depth=args.depth, relevance_level=args.relevance_level,
            n_docs_in_collection=args.n_docs_in_collection, judged_only=args.judged_only,
            confidence_level=args.confidence_level,
        )
    from fuzzytruth.evaluation.preferences import PREFERENCE_FAMILIES, evaluate_preferences

    for flag, given in (("-l", args.relevance_level is not None),
                        ("-N", args.n_docs_in_collection is not None), ("-J", args.judged_only)):
        if given:
            raise UserError(f"{flag} does not apply to preferences (-R {args.rel_format})")
    wrong = [str(m) for m in measures if m.name not in PREFERENCE_FAMILIES]
    if wrong:
        raise UserError(f"-R {args.rel_format} computes the preference measures (-m all_prefs, "
                        f"-m prefs, prefs_simp...); got -m {', '.join(wrong)}")
    ties = {} if args.ties is None else {"ties": args.ties}
    return evaluate_preferences(
        {name: run}, truth, list(measures), undefined=args.undefined, missing=args.missing,
        complete=args.complete, depth=args.depth, confidence_level=args.confidence_level,
        **ties,
    )


def _zscores(args: argparse.Namespace) -> Any:
    """The ``-Z`` reference table, or None."""
    if args.zscores is None:
        return None
    from fuzzytruth.io.zscores import read_trec_zscores

    return read_trec_zscores(args.zscores, **reading(args))
