"""``fuzzytruth evaluate`` on the smallest inputs where a differential fuzz against the
trec_eval binaries found a different output, compared byte for byte; and on those where the
binary stops with an error (``*err.*`` files: its stderr), where fuzzytruth must stop too.

Each case is a qrels/run pair of tests/data/trec_eval/fuzz and the output the named trec_eval
printed for the same flags (README there: binary, version and command of every file), run with
the defaults a user gets for the preset: ``v10.*`` files under ``--preset trec10`` (trec_eval
10.0), the others under the default preset (trec_eval 9.0.8). No case passes ``--format``: the
trec_eval spellings choose it.
"""

from pathlib import Path

import pytest

from fuzzytruth.cli import main

FUZZ = Path(__file__).parent / "data" / "trec_eval" / "fuzz"
TREC10 = ["--preset", "trec10"]

# expected file -> (qrels, run, flags as trec_eval was given them)
CASES = {
    # ndcg_rel of an empty list (-J dropped its only, unjudged, document) with nothing judged
    # relevant: trec_eval prints 0; fuzzytruth raised an IndexError
    "out.ndcg_rel_qJ.unjudged": ("qrels.nothing_relevant", "run.unjudged",
                                 ["-m", "ndcg_rel", "-m", "num_ret", "-q", "-J"]),
    "v10.out.ndcg_rel_qJ.unjudged": ("qrels.nothing_relevant", "run.unjudged",
                                     [*TREC10, "-m", "ndcg_rel", "-m", "num_ret", "-q", "-J"]),
    # the same with -c, the qrels' one query absent from the run
    "v10.out.all_trec_qc.other_query": ("qrels.nothing_relevant", "run.other_query",
                                        [*TREC10, "-m", "all_trec", "-q", "-c"]),
    # rbp_resid 0.9271 and 0.9: their mean is 0.9136 with m_rbp_resid.c's doubles (p^i by
    # repeated products, 1 - p applied to the sum), 0.9135 with p ** i weights
    "v10.out.all_trec_q.resid": ("qrels.resid", "run.resid", [*TREC10, "-m", "all_trec", "-q"]),
    # -c -J: trec_eval 10.0 scores the added query 2 on one document no qrels judges, which -J
    # drops: iprec_at_recall at the levels that ask for no relevant document, and 11pt_avg,
    # are 0/0 and print -nan, as a -J list left empty (fuzzytruth printed 0.0000 there);
    # 9.0.8 does not score query 2 at all
    "v10.out.all_trec_qcJ.first_query": ("qrels.two_queries", "run.first_query",
                                         [*TREC10, "-m", "all_trec", "-q", "-c", "-J"]),
    "out.all_trec_qcJ.first_query": ("qrels.two_queries", "run.first_query",
                                     ["-m", "all_trec", "-q", "-c", "-J"]),
    # -c -q: after scoring the added query 2 on its stand-in document, trec_eval 10.0 resets
    # the lines named exactly num_ret, utility, relstring, rbp_resid and unj* (trec_eval.c
    # 416-425): utility_2,-1,0,0 keeps -1, relstring_20 '-', rbp_resid_p=0.5 1 (fuzzytruth
    # printed the empty list's 0, '' and 0, and their means); rbp left out (m_rbp.c reads
    # uninitialised variables)
    "v10.out.stand_in_qc.first_query": ("qrels.two_queries", "run.first_query", [
        *TREC10, "-q", "-c", "-m", "num_ret", "-m", "num_rel_ret", "-m", "utility", "-m",
        "utility.2,-1,0,0", "-m", "relstring", "-m", "relstring.20", "-m", "rbp_resid", "-m",
        "rbp_resid.p=0.5", "-m", "unj.3", "-m", "P.5", "-m", "map", "-m", "iprec_at_recall",
        "-m", "num_nonrel_judged_ret"]),
    # -c under trec_eval 9.0.8: the added query 2 is never evaluated, so it adds 0 to the sum
    # of every averaged line, divided by both queries (meas_avg.c): yaap 0.6931 / 2, utility
    # 50 / 2; fuzzytruth added its empty list's yaap, log(1 / (1 + 3)), and utility,
    # c·R + d·(N − R) = 3 + 48.5
    "out.yaap_utility_qcN.first_query": ("qrels.two_queries", "run.first_query", [
        "-q", "-c", "-N", "100", "-m", "yaap", "-m", "utility.2,-1,1,0.5"]),
    # 11pt_avg of a query whose one relevant document is 40th: eleven times 0.025, which
    # m_11pt_avg.c sums one level at a time from the last, 0.024999999999999998; numpy's mean
    # gave 0.025, and the mean with three zeros printed 0.0063 where trec_eval prints 0.0062
    "out.11pt_avg.rank_40": ("qrels.rank_40", "run.rank_40", ["-m", "11pt_avg"]),
    "v10.out.11pt_avg.rank_40": ("qrels.rank_40", "run.rank_40", [*TREC10, "-m", "11pt_avg"]),
    # set_F of 1 hit in 11 retrieved, 5 relevant: m_set_F.c's 2·P·R / (P + R) in doubles is
    # 0.12500000000000003, fuzzytruth's 2h / (R + n) 0.125; with three zeros the mean printed
    # 0.0312 where trec_eval prints 0.0313
    "out.set_F.one_of_eleven": ("qrels.one_of_five", "run.one_of_eleven", ["-m", "set_F"]),
    "v10.out.set_F.one_of_eleven": ("qrels.one_of_five", "run.one_of_eleven",
                                    [*TREC10, "-m", "set_F"]),
    # the mean over sixteen queries (ids 1 to 16, added in strcmp order: 1, 10, ..., 16, 2,
    # ...) of reciprocal ranks: meas_acc.c adds them one at a time, 0.36874999999999997,
    # printed 0.3687; numpy's pairwise sum gave 0.36875, printed 0.3688
    "out.recip_rank.sixteen": ("qrels.sixteen", "run.sixteen", ["-m", "recip_rank"]),
    "v10.out.recip_rank.sixteen": ("qrels.sixteen", "run.sixteen",
                                   [*TREC10, "-m", "recip_rank"]),
    # bpref of one query, its eleven retrieved relevant documents' terms (1, 1/2, 1/3...)
    # added in rank order: 0.46874999999999994, printed 0.4687; numpy's pairwise row sum
    # gave 0.46875, printed 0.4688
    "out.bpref.bpref_16": ("qrels.bpref_16", "run.bpref_16", ["-m", "bpref"]),
    "v10.out.bpref.bpref_16": ("qrels.bpref_16", "run.bpref_16", [*TREC10, "-m", "bpref"]),
    # set_F.0.5 of 1 hit in 12 retrieved, 8 relevant: with x = 0.5, 0.09375 (printed
    # 0.0938); fuzzytruth held beta = sqrt(0.5), whose square 0.5000000000000001 gave
    # 0.09374999999999999 (0.0937)
    "out.set_F_0.5.twelve": ("qrels.one_of_eight", "run.twelve", ["-m", "set_F.0.5"]),
    "v10.out.set_F_0.5.twelve": ("qrels.one_of_eight", "run.twelve",
                                 [*TREC10, "-m", "set_F.0.5"]),
}


