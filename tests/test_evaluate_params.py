"""Every ranking family over its declared parameters, under probabilistic qrels, against the
oracle: every world of a small collection enumerated and evaluated as crisp qrels.

The parameter variants are built from each family's ``Param`` declarations
(``tests/measure_variants.py``, ``VALUES``: a few values per converter, every value of a
``choices``), so that a family or a parameter added later is covered without editing this
file; a parameter whose converter has no values there fails
``test_every_parameter_has_values``. For each variant, on a collection with
graded and binary relevance, a query with nothing relevant, unjudged retrieved documents,
tied scores, an empty list, short and long lists (a cutoff of 40 passes every list):

* ``method="exact"`` gives the law of every query's value that the 2^9 worlds give, each
  weighed by the product of its pairs' probabilities (the oracle), where the family has a
  closed form that covers the parameters; ``method="auto"`` takes it there, and the worlds
  elsewhere;
* ``method="worlds"`` agrees with the oracle within 5 Monte Carlo standard errors, per query
  and for each system's aggregate;
* a closed form that does not cover the parameters (``NO_CLOSED_FORM``) is refused by
  ``method="exact"``, which names the measure;
* a variant that the crisp evaluation refuses (a ``b`` without the ``jk`` discount, a grade
  above ``ERR``'s ``gmax``...) is refused with the same message under uncertain truth.

A crisp query's value depends on its own judgments and list only, so the oracle evaluates
every world at once: world ``w`` of query ``q`` is the query ``q~w`` of one crisp qrels.
"""

import functools
import itertools
import re
from typing import Any

import numpy as np
import pandas as pd
import pytest
from measure_variants import NO_CLOSED_FORM, VALUES, refused, variants
from registry_families import package_families

from fuzzytruth import ProbabilisticQrels, Qrels, Run, evaluate
from fuzzytruth.measures import Measure
from fuzzytruth.uncertain.worlds import kernel_params

N_WORLDS = 2000
SE_BOUND = 5.0  # Monte Carlo standard errors

# system B's list for q3 is empty by design (scored as an empty list): the warning that says
# so is asserted in tests/test_evaluate.py, not repeated for each of the variants here
pytestmark = pytest.mark.filterwarnings("ignore:1 system\\(s\\) answer only some")

FAMILIES = package_families()


def test_every_parameter_has_values():
    lacking = [f"{name}.{p.name}" for name, fam in FAMILIES.items() for p in fam.params
               if p.choices is None and p.convert not in VALUES]
    assert not lacking, f"give VALUES for the converters of {lacking}"
    assert set(NO_CLOSED_FORM) <= {n for n, f in FAMILIES.items() if f.exact is not None}


# ---------------------------------------------------------------------------------------------
# the collection

#: (query, document, probability, grade): q1 graded with a grade 2.5 (2 under trec's
#: truncation) and a grade 0.5 (judged non-relevant under trec, relevant from rel=0.5
#: textbook), q2 short, q3 nothing relevant, q4 relevant documents that system A never finds
PAIRS = [
    ("q1", "d1", 0.5, 1), ("q1", "d2", 0.3, 2), ("q1", "d3", 1.0, 3), ("q1", "d4", 0.6, 1),
    ("q1", "d5", 0.0, 1), ("q1", "d6", 0.4, 2.5), ("q1", "d7", 0.5, 0.5),
    ("q2", "e1", 0.7, 1), ("q2", "e2", 0.5, 2),
    ("q3", "f1", 0.0, 1), ("q3", "f2", 0.0, 2),
    ("q4", "g1", 0.5, 2), ("q4", "g2", 0.6, 1),
]
#: A: a long list with unjudged documents (u*) and a tie (d2, u1), one document for q2,
#: only unjudged ones for q4; B: short lists, a tie (d6, d4), nothing for q3 (an empty list)
RUNS = {
    "A": [("q1", "d1", 5), ("q1", "u1", 4), ("q1", "d2", 4), ("q1", "d3", 3), ("q1", "d4", 2),
          ("q1", "u2", 1.5), ("q1", "d5", 1), ("q1", "d7", 0.7), ("q1", "u3", 0.5),
          ("q2", "e1", 1), ("q3", "f1", 2), ("q3", "u4", 1), ("q4", "u5", 3), ("q4", "u6", 2)],
    "B": [("q1", "d6", 3), ("q1", "d4", 3), ("q1", "u1", 1), ("q2", "e2", 2), ("q2", "e1", 1),
          ("q4", "g1", 1), ("q4", "g2", 0.5)],
}
QUERIES = ["q1", "q2", "q3", "q4"]
CONFIGS = {  # truth grades, then evaluate()'s options
    "graded-trec": (True, {"preset": "trec"}),
    "binary-trec": (False, {"preset": "trec"}),
    "graded-textbook": (True, {"preset": "textbook", "ties": "docid_desc"}),
    "binary-textbook": (False, {"preset": "textbook", "ties": "docid_desc"}),
    "graded-textbook-average": (True, {"preset": "textbook"}),  # ties averaged: worlds only
}


