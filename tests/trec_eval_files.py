"""trec_eval's own test files (tests/data/trec_eval, see its README): paths and a reader of the
expected outputs."""

from pathlib import Path

DATA = Path(__file__).parent / "data" / "trec_eval"


def input_file(name):
    """An input file of trec_eval's tests (kept gzip-compressed here; the readers decompress
    by content)."""
    return DATA / f"{name}.gz"


def expected_lines(name):
    """``{(measure, query): value text}`` of an expected output file, in file order."""
    out = {}
    for line in (DATA / name).read_text().splitlines():
        measure, query, value = line.split()
        out[measure, query] = value
    return out


def printed(value, integer=False):
    """A value as trec_eval prints it: ``%ld`` for counts, ``%6.4f`` otherwise."""
    return str(int(value)) if integer else f"{value:6.4f}".strip()
