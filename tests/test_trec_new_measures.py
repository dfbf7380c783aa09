"""trec_eval's G, Rndcg, yaap, ndcg_p, 10.0's unj_k, 11pt_avg with levels, the judgment-group
measures, the printed spellings and fractional grades.

Oracles: trec_eval's own expected outputs (tests/data/trec_eval, 9.0.8 and 10.0), pytrec_eval
(trec_eval 9.0.8's C code) where it has the measure, literal loop ports of the ``m_*.c`` rules
for gain maps and the measures pytrec_eval lacks, and values printed by trec_eval 9.0.8 / 10.0
built from the commits named in tests/data/trec_eval/README.md. Every comparison runs the
defaults a user gets (``evaluate(run, qrels, measures)``, the ``trec`` preset).
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from test_trec_measures import per_query, pytrec_values, random_collection, trec_ranked_gains
from trec_eval_files import expected_lines, input_file, printed

from fuzzytruth import Annotations, Membership, ProbabilisticQrels, Taxonomy
from fuzzytruth.evaluation import engine, evaluate, evaluate_per_annotator
from fuzzytruth.io import read_trec_qrels, read_trec_qrels_jg, read_trec_run
from fuzzytruth.measures import Measure, parse_measure
from fuzzytruth.measures.names import alias_table, canonical, expand
from fuzzytruth.measures.trec_output import TREC_TABLE, trec_measures, trec_name, trec_printing
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.runs import Qrels, Run


def trec_file_values(ev, pairs, ref):
    """(printed name, query) -> our value printed as trec_eval prints it, for the lines of
    ``ref``."""
    frame = ev.to_frame()
    agg = ev.aggregate().set_index("measure")["value"]
    out = {}
    for measure, printing in pairs:
        values = frame[frame["measure"] == str(measure)].set_index("query_id")["mean"]
        for q in [*ev.queries, "all"]:
            if (printing.name, q) in ref:
                value = agg[str(measure)] if q == "all" else values[q]
                out[printing.name, q] = printed(value, printing.integer)
    return out


# ---------------------------------------------------------------------------------------------
# trec_eval's own expected outputs


@pytest.mark.parametrize(("output", "qrels", "options"), [
    ("out.test.aq", "qrels.test", {}),
    ("out.test.aql", "qrels.rel_level", {"relevance_level": 2}),
])
def test_all_trec_reproduces_trec_evals_expected_output(output, qrels, options):
    # every line of trec_eval 9.0.8's -m all_trec -q output (G and Rndcg included) but the
    # labels runid and relstring, byte for byte as trec_eval prints the value
    ref = expected_lines(output)
    pairs = trec_measures("all_trec")
    ev = evaluate(read_trec_run(input_file("results.test")), read_trec_qrels(input_file(qrels)),
                  [m for m, _ in pairs], **options)
    ours = trec_file_values(ev, pairs, ref)
    labels = {k for k in ref if k[0] == "runid" or k[0].startswith("relstring")}
    assert set(ours) == set(ref) - labels
    assert ours == {k: v for k, v in ref.items() if k in ours}
    assert {"G", "Rndcg"} <= {name for name, _ in ours}


def test_measure_parameters_reproduce_trec_evals_expected_output():
    # the -m options of trec_eval's Makefile for out.test.meas_params: printed names (with
    # the user's own parameter text) and values, line for line in trec_eval's order
    options = ["iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000",
               "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0", "11pt_avg..25,.5,.75",
               "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20"]
    pairs = sorted((p for o in options for p in trec_measures(o)), key=lambda p: p[1].order)
    ref = expected_lines("out.test.meas_params")
    ev = evaluate(read_trec_run(input_file("results.test")),
                  read_trec_qrels(input_file("qrels.test")), [m for m, _ in pairs])
    ours = trec_file_values(ev, pairs, ref)
    assert ours == ref
    names = list(dict.fromkeys(name for name, _ in ref))
    assert [p.name for _, p in pairs] == names  # trec_eval's order, cutoffs sorted
    assert {"11pt_avg_.25,.5,.75", "ndcg_1=3,2=9,4=4.5", "ndcg_cut_23"} <= set(names)


def test_judgment_groups_reproduce_trec_evals_expected_output():
    # trec_eval -m qrels_jg -q -R qrels_jg qrels.123 results.test: map_avgjg, P_avgjg_k and
    # Rprec_mult_avgjg_m are the base measures averaged over the three judgment groups
    pairs = trec_measures("qrels_jg", judgment_groups=True)
    ref = expected_lines("out.test.qrels_jg")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate_per_annotator(read_trec_run(input_file("results.test")),
                                    read_trec_qrels_jg(input_file("qrels.123")),
                                    [m for m, _ in pairs])
    ours = trec_file_values(ev, pairs, ref)
    assert ours == {k: v for k, v in ref.items() if k[0] != "runid"}
    assert [p.name for _, p in pairs][:3] == ["num_q", "map_avgjg", "P_avgjg_5"]
    # with one group the judgment-group measure is the base measure (trec_eval's rule)
    assert parse_measure("map_avgjg") == parse_measure("map")


def test_unjudged_reproduces_trec_eval_10():
    # trec_eval 10.0 (tests/data/trec_eval/v10/out.test.aq): unj_5, unj_10, unj_20 per query
    ref = expected_lines("v10/out.test.aq")
    pairs = trec_measures("unj")
    assert [p.name for _, p in pairs] == ["unj_5", "unj_10", "unj_20"]
    ev = evaluate(read_trec_run(input_file("results.test")),
                  read_trec_qrels(input_file("qrels.test")), [m for m, _ in pairs],
                  preset="trec10")
    ours = trec_file_values(ev, pairs, ref)
    assert ours == {k: v for k, v in ref.items() if k[0].startswith("unj")}
    assert ours["unj_20", "301"] == "0.1000"


def test_yaap_matches_compiled_trec_eval():
    # trec_eval 9.0.8 built from d95ca64: `trec_eval -q -m yaap qrels.test results.test` prints
    # 301 -3.3350, 302 -0.3246, 303 -1.6975, all -1.7857; with -l2 on qrels.rel_level
    # -2.5614, -0.3246, -1.6156, all -1.5006
    run = read_trec_run(input_file("results.test"))
    for qrels, options, expected in (
        ("qrels.test", {}, ["-3.3350", "-0.3246", "-1.6975", "-1.7857"]),
        ("qrels.rel_level", {"relevance_level": 2}, ["-2.5614", "-0.3246", "-1.6156", "-1.5006"]),
    ):
        ev = evaluate(run, read_trec_qrels(input_file(qrels)), "yaap", **options)
        values = [*ev.to_frame()["mean"], ev.value(run.name, "YAAP")]
        assert [printed(v) for v in values] == expected


def test_gain_maps_match_compiled_trec_eval():
    # trec_eval 9.0.8: qrels q 0 {a:3, b:2, c:3, e:1, f:2, g:0}, run a..f ranked 1..6 (d not
    # judged); `-m G -m Rndcg` print 0.8203 0.8617; with .1=-1: 0.7736 0.8751; .0=1: 0.7520
    # 0.8798; .1=3.5,3=1.5: 0.5193 0.5781; yaap 1.4163; trec_eval 10 unj.1,4,5,10: 0, 0.25,
    # 0.2, 0.1
    run = pd.DataFrame({"query_id": ["q"] * 6, "doc_id": list("abcdef"),
                        "score": [6.0, 5, 4, 3, 2, 1]})
    qrels = pd.DataFrame({"query_id": ["q"] * 6, "doc_id": list("abcefg"),
                          "relevance": [3, 2, 3, 1, 2, 0]})
    rg = trec_ranked_gains(run, qrels)
    cases = [("", 0.8203, 0.8617), (".1=-1", 0.7736, 0.8751), (".0=1", 0.7520, 0.8798),
             (".1=3.5,3=1.5", 0.5193, 0.5781)]
    for gains, g_value, rndcg_value in cases:
        assert round(per_query("G" + gains, rg)["q"], 4) == g_value
        assert round(per_query("Rndcg" + gains, rg)["q"], 4) == rndcg_value
    assert round(per_query("yaap", rg)["q"], 4) == 1.4163
    for k, value in ((1, 0.0), (4, 0.25), (5, 0.2), (10, 0.1)):
        assert per_query(f"unj_{k}", rg)["q"] == pytest.approx(value, abs=1e-15)


# ---------------------------------------------------------------------------------------------
# G and Rndcg against pytrec_eval and the C rules


@pytest.mark.parametrize("rel", [1, 2])
@pytest.mark.parametrize("seed", range(5))
def test_g_and_rndcg_agree_with_pytrec_eval(seed, rel):
    run, qrels = random_collection(np.random.default_rng(700 + seed))
    ref = pytrec_values(run, qrels, {"G", "Rndcg"}, relevance_level=rel)
    # the defaults: evaluate() as a user calls it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(Run.from_dataframe(run), Qrels.from_dataframe(qrels), ["G", "Rndcg"],
                      relevance_level=rel)
    frame = ev.to_frame()
    for ours, key in (("G", "G"), ("Rndcg", "Rndcg")):
        values = frame[frame["measure"] == ours].set_index("query_id")["mean"]
        for q in ref:
            assert values[q] == pytest.approx(ref[q][key], abs=1e-12), (key, q)


def g_loop(gains, ideal):
    """m_G.c: each gain over log2(2 + ideal cost so far − gain so far), over Σ ideal."""
    total, cost, got = 0.0, 0.0, 0.0
    for i, g in enumerate(gains):
        cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        got += g
        if g != 0:
            total += g / np.log2(2 + cost - got)
    return total / sum(ideal) if sum(ideal) > 0 else np.nan


def rndcg_loop(gains, ideal, n_rel):
    """m_Rndcg.c: nDCG where the ideal gain changes, and at the list's end past N + 1."""
    if n_rel == 0:
        return np.nan
    def dcg(values, p):
        return sum(v / np.log2(i + 2) for i, v in enumerate(values[:p]))
    n = len(ideal)
    points = [p for p in range(1, n + 1) if p == n or ideal[p] != ideal[p - 1]]
    values = [dcg(gains, p) / dcg(ideal, p) for p in points]
    if len(gains) > n + 1 and n > 0:
        values.append(dcg(gains, len(gains)) / dcg(ideal, n))
    return np.mean(values) if values else np.nan


