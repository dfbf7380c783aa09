"""Every public True/False parameter goes through one check (``_validation.check_flag``): a str
such as "no" (whose truth value is True), 0 or 1 is refused naming the parameter, and a NumPy
bool (what ``(x > 0).all()`` gives) is taken as the Python bool it equals."""

from __future__ import annotations

import re
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest

import fuzzytruth as ft
from fuzzytruth.evaluation import evaluate_preferences
from fuzzytruth.evaluation.matrices import image_text_retrieval
from fuzzytruth.metrics.classification import partial_average_overlap
from fuzzytruth.metrics.crossmodal import rank_summary
from fuzzytruth.truth.qrels import ranked_gains
from fuzzytruth.uncertain.cutoffs import cutoff_summaries

matplotlib.use("Agg")

TAXONOMY = ft.Taxonomy.flat(["a", "b"])
TABLE = pd.DataFrame({"a": [0.7, 0.2], "b": [0.3, 0.8]}, index=["x", "y"])
MEMBERSHIP = ft.Membership.from_probabilities(TABLE, taxonomy=TAXONOMY)
ITEM_RUN = ft.Run(["x", "x"], ["x", "y"], [2.0, 1.0])
QRELS = ft.Qrels(["q", "q"], ["a", "b"], [1, 0])
RUN = ft.Run(["q", "q"], ["a", "b"], [2.0, 1.0])


def _plot(name):
    import fuzzytruth.plots as plots

    return getattr(plots, name)


# (what, parameter, call with the flag's value)
CALLS = [
    ("evaluate", "complete", lambda v: ft.evaluate(RUN, QRELS, ["P@1"], complete=v)),
    ("evaluate", "judged_only", lambda v: ft.evaluate(RUN, QRELS, ["P@1"], judged_only=v)),
    ("evaluate", "exclude_query",
     lambda v: ft.evaluate(ITEM_RUN, MEMBERSHIP, ["P@1"], exclude_query=v)),
    ("recall_distribution", "exclude_query",
     lambda v: ft.recall_distribution(MEMBERSHIP, ["x", "y"], category="a", exclude_query=v)),
    ("precision_recall_curve", "exclude_query",
     lambda v: ft.precision_recall_curve(MEMBERSHIP, ["x", "y"], category="a",
                                         exclude_query=v)),
    ("Membership.from_probabilities", "close",
     lambda v: ft.Membership.from_probabilities(TABLE, taxonomy=TAXONOMY, close=v)),
    ("Distribution.probability_greater", "inclusive",
     lambda v: ft.Distribution([0.0, 1.0], [0.5, 0.5]).probability_greater(0.5, inclusive=v)),
    ("Taxonomy.ancestors", "include_self", lambda v: TAXONOMY.ancestors("a", include_self=v)),
    ("Taxonomy.descendants", "include_self",
     lambda v: TAXONOMY.descendants("all", include_self=v)),
    ("Qrels.ranked_gains", "judged",
     lambda v: ranked_gains(RUN, QRELS, judged=v)),
    ("paired_test", "exact",
     lambda v: ft.paired_test([[0.1, 0.2, 0.3], [0.2, 0.2, 0.1]],
                                    method="randomization", exact=v)),
    ("weighted_displacement", "use_deeper_ranks",
     lambda v: ft.weighted_displacement(RUN, QRELS, use_deeper_ranks=v)),
    ("evaluate_preferences", "complete",
     lambda v: evaluate_preferences(RUN, QRELS, complete=v)),
    ("image_text_retrieval", "percent",
     lambda v: image_text_retrieval(np.eye(2), percent=v)),
    ("rank_summary", "percent", lambda v: rank_summary([0, 1], percent=v)),
    ("partial_average_overlap", "normalize",
     lambda v: partial_average_overlap(np.array([0]), np.array([0]), np.array([0]),
                                       np.array([0]), 1, normalize=v)),
    ("plot_system_intervals", "truths", lambda v: _plot("plot_system_intervals")(
        ft.evaluate(RUN, QRELS, ["P@1"]), truths=v)),
    ("plot_annotator_scores", "robust", lambda v: _plot("plot_annotator_scores")(
        pd.DataFrame({"annotator_id": ["a", "b"], "s": [0.1, 0.2], "t": [0.3, 0.4]}),
        "s", "t", robust=v)),
    ("plot_agreement_heatmap", "intervals", lambda v: _plot("plot_agreement_heatmap")(
        pd.DataFrame({"category": ["a"], "measure": ["kappa"], "value": [0.5],
                      "ci_low": [0.4], "ci_high": [0.6]}), intervals=v)),
]


