"""Bad input to the statistics gets a ValueError naming the parameter and what was received."""

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Annotations, Membership, Run, Taxonomy
from fuzzytruth._validation import MAX_RESAMPLES, check_n_resamples
from fuzzytruth.collection import agreement
from fuzzytruth.stats import (
    annotator_bootstrap,
    compare,
    paired_bootstrap,
    paired_inference,
    paired_test,
    randomized_tukey_hsd,
)
from fuzzytruth.stats.procedures import UnreliableInferenceWarning

TAX = Taxonomy.from_nested({"all": {"rel": None, "non": None}})


@pytest.fixture(scope="module")
def labelled():
    labels = pd.DataFrame({
        "item_id": [f"d{k}" for k in range(4) for _ in range(3)],
        "annotator_id": ["a", "b", "c"] * 4,
        "label": ["rel", "rel", "non", "non", "non", "rel", "rel", "rel", "rel",
                  "non", "rel", "non"],
    })
    ann = Annotations.from_frame(labels, taxonomy=TAX)
    docs = [f"d{k}" for k in range(4)]
    runs = {name: Run(np.repeat(["d0", "d1"], 4), np.tile(order, 2),
                      np.tile(np.arange(4.0, 0, -1), 2), name=name)
            for name, order in (("A", docs), ("B", docs[::-1]))}
    return runs, ann


@pytest.mark.parametrize("measures", [[], (), iter([])])
def test_annotator_bootstrap_refuses_no_measures(labelled, measures):
    runs, ann = labelled
    # used to be an IndexError from the first measure's scores
    with pytest.raises(ValueError, match="measures must name at least one measure"):
        annotator_bootstrap(runs, ann, measures, n_resamples=5, rng=0)


def test_annotator_bootstrap_refuses_a_membership_and_says_what_to_pass(labelled):
    runs, ann = labelled
    membership = Membership.from_annotations(ann)
    # used to be an AttributeError ('Membership' object has no attribute 'codes')
    with pytest.raises(ValueError, match=r"annotations must be a fuzzytruth.Annotations.*got "
                                         r"Membership \(a Membership holds the shares"):
        annotator_bootstrap(runs, membership, "P@1", n_resamples=5, rng=0)
    with pytest.raises(ValueError, match=r"annotations must be .*; got DataFrame$"):
        annotator_bootstrap(runs, pd.DataFrame(), "P@1", n_resamples=5, rng=0)


def test_annotator_bootstrap_runs_with_a_measure_list(labelled):
    # the defaults a user gets: the checks above let good input through
    runs, ann = labelled
    with pytest.warns(UnreliableInferenceWarning, match="only 3 annotators shared"):
        pop = annotator_bootstrap(runs, ann, ["P@1"], n_resamples=5, n_worlds=20, rng=0)
    assert list(pop.replicates) == ["P@1"] and pop.replicates["P@1"].shape == (5, 2)
    assert pop.annotators == "shared"  # the same three annotators label every item


RESAMPLING_ENTRY_POINTS = {
    "paired_bootstrap": lambda x, n, _: paired_bootstrap(x, n_resamples=n, rng=0),
    "paired_test": lambda x, n, _: paired_test(x, method="randomization", n_resamples=n, rng=0),
    "paired_inference": lambda x, n, _: paired_inference(x, method="bootstrap", n_resamples=n,
                                                         rng=0),
    "compare": lambda x, n, _: compare({"AP": x}, n_resamples=n, rng=0),
    "randomized_tukey_hsd": lambda x, n, _: randomized_tukey_hsd(x, n_resamples=n, rng=0),
    "annotator_bootstrap": lambda _, n, data: annotator_bootstrap(*data, "P@1", n_resamples=n,
                                                                 n_worlds=20, rng=0),
    "agreement": lambda _, n, data: agreement(data[1], n_resamples=n, rng=0),
}


@pytest.mark.parametrize("name", list(RESAMPLING_ENTRY_POINTS))
def test_a_typo_sized_n_resamples_is_refused_before_anything_is_drawn(labelled, name):
    """10**12 resamples ran in bounded memory for weeks (about 3.5 s per 10**6 for one
    paired bootstrap of 25 queries); every entry point now refuses more than MAX_RESAMPLES
    (10**8) at once, naming the parameter, the range and the value."""
    x = np.random.default_rng(0).random((3, 30))
    message = (r"^n_resamples must be an integer from \d to 100000000 \(10\*\*8, MAX_RESAMPLES: "
               r"the Monte Carlo error of a p-value is then below 5e-5\); got 1000000000000$")
    with pytest.raises(ValueError, match=message):
        RESAMPLING_ENTRY_POINTS[name](x, 10**12, labelled)
    assert check_n_resamples(MAX_RESAMPLES) == MAX_RESAMPLES
    with pytest.raises(ValueError, match=r"got 100000001$"):
        check_n_resamples(MAX_RESAMPLES + 1)
