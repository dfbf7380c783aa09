"""The new families under uncertain truth and tie averaging, against brute force.

* ``binary``: the 0/1-world kernel equals the crisp kernel on the same 0/1 ranking with an
  ideal of R ones (the contract of ``register(binary=...)``);
* ``exact``: the distribution equals the one obtained by enumerating all 2^n worlds of a
  small collection whose documents are relevant independently (a test double stands in for
  the evaluation's context: ``probabilities(rel)``, ``lengths``, ``rest(rel)``, ``judged``);
* ``tie_averaged``: the value equals the mean over every order of the tied documents.
"""

import itertools

import numpy as np
import pytest

from fuzzytruth.measures import Measure, families
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.metrics.user_models import expected_rbp
from fuzzytruth.uncertain.worlds import compress as _compress

NEW_MODULES = ("fuzzytruth.metrics.trec_extra", "fuzzytruth.metrics.user_models",
               "fuzzytruth.metrics.trec_gain", "fuzzytruth.metrics.prefs")
NEW = {n: f for n, f in families().items() if f.kernel.__module__ in NEW_MODULES}

# parameter variants per family (resolved under the trec preset)
VARIANTS = {
    "GMAP": [{}], "NumQ": [{}], "NumRet": [{}], "NumRel": [{}], "NumRelRet": [{}],
    "SetAP": [{}], "RprecMult": [{"mult": 0.2}, {"mult": 1.0}, {"mult": 1.8}],
    "RelativeP": [{"k": 1}, {"k": 5}, {"k": 30}, {}],
    "RBP": [{}, {"p": 0.5, "k": 3}], "ERR": [{}, {"gmax": 1, "k": 4}],
    "Judged": [{}, {"k": 3}], "RBPResidual": [{}, {"p": 0.9, "k": 4}],
    "Bpref": [{}], "infAP": [{}], "GMBpref": [{}], "NumNonrelJudgedRet": [{}],
    "BinG": [{}], "nDCGRel": [{}, {"gain": {0: 1, 1: -1, 2: 5}}],
    "Utility": [{}, {"a": 2, "b": -0.5, "c": -1, "d": 0.25, "n_docs": 50},
                {"a": 2, "c": 0.5, "d": 0.5, "n_docs": 20}],
    "YAAP": [{}], "Unjudged": [{"k": 1}, {"k": 3}, {"k": 10}],
    "G": [{}, {"gain": {0: 1, 1: -1, 2: 5}}], "Rndcg": [{}, {"gain": {0: 1, 1: -1, 2: 5}}],
    "Prefs": [{}, {"kind": "avgjg_Rnonrel_ret"}], "NumPrefs": [{}, {"kind": "ful_ret"}],
}


def measures_of(name):
    return [Measure(name, **params).resolve("trec") for params in VARIANTS[name]]


def kernel_kwargs(measure):
    kwargs = dict(measure.params)
    for p in measure.family.params:
        kwargs.setdefault(p.name, p.default)
    return kwargs


def test_every_new_family_has_variants():
    assert set(NEW) == set(VARIANTS)


@pytest.mark.parametrize("name", sorted(n for n, f in NEW.items() if f.binary is not None))
def test_binary_kernels_equal_the_crisp_kernel(name):
    rng = np.random.default_rng(1)
    depth, n = 12, 400
    relevant = rng.random((depth, n)) < 0.35
    lengths = rng.integers(0, depth + 1, n)
    relevant &= np.arange(depth)[:, None] < lengths[None, :]
    n_relevant = relevant.sum(axis=0) + rng.integers(0, 4, n)
    ideal = (np.arange(depth + 4)[None, :] < n_relevant[:, None]).astype(float)
    rg = RankedGains(np.arange(n).astype(object), relevant.T.astype(float), lengths, ideal)
    for measure in measures_of(name):
        kernel = measure.family.binary(depth, **kernel_kwargs(measure))
        assert kernel is not None, measure
        expected = measure.compute(rg)
        got = kernel(relevant, np.arange(depth)[:, None], lengths, n_relevant)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, err_msg=str(measure))
        # compressed candidate columns, as the engine passes them under probabilistic qrels
        candidate = relevant.T | (rng.random((n, depth)) < 0.3)
        _, ranks = _compress(np.zeros((n, depth), dtype=np.int64), candidate)
        picked = np.take_along_axis(relevant.T, np.minimum(ranks, depth - 1), axis=1)
        picked &= ranks < depth
        got = kernel(np.ascontiguousarray(picked.T), ranks.T.copy(), lengths, n_relevant)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, err_msg=str(measure))


class Context:
    """Test double of the evaluation's exact-distribution context (one row per query)."""

    def __init__(self, p, lengths, rest_p, certain, judged):
        self._p, self.lengths, self._rest, self._certain = p, lengths, rest_p, certain
        self.judged = judged

    def probabilities(self, rel):
        return self._p

    def rest(self, rel):
        return self._rest, self._certain


