"""What a classifier family's kernel reads: one classifier's view of the truth, and a block of
the truth's worlds.

A kernel is ``kernel(view, target, **params) -> (n_rows, n_items)``: ``view`` is a
:class:`SystemView` (the classifier's scores on the evaluated items, with cached rankings and
taxonomy-level maps), ``target`` a :class:`Target` (rows of world labels, plausibility vectors
or label sets over the truth's nodes). The same kernel gives the exact law (its values on
every node of an item's support, weighted by p(node | item)), the point value of a truth that
is the same in every world, and the Monte Carlo worlds.

Examples
--------
>>> import pandas as pd
>>> from fuzzytruth import Membership, Taxonomy
>>> from fuzzytruth.classify.predictions import Predictions
>>> from fuzzytruth.classify.targets import class_truth
>>> tax = Taxonomy.flat(["a", "b", "c"])
>>> truth = class_truth(Membership.from_labels({"x": "b"}, taxonomy=tax)).prepare(["x"])
>>> view = SystemView(Predictions([[0.2, 0.5, 0.3]], items=["x"], classes=["a", "b", "c"]),
...                   truth)
>>> table, group = view.hard_credit(1, "last", None)
>>> bool(table[0, group[truth.nodes.index("b")]])
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from fuzzytruth._resampling import MEMORY_BUDGET
from fuzzytruth._validation import check_choice
from fuzzytruth._warnings import warn
from fuzzytruth.classify.predictions import Predictions
from fuzzytruth.classify.ranking import STRICT_TIES, Candidates, candidates
from fuzzytruth.classify.targets import ClassMap, PreparedClassTruth
from fuzzytruth.taxonomy import _show

__all__ = ["SystemView", "Target", "hit_probability"]

TARGET_KINDS = ("labels", "vectors", "sets")


@dataclass(frozen=True, eq=False)
class Target:
    """Rows of the truth, each a complete truth of the evaluated items.

    Attributes
    ----------
    kind : {"labels", "vectors", "sets"}
        One node per item (``labels``, ``(n_rows, n_items)`` int), a plausibility vector per
        item (``vectors``, ``(n_rows, n_items, n_nodes)``), or a set of nodes per item
        (``sets``, ``(n_rows, n_items, n_nodes)`` bool).
    """

    kind: str
    labels: np.ndarray | None = None
    vectors: np.ndarray | None = None
    sets: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        """Number of rows (worlds, or support nodes of an exact law)."""
        data = {"labels": self.labels, "vectors": self.vectors, "sets": self.sets}[self.kind]
        return data.shape[0]


def hit_probability(lo: np.ndarray, hi: np.ndarray, member: np.ndarray, k: int,
                    average: bool) -> np.ndarray:
    """P(some member candidate is in the top ``k``), along the last axis.

    ``lo``, ``hi`` are the candidates' rank ranges and ``member`` says which belong to the
    group. Under a strict rule (or ``"all"``) a member with ``lo < k`` is in. Under
    ``"average"`` a member tied across rank k is in with the probability that a random order
    of its tie group gives it one of the ``k - lo`` slots left: with m members among the
    group's n classes, P(none of them) = C(n - m, s) / C(n, s).

    Examples
    --------
    Three classes tied for two slots, two of them members: 1 - C(1, 2) / C(3, 2) = 1.

    >>> lo, hi = np.array([[0, 0, 0]]), np.array([[3, 3, 3]])
    >>> hit_probability(lo, hi, np.array([[True, True, False]]), 2, True).tolist()
    [1.0]
    >>> hit_probability(lo, hi, np.array([[True, False, False]]), 2, True).round(4).tolist()
    [0.6667]
    """
    if not average:
        return (member & (lo < k)).any(axis=-1).astype(np.float64)
    full = (member & (hi <= k)).any(axis=-1)
    straddle = member & (lo < k) & (hi > k)
    m = straddle.sum(axis=-1)
    size = np.where(straddle, hi - lo, 0).max(axis=-1, initial=0)
    slots = np.where(straddle, k - lo, 0).max(axis=-1, initial=0)
    p_none = np.ones(m.shape)
    for j in range(int(m.max(initial=0))):
        p_none *= np.where(j < m, np.maximum(size - slots - j, 0) / np.maximum(size - j, 1), 1)
    return np.where(full, 1.0, np.where(m > 0, 1.0 - p_none, 0.0))


class SystemView:
    """One classifier on the evaluated items, as its families' kernels read it.

    Parameters
    ----------
    predictions : Predictions
        The classifier, its rows in the evaluation's item order.
    truth : PreparedClassTruth
        The truth on the same items.
    memory_budget : float
        Bytes of working memory per block (ranking).
    depths : mapping of str to int, optional
        The deepest top k the evaluation reads under each tie rule: the classes are ranked
        once to that depth, whichever k is asked first.
    """

    def __init__(self, predictions: Predictions, truth: PreparedClassTruth,
                 memory_budget: float = MEMORY_BUDGET,
                 depths: Mapping[str, int] | None = None) -> None:
        self.predictions = predictions
        self.truth = truth
        self.memory_budget = memory_budget
        self._depths = dict(depths or {})
        self._maps: dict[Any, ClassMap] = {}
        self._candidates: dict[str, Candidates] = {}
        self._credit: dict[Any, tuple[np.ndarray, np.ndarray]] = {}
        self._soft: dict[Any, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def name(self) -> str:
        """The classifier's name."""
        return self.predictions.name

    @property
    def n_items(self) -> int:
        """Number of evaluated items."""
        return self.predictions.n_items

    @property
    def scores(self) -> np.ndarray:
        """``(n_items, n_classes)`` the scores."""
        return self.predictions.scores

    def map(self, level: int | None) -> ClassMap:
        """The :class:`~fuzzytruth.classify.targets.ClassMap` at ``level`` (cached)."""
        if level not in self._maps:
            self._maps[level] = ClassMap(self.truth, self.predictions.classes, level,
                                         self.predictions.name)
        return self._maps[level]

    def candidates(self, kmax: int, ties: str) -> Candidates:
        """The top-``kmax`` candidates under ``ties`` (cached; deeper ones serve shallower)."""
        kept = self._candidates.get(ties)
        if kept is None or kept.kmax < min(kmax, self.predictions.n_classes):
            depth = max(kmax, self._depths.get(ties, 0))
            kept = candidates(self.scores, depth, ties, memory_budget=self.memory_budget)
            self._candidates[ties] = kept
        return kept

    def top(self, ties: str) -> np.ndarray:
        """``(n_items,)`` the top-ranked class of each item under a strict rule (the first
        candidate: one ranking serves top-k sets and top classes)."""
        check_choice("ties", ties, STRICT_TIES)
        return self.candidates(1, ties).columns[:, 0].astype(np.int64)

    def top_groups(self, ties: str, level: int | None) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each item's top class (strict rule) and the hard groups it counts for, as slots:
        ``slots[s][i]`` is the s-th group of item i's top class (-1 past its last); cached."""
        key = ("top", ties, level)
        if key not in self._credit:
            top = self.top(ties)
            slots = [groups[top] for groups in self.slots(level)]
            self._credit[key] = (top, slots)
        return self._credit[key]

    def hard_credit(self, k: int, ties: str, level: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Top-k hits per hard group: ``(table, group)`` with ``table[i, group[t]]`` the
        probability that item i's top k holds a class counting for true node t (bool under a
        strict rule or ``"all"``, float64 under ``"average"``)."""
        if ties == "average":
            return self._average_credit(k, level)
        best, group = self.best_rank(k, ties, level)
        return best < min(k, self.predictions.n_classes), group  # (see best_rank)

    def best_rank(self, k: int, ties: str, level: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Under a strict rule or ``"all"``: ``(best, group)`` with ``best[i, group[t]]`` the
        best rank (0-based) of a class of item i counting for true node t, capped at the depth
        ranked (at least ``k``, or the number of classes when k exceeds it: a group no class
        counts for then holds that number, so compare with ``min(k, n_classes)``); one table
        serves every k up to that depth."""
        key = (ties, level)
        kept = self._credit.get(key)
        if kept is not None and kept[2] >= min(k, self.predictions.n_classes):
            return kept[0], kept[1]
        cmap = self.map(level)
        cand = self.candidates(k, ties)
        n, width = cand.columns.shape
        depth = cand.kmax
        dtype = np.uint8 if depth < 255 else np.int32
        best = np.full((n, len(cmap.hard_members)), depth, dtype=dtype)
        rows = np.repeat(np.arange(n), width).reshape(n, width)
        valid = cand.columns >= 0
        col = np.where(valid, cand.columns, 0)
        for groups in self.slots(level):
            g = groups[col]
            ok = valid & (g >= 0) & (cand.lo < depth)
            # candidates come in rank order: assign the worst first so the best rank stays
            r, gg, lo = rows[ok][::-1], g[ok][::-1], cand.lo[ok][::-1]
            best[r, gg] = np.minimum(best[r, gg], lo.astype(dtype))
        self._credit[key] = (best, cmap.hard_group, depth)
        return best, cmap.hard_group

    def top_k_groups(self, k: int, ties: str, level: int | None) -> list[np.ndarray]:
        """Under a strict rule or ``"all"``: per membership slot, ``(n_items, width)`` the
        hard group each candidate in the top ``k`` counts for (-1 for the others): the groups
        the top k meet, read from the few candidates rather than a table of every group."""
        key = ("top_k", k, ties, level)
        if key not in self._credit:
            cand = self.candidates(k, ties)
            inside = (cand.columns >= 0) & (cand.lo < k)
            col = np.where(inside, cand.columns, 0)
            self._credit[key] = [np.where(inside, groups[col], -1).astype(np.int32)
                                 for groups in self.slots(level)]
        return self._credit[key]

    def hits(self, k: int, ties: str, level: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Under a strict rule or ``"all"``: the (item, hard group) pairs whose group the top
        ``k`` meet, ``(rows, groups)`` sorted by item then group (as ``numpy.nonzero`` of
        :meth:`best_rank`'s ``best < k`` lists them)."""
        n_groups = len(self.map(level).hard_members)
        keys = []
        for g in self.top_k_groups(k, ties, level):
            rows = np.broadcast_to(np.arange(len(g), dtype=np.int64)[:, None], g.shape)
            keys.append(rows[g >= 0] * n_groups + g[g >= 0])
        keys = np.sort(np.concatenate(keys))  # two top classes may count for one group
        keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if len(keys) else keys
        return np.divmod(keys, n_groups)

    def slots(self, level: int | None) -> list[np.ndarray]:
        """The hard groups each class counts for at ``level``, as slots: ``slots[s][c]`` is
        class c's s-th group (-1 when it has fewer); cached."""
        key = ("slots", level)
        if key not in self._credit:
            self._credit[key] = _memberships(self.map(level), self.predictions.n_classes)
        return self._credit[key]

    def _average_credit(self, k: int, level: int | None) -> tuple[np.ndarray, np.ndarray]:
        """The ``"average"`` rule's hit probabilities per hard group, for this k."""
        key = (k, "average", level)
        if key in self._credit:
            return self._credit[key][:2]
        cmap = self.map(level)
        cand = self.candidates(k, "average")
        n, width = cand.columns.shape
        n_groups = len(cmap.hard_members)
        rows = np.repeat(np.arange(n), width).reshape(n, width)
        valid = cand.columns >= 0
        col = np.where(valid, cand.columns, 0)
        full = np.zeros((n, n_groups), dtype=bool)
        count = np.zeros((n, n_groups), dtype=np.int64)
        straddle = valid & (cand.lo < k) & (cand.hi > k)
        for groups in self.slots(level):
            g = groups[col]
            ok = valid & (g >= 0) & (cand.hi <= k)
            full[rows[ok], g[ok]] = True
            ok = straddle & (g >= 0)
            np.add.at(count, (rows[ok], g[ok]), 1)
        size = np.where(straddle, cand.hi - cand.lo, 0).max(axis=1, initial=0)
        left = np.where(straddle, k - cand.lo, 0).max(axis=1, initial=0)
        table = full.astype(np.float64)
        i, g = np.nonzero((count > 0) & ~full)
        m, s, z = count[i, g], left[i], size[i]
        p_none = np.ones(len(i))
        for j in range(int(m.max(initial=0))):
            p_none *= np.where(j < m, np.maximum(z - s - j, 0) / np.maximum(z - j, 1), 1)
        table[i, g] = 1.0 - p_none
        self._credit[key] = (table, cmap.hard_group, k)
        return table, cmap.hard_group

    def soft(self, level: int | None, measure: str) -> tuple[np.ndarray, np.ndarray]:
        """Predicted probabilities over the soft groups at ``level``, and each true node's
        column among them: ``(q, column)``; ``column[t]`` is -1 where no class lifts to node
        t's group. A ValueError names ``measure`` when the scores are not probabilities."""
        self.predictions.require_probabilities(measure)
        if level in self._soft:
            return self._soft[level]
        cmap = self.map(level)
        q = self.scores
        if cmap.identity:
            inverse = np.empty(cmap.n_soft, dtype=np.int64)
            inverse[cmap.class_group] = np.arange(len(cmap.class_group))
            column = np.where(cmap.soft_group >= 0,
                              inverse[np.maximum(cmap.soft_group, 0)], -1)
            out = (q, column)
        else:
            grouped = np.zeros((q.shape[0], cmap.n_soft))
            for c, g in enumerate(cmap.class_group):
                grouped[:, g] += q[:, c]
            # summed in float64, kept in the predictions' dtype as at the classes' own level:
            # CE and KL clip at its machine epsilon (float32's 1.2e-7, not float64's 2.2e-16)
            out = (grouped.astype(q.dtype, copy=False), cmap.soft_group)
        self._soft[level] = out
        return out

    @cached_property
    def class_node(self) -> np.ndarray:
        """``(n_classes,)`` each class's position among a set-valued truth's nodes (-1 if
        none): they meet by name; a classifier none of whose classes the truth names is
        warned about (every item would be scored wrong in silence)."""
        index = {name: i for i, name in enumerate(self.truth.nodes)}
        node = np.array([index.get(c, -1) for c in self.predictions.classes])
        if index and (node < 0).all():
            _warn_no_class_named(self.predictions.classes, list(index), self.name)
        return node

    def set_hits(self, sets: np.ndarray, k: int, ties: str) -> np.ndarray:
        """``(n_rows, n_items)`` P(a class of the item's set is in its top k); NaN where the
        set is empty (accuracy undefined there)."""
        cand = self.candidates(k, ties)
        node = np.where(cand.columns >= 0, self.class_node[np.maximum(cand.columns, 0)], -1)
        member = np.take_along_axis(
            sets, np.broadcast_to(np.maximum(node, 0), (sets.shape[0], *node.shape)), axis=2
        ) & (node >= 0)
        hit = hit_probability(cand.lo, cand.hi, member, k, ties == "average")
        return np.where(sets.any(axis=2), hit, np.nan)


def _memberships(cmap: ClassMap, n_classes: int) -> list[np.ndarray]:
    """The hard groups each class belongs to, as slots: ``slots[s][c]`` is class c's s-th
    group (-1 when it has fewer)."""
    per_class: list[list[int]] = [[] for _ in range(n_classes)]
    for g, members in enumerate(cmap.hard_members):
        for c in members:
            per_class[c].append(g)
    depth = max((len(x) for x in per_class), default=0)
    slots = [np.full(n_classes, -1, dtype=np.int64) for _ in range(depth)]
    for c, groups in enumerate(per_class):
        for s, g in enumerate(groups):
            slots[s][c] = g
    return slots


def strict(ties: str) -> bool:
    """Whether ``ties`` orders every class (``"last"``, ``"first"``)."""
    return ties in STRICT_TIES


def _warn_no_class_named(classes: Sequence[str], nodes: Sequence[Any],
                         name: str | None) -> None:
    """Warn that a classifier's classes name none of a set-valued truth's classes: every item
    is then scored as wrong, which classes spelled otherwise (case, a prefix, indices for
    names) also give, without an error."""
    whose = "" if name is None else f" {name!r}"
    warn(
        f"the predictions{whose} name none of the classes the truth names: every item is "
        "scored as wrong. If their classes should be the truth's, compare the spelling: the "
        f"predictions have {_show(classes)}, the truth names {_show([str(n) for n in nodes])}",
        UserWarning,
    )
