"""One definition per measure: the same per-system number wherever a user looks.

For every registered measure, on inputs with the undefined cases (a judged query without any
relevant document, a query of the truth that no run answers under ``complete=True``, a run
query the truth does not judge), under both rules for undefined values, the per-system value
agrees across the per-query table, ``aggregate()``, ``value()``, ``query_means()``, ``compare()``,
per-annotator evaluation with one group, and the command line. Under uncertain truth the
mean of the per-query expectations, the aggregate and compare() agree as well.
"""

import contextlib
import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from registry_families import package_families, resolve_default

from fuzzytruth import Annotations, Membership, ProbabilisticQrels, Qrels, Run, Taxonomy, evaluate
from fuzzytruth.cli import main as cli_main
from fuzzytruth.crisp import evaluate_per_annotator
from fuzzytruth.io import write_trec_qrels, write_trec_run
from fuzzytruth.measures import parse_measure
from fuzzytruth.stats import compare


def registry():
    return [resolve_default(name, fam) for name, fam in sorted(package_families().items())]


def crisp_collection():
    rng = np.random.default_rng(0)
    docs = [f"d{i:02d}" for i in range(30)]
    runs = {}
    for name in ("a", "b"):
        rows = [
            (q, d, float(s))
            for q in ("q1", "q2", "q3", "q_norel", "q_unjudged")
            for d, s in zip(rng.choice(docs, 12, replace=False), rng.random(12), strict=True)
        ]
        runs[name] = Run.from_dataframe(
            pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]), name=name
        )
    judged = [
        (q, d, int(g))
        for q in ("q1", "q2", "q3", "q_missing")
        for d, g in zip(rng.choice(docs, 15, replace=False), rng.integers(0, 3, 15), strict=True)
    ]
    judged += [("q_norel", d, 0) for d in docs[:5]]  # judged, nothing relevant
    judged += [(q, "d00", 2) for q in ("q1", "q2", "q3", "q_missing") if (q, "d00") not in
               {(a, b) for a, b, _ in judged}]
    return runs, Qrels.from_dataframe(
        pd.DataFrame(judged, columns=["query_id", "doc_id", "relevance"]), duplicates="first"
    )


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def per_system(frame: pd.DataFrame, column: str = "mean") -> pd.Series:
    return frame.groupby(["system", "measure"], sort=False)[column].mean()


@pytest.mark.parametrize("undefined", ["zero", "skip"])
def test_crisp_every_output_gives_the_same_per_system_value(undefined, tmp_path):
    runs, qrels = crisp_collection()
    measures = registry()
    names = [str(m) for m in measures]
    ev = _quiet(evaluate, runs, qrels, measures, complete=True, undefined=undefined)
    assert "q_norel" in ev.queries and "q_missing" in ev.queries
    assert "q_unjudged" not in ev.queries
    table = ev.to_frame()
    means = per_system(table)  # NaN rows (undefined under "skip") left out by mean()
    agg = ev.aggregate().set_index(["system", "measure"])
    for name, measure in zip(names, measures, strict=True):
        fam = measure.family
        for s, system in enumerate(ev.systems):
            values = table[(table["system"] == system) & (table["measure"] == name)]["mean"]
            assert agg.loc[(system, name), "value"] == pytest.approx(
                float(fam.combine(values.to_numpy())), nan_ok=True
            ), name
            assert agg.loc[(system, name), "n_queries"] == values.notna().sum(), name
            np.testing.assert_allclose(ev.query_means(name)[s], values, equal_nan=True)
            np.testing.assert_equal(ev.value(system, name), agg.loc[(system, name), "value"])
    # the undefined cases are there: AP is undefined on q_norel (q_missing has a relevant
    # document and scores 0 as an empty list)
    n_ap = agg.loc[("a", "AP(rel=1,denominator=all_relevant)"), "n_queries"]
    assert n_ap == (len(ev.queries) if undefined == "zero" else len(ev.queries) - 1)
    # compare() averages the same queries as the aggregate
    comparison = _quiet(compare, ev, n_resamples=99, rng=0).systems.set_index(
        ["system", "measure"]
    )
    assert {name for _, name in comparison.index} == set(names)
    for name in names:
        for system in ev.systems:
            if not np.isnan(means[system, name]):
                assert comparison.loc[(system, name), "mean"] == pytest.approx(
                    means[system, name], abs=1e-12
                ), name
    # per-annotator evaluation with one group is the same evaluation
    one_group = _quiet(
        evaluate_per_annotator, runs["a"], {"g": qrels}, measures, complete=True,
        undefined=undefined,
    )
    pd.testing.assert_series_equal(
        per_system(one_group.to_frame()).droplevel("system"),
        means.xs("a", level="system"),
        check_names=False,
    )
    # the command line, in-process, JSON output
    run_path = tmp_path / "a.txt"
    write_trec_run(runs["a"], run_path)
    qrels_path = tmp_path / "qrels.txt"
    write_trec_qrels(qrels, qrels_path)
    args = ["evaluate", "--qrels", str(qrels_path), "--run", str(run_path), "--complete",
            "--undefined", undefined, "--format", "json"]
    for name in names:
        args += ["-m", name]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert cli_main(args) == 0
    records = {r["measure"]: r for r in json.loads(out.getvalue())}
    for name in names:
        got = records[name]["value"]
        expected = agg.loc[(runs["a"].name, name), "value"]
        assert (got is None and np.isnan(expected)) or got == pytest.approx(expected), name


