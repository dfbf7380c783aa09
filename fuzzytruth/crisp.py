"""Moved to :mod:`fuzzytruth.evaluation.per_annotator`; this path is kept for one release."""

from fuzzytruth._lazy import moved

moved(__name__, "fuzzytruth.evaluation.per_annotator")