#: refusal only: flags checked before anything else, whose other inputs are costly to build (a
#: cluster, a classifier's predictions, a displacement result), and the P-R bands and their
#: kernel, compiled in 10-15 s in this test's worker (check_flag's handling of numpy bools is
#: the same for every flag; exclude_query's is tested through evaluate)
REFUSAL_ONLY = [
    ("cutoff_summaries", "fill_undefined",
     lambda v: cutoff_summaries(np.array([[0.5]]), np.array([0, 1]), np.array([1.0]),
                                np.zeros((1, 0)), np.array([0]), np.array([0.5]),
                                fill_undefined=v)),
    ("precision_recall_bands", "exclude_query",
     lambda v: ft.precision_recall_bands(ITEM_RUN, MEMBERSHIP, exclude_query=v)),
    ("distributed.evaluate", "repartition",
     lambda v: _distributed_evaluate(None, None, "P@1", repartition=v)),
    ("reliability_curves", "human",
     lambda v: _classify("reliability_curves")(None, None, "Acc", human=v)),
    ("plot_displacement", "label_annotators",
     lambda v: _plot("plot_displacement")(None, label_annotators=v)),
]


def _distributed_evaluate(*args, **kwargs):
    from fuzzytruth.distributed import evaluate

    return evaluate(*args, **kwargs)


def _classify(name):
    import fuzzytruth.classify as classify

    return getattr(classify, name)


#: flags whose default is None (decided from the input)
MAY_BE_NONE = {("paired_test", "exact"), ("image_text_retrieval", "percent"),
               ("plot_agreement_heatmap", "intervals")}


@pytest.mark.parametrize(("what", "name", "call"), CALLS + REFUSAL_ONLY,
                         ids=[f"{c[0]}-{c[1]}" for c in CALLS + REFUSAL_ONLY])
def test_a_flag_that_is_not_a_bool_is_refused_by_name(what, name, call):
    none = (what, name) in MAY_BE_NONE
    allowed = "True, False or None" if none else "True or False"
    for bad in ["no", 1, 0, 1.0, "True", np.int64(1), *([] if none else [None])]:
        with pytest.raises(ValueError, match="^" + re.escape(f"{name} must be {allowed}; "
                                                             f"got {bad!r}") + "$"):
            call(bad)


@pytest.mark.parametrize(("what", "name", "call"), CALLS, ids=[f"{c[0]}-{c[1]}" for c in CALLS])
def test_a_numpy_bool_is_the_python_bool(what, name, call):
    import matplotlib.pyplot as plt

    for flag in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected = call(flag)
            except ValueError as error:  # a combination refused for another reason
                with pytest.raises(ValueError, match=str(error)[:40].replace("(", r"\(")):
                    call(np.bool_(flag))
                continue
            got = call(np.bool_(flag))
        plt.close("all")
        if isinstance(expected, ft.Evaluation):
            expected, got = expected.to_frame(), got.to_frame()
        if isinstance(expected, pd.DataFrame):
            pd.testing.assert_frame_equal(got, expected)
        elif not hasattr(expected, "figure"):  # a figure's axes: drawn is enough
            assert repr(got) == repr(expected)
