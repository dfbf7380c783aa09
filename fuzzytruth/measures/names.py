"""trec_eval and ir_measures spellings of measures, translated into canonical measures.

:func:`fuzzytruth.measures.parse_measure` reads canonical spellings (``P@10``, ``nDCG@10``,
``AP``); when a name does not parse as one it asks this module, so a user can paste what
trec_eval prints or what ir_measures accepts:

=====================================  =========================================================
trec_eval                              canonical
=====================================  =========================================================
``map``, ``map_cut_k``, ``gm_map``     ``AP``, ``AP@k``, ``GMAP``
``P_k``, ``recall_k``, ``success_k``   ``P@k``, ``R@k``, ``Success@k``
``ndcg``, ``ndcg_cut_k``               ``nDCG``, ``nDCG@k``; ``ndcg.1=3,2=9`` is
                                       ``nDCG(gain={1:3,2:9})``
``recip_rank``, ``Rprec``, ``bpref``   ``RR``, ``Rprec``, ``Bpref``
``infAP``, ``11pt_avg``                ``infAP``, ``11pt``
``iprec_at_recall_0.10``               ``iP@0.1``
``set_P``, ``set_recall``, ``set_map``  ``P``, ``R``, ``SetAP``
``set_F``, ``set_F.x``                 ``F``, ``F(beta=√x)`` (trec_eval's x is β²)
``set_relative_P``, ``relative_P_k``   ``RelativeP``, ``RelativeP@k``
``Rprec_mult_m``                       ``RprecMult@m``
``num_q``, ``num_ret``, ``num_rel``,   ``NumQ``, ``NumRet``, ``NumRel``, ``NumRelRet``
``num_rel_ret``
``rbp``, ``rbp_resid`` (``.p=x``)      ``RBP(p=0.9,grading=graded)``,
                                       ``RBPResidual(p=0.9,when_judged=zero)`` (trec_eval 10's)
``gm_bpref``, ``num_nonrel_judged_ret``  ``GMBpref``, ``NumNonrelJudgedRet``
``utility``, ``utility.a,b,c,d``       ``Utility``, ``Utility(a=..,b=..,c=..,d=..)``
``binG``, ``ndcg_rel``                 ``BinG``, ``nDCGRel``
``G``, ``Rndcg``, ``yaap``             ``G``, ``Rndcg``, ``YAAP``; ``G.1=3,2=9`` (or the printed
                                       ``G_1=3,2=9``) is ``G(gain={1:3,2:9})``, likewise
                                       ``Rndcg``, ``ndcg``, ``ndcg_rel``
``ndcg_p``                             ``nDCG(discount=jk)``: J&K's b = 2 (its file is in
                                       trec_eval's sources but not in its build)
``11pt_avg.0.25,0.5``                  ``11pt(levels=[0.25,0.5])`` (printed ``11pt_avg_0.25,0.5``)
``unj_k`` (trec_eval 10)               ``Unjudged@k``
``map_avgjg``, ``P_avgjg_k``,          ``AP``, ``P@k``, ``RprecMult@m``: evaluated per judgment
``Rprec_mult_avgjg_m``                 group and averaged (:data:`AVGJG`)
``prefs_<kind>``,                      ``Prefs(kind=<kind>)``, ``NumPrefs(kind=<kind>)``
``prefs_num_prefs_<kind>``
=====================================  =========================================================

ir_measures: ``SetP``/``SetR``/``SetF`` (its ``beta`` is β² as in trec_eval, so
``SetF(beta=b)`` is ``F(beta=√b)``), ``SetRelP``, ``IPrec@p`` (``iP`` at ``p`` rounded to two
decimals, the level its pytrec_eval provider asks trec_eval for: ``IPrec@0.125`` is ``iP@0.12``,
``IPrec@0.375`` is ``iP@0.38``), ``NumRet(rel=r)`` (which counts
relevant retrieved: ``NumRelRet``), ``nDCG(dcg='exp-log2', gains={...})``, ``cutoff=k``, and
its aliases ``MAP``, ``MRR``, ``NDCG``, ``Precision``, ``Recall``, ``RPrec``, ``BPref``. Names
spelled alike (``AP``, ``nDCG@10``, ``R@100``, ``RR``, ``Judged@10``, ``RBP(p=0.8)``,
``ERR@20``, ``P(rel=2)@5``, ``Bpref``, ``infAP``, ``SetAP``, ``NumQ``) are canonical already.
``RBP`` here has binary r_i by default (grade >= ``rel``, Moffat & Zobel's definition);
trec_eval 10's ``rbp`` weighs a document by its grade over the query's highest judged grade
(``m_rbp.c``), which ``rbp`` translates to (``grading=graded``), and its ``rbp_resid`` is 0 for a
list without unjudged documents (``when_judged=zero``). ir_measures' ``RBP`` without ``rel``
weighs graded documents too, so on graded qrels its values may differ from the
translation's.

Classifier spellings (:data:`CLASSIFIER_ALIASES`), lower case as scikit-learn names its
metrics and as the classifier papers write them: ``acc``, ``accuracy``, ``accuracy_score``
(``Acc``), ``top_k_accuracy``/``top_k_accuracy_score`` (``Acc@2``, scikit-learn's default k;
``top_k_accuracy@5`` is ``Acc@5``), ``ce``, ``log_loss``, ``cross_entropy`` (``CE``),
``brier``, ``brier_score``, ``brier_score_loss`` (``Brier``), ``ece`` (``ECE``), ``kl``,
``js``, ``jsd``, ``pojsd``, ``tv``, ``md``, ``wd``, ``wasserstein``, ``soft_acc``,
``soft_f1``, ``entropy_correlation``, ``real``; ``top1`` ... ``top10`` and ``ReaL`` are the
accuracy family's own aliases. Parameters and ``@k`` pass through: ``ce(level=1)`` is
``CE(level=1)``.

Groups (:func:`expand`, :data:`TREC_GROUPS`): ``official`` is trec_eval's default output (no
``-m``); ``all_trec`` trec_eval 9.0.8's ``-m all_trec`` (every measure it computes from a
qrels); ``set``, ``qrels_jg``, ``all_prefs`` and ``prefs`` its other groups. With
``trec_groups=True`` a bare trec_eval name with default cutoffs (``P``, ``recall``,
``ndcg_cut``, ``map_cut``, ``success``, ``iprec_at_recall``, ``Rprec_mult``, ``relative_P``,
``unj``, ``P_avgjg``, ``Rprec_mult_avgjg``) or a list (``P.5,10``) expands as ``trec_eval -m``
does: rank cutoffs read as integers (``ndcg_cut.23.4`` is ``nDCG@23``), sorted, duplicates
refused. How trec_eval prints each measure: :mod:`fuzzytruth.measures.trec_output`.

Examples
--------
>>> canonical("ndcg_cut_10"), canonical("SetF(beta=4)"), canonical("NumRet(rel=1)")
('nDCG@10', 'F(beta=2)', 'NumRelRet(rel=1)')
>>> [str(m) for m in expand("P.5,10", trec_groups=True)]
['P@5', 'P@10']
>>> try:
...     canonical("ndgc_cut_10")
... except ValueError as err:
...     print(str(err)[:72])
unknown measure 'ndgc_cut_10'; closest known spellings: ndcg_cut_10, ndc
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable
from typing import Any

from fuzzytruth._order import in_text_order
from fuzzytruth._validation import did_you_mean
from fuzzytruth.measures.catalog import Measure, families, family, family_alias, get_preset
from fuzzytruth.measures.trec_groups import (
    AVGJG,
    RECALL_LEVELS,
    RPREC_MULTS,
    SUCCESS_CUTOFFS,
    TREC10_ALL_TREC,
    TREC_CUTOFFS,
    TREC_GROUPS,
    TREC_OFFICIAL,
    UNJ_CUTOFFS,
)

__all__ = [
    "AVGJG",
    "CLASSIFIER_ALIASES",
    "TREC10_ALL_TREC",
    "TREC_GROUPS",
    "TREC_OFFICIAL",
    "alias_table",
    "canonical",
    "expand",
    "from_alias",
    "label_among",
    "parse_measure",
    "parse_measures",
]

def _split_top_level(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


_MEASURE_RE = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*(?:\((.*)\))?\s*(?:@\s*([^@()]+?))?\s*$")


def _parse_mapping(text: str) -> dict[float, float]:
    body = text.strip()[1:-1]
    out: dict[float, float] = {}
    for item in _split_top_level(body):
        key, sep, value = item.partition(":")
        try:
            if not sep:
                raise ValueError
            out[float(key)] = float(value)
        except ValueError:
            raise ValueError(
                f"expected 'grade:gain' items, both numbers, in {text!r}; got {item!r}"
            ) from None
    return out


def _beta_of_squared(text: str, spelling: str) -> float:
    """β from the β² that trec_eval's ``set_F.x`` and ir_measures' ``SetF(beta=x)`` take, or
    a ValueError naming the parameter, the spelling and the rule."""
    try:
        squared = float(text)
    except ValueError:
        squared = math.nan
    if not (math.isfinite(squared) and squared > 0):
        raise ValueError(
            f"parameter 'beta' of measure 'F': {spelling} takes x = beta squared, a positive "
            f"number; got {text!r}"
        )
    return math.sqrt(squared)


def parse_measure(text: str | Measure) -> Measure:
    """Parse a measure from its spelling (a :class:`Measure` is returned unchanged).

    Parameters
    ----------
    text : str or Measure
        E.g. ``"P@10"``, ``"nDCG(discount=jk,gain=exp)@10"``, ``"F(beta=0.5)@10"``,
        ``"nDCG(gain={1:3,2:9})"``.

    Returns
    -------
    Measure

    Examples
    --------
    >>> parse_measure("nDCG(gain={1:3,2:9})@5")
    Measure('nDCG(gain={1:3,2:9})@5')
    >>> parse_measure("P@ten")
    Traceback (most recent call last):
    ...
    ValueError: parameter 'k' of measure 'P': must be a positive integer; got 'ten'

    trec_eval and ir_measures spellings are read too (:mod:`fuzzytruth.measure_names`):

    >>> parse_measure("ndcg_cut_10"), parse_measure("SetF(beta=4)")
    (Measure('nDCG@10'), Measure('F(beta=2)'))
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise ValueError(f"measure must be a str or Measure; got {type(text).__name__}")
    try:
        return _parse_canonical(text)
    except ValueError as error:  # a trec_eval or ir_measures spelling, or an unknown name
        from fuzzytruth.measure_names import from_alias

        return from_alias(text, error)


