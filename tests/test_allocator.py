"""fuzzytruth._allocator: glibc's thresholds raised inside a Dask worker's task, restored after.

Oracles: the resident size of a fresh process started with Dask's ``MALLOC_TRIM_THRESHOLD_``
(glibc's own behaviour: memory freed outside the scope goes back to the kernel at once, inside
it stays, and leaves on the way out), and a recorder in place of ``mallopt`` for the rules of
nesting, threads and which task functions enter the scope.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import _allocator
from fuzzytruth._allocator import fixed_thresholds, reusing_freed_memory, worker_task

TASK = _allocator._TASK_THRESHOLDS


@pytest.mark.parametrize(("environ", "expected"), [
    ({}, None),
    ({"MALLOC_TRIM_THRESHOLD_": "65536"}, (65536, 128 * 1024)),
    ({"MALLOC_TRIM_THRESHOLD_": "0", "MALLOC_MMAP_THRESHOLD_": "1048576"}, (0, 1 << 20)),
    ({"MALLOC_MMAP_THRESHOLD_": "1048576"}, None),  # adaptive trim unknown: left alone
    ({"MALLOC_TRIM_THRESHOLD_": "64k"}, None),
    ({"MALLOC_TRIM_THRESHOLD_": "-1"}, None),
    ({"MALLOC_TRIM_THRESHOLD_": "\u00b2"}, None),  # a digit to str.isdigit, not to glibc
    ({"MALLOC_TRIM_THRESHOLD_": str(2**31)}, None),  # beyond mallopt's int
    ({"MALLOC_TRIM_THRESHOLD_": "65536", "MALLOC_MMAP_THRESHOLD_": str(64 << 20)}, None),
    ({"MALLOC_TRIM_THRESHOLD_": "65536", "GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=1"},
     None),
    ({"MALLOC_TRIM_THRESHOLD_": "65536", "GLIBC_TUNABLES": "glibc.rtld.nns=2"},
     (65536, 128 * 1024)),
])
def test_thresholds_known_only_from_plain_variables(environ, expected):
    assert fixed_thresholds(environ) == expected


@pytest.fixture
def recorded(monkeypatch):
    """mallopt replaced by a list of its calls; Dask's variable in the environment."""
    calls = []
    monkeypatch.setattr(_allocator, "_set_thresholds",
                        lambda trim, mmap, *, release: calls.append((trim, mmap, release)))
    monkeypatch.setattr(_allocator, "_libc", lambda: object())
    monkeypatch.setattr(_allocator, "_start_environ",
                        lambda: {"MALLOC_TRIM_THRESHOLD_": "65536"})
    return calls


def test_nested_scopes_raise_once_and_restore_once(recorded):
    with reusing_freed_memory() as outer:
        with reusing_freed_memory() as inner:
            assert recorded == [(*TASK, False)]
        assert recorded == [(*TASK, False)]
    assert (outer, inner) == (True, True)
    assert recorded == [(*TASK, False), (65536, 128 * 1024, True)]
    assert _allocator._depth == 0 and _allocator._restore is None


def test_restored_when_the_work_raises(recorded):
    with pytest.raises(ZeroDivisionError), reusing_freed_memory():
        raise ZeroDivisionError
    assert recorded == [(*TASK, False), (65536, 128 * 1024, True)]


def test_overlapping_threads_share_one_setting(recorded):
    inside, leave = threading.Barrier(2), threading.Event()

    def work():
        with reusing_freed_memory():
            inside.wait()
            leave.wait()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    while _allocator._depth < 2:
        threading.Event().wait(0.001)
    assert recorded == [(*TASK, False)]
    leave.set()
    for t in threads:
        t.join()
    assert recorded == [(*TASK, False), (65536, 128 * 1024, True)]


def test_nothing_changes_without_the_variable(recorded, monkeypatch):
    monkeypatch.setattr(_allocator, "_start_environ", lambda: {"HOME": "/"})
    with reusing_freed_memory() as active:
        pass
    assert active is False and recorded == []


def test_the_distributed_tasks_enter_the_scope(recorded):
    pytest.importorskip("distributed")
    from fuzzytruth.distributed.evaluation import _evaluate_frames, _partition_outcome

    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    held = _partition_outcome(run, qrels, evaluate_frames=_evaluate_frames, names=["run"],
                              shared=None, measures=["AP"], options={"progress": False},
                              rng=np.random.default_rng(0))
    evaluation, _ = held["outcome"].iat[0]
    assert evaluation.query_means("AP").tolist() == [[0.5]]  # one system, one query
    # entered by the task and by _evaluate_part inside it: raised once, restored once
    assert recorded == [(*TASK, False), (65536, 128 * 1024, True)]


def test_worker_task_keeps_the_function(recorded):
    @worker_task
    def add(a, b=1):
        """Add."""
        return a + b

    assert add(2, b=3) == 5 and add.__name__ == "add" and add.__doc__ == "Add."
    assert recorded == [(*TASK, False), (65536, 128 * 1024, True)]


_RSS_SCRIPT = textwrap.dedent("""
    import numpy as np
    from fuzzytruth._allocator import reusing_freed_memory

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096 / 2**20

    def churn():  # 8 arrays of 4 MiB, every page touched, then freed
        arrays = [np.ones(1 << 19) for _ in range(8)]
        del arrays

    churn()
    base = rss()
    churn()
    outside = rss() - base
    with reusing_freed_memory() as active:
        churn()
        inside = rss() - base
    after = rss() - base
    print(active, round(outside), round(inside), round(after))
""")


@pytest.mark.skipif(_allocator._libc() is None, reason="glibc only")
def test_a_variable_set_after_start_changes_nothing():
    """A Dask driver's os.environ gains MALLOC_TRIM_THRESHOLD_ when its LocalCluster starts
    (2026.8: it stays after the cluster closes), but its malloc never read it: the scope reads
    the environment the process started with, and leaves the driver's thresholds alone."""
    script = textwrap.dedent("""
        import os
        os.environ["MALLOC_TRIM_THRESHOLD_"] = "65536"
        from fuzzytruth._allocator import reusing_freed_memory
        with reusing_freed_memory() as active:
            print(active)
    """)
    env = {k: v for k, v in os.environ.items()
           if k not in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES")}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["False"]


@pytest.mark.skipif(_allocator._libc() is None, reason="glibc only")
def test_freed_memory_kept_inside_and_returned_after():
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
    env.pop("MALLOC_MMAP_THRESHOLD_", None)
    env.pop("GLIBC_TUNABLES", None)
    out = subprocess.run([sys.executable, "-c", _RSS_SCRIPT], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    active, outside, inside, after = out[0], *map(int, out[1:])
    assert active == "True"
    assert outside <= 4  # 4 MiB arrays are fresh mappings under Dask's setting: given back
    assert inside >= 28  # kept in the heap for the task's next arrays
    assert after <= 4  # given back on the way out
