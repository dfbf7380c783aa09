"""Run, Qrels, TREC file reading/writing and the conversion to ranked gains."""

import itertools
import warnings

import hypothesis
import numpy as np
import pandas as pd
import pytest
from hypothesis import strategies as st

from fuzzytruth.io import (
    read_trec_qrels,
    read_trec_qrels_jg,
    read_trec_run,
    write_trec_qrels,
    write_trec_run,
)
from fuzzytruth.runs import Qrels, Run, ranked_gains


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_run_from_dataframe_custom_columns_and_str_ids():
    df = pd.DataFrame({"q": [1, 1, 2], "d": [10, 9, 10], "s": [0.5, 0.7, 0.1]})
    run = Run.from_dataframe(df, query_col="q", doc_col="d", score_col="s", name="bm25")
    assert run.queries == ["1", "2"]
    assert run.doc_ids.tolist() == ["10", "9", "10"]
    assert run.scores.dtype == np.float64
    assert run.name == "bm25"
    assert run.to_dataframe().columns.tolist() == ["query_id", "doc_id", "score"]


def test_ids_are_kept_whole_from_lists_arrays_and_frames():
    """A trailing NUL is part of an id (numpy's fixed-width strings would drop it and join
    "d\\0" with "d"); numbers become their str()."""
    docs = ["d", "d\x00", "d\x00\x00"]
    for given in (docs, pd.Series(docs), pd.array(docs, dtype="str"), np.array(docs, dtype=object)):
        run = Run(["q"] * 3, given, [3.0, 2.0, 1.0])
        assert run.doc_ids.tolist() == docs
    qrels = Qrels(["q"], ["d\x00"], [1])
    assert ranked_gains(run, qrels).gains[0].tolist() == [0, 1, 0]
    assert Run([1, "2.5", np.int64(3)], ["a"] * 3, [1.0] * 3).queries == ["1", "2.5", "3"]


def test_floating_point_ids_are_refused():
    # 1.0 became "1.0", which no qrels read from a file (or built from ints) says: every
    # document of a run built from a float column (pandas keeps floats after dropna()) went
    # unjudged and scored 0, without a word
    said = (r"must be str or int; got floating-point numbers such as 1\.0: ids are "
            r'matched as text, and 1\.0 reads "1\.0" where a file or an int says "1"')
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": [1.0, 2.0], "score": [2.0, 1.0]})
    for docs in ([1.0, 2.0], np.array([1.0, 2.0]), pd.array([1.0, 2.0], dtype="Float64"),
                 np.array([1.0, "b"], dtype=object), ["b", np.float64(1.0)][::-1],
                 np.array(["b", np.float32(1.0)], dtype=object)):  # not a Python float
        with pytest.raises(ValueError, match="doc_ids " + said):
            Run(["q", "q"], docs, [2.0, 1.0])
    with pytest.raises(ValueError, match="doc_ids " + said):
        Run.from_dataframe(frame)
    with pytest.raises(ValueError, match="query_ids " + said):
        Qrels([1.0], ["d"], [1])
    with pytest.raises(ValueError, match="doc_ids " + said):
        Run.from_dict({"q": {1.0: 2.0}})
    from fuzzytruth.classify import Predictions

    with pytest.raises(ValueError, match="item ids " + said):
        Predictions(np.eye(2), items=[1.0, 2.0], classes=["a", "b"])
    as_int = frame.astype({"doc_id": int})  # the conversion the message names
    assert ranked_gains(Run.from_dataframe(as_int), Qrels(["q"], ["1"], [1])).gains[0].tolist() \
        == [1, 0]


