"""Category taxonomies: trees and DAGs of category names, validated on construction.

A :class:`Taxonomy` is immutable. Its nodes are kept in a topological order (every parent
before its children, the root first), which is also the column order of every matrix the
library builds over categories (membership, ancestor closure).
"""

from __future__ import annotations

import contextlib
import difflib
import itertools
from collections import deque
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._order import in_text_order, name_order, ranges, ranks
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows
from fuzzytruth._validation import (
    _bytes,
    check_columns,
    check_flag,
    check_int,
    check_memory_budget,
    id_list,
    id_text,
    physical_memory,
    plain,
    text_names,
)

__all__ = ["Taxonomy"]

_BYTES_PER_TERM = 96
"""Bytes of temporaries per term (a share times one node it is under) in
:meth:`Taxonomy.close_over_ancestors`: its cell, value, sort order and the sums' state."""


def _closed_sums(row: np.ndarray, label: np.ndarray, value: np.ndarray, ptr: np.ndarray,
                 columns: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(cell, total)``: each share ``value[k]`` of ``(row[k], label[k])`` added to every node
    the label is under (``columns[ptr[label]:ptr[label + 1]]``); ``cell`` the distinct
    ``row * n + node``, ascending, and ``total`` each one's sum correctly rounded (the float
    nearest the exact sum of its terms, as :func:`math.fsum`), so no order of the terms
    changes a bit.

    Vectorised over the cells: the terms grouped by cell (a stable sort), the k-th terms of
    all cells added at step k by an error-free two-sum (Knuth), whose errors are summed
    apart; the result ``s + c`` is correctly rounded unless the error of ``c`` (bounded by
    the sum of the errors' magnitudes) could move it across a rounding boundary, and those
    rare cells (an exact tie, say) are summed by :func:`math.fsum`. Whole numbers add without
    error: their sums are exact, as before.
    """
    import math

    count = ptr[label + 1] - ptr[label]
    node = columns[ranges(ptr[label], count)]
    key = np.repeat(row.astype(np.int64) * n, count) + node
    terms = np.repeat(value, count)
    order = np.argsort(key, kind="stable")
    key, terms = key[order], terms[order]
    del order, node
    if not len(key):
        return key, terms
    first = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    cell = key[first]
    length = np.diff(np.append(first, len(key)))
    # the cells longest first: those with a k-th term are a prefix at step k
    small = np.int16 if length.max() < 2**15 else np.int64  # a radix sort: few lengths
    by_length = np.argsort((-length).astype(small), kind="stable")
    begin, size = first[by_length], length[by_length]
    s = terms[begin].copy()
    c = np.zeros(len(s))
    spread = np.zeros(len(s))  # the sum of the errors' magnitudes
    for k in range(1, int(size[0])):
        m = int(np.searchsorted(-size, -k, side="left"))  # cells with more than k terms
        x = terms[begin[:m] + k]
        a = s[:m]
        t = a + x
        z = t - a
        e = (a - (t - z)) + (x - z)
        s[:m] = t
        c[:m] += e
        spread[:m] += np.abs(e)
    total = s + c
    inexact = ~(spread == 0)  # and NaN: an infinite term
    if inexact.any():
        # c is within (size + 1) * eps * spread of the errors' exact sum: a margin of twice that
        bound = spread[inexact] * (2.0 * (size[inexact] + 1) * np.finfo(float).eps)
        si, ci = s[inexact], c[inexact]
        low = si + np.nextafter(ci - bound, -np.inf)
        high = si + np.nextafter(ci + bound, np.inf)
        unsure = np.flatnonzero(inexact)[~(low == high)]
        for j in unsure:  # a tie or near one, or values beyond float range
            part = terms[begin[j] : begin[j] + size[j]]
            try:
                total[j] = math.fsum(part)
            except (OverflowError, ValueError):
                total[j] = float(np.sum(part))
    out = np.empty(len(total))
    out[by_length] = total
    return cell, out


def _show(names: Iterable[Any], limit: int = 5) -> str:
    names = list(names)
    shown = ", ".join(repr(plain(n)) for n in names[:limit])
    return shown + (f", … ({len(names)} in all)" if len(names) > limit else "")


def closest_names(name: Any, known: Iterable[Any], n: int = 3) -> list[Any]:
    """Names in ``known`` whose text is ``name``'s but for case (first), or looks like it
    (difflib ratio >= 0.6), best first, as they are (an int node is shown as the int it is).

    Examples
    --------
    >>> closest_names("A", ["a", "b"]), closest_names("dgo", ["cat", "dog"])
    (['a'], ['dog'])
    """
    by_text = _by_text(known)
    text = _text(name)
    cased = [t for t in by_text if t.casefold() == text.casefold()]
    close = difflib.get_close_matches(text, list(by_text), n=n)
    return [by_text[t] for t in dict.fromkeys(cased + close)][:n]


def _by_text(known: Iterable[Any]) -> dict[str, Any]:
    """Each known name by its text (:func:`_text`), the first of a text kept."""
    by_text: dict[str, Any] = {}
    for k in known:
        by_text.setdefault(_text(k), k)
    return by_text


def _text(name: Any) -> str:
    """A name's text for matching hints: bytes decoded (:func:`id_text`), else ``str``."""
    try:
        return id_text(name, "name")
    except ValueError:  # bytes that are not UTF-8: their repr
        return str(name)


def type_mismatch(names: Iterable[Any], known: Iterable[Any]) -> str:
    """The reason a name is not found when its text is a known name of another type (an int
    label against str nodes: what pandas makes of a column of 11, 12; a str against int
    nodes; bytes against str), with the conversion; "" when there is none.

    >>> type_mismatch([11, "x"], ["11", "12"])
    "; names are matched as they are, and 11 (int) is not '11' (str): convert them (str)"
    >>> type_mismatch(["3"], [3, 4])
    "; names are matched as they are, and '3' (str) is not 3 (int): convert them (int)"
    """
    by_text = _by_text(known)
    for name in names:
        node = by_text.get(_text(name), name)
        if type(node) is not type(name):
            how = "decode them" if isinstance(name, bytes) else (
                f"convert them ({type(node).__name__})")
            return (f"; names are matched as they are, and {name!r} ({type(name).__name__}) "
                    f"is not {node!r} ({type(node).__name__}): {how}")
    return ""


class Taxonomy:
    """A rooted category tree or DAG (a node may have several parents).

    Build one with :meth:`from_edges`, :meth:`from_nested` or :meth:`from_frame`; the
    constructor validates the graph and raises a ``ValueError`` that names the offending nodes
    for a cycle, an unknown parent, a duplicate node, no root or several roots, or an empty
    taxonomy.

    Examples
    --------
    >>> tax = Taxonomy.from_edges([("all", "people"), ("all", "scenery"),
    ...                            ("people", "crowd"), ("scenery", "city")])
    >>> tax.root
    'all'
    >>> tax.ancestors("crowd")
    ('people', 'all')
    >>> tax.leaves
    ('crowd', 'city')
    >>> tax.depth("crowd")
    2
    """

    def __init__(
        self,
        parents: Mapping[Hashable, Sequence[Hashable]],
        *,
        implicit_root: Hashable | None = None,
    ) -> None:
        if not parents:
            raise ValueError("taxonomy is empty: give at least one node")
        # a parent given as an equal value of another type (0.0 for the node 0: a pandas
        # column with a missing value holds floats) is that node, under the node's own name
        named = {node: node for node in parents}
        parents = {node: tuple(named.get(p, p) for p in ps) for node, ps in parents.items()}
        missing = [n for n in parents if _is_missing(n)]
        if missing:
            raise ValueError(f"node names must not be missing values; got {missing[0]!r}")
        for node, ps in parents.items():
            unknown = [p for p in ps if p not in parents]
            if unknown:
                hint = closest_names(unknown[0], parents)
                raise ValueError(
                    f"unknown parent {unknown[0]!r} of node {node!r}: it is not a node of the "
                    f"taxonomy" + (f" (closest known names: {_show(hint)})" if hint else "")
                )
            if len(set(ps)) != len(ps):
                raise ValueError(f"duplicate edge: node {node!r} lists a parent twice: {ps!r}")
            if node in ps:
                raise ValueError(f"cycle in taxonomy: {node!r} -> {node!r}")
        roots = [n for n, ps in parents.items() if not ps]
        if implicit_root is not None:
            if not isinstance(implicit_root, Hashable) or _is_missing(implicit_root):
                raise ValueError(
                    "implicit_root must be the name of the root to add (hashable, not a missing "
                    f"value) or None; got {implicit_root!r}"
                )
            if implicit_root in parents:
                raise ValueError(
                    f"implicit_root {implicit_root!r} is already a node of the taxonomy"
                )
            parents = {
                implicit_root: (),
                **{n: ps or (implicit_root,) for n, ps in parents.items()},
            }
            roots = [implicit_root]
        # reports, files and the ids of the rest of the library show a node as text: 1 and
        # "1" would be two nodes printed alike
        text_names(parents, "taxonomy", "node")
        # with no root every node has a parent, so Kahn's algorithm stops at once: a cycle
        order = _topological_order(parents)
        if len(roots) > 1:
            raise ValueError(
                f"taxonomy has {len(roots)} roots ({_show(roots)}); a taxonomy needs exactly "
                "one root: add a common parent, or pass implicit_root='<name>' to add one"
            )
        self._parents: dict[Hashable, tuple[Hashable, ...]] = {n: parents[n] for n in order}
        self._nodes: tuple[Hashable, ...] = tuple(order)
        self._index = {n: i for i, n in enumerate(order)}
        children: dict[Hashable, list[Hashable]] = {n: [] for n in order}
        for n in order:
            for p in parents[n]:
                children[p].append(n)
        self._children = {n: tuple(c) for n, c in children.items()}
        self._root = roots[0]
        self._depth = self._depths()

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_edges(
        cls,
        edges: Iterable[tuple[Hashable, Hashable]],
        *,
        nodes: Iterable[Hashable] | None = None,
        implicit_root: Hashable | None = None,
    ) -> Taxonomy:
        """Build from ``(parent, child)`` pairs.

        Parameters
        ----------
        edges : iterable of (parent, child)
            A child listed under several parents makes a DAG.
        nodes : iterable, optional
            Every node, declared explicitly. When given, a parent or child that is not declared
            is an error (``unknown parent``), and so is a node declared twice. Use it for a
            taxonomy with a single node, or to catch typos in the edges.
        implicit_root : hashable, optional
            Name of a root to add above all parentless nodes. Without it, several roots are an
            error.

        Examples
        --------
        >>> Taxonomy.from_edges([("all", "a"), ("all", "b"), ("a", "ab"), ("b", "ab")]).is_tree
        False
        """
        listed = list(in_text_order(_names(edges, "edges", "(parent, child) pairs")))
        edges = []
        for i, e in enumerate(listed):
            # a str is not a pair: "ab" would be the edge ("a", "b")
            pair = tuple(e) if isinstance(e, Iterable) and not isinstance(e, str | bytes) else ()
            if len(pair) != 2:
                raise ValueError(f"edges[{i}] must be a (parent, child) pair; got {e!r}")
            edges.append(pair)
        declared: list[Hashable] = []
        if nodes is not None:
            declared = list(_names(nodes, "nodes", "node names"))
            dup = pd.Index(declared)[pd.Index(declared).duplicated()].unique().tolist()
            if dup:
                raise ValueError(f"duplicate node(s) in nodes: {_show(dup)}")
            known = set(declared)
            for parent, child in edges:
                for role, name in (("parent", parent), ("child", child)):
                    if name not in known:
                        hint = closest_names(name, known)
                        raise ValueError(
                            f"unknown {role} {name!r} in edge ({parent!r}, {child!r}): not in "
                            "nodes" + (f" (closest known names: {_show(hint)})" if hint else "")
                        )
        seen: set[tuple[Hashable, Hashable]] = set()
        parents: dict[Hashable, list[Hashable]] = {n: [] for n in declared}
        for parent, child in edges:
            if (parent, child) in seen:
                raise ValueError(f"duplicate edge ({parent!r}, {child!r})")
            seen.add((parent, child))
            parents.setdefault(parent, [])
            parents.setdefault(child, []).append(parent)
        return cls(parents, implicit_root=implicit_root)

    @classmethod
    def from_nested(
        cls, tree: Mapping[Hashable, Any], *, implicit_root: Hashable | None = None
    ) -> Taxonomy:
        """Build a tree from a nested mapping ``{node: {child: {...}, ...}}``.

        Leaves may be given as ``{}``, ``None`` or as the items of a list. A name that appears
        twice is a ``duplicate node`` error (a nested mapping can only describe a tree; build
        a DAG with :meth:`from_edges`).

        Examples
        --------
        >>> tax = Taxonomy.from_nested({"all": {"people": ["single", "crowd"], "scenery": None}})
        >>> tax.children("people")
        ('single', 'crowd')
        """
        if not isinstance(tree, Mapping) or not tree:
            raise ValueError(f"tree must be a non-empty mapping; got {tree!r}")
        parents: dict[Hashable, list[Hashable]] = {}
        # depth first, children in order, with a stack rather than recursion (any depth)
        stack: list[tuple[Any, Hashable | None, Any]] = [
            (top, None, sub) for top, sub in reversed(list(tree.items()))
        ]
        while stack:
            node, parent, sub = stack.pop()
            if not isinstance(node, Hashable) or isinstance(node, Mapping | list | tuple | set):
                where = f"under {parent!r}" if parent is not None else "at the top level"
                raise ValueError(
                    f"a node name {where} is {type(node).__name__} {node!r}; names are strings "
                    "or other scalars (a list holds leaf names: give a subtree as a mapping)"
                )
            if node in parents:
                raise ValueError(
                    f"duplicate node {node!r} in nested taxonomy (a nested mapping is a tree; "
                    "use Taxonomy.from_edges for a node with several parents)"
                )
            parents[node] = [] if parent is None else [parent]
            if sub is None:
                continue
            if isinstance(sub, Mapping):
                stack.extend((c, node, g) for c, g in reversed(list(sub.items())))
            elif isinstance(sub, list | tuple):
                stack.extend((c, node, None) for c in reversed(sub))
            else:
                raise ValueError(
                    f"children of {node!r} must be a mapping, a list or None; got {sub!r}"
                )
        return cls(parents, implicit_root=implicit_root)

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        child: str = "child",
        parent: str = "parent",
        implicit_root: Hashable | None = None,
    ) -> Taxonomy:
        """Build from a DataFrame with one row per (child, parent) edge (an edge list).

        A row whose parent is missing (NaN/None/empty) declares a root. A child with several
        rows and different parents makes a DAG. A parent that never appears as a child is an
        error that says how to declare it: with its own row and an empty parent if it is the
        root (the CSV line ``all,``), or with ``implicit_root``, which adds a root above every
        parentless node. A child declared twice as a root is a ``duplicate node``; one
        declared both without a parent and with one is an error too. When the frame comes from
        a file (:func:`~fuzzytruth.io.read_taxonomy`), errors name file lines.

        Examples
        --------
        >>> df = pd.DataFrame({"child": ["all", "people", "crowd"],
        ...                    "parent": [None, "all", "people"]})
        >>> Taxonomy.from_frame(df).ancestors("crowd")
        ('people', 'all')
        >>> Taxonomy.from_frame(df.iloc[1:])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: row 0: parent 'all' of 'people' has no row of its own; if it is the root...
        """
        check_columns(frame, "frame", {"child": child, "parent": parent}, rows=False)
        if len(frame) == 0:
            raise ValueError("taxonomy is empty: the frame has no rows")
        lines = frame.attrs.get("lines")

        def where(row: int) -> str:
            return f"row {row}" if lines is None else f"line {int(lines[row])}"

        def root_with_parent(c: Hashable, root_row: int, p: Hashable, edge_row: int) -> str:
            return (
                f"{where(max(root_row, edge_row))}: node {c!r} is declared without a parent "
                f"({where(root_row)}) and with parent {p!r} ({where(edge_row)}); only the root "
                "has a row with an empty parent"
            )

        parents: dict[Hashable, list[Hashable]] = {}
        first_use: dict[Hashable, tuple[int, Hashable]] = {}
        first_edge: dict[Hashable, int] = {}  # row of each child's first parent
        roots_declared: dict[Hashable, int] = {}  # row of each parentless declaration
        for row, (c, p) in enumerate(zip(frame[child], frame[parent], strict=True)):
            if pd.isna(c) or c == "":
                raise ValueError(f"{where(row)}: missing value in column {child!r}")
            entry = parents.setdefault(c, [])
            if pd.isna(p) or p == "":
                if c in roots_declared:
                    raise ValueError(
                        f"{where(row)}: duplicate node {c!r}: declared without a parent twice"
                    )
                if entry:
                    raise ValueError(root_with_parent(c, row, entry[0], first_edge[c]))
                roots_declared[c] = row
                continue
            if p in entry:
                raise ValueError(f"{where(row)}: duplicate edge ({p!r}, {c!r})")
            if c in roots_declared:
                raise ValueError(root_with_parent(c, roots_declared[c], p, row))
            entry.append(p)
            first_edge.setdefault(c, row)
            first_use.setdefault(p, (row, c))
        undeclared = [p for p in first_use if p not in parents]
        if undeclared and implicit_root is None:
            row, c = first_use[undeclared[0]]
            hint = closest_names(undeclared[0], parents)
            raise ValueError(
                f"{where(row)}: parent {undeclared[0]!r} of {c!r} has no row of its own"
                + (f" (a typo? closest known names: {_show(hint)})" if hint else "")
                + f"; if it is the root, declare it with a row whose parent is empty (the CSV "
                f"line '{undeclared[0]},'), or pass implicit_root to add a root above every "
                "parentless node"
                + (f" (undeclared parents: {_show(undeclared)})" if len(undeclared) > 1 else "")
            )
        for p in undeclared:
            parents[p] = []
        return cls(parents, implicit_root=implicit_root)

    @classmethod
    def from_parents(
        cls,
        parents: Mapping[Hashable, Hashable | Sequence[Hashable] | None],
        *,
        implicit_root: Hashable | None = None,
    ) -> Taxonomy:
        """Build from a ``{child: parent}`` mapping.

        A parent may be one name, a list of names (a DAG) or None (a root). A parent that is
        not a key is a root too, so ``{"cat": "animal", "dog": "animal"}`` is a complete
        taxonomy. Several roots are an error unless ``implicit_root`` names a root to add.

        Examples
        --------
        >>> tax = Taxonomy.from_parents({"cat": "animal", "dog": "animal", "animal": None})
        >>> tax.root, tax.children("animal")
        ('animal', ('cat', 'dog'))
        >>> Taxonomy.from_parents({"cat": "animal", "car": "vehicle"},
        ...                       implicit_root="thing").children("thing")
        ('animal', 'vehicle')
        """
        if not isinstance(parents, Mapping) or not parents:
            raise ValueError(
                f"parents must be a non-empty mapping {{child: parent}}; got {parents!r}"
            )
        table: dict[Hashable, list[Hashable]] = {}
        for node, ps in parents.items():
            if ps is None:
                listed: list[Hashable] = []
            elif isinstance(ps, (list, tuple)):
                listed = list(ps)
            else:
                listed = [ps]
            table.setdefault(node, []).extend(listed)
            for p in listed:
                table.setdefault(p, [])
        return cls(table, implicit_root=implicit_root)

    @classmethod
    def flat(cls, labels: Iterable[Hashable], *, root: Hashable = "(any)") -> Taxonomy:
        """A flat label set: every label a child of one root, ``root``, that stands for
        "any label" (nobody needs to use it; the agreement coefficients of a flat label set
        are then the usual nominal ones).

        Examples
        --------
        >>> tax = Taxonomy.flat(["no", "maybe", "yes"])
        >>> tax.leaves, tax.root
        (('no', 'maybe', 'yes'), '(any)')

        A set, which has no order of its own (its iteration order changes with the process),
        is taken in the order of the labels' text:

        >>> Taxonomy.flat({"no", "maybe", "yes"}).leaves
        ('maybe', 'no', 'yes')
        """
        labels = in_text_order(_names(labels, "labels"))
        labels = list(pd.unique(pd.Series(list(labels), dtype=object)))
        if not labels:
            raise ValueError("labels must name at least one label; got none")
        if root in labels:
            raise ValueError(f"root {root!r} is also one of the labels; pass another root name")
        return cls({root: [], **{label: [root] for label in labels}})

    # ------------------------------------------------------------------ queries
    @property
    def root(self) -> Hashable:
        """The single root node."""
        return self._root

    @property
    def nodes(self) -> tuple[Hashable, ...]:
        """All nodes in topological order (root first); the column order of matrices."""
        return self._nodes

    @property
    def leaves(self) -> tuple[Hashable, ...]:
        """Nodes without children, in topological order."""
        return tuple(n for n in self._nodes if not self._children[n])

    @property
    def is_tree(self) -> bool:
        """True when every node but the root has exactly one parent."""
        return all(len(ps) <= 1 for ps in self._parents.values())

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._nodes)

    def __contains__(self, node: object) -> bool:
        return node in self._index

    def __repr__(self) -> str:
        kind = "tree" if self.is_tree else "DAG"
        return f"Taxonomy({kind}, {len(self)} nodes, root={self._root!r})"

    def index(self, node: Hashable) -> int:
        """Column index of ``node`` in matrices over categories."""
        try:
            return self._index[node]
        except (KeyError, TypeError):  # TypeError: an unhashable value names no node
            raise self._unknown("node", node) from None

    def indices(self, nodes: Iterable[Hashable]) -> np.ndarray:
        """Column indices of several nodes (error naming the first unknown one)."""
        return np.array([self.index(n) for n in id_list(nodes, "nodes", "node")], dtype=np.intp)

    def parents(self, node: Hashable) -> tuple[Hashable, ...]:
        """Direct parents of ``node`` (empty for the root)."""
        self.index(node)
        return self._parents[node]

    def children(self, node: Hashable) -> tuple[Hashable, ...]:
        """Direct children of ``node``."""
        self.index(node)
        return self._children[node]

    def ancestors(self, node: Hashable, *, include_self: bool = False) -> tuple[Hashable, ...]:
        """All ancestors of ``node``, nearest first (breadth-first), each once."""
        include_self = check_flag("include_self", include_self)
        self.index(node)
        out = [node] if include_self else []
        queue = deque(self._parents[node])
        seen = set()
        while queue:
            n = queue.popleft()
            if n in seen:
                continue
            seen.add(n)
            out.append(n)
            queue.extend(self._parents[n])
        return tuple(out)

    def descendants(self, node: Hashable, *, include_self: bool = False) -> tuple[Hashable, ...]:
        """All descendants of ``node`` in topological order, each once."""
        include_self = check_flag("include_self", include_self)
        i = self.index(node)
        rows = np.flatnonzero(self.is_under(np.arange(len(self)), i))
        return tuple(self._nodes[r] for r in rows if include_self or r != i)

    def depth(self, node: Hashable) -> int:
        """Number of edges on the shortest path from the root (the root has depth 0)."""
        return int(self._depth[self.index(node)])

    @property
    def depths(self) -> np.ndarray:
        """Depth of every node, in :attr:`nodes` order."""
        out = self._depth.copy()
        out.flags.writeable = False
        return out

    @property
    def ancestor_matrix(self) -> np.ndarray:
        """Boolean ``(n_nodes, n_nodes)``: ``[i, j]`` is True when node j is node i or one of
        its ancestors. Read-only.

        Built from :attr:`ancestor_closure` on first use and kept: ``n_nodes²`` bytes (97 MB
        for 9,841 nodes). The library never reads it; for work over many nodes use the sparse
        :attr:`ancestor_closure`, :meth:`close_over_ancestors` or :meth:`is_under`, whose cost
        grows with the number of (node, ancestor) pairs instead.
        """
        if not hasattr(self, "_ancestor_matrix"):
            ptr, columns = self._closure()
            matrix = np.zeros((len(self), len(self)), dtype=bool)
            matrix[np.repeat(np.arange(len(self)), np.diff(ptr)), columns] = True
            matrix.flags.writeable = False
            self._ancestor_matrix = matrix
        return self._ancestor_matrix

    @property
    def ancestor_closure(self) -> Any:
        """The ancestor closure as a sparse ``(n_nodes, n_nodes)`` boolean CSR array
        (:class:`scipy.sparse.csr_array`): row i stores one True per node that is node i or
        one of its ancestors (each once, however many DAG paths lead there), columns
        ascending; ``ancestor_closure.toarray()`` is :attr:`ancestor_matrix`. A new array on
        each call, built from the closure the taxonomy keeps.

        Examples
        --------
        >>> tax = Taxonomy.from_edges([("all", "a"), ("all", "b"), ("a", "ab"), ("b", "ab")])
        >>> tax.ancestor_closure.nnz  # all: 1, a: 2, b: 2, ab: 4 (itself, a, b, all)
        9
        """
        from scipy.sparse import csr_array

        ptr, columns = self._closure()
        return csr_array((np.ones(len(columns), dtype=bool), columns.copy(), ptr.copy()),
                         shape=(len(self), len(self)))

    def is_under(self, labels: Any, nodes: Any) -> np.ndarray:
        """Whether each label is the node or lies below it: ``labels`` and ``nodes`` are
        column indices (:meth:`index`), broadcast together; True where ``nodes[k]`` is
        ``labels[k]`` or one of its ancestors (``ancestor_matrix[labels, nodes]``, without
        that matrix). An index outside ``range(n_nodes)``, such as a padding node
        ``n_nodes``, is under no node and has no node under it.

        One lookup per pair in the ancestor slots (:meth:`ancestor_slots`), whose size grows
        with ``n_nodes`` times the depth, never with ``n_nodes²``.

        Examples
        --------
        >>> tax = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": None}})
        >>> tax.nodes
        ('all', 'a', 'b', 'a1', 'a2')
        >>> tax.is_under([3, 3, 3, 2], [1, 0, 2, 2]).tolist()  # a1 under a, all; not b
        [True, True, False, True]
        """
        n = len(self)
        labels, nodes = np.broadcast_arrays(np.asarray(labels), np.asarray(nodes))
        valid = (labels >= 0) & (labels < n) & (nodes >= 0) & (nodes < n)
        labels, nodes = np.where(valid, labels, 0), np.where(valid, nodes, 0)
        slot, table = self.ancestor_slots()
        return valid & (table[labels, slot[nodes]] == nodes)

    def ancestor_slots(self) -> tuple[np.ndarray, np.ndarray]:
        """The ancestor closure as a lookup table: ``(slot, table)``, read-only.

        ``slot`` (``(n_nodes,)`` int) gives every node a slot such that the ancestors of any
        node, itself included, are in distinct slots: in a tree its depth; in a DAG a slot
        found greedily, nodes in topological order, each taking the lowest slot no node
        sharing a descendant with it holds. ``table`` (``(n_nodes, n_slots)`` int32) holds
        ``table[i, slot[a]] == a`` for every ancestor-or-self ``a`` of node ``i`` and -1
        elsewhere, so that node ``a`` is ``i`` or one of its ancestors exactly when
        ``table[i, slot[a]] == a``: one lookup (:meth:`is_under`, the world samplers'
        relevance pass), in ``4 × n_nodes × n_slots`` bytes (a tree has ``max depth + 1``
        slots: 354 KB for 9,841 nodes 8 levels deep).

        Examples
        --------
        >>> tax = Taxonomy.from_edges([("all", "a"), ("all", "b"), ("a", "ab"), ("b", "ab")])
        >>> slot, table = tax.ancestor_slots()
        >>> slot.tolist(), table.tolist()  # a and b share the descendant ab: two slots
        ([0, 1, 2, 3], [[0, -1, -1, -1], [0, 1, -1, -1], [0, -1, 2, -1], [0, 1, 2, 3]])
        """
        if not hasattr(self, "_slots"):
            n = len(self)
            ptr, columns = self._closure()
            rows = np.repeat(np.arange(n), np.diff(ptr))
            if self.is_tree:  # a node's ancestors lie at the distinct depths above it
                slot = self._depth.copy()
            else:
                slot = self._dag_slots(ptr, columns, rows)
            self._check_closure_fits("its table of ancestor slots",
                                     4.0 * n * (int(slot.max()) + 1))
            table = np.full((n, int(slot.max()) + 1), -1, dtype=np.int32)
            table[rows, slot[columns]] = columns
            slot.flags.writeable = table.flags.writeable = False
            self._slots = (slot, table)
        return self._slots

    def close_over_ancestors(
        self, shares: Any, *, dense: bool | None = None, memory_budget: float = MEMORY_BUDGET
    ) -> Any:
        """Close the rows of an ``(n_rows, n_nodes)`` matrix over ancestors: ``out[r, w]`` is
        the sum of ``shares[r, l]`` over the labels ``l`` that are ``w`` or lie below ``w``,
        each label counted once however many DAG paths lead from it to ``w`` (Santini eq. 6–8:
        the direct shares of an item's labels, or its label counts, become p(ω|item), or the
        number of its labels at or below ω).

        Parameters
        ----------
        shares : numpy.ndarray or scipy sparse array/matrix
            ``(n_rows, n_nodes)``, columns in :attr:`nodes` order, read as float64. Give the
            sparse form when most shares are 0 (labels given as codes): its cost grows with
            the stored shares, a dense one's with every row.
        dense : bool, optional
            The form of the result: a numpy array (True) or a sparse CSR array (False);
            default the form of ``shares``.
        memory_budget : float
            Bytes the temporaries of one block of rows may take (default
            :data:`~fuzzytruth._resampling.MEMORY_BUDGET`): 96 per term, a nonzero share
            times one node its label is at or below (a dense block is sized for every share
            nonzero).

        Returns
        -------
        numpy.ndarray or scipy.sparse.csr_array
            float64 ``(n_rows, n_nodes)``; in sparse form a CSR array with sorted columns
            that stores the nonzero closed values only.

        Notes
        -----
        The one rule for closing over ancestors (:class:`~fuzzytruth.Membership`, category
        reliability, the annotator worlds and annotator resampling read it), never through an
        ``(n_nodes, n_nodes)`` dense matrix (775 MB of floats for 9,841 nodes): each nonzero
        share is expanded over the nodes its label is at or below (the sparse closure,
        :attr:`ancestor_closure`), the terms grouped by (row, node), so the cost grows with
        the nonzero shares times their labels' numbers of ancestors.

        Each closed value is **correctly rounded**: the float nearest the exact sum of its
        terms, as :func:`math.fsum` gives it. The terms are added by an error-free two-sum
        whose errors are summed apart (vectorised over all cells); the rare cell where that
        compensated sum cannot vouch for its last bit (an exact tie, say) is summed by
        :func:`math.fsum`. So no order (of the terms, the nodes, the edges, the rows, dense or
        sparse form) changes a bit; a sum of whole numbers (below 2**53) is exact, as with any
        order; and a ratio of two closed sums is the correctly rounded ratio of exact sums
        whenever those are floats (an item's votes 5 of 10 split ones give a share of 0.5
        exactly).

        Examples
        --------
        >>> tax = Taxonomy.from_edges([("all", "a"), ("all", "b"), ("a", "ab"), ("b", "ab")])
        >>> tax.nodes
        ('all', 'a', 'b', 'ab')
        >>> tax.close_over_ancestors(np.array([[0.0, 0.25, 0.25, 0.5]])).tolist()
        [[1.0, 0.75, 0.75, 0.5]]
        >>> shares = np.array([[0.0, 0.7, 0.2, 0.1]])  # 0.7 + 0.2 + 0.1: 0.9999999999999999
        >>> float(tax.close_over_ancestors(shares)[0, 0])
        1.0
        """
        from scipy import sparse

        n = len(self)
        given_sparse = sparse.issparse(shares)
        dense = not given_sparse if dense is None else check_flag("dense", dense)
        budget = check_memory_budget(memory_budget)
        ptr, columns = self._closure()
        reach = np.diff(ptr)  # the nodes each label is under, itself included
        if given_sparse:
            if len(shares.shape) != 2 or shares.shape[1] != n:
                raise ValueError(f"shares must have shape (n_rows, n_nodes={n}); got "
                                 f"{shares.shape}")
            table = sparse.csr_array(shares, dtype=np.float64)
            n_rows = table.shape[0]
            # the terms each row expands to, and blocks of rows within the budget
            entry_row = np.repeat(np.arange(n_rows), np.diff(table.indptr))
            terms = np.concatenate([[0], np.cumsum(np.bincount(
                entry_row, weights=reach[table.indices], minlength=n_rows))]).astype(np.int64)
        else:
            values = np.asarray(shares)
            if values.ndim != 2 or values.shape[1] != n:
                raise ValueError(f"shares must have shape (n_rows, n_nodes={n}); got "
                                 f"{values.shape}")
            n_rows = len(values)
        out = np.zeros((n_rows, n)) if dense else None
        pieces: list[Any] = []
        per_term = _BYTES_PER_TERM
        if given_sparse:
            cap = max(1, int(budget // per_term))
            bounds = [0]
            while bounds[-1] < n_rows:  # at least one row per block
                stop = int(np.searchsorted(terms, terms[bounds[-1]] + cap, side="right")) - 1
                bounds.append(max(stop, bounds[-1] + 1))
        else:
            step = block_rows(n, budget, bytes_per_unit=per_term * len(columns) / max(n, 1))
            bounds = [*range(0, n_rows, step), n_rows]
        for first, stop in itertools.pairwise(bounds):
            if given_sparse:
                block = table if stop - first == n_rows else table[first:stop]
                row = np.repeat(np.arange(stop - first), np.diff(block.indptr))
                label, value = block.indices.astype(np.int64), block.data
            else:
                block = values[first:stop]
                row, label = np.nonzero(block)
                value = np.asarray(block[row, label], dtype=np.float64)
            cell, total = _closed_sums(row, label, value, ptr, columns, n)
            if dense:  # cell: row * n + node within the block, the flat index into its rows
                out.reshape(-1)[first * n + cell] = total
            else:
                r, w = np.divmod(cell, n)
                keep = total != 0
                pieces.append((first + r[keep], w[keep], total[keep]))
        if dense:
            return out
        if pieces:
            r, w, total = (np.concatenate(p) for p in zip(*pieces, strict=True))
        else:
            r, w, total = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        closed = sparse.csr_array((total, (r, w)), shape=(n_rows, n))
        closed.sort_indices()
        return closed

    def distance(self, a: Hashable, b: Hashable) -> int:
        """Number of edges on the shortest path between two nodes, edges taken either way:
        ``distance_matrix([a, b])[0, 1]`` (:meth:`distance_matrix`).

        In a tree this is ``depth(a) + depth(b) - 2 * depth(lowest common ancestor)``; in a
        DAG the shortest path may run through a common descendant instead. The distances from
        ``a`` to every node are found by one search and kept (the most recent rows that fit in
        :data:`~fuzzytruth._resampling.MEMORY_BUDGET`; none once the full
        :meth:`distance_matrix` is kept), so a metric ``tax.distance`` called on every pair of
        a few hundred labels searches once per label, not once per pair.

        Examples
        --------
        >>> tax = Taxonomy.from_edges([("all", "x"), ("all", "y"), ("x", "a"), ("y", "b"),
        ...                            ("a", "ab"), ("b", "ab")])
        >>> tax.distance("a", "b"), tax.distance("x", "b")  # a - ab - b; x - all - y - b
        (2, 3)
        """
        i, j = self.index(a), self.index(b)
        if hasattr(self, "_distances"):
            return int(self._distances[i, j])
        rows = self.__dict__.setdefault("_distance_rows", {})
        # each row read once into a local: another thread may evict it between two reads
        row = rows.get(i)
        if row is not None:
            return int(row[j])
        row = rows.get(j)  # the path is undirected: either end's row holds it
        if row is not None:
            return int(row[i])
        if len(rows) >= max(1, int(MEMORY_BUDGET // (8 * len(self)))):
            with contextlib.suppress(StopIteration, KeyError, RuntimeError):  # the oldest
                rows.pop(next(iter(rows)))  # (another thread may take it, or change the dict)
        row = self._shortest_paths(np.array([i]), MEMORY_BUDGET, every_node=True)[0]
        rows[i] = row
        return int(row[j])

    def distance_matrix(
        self, nodes: Iterable[Hashable] | None = None, *, memory_budget: float = MEMORY_BUDGET
    ) -> np.ndarray:
        """Shortest undirected path lengths (numbers of edges, taken either way) between
        ``nodes``, ``(len(nodes), len(nodes))`` int.

        Parameters
        ----------
        nodes : iterable of node names, optional
            The rows and columns, in the order given; a node may be listed twice. Default:
            every node, in :attr:`nodes` order. That full matrix is kept, read-only, and later
            calls read their rows from it; a matrix over given nodes is a new array, and is
            computed without the full one.
        memory_budget : float
            Bytes the temporaries of one block of source nodes may take (default
            :data:`~fuzzytruth._resampling.MEMORY_BUDGET`): a block holds the distances from
            its sources to every node, 16 bytes per (source, node).

        Notes
        -----
        The one rule for distances between nodes (:meth:`distance` and the ``"path"`` metrics
        of :mod:`fuzzytruth.collection` read it): a shortest-path search over the unit edges
        (:func:`scipy.sparse.csgraph.shortest_path`, Dijkstra) from each distinct node of
        ``nodes`` only, in blocks sized from ``memory_budget``, which serves DAGs as well as
        trees. Its cost grows with ``len(nodes) × n_nodes``: the few hundred labels of an
        analysis on a taxonomy of 10,000 nodes never build the ``n_nodes × n_nodes`` matrix
        (775 MB there).

        Examples
        --------
        >>> tax = Taxonomy.from_nested({"all": {"people": ["single", "crowd"], "scenery": None}})
        >>> tax.distance_matrix(["crowd", "scenery", "crowd"]).tolist()
        [[0, 3, 0], [3, 0, 3], [0, 3, 0]]
        >>> tax.distance_matrix().shape
        (5, 5)
        """
        check_memory_budget(memory_budget)
        if nodes is None:
            if not hasattr(self, "_distances"):
                dist = self._shortest_paths(np.arange(len(self)), memory_budget)
                dist.flags.writeable = False
                self._distances = dist
            return self._distances
        columns = self.indices(_names(nodes, "nodes", "node names"))
        if hasattr(self, "_distances"):
            return self._distances[np.ix_(columns, columns)]
        return self._shortest_paths(columns, memory_budget)

    def ancestor_at_depth(self, node: Hashable, depth: int) -> Hashable:
        """The ancestor (or the node itself) at ``depth``; the node itself if it is shallower.

        In a DAG the first ancestor found breadth-first at that depth is returned, each node's
        parents taken in name order (:meth:`ancestors_at_depths`).
        """
        depth = check_int("depth", depth)
        i = self.index(node)
        if self._depth[i] <= depth:
            return node
        return self._nodes[self.ancestors_at_depths()[depth, i]]

    def ancestors_at_depths(self) -> np.ndarray:
        """``(max_depth + 1, n_nodes)`` int, read-only: row ``d`` holds the index of each
        node's ancestor at depth ``d`` (the node itself when it is not deeper); mapping the
        label columns of a count table through row ``d`` collapses the labels to that depth.

        In a DAG a node may have several ancestors at depth ``d``: the first met
        breadth-first is used, each node's parents taken in name order
        (:func:`~fuzzytruth._order.name_order`), so the order in which the edges were given
        changes nothing. Each node's ancestors are walked once for all depths.

        Examples
        --------
        >>> tax = Taxonomy.from_edges([("all", "b"), ("all", "a"), ("b", "ab"), ("a", "ab")])
        >>> tax.nodes, tax.ancestors_at_depths().tolist()  # "ab" is under "a" at depth 1
        (('all', 'b', 'a', 'ab'), [[0, 0, 0, 0], [0, 1, 2, 2], [0, 1, 2, 3]])
        """
        if not hasattr(self, "_at_depths"):
            rank = ranks(name_order(self._nodes))
            parents = [sorted((self._index[p] for p in self._parents[n]), key=rank.__getitem__)
                       for n in self._nodes]
            depths = self._depth
            out = np.tile(np.arange(len(self)), (int(depths.max()) + 1, 1))
            for column in range(len(self)):
                missing = set(range(int(depths[column])))  # the depths above the node
                seen: set[int] = set()
                queue = deque(parents[column])
                while queue and missing:
                    ancestor = queue.popleft()
                    if ancestor in seen:
                        continue
                    seen.add(ancestor)
                    if depths[ancestor] in missing:  # the first met at its depth
                        out[depths[ancestor], column] = ancestor
                        missing.discard(depths[ancestor])
                    queue.extend(parents[ancestor])
            out.flags.writeable = False
            self._at_depths = out
        return self._at_depths

    # ------------------------------------------------------------------ export
    def to_edges(self) -> list[tuple[Hashable, Hashable]]:
        """``(parent, child)`` pairs in topological order of the child."""
        return [(p, c) for c in self._nodes for p in self._parents[c]]

    def to_frame(self) -> pd.DataFrame:
        """Edge table with columns ``child`` and ``parent`` (root row has parent ``None``);
        round-trips through :meth:`from_frame`."""
        rows = [(c, p) for c in self._nodes for p in (self._parents[c] or (None,))]
        return pd.DataFrame(rows, columns=["child", "parent"])

    def to_nested(self) -> dict[Hashable, Any]:
        """Nested mapping (trees only); round-trips through :meth:`from_nested`."""
        if not self.is_tree:
            raise ValueError("to_nested needs a tree; this taxonomy is a DAG (use to_edges)")

        def build(n: Hashable) -> dict[Hashable, Any]:
            return {c: build(c) for c in self._children[n]}

        return {self._root: build(self._root)}

    # ------------------------------------------------------------------ internals
    def _unknown(self, what: str, name: Any) -> ValueError:
        hint = closest_names(name, self._nodes)
        return ValueError(
            f"unknown {what} {name!r}: not in the taxonomy"
            + (f" (closest known names: {_show(hint)})" if hint else "")
            + type_mismatch([name], self._nodes)
        )

    def _shortest_paths(
        self, columns: np.ndarray, memory_budget: float, *, every_node: bool = False
    ) -> np.ndarray:
        """Path lengths between the nodes at ``columns`` (see :meth:`distance_matrix`), or
        from them to every node (``every_node``): one search from each distinct column,
        blocks of sources sized from ``memory_budget``."""
        from scipy.sparse import csr_array
        from scipy.sparse.csgraph import shortest_path

        sources, inverse = np.unique(columns, return_inverse=True)
        if len(sources) == len(columns):  # no node twice: rows in the order asked for
            sources, inverse = columns, None
        if not hasattr(self, "_edges"):  # child -> parent, searched both ways
            child = [self._index[c] for c in self._nodes for _ in self._parents[c]]
            parent = [self._index[p] for c in self._nodes for p in self._parents[c]]
            self._edges = csr_array((np.ones(len(child)), (child, parent)),
                                    shape=(len(self),) * 2)
        targets = np.arange(len(self)) if every_node else sources
        out = np.empty((len(sources), len(targets)), dtype=np.int64)
        step = block_rows(len(self), memory_budget, bytes_per_unit=16)
        for start in range(0, len(sources), step):
            block = shortest_path(self._edges, method="D", directed=False, unweighted=True,
                                  indices=sources[start : start + step])
            out[start : start + step] = block[:, targets]  # whole numbers of edges
        if inverse is None:
            return out
        return out[inverse] if every_node else out[np.ix_(inverse, inverse)]

    def _closure(self) -> tuple[np.ndarray, np.ndarray]:
        """``(ptr, columns)``: node i's ancestors, itself included, each once, are
        ``columns[ptr[i]:ptr[i + 1]]``, ascending; built once, in topological order (a node's
        parents' rows are complete before its own)."""
        if not hasattr(self, "_closure_rows"):
            rows: list[np.ndarray] = []
            pairs = 0
            for i, node in enumerate(self._nodes):
                parents = [rows[self._index[p]] for p in self._parents[node]]
                if not parents:
                    rows.append(np.array([i], dtype=np.int64))
                elif len(parents) == 1:  # every ancestor precedes the node: still ascending
                    rows.append(np.append(parents[0], i))
                else:
                    rows.append(np.union1d(np.concatenate(parents), [i]))
                pairs += len(rows[-1])
                if i % 1024 == 0 or i == len(self._nodes) - 1:  # 16 bytes: rows, then joined
                    self._check_closure_fits("its ancestor closure", 16.0 * pairs)
            ptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
            columns = np.concatenate(rows)
            ptr.flags.writeable = columns.flags.writeable = False
            self._closure_rows = (ptr, columns)
        return self._closure_rows

    def _check_closure_fits(self, what: str, need: float) -> None:
        """A ValueError when ``need`` bytes for ``what`` exceed this machine's memory: a
        taxonomy thousands of levels deep holds about n²/2 (node, ancestor) pairs (a chain of
        10,000 nodes: 0.76 GB for the closure, 1.1 GB more for its slots; one of 40,000 was
        killed for memory)."""
        limit = physical_memory()
        if limit is not None and need > limit:
            raise ValueError(
                f"a taxonomy of {len(self)} nodes and depth {int(self._depth.max())}: "
                f"{what} needs more than {_bytes(need)}, beyond the {_bytes(limit)} of "
                "memory here (its size grows with the number of nodes times their depth)"
            )

    def _dag_slots(self, ptr: np.ndarray, columns: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Slots of a DAG's nodes (:meth:`ancestor_slots`): node ``t``, in topological order,
        takes the lowest slot that none of the ancestors of its descendants holds."""
        n = len(self)
        order = np.argsort(columns, kind="stable")  # column t: the nodes t is above
        below_ptr = np.concatenate([[0], np.cumsum(np.bincount(columns, minlength=n))])
        below = rows[order]
        slot = np.full(n, -1, dtype=np.int64)
        for t in range(n):
            under = below[below_ptr[t] : below_ptr[t + 1]]  # its descendants, itself included
            count = ptr[under + 1] - ptr[under]
            held = slot[columns[ranges(ptr[under], count)]]  # their ancestors' slots
            free = np.bincount(held[held >= 0], minlength=len(held) + 1) == 0
            slot[t] = int(np.argmax(free))
        return slot

    def _depths(self) -> np.ndarray:
        depth = np.zeros(len(self._nodes), dtype=np.int64)
        for node in self._nodes[1:]:
            depth[self._index[node]] = 1 + min(depth[self._index[p]] for p in self._parents[node])
        return depth


def _names(values: Iterable[Any], name: str, what: str = "names") -> Iterable[Any]:
    """``values``, or a ValueError naming ``name`` when it is one str (or bytes), whose
    characters would otherwise be read as so many names: ``flat("yes")`` as y, e, s."""
    if isinstance(values, str | bytes):
        raise ValueError(f"{name} must be an iterable of {what}, not a single str; got {values!r}")
    if not isinstance(values, Iterable):
        raise ValueError(f"{name} must be an iterable of {what}; got {type(values).__name__}")
    return values


def _is_missing(name: object) -> bool:
    """Whether ``name`` is a missing value, as for every id (Run, Qrels, Annotations): None,
    NaN (which does not equal itself), pd.NA; a tuple is a name, not an array to test."""
    return bool(pd.api.types.is_scalar(name) and pd.isna(name))


def _topological_order(parents: Mapping[Hashable, Sequence[Hashable]]) -> list[Hashable]:
    """Kahn's algorithm; nodes left over lie on or below a cycle, which is reported in order."""
    indegree = {n: len(ps) for n, ps in parents.items()}
    children: dict[Hashable, list[Hashable]] = {n: [] for n in parents}
    for n, ps in parents.items():
        for p in ps:
            children[p].append(n)
    queue = deque(n for n in parents if indegree[n] == 0)
    order: list[Hashable] = []
    while queue:
        n = queue.popleft()
        order.append(n)
        for c in children[n]:
            indegree[c] -= 1
            if indegree[c] == 0:
                queue.append(c)
    if len(order) != len(parents):
        raise ValueError(_cycle_message(parents, set(order)))
    return order


def _cycle_message(parents: Mapping[Hashable, Sequence[Hashable]], ordered: set[Hashable]) -> str:
    """Walk parent links among the unordered nodes until one repeats: that loop is a cycle."""
    start = next(n for n in parents if n not in ordered)
    path: list[Hashable] = []
    position: dict[Hashable, int] = {}
    node = start
    while node not in position:
        position[node] = len(path)
        path.append(node)
        node = next(p for p in parents[node] if p not in ordered)
    cycle = [*path[position[node] :], node]
    # parent links walk upward; print the cycle in parent -> child order
    return "cycle in taxonomy: " + " -> ".join(repr(n) for n in reversed(cycle))
