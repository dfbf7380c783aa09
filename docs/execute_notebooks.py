"""Execute the notebooks of ``notebooks/`` in place, so that they ship with current outputs.

Run by ``make notebooks`` after changing a notebook or the code it shows. Progress bars are
off (``CI=1``), so the stored outputs hold what the code prints, not the bars that a reader's
own run draws. ``tests/test_notebooks.py`` checks that the stored outputs are those a fresh
run prints.

    python docs/execute_notebooks.py [NOTEBOOK ...]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


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


def main(argv: list[str]) -> None:
    paths = [Path(p) for p in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        nbformat.write(execute(path), path)
        print(f"executed {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