GAIN_MAPS = [None, {1: -1}, {0: 1}, {0: 2, 1: -1, 2: 5}, {1: 3, 2: 9}, {2: 0}, {1: 3.5, 3: 1.5}]


@pytest.mark.parametrize("gain_map", GAIN_MAPS, ids=str)
def test_g_and_rndcg_follow_the_c_rules_with_gain_maps(gain_map):
    from test_trec_measures import trec_order

    def gain(level):
        return (gain_map or {}).get(level, level)

    for seed in range(4):
        run, qrels = random_collection(np.random.default_rng(800 + seed))
        rg = trec_ranked_gains(run, qrels)
        order = trec_order(run)
        params = {} if gain_map is None else {"gain": gain_map}
        got_g = Measure("G", **params).resolve("trec").compute(rg)
        got_r = Measure("Rndcg", **params).resolve("trec").compute(rg)
        for q, vg, vr in zip(rg.query_ids, got_g, got_r, strict=True):
            judged = dict(qrels[qrels["query_id"] == q][["doc_id", "relevance"]].values)
            gains = [gain(judged[d]) if judged.get(d, -1) >= 0 else 0.0 for d in order[q]]
            ideal = sorted((gain(g) for g in judged.values() if g >= 0 and gain(g) > 0),
                           reverse=True)
            n_rel = sum(g >= 1 for g in judged.values())
            assert vg == pytest.approx(g_loop(gains, ideal), abs=1e-12, nan_ok=True), q
            assert vr == pytest.approx(rndcg_loop(gains, ideal, n_rel), abs=1e-12, nan_ok=True)


