"""``--format trec``: the output of trec_eval 9.0.8, byte for byte, from an evaluation.

What each measure prints as — its name, integer or not, whether it has per-query lines, its
place — is the library's table, :mod:`fuzzytruth.measures.trec_output`; this module adds the
two lines that are not measures (``runid``, ``relstring``) and lays the output out as
trec_eval does (``trec_eval.c``, ``meas_print_single.c``, ``meas_print_final.c``,
``m_runid.c``, ``m_relstring.c``):

* one line per value, ``"%-22s\\t%s\\t%6.4f\\n"`` (name, query or ``all``, value; counts
  with ``%ld``); measures in the order of trec_eval's measure table, whatever the order of
  ``-m``; the cutoffs of one measure in increasing order (``-m P.5,7,3`` prints ``P_3``,
  ``P_5``, ``P_7``);
* with ``-q``, every query the run answers and the truth judges, in ``strcmp`` order of the
  query ids, gets its lines first; queries added by ``-c`` are averaged but not printed
  (printed too under trec_eval 10.0, :func:`prints_added_queries`);
* then the ``all`` lines: ``runid`` (the run's tag) and every measure's aggregate;
  ``relstring`` (the grades of the top documents, one character each) has per-query lines only;
  with ``-n`` (no summary) none of them;
* with ``-J``, a query whose list holds no judged document has nothing retrieved (under
  trec_eval 10.0 a query ``-c`` adds too: its one stand-in document is judged by no qrels), and
  trec_eval's ``iprec_at_recall`` and ``11pt_avg`` divide 0 by 0 there (:func:`unset_precisions`
  says at which recall levels): those values, and the ``all`` lines they enter, print as
  trec_eval prints that NaN, ``-nan``; the library's values of such a list stay 0;
* with ``-Z``, every value line is ``"Z%-22s\\t%s\\t%6.4f\\n"`` (counts too), the per-query
  values are z-scores (:mod:`fuzzytruth.evaluation.zscores`) and the summary their mean (their
  sum for counts, ``exp`` of their mean for ``gm_map``), as trec_eval accumulates them.

Several runs are printed one after the other, each evaluated on its own as trec_eval would.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fuzzytruth.cli._errors import UserError, note

__all__ = [
    "STAND_IN",
    "ZERO_BY_ZERO",
    "TrecLine",
    "complete_num_rel",
    "empty_list_counts",
    "is_trec_spelling",
    "judged_queries",
    "prints_added_queries",
    "relevance_strings",
    "relstring_option",
    "render",
    "reset_added",
    "summaries",
    "table_entry",
    "trec_lines",
    "unset_precisions",
    "with_stand_ins",
]

SPECIALS = {**dict.fromkeys(("official", "set", "qrels_jg", "all_prefs", "prefs"), ("runid",)),
            "all_trec": ("runid", "relstring")}
"""trec_eval's groups with the lines they hold that are not measures (``measures.c``)."""
RELSTRING_LENGTH = 10
"""Documents in ``relstring`` without a parameter (``m_relstring.c``)."""
_CUTOFF_PARAMS = ("k", "recall", "mult")


@dataclass(frozen=True)
class TrecLine:
    """One line (or, with ``-q``, one line per query) of trec_eval's output.

    ``measure`` is the library measure whose values are printed (None for ``runid`` and
    ``relstring``); ``order`` its place in trec_eval's table and ``cutoff`` within a cutoff
    list; ``length`` the documents of a ``relstring``.
    """

    order: int
    cutoff: float
    name: str
    base: str
    measure: Any = None
    integer: bool = False
    per_query: bool = True
    length: int = 0


def table_entry(printed: str) -> str | None:
    """The entry of trec_eval's measure table a printed name belongs to.

    >>> table_entry("ndcg_cut_10"), table_entry("P_avgjg_5"), table_entry("num_rel")
    ('ndcg_cut', 'P_avgjg', 'num_rel')
    """
    from fuzzytruth.measures.trec_output import TREC_TABLE

    if printed in TREC_TABLE:
        return printed
    heads = [b for b in TREC_TABLE if printed.startswith(b + "_")]
    return max(heads, key=len) if heads else None


