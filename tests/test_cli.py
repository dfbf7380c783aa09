"""The ``fuzzytruth`` command on real files in a temporary folder: run in-process
(``main([...])``) for speed, and as a real subprocess where the process itself is the point
(the installed entry point, the cost of ``--help``, Ctrl-C)."""

import ast
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import (
    Membership,
    Qrels,
    Run,
    write_annotations,
    write_probabilistic_qrels,
    write_taxonomy,
    write_trec_qrels,
    write_trec_run,
)
from fuzzytruth.cli import main
from fuzzytruth.cli.app import COMMANDS
from fuzzytruth.datasets import image_collection
from fuzzytruth.evaluation import evaluate
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels


def fuzzytruth(*args: str, cwd: Path | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fuzzytruth.cli", *args],
        capture_output=True, text=True, check=False, timeout=300, cwd=cwd, **kwargs,
    )


def run(capsys, *args):
    """``fuzzytruth args`` in this process: (status, stdout, stderr)."""
    try:
        status = main(list(args))
    except SystemExit as stop:  # the parser's own errors, and --help
        status = stop.code
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The bundled image collection written out as a user would have it, 20 queries only."""
    folder = tmp_path_factory.mktemp("cli")
    collection = image_collection()
    write_taxonomy(collection.taxonomy, folder / "taxonomy.json")
    write_annotations(collection.annotations, folder / "labels.csv")
    queries = sorted(collection.runs["strong"]["query_id"].unique())[:20]
    for name, system in collection.run_objects().items():
        frame = system.to_dataframe()
        subset = frame[frame["query_id"].isin(queries)]
        write_trec_run(Run.from_dataframe(subset, name=name), folder / f"{name}.txt")
    truth = collection.truth
    # crisp qrels from the latent truth: a document is relevant when it shares the query's leaf
    rows = [(q, d, 1) for q in queries for d in truth.index if d != q and truth[d] == truth[q]]
    qrels = Qrels.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]))
    write_trec_qrels(qrels, folder / "qrels.txt")
    mem: Membership = collection.membership
    people = mem.probabilities(mem.items, "people")
    pq = ProbabilisticQrels(
        [q for q in queries for _ in mem.items],
        [d for _ in queries for d in mem.items],
        [p for _ in queries for p in people],
    )
    write_probabilistic_qrels(pq, folder / "pqrels.csv")
    return folder


@pytest.fixture
def here(files, monkeypatch):
    monkeypatch.chdir(files)
    return files


RUNS = ["--run", "strong.txt", "--run", "medium.txt", "--run", "weak.txt"]
CATEGORICAL = ["--taxonomy", "taxonomy.json", "--annotations", "labels.csv"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_an_example(capsys, command):
    status, out, _ = run(capsys, command, "--help")
    assert status == 0
    assert "example" in out


def test_evaluate_categorical_text_csv_json(capsys, here):
    status, text, err = run(capsys, "evaluate", *CATEGORICAL, *RUNS, "-m", "P@10", "-m", "AP",
                            "--n-worlds", "100")
    assert status == 0, err
    assert "strong" in text and "worlds" in text
    _, csv, _ = run(capsys, "evaluate", *CATEGORICAL, *RUNS, "-m", "P@10", "--n-worlds", "100",
                    "--format", "csv", "--per-query")
    frame = pd.read_csv(io.StringIO(csv))
    assert len(frame) == 3 * 20
    # one query's spread over the truths: truth_low/truth_high, as aggregate() names it
    assert {"system", "query_id", "measure", "mean", "truth_low", "truth_high", "method"} <= set(
        frame)
    assert "ci_low" not in frame and "ci_high" not in frame
    assert (frame["truth_low"] <= frame["mean"]).all()
    assert (frame["mean"] <= frame["truth_high"]).all()
    _, js, _ = run(capsys, "evaluate", *CATEGORICAL, *RUNS, "-m", "P@10", "--n-worlds", "100",
                   "--format", "json")
    records = json.loads(js)
    assert [r["system"] for r in records] == ["strong", "medium", "weak"]
    assert records[0]["value"] > records[2]["value"]  # the strong system beats the weak one


def test_evaluate_crisp_qrels_gives_point_masses(capsys, here):
    status, out, err = run(capsys, "evaluate", "--qrels", "qrels.txt", *RUNS, "-m", "P@10",
                           "--format", "csv", "--per-query")
    assert status == 0, err
    frame = pd.read_csv(io.StringIO(out))
    # point masses: the spread over truths (0, and both ends the mean) carries nothing and is
    # left out, as the README says (issue 22)
    assert not {"truth_std", "truth_low", "truth_high", "p_undefined", "mc_se"} & set(frame)
    assert {"system", "query_id", "measure", "mean", "method"} <= set(frame)


def test_evaluate_probabilistic_qrels(capsys, here):
    status, out, err = run(capsys, "evaluate", "--prob-qrels", "pqrels.csv", "--run",
                           "strong.txt", "-m", "P@10", "--format", "csv")
    assert status == 0, err
    assert pd.read_csv(io.StringIO(out))["method"].iloc[0] == "exact"


def test_trec_names_on_crisp_qrels_print_trec_eval_s_output_run_by_run(capsys, here):
    status, out, err = run(capsys, "evaluate", "--qrels", "qrels.txt", *RUNS, "-m", "map",
                           "-m", "num_ret")
    assert status == 0, err
    qrels = Qrels.from_trec(here / "qrels.txt")
    expected = []
    for name in ("strong", "medium", "weak"):  # each run on its own, as trec_eval runs it
        values = evaluate(Run.from_trec(here / f"{name}.txt"), qrels, ["NumRet", "AP"])
        num_ret, ap = values.value(name, "NumRet"), values.value(name, "AP")
        expected += [f"num_ret               \tall\t{int(num_ret)}", f"map                   "
                     f"\tall\t{ap:6.4f}"]
    assert out.splitlines() == expected
    # a canonical name keeps the tidy table; --format says which
    _, table, _ = run(capsys, "evaluate", "--qrels", "qrels.txt", *RUNS, "-m", "map", "-m", "AP")
    assert table.split()[:3] == ["system", "measure", "value"]
    _, forced, _ = run(capsys, "evaluate", "--qrels", "qrels.txt", *RUNS, "-m", "AP",
                       "--format", "trec")
    assert forced.splitlines()[0].startswith("map                   \tall\t")


def test_format_trec_needs_crisp_qrels(capsys, here):
    status, out, err = run(capsys, "evaluate", *CATEGORICAL, *RUNS, "-m", "map", "--format",
                           "trec", "--n-worlds", "10")
    assert status == 2 and out == ""
    assert "--format trec" in err and "--qrels" in err


def test_compare_formats(capsys, here):
    status, text, err = run(capsys, "compare", *CATEGORICAL, *RUNS, "-m", "AP", "--n-worlds",
                            "100", "--method", "randomization", "--n-resamples", "2000")
    assert status == 0, err
    assert "strong" in text and "95%" in text
    flat = " ".join(text.split())
    # 20 queries > 16: the sign flips are sampled, so B and the seed are printed
    assert "sampled ground-truth worlds, B = 2000 resamples, seed 0." in flat
    _, csv, _ = run(capsys, "compare", *CATEGORICAL, *RUNS, "-m", "AP", "--n-worlds", "100",
                    "--baseline", "weak", "--format", "csv")
    table = pd.read_csv(io.StringIO(csv))
    assert set(table["system_b"]) == {"weak"} and len(table) == 2
    assert {"difference", "ci_low", "ci_high", "pvalue", "pvalue_adjusted"} <= set(table)
    status, latex, _ = run(capsys, "compare", "--qrels", "qrels.txt", *RUNS, "-m", "AP",
                           "--format", "latex")
    assert status == 0 and "\\begin{tabular}" in latex


def test_evaluate_csv_keeps_its_interval_columns_when_the_queries_agree(capsys, tmp_path):
    """Queries that all score alike give a zero-width interval over queries: the CSV used to
    lose its ci_low and ci_high columns then (its header changed with the data)."""
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 3.0 r\nq2 Q0 d1 1 1.0 r\n")
    status, csv, err = run(capsys, "evaluate", "--qrels", str(tmp_path / "qrels"), "--run",
                           str(tmp_path / "run"), "-m", "AP", "--format", "csv")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(csv))
    assert table[["value", "ci_low", "ci_high"]].to_numpy().tolist() == [[1.0, 1.0, 1.0]]


def test_compare_json_keeps_the_infinite_end_of_a_one_sided_interval(capsys, here):
    """pandas' JSON writer made -inf null, a missing value: the one-sided interval's open end
    read back as NaN. Now Infinity tokens, which Python's json and pandas.read_json read."""
    args = ["compare", "--qrels", "qrels.txt", *RUNS, "-m", "AP", "--alternative", "less"]
    status, text, err = run(capsys, *args, "--format", "json")
    assert status == 0, err
    records = json.loads(text)
    assert [r["ci_low"] for r in records] == [-np.inf] * 3
    assert all(np.isfinite(r["ci_high"]) for r in records)
    assert (pd.read_json(io.StringIO(text))["ci_low"] == -np.inf).all()
    _, csv, _ = run(capsys, *args, "--format", "csv")
    assert (pd.read_csv(io.StringIO(csv))["ci_low"] == -np.inf).all()


