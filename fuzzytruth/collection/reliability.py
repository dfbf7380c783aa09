"""Category reliability: which categories are too ambiguous to be used as queries."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from fuzzytruth._order import ranges, sorted_order
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows, row_chunks
from fuzzytruth._validation import check_int, check_number
from fuzzytruth.annotations import Annotations
from fuzzytruth.collection._counts import label_counts, require_annotations
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.truth.membership import Membership, closed_shares, weighted_votes

__all__ = ["CategoryReliability", "category_reliability", "sibling_confusions"]

_SLOT_BYTES = 24
"""Temporaries per co-occurring label pair and ancestor slot when counting confusions: the two
labels' rows of the ancestor table (int32 each), their comparison and masks, the gathered
ancestors (int64)."""

_TERM_BYTES = 64
"""Temporaries per (label pair, ancestor, parent) term of a DAG's join, and per sibling pair it
yields: pair number, parent, node, sort keys and positions (int64 each)."""


def _pair_chunks(cost: np.ndarray, bytes_per_unit: float) -> list[slice]:
    """Consecutive slices of ``range(len(cost))`` whose summed ``cost`` (units of
    ``bytes_per_unit`` bytes) fits :data:`MEMORY_BUDGET`; a single row costlier than that is
    a slice of its own."""
    limit = block_rows(1, MEMORY_BUDGET, bytes_per_unit=bytes_per_unit)
    total = np.cumsum(cost, dtype=np.float64)
    out, start = [], 0
    while start < len(cost):
        base = total[start - 1] if start else 0.0
        stop = max(start + 1, int(np.searchsorted(total, base + limit, side="right")))
        out.append(slice(start, stop))
        start = stop
    return out


def _tree_confusions(x: np.ndarray, y: np.ndarray, taxonomy: Taxonomy
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tree: the sibling pair of each label pair ``(x[k], y[k])`` (``x != y``), the children of
    their lowest common ancestor on the way to each label: ``(keep, c, d)`` with ``keep``
    False where one label is an ancestor of the other (no sibling pair)."""
    _, table = taxonomy.ancestor_slots()  # table[i, depth]: i's ancestor at that depth, or -1
    keep = np.zeros(len(x), dtype=bool)
    c, d = np.empty(len(x), dtype=np.int64), np.empty(len(x), dtype=np.int64)
    size = block_rows(table.shape[1], MEMORY_BUDGET, bytes_per_unit=_SLOT_BYTES)
    for rows in row_chunks(len(x), size):
        up_x, up_y = table[x[rows]], table[y[rows]]
        below = np.argmin(up_x == up_y, axis=1)  # first depth where the paths part
        at = np.arange(len(below))
        c[rows], d[rows] = up_x[at, below], up_y[at, below]
        keep[rows] = (c[rows] >= 0) & (d[rows] >= 0)  # -1: that label ended above it
    return keep, c, d


