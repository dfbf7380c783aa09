"""The dermatology differential-diagnosis rankings of Stutz et al. (2023), bundled.

For 1,947 skin-condition cases, 1 to 10 dermatologists each gave a partial ranking with ties
of the conditions they considered (a differential diagnosis), out of 419 conditions; every
condition has a risk level (low, medium, high). No images or metadata are included.

Data: google-deepmind/uncertain_ground_truth (``data/``), copyright 2023 DeepMind
Technologies Limited, licensed CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/);
D. Stutz et al. (2023), "Evaluating AI systems under uncertain ground truth: a case study in
dermatology", arXiv:2307.02191. The files are bundled unchanged; see
``fuzzytruth/datasets/data/DERMATOLOGY_LICENSE``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import numpy as np
import pandas as pd

from fuzzytruth.annotations import Annotations
from fuzzytruth.io.rankings import Rankings, read_rankings
from fuzzytruth.taxonomy import Taxonomy

__all__ = ["RISK_LEVELS", "Dermatology", "dermatology"]

RISK_LEVELS = ("low risk", "medium risk", "high risk")
"""Names of the risk levels 0, 1, 2 of ``dermatology_risks.txt``."""

ROOT = "skin condition"

CITATION = (
    "D. Stutz, A. T. Cemgil, A. G. Roy, T. Matejovicova, M. Barsbey, P. Strachan, "
    "M. Schaekermann, J. v. Freyberg, R. V. Rikhye, B. Freeman, J. P. Matos, U. Telang, "
    "D. R. Webster, Y. Liu, G. S. Corrado, Y. Matias, P. Kohli, Y. Liu, A. Doucet, "
    "A. Karthikesalingam (2023), 'Evaluating AI systems under uncertain ground truth: a case "
    "study in dermatology', arXiv:2307.02191; data: github.com/google-deepmind/"
    "uncertain_ground_truth, copyright 2023 DeepMind Technologies Limited, CC BY 4.0"
)


@dataclass(frozen=True, eq=False)
class Dermatology:
    """The dermatology rankings, their conditions and the risk taxonomy.

    Attributes
    ----------
    rankings : Rankings
        Per case (``item_id`` 0 .. 1946, the file's order), per dermatologist (``reader_id``,
        positional: the same id in two cases need not be the same person), the ranked
        tie-groups of conditions.
    annotations : Annotations
        Each dermatologist's top group as labels (a top group of k conditions gives each one
        weight 1/k).
    conditions : tuple of str
        The 419 condition names, in the file's order (selector class id = position).
    risks : pandas.Series
        Risk level name of each condition (index: condition).
    taxonomy : Taxonomy
        ``skin condition`` → low / medium / high risk → conditions (two levels).
    description : str
        What the data are, and the citation and licence.
    """

    rankings: Rankings
    annotations: Annotations
    conditions: tuple[str, ...]
    risks: pd.Series
    taxonomy: Taxonomy
    description: str

    def __repr__(self) -> str:
        return (f"Dermatology({self.rankings.n_items} cases, "
                f"{len(self.rankings.frame.groupby(['item_id', 'reader_id']))} rankings, "
                f"{len(self.conditions)} conditions)")


def dermatology() -> Dermatology:
    """Load the bundled dermatology rankings (130 KB of selectors JSON).

    Examples
    --------
    >>> data = dermatology()
    >>> data
    Dermatology(1947 cases, 9602 rankings, 419 conditions)
    >>> data.risks.value_counts().to_dict()
    {'low risk': 201, 'medium risk': 150, 'high risk': 68}
    >>> data.taxonomy.parents(data.conditions[0])
    ('medium risk',)
    """
    folder = resources.files("fuzzytruth.datasets").joinpath("data")
    conditions = tuple(
        folder.joinpath("dermatology_conditions.txt").read_text(encoding="utf-8").splitlines()
    )
    levels = np.array(
        folder.joinpath("dermatology_risks.txt").read_text(encoding="utf-8").split(), dtype=int
    )
    risks = pd.Series(np.asarray(RISK_LEVELS, dtype=object)[levels],
                      index=pd.Index(conditions, name="condition"), name="risk")
    taxonomy = Taxonomy.from_edges(
        [(ROOT, level) for level in RISK_LEVELS] + [(r, c) for c, r in risks.items()]
    )
    with resources.as_file(folder.joinpath("dermatology_selectors.json")) as path:
        rankings = read_rankings(path, classes=list(conditions), taxonomy=taxonomy)
    n_rankings = len(rankings.frame.groupby(["item_id", "reader_id"]))
    description = (
        f"Dermatology differential diagnoses: {rankings.n_items} cases, {n_rankings} partial "
        f"rankings with ties by dermatologists (1 to 10 per case) over {len(conditions)} skin "
        "conditions, each condition with a risk level (low, medium, high); no images. "
        f"{CITATION}."
    )
    return Dermatology(rankings, rankings.annotations(), conditions, risks, taxonomy,
                       description)
