"""Tests of image-text retrieval R@K, medr, meanr, rsum, mR: the kernels of
fuzzytruth.metrics.crossmodal and the similarity-matrix view over evaluate()
(fuzzytruth.evaluation.matrices).

Reference numbers: metric-conventions.md C.3 (VSE++/SCAN ``i2t``/``t2i`` formulas, C.2) and the
definitions of the seed page 001 (R@Sum = sum of the six R@K, mR = R@Sum / 6). Property tests
compare with a per-query Python implementation written here (sort, find the first positive)
and, for the tie policies, with an enumeration of every order of the tied items.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth.evaluation.matrices import image_text_retrieval, retrieval_ranks
from fuzzytruth.measures import get_preset
from fuzzytruth.metrics.crossmodal import rank_summary

I2T_RANKS = [0, 2, 7, 12]  # conventions C.3, 0-based, 4 images
T2I_RANKS = [0, 0, 1, 3, 9, 0, 4, 5, 11, 2]  # conventions C.3, 0-based, 10 captions


def test_c3_worked_example() -> None:
    # metric-conventions C.3: i2t R@1/5/10 = 25/50/75, medr = floor(4.5) + 1 = 5, meanr 6.25;
    # t2i 30/70/90, medr = floor(2.5) + 1 = 3, meanr 4.5; rsum 340, mR 56.667.
    i2t = rank_summary(I2T_RANKS)
    t2i = rank_summary(T2I_RANKS)
    assert i2t == pytest.approx({"R@1": 25.0, "R@5": 50.0, "R@10": 75.0, "medr": 5, "meanr": 6.25})
    assert t2i == pytest.approx({"R@1": 30.0, "R@5": 70.0, "R@10": 90.0, "medr": 3, "meanr": 4.5})
    rsum = sum(i2t[f"R@{k}"] + t2i[f"R@{k}"] for k in (1, 5, 10))
    assert rsum == pytest.approx(340.0)
    assert rsum / 6 == pytest.approx(56.667, abs=1e-3)
    # C.3: the "median of 1-based ranks" convention gives 5.5 and 3.5 instead.
    assert rank_summary(I2T_RANKS, medr="median_1based")["medr"] == 5.5
    assert rank_summary(T2I_RANKS, medr="median_1based")["medr"] == 3.5
    # CLIP_benchmark reports fractions (C.2).
    assert rank_summary(I2T_RANKS, percent=False)["R@5"] == pytest.approx(0.5)


def scores_with_best_rank(n_items: int, positives: list[int], rank: int, rng) -> np.ndarray:
    """Distinct scores whose best positive sits at 0-based ``rank`` (a test fixture)."""
    negatives = [j for j in range(n_items) if j not in positives]
    rng.shuffle(negatives)
    order = [*negatives[:rank], positives[0]]
    rest = [*negatives[rank:], *positives[1:]]
    rng.shuffle(rest)
    order += rest
    scores = np.empty(n_items)
    scores[order] = np.arange(n_items, 0, -1)
    return scores


def test_c3_ranks_through_a_similarity_matrix() -> None:
    rng = np.random.default_rng(1)
    # i2t: 4 images x 20 captions (5 each, VSE++ layout) with best-caption ranks [0, 2, 7, 12].
    sim = np.stack([
        scores_with_best_rank(20, list(range(5 * i, 5 * i + 5)), r, rng)
        for i, r in enumerate(I2T_RANKS)
    ])
    for ties in ("average", "docid_asc", "optimistic", "pessimistic"):
        assert retrieval_ranks(sim, ties=ties).tolist() == I2T_RANKS
    out = image_text_retrieval(sim)
    assert (out["i2t_R@1"], out["i2t_R@5"], out["i2t_R@10"]) == (25.0, 50.0, 75.0)
    assert (out["i2t_medr"], out["i2t_meanr"]) == (5.0, 6.25)
    # t2i: 12 images x 12 captions (one each); captions 0-9 rank their image at C.3's ranks.
    ranks = [*T2I_RANKS, 0, 0]
    sim_t = np.stack([scores_with_best_rank(12, [t], r, rng) for t, r in enumerate(ranks)]).T
    assert retrieval_ranks(sim_t, direction="t2i").tolist() == ranks


def test_any_caption_ratio_and_explicit_mapping() -> None:
    # 3 images with 1, 3 and 2 captions, mapping shuffled. Hand derivation below.
    text_to_image = np.array([1, 0, 2, 1, 1, 2])
    sim = np.array([
        [0.1, 0.9, 0.2, 0.3, 0.4, 0.5],  # image 0: its caption 1 is ranked first -> 0
        [0.8, 0.7, 0.1, 0.2, 0.3, 0.9],  # image 1: captions 0, 3, 4; caption 0 is 2nd -> 1
        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],  # image 2: captions 2, 5; caption 5 first -> 0
    ])
    assert retrieval_ranks(sim, text_to_image=text_to_image).tolist() == [0, 1, 0]
    # t2i, caption 0: images [0.1, 0.8, 0.1] -> image 1 first (0); caption 1: [0.9, .7, .2] ->
    # image 0 (0); caption 2: [.2, .1, .3] -> image 2 (0); caption 3: [.3, .2, .4] -> image 1
    # third (2); caption 4: [.4, .3, .5] -> image 1 third (2); caption 5: [.5, .9, .6] -> 1.
    t2i = retrieval_ranks(sim, text_to_image=text_to_image, direction="t2i")
    assert t2i.tolist() == [0, 0, 0, 2, 2, 1]
    out = image_text_retrieval(sim, text_to_image=text_to_image, ks=(1, 2), percent=False)
    assert out["i2t_R@1"] == pytest.approx(2 / 3)
    assert out["t2i_R@1"] == pytest.approx(3 / 6)
    assert out["t2i_R@2"] == pytest.approx(4 / 6)
    assert out["rsum"] == pytest.approx(2 / 3 + 1 + 3 / 6 + 4 / 6)
    assert out["mR"] == pytest.approx(out["rsum"] / 4)


# ---------------------------------------------------------------------------------------------
# Ties


def test_tie_policies_on_an_all_tied_row() -> None:
    # One image query, 5 captions all scored equally, 2 of them its own (captions 3, 4).
    # Hand derivation: optimistic 0; pessimistic 3 negatives first -> 3; stable index: the
    # first positive is caption 3 -> 3; expected (g - m)/(m + 1) = 3/3 = 1.
    sim = np.array([[1.0, 1, 1, 1, 1], [0, 0, 0, 0, 0]])
    mapping = [1, 1, 1, 0, 0]
    got = {t: retrieval_ranks(sim, text_to_image=mapping, ties=t)[0]
           for t in ("optimistic", "pessimistic", "docid_asc", "average")}
    assert got == {"optimistic": 0, "pessimistic": 3, "docid_asc": 3, "average": 1}
    # P(rank < 1) = P(a positive is first) = 2/5; P(rank < 2) = 1 - C(3,2)/C(5,2) = 7/10.
    out = image_text_retrieval(sim, text_to_image=mapping, ks=(1, 2), percent=False)
    # Image 1 (captions 0-2) has all-zero scores: tied 5-way with 3 positives -> P = 3/5, 9/10.
    assert out["i2t_R@1"] == pytest.approx((2 / 5 + 3 / 5) / 2)
    assert out["i2t_R@2"] == pytest.approx((7 / 10 + 9 / 10) / 2)


def brute_first_positive(scores, positives, key_extra) -> int:
    order = sorted(range(len(scores)), key=lambda j: (-scores[j], key_extra(j)))
    return next(i for i, j in enumerate(order) if positives[j])


@st.composite
def matrices(draw, max_images: int = 4, max_texts: int = 6):
    n_images = draw(st.integers(1, max_images))
    n_texts = draw(st.integers(n_images, max_texts))
    mapping = list(range(n_images)) + draw(
        st.lists(st.integers(0, n_images - 1), min_size=n_texts - n_images,
                 max_size=n_texts - n_images)
    )
    perm = draw(st.permutations(range(n_texts)))
    mapping = [mapping[p] for p in perm]
    values = draw(st.lists(st.integers(0, 2), min_size=n_images * n_texts,
                           max_size=n_images * n_texts))
    return np.array(values, dtype=float).reshape(n_images, n_texts), np.array(mapping)


def positives_of(mapping: np.ndarray, n_images: int, direction: str) -> list[list[bool]]:
    if direction == "i2t":
        return [[m == i for m in mapping] for i in range(n_images)]
    return [[i == m for i in range(n_images)] for m in mapping]


@settings(max_examples=60, deadline=None)
@given(matrices(), st.sampled_from(["i2t", "t2i"]))
def test_deterministic_policies_match_brute_force(data, direction: str) -> None:
    sim, mapping = data
    rows = sim if direction == "i2t" else sim.T
    pos = positives_of(mapping, sim.shape[0], direction)
    keys = {
        "docid_asc": lambda p: (lambda j: j),
        "optimistic": lambda p: (lambda j: (not p[j], j)),
        "pessimistic": lambda p: (lambda j: (p[j], j)),
    }
    for ties, make_key in keys.items():
        got = retrieval_ranks(sim, text_to_image=mapping, direction=direction, ties=ties)
        expected = [brute_first_positive(s, p, make_key(p)) for s, p in zip(rows, pos, strict=True)]
        assert got.tolist() == expected, ties


@settings(max_examples=40, deadline=None)
@given(matrices(max_images=3, max_texts=6), st.sampled_from(["i2t", "t2i"]))
def test_expected_policy_equals_mean_over_tie_orders(data, direction: str) -> None:
    sim, mapping = data
    rows = sim if direction == "i2t" else sim.T
    pos = positives_of(mapping, sim.shape[0], direction)
    ranks = retrieval_ranks(sim, text_to_image=mapping, direction=direction)
    out = image_text_retrieval(sim, text_to_image=mapping, ks=(1, 2, 3), percent=False)
    hit_means = {k: [] for k in (1, 2, 3)}
    for q, (s, p) in enumerate(zip(rows, pos, strict=True)):
        # Every order of the items consistent with the scores (ties in any order).
        firsts = [
            next(i for i, j in enumerate(order) if p[j])
            for order in itertools.permutations(range(len(s)))
            if all(s[a] >= s[b] for a, b in itertools.pairwise(order))
        ]
        assert ranks[q] == pytest.approx(np.mean(firsts), abs=1e-12)
        for k in hit_means:
            hit_means[k].append(np.mean([f < k for f in firsts]))
    for k, values in hit_means.items():
        assert out[f"{direction}_R@{k}"] == pytest.approx(np.mean(values), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(matrices(), st.sampled_from(["average", "optimistic", "pessimistic", "docid_asc"]))
def test_ranges_and_order_of_policies(data, ties: str) -> None:
    sim, mapping = data
    out = image_text_retrieval(sim, text_to_image=mapping, ties=ties, ks=(1, 2), percent=False)
    for key, value in out.items():
        if "R@" in key:
            assert 0 <= value <= 1, key
        elif key.endswith(("medr", "meanr")):
            assert value >= 1, key
    assert 0 <= out["mR"] <= 1
    for direction in ("i2t", "t2i"):
        opt, exp, pes = (
            retrieval_ranks(sim, text_to_image=mapping, direction=direction, ties=t)
            for t in ("optimistic", "average", "pessimistic")
        )
        assert (opt <= exp + 1e-12).all() and (exp <= pes + 1e-12).all()


@settings(max_examples=20, deadline=None)
@given(matrices(max_images=5, max_texts=9))
def test_row_blocks_do_not_change_results(data) -> None:
    sim, mapping = data
    whole = image_text_retrieval(sim, text_to_image=mapping)
    blocked = image_text_retrieval(sim, text_to_image=mapping, memory_budget=1)  # row by row
    assert blocked == whole


# ---------------------------------------------------------------------------------------------
# k-fold protocol


def test_five_fold_protocol_is_mean_of_per_fold_metrics() -> None:
    rng = np.random.default_rng(7)
    n_images, per = 10, 3
    sim = rng.normal(size=(n_images, n_images * per))
    out = image_text_retrieval(sim, n_folds=5)
    folds = [
        image_text_retrieval(sim[2 * f: 2 * f + 2, 6 * f: 6 * f + 6]) for f in range(5)
    ]
    for key in out:
        assert out[key] == pytest.approx(np.mean([fold[key] for fold in folds])), key
    # rsum is the mean of the per-fold rsums (conventions C.2), i.e. the sum of the mean R@K.
    assert out["rsum"] == pytest.approx(
        sum(out[f"{d}_R@{k}"] for d in ("i2t", "t2i") for k in (1, 5, 10))
    )


def test_folds_only_compare_items_of_the_same_fold() -> None:
    # Within a fold every image prefers its own captions; across folds scores are higher still.
    # Evaluated as one set everything fails; per fold everything is found first.
    n_images = 4
    mapping = np.repeat(np.arange(n_images), 2)
    fold_of_image = np.arange(n_images) // 2
    sim = np.where(fold_of_image[:, None] != fold_of_image[mapping][None, :], 10.0, 0.0)
    sim[mapping, np.arange(8)] = 1.0
    assert image_text_retrieval(sim, n_folds=2)["rsum"] == pytest.approx(600.0)
    assert image_text_retrieval(sim)["i2t_R@1"] == 0.0


def test_vsepp_fold_printout_bug_differs_from_the_correct_rsum() -> None:
    # conventions C.2: VSE++/SCAN print "rsum" as 6 * mean(i2t average recall)
    # = 2 * (i2t R@1 + R@5 + R@10). With i2t != t2i that is not the rsum.
    rng = np.random.default_rng(3)
    out = image_text_retrieval(rng.normal(size=(20, 100)), n_folds=5)
    buggy = 2 * (out["i2t_R@1"] + out["i2t_R@5"] + out["i2t_R@10"])
    assert out["t2i_R@1"] != out["i2t_R@1"]
    assert buggy != pytest.approx(out["rsum"])


def test_preset() -> None:
    preset = get_preset("crossmodal")
    assert preset.params["percent"] is True and preset.params["medr"] == "vsepp"
    assert preset.ties == "average"


# ---------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: image_text_retrieval(np.zeros((2, 3))),
         r"text_to_image is required unless n_texts is a multiple of n_images"),
        (lambda: image_text_retrieval(np.zeros((2, 3)), text_to_image=[0, 1]),
         r"text_to_image must be 3 integer image indices"),
        (lambda: image_text_retrieval(np.zeros((2, 3)), text_to_image=[0, 1, 2]),
         r"text_to_image must hold image indices in \[0, 2\); got values in \[0, 2\]"),
        (lambda: image_text_retrieval(np.zeros((3, 3)), text_to_image=[0, 0, 1]),
         r"every image needs at least one caption in text_to_image; images \[2\] have none"),
        (lambda: image_text_retrieval(np.array([[np.nan, 0.0]])),
         "similarity must not contain NaN"),
        (lambda: image_text_retrieval(np.zeros(4)),
         r"similarity must be a non-empty 2-D array \(n_images, n_texts\); got shape \(4,\)"),
        (lambda: image_text_retrieval(np.zeros((4, 8)), n_folds=3),
         "n_folds must divide the number of images 4; got n_folds=3"),
        (lambda: image_text_retrieval(np.zeros((4, 8)), n_folds=0),
         "n_folds must be a positive integer; got 0"),
        (lambda: image_text_retrieval(np.zeros((2, 4)), ties="random"),
         r"ties must be one of \['docid_desc', 'docid_asc', 'input_order', 'average', "
         r"'optimistic', 'pessimistic'\]; got 'random'"),
        (lambda: image_text_retrieval(np.zeros((2, 4)), medr="mean"),
         r"medr must be one of \['vsepp', 'median_1based'\]; got 'mean'"),
        (lambda: image_text_retrieval(np.zeros((2, 4)), ks=(0, 5)),
         r"ks must be a non-empty sequence of positive integers; got \(0, 5\)"),
        # a repeated cutoff: an IndexError from the hit table (image_text_retrieval), and
        # rank_summary kept one R@1 of the two
        (lambda: image_text_retrieval(np.zeros((2, 4)), ks=(1, 5, 1)),
         r"ks must be distinct cutoffs; got \(1, 5, 1\)"),
        (lambda: rank_summary([0, 2], ks=[1, 1]), r"ks must be distinct cutoffs; got \[1, 1\]"),
        (lambda: retrieval_ranks(np.zeros((2, 4)), direction="both"),
         r"direction must be one of \['i2t', 't2i'\]; got 'both'"),
        (lambda: rank_summary([-1, 2]), "ranks must be non-empty, non-negative 0-based ranks"),
        # not ranks: meanr was inf, text a bare numpy error, complex numbers lost their
        # imaginary part with only numpy's ComplexWarning
        (lambda: rank_summary([0, math.inf]),
         r"ranks must be non-empty, non-negative 0-based ranks; got \[0, inf\]"),
        (lambda: rank_summary(["a", "1"]),
         "ranks must be 0-based ranks; numpy could not read them"),
        (lambda: rank_summary([1 + 1j]), "ranks must be real numbers; got complex values"),
    ],
)
def test_errors(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_medr_rounds_down_the_median_of_zero_based_ranks() -> None:
    # VSE++: np.floor(np.median(ranks)) + 1; ranks [0, 3] -> floor(1.5) + 1 = 2, while the
    # median of 1-based ranks is 2.5.
    assert rank_summary([0, 3])["medr"] == 2.0
    assert rank_summary([0, 3], medr="median_1based")["medr"] == 2.5
    assert math.isclose(rank_summary([0, 3])["meanr"], 2.5)