def uncertain_truths():
    tax = Taxonomy.from_nested({"all": {"x": ["x1", "x2"], "y": ["y1"]}})
    items = [f"i{i}" for i in range(12)]
    rng = np.random.default_rng(3)
    labels = {i: list(rng.choice(["x1", "x2", "x", "y1"], 3)) for i in items}
    labels["i11"] = ["y", "y", "y"]  # the only member of 'y' itself: no other member
    frame = pd.DataFrame(
        [(i, f"a{k}", lab) for i, labs in labels.items() for k, lab in enumerate(labs)],
        columns=["item_id", "annotator_id", "label"],
    )
    membership = Membership.from_annotations(Annotations.from_frame(frame, taxonomy=tax))
    runs = {}
    for name in ("a", "b"):
        rows = [
            (q, d, float(s))
            for q in ("i0", "i3", "i11")
            for d, s in zip(rng.choice(items, 8, replace=False), rng.random(8), strict=True)
        ]
        runs[name] = Run.from_dataframe(
            pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]), name=name
        )
    pq = ProbabilisticQrels(
        ["i0"] * 4 + ["i3"] * 3 + ["i11"] * 2,
        ["i1", "i2", "i5", "i7", "i4", "i6", "i8", "i9", "i10"],
        [0.5, 1.0, 0.2, 0.0, 0.6, 0.3, 0.9, 0.0, 0.0],
    )
    return runs, membership, pq


@pytest.mark.parametrize("kind", ["categorical", "probabilistic_qrels"])
def test_uncertain_truth_table_aggregate_and_compare_agree(kind):
    runs, membership, pq = uncertain_truths()
    truth = membership if kind == "categorical" else pq
    measures = [m for m in registry() if m.family.aggregate == "mean"]
    ev = _quiet(evaluate, runs, truth, measures, n_worlds=200, rng=1)
    means = per_system(ev.to_frame())
    agg = ev.aggregate().set_index(["system", "measure"])["value"]
    comparison = _quiet(compare, ev, n_resamples=99, rng=0).systems.set_index(
        ["system", "measure"]
    )["mean"]
    for key, value in means.items():
        assert agg[key] == pytest.approx(value, abs=1e-12), key
        assert ev.value(*key) == agg[key], key
        assert comparison[key] == pytest.approx(value, abs=1e-12), key
        assert comparison[key] == agg[key], key


