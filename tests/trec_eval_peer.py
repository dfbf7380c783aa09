"""pytrec_eval (the trec_eval peer of the agreement tests) without the trec_eval defect that
hung the suite, in a worker process with a time limit.

**The defect** (trec_eval 9.0.8 as bundled by pytrec-eval-terrier 0.5.11, and trec_eval's
current form_res_rels.c): ``te_form_res_rels`` sets ``num_rel_levels`` only inside its loop
over the relevance levels that have a count. A query whose judgments are all negative (-1:
"in the pool, unjudged") has no such level, so it keeps the value of the previous query, and
``setup_gains`` (gain_init.c, used by ``ndcg`` and the other gain measures) reads
``rel_levels`` past the end of its array, which holds no entry for that query. Within one
evaluation the stale counts are the previous query's; pytrec_eval frees the arrays after
each ``evaluate``, so in the next evaluator they are heap garbage and the ideal-gain loop of
``ndcg`` (m_ndcg.c, ``while (ideal_gain > 0.0)``) runs for as many steps as the garbage says.
Reproduced: seed 2 of ``random_collection`` in tests/test_crisp_vs_trec_eval.py (its query
q0 is judged only -1) makes the second evaluator of a process never return; seed 2209 gave
11pt_avg = NaN in a fresh worker. :func:`evaluate` gives such a query one more judgment,
grade 0, of a document no run retrieves: the query still has no relevant document (every
measure is 0 and the query still counts), and an unretrieved non-relevant document enters no
measure compared in these tests; trec_eval then sets ``num_rel_levels`` = 1 and reads only
the query's own counts. 20,000 seeds then ran in one process without a hang or a NaN.

**The worker process**: trec_eval's C code runs holding the GIL, and while the main thread is
inside it no Python signal handler runs: Ctrl-C and SIGTERM could not stop the suite. In a
worker, the test process waits in Python (interruptible); a call longer than
:data:`TIMEOUT` seconds kills the worker and is retried once in a fresh one, and a second
timeout fails the test naming the peer. Workers are replaced every
:data:`CALLS_PER_WORKER` calls, so that no C state accumulates across hundreds of evaluators.
"""

from __future__ import annotations

import atexit
import multiprocessing
from multiprocessing.pool import Pool
from typing import Any

#: Seconds one evaluation may take (the agreement tests' take milliseconds).
TIMEOUT = 120
CALLS_PER_WORKER = 200
#: The document id of the added judgment (no run of the tests retrieves it).
NEVER_RETRIEVED = "~never-retrieved"

_pool: Pool | None = None


def _evaluate(qrels: dict, run: dict, measures: set[str], options: dict[str, Any]) -> dict:
    import pytrec_eval

    return pytrec_eval.RelevanceEvaluator(qrels, measures, **options).evaluate(run)


def _worker() -> Pool:
    global _pool
    if _pool is None:
        _pool = multiprocessing.get_context("spawn").Pool(1, maxtasksperchild=CALLS_PER_WORKER)
    return _pool


def close() -> None:
    """Stop the worker (also done at exit)."""
    global _pool
    if _pool is not None:
        _pool.terminate()
        _pool.join()
        _pool = None


atexit.register(close)


def without_all_negative_queries(qrels: dict, run: dict) -> dict:
    """``qrels`` where a query judged only below 0 also has a grade-0 judgment of a document
    that ``run`` does not retrieve (see the module docstring)."""
    out = {}
    for query, judged in qrels.items():
        judged = dict(judged)
        if judged and max(judged.values()) < 0:
            assert NEVER_RETRIEVED not in run.get(query, {})
            judged[NEVER_RETRIEVED] = 0
        out[query] = judged
    return out


def evaluate(qrels: dict, run: dict, measures: set[str], **options: Any) -> dict:
    """``pytrec_eval.RelevanceEvaluator(qrels, measures, **options).evaluate(run)`` around the
    defect, in the worker process, within :data:`TIMEOUT` seconds (one retry)."""
    qrels = without_all_negative_queries(qrels, run)
    for _ in range(2):
        pending = _worker().apply_async(_evaluate, (qrels, run, set(measures), options))
        try:
            return pending.get(TIMEOUT)
        except multiprocessing.TimeoutError:
            close()  # kill the stuck worker; the next attempt starts a fresh one
    raise AssertionError(
        f"pytrec_eval did not finish within {TIMEOUT} s, twice, in fresh processes "
        f"(measures {sorted(measures)}, {len(run)} queries): a trec_eval hang, not a result"
    )
