"""Small bundled example data and its loaders.

* :func:`santini_figure1`, :func:`santini_illustrative`: Santini's worked example (§4) and a
  constructed 20-image collection around it;
* :func:`fleiss_1971`: Fleiss's (1971) psychiatric diagnoses, 30 patients × 6 ratings, a real
  public multi-annotator table;
* :func:`image_collection`: a simulated, seeded multi-annotator image collection (500 items,
  a 3-level taxonomy) with three system runs of different quality.
"""

from fuzzytruth.datasets.fleiss import FLEISS_1971_CATEGORIES, Fleiss1971, fleiss_1971
from fuzzytruth.datasets.image_collection import ImageCollection, image_collection
from fuzzytruth.datasets.santini import (
    SANTINI_FIGURE1_PUBLISHED,
    SantiniExample,
    santini_figure1,
    santini_illustrative,
    santini_taxonomy,
)

__all__ = [
    "FLEISS_1971_CATEGORIES",
    "SANTINI_FIGURE1_PUBLISHED",
    "Fleiss1971",
    "ImageCollection",
    "SantiniExample",
    "fleiss_1971",
    "image_collection",
    "santini_figure1",
    "santini_illustrative",
    "santini_taxonomy",
]