def test_a_family_registered_by_a_user_gets_every_path_it_supplies(monkeypatch):
    """A user family with only a crisp kernel runs under every truth through the generic
    paths; with a 0/1 kernel or an exact form it gets those, and `method` says which ran.
    The registrations vanish with the test (later tests walk the registry)."""
    from fuzzytruth.measures import Param, families, positive_float, register
    from fuzzytruth.measures import registry as measure_registry

    families()  # the built-in families are loaded before the tables are copied
    monkeypatch.setattr(measure_registry, "_FAMILIES", dict(measure_registry._FAMILIES))
    monkeypatch.setattr(measure_registry, "_ALIASES", dict(measure_registry._ALIASES))
    from fuzzytruth.metrics.binary import counts
    from fuzzytruth.uncertain.closed_form import success_exact

    def top1(rg, *, rel):
        return (rg.gains[:, 0] >= rel).astype(float) if rg.depth else np.zeros(len(rg))

    rel = Param("rel", convert=positive_float)
    register("Top1Plain", top1, params=(rel,), replace=True)
    register("Top1Binary", top1, params=(rel,), replace=True,
             binary=lambda depth, *, rel: counts("Success")(depth, rel=rel, k=1))
    register("Top1Exact", top1, params=(rel,), replace=True,
             exact=lambda ctx, *, rel: success_exact(ctx, rel=rel, k=1))
    runs, _, pq = uncertain_truths()
    names = ["Top1Plain", "Top1Binary", "Top1Exact"]
    ev = _quiet(evaluate, runs, pq, names, n_worlds=4000, rng=2)
    methods = ev.to_frame().groupby("measure")["method"].first().to_dict()
    assert methods == {"Top1Plain": "worlds", "Top1Binary": "worlds_binary",
                       "Top1Exact": "exact"}
    # the same worlds: the generic and the 0/1 routes agree exactly; the exact form within
    # Monte Carlo error
    np.testing.assert_array_equal(ev.world_scores("Top1Plain"), ev.world_scores("Top1Binary"))
    means = ev.query_means("Top1Exact")
    mc = ev.query_means("Top1Plain")
    assert np.all(np.abs(means - mc) < 4 * np.sqrt(0.25 / 4000) + 1e-12)


def test_psb_preset_through_evaluate_is_psbtable():
    """The psb preset means the same numbers through evaluate() as through the shape tools'
    psbTable path (shape_summary with classes of at least 3): ties by target index, the
    class-size rule in the aggregate, whatever the order of the run's rows."""
    from fuzzytruth.metrics.shape import rank_by_dissimilarity, shape_summary

    rng = np.random.default_rng(11)
    labels = np.repeat(["a", "b", "c", "d", "e"], [1, 2, 3, 5, 9])
    n = len(labels)
    d = rng.integers(0, 6, size=(n, n)).astype(float)  # many ties
    np.fill_diagonal(d, 0.0)
    reference = shape_summary(rank_by_dissimilarity(d, labels), min_class_size=3)
    q, t = np.nonzero(~np.eye(n, dtype=bool))  # the query is not in its own list
    frame = pd.DataFrame({"query_id": q.astype(str), "doc_id": t.astype(str), "score": -d[q, t]})
    qrels = Qrels(q.astype(str), t.astype(str), (labels[q] == labels[t]).astype(float))
    measures = {"NN": "NN", "FT": "FT", "ST": "ST", "E": "E_psb", "DCG": "nDCG"}
    for seed in (None, 0, 1):
        rows = frame if seed is None else frame.sample(frac=1.0, random_state=seed)
        ev = evaluate(Run.from_dataframe(rows), qrels, list(measures.values()), preset="psb")
        values = ev.aggregate().set_index("measure")["value"]
        for key, name in measures.items():
            assert values[name] == pytest.approx(reference[key], abs=1e-12), (key, seed)
        class_size = pd.Series(labels).map(pd.Series(labels).value_counts())
        assert (ev.aggregate()["n_queries"] == int((class_size >= 3).sum())).all()


def psb_collection(seed=11):
    rng = np.random.default_rng(seed)
    labels = np.repeat(["a", "b", "c", "d", "e"], [1, 2, 3, 5, 9])
    n = len(labels)
    d = rng.integers(0, 6, size=(n, n)).astype(float)  # many ties
    np.fill_diagonal(d, 0.0)
    q, t = np.nonzero(~np.eye(n, dtype=bool))  # the query is not in its own list
    frame = pd.DataFrame({"query_id": q.astype(str), "doc_id": t.astype(str), "score": -d[q, t]})
    return labels, d, Run.from_dataframe(frame)


PSB_MEASURES = {"NN": "NN", "FT": "FT", "ST": "ST", "E": "E_psb", "DCG": "nDCG"}


