"""Santini §5 on answers with tied ranks: dermatologists' partial rankings, and tables whose
lists repeat a rank (``annotator_ties="best"``, :mod:`fuzzytruth.displacement.ties`).

Oracles: the per-list pure-Python reading of the paper (``oracle`` of test_displacement.py)
on every ordering consistent with the ties, by brute force: the rule must give the smallest
``w`` under the optimist and the exact pessimist and be one of those orderings; answers
without ties give today's numbers bit for bit; the bundled dermatology rankings end to end
(library and command line) against a reading of the selectors file written here.
"""

from __future__ import annotations

import io
import itertools
import json
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import run as cli
from test_displacement import HYPOTHESES, answers, oracle, random_case, runs

from fuzzytruth.datasets import dermatology
from fuzzytruth.displacement import weighted_displacement
from fuzzytruth.displacement.answers import rankings_answers
from fuzzytruth.displacement.frames import column_names
from fuzzytruth.io.rankings import Rankings
from fuzzytruth.runs import Run

SEEDS = st.integers(0, 2**32 - 1)


def tied_case(seed: int):
    """One answer with tie groups (one relevance per group, non-increasing), one run, N."""
    rng = np.random.default_rng(seed)
    pool = [f"i{j}" for j in range(int(rng.integers(2, 9)))]
    m = int(rng.integers(1, min(len(pool), 6) + 1))
    items = list(rng.choice(pool, size=m, replace=False))
    groups, left = [], items
    while left:
        size = int(rng.integers(1, 4))
        groups.append(left[:size])
        left = left[size:]
    relevance = np.sort(np.round(rng.choice([0.0, 0.25, 0.5, 1.0], len(groups)), 2))[::-1]
    run = list(rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False))
    return groups, relevance.tolist(), run, len(pool) + int(rng.integers(0, 5))


def tied_table(groups, relevance) -> pd.DataFrame:
    """The answer as a table: the items of group g share rank 2g + 5 (ranks need not be
    contiguous)."""
    rows = [("q", "a", item, 2 * g + 5, relevance[g]) for g, group in enumerate(groups)
            for item in group]
    return pd.DataFrame(rows, columns=["query_id", "annotator_id", "item_id", "rank",
                                       "relevance"])


@settings(max_examples=150, deadline=None)
@given(SEEDS, st.booleans())
def test_best_reading_is_the_brute_force_minimum_over_consistent_orderings(seed, deeper):
    groups, relevance, run, n_items = tied_case(seed)
    got = weighted_displacement(
        tied_table(groups, relevance), runs({("S", "q"): run}), n_items=n_items,
        annotator_ties="best", use_deeper_ranks=deeper,
    ).to_frame().iloc[0]
    readings = []
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [item for part in parts for item in part]
        rel = [relevance[g] for g, group in enumerate(groups) for _ in group]
        readings.append(oracle(order, rel, run, n_items, deeper))
    for h in ("optimist", "exact_pessimist"):
        assert got[f"w_{h}"] == pytest.approx(min(r[f"w_{h}"] for r in readings), abs=1e-9)
    assert got["w_pessimist"] >= min(r["w_pessimist"] for r in readings) - 1e-9
    # the rule is a reading of the ties, not a bound: one consistent ordering gives every number
    assert any(all(got[key] == pytest.approx(value, abs=1e-9) for key, value in r.items())
               for r in readings)


@settings(max_examples=40, deadline=None)
@given(SEEDS, st.booleans())
def test_untied_answers_give_today_s_numbers_bit_for_bit(seed, deeper):
    ann_lists, run_lists, n_items = random_case(seed)
    table, systems = answers(ann_lists), runs(run_lists)
    today = weighted_displacement(table, systems, n_items=n_items, use_deeper_ranks=deeper)
    best = weighted_displacement(table, systems, n_items=n_items, use_deeper_ranks=deeper,
                                 annotator_ties="best")
    pd.testing.assert_frame_equal(best.to_frame(), today.to_frame(), check_exact=True)


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_a_run_in_any_order_consistent_with_the_ties_is_perfect(seed):
    groups, relevance, _, _ = tied_case(seed)
    rng = np.random.default_rng(seed)
    run = [item for g in groups for item in rng.permutation(g)]
    got = weighted_displacement(tied_table(groups, relevance), runs({("S", "q"): run}),
                                n_items=len(run) + 3, annotator_ties="best").to_frame()
    assert (got[[f"w_{h}" for h in HYPOTHESES]].to_numpy() == 0).all()


