"""The command line is built from the library's tables: every value ``--help`` lists is one the
library accepts, every value the library accepts is listed, defaults are the library's, and no
library message reaches the user with a Python argument where a flag belongs."""

import ast
import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Qrels, Run
from fuzzytruth.classify import Predictions
from fuzzytruth.cli import agreement as agreement_command
from fuzzytruth.cli import displacement as displacement_command
from fuzzytruth.cli import main
from fuzzytruth.cli._errors import Flags
from fuzzytruth.cli.app import COMMANDS, command_parsers
from fuzzytruth.datasets import santini_illustrative
from fuzzytruth.io import (
    write_annotations,
    write_predictions,
    write_taxonomy,
    write_trec_qrels,
    write_trec_run,
)

ROOT = Path(__file__).resolve().parents[1] / "fuzzytruth"
PARSERS = command_parsers()
CHOICES = [(name, action) for name, parser in PARSERS.items() for action in parser._actions
           if action.choices is not None and not hasattr(action, "_name_parser_map")]


def _quoted(message: str) -> set[str]:
    """The values a library error lists as allowed: the quoted words before '; got'."""
    return set(re.findall(r"'([^']*)'", message.split("; got")[0]))


def _library_rejects(call) -> set[str]:
    with pytest.raises(ValueError) as error:
        call("no-such-value")
    return _quoted(str(error.value))


def _tiny_run_and_qrels():
    run = Run(["q1"] * 3 + ["q2"] * 3, ["a", "b", "c"] * 2, [3.0, 2.0, 1.0] * 2, name="s")
    qrels = Qrels(["q1", "q1", "q2"], ["a", "c", "b"], [1, 2, 1])
    return run, qrels


def _accepted(command: str, dest: str) -> set[str]:
    """What the library (or, for the command line's own vocabulary, the command) accepts,
    read from the error it raises for a value it does not know."""
    from fuzzytruth.annotations import Annotations as Ann
    from fuzzytruth.cli._output import format_frame
    from fuzzytruth.collection import agreement
    from fuzzytruth.demo import run_demo
    from fuzzytruth.displacement import weighted_displacement
    from fuzzytruth.evaluation import evaluate
    from fuzzytruth.io import read_predictions, read_trec_judgments
    from fuzzytruth.measures import get_preset
    from fuzzytruth.repro import SECTIONS
    from fuzzytruth.runs import rank
    from fuzzytruth.stats import compare
    from fuzzytruth.truth.models import fit_truth

    run, qrels = _tiny_run_and_qrels()
    scores = np.arange(10.0).reshape(2, 5)
    labels = pd.DataFrame({"item_id": ["i"], "annotator_id": ["a"], "label": ["x"]})
    answers = pd.DataFrame({"query_id": ["q"], "annotator_id": ["a"], "item_id": ["d"],
                            "rank": [1], "relevance": [1.0], "system": ["s"]})
    calls = {
        "duplicates": lambda v: Run(["q"], ["d"], [1.0], duplicates=v),
        "preset": get_preset,
        "ties": lambda v: rank(run, ties=v),
        "undefined": lambda v: evaluate(run, qrels, "AP", undefined=v),
        "missing": lambda v: evaluate(run, qrels, "AP", missing=v),
        "method": lambda v: compare(scores, method=v),
        "correction": lambda v: compare(scores, correction=v),
        "alternative": lambda v: compare(scores, alternative=v),
        "metric": lambda v: agreement(santini_illustrative().annotations, metric=v),
        "figure_format": lambda v: run_demo("unused", figure_format=v),
        "rel_format": lambda v: read_trec_judgments("unused", rel_format=v),
        "truth_model": lambda v: fit_truth(santini_illustrative().annotations, v),
        "layout": lambda v: read_predictions("unused.csv", layout=v),
        "annotator_ties": lambda v: weighted_displacement(answers, answers, n_items=9,
                                                          annotator_ties=v),
    }
    if command == "agreement" and dest == "duplicates":
        return _library_rejects(lambda v: Ann.from_frame(labels, taxonomy=None, duplicates=v))
    if dest == "format":
        table = _library_rejects(lambda v: format_frame(pd.DataFrame(), v))
        return table | {"evaluate": {"trec"}, "compare": {"latex"}}.get(command, set())
    if dest == "section":
        return {"all", *SECTIONS}
    if dest == "view":  # the commands' own vocabulary: views of one result, each run below
        return set(agreement_command.VIEWS)
    if dest == "by":
        return set(displacement_command.VIEWS)
    if dest == "results_format":  # trec_eval's -T: its one results format, read_trec_run's
        return {"trec_results"}
    return _library_rejects(calls[dest])


