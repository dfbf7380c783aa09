"""evaluate() under probabilistic qrels against every world enumerated and scored by trec_eval.

The oracle shares no code with the package: each judged pair is relevant (with its grade) or
not, independently, with its probability; every combination of the uncertain pairs is a
world of crisp qrels, weighted by its probability and scored by pytrec_eval (trec_eval 9.0.8,
through :mod:`tests.trec_eval_peer`). The closed forms (P@k, R@k, RR, Success@k) must give
the enumerated mean to 1e-12, both unconditionally (``undefined="zero"``: an undefined recall
counts 0, as trec_eval scores a query without relevant documents) and given defined
(``"skip"``), with the enumerated probability of being undefined; the measures without one
(AP, nDCG@10, R-prec, bpref) the enumerated mean within five standard errors of the worlds
drawn. The collections are hostile on purpose: probabilities of 0, 1, 1e-300, 1e-15 and
1 - 1e-16, tied scores, judged documents never retrieved, retrieved ones never judged.

A differential fuzz of 1,000 such collections per undefined rule, and 460 with graded
qrels, ``relevance_level`` and ``complete=True``, found two faults (2026-11-25): recall given
defined lost its digits when every relevant document was improbable, and the skip
aggregate's Monte Carlo error counted worlds it did not average (the tests that guard them
are in test_closed_form.py, test_pr_bands.py and test_evaluate.py).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import trec_eval_peer

from fuzzytruth import ProbabilisticQrels, Run, evaluate

#: ours -> trec_eval's name (pytrec_eval's result key is the name with "." as "_")
CLOSED = {"P@5": "P.5", "R@10": "recall.10", "R@3": "recall.3", "RR": "recip_rank",
          "Success@5": "success.5"}
SAMPLED = {"AP": "map", "nDCG@10": "ndcg_cut.10", "Rprec": "Rprec", "Bpref": "bpref"}
#: the families defined in every world (trec_eval's 0 for a query without relevant documents
#: is their value, not an undefined one)
ALWAYS_DEFINED = {"P@5", "RR", "Success@5"}
PROBABILITIES = [0.0, 1.0, 1e-300, 1e-15, 1 - 1e-16, 0.5, 0.999999, None, None, None]
#: a query whose every document is improbable (a label model's posteriors reach 1e-20)
IMPROBABLE = [0.0, 1e-300, 1e-20, 1e-15]
N_WORLDS = 2000


def collection(seed: int) -> tuple[list, list]:
    """Run rows (query, doc, score) and qrels rows (query, doc, probability, grade)."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    graded = rng.random() < 0.4
    for q in [f"q{i}" for i in range(int(rng.integers(1, 4)))]:
        pool = [f"d{i}" for i in range(int(rng.integers(1, 13)))]
        uncertain = 0
        menu = IMPROBABLE if rng.random() < 0.25 else PROBABILITIES
        for doc in pool:
            if rng.random() < 0.3:
                continue
            p = menu[int(rng.integers(len(menu)))]
            p = float(rng.random()) if p is None else p
            if 0 < p < 1 and (uncertain := uncertain + 1) > 8:  # at most 2**8 worlds a query
                p = float(p > 0.5)
            qrels.append((q, doc, p, float(rng.integers(1, 4)) if graded else 1.0))
        tied = rng.random() < 0.5
        for doc in rng.permutation([d for d in pool if rng.random() < 0.75]).tolist():
            run.append((q, doc, float(rng.integers(0, 3)) if tied else float(rng.normal())))
    return run, qrels


def enumerated(run: list, qrels: list, measures: dict) -> dict:
    """{(query, measure): (weights, values, relevant counts)} over every world of each query
    the run answers."""
    out = {}
    for q in dict.fromkeys(row[0] for row in qrels):
        ranked = {d: s for qq, d, s in run if qq == q}
        if not ranked:
            continue
        pairs = [(d, p, g) for qq, d, p, g in qrels if qq == q]
        uncertain = [i for i, (_, p, _) in enumerate(pairs) if 0 < p < 1]
        worlds, weights, n_relevant = {}, [], []
        for outcome in itertools.product((0, 1), repeat=len(uncertain)):
            drawn = dict(zip(uncertain, outcome, strict=True))
            weight, grades = 1.0, {}
            for i, (doc, p, grade) in enumerate(pairs):
                relevant = drawn[i] if i in drawn else p == 1.0
                weight *= (p if relevant else 1 - p) if i in drawn else 1.0
                grades[doc] = int(grade) if relevant else 0
            worlds[f"{q}#{len(weights)}"] = grades
            weights.append(weight)
            n_relevant.append(sum(g > 0 for g in grades.values()))
        scores = trec_eval_peer.evaluate(worlds, dict.fromkeys(worlds, ranked),
                                         set(measures.values()))
        for ours, theirs in measures.items():
            key = theirs.replace(".", "_")
            out[q, ours] = (np.array(weights), np.array([scores[w][key] for w in worlds]),
                            np.array(n_relevant))
    return out


# a query the run answers and the draw did not judge is skipped with trec_eval's warning
@pytest.mark.filterwarnings("ignore:query\\(ies\\) .* are not in the probabilistic qrels")
@pytest.mark.parametrize("seed", range(16))
def test_expected_values_and_undefined_mass_equal_the_enumerated_worlds(seed):
    run_rows, qrels_rows = collection(seed)
    run = Run(*zip(*run_rows, strict=True)) if run_rows else None
    if run is None or not {r[0] for r in run_rows} & {r[0] for r in qrels_rows}:
        pytest.skip("no query both judged and answered in this draw")
    truth = ProbabilisticQrels(*zip(*qrels_rows, strict=True))
    oracle = enumerated(run_rows, qrels_rows, CLOSED | SAMPLED)
    for rule in ("zero", "skip"):
        table = evaluate(run, truth, list(CLOSED | SAMPLED), undefined=rule, n_worlds=N_WORLDS,
                         rng=seed).to_frame()
        assert set(zip(table["query_id"], table["measure"], strict=True)) == set(oracle)
        for row in table.itertuples():
            weights, values, n_relevant = oracle[row.query_id, row.measure]
            undefined = (n_relevant == 0) & (row.measure not in ALWAYS_DEFINED)
            defined = float(weights[~undefined].sum()) if rule == "skip" else 1.0
            if rule == "skip":  # given defined: the defined worlds' weights renormalised
                if not defined:
                    assert np.isnan(row.mean)
                    continue
                weights = np.where(undefined, 0.0, weights) / defined
            mean = float(weights @ values)
            if row.measure in CLOSED:
                assert row.method == "exact"
                assert row.mean == pytest.approx(mean, rel=1e-12, abs=1e-12), row
                assert row.p_undefined == pytest.approx(
                    float(oracle[row.query_id, row.measure][0][undefined].sum()), abs=1e-12)
            elif not (rule == "skip" and np.isnan(row.mean)):  # no defined world drawn
                se = np.sqrt(float(weights @ (values - mean) ** 2) / (N_WORLDS * defined))
                assert abs(row.mean - mean) <= 5 * max(se, row.mc_se) + 1e-12, row
