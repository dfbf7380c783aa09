"""The convention presets, in one table.

A preset fills the parameters a measure leaves unset, and fixes how runs are ranked (ties, score
precision), which families mean another under its community's vocabulary, and which queries
enter aggregates. The same preset gives the same numbers through every entry point
(:func:`fuzzytruth.evaluation`, ``compare()``, the command line). Each family's own parameters
are documented with the family (:func:`fuzzytruth.measures.builtin`).

=============  ===========  =========  ============================================================
preset         ties         scores     what it reproduces
=============  ===========  =========  ============================================================
``trec``       docid_desc   float32    trec_eval 9.0.8 (and pytrec_eval-terrier): relevance >= 1,
                                       log2(i+1) discount with linear gain, AP over all relevant,
                                       interpolation cutoff ``(long)(p*R + 0.9)``, grades
                                       truncated toward zero (``grades="truncate"``)
``trec10``     docid_desc   float64    trec_eval 10.0: scores read as doubles, ``lround(p*R)``,
                                       grades truncated, ``all_trec`` with ``rbp``,
                                       ``rbp_resid`` and ``unj``
``textbook``   average      float64    expectation over tie orders, iP at recall >= p
``psb``        docid_asc    float64    Princeton Shape Benchmark ``psbTable``: recall-style
                                       tiers, E = F1@32, Järvelin–Kekäläinen DCG (b = 2), ties by
                                       target index ascending, classes of fewer than 3 models left
                                       out of every aggregate
``shrec2006``  input_order  float64    SHREC 2006: precision-style tiers, AP over the retrieved
                                       relevant, JK DCG with b = 2
``crossmodal`` average      float64    image–text retrieval (VSE++/SCAN): ``R@K`` is Success@K
                                       (a ground-truth item in the top K), ties averaged
``lewidi``     (classifiers)           LeWiDi 2025's official scripts: each item's Manhattan
                                       distance (``MD``) rounded to 5 decimals (``average_MD``);
                                       the scripts round the mean too, a step of reporting
=============  ===========  =========  ============================================================

Fractional grades. trec_eval reads a qrels grade with C's ``atol``, so ``2.7`` is grade 2 and
``0.5`` (or ``-0.5``) is grade 0, a judged non-relevant document; the ``trec`` and ``trec10``
presets do the same (``Preset.grades="truncate"``, applied to crisp qrels before any measure
and before ``judged_only``, and to the grades of probabilistic qrels,
:meth:`fuzzytruth.ProbabilisticQrels.truncated`, so that probabilities of 0 and 1 give the
crisp numbers). Every other preset keeps the grades as given (``"float"``), so
under ``textbook`` a grade of 2.7 gains 2.7 in nDCG and a grade of 0.5 is relevant from
``rel=0.5``. trec_eval's preference input (``-R prefs``, ``-R qrels_prefs``) reads its levels
with ``atof`` instead: :func:`fuzzytruth.evaluation.preferences.evaluate_preferences` keeps
them as given (in float32, as trec_eval stores them).

Examples
--------
>>> from fuzzytruth.measures import get_preset, parse_measure
>>> str(parse_measure("R@5").resolve("crossmodal"))
'Success(rel=1)@5'
>>> get_preset("trec10").score_dtype
'float64'
>>> get_preset("trec").grades, get_preset("textbook").grades
('truncate', 'float')
"""

from __future__ import annotations

from fuzzytruth.measures.registry import Preset, register_preset
from fuzzytruth.measures.trec_groups import TREC10_ALL_TREC

__all__ = ["CROSSMODAL_CONVENTIONS", "PRESETS", "PSB_CONVENTIONS", "SHREC2006_CONVENTIONS"]

PSB_CONVENTIONS: dict[str, object] = {
    "rel": 1,
    "tier_style": "recall",
    "discount": "jk",
    "gain": "linear",
    "denominator": "all_relevant",
    "interpolation": "textbook",
    "query_in_collection": True,
    "e_k": 32,
    "averaging": "micro",
    "min_class_size": 3,
}
"""Conventions of the ``"psb"`` preset (Princeton Shape Benchmark ``psbTable``/``psbPlot``).

Registry parameters (``rel``, ``tier_style``, ``discount``, ``gain``, ``denominator``,
``interpolation``) fill the families' parameters; ``nDCG`` without cut-off under this preset is
the PSB "DCG". The others record the settings of the dissimilarity-matrix view
(:func:`~fuzzytruth.evaluation.matrices.rank_by_dissimilarity`,
:func:`~fuzzytruth.evaluation.matrices.average_over_queries`,
:func:`~fuzzytruth.evaluation.matrices.shape_summary`) that reproduce ``psbTable``; the tie rule
(target index ascending: ``docid_asc`` on the matrix's column indices) is the preset's
``ties``.
"""


