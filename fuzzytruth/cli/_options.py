"""Options shared by the commands, built from the library's own tables and signatures.

Every option that sets a library parameter is added through :func:`library_option`: its default
is read from the library function's signature (never restated here), its choices are the tuple
the library validates against, and the flag is recorded in the command's
:class:`~fuzzytruth.cli._errors.Flags`, so that a library message naming the parameter names
the flag instead. The library is imported when a command's parser is built, never for
``fuzzytruth --help``.
"""

from __future__ import annotations

import argparse
import inspect
import textwrap
import typing
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from fuzzytruth.cli._errors import Flags, UserError

__all__ = [
    "DEFAULT_MEASURES",
    "add_format_option",
    "add_measure_option",
    "add_rankings_options",
    "add_reading_options",
    "add_rule_options",
    "add_run_options",
    "add_taxonomy_options",
    "add_truth_model_options",
    "add_truth_options",
    "add_world_options",
    "decompressed_bytes",
    "library_option",
    "listing",
    "literal_choices",
    "presets_epilog",
    "reading",
    "signature_default",
]

DEFAULT_MEASURES = ("P@10", "AP", "nDCG@10")
"""What ``evaluate`` and ``compare`` report without ``-m``."""


def signature_default(function: Callable[..., Any], param: str) -> Any:
    """The default of ``param`` in ``function``'s signature.

    >>> from fuzzytruth._validation import check_int
    >>> signature_default(check_int, "minimum")
    0
    """
    value = inspect.signature(function).parameters[param].default
    if value is inspect.Parameter.empty:
        raise TypeError(f"{function.__qualname__}() has no default for {param!r}")
    return value


def literal_choices(alias: Any) -> tuple[Any, ...]:
    """The values of a ``Literal[...]`` type alias, e.g. a library's ``DuplicatePolicy``.

    >>> literal_choices(typing.Literal["a", "b"])
    ('a', 'b')
    """
    return typing.get_args(alias)


def listing(values: Iterable[object]) -> str:
    """``a, b, c``: choices as a help text lists them."""
    return ", ".join(map(str, values))


def library_option(
    target: argparse._ActionsContainer,
    flags: Flags,
    *names: str,
    param: str,
    function: Callable[..., Any] | None = None,
    **kwargs: Any,
) -> argparse.Action:
    """Add an option that sets parameter ``param`` of a library function.

    Without an explicit ``default``, the default is ``function``'s (read from its signature).
    The option's long name is recorded as the flag of ``param`` in ``flags``.
    """
    if function is not None and "default" not in kwargs:
        kwargs["default"] = signature_default(function, param)
    action = target.add_argument(*names, **kwargs)
    flags.add(param, max(names, key=len), choices=kwargs.get("choices"),
              switch=kwargs.get("action") == "store_true")
    return action


def add_taxonomy_options(target: argparse._ActionsContainer, flags: Flags, *, help: str) -> None:
    """``--taxonomy`` and ``--implicit-root``."""
    from fuzzytruth.io.tables import read_taxonomy

    library_option(target, flags, "--taxonomy", param="taxonomy", type=Path, default=None,
                   help=help)
    library_option(
        target, flags, "--implicit-root", param="implicit_root", function=read_taxonomy,
        metavar="NAME", help="a taxonomy with several top nodes: add a root of this name above "
        "them (default: none, one root is required)",
    )


_ANNOTATION_COLUMNS = (("--item-column", "item"), ("--annotator-column", "annotator"),
                       ("--label-column", "label"))


def add_annotation_columns(target: argparse._ActionsContainer, flags: Flags) -> None:
    """``--item-column``, ``--annotator-column`` and ``--label-column``: the columns of the
    ``--annotations`` table (read_annotations' ``item``, ``annotator``, ``label``), so that a
    table missing them under their default names is offered the flags that read it."""
    from fuzzytruth.io.tables import read_annotations

    for option, param in _ANNOTATION_COLUMNS:
        library_option(target, flags, option, param=param, function=read_annotations,
                       help=f"the {param} column of --annotations (default: %(default)s)")


def annotation_columns(args: argparse.Namespace) -> dict[str, str]:
    """The ``--annotations`` table's column names, as read_annotations takes them (its
    defaults for a command without the flags)."""
    from fuzzytruth.io.tables import read_annotations

    return {param: getattr(args, option[2:].replace("-", "_"),
                           signature_default(read_annotations, param))
            for option, param in _ANNOTATION_COLUMNS}


