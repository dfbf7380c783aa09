"""The cross-modal family FirstRelRank: the rank of the first relevant item, whose median and
mean are the community's medr and meanr; kernel in :mod:`fuzzytruth.metrics.crossmodal`."""

from __future__ import annotations

from fuzzytruth.measures.builtin.ranking import REL
from fuzzytruth.measures.registry import register
from fuzzytruth.metrics.crossmodal import first_relevant_rank

register(
    "FirstRelRank", first_relevant_rank, params=(REL,), tie_averaged=True,
    higher_is_better=False,
    description=(
        "1-based rank of the first relevant item (image-text retrieval's rank: medr and meanr "
        "are its median and mean); the list length + 1 when none is retrieved"
    ),
)