def worlds_distribution(measure, p, lengths, rest_p, certain, judged):
    """Enumerate every world: each uncertain document relevant or not independently."""
    n_rows, depth = p.shape
    out = []
    for row in range(n_rows):
        probs = np.concatenate([p[row], rest_p[row]])
        atoms = {}
        for bits in itertools.product([0, 1], repeat=len(probs)):
            bits = np.array(bits)
            mass = np.prod(np.where(bits == 1, probs, 1 - probs))
            if mass == 0:
                continue
            ranked = bits[:depth].astype(float)
            n_rel = int(bits.sum()) + int(certain[row])
            rg = RankedGains(np.array([0], dtype=object), ranked[None, :], lengths[row:row + 1],
                             np.ones((1, n_rel)), judged=judged[row:row + 1],
                             n_judged=np.array([depth]),
                             judged_grades=np.ones((1, max(depth, 1))))
            value = float(measure.compute(rg)[0])
            key = "undefined" if np.isnan(value) else round(value, 12)
            atoms[key] = atoms.get(key, 0.0) + mass
        out.append(atoms)
    return out


@pytest.mark.parametrize("name", sorted(n for n, f in NEW.items() if f.exact is not None))
def test_exact_distributions_match_enumerated_worlds(name):
    rng = np.random.default_rng(2)
    n_rows, depth = 5, 5
    lengths = rng.integers(0, depth + 1, n_rows)
    p = np.where(np.arange(depth)[None, :] < lengths[:, None],
                 rng.choice([0.0, 0.3, 0.5, 1.0], (n_rows, depth)), 0.0)
    rest_p = rng.choice([0.0, 0.2, 0.7], (n_rows, 3))
    certain = rng.integers(0, 2, n_rows)
    judged = (rng.random((n_rows, depth)) < 0.6) & (np.arange(depth)[None, :] < lengths[:, None])
    ctx = Context(p, lengths, rest_p, certain, judged)
    for measure in measures_of(name):
        batch = measure.family.exact(ctx, **kernel_kwargs(measure))
        if name == "Utility" and measure.params.get("c", 0) != measure.params.get("d", 0):
            assert batch is None  # depends on the unretrieved relevant documents too
            continue
        assert batch is not None, measure
        expected = worlds_distribution(measure, p, lengths, rest_p, certain, judged)
        for row in range(n_rows):
            atoms = {}
            for v, m in zip(batch.values[row], batch.masses[row], strict=True):
                if m > 0:
                    atoms[round(float(v), 12)] = atoms.get(round(float(v), 12), 0.0) + m
            if batch.p_undefined[row] > 0:
                atoms["undefined"] = float(batch.p_undefined[row])
            assert atoms.keys() == expected[row].keys(), (measure, row)
            for key, mass in expected[row].items():
                assert atoms[key] == pytest.approx(mass, abs=1e-12), (measure, row, key)


def test_expected_rbp_is_the_mean_over_worlds():
    rng = np.random.default_rng(3)
    p = rng.random((4, 6))
    lengths = np.full(4, 6)
    judged = np.ones((4, 6), dtype=bool)
    measure = Measure("RBP", p=0.7, k=5).resolve("trec")
    dists = worlds_distribution(measure, p, lengths, np.zeros((4, 0)), np.zeros(4), judged)
    means = [sum(v * m for v, m in d.items()) for d in dists]
    np.testing.assert_allclose(expected_rbp(p, p=0.7, k=5), means, atol=1e-12)


@pytest.mark.parametrize("name", sorted(n for n, f in NEW.items() if f.tie_averaged))
def test_tie_averaged_values_are_the_mean_over_tie_orders(name):
    rng = np.random.default_rng(4)
    for _ in range(6):
        depth = int(rng.integers(2, 8))
        gains = rng.choice([-1.0, 0.0, 1.0, 2.0], depth)
        judged = (gains != 0) | (rng.random(depth) < 0.5)
        cuts = np.sort(rng.choice(np.arange(1, depth), size=int(rng.integers(0, depth - 1)),
                                  replace=False))
        bounds = [0, *cuts.tolist(), depth]
        start = np.concatenate([[a] * (b - a) for a, b in itertools.pairwise(bounds)])
        stop = np.concatenate([[b] * (b - a) for a, b in itertools.pairwise(bounds)])
        n_ideal = int((gains > 0).sum() + rng.integers(0, 3))
        ideal = np.sort(np.concatenate([gains[gains > 0], np.ones(n_ideal - (gains > 0).sum())]))
        grades = np.concatenate([ideal[::-1], [0.0, -1.0]])

        def rg_of(g, j, tie_start=None, tie_stop=None, ideal=ideal[::-1], grades=grades):
            return RankedGains(np.array(["q"], dtype=object), g[None, :], np.array([len(g)]),
                               ideal[None, :], tie_start, tie_stop, j[None, :],
                               np.array([len(grades)]), grades[None, :])

        tied = rg_of(gains, judged, start[None, :], stop[None, :])
        groups = [list(range(a, b)) for a, b in itertools.pairwise(bounds)]
        orders = [list(itertools.chain(*p))
                  for p in itertools.product(*map(itertools.permutations, groups))]
        for measure in measures_of(name):
            brute = np.mean([measure.compute(rg_of(gains[list(o)], judged[list(o)]))[0]
                             for o in orders])
            assert measure.compute(tied)[0] == pytest.approx(brute, abs=1e-12), measure
