"""fuzzytruth.distributed on a real cluster (2 worker processes): the numbers of the in-memory
path, bit for bit for Monte Carlo, whatever the partitioning; a killed worker changes nothing.

Oracle: the in-memory :func:`fuzzytruth.evaluation.evaluate` and :func:`fuzzytruth.stats.compare`
on the same input and seed (an independent code path for the partitioning, the transport and
the concatenation; the same kernels by design: one implementation of the measures).
"""

from __future__ import annotations

import os
import re
import threading
import time
import traceback
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from fuzzytruth import distributed as fd  # noqa: E402
from fuzzytruth.datasets.image_collection import image_collection  # noqa: E402
from fuzzytruth.distributed.partitions import split_in_memory  # noqa: E402
from fuzzytruth.evaluation import Evaluation, evaluate  # noqa: E402
from fuzzytruth.runs import Qrels, Run  # noqa: E402
from fuzzytruth.stats import compare  # noqa: E402
from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels  # noqa: E402

MEASURES = ["P@10", "AP", "nDCG@10", "RR"]


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                 dashboard_address=None) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def data():
    """60 queries x 20 documents, two systems, graded qrels and probabilistic qrels (some
    queries without any relevant document, one query the truth does not judge)."""
    rng = np.random.default_rng(11)
    nq, nd = 60, 20
    q = np.repeat([f"q{i:02d}" for i in range(nq)], nd)
    d = np.tile([f"d{j}" for j in range(nd)], nq)
    runs = {s: Run(q, d, rng.random(len(q)).round(2), name=s) for s in ("bm25", "dense")}
    judged = q != "q07"
    prob = rng.random(len(q)) * (rng.random(len(q)) < 0.4)
    prob[q == "q03"] = 0.0
    pq = ProbabilisticQrels(q[judged], d[judged], prob[judged])
    qrels = Qrels(q[judged], d[judged], rng.integers(0, 3, len(q))[judged])
    return runs, qrels, pq


def _same_evaluation(a, b, *, exact: bool) -> None:
    assert a.systems == b.systems and a.queries == b.queries and a.measures == b.measures
    for m in a.measures:
        if exact:
            np.testing.assert_allclose(a.query_means(m), b.query_means(m), rtol=0, atol=1e-12)
        else:
            assert np.array_equal(a.world_scores(m), b.world_scores(m), equal_nan=True)
            assert np.array_equal(a.query_means(m), b.query_means(m), equal_nan=True)
    fa, fb = a.to_frame(), b.to_frame()
    assert fa[["system", "query_id", "measure", "method"]].equals(
        fb[["system", "query_id", "measure", "method"]])
    numbers = ["mean", "truth_std", "truth_low", "truth_high", "p_undefined", "mc_se"]
    np.testing.assert_allclose(fa[numbers], fb[numbers], rtol=0, atol=1e-12)
    ga, gb = a.aggregate(), b.aggregate()
    numbers = ["value", "ci_low", "ci_high", "truth_std", "truth_low", "truth_high", "mc_se",
               "n_queries"]
    np.testing.assert_allclose(ga[numbers], gb[numbers], rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------ the law it rests on
@pytest.mark.filterwarnings("ignore:query\\(ies\\) 'q07'")
def test_a_partition_of_the_queries_gives_the_same_world_values(data):
    runs, _, pq = data
    whole = evaluate(runs, pq, MEASURES, n_worlds=64, rng=5)
    parts = [evaluate(r, t, MEASURES, n_worlds=64, rng=5)
             for r, t in split_in_memory(runs, pq, 3, np.empty(0))]
    assert [len(p.queries) for p in parts] == [19, 20, 20]  # q07 is not judged
    glued = Evaluation.concatenate(parts[::-1])  # out of order: put back in the sorted query order
    for m in MEASURES:
        assert np.array_equal(glued.world_scores(m), whole.world_scores(m))
        assert np.array_equal(glued.query_means(m), whole.query_means(m))


def test_the_world_kernels_take_one_thread_inside_a_worker_and_every_core_outside(
    client, monkeypatch
):
    """A Dask worker's threads already run one task each: the world engine's blocks take one
    thread there (more would oversubscribe the cores), and every core in a plain process."""
    from fuzzytruth._threads import ENV_VARIABLE, default_threads

    monkeypatch.delenv(ENV_VARIABLE, raising=False)
    assert default_threads() == len(os.sched_getaffinity(0))
    assert client.submit(default_threads, pure=False).result() == 1


# ------------------------------------------------------------------------------ evaluate
@pytest.mark.parametrize("npartitions", [1, 3, 8])
def test_probabilistic_qrels_identical_for_any_partitioning(client, data, npartitions):
    runs, _, pq = data
    local = evaluate(runs, pq, MEASURES, n_worlds=100, rng=3)
    with pytest.warns(UserWarning, match="q07"):
        remote = fd.evaluate(runs, pq, MEASURES, n_worlds=100, rng=3, npartitions=npartitions)
    _same_evaluation(remote, local, exact=False)
    assert remote.to_frame().equals(local.to_frame())


def test_judged_queries_no_run_answers_are_named_once_over_all_partitions(client, data):
    """As in memory: the judged queries that no run answers are not evaluated (trec_eval
    without -c) and one warning names them, whatever the partitioning (in memory a
    partition's qrels are its own queries', so the driver decides over all of them); frames'
    partitions name the ones of their query range, all of them in all."""
    runs, qrels, _ = data
    kept = {name: Run.from_dataframe(r.to_dataframe().query("query_id not in ['q05', 'q40']"),
                                     name=name) for name, r in runs.items()}
    frames = {name: dd.from_pandas(r.to_dataframe(), npartitions=3, sort=False)
              for name, r in kept.items()}

    def unanswered(call) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in caught if "that no run answers" in str(w.message)]

    local = unanswered(lambda: evaluate(kept, qrels, ["P@5"]))
    assert len(local) == 1 and "'q05', 'q40'" in local[0]
    for npartitions in (1, 3):
        assert unanswered(lambda n=npartitions: fd.evaluate(kept, qrels, ["P@5"],
                                                            npartitions=n)) == local
    judged = dd.from_pandas(qrels.to_dataframe(), npartitions=3, sort=False)
    named = unanswered(lambda: fd.evaluate(frames, judged, ["P@5"]))
    assert {"q05", "q40"} == {q for m in named for q in re.findall(r"'(q\d\d)'", m)}
    assert not unanswered(lambda: fd.evaluate(kept, qrels, ["P@5"], npartitions=3,
                                              complete=True))


