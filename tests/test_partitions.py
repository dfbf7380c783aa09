"""The Dask back end's check that frames are partitioned by query, against its definition.

The oracle walks every (frame, partition, query) in reading order, as the definition says: the
first query met again in another partition of the same frame, or in another partition than
where the first frame holding it has it, is the problem reported.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("dask")
from fuzzytruth.distributed.partitions import _partitioning_problem


def walk(uniques):
    counts = {len(parts) for parts in uniques.values()}
    if len(counts) > 1:
        shown = {name: len(parts) for name, parts in uniques.items()}
        return f"the frames have different numbers of partitions {shown}"
    home = {}
    for name, parts in uniques.items():
        seen = {}
        for p, queries in enumerate(parts):
            for q in queries:
                if q in seen:
                    return f"query {q!r} of {name} is split across partitions {seen[q]} and {p}"
                seen[q] = p
                if q in home and home[q][1] != p:
                    other, where = home[q]
                    return (f"query {q!r} is in partition {where} of {other} but in partition "
                            f"{p} of {name}")
                home.setdefault(q, (name, p))
    return None


partition = st.lists(st.sampled_from([f"q{i}" for i in range(8)]), unique=True, max_size=5)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(partition, min_size=1, max_size=4), min_size=1, max_size=3))
def test_the_vectorised_check_reports_what_the_definition_does(frames):
    uniques = {f"runs[{i}]": [np.array(p, dtype=object) for p in parts]
               for i, parts in enumerate(frames)}
    assert _partitioning_problem(uniques) == walk(uniques)


def test_a_well_partitioned_input_has_no_problem():
    parts = [np.array(["a", "b"], dtype=object), np.array(["c"], dtype=object)]
    assert _partitioning_problem({"runs": parts, "truth": list(parts)}) is None


@settings(max_examples=60, deadline=None)
@given(ids=st.lists(st.sampled_from(["q1", "q2", "10", "é", ""]), min_size=1, max_size=30),
       cut=st.integers(0, 30))
def test_unique_queries_of_arrow_strings_as_of_any_column(ids, cut):
    """A partition's distinct query ids from Arrow strings (one chunk or two) are those of the
    same ids held as Python objects: each id once, in order of first appearance, as str."""
    import pandas as pd
    import pyarrow as pa

    from fuzzytruth.distributed.partitions import unique_queries

    chunked = pa.chunked_array([ids[:cut], ids[cut:]], type=pa.large_string())
    arrow = pd.DataFrame({"query_id": pd.array(chunked, dtype="str")})
    objects = pd.DataFrame({"query_id": np.asarray(ids, dtype=object)})
    got = unique_queries(arrow)
    assert got.dtype == object and got.tolist() == list(dict.fromkeys(ids))
    assert got.tolist() == unique_queries(objects).tolist()