def test_floating_point_ids_are_refused_by_the_truth_as_by_runs():
    # Annotations, a Membership, Rankings and query_categories kept 1.0 as the id "1.0":
    # a run's document "1" was then "not an item of the membership", or its query had no
    # category, with no word of the floats (the run itself refuses them, test above)
    from fuzzytruth import Annotations, Membership, Taxonomy, evaluate
    from fuzzytruth.io.rankings import Rankings

    said = r"must be str or int; got floating-point numbers such as 1\.0"
    tax = Taxonomy.flat(["cat", "dog"])
    rows = {"item_id": [1, 1, 2], "annotator_id": ["a", "b", "a"], "label": ["cat"] * 3}
    for column, floats in (("item_id", [1.0, 1.0, 2.0]), ("annotator_id", [1.0, 2.0, 1.0]),
                           ("item_id", pd.array([1.0, 1.0, 2.0], dtype="Float64")),
                           ("item_id", np.array([1.0, "x", "y"], dtype=object))):
        with pytest.raises(ValueError, match=f"frame column '{column}' " + said):
            Annotations.from_frame(pd.DataFrame({**rows, column: floats}), taxonomy=tax)
    ann = Annotations.from_frame(pd.DataFrame(rows), taxonomy=tax)  # ints: matched as "1"
    probabilities = pd.DataFrame({"cat": [1.0, 0.5], "dog": [0.0, 0.5]}, index=[1.0, 2.0])
    with pytest.raises(ValueError, match="item ids " + said):
        Membership.from_probabilities(probabilities, taxonomy=tax)
    ranked = pd.DataFrame({"item_id": [1.0, 1.0], "reader_id": ["r", "r"],
                           "class": ["cat", "dog"], "rank_group": [0, 1]})
    with pytest.raises(ValueError, match="frame column 'item_id' " + said):
        Rankings.from_frame(ranked, taxonomy=tax)
    for items in ([1.0], ["x", 1.0][::-1]):  # a float beside text too (NumPy makes it "1.0")
        with pytest.raises(ValueError, match="items " + said):
            Rankings.from_selectors([[[0], [1]]] * len(items), classes=["cat", "dog"],
                                    items=items)
    from fuzzytruth.classify import Predictions

    with pytest.raises(ValueError, match="item ids " + said):
        Predictions(np.eye(2), items=["x", 1.0], classes=["a", "b"])
    run = Run(["q", "q"], [1, 2], [2.0, 1.0])
    truth = Membership.from_annotations(ann)
    with pytest.raises(ValueError, match=r"query_categories' keys \(query ids\) " + said):
        evaluate(run, truth, "P@1", query_categories={1.0: "cat"})
    assert evaluate(run, truth, "P@1", query_categories={"q": "cat"}).aggregate()["value"] \
        .tolist() == [1.0]


def test_bytes_ids_are_their_utf8_text_in_every_constructor():
    # a list of bytes ids was read as UTF-8 by Arrow, unless one id in the column was not
    # text (an int, bytes not UTF-8): then every id went through str(), b"a" became "b'a'"
    # and matched no judgment, silently; a NumPy bytes array stopped on a UnicodeDecodeError
    qrels = Qrels(["q", "q"], ["a", "café"], [1, 2])
    expected = ranked_gains(Run(["q"] * 3, ["a", "7", "café"], [3.0, 2.0, 1.0]), qrels).gains
    for docs in ([b"a", 7, "café".encode()], np.array([b"a", b"7", "café".encode()]),
                 pd.Series([b"a", 7, "café".encode()])):
        run = Run([b"q", "q", np.bytes_(b"q")], docs, [3.0, 2.0, 1.0])
        assert run.doc_ids.tolist() == ["a", "7", "café"]
        assert run.queries == ["q"]
        np.testing.assert_array_equal(ranked_gains(run, qrels).gains, expected)
    nested = Run.from_dict({b"q": {b"a": 3.0, 7: 2.0, "café".encode(): 1.0}})
    assert nested.queries == ["q"] and nested.doc_ids.tolist() == ["a", "7", "café"]
    said = r"given as bytes must be UTF-8 text; got b'\\xff': decode them"
    for docs in ([b"\xff", b"a"], np.array([b"\xff", b"a"]), [b"\xff", 1]):
        with pytest.raises(ValueError, match="doc_ids " + said):
            Run(["q", "q"], docs, [2.0, 1.0])
    with pytest.raises(ValueError, match="run's query ids " + said):
        Run.from_dict({b"\xff": {"a": 1.0}})


def test_ids_that_are_no_sequence_are_refused_by_name():
    # a generator or a set became a 0-d object array: "must be one-dimensional; got shape ()"
    said = r"must be a sequence of ids \(a list, tuple, NumPy or pandas array\); got "
    with pytest.raises(ValueError, match="query_ids " + said + "generator"):
        Run((q for q in ["q", "q"]), ["a", "b"], [1.0, 2.0])
    with pytest.raises(ValueError, match="doc_ids " + said + "set"):
        Qrels(["q", "q"], {"a", "b"}, [1, 2])
    with pytest.raises(ValueError, match="query_ids " + said + "str"):
        Run("q", ["a", "b"], [1.0, 2.0])


