"""Reading what ``evaluate`` and ``compare`` are given, and calling ``evaluate()`` with it.

Mistakes the library cannot see are caught here, each naming its flag: a run file without a
result line, two kinds of truth at once, an option that the chosen truth would silently ignore
(``--taxonomy`` or ``--query-categories`` beside ``--qrels``), and a number of worlds whose
values could not fit in memory (asked of :func:`fuzzytruth._validation.check_n_worlds` before
anything is drawn).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fuzzytruth.cli._errors import UserError

__all__ = ["evaluate_runs", "is_crisp", "read_runs", "read_truth"]

_TRUTHS = {"annotations": "--annotations", "qrels": "--qrels", "prob_qrels": "--prob-qrels"}


def read_runs(paths: Sequence[Path], *, duplicates: str, encoding: str) -> dict[str, Any]:
    """Runs by name (their tag, or the file name when tags are missing or clash)."""
    from fuzzytruth.io import read_trec_run

    runs: dict[str, Any] = {}
    for path in paths:
        run = read_trec_run(path, duplicates=duplicates, encoding=encoding)
        if len(run) == 0:
            raise UserError(f"{path}: the run file has no result line (--run)")
        name = run.name if run.name and run.name not in runs else path.stem
        if name in runs:
            raise UserError(f"two runs are named {name!r} (--run); rename a file or its tag "
                            "column")
        runs[name] = run
    return runs


def read_truth(args: argparse.Namespace) -> tuple[Any, dict | None]:
    """The ground truth and the query categories (categorical truth only)."""
    from fuzzytruth.io import (
        read_annotations,
        read_probabilistic_qrels,
        read_taxonomy,
        read_trec_judgments,
    )
    from fuzzytruth.truth.membership import Membership

    kinds = [k for k in _TRUTHS if getattr(args, k) is not None]
    if len(kinds) != 1:
        given = f": {' and '.join(_TRUTHS[k] for k in kinds)}" if kinds else ""
        raise UserError(
            "give exactly one ground truth: --taxonomy with --annotations, --qrels, or "
            f"--prob-qrels (got {len(kinds)}{given})"
        )
    kind = kinds[0]
    rel_format = getattr(args, "rel_format", "qrels")
    if rel_format != "qrels" and kind != "qrels":
        raise UserError(f"-R {rel_format} says how to read --qrels; got {_TRUTHS.get(kind, kind)}")
    if kind != "annotations":
        for option in ("taxonomy", "query_categories", "implicit_root"):
            if getattr(args, option) is not None:
                flag = "--" + option.replace("_", "-")
                raise UserError(
                    f"{flag} goes with --annotations (categorical truth); {_TRUTHS[kind]} "
                    f"would ignore it"
                )
    if kind == "qrels":
        qrels = read_trec_judgments(args.qrels, rel_format=rel_format,
                                    duplicates=args.duplicates, encoding=args.encoding)
        if len(qrels) == 0:
            raise UserError(f"{args.qrels}: the qrels file has no judgment line (--qrels)")
        return qrels, None
    if kind == "prob_qrels":
        return read_probabilistic_qrels(args.prob_qrels, encoding=args.encoding), None
    if args.taxonomy is None:
        raise UserError("--annotations needs --taxonomy")
    taxonomy = read_taxonomy(args.taxonomy, implicit_root=args.implicit_root,
                             encoding=args.encoding)
    annotations = read_annotations(args.annotations, taxonomy=taxonomy, encoding=args.encoding)
    membership = Membership.from_annotations(annotations)
    categories = None
    if args.query_categories is not None:
        categories = _query_categories(args.query_categories, args.encoding)
    return membership, categories


def _query_categories(path: Path, encoding: str) -> dict:
    from fuzzytruth.io.tables import read_delimited

    tab = ".tsv" in Path(path).name.lower()
    frame = read_delimited(path, delimiter="\t" if tab else ",", encoding=encoding,
                           required=["query_id", "category"], only_required=True)
    again = frame["query_id"].duplicated().to_numpy()
    if again.any():
        line = int(frame.attrs["lines"][again.argmax()])
        raise UserError(f"{path}, line {line}: query {frame['query_id'][again].iloc[0]!r} "
                        "has a second category (--query-categories: one row per query)")
    return dict(zip(frame["query_id"], frame["category"], strict=True))


def is_crisp(truth: Any) -> bool:
    """Whether ``truth`` is crisp qrels (one value per query, no worlds)."""
    from fuzzytruth.truth.qrels import Qrels

    return isinstance(truth, Qrels)


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
        judged_only=args.judged_only,
        query_categories=categories,
        n_worlds=args.n_worlds,
        rng=args.seed,
        confidence_level=args.confidence_level,
    )
