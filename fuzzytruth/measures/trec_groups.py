"""trec_eval's measure groups and default parameter lists, as data.

They are read by the spellings (:mod:`fuzzytruth.measures.names`, which exports them) and by the
preset table (:mod:`fuzzytruth.measures.conventions`: trec_eval 10's ``all_trec``); a module of
their own, importing nothing, so that neither reaches the other.
"""

from __future__ import annotations

__all__ = [
    "AVGJG",
    "RECALL_LEVELS",
    "RPREC_MULTS",
    "SUCCESS_CUTOFFS",
    "TREC10_ALL_TREC",
    "TREC_CUTOFFS",
    "TREC_GROUPS",
    "TREC_OFFICIAL",
    "UNJ_CUTOFFS",
]

# trec_eval's default cutoff lists (m_*.c "Default params")
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)
UNJ_CUTOFFS = (5, 10, 20)
RECALL_LEVELS = tuple(round(0.1 * i, 1) for i in range(11))
RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

AVGJG = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
"""trec_eval's judgment-group measures (``-R qrels_jg``): the base measure (``map``, ``P_k``,
``Rprec_mult_m``) of each judgment group, averaged over the groups that judged the query
(:func:`fuzzytruth.evaluation.per_annotator.evaluate_per_annotator`). They parse to the base
measure: with one group they are it."""

TREC_OFFICIAL = (
    ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
     "recip_rank"]
    + [f"iprec_at_recall_{p:.2f}" for p in RECALL_LEVELS]
    + [f"P_{k}" for k in TREC_CUTOFFS]
)
"""trec_eval 9.0.8's default measures (its output without ``-m``), in its order."""

_TREC_ALL_EXTRA = (
    [f"recall_{k}" for k in TREC_CUTOFFS] + ["infAP", "gm_bpref"]
    + [f"Rprec_mult_{m:.2f}" for m in RPREC_MULTS] + ["utility", "11pt_avg", "binG", "G",
                                                       "ndcg", "ndcg_rel", "Rndcg"]
    + [f"ndcg_cut_{k}" for k in TREC_CUTOFFS] + [f"map_cut_{k}" for k in TREC_CUTOFFS]
    + [f"relative_P_{k}" for k in TREC_CUTOFFS] + [f"success_{k}" for k in SUCCESS_CUTOFFS]
    + ["set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"]
)
TREC_GROUPS: dict[str, list[str]] = {
    "official": TREC_OFFICIAL,
    "all_trec": TREC_OFFICIAL + _TREC_ALL_EXTRA,
    "set": ["num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_relative_P", "set_recall", "set_map", "set_F"],
    "qrels_jg": (["num_q", "map_avgjg"] + [f"P_avgjg_{k}" for k in TREC_CUTOFFS]
                 + [f"Rprec_mult_avgjg_{m:.2f}" for m in RPREC_MULTS]),
    "all_prefs": ["num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                  "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
                  "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
                  "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
                  "prefs_avgjg_imp"],
    "prefs": ["num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"],
}
"""trec_eval 9.0.8's measure groups (``-m official``, ``-m all_trec``, ``-m set``,
``-m qrels_jg``, ``-m all_prefs``, ``-m prefs``), each in the order trec_eval prints it;
``runid`` and ``relstring`` are labels, not measures, and are left out. (trec_eval 10 adds
``rbp``, ``rbp_resid`` and ``unj`` to ``all_trec``: :data:`TREC10_ALL_TREC`, the ``trec10``
preset's ``all_trec``.)"""

TREC10_ALL_TREC = (*TREC_GROUPS["all_trec"], "rbp", "rbp_resid", *(f"unj_{k}" for k in UNJ_CUTOFFS))
"""trec_eval 10.0's ``-m all_trec`` (``measures.c``: its ``trec_names``), in the order it
prints it: 9.0.8's, then ``rbp``, ``rbp_resid`` and ``unj`` at their default parameters."""