def test_a_system_missing_queries_others_answer_is_said_once_over_all_partitions(client,
                                                                                 data):
    """As in memory: a system that misses queries another answers scores them as empty
    lists, said in one warning whatever the partitioning (each partition sees only its own
    queries); the numbers are the in-memory ones."""
    runs, qrels, _ = data
    names = list(runs)
    some = {**runs, names[0]: Run.from_dataframe(
        runs[names[0]].to_dataframe().query("query_id not in ['q02', 'q11']"), name=names[0])}

    def partial(call) -> tuple[list[str], object]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call()
        return [str(w.message) for w in caught if "answer only some" in str(w.message)], result

    said, local = partial(lambda: evaluate(some, qrels, ["P@5"]))
    assert len(said) == 1 and f"{names[0]!r} misses 2 ('q02', 'q11')" in said[0]
    for npartitions in (1, 3):
        remote_said, remote = partial(lambda n=npartitions: fd.evaluate(
            some, qrels, ["P@5"], npartitions=n))
        assert remote_said == said
        _same_evaluation(remote, local, exact=True)
    assert not partial(lambda: fd.evaluate(some, qrels, ["P@5"], npartitions=3,
                                           complete=True))[0]


def test_a_run_retrieving_no_judged_document_is_said_once_and_only_if_true_of_all(client,
                                                                                   data):
    """A partition may hold queries where a run retrieves nothing judged while the run does
    elsewhere: the warning is the run's only when every partition says it, then once."""
    runs, qrels, _ = data
    shouted = Run(runs["bm25"].query_ids, np.char.upper(runs["bm25"].doc_ids.astype(str)),
                  runs["bm25"].scores, name="shouted")
    # judged documents only in the first query: most partitions see none of them retrieved
    sparse = {"bm25": Run.from_dataframe(runs["bm25"].to_dataframe().assign(
        doc_id=lambda f: np.where(f.query_id == "q00", f.doc_id, "x" + f.doc_id)),
        name="bm25")}

    def none_judged(call) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in caught if "no judged document" in str(w.message)]

    for npartitions in (1, 4):
        said = none_judged(lambda n=npartitions: fd.evaluate({"shouted": shouted}, qrels,
                                                             ["P@5"], npartitions=n))
        assert len(said) == 1 and said[0].startswith("run 'shouted' retrieves no judged")
        assert not none_judged(lambda n=npartitions: fd.evaluate(sparse, qrels, ["P@5"],
                                                                 npartitions=n))
    # judgment groups, each a task of its own: said on the driver, once, of all the groups
    said = none_judged(lambda: fd.evaluate_per_annotator(shouted, {"a": qrels, "b": qrels},
                                                         ["P@5"]))
    assert len(said) == 1 and "in any query of any judgment group" in said[0]


def test_defaults_and_a_generator_seed(client, data):
    """The defaults (1000 worlds, method auto) and a Generator: the same numbers, and the
    caller's generator moves on exactly as after the in-memory call."""
    runs, _, pq = data
    g_local, g_remote = np.random.default_rng(9), np.random.default_rng(9)
    local = evaluate(runs, pq, ["P@5", "AP"], rng=g_local)
    remote = fd.evaluate(runs, pq, ["P@5", "AP"], rng=g_remote, client=client)
    _same_evaluation(remote, local, exact=False)
    assert local.method("bm25", "P@5") == remote.method("bm25", "P@5") == "exact"
    assert g_local.integers(2**62) == g_remote.integers(2**62)


def test_crisp_qrels_to_1e_12(client, data):
    runs, qrels, _ = data
    local = evaluate(runs, qrels, [*MEASURES, "ERR@20"], missing="skip")
    remote = fd.evaluate(runs, qrels, [*MEASURES, "ERR@20"], npartitions=4)
    _same_evaluation(remote, local, exact=True)


def test_complete_adds_the_judged_queries_no_run_answers(client, data):
    runs, qrels, _ = data
    short = {name: Run(r.query_ids[:200], r.doc_ids[:200], r.scores[:200], name=name)
             for name, r in runs.items()}
    local = evaluate(short, qrels, ["AP"], complete=True)
    remote = fd.evaluate(short, qrels, ["AP"], complete=True, npartitions=3)
    assert len(remote.queries) == 59
    _same_evaluation(remote, local, exact=True)


def _first_queries(col, n: int) -> dict[str, Run]:
    """The collection's runs on their first ``n`` queries."""
    return {name: Run.from_dataframe(df[df["query_id"] < df["query_id"].unique()[n]], name=name)
            for name, df in col.runs.items()}


def test_categorical_truth_broadcasts_the_membership(client):
    """The bundled image collection: queries share items, the membership goes whole."""
    col = image_collection()
    runs = _first_queries(col, 24)
    local = evaluate(runs, col.membership, ["P@10", "AP"], n_worlds=50, rng=1)
    remote = fd.evaluate(runs, col.membership, ["P@10", "AP"], n_worlds=50, rng=1,
                         npartitions=5)
    _same_evaluation(remote, local, exact=False)


