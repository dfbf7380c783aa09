"""Santini §4 precision/recall distributions against brute force, Monte Carlo and laws."""

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fuzzytruth as ft
from fuzzytruth import Annotations, Membership, Run
from fuzzytruth.datasets import santini_figure1, santini_illustrative, santini_taxonomy

TAX = santini_taxonomy()
EX = santini_illustrative()
MEM = EX.membership
ROOT = Path(__file__).resolve().parents[1]


def enumerate_worlds(p):
    """Every membership outcome of independent items with probabilities p, with its weight."""
    for outcome in itertools.product((0, 1), repeat=len(p)):
        o = np.array(outcome)
        yield o, float(np.prod(np.where(o == 1, p, 1 - p)))


def as_dict(dist):
    return {
        round(v, 12): pr * (1 - dist.p_undefined)
        for v, pr in zip(dist.support, dist.probabilities, strict=True)
    }


def accumulate(pairs):
    out = {}
    for value, weight in pairs:
        out[round(value, 12)] = out.get(round(value, 12), 0.0) + weight
    return {k: v for k, v in out.items() if v > 0}


def assert_same_law(dist, expected, p_undefined=0.0):
    got = as_dict(dist)
    assert set(got) == set(expected)
    for key in expected:
        assert got[key] == pytest.approx(expected[key], abs=1e-12)
    assert dist.p_undefined == pytest.approx(p_undefined, abs=1e-12)


# ---------------------------------------------------------------------- brute force
@pytest.mark.parametrize("category", ["people", "crowd", "city", "scenery"])
def test_precision_matches_enumeration(category):
    results = list(EX.results)
    p = MEM.probabilities(results, category)
    expected = accumulate((o.sum() / len(p), w) for o, w in enumerate_worlds(p))
    assert_same_law(ft.precision_distribution(MEM, results, category=category), expected)


@pytest.mark.parametrize("category", ["people", "group", "countryside"])
def test_exact_recall_matches_enumeration(category):
    # 12 items in all: 5 returned, 6 unreturned, the query left out (exclude_query=True)
    items = [f"img{i:02d}" for i in range(1, 13)]
    mem = MEM.subset(items)
    returned, query = ["img03", "img07", "img11", "img02", "img12"], "img01"
    unreturned = [i for i in items if i not in returned and i != query]
    p_ret, p_un = mem.probabilities(returned, category), mem.probabilities(unreturned, category)
    pairs, undefined = [], 0.0
    for (o_r, w_r), (o_u, w_u) in itertools.product(
        enumerate_worlds(p_ret), enumerate_worlds(p_un)
    ):
        tp, fn = o_r.sum(), o_u.sum()
        if tp + fn == 0:
            undefined += w_r * w_u
        else:
            pairs.append((tp / (tp + fn), w_r * w_u))
    dist = ft.recall_distribution(
        mem, returned, category=category, query=query, recall_form="exact"
    )
    assert_same_law(dist, accumulate(pairs), undefined)


def test_expected_size_recall_by_hand():
    # |people| over the 20 items minus the query img01 (p = 0.6): 11.0 - 0.6 = 10.4 (eq. 9)
    results = list(EX.results)
    dist = ft.recall_distribution(
        MEM, results, category="people", query="img01", recall_form="expected_size"
    )
    precision = ft.precision_distribution(MEM, results, category="people")
    np.testing.assert_allclose(dist.support, precision.support * len(results) / 10.4)
    np.testing.assert_allclose(dist.probabilities, precision.probabilities)
    # keeping the query in |ω|: denominator 11.0
    kept = ft.recall_distribution(
        MEM, results, category="people", query="img01", exclude_query=False,
        recall_form="expected_size",
    )
    assert kept.mean() == pytest.approx(precision.mean() * 10 / 11.0)


