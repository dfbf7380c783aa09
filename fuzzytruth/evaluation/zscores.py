"""Per-query values as z-scores against a reference set of runs (trec_eval's ``-Z``).

trec_eval (``convert_zscores.c``) replaces each per-query value ``v`` of a measure by
``(v − mean) / stddev``, the mean and standard deviation of that (query, measure) over the
reference runs (:func:`fuzzytruth.io.read_trec_zscores`), *before* it is accumulated, so the
summary of a run is the mean (or the sum, for counts) of its z-scores. Its rules:

* a (query, measure) missing from the reference gets :data:`MISSING_ZSCORE` (−1,000,000), a
  visible sentinel rather than a silent gap;
* a standard deviation of 0 gives 0 when the value equals the mean, the sentinel otherwise;
* NaN in the reference (``atof("nan")``) gives NaN, printed ``nan``.

For ``gm_map`` and ``gm_bpref`` trec_eval's per-query value is ``log(max(v, 1e-5))``, and that
is what is standardised (their summary is ``exp`` of the mean z-score).

Examples
--------
>>> import pandas as pd
>>> reference = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "measure": ["map", "P_5", "map"],
...                           "mean": [0.5, 0.4, 0.2], "std": [0.25, 0.0, 0.1]})
>>> trec_zscores(["q1", "q1", "q2", "q3"], ["map", "P_5", "P_5", "map"],
...              [0.75, 0.4, 0.3, 0.1], reference).tolist()
[1.0, 0.0, -1000000.0, -1000000.0]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from fuzzytruth._validation import ids_text

__all__ = ["MISSING_ZSCORE", "trec_zscores"]

MISSING_ZSCORE = -1_000_000.0
"""trec_eval's ``MISSING_ZSCORE_VALUE``: the z-score of a value without a reference."""


def trec_zscores(
    query_ids: Sequence[str],
    measures: Sequence[str],
    values: Sequence[float] | np.ndarray,
    reference: pd.DataFrame,
) -> np.ndarray:
    """Each ``values[i]`` of ``(query_ids[i], measures[i])`` as a z-score (module docstring).

    Parameters
    ----------
    query_ids, measures : sequences of str
        The query and the measure's printed trec_eval name of each value.
    values : array-like of float
        trec_eval's per-query values.
    reference : pandas.DataFrame
        Columns ``query_id``, ``measure``, ``mean``, ``std``, one row per pair
        (:func:`fuzzytruth.io.read_trec_zscores`).

    Returns
    -------
    numpy.ndarray
        The z-scores, :data:`MISSING_ZSCORE` where there is no reference or the standard
        deviation is 0 and the value differs from the mean.
    """
    values = np.asarray(values, dtype=np.float64)
    keys = pd.MultiIndex.from_arrays([ids_text(np.asarray(query_ids, dtype=object), "queries"),
                                      ids_text(np.asarray(measures, dtype=object), "measures")])
    table = reference.set_index(["query_id", "measure"])[["mean", "std"]]
    found = table.reindex(keys)
    mean, std = found["mean"].to_numpy(), found["std"].to_numpy()
    known = found.index.isin(table.index)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(std != 0, (values - mean) / std, np.where(values == mean, 0.0, MISSING_ZSCORE))
    return np.where(known, z, MISSING_ZSCORE)