@pytest.mark.parametrize(("command", "action"), CHOICES,
                         ids=[f"{c}-{a.dest}" for c, a in CHOICES])
def test_help_lists_exactly_what_is_accepted(command, action):
    listed = set(map(str, action.choices))
    accepted = _accepted(command, action.dest)
    if command == "agreement" and action.dest == "duplicates":
        # agreement needs one label per (item, annotator): a split vote is refused by every
        # coefficient, so the command does not offer it
        assert accepted - listed == {"split"}
    else:
        assert listed == accepted
    help_text = " ".join(PARSERS[command].format_help().split())
    for value in listed:
        assert value in help_text


@pytest.fixture(scope="module")
def crisp_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("choices")
    rng = np.random.default_rng(3)
    docs = [f"d{i}" for i in range(30)]
    for name in ("a", "b", "c"):
        rows = [(f"q{q}", d, float(rng.integers(0, 5))) for q in range(8)
                for d in rng.choice(docs, 15, replace=False)]
        write_trec_run(Run.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id",
                                                                      "score"]), name=name),
                       folder / f"{name}.txt")
    judged = [(f"q{q}", d, int(rng.integers(0, 3))) for q in range(8)
              for d in rng.choice(docs, 20, replace=False)]
    judged += [(f"q{q}", "d0", 1) for q in range(8) if (f"q{q}", "d0") not in
               {(a, b) for a, b, _ in judged}]
    write_trec_qrels(Qrels.from_dataframe(pd.DataFrame(judged, columns=["query_id", "doc_id",
                                                                        "relevance"])),
                     folder / "qrels.txt")
    # -R prefs: the same judgments as one user's preferences (qid jg jsg docno rel)
    (folder / "prefs.txt").write_text("".join(f"{q} u1 s1 {d} {r}\n" for q, d, r in judged))
    data = santini_illustrative()
    write_taxonomy(data.taxonomy, folder / "tax.json")
    write_annotations(data.annotations, folder / "labels.csv")
    pd.DataFrame({"query_id": "q1", "annotator_id": "x", "item_id": list("abcde"),
                  "rank": range(1, 6), "relevance": [1, 0.8, 0.6, 0.4, 0.2]}
                 ).to_csv(folder / "answers.csv", index=False)
    pd.DataFrame({"system": "S", "query_id": "q1", "item_id": list("caxby"),
                  "rank": range(1, 6)}).to_csv(folder / "runs.csv", index=False)
    # the items' labels as one-group rankings (for --truth-model irn and prirn), and runs of
    # query-by-example over the items
    labels = data.annotations.to_frame()
    labels = labels[labels["label"].isin(data.taxonomy.leaves)]  # a table ranks leaves
    pd.DataFrame({"item_id": labels["item_id"], "reader_id": labels["annotator_id"],
                  "class": labels["label"], "rank_group": 0}).to_csv(folder / "rankings.csv",
                                                                      index=False)
    items = list(data.membership.items)
    # a classifier's predictions over every node the annotators use, in both table layouts
    classes = [n for n in data.taxonomy.nodes if n != data.taxonomy.root]
    scores = rng.dirichlet(np.ones(len(classes)), len(items))
    predictions = Predictions(scores, items=items, classes=classes, name="clf")
    for layout in ("long", "wide"):  # two files of each: two classifiers per layout
        for suffix in ("", "2"):
            write_predictions(predictions, folder / f"predictions_{layout}{suffix}.csv",
                              layout=layout)
    for name in ("qbe1", "qbe2"):
        rows = [(q, d, float(rng.random())) for q in items[:6] for d in items]
        write_trec_run(Run.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id",
                                                                      "score"]), name=name),
                       folder / f"{name}.txt")
    return folder


REL_FORMAT_RUNS = {  # -R value -> (judgments file, -m): what trec_eval computes from each
    "qrels": ("qrels.txt", "official"), "qrels_jg": ("qrels.txt", "qrels_jg"),
    "prefs": ("prefs.txt", "all_prefs"), "qrels_prefs": ("qrels.txt", "all_prefs"),
}


