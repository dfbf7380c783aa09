"""Category taxonomies: trees and DAGs of category names, validated on construction.

A :class:`Taxonomy` is immutable. Its nodes are kept in a topological order (every parent
before its children, the root first), which is also the column order of every matrix the
library builds over categories (membership, ancestor closure).
"""

from __future__ import annotations

import difflib
from collections import deque
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._order import name_order, ranks
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows
from fuzzytruth._validation import check_columns, check_flag, check_int, check_memory_budget

__all__ = ["Taxonomy"]


def _show(names: Iterable[Any], limit: int = 5) -> str:
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f", … ({len(names)} in all)" if len(names) > limit else "")


def closest_names(name: Any, known: Iterable[Any], n: int = 3) -> list[str]:
    """Names in ``known`` that look like ``name`` (difflib ratio >= 0.6), best first."""
    return difflib.get_close_matches(str(name), [str(k) for k in known], n=n)


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
        self._ancestor_matrix = self._closure()
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
        listed = list(_names(edges, "edges", "(parent, child) pairs"))
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
        """
        labels = list(pd.unique(pd.Series(list(_names(labels, "labels")), dtype=object)))
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
        return np.array([self.index(n) for n in nodes], dtype=np.intp)

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
        rows = np.flatnonzero(self._ancestor_matrix[:, i])
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
        its ancestors. Read-only."""
        return self._ancestor_matrix

    def distance(self, a: Hashable, b: Hashable) -> int:
        """Number of edges on the shortest path between two nodes, edges taken either way:
        ``distance_matrix([a, b])[0, 1]`` (:meth:`distance_matrix`).

        In a tree this is ``depth(a) + depth(b) - 2 * depth(lowest common ancestor)``; in a
        DAG the shortest path may run through a common descendant instead. Each call searches
        the taxonomy afresh (unless the full :meth:`distance_matrix` is kept): for many pairs,
        ask :meth:`distance_matrix` once for the nodes they use.

        Examples
        --------
        >>> tax = Taxonomy.from_edges([("all", "x"), ("all", "y"), ("x", "a"), ("y", "b"),
        ...                            ("a", "ab"), ("b", "ab")])
        >>> tax.distance("a", "b"), tax.distance("x", "b")  # a - ab - b; x - all - y - b
        (2, 3)
        """
        return int(self.distance_matrix([a, b])[0, 1])

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
        )

    def _shortest_paths(self, columns: np.ndarray, memory_budget: float) -> np.ndarray:
        """Path lengths between the nodes at ``columns`` (see :meth:`distance_matrix`): one
        search from each distinct column, blocks of sources sized from ``memory_budget``."""
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
        out = np.empty((len(sources),) * 2, dtype=np.int64)
        step = block_rows(len(self), memory_budget, bytes_per_unit=16)
        for start in range(0, len(sources), step):
            block = shortest_path(self._edges, method="D", directed=False, unweighted=True,
                                  indices=sources[start : start + step])
            out[start : start + step] = block[:, sources]  # whole numbers of edges
        return out if inverse is None else out[np.ix_(inverse, inverse)]

    def _closure(self) -> np.ndarray:
        n = len(self._nodes)
        anc = np.eye(n, dtype=bool)
        for node in self._nodes:  # topological: parents' rows are complete before children's
            i = self._index[node]
            for p in self._parents[node]:
                anc[i] |= anc[self._index[p]]
        anc.flags.writeable = False
        return anc

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
