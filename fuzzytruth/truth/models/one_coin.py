"""One-coin Dawid–Skene: one accuracy per annotator, errors uniform over the other classes.

Annotator a answers the true class with probability s_a and each of the K − 1 other classes
with probability (1 − s_a)/(K − 1) (Zhang, Chen, Zhou & Jordan 2016's one-coin model). EM as
in :mod:`fuzzytruth.truth.models.dawid_skene` (same classes, initialisation from the shares,
stopping rule, priors and degenerate cases); the M-step sets s_a to the annotator's expected
accuracy, the mean over its votes of the posterior of the label it gave, and the confusion
entries are clipped to [1e-10, 1 − 1e-10] (crowd-kit's ``OneCoinDawidSkene``, the oracle).

An annotator who labelled a single item has its accuracy from that one vote, which EM takes
to 0 or 1 (with every annotator fresh per item, every posterior ends at 0 or 1 where the
votes are right 80 % of the time): a warning counts such annotators and names their items.

Worlds (``uncertainty="parameters"``): per world, the priors are drawn as for Dawid–Skene and
each accuracy from Beta(expected correct votes + prior, expected wrong votes + prior); the item
posteriors are recomputed under the drawn parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from fuzzytruth._random import dirichlet, unit_keys
from fuzzytruth._warnings import warn
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.models.dawid_skene import (
    _PARAMETER_STREAM,
    EPS,
    DawidSkene,
    DawidSkeneFit,
    Votes,
)

__all__ = ["OneCoin", "OneCoinFit"]


def _one_coin(skills: np.ndarray, same: np.ndarray, n_classes: int) -> np.ndarray:
    """θ[c, l] = s if c == l else (1 - s)/(K - 1), clipped to [1e-10, 1 - 1e-10]: ``skills``
    broadcast against ``same`` (whether the class is the label)."""
    off = (1.0 - skills) / (n_classes - 1)
    return np.clip(np.where(same, skills, off), EPS, 1.0 - EPS)


def errors_from_skills(skills: np.ndarray, n_classes: int) -> np.ndarray:
    """``(..., n_annotators, K, K)`` one-coin confusion matrices of ``(..., n_annotators)``
    accuracies, every label's column (the model's matrices: :attr:`DawidSkeneFit.errors`)."""
    return _one_coin(skills[..., None, None], np.eye(n_classes, dtype=bool), n_classes)


def pair_errors(skills: np.ndarray, votes: Votes) -> np.ndarray:
    """``(..., n_pairs, K)`` the same entries for the labels each annotator gave, as
    :class:`~fuzzytruth.truth.models.dawid_skene.Votes` tables (what the votes read)."""
    k = votes.n_classes
    same = np.arange(k)[None, :] == votes.pair_label[:, None]
    return _one_coin(skills[..., votes.pair_annotator, None], same, k)


def expected_accuracy(votes: Votes, posterior: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per annotator, the expected number of correct votes and its total vote weight."""
    counts = votes.expected_counts(posterior)  # [pair, class]
    n_annot = len(votes.annotators)
    said_truth = counts[np.arange(len(counts)), votes.pair_label]
    correct = np.bincount(votes.pair_annotator, weights=said_truth, minlength=n_annot)
    total = np.bincount(votes.pair_annotator, weights=counts.sum(axis=1), minlength=n_annot)
    return correct, total


def expected_skills(votes: Votes, posterior: np.ndarray) -> np.ndarray:
    """Per annotator, the expected share of correct votes (NaN for an annotator whose votes
    all have weight 0: nothing estimates it, and no vote reads it)."""
    correct, total = expected_accuracy(votes, posterior)
    return np.divide(correct, total, out=np.full_like(correct, np.nan), where=total > 0)


@dataclass(frozen=True)
class OneCoin(DawidSkene):
    """One-coin Dawid–Skene (see the module docstring); parameters as :class:`DawidSkene`.

    Examples
    --------
    >>> from fuzzytruth import Annotations, Taxonomy
    >>> rows = [(i, a, "yes" if (a + i) % 4 else "no") for i in range(6) for a in range(5)]
    >>> df = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    >>> fit = OneCoin().fit(Annotations.from_frame(df, taxonomy=Taxonomy.flat(["no", "yes"])))
    >>> fit.skills.round(2).tolist()
    [0.67, 0.83, 0.83, 0.67, 0.67]
    """

    name: ClassVar[str] = "one-coin"

    def _check_evidence(self, votes: Votes) -> None:
        """Warn of annotators who labelled one item: their accuracy, the share of their
        votes that EM finds right, is estimated from that one vote and goes to 0 or 1, so
        the items they labelled get posteriors of 0 or 1 where the votes are not so sure (on
        400 items each labelled by 3 annotators of their own, right with probability 0.8,
        every skill ended within 1e-6 of 0 or 1 and every posterior at 1, for an accuracy of
        0.935). Their votes are evidence, as Dawid–Skene's one-label annotators' are not."""
        once = votes.items_per_annotator() == 1
        if not once.any():
            return
        items = np.flatnonzero(votes.voters_among(once))
        warn(
            f"one-coin estimates each annotator's accuracy from the items it labelled: "
            f"{int(once.sum())} of {len(once)} annotators labelled a single item, and an "
            "accuracy from one vote goes to 0 or 1 under EM, so the posteriors of the "
            f"{len(items)} items they labelled ({_show(votes.items[items])}) are pushed to "
            "0 or 1 where the votes are not so sure; MACE smooths such estimates",
            UserWarning,
        )

    @staticmethod
    def _m_step(votes: Votes, posterior: np.ndarray) -> np.ndarray:
        return pair_errors(expected_skills(votes, posterior), votes)

    def _result(self, annotations, votes, posterior, priors, errors, history, convergence):
        if votes.n_classes == 1:  # every matrix [[1]]: Dawid-Skene's rule
            return super()._result(annotations, votes, posterior, priors, errors, history,
                                   convergence)
        # the model's matrices, every label's column, from the skills of the last M-step
        return self._fit_class.of(
            self, annotations, votes, posterior, convergence, priors=priors,
            errors=errors_from_skills(expected_skills(votes, posterior), votes.n_classes),
            history=history)


@dataclass(frozen=True, eq=False, repr=False)
class OneCoinFit(DawidSkeneFit):
    """A fitted one-coin model; :attr:`errors` holds the implied confusion matrices."""

    @property
    def skills(self) -> pd.Series:
        """Each annotator's accuracy s_a (its expected share of correct votes; NaN for an
        annotator whose votes all have weight 0)."""
        return pd.Series(expected_skills(self.votes, self.posterior), index=self.annotators,
                         name="skill")

    def _drawn_errors(self, seed: int, worlds: np.ndarray) -> np.ndarray:
        correct, total = expected_accuracy(self.votes, self.posterior)
        prior = self.settings["prior"]
        concentration = np.stack([correct + prior, total - correct + prior], axis=1)
        keys = unit_keys(np.array(
            [f"{a!r}\\x1fskill\\x1f{j}" for a in self.annotators for j in (0, 1)], dtype=object
        )).reshape(concentration.shape)
        skills = dirichlet(seed, _PARAMETER_STREAM, keys, concentration, worlds)[..., 0]
        return pair_errors(skills, self.votes)


OneCoin._fit_class = OneCoinFit
