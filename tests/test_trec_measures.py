"""The trec_eval-only families against pytrec-eval-terrier 0.5.11 (trec_eval 9.0.8's own code).

Random runs with ties (repeated scores, and float64-distinct scores equal in float32, as
trec_eval reads them) against graded qrels with grades -1..3 (trec_eval reads a negative grade
as "in the pool, not judged"), unjudged retrieved documents, unretrieved relevant ones and
queries without any relevant document. Every comparison runs trec_eval's defaults (relevance
level 1, all documents) first; tuned options (relevance level 2, ``-J``) come on top.
"""

import numpy as np
import pandas as pd
import pytest
import trec_eval_peer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzzytruth.measures import GEOMETRIC_FLOOR, Measure, family, parse_measure
from fuzzytruth.metrics.base import RankedGains, judged_only
from fuzzytruth.runs import Qrels, Run, ranked_gains

RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)  # trec_eval's defaults
RELATIVE_P = (5, 10, 15, 20, 30, 100)
# (fuzzytruth spelling, pytrec_eval key)
PAIRS = [
    ("Bpref", "bpref"),
    ("infAP", "infAP"),
    ("NumQ", "num_q"),
    ("NumRet", "num_ret"),
    ("NumRel", "num_rel"),
    ("NumRelRet", "num_rel_ret"),
    ("SetAP", "set_map"),
    ("NumNonrelJudgedRet", "num_nonrel_judged_ret"),
    ("Utility", "utility"),
    *[(f"RprecMult@{m}", f"Rprec_mult_{m:.2f}") for m in RPREC_MULTS],
    *[(f"RelativeP@{k}", f"relative_P_{k}") for k in RELATIVE_P],
    ("RelativeP", "set_relative_P"),
]
TREC_MEASURES = {"bpref", "infAP", "num_q", "num_ret", "num_rel", "num_rel_ret", "set_map",
                 "num_nonrel_judged_ret", "utility", "gm_bpref",
                 "Rprec_mult", "relative_P", "set_relative_P", "gm_map", "map"}


def random_collection(rng, n_queries=8, n_docs=40, max_grade=3):
    """Run and qrels DataFrames with ties, float32-equal scores, graded and negative labels;
    the last query has no relevant document."""
    run_rows, qrel_rows = [], []
    for q in range(n_queries):
        n_ret = int(rng.integers(1, n_docs))
        docs = rng.choice(n_docs, size=n_ret, replace=False)
        scores = rng.integers(0, 6, size=n_ret).astype(float) / 4  # many exact ties
        nudge = rng.random(n_ret) < 0.3
        scores[nudge] += 1e-9  # distinct in float64, equal in float32
        run_rows += [(f"{100 + q}", f"d{d:03d}", s) for d, s in zip(docs, scores, strict=True)]
        judged = rng.choice(n_docs, size=int(rng.integers(1, n_docs)), replace=False)
        grades = rng.integers(-1, max_grade + 1, size=len(judged))
        grades[0] = max(grades[0], 1)
        if q == n_queries - 1:
            grades = np.minimum(grades, 0)
        qrel_rows += [(f"{100 + q}", f"d{d:03d}", int(g)) for d, g in zip(judged, grades,
                                                                           strict=True)]
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrel_rows, columns=["query_id", "doc_id", "relevance"])
    return run, qrels


def pytrec_values(run_df, qrels_df, measures, **kwargs):
    qrels, run = {}, {}
    for q, d, r in qrels_df.itertuples(index=False):
        qrels.setdefault(q, {})[d] = int(r)
    for q, d, s in run_df.itertuples(index=False):
        run.setdefault(q, {})[d] = float(s)
    return trec_eval_peer.evaluate(qrels, run, measures, **kwargs)


def trec_ranked_gains(run_df, qrels_df, *, judged_docs_only=False):
    """RankedGains under trec_eval's rules: float32 scores, ties by doc id descending."""
    rg = ranked_gains(Run.from_dataframe(run_df), Qrels.from_dataframe(qrels_df),
                      ties="docid_desc", score_dtype="float32", judged=True)
    return judged_only(rg) if judged_docs_only else rg


def per_query(measure, rg, preset="trec"):
    """Per-query values under trec_eval's default rule: an undefined query scores the
    family's undefined value."""
    m = parse_measure(measure).resolve(preset)
    values = m.compute(rg)
    return dict(zip(rg.query_ids, np.where(np.isnan(values), m.family.undefined_value, values),
                    strict=True))


