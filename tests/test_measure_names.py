"""trec_eval and ir_measures spellings: each name translates, and computes what the tool computes.

The oracle for a trec_eval name is pytrec-eval-terrier (trec_eval 9.0.8) run with that name
under its defaults; for an ir_measures name, ir_measures itself (its pytrec_eval, judged and
gdeval providers). Every spelling of trec_eval's ``official`` and ``all_trec`` output is
checked, and every measure name of ir_measures' registry either translates or is refused with
the closest known spellings.
"""

import re

import numpy as np
import pandas as pd
import pytest
from test_trec_measures import per_query, pytrec_values, random_collection, trec_ranked_gains

from fuzzytruth.evaluation import evaluate
from fuzzytruth.measure_names import (
    CLASSIFIER_ALIASES,
    TREC_OFFICIAL,
    alias_table,
    canonical,
    expand,
)
from fuzzytruth.measures import GEOMETRIC_FLOOR, parse_measure, parse_measures
from fuzzytruth.runs import Run
from fuzzytruth.truth.qrels import Qrels

# trec_eval measures with no family here (reported as unknown names)
TREC_NOT_IMPLEMENTED = {"runid", "relstring"}


def test_official_is_trec_evals_default_output():
    keys = next(iter(pytrec_values(*random_collection(np.random.default_rng(0)), {"official"})
                .values()))
    assert TREC_OFFICIAL == [k for k in keys if k != "runid"]
    assert [str(m) for m in expand("official")][:9] == [
        "NumQ", "NumRet", "NumRel", "NumRelRet", "AP", "GMAP", "Rprec", "Bpref", "RR"]


@pytest.mark.parametrize("seed", range(3))
def test_every_all_trec_spelling_computes_trec_evals_value(seed):
    run, qrels = random_collection(np.random.default_rng(500 + seed))
    ref = pytrec_values(run, qrels, {"all_trec"})
    rg = trec_ranked_gains(run, qrels)
    keys = set(next(iter(ref.values())))
    assert {str(m) for m in expand("all_trec")} == {canonical(k) for k in keys
                                                    if k not in TREC_NOT_IMPLEMENTED}
    for key in sorted(keys - TREC_NOT_IMPLEMENTED):
        got = per_query(key, rg)
        for q in ref:
            expected = ref[q][key]
            if key in ("gm_map", "gm_bpref"):  # trec_eval's per-query value: log(max(v, 1e-5))
                expected = np.exp(expected)
                got[q] = max(got[q], GEOMETRIC_FLOOR)
            assert got[q] == pytest.approx(expected, abs=1e-12), (key, q)


@pytest.mark.parametrize("name", sorted(TREC_NOT_IMPLEMENTED))
def test_trec_names_without_a_family_are_refused_with_suggestions(name):
    with pytest.raises(ValueError, match=rf"unknown measure '{name}'"):
        parse_measure(name)


