"""Names of a package that load their module on first use (PEP 562), so that importing the
package stays cheap: one mechanism for :mod:`fuzzytruth` and :mod:`fuzzytruth.uncertain`; its
public subpackages and modules, imported when first read as attributes
(``fuzzytruth.datasets.santini_figure1()`` after ``import fuzzytruth``); and the old paths of
names and modules that moved, kept for one release.

Examples
--------
>>> import warnings
>>> getattr_, _ = lazy_names("pkg", {}, {}, renamed={"old": Renamed("math.floor")})
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     getattr_("old")(2.5)
2
>>> str(caught[0].message)
'pkg.old is deprecated and kept for one release: use math.floor'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fuzzytruth._warnings import warn


@dataclass(frozen=True)
class Renamed:
    """A name that changed, still served under its old spelling for one release.

    Attributes
    ----------
    new : str
        What to use instead, named in the :class:`DeprecationWarning` (a dotted path).
    serves : str, optional
        Dotted path of the object the old name returns: ``new`` unless the old one took other
        arguments (then a shim keeping them).
    was : str, optional
        The module the old name lived in, when not the one serving it (a module that moved).
    """

    new: str
    serves: str | None = None
    was: str | None = None


def _resolve(path: str) -> Any:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def lazy_names(
    package: str,
    table: Mapping[str, str],
    namespace: dict[str, Any],
    *,
    renamed: Mapping[str, Renamed] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` serving ``table`` (name -> module).

    A name is imported from its module the first time it is read, then kept in ``namespace``
    (the package's globals) so later reads cost nothing. A name of ``renamed`` warns
    (:class:`DeprecationWarning`, naming the new one) every time it is read, and is not listed.
    """
    renamed = renamed or {}

    def __getattr__(name: str) -> Any:
        if name in renamed:
            entry = renamed[name]
            warn(
                f"{entry.was or package}.{name} is deprecated and kept for one release: "
                f"use {entry.new}",
                DeprecationWarning,
            )
            return _resolve(entry.serves or entry.new)
        module = table.get(name)
        if module is None:
            if _is_submodule(package, name):  # fuzzytruth.datasets without importing it first
                return importlib.import_module(f"{package}.{name}")
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table) | set(_submodules(package)))

    return __getattr__, __dir__


def _is_submodule(package: str, name: str) -> bool:
    """Whether ``name`` is a public module or subpackage of ``package`` (not yet imported:
    importing it sets the attribute)."""
    return not name.startswith("_") and name in _submodules(package)


def _submodules(package: str) -> list[str]:
    """The public modules and subpackages of ``package``."""
    import pkgutil

    paths = getattr(sys.modules[package], "__path__", [])
    return [m.name for m in pkgutil.iter_modules(paths) if not m.name.startswith("_")]


def moved(old: str, new: str) -> None:
    """Make module path ``old`` an alias of module ``new`` (a module that moved; the old path
    keeps working for one release): ``import old`` then returns ``new`` itself, so every name,
    private ones included, and every monkeypatch is shared."""
    sys.modules[old] = importlib.import_module(new)
