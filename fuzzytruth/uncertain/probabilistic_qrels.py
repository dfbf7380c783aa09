"""Moved to :mod:`fuzzytruth.truth.probabilistic_qrels`; this path is kept for one release."""

from fuzzytruth._lazy import moved

moved(__name__, "fuzzytruth.truth.probabilistic_qrels")