SHREC2006_CONVENTIONS: dict[str, object] = {
    "rel": 1,
    "tier_style": "precision",
    "denominator": "retrieved_relevant",
    "discount": "jk",
    "b": 2.0,
    "gain": "linear",
    "ideal": "list",
    "interpolation": "textbook",
    "grade_map": {"highly_relevant": 2, "marginally_relevant": 1},
}
"""Conventions of the ``"shrec2006"`` preset.

The "(relevant)" level is the default (``rel=1``); write ``rel=2`` for the "(highly relevant)"
measures, e.g. ``FT(rel=2)``, ``AP(rel=2)``. ``nDCG`` without cut-off is the page's final
NDCG, ``DCG[Va] / IDCG[Va]``: its ideal holds as many relevant items as the list
(``ideal="list"``), so a list shorter than the relevant set is not divided by the ideal of
items it could not hold (``[2]`` with one more item of grade 1 scores 1, not 0.760);
``grade_map`` records the page's gains.
"""


CROSSMODAL_CONVENTIONS: dict[str, object] = {
    "rel": 1,
    "ks": (1, 5, 10),
    "percent": True,
    "medr": "vsepp",
    "multi_positive": "best_rank",
    "n_folds": 1,
}
"""Conventions of the ``"crossmodal"`` preset (VSE++/SCAN; COCO 1K uses ``n_folds=5``).

The keys other than ``rel`` are the defaults of the similarity-matrix view
:func:`~fuzzytruth.evaluation.matrices.image_text_retrieval`; its tie rule (the expectation
over the orders of tied items) is the preset's ``ties``. In the registry, ``Success@K`` on the
ranked captions of each image is i2t R@K (as a fraction), ``FirstRelRank`` the 1-based rank of
the best-ranked ground-truth item (medr and meanr are its median and mean) and ``RR`` its
reciprocal.
"""


_TREC = {
    "rel": 1,
    "discount": "log2",
    "gain": "linear",
    "denominator": "all_relevant",
}

PRESETS: tuple[Preset, ...] = (
    Preset(
        "trec",
        params={**_TREC, "interpolation": "trec_eval9"},
        ties="docid_desc",
        score_dtype="float32",
        grades="truncate",
        description=(
            "trec_eval 9.0.8 / pytrec_eval-terrier: scores compared in float32, ties by doc id "
            "descending, relevance >= 1, log2(i+1) discount with linear gain, AP over all "
            "relevant, interpolation cutoff (long)(p*R+0.9), grades truncated toward zero"
        ),
    ),
    Preset(
        "trec10",
        params={**_TREC, "interpolation": "trec_eval10"},
        ties="docid_desc",
        score_dtype="float64",
        grades="truncate",
        groups={"all_trec": TREC10_ALL_TREC},
        description=(
            "trec_eval 10.0: as 'trec' but scores compared as doubles and the interpolation "
            "cutoff lround(p*R); -m all_trec adds rbp, rbp_resid and unj"
        ),
    ),
    Preset(
        "textbook",
        params={**_TREC, "interpolation": "textbook"},
        ties="average",
        score_dtype="float64",
        description=(
            "textbook conventions: float64 scores, expectation over tie orders, relevance >= 1, "
            "log2(i+1) discount with linear gain, AP over all relevant, iP at recall >= p"
        ),
    ),
    Preset(
        "psb",
        params=PSB_CONVENTIONS,
        ties="docid_asc",
        min_relevant=2,
        description=(
            "Princeton Shape Benchmark (psbTable/psbPlot): relevance >= 1, recall-style tiers "
            "(K = |C|-1), E = F1 over the first min(32, Va), Järvelin-Kekäläinen DCG (b=2) over "
            "the whole list, 20-level linear P-R interpolation, micro average over classes of "
            "at least 3 (2 relevant besides the query), ties by target index ascending"
        ),
    ),
    Preset(
        "shrec2006",
        params=SHREC2006_CONVENTIONS,
        ties="input_order",
        description=(
            "SHREC 2006: grades 2 (highly relevant) / 1 (marginally relevant), precision-style "
            "tiers d1 = min(Va, C), d2 = min(Va, 2C), AP over the retrieved relevant items, "
            "Järvelin-Kekäläinen DCG (b=2) with the ideal zero-padded, or cut, to the list length"
        ),
    ),
    Preset(
        "lewidi",
        params={**_TREC, "interpolation": "trec_eval9"},
        ties="docid_desc",
        score_dtype="float32",
        grades="truncate",
        family_params={"MD": {"decimals": 5}},
        description=(
            "LeWiDi 2025 (Evaluation_LeWiDi_2025_Metrics.ipynb): each item's Manhattan distance "
            "rounded to 5 decimals as average_MD does (Python's round); the official "
            "average_MD and average_WS also round the mean to 5 decimals when reporting; "
            "ranking measures as under 'trec' (the default)"
        ),
    ),
    Preset(
        "crossmodal",
        params=CROSSMODAL_CONVENTIONS,
        ties="average",
        renames={"R": "Success"},
        description=(
            "image-text retrieval (VSE++/SCAN): R@K is Success@K (the best-ranked ground-truth "
            "item within the top K), RR the reciprocal of its rank, ties averaged"
        ),
    ),
)

for _preset in PRESETS:
    register_preset(_preset, replace=True)
