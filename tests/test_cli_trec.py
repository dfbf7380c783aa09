"""The command line for trec_eval users: its flags give what evaluate() gives with the same
options, trec_eval and ir_measures names and groups are accepted, and every error names a
command-line flag, never a Python argument."""

import contextlib
import io
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Qrels, Run, evaluate
from fuzzytruth.cli import main as cli_main
from fuzzytruth.cli.app import command_parsers
from fuzzytruth.io import write_trec_qrels, write_trec_run
from fuzzytruth.measure_names import expand


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(4)
    folder = tmp_path_factory.mktemp("trec")
    docs = [f"d{i:02d}" for i in range(40)]
    rows = [(q, d, float(rng.integers(0, 8)) / 4) for q in ("1", "2", "3", "9")
            for d in rng.choice(docs, 20, replace=False)]
    run = Run.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]),
                             name="sys")
    judged = [(q, d, int(g)) for q in ("1", "2", "3", "4")
              for d, g in zip(rng.choice(docs, 25, replace=False), rng.integers(-1, 3, 25),
                              strict=True)]
    qrels = Qrels.from_dataframe(pd.DataFrame(judged, columns=["query_id", "doc_id", "relevance"]))
    write_trec_run(run, folder / "run.txt")
    write_trec_qrels(qrels, folder / "qrels.txt")
    return folder, run, qrels


def run_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli_main(list(args))
        except SystemExit as stop:  # the parser's own checks (choices, types)
            status = stop.code
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("flags", "options"),
    [
        ([], {}),
        (["-c"], {"complete": True}),
        (["-c", "-M", "5", "-l", "2"], {"complete": True, "depth": 5, "relevance_level": 2}),
        (["-J"], {"judged_only": True}),
        (["--undefined", "skip"], {"undefined": "skip"}),
    ],
)
def test_flags_give_what_evaluate_gives(files, flags, options):
    folder, run, qrels = files
    status, out, err = run_cli(
        "evaluate", "--qrels", str(folder / "qrels.txt"), "--run", str(folder / "run.txt"),
        "-m", "official", "--format", "json", "-q", *flags,
    )
    assert status == 0, err
    assert "query(ies) '9'" in err  # the run query the qrels do not judge: a one-line note
    got = pd.DataFrame(json.loads(out))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = evaluate(run, qrels, expand("official"), **options).to_frame()
    assert len(got) == len(expected) and len(got) > 0
    np.testing.assert_allclose(got["mean"].astype(float), expected["mean"], equal_nan=True)


def test_trec_eval_and_ir_measures_names(files):
    folder = files[0]
    status, out, _ = run_cli(
        "evaluate", "--qrels", str(folder / "qrels.txt"), "--run", str(folder / "run.txt"),
        "-m", "map", "-m", "ndcg_cut.10,20", "-m", "nDCG@10", "-m", "RR", "--format", "json",
    )
    assert status == 0
    measures = [r["measure"] for r in json.loads(out)]
    assert measures == ["AP", "nDCG@10", "nDCG@20", "RR"]  # nDCG@10 asked twice: once


@pytest.mark.parametrize(
    ("flags", "flag"),
    [
        (["-M", "0"], "--depth"),
        (["-l", "-1"], "--relevance-level"),
        (["--confidence-level", "1.5"], "--confidence-level"),
        (["--n-worlds", "-3"], "--n-worlds"),
        (["--preset", "nist"], "--preset"),
        (["--missing", "error"], "--missing"),
    ],
)
def test_errors_name_the_flag_not_the_python_argument(files, flags, flag):
    folder, _, _ = files
    status, _, err = run_cli(
        "evaluate", "--qrels", str(folder / "qrels.txt"), "--run", str(folder / "run.txt"),
        "-m", "AP", *flags,
    )
    assert status == 2
    line = err.strip().splitlines()[-1]
    assert flag in line, line
    flags = command_parsers()["evaluate"].get_default("flags")
    for argument, _ in flags.items():  # no bare Python argument name in the message
        assert not re.search(rf"(?<![-\w]){argument}(?= must|=)", line), line


def test_trec_eval_s_positional_form_reads_as_qrels_and_runs(files, tmp_path):
    """``fuzzytruth evaluate -m map QRELS RUN``, as trec_eval is called, prints what the flags
    --qrels/--run print (its output, byte for byte); compare takes it too. The form gives the
    truth and the runs, so given beside --qrels or --run, or with one file, it is refused, and
    without either form the runs are asked for."""
    folder, run_object, _ = files
    qrels, run, other = str(folder / "qrels.txt"), str(folder / "run.txt"), tmp_path / "b.txt"
    twice = tmp_path / "twice.txt"
    twice.write_text("q1 0 d1 1\nq1 0 d1 0\n")
    write_trec_run(Run(run_object.query_ids, run_object.doc_ids, -run_object.scores,
                       name="other"), other)
    for command, flags, runs in (("evaluate", ["-m", "map", "-m", "P.5,10", "-q"], [run]),
                                 ("evaluate", [], [run, str(other)]),
                                 ("compare", ["-m", "AP", "--format", "csv"], [run, str(other)])):
        by_flags = run_cli(command, *flags, "--qrels", qrels,
                           *[arg for path in runs for arg in ("--run", path)])
        assert by_flags[0] == 0, by_flags[2]
        assert run_cli(command, *flags, qrels, *runs) == by_flags
        assert run_cli(command, qrels, *flags, *runs) == by_flags  # options between the files
    for args, message in (
        ([qrels], r"qrels\.txt: trec_eval's form names the qrels file, then one run file or "
                  r"more \(QRELS RUN \.\.\.\); got one file$"),
        (["--qrels", qrels, qrels, run], r"--qrels would give them twice: use one form$"),
        (["--run", run, qrels, run], r"the runs; --run would give them twice"),
        (["--qrels", qrels], r"error: give the runs: --run FILE \(repeat it for several "
                             r"systems\), or trec_eval's form"),
        # the errors name the place in trec_eval's form, not flags the user did not write
        ([qrels, str(tmp_path / "none.txt")], r"no such file: \S*none\.txt \(RUN\)$"),
        ([str(tmp_path / "none.txt"), run], r"no such file: \S*none\.txt \(QRELS\)$"),
        ([run, qrels], r"run\.txt, line 1: expected 4 whitespace-separated fields 'qid iter "
                       r"docno rel'; got 6: .* \(trec_eval's form: the qrels file first, then "
                       r"the run files\)$"),
        # an error in a qrels file given first says nothing of the order
        ([str(twice), run], r"twice\.txt, line 2: document 'd1' is listed 2 times for query "
                            r"'q1' \(lines 1, 2\); pass --duplicates max, first or last to "
                            r"keep one$"),
    ):
        status, out, err = run_cli("evaluate", "-m", "map", *args)
        assert (status, out) == (2, "")
        assert re.search(message, err.strip()), err