def assert_agree(run_df, qrels_df, pairs, *, rel=1, judged_docs_only=False):
    ref = pytrec_values(run_df, qrels_df, TREC_MEASURES, relevance_level=rel,
                        judged_docs_only_flag=judged_docs_only)
    rg = trec_ranked_gains(run_df, qrels_df, judged_docs_only=judged_docs_only)
    assert set(rg.query_ids) == set(ref)
    for ours, key in pairs:
        base = parse_measure(ours)
        takes_rel = any(p.name == "rel" for p in base.family.params)
        measure = Measure(base.name, **base.params, **({"rel": rel} if takes_rel else {}))
        got = per_query(measure, rg)
        for q in ref:
            assert got[q] == pytest.approx(ref[q][key], abs=1e-12), (ours, key, q)
    # gm_map, gm_bpref: trec_eval's per-query value is log(max(v, 1e-5)); the family's is v,
    # combined geometrically with the same floor
    for ours, key in (("GMAP", "gm_map"), ("GMBpref", "gm_bpref")):
        got = per_query(f"{ours}(rel={rel})", rg)
        assert family(ours).aggregate == "geometric"
        for q in ref:
            assert np.log(max(got[q], GEOMETRIC_FLOOR)) == pytest.approx(ref[q][key], abs=1e-12)
    # utility with other coefficients (pytrec_eval cannot pass them): its contingency table
    # from trec_eval's own counts
    got = per_query(f"Utility(rel={rel},a=2,b=-0.5,c=-1,d=0.25,n_docs=100)", rg)
    for q in ref:
        tp, ret, r = (ref[q][k] for k in ("num_rel_ret", "num_ret", "num_rel"))
        expected = 2 * tp - 0.5 * (ret - tp) - (r - tp) + 0.25 * (100 + tp - ret - r)
        assert got[q] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_defaults_agree_with_pytrec_eval(seed):
    run, qrels = random_collection(np.random.default_rng(seed))
    assert_agree(run, qrels, PAIRS)


@pytest.mark.parametrize("seed", range(3))
def test_relevance_level_2_agrees_with_pytrec_eval(seed):
    run, qrels = random_collection(np.random.default_rng(100 + seed))
    assert_agree(run, qrels, PAIRS, rel=2)


# every measure, old and new, under -J: the RankedGains transformation is trec_eval's rule
J_PAIRS = [*PAIRS, ("AP", "map"), ("P@5", "P_5"), ("nDCG", "ndcg"), ("nDCG@10", "ndcg_cut_10"),
           ("RR", "recip_rank"), ("Rprec", "Rprec"), ("R@10", "recall_10")]


@pytest.mark.parametrize("seed", range(4))
def test_judged_only_agrees_with_pytrec_eval_minus_J(seed):
    run, qrels = random_collection(np.random.default_rng(200 + seed))
    ref = pytrec_values(run, qrels, TREC_MEASURES | {"P.5", "ndcg", "ndcg_cut.10", "recip_rank",
                                                     "Rprec", "recall.10"},
                        judged_docs_only_flag=True)
    rg = trec_ranked_gains(run, qrels, judged_docs_only=True)
    for ours, key in J_PAIRS:
        got = per_query(ours, rg)
        for q in ref:
            assert got[q] == pytest.approx(ref[q][key], abs=1e-12), (ours, key, q)
    assert judged_only(rg).gains.tolist() == rg.gains.tolist()  # idempotent


def test_judged_only_keeps_tie_groups():
    # ranks 1-3 tied, rank 2 unjudged: after -J the tied group holds the two judged documents
    rg = RankedGains(np.array(["q"], dtype=object), np.array([[1.0, 0.0, 0.0, 1.0]]),
                     np.array([4]), np.array([[1.0, 1.0]]),
                     np.array([[0, 0, 0, 3]]), np.array([[3, 3, 3, 4]]),
                     np.array([[True, False, True, True]]), np.array([3]),
                     np.array([[1.0, 1.0, 0.0]]))
    out = judged_only(rg)
    assert out.gains.tolist() == [[1.0, 0.0, 1.0]]
    assert out.tie_start.tolist() == [[0, 0, 2]] and out.tie_stop.tolist() == [[2, 2, 3]]
    # expectation over the two orders of the tied pair: P@1 = 1/2
    assert parse_measure("P@1").resolve("trec").compute(out).tolist() == [0.5]


