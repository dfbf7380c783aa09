"""Agreement and category reliability of a multi-annotator collection.

"The greater the discrepancy in the assignment to a category, the less one should rely on the
semantic value of that category" (Santini, "Benchmarking without ground truth"): these
functions measure that discrepancy.

Which analyses need raw labels (an :class:`~fuzzytruth.annotations.Annotations`) and which
also accept a :class:`~fuzzytruth.truth.membership.Membership` (e.g. the posteriors of an outside
label model via :meth:`~fuzzytruth.truth.membership.Membership.from_probabilities`):

* :func:`agreement`, :func:`agreement_by_level`, :func:`annotator_agreement`,
  :func:`annotator_weights`, :func:`sibling_confusions`: raw labels only (they compare the
  labels individual annotators gave to the same item); a Membership is refused with a
  ValueError that says so.
* :func:`category_reliability`: either; from a Membership the columns that need raw labels
  (closed κ, confusions) are left empty and the ``ambiguous`` flag uses the membership only.
"""

from fuzzytruth.collection.agreement import (
    AgreementResult,
    LevelAgreement,
    agreement,
    agreement_by_level,
)
from fuzzytruth.collection.annotators import (
    AnnotatorAgreement,
    annotator_agreement,
    annotator_weights,
)
from fuzzytruth.collection.reliability import (
    CategoryReliability,
    category_reliability,
    sibling_confusions,
)

__all__ = [
    "AgreementResult",
    "AnnotatorAgreement",
    "CategoryReliability",
    "LevelAgreement",
    "agreement",
    "agreement_by_level",
    "annotator_agreement",
    "annotator_weights",
    "category_reliability",
    "sibling_confusions",
]
