"""Moved to :mod:`fuzzytruth.measures.names`; this import path is kept for one release."""

from fuzzytruth._lazy import moved

moved(__name__, "fuzzytruth.measures.names")