# ---------------------------------------------------------------------------------------------
# yaap, unj, ndcg_p, 11pt with levels: loop ports of the C files


@pytest.mark.parametrize("rel", [1, 2])
def test_yaap_and_unjudged_follow_the_c_rules(rel):
    from test_trec_measures import trec_order

    for seed in range(6):
        run, qrels = random_collection(np.random.default_rng(900 + seed))
        rg = trec_ranked_gains(run, qrels)
        order = trec_order(run)
        yaap = per_query(f"YAAP(rel={rel})", rg)
        for q in rg.query_ids:
            judged = dict(qrels[qrels["query_id"] == q][["doc_id", "relevance"]].values)
            found, total = 0, 0.0
            for i, d in enumerate(order[q]):  # m_yaap.c
                if judged.get(d, -1) >= rel:
                    found += 1
                    total += found / (i + 1)
            n_rel = sum(g >= rel for g in judged.values())
            assert yaap[q] == pytest.approx(np.log((1 + total) / (1 + n_rel - total)), abs=1e-12)
            for k in (1, 5, 20, 100):  # m_unjudged.c: not in the qrels, or graded negative
                unj = sum(judged.get(d, -1) < 0 for d in order[q][:k]) / k
                assert per_query(f"unj_{k}", rg)[q] == pytest.approx(unj, abs=1e-15)