@pytest.mark.parametrize("undefined", ["zero", "skip"])
def test_psb_preset_under_a_membership_all_annotators_agree_is_psbtable(undefined):
    """The degenerate case: three annotators who all agree. The class-size rule is decided
    world by world; every world is the crisp one, so every number is psbTable's."""
    from fuzzytruth.metrics.shape import rank_by_dissimilarity, shape_summary

    labels, d, run = psb_collection()
    reference = shape_summary(rank_by_dissimilarity(d, labels), min_class_size=3)
    taxonomy = Taxonomy.from_nested({"all": sorted(set(labels))})
    rows = [(str(i), f"s{a}", label) for i, label in enumerate(labels) for a in range(3)]
    annotations = Annotations.from_frame(
        pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), taxonomy=taxonomy
    )
    membership = Membership.from_annotations(annotations)
    options = {} if undefined == "zero" else {"undefined": undefined}  # the default as given
    ev = evaluate(run, membership, list(PSB_MEASURES.values()), preset="psb", n_worlds=8, rng=0,
                  **options)
    table = ev.aggregate().set_index("measure")
    class_size = pd.Series(labels).map(pd.Series(labels).value_counts()).to_numpy()
    class_size = class_size[[int(q) for q in ev.queries]]  # in the evaluation's query order
    for key, name in PSB_MEASURES.items():
        assert table.loc[name, "value"] == pytest.approx(reference[key], abs=1e-12), key
        assert table.loc[name, "n_queries"] == (class_size >= 3).sum()
        means = ev.query_means(name)[0]
        assert np.array_equal(np.isnan(means), class_size < 3)
        assert np.nanmean(means) == pytest.approx(reference[key], abs=1e-12)
        scores = ev.world_scores(name)
        assert np.isnan(scores[:, 0, class_size < 3]).all()


def test_psb_class_size_rule_under_uncertain_truth_counts_queries_world_by_world():
    """n_queries is the expected number of queries with at least 2 relevant documents besides
    themselves per world: sum over queries of P(R >= 2), R Poisson-binomial over the other
    items' membership of the query's target (mixed over the query's own labels)."""
    from fuzzytruth.uncertain import poibin

    rng = np.random.default_rng(3)
    n = 12
    taxonomy = Taxonomy.from_nested({"all": ["a", "b", "c"]})
    labels = rng.choice(["a", "b", "c"], size=(n, 3), p=[0.5, 0.3, 0.2])
    rows = [(f"i{i}", f"s{a}", labels[i, a]) for i in range(n) for a in range(3)]
    annotations = Annotations.from_frame(
        pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), taxonomy=taxonomy
    )
    membership = Membership.from_annotations(annotations)
    items = [f"i{i}" for i in range(n)]
    run = Run.from_dataframe(pd.DataFrame(
        [(q, t, rng.random()) for q in items for t in items if t != q],
        columns=["query_id", "doc_id", "score"],
    ))
    n_worlds = 4000
    ev = evaluate(run, membership, ["FT"], preset="psb", n_worlds=n_worlds, rng=1)
    expected, variance = 0.0, 0.0
    for i in range(n):
        p_counted = 0.0
        for c in ("a", "b", "c"):
            weight = (labels[i] == c).mean()
            if weight:
                column = membership.matrix[:, membership.taxonomy.indices([c])[0]]
                pmf = poibin.pmf(np.delete(column, i))
                p_counted += weight * pmf[2:].sum()
        expected += p_counted
        variance += p_counted * (1 - p_counted)  # queries share items: a rough scale only
    got = ev.aggregate()["n_queries"].iloc[0]
    assert abs(got - expected) < 6 * np.sqrt(variance * 4 / n_worlds) + 1e-9
    assert 0 < expected < n  # the rule does leave queries out in some worlds


def test_psb_rule_world_by_world_is_the_same_on_query_partitions():
    """The per-world class-size rule survives the Dask back end's concatenation of query
    partitions: world scores, query means and the aggregate equal the whole evaluation's."""
    pytest.importorskip("distributed")
    from fuzzytruth.distributed.partitions import split_in_memory
    from fuzzytruth.evaluation import Evaluation

    rng = np.random.default_rng(5)
    labels = rng.choice(["a", "b", "c"], size=(15, 3), p=[0.6, 0.3, 0.1])
    taxonomy = Taxonomy.from_nested({"all": ["a", "b", "c"]})
    rows = [(f"i{i:02d}", f"s{a}", labels[i, a]) for i in range(15) for a in range(3)]
    membership = Membership.from_annotations(Annotations.from_frame(
        pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), taxonomy=taxonomy))
    items = [f"i{i:02d}" for i in range(15)]
    run = Run.from_dataframe(pd.DataFrame(
        [(q, t, rng.random()) for q in items for t in items if t != q],
        columns=["query_id", "doc_id", "score"]), name="s")
    options = {"preset": "psb", "n_worlds": 40, "rng": 2}
    whole = evaluate(run, membership, ["FT", "NN"], **options)
    parts = [evaluate(r, t, ["FT", "NN"], **options)
             for r, t in split_in_memory({"s": run}, membership, 3, np.empty(0))]
    glued = Evaluation.concatenate(parts[::-1])
    for m in ("FT", "NN"):
        assert np.array_equal(glued.world_scores(m), whole.world_scores(m), equal_nan=True)
        assert np.array_equal(glued.query_means(m), whole.query_means(m), equal_nan=True)
    pd.testing.assert_frame_equal(glued.aggregate(), whole.aggregate())
    assert np.isnan(whole.world_scores("FT")).any()  # the rule left queries out somewhere