def test_frames_of_runs_with_a_broadcast_membership(client):
    """Dask DataFrame runs with a Membership (issue 24: they were refused): the membership is
    sent to every worker once, the runs keep their partitions (or are hash-partitioned when a
    query is split), and the numbers are those of the in-memory path, bit for bit."""
    col = image_collection()
    runs = _first_queries(col, 24)
    local = evaluate(runs, col.membership, ["P@10", "AP"], n_worlds=50, rng=1)
    frames = {name: dd.from_pandas(r.to_dataframe(), npartitions=3, sort=False)
              for name, r in runs.items()}
    remote = fd.evaluate(frames, col.membership, ["P@10", "AP"], n_worlds=50, rng=1)
    _same_evaluation(remote, local, exact=False)
    forced = fd.evaluate(frames, col.membership, ["P@10", "AP"], n_worlds=50, rng=1,
                         npartitions=2)  # hash-partitioned on the query id
    _same_evaluation(forced, local, exact=False)



def test_complete_with_a_broadcast_membership_adds_its_judged_queries_once(client):
    """complete=True with a Membership and query_categories: every partition added the
    judged queries no run answers, and the concatenation failed ("queries must be
    distinct"); now they are evaluated once, and the result is the in-memory one, bit for bit,
    with in-memory runs and with frames."""
    col = image_collection()
    runs = _first_queries(col, 12)
    node = [n for n in col.taxonomy.nodes if n != col.taxonomy.root][3]
    answered = runs[next(iter(runs))].queries[0]
    options = dict(n_worlds=30, rng=1, complete=True,
                   query_categories={"only_judged": node, 7: node, answered: node})
    local = evaluate(runs, col.membership, ["P@10", "AP"], **options)
    assert {"only_judged", "7"} < set(local.queries)
    frames = {name: dd.from_pandas(r.to_dataframe(), npartitions=3, sort=False)
              for name, r in runs.items()}
    for given, npartitions in ((runs, 3), (frames, None)):
        remote = fd.evaluate(given, col.membership, ["P@10", "AP"], npartitions=npartitions,
                             **options)
        _same_evaluation(remote, local, exact=False)
        assert remote.to_frame().equals(local.to_frame())
        assert remote.conventions["complete"] is True


def test_the_same_shared_input_can_be_evaluated_again_and_again(client):
    """The Membership (or the scores of a comparison) was scattered under its token, the same
    key in every call, and the release of one call's copy deleted the next call's: the second
    ``fd.evaluate`` with the same Membership failed in 18 of 20 tries ("cannot unpack
    non-iterable FutureCancelledError"). Each call now has its own copy."""
    col = image_collection()
    runs = _first_queries(col, 6)
    first = fd.evaluate(runs, col.membership, ["P@10"], npartitions=3, n_worlds=0)
    for _ in range(5):
        again = fd.evaluate(runs, col.membership, ["P@10"], npartitions=3, n_worlds=0)
        assert again.to_frame().equals(first.to_frame())
    x = np.random.default_rng(0).random((3, 40))
    tables = [fd.compare(x, measure="AP", method="percentile", n_resamples=99, rng=3).table
              for _ in range(4)]
    for table in tables[1:]:
        pd.testing.assert_frame_equal(table, tables[0])


def test_a_cancelled_task_is_an_error_that_says_so(client):
    """as_completed gives a cancelled future's CancelledError as its result; it was kept as
    the partition's result and failed later ("cannot unpack")."""
    from fuzzytruth.distributed.evaluation import _gather_as_completed

    futures = [client.submit(time.sleep, 1.0, pure=False)]
    futures[0].cancel()
    with pytest.raises(RuntimeError, match=r"^the Dask task .* was cancelled"):
        _gather_as_completed(futures)


