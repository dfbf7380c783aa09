"""The ``fuzzytruth`` command line (:func:`main`): evaluate, compare, agreement, displacement,
repro, demo — one module each, listed in :data:`fuzzytruth.cli.app.COMMANDS`.

Names load their module on first use, so that ``--help`` stays cheap.
"""

from __future__ import annotations

from fuzzytruth._lazy import lazy_names

_LAZY: dict[str, str] = {
    "UserError": "fuzzytruth.cli.app",
    "build_parser": "fuzzytruth.cli.app",
    "console": "fuzzytruth.cli.app",
    "main": "fuzzytruth.cli.app",
}

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_names("fuzzytruth.cli", _LAZY, globals())
