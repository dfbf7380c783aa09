"""Progress bars: tqdm on stderr, silent off a terminal, never drawn by kernels."""

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

    monkeypatch.setattr(sys, "stderr", Tty())
    assert progress_enabled(None) is True
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress_enabled(None) is False


@pytest.mark.parametrize("bad", ["yes", 1, np.True_])
def test_progress_must_be_a_bool_or_none(bad):
    with pytest.raises(ValueError, match="progress must be True, False or None"):
        progress_enabled(bad)


def test_kernels_do_not_import_the_progress_bar():
    """Kernels never draw: no module under metrics/ or uncertain/ imports fuzzytruth.progress."""
    from pathlib import Path

    root = Path(__file__).parents[1] / "fuzzytruth"
    for folder in ("metrics", "uncertain"):
        for path in (root / folder).glob("*.py"):
            assert "fuzzytruth.progress" not in path.read_text(), path