def test_trec_spellings():
    table = {
        "map": "AP", "map_cut_10": "AP@10", "map_cut.5": "AP@5", "P_10": "P@10", "P.5": "P@5",
        "recall_100": "R@100", "recip_rank": "RR", "Rprec": "Rprec", "ndcg_cut_10": "nDCG@10",
        "ndcg": "nDCG", "ndcg.1=3,2=9": "nDCG(gain={1:3,2:9})", "ndcg.0=1": "nDCG(gain={0:1})",
        "bpref": "Bpref", "gm_map": "GMAP", "set_F": "F", "set_F.4": "F(beta=2)",
        "set_F_0.25": "F(beta=0.5)", "set_P": "P", "set_recall": "R", "set_map": "SetAP",
        "num_rel_ret": "NumRelRet", "iprec_at_recall_0.10": "iP@0.1", "11pt_avg": "11pt",
        "success_5": "Success@5", "Rprec_mult_0.20": "RprecMult@0.2",
        "relative_P_10": "RelativeP@10", "set_relative_P": "RelativeP",
        "rbp": "RBP(p=0.9,grading=graded)", "rbp.p=0.5": "RBP(p=0.5,grading=graded)",
        "rbp_resid": "RBPResidual(p=0.9,when_judged=zero)", "infAP": "infAP",
        "gm_bpref": "GMBpref", "utility": "Utility",
        "utility.2,-0.5,-1,0": "Utility(a=2,b=-0.5,c=-1)",
        "num_nonrel_judged_ret": "NumNonrelJudgedRet",
    }
    for spelling, expected in table.items():
        assert canonical(spelling) == expected, spelling
    assert [str(m) for m in parse_measures(["P.5,10", "map", "official"])][:3] == [
        "P@5", "P@10", "AP"]
    assert next(str(m) for m in expand("ndcg_cut", trec_groups=True)) == "nDCG@5"
    assert str(parse_measure("P")) == "P"  # canonical set precision, not trec_eval's -m P
    with pytest.raises(ValueError, match=r"default cutoffs; name one cutoff \(e.g. recall_10\)"):
        parse_measure("recall")
    with pytest.raises(ValueError, match=r"'official' is a group of measures; use expand"):
        parse_measure("official")


@pytest.mark.parametrize(("spelling", "message"), [
    # set_F.x and SetF(beta=x) take x = β²: a negative x was math.sqrt's "math domain error"
    ("set_F.-1", r"parameter 'beta' of measure 'F': trec_eval's set_F.x takes x = beta "
                 r"squared, a positive number; got '-1'"),
    ("set_F_1e", r"parameter 'beta' .*set_F.x .*; got '1e'"),
    ("SetF(beta=-1)", r"parameter 'beta' of measure 'F': ir_measures' SetF\(beta=x\) takes x "
                      r"= beta squared, a positive number; got '-1'"),
    ("SetF(beta=abc)", r"parameter 'beta' .*SetF\(beta=x\) .*; got 'abc'"),
    # the rest were float()'s "could not convert string to float"
    ("11pt_avg...5", r"cannot read the parameters '..5' of trec_eval measure '11pt_avg'"),
    ("utility.1e,0,0,0", r"cannot read the parameters '1e,0,0,0' of trec_eval measure 'utility'"),
    ("rbp.p=1.2.3", r"cannot read the parameters '1.2.3' of trec_eval measure 'rbp'"),
    ("ndcg.a=3", r"cannot read the parameters 'a=3' of trec_eval measure 'ndcg': expected "
                 r"level=gain pairs of numbers"),
    ("nDCG(gain={1:x})", r"expected 'grade:gain' items, both numbers, in '\{1:x\}'; got '1:x'"),
])
def test_unreadable_parameters_name_the_measure(spelling, message):
    with pytest.raises(ValueError, match=message):
        parse_measure(spelling)


# ir_measures' registry (0.4.3): names it accepts, and what they mean here
IR_TRANSLATED = {
    "AP": "AP", "AP@10": "AP@10", "MAP": "AP", "P@5": "P@5", "P(rel=2)@5": "P(rel=2)@5",
    "Precision@5": "P@5", "R@100": "R@100", "Recall@100": "R@100", "RR": "RR", "MRR": "RR",
    "RR(rel=2)": "RR(rel=2)", "nDCG": "nDCG", "nDCG@10": "nDCG@10", "NDCG@10": "nDCG@10",
    "nDCG(dcg='exp-log2')@10": "nDCG(gain=exp)@10", "nDCG(gains={0:1,1:4})": "nDCG(gain={0:1,1:4})",
    "nDCG(cutoff=10)": "nDCG@10", "Rprec": "Rprec", "RPrec": "Rprec", "Success@5": "Success@5",
    "SetP": "P", "SetR": "R", "SetF": "F", "SetF(beta=2.0)": "F(beta=1.4142135623730951)",
    "SetF(beta=0.25)": "F(beta=0.5)", "SetAP": "SetAP", "SetRelP": "RelativeP",
    "IPrec@0.5": "iP@0.5", "IPrec@0.125": "iP@0.12", "IPrec(recall=0.375)": "iP@0.38",
    "NumQ": "NumQ", "NumRet": "NumRet", "NumRel": "NumRel",
    "NumRet(rel=1)": "NumRelRet(rel=1)", "NumRelRet": "NumRelRet", "Bpref": "Bpref",
    "BPref": "Bpref", "infAP": "infAP", "Judged@10": "Judged@10", "ERR@20": "ERR@20",
    "RBP(p=0.8)": "RBP", "RBP(p=0.5,rel=2)": "RBP(p=0.5,rel=2)",
}
IR_UNSUPPORTED = ["AP_IA", "Accuracy", "BPM", "Compat", "ERR_IA", "INSQ", "INST", "MAP_IA",
                  "NERR8", "NERR9", "NERR10", "NERR11", "NRBP", "P_IA", "SDCG", "StRecall",
                  "alpha_DCG", "alpha_nDCG", "nERR_IA", "nNRBP"]


