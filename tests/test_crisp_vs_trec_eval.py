"""Agreement with pytrec-eval-terrier 0.5.11 (trec_eval 9.0.8) on random runs, with the
defaults a user gets (``evaluate(run, qrels, measures)``, no option).

The runs have ties on purpose: repeated scores, and distinct float64 scores that are equal in
float32 (trec_eval reads scores as float32). The qrels are graded (0..3, some -1) and include
unretrieved relevant documents, unjudged retrieved ones, queries without any relevant document
(trec_eval counts them, scoring 0) and run queries absent from the qrels (trec_eval ignores
them).
"""

import contextlib
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import trec_eval_peer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzytruth._pairs
import fuzzytruth.io.text
import fuzzytruth.io.trec_columns
import fuzzytruth.runs
import fuzzytruth.truth.judged_pairs
from fuzzytruth.evaluation import evaluate
from fuzzytruth.measures import parse_measure
from fuzzytruth.runs import Qrels, Run

# (fuzzytruth spelling, pytrec_eval measure key); shared measures only
PAIRS = [
    ("AP", "map"),
    ("AP@5", "map_cut_5"),
    ("P@5", "P_5"),
    ("P@10", "P_10"),
    ("R@5", "recall_5"),
    ("R@10", "recall_10"),
    ("nDCG", "ndcg"),
    ("nDCG@5", "ndcg_cut_5"),
    ("nDCG@10", "ndcg_cut_10"),
    ("Rprec", "Rprec"),
    ("RR", "recip_rank"),
    ("Success@5", "success_5"),
    ("11pt", "11pt_avg"),
    ("F", "set_F_1"),
    ("F(beta=2)", "set_F_4"),  # trec_eval set_F.x has x = β²: F_2 is set_F.4
    ("F(beta=0.5)", "set_F_0.25"),
    ("P", "set_P"),
    ("R", "set_recall"),
    ("Bpref", "bpref"),  # reads the judged flags (ranked_gains(..., judged=True))
]
PAIRS += [(f"iP@{p}", f"iprec_at_recall_{p:.2f}") for p in np.round(np.arange(0, 1.01, 0.1), 1)]
TREC_MEASURES = {
    "map", "map_cut.5", "P.5,10", "recall.5,10", "ndcg", "ndcg_cut.5,10", "Rprec", "recip_rank",
    "success.5", "11pt_avg", "set_P", "set_recall", "iprec_at_recall", "bpref",
}
# pytrec_eval reports every set_F.x under the one key 'set_F', so each x is run on its own
SET_F_PARAMS = ("1", "4", "0.25")


def random_collection(rng, n_queries=6, n_docs=40):
    """Run and qrels DataFrames with ties, float32-equal scores and graded labels."""
    run_rows, qrel_rows = [], []
    for q in range(n_queries):
        n_ret = int(rng.integers(1, n_docs))
        docs = rng.choice(n_docs, size=n_ret, replace=False)
        scores = rng.integers(0, 6, size=n_ret).astype(float) / 4  # many exact ties
        nudge = rng.random(n_ret) < 0.3
        scores[nudge] += 1e-9  # distinct in float64, equal in float32
        for d, s in zip(docs, scores, strict=True):
            run_rows.append((f"q{q}", f"d{d:03d}", s))
        if q == n_queries - 1:
            continue  # the last query of the run has no judgments at all
        judged = rng.choice(n_docs, size=int(rng.integers(1, n_docs)), replace=False)
        grades = rng.integers(-1, 4, size=len(judged))
        if q % 3 == 0:
            grades = np.minimum(grades, 0)  # no relevant document
            # and not only grades -1: trec_eval refuses such a query ("Can't calculate measure
            # 'ndcg'") and pytrec_eval-terrier loops forever in m_ndcg.c (seed 2 did)
            grades[0] = 0
        else:
            grades[0] = max(grades[0], 1)
        for d, g in zip(judged, grades, strict=True):
            qrel_rows.append((f"q{q}", f"d{d:03d}", int(g)))
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrel_rows, columns=["query_id", "doc_id", "relevance"])
    return run, qrels


def pytrec_values(run_df, qrels_df, measures, **kwargs):
    """pytrec_eval's per-query values, computed in a worker process with a time limit, around
    a trec_eval defect that hung the suite (tests/trec_eval_peer.py)."""
    qrels = {}
    for q, d, r in qrels_df.itertuples(index=False):
        qrels.setdefault(q, {})[d] = int(r)
    run = {}
    for q, d, s in run_df.itertuples(index=False):
        run.setdefault(q, {})[d] = float(s)
    return trec_eval_peer.evaluate(qrels, run, measures, **kwargs)