def _dag_confusions(x: np.ndarray, y: np.ndarray, weight: np.ndarray, taxonomy: Taxonomy
                    ) -> sparse.csr_array:
    """Any taxonomy: ``out[c, d]`` = the summed ``weight`` of the label pairs ``(x[k], y[k])``
    with x under c and not under d, y under d and not under c, c and d children of one parent.

    Per label pair, the ancestors of x that are not ancestors of y (and the reverse) are read
    from the ancestor slots (:meth:`Taxonomy.ancestor_slots`: ``table[x, s] != table[y, s]``);
    joining the two lists on a shared parent gives the sibling pairs, each (c, d) once per
    parent c and d share, a multiplicity divided out at the end. Blocks of label pairs are
    sized from the budget by their number of (ancestor, parent) terms."""
    n = len(taxonomy)
    _, table = taxonomy.ancestor_slots()
    edges = taxonomy.to_edges()  # (parent, child)
    child = taxonomy.indices(c for _, c in edges).astype(np.int64)
    parent = taxonomy.indices(p for p, _ in edges).astype(np.int64)
    order = np.argsort(child * n + parent)
    child, parent = child[order], parent[order]
    edge_key = child * n + parent  # sorted: "is p a parent of c" by one search
    parent_ptr = np.concatenate([[0], np.cumsum(np.bincount(child, minlength=n))])
    n_parents = np.diff(parent_ptr)
    # terms per label: its ancestors (itself included) and each one's parents
    closure = taxonomy.ancestor_closure
    terms = np.bincount(np.repeat(np.arange(n), np.diff(closure.indptr)),
                        n_parents[closure.indices], n).astype(np.int64)
    del closure
    cost = table.shape[1] * _SLOT_BYTES / _TERM_BYTES + terms[x] + terms[y]
    out = sparse.csr_array((n, n), dtype=np.int64)

    def up(pair: np.ndarray, node: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(pair * n + parent, node)`` for every parent of every node, sorted by key."""
        count = n_parents[node]
        key = np.repeat(pair, count) * n + parent[ranges(parent_ptr[node], count)]
        order = np.argsort(key, kind="stable")
        return key[order], np.repeat(node, count)[order]

    for rows in _pair_chunks(cost, _TERM_BYTES):
        up_x, up_y = table[x[rows]], table[y[rows]]
        differ = up_x != up_y
        k_x, s_x = np.nonzero(differ & (up_x >= 0))  # ancestors of x only
        k_y, s_y = np.nonzero(differ & (up_y >= 0))  # ancestors of y only
        key_x, c = up(k_x, up_x[k_x, s_x].astype(np.int64))
        key_y, d = up(k_y, up_y[k_y, s_y].astype(np.int64))
        del up_x, up_y, differ, k_x, s_x, k_y, s_y
        lo = np.searchsorted(key_y, key_x, side="left")
        count = np.searchsorted(key_y, key_x, side="right") - lo
        w = weight[rows][key_x // n]
        # the (c, d) products of one parent, in blocks of terms within the budget
        for part in _pair_chunks(count + 1, _TERM_BYTES):
            m = count[part]
            pairs = sparse.coo_array(
                (np.repeat(w[part], m),
                 (np.repeat(c[part], m), d[ranges(lo[part], m)])), shape=(n, n))
            out = out + pairs.tocsr()
    # each (c, d) came once per parent the two share: divide by that number
    out = out.tocoo()
    count = n_parents[out.row]
    entry = np.repeat(np.arange(out.nnz), count)
    key = out.col[entry].astype(np.int64) * n + parent[ranges(parent_ptr[out.row], count)]
    at = np.minimum(np.searchsorted(edge_key, key), len(edge_key) - 1)
    shared = np.bincount(entry[edge_key[at] == key], minlength=out.nnz)
    return sparse.csr_array((out.data // shared, (out.row, out.col)), shape=(n, n))


def _confusion_matrix(counts: sparse.csr_array, taxonomy: Taxonomy) -> sparse.csr_array:
    """Symmetric ``(n_nodes, n_nodes)`` sibling confusion counts, a sparse int64 CSR array
    with sorted columns that stores the nonzero counts only.

    The label pairs two annotators of one item gave are the off-diagonal nonzeros of
    ``counts.T @ counts`` (kept sparse: their number grows with the labels given together,
    never with ``n_nodes²``); each is mapped to the sibling pairs it counts for.
    """
    n = len(taxonomy)
    # cross[x, y] (x < y): annotator pairs on one item, one labelling x and the other y
    cross = sparse.triu(sparse.csr_array(counts.T @ counts), k=1).tocoo()
    x, y = cross.row.astype(np.int64), cross.col.astype(np.int64)
    weight = np.rint(cross.data).astype(np.int64)
    del cross
    if taxonomy.is_tree:
        keep, c, d = _tree_confusions(x, y, taxonomy)
        upper = sparse.coo_array((weight[keep], (c[keep], d[keep])), shape=(n, n)).tocsr()
    else:
        upper = _dag_confusions(x, y, weight, taxonomy)
    out = (upper + upper.T).tocsr()
    out.eliminate_zeros()
    out.sort_indices()
    return out


def sibling_confusions(annotations: Annotations) -> pd.DataFrame:
    """How often two annotators of one item chose labels under different sibling categories.

    For every item and every unordered pair of its annotators whose labels fall under
    different children c ≠ c' of the same parent (c and c' are siblings; each label is c or
    one of its descendants), the pair counts once for (c, c'). In a tree each disagreeing pair
    counts for exactly one sibling pair: the children of the two labels' lowest common
    ancestor; a pair where one label is an ancestor of the other counts for none. In a DAG a
    label lying under both c and c' counts for neither.

    Parameters
    ----------
    annotations : Annotations
        Raw labels, one per (item, annotator).

    Returns
    -------
    pandas.DataFrame
        ``category, other, n_pairs``: one row per ordered sibling pair with ``n_pairs > 0``
        (so each confusion appears under both categories), sorted by category in taxonomy
        order, then by ``n_pairs`` descending.

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_figure1
    >>> sibling_confusions(santini_figure1().annotations)
      category    other  n_pairs
    0   people  scenery        6
    1  scenery   people        6
    """
    annotations = require_annotations(annotations, analysis="sibling_confusions")
    taxonomy = annotations.taxonomy
    matrix = _confusion_matrix(label_counts(annotations, analysis="sibling_confusions"),
                               taxonomy)
    rows = np.repeat(np.arange(len(taxonomy)), np.diff(matrix.indptr))
    frame = pd.DataFrame(
        {
            "category": pd.Series([taxonomy.nodes[r] for r in rows], dtype=object),
            "other": pd.Series([taxonomy.nodes[c] for c in matrix.indices], dtype=object),
            "n_pairs": matrix.data.astype(np.int64),
            "_order": rows,
        }
    )
    frame = frame.sort_values(["_order", "n_pairs"], ascending=[True, False], kind="stable")
    return frame.drop(columns="_order").reset_index(drop=True)


def _most_confused(confusion: sparse.csr_array, taxonomy: Taxonomy, n_confused: int
                   ) -> tuple[tuple[Hashable, ...], ...]:
    """Per node, the ``n_confused`` nodes of its row with the most confusions, most first,
    ties in taxonomy order (column order), only those with at least one."""
    rows = np.repeat(np.arange(len(taxonomy)), np.diff(confusion.indptr))
    order = np.lexsort((confusion.indices, -confusion.data, rows))  # rows stay in place
    rank = np.arange(len(order)) - confusion.indptr[rows]
    top = confusion.indices[order][rank < n_confused]
    ptr = np.concatenate([[0], np.cumsum(np.minimum(np.diff(confusion.indptr), n_confused))])
    nodes = taxonomy.nodes
    return tuple(tuple(nodes[j] for j in top[ptr[i] : ptr[i + 1]])
                 for i in range(len(taxonomy)))


_CELL_BYTES = 80
"""Temporaries per (item, node) cell of a block of items in :func:`_item_sums`: the block's
memberships, their entropies and products with the voted mask (float64), the masks, and a
copy of each summand beside its running total."""


def _item_sums(
    n_items: int, n_nodes: int,
    block: Callable[[slice], tuple[np.ndarray, np.ndarray]], low: float, high: float,
) -> tuple[np.ndarray, ...]:
    """Per node, over the items (``block(rows)``: the membership of a block of consecutive
    items and whether each was voted into each node): ``(size, n_voted, Σ p over the voted,
    Σ H(p) over the voted, n ambiguous voted)``, in blocks of items sized from
    :data:`MEMORY_BUDGET` (the entropies' temporaries were five items × nodes float arrays:
    7.9 GB at 20,000 items × 9,841 nodes). Each float sum folds its block, running total
    first, along the items (NumPy adds a matrix's rows in turn for an axis-0 sum), so the
    blocks give the bits of one sum over every item; with a single node, the root's values
    are whole numbers, whose sums are exact in any order."""
    floats = np.zeros((3, n_nodes))
    counts = np.zeros((2, n_nodes), dtype=np.int64)
    size = block_rows(n_nodes, MEMORY_BUDGET, bytes_per_unit=_CELL_BYTES)
    for rows in row_chunks(n_items, size):
        p, in_block = block(rows)
        for k, terms in enumerate((p, p * in_block, _binary_entropy(p) * in_block)):
            floats[k] = np.add.reduce(np.concatenate([floats[k][None], terms]), axis=0)
        counts[0] += in_block.sum(axis=0)
        counts[1] += ((p > low) & (p < high) & in_block).sum(axis=0)
    return floats[0], counts[0], floats[1], floats[2], counts[1]


def _binary_entropy(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    return np.where((p > 0) & (p < 1), h, 0.0)


def _closed_kappa(counts: sparse.csr_array, taxonomy: Taxonomy) -> np.ndarray:
    """Fleiss' κ_ω of the dichotomy "in ω or not" per node, from closed label counts, with
    unequal numbers of annotators handled as in :func:`~fuzzytruth.collection.agreement`.
    The closed counts are made for blocks of items sized from :data:`MEMORY_BUDGET` (a
    caterpillar 500 deep closed 185,000 items into 74 M entries, 5 GB with its temporaries),
    each block's terms added to the running sums in item order, as one pass would."""
    n = counts.sum(axis=1)
    pairable = n >= 2
    n_nodes = len(taxonomy)
    if not pairable.any():
        return np.full(n_nodes, np.nan)
    safe = np.where(pairable, n, 2.0)
    # Σ pair disagreements, Σ m / k, the items with a label at or below ω, Σ (k − m) / k
    sums = np.zeros((4, n_nodes))
    size = block_rows(n_nodes, MEMORY_BUDGET, bytes_per_unit=_CELL_BYTES)
    for rows in row_chunks(counts.shape[0], size):
        # closed[i, w]: labels of item i at w or below (sparse: only the labels' ancestors)
        closed = taxonomy.close_over_ancestors(counts[rows]).tocoo()
        row = closed.row + rows.start
        m, k, s = closed.data, n[row], safe[row]
        terms = (np.where(k >= 2, m * (k - m) / (s * (s - 1)), 0.0), m / k, np.ones(len(m)),
                 (k - m) / k)
        for total, term in zip(sums, terms, strict=True):
            np.add.at(total, closed.col, term)  # in entry order, as np.bincount adds
    disagreement = sums[0] / pairable.sum()
    p = sums[1] / len(n)
    # 1 − p from the labels outside ω (an item with none inside counts 1), not from p, which
    # may be 1 − 1e-6: a difference of whole numbers before the division
    outside = len(n) - sums[2] + sums[3]
    pq = p * (outside / len(n))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pq > 0, 1 - disagreement / pq, np.nan)


@dataclass(frozen=True)
class CategoryReliability:
    """Per-category reliability of a collection (every node but the root).

    Attributes
    ----------
    categories : tuple
        Category names, in taxonomy order.
    depth, size, n_voted, mean_membership, entropy, ambiguous_share, closed_kappa, n_confusions
        Arrays over ``categories``; see :func:`category_reliability` for definitions.
    confused_with : tuple of tuple
        Per category, the siblings it is most often confused with, most confused first.
    ambiguous : numpy.ndarray of bool
        The flag; its rule is given by the three settings below.
    ambiguous_band : tuple of float
        ``(low, high)``: a membership strictly between them is ambiguous.
    max_ambiguous_share : float
    min_kappa : float
    """

    categories: tuple[Hashable, ...]
    depth: np.ndarray
    size: np.ndarray
    n_voted: np.ndarray
    mean_membership: np.ndarray
    entropy: np.ndarray
    ambiguous_share: np.ndarray
    closed_kappa: np.ndarray
    n_confusions: np.ndarray
    confused_with: tuple[tuple[Hashable, ...], ...]
    ambiguous: np.ndarray
    ambiguous_band: tuple[float, float]
    max_ambiguous_share: float
    min_kappa: float

    def __repr__(self) -> str:
        flagged = [c for c, a in zip(self.categories, self.ambiguous, strict=True) if a]
        shown = ", ".join(repr(c) for c in flagged[:5]) + (", …" if len(flagged) > 5 else "")
        return (
            f"CategoryReliability({len(self.categories)} categories, {len(flagged)} ambiguous"
            + (f": {shown}" if flagged else "")
            + f"; rule: ambiguous_share > {self.max_ambiguous_share:g} or closed_kappa < "
            f"{self.min_kappa:g})"
        )

    def to_frame(self) -> pd.DataFrame:
        """Tidy table, one row per category: ``category, depth, size, n_voted,
        mean_membership, entropy, ambiguous_share, closed_kappa, n_confusions, confused_with,
        ambiguous``."""
        return pd.DataFrame(
            {
                "category": pd.Series(self.categories, dtype=object),
                "depth": self.depth,
                "size": self.size,
                "n_voted": self.n_voted,
                "mean_membership": self.mean_membership,
                "entropy": self.entropy,
                "ambiguous_share": self.ambiguous_share,
                "closed_kappa": self.closed_kappa,
                "n_confusions": self.n_confusions,
                "confused_with": pd.Series(self.confused_with, dtype=object),
                "ambiguous": self.ambiguous,
            }
        )


def category_reliability(
    data: Annotations | Membership,
    *,
    ambiguous_band: tuple[float, float] = (0.2, 0.8),
    max_ambiguous_share: float = 0.5,
    min_kappa: float = 0.4,
    n_confused: int = 3,
    truth_model: object | None = None,
) -> CategoryReliability:
    """Per-category reliability table: how much can a category be trusted as a query?

    Parameters
    ----------
    data : Annotations or Membership
        Annotations give every column (membership via
        :meth:`Membership.from_annotations`, annotator weights applied). A Membership (for
        example from :meth:`Membership.from_probabilities`, an outside label model) gives the
        membership columns only: ``closed_kappa`` is NaN, ``n_confusions`` 0, ``confused_with``
        empty, and the flag uses ``ambiguous_share`` alone.
    ambiguous_band : (float, float)
        ``(low, high)``, default ``(0.2, 0.8)``: an item whose membership p(ω|q) lies strictly
        between them is an ambiguous member of ω.
    max_ambiguous_share : float
        Flag a category when more than this share of its voted items are ambiguous
        (default 0.5).
    min_kappa : float
        Flag a category when its closed κ is below this (default 0.4, the lower end of
        "moderate" agreement in Landis & Koch 1977).
    n_confused : int
        How many siblings to list in ``confused_with`` (default 3).
    truth_model : str or model, optional
        With Annotations: the membership columns (``size`` to ``ambiguous_share``) are those of
        this truth model's fit (a name of :data:`fuzzytruth.truth.models.TRUTH_MODELS` or a
        configured model; :func:`fuzzytruth.truth.models.fit_truth`), e.g. ``"dawid-skene"``,
        which weighs annotators by their estimated reliability. The voted items of ω are still
        those some annotator placed in ω (a model's posterior is rarely exactly 0), and
        ``closed_kappa`` and the confusions still count the raw labels. Default None: the
        annotators' shares.

    Returns
    -------
    CategoryReliability
        One row per node except the root (p(root|q) = 1 always).

    Notes
    -----
    With p(ω|q) the closed membership (share of q's annotators whose label is ω or below ω):

    * ``size`` = |ω| = Σ_q p(ω|q) (Santini eq. 9);
    * ``n_voted`` = number of items with p(ω|q) > 0;
    * ``mean_membership`` = mean p(ω|q) over the voted items;
    * ``entropy`` = mean over the voted items of the binary entropy
      H(p) = −p log2 p − (1 − p) log2 (1 − p), in bits: 0 when every voter agrees that the item
      is in ω, 1 when the annotators split evenly; averaging over voted items only keeps a
      small category from looking reliable because most items are plainly outside it;
    * ``ambiguous_share`` = share of the voted items with low < p(ω|q) < high;
    * ``closed_kappa`` = Fleiss' κ_ω of the dichotomy "ω (or below) vs not", every label counting
      once whatever the annotator weights: the per-category κ_j of :func:`agreement` (with
      its rule for unequal numbers of annotators) applied to closed labels; for the leaves of
      a flat taxonomy the two coincide. NaN when undefined (no item with two annotators, or
      nobody, or everybody, placed items in ω). Needs one label per (item, annotator):
      annotations built with ``duplicates="split"`` are refused;
    * ``n_confusions`` = annotator pairs whose labels fall under ω and under a sibling of ω
      (:func:`sibling_confusions`); ``confused_with`` the ``n_confused`` siblings with the
      most such pairs (ties in taxonomy order), only those with at least one;
    * ``ambiguous`` = ``ambiguous_share > max_ambiguous_share`` or ``closed_kappa < min_kappa``
      (a NaN never triggers the flag, so a category nobody used is not flagged: it has
      ``n_voted == 0`` and NaN averages instead).

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_illustrative
    >>> table = category_reliability(santini_illustrative().annotations).to_frame()
    >>> table[["category", "n_voted", "ambiguous_share", "closed_kappa", "ambiguous"]].round(2)
          category  n_voted  ambiguous_share  closed_kappa  ambiguous
    0       people       13             0.15   0.68      False
    1      scenery       14             0.14   0.68      False
    2       single        5             0.40   0.61      False
    3        group        7             0.29   0.34       True
    4        crowd        7             0.29   0.34       True
    5         city       11             0.27   0.33       True
    6  countryside        6             0.33   0.57      False
    """
    low, high = _check_options(ambiguous_band, max_ambiguous_share, min_kappa, n_confused)
    if isinstance(data, Membership):
        if truth_model is not None:
            raise ValueError("truth_model needs the raw labels (an Annotations as data) to fit "
                             "the model on; got a Membership")
        membership, annotations = data, None
        order = sorted_order(membership.items)
    else:
        # items in sorted order: Annotations keep their rows canonical
        annotations = require_annotations(data, analysis="category_reliability", name="data",
                                          accepts="an Annotations or a Membership")
        membership, order = None, None
        if truth_model is not None:
            from fuzzytruth.truth.models import fit_truth

            membership = fit_truth(annotations, truth_model).membership
    taxonomy = (membership if annotations is None else annotations).taxonomy
    n_items = len(membership.items) if annotations is None else annotations.n_items
    counts = None if annotations is None else label_counts(
        annotations, analysis="category_reliability", name="data"
    )
    if membership is None:  # the annotators' shares, closed block by block from the votes:
        votes = weighted_votes(annotations)  # no items x nodes matrix (185,000 x 1,003

        def block(rows: slice) -> tuple[np.ndarray, np.ndarray]:  # nodes: two of 1.5 GB)
            p = closed_shares(taxonomy, votes[rows])[0]
            return p, p > 0
    elif truth_model is None:
        def block(rows: slice) -> tuple[np.ndarray, np.ndarray]:
            p = membership.matrix[rows if order is None else order[rows]]
            return p, p > 0
    else:  # the items some annotator placed in the node (the shares' p > 0), from the
        # sparse closure of their counts
        closed = taxonomy.close_over_ancestors(counts)

        def block(rows: slice) -> tuple[np.ndarray, np.ndarray]:
            return membership.matrix[rows], closed[rows].toarray() > 0
    size, n_voted, p_sum, entropy_sum, n_ambiguous = _item_sums(
        n_items, len(taxonomy), block, low, high)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_membership = np.where(n_voted > 0, p_sum / n_voted, np.nan)
        entropy = np.where(n_voted > 0, entropy_sum / n_voted, np.nan)
        share = np.where(n_voted > 0, n_ambiguous / n_voted, np.nan)
    n_nodes = len(taxonomy)
    if annotations is None:
        closed_kappa = np.full(n_nodes, np.nan)
        confusion = sparse.csr_array((n_nodes, n_nodes), dtype=np.int64)
    else:
        closed_kappa = _closed_kappa(counts, taxonomy)
        confusion = _confusion_matrix(counts, taxonomy)
    confused_with = _most_confused(confusion, taxonomy, n_confused)
    with np.errstate(invalid="ignore"):
        ambiguous = (share > max_ambiguous_share) | (closed_kappa < min_kappa)
    keep = np.flatnonzero(np.arange(n_nodes) != taxonomy.index(taxonomy.root))
    return CategoryReliability(
        categories=tuple(taxonomy.nodes[j] for j in keep),
        depth=taxonomy.depths[keep].copy(),
        size=size[keep],
        n_voted=n_voted[keep],
        mean_membership=mean_membership[keep],
        entropy=entropy[keep],
        ambiguous_share=share[keep],
        closed_kappa=closed_kappa[keep],
        n_confusions=np.asarray(confusion.sum(axis=1), dtype=np.int64)[keep],
        confused_with=tuple(confused_with[j] for j in keep),
        ambiguous=ambiguous[keep],
        ambiguous_band=(low, high),
        max_ambiguous_share=float(max_ambiguous_share),
        min_kappa=float(min_kappa),
    )


def _check_options(
    band: tuple[float, float], max_share: float, min_kappa: float, n_confused: int
) -> tuple[float, float]:
    try:
        low, high = (float(b) for b in band)
    except (TypeError, ValueError):
        raise ValueError(
            f"ambiguous_band must be a pair (low, high) with 0 <= low < high <= 1; got {band!r}"
        ) from None
    if not 0 <= low < high <= 1:
        raise ValueError(
            f"ambiguous_band must be a pair (low, high) with 0 <= low < high <= 1; got {band!r}"
        )
    check_number("max_ambiguous_share", max_share, maximum=1)
    check_number("min_kappa", min_kappa, minimum=-1, maximum=1)
    check_int("n_confused", n_confused, minimum=0)
    return low, high