def test_ir_measures_spellings():
    for spelling, expected in IR_TRANSLATED.items():
        assert canonical(spelling) == expected, spelling
    for name in IR_UNSUPPORTED:
        with pytest.raises(ValueError, match=rf"unknown measure '{name}'"):
            parse_measure(name)
    with pytest.raises(ValueError, match=r"closest known spellings: nDCG"):
        parse_measure("nDGC@10")
    # a family in other letter case (ranx's "ndcg@10") was answered "closest known spellings:
    # ndcg, Rndcg, ndcg_p": trec_eval names that take no @cutoff
    for given, meant in (("ndcg@10", "nDCG@10"), ("ap", "AP"), ("rr(rel=2)", "RR(rel=2)")):
        with pytest.raises(ValueError, match=rf"^unknown measure '{re.escape(given)}'; did you "
                           rf"mean '{re.escape(meant)}'\?"):
            parse_measure(given)
        parse_measure(meant)
    # and what is no measure at all is named as such
    for given in (None, 5):
        with pytest.raises(ValueError, match=rf"^measures must name at least one measure \(a "
                           rf"string, a Measure or an iterable of them\); got {given}$"):
            parse_measures(given)
    with pytest.raises(ValueError, match=r"^measures must hold strings or Measures; got None$"):
        parse_measures(["AP", None])
    with pytest.raises(ValueError, match="judged_only applies to the whole evaluation"):
        parse_measure("AP(judged_only=True)")


def test_ir_measures_objects_are_read_as_their_spelling():
    # they were refused ("measures must hold strings or Measures; got nDCG@10"), where an
    # ir_measures user writes evaluate(run, qrels, [nDCG@10, AP])
    ir_measures = pytest.importorskip("ir_measures")
    for spelling, expected in IR_TRANSLATED.items():
        measure = ir_measures.parse_measure(spelling)  # its str may respell it: NumRet(rel=1)
        ours = parse_measure(str(measure))
        assert parse_measures([measure, "P@1"]) == [ours, parse_measure("P@1")], spelling
        assert parse_measures(measure) == [ours], spelling
        if str(measure) == spelling:
            assert str(ours) == expected


def test_ir_measures_registry_is_covered():
    ir_measures = pytest.importorskip("ir_measures")
    names = set(ir_measures.measures.registry) - {"α_DCG", "α_nDCG"}
    spelled = {s.split("(")[0].split("@")[0] for s in IR_TRANSLATED}
    assert names == spelled | set(IR_UNSUPPORTED)


