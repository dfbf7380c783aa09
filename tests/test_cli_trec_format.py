"""``fuzzytruth evaluate --format trec`` against trec_eval 9.0.8's own expected outputs.

The reference files are trec_eval's ``test/`` folder (tests/data/trec_eval, README there: the
trec_eval command behind each file; ``v10/`` holds trec_eval 10.0's, run here under
``--preset trec10``). For every file, the command line is run with the same
flags (trec_eval without ``-m`` is ``-m official`` here; ``-R``, ``-Z``, ``-c``, ``-M``, ``-l``,
``-q``, ``-N``, ``-n`` and the ``meas_params`` spellings as trec_eval was given them; ``flags/``
holds the outputs of the two binaries for the flags trec_eval's tests leave out) and its whole
output compared byte for byte. The same files with the defaults a user gets (no ``--format``: the
trec_eval spellings choose it) are the cases themselves: no case passes ``--format``.
"""

import gzip
import math
from pathlib import Path

import pytest
from test_cli import run as _main  # (status, stdout, stderr) of the command, in-process

from fuzzytruth import evaluate
from fuzzytruth.cli import main
from fuzzytruth.cli._trec import is_trec_spelling
from fuzzytruth.io import read_trec_qrels, read_trec_run
from fuzzytruth.io.text import plain_file
from fuzzytruth.measures.names import expand
from fuzzytruth.measures.trec_output import trec_name

