"""The documentation site's generated parts (docs/conf.py): the API reference covers every
public name, and docstring prose keeps its |ω| and n_· through reStructuredText. The site
itself is built, warnings as errors, by ``make docs``."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

import fuzzytruth
import fuzzytruth.plots

ROOT = Path(__file__).resolve().parents[1]


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
