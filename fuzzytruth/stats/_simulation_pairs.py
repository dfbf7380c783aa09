"""Generating models and simulation loops for the pairwise procedures' validity study.

Used by ``benchmarks/stats_validity.py`` (the full tables) and ``tests/test_stats_validity.py``
(slow-marked spot checks). Many simulated comparisons run in one call by stacking them as
pairs of systems ``(2j, 2j + 1)``; every batch of :data:`BATCH` comparisons gets fresh
resamples. Each model draws a *null* version (no true difference: the size of the tests) and
an *effect* version with a known true difference (the coverage of the intervals). The data
sets and the procedures' resamples come from separate named streams
(:func:`fuzzytruth._random.named_stream`), so a data set does not depend on how many numbers a
procedure takes.

Models (per-query scores of systems A and B; ``q`` a query effect shared by both; the
difference ``d = a - b`` is what the procedures see):

``normal``
    ``q ~ Beta(2, 5)``, ``a = q + delta + 0.1 N``, ``b = q + 0.1 N``: normal differences,
    ``delta = 0.03``.
``t3``
    Symmetric heavy tails: ``a = q + delta + 0.05 t_3``, ``b = q`` (infinite kurtosis),
    ``delta = 0.03``.
``ap-heavy``
    AP-like scores with heavy-tailed symmetric differences: ``b ~ Beta(1, 2)``, ``a = b + delta
    + e`` with ``e ~ N(0, 0.02^2)`` w.p. 0.7 and ``N(0, 0.25^2)`` w.p. 0.3 (kurtosis ≈ 8);
    ``delta = 0.03``.
``rr``
    Reciprocal rank: the first relevant rank of B is geometric with a Beta(1, 1.5) success
    probability per query; A's rank equals B's w.p. 0.5 and is an independent draw otherwise
    (null: exchangeable). Effect: A's rank is improved by one place w.p. 0.3 (truth by a
    4·10^6-query Monte Carlo).
``p10``
    P@10, lattice-valued with many ties: ``p ~ 0.8 Beta(2, 3)``, ``b ~ Bin(10, p) / 10``,
    ``a ~ Bin(10, p + delta) / 10``, ``delta = 0.05`` (truth exactly ``delta``).
``bounded``
    Scores in [0, 1] piled up at both ends: ``b = u ~ Beta(0.5, 0.5)``, ``a = clip(u + delta +
    0.2 N, 0, 1)``; the null (``delta = 0``) has mean difference 0 by the symmetry ``u -> 1 -
    u``; effect ``delta = 0.05`` (truth by a 4·10^6-query Monte Carlo).
``skewed-null``
    A skewed difference whose *mean* is ``delta`` (0 under the null) but whose median is not:
    ``a = q + delta + 0.2 (Exp(1) - 1)``, ``b = q + 0.05 N(0, 1)``, ``q ~ Beta(2, 5)``,
    ``delta = 0.05`` (skewness of the difference ≈ 1.9, median ≈ -0.06). Tests of the mean
    must reject 5 % under the null; Wilcoxon and sign tests reject far more (they test
    symmetry and the median).
``gamma-skew``
    Stronger continuous skew: ``a = q + delta + 0.2 (Gamma(0.5, 1) - 0.5)``, ``b = q + 0.02 N``
    (skewness ≈ 2.8), ``delta = 0.05``.
``rare-large-10``
    Rare large one-sided differences: ``b = q``, ``a = q + delta + 0.45`` on 10 % of the queries
    and ``a = q + delta - 0.05`` on the others, plus ``0.01 N`` (mean difference ``delta``,
    skewness ≈ 2.7), ``delta = 0.05``: a system that wins big on a few queries and loses a
    little on the rest.
``rare-large-5``
    The same with 5 % of the queries at ``+0.95`` (skewness ≈ 4.1).
``uncertain-truth``
    Exchangeable systems under uncertain truth, scores in 50 ground-truth worlds: each query
    has an expected score ``mu_q ~ Beta(2, 5)`` shared by both systems plus a system effect
    ``0.08 N(0, 1)``; each world adds per-query noise ``0.1 N(0, 1)`` to each system (the truth
    moves the two systems differently). Effect: ``delta = 0.04`` added to A. The estimand is
    *this collection's truth* (mean expected difference); the per-query world noise averages
    out over worlds and queries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from fuzzytruth._random import draw_seed, index_counts, named_stream
from fuzzytruth._resampling import BOOTSTRAP_STREAM
from fuzzytruth.stats.bootstrap import paired_bootstrap
from fuzzytruth.stats.procedures import (
    BOOTSTRAP_METHODS,
    INTERVALS,
    paired_inference,
    skewness,
    too_skewed,
)

BATCH = 50
#: Mean-difference procedures with an interval (the validity table's rows).
MEAN_METHODS = ("t", "bootstrap", "bca", "percentile", "basic", "randomization")
#: Tests of another hypothesis, reported for their rejection rate under a mean null.
OTHER_TESTS = ("wilcoxon", "sign")


def _stack(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(m, n)`` and ``(m, n)`` (or with a leading worlds axis) to ``(.., 2m, n)``."""
    out = np.stack([a, b], axis=-2)
    return out.reshape(*out.shape[:-3], 2 * out.shape[-3], out.shape[-1])


