"""trec_eval's preference measures (``prefs_*``; ``form_prefs_counts.c`` and ``m_prefs_*.c``,
identical in 9.0.8 and 10.0).

Judgments are preferences. Within a *judgment group* (JG: one user's information need) and one
of its *subgroups* (JSG), a document of a higher level is preferred to one of a lower level
(levels are floats; 0 means non-relevant, > 0 relevant). A JG with one subgroup is a ranking
by levels ("equivalence classes", EC form); a JG with several has the transitive closure of
its subgroups' preferences ("preference array", PA form; a cycle is an error). A plain qrels
read as preferences (``trec_eval -R qrels_prefs``) is one JG per value of its second column,
one subgroup each, levels the grades.

Every preference a ≻ b of a JG falls in one area, by which of a and b the run retrieved:

=============  =========================  ==============================================
both           ``poss_ret``               ``ful_ret``: a ranked above b
a only         ``poss_imp`` (implied)     ``ful_imp``: always fulfilled
b only         ``poss_imp``               never fulfilled
neither        ``notoccur``               never fulfilled
=============  =========================  ==============================================

and the measures (``kind``; scope ``""`` = all areas, ``_ret`` = both retrieved, ``_imp`` =
at least one retrieved) are

``simp``
    fulfilled / possible, preferences of all JGs pooled;
``pair``
    the mean over document pairs with a preference of the share of JGs preferring the one
    the run ranks higher (a pair with neither document retrieved counts 0);
``avgjg``
    fulfilled / possible within each JG, summed over the JGs with a possible preference and
    divided by the number of JGs (0 when that sum is 0);
``avgjg_Rnonrel``
    as ``avgjg``, with the JG's non-relevant documents made as many as its relevant ones
    (R relevant, N non-relevant; ``_ret``: retrieved ones): when R >= N, R·(R − N) fulfilled
    preferences are added to the R_ret relevant retrieved documents and R·(R − N) to the
    possible ones; when N > R, the preferences are recounted keeping only the first R
    non-relevant documents (trec_eval's ``recalculate``, quirks included: in EC form the
    lowest class's documents are also compared with those first R, and a JG whose count is
    0/0 makes the query's sum NaN, scored 0);

and the counts ``prefs_num_prefs_poss`` (possible, all areas), ``prefs_num_prefs_ful``
(fulfilled incl. implied) and ``prefs_num_prefs_ful_ret``.

Documents are identified by their *docid rank*: the judged documents the run retrieved, in
rank order, then the others by doc id. trec_eval ranks the run for these measures by score
descending with ties by doc id **ascending** (``form_prefs_counts.c``), the opposite of its
other measures.

Here: :func:`ec_counts` gives the per-JG counts of EC-form JGs for many (query, JG) rows at
once, :func:`pa_counts` those of one PA-form JG from its relation matrix,
:func:`relation_closure` the transitive closure, :func:`pair_sums` the ``pair`` sums of one
query from its JGs' relations, :func:`prefs_value` and :func:`num_prefs_value` the measures;
:func:`prefs_kernel` and :func:`num_prefs_kernel` are the registry kernels on
:class:`~fuzzytruth.metrics.base.RankedGains`: one JG, the qrels' grades as levels (in
float32, as trec_eval reads them).

Examples
--------
>>> rg = RankedGains.from_lists(["q"], [[0, 2, 1]], [[2, 1, 0, 0]], [[True, True, True]])
>>> prefs_kernel(rg, kind="simp").round(6)   # 5 preferences, 2 fulfilled (2 ≻ 0 implied too)
array([0.6])
>>> num_prefs_kernel(rg, kind="poss").tolist(), num_prefs_kernel(rg, kind="ful").tolist()
([5.0], [3.0])
"""

from __future__ import annotations

import numpy as np

from fuzzytruth.metrics.base import RankedGains

__all__ = [
    "COUNT_KINDS",
    "KINDS",
    "ec_counts",
    "num_prefs_kernel",
    "num_prefs_value",
    "pa_counts",
    "pair_sums",
    "prefs_kernel",
    "prefs_value",
    "relation_closure",
    "trec_float",
]

KINDS = ("simp", "pair", "avgjg", "avgjg_Rnonrel", "simp_ret", "pair_ret", "avgjg_ret",
         "avgjg_Rnonrel_ret", "simp_imp", "pair_imp", "avgjg_imp")
"""The ``prefs_*`` measures of trec_eval, by their name without ``prefs_``."""
COUNT_KINDS = ("poss", "ful", "ful_ret")
"""The ``prefs_num_prefs_*`` counts of trec_eval."""