def test_compare_text_says_what_was_computed(capsys, here):
    """Issue 22 item 4: the header printed B=10000 for a t test; the worlds, the seed and
    P(A>B) were not explained. The words come from the Comparison (fuzzytruth.report)."""
    status, text, err = run(capsys, "compare", "--qrels", "qrels.txt", *RUNS, "-m", "AP",
                            "-m", "P@10", "--seed", "7")
    assert status == 0, err
    flat = " ".join(text.split())
    assert flat.startswith('paired t test with its t interval, two-sided, 95% level, estimand '
                           '"queries" (new queries like these, judged the same way), Holm '
                           "correction within each measure, 20 queries.")
    assert "B=" not in text and "B =" not in text and "seed" not in text  # nothing drawn
    assert "[AP]" in text and "[P@10]" in text and "P(A>B)" not in text
    assert "Starred rows (*): adjusted p < 0.05 (Holm within each measure)" in flat
    status, text, err = run(capsys, "compare", *CATEGORICAL, *RUNS, "-m", "AP", "--n-worlds",
                            "50", "--seed", "7")
    assert status == 0, err
    flat = " ".join(text.split())
    assert 'estimand "collection (truth model: shares)"' in flat and "B =" not in flat
    assert "20 queries, each query's score averaged over 50 sampled ground-truth worlds, " \
        "seed 7." in flat
    assert "P(A>B): the share of the 50 sampled ground-truth worlds in which A's mean over " \
        "these 20 queries is higher than B's" in flat


