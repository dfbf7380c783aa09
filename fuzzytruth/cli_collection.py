"""Moved to :mod:`fuzzytruth.cli.agreement`; this path is kept for one release."""

from fuzzytruth._lazy import moved

moved(__name__, "fuzzytruth.cli.agreement")