def test_judged_families_name_the_missing_fields():
    rg = RankedGains.from_lists(["q"], [[1, 0]], [[1]])
    for name in ("Bpref", "infAP", "Judged@5", "RBPResidual"):
        with pytest.raises(ValueError, match=r"ranked_gains\(\.\.\., judged=True\)"):
            parse_measure(name).resolve("trec").compute(rg)
    with pytest.raises(ValueError, match="judged_only needs"):
        judged_only(rg)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_docs=st.integers(2, 25), rel=st.sampled_from([1, 2]))
def test_hypothesis_agreement(seed, n_docs, rel):
    run, qrels = random_collection(np.random.default_rng(seed), n_queries=4, n_docs=n_docs)
    assert_agree(run, qrels, PAIRS, rel=rel)


# ---------------------------------------------------------------------------------------------
# nDCG with gain maps: trec_eval's m_ndcg.c rule, written out per query


def trec_ndcg(ranked_docs, qrels_q, gain_map):
    """trec_eval's ndcg with gains 'level=gain': a judged document (grade >= 0) gains
    gain_map.get(grade, grade); any other document 0; the ideal ranking holds the judged
    documents of positive gain, in decreasing order of gain."""
    def gain(g):
        return gain_map.get(g, g)

    dcg = sum(gain(qrels_q[d]) / np.log2(i + 2)
              for i, d in enumerate(ranked_docs) if d in qrels_q and qrels_q[d] >= 0)
    ideal = sorted((gain(g) for g in qrels_q.values() if g >= 0 and gain(g) > 0), reverse=True)
    best = sum(x / np.log2(i + 2) for i, x in enumerate(ideal))
    return dcg / best if best > 0 else 0.0


def trec_order(run_df):
    """Each query's documents in trec_eval's order: float32 score descending, doc id
    descending among ties."""
    df = run_df.assign(s32=run_df["score"].astype(np.float32))
    df = df.sort_values(["query_id", "s32", "doc_id"], ascending=[True, False, False])
    return df.groupby("query_id")["doc_id"].apply(list).to_dict()


GAIN_MAPS = [{1: -1}, {0: 1}, {0: 2, 1: -1, 2: 5}, {1: 3, 2: 9}, {2: 0}, {0: -1, 3: 1}]


@pytest.mark.parametrize("gain_map", GAIN_MAPS, ids=str)
@pytest.mark.parametrize("seed", range(3))
def test_ndcg_gain_maps_follow_trec_eval(gain_map, seed):
    run, qrels = random_collection(np.random.default_rng(300 + seed))
    rg = trec_ranked_gains(run, qrels)
    measure = Measure("nDCG", gain=gain_map).resolve("trec")
    got = per_query(measure, rg)
    order = trec_order(run)
    for q in rg.query_ids:
        qrels_q = {d: g for _, d, g in qrels[qrels["query_id"] == q].itertuples(index=False)}
        assert got[q] == pytest.approx(trec_ndcg(order[q], qrels_q, gain_map), abs=1e-12)


def test_ndcg_gain_maps_match_compiled_trec_eval():
    # trec_eval 10.0 built from usnistgov/trec_eval (f425365): qrels q 0 {a:3, b:2, c:3, e:1,
    # f:2, g:0}; run a..f ranked 1..6 (d unjudged); `trec_eval -m ndcg.1=-1` prints 0.9013,
    # `-m ndcg.0=1` 0.9152, `-m ndcg` 0.9608; ndcg_rel with the same gains 0.9375, 0.9234,
    # 0.9341; binG 0.8524
    run = pd.DataFrame({"query_id": ["q"] * 6, "doc_id": list("abcdef"),
                        "score": [6.0, 5, 4, 3, 2, 1]})
    qrels = pd.DataFrame({"query_id": ["q"] * 6, "doc_id": list("abcefg"),
                          "relevance": [3, 2, 3, 1, 2, 0]})
    rg = trec_ranked_gains(run, qrels)
    for gain_map, expected, expected_rel in (({1: -1}, 0.9013, 0.9375),
                                             ({0: 1}, 0.9152, 0.9234), (None, 0.9608, 0.9341)):
        params = {} if gain_map is None else {"gain": gain_map}
        value = Measure("nDCG", **params).resolve("trec").compute(rg)[0]
        assert round(float(value), 4) == expected
        value = Measure("nDCGRel", **params).resolve("trec").compute(rg)[0]
        assert round(float(value), 4) == expected_rel
    assert round(float(parse_measure("binG").resolve("trec").compute(rg)[0]), 4) == 0.8524


