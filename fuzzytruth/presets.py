"""Moved to :mod:`fuzzytruth.measures.conventions`; this import path is kept for one release."""

from fuzzytruth._lazy import moved

moved(__name__, "fuzzytruth.measures.conventions")