# ---------------------------------------------------------------------- mixtures
def test_mixture_over_query_category_direct_weights():
    # img01 (Figure 1): direct shares people 0.4, crowd 0.2, city 0.4
    results = list(EX.results)
    parts = {
        c: ft.precision_distribution(MEM, results, category=c) for c in ("people", "crowd", "city")
    }
    mixed = ft.precision_distribution(MEM, results, query="img01")
    expected = (
        0.4 * parts["people"].mean() + 0.2 * parts["crowd"].mean() + 0.4 * parts["city"].mean()
    )
    assert mixed.mean() == pytest.approx(expected, abs=1e-14)
    weights = ft.query_category_weights(MEM, "img01")
    assert weights.to_dict() == pytest.approx({"people": 0.4, "crowd": 0.2, "city": 0.4})


def test_literal_weights_are_the_papers_normalised():
    # p(ω|fig1) over all nodes: all 1, people .6, scenery .4, crowd .2, city .4 -> sum 2.6
    mem = santini_figure1().membership
    w = ft.query_category_weights(mem, "fig1", weights="literal")
    assert w.to_dict() == pytest.approx(
        {
            "all": 1 / 2.6,
            "people": 0.6 / 2.6,
            "scenery": 0.4 / 2.6,
            "crowd": 0.2 / 2.6,
            "city": 0.4 / 2.6,
        }
    )
    custom = ft.query_category_weights(mem, "fig1", weights={"people": 3, "city": 1})
    assert custom.to_dict() == {"people": 0.75, "city": 0.25}


def test_mixture_errors():
    with pytest.raises(ValueError, match=r"give the target category \(category=...\) or the query"):
        ft.precision_distribution(MEM, ["img02"])
    with pytest.raises(ValueError, match=r"weights must be 'direct', 'literal' or a mapping"):
        ft.precision_distribution(MEM, ["img02"], query="img01", weights="paper")
    closed = Membership.from_probabilities(
        pd.DataFrame({"people": [0.5], "crowd": [0.5]}, index=["x"]), taxonomy=TAX, close=False
    )
    with pytest.raises(ValueError, match="weights='direct' needs the annotators' direct shares"):
        ft.precision_distribution(closed, ["x"], query="x")
    with pytest.raises(ValueError, match="weights given as a mapping must be >= 0"):
        ft.query_category_weights(MEM, "img01", weights={"people": -1})


def test_result_list_errors():
    with pytest.raises(ValueError, match="results must not be empty"):
        ft.precision_distribution(MEM, [], category="people")
    with pytest.raises(ValueError, match=r"results must not repeat an item; repeated: 'img02'"):
        ft.precision_distribution(MEM, ["img02", "img03", "img02"], category="people")
    with pytest.raises(ValueError, match=r"unknown item id\(s\) 'img99'"):
        ft.precision_distribution(MEM, ["img99"], category="people")
    # a string is one id, not a list of its characters ("unknown item id(s) 'i', 'm', ...")
    with pytest.raises(ValueError, match=r"results must be a sequence of item ids; got the "
                       r"string 'img02' \(a list of one item: \['img02'\]\)"):
        ft.recall_distribution(MEM, "img02", category="people")
    with pytest.raises(ValueError, match=r"unknown node 'peeple'.*'people'"):
        ft.precision_distribution(MEM, ["img02"], category="peeple")
    with pytest.raises(ValueError, match=r"recall_form must be one of .*; got 'printed'"):
        ft.recall_distribution(MEM, ["img02"], category="people", recall_form="printed")


def test_empty_category_recall_is_undefined():
    mem = Membership.from_labels({"x": "city", "y": "city"}, taxonomy=TAX)
    assert ft.recall_distribution(mem, ["x"], category="crowd").p_undefined == 1.0
    exact = ft.recall_distribution(mem, ["x"], category="crowd", recall_form="exact")
    assert exact.p_undefined == 1.0 and np.isnan(exact.mean())


