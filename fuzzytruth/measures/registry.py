"""The registry of measure families and presets: what a kernel author writes.

A *measure family* is a kernel, its parameters and its spelling rules (:class:`MeasureFamily`);
a *preset* a named bundle of conventions (:class:`Preset`). They are looked up, and measures
built from them, in :mod:`fuzzytruth.measures.catalog`, which loads the built-in ones.

Registry API (for kernel authors)
---------------------------------
A family is registered by one :func:`register` call: the built-in ones in the modules of
:mod:`fuzzytruth.measures.builtin` (:mod:`~fuzzytruth.measures.catalog` imports every module
there the first time a family is looked up, so nothing else has to be edited to add one; their
kernels live in :mod:`fuzzytruth.metrics`), a user's in any file they import::

    from fuzzytruth.measures import Param, register

    def _nn(rg, *, rel):                      # rg is a RankedGains; returns (n_queries,) float64
        return (rg.gains[:, 0] >= rel).astype(float) if rg.depth else np.zeros(len(rg))

    register(
        "NN",
        _nn,
        params=(Param("rel", doc="relevance threshold (grade >= rel is relevant)"),),
        description="Nearest neighbour: 1 if the top-ranked document is relevant.",
    )

* ``kernel(rg, **params)`` receives a :class:`~fuzzytruth.metrics.base.RankedGains` and every
  parameter the family declares, already resolved and validated, and returns one float64 per
  query (NaN where the value is undefined, e.g. recall with no relevant document; the caller
  decides what to do with those queries).
* ``Param(name, default=PRESET, convert=..., choices=..., doc=...)``: ``default=PRESET`` means
  the value must come from the preset (shared conventions such as ``rel``); any other default
  is used when neither the measure nor the preset gives one. ``convert`` turns the parsed
  string (or a Python value) into the value the kernel gets and raises ``ValueError`` when it
  is invalid.
* ``at="k"`` names the parameter written after ``@``; ``at_required=True`` makes ``@`` mandatory.
* ``tie_averaged=True`` declares that the kernel reads ``rg.tie_start`` / ``rg.tie_stop`` and
  returns the expectation over all orders of tied documents; families without it raise a
  ``ValueError`` under the tie-averaged policy.
* ``aliases={"F1": {"beta": 1.0}}`` lets extra spellings parse to the family with fixed
  parameters (the canonical spelling stays the family's).
* ``reads="classes"`` registers a *classifier* family (:mod:`fuzzytruth.classify`): its kernel
  is ``kernel(view, truth, **params) -> (n_rows, n_items)``, one value per item for each row
  of the truth (world labels, plausibility vectors or label sets), and
  :func:`fuzzytruth.evaluate` gives it a :class:`~fuzzytruth.classify.Predictions` instead of
  a run (:mod:`fuzzytruth.metrics.classification`). ``per_item=False`` marks a statistic of
  the whole collection (ECE, a correlation) whose kernel returns linearised per-item values:
  it has no per-item law of its own, only worlds.
* :func:`register_preset` adds or replaces a named :class:`Preset`.
* Converters for ``Param(convert=...)``: :func:`positive_int`, :func:`positive_float`,
  :func:`unit_interval`, :func:`finite_float`.

Spellings are parsed by :func:`fuzzytruth.measures.parse_measure`.

Examples
--------
>>> from fuzzytruth.measures import family
>>> p = family("P")
>>> p.at, [param.name for param in p.params]
('k', ['rel', 'k'])
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

import numpy as np

from fuzzytruth._validation import check_choice, check_flag, check_int, check_type
from fuzzytruth.metrics.base import sum_in_order
from fuzzytruth.runs import SCORE_DTYPES, TIES

__all__ = [
    "PRESET",
    "MeasureFamily",
    "Param",
    "Preset",
    "finite_float",
    "positive_float",
    "positive_int",
    "register",
    "register_preset",
    "unit_interval",
]


class _PresetSentinel:
    """Marker for a parameter whose value must come from the preset."""

    def __repr__(self) -> str:
        return "PRESET"


PRESET: Any = _PresetSentinel()
"""Default of a :class:`Param` whose value the preset must provide."""


def _identity(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Param:
    """One parameter of a measure family.

    Parameters
    ----------
    name : str
        Parameter name as written in the measure string (``beta``, ``k``, ``rel``...).
    default : object, optional
        Value used when neither the measure nor the preset sets it; :data:`PRESET` (the default)
        means the preset must set it.
    convert : callable, optional
        ``convert(value) -> value``: turns a string from a parsed measure (or a Python value)
        into the kernel's value; raises ``ValueError`` for invalid input.
    choices : tuple, optional
        Allowed values after conversion, checked after ``convert``.
    doc : str, optional
        One-line description, shown by :func:`families`.
    """

    name: str
    default: Any = PRESET
    convert: Callable[[Any], Any] = _identity
    choices: tuple | None = None
    doc: str = ""

    def validate(self, value: Any, family_name: str) -> Any:
        """Convert ``value`` and check it against ``choices``; raise a ValueError naming both.

        Examples
        --------
        >>> Param("discount", choices=("log2", "jk")).validate("ln", "nDCG")
        Traceback (most recent call last):
        ...
        ValueError: parameter 'discount' of measure 'nDCG': must be one of ['log2', 'jk']; got 'ln'
        """
        try:
            out = self.convert(value)
            if self.choices is not None and out not in self.choices:
                raise ValueError(f"must be one of {list(self.choices)}; got {value!r}")
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"parameter {self.name!r} of measure {family_name!r}: {exc}"
            ) from None
        return out


@dataclass(frozen=True)
class MeasureFamily:
    """A registered measure family: kernel, parameters and spelling rules.

    Use :func:`register` rather than building this directly. A family pickles (and
    deep-copies) by its registered name, as a function does by its qualified name
    (:mod:`fuzzytruth.measures.catalog` registers the rule with :mod:`copyreg`).
    """

    name: str
    kernel: Callable[..., np.ndarray]
    params: tuple[Param, ...] = ()
    at: str | None = None
    at_required: bool = False
    tie_averaged: bool = False
    higher_is_better: bool = True
    description: str = ""
    aliases: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    undefined_value: float = 0.0
    aggregate: str = "mean"
    exact: Callable[..., Any] | None = None
    binary: Callable[..., Any] | None = None
    uses: frozenset[str] = frozenset()
    uses_if: Callable[..., Iterable[str]] | None = None
    reads: str = "ranking"
    per_item: bool = True

    def combine(self, values: np.ndarray, axis: int = -1) -> np.ndarray:
        """The system's value from per-query ``values`` along ``axis`` (NaN entries left out).

        ``aggregate="mean"`` averages, ``"sum"`` adds, ``"geometric"`` takes the geometric
        mean of ``max(value, GEOMETRIC_FLOOR)`` (trec_eval's ``gm_map``). A combination over
        no value is NaN.

        Examples
        --------
        >>> from fuzzytruth.measures import family
        >>> float(family("AP").combine(np.array([0.5, np.nan, 1.0])))
        0.75
        """
        values = np.asarray(values, dtype=np.float64)
        defined = ~np.isnan(values)
        count = defined.sum(axis=axis)
        total = sum_in_order(np.where(defined, self.summed(values), 0.0), axis)  # as trec_eval
        return self.combine_totals(total, count)

    def summed(self, values: np.ndarray) -> np.ndarray:
        """What the aggregate adds up for ``values``: the values themselves, or for a
        geometric mean their logs floored at ``log(GEOMETRIC_FLOOR)`` (NaN stays NaN).

        Examples
        --------
        >>> from fuzzytruth.measures import family
        >>> family("GMAP").summed(np.array([1.0, 0.0])).round(3).tolist()
        [0.0, -11.513]
        """
        values = np.asarray(values, dtype=np.float64)
        if self.aggregate != "geometric":
            return values
        return np.log(np.maximum(values, GEOMETRIC_FLOOR))

    def combine_totals(self, total: np.ndarray, count: np.ndarray) -> np.ndarray:
        """:meth:`combine` from the in-order sums ``total`` of the defined values (of their
        floored logs for a geometric mean) and their ``count``: NaN where ``count`` is 0.

        Examples
        --------
        >>> from fuzzytruth.measures import family
        >>> float(family("GMAP").combine_totals(np.log([0.5 * 0.125]), np.array([2]))[0])
        0.25
        """
        mean = self.combine_sums(total, count)
        return np.exp(mean) if self.aggregate == "geometric" else mean

    def combine_sums(self, total: np.ndarray, count: np.ndarray) -> np.ndarray:
        """:meth:`combine` from the sums ``total`` of defined values and their ``count``
        (of the logs for a geometric mean, whose ``exp`` is left to the caller): NaN where
        ``count`` is 0.

        Examples
        --------
        >>> from fuzzytruth.measures import family
        >>> family("AP").combine_sums(np.array([1.5, 0.0]), np.array([2, 0])).tolist()
        [0.75, nan]
        """
        total, count = np.asarray(total, dtype=np.float64), np.asarray(count)
        if self.aggregate == "sum":
            return np.where(count > 0, total, np.nan)
        return np.divide(total, count, out=np.full(np.shape(total), np.nan), where=count > 0)

    def param(self, name: str) -> Param:
        """Return the :class:`Param` called ``name``."""
        for p in self.params:
            if p.name == name:
                return p
        raise ValueError(
            f"measure {self.name!r} has no parameter {name!r}; "
            f"its parameters are {[p.name for p in self.params]}"
        )


AGGREGATES = ("mean", "sum", "geometric")
GRADES = ("float", "truncate")
"""How a :class:`Preset` reads crisp grades: as given, or truncated as trec_eval's ``atol``."""
USES = ("judged",)
READS = ("ranking", "classes")
"""What a family's kernel reads: a ranked list per query, or a classifier's classes per item."""
GEOMETRIC_FLOOR = 1e-5
"""trec_eval's floor for geometric means (``MIN_GEO_MEAN``): gm_map = exp(mean(log(max(AP, ε))))."""



_FAMILIES: dict[str, MeasureFamily] = {}
_ALIASES: dict[str, tuple[str, Mapping[str, Any]]] = {}
_PRESETS: dict[str, Preset] = {}


def register(
    name: str,
    kernel: Callable[..., np.ndarray],
    *,
    params: Iterable[Param] = (),
    at: str | None = None,
    at_required: bool = False,
    tie_averaged: bool = False,
    higher_is_better: bool = True,
    description: str = "",
    aliases: Mapping[str, Mapping[str, Any]] | None = None,
    undefined_value: float = 0.0,
    aggregate: str = "mean",
    exact: Callable[..., Any] | None = None,
    binary: Callable[..., Any] | None = None,
    uses: Iterable[str] = (),
    uses_if: Callable[..., Iterable[str]] | None = None,
    reads: str = "ranking",
    per_item: bool = True,
    replace: bool = False,
) -> MeasureFamily:
    """Register a measure family under ``name``.

    Parameters
    ----------
    name : str
        Family name, the part of the spelling before ``(`` or ``@`` (e.g. ``"NN"``, ``"E"``).
        Letters, digits, ``_`` and ``-``.
    kernel : callable
        ``kernel(rg, **params) -> numpy.ndarray`` of shape ``(n_queries,)``, vectorised over
        the rows of a :class:`~fuzzytruth.metrics.base.RankedGains`.
    params : iterable of Param
        Every parameter the kernel takes, in canonical spelling order.
    at : str, optional
        Name of the parameter written after ``@`` (must be one of ``params``).
    at_required : bool, default False
        Whether ``@`` must be given.
    tie_averaged : bool, default False
        Whether the kernel returns the expectation over tie orders when ``rg`` carries tie
        groups (see :class:`~fuzzytruth.metrics.base.RankedGains`).
    higher_is_better : bool, default True
        Direction of the measure (recorded with results).
    description : str, optional
        One-line description.
    aliases : mapping, optional
        Extra names that parse to this family with some parameters fixed,
        e.g. ``{"F1": {"beta": 1.0}}``.
    undefined_value : float, default 0.0
        What a query scores where the kernel returns NaN (no relevant document, ...) under the
        default rule ``undefined="zero"`` (trec_eval's: the query counts and scores this).
    aggregate : {"mean", "sum", "geometric"}, default "mean"
        How per-query values combine into the system's value: the arithmetic mean, the sum
        (trec_eval's ``num_*`` counts) or the geometric mean of ``max(value, 1e-5)``
        (trec_eval's ``gm_map``).
    exact : callable, optional
        ``exact(ctx, **params) -> DistributionBatch | None``: the exact per-query distribution
        when each ranked document is relevant independently (see
        :class:`fuzzytruth.uncertain.closed_form.ExactInput`); ``None`` where it does not apply
        to these parameters.
    binary : callable, optional
        ``binary(depth, **params) -> kernel | None``: a fast kernel for sampled 0/1 worlds,
        ``kernel(relevant, lengths, n_relevant)`` with ``relevant`` ``(depth, n_rows)``
        boolean (rank-major); it must equal ``kernel`` on those worlds.
    uses : iterable of str
        Optional :class:`~fuzzytruth.metrics.base.RankedGains` fields the kernel reads
        (``"judged"``); the evaluation builds them only when asked.
    uses_if : callable, optional
        ``uses_if(**params) -> iterable of str``: fields that only some parameter values read
        (nDCG reads ``judged`` only for a gain map giving grade 0 a gain); see
        :attr:`fuzzytruth.measures.Measure.uses`.
    reads : {"ranking", "classes"}, default "ranking"
        What the kernel reads: ranked gains of a run (retrieval), or a classifier's view of
        the truth (module docstring).
    per_item : bool, default True
        For a classifier family: whether each item's value depends on that item alone (False
        for statistics of the whole collection, whose kernels return linearised values).
    replace : bool, default False
        Allow replacing an existing family of the same name.

    Returns
    -------
    MeasureFamily
        The registered family.
    """
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_\-]+", name):
        shown = repr(name) if isinstance(name, str) else type(name).__name__
        raise ValueError(f"measure family name must match [A-Za-z0-9_-]+ (a str); got "
                         f"{shown}")
    if (name in _FAMILIES or name in _ALIASES) and not replace:
        raise ValueError(f"measure family {name!r} is already registered; pass replace=True")
    params = tuple(params)
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise ValueError(f"parameters of measure {name!r} must be unique; got {names}")
    if at is not None and at not in names:
        raise ValueError(f"at={at!r} of measure {name!r} must be one of its parameters {names}")
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {list(AGGREGATES)}; got {aggregate!r}")
    check_choice("reads", reads, READS)
    per_item = check_flag("per_item", per_item)
    uses = frozenset(uses)
    if not uses <= set(USES):
        raise ValueError(f"uses must be a subset of {list(USES)}; got {sorted(uses)}")
    fam = MeasureFamily(
        name=name,
        kernel=kernel,
        params=params,
        at=at,
        at_required=at_required,
        tie_averaged=tie_averaged,
        higher_is_better=higher_is_better,
        description=description,
        aliases=MappingProxyType(dict(aliases or {})),
        undefined_value=float(undefined_value),
        aggregate=aggregate,
        exact=exact,
        binary=binary,
        uses=uses,
        uses_if=uses_if,
        reads=reads,
        per_item=per_item,
    )
    for alias, fixed in fam.aliases.items():
        for pname in fixed:
            fam.param(pname)
        if alias in _FAMILIES or (alias in _ALIASES and not replace):
            raise ValueError(f"alias {alias!r} of measure {name!r} is already registered")
        _ALIASES[alias] = (name, MappingProxyType(dict(fixed)))
    _FAMILIES[name] = fam
    return fam


