"""Measures as value objects, the registry of measure families, and the preset registry.

A *measure* is a family name plus parameters, with exactly one canonical spelling::

    P@10   R@100   nDCG@10   AP   RR   Rprec   Success@5   F(beta=0.5)@10   iP@0.5   11pt

The spelling is ``Family(name=value,...)@at``: ``@at`` sets the family's *at-parameter* (a rank
cutoff for ``P``, a recall level for ``iP``), the parentheses set any other parameter, in the
order the family declares them; a value equal to the parameter's fixed default is not spelled
(``F(beta=1)@10`` is ``F@10``). Parameters left out are filled from a :class:`Preset` when the
measure is computed (``Measure.resolve``), so ``nDCG@10`` means the trec_eval form under the
``"trec"`` preset and the Järvelin–Kekäläinen form under a shape-benchmark preset.

Registry API (for kernel authors)
---------------------------------
A family is registered by one :func:`register` call: the built-in ones in the modules of
:mod:`fuzzytruth.measures.builtin` (every module there is imported when the registry is first
used, so nothing else has to be edited to add one; their kernels live in
:mod:`fuzzytruth.metrics`), a user's in any file they import::

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
>>> m = Measure("nDCG", k=10)
>>> m
Measure('nDCG@10')
>>> str(m.resolve("trec"))
'nDCG(gain=linear,discount=log2)@10'
>>> Measure("F1", k=10) == Measure("F", beta=1, k=10)
True
>>> str(Measure("AP", denominator="retrieved_relevant"))
'AP(denominator=retrieved_relevant)'
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from fuzzytruth._validation import check_choice, check_int
from fuzzytruth.runs import SCORE_DTYPES, TIES

__all__ = [
    "PRESET",
    "Measure",
    "MeasureFamily",
    "Param",
    "Preset",
    "families",
    "family",
    "family_alias",
    "finite_float",
    "get_preset",
    "positive_float",
    "positive_int",
    "presets",
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
        """Convert ``value`` and check it against ``choices``; raise a ValueError naming both."""
        try:
            out = self.convert(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"parameter {self.name!r} of measure {family_name!r}: {exc}"
            ) from None
        if self.choices is not None and out not in self.choices:
            raise ValueError(
                f"parameter {self.name!r} of measure {family_name!r} must be one of "
                f"{list(self.choices)}; got {value!r}"
            )
        return out


@dataclass(frozen=True)
class MeasureFamily:
    """A registered measure family: kernel, parameters and spelling rules.

    Use :func:`register` rather than building this directly.
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
        >>> float(family("AP").combine(np.array([0.5, np.nan, 1.0])))
        0.75
        """
        values = np.asarray(values, dtype=np.float64)
        defined = ~np.isnan(values)
        count = defined.sum(axis=axis)
        if self.aggregate == "geometric":
            values = np.log(np.maximum(values, GEOMETRIC_FLOOR))
        total = np.where(defined, values, 0.0).sum(axis=axis)
        mean = self.combine_sums(total, count)
        return np.exp(mean) if self.aggregate == "geometric" else mean

    def combine_sums(self, total: np.ndarray, count: np.ndarray) -> np.ndarray:
        """:meth:`combine` from the sums ``total`` of defined values and their ``count``
        (of the logs for a geometric mean, whose ``exp`` is left to the caller): NaN where
        ``count`` is 0.

        Examples
        --------
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
_KERNELS_LOADED = False


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
        :attr:`Measure.uses`.
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
    if not re.fullmatch(r"[A-Za-z0-9_\-]+", name):
        raise ValueError(f"measure family name must match [A-Za-z0-9_-]+; got {name!r}")
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
    check_choice("per_item", per_item, (True, False))
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


def _load_kernels() -> None:
    global _KERNELS_LOADED
    if not _KERNELS_LOADED:
        _KERNELS_LOADED = True
        package = importlib.import_module("fuzzytruth.measures.builtin")
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{module.name}")
        importlib.import_module("fuzzytruth.measures.conventions")


def family(name: str) -> MeasureFamily:
    """Return the registered family ``name``.

    Examples
    --------
    >>> family("AP").at
    'k'
    """
    _load_kernels()
    try:
        return _FAMILIES[name]
    except KeyError:
        raise ValueError(
            f"unknown measure family {name!r}; registered families are {sorted(_FAMILIES)}"
        ) from None