def relstring_option(text: str) -> str | None:
    """``relstring``'s ``-m`` argument (``relstring`` or ``relstring.20``) from it or from its
    printed name (``relstring_20``); None for any other text.

    >>> relstring_option("relstring_20"), relstring_option("relstring.5"), relstring_option("P_5")
    ('relstring.20', 'relstring.5', None)
    """
    text = text.strip()
    if text == "relstring" or text.startswith("relstring."):
        return text
    if text.startswith("relstring_"):
        return "relstring." + text.removeprefix("relstring_")
    return None


def is_trec_spelling(text: str) -> bool:
    """Whether ``-m text`` is in trec_eval's vocabulary: a group, a name of its measure table
    (with ``.parameters`` or not), or a name as trec_eval prints it, such as ``P_10``,
    ``11pt_avg_.25,.5,.75``, ``P_avgjg_5`` or ``relstring_20``.

    >>> is_trec_spelling("map"), is_trec_spelling("P.5,10"), is_trec_spelling("ndcg_cut_10")
    (True, True, True)
    >>> is_trec_spelling("11pt_avg_.25,.5,.75"), is_trec_spelling("P_avgjg_5")
    (True, True)
    >>> is_trec_spelling("AP"), is_trec_spelling("nDCG@10")
    (False, False)
    """
    from fuzzytruth.measures.names import TREC_GROUPS
    from fuzzytruth.measures.trec_output import TREC_TABLE, option_spelling, trec_name

    text = text.strip()
    if text in TREC_GROUPS or relstring_option(text) is not None:
        return True
    text = option_spelling(text)
    if text.split(".", 1)[0] in TREC_TABLE:
        return True
    for judgment_groups in (False, True):
        try:
            if trec_name(text, judgment_groups=judgment_groups) == text:
                return True
        except ValueError:
            continue
    return False


def trec_lines(texts: Sequence[str], *, judgment_groups: bool = False,
               preset: Any = None) -> list[TrecLine]:
    """The lines ``-m texts`` ask for, in trec_eval's order, each once.

    As in trec_eval, the first ``-m NAME.PARAMS`` of a measure sets its parameters wherever it
    is asked for (``-m all_trec -m relstring.20`` prints ``relstring_20`` only); a later one
    for the same measure is left out, with a note. ``judgment_groups`` (``-R qrels_jg``)
    prints ``map``, ``P`` and ``Rprec_mult`` as their ``*_avgjg`` forms; ``preset`` says
    whose groups (``--preset trec10``: trec_eval 10's ``all_trec``).
    """
    from fuzzytruth.measures.trec_output import TREC_TABLE, option_spelling

    # a printed name is the -m argument it came from (relstring_20 is relstring.20)
    texts = [relstring_option(t) or option_spelling(t) for t in texts]
    explicit: dict[str, str] = {}
    for text in texts:
        head, dot, _ = text.partition(".")
        if dot and head in TREC_TABLE:
            if explicit.setdefault(head, text) != text:
                note(f"-m {text} is left out: as in trec_eval, the first parameters given for "
                     f"{head} ({explicit[head]}) apply")
    lines: dict[str, TrecLine] = {}
    for text in texts:
        head = text.partition(".")[0]
        if head in explicit and explicit[head] != text:
            continue
        try:
            found = _lines_of(text, judgment_groups, preset)
        except ValueError as err:
            raise UserError(f"-m {text}: {err}") from None
        for line in found:
            if line.base in explicit and explicit[line.base] != text:
                continue  # a group's member whose parameters another -m gives
            lines.setdefault(line.name, line)
    return sorted(lines.values(), key=lambda line: (line.order, line.cutoff))


def _lines_of(text: str, judgment_groups: bool, preset: Any) -> list[TrecLine]:
    """The lines one ``-m`` argument asks for."""
    from fuzzytruth.measures.names import AVGJG
    from fuzzytruth.measures.trec_output import TREC_TABLE, trec_measures

    head = text.partition(".")[0]
    if head == "relstring" or text == "runid":
        specials, pairs = (text,), []
    else:
        if not judgment_groups and (text == "qrels_jg" or table_entry(head) in AVGJG):
            raise ValueError("the judgment-group measures need -R qrels_jg (a qrels whose "
                             "second column names the judgment group)")
        specials = SPECIALS.get(text, ())
        pairs = trec_measures(text, judgment_groups=judgment_groups, preset=preset)
    out = [_special(special) for special in specials]
    for measure, printing in pairs:
        cutoff = next((float(measure.params[p]) for p in _CUTOFF_PARAMS
                       if p in measure.params), 0.0)
        out.append(TrecLine(printing.order, cutoff, printing.name, TREC_TABLE[printing.order],
                            measure, printing.integer, printing.per_query))
    return out


