"""How trec_eval prints each measure: its printed name, integer or decimal value, whether it has
per-query lines, and where it comes in trec_eval's output.

trec_eval (9.0.8 and 10.0, ``meas_init.c``, ``meas_print_*.c``) names a measure's output line

* ``name`` for a measure without parameters (``map``, ``num_q``);
* ``name_k`` per cutoff of a cutoff list, the cutoff printed with ``%ld`` for rank cutoffs
  (``P_10``, ``ndcg_cut_23`` for ``-m ndcg_cut.23.4``) and ``%3.2f`` for recall levels and
  multiples (``iprec_at_recall_0.10``, ``Rprec_mult_5.00``);
* ``name_<parameters>`` for a measure with one parameter string, the string as the user wrote
  it after the first ``.`` of ``-m`` (``ndcg_1=3,2=9,4=4.5``, ``11pt_avg_.25,.5,.75``,
  ``set_F_4``, ``utility_2,-1,0,0``); :func:`trec_printing` renders the parameters of a
  measure canonically, :func:`trec_measures` keeps the user's text, and reads the printed
  name back as the ``-m`` argument it came from (:func:`option_spelling`), so that a pasted
  ``11pt_avg_.25,.5,.75`` prints as itself;

and prints the counts (``num_*``, ``prefs_num_prefs_*``) as integers (``%ld``), everything
else with ``%6.4f``. ``num_q``, ``gm_map`` and ``gm_bpref`` have no per-query line. Lines
come in the order of trec_eval's measure table (:data:`TREC_TABLE`), whatever the order of the
``-m`` options; within a cutoff list, in increasing order.

Examples
--------
>>> trec_printing("P@10")
TrecPrinting(name='P_10', integer=False, per_query=True, order=11)
>>> trec_printing("AP", judgment_groups=True).name, trec_printing("NumRel").integer
('map_avgjg', True)
>>> [(str(m), p.name) for m, p in trec_measures("11pt_avg..25,.5,.75")]
[('11pt(levels=[0.25,0.5,0.75])', '11pt_avg_.25,.5,.75')]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from fuzzytruth.measures.catalog import Measure
from fuzzytruth.measures.names import AVGJG, expand, parse_measure

__all__ = ["TREC_TABLE", "TrecPrinting", "option_spelling", "trec_measures", "trec_name",
           "trec_printing"]

TREC_TABLE = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "prefs_num_prefs_poss",
    "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid",
    "unj", "ndcg_p",
)
"""trec_eval 10.0's measure table (``measures.c``), the order its output follows; 9.0.8's is
the same without ``dcg``, ``ideal_dcg``, ``rbp``, ``rbp_resid`` and ``unj``. ``ndcg_p``, whose
source file trec_eval does not build, is put last."""

_INTEGER = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret",
                      "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"})
# te_print_single_meas_empty in their m_*.c: a summary line only
_NO_PER_QUERY = frozenset({"num_q", "gm_map", "gm_bpref"})
# families whose trec_eval name has no parameter: family -> name
_PLAIN = {"NumQ": "num_q", "NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret",
          "GMAP": "gm_map", "Rprec": "Rprec", "Bpref": "bpref", "infAP": "infAP",
          "GMBpref": "gm_bpref", "BinG": "binG", "SetAP": "set_map", "YAAP": "yaap",
          "NumNonrelJudgedRet": "num_nonrel_judged_ret"}
_GAIN_FAMILIES = {"G": "G", "Rndcg": "Rndcg", "nDCGRel": "ndcg_rel"}
# parameters that are conventions set for the whole evaluation (trec_eval -l, -N, the preset)
_GLOBAL = {"rel", "interpolation", "n_docs"}
# measures printed with their -m parameter string (meas_init.c: te_init_meas_s_float_p_*)
_PARAMETER_STRING = {"11pt_avg", "set_F", "utility", "ndcg", "ndcg_rel", "G", "Rndcg",
                     "ndcg_p", "rbp", "rbp_resid"}


@dataclass(frozen=True)
class TrecPrinting:
    """How trec_eval prints one measure.

    Attributes
    ----------
    name : str
        The measure's name on its output lines (``P_10``, ``map``, ``ndcg_1=3,2=9``).
    integer : bool
        The value is printed as an integer (``%ld``): the counts ``num_*`` and
        ``prefs_num_prefs_*``; every other value with ``%6.4f``.
    per_query : bool
        ``-q`` prints a line per query (``num_q``, ``gm_map`` and ``gm_bpref`` have only
        their summary line).
    order : int
        Position of the measure in trec_eval's table (:data:`TREC_TABLE`): its lines come in
        this order.
    """

    name: str
    integer: bool
    per_query: bool
    order: int


def _num(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _gains(gain: Any) -> str:
    return ",".join(f"{_num(k)}={_num(v)}" for k, v in gain.items())


def _no_name(measure: Measure, why: str) -> ValueError:
    return ValueError(f"measure {str(measure)!r} has no trec_eval name: {why}")


def _check_conventions(measure: Measure) -> None:
    """trec_eval's AP is over all relevant documents, its gains linear or a map, its discount
    log2(i+1) (J&K's b = 2 for the unbuilt ndcg_p)."""
    params = measure.params
    if params.get("denominator", "all_relevant") != "all_relevant":
        raise _no_name(measure, "trec_eval's map divides by all relevant documents")
    gain = params.get("gain", "linear")
    if gain != "linear" and not isinstance(gain, dict):
        raise _no_name(measure, "trec_eval's gains are the grades or a map level=gain")
    if params.get("discount", "log2") != "log2" and measure.name != "nDCG":
        raise _no_name(measure, "trec_eval discounts by log2(i+1)")


def _base_and_params(measure: Measure, judgment_groups: bool) -> tuple[str, str | None]:
    """trec_eval's measure name and its printed parameter text (None: no parameter)."""
    _check_conventions(measure)
    name, params = measure.name, measure.params
    k = params.get("k")
    if judgment_groups:
        if name == "AP" and k is None:
            return "map_avgjg", None
        if name == "P" and k is not None:
            return "P_avgjg", str(k)
        if name == "RprecMult":
            return "Rprec_mult_avgjg", f"{params['mult']:3.2f}"
        if name != "NumQ":
            raise _no_name(measure, f"with judgment groups trec_eval computes {list(AVGJG)} "
                                    "and num_q only")
    if name in _PLAIN:
        return _PLAIN[name], None
    if name == "AP":
        return ("map", None) if k is None else ("map_cut", str(k))
    if name == "RR":
        if k is not None:
            raise _no_name(measure, "trec_eval's recip_rank has no cutoff")
        return "recip_rank", None
    if name in ("P", "R", "Success", "RelativeP"):
        if k is None:
            if name == "Success":
                raise _no_name(measure, "trec_eval's success needs a cutoff")
            return {"P": "set_P", "R": "set_recall", "RelativeP": "set_relative_P"}[name], None
        return {"P": "P", "R": "recall", "Success": "success", "RelativeP": "relative_P"}[
            name], str(k)
    if name == "iP":
        return "iprec_at_recall", f"{params['recall']:3.2f}"
    if name == "RprecMult":
        return "Rprec_mult", f"{params['mult']:3.2f}"
    if name == "Unjudged":
        return "unj", str(k)
    if name == "F":
        if k is not None:
            raise _no_name(measure, "trec_eval's set_F has no cutoff")
        beta = params.get("beta")
        return "set_F", None if beta is None else _num(round(beta * beta, 12))
    if name == "Utility":
        coefs = [params.get(c, d) for c, d in zip("abcd", (1.0, -1.0, 0.0, 0.0), strict=True)]
        return "utility", None if coefs == [1.0, -1.0, 0.0, 0.0] else ",".join(map(_num, coefs))
    if name == "11pt":
        levels = params.get("levels")
        return "11pt_avg", None if levels is None else ",".join(map(_num, levels))
    if name in ("RBP", "RBPResidual"):
        if k is not None:
            raise _no_name(measure, "trec_eval's rbp has no cutoff")
        base = "rbp" if name == "RBP" else "rbp_resid"
        if params.get("grading", "graded") != "graded":
            raise _no_name(measure, "trec_eval 10's rbp weighs a document by its grade over "
                           "the query's highest (RBP(grading=graded))")
        if params.get("when_judged", "zero") != "zero":
            raise _no_name(measure, "trec_eval 10's rbp_resid is 0 for a list without "
                           "unjudged documents (RBPResidual(when_judged=zero))")
        p = params.get("p", 0.8)
        return base, None if math.isclose(p, 0.9) else f"p={_num(p)}"
    if name in _GAIN_FAMILIES or name == "nDCG":
        gain = params.get("gain")
        text = _gains(gain) if isinstance(gain, dict) else None
        if name != "nDCG":
            return _GAIN_FAMILIES[name], text
        if params.get("discount") == "jk":
            if k is not None or params.get("b") not in (None, 2.0):
                raise _no_name(measure, "trec_eval's ndcg_p has b = 2 and no cutoff")
            return "ndcg_p", text
        if k is None:
            return "ndcg", text
        if text is not None:
            raise _no_name(measure, "trec_eval's ndcg_cut takes no gain map")
        return "ndcg_cut", str(k)
    if name == "Prefs":
        return "prefs_" + params.get("kind", "simp"), None
    if name == "NumPrefs":
        return "prefs_num_prefs_" + params.get("kind", "poss"), None
    raise _no_name(measure, "trec_eval has no such measure")


def trec_printing(measure: str | Measure, *, judgment_groups: bool = False) -> TrecPrinting:
    """How trec_eval prints ``measure`` (module docstring); parameters are rendered canonically.

    Parameters
    ----------
    measure : str or Measure
        Any spelling of one measure.
    judgment_groups : bool, default False
        The evaluation is per judgment group (trec_eval ``-R qrels_jg``): ``AP``, ``P@k`` and
        ``RprecMult@m`` print as ``map_avgjg``, ``P_avgjg_k``, ``Rprec_mult_avgjg_m``.

    Returns
    -------
    TrecPrinting

    Raises
    ------
    ValueError
        When trec_eval has no such measure (``nDCG(gain=exp)``, ``ERR@20``...).

    Examples
    --------
    >>> trec_printing("F(beta=2)").name, trec_printing("iP@0.1").name
    ('set_F_4', 'iprec_at_recall_0.10')
    >>> trec_printing("NumQ")
    TrecPrinting(name='num_q', integer=True, per_query=False, order=1)
    """
    m = parse_measure(measure)
    extra = set(m.params) & _GLOBAL
    if extra:
        m = Measure(m.name, **{k: v for k, v in m.params.items() if k not in _GLOBAL})
    base, text = _base_and_params(m, judgment_groups)
    name = base if text is None else f"{base}_{text}"
    return TrecPrinting(name, base in _INTEGER, base not in _NO_PER_QUERY, TREC_TABLE.index(base))


def trec_name(measure: str | Measure, *, judgment_groups: bool = False) -> str:
    """trec_eval's printed name of ``measure`` (:func:`trec_printing`).

    Examples
    --------
    >>> trec_name("nDCG(gain={1:3,2:9,4:4.5})"), trec_name("Utility(a=2)")
    ('ndcg_1=3,2=9,4=4.5', 'utility_2,-1,0,0')
    """
    return trec_printing(measure, judgment_groups=judgment_groups).name


def option_spelling(text: str) -> str:
    """The ``-m`` argument behind a printed name of a measure with a parameter string
    (``11pt_avg_.25,.5,.75`` is ``11pt_avg..25,.5,.75``); any other text unchanged (a
    printed cutoff name such as ``ndcg_cut_10`` reads as it is).

    Examples
    --------
    >>> option_spelling("11pt_avg_.25,.5,.75"), option_spelling("ndcg_1=3,2=9")
    ('11pt_avg..25,.5,.75', 'ndcg.1=3,2=9')
    >>> option_spelling("ndcg_cut_10"), option_spelling("rbp_resid"), option_spelling("AP")
    ('ndcg_cut_10', 'rbp_resid', 'AP')
    """
    text = text.strip()
    try:
        measures = expand(text, trec_groups=True)
        base = TREC_TABLE[trec_printing(measures[0]).order] if len(measures) == 1 else None
    except ValueError:
        return text
    if base in _PARAMETER_STRING and text.startswith(base + "_"):
        return f"{base}.{text[len(base) + 1:]}"
    return text


def trec_measures(
    spelling: str, *, judgment_groups: bool = False, preset: Any = None
) -> list[tuple[Measure, TrecPrinting]]:
    """What ``trec_eval -m spelling`` computes and prints: each measure with its printing, in
    trec_eval's order. A measure with a parameter string keeps the spelling's own text in its
    printed name, as trec_eval does (``11pt_avg..25,.5,.75`` prints ``11pt_avg_.25,.5,.75``,
    and so does that printed name: :func:`option_spelling`).

    Parameters
    ----------
    spelling : str
        A ``-m`` argument: a measure, a cutoff list (``P.5,10``), a bare name with default
        cutoffs (``P``) or a group (``all_trec``).
    judgment_groups : bool, default False
        As in :func:`trec_printing`.
    preset : str or Preset, optional
        Whose groups (:func:`~fuzzytruth.measures.names.expand`): under ``trec10``,
        ``all_trec`` is trec_eval 10's.

    Returns
    -------
    list of (Measure, TrecPrinting)

    Examples
    --------
    >>> [p.name for _, p in trec_measures("P.20,5")]
    ['P_5', 'P_20']
    >>> [p.name for _, p in trec_measures("ndcg.1=3,2=9,4=4.5")]
    ['ndcg_1=3,2=9,4=4.5']
    >>> [p.name for _, p in trec_measures("11pt_avg_.25,.5,.75")]
    ['11pt_avg_.25,.5,.75']
    """
    spelling = option_spelling(spelling)
    measures = expand(spelling, trec_groups=True, preset=preset)
    out = [(m, trec_printing(m, judgment_groups=judgment_groups)) for m in measures]
    base, sep, raw = spelling.partition(".")
    if len(out) == 1 and sep and base in _PARAMETER_STRING:
        m, p = out[0]
        out = [(m, TrecPrinting(f"{base}_{raw}", p.integer, p.per_query, p.order))]
    return sorted(out, key=lambda pair: pair[1].order)
