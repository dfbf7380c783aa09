"""The annotators' ranked answers (Santini eq. 19) as padded arrays, one row per list.

Every annotator α answers a query with a ranked list ``I_1, ..., I_m`` of database items and a
relevance ``s_k`` in [0, 1] for each; the paper assumes ``s_k >= s_(k+1)``. The long table of
answers (one row per (query, annotator, item)) becomes :class:`AnnotatorLists`: the lists in a
canonical order (queries sorted, then annotators sorted), each padded to the longest, so that
the kernel scores all of them at once and nothing depends on the order of the table's rows.

Partial rankings with ties (:class:`~fuzzytruth.io.rankings.Rankings`) are answers too:
:func:`rankings_answers` writes them as the long table, tied classes sharing a rank, and the
tie rule of :mod:`fuzzytruth.displacement.ties` reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_choice, ids_text, plain
from fuzzytruth._warnings import warn
from fuzzytruth.displacement.frames import (
    distinct_text,
    first_duplicate,
    lexsort_unless_sorted,
    located,
    numeric,
    require,
    text_codes,
)
from fuzzytruth.displacement.ties import ANNOTATOR_TIES
from fuzzytruth.io.rankings import pair_codes

if TYPE_CHECKING:
    from fuzzytruth.io.rankings import Rankings

__all__ = ["ON_UNSORTED", "AnnotatorLists", "annotator_lists", "rankings_answers"]

ON_UNSORTED = ("raise", "sort")
"""What to do with a list whose relevance increases down the list."""


@dataclass(frozen=True, eq=False)
class AnnotatorLists:
    """Every (query, annotator) answer, padded: row ``r`` is one list, column ``j`` its
    position ``k = j + 1``.

    Attributes
    ----------
    query_ids : numpy.ndarray
        ``(n_queries,)`` the distinct query ids as given, sorted.
    list_query : numpy.ndarray
        ``(n_lists,)`` position in ``query_ids`` of each list's query.
    list_annotator : numpy.ndarray
        ``(n_lists,)`` annotator id of each list, as given (sorted within a query).
    lengths : numpy.ndarray
        ``(n_lists,)`` list length ``m``.
    relevance : numpy.ndarray
        ``(n_lists, width)`` relevance ``s_k``; 0 past the list's end.
    items : numpy.ndarray
        ``(n_lists, width)`` the item at each position, as a code into ``item_ids``; -1 past
        the list's end.
    item_ids : numpy.ndarray
        ``(n_item_ids,)`` the distinct item ids of all lists, as text (the join key with the
        runs' document ids).
    groups : numpy.ndarray or None
        ``(n_lists, width)`` the tie group of each position (``0, 1, ...`` down the list;
        ``width`` past its end), or None when no list has a tie
        (:mod:`fuzzytruth.displacement.ties`).
    """

    query_ids: np.ndarray
    list_query: np.ndarray
    list_annotator: np.ndarray
    lengths: np.ndarray
    relevance: np.ndarray
    items: np.ndarray
    item_ids: np.ndarray
    groups: np.ndarray | None = None

    def __repr__(self) -> str:
        return (
            f"AnnotatorLists({len(self.lengths)} lists of {len(self.query_ids)} queries, "
            f"longest {self.relevance.shape[1]})"
        )

    @property
    def query_keys(self) -> np.ndarray:
        """The query ids as text: the join key with the runs' query ids."""
        return ids_text(self.query_ids, "query_ids")

    def where(self, r: int) -> str:
        """``"query 'q', annotator 'a'"`` for list ``r``, for messages."""
        query, annotator = (x.item() if isinstance(x, np.generic) else x for x in (
            self.query_ids[self.list_query[r]], self.list_annotator[r]))
        return f"query {query!r}, annotator {annotator!r}"


def annotator_lists(
    frame: pd.DataFrame, *, names: dict[str, str], on_unsorted: str = "raise",
    ties: str = "raise",
) -> AnnotatorLists:
    """Validate the long table of answers and pad it into :class:`AnnotatorLists`.

    Within a (query, annotator) list, ascending ``rank`` gives the order (ranks unique, not
    necessarily contiguous; with ``ties="best"`` equal ranks are a tie group, whose items must
    share one relevance); each item at most once; relevance in [0, 1] and non-increasing
    down the list (else raise, or with ``on_unsorted="sort"`` re-order the list by decreasing
    relevance, stably, with a ``UserWarning``).

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``query_id``, ``annotator_id``, ``item_id``, ``rank``, ``relevance`` (named
        through ``names``).
    names : dict
        Column name of each role (:func:`~fuzzytruth.displacement.frames.column_names`).
    on_unsorted : {"raise", "sort"}, default "raise"
        See above.
    ties : {"raise", "best"}, default "raise"
        Equal ranks within a list: an error, or a tie (:mod:`fuzzytruth.displacement.ties`).

    Examples
    --------
    >>> from fuzzytruth.displacement.frames import column_names
    >>> frame = pd.DataFrame({"query_id": "q", "annotator_id": ["v", "u", "u"],
    ...                       "item_id": ["a", "b", "a"], "rank": [1, 2, 1],
    ...                       "relevance": [1.0, 0.5, 1.0]})
    >>> lists = annotator_lists(frame, names=column_names(None))
    >>> lists.list_annotator.tolist(), lists.lengths.tolist()
    (['u', 'v'], [2, 1])
    >>> lists.items.tolist(), lists.item_ids.tolist()  # -1 pads the shorter list
    ([[0, 1], [0, -1]], ['a', 'b'])
    """
    check_choice("on_unsorted", on_unsorted, ON_UNSORTED)
    check_choice("annotator_ties", ties, ANNOTATOR_TIES)
    c = names
    cols = [c["query_id"], c["annotator_id"], c["item_id"], c["rank"], c["relevance"]]
    require(frame, "annotations", cols)
    rank = numeric(frame, "annotations", c["rank"])
    rel = numeric(frame, "annotations", c["relevance"])
    outside = (rel < 0) | (rel > 1)
    if outside.any():
        j = int(np.argmax(outside))
        raise ValueError(
            f"{located(frame, j)}annotations column {c['relevance']!r} must lie in [0, 1]; got "
            f"{int(outside.sum())} values outside, e.g. {rel[j]:g}"
        )
    q_codes, query_ids = text_codes(frame[c["query_id"]], "query ids")
    a_codes, _ = text_codes(frame[c["annotator_id"]], "annotator ids")
    i_codes, i_uniques = pd.factorize(frame[c["item_id"]].to_numpy())
    item_text, item_ids = distinct_text(i_uniques)
    item = item_text[i_codes]

    # lists in (query, annotator) order, rows of a list by rank; list number = rank of its key
    key = q_codes * (int(a_codes.max()) + 1) + a_codes
    order = lexsort_unless_sorted(rank, key)
    new_list = np.ones(len(order), dtype=bool)
    new_list[1:] = key[order[1:]] != key[order[:-1]]
    lst = np.cumsum(new_list) - 1
    dup = first_duplicate(rank[order], lst)
    if dup is not None and ties == "raise":
        row = int(order[dup])
        raise ValueError(
            f"{located(frame, row)}annotations column {c['rank']!r} must be unique within each "
            f"(query, annotator) list; query {plain(frame[c['query_id']].iat[row])!r}, annotator "
            f"{plain(frame[c['annotator_id']].iat[row])!r} repeats rank {rank[row]:g} (pass "
            "annotator_ties='best' to read equal ranks as a tie)"
        )
    lengths = np.bincount(lst)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    pos = np.arange(len(lst)) - starts[lst]
    first_row = order[starts]
    width = int(lengths.max())
    relevance = np.zeros((len(lengths), width))
    relevance[lst, pos] = rel[order]
    items = np.full((len(lengths), width), -1, dtype=np.int64)
    items[lst, pos] = item[order]
    lists = AnnotatorLists(
        query_ids=query_ids,
        list_query=q_codes[first_row],
        list_annotator=frame[c["annotator_id"]].to_numpy()[first_row],
        lengths=lengths,
        relevance=relevance,
        items=items,
        item_ids=item_ids,
        groups=None if dup is None else _tie_groups(frame, c, rank[order], rel[order], order,
                                                     new_list, (lst, pos, width)),
    )
    _check_items_unique(lists, frame, order, starts)
    return _sorted_by_relevance(lists, on_unsorted, c["relevance"], frame, order, starts)


def _tie_groups(frame: pd.DataFrame, c: dict[str, str], rank: np.ndarray, rel: np.ndarray,
                order: np.ndarray, new_list: np.ndarray, cells: tuple) -> np.ndarray:
    """``(n_lists, width)`` tie group of each position (rows in list order: equal ranks in a
    list are one group), after checking that a group's items share one relevance."""
    lst, pos, width = cells
    new_group = new_list.copy()
    new_group[1:] |= rank[1:] != rank[:-1]
    mixed = np.flatnonzero(~new_group[1:] & (rel[1:] != rel[:-1])) + 1
    if mixed.size:
        j = int(mixed[0])
        row = int(order[j])
        raise ValueError(
            f"{located(frame, row)}annotations column {c['relevance']!r} must be the same for "
            f"the tied items of a list (equal {c['rank']!r}); query "
            f"{plain(frame[c['query_id']].iat[row])!r}, annotator "
            f"{plain(frame[c['annotator_id']].iat[row])!r}"
            f" gives rank {rank[j]:g} relevances {rel[j - 1]:g} and {rel[j]:g}"
        )
    number = np.cumsum(new_group) - 1
    groups = np.full((int(lst.max()) + 1, width), width, dtype=np.int64)
    groups[lst, pos] = number - number[np.flatnonzero(new_list)][lst]
    return groups


def _check_items_unique(
    lists: AnnotatorLists, frame: pd.DataFrame, order: np.ndarray, starts: np.ndarray
) -> None:
    """Each item at most once per list; else a ValueError naming the list and the item."""
    by_item = np.sort(lists.items, axis=1)
    dup = (by_item[:, 1:] == by_item[:, :-1]) & (by_item[:, 1:] >= 0)
    if dup.any():
        r = int(np.argmax(dup.any(axis=1)))
        code = by_item[r, int(np.argmax(dup[r])) + 1]
        second = int(np.flatnonzero(lists.items[r] == code)[1])
        raise ValueError(
            f"{located(frame, int(order[starts[r] + second]))}annotations must list each item "
            f"at most once per (query, annotator); {lists.where(r)} lists item "
            f"{lists.item_ids[code]!r} more than once"
        )


def _sorted_by_relevance(
    lists: AnnotatorLists, on_unsorted: str, column: str, frame: pd.DataFrame,
    order: np.ndarray, starts: np.ndarray,
) -> AnnotatorLists:
    """``lists`` unchanged if every list's relevance is non-increasing; else an error naming
    the first row that rises (its file and line when read from one), or with
    ``on_unsorted="sort"`` every list re-ordered by decreasing relevance (stable)."""
    s = lists.relevance
    valid = np.arange(s.shape[1]) < lists.lengths[:, None]
    rising = (s[:, 1:] > s[:, :-1]) & valid[:, 1:]
    if not rising.any():
        return lists
    bad = rising.any(axis=1)
    r = int(np.argmax(bad))
    if on_unsorted == "raise":
        row = int(order[starts[r] + int(np.argmax(rising[r])) + 1])
        raise ValueError(
            f"{located(frame, row)}annotations column {column!r} must be non-increasing down "
            "each list (Santini "
            f"eq. 15 assumes s_k >= s_(k+1)); {int(bad.sum())} lists are not, e.g. "
            f"{lists.where(r)}. Pass on_unsorted='sort' to re-order them by decreasing relevance"
        )
    warn(
        f"{int(bad.sum())} annotator lists were re-ordered by decreasing relevance (ties keep "
        f"their rank order), e.g. {lists.where(r)}",
        UserWarning,
    )
    by_rel = np.argsort(np.where(valid, -s, np.inf), axis=1, kind="stable")
    groups = lists.groups
    if groups is not None:  # a group's items share a relevance: they stay together; renumber
        groups = np.take_along_axis(groups, by_rel, axis=1)
        starts = np.ones(groups.shape, dtype=bool)
        starts[:, 1:] = groups[:, 1:] != groups[:, :-1]
        groups = np.where(valid, np.cumsum(starts, axis=1) - 1, groups.shape[1])
    return AnnotatorLists(
        query_ids=lists.query_ids,
        list_query=lists.list_query,
        list_annotator=lists.list_annotator,
        lengths=lists.lengths,
        relevance=np.take_along_axis(s, by_rel, axis=1),
        items=np.take_along_axis(lists.items, by_rel, axis=1),
        item_ids=lists.item_ids,
        groups=groups,
    )


def rankings_answers(rankings: Rankings, *, names: dict[str, str]) -> pd.DataFrame:
    """Partial rankings as annotators' answers (Santini eq. 19): the long table of
    :func:`annotator_lists`, one row per (case, reader, class).

    A case is a query, a reader an annotator (``reader_id``), a class an item (its name: the
    join key with the runs' document ids). A class in the reader's tie group ``g`` (0-based)
    has relevance ``1 / (1 + g)``, its weight in IRN
    (:func:`fuzzytruth.truth.models.irn`), and rank ``1 +`` the number of classes in the
    reader's earlier groups (the first position of its group), so the classes of a group share
    one rank: read them with ``ties="best"``.

    Examples
    --------
    >>> from fuzzytruth.displacement.frames import column_names
    >>> from fuzzytruth.io.rankings import Rankings
    >>> r = Rankings.from_selectors([[[[2], [0, 1]]]], classes=["a", "b", "c"])
    >>> rankings_answers(r, names=column_names(None))
       query_id  annotator_id item_id  rank  relevance
    0         0             0       c     1        1.0
    1         0             0       a     2        0.5
    2         0             0       b     2        0.5
    """
    item, reader, _, group = rankings.codes()
    pair = pair_codes(item, reader)
    order = np.lexsort((group, pair))
    new_pair = np.ones(len(order), dtype=bool)
    new_pair[1:] = pair[order[1:]] != pair[order[:-1]]
    new_group = new_pair.copy()
    new_group[1:] |= group[order[1:]] != group[order[:-1]]
    row = np.arange(len(order))
    pair_start = np.maximum.accumulate(np.where(new_pair, row, 0))
    group_start = np.maximum.accumulate(np.where(new_group, row, 0))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = group_start - pair_start + 1
    frame = rankings.frame
    return pd.DataFrame({
        names["query_id"]: frame["item_id"].to_numpy(),
        names["annotator_id"]: frame["reader_id"].to_numpy(),
        names["item_id"]: frame["class"].to_numpy(),
        names["rank"]: rank,
        names["relevance"]: 1.0 / (1.0 + group),
    })
