"""Tables of (query, document, value) rows, the storage shared by runs and qrels.

Ids are strings (integers are the text ``str`` gives them, written by Arrow's cast, bytes
decoded as UTF-8, :func:`~fuzzytruth._validation.id_text`; floats are refused: 1.0 would read
"1.0", which no file or int says), held as Arrow string arrays: a DataFrame's string columns
and the TREC reader's columns are used without a copy, in their chunks, and object columns or
lists are converted once. Query ids are factorised once (a column grouped by query, as runs and
qrels usually are, costs one comparison of neighbours and the hashing of one id per query;
integers are factorised as integers); document ids are hashed a block of queries at a time
(:func:`blocks`), where the hash tables fit the CPU cache, by the duplicate check here and by
the join with the judgments (:func:`fuzzytruth.truth.judged_pairs.judged_rows`). Each block
is one array (:func:`rows_of`: a view, or a copy of the block's rows when it spans two chunks);
whole queries in another order are sliced from the chunks (:func:`take_stretches`), while a
take in any order needs the whole column as one array, which a table not grouped by query
makes once and keeps (:meth:`PairTable._doc_array`). A document listed twice for one query is
an error or resolved by a named policy (``duplicates``). :class:`~fuzzytruth.runs.Run` and
:class:`~fuzzytruth.truth.qrels.Qrels` are the two kinds.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from numpy.typing import ArrayLike

from fuzzytruth._frozen import ReadOnlyArrays
from fuzzytruth._order import code_order, is_identity
from fuzzytruth._validation import (
    check_choice,
    check_real_types,
    detached,
    float_ids_error,
    id_text,
    real_array,
    refuse_float_ids,
    same_rows,
)
from fuzzytruth._validation import check_columns as check_frame_columns
from fuzzytruth._warnings import warn

__all__ = ["DUPLICATES", "PairTable", "arrow_strings", "as_ids", "blocks", "check_columns",
           "doc_positions", "duplicate_pair", "integer_codes", "rows_of", "take_stretches",
           "whole"]


DUPLICATES = ("error", "max", "first", "last")


def arrow_strings(values: Any) -> pa.Array | pa.ChunkedArray:
    """The Arrow string array behind a pandas string array, in its chunks (no copy); one
    chunk is given as a plain array."""
    chunked = values.__arrow_array__()
    if isinstance(chunked, pa.ChunkedArray) and chunked.num_chunks == 1:
        return chunked.chunk(0)
    return chunked


def whole(ids: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``ids`` as one Arrow array: the chunks joined (a copy) when there are several.
    (pyarrow's ``take`` on a chunked array joins its chunks on every call: 1.6 s to take
    1 M rows of 11 M URLs in 52 chunks, 0.1 s from one array.)"""
    if not isinstance(ids, pa.ChunkedArray):
        return ids
    return ids.chunk(0) if ids.num_chunks == 1 else ids.combine_chunks()


