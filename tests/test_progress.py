"""Progress bars: tqdm, drawn on a terminal or in a notebook, silent in CI and pipes, never
drawn by kernels."""

import io
import sys

import numpy as np
import pytest

from fuzzytruth.progress import Progress, progress_enabled, track


def test_silent_when_stderr_is_not_a_terminal(capsys):
    with Progress(total=5, desc="worlds") as bar:
        bar.update(5)
    assert list(track(range(4), desc="x")) == [0, 1, 2, 3]
    assert capsys.readouterr().err == ""


def test_forced_bar_is_drawn_on_stderr(capsys):
    with Progress(total=4, desc="worlds", unit="world", progress=True) as bar:
        bar.update(4)
    err = capsys.readouterr().err
    assert "worlds" in err and "/4 " in err and "world/s" in err


def test_terminal_detection(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys, "stderr", Tty())
    assert progress_enabled(None) is True
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress_enabled(None) is False


@pytest.mark.parametrize("bad", ["yes", 1, 0.0])
def test_progress_must_be_a_bool_or_none(bad):
    with pytest.raises(ValueError, match="progress must be True, False or None"):
        progress_enabled(bad)


def test_progress_takes_a_numpy_bool_as_the_python_bool():
    assert progress_enabled(np.True_) is True
    assert progress_enabled(np.False_) is False


def test_kernels_do_not_import_the_progress_bar():
    """Kernels never draw: no module under metrics/ or uncertain/ imports fuzzytruth.progress."""
    from pathlib import Path

    root = Path(__file__).parents[1] / "fuzzytruth"
    for folder in ("metrics", "uncertain"):
        for path in (root / folder).glob("*.py"):
            assert "fuzzytruth.progress" not in path.read_text(), path


class _Kernel:
    """What IPython's get_ipython() returns inside a Jupyter kernel."""

    def __init__(self):
        self.config = {"IPKernelApp": {}}


def _in_a_kernel(monkeypatch):
    import types

    ipython = types.ModuleType("IPython")
    ipython.get_ipython = _Kernel
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a kernel's stderr is no terminal


def test_drawn_in_a_notebook(monkeypatch):
    """Issue 22: bars showed only on a terminal, so notebook users saw nothing."""
    monkeypatch.delenv("CI", raising=False)
    assert progress_enabled(None) is False
    _in_a_kernel(monkeypatch)
    assert progress_enabled(None) is True


def test_a_notebook_without_ipywidgets_gets_the_text_bar_without_a_warning(monkeypatch):
    import warnings

    from tqdm.std import tqdm as text_bar

    from fuzzytruth._progress import _bar_class

    monkeypatch.delenv("CI", raising=False)
    _in_a_kernel(monkeypatch)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import fails
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _bar_class() is text_bar
        with Progress(total=2, desc="worlds") as bar:
            bar.update(2)
    assert "worlds" in sys.stderr.getvalue()


@pytest.mark.parametrize("value", ["true", "1", "yes"])
def test_off_under_continuous_integration(monkeypatch, value):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stderr", Tty())
    monkeypatch.setenv("CI", value)
    assert progress_enabled(None) is False
    assert progress_enabled(True) is True  # asked for explicitly: drawn
    monkeypatch.setenv("CI", "false")
    assert progress_enabled(None) is True
