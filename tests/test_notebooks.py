"""Every notebook in notebooks/ ships executed, with the outputs a fresh run prints.

Readers on the web see the stored outputs, so they must be current: a fresh run in a new
kernel must print the same text (standard output and the value of each cell's last line;
figures, warnings and progress bars on stderr are not compared). ``make notebooks``
re-executes them in place. Cell timeouts scale with the machine's load
(:func:`execute_notebooks.cell_timeout`), so a busy shared machine does not fail a slow cell.
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
from execute_notebooks import execute  # noqa: E402

_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def test_there_are_notebooks():
    assert [p.name[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04", "05", "06"][
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
    fresh = execute(path)  # raises CellExecutionError with the failing cell on any error
    for number, (old, new) in enumerate(zip(stored.cells, fresh.cells, strict=True)):
        if old.cell_type == "code":
            assert _text(new) == _text(old), (
                f"{path.name}, cell {number}: the stored output is not what the code prints "
                "now; re-execute with make notebooks"
            )
