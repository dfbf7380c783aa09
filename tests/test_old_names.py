"""Public names keep working for one release (issue 19 item 9).

``OLD_ALL`` is every old module's ``__all__`` before the re-housing: generated once from the
tree of commit 574168c (the parent of the first move, 0fc427b) with ``git show
574168c:<path>`` of each ``fuzzytruth/**.py`` (``__all__``, or ``sorted(_LAZY)`` where it was
built that way), and fixed here; it is not regenerated. ``OLD_CLI`` adds the names of the
single-module command line (``fuzzytruth/cli.py`` had no ``__all__``) that the old path served.
Every name still imports from its old path; a name whose spelling changed warns
(:class:`DeprecationWarning` naming the new one), one kept under its own name does not.
"""

from __future__ import annotations

import argparse
import importlib
import warnings

import numpy as np
import pytest

OLD_ALL: dict[str, str] = {
    "fuzzytruth": (
        "AgreementResult Annotations AnnotatorAgreement BootstrapResult CategoryReliability "
        "Comparison ConfidenceInterval CutoffDistributions DegenerateComparisonWarning "
        "DisplacementBootstrap DisplacementResult Distribution DistributionBatch Evaluation "
        "ExponentialG LevelAgreement Measure Membership PairedInference PairedTestResult Param "
        "PopulationScores Preset ProbabilisticQrels Qrels Ranking RationalG "
        "ResamplingResolutionWarning Run ScoreMatrix Taxonomy TukeyResult UNDEFINED "
        "UncertaintyDecomposition UnreliableInferenceWarning WinsTiesLosses WorldPreference "
        "adjust_pvalues agreement agreement_by_level annotator_agreement annotator_bootstrap "
        "annotator_weights category_reliability check_g cohens_dz compare evaluate "
        "evaluate_per_annotator families get_preset paired_bootstrap paired_inference "
        "paired_power paired_test paired_tukey_hsd parse_measure parse_measures "
        "precision_distribution precision_recall_bands precision_recall_curve queries_for_power "
        "query_category_weights randomized_tukey_hsd rank read_annotations "
        "read_probabilistic_qrels read_taxonomy read_trec_qrels read_trec_qrels_jg read_trec_run "
        "recall_distribution register register_preset romano_wolf scores_from_frame "
        "sibling_confusions truth_decomposition weighted_displacement wins_ties_losses "
        "world_preference write_annotations write_probabilistic_qrels write_taxonomy "
        "write_trec_qrels write_trec_qrels_jg write_trec_run"
    ),
    "fuzzytruth._resampling": (
        "BLOCK_RUNNER BYTES_PER_DRAW MEMORY_BUDGET block_rows percentile_interval run_blocks"
    ),
    "fuzzytruth._validation": "as_generator check_choice check_confidence_level check_int",
    "fuzzytruth.annotations": "Annotations",
    "fuzzytruth.cli_collection": "add_parsers cmd_agreement",
    "fuzzytruth.collection": (
        "AgreementResult AnnotatorAgreement CategoryReliability LevelAgreement agreement "
        "agreement_by_level annotator_agreement annotator_weights category_reliability "
        "sibling_confusions"
    ),
    "fuzzytruth.collection.agreement": (
        "AgreementResult LevelAgreement agreement agreement_by_level"
    ),
    "fuzzytruth.collection.annotators": "AnnotatorAgreement annotator_agreement annotator_weights",
    "fuzzytruth.collection.reliability": (
        "CategoryReliability category_reliability sibling_confusions"
    ),
    "fuzzytruth.crisp": "compute_measures evaluate_per_annotator",
    "fuzzytruth.datasets": (
        "CIFAR10H CIFAR10_CLASSES CrowdRelevance FLEISS_1971_CATEGORIES Fleiss1971 "
        "ImageCollection ImageNetReal SANTINI_FIGURE1_PUBLISHED SantiniExample cifar10h_taxonomy "
        "fleiss_1971 image_collection imagenet_real read_cifar10h_counts read_cifar10h_raw "
        "read_crowd_relevance read_imagenet_real santini_figure1 santini_illustrative "
        "santini_taxonomy"
    ),
    "fuzzytruth.datasets.convert_real": "ANSWERS read_real_npz write_real_tables",
    "fuzzytruth.datasets.fleiss": "FLEISS_1971_CATEGORIES Fleiss1971 fleiss_1971",
    "fuzzytruth.datasets.generate_image_collection": (
        "AMBIGUITY AMBIGUITY_COARSE ANNOTATORS_PER_ITEM ANNOTATOR_POOL CARELESS_ANNOTATORS "
        "CONFUSABLE_PAIRS DEPTH FEATURE_DIM N_ITEMS N_QUERIES SEED SYSTEM_NOISE TAXONOMY main "
        "simulate_image_collection write_image_collection"
    ),
    "fuzzytruth.datasets.image_collection": "ImageCollection image_collection",
    "fuzzytruth.datasets.imagenet_real": "ImageNetReal imagenet_real read_imagenet_real",
    "fuzzytruth.datasets.public": (
        "CIFAR10H CIFAR10_CLASSES CrowdRelevance cifar10h_taxonomy read_cifar10h_counts "
        "read_cifar10h_raw read_crowd_relevance"
    ),
    "fuzzytruth.datasets.santini": (
        "SANTINI_FIGURE1_PUBLISHED SantiniExample santini_figure1 santini_illustrative "
        "santini_taxonomy"
    ),
    "fuzzytruth.displacement": (
        "DisplacementBootstrap DisplacementResult ExponentialG HYPOTHESES RationalG check_g "
        "displacement_kernel weighted_displacement"
    ),
    "fuzzytruth.distributed": (
        "agreement agreement_by_level compare evaluate evaluate_per_annotator read_parquet"
    ),
    "fuzzytruth.distributed.collection": "agreement agreement_by_level",
    "fuzzytruth.distributed.comparison": "compare",
    "fuzzytruth.distributed.evaluation": "evaluate evaluate_per_annotator",
    "fuzzytruth.distributed.partitions": (
        "aligned_frames blocks_on read_parquet split_in_memory truth_from_frame"
    ),
    "fuzzytruth.evaluation": "Evaluation UNDEFINED evaluate precision_recall_bands",
    "fuzzytruth.io": (
        "read_annotations read_probabilistic_qrels read_taxonomy read_trec_qrels "
        "read_trec_qrels_jg read_trec_run write_annotations write_probabilistic_qrels "
        "write_taxonomy write_trec_qrels write_trec_qrels_jg write_trec_run"
    ),
    "fuzzytruth.io.tables": (
        "read_annotations read_probabilistic_qrels read_taxonomy write_annotations "
        "write_probabilistic_qrels write_taxonomy"
    ),
    "fuzzytruth.io.text": "Text load_text",
    "fuzzytruth.io.trec": (
        "read_trec_qrels read_trec_qrels_jg read_trec_run write_trec_qrels write_trec_qrels_jg "
        "write_trec_run"
    ),
    "fuzzytruth.measure_names": "TREC_OFFICIAL alias_table canonical expand from_alias",
    "fuzzytruth.measures": (
        "Measure MeasureFamily PRESET Param Preset families family finite_float get_preset "
        "parse_measure parse_measures positive_float positive_int presets register "
        "register_preset unit_interval"
    ),
    "fuzzytruth.membership": "Membership",
    "fuzzytruth.metrics": "RankedGains",
    "fuzzytruth.metrics.binary": "ap counts dcg hits_within ndcg",
    "fuzzytruth.metrics.crossmodal": (
        "CROSSMODAL_CONVENTIONS image_text_retrieval rank_summary retrieval_ranks"
    ),
    "fuzzytruth.metrics.graded": (
        "ConfusionCounts CumulatedGain SHREC2006_CONVENTIONS average_dynamic_recall "
        "confusion_counts cumulated_gain dynamic_recall shrec2006_measures"
    ),
    "fuzzytruth.metrics.ranking": (
        "average_precision dcg e_measure f_measure interpolated_precision ndcg precision "
        "r_precision recall reciprocal_rank success"
    ),
    "fuzzytruth.metrics.shape": (
        "PSB_CONVENTIONS ShapeRanking average_over_queries first_tier jk_discount "
        "nearest_neighbor psb_dcg psb_e_measure psb_precision_recall rank_by_dissimilarity "
        "second_tier shape_summary"
    ),
    "fuzzytruth.metrics.trec_extra": (
        "INFAP_EPSILON bin_g bpref inferred_ap judged_rate ndcg_rel relative_precision rprec_mult "
        "set_ap utility"
    ),
    "fuzzytruth.metrics.user_models": "err expected_rbp rbp rbp_residual",
    "fuzzytruth.plots": (
        "plot_agreement_heatmap plot_displacement plot_distribution plot_forest plot_pr_curves "
        "plot_system_pr system_pr_measures"
    ),
    "fuzzytruth.presets": "PRESETS",
    "fuzzytruth.progress": "Progress progress_enabled track",
    "fuzzytruth.repro": "SECTIONS santini_section4 santini_section5",
    "fuzzytruth.runs": "Qrels Ranking Run qrels_gains rank ranked_gains",
    "fuzzytruth.stats": (
        "BootstrapResult Comparison ConfidenceInterval DegenerateComparisonWarning "
        "PairedInference PairedTestResult PopulationScores ResamplingResolutionWarning "
        "ScoreMatrix TukeyResult UncertaintyDecomposition UnreliableInferenceWarning "
        "WinsTiesLosses WorldPreference adjust_pvalues annotator_bootstrap cohens_dz compare "
        "paired_bootstrap paired_inference paired_power paired_test paired_tukey_hsd "
        "queries_for_power randomized_tukey_hsd romano_wolf scores_from_frame truth_decomposition "
        "warn_if_unresolvable wins_ties_losses world_preference"
    ),
    "fuzzytruth.stats._validation": (
        "all_pairs as_labels as_pairs as_scores baseline_pairs check_alpha check_alternative "
        "check_choice check_confidence_level check_n_resamples check_tolerance no_spread"
    ),
    "fuzzytruth.taxonomy": "Taxonomy",
    "fuzzytruth.truth": "WEIGHTS as_truth",
    "fuzzytruth.uncertain": (
        "CutoffDistributions Distribution DistributionBatch ProbabilisticQrels "
        "precision_distribution precision_recall_curve query_category_weights recall_distribution"
    ),
    "fuzzytruth.uncertain.batch": "DistributionBatch",
    "fuzzytruth.uncertain.categorical": (
        "CutoffDistributions precision_distribution precision_recall_curve query_category_weights "
        "recall_distribution"
    ),
    "fuzzytruth.uncertain.closed_form": (
        "ExactInput e_measure_exact expected_dcg f_measure f_measure_exact precision "
        "precision_exact recall recall_exact reciprocal_rank reciprocal_rank_exact success "
        "success_exact tp_pmf"
    ),
    "fuzzytruth.uncertain.cutoffs": "SUMMARIES cutoff_summaries",
    "fuzzytruth.uncertain.distribution": "Distribution",
    "fuzzytruth.uncertain.keyed": (
        "bernoulli_counts categorical_draws draw_seed index_counts index_sums pair_keys "
        "permutations random_bytes uniforms unit_keys"
    ),
    "fuzzytruth.uncertain.poibin": "pmf prefix_pmfs",
    "fuzzytruth.uncertain.probabilistic_qrels": "ProbabilisticQrels",
    "fuzzytruth.uncertain.worlds": (
        "CategoricalWorlds QrelsWorlds RankedDocs WORLD_MODELS check_world_model kernel_params "
        "sample_labels world_values"
    ),
}

