"""Measure spelling, parsing, the family registry and presets."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth.measures import (
    Measure,
    Param,
    Preset,
    families,
    family,
    get_preset,
    parse_measure,
    parse_measures,
    positive_int,
    register,
    register_preset,
    registry,
)
from fuzzytruth.metrics.base import RankedGains


@pytest.mark.parametrize(
    "text",
    ["P@10", "R@100", "nDCG@10", "AP", "RR", "Rprec", "Success@5", "F@10", "F(beta=0.5)@10",
     "E(beta=2)@10", "iP@0.5", "11pt", "nDCG(gain=exp,discount=jk)@10", "AP(rel=2)@100",
     "nDCG(gain={1:3,2:9})", "11pt(interpolation=trec_eval10)", "DCG(discount=jk,b=3)@5"],
)
def test_canonical_spelling_round_trips(text):
    m = parse_measure(text)
    assert str(m) == text
    assert parse_measure(str(m)) == m
    assert hash(parse_measure(str(m))) == hash(m)


def test_spelling_normalisation_and_aliases():
    assert str(parse_measure(" P @ 10.0 ")) == "P@10"
    assert str(parse_measure("nDCG(discount=jk, gain=exp)@10")) == "nDCG(gain=exp,discount=jk)@10"
    assert parse_measure("F1@10") == Measure("F", beta=1.0, k=10)
    assert str(parse_measure("F1@10")) == "F@10"  # beta=1 is F's fixed default
    assert str(parse_measure("F(beta=1.0)@10")) == "F@10"
    assert parse_measures(["P@10", Measure("P", k=10), "AP"]) == [Measure("P", k=10),
                                                                 Measure("AP")]


def test_resolve_fills_from_preset():
    assert str(parse_measure("AP").resolve("trec")) == "AP(rel=1,denominator=all_relevant)"
    assert str(parse_measure("iP@0.5").resolve("trec10")) == (
        "iP(rel=1,interpolation=trec_eval10)@0.5")
    assert str(parse_measure("11pt").resolve("textbook")) == "11pt(rel=1,interpolation=textbook)"
    # explicit parameters win over the preset
    assert str(parse_measure("AP(rel=2)").resolve("trec")) == "AP(rel=2,denominator=all_relevant)"
    custom = Preset("mine", params={"rel": 1}, family_params={"nDCG": {"discount": "jk",
                                                                      "gain": "exp"}})
    assert str(parse_measure("nDCG@5").resolve(custom)) == "nDCG(gain=exp,discount=jk)@5"


def test_parse_errors():
    with pytest.raises(ValueError, match=r"unknown measure 'MAPP'; closest known spellings: "
                       r"MAP, .*canonical families: 11pt"):
        parse_measure("MAPP")
    with pytest.raises(ValueError, match=r"parameter 'k' of measure 'P': must be a positive "
                       r"integer; got '0'"):
        parse_measure("P@0")
    with pytest.raises(ValueError, match=r"parameter 'recall' of measure 'iP': must be a number "
                       r"in \[0, 1\]; got '1.5'"):
        parse_measure("iP@1.5")
    with pytest.raises(ValueError, match=r"measure 'iP' needs '@recall', e\.g\. 'iP@0\.5'"):
        parse_measure("iP")
    with pytest.raises(ValueError, match=r"measure 'Rprec' takes no '@' value"):
        parse_measure("Rprec@5")
    with pytest.raises(ValueError, match=r"measure 'AP' has no parameter 'beta'"):
        parse_measure("AP(beta=2)")
    with pytest.raises(ValueError, match=r"parameter 'discount' of measure 'nDCG': must be one of "
                       r"\['log2', 'jk'\]; got 'ln'"):
        parse_measure("nDCG(discount=ln)")
    with pytest.raises(ValueError, match=r"cannot parse measure 'P@@10'"):
        parse_measure("P@@10")
    with pytest.raises(ValueError, match=r"parameter 'k' given twice in measure"):
        parse_measure("P(k=5)@10")
    with pytest.raises(ValueError, match=r"alias fixes parameter\(s\) \['beta'\]"):
        Measure("F1", beta=2)
    with pytest.raises(ValueError, match=r"measure must be a str or Measure; got int"):
        parse_measure(10)


def test_compute_requires_resolved_parameters():
    rg = RankedGains.from_lists(["q"], [[1, 0]], [[1]])
    with pytest.raises(ValueError, match=r"measure 'P@1' has unset parameter\(s\) \['rel'\]; call "
                       r"\.resolve\(preset\)"):
        parse_measure("P@1").compute(rg)
    assert parse_measure("P(rel=1)@1").compute(rg).tolist() == [1.0]


def test_register_a_family_and_preset(monkeypatch):
    # work on copies of the registries so the test family and preset do not leak
    monkeypatch.setattr(registry, "_FAMILIES", dict(registry._FAMILIES))
    monkeypatch.setattr(registry, "_PRESETS", dict(registry._PRESETS))

    def top_gain(rg, *, k):
        return rg.gains[:, :k].max(axis=1, initial=0.0)

    register("TestTopGain", top_gain, params=(Param("k", convert=positive_int),), at="k",
             at_required=True, description="largest grade in the top k")
    assert "TestTopGain" in families()
    rg = RankedGains.from_lists(["a", "b"], [[0, 2, 1], [1]], [[2, 1], [1]])
    np.testing.assert_array_equal(parse_measure("TestTopGain@2").compute(rg), [2.0, 1.0])
    with pytest.raises(ValueError, match=r"measure family 'TestTopGain' is already registered"):
        register("TestTopGain", top_gain)
    with pytest.raises(ValueError, match=r"measure family name must match"):
        register("bad name", top_gain)
    with pytest.raises(ValueError, match=r"at='n' of measure 'TestX' must be one of its "
                       r"parameters \[\]"):
        register("TestX", top_gain, at="n")
    preset = register_preset(Preset("test-preset", params={"rel": 2}, ties="average"))
    assert get_preset("test-preset") is preset
    with pytest.raises(ValueError, match=r"preset 'test-preset' is already registered"):
        register_preset(preset)
    with pytest.raises(ValueError, match=r"ties must be one of"):
        Preset("x", ties="random")
    assert family("TestTopGain").tie_averaged is False


def test_measure_needs_value_the_preset_lacks():
    bare = Preset("bare")
    with pytest.raises(ValueError, match=r"measure 'AP' needs parameter 'rel', which preset 'bare' "
                       r"does not set"):
        parse_measure("AP").resolve(bare)


@settings(max_examples=50, deadline=None)
@given(k=st.integers(1, 10_000), beta=st.floats(0.01, 100, allow_nan=False),
       p=st.floats(0, 1, allow_nan=False))
def test_round_trip_property(k, beta, p):
    for m in (Measure("F", beta=beta, k=k), Measure("iP", recall=p), Measure("nDCG", k=k)):
        assert parse_measure(str(m)) == m


@pytest.mark.parametrize("bad", [0.5, 1])
def test_the_base_of_the_jk_discount_is_above_one(bad):
    # log_b(1) is 0 (b = 1: 0/0) or negative past rank 1 (b < 1): the discount divided by it
    # gave infinite gains, refused only later by the distribution's own check
    with pytest.raises(ValueError, match=r"parameter 'b' of measure 'nDCG': must be a number "
                                         rf"> 1; got {bad}"):
        Measure("nDCG", discount="jk", b=bad)


def test_a_required_at_parameter_is_required_by_the_measure_and_may_be_named():
    """iP_psb's recall level accepted 0 (its doc says (0, 1]) and Measure("iP_psb") had no
    level at all, both failing only at evaluation ("recall_levels must be ...", or "unset
    parameter(s) ['recall']; call .resolve(preset)", which no preset sets); the parser asked
    for '@' even when the parameter was given by name, with an example ('iP_psb@10') the
    parameter refuses. Now the Measure checks both, and the example is one it accepts."""
    for spelling in ("iP_psb@0", "iP_psb@1.5", "iP_psb(recall=nan)"):
        with pytest.raises(ValueError, match=r"parameter 'recall' of measure 'iP_psb': must be "
                                             r"a number in \(0, 1\]"):
            parse_measure(spelling)
    for make in (lambda: Measure("iP_psb"), lambda: parse_measure("iP_psb")):
        with pytest.raises(ValueError, match=r"measure 'iP_psb' needs '@recall', e\.g\. "
                                             r"'iP_psb@0\.5' \(or recall= by name\)"):
            make()
    assert parse_measure("iP_psb(recall=0.25)") == parse_measure("iP_psb@0.25")
    assert parse_measure("Unjudged(k=5)") == Measure("Unjudged", k=5)
    with pytest.raises(ValueError, match=r"'Unjudged' needs '@k', e\.g\. 'Unjudged@10'"):
        Measure("Unjudged")


def test_cutoffs_up_to_two_to_the_53_score_and_larger_ones_are_refused_by_name():
    # A cutoff of 10**30 failed in a dozen kernels with errors naming no parameter (numba
    # typing errors, "Python int too large to convert to C long"). Every family with a
    # cutoff scores at k = 2**53 as past its lists (P: the hits over k), crisp and in worlds;
    # beyond it the parameter is refused by name.
    from fuzzytruth import ProbabilisticQrels, Qrels, Run, evaluate
    from fuzzytruth.measures import families, family

    run = Run(["q"] * 3, ["a", "b", "c"], [3.0, 2.0, 1.0])
    qrels = Qrels(["q"] * 3, ["a", "b", "d"], [1, 1, 1])  # grade 1: what the worlds hold
    certain = ProbabilisticQrels(["q"] * 3, ["a", "b", "d"], [1.0, 1.0, 1.0])
    cut = [n for n in families() if n != "Acc" and "k" in [p.name for p in family(n).params]]
    assert len(cut) >= 15
    for name in cut:
        crisp = evaluate(run, qrels, [f"{name}@{2**53}"]).aggregate()["value"].item()
        worlds = evaluate(run, certain, [f"{name}@{2**53}"], n_worlds=3,
                          rng=0).aggregate()["value"].item()
        past = evaluate(run, qrels, [f"{name}@{2**40}"]).aggregate()["value"].item()
        assert worlds == pytest.approx(crisp, rel=1e-12, abs=1e-300), name
        if name in ("P", "F", "Unjudged"):  # counts over k
            assert crisp * 2**53 == pytest.approx(past * 2**40, rel=1e-9), name
        elif name == "E":  # 1 - F: within an ulp of 1 there, so checked against F itself
            f = evaluate(run, qrels, [f"F@{2**53}"]).aggregate()["value"].item()
            assert crisp == pytest.approx(1.0 - f, rel=1e-15), name
        else:
            assert crisp == pytest.approx(past, rel=1e-12), name
    with pytest.raises(ValueError, match=r"parameter 'k' of measure 'P': must be a positive "
                                         r"integer at most 2\*\*53 \(9007199254740992\); got "
                                         r"'1000000000000000000000000000000'"):
        parse_measure(f"P@{10**30}")


def test_a_set_of_measures_is_taken_in_the_order_of_its_spellings():
    """A set (pytrec_eval's {"map", "ndcg"}) iterates in an order that changes with the
    process's string hashing, so a table's rows came out in a different order in every run;
    it is taken in the order of its spellings, whatever the order it iterates in (here a set
    that iterates backwards). A list keeps its own order."""

    class Backwards(set):
        def __iter__(self):
            return iter(sorted(super().__iter__(), reverse=True))

    names = {"nDCG@10", "AP", "P@10", "RR"}
    assert list(Backwards(names)) == sorted(names, reverse=True)
    assert [str(m) for m in parse_measures(Backwards(names))] == sorted(names)
    assert [str(m) for m in parse_measures(frozenset(names))] == sorted(names)
    assert [str(m) for m in parse_measures(["RR", "AP"])] == ["RR", "AP"]
