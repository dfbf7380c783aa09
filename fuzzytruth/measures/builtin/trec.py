"""trec_eval's other measures as families: bpref, infAP, gm_bpref, gm_map, the num_* counts,
utility, binG, ndcg_rel, set_map, Rprec_mult, relative_P, yaap, G, Rndcg, trec_eval 10's
unj, and ir_measures' Judged@k.

Crisp kernels in :mod:`fuzzytruth.metrics.trec_extra` and :mod:`fuzzytruth.metrics.trec_gain`,
exact forms in :mod:`fuzzytruth.uncertain.closed_form`.
"""

from __future__ import annotations

from typing import Any

from fuzzytruth.measures.builtin.ranking import GAIN, REL
from fuzzytruth.measures.registry import (
    GEOMETRIC_FLOOR,
    Param,
    finite_float,
    positive_float,
    positive_int,
    register,
)
from fuzzytruth.metrics.ranking import uses_judged
from fuzzytruth.metrics.trec_extra import (
    bin_g,
    binary_counts,
    binary_gmap,
    binary_relative_p,
    binary_rprec_mult,
    binary_set_ap,
    binary_utility,
    binary_yaap,
    bpref,
    gmap,
    inferred_ap,
    judged_rate,
    ndcg_rel,
    num_nonrel_judged_ret,
    num_q,
    num_rel,
    num_rel_ret,
    num_ret,
    relative_precision,
    rprec_mult,
    set_ap,
    unjudged_rate,
    utility,
    yaap,
)
from fuzzytruth.metrics.trec_gain import g_measure, r_ndcg
from fuzzytruth.uncertain import closed_form


def _non_negative_int(value: Any) -> int:
    f = float(value)
    if not f.is_integer() or f < 0:
        raise ValueError(f"must be a non-negative integer; got {value!r}")
    return int(f)


K = Param("k", default=None, convert=positive_int, doc="rank cutoff (whole list if unset)")

register("Bpref", bpref, params=(REL,), uses={"judged"},
         description="binary preference (Buckley & Voorhees 2004; trec_eval bpref)")
register("infAP", inferred_ap, params=(REL,), uses={"judged"},
         description="inferred AP (Yilmaz & Aslam 2006; trec_eval infAP)")
register("GMBpref", bpref, params=(REL,), aggregate="geometric", uses={"judged"},
         description=f"bpref, averaged geometrically over max(bpref, {GEOMETRIC_FLOOR:g}) "
                     "(gm_bpref)")
register("NumNonrelJudgedRet", num_nonrel_judged_ret, params=(REL,), aggregate="sum",
         tie_averaged=True, uses={"judged"}, exact=closed_form.nonrel_judged_ret_exact,
         description="judged non-relevant documents retrieved (num_nonrel_judged_ret)")
register(
    "Utility",
    utility,
    params=(
        REL,
        *(Param(name, default=value, convert=finite_float, doc=doc) for name, value, doc in (
            ("a", 1.0, "worth of a relevant retrieved document"),
            ("b", -1.0, "worth of a non-relevant retrieved document"),
            ("c", 0.0, "worth of a relevant document not retrieved"),
            ("d", 0.0, "worth of a non-relevant document not retrieved"),
        )),
        Param("n_docs", default=0, convert=_non_negative_int,
              doc="documents in the collection (trec_eval -N), for d"),
    ),
    tie_averaged=True,
    exact=closed_form.utility_exact,
    binary=binary_utility,
    description="set utility a·TP + b·FP + c·FN + d·TN (trec_eval utility)",
)
register("BinG", bin_g, params=(REL,),
         description="trec_eval binG: 1/log2(2 + non-relevant above) per relevant document")
register("nDCGRel", ndcg_rel, params=(GAIN,), uses_if=uses_judged,
         description="nDCG averaged over the relevant documents (trec_eval ndcg_rel)")
register("GMAP", gmap, params=(REL,), aggregate="geometric", tie_averaged=True,
         binary=binary_gmap,
         description=f"AP, averaged geometrically over max(AP, {GEOMETRIC_FLOOR:g}) (gm_map)")
register("NumQ", num_q, aggregate="sum", tie_averaged=True, exact=closed_form.num_q_exact,
         binary=lambda depth: binary_counts(depth, family="NumQ"),
         description="number of queries (trec_eval num_q)")
register("NumRet", num_ret, aggregate="sum", tie_averaged=True, exact=closed_form.num_ret_exact,
         binary=lambda depth: binary_counts(depth, family="NumRet"),
         description="documents retrieved, summed over queries (num_ret)")
register("NumRel", num_rel, params=(REL,), aggregate="sum", tie_averaged=True,
         exact=closed_form.num_rel_exact,
         binary=lambda depth, rel: binary_counts(depth, family="NumRel", rel=rel),
         description="relevant documents, summed over queries (num_rel)")
register("NumRelRet", num_rel_ret, params=(REL,), aggregate="sum", tie_averaged=True,
         exact=closed_form.num_rel_ret_exact,
         binary=lambda depth, rel: binary_counts(depth, family="NumRelRet", rel=rel),
         description="relevant documents retrieved, summed over queries (num_rel_ret)")
register("Judged", judged_rate, params=(K,), at="k", tie_averaged=True,
         uses={"judged"}, exact=closed_form.judged_exact,
         description="share of the top k that is judged (ir_measures Judged@k)")
register("SetAP", set_ap, params=(REL,), tie_averaged=True, binary=binary_set_ap,
         description="unranked AP: relevant retrieved² / (retrieved · R) (trec_eval set_map)")
register(
    "RprecMult",
    rprec_mult,
    params=(REL, Param("mult", convert=positive_float, doc="multiple of R giving the rank")),
    at="mult",
    at_required=True,
    tie_averaged=True,
    binary=binary_rprec_mult,
    description="precision at rank (long)(mult·R + 0.9) (trec_eval Rprec_mult)",
)
register(
    "RelativeP",
    relative_precision,
    params=(REL, K),
    at="k",
    tie_averaged=True,
    binary=binary_relative_p,
    description="relevant in the top k / min(k, R) (relative_P; set_relative_P without k)",
)
register("YAAP", yaap, params=(REL,), binary=binary_yaap,
         description="Robertson's yet another AP: log((1 + AP·R) / (1 + R − AP·R)) (yaap)")
register("G", g_measure, params=(GAIN,), uses_if=uses_judged,
         description="trec_eval G: each gain discounted by the gain lost so far (G)")
register("Rndcg", r_ndcg, params=(REL, GAIN), uses_if=uses_judged,
         description="nDCG averaged where the ideal gain changes (trec_eval Rndcg)")
register(
    "Unjudged",
    unjudged_rate,
    params=(Param("k", convert=positive_int, doc="rank cutoff"),),
    at="k",
    at_required=True,
    tie_averaged=True,
    higher_is_better=False,
    uses={"judged"},
    exact=closed_form.unjudged_exact,
    description="share of the top k not judged, over k (trec_eval 10 unj_k)",
)