# ---------------------------------------------------------------------------------------------
# Common converters (for kernel authors)


LARGEST_INT = 2**53
"""The largest integer parameter (a cutoff, a bin count): the doubles hold every integer up to
it, and the kernels' int64 arithmetic has room past it. A cutoff of 10**30 failed in a dozen
kernels with errors that named no parameter (numba typing errors, 'Python int too large to
convert to C long'); every measure at k = 2**53 scores as at any k past its lists."""


def positive_int(value: Any) -> int:
    """Convert to an int from 1 to :data:`LARGEST_INT` (accepts ``"10"``, ``10``, ``10.0``)."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a positive integer; got {value!r}") from None
    if not f.is_integer() or f < 1:
        raise ValueError(f"must be a positive integer; got {value!r}")
    if f > LARGEST_INT:
        raise ValueError(f"must be a positive integer at most 2**53 ({LARGEST_INT}); got "
                         f"{value!r}")
    return int(f)


def unit_interval(value: Any) -> float:
    """Convert to a float in [0, 1]."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a number in [0, 1]; got {value!r}") from None
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"must be a number in [0, 1]; got {value!r}")
    return f


def positive_float(value: Any) -> float:
    """Convert to a finite float > 0."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a positive number; got {value!r}") from None
    if not (math.isfinite(f) and f > 0):
        raise ValueError(f"must be a positive number; got {value!r}")
    return f


def finite_float(value: Any) -> float:
    """Convert to a finite float."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a finite number; got {value!r}") from None
    if not math.isfinite(f):
        raise ValueError(f"must be a finite number; got {value!r}")
    return f