@pytest.fixture(scope="module", autouse=True)
def _peer_process():
    yield
    trec_eval_peer.close()


def check_agreement(run_df, qrels_df, built=None):
    """Every measure of PAIRS, per query and averaged, as pytrec_eval gives it; the run and
    qrels are built from the DataFrames by default, or are ``built`` (from the same rows in
    another input form)."""
    run, qrels = built or (Run.from_dataframe(run_df), Qrels.from_dataframe(qrels_df))
    with pytest.warns(UserWarning, match="not evaluated, as trec_eval does"):
        ev = evaluate(run, qrels, [m for m, _ in PAIRS])
    ours = ev.to_frame()
    theirs = pytrec_values(run_df, qrels_df, TREC_MEASURES)
    for x in SET_F_PARAMS:
        for q, vals in pytrec_values(run_df, qrels_df, {f"set_F.{x}"}).items():
            theirs[q][f"set_F_{x}"] = vals["set_F"]
    table = ours.pivot(index="query_id", columns="measure", values="mean")
    assert sorted(table.index) == sorted(theirs)
    aggregate = ev.aggregate().set_index("measure")
    for mine, key in PAIRS:
        expected = np.array([theirs[q][key] for q in table.index])
        got = table[str(parse_measure(mine))].to_numpy()
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12,
                                   err_msg=f"{mine} vs pytrec_eval {key}")
        # trec_eval's summary line: the mean over every evaluated query
        row = aggregate.loc[str(parse_measure(mine))]
        assert row["value"] == pytest.approx(expected.mean(), abs=1e-12)
        assert row["n_queries"] == len(theirs)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_agrees_with_pytrec_eval_on_random_runs(seed):
    run_df, qrels_df = random_collection(np.random.default_rng(seed))
    check_agreement(run_df, qrels_df)


def test_float32_equal_scores_tie_like_trec_eval():
    # 1.0 and 1.0000000001 are equal in float32; trec_eval then ranks doc id descending, so
    # 'b' comes first and the relevant 'a' is at rank 2 (pytrec_eval map 0.5, checked here).
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
                        "score": [1.0000000001, 1.0, 0.5]})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    assert pytrec_values(run, qrels, {"map"})["q"]["map"] == 0.5
    res = evaluate(Run.from_dataframe(run), Qrels.from_dataframe(qrels), "AP")
    assert res.value("run", "AP") == 0.5
    res64 = evaluate(Run.from_dataframe(run), Qrels.from_dataframe(qrels), "AP",
                     score_dtype="float64")
    assert res64.value("run", "AP") == 1.0
    # trec_eval 10.0 reads scores as doubles: map 1.0 here (hand derivation: 'a' ranks first)
    res10 = evaluate(Run.from_dataframe(run), Qrels.from_dataframe(qrels), "AP", preset="trec10")
    assert res10.value("run", "AP") == 1.0


def test_relevance_level_two_matches_pytrec_eval():
    rng = np.random.default_rng(7)
    run_df, qrels_df = random_collection(rng, n_queries=8)
    theirs = pytrec_values(run_df, qrels_df, {"map", "P.5", "Rprec"}, relevance_level=2)
    with pytest.warns(UserWarning, match="not evaluated"):
        ev = evaluate(
            Run.from_dataframe(run_df), Qrels.from_dataframe(qrels_df),
            ["AP(rel=2)", "P(rel=2)@5", "Rprec(rel=2)"],
        )
    ours = ev.to_frame().pivot(index="query_id", columns="measure", values="mean")
    for q in ours.index:
        assert ours.loc[q, "AP(rel=2)"] == pytest.approx(theirs[q]["map"], abs=1e-12)
        assert ours.loc[q, "P(rel=2)@5"] == pytest.approx(theirs[q]["P_5"], abs=1e-12)
        assert ours.loc[q, "Rprec(rel=2)"] == pytest.approx(theirs[q]["Rprec"], abs=1e-12)


