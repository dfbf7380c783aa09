"""The documentation site's generated parts (docs/conf.py): the API reference covers every
public name, docstring prose keeps its |ω| and n_· through reStructuredText, and the user
guide's code cells are executed at build time. The site itself is built, warnings as errors,
by ``make docs``; the tests that read a build skip when there is none (CI builds the site
first, .ci/run)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

import pytest

import fuzzytruth
import fuzzytruth.plots

ROOT = Path(__file__).resolve().parents[1]
GUIDE = sorted((ROOT / "docs" / "guide").glob("*.md"))
BUILD = ROOT / "docs" / "_build" / "html"


@pytest.fixture(scope="module")
def conf():
    spec = importlib.util.spec_from_file_location("docs_conf", ROOT / "docs" / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # no side effects: the pages are written by setup()
    return module


@pytest.fixture(scope="module")
def api(conf, tmp_path_factory):
    out = tmp_path_factory.mktemp("api")
    conf.write_api_pages(out)
    return out


def test_every_top_level_callable_is_documented(api):
    index = (api / "index.rst").read_text()
    for name in fuzzytruth.__all__:
        if callable(getattr(fuzzytruth, name)):
            assert f"``ft.{name}``" in index, name


def test_every_figure_has_a_page(api):
    page = (api / "plots.rst").read_text()
    listed = set(re.findall(r"^   (plot_\w+)$", page, re.M))
    assert listed == {n for n in fuzzytruth.plots.__all__ if n.startswith("plot_")}


def test_each_object_documented_once(api):
    """Sphinx warns (an error under -W) when one object is described twice."""
    objects = []
    for page in api.glob("*.rst"):
        module = re.search(r"^\.\. currentmodule:: (\S+)$", page.read_text(), re.M)
        if module is None:
            continue
        names = re.findall(r"^   (\w+)$", page.read_text().split(":nosignatures:")[1], re.M)
        objects += [getattr(importlib.import_module(module.group(1)), n) for n in names]
    assert len(objects) > 100
    assert len({id(o) for o in objects}) == len(objects)


@pytest.mark.parametrize(("line", "expected"), [
    ("the denominator is |ω| (eq. 9)", r"the denominator is \|ω\| (eq. 9)"),
    ("max-|t| step-down", r"max-\|t\| step-down"),
    ("n_· = Σ_i n_i", r"n\_· = Σ_i n_i"),
    ("``k / |ω|`` stays literal", "``k / |ω|`` stays literal"),
    (">>> abs(-1) | 0", ">>> abs(-1) | 0"),
    ("a table | with | cells", "a table | with | cells"),
])
def test_docstring_prose_escapes(conf, line, expected):
    lines = [line]
    conf.escape_math_in_text(None, "function", "f", None, {}, lines)
    assert lines == [expected]


def test_readme_links_to_the_site():
    readme = (ROOT / "README.md").read_text()
    assert "`make docs`" in readme and "docs/_build/html/index.html" in readme
    assert "docs:" in (ROOT / "Makefile").read_text()


def test_every_notebook_is_in_the_site_s_table_of_contents():
    """A notebook left out of docs/index.md's toctree fails the docs build only (CI's
    ``make docs``, warnings as errors): caught here first."""
    index = (ROOT / "docs" / "index.md").read_text()
    listed = set(re.findall(r"^notebooks/(\S+)$", index, re.M))
    assert listed == {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}


# ------------------------------------------------------------------ the guide's code is run
_CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```\s*$", re.M | re.S)


def code_cells(page: Path) -> list[str]:
    """The code of each ``{code-cell}`` of a MyST page, its option lines left out."""
    cells = []
    for body in _CODE_CELL.findall(page.read_text(encoding="utf-8")):
        lines = body.splitlines()
        while lines and lines[0].startswith(":"):  # :tags: [...] and other options
            lines.pop(0)
        cells.append("\n".join(lines))
    return cells


def shows_something(code: str) -> bool:
    """Whether a cell is meant to show something: its last statement is an expression (a
    value, a figure drawn by a call) or it prints. A cell of imports or assignments alone may
    have no output."""
    tree = ast.parse(code)
    printing = any(isinstance(n, ast.Call) and getattr(n.func, "id", None) == "print"
                   for n in ast.walk(tree))
    return printing or (bool(tree.body) and isinstance(tree.body[-1], ast.Expr))


class _Cells(HTMLParser):
    """For each myst-nb cell of a page (``<div class="cell ...">``), whether it holds an
    output (a ``cell_output`` div inside it)."""

    def __init__(self) -> None:
        super().__init__()
        self.outputs: list[bool] = []
        self._depth = 0  # open divs inside the current cell; 0 outside any

    def handle_starttag(self, tag, attrs):
        if tag != "div":
            return
        classes = (dict(attrs).get("class") or "").split()
        if self._depth:
            self._depth += 1
            if "cell_output" in classes:
                self.outputs[-1] = True
        elif "cell" in classes:
            self._depth = 1
            self.outputs.append(False)

    def handle_endtag(self, tag):
        if tag == "div" and self._depth:
            self._depth -= 1


def test_guide_pages_are_executed_by_the_build(conf, monkeypatch):
    """Every guide page is executed by myst-nb, whatever its name (a new page needs no entry
    anywhere); the notebooks are not (copy_notebooks executes them), matched as myst-nb
    matches its exclude patterns (the source path against each pattern)."""
    monkeypatch.delenv("FUZZYTRUTH_DOCS_EXECUTE", raising=False)
    spec = importlib.util.spec_from_file_location("docs_conf_default", ROOT / "docs" / "conf.py")
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    assert fresh.nb_execution_mode == "force" and fresh.nb_execution_raise_on_error

    def excluded(path: Path) -> bool:
        return any(PurePosixPath(path.as_posix()).match(p)
                   for p in fresh.nb_execution_excludepatterns)

    assert GUIDE and not any(excluded(page) for page in GUIDE)
    assert all(excluded(ROOT / "docs" / "notebooks" / p.name)
               for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert sum(bool(code_cells(page)) for page in GUIDE) >= 3  # reproducing, comparing, ...


@pytest.mark.parametrize("page", [p for p in GUIDE if code_cells(p)], ids=lambda p: p.name)
def test_guide_code_cells_have_outputs_in_the_built_site(page):
    """Issue 22: the guide's code cells rendered with no output (myst-nb's execution was off).
    Checked on the last ``make docs`` build when it was built from this page as it is now."""
    html = BUILD / "guide" / f"{page.stem}.html"
    built_source = BUILD / "_sources" / "guide" / f"{page.name}.txt"
    if not html.exists():
        pytest.skip("no documentation build (make docs)")
    if not built_source.exists() or built_source.read_bytes() != page.read_bytes():
        pytest.skip(f"the build is of another version of {page.name} (make docs)")
    if os.environ.get("FUZZYTRUTH_DOCS_EXECUTE") == "off":
        pytest.skip("FUZZYTRUTH_DOCS_EXECUTE=off: the build executes nothing")
    cells = code_cells(page)
    parser = _Cells()
    parser.feed(html.read_text(encoding="utf-8"))
    assert len(parser.outputs) == len(cells), (page.name, len(parser.outputs), len(cells))
    silent = [i for i, (code, shown) in enumerate(zip(cells, parser.outputs, strict=True))
              if shows_something(code) and not shown]
    assert not silent, f"{page.name}: code cells {silent} have no output in the built page"


@pytest.mark.parametrize(("code", "expected"), [
    ("x = 1", False), ("import numpy", False), ("x = 1\nx", True), ("plot(x);", True),
    ("for i in range(2):\n    print(i)\ny = 2", True),
])
def test_which_cells_must_show_something(code, expected):
    assert shows_something(code) is expected


def test_the_cell_reader_finds_outputs():
    parser = _Cells()
    parser.feed('<div class="cell docutils container"><div class="cell_input docutils '
                'container"><div>x</div></div></div><p>text</p><div class="cell tag_a '
                'docutils container"><div class="cell_input"></div><div class="cell_output '
                'docutils container"></div></div>')
    assert parser.outputs == [False, True]