def test_a_run_s_raw_material_is_refused_with_the_call_that_makes_a_run(tmp_path):
    """pytrec_eval's nested dict, a table, a file path and a list of runs are each refused
    where systems are expected, by a message naming the call that makes a Run of it, by
    evaluate, the displacement and one-run functions alike."""
    from fuzzytruth import evaluate, evaluate_per_annotator, rank, weighted_displacement

    qrels = Qrels(["q"], ["a"], [1])
    run = Run(["q"], ["a"], [1.0], name="bm25")
    cases = [
        ({"q": {"a": 1.0}}, r"runs\['q'\] must be a Run; got dict: the mapping looks like one "
                            r"run in pytrec_eval's form \{query: \{document: score\}\}, which "
                            r"Run\.from_dict"),
        ({"bm25": {"q": {"a": 1.0}}}, r"runs\['bm25'\] must be a Run; got dict: a run as "
                                      r"pytrec_eval's .* is Run\.from_dict"),
        (pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]}),
         r"got DataFrame: a table of .* is Run\.from_dataframe"),
        (str(tmp_path / "run.trec"), r"got str: read a run file first, with read_trec_run"),
        (tmp_path / "run.trec", r"got PosixPath: read a run file first"),
        ([run], r"got list: name the systems, \{run\.name: run for run in runs\}"),
        (np.eye(2), r"got ndarray: a classifier's .* Predictions\(scores, items=\.\.\., "
                    r"classes=\.\.\.\)"),
    ]
    for given, message in cases:
        with pytest.raises(ValueError, match=message):
            evaluate(given, qrels, "P@1")
    answers = pd.DataFrame({"query_id": ["q"], "annotator_id": ["x"], "item_id": ["a"],
                            "rank": [1], "relevance": [1.0]})
    with pytest.raises(ValueError, match=r"runs\['q'\] must be a Run; got dict: the mapping"):
        weighted_displacement(answers, {"q": {"a": 1.0}}, n_items=3)
    for one_run in (lambda r: rank(r), lambda r: evaluate_per_annotator(r, {"g": qrels}, "AP")):
        with pytest.raises(ValueError, match=r"^run must be a Run; got str: read a run file"):
            one_run("run.trec")
        with pytest.raises(ValueError, match=r"^run must be a Run; got dict: one Run is "
                                             r"expected here, not systems by name$"):
            one_run({"bm25": run})


def test_a_run_given_by_ranks_reads_them_lower_first():
    """A table of positions (rank 1 the top, no scores) taken as scores ranked rank 1 last
    without a word; rank_col= reads positions, and a score column named as ranks are warns."""
    from fuzzytruth import Qrels, evaluate

    frame = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3]})
    qrels = Qrels(["q"], ["a"], [1])
    by_rank = Run.from_dataframe(frame, rank_col="rank")
    by_score = Run.from_dataframe(frame.assign(score=[0.9, 0.5, 0.1]))
    for measure in ("P@1", "RR", "AP"):
        assert evaluate(by_rank, qrels, measure).value("run", measure) == 1.0
        assert evaluate(by_score, qrels, measure).value("run", measure) == 1.0
    # ties: equal ranks are equal scores, broken as any tie (trec_eval: document id descending)
    tied = Run.from_dataframe(frame.assign(rank=[1, 1, 2]), rank_col="rank")
    assert evaluate(tied, qrels, "P@1").value("run", "P@1") == 0.0  # 'b' before 'a'
    with pytest.warns(UserWarning, match=r"score_col='Rank' is read as scores, higher first: "
                                         r"if it holds ranks .* pass rank_col='Rank'"):
        Run.from_dataframe(frame.rename(columns={"rank": "Rank"}), score_col="Rank")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a score column that only mentions ranks: no warning
        Run.from_dataframe(frame.rename(columns={"rank": "rerank_score"}),
                           score_col="rerank_score")
    with pytest.raises(ValueError, match=r"score_col='score' is not a column .*: pass "
                                         r"rank_col='rank'"):
        Run.from_dataframe(frame)
    with pytest.raises(ValueError, match=r"^give score_col or rank_col, not both"):
        Run.from_dataframe(frame.assign(s=1.0), score_col="s", rank_col="rank")
    with pytest.raises(ValueError, match=r"^rank_col='rank' must not contain NaN or missing "
                                         r"values \(found at row 1\)$"):
        Run.from_dataframe(frame.assign(rank=[1, None, 3]), rank_col="rank")


