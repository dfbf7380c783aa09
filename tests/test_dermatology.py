"""The bundled dermatology rankings of Stutz et al. (2023): the file's facts, read back."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

from fuzzytruth.datasets import RISK_LEVELS, dermatology


def test_counts_and_round_trip():
    data = dermatology()
    raw = json.loads(resources.files("fuzzytruth.datasets").joinpath(
        "data/dermatology_selectors.json").read_text())
    assert len(raw) == data.rankings.n_items == 1947
    assert len(data.conditions) == 419 and len(data.risks) == 419
    assert data.rankings.to_selectors() == raw  # unchanged, order within groups kept
    readers = [len(case) for case in raw]
    assert min(readers) == 1 and max(readers) == 10
    assert data.rankings.frame.groupby(["item_id", "reader_id"]).ngroups == sum(readers)
    assert "CC BY 4.0" in data.description and "Stutz" in data.description


def test_risk_taxonomy_has_two_levels():
    data = dermatology()
    tax = data.taxonomy
    assert tax.children(tax.root) == RISK_LEVELS
    assert set(tax.leaves) == set(data.conditions)
    levels = [int(x) for x in resources.files("fuzzytruth.datasets").joinpath(
        "data/dermatology_risks.txt").read_text().split()]
    assert [tax.parents(c)[0] for c in data.conditions] == [RISK_LEVELS[v] for v in levels]


def test_annotations_are_the_top_groups():
    data = dermatology()
    frame = data.annotations.to_frame()
    top = data.rankings.frame[data.rankings.frame["rank_group"] == 0]
    assert len(frame) == len(top)
    # every reader's vote sums to 1 over its top group
    votes = frame.groupby(["item_id", "annotator_id"])["weight"].sum()
    np.testing.assert_allclose(votes.to_numpy(), 1.0)
