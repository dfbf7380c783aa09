"""Parquet tables (annotations, rankings, predictions): read with every error naming the file,
written atomically.

A Parquet file may also be compressed as a whole (``labels.parquet.gz``): it goes through
:func:`fuzzytruth.io.text.read_bytes` first. Before decoding, the size its footer declares
(the row groups' uncompressed bytes, at least 8 bytes a value) is checked against the same cap
as a compressed text file (``max_decompressed_bytes``). A corrupt file (truncated, a broken
footer, pages that do not decode, strings that are not UTF-8) is one ValueError on one line
naming the file; a missing or empty value names its 1-based row.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from fuzzytruth.io.output import open_output
from fuzzytruth.io.text import (
    RAISE_THE_CAP,
    MaxBytes,
    decompression_limit,
    file_error,
    first_line,
    read_bytes,
    shown,
)

__all__ = ["read_parquet_columns", "read_parquet_frame", "write_parquet"]

#: What pyarrow raises, besides a ValueError, on a file that does not decode as Parquet: a
#: flipped byte can break the footer, a page or the pandas metadata (``KeyError:
#: 'index_columns'`` from ``to_pandas``).
_NOT_PARQUET = (pa.ArrowException, OSError, KeyError, IndexError, TypeError)


def read_parquet_frame(name: str, max_decompressed_bytes: MaxBytes) -> pd.DataFrame:
    """A whole Parquet file as a frame with its own column types (predictions), through the
    same cap and errors as :func:`read_parquet_columns`."""
    table = _read_table(name, None, max_decompressed_bytes)
    try:
        return table.to_pandas()
    except (*_NOT_PARQUET, ValueError) as err:  # the pandas metadata is the file's too
        raise _not_parquet(name, err) from None


def read_parquet_columns(
    name: str, columns: list[str], max_decompressed_bytes: MaxBytes
) -> pd.DataFrame:
    """The ``columns`` of a Parquet file (compressed as a whole or not) as string columns;
    errors name the file (and the 1-based row)."""
    return _columns_as_strings(name, _read_table(name, columns, max_decompressed_bytes), columns)


def _read_table(name: str, columns: list[str] | None, max_decompressed_bytes: MaxBytes
                ) -> pa.Table:
    """The ``columns`` (None: all) of a Parquet file, after the decompression cap on the size
    its footer declares; any failure is one ValueError naming the file."""
    import pyarrow.parquet as pq

    data = read_bytes(name, max_decompressed_bytes=max_decompressed_bytes)
    try:
        parquet = pq.ParquetFile(pa.BufferReader(data))
        meta = parquet.metadata
        limit = decompression_limit(max_decompressed_bytes, len(data))
        decoded = max(
            sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)),
            8 * meta.num_rows * max(meta.num_columns, 1),
        )
        if limit is not None and decoded > limit:
            raise file_error(
                name,
                f"this Parquet file decodes to about {decoded:,} bytes, more than "
                f"{limit:,}; {RAISE_THE_CAP}",
            )
        found = parquet.schema_arrow.names
        missing = [c for c in columns or () if c not in found]
        if missing:
            raise file_error(name, f"missing column(s) {missing}; found {shown(found, 300)}")
        table = parquet.read(columns=columns, use_pandas_metadata=False)
        _check_columns(name, table)
        return table
    except ValueError as err:  # pyarrow.ArrowInvalid and ours
        if str(err).startswith(name):
            raise
        raise _not_parquet(name, err) from None
    except _NOT_PARQUET as err:
        raise _not_parquet(name, err) from None


def _check_columns(name: str, table: pa.Table) -> None:
    """Every column of ``table`` validated in full: the Parquet reader does not check that
    text is UTF-8, and a flipped byte in a string page was read and failed later, outside the
    readers' handlers, as pyarrow's 'Wrapping ... failed' (7 ms for 2 M strings)."""
    for column, values in zip(table.column_names, table.columns, strict=True):
        try:
            values.validate(full=True)
        except pa.ArrowInvalid as err:
            kind = values.type.value_type if pa.types.is_dictionary(values.type) else values.type
            text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
            raise file_error(
                name, f"column {column!r} holds bytes that are not valid UTF-8 text" if text
                else f"column {column!r} is not valid ({first_line(err)})"
            ) from None


def _not_parquet(name: str, err: BaseException) -> ValueError:
    """The one error for a file ``name`` that does not decode as Parquet."""
    return file_error(name, f"not a readable Parquet file ({first_line(err)})")


def _columns_as_strings(name: str, table: pa.Table, columns: list[str]) -> pd.DataFrame:
    """The ``columns`` of ``table`` as text (integers cast), each value present and not empty,
    the 1-based row of the first that is not."""
    out = {}
    for column in columns:
        values = table.column(column)
        kind = values.type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
                or pa.types.is_integer(kind)):
            raise file_error(
                name, f"column {column!r} must hold text or integers; it holds {kind}"
            )
        values = pc.cast(values, pa.string())  # its text was validated as it was read
        empty = pc.or_kleene(values.is_null(), pc.equal(values, ""))
        rows = np.flatnonzero(empty.to_numpy(zero_copy_only=False))
        if rows.size:
            what = "a missing" if values[int(rows[0])].as_py() is None else "an empty"
            raise file_error(name, f"{what} value in column {column!r}, row {int(rows[0]) + 1}")
        out[column] = pd.array(values, dtype="str")
    frame = pd.DataFrame(out)
    frame.attrs["lines"] = np.arange(1, len(frame) + 1)
    frame.attrs["unit"] = "row"
    return frame


def write_parquet(
    frame: pd.DataFrame, path: str | os.PathLike, *, numbers: tuple[str, ...] = ()
) -> None:
    """Write ``frame`` as Parquet, atomically (compressed as a whole when the name asks for
    it): the ``numbers`` columns as they are, the others as text, of which an empty value (which
    :func:`read_parquet_columns` refuses) is a ValueError naming the column."""
    import pyarrow.parquet as pq

    text = frame.astype({c: str for c in frame.columns if c not in numbers})
    for column in text.columns.difference(list(numbers)):
        if (text[column] == "").any():
            raise ValueError(f"an empty {column} would not read back from a Parquet file")
    table = pa.Table.from_pandas(text, preserve_index=False)
    with open_output(path, binary=True) as handle:
        pq.write_table(table, handle)