def _parse_canonical(text: str) -> Measure:
    m = _MEASURE_RE.match(text)
    if m is None:
        raise ValueError(
            f"cannot parse measure {text!r}; expected 'Family', 'Family@x' or "
            f"'Family(name=value,...)@x'"
        )
    name, inner, at_text = m.groups()
    alias = family_alias(name)
    fam_name = alias[0] if alias is not None else name
    fam = family(fam_name)
    params: dict[str, Any] = {}
    for item in _split_top_level(inner or ""):
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ValueError(
                f"cannot parse parameter {item!r} in measure {text!r}; expected name=value"
            )
        if key in params:
            raise ValueError(f"parameter {key!r} given twice in measure {text!r}")
        params[key] = _parse_mapping(value) if value.startswith("{") else value
    if at_text is not None:
        if fam.at is None:
            raise ValueError(f"measure {fam.name!r} takes no '@' value; got {text!r}")
        if fam.at in params:
            raise ValueError(f"parameter {fam.at!r} given twice in measure {text!r}")
        params[fam.at] = at_text.strip()
    return Measure(name, **params)


def _expand_one(item: str | Measure, preset: Any) -> list[Measure]:
    """:func:`expand`, or a ValueError that says to list the measures one string joined with
    commas (:func:`joined_measures`)."""
    try:
        return expand(item, preset=preset)
    except ValueError:
        pieces = joined_measures(item, preset=preset)
        if pieces is None:
            raise
        raise ValueError(
            f"measures must list each measure apart; got {item!r}, several joined by commas "
            f"(a comma separates the cutoffs of one trec_eval name only, as in 'P.5,10'): "
            f"pass {pieces!r}"
        ) from None


