"""``--format trec``: the output of trec_eval 9.0.8, byte for byte, from an evaluation.

trec_eval prints one line per value, ``"%-22s\\t%s\\t%6.4f\\n"`` (name, query or ``all``,
value; counts as integers, ``%ld``). The layout, read from its source (``trec_eval.c``,
``meas_print_single.c``, ``meas_print_final.c``, ``meas_init.c``, ``m_runid.c``,
``m_relstring.c``):

* measures come in the order of trec_eval's measure table
  (:data:`fuzzytruth.measures.names.TREC_MEASURE_ORDER`), whatever the order of ``-m``; the
  cutoffs of one measure in increasing order (``-m P.5,7,3`` prints ``P_3``, ``P_5``, ``P_7``);
* with ``-q``, every query the run answers and the truth judges, in ``strcmp`` order of the
  query ids, gets its lines first; queries added by ``-c`` are averaged but not printed;
  ``runid``, ``num_q``, ``gm_map`` and ``gm_bpref`` have no per-query line;
* then the ``all`` lines: ``runid`` (the run's tag) and every measure's aggregate;
  ``relstring`` (the grades of the top documents, one character each) has per-query lines only;
* a measure given with parameters that trec_eval prints after its name (``set_F.0.5``,
  ``utility.2,-1,0,0``, ``ndcg.1=3,2=9``, ``relstring.20``) is printed with the parameter text
  as typed; cutoffs are printed as trec_eval formats them (``ndcg_cut.23.4`` is ``ndcg_cut_23``).

Several runs are printed one after the other, each evaluated on its own as trec_eval would.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from fuzzytruth.cli._errors import UserError, note

__all__ = [
    "TrecLine", "is_trec_spelling", "relevance_strings", "render", "table_entry", "trec_lines",
]

GROUPS = {"official": ("runid",), "all_trec": ("runid", "relstring")}
"""trec_eval's groups with the lines they hold besides the library's measures."""
SUMMARY_ONLY = frozenset({"runid", "num_q", "gm_map", "gm_bpref"})
"""Measures without per-query lines (``te_print_single_meas_empty`` in their ``m_*.c``)."""
RELSTRING_LENGTH = 10
"""Documents in ``relstring`` without a parameter (``m_relstring.c``)."""


@dataclass(frozen=True)
class TrecLine:
    """One measure line of trec_eval's output: where it goes, how it is named and printed.

    ``measure`` is the library measure whose values are printed (None for ``runid`` and
    ``relstring``), ``length`` the documents of a ``relstring``.
    """

    position: tuple[int, float, int]
    name: str
    base: str
    measure: Any = None
    integer: bool = False
    length: int = 0


def table_entry(printed: str) -> str | None:
    """The entry of trec_eval's measure table a printed name belongs to.

    >>> table_entry("ndcg_cut_10"), table_entry("P_avgjg_5"), table_entry("num_rel")
    ('ndcg_cut', 'P_avgjg', 'num_rel')
    """
    from fuzzytruth.measures.names import TREC_MEASURE_ORDER

    if printed in TREC_MEASURE_ORDER:
        return printed
    heads = [b for b in TREC_MEASURE_ORDER if printed.startswith(b + "_")]
    return max(heads, key=len) if heads else None


def is_trec_spelling(text: str) -> bool:
    """Whether ``-m text`` is in trec_eval's vocabulary: a group, a name of its measure table
    (with ``.parameters`` or not), or a printed name such as ``P_10``.

    >>> is_trec_spelling("map"), is_trec_spelling("P.5,10"), is_trec_spelling("ndcg_cut_10")
    (True, True, True)
    >>> is_trec_spelling("AP"), is_trec_spelling("nDCG@10")
    (False, False)
    """
    from fuzzytruth.measures.names import TREC_MEASURE_ORDER, parse_measure, trec_name

    text = text.strip()
    if text in GROUPS or text.split(".", 1)[0] in TREC_MEASURE_ORDER:
        return True
    try:
        return trec_name(parse_measure(text)) == text
    except ValueError:
        return False


def trec_lines(texts: Sequence[str]) -> list[TrecLine]:
    """The lines ``-m texts`` ask for, in trec_eval's order, each once.

    As in trec_eval, the first ``-m NAME.PARAMS`` of a measure sets its parameters wherever it
    is asked for (``-m all_trec -m relstring.20`` prints ``relstring_20`` only); a later one
    for the same measure is left out, with a note.
    """
    from fuzzytruth.measures.names import TREC_MEASURE_ORDER

    explicit: dict[str, str] = {}
    for text in (t.strip() for t in texts):
        head, dot, _ = text.partition(".")
        if dot and head in TREC_MEASURE_ORDER:
            if explicit.setdefault(head, text) != text:
                note(f"-m {text} is left out: as in trec_eval, the first parameters given for "
                     f"{head} ({explicit[head]}) apply")
    lines: dict[str, TrecLine] = {}
    for text in (t.strip() for t in texts):
        head = text.partition(".")[0]
        if head in explicit and explicit[head] != text:
            continue
        try:
            found = _lines_of(text)
        except ValueError as err:
            raise UserError(f"-m {text}: {err}") from None
        for line in found:
            if line.base in explicit and explicit[line.base] != text:
                continue  # a group's member whose parameters another -m gives
            lines.setdefault(line.name, replace(line, position=(*line.position[:2], len(lines))))
    return sorted(lines.values(), key=lambda line: line.position)


def _lines_of(text: str) -> list[TrecLine]:
    """The lines one ``-m`` argument asks for."""
    from fuzzytruth.measures.names import TREC_MEASURE_ORDER, expand, trec_name

    head, dot, param = text.partition(".")
    if head == "relstring" or text == "runid":
        specials, measures = (text,), []
    else:
        specials, measures = GROUPS.get(text, ()), expand(text, trec_groups=True)
    out = []
    for special in specials:
        name, _, length = special.partition(".")
        out.append(TrecLine(
            (TREC_MEASURE_ORDER.index(name), 0.0, 0), f"{name}_{length}" if length else name,
            name, length=(_relstring_length(length) if length else RELSTRING_LENGTH)
            if name == "relstring" else 0,
        ))
    for measure in measures:
        printed = trec_name(measure)
        if printed is None:
            raise UserError(f"--format trec: {text!r} has no trec_eval name ({measure})")
        base = table_entry(printed)
        listed = len(expand(base, trec_groups=True)) > 1  # a measure at several cutoffs
        if dot and not listed and head == base:
            printed = f"{head}_{param}"  # trec_eval repeats a parameter as typed
        out.append(TrecLine(
            (TREC_MEASURE_ORDER.index(base), _cutoff(printed, base) if listed else 0.0, 0),
            printed, base, measure, integer=measure.family.aggregate == "sum",
        ))
    return out


def _relstring_length(text: str) -> int:
    try:
        return int(float(text))
    except ValueError:
        raise UserError(f"-m relstring.{text}: the length must be a number, e.g. relstring.20") \
            from None


def _cutoff(printed: str, base: str) -> float:
    """The cutoff of a printed name (``P_10`` -> 10.0), for trec_eval's increasing order."""
    match = re.fullmatch(re.escape(base) + r"_([-+0-9.eE]+)", printed)
    return float(match.group(1)) if match else 0.0