def _special(text: str) -> TrecLine:
    """``runid`` or ``relstring[.length]``: lines that are not measures."""
    from fuzzytruth.measures.trec_output import TREC_TABLE

    name, _, length = text.partition(".")
    if name == "runid":
        return TrecLine(TREC_TABLE.index(name), 0.0, name, name, per_query=False)
    try:
        n = int(float(length)) if length else RELSTRING_LENGTH
    except ValueError:
        raise UserError(f"-m {text}: the length must be a number, e.g. relstring.20") from None
    return TrecLine(TREC_TABLE.index(name), 0.0, f"{name}_{length}" if length else name, name,
                    length=n)


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
    grades: str,
) -> dict[str, str]:
    """trec_eval's ``relstring`` of each query: one character per top document — its grade
    (``>`` above 9), ``.`` for a document judged with a negative grade, ``-`` for one not in
    the qrels. ``grades`` is the preset's reading of the grades (:attr:`Preset.grades
    <fuzzytruth.measures.registry.Preset.grades>`): under ``"truncate"`` a ``-0.5`` is grade 0,
    as trec_eval's ``atol`` reads it and as the measures beside it count it. A query the run
    does not answer (one ``-c`` adds) has the empty string, as trec_eval's ``clear_relstr``."""
    import numpy as np

    from fuzzytruth.metrics.base import truncate_grades
    from fuzzytruth.truth.qrels import ranked_gains

    ranked = ranked_gains(run, qrels, ties=ties, score_dtype=score_dtype, judged=True)
    if grades == "truncate":
        ranked = truncate_grades(ranked)
    row = {q: i for i, q in enumerate(ranked.query_ids.tolist())}
    out = {}
    for query in queries:
        if query not in row:
            out[query] = ""
            continue
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


_INTERPOLATED = ("iprec_at_recall", "11pt_avg")
"""trec_eval's interpolated precisions, which start from the precision of the whole list."""
ZERO_BY_ZERO = -math.nan
"""0.0/0.0 as x86-64 computes it: a NaN with its sign bit set, which printf writes ``-nan``
(a NaN read from text, as a ``-Z`` file's ``nan``, has it clear: ``nan``)."""


def empty_list_counts(lines: Sequence[TrecLine]) -> list[Any]:
    """The counts :func:`unset_precisions` reads, to be evaluated with the lines' measures:
    ``NumRet`` and ``NumRel`` at the relevance level of each interpolated precision line;
    none without such a line."""
    from fuzzytruth.measures import Measure

    interpolated = [line.measure for line in lines if line.base in _INTERPOLATED]
    if not interpolated:
        return []
    return [Measure("NumRet"), *dict.fromkeys(_num_rel(m) for m in interpolated)]


def _num_rel(measure: Any) -> Any:
    """``NumRel`` at the relevance level ``measure`` was given, or at the evaluation's."""
    from fuzzytruth.measures import Measure

    return Measure("NumRel", **{k: v for k, v in measure.params.items() if k == "rel"})