def test_a_score_column_named_as_distances_warns_that_the_nearest_comes_last():
    from fuzzytruth import Qrels, evaluate

    frame = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
                          "Distance": [0.1, 0.5, 0.9]})
    qrels = Qrels(["q"], ["a"], [1])
    with pytest.warns(UserWarning, match=r"score_col='Distance' is read as scores, higher "
                                         r"first: if it holds distances \(smaller is nearer\), "
                                         r"the nearest comes last; give their negation"):
        as_given = Run.from_dataframe(frame, score_col="Distance")
    assert evaluate(as_given, qrels, "RR").value("run", "RR") == 1 / 3  # 'a' last
    negated = Run.from_dataframe(frame.assign(score=-frame["Distance"]))
    assert evaluate(negated, qrels, "RR").value("run", "RR") == 1.0


def test_dataframe_errors():
    df = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [np.nan]})
    with pytest.raises(ValueError, match=r"score_col='points' is not a column of the DataFrame"):
        Run.from_dataframe(df, score_col="points")
    with pytest.raises(ValueError, match=r"scores must not contain NaN or missing values "
                       r"\(found at row 0\)"):
        Run.from_dataframe(df)
    # two columns named "score" (a concat) were read together and refused as "scores must
    # be one-dimensional; got shape (1, 2)"
    twice = pd.concat([df.fillna(1.0), df[["score"]].fillna(2.0)], axis=1)
    with pytest.raises(ValueError, match=r"^df has 2 columns named 'score'; each column read "
                                         r"must be one$"):
        Run.from_dataframe(twice)
    with pytest.raises(ValueError, match=r"^df has 2 columns named 'doc_id'"):
        Qrels.from_dataframe(pd.concat([df, df[["doc_id"]]], axis=1).rename(
            columns={"score": "relevance"}))
    with pytest.raises(ValueError, match=r"df must be a pandas DataFrame; got dict"):
        Qrels.from_dataframe({"query_id": []})
    with pytest.raises(ValueError, match=r"must have the same length; got 2, 1 and 1"):
        Run(["q", "q"], ["d"], [1.0])
    with pytest.raises(ValueError, match=r"duplicates must be one of \['error', 'max', 'first', "
                       r"'last'\]; got 'sum'"):
        Run(["q"], ["d"], [1.0], duplicates="sum")


def test_duplicate_policies():
    q, d, s = ["q", "q", "q", "p"], ["a", "b", "a", "a"], [1.0, 5.0, 3.0, 2.0]
    with pytest.raises(ValueError, match=r"document 'a' is listed 2 times for query 'q' "
                       r"\(rows 0, 2\)"):
        Run(q, d, s)
    frame = Run(q, d, s, duplicates="max").to_dataframe()
    assert sorted(map(tuple, frame.to_numpy().tolist())) == [
        ("p", "a", 2.0), ("q", "a", 3.0), ("q", "b", 5.0)]
    assert Run(q, d, s, duplicates="first").scores.tolist() == [1.0, 5.0, 2.0]
    assert Run(q, d, s, duplicates="last").scores.tolist() == [5.0, 3.0, 2.0]
    assert Qrels(q, d, [1, 0, 2, 1], duplicates="max").relevance.tolist() == [0, 2, 1]


def test_read_trec_run_and_qrels(tmp_path):
    run_path = write(tmp_path, "run", "301 Q0 d1 1 2.5 sysA\n301 Q0 d2 2 1.25 sysA\n302 Q0 d1 1 "
                     "-3 sysA\n")
    run = read_trec_run(run_path)
    assert run.name == "sysA"
    assert run.scores.tolist() == [2.5, 1.25, -3.0]
    qrels = read_trec_qrels(write(tmp_path, "qrels", "301 0 d1 1\n301 0 d9 2\n302 0 d1 0\n"))
    assert qrels.relevance.tolist() == [1, 2, 0]
    assert Run.from_trec(run_path).queries == ["301", "302"]


