"""Differential and hostile-input fuzzing of the weighted displacement (Santini §5).

Oracle: a brute-force implementation written here from the definitions of
:mod:`fuzzytruth.displacement` (Santini eq. 17-23, positions 1-based): per (query, annotator)
list and system, read the run's first ``L`` items, place each annotator item (set A) or list it
as missing (set B, in annotator order), and sum. With ``annotator_ties="best"`` the oracle
enumerates every ordering of the tie groups and takes the smallest ``w`` (the rule's claim).
The regressions at the end each failed on the parent commit.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth.displacement import ExponentialG, RationalG, weighted_displacement

ANSWERS = pd.DataFrame({"query_id": "q", "annotator_id": "u", "item_id": ["a", "b", "c"],
                        "rank": [1, 2, 3], "relevance": [1.0, 0.5, 0.5]})
RUNS = pd.DataFrame({"system": "S", "query_id": "q", "item_id": ["b", "a", "x"],
                     "rank": [1, 2, 3]})


# ---------------------------------------------------------------------- brute force
def brute_force(answer, run, n_items, deeper):
    """Santini eq. 21-23 for one ordered answer ``[(item, s), ...]`` and one run: the
    ``(w_a, w_optimist, w_exact_pessimist, w_pessimist)`` of the module's definitions."""
    m = len(answer)
    read = run if deeper else run[:m]
    depth = len(read)
    at = {item: p for p, item in enumerate(read, start=1)}
    w_a = sum(s * abs(k - at[item]) for k, (item, s) in enumerate(answer, start=1)
              if item in at)
    missing = [(k, s) for k, (item, s) in enumerate(answer, start=1) if item not in at]
    n_b = len(missing)
    optimist = sum(s * abs(k - (depth + i)) for i, (k, s) in enumerate(missing, start=1))
    exact = sum(s * abs(k - (n_items - n_b + i)) for i, (k, s) in enumerate(missing, start=1))
    pessimist = n_items * sum(s for _, s in missing)
    return w_a, w_a + optimist, w_a + exact, w_a + pessimist


def orderings(groups):
    """Every ordering of a list of tie groups (each a list of (item, s))."""
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [cell for part in parts for cell in part]


@st.composite
def cases(draw):
    """Answers of 1-3 annotators on 1-2 queries (tie groups, non-increasing relevance from a
    few levels, ids as ints or text), runs of 1-2 systems over the answered items and others,
    N from the smallest legal size up."""
    pool = [f"d{j}" for j in range(7)] + [7, 8, "é"]
    answers, runs, lists = [], [], {}
    n_items = {}
    for q in draw(st.sampled_from([["q1"], ["q1", 2]])):
        union = set()
        for a in range(draw(st.integers(1, 3))):
            items = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5, unique=True))
            levels = sorted(draw(st.lists(st.sampled_from([1.0, 0.75, 0.5, 0.25, 0.0]),
                                          min_size=len(items), max_size=len(items))),
                            reverse=True)
            groups, rank = [], 0
            for j, (item, s) in enumerate(zip(items, levels, strict=True)):
                tied = j > 0 and levels[j - 1] == s and draw(st.booleans())
                if not tied:
                    rank += 1 + draw(st.integers(0, 2))  # ranks need not be contiguous
                    groups.append([])
                groups[-1].append((item, s))
                answers.append((q, f"u{a}", item, rank, s))
            lists[(q, f"u{a}")] = groups
            union |= set(items)
        for system in ("S1", "S2")[: draw(st.integers(1, 2))]:
            docs = draw(st.lists(st.sampled_from(pool), max_size=6, unique=True))
            runs.extend((system, q, d, r) for r, d in enumerate(docs, start=1))
            union |= set(docs)
        n_items[q] = len(union) + draw(st.integers(0, 5))
    answers = pd.DataFrame(answers, columns=["query_id", "annotator_id", "item_id", "rank",
                                             "relevance"])
    runs = pd.DataFrame(runs, columns=["system", "query_id", "item_id", "rank"])
    return answers, runs, lists, n_items


def _text(x):
    return str(x)


@settings(max_examples=150, deadline=None)
@given(case=cases(), deeper=st.booleans(),
       g=st.sampled_from(["rational", "exponential", "scale_free", RationalG(p=2.5),
                          ExponentialG(lam=0.1)]))
