"""Kernels of the classifier families: one value per item and truth row.

Every kernel is ``kernel(view, truth, **params) -> (n_rows, n_items)`` float64, where ``view``
is one classifier on the evaluated items (:class:`fuzzytruth.classify.context.SystemView`) and
``truth`` rows of the truth (:class:`fuzzytruth.classify.context.Target`): one label per item
(``"labels"``), a plausibility vector per item (``"vectors"``) or a label set per item
(``"sets"``). Measures of a distribution against a one-hot label read only the predicted
probability of the label and one number per item (the row's sum, or for Brier its squared
norm: rows of probabilities sum to 1 only within their dtype's tolerance, 3.5e-4 in float32),
so the label rows of a large evaluation are a gather, not a dense computation.

Definitions (q: the predicted distribution over the soft groups at the measure's level; y: the
target distribution, one-hot e_g for a label g; logarithms natural unless said):

=============  ======================================================================
``Acc@k``      P(the top k hold a class counting for the truth) (:func:`accuracy`)
``CE``         −Σ y log clip(q), clip to [eps, 1 − eps] (scikit-learn's ``log_loss``)
``KL``         Σ y log(y / clip(q))
``JS``         ½ KL₂(y ‖ m) + ½ KL₂(q ‖ m), m = (y + q) / 2, base 2 (in [0, 1])
``poJSD``      1 − JS (Kurniawan et al. 2025)
``TV``         ½ Σ |y − q|
``MD``         Σ |y − q| (LeWiDi's Manhattan distance)
``Wasserstein`` Σ_j |F_y(j) − F_q(j)|: the earth mover's distance with unit steps between
               consecutive classes in the predictions' class order (ordinal scales)
``SoftAcc``    Σ min(y, q)
``Brier``      Σ (q − y)², halved for two classes under ``half="auto"`` (scikit-learn)
=============  ======================================================================

Measures of the whole collection (``SoftF1``, ``ECE``, ``EntropyCorr``) are not means of
per-item values; their kernels return each item's *linearised* value (its influence on the
statistic, plus the statistic), whose mean over the items is the statistic of that row exactly,
and whose spread over items gives the delta-method interval and paired tests
(:mod:`fuzzytruth.classify`).

The array functions below the kernels (:func:`partial_average_overlap`,
:func:`lewidi_error_rate`, :func:`soft_micro_f1` ...) compute the published definitions on
plain arrays, for the oracles and for users.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from fuzzytruth._frozen import readonly
from fuzzytruth._resampling import block_rows
from fuzzytruth._threads import by_rows
from fuzzytruth._validation import check_flag

__all__ = [
    "BRIER_HALF",
    "accuracy",
    "average_overlap",
    "brier",
    "calibration_error",
    "calibration_parts",
    "cross_entropy",
    "entropy_correlation",
    "expected_accuracy",
    "expected_cross_entropy",
    "jensen_shannon",
    "kl_divergence",
    "lewidi_average_md",
    "lewidi_error_rate",
    "lewidi_mean_absolute_distance",
    "manhattan",
    "partial_average_overlap",
    "po_jsd",
    "round_decimals",
    "soft_accuracy",
    "soft_f1",
    "soft_micro_f1",
    "total_variation",
    "wasserstein",
]

BRIER_HALF = ("auto", "yes", "no")
SHALLOW = 16
"""Up to this k, accuracy on labels compares each label with the groups its item's top k meet;
deeper, it reads a table of every group's best rank."""
LN2 = np.log(2.0)


# ---------------------------------------------------------------------------- helpers
def _rows(n_items: int) -> np.ndarray:
    return np.arange(n_items)[None, :]


def _label_columns(view: Any, truth: Any, level: int | None, measure: str) -> tuple:
    """Predicted probabilities at ``level`` and each row's label column in them."""
    q, column = view.soft(level, measure)
    cols = column[truth.labels]
    if (cols < 0).any():
        node = view.truth.nodes[int(truth.labels[cols < 0][0])]
        raise ValueError(
            f"measure {measure!r}: the truth puts an item in {node!r}, for which the "
            f"predictions {view.name!r} have no class at level={level!r} (set level= to a "
            "depth where every true node meets a class)"
        )
    return q, cols


