"""Small bundled example data and its loaders.

* :func:`santini_figure1`, :func:`santini_illustrative`: Santini's worked example (§4) and a
  constructed 20-image collection around it;
* :func:`fleiss_1971`: Fleiss's (1971) psychiatric diagnoses, 30 patients × 6 ratings, a real
  public multi-annotator table;
* :func:`image_collection`: a simulated, seeded multi-annotator image collection (500 items,
  a 3-level taxonomy) with three system runs of different quality;
* :func:`imagenet_real`: ImageNet ReaL's raw votes (Beyer et al. 2020, Apache-2.0): 924,810
  no/maybe/yes answers by 85 raters, with experts' golden answers;
* :func:`dermatology`: dermatologists' partial rankings with ties of 419 skin conditions for
  1,947 cases, with a low/medium/high risk taxonomy (Stutz et al. 2023, CC BY 4.0).

Loaders of public collections read from a path the user gives (nothing is downloaded):
:func:`read_imagenet_real` (ReaL's ``.npz`` files), :func:`read_cifar10h_counts` and
:func:`read_cifar10h_raw` (CIFAR-10H, CC BY-NC-SA, hence not bundled), and
:func:`read_crowd_relevance` (one row per worker judgment -> probabilistic qrels).
"""

from fuzzytruth.datasets.dermatology import RISK_LEVELS, Dermatology, dermatology
from fuzzytruth.datasets.fleiss import FLEISS_1971_CATEGORIES, Fleiss1971, fleiss_1971
from fuzzytruth.datasets.image_collection import ImageCollection, image_collection
from fuzzytruth.datasets.imagenet_real import ImageNetReal, imagenet_real, read_imagenet_real
from fuzzytruth.datasets.public import (
    CIFAR10_CLASSES,
    CIFAR10H,
    CrowdRelevance,
    cifar10h_taxonomy,
    read_cifar10h_counts,
    read_cifar10h_raw,
    read_crowd_relevance,
)
from fuzzytruth.datasets.santini import (
    SANTINI_FIGURE1_PUBLISHED,
    SantiniExample,
    santini_figure1,
    santini_illustrative,
    santini_taxonomy,
)

__all__ = [
    "CIFAR10H",
    "CIFAR10_CLASSES",
    "FLEISS_1971_CATEGORIES",
    "RISK_LEVELS",
    "SANTINI_FIGURE1_PUBLISHED",
    "CrowdRelevance",
    "Dermatology",
    "Fleiss1971",
    "ImageCollection",
    "ImageNetReal",
    "SantiniExample",
    "cifar10h_taxonomy",
    "dermatology",
    "fleiss_1971",
    "image_collection",
    "imagenet_real",
    "read_cifar10h_counts",
    "read_cifar10h_raw",
    "read_crowd_relevance",
    "read_imagenet_real",
    "santini_figure1",
    "santini_illustrative",
    "santini_taxonomy",
]
