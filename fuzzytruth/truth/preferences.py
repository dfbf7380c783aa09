"""Preference judgments (trec_eval's ``-R prefs`` and ``-R qrels_prefs`` input): each line puts a
document at a level within a judgment group and subgroup of a query.

Within one subgroup a document of a higher level is preferred to one of a lower level; a
judgment group (one user's information need) is the union of its subgroups' preferences,
closed under transitivity. Level 0 means non-relevant, a level above 0 relevant (see
:mod:`fuzzytruth.metrics.prefs` for the measures). Levels are stored as trec_eval stores them,
in float32 (read with ``atof``: fractional levels are kept).

Examples
--------
>>> prefs = Preferences(["q", "q", "q"], ["u1", "u1", "u2"], ["s", "s", "s"],
...                     ["a", "b", "a"], [2, 1, 0])
>>> prefs
Preferences(1 queries, 2 judgment groups, 3 lines)
>>> prefs.to_dataframe()
  query_id group subgroup doc_id  level
0        q    u1        s      a    2.0
1        q    u1        s      b    1.0
2        q    u2        s      a    0.0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from fuzzytruth._pairs import check_columns
from fuzzytruth._validation import ids_text, plain, real_array
from fuzzytruth.metrics.prefs import trec_float
from fuzzytruth.truth.qrels import Qrels

__all__ = ["Preferences"]


class Preferences:
    """Preference judgments: one row per (query, judgment group, subgroup, document, level).

    Parameters
    ----------
    query_ids, groups, subgroups, doc_ids : array-like
        Ids of each line (converted to str).
    levels : array-like
        Each line's level (finite; stored in float32, as trec_eval reads it).
    source : str, optional
        Where the lines came from, used in error messages.
    line_numbers : array-like of int, optional
        1-based line of each row in ``source``.

    Raises
    ------
    ValueError
        A level that is not a finite number; a document listed twice in one subgroup; a
        document non-relevant (level 0) in one subgroup of a judgment group and relevant
        (level > 0) in another (trec_eval refuses both).
    """

    def __init__(
        self,
        query_ids: Any,
        groups: Any,
        subgroups: Any,
        doc_ids: Any,
        levels: Any,
        *,
        source: str | None = None,
        line_numbers: ArrayLike | None = None,
    ) -> None:
        columns = {}
        for column, name, given in (("query_id", "query_ids", query_ids),
                                    ("group", "groups", groups),
                                    ("subgroup", "subgroups", subgroups),
                                    ("doc_id", "doc_ids", doc_ids)):
            ids = np.asarray(given, dtype=object)
            missing = pd.isna(ids)
            if np.ndim(missing) and missing.any():  # str() made them ids "None" and "nan"
                raise ValueError(f"{name} must not contain missing values (found at row "
                                 f"{int(np.argmax(missing))})")
            columns[column] = ids_text(ids, name)
        frame = pd.DataFrame(columns)
        values = real_array(levels, "levels")
        if values.shape != (len(frame),):
            raise ValueError(
                f"levels must have one value per line ({len(frame)}); got shape {values.shape}"
            )
        self._where = (source, line_numbers)
        if not np.isfinite(values).all():
            raise ValueError(f"{self._at(int(np.argmin(np.isfinite(values))))}: level must be a "
                             "finite number")
        frame["level"] = trec_float(values)
        self._frame = frame
        self._check()

    def _at(self, row: int) -> str:
        source, lines = self._where
        where = f"{source}, line {int(lines[row])}" if source and lines is not None else (
            f"row {row}")
        return where

    def _check(self) -> None:
        f = self._frame
        twice = f.duplicated(["query_id", "group", "subgroup", "doc_id"], keep="first")
        if twice.any():
            row = int(np.argmax(twice.to_numpy()))
            raise ValueError(
                f"{self._at(row)}: document {plain(f['doc_id'].iloc[row])!r} is listed twice in "
                f"subgroup {plain(f['subgroup'].iloc[row])!r} of judgment group "
                f"{plain(f['group'].iloc[row])!r}, query {plain(f['query_id'].iloc[row])!r}"
            )
        keys = ["query_id", "group", "doc_id"]
        zero = f["level"].eq(0).groupby([f[k] for k in keys]).transform("any")
        positive = f["level"].gt(0).groupby([f[k] for k in keys]).transform("any")
        both = (zero & positive).to_numpy()
        if both.any():
            row = int(np.argmax(both))
            raise ValueError(
                f"{self._at(row)}: document {plain(f['doc_id'].iloc[row])!r} is non-relevant "
                f"(level 0) in one subgroup of judgment group {plain(f['group'].iloc[row])!r} "
                f"and relevant in another (query {plain(f['query_id'].iloc[row])!r}); trec_eval "
                "refuses this too"
            )

    def __len__(self) -> int:
        return len(self._frame)

    def __repr__(self) -> str:
        n_q = self._frame["query_id"].nunique()
        n_g = len(self._frame.drop_duplicates(["group"]))
        return f"Preferences({n_q} queries, {n_g} judgment groups, {len(self)} lines)"

    @property
    def queries(self) -> list[str]:
        """The judged queries, sorted."""
        return sorted(self._frame["query_id"].unique().tolist())

    def to_dataframe(self) -> pd.DataFrame:
        """``query_id, group, subgroup, doc_id, level`` (a copy)."""
        return self._frame.copy()

    @classmethod
    def from_dataframe(
        cls,
        df: pd.DataFrame,
        *,
        query_col: str = "query_id",
        group_col: str = "group",
        subgroup_col: str | None = "subgroup",
        doc_col: str = "doc_id",
        level_col: str = "level",
    ) -> Preferences:
        """Build preferences from a DataFrame; without ``subgroup_col`` every judgment group
        is one subgroup (``-R qrels_prefs``).

        Examples
        --------
        >>> df = pd.DataFrame({"query_id": ["q", "q"], "group": ["0", "0"],
        ...                    "doc_id": ["a", "b"], "level": [1, 0]})
        >>> Preferences.from_dataframe(df, subgroup_col=None)
        Preferences(1 queries, 1 judgment groups, 2 lines)
        """
        columns = {"query_col": query_col, "group_col": group_col, "doc_col": doc_col,
                   "level_col": level_col}
        if subgroup_col is not None:
            columns["subgroup_col"] = subgroup_col
        check_columns(df, columns)
        subgroups = df[subgroup_col] if subgroup_col is not None else np.full(len(df), "0")
        return cls(df[query_col], df[group_col], subgroups, df[doc_col], df[level_col])

    @classmethod
    def from_qrels(cls, qrels: Qrels | Mapping[str, Qrels]) -> Preferences:
        """A qrels read as preferences (trec_eval's ``-R qrels_prefs``): one judgment group
        (named ``"0"``, or by the mapping's keys for several), one subgroup each, the grades as
        levels.

        Examples
        --------
        >>> Preferences.from_qrels(Qrels(["q", "q"], ["a", "b"], [1, 0])).to_dataframe()
          query_id group subgroup doc_id  level
        0        q     0        0      a    1.0
        1        q     0        0      b    0.0
        """
        groups = {"0": qrels} if isinstance(qrels, Qrels) else dict(qrels)
        frames = [q.to_dataframe().assign(group=str(g)) for g, q in groups.items()]
        df = pd.concat(frames, ignore_index=True)
        return cls(df["query_id"], df["group"], np.full(len(df), "0"), df["doc_id"],
                   df["relevance"])