def _ir_measures_in_fresh_process(spellings, run, qrels):
    """ir_measures' values computed in a new interpreter: its pytrec_eval provider runs
    trec_eval's C code, whose measure parameters (ndcg.1=-1, ...) are process-global and
    survive from other tests' calls."""
    import json
    import subprocess
    import sys

    code = (
        "import json, sys, pandas as pd, ir_measures\n"
        "spec = json.load(sys.stdin)\n"
        "run, qrels = pd.DataFrame(spec['run']), pd.DataFrame(spec['qrels'])\n"
        "found = {}\n"
        "for m in ir_measures.iter_calc([ir_measures.parse_measure(s) for s in spec['names']],"
        " qrels, run):\n"
        "    found.setdefault(str(m.measure), {})[m.query_id] = m.value\n"
        "print(json.dumps(found))\n"
    )
    spec = {"names": spellings, "run": run.to_dict(orient="list"),
            "qrels": qrels.to_dict(orient="list")}
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(spec), text=True,
                         capture_output=True, check=True)
    return json.loads(out.stdout)


def test_ir_measures_values():
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(9)
    run, qrels = random_collection(rng, max_grade=4)
    run["score"] = rng.permutation(len(run)).astype(float)  # tie orders differ between tools
    rg = trec_ranked_gains(run, qrels)
    skip = {"RBP(p=0.8)", "RBP(p=0.5,rel=2)"}  # needs cwl_eval, not installed
    spellings = [s for s in IR_TRANSLATED if s not in skip]
    measures = [ir_measures.parse_measure(s) for s in spellings]
    # a custom gain map sets trec_eval's process-global ndcg parameters, which then apply to
    # every nDCG of the same batch, in an order that follows ir_measures' set iteration (the
    # subprocess's hash seed): measured, plain nDCG took the gains' value in one run of CI. So
    # each spelling with gains gets its own process.
    int_qrels = qrels.astype({"relevance": int})
    gained = [s for s in spellings if "gains=" in s]
    found = _ir_measures_in_fresh_process([s for s in spellings if s not in gained], run,
                                          int_qrels)
    for spelling in gained:
        found.update(_ir_measures_in_fresh_process([spelling], run, int_qrels))
    assert len(found) == len({str(m) for m in measures})
    for spelling, measure in zip(spellings, measures, strict=True):
        got = per_query(spelling, rg)
        # ERR and exp-gain nDCG come from gdeval, which prints 4-5 decimals
        tol = 5e-5 if spelling.startswith("ERR") or "exp-log2" in spelling else 1e-12
        for q, value in found[str(measure)].items():
            assert got[q] == pytest.approx(value, abs=tol), (spelling, q)


def test_iprec_level_is_the_two_decimal_one_ir_measures_computes():
    # ir_measures' pytrec_eval provider asks trec_eval for f"iprec_at_recall_{p:.2f}", so
    # IPrec@0.125 is the precision at recall 0.12. One query, R = 9, its one relevant document
    # retrieved at rank 1: trec_eval 9.0.8 reads level 0.125 at the (long)(0.125*9 + 0.9) = 2nd
    # relevant document (not retrieved: 0) and level 0.12 at the 1st (1.0). The value is
    # ir_measures 0.4.3's: iter_calc([IPrec@0.125], qrels, run) with its default providers.
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["r0", "x"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["1"] * 9, "doc_id": [f"r{i}" for i in range(9)],
                          "relevance": [1] * 9})
    ev = evaluate(Run.from_dataframe(run), Qrels.from_dataframe(qrels),
                  ["IPrec@0.125", "iP@0.125"])
    assert ev.to_frame().set_index("measure")["mean"].to_dict() == {"iP@0.12": 1.0,
                                                                    "iP@0.125": 0.0}


def test_alias_table_rows_parse_back():
    rows = alias_table()
    assert len(rows) > 80
    for spelling, source, target in rows:
        assert source in ("trec_eval", "ir_measures", "classifiers")
        assert str(parse_measure(target)) == target == canonical(spelling)
    frame = pd.DataFrame(rows, columns=["spelling", "source", "canonical"])
    assert frame["spelling"].is_unique