def test_psb_preset_under_uncertain_truth_needs_worlds():
    labels, _, run = psb_collection()
    taxonomy = Taxonomy.from_nested({"all": sorted(set(labels))})
    frame = pd.DataFrame({"item_id": [str(i) for i in range(len(labels))], "annotator_id": "s",
                          "label": labels})
    membership = Membership.from_annotations(Annotations.from_frame(frame, taxonomy=taxonomy))
    with pytest.raises(ValueError, match=r"preset 'psb' .* world by world, so n_worlds must "
                                         r"be > 0; got n_worlds=0$"):
        evaluate(run, membership, ["P@5"], preset="psb", n_worlds=0)
    with pytest.raises(ValueError, match=r"so method must be 'auto' or 'worlds'; got "
                                         r"method='exact'$"):
        evaluate(run, membership, ["P@5"], preset="psb", n_worlds=10, method="exact")


def test_psb_preset_under_uncertain_truth_without_worlds_names_the_flag(tmp_path, capsys):
    labels, _, run = psb_collection()
    (tmp_path / "tax.json").write_text(json.dumps({"all": sorted(set(labels))}))
    pd.DataFrame({"item_id": [str(i) for i in range(len(labels))], "annotator_id": "s",
                  "label": labels}).to_csv(tmp_path / "labels.csv", index=False)
    write_trec_run(run, tmp_path / "run.txt")
    code = cli_main(["evaluate", "--taxonomy", str(tmp_path / "tax.json"), "--annotations",
                     str(tmp_path / "labels.csv"), "--run", str(tmp_path / "run.txt"),
                     "-m", "FT", "--preset", "psb", "--n-worlds", "0"])
    err = capsys.readouterr().err
    assert code != 0
    assert "--n-worlds must be > 0; got --n-worlds 0" in err and "n_worlds" not in err


def test_crossmodal_preset_r_at_k_is_the_communitys_recall():
    """Under the crossmodal preset R@K through evaluate() is image_text_retrieval's R@K
    (a ground-truth caption among the top K: Success@K), not trec recall."""
    from fuzzytruth.metrics.crossmodal import image_text_retrieval

    rng = np.random.default_rng(5)
    n_images, per_image = 12, 5
    sim = rng.random((n_images, n_images * per_image))
    text_to_image = np.repeat(np.arange(n_images), per_image)
    reference = image_text_retrieval(sim, text_to_image=text_to_image, ks=(1, 5), percent=False)
    i, t = np.nonzero(np.ones_like(sim, dtype=bool))
    run = Run(i.astype(str), t.astype(str), sim[i, t])
    qrels = Qrels(i.astype(str), t.astype(str), (text_to_image[t] == i).astype(float))
    values = evaluate(run, qrels, ["R@1", "R@5"], preset="crossmodal").aggregate()
    values = values.set_index("measure")["value"]
    for k in (1, 5):
        assert values[f"R@{k}"] == pytest.approx(reference[f"i2t_R@{k}"], abs=1e-12)


