"""Choosing a truth model: by name (what outputs print, what the command line takes) or as a
configured model, and the one path from annotations or rankings to a fitted truth.

Every function that takes annotations and a ``truth_model`` option
(:func:`fuzzytruth.stats.annotator_bootstrap`, :func:`fuzzytruth.collection.category_reliability`,
the command line's ``--truth-model``) fits it through :func:`fit_truth`; :func:`fuzzytruth.evaluate`
takes the fit itself (``evaluate(runs, DawidSkene().fit(annotations), ...)``).
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

from fuzzytruth._validation import check_choice, did_you_mean
from fuzzytruth._warnings import warn
from fuzzytruth.truth.models.base import FittedTruth, NonConvergenceWarning
from fuzzytruth.truth.models.dawid_skene import DawidSkene
from fuzzytruth.truth.models.mace import Mace
from fuzzytruth.truth.models.one_coin import OneCoin
from fuzzytruth.truth.models.rankings import IRN, PrIRN
from fuzzytruth.truth.models.shares import Shares

__all__ = ["RANKING_MODELS", "TRUTH_MODELS", "Refitter", "as_truth_model", "fit_truth"]

TRUTH_MODELS: dict[str, type] = {
    model.name: model for model in (Shares, DawidSkene, OneCoin, Mace, IRN, PrIRN)
}
"""Model name -> model class."""

RANKING_MODELS = (IRN.name, PrIRN.name)
"""The models fitted on partial rankings (the others read annotators' labels)."""


def as_truth_model(truth_model: Any, **options: Any) -> Any:
    """A model from a name of :data:`TRUTH_MODELS` (with its defaults, or the settings
    ``options``) or a configured model (returned as it is; it carries its settings).

    Examples
    --------
    >>> as_truth_model("dawid-skene")
    DawidSkene(tol=1e-06, max_iter=1000, uncertainty='parameters', prior=0.0)
    >>> as_truth_model("majority")
    Traceback (most recent call last):
    ...
    ValueError: truth_model must be one of ['shares', 'dawid-skene', 'one-coin', 'mace', \
'irn', 'prirn']; got 'majority'
    >>> as_truth_model("one-coin", max_iter=50).max_iter
    50
    >>> as_truth_model("one-coin", maxiter=50)
    Traceback (most recent call last):
    ...
    ValueError: 'one-coin' has no setting maxiter (did you mean 'max_iter'?); its settings: \
['tol', 'max_iter', 'uncertainty', 'prior']
    """
    if isinstance(truth_model, str):
        check_choice("truth_model", truth_model, tuple(TRUTH_MODELS))
        model = TRUTH_MODELS[truth_model]
        settings = list(inspect.signature(model).parameters)
        for option in options:
            if option not in settings:
                which = f"its settings: {settings}" if settings else "it takes none"
                raise ValueError(
                    f"{truth_model!r} has no setting {option}{did_you_mean(option, settings)}; "
                    f"{which}"
                )
        return model(**options)
    if isinstance(truth_model, tuple(TRUTH_MODELS.values())):
        if options:
            raise ValueError(
                f"a configured truth_model carries its settings; got {truth_model!r} and "
                f"{', '.join(f'{k}={v!r}' for k, v in options.items())}: give them to its "
                f"constructor, {type(truth_model).__name__}({', '.join(options)}=...), or "
                f"pass its name {truth_model.name!r} with them"
            )
        return truth_model
    if isinstance(truth_model, type) and issubclass(truth_model, tuple(TRUTH_MODELS.values())):
        raise ValueError(
            f"truth_model must be a configured model; got the class {truth_model.__name__} "
            f"itself: call it, {truth_model.__name__}() (with its defaults), or pass its name "
            f"{truth_model.name!r}"
        )
    raise ValueError(
        f"truth_model must be one of {list(TRUTH_MODELS)} or a configured model (e.g. "
        f"DawidSkene(tol=1e-8)); got {type(truth_model).__name__}"
    )


def fit_truth(data: Any, truth_model: Any = "shares", **options: Any) -> FittedTruth:
    """The truth of ``data`` under ``truth_model``.

    Parameters
    ----------
    data : Annotations or Rankings
        Annotators' labels, or partial rankings (IRN and PrIRN need them; the other models
        read each reader's top group).
    truth_model : str or model
        A name of :data:`TRUTH_MODELS` (the model with its defaults; default ``"shares"``, the
        annotators' shares) or a configured model such as ``PrIRN(temperature=3)``.
    **options
        The named model's settings (``fit_truth(labels, "dawid-skene", max_iter=50)`` is
        ``DawidSkene(max_iter=50).fit(labels)``); a configured model carries its own.

    Returns
    -------
    FittedTruth
        A ground truth for :func:`fuzzytruth.evaluate`, named by its model in every output.

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_illustrative
    >>> fit = fit_truth(santini_illustrative().annotations, "dawid-skene")
    >>> fit.name, fit.convergence.converged
    ('dawid-skene', True)
    >>> fit_truth(santini_illustrative().annotations, "dawid-skene", tol=1e-9).convergence.tol
    1e-09
    """
    return as_truth_model(truth_model, **options).fit(data)


class Refitter:
    """One truth model refitted on many label sets (the replicates of
    :func:`fuzzytruth.stats.annotator_bootstrap`), its non-convergence told once.

    ``truth(annotations)`` is the model's fit of those labels, or with ``truth_model=None`` the
    annotators' shares as a :class:`~fuzzytruth.Membership` (no model: the truth as a table);
    the fits that stop at their iteration limit are counted, and :meth:`warn_and_name` says
    how many, and the largest last change among them, in one :class:`NonConvergenceWarning`
    instead of one per fit. The model's other warnings (votes it cannot read as evidence,
    parameters from one vote) are given for the first fit, the observed labels, whose
    collection they describe, and not repeated for each replicate.

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_illustrative
    >>> refit = Refitter("dawid-skene")
    >>> fit = refit.truth(santini_illustrative().annotations)
    >>> fit.name, refit.warn_and_name(1)
    ('dawid-skene', 'dawid-skene')
    """

    def __init__(self, truth_model: Any | None) -> None:
        self.model = None if truth_model is None else as_truth_model(truth_model)
        self.not_converged = 0
        self.largest_change = 0.0  # the largest last change of the fits that did not converge
        self.fits = 0

    def truth(self, annotations: Any) -> Any:
        """The truth of ``annotations``: the model's fit, or the shares' membership."""
        from fuzzytruth.truth.membership import Membership

        if self.model is None:
            return Membership.from_annotations(annotations)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", NonConvergenceWarning)
            fit = self.model.fit(annotations)
        if any(issubclass(w.category, NonConvergenceWarning) for w in caught):
            self.not_converged += 1
            self.largest_change = max(self.largest_change, fit.convergence.last_change)
        if not self.fits:
            for w in caught:
                if not issubclass(w.category, NonConvergenceWarning):
                    warn(str(w.message), w.category)
        self.fits += 1
        return fit

    def warn_and_name(self, n_fits: int) -> str | None:
        """The model's name (None without one), after one warning if any of the ``n_fits``
        fits stopped at its iteration limit."""
        if self.model is None:
            return None
        if self.not_converged:
            warn(
                f"{self.model.name} did not converge (max_iter={self.model.max_iter}) on "
                f"{self.not_converged} of {n_fits} label sets (the observed labels and each "
                "replicate's): the largest last change of an item's posterior was "
                f"{self.largest_change:.3g} > tol={self.model.tol:g}; raise max_iter or tol",
                NonConvergenceWarning,
            )
        return self.model.name
