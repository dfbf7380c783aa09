"""Crisp metric kernels, vectorised over queries on :class:`~fuzzytruth.metrics.base.RankedGains`.

The measure registry (:mod:`fuzzytruth.measures`) imports every module of this package the first
time it is used, so each kernel module's :func:`fuzzytruth.measures.register` calls run; a new
kernel module needs no other edit. Importing the package itself loads nothing else.
"""

from fuzzytruth.metrics.base import RankedGains

__all__ = ["RankedGains"]
