"""Dawid–Skene (1979): per-annotator confusion matrices and class priors, fitted by EM.

Model. Item i has a true class z_i ~ Categorical(π); annotator a, shown an item of class c,
answers label l with probability θ_a[c, l]; answers are independent given the classes. EM
alternates the posterior of every item (E-step: p(c | i) ∝ π_c Π_(a,l) θ_a[c, l]^w, over the
item's votes of weight w) and the parameters that maximise the expected complete likelihood
(M-step: π = mean posterior; θ_a[c, ·] ∝ the posterior-weighted count of each label a gave).

Choices, stated (they match crowd-kit's ``DawidSkene``, so that its results are an oracle):

* **classes** are the labels actually used, in taxonomy order. A coarse label (an internal
  taxonomy node) is a class of its own; the posterior is then closed over ancestors by
  :attr:`~fuzzytruth.truth.models.base.FittedTruth.membership`, so a coarse label's mass
  counts for its ancestors only. Nodes nobody used get probability 0.
* **initialisation**: the posteriors are the annotators' shares (majority-vote proportions),
  then one M-step. ``max_iter=0`` returns that initialisation.
* **floors**: a label an annotator never used has probability 0 in that annotator's matrix
  (the maximum-likelihood value); the expected counts of the labels it used are floored at
  1e-10 before normalising, and so are the priors, so that no posterior becomes exactly 0 and
  stays there. A class for which an annotator's counts are all 0 gets the uniform distribution
  over that annotator's labels.
* **stopping rule**: the largest absolute change of any item's posterior between successive
  E-steps, ``<= tol``. (crowd-kit stops on the change of an evidence lower bound per vote,
  which counts the prior once per vote and is not monotone: on ImageNet ReaL its default stops
  after 2 iterations while posteriors still move by 0.9.) The marginal log-likelihood of the
  votes, which EM never lowers, is kept per iteration in ``log_likelihood``.
* **vote weights**: a vote split between k labels (``duplicates="split"``) or weighted by an
  annotator weight counts with its weight in both steps. A weight is a number of votes, not a
  ratio: doubling every weight changes the posterior (the shares read only the ratios), and
  a total above :data:`MAX_VOTE_WEIGHT` is refused. crowd-kit has no weights: it counts every
  row as one vote, so an (item, annotator) pair given twice counts twice there, while
  :meth:`~fuzzytruth.annotations.Annotations.from_frame` refuses it by default and otherwise
  keeps one vote (``"first"``, ``"last"``) or splits it (``"split"``).

Degenerate input. One class used: the posterior is 1 for it, no iteration, and θ_a = [[1]] for
every annotator with a weighted vote (the only label there is). An annotator whose votes all
have weight 0 (an annotator weight of 0) has NaN parameters (confusion matrix, reliability;
one-coin's skill; MACE's spamming probability and strategy), with one class used as with
several: nothing estimates them, and no vote reads them. No item labelled by two annotators
(one annotator, or annotators who share no item): nothing in the data tells an annotator's
errors from the truth, and a ValueError says so (crowd-kit returns numbers that no vote
supports). An annotator who shares no item with others is fitted as making no error (the
maximum-likelihood value: nothing contradicts it). An annotator with few votes gets extreme
confusion rows from them; one who used a single label has θ[c, l] = 1 for every class c, so
its votes carry no information: an item voted on only by such annotators keeps the class
priors as its posterior (a warning names it), and when every annotator is one (annotator ids
that do not persist across items give that) the fit is refused (:func:`check_informative`).
One-coin reads such votes (its accuracy covers every label); so does MACE. With many
classes and few votes per annotator the confusion matrices have far more entries than there
are votes, and EM raises the likelihood by moving the posteriors away from the votes: a fit
whose most probable class is one of the annotators' most frequent labels on fewer than half
of the items warns (:func:`warn_if_far_from_votes`).

Worlds (``uncertainty``). ``"parameters"`` (default): per world, the priors and every
annotator's confusion rows are drawn from the Dirichlet laws whose parameters are the final
M-step's expected counts plus ``prior`` (over the labels the annotator used; the priors over the
classes), and every item's posterior is recomputed under the drawn parameters. With the default
``prior=0`` the drawn parameters are centred on the fitted ones (the mean of Dirichlet(counts) is
the maximum-likelihood estimate): the sampler adds spread, not shrinkage, and annotators who all
agree keep a crisp truth in every world; a positive ``prior`` adds a Dirichlet prior's pull
towards uniform confusion rows, which on small collections moves even unanimous items. Items
labelled by the same annotators then move together from world to world: the uncertainty of the
fitted reliabilities enters set-level measures (category sizes, precision over many items), which a
point posterior treats as independent coin flips per item. ``"posterior"``: every world uses
the fitted posterior (plug-in). Each world's crisp labels are drawn from that world's
posteriors.

Evidence for the default (``benchmarks/truth_models.py``; 200 simulated collections of 120
items, 8 one-coin annotators of accuracy 0.55–0.9, 3 labels per item; 95 % world interval of the
number of items of one class, 400 worlds): coverage of the true count 0.30 ± 0.03 with the
plug-in posterior and 0.42 ± 0.03 with parameter draws for Dawid–Skene, 0.83 ± 0.03 and
0.87 ± 0.02 for one-coin (the generating model). Parameter draws are the better of the two in
both; what is left of Dawid–Skene's undercoverage is its bias on sparse data (the worlds' mean
count is 5.4 items low: nine confusion entries per annotator from about 45 votes), which no
sampler around the fit removes. ``prior=1`` reaches 0.59 by widening the worlds, at the price
of moving the truth of items every annotator agrees on. The alternative not built here is a
full posterior sampler (Gibbs over classes and parameters).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
import pandas as pd

from fuzzytruth._random import dirichlet, row_reduce, unit_keys
from fuzzytruth._validation import check_choice, check_int, check_number
from fuzzytruth._warnings import warn
from fuzzytruth.annotations import Annotations
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.models.base import (
    Convergence,
    FittedTruth,
    NonConvergenceWarning,
    as_annotations,
    used_classes,
)

if TYPE_CHECKING:  # scipy.sparse: 0.15 s to import, loaded where votes are counted
    from scipy import sparse

__all__ = ["DawidSkene", "DawidSkeneFit", "Votes"]

EPS = 1e-10
"""Floor of expected counts and priors before normalising (crowd-kit's)."""

MAX_VOTE_WEIGHT = 1e300
"""The largest total weight of the votes a model is fitted to. A weight counts as that many
votes: the E-step's log-likelihoods are weights times log θ, where |log θ| stays below about
23 + ln(total weight) (the floor of 1e-10 over a row's total), so up to 1e300 every sum stays
below 1e304. Beyond it they overflowed: NaN posteriors (Dawid–Skene, one-coin) or a uniform
one (MACE) behind a stream of RuntimeWarnings."""

UNCERTAINTIES = ("parameters", "posterior")
_PARAMETER_STREAM = 0x44534B50  # "DSKP": keyed draws of the priors and confusion rows
_CRITERION = "max abs change of item posteriors between successive E-steps"


@dataclass(frozen=True, eq=False, repr=False)
class Votes:
    """Annotations as sparse counts for EM: items × the (annotator, label) pairs given.

    ``pairs[i, p]`` is the total weight of the votes of annotator ``pair_annotator[p]`` for
    class position ``pair_label[p]`` on item ``i``; the pairs are those with a vote of positive
    weight, by annotator, then label; :attr:`used` says the same as an
    ``(n_annotators, n_classes)`` table.

    The models hold an annotator's parameters as such tables too: ``(n_pairs, n_classes)``,
    ``[p, c]`` the probability that the pair's annotator says the pair's label of an item of
    class ``c`` (the labels an annotator never gave are never read). A confusion row, one
    annotator's probabilities of its labels for one class, is then a run of entries of one
    column (:attr:`row_starts`). An annotator who gave few of many labels costs those few:
    1,000 annotators who each labelled 10 items of 100 classes are about 9,600 pairs, where
    dense ``(annotators, classes, classes)`` arrays held 10 million entries (every EM step
    and every world a pass over each of them).
    """

    items: pd.Index
    annotators: pd.Index
    classes: tuple
    pairs: sparse.csr_matrix
    pair_annotator: np.ndarray
    pair_label: np.ndarray

    @classmethod
    def from_annotations(cls, annotations: Annotations) -> Votes:
        """Count the votes of ``annotations`` (its row and annotator weights applied)."""
        item, annot, _, weight = annotations.codes()
        with np.errstate(over="ignore"):  # a total past the float range is reported below
            total = weight.sum()
        if not total <= MAX_VOTE_WEIGHT:
            shown = f"{total:.3g}" if np.isfinite(total) else "past the largest float"
            raise ValueError(
                f"annotator_weights must keep the votes' total weight <= {MAX_VOTE_WEIGHT:g} "
                "for a label model, which counts a vote of weight w as w votes (past it the "
                f"log-likelihoods overflow); got a total {shown}: scale the weights down (the "
                "shares read only their ratios)"
            )
        used_cols, label = used_classes(annotations)
        from scipy import sparse

        n_classes, n_annot = len(used_cols), annotations.n_annotators
        by_column = sparse.csr_matrix(
            (weight, (item, annot * n_classes + label)),
            shape=(annotations.n_items, n_annot * n_classes),
        )
        by_column.sum_duplicates()
        by_column.eliminate_zeros()
        given = np.unique(by_column.indices)  # (annotator, label) columns, ascending
        pairs = sparse.csr_matrix(
            (by_column.data, np.searchsorted(given, by_column.indices), by_column.indptr),
            shape=(annotations.n_items, len(given)),
        )
        tax = annotations.taxonomy
        return cls(
            items=annotations.items,
            annotators=annotations.annotators,
            classes=tuple(tax.nodes[c] for c in used_cols),
            pairs=pairs,
            pair_annotator=given // n_classes,
            pair_label=given % n_classes,
        )

    @property
    def n_classes(self) -> int:
        """Number of classes (labels used)."""
        return len(self.classes)

    @cached_property
    def used(self) -> np.ndarray:
        """``(n_annotators, n_classes)``: ``[a, l]`` whether annotator ``a`` gave label ``l``
        (a vote of positive weight), the pairs as a table."""
        out = np.zeros((len(self.annotators), self.n_classes), dtype=bool)
        out[self.pair_annotator, self.pair_label] = True
        return out

    def _one_hot(self, codes: np.ndarray, n: int) -> sparse.csr_matrix:
        """pairs × ``n``: 1 at each pair's code."""
        from scipy import sparse

        return sparse.csr_matrix((np.ones(len(codes)), (np.arange(len(codes)), codes)),
                                 shape=(len(codes), n))

    def shares(self) -> np.ndarray:
        """``(n_items, n_classes)`` vote shares: the majority-vote proportions."""
        by_label = np.asarray((self.pairs @ self._one_hot(self.pair_label, self.n_classes))
                              .todense())
        totals = by_label.sum(axis=1, keepdims=True)
        if np.any(totals <= 0):
            bad = self.items[totals[:, 0] <= 0].tolist()
            raise ValueError(f"item(s) {_show(bad)} have total annotator weight 0")
        return by_label / totals

    @cached_property
    def _voted(self) -> sparse.csr_matrix:
        """items × annotators: whether the annotator has a vote of positive weight there."""
        by_annot = self.pairs @ self._one_hot(self.pair_annotator, len(self.annotators))
        return (by_annot > 0).tocsr()

    def annotators_per_item(self) -> np.ndarray:
        """Number of annotators with a vote of positive weight on each item."""
        return np.diff(self._voted.indptr)

    def items_per_annotator(self) -> np.ndarray:
        """Number of items on which each annotator has a vote of positive weight."""
        return np.bincount(self._voted.indices, minlength=len(self.annotators))

    def voters_among(self, annotators: np.ndarray) -> np.ndarray:
        """Per item, how many of the ``annotators`` (a bool per annotator) have a vote of
        positive weight on it."""
        return np.asarray(self._voted @ annotators.astype(np.int64)).ravel()

    @cached_property
    def row_starts(self) -> np.ndarray:
        """The first pair of each annotator who gave a label: a confusion row of a
        ``(n_pairs, n_classes)`` table is the run of one column from there to the next
        (:func:`~fuzzytruth._random.row_reduce`)."""
        new = np.ones(len(self.pair_annotator), dtype=bool)
        new[1:] = self.pair_annotator[1:] != self.pair_annotator[:-1]
        return np.flatnonzero(new)

    @cached_property
    def _by_pair(self) -> sparse.csr_matrix:
        """:attr:`pairs` transposed, pairs × items, made once: EM reads it at every M-step,
        and scipy's ``.T`` builds a new matrix object per call (26 µs against 8 µs for the
        product itself at 240 items, 2026-11-28; the same sums in the same order, so the
        same bits)."""
        return self.pairs.T.tocsr()

    def expected_counts(self, posterior: np.ndarray) -> np.ndarray:
        """``(n_pairs, n_classes)``: ``[p, c]`` the posterior weight of class c over the items
        where the pair's annotator said its label."""
        return np.asarray(self._by_pair @ posterior)

    def log_likelihoods(self, log_errors: np.ndarray, log_priors: np.ndarray) -> np.ndarray:
        """Class-major ``(n_classes, n_items)``: log π_c + Σ w log θ_a[c, l] over each
        item's votes (``log_errors``: ``(n_pairs, n_classes)``)."""
        log_lik = np.ascontiguousarray(np.asarray(self.pairs @ log_errors).T)
        log_lik += log_priors[:, None]
        return log_lik

    def confusion_matrices(self, by_pair: np.ndarray) -> np.ndarray:
        """``(n_annotators, K, K)`` matrices ``[a, c, l]`` of a ``(n_pairs, K)`` table: 0 for
        the labels an annotator never gave, NaN rows for an annotator who gave none."""
        n_annot, k = self.used.shape
        out = np.zeros((n_annot, k, k))
        out[~self.used.any(axis=1)] = np.nan
        out[self.pair_annotator, :, self.pair_label] = by_pair
        return out


def normalise_errors(counts: np.ndarray, votes: Votes) -> np.ndarray:
    """Confusion rows from expected counts (or drawn ones), as ``(..., n_pairs, K)`` tables
    (:class:`Votes`; a leading axis of worlds, or none): floored at :data:`EPS`, each row (an
    annotator's labels for one class) normalised to 1."""
    floored = np.maximum(counts, EPS)
    return floored / row_reduce(np.add, floored, votes.row_starts)


def posterior_from(log_lik: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Class-major log-likelihoods ``(n_classes, ...)`` to posteriors (normalised over the
    first axis) and the log normaliser of each column.

    Class-major arrays keep every operation on long contiguous rows: numpy's reductions and
    broadcasts over a short last axis cost several times more on 185,000 items.
    """
    top = log_lik.max(axis=0)
    scaled = np.exp(log_lik - top)
    total = scaled.sum(axis=0)
    scaled /= total
    return scaled, np.log(total) + top


def check_identifiable(votes: Votes, model: str) -> None:
    """A ValueError when no item has votes from two annotators."""
    if not np.any(votes.annotators_per_item() >= 2):
        raise ValueError(
            f"{model} needs items labelled by at least two annotators (of weight above 0): "
            f"here no item is ({votes.pairs.shape[0]} items, {len(votes.annotators)} "
            "annotator(s)), so "
            "nothing tells an annotator's errors from the truth; use the Shares() model"
        )


def check_informative(votes: Votes, model: str) -> None:
    """A ValueError when every annotator with a weighted vote gave a single label, and a
    warning naming the items whose votes all come from such annotators.

    Under Dawid–Skene an annotator who used one label l has θ[c, l] = 1 for every class c
    (its rows normalised over the labels it used), so its votes are no evidence: an item
    voted on only by such annotators gets the class priors as its posterior, and when every
    annotator is one, every item does, whatever the votes say. That is what annotator ids
    that do not persist across items give (a new id per item and vote, 1,200 annotators on
    240 items: the fit's posterior was the same row for every item, without a word).
    """
    labels_used = votes.used.sum(axis=1)
    if not (labels_used >= 2).any():
        active = int(np.count_nonzero(labels_used))
        raise ValueError(
            f"{model} reads no evidence from an annotator who gave a single label (its "
            f"confusion rows are all 1 on that label), and each of the {active} annotators "
            "with a weighted vote here did: every item's posterior would be the class "
            "priors, whatever its votes. Annotator ids that do not persist across items (a "
            "new id per item) give this; use ids that name the same person on every item, or "
            "a model that reads such votes: the shares, one-coin or MACE"
        )
    silent = np.flatnonzero(votes.voters_among(labels_used >= 2) == 0)
    if len(silent):
        warn(
            f"{model} reads no evidence from an annotator who gave a single label (its "
            f"confusion rows are all 1 on that label): {len(silent)} of {len(votes.items)} "
            f"items have votes only from such annotators ({_show(votes.items[silent])}), so "
            "their posterior is the class priors, whatever their votes",
            UserWarning,
        )


def check_settings(model: Any) -> None:
    """Validate the shared EM settings of ``model`` (a frozen dataclass), which then keeps
    the numbers the checks return (a NumPy scalar becomes a float or an int)."""
    for name, value in (("tol", check_number("tol", model.tol)),
                        ("max_iter", check_int("max_iter", model.max_iter, minimum=0)),
                        ("prior", check_number("prior", model.prior))):
        object.__setattr__(model, name, value)
    check_choice("uncertainty", model.uncertainty, UNCERTAINTIES)


FAR_FROM_VOTES = 0.5
"""A fit whose most probable class is one of the annotators' most frequent labels on fewer
than this share of the items warns (:func:`warn_if_far_from_votes`)."""


def warn_if_far_from_votes(name: str, votes: Votes, posterior: np.ndarray) -> None:
    """Warn when the fitted posterior's most probable class is one of the annotators' most
    frequent labels (the shares' modes) on fewer than :data:`FAR_FROM_VOTES` of the items.

    EM raises the likelihood at every step, and a model with many parameters per annotator
    raises it by moving the posteriors away from the votes: Dawid–Skene on 1,000 annotators
    who each labelled 10 of 2,000 items of 100 classes (a confusion entry per class and label
    used: 959,000 entries from 10,000 votes; ``benchmarks/truth_models.py``'s casual
    annotators) went from the majority on every item to about 30 % of them over its
    iterations, where the majority is right on 92 % (the generating truth), so
    every measure scored under it was scored against noise. Where Dawid–Skene disagrees with
    the majority for the reasons it is made for (an annotator known to confuse two classes),
    it does so on a minority of items: 14 % on the bundled image collection."""
    shares = votes.shares()
    top = posterior.argmax(axis=1)
    agree = shares[np.arange(len(top)), top] == shares.max(axis=1)
    if len(agree) and agree.mean() < FAR_FROM_VOTES:
        warn(
            f"{name}'s most probable class is one of the annotators' most frequent labels on "
            f"{agree.mean():.0%} of the {len(agree):,} items only: EM moved the posteriors away "
            "from the votes as it raised the likelihood, which a model with many parameters "
            "per annotator and few votes each does (Dawid-Skene: a confusion entry per class "
            f"and label an annotator used; here {len(votes.pair_label) * votes.n_classes:,} "
            f"entries for {votes.pairs.sum():,.0f} votes). Scores under this truth are scored "
            "against the fit, not the votes; one-coin and MACE estimate one or two numbers "
            "per annotator",
            UserWarning,
        )


def warn_if_not_converged(name: str, convergence: Convergence, max_iter: int) -> None:
    """The NonConvergenceWarning of an EM fit that hit ``max_iter``."""
    if max_iter > 0 and not convergence.converged:
        warn(
            f"{name} did not converge: after {convergence.iterations} iterations the largest "
            f"change of an item's posterior was {convergence.last_change:.3g} > tol="
            f"{convergence.tol:g}; raise max_iter or tol",
            NonConvergenceWarning,
        )


@dataclass(frozen=True)
class DawidSkene:
    """Dawid–Skene's confusion-matrix model, fitted by EM (see the module docstring).

    Parameters
    ----------
    tol : float
        Stop when no item's posterior moves by more than ``tol`` between two E-steps.
    max_iter : int
        At most this many EM iterations (E-step + M-step), as crowd-kit's ``n_iter``; 0
        returns the initialisation (the shares, and the parameters of one M-step from them),
        with :attr:`~fuzzytruth.truth.models.base.FittedTruth.convergence` at 0 iterations, a
        last change of inf, not converged, and no warning (no iteration was asked for). A fit
        that stops at ``max_iter >= 1`` without meeting ``tol`` warns
        (:class:`~fuzzytruth.truth.models.base.NonConvergenceWarning`).
    uncertainty : {"parameters", "posterior"}
        What the worlds draw: parameters from their Dirichlet posterior (default), or the
        fitted posterior only.
    prior : float
        Added to every expected count of the Dirichlet laws of the parameter draws (the
        fitted point estimate does not use it); 0 (default) centres them on the fit.

    Examples
    --------
    crowd-kit's toy example (its test ``test_dawid_skene_step_by_step``): five tasks, five
    workers, answers ``no``/``yes``.

    >>> from fuzzytruth import Annotations, Taxonomy
    >>> rows = [("t1", "w1", "no"), ("t1", "w2", "yes"), ("t1", "w4", "yes"),
    ...         ("t1", "w5", "no"), ("t2", "w1", "yes"), ("t2", "w2", "yes"),
    ...         ("t2", "w3", "yes"), ("t2", "w4", "no"), ("t2", "w5", "no"),
    ...         ("t3", "w1", "yes"), ("t3", "w2", "no"), ("t3", "w3", "no"),
    ...         ("t3", "w4", "yes"), ("t3", "w5", "no"), ("t4", "w1", "yes"),
    ...         ("t4", "w2", "yes"), ("t4", "w3", "yes"), ("t4", "w4", "yes"),
    ...         ("t4", "w5", "yes"), ("t5", "w1", "yes"), ("t5", "w2", "no"),
    ...         ("t5", "w3", "no"), ("t5", "w4", "no"), ("t5", "w5", "no")]
    >>> df = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    >>> ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(["no", "yes"]))
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     fit = DawidSkene(max_iter=1).fit(ann)
    >>> fit.posterior_frame().round(2)
    class      no   yes
    item_id
    t1       0.35  0.65
    t2       0.26  0.74
    t3       0.87  0.13
    t4       0.00  1.00
    t5       0.95  0.05
    >>> DawidSkene().fit(ann).convergence.converged
    True
    """

    tol: float = 1e-6
    max_iter: int = 1000
    uncertainty: Literal["parameters", "posterior"] = "parameters"
    prior: float = 0.0

    name: ClassVar[str] = "dawid-skene"
    _fit_class: ClassVar[type] = None  # type: ignore[assignment]  # set below the fit class

    def __post_init__(self) -> None:
        check_settings(self)

    def fit(self, annotations: Annotations) -> DawidSkeneFit:
        """Fit the model to ``annotations``; see the class docstring for the rules."""
        annotations = as_annotations(annotations, model=self.name)
        votes = Votes.from_annotations(annotations)
        posterior = votes.shares()
        k = votes.n_classes
        if k == 1:
            return self._result(annotations, votes, posterior, np.ones(1),
                                np.ones((len(votes.pair_label), 1)), [],
                                Convergence(0, 0.0, True, self.tol, _CRITERION))
        check_identifiable(votes, self.name)
        self._check_evidence(votes)
        by_class = np.ascontiguousarray(posterior.T)  # class-major during EM
        priors = by_class.mean(axis=1)
        errors = self._m_step(votes, posterior)
        change, history, it = np.inf, [], 0
        for it in range(1, self.max_iter + 1):  # noqa: B007 - the count is the diagnostic
            log_lik = votes.log_likelihoods(np.log(errors), np.log(np.maximum(priors, EPS)))
            new, log_norm = posterior_from(log_lik)
            history.append(float(log_norm.sum()))
            change = float(np.abs(new - by_class).max())
            by_class = new
            priors = by_class.mean(axis=1)
            errors = self._m_step(votes, by_class.T)
            if change <= self.tol:
                break
        posterior = np.ascontiguousarray(by_class.T)
        convergence = Convergence(it if self.max_iter else 0, change, change <= self.tol,
                                  self.tol, _CRITERION)
        warn_if_not_converged(self.name, convergence, self.max_iter)
        warn_if_far_from_votes(self.name, votes, posterior)
        return self._result(annotations, votes, posterior, priors, errors, history, convergence)

    def _check_evidence(self, votes: Votes) -> None:
        """Refuse, or warn of, votes that the model cannot read as evidence
        (:func:`check_informative`: an annotator who gave one label)."""
        check_informative(votes, self.name)

    @staticmethod
    def _m_step(votes: Votes, posterior: np.ndarray) -> np.ndarray:
        """The confusion rows that maximise the expected complete likelihood, as a
        ``(n_pairs, K)`` table (:class:`Votes`)."""
        return normalise_errors(votes.expected_counts(posterior), votes)

    def _result(self, annotations, votes, posterior, priors, errors, history, convergence):
        return self._fit_class.of(self, annotations, votes, posterior, convergence,
                                  priors=priors, errors=votes.confusion_matrices(errors),
                                  history=history)


@dataclass(frozen=True, eq=False, repr=False)
class DawidSkeneFit(FittedTruth):
    """A fitted Dawid–Skene model.

    Attributes
    ----------
    priors : numpy.ndarray
        ``(n_classes,)`` class priors π (the mean posterior).
    errors : numpy.ndarray
        ``(n_annotators, n_classes, n_classes)``: ``errors[a, c, l]`` = P(annotator a says
        l | true class c), in the order of :attr:`annotators` and :attr:`classes`.
    log_likelihood : tuple of float
        Marginal log-likelihood of the votes at each E-step (non-decreasing under EM).
    votes : Votes
        The sparse vote counts the model was fitted on.
    """

    priors: np.ndarray = None  # type: ignore[assignment]
    errors: np.ndarray = None  # type: ignore[assignment]
    log_likelihood: tuple[float, ...] = ()
    votes: Votes = None  # type: ignore[assignment]

    @classmethod
    def of(cls, model: Any, annotations: Any, votes: Votes, posterior: np.ndarray,
           convergence: Convergence, *, priors: np.ndarray, errors: np.ndarray,
           history: list[float], **fields: Any) -> DawidSkeneFit:
        """The fit of ``model`` (a Dawid–Skene model or one fitted from the same votes, such
        as MACE) on ``annotations``; ``fields`` are the subclass's own."""
        return cls(name=model.name, settings=asdict(model), taxonomy=annotations.taxonomy,
                   items=votes.items, classes=votes.classes, posterior=posterior,
                   convergence=convergence, priors=priors, errors=errors,
                   log_likelihood=tuple(history), votes=votes, **fields)

    @property
    def annotators(self) -> pd.Index:
        """Annotator ids, the first axis of :attr:`errors`."""
        return self.votes.annotators

    @property
    def _point_posterior(self) -> bool:  # type: ignore[override]
        return self.settings["uncertainty"] == "posterior" or len(self.classes) == 1

    def errors_frame(self) -> pd.DataFrame:
        """The confusion matrices as a table: index (annotator, true class), columns the
        labels said."""
        n_annot, k, _ = self.errors.shape
        index = pd.MultiIndex.from_product(
            [self.annotators, list(self.classes)], names=["annotator_id", "true_class"]
        )
        return pd.DataFrame(
            self.errors.reshape(n_annot * k, k), index=index,
            columns=pd.Index(list(self.classes), name="label"),
        )

    def reliability(self) -> pd.Series:
        """Each annotator's probability of answering the true class, averaged over the
        classes with the priors: Σ_c π_c θ_a[c, c] (NaN for an annotator whose votes all
        have weight 0: nothing estimates it)."""
        diag = np.diagonal(self.errors, axis1=1, axis2=2)
        return pd.Series(diag @ self.priors, index=self.annotators, name="reliability")

    @cached_property
    def _parameter_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """The keys of the priors' draws and of each ``(pair, class)`` confusion entry's
        (:class:`Votes`), named by annotator, class and label."""
        classes = [repr(c) for c in self.classes]
        annots = [repr(a) for a in self.annotators]
        prior_keys = unit_keys(np.array([f"prior\x1f{c}" for c in classes], dtype=object))
        error_keys = unit_keys(np.array(
            [f"{annots[a]}\x1f{c}\x1f{classes[label]}"
             for a, label in zip(self.votes.pair_annotator.tolist(),
                                 self.votes.pair_label.tolist(), strict=True)
             for c in classes],
            dtype=object,
        )).reshape(len(self.votes.pair_label), len(classes))
        return prior_keys, error_keys

    def _bytes_per_world(self) -> float:
        n, k = self.posterior.shape
        return 8.0 * (4 * n * k + 3 * len(self.votes.pair_label) * k)

    def _plausibility_block(self, seed: int, worlds: np.ndarray) -> np.ndarray:
        if self._point_posterior:
            return super()._plausibility_block(seed, worlds)
        prior_keys = self._parameter_keys[0]
        priors = dirichlet(seed, _PARAMETER_STREAM, prior_keys,
                           self.posterior.sum(axis=0) + self.settings["prior"], worlds)
        errors = self._drawn_errors(seed, worlds)
        return self._world_posteriors(np.log(errors), np.log(np.maximum(priors, EPS)))

    def _drawn_errors(self, seed: int, worlds: np.ndarray) -> np.ndarray:
        """``(n_worlds, n_pairs, n_classes)`` confusion rows (:class:`Votes`) drawn from their
        Dirichlet laws (expected counts + prior, on the labels each annotator used)."""
        concentration = self.votes.expected_counts(self.posterior) + self.settings["prior"]
        errors = dirichlet(seed, _PARAMETER_STREAM, self._parameter_keys[1], concentration,
                           worlds, starts=self.votes.row_starts)
        return normalise_errors(errors, self.votes)

    def _world_posteriors(self, log_errors: np.ndarray, log_priors: np.ndarray) -> np.ndarray:
        """Per world, the item posteriors under that world's parameters (``log_errors``:
        ``(n_worlds, n_pairs, n_classes)``, :class:`Votes`; one sparse product for the whole
        block)."""
        n_worlds, n_pairs, k = log_errors.shape
        table = log_errors.transpose(1, 0, 2).reshape(n_pairs, n_worlds * k)
        log_lik = np.asarray(self.votes.pairs @ table).reshape(-1, n_worlds, k)
        # (class, world, item), laid out so: the softmax's passes then run along the items (in
        # the product's item-major layout its reductions ran over a short inner axis, twice
        # the time on ImageNet ReaL)
        log_lik = np.add(log_lik.transpose(2, 1, 0), log_priors.T[:, :, None], order="C")
        return posterior_from(log_lik)[0].transpose(1, 2, 0)


DawidSkene._fit_class = DawidSkeneFit
