"""MACE (Hovy, Berg-Kirkpatrick, Vaswani & Hovy 2013): annotators who know, or spam.

Model. Item i's true class is uniform over the K classes. On each item, annotator a spams with
probability p_a (and then answers label l with its own strategy ξ_a[l]) or else gives the
true class. So a's confusion matrix is θ_a[c, l] = p_a ξ_a[l] + (1 − p_a)·[c = l]: Dawid–Skene
with a structured confusion matrix and fixed uniform priors, and the E-step is Dawid–Skene's.
The M-step re-estimates, from the posterior probability that each vote was spam (given the
item posteriors and the current parameters), p_a and ξ_a:

* ``method="em"``: normalised expected counts plus ``smoothing`` (default 0.01/K, crowd-kit's);
* ``method="vb"``: variational Bayes with a Beta(``alpha``, ``beta``) prior on (spam, know) and
  a symmetric Dirichlet(``strategy_prior``) on ξ_a: exp ψ(count + prior) / exp ψ(Σ ...).

Initialisation (deterministic, unlike MACE's random restarts): the item posteriors are the
annotators' shares and the first M-step takes every vote that agrees with them as known
(p_a from the expected share of votes that disagree, ξ_a from where they fall); then E-step,
M-step, ... Stopping rule, classes (labels used), vote weights and degenerate cases as for
:class:`~fuzzytruth.truth.models.dawid_skene.DawidSkene`; ``max_iter=0`` returns the posterior
under the initial parameters. The E-step reads each confusion cell that a vote reads floored at
1e-10 (:func:`log_confusion`), as Dawid–Skene's and the worlds' cells are: a cell of 0 (a
strategy with no mass on a label) is evidence against a class, never the certainty for it that
a log of 0 read as 0 made it.

An annotator whose votes all have weight 0 gets NaN parameters (spamming probability,
strategy, confusion matrix, reliability), the rule of Dawid–Skene and one-coin; no vote reads
them, so the posterior is the fit without that annotator. Decided, not inherited: MACE's
smoothing (EM) and priors (VB) would give it numbers, but they regularise an estimate from
votes and are not one without them: the EM smoothing is not a prior at all, and the VB
weights are exp E[log ·] of a Beta(``alpha``, ``beta``) law, not its mean. With no votes the
numbers were those of the settings alone (on the bundled image collection a reliability of
0.525 under EM, 0.262 under VB, for the same absent evidence), read by a reliability table
as if they had been measured. MACE's own code only knows annotators who appear in its input.
The rule holds with one class used too: there every annotator with a weighted vote has the
matrix [[1]] and the spamming probability 0 (a convention: any probability gives [[1]], for
with one label spamming cannot be told from knowing), and one without has NaN, as under
Dawid–Skene and one-coin.

Worlds (``uncertainty="parameters"``): per world, each (spam, know) pair is drawn from the Beta
law of its expected counts + ``prior``, each strategy from the Dirichlet law of its expected
counts + ``prior``, and the item posteriors are recomputed with the E-step's likelihood
(:func:`log_confusion`: the confusion cells that votes read floored at 1e-10, as Dawid–Skene's,
since a draw that underflows to 0 would otherwise make a vote certain evidence against every
class but one; the rows not renormalised over the labels an annotator used, which made the
votes of an annotator who gave one label no evidence in every world, where the fit reads them).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar, Literal

import numpy as np
import pandas as pd

from fuzzytruth._random import dirichlet, unit_keys
from fuzzytruth._validation import check_choice, check_number
from fuzzytruth.annotations import Annotations
from fuzzytruth.truth.models.base import Convergence, as_annotations
from fuzzytruth.truth.models.dawid_skene import (
    _CRITERION,
    _PARAMETER_STREAM,
    EPS,
    DawidSkeneFit,
    Votes,
    check_identifiable,
    check_settings,
    posterior_from,
    warn_if_far_from_votes,
    warn_if_not_converged,
)

__all__ = ["Mace", "MaceFit"]

METHODS = ("em", "vb")


def confusion(knowing: np.ndarray, strategy: np.ndarray) -> np.ndarray:
    """``(..., n_annotators, K, K)``: θ[c, l] = p ξ[l] + q [c = l], with (p, q) the
    (spam, know) weights of ``knowing`` (``(..., n_annotators, 2)``; q = 1 − p under EM,
    exp E[log ·] weights that sum to less than 1 under VB)."""
    k = strategy.shape[-1]
    spam, know = knowing[..., 0], knowing[..., 1]
    return spam[..., None, None] * strategy[..., None, :] + know[..., None, None] * np.eye(k)


def log_confusion(knowing: np.ndarray, strategy: np.ndarray, votes: Votes) -> np.ndarray:
    """log θ of the E-step, for the labels each annotator gave (``(..., n_pairs, K)``, as
    :class:`~fuzzytruth.truth.models.dawid_skene.Votes` tables): :func:`confusion`'s
    entries floored at :data:`~fuzzytruth.truth.models.dawid_skene.EPS` before the log.

    An entry of a label an annotator gave is p ξ[l] for every class but that label: it is 0,
    or below the smallest double, when the strategy gives the label no mass (a tiny
    ``strategy_prior`` under VB: exp ψ(1e-300) = 0), and a log of 0 read as 0 made the vote
    certain evidence *for* every other class. Floored, it is the strong evidence against them
    that Dawid–Skene's floor gives. Rows are not renormalised: under VB they sum to less than
    1 by design. With the default settings every entry a vote reads is above the floor
    (p ξ[l] >= about smoothing / votes), so no number changes.
    """
    a, label = votes.pair_annotator, votes.pair_label
    spam, know = knowing[..., a, 0, None], knowing[..., a, 1, None]
    said = strategy[..., a, label][..., None]  # ξ[l] of each pair's label
    same = np.arange(votes.n_classes)[None, :] == label[:, None]
    return np.log(np.maximum(spam * said + know * same, EPS))


def spam_counts(
    votes: Votes, posterior: np.ndarray, knowing: np.ndarray, strategy: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Expected counts of the E-step: per annotator, spammed and known votes, and the
    spammed votes per label.

    A vote (a, l) on item i was spam with probability 1 − T[i, l](1 − r_al), where
    r_al = p_a ξ_a[l] / (p_a ξ_a[l] + q_a) is the chance that a vote for l was spam when l is
    the true class.
    """
    counts = votes.expected_counts(posterior)  # [pair, class]
    a, label = votes.pair_annotator, votes.pair_label
    said = np.zeros(votes.used.shape)  # [a, l]: vote weight per label
    said[a, label] = counts.sum(axis=1)
    agree = np.zeros(votes.used.shape)  # [a, l]: expected weight where c == l
    agree[a, label] = counts[np.arange(len(counts)), label]
    hit = knowing[:, :1] * strategy
    ratio = np.divide(hit, hit + knowing[:, 1:], out=np.zeros_like(hit),
                      where=hit + knowing[:, 1:] > 0)
    by_label = said - agree * (1 - ratio)
    known = (agree * (1 - ratio)).sum(axis=1)
    return by_label.sum(axis=1), known, by_label