def joined_measures(text: object, *, preset: Any = None,
                    trec_groups: bool = False) -> list[str] | None:
    """The names in ``text`` when it is several measures joined by commas (``"P@10,AP"``),
    each a name :func:`expand` reads, else None. Call it where ``text`` did not read as one
    name: ``"P.5,10"`` is one trec_eval name and its cutoffs.

    >>> joined_measures("P@10, AP"), joined_measures("P@10,XX")
    (['P@10', 'AP'], None)
    """
    pieces = [p.strip() for p in text.split(",")] if isinstance(text, str) else []
    if len(pieces) < 2:
        return None
    try:
        for piece in pieces:
            expand(piece, trec_groups=trec_groups, preset=preset)
    except ValueError:
        return None
    return pieces


def _from_ir_measures(value: object) -> bool:
    """Whether ``value`` is one of ir_measures' measure objects (``ir_measures.nDCG@10``)."""
    return type(value).__module__.startswith("ir_measures.")


def parse_measures(
    measures: str | Measure | Iterable[str | Measure], *, preset: Any = None
) -> list[Measure]:
    """Parse one measure or an iterable of them; duplicates are dropped, order kept; a group
    lists the measures it holds under ``preset`` (:func:`expand`). ir_measures' measure
    objects (``ir_measures.nDCG@10``) are read by their spelling, as the string would be. A
    set (pytrec_eval's ``{"map", "ndcg"}``), which has no order of its own, is taken in the
    order of its spellings: a table's rows do not change from one process to the next.

    Raises
    ------
    ValueError
        When ``measures`` names no measure (an empty iterable): every evaluation, comparison
        and bootstrap needs at least one.

    Examples
    --------
    >>> parse_measures(["P@10", "AP", "P@10"])
    [Measure('P@10'), Measure('AP')]
    >>> parse_measures({"P@10", "AP"})
    [Measure('AP'), Measure('P@10')]
    """

    if isinstance(measures, (str, Measure)) or _from_ir_measures(measures):
        measures = [measures]
    elif not isinstance(measures, Iterable) or isinstance(measures, bytes):
        raise ValueError("measures must name at least one measure (a string, a Measure or an "
                         f"iterable of them); got {measures!r}")
    measures = in_text_order(measures)  # a set in its spellings' order: its own varies
    out: list[Measure] = []
    for item in measures:
        if _from_ir_measures(item):  # its str is its spelling, which names read
            item = str(item)
        if not isinstance(item, str | Measure):
            raise ValueError(f"measures must hold strings or Measures; got {item!r}")
        for m in _expand_one(item, preset):  # a measure, or a group ("official", "P.5,10")
            if m not in out:
                out.append(m)
    if not out:
        raise ValueError("measures must name at least one measure (a string, a Measure or an "
                         f"iterable of them); got {measures!r}")
    return out



