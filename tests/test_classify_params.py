"""Every classifier family over its declared parameters, under an uncertain categorical truth,
against the oracle: every complete truth of a small case enumerated and evaluated as a crisp
(one-hot) truth, and each value written out from its definition.

The parameter variants are built from each family's ``Param`` declarations
(``tests/measure_variants.py``: every ``choices`` value, a few values per converter, three
joint draws), so that a family or a parameter added later is covered without editing this
file; a parameter whose converter has no values there fails
``test_every_parameter_has_values``, a family without a definition in :data:`DEFINITIONS`
fails ``test_every_family_has_a_definition``.

The case: 7 items × 3 classes under a two-level taxonomy (``level`` 0, 1, 2 and the refused
3), three items certain and four uncertain (2 × 3 × 2 × 3 = 36 complete truths, one label per
item); a classifier's probabilities with tied scores, a zero probability, a one-hot row and a
uniform row; and scores (logits) with ties, which the measures reading probabilities refuse.

* each variant's value on every complete truth, by the crisp path (a one-hot Membership), is
  its definition (:data:`DEFINITIONS`), and scikit-learn's where the conventions match;
* ``method="exact"`` gives each item's law that the 36 truths give (``target="label"``), the
  value on the most plausible class (``"top1"``: a point) or the definition on the shares
  (``"distribution"``: a point), to 1e-12; ``method="auto"`` takes it wherever it exists and
  the worlds elsewhere (the collection statistics under ``target="label"``);
* ``method="worlds"`` agrees with the enumeration within 5 Monte Carlo standard errors, per
  item and for the aggregate;
* ``method="exact"`` refuses, naming them, the measures without an exact law;
* what the crisp evaluation refuses (``level`` past the taxonomy, probabilities read from
  scores) the uncertain one refuses with the same message.
"""

import functools
import itertools
import re
from typing import Any

import numpy as np
import pandas as pd
import pytest
from measure_variants import VALUES, parameter_values, refused, variants
from registry_families import classifier_families
from sklearn.metrics import brier_score_loss, log_loss, top_k_accuracy_score

from fuzzytruth import Membership, Qrels, Taxonomy, evaluate
from fuzzytruth.classify import Predictions
from fuzzytruth.measures import Measure
from fuzzytruth.uncertain.worlds import kernel_params

N_WORLDS = 2000
SE_BOUND = 5.0  # Monte Carlo standard errors

FAMILIES = classifier_families()

TAXONOMY = Taxonomy.from_nested({"all": {"g1": ["a", "b"], "g2": ["c"]}})
CLASSES = ["a", "b", "c"]
#: each class's ancestor at depths 0, 1, 2 (itself)
LIFT = {0: ["all"] * 3, 1: ["g1", "g1", "g2"], 2: CLASSES}
ITEMS = [f"i{i}" for i in range(7)]
#: p(class | item): i0, i1, i6 certain; i2 within g1; i5 uniform
SHARES = np.array([[1, 0, 0], [0, 0, 1], [0.5, 0.5, 0], [0.2, 0.3, 0.5], [0, 0.6, 0.4],
                   [1 / 3, 1 / 3, 1 / 3], [0, 1, 0]])
#: ties at the top (i1, i2, i5) and behind it (i6), a zero (i2, i4), a one-hot row (i4)
PROBABILITIES = np.array([[0.7, 0.2, 0.1], [0.4, 0.4, 0.2], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5],
                          [0.0, 1.0, 0.0], [1 / 3, 1 / 3, 1 / 3], [0.1, 0.45, 0.45]])
