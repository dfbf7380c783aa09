"""The array layout every crisp kernel reads: ranked gains padded into 2-D arrays.

A kernel never sees document ids, files or DataFrames. It receives, for all queries at once,

``gains``
    ``(n_queries, depth)`` float64: the relevance grade of the document at each rank (rank 1 in
    column 0). Unjudged documents have grade 0. Columns past a query's list end hold 0.
``lengths``
    ``(n_queries,)`` int64: how many documents the run retrieved for each query.
``ideal``
    ``(n_queries, n_ideal)`` float64: the grades of *all* judged documents with a positive grade
    for that query, retrieved or not, sorted in decreasing order and padded with 0.

``judged``, ``n_judged``, ``judged_grades`` (optional, built only for families that declare
``uses={"judged"}``)
    ``(n_queries, depth)`` bool: whether the document at each rank is in the judgments (any
    grade, including 0 and negative); ``(n_queries,)`` int64: how many documents are judged for
    each query, retrieved or not; ``(n_queries, n_judged_max)`` float64: the grades of all of a
    query's judged documents (0 and negative included), descending, padded with NaN.

trec_eval reads a negative grade as "in the pool but not judged" (infAP's sampled pools): it
is neither relevant nor non-relevant, and ``-J`` drops it. The families here follow that rule:
a ranked document is *judged* in trec_eval's sense when ``judged & (gains >= 0)``.

``tie_start``, ``tie_stop`` (optional, only under the tie-averaged policy)
    ``(n_queries, depth)`` int64: the tied group of documents containing rank column ``j`` spans
    columns ``tie_start[i, j]`` (inclusive) to ``tie_stop[i, j]`` (exclusive). ``None`` when
    the ranking is a strict order; a kernel that supports tie averaging returns the expectation
    over all orders of each tied group (see :meth:`RankedGains.tie_mean`).

The number of relevant documents at a threshold ``t`` is ``(ideal >= t).sum(axis=1)``; the
query-level undefined cases (no relevant document) are decided by the caller, never silently
inside a kernel.

A kernel's value for a row depends on that row alone: not on the other rows of the batch (their
number, order or widths), so that any partition of queries and worlds gives the same bits. Sums
of a row's terms go through :func:`dot_rows` (left to right, as trec_eval adds them), never a
BLAS product (which may add a row's terms in an order that depends on its position in the
matrix) nor a pairwise ``sum`` over a width set by other rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True, eq=False)
class RankedGains:
    """Ranked relevance grades of many queries, padded to rectangles.

    Parameters
    ----------
    query_ids : numpy.ndarray
        ``(n_queries,)`` identifiers, in row order.
    gains : numpy.ndarray
        ``(n_queries, depth)`` grade of the document at each rank; 0 past the list end.
    lengths : numpy.ndarray
        ``(n_queries,)`` number of retrieved documents per query.
    ideal : numpy.ndarray
        ``(n_queries, n_ideal)`` positive grades of all judged documents, descending, 0-padded.
    tie_start, tie_stop : numpy.ndarray or None
        ``(n_queries, depth)`` bounds of the tied group containing each rank column (start
        inclusive, stop exclusive); ``None`` (the default) for a strict ranking.
    judged : numpy.ndarray or None
        ``(n_queries, depth)`` bool: the ranked document is judged (any grade).
    n_judged : numpy.ndarray or None
        ``(n_queries,)`` number of judged documents per query.
    judged_grades : numpy.ndarray or None
        ``(n_queries, n_judged_max)`` grades of every judged document, descending, NaN-padded.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q1"], [[1, 0, 2]], [[2, 1, 1]])
    >>> rg.gains
    array([[1., 0., 2.]])
    >>> rg.n_relevant(1).tolist()
    [3]
    """

    query_ids: np.ndarray
    gains: np.ndarray
    lengths: np.ndarray
    ideal: np.ndarray
    tie_start: np.ndarray | None = None
    tie_stop: np.ndarray | None = None
    judged: np.ndarray | None = None
    n_judged: np.ndarray | None = None
    judged_grades: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.query_ids)
        if self.gains.ndim != 2 or self.gains.shape[0] != n:
            raise ValueError(
                f"gains must have shape (n_queries, depth) with n_queries={n}; "
                f"got {self.gains.shape}"
            )
        if self.ideal.ndim != 2 or self.ideal.shape[0] != n:
            raise ValueError(
                f"ideal must have shape (n_queries, n_ideal) with n_queries={n}; "
                f"got {self.ideal.shape}"
            )
        if self.lengths.shape != (n,):
            raise ValueError(f"lengths must have shape ({n},); got {self.lengths.shape}")
        if (self.tie_start is None) != (self.tie_stop is None):
            raise ValueError("tie_start and tie_stop must be given together or not at all")
        if (self.judged is None) != (self.n_judged is None):
            raise ValueError("judged and n_judged must be given together or not at all")
        if self.n_judged is not None and self.n_judged.shape != (n,):
            raise ValueError(f"n_judged must have shape ({n},); got {self.n_judged.shape}")
        if self.judged_grades is not None and (
            self.judged_grades.ndim != 2 or self.judged_grades.shape[0] != n
        ):
            raise ValueError(
                f"judged_grades must have shape (n_queries, n_judged_max) with n_queries={n}; "
                f"got {self.judged_grades.shape}"
            )
        for name in ("tie_start", "tie_stop", "judged"):
            arr = getattr(self, name)
            if arr is not None and arr.shape != self.gains.shape:
                raise ValueError(
                    f"{name} must have the shape of gains {self.gains.shape}; got {arr.shape}"
                )

    def __len__(self) -> int:
        return len(self.query_ids)

    @property
    def depth(self) -> int:
        """Number of rank columns."""
        return self.gains.shape[1]

    def n_relevant(self, threshold: float = 1.0) -> np.ndarray:
        """Number of judged documents with grade >= ``threshold``, per query."""
        return (self.ideal >= threshold).sum(axis=1)

    def tie_mean(self, values: np.ndarray) -> np.ndarray:
        """Replace each entry of ``values`` by the mean over its tied group.

        ``values`` has the shape of ``gains`` (e.g. per-rank gains or a relevance mask). For any
        quantity linear in the per-rank values (P@k, R@k, DCG@k...), computing it on the result
        gives its expectation over all orders of the tied documents. Without ties (``tie_start``
        is ``None``) ``values`` is returned as float64 unchanged.

        Examples
        --------
        >>> rg = RankedGains(np.array(["q"]), np.array([[1.0, 0.0, 0.0]]), np.array([3]),
        ...                  np.array([[1.0]]), np.array([[0, 0, 2]]), np.array([[2, 2, 3]]))
        >>> rg.tie_mean(rg.gains)
        array([[0.5, 0.5, 0. ]])
        """
        values = np.asarray(values, dtype=np.float64)
        if self.tie_start is None:
            return values
        csum = np.zeros((values.shape[0], values.shape[1] + 1))
        np.cumsum(values, axis=1, out=csum[:, 1:])
        total = np.take_along_axis(csum, self.tie_stop, axis=1) - np.take_along_axis(
            csum, self.tie_start, axis=1
        )
        return total / (self.tie_stop - self.tie_start)

    @classmethod
    def from_lists(
        cls,
        query_ids: list,
        ranked_gains: list[list[float]],
        judged_gains: list[list[float]],
        ranked_judged: list[list[bool]] | None = None,
    ) -> RankedGains:
        """Build from per-query Python lists (convenience for tests and small examples).

        ``ranked_gains[i]`` are the grades in rank order of query ``i``'s retrieved documents;
        ``judged_gains[i]`` the grades of all its judged documents (any order; only positive
        grades enter ``ideal``). With ``ranked_judged`` (whether each ranked document is judged)
        the judged fields are filled too, ``judged_gains[i]`` then listing every judged grade.

        Examples
        --------
        >>> rg = RankedGains.from_lists(["q"], [[1, 0, 0]], [[1, 0]], [[True, True, False]])
        >>> rg.n_judged.tolist(), rg.judged_grades.tolist()
        ([2], [[1.0, 0.0]])
        """
        lengths = np.array([len(g) for g in ranked_gains], dtype=np.int64)
        depth = int(lengths.max(initial=0))
        gains = np.zeros((len(ranked_gains), depth))
        for i, g in enumerate(ranked_gains):
            gains[i, : len(g)] = g
        positive = [sorted((x for x in j if x > 0), reverse=True) for j in judged_gains]
        n_ideal = max((len(p) for p in positive), default=0)
        ideal = np.zeros((len(positive), n_ideal))
        for i, p in enumerate(positive):
            ideal[i, : len(p)] = p
        judged = n_judged = grades = None
        if ranked_judged is not None:
            judged = np.zeros(gains.shape, dtype=bool)
            for i, flags in enumerate(ranked_judged):
                judged[i, : len(flags)] = flags
            n_judged = np.array([len(j) for j in judged_gains], dtype=np.int64)
            rows = np.repeat(np.arange(len(judged_gains)), n_judged)
            values = np.array([x for j in judged_gains for x in j], dtype=np.float64)
            grades = judged_grade_matrix(rows, values, len(judged_gains))
        return cls(
            np.asarray(query_ids, dtype=object), gains, lengths, ideal,
            judged=judged, n_judged=n_judged, judged_grades=grades,
        )


def dot_rows(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """``values @ weights`` (the row sums when ``weights`` is None), each row's terms added
    left to right: a row's result depends on that row alone, and zero terms at its end change
    nothing (module docstring).

    Examples
    --------
    >>> dot_rows(np.array([[1.0, 2.0, 0.0], [0.5, 0.0, 4.0]]), np.array([1.0, 0.5, 0.25]))
    array([2. , 1.5])
    >>> dot_rows(np.array([[1, 2], [3, 4]]))
    array([3., 7.])
    """
    total = np.zeros(values.shape[0])
    for j in range(values.shape[1]):  # a loop over columns, vectorised over rows
        total += values[:, j] if weights is None else values[:, j] * weights[j]
    return total


def judged_grade_matrix(
    rows: np.ndarray, values: np.ndarray, n_rows: int, fill: float = np.nan
) -> np.ndarray:
    """``(n_rows, width)`` grades of each row's judged documents, descending, padded with
    ``fill`` (NaN: no judgment; 0.0 gives an ideal ranking's gains from the positive grades).

    ``rows[i]`` is the row of judgment ``i`` (in ``0..n_rows-1``) and ``values[i]`` its grade.

    Examples
    --------
    >>> judged_grade_matrix(np.array([1, 0, 1]), np.array([0.0, 2.0, 1.0]), 2)
    array([[ 2., nan],
           [ 1.,  0.]])
    """
    order = np.lexsort((-values, rows))
    rows, values = rows[order], values[order]
    count = np.bincount(rows, minlength=n_rows)
    start = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(count, out=start[1:])
    out = np.full((n_rows, int(count.max(initial=0))), fill)
    out[rows, np.arange(len(rows)) - start[rows]] = values
    return out


def truncate_grades(rg: RankedGains) -> RankedGains:
    """The ranked gains with every grade truncated toward zero, as trec_eval reads qrels.

    trec_eval 9.0.8 and 10.0 read a qrels grade with C's ``atol`` (``get_qrels.c``): ``2.7`` is
    grade 2, ``1.9`` grade 1, ``0.5`` and ``-0.5`` grade 0 (judged non-relevant, no longer "in
    the pool, not judged"). Applied to ``gains``, ``ideal`` (which stays the positive grades,
    descending) and ``judged_grades``; a negative zero becomes 0. (``atol`` reads the text:
    ``1e1`` is grade 1 there, while a grade read as the number 10.0 stays 10 here.)

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[2.7, 0.5, -0.5]], [[2.7, 1.9, 0.5, -0.5]],
    ...                             [[True, True, True]])
    >>> out = truncate_grades(rg)
    >>> out.gains.tolist(), out.ideal.tolist(), out.judged_grades.tolist()
    ([[2.0, 0.0, 0.0]], [[2.0, 1.0, 0.0]], [[2.0, 1.0, 0.0, 0.0]])
    """

    def trunc(values: np.ndarray | None) -> np.ndarray | None:
        return None if values is None else truncated(values)

    return replace(
        rg, gains=trunc(rg.gains), ideal=trunc(rg.ideal), judged_grades=trunc(rg.judged_grades)
    )


def truncated(grades: np.ndarray) -> np.ndarray:
    """Grades truncated toward zero, as trec_eval's ``atol`` reads them; a negative zero becomes
    0, integer grades are returned as they are (the one rule behind :func:`truncate_grades`
    and :meth:`fuzzytruth.ProbabilisticQrels.truncated`).

    Examples
    --------
    >>> truncated(np.array([2.7, 1.0, 0.5, -0.5])).tolist()
    [2.0, 1.0, 0.0, 0.0]
    """
    if not np.issubdtype(grades.dtype, np.floating):
        return grades  # integer grades are whole already
    out = np.trunc(grades)
    out += 0.0  # turns -0.0 into 0.0
    return out


def judged_only(rg: RankedGains) -> RankedGains:
    """The rankings with every document trec_eval does not count as judged removed (``-J``).

    A ranked document stays when it is in the judgments with a grade >= 0 (trec_eval reads a
    negative grade as "in the pool, not judged"); the documents below move up, tie groups
    keep the documents that remain, and ``lengths`` becomes the number of judged documents
    retrieved. ``ideal`` and the judged counts are unchanged. Every measure computed on the
    result is trec_eval's value under ``-J``.

    Parameters
    ----------
    rg : RankedGains
        Ranked gains with the judged fields (``ranked_gains(..., judged=True)``).

    Returns
    -------
    RankedGains

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[0, 1, 0, -1, 1]], [[1, 1, 0, -1]],
    ...                             [[False, True, True, True, True]])
    >>> out = judged_only(rg)
    >>> out.gains.tolist(), out.lengths.tolist()
    ([[1.0, 0.0, 1.0]], [3])
    """
    if rg.judged is None:
        raise ValueError(
            "judged_only needs the judged fields of RankedGains; build them with "
            "ranked_gains(..., judged=True)"
        )
    cols = np.arange(rg.depth)
    keep = rg.judged & (rg.gains >= 0) & (cols[None, :] < rg.lengths[:, None])
    rows, old = np.nonzero(keep)
    lengths = keep.sum(axis=1).astype(np.int64)
    depth = int(lengths.max(initial=0))
    start = np.zeros(len(rg) + 1, dtype=np.int64)
    np.cumsum(lengths, out=start[1:])
    new = np.arange(len(rows)) - start[rows]
    gains = np.zeros((len(rg), depth))
    gains[rows, new] = rg.gains[rows, old]
    judged = np.zeros((len(rg), depth), dtype=bool)
    judged[rows, new] = True
    tie_start = tie_stop = None
    if rg.tie_start is not None:
        group = rg.tie_start[rows, old]  # groups are contiguous runs of equal start column
        first = np.ones(len(rows), dtype=bool)
        first[1:] = (rows[1:] != rows[:-1]) | (group[1:] != group[:-1])
        gid = np.cumsum(first) - 1
        g_start = new[first]
        last = np.append(np.flatnonzero(first)[1:], len(rows)) - 1
        g_stop = new[last] + 1
        tie_start = np.broadcast_to(np.arange(depth), (len(rg), depth)).copy()
        tie_stop = tie_start + 1
        tie_start[rows, new] = g_start[gid]
        tie_stop[rows, new] = g_stop[gid]
    return RankedGains(
        rg.query_ids, gains, lengths, rg.ideal, tie_start, tie_stop, judged, rg.n_judged,
        rg.judged_grades,
    )


def sum_in_order(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """``values`` added one at a time along ``axis``, first to last, as trec_eval's loops add
    a query's terms in rank order and a measure's values over the queries (``meas_acc.c``, in
    ``strcmp`` order of their ids). numpy's ``sum`` adds in pairwise blocks, which can differ
    in the last bit, and so in the fourth printed digit: sixteen reciprocal ranks whose
    sequential mean is 0.36874999999999997 (trec_eval prints 0.3687) have a pairwise mean of
    0.36875 (0.3688); a bpref of 0.46874999999999994 came out 0.46875. Cells that are not
    terms hold 0, which adds nothing.

    >>> float(sum_in_order(np.array([0.1] * 10))), float(np.array([0.1] * 10).sum())
    (0.9999999999999999, 1.0)
    """
    if values.shape[axis] == 0:
        return values.sum(axis=axis)
    return np.take(np.cumsum(values, axis=axis), -1, axis=axis)
