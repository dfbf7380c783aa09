"""Moved to :mod:`fuzzytruth._resampling`; this import path is kept for one release."""

from fuzzytruth._lazy import moved

moved(__name__, "fuzzytruth._resampling")
