"""Differential and hostile-input fuzzing of the label models (Dawid–Skene, one-coin, MACE,
shares, IRN/PrIRN).

Oracles: crowd-kit 1.4.2's ``DawidSkene`` and ``OneCoinDawidSkene`` on random small collections
(the same start, the vote shares, and a fixed number of iterations with ``tol`` below any
change: the conventions under which the two agree, see ``tests/test_truth_models.py``); laws
that hold exactly (posteriors are distributions; renaming items, annotators and classes and
shuffling rows relabels the fit; a collection given twice, as new items labelled by the same
annotators, has the same EM trajectory: every M-step's normalised counts are the same); the
Dirichlet law of PrIRN's samples. The regressions at the end each failed on the parent commit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Annotations, Taxonomy
from fuzzytruth.truth.models import Mace, NonConvergenceWarning

pytestmark = pytest.mark.filterwarnings("ignore::Warning:crowdkit")


def fit_quietly(model, annotations):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonConvergenceWarning)
        return model.fit(annotations)


def _frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])


# ---------------------------------------------------------------------- regressions: MACE
UNANIMOUS_PLUS_ONE = [(i, who, "abc"[i % 3]) for i in range(6) for who in "xyz"] + [
    (0, "w", "b"), (1, "w", "b"), (2, "w", "c"), (3, "w", "a")]


@pytest.mark.parametrize("settings_", [
    {"method": "vb", "strategy_prior": 1e-300, "max_iter": 0},
    {"method": "vb", "strategy_prior": 1e-300},
])
def test_mace_reads_a_zero_confusion_cell_as_evidence_against_not_for(settings_):
    """Items 1, 2, 4 and 5 are labelled alike by all four annotators: every model must give
    them that label. Under VB with a tiny strategy prior a strategy's cell is exp ψ(1e-300) = 0,
    so θ[c, l] = p ξ[l] = 0 for every class c but the label l, and the E-step's safe log read
    log 0 as log 1: the four votes for c on item 2 counted *for* a and b (posterior 0.4, 0.4,
    0.2 at max_iter=0; to convergence item 4 stayed at 0.976). Floored at 1e-10, as
    Dawid–Skene's cells and MACE's own worlds are, the votes rule the other classes out."""
    ann = Annotations.from_frame(_frame(UNANIMOUS_PLUS_ONE), taxonomy=Taxonomy.flat(list("abc")))
    fit = fit_quietly(Mace(**settings_), ann)
    assert np.all(np.isfinite(fit.posterior))
    np.testing.assert_allclose(fit.posterior.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    most = fit.most_probable()
    assert most.loc[[1, 2, 4, 5]].tolist() == ["b", "c", "b", "c"]
    assert (fit.posterior[[1, 2, 4, 5]].max(axis=1) > 0.999999).all()


def test_mace_smoothing_must_be_positive():
    """With ``smoothing=0`` the first M-step of annotators who all agree normalised a strategy
    of 0 expected spammed votes: 0/0, NaN strategies behind a numpy RuntimeWarning, confusion
    cells of NaN read as log 1, and the posterior of 18 votes that all agree was uniform,
    (1/3, 1/3, 1/3) for every item at max_iter=0. Refused, as the other priors' 0 is."""
    with pytest.raises(ValueError) as caught:
        Mace(smoothing=0.0)
    assert str(caught.value) == "smoothing must be None or a finite number > 0; got 0.0"
    rows = [(i, who, "abc"[i % 3]) for i in range(6) for who in "xyz"]
    ann = Annotations.from_frame(_frame(rows), taxonomy=Taxonomy.flat(list("abc")))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning either
        fit = Mace(smoothing=1e-300, max_iter=0).fit(ann)
    assert fit.most_probable().tolist() == ["abc"[i % 3] for i in range(6)]
    assert (fit.posterior.max(axis=1) > 1 - 1e-9).all()


# ---------------------------------------------------------------------- regressions: PrIRN
SELECTORS = [[[[0], [1, 2]], [[2]]], [[[1]]]]