def add_reading_options(target: argparse._ActionsContainer, flags: Flags) -> None:
    """How input files are read: ``--encoding`` of a text file without a byte-order mark and
    ``--max-decompressed-bytes``, the cap on what a compressed file may inflate to; give them
    to every reader with :func:`reading`."""
    from fuzzytruth.io.tables import read_annotations
    from fuzzytruth.io.text import DECOMPRESSION_FLOOR, DECOMPRESSION_RATIO

    library_option(
        target, flags, "--encoding", param="encoding", function=read_annotations,
        help="text encoding of the input files without a byte-order mark (default: %(default)s)",
    )
    library_option(
        target, flags, "--max-decompressed-bytes", param="max_decompressed_bytes",
        function=read_annotations, type=decompressed_bytes, metavar="BYTES",
        help="cap on what a compressed input file may inflate to: a number of bytes, none (no "
        f"cap) or auto ({DECOMPRESSION_RATIO} times the file's size, at least "
        f"{DECOMPRESSION_FLOOR // 2**20} MiB) (default: %(default)s)",
    )


def decompressed_bytes(text: str) -> int | str | None:
    """The value of ``--max-decompressed-bytes``: ``auto``, ``none`` (any case) or a number of
    bytes >= 1.

    >>> decompressed_bytes("None"), decompressed_bytes("auto"), decompressed_bytes("1000")
    (None, 'auto', 1000)
    """
    word = text.strip().lower()
    if word in ("auto", "none"):
        return None if word == "none" else "auto"
    if word.isascii() and word.isdigit() and int(word) >= 1:
        return int(word)
    raise argparse.ArgumentTypeError(f"expected a number of bytes >= 1, auto or none; got "
                                     f"{text!r}")


def reading(args: argparse.Namespace) -> dict[str, Any]:
    """The options of :func:`add_reading_options` as keyword arguments of every reader."""
    return {"encoding": args.encoding, "max_decompressed_bytes": args.max_decompressed_bytes}


RANKINGS_HELP = (
    "partial rankings with ties, for --truth-model irn or prirn (the others read each reader's "
    "top group): selectors JSON (per item, per reader, tie-groups of class ids: line numbers "
    "of --classes counted from 0, or the ids themselves) or a long .csv/.tsv/.parquet table "
    "item_id, reader_id, class, rank_group"
)


def add_rankings_options(target: argparse._ActionsContainer, flags: Flags, *, help: str) -> None:
    """``--rankings`` and ``--classes`` (the names of a selectors file's class ids)."""
    target.add_argument("--rankings", type=Path, metavar="FILE", help=help)
    library_option(
        target, flags, "--classes", param="classes", type=Path, default=None, metavar="FILE",
        help="with --rankings: the class names, one per line; a selectors file's class id i "
        "is line i + 1, a table names only these (default: the ids are the names; a table "
        "names the --taxonomy's leaves)",
    )


def add_truth_model_options(target: argparse._ActionsContainer, flags: Flags) -> None:
    """``--truth-model`` and ``--reliability``: which model turns the labels into the truth."""
    from fuzzytruth.truth.models import TRUTH_MODELS, PrIRN, fit_truth

    library_option(
        target, flags, "--truth-model", param="truth_model", function=fit_truth,
        choices=tuple(TRUTH_MODELS),
        help="the model that turns the labels into the truth, named beside the estimand in "
        "the output: shares (the annotators' shares), dawid-skene, one-coin and mace (EM "
        "label models that estimate each annotator's reliability), irn and prirn (plausibilities "
        "from --rankings) (default: %(default)s)",
    )
    library_option(
        target, flags, "--reliability", param="temperature", type=float, default=None,
        metavar="T",
        help="with --truth-model prirn, its temperature: the readers' reliability, higher is "
        f"closer to IRN (default: PrIRN's, {signature_default(PrIRN, 'temperature'):g}); the "
        "other models take none (dawid-skene, one-coin and mace estimate each annotator's "
        "reliability from the labels)",
    )