def test_evaluate_table_drops_empty_columns_and_says_what_intervals_mean(capsys, here):
    status, text, err = run(capsys, "evaluate", "--qrels", "qrels.txt", *RUNS, "-m", "AP")
    assert status == 0, err
    header = text.splitlines()[0].split()
    assert header == ["system", "measure", "value", "ci_low", "ci_high", "estimand",
                      "n_queries", "confidence_level", "method"]  # no zero-width truth_*
    flat = " ".join(text.split())
    assert 'ci_low, ci_high: the 95% t interval over the 20 queries (estimand "queries")' in flat
    assert "truth_low" not in text
    _, csv, _ = run(capsys, "evaluate", "--qrels", "qrels.txt", *RUNS, "-m", "AP", "--format",
                    "csv")
    assert csv.splitlines()[0].split(",") == header  # the notes only below the text table
    status, text, err = run(capsys, "evaluate", *CATEGORICAL, *RUNS, "-m", "AP", "--n-worlds",
                            "50")
    assert status == 0, err
    assert {"truth_low", "truth_high", "truth_std", "mc_se"} <= set(text.splitlines()[0].split())
    flat = " ".join(text.split())
    assert ('ci_low, ci_high: the 95% t interval over the 20 queries (estimand "collection '
            '(truth model: shares)")') in flat
    assert "truth_low, truth_high: the middle 95% of the mean over 50 sampled ground-truth " \
        "worlds, the queries held fixed" in flat