@pytest.mark.parametrize(("temperature", "alpha"), [(1e-3, 1e-3), (1e-5, 1e-3), (0.01, 1e-3)])
def test_prirn_with_small_concentrations_and_alpha_draws_dirichlet_vertices(temperature, alpha):
    """Every concentration T · IRN + α below about 0.01: each sample is nearly a vertex of the
    simplex, vertex j with probability concentration_j / total (the posterior). With α > 0 the
    sparse sampler compared the Gamma draws as doubles: when every ranked draw of an item was
    below the smallest double (half the draws at a shape of 0.001), the unranked maximum was
    pinned just above 0, the row's total was a subnormal whose inverse is infinite, and the
    row was NaN and inf: 2.9 % of the rows at T = α = 0.001, 5.8 % at T = 1e-5 (and the
    top-1 class went to an unranked class 29 % of the time where 24 % is the law). Such items
    are now drawn whole in logs."""
    from fuzzytruth.io.rankings import Rankings
    from fuzzytruth.truth.models import PrIRN

    fit = PrIRN(temperature=temperature, alpha=alpha).fit(
        Rankings.from_selectors(SELECTORS, classes=["a", "b", "c", "d"]))
    n = 4000
    with np.errstate(invalid="raise", divide="raise"):  # no 0/0
        samples = fit.sample_plausibilities(n, seed=11)
        top = fit.sample_top1(n, seed=11)
    assert np.isfinite(samples).all() and (samples >= 0).all()
    np.testing.assert_allclose(samples.sum(axis=2), 1.0, rtol=0, atol=1e-12)
    columns = fit.taxonomy.indices(fit.classes)
    assert np.array_equal(top, columns[samples.argmax(axis=2)])
    share = (samples.argmax(axis=2)[:, :, None] == np.arange(4)).mean(axis=0)
    p = fit.posterior  # the vertex probabilities at T, α -> 0: the shapes' proportions
    assert np.all(np.abs(share - p) <= 5 * np.sqrt(p * (1 - p) / n) + 0.01)
    # keyed: the same worlds in any blocks
    blocks = [b for _, b in fit.plausibility_blocks(np.arange(5), seed=11, memory_budget=1.0)]
    assert np.array_equal(np.concatenate(blocks), samples[:5])


@pytest.mark.parametrize(("setting", "value", "message"), [
    ("alpha", 5e-324, "alpha must be 0 or a finite number >= 1e-300"),
    ("alpha", 1e-310, "alpha must be 0 or a finite number >= 1e-300"),
    ("temperature", 1e-310, "temperature must be a finite number >= 1e-300"),
])
def test_prirn_refuses_subnormal_temperature_and_alpha(setting, value, message):
    """A subnormal α made SciPy's inverse incomplete gamma NaN, the bound of the unranked
    draws NaN, and sample_plausibilities loop for ever (alpha=1e-310, one world); a subnormal
    temperature with α = 0 made every log Gamma draw of an item -inf, and sample_top1 raised
    IndexError (index 4 out of bounds for a size of 4)."""
    from fuzzytruth.truth.models import PrIRN

    with pytest.raises(ValueError) as caught:
        PrIRN(**{setting: value})
    assert str(caught.value).startswith(message)
    assert str(caught.value).endswith(f"; got {value!r}")


@pytest.mark.parametrize(("temperature", "alpha"), [(1e-300, 0.0), (1e-300, 1e-300),
                                                    (1.7e308, 0.0), (1e307, 1e307)])
def test_prirn_at_the_extremes_it_takes_gives_distributions(temperature, alpha):
    from fuzzytruth.io.rankings import Rankings
    from fuzzytruth.truth.models import PrIRN

    fit = PrIRN(temperature=temperature, alpha=alpha).fit(
        Rankings.from_selectors(SELECTORS, classes=["a", "b", "c", "d"]))
    np.testing.assert_allclose(fit.posterior.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    samples = fit.sample_plausibilities(200, seed=3)
    assert np.isfinite(samples).all()
    np.testing.assert_allclose(samples.sum(axis=2), 1.0, rtol=0, atol=1e-12)
    columns = fit.taxonomy.indices(fit.classes)
    assert np.array_equal(fit.sample_top1(200, seed=3), columns[samples.argmax(axis=2)])


def test_prirn_refuses_a_total_concentration_past_the_doubles():
    """T · IRN + α summed over the classes overflowed: a posterior of 0 and NaN, behind
    overflow and invalid-value RuntimeWarnings, at temperature = alpha = 1e308."""
    from fuzzytruth.io.rankings import Rankings
    from fuzzytruth.truth.models import PrIRN

    rankings = Rankings.from_selectors(SELECTORS, classes=["a", "b", "c", "d"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError) as caught:
            PrIRN(temperature=1e308, alpha=1e308).fit(rankings)
    assert str(caught.value) == (
        "temperature + n_classes * alpha must be a finite double (the total concentration of "
        "each case's Dirichlet); got temperature=1e+308, alpha=1e+308 with 4 classes")
