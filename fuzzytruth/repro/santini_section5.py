"""Santini, "Benchmarking without ground truth", §5 (individual comparisons), worked by hand.

The paper gives the definitions (eq. 15-23) but no numbers; every number below is derived by hand
in the comments and then computed by ``fuzzytruth.displacement``. Positions are 1-based.

Run: ``python paper_repro/santini_section5.py`` or ``fuzzytruth repro section5``.
Each printed line is ``key = value``.
"""

from __future__ import annotations

import pandas as pd

from fuzzytruth.displacement import ExponentialG, RationalG, weighted_displacement

HYPS = ("optimist", "exact_pessimist", "pessimist")


def answer(items: list[str], relevance: list[float]) -> pd.DataFrame:
    """One annotator's ranked answer to query q1."""
    return pd.DataFrame(
        {
            "query_id": "q1",
            "annotator_id": "alpha",
            "item_id": items,
            "rank": range(1, len(items) + 1),
            "relevance": relevance,
        }
    )


def run(items: list[str]) -> pd.DataFrame:
    """The system's ranked answer to query q1."""
    return pd.DataFrame(
        {"system": "mu", "query_id": "q1", "item_id": items, "rank": range(1, len(items) + 1)}
    )


def show(prefix: str, row: pd.Series, keys: list[str]) -> None:
    for key in keys:
        print(f"{prefix}.{key} = {row[key]:.6g}")