def test_tabs_and_repeated_spaces_use_the_line_reader(tmp_path):
    path = write(tmp_path, "run", "301\tQ0\td1\t1\t2.5\tsys\n\n301  Q0 d2   2 1.5 sys\n")
    run = read_trec_run(path)
    assert run.doc_ids.tolist() == ["d1", "d2"]
    assert run.scores.tolist() == [2.5, 1.5]


def test_malformed_lines_name_file_and_line(tmp_path):
    path = write(tmp_path, "bad.run", "301 Q0 d1 1 2.5 sys\n301 Q0 d2 2 sys\n")
    with pytest.raises(ValueError, match=r"bad\.run, line 2: expected at least 6 whitespace-"
                       r"separated "
                       r"fields 'qid Q0 docno rank score tag'; got 5: '301 Q0 d2 2 sys'"):
        read_trec_run(path)
    path = write(tmp_path, "bad2.run", "301 Q0 d1 1 2.5 sys\n301 Q0 d2 2 high sys\n")
    with pytest.raises(ValueError, match=r"bad2\.run, line 2: expected a number in field "
                       r"'score'; got 'high'"):
        read_trec_run(path)
    path = write(tmp_path, "bad.qrels", "301 0 d1 1\n301 0 d2 1 extra\n")
    with pytest.raises(ValueError, match=r"bad\.qrels, line 2: expected 4 whitespace-separated "
                       r"fields 'qid iter docno rel'; got 5"):
        read_trec_qrels(path)
    path = write(tmp_path, "dup.run", "301 Q0 d1 1 2.5 sys\n301 Q0 d2 2 1 sys\n301 Q0 d1 3 0 s\n")
    with pytest.raises(ValueError, match=r"dup\.run, line 3: document .d1. is listed 2 times for "
                       r"query '301' \(lines 1, 3\)"):
        read_trec_run(path)
    assert read_trec_run(path, duplicates="max").scores.tolist() == [2.5, 1.0]