@dataclass(frozen=True)
class Mace:
    """MACE, fitted by EM or variational Bayes (see the module docstring).

    Parameters
    ----------
    method : {"em", "vb"}
        Maximum likelihood with smoothing, or variational Bayes with priors.
    smoothing : float or None
        Added to the expected counts by ``method="em"``, > 0 (with 0 the strategy of an
        annotator none of whose votes is expected to be spam is 0/0); None means 0.01/K.
    alpha, beta : float
        Beta prior on (spam, know) of ``method="vb"``.
    strategy_prior : float
        Symmetric Dirichlet prior on each strategy of ``method="vb"``.
    max_iter : int
        At most this many iterations (M-step + E-step) after the first E-step, as crowd-kit's
        ``n_iter``; 0 returns the posterior under the initial parameters (one E-step from
        them: not the shares that Dawid–Skene's 0 returns), with the ``convergence`` and the
        warnings of Dawid–Skene's.
    tol, uncertainty, prior
        As in :class:`~fuzzytruth.truth.models.dawid_skene.DawidSkene`.

    Examples
    --------
    Annotator ``e`` answers at random; MACE finds it spams:

    >>> from fuzzytruth import Annotations, Taxonomy
    >>> truth = ["a", "b", "c", "a", "b", "c", "a", "b"]
    >>> junk = ["c", "c", "a", "b", "a", "a", "c", "a"]
    >>> rows = [(i, who, t) for i, t in enumerate(truth) for who in "abcd"]
    >>> rows += [(i, "e", j) for i, j in enumerate(junk)]
    >>> df = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    >>> fit = Mace().fit(Annotations.from_frame(df, taxonomy=Taxonomy.flat(list("abc"))))
    >>> fit.spamming.round(2).to_dict()
    {'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.0, 'e': 1.0}
    """

    method: Literal["em", "vb"] = "em"
    smoothing: float | None = None
    alpha: float = 0.5
    beta: float = 0.5
    strategy_prior: float = 10.0
    tol: float = 1e-6
    max_iter: int = 1000
    uncertainty: Literal["parameters", "posterior"] = "parameters"
    prior: float = 0.0

    name: ClassVar[str] = "mace"

    def __post_init__(self) -> None:
        check_choice("method", self.method, METHODS)
        check_settings(self)
        for arg in ("alpha", "beta", "strategy_prior"):
            object.__setattr__(self, arg, check_number(arg, getattr(self, arg), strict=True))
        # > 0: with 0, an annotator none of whose votes is expected to be spam has a
        # strategy of 0/0 (NaN), and its votes were read as no evidence at all
        object.__setattr__(self, "smoothing",
                           check_number("smoothing", self.smoothing, strict=True, none=True))

    def fit(self, annotations: Annotations) -> MaceFit:
        """Fit the model to ``annotations``."""
        annotations = as_annotations(annotations, model=self.name)
        votes = Votes.from_annotations(annotations)
        shares = votes.shares()
        n_annot, k = votes.used.shape
        if k == 1:
            knowing, strategy = _unestimated(votes, np.tile([0.0, 1.0], (n_annot, 1)),
                                             np.ones((n_annot, 1)))
            return self._result(annotations, votes, shares, knowing, strategy, [],
                                Convergence(0, 0.0, True, self.tol, _CRITERION))
        check_identifiable(votes, self.name)
        knowing, strategy = self._m_step(votes, shares, np.tile([0.0, 1.0], (n_annot, 1)),
                                         np.full((n_annot, k), 1 / k))
        return self._iterate(annotations, votes, knowing, strategy)

    def _iterate(self, annotations, votes, knowing, strategy):
        """E-step under the given parameters, then up to ``max_iter`` (M-step, E-step)."""
        k = votes.n_classes
        log_priors = np.full(k, -np.log(k))
        by_class, log_norm = posterior_from(
            votes.log_likelihoods(log_confusion(knowing, strategy, votes), log_priors))
        history, change, it = [float(log_norm.sum())], np.inf, 0
        for it in range(1, self.max_iter + 1):  # noqa: B007 - the count is the diagnostic
            knowing, strategy = self._m_step(votes, by_class.T, knowing, strategy)
            new, log_norm = posterior_from(
                votes.log_likelihoods(log_confusion(knowing, strategy, votes), log_priors))
            history.append(float(log_norm.sum()))
            change = float(np.abs(new - by_class).max())
            by_class = new
            if change <= self.tol:
                break
        convergence = Convergence(it if self.max_iter else 0, change, change <= self.tol,
                                  self.tol, _CRITERION)
        warn_if_not_converged(self.name, convergence, self.max_iter)
        posterior = np.ascontiguousarray(by_class.T)
        warn_if_far_from_votes(self.name, votes, posterior)
        return self._result(annotations, votes, posterior, knowing, strategy, history,
                            convergence)

    def _m_step(self, votes, posterior, knowing, strategy):
        spammed, known, by_label = spam_counts(votes, posterior, knowing, strategy)
        knowing = np.stack([spammed, known], axis=1)
        if self.method == "em":
            smoothing = 0.01 / votes.n_classes if self.smoothing is None else self.smoothing
            knowing = (knowing + smoothing) / (knowing + smoothing).sum(axis=1, keepdims=True)
            by_label = (by_label + smoothing) / (by_label + smoothing).sum(axis=1, keepdims=True)
        else:
            knowing = _variational(knowing, np.array([self.alpha, self.beta]))
            by_label = _variational(by_label, np.full(by_label.shape[1], self.strategy_prior))
        return _unestimated(votes, knowing, by_label)

    def _result(self, annotations, votes, posterior, knowing, strategy, history, convergence):
        k = votes.n_classes
        return MaceFit.of(self, annotations, votes, posterior, convergence,
                          priors=np.full(k, 1 / k), errors=confusion(knowing, strategy),
                          history=history, knowing=knowing, strategy=strategy)