def family_alias(name: str) -> tuple[str, Mapping[str, Any]] | None:
    """The family and fixed parameters an alias spelling stands for (``"F1"`` is ``F`` with
    ``beta=1``), or None when ``name`` is no alias.

    Examples
    --------
    >>> family_alias("F1")[0], dict(family_alias("F1")[1]), family_alias("AP")
    ('F', {'beta': 1.0}, None)
    """
    _load_kernels()
    return _ALIASES.get(name)


def families() -> dict[str, MeasureFamily]:
    """All registered families by name (a copy).

    Examples
    --------
    >>> {"P", "AP", "nDCG", "11pt"} <= set(families())
    True
    """
    _load_kernels()
    return dict(_FAMILIES)


# ---------------------------------------------------------------------------------------------
# Measure value objects and their spelling


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    if isinstance(value, Mapping):
        items = (f"{_format_value(k)}:{_format_value(v)}" for k, v in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, tuple):
        return "[" + ",".join(_format_value(v) for v in value) + "]"
    return str(value)


class _Frozen(dict):
    """A hashable mapping for parameter values such as gain maps."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))

    def __setitem__(self, key: Any, value: Any) -> None:
        raise TypeError("measure parameter mappings are read-only")


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return _Frozen(value)
    return value


class Measure:
    """A measure: a family plus explicitly given parameters; immutable and hashable.

    Parameters
    ----------
    family : str
        Registered family name (or alias, e.g. ``"F1"``).
    **params
        Parameter values; converted and validated by the family's :class:`Param` objects.

    Examples
    --------
    >>> Measure("P", k=10)
    Measure('P@10')
    >>> Measure("iP", recall=0.5, interpolation="textbook")
    Measure('iP(interpolation=textbook)@0.5')
    >>> Measure("P", k=0)
    Traceback (most recent call last):
    ...
    ValueError: parameter 'k' of measure 'P': must be a positive integer; got 0
    """

    __slots__ = ("_family", "_params")

    def __init__(self, family_name: str, /, **params: Any) -> None:
        _load_kernels()
        if family_name in _ALIASES:
            family_name, fixed = _ALIASES[family_name]
            clash = set(fixed) & set(params)
            if clash:
                raise ValueError(
                    f"alias fixes parameter(s) {sorted(clash)}; do not set them again"
                )
            params = {**fixed, **params}
        fam = family(family_name)
        values: dict[str, Any] = {}
        for name, value in params.items():
            param = fam.param(name)
            converted = _freeze(param.validate(value, fam.name))
            if param.default is PRESET or param.default is None or converted != param.default:
                values[name] = converted  # a value equal to a fixed default is not spelled
        self._family = fam.name
        self._params = tuple((p.name, values[p.name]) for p in fam.params if p.name in values)

    @property
    def family(self) -> MeasureFamily:
        """The :class:`MeasureFamily` of this measure."""
        return _FAMILIES[self._family]

    @property
    def name(self) -> str:
        """Family name."""
        return self._family

    @property
    def params(self) -> dict[str, Any]:
        """Explicitly set parameters (a copy), in canonical order."""
        return dict(self._params)

    def __getitem__(self, name: str) -> Any:
        return dict(self._params)[name]

    @property
    def uses(self) -> frozenset[str]:
        """Optional :class:`~fuzzytruth.metrics.base.RankedGains` fields this measure reads.

        The family's ``uses`` plus what its ``uses_if`` asks for these parameters; call it on
        a resolved measure (:meth:`resolve`).

        Examples
        --------
        >>> sorted(Measure("Judged", k=10).uses)
        ['judged']
        >>> sorted(Measure("nDCG", gain={0: 1, 1: 2}).uses), sorted(Measure("nDCG").uses)
        (['judged'], [])
        """
        fam = self.family
        if fam.uses_if is None:
            return fam.uses
        kwargs = {k: (dict(v) if isinstance(v, _Frozen) else v) for k, v in self._params}
        for p in fam.params:
            kwargs.setdefault(p.name, None if p.default is PRESET else p.default)
        return fam.uses | frozenset(fam.uses_if(**kwargs))

    def __str__(self) -> str:
        fam = self.family
        inner = [f"{k}={_format_value(v)}" for k, v in self._params if k != fam.at]
        text = fam.name + (f"({','.join(inner)})" if inner else "")
        params = dict(self._params)
        if fam.at is not None and fam.at in params:
            text += "@" + _format_value(params[fam.at])
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Measure):
            return NotImplemented
        return self._family == other._family and self._params == other._params

    def __hash__(self) -> int:
        return hash((self._family, self._params))

    def resolve(self, preset: str | Preset = "trec") -> Measure:
        """Fill every unset parameter from ``preset``, then from the family defaults.

        Parameters
        ----------
        preset : str or Preset, default "trec"
            The conventions to fill in.

        Returns
        -------
        Measure
            A measure with every parameter set.

        Examples
        --------
        >>> str(Measure("AP").resolve("trec"))
        'AP(rel=1,denominator=all_relevant)'
        """
        preset = get_preset(preset)
        if self._family in preset.renames:
            return Measure(preset.renames[self._family], **dict(self._params)).resolve(preset)
        fam = self.family
        explicit = dict(self._params)
        full: dict[str, Any] = {}
        for p in fam.params:
            if p.name in explicit:
                full[p.name] = explicit[p.name]
                continue
            fam_over = preset.family_params.get(fam.name, {})
            if p.name in fam_over:
                full[p.name] = fam_over[p.name]
            elif p.name in preset.params:
                full[p.name] = preset.params[p.name]
            elif p.default is not PRESET:
                if p.default is not None:
                    full[p.name] = p.default
            elif p.name == fam.at:
                continue
            else:
                raise ValueError(
                    f"measure {str(self)!r} needs parameter {p.name!r}, which preset "
                    f"{preset.name!r} does not set; set it in the measure, e.g. "
                    f"{fam.name}({p.name}=...)"
                )
        return Measure(fam.name, **full)

    def compute(self, rg: Any) -> np.ndarray:
        """Run the kernel on ``rg``; every parameter must be set (see :meth:`resolve`).

        Parameters
        ----------
        rg : RankedGains
            The ranked gains of all queries.

        Returns
        -------
        numpy.ndarray
            One value per query (NaN where undefined).

        Examples
        --------
        >>> from fuzzytruth.metrics.base import RankedGains
        >>> rg = RankedGains.from_lists(["q"], [[1, 0, 1]], [[1, 1, 1]])
        >>> Measure("P", k=2).resolve("trec").compute(rg)
        array([0.5])
        """
        fam = self.family
        params = dict(self._params)
        missing = [
            p.name
            for p in fam.params
            if p.name not in params and p.default is PRESET and p.name != fam.at
        ]
        if fam.at_required and fam.at not in params:
            missing.append(fam.at)
        if missing:
            raise ValueError(
                f"measure {str(self)!r} has unset parameter(s) {missing}; call .resolve(preset)"
            )
        if getattr(rg, "tie_start", None) is not None and not fam.tie_averaged:
            raise ValueError(
                f"measure {fam.name!r} has no tie-averaged form; use ties='docid_desc' or "
                f"ties='input_order' instead of ties='average'"
            )
        kwargs = {k: (dict(v) if isinstance(v, _Frozen) else v) for k, v in params.items()}
        for p in fam.params:
            kwargs.setdefault(p.name, None if p.default is PRESET else p.default)
        return np.asarray(fam.kernel(rg, **kwargs), dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# Common converters (for kernel authors)


def positive_int(value: Any) -> int:
    """Convert to an int >= 1 (accepts ``"10"``, ``10``, ``10.0``)."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a positive integer; got {value!r}") from None
    if not f.is_integer() or f < 1:
        raise ValueError(f"must be a positive integer; got {value!r}")
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
        (:func:`fuzzytruth.metrics.base.truncate_grades`). Uncertain truths have no grades to
        read and are unaffected.
    groups : mapping
        Measure groups that list other measures under this preset than
        :data:`fuzzytruth.measures.names.TREC_GROUPS` (their names, in any spelling): trec_eval
        10's ``all_trec`` adds ``rbp``, ``rbp_resid`` and ``unj`` to 9.0.8's.
    description : str
        One line, recorded with results.

    Examples
    --------
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
    if preset.name in _PRESETS and not replace:
        raise ValueError(f"preset {preset.name!r} is already registered; pass replace=True")
    _PRESETS[preset.name] = preset
    return preset


def get_preset(preset: str | Preset) -> Preset:
    """Return the registered preset ``preset`` (a :class:`Preset` is returned unchanged)."""
    if isinstance(preset, Preset):
        return preset
    _load_kernels()
    try:
        return _PRESETS[preset]
    except KeyError:
        raise ValueError(f"preset must be one of {sorted(_PRESETS)}; got {preset!r}") from None


def presets() -> dict[str, Preset]:
    """All registered presets by name (a copy)."""
    _load_kernels()
    return dict(_PRESETS)