OLD_CLI: dict[str, str] = {
    "fuzzytruth.cli": (
        "COMPARE_EXAMPLE DEMO_EXAMPLE DISPLACEMENT_EXAMPLE EVALUATE_EXAMPLE EXIT_USAGE "
        "REPRO_EXAMPLE cmd_compare cmd_demo cmd_displacement cmd_evaluate cmd_repro text_table"
    ),
    "fuzzytruth.cli_collection": "AGREEMENT_EXAMPLE VIEWS",
}

# old name -> the object it now returns (its new home, or a shim keeping the old arguments)
RENAMED = {
    ("fuzzytruth.cli_collection", "add_parsers"): "fuzzytruth.cli.app._agreement_parsers",
    ("fuzzytruth.cli_collection", "cmd_agreement"): "fuzzytruth.cli.agreement.run",
    ("fuzzytruth.cli_collection", "AGREEMENT_EXAMPLE"): "fuzzytruth.cli.agreement.EXAMPLES",
    ("fuzzytruth.uncertain.keyed", "bernoulli_counts"): "fuzzytruth._random._bernoulli_counts",
    **{("fuzzytruth.cli", f"cmd_{c}"): f"fuzzytruth.cli.{c}.run"
       for c in ("evaluate", "compare", "displacement", "repro", "demo")},
    **{("fuzzytruth.cli", f"{c.upper()}_EXAMPLE"): f"fuzzytruth.cli.{c}.EXAMPLES"
       for c in ("evaluate", "compare", "displacement", "repro", "demo")},
}

