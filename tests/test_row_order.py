"""Row order is not data (issue 23, item 6): every public entry point gives identical results,
to the bit, when the rows of its inputs (runs, qrels, probabilistic qrels, annotations, the
taxonomy's edges) come in another order. Seeded draws included: they are keyed by ids, not
by positions.

The inputs are the bundled image collection (500 images, 10 annotators, a 3-level taxonomy,
three systems), cut to 25 queries so the suite stays quick, and random crisp qrels with tied
scores.
"""

import numpy as np
import pandas as pd
import pytest

import fuzzytruth as ft
from fuzzytruth.datasets import image_collection

N_QUERIES = 25

# small designs: the inference warnings speak to the numbers, which are not the subject here
pytestmark = [pytest.mark.filterwarnings("ignore::fuzzytruth.UnreliableInferenceWarning"),
              pytest.mark.filterwarnings("ignore::fuzzytruth.ResamplingResolutionWarning")]


def shuffled(frame: pd.DataFrame, seed: int | None) -> pd.DataFrame:
    """``frame``'s rows in a random order (None: as given)."""
    if seed is None:
        return frame
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def equal_frames(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True),
                                  check_exact=True)


@pytest.fixture(scope="module")
def collection():
    c = image_collection()
    queries = sorted(next(iter(c.runs.values()))["query_id"].unique())[:N_QUERIES]
    runs = {name: frame[frame["query_id"].isin(queries)][["query_id", "doc_id", "score"]]
            for name, frame in c.runs.items()}
    return c, runs


def build(c, runs: dict[str, pd.DataFrame], seed: int | None, taxonomy_too: bool = False):
    """The collection's Runs, Annotations and Membership from its rows, shuffled by ``seed``
    (None: as bundled), and the taxonomy's edges too if asked."""
    edges = c.taxonomy.to_frame()
    taxonomy = ft.Taxonomy.from_frame(shuffled(edges, seed) if taxonomy_too else edges)
    annotations = ft.Annotations.from_frame(shuffled(c.annotations.to_frame(), seed),
                                            taxonomy=taxonomy)
    run_objects = {name: ft.Run.from_dataframe(shuffled(frame, seed), name=name)
                   for name, frame in runs.items()}
    return run_objects, annotations, ft.Membership.from_annotations(annotations)


@pytest.fixture(scope="module")
def both(collection):
    c, runs = collection
    return build(c, runs, None), build(c, runs, 7)


def test_the_shuffle_changes_the_rows(collection):
    frame = collection[0].annotations.to_frame()
    assert not shuffled(frame, 7).equals(frame)


def test_categorical_evaluation_and_its_worlds(both):
    results = [
        ft.evaluate(runs, membership, ["P@10", "AP", "nDCG@10"], n_worlds=40, rng=3)
        for runs, _, membership in both
    ]
    equal_frames(results[0].to_frame(), results[1].to_frame())
    equal_frames(results[0].aggregate(), results[1].aggregate())
    np.testing.assert_array_equal(results[0].world_scores("AP"), results[1].world_scores("AP"))
    comparisons = [ft.compare(r, method="bootstrap", n_resamples=200, rng=1) for r in results]
    equal_frames(comparisons[0].table, comparisons[1].table)
    equal_frames(comparisons[0].systems, comparisons[1].systems)


def test_annotation_analyses(both):
    (_, first, m1), (_, second, m2) = both
    a, b = (ft.agreement(x, n_resamples=100, rng=2) for x in (first, second))
    equal_frames(a.to_frame(), b.to_frame())
    a, b = (ft.agreement_by_level(x, n_resamples=50, rng=2) for x in (first, second))
    equal_frames(a.to_frame(), b.to_frame())
    a, b = (ft.annotator_agreement(x) for x in (first, second))
    equal_frames(a.to_frame(), b.to_frame())
    a, b = (ft.category_reliability(x) for x in (first, second))
    equal_frames(a.to_frame(), b.to_frame())
    equal_frames(m1.to_frame(), m2.to_frame())


def test_population_bootstrap(both):
    (runs1, first, _), (runs2, second, _) = both
    a, b = (ft.annotator_bootstrap(r, x, ["P@10"], n_resamples=30, n_worlds=10, rng=4)
            for r, x in ((runs1, first), (runs2, second)))
    equal_frames(ft.compare(a, rng=0).table, ft.compare(b, rng=0).table)


def crisp_frames(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    run = pd.DataFrame({
        "query_id": np.repeat([f"q{i}" for i in range(12)], 20),
        "doc_id": np.tile([f"d{j:02d}" for j in range(20)], 12),
        "score": rng.integers(0, 5, 240).astype(float),  # many ties: broken by document id
    })
    qrels = run[["query_id", "doc_id"]].sample(150, random_state=seed).reset_index(drop=True)
    qrels["relevance"] = rng.integers(-1, 3, len(qrels))
    return run, qrels


def test_crisp_and_probabilistic_evaluation():
    run, qrels = crisp_frames(0)
    measures = ["P@5", "AP", "nDCG@10", "RR", "Rprec", "num_rel_ret", "bpref"]
    results = []
    for seed in (None, 1):
        r = ft.Run.from_dataframe(shuffled(run, seed), name="sys")
        q = ft.Qrels.from_dataframe(shuffled(qrels, seed))
        results.append(ft.evaluate(r, q, measures))
        groups = {"g1": q, "g2": ft.Qrels.from_dataframe(shuffled(qrels.iloc[::2], seed))}
        results.append(ft.evaluate_per_annotator(r, groups, ["P@5", "AP"]))
        p = qrels.assign(probability=(qrels["relevance"] + 1) / 4)[
            ["query_id", "doc_id", "probability"]]
        pq = ft.ProbabilisticQrels.from_dataframe(shuffled(p, seed))
        results.append(ft.evaluate(r, pq, measures, n_worlds=30, rng=5))
    for a, b in zip(results[:3], results[3:], strict=True):
        equal_frames(a.to_frame(), b.to_frame())
        equal_frames(a.aggregate(), b.aggregate())
