"""Santini §5, individual comparisons: a system's ranking against each annotator's own answer.

Every annotator α answers a query with a ranked list ``I_1, ..., I_m`` of database items and a
relevance ``s_k`` in [0, 1] for each (eq. 15 and 19; the paper assumes ``s_k >= s_(k+1)``). A
system answers with its own ranked list. Positions are 1-based: ``k`` is an item's position in
the annotator's list and ``π_k`` its position in the system's list.

Systems answer with runs (a :class:`~fuzzytruth.runs.Run` per system, or the long table of
earlier releases), ranked once by :func:`fuzzytruth.runs.rank` with a preset's tie rule and
score precision, the step every evaluation uses.

Definitions (the defaults are named; every choice is a keyword of :func:`weighted_displacement`)
-------------------------------------------------------------------------------------------------
``m``
    The annotator's list length, per (query, annotator). Annotator positions run ``1..m``.
Run depth ``L``
    How many of the system's items are read. With ``use_deeper_ranks=False`` the run is cut at
    the annotator's list length, ``L = min(len(run), m)``: the paper's ``C^m_μ`` (eq. 20). With
    ``use_deeper_ranks=True`` (default) the whole run is read, ``L = len(run)``: the paper's
    incremental case, where a run deeper than ``m`` finds the annotator's items further down and
    ``B`` empties (eq. 21 alone) whenever the run contains all of them.
Sets ``A``, ``B``, ``C``
    ``A``: annotator items among the run's first ``L``; ``B``: annotator items not there;
    ``C``: run items (among the first ``L``) that the annotator did not list. ``C`` contributes
    nothing (its relevance is zero *ex hypothesi*). ``B`` is ordered by annotator position;
    ``β_i`` is the annotator position of its ``i``-th item and ``|B| = n_b``.
``w_a``
    ``Σ_{k∈A} s_k |k − π_k|`` (eq. 21; eq. 17 when both lists order the whole database).
Optimist (eq. 22)
    The ``i``-th item of ``B`` is at ``L + i``, the first positions the run did not fill:
    ``w_b = Σ_i s_(β_i) |β_i − (L + i)|``. In the paper's setting (a run of at least ``m`` items
    cut at ``m``) ``L = m``, which is eq. 22's ``m + i``. A run read deeper than ``m`` has shown
    that its missing items are not among its first ``L``, and a run shorter than ``m`` leaves
    positions ``L + 1, ...`` free, so ``L + i`` is the optimist's slot in both cases.
Exact pessimist
    The last item of ``B`` is at ``N``, the next-to-last at ``N − 1``, ...: the ``i``-th at
    ``N − n_b + i``, so ``w_b = Σ_i s_(β_i) |β_i − (N − n_b + i)|``.
Pessimist (eq. 23)
    Every item of ``B`` is displaced by ``N``, the database size: ``w_b = N Σ_{B} s``. The paper
    offers it as the approximation of the exact pessimist for ``N ≫ m``.
``w``
    ``w_a + w_b`` under each hypothesis. Per item of ``B``, optimist ≤ exact pessimist <
    pessimist, so ``w_optimist ≤ w_exact_pessimist ≤ w_pessimist``. Derivation: the run's ``L``
    items and ``B`` are distinct database items, so ``N ≥ L + n_b`` (the input checks enforce
    it) and ``L + i ≤ N − n_b + i``; when ``L + i < β_i``, use ``β_i − i ≤ n_a ≤ L`` (the items
    before ``β_i`` not in ``B`` are in ``A``) to get ``β_i − L − i ≤ N − n_b + i − β_i``; and
    ``N − n_b + i − β_i < N`` because ``i ≤ n_b`` and ``β_i ≥ 1``.
``q``
    ``g(w)`` for a monotone decreasing ``g`` into [0, 1] (eq. 18): :class:`RationalG`
    ``1/(1+x)^p`` (default, ``p = 1``), :class:`ExponentialG` ``exp(−λx)``, or any vectorised
    callable, checked numerically by :func:`check_g`.
Scale-free ``q`` (``g="scale_free"``, beyond the paper)
    ``q = 1 − w / w_max`` with ``w_max = N Σ_k s_k``, the largest weighted displacement the
    answer can receive: under the pessimist hypothesis every item contributes at most
    ``N s_k`` (an item of ``A`` is displaced by less than ``N``), and a run that returns none of
    the annotator's items attains it. The optimist and exact pessimist never exceed it, so all
    three scale-free values lie in [0, 1] and keep their order. ``q = 1`` when ``w_max = 0``
    (all relevances zero).


Modules (one idea each)
-----------------------
:mod:`~fuzzytruth.displacement.g`
    the normalisations ``g`` (:class:`RationalG`, :class:`ExponentialG`, :func:`check_g`);
:mod:`~fuzzytruth.displacement.answers`
    the annotators' answers as padded lists, validated once;
:mod:`~fuzzytruth.displacement.systems`, :mod:`~fuzzytruth.displacement.positions`
    the systems' runs, ranked once, and where they place the annotators' items (``π_k``, ``L``);
:mod:`~fuzzytruth.displacement.kernel`
    eq. 21–23 for all lists at once, the three placements of set B side by side;
:mod:`~fuzzytruth.displacement.scoring`
    :func:`weighted_displacement`, the front door;
:mod:`~fuzzytruth.displacement.result`, :mod:`~fuzzytruth.displacement.bootstrap`
    :class:`DisplacementResult` (aggregates) and its keyed two-stage bootstrap;
:mod:`~fuzzytruth.displacement.files`
    :func:`read_answers`, :func:`read_runs`: the two tables from CSV/TSV files.

Examples
--------
>>> import pandas as pd
>>> answers = pd.DataFrame({
...     "query_id": "q1", "annotator_id": "ann1",
...     "item_id": ["a", "b", "c"], "rank": [1, 2, 3], "relevance": [1.0, 0.5, 0.5]})
>>> run = pd.DataFrame({"system": "sys", "query_id": "q1",
...                     "item_id": ["b", "a", "x"], "rank": [1, 2, 3]})
>>> res = weighted_displacement(answers, run, n_items=10)
>>> res.to_frame()[["w_a", "w_optimist", "w_exact_pessimist", "w_pessimist"]]
   w_a  w_optimist  w_exact_pessimist  w_pessimist
0  1.5         2.0                5.0          6.5
"""

from __future__ import annotations

from fuzzytruth._lazy import lazy_names
from fuzzytruth.displacement.g import ExponentialG, RationalG, check_g
from fuzzytruth.displacement.kernel import HYPOTHESES, displacement_kernel
from fuzzytruth.displacement.result import DisplacementBootstrap, DisplacementResult
from fuzzytruth.displacement.scoring import weighted_displacement

__all__ = [
    "HYPOTHESES",
    "DisplacementBootstrap",
    "DisplacementResult",
    "ExponentialG",
    "RationalG",
    "check_g",
    "displacement_kernel",
    "read_answers",
    "read_runs",
    "weighted_displacement",
]

# the file readers load the table reader (pyarrow) on first use only
__getattr__, __dir__ = lazy_names(
    "fuzzytruth.displacement",
    dict.fromkeys(("read_answers", "read_runs"), "fuzzytruth.displacement.files"),
    globals(),
)