@pytest.mark.parametrize(("spelling", "expected"), [
    ("ce", "CE"), ("log_loss", "CE"), ("top1", "Acc"), ("top5", "Acc@5"), ("acc", "Acc"),
    ("accuracy", "Acc"), ("accuracy_score", "Acc"), ("brier", "Brier"),
    ("brier_score_loss", "Brier"), ("ece", "ECE"), ("kl", "KL"), ("jsd", "JS"),
    ("pojsd", "poJSD"), ("wd", "Wasserstein"), ("top_k_accuracy", "Acc@2"),
    ("top_k_accuracy@5", "Acc@5"), ("ce(level=1)", "CE(level=1)"),
    ("accuracy(ties=first)@3", "Acc(ties=first)@3"), ("real@5", "Acc@5"),
])
def test_classifier_spellings(spelling, expected):
    # scikit-learn's names (its top_k_accuracy_score defaults to k=2) and issue 21's -m ce
    assert canonical(spelling) == expected
    if spelling in CLASSIFIER_ALIASES:  # listed in the alias table under its source
        assert (spelling, "classifiers", expected) in alias_table()


def test_a_misspelt_classifier_measure_gets_suggestions():
    with pytest.raises(ValueError, match=r"unknown measure 'cee'; closest known spellings: ce"):
        canonical("cee")


def test_ir_measures_calc_aggregate_is_the_complete_mean_and_the_default_count():
    """ir_measures' calc_aggregate averages over every query of the qrels, 0 for one the run
    does not answer (query 3 here) and nothing for a run-only query (4): the means are those
    of evaluate(complete=True), its NumQ and NumRel (0 summed for query 3) those of the
    default evaluation (trec_eval -c counts query 3). The README's statement of the relation;
    oracle: ir_measures 0.4.3 itself, called as its documentation shows."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = pd.DataFrame({"query_id": ["1", "1", "1", "2", "2", "3", "3"],
                          "doc_id": ["a", "b", "c", "a", "d", "x", "y"],
                          "relevance": [1, 0, 2, 1, 1, 1, 0]})
    run = pd.DataFrame({"query_id": ["1", "1", "1", "2", "2", "4"],
                        "doc_id": ["a", "c", "z", "d", "b", "a"],
                        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0]})
    means, counts = ["AP", "P@5", "nDCG@10", "RR", "R@2"], ["NumQ", "NumRel"]
    found = {str(m): v for m, v in ir_measures.calc_aggregate(
        [ir_measures.parse_measure(n) for n in means + counts], qrels, run).items()}
    r, q = Run.from_dataframe(run), Qrels.from_dataframe(qrels)
    with pytest.warns(UserWarning, match="'4' of the runs are not in the qrels"):
        complete = evaluate(r, q, means, complete=True).aggregate().set_index("measure")
    with pytest.warns(UserWarning, match="'4' of the runs are not in the qrels"):
        default = evaluate(r, q, counts).aggregate().set_index("measure")
    for name in means:
        assert complete.loc[name, "value"] == pytest.approx(found[name], abs=1e-12), name
    for name in counts:
        assert default.loc[name, "value"] == found[name], name


def test_measures_joined_by_commas_in_one_string_are_refused_with_the_list():
    # "P@10,AP" failed on P's cutoff ("must be a positive integer; got '10,AP'")
    with pytest.raises(ValueError, match=r"measures must list each measure apart; got "
                                         r"'P@10,AP'.*: pass \['P@10', 'AP'\]$"):
        parse_measures("P@10,AP")
    with pytest.raises(ValueError, match=r"pass \['map', 'ndcg_cut\.10'\]$"):
        parse_measures(["map, ndcg_cut.10"])
    # trec_eval's own comma forms still read as one name's cutoffs and one gain map
    assert [str(m) for m in parse_measures("P.5,10")] == ["P@5", "P@10"]
    assert [str(m) for m in parse_measures("ndcg.0=1,1=3")] == ["nDCG(gain={0:1,1:3})"]
    with pytest.raises(ValueError, match=r"must be a positive integer; got '10,XX'"):
        parse_measures("P@10,XX")  # not a list of measures: the measure's own error
