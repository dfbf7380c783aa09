"""The README's "Extending fuzzytruth" section: its layout is the package's, its recipes run
and do what they say (a measure in one call, a truth through the protocol, a command in one
module), each executed from the README's text."""

import contextlib
import dataclasses
import io
import re
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import fuzzytruth as ft
from fuzzytruth.cli import app
from fuzzytruth.measures import families, registry

ROOT = Path(__file__).resolve().parents[1]
SECTION = re.search(
    r"## Extending fuzzytruth\n(.*?)\n## ", (ROOT / "README.md").read_text(), re.S
).group(1)


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", SECTION, re.S)


def listed_packages() -> set[str]:
    """Package paths the layout tree names, from their indentation."""
    found, stack = set(), []
    for line in blocks("text")[0].splitlines():
        match = re.match(r"( *)(\w+)/", line)
        if not match:
            continue
        depth = len(match.group(1)) // 2
        del stack[depth:]
        stack.append(match.group(2))
        found.add("/".join(stack))
    return found


def listed_top_level() -> set[str]:
    """What the tree lists directly under fuzzytruth/: the leading names (``x.py``, ``x/``) of
    its lines indented by two spaces."""
    found = set()
    for line in blocks("text")[0].splitlines():
        if re.match(r"  \S", line):
            for token in line.split("  ")[1].split():
                if not re.fullmatch(r"\w+(\.py|/)", token):
                    break
                found.add(token)
    return found


def test_the_layout_lists_every_top_level_module_and_package_and_nothing_else():
    package = ROOT / "fuzzytruth"
    on_disk = {p.name for p in package.glob("*.py")} | {
        p.parent.name + "/" for p in package.glob("*/__init__.py")}
    assert listed_top_level() == on_disk


def test_the_layout_lists_every_package_and_only_packages():
    on_disk = {
        str(p.parent.relative_to(ROOT)) for p in (ROOT / "fuzzytruth").rglob("__init__.py")
    }
    assert listed_packages() == on_disk


def test_the_modules_the_layout_names_exist():
    names = set(re.findall(r"\b(\w+\.py)\b", blocks("text")[0]))
    assert names, "the layout names no module"
    everywhere = {p.name for p in (ROOT / "fuzzytruth").rglob("*.py")}
    assert names <= everywhere, names - everywhere


@pytest.fixture
def scratch_registry(monkeypatch):
    """Registrations made by a test vanish with it."""
    families()  # the built-in families are loaded before the tables are copied
    monkeypatch.setattr(registry, "_FAMILIES", dict(registry._FAMILIES))
    monkeypatch.setattr(registry, "_ALIASES", dict(registry._ALIASES))


def run_block(code: str, namespace: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), namespace)
    return out.getvalue()


def test_the_measure_recipe_registers_a_measure_every_path_accepts(scratch_registry):
    namespace: dict = {}
    printed = run_block(blocks("python")[0], namespace).splitlines()
    # q1's top document is relevant, q2's is not: both measures are 1/2
    assert [line.split()[1:] for line in printed[1:]] == [["Hit1", "0.5"], ["P@1", "0.5"]]
    run, qrels = namespace["run"], namespace["qrels"]
    # it equals P@1 on every query, and under uncertain truth the sampled worlds compute it
    crisp = ft.evaluate(run, qrels, ["Hit1", "P@1"]).to_frame()
    np.testing.assert_array_equal(crisp.query("measure == 'Hit1'")["mean"],
                                  crisp.query("measure == 'P@1'")["mean"])
    pq = ft.ProbabilisticQrels(["q1", "q2"], ["a", "c"], [0.5, 0.25])
    ev = ft.evaluate(run, pq, "Hit1", n_worlds=4000, rng=0)
    assert ev.method("run", "Hit1") == "worlds"
    assert abs(ev.value("run", "Hit1") - (0.5 + 0.25) / 2) < 4 * np.sqrt(0.25 / 4000)


def test_the_measure_recipe_leaves_no_trace_outside_its_test():
    with pytest.raises(ValueError, match="Hit1"):
        ft.Measure("Hit1")


def test_the_truth_recipe_is_evaluated_through_the_protocol(scratch_registry):
    namespace: dict = {}
    run_block(blocks("python")[0], namespace)
    printed = run_block(blocks("python")[1], namespace).splitlines()
    run, items = namespace["run"], namespace["items"]
    # the same truth as crisp qrels: each target relevant, every other document judged not
    qrels = ft.Qrels(["q1", "q1", "q2"], ["b", "a", "c"], [1, 0, 1])
    expected = ft.evaluate(run, qrels, ["RR", "Success@1"])
    for line in printed[1:]:
        measure, value = line.split()[1:]
        assert float(value) == expected.value("run", measure)
    # q1's target is ranked 2nd, q2's 1st
    assert [(line.split()[1], float(line.split()[2])) for line in printed[1:]] == [
        ("RR", 0.75), ("Success@1", 0.5)]
    # its prepared form is frozen; a query without a target is left out with its message
    prepared = items.bind(ft.truth.TruthOptions()).prepare(np.array(["q1"], dtype=object))
    assert dataclasses.is_dataclass(prepared)
    with pytest.raises(dataclasses.FrozenInstanceError):
        prepared.targets = None
    more = ft.Run(["q1", "q3"], ["b", "x"], [1.0, 1.0], name="run")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = ft.evaluate(more, items, "RR")
    assert ev.queries == ("q1",) and ev.value("run", "RR") == 1.0
    assert any("queries ['q3'] have no known item" in str(w.message) for w in caught)


def test_every_command_is_one_module_with_the_stated_members():
    for name in app.COMMANDS:
        module = sys.modules.get(f"fuzzytruth.cli.{name}") or __import__(
            f"fuzzytruth.cli.{name}", fromlist=["run"]
        )
        for member in ("HELP", "EXAMPLES", "add_arguments", "run"):
            assert hasattr(module, member), (name, member)


def test_the_command_recipe_is_one_module_and_one_entry(monkeypatch, capsys, tmp_path):
    sizes = types.ModuleType("fuzzytruth.cli.sizes")
    exec(compile(blocks("python")[2], "README.md", "exec"), sizes.__dict__)
    monkeypatch.setitem(sys.modules, "fuzzytruth.cli.sizes", sizes)
    monkeypatch.setattr(app, "COMMANDS", (*app.COMMANDS, "sizes"))
    a = ft.Run(["q1", "q1", "q2"], ["d1", "d2", "d1"], [2.0, 1.0, 1.0], name="a")
    b = ft.Run(["q3"], ["d9"], [1.0], name="b")
    for run in (a, b):
        ft.io.write_trec_run(run, tmp_path / f"{run.name}.txt")
    args = ["sizes", "--run", str(tmp_path / "a.txt"), "--run", str(tmp_path / "b.txt")]
    assert app.main([*args, "--format", "csv"]) == 0
    assert capsys.readouterr().out == "run,queries,documents\na,2,3\nb,1,1\n"
    (tmp_path / "empty.txt").write_text("")
    assert app.main(["sizes", "--run", str(tmp_path / "empty.txt")]) == 2
    assert "empty.txt: no lines of data" in capsys.readouterr().err  # the file is named
    with pytest.raises(SystemExit):
        app.main(["--help"])
    assert "queries and ranked documents of each run" in capsys.readouterr().out
