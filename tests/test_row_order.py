"""Row order is not data (issue 23, item 6): every public entry point gives identical results,
to the bit, when the rows of its inputs (runs, qrels, probabilistic qrels, annotations, the
taxonomy's edges) come in another order. Seeded draws included: they are keyed by ids, not
by positions.

The inputs are the bundled image collection (500 images, 10 annotators, a 3-level taxonomy,
three systems), cut to 25 queries so the suite stays quick, random crisp qrels with tied
scores, the dermatology readers' partial rankings of 120 cases (IRN, PrIRN, the classifier
path), and small random tables for the displacement, preference and long-table entry points.
Covered: evaluate (crisp, probabilistic, categorical, per annotator, classifiers), every truth
model's fit, compare (from an evaluation and from a long table), the annotator bootstrap,
agreement and reliability, annotation certainty, the leave-one-annotator-out baseline,
reliability curves, weighted displacement, preference measures, precision-recall bands, query
categories, and the command line on shuffled files.
"""

import contextlib
import io

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


@pytest.mark.parametrize("world_model", ["annotator", "bernoulli"])
def test_the_taxonomy_order_changes_no_draw(collection, world_model):
    """Worlds walk a distribution over nodes in name order: with the taxonomy's edges in
    another order (so its nodes too), the same seed draws the same worlds."""
    c, runs = collection
    results = []
    for seed in (None, 11):
        run_objects, _, membership = build(c, runs, seed, taxonomy_too=True)
        results.append(ft.evaluate(run_objects, membership, ["P@10", "AP"], n_worlds=40, rng=3,
                                   world_model=world_model))
    assert results[0].conventions["measures"] == results[1].conventions["measures"]
    for measure in ("P@10", "AP"):
        np.testing.assert_array_equal(results[0].world_scores(measure),
                                      results[1].world_scores(measure))
    pd.testing.assert_frame_equal(results[0].to_frame(), results[1].to_frame(),
                                  check_exact=False, rtol=0, atol=1e-12)


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


# ------------------------------------------------------------------ truth models
@pytest.fixture(scope="module")
def rankings_frames():
    """The dermatology readers' partial rankings of 120 cases, as a long table."""
    from fuzzytruth.datasets.dermatology import dermatology

    d = dermatology()
    frame = d.rankings.to_frame()
    items = sorted(frame["item_id"].unique())[:120]
    return frame[frame["item_id"].isin(items)], d.rankings.taxonomy


def rankings_of(frames, seed):
    frame, taxonomy = frames
    return ft.Rankings.from_frame(shuffled(frame, seed), taxonomy=taxonomy)


@pytest.mark.parametrize("model", sorted(ft.TRUTH_MODELS))
def test_every_truth_model_fits_alike(both, rankings_frames, model):
    if model in ("irn", "prirn"):
        data = [rankings_of(rankings_frames, seed) for seed in (None, 3)]
    else:
        data = [annotations for _, annotations, _ in both]
    fits = [ft.fit_truth(x, model) for x in data]
    equal_frames(fits[0].membership.to_frame(), fits[1].membership.to_frame())
    if model == "prirn":  # its seeded plausibility worlds, keyed by item and class
        np.testing.assert_array_equal(fits[0].sample_plausibilities(5, seed=2),
                                      fits[1].sample_plausibilities(5, seed=2))


