"""Convert ImageNet ReaL's raw rater votes (published ``.npz`` files) into compact tables.

Source: https://github.com/google-research/reassessed-imagenet (Apache-2.0), the data of
L. Beyer, O. J. Hénaff, A. Kolesnikov, X. Zhai, A. van den Oord (2020), "Are we done with
ImageNet?", arXiv:2006.07159. Its README describes the three files read here:

``raters.npz``
    ``tensor``: ``(R, N, 3)`` 0/1, a 1 where rater ``R`` answered question ``N`` with
    no / maybe / yes; ``info``: ``(N, 2)`` pairs ``(file name, ImageNet class index)``, the
    question "does this class fit this validation image?"; ``ids``: the ``R`` rater ids.
``golden.npz``
    The same for the 5 expert raters (the paper's authors) on the golden questions.
``raters_golden.npz``
    Every rater's answers to those golden questions (rater ids as in ``raters.npz``).

The conversion writes four Parquet tables (zstd-compressed, integer columns), 3.2 MB in all
for the whole data set (924,810 votes by 85 raters on 184,962 questions, every question
answered by 5 raters; 1,135 golden questions answered by 5 experts and 78 raters):

``real_questions.parquet``
    ``question_id`` (position in ``raters.npz``), ``image`` (the number in
    ``ILSVRC2012_val_<image>.JPEG``), ``class_id`` (ImageNet class index 0–999), ``golden``
    (True for the golden questions);
``real_votes.parquet``, ``real_golden_votes.parquet``, ``real_expert_votes.parquet``
    ``question_id``, ``rater_id``, ``answer`` (0 no, 1 maybe, 2 yes).

Run it on a clone of the repository (it never downloads anything)::

    python -m fuzzytruth.datasets.convert_real path/to/reassessed-imagenet --out DIR

The bundled copy in ``fuzzytruth/datasets/data/`` was written by this command from commit
``bcd006f`` of the repository. The ``.npz`` arrays are read one rater at a time from the zip
archive, so the conversion needs a few MB besides the output, not the 377 MB of the dense
``raters.npz`` tensor.
"""

from __future__ import annotations

import argparse
import os
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fuzzytruth.datasets._commands import make_folder
from fuzzytruth.io.numpy_files import npy_header

__all__ = ["ANSWERS", "read_real_npz", "write_real_tables"]

#: The three answers of ReaL's raters, in the order of the published tensors' last axis.
ANSWERS = ("no", "maybe", "yes")
#: Table name -> (source file, whose answers), in the order they are written.
TABLES = {
    "votes": "raters.npz",
    "golden_votes": "raters_golden.npz",
    "expert_votes": "golden.npz",
}
_PREFIX = "ILSVRC2012_val_"


def _member(archive: zipfile.ZipFile, name: str, path: str) -> str:
    members = {Path(m).stem: m for m in archive.namelist()}
    if name not in members:
        raise ValueError(
            f"{path}: expected an array named {name!r} (a ReaL .npz file has 'tensor', 'info' "
            f"and 'ids'); found {sorted(members)}"
        )
    return members[name]


def _read_small(archive: zipfile.ZipFile, name: str, path: str) -> np.ndarray:
    with archive.open(_member(archive, name, path)) as handle:
        return np.lib.format.read_array(handle, allow_pickle=False)


def _rater_slabs(archive: zipfile.ZipFile, path: str) -> Iterator[np.ndarray]:
    """The ``(N, 3)`` answers of each rater of ``tensor``, read one rater at a time."""
    with archive.open(_member(archive, "tensor", path)) as handle:
        shape, fortran, dtype = npy_header(handle)
        if len(shape) != 3 or shape[2] != len(ANSWERS) or fortran:
            raise ValueError(
                f"{path}: 'tensor' must be a C-ordered (raters, questions, 3) array; got shape "
                f"{shape}"
            )
        size = shape[1] * shape[2] * dtype.itemsize
        for _ in range(shape[0]):
            yield np.frombuffer(handle.read(size), dtype=dtype).reshape(shape[1], shape[2])


