"""Truth models: the truth behind an evaluation as a model fitted on the annotations.

A model is configured, then ``fit(annotations)`` returns a frozen result
(:class:`~fuzzytruth.truth.models.base.FittedTruth`) that gives the posterior p(class | item),
the :class:`~fuzzytruth.truth.membership.Membership` closed over the taxonomy's ancestors, a keyed
sampler of plausible truths (worlds) that carries the model's own uncertainty, and convergence
diagnostics.

* :class:`Shares`: the annotators' shares (Santini eq. 6–8), today's truth;
* :class:`DawidSkene`, :class:`OneCoin`, :class:`Mace`: annotator models fitted by EM;
* :class:`IRN`, :class:`PrIRN`: plausibilities from partial rankings with ties
  (Stutz et al. 2023), deterministic and with Dirichlet uncertainty.

:data:`TRUTH_MODELS` maps each model's name (what outputs print, what a command line takes)
to its class; :func:`fit_truth` fits one by name or as configured. A fit is a ground truth:
``evaluate(runs, DawidSkene().fit(annotations), ...)``.

Examples
--------
>>> import pandas as pd
>>> from fuzzytruth import Annotations, Taxonomy
>>> df = pd.DataFrame({"item_id": [1, 1, 1, 2, 2, 2], "annotator_id": list("abcabc"),
...                    "label": ["cat", "cat", "dog", "dog", "dog", "dog"]})
>>> ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(["cat", "dog"]))
>>> fit = TRUTH_MODELS["dawid-skene"]().fit(ann)
>>> fit.name, fit.convergence.converged, fit.membership.probability(2, "dog")
('dawid-skene', True, 1.0)
>>> fit.sample_labels(4, seed=7).shape
(4, 2)

The fit is a ground truth, named beside the estimand:

>>> from fuzzytruth import Run, evaluate
>>> run = Run(["q", "q"], ["2", "1"], [2.0, 1.0], name="sys")
>>> evaluate(run, fit, "P@1", query_categories={"q": "dog"}).aggregate()[["value", "estimand"]]
   value                               estimand
0    1.0  collection (truth model: dawid-skene)
"""

from fuzzytruth.truth.models.base import (
    AnonymousReadersWarning,
    Convergence,
    FittedTruth,
    NonConvergenceWarning,
)
from fuzzytruth.truth.models.choice import (
    RANKING_MODELS,
    TRUTH_MODELS,
    as_truth_model,
    fit_truth,
)
from fuzzytruth.truth.models.dawid_skene import DawidSkene, DawidSkeneFit
from fuzzytruth.truth.models.mace import Mace, MaceFit
from fuzzytruth.truth.models.one_coin import OneCoin, OneCoinFit
from fuzzytruth.truth.models.rankings import IRN, IRNFit, PrIRN, PrIRNFit, irn
from fuzzytruth.truth.models.shares import Shares, SharesFit

__all__ = [
    "IRN",
    "RANKING_MODELS",
    "TRUTH_MODELS",
    "AnonymousReadersWarning",
    "Convergence",
    "DawidSkene",
    "DawidSkeneFit",
    "FittedTruth",
    "IRNFit",
    "Mace",
    "MaceFit",
    "NonConvergenceWarning",
    "OneCoin",
    "OneCoinFit",
    "PrIRN",
    "PrIRNFit",
    "Shares",
    "SharesFit",
    "as_truth_model",
    "fit_truth",
    "irn",
]
