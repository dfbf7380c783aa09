"""The command line under hostile input files (issue 23): every command, each of its input files
mutated as ``tests/hostile.py`` mutates them (truncation, byte flips, wrong field counts, NaN /
inf / huge numbers, hostile ids, other line ends, every compression, garbage), run in this
process (``main([...])``) for speed.

The law: the command succeeds (status 0, no error line), or it exits with status 2 after one
line ``fuzzytruth <command>: error: ...`` on stderr that names an input file (beside any
``fuzzytruth: note:`` lines); never a traceback, never another status. Where the mistake is a
flag's rather than a file's, the line names the flag (the targeted tests below).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
from pathlib import Path

import pytest
from hostile import ANN_CSV, PQ_CSV, QRELS, TAX_CSV, Format, hostile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzzytruth.cli import main

VALID = {
    "run.txt": b"q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.5 sys\nq2 Q0 d1 1 0.5 sys\nq2 Q0 d3 2 0.1 sys\n"
               b"q3 Q0 d2 1 1 sys\n",
    "run2.txt": b"q1 Q0 d2 1 2.5 t\nq1 Q0 d1 2 1.5 t\nq2 Q0 d3 1 0.5 t\nq2 Q0 d1 2 0.1 t\n"
                b"q3 Q0 d1 1 1 t\n",
    "run_sel.txt": b"0 Q0 1 1 2.5 sys\n0 Q0 2 2 1.5 sys\n1 Q0 0 1 0.5 sys\n",
    "qrels.txt": QRELS + b"q3 0 d2 1\n",
    "pq.csv": PQ_CSV + b"q3,d2,0.5,1\n",
    "tax.csv": TAX_CSV + b"nature,scenery\n",
    "ann.csv": ANN_CSV + b"d1,a,people\nd1,b,crowd\nd2,a,scenery\nd3,a,city\nq1,a,single\n"
               b"q2,a,city\nq3,a,crowd\n",
    "cat.csv": b"query_id,category\nq1,people\nq2,scenery\n",
    "rankings.csv": b"item_id,reader_id,class,rank_group\nd1,r1,crowd,0\nd1,r1,city,1\n"
                    b"d2,r1,city,0\nd3,r1,city,0\nd3,r2,crowd,0\nq1,r1,crowd,0\nq2,r1,city,0\n"
                    b"q3,r1,city,0\n",
    "sel.json": b"[[[[1], [0]]],\n [[[0, 1]], [[1]]],\n [[[0]]]]\n",
    "classes.txt": b"crowd\ncity\n",
    "prefs.txt": b"q1 u1 s1 d1 3\nq1 u1 s1 d2 1.5\nq2 u1 s1 d1 0\nq2 u1 s1 d3 1\n",
    "z.txt": b"q1 P_10 0.1 0.2\nq2 P_10 0.2 0.1\n",
    "pred.csv": b"item_id,class,score\nd1,single,0.2\nd1,city,0.8\nd2,single,0.6\n"
                b"d2,city,0.4\nd3,single,0.5\nd3,city,0.5\n",
    "answers.csv": b"query_id,annotator_id,item_id,rank,relevance\nq1,ann1,a,1,1.0\n"
                   b"q1,ann1,b,2,0.5\nq1,ann2,b,1,1\n",
    "druns.csv": b"system,query_id,item_id,rank\nS,q1,b,1\nS,q1,a,2\nT,q1,a,1\n",
}

# command line (file names stand for their paths) and the files mutated
COMMANDS = {
    "evaluate-qrels": ("evaluate --qrels qrels.txt --run run.txt -m P@2", ["qrels.txt",
                                                                             "run.txt"]),
    "evaluate-prob-qrels": ("evaluate --prob-qrels pq.csv --run run.txt -m P@2 --n-worlds 10",
                            ["pq.csv"]),
    "evaluate-annotations": ("evaluate --taxonomy tax.csv --annotations ann.csv --run run.txt "
                             "-m P@2 --query-categories cat.csv",
                             ["tax.csv", "ann.csv", "cat.csv"]),
    "evaluate-rankings": ("evaluate --rankings rankings.csv --run run.txt -m P@2 --truth-model "
                          "irn", ["rankings.csv"]),
    "evaluate-selectors": ("evaluate --rankings sel.json --classes classes.txt --run "
                           "run_sel.txt -m P@2", ["sel.json", "classes.txt"]),
    "evaluate-prefs": ("evaluate -R prefs --qrels prefs.txt --run run.txt -m prefs_simp",
                       ["prefs.txt"]),
    "evaluate-zscores": ("evaluate --qrels qrels.txt --run run.txt -m P_10 -Z z.txt", ["z.txt"]),
    "compare": ("compare --qrels qrels.txt --run run.txt --run run2.txt -m P@2", ["run2.txt"]),
    "agreement": ("agreement --taxonomy tax.csv --annotations ann.csv --n-resamples 20",
                  ["ann.csv", "tax.csv"]),
    "classify": ("classify --predictions pred.csv --taxonomy tax.csv --annotations ann.csv",
                 ["pred.csv"]),
    "displacement": ("displacement --answers answers.csv --runs druns.csv --n-items 10",
                     ["answers.csv", "druns.csv"]),
}

HOSTILE = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def call(argv: list[str]) -> tuple[object, str, str]:
    """``fuzzytruth argv`` in this process: (status, stdout, stderr); an exception that
    escapes ``main`` fails the test with its traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as stop:  # the parser's own errors
            status = stop.code
    return status, out.getvalue(), err.getvalue()