def test_query_categories_naming_no_query_warn_once_over_all_partitions(client):
    """A partition holding none of query_categories' keys is not the whole evaluation: the
    in-memory warning ("names none of the evaluated queries") is decided on the driver, over
    every partition's queries: silent when one partition evaluates a key, once when none
    does."""
    col = image_collection()
    runs = _first_queries(col, 12)
    node = [n for n in col.taxonomy.nodes if n != col.taxonomy.root][3]
    answered = runs[next(iter(runs))].queries[0]
    frames = {name: dd.from_pandas(r.to_dataframe(), npartitions=3, sort=False)
              for name, r in runs.items()}
    for given, npartitions in ((runs, 3), (frames, None)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fd.evaluate(given, col.membership, ["P@10"], npartitions=npartitions, n_worlds=0,
                        query_categories={answered: node})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fd.evaluate(given, col.membership, ["P@10"], npartitions=npartitions, n_worlds=0,
                        query_categories={answered.upper() + "#": node})
        unused = [w for w in caught if "names none of the evaluated queries" in str(w.message)]
        assert len(unused) == 1, [str(w.message) for w in caught]


@pytest.mark.parametrize("model", ["dawid-skene", "shares", "irn", "prirn"])
def test_a_truth_model_is_broadcast_and_gives_the_in_memory_numbers(client, model):
    """A fitted truth model (Dawid–Skene's parameter worlds: dependent items, every measure
    from the worlds; IRN and PrIRN fitted on rankings) is shipped whole to the workers; the
    worlds are keyed, so any partitioning gives the in-memory bits, and the output names the
    model."""
    from fuzzytruth.io.rankings import Rankings
    from fuzzytruth.truth.models import fit_truth

    col = image_collection()
    labels = col.annotations
    if model in ("irn", "prirn"):  # each annotator's label, then its parent (but the root)
        frame = labels.to_frame()
        parents = [col.taxonomy.parents(label)[0] for label in frame["label"]]
        labels = Rankings.from_frame(pd.DataFrame({
            "item_id": np.tile(frame["item_id"], 2),
            "reader_id": np.tile(frame["annotator_id"], 2),
            "class": [*frame["label"], *parents],
            "rank_group": np.repeat([0, 1], len(frame))}).query(
                "`class` != @col.taxonomy.root").drop_duplicates(
                ["item_id", "reader_id", "class"]), taxonomy=col.taxonomy,
            classes=[n for n in col.taxonomy.nodes if n != col.taxonomy.root])
    fit = fit_truth(labels, model)
    runs = _first_queries(col, 24)
    local = evaluate(runs, fit, ["P@10", "AP"], n_worlds=50, rng=1)
    remote = fd.evaluate(runs, fit, ["P@10", "AP"], n_worlds=50, rng=1, npartitions=5)
    _same_evaluation(remote, local, exact=False)
    frames = {name: dd.from_pandas(r.to_dataframe(), npartitions=2, sort=False)
              for name, r in runs.items()}  # Dask DataFrame runs with the broadcast model
    _same_evaluation(fd.evaluate(frames, fit, ["P@10", "AP"], n_worlds=50, rng=1), local,
                     exact=False)
    assert remote.conventions["truth_model"] == model
    assert remote.aggregate()["estimand"].equals(local.aggregate()["estimand"])


def test_a_progress_bar_is_refused_on_a_cluster_not_ignored(client, data):
    runs, qrels, _ = data
    groups = {"g1": qrels}
    for call in (lambda **kw: fd.evaluate(runs, qrels, ["AP"], **kw),
                 lambda **kw: fd.evaluate_per_annotator(runs["bm25"], groups, ["AP"], **kw)):
        with pytest.raises(ValueError, match=r"progress=True draws no bar on a cluster"):
            call(progress=True)
        with pytest.raises(ValueError, match=r"progress must be True, False or None; got 'y'"):
            call(progress="y")
    assert list(fd.evaluate(runs, qrels, ["AP"], progress=False).measures) == ["AP"]


def test_missing_error_is_raised_from_the_partition(client, data):
    runs, qrels, _ = data
    with pytest.raises(ValueError, match="q07"):
        fd.evaluate(runs, qrels, ["AP"], missing="error", npartitions=3)


# ------------------------------------------------------------------------------ frames and Parquet
def _frames(runs, pq, npartitions):
    run_frames = {name: dd.from_pandas(r.to_dataframe(), npartitions=npartitions, sort=False)
                  for name, r in runs.items()}
    return run_frames, dd.from_pandas(pq.to_dataframe(), npartitions=npartitions, sort=False)


def test_dask_frames_split_mid_query_are_repartitioned(client, data):
    runs, _, pq = data
    local = evaluate(runs, pq, MEASURES, n_worlds=40, rng=2, missing="skip")
    run_frames, truth = _frames(runs, pq, 7)  # 1200 rows in 7 parts: queries are cut
    with pytest.raises(ValueError, match="split across partitions"):
        fd.evaluate(run_frames, truth, MEASURES, n_worlds=40, rng=2, repartition=False)
    with pytest.warns(UserWarning, match="q07"):
        remote = fd.evaluate(run_frames, truth, MEASURES, n_worlds=40, rng=2)
    _same_evaluation(remote, local, exact=False)
    forced = fd.evaluate(run_frames, truth, MEASURES, n_worlds=40, rng=2, npartitions=2)
    _same_evaluation(forced, local, exact=False)


def test_partitioned_parquet_one_file_per_query_range(client, data, tmp_path):
    runs, _, pq = data
    queries = np.array(pq.queries)
    for p, block in enumerate(np.array_split(queries, 4)):
        for name, run in runs.items():
            frame = run.to_dataframe()
            (tmp_path / name).mkdir(exist_ok=True)
            frame[frame["query_id"].isin(block)].to_parquet(tmp_path / name / f"part.{p}.parquet")
        frame = pq.to_dataframe()
        (tmp_path / "truth").mkdir(exist_ok=True)
        frame[frame["query_id"].isin(block)].to_parquet(tmp_path / "truth" / f"part.{p}.parquet")
    local = evaluate({n: Run(r.query_ids[r.query_ids != "q07"], r.doc_ids[r.query_ids != "q07"],
                             r.scores[r.query_ids != "q07"], name=n) for n, r in runs.items()},
                     pq, MEASURES, n_worlds=40, rng=4)
    truth = fd.read_parquet(tmp_path / "truth")
    assert truth.npartitions == 4
    remote = fd.evaluate({n: tmp_path / n for n in runs}, tmp_path / "truth", MEASURES,
                         n_worlds=40, rng=4, repartition=False)
    _same_evaluation(remote, local, exact=False)


@pytest.mark.filterwarnings("ignore:query\\(ies\\) 'q07'")
def test_a_query_split_across_two_parquet_files_is_seen(client, data, tmp_path):
    """Run files cut inside query q15 (files 0 and 1), truth files cut between queries: the
    partitioning check read the query column alone, which Dask reads in fused partitions
    (files 0+1, 2+3), so the split was not seen and q15 was evaluated on part of its ranking
    in each file's task, silently. The check now reads the partitions the tasks read."""
    runs, _, pq = data
    for name, run in runs.items():
        frame = run.to_dataframe()
        (tmp_path / name).mkdir()
        for i, (a, b) in enumerate([(0, 310), (310, 600), (600, 900), (900, 1200)]):
            frame.iloc[a:b].to_parquet(tmp_path / name / f"part.{i}.parquet")
    truth = pq.to_dataframe()
    (tmp_path / "truth").mkdir()
    for i, (a, b) in enumerate([("q00", "q15"), ("q16", "q29"), ("q30", "q44"),
                                ("q45", "q59")]):
        truth[truth["query_id"].between(a, b)].to_parquet(tmp_path / "truth" / f"p{i}.parquet")
    given = ({n: tmp_path / n for n in runs}, tmp_path / "truth", MEASURES)
    with pytest.raises(ValueError, match="query 'q15' of runs\\['bm25'\\] is split across "
                       "partitions 0 and 1"):
        fd.evaluate(*given, n_worlds=20, rng=2, repartition=False)
    local = evaluate(runs, pq, MEASURES, n_worlds=20, rng=2)
    _same_evaluation(fd.evaluate(*given, n_worlds=20, rng=2), local, exact=False)

@pytest.mark.filterwarnings("ignore:query\\(ies\\) 'q07'")
def test_each_partition_is_read_once(client, data, tmp_path):
    """The check of the partitioning computed every partition's distinct query ids in a pass
    of its own before the evaluation: every partition was read twice. The evaluation tasks now
    return them with their results: each reader call is logged, and each partition has one."""
    runs, _, pq = data
    blocks = np.array_split(np.array([*pq.queries, "q07"]), 3)

    def logged(name, table):
        def read(p):
            with open(tmp_path / f"{name}.{p}", "a") as log:
                log.write("read\n")
            return table[table["query_id"].isin(blocks[p])].reset_index(drop=True)

        return dd.from_map(read, range(len(blocks)), meta=table.iloc[:0])

    frames = {name: logged(name, run.to_dataframe()) for name, run in runs.items()}
    remote = fd.evaluate(frames, logged("truth", pq.to_dataframe()), MEASURES, n_worlds=20,
                         rng=3, repartition=False)
    _same_evaluation(remote, evaluate(runs, pq, MEASURES, n_worlds=20, rng=3), exact=False)
    reads = {f.name: f.read_text().count("read") for f in tmp_path.iterdir()}
    assert reads == {f"{name}.{p}": 1 for name in [*runs, "truth"] for p in range(3)}


@pytest.mark.filterwarnings("ignore:query\\(ies\\) 'q07'")
def test_a_partition_is_read_and_evaluated_in_one_task(client, data):
    """Every frame's partition i is read by the task that evaluates it: one task per
    partition, nothing sent between workers. (A task per frame partition let the reads of one
    partition land on two workers, and a 500,000-row frame was sent across: 12 to 17 of 40
    partitions at 200,000 queries.)"""
    runs, _, pq = data
    queries = np.array([*pq.queries, "q07"])
    bounds = [(0, 20), (20, 40), (40, 60)]
    frames = {name: _by_query(r.to_dataframe(), queries, bounds) for name, r in runs.items()}
    truth = _by_query(pq.to_dataframe(), queries, bounds)
    with distributed.get_task_stream(client) as stream:
        remote = fd.evaluate(frames, truth, MEASURES, n_worlds=20, rng=5, repartition=False)
    _same_evaluation(remote, evaluate(runs, pq, MEASURES, n_worlds=20, rng=5), exact=False)
    actions = [s["action"] for task in stream.data for s in task["startstops"]]
    assert actions.count("compute") == 3 and "transfer" not in actions


@pytest.mark.filterwarnings("ignore:query\\(ies\\) 'q07'")
def test_parquet_read_with_some_columns_keeps_one_task_per_file(client, data, tmp_path):
    """Runs and truth read from files with more columns than they use, in different shares
    (2 extra columns in the runs' files, 6 in the truth's): Dask's tuning reads adjacent
    files together in proportion to that share, a different number for each frame, and its
    repartitioning to align them cut the runs' partitions inside queries (the partitioning
    error under repartition=False for files holding whole queries). Tuning is off for the
    evaluation's graph: one task per file, the in-memory numbers."""
    runs, _, pq = data
    table = runs["bm25"].to_dataframe().merge(pq.to_dataframe(), on=["query_id", "doc_id"],
                                              how="left")
    table = table[table["query_id"] != "q07"].reset_index(drop=True)
    table["probability"] = table["probability"].fillna(0.0)
    (tmp_path / "run").mkdir()
    (tmp_path / "truth").mkdir()
    for p, block in enumerate(np.array_split(np.array(pq.queries), 12)):
        part = table[table["query_id"].isin(block)]
        part[["query_id", "doc_id", "score"]].assign(x1=1.0, x2=2.0).to_parquet(
            tmp_path / "run" / f"part.{p:02d}.parquet", index=False)
        part[["query_id", "doc_id", "probability"]].assign(
            **{f"x{i}": float(i) for i in range(6)}).to_parquet(
            tmp_path / "truth" / f"part.{p:02d}.parquet", index=False)
    run = fd.read_parquet(tmp_path / "run", columns=["query_id", "doc_id", "score"])
    truth = fd.read_parquet(tmp_path / "truth", columns=["query_id", "doc_id", "probability"])
    with distributed.get_task_stream(client) as stream:
        remote = fd.evaluate({"bm25": run}, truth, MEASURES, n_worlds=20, rng=6,
                             repartition=False)
    local_truth = ProbabilisticQrels(table["query_id"], table["doc_id"], table["probability"])
    local = evaluate({"bm25": Run(table["query_id"], table["doc_id"], table["score"],
                                  name="bm25")}, local_truth, MEASURES, n_worlds=20, rng=6)
    _same_evaluation(remote, local, exact=False)
    actions = [s["action"] for task in stream.data for s in task["startstops"]]
    assert actions.count("compute") == 12 and "transfer" not in actions


def _by_query(table, queries, bounds):
    """A frame of ``table`` whose partition ``i`` holds the rows of ``queries[a:b]``, the
    ``i``-th of ``bounds``."""
    parts = [table[table["query_id"].isin(queries[a:b])] for a, b in bounds]
    return dd.from_map(lambda part: part, parts, meta=table.iloc[:0])


def test_a_failing_task_of_frames_not_partitioned_by_query_gives_the_partitioning_error(
        client, data):
    """Truth partitions shifted by one query from the runs': a run partition's first query is
    judged in the previous truth partition, so its task fails (missing='error') before the
    driver sees the query ids. The partitioning is what is reported (repartition=False), or
    the frames are hash-partitioned and the in-memory numbers come out: the failed first pass
    never shows."""
    runs, qrels, _ = data
    judged = {n: Run(r.query_ids[r.query_ids != "q07"], r.doc_ids[r.query_ids != "q07"],
                     r.scores[r.query_ids != "q07"], name=n) for n, r in runs.items()}
    queries = np.array(qrels.queries)
    run_frames = {n: _by_query(r.to_dataframe(), queries, [(0, 20), (20, 40), (40, 59)])
                  for n, r in judged.items()}
    truth = _by_query(qrels.to_dataframe(), queries, [(0, 21), (21, 41), (41, 59)])
    with pytest.raises(ValueError, match=re.escape(
            f"not partitioned by query: query {str(queries[20])!r} is in partition 1 of "
            "runs['bm25'] but in partition 0 of truth")):
        fd.evaluate(run_frames, truth, ["AP"], missing="error", repartition=False)
    local = evaluate(judged, qrels, MEASURES, missing="error")
    _same_evaluation(fd.evaluate(run_frames, truth, MEASURES, missing="error"), local,
                     exact=True)


def _doubled(table, query, doc):
    """``table`` with the row of (query, doc) listed twice, next to each other."""
    row = table[(table["query_id"] == query) & (table["doc_id"] == doc)]
    return pd.concat([table, row]).sort_values("query_id", kind="stable")


@pytest.mark.parametrize("npartitions", [None, 2])
def test_a_duplicate_row_of_a_frame_is_named_in_the_frame_s_terms(client, data, npartitions):
    """A frame listing a document twice for a query failed with the in-memory constructors'
    message: the partition's own row numbers and "pass duplicates='max', 'first' or 'last'",
    an option fd.evaluate does not have. Now the frame, the query and the document, and what
    can be done: one row per pair in the frame, or an in-memory object built with
    duplicates= (frames partitioned by query, evaluated as they are or hash-partitioned)."""
    runs, qrels, pq = data
    queries, bounds = np.array(sorted(runs["bm25"].queries)), [(0, 30), (30, 60)]
    run_frames = {n: _by_query(r.to_dataframe(), queries, bounds) for n, r in runs.items()}
    crisp = _by_query(qrels.to_dataframe(), queries, bounds)
    doubled = {**run_frames, "dense": _by_query(_doubled(runs["dense"].to_dataframe(), "q41",
                                                         "d3"), queries, bounds)}
    remedy = " in the frame, or pass a {} built with duplicates='max', 'first' or 'last' in " \
             "place of the frame"
    cases = [
        (doubled, crisp, {}, "runs['dense'] lists document 'd3' 2 times for query 'q41'; keep "
                             "one row per (query_id, doc_id)" + remedy.format("Run")),
        (run_frames, _by_query(_doubled(qrels.to_dataframe(), "q35", "d5"), queries, bounds), {},
         "truth lists document 'd5' 2 times for query 'q35'; keep one row per (query_id, "
         "doc_id)" + remedy.format("Qrels")),
        (run_frames, _by_query(_doubled(pq.to_dataframe(), "q35", "d5"), queries, bounds),
         {"n_worlds": 10, "rng": 0}, "truth lists document 'd5' 2 times for query 'q35'; keep "
                                     "one row per (query_id, doc_id) in the frame"),
    ]
    for run_input, truth, options, message in cases:
        with pytest.raises(ValueError, match=re.escape(message) + "$"):
            fd.evaluate(run_input, truth, ["AP"], npartitions=npartitions, **options)


def test_a_task_s_error_raised_on_the_driver_keeps_the_worker_s_frames(client, data):
    """Frames evaluated as they are return a task's error to the driver, to be raised once
    the partitioning is known to hold; distributed pickles the error with its traceback
    (tblib), so the raised error still shows where on the worker it was raised."""
    runs, qrels, _ = data
    queries, bounds = np.array(sorted(runs["bm25"].queries)), [(0, 30), (30, 60)]
    doubled = _by_query(_doubled(runs["dense"].to_dataframe(), "q41", "d3"), queries, bounds)
    with pytest.raises(ValueError, match="lists document 'd3' 2 times") as raised:
        fd.evaluate({"dense": doubled}, _by_query(qrels.to_dataframe(), queries, bounds),
                    ["AP"])
    assert "in _evaluate_frames" in "".join(traceback.format_exception(raised.value))


def test_a_truth_frame_without_its_columns_is_named(client, data):
    runs, _, pq = data
    bad = dd.from_pandas(pq.to_dataframe().rename(columns={"probability": "p"}), npartitions=1)
    with pytest.raises(ValueError, match="'probability' column"):
        fd.evaluate(runs["bm25"], bad, ["AP"], npartitions=1)




def test_a_frame_without_its_columns_is_named_before_any_task(client, data):
    """A run frame without its score column failed on a worker with Run.from_dataframe's
    "score_col='score' is not a column of the DataFrame df", a parameter fd.evaluate does not
    have, about a frame it does not name; now the frame, the columns and what it has."""
    runs, _, pq = data
    run_frames, truth = _frames(runs, pq, 2)
    renamed = {**run_frames, "dense": run_frames["dense"].rename(columns={"score": "s"})}
    with pytest.raises(ValueError, match=re.escape(
            "runs['dense'] must have columns ['query_id', 'doc_id', 'score']; missing "
            "['score'], found ['query_id', 'doc_id', 's']")):
        fd.evaluate(renamed, truth, ["AP"], n_worlds=10, rng=0)
    with pytest.raises(ValueError, match=re.escape(
            "truth must have columns ['query_id', 'doc_id']; missing ['doc_id']")):
        fd.evaluate(runs, truth.drop(columns="doc_id"), ["AP"], n_worlds=10, rng=0)

@pytest.mark.parametrize("npartitions", [0, True, 2.5, "3"])
def test_npartitions_of_frames_is_checked_like_in_memory(client, data, npartitions):
    """Frames read npartitions as the count of a forced hash-partitioning: 0 was a modulo by
    zero ending in "no query left to evaluate", True one partition, 2.5 and "3" Dask's own
    TypeErrors; now the message of the in-memory path, naming the parameter."""
    runs, _, pq = data
    run_frames, truth = _frames(runs, pq, 2)
    message = f"npartitions must be an integer >= 1; got {npartitions!r}"
    for given in ((run_frames, truth), (runs, pq)):
        with pytest.raises(ValueError, match=re.escape(message)):
            fd.evaluate(*given, ["AP"], n_worlds=10, rng=0, npartitions=npartitions)


@pytest.mark.parametrize("call", ["evaluate", "evaluate_per_annotator", "compare", "agreement"])
def test_a_client_that_is_not_one_is_named(client, data, call):
    """client="tcp://..." (an address, not a Client) was an AttributeError ('str' object has
    no attribute 'nthreads' / 'scatter' / 'scheduler_info') at its first use."""
    runs, qrels, _ = data
    calls = {
        "evaluate": lambda c: fd.evaluate(runs, qrels, ["AP"], client=c),
        "evaluate_per_annotator": lambda c: fd.evaluate_per_annotator(
            runs["bm25"], {"a": qrels}, ["AP"], client=c),
        "compare": lambda c: fd.compare(np.ones((2, 5)), client=c),
        "agreement": lambda c: fd.agreement(image_collection().annotations, client=c,
                                            n_resamples=10),
    }
    with pytest.raises(ValueError, match=re.escape(
            "client must be a distributed.Client or None (the active client); got "
            "'tcp://127.0.0.1:8786'")):
        calls[call]("tcp://127.0.0.1:8786")

# ------------------------------------------------------------------------------ compare
@pytest.mark.parametrize(("method", "correction", "alternative"), [
    ("t", "holm", "two-sided"), ("bootstrap", "romano-wolf", "two-sided"),
    ("bca", "bh", "two-sided"), ("percentile", "tukey-randomized", "two-sided"),
    ("basic", "romano-wolf", "greater"), ("randomization", "holm", "less"),
    ("randomization", "tukey-randomized", "two-sided"), ("wilcoxon", "tukey-anova", "two-sided"),
    ("sign", "by", "two-sided"), ("t", "romano-wolf", "two-sided"),
])
def test_compare_is_the_in_memory_table(client, data, method, correction, alternative):
    runs, _, pq = data
    ev = fd.evaluate(runs, pq, MEASURES, n_worlds=30, rng=1, missing="skip")
    options = dict(method=method, correction=correction, alternative=alternative,
                   n_resamples=400, rng=8)
    local = compare(ev, **options)
    with distributed.get_task_stream(client) as tasks:
        remote = fd.compare(ev, block_size=64, **options)  # 7 blocks of replicates a measure
    pd.testing.assert_frame_equal(remote.table, local.table, check_exact=True)
    pd.testing.assert_frame_equal(remote.systems, local.systems, check_exact=True)
    assert remote.n_resamples == local.n_resamples
    kernels = [t["key"] for t in tasks.data if "block" in str(t["key"])]
    resampled = method in ("bootstrap", "bca", "percentile", "basic", "randomization")
    blocks_per_measure = 7 * (resampled + (correction == "tukey-randomized")
                              + (correction == "romano-wolf" and not resampled))
    assert len(kernels) == blocks_per_measure * len(MEASURES)


def test_compare_default_blocks_give_every_worker_a_share(client):
    x = np.random.default_rng(2).random((4, 50))
    local = compare(x, measure="AP", method="percentile", n_resamples=501, rng=3)
    with distributed.get_task_stream(client) as tasks:
        remote = fd.compare(x, measure="AP", method="percentile", n_resamples=501, rng=3)
    pd.testing.assert_frame_equal(remote.table, local.table, check_exact=True)
    assert sum("block" in str(t["key"]) for t in tasks.data) == 2  # two workers, two blocks
    with pytest.raises(ValueError, match="block_size must be an integer >= 1"):
        fd.compare(x, measure="AP", block_size=0)


def test_compare_defaults_on_an_array(client):
    x = np.random.default_rng(0).random((3, 40)) + np.array([[0.1], [0.0], [0.05]])
    local, remote = compare(x, measure="AP"), fd.compare(x, measure="AP")
    pd.testing.assert_frame_equal(remote.table, local.table)


# ------------------------------------------------------------------------------ failures
def test_a_worker_killed_mid_computation_is_replaced_and_the_result_unchanged(client, data):
    runs, _, pq = data
    local = evaluate(runs, pq, ["AP", "nDCG@10"], n_worlds=3000, rng=6)
    pids = client.run(os.getpid)
    out = {}

    def run():
        out["ev"] = fd.evaluate(runs, pq, ["AP", "nDCG@10"], n_worlds=3000, rng=6,
                                npartitions=12, client=client)

    thread = threading.Thread(target=run)
    thread.start()
    victim = None
    deadline = time.monotonic() + 30
    while victim is None and time.monotonic() < deadline:
        busy = [w for w, keys in client.processing().items() if keys]
        victim = busy[0] if busy else None
        time.sleep(0.01)
    assert victim is not None, "no task seen running"
    os.kill(pids[victim], 9)
    thread.join(120)
    assert "ev" in out
    assert set(client.run(os.getpid).values()) != set(pids.values())  # a worker was replaced
    _same_evaluation(out["ev"], local, exact=False)


# ------------------------------------------------------------------------------ the README
def test_readme_cluster_example_runs_and_prints_true_twice():
    import contextlib
    import io
    from pathlib import Path

    readme = Path(__file__).resolve().parents[1] / "README.md"
    code = re.search(r"## Running on a cluster\n.*?```python\n(.*?)```", readme.read_text(),
                     re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(readme), "exec"), {"__name__": "__main__"})
    assert out.getvalue().split() == ["True", "True"]