# ------------------------------------------------------------------ classifiers
def predictions_frame(items, classes, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    scores = rng.random((len(items), len(classes)))
    scores /= scores.sum(axis=1, keepdims=True)
    return pd.DataFrame({"item_id": np.repeat(items, len(classes)),
                         "class": np.tile(classes, len(items)), "score": scores.ravel()})


def test_classifier_evaluation_and_its_human_baselines(rankings_frames):
    from fuzzytruth.classify import (
        Predictions,
        annotation_certainty,
        leave_one_annotator_out,
        reliability_curves,
    )

    rankings = [rankings_of(rankings_frames, seed) for seed in (None, 5)]
    items = [str(i) for i in rankings[0].items]
    table = predictions_frame(items, [str(c) for c in rankings[0].classes])
    predictions = [Predictions.from_frame(shuffled(table, seed), name="net")
                   for seed in (None, 5)]
    assert predictions[0].classes == predictions[1].classes  # sorted, whatever the rows
    fits = [ft.fit_truth(r, "prirn") for r in rankings]
    results = [ft.evaluate(p, f, ["Acc", "top3", "CE"], n_worlds=20, rng=1)
               for p, f in zip(predictions, fits, strict=True)]
    equal_frames(results[0].to_frame(), results[1].to_frame())
    equal_frames(results[0].aggregate(), results[1].aggregate())
    a, b = (annotation_certainty(f, n_worlds=20, rng=3) for f in fits)
    pd.testing.assert_series_equal(a.certainty, b.certainty, check_exact=True)
    a, b = (leave_one_annotator_out(r, ["Acc"], n_worlds=10, rng=2) for r in rankings)
    equal_frames(a.by_item(), b.by_item())
    equal_frames(a.by_annotator(), b.by_annotator())
    a, b = (reliability_curves(p, r, ["Acc"], temperatures=[1.0, 5.0], n_worlds=10, rng=4)
            for p, r in zip(predictions, rankings, strict=True))
    equal_frames(a, b)


# ------------------------------------------------------------------ other entry points
def test_weighted_displacement():
    from fuzzytruth.displacement import weighted_displacement

    rng = np.random.default_rng(3)
    answers = pd.DataFrame(
        [(f"q{q}", f"a{a}", f"i{i}", rank, relevance)
         for q in range(4) for a in range(3)
         for (rank, i), relevance in zip(enumerate(rng.permutation(12)[:5], start=1),
                                         np.sort(rng.random(5).round(2))[::-1], strict=True)],
        columns=["query_id", "annotator_id", "item_id", "rank", "relevance"])
    runs = pd.DataFrame(
        [(s, f"q{q}", f"i{i}", rank) for s in ("S", "T") for q in range(4)
         for rank, i in enumerate(rng.permutation(12)[:8], start=1)],
        columns=["system", "query_id", "item_id", "rank"])
    results = [weighted_displacement(shuffled(answers, seed), shuffled(runs, seed), n_items=12)
               for seed in (None, 4)]
    for view in ("to_frame", "by_query", "by_system"):
        equal_frames(getattr(results[0], view)(), getattr(results[1], view)())


def test_evaluate_preferences():
    from fuzzytruth.evaluation import evaluate_preferences
    from fuzzytruth.truth.preferences import Preferences

    rng = np.random.default_rng(6)
    rows = pd.DataFrame([(f"q{q}", g, "s1", f"d{d}", float(rng.integers(0, 3)))
                         for q in range(5) for g in ("u1", "u2") for d in range(8)],
                        columns=["query_id", "group", "subgroup", "doc_id", "level"])
    run = pd.DataFrame({"query_id": np.repeat([f"q{q}" for q in range(5)], 8),
                        "doc_id": np.tile([f"d{d}" for d in range(8)], 5),
                        "score": rng.integers(0, 4, 40).astype(float)})
    results = []
    for seed in (None, 2):
        prefs = Preferences(*(shuffled(rows, seed)[c] for c in rows.columns))
        r = ft.Run.from_dataframe(shuffled(run, seed), name="sys")
        results.append(evaluate_preferences(r, prefs).to_frame())
    equal_frames(*results)


def test_precision_recall_bands_and_query_categories(both):
    (runs1, _, m1), (runs2, _, m2) = both
    equal_frames(ft.precision_recall_bands(runs1, m1), ft.precision_recall_bands(runs2, m2))
    queries = sorted(next(iter(runs1.values())).queries)
    categories = {q: ("people" if i % 2 else "scenery") for i, q in enumerate(queries)}
    backwards = dict(reversed(list(categories.items())))
    a, b = (ft.evaluate(runs, m, ["P@10", "AP"], query_categories=cats, n_worlds=20, rng=1)
            for runs, m, cats in ((runs1, m1, categories), (runs2, m2, backwards)))
    equal_frames(a.to_frame(), b.to_frame())


def test_compare_from_a_long_table():
    # issue 23: shuffled rows flipped the pairs (A - B became B - A) and moved bootstrap
    # p-values (0.4315 -> 0.4499)
    rng = np.random.default_rng(8)
    values = rng.random((3, 30)) + np.array([[0.05], [0.0], [0.02]])
    table = pd.DataFrame({"system": np.repeat(["bm25", "dense", "splade"], 30),
                          "query_id": np.tile([f"q{j}" for j in range(30)], 3),
                          "measure": "AP", "value": values.ravel()})
    table = pd.concat([table, table.assign(measure="P@10", value=table["value"] ** 2)])
    results = [ft.compare(shuffled(table, seed), method="bootstrap", n_resamples=500, rng=2)
               for seed in (None, 9)]
    equal_frames(results[0].table, results[1].table)
    equal_frames(results[0].systems, results[1].systems)
    assert results[0].table[["system_a", "system_b"]].values.tolist()[:2] == [
        ["bm25", "dense"], ["bm25", "splade"]]


# ------------------------------------------------------------------ the command line
def test_the_command_line_on_shuffled_files(collection, tmp_path):
    from fuzzytruth.cli import main

    c, runs = collection
    outputs = []
    for seed in (None, 12):
        folder = tmp_path / f"seed{seed}"
        folder.mkdir()
        # the taxonomy's edges as given: their order moves sums by an ulp (see
        # test_the_taxonomy_order_changes_no_draw)
        c.taxonomy.to_frame().to_csv(folder / "tax.csv", index=False)
        shuffled(c.annotations.to_frame()[["item_id", "annotator_id", "label"]], seed).to_csv(
            folder / "labels.csv", index=False)
        names = []
        for name, frame in runs.items():
            rows = shuffled(frame, seed)
            (folder / f"{name}.txt").write_text("".join(
                f"{q} Q0 {d} 1 {s!r} {name}\n" for q, d, s in rows.itertuples(index=False)))
            names += ["--run", str(folder / f"{name}.txt")]
        queries = sorted(runs["strong"]["query_id"].unique())
        shuffled(pd.DataFrame({"query_id": queries, "category": "people"}), seed).to_csv(
            folder / "categories.csv", index=False)
        truth = ["--taxonomy", str(folder / "tax.csv"), "--annotations",
                 str(folder / "labels.csv")]
        out = []
        for argv in (
            ["evaluate", *truth, *names, "-m", "P@10", "-m", "AP", "--n-worlds", "20",
             "--format", "csv"],
            ["evaluate", *truth, *names, "-m", "AP", "--query-categories",
             str(folder / "categories.csv"), "--format", "csv"],
            ["compare", *truth, *names, "-m", "AP", "--n-worlds", "20", "--method",
             "bootstrap", "--n-resamples", "300", "--format", "csv"],
            ["agreement", *truth, "--n-resamples", "50", "--format", "csv"],
        ):
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
                assert main(argv) == 0
            out.append(buffer.getvalue().replace(str(folder), "FOLDER"))
        outputs.append(out)
    for first, second in zip(*outputs, strict=True):
        assert first == second
