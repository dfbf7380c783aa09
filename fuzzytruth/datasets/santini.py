"""Santini's worked example (§4) and a constructed collection around it."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import pandas as pd

from fuzzytruth.annotations import Annotations
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.truth.membership import Membership

__all__ = [
    "SANTINI_FIGURE1_PUBLISHED",
    "SantiniExample",
    "santini_figure1",
    "santini_illustrative",
    "santini_taxonomy",
]

#: p(ω | Figure 1 image) as printed in Santini, "Benchmarking without ground truth", §4.
SANTINI_FIGURE1_PUBLISHED = {
    "all": 1.0,
    "people": 0.6,
    "scenery": 0.4,
    "single": 0.0,
    "group": 0.0,
    "crowd": 0.2,
    "city": 0.4,
    "countryside": 0.0,
}


@dataclass(frozen=True)
class SantiniExample:
    """A taxonomy, annotations, the membership they give, and an example result list.

    Attributes
    ----------
    taxonomy : Taxonomy
    annotations : Annotations
    membership : Membership
    query : str
        The query item of the example result list.
    results : tuple of str
        A ranked list returned for ``query`` (constructed; the paper gives none).
    constructed : bool
        True when the labels (beyond Figure 1's) were written for fuzzytruth, not published.
    """

    taxonomy: Taxonomy
    annotations: Annotations
    membership: Membership
    query: str
    results: tuple[str, ...]
    constructed: bool


def _data(name: str) -> pd.DataFrame:
    with resources.files("fuzzytruth.datasets").joinpath("data", name).open() as handle:
        return pd.read_csv(handle, comment="#")


def santini_taxonomy() -> Taxonomy:
    """all → {people → {single, group, crowd}, scenery → {city, countryside}} (Santini §4).

    >>> santini_taxonomy().children("people")
    ('single', 'group', 'crowd')
    """
    return Taxonomy.from_frame(_data("santini_taxonomy.csv"))


def santini_figure1() -> SantiniExample:
    """The one published labelling: Figure 1's image (id ``"fig1"``), 5 subjects, labelled
    people ×2, crowd ×1, city ×2.

    >>> santini_figure1().membership.probability("fig1", "crowd")
    0.2
    """
    tax = santini_taxonomy()
    frame = pd.DataFrame(
        {
            "item_id": "fig1",
            "annotator_id": [f"s{i}" for i in range(1, 6)],
            "label": ["people", "people", "crowd", "city", "city"],
        }
    )
    ann = Annotations.from_frame(frame, taxonomy=tax)
    return SantiniExample(tax, ann, Membership.from_annotations(ann), "fig1", ("fig1",), False)


def santini_illustrative() -> SantiniExample:
    """A CONSTRUCTED 20-image, 5-subject collection on Santini's taxonomy.

    The paper used 20 images and 5 subjects but published only Figure 1's labels, which are
    item ``img01`` here; the other 19 items were labelled by hand for fuzzytruth to illustrate
    the method. ``results`` is a constructed 10-item answer to the query ``img01``.

    >>> ex = santini_illustrative()
    >>> ex.constructed, ex.annotations.n_items, ex.annotations.n_annotators
    (True, 20, 5)
    """
    tax = santini_taxonomy()
    ann = Annotations.from_frame(_data("santini_illustrative.csv"), taxonomy=tax)
    results = (
        "img11",
        "img18",
        "img04",
        "img08",
        "img15",
        "img03",
        "img16",
        "img05",
        "img10",
        "img20",
    )
    return SantiniExample(tax, ann, Membership.from_annotations(ann), "img01", results, True)
