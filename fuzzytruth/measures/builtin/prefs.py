"""trec_eval's preference measures (``prefs_*``, ``prefs_num_prefs_*``) as two families,
``Prefs(kind=...)`` and ``NumPrefs(kind=...)``; kernels in :mod:`fuzzytruth.metrics.prefs`.

On a qrels (crisp or uncertain) they read its grades as one judgment group of preferences, as
``trec_eval -R qrels_prefs`` does for a qrels whose second column holds one value; with
several judgment groups or subgroups (``-R prefs``), evaluate with
:func:`fuzzytruth.evaluation.preferences.evaluate_preferences`. trec_eval ranks tied scores by
doc id *ascending* for these measures (by doc id descending for all others): with ties, pass
``ties="docid_asc"`` to :func:`fuzzytruth.evaluation` to get its numbers
(``evaluate_preferences`` does by default).
"""

from __future__ import annotations

from fuzzytruth.measures.registry import Param, register
from fuzzytruth.metrics.prefs import COUNT_KINDS, KINDS, num_prefs_kernel, prefs_kernel

register(
    "Prefs",
    prefs_kernel,
    params=(Param("kind", default="simp", choices=KINDS,
                  doc="trec_eval's prefs_<kind>: simp, pair, avgjg, avgjg_Rnonrel, with _ret "
                      "(both documents retrieved) or _imp (at least one)"),),
    uses={"judged"},
    description="preferences fulfilled by the ranking (trec_eval prefs_*)",
)
register(
    "NumPrefs",
    num_prefs_kernel,
    params=(Param("kind", default="poss", choices=COUNT_KINDS,
                  doc="poss (possible), ful (fulfilled, implied included) or ful_ret"),),
    aggregate="sum",
    uses={"judged"},
    description="preferences possible or fulfilled, summed (trec_eval prefs_num_prefs_*)",
)