# ---------------------------------------------------------------------- Monte Carlo
def test_monte_carlo_over_sampled_annotator_labelings():
    """Draw worlds by giving each item one of its annotators' labels at random (by share):
    item-level membership is then Bernoulli(p(ω|item)), independent across items. The exact
    PMF must match the empirical one within 5 binomial standard errors per value."""
    rng = np.random.default_rng(2024)
    frame = EX.annotations.to_frame()
    labels = frame.pivot(index="item_id", columns="annotator_id", values="label")
    results = list(EX.results)
    below = set(TAX.descendants("people", include_self=True))
    n_worlds = 20000
    picks = rng.integers(0, labels.shape[1], size=(n_worlds, len(results)))
    chosen = labels.loc[results].to_numpy()[np.arange(len(results)), picks]
    precision = np.isin(chosen, list(below)).mean(axis=1)
    exact = ft.precision_distribution(MEM, results, category="people")
    for value, prob in zip(exact.support, exact.probabilities, strict=True):
        empirical = np.mean(np.isclose(precision, value))
        se = np.sqrt(prob * (1 - prob) / n_worlds)
        assert abs(empirical - prob) <= 5 * se + 1e-4
    assert precision.mean() == pytest.approx(exact.mean(), abs=5 * exact.std() / np.sqrt(n_worlds))


# ---------------------------------------------------------------------- curve
def test_curve_matches_truncated_lists():
    results = list(EX.results)
    for form in ("expected_size", "exact"):
        curve = ft.precision_recall_curve(MEM, results, query="img01", recall_form=form)
        for cutoff in (1, 4, 10):
            top = results[:cutoff]
            p = ft.precision_distribution(MEM, top, query="img01")
            r = ft.recall_distribution(MEM, top, query="img01", recall_form=form)
            assert_same_law(curve.precision[cutoff - 1], as_dict(p))
            assert_same_law(curve.recall[cutoff - 1], as_dict(r), r.p_undefined)
    bands = curve.to_frame(confidence_level=0.8)
    assert len(bands) == 20 and set(bands["measure"]) == {"precision", "recall"}
    assert (bands["truth_low"] <= bands["mean"]).all()
    assert (bands["mean"] <= bands["truth_high"]).all()


# ---------------------------------------------------------------------- laws
@st.composite
def collections(draw):
    n_items = draw(st.integers(2, 8))
    unanimous = draw(st.booleans())
    rows = []
    for i in range(n_items):
        k = draw(st.integers(1, 5))
        if unanimous:
            labels = [draw(st.sampled_from(TAX.nodes))] * k
        else:
            labels = draw(st.lists(st.sampled_from(TAX.nodes), min_size=k, max_size=k))
        rows += [(f"i{i}", f"s{a}", lab) for a, lab in enumerate(labels)]
    df = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    n_ret = draw(st.integers(1, n_items))
    return df, [f"i{i}" for i in range(n_ret)], draw(st.sampled_from(TAX.nodes)), unanimous


@given(collections())
@settings(max_examples=60, deadline=None)
def test_distribution_laws(case):
    df, results, category, unanimous = case
    mem = Membership.from_annotations(Annotations.from_frame(df, taxonomy=TAX))
    prec = ft.precision_distribution(mem, results, category=category)
    rec = ft.recall_distribution(mem, results, category=category, recall_form="exact")
    assert prec.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    p = mem.probabilities(results, category)
    assert prec.mean() * len(results) == pytest.approx(p.sum(), abs=1e-10)  # E[k] = sum p_i
    assert 0 <= prec.support.min() and prec.support.max() <= 1
    if unanimous:  # point masses at the crisp values
        truth = p == 1
        assert prec.support.tolist() == [truth.mean()]
        relevant = mem.matrix[:, TAX.index(category)].sum()
        if relevant == 0:
            assert rec.p_undefined == 1.0
        else:
            assert rec.support.tolist() == [truth.sum() / relevant] and rec.p_undefined == 0