def test_equal_to_brute_force_on_random_answers_with_ties(case, deeper, g):
    """Every (system, query, annotator) row: ``w_optimist`` and ``w_exact_pessimist`` are the
    smallest over the orderings of the answer's tie groups (the rule of
    :mod:`fuzzytruth.displacement.ties`), attained together with the reported ``w_a`` by one
    ordering, whose pessimist ``w`` is the reported one; ``q = g(w)`` (or 1 - w / (N Σ s));
    the three hypotheses ordered. A system with no row for a query is an empty answer."""
    answers, runs, lists, n_items = case
    if runs.empty:
        return
    res = weighted_displacement(answers, runs, n_items=n_items, g=g,
                                use_deeper_ranks=deeper, annotator_ties="best").to_frame()
    systems = sorted(runs["system"].unique())
    assert len(res) == len(systems) * len(lists)
    for row in res.itertuples():
        groups = lists[(row.query_id, row.annotator_id)]
        run = [_text(d) for d in runs[(runs["system"] == row.system)
                                      & (runs["query_id"] == row.query_id)]
               .sort_values("rank")["item_id"]]
        n = n_items[row.query_id]
        every = [brute_force([(_text(i), s) for i, s in order], run, n, deeper)
                 for order in orderings(groups)]
        assert row.w_optimist == pytest.approx(min(w[1] for w in every), abs=1e-12)
        assert row.w_exact_pessimist == pytest.approx(min(w[2] for w in every), abs=1e-12)
        assert any(w[0] == pytest.approx(row.w_a, abs=1e-12)
                   and w[1] == pytest.approx(row.w_optimist, abs=1e-12)
                   and w[2] == pytest.approx(row.w_exact_pessimist, abs=1e-12)
                   and w[3] == pytest.approx(row.w_pessimist, abs=1e-12) for w in every)
        assert row.w_optimist <= row.w_exact_pessimist + 1e-12
        assert row.w_exact_pessimist <= row.w_pessimist + 1e-12
        total = sum(s for group in groups for _, s in group)
        assert row.w_max == pytest.approx(n * total, abs=1e-12)
        for h in ("optimist", "exact_pessimist", "pessimist"):
            w = getattr(row, f"w_{h}")
            if g == "scale_free":
                expected = 1.0 - w / (n * total) if total > 0 else 1.0
            else:
                func = {"rational": RationalG(), "exponential": ExponentialG()}.get(g, g)
                expected = float(func(np.array([w]))[0])
            assert getattr(row, f"q_{h}") == pytest.approx(expected, rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(case=cases(), seed=st.integers(0, 2**32 - 1))
def test_renaming_items_and_shuffling_rows_changes_no_number(case, seed):
    """Items renamed by a bijection (in both tables) and both tables' rows shuffled: the same
    rows, the same numbers (the run's rank column gives the order, so item ids only join)."""
    answers, runs, _, n_items = case
    if runs.empty:
        return
    rng = np.random.default_rng(seed)
    ids = sorted({_text(i) for i in [*answers["item_id"], *runs["item_id"]]})
    rename = dict(zip(ids, [f"x{j}" for j in rng.permutation(len(ids))], strict=True))
    a2 = answers.assign(item_id=answers["item_id"].map(lambda i: rename[_text(i)]))
    r2 = runs.assign(item_id=runs["item_id"].map(lambda i: rename[_text(i)]))
    a2 = a2.iloc[rng.permutation(len(a2))]
    r2 = r2.iloc[rng.permutation(len(r2))]
    kw = {"n_items": n_items, "annotator_ties": "best"}
    base = weighted_displacement(answers, runs, **kw).to_frame()
    other = weighted_displacement(a2, r2, **kw).to_frame()
    pd.testing.assert_frame_equal(base, other)


# ---------------------------------------------------------------------- hostile inputs
HOSTILE = [
    ({"n_items": 2**70}, "n_items must hold integers"),
    ({"n_items": 10.0}, "n_items must be an int or a mapping"),
    ({"n_items": {"q": 10.0}}, "n_items must hold integers; got dtype float64"),
    ({"n_items": 3}, "n_items (N) must be at least the number of distinct items"),
    ({"n_items": 0}, "n_items must be >= 1; got 0"),
    ({"use_deeper_ranks": "no"}, "use_deeper_ranks must be True or False"),
    ({"g": lambda x: 0.5}, "g must be vectorised"),
    ({"g": lambda x: x / (1 + x)}, "g must be monotone decreasing"),
    ({"g": "linear"}, "g must be 'rational', 'exponential', 'scale_free' or a callable"),
    ({"on_unsorted": "x"}, "on_unsorted must be one of ['raise', 'sort']"),
    ({"annotator_ties": True}, "annotator_ties must be one of ['raise', 'best']; got True"),
    ({"answers": ANSWERS.assign(relevance=[1.0, np.nan, 0.5])}, "annotations column "
     "'relevance' must have no missing values"),
    ({"answers": ANSWERS.assign(relevance=[1.0, 1.5, 0.5])}, "annotations column "
     "'relevance' must lie in [0, 1]"),
    ({"answers": ANSWERS.assign(rank=[1, np.inf, 3])}, "annotations column 'rank' must be "
     "finite"),
    ({"answers": ANSWERS.assign(item_id=[1, "1", "c"])}, "annotations must list each item at "
     "most once"),
    ({"answers": ANSWERS.iloc[:0]}, "annotations must not be empty"),
    ({"runs": RUNS.iloc[:0]}, "runs must not be empty"),
    ({"runs": RUNS.assign(rank=[1, 1, 2])}, "runs column 'rank' must be unique"),
]


@pytest.mark.parametrize(("kwargs", "message"), HOSTILE)
def test_hostile_inputs_are_refused_naming_the_parameter(kwargs, message):
    kwargs = {"n_items": 10, **kwargs}
    answers, runs = kwargs.pop("answers", ANSWERS), kwargs.pop("runs", RUNS)
    with pytest.raises(ValueError) as caught:
        weighted_displacement(answers, runs, **kwargs)
    assert str(caught.value).startswith(message)


# ---------------------------------------------------------------------- regressions
@pytest.mark.parametrize("n_items", [np.uint64(2**64 - 1), np.uint64(2**63),
                                     pd.Series({"q": np.uint64(2**63 + 5)})])
def test_n_items_past_int64_names_the_value_given(n_items):
    """An unsigned N past 2**63 - 1 was cast to int64 and wrapped: the message said "n_items
    must be >= 1; got -1" for N = 2**64 - 1, a value nobody gave."""
    with pytest.raises(ValueError) as caught:
        weighted_displacement(ANSWERS, RUNS, n_items=n_items)
    given = int(np.asarray(n_items).max())
    assert str(caught.value) == f"n_items must be at most 2**63 - 1; got {given}"


def test_n_items_up_to_int64_max_is_taken():
    out = weighted_displacement(ANSWERS, RUNS, n_items=np.uint64(2**63 - 1)).to_frame()
    assert out["n_items"].item() == 2**63 - 1
    assert out["w_optimist"].item() == 2.0  # eq. 22: c at L + 1 = 4, 0.5 * |3 - 4|, + w_a 1.5