def ndcg_p_loop(gains, ideal, n_rel_ret):
    """m_ndcg_p.c (in trec_eval's sources, not in its build): J&K b = 2 discounts, the ideal's
    log2 cast to float, 0 unless a relevant document was retrieved."""
    dcg = sum(g if i == 0 else g / np.log2(i + 1) for i, g in enumerate(gains) if g != 0)
    best = sum(g if i == 0 else g / float(np.float32(np.log2(i + 1)))
               for i, g in enumerate(ideal))
    return dcg / best if n_rel_ret > 0 else 0.0


def test_ndcg_p_is_jk_ndcg():
    from test_trec_measures import trec_order

    assert canonical("ndcg_p") == "nDCG(discount=jk)"
    assert trec_name("nDCG(discount=jk)") == "ndcg_p"
    for seed in range(6):
        run, qrels = random_collection(np.random.default_rng(1000 + seed))
        rg = trec_ranked_gains(run, qrels)
        order = trec_order(run)
        got = per_query("ndcg_p", rg)
        for q in rg.query_ids:
            judged = dict(qrels[qrels["query_id"] == q][["doc_id", "relevance"]].values)
            gains = [max(judged.get(d, 0), 0) for d in order[q]]
            ideal = sorted((g for g in judged.values() if g > 0), reverse=True)
            n_rel_ret = sum(judged.get(d, 0) >= 1 for d in order[q])
            # the C file's float32 discounts in the ideal: relative differences below 1e-6
            assert got[q] == pytest.approx(ndcg_p_loop(gains, ideal, n_rel_ret), rel=1e-6)


@pytest.mark.parametrize("levels", [(0.25, 0.5, 0.75), (0.0,), (0.1, 1.0), (0.33, 0.66)])
def test_11pt_with_levels_is_the_mean_of_ip(levels):
    for seed in range(4):
        run, qrels = random_collection(np.random.default_rng(1100 + seed))
        rg = trec_ranked_gains(run, qrels)
        spelling = "11pt_avg." + ",".join(str(v) for v in levels)
        got = parse_measure(spelling).resolve("trec").compute(rg)
        each = np.array([parse_measure(f"iP@{v}").resolve("trec").compute(rg) for v in levels])
        np.testing.assert_allclose(got, each.mean(axis=0), rtol=0, atol=1e-15)
    assert str(parse_measure("11pt_avg.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1")) == "11pt"


# ---------------------------------------------------------------------------------------------
# spellings and printing