def _columns(rows: list[tuple]) -> list[list]:
    return [list(c) for c in zip(*rows, strict=True)]


def runs_of(rename=lambda q, w: q, copies: int = 1) -> dict[str, Run]:
    """The systems, each query ``q`` as ``rename(q, w)`` for ``w < copies``."""
    return {name: Run(*_columns([(rename(q, w), d, float(s)) for w in range(copies)
                                 for q, d, s in rows]), name=name)
            for name, rows in RUNS.items()}


def truth_of(graded: bool) -> ProbabilisticQrels:
    q, d, p, g = _columns(PAIRS)
    return ProbabilisticQrels(q, d, p, g if graded else None)


def measures_of(config: str) -> list[Measure]:
    _, options = CONFIGS[config]
    averaged = "ties" not in options and options["preset"] == "textbook"
    return [m for name, fam in FAMILIES.items() if fam.tie_averaged or not averaged
            for m in variants(name, fam)]


@functools.cache
def oracle(config: str) -> dict[str, Any]:
    """Every world of the collection evaluated as crisp qrels with the config's options:
    per measure the values ``(n_worlds, n_systems, n_queries)`` under ``undefined="zero"``,
    where they are undefined, each world's weight, and the measures the crisp evaluation
    refuses (by their message; in the world where every uncertain pair is relevant)."""
    graded, options = CONFIGS[config]
    uncertain = [i for i, pair in enumerate(PAIRS) if 0 < pair[2] < 1]
    worlds = np.array(list(itertools.product([0, 1], repeat=len(uncertain))), dtype=bool)
    p = np.array([PAIRS[i][2] for i in uncertain])
    weight = np.where(worlds, p, 1 - p).prod(axis=1)
    relevant = np.tile([pair[2] == 1 for pair in PAIRS], (len(worlds), 1))
    relevant[:, uncertain] = worlds
    rows = [(f"{q}~{w}", d, (g if graded else 1) if relevant[w, i] else 0)
            for w in range(len(worlds)) for i, (q, d, _, g) in enumerate(PAIRS)]
    qrels = Qrels(*_columns(rows))
    last = runs_of(lambda q, w: f"{q}~{len(worlds) - 1}")
    measures = measures_of(config)
    refusals = refused(measures, lambda ms: evaluate(last, qrels, ms, **options))
    kept = [m for m in measures if str(m) not in refusals]
    ev = evaluate(runs_of(lambda q, w: f"{q}~{w}", len(worlds)), qrels, kept,
                  undefined="skip", **options)
    query, world = zip(*(q.split("~") for q in ev.queries), strict=True)
    at = (np.array(world, dtype=int), np.searchsorted(QUERIES, query))
    values, undefined = {}, {}
    for m in kept:
        means = np.full((len(worlds), len(RUNS), len(QUERIES)), np.nan)
        means[at[0], :, at[1]] = ev.query_means(m).T
        undefined[str(m)] = np.isnan(means)
        values[str(m)] = np.where(undefined[str(m)], m.family.undefined_value, means)
    return {"weight": weight, "measures": kept, "refused": refusals, "values": values,
            "undefined": undefined}


@functools.cache
def closed_form_expected(config: str) -> frozenset[str]:
    """The measures that ``method="auto"`` must take from their closed form: a family with
    one, a strict tie rule, and parameters it covers (``NO_CLOSED_FORM``)."""
    _, options = CONFIGS[config]
    if "ties" not in options and options["preset"] == "textbook":
        return frozenset()
    out = set()
    for m in oracle(config)["measures"]:
        params = kernel_params(m.resolve(options["preset"]))
        if m.family.exact is not None and not NO_CLOSED_FORM.get(m.name, lambda _: False)(params):
            out.add(str(m))
    return frozenset(out)


@functools.cache
def evaluations(config: str) -> dict[str, Any]:
    """The collection under the config's options by each method: ``auto`` (few worlds: which
    path each measure takes), ``exact`` (the measures with a closed form, no worlds) and
    ``worlds``."""
    graded, options = CONFIGS[config]
    runs, truth = runs_of(), truth_of(graded)
    measures = oracle(config)["measures"]
    exact = [m for m in measures if str(m) in closed_form_expected(config)]
    return {
        "auto": evaluate(runs, truth, measures, n_worlds=200, rng=0, **options),
        "exact": exact and evaluate(runs, truth, exact, method="exact", n_worlds=0, **options),
        "worlds": evaluate(runs, truth, measures, method="worlds", n_worlds=N_WORLDS, rng=1,
                           **options),
    }


def frame_of(ev) -> pd.DataFrame:
    """``to_frame()`` indexed by measure, system and query."""
    return ev.to_frame().set_index(["measure", "system", "query_id"])


def aggregate_of(ev) -> pd.DataFrame:
    return ev.aggregate().set_index(["measure", "system"])