COUNTS = ("ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur", "num_rel", "num_rel_ret",
          "num_nonrel", "num_nonrel_ret", "rc_ful", "rc_poss", "rcr_ful", "rcr_poss")
"""Per-JG counts: the five areas, the relevant and non-relevant documents (all, retrieved),
and the recounts of ``avgjg_Rnonrel`` (``rc_``) and ``avgjg_Rnonrel_ret`` (``rcr_``) for when
a JG has more non-relevant documents than relevant ones."""


def trec_float(values: np.ndarray) -> np.ndarray:
    """``values`` as trec_eval holds a preference level or a qrels grade, in a C ``float``
    (float32), returned as float64: a value beyond float32's range becomes +-inf, as there,
    without NumPy's overflow warning reaching the user.

    Examples
    --------
    >>> trec_float(np.array([0.1, 1e300, -1e300])).tolist()
    [0.10000000149011612, inf, -inf]
    """
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float32).astype(np.float64)


def _pairs(n: np.ndarray) -> np.ndarray:
    return n * (n - 1) / 2


def _exclusive_cumsum(mask: np.ndarray) -> np.ndarray:
    return np.cumsum(mask, axis=1) - mask


def _first_sum(values: np.ndarray, mask: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Per row, the sum of ``values`` over the first ``count`` cells of ``mask``."""
    pick = mask & (np.cumsum(mask, axis=1) <= count[:, None])
    return np.where(pick, values, 0).sum(axis=1)


def ec_counts(ret_levels: np.ndarray, all_levels: np.ndarray) -> dict[str, np.ndarray]:
    """Per-JG counts (:data:`COUNTS`) of JGs in EC form, one row per (query, JG).

    Parameters
    ----------
    ret_levels : numpy.ndarray
        ``(n_rows, depth)``: the level of each retrieved document of the JG in rank order,
        NaN at ranks holding no document of the JG.
    all_levels : numpy.ndarray
        ``(n_rows, m)``: the levels of all the JG's documents (retrieved or not), NaN-padded.

    Returns
    -------
    dict of str to numpy.ndarray
        Each ``(n_rows,)`` float64.

    Examples
    --------
    >>> c = ec_counts(np.array([[0.0, 2.0, np.nan]]), np.array([[2.0, 1.0, 0.0]]))
    >>> {k: int(c[k][0]) for k in ("ful_ret", "poss_ret", "ful_imp", "poss_imp")}
    {'ful_ret': 0, 'poss_ret': 1, 'ful_imp': 1, 'poss_imp': 2}
    """
    ret_levels = np.asarray(ret_levels, dtype=np.float64)
    all_levels = np.asarray(all_levels, dtype=np.float64)
    values = np.unique(all_levels[~np.isnan(all_levels)])  # the levels, ascending
    n = len(ret_levels)
    r, a, ful_by = (np.zeros((n, len(values))) for _ in range(3))
    member = ~np.isnan(ret_levels)
    for j, level in enumerate(values):  # a loop over the distinct levels (a few)
        at = ret_levels == level
        ful_by[:, j] = (at * _exclusive_cumsum(ret_levels > level)).sum(axis=1)
        r[:, j] = at.sum(axis=1)
        a[:, j] = (all_levels == level).sum(axis=1)
    m = a - r
    n_ret, n_unret, n_all = r.sum(axis=1), m.sum(axis=1), a.sum(axis=1)
    below = np.cumsum(m, axis=1) - m  # unretrieved documents of a lower level
    rel = values > 0
    out = {
        "ful_ret": ful_by.sum(axis=1),
        "poss_ret": _pairs(n_ret) - _pairs(r).sum(axis=1),
        "ful_imp": (r * below).sum(axis=1),
        "poss_imp": (r * (n_unret[:, None] - m)).sum(axis=1),
        "notoccur": _pairs(n_unret) - _pairs(m).sum(axis=1),
        "num_rel": a[:, rel].sum(axis=1),
        "num_rel_ret": r[:, rel].sum(axis=1),
        "num_nonrel": a[:, ~rel].sum(axis=1),
        "num_nonrel_ret": r[:, ~rel].sum(axis=1),
    }
    # trec_eval's recount for N > R: the lowest class stands for the non-relevant documents
    rows = np.arange(n)
    lowest = np.argmax(a > 0, axis=1)
    upper = np.arange(len(values))[None, :] > lowest[:, None]
    above_lowest = np.where(upper, below - m[rows, lowest][:, None], 0.0)
    position = _exclusive_cumsum(member)  # documents of the JG retrieved above each rank
    at_lowest = ret_levels == (values[lowest][:, None] if len(values) else np.nan)
    size, size_ret = a[rows, lowest], r[rows, lowest]
    kept = np.minimum(out["num_rel"], size)  # trec_eval reads past the class when R > size
    kept_ret = np.minimum(out["num_rel"], size_ret)
    out["rc_ful"] = ((ful_by * upper).sum(axis=1) + (r * above_lowest).sum(axis=1)
                     + _first_sum(position, at_lowest, kept_ret) + (kept - kept_ret) * n_ret)
    out["rc_poss"] = (_pairs((a * upper).sum(axis=1)) - (_pairs(a) * upper).sum(axis=1)
                      + n_all * kept)
    kept_r = np.minimum(out["num_rel_ret"], size_ret)
    out["rcr_ful"] = (ful_by * upper).sum(axis=1) + _first_sum(position, at_lowest, kept_r)
    out["rcr_poss"] = (_pairs((r * upper).sum(axis=1)) - (_pairs(r) * upper).sum(axis=1)
                       + n_ret * kept_r)
    return out


def relation_closure(relation: np.ndarray) -> np.ndarray:
    """The transitive closure of a preference relation (``relation[a, b]``: a ≻ b), by
    repeated squaring; a ValueError when the closure has a cycle (a ≻ b and b ≻ a).

    Examples
    --------
    >>> r = np.zeros((3, 3), dtype=bool); r[0, 1] = r[1, 2] = True
    >>> relation_closure(r).astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    closed = np.asarray(relation, dtype=bool) | np.eye(len(relation), dtype=bool)
    while True:
        step = (closed.astype(np.float32) @ closed.astype(np.float32)) > 0
        if (step == closed).all():
            break
        closed = step
    np.fill_diagonal(closed, False)
    if (closed & closed.T).any():
        a, b = np.argwhere(closed & closed.T)[0]
        raise ValueError(
            f"preferences of one judgment group are inconsistent: documents {a} and {b} "
            "(docid ranks) are each preferred to the other through its subgroups"
        )
    return closed


def pa_counts(relation: np.ndarray, level: np.ndarray, n_ret: int) -> dict[str, float]:
    """Per-JG counts (:data:`COUNTS`) of one JG in PA form.

    Parameters
    ----------
    relation : numpy.ndarray
        ``(n, n)`` bool over the query's judged documents in docid-rank order: the JG's
        closed preference relation (:func:`relation_closure`).
    level : numpy.ndarray
        ``(n,)``: each document's level in the last subgroup (by name) that holds it, -1 for
        a document outside the JG (trec_eval's ``rel_array``: > 0 relevant, 0 non-relevant,
        anything else neither).
    n_ret : int
        The judged documents retrieved (docid ranks ``0 .. n_ret - 1``).

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> rel = np.zeros((3, 3), dtype=bool); rel[2, 0] = rel[1, 0] = True
    >>> c = pa_counts(rel, np.array([0.0, 1.0, 1.0]), 2)
    >>> c["ful_ret"], c["poss_ret"], c["poss_imp"]
    (0.0, 1.0, 1.0)
    """
    n = len(level)
    ret = np.arange(n) < n_ret
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    rel, nonrel = level > 0, level == 0

    def area(rows: np.ndarray, cols: np.ndarray, keep: np.ndarray | None = None) -> float:
        cell = relation & rows[:, None] & cols[None, :]
        if keep is not None:
            cell &= keep
        return float(cell.sum())

    out = {
        "ful_ret": area(ret, ret, upper),
        "poss_ret": area(ret, ret),
        "ful_imp": area(ret, ~ret),
        "poss_imp": area(ret, ~ret) + area(~ret, ret),
        "notoccur": area(~ret, ~ret),
        "num_rel": float(rel.sum()),
        "num_rel_ret": float((rel & ret).sum()),
        "num_nonrel": float(nonrel.sum()),
        "num_nonrel_ret": float((nonrel & ret).sum()),
    }
    # trec_eval's recount for N > R: the non-relevant documents after the first R (in docid
    # order; for _ret among the retrieved) leave the relation
    r = int(out["num_rel"])
    for prefix, scan in (("rc_", n), ("rcr_", n_ret)):
        seen = np.flatnonzero(nonrel[:scan])
        first_dropped = seen[r] if len(seen) > r else scan
        keep = ~(nonrel & (np.arange(n) >= first_dropped))
        docs = keep if prefix == "rc_" else keep & ret
        out[prefix + "ful"] = area(keep & ret, docs, upper)
        out[prefix + "poss"] = area(docs, docs)
    return out


def pair_sums(relations: list[np.ndarray], n_ret: int, memory_budget: float) -> dict[str, float]:
    """The ``pair`` sums of one query: for each scope, the pairs of documents with a
    preference and the summed share of JGs preferring the document with the smaller docid
    rank when it was retrieved.

    Parameters
    ----------
    relations : list of numpy.ndarray
        Each JG's ``(n, n)`` bool relation over the query's judged documents (docid order).
    n_ret : int
        The judged documents retrieved.
    memory_budget : float
        Bytes of working memory: the counts are built in blocks of rows.

    Returns
    -------
    dict of str to float
        ``pairs_<scope>`` and ``share_<scope>`` for the scopes ``ret``, ``imp`` and ``all``.

    Examples
    --------
    >>> a = np.zeros((2, 2), dtype=bool); a[0, 1] = True    # one JG: 0 ≻ 1
    >>> b = np.zeros((2, 2), dtype=bool); b[1, 0] = True    # another: 1 ≻ 0
    >>> pair_sums([a, b], 2, 1e6)["share_ret"]
    0.5
    """
    n = relations[0].shape[0] if relations else 0
    out = dict.fromkeys(("pairs_ret", "share_ret", "pairs_imp", "share_imp", "pairs_all"), 0.0)
    step = max(1, int(memory_budget // (16 * max(n, 1) * max(len(relations), 1))))
    cols = np.arange(n)
    for start in range(0, n, step):
        rows = np.arange(start, min(n, start + step))
        forward = sum(r[rows].astype(np.int32) for r in relations)  # count[i, j]
        backward = sum(r[:, rows].T.astype(np.int32) for r in relations)  # count[j, i]
        total = forward + backward
        later = (cols[None, :] > rows[:, None]) & (total > 0)
        share = np.divide(forward, total, out=np.zeros(total.shape), where=later)
        both = later & (cols[None, :] < n_ret) & (rows[:, None] < n_ret)
        one = later & (cols[None, :] >= n_ret) & (rows[:, None] < n_ret)
        out["pairs_ret"] += float(both.sum())
        out["share_ret"] += float(share[both].sum())
        out["pairs_imp"] += float(both.sum() + one.sum())
        out["share_imp"] += float(share[both | one].sum())
        out["pairs_all"] += float(later.sum())
    out["share_all"] = out["share_imp"]  # a pair with neither document retrieved shares 0
    return out


def _scope(kind: str) -> str:
    for scope in ("_ret", "_imp"):
        if kind.endswith(scope):
            return scope[1:]
    return "all"


def _scoped(counts: dict[str, np.ndarray], scope: str) -> tuple[np.ndarray, np.ndarray]:
    """Fulfilled and possible preferences of each row in ``scope``."""
    ful = counts["ful_ret"] + (counts["ful_imp"] if scope != "ret" else 0.0)
    poss = counts["poss_ret"] + (counts["poss_imp"] if scope != "ret" else 0.0)
    if scope == "all":
        poss = poss + counts["notoccur"]
    return ful, poss


def _rnonrel(counts: dict[str, np.ndarray], retrieved: bool) -> tuple[np.ndarray, np.ndarray]:
    """``avgjg_Rnonrel`` (``_ret``): fulfilled and possible preferences of each JG."""
    if retrieved:
        r, n = counts["num_rel_ret"], counts["num_nonrel_ret"]
        ful = counts["ful_ret"] + counts["num_rel_ret"] * (r - n)
        poss = counts["poss_ret"] + counts["num_rel"] * (r - n)
        return (np.where(r >= n, ful, counts["rcr_ful"]),
                np.where(r >= n, poss, counts["rcr_poss"]))
    r, n = counts["num_rel"], counts["num_nonrel"]
    ful, poss = _scoped(counts, "all")
    ful = ful + counts["num_rel_ret"] * (r - n)
    poss = poss + counts["num_rel"] * (r - n)
    return np.where(r >= n, ful, counts["rc_ful"]), np.where(r >= n, poss, counts["rc_poss"])


def prefs_value(
    kind: str,
    counts: dict[str, np.ndarray],
    query: np.ndarray,
    n_queries: int,
    pairs: dict[str, np.ndarray] | None = None,
) -> np.ndarray:
    """trec_eval's ``prefs_<kind>`` per query from per-JG counts; NaN where the query has no
    preference in the measure's scope (trec_eval scores 0).

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    counts : dict of str to numpy.ndarray
        Per-JG counts (:data:`COUNTS`), one entry per (query, JG) row.
    query : numpy.ndarray
        ``(n_rows,)`` the query (0 .. n_queries − 1) of each row.
    n_queries : int
        Number of queries.
    pairs : dict of str to numpy.ndarray, optional
        Per query, the ``pair`` sums (:func:`pair_sums`); without them each query must have
        one JG, where ``pair`` equals ``simp``.

    Returns
    -------
    numpy.ndarray
        ``(n_queries,)``.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}; got {kind!r}")
    scope = _scope(kind)

    def per_query(values: np.ndarray) -> np.ndarray:
        return np.bincount(query, weights=values, minlength=n_queries)

    n_groups = np.bincount(query, minlength=n_queries)
    ful, poss = _scoped(counts, scope)
    any_possible = per_query((poss > 0).astype(float)) > 0
    if kind.startswith("simp") or (kind.startswith("pair") and pairs is None):
        if pairs is None and kind.startswith("pair") and (n_groups > 1).any():
            raise ValueError("prefs_pair over several judgment groups needs the pair sums")
        total = per_query(poss)
        return np.divide(per_query(ful), total, out=np.full(n_queries, np.nan), where=total > 0)
    if kind.startswith("pair"):
        n_pairs = pairs[f"pairs_{scope}"]
        share = pairs[f"share_{scope}"]
        return np.divide(share, n_pairs, out=np.full(n_queries, np.nan), where=n_pairs > 0)
    if "Rnonrel" in kind:
        ful, poss = _rnonrel(counts, retrieved=scope == "ret")
        with np.errstate(invalid="ignore", divide="ignore"):
            total = per_query(ful / poss)  # a JG at 0/0 makes the sum NaN, as in trec_eval
        any_possible = per_query((poss > 0).astype(float)) > 0
    else:
        total = per_query(np.divide(ful, poss, out=np.zeros(len(ful)), where=poss > 0))
    value = np.where(total > 0, total / np.maximum(n_groups, 1), 0.0)
    return np.where(any_possible, value, np.nan)


def num_prefs_value(
    kind: str, counts: dict[str, np.ndarray], query: np.ndarray, n_queries: int
) -> np.ndarray:
    """trec_eval's ``prefs_num_prefs_<kind>`` per query (``poss``: possible preferences,
    ``ful``: fulfilled, implied ones included, ``ful_ret``: fulfilled among the retrieved)."""
    if kind not in COUNT_KINDS:
        raise ValueError(f"kind must be one of {list(COUNT_KINDS)}; got {kind!r}")
    if kind == "poss":
        values = _scoped(counts, "all")[1]
    elif kind == "ful":
        values = _scoped(counts, "all")[0]
    else:
        values = counts["ful_ret"]
    return np.bincount(query, weights=values, minlength=n_queries)


def _qrels_counts(rg: RankedGains) -> dict[str, np.ndarray]:
    """One JG per query: the judged documents (any grade) with their grades as levels."""
    if rg.judged is None or rg.judged_grades is None:
        raise ValueError(
            "the preference measures read which documents are judged; build the RankedGains "
            "with ranked_gains(..., judged=True)"
        )
    levels = trec_float(rg.gains)
    shown = np.arange(rg.depth)[None, :] < rg.lengths[:, None]
    ret_levels = np.where(rg.judged & shown, levels, np.nan)
    all_levels = trec_float(rg.judged_grades)
    return ec_counts(ret_levels, all_levels)


def prefs_kernel(rg: RankedGains, *, kind: str = "simp") -> np.ndarray:
    """trec_eval's ``prefs_<kind>`` with the qrels as one judgment group (``-R qrels_prefs``
    on a qrels whose second column is one value); NaN where nothing is in scope.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[0, 1]], [[1, 0, 0]], [[True, True]])
    >>> prefs_kernel(rg).tolist(), prefs_kernel(rg, kind="simp_ret").tolist()  # trec_eval
    ([0.5], [0.0])
    """
    counts = _qrels_counts(rg)
    return prefs_value(kind, counts, np.arange(len(rg)), len(rg))


def num_prefs_kernel(rg: RankedGains, *, kind: str = "poss") -> np.ndarray:
    """trec_eval's ``prefs_num_prefs_<kind>`` with the qrels as one judgment group."""
    counts = _qrels_counts(rg)
    return num_prefs_value(kind, counts, np.arange(len(rg)), len(rg))
