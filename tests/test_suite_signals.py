"""The test suite itself stops on SIGINT (Ctrl-C) and SIGTERM with pytest's summary (issue 23;
``conftest.py``), also when started in the background by a shell without job control, which
leaves SIGINT ignored in the child (the case that made only SIGKILL stop the suite).

A small suite (a passing test, a test that sleeps in Python, a test after it) runs in a
subprocess with this checkout's ``conftest.py`` loaded as a plugin; the signal is sent once the
sleeping test has started. Oracle: pytest's own summary and exit status (2: interrupted).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SLEEPY = '''
import os, time

def test_first():
    pass

def test_sleeps():
    open(os.environ["STARTED"], "w").close()
    for _ in range(1200):
        time.sleep(0.1)

def test_after():
    pass
'''


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_suite_stops_on_the_signal_with_its_summary(tmp_path, signum):
    (tmp_path / "test_sleepy.py").write_text(SLEEPY)
    started = tmp_path / "started"
    env = {**os.environ, "STARTED": str(started),
           "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get(
               "PYTHONPATH")])])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-q",
         "test_sleepy.py"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        # as a shell without job control starts a background job: SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        deadline = time.monotonic() + 300
        while not started.exists():
            assert proc.poll() is None, proc.communicate()[0]
            assert time.monotonic() < deadline, "the sleeping test never started"
            time.sleep(0.05)
        proc.send_signal(signum)
        out, _ = proc.communicate(timeout=100)  # the sleeping test would take 120 s
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    name = signal.Signals(signum).name
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out
    assert f"KeyboardInterrupt: stopped by {name}" in out, out
    assert "1 passed" in out.splitlines()[-1], out  # the summary: test_first only