def test_write_read_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    run = Run(np.repeat(["q1", "q2"], 5), [f"d{i}" for i in range(10)], rng.random(10), name="x")
    write_trec_run(run, tmp_path / "r")
    back = read_trec_run(tmp_path / "r")
    a = run.to_dataframe().sort_values(["query_id", "doc_id"]).reset_index(drop=True)
    b = back.to_dataframe().sort_values(["query_id", "doc_id"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)
    qrels = Qrels(["q1", "q1"], ["d1", "d2"], [2, 0.5])
    write_trec_qrels(qrels, tmp_path / "q")
    assert (tmp_path / "q").read_text() == "q1 0 d1 2\nq1 0 d2 0.5\n"
    assert read_trec_qrels(tmp_path / "q").relevance.tolist() == [2, 0.5]


def test_judgment_group_reader(tmp_path):
    path = write(tmp_path, "jg", "301 a d1 1\n301 b d1 0\n301 b d2 1\n302 a d3 1\n")
    groups = read_trec_qrels_jg(path)
    assert list(groups) == ["a", "b"]
    assert groups["a"].queries == ["301", "302"]
    assert groups["b"].relevance.tolist() == [0, 1]


def test_tie_policies():
    run = Run(["q"] * 4, ["b", "a", "c", "d"], [1.0, 1.0, 1.0, 2.0])
    qrels = Qrels(["q"] * 4, ["a", "b", "c", "d"], [1, 2, 3, 4])
    assert ranked_gains(run, qrels).gains.tolist() == [[4, 3, 2, 1]]  # doc id descending
    assert ranked_gains(run, qrels, ties="input_order").gains.tolist() == [[4, 2, 1, 3]]
    rg = ranked_gains(run, qrels, ties="average")
    assert rg.tie_start.tolist() == [[0, 1, 1, 1]]
    assert rg.tie_stop.tolist() == [[1, 4, 4, 4]]
    np.testing.assert_allclose(rg.tie_mean(rg.gains), [[4, 2, 2, 2]])


def test_float32_scores_tie():
    run = Run(["q"] * 2, ["a", "b"], [1.0 + 1e-9, 1.0])
    qrels = Qrels(["q"], ["a"], [1])
    assert ranked_gains(run, qrels).gains.tolist() == [[1, 0]]
    assert ranked_gains(run, qrels, score_dtype="float32").gains.tolist() == [[0, 1]]
    # -0.0 and 0.0 are equal, as in C
    run0 = Run(["q"] * 2, ["a", "b"], [-0.0, 0.0])
    assert ranked_gains(run0, qrels, score_dtype="float32").gains.tolist() == [[0, 1]]


def test_query_sets_and_ideal():
    run = Run(["q2", "q1", "q3"], ["a", "a", "a"], [1.0, 1.0, 1.0])
    qrels = Qrels(["q1", "q1", "q2", "q4"], ["a", "z", "b", "x"], [1, 3, 0, 2])
    rg = ranked_gains(run, qrels)
    assert rg.query_ids.tolist() == ["q1", "q2"]
    assert rg.ideal.tolist() == [[3, 1], [0, 0]]
    assert rg.lengths.tolist() == [1, 1]
    rg_c = ranked_gains(run, qrels, queries="qrels")
    assert rg_c.query_ids.tolist() == ["q1", "q2", "q4"]
    assert rg_c.lengths.tolist() == [1, 1, 0]
    assert ranked_gains(run, qrels, queries="run").query_ids.tolist() == ["q1", "q2", "q3"]


def test_ranked_gains_errors():
    run = Run(["q"], ["a"], [1.0])
    qrels = Qrels(["q"], ["a"], [1])
    with pytest.raises(ValueError, match=r"ties must be one of \['docid_desc', 'docid_asc', "
                       r"'input_order', 'average'\]; got 'random'"):
        ranked_gains(run, qrels, ties="random")
    with pytest.raises(ValueError, match=r"score_dtype must be one of"):
        ranked_gains(run, qrels, score_dtype="float16")
    with pytest.raises(ValueError, match=r"queries must be one of"):
        ranked_gains(run, qrels, queries="all")
    with pytest.raises(ValueError, match=r"qrels must be a Qrels; got Run"):
        ranked_gains(run, run)


def test_duplicates_found_across_blocks_and_ungrouped_rows(monkeypatch):
    import fuzzytruth._pairs

    monkeypatch.setattr(fuzzytruth._pairs, "_BLOCK_ROWS", 4)
    q = [f"q{i % 5}" for i in range(40)]  # queries interleaved, 8 rows each
    d = [f"d{i}" for i in range(40)]
    Run(q, d, np.arange(40.0))  # no duplicate
    d[37] = "d2"  # q2 already has d2 (row 2)
    with pytest.raises(ValueError, match=r"document 'd2' is listed 2 times for query 'q2' "
                       r"\(rows 2, 37\)"):
        Run(q, d, np.arange(40.0))


@hypothesis.settings(max_examples=80, deadline=None)
@hypothesis.given(st.lists(st.sampled_from(["q1", "q2", "q10", "é", 1, 2, "1"]), min_size=0,
                max_size=40),
       st.booleans())
def test_query_ids_given_as_objects_factorise_as_their_str_forms(ids, grouped):
    # grouped object ids take the in-place path (neighbours compared, runs' first ids read);
    # the same rows as a str column take the Arrow path: the same queries, the same rows
    if grouped:
        ids = sorted(ids, key=str)
    as_str = pd.array([str(q) for q in ids], dtype="str")
    docs = [f"d{i}" for i in range(len(ids))]
    for column in (ids, np.array(ids, dtype=object)):
        run, ref = Run(column, docs, np.ones(len(ids))), Run(as_str, docs, np.ones(len(ids)))
        assert run.query_ids.tolist() == ref.query_ids.tolist() == [str(q) for q in ids]
        assert run.queries == ref.queries
        assert run._q_uniques.tolist() == ref._q_uniques.tolist()


def test_missing_query_ids_are_refused_from_object_columns():
    for missing in (None, float("nan")):
        with pytest.raises(ValueError, match="query_ids must not contain missing values"):
            Run(np.array(["q1", "q1", missing], dtype=object), ["a", "b", "c"], [1.0, 2.0, 3.0])


def test_ids_in_several_arrow_chunks_are_joined_once():
    """A column of several Arrow chunks (a multi-threaded CSV reader's output) is stored as
    one chunk, so later hash passes do not join it again; the rows are those of the column."""
    import pyarrow as pa

    chunks = [pa.array(["q1", "q1"], pa.large_string()), pa.array(["q2"], pa.large_string())]
    docs = [pa.array(["a", "b"], pa.large_string()), pa.array(["a"], pa.large_string())]
    frame = pd.DataFrame({"query_id": pd.array(pa.chunked_array(chunks), dtype="str"),
                          "doc_id": pd.array(pa.chunked_array(docs), dtype="str"),
                          "score": [2.0, 1.0, 3.0]})
    assert frame["doc_id"].array.__arrow_array__().num_chunks == 2
    run = Run.from_dataframe(frame)
    assert run._docs.__arrow_array__().num_chunks == 1
    assert run.doc_ids.tolist() == ["a", "b", "a"] and run.queries == ["q1", "q2"]


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    queries=st.lists(st.sampled_from(["q1", "q2", "q10", ""]), min_size=1, max_size=30),
    cuts=st.lists(st.integers(0, 30), max_size=4),
)
def test_query_ids_in_chunks_factorise_as_one_array(queries, cuts):
    # the TREC reader hands over query ids in many chunks, not joined into one array: the
    # codes and ids in order of first appearance are those of the same ids as one array (and
    # of the object path), wherever the chunks split a run of equal ids
    import pyarrow as pa

    from fuzzytruth._pairs import factorize_ids

    bounds = sorted({0, len(queries), *(c for c in cuts if c <= len(queries))})
    chunked = pa.chunked_array(
        [pa.array(queries[a:b], type=pa.large_string()) for a, b in itertools.pairwise(bounds)],
        type=pa.large_string(),
    )
    codes, uniques = factorize_ids(chunked)
    expected_codes, expected_uniques = pd.factorize(np.asarray(queries, dtype=object))
    np.testing.assert_array_equal(codes, expected_codes)
    assert uniques.tolist() == expected_uniques.tolist()
    docs, scores = ["d"] * len(queries), np.arange(len(queries))
    from_chunks = Run(pd.array(chunked, dtype="str"), docs, scores, duplicates="first")
    from_list = Run(queries, docs, scores, duplicates="first")
    assert from_chunks._q_uniques.tolist() == from_list._q_uniques.tolist()
    np.testing.assert_array_equal(from_chunks.scores, from_list.scores)