def test_displacement(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pd.DataFrame(
        {
            "query_id": "q1",
            "annotator_id": "ann1",
            "item_id": list("abcde"),
            "rank": range(1, 6),
            "relevance": [1, 0.8, 0.6, 0.4, 0.2],
        }
    ).to_csv("answers.csv", index=False)
    pd.DataFrame(
        {"system": "S", "query_id": "q1", "item_id": list("caxby"), "rank": range(1, 6)}
    ).to_csv("runs.csv", index=False)
    status, out, err = run(capsys, "displacement", "--answers", "answers.csv", "--runs",
                           "runs.csv", "--n-items", "20", "--by", "list", "--format", "csv")
    assert status == 0, err
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    # paper_repro/santini_section5.py, example 2: w_A 3.8, optimist 5.0, pessimist 15.8
    assert row["w_a"] == pytest.approx(3.8)
    assert row["w_optimist"] == pytest.approx(5.0)
    assert row["w_pessimist"] == pytest.approx(15.8)


def test_repro(capsys):
    status, out, _ = run(capsys, "repro", "section4")
    assert status == 0 and "all published values reproduced" in out
    _, out, _ = run(capsys, "repro")
    assert "ex2.w_pessimist = 15.8" in out


def test_demo_writes_report_and_figures(capsys, tmp_path):
    status, out, err = run(capsys, "demo", "--out", str(tmp_path / "demo"), "--n-worlds", "100")
    assert status == 0, err
    written = {p.name for p in (tmp_path / "demo").iterdir()}
    assert {
        "report.md",
        "evaluation_aggregate.csv",
        "comparison.csv",
        "forest.png",
        "pr_curves.png",
        "precision_pmf.png",
        "category_reliability.png",
    } <= written
    assert "Pairwise comparison" in out
    assert f"Written to {tmp_path / 'demo'}/" in out  # the folder, not the staging one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]  # nothing else left


def test_demo_errors_name_its_flags(capsys, tmp_path):
    """Were "[Errno 17] File exists" for a file given as --out, "[Errno 2] ... /x/.out.h4f..."
    (the staging folder's name) for a folder it cannot write into, and "rng must be ..." for
    --seed -1."""
    afile = tmp_path / "afile"
    afile.write_text("")
    assert_user_error(run(capsys, "demo", "--out", str(afile)),
                      f"--out {afile} is a file, not a folder")
    below = afile / "out"  # its parent is a file: nothing can be made there
    assert_user_error(run(capsys, "demo", "--out", str(below)),
                      f"--out {below}: cannot write into {afile}")
    assert_user_error(run(capsys, "demo", "--out", str(tmp_path / "d"), "--seed", "-1"),
                      "--seed must be an integer >= 0; got -1")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


# ---------------------------------------------------------------------- user errors
def assert_user_error(result, *fragments: str) -> None:
    status, out, err = result
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one clear line, no traceback
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_missing_file(capsys, here):
    assert_user_error(run(capsys, "evaluate", "--qrels", "nope.txt", *RUNS),
                      "no such file", "nope.txt", "--qrels")


def test_a_folder_is_named_as_a_folder_and_a_pipe_is_read(capsys, files, tmp_path):
    # a pipe (the shell's <(zcat run.gz)) was refused as "no such file", as was a folder
    assert_user_error(run(capsys, "evaluate", "--qrels", str(files / "qrels.txt"), "--run",
                          str(tmp_path)), f"{tmp_path} is a folder, not a file", "--run")
    if not os.path.isdir("/dev/fd"):
        return
    import threading

    out, into = os.pipe()
    content = (files / "strong.txt").read_bytes()

    def write():
        with os.fdopen(into, "wb") as handle:
            handle.write(content)

    threading.Thread(target=write, daemon=True).start()
    try:
        piped = run(capsys, "evaluate", "--qrels", str(files / "qrels.txt"), "--run",
                    f"/dev/fd/{out}", "-m", "map", "--format", "csv")
    finally:
        os.close(out)
    given = run(capsys, "evaluate", "--qrels", str(files / "qrels.txt"), "--run",
                str(files / "strong.txt"), "-m", "map", "--format", "csv")
    assert piped[0] == given[0] == 0 and piped[1] == given[1]


def test_malformed_run_names_file_and_line(capsys, files, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2\n")
    assert_user_error(run(capsys, "evaluate", "--qrels", str(files / "qrels.txt"), "--run",
                          str(bad)), "bad.txt", "line 2")


def test_malformed_annotations_names_file_and_line(capsys, files, tmp_path):
    bad = tmp_path / "labels.csv"
    bad.write_text("item_id,annotator_id,label\nimg0001,a01,people\nimg0001,a02\n")
    assert_user_error(run(capsys, "evaluate", "--taxonomy", str(files / "taxonomy.json"),
                          "--annotations", str(bad), "--run", str(files / "strong.txt")),
                      "labels.csv", "line 3", "expected 3 fields")


def test_unknown_measure(capsys, here):
    assert_user_error(run(capsys, "evaluate", "--qrels", "qrels.txt", *RUNS, "-m", "MAPP"),
                      "-m MAPP: unknown measure")
    assert_user_error(run(capsys, "evaluate", "--qrels", "qrels.txt", *RUNS, "-m", "map",
                          "-m", "relstring.x"), "-m relstring.x")


def test_no_truth_and_two_truths(capsys, here):
    assert_user_error(run(capsys, "evaluate", *RUNS), "give exactly one ground truth")
    assert_user_error(run(capsys, "evaluate", "--qrels", "qrels.txt", "--prob-qrels",
                          "pqrels.csv", *RUNS),
                      "give exactly one ground truth", "--qrels and --prob-qrels")


@pytest.mark.parametrize("option", [["--taxonomy", "taxonomy.json"],
                                    ["--query-categories", "qrels.txt"],
                                    ["--implicit-root", "all"]])
def test_an_option_the_truth_would_ignore_is_an_error(capsys, here, option):
    """Issue 22: --qrels with --taxonomy used to ignore the taxonomy silently."""
    assert_user_error(run(capsys, "evaluate", "--qrels", "qrels.txt", *option, *RUNS),
                      option[0], "--annotations", "--qrels would ignore it")


def test_an_empty_run_file_is_reported_as_such(capsys, here, tmp_path):
    """Issue 22: it used to say 'no query of the runs is in the truth'; the reader now says
    the file has no data line (issue 23: a TREC file without data is refused on reading)."""
    (tmp_path / "empty.txt").write_text("# nothing yet\n")
    assert_user_error(run(capsys, "evaluate", "--qrels", "qrels.txt", "--run",
                          str(tmp_path / "empty.txt")),
                      "empty.txt", "no lines of data", "qid Q0 docno rank score tag")


def test_runs_sharing_a_tag_are_all_named_by_their_files_and_one_file_twice_is_refused(
        capsys, here, tmp_path):
    # two files tagged "strong" were named "strong" (the first) and the second file's name:
    # which run kept the tag depended on the order of the flags; one file given twice was
    # compared with itself under two names ("strong" and its file name)
    text = (here / "strong.txt").read_text()
    for name in ("first.txt", "second.txt"):
        (tmp_path / name).write_text(text)
    status, out, _ = run(capsys, "evaluate", "--qrels", "qrels.txt", "--run", "weak.txt",
                         "--run", str(tmp_path / "second.txt"), "--run",
                         str(tmp_path / "first.txt"), "-m", "AP", "--format", "csv")
    assert status == 0
    assert sorted(pd.read_csv(io.StringIO(out))["system"]) == ["first", "second", "weak"]
    assert_user_error(run(capsys, "compare", "--qrels", "qrels.txt", "--run", "weak.txt",
                          "--run", "strong.txt", "--run", str(here / "weak.txt"), "-m", "AP"),
                      f"--run {here / 'weak.txt'} is given twice (as --run weak.txt)")


def test_an_impossible_number_of_worlds_is_one_line_before_any_allocation(capsys, here):
    """Issue 23: --n-worlds 1000000000000 ended in numpy's MemoryError traceback."""
    start = time.process_time()
    assert_user_error(run(capsys, "evaluate", *CATEGORICAL, *RUNS, "-m", "P@10",
                          "--n-worlds", "1000000000000"),
                      "--n-worlds 1000000000000", "of memory", "worlds fit")
    assert time.process_time() - start < 60  # refused from its size, not tried


def test_bad_option_is_one_line(capsys):
    assert_user_error(run(capsys, "evaluate", "--run", "x.txt", "--frobnicate"),
                      "unrecognized arguments: --frobnicate")
    assert_user_error(run(capsys, "evaluate"), "give the runs: --run FILE")
    assert_user_error(run(capsys, "demo", "--figure-format", "gif"), "invalid choice")
    assert_user_error(run(capsys, "frobnicate"), "invalid choice", "evaluate")


def test_python_arguments_in_library_messages_become_flags(capsys, here, tmp_path):
    """Issue 19's examples: 'pass duplicates='max'' and 'use ties=...' named Python arguments."""
    dup = tmp_path / "dup.run"
    dup.write_text("q1 Q0 d1 1 2.0 s\nq1 Q0 d1 2 1.0 s\n")
    assert_user_error(run(capsys, "evaluate", "--qrels", "qrels.txt", "--run", str(dup),
                          "-m", "map"), "--duplicates max, first or last")
    result = run(capsys, "evaluate", "--qrels", "qrels.txt", "--run", "strong.txt",
                 "-m", "iP@0.5", "--preset", "textbook")
    assert_user_error(result, "--ties docid_desc", "--ties average")
    assert "ties=" not in result[2]


def test_warnings_are_one_line_notes_naming_flags(capsys, here, tmp_path):
    extra = tmp_path / "extra.txt"
    extra.write_text("q_unjudged Q0 d1 1 1.0 s\n" + (here / "strong.txt").read_text())
    status, out, err = run(capsys, "evaluate", "--qrels", "qrels.txt", "--run", str(extra),
                           "-m", "P@10")
    assert status == 0 and out
    notes = err.strip().splitlines()
    assert notes and all(line.startswith("fuzzytruth: note: ") for line in notes), err
    assert "q_unjudged" in err and ".py" not in err
    status, _, err = run(capsys, "compare", "--qrels", "qrels.txt", *RUNS, "-m", "P@10")
    assert status == 0  # 20 queries: the unreliable-inference warning, as a note
    assert err.startswith("fuzzytruth: note: ") and ".py:" not in err
    assert len(err.splitlines()) == len(set(err.splitlines()))  # each message once


def test_ctrl_c_prints_one_line_exits_130_and_leaves_no_partial_file(capsys, tmp_path,
                                                                    monkeypatch):
    def interrupted_demo(out, *, figure_format="png", n_worlds=500, seed=0, stream=None):
        (Path(out) / "report.md").write_text("half a rep")  # a file half-way through
        raise KeyboardInterrupt

    monkeypatch.setattr("fuzzytruth.demo.run_demo", interrupted_demo)
    status, out, err = run(capsys, "demo", "--out", str(tmp_path / "demo"))
    assert status == 130 and out == ""
    assert err == "fuzzytruth: interrupted\n"
    assert list(tmp_path.iterdir()) == []  # neither the folder nor its staging copy


def test_ctrl_c_while_an_extension_module_loads(capsys, tmp_path, monkeypatch):
    """Ctrl-C during the import of a compiled module surfaces as an ImportError caused by the
    KeyboardInterrupt (seen with matplotlib's ft2font): still an interruption."""

    def interrupted_import(out, *, figure_format="png", n_worlds=500, seed=0, stream=None):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as stop:
            raise ImportError("initialization failed") from stop

    monkeypatch.setattr("fuzzytruth.demo.run_demo", interrupted_import)
    status, out, err = run(capsys, "demo", "--out", str(tmp_path / "demo"))
    assert (status, out, err) == (130, "", "fuzzytruth: interrupted\n")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------- real processes
def test_the_installed_entry_point_end_to_end(files):
    out = fuzzytruth("evaluate", "--qrels", "qrels.txt", *RUNS, "-m", "P@10", "--format",
                     "csv", cwd=files)
    assert out.returncode == 0, out.stderr
    assert pd.read_csv(io.StringIO(out.stdout))["system"].tolist() == ["strong", "medium",
                                                                       "weak"]


def test_help_imports_no_library():
    """``fuzzytruth --help`` stays cheap: no numpy, pandas, scipy or tqdm, nothing but the
    command line's own modules (and the lazy names' two, which import only the standard
    library)."""
    code = (
        "import sys\n"
        "from fuzzytruth.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'numpy', 'pandas', 'scipy', 'tqdm', 'matplotlib', 'pyarrow'}))\n"
        "print(sorted(m for m in sys.modules if m.startswith('fuzzytruth')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    heavy, ours = out.stdout.strip().splitlines()[-2:]
    assert heavy == "[]"
    own = ("fuzzytruth.cli", "fuzzytruth._lazy", "fuzzytruth._warnings")
    assert all(m.startswith(own) or m == "fuzzytruth" for m in ast.literal_eval(ours)), ours


def test_sigint_during_work(tmp_path):
    """A real Ctrl-C (SIGINT) while the demo computes: one line, status 130, nothing left."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "fuzzytruth.cli", "demo", "--out", str(tmp_path / "demo"),
         "--n-worlds", "20000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
    )
    deadline = time.monotonic() + 240
    while not any(tmp_path.iterdir()) and time.monotonic() < deadline:  # the work has begun
        time.sleep(0.2)
    time.sleep(0.5)
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "fuzzytruth: interrupted", err
    assert "Traceback" not in err and out == ""
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def python_sigint():
    """SIGINT handled by Python's default handler, as in a fresh interpreter (a test runner's
    worker may have another), for the test's duration."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_an_error_after_a_ctrl_c_is_the_interruption(monkeypatch, capsys, python_sigint):
    """An extension module interrupted while it loads can fail later with an error that does
    not name the KeyboardInterrupt (scipy's HiGHS module under load: 'type "ObjSense" is
    already registered', a traceback and status 1): after a Ctrl-C it is an interruption."""
    import fuzzytruth.cli.app as app

    def interrupted_import(argv):
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            pass  # swallowed, as a module's loader may
        raise ImportError('generic_type: type "ObjSense" is already registered!')

    monkeypatch.setattr(app, "_main", interrupted_import)
    assert app.main(["demo"]) == 130
    assert capsys.readouterr().err == "fuzzytruth: interrupted\n"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_a_ctrl_c_python_cannot_raise_is_delivered_again(monkeypatch, capsys, python_sigint):
    """A Ctrl-C landing where Python cannot raise it (a finaliser, a callback of the import
    system) was printed as "Exception ignored" and the work went on: it stops the work."""
    import fuzzytruth.cli.app as app

    class Finaliser:
        def __del__(self):
            raise KeyboardInterrupt

    def work(argv):
        Finaliser()  # collected at once: its exception cannot be raised
        time.sleep(30)
        return 0

    monkeypatch.setattr(app, "_main", work)
    hook, start = sys.unraisablehook, time.monotonic()
    assert app.main(["demo"]) == 130
    assert time.monotonic() - start < 20
    err = capsys.readouterr().err
    assert err == "fuzzytruth: interrupted\n", err
    assert sys.unraisablehook is hook


def test_old_import_paths_keep_working():
    import fuzzytruth.cli as cli
    import fuzzytruth.cli.agreement as agreement
    import fuzzytruth.cli_collection as old

    assert callable(cli.main) and callable(cli.build_parser)
    assert issubclass(cli.UserError, Exception)
    assert old is agreement