def test_sorting_lists_by_relevance_keeps_tie_groups_together():
    """on_unsorted='sort' moves a tie group up the list as a block: the same numbers as the
    list given in that order."""
    table = pd.DataFrame({"query_id": "q", "annotator_id": "a", "item_id": list("abcd"),
                          "rank": [1, 2, 2, 3], "relevance": [0.2, 0.9, 0.9, 0.5]})
    run = runs({("S", "q"): ["c", "x", "b", "a"]})
    with pytest.warns(UserWarning, match="re-ordered by decreasing relevance"):
        got = weighted_displacement(table, run, n_items=6, annotator_ties="best",
                                    on_unsorted="sort").to_frame()
    given_sorted = table.assign(rank=[3, 1, 1, 2])
    expected = weighted_displacement(given_sorted, run, n_items=6, annotator_ties="best")
    pd.testing.assert_frame_equal(got, expected.to_frame())
    # b and c tie at positions 1-2, read c (run position 1), b (3); d at 3 is missing; a at 4
    assert got["w_a"].item() == pytest.approx(0.9 * 0 + 0.9 * 1 + 0.2 * 0)


def test_tie_errors_name_the_list_and_the_option():
    table = tied_table([["a", "b"], ["c"]], [1.0, 0.5])
    run = runs({("S", "q"): ["a"]})
    with pytest.raises(ValueError, match=r"must be unique within each .* annotator_ties='best'"):
        weighted_displacement(table, run, n_items=5)
    mixed = table.assign(relevance=[1.0, 0.9, 0.5])
    with pytest.raises(ValueError, match=r"must be the same for the tied items of a list .* "
                       r"query 'q', annotator 'a' gives rank 5 relevances 1 and 0.9"):
        weighted_displacement(mixed, run, n_items=5, annotator_ties="best")
    with pytest.raises(ValueError, match=r"annotator_ties must be one of \['raise', 'best'\]"):
        weighted_displacement(table, run, n_items=5, annotator_ties="nearest")
    # integer ids in the table were named as numpy reprs: "query np.int64(1), annotator
    # np.int64(7)"
    numbered = table.assign(query_id=1, annotator_id=7)
    with pytest.raises(ValueError, match=r"; query 1, annotator 7 repeats rank 5 "):
        weighted_displacement(numbered, runs({("S", "1"): ["a"]}), n_items=5)
    with pytest.raises(ValueError, match=r"n_items .* is required with a table of answers"):
        weighted_displacement(table, run)
    rankings = Rankings.from_selectors([[[[0, 1], [2]]]], classes=["a", "b", "c"])
    with pytest.raises(ValueError, match="must be unique within each"):
        weighted_displacement(rankings, run, annotator_ties="raise")
    with pytest.raises(ValueError, match="a pandas DataFrame of answers or Rankings; got list"):
        weighted_displacement([1, 2], run, n_items=5)


def test_rankings_are_answers_with_irn_weights_and_shared_ranks():
    rankings = Rankings.from_frame(pd.DataFrame({  # rows in no particular order
        "item_id": ["x", "y", "x", "x", "x", "x"], "reader_id": [1, 0, 0, 0, 1, 0],
        "class": ["c", "a", "b", "a", "a", "c"], "rank_group": [1, 0, 1, 0, 0, 1]}),
        classes=["a", "b", "c"])
    table = rankings_answers(rankings, names=column_names(None))
    key = table.set_index(["query_id", "annotator_id", "item_id"])
    assert key.loc[("x", 0, "a")].tolist() == [1, 1.0]
    assert key.loc[("x", 0, "b")].tolist() == [2, 0.5]
    assert key.loc[("x", 0, "c")].tolist() == [2, 0.5]
    assert key.loc[("x", 1, "c")].tolist() == [2, 0.5]
    assert key.loc[("y", 0, "a")].tolist() == [1, 1.0]


# ---------------------------------------------------------------------- the bundled data
def _selectors_by_hand(case: int) -> list[list[list[int]]]:
    path = resources.files("fuzzytruth.datasets").joinpath("data",
                                                           "dermatology_selectors.json")
    return [r for r in json.loads(path.read_text())[case] if r]


def _by_hand(ranking: list[list[int]], run: list[int], n: int) -> dict[str, float]:
    """One reader's answer against one run, the ties read in the run's order (the rule)."""
    place = {c: k for k, c in enumerate(run, 1)}
    order, rel = [], []
    for g, group in enumerate(ranking):
        placed = sorted((c for c in group if c in place), key=place.get)
        order += placed + [c for c in group if c not in place]
        rel += [1 / (1 + g)] * len(group)
    return oracle(order, rel, run, n, True)