def unset_precisions(
    lines: Sequence[TrecLine],
    values: Mapping[tuple[str, str], float],
    queries: Sequence[str],
    resolved: Mapping[str, str],
) -> dict[tuple[str, str], float]:
    """The (query, measure) values of ``iprec_at_recall`` and ``11pt_avg`` that trec_eval
    computes as 0/0, of queries with an empty list, each :data:`ZERO_BY_ZERO`.

    trec_eval starts the interpolated precision at num_rel_ret / num_ret, then walks the list
    up from its end (``m_iprec_at_recall.c``, ``m_11pt_avg.c``, ``te_calc_*``). With nothing
    retrieved (``-J`` and no judged document in the list: ``form_res_rels.c`` keeps judged
    documents only) that is 0.0/0.0, NaN, and no step of the walk replaces it: a recall level
    that asks for no relevant document (its cutoff, :func:`~fuzzytruth.metrics.ranking.
    recall_cutoffs`, is 0) gets the NaN, the others keep the 0 they start with. Level 0 always
    asks for none, so ``11pt_avg`` (the mean over its levels) is NaN whenever a level is; a
    query with no relevant document has every level NaN. The library scores such a list 0
    (as any empty list); only the trec format prints trec_eval's NaN, and its mean, as
    trec_eval adds the NaN into the ``all`` line's sum.

    ``values`` holds each (query, measure) of the evaluation, :func:`empty_list_counts`
    among them; ``queries`` are those the run answers; ``resolved`` maps a measure to its
    resolved spelling (the evaluation's ``conventions["measures"]``).
    """
    from fuzzytruth.measures.names import parse_measure
    from fuzzytruth.metrics.ranking import recall_cutoffs

    empty = [q for q in queries if values[q, "NumRet"] == 0]
    unset: dict[tuple[str, str], float] = {}
    for line in lines:
        if not empty or line.base not in _INTERPOLATED:
            continue
        measure = parse_measure(resolved[str(line.measure)])
        params = {p.name: p.default for p in measure.family.params} | measure.params
        levels = np.atleast_1d(np.asarray(
            params["recall" if line.base == "iprec_at_recall" else "levels"], dtype=np.float64))
        n_rel = np.array([values[q, str(_num_rel(line.measure))] for q in empty])
        zero = (recall_cutoffs(levels, n_rel, params["interpolation"]) == 0).any(axis=1)
        unset |= {(q, str(line.measure)): ZERO_BY_ZERO
                  for q, z in zip(empty, zero.tolist(), strict=True) if z}
    return unset


def judged_queries(truth: Any) -> set[str]:
    """The queries ``truth`` judges, which ``-c`` evaluates: those of a qrels or of
    preferences, or of any of its judgment groups (``-R qrels_jg``: a mapping of group to
    qrels), as the evaluations take them (the queries of the run the truth does not judge are
    not evaluated).

    Examples
    --------
    >>> from fuzzytruth.truth.qrels import Qrels
    >>> sorted(judged_queries(Qrels(["1", "2"], ["a", "b"], [1, 0])))
    ['1', '2']
    >>> sorted(judged_queries({"g1": Qrels(["1"], ["a"], [1]), "g2": Qrels(["3"], ["a"], [0])}))
    ['1', '3']
    """
    parts = truth.values() if isinstance(truth, Mapping) else (truth,)
    return set().union(*(part.queries for part in parts))


def prints_added_queries(preset: Mapping[str, Any]) -> bool:
    """Whether ``-c -q`` prints the queries ``-c`` adds (those of the qrels the run does not
    answer) under ``preset`` (its :meth:`~fuzzytruth.measures.registry.Preset.as_dict`).

    trec_eval 10.0 does ("-c mode now prints out skipped queries in -q mode", its CHANGELOG;
    ``trec_eval.c`` evaluates, converts to z-scores, accumulates and prints each qrels query
    in one loop, an added one on an empty ranking); 9.0.8 averages them without printing or
    accumulating their lines. A preset follows 10.0 when its interpolation is 10.0's
    (``lround``), the rule that names that version among the presets.

    Examples
    --------
    >>> from fuzzytruth.measures import get_preset
    >>> prints_added_queries(get_preset("trec10").as_dict())
    True
    >>> prints_added_queries(get_preset("trec").as_dict())
    False
    """
    return preset.get("params", {}).get("interpolation") == "trec_eval10"


STAND_IN = "ceci_nest_pas_un_docno"
"""The one document trec_eval 10.0 ranks for a query ``-c`` adds (``trec_eval.c``'s
``bogus_result``, score 1): judged by no qrels, so that it only counts as retrieved."""
_RESET = ("num_ret", "utility", "rbp_resid")
"""Printed names whose value trec_eval 10.0 sets back to 0 for a query ``-c`` adds, with any
name starting ``unj`` (``trec_eval.c``: ``strcmp`` of the whole name; ``relstring`` is
cleared to ``''``): a parameterised name (``utility_2,-1,0,0``, ``rbp_resid_p=0.5``) keeps
the stand-in list's value."""