def take_stretches(ids: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array | None:
    """``ids[rows]`` as one array when ``rows`` run in stretches of consecutive rows (whole
    queries of a table grouped by query) of :data:`_STRETCH_ROWS` or more on average, else
    None (a ``take`` then does better). The stretches are sliced (views) and joined in one
    copy: 10 M UUIDs in 251 chunks (a TREC run's parse blocks) read query by query in another
    query order, in spans of 4,000 queries (2026-11-29, two passes, one process), 0.28-0.29
    s, against 0.48-0.50 s for a take from each chunk in row order followed by a take into
    the order asked (pyarrow's ``take`` on a chunked array joins every chunk first: 66 ms per
    call there). A row outside ``ids`` is a ValueError (a slice would clip it silently).

    Examples
    --------
    >>> ids = pa.chunked_array([["a", "b"], ["c", "d", "e"]])
    >>> take_stretches(ids, np.array([3, 4, 0, 1, 2] * 8)) is None  # stretches of 2 or 3
    True
    >>> take_stretches(ids, np.array([3, 4, 0, 1, 2])).to_pylist()  # two
    ['d', 'e', 'a', 'b', 'c']
    """
    rows = np.asarray(rows, dtype=np.int64)
    if not len(rows):
        return pa.array([], type=ids.type)
    if rows.min() < 0 or rows.max() >= len(ids):
        raise ValueError(f"rows must be in [0, {len(ids)}); got values from {rows.min()} to "
                         f"{rows.max()}")
    head = np.flatnonzero(rows[1:] != rows[:-1] + 1) + 1  # where a stretch of rows starts
    if len(head) > max(len(rows) // _STRETCH_ROWS, 1):
        return None
    first = rows[np.concatenate([[0], head])]
    count = np.diff(np.concatenate([[0], head, [len(rows)]]))
    chunks = ids.chunks if isinstance(ids, pa.ChunkedArray) else [ids]
    bounds = np.concatenate([[0], np.cumsum([len(c) for c in chunks])])
    chunk = np.searchsorted(bounds, first, side="right") - 1
    last = np.searchsorted(bounds, first + count - 1, side="right") - 1
    parts: list[pa.Array] = []
    for c, e, f, n in zip(chunk.tolist(), last.tolist(), (first - bounds[chunk]).tolist(),
                          count.tolist(), strict=True):
        if c == e:
            parts.append(chunks[c].slice(f, n))
        else:  # a stretch across chunks
            parts.extend(ids.slice(int(bounds[c]) + f, n).chunks)
    return pa.concat_arrays(parts)


_STRETCH_ROWS = 16
"""Rows are sliced stretch by stretch (:func:`take_stretches`) when their stretches of
consecutive rows are this long on average; shorter ones are taken row by row."""


def rows_of(ids: pa.Array | pa.ChunkedArray, start: int, stop: int) -> pa.Array:
    """Rows ``start .. stop - 1`` of ``ids`` as one Arrow array: a view when they lie in one
    chunk, else a copy of those rows only (a block's hash pass wants one array)."""
    return whole(ids.slice(start, stop - start))


_CONVERT_ROWS = 1 << 16
"""Ids converted from Python objects per Arrow chunk. pyarrow's builder grows its buffers by
doubling, so one conversion of a whole column touches about twice the column's bytes, fresh
from the kernel: 10 M URL ids (748 MB of text) from a NumPy object array raised the resident
size by 1.30-1.57 GB and took 2.3-3.8 s of CPU, most of it in the kernel, against 0.79-0.87 GB
and 0.3-1.0 s in chunks of this size, taken from the parsers' pool (2026-11-25, fresh
processes; larger chunks brought the doubling back, smaller ones gained nothing)."""


def _strings(values: Any, n: int) -> pa.Array | pa.ChunkedArray:
    """``n`` str values (a list, tuple, NumPy array or iterator) as Arrow large strings, in
    chunks of :data:`_CONVERT_ROWS` (one array when they fit in one); raises pyarrow's error
    for anything that is not a str (None becomes a null)."""
    from fuzzytruth.io.text import parser_pool

    kind, pool = pa.large_string(), parser_pool()
    if n <= _CONVERT_ROWS:
        return pa.array(values, type=kind, size=n, memory_pool=pool)
    if isinstance(values, list | tuple | np.ndarray):
        parts = (values[i:i + _CONVERT_ROWS] for i in range(0, n, _CONVERT_ROWS))
    else:
        parts = (itertools.islice(values, _CONVERT_ROWS) for _ in range(0, n, _CONVERT_ROWS))
    return pa.chunked_array(
        [pa.array(part, type=kind, size=min(_CONVERT_ROWS, n - i), memory_pool=pool)
         for i, part in zip(range(0, n, _CONVERT_ROWS), parts, strict=True)], type=kind)


_INTEGER_TYPES = frozenset({int, *(np.dtype(code).type for code in np.typecodes["AllInteger"])})
"""Types of the ids :func:`_integers` takes: ``str`` of each writes its decimal digits, as
Arrow's cast does (not bool, whose Arrow text is 'true' where ``str`` writes 'True', nor a
subclass of int, whose ``str`` may be its name)."""


def _integers(values: Any, name: str) -> np.ndarray | None:
    """``values`` as a 1-D NumPy integer array when every id is an integer: a NumPy, pandas
    (NumPy-backed, nullable or Arrow) or Arrow integer column, or a list, tuple or object
    array of ints and NumPy integers within 64 bits (no bool, no subclass of int). None
    otherwise: then each id goes through :func:`~fuzzytruth._validation.id_text`. A pandas or
    Arrow integer column with a missing value is a ValueError naming ``name``."""
    if isinstance(values, pd.Series | pd.Index):
        values = values.array
    if isinstance(values, pa.ChunkedArray | pa.Array) and pa.types.is_integer(values.type):
        values = pd.arrays.ArrowExtensionArray(values)
    if isinstance(values, pd.api.extensions.ExtensionArray):
        if not pd.api.types.is_integer_dtype(values.dtype):
            return None
        if values.isna().any():
            raise ValueError(f"{name} must not contain missing values")
        return values.to_numpy(dtype=values.dtype.numpy_dtype)
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "iu":
        return values
    if not (isinstance(values, list | tuple)
            or (isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype == object)):
        return None
    if not len(values) or type(values[0]) not in _INTEGER_TYPES:  # str ids: no pass over them
        return None
    if not set(map(type, values)) <= _INTEGER_TYPES:
        return None
    try:
        return np.fromiter(values, dtype=np.int64, count=len(values))
    except OverflowError:  # an int beyond 64 bits
        return None


def _integer_strings(integers: np.ndarray) -> pa.Array | pa.ChunkedArray:
    """Integer ids (:func:`_integers`) as Arrow large strings, each the text ``str`` gives
    it, written by Arrow's cast in C, in chunks of :data:`_CONVERT_ROWS` (one array when they
    fit in one). Measured 2026-11-27: 10 M int64 ids in 0.44-0.57 s (one cast of the whole
    column: 0.9 s); through ``str`` one at a time (``id_text``), 6.2 s for 8 M."""
    kind = pa.large_string()
    parts = [pa.array(integers[i:i + _CONVERT_ROWS]).cast(kind)
             for i in range(0, len(integers), _CONVERT_ROWS)]
    return parts[0] if len(parts) == 1 else pa.chunked_array(parts, type=kind)


def _to_arrow(values: Any, name: str) -> pa.Array | pa.ChunkedArray:
    """Ids given as a list, tuple or NumPy/pandas array, as an Arrow string array (in chunks
    when long, :func:`_strings`): strings as they are (converted in C, without a NumPy copy
    for lists), bytes decoded as UTF-8, anything else but floats through ``str``
    (:func:`~fuzzytruth._validation.id_text`; floats are refused,
    :func:`~fuzzytruth._validation.refuse_float_ids`), integers of any container
    (:func:`_integers`) by Arrow's cast (:func:`_integer_strings`)."""
    integers = _integers(values, name)
    if integers is not None:
        return _integer_strings(integers)
    if getattr(getattr(values, "dtype", None), "kind", None) == "f":
        raise float_ids_error(name, values[0] if len(values) else None)
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        values = values.astype(object)  # decoded below, as UTF-8 (numpy's cast: ASCII)
    elif isinstance(values, np.ndarray) and values.dtype.kind == "U":
        values = values.astype(str)
    if not isinstance(values, list | tuple | np.ndarray):
        given = type(values).__name__
        values = np.asarray(values, dtype=object)
        if values.ndim == 0:  # a generator, a set, a scalar: no sequence of ids
            raise ValueError(
                f"{name} must be a sequence of ids (a list, tuple, NumPy or pandas array); "
                f"got {given}"
            )
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {values.shape}")
    try:  # every element a str (the usual case); None becomes a null, NaN an error (below)
        out = _strings(values, len(values))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        out = None
    if out is None:  # not all str: each id's text, after the checks
        arr = np.asarray(values, dtype=object)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional; got shape {arr.shape}")
        if pd.isna(arr).any():
            raise ValueError(f"{name} must not contain missing values")
        # pandas' C scan of the types first: a pass over Python objects only where floats may
        # hide among other types (10 M int ids: 0.06 s against 0.50 s for the Python scan)
        refuse_float_ids(arr, name)
        return _strings([id_text(v, name) for v in arr], len(arr))
    if out.null_count:
        raise ValueError(f"{name} must not contain missing values")
    return out


def as_ids(values: Any, name: str, *, in_blocks: bool = True) -> Any:
    """1-D string ids as a pandas Arrow string array: columns of str dtype are not copied,
    in their chunks, unless ``in_blocks`` (the ids are read a block of rows at a time) and
    the chunks are shorter than a block on average (then joined once: a slice across many
    chunks costs a pass over them, and a block across two is copied anyway)."""
    if isinstance(values, pd.Series):
        values = values.array
    if isinstance(values, pa.ChunkedArray | pa.Array):
        if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
            values = pd.array(values, dtype="str")
        elif not pa.types.is_integer(values.type):  # integers: written by Arrow (_to_arrow)
            values = values.to_numpy(zero_copy_only=False)
    if isinstance(values, pd.arrays.ArrowStringArray):
        if values.isna().any():
            raise ValueError(f"{name} must not contain missing values")
        chunked = values.__arrow_array__()
        if (in_blocks and isinstance(chunked, pa.ChunkedArray)
                and chunked.num_chunks > 1 + len(chunked) // _BLOCK_ROWS):
            return pd.array(chunked.combine_chunks(), dtype="str")
        return values
    return pd.array(_to_arrow(values, name), dtype="str")


def _as_values(values: Any, name: str, *, finite: bool) -> np.ndarray:
    """``values`` as a 1-D float64 array, read-only and sharing no memory with ``values``
    (:func:`~fuzzytruth._validation.detached`): never NaN, and finite when ``finite`` (grades; a
    score may be infinite, as in a TREC run file)."""
    out = detached(real_array(values, name), values)
    if out.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {out.shape}")
    if np.isnan(out).any():
        row = int(np.isnan(out).argmax())
        raise ValueError(f"{name} must not contain NaN or missing values (found at row {row})")
    if finite and np.isinf(out).any():
        row = int(np.isinf(out).argmax())
        raise ValueError(f"{name} must be finite (found {out[row]} at row {row})")
    return out


_BLOCK_ROWS = 1 << 11
"""Rows per block of queries in the block-wise hashing of document ids (the duplicate
check): tables of that size stay in the CPU's nearest caches (several times faster than one
table for all rows). The duplicate check of 10 M run rows, best of two passes
(2026-11-29): 0.37 s in blocks of 2,048 rows against 0.41, 0.46, 0.46 and 0.53 s in blocks
of 1,024, 512, 4,096 and 16,384 (100k queries, tied scores); URL ids 0.48 s against 0.71 s at
16,384, UUIDs 0.43 s against 0.55 s; whole evaluations from DataFrames and TREC files, three
interleaved rounds each, 0.1-0.5 s faster of 1.5-6 s."""


def blocks(counts: np.ndarray, target: int | None = None) -> np.ndarray:
    """Boundaries (in units of ``counts``' entries) of consecutive blocks of about ``target``
    rows (default ``_BLOCK_ROWS``); an entry larger than ``target`` is a block of its own."""
    target = _BLOCK_ROWS if target is None else target
    total = np.cumsum(counts)
    if len(total) == 0:
        return np.zeros(1, dtype=np.int64)
    if target >= total[-1]:  # one block (a target past int64, from a budget of 1e30 bytes,
        return np.array([0, len(counts)], dtype=np.int64)  # made np.arange fail)
    cuts = np.searchsorted(total, np.arange(target, total[-1], target), side="left") + 1
    return np.unique(np.concatenate([[0], cuts, [len(counts)]])).astype(np.int64)


def doc_positions(table: PairTable, ids: Any) -> np.ndarray:
    """Position (int64) of each row's document id of ``table`` among ``ids`` (distinct str),
    -1 where absent: one Arrow hash lookup, without turning the rows into Python strings."""
    docs = arrow_strings(table._docs)
    value_set = pa.array(list(ids), type=pa.large_string()).cast(docs.type)
    found = pc.index_in(docs, value_set=value_set)
    return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _run_starts(change: np.ndarray) -> np.ndarray:
    """The first row of each run of equal ids, from whether each row but the first differs
    from the row before it."""
    return np.flatnonzero(np.concatenate([[True], change]))


def _over_runs(head_codes: np.ndarray, heads: np.ndarray, n: int) -> np.ndarray:
    """The codes of the runs' first rows (``heads``, of ``n`` rows) given to every row of
    their runs, as int64."""
    return np.repeat(head_codes.astype(np.int64, copy=False), np.diff(np.append(heads, n)))


def factorize_ids(ids: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Codes (int64) and uniques (object array of str, in order of first appearance) of
    ``ids``; a column grouped into runs of equal ids hashes one id per run (and, in chunks,
    is not joined into one array: only the first id of each run is)."""
    n = len(ids)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
    change = pc.not_equal(ids.slice(1), ids.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    heads = _run_starts(change)
    firsts = ids.take(pa.array(heads)) if len(heads) < n else ids
    if isinstance(firsts, pa.ChunkedArray):
        firsts = firsts.combine_chunks()
    encoded = pc.dictionary_encode(firsts)
    head_codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    uniques = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
    if len(heads) == n:
        return head_codes, uniques
    return _over_runs(head_codes, heads, n), uniques


def _object_query_codes(values: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and uniques (as :func:`factorize_ids`) of query ids given as Python objects and
    grouped into runs of equal ids, without converting every row to Arrow (a 10 M-row column
    of 10,000 queries: 0.2 s instead of 0.7): equal neighbours are compared in place and only
    the first id of each run is looked at. None when that does not apply (not objects, not
    grouped, or a run that starts with anything but a ``str``: then ``str()`` decides)."""
    if not (isinstance(values, list | tuple)
            or (isinstance(values, np.ndarray) and values.dtype == object)):
        return None
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1 or len(arr) < 2:
        return None
    try:
        change = np.asarray(arr[1:] != arr[:-1], dtype=bool)
    except (TypeError, ValueError):
        return None
    heads = _run_starts(change)
    if len(heads) > len(arr) // 4:
        return None
    first = arr[heads]
    if not all(type(q) is str for q in first.tolist()):  # a str equals only a str of that text
        return None
    # pandas' hash table in C, in order of first appearance (1 M heads: 0.19 s against 0.56 s
    # for a dict filled from Python)
    head_codes, uniques = pd.factorize(first)
    return _over_runs(head_codes, heads, len(arr)), np.asarray(uniques, dtype=object)


def integer_codes(values: Any, name: str = "query_ids") -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and uniques (as :func:`factorize_ids`: the text of each id, in order of first
    appearance) of integer ids (:func:`_integers`; ``name`` the parameter that gave them),
    factorised as integers and only the distinct ones written as text (10 M rows of 10,000
    queries in a list, 2026-11-27: 0.8-0.9 s, against 1.7-2.0 s for all their text written by
    Arrow and factorised). None when the ids are not integers."""
    integers = _integers(values, name)
    if integers is None or not len(integers):
        return None
    heads = _run_starts(integers[1:] != integers[:-1])  # grouped: one id per run hashed
    head_codes, uniques = pd.factorize(integers[heads])
    text = whole(_integer_strings(uniques)).to_numpy(zero_copy_only=False)  # Arrow's text
    return _over_runs(head_codes, heads, len(integers)), np.asarray(text, dtype=object)


def _dictionary_query_codes(values: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and uniques (as :func:`factorize_ids`) of query ids given dictionary-encoded: a
    pyarrow dictionary array of strings (in chunks or not, as the TREC reader parses a query
    column) or a pandas Categorical of str categories. The chunks' dictionaries are unified
    and the codes renumbered in order of first appearance; no id is compared row by row.
    None when ``values`` are not such, or their dictionary names one id twice."""
    if isinstance(values, pd.Series):
        values = values.array
    if isinstance(values, pd.Categorical):
        if not all(type(c) is str for c in values.categories):
            return None
        values = pa.array(values)
    if isinstance(values, pa.Array):
        values = pa.chunked_array([values])
    if not (isinstance(values, pa.ChunkedArray) and pa.types.is_dictionary(values.type)
            and (pa.types.is_string(values.type.value_type)
                 or pa.types.is_large_string(values.type.value_type))):
        return None
    if values.null_count:
        raise ValueError("query_ids must not contain missing values")
    if not len(values):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
    unified = values.unify_dictionaries()
    dictionary = unified.chunk(0).dictionary
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in unified.chunks],
                           dtype=np.int64)
    # the dictionary's entries in order of first appearance, hashed from the first row of each
    # run of equal codes (a table for every row of a 10 M-row run is 0.1-0.3 s, fresh memory)
    heads = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    seen = pd.unique(np.concatenate([codes[:1], codes[heads]]))
    uniques = np.asarray(dictionary.take(pa.array(seen)).to_pylist(), dtype=object)
    if any(u is None for u in uniques.tolist()):
        raise ValueError("query_ids must not contain missing values")
    if len(set(uniques.tolist())) != len(uniques):
        return None
    if is_identity(seen, len(seen)):  # each chunk's ids in order of first appearance
        return codes, uniques
    rank = np.zeros(len(dictionary), dtype=np.int64)
    rank[seen] = np.arange(len(seen))
    return rank[codes], uniques


def _grouped(q_codes: np.ndarray, n_queries: int) -> np.ndarray | None:
    """A stable order grouping rows by query code, or None if they are grouped already."""
    if len(q_codes) < 2 or (q_codes[1:] >= q_codes[:-1]).all():
        return None
    return code_order(q_codes, n_queries)


def query_blocks(q_codes: np.ndarray) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` row ranges of consecutive blocks of whole queries, rows grouped by
    ascending query code."""
    if not len(q_codes):
        return iter(())
    bounds = blocks(np.bincount(q_codes))
    return itertools.pairwise(np.searchsorted(q_codes, bounds).tolist())


def _has_duplicate_pairs(q_codes: np.ndarray, docs: pa.Array | pa.ChunkedArray) -> bool:
    """Whether a (query, document) pair occurs twice, rows grouped by query: the documents are
    encoded a block of queries at a time; only the rows whose document occurs more than once
    in the block (none, when all are distinct) have their (query, document) pairs compared.
    (Encoding is hashed once: most blocks of a large run repeat a document across queries,
    so a cheaper count of distinct documents first would mostly be followed by encoding.)"""
    for a, b in query_blocks(q_codes):
        encoded = pc.dictionary_encode(rows_of(docs, a, b))
        n_local = len(encoded.dictionary)
        if n_local == b - a:
            continue
        local = encoded.indices.to_numpy(zero_copy_only=False)
        repeated = np.flatnonzero(np.bincount(local, minlength=n_local)[local] > 1)
        keys = q_codes[a + repeated] * n_local + local[repeated]
        keys.sort()
        if (keys[1:] == keys[:-1]).any():
            return True
    return False


def duplicate_pair(error: BaseException) -> tuple[str, str, int] | None:
    """The (query, document, count) of a pair listed more than once, when ``error`` is the
    constructors' ValueError for it under ``duplicates="error"`` (None for any other error):
    for a caller whose rows are not the user's (a Dask partition's) to say it in its own
    terms. The error stays a plain ValueError for everyone else.

    Examples
    --------
    >>> from fuzzytruth import Run
    >>> try:
    ...     Run(["q", "q"], ["d", "d"], [1.0, 2.0])
    ... except ValueError as error:
    ...     duplicate_pair(error)
    ('q', 'd', 2)
    """
    return getattr(error, "_fuzzytruth_duplicate_pair", None)


class PairTable(ReadOnlyArrays):
    """Shared storage of Run and Qrels: (query, doc, value) rows, factorised by query.

    Attributes read by the package: ``_docs`` (document id of each row, a pandas Arrow string
    array, maybe in chunks: :meth:`_doc_array` gives one array), ``_values``, ``_q_codes``
    (query code of each row), ``_q_uniques`` (the query ids, in order of first appearance) and
    ``_group_order`` (a stable order grouping the rows by query, None when they are grouped
    already).
    """

    _value_name = "value"
    _finite_values = False
    _duplicate_hint = "pass duplicates='max', 'first' or 'last' to keep one"

    def __init__(
        self,
        query_ids: Any,
        doc_ids: Any,
        values: Any,
        *,
        duplicates: str,
        source: str | None,
        line_numbers: ArrayLike | None,
    ) -> None:
        check_choice("duplicates", duplicates, DUPLICATES)
        same_rows({"query_ids": query_ids, "doc_ids": doc_ids, self._value_name: values})
        self._source = source  # the file read, for messages about its values
        grouped = (integer_codes(query_ids) or _object_query_codes(query_ids)
                   or _dictionary_query_codes(query_ids))
        queries = (as_ids(query_ids, "query_ids", in_blocks=False) if grouped is None
                   else grouped[0])
        docs = as_ids(doc_ids, "doc_ids")
        vals = _as_values(values, self._value_name, finite=self._finite_values)
        if not len(queries) == len(docs) == len(vals):
            raise ValueError(
                f"query_ids, doc_ids and {self._value_name} must have the same length; got "
                f"{len(queries)}, {len(docs)} and {len(vals)}"
            )
        # the query ids in their chunks: factorize_ids joins only the first id of each run
        q_codes, q_uniques = grouped or factorize_ids(queries.__arrow_array__())
        self._store(q_codes, q_uniques, docs, vals)
        if self._group_order is not None:
            grouped_docs = self._doc_array().take(pa.array(self._group_order))
            grouped_codes = q_codes[self._group_order]
        else:
            grouped_docs, grouped_codes = arrow_strings(docs), q_codes
        if _has_duplicate_pairs(grouped_codes, grouped_docs):
            d_codes, d_uniques = pd.factorize(self._docs)
            keys = q_codes * max(len(d_uniques), 1) + d_codes.astype(np.int64)
            dup = pd.Series(keys).duplicated(keep=False).to_numpy()
            keep = self._resolve_duplicates(
                keys, vals, dup, duplicates, q_uniques[q_codes], self._docs, source,
                line_numbers
            )
            self._store(q_codes[keep], q_uniques, self._docs[keep], vals[keep])

    def _store(
        self, q_codes: np.ndarray, q_uniques: np.ndarray, docs: Any, values: np.ndarray
    ) -> None:
        self._docs = docs
        self._values = values
        self._q_codes = q_codes
        self._q_uniques = q_uniques
        self._group_order = _grouped(q_codes, len(q_uniques))

    def _doc_rows(self, rows: np.ndarray) -> pa.Array:
        """The document ids of ``rows`` (distinct, in that order) as one array: sliced from
        their chunks when the table is grouped by query (``rows`` then whole queries,
        :func:`take_stretches`), else taken from the ids joined once (:meth:`_doc_array`)."""
        sliced = (take_stretches(arrow_strings(self._docs), rows)
                  if self._group_order is None else None)
        return self._doc_array().take(pa.array(rows)) if sliced is None else sliced

    def _doc_array(self) -> pa.Array:
        """The document ids as one Arrow array, for a take in any order: a column in chunks
        is joined once (a copy), and kept instead of the chunks."""
        docs = arrow_strings(self._docs)
        if isinstance(docs, pa.ChunkedArray):
            docs = docs.combine_chunks()
            self._docs = pd.array(docs, dtype="str")
        return docs

    @classmethod
    def _from_nested(cls, nested: Mapping[Any, Mapping[Any, Any]], what: str, **kwargs: Any) -> Any:
        """A table from ``{query: {document: value}}`` (pytrec_eval's input, called ``what`` in
        messages); string keys of a mapping are distinct, so the rows need no duplicate check."""
        q_codes, q_uniques, docs, values, strings = flatten_nested(
            nested, what, cls._value_name
        )
        if what == "run" and len(q_uniques) < len(nested):
            empty = [q for q, d in nested.items() if not d]
            shown = ", ".join(map(repr, empty[:5])) + (f", … ({len(empty)})" if len(empty) > 5
                                                       else "")
            warn(
                f"run queries with no documents are left out: {shown} (pytrec_eval "
                "scores such a query 0 and counts it in the mean; evaluate(..., complete=True) "
                "scores every judged query, an unanswered one as an empty list)",
                UserWarning,
            )
        try:
            checked = _as_values(values, cls._value_name, finite=cls._finite_values)
        except ValueError:  # its row numbers mean nothing in a mapping: the keys do
            row = _refused_value(values, cls._finite_values)
            if row is None:
                raise
            finite = "finite " if cls._finite_values else ""
            inner = (d.values() for d in nested.values())  # the value as given, not as read
            given = next(itertools.islice(itertools.chain.from_iterable(inner), row, None))
            raise ValueError(
                f"{cls._value_name} must be {finite}numbers, without NaN or missing values; "
                f"{what}[{q_uniques[q_codes[row]]!r}][{docs[row]!r}] is {given!r}"
            ) from None
        if not strings:
            return cls(q_uniques[q_codes], docs, checked, **kwargs)
        table = cls.__new__(cls)
        table._store(q_codes, q_uniques, docs, checked)
        return table

    def _resolve_duplicates(
        self,
        keys: np.ndarray,
        vals: np.ndarray,
        dup: np.ndarray,
        duplicates: str,
        queries: Any,
        docs: Any,
        source: str | None,
        line_numbers: ArrayLike | None,
    ) -> np.ndarray:
        rows = np.flatnonzero(dup)
        if duplicates == "error":
            first_key = keys[rows[0]]
            same = rows[keys[rows] == first_key]
            where = (
                f"lines {', '.join(str(int(line_numbers[i])) for i in same)}"
                if line_numbers is not None
                else f"rows {', '.join(str(int(i)) for i in same)}"
            )
            # from a file: "<file>, line <second listing>: ..." like every reader's message
            origin = (
                "" if not source
                else f"{source}: " if line_numbers is None
                else f"{source}, line {int(line_numbers[same[1]])}: "
            )
            error = ValueError(
                f"{origin}document {docs[rows[0]]!r} is listed {len(same)} times for query "
                f"{queries[rows[0]]!r} ({where}); {self._duplicate_hint}"
            )
            error._fuzzytruth_duplicate_pair = (  # type: ignore[attr-defined]
                str(queries[rows[0]]), str(docs[rows[0]]), len(same))
            raise error
        keep = np.ones(len(keys), dtype=bool)
        keep[rows] = False
        if duplicates == "first":
            order = rows[np.argsort(keys[rows], kind="stable")]
        elif duplicates == "last":
            order = rows[::-1][np.argsort(keys[rows][::-1], kind="stable")]
        else:  # "max": highest value, earliest row among equal values
            order = rows[np.lexsort((rows, -vals[rows], keys[rows]))]
        k = keys[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = k[1:] != k[:-1]
        keep[order[first]] = True
        return keep

    def __len__(self) -> int:
        return len(self._values)

    @functools.cached_property
    def _query_ranges(self) -> tuple[pd.Index, np.ndarray]:
        """The query ids as an Index (its hash table made once) and where each query's rows
        start once grouped by query (through ``_group_order``): what a block of queries reads
        to find its own rows without a pass over every row (made on first use, not pickled;
        blocks of 100,000 ragged queries each hashed every query id and sorted every pair)."""
        start = np.zeros(len(self._q_uniques) + 1, dtype=np.int64)
        np.cumsum(np.bincount(self._q_codes, minlength=len(self._q_uniques)), out=start[1:])
        return pd.Index(self._q_uniques), start

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.pop("_query_ranges", None)
        return state

    @property
    def _queries(self) -> np.ndarray:
        """Query id of each row (object array of str), built on demand."""
        return self._q_uniques[self._q_codes]

    @property
    def query_ids(self) -> np.ndarray:
        """Query id of each row (object array of str)."""
        return self._queries

    @property
    def doc_ids(self) -> np.ndarray:
        """Document id of each row (object array of str)."""
        return np.asarray(self._docs, dtype=object)

    @property
    def queries(self) -> list[str]:
        """Distinct query ids, sorted."""
        return sorted(str(q) for q in self._q_uniques)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self._q_uniques)} queries, {len(self)} rows)"


def flatten_nested(
    nested: Mapping[Any, Mapping[Any, Any]], name: str, value_name: str
) -> tuple[np.ndarray, np.ndarray, Any, Any, bool]:
    """Query codes, query ids, document ids, values and whether the ids were all strings, of
    a ``{query: {document: value}}`` mapping (pytrec_eval's input), in its order. String keys
    of one inner mapping are distinct; other keys become strings with ``str``, which may make
    two of them equal. The values are a float64 array when they are all numbers, else a list
    for :func:`_as_values` to say what is wrong; complex numbers, dates and durations, which
    the cast to float would silently turn into numbers, are refused naming ``value_name``
    (their types are read in one pass in C, :func:`~fuzzytruth._validation.check_real_types`).
    """
    if not isinstance(nested, Mapping):
        raise ValueError(
            f"{name} must be a mapping {{query_id: {{doc_id: value}}}}; got "
            f"{type(nested).__name__}"
        )
    inner = list(nested.values())
    for query, docs in zip(nested, inner, strict=True):
        if not isinstance(docs, Mapping):
            how = ""
            if isinstance(docs, list | tuple | set | frozenset) and name == "qrels":
                how = (": a collection of relevant documents is {doc_id: 1}, "
                       "Qrels.from_dict({q: dict.fromkeys(docs, 1) for q, docs in "
                       "qrels.items()})")
            elif isinstance(docs, list | tuple) and name == "run":
                how = (": a ranked list gives each document its negated rank as score, "
                       "Run.from_dict({q: {d: -rank for rank, d in enumerate(docs)} for q, docs "
                       "in run.items()})")
            raise ValueError(
                f"{name}[{query!r}] must be a mapping {{doc_id: value}}; got "
                f"{type(docs).__name__}{how}"
            )
    lengths = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    keys = [q for q, n in zip(nested, lengths.tolist(), strict=True) if n]  # with rows only
    q_uniques = np.empty(len(keys), dtype=object)
    q_uniques[:] = [id_text(q, f"{name}'s query ids") for q in keys]
    lengths = lengths[lengths > 0]
    q_codes = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    n = len(q_codes)
    try:  # every document id a str: converted in one C pass, without a list of them
        docs = _strings(itertools.chain.from_iterable(inner), n)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        docs = None
    if docs is None or docs.null_count:  # str() of each, or the error for a missing id
        docs = _to_arrow(list(itertools.chain.from_iterable(inner)), "doc_ids")
        strings = False
    else:
        strings = all(isinstance(q, str) for q in keys)
    def values_of() -> Iterator[Any]:
        return itertools.chain.from_iterable(d.values() for d in inner)

    values: Any = _plain_numbers(values_of(), n)
    if values is None:  # not all plain numbers: their types checked, then read one by one
        check_real_types(set(map(type, values_of())), value_name)
        try:  # numbers: no list of them
            values = np.fromiter(values_of(), dtype=np.float64, count=n)
            values.flags.writeable = False  # made here: held without a copy (detached)
        except (TypeError, ValueError):  # anything else: _as_values says what is wrong
            values = list(values_of())
    return q_codes, q_uniques, pd.array(docs, dtype="str"), values, strings


def _refused_value(values: Any, finite: bool) -> int | None:
    """The first row of ``values`` (a float64 array or a list, as :func:`flatten_nested` gives
    them) that is not one real number, or is NaN, or infinite when ``finite``; None if none
    is (the values were refused as a whole). Read one by one only on this error path."""
    if isinstance(values, np.ndarray):
        bad = np.isnan(values) | (np.isinf(values) if finite else False)
        return int(bad.argmax()) if bad.any() else None
    for row, value in enumerate(values):
        try:
            number = np.float64(value)
        except (TypeError, ValueError):
            return row
        if np.ndim(number) or np.isnan(number) or (finite and np.isinf(number)):
            return row
    return None


def _plain_numbers(values: Iterator[Any], n: int) -> np.ndarray | None:
    """``n`` values as a read-only float64 array when every one is a float, a bool or an int
    that float64 holds exactly (Python's or NumPy's), else None: pyarrow's conversion, one
    pass in C that refuses text, complex numbers, dates, durations, decimals, None and ints
    beyond 2**53 (10 M floats from nested dicts: 0.40-0.43 s, against 0.67-0.71 s for reading
    their types and then casting them, 2026-11-26)."""
    try:
        out = pa.array(values, type=pa.float64(), size=n)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if out.null_count or len(out) != n:
        return None
    return out.to_numpy(zero_copy_only=True)  # a view of Arrow's buffer: read-only


def check_columns(df: pd.DataFrame, columns: Mapping[str, str], nested: str = "") -> None:
    """The columns that parameters name (``{"score_col": "score"}``) are in ``df``, which may
    have no rows (:func:`fuzzytruth._validation.check_columns`; a missing one that the table
    holds under another tool's name, PyTerrier's ``qid``, is offered; ``nested`` is the
    caller's reader of a nested mapping given instead of a table).

    Examples
    --------
    >>> pyterrier = pd.DataFrame({"qid": ["1"], "docno": ["d1"], "label": [1]})
    >>> check_columns(pyterrier, {"query_col": "query_id", "doc_col": "doc_id",
    ...                           "relevance_col": "relevance"})
    Traceback (most recent call last):
    ...
    ValueError: query_col='query_id' is not a column of the DataFrame df; columns are ['qid',
    'docno', 'label']: pass query_col='qid', doc_col='docno', relevance_col='label'
    """
    check_frame_columns(df, "df", columns, rows=False, nested=nested)