def test_grade_zero_gain_needs_judged_fields():
    rg = RankedGains.from_lists(["q"], [[1, 0]], [[1, 0]])
    measure = Measure("nDCG", gain={0: 1}).resolve("trec")
    assert measure.uses == {"judged"} and not Measure("nDCG", gain={1: -1}).uses
    with pytest.raises(ValueError, match="judged=True"):
        measure.compute(rg)


# ---------------------------------------------------------------------------------------------
# Judged@k, RBP and its residual, ERR: hand derivations from the defining texts


def judged_at(ranked_docs, qrels_q, k):
    """ir_measures' Judged@k: judged documents in the top k over min(k, retrieved)."""
    top = ranked_docs[:k] if k else ranked_docs
    return sum(d in qrels_q for d in top) / len(top)


def rbp_loop(ranked_docs, qrels_q, p, rel, k, grading="binary", when_judged="tail"):
    """Moffat & Zobel (TOIS 2008) eq. 2 and the residual of their sec. 4; with
    ``grading="graded"`` and ``when_judged="zero"``, trec_eval 10's m_rbp.c and
    m_rbp_resid.c: the gain of a level is the level, scaled to [0, 1] by the query's highest
    judged level when that is above 1; the residual is left at 0 with no unjudged document."""
    top = ranked_docs[:k] if k else ranked_docs
    if grading == "graded":
        highest = max([g for g in qrels_q.values() if g >= 0], default=0)
        gains = [max(qrels_q.get(d, 0), 0) / (highest if highest > 1 else 1) for d in top]
    else:
        gains = [float(qrels_q.get(d, 0) >= rel) for d in top]
    value = sum((1 - p) * p**i * g for i, g in enumerate(gains))
    flags = [qrels_q.get(d, -1) < 0 for d in top]
    unjudged = sum((1 - p) * p**i for i, u in enumerate(flags) if u)
    if when_judged == "zero" and not any(flags):
        return value, 0.0
    return value, p ** len(top) + unjudged


def err_loop(ranked_docs, qrels_q, gmax, k):
    """Chapelle et al. (CIKM 2009) eq. 4: Σ_r (1/r) R_r Π_{i<r}(1 − R_i), R = (2^g−1)/2^gmax."""
    value, reach = 0.0, 1.0
    for r, d in enumerate(ranked_docs[:k] if k else ranked_docs, start=1):
        g = max(qrels_q.get(d, 0), 0)
        stop = (2**g - 1) / 2**gmax
        value += reach * stop / r
        reach *= 1 - stop
    return value


@pytest.mark.parametrize("seed", range(4))
def test_user_models_match_their_papers(seed):
    run, qrels = random_collection(np.random.default_rng(400 + seed))
    rg = trec_ranked_gains(run, qrels)
    order = trec_order(run)
    cases = [("Judged@10", None), ("Judged", None), ("RBP", None), ("RBP(p=0.5,rel=2)@7", None),
             ("RBPResidual", None), ("RBPResidual(p=0.9)@5", None), ("ERR@20", None),
             ("ERR(gmax=3)", None), ("rbp", None), ("rbp_resid", None),
             ("RBP(grading=graded,rel=2)@7", None), ("RBPResidual(when_judged=zero)@3", None)]
    for spelling, _ in cases:
        measure = parse_measure(spelling).resolve("trec")
        got = measure.compute(rg)
        params = measure.params
        for q, value in zip(rg.query_ids, got, strict=True):
            qrels_q = {d: g for _, d, g in qrels[qrels["query_id"] == q].itertuples(index=False)}
            docs = order[q]
            k = params.get("k")
            if measure.name == "Judged":
                expected = judged_at(docs, qrels_q, k)
            elif measure.name == "ERR":
                expected = err_loop(docs, qrels_q, params.get("gmax", 4.0), k)
            else:
                rbp, resid = rbp_loop(docs, qrels_q, params.get("p", 0.8), params.get("rel", 1), k,
                                      params.get("grading", "binary"),
                                      params.get("when_judged", "tail"))
                expected = rbp if measure.name == "RBP" else resid
            assert value == pytest.approx(expected, abs=1e-12), (spelling, q)