def main() -> int:
    """Print every worked example; the hand derivations are in the comments."""
    # ---------------------------------------------------------------------------------------------
    # Example 1: complete orderings (eq. 15-18). Database of N = 4 items.
    # Annotator C^α = [a, b, c, d] with s = (1, 0.5, 0.5, 0); system C^μ = [b, a, d, c].
    #   a: k=1, π=2 -> 1.0 * |1-2| = 1.0
    #   b: k=2, π=1 -> 0.5 * |2-1| = 0.5
    #   c: k=3, π=4 -> 0.5 * |3-4| = 0.5
    #   d: k=4, π=3 -> 0.0 * |4-3| = 0.0
    #   w = 2.0 (eq. 17); A is everything, B and C are empty, so all hypotheses agree.
    #   q = 1/(1+w)^1 = 1/3 = 0.333333; with p = 2: 1/9 = 0.111111.
    #   q = exp(-0.5 * 2) = exp(-1) = 0.367879.
    #   Two adjacent swaps of the identical list: (s_a + s_b) + (s_c + s_d) = 1.5 + 0.5 = 2.0.
    # ---------------------------------------------------------------------------------------------
    ex1_answer = answer(["a", "b", "c", "d"], [1.0, 0.5, 0.5, 0.0])
    ex1_run = run(["b", "a", "d", "c"])
    print("# Example 1: complete orderings, N = 4")
    row = weighted_displacement(ex1_answer, ex1_run, n_items=4).to_frame().iloc[0]
    show("ex1", row, ["w_a", "n_b", "w_optimist", "w_pessimist", "q_optimist"])
    for name, g in [
        ("q_rational_p2", RationalG(p=2)),
        ("q_exponential_half", ExponentialG(lam=0.5)),
    ]:
        q = weighted_displacement(ex1_answer, ex1_run, n_items=4, g=g).to_frame()["q_optimist"]
        print(f"ex1.{name} = {q.iloc[0]:.6g}")

    # ---------------------------------------------------------------------------------------------
    # Example 2: truncated answers (eq. 19-23). Database of N = 20 items; m = 5 (the annotator's
    # list length). Annotator C^α_m = [a, b, c, d, e], s = (1, 0.8, 0.6, 0.4, 0.2).
    # System C^μ_m = [c, a, x, b, y].
    #   A = [a, b, c]: a k=1 π=2 -> 1.0*1 = 1.0; b k=2 π=4 -> 0.8*2 = 1.6; c k=3 π=1 -> 0.6*2 = 1.2
    #     w_A = 3.8 (eq. 21)
    #   B = [d, e] at annotator positions β = (4, 5); C = [x, y] contributes nothing.
    #   Optimist (eq. 22): d at m+1 = 6 -> 0.4*|4-6| = 0.8; e at m+2 = 7 -> 0.2*|5-7| = 0.4
    #     w_B = 1.2, w = 5.0
    #   Exact pessimist: e (last of B) at N = 20 -> 0.2*|5-20| = 3.0; d at N-1 = 19 -> 0.4*15 = 6.0
    #     w_B = 9.0, w = 12.8
    #   Pessimist (eq. 23): displacement N for each -> 20*(0.4+0.2) = 12.0, w = 15.8
    #   q = 1/(1+w): optimist 1/6 = 0.166667, exact 1/13.8 = 0.0724638, pessimist 1/16.8 = 0.0595238
    #   Scale-free (beyond the paper): w_max = N * Σ s = 20 * 3.0 = 60;
    #     q = 1 - w/60: 0.916667, 0.786667, 0.736667
    # ---------------------------------------------------------------------------------------------
    ex2_answer = answer(["a", "b", "c", "d", "e"], [1.0, 0.8, 0.6, 0.4, 0.2])
    ex2_run = run(["c", "a", "x", "b", "y"])
    print("# Example 2: truncated answers, N = 20, m = 5")
    row = weighted_displacement(ex2_answer, ex2_run, n_items=20).to_frame().iloc[0]
    show("ex2", row, ["m", "n_a", "n_b", "n_c", "w_a"])
    show(
        "ex2", row, [f"w_b_{h}" for h in HYPS] + [f"w_{h}" for h in HYPS] + [f"q_{h}" for h in HYPS]
    )
    row = weighted_displacement(ex2_answer, ex2_run, n_items=20, g="scale_free").to_frame().iloc[0]
    show("ex2_scale_free", row, ["w_max"] + [f"q_{h}" for h in HYPS])

    # ---------------------------------------------------------------------------------------------
    # Example 3: the pessimist approximation w ≈ N Σ_B s (end of §5) against the exact placement.
    #   N = 20:   N Σ_B s = 20 * 0.6 = 12;  exact w = 12.8 (Example 2): relative error 0.8/12.8
    #             = 0.0625.
    #   N = 1000: N Σ_B s = 600; exact: d at 999 -> 0.4*995 = 398, e at 1000 -> 0.2*995 = 199,
    #             w = 3.8 + 597 = 600.8; relative error 0.8/600.8 = 0.00133156.
    #             Eq. 23 itself gives w = 3.8 + 600 = 603.8.
    # ---------------------------------------------------------------------------------------------
    print("# Example 3: w ≈ N Σ_B s against the exact pessimist")
    for n in (20, 1000):
        row = weighted_displacement(ex2_answer, ex2_run, n_items=n).to_frame().iloc[0]
        approx = row["w_b_pessimist"]  # = N Σ_B s
        exact = row["w_exact_pessimist"]
        print(f"ex3_n{n}.approximation = {approx:.6g}")
        print(f"ex3_n{n}.w_exact_pessimist = {exact:.6g}")
        print(f"ex3_n{n}.w_pessimist = {row['w_pessimist']:.6g}")
        print(f"ex3_n{n}.relative_error = {(exact - approx) / exact:.6g}")

    # ---------------------------------------------------------------------------------------------
    # Example 4: the incremental case. The system can go deeper: [c, a, x, b, y, z, d, e].
    #   use_deeper_ranks=True: d at π=7 -> 0.4*|4-7| = 1.2; e at π=8 -> 0.2*|5-8| = 0.6;
    #     B is empty, w = w_A = 3.8 + 1.8 = 5.6 under every hypothesis (eq. 21 alone).
    #   use_deeper_ranks=False: the run is cut at m = 5, which is Example 2 again (w_optimist = 5.0,
    #     w_pessimist = 15.8).
    # ---------------------------------------------------------------------------------------------
    ex4_run = run(["c", "a", "x", "b", "y", "z", "d", "e"])
    print("# Example 4: incremental case (deeper ranks)")
    row = weighted_displacement(ex2_answer, ex4_run, n_items=20).to_frame().iloc[0]
    show("ex4_deeper", row, ["run_depth", "n_b", "w_optimist", "w_exact_pessimist", "w_pessimist"])
    row = weighted_displacement(ex2_answer, ex4_run, n_items=20, use_deeper_ranks=False)
    show("ex4_cut", row.to_frame().iloc[0], ["run_depth", "n_b", "w_optimist", "w_pessimist"])
    return 0