OPTIONAL = {"fuzzytruth.distributed": "dask", "fuzzytruth.plots": "matplotlib"}


def _object(path: str) -> object:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("module", sorted({*OLD_ALL, *OLD_CLI}))
def test_every_old_public_name_still_imports_from_its_old_path(module):
    for prefix, dependency in OPTIONAL.items():
        if module.startswith(prefix):
            pytest.importorskip(dependency)
    names = f"{OLD_ALL.get(module, '')} {OLD_CLI.get(module, '')}".split()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        old = importlib.import_module(module)
    for name in names:
        if (module, name) in RENAMED:
            with pytest.deprecated_call(match=rf"{module}\.{name} is deprecated .*: use \S"):
                value = getattr(old, name)
            assert value is _object(RENAMED[module, name]), name
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error", DeprecationWarning)
                assert getattr(old, name) is not None, name


def test_the_old_agreement_parsers_still_parse_and_run():
    from fuzzytruth.cli import agreement

    parser = argparse.ArgumentParser(prog="fuzzytruth")
    with pytest.deprecated_call(match="use fuzzytruth.cli.app.add_command"):
        from fuzzytruth.cli_collection import add_parsers
    add_parsers(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["agreement", "levels", "--annotations", "labels.csv"])
    assert (args.view, args.handler) == ("levels", agreement.run)


def test_the_old_keyed_bernoulli_counts_draws_the_documented_bits():
    """Its old doctest's law: the bits are the keyed uniforms below p, and the counts their
    sums per group; on contiguous groups the counts are bernoulli_sums' (its successor)."""
    from fuzzytruth import _random

    with pytest.deprecated_call(match="use fuzzytruth._random.bernoulli_sums"):
        from fuzzytruth.uncertain.keyed import bernoulli_counts
    keys = _random.unit_keys(np.array(list("abcdef"), dtype=object))
    p = np.array([0.5, 0.2, 0.9, 0.6, 0.0, 1.0])
    group = np.array([0, 0, 1, 1, 1, 2])
    worlds = np.arange(40)
    bits, counts = bernoulli_counts(3, 1, keys, p, group, 3, worlds)
    assert (bits == (_random.uniforms(3, 1, keys, worlds) < p)).all()
    assert (counts == np.stack([bits[:, group == g].sum(axis=1) for g in range(3)], 1)).all()
    sums = _random.bernoulli_sums(_random.stream_bases(3, 1, keys), _random.thresholds(p),
                                  np.array([0, 2, 5]), np.array([2, 5, 6]), worlds)
    assert (counts == sums.T).all()