def _row_sums(view: Any, level: int | None, measure: str) -> np.ndarray:
    """``(1, n_items)`` each item's predicted probabilities summed (float64): 1 only within
    the dtype's tolerance, so the label forms of MD, TV, JS and soft micro-F1 read it rather
    than assume it."""
    q, _ = view.soft(level, measure)
    return q.sum(axis=1, dtype=np.float64)[None, :]


def _label_probability(view: Any, truth: Any, level: int | None, measure: str) -> np.ndarray:
    """``(n_rows, n_items)`` the predicted probability of each row's label (float64)."""
    q, cols = _label_columns(view, truth, level, measure)
    return q[_rows(q.shape[0]), cols].astype(np.float64)


def target_vectors(view: Any, truth: Any, level: int | None, measure: str) -> tuple:
    """``(q, y)``: predicted and target distributions over the same soft groups; a ValueError
    names ``measure`` when the truth puts mass where no class lifts to."""
    q, column = view.soft(level, measure)
    vectors = truth.vectors
    lost = column < 0
    if lost.any() and (vectors[..., lost] > 0).any():
        node = view.truth.nodes[int(np.flatnonzero(lost & (vectors > 0).any(
            axis=tuple(range(vectors.ndim - 1))))[0])]
        raise ValueError(
            f"measure {measure!r}: the truth puts mass on {node!r}, for which the predictions "
            f"{view.name!r} have no class at level={level!r} (set level= to a depth where "
            "every true node meets a class)"
        )
    y = np.zeros((*vectors.shape[:-1], q.shape[1]))
    for t in np.flatnonzero(~lost):
        y[..., column[t]] += vectors[..., t]
    return q[None], y  # q keeps its dtype: CE and KL clip at its machine epsilon


def _clip(q: np.ndarray, eps: Any) -> np.ndarray:
    eps = np.finfo(q.dtype).eps if eps is None else float(eps)
    return np.clip(q, eps, 1.0 - eps)


def round_decimals(values: np.ndarray, decimals: int | None) -> np.ndarray:
    """``values`` rounded to ``decimals`` as Python's ``round`` does (the correctly rounded
    decimal, ties to even), which the LeWiDi scripts call per item; ``numpy.round`` scales
    first and can land on the other side of a tie, so values within 1e-6 of one are rounded by
    ``round`` itself (they are rare: one element in a million at most).

    Examples
    --------
    1.000005 is stored as 1.00000500000000003..., which Python rounds up and numpy down:

    >>> round_decimals(np.array([0.123456, 1.000005]), 5).tolist()
    [0.12346, 1.00001]
    >>> round(1.000005, 5), float(np.round(1.000005, 5)) == 1.0
    (1.00001, True)
    """
    if decimals is None:
        return values
    scaled = values * 10.0**decimals
    out = np.round(scaled) / 10.0**decimals
    near = np.abs(np.abs(scaled - np.floor(scaled)) - 0.5) < 1e-6
    for index in zip(*np.nonzero(near), strict=True):
        out[index] = round(float(values[index]), decimals)
    return out


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, x * np.log(np.where(x > 0, y, 1.0)), 0.0)


# ---------------------------------------------------------------------------- hard
def accuracy(view: Any, truth: Any, *, k: int, ties: str, level: int | None,
             **_: Any) -> np.ndarray:
    """Top-k accuracy: under labels, 1 when a class counting for the label is in the top k
    (a probability under ``ties="average"``); under vectors, its expectation Σ_t y_t hit_t
    (Stutz et al.'s aggregated top-k accuracy); under sets, 1 when a class of the set is in
    the top k (ImageNet ReaL; timm's top-k), NaN for an empty set."""
    if truth.kind == "sets":
        if level is not None:
            raise ValueError("level= needs a categorical truth with a taxonomy; got label sets")
        return view.set_hits(truth.sets, k, ties)
    if ties == "average":
        table, group = view.hard_credit(k, ties, level)
        hits = table[_rows(table.shape[0]), group[truth.labels]] if truth.kind == "labels" \
            else table[:, group]
    elif truth.kind == "labels" and k <= SHALLOW:  # the label's group among those the top k meet
        wanted = view.map(level).hard_group[truth.labels][..., None]
        hits = np.zeros(truth.labels.shape, dtype=bool)
        for groups in view.top_k_groups(k, ties, level):
            hits |= (groups[None] == wanted).any(axis=-1)
    else:  # one best-rank table serves every k
        best, group = view.best_rank(k, ties, level)
        # a group no class counts for keeps the table's cap (the number of classes when k
        # exceeds it): compare with the k that is ranked, or such a group would be a hit
        k = min(k, view.predictions.n_classes)
        hits = best[_rows(best.shape[0]), group[truth.labels]] < k if truth.kind == "labels" \
            else best[:, group] < k
    if truth.kind == "labels":
        return hits.astype(np.float64)
    return np.einsum("rit,it->ri", truth.vectors, hits.astype(np.float64))


