"""Reading what ``evaluate`` and ``compare`` are given, and calling ``evaluate()`` with it.

Mistakes the library cannot see are caught here, each naming its flag: a run file without a
result line, two kinds of truth at once, an option that the chosen truth would silently ignore
(``--taxonomy``, ``--query-categories``, ``--truth-model`` or ``--reliability`` beside
``--qrels``), a truth model that does not fit the input (IRN on unranked ``--annotations``), and a
number of worlds whose values could not fit in memory (asked of
:func:`fuzzytruth._validation.check_n_worlds` before anything is drawn).

Labels (``--annotations``) and partial rankings (``--rankings``) become the truth through
:func:`fuzzytruth.truth.models.fit_truth` with ``--truth-model`` (default: the shares), so every
output names the model beside the estimand.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fuzzytruth.cli._errors import Flags, UserError

__all__ = [
    "check_comparable",
    "evaluate_runs",
    "is_crisp",
    "read_labels",
    "read_runs",
    "read_truth",
    "truth_model",
]

_TRUTHS = {"annotations": "--annotations", "rankings": "--rankings", "qrels": "--qrels",
           "prob_qrels": "--prob-qrels"}
_LABELS = ("annotations", "rankings")


def read_runs(paths: Sequence[Path], *, duplicates: str, flags: Flags,
              **reading: Any) -> dict[str, Any]:
    """Runs by name (their tag, or the file name, without its suffix, when a run has no tag or
    shares its tag with another run: every run of a clash, so that no name depends on the
    order of the flags), each one's file recorded in ``flags`` for messages; ``reading``:
    :func:`fuzzytruth.cli._options.reading`."""
    from fuzzytruth.io import read_trec_run

    seen: dict[Path, Path] = {}
    for path in paths:  # one file twice would be one system compared with itself
        same = seen.setdefault(Path(path).resolve(), path)
        if same is not path:
            raise UserError(f"--run {path} is given twice" + (
                "" if str(same) == str(path) else f" (as --run {same})"))
    read = [read_trec_run(path, duplicates=duplicates, **reading) for path in paths]
    tags = Counter(run.name for run in read)
    runs: dict[str, Any] = {}
    for path, run in zip(paths, read, strict=True):
        if len(run) == 0:
            raise UserError(f"{path}: the run file has no result line (--run)")
        name = run.name if run.name and tags[run.name] == 1 else path.stem
        if name in runs:
            raise UserError(f"two runs are named {name!r} (--run); rename a file or its tag "
                            "column")
        runs[name] = run
        flags.source(f"run {name!r}", f"--run {path}")
    flags.source("of the runs", ", ".join(f"--run {path}" for path in paths))
    return runs


def read_truth(args: argparse.Namespace) -> tuple[Any, dict | None]:
    """The ground truth and the query categories (categorical truth only)."""
    from fuzzytruth.cli._options import reading

    kinds = [k for k in _TRUTHS if getattr(args, k) is not None]
    if len(kinds) != 1:
        given = f": {' and '.join(_TRUTHS[k] for k in kinds)}" if kinds else ""
        raise UserError(
            "give exactly one ground truth: --taxonomy with --annotations, --rankings, --qrels, "
            f"or --prob-qrels (got {len(kinds)}{given})"
        )
    kind = kinds[0]
    args.flags.source("in the truth", f"{_TRUTHS[kind]} {getattr(args, kind)}")
    rel_format = getattr(args, "rel_format", "qrels")
    if rel_format != "qrels" and kind != "qrels":
        raise UserError(f"-R {rel_format} says how to read --qrels; got {_TRUTHS.get(kind, kind)}")
    if kind not in _LABELS:
        for option in ("taxonomy", "query_categories", "implicit_root", "reliability",
                       "classes"):
            if getattr(args, option) is not None:
                flag = "--" + option.replace("_", "-")
                raise UserError(
                    f"{flag} goes with --annotations or --rankings (categorical truth); "
                    f"{_TRUTHS[kind]} would ignore it"
                )
        if args.truth_model != "shares":
            raise UserError(
                f"--truth-model {args.truth_model} fits a truth on --annotations or --rankings; "
                f"{_TRUTHS[kind]} is a truth already"
            )
    if kind == "qrels":  # each reader imported where it is used: crisp qrels start fast
        from fuzzytruth.io import read_trec_judgments

        qrels = read_trec_judgments(args.qrels, rel_format=rel_format,
                                    duplicates=args.duplicates, **reading(args))
        if len(qrels) == 0:
            raise UserError(f"{args.qrels}: the qrels file has no judgment line (--qrels)")
        return qrels, None
    if kind == "prob_qrels":
        from fuzzytruth.io import read_probabilistic_qrels

        prob_qrels = read_probabilistic_qrels(args.prob_qrels, **reading(args))
        return prob_qrels, None
    if kind == "annotations" and args.taxonomy is None:
        raise UserError("--annotations needs --taxonomy")
    from fuzzytruth.truth.models import fit_truth

    model = truth_model(args)
    truth = fit_truth(read_labels(args), model)
    categories = None
    if args.query_categories is not None:
        from fuzzytruth.io.tables import read_query_categories

        try:
            categories = read_query_categories(args.query_categories, taxonomy=truth.taxonomy,
                                               **reading(args))
        except ValueError as err:
            raise UserError(f"--query-categories: {err}") from None
    return truth, categories


def read_labels(args: argparse.Namespace) -> Any:
    """The Annotations of ``--annotations`` (``--taxonomy`` required) or the Rankings of
    ``--rankings`` (``--taxonomy`` optional: a flat one of the classes)."""
    from fuzzytruth.cli._options import annotation_columns, reading
    from fuzzytruth.io import read_annotations, read_rankings, read_taxonomy
    from fuzzytruth.io.text import read_names

    taxonomy = None
    if args.taxonomy is not None:
        taxonomy = read_taxonomy(args.taxonomy, implicit_root=args.implicit_root,
                                 **reading(args))
    if args.rankings is not None:
        classes = None
        if args.classes is not None:
            classes = read_names(args.classes, **reading(args))
        try:
            return read_rankings(args.rankings, classes=classes, taxonomy=taxonomy,
                                 **reading(args))
        except ValueError as err:
            hint = (" (name the classes with --classes)" if args.classes is None and (
                "not nodes of the taxonomy" in str(err) or "not a known class" in str(err))
                else "")
            raise UserError(f"--rankings: {err}{hint}") from None
    if args.classes is not None:
        raise UserError("--classes names the class ids of --rankings; --annotations names its "
                        "labels")
    return read_annotations(args.annotations, taxonomy=taxonomy, **annotation_columns(args),
                            **reading(args))


def truth_model(args: argparse.Namespace) -> Any:
    """The model of ``--truth-model`` (with ``--reliability``), checked against the input."""
    from fuzzytruth.truth.models import RANKING_MODELS, PrIRN, as_truth_model

    name = args.truth_model
    if args.reliability is not None and name != PrIRN.name:
        raise UserError(
            f"--reliability is PrIRN's temperature (--truth-model prirn); --truth-model {name} "
            "takes none (dawid-skene, one-coin and mace estimate each annotator's reliability "
            "from the labels; shares and irn have none)"
        )
    if name in RANKING_MODELS and args.rankings is None:
        raise UserError(
            f"--truth-model {name} needs partial rankings: give them with --rankings (the "
            "labels of --annotations are unranked)"
        )
    if args.reliability is not None:
        return PrIRN(temperature=args.reliability)
    return as_truth_model(name)


def is_crisp(truth: Any) -> bool:
    """Whether ``truth`` is crisp (one value per query, no worlds), as its kind says. What
    ``-R`` reads besides qrels (judgment groups by group, preferences) has no kind until it is
    evaluated, and both kinds are crisp."""
    kind = getattr(truth, "truth_kind", None)
    return True if kind is None else kind.crisp


def evaluate_runs(
    args: argparse.Namespace,
    runs: Mapping[str, Any],
    truth: Any,
    categories: dict | None,
    measures: Sequence[Any],
) -> Any:
    """``evaluate()`` with the command line's options; the worlds' size is checked first."""
    from fuzzytruth._validation import check_n_worlds
    from fuzzytruth.evaluation.engine import evaluate

    if not is_crisp(truth):
        queries = set().union(*(run.queries for run in runs.values()))
        if args.complete:
            queries |= set(getattr(truth, "queries", ()))
        # the kept values: one float64 per measure, system and query in each world
        check_n_worlds(args.n_worlds, bytes_per_world=8 * len(measures) * len(runs) *
                       max(len(queries), 1))
    return evaluate(
        dict(runs),
        truth,
        list(measures),
        preset=args.preset,
        ties=args.ties,
        undefined=args.undefined,
        missing=args.missing,
        complete=args.complete,
        depth=args.depth,
        relevance_level=args.relevance_level,
        n_docs_in_collection=args.n_docs_in_collection,
        judged_only=args.judged_only,
        query_categories=categories,
        n_worlds=args.n_worlds,
        rng=args.seed,
        confidence_level=args.confidence_level,
    )


def check_comparable(evaluation: Any, command: str, units: str, systems: str) -> None:
    """A :class:`UserError` in the command's words when ``evaluation`` has fewer queries (or
    items: ``units``) than :func:`~fuzzytruth.stats.compare` takes
    (:data:`~fuzzytruth.stats.procedures.MIN_QUERIES`); the library's own checks speak of
    comparing systems or of the last axis of a score array.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> try:
    ...     check_comparable(SimpleNamespace(queries=("q1",)), "compare", "queries", "runs")
    ... except UserError as error:
    ...     print(error)
    compare needs at least 3 queries to compare runs; 1 was evaluated ('q1')
    """
    from fuzzytruth.stats.procedures import MIN_QUERIES
    from fuzzytruth.taxonomy import _show

    n = len(evaluation.queries)
    if n < MIN_QUERIES:
        raise UserError(
            f"{command} needs at least {MIN_QUERIES} {units} to compare {systems}; {n} "
            f"{'was' if n == 1 else 'were'} evaluated ({_show(list(evaluation.queries))})"
        )
