"""Dissimilarity and similarity matrices with labels, evaluated as runs: the shape-benchmark
(PSB, SHREC) and image-text retrieval (VSE++/SCAN) front doors, thin views over
:func:`~fuzzytruth.evaluation.evaluate`.

A matrix with labels becomes a :class:`~fuzzytruth.runs.Run` and a
:class:`~fuzzytruth.truth.qrels.Qrels`: query ``i`` is row ``i``, document ``j`` column ``j``
(ids are the indices written with the same number of digits, so that id order is index order),
the score is the similarity (the negated dissimilarity), and the cells whose labels agree are
relevant (grade 1). It is ranked and evaluated by the one path every run takes, under the
community's preset of :mod:`fuzzytruth.measures.conventions` (its tie rule and its conventions):

* :func:`rank_by_dissimilarity` and :func:`shape_summary` -- the ``psbTable`` row (NN, FT, ST,
  E, DCG) under the ``psb`` preset, averaged by :func:`average_over_queries` (micro or macro,
  classes filtered by size);
* :func:`image_text_retrieval` and :func:`retrieval_ranks` -- R@K, medr, meanr, rsum and mR in
  both directions under the ``crossmodal`` preset (``R@K`` is ``Success@K``, the ranks come
  from ``FirstRelRank``), with the MS-COCO k-fold protocol.

Tie rules (``ties``)
--------------------
The vocabulary of :func:`fuzzytruth.runs.rank`, plus two bounds that need the relevance:

``"docid_asc"``
    lower column index first (``psbTable``; VSE++'s stable index order): the ``psb`` preset's.
``"input_order"``
    the same here (each query's cells are given in column order): the ``shrec2006`` preset's.
``"docid_desc"``
    higher column index first (trec_eval's order of document ids).
``"average"``
    the expectation over all orders of the tied items: the ``crossmodal`` preset's.
``"optimistic"``, ``"pessimistic"``
    relevant items before / after the irrelevant ones they tie with (then by column index): the
    best and worst any order of the ties can give. Each query's cells are given in that order
    and ranked with ``"input_order"``.

The first spellings of these front doors are accepted for one release, with a
:class:`DeprecationWarning` naming the new one: ``"index_ascending"`` and ``"stable_index"``
mean ``"docid_asc"``, ``"expected"`` means ``"average"``.

See ``shared/reference/metric-conventions.md`` sections A (PSB) and C (cross-modal).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._pairs import _to_arrow
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows
from fuzzytruth._validation import check_choice, check_flag, real_array
from fuzzytruth._warnings import warn
from fuzzytruth.evaluation.engine import evaluate
from fuzzytruth.measures import get_preset
from fuzzytruth.measures.conventions import CROSSMODAL_CONVENTIONS
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.metrics.crossmodal import MEDR_CONVENTIONS, _check_ks, summary_from_hits
from fuzzytruth.metrics.shape import TIER_STYLES, _check_positive_int, _ratio
from fuzzytruth.runs import TIES, Run, TiedScoresWarning
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.qrels import Qrels, ranked_gains

__all__ = [
    "MATRIX_TIES",
    "ShapeRanking",
    "average_over_queries",
    "image_text_retrieval",
    "rank_by_dissimilarity",
    "retrieval_ranks",
    "shape_summary",
]

BOUNDS = ("optimistic", "pessimistic")
MATRIX_TIES = (*TIES, *BOUNDS)
"""The tie rules of the matrix views: :data:`fuzzytruth.runs.TIES` and the two bounds."""
_FIRST_SPELLINGS = {
    "index_ascending": "docid_asc",
    "stable_index": "docid_asc",
    "expected": "average",
}
AVERAGING = ("micro", "macro")
DIRECTIONS = ("i2t", "t2i")
_BYTES_PER_CELL = 32
"""Temporaries per matrix cell of a block of query rows (the cell's score, masks, indices)."""


def _spelling(ties: str | None) -> str | None:
    """``ties`` in :data:`MATRIX_TIES`' vocabulary: a first spelling is mapped with a
    DeprecationWarning. Called by the front doors themselves, so the warning points at their
    caller."""
    new = _FIRST_SPELLINGS.get(ties) if isinstance(ties, str) else None
    if new is None:
        return ties
    warn(
        f"ties={ties!r} is deprecated and kept for one release: use ties={new!r}",
        DeprecationWarning,
    )
    return new


def _tie_rule(ties: str | None, preset: str) -> tuple[str, str | None]:
    """The :func:`~fuzzytruth.runs.rank` rule and the bound (or None) that ``ties`` names;
    None means the preset's rule."""
    if ties is None:
        return get_preset(preset).ties, None
    check_choice("ties", ties, MATRIX_TIES)
    return ("input_order", ties) if ties in BOUNDS else (ties, None)


def _label_text(labels: Any, name: str) -> np.ndarray:
    """The text of each class label (an object array of str): labels are compared as text,
    as ids are across the library, so ``7`` and ``"7"`` are one class whether they come in a
    list (which numpy makes strings) or an object array (which keeps both types, and whose
    mixed types NumPy cannot sort); a missing label is refused, naming ``name``."""
    return np.asarray(_to_arrow(labels, name).to_numpy(zero_copy_only=False), dtype=object)


def _ids(prefix: str, n: int) -> Any:
    """``n`` ids ``prefix`` + index, zero-padded so that their order is the indices' order."""
    width = len(str(max(n - 1, 0)))
    return pd.array([f"{prefix}{i:0{width}d}" for i in range(n)], dtype="str")


@contextlib.contextmanager
def _ties_asked() -> Iterator[None]:
    """Ranking a matrix's cells, whose ties go by the ``ties`` asked for: the warning for a run
    whose every query has one score (its order written in a rank column) does not apply."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiedScoresWarning)
        yield


def _pairs(
    ids: Any,
    query: np.ndarray,
    item: np.ndarray,
    scores: np.ndarray,
    relevant: np.ndarray,
    bound: str | None,
) -> Run:
    """The run of the cells (``query``, ``item``), grouped by query in item order, or for a
    bound with each query's relevant items first (optimistic) or last (pessimistic)."""
    if bound is not None:
        order = np.lexsort((item, relevant if bound == "pessimistic" else ~relevant, query))
        query, item, scores = query[order], item[order], scores[order]
    return Run(ids.take(query), ids.take(item), scores, name="matrix")


# ---------------------------------------------------------------------------------------------
# shape benchmarks: dissimilarity matrices with class labels


@dataclass(frozen=True, eq=False)
class ShapeRanking:
    """A dissimilarity matrix with class labels as ranked data, and the run it was ranked from.

    Attributes
    ----------
    ranked : RankedGains
        0/1 relevance of the ranked targets of each query, rows in query order (with tie
        groups under ``ties="average"``); ``ranked.ideal`` holds ``K`` ones per query.
    query_labels : numpy.ndarray
        ``(n_queries,)`` class label of each query.
    class_sizes : numpy.ndarray
        ``(n_queries,)`` size ``|C|`` of the query's class: in the whole collection (the query
        included) when the queries are in the collection, else the number of targets of the
        class. This is the size that ``min_class_size`` is compared with.
    run : Run
        One row per ranked (query, target) cell, scored by the negated dissimilarity.
    qrels : Qrels
        The cells whose classes agree (grade 1); a query without any gets one judged
        irrelevant cell, so that it is evaluated (and undefined).
    ties : str
        The :func:`fuzzytruth.runs.rank` rule the run is ranked with.
    """

    ranked: RankedGains
    query_labels: np.ndarray
    class_sizes: np.ndarray
    run: Run
    qrels: Qrels
    ties: str


def rank_by_dissimilarity(
    dissimilarity: np.ndarray,
    labels: Sequence | np.ndarray,
    *,
    target_labels: Sequence | np.ndarray | None = None,
    ties: str | None = None,
) -> ShapeRanking:
    """Rank all targets of every query by ascending dissimilarity, as :func:`evaluate` does.

    Parameters
    ----------
    dissimilarity : array_like
        ``(n_queries, n_targets)`` dissimilarities (smaller is more similar); no NaN.
    labels : array_like
        ``(n_queries,)`` class of each query; classes are compared as text, as ids are
        (``7`` and ``"7"`` are one class), and none may be missing.
    target_labels : array_like, optional
        ``(n_targets,)`` class of each target. ``None`` (default) means the queries *are* the
        collection (PSB): the matrix must be square, query ``i`` is target ``i``, it is left
        out of its own list (``n - 1`` ranked items) and ``K = |C| - 1``. Otherwise the queries
        are outside the target set (SHREC sketch/image-based tracks): every target is ranked
        and ``K`` is the number of targets of the query's class.
    ties : str, optional
        Order of targets with equal dissimilarity (module docs): ``None`` (default) is the
        ``psb`` preset's ``"docid_asc"``, lower target index first (``psbTable``);
        ``"optimistic"``/``"pessimistic"``: relevant targets first/last within a tie, then by
        index; ``"average"``: index order, plus the tie groups in ``ranked.tie_start`` /
        ``tie_stop``, so that the kernels return expectations over uniformly random orders of
        each tie.

    Returns
    -------
    ShapeRanking
        Ranked relevance, query labels, class sizes, and the run and qrels behind them.

    Examples
    --------
    Four shapes in two classes; shape 0 is nearest to 2, then 1, then 3:

    >>> d = np.array([[0, 2, 1, 3], [2, 0, 3, 1], [1, 3, 0, 2], [3, 1, 2, 0]])
    >>> r = rank_by_dissimilarity(d, ["a", "b", "a", "b"])
    >>> r.ranked.gains
    array([[1., 0., 0.],
           [1., 0., 0.],
           [1., 0., 0.],
           [1., 0., 0.]])
    >>> r.class_sizes.tolist(), r.ties
    ([2, 2, 2, 2], 'docid_asc')
    """
    rule, bound = _tie_rule(_spelling(ties), "psb")
    d = real_array(dissimilarity, "dissimilarity")
    if d.ndim != 2:
        raise ValueError(f"dissimilarity must be a 2-D array; got shape {d.shape}")
    if np.isnan(d).any():
        raise ValueError("dissimilarity must not contain NaN")
    query_text = _label_text(labels, "labels")  # before numpy makes None or NaN a string
    query_labels = np.asarray(labels)
    if query_labels.shape != (d.shape[0],):
        raise ValueError(
            f"labels must have shape ({d.shape[0]},), one per row of dissimilarity; "
            f"got {query_labels.shape}"
        )
    in_collection = target_labels is None
    if in_collection:
        if d.shape[0] != d.shape[1]:
            raise ValueError(
                "dissimilarity must be square when target_labels is None (queries are the "
                f"collection); got shape {d.shape}"
            )
        if d.shape[0] < 2:
            raise ValueError(
                "dissimilarity must hold at least 2 items when target_labels is None (a query "
                f"is not ranked against itself); got shape {d.shape}"
            )
        targets = query_labels
    else:
        target_text = _label_text(target_labels, "target_labels")
        targets = np.asarray(target_labels)
        if targets.shape != (d.shape[1],):
            raise ValueError(
                f"target_labels must have shape ({d.shape[1]},), one per column of "
                f"dissimilarity; got {targets.shape}"
            )
        if 0 in d.shape:
            raise ValueError(f"dissimilarity must not be empty; got shape {d.shape}")
    n_q, n_t = d.shape
    relevant = query_text[:, None] == (query_text if in_collection else target_text)[None, :]
    ranked_cell = ~np.eye(n_q, dtype=bool) if in_collection else np.ones((n_q, n_t), dtype=bool)
    query, target = np.nonzero(ranked_cell)  # query by query, in target order
    cell_relevant = relevant[query, target]
    n_rel = np.bincount(query, weights=cell_relevant, minlength=n_q).astype(np.int64)

    ids = _ids("", max(n_q, n_t))
    run = _pairs(ids, query, target, -d[query, target], cell_relevant, bound)
    # the relevant cells; one judged irrelevant cell for a query without any (first target)
    first = np.concatenate([[0], np.cumsum(np.bincount(query, minlength=n_q))[:-1]])
    judged = cell_relevant.copy()
    judged[first[n_rel == 0]] = True
    qrels = Qrels(ids.take(query[judged]), ids.take(target[judged]), cell_relevant[judged])
    with _ties_asked():
        ranked = ranked_gains(run, qrels, ties=rule, score_dtype=get_preset("psb").score_dtype,
                              queries="run")
    class_sizes = n_rel + 1 if in_collection else n_rel
    return ShapeRanking(ranked, query_labels, class_sizes, run, qrels, rule)


def average_over_queries(
    values: np.ndarray,
    query_labels: Sequence | np.ndarray,
    *,
    class_sizes: Sequence[int] | np.ndarray | None = None,
    averaging: str = "micro",
    min_class_size: int = 1,
    exclude_classes: Sequence = (),
) -> np.ndarray | float:
    """Average per-query values over queries (micro) or over classes (macro), as ``psbTable``.

    Parameters
    ----------
    values : array_like
        ``(n_queries,)`` or ``(n_queries, m)`` per-query values. NaN entries (a query without
        relevant items, or skipped at a precision-recall level) are left out of the means.
    query_labels : array_like
        ``(n_queries,)`` class of each query (compared as text, as ``exclude_classes``).
    class_sizes : array_like, optional
        ``(n_queries,)`` size of each query's class (:attr:`ShapeRanking.class_sizes`);
        required when ``min_class_size > 1``.
    averaging : {"micro", "macro"}, default "micro"
        ``"micro"``: mean over queries. ``"macro"``: mean over classes of the per-class means.
    min_class_size : int, default 1
        Queries of classes smaller than this are left out (the PSB uses 3: ``psbTable``
        drops classes with ``|C| <= 2``).
    exclude_classes : sequence, default ()
        Classes left out entirely (the PSB's miscellaneous class).

    Returns
    -------
    float or numpy.ndarray
        A float for 1-D ``values``, else an ``(m,)`` array. A mean over nothing is 0
        (``psbPlot``'s rule for a recall level at which every query is skipped).

    Examples
    --------
    >>> v = np.array([1.0, 0.0, 0.5, 1.0])
    >>> average_over_queries(v, ["a", "a", "a", "b"])
    0.625
    >>> average_over_queries(v, ["a", "a", "a", "b"], averaging="macro")
    0.75
    >>> average_over_queries(v, ["a", "a", "a", "b"], class_sizes=[3, 3, 3, 1], min_class_size=3)
    0.5
    """
    check_choice("averaging", averaging, AVERAGING)
    vals = np.asarray(values, dtype=np.float64)
    if vals.ndim not in (1, 2):
        raise ValueError(f"values must be 1-D or 2-D; got shape {vals.shape}")
    text = _label_text(query_labels, "query_labels")  # classes compared as text, as ids are
    n_q = vals.shape[0]
    if text.shape != (n_q,):
        raise ValueError(f"query_labels must have shape ({n_q},); got {text.shape}")
    keep = _kept_queries(text, class_sizes, min_class_size, exclude_classes)
    v2 = vals.reshape(n_q, -1)[keep]
    present = ~np.isnan(v2)
    filled = np.where(present, v2, 0.0)
    if averaging == "micro":
        out = _ratio(filled.sum(axis=0), present.sum(axis=0))
    else:
        _, cls = np.unique(text[keep], return_inverse=True)
        onehot = np.zeros((int(cls.max(initial=-1)) + 1, v2.shape[0]))
        onehot[cls, np.arange(v2.shape[0])] = 1.0
        counts = onehot @ present
        class_means = _ratio(onehot @ filled, counts)
        has = counts > 0
        out = _ratio(np.where(has, class_means, 0.0).sum(axis=0), has.sum(axis=0))
    return float(out[0]) if vals.ndim == 1 else out


def _kept_queries(text: np.ndarray, class_sizes: Sequence[int] | np.ndarray | None,
                  min_class_size: int, exclude_classes: Sequence) -> np.ndarray:
    """The queries :func:`average_over_queries` averages: of a class neither excluded nor
    smaller than ``min_class_size``. An excluded class no query has is named in a warning
    (a misspelt class would leave its queries in without a word)."""
    n_q = len(text)
    excluded = _label_text(list(exclude_classes), "exclude_classes")
    unknown = np.setdiff1d(excluded, text)
    if len(unknown):
        warn(f"exclude_classes names classes no query has: {_show(unknown.tolist())}",
             UserWarning)
    keep = ~np.isin(text, excluded)
    _check_positive_int("min_class_size", min_class_size)
    if min_class_size > 1:
        if class_sizes is None:
            raise ValueError("class_sizes is required when min_class_size > 1")
        sizes = np.asarray(class_sizes)
        if sizes.shape != (n_q,):
            raise ValueError(f"class_sizes must have shape ({n_q},); got {sizes.shape}")
        keep &= sizes >= min_class_size
    return keep


def shape_summary(
    ranking: ShapeRanking,
    *,
    averaging: str = "micro",
    min_class_size: int | None = None,
    exclude_classes: Sequence = (),
    tier_style: str | None = None,
    e_k: int = 32,
    preset: str = "psb",
) -> dict[str, float]:
    """The ``psbTable`` row: mean NN, first tier, second tier, E-measure and DCG.

    The ranking's run and qrels are evaluated by :func:`evaluate` under ``preset`` (with the
    ranking's tie rule) as ``NN``, ``FT``, ``ST``, ``E_psb@e_k`` and ``nDCG`` (the PSB DCG
    under ``psb``), queries without relevant items left out (``undefined="skip"``), and the
    per-query values averaged by :func:`average_over_queries`, with the preset's class-size
    rule (its ``min_relevant``, as :func:`evaluate` applies it: ``psb`` leaves out the
    queries with fewer than 2 relevant targets, i.e. classes of fewer than 3 models, as
    ``psbTable``) or ``min_class_size``'s.

    Parameters
    ----------
    ranking : ShapeRanking
        Output of :func:`rank_by_dissimilarity`.
    averaging : {"micro", "macro"}, default "micro"
        See :func:`average_over_queries`.
    min_class_size : int, optional
        Queries whose class (:attr:`ShapeRanking.class_sizes`) is smaller are left out; the
        default, None, is the preset's rule (``psb``: 3 for queries in the collection;
        ``shrec2006``: none).
    exclude_classes : sequence, default ()
        Classes left out.
    tier_style : {"recall", "precision"}, optional
        See :func:`~fuzzytruth.metrics.shape.first_tier`; default the preset's (``psb``:
        ``"recall"``, ``shrec2006``: ``"precision"``).
    e_k : int, default 32
        E-measure cut-off.
    preset : str, default "psb"
        The conventions the measures are computed under.

    Returns
    -------
    dict
        Keys ``"NN"``, ``"FT"``, ``"ST"``, ``"E"``, ``"DCG"`` (fractions, not percentages).

    Examples
    --------
    Two classes of two models, which ``psbTable`` (and so the default) would leave out:

    >>> d = np.array([[0, 2, 1, 3], [2, 0, 3, 1], [1, 3, 0, 2], [3, 1, 2, 0]])
    >>> shape_summary(rank_by_dissimilarity(d, ["a", "b", "a", "b"]), min_class_size=1)
    {'NN': 1.0, 'FT': 1.0, 'ST': 1.0, 'E': 0.5, 'DCG': 1.0}
    """
    if tier_style is not None:
        check_choice("tier_style", tier_style, TIER_STYLES)
    _check_positive_int("e_k", e_k)
    style = "" if tier_style is None else f"(tier_style={tier_style})"
    names = {"NN": "NN", "FT": f"FT{style}", "ST": f"ST{style}", "E": f"E_psb@{e_k}",
             "DCG": "nDCG"}
    conventions = get_preset(preset)
    rule = (f"a class of at least min_class_size={min_class_size} models"
            if min_class_size is not None else
            f"at least {max(conventions.min_relevant, 1)} relevant targets (the "
            f"{conventions.name} preset's rule, psbTable's; min_class_size=1 keeps every class)")
    if min_class_size is None:  # the preset's rule, on the relevant targets of each query
        sizes, min_class_size = ranking.ranked.n_relevant(), max(conventions.min_relevant, 1)
    else:
        sizes = ranking.class_sizes
    conventions = replace(conventions, min_relevant=0)  # applied by the average below
    with _ties_asked():
        ev = evaluate(ranking.run, ranking.qrels, list(names.values()), preset=conventions,
                      ties=ranking.ties, undefined="skip")
    values = np.stack([ev.query_means(measure)[0] for measure in ev.measures], axis=1)
    text = _label_text(ranking.query_labels, "query_labels")
    with warnings.catch_warnings():  # named once, by the average below
        warnings.simplefilter("ignore", UserWarning)
        kept = _kept_queries(text, sizes, min_class_size, exclude_classes)
    if not (kept & ~np.isnan(values).all(axis=1)).any():
        # psbTable divides by the number of models it keeps; an average over none is not 0
        raise ValueError(
            f"no query is left to average: none of the {len(text)} queries has {rule}, a "
            "class outside exclude_classes and a relevant target"
        )
    means = average_over_queries(values, text, class_sizes=sizes, averaging=averaging,
                                 min_class_size=min_class_size, exclude_classes=exclude_classes)
    return {key: float(v) for key, v in zip(names, means, strict=True)}


# ---------------------------------------------------------------------------------------------
# image-text retrieval: similarity matrices with the image of every caption


def _check_similarity(similarity: np.ndarray) -> np.ndarray:
    sim = np.asarray(similarity)
    if not np.issubdtype(sim.dtype, np.floating):  # float32 stays float32: ties as VSE++'s
        sim = real_array(sim, "similarity")
    if sim.ndim != 2 or 0 in sim.shape:
        raise ValueError(
            f"similarity must be a non-empty 2-D array (n_images, n_texts); got shape {sim.shape}"
        )
    if np.isnan(sim).any():
        raise ValueError("similarity must not contain NaN")
    return sim


def _check_mapping(text_to_image: Sequence[int] | np.ndarray | None, shape: tuple) -> np.ndarray:
    n_images, n_texts = shape
    if text_to_image is None:
        if n_texts % n_images:
            raise ValueError(
                "text_to_image is required unless n_texts is a multiple of n_images "
                f"(consecutive captions per image, VSE++ layout); got shape {shape}"
            )
        return np.arange(n_texts) // (n_texts // n_images)
    mapping = np.asarray(text_to_image)
    if mapping.shape != (n_texts,) or not np.issubdtype(mapping.dtype, np.integer):
        raise ValueError(
            f"text_to_image must be {n_texts} integer image indices, one per column of "
            f"similarity; got shape {mapping.shape} and dtype {mapping.dtype}"
        )
    if mapping.min() < 0 or mapping.max() >= n_images:
        raise ValueError(
            f"text_to_image must hold image indices in [0, {n_images}); got values in "
            f"[{mapping.min()}, {mapping.max()}]"
        )
    captions = np.bincount(mapping, minlength=n_images)
    if (captions == 0).any():
        missing = np.flatnonzero(captions == 0)[:5].tolist()
        raise ValueError(
            f"every image needs at least one caption in text_to_image; images {missing} "
            "have none"
        )
    return mapping.astype(np.int64)


def _check_folds(n_folds: int, n_images: int) -> int:
    if isinstance(n_folds, bool) or not isinstance(n_folds, int | np.integer) or n_folds < 1:
        raise ValueError(f"n_folds must be a positive integer; got {n_folds!r}")
    if n_images % n_folds:
        raise ValueError(
            f"n_folds must divide the number of images {n_images}; got n_folds={n_folds}"
        )
    return int(n_folds)


def _cells_to_best(
    scores: np.ndarray, query_key: np.ndarray, item_key: np.ndarray, memory_budget: float
) -> tuple[np.ndarray, ...]:
    """The cells of ``scores`` (queries × items) scored at least as high as their query's
    best positive (item ``j`` is a positive of query ``q`` when ``item_key[j] ==
    query_key[q]``): query, item, score and whether the item is a positive. Row blocks sized
    from ``memory_budget``; within a block, whole-matrix comparisons."""
    n_q, n_items = scores.shape
    step = block_rows(n_items, memory_budget, bytes_per_unit=_BYTES_PER_CELL)
    parts = []
    for lo in range(0, n_q, step):
        s = scores[lo : lo + step]
        positive = item_key[None, :] == query_key[lo : lo + step, None]
        best = np.where(positive, s, -np.inf).max(axis=1, keepdims=True)
        q, j = np.nonzero(s >= best)
        parts.append((q + lo, j, s[q, j], positive[q, j]))
    return tuple(np.concatenate(p) for p in zip(*parts, strict=True))


def _fold_cells(
    sim: np.ndarray, mapping: np.ndarray, n_folds: int, directions: Sequence[str],
    memory_budget: float,
) -> tuple[np.ndarray, ...]:
    """The cells of every fold and direction that can decide where the first ground-truth
    item ranks, in the indices of :func:`_matrix_ids` (images, then texts)."""
    n_images = sim.shape[0]
    fold_size = n_images // n_folds
    parts = []
    for f in range(n_folds):  # a handful of folds, each fully vectorised
        images = np.arange(f * fold_size, (f + 1) * fold_size)
        texts = np.flatnonzero(mapping // fold_size == f)
        block = sim if n_folds == 1 else sim[images][:, texts]
        owner = mapping[texts]
        for direction in directions:
            if direction == "i2t":
                q, j, s, pos = _cells_to_best(block, images, owner, memory_budget)
                parts.append((images[q], n_images + texts[j], s, pos))
            else:
                q, j, s, pos = _cells_to_best(block.T, owner, images, memory_budget)
                parts.append((n_images + texts[q], images[j], s, pos))
    return tuple(np.concatenate(p) for p in zip(*parts, strict=True))


def _first_positive(
    sim: np.ndarray,
    mapping: np.ndarray,
    *,
    ks: tuple[int, ...],
    ties: str | None,
    n_folds: int,
    directions: Sequence[str],
    memory_budget: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Per query of ``directions`` (images as i2t queries, then captions as t2i queries):
    ``(n_queries, len(ks))`` hit rates (``R@K`` per query) and the 0-based rank of the first
    ground-truth item, evaluated under the ``crossmodal`` preset.

    Only the items scored at least as high as a query's best ground-truth item enter its run:
    the others cannot change where the first ground-truth item ranks (nor its tie group),
    which is all that ``Success@K`` and ``FirstRelRank`` read.
    """
    rule, bound = _tie_rule(ties, "crossmodal")
    n_images, n_texts = sim.shape
    ids = pd.array(
        np.concatenate([np.asarray(_ids("i", n_images)), np.asarray(_ids("t", n_texts))]),
        dtype="str",
    )
    query, item, scores, positive = _fold_cells(sim, mapping, n_folds, directions, memory_budget)
    run = _pairs(ids, query, item, scores.astype(np.float64), positive, bound)
    texts = n_images + np.arange(n_texts)
    pairs = {"i2t": (mapping, texts), "t2i": (texts, mapping)}  # (query, item): ground truth
    truth_query, truth_item = (np.concatenate(p) for p in zip(*map(pairs.get, directions),
                                                                strict=True))
    qrels = Qrels(ids.take(truth_query), ids.take(truth_item), np.ones(len(truth_query)))
    measures = [f"R@{k}" for k in ks] + ["FirstRelRank"]
    with _ties_asked():
        ev = evaluate(run, qrels, measures, preset="crossmodal", ties=rule)
    values = [ev.query_means(m)[0] for m in ev.measures]
    return np.stack(values[:-1], axis=1), values[-1] - 1.0


def retrieval_ranks(
    similarity: np.ndarray,
    *,
    text_to_image: Sequence[int] | np.ndarray | None = None,
    direction: str = "i2t",
    ties: str | None = None,
    memory_budget: float = MEMORY_BUDGET,
) -> np.ndarray:
    """0-based rank of the best-ranked ground-truth item of every query.

    Parameters
    ----------
    similarity : array_like
        ``(n_images, n_texts)`` scores, higher is more similar; no NaN.
    text_to_image : array_like of int, optional
        ``(n_texts,)`` image index of each caption. ``None``: ``n_texts`` must be a multiple
        of ``n_images`` and captions ``c*i .. c*i + c - 1`` belong to image ``i`` (VSE++).
    direction : {"i2t", "t2i"}, default "i2t"
        Image queries ranking captions, or caption queries ranking images.
    ties : str, optional
        Tie rule (module docs); default the ``crossmodal`` preset's ``"average"``, which gives
        fractional expected ranks: with ``a`` items scored strictly higher and ``g`` tied at
        the best positive's score of which ``m`` are positives, ``a + (g - m) / (m + 1)``.
    memory_budget : float
        Bytes of temporaries per block of query rows.

    Returns
    -------
    numpy.ndarray
        ``(n_images,)`` for i2t or ``(n_texts,)`` for t2i, float64.

    Examples
    --------
    Two images, two captions each; image 1's captions are ranked 1st and 3rd by image 1:

    >>> sim = np.array([[0.9, 0.8, 0.1, 0.2], [0.6, 0.1, 0.7, 0.5]])
    >>> retrieval_ranks(sim).tolist()
    [0.0, 0.0]
    >>> retrieval_ranks(sim, direction="t2i").tolist()
    [0.0, 0.0, 0.0, 0.0]

    All scores tied: each image has 2 of the 4 captions, so 2 negatives may precede its first
    positive; the expected number is 2/3:

    >>> [round(float(retrieval_ranks(np.zeros((2, 4)), ties=t)[0]), 4) for t in
    ...  ("average", "optimistic", "pessimistic", "docid_asc")]
    [0.6667, 0.0, 2.0, 0.0]
    """
    check_choice("direction", direction, DIRECTIONS)
    ties = _spelling(ties)
    _tie_rule(ties, "crossmodal")
    sim = _check_similarity(similarity)
    mapping = _check_mapping(text_to_image, sim.shape)
    _, ranks = _first_positive(sim, mapping, ks=(1,), ties=ties, n_folds=1,
                               directions=(direction,), memory_budget=memory_budget)
    return ranks


def image_text_retrieval(
    similarity: np.ndarray,
    *,
    text_to_image: Sequence[int] | np.ndarray | None = None,
    ks: Sequence[int] | None = None,
    ties: str | None = None,
    medr: str | None = None,
    percent: bool | None = None,
    n_folds: int | None = None,
    memory_budget: float = MEMORY_BUDGET,
) -> dict[str, float]:
    """Image-text retrieval in both directions: R@K, medr, meanr, Rsum and mR.

    Each image queries all captions (i2t: its rank is the position of its best-ranked
    caption, "any ground truth in the top K") and each caption all images (t2i), evaluated
    under the ``crossmodal`` preset; an option left unset takes the preset's convention
    (:data:`fuzzytruth.measures.conventions.CROSSMODAL_CONVENTIONS`).

    Parameters
    ----------
    similarity : array_like
        ``(n_images, n_texts)`` scores, higher is more similar; no NaN.
    text_to_image : array_like of int, optional
        ``(n_texts,)`` image index of each caption (any number of captions per image, at
        least one). ``None``: consecutive blocks of ``n_texts / n_images`` captions (VSE++).
    ks : sequence of int, optional
        Cut-offs; default ``(1, 5, 10)``.
    ties : str, optional
        Tie rule (module docs); default ``"average"``: R@K is then the exact expected R@K
        (hypergeometric over the orders of the tied items) and ``medr`` the median of the
        expected ranks (not the expected median).
    medr : {"vsepp", "median_1based"}, optional
        Median-rank convention (see :func:`~fuzzytruth.metrics.crossmodal.rank_summary`);
        default ``"vsepp"``.
    percent : bool, optional
        R@K, rsum and mR in percent (VSE++/SCAN; the default) or as fractions
        (CLIP_benchmark).
    n_folds : int, optional
        Default 1. ``5`` is the MS-COCO "5-fold 1K" protocol: the images are split into
        ``n_folds`` consecutive blocks of equal size (``n_images`` must be a multiple), each
        block is evaluated against its own captions only, and *every* reported number -- rsum
        and mR included -- is the arithmetic mean of the per-fold numbers (VSE++ ``evalrank``,
        ``fold5=True``). Note: the aggregate printout of VSE++ and SCAN ``evaluation.py`` is
        wrong (VSE++ PR #43, SCAN issue #23): it prints "rsum" as ``6 * mean(i2t average
        recall)`` and the "Average i2t/t2i Recall" lines one index off; their per-fold lines
        are right, and so is this function.
    memory_budget : float
        Bytes of temporaries per block of query rows.

    Returns
    -------
    dict
        ``i2t_R@K``, ``i2t_medr``, ``i2t_meanr``, the same for ``t2i``, ``rsum`` (sum of every
        R@K of both directions) and ``mR`` (``rsum / (2 len(ks))``).

    Examples
    --------
    Two images with two captions each; image 1 prefers a caption of image 0:

    >>> sim = np.array([[0.9, 0.8, 0.1, 0.2], [0.95, 0.1, 0.7, 0.5]])
    >>> out = image_text_retrieval(sim, ks=(1, 2))
    >>> out["i2t_R@1"], out["i2t_R@2"], out["i2t_medr"], out["t2i_R@1"], out["rsum"]
    (50.0, 100.0, 1.0, 75.0, 325.0)
    """
    percent = check_flag("percent", percent, none=True)
    table = CROSSMODAL_CONVENTIONS
    ks = _check_ks(table["ks"] if ks is None else ks)
    ties = _spelling(ties)
    _tie_rule(ties, "crossmodal")
    medr = table["medr"] if medr is None else medr
    check_choice("medr", medr, MEDR_CONVENTIONS)
    percent = table["percent"] if percent is None else percent
    sim = _check_similarity(similarity)
    mapping = _check_mapping(text_to_image, sim.shape)
    n_images, n_texts = sim.shape
    n_folds = _check_folds(table["n_folds"] if n_folds is None else n_folds, n_images)
    hits, ranks = _first_positive(sim, mapping, ks=ks, ties=ties, n_folds=n_folds,
                                  directions=DIRECTIONS, memory_budget=memory_budget)
    scale = 100.0 if percent else 1.0
    fold_size = n_images // n_folds
    query_fold = np.concatenate([np.arange(n_images) // fold_size, mapping // fold_size])
    query_direction = np.repeat(DIRECTIONS, [n_images, n_texts])
    folds = []
    for f in range(n_folds):
        out: dict[str, float] = {}
        rsum = 0.0
        for name in DIRECTIONS:
            rows = (query_fold == f) & (query_direction == name)
            summary = summary_from_hits(hits[rows], ranks[rows], ks, medr, scale)
            rsum += sum(summary[f"R@{k}"] for k in ks)
            out.update({f"{name}_{key}": value for key, value in summary.items()})
        out["rsum"] = rsum
        out["mR"] = rsum / (2 * len(ks))
        folds.append(out)
    return {key: float(np.mean([fold[key] for fold in folds])) for key in folds[0]}