def expected_accuracy(view: Any, law: np.ndarray, *, k: int, ties: str, level: int | None,
                      **_: Any) -> np.ndarray:
    """``(n_items,)`` the mean of :func:`accuracy` over one label per item drawn from ``law``
    (``(n_items, n_nodes)``): the law's mass on the nodes whose group the top k meet, read
    where the top k are, not over every node (strict rules and ``"all"``)."""
    group = view.map(level).hard_group
    rows, hit = view.hits(k, ties, level)  # the (item, group) pairs the top k meet
    n_groups = len(view.map(level).hard_members)
    if len(group) == n_groups and (group == np.arange(n_groups)).all():
        mass = law[rows, hit]
    else:  # the law per hard group, summed over the nodes that count for it
        by_group = np.zeros((law.shape[0], n_groups))
        for t in np.flatnonzero((law > 0).any(axis=0)):
            by_group[:, group[t]] += law[:, t]
        mass = by_group[rows, hit]
    return np.bincount(rows, weights=mass, minlength=law.shape[0])


def expected_cross_entropy(view: Any, law: np.ndarray, *, eps: Any, level: int | None,
                           **_: Any) -> np.ndarray:
    """``(n_items,)`` the mean of :func:`cross_entropy` (and of :func:`kl_divergence`, equal
    under labels) over one label per item drawn from ``law``: −Σ_t p_t log clip(q_col(t)),
    in one compiled pass (no temporary)."""
    q, column = view.soft(level, "CE")
    support = np.flatnonzero(view.truth.support() if law is view.truth.law
                             else (law > 0).any(axis=0))
    lost = support[column[support] < 0]
    if lost.size:
        raise ValueError(
            f"measure 'CE': the truth puts an item in {view.truth.nodes[int(lost[0])]!r}, for "
            f"which the predictions {view.name!r} have no class at level={level!r} (set level= "
            "to a depth where every true node meets a class)"
        )
    eps = np.finfo(q.dtype).eps if eps is None else float(eps)
    low, high = q.dtype.type(eps), q.dtype.type(1.0 - eps)  # as _clip bounds q in its dtype
    out = np.empty(law.shape[0])
    cols = column[support]
    # items split over the kernels' threads when the pass is large (each writes its own)
    kernel = _compiled()["expected_log"]  # resolved here, not in each thread
    q, law = readonly(q), readonly(law)  # one compiled signature per dtype
    by_rows(lambda rows: kernel(q[rows], law[rows], support, cols, low, high, out[rows]),
            law.shape[0], law.shape[0] * len(support))
    return out


def _expected_log_py(q, law, support, cols, low, high, out):  # pragma: no cover - compiled
    # −Σ_t law[i, t] log clip(q[i, col(t)]): the log of the clipped value in float64, as
    # cross_entropy takes it, without a float64 copy of the predictions
    for i in range(law.shape[0]):
        total = 0.0
        for j in range(len(support)):
            p = law[i, support[j]]
            if p != 0.0:
                total += p * np.log(np.float64(min(max(q[i, cols[j]], low), high)))
        out[i] = -total


@functools.cache
def _compiled() -> dict[str, Any]:
    """The passes compiled by numba at their first use."""
    import numba

    return {"expected_log": numba.njit(cache=True, nogil=True)(_expected_log_py)}


