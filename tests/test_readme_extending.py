"""The README's "Extending fuzzytruth" section: its layout is the package's, its recipes run
and do what they say (a measure in one call, a truth through the protocol, a command in one
module)."""

import argparse
import contextlib
import io
import re
import sys
import types
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
    printed = run_block(blocks("python")[1], namespace).split()
    pq, run = namespace["pq"], namespace["run"]
    thresholded = ft.Qrels(["q1", "q1", "q2"], ["a", "b", "c"], [1, 0, 1])
    assert float(printed[-1]) == ft.evaluate(run, thresholded, "P@1").value("run", "P@1") == 1.0
    # the probabilistic truth itself gives the expectation instead: (0.9 + 0.6) / 2
    assert ft.evaluate(run, pq, "P@1", n_worlds=0).value("run", "P@1") == pytest.approx(0.75)


def test_every_command_is_one_module_with_the_stated_members():
    for name in app.COMMANDS:
        module = sys.modules.get(f"fuzzytruth.cli.{name}") or __import__(
            f"fuzzytruth.cli.{name}", fromlist=["run"]
        )
        for member in ("HELP", "EXAMPLES", "add_arguments", "run"):
            assert hasattr(module, member), (name, member)


def test_a_new_command_is_one_module_and_one_entry(monkeypatch, capsys):
    hello = types.ModuleType("fuzzytruth.cli.hello")
    hello.HELP = "say hello"
    hello.EXAMPLES = "example:\n  fuzzytruth hello --name ann\n"

    def add_arguments(parser: argparse.ArgumentParser, flags) -> None:
        parser.add_argument("--name", default="world")

    hello.add_arguments = add_arguments
    hello.run = lambda args: print(f"hello {args.name}") or 0
    monkeypatch.setitem(sys.modules, "fuzzytruth.cli.hello", hello)
    monkeypatch.setattr(app, "COMMANDS", (*app.COMMANDS, "hello"))
    assert app.main(["hello", "--name", "ann"]) == 0
    assert capsys.readouterr().out == "hello ann\n"
    with pytest.raises(SystemExit):
        app.main(["--help"])
    assert "say hello" in capsys.readouterr().out
