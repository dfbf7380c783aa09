"""Accuracy against reader reliability: the shape of Stutz et al.'s (2023) main figure.

The readers' partial rankings become a PrIRN truth at each reliability (temperature: low, the
readers are unreliable and the plausibilities spread; high, they approach IRN). Each
classifier is evaluated under each, and under the deterministic aggregation the field uses (the
IRN argmax: one label per item, no uncertainty), and, optionally, the readers themselves are
scored the same way against the others (:func:`~fuzzytruth.classify.leave_one_annotator_out`).
The result is one tidy table, drawn by :func:`fuzzytruth.plots.plot_reliability`.

Examples
--------
>>> from fuzzytruth.io.rankings import Rankings
>>> from fuzzytruth.classify import Predictions
>>> r = Rankings.from_selectors([[[[0]], [[0], [1]]], [[[1]], [[2]]]], classes=["a", "b", "c"])
>>> net = Predictions([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]], items=[0, 1], classes=["a", "b", "c"],
...                   name="net")
>>> table = reliability_curves(net, r, "Acc(target=top1)", temperatures=(1, 10), n_worlds=200,
...                            rng=0)
>>> sorted(set(zip(table.truth_model, table.reliability)))
[('irn', inf), ('prirn', 1.0), ('prirn', 10.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_flag
from fuzzytruth.evaluation.engine import evaluate
from fuzzytruth.io.rankings import Rankings

__all__ = ["STUTZ_TEMPERATURES", "reliability_curves"]

STUTZ_TEMPERATURES = (1, 3, 5, 10, 20, 30, 50)
"""The temperatures of Stutz et al.'s notebook (colab_ua_accuracy.ipynb)."""

_COLUMNS = ["system", "measure", "truth_model", "reliability", "value", "ci_low", "ci_high",
            "truth_low", "truth_high", "confidence_level"]


def reliability_curves(
    predictions: Any,
    rankings: Rankings,
    measures: str | Iterable[str],
    *,
    temperatures: Sequence[float] = STUTZ_TEMPERATURES,
    alpha: float = 0.01,
    human: bool = False,
    n_worlds: int = 1000,
    rng: np.random.Generator | int | None = None,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Each classifier's measures under PrIRN at every temperature and under the IRN argmax.

    Parameters
    ----------
    predictions : Predictions or mapping of str to Predictions
        The classifiers.
    rankings : Rankings
        The readers' partial rankings.
    measures : str or iterable of str
        Classifier measures; ``target="top1"`` reads each plausibility sample's most plausible
        class (Stutz et al.'s uncertainty-adjusted accuracy), and under IRN its argmax
        (deterministic aggregation).
    temperatures : sequence of float
        PrIRN's temperatures (the readers' reliability).
    alpha : float
        PrIRN's concentration of every class (Stutz et al.: 0.01).
    human : bool
        Also score the readers, each against the others' truth (system ``"readers
        (leave-one-out)"``).
    n_worlds : int
        Worlds per truth.
    rng : numpy.random.Generator or int, optional
        The one source of randomness (the same seed for every truth: common random numbers).
    confidence_level : float
        Level of the intervals.

    Returns
    -------
    pandas.DataFrame
        ``system, measure, truth_model, reliability, value, ci_low, ci_high, truth_low,
        truth_high, confidence_level``: ``reliability`` is the temperature (``inf`` for the IRN
        argmax); ``ci_*`` the interval over items, ``truth_*`` the spread over the truth's
        worlds.
    """
    human = check_flag("human", human)
    from fuzzytruth._random import draw_seed
    from fuzzytruth.classify.human import leave_one_annotator_out
    from fuzzytruth.truth.models import IRN, PrIRN

    if isinstance(temperatures, str) or not isinstance(temperatures, Iterable):
        raise ValueError(f"temperatures must be a sequence of numbers > 0; got {temperatures!r}")
    if not isinstance(rankings, Rankings):
        raise ValueError(f"rankings must be Rankings (partial rankings of readers); got "
                         f"{type(rankings).__name__}")
    seed = draw_seed(rng)
    truths = [(PrIRN(temperature=float(t), alpha=alpha), "prirn", float(t))
              for t in temperatures]
    truths.append((IRN(), "irn", np.inf))
    frames = []
    for model, name, reliability in truths:
        ev = evaluate(predictions, model.fit(rankings), measures, n_worlds=n_worlds, rng=seed,
                      confidence_level=confidence_level, progress=False)
        table = ev.aggregate()
        frames.append(table.assign(truth_model=name, reliability=reliability))
        if human:
            people = leave_one_annotator_out(rankings, measures, truth_model=model,
                                             n_worlds=n_worlds, rng=seed,
                                             confidence_level=confidence_level,
                                             progress=False)
            frames.append(people.summary().assign(system="readers (leave-one-out)",
                                                  truth_model=name, reliability=reliability))
    return pd.concat(frames, ignore_index=True)[_COLUMNS]