@pytest.fixture(scope="module")
def dermatology_runs():
    """Two systems over the 1,947 cases: a noisy copy of each case's IRN plausibilities, and
    one list for every case (the conditions by how often they are ranked first)."""
    from fuzzytruth.truth.models import IRN

    data = dermatology()
    fit = IRN().fit(data.rankings)
    n_items, n_classes = fit.posterior.shape
    case = np.repeat(np.asarray(fit.items), n_classes)
    ids = np.tile(np.arange(n_classes), n_items)
    noisy = fit.posterior + 0.05 * np.random.default_rng(0).random(fit.posterior.shape)
    popular = np.broadcast_to(fit.posterior.mean(axis=0), fit.posterior.shape)
    return data, {"irn": Run(case, ids, noisy.ravel(), name="irn"),
                  "popular": Run(case, ids, popular.ravel(), name="popular")}


def test_dermatology_rankings_end_to_end(dermatology_runs):
    data, systems = dermatology_runs
    rankings = Rankings.from_selectors(  # class ids as names: the runs name them so
        [[r for r in case if r] for case in json.loads(
            resources.files("fuzzytruth.datasets").joinpath(
                "data", "dermatology_selectors.json").read_text())],
        classes=len(data.conditions))
    result = weighted_displacement(rankings, systems)
    table = result.to_frame()
    assert len(table) == 2 * 9602 and (table["n_items"] == 419).all()
    assert table["m"].max() > 1 and (rankings.frame.groupby(["item_id", "reader_id"])[
        "rank_group"].apply(lambda g: g.duplicated().any())).any()  # the data have ties
    for case in (0, 7, 1234, 1946):
        for name, run in systems.items():
            frame = run.to_dataframe()
            ranked = frame[frame["query_id"] == str(case)].sort_values(
                ["score", "doc_id"], ascending=[False, False], key=None)
            order = ranked["doc_id"].astype(int).tolist()
            for reader, ranking in enumerate(_selectors_by_hand(case)):
                row = table[(table["system"] == name) & (table["query_id"] == case)
                            & (table["annotator_id"] == reader)].iloc[0]
                for key, value in _by_hand(ranking, order, 419).items():
                    assert row[key] == pytest.approx(value, abs=1e-9), (case, name, key)
    by_system = result.by_system().set_index("system")
    assert by_system.loc["irn", "optimist"] > by_system.loc["popular", "optimist"]


def test_dermatology_from_the_command_line(capsys, tmp_path, dermatology_runs):
    """The bundled files as a user has them: selectors with the conditions' names
    (``--classes``) and a runs table, or selector ids and a TREC run."""
    from fuzzytruth.io import write_trec_run

    data, systems = dermatology_runs
    folder = resources.files("fuzzytruth.datasets").joinpath("data")
    with resources.as_file(folder) as path:
        selectors = str(path / "dermatology_selectors.json")
        classes = str(path / "dermatology_conditions.txt")
        frame = systems["irn"].to_dataframe()
        frame = frame[frame["query_id"].astype(int) < 40]
        by_name = pd.DataFrame({
            "system": "irn", "query_id": frame["query_id"],
            "item_id": np.asarray(data.conditions, dtype=object)[frame["doc_id"].astype(int)],
            "score": frame["score"]})
        scores = by_name.assign(rank=by_name.groupby("query_id")["score"].rank(
            ascending=False, method="first")).drop(columns="score")
        scores.to_csv(tmp_path / "runs.csv", index=False)
        write_trec_run(Run.from_dataframe(frame, name="irn"), tmp_path / "irn.txt")
        status, out, err = cli(capsys, "displacement", "--rankings", selectors, "--classes",
                               classes, "--runs", str(tmp_path / "runs.csv"), "--by", "list",
                               "--format", "csv")
        assert status == 0, err
        named = pd.read_csv(io.StringIO(out))
        # without --classes the classes are the ids up to the largest one ranked (418)
        status, out, err = cli(capsys, "displacement", "--rankings", selectors, "--run",
                               str(tmp_path / "irn.txt"), "--n-items", "419", "--by", "list",
                               "--format", "csv")
        assert status == 0, err
        trec = pd.read_csv(io.StringIO(out))
        named, trec = (t[t["query_id"] < 40].reset_index(drop=True) for t in (named, trec))
        status, _, err = cli(capsys, "displacement", "--rankings", selectors, "--answers",
                             str(tmp_path / "runs.csv"), "--run", str(tmp_path / "irn.txt"))
        assert status == 2 and "give one of --answers and --rankings" in err
    named_run = Run(by_name["query_id"].astype(int), by_name["item_id"], by_name["score"],
                    name="irn")
    library = weighted_displacement(data.rankings, named_run).to_frame()
    library = library[library["query_id"].astype(int) < 40].reset_index(drop=True)
    for table in (named, trec):
        assert len(table) == len(library) and (table["n_items"] == 419).all()
        np.testing.assert_allclose(table["w_optimist"], library["w_optimist"], atol=1e-9)
        np.testing.assert_allclose(table["q_pessimist"], library["q_pessimist"], atol=1e-9)