def command_line(folder: Path, command: str) -> list[str]:
    return [str(folder / w) if w in VALID else w for w in COMMANDS[command][0].split()]


def check_outcome(status: object, err: str, paths: list[str]) -> None:
    """The law of the module docstring."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if not line.startswith("fuzzytruth: note: ")]
    if status == 0:
        assert not errors, err
        return
    assert status == 2, (status, err)
    assert len(errors) == 1 and ": error: " in errors[0], err
    assert any(path in errors[0] for path in paths), f"no input file named: {errors[0]}"


def write_valid(folder: Path) -> None:
    for name, data in VALID.items():
        (folder / name).write_bytes(data)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_reads_its_valid_files(tmp_path, command):
    # the mutations start from files the command accepts (else every refusal would be trivial)
    write_valid(tmp_path)
    status, out, err = call(command_line(tmp_path, command))
    assert status == 0 and out, err
    check_outcome(status, err, [])


@pytest.mark.parametrize(("command", "name"), [
    (command, name) for command, (_, names) in sorted(COMMANDS.items()) for name in names])
@HOSTILE
@given(data=st.data())
def test_hostile_files_give_one_line_naming_a_file_and_status_2(tmp_path, command, name, data):
    write_valid(tmp_path)
    _, content = data.draw(hostile(Format(name, name, VALID[name], read=None)),
                           label="mutated file")
    (tmp_path / name).write_bytes(content)
    status, _, err = call(command_line(tmp_path, command))
    check_outcome(status, err, [str(tmp_path / n) for n in VALID])


# ---------------------------------------------------------------------- targeted cases
def one_error(status: object, err: str, *fragments: str) -> str:
    check_outcome(status, err, [""])
    assert status == 2, err
    line = next(x for x in err.splitlines() if ": error: " in x)
    for fragment in fragments:
        assert fragment in line, line
    return line


def test_an_unknown_query_category_names_the_file_and_line(tmp_path):
    # issue 23: a category that is not a taxonomy node named neither file nor line (and was
    # ignored when no run asked for its query)
    write_valid(tmp_path)
    (tmp_path / "cat.csv").write_bytes(b"query_id,category\nq1,people\n# a typo\nq2,sceneryy\n")
    status, _, err = call(command_line(tmp_path, "evaluate-annotations"))
    one_error(status, err, "--query-categories", f"{tmp_path / 'cat.csv'}, line 4",
              "category 'sceneryy' is not in the taxonomy (closest: 'scenery')")


def test_a_query_without_category_names_the_flag(tmp_path):
    # issue 23: the note said "give them in query_categories", the library's parameter
    write_valid(tmp_path)
    (tmp_path / "cat.csv").write_bytes(b"query_id,category\nq1,people\n")
    (tmp_path / "run.txt").write_bytes(VALID["run.txt"] + b"q9 Q0 d1 1 1 sys\n")
    status, _, err = call([*command_line(tmp_path, "evaluate-annotations"), "--missing",
                           "error"])
    line = one_error(status, err, "give them in --query-categories", "(--missing error)")
    assert "query_categories" not in line


@pytest.mark.parametrize("view", ["coefficients", "levels"])
def test_annotations_that_cannot_give_agreement_name_the_file(tmp_path, view):
    # found by the hostile-file property with ten times its examples: a file truncated to one
    # label gave "--annotations (coefficients): no item has two or more annotators", naming
    # the flag but not the file
    write_valid(tmp_path)
    (tmp_path / "ann.csv").write_bytes(b"item_id,annotator_id,label\ni1,a,people\n")
    status, _, err = call([*command_line(tmp_path, "agreement"), view])
    one_error(status, err, f"--annotations {tmp_path / 'ann.csv'} ({view}): no item has two "
              "or more annotators")


def test_selectors_nested_too_deep_are_one_line_not_a_traceback(tmp_path):
    # issue 23: `evaluate --rankings deep.json` printed a RecursionError traceback, status 1
    write_valid(tmp_path)
    (tmp_path / "sel.json").write_text("[" * 5000 + "]" * 5000)
    status, _, err = call(command_line(tmp_path, "evaluate-selectors"))
    one_error(status, err, "--rankings", str(tmp_path / "sel.json"), "nests far deeper")


@pytest.mark.parametrize("command", ["evaluate-qrels", "agreement", "classify", "displacement",
                                     "evaluate-zscores", "evaluate-prefs"])
def test_the_decompressed_size_cap_is_a_flag(tmp_path, command):
    # issue 23: the message said "pass a larger max_decompressed_bytes", which no command took
    write_valid(tmp_path)
    name = COMMANDS[command][1][-1 if command == "evaluate-qrels" else 0]
    (tmp_path / name).write_bytes(gzip.compress(VALID[name]))
    argv = command_line(tmp_path, command)
    status, _, err = call([*argv, "--max-decompressed-bytes", "20"])
    line = one_error(status, err, str(tmp_path / name), "decompresses to more than 20 bytes",
                     "pass a larger --max-decompressed-bytes, or --max-decompressed-bytes "
                     "None for no limit")
    assert "max_decompressed_bytes" not in line
    for value in ("none", "None", str(len(VALID[name])), "auto"):
        status, _, err = call([*argv, "--max-decompressed-bytes", value])
        assert status == 0, err
    status, _, err = call([*argv, "--max-decompressed-bytes", "0"])
    assert status == 2 and "argument --max-decompressed-bytes: expected a number of bytes >= " \
        "1, auto or none; got '0'" in err


def test_displacement_reads_gzip_content_and_names_file_and_line(tmp_path):
    # issue 23: the displacement tables were read by pandas: no file name in errors, and
    # compression was not recognised from the content
    write_valid(tmp_path)
    answers = tmp_path / "answers.csv"
    answers.write_bytes(gzip.compress(VALID["answers.csv"]))  # gzip under a plain name
    status, out, err = call(command_line(tmp_path, "displacement"))
    assert status == 0, err
    plain = tmp_path / "plain"
    plain.mkdir()
    write_valid(plain)
    assert out == call(command_line(plain, "displacement"))[1]
    answers.write_bytes(gzip.compress(VALID["answers.csv"] + b"# note\nq1,ann2,c,2,oops\n"))
    status, _, err = call(command_line(tmp_path, "displacement"))
    one_error(status, err, f"{answers}, line 6", "'relevance'", "'oops'")


def test_the_rankings_file_of_a_json_command_line_names_its_line(tmp_path):
    write_valid(tmp_path)
    (tmp_path / "sel.json").write_text(json.dumps([[[[0]]], [[[1, 1]]]], indent=1))
    status, _, err = call(command_line(tmp_path, "evaluate-selectors"))
    # json.dumps(..., indent=1) puts the second item's opening bracket on line 9
    one_error(status, err, f"{tmp_path / 'sel.json'}, line 9, item 1, reader 0: class 1 "
              "appears twice")


def test_a_run_sharing_no_query_with_the_truth_names_both_files(tmp_path):
    # "no query left to evaluate" named no file (the hostile-file law failed on a mutation that
    # renamed every query of the qrels)
    write_valid(tmp_path)
    (tmp_path / "qrels.txt").write_bytes(b"z1 0 d1 1\n")
    status, _, err = call(command_line(tmp_path, "evaluate-qrels"))
    one_error(status, err, "no query left to evaluate: no query of the runs "
              f"(--run {tmp_path / 'run.txt'}) is in the truth (--qrels {tmp_path / 'qrels.txt'})")


def test_a_class_no_node_names_the_predictions_file(tmp_path):
    # a class that is not a taxonomy node was "of the predictions", no file named
    write_valid(tmp_path)
    (tmp_path / "pred.csv").write_bytes(VALID["pred.csv"].replace(b"single", b"nan"))
    status, _, err = call(command_line(tmp_path, "classify"))
    one_error(status, err, "class(es) 'nan' of the predictions 'pred' "
              f"(--predictions {tmp_path / 'pred.csv'}) are not nodes of the truth's taxonomy")


@pytest.mark.parametrize("command", ["evaluate-annotations", "agreement", "classify"])
def test_annotations_under_crowd_kits_column_names_are_offered_the_flags_that_read_them(
        tmp_path, command):
    """crowd-kit's table (task, worker, label) given to --annotations: every command that
    reads labels says which flags read it (the library's item=, annotator= spelled as the
    flags, never as Python), and reads it with them."""
    write_valid(tmp_path)
    renamed = VALID["ann.csv"].replace(b"item_id,annotator_id,", b"task,worker,", 1)
    (tmp_path / "ann.csv").write_bytes(renamed)
    argv = command_line(tmp_path, command)
    one_error(*call(argv)[::2], "ann.csv", "(found ['task', 'worker', 'label']): pass "
              "--item-column task, --annotator-column worker")
    status, out, err = call([*argv, "--item-column", "task", "--annotator-column", "worker"])
    assert status == 0 and out, err
