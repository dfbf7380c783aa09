"""Moved to :mod:`fuzzytruth.truth.membership`; this import path is kept for one release."""

from fuzzytruth._lazy import moved

moved(__name__, "fuzzytruth.truth.membership")
