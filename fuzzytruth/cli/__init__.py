"""The ``fuzzytruth`` command line (:func:`main`): evaluate, compare, agreement, displacement,
repro, demo — one module each, listed in :data:`fuzzytruth.cli.app.COMMANDS`.

Names load their module on first use, so that ``--help`` stays cheap.
"""

from __future__ import annotations

from fuzzytruth._lazy import Renamed, lazy_names

_LAZY: dict[str, str] = {
    "UserError": "fuzzytruth.cli.app",
    "build_parser": "fuzzytruth.cli.app",
    "console": "fuzzytruth.cli.app",
    "main": "fuzzytruth.cli.app",
}

__all__ = sorted(_LAZY)

# names of the single-module command line (fuzzytruth/cli.py), kept for one release
_KEPT = {"EXIT_USAGE": "fuzzytruth.cli._errors", "text_table": "fuzzytruth.cli._output"}
_RENAMED = {
    **{f"cmd_{name}": Renamed(f"fuzzytruth.cli.{name}.run")
       for name in ("evaluate", "compare", "displacement", "repro", "demo")},
    **{f"{name.upper()}_EXAMPLE": Renamed(f"fuzzytruth.cli.{name}.EXAMPLES")
       for name in ("evaluate", "compare", "displacement", "repro", "demo")},
}

__getattr__, __dir__ = lazy_names(
    "fuzzytruth.cli", {**_LAZY, **_KEPT}, globals(), renamed=_RENAMED
)
