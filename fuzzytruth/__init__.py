"""fuzzytruth: evaluate and compare retrieval systems when the ground truth is uncertain."""

from fuzzytruth.annotations import Annotations
from fuzzytruth.collection import (
    AgreementResult,
    AnnotatorAgreement,
    CategoryReliability,
    LevelAgreement,
    agreement,
    agreement_by_level,
    annotator_agreement,
    annotator_weights,
    category_reliability,
    sibling_confusions,
)
from fuzzytruth.displacement import (
    DisplacementBootstrap,
    DisplacementResult,
    ExponentialG,
    RationalG,
    check_g,
    weighted_displacement,
)
from fuzzytruth.io_collection import (
    read_annotations,
    read_taxonomy,
    write_annotations,
    write_taxonomy,
)
from fuzzytruth.membership import Membership
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.uncertain import (
    CutoffDistributions,
    Distribution,
    precision_distribution,
    precision_recall_curve,
    query_category_weights,
    recall_distribution,
)

__all__ = [
    "AgreementResult",
    "Annotations",
    "AnnotatorAgreement",
    "CategoryReliability",
    "CutoffDistributions",
    "DisplacementBootstrap",
    "DisplacementResult",
    "Distribution",
    "ExponentialG",
    "LevelAgreement",
    "Membership",
    "RationalG",
    "Taxonomy",
    "agreement",
    "agreement_by_level",
    "annotator_agreement",
    "annotator_weights",
    "category_reliability",
    "check_g",
    "precision_distribution",
    "precision_recall_curve",
    "query_category_weights",
    "read_annotations",
    "read_taxonomy",
    "recall_distribution",
    "sibling_confusions",
    "weighted_displacement",
    "write_annotations",
    "write_taxonomy",
]

__version__ = "0.1.0"