def stacked_pairs(n_pairs: int) -> np.ndarray:
    """Pairs ``(2j, 2j + 1)`` of stacked comparisons."""
    first = 2 * np.arange(n_pairs)
    return np.column_stack([first, first + 1])


def _normal(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.03 if effect else 0.0
    q = rng.beta(2.0, 5.0, size=(m, n))
    a = q + delta + 0.1 * rng.standard_normal((m, n))
    b = q + 0.1 * rng.standard_normal((m, n))
    return _stack(a, b), np.full(m, delta)


def _t3(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.03 if effect else 0.0
    q = rng.beta(2.0, 5.0, size=(m, n))
    return _stack(q + delta + 0.05 * rng.standard_t(3, size=(m, n)), q), np.full(m, delta)


def _ap_heavy(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.03 if effect else 0.0
    b = rng.beta(1.0, 2.0, size=(m, n))
    wide = rng.random((m, n)) < 0.3
    e = rng.standard_normal((m, n)) * np.where(wide, 0.25, 0.02)
    return _stack(b + delta + e, b), np.full(m, delta)


def _rr_ranks(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    p = rng.beta(1.0, 1.5, size=(m, n))
    rank_b = rng.geometric(p)
    same = rng.random((m, n)) < 0.5
    rank_a = np.where(same, rank_b, rng.geometric(p))
    if effect:
        better = (rng.random((m, n)) < 0.3) & (rank_a > 1)
        rank_a = rank_a - better
    return 1.0 / rank_a, 1.0 / rank_b


_TRUTH: dict[str, float] = {}


def _monte_carlo_truth(name: str, draw: Callable[..., tuple]) -> float:
    """The mean difference of a model without a closed form, from 4·10^6 queries (cached)."""
    if name not in _TRUTH:
        a, b = draw(named_stream(12345, "truth", name), 1, 4_000_000, True)
        _TRUTH[name] = float((a - b).mean())
    return _TRUTH[name]


def _rr(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    a, b = _rr_ranks(rng, m, n, effect)
    truth = _monte_carlo_truth("rr", _rr_ranks) if effect else 0.0
    return _stack(a, b), np.full(m, truth)


def _p10(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.05 if effect else 0.0
    p = 0.8 * rng.beta(2.0, 3.0, size=(m, n))
    b = rng.binomial(10, p) / 10
    a = rng.binomial(10, p + delta) / 10
    return _stack(a, b), np.full(m, delta)


def _bounded_scores(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    u = rng.beta(0.5, 0.5, size=(m, n))
    a = np.clip(u + (0.05 if effect else 0.0) + 0.2 * rng.standard_normal((m, n)), 0.0, 1.0)
    return a, u


def _bounded(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    a, b = _bounded_scores(rng, m, n, effect)
    truth = _monte_carlo_truth("bounded", _bounded_scores) if effect else 0.0
    return _stack(a, b), np.full(m, truth)


def _skewed(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.05 if effect else 0.0
    q = rng.beta(2.0, 5.0, size=(m, n))
    a = q + delta + 0.2 * (rng.exponential(1.0, size=(m, n)) - 1.0)
    b = q + 0.05 * rng.standard_normal((m, n))
    return _stack(a, b), np.full(m, delta)


def _gamma_skew(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.05 if effect else 0.0
    q = rng.beta(2.0, 5.0, size=(m, n))
    a = q + delta + 0.2 * (rng.gamma(0.5, 1.0, size=(m, n)) - 0.5)
    b = q + 0.02 * rng.standard_normal((m, n))
    return _stack(a, b), np.full(m, delta)


def _rare_large(rate: float, large: float) -> Callable[..., tuple]:
    """Differences ``large`` on a share ``rate`` of the queries and ``-0.05`` on the others
    (mean 0 when ``rate * large = 0.05 (1 - rate)``), plus ``delta`` and ``0.01 N``."""

    def draw(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
        delta = 0.05 if effect else 0.0
        q = rng.beta(2.0, 5.0, size=(m, n))
        jump = np.where(rng.random((m, n)) < rate, large, -0.05)
        a = q + delta + jump + 0.01 * rng.standard_normal((m, n))
        return _stack(a, q), np.full(m, delta)

    return draw


N_WORLDS = 50


def _uncertain(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.04 if effect else 0.0
    mu = rng.beta(2.0, 5.0, size=(m, n))
    a = mu + delta + 0.08 * rng.standard_normal((m, n))
    b = mu + 0.08 * rng.standard_normal((m, n))
    expected = _stack(a, b)
    worlds = expected[None] + 0.1 * rng.standard_normal((N_WORLDS, 2 * m, n))
    # centre the world noise per query so that the expected scores are exactly `expected`
    worlds -= worlds.mean(axis=0, keepdims=True) - expected[None]
    return worlds, np.full(m, delta)


@dataclass(frozen=True)
class Model:
    """A generating model: ``draw(rng, n_comparisons, n_queries, effect) -> (scores, truth)``."""

    name: str
    draw: Callable[..., tuple]
    description: str


MODELS = {
    model.name: model
    for model in (
        Model("normal", _normal, "normal differences"),
        Model("t3", _t3, "symmetric heavy tails (t, 3 df)"),
        Model("ap-heavy", _ap_heavy, "AP, heavy-tailed symmetric differences"),
        Model("rr", _rr, "RR, heavy-tailed lattice"),
        Model("p10", _p10, "P@10, lattice with ties"),
        Model("bounded", _bounded, "scores in [0, 1] piled at 0 and 1"),
        Model("skewed-null", _skewed, "skewed (1.9), mean 0 but median not 0"),
        Model("gamma-skew", _gamma_skew, "skewed (2.8), continuous"),
        Model("rare-large-10", _rare_large(0.10, 0.45), "10 % of queries +0.45, rest -0.05"),
        Model("rare-large-5", _rare_large(0.05, 0.95), "5 % of queries +0.95, rest -0.05"),
        Model("uncertain-truth", _uncertain, "exchangeable systems, 50 truth worlds"),
    )
}


def binomial_se(rate: float, n: int) -> float:
    """Monte Carlo standard error of a rate estimated from ``n`` independent replications."""
    return float(np.sqrt(rate * (1.0 - rate) / n)) if n > 0 else float("nan")


@dataclass(frozen=True)
class PairStudy:
    """Per-comparison outcomes of one model at one number of queries (95 % / 5 %).

    ``rejected[method]`` (null comparisons: the test rejected the true null) and
    ``covered[method]`` (effect comparisons: the interval held the true difference) are
    boolean arrays over the comparisons; ``fired_null`` / ``fired_effect`` say where
    :func:`~fuzzytruth.stats.procedures.too_skewed` fired.
    """

    model: str
    n_queries: int
    rejected: dict[str, np.ndarray]
    covered: dict[str, np.ndarray]
    fired_null: np.ndarray
    fired_effect: np.ndarray

    @property
    def n_comparisons(self) -> int:
        """Null comparisons (as many effect comparisons)."""
        return len(self.fired_null)

    def size(self, method: str, where: np.ndarray | None = None) -> float:
        """Rejection rate of the true null (among the null comparisons ``where``)."""
        hits = self.rejected[method] if where is None else self.rejected[method][where]
        return float(hits.mean()) if hits.size else float("nan")

    def coverage(self, method: str, where: np.ndarray | None = None) -> float:
        """Share of intervals holding the true difference (NaN for tests without one)."""
        if INTERVALS.get(method) == "none":
            return float("nan")
        hits = self.covered[method] if where is None else self.covered[method][where]
        return float(hits.mean()) if hits.size else float("nan")


def pair_study(
    model: str,
    n_queries: int,
    *,
    n_comparisons: int = 2000,
    n_resamples: int = 999,
    methods: tuple[str, ...] = MEAN_METHODS + OTHER_TESTS,
    seed: int = 0,
) -> PairStudy:
    """Size (null) and coverage (effect) of every procedure on one model, at 95 %.

    Under uncertain truth the procedures run on each query's expected score (the mean over the
    worlds), as :func:`~fuzzytruth.stats.compare` does, and an extra method ``"two-level
    (old)"`` records the replaced scheme (one world per replicate).
    """
    gen = MODELS[model].draw
    rng = named_stream(seed, "data", model, n_queries)
    draws = named_stream(seed, "procedures", model, n_queries)
    rejected: dict[str, list] = {m: [] for m in methods}
    covered: dict[str, list] = {m: [] for m in methods}
    fired: dict[bool, list] = {False: [], True: []}
    for start in range(0, n_comparisons, BATCH):
        m = min(BATCH, n_comparisons - start)
        pairs = stacked_pairs(m)
        for effect in (False, True):
            scores, truth = gen(rng, m, n_queries, effect)
            x = scores.mean(axis=0) if scores.ndim == 3 else scores
            fired[effect].append(too_skewed(x[pairs[:, 0]] - x[pairs[:, 1]]))
            boot = None
            if set(methods) & set(BOOTSTRAP_METHODS):
                boot = paired_bootstrap(x, pairs=pairs, n_resamples=n_resamples, rng=draws)
            for method in methods:
                with np.errstate(all="ignore"):
                    res = paired_inference(
                        x, pairs=pairs, method=method, n_resamples=n_resamples, rng=draws,
                        bootstrap=boot if method in BOOTSTRAP_METHODS else None,
                    )
                if effect:
                    covered[method].append((res.ci_low <= truth) & (truth <= res.ci_high))
                else:
                    rejected[method].append(res.pvalue < 0.05)
            if scores.ndim == 3:
                lo, hi = _two_level_percentile(scores, pairs, n_resamples, draws)
                key = "two-level (old)"
                if effect:
                    covered.setdefault(key, []).append((lo <= truth) & (truth <= hi))
                else:
                    rejected.setdefault(key, []).append((lo > 0) | (hi < 0))
    return PairStudy(
        model=model,
        n_queries=n_queries,
        rejected={k: np.concatenate(v) for k, v in rejected.items()},
        covered={k: np.concatenate(v) for k, v in covered.items()},
        fired_null=np.concatenate(fired[False]),
        fired_effect=np.concatenate(fired[True]),
    )


def _two_level_percentile(
    worlds: np.ndarray, pairs: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The replaced two-level bootstrap: queries resampled and one world per replicate."""
    n_worlds, _, n = worlds.shape
    counts = index_counts(draw_seed(rng), BOOTSTRAP_STREAM, n, np.arange(n_resamples))
    k = rng.integers(0, n_worlds, size=n_resamples)
    d = worlds[:, pairs[:, 0]] - worlds[:, pairs[:, 1]]  # (W, m, n)
    reps = np.einsum("bq,bmq->bm", counts, d[k]) / n
    lo, hi = np.quantile(reps, [0.025, 0.975], axis=0)
    return lo, hi


# ---- the skewness alarm: which rule, by simulation ------------------------------------------


def _old_rule(d: np.ndarray) -> np.ndarray:
    """The replaced alarm: ``|skewness| > 1`` below 50 queries."""
    return (np.abs(skewness(d)) > 1.0) & (d.shape[1] < 50)


def _top_share_rule(d: np.ndarray) -> np.ndarray:
    """The largest 5 % of the deviations on one side carry more than half of their squares."""
    n = d.shape[1]
    k = max(1, int(np.ceil(0.05 * n)))
    c = np.sort(d - d.mean(axis=1, keepdims=True), axis=1)
    total = (c * c).sum(axis=1)
    top = np.maximum((c[:, -k:] ** 2).sum(axis=1), (c[:, :k] ** 2).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, top / total, 0.0) > 0.5


#: The candidate alarms compared by :func:`alarm_study`; ``"skewness^2 > 0.06 n"`` is the one
#: :func:`~fuzzytruth.stats.procedures.too_skewed` uses.
ALARMS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "|skewness| > 1, n < 50 (old)": _old_rule,
    "skewness^2 > 0.06 n": too_skewed,
    "top 5 % one side > 1/2": _top_share_rule,
}


@dataclass(frozen=True)
class AlarmStudy:
    """Where each candidate alarm fires, beside where the default t procedure fails.

    ``failed_null``: the t test rejected a true null; ``failed_effect``: the t interval missed
    the true difference; ``fired_null[rule]`` / ``fired_effect[rule]``: the alarm fired on
    that comparison's differences.
    """

    model: str
    n_queries: int
    failed_null: np.ndarray
    failed_effect: np.ndarray
    fired_null: dict[str, np.ndarray]
    fired_effect: dict[str, np.ndarray]


def alarm_study(
    model: str, n_queries: int, *, n_comparisons: int = 20_000, seed: int = 0
) -> AlarmStudy:
    """The t procedure (closed form) and every candidate alarm on the same simulated pairs."""
    gen = MODELS[model].draw
    rng = named_stream(seed, "alarm data", model, n_queries)
    failed: dict[bool, list] = {False: [], True: []}
    fired: dict[bool, dict[str, list]] = {e: {r: [] for r in ALARMS} for e in (False, True)}
    crit = sps.t.isf(0.025, n_queries - 1)
    batch = 2000
    for start in range(0, n_comparisons, batch):
        m = min(batch, n_comparisons - start)
        pairs = stacked_pairs(m)
        for effect in (False, True):
            scores, truth = gen(rng, m, n_queries, effect)
            x = scores.mean(axis=0) if scores.ndim == 3 else scores
            d = x[pairs[:, 0]] - x[pairs[:, 1]]
            mean = d.mean(axis=1)
            half = crit * d.std(axis=1, ddof=1) / np.sqrt(n_queries)
            failed[effect].append(np.abs(mean - truth) > half)  # rejects / misses the truth
            for rule, alarm in ALARMS.items():
                fired[effect][rule].append(alarm(d))
    return AlarmStudy(
        model=model,
        n_queries=n_queries,
        failed_null=np.concatenate(failed[False]),
        failed_effect=np.concatenate(failed[True]),
        fired_null={r: np.concatenate(v) for r, v in fired[False].items()},
        fired_effect={r: np.concatenate(v) for r, v in fired[True].items()},
    )


# ---- can any per-sample trigger see rare large differences? (issue 23) ----------------------


def _largest_query_share(d: np.ndarray) -> np.ndarray:
    """One query's deviation carries more than a third of the sum of squared deviations."""
    c = d - d.mean(axis=1, keepdims=True)
    total = (c * c).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, (c * c).max(axis=1) / total, 0.0) > 1 / 3


def hill_tail_index(d: np.ndarray) -> np.ndarray:
    """Hill's estimate of the tail index of each row's heavier one-sided tail: the ``k =
    max(5, n // 5)`` largest deviations from the median on each side, ``k / sum(log(x_i /
    x_(k+1)))``, the smaller of the two sides' estimates (a small index is a heavy tail)."""
    n = d.shape[1]
    k = min(max(5, n // 5), n // 2 - 1)
    c = d - np.median(d, axis=1, keepdims=True)
    out = np.full(d.shape[0], np.inf)
    for side in (c, -c):
        top = -np.sort(-side, axis=1)[:, : k + 1]  # the k + 1 largest, decreasing
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.log(top[:, :k] / top[:, k : k + 1])
            index = np.where(top[:, k] > 0, k / logs.sum(axis=1), np.inf)
        out = np.minimum(out, index)
    return out


#: The per-sample triggers compared by :func:`trigger_study` (the first is the one
#: :func:`~fuzzytruth.stats.procedures.too_skewed` uses).
TRIGGERS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "skewness^2 > 0.06 n": too_skewed,
    "top 5 % one side > 1/2": _top_share_rule,
    "largest query > 1/3": _largest_query_share,
    "Hill tail index < 2": lambda d: hill_tail_index(d) < 2.0,
}


def _mixture(rate: float, large: float, noise: float) -> Callable[..., tuple]:
    """Null differences: ``large`` on a share ``rate`` of the queries, ``-rate * large / (1 -
    rate)`` on the others (mean 0), plus ``noise`` N(0, 1); and which comparisons drew a
    large one."""

    def draw(rng: np.random.Generator, m: int, n: int) -> tuple:
        hit = rng.random((m, n)) < rate
        d = np.where(hit, large, -rate * large / (1 - rate))
        return d + noise * rng.standard_normal((m, n)), hit.any(axis=1)

    return draw


def _lognormal(rng: np.random.Generator, m: int, n: int) -> tuple:
    return 0.05 * (np.exp(rng.standard_normal((m, n))) - np.exp(0.5)), None


def _pareto(rng: np.random.Generator, m: int, n: int) -> tuple:
    alpha = 2.5  # a power-law right tail: finite variance, no third moment
    return 0.02 * (rng.pareto(alpha, (m, n)) - 1 / (alpha - 1)), None


def _normal_differences(rng: np.random.Generator, m: int, n: int) -> tuple:
    return 0.1 * rng.standard_normal((m, n)), None


def _from_scores(model: str) -> Callable[..., tuple]:
    """A model of :data:`MODELS` as null differences; "drew a large one": above 0.2."""

    def draw(rng: np.random.Generator, m: int, n: int) -> tuple:
        scores, _ = MODELS[model].draw(rng, m, n, False)
        d = scores[0::2] - scores[1::2]
        return d, (d > 0.2).any(axis=1)

    return draw


#: Null differences (mean 0) of the trigger study: ``name -> (draw, description)``; a draw
#: gives ``(differences (m, n), drew_large (m,) or None)``. Four are new here (issue 23),
#: two come from :data:`MODELS`.
TRIGGER_MODELS: dict[str, tuple[Callable[..., tuple], str]] = {
    "normal (sd 0.1)": (_normal_differences, "normal differences, sd 0.1"),
    "rare-large-10": (_from_scores("rare-large-10"), "10 % of queries +0.45, rest -0.05"),
    "rare-large-5": (_from_scores("rare-large-5"), "5 % of queries +0.95, rest -0.05"),
    "mixture 3 %": (_mixture(0.03, 0.9, 0.03), "3 % of queries +0.9, rest -0.028, 0.03 N"),
    "mixture 20 %": (_mixture(0.20, 0.3, 0.03), "20 % of queries +0.3, rest -0.075, 0.03 N"),
    "lognormal": (_lognormal, "0.05 (exp(N) - e^0.5): skewness 6.2"),
    "pareto 2.5": (_pareto, "0.02 (Pareto(2.5) - 2/3): power-law right tail"),
}


@dataclass(frozen=True)
class TriggerStudy:
    """The t test (two-sided, 5 %) on null differences, and where each trigger fired.

    ``failed``: the test rejected the true null; ``fired[rule]``: the trigger fired;
    ``drew_large``: the sample holds at least one large difference (mixtures; else None).
    """

    model: str
    n_queries: int
    failed: np.ndarray
    fired: dict[str, np.ndarray]
    drew_large: np.ndarray | None

    def rate(self, hits: np.ndarray, where: np.ndarray | None = None) -> tuple[float, int]:
        """``(share of hits among the comparisons where, how many those are)``."""
        chosen = hits if where is None else hits[where]
        return (float(chosen.mean()) if chosen.size else float("nan")), int(chosen.size)


def trigger_study(model: str, n_queries: int, *, n_comparisons: int = 20_000,
                  seed: int = 0) -> TriggerStudy:
    """Every trigger of :data:`TRIGGERS` and the t test on the same null comparisons."""
    draw = TRIGGER_MODELS[model][0]
    rng = named_stream(seed, "trigger data", model, n_queries)
    crit = sps.t.isf(0.025, n_queries - 1)
    failed, large = [], []
    fired: dict[str, list] = {r: [] for r in TRIGGERS}
    for start in range(0, n_comparisons, 2000):
        m = min(2000, n_comparisons - start)
        d, drew = draw(rng, m, n_queries)
        half = crit * d.std(axis=1, ddof=1) / np.sqrt(n_queries)
        failed.append(np.abs(d.mean(axis=1)) > half)
        large.append(drew)
        for rule, trigger in TRIGGERS.items():
            fired[rule].append(trigger(d))
    return TriggerStudy(
        model=model, n_queries=n_queries, failed=np.concatenate(failed),
        fired={r: np.concatenate(v) for r, v in fired.items()},
        drew_large=None if large[0] is None else np.concatenate(large),
    )
