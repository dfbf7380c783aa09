"""Taxonomies as nested JSON: ``{"all": {"people": ["single", "crowd"], "scenery": {}}}``.

An object maps node names to their children; a list holds the names of leaves; ``null`` or
``{}`` is a leaf. Read: names are non-empty strings, not given twice under one parent (the
``json`` module would keep the last silently), the nesting is at most :data:`MAX_JSON_DEPTH`
levels, and any other shape (a list holding an object, a number where children go) is an
error naming the file. Written: trees only, names as text, in the taxonomy's order.
"""

from __future__ import annotations

import json
import os
from collections.abc import Hashable
from typing import Any

from fuzzytruth.io.output import open_output
from fuzzytruth.io.text import MaxBytes, file_error, load_json, shown
from fuzzytruth.taxonomy import Taxonomy

__all__ = ["MAX_JSON_DEPTH", "read_json_taxonomy", "write_json_taxonomy"]

#: Deepest nesting of a JSON taxonomy (levels below the root); a deeper one is an error that
#: says to write it as a CSV/TSV edge list, which has no such limit.
MAX_JSON_DEPTH = 256
_TOO_DEEP = (f"the taxonomy is nested more than {MAX_JSON_DEPTH} levels deep; write a taxonomy "
             "this deep as a CSV/TSV edge list")


class _RepeatedKey(ValueError):
    pass


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json ``object_pairs_hook``: a name given twice under one parent is an error (the json
    module would keep the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(key)
        out[key] = value
    return out


def _check_nested(name: str, tree: Any) -> None:
    """The JSON taxonomy's shape, walked without recursion: objects of objects, lists of
    names or null; names non-empty strings; at most :data:`MAX_JSON_DEPTH` levels."""
    if not isinstance(tree, dict):
        raise file_error(
            name, f"expected a JSON object (a nested mapping), found {type(tree).__name__}", 1
        )
    stack: list[tuple[Any, int, str]] = [(tree, 0, "the top level")]
    while stack:
        node, depth, where = stack.pop()  # the names in node are at depth ``depth``
        if depth > MAX_JSON_DEPTH and node:
            raise file_error(name, _TOO_DEEP)
        if isinstance(node, dict):
            for key, sub in node.items():
                if not key.strip():
                    raise file_error(name, f"an empty node name under {where}")
                if sub is not None:
                    stack.append((sub, depth + 1, shown(key)))
        elif isinstance(node, list):
            for item in node:
                if not isinstance(item, str) or not item.strip():
                    kind = "an empty name" if isinstance(item, str) else (
                        f"a JSON {'object' if isinstance(item, dict) else type(item).__name__}"
                    )
                    raise file_error(
                        name,
                        f"the list under {where} holds {kind}; a list holds the names of "
                        'leaves (["a", "b"]); give children with subtrees as an object '
                        '({"a": {...}, "b": {}})',
                    )
        else:
            raise file_error(
                name,
                f"the children of {where} must be an object, a list of names or null; got "
                f"{shown(node)}",
            )


def read_json_taxonomy(name: str, encoding: str, implicit_root: str | None,
                        max_decompressed_bytes: MaxBytes) -> Taxonomy:
    try:
        tree, _ = load_json(
            name, encoding=encoding, max_decompressed_bytes=max_decompressed_bytes,
            expected='a nested mapping such as {"all": {"people": {}, "scenery": {}}}',
            too_deep=_TOO_DEEP, object_pairs_hook=_no_repeated_keys,
        )
    except _RepeatedKey as err:
        raise file_error(
            name, f"node {shown(err.args[0])} is given twice under one parent"
        ) from None
    _check_nested(name, tree)
    try:
        return Taxonomy.from_nested(tree, implicit_root=implicit_root)
    except ValueError as err:
        raise file_error(name, str(err)) from None


def write_json_taxonomy(
    taxonomy: Taxonomy, names: dict[Hashable, str], path: str | os.PathLike
) -> None:
    """Write a tree as nested JSON, each node under its name ``names[node]``; a DAG, a tree
    deeper than :data:`MAX_JSON_DEPTH` or a blank name is a ValueError."""
    if not taxonomy.is_tree:
        raise ValueError(
            "nested JSON holds trees only; write a DAG as a .csv or .tsv edge list"
        )
    if int(taxonomy.depths.max()) > MAX_JSON_DEPTH:
        raise ValueError(
            f"the taxonomy is {int(taxonomy.depths.max())} levels deep; nested JSON "
            f"holds at most {MAX_JSON_DEPTH}: write it as a .csv or .tsv edge list"
        )
    if any(not text.strip() for text in names.values()):
        raise ValueError("a node with an empty name would not read back from JSON")
    nested: dict[str, Any] = {}
    stack: list[tuple[Hashable, dict[str, Any]]] = [(taxonomy.root, nested)]
    while stack:
        node, into = stack.pop()
        into[names[node]] = below = {}
        stack.extend((c, below) for c in reversed(taxonomy.children(node)))
    # children are added in order: pop() takes the first child first
    with open_output(path) as handle:
        json.dump(nested, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