# trec_eval name -> (family, fixed params)
_TREC_PLAIN: dict[str, tuple[str, dict[str, Any]]] = {
    "map": ("AP", {}),
    "gm_map": ("GMAP", {}),
    "ndcg": ("nDCG", {}),
    "recip_rank": ("RR", {}),
    "Rprec": ("Rprec", {}),
    "bpref": ("Bpref", {}),
    "infAP": ("infAP", {}),
    "11pt_avg": ("11pt", {}),
    "set_P": ("P", {}),
    "set_recall": ("R", {}),
    "set_map": ("SetAP", {}),
    "set_F": ("F", {}),
    "set_relative_P": ("RelativeP", {}),
    "num_q": ("NumQ", {}),
    "num_ret": ("NumRet", {}),
    "num_rel": ("NumRel", {}),
    "num_rel_ret": ("NumRelRet", {}),
    "rbp": ("RBP", {"p": 0.9, "grading": "graded"}),
    "rbp_resid": ("RBPResidual", {"p": 0.9, "when_judged": "zero"}),
    "gm_bpref": ("GMBpref", {}),
    "num_nonrel_judged_ret": ("NumNonrelJudgedRet", {}),
    "utility": ("Utility", {}),
    "binG": ("BinG", {}),
    "ndcg_rel": ("nDCGRel", {}),
    "G": ("G", {}),
    "Rndcg": ("Rndcg", {}),
    "ndcg_p": ("nDCG", {"discount": "jk"}),
    "yaap": ("YAAP", {}),
    "map_avgjg": ("AP", {}),
    **{f"prefs_{kind}": ("Prefs", {"kind": kind}) for kind in (
        "simp", "pair", "avgjg", "avgjg_Rnonrel", "simp_ret", "pair_ret", "avgjg_ret",
        "avgjg_Rnonrel_ret", "simp_imp", "pair_imp", "avgjg_imp")},
    **{f"prefs_num_prefs_{kind}": ("NumPrefs", {"kind": kind})
       for kind in ("poss", "ful", "ful_ret")},
}
# trec_eval name with a list of cutoffs -> (family, parameter, default list); the cutoffs of
# the first six are read with atol (23.4 is 23), the others with atof
_TREC_CUT: dict[str, tuple[str, str, tuple]] = {
    "P": ("P", "k", TREC_CUTOFFS),
    "recall": ("R", "k", TREC_CUTOFFS),
    "map_cut": ("AP", "k", TREC_CUTOFFS),
    "ndcg_cut": ("nDCG", "k", TREC_CUTOFFS),
    "success": ("Success", "k", SUCCESS_CUTOFFS),
    "relative_P": ("RelativeP", "k", TREC_CUTOFFS),
    "P_avgjg": ("P", "k", TREC_CUTOFFS),
    "unj": ("Unjudged", "k", UNJ_CUTOFFS),
    "iprec_at_recall": ("iP", "recall", RECALL_LEVELS),
    "Rprec_mult": ("RprecMult", "mult", RPREC_MULTS),
    "Rprec_mult_avgjg": ("RprecMult", "mult", RPREC_MULTS),
}
_TREC_CUT_RE = re.compile(r"^(" + "|".join(sorted(_TREC_CUT, key=len, reverse=True))
                          + r")[_.]([-+0-9.,eE]+)$")
