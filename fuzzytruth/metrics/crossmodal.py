"""Cross-modal (image-text) retrieval: R@K, median and mean rank, Rsum, mR, k-fold protocol.

From an ``(n_images, n_texts)`` similarity matrix and the image of every caption (any number
of captions per image, not only 1:5):

* **i2t** (image -> text): each image queries all captions; its rank is the 0-based position
  of its *best-ranked* ground-truth caption (VSE++/SCAN ``i2t``; "any positive in the top K").
* **t2i** (text -> image): each caption queries all images; its rank is the 0-based position
  of its image.
* ``R@K`` = share of queries with rank < K; ``medr`` = ``floor(median(0-based)) + 1``
  (VSE++; or the median of 1-based ranks); ``meanr`` = mean 1-based rank;
  ``rsum`` = the sum of the six R@K (i2t and t2i, K = 1, 5, 10); ``mR = rsum / 6``.

Ties between the best positive and other items are resolved by an explicit policy (VSE++'s
reversed ``np.argsort`` and ``torch.topk`` leave them unspecified):

* ``"expected"`` (default): the expectation over uniformly random orders of the tied items.
  With ``a`` items scored strictly higher, ``g`` items tied at the best positive's score of
  which ``m`` are positives, the expected rank is ``a + (g - m) / (m + 1)`` and
  ``P(rank < K) = 1 - C(g - m, K - a) / C(g, K - a)`` (hypergeometric) for ``a < K``;
  ``R@K`` averages these probabilities, so it is the exact expected R@K. ``medr`` is the
  median of the expected ranks (not the expected median).
* ``"optimistic"``: positives before tied negatives (rank ``a``).
* ``"pessimistic"``: positives after tied negatives (rank ``a + g - m``).
* ``"stable_index"``: tied items in increasing index order.

Every score computation is one pass of whole-matrix comparisons (in row blocks that bound the
memory), no loop per query.

See ``shared/reference/metric-conventions.md`` section C and the seed page 001.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fuzzytruth.metrics.shape import _check_choice

__all__ = [
    "image_text_retrieval",
    "rank_summary",
    "retrieval_ranks",
]

TIE_POLICIES = ("expected", "optimistic", "pessimistic", "stable_index")
DIRECTIONS = ("i2t", "t2i")
MEDR_CONVENTIONS = ("vsepp", "median_1based")
_BLOCK_CELLS = 1 << 22  # comparison cells per row block (bounds temporary memory)


def _check_similarity(similarity: np.ndarray) -> np.ndarray:
    sim = np.asarray(similarity)
    if not np.issubdtype(sim.dtype, np.floating):
        sim = sim.astype(np.float64)  # float32 input stays float32: ties as VSE++ sees them
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


def _tie_counts(
    scores: np.ndarray, query_key: np.ndarray, item_owner: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Per query: items above the best positive, tied with it, tied positives, stable rank.

    Query ``q``'s positives are the items ``j`` with ``item_owner[j] == query_key[q]``.
    """
    n_q, n_items = scores.shape
    above, tied, tied_pos, stable = (np.empty(n_q, dtype=np.int64) for _ in range(4))
    step = max(1, _BLOCK_CELLS // n_items)
    cols = np.arange(n_items)
    for lo in range(0, n_q, step):  # row blocks bound the memory; vectorised within a block
        s = scores[lo : lo + step]
        pos = item_owner[None, :] == query_key[lo : lo + step, None]
        best = np.where(pos, s, -np.inf).max(axis=1, keepdims=True)
        eq = s == best
        eq_pos = eq & pos
        first = np.argmax(eq_pos, axis=1)
        above[lo : lo + step] = (s > best).sum(axis=1)
        tied[lo : lo + step] = eq.sum(axis=1)
        tied_pos[lo : lo + step] = eq_pos.sum(axis=1)
        stable[lo : lo + step] = (eq & (cols[None, :] < first[:, None])).sum(axis=1)
    return above, tied, tied_pos, above + stable


def _ranks_from_counts(counts: tuple[np.ndarray, ...], ties: str) -> np.ndarray:
    above, tied, tied_pos, stable = counts
    if ties == "optimistic":
        return above.astype(np.float64)
    if ties == "pessimistic":
        return (above + tied - tied_pos).astype(np.float64)
    if ties == "stable_index":
        return stable.astype(np.float64)
    return above + (tied - tied_pos) / (tied_pos + 1.0)


def _hit_rates(counts: tuple[np.ndarray, ...], ks: Sequence[int], ties: str) -> np.ndarray:
    """``(n_queries, len(ks))`` probability that the best positive ranks in the top k."""
    if ties != "expected":
        ranks = _ranks_from_counts(counts, ties)
        return (ranks[:, None] < np.asarray(ks)[None, :]).astype(np.float64)
    from scipy.special import gammaln  # here: scipy.special costs 0.3 s to import

    above, tied, tied_pos, _ = (c[:, None].astype(np.float64) for c in counts)
    slots = np.minimum(np.asarray(ks, dtype=np.float64)[None, :] - above, tied)
    negatives = tied - tied_pos
    # P(no positive among the first `slots` tied places) = C(g - m, slots) / C(g, slots).
    possible = (slots > 0) & (slots <= negatives)
    safe = np.where(possible, slots, 0.0)
    log_miss = (
        gammaln(negatives + 1)
        - gammaln(negatives - safe + 1)
        - gammaln(tied + 1)
        + gammaln(tied - safe + 1)
    )
    miss = np.where(possible, np.exp(log_miss), np.where(slots > 0, 0.0, 1.0))
    return 1.0 - miss


def _direction_counts(
    sim: np.ndarray, mapping: np.ndarray, direction: str
) -> tuple[np.ndarray, ...]:
    if direction == "i2t":
        return _tie_counts(sim, np.arange(sim.shape[0]), mapping)
    return _tie_counts(sim.T, mapping, np.arange(sim.shape[0]))


def retrieval_ranks(
    similarity: np.ndarray,
    *,
    text_to_image: Sequence[int] | np.ndarray | None = None,
    direction: str = "i2t",
    ties: str = "expected",
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
    ties : {"expected", "optimistic", "pessimistic", "stable_index"}, default "expected"
        Tie policy (module docs); ``"expected"`` gives fractional expected ranks.

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
    ...  ("expected", "optimistic", "pessimistic", "stable_index")]
    [0.6667, 0.0, 2.0, 0.0]
    """
    _check_choice("direction", direction, DIRECTIONS)
    _check_choice("ties", ties, TIE_POLICIES)
    sim = _check_similarity(similarity)
    mapping = _check_mapping(text_to_image, sim.shape)
    return _ranks_from_counts(_direction_counts(sim, mapping, direction), ties)


def _check_ks(ks: Sequence[int]) -> tuple[int, ...]:
    out = tuple(ks)
    if not out or any(
        isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1 for k in out
    ):
        raise ValueError(f"ks must be a non-empty sequence of positive integers; got {ks!r}")
    return tuple(int(k) for k in out)


def _medr(ranks: np.ndarray, medr: str) -> float:
    if medr == "vsepp":
        return float(np.floor(np.median(ranks)) + 1)
    return float(np.median(ranks + 1))


def _summary(
    hits: np.ndarray, ranks: np.ndarray, ks: tuple[int, ...], medr: str, scale: float
) -> dict[str, float]:
    out = {f"R@{k}": float(scale * hits[:, i].mean()) for i, k in enumerate(ks)}
    out["medr"] = _medr(ranks, medr)
    out["meanr"] = float(ranks.mean() + 1)
    return out


def rank_summary(
    ranks: Sequence[float] | np.ndarray,
    *,
    ks: Sequence[int] = (1, 5, 10),
    medr: str = "vsepp",
    percent: bool = True,
) -> dict[str, float]:
    """R@K, median and mean rank from 0-based ranks (VSE++/SCAN conventions).

    Parameters
    ----------
    ranks : array_like
        0-based ranks of the queries' best ground-truth item, non-negative.
    ks : sequence of int, default (1, 5, 10)
        Cut-offs; ``R@K`` is the share of ranks ``< K``.
    medr : {"vsepp", "median_1based"}, default "vsepp"
        ``"vsepp"``: ``floor(median(ranks)) + 1``; ``"median_1based"``: ``median(ranks + 1)``.
    percent : bool, default True
        R@K in percent (VSE++, SCAN, papers) or as fractions (CLIP_benchmark).

    Returns
    -------
    dict
        ``"R@K"`` for each K, ``"medr"``, ``"meanr"`` (mean 1-based rank).

    Examples
    --------
    metric-conventions C.3, i2t over 4 images:

    >>> rank_summary([0, 2, 7, 12])
    {'R@1': 25.0, 'R@5': 50.0, 'R@10': 75.0, 'medr': 5.0, 'meanr': 6.25}
    >>> rank_summary([0, 2, 7, 12], medr="median_1based", percent=False)["medr"]
    5.5
    """
    ks = _check_ks(ks)
    _check_choice("medr", medr, MEDR_CONVENTIONS)
    r = np.asarray(ranks, dtype=np.float64).ravel()
    if r.size == 0 or np.isnan(r).any() or (r < 0).any():
        raise ValueError(f"ranks must be non-empty, non-negative 0-based ranks; got {ranks!r}")
    hits = (r[:, None] < np.asarray(ks)[None, :]).astype(np.float64)
    return _summary(hits, r, ks, medr, 100.0 if percent else 1.0)


def _evaluate_once(
    sim: np.ndarray,
    mapping: np.ndarray,
    ks: tuple[int, ...],
    ties: str,
    medr: str,
    scale: float,
) -> dict[str, float]:
    out: dict[str, float] = {}
    rsum = 0.0
    for direction in DIRECTIONS:
        counts = _direction_counts(sim, mapping, direction)
        summary = _summary(
            _hit_rates(counts, ks, ties), _ranks_from_counts(counts, ties), ks, medr, scale
        )
        rsum += sum(summary[f"R@{k}"] for k in ks)
        out.update({f"{direction}_{name}": value for name, value in summary.items()})
    out["rsum"] = rsum
    out["mR"] = rsum / (2 * len(ks))
    return out


def image_text_retrieval(
    similarity: np.ndarray,
    *,
    text_to_image: Sequence[int] | np.ndarray | None = None,
    ks: Sequence[int] = (1, 5, 10),
    ties: str = "expected",
    medr: str = "vsepp",
    percent: bool = True,
    n_folds: int = 1,
) -> dict[str, float]:
    """Image-text retrieval in both directions: R@K, medr, meanr, Rsum and mR.

    Parameters
    ----------
    similarity : array_like
        ``(n_images, n_texts)`` scores, higher is more similar; no NaN.
    text_to_image : array_like of int, optional
        ``(n_texts,)`` image index of each caption (any number of captions per image, at
        least one). ``None``: consecutive blocks of ``n_texts / n_images`` captions (VSE++).
    ks : sequence of int, default (1, 5, 10)
        Cut-offs.
    ties : {"expected", "optimistic", "pessimistic", "stable_index"}, default "expected"
        Tie policy (module docs); with ``"expected"`` R@K is the exact expected R@K.
    medr : {"vsepp", "median_1based"}, default "vsepp"
        Median-rank convention (see :func:`rank_summary`).
    percent : bool, default True
        R@K, rsum and mR in percent (VSE++/SCAN) or as fractions (CLIP_benchmark).
    n_folds : int, default 1
        ``5`` is the MS-COCO "5-fold 1K" protocol: the images are split into ``n_folds``
        consecutive blocks of equal size (``n_images`` must be a multiple), each block is
        evaluated against its own captions only, and *every* reported number -- rsum and mR
        included -- is the arithmetic mean of the per-fold numbers (VSE++ ``evalrank``,
        ``fold5=True``). Note: the aggregate printout of VSE++ and SCAN ``evaluation.py`` is
        wrong (VSE++ PR #43, SCAN issue #23): it prints "rsum" as ``6 * mean(i2t average
        recall)`` and the "Average i2t/t2i Recall" lines one index off; their per-fold lines
        are right, and so is this function.

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
    ks = _check_ks(ks)
    _check_choice("ties", ties, TIE_POLICIES)
    _check_choice("medr", medr, MEDR_CONVENTIONS)
    sim = _check_similarity(similarity)
    mapping = _check_mapping(text_to_image, sim.shape)
    n_images = sim.shape[0]
    if isinstance(n_folds, bool) or not isinstance(n_folds, int | np.integer) or n_folds < 1:
        raise ValueError(f"n_folds must be a positive integer; got {n_folds!r}")
    if n_images % n_folds:
        raise ValueError(
            f"n_folds must divide the number of images {n_images}; got n_folds={n_folds}"
        )
    scale = 100.0 if percent else 1.0
    fold_size = n_images // n_folds
    folds = []
    for f in range(n_folds):  # a handful of folds, each fully vectorised
        texts = np.flatnonzero(mapping // fold_size == f)
        fold_sim = sim[f * fold_size : (f + 1) * fold_size][:, texts]
        fold_mapping = mapping[texts] - f * fold_size
        folds.append(_evaluate_once(fold_sim, fold_mapping, ks, ties, medr, scale))
    return {key: float(np.mean([fold[key] for fold in folds])) for key in folds[0]}


