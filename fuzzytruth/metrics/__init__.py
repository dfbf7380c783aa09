"""Crisp metric kernels, vectorised over queries on :class:`~fuzzytruth.metrics.base.RankedGains`.

Importing this package imports every module in it, so each kernel module's
:func:`fuzzytruth.measures.register` calls run; a new kernel module needs no other edit.
"""

import importlib
import pkgutil

from fuzzytruth.metrics.base import RankedGains

__all__ = ["RankedGains"]

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
