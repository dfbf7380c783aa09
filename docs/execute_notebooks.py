"""Execute the notebooks of ``notebooks/`` in place, so that they ship with current outputs.

Run by ``make notebooks`` after changing a notebook or the code it shows. Progress bars are
off (``CI=1``), so the stored outputs hold what the code prints, not the bars that a reader's
own run draws. ``tests/test_notebooks.py`` checks that the stored outputs are those a fresh
run prints.

    python docs/execute_notebooks.py [NOTEBOOK ...]

The documentation build (``make docs``) executes the notebooks with :func:`execute_for_docs`:
it keeps each execution beside the :func:`fingerprint` of what ran (the notebook's code, the
package's files, the versions of the libraries), and :func:`executed_by_docs` hands the test
that execution while the fingerprint still matches, so that CI (``make docs`` then ``make
test``) executes each notebook once, and ``make test`` alone executes them itself. (myst-nb's
own execution is not used: its stream merging rewrites the outputs of the notebook it saves,
repeating and stripping text.)
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]

#: Where the documentation build keeps the notebooks it executed, and its record of what they
#: ran (:func:`execute_for_docs`); not myst-nb's ``_build/jupyter_execute``, where myst-nb
#: saves the notebooks as it rendered them (streams merged, text repeated).
DOCS_EXECUTED = ROOT / "docs" / "_build" / "executed_notebooks"
DOCS_RECORD = DOCS_EXECUTED / "fingerprints.json"

#: The libraries whose version is part of a fingerprint: the package's dependencies, and the
#: kernel's.
LIBRARIES = ("numpy", "scipy", "pandas", "pyarrow", "statsmodels", "numba", "matplotlib",
             "seaborn", "tqdm", "ipykernel", "nbclient")


def cell_timeout(base: float = 300.0) -> int:
    """Seconds one cell may take: ``base`` on an idle machine, scaled up by the load (the
    one-minute load average over the number of cores), so that a busy shared machine does
    not fail a cell that is merely slow.

    >>> cell_timeout(10.0) >= 10
    True
    """
    try:
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # no load average on this platform
        load = 1.0
    return int(base * max(1.0, load))


def execute(path: Path, *, timeout: int | None = None) -> nbformat.NotebookNode:
    """Run ``path`` top to bottom in a fresh kernel (its own folder as working directory)."""
    notebook = nbformat.read(path, as_version=4)
    env = dict(os.environ)
    env["CI"] = "1"  # no progress bars in stored outputs
    # the kernel imports this checkout's fuzzytruth, whatever the installed one
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    client = NotebookClient(
        notebook,
        timeout=timeout or cell_timeout(),
        # the kernel's imports (numpy, pandas, numba, seaborn) took over a minute at load
        # 10-15 on 2 cores: nbclient's 60 s default failed notebooks that work
        startup_timeout=cell_timeout(120.0),
        shutdown_kernel="immediate",
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute(env=env)  # the kernel's environment; this process's is left alone
    return notebook


def fingerprint(path: Path, package: Path = ROOT / "fuzzytruth") -> str:
    """What executing notebook ``path`` depends on, as one hash: the source of its code cells,
    every file of ``package`` (bundled data included), the Python version and
    the versions of :data:`LIBRARIES`. Two executions with one fingerprint run the same code on
    the same libraries.

    >>> path = sorted((ROOT / "notebooks").glob("*.ipynb"))[0]
    >>> fingerprint(path) == fingerprint(path), len(fingerprint(path))
    (True, 64)
    """
    digest = hashlib.sha256()
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            digest.update(b"\0cell\0" + cell.source.encode())
    for file in sorted(package.rglob("*")):
        if file.is_file() and "__pycache__" not in file.parts:
            digest.update(b"\0file\0" + file.relative_to(package).as_posix().encode() + b"\0")
            digest.update(file.read_bytes())
    digest.update(f"\0python\0{sys.version}".encode())
    for name in LIBRARIES:
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"\0{name}\0{version}".encode())
    return digest.hexdigest()


def execute_for_docs(path: Path, *, timeout: int | None = None) -> nbformat.NotebookNode:
    """Execute ``path`` (:func:`execute`) for the documentation build, keep the executed copy
    in :data:`DOCS_EXECUTED` and record the :func:`fingerprint` of what ran in
    :data:`DOCS_RECORD` (the fingerprint is taken before the run; a failed run leaves no
    record)."""
    code = fingerprint(path)
    _update_record(path.name, None)
    notebook = execute(path, timeout=timeout)
    DOCS_EXECUTED.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, DOCS_EXECUTED / path.name)
    _update_record(path.name, code)
    return notebook


def _update_record(name: str, code: str | None) -> None:
    record = _read_record()
    if code is None:
        record.pop(name, None)
    else:
        record[name] = code
    DOCS_EXECUTED.mkdir(parents=True, exist_ok=True)
    DOCS_RECORD.write_text(json.dumps(record, indent=1, sort_keys=True))


def _read_record() -> dict[str, str]:
    try:
        return json.loads(DOCS_RECORD.read_text())
    except (OSError, ValueError):
        return {}


def executed_by_docs(path: Path) -> nbformat.NotebookNode | None:
    """The documentation build's execution of notebook ``path``, if it ran the code that is
    here now (same :func:`fingerprint`); None otherwise (no build, an older build, other
    code)."""
    executed = DOCS_EXECUTED / path.name
    recorded = _read_record().get(path.name)
    if recorded is None or not executed.exists() or recorded != fingerprint(path):
        return None
    return nbformat.read(executed, as_version=4)


def main(argv: list[str]) -> None:
    paths = [Path(p) for p in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        nbformat.write(execute(path), path)
        print(f"executed {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
