"""Run paper_repro/santini_section5.py and check every printed number against a hand derivation.

The expected values are derived by hand from Santini §5 (eq. 17, 21, 22, 23) in the comments of
the script; they are restated here independently of the code that computes them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "paper_repro" / "santini_section5.py"

EXPECTED = {
    # Example 1, complete orderings: w = 1*1 + 0.5*1 + 0.5*1 + 0*1 = 2
    "ex1.w_a": 2.0,
    "ex1.n_b": 0,
    "ex1.w_optimist": 2.0,
    "ex1.w_pessimist": 2.0,
    "ex1.q_optimist": 1 / 3,
    "ex1.q_rational_p2": 1 / 9,
    "ex1.q_exponential_half": 0.36787944117144233,  # exp(-1)
    # Example 2, N = 20, m = 5: A = [a, b, c], B = [d, e], C = [x, y]
    "ex2.m": 5,
    "ex2.n_a": 3,
    "ex2.n_b": 2,
    "ex2.n_c": 2,
    "ex2.w_a": 3.8,  # 1*1 + 0.8*2 + 0.6*2
    "ex2.w_b_optimist": 1.2,  # 0.4*|4-6| + 0.2*|5-7|
    "ex2.w_b_exact_pessimist": 9.0,  # 0.4*|4-19| + 0.2*|5-20|
    "ex2.w_b_pessimist": 12.0,  # 20*(0.4 + 0.2)
    "ex2.w_optimist": 5.0,
    "ex2.w_exact_pessimist": 12.8,
    "ex2.w_pessimist": 15.8,
    "ex2.q_optimist": 1 / 6,
    "ex2.q_exact_pessimist": 1 / 13.8,
    "ex2.q_pessimist": 1 / 16.8,
    "ex2_scale_free.w_max": 60.0,  # 20 * (1 + 0.8 + 0.6 + 0.4 + 0.2)
    "ex2_scale_free.q_optimist": 1 - 5.0 / 60,
    "ex2_scale_free.q_exact_pessimist": 1 - 12.8 / 60,
    "ex2_scale_free.q_pessimist": 1 - 15.8 / 60,
    # Example 3: w ≈ N Σ_B s
    "ex3_n20.approximation": 12.0,
    "ex3_n20.w_exact_pessimist": 12.8,
    "ex3_n20.w_pessimist": 15.8,
    "ex3_n20.relative_error": 0.8 / 12.8,
    "ex3_n1000.approximation": 600.0,
    "ex3_n1000.w_exact_pessimist": 600.8,  # 3.8 + 0.4*995 + 0.2*995
    "ex3_n1000.w_pessimist": 603.8,
    "ex3_n1000.relative_error": 0.8 / 600.8,
    # Example 4: deeper run [c, a, x, b, y, z, d, e]
    "ex4_deeper.run_depth": 8,
    "ex4_deeper.n_b": 0,
    "ex4_deeper.w_optimist": 5.6,  # 3.8 + 0.4*3 + 0.2*3
    "ex4_deeper.w_exact_pessimist": 5.6,
    "ex4_deeper.w_pessimist": 5.6,
    "ex4_cut.run_depth": 5,
    "ex4_cut.n_b": 2,
    "ex4_cut.w_optimist": 5.0,
    "ex4_cut.w_pessimist": 15.8,
}


@pytest.fixture(scope="module")
def printed() -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=True, timeout=120
    )
    values = {}
    for line in done.stdout.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        key, value = line.split(" = ")
        values[key] = float(value)
    return values


def test_every_number_is_printed(printed: dict[str, float]) -> None:
    assert set(printed) == set(EXPECTED)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_printed_number_matches_hand_derivation(printed: dict[str, float], key: str) -> None:
    # the script prints 6 significant digits
    assert printed[key] == pytest.approx(EXPECTED[key], rel=1e-5, abs=1e-12)
