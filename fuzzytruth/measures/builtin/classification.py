"""The classifier families: accuracy and top-k accuracy, distances between predicted and target
distributions, calibration, and the collection statistics (soft micro-F1, ECE, entropy
correlation).

Each reads a classifier's classes (``reads="classes"``); kernels in
:mod:`fuzzytruth.metrics.classification`. Their shared parameters:

``target``
    how a world of the truth is read (:data:`fuzzytruth.metrics.class_rules.TARGETS`): one class
    per item (``label``, the default of accuracy), the world's most plausible class (``top1``,
    Stutz et al.'s label per plausibility sample) or the world's plausibility vector
    (``distribution``, the default of the measures between distributions). A set-valued
    truth (crisp qrels of plausible labels, ImageNet ReaL) has one reading, its sets: accuracy
    reads them whatever the ``target``, and the other families refuse it;
``level``
    the taxonomy depth at which the truth is read (its nodes lifted to their ancestor there):
    a prediction counts at the level where it meets the truth (condition vs risk group);
``ties``
    how tied scores rank (:data:`fuzzytruth.metrics.class_rules.CLASS_TIES`; default ``last``,
    scikit-learn's ``top_k_accuracy_score``).

Examples
--------
>>> from fuzzytruth.measures import parse_measure
>>> str(parse_measure("top5")), str(parse_measure("ReaL@5")), str(parse_measure("CE(level=1)"))
('Acc@5', 'Acc@5', 'CE(level=1)')
>>> [parse_measure(m).family.param("target").default for m in ("Acc", "CE")]
['label', 'distribution']
"""

from __future__ import annotations

from typing import Any

from fuzzytruth.measures.registry import Param, positive_int, register
from fuzzytruth.metrics import classification as kernels
from fuzzytruth.metrics.class_rules import CLASS_TIES, STRICT_TIES, TARGETS


def _depth(value: Any) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a taxonomy depth (an integer >= 0); got {value!r}") from None
    if not number.is_integer() or number < 0:
        raise ValueError(f"must be a taxonomy depth (an integer >= 0); got {value!r}")
    return int(number)


def _eps(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a number in (0, 0.5); got {value!r}") from None
    if not 0.0 < number < 0.5:
        raise ValueError(f"must be a number in (0, 0.5); got {value!r}")
    return number


def _decimals(value: Any) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a number of decimals (an integer >= 0); got {value!r}") from None
    if not number.is_integer() or number < 0:
        raise ValueError(f"must be a number of decimals (an integer >= 0); got {value!r}")
    return int(number)


def target(default: str, choices: tuple[str, ...] = TARGETS) -> Param:
    """The ``target`` parameter with a family's default."""
    return Param("target", default=default, choices=choices,
                 doc="how a world of the truth is read: " + ", ".join(choices))


TIES = Param("ties", default="last", choices=CLASS_TIES,
             doc="tied scores: last (scikit-learn), first (numpy argmax), all (TensorFlow "
             "in_top_k), average (expected over tie orders)")
STRICT = Param("ties", default="last", choices=STRICT_TIES,
               doc="which tied class is the top class: last (scikit-learn) or first (argmax)")
LEVEL = Param("level", default=None, convert=_depth,
              doc="taxonomy depth at which the truth is read (its nodes' ancestors there)")
EPS = Param("eps", default=None, convert=_eps,
            doc="probabilities clipped to [eps, 1 - eps] (default: the dtype's machine "
            "epsilon, scikit-learn's log_loss)")
DECIMALS = Param("decimals", default=None, convert=_decimals,
                 doc="each item's value rounded to this many decimals (LeWiDi: 5)")

register(
    "Acc",
    kernels.accuracy,
    params=(Param("k", default=1, convert=positive_int, doc="size of the top-k set"), TIES,
            LEVEL, target("label")),
    at="k",
    reads="classes",
    undefined_value=float("nan"),
    aliases={"ReaL": {}, **{f"top{k}": {"k": k} for k in (1, 2, 3, 5, 10)}},
    description="top-k accuracy: the truth's class is among the k best-scored classes "
    "(an item with an empty label set is left out: ImageNet ReaL)",
)
register("CE", kernels.cross_entropy, params=(EPS, LEVEL, target("distribution")),
         reads="classes", higher_is_better=False,
         description="cross-entropy of the predicted probabilities against the truth")
register("KL", kernels.kl_divergence, params=(EPS, LEVEL, target("distribution")),
         reads="classes", higher_is_better=False,
         description="Kullback-Leibler divergence KL(truth || prediction)")
register("JS", kernels.jensen_shannon, params=(LEVEL, target("distribution")),
         reads="classes", higher_is_better=False,
         description="Jensen-Shannon divergence (base 2)")
register("poJSD", kernels.po_jsd, params=(LEVEL, target("distribution")), reads="classes",
         description="1 - Jensen-Shannon divergence (base 2; Kurniawan et al. 2025)")
register("TV", kernels.total_variation, params=(LEVEL, target("distribution")),
         reads="classes", higher_is_better=False,
         description="total variation distance between the distributions")
register("MD", kernels.manhattan, params=(LEVEL, DECIMALS, target("distribution")),
         reads="classes", higher_is_better=False,
         description="Manhattan distance between the distributions (LeWiDi)")
register("Wasserstein", kernels.wasserstein, params=(DECIMALS, target("distribution")),
         reads="classes", higher_is_better=False, aliases={"WD": {}},
         description="earth mover's distance on an ordinal scale (classes in their order)")
register("SoftAcc", kernels.soft_accuracy, params=(LEVEL, target("distribution")),
         reads="classes",
         description="soft accuracy: the overlap sum(min(truth, prediction))")
register("SoftF1", kernels.soft_f1, params=(LEVEL, target("distribution")), reads="classes",
         per_item=False,
         description="soft micro-F1 2 sum min / sum (truth + prediction) over the collection")
register("Brier", kernels.brier,
         params=(Param("half", default="auto", choices=kernels.BRIER_HALF,
                       doc="halve the score: auto (for two classes, scikit-learn), yes, no"),
                 LEVEL, target("distribution")),
         reads="classes", higher_is_better=False,
         description="Brier score sum (prediction - truth)^2")
register("ECE", kernels.calibration_error,
         params=(Param("n_bins", default=15, convert=positive_int,
                       doc="equal-width confidence bins"), STRICT, LEVEL,
                 target("distribution")),
         reads="classes", per_item=False, higher_is_better=False,
         description="expected calibration error of the top class's confidence")
register("EntropyCorr", kernels.entropy_correlation,
         params=(LEVEL, target("distribution", ("distribution",))), reads="classes",
         per_item=False,
         description="Pearson correlation of the normalised entropies of truth and prediction")