def _votes(path: str, questions: np.ndarray) -> pd.DataFrame:
    """Long table ``question_id, rater_id, answer`` of one published file."""
    with zipfile.ZipFile(path) as archive:
        ids = _read_small(archive, "ids", path)
        parts = []
        for rater, slab in zip(ids, _rater_slabs(archive, path), strict=True):
            answered = slab.sum(axis=1)
            if np.any((answered != 0) & (answered != 1)):
                raise ValueError(
                    f"{path}: rater {rater} has a question with {int(answered.max())} answers; "
                    "each question has at most one of no/maybe/yes"
                )
            rows = np.flatnonzero(answered == 1)
            parts.append(
                pd.DataFrame(
                    {
                        "question_id": questions[rows].astype(np.int32),
                        "rater_id": np.full(len(rows), rater, dtype=np.int16),
                        "answer": slab[rows].argmax(axis=1).astype(np.int8),
                    }
                )
            )
    votes = pd.concat(parts, ignore_index=True)
    return votes.sort_values(["question_id", "rater_id"], ignore_index=True)


def _info(path: str) -> pd.DataFrame:
    with zipfile.ZipFile(path) as archive:
        info = _read_small(archive, "info", path)
    names = pd.Series(info[:, 0])
    if not names.str.startswith(_PREFIX).all():
        bad = names[~names.str.startswith(_PREFIX)].iloc[0]
        raise ValueError(
            f"{path}: 'info' file names must look like {_PREFIX}00000001.JPEG; got {bad!r}"
        )
    return pd.DataFrame(
        {
            "image": names.str.slice(len(_PREFIX), len(_PREFIX) + 8).astype(np.int32),
            "class_id": pd.Series(info[:, 1]).astype(np.int16),
        }
    )


def read_real_npz(folder: str | os.PathLike) -> dict[str, pd.DataFrame]:
    """Read ``raters.npz``, ``golden.npz`` and ``raters_golden.npz`` from ``folder``.

    Parameters
    ----------
    folder : str or path-like
        A clone (or download) of google-research/reassessed-imagenet.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``questions``, ``votes``, ``golden_votes``, ``expert_votes`` (see the module
        docstring).

    Raises
    ------
    ValueError
        Naming the file, for a missing file or an array that is not in the published format.
    """
    folder = Path(folder)
    missing = [name for name in TABLES.values() if not (folder / name).is_file()]
    if missing:
        raise ValueError(
            f"{folder}: missing {missing}; expected the raw vote files of "
            "google-research/reassessed-imagenet (raters.npz, golden.npz, raters_golden.npz)"
        )
    questions = _info(str(folder / "raters.npz"))
    golden = _info(str(folder / "golden.npz"))
    key = pd.MultiIndex.from_frame(questions)
    position = key.get_indexer(pd.MultiIndex.from_frame(golden))
    if (position < 0).any():
        raise ValueError(
            f"{folder / 'golden.npz'}: {int((position < 0).sum())} golden question(s) are not "
            "questions of raters.npz"
        )
    questions.insert(0, "question_id", np.arange(len(questions), dtype=np.int32))
    questions["golden"] = np.isin(questions["question_id"], position)
    tables = {"questions": questions}
    for table, name in TABLES.items():
        ids = np.arange(len(questions)) if name == "raters.npz" else position
        tables[table] = _votes(str(folder / name), ids)
    return tables


def write_real_tables(tables: dict[str, pd.DataFrame], out_dir: str | os.PathLike) -> list[Path]:
    """Write the tables of :func:`read_real_npz` as ``real_<name>.parquet`` into ``out_dir``
    (an existing directory); returns the paths written."""
    out = Path(out_dir)
    if not out.is_dir():
        raise ValueError(f"out_dir must be an existing directory; got {str(out_dir)!r}")
    paths = []
    for name, frame in tables.items():
        path = out / f"real_{name}.parquet"
        frame.to_parquet(path, index=False, compression="zstd", compression_level=19)
        paths.append(path)
    return paths


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``python -m fuzzytruth.datasets.convert_real SOURCE --out DIR``."""
    parser = argparse.ArgumentParser(
        prog="python -m fuzzytruth.datasets.convert_real",
        description="Convert ImageNet ReaL's raters.npz, golden.npz and raters_golden.npz "
        "into Parquet tables.",
    )
    parser.add_argument("source", type=Path, help="folder holding the three .npz files")
    parser.add_argument(
        "--out", type=Path, required=True, help="output folder, created if missing"
    )
    args = parser.parse_args(argv)
    make_folder(parser, args.out)
    for path in write_real_tables(read_real_npz(args.source), args.out):
        print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