def with_stand_ins(run: Any, queries: Sequence[str]) -> Any:
    """``run`` with :data:`STAND_IN` ranked for each of ``queries``, as trec_eval 10.0 scores
    the queries ``-c`` adds (:func:`prints_added_queries`); the run's name kept.

    Examples
    --------
    >>> from fuzzytruth import Run
    >>> with_stand_ins(Run(["1"], ["a"], [2.0], name="r"), ["2"]).to_dataframe()
      query_id                  doc_id  score
    0        1                       a    2.0
    1        2  ceci_nest_pas_un_docno    1.0
    """
    import pandas as pd

    from fuzzytruth.runs import Run

    frame = run.to_dataframe()
    extra = pd.DataFrame({"query_id": list(queries), "doc_id": STAND_IN, "score": 1.0})
    return Run.from_dataframe(pd.concat([frame, extra], ignore_index=True), name=run.name)


def reset_added(
    lines: Sequence[TrecLine],
    values: Mapping[tuple[str, str], float],
    totals: Mapping[str, float],
    added: Sequence[str],
    queries: Sequence[str],
    *,
    stand_ins: bool,
) -> tuple[dict[tuple[str, str], float], dict[str, float]]:
    """The (query, measure) values and the aggregates as trec_eval has them for the ``added``
    queries (those ``-c`` adds), which the evaluation scored on an empty list or, with
    ``stand_ins`` (trec_eval 10.0, :func:`prints_added_queries`), on :func:`with_stand_ins`'s.

    trec_eval 10.0 then sets the lines named in :data:`_RESET` (or ``unj...``) back to 0.
    9.0.8 never evaluates an added query: it adds nothing to a line's sum, which it divides
    by all the queries for an average (``meas_avg.c``), so every line but ``num_q`` (the
    qrels' queries, ``m_num_q.c``) counts 0 for it, where the library's empty list may score
    otherwise (``yaap``: log(1 / (1 + R)); ``utility``: c·R + d·(N − R);
    ``prefs_num_prefs_poss``: the pairs judged); ``gm_map`` and ``gm_bpref`` then add
    log(1e-5) per added query, as ``meas_avg.c`` does, and ``num_rel``'s summary is the whole
    qrels' count (:func:`complete_num_rel`).

    The 0s are those queries' values, and each line's aggregate over ``queries`` (all
    evaluated) is taken again by the family's own rule (:meth:`~fuzzytruth.measures.registry.
    MeasureFamily.combine`, as the evaluation's aggregate), as trec_eval accumulates them.

    Examples
    --------
    >>> from fuzzytruth.measures import Measure
    >>> line = TrecLine(0, 0.0, "yaap", "yaap", Measure("YAAP"))
    >>> values = {("1", "YAAP"): 0.5, ("2", "YAAP"): -0.7}
    >>> reset_added([line], values, {"YAAP": -0.1}, ["2"], ["1", "2"], stand_ins=False)
    ({('1', 'YAAP'): 0.5, ('2', 'YAAP'): 0.0}, {'YAAP': 0.25})
    """
    values, totals = dict(values), dict(totals)
    for line in lines:
        if stand_ins:
            if line.name not in _RESET and not line.name.startswith("unj"):
                continue
        elif line.base == "num_q":
            continue
        measure = str(line.measure)
        values |= {(q, measure): 0.0 for q in added}
        column = np.array([values[q, measure] for q in queries], dtype=np.float64)
        totals[measure] = float(line.measure.family.combine(column))
    return values, totals


def complete_num_rel(qrels: Any, grades: str) -> int:
    """trec_eval ``-c``'s summary of ``num_rel`` (``te_calc_avg_num_rel`` in ``m_num_rel.c``,
    9.0.8 and 10.0): the judgments of the whole qrels with a grade > 0 (as ``grades``, the
    preset's reading, has them), whatever ``-l`` says, in place of the accumulated value, so
    also under ``-Z`` (a count, not a sum of z-scores).

    >>> from fuzzytruth.truth.qrels import Qrels
    >>> complete_num_rel(Qrels(["q", "q", "q", "r"], ["a", "b", "c", "a"], [3, 1, 0.5, 2]),
    ...                  "truncate")
    3
    """
    values = qrels.relevance
    if grades == "truncate":
        values = np.trunc(values)
    return int(np.count_nonzero(values > 0))