def test_printed_forms_parse():
    table = {
        "ndcg_1=1.5,2=1.2": "nDCG(gain={1:1.5,2:1.2})",
        "ndcg.1=1.5,2=1.2": "nDCG(gain={1:1.5,2:1.2})",
        "11pt_avg..25,.5,.75": "11pt(levels=[0.25,0.5,0.75])",
        "11pt_avg_.25,.5,.75": "11pt(levels=[0.25,0.5,0.75])",
        "11pt_avg.0.2,0.5,0.8": "11pt(levels=[0.2,0.5,0.8])",
        "G.1=3,2=9": "G(gain={1:3,2:9})", "G_1=3": "G(gain={1:3})", "Rndcg": "Rndcg",
        "Rndcg_0=1": "Rndcg(gain={0:1})", "ndcg_rel_1=2": "nDCGRel(gain={1:2})", "yaap": "YAAP",
        "ndcg_p.2=5": "nDCG(gain={2:5},discount=jk)", "utility_2,-1,0,0": "Utility(a=2)",
        "rbp_p=0.5": "RBP(p=0.5,grading=graded)", "unj_10": "Unjudged@10", "map_avgjg": "AP",
        "P_avgjg_5": "P@5", "Rprec_mult_avgjg_0.20": "RprecMult@0.2", "ndcg_cut_23": "nDCG@23",
        "prefs_avgjg_Rnonrel_ret": "Prefs(kind=avgjg_Rnonrel_ret)", "prefs_simp": "Prefs",
        "prefs_num_prefs_ful_ret": "NumPrefs(kind=ful_ret)",
    }
    for spelling, expected in table.items():
        assert canonical(spelling) == expected, spelling
    # -m lists: cutoffs read as trec_eval reads them (atol), sorted, duplicates refused
    assert [str(m) for m in expand("ndcg_cut.10,20,23.4")] == ["nDCG@10", "nDCG@20", "nDCG@23"]
    assert [str(m) for m in expand("P.5,7,3")] == ["P@3", "P@5", "P@7"]
    with pytest.raises(ValueError, match=r"trec_eval measure 'P': duplicate cutoffs in '5,5'"):
        expand("P.5,5")
    with pytest.raises(ValueError, match=r"cutoffs must be positive .* got '.5'"):
        expand("P..5")
    with pytest.raises(ValueError, match=r"parameter 'levels' of measure '11pt': recall levels "
                                         r"must be distinct"):
        parse_measure("11pt_avg.0.5,0.5")
    with pytest.raises(ValueError, match=r"parameter 'levels' of measure '11pt': must be a "
                                         r"number in \[0, 1\]; got '1.5'"):
        parse_measure("11pt(levels=[0.5,1.5])")
    with pytest.raises(ValueError, match=r"parameter 'k' of measure 'Unjudged'"):
        parse_measure("Unjudged@0")
    with pytest.raises(ValueError, match=r"measure 'Unjudged' needs '@k'"):
        parse_measure("Unjudged")


def test_every_trec_spelling_prints_back_as_itself():
    for spelling, source, _ in alias_table():
        if source != "trec_eval":
            continue
        jg = spelling.startswith(("map_avgjg", "P_avgjg", "Rprec_mult_avgjg"))
        for measure in (parse_measure(spelling), parse_measure(spelling).resolve("trec")):
            assert trec_name(measure, judgment_groups=jg) == spelling, spelling


def test_trec_printing():
    # counts print as integers, num_q has no per-query line, lines follow trec_eval's table
    assert trec_printing("num_rel_ret").integer and trec_printing("prefs_num_prefs_ful").integer
    assert not trec_printing("map").integer and not trec_printing("utility").integer
    assert not trec_printing("num_q").per_query and trec_printing("num_ret").per_query
    ref = expected_lines("out.test.a")
    names = [n for n, _ in ref if n not in ("runid", "relstring")]
    pairs = trec_measures("all_trec")
    assert [p.name for _, p in pairs] == names
    assert [p.order for _, p in pairs] == sorted(p.order for _, p in pairs)
    assert trec_printing("F(beta=2)").name == "set_F_4"  # trec_eval's x is β²
    assert trec_printing("Unjudged@5").order > TREC_TABLE.index("yaap")
    for bad, why in (("nDCG(gain=exp)", "trec_eval's gains are the grades"),
                     ("ERR@20", "trec_eval has no such measure"),
                     ("AP(denominator=retrieved_relevant)", "divides by all relevant"),
                     ("nDCG(gain={1:3})@10", "ndcg_cut takes no gain map"),
                     ("nDCG", "judgment groups")):
        with pytest.raises(ValueError, match=why):
            trec_printing(bad, judgment_groups=bad == "nDCG")