@pytest.mark.parametrize("form", ["list", "objects", "dict", "dict of str"])
def test_ids_converted_in_chunks_are_the_ids_converted_whole(monkeypatch, form):
    """Python objects are converted to Arrow strings a chunk at a time (pyarrow's builder
    doubles its buffers: whole, a column touches twice its bytes): the chunks hold the same
    ids, numbers among them made str in every chunk, and a missing id is refused in any.
    (Numbers among a dict's keys go through the constructor, which joins chunks shorter than
    its hashing blocks: only str keys stay in chunks.)"""
    import fuzzytruth._pairs

    docs = ["a", "é", "7", "b", "25", "c", "d"] if form == "dict of str" else [
        "a", "é", 7, "b", 25, "c", "d"]
    queries = ["q1"] * 4 + ["q2"] * 3
    scores = np.arange(7.0)

    def build():
        if form.startswith("dict"):
            nested: dict = {}
            for q, d, s in zip(queries, docs, scores, strict=True):
                nested.setdefault(q, {})[d] = s
            return Run.from_dict(nested)
        column = docs if form == "list" else np.array(docs, dtype=object)
        return Run(queries, column, scores)

    whole = build()
    monkeypatch.setattr(fuzzytruth._pairs, "_CONVERT_ROWS", 2)
    chunked = build()
    if form != "dict":
        assert chunked._docs.__arrow_array__().num_chunks == 4
    assert chunked.doc_ids.tolist() == whole.doc_ids.tolist() == [str(d) for d in docs]
    assert chunked.queries == whole.queries
    if not form.startswith("dict"):
        with pytest.raises(ValueError, match="doc_ids must not contain missing values"):
            Run(queries, [*docs[:5], None, "d"], scores)


