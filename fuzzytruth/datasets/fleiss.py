"""Fleiss (1971): psychiatric diagnoses of 30 patients by 6 raters each, 5 categories."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources

import pandas as pd

from fuzzytruth.annotations import Annotations
from fuzzytruth.taxonomy import Taxonomy

__all__ = ["FLEISS_1971_CATEGORIES", "Fleiss1971", "fleiss_1971"]

#: The five diagnoses, in Fleiss's Table 1 order.
FLEISS_1971_CATEGORIES = (
    "depression",
    "personality_disorder",
    "schizophrenia",
    "neurosis",
    "other",
)


@dataclass(frozen=True)
class Fleiss1971:
    """The Fleiss (1971) data as a taxonomy, annotations and the raw long table.

    Attributes
    ----------
    taxonomy : Taxonomy
        Flat: root ``"diagnosis"`` with the five categories as children.
    annotations : Annotations
        180 labels: patients 1–30 (``item_id``), ``rater1``–``rater6`` (``annotator_id``).
    frame : pandas.DataFrame
        The bundled CSV as read: ``item_id, annotator_id, label``.
    """

    taxonomy: Taxonomy
    annotations: Annotations
    frame: pd.DataFrame = field(repr=False)


def fleiss_1971() -> Fleiss1971:
    """Load J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
    Psychological Bulletin 76(5):378–382, Table 1.

    Thirty psychiatric patients, each diagnosed by six psychiatrists as depression,
    personality disorder, schizophrenia, neurosis or other. The six psychiatrists differ from
    patient to patient (Fleiss kept six of the 6–10 per patient at random), so ``rater1`` …
    ``rater6`` are positions in the table of R's irr package (dataset ``diagnoses``), not
    people; the per-patient counts, which are all Fleiss printed, are what the agreement
    coefficients use. Fleiss' κ = 0.4302445 (irr ``kappam.fleiss``) and Krippendorff's
    nominal α = 0.4334098. The CSV header says where this copy comes from and how it was
    checked.

    Examples
    --------
    >>> data = fleiss_1971()
    >>> data.annotations.n_items, data.annotations.n_annotators
    (30, 6)
    >>> data.taxonomy.children("diagnosis")
    ('depression', 'personality_disorder', 'schizophrenia', 'neurosis', 'other')
    >>> data.frame["label"].value_counts()["neurosis"]
    np.int64(55)
    """
    path = resources.files("fuzzytruth.datasets").joinpath("data", "fleiss1971_diagnoses.csv")
    with path.open() as handle:
        frame = pd.read_csv(handle, comment="#")
    taxonomy = Taxonomy.from_edges([("diagnosis", c) for c in FLEISS_1971_CATEGORIES])
    return Fleiss1971(taxonomy, Annotations.from_frame(frame, taxonomy=taxonomy), frame)