def relevance_strings(
    run: Any,
    qrels: Any,
    queries: Sequence[str],
    *,
    length: int,
    ties: str,
    score_dtype: str,
    depth: int | None,
    judged_only: bool,
) -> dict[str, str]:
    """trec_eval's ``relstring`` of each query: one character per top document — its grade
    (``>`` above 9), ``.`` for a document judged with a negative grade, ``-`` for one not in
    the qrels."""
    import numpy as np

    from fuzzytruth.truth.qrels import ranked_gains

    ranked = ranked_gains(run, qrels, ties=ties, score_dtype=score_dtype, judged=True)
    row = {q: i for i, q in enumerate(ranked.query_ids.tolist())}
    out = {}
    for query in queries:
        i = row[query]
        n = int(ranked.lengths[i]) if depth is None else min(depth, int(ranked.lengths[i]))
        grades, judged = ranked.gains[i, :n], ranked.judged[i, :n]
        if judged_only:
            keep = judged & (grades >= 0)
            grades, judged = grades[keep], judged[keep]
        chars = np.where(~judged, "-", np.where(grades < 0, ".", np.where(
            grades > 9, ">", np.clip(grades, 0, 9).astype(int).astype(str))))
        out[query] = "".join(chars[:length].tolist())
    return out


def render(
    lines: Sequence[TrecLine],
    *,
    run_name: str,
    per_query: Mapping[tuple[str, str], float],
    summary: Mapping[str, float],
    queries: Sequence[str],
    relstrings: Mapping[int, Mapping[str, str]],
    query_lines: bool,
) -> str:
    """trec_eval's output for one run.

    ``per_query`` maps (query, measure label) to a value and ``summary`` a measure label to
    its aggregate; ``queries`` are those printed with ``query_lines`` (``-q``);
    ``relstrings`` maps a length to each query's relevance string.
    """
    out: list[str] = []
    if query_lines:
        for query in sorted(queries):
            for line in lines:
                if line.base in SUMMARY_ONLY:
                    continue
                if line.base == "relstring":
                    out.append(f"{line.name:<22}\t{query}\t'{relstrings[line.length][query]}'")
                else:
                    out.append(_value_line(line, query, per_query[query, str(line.measure)]))
    for line in lines:
        if line.base == "runid":
            out.append(f"{'runid':<22}\tall\t{run_name}")
        elif line.base != "relstring":
            out.append(_value_line(line, "all", summary[str(line.measure)]))
    return "".join(f"{text}\n" for text in out)


def _value_line(line: TrecLine, query: str, value: float) -> str:
    text = str(int(value)) if line.integer else f"{value:6.4f}"
    return f"{line.name:<22}\t{query}\t{text}"