# ---------------------------------------------------------------------------------------------
# fractional grades


def fractional(tmp_path):
    (tmp_path / "qrels").write_text("q 0 a 2.7\nq 0 b 0.5\nq 0 c -0.5\nq 0 d 3.99\nq 0 e 1.9\n")
    (tmp_path / "run").write_text("".join(f"q Q0 {d} 1 {s} r\n" for d, s in
                                          zip("abcde", (5, 4, 3, 2, 1), strict=True)))
    return read_trec_run(tmp_path / "run"), read_trec_qrels(tmp_path / "qrels")


def test_trec_preset_truncates_fractional_grades_as_trec_eval(tmp_path):
    # trec_eval 9.0.8 reads grades with atol: `trec_eval -m ndcg -m ndcg_cut.3 -m map -m num_rel
    # -m num_nonrel_judged_ret` prints 0.7726 0.4200 0.7000 3 2 (b at 0.5 and c at -0.5 are
    # judged non-relevant, grade 0)
    run, qrels = fractional(tmp_path)
    measures = ["ndcg", "ndcg_cut_3", "map", "num_rel", "num_nonrel_judged_ret"]
    ev = evaluate(run, qrels, measures)  # the default preset, trec
    got = [printed(ev.value("r", str(parse_measure(m))), integer=m.startswith("num"))
           for m in measures]
    assert got == ["0.7726", "0.4200", "0.7000", "3", "2"]
    assert evaluate(run, qrels, "ndcg", preset="trec10").value("r", "nDCG") == pytest.approx(
        ev.value("r", "nDCG"))
    # other presets keep the grades: gains 2.7, 0.5, 0, 3.99, 1.9 in nDCG, c unjudged
    textbook = evaluate(run, qrels, ["nDCG", "NumNonrelJudgedRet"], preset="textbook")
    gains = np.array([2.7, 0.5, 0.0, 3.99, 1.9])
    disc = 1 / np.log2(np.arange(2, 7))
    best = np.sort(gains)[::-1] @ disc
    assert textbook.value("r", "nDCG") == pytest.approx(gains @ disc / best, abs=1e-12)
    assert textbook.value("r", "NumNonrelJudgedRet") == 1.0