@given(collections())
@settings(max_examples=40, deadline=None)
def test_appending_an_item_outside_the_category_never_raises_mean_precision(case):
    df, results, category, _ = case
    extra = pd.DataFrame({"item_id": "zz", "annotator_id": "s0", "label": ["all"]})
    mem = Membership.from_annotations(Annotations.from_frame(pd.concat([df, extra]), taxonomy=TAX))
    if category == "all":
        return  # every item is in the root: p(all | zz) = 1, not 0
    assert mem.probability("zz", category) == 0
    before = ft.precision_distribution(mem, results, category=category).mean()
    after = ft.precision_distribution(mem, [*results, "zz"], category=category).mean()
    assert after <= before + 1e-15


def test_crisp_membership_gives_point_masses_equal_to_counts():
    labels = {f"x{i}": lab for i, lab in enumerate(["crowd", "city", "crowd", "single", "city"])}
    mem = Membership.from_labels(labels, taxonomy=TAX)
    prec = ft.precision_distribution(mem, ["x0", "x1", "x3"], category="people")
    assert prec.method == "point" and prec.mean() == pytest.approx(2 / 3)
    rec = ft.recall_distribution(mem, ["x0", "x1", "x3"], category="people")
    assert rec.support.tolist() == [2 / 3]  # 2 of the 3 people items returned


def test_paper_repro_script_runs_and_reproduces():
    out = subprocess.run(
        [sys.executable, str(ROOT / "paper_repro" / "santini_section4.py")],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "all published values reproduced" in out.stdout
    assert "people             0.6    0.6000" in out.stdout
    assert "crowd              0.2    0.2000" in out.stdout
    assert "CONSTRUCTED" in out.stdout


@pytest.mark.parametrize(("category", "message"), [
    (3, r"query_categories\['zq1'\]: unknown node 3: not in the taxonomy$"),
    ("peeple", r"query_categories\['zq1'\]: unknown node 'peeple': not in the taxonomy "
               r"\(closest known names: 'people'\)$"),
    (["people", "city"], r"query_categories\['zq1'\]: unknown node \['people', 'city'\]: .* "
                         r"\(a query's category is one node of the taxonomy\)$"),
])
def test_query_categories_name_the_query_whose_category_is_unknown(category, message):
    # the error said "unknown node 3: not in the taxonomy" without the parameter or the
    # query; and a key of no evaluated query was not checked at all
    run = Run(["zq1", "zq1"], ["img02", "img03"], [2.0, 1.0])
    with pytest.raises(ValueError, match=message):
        ft.evaluate(run, MEM, "P@2", query_categories={"zq1": category})
    with pytest.raises(ValueError, match=message.replace("zq1", "zq9")):  # not evaluated
        ft.evaluate(run, MEM, "P@2", query_categories={"zq1": "people", "zq9": category})
    with pytest.raises(ValueError, match=r"mapping of query id to category \(a dict; a pandas "
                                         r"Series gives one by .to_dict\(\)\); got Series"):
        ft.evaluate(run, MEM, "P@2", query_categories=pd.Series({"zq1": "people"}))


def test_a_string_where_ids_are_expected_is_one_id_not_its_characters():
    # "unknown item id(s) 'i', 'm', 'g', ..." from a membership, "unknown node 'p'" from a
    # taxonomy: the string was read as the list of its characters
    said = r"items must be a sequence of item ids; got the string 'img01' \(a list of one item: "
    for call in (lambda: MEM.subset("img01"), lambda: MEM.probabilities("img01", "people"),
                 lambda: MEM.item_index("img01")):
        with pytest.raises(ValueError, match=said + r"\['img01'\]\)"):
            call()
    assert MEM.subset(["img01"]).items.tolist() == ["img01"]
    with pytest.raises(ValueError, match=r"nodes must be a sequence of node ids; got the string "
                       r"'people'"):
        TAX.indices("people")
    with pytest.raises(ValueError, match=r"labels must give one label per item \(the crisp "
                       r"case\); item 'y' has \['city', 'crowd'\]: several labels of an item "
                       r"are annotations"):
        Membership.from_labels({"x": "people", "y": ["city", "crowd"]}, taxonomy=TAX)
