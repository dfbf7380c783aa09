"""Every reader of fuzzytruth.io under hostile input (issue 23): one ValueError naming the
file (and the line where there is one), on one line, or a read that an independent reference
of the format agrees with; never another exception, never a silent wrong read.

The inputs and the law are in ``tests/hostile.py``; ``benchmarks/hostile_inputs.py`` runs the
same strategies with more examples and tallies the outcomes.
"""

import pytest
from hostile import FORMATS, hostile, outcome
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HOSTILE = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.parametrize("name", sorted(FORMATS))
@HOSTILE
@given(data=st.data())
def test_hostile_input_is_read_right_or_refused_naming_the_file(tmp_path, name, data):
    fmt = FORMATS[name]
    _, content = data.draw(hostile(fmt), label="mutated file")
    outcome(fmt, content, tmp_path)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_the_valid_file_of_each_format_reads(tmp_path, name):
    # the mutations start from a file the reader accepts (else every refusal would be trivial)
    assert outcome(FORMATS[name], FORMATS[name].valid, tmp_path) == "read"


def test_a_selectors_error_names_the_file_then_the_line_then_the_item(tmp_path):
    # found by a full run: the law's pattern took "sel.json, line 3, item 2, reader 0: ..."
    # for a message that does not start with the file's name
    bad = b"[[[[1], [0, 2]], [[2]]],\n [[[0, 1]]],\n [[[3], [1]], [[1]]]]\n"
    assert outcome(FORMATS["rankings_json"], bad, tmp_path) == "error+line"