def test_the_truncation_of_fractional_grades_is_said_where_the_preset_makes_it(tmp_path):
    # the command line said so in a note of its own; evaluate() truncated without a word
    run, qrels = fractional(tmp_path)
    said = (rf"^{tmp_path / 'qrels'}: 5 fractional grade\(s\) read as trec_eval reads them, "
            r"truncated toward zero under preset='trec' \(2\.7 is grade 2\); "
            r"preset='textbook' keeps them as given$")
    with pytest.warns(UserWarning, match=said):
        evaluate(run, qrels, "ndcg")
    probable = ProbabilisticQrels(["q", "q"], ["a", "b"], [0.5, 1.0], grade=[1.0, 0.5])
    with pytest.warns(UserWarning, match=r"^1 fractional grade\(s\) .* preset='trec10' "
                      r"\(0\.5 is grade 0\)"):
        evaluate(run, probable, "AP", preset="trec10", n_worlds=10, rng=0)
    with pytest.warns(UserWarning, match=r"under preset='trec' \(2\.7"):  # not 'trec(rel=2)'
        evaluate(run, qrels, "ndcg", relevance_level=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(run, qrels, "ndcg", preset="textbook")  # kept as given: nothing to say
        evaluate(run, Qrels(["q"], ["a"], [2.0]), "ndcg")  # whole grades


@pytest.mark.parametrize("block", [1, 2, 3, 1 << 16])
def test_fractional_grades_are_counted_and_the_first_named_whatever_the_check_blocks(
    monkeypatch, block
):
    # the grades are checked a block at a time: every block counts, the first one found is
    # named, and blocks without one say nothing
    monkeypatch.setattr(engine, "_CHECK_ROWS", block)
    grades = [1.0, 2.0, 0.25, 3.0, 4.0, -1.5, 7.75, 2.0]
    qrels = Qrels(["q"] * 8, list("abcdefgh"), grades)
    with pytest.warns(UserWarning, match=r"^3 fractional grade\(s\) .* \(0\.25 is grade 0\)"):
        evaluate(Run(["q"], ["a"], [1.0]), qrels, "P@5")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(Run(["q"], ["a"], [1.0]), Qrels(["q"] * 3, list("abc"), [1.0, 0, 2]), "P@5")


@pytest.mark.parametrize("seed", range(4))
def test_fractional_grades_under_the_defaults_equal_trec_eval_on_truncated_grades(seed):
    rng = np.random.default_rng(1200 + seed)
    run, qrels = random_collection(rng)
    qrels = qrels.assign(relevance=qrels["relevance"] + rng.choice([0.0, 0.3, 0.9, -0.6],
                                                                    len(qrels)))
    truncated = qrels.assign(relevance=np.trunc(qrels["relevance"]).astype(int))
    keys = ["map", "ndcg", "ndcg_cut_10", "P_5", "bpref", "infAP", "num_rel",
            "num_nonrel_judged_ret", "recip_rank", "G", "Rndcg"]
    ref = pytrec_values(run, truncated, {"map", "ndcg", "ndcg_cut.10", "P.5", "bpref", "infAP",
                                         "num_rel", "num_nonrel_judged_ret", "recip_rank", "G",
                                         "Rndcg"})
    ev = evaluate(Run.from_dataframe(run), Qrels.from_dataframe(qrels), keys)
    frame = ev.to_frame()
    for key in keys:
        values = frame[frame["measure"] == str(parse_measure(key))].set_index("query_id")["mean"]
        for q in ref:
            assert values[q] == pytest.approx(ref[q][key], abs=1e-12), (key, q)


# ---------------------------------------------------------------------------------------------
# under uncertain truth: the generic worlds path against enumerated worlds


NEW = ["G", "Rndcg", "YAAP", "Unjudged@3", "Prefs", "Prefs(kind=avgjg_Rnonrel_ret)",
       "NumPrefs(kind=ful)"]


def enumerated_means(run, docs, probabilities, measures):
    """Expected value per measure of one query whose documents ``docs`` are relevant (grade
    1) independently with ``probabilities``, every one judged: the crisp evaluation of each
    of the 2^n worlds, weighted."""
    out = dict.fromkeys(measures, 0.0)
    for bits in itertools.product([0, 1], repeat=len(docs)):
        mass = np.prod([p if b else 1 - p for b, p in zip(bits, probabilities, strict=True)])
        if mass == 0:
            continue
        qrels = Qrels(["q"] * len(docs), docs, list(bits))
        ev = evaluate(run, qrels, measures)
        for m in measures:
            out[m] += mass * ev.to_frame().set_index("measure").loc[str(parse_measure(m)),
                                                                     "mean"]
    return out


def test_new_families_under_probabilistic_qrels_and_membership():
    docs = ["a", "b", "c", "d", "e", "f"]
    probabilities = [0.9, 0.2, 0.6, 0.0, 0.5, 1.0]
    # a run with a document the qrels do not know (x); every ranked document is an item of a
    # membership
    run = Run(["q"] * 6, ["b", "x", "a", "c", "f", "e"], [6.0, 5, 4, 3, 2, 1], name="r")
    run_items = Run(["q"] * 6, ["b", "d", "a", "c", "f", "e"], [6.0, 5, 4, 3, 2, 1], name="r")
    pq = ProbabilisticQrels(["q"] * 6, docs, probabilities)
    # categorical truth with the same probabilities: p(target | item) = annotators' share
    tax = Taxonomy.from_nested({"all": {"t": [], "o": []}})
    labels = {"a": "t" * 9 + "o", "b": "tt" + "o" * 8, "c": "t" * 6 + "o" * 4,
              "d": "o" * 10, "e": "t" * 5 + "o" * 5, "f": "t" * 10}
    rows = [(item, f"s{j}", lab) for item, labs in labels.items() for j, lab in enumerate(labs)]
    annotations = Annotations.from_frame(
        pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), taxonomy=tax)
    membership = Membership.from_annotations(annotations)
    for truth, ranked, options in ((pq, run, {}),
                                   (membership, run_items, {"query_categories": {"q": "t"}})):
        expected = enumerated_means(ranked, docs, probabilities, NEW)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = evaluate(ranked, truth, NEW, n_worlds=5000, rng=5, **options)
        frame = ev.to_frame().set_index("measure")
        for m in NEW:
            row = frame.loc[str(parse_measure(m))]
            se = max(row["mc_se"], 1e-12)
            assert abs(row["mean"] - expected[m]) < 4.5 * se, (type(truth).__name__, m)
        # the generic path (crisp kernels on sampled worlds), yaap's 0/1 kernel, unj's point
        assert frame.loc[["G", "Rndcg", "Prefs"], "method"].tolist() == ["worlds"] * 3
        assert frame.loc["YAAP", "method"] == "worlds_binary"
        assert frame.loc["Unjudged@3", "method"] == "exact"
        # the unjudged share does not depend on relevance: a point (x is in pq's top 3)
        assert frame.loc["Unjudged@3", "truth_std"] == 0
    assert expected["Unjudged@3"] == 0 and frame.loc["Unjudged@3", "mean"] == 0


