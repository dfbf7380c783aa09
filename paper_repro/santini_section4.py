"""Reproduce Santini, "Benchmarking without ground truth", §4 (uncertainty in the ground truth).

The worked example and its hand derivations live in ``fuzzytruth/repro/santini_section4.py``
so that ``fuzzytruth repro`` runs it from an installed package too.
"""

from fuzzytruth.repro.santini_section4 import main

if __name__ == "__main__":
    raise SystemExit(main())