def expected_aggregate(config: str, m: Measure) -> np.ndarray:
    """``(n_systems,)`` the expectation over the worlds of each system's aggregate."""
    o = oracle(config)
    per_world = m.family.combine(o["values"][str(m)], axis=2)  # (n_worlds, n_systems)
    return o["weight"] @ per_world


#: graded trec (the default preset) and averaged ties by default; the others under -m slow
PARAMS = pytest.mark.parametrize("config", [
    pytest.param(c, marks=pytest.mark.slow)
    if c in ("binary-trec", "graded-textbook", "binary-textbook") else c
    for c in CONFIGS])


@PARAMS
def test_auto_takes_the_closed_form_where_it_covers_the_parameters(config):
    frame = frame_of(evaluations(config)["auto"])
    methods = frame.groupby(level="measure")["method"].unique()
    expected = closed_form_expected(config)
    for name, used in methods.items():
        want = ["exact"] if name in expected else ["worlds", "worlds_binary"]
        assert set(used) <= set(want), (name, list(used))
    aggregate = aggregate_of(evaluations(config)["auto"])  # exact: mc_se 0
    for m in oracle(config)["measures"]:
        got = aggregate.loc[str(m)]
        gap = np.abs(got["value"].to_numpy() - expected_aggregate(config, m))
        assert (gap <= SE_BOUND * got["mc_se"].to_numpy() + 1e-12).all(), str(m)


@PARAMS
def test_exact_is_the_law_of_the_enumerated_worlds(config):
    ev, o = evaluations(config)["exact"], oracle(config)
    if not ev:
        pytest.skip("ties averaged: no measure has a closed form")
    frame, auto = frame_of(ev), frame_of(evaluations(config)["auto"])
    p_undefined, mean, auto_mean = (frame["p_undefined"].to_dict(), frame["mean"].to_dict(),
                                    auto["mean"].to_dict())
    for m in (m for m in o["measures"] if str(m) in ev.measures):
        name, values = str(m), o["values"][str(m)]
        for s, system in enumerate(RUNS):
            for q, query in enumerate(QUERIES):
                law = ev.distribution(system, query, name)
                atoms: dict[float, float] = {}
                for v, w in zip(values[:, s, q], o["weight"], strict=True):
                    atoms[round(v, 9)] = atoms.get(round(v, 9), 0.0) + w
                where = (name, system, query)
                assert law.p_undefined == 0  # undefined="zero": filled
                got = {round(v, 9): p for v, p in zip(law.support, law.probabilities,
                                                       strict=True) if p > 1e-15}
                assert got.keys() == {v for v, p in atoms.items() if p > 1e-15}, where
                for v, p in got.items():
                    assert p == pytest.approx(atoms[v], abs=1e-12), (*where, v)
                assert p_undefined[where] == pytest.approx(
                    o["weight"] @ o["undefined"][name][:, s, q], abs=1e-12), where
                assert auto_mean[where] == mean[where], where


@PARAMS
def test_worlds_agree_with_the_enumerated_worlds(config):
    ev, o = evaluations(config)["worlds"], oracle(config)
    assert ev.n_worlds == N_WORLDS
    frame, aggregate = frame_of(ev), aggregate_of(ev)
    for m in o["measures"]:
        name = str(m)
        for s, system in enumerate(RUNS):
            for q, query in enumerate(QUERIES):
                where = (name, system, query)
                row = frame.loc[where]
                mean = o["weight"] @ o["values"][name][:, s, q]
                assert abs(row["mean"] - mean) <= SE_BOUND * row["mc_se"] + 1e-9, where
                p = o["weight"] @ o["undefined"][name][:, s, q]
                se = np.sqrt(p * (1 - p) / N_WORLDS)
                assert abs(row["p_undefined"] - p) <= SE_BOUND * se + 1e-9, where
        got = aggregate.loc[name]
        gap = np.abs(got["value"].to_numpy() - expected_aggregate(config, m))
        assert (gap <= SE_BOUND * got["mc_se"].to_numpy() + 1e-9).all(), name


@PARAMS
def test_exact_refuses_and_names_the_measures_without_a_closed_form(config):
    graded, options = CONFIGS[config]
    runs, truth = runs_of(), truth_of(graded)
    measures = oracle(config)["measures"]
    expected = closed_form_expected(config)
    for group in ([m for m in measures if m.family.exact is not None],
                  [m for m in measures if m.family.exact is None]):
        lacking = [str(m) for m in group if str(m) not in expected]
        if not lacking:
            continue
        with pytest.raises(ValueError, match=re.escape(f"no closed form for {lacking} ")):
            evaluate(runs, truth, group, method="exact", n_worlds=0, **options)


@PARAMS
def test_the_uncertain_evaluation_refuses_what_the_crisp_one_refuses(config):
    graded, options = CONFIGS[config]
    runs, truth = runs_of(), truth_of(graded)
    for name, message in oracle(config)["refused"].items():
        with pytest.raises(ValueError, match=re.escape(message)):
            evaluate(runs, truth, name, n_worlds=20, rng=0, **options)