_GAIN_NAMES = {"ndcg": ("nDCG", {}), "ndcg_rel": ("nDCGRel", {}), "G": ("G", {}),
               "Rndcg": ("Rndcg", {}), "ndcg_p": ("nDCG", {"discount": "jk"})}
_GAIN_RE = re.compile(r"^(" + "|".join(sorted(_GAIN_NAMES, key=len, reverse=True))
                      + r")[._](.+=.*)$")

# ir_measures aliases of canonical families, and its families spelled differently
_IR_ALIASES = {"MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "Precision": "P", "Recall": "R",
               "RPrec": "Rprec", "BPref": "Bpref", "SetP": "P", "SetR": "R", "SetF": "F",
               "SetRelP": "RelativeP", "IPrec": "iP"}


CLASSIFIER_ALIASES = {
    **dict.fromkeys(("acc", "accuracy", "accuracy_score", "real"), "Acc"),
    **dict.fromkeys(("top_k_accuracy", "top_k_accuracy_score"), "Acc@2"),
    **dict.fromkeys(("ce", "log_loss", "logloss", "cross_entropy"), "CE"),
    **dict.fromkeys(("brier", "brier_score", "brier_score_loss"), "Brier"),
    **dict.fromkeys(("js", "jsd"), "JS"),
    **dict.fromkeys(("wd", "wasserstein"), "Wasserstein"),
    **dict.fromkeys(("soft_acc", "softacc", "soft_accuracy"), "SoftAcc"),
    **dict.fromkeys(("soft_f1", "softf1"), "SoftF1"),
    **dict.fromkeys(("entropy_correlation", "entropycorr"), "EntropyCorr"),
    "ece": "ECE", "kl": "KL", "pojsd": "poJSD", "tv": "TV", "md": "MD",
}
"""Spellings of the classifier measures that scikit-learn users and the papers write (issue
21's own example says ``-m ce``), each with the canonical measure it stands for."""


def _classifier(text: str) -> Measure | None:
    """A spelling of :data:`CLASSIFIER_ALIASES`, its parameters and ``@k`` kept, or None."""
    m = _MEASURE_RE.match(text)
    if m is None or m.group(1) not in CLASSIFIER_ALIASES:  # as written: ir_measures has an
        return None  # "Accuracy" of its own
    name, inner, at_text = m.groups()
    base = parse_measure(CLASSIFIER_ALIASES[name])
    params: dict[str, Any] = base.params
    for item in _split_top_level(inner or ""):
        key, _, value = item.partition("=")
        params[key.strip()] = value.strip().strip("'\"")
    if at_text is not None:
        params[base.family.at] = at_text.strip()
    return Measure(base.family.name, **params)


def _number(text: str) -> float:
    value = float(text)
    return int(value) if value.is_integer() else value


def _atol(text: str) -> int:
    """C's ``atol``: the leading integer of ``text``, 0 when there is none."""
    m = re.match(r"\s*([-+]?\d+)", text)
    return int(m.group(1)) if m else 0


def _trec_numbers(name: str, text: str) -> list[float]:
    """The comma-separated numbers ``text`` of trec_eval measure ``name``'s parameters, or a
    ValueError naming both."""
    try:
        return [float(v) for v in text.split(",") if v]
    except ValueError:
        raise ValueError(
            f"cannot read the parameters {text!r} of trec_eval measure {name!r}"
        ) from None