def _unestimated(
    votes: Votes, knowing: np.ndarray, strategy: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``knowing`` and ``strategy`` with NaN rows for the annotators without a weighted vote:
    nothing estimates them, as under Dawid-Skene and one-coin (no vote reads these rows, so the
    posterior is the fit without the annotator)."""
    silent = ~votes.used.any(axis=1)
    knowing[silent] = np.nan
    strategy[silent] = np.nan
    return knowing, strategy


def _variational(counts: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """exp ψ(count + prior) / exp ψ(Σ (count + prior)), row by row."""
    from scipy.special import digamma  # 0.1 s to import: only when MACE is fitted

    shifted = counts + prior
    return np.exp(digamma(shifted) - digamma(shifted.sum(axis=1, keepdims=True)))


@dataclass(frozen=True, eq=False, repr=False)
class MaceFit(DawidSkeneFit):
    """A fitted MACE model; :attr:`errors` holds the implied confusion matrices.

    Attributes
    ----------
    knowing : numpy.ndarray
        ``(n_annotators, 2)`` each annotator's (spam, know) weights: probabilities under EM,
        the exp E[log ·] weights of the E-step under VB (they sum to less than 1); NaN for an
        annotator whose votes all have weight 0.
    strategy : numpy.ndarray
        ``(n_annotators, n_classes)`` each annotator's label distribution when spamming (NaN
        for an annotator whose votes all have weight 0).
    """

    knowing: np.ndarray = None  # type: ignore[assignment]
    strategy: np.ndarray = None  # type: ignore[assignment]

    @property
    def spamming(self) -> pd.Series:
        """Each annotator's spamming probability (spam weight over the pair's sum), indexed
        by annotator; NaN for an annotator whose votes all have weight 0 (nothing estimates
        it).

        Examples
        --------
        >>> from fuzzytruth import Annotations, Taxonomy
        >>> rows = [(i, a, "xy"[(i + (a == "c")) % 2]) for i in range(4) for a in "abc"]
        >>> df = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
        >>> ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(["x", "y"]),
        ...                              annotator_weights={"c": 0.0})
        >>> Mace().fit(ann).spamming.round(3).to_dict()
        {'a': 0.001, 'b': 0.001, 'c': nan}
        """
        spam = self.knowing[:, 0] / self.knowing.sum(axis=1)
        return pd.Series(spam, index=self.annotators, name="spamming")

    @cached_property
    def _mace_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """The keys of the (spam, know) draws and of the strategies' entries, named by
        annotator (and class), made once for every block of worlds."""
        names = [repr(a) for a in self.annotators]
        knowing_keys = unit_keys(np.array(
            [f"{a}\x1fspam\x1f{j}" for a in names for j in (0, 1)], dtype=object
        )).reshape(-1, 2)
        strategy_keys = unit_keys(np.array(
            [f"{a}\x1fstrategy\x1f{c!r}" for a in names for c in self.classes], dtype=object
        )).reshape(len(names), len(self.classes))
        return knowing_keys, strategy_keys

    def _plausibility_block(self, seed: int, worlds: np.ndarray) -> np.ndarray:
        if self._point_posterior:
            return super()._plausibility_block(seed, worlds)
        spammed, known, by_label = spam_counts(self.votes, self.posterior, self.knowing,
                                               self.strategy)
        prior = self.settings["prior"]
        knowing_keys, strategy_keys = self._mace_keys
        knowing = np.stack([spammed, known], axis=1) + prior
        knowing = dirichlet(seed, _PARAMETER_STREAM, knowing_keys, knowing, worlds)
        strategy = dirichlet(seed, _PARAMETER_STREAM, strategy_keys, by_label + prior, worlds)
        k = len(self.classes)
        log_priors = np.full((len(worlds), k), -np.log(k))
        # the E-step's own cells (log_confusion: those that votes read floored, no row
        # renormalised); renormalised over each annotator's labels, as Dawid-Skene's rows
        # are, an annotator who gave one label had θ[c, l] = 1 for every class c in every
        # world, its votes no evidence where the fit reads them as strong evidence
        return self._world_posteriors(log_confusion(knowing, strategy, self.votes),
                                      log_priors)