def test_fractional_relevance_level_is_refused_under_trec():
    """trec_eval reads -l with atol (1.5 is level 1: P_2 = 1.0 and num_rel 2 here, trec_eval
    9.0.8 built from source) and pytrec_eval refuses a float level; on grades read as
    trec_eval reads them, relevance_level=1.5 meant level 2 (P@2 = 0.5), silently. Whole
    levels agree with pytrec_eval; textbook's float grades keep the threshold."""
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 2]})
    args = Run.from_dataframe(run), Qrels.from_dataframe(qrels), ["P@2", "NumRel"]
    with pytest.raises(ValueError, match=r"relevance_level must be a whole number under preset "
                                         r"'trec', .*; got 1.5"):
        evaluate(*args, relevance_level=1.5)
    theirs = pytrec_values(run, qrels, {"P.2", "num_rel"}, relevance_level=2)["q"]
    whole = evaluate(*args, relevance_level=2.0).aggregate()["value"].tolist()
    assert whole == [theirs["P_2"], theirs["num_rel"]] == [0.5, 1.0]
    textbook = evaluate(*args, relevance_level=1.5, preset="textbook").aggregate()
    assert textbook["value"].tolist() == [0.5, 1.0]


def test_custom_gain_map_matches_pytrec_eval():
    # trec_eval's ndcg.1=3,2=9 (levels not listed keep gain = level)
    rng = np.random.default_rng(11)
    run_df, qrels_df = random_collection(rng)
    theirs = pytrec_values(run_df, qrels_df, {"ndcg"}, judged_docs_only_flag=False)
    del theirs  # the default-gain pass above checks the evaluator builds; now the mapped one
    qrels_mapped = qrels_df.assign(relevance=qrels_df["relevance"].map({1: 3, 2: 9}).fillna(
        qrels_df["relevance"]).astype(int))
    expected = pytrec_values(run_df, qrels_mapped, {"ndcg"})
    with pytest.warns(UserWarning, match="not evaluated"):
        ours = evaluate(
            Run.from_dataframe(run_df), Qrels.from_dataframe(qrels_df), "nDCG(gain={1:3,2:9})"
        ).to_frame()
    for q, v in zip(ours["query_id"], ours["mean"], strict=True):
        assert v == pytest.approx(expected[q]["ndcg"], abs=1e-12)


def test_complete_scores_queries_missing_from_the_run_as_zero():
    """trec_eval -c: every qrels query counts; q2 (not in the run) and q3 (no relevant
    document) score 0 (trec_eval 9.0.8 -c -m map -m P.2 on these files: map 0.3333, P_2 0.1667)."""
    run = Run(["q1", "q1"], ["a", "b"], [2.0, 1.0])
    qrels = Qrels(["q1", "q2", "q3"], ["a", "x", "y"], [1, 1, 0])
    default = evaluate(run, qrels, ["AP", "P@2"]).aggregate()
    assert default["n_queries"].tolist() == [1, 1]
    assert default["value"].tolist() == [1.0, 0.5]
    c_flag = evaluate(run, qrels, ["AP", "P@2"], complete=True)
    agg = c_flag.aggregate()
    assert agg["n_queries"].tolist() == [3, 3]
    assert agg["value"].tolist() == pytest.approx([1 / 3, 1 / 6])
    assert c_flag.conventions["complete"] is True
    skip = evaluate(run, qrels, ["AP", "P@2"], complete=True, undefined="skip").aggregate()
    assert skip["n_queries"].tolist() == [2, 3]  # q3's AP is undefined and left out
    assert skip["value"].tolist() == pytest.approx([0.5, 1 / 6])


def test_conventions_recorded():
    run = Run(["q"], ["a"], [1.0])
    qrels = Qrels(["q"], ["a"], [1])
    res = evaluate(run, qrels, ["nDCG@10", "iP@0.5"])
    assert res.conventions["measures"] == {
        "nDCG@10": "nDCG(gain=linear,discount=log2)@10",
        "iP@0.5": "iP(rel=1,interpolation=trec_eval9)@0.5",
    }
    assert res.conventions["ties"] == "docid_desc"
    assert res.conventions["score_dtype"] == "float32"


def test_evaluate_errors_name_the_parameter():
    run = Run(["q"], ["a"], [1.0])
    qrels = Qrels(["q"], ["a"], [1])
    with pytest.raises(ValueError, match=r"missing must be one of \['skip', 'error'\]; got 'drop'"):
        evaluate(run, qrels, "AP", missing="drop")
    with pytest.raises(ValueError, match=r"undefined must be one of \['zero', 'skip'\]"):
        evaluate(run, qrels, "AP", undefined="nan")
    with pytest.raises(ValueError, match=r"preset must be one of .*; got 'nist'"):
        evaluate(run, qrels, "AP", preset="nist")
    with pytest.raises(ValueError, match=r"measure 'iP' has no tie-averaged form"):
        evaluate(run, qrels, "iP@0.5", ties="average")
    with pytest.raises(ValueError, match=r"measure must be one of \['AP'\]; got 'P@5'"):
        evaluate(run, qrels, "AP").value("run", "P@5")