def _trec_cutoffs(name: str, text: str) -> list[float]:
    """trec_eval's parameter list of ``name``: read as it reads it (``atol`` for rank cutoffs,
    ``atof`` otherwise), sorted; duplicates and non-positive rank cutoffs are refused, as
    trec_eval refuses them."""
    items = [v for v in text.split(",") if v]
    integer = _TREC_CUT[name][1] == "k"
    try:
        values = sorted(_atol(v) if integer else float(v) for v in items)
    except ValueError:
        raise ValueError(
            f"cannot read the parameters {text!r} of trec_eval measure {name!r}"
        ) from None
    if integer and values and values[0] <= 0:
        raise ValueError(
            f"trec_eval measure {name!r}: cutoffs must be positive (trec_eval reads them as "
            f"integers); got {text!r}"
        )
    if len(set(values)) != len(values):
        raise ValueError(f"trec_eval measure {name!r}: duplicate cutoffs in {text!r}")
    return values


def _trec(name: str) -> list[Measure] | None:
    """A trec_eval spelling (output name or ``-m`` argument), or None."""
    if name in _TREC_PLAIN:
        fam, fixed = _TREC_PLAIN[name]
        return [Measure(fam, **fixed)]
    m = re.fullmatch(r"set_F[._]([0-9.eE+-]+)", name)
    if m:
        return [Measure("F", beta=_beta_of_squared(m.group(1), "trec_eval's set_F.x"))]
    m = re.fullmatch(r"utility[._]([-0-9.e]+),([-0-9.e]+),([-0-9.e]+),([-0-9.e]+)", name)
    if m:
        values = _trec_numbers("utility", ",".join(m.groups()))
        return [Measure("Utility", **dict(zip("abcd", values, strict=True)))]
    m = re.fullmatch(r"(rbp|rbp_resid)[._]p=([0-9.]+)", name)
    if m:
        fam, fixed = _TREC_PLAIN[m.group(1)]
        return [Measure(fam, **{**fixed, "p": _trec_numbers(m.group(1), m.group(2))[0]})]
    m = re.fullmatch(r"11pt_avg[._]([-+0-9.,eE]+)", name)
    if m:
        return [Measure("11pt", levels=_trec_numbers("11pt_avg", m.group(1)))]
    m = _GAIN_RE.match(name)
    if m:
        fam, fixed = _GAIN_NAMES[m.group(1)]
        try:
            gain = _parse_mapping("{" + m.group(2).replace("=", ":") + "}")
        except ValueError:
            raise ValueError(
                f"cannot read the parameters {m.group(2)!r} of trec_eval measure "
                f"{m.group(1)!r}: expected level=gain pairs of numbers, e.g. 1=3,2=9"
            ) from None
        return [Measure(fam, gain=gain, **fixed)]
    m = _TREC_CUT_RE.match(name)
    if m:
        fam, param, _ = _TREC_CUT[m.group(1)]
        values = _trec_cutoffs(m.group(1), m.group(2))
        return [Measure(fam, **{param: _number(str(v))}) for v in values]
    return None


def _ir_recall_level(text: str) -> str:
    """The recall level of ir_measures' ``IPrec@p`` as its pytrec_eval provider computes it:
    ``p`` formatted with two decimals (``f"iprec_at_recall_{p:.2f}"``), so ``IPrec@0.125`` is
    trec_eval's ``iprec_at_recall_0.12``. A value that is not a number is returned unchanged,
    for the family's own check to name."""
    try:
        return str(float(f"{float(text):.2f}"))
    except ValueError:
        return text


def _ir_measures(text: str) -> Measure | None:
    """An ir_measures spelling that differs from the canonical one, or None."""
    m = _MEASURE_RE.match(text)
    if m is None:
        return None
    name, inner, at_text = m.groups()
    params: dict[str, Any] = {}
    for item in _split_top_level(inner or ""):
        key, _, value = item.partition("=")
        value = value.strip().strip("'\"")
        params[key.strip()] = _parse_mapping(value) if value.startswith("{") else value
    ir_only = "cutoff" in params or "judged_only" in params or name in _IR_ALIASES
    ir_only |= name == "NumRet" and "rel" in params
    ir_only |= name == "nDCG" and bool(params.keys() & {"dcg", "gains"})
    if not ir_only:
        return None
    if "cutoff" in params:
        at_text = params.pop("cutoff")
    if name == "IPrec":  # the level ir_measures hands trec_eval: iprec_at_recall_{p:.2f}
        if at_text is not None:
            at_text = _ir_recall_level(str(at_text))
        elif "recall" in params:
            params["recall"] = _ir_recall_level(str(params["recall"]))
    fam = _IR_ALIASES.get(name, name)
    if name == "NumRet" and "rel" in params:
        fam = "NumRelRet"
    if name == "SetF" and "beta" in params:
        params["beta"] = _beta_of_squared(params["beta"], "ir_measures' SetF(beta=x)")
    if name in ("SetP", "SetRelP") and str(params.pop("relative", "False")) == "True":
        fam = "RelativeP"
    if fam == "nDCG":
        dcg = params.pop("dcg", "log2")
        if dcg not in ("log2", "exp-log2"):
            raise ValueError(f"nDCG(dcg=...) must be 'log2' or 'exp-log2'; got {dcg!r}")
        if "gains" in params:
            params["gain"] = params.pop("gains")
        elif dcg == "exp-log2":
            params["gain"] = "exp"
    if str(params.pop("judged_only", "False")) == "True":
        raise ValueError(
            f"{text!r}: judged_only applies to the whole evaluation here (trec_eval -J), not to "
            "one measure; drop it and evaluate with the judged-only option"
        )
    target = families()[fam]
    if at_text is not None:
        params[target.at] = str(at_text).strip()
    return Measure(fam, **params)


