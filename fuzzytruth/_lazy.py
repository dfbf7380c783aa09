"""Names of a package that load their module on first use (PEP 562), so that importing the
package stays cheap: one mechanism for :mod:`fuzzytruth` and :mod:`fuzzytruth.uncertain`."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    package: str, table: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` serving ``table`` (name -> module).

    A name is imported from its module the first time it is read, then kept in ``namespace``
    (the package's globals) so later reads cost nothing.
    """

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__


def moved(old: str, new: str) -> None:
    """Make module path ``old`` an alias of module ``new`` (a module that moved; the old path
    keeps working for one release): ``import old`` then returns ``new`` itself, so every name,
    private ones included, and every monkeypatch is shared."""
    sys.modules[old] = importlib.import_module(new)