@pytest.mark.filterwarnings("ignore::fuzzytruth.stats.procedures.UnreliableInferenceWarning")
@pytest.mark.filterwarnings("ignore::fuzzytruth.stats.DegenerateComparisonWarning")
@pytest.mark.parametrize("uncertain", [False, True])
def test_each_systems_interval_over_queries_is_compares(uncertain):
    """aggregate()'s interval over queries is the one compare() reports for each system with
    its default procedure: the same number reached two ways must agree, crisp truth and
    uncertain truth (estimand "collection": per-query expected values) alike."""
    rng = np.random.default_rng(11)
    queries = [f"q{i:02d}" for i in range(30)]
    docs = [f"d{j}" for j in range(12)]
    rows = [(q, d, rng.random()) for q in queries for d in docs]
    runs = {
        name: Run([r[0] for r in rows], [r[1] for r in rows], rng.permutation(len(rows)),
                  name=name)
        for name in ("a", "b")
    }
    judged = [(q, d) for q in queries for d in docs if rng.random() < 0.4]
    if uncertain:
        truth = ProbabilisticQrels([q for q, _ in judged], [d for _, d in judged],
                                   rng.uniform(0.1, 1.0, len(judged)))
        measures = ["P@5", "AP"]
    else:
        truth = Qrels([q for q, _ in judged], [d for _, d in judged],
                      rng.integers(0, 3, len(judged)))
        measures = ["P@5", "AP", "NumRelRet"]
    ev = evaluate(runs, truth, measures, n_worlds=200, rng=0)
    agg = ev.aggregate().set_index(["measure", "system"])
    systems = compare(ev, rng=0).systems.set_index(["measure", "system"])
    for measure in measures:
        for system in ("a", "b"):
            row = agg.loc[(str(parse_measure(measure)), system)]
            assert row["estimand"] == ("collection" if uncertain else "queries")
            if measure == "NumRelRet":  # a sum: n × the interval of the mean
                expected = systems.loc[(str(parse_measure(measure)), system)]
                assert row["ci_low"] == pytest.approx(expected["ci_low"] * 30, rel=1e-12)
                continue
            expected = systems.loc[(str(parse_measure(measure)), system)]
            # to the bit: compare() reads a column-major score matrix, whose strided rows
            # NumPy summed term after term (aggregate's one contiguous row pairwise): they
            # differed in the last bits until the t statistic read rows in C order
            assert row["ci_low"] == expected["ci_low"]
            assert row["ci_high"] == expected["ci_high"]
            assert row["ci_low"] < row["value"] < row["ci_high"]
    # one level for both (significance_level), so one rule for the levels allowed: alpha
    # would round to 0 here, which compare() refused and aggregate() accepted
    with pytest.raises(ValueError, match=r"^confidence_level must differ from 0 and from 1"):
        ev.aggregate(confidence_level=1 - 1e-13)


def test_every_equal_tailed_interval_reads_its_ends_at_the_tests_level():
    # one rule (tail_levels): quantiles at alpha / 2 and 1 - alpha / 2 with alpha the tests'
    # significance level, 0.05 at 0.95; (1 - 0.95) / 2 is 0.025000000000000022, which the
    # percentile intervals of agreement/displacement and aggregate()'s spread over the truths
    # read (interpolating between two replicates 0 and 1 gave that very number)
    from fuzzytruth._resampling import percentile_interval
    from fuzzytruth.uncertain.batch import DistributionBatch

    with pytest.warns(UserWarning, match="2 replicates are too few"):
        low, high = percentile_interval(np.array([0.0, 1.0]), 0.95)
    assert (float(low), float(high)) == (0.025, 0.975)
    batch = DistributionBatch(np.array([[0.0, 1.0]]), np.array([[0.5, 0.5]]), np.zeros(1))
    assert tuple(x.tolist() for x in batch.interval(0.5)) == ([0.0], [1.0])
    # aggregate(): the spread over the truths is the same percentile interval of the
    # per-world means (one query: its values), to the bit
    truth = ProbabilisticQrels.from_dataframe(pd.DataFrame(
        {"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "probability": [0.5, 0.3, 0.9]}))
    run = Run(["q"] * 3, ["a", "b", "c"], [3.0, 2.0, 1.0])
    ev = evaluate({"s": run}, truth, ["P@1", "P@3"], n_worlds=40, rng=1)
    agg = ev.aggregate().set_index("measure")
    for measure in ("P@1", "P@3"):
        per_world = ev.world_scores(measure)[:, 0, 0]
        assert len(set(per_world.tolist())) > 1  # a spread to interpolate in
        low, high = percentile_interval(per_world, 0.95)
        assert (agg.loc[measure, "truth_low"], agg.loc[measure, "truth_high"]) == (low, high)