# ---------------------------------------------------------------------------- soft
def cross_entropy(view: Any, truth: Any, *, eps: Any, level: int | None,
                  **_: Any) -> np.ndarray:
    """Cross-entropy −Σ y log clip(q) (natural log)."""
    if truth.kind == "labels":
        q, cols = _label_columns(view, truth, level, "CE")
        picked = _clip(q[_rows(q.shape[0]), cols], eps).astype(np.float64)
        return -np.log(picked)
    q, y = target_vectors(view, truth, level, "CE")
    return -_xlogy(y, _clip(q, eps).astype(np.float64)).sum(axis=-1)


def kl_divergence(view: Any, truth: Any, *, eps: Any, level: int | None,
                  **_: Any) -> np.ndarray:
    """KL(y ‖ q) = Σ y log(y / clip(q)) (natural log); 0 terms where y = 0."""
    if truth.kind == "labels":
        return cross_entropy(view, truth, eps=eps, level=level)
    q, y = target_vectors(view, truth, level, "KL")
    return (_xlogy(y, y) - _xlogy(y, _clip(q, eps).astype(np.float64))).sum(axis=-1)


def _js_label(p: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """JS (base 2) between a one-hot label and q, from q's mass p on the label and ``rest``
    on the other classes (each of them contributes q_j log 2)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        own = np.log(2.0 / (1.0 + p)) + np.where(p > 0, p * np.log(2.0 * p / (1.0 + p)), 0.0)
    return 0.5 * (own + rest * LN2) / LN2


def jensen_shannon(view: Any, truth: Any, *, level: int | None, **_: Any) -> np.ndarray:
    """Jensen–Shannon divergence, base 2 (Kurniawan et al.'s; in [0, 1])."""
    if truth.kind == "labels":
        p = _label_probability(view, truth, level, "JS")
        return _js_label(p, _row_sums(view, level, "JS") - p)
    q, y = target_vectors(view, truth, level, "JS")
    return js_divergence(y, q)


def po_jsd(view: Any, truth: Any, *, level: int | None, **_: Any) -> np.ndarray:
    """poJSD = 1 − JS (base 2): Kurniawan et al.'s per-item value."""
    return 1.0 - jensen_shannon(view, truth, level=level)


def total_variation(view: Any, truth: Any, *, level: int | None, **_: Any) -> np.ndarray:
    """Total variation ½ Σ |y − q|."""
    if truth.kind == "labels":
        p = _label_probability(view, truth, level, "TV")  # ½ ((1 − p) + (Σ q − p))
        return 0.5 * ((1.0 - p) + (_row_sums(view, level, "TV") - p))
    q, y = target_vectors(view, truth, level, "TV")
    return 0.5 * np.abs(y - q).sum(axis=-1)


def manhattan(view: Any, truth: Any, *, level: int | None, decimals: int | None,
              **_: Any) -> np.ndarray:
    """Manhattan distance Σ |y − q| (LeWiDi), rounded to ``decimals`` per item when set (the
    official ``average_MD`` rounds each item's distance to 5 decimals)."""
    if truth.kind == "labels":
        p = _label_probability(view, truth, level, "MD")  # (1 − p) + (Σ q − p)
        value = (1.0 - p) + (_row_sums(view, level, "MD") - p)
    else:
        q, y = target_vectors(view, truth, level, "MD")
        value = np.abs(y - q).sum(axis=-1)
    return round_decimals(value, decimals)


def wasserstein(view: Any, truth: Any, *, decimals: int | None, **_: Any) -> np.ndarray:
    """Earth mover's distance between y and q on an ordinal scale: the classes in the
    predictions' order, one unit apart (Σ_j |F_y(j) − F_q(j)|)."""
    q, _ = view.soft(None, "Wasserstein")
    cdf_q = np.cumsum(np.asarray(q, dtype=np.float64), axis=1)[:, :-1]
    if truth.kind == "labels":
        # F_y(j) = 1[j >= g]: Σ_{j<g} F_q(j) + Σ_{j>=g} |1 − F_q(j)| over j < K − 1 (F_q can
        # pass 1 by the rounding a row of probabilities is allowed: the absolute value stays)
        zero = np.zeros((q.shape[0], 1))
        below = np.concatenate([zero, np.cumsum(cdf_q, axis=1)], axis=1)
        over = np.concatenate([zero, np.cumsum(np.abs(1.0 - cdf_q), axis=1)], axis=1)
        _, cols = _label_columns(view, truth, None, "Wasserstein")
        rows = _rows(q.shape[0])
        value = below[rows, cols] + (over[:, -1][None, :] - over[rows, cols])
    else:
        _, y = target_vectors(view, truth, None, "Wasserstein")
        value = np.abs(np.cumsum(y, axis=-1)[..., :-1] - cdf_q[None]).sum(axis=-1)
    return round_decimals(value, decimals)


def soft_accuracy(view: Any, truth: Any, *, level: int | None, **_: Any) -> np.ndarray:
    """Soft accuracy Σ min(y, q) (Kurniawan et al.): the expected overlap of y and q."""
    if truth.kind == "labels":
        return _label_probability(view, truth, level, "SoftAcc")
    q, y = target_vectors(view, truth, level, "SoftAcc")
    return np.minimum(y, q).sum(axis=-1)


def brier(view: Any, truth: Any, *, half: str, level: int | None, **_: Any) -> np.ndarray:
    """Brier score Σ (q − y)² over the groups (scikit-learn's multiclass form), halved for two
    groups under ``half="auto"`` (scikit-learn's ``scale_by_half="auto"``) or ``"yes"``."""
    q, _ = view.soft(level, "Brier")
    scale = 0.5 if half == "yes" or (half == "auto" and q.shape[1] == 2) else 1.0
    if truth.kind == "labels":
        norm = np.square(np.asarray(q, dtype=np.float64)).sum(axis=1)[None, :]
        p = _label_probability(view, truth, level, "Brier")
        return scale * (norm - 2.0 * p + 1.0)
    q, y = target_vectors(view, truth, level, "Brier")
    return scale * np.square(q - y).sum(axis=-1)


# ---------------------------------------------------------------------------- collection
def soft_f1(view: Any, truth: Any, *, level: int | None, **_: Any) -> np.ndarray:
    """Soft micro-F1 2 ΣΣ min(y, q) / ΣΣ (y + q) (Kurniawan et al.), linearised per item.

    With F the row's statistic, D̄ the mean of Σ (y + q): item value F + (2 Σ min − F Σ
    (y + q)) / D̄; the mean over items is F. For distributions (each row summing to 1) F is
    soft accuracy.
    """
    if truth.kind == "labels":
        num = _label_probability(view, truth, level, "SoftF1")
        den = np.broadcast_to(1.0 + _row_sums(view, level, "SoftF1"), num.shape)
    else:
        q, y = target_vectors(view, truth, level, "SoftF1")
        num = np.minimum(y, q).sum(axis=-1)
        den = (y + q).sum(axis=-1)
    mean_den = den.mean(axis=1, keepdims=True)
    f = 2.0 * num.mean(axis=1, keepdims=True) / mean_den
    return f + (2.0 * num - f * den) / mean_den


def calibration_error(view: Any, truth: Any, *, n_bins: int, ties: str, level: int | None,
                      **_: Any) -> np.ndarray:
    """Expected calibration error with ``n_bins`` equal-width confidence bins, linearised.

    Confidence: the top class's probability; correctness: whether the top class counts for
    the label (labels), or the target mass on it (vectors: ECE against soft labels). Bins are
    ``((b - 1)/B, b/B]`` (a confidence of 0 in the first), the bin ``ceil(confidence · B)``:
    a confidence written as an edge closes its bin (0.4 with 15 bins is in the sixth, though
    the float 0.4 is a little above 2/5). Implementations whose edges are
    ``numpy.linspace(0, 1, B + 1)`` (scikit-learn's ``calibration_curve``) can differ there:
    their edge 14/35 is a float below 0.4, which they bin one higher. ECE = Σ_b |S_b| with S_b
    the mean over all items of (correct − confidence) 1[item in b]; item value sign(S_b(i))
    (correct − confidence), whose mean is ECE.
    """
    correct, conf, bins = calibration_parts(view, truth, n_bins=n_bins, ties=ties, level=level)
    width = table_width(bins, n_bins)
    if truth.kind == "labels":
        # per (world, bin): the count of correct items (exact in float32 below 2**24 items)
        # minus the bin's total confidence, the same in every world
        onehot = np.zeros((view.n_items, width), dtype=np.float32)
        onehot[np.arange(view.n_items), bins] = 1.0
        sums = correct.astype(np.float32) @ onehot - np.bincount(bins, weights=conf,
                                                                 minlength=width)
        return np.sign(sums)[:, bins] * (correct - conf[None, :])
    residual = correct - conf[None, :]
    n_rows = residual.shape[0]
    flat = (np.arange(n_rows)[:, None] * width + bins[None, :]).ravel()
    sums = np.bincount(flat, weights=residual.ravel(), minlength=n_rows * width)
    sign = np.sign(sums.reshape(n_rows, width))
    return sign[:, bins] * residual


def table_width(bins: np.ndarray, n_bins: int) -> int:
    """Columns of a per-bin table of :func:`calibration_parts`' ``bins``: ``n_bins``, or the
    number of items when there are more bins than items (the occupied bins, renumbered)."""
    return min(n_bins, len(bins))


def calibration_parts(view: Any, truth: Any, *, n_bins: int, ties: str, level: int | None,
                      **_: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`calibration_error` bins: ``(correct, confidence, bins)``, the correctness of
    each item's top class in each row (``(n_rows, n_items)``: a count of the hard groups it
    meets under labels, the target mass on them under vectors), its confidence and its bin
    (``(n_items,)``): with more bins than items, the occupied bins renumbered in their order
    (a per-bin table then has :func:`table_width` columns, not ``n_bins``)."""
    view.predictions.require_probabilities("ECE")
    top, slots = view.top_groups(ties, level)
    conf = view.scores[np.arange(view.n_items), top].astype(np.float64)
    group = view.map(level).hard_group
    bins = np.clip(np.ceil(conf * n_bins).astype(np.int64) - 1, 0, n_bins - 1)
    if n_bins > len(bins):  # more bins than items: the occupied ones, renumbered in order (an
        bins = np.unique(bins, return_inverse=True)[1]  # empty bin adds 0; no table of n_bins)
    if truth.kind == "labels":
        label_group = group[truth.labels]
        correct = slots[0][None, :] == label_group
        for groups in slots[1:]:  # the other hard groups the top class counts for
            correct = correct.astype(np.float32) + (groups[None, :] == label_group)
        return correct, conf, bins
    vectors = truth.vectors  # the target mass on the nodes the top class counts for
    n_groups = len(view.map(level).hard_members)
    if n_groups == vectors.shape[-1] and (group == np.arange(n_groups)).all():
        by_group = vectors
    else:
        by_group = np.zeros((*vectors.shape[:-1], n_groups))
        for t, g in enumerate(group):
            by_group[..., g] += vectors[..., t]
    correct = np.zeros(vectors.shape[:-1])
    items = np.arange(view.n_items)
    for groups in slots:
        ok = groups >= 0
        correct[:, ok] += by_group[:, items[ok], groups[ok]]
    return correct, conf, bins


def entropy_correlation(view: Any, truth: Any, *, level: int | None, **_: Any) -> np.ndarray:
    """Pearson correlation of the normalised entropies of y and q across items (Kurniawan et
    al.), linearised: item value r + x̃ỹ − r (x̃² + ỹ²) / 2 with x̃, ỹ standardised (the
    influence function of r); NaN where a row's entropies are constant."""
    q, y = target_vectors(view, truth, level, "EntropyCorr")
    scale = np.log(q.shape[-1]) if q.shape[-1] > 1 else 1.0
    h_y = -_xlogy(y, y).sum(axis=-1) / scale
    h_q = np.broadcast_to(_entropies(q[0]) / scale, h_y.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = (h_y - h_y.mean(axis=1, keepdims=True)) / h_y.std(axis=1, keepdims=True)
        z = (h_q - h_q.mean(axis=1, keepdims=True)) / h_q.std(axis=1, keepdims=True)
        r = (x * z).mean(axis=1, keepdims=True)
        return r + x * z - r * (x**2 + z**2) / 2.0


def _entropies(q: np.ndarray) -> np.ndarray:
    """``(n_items,)`` −Σ q log q of each row, in float64 whatever q's dtype (float32 entropies
    carry ~1e-7 relative errors, which a correlation of nearly equal entropies magnifies), in
    blocks of rows sized from the library's memory budget (a float64 copy and the x log x
    temporary, 16 bytes per element): no float64 copy of the whole matrix."""
    step = block_rows(q.shape[1], bytes_per_unit=16)
    out = np.empty(q.shape[0])
    for start in range(0, q.shape[0], step):
        part = np.asarray(q[start : start + step], dtype=np.float64)
        out[start : start + step] = -_xlogy(part, part).sum(axis=-1)
    return out


# ---------------------------------------------------------------------------- arrays
def js_divergence(y: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Jensen–Shannon divergence (base 2) between distributions along the last axis.

    Examples
    --------
    Kurniawan et al.'s test: poJSD of (0.2, 0.8) against (0.6, 0.4) is 0.8754887502.

    >>> round(1 - float(js_divergence(np.array([0.2, 0.8]), np.array([0.6, 0.4]))), 10)
    0.8754887502
    """
    y, q = np.asarray(y, dtype=np.float64), np.asarray(q, dtype=np.float64)
    total = y + q
    kl_y = np.where(y > 0, y * np.log2(_ratio(y, total)), 0.0).sum(axis=-1)
    kl_q = np.where(q > 0, q * np.log2(_ratio(q, total)), 0.0).sum(axis=-1)
    return 0.5 * (kl_y + kl_q)


def _ratio(x: np.ndarray, total: np.ndarray) -> np.ndarray:
    """x / m for the mixture m = total / 2 (``total`` = y + q >= x), as 2 (x / total), where
    x > 0 (the ratio is at most 2), 1 elsewhere: no division by a subnormal m of an entry that
    the sum leaves out (which overflowed), and none by a mixture that underflowed to 0 (half
    the smallest subnormal is 0: a prediction of 5e-324 against a truth of 0 made m = 0 and
    JS infinite). Scaling by 2 is exact, so above the subnormals the bits are those of x / m."""
    held = x > 0
    return 2.0 * (np.where(held, x, 1.0) / np.where(held, total, 1.0))


def soft_micro_f1(y: np.ndarray, q: np.ndarray) -> float:
    """2 ΣΣ min(y, q) / ΣΣ (y + q) over any non-negative arrays (multi-label rows need not
    sum to 1).

    Examples
    --------
    Kurniawan et al.'s test: 2 · 1.9 / 5.7.

    >>> y = np.array([[0.2, 0.3], [0.1, 0.8], [0.9, 0.7]])
    >>> q = np.array([[0.8, 0.1], [0.3, 0.4], [0.7, 0.4]])
    >>> round(soft_micro_f1(y, q), 12) == round(2 * 1.9 / 5.7, 12)
    True
    """
    y, q = np.asarray(y, dtype=np.float64), np.asarray(q, dtype=np.float64)
    return float(2.0 * np.minimum(y, q).sum() / (y + q).sum())


def lewidi_average_md(targets: np.ndarray, predictions: np.ndarray) -> float:
    """LeWiDi 2025's average Manhattan distance: each item's Σ |p − t| rounded to 5 decimals,
    their mean rounded to 5 decimals (0 for no item).

    Examples
    --------
    >>> lewidi_average_md(np.array([[0.5, 0.5], [1.0, 0.0]]), np.array([[0.4, 0.6], [0.5, 0.5]]))
    0.6
    """
    targets, predictions = np.asarray(targets, float), np.asarray(predictions, float)
    if len(targets) == 0:
        return 0.0
    per_item = round_decimals(np.abs(predictions - targets).sum(axis=-1), 5)
    return round(float(per_item.sum() / len(per_item)), 5)


def lewidi_error_rate(targets: np.ndarray, predictions: np.ndarray) -> float:
    """LeWiDi 2025's perspectivist error rate: per item 1 − (a − Σ |t − p|) / a over its a
    annotators' labels, rounded to 5 decimals, then averaged (not rounded).

    Examples
    --------
    >>> lewidi_error_rate(np.array([[1, 0, 1], [0, 0, 0]]), np.array([[1, 1, 1], [0, 0, 0]]))
    0.166665
    """
    targets, predictions = np.asarray(targets, float), np.asarray(predictions, float)
    a = targets.shape[-1]
    per_item = round_decimals(1.0 - (a - np.abs(targets - predictions).sum(axis=-1)) / a, 5)
    return float(per_item.mean())


def lewidi_mean_absolute_distance(targets: np.ndarray, predictions: np.ndarray,
                                  scale: float) -> float:
    """LeWiDi 2025's normalised mean absolute distance: per item the mean over its annotators
    of |t − p| / ``scale`` (11 for Par, 6 for CSC), averaged over items.

    Examples
    --------
    >>> lewidi_mean_absolute_distance(np.array([[1, 3]]), np.array([[2, 3]]), 6)
    0.08333333333333333
    """
    targets, predictions = np.asarray(targets, float), np.asarray(predictions, float)
    return float((np.abs(targets - predictions).mean(axis=-1) / scale).mean())


def average_overlap(predicted: np.ndarray, ranking: np.ndarray, depth: int) -> float:
    """Average overlap of two full rankings (class ids best first) to ``depth``: the mean
    over d = 1..depth of |top d of each ∩| / d; 0 for depth 0.

    Examples
    --------
    Stutz et al.'s test: (0/1 + 1/2 + 3/3) / 3.

    >>> average_overlap(np.array([2, 0, 1, 4, 3]), np.array([0, 1, 2, 4, 3]), 3)
    0.5
    """
    n = len(ranking)
    groups = np.arange(n)
    return partial_average_overlap(predicted, groups, ranking, groups, depth, normalize=False)


def _partial_matrix(ranking: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Row r: the weight of each class at rank r; a tie group spreads its classes evenly over
    its ranks, unranked classes (group -1) likewise over the last ranks."""
    n = len(ranking)
    matrix = np.zeros((n, n))
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        matrix[np.ix_(rows, ranking[rows])] = 1.0 / len(rows)
    return matrix


def partial_average_overlap(
    predicted: np.ndarray,
    predicted_groups: np.ndarray,
    ranking: np.ndarray,
    groups: np.ndarray,
    depth: int,
    *,
    normalize: bool = True,
) -> float:
    """Average overlap of two partial rankings with ties (Stutz et al. 2023).

    Each ranking is a permutation of the classes with its tie groups (-1: unranked, last);
    a tie group's classes share its ranks evenly. The unnormalised value is
    Σ_{d<=depth} (1/d) ⟨top-d mass of one, top-d mass of the other⟩ / depth; normalised, it is
    divided by the geometric mean of each ranking's value with itself. 0 when ``depth`` is 0
    or either ranking is empty (all -1).

    Examples
    --------
    Stutz et al.'s test: AO([01], [20, 02]) = (0.75 + 0.25) / 2, normalised 0.5773503.

    >>> args = ([0, 1, 2, 3], [0, 1, 2, -1], [2, 0, 1, 3], [0, 0, 1, 2], 2)
    >>> partial_average_overlap(*map(np.array, args[:4]), 2, normalize=False)
    0.5
    >>> round(partial_average_overlap(*map(np.array, args[:4]), 2), 7)
    0.5773503
    """
    normalize = check_flag("normalize", normalize)
    predicted, predicted_groups = np.asarray(predicted), np.asarray(predicted_groups)
    ranking, groups = np.asarray(ranking), np.asarray(groups)

    def raw(r1: np.ndarray, g1: np.ndarray, r2: np.ndarray, g2: np.ndarray) -> float:
        if depth <= 0 or (g1 == -1).all() or (g2 == -1).all():
            return 0.0
        n = len(r1)
        top1 = np.cumsum(_partial_matrix(r1, g1), axis=0)
        top2 = np.cumsum(_partial_matrix(r2, g2), axis=0)
        d = np.arange(1, n + 1)
        per_depth = (top1 * top2).sum(axis=1) / d
        return float(per_depth[:depth].sum() / depth)

    value = raw(predicted, predicted_groups, ranking, groups)
    if not normalize or value <= 0:
        return value
    own = raw(predicted, predicted_groups, predicted, predicted_groups)
    other = raw(ranking, groups, ranking, groups)
    return float(value / np.sqrt(own * other))