def _known_spellings() -> list[str]:
    names = set(families()) | set(_TREC_PLAIN) | set(_IR_ALIASES) | set(TREC_GROUPS)
    names |= set(CLASSIFIER_ALIASES)
    names |= {n for group in TREC_GROUPS.values() for n in group} | set(_TREC_CUT)
    return sorted(names)


def _unknown(text: str) -> ValueError:
    name = re.split(r"[(@]", text.strip(), maxsplit=1)[0]
    meant = _family_in_other_case(text.strip(), name)
    close = difflib.get_close_matches(name, _known_spellings(), n=3, cutoff=0.6)
    hint = (f"; did you mean {meant!r}?" if meant else
            f"; closest known spellings: {', '.join(close)}, ..." if close else "")
    return ValueError(
        f"unknown measure {text!r}{hint} (canonical families: {', '.join(sorted(families()))}; "
        "see fuzzytruth.measures.names.alias_table())"
    )


def _family_in_other_case(text: str, name: str) -> str | None:
    """``text`` with its name replaced by the canonical family that spells it in other letter
    case (``ndcg@10`` for ``nDCG@10``, ``ap`` for ``AP``), when that parses; else None."""
    same = [f for f in families() if f.lower() == name.lower() and f != name]
    if len(same) != 1:
        return None
    candidate = same[0] + text[len(name):]
    try:  # the canonical parser alone: no alias lookup, so no second hint to look for
        _parse_canonical(candidate)
    except ValueError:
        return None
    return candidate


def from_alias(text: str, error: ValueError) -> Measure:
    """The measure a trec_eval or ir_measures spelling means (the hook of ``parse_measure``).

    ``error`` is the canonical parser's; it is raised unchanged when ``text`` names a canonical
    family and no alias applies (a bad parameter value), and an unknown name raises a
    ValueError listing the closest known spellings.
    """
    measures = _trec(text.strip())
    if measures is not None:
        if len(measures) != 1:
            raise ValueError(f"{text!r} names {len(measures)} measures; use expand({text!r})")
        return measures[0]
    measure = _ir_measures(text)
    if measure is None:
        measure = _classifier(text)
    if measure is not None:
        return measure
    m = _MEASURE_RE.match(text)
    if m is None or m.group(1) in families() or family_alias(m.group(1)) is not None:
        raise error  # not a name problem: the canonical parser's message says what is wrong
    if text.strip() in TREC_GROUPS:
        raise ValueError(f"{text!r} is a group of measures; use expand({text!r})")
    if text.strip() in _TREC_CUT:
        raise ValueError(
            f"{text!r} is trec_eval's measure at its default cutoffs; name one cutoff "
            f"(e.g. {text.strip()}_10) or use expand({text!r}, trec_groups=True)"
        )
    raise _unknown(text) from None


