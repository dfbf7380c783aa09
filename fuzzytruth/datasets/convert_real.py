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
import pyarrow as pa
import pyarrow.compute as pc

from fuzzytruth.datasets._commands import make_folder
from fuzzytruth.io.numpy_files import npy_header
from fuzzytruth.io.text import file_path, first_line, shown

__all__ = ["ANSWERS", "read_real_npz", "write_real_tables"]

#: The three answers of ReaL's raters, in the order of the published tensors' last axis.
ANSWERS = ("no", "maybe", "yes")
#: Table name -> (source file, whose answers), in the order they are written.
TABLES = {
    "votes": "raters.npz",
    "expert_votes": "golden.npz",
    "golden_votes": "raters_golden.npz",
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


def _rater_slabs(archive: zipfile.ZipFile, path: str, n_raters: int,
                 n_questions: int) -> Iterator[np.ndarray]:
    """The ``(N, 3)`` answers of each rater of ``tensor``, read one rater at a time; its shape
    must be ``(n_raters, n_questions, 3)`` (the lengths of ``ids`` and ``info``)."""
    with archive.open(_member(archive, "tensor", path)) as handle:
        shape, fortran, dtype = npy_header(handle)
        if shape != (n_raters, n_questions, len(ANSWERS)) or fortran or dtype.hasobject:
            raise ValueError(
                f"{path}: 'tensor' must be a C-ordered array of numbers of shape (raters, "
                f"questions, 3) = ({n_raters}, {n_questions}, 3), the lengths of 'ids' and "
                f"'info'; got shape {shape}, dtype {dtype}"
            )
        size = shape[1] * shape[2] * dtype.itemsize
        for _ in range(shape[0]):
            data = handle.read(size)
            if len(data) < size:
                raise ValueError(f"{path}: 'tensor' holds fewer values than its shape {shape}")
            yield np.frombuffer(data, dtype=dtype).reshape(shape[1], shape[2])


def _votes(archive: zipfile.ZipFile, path: str, questions: np.ndarray) -> pd.DataFrame:
    """Long table ``question_id, rater_id, answer`` of one published file, whose questions
    (the rows of its ``info``) have the ids ``questions``."""
    ids = _read_small(archive, "ids", path)
    if ids.ndim != 1 or len(np.unique(ids)) != len(ids):
        raise ValueError(f"{path}: 'ids' must list each rater once; got {shown(ids.tolist())}")
    parts = []
    for rater, slab in zip(ids, _rater_slabs(archive, path, len(ids), len(questions)),
                           strict=True):
        odd = (slab != 0) & (slab != 1)
        if odd.any():
            raise ValueError(
                f"{path}: rater {rater} has an answer that is neither 0 nor 1 (found "
                f"{slab[odd][0].item()!r}); 'tensor' is one-hot"
            )
        answered = slab.sum(axis=1)
        if np.any(answered > 1):
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


def _info(archive: zipfile.ZipFile, path: str) -> pd.DataFrame:
    """``image, class_id`` of each question of ``info``: pairs (file name, class index), each
    asked once."""
    info = _read_small(archive, "info", path)
    expected = (f"'info' must hold (file name, class index 0-999) pairs such as "
                f"({_PREFIX}00000001.JPEG, 5)")
    if info.ndim != 2 or info.shape[1] != 2:
        raise ValueError(f"{path}: {expected}; got shape {info.shape}")
    names, classes = pa.array(info[:, 0].astype(str)), pa.array(info[:, 1].astype(str))
    ok = pc.and_(pc.match_substring_regex(names, rf"^{_PREFIX}[0-9]{{8}}\.JPEG$"),
                 pc.match_substring_regex(classes, r"^[0-9]{1,3}$"))
    bad = np.flatnonzero(~ok.to_numpy(zero_copy_only=False))
    if bad.size:
        raise ValueError(f"{path}: {expected}; got {shown(tuple(info[bad[0]].tolist()))}")
    image = pc.utf8_slice_codeunits(names, len(_PREFIX), len(_PREFIX) + 8)
    frame = pd.DataFrame({
        "image": pc.cast(image, pa.int32()).to_numpy(),
        "class_id": pc.cast(classes, pa.int16()).to_numpy(),
    })
    again = frame.duplicated().to_numpy()
    if again.any():
        image, class_id = frame.iloc[int(again.argmax())].tolist()
        raise ValueError(f"{path}: 'info' asks about class {class_id} of image {image} twice")
    return frame


def _open(path: Path) -> zipfile.ZipFile:
    """The ``.npz`` file ``path`` as a zip archive, or a ValueError naming it."""
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise ValueError(f"{path}: not a readable .npz file ({first_line(err)})") from None


def read_real_npz(folder: str | os.PathLike) -> dict[str, pd.DataFrame]:
    """Read ``raters.npz``, ``golden.npz`` and ``raters_golden.npz`` from ``folder``.

    Each file's questions are found through its own ``info``: those of ``golden.npz`` and
    ``raters_golden.npz`` must be questions of ``raters.npz``, in any order.

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
    folder = Path(file_path(folder, "folder", kind="folder"))
    missing = [name for name in TABLES.values() if not (folder / name).is_file()]
    if missing:
        raise ValueError(
            f"{folder}: missing {missing}; expected the raw vote files of "
            "google-research/reassessed-imagenet (raters.npz, golden.npz, raters_golden.npz)"
        )
    with _open(folder / "raters.npz") as archive:
        questions = _info(archive, str(folder / "raters.npz"))
    key = pd.MultiIndex.from_frame(questions)
    questions.insert(0, "question_id", np.arange(len(questions), dtype=np.int32))
    questions["golden"] = False
    tables = {"questions": questions}
    for table, name in TABLES.items():  # golden.npz before raters_golden.npz
        path = str(folder / name)
        with _open(folder / name) as archive:
            position = (np.arange(len(questions)) if name == "raters.npz" else
                        key.get_indexer(pd.MultiIndex.from_frame(_info(archive, path))))
            if (position < 0).any():
                raise ValueError(
                    f"{path}: {int((position < 0).sum())} question(s) of 'info' are not "
                    "questions of raters.npz"
                )
            if name == "golden.npz":
                questions.loc[position, "golden"] = True
            elif name == "raters_golden.npz" and not questions["golden"].to_numpy()[position].all():
                raise ValueError(f"{path}: 'info' holds questions that golden.npz does not")
            tables[table] = _votes(archive, path, position)
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
