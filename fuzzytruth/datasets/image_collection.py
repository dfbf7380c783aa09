"""A SIMULATED multi-annotator image collection with three system runs, and its loader.

The data were drawn by :mod:`fuzzytruth.datasets.generate_image_collection`, whose docstring
states the generative model; the latent truth (each item's true leaf, each annotator's
profile) is bundled too, so that methods can be checked against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING

import pandas as pd

from fuzzytruth.annotations import Annotations
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.truth.membership import Membership

if TYPE_CHECKING:
    from fuzzytruth.runs import Run

__all__ = ["ImageCollection", "image_collection"]

_TREC_COLUMNS = ["query_id", "q0", "doc_id", "rank", "score", "tag"]


@dataclass(frozen=True, eq=False)
class ImageCollection:
    """A simulated image collection: taxonomy, labels, latent truth and system runs.

    Attributes
    ----------
    taxonomy : Taxonomy
        ``image`` → people, animals, scenery, objects → 16 leaves (21 nodes, 3 levels).
    annotations : Annotations
        5–7 labels per item from a pool of 10 annotators; a label may be a leaf or a
        top-level category (a coarser answer).
    membership : Membership
        p(category | item) from the annotations (Santini eq. 6–8).
    truth : pandas.Series
        The latent true leaf of each item (index ``item_id``, name ``true_label``). Real
        collections do not have it; it is here to check the methods.
    annotator_profiles : pandas.DataFrame
        The latent label model of each annotator (``annotator_id``, ``careless``,
        ``p_coarse``, ``p_sibling``, ``p_other``, ``p_random``; see the generator).
    confusable_pairs : tuple of (str, str)
        The sibling leaves that annotators intrinsically confuse.
    runs : dict of str to pandas.DataFrame
        One query-by-example run per system (``"strong"``, ``"medium"``, ``"weak"``), each a
        DataFrame with columns ``query_id``, ``doc_id``, ``score`` and ``rank`` (1-based,
        score descending, 100 rows per query, scores distinct within a query).
    description : str
        What the data are and how they were made.

    Examples
    --------
    >>> data = image_collection()
    >>> data.annotations.n_items, data.annotations.n_annotators, len(data.taxonomy)
    (500, 10, 21)
    >>> sorted(data.runs)
    ['medium', 'strong', 'weak']
    >>> data.runs["strong"].columns.tolist()
    ['query_id', 'doc_id', 'score', 'rank']
    """

    taxonomy: Taxonomy
    annotations: Annotations
    membership: Membership
    truth: pd.Series
    annotator_profiles: pd.DataFrame
    confusable_pairs: tuple[tuple[str, str], ...]
    runs: dict[str, pd.DataFrame]
    description: str

    def __repr__(self) -> str:
        return (
            f"ImageCollection(SIMULATED; {self.annotations!r}, {self.taxonomy!r}, runs "
            f"{', '.join(self.runs)})"
        )

    def run_objects(self) -> dict[str, Run]:
        """The runs as :class:`fuzzytruth.runs.Run` objects, named after their system.

        Returns
        -------
        dict of str to Run

        Examples
        --------
        >>> runs = image_collection().run_objects()
        >>> runs["weak"].name, len(runs["weak"].queries)
        ('weak', 100)
        """
        from fuzzytruth.runs import Run

        return {
            system: Run.from_dataframe(frame, name=system) for system, frame in self.runs.items()
        }


def _resource(name: str) -> Traversable:
    return resources.files("fuzzytruth.datasets").joinpath("data", name)


def _csv(name: str) -> pd.DataFrame:
    with _resource(name).open() as handle:
        return pd.read_csv(handle, comment="#")


def _trec_run(name: str) -> pd.DataFrame:
    with _resource(name).open() as handle:
        frame = pd.read_csv(
            handle,
            sep=" ",
            header=None,
            names=_TREC_COLUMNS,
            dtype={"query_id": str, "q0": str, "doc_id": str, "rank": "int64", "tag": str},
        )
    return frame[["query_id", "doc_id", "score", "rank"]]


def image_collection() -> ImageCollection:
    """Load the bundled SIMULATED image collection (500 items, 10 annotators, 3 runs).

    Every number in it was drawn by
    :func:`fuzzytruth.datasets.generate_image_collection.simulate_image_collection` (seed
    ``SEED``); see that module for the generative model. Two annotators (``a03``, ``a08``) are
    careless, and three pairs of sibling leaves are intrinsically confusable, so that agreement
    and reliability analyses have something to find. The three runs answer 100 query items
    (query by example, the query itself excluded) with the top 100 of the other 499 items.

    Returns
    -------
    ImageCollection

    Examples
    --------
    >>> data = image_collection()
    >>> data.truth["img0001"], data.membership.probability("img0001", "scenery")
    ('forest', 1.0)
    >>> data.annotator_profiles.query("careless")["annotator_id"].tolist()
    ['a03', 'a08']
    >>> data.runs["strong"].head(2)
      query_id   doc_id     score  rank
    0  img0002  img0075  0.871927     1
    1  img0002  img0324  0.854709     2
    """
    # imported here, not at module level, so that importing fuzzytruth.datasets leaves the
    # generator out of sys.modules and `python -m ...generate_image_collection` runs it once
    from fuzzytruth.datasets.generate_image_collection import (
        AMBIGUITY,
        CONFUSABLE_PAIRS,
        SEED,
        SYSTEM_NOISE,
    )

    taxonomy = Taxonomy.from_frame(_csv("image_collection_taxonomy.csv"))
    annotations = Annotations.from_frame(
        _csv("image_collection_annotations.csv"), taxonomy=taxonomy
    )
    truth = _csv("image_collection_truth.csv").set_index("item_id")["true_label"]
    profiles = _csv("image_collection_annotators.csv")
    careless = profiles.loc[profiles["careless"], "annotator_id"].tolist()
    per_item = annotations.to_frame().groupby("item_id").size()
    runs = {system: _trec_run(f"image_collection_run_{system}.txt") for system in SYSTEM_NOISE}
    n_queries = runs["strong"]["query_id"].nunique()
    depth = len(runs["strong"]) // n_queries
    pairs = ", ".join(f"{a}/{b}" for a, b in CONFUSABLE_PAIRS)
    description = (
        f"SIMULATED image collection (fuzzytruth.datasets.generate_image_collection, "
        f"seed {SEED}). {annotations.n_items} items, each with a latent true leaf of a "
        f"{len(taxonomy)}-node taxonomy ({taxonomy.root} -> "
        f"{', '.join(map(str, taxonomy.children(taxonomy.root)))} -> "
        f"{len(taxonomy.leaves)} leaves). {len(annotations.to_frame())} labels from "
        f"{annotations.n_annotators} annotators ({per_item.min()}-{per_item.max()} per item); "
        "annotators usually give the true leaf, sometimes its parent (coarser), a sibling, "
        f"rarely another branch; {len(careless)} of them ({', '.join(careless)}) are "
        "careless and often label at random. Confusable siblings "
        f"({pairs}) send {AMBIGUITY:.0%} of their labels to the partner. Runs: {', '.join(runs)} "
        f"(decreasing quality), query by example, {n_queries} queries, top {depth} of the "
        "other items by cosine similarity of noisy latent features. The latent truth is in "
        "`truth` and `annotator_profiles`."
    )
    return ImageCollection(
        taxonomy=taxonomy,
        annotations=annotations,
        membership=Membership.from_annotations(annotations),
        truth=truth,
        annotator_profiles=profiles,
        confusable_pairs=CONFUSABLE_PAIRS,
        runs=runs,
        description=description,
    )
