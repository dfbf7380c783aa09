"""Multiple comparisons without exchangeable systems: family-wise error and power by simulation.

Five systems ``x_s = q + shift_s + sigma_s e`` over the same queries (``q ~ Beta(2, 5)``, ``e``
standard normal), ``sigma = (0.02, 0.05, 0.1, 0.2, 0.3)``: equal means (``shift = 0``) but
unequal variances, so the systems are not exchangeable. With ``shift > 0`` the first system
(the least noisy) is moved up by ``shift``; its 4 pairs are then false nulls and the other 6
true ones. Used by ``benchmarks/stats_validity.py`` and ``tests/test_stats_validity.py``.
"""

from __future__ import annotations

import numpy as np

from fuzzytruth._random import named_stream
from fuzzytruth.stats._validation import all_pairs
from fuzzytruth.stats.bootstrap import paired_bootstrap
from fuzzytruth.stats.multiple import (
    adjust_pvalues,
    paired_tukey_hsd,
    randomized_tukey_hsd,
    romano_wolf,
)
from fuzzytruth.stats.paired import paired_test

SIGMA = np.array([0.02, 0.05, 0.1, 0.2, 0.3])
#: The corrections compared, each with its test (Holm on the default t test's p-values).
CORRECTIONS = ("holm (t)", "romano-wolf", "tukey-randomized", "tukey-anova")


def unequal_variance_study(
    n_queries: int,
    *,
    shift: float = 0.0,
    n_datasets: int = 500,
    n_resamples: int = 999,
    corrections: tuple[str, ...] = CORRECTIONS,
    seed: int = 0,
) -> dict[str, tuple[float, float]]:
    """``{correction: (family-wise error, power)}`` at 5 % over all 10 pairs of 5 systems.

    Family-wise error: the share of data sets with a rejection among the true nulls (all 10
    pairs when ``shift = 0``, the 6 pairs without the shifted system otherwise). Power: the
    share of data sets with a rejection among the shifted system's 4 pairs (NaN when
    ``shift = 0``).
    """
    rng = named_stream(seed, "families data", n_queries, int(shift * 1e6))
    draws = named_stream(seed, "families procedures", n_queries, int(shift * 1e6))
    pairs = all_pairs(len(SIGMA))
    moved = (pairs == 0).any(axis=1)
    false_alarm = dict.fromkeys(corrections, 0)
    found = dict.fromkeys(corrections, 0)
    offset = np.zeros((5, 1))
    offset[0] = shift
    for _ in range(n_datasets):
        q = rng.beta(2.0, 5.0, size=n_queries)
        x = q[None] + offset + SIGMA[:, None] * rng.standard_normal((5, n_queries))
        adjusted = {}
        if "holm (t)" in corrections:
            adjusted["holm (t)"] = adjust_pvalues(paired_test(x, pairs=pairs).pvalue)
        if "romano-wolf" in corrections:
            boot = paired_bootstrap(x, pairs=pairs, n_resamples=n_resamples, rng=draws)
            adjusted["romano-wolf"] = romano_wolf(boot)
        if "tukey-randomized" in corrections:
            adjusted["tukey-randomized"] = randomized_tukey_hsd(
                x, pairs=pairs, n_resamples=n_resamples, rng=draws
            ).pvalue
        if "tukey-anova" in corrections:
            adjusted["tukey-anova"] = paired_tukey_hsd(x, pairs=pairs).pvalue
        for name, p in adjusted.items():
            reject = p < 0.05
            false_alarm[name] += bool(reject[~moved].any() if shift else reject.any())
            found[name] += bool(reject[moved].any())
    return {
        name: (false_alarm[name] / n_datasets,
               found[name] / n_datasets if shift else float("nan"))
        for name in corrections
    }
