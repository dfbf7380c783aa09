"""Sphinx configuration of fuzzytruth's documentation site (built by ``make docs``).

The build needs no network: no intersphinx, no remote images. The API reference is generated
from the public modules' ``__all__`` (:func:`write_api_pages`), so it follows the code; the
notebooks of ``notebooks/`` are executed at build time (:func:`copy_notebooks`) and rendered
by myst-nb, and myst-nb executes the code cells of the user guide's pages, so the outputs on
the site are those of the code being documented. The build keeps
each execution with a fingerprint of what ran (``execute_notebooks.execute_for_docs``), so that
``tests/test_notebooks.py`` checks the stored outputs against it instead of executing the
notebooks a second time.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # this checkout's fuzzytruth, for autodoc

import nbformat  # noqa: E402

import fuzzytruth  # noqa: E402

sys.path.insert(0, str(HERE))
from execute_notebooks import execute_for_docs  # noqa: E402

project = "fuzzytruth"
author = "the fuzzytruth authors"
copyright = "the fuzzytruth authors, BSD-3-Clause"
release = version = importlib.metadata.version("fuzzytruth")

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]
root_doc = "index"

# numpy-style docstrings; "Attributes" as fields so that dataclass fields are not described
# twice (once by the section, once by autodoc)
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_ivar = True
napoleon_use_rtype = False
autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_class_signature = "separated"
add_module_names = False
suppress_warnings = ["myst.header"]

# Executed at every build, a failing cell failing the build (FUZZYTRUTH_DOCS_EXECUTE=off:
# nothing is executed, the notebooks rendered with their stored outputs): the notebooks by
# copy_notebooks, with the executor of make notebooks and of the test; every other page with
# code cells (the user guide's MyST pages, whichever exist) by myst-nb. myst-nb leaves the
# notebooks alone (nb_execution_excludepatterns: its stream merging would rewrite their saved
# outputs, see execute_notebooks.py).
EXECUTE_NOTEBOOKS = os.environ.get("FUZZYTRUTH_DOCS_EXECUTE", "force") != "off"
CELL_TIMEOUT = int(os.environ.get("FUZZYTRUTH_DOCS_CELL_TIMEOUT", "1800"))
nb_execution_mode = "force" if EXECUTE_NOTEBOOKS else "off"
nb_execution_excludepatterns = ["*.ipynb"]
nb_execution_timeout = CELL_TIMEOUT
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "colon_fence"]

html_theme = "furo"
html_title = f"fuzzytruth {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

#: The public modules of the reference, in order; each object is documented once, in the first
#: module whose ``__all__`` lists it.
API_MODULES = [
    ("fuzzytruth.taxonomy", "Taxonomies"),
    ("fuzzytruth.annotations", "Annotations"),
    ("fuzzytruth.truth", "Truths: crisp, probabilistic and categorical"),
    ("fuzzytruth.truth.models", "Truth models: label models fitted on the annotations"),
    ("fuzzytruth.runs", "Runs and ranking"),
    ("fuzzytruth.measures", "Measures, presets and names"),
    ("fuzzytruth.evaluation", "Evaluation"),
    ("fuzzytruth.uncertain", "Distributions under uncertain truth"),
    ("fuzzytruth.stats", "Comparing systems"),
    ("fuzzytruth.displacement", "Individual comparisons (Santini §5)"),
    ("fuzzytruth.collection", "Analysing a collection"),
    ("fuzzytruth.io", "Reading and writing files"),
    ("fuzzytruth.datasets", "Bundled and public data sets"),
    ("fuzzytruth.plots", "Figures"),
    ("fuzzytruth.report", "Report text and tables"),
    ("fuzzytruth.distributed", "Past one machine (Dask)"),
]


def write_api_pages(out: Path) -> None:
    """``api/<module>.rst`` for every module of :data:`API_MODULES`, and ``api/index.rst``."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    seen: dict[int, str] = {}
    home: dict[str, str] = {}
    for module_name, title in API_MODULES:
        module = importlib.import_module(module_name)
        names = []
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if isinstance(obj, type(fuzzytruth)) or not callable(obj):
                continue  # submodules and constants: described in the module's docstring
            if id(obj) in seen:
                continue
            seen[id(obj)] = f"{module_name}.{name}"
            home[name] = module_name
            names.append(name)
        lines = [
            title,
            "=" * len(title),
            "",
            f".. automodule:: {module_name}",
            "   :no-members:",
            "",
        ]
        if names:
            lines += [
                f".. currentmodule:: {module_name}",
                "",
                ".. autosummary::",
                "   :toctree: generated",
                "   :nosignatures:",
                "",
                *(f"   {name}" for name in names),
                "",
            ]
        (out / f"{module_name.removeprefix('fuzzytruth.')}.rst").write_text("\n".join(lines))
    top = [
        name for name in fuzzytruth.__all__
        if callable(getattr(fuzzytruth, name)) and id(getattr(fuzzytruth, name)) in seen
    ]
    rows = [f"   * - ``ft.{name}``\n     - :obj:`{seen[id(getattr(fuzzytruth, name))]}`"
            for name in top]
    index = [
        "API reference",
        "=============",
        "",
        "Generated from the docstrings of the public modules (their ``__all__``). Every name",
        "in the top-level namespace (``import fuzzytruth as ft``) is documented where it lives:",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
        *(f"   {m.removeprefix('fuzzytruth.')}" for m, _ in API_MODULES),
        "",
        ".. list-table:: The top-level namespace",
        "   :header-rows: 1",
        "",
        "   * - name",
        "     - documented as",
        *rows,
        "",
    ]
    (out / "index.rst").write_text("\n".join(index))


def copy_notebooks(out: Path) -> None:
    """The notebooks of ``notebooks/`` into the source tree, executed (unless
    ``FUZZYTRUTH_DOCS_EXECUTE=off``): a failing cell raises and fails the build."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        if EXECUTE_NOTEBOOKS:
            nbformat.write(execute_for_docs(path, timeout=CELL_TIMEOUT), out / path.name)
        else:
            shutil.copy2(path, out / path.name)


_LITERAL = re.compile(r"(``.*?``)")
_CARDINALITY = re.compile(r"(?<![\\|\w])\|([^|\s`]{1,20})\|(?![\w|])")  # |ω|, max-|t|
_TRAILING_UNDERSCORE = re.compile(r"(?<=\w)_(?=[^\w`]|$)")  # n_· is text, not a link


def escape_math_in_text(app, what, name, obj, options, lines) -> None:
    """Docstrings write |ω| for a size and n_· for a sum, as the papers do; in
    reStructuredText those are a substitution and a link. Escape them in prose (not in
    ``literals`` or examples), so the text reads as written."""
    for i, line in enumerate(lines):
        if line.lstrip().startswith((">>>", "...")):
            continue
        parts = _LITERAL.split(line)
        for k in range(0, len(parts), 2):  # even parts lie outside ``literals``
            part = _CARDINALITY.sub(r"\|\1\|", parts[k])
            parts[k] = _TRAILING_UNDERSCORE.sub(r"\_", part)
        lines[i] = "".join(parts)


def setup(app) -> None:
    """Run by Sphinx when it reads this file: the generated pages, the kernels' environment,
    the docstring hook."""
    # the kernels that execute the notebooks import this checkout's fuzzytruth, and draw no
    # progress bars into the outputs
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    os.environ["CI"] = "1"
    write_api_pages(HERE / "api")
    copy_notebooks(HERE / "notebooks")
    app.connect("autodoc-process-docstring", escape_math_in_text)