def _truth_model_args(command, folder, value):
    """A command line on labels (--annotations, or --rankings for the ranking models) with
    --truth-model ``value``."""
    truth = (["--rankings", str(folder / "rankings.csv")] if value in ("irn", "prirn")
             else ["--annotations", str(folder / "labels.csv")])
    truth = ["--taxonomy", str(folder / "tax.json"), *truth, "--truth-model", value]
    if command == "agreement":
        return [command, "reliability", *truth]
    if command == "classify":
        return [command, *truth, "--predictions", str(folder / "predictions_long.csv"),
                "-m", "Acc", "-m", "CE", "--n-worlds", "20"]
    return [command, *truth, "--run", str(folder / "qbe1.txt"), "--run", str(folder / "qbe2.txt"),
            "-m", "P@5", "--n-worlds", "20"]


def _base_args(command, folder, rel_format=None):
    runs = [a for n in "abc" for a in ("--run", str(folder / f"{n}.txt"))]
    if rel_format is not None:
        judgments, measure = REL_FORMAT_RUNS[rel_format]
        return [command, "--qrels", str(folder / judgments), *runs, "-m", measure]
    if command in ("evaluate", "compare"):
        return [command, "--qrels", str(folder / "qrels.txt"), *runs, "-m", "P_5",
                "-m", "recip_rank"]
    if command == "classify":
        return [command, "--taxonomy", str(folder / "tax.json"), "--annotations",
                str(folder / "labels.csv"), "--predictions",
                str(folder / "predictions_long.csv"), "--predictions",
                str(folder / "predictions_wide.csv"), "-m", "Acc", "-m", "CE", "--n-worlds",
                "20", "--compare"]
    if command == "displacement":
        return [command, "--answers", str(folder / "answers.csv"), "--runs",
                str(folder / "runs.csv"), "--n-items", "20"]
    return [command, "--taxonomy", str(folder / "tax.json"), "--annotations",
            str(folder / "labels.csv"), "--n-resamples", "20"]


RUNNABLE = [(c, a) for c, a in CHOICES if c not in ("repro", "demo")]  # those two: slow


@pytest.mark.parametrize(("command", "action"), RUNNABLE,
                         ids=[f"{c}-{a.dest}" for c, a in RUNNABLE])
def test_every_listed_value_runs(capsys, crisp_files, command, action):
    for value in action.choices:
        if action.dest == "truth_model":
            status = main(_truth_model_args(command, crisp_files, value))
            assert status == 0, (value, capsys.readouterr().err)
            continue
        args = _base_args(command, crisp_files, value if action.dest == "rel_format" else None)
        if action.option_strings:
            args += [action.option_strings[-1], value]
        else:
            args.insert(1, value)
        if command in ("compare", "classify") and action.dest in ("method", "correction"):
            args += ["--n-resamples", "200"]
        if command == "classify" and action.dest == "layout" and value != "auto":
            args = [a.replace("predictions_wide", f"predictions_{value}2")
                    .replace("predictions_long", f"predictions_{value}") for a in args]
        status = main(args)
        err = capsys.readouterr().err
        assert status == 0, (value, err)


def test_defaults_are_the_library_s():
    from fuzzytruth.collection import agreement
    from fuzzytruth.demo import run_demo
    from fuzzytruth.evaluation import evaluate
    from fuzzytruth.io.trec import read_trec_run
    from fuzzytruth.stats import compare

    def default(function, param):
        return inspect.signature(function).parameters[param].default

    def parsed(command, dest):
        return PARSERS[command].get_default(dest)

    for dest in ("preset", "undefined", "missing", "n_worlds", "confidence_level", "depth",
                 "relevance_level", "n_docs_in_collection", "ties", "complete", "judged_only"):
        assert parsed("evaluate", dest) == default(evaluate, dest), dest
    assert parsed("evaluate", "duplicates") == default(read_trec_run, "duplicates")
    for dest in ("correction", "alternative", "n_resamples", "method", "baseline"):
        assert parsed("compare", dest) == default(compare, dest), dest
    for dest in ("metric", "n_resamples", "confidence_level"):
        assert parsed("agreement", dest) == default(agreement, dest), dest
    from fuzzytruth.truth.models import fit_truth

    for command in ("evaluate", "compare", "agreement"):
        assert parsed(command, "truth_model") == default(fit_truth, "truth_model")
    for dest in ("figure_format", "n_worlds", "seed"):
        assert parsed("demo", dest) == default(run_demo, dest), dest
    # the help shows them: compare --help used to list fdr_bh, which compare() refuses
    assert "(default: holm)" in " ".join(PARSERS["compare"].format_help().split())
    assert "fdr_bh" not in PARSERS["compare"].format_help()


