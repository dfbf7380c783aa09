"""The annotators' shares (Santini eq. 6–8): today's truth, as a truth model."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import ClassVar

from fuzzytruth.annotations import Annotations
from fuzzytruth.truth.membership import Membership
from fuzzytruth.truth.models.base import FittedTruth, as_annotations, used_classes

__all__ = ["Shares", "SharesFit"]


@dataclass(frozen=True)
class Shares:
    """Every annotator weighs the same (or by its annotator weight): p(label | item) is the
    share of the item's annotators who chose it.

    The membership is :meth:`Membership.from_annotations` itself, bit for bit; the posterior
    is its direct shares over the labels actually used. Worlds: each item gets the label of
    one of its annotators, drawn by share (the ``"annotator"`` world model of
    :mod:`fuzzytruth.truth.categorical_worlds`, with the same keyed draws, so the same seed
    gives the same labels). Plausibility worlds are the shares themselves: the model has no
    uncertainty of its own.

    Examples
    --------
    >>> import pandas as pd
    >>> from fuzzytruth import Annotations, Taxonomy
    >>> tax = Taxonomy.flat(["cat", "dog"])
    >>> df = pd.DataFrame({"item_id": ["x", "x", "x", "y"], "annotator_id": list("abca"),
    ...                    "label": ["cat", "cat", "dog", "dog"]})
    >>> fit = Shares().fit(Annotations.from_frame(df, taxonomy=tax))
    >>> fit.posterior_frame().round(3)
    class      cat    dog
    item_id
    x        0.667  0.333
    y        0.000  1.000
    >>> fit.sample_labels(3, seed=0).shape
    (3, 2)
    """

    name: ClassVar[str] = "shares"

    def fit(self, annotations: Annotations) -> SharesFit:
        """The shares of ``annotations`` (annotator weights applied)."""
        annotations = as_annotations(annotations)
        membership = Membership.from_annotations(annotations)
        used, _ = used_classes(annotations)
        tax = annotations.taxonomy
        fitted = SharesFit(
            name=self.name,
            settings=asdict(self),
            taxonomy=tax,
            items=annotations.items,
            classes=tuple(tax.nodes[c] for c in used),
            posterior=membership.direct[:, used].copy(),
        )
        fitted.__dict__["membership"] = membership  # the cached membership is the original
        return fitted


@dataclass(frozen=True, eq=False, repr=False)
class SharesFit(FittedTruth):
    """The fitted shares model (see :class:`Shares`); its :attr:`membership` is
    :meth:`Membership.from_annotations` of the annotations."""