def add_truth_options(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The ground truth of ``evaluate`` and ``compare``: one kind of truth, read from files."""
    group = parser.add_argument_group(
        "ground truth (one kind: --taxonomy with --annotations, --rankings, --qrels, or "
        "--prob-qrels)"
    )
    add_taxonomy_options(group, flags, help="taxonomy file (.json nested, .csv/.tsv edges)")
    group.add_argument(
        "--annotations",
        type=Path,
        help="annotation table (.csv/.tsv/.parquet: item_id, annotator_id, label)",
    )
    add_annotation_columns(group, flags)
    add_rankings_options(group, flags, help=RANKINGS_HELP)
    add_truth_model_options(group, flags)
    library_option(
        group, flags, "--query-categories", param="query_categories", type=Path, default=None,
        help="with --annotations or --rankings: CSV query_id,category; default: each query "
        "item's own uncertain category",
    )
    group.add_argument("--qrels", type=Path, help="crisp TREC qrels file (qid iter docno rel)")
    group.add_argument(
        "--prob-qrels",
        type=Path,
        help="qrels with a probability column (.csv/.tsv: query_id, doc_id, probability[, grade])",
    )


def add_run_options(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """The runs: TREC files, and what a document listed twice means."""
    from fuzzytruth._pairs import DUPLICATES
    from fuzzytruth.io.trec import read_trec_run

    parser.add_argument(
        "--run",
        type=Path,
        action="append",
        metavar="FILE",
        help="TREC run file (qid Q0 docno rank score tag); repeat for several systems, each "
        "named by its tag (by its file name when runs share a tag or have none)",
    )
    parser.add_argument(
        "trec_eval_files", nargs="*", metavar="QRELS RUN",
        help="trec_eval's form, after the options: the qrels file, then one run file or more "
        "(the same as --qrels QRELS --run RUN ...)",
    )
    parser.set_defaults(prepare=trec_eval_form)
    parser.add_argument(
        "-T", "--results-format", choices=("trec_results",), default="trec_results",
        help="the run files' format, as trec_eval's -T: trec_results, the one format trec_eval "
        "and fuzzytruth read (default: %(default)s)",
    )
    library_option(
        parser, flags, "--duplicates", param="duplicates", function=read_trec_run,
        choices=DUPLICATES,
        help="a document listed twice for one query in a run or qrels file: an error, or keep "
        "the highest score (max), the first or the last line (default: %(default)s)",
    )
    add_reading_options(parser, flags)


def trec_eval_form(args: argparse.Namespace) -> None:
    """Read trec_eval's positional ``QRELS RUN ...`` into ``--qrels`` and ``--run`` (each
    input given one way), or check that ``--run`` was given; a :class:`UserError` says what is
    missing or given twice."""
    files = [Path(f) for f in args.trec_eval_files]
    del args.trec_eval_files  # read as --qrels and --run from here on
    if not files:
        if not args.run:
            raise UserError("give the runs: --run FILE (repeat it for several systems), or "
                            "trec_eval's form, the qrels file then the run files after the "
                            "options (QRELS RUN ...)")
        args.run = _stdin_run(args.run)
        return
    if len(files) == 1:
        raise UserError(f"{files[0]}: trec_eval's form names the qrels file, then one run file "
                        "or more (QRELS RUN ...); got one file")
    given = [f"--{dest.replace('_', '-')}" for dest in ("run", "qrels", "prob_qrels",
                                                          "annotations", "rankings")
             if getattr(args, dest, None)]
    if given:
        raise UserError(f"trec_eval's form QRELS RUN ... gives the qrels and the runs; "
                        f"{' and '.join(given)} would give them twice: use one form")
    args.qrels, args.run = files[0], _stdin_run(files[1:])
    args.trec_eval_names = {"qrels": "QRELS", "run": "RUN"}  # what the user wrote, for errors


def _stdin_run(runs: list[Path]) -> list[Path]:
    """The run files, ``-`` read from standard input as trec_eval reads it (once)."""
    if sum(str(r) == "-" for r in runs) > 1:
        raise UserError("one run file at most can be '-' (standard input); got it "
                        f"{sum(str(r) == '-' for r in runs)} times")
    return [Path("/dev/stdin") if str(r) == "-" else r for r in runs]


TREC_EVAL_LONG = {
    "--query_eval_wanted": "--per-query", "--complete_rel_info_wanted": "--complete",
    "--level_for_rel": "--relevance-level", "--nosummary": "--no-summary",
    "--Number_docs_in_coll": "--n-docs-in-collection", "--Max_retrieved_per_topic": "--depth",
    "--Judged_docs_only": "--judged-only", "--Rel_info_format": "--rel-format",
    "--Results_format": "--results-format", "--Zscore": "--zscores",
}
"""trec_eval's long options (getopt's, ``--level_for_rel=2`` too) and the flags that are
theirs here: a script written for trec_eval runs unchanged."""


def add_measure_option(parser: argparse.ArgumentParser, flags: Flags, *,
                       default: str | None = None) -> None:
    """``-m``: measures in any spelling the library reads, and trec_eval's groups; ``default``
    says what the command measures without ``-m`` (default :data:`DEFAULT_MEASURES`)."""
    library_option(
        parser, flags, "--measure", "-m", param="measures", action="append", metavar="MEASURE",
        default=None,
        help="measure, repeatable: canonical (P@10, AP, nDCG@10), trec_eval (map, P_10, "
        "ndcg_cut.10,20; a bare cutoff name such as P or recall means trec_eval's default "
        "cutoffs) or ir_measures spelling, or a trec_eval group (official, all_trec); "
        f"default: {default or listing(DEFAULT_MEASURES)}",
    )


def add_undefined_options(
    target: argparse._ActionsContainer, flags: Flags, *, unit: str, missing: str, why: str = "",
    zero: str = "",
) -> None:
    """``--undefined`` and ``--missing`` (:func:`fuzzytruth.evaluate`'s rules), for the
    ``unit`` evaluated (``"a query"``, ``"an item"``) and the ``missing`` ones the truth
    lacks; ``why`` a measure is undefined and what ``zero`` scores, when worth saying."""
    from fuzzytruth.evaluation.engine import MISSING, UNDEFINED, evaluate

    library_option(
        target, flags, "--undefined", param="undefined", function=evaluate, choices=UNDEFINED,
        help=f"{unit} where a measure is undefined{why}: it scores the measure's undefined "
        f"value{zero} (zero) or is left out (skip) (default: %(default)s)",
    )
    library_option(
        target, flags, "--missing", param="missing", function=evaluate, choices=MISSING,
        help=f"{missing}: left out with a note (skip) or an error (default: %(default)s)",
    )


def add_rule_options(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """Conventions and trec_eval's rules for which queries and documents count."""
    from fuzzytruth.evaluation.engine import evaluate
    from fuzzytruth.measures.catalog import presets
    from fuzzytruth.runs import TIES

    table = presets()
    library_option(
        parser, flags, "--preset", param="preset", function=evaluate, choices=tuple(table),
        help="convention preset, described below (default: %(default)s)",
    )
    library_option(
        parser, flags, "--ties", param="ties", function=evaluate, choices=TIES,
        help="order of tied scores (default: the preset's: "
        + listing(f"{name} {p.ties}" for name, p in table.items()) + ")",
    )
    rules = parser.add_argument_group("which queries and documents count (trec_eval's flags)")
    library_option(
        rules, flags, "-c", "--complete", param="complete", function=evaluate,
        action="store_true",
        help="also score the truth's queries that a run does not answer, as empty lists",
    )
    add_undefined_options(
        rules, flags, unit="a query", why=" (no relevant document)", zero=", 0 as in trec_eval",
        missing="run queries the truth does not judge",
    )
    library_option(
        rules, flags, "-M", "--depth", param="depth", function=evaluate, type=int,
        help="evaluate only the top N of each list (default: all)",
    )
    library_option(
        rules, flags, "-l", "--relevance-level", param="relevance_level", function=evaluate,
        type=float,
        help="grade from which a document is relevant (default: the preset's, "
        + listing(sorted({str(p.params.get("rel")) for p in table.values()})) + ")",
    )
    library_option(
        rules, flags, "-N", "--n-docs-in-collection", param="n_docs_in_collection",
        function=evaluate, type=int, metavar="N",
        help="documents in the collection, for utility's worth of the non-relevant documents "
        "not retrieved, N + relevant retrieved - retrieved - relevant (default: 0, as "
        "trec_eval)",
    )
    library_option(
        rules, flags, "-J", "--judged-only", param="judged_only", function=evaluate,
        action="store_true",
        help="crisp qrels: remove unjudged documents from the rankings first",
    )


def add_world_options(parser: argparse.ArgumentParser, flags: Flags) -> None:
    """Uncertain truth: how many worlds, the seed, the level of the intervals."""
    from fuzzytruth.evaluation.engine import evaluate

    group = parser.add_argument_group("uncertainty")
    library_option(
        group, flags, "--n-worlds", param="n_worlds", function=evaluate, type=int,
        help="ground-truth worlds sampled from uncertain truth (default: %(default)s)",
    )
    library_option(
        group, flags, "--seed", param="rng", type=int, default=0,
        help="seed of the one random generator (default: %(default)s, so that a command run "
        "twice gives the same numbers)",
    )
    library_option(
        group, flags, "--confidence-level", param="confidence_level", function=evaluate,
        type=float, help="level of the intervals (default: %(default)s)",
    )


def add_format_option(
    parser: argparse.ArgumentParser, choices: Sequence[str], *, default: str | None = "text",
    help: str | None = None,
) -> None:
    """``--format``: how the result is printed."""
    parser.add_argument(
        "--format", choices=choices, default=default,
        help=help or "output format (default: %(default)s)",
    )


def presets_epilog() -> str:
    """The presets with their descriptions, from the library's table, for a help epilog."""
    from fuzzytruth.measures.catalog import presets

    lines = ["presets (--preset):"]
    for name, preset in presets().items():
        lines += textwrap.wrap(
            f"{name}: {preset.description}", width=92, initial_indent="  ",
            subsequent_indent="      ",
        )
    return "\n".join(lines)