def summaries(
    lines: Sequence[TrecLine],
    per_query: Mapping[tuple[str, str], float],
    queries: Sequence[str],
    n_queries: int,
    reference: Any,
) -> tuple[dict[tuple[str, str], float], dict[str, float]]:
    """trec_eval ``-Z``: the per-query values of ``queries`` as z-scores against
    ``reference`` (:func:`fuzzytruth.io.read_trec_zscores`), and each line's summary from them.

    As trec_eval accumulates only the queries it prints and divides by ``n_queries`` (all
    evaluated, ``-c`` included): the mean of the z-scores (counts: their sum; ``gm_map``,
    ``gm_bpref``: ``exp`` of the mean of the z-scores of ``log(max(v, 1e-5))``, a query added
    by ``-c`` counting ``log(1e-5)``; ``num_q``: the number of queries). Both maps are keyed
    by the line's printed name.
    """
    from fuzzytruth.evaluation.zscores import trec_zscores
    from fuzzytruth.measures.registry import GEOMETRIC_FLOOR

    valued = [line for line in lines if line.measure is not None]
    names = [line.name for line in valued for _ in queries]
    aggregates = [line.measure.family.aggregate for line in valued]
    raw = np.array([per_query[q, str(line.measure)] for line in valued for q in queries],
                   dtype=np.float64).reshape(len(valued), len(queries))
    for i, line in enumerate(valued):  # each line's terms, as its aggregate adds them
        raw[i] = line.measure.family.summed(raw[i])
    z = trec_zscores(list(queries) * len(valued), names, raw.ravel(), reference).reshape(
        raw.shape)
    values = {(q, line.name): float(z[i, j]) for i, line in enumerate(valued)
              for j, q in enumerate(queries)}
    summary = {}
    for i, (line, aggregate) in enumerate(zip(valued, aggregates, strict=True)):
        total = float(z[i].sum())
        if line.base == "num_q":
            summary[line.name] = float(n_queries)
        elif aggregate == "sum":
            summary[line.name] = total
        elif aggregate == "geometric":
            total += (n_queries - len(queries)) * math.log(GEOMETRIC_FLOOR)
            summary[line.name] = math.exp(total / n_queries)
        else:
            summary[line.name] = total / n_queries
    return values, summary


def render(
    lines: Sequence[TrecLine],
    *,
    run_name: str,
    per_query: Mapping[tuple[str, str], float],
    summary: Mapping[str, float],
    queries: Sequence[str],
    relstrings: Mapping[int, Mapping[str, str]],
    query_lines: bool,
    summary_lines: bool = True,
    zscores: bool = False,
) -> str:
    """trec_eval's output for one run.

    ``per_query`` maps (query, printed name) to a value and ``summary`` a printed name to its
    aggregate; ``queries`` are those printed with ``query_lines`` (``-q``); ``summary_lines``
    False leaves out the ``runid`` and ``all`` lines (``-n``: ``summary_flag`` 0, which every
    final printer of trec_eval checks); ``relstrings`` maps a length to each query's relevance
    string; ``zscores``: the values are ``-Z``'s.
    """
    out: list[str] = []
    if query_lines:
        for query in sorted(queries):
            for line in lines:
                if line.base == "relstring":
                    out.append(f"{line.name:<22}\t{query}\t'{relstrings[line.length][query]}'")
                elif line.per_query:
                    out.append(_value_line(line, query, per_query[query, line.name], zscores))
    for line in lines if summary_lines else ():
        if line.base == "runid":
            out.append(f"{'runid':<22}\tall\t{run_name}")
        elif line.base != "relstring":
            out.append(_value_line(line, "all", summary[line.name], zscores))
    return "".join(f"{text}\n" for text in out)


def _value_line(line: TrecLine, query: str, value: float, zscores: bool) -> str:
    if math.isnan(value):  # printf's %6.4f writes a NaN's sign (ZERO_BY_ZERO); Python's not
        text = f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    else:
        text = str(int(value)) if line.integer and not zscores else f"{value:6.4f}"
    return f"{'Z' if zscores else ''}{line.name:<22}\t{query}\t{text}"