DATA = Path(__file__).parent / "data" / "trec_eval"
MEAS_PARAMS = [
    "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
    "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
    "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
]
# expected file -> (qrels, run, flags as trec_eval was given them)
CASES = {
    "out.test": ("qrels.test", "results.test", []),  # trec_eval without -m
    "out.test -m official": ("qrels.test", "results.test", ["-m", "official"]),
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
    # trec_eval 10.0's outputs of the same commands (--preset trec10): its all_trec adds rbp
    # (graded gains: out.test.aql), rbp_resid and unj, and -c -q prints the queries -c adds
    **{f"v10/{name}": (qrels, run, ["--preset", "trec10", *(
        ["-q", "-m", "all_trec", "-Z", str(DATA / "v10" / "zscores_file.gz")]
        if name == "out.test.aqZ" else flags)])
       for name, (qrels, run, flags) in [
           ("out.test", ("qrels.test", "results.test", [])),
           ("out.test.a", ("qrels.test", "results.test", ["-m", "all_trec"])),
           ("out.test.aq", ("qrels.test", "results.test", ["-m", "all_trec", "-q"])),
           ("out.test.aqc", ("qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c"])),
           ("out.test.aqcM", ("qrels.test", "results.trunc",
                              ["-m", "all_trec", "-q", "-c", "-M100"])),
           ("out.test.aql", ("qrels.rel_level", "results.test",
                             ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"])),
           ("out.test.aqZ", ("qrels.test", "results.test", [])),
           ("out.test.meas_params", ("qrels.test", "results.test", MEAS_PARAMS)),
       ]},
    # the flags trec_eval's own tests leave out (flags/README.md): -N, the collection's size
    # that utility's fourth coefficient reads, and -n, no summary lines
    **{f"flags/{version}out.test.{name}": ("qrels.test", "results.test", [*preset, *flags])
       for version, preset in (("", []), ("v10.", ["--preset", "trec10"]))
       for name, flags in (("qN", ["-q", "-N", "1000", "-m", "utility.1,-1,0,1"]),
                           ("qd", ["-q", "-m", "utility.1,-1,0,1"]),  # -N's default, 0
                           ("qn", ["-q", "-n"]))},
    # -c -N: the query -c adds (302) scored on the stand-in list by trec_eval 10.0, never
    # evaluated by 9.0.8 (0 in the sum of utility and yaap, divided by the 3 queries)
    **{f"flags/{version}out.test.qcN": ("qrels.test", "results.trunc", [
        *preset, "-q", "-c", "-N", "1000", "-m", "utility.1,-1,0,1", "-m", "yaap"])
       for version, preset in (("", []), ("v10.", ["--preset", "trec10"]))},
    # -c with preferences (fuzzytruth raised an AttributeError): query 302, which the run
    # lacks, is scored on the stand-in list by 10.0; 9.0.8 adds nothing to the sums, so
    # prefs_num_prefs_poss counts the pairs of 301 and 303 alone
    **{f"flags/{version}out.test.qrels_prefs_qc": ("qrels.test", "results.trunc", [
        *preset, "-R", "qrels_prefs", "-m", "all_prefs", "-c", "-q"])
       for version, preset in (("", []), ("v10.", ["--preset", "trec10"]))},
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
    assert run_cli(capsys, qrels, run, flags) == (DATA / expected.split()[0]).read_text()


@pytest.mark.parametrize("expected", ["out.test", "out.test.aq", "out.test.aqcM", "out.test.aql"])
def test_byte_for_byte_from_plain_files_parsed_from_disk(capsys, tmp_path, expected):
    # the same cases from uncompressed files, the run's tabs and runs of spaces made single
    # spaces (trec_eval splits at any whitespace): the reader's disk path, the one most users'
    # files take (single-spaced: the fields only checked left unconverted, the run's tag read
    # from its last line), gives trec_eval's output with the defaults
    qrels, run, flags = CASES[expected]
    plain = {}
    for name in (qrels, run):
        text = gzip.decompress((DATA / f"{name}.gz").read_bytes()).decode("ascii")
        plain[name] = tmp_path / name
        plain[name].write_text("\n".join(" ".join(line.split()) for line in text.splitlines())
                               + "\n")
        assert plain_file(plain[name], absent=b"\t\v\f").single_spaced
    status = main(["evaluate", "--qrels", str(plain[qrels]), "--run", str(plain[run]), *flags])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert out.out == (DATA / expected.split()[0]).read_text()


@pytest.mark.parametrize(("expected", "qrels", "rel_format", "measures"), [
    ("v10/out.test.aqc", "qrels.test", "qrels", "all_trec"),
    ("flags/v10.out.test.qrels_jg_qc", "qrels.123", "qrels_jg", "qrels_jg"),
    ("flags/v10.out.test.qrels_prefs_qc", "qrels.test", "qrels_prefs", "all_prefs"),
])
def test_trec10_complete_evaluates_the_run_once(capsys, monkeypatch, expected, qrels,
                                                 rel_format, measures):
    """-c -q under trec_eval 10.0 scores the queries -c adds on its stand-in list: they are
    the truth's queries the run lacks (302 here), known before the run is evaluated, so it is
    evaluated once, with the stand-ins (it was evaluated a first time to find them)."""
    from fuzzytruth.cli import evaluate as command

    evaluated = []
    judgments = command._evaluate_judgments
    monkeypatch.setattr(command, "_evaluate_judgments",
                        lambda *args: evaluated.append(args[2].queries) or judgments(*args))
    out = run_cli(capsys, qrels, "results.trunc", ["--preset", "trec10", "-R", rel_format,
                                                   "-m", measures, "-c", "-q"])
    assert out == (DATA / expected).read_text()
    assert evaluated == [["301", "302", "303"]]


@pytest.mark.parametrize("preset", ["trec", "trec10"])
def test_no_summary_without_per_query_prints_nothing(capsys, preset):
    # trec_eval -n qrels.test results.test prints nothing, 9.0.8 and 10.0 alike (flags/README)
    assert run_cli(capsys, "qrels.test", "results.test", ["--preset", preset, "-n"]) == ""


def test_trec10_s_all_trec_is_the_preset_s_group():
    """measures.c of trec_eval 10.0 (trec_names) adds rbp, rbp_resid and unj to all_trec; its
    rbp and rbp_resid are two measures (m_rbp.c, m_rbp_resid.c), so -m rbp prints rbp alone.
    The preset table holds the group (Preset.groups), and every entry point reads it."""
    nine = [str(m) for m in expand("all_trec")]
    ten = [str(m) for m in expand("all_trec", preset="trec10")]
    assert ten == [*nine, "RBP(p=0.9,grading=graded)",
                   "RBPResidual(p=0.9,when_judged=zero)", "Unjudged@5", "Unjudged@10",
                   "Unjudged@20"]
    assert expand("all_trec", preset="textbook") == expand("all_trec")
    run, qrels = (read_trec_run(DATA / "results.test.gz"),
                  read_trec_qrels(DATA / "qrels.test.gz"))
    assert list(evaluate(run, qrels, "all_trec", preset="trec10").measures) == ten


def test_trec10_rbp_prints_rbp_alone(capsys):
    out = run_cli(capsys, "qrels.test", "results.test", ["--preset", "trec10", "-m", "rbp"])
    assert out == _lines_of("v10/out.test.a", "rbp", per_query=False)


def _printed(expected: str) -> list[str]:
    """The names trec_eval printed in an expected output, in order, each once."""
    lines = (DATA / expected).read_text().splitlines()
    return list(dict.fromkeys(line.split("\t")[0].strip() for line in lines))


def _lines_of(expected: str, name: str, *, per_query: bool) -> str:
    """The lines of ``name`` in an expected output: its per-query lines, or its ``all``
    line."""
    lines = (DATA / expected).read_text().splitlines(keepends=True)
    return "".join(line for line in lines if line.split("\t")[0].strip() == name
                   and (line.split("\t")[1] == "all") != per_query)


@pytest.mark.parametrize("name", _printed("out.test.meas_params"))
def test_a_printed_name_pasted_back_prints_itself(capsys, name):
    """Issue 22 item 7: what trec_eval prints can be pasted after -m (README); it chooses
    trec_eval's output and prints trec_eval's own name, parameters as written
    (``11pt_avg_.25,.5,.75``, not ``11pt_avg_0.25,0.5,0.75``). Reference: trec_eval's lines of
    that name in out.test.meas_params, which was made with -q."""
    assert is_trec_spelling(name)
    out = run_cli(capsys, "qrels.test", "results.test", ["-m", name, "-q"])
    assert out == (_lines_of("out.test.meas_params", name, per_query=True)
                   + _lines_of("out.test.meas_params", name, per_query=False))


@pytest.mark.parametrize("name", [n for n in _printed("out.test.qrels_jg") if "avgjg" in n])
def test_judgment_group_names_pasted_back(capsys, name):
    """``P_avgjg_5``, ``Rprec_mult_avgjg_0.20``: trec_eval's output (they gave the tidy table
    with a column saying P@5); reference: out.test.qrels_jg."""
    assert is_trec_spelling(name)
    out = run_cli(capsys, "qrels.123", "results.test", ["-R", "qrels_jg", "-m", name])
    assert out == _lines_of("out.test.qrels_jg", name, per_query=False)
    status, _, err = _main(capsys, "evaluate", "--qrels", str(DATA / "qrels.test.gz"),
                           "--run", str(DATA / "results.test.gz"), "-m", name)
    assert status == 2 and "need -R qrels_jg" in err  # trec_eval's name, trec_eval's rule


def test_relstring_pasted_back(capsys):
    """``-m relstring_20`` is ``-m relstring.20`` (it did not parse); reference: the
    relstring_20 lines of out.test.aql."""
    assert is_trec_spelling("relstring_20")
    out = run_cli(capsys, "qrels.rel_level", "results.test", ["-m", "relstring_20", "-q", "-l2"])
    assert out == _lines_of("out.test.aql", "relstring_20", per_query=True)
    status, _, err = _main(capsys, "evaluate", "--qrels", str(DATA / "qrels.test.gz"),
                           "--run", str(DATA / "results.test.gz"), "-m", "relstring_20",
                           "--format", "csv")
    assert status == 2 and "a line of trec_eval's output, not a measure" in err


def test_no_measure_is_trec_eval_s_default_only_where_trec_eval_would_print(capsys):
    """Without -m, crisp --qrels print trec_eval's official output (out.test above); a table
    format asked for keeps the tidy table of the library's default measures."""
    status, out, err = _main(capsys, "evaluate", "--qrels", str(DATA / "qrels.test.gz"),
                             "--run", str(DATA / "results.test.gz"), "--format", "csv")
    assert status == 0, err
    assert out.splitlines()[0].startswith("system,measure,value")
    assert [line.split(",")[1] for line in out.splitlines()[1:]] == ["P@10", "AP", "nDCG@10"]


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


RUNID_LINES = ["q2 Q0 d1 1 3 alpha", "q2 Q0 d2 2 2 beta", "q1 Q0 d3 1 1 gamma",
               "# a comment line, skipped"]


@pytest.mark.parametrize("layout", ["plain", "tabs", "blank line"])
def test_runid_is_the_tag_of_the_last_line_as_in_trec_eval(capsys, tmp_path, layout):
    """trec_eval's runid is the tag of the last line it parses: get_trec_results.c (v10.0,
    lines 150-169 and 284) overwrites one ``run_id_ptr`` with every line's tag, in file order,
    before it sorts the lines; comment lines are skipped (line 158); every query gets that
    pointer (line 207) and m_runid.c prints it. So here "gamma", the tag of the last line
    that is not a comment, although q1 sorts first and "alpha" is the first line's.
    Reference: trec_eval 10.0 built from usnistgov/trec_eval, ``-m runid -m num_ret`` on
    these files, printed ``runid all gamma``; fuzzytruth printed ``alpha``, the first tag.
    The three layouts take the reader's three paths (parsed from disk, single-spaced, line
    by line)."""
    lines = [line.replace(" ", "\t") if layout == "tabs" else line for line in RUNID_LINES]
    if layout == "blank line":
        lines.insert(1, "   ")
    run = _write(tmp_path, "run", "\n".join(lines) + "\n")
    qrels = _write(tmp_path, "qrels", "q1 0 d3 1\nq2 0 d1 1\n")
    assert read_trec_run(run).name == "gamma"
    status, out, err = _main(capsys, "evaluate", "--qrels", qrels, "--run", run, "-m", "runid",
                             "-m", "num_ret")
    assert status == 0, err
    assert out == "runid                 \tall\tgamma\nnum_ret               \tall\t3\n"


def _trec_text(rows):
    return "".join(f"{name:<22}\t{query}\t{value}\n" for name, query, value in rows)


@pytest.mark.parametrize("preset", ["trec", "trec10"])
def test_judged_only_with_no_judged_document_retrieved_prints_trec_eval_s_nan(
        capsys, tmp_path, preset):
    """-J keeps a query whose list holds no judged document with nothing retrieved; trec_eval
    starts its interpolated precision at num_rel_ret / num_ret = 0.0/0.0 (m_iprec_at_recall.c,
    m_11pt_avg.c) and no step replaces it at a recall level whose cutoff is 0 relevant
    documents: level 0 always, level p when the cutoff rounds to 0 ((long)(p*R + 0.9) in
    9.0.8, lround(p*R) in 10.0: q2, R = 4, level 0.1 is 1 document in 9.0.8, 0 in 10.0), every
    level of q3 (R = 0). 11pt_avg averages a NaN; the `all` line adds it into its sum. The
    NaN prints "  -nan" (x86-64: 0.0/0.0 has its sign bit set). fuzzytruth printed 0.0000 on
    each of these lines (and 0.3333 for the `all` lines of the levels <= 0.5, 0.1818 and
    0.2424 for 11pt_avg). Reference: trec_eval 9.0.8 and 10.0 built from usnistgov/trec_eval,
    ``-J -q -m num_ret -m iprec_at_recall.0,.1,.3,.5 -m 11pt_avg`` on these files."""
    qrels = _write(tmp_path, "qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d9 1\nq2 0 d5 1\nq2 0 d6 1\n"
                                      "q2 0 d7 1\nq2 0 d8 1\nq3 0 d1 0\n")
    run = _write(tmp_path, "run", "q1 Q0 d1 1 3 t\nq1 Q0 d3 2 2 t\nq2 Q0 d3 1 3 t\n"
                                  "q2 Q0 d4 2 2 t\nq3 Q0 d4 1 1 t\n")
    nan = "  -nan"
    q2_level_1 = "0.0000" if preset == "trec" else nan
    q1_11pt = "0.5455" if preset == "trec" else "0.7273"
    levels = ["0.00", "0.10", "0.30", "0.50"]

    def query(name, num_ret, iprec, eleven):
        return [("num_ret", name, num_ret),
                *((f"iprec_at_recall_{p}", name, v) for p, v in zip(levels, iprec, strict=True)),
                ("11pt_avg", name, eleven)]

    expected = _trec_text([
        *query("q1", 1, ["1.0000"] * 4, q1_11pt),
        *query("q2", 0, [nan, q2_level_1, "0.0000", "0.0000"], nan),
        *query("q3", 0, [nan] * 4, nan),
        *query("all", 1, [nan] * 4, nan),
    ])
    flags = ["--preset", preset, "-q", "-m", "num_ret", "-m", "iprec_at_recall.0,.1,.3,.5",
             "-m", "11pt_avg"]
    status, out, err = _main(capsys, "evaluate", "--qrels", qrels, "--run", run, "-J", *flags)
    assert status == 0, err
    assert out == expected
    # without -J every list holds documents: no 0/0
    status, out, err = _main(capsys, "evaluate", "--qrels", qrels, "--run", run, *flags)
    assert status == 0, err
    assert "nan" not in out
    # the library scores an empty list 0, as it scores every empty list: no NaN in its means
    evaluation = evaluate(read_trec_run(run), read_trec_qrels(qrels), ["iP@0", "11pt"],
                          preset=preset, judged_only=True)
    assert evaluation.value("t", "iP@0") == pytest.approx(1 / 3)


def test_relstring_reads_fractional_grades_as_trec_eval(capsys, tmp_path):
    """trec_eval reads a grade with atol: -0.5 is grade 0 (judged, '0'), -1.5 is -1 ('.'),
    so -J keeps the -0.5 document. It printed '.' for -0.5 and -J dropped it, while the
    measures beside it counted it as grade 0. Reference: trec_eval 9.0.8 built from
    usnistgov/trec_eval v9.0.8, ``-q [-J] -m relstring -m num_ret`` on these files."""
    (tmp_path / "run").write_text("".join(
        f"q1 Q0 d{i} {i} {7 - i} tag\n" for i in range(1, 7)))
    (tmp_path / "qrels").write_text(
        "q1 0 d1 -0.5\nq1 0 d2 2.7\nq1 0 d3 -1\nq1 0 d4 0.5\nq1 0 d5 -1.5\n")

    def relstring(*flags):
        status = main(["evaluate", "--qrels", str(tmp_path / "qrels"), "--run",
                       str(tmp_path / "run"), "-q", "-m", "relstring", "-m", "num_ret", *flags])
        out = capsys.readouterr().out
        assert status == 0
        return out

    assert relstring() == ("num_ret               \tq1\t6\nrelstring             \tq1\t'02.0.-'\n"
                           "num_ret               \tall\t6\n")
    assert relstring("-J") == ("num_ret               \tq1\t3\nrelstring             \tq1\t'020'\n"
                               "num_ret               \tall\t3\n")


def test_complete_num_rel_summary_counts_every_grade_above_zero(capsys, tmp_path):
    """trec_eval -c replaces num_rel's summary by the judgments of the whole qrels with a
    grade > 0 (m_num_rel.c, te_calc_avg_num_rel), whatever -l says, and under -Z too (a count,
    not the z-scores' sum). It printed the sum of the per-query values at -l (3 here) and the
    z-scores' sum (2). Reference: trec_eval 9.0.8 built from usnistgov/trec_eval v9.0.8,
    ``-q <flags> -m num_rel`` on these files (1.5 reads as 1 and 0.5 as 0, atol)."""
    qrels = _write(tmp_path, "qrels", "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d4 3\n"
                                      "q2 0 d5 1.5\nq3 0 d6 2\nq3 0 d7 0.5\n")
    run = _write(tmp_path, "run", "q1 Q0 d1 1 2 tag\nq1 Q0 d3 2 1 tag\nq2 Q0 d5 1 1 tag\n")
    zscores = _write(tmp_path, "z", "q1 num_rel 1 1\nq2 num_rel 1 1\n")

    def output(*flags):
        status, out, err = _main(capsys, "evaluate", "--qrels", qrels, "--run", run, "-q",
                                 "-m", "num_rel", *flags)
        assert status == 0, err
        return out

    assert output("-c", "-l", "2") == ("num_rel               \tq1\t1\n"
                                       "num_rel               \tq2\t1\n"
                                       "num_rel               \tall\t5\n")
    assert output("-c", "-Z", zscores) == ("Znum_rel               \tq1\t1.0000\n"
                                           "Znum_rel               \tq2\t1.0000\n"
                                           "Znum_rel               \tall\t5.0000\n")
    assert output("-l", "2").endswith("num_rel               \tall\t2\n")  # no -c: the sum


# ------------------------------------------------------------------ -Z, -R: rules by hand
def _write(folder, name, text):
    (folder / name).write_text(text)
    return str(folder / name)


@pytest.fixture
def small(tmp_path):
    """Two judged queries a run answers, a third only judged; by hand: P_1 is 1 and 0,
    map 1 and 0.5, num_ret 2 and 2."""
    qrels = _write(tmp_path, "qrels", "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq3 0 d5 1\n")
    run = _write(tmp_path, "run", "q1 Q0 d1 1 2 tag\nq1 Q0 d2 2 1 tag\n"
                                  "q2 Q0 d4 1 1 tag\nq2 Q0 d3 2 0.5 tag\n")
    zscores = _write(tmp_path, "zscores", "\n".join([
        "q1 P_1 0.5 0.25",    # (1 - 0.5) / 0.25 = 2
        "q2 P_1 0.5 0.25",    # (0 - 0.5) / 0.25 = -2
        "q1 map 1 0",         # stddev 0, value equal to the mean: 0
        "q2 map 0.25 0",      # stddev 0, another value: the sentinel -1000000
        "q1 num_ret 1 nan",   # atof("nan"): nan
        #                       q2 num_ret absent: the sentinel
        "q1 gm_map 0 1",      # gm_map's per-query value is log(max(map, 1e-5)): log 1 = 0
        "q2 gm_map -0.6931471805599453 1",  # log 0.5: z = 0
    ]) + "\n")
    return qrels, run, zscores


def test_zscores_by_hand(capsys, small):
    """convert_zscores.c: z = (v − mean)/stddev; stddev 0 gives 0 for the mean itself and
    MISSING_ZSCORE_VALUE (−1000000) otherwise, as does a pair absent from the file; the summary
    accumulates the z-scores (counts: their sum; gm_map: exp of their mean). Printed
    "Z%-22s\\t%s\\t%6.4f" (meas_print_single.c), counts included."""
    qrels, run, zscores = small
    flags = ["evaluate", "--qrels", qrels, "--run", run, "-m", "num_ret", "-m", "map", "-m",
             "gm_map", "-m", "P.1", "-Z", zscores]
    status, out, err = _main(capsys, *flags, "-q")
    assert status == 0, err
    assert out == (
        "Znum_ret               \tq1\t   nan\n"
        "Zmap                   \tq1\t0.0000\n"
        "ZP_1                   \tq1\t2.0000\n"
        "Znum_ret               \tq2\t-1000000.0000\n"
        "Zmap                   \tq2\t-1000000.0000\n"
        "ZP_1                   \tq2\t-2.0000\n"
        "Znum_ret               \tall\t   nan\n"       # nan + (-1000000)
        "Zmap                   \tall\t-500000.0000\n"  # (0 - 1000000) / 2
        "Zgm_map                \tall\t1.0000\n"        # exp((0 + 0) / 2)
        "ZP_1                   \tall\t0.0000\n"        # (2 - 2) / 2
    )
    # -c: q3 is averaged (as 0; log(1e-5) for gm_map) but not printed, as trec_eval does
    status, out, err = _main(capsys, *flags, "-c", "-m", "num_q")
    assert status == 0, err
    assert out == (
        "Znum_q                 \tall\t3.0000\n"
        "Znum_ret               \tall\t   nan\n"
        "Zmap                   \tall\t-333333.3333\n"
        f"Zgm_map                \tall\t{math.exp(math.log(1e-5) / 3):6.4f}\n"
        "ZP_1                   \tall\t0.0000\n"
    )


@pytest.mark.parametrize(("flags", "message"), [
    (["-m", "AP", "-Z", "{zscores}"], "-Z prints trec_eval's per-query z-scores"),
    (["-m", "map", "--format", "csv", "-Z", "{zscores}"], "goes with --format trec"),
    (["-m", "map", "-Z", "{bad}"], "bad, line 2: expected 4 fields"),
    (["-m", "map", "-Z", "{twice}"], "twice, line 2: query 'q1', measure 'map' is given twice"),
    (["-m", "map_avgjg"], "need -R qrels_jg"),
    (["-m", "qrels_jg"], "need -R qrels_jg"),
    (["-m", "map", "-R", "qrels_prefs"], "-R qrels_prefs computes the preference measures"),
    (["-m", "relstring", "-R", "qrels_prefs"], "relstring prints the grades of a qrels"),
    (["-m", "all_prefs", "-R", "qrels_prefs", "-J"], "-J does not apply to preferences"),
    (["-m", "all_prefs", "-R", "qrels_prefs", "-N", "10"], "-N does not apply to preferences"),
    (["-m", "utility", "-N", "-5"], "--n-docs-in-collection must be an integer >= 0; got -5"),
    (["-m", "utility", "-N", "2.5"],
     "argument -N/--n-docs-in-collection: invalid int value: '2.5'"),
    (["-m", "AP", "-n"], "-n leaves out trec_eval's summary lines: it goes with --format trec"),
])
def test_trec_flag_mistakes_are_one_line_naming_the_flag(capsys, small, tmp_path, flags,
                                                         message):
    qrels, run, zscores = small
    files = {"zscores": zscores,
             "bad": _write(tmp_path, "bad", "q1 map 0.1 0.1\nq1 map 0.1\n"),
             "twice": _write(tmp_path, "twice", "q1 map 0.1 0.1\nq1 map 0.2 0.1\n")}
    status, out, err = _main(capsys, "evaluate", "--qrels", qrels, "--run", run,
                             *[f.format(**files) for f in flags])
    assert status == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_rel_format_goes_with_qrels(capsys, small, tmp_path):
    run = small[1]
    pq = _write(tmp_path, "pq.csv", "query_id,doc_id,probability\nq1,d1,0.5\n")
    status, _, err = _main(capsys, "evaluate", "--prob-qrels", pq, "--run", run, "-R",
                           "qrels_jg", "-m", "AP")
    assert status == 2 and "-R qrels_jg says how to read --qrels" in err


def test_judgment_groups_and_preferences_in_the_tidy_table(capsys):
    """The tidy table under -R holds the values trec_eval prints (out.test.qrels_jg:
    map_avgjg all 0.1130; out.test.qrels_prefs: prefs_simp all 0.5684)."""
    for rel_format, qrels, measure, printed, expected in [
        ("qrels_jg", "qrels.123", "AP", "map_avgjg", "out.test.qrels_jg"),
        ("qrels_prefs", "qrels.test", "Prefs", "prefs_simp", "out.test.qrels_prefs"),
    ]:
        status, out, err = _main(capsys, "evaluate", "--qrels", str(DATA / f"{qrels}.gz"),
                                 "--run", str(DATA / "results.test.gz"), "-R", rel_format,
                                 "-m", measure, "--format", "csv")
        assert status == 0, err
        lines = (DATA / expected).read_text().splitlines()
        reference = next(line.split()[2] for line in lines
                         if line.split()[:2] == [printed, "all"])
        value = float(out.splitlines()[1].split(",")[2])
        assert f"{value:6.4f}".strip() == reference


@pytest.mark.parametrize(("preset", "noted"), [("trec", True), ("trec10", True),
                                               ("textbook", False)])
def test_truncated_fractional_grades_get_a_note(capsys, tmp_path, preset, noted):
    """trec_eval truncates 2.7 to 2 and 0.5 to 0 silently (atol); a note says so, once, where
    the preset does it (Preset.grades), and names the file."""
    qrels = _write(tmp_path, "qrels", "q1 0 d1 2.7\nq1 0 d2 0.5\nq1 0 d3 1\n")
    run = _write(tmp_path, "run", "q1 Q0 d1 1 3 tag\nq1 Q0 d2 2 2 tag\nq1 Q0 d3 3 1 tag\n")
    status, _, err = _main(capsys, "evaluate", "--qrels", qrels, "--run", run, "-m", "P.2",
                           "--preset", preset)
    assert status == 0
    message = (f"{qrels}: 2 fractional grade(s) read as trec_eval reads them, truncated toward "
               f"zero under --preset {preset} (2.7 is grade 2)")
    assert (message in err) == noted and err.count("fractional grade(s)") == int(noted)
    integers = _write(tmp_path, "whole", "q1 0 d1 2\nq1 0 d2 0\n")
    _, _, err = _main(capsys, "evaluate", "--qrels", integers, "--run", run, "-m", "P.2")
    assert "fractional grade(s)" not in err


def test_truncated_fractional_grades_of_probabilistic_qrels_get_the_same_note(capsys, tmp_path):
    """--prob-qrels grades are truncated under the trec presets as crisp ones are (probability
    1 and grade 0.5 is judged non-relevant, as the crisp 0.5): the same note, naming the file."""
    prob = tmp_path / "prob.csv"
    prob.write_text("query_id,doc_id,probability,grade\nq1,d1,1,2.7\nq1,d2,1,0.5\nq1,d3,1,1\n")
    qrels = _write(tmp_path, "qrels", "q1 0 d1 2.7\nq1 0 d2 0.5\nq1 0 d3 1\n")
    run = _write(tmp_path, "run", "q1 Q0 d1 1 3 tag\nq1 Q0 d2 2 2 tag\nq1 Q0 d3 3 1 tag\n")
    outs = {}
    for flag, path in (("--prob-qrels", str(prob)), ("--qrels", qrels)):
        status, out, err = _main(capsys, "evaluate", flag, path, "--run", run, "-m", "P.2",
                                 "-m", "ndcg_cut.3", "--format", "csv")
        assert status == 0, err
        assert f"{path}: 2 fractional grade(s) read as trec_eval reads them" in err
        outs[flag] = [float(line.split(",")[2]) for line in out.splitlines()[1:]]
    assert outs["--prob-qrels"] == pytest.approx(outs["--qrels"], abs=1e-12)
    assert outs["--qrels"][0] == 0.5  # d2 (grade 0.5) is not relevant: P@2 = 1/2
