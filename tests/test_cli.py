"""The ``fuzzytruth`` command, run as a subprocess on real files in a temporary folder."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from fuzzytruth import (
    Membership,
    Qrels,
    write_annotations,
    write_probabilistic_qrels,
    write_taxonomy,
    write_trec_qrels,
    write_trec_run,
)
from fuzzytruth.datasets import image_collection
from fuzzytruth.uncertain import ProbabilisticQrels

COMMANDS = ["evaluate", "compare", "displacement", "repro", "demo"]


def fuzzytruth(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fuzzytruth.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=cwd,
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The bundled image collection written out as a user would have it, 20 queries only."""
    folder = tmp_path_factory.mktemp("cli")
    collection = image_collection()
    write_taxonomy(collection.taxonomy, folder / "taxonomy.json")
    write_annotations(collection.annotations, folder / "labels.csv")
    queries = sorted(collection.runs["strong"]["query_id"].unique())[:20]
    for name, run in collection.run_objects().items():
        frame = run.to_dataframe()
        subset = frame[frame["query_id"].isin(queries)]
        from fuzzytruth import Run

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


RUNS = ["--run", "strong.txt", "--run", "medium.txt", "--run", "weak.txt"]
CATEGORICAL = ["--taxonomy", "taxonomy.json", "--annotations", "labels.csv"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_an_example(command):
    out = fuzzytruth(command, "--help")
    assert out.returncode == 0
    assert "example" in out.stdout


def test_evaluate_categorical_text_csv_json(files):
    text = fuzzytruth(
        "evaluate", *CATEGORICAL, *RUNS, "-m", "P@10", "-m", "AP", "--n-worlds", "100", cwd=files
    )
    assert text.returncode == 0, text.stderr
    assert "strong" in text.stdout and "worlds" in text.stdout
    csv = fuzzytruth(
        "evaluate",
        *CATEGORICAL,
        *RUNS,
        "-m",
        "P@10",
        "--n-worlds",
        "100",
        "--format",
        "csv",
        "--per-query",
        cwd=files,
    )
    frame = pd.read_csv(io.StringIO(csv.stdout))
    assert len(frame) == 3 * 20
    assert {"system", "query_id", "measure", "mean", "ci_low", "ci_high", "method"} <= set(frame)
    assert (frame["ci_low"] <= frame["mean"]).all() and (frame["mean"] <= frame["ci_high"]).all()
    js = fuzzytruth(
        "evaluate",
        *CATEGORICAL,
        *RUNS,
        "-m",
        "P@10",
        "--n-worlds",
        "100",
        "--format",
        "json",
        cwd=files,
    )
    records = json.loads(js.stdout)
    assert [r["system"] for r in records] == ["strong", "medium", "weak"]
    assert records[0]["value"] > records[2]["value"]  # the strong system beats the weak one


def test_evaluate_crisp_qrels_gives_point_masses(files):
    out = fuzzytruth(
        "evaluate",
        "--qrels",
        "qrels.txt",
        *RUNS,
        "-m",
        "P@10",
        "--format",
        "csv",
        "--per-query",
        cwd=files,
    )
    assert out.returncode == 0, out.stderr
    frame = pd.read_csv(io.StringIO(out.stdout))
    assert (frame["std"] == 0).all() and (frame["ci_low"] == frame["ci_high"]).all()


def test_evaluate_probabilistic_qrels(files):
    out = fuzzytruth(
        "evaluate",
        "--prob-qrels",
        "pqrels.csv",
        "--run",
        "strong.txt",
        "-m",
        "P@10",
        "--format",
        "csv",
        cwd=files,
    )
    assert out.returncode == 0, out.stderr
    assert pd.read_csv(io.StringIO(out.stdout))["method"].iloc[0] == "exact"


def test_compare_formats(files):
    text = fuzzytruth(
        "compare",
        *CATEGORICAL,
        *RUNS,
        "-m",
        "AP",
        "--n-worlds",
        "100",
        "--method",
        "randomization",
        "--n-resamples",
        "2000",
        cwd=files,
    )
    assert text.returncode == 0, text.stderr
    assert "strong" in text.stdout and "95%" in text.stdout
    csv = fuzzytruth(
        "compare",
        *CATEGORICAL,
        *RUNS,
        "-m",
        "AP",
        "--n-worlds",
        "100",
        "--baseline",
        "weak",
        "--format",
        "csv",
        cwd=files,
    )
    table = pd.read_csv(io.StringIO(csv.stdout))
    assert set(table["system_b"]) == {"weak"} and len(table) == 2
    assert {"difference", "ci_low", "ci_high", "pvalue", "pvalue_adjusted"} <= set(table)
    latex = fuzzytruth(
        "compare", "--qrels", "qrels.txt", *RUNS, "-m", "AP", "--format", "latex", cwd=files
    )
    assert latex.returncode == 0 and "\\begin{tabular}" in latex.stdout


def test_displacement(tmp_path):
    pd.DataFrame(
        {
            "query_id": "q1",
            "annotator_id": "ann1",
            "item_id": list("abcde"),
            "rank": range(1, 6),
            "relevance": [1, 0.8, 0.6, 0.4, 0.2],
        }
    ).to_csv(tmp_path / "answers.csv", index=False)
    pd.DataFrame(
        {"system": "S", "query_id": "q1", "item_id": list("caxby"), "rank": range(1, 6)}
    ).to_csv(tmp_path / "runs.csv", index=False)
    out = fuzzytruth(
        "displacement",
        "--answers",
        "answers.csv",
        "--runs",
        "runs.csv",
        "--n-items",
        "20",
        "--by",
        "list",
        "--format",
        "csv",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    row = pd.read_csv(io.StringIO(out.stdout)).iloc[0]
    # paper_repro/santini_section5.py, example 2: w_A 3.8, optimist 5.0, pessimist 15.8
    assert row["w_a"] == pytest.approx(3.8)
    assert row["w_optimist"] == pytest.approx(5.0)
    assert row["w_pessimist"] == pytest.approx(15.8)


def test_repro():
    out = fuzzytruth("repro", "section4")
    assert out.returncode == 0 and "all published values reproduced" in out.stdout
    out = fuzzytruth("repro")
    assert "ex2.w_pessimist = 15.8" in out.stdout


def test_demo_writes_report_and_figures(tmp_path):
    out = fuzzytruth("demo", "--out", str(tmp_path / "demo"), "--n-worlds", "100")
    assert out.returncode == 0, out.stderr
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
    assert "Pairwise comparison" in out.stdout


# ---------------------------------------------------------------------- user errors
def assert_user_error(out: subprocess.CompletedProcess, *fragments: str) -> None:
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr  # one clear line, no traceback
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_missing_file(files):
    out = fuzzytruth("evaluate", "--qrels", "nope.txt", *RUNS, cwd=files)
    assert_user_error(out, "no such file", "nope.txt")


def test_malformed_run_names_file_and_line(files, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2\n")
    out = fuzzytruth("evaluate", "--qrels", str(files / "qrels.txt"), "--run", str(bad))
    assert_user_error(out, "bad.txt", "line 2")


def test_malformed_annotations_names_file_and_line(files, tmp_path):
    bad = tmp_path / "labels.csv"
    bad.write_text("item_id,annotator_id,label\nimg0001,a01,people\nimg0001,a02\n")
    out = fuzzytruth(
        "evaluate",
        "--taxonomy",
        str(files / "taxonomy.json"),
        "--annotations",
        str(bad),
        "--run",
        str(files / "strong.txt"),
    )
    assert_user_error(out, "labels.csv", "line 3", "expected 3 fields")


def test_unknown_measure(files):
    out = fuzzytruth("evaluate", "--qrels", "qrels.txt", *RUNS, "-m", "MAPP", cwd=files)
    assert_user_error(out, "MAPP")


def test_no_truth_and_two_truths(files):
    assert_user_error(fuzzytruth("evaluate", *RUNS, cwd=files), "give exactly one ground truth")
    out = fuzzytruth("evaluate", "--qrels", "qrels.txt", *CATEGORICAL, *RUNS, cwd=files)
    assert_user_error(out, "give exactly one ground truth")


def test_bad_option_is_one_line():
    out = fuzzytruth("evaluate", "--run", "x.txt", "--frobnicate")
    assert_user_error(out, "unrecognized arguments: --frobnicate")
    assert_user_error(fuzzytruth("evaluate"), "required: --run")
    assert_user_error(fuzzytruth("demo", "--figure-format", "gif"), "invalid choice")