def test_block_wise_join_with_many_blocks_and_shuffled_rows(monkeypatch):
    # tiny blocks: every block boundary case of the block-wise join is exercised, and shuffled
    # rows take the regrouping path
    import fuzzytruth._pairs

    monkeypatch.setattr(fuzzytruth._pairs, "_BLOCK_ROWS", 7)
    rng = np.random.default_rng(21)
    run_df, qrels_df = random_collection(rng, n_queries=12)
    run_df = run_df.sample(frac=1.0, random_state=1).reset_index(drop=True)
    qrels_df = qrels_df.sample(frac=1.0, random_state=2).reset_index(drop=True)
    check_agreement(run_df, qrels_df)


# Every block size of the crisp path, each either its default or small enough that a block
# holds one or a few queries or rows: the duplicate check's blocks, the join's blocks and spans,
# the stretches it slices, the chunks Python objects are converted in, the ranking's blocks,
# and the TREC reader's parse blocks and scan blocks.
BLOCK_SIZES = {
    (fuzzytruth._pairs, "_BLOCK_ROWS"): (1, 2, 7),
    (fuzzytruth.truth.judged_pairs, "_JOIN_BLOCK"): (1, 3, 50),
    (fuzzytruth.truth.judged_pairs, "_SPAN_BYTES"): (1, 40),
    (fuzzytruth._pairs, "_STRETCH_ROWS"): (1,),
    (fuzzytruth._pairs, "_CONVERT_ROWS"): (1, 3),
    (fuzzytruth.runs, "_RANK_BLOCK_ROWS"): (1, 5),
    (fuzzytruth.io.trec_columns, "_PARSE_BLOCK"): (64,),
    (fuzzytruth.io.text, "_SCAN_BLOCK"): (3,),
}


def _in_form(form, run_df, qrels_df, folder):
    """The run and qrels built from the DataFrames' rows in another input form."""
    def rows(df):
        return [df[c].tolist() for c in df]

    if form == "lists":
        return Run(*rows(run_df)), Qrels(*rows(qrels_df))
    if form == "object arrays":
        return (Run(*(np.array(c, dtype=object) for c in rows(run_df)[:2]), run_df["score"]),
                Qrels(*(np.array(c, dtype=object) for c in rows(qrels_df)[:2]),
                      qrels_df["relevance"].to_numpy()))
    if form == "dicts":
        run, qrels = {}, {}
        for q, d, s in run_df.itertuples(index=False):
            run.setdefault(q, {})[d] = float(s)
        for q, d, g in qrels_df.itertuples(index=False):
            qrels.setdefault(q, {})[d] = int(g)
        return Run.from_dict(run), Qrels.from_dict(qrels)
    run_path, qrels_path = Path(folder, "run.trec"), Path(folder, "qrels.trec")
    run_path.write_text("".join(f"{q} Q0 {d} {i} {s!r} tag\n" for i, (q, d, s)
                                in enumerate(run_df.itertuples(index=False), 1)))
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in
                                  qrels_df.itertuples(index=False)))
    return Run.from_trec(run_path), Qrels.from_trec(qrels_path)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1),
       form=st.sampled_from(["dataframes", "lists", "object arrays", "dicts", "trec files"]),
       shuffled=st.booleans(), data=st.data())
def test_agrees_with_pytrec_eval_with_small_blocks_in_every_input_form(seed, form, shuffled,
                                                                       data):
    """The block-wise paths together (each size its default or small, drawn), from every
    input form, rows grouped by query or not: the same values as pytrec_eval."""
    run_df, qrels_df = random_collection(np.random.default_rng(seed), n_queries=8, n_docs=30)
    if shuffled:
        run_df = run_df.sample(frac=1.0, random_state=seed % 1000).reset_index(drop=True)
        qrels_df = qrels_df.sample(frac=1.0, random_state=seed % 999).reset_index(drop=True)
    with contextlib.ExitStack() as stack:
        for (module, name), small in BLOCK_SIZES.items():
            size = data.draw(st.sampled_from([None, *small]), label=name)
            if size is not None:
                stack.enter_context(pytest.MonkeyPatch.context()).setattr(module, name, size)
        folder = stack.enter_context(tempfile.TemporaryDirectory())
        built = None if form == "dataframes" else _in_form(form, run_df, qrels_df, folder)
        check_agreement(run_df, qrels_df, built)
