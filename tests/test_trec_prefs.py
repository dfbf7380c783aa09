"""trec_eval's preference measures (prefs_*), -R prefs and -R qrels_prefs.

Oracles: trec_eval 9.0.8's expected outputs (tests/data/trec_eval: out.test.prefs,
out.test.qrels_prefs), and a brute-force port written here from ``form_prefs_counts.c`` and the
``m_prefs_*.c`` files: explicit preference pairs, transitive closure by fixpoint, every area
counted pair by pair, trec_eval's ``recalculate`` loops as written. pytrec_eval has no
preference measure. The vectorised counts (:func:`fuzzytruth.metrics.prefs.ec_counts`) and the
relation-matrix counts of :func:`evaluate_preferences` are also checked against each other.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from trec_eval_files import expected_lines, input_file, printed

from fuzzytruth import ProbabilisticQrels
from fuzzytruth.evaluation import evaluate
from fuzzytruth.evaluation.preferences import evaluate_preferences
from fuzzytruth.io import read_trec_prefs, read_trec_qrels_prefs, read_trec_run
from fuzzytruth.measures.trec_output import trec_measures
from fuzzytruth.runs import Qrels, Run, rank
from fuzzytruth.truth.preferences import Preferences

ALL_PREFS = trec_measures("all_prefs")
MEASURES = [m for m, _ in ALL_PREFS]


def values_by_name(ev):
    frame = ev.to_frame()
    return {(p.name, q): v for m, p in ALL_PREFS
            for q, v in frame[frame["measure"] == str(m)].set_index("query_id")["mean"].items()}


# ---------------------------------------------------------------------------------------------
# trec_eval's expected outputs


@pytest.mark.parametrize(("output", "reader", "judgments", "results"), [
    ("out.test.prefs", read_trec_prefs, "prefs.test", "prefs.results.test"),
    ("out.test.qrels_prefs", read_trec_qrels_prefs, "qrels.test", "results.test"),
])
def test_reproduces_trec_evals_expected_output(output, reader, judgments, results):
    ref = expected_lines(output)
    run = read_trec_run(input_file(results))
    ev = evaluate_preferences(run, reader(input_file(judgments)), "all_prefs")
    assert list(ev.measures) == [str(m) for m in MEASURES]
    frame = ev.to_frame()
    agg = ev.aggregate().set_index("measure")["value"]
    ours = {}
    for measure, p in ALL_PREFS:
        values = frame[frame["measure"] == str(measure)].set_index("query_id")["mean"]
        for q in ev.queries:
            if p.per_query:
                ours[p.name, q] = printed(values[q], p.integer)
        ours[p.name, "all"] = printed(agg[str(measure)], p.integer)
    assert ours == {k: v for k, v in ref.items() if k[0] != "runid"}


# ---------------------------------------------------------------------------------------------
# the brute-force port


def brute_force(ranked, lines):
    """trec_eval's prefs values of one query. ``ranked``: doc ids in the run's order (ties
    already broken); ``lines``: (group, subgroup, doc, level) of the query."""
    judged = {d for _, _, d, _ in lines}
    ret = [d for d in ranked if d in judged]
    order = ret + sorted(judged - set(ret))
    docid = {d: i for i, d in enumerate(order)}
    njr, nj = len(ret), len(order)
    groups = {}
    for g, sg, d, lv in lines:
        groups.setdefault(g, {}).setdefault(sg, {})[docid[d]] = float(np.float32(lv))
    counts, ca = [], {}
    for g in sorted(groups):
        subs = groups[g]
        prefs = {(a, b) for lv in subs.values() for a in lv for b in lv if lv[a] > lv[b]}
        while len(subs) > 1:  # transitive closure, to a fixpoint
            more = {(a, d) for a, b in prefs for c, d in prefs if b == c} - prefs
            if not more:
                break
            prefs |= more
        if len(subs) == 1:
            (levels,) = subs.values()
            rel = {d for d, lv in levels.items() if lv > 0}
            nonrel = {d for d, lv in levels.items() if lv <= 0}
        else:
            last = {}
            for sg in sorted(subs):
                last.update(subs[sg])
            rel = {d for d, lv in last.items() if lv > 0}
            nonrel = {d for d, lv in last.items() if lv == 0}
        c = dict.fromkeys(["ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur"], 0)
        for a, b in prefs:
            ca[a, b] = ca.get((a, b), 0) + 1
            if a < njr and b < njr:
                c["poss_ret"] += 1
                c["ful_ret"] += a < b
            elif a < njr or b < njr:
                c["poss_imp"] += 1
                c["ful_imp"] += a < njr
            else:
                c["notoccur"] += 1
        r, n = len(rel), len(nonrel)
        r_ret, n_ret = len({d for d in rel if d < njr}), len({d for d in nonrel if d < njr})
        c.update(num_rel=r, num_rel_ret=r_ret, num_nonrel=n, num_nonrel_ret=n_ret)
        if len(subs) == 1:
            c["rc"], c["rcr"] = recalculate_ec(levels, r, r_ret, njr)
        else:
            c["rc"], c["rcr"] = recalculate_pa(prefs, last, r, njr, nj)
        counts.append(c)
    return measures_from(counts, ca, njr, nj)


def recalculate_ec(levels, r, r_ret, njr):
    """m_prefs_avgjg_Rnonrel(_ret).c, ``recalculate`` with equivalence classes."""
    ecs = [sorted(d for d, lv in levels.items() if lv == v)
           for v in sorted(set(levels.values()), reverse=True)]
    last = ecs[-1]
    out = []
    for retrieved, kept in ((False, last[:r]), (True, [b for b in last[:r_ret] if b < njr])):
        ful = poss = 0
        members = [[d for d in ec if d < njr] if retrieved else ec for ec in ecs]
        pairs = [(a, b) for e1 in range(len(ecs)) for e2 in range(e1 + 1, len(ecs) - 1)
                 for a in members[e1] for b in members[e2]]
        pairs += [(a, b) for ec in members for a in ec for b in kept]
        for a, b in pairs:
            if a < b and a < njr:
                ful += 1
            else:
                poss += 1
        out.append((ful, poss + ful))
    return out


def recalculate_pa(prefs, level, r, njr, nj):
    """The same with a preference array: the non-relevant documents after the first R (in
    docid order; for _ret among the retrieved) leave."""
    out = []
    for scan in (nj, njr):
        seen, first = 0, scan
        for i in range(scan):
            if level.get(i) == 0:
                seen += 1
                if seen == r + 1:
                    first = i
                    break
        dropped = {d for d in range(nj) if d >= first and level.get(d) == 0}
        kept = [(a, b) for a, b in prefs if a not in dropped and b not in dropped]
        if scan == njr:
            kept = [(a, b) for a, b in kept if a < njr and b < njr]
        ful = sum(a < njr and a < b for a, b in kept)
        out.append((ful, len(kept)))
    return out


def measures_from(counts, ca, njr, nj):
    """The 14 values of m_prefs_*.c from per-group counts and the pair counts."""
    out = {}
    scopes = {"": ("ful_ret", "ful_imp", "poss_ret", "poss_imp", "notoccur"),
              "_ret": ("ful_ret", "poss_ret"), "_imp": ("ful_ret", "ful_imp", "poss_ret",
                                                       "poss_imp")}
    for scope, keys in scopes.items():
        ful = [sum(c[k] for k in keys if k.startswith("ful")) for c in counts]
        poss = [sum(c[k] for k in keys if not k.startswith("ful")) for c in counts]
        out[f"prefs_simp{scope}"] = sum(ful) / sum(poss) if sum(poss) else 0.0
        total = sum(f / p for f, p in zip(ful, poss, strict=True) if p)
        out[f"prefs_avgjg{scope}"] = total / len(counts) if total > 0 else 0.0
        n_pairs, share = 0, 0.0
        for i in range(nj):
            for j in range(i + 1, nj):
                fwd, back = ca.get((i, j), 0), ca.get((j, i), 0)
                if not (fwd or back):
                    continue
                if (scope == "_ret" and j >= njr) or (scope == "_imp" and i >= njr):
                    continue
                n_pairs += 1
                share += fwd / (fwd + back) if i < njr else 0.0
        out[f"prefs_pair{scope}"] = share / n_pairs if n_pairs else 0.0
    for name, retrieved in (("prefs_avgjg_Rnonrel", False), ("prefs_avgjg_Rnonrel_ret", True)):
        total = 0.0
        for c in counts:
            r = c["num_rel_ret"] if retrieved else c["num_rel"]
            n = c["num_nonrel_ret"] if retrieved else c["num_nonrel"]
            if r >= n:
                ful = c["ful_ret"] + (0 if retrieved else c["ful_imp"]) + c["num_rel_ret"] * (r - n)
                poss = (c["poss_ret"] + (0 if retrieved else c["poss_imp"] + c["notoccur"])
                        + c["num_rel"] * (r - n))
            else:
                ful, poss = c["rcr"] if retrieved else c["rc"]
            total += ful / poss if poss else np.nan
        out[name] = total / len(counts) if total > 0 else 0.0
    out["prefs_num_prefs_poss"] = sum(c["poss_ret"] + c["poss_imp"] + c["notoccur"]
                                      for c in counts)
    out["prefs_num_prefs_ful"] = sum(c["ful_ret"] + c["ful_imp"] for c in counts)
    out["prefs_num_prefs_ful_ret"] = sum(c["ful_ret"] for c in counts)
    return out


def random_preferences(rng, *, negative=False, one_subgroup=False):
    """Judgment groups whose subgroups agree with a hidden utility (so no cycle), a level-0
    class that stays 0 in every subgroup, fractional levels; ``negative``: some levels -1 in
    groups of one subgroup."""
    rows = []
    for q in range(int(rng.integers(2, 5))):
        docs = [f"d{d:02d}" for d in rng.choice(25, size=int(rng.integers(3, 18)), replace=False)]
        for g in range(int(rng.integers(1, 4))):
            utility = dict(zip(docs, rng.random(len(docs)), strict=True))
            n_sub = 1 if one_subgroup else int(rng.integers(1, 4))
            for sg in range(n_sub):
                scale = int(rng.integers(1, 4))
                for d in rng.choice(docs, size=int(rng.integers(2, len(docs) + 1)), replace=False):
                    level = 0.0 if utility[d] < 0.3 else float(np.ceil(utility[d] * scale * 2) / 2)
                    if negative and n_sub == 1 and rng.random() < 0.15:
                        level = -1.0
                    rows.append((f"q{q}", f"g{g}", f"s{sg}", d, level))
    return pd.DataFrame(rows, columns=["query_id", "group", "subgroup", "doc_id", "level"])


def random_run(rng, queries):
    rows = [(q, f"d{d:02d}", float(rng.integers(0, 5)) / 2)  # many ties
            for q in queries for d in rng.choice(25, size=int(rng.integers(1, 20)), replace=False)]
    return Run.from_dataframe(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))


def assert_matches_brute_force(run, frame, ev, ties="docid_asc"):
    ranking = rank(run, ties=ties, score_dtype="float32")
    docs = ranking.matrix(np.asarray(run.doc_ids, dtype=object), fill=None)
    ours = values_by_name(ev)
    for i, q in enumerate(ranking.query_ids):
        if q not in ev.queries:
            continue
        lines = frame[frame["query_id"] == q][["group", "subgroup", "doc_id", "level"]]
        ranked = [d for d in docs[i] if d is not None]
        for name, value in brute_force(ranked, list(lines.itertuples(index=False))).items():
            # undefined (nothing in scope: NaN under "skip") is where trec_eval prints 0
            assert np.nan_to_num(ours[name, q]) == pytest.approx(value, abs=1e-12), (name, q)


@pytest.mark.parametrize("seed", range(12))
def test_preferences_match_the_brute_force_port(seed):
    rng = np.random.default_rng(seed)
    frame = random_preferences(rng)
    run = random_run(rng, sorted(frame["query_id"].unique()))
    ev = evaluate_preferences(run, Preferences.from_dataframe(frame), MEASURES)
    assert_matches_brute_force(run, frame, ev)


@pytest.mark.parametrize("seed", range(6))
def test_negative_levels_and_options_match_the_brute_force_port(seed):
    # -1 levels (a class below 0 in one-subgroup groups), -M, -c
    rng = np.random.default_rng(100 + seed)
    frame = random_preferences(rng, negative=True)
    run = random_run(rng, sorted(frame["query_id"].unique())[:-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate_preferences(run, Preferences.from_dataframe(frame), MEASURES,
                                  complete=True, depth=8)
    assert len(ev.queries) == frame["query_id"].nunique()
    short = Run(run.query_ids, run.doc_ids, run.scores)
    ranking = rank(short, ties="docid_asc", score_dtype="float32").truncate(8)
    keep = np.zeros(len(short.doc_ids), dtype=bool)
    keep[ranking.rows] = True
    assert_matches_brute_force(Run(run.query_ids[keep], run.doc_ids[keep], run.scores[keep]),
                               frame, ev)


@pytest.mark.parametrize("seed", range(8))
def test_one_group_through_evaluate_equals_evaluate_preferences(seed):
    # the registry kernels on RankedGains (any truth) and the general path agree, NaN included
    from test_trec_measures import random_collection

    run_df, qrels_df = random_collection(np.random.default_rng(200 + seed), n_queries=5)
    run, qrels = Run.from_dataframe(run_df), Qrels.from_dataframe(qrels_df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = evaluate(run, qrels, MEASURES, ties="docid_asc", undefined="skip")
    general = evaluate_preferences(run, Preferences.from_qrels(qrels), MEASURES,
                                   undefined="skip")
    a, b = direct.to_frame(), general.to_frame()
    assert a[["query_id", "measure"]].equals(b[["query_id", "measure"]])
    np.testing.assert_allclose(a["mean"], b["mean"], rtol=0, atol=1e-12, equal_nan=True)
    frame = Preferences.from_qrels(qrels).to_dataframe()
    assert_matches_brute_force(run, frame, general)


def test_preference_families_under_uncertain_truth_are_bounded_and_reproducible():
    pq = ProbabilisticQrels(["q"] * 5, list("abcde"), [0.9, 0.1, 0.5, 0.0, 1.0])
    run = Run(["q"] * 4, ["b", "a", "z", "c"], [4.0, 3, 2, 1])
    ev = evaluate(run, pq, ["Prefs", "Prefs(kind=pair_ret)", "NumPrefs"], n_worlds=500, rng=3)
    again = evaluate(run, pq, ["Prefs", "Prefs(kind=pair_ret)", "NumPrefs"], n_worlds=500, rng=3)
    scores = ev.world_scores("Prefs")
    assert np.nanmin(scores) >= 0 and np.nanmax(scores) <= 1
    np.testing.assert_array_equal(scores, again.world_scores("Prefs"))
    # each world has 5 judged documents: possible preferences = pairs of differing grades
    poss = ev.world_scores("NumPrefs")
    assert set(np.unique(poss)) <= {0.0, 4.0, 6.0}


def test_levels_beyond_float32_are_infinite_as_in_trec_eval_without_numpy_warnings():
    """trec_eval holds levels and grades in a C float: 1e300 is +inf there, above every
    finite level, and -1e300 is -inf. The readers of both routes (a preference file's levels,
    a qrels' grades) give the numbers of the same order written small, and numpy's overflow
    warning of the cast does not reach the user."""
    run = Run(["q"] * 4, ["c", "a", "d", "b"], [4.0, 3, 2, 1])
    names = ["Prefs", "Prefs(kind=pair)", "NumPrefs", "NumPrefs(kind=ful)"]

    def values(ev):
        return ev.aggregate().set_index("measure")["value"].to_dict()

    def prefs(levels):
        return Preferences(["q"] * 4, ["u"] * 4, ["s"] * 4, list("abcd"), levels)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        huge = evaluate_preferences(run, prefs([1e300, 1.0, -1e300, 1e39]), names)
        small = evaluate_preferences(run, prefs([3.0, 1.0, -1.0, 3.0]), names)
        assert values(huge) == values(small)
        assert prefs([1e300, 1.0, -1e300, 1e39]).to_dataframe()["level"].tolist()[::2] == [
            np.inf, -np.inf]
        graded = evaluate(run, Qrels(["q"] * 4, list("abcd"), [1e300, 1, 0, 1e39]), names)
        assert values(graded) == values(
            evaluate(run, Qrels(["q"] * 4, list("abcd"), [3, 1, 0, 3]), names))


# ---------------------------------------------------------------------------------------------
# inputs and errors


def test_readers_and_bad_input(tmp_path):
    path = tmp_path / "prefs.txt"
    path.write_text("# comment\nq1 u1 s1 d1 3\nq1 u1 s1 d2 1.5\n\nq1 u2 s1 d2 0\n")
    prefs = read_trec_prefs(path)
    assert len(prefs) == 3 and prefs.queries == ["q1"]
    path.write_text("q1 u1 s1 d1 3\nq1 u1 s1 d2\n")
    with pytest.raises(ValueError, match=r"prefs.txt, line 2: expected 5 whitespace-separated "
                                         r"fields 'qid jg jsg docno rel'"):
        read_trec_prefs(path)
    path.write_text("q1 u1 s1 d1 3\nq1 u1 s1 d1 2\n")
    with pytest.raises(ValueError, match=r"prefs.txt, line 2: document 'd1' is listed twice in "
                                         r"subgroup 's1' of judgment group 'u1', query 'q1'"):
        read_trec_prefs(path)
    path.write_text("q1 u1 s1 d1 0\nq1 u1 s2 d1 2\nq1 u1 s2 d2 1\n")
    with pytest.raises(ValueError, match=r"non-relevant \(level 0\) in one subgroup of judgment "
                                         r"group 'u1' and relevant in another"):
        read_trec_prefs(path)
    path.write_text("q1 u1 s1 d1 2\nq1 u1 s1 d2 1\nq1 u1 s2 d2 2\nq1 u1 s2 d1 1\n")
    run = Run(["q1"], ["d1"], [1.0])
    with pytest.raises(ValueError, match=r"query 'q1', judgment group 'u1': preferences of one "
                                         r"judgment group are inconsistent"):
        evaluate_preferences(run, read_trec_prefs(path))
    good = Preferences(["q1"], ["u"], ["s"], ["d1"], [1])
    with pytest.raises(ValueError, match=r"measures from preference judgments must be of the "
                                         r"families \['Prefs', 'NumPrefs', 'NumQ'\]; got \['AP'\]"):
        evaluate_preferences(run, good, ["map"])
    with pytest.raises(ValueError, match=r"preferences must be a Preferences; got Qrels"):
        evaluate_preferences(run, Qrels(["q1"], ["d1"], [1]))
    with pytest.raises(ValueError, match=r"query\(ies\) \['q2'\] of the runs have no preference "
                                         r"judgments \(missing='error'\)"):
        evaluate_preferences(Run(["q2"], ["d1"], [1.0]), good, missing="error")
    with pytest.raises(ValueError, match=r"parameter 'kind' of measure 'Prefs': must be one of"):
        evaluate_preferences(run, good, ["Prefs(kind=simple)"])


def test_averaged_ties_are_refused_as_evaluate_refuses_them():
    """The preference measures have no tie-averaged form: evaluate refuses ties='average' for
    them, and evaluate_preferences did not, reading the tied documents in row order instead
    (the value then depended on the order of the run's rows)."""
    qrels = Qrels(["q"] * 3, ["a", "b", "c"], [2, 1, 0])
    run = Run(["q"] * 3, ["a", "b", "c"], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="has no tie-averaged form"):
        evaluate(run, qrels, "Prefs", ties="average")
    with pytest.raises(ValueError, match=r"^ties must be one of \['docid_desc', 'docid_asc', "
                                         r"'input_order'\]; got 'average'$"):
        evaluate_preferences(run, Preferences.from_qrels(qrels), "Prefs", ties="average")


def test_evaluate_given_preferences_points_to_evaluate_preferences():
    prefs = Preferences(["q", "q"], ["u1", "u1"], ["s", "s"], ["a", "b"], [2, 1])
    with pytest.raises(ValueError, match=r"evaluate_preferences\(runs, preferences, measures\)"):
        evaluate(Run(["q"], ["a"], [1.0]), prefs, "AP")
