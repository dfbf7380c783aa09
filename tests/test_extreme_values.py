"""Every registered measure under extreme values: a ValueError that names the problem, or
numbers that are finite (or NaN where a measure is undefined) -- never an infinity, and never
a NumPy RuntimeWarning (an overflow, a division by zero) standing in for an answer.

Grades, scores and probabilities are drawn from the edges of the doubles: the smallest
subnormal, numbers past float32's range (trec_eval's precision for scores and levels), past
2**53 (where sums of whole gains stop being exact), near the largest double, and ordinary
ones beside them. This sweep found G scoring 0 for grades of 1e17, JS infinite for a share
of 5e-324, and overflow warnings of float32 casts reaching the user."""

import warnings

import numpy as np
import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st
from registry_families import classifier_families, package_families, resolve_default

from fuzzytruth import evaluate
from fuzzytruth.classify.predictions import Predictions
from fuzzytruth.runs import Run
from fuzzytruth.truth.membership import Membership
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels
from fuzzytruth.truth.qrels import Qrels

GRADES = [0.0, 1.0, 2.0, 3.5, -1.0, 5e-324, 1e-300, 1e15, 2.0**53 + 2, 1e17, 1e39, 1e300,
          -1e300]
SCORES = [0.0, -0.0, 1.0, 5e-324, -5e-324, 1e39, -1e39, 1e308, -1e308, 0.5]
PROBABILITIES = [0.0, 5e-324, 1e-300, 0.5, 1 - 1e-16, 1.0]
SHARES = [0.0, 5e-324, 1e-300, 1e-16, 0.25, 0.5, 1.0]
DOCS = list("abcdef")


def ranking_measures():
    return [resolve_default(n, f) for n, f in sorted(package_families().items())]


def classifier_measures():
    return [resolve_default(n, f) for n, f in sorted(classifier_families().items())]


def values_or_refusal(system, truth, measures, **options):
    """The aggregate values of the measures that are not refused: a list refused as a whole
    is split in halves until each refusal names one measure (the refusal of one must not
    hide what the others give); a ValueError is an answer."""
    try:
        return evaluate(system, truth, measures, **options).aggregate()["value"].tolist()
    except ValueError:
        if len(measures) == 1:
            return []
    half = len(measures) // 2
    return (values_or_refusal(system, truth, measures[:half], **options)
            + values_or_refusal(system, truth, measures[half:], **options))


def check_values(values):
    assert not any(np.isinf(v) for v in values), values


@settings(max_examples=8, deadline=None)
@given(grades=st.lists(st.sampled_from(GRADES), min_size=6, max_size=6),
       scores=st.lists(st.sampled_from(SCORES), min_size=6, max_size=6),
       probabilities=st.lists(st.sampled_from(PROBABILITIES), min_size=6, max_size=6))
# what the sweep found (kept: the derandomised profile of CI draws other examples): DCG's
# spread over worlds of gains of 1e300 squared to inf; G of grades of 1e17 scored 0; scores
# past float32's range warned of an overflow in a cast
@example(grades=[1e300, 1, 1, 1, 1, 1], scores=[0.0] * 6, probabilities=[0.5] + [0.0] * 5)
@example(grades=[1e17, 1, 0, 0, 3, 1], scores=[6.0, 5, 4, 3, 2, 1], probabilities=[0.5] * 6)
@example(grades=[1, 0, 2, 0, 1, 0], scores=[1e308, -1e308, 1e39, 0.0, 1.0, 0.5],
         probabilities=[1.0] * 6)
def test_ranking_measures_answer_extreme_values_or_refuse_them(grades, scores, probabilities):
    run = Run(["q"] * 6, DOCS, scores)
    measures = ranking_measures()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        check_values(values_or_refusal(run, Qrels(["q"] * 6, DOCS, grades), measures))
        positive = [abs(g) or 1.0 for g in grades]  # a probabilistic qrels' grades are > 0
        uncertain = ProbabilisticQrels(["q"] * 6, DOCS, probabilities, positive)
        check_values(values_or_refusal(run, uncertain, measures))
        check_values(values_or_refusal(run, uncertain, measures, method="worlds", n_worlds=20,
                                       rng=0))


@settings(max_examples=8, deadline=None)
@given(shares=st.lists(st.sampled_from(SHARES), min_size=3, max_size=3),
       truth=st.lists(st.sampled_from(SHARES), min_size=3, max_size=3))
@example(shares=[5e-324, 1.0, 0.0], truth=[0.0, 1.0, 0.0])  # JS was inf: m underflowed to 0
def test_classifier_measures_answer_extreme_probabilities_or_refuse_them(shares, truth):
    if not sum(shares) or not sum(truth):
        return
    predicted = np.array([shares, shares[::-1]]) / sum(shares)
    target = np.array([truth, truth[1:] + truth[:1]]) / sum(truth)
    system = Predictions(predicted, items=["x", "y"], classes=["u", "v", "w"], name="net")
    membership = Membership.from_probabilities(
        pd.DataFrame(target, index=["x", "y"], columns=["u", "v", "w"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        check_values(values_or_refusal(system, membership, classifier_measures()))


def test_on_ordinary_values_no_measure_is_refused():
    """The sweep takes a ValueError as an answer: it would pass vacuously if a measure were
    refused whatever it is given (a parameter the sweep resolves wrongly, say). On ordinary
    grades, scores, probabilities and shares every swept measure gives a finite value."""
    run = Run(["q"] * 6, DOCS, [6.0, 5, 4, 3, 2, 1])
    qrels = Qrels(["q"] * 6, DOCS, [2, 0, 1, 0, 3, 1])
    uncertain = ProbabilisticQrels(["q"] * 6, DOCS, [0.9, 0.1, 0.5, 0.0, 0.7, 0.3])
    shares = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    system = Predictions(shares, items=["x", "y"], classes=["u", "v", "w"], name="net")
    membership = Membership.from_probabilities(
        pd.DataFrame(shares[::-1], index=["x", "y"], columns=["u", "v", "w"]))
    for system_or_run, truth, measures, options in (
            (run, qrels, ranking_measures(), {}),
            (run, uncertain, ranking_measures(), {}),
            (run, uncertain, ranking_measures(), {"method": "worlds", "n_worlds": 20, "rng": 0}),
            (system, membership, classifier_measures(), {})):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            values = evaluate(system_or_run, truth, measures, **options).aggregate()["value"]
        assert len(values) == len(measures) and np.isfinite(values).all()
