"""Loaders for public multi-annotator collections, read from files the user downloaded.

Nothing is downloaded at run time and nothing here is bundled: CIFAR-10H is licensed CC
BY-NC-SA 4.0, which the package's BSD licence cannot carry. Each loader reads the files in
their published format (compressed or not; see :mod:`fuzzytruth.io.text`).

* CIFAR-10H (Peterson, Battleday, Griffiths, Russakovsky 2019, "Human uncertainty makes
  classification more robust", ICCV; github.com/jcpeterson/cifar-10h):
  :func:`read_cifar10h_counts` reads ``cifar10h-counts.npy`` (10,000 × 10 label counts),
  :func:`read_cifar10h_raw` reads ``cifar10h-raw.csv`` (or the ``cifar10h-raw.zip`` holding
  it), one row per trial of 2,571 annotators (200 images and 10 attention checks each, by
  its README); the counts file holds 511,000 labels. Both come with
  :func:`cifar10h_taxonomy`, the ten classes under ``animal`` and ``vehicle``.
* Crowdsourced relevance judgments, one row per worker judgment, such as the Figure Eight
  reports of the NYT topical-relevance crowd data (Inel et al. 2018, "Studying topical
  relevance with evidence-based crowdsourcing", CIKM; github.com/CrowdTruth/
  NYT-Crowdsourcing-Topical-Relevance): :func:`read_crowd_relevance` gives the probabilistic
  qrels (share of workers who judged the document relevant) and the raw judgments as
  annotations for the agreement analyses.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fuzzytruth._validation import plain, real_array
from fuzzytruth.annotations import Annotations
from fuzzytruth.io.delimited import delimiter_of, finite_numbers, format_of, read_delimited
from fuzzytruth.io.numpy_files import npy_array
from fuzzytruth.io.text import file_error, file_path, read_bytes, shown
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels

__all__ = [
    "CIFAR10H",
    "CIFAR10_CLASSES",
    "CrowdRelevance",
    "cifar10h_taxonomy",
    "read_cifar10h_counts",
    "read_cifar10h_raw",
    "read_crowd_relevance",
]

#: CIFAR-10's classes in label order (0 airplane … 9 truck), as in CIFAR-10H's README.
CIFAR10_CLASSES = (
    "airplane",
    "automobile",
    "bird",
    "cat",
    "deer",
    "dog",
    "frog",
    "horse",
    "ship",
    "truck",
)
_ANIMALS = ("bird", "cat", "deer", "dog", "frog", "horse")
_VEHICLES = ("airplane", "automobile", "ship", "truck")
#: The number of images of the CIFAR-10 test set, which CIFAR-10H labels.
CIFAR10_TEST_SIZE = 10_000
#: The image-index column: the README calls it cifar10_test_set_idx, the file has the other.
_INDEX_COLUMNS = ("cifar10_test_test_idx", "cifar10_test_set_idx")


def cifar10h_taxonomy() -> Taxonomy:
    """The ten CIFAR-10 classes under ``animal`` and ``vehicle`` (root ``image``).

    Examples
    --------
    >>> tax = cifar10h_taxonomy()
    >>> tax.parents("cat"), tax.children("vehicle")
    (('animal',), ('airplane', 'automobile', 'ship', 'truck'))
    """
    return Taxonomy.from_nested({"image": {"animal": list(_ANIMALS), "vehicle": list(_VEHICLES)}})


@dataclass(frozen=True, eq=False)
class CIFAR10H:
    """CIFAR-10H labels bound to :func:`cifar10h_taxonomy`.

    Attributes
    ----------
    taxonomy : Taxonomy
    annotations : Annotations
        ``item_id``: the image's index in the CIFAR-10 test set (int); ``label``: a class.
        From the counts file, ``annotator_id`` is a position ``1 … n`` within the image (the
        counts do not say who labelled what): fine for κ, α and category reliability,
        meaningless for annotator diagnostics, which need :func:`read_cifar10h_raw`.
    counts : pandas.DataFrame
        Images × classes label counts (index ``item_id``, columns :data:`CIFAR10_CLASSES`).
    source : str
        The file read.
    attention_checks : pandas.DataFrame or None
        From the raw file only: per annotator, ``annotator_id, n_checks, check_accuracy``, the
        share of attention-check trials answered with the true class (a quality signal known
        independently of the other annotators, like ImageNet ReaL's golden accuracy).
    """

    taxonomy: Taxonomy
    annotations: Annotations
    counts: pd.DataFrame
    source: str
    attention_checks: pd.DataFrame | None = None

    def __repr__(self) -> str:
        return (
            f"CIFAR10H({len(self.annotations.to_frame())} labels, {self.annotations.n_items} "
            f"images, {self.annotations.n_annotators} annotators; from {self.source})"
        )


def _annotations_from_counts(counts: np.ndarray, taxonomy: Taxonomy) -> Annotations:
    per_item = counts.sum(axis=1)
    item = np.repeat(np.arange(counts.shape[0]), per_item)
    label = np.repeat(np.tile(np.arange(counts.shape[1]), counts.shape[0]), counts.ravel())
    starts = np.repeat(np.cumsum(per_item) - per_item, per_item)
    position = np.arange(len(item)) - starts + 1
    frame = pd.DataFrame(
        {
            "item_id": item,
            "annotator_id": position,
            "label": np.asarray(CIFAR10_CLASSES, dtype=object)[label],
        }
    )
    return Annotations.from_frame(frame, taxonomy=taxonomy)


CIFAR10H_SOURCE = "https://github.com/jcpeterson/cifar-10h"
"""Where CIFAR-10H is published (its ``data/`` folder holds the files the readers take)."""


def _cifar10h_file(path: str | os.PathLike, file_name: str) -> str:
    """``path`` as a string, or a FileNotFoundError saying where to download the file."""
    name = file_path(path)
    if not os.path.isfile(name):
        raise FileNotFoundError(
            f"{name}: no such file. CIFAR-10H (Peterson et al., ICCV 2019; CC BY-NC-SA 4.0, "
            f"so not bundled) is published at {CIFAR10H_SOURCE}: download "
            f"data/{file_name} from it and pass that file's path"
        )
    return name


def read_cifar10h_counts(path: str | os.PathLike) -> CIFAR10H:
    """Read ``cifar10h-counts.npy``: an images × 10 matrix of label counts (about 50 per
    image), classes in CIFAR-10 order.

    Raises
    ------
    FileNotFoundError
        When ``path`` is not a file, saying where to download ``cifar10h-counts.npy``.
    ValueError
        Naming the file, when it is not a ``.npy`` array of shape ``(n, 10)`` holding
        non-negative whole real numbers, not all 0.

    Examples
    --------
    >>> read_cifar10h_counts("missing/cifar10h-counts.npy")
    Traceback (most recent call last):
    ...
    FileNotFoundError: missing/cifar10h-counts.npy: no such file. CIFAR-10H (Peterson et al., ICCV 2019; CC BY-NC-SA 4.0, so not bundled) is published at https://github.com/jcpeterson/cifar-10h: download data/cifar10h-counts.npy from it and pass that file's path
    """  # noqa: E501
    name = _cifar10h_file(path, "cifar10h-counts.npy")
    counts = npy_array(name, read_bytes(name))
    if counts.ndim != 2 or counts.shape[1] != len(CIFAR10_CLASSES):
        raise ValueError(
            f"{name}: expected an (images, 10) array of label counts; got shape {counts.shape}"
        )
    counts = real_array(counts, f"{name}: label counts")
    if not np.all((counts >= 0) & (counts < 2.0**63) & (counts == np.round(counts))):
        raise ValueError(f"{name}: label counts must be non-negative whole numbers")
    if not counts.any():
        raise ValueError(f"{name}: no label counts (the array is empty or all 0)")
    counts = counts.astype(np.int64)
    taxonomy = cifar10h_taxonomy()
    return CIFAR10H(
        taxonomy=taxonomy,
        annotations=_annotations_from_counts(counts, taxonomy),
        counts=pd.DataFrame(counts, columns=list(CIFAR10_CLASSES)).rename_axis("item_id"),
        source=name,
    )


def _whole_numbers(frame: pd.DataFrame, column: str, name: str) -> np.ndarray:
    """Column ``column`` of a frame from :func:`read_delimited` as int64, or a ValueError
    naming file ``name`` and the line of the first value that is not a whole number."""
    values = finite_numbers(frame, column, name)
    bad = np.flatnonzero((values != np.round(values)) | (np.abs(values) >= 2.0**63))
    if bad.size:
        raise file_error(
            name, f"column {column!r} must hold whole numbers; got "
            f"{shown(frame[column].iloc[bad[0]])}", int(frame.attrs["lines"][bad[0]])
        )
    return values.astype(np.int64)


def _one_judgment_each(table: pd.DataFrame, lines: np.ndarray, name: str, what: str) -> None:
    """A ValueError naming file ``name`` and the line (``lines``: each row's) of the first row
    of ``table`` whose ``item_id`` (a ``what``) and ``annotator_id`` repeat an earlier row's:
    Annotations would refuse it without the line, suggesting an option the loaders lack."""
    again = table.duplicated(["item_id", "annotator_id"]).to_numpy()
    if again.any():
        i = int(again.argmax())
        item, annotator = table[["item_id", "annotator_id"]].iloc[i].tolist()
        first = int(((table["item_id"] == item) & (table["annotator_id"] == annotator)).argmax())
        raise file_error(
            name, f"annotator {shown(annotator)} judged {what} {shown(item)} a second time "
            f"(first on line {int(lines[first])})", int(lines[i])
        )


def read_cifar10h_raw(path: str | os.PathLike, *, encoding: str = "utf-8") -> CIFAR10H:
    """Read ``cifar10h-raw.csv`` (or ``cifar10h-raw.zip``): one row per annotator trial.

    Uses the columns ``annotator_id``, ``is_attn_check``, ``true_category``,
    ``chosen_category`` and the image index ``cifar10_test_test_idx`` (named
    ``cifar10_test_set_idx`` in the README; either is accepted); the others are ignored. The
    attention-check trials (image index -99999) are not CIFAR-10 test images: they are left
    out of the annotations and summarised per annotator in ``attention_checks``; every other
    trial's image index is a whole number from 0 to 9,999.

    Parameters
    ----------
    path : str or path-like
        The CSV, compressed or in its zip archive.
    encoding : str, default "utf-8"
        Encoding of a file without a byte-order mark.

    Returns
    -------
    CIFAR10H
        Annotations with the real annotator ids.

    Raises
    ------
    FileNotFoundError
        When ``path`` is not a file, saying where to download ``cifar10h-raw.zip``.
    ValueError
        Naming the file and the line, for a missing column or a value the reader cannot use.
    """
    name = _cifar10h_file(path, "cifar10h-raw.zip")
    for index in _INDEX_COLUMNS:
        needed = ["annotator_id", "is_attn_check", "true_category", "chosen_category", index]
        try:
            frame = read_delimited(
                path, delimiter=",", required=needed, encoding=encoding, only_required=True
            )
            break
        except ValueError as err:
            if index == _INDEX_COLUMNS[-1] or f"missing ['{index}']" not in str(err):
                raise
    lines = frame.attrs["lines"]
    odd = np.flatnonzero(~frame["is_attn_check"].isin(["0", "1"]).to_numpy())
    if odd.size:
        raise file_error(
            name, f"column 'is_attn_check' must hold 0 or 1; got "
            f"{shown(frame['is_attn_check'].iloc[odd[0]])}", int(lines[odd[0]])
        )
    image = _whole_numbers(frame, index, name)
    annotator = _whole_numbers(frame, "annotator_id", name)
    check = frame["is_attn_check"].to_numpy() == "1"
    bad = np.flatnonzero(((image < 0) | (image >= CIFAR10_TEST_SIZE)) & ~check)
    if bad.size:
        raise ValueError(
            f"{name}, line {int(lines[bad[0]])}: column {index!r} must hold an image index "
            f"0 to {CIFAR10_TEST_SIZE - 1} (-99999 for attention checks); got "
            f"{plain(frame[index].iloc[bad[0]])!r}"
        )
    keep = ~check
    # the true category is used only on the attention checks, to score them
    for column, used in (("chosen_category", True), ("true_category", check)):
        unknown = np.flatnonzero(used & ~frame[column].isin(CIFAR10_CLASSES).to_numpy())
        if unknown.size:
            raise ValueError(
                f"{name}, line {int(lines[unknown[0]])}: {column} must be one of "
                f"{CIFAR10_CLASSES}; got {plain(frame[column].iloc[unknown[0]])!r}"
            )
    taxonomy = cifar10h_taxonomy()
    table = pd.DataFrame(
        {
            "item_id": image[keep],
            "annotator_id": annotator[keep],
            "label": frame["chosen_category"].to_numpy()[keep],
        }
    )
    if table.empty:
        raise file_error(name, "no trial outside the attention checks")
    _one_judgment_each(table, lines[keep], name, "image")
    annotations = Annotations.from_frame(table, taxonomy=taxonomy)
    counts = (
        pd.crosstab(table["item_id"], table["label"])
        .reindex(columns=list(CIFAR10_CLASSES), fill_value=0)
        .rename_axis(index="item_id", columns=None)
    )
    checks = (
        pd.DataFrame(
            {
                "annotator_id": annotator[check],
                "correct": frame["chosen_category"].to_numpy()[check]
                == frame["true_category"].to_numpy()[check],
            }
        )
        .groupby("annotator_id")["correct"]
        .agg(n_checks="size", check_accuracy="mean")
        .reset_index()
    )
    return CIFAR10H(
        taxonomy=taxonomy,
        annotations=annotations,
        counts=counts,
        source=name,
        attention_checks=checks,
    )


@dataclass(frozen=True, eq=False)
class CrowdRelevance:
    """Crowdsourced relevance judgments.

    Attributes
    ----------
    qrels : ProbabilisticQrels
        Per judged (query, document): the share of its workers who judged it relevant.
    annotations : Annotations
        The raw judgments, ``item_id`` = ``"<query>/<document>"``, labels the judgment
        values over a flat taxonomy; for :func:`~fuzzytruth.collection.agreement` and the
        worker diagnostics.
    source : str
    """

    qrels: ProbabilisticQrels
    annotations: Annotations
    source: str

    def __repr__(self) -> str:
        frame = self.annotations.to_frame()
        return (
            f"CrowdRelevance({len(frame)} judgments of {self.annotations.n_items} "
            f"query-document pairs by {self.annotations.n_annotators} workers; from "
            f"{self.source})"
        )


def _distinct_items(pairs: pd.DataFrame, lines: np.ndarray, name: str) -> None:
    """A ValueError naming file ``name`` and the line (``lines``: each row's) of the first
    (query, document) pair of ``pairs`` (columns query, document, item) whose item id
    ``"<query>/<document>"`` an earlier, different pair has too (a ``/`` in an id): the
    annotations would merge the two pairs' judgments into one item."""
    first = pairs.drop_duplicates()
    clash = first["item"].duplicated().to_numpy()
    if clash.any():
        i = int(clash.argmax())
        again = first.iloc[i].tolist()
        earlier = first[first["item"] == again[2]].iloc[0].tolist()
        raise file_error(
            name, f"query {shown(again[0])} with document {shown(again[1])} has the item id "
            f"{shown(again[2])} of query {shown(earlier[0])} with document "
            f"{shown(earlier[1])} (a '/' in an id)", int(lines[first.index[i]])
        )


def read_crowd_relevance(
    path: str | os.PathLike,
    *,
    query: str = "topic",
    doc: str = "document_id",
    worker: str = "_worker_id",
    judgment: str = "relevance",
    relevant: Sequence[str] = ("relevant", "highly_relevant"),
    encoding: str = "utf-8",
) -> CrowdRelevance:
    """Read a table with one row per worker judgment into probabilistic qrels.

    The defaults are the column names of a Figure Eight (CrowdFlower) full report, as
    published with the NYT topical-relevance crowd data; pass other names for other exports.
    Quoted values may span lines (such reports hold whole documents). A worker who judged a
    pair twice is an error naming both lines, and so are two pairs with the same item id
    ``"<query>/<document>"`` (``a/b, c`` and ``a, b/c``).

    Parameters
    ----------
    path : str or path-like
        CSV (``.tsv``: tab-separated), compressed or not (``.tsv.bz2`` is tab-separated too).
    query, doc, worker, judgment : str
        Column names.
    relevant : sequence of str
        The judgment values that mean relevant; every other value means not relevant.
    encoding : str, default "utf-8"
        Encoding of a file without a byte-order mark.

    Returns
    -------
    CrowdRelevance

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "judgments.csv"
    >>> _ = path.write_text(
    ...     "_worker_id,topic,document_id,relevance\\nw1,325,d1,relevant\\n"
    ...     "w2,325,d1,not_relevant\\nw3,325,d1,relevant\\nw1,325,d2,not_relevant\\n")
    >>> crowd = read_crowd_relevance(path)
    >>> crowd.qrels.to_dataframe()[["query_id", "doc_id", "probability"]].round(3)
      query_id doc_id  probability
    0      325     d1        0.667
    1      325     d2        0.000
    """
    name = file_path(path)
    relevant = [relevant] if isinstance(relevant, str) else list(relevant)
    try:
        fmt = format_of(path, None, ("csv", "tsv"))
    except ValueError:  # any other name is read as CSV
        fmt = "csv"
    frame = read_delimited(
        path,
        delimiter=delimiter_of(fmt),
        required=[query, doc, worker, judgment],
        encoding=encoding,
        only_required=True,
    )
    values = pd.unique(frame[judgment])
    if not set(relevant) & set(values):
        raise ValueError(
            f"{name}: none of the judgments is one of relevant={relevant}; column "
            f"{judgment!r} holds {sorted(values)[:10]}"
        )
    is_relevant = frame[judgment].isin(relevant).to_numpy(dtype=float)
    shares = (
        pd.DataFrame({"query_id": frame[query], "doc_id": frame[doc], "share": is_relevant})
        .groupby(["query_id", "doc_id"], sort=True)["share"]
        .mean()
        .reset_index()
    )
    item = frame[query].astype(str) + "/" + frame[doc].astype(str)
    _distinct_items(frame[[query, doc]].assign(item=item), frame.attrs["lines"], name)
    table = pd.DataFrame({"item_id": item, "annotator_id": frame[worker], "label": frame[judgment]})
    _one_judgment_each(table, frame.attrs["lines"], name, "query-document pair")
    try:
        annotations = Annotations.from_frame(table, taxonomy=Taxonomy.flat(sorted(values)))
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None
    return CrowdRelevance(
        qrels=ProbabilisticQrels(shares["query_id"], shares["doc_id"], shares["share"]),
        annotations=annotations,
        source=name,
    )