# ------------------------------------------------------------------------------ agreement
def test_agreement_blocks_on_the_cluster_are_the_in_memory_bootstrap(client):
    """The same replicates (keyed draws, the same blocks); the values agree to the rounding
    of the block's matrix product, which depends on the BLAS thread count only (Dask workers
    run BLAS on one thread: with OPENBLAS_NUM_THREADS=1 here too they are bit-identical)."""
    from fuzzytruth._resampling import resample_block
    from fuzzytruth.collection import agreement, agreement_by_level

    ann = image_collection().annotations
    budget = 24 * 500 * 37  # 37 replicates per block: 11 blocks, the last one short
    local = agreement(ann, n_resamples=400, rng=3, memory_budget=budget)
    remote = fd.agreement(ann, n_resamples=400, rng=3, memory_budget=budget)
    np.testing.assert_allclose(remote.bootstrap_distribution, local.bootstrap_distribution,
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(remote.to_frame().select_dtypes("number"),
                               local.to_frame().select_dtypes("number"), rtol=1e-12)
    here = resample_block(500, 99, 370, 400)
    assert np.array_equal(client.submit(resample_block, 500, 99, 370, 400).result(), here)
    by_level = agreement_by_level(ann, n_resamples=100, rng=3)
    remote_levels = fd.agreement_by_level(ann, n_resamples=100, rng=3)
    np.testing.assert_allclose(remote_levels.bootstrap_distribution,
                               by_level.bootstrap_distribution, rtol=1e-12, atol=1e-14)


def test_agreement_reads_annotations_partitioned_by_item(client, tmp_path):
    """Annotations as a Dask DataFrame or a Parquet dataset partitioned by item give the
    in-memory result; an item split across partitions is an error naming it."""
    from fuzzytruth.collection import agreement

    collection = image_collection()
    ann = collection.annotations
    table = ann.to_frame()[["item_id", "annotator_id", "label"]]
    items = np.sort(table["item_id"].unique())
    bounds = np.searchsorted(items, [items[150], items[320]])
    cut = [items[:bounds[0]], items[bounds[0]:bounds[1]], items[bounds[1]:]]
    folder = tmp_path / "votes"
    folder.mkdir()
    for i, part in enumerate(cut):
        table[table["item_id"].isin(part)].to_parquet(folder / f"part{i}.parquet")
    local = agreement(ann, n_resamples=200, rng=4)
    for source in (str(folder), fd.read_parquet(folder)):
        remote = fd.agreement(source, taxonomy=collection.taxonomy, n_resamples=200, rng=4)
        np.testing.assert_allclose(remote.to_frame().select_dtypes("number"),
                                   local.to_frame().select_dtypes("number"), rtol=1e-12)
    shuffled = dd.from_pandas(table.sample(frac=1.0, random_state=0), npartitions=3)
    with pytest.raises(ValueError, match=r"annotations are not partitioned by item: item '.+' "
                       r"is split across partitions"):
        fd.agreement(shuffled, taxonomy=collection.taxonomy, n_resamples=10, rng=0)


@pytest.mark.parametrize("npartitions", [1, 3, 8])
def test_agreement_counts_each_item_partition_on_its_worker(client, npartitions):
    """The label-count rows are built per item partition on the workers (the votes stay
    there); for any number of partitions, with the flat taxonomy of the labels or the given
    one, agreement and agreement_by_level equal the in-memory results."""
    from fuzzytruth.annotations import Annotations
    from fuzzytruth.collection import agreement, agreement_by_level
    from fuzzytruth.distributed.collection import _label_counts
    from fuzzytruth.taxonomy import Taxonomy

    collection = image_collection()
    table = collection.annotations.to_frame()[["item_id", "annotator_id", "label"]]
    table = table.sort_values("item_id", kind="stable").reset_index(drop=True)
    items = table["item_id"].unique()
    cuts = np.array_split(items, npartitions)  # whole items per partition
    frame = dd.concat([dd.from_pandas(table[table["item_id"].isin(c)], npartitions=1)
                       for c in cuts])
    assert frame.npartitions == npartitions
    whole = Annotations.from_frame(table, taxonomy=collection.taxonomy)
    flat = Annotations.from_frame(table, taxonomy=Taxonomy.flat(pd.unique(table["label"])))
    counts, _ = _label_counts(frame, collection.taxonomy)
    assert counts.shape == (whole.n_items, len(collection.taxonomy))
    for remote_taxonomy, local in ((collection.taxonomy, whole), (None, flat)):
        ours = fd.agreement(frame, taxonomy=remote_taxonomy, n_resamples=100, rng=5)
        theirs = agreement(local, n_resamples=100, rng=5)
        pd.testing.assert_frame_equal(ours.to_frame(), theirs.to_frame(), rtol=1e-12)
    levels = fd.agreement_by_level(frame, taxonomy=collection.taxonomy, n_resamples=50, rng=5)
    expected = agreement_by_level(whole, n_resamples=50, rng=5)
    pd.testing.assert_frame_equal(levels.to_frame(), expected.to_frame(), rtol=1e-12)


# ------------------------------------------------------------------------------ judgment groups
@pytest.mark.parametrize("undefined", ["zero", "skip"])
def test_per_annotator_evaluation_on_the_cluster_equals_in_memory(client, data, undefined):
    """One task per judgment group, combined by the in-memory code: the same Evaluation
    (group 'c' judges only some queries, one of them with no relevant document)."""
    from fuzzytruth.crisp import evaluate_per_annotator

    runs, qrels, _ = data
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"query_id": qrels.query_ids, "doc_id": qrels.doc_ids})
    groups = {}
    for g in ("a", "b", "c"):
        part = frame if g != "c" else frame[frame["query_id"] < "q30"]
        rel = rng.integers(0, 3, len(part))
        rel[(part["query_id"] == "q11").to_numpy()] = 0
        groups[g] = Qrels(part["query_id"], part["doc_id"], rel)
    options = {} if undefined == "zero" else {"undefined": undefined}  # the default as given
    local = evaluate_per_annotator(runs["bm25"], groups, MEASURES, **options)
    remote = fd.evaluate_per_annotator(runs["bm25"], groups, MEASURES, **options)
    assert remote.truth == local.truth == "judgment_groups"
    _same_evaluation(remote, local, exact=True)
    pd.testing.assert_frame_equal(remote.groups, local.groups)
    with pytest.raises(ValueError, match="qrels_by_group must be a non-empty mapping"):
        fd.evaluate_per_annotator(runs["bm25"], {}, MEASURES)
