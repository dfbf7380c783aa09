"""The measure catalog: every registered family and preset, the built-in ones loaded on first
use, and :class:`Measure`, a family with its parameters, with exactly one canonical spelling.

The built-in families register themselves (:func:`fuzzytruth.measures.registry.register`) from
the modules of :mod:`fuzzytruth.measures.builtin`, and the presets from
:mod:`fuzzytruth.measures.conventions`; this module imports them the first time a family or a
preset is looked up. It sits above them (they import only the registry), so the registry's
plugins close no import cycle.

A measure's spelling is ``Family(name=value,...)@at``::

    P@10   R@100   nDCG@10   AP   RR   Rprec   Success@5   F(beta=0.5)@10   iP@0.5   11pt

``@at`` sets the family's *at-parameter* (a rank cutoff for ``P``, a recall level for ``iP``),
the parentheses set any other parameter, in the order the family declares them; a value equal
to the parameter's fixed default is not spelled (``F(beta=1)@10`` is ``F@10``). Parameters left
out are filled from a :class:`~fuzzytruth.measures.registry.Preset` when the measure is
computed (:meth:`Measure.resolve`), so ``nDCG@10`` means the trec_eval form under the
``"trec"`` preset and the Järvelin–Kekäläinen form under a shape-benchmark preset. Spellings
are parsed by :func:`fuzzytruth.measures.parse_measure`.

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

import copyreg
import importlib
import pkgutil
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import fuzzytruth.measures.registry as registry
from fuzzytruth._validation import did_you_mean
from fuzzytruth.measures.registry import PRESET, MeasureFamily, Preset

__all__ = ["Measure", "families", "family", "family_alias", "get_preset", "presets"]

_LOADED = False


def _load_kernels() -> None:
    """Import every module of :mod:`fuzzytruth.measures.builtin` (each registers its families)
    and the preset table, once."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
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
        return registry._FAMILIES[name]
    except KeyError:
        raise ValueError(
            f"unknown measure family {name!r}; registered families are {sorted(registry._FAMILIES)}"
        ) from None


def _reduce_family(fam: MeasureFamily) -> tuple[Callable[[str], MeasureFamily], tuple[str]]:
    """How a :class:`MeasureFamily` pickles: by its registered name, unpickled by
    :func:`family` wherever a family of that name is registered (its kernels may be lambdas,
    its aliases a read-only mapping, which pickle cannot carry), so that an
    :class:`~fuzzytruth.evaluation.Evaluation` pickles."""
    if registry._FAMILIES.get(fam.name) is not fam:
        raise TypeError(f"cannot pickle measure family {fam.name!r}: it is not the family "
                        "registered under that name (pickles refer to families by name)")
    return family, (fam.name,)


copyreg.pickle(MeasureFamily, _reduce_family)


def family_alias(name: str) -> tuple[str, Mapping[str, Any]] | None:
    """The family and fixed parameters an alias spelling stands for (``"F1"`` is ``F`` with
    ``beta=1``), or None when ``name`` is no alias.

    Examples
    --------
    >>> family_alias("F1")[0], dict(family_alias("F1")[1]), family_alias("AP")
    ('F', {'beta': 1.0}, None)
    """
    _load_kernels()
    return registry._ALIASES.get(name)


def families() -> dict[str, MeasureFamily]:
    """All registered families by name (a copy).

    Examples
    --------
    >>> {"P", "AP", "nDCG", "11pt"} <= set(families())
    True
    """
    _load_kernels()
    return dict(registry._FAMILIES)


def get_preset(preset: str | Preset) -> Preset:
    """Return the registered preset ``preset`` (a :class:`Preset` is returned unchanged)."""
    if isinstance(preset, Preset):
        return preset
    _load_kernels()
    try:
        return registry._PRESETS[preset]
    except (KeyError, TypeError):  # TypeError: an unhashable value names no preset
        shown = repr(preset) if isinstance(preset, str) else type(preset).__name__
        raise ValueError(
            f"preset must be one of {sorted(registry._PRESETS)}; got {shown}"
            + did_you_mean(preset, sorted(registry._PRESETS))
        ) from None


def presets() -> dict[str, Preset]:
    """All registered presets by name (a copy)."""
    _load_kernels()
    return dict(registry._PRESETS)


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


def _at_example(fam: MeasureFamily) -> str:
    """A spelling of ``fam`` with an '@' value its parameter accepts (10, else 0.5)."""
    param = fam.param(fam.at)
    for text in ("10", "0.5"):
        try:
            param.validate(text, fam.name)
        except ValueError:
            continue
        return f"{fam.name}@{text}"
    return f"{fam.name}@..."


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
        if family_name in registry._ALIASES:
            family_name, fixed = registry._ALIASES[family_name]
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
        if fam.at_required and fam.at not in values:
            raise ValueError(
                f"measure {fam.name!r} needs '@{fam.at}', e.g. {_at_example(fam)!r} (or "
                f"{fam.at}= by name)"
            )
        self._family = fam.name
        self._params = tuple((p.name, values[p.name]) for p in fam.params if p.name in values)

    @property
    def family(self) -> MeasureFamily:
        """The :class:`MeasureFamily` of this measure."""
        return registry._FAMILIES[self._family]

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