@pytest.mark.parametrize("expected", list(CASES))
def test_fuzz_case_byte_for_byte(capsys, expected):
    qrels, run, flags = CASES[expected]
    status = main(["evaluate", "--qrels", str(FUZZ / qrels), "--run", str(FUZZ / run), *flags])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert out.out == (FUZZ / expected).read_text()


# error file -> (qrels, run, flags): the binary printed nothing on stdout and this on stderr
# (exit status 7 and 4); fuzzytruth must print nothing either and quote the binary's reason
STOPS = {
    # -c under trec_eval 9.0.8 with no query in both files: 9.0.8 evaluates only the run's
    # queries the qrels has, none, and stops; fuzzytruth averaged the zeros of the added one
    "err.qc.other_query": ("qrels.nothing_relevant", "run.other_query", ["-c", "-q"]),
    # trec_eval 10.0 without -c loops over the qrels' queries and stops at query 2, which the
    # run does not answer (its message says it the other way round); fuzzytruth printed
    # 9.0.8's average over query 1
    "v10.err.first_query": ("qrels.two_queries", "run.first_query", TREC10),
}


@pytest.mark.parametrize("expected", list(STOPS))
def test_fuzz_case_where_trec_eval_stops(capsys, expected):
    qrels, run, flags = STOPS[expected]
    status = main(["evaluate", "--qrels", str(FUZZ / qrels), "--run", str(FUZZ / run), *flags])
    out = capsys.readouterr()
    assert status == 2
    assert out.out == ""
    reason = (FUZZ / expected).read_text().strip().removeprefix("trec_eval: ")
    assert reason in out.err
