"""Small bundled example data and its loaders."""

from fuzzytruth.datasets.santini import (
    SANTINI_FIGURE1_PUBLISHED,
    SantiniExample,
    santini_figure1,
    santini_illustrative,
    santini_taxonomy,
)

__all__ = [
    "SANTINI_FIGURE1_PUBLISHED",
    "SantiniExample",
    "santini_figure1",
    "santini_illustrative",
    "santini_taxonomy",
]
