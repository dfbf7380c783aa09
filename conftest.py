"""Test collection settings shared by the suite and the doctests of the package."""

# Modules that moved keep their old import path as an alias of the new module for one release
# (fuzzytruth._lazy.moved); their doctests are collected once, at the new path.
collect_ignore = [
    "fuzzytruth/cli_collection.py",
    "fuzzytruth/crisp.py",
    "fuzzytruth/measure_names.py",
    "fuzzytruth/membership.py",
    "fuzzytruth/presets.py",
    "fuzzytruth/progress.py",
    "fuzzytruth/stats/_resampling.py",
    "fuzzytruth/uncertain/keyed.py",
    "fuzzytruth/uncertain/probabilistic_qrels.py",
]
