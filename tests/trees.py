"""Taxonomies the size tests build: shared by the tests of distances, closures and agreement."""

from __future__ import annotations

from fuzzytruth import Taxonomy


def ternary_tree(depth: int) -> tuple[Taxonomy, list[str]]:
    """Every node but the leaves has three children: (3 ** (depth + 1) - 1) / 2 nodes; the
    taxonomy and its leaves."""
    edges, level = [], ["r"]
    for d in range(1, depth + 1):
        children = [f"{d}.{j}" for j in range(3 * len(level))]
        edges += [(level[j // 3], c) for j, c in enumerate(children)]
        level = children
    return Taxonomy.from_edges(edges), level
