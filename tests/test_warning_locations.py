"""Warnings point at the user's line, however deep in fuzzytruth they are raised.

Each was reported at a library line (``_resampling.py``, ``evaluation/engine.py``, ...), so
Python's default filter showed it once per library line, for every call of the user's, and
named a line the user never wrote. :func:`fuzzytruth._warnings.warn` names the caller of the
outermost fuzzytruth frame."""

from __future__ import annotations

import importlib
import linecache
import sys
import warnings

import numpy as np
import pandas as pd

import fuzzytruth as ft
from fuzzytruth._warnings import user_stacklevel, warn
from fuzzytruth.collection import agreement


def _caught(call):
    """The warnings of ``call()`` and the line calling this function (where ``call`` was
    written: the line the warnings should name)."""
    line = sys._getframe(1).f_lineno
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return caught, line


def test_a_warning_from_evaluate_names_this_file_and_line():
    run = ft.Run(["q1", "q2"], ["a", "b"], [1.0, 1.0])
    qrels = ft.Qrels(["q1"], ["a"], [1])
    caught, line = _caught(lambda: ft.evaluate(run, qrels, "P@10"))
    (w,) = [w for w in caught if "not evaluated" in str(w.message)]
    assert (w.filename, w.lineno) == (__file__, line)


def test_a_warning_from_a_result_method_names_this_file():
    # agreement's table and repr with 8 resamples: the percentile warning was raised four
    # frames down, inside the result's methods, and reported at collection/agreement.py
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(10) for _ in range(2)],
                          "annotator_id": ["a", "b"] * 10,
                          "label": ["x", "y", "x", "x", "y", "y", "x", "y", "x", "x"] * 2})
    result = agreement(ft.Annotations.from_frame(frame, taxonomy=None), n_resamples=8, rng=0)
    for caught, line in (_caught(lambda: result.confidence_interval()),
                         _caught(lambda: result.to_frame()),
                         _caught(lambda: repr(result))):
        assert caught and all((w.filename, w.lineno) == (__file__, line) for w in caught)
        assert "too few" in str(caught[0].message)


def test_a_warning_from_compare_names_this_file():
    scores = np.random.default_rng(0).random((3, 5))
    caught, line = _caught(lambda: ft.compare(scores, n_resamples=100, rng=0))
    assert caught and all((w.filename, w.lineno) == (__file__, line) for w in caught)


def test_a_renamed_module_name_warns_at_the_import_statement():
    module = importlib.import_module("fuzzytruth.cli_collection")
    caught, line = _caught(lambda: module.cmd_agreement)
    assert [(w.category, w.filename, w.lineno) for w in caught] == [
        (DeprecationWarning, __file__, line)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        from fuzzytruth.cli_collection import cmd_agreement  # noqa: F401
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]


def test_outside_the_package_warn_names_its_caller_and_stacklevel_is_passed_on():
    def helper():
        warn("from a helper")

    caught, line = _caught(helper)
    assert (caught[0].filename, caught[0].lineno) == (__file__, line - 2)
    caught, line = _caught(lambda: warn("asked", stacklevel=1))  # the function calling warn
    assert (caught[0].filename, caught[0].lineno) == (__file__, line)
    caught, _ = _caught(lambda: warn("asked", stacklevel=2))  # its caller: _caught's call()
    assert linecache.getline(__file__, caught[0].lineno).strip() == "call()"
    assert user_stacklevel() == 2  # called here: warnings.warn here would name this line's caller


def test_warn_if_unresolvable_keeps_its_public_stacklevel():
    caught, line = _caught(lambda: ft.stats.warn_if_unresolvable(99, 1000))
    assert (caught[0].filename, caught[0].lineno) == (__file__, line)
    caught, _ = _caught(lambda: ft.stats.warn_if_unresolvable(99, 1000, stacklevel=1))
    assert caught[0].filename.endswith("multiple.py")
