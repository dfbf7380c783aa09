"""``fuzzytruth evaluate --format trec`` against trec_eval 9.0.8's own expected outputs.

The reference files are trec_eval's ``test/`` folder (tests/data/trec_eval, README there: the
trec_eval command behind each file). For every file, the command line is run with the same
flags (trec_eval without ``-m`` is ``-m official`` here; ``-R``, ``-Z``, ``-c``, ``-M``, ``-l``,
``-q`` and the ``meas_params`` spellings as trec_eval was given them) and its whole output
compared byte for byte. The same files with the defaults a user gets (no ``--format``: the
trec_eval spellings choose it) are the cases themselves: no case passes ``--format``.
"""

from pathlib import Path

import pytest

from fuzzytruth.cli import main
from fuzzytruth.cli._trec import is_trec_spelling
from fuzzytruth.measures.trec_output import trec_name

DATA = Path(__file__).parent / "data" / "trec_eval"
MEAS_PARAMS = [
    "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
    "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
    "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
]
# expected file -> (qrels, run, flags as trec_eval was given them)
CASES = {
    "out.test": ("qrels.test", "results.test", ["-m", "official"]),
    "out.test.a": ("qrels.test", "results.test", ["-m", "all_trec"]),
    "out.test.aq": ("qrels.test", "results.test", ["-m", "all_trec", "-q"]),
    "out.test.aqc": ("qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c"]),
    "out.test.aqcM": ("qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c", "-M100"]),
    "out.test.aql": ("qrels.rel_level", "results.test",
                     ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"]),
    "out.test.meas_params": ("qrels.test", "results.test", MEAS_PARAMS),
    "out.test.aqZ": ("qrels.test", "results.test",
                     ["-q", "-m", "all_trec", "-Z", str(DATA / "zscores_file.gz")]),
    "out.test.prefs": ("prefs.test", "prefs.results.test",
                       ["-m", "all_prefs", "-q", "-R", "prefs"]),
    "out.test.qrels_prefs": ("qrels.test", "results.test",
                             ["-m", "all_prefs", "-q", "-R", "qrels_prefs"]),
    "out.test.qrels_jg": ("qrels.123", "results.test", ["-m", "qrels_jg", "-q", "-R", "qrels_jg"]),
}


def run_cli(capsys, qrels, run, flags):
    status = main(["evaluate", "--qrels", str(DATA / f"{qrels}.gz"),
                   "--run", str(DATA / f"{run}.gz"), *flags])
    out = capsys.readouterr()
    assert status == 0, out.err
    return out.out


@pytest.mark.parametrize("expected", list(CASES))
def test_byte_for_byte(capsys, expected):
    qrels, run, flags = CASES[expected]
    assert run_cli(capsys, qrels, run, flags) == (DATA / expected).read_text()


# ------------------------------------------------------------------ trec_eval's names and rules
@pytest.mark.parametrize(
    ("measure", "printed"),
    [  # printed as trec_eval 9.0.8 prints them (out.test.a, out.test.meas_params)
        ("AP", "map"), ("GMAP", "gm_map"), ("RR", "recip_rank"), ("NumRelRet", "num_rel_ret"),
        ("P@10", "P_10"), ("iP@0.1", "iprec_at_recall_0.10"), ("iP@0", "iprec_at_recall_0.00"),
        ("RprecMult@5", "Rprec_mult_5.00"), ("R@2000", "recall_2000"), ("nDCG@23", "ndcg_cut_23"),
        ("Success@2", "success_2"), ("RelativeP", "set_relative_P"), ("F", "set_F"),
        ("Utility(a=2,b=-1,c=0,d=0)", "utility_2,-1,0,0"), ("Bpref", "bpref"),
        ("nDCG(gain={1:3,2:9,4:4.5})", "ndcg_1=3,2=9,4=4.5"),
    ],
)
def test_trec_name(measure, printed):
    assert trec_name(measure) == printed


@pytest.mark.parametrize("measure", ["nDCG(gain=exp)@10", "ERR@20",
                                     "AP(denominator=retrieved_relevant)", "nDCG(discount=jk)@10"])
def test_measures_trec_eval_lacks_have_no_trec_name(measure):
    with pytest.raises(ValueError, match="has no trec_eval name"):
        trec_name(measure)


def test_trec_spellings_choose_the_format():
    assert all(map(is_trec_spelling, ["map", "official", "all_trec", "P.5,10", "P_10", "ndcg",
                                      "relstring.20", "runid", "Rprec", "set_F.0.5"]))
    assert not any(map(is_trec_spelling, ["AP", "nDCG@10", "P@10", "RR", "MAP", "RBP(p=0.8)"]))


def test_order_is_trec_eval_s_whatever_the_order_of_m(capsys):
    out = run_cli(capsys, "qrels.test", "results.test",
                  ["-m", "P.30,5", "-m", "recip_rank", "-m", "num_rel", "-m", "map"])
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == [
        "num_rel", "map", "recip_rank", "P_5", "P_30"]
    expected = (DATA / "out.test").read_text().splitlines(keepends=True)
    assert out == "".join(line for line in expected
                          if line.split()[0] in {"num_rel", "map", "recip_rank", "P_5", "P_30"})


def test_first_parameters_win_as_in_trec_eval(capsys):
    out = run_cli(capsys, "qrels.test", "results.test", ["-m", "P.5", "-m", "P.10", "-m", "P"])
    assert out == "P_5                   \tall\t0.2667\n"  # out.test: P_5 all 0.2667


def test_relstring_by_hand(capsys, tmp_path):
    """m_relstring.c: a grade 0-9 is its digit, above 9 '>', a document judged with a negative
    grade '.', one not in the qrels '-'; -J drops both kinds of unjudged, -M cuts first."""
    (tmp_path / "run").write_text("".join(
        f"q1 Q0 d{i} {i} {7 - i} tag\n" for i in range(1, 7)))
    (tmp_path / "qrels").write_text("q1 0 d1 12\nq1 0 d2 0\nq1 0 d4 -1\nq1 0 d5 3\n")

    def relstring(*flags):
        status = main(["evaluate", "--qrels", str(tmp_path / "qrels"), "--run",
                       str(tmp_path / "run"), "-q", *flags])
        out = capsys.readouterr().out
        assert status == 0
        return out

    assert relstring("-m", "relstring") == "relstring             \tq1\t'>0-.3-'\n"
    assert relstring("-m", "relstring.2") == "relstring_2           \tq1\t'>0'\n"
    assert relstring("-m", "relstring", "-J") == "relstring             \tq1\t'>03'\n"
    assert relstring("-m", "relstring", "-M", "3") == "relstring             \tq1\t'>0-'\n"
    assert relstring("-m", "runid") == "runid                 \tall\ttag\n"
