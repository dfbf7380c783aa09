"""Every notebook in notebooks/ ships executed, with the outputs a fresh run prints.

Readers on the web see the stored outputs, so they must be current: a fresh run in a new
kernel must print the same text (standard output and the value of each cell's last line;
figures, warnings and progress bars on stderr are not compared). ``make notebooks``
re-executes them in place. Cell timeouts scale with the machine's load
(:func:`execute_notebooks.cell_timeout`), so a busy shared machine does not fail a slow cell.

The fresh run is the documentation build's when it executed this very code (``make docs``
then ``make test``, as CI does: :func:`execute_notebooks.executed_by_docs` compares
fingerprints of the notebook's code, the package and the libraries); otherwise the test
executes the notebook itself. Either way each stored output is compared with a run of the code
as it is now.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
sys.path.insert(0, str(ROOT / "docs"))
from execute_notebooks import cell_timeout, execute, executed_by_docs  # noqa: E402

_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


@pytest.mark.parametrize(("load", "cores", "expected"), [
    ((12.0, 9.0, 7.0), 2, 1800),  # load 12 on 2 cores: six times the idle timeout
    ((0.5, 0.5, 0.5), 2, 300),  # an idle machine: the base, never less
    ((3.0, 1.0, 1.0), None, 900),  # cpu_count unknown: one core
    (OSError, 2, 300),  # no load average on this platform: the base
])
def test_cell_timeout_is_sized_to_the_load(monkeypatch, load, cores, expected):
    # issue 23: notebook 05 failed when the machine was loaded (it passes alone in 33 s); the
    # rule: base seconds times the one-minute load per core, at least the base
    def getloadavg():
        if load is OSError:
            raise OSError("no load average")
        return load

    monkeypatch.setattr("os.getloadavg", getloadavg)
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert cell_timeout(300.0) == expected
    assert cell_timeout(120.0) == expected * 120 // 300


def test_there_are_notebooks():
    assert [p.name[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04", "05", "06", "07"][
        : len(NOTEBOOKS)]
    assert len(NOTEBOOKS) >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_ships_executed(path):
    """Issue 22: the notebooks shipped with no outputs (0 of 49 code cells)."""
    nb = nbformat.read(path, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1)), (
        f"{path.name}: not executed top to bottom in one run (make notebooks)"
    )
    for cell in code:
        assert not [o for o in cell.outputs if o.output_type == "error"], path.name
    assert sum(bool(cell.outputs) for cell in code) >= len(code) // 2


def _text(cell: nbformat.NotebookNode) -> list[str]:
    """What a cell prints: its standard output (one text, however the kernel cut it into
    messages) and the text of its result, addresses removed."""
    stdout = "".join(o.text for o in cell.outputs
                     if o.output_type == "stream" and o.name == "stdout")
    results = [o.data.get("text/plain", "") for o in cell.outputs
               if o.output_type == "execute_result"]
    return [_ADDRESS.sub(" at 0x…", text) for text in (stdout, *results)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_and_its_outputs_are_current(path):
    stored = nbformat.read(path, as_version=4)
    fresh = executed_by_docs(path)
    by = "the documentation build's run (make docs)"
    if fresh is None:
        fresh = execute(path)  # raises CellExecutionError with the failing cell on any error
        by = "a fresh run"
    for number, (old, new) in enumerate(zip(stored.cells, fresh.cells, strict=True)):
        if old.cell_type == "code":
            assert _text(new) == _text(old), (
                f"{path.name}, cell {number}: the stored output is not what the code prints "
                f"now in {by}; re-execute with make notebooks"
            )


def test_a_docs_execution_is_used_only_for_the_code_it_ran(tmp_path, monkeypatch):
    """The documentation build's execution stands in for a fresh run only while its recorded
    fingerprint matches the notebook's code, the package and the libraries as they are now."""
    import execute_notebooks as en

    monkeypatch.setattr(en, "DOCS_EXECUTED", tmp_path)
    monkeypatch.setattr(en, "DOCS_RECORD", tmp_path / "fingerprints.json")
    path = NOTEBOOKS[0]
    assert en.executed_by_docs(path) is None  # no build
    (tmp_path / path.name).write_bytes(path.read_bytes())
    en._update_record(path.name, en.fingerprint(path))
    assert en.executed_by_docs(path) is not None

    edited = tmp_path / "edited" / path.name  # the same notebook with one code cell changed
    edited.parent.mkdir()
    nb = nbformat.read(path, as_version=4)
    next(c for c in nb.cells if c.cell_type == "code").source += "\n1 + 1"
    nbformat.write(nb, edited)
    assert en.fingerprint(edited) != en.fingerprint(path)
    assert en.executed_by_docs(edited) is None

    en._update_record(path.name, None)  # a build executing it again, or failing to
    assert en.executed_by_docs(path) is None


def test_the_fingerprint_covers_the_package_and_the_libraries(tmp_path, monkeypatch):
    import execute_notebooks as en

    package = tmp_path / "fuzzytruth"
    (package / "data").mkdir(parents=True)
    (package / "kernel.py").write_text("X = 1\n")
    (package / "data" / "table.csv").write_text("a\n1\n")
    path = NOTEBOOKS[0]
    before = en.fingerprint(path, package)
    assert en.fingerprint(path, package) == before
    (package / "data" / "table.csv").write_text("a\n2\n")
    assert en.fingerprint(path, package) != before
    (package / "data" / "table.csv").write_text("a\n1\n")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "kernel.cpython-311.pyc").write_bytes(b"compiled")
    assert en.fingerprint(path, package) == before  # caches are not code
    monkeypatch.setattr(en, "LIBRARIES", (*en.LIBRARIES, "hypothesis"))
    assert en.fingerprint(path, package) != before