def expand(
    name: str | Measure, *, trec_groups: bool = False, preset: Any = None
) -> list[Measure]:
    """The measures a name stands for: one for a measure, several for a group.

    Parameters
    ----------
    name : str or Measure
        A canonical, trec_eval or ir_measures spelling, a trec_eval group (``official``,
        ``all_trec``, ``set``, ``qrels_jg``: :data:`TREC_GROUPS`), or a trec_eval list such as
        ``P.5,10`` (sorted, as trec_eval prints it).
    trec_groups : bool, default False
        Read a bare trec_eval name with default cutoffs (``P``, ``recall``, ``ndcg_cut``...) as
        ``trec_eval -m NAME`` does, i.e. its default cutoff list; otherwise ``P`` is the
        canonical set precision.
    preset : str or Preset, optional
        Whose groups: a preset's own (:attr:`Preset.groups
        <fuzzytruth.measures.Preset.groups>`: ``trec10``'s ``all_trec`` is trec_eval 10's,
        :data:`TREC10_ALL_TREC`) replace :data:`TREC_GROUPS`' of the same name.

    Returns
    -------
    list of Measure

    Examples
    --------
    >>> len(expand("official")), str(expand("official")[4])
    (29, 'AP')
    >>> [str(m) for m in expand("success", trec_groups=True)]
    ['Success@1', 'Success@5', 'Success@10']
    >>> len(expand("all_trec")), len(expand("all_trec", preset="trec10"))
    (93, 98)
    """
    if isinstance(name, Measure):
        return [name]
    text = name.strip()
    groups = TREC_GROUPS if preset is None else {**TREC_GROUPS, **get_preset(preset).groups}
    if text in groups:
        return [m for n in groups[text] for m in _trec(n) or []]
    if trec_groups and text in _TREC_CUT:
        fam, param, values = _TREC_CUT[text]
        return [Measure(fam, **{param: v}) for v in values]
    measures = _trec(text)
    if measures is not None and len(measures) > 1:
        return measures
    return [parse_measure(text)]


def canonical(name: str) -> str:
    """The canonical spelling of a trec_eval, ir_measures or canonical measure name.

    Examples
    --------
    >>> canonical("map"), canonical("P_10"), canonical("recall_100"), canonical("recip_rank")
    ('AP', 'P@10', 'R@100', 'RR')
    >>> canonical("ndcg.0=1,1=3"), canonical("nDCG(dcg='exp-log2')@10")
    ('nDCG(gain={0:1,1:3})', 'nDCG(gain=exp)@10')
    """
    return str(parse_measure(name))


def label_among(measure: str, labels: Iterable[str], *, name: str = "measure") -> str:
    """The one of ``labels`` (the measures of a result) that ``measure`` names: itself, or
    the one label that spells the same measure another way (``"map"`` asks for ``"AP"``, and
    ``"AP"`` for a table's ``"map"``); else a ValueError naming ``name`` and the labels.

    Examples
    --------
    >>> label_among("map", ["AP", "P@10"]), label_among("P@10", ["map", "P_10"])
    ('AP', 'P_10')
    >>> label_among("nDCG@10", ["AP"])
    Traceback (most recent call last):
    ...
    ValueError: measure must be one of ['AP']; got 'nDCG@10'
    >>> label_among("ap", ["AP", "P@10"])
    Traceback (most recent call last):
    ...
    ValueError: measure must be one of ['AP', 'P@10']; got 'ap' (did you mean 'AP'?)
    """
    labels = list(labels)
    if measure in labels:
        return measure

    def spelled(text: str) -> str | None:
        try:
            return canonical(text)
        except ValueError:  # not a measure's spelling (a table may name its column "score")
            return None

    wanted = spelled(measure)
    same = [label for label in labels if wanted is not None and spelled(label) == wanted]
    if len(same) == 1:
        return same[0]
    raise ValueError(f"{name} must be one of {labels}; got {measure!r}"
                     + did_you_mean(measure, labels))


def alias_table() -> list[tuple[str, str, str]]:
    """``(spelling, source, canonical)`` for every trec_eval name of its groups and every other
    trec_eval name with a family here, the ir_measures spellings that differ from the
    canonical ones, and the classifier spellings (:data:`CLASSIFIER_ALIASES`).

    Examples
    --------
    >>> ("set_F", "trec_eval", "F") in alias_table()
    True
    """
    listed = [n for group in TREC_GROUPS.values() for n in group]
    listed = list(dict.fromkeys(listed + list(_TREC_PLAIN)))
    rows = [(n, "trec_eval", str(_trec(n)[0])) for n in listed]
    examples = ["SetP", "SetR", "SetF", "SetF(beta=2)", "SetRelP", "IPrec@0.5", "NumRet(rel=1)",
                "NumRelRet", "nDCG(dcg='exp-log2')@10", "MAP", "MRR", "NDCG@10", "Precision@5",
                "Recall@100", "RPrec", "BPref"]
    rows += [(n, "ir_measures", canonical(n)) for n in examples]
    rows += [(n, "classifiers", canonical(n)) for n in CLASSIFIER_ALIASES]
    return rows
