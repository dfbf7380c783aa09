"""Truth models: the truth behind an evaluation as a model fitted on the annotations.

A model is configured, then ``fit(annotations)`` returns a frozen result
(:class:`~fuzzytruth.truth_models.base.FittedTruth`) that gives the posterior p(class | item),
the :class:`~fuzzytruth.membership.Membership` closed over the taxonomy's ancestors, a keyed
sampler of plausible truths (worlds) that carries the model's own uncertainty, and convergence
diagnostics.

* :class:`Shares`: the annotators' shares (Santini eq. 6–8), today's truth;
* :class:`DawidSkene`, :class:`OneCoin`, :class:`Mace`: annotator models fitted by EM;
* :class:`IRN`, :class:`PrIRN`: plausibilities from partial rankings with ties
  (Stutz et al. 2023), deterministic and with Dirichlet uncertainty.
"""

from fuzzytruth.truth_models.base import Convergence, FittedTruth, NonConvergenceWarning
from fuzzytruth.truth_models.dawid_skene import DawidSkene, DawidSkeneFit
from fuzzytruth.truth_models.mace import Mace, MaceFit
from fuzzytruth.truth_models.one_coin import OneCoin, OneCoinFit
from fuzzytruth.truth_models.rankings import IRN, IRNFit, PrIRN, PrIRNFit, irn
from fuzzytruth.truth_models.shares import Shares, SharesFit

__all__ = [
    "IRN",
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
    "irn",
]