def test_degenerate_uncertain_truth_is_the_crisp_evaluation():
    rng = np.random.default_rng(13)
    run_df, qrels_df = random_collection(rng, n_queries=4, n_docs=20, max_grade=1)
    qrels_df = qrels_df[qrels_df["relevance"] >= 0]
    run = Run.from_dataframe(run_df)
    crisp = evaluate(run, Qrels.from_dataframe(qrels_df), NEW).to_frame()
    pq = ProbabilisticQrels(qrels_df["query_id"], qrels_df["doc_id"],
                            qrels_df["relevance"].astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        uncertain = evaluate(run, pq, NEW, n_worlds=3, rng=1).to_frame()
    np.testing.assert_allclose(uncertain["mean"], crisp["mean"], rtol=0, atol=1e-12)


def test_unjudged_kernel_reads_judged_status():
    rg = RankedGains.from_lists(["q"], [[1, 0]], [[1]])
    with pytest.raises(ValueError, match=r"ranked_gains\(\.\.\., judged=True\)"):
        parse_measure("Unjudged@5").resolve("trec").compute(rg)


def test_rprec_mult_past_the_longs_is_hits_over_the_cutoff():
    # mult * R beyond 2**63: the cutoff cast to int64 wrapped around and Rprec_mult scored 0.0
    # (numpy warned of an invalid cast). Reference: the definition, hits in the list over
    # trunc(mult * R + 0.9), here 2 / 3e19, crisp and under probabilistic qrels (its worlds).
    run = Run(["q"] * 3, ["a", "b", "c"], [3.0, 2.0, 1.0])
    qrels = Qrels(["q"] * 3, ["a", "b", "d"], [2, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        crisp = evaluate(run, qrels, ["Rprec_mult_1e19"]).aggregate()["value"].item()
        certain = ProbabilisticQrels(["q"] * 3, ["a", "b", "d"], [1.0, 1.0, 1.0])
        worlds = evaluate(run, certain, ["Rprec_mult_1e19"], n_worlds=40,
                          rng=0).aggregate()["value"].item()
    assert crisp == pytest.approx(2 / 3e19, rel=1e-12)
    assert worlds == pytest.approx(2 / 3e19, rel=1e-12)
