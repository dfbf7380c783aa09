"""ImageNet ReaL's raw rater votes (Beyer et al. 2020), bundled: real people, real disagreement.

For 184,962 questions "does ImageNet class c fit validation image i?", five of 85 paid raters
each answered no, maybe or yes (924,810 votes). On 1,135 golden questions, 5 experts (the
paper's authors) answered too, and 78 of the raters answered every golden question, so each
rater's accuracy against the experts is known: the data to check whether agreement-based
annotator scores find the careless raters.

Data: https://github.com/google-research/reassessed-imagenet, Apache License 2.0; L. Beyer,
O. J. Hénaff, A. Kolesnikov, X. Zhai, A. van den Oord (2020), "Are we done with ImageNet?",
arXiv:2006.07159. Converted by :mod:`fuzzytruth.datasets.convert_real`, which documents the
published format and the tables.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources

import numpy as np
import pandas as pd

from fuzzytruth.annotations import Annotations
from fuzzytruth.taxonomy import Taxonomy

# The converter's names are imported inside the functions, not here, so that importing
# fuzzytruth.datasets leaves it out of sys.modules and `python -m ...convert_real` runs it once.

__all__ = ["ImageNetReal", "imagenet_real", "read_imagenet_real"]

CITATION = (
    "L. Beyer, O. J. Hénaff, A. Kolesnikov, X. Zhai, A. van den Oord (2020), 'Are we done with "
    "ImageNet?', arXiv:2006.07159; data: github.com/google-research/reassessed-imagenet "
    "(Apache-2.0)"
)


@dataclass(frozen=True, eq=False)
class ImageNetReal:
    """ImageNet ReaL's raters' votes, the golden questions and the experts' answers.

    Attributes
    ----------
    taxonomy : Taxonomy
        Flat: the answers ``no``, ``maybe``, ``yes`` (:meth:`Taxonomy.flat`).
    annotations : Annotations
        The 924,810 votes: ``item_id`` is the question id (int), ``annotator_id`` the rater id
        (int), ``label`` the answer. Five raters per question.
    questions : pandas.DataFrame
        ``question_id, image, class_id, golden``: the validation image
        ``ILSVRC2012_val_<image>.JPEG``, the ImageNet class index asked about, and whether it
        is a golden question.
    golden_annotations : Annotations
        Every rater's answers to the golden questions (a separate session from
        ``annotations``; 78 raters × 1,135 questions).
    expert_answers : pandas.DataFrame
        ``question_id, expert_id, answer`` of the 5 experts on the golden questions.
    description : str
        What the data are, and the citation.
    """

    taxonomy: Taxonomy
    annotations: Annotations
    questions: pd.DataFrame
    golden_annotations: Annotations
    expert_answers: pd.DataFrame
    description: str

    def __repr__(self) -> str:
        return (
            f"ImageNetReal({len(self.annotations.to_frame())} votes on "
            f"{self.annotations.n_items} questions by {self.annotations.n_annotators} raters; "
            f"{int(self.questions['golden'].sum())} golden questions)"
        )

    def golden_answers(self) -> pd.Series:
        """The experts' answer to each golden question: the majority of the 5 (the experts
        answered only no or yes, so there is no tie), indexed by ``question_id``."""
        votes = self.expert_answers
        counts = pd.crosstab(votes["question_id"], votes["answer"])
        return counts.idxmax(axis=1).rename("golden_answer")

    def golden_accuracy(self) -> pd.DataFrame:
        """Per rater, the share of golden questions answered as the experts' majority.

        Returns
        -------
        pandas.DataFrame
            ``annotator_id, n_golden, golden_accuracy``, sorted by ``annotator_id``.

        Examples
        --------
        >>> acc = imagenet_real().golden_accuracy()
        >>> len(acc), round(float(acc["golden_accuracy"].min()), 3)
        (78, 0.214)
        """
        votes = self.golden_annotations.to_frame()
        golden = self.golden_answers()
        correct = votes["label"].to_numpy() == golden.loc[votes["item_id"]].to_numpy()
        table = (
            pd.DataFrame({"annotator_id": votes["annotator_id"], "correct": correct})
            .groupby("annotator_id")["correct"]
            .agg(n_golden="size", golden_accuracy="mean")
            .reset_index()
        )
        return table


def _annotations(votes: pd.DataFrame, taxonomy: Taxonomy) -> Annotations:
    from fuzzytruth.datasets.convert_real import ANSWERS

    frame = pd.DataFrame(
        {
            "item_id": votes["question_id"].to_numpy(),
            "annotator_id": votes["rater_id"].to_numpy(),
            "label": pd.Categorical.from_codes(votes["answer"].to_numpy(), categories=ANSWERS),
        }
    )
    return Annotations.from_frame(frame, taxonomy=taxonomy)


def _from_tables(tables: dict[str, pd.DataFrame], source: str) -> ImageNetReal:
    from fuzzytruth.datasets.convert_real import ANSWERS

    taxonomy = Taxonomy.flat(ANSWERS)
    annotations = _annotations(tables["votes"], taxonomy)
    experts = tables["expert_votes"].rename(columns={"rater_id": "expert_id"})
    experts = experts.assign(answer=np.asarray(ANSWERS, dtype=object)[experts["answer"]])
    description = (
        f"ImageNet ReaL raw votes ({source}): {len(tables['votes'])} answers (no/maybe/yes) "
        f"by {annotations.n_annotators} raters to {annotations.n_items} questions 'does class "
        "c fit validation image i?', 5 raters per question; "
        f"{int(tables['questions']['golden'].sum())} golden questions answered by 5 experts "
        f"and by {tables['golden_votes']['rater_id'].nunique()} raters. {CITATION}."
    )
    return ImageNetReal(
        taxonomy=taxonomy,
        annotations=annotations,
        questions=tables["questions"],
        golden_annotations=_annotations(tables["golden_votes"], taxonomy),
        expert_answers=experts,
        description=description,
    )


def imagenet_real() -> ImageNetReal:
    """Load the bundled ImageNet ReaL votes (the whole raw data, 3.2 MB of Parquet).

    Returns
    -------
    ImageNetReal

    Examples
    --------
    >>> data = imagenet_real()
    >>> data
    ImageNetReal(924810 votes on 184962 questions by 85 raters; 1135 golden questions)
    >>> data.annotations.to_frame()["label"].value_counts().to_dict()
    {'no': 729424, 'yes': 116444, 'maybe': 78942}
    """
    from fuzzytruth.datasets.convert_real import TABLES

    folder = resources.files("fuzzytruth.datasets").joinpath("data")
    tables = {}
    for name in ("questions", *TABLES):
        with folder.joinpath(f"real_{name}.parquet").open("rb") as handle:
            tables[name] = pd.read_parquet(handle)
    return _from_tables(tables, "bundled copy")


def read_imagenet_real(folder: str | os.PathLike) -> ImageNetReal:
    """Read ImageNet ReaL from the published ``raters.npz``, ``golden.npz`` and
    ``raters_golden.npz`` in ``folder`` (a clone of google-research/reassessed-imagenet).

    Use it on a newer release than the bundled copy; nothing is downloaded.

    Returns
    -------
    ImageNetReal
    """
    from fuzzytruth.datasets.convert_real import read_real_npz

    return _from_tables(read_real_npz(folder), os.fspath(folder))