# ---------------------------------------------------------------- messages name flags
def _text(node, defaults: dict[str, str]) -> str:
    """A message's text, f-string holes as '{}', except a hole holding a parameter whose
    default is a string (``f"{name} must ..."`` with ``name="scores"`` reads ``scores must``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant)
            else defaults[v.value.id] if isinstance(v.value, ast.Name) and v.conversion == -1
            and v.value.id in defaults
            else "{}"
            for v in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left, defaults) + _text(node.right, defaults)
    return ""


def _string_defaults(function: ast.FunctionDef) -> dict[str, str]:
    args = function.args
    positional = args.posonlyargs + args.args
    pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True),
             *zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    return {a.arg: d.value for a, d in pairs
            if isinstance(d, ast.Constant) and isinstance(d.value, str)}


def library_messages():
    """(file, line, text) of every message the library raises or warns (outside the CLI)."""
    for path in sorted(ROOT.rglob("*.py")):
        if "cli" in path.relative_to(ROOT).parts:
            continue
        tree = ast.parse(path.read_text())
        scopes = [(tree, {})] + [(f, _string_defaults(f)) for f in ast.walk(tree)
                                 if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]
        seen = set()
        for scope, defaults in scopes:
            for node in ast.walk(scope):
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                    args = node.exc.args
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and node.func.attr == "warn"):
                    args = node.args[:1]
                else:
                    continue
                for arg in args:
                    text = _text(arg, defaults)
                    if text and (node.lineno, text) not in seen:
                        seen.add((node.lineno, text))
                        yield path.relative_to(ROOT.parent), node.lineno, text


def _library_calls():
    """(call node, the library object called or None) of every call the command line makes to
    a name it imported from the library (not its own modules)."""
    for path in sorted((ROOT / "cli").glob("*.py")):
        tree = ast.parse(path.read_text())
        library = {alias.asname or alias.name: (node.module, alias.name)
                   for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                   and node.module and node.module.startswith("fuzzytruth")
                   and not node.module.startswith(("fuzzytruth.cli", "fuzzytruth._lazy"))
                   for alias in node.names}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id in library:
                (module, name), attr = library[func.id], None
            elif (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                  and func.value.id in library):
                (module, name), attr = library[func.value.id], func.attr
            else:
                continue
            target = getattr(importlib.import_module(module), name)
            yield node, getattr(target, attr, None) if attr else target


def cli_keywords():
    """Keyword arguments the command line passes to library functions (not its own)."""
    return {k.arg for node, _ in _library_calls() for k in node.keywords if k.arg is not None}


def cli_parameters():
    """Every parameter of a library function the command line passes a value to: by keyword,
    and by position (named from the function's signature)."""
    found = cli_keywords()
    for node, target in _library_calls():
        try:
            params = inspect.signature(target).parameters.values()
        except (TypeError, ValueError):  # no signature to read (a builtin), or None
            continue
        positional = [p.name for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        found |= set(positional[: sum(not isinstance(a, ast.Starred) for a in node.args)])
    return found


# passed by the command line itself, never from what the user types: a message about them
# would be the command line's own bug, not the user's mistake
FIXED = {"trec_groups", "stream", "judged", "score_dtype", "delimiter", "required",
         "only_required", "bytes_per_world", "format",
         "judgment_groups",  # follows -R qrels_jg
         "columns",  # the notes below the text table name its columns
         "unit",  # classify's notes say items for queries
         "minimum",  # agreement's bound on --n-resamples (0: point estimates), not the user's
         # a run's own name (its tag), kept when trec10 -c adds its stand-in rows; messages
         # matching 'name=' are a measure's syntax ('Family(name=value)'), not a parameter
         "name"}


def all_flags() -> Flags:
    flags = Flags()
    for parser in PARSERS.values():
        for param, flag in parser.get_default("flags").items():
            flags.add(param, flag)
    return flags


PYTHON_FORM = r"(?<![\w\-.'`]){}(?:=|\s+must\b|\s+applies\b|\s*[<>]=?\s)"


def test_every_parameter_the_command_line_passes_has_a_flag():
    passed = cli_keywords()
    flagged = {param for param, _ in all_flags().items()}
    assert passed - flagged - FIXED == set()
    assert {"duplicates", "ties", "n_worlds", "correction", "metric"} <= passed


# Parameters the command line passes a value to without a flag of their own (the objects it
# builds from its files, values it computes), each reviewed: why a library message naming it in
# Python form never reaches the user that way. A parameter the scan below finds and this table
# lacks fails it: `compare -m AP` on one query printed "scores must hold at least 2 queries
# (last axis); got 1" until scores was given the command's own check.
UNFLAGGED = {
    "scores": "compare and classify --compare count the queries (items) first, in their words "
              "(cli._inputs.check_comparable; test_a_comparison_of_one_query_says_so)",
    "runs": "the --run files, read by the command (a type error would be its bug); displacement's "
            "messages about them name the file and line, and say 'runs' in words",
    "annotations": "the --annotations file, read by the command; displacement's messages about "
                   "it name the file and line, and say 'annotations' in words",
    "run": "a run the command read from --run",
    "qrels": "qrels the command read from --qrels",
    "qrels_by_group": "judgment groups the command read from --qrels (-R qrels_jg)",
    "preferences": "preferences the command read from --qrels (-R prefs)",
    "truth": "the truth the command built from its truth flags, checked in cli/_inputs.py",
    "comparison": "the result of compare(), which the command prints",
    "frame": "the command's own table of per-query values (trec output)",
    "df": "a run the command read from --run, as a table with trec_eval 10's stand-in rows "
          "for the queries -c adds (cli._trec.with_stand_ins)",
    "values": "per-query values the command computed (trec output)",
    "measure": "a measure the command parsed from -m itself (trec output)",
    "levels": "the recall levels of a measure the command parsed from -m, checked then "
              "(trec output: the levels at which trec_eval divides 0 by 0)",
    "interpolation": "the interpolation of a measure the command resolved under --preset "
                     "(trec output, as for levels)",
    "names": "the match is English ('info' file names must look like ...: the ImageNet "
             "reader's message about its file), not the parameter",
    "aggregate": "a family's property, quoted beside --n-worlds and --undefined (which the "
                 "user sets) in the aggregate's message; and the table of Evaluation.aggregate "
                 "the command prints (report.system_notes)",
    "notes": "footnotes the command wrote itself (report.system_notes), printed by notes_text",
    "query_ids": "the query ids of a run or qrels the command read from --run / --qrels: never "
                 "missing there (the readers refuse an empty field, naming the file and line)",
    "path": "a file's path the command passes from its flags (io.text.file_path refuses an "
            "open file or a table, which argparse never gives)",
}


def test_library_messages_about_those_parameters_name_the_flag():
    """Every parameter the command line passes to the library, with a flag or not: a library
    message naming one in Python form is translated to its flag, or the parameter is reviewed
    in UNFLAGGED."""
    flags = all_flags()
    flagged = {param for param, _ in flags.items()}
    passed = cli_parameters() - FIXED
    checked, unflagged = 0, set()
    for where, line, text in library_messages():
        for param in sorted(flagged | passed):
            form = PYTHON_FORM.format(re.escape(param))
            if not re.search(form, text):
                continue
            checked += 1
            translated = flags.translate(text)
            if param not in flagged:
                unflagged.add(param)
                assert param in UNFLAGGED, f"{where}:{line}: {param} has no flag: {translated}"
                continue
            assert not re.search(form, translated), f"{where}:{line}: {translated}"
    assert checked > 50  # the scan sees the library's messages
    assert unflagged == set(UNFLAGGED) - flagged  # no stale entry
    assert "scores" in unflagged  # seen through the default of as_scores' name


@pytest.mark.parametrize("queries", [["q1"], ["q1", "q2"]])
def test_a_comparison_of_one_query_says_so(tmp_path, capsys, queries):
    """compare of runs sharing one query (or two) with the qrels (and classify --compare of
    one item): the command's words, and the minimum compare() itself takes (3; the command
    said 2, then compare() refused 2 in its own words), not the library's 'scores must hold
    at least 2 queries (last axis)'."""
    run, _ = _tiny_run_and_qrels()
    assert {"q1", "q2"} <= set(run.query_ids)
    judged = Qrels(queries, ["a"] * len(queries), [1] * len(queries))
    write_trec_qrels(judged, tmp_path / "qrels.txt")
    for name, r in (("a", run), ("b", Run(run.query_ids, run.doc_ids, -run.scores, name="b"))):
        write_trec_run(r, tmp_path / f"{name}.run")
    status = main(["compare", "--qrels", str(tmp_path / "qrels.txt"), "--run",
                   str(tmp_path / "a.run"), "--run", str(tmp_path / "b.run"), "-m", "AP"])
    err = capsys.readouterr().err
    assert status == 2
    shown = ", ".join(repr(q) for q in queries)
    was = "was" if len(queries) == 1 else "were"
    assert (f"compare needs at least 3 queries to compare runs; {len(queries)} {was} "
            f"evaluated ({shown})") in err
    assert "scores" not in err and "axis" not in err
    # classify --compare of classifiers predicting one item
    from fuzzytruth import Taxonomy

    write_taxonomy(Taxonomy.flat(["cat", "dog"]), tmp_path / "tax.json")
    (tmp_path / "labels.csv").write_text("item_id,annotator_id,label\ni1,a1,cat\ni1,a2,dog\n")
    predictions = []
    for name in ("p1", "p2"):
        write_predictions(Predictions(np.array([[0.3, 0.7]]), items=["i1"],
                                      classes=["cat", "dog"], name=name),
                          tmp_path / f"{name}.csv", layout="long")
        predictions += ["--predictions", str(tmp_path / f"{name}.csv")]
    status = main(["classify", "--taxonomy", str(tmp_path / "tax.json"), "--annotations",
                   str(tmp_path / "labels.csv"), *predictions, "-m", "Acc", "--compare",
                   "--n-worlds", "20"])
    err = capsys.readouterr().err
    assert status == 2
    assert ("classify --compare needs at least 3 items to compare classifiers; 1 was "
            "evaluated ('i1')") in err


def test_the_scan_would_catch_an_untranslated_message():
    flags = Flags()
    flags.add("n_worlds", "--n-worlds")
    form = PYTHON_FORM.format("ties")
    assert re.search(form, flags.translate("use ties='average'"))  # no flag for ties: kept
    assert not re.search(PYTHON_FORM.format("n_worlds"), flags.translate("n_worlds must be"))


def test_each_command_has_a_module_with_the_protocol():
    import importlib

    for name in COMMANDS:
        module = importlib.import_module(f"fuzzytruth.cli.{name}")
        assert module.HELP and "example" in module.EXAMPLES
        assert list(inspect.signature(module.add_arguments).parameters) == ["parser", "flags"]
        assert list(inspect.signature(module.run).parameters) == ["args"]



def test_displacement_g_help_lists_what_the_library_accepts(capsys, crisp_files):
    """--g has no tuple in the library to take choices from: its help must list exactly the
    names weighted_displacement's own error lists, and each must run."""
    from fuzzytruth.displacement import weighted_displacement

    answers = pd.read_csv(crisp_files / "answers.csv")
    runs = pd.read_csv(crisp_files / "runs.csv")
    accepted = _library_rejects(lambda v: weighted_displacement(answers, runs, n_items=20, g=v))
    action = next(a for a in PARSERS["displacement"]._actions if a.dest == "g")
    assert set(re.findall(r"[a-z_]+", action.help.split(":")[1].split("(")[0])) - {"or"} \
        == accepted
    for value in accepted:
        assert main([*_base_args("displacement", crisp_files), "--g", value]) == 0
        capsys.readouterr()


@pytest.mark.parametrize("argv, meant", [
    (["evalute"], "'evaluate'"),
    (["Compare"], "'compare'"),
    (["compare", "--method", "ttest"], "'t'"),
    (["compare", "--correction", "fdr_bh"], "'bh'"),
])
def test_a_command_or_choice_spelled_otherwise_is_offered_the_one_meant(capsys, argv, meant):
    """argparse's invalid choice listed the choices alone; did_you_mean's offer now follows
    (case, another library's name, a close spelling), and nothing for a value close to none."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert f"(did you mean {meant}?) (see fuzzytruth" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["compare", "--method", "zzz"])
    assert "did you mean" not in capsys.readouterr().err


@pytest.mark.parametrize("argv, said", [
    (["evaluate", "-v"], "trec_eval's -v prints its version; fuzzytruth --version prints"),
    (["evaluate", "-D3", "qrels", "run"], "trec_eval's -D sets its debug level"),
    (["evaluate", "qrels", "run", "-D", "1"], "trec_eval's -D sets its debug level"),
])
def test_trec_eval_flags_without_a_counterpart_say_so(capsys, argv, said):
    """trec_eval's -v and -D were argparse's bare "unrecognized arguments"; the error now
    says what they are in trec_eval and what fuzzytruth has instead, and nothing for a flag
    trec_eval does not have."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments:" in err and said in err
    with pytest.raises(SystemExit):
        main(["evaluate", "-x"])
    assert "trec_eval's" not in capsys.readouterr().err