def test_judged_and_err_agree_with_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    import shutil

    rng = np.random.default_rng(7)
    run, qrels = random_collection(rng, max_grade=4)
    run["score"] = rng.permutation(len(run)).astype(float)  # ir_measures breaks ties otherwise
    rg = trec_ranked_gains(run, qrels)
    measures = [ir_measures.parse_measure("Judged@10"), ir_measures.parse_measure("Judged@3")]
    if shutil.which("perl"):
        measures.append(ir_measures.parse_measure("ERR@20"))
    ir_run = run.assign(query_id=run["query_id"].astype(str))
    ir_qrels = qrels.assign(relevance=qrels["relevance"].astype(int))
    checked = 0
    for metric in ir_measures.iter_calc(measures, ir_qrels, ir_run):
        got = per_query(str(metric.measure), rg)
        # gdeval prints 5 decimals; Judged is exact
        tol = 1e-5 if str(metric.measure).startswith("ERR") else 1e-12
        assert got[metric.query_id] == pytest.approx(metric.value, abs=tol), str(metric)
        checked += 1
    assert checked >= 2 * (len(rg) - 1)


@settings(max_examples=60, deadline=None)
@given(
    grades=st.lists(st.lists(st.integers(-1, 4), min_size=0, max_size=30), min_size=1,
                    max_size=5),
    p=st.floats(0.05, 0.95),
    k=st.one_of(st.none(), st.integers(1, 40)),
)
def test_laws(grades, p, k):
    # judged: grades -1..4 are in the qrels, grade 0 at random unjudged (not in the qrels)
    judged = [[g != 0 or i % 2 == 0 for i, g in enumerate(row)] for row in grades]
    all_judged = [[g for g, j in zip(row, js, strict=True) if j] + [0, 2] for row, js in
                  zip(grades, judged, strict=True)]
    rg = RankedGains.from_lists(list(range(len(grades))), grades, all_judged, judged)
    cut = {} if k is None else {"k": k}
    value = Measure("RBP", p=p, **cut).resolve("trec").compute(rg)
    resid = Measure("RBPResidual", p=p, **cut).resolve("trec").compute(rg)
    assert np.all(value >= 0) and np.all(resid >= 0) and np.all(value + resid <= 1 + 1e-12)
    # the residual bounds RBP of any completion: unjudged documents made relevant
    filled = [[1 if not (j and g >= 0) else g for g, j in zip(row, js, strict=True)]
              for row, js in zip(grades, judged, strict=True)]
    best = Measure("RBP", p=p, **cut).resolve("trec").compute(
        RankedGains.from_lists(list(range(len(grades))), filled, all_judged))
    assert np.all(best <= value + resid + 1e-12)
    for name in ("ERR", "Bpref", "infAP", "Judged", "SetAP", "RelativeP@5", "RprecMult@1"):
        v = parse_measure(name).resolve("trec").compute(rg)
        v = v[~np.isnan(v)]
        assert np.all((v >= 0) & (v <= 1 + 1e-12)), name


def test_bad_parameters_are_named():
    rg = RankedGains.from_lists(["q"], [[5, 0]], [[5]])
    with pytest.raises(ValueError, match=r"grade 5.0 above gmax=4.0; set the grade scale's "
                                         r"maximum, e.g. ERR\(gmax=...\)"):
        parse_measure("ERR@10").resolve("trec").compute(rg)
    assert parse_measure("ERR(gmax=5)@10").resolve("trec").compute(rg)[0] == pytest.approx(31 / 32)
    with pytest.raises(ValueError, match=r"parameter 'p' of measure 'RBP': must be a number in "
                                         r"\(0, 1\); got '1.5'"):
        parse_measure("RBP(p=1.5)")
    with pytest.raises(ValueError, match=r"measure 'RprecMult' needs '@mult'"):
        parse_measure("RprecMult")
    with pytest.raises(ValueError, match=r"parameter 'n_docs' of measure 'Utility': must be a "
                                         r"non-negative integer"):
        parse_measure("Utility(n_docs=-1)")