#: logits: ties at the top (i1, i2, i3), behind it (i0, i4) and everywhere (i2)
LOGITS = np.array([[2.0, -1.0, -1.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [3.0, 1.0, 3.0],
                   [-2.0, 5.0, -2.0], [1.0, 2.0, 3.0], [0.5, 0.5, 1.0]])
#: each classifier with the variants (measure_variants), and under -m slow with every
#: combination of every parameter's values (k also 2: a tie straddles the cutoff)
CONFIGS = {"probabilities": PROBABILITIES, "logits": LOGITS, "probabilities-grid": PROBABILITIES,
           "logits-grid": LOGITS}
#: every complete truth: one class per item, and its probability
WORLDS = np.array(list(itertools.product(*[np.flatnonzero(row > 0) for row in SHARES])))
WEIGHT = np.prod(SHARES[np.arange(len(ITEMS)), WORLDS], axis=1)
#: the most plausible class of each item, the first on ties (``target="top1"``)
TOP1 = SHARES.argmax(axis=1)


def test_the_case():
    assert WORLDS.shape == (36, 7) and WEIGHT.sum() == pytest.approx(1.0, abs=1e-15)
    assert {n: len(variants(n, f)) for n, f in FAMILIES.items()}  # every family has variants


# ---------------------------------------------------------------------------------------------
# the definitions, on arrays: y the truth and q the scores, (n_items, 3) over CLASSES


def _level(params: dict) -> int:
    return 2 if params.get("level") is None else params["level"]


def _grouped(x: np.ndarray, level: int) -> np.ndarray:
    """``x`` summed over the classes of each group at ``level`` (groups in sorted order)."""
    groups = sorted(set(LIFT[level]))
    return np.stack([x[:, [c for c in range(3) if LIFT[level][c] == g]].sum(axis=1)
                     for g in groups], axis=1)


def _orders(scores: np.ndarray, ties: str) -> list[tuple[int, ...]]:
    """The class orders a tie rule gives to one item's scores: one for a strict rule, every
    order of the tied classes for ``average``."""
    if ties == "last":  # scikit-learn: the later column first among tied ones
        return [tuple(sorted(range(3), key=lambda c: (-scores[c], -c)))]
    if ties == "first":  # numpy's argmax
        return [tuple(sorted(range(3), key=lambda c: (-scores[c], c)))]
    return [o for o in itertools.permutations(range(3))
            if all(scores[o[j]] >= scores[o[j + 1]] for j in range(2))]


def _hits(scores: np.ndarray, k: int, ties: str, level: int) -> np.ndarray:
    """``(n_items, 3)`` P(a class of true class t's group at ``level`` is in the top k)."""
    out = np.zeros((len(scores), 3))
    for i, s in enumerate(scores):
        for t in range(3):
            group = LIFT[level][t]
            if ties == "all":  # in the top k when fewer than k classes score strictly higher
                top = [c for c in range(3) if (s > s[c]).sum() < k]
                out[i, t] = any(LIFT[level][c] == group for c in top)
            else:
                out[i, t] = np.mean([any(LIFT[level][c] == group for c in o[:k])
                                     for o in _orders(s, ties)])
    return out


def acc(y, q, p):
    return (y * _hits(q, p["k"], p["ties"], _level(p))).sum(axis=1)


def _clip(q, eps):
    eps = np.finfo(np.float64).eps if eps is None else eps
    return np.clip(q, eps, 1 - eps)


def _xlogy(x, z):
    return np.where(x > 0, x * np.log(np.where(x > 0, z, 1.0)), 0.0)


def ce(y, q, p):
    y, q = _grouped(y, _level(p)), _grouped(q, _level(p))
    return -_xlogy(y, _clip(q, p["eps"])).sum(axis=1)


def kl(y, q, p):
    y, q = _grouped(y, _level(p)), _grouped(q, _level(p))
    return (_xlogy(y, y) - _xlogy(y, _clip(q, p["eps"]))).sum(axis=1)


def js(y, q, p):
    y, q = _grouped(y, _level(p)), _grouped(q, _level(p))
    m = (y + q) / 2
    return ((_xlogy(y, y) - _xlogy(y, m)).sum(axis=1)
            + (_xlogy(q, q) - _xlogy(q, m)).sum(axis=1)) / (2 * np.log(2))


def _round(values, decimals):
    return values if decimals is None else np.array([round(v, decimals) for v in values])


def md(y, q, p):
    y, q = _grouped(y, _level(p)), _grouped(q, _level(p))
    return _round(np.abs(y - q).sum(axis=1), p["decimals"])


def wasserstein(y, q, p):
    gap = np.abs(np.cumsum(y, axis=1) - np.cumsum(q, axis=1))[:, :-1]
    return _round(gap.sum(axis=1), p["decimals"])


def soft_f1(y, q, p):
    y, q = _grouped(y, _level(p)), _grouped(q, _level(p))
    return 2 * np.minimum(y, q).sum() / (y + q).sum()


def brier(y, q, p):
    y, q = _grouped(y, _level(p)), _grouped(q, _level(p))
    half = p["half"] == "yes" or (p["half"] == "auto" and q.shape[1] == 2)
    return (0.5 if half else 1.0) * ((q - y) ** 2).sum(axis=1)


def _bin(confidence: float, n_bins: int) -> int:
    """The bin ``((b - 1)/B, b/B]`` of a confidence, its edges the floats ``b / B`` (so 0.4,
    a float above 2/5, closes the sixth of 15 bins; a confidence of 0 in the first)."""
    return next(b for b in range(n_bins) if confidence <= (b + 1) / n_bins)


def ece(y, q, p):
    level, n_bins = _level(p), p["n_bins"]
    sums = np.zeros(n_bins)
    for i in range(len(q)):
        top = _orders(q[i], p["ties"])[0][0]
        correct = sum(y[i, t] for t in range(3) if LIFT[level][t] == LIFT[level][top])
        sums[_bin(q[i, top], n_bins)] += correct - q[i, top]
    return np.abs(sums).sum() / len(q)


def entropy_correlation(y, q, p):
    y, q = _grouped(y, _level(p)), _grouped(q, _level(p))
    scale = np.log(q.shape[1]) if q.shape[1] > 1 else 1.0
    h_y, h_q = -_xlogy(y, y).sum(axis=1) / scale, -_xlogy(q, q).sum(axis=1) / scale
    if np.ptp(h_y) == 0 or np.ptp(h_q) == 0:
        return np.nan
    return float(np.corrcoef(h_y, h_q)[0, 1])


#: each family's value from its definition: per item (n_items,) or of the collection (a
#: float), for truth vectors y and scores q over CLASSES and the measure's kernel parameters
DEFINITIONS = {
    "Acc": acc,
    "CE": ce,
    "KL": kl,
    "JS": js,
    "poJSD": lambda y, q, p: 1 - js(y, q, p),
    "TV": lambda y, q, p: md(y, q, {**p, "decimals": None}) / 2,
    "MD": md,
    "Wasserstein": wasserstein,
    "SoftAcc": lambda y, q, p: np.minimum(_grouped(y, _level(p)), _grouped(q, _level(p))).sum(
        axis=1),
    "SoftF1": soft_f1,
    "Brier": brier,
    "ECE": ece,
    "EntropyCorr": entropy_correlation,
}


def test_every_parameter_has_values():
    lacking = [f"{name}.{p.name}" for name, fam in FAMILIES.items() for p in fam.params
               if p.choices is None and p.convert not in VALUES]
    assert not lacking, f"give VALUES (tests/measure_variants.py) for {lacking}"


def test_every_family_has_a_definition():
    assert set(FAMILIES) <= set(DEFINITIONS), "write the definition of the new family"


# ---------------------------------------------------------------------------------------------
# the evaluations


def predictions(config: str) -> Predictions:
    return Predictions(CONFIGS[config], items=ITEMS, classes=CLASSES, name="net")


def uncertain_truth() -> Membership:
    return Membership.from_probabilities(pd.DataFrame(SHARES, index=ITEMS, columns=CLASSES),
                                         taxonomy=TAXONOMY)


def crisp_truth(labels: np.ndarray) -> Membership:
    return Membership.from_labels(dict(zip(ITEMS, np.asarray(CLASSES)[labels], strict=True)),
                                  taxonomy=TAXONOMY)


def grid(name: str, fam) -> list[Measure]:
    """Every combination of the family's parameter values (unset ones too)."""
    values = [(1, 2, 3, 40) if p.name == "k" else
              parameter_values(p) + ((None,) if p.default is None else ()) for p in fam.params]
    out = (Measure(name, **{p.name: v for p, v in zip(fam.params, combo, strict=True)
                            if v is not None})
           for combo in itertools.product(*values))
    return list({str(m): m for m in out}.values())


def all_measures(config: str = "probabilities") -> list[Measure]:
    every = grid if config.endswith("-grid") else variants
    return [m for name, fam in FAMILIES.items() for m in every(name, fam)]


def params_of(m: Measure) -> dict[str, Any]:
    return kernel_params(m.resolve("trec"))


def target_of(m: Measure) -> str:
    return params_of(m).get("target", "label")


@functools.cache
def oracle(config: str) -> dict[str, Any]:
    """Every complete truth evaluated as a crisp one (a one-hot Membership): per measure the
    per-item values ``(n_worlds, n_items)``, the aggregates ``(n_worlds,)`` and where they
    are undefined (``undefined="skip"``; the values then the family's ``undefined_value``),
    and the measures the crisp evaluation refuses, by their message.

    A per-item value depends on its own item only, so the per-item families evaluate every
    world at once: item ``i`` of world ``w`` is the item ``i~w`` of one crisp truth. The
    statistics of the collection are evaluated world by world (one world: the same as every
    other, for those that draw worlds)."""
    pred = predictions(config)
    measures = all_measures(config)
    refusals = refused(measures, lambda ms: evaluate(pred, crisp_truth(WORLDS[0]), ms,
                                                     n_worlds=1, rng=0))
    kept = [m for m in measures if str(m) not in refusals]
    shape = (len(WORLDS), len(ITEMS))
    items = {str(m): np.empty(shape) for m in kept}
    aggregate = {str(m): np.empty(len(WORLDS)) for m in kept}
    per_item = [m for m in kept if m.family.per_item]
    names = [f"{i}~{w}" for w in range(len(WORLDS)) for i in ITEMS]
    every = Predictions(np.tile(CONFIGS[config], (len(WORLDS), 1)), items=names,
                        classes=CLASSES, name="net")
    truth = Membership.from_labels(dict(zip(names, np.asarray(CLASSES)[WORLDS.ravel()],
                                            strict=True)), taxonomy=TAXONOMY)
    ev = evaluate(every, truth, per_item, n_worlds=0, undefined="skip")
    at = pd.Index(names).get_indexer(ev.queries)
    for m in per_item:
        values = np.empty(len(names))
        values[at] = ev.query_means(m)[0]
        items[str(m)] = values.reshape(shape)
        aggregate[str(m)] = np.nanmean(items[str(m)], axis=1)
    collection = [m for m in kept if not m.family.per_item]
    for w, labels in enumerate(WORLDS if collection else []):
        ev = evaluate(pred, crisp_truth(labels), collection, n_worlds=1, rng=0,
                      undefined="skip")
        for m in collection:  # the statistic: the mean of its linearised item values
            items[str(m)][w] = ev.query_means(m)[0]
            aggregate[str(m)][w] = items[str(m)][w].mean()
    undefined = {name: np.isnan(values) for name, values in items.items()}
    for m in kept:
        fill = m.family.undefined_value
        items[str(m)] = np.where(undefined[str(m)], fill, items[str(m)])
        aggregate[str(m)] = np.where(np.isnan(aggregate[str(m)]), fill, aggregate[str(m)])
    return {"measures": kept, "refused": refusals, "items": items, "aggregate": aggregate,
            "undefined": undefined}


def expected_law(config: str, m: Measure) -> dict[str, Any]:
    """What the uncertain truth gives ``m``: the per-item values ``(n_rows, n_items)`` and
    aggregates ``(n_rows,)`` of the truths it reads, with their weights ``(n_rows,)``: the 36
    complete truths (``target="label"``), the most plausible class (``"top1"``), or the
    definition on the shares (``"distribution"``: the crisp path cannot write them)."""
    o = oracle(config)
    target = target_of(m)
    if target == "label":
        return {"weight": WEIGHT, "items": o["items"][str(m)],
                "aggregate": o["aggregate"][str(m)]}
    if target == "top1":
        w = int(np.flatnonzero((WORLDS == TOP1).all(axis=1))[0])
        return {"weight": np.ones(1), "items": o["items"][str(m)][w : w + 1],
                "aggregate": o["aggregate"][str(m)][w : w + 1]}
    value = DEFINITIONS[m.name](SHARES, CONFIGS[config], params_of(m))
    value = np.where(np.isnan(value), m.family.undefined_value, value)  # undefined="zero"
    if m.family.per_item:
        return {"weight": np.ones(1), "items": value[None], "aggregate": value.mean()[None]}
    return {"weight": np.ones(1), "items": None, "aggregate": value[None]}


def exact_expected(m: Measure) -> bool:
    """Whether ``m`` has an exact law under the shares: a per-item family, or a truth that is
    the same in every world (``top1``, ``distribution``)."""
    return m.family.per_item or target_of(m) != "label"


@functools.cache
def evaluations(config: str) -> dict[str, Any]:
    """The uncertain truth by each method: ``default`` (the defaults but a seed), ``exact``
    (the measures with an exact law, no worlds) and ``worlds``."""
    pred, truth = predictions(config), uncertain_truth()
    measures = oracle(config)["measures"]
    exact = [m for m in measures if exact_expected(m)]
    return {
        "default": evaluate(pred, truth, measures, rng=0),
        "exact": evaluate(pred, truth, exact, method="exact", n_worlds=0),
        "worlds": evaluate(pred, truth, measures, method="worlds", n_worlds=N_WORLDS, rng=1),
    }


CONFIG = pytest.mark.parametrize("config", [
    pytest.param(c, marks=pytest.mark.slow) if c.endswith("-grid") else c for c in CONFIGS])


# ---------------------------------------------------------------------------------------------
# the crisp path against the definitions and scikit-learn


@CONFIG
def test_crisp_values_are_the_definitions_on_every_complete_truth(config):
    o = oracle(config)
    for m in o["measures"]:
        define, params = DEFINITIONS[m.name], params_of(m)
        for w, labels in enumerate(WORLDS):
            value = define(np.eye(3)[labels], CONFIGS[config], params)
            if m.family.per_item:
                got = o["items"][str(m)][w]
                assert got == pytest.approx(value, abs=1e-12), (str(m), w)
            elif np.isnan(value):
                assert o["undefined"][str(m)][w].all(), (str(m), w)
                assert o["aggregate"][str(m)][w] == m.family.undefined_value, (str(m), w)
            else:
                assert o["aggregate"][str(m)][w] == pytest.approx(value, abs=1e-12), (str(m), w)


@CONFIG
def test_crisp_values_are_scikit_learns(config):
    """Top-k accuracy (scikit-learn's tie rule is the default), log loss (clipped at the
    float64 eps) and the multiclass Brier score, halved for two classes or on request."""
    scores = CONFIGS[config]
    probabilities = config.startswith("probabilities")
    measures = ["Acc", "Acc@2"] + ["CE", "Brier", "Brier(half=yes)", "Brier(level=1)",
                                   "Brier(half=no,level=1)"] * probabilities
    by_group = _grouped(scores, 1)
    for labels in WORLDS:
        got = evaluate(predictions(config), crisp_truth(labels), measures, n_worlds=0)
        got = got.aggregate().set_index("measure")["value"]
        for k in (1, 2):
            assert got[f"Acc@{k}" if k > 1 else "Acc"] == top_k_accuracy_score(
                labels, scores, k=k, labels=[0, 1, 2])
        if not probabilities:
            continue
        assert got["CE"] == pytest.approx(log_loss(labels, scores, labels=[0, 1, 2]),
                                          rel=1e-14)
        for name, half in (("Brier", "auto"), ("Brier(half=yes)", True)):
            assert got[name] == pytest.approx(brier_score_loss(
                labels, scores, labels=[0, 1, 2], scale_by_half=half), rel=1e-14)
        groups = np.array([0, 0, 1])[labels]  # g1, g2: two classes, halved by default
        for name, half in (("Brier(level=1)", "auto"), ("Brier(half=no,level=1)", False)):
            assert got[name] == pytest.approx(brier_score_loss(
                groups, by_group[:, 1], scale_by_half=half), rel=1e-14)


# ---------------------------------------------------------------------------------------------
# the uncertain truth against the enumeration


def _frame(ev) -> pd.DataFrame:
    return ev.to_frame().set_index(["measure", "query_id"])


@CONFIG
def test_exact_is_the_law_of_the_enumerated_truths(config):
    ev, o = evaluations(config)["exact"], oracle(config)
    frame, default = _frame(ev), _frame(evaluations(config)["default"])
    for m in (m for m in o["measures"] if exact_expected(m)):
        name, law = str(m), expected_law(config, m)
        assert ev.method("net", name) == "exact", name
        assert ev.value("net", name) == pytest.approx(law["weight"] @ law["aggregate"],
                                                      abs=1e-12), name
        assert default.loc[name, "method"].eq("exact").all(), name
        if law["items"] is None:  # a statistic of the collection: its value only
            continue
        for i, item in enumerate(ITEMS):
            atoms: dict[float, float] = {}
            for v, w in zip(law["items"][:, i], law["weight"], strict=True):
                atoms[round(v, 9)] = atoms.get(round(v, 9), 0.0) + w
            dist = ev.distribution("net", item, name)
            got = {round(v, 9): p for v, p in zip(dist.support, dist.probabilities, strict=True)
                   if p > 1e-15}
            assert got.keys() == {v for v, p in atoms.items() if p > 1e-15}, (name, item)
            for v, p in got.items():
                assert p == pytest.approx(atoms[v], abs=1e-12), (name, item, v)
            assert frame.loc[(name, item), "mean"] == pytest.approx(
                law["weight"] @ law["items"][:, i], abs=1e-12), (name, item)
            assert default.loc[(name, item), "mean"] == frame.loc[(name, item), "mean"]


@CONFIG
def test_worlds_agree_with_the_enumerated_truths(config):
    o = oracle(config)
    for method in ("default", "worlds"):
        ev = evaluations(config)[method]
        frame, aggregate = _frame(ev), ev.aggregate().set_index("measure")
        for m in o["measures"]:
            name, law = str(m), expected_law(config, m)
            want = "exact" if exact_expected(m) and (
                method == "default" or target_of(m) != "label") else "worlds"
            assert ev.method("net", name) == want, (method, name)
            got = aggregate.loc[name]
            gap = abs(got["value"] - law["weight"] @ law["aggregate"])
            assert gap <= SE_BOUND * got["mc_se"] + 1e-12, (method, name)
            if law["items"] is None and target_of(m) != "label":
                continue
            items = law["items"] if law["items"] is not None else o["items"][name]
            for i, item in enumerate(ITEMS):
                row = frame.loc[(name, item)]
                gap = abs(row["mean"] - law["weight"] @ items[:, i])
                assert gap <= SE_BOUND * row["mc_se"] + 1e-12, (method, name, item)


@CONFIG
def test_exact_refuses_and_names_the_measures_without_an_exact_law(config):
    lacking = [m for m in oracle(config)["measures"] if not exact_expected(m)]
    if config.startswith("logits"):  # the statistics of the collection read probabilities
        assert not lacking
        return
    with pytest.raises(ValueError, match=re.escape(
            f"method='exact': no exact law for {[str(m) for m in lacking]} under this truth")):
        evaluate(predictions(config), uncertain_truth(), lacking, method="exact", n_worlds=0)


@CONFIG
def test_the_uncertain_evaluation_refuses_what_the_crisp_one_refuses(config):
    refusals = oracle(config)["refused"]
    assert refusals  # level=3 is past the taxonomy
    for name, message in refusals.items():
        with pytest.raises(ValueError, match=re.escape(message)):
            evaluate(predictions(config), uncertain_truth(), name, n_worlds=20, rng=0)


def test_every_probability_measure_is_refused_for_scores_and_none_else():
    refusals = oracle("logits")["refused"]
    for m in all_measures("logits"):
        reads_probabilities = m.name != "Acc"
        past = any(p.name == "level" for p in m.family.params) and params_of(m)["level"] == max(
            parameter_values(m.family.param("level")))
        assert (str(m) in refusals) == (reads_probabilities or past), str(m)


#: label sets (crisp qrels, ImageNet ReaL): one class, two, all three, and none (i3)
SETS = [{"a"}, {"c"}, {"a", "b"}, set(), {"b", "c"}, {"a", "b", "c"}, {"b"}]


@pytest.mark.parametrize("config", ["probabilities", "logits"])
def test_accuracy_on_label_sets_is_its_definition(config):
    """A set-valued truth: a hit when a class of the item's set is in the top k (for
    ``average`` the expectation over the orders of tied classes), undefined on an empty set;
    ``level`` and the measures between distributions refused."""
    qrels = Qrels(*zip(*[(item, c, int(c in s)) for item, s in zip(ITEMS, SETS, strict=True)
                         for c in CLASSES], strict=True))
    pred = predictions(config)
    measures = [m for m in grid("Acc", FAMILIES["Acc"]) if m.params.get("level") is None
                and target_of(m) == "label"]
    ev = evaluate(pred, qrels, measures, undefined="skip")
    members = np.array([[c in s for c in CLASSES] for s in SETS], dtype=float)
    for m in measures:
        p = params_of(m)
        hits = np.array([max((np.mean([any(members[i, c] for c in o[:p["k"]])
                                       for o in _orders(CONFIGS[config][i], p["ties"])])
                              if p["ties"] != "all" else float(any(
                                  members[i, c] for c in range(3)
                                  if (CONFIGS[config][i] > CONFIGS[config][i, c]).sum() < p["k"]
                              ))), 0.0) for i in range(len(ITEMS))])
        want = np.where(members.any(axis=1), hits, np.nan)
        assert ev.method("net", m) == "crisp", str(m)
        assert ev.query_means(m)[0] == pytest.approx(want, abs=1e-12, nan_ok=True), str(m)
    with pytest.raises(ValueError, match="level"):
        evaluate(pred, qrels, "Acc(level=1)")
    with pytest.raises(ValueError, match=r"set-valued truth.*gives accuracy only"):
        evaluate(pred, qrels, "CE")


def test_a_mapping_names_its_classifiers_by_its_keys():
    """As a mapping of runs names its systems: the keys, not the Predictions' own names (two
    classifiers under the default name were refused as one system twice)."""
    pred, other = predictions("probabilities"), predictions("logits")
    pred.name = other.name = "classifier"
    ev = evaluate({"probs": pred, "logits": other}, uncertain_truth(), ["Acc", "Acc@2"],
                  n_worlds=0)
    assert ev.systems == ("probs", "logits")
    alone = evaluate(predictions("logits"), uncertain_truth(), ["Acc", "Acc@2"], n_worlds=0)
    assert ev.query_means("Acc@2")[1] == pytest.approx(alone.query_means("Acc@2")[0])
    assert pred.name == "classifier"  # the caller's predictions are left as they were
    assert evaluate({"mine": pred}, uncertain_truth(), "Acc", n_worlds=0).systems == ("mine",)
    with pytest.raises(ValueError, match=re.escape("name each classifier once as text; got "
                                                   "[1, '1']")):
        evaluate({1: pred, "1": other}, uncertain_truth(), "Acc", n_worlds=0)
