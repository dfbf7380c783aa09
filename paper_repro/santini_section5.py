"""Reproduce Santini, "Benchmarking without ground truth", §5 (individual comparisons).

The worked example and its hand derivations live in ``fuzzytruth/repro/santini_section5.py``
so that ``fuzzytruth repro`` runs it from an installed package too.
"""

from fuzzytruth.repro.santini_section5 import main

if __name__ == "__main__":
    raise SystemExit(main())