def test_other_tools_column_names_are_offered_when_the_defaults_are_missing():
    # PyTerrier's frames (qid, docno, score / label) were answered with the missing column
    # alone; the call that reads them is now in the message
    run = pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"], "score": [2.0, 1.0],
                        "rank": [0, 1]})
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["d1"], "label": [1]})
    with pytest.raises(ValueError, match=r"columns are \['qid', 'docno', 'score', 'rank'\]: "
                                         r"pass query_col='qid', doc_col='docno'$"):
        Run.from_dataframe(run)
    with pytest.raises(ValueError, match=r": pass query_col='qid', doc_col='docno', "
                                         r"relevance_col='label'$"):
        Qrels.from_dataframe(qrels)
    read = Run.from_dataframe(run, query_col="qid", doc_col="docno")
    assert read.doc_ids.tolist() == ["d1", "d2"]
    assert Qrels.from_dataframe(qrels, query_col="qid", doc_col="docno",
                                relevance_col="label").relevance.tolist() == [1.0]
    # nothing to offer for a column no tool names: the plain message
    with pytest.raises(ValueError, match=r"columns are \['qid', 'x', 'score'\]$"):
        Run.from_dataframe(pd.DataFrame({"qid": ["1"], "x": ["d"], "score": [1.0]}))


def test_ranx_objects_are_named_by_their_library_with_the_call_that_converts_them():
    # "runs must be a Run ...; got Run" and "truth must be ... a Qrels; got Qrels": ranx's
    # classes bear our names, and the messages said nothing more
    ranx = pytest.importorskip("ranx")
    from fuzzytruth import evaluate

    their_qrels = ranx.Qrels({"q": {"a": 1}})
    their_run = ranx.Run({"q": {"a": 1.0, "b": 0.5}}, name="bm25")
    with pytest.raises(ValueError, match=r"runs must be a Run or a non-empty mapping of system "
                                         r"name to Run; got ranx\.Run: ranx's Run is "
                                         r"Run\.from_dict\(run\.to_dict\(\), name=run\.name\)"):
        evaluate(their_run, Qrels(["q"], ["a"], [1]), "AP")
    with pytest.raises(ValueError, match=r"runs\['bm25'\] must be a Run; got ranx\.Run: ranx"):
        evaluate({"bm25": their_run}, Qrels(["q"], ["a"], [1]), "AP")
    with pytest.raises(ValueError, match=r"got ranx\.Qrels \(or any object implementing "
                                         r"fuzzytruth\.truth\.Truth\): ranx's Qrels is "
                                         r"Qrels\.from_dict\(qrels\.to_dict\(\)\)"):
        evaluate(Run(["q"], ["a"], [1.0]), their_qrels, "AP")
    # the calls the messages name work
    ev = evaluate(Run.from_dict(their_run.to_dict(), name=their_run.name),
                  Qrels.from_dict(their_qrels.to_dict()), "AP")
    assert ev.value("bm25", "AP") == 1.0


def test_records_of_ir_datasets_are_refused_with_the_frame_that_reads_them():
    # list(dataset.qrels_iter()) and list(dataset.scoreddocs_iter()): named tuples whose
    # fields are our default column names
    from collections import namedtuple

    from fuzzytruth import evaluate

    qrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
    scored = namedtuple("GenericScoredDoc", "query_id doc_id score")
    qrels = [qrel("q1", "d1", 1, "0"), qrel("q1", "d2", 0, "0")]
    run = [scored("q1", "d1", 1.0), scored("q1", "d2", 2.0)]
    with pytest.raises(ValueError, match=r"got list .*: records of \(query_id, doc_id, "
                                         r"relevance\), .* are Qrels\.from_dataframe\("
                                         r"pd\.DataFrame\(records\)\)$"):
        evaluate(Run(["q1"], ["d1"], [1.0]), qrels, "AP")
    with pytest.raises(ValueError, match=r"got list: records of \(query_id, doc_id, score\), "
                                         r".* are Run\.from_dataframe\(pd\.DataFrame\("
                                         r"records\)\)$"):
        evaluate(run, Qrels(["q1"], ["d1"], [1]), "AP")
    ev = evaluate(Run.from_dataframe(pd.DataFrame(run)), Qrels.from_dataframe(pd.DataFrame(qrels)),
                  "AP")
    assert ev.value("run", "AP") == 0.5