def test_judged_queries_the_run_does_not_answer_are_a_note_beside_trec_eval_s_output(files):
    """The fixture's qrels judge query 4, which the run does not answer: trec_eval's numbers
    on stdout, unchanged, and one note on stderr naming it and -c (--complete)."""
    folder, _, _ = files
    status, out, err = run_cli("evaluate", "-m", "map", str(folder / "qrels.txt"),
                               str(folder / "run.txt"))
    assert status == 0 and out.startswith("map")
    assert err.count("fuzzytruth: note:") == 2  # query 9 not judged; query 4 not answered
    assert re.search(r"note: 1 judged query\(ies\) that no run answers are not evaluated "
                     r"\(without --complete, as trec_eval without -c\): '4'; --complete "
                     r"scores them", err), err
    _, _, err_c = run_cli("evaluate", "-m", "map", "-c", str(folder / "qrels.txt"),
                          str(folder / "run.txt"))
    assert "no run answers" not in err_c


def test_measures_joined_by_commas_are_refused_with_one_m_per_measure(files):
    # -m P@10,AP failed on P's cutoff ("must be a positive integer; got '10,AP'")
    folder, _, _ = files
    status, out, err = run_cli("evaluate", "-m", "P@10,AP", str(folder / "qrels.txt"),
                               str(folder / "run.txt"))
    assert (status, out) == (2, "")
    assert err.strip().endswith("error: -m P@10,AP: several measures joined by commas (a comma "
                                "separates the cutoffs of one trec_eval name only, as in "
                                "P.5,10): give -m once per measure (-m P@10 -m AP)"), err
    status, out, _ = run_cli("evaluate", "-m", "P.5,10", str(folder / "qrels.txt"),
                             str(folder / "run.txt"))
    assert status == 0 and [line.split()[0] for line in out.splitlines()] == ["P_5", "P_10"]


def test_trec_eval_s_long_options_and_minus_T_read_as_its_short_ones(files):
    # a script written for trec_eval (getopt's long names, -T trec_results) was refused as
    # "unrecognized arguments"
    folder, _, _ = files
    qrels, run = str(folder / "qrels.txt"), str(folder / "run.txt")
    for long, short in (
        (["--query_eval_wanted", "--nosummary"], ["-q", "-n"]),
        (["--level_for_rel", "2", "--complete_rel_info_wanted"], ["-l", "2", "-c"]),
        (["--level_for_rel=2", "--Judged_docs_only"], ["-l", "2", "-J"]),
        (["--Max_retrieved_per_topic", "5", "--Number_docs_in_coll", "90"],
         ["-M", "5", "-N", "90"]),
        (["--Rel_info_format", "qrels", "--Results_format", "trec_results"], []),
        (["-T", "trec_results"], []),
    ):
        expected = run_cli("evaluate", "-m", "official", *short, qrels, run)
        assert expected[0] == 0, expected[2]
        assert run_cli("evaluate", "-m", "official", *long, qrels, run) == expected, long
    status, _, err = run_cli("evaluate", "-T", "trec_eval_xml", qrels, run)
    assert status == 2 and "invalid choice: 'trec_eval_xml' (choose from 'trec_results')" in err
    status, _, err = run_cli("compare", "--nosummary", qrels, run)  # compare has no -n
    assert status == 2 and "unrecognized arguments: --nosummary" in err


def test_a_run_read_from_standard_input_as_trec_eval_reads_minus(files):
    import subprocess
    import sys

    folder, _, _ = files
    qrels, run = str(folder / "qrels.txt"), str(folder / "run.txt")
    expected = run_cli("evaluate", "-m", "map", "-m", "P.5", qrels, run)
    for form in ([qrels, "-"], ["--qrels", qrels, "--run", "-"]):
        got = subprocess.run([sys.executable, "-m", "fuzzytruth.cli", "evaluate", "-m", "map",
                              "-m", "P.5", *form], input=(folder / "run.txt").read_text(),
                             capture_output=True, text=True, check=False, timeout=300)
        assert (got.returncode, got.stdout) == expected[:2], got.stderr
    status, _, err = run_cli("evaluate", qrels, "-", "-")
    assert status == 2 and "one run file at most can be '-' (standard input); got it 2" in err
    status, out, _ = run_cli("--version")
    assert status == 0 and re.fullmatch(r"fuzzytruth \d+\.\d+\.\d+\S*\n", out)