# ---------------------------------------------------------------------------------------------
# Presets


@dataclass(frozen=True)
class Preset:
    """A named bundle of conventions.

    Parameters
    ----------
    name : str
        Preset name, used by ``preset="..."`` arguments.
    params : mapping
        Values for parameters of any family that declares a parameter of that name
        (e.g. ``{"rel": 1, "discount": "log2"}``).
    family_params : mapping
        Per-family overrides, ``{"nDCG": {"discount": "jk"}}``; they win over ``params``.
    ties : {"docid_desc", "docid_asc", "input_order", "average"}
        How tied scores are ordered when a run is ranked (:func:`fuzzytruth.runs.rank`).
    score_dtype : {"float64", "float32"}
        Precision in which scores are compared; trec_eval 9 reads scores as float32, so scores
        equal in float32 are ties there.
    renames : mapping
        Families that mean another family under this preset, ``{"R": "Success"}``: the
        cross-modal community's R@K is Success@K.
    min_relevant : int
        Queries with fewer relevant documents are left out of every aggregate (the PSB leaves
        out classes of fewer than 3 models: 2 relevant besides the query). Default 0.
    grades : {"float", "truncate"}
        How crisp qrels grades are read: as given (default), or truncated toward zero as
        trec_eval reads them (``atol``: ``2.7`` is grade 2, ``0.5`` and ``-0.5`` are grade 0,
        i.e. judged non-relevant), before any measure or ``-J``
        (:func:`fuzzytruth.metrics.base.truncate_grades`); the grades of probabilistic qrels
        alike (:meth:`fuzzytruth.ProbabilisticQrels.truncated`). Categorical truths have no
        grades to read and are unaffected.
    groups : mapping
        Measure groups that list other measures under this preset than
        :data:`fuzzytruth.measures.names.TREC_GROUPS` (their names, in any spelling): trec_eval
        10's ``all_trec`` adds ``rbp``, ``rbp_resid`` and ``unj`` to 9.0.8's.
    description : str
        One line, recorded with results.

    Examples
    --------
    >>> from fuzzytruth.measures import get_preset
    >>> get_preset("trec").ties
    'docid_desc'
    """

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    family_params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    ties: str = "docid_desc"
    score_dtype: str = "float64"
    renames: Mapping[str, str] = field(default_factory=dict)
    min_relevant: int = 0
    grades: str = "float"
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    description: str = ""

    def __post_init__(self) -> None:
        check_choice("ties", self.ties, TIES)
        check_choice("grades", self.grades, GRADES)
        check_choice("score_dtype", self.score_dtype, SCORE_DTYPES)
        check_int("min_relevant", self.min_relevant)
        object.__setattr__(self, "renames", MappingProxyType(dict(self.renames)))
        object.__setattr__(self, "groups", MappingProxyType(
            {str(k): tuple(v) for k, v in self.groups.items()}))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))
        object.__setattr__(
            self,
            "family_params",
            MappingProxyType({k: MappingProxyType(dict(v)) for k, v in self.family_params.items()}),
        )

    def __reduce__(self) -> tuple[type[Preset], tuple[Any, ...]]:
        """Pickled as its constructor's arguments, the read-only mappings as dicts."""
        def plain(value: Any) -> Any:
            return {k: plain(v) for k, v in value.items()} if isinstance(value, Mapping) else value

        return type(self), tuple(plain(getattr(self, f.name)) for f in fields(self))

    def as_dict(self) -> dict[str, Any]:
        """Plain-dict form, for recording the conventions used next to results."""
        return {
            "name": self.name,
            "params": dict(self.params),
            "family_params": {k: dict(v) for k, v in self.family_params.items()},
            "ties": self.ties,
            "score_dtype": self.score_dtype,
            "renames": dict(self.renames),
            "min_relevant": self.min_relevant,
            "grades": self.grades,
            "groups": {k: list(v) for k, v in self.groups.items()},
            "description": self.description,
        }

    def counts_query(self, rg: Any) -> np.ndarray:
        """``(n_queries,)`` bool: which queries of ``rg`` enter aggregates (``min_relevant``)."""
        if self.min_relevant <= 0:
            return np.ones(len(rg), dtype=bool)
        return rg.n_relevant(self.params.get("rel", 1)) >= self.min_relevant


def register_preset(preset: Preset, *, replace: bool = False) -> Preset:
    """Register ``preset`` under ``preset.name``.

    Parameters
    ----------
    preset : Preset
        The conventions bundle.
    replace : bool, default False
        Allow replacing a preset of the same name.

    Returns
    -------
    Preset
    """
    check_type(preset, "preset", Preset, ": make one with Preset(name=..., ...) or "
               "dataclasses.replace(get_preset(...), name=...)")
    if preset.name in _PRESETS and not replace:
        raise ValueError(f"preset {preset.name!r} is already registered; pass replace=True")
    _PRESETS[preset.name] = preset
    return preset
