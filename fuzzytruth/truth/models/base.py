"""What every fitted truth model gives: a posterior, a keyed world sampler, diagnostics.

A truth model is configured, then ``fit(annotations)`` returns a frozen result object (in the
style of scipy's results) with:

``posterior`` / ``classes``
    p(class | item) over the labels the model reasons about (``classes``, nodes of the
    taxonomy), one row per item (``items``), rows summing to 1;
``membership``
    the same posterior as a :class:`~fuzzytruth.truth.membership.Membership`: each class's mass is
    closed over its ancestors, exactly as annotator shares are (Santini eq. 6–8), so a label
    model's truth feeds everything a membership feeds;
``sample_plausibilities(worlds, seed=...)`` / ``sample_labels(worlds, seed=...)``
    plausible truths that carry the model's own uncertainty: per world, an items × classes
    plausibility matrix (for soft measures) or one class per item (for retrieval measures);
``name``, ``settings``, ``convergence``
    what was fitted, with which settings, and how the fit ended.

A fit is a ground truth (:class:`fuzzytruth.truth.protocol.Truth`): categorical, shared by every
query (``per_query`` False), it binds to the categorical truth of its :attr:`membership`
whose worlds draw their labels with :meth:`sample_labels` (the ``"annotator"`` world model), and
it names itself beside the estimand of every output. So ``evaluate(runs, DawidSkene().fit(a),
...)``, ``compare()``, the P-R bands and the Dask back end take it where they take a
:class:`~fuzzytruth.truth.membership.Membership`.

Exact forms or worlds. The exact closed forms of :func:`fuzzytruth.evaluate` assume that, for a
fixed target, the items are independent with P(item ∈ ω) = p(ω | item). That holds when each
world's labels are independent draws from the posterior (:attr:`independent_items`: shares,
IRN, PrIRN, Dawid–Skene and kin with ``uncertainty="posterior"``); there the per-query
distributions are exact and the worlds add the joint law across queries (the spread of a
system's mean over the truth). Under parameter draws (Dawid–Skene, one-coin and MACE by default)
the items of a world share the drawn parameters: they are dependent, and an item's marginal is
the posterior averaged over the parameters, not the fitted posterior, so every measure is
computed from the worlds (``method="auto"``; ``"exact"`` is refused). What each output then
means: a query's distribution and mean are over the model's worlds (its own uncertainty
included); a system's value is the mean of those; ``truth_std`` and the interval over truths are
the spread of the system's mean over the joint worlds (items and queries sharing parameters).
Evidence (``benchmarks/truth_exact_vs_worlds.py``, 4,000 worlds; the bundled image collection,
100 queries, 3 systems, and a simulated sparse collection, 120 items, 8 annotators, 3 labels per
item, 30 queries): the exact forms on the plug-in posterior and the parameter worlds differ by
more than 3 Monte Carlo standard errors on 15–35 % of the (system, query) pairs for P@10 and RR
(at most 0.04–0.06; the plug-in worlds, a control, on none), system means by 0.0001–0.0025
(1–8 MC SE), and the spread of the system means over the truth is 0.3–33 % wider under parameter
draws.

Keyed draws
-----------
Every random number of a world comes from :mod:`fuzzytruth._random`: it is a function
of the seed, of what is drawn (a stream), of a unit key (an item's id, or an annotator's id and
a class) and of the world's number, and of nothing else. A world is therefore the same whatever
block of worlds it is computed in, whatever the order of the items, and whatever else is drawn
with it. Blocks of worlds are sized from a memory budget
(:data:`fuzzytruth._resampling.MEMORY_BUDGET`).

Crisp labels are drawn from each world's plausibility row by inverse CDF on the keyed uniform of
(item, world) in stream :data:`LABEL_STREAM`, the stream of today's annotator worlds
(:func:`fuzzytruth.truth.categorical_worlds.sample_labels`), so the shares model reproduces them
bit for bit. When the plausibilities of a world do not depend on the world (a point posterior),
one crisp label per item per world is simply a draw from the posterior; what a model's own
sampler adds (parameter draws, Dirichlet plausibilities) changes the *joint* law of the worlds —
labels of different items drawn under the same drawn parameters are dependent — and the spread
of soft measures, never the marginal p(class | item) of a single crisp label under a point
posterior.
Each model's docstring says what its sampler draws.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from fuzzytruth._frozen import ReadOnlyArrays
from fuzzytruth._order import name_order
from fuzzytruth._random import categorical_draws, draw_seed, unit_keys
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows
from fuzzytruth._validation import check_choice, check_n_worlds
from fuzzytruth._warnings import warn
from fuzzytruth.annotations import Annotations, labels_hint
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.truth.categorical import CategoricalTruth
from fuzzytruth.truth.membership import Membership
from fuzzytruth.truth.protocol import TruthKind, TruthOptions

__all__ = [
    "LABEL_STREAM",
    "AnonymousReadersWarning",
    "Convergence",
    "FittedTruth",
    "NonConvergenceWarning",
    "as_seed",
    "as_worlds",
]

LABEL_STREAM = 1
"""Keyed stream of the crisp label draws (the stream of the annotator worlds)."""


class AnonymousReadersWarning(UserWarning):
    """An annotator model fitted to rankings whose reader ids are positions, not people."""


class NonConvergenceWarning(UserWarning):
    """An iterative fit stopped at its iteration limit before meeting its tolerance."""


@dataclass(frozen=True)
class Convergence:
    """How an iterative fit ended.

    Attributes
    ----------
    iterations : int
        Iterations run (E-step + M-step pairs for EM); 0 for a closed-form model.
    last_change : float
        The stopping quantity at the last iteration (each model names it); 0.0 for a
        closed-form model.
    converged : bool
        True when ``last_change <= tol`` (always True for a closed-form model).
    tol : float
        The tolerance the fit was run with (0.0 for a closed-form model).
    criterion : str
        What ``last_change`` measures.
    """

    iterations: int
    last_change: float
    converged: bool
    tol: float = 0.0
    criterion: str = "closed form"


CLOSED_FORM = Convergence(iterations=0, last_change=0.0, converged=True)


def as_seed(seed: int | np.random.Generator | None) -> int:
    """The seed of the keyed draws: an int is used as given; a Generator (or None, fresh
    entropy) gives one through :func:`fuzzytruth._random.draw_seed`."""
    if isinstance(seed, bool):
        raise ValueError(f"seed must be an int or a numpy Generator; got {seed!r}")
    if isinstance(seed, int | np.integer):
        if not 0 <= seed < 2**64:  # the keyed draws hold it as a uint64
            raise ValueError(f"seed must be a non-negative int below 2**64; got {seed!r}")
        return int(seed)
    if seed is None or isinstance(seed, np.random.Generator):
        return draw_seed(seed)
    raise ValueError(f"seed must be an int, a numpy Generator or None; got {seed!r}")


def as_worlds(worlds: int | np.ndarray | range, bytes_per_world: float) -> np.ndarray:
    """World numbers: ``n`` means ``0 .. n-1``; an array of non-negative ints is used as given.
    A count whose output (``bytes_per_world`` each) could not fit in memory is refused before
    anything is allocated (:func:`~fuzzytruth._validation.check_n_worlds`)."""
    if isinstance(worlds, bool):
        raise ValueError(f"worlds must be a count or an array of world numbers; got {worlds!r}")
    if isinstance(worlds, int | np.integer):
        count = check_n_worlds(int(worlds), minimum=1, bytes_per_world=bytes_per_world,
                               name="worlds")
        return np.arange(count, dtype=np.int64)
    arr = np.asarray(worlds)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer) or (arr < 0).any():
        raise ValueError(
            "worlds must be a positive count or a 1-d array of non-negative world numbers; "
            f"got {worlds!r}"
        )
    return arr.astype(np.int64)


@dataclass(frozen=True, eq=False, repr=False)
class FittedTruth(ReadOnlyArrays):
    """A fitted truth model: posterior, membership, keyed worlds and diagnostics.

    Attributes
    ----------
    name : str
        The model's name (``"shares"``, ``"dawid-skene"``, ...), as outputs will print it.
    settings : Mapping[str, Any]
        The settings it was fitted with.
    taxonomy : Taxonomy
        The taxonomy of the annotations.
    items : pandas.Index
        Item ids, the row order of :attr:`posterior`.
    classes : tuple
        The taxonomy nodes the posterior is over, its column order.
    posterior : numpy.ndarray
        ``(n_items, n_classes)`` p(class | item); rows sum to 1. Read-only.
    convergence : Convergence
        Iterations, last change and whether the tolerance was met.
    """

    name: str
    settings: Mapping[str, Any]
    taxonomy: Taxonomy
    items: pd.Index
    classes: tuple[Hashable, ...]
    posterior: np.ndarray
    convergence: Convergence = field(default=CLOSED_FORM)

    #: True when every world's plausibilities are the posterior itself (no own sampler).
    _point_posterior: ClassVar[bool] = True
    #: True when crisp labels may be drawn from the posterior whatever the world's
    #: plausibilities (items independent, the posterior their mean): same law, less work.
    _labels_from_mean: ClassVar[bool] = False

    def __post_init__(self) -> None:
        self.posterior.flags.writeable = False

    # ------------------------------------------------------------------ the truth protocol
    truth_kind: ClassVar[TruthKind] = TruthKind.CATEGORICAL
    per_query: ClassVar[bool] = False  # every query's category is judged against all the items

    def bind(self, options: TruthOptions) -> CategoricalTruth:
        """The categorical truth of :attr:`membership` under the evaluation's options, its
        worlds drawn by :meth:`sample_labels` (:mod:`fuzzytruth.truth.protocol`)."""
        return CategoricalTruth(self.membership, options, model=self)

    @property
    def independent_items(self) -> bool:
        """True when each world's crisp labels are independent draws from :attr:`posterior`
        (a point posterior, or PrIRN's labels); False under parameter draws, which make the
        items of a world dependent (see the module docstring)."""
        return bool(self._point_posterior or self._labels_from_mean)

    @cached_property
    def membership(self) -> Membership:
        """p(node | item) for every taxonomy node: the posterior closed over ancestors."""
        table = pd.DataFrame(self.posterior, index=self.items, columns=list(self.classes))
        return Membership.from_probabilities(table, taxonomy=self.taxonomy, close=True)

    @cached_property
    def item_keys(self) -> np.ndarray:
        """uint64 keys of the item ids (:func:`fuzzytruth._random.unit_keys`)."""
        return unit_keys(np.asarray(self.items, dtype=object))

    def posterior_frame(self) -> pd.DataFrame:
        """The posterior as a table: index ``item_id``, one column per class."""
        return pd.DataFrame(
            self.posterior,
            index=self.items,
            columns=pd.Index(list(self.classes), name="class"),
        )

    def most_probable(self) -> pd.Series:
        """Each item's most probable class (the first one on ties), indexed by item."""
        pick = np.asarray(self.classes, dtype=object)[self.posterior.argmax(axis=1)]
        return pd.Series(pick, index=self.items, name="label")

    # ------------------------------------------------------------------ worlds
    def plausibility_blocks(
        self,
        worlds: int | np.ndarray,
        *,
        seed: int | np.random.Generator | None,
        memory_budget: float = MEMORY_BUDGET,
    ) -> Iterator[tuple[int, np.ndarray]]:
        """The plausibility matrices of the worlds, block by block: ``(start, block)`` pairs,
        ``block`` the ``(n, n_items, n_classes)`` matrices of worlds ``start .. start + n - 1``
        (of ``worlds``), each block sized from ``memory_budget`` bytes of working memory.

        What a consumer of every world's vectors reads (soft measures, rank-k certainty):
        the worlds are :meth:`sample_plausibilities`' (same seed, same numbers, whatever the
        blocks), without holding them all at once.

        Examples
        --------
        >>> from fuzzytruth.io.rankings import Rankings
        >>> from fuzzytruth.truth.models import PrIRN
        >>> r = Rankings.from_selectors([[[[0], [1]]], [[[2]]]], classes=["a", "b", "c"])
        >>> fit = PrIRN().fit(r)
        >>> blocks = list(fit.plausibility_blocks(5, seed=0, memory_budget=100))
        >>> [(start, block.shape) for start, block in blocks][:2]
        [(0, (1, 2, 3)), (1, (1, 2, 3))]
        >>> bool((np.concatenate([b for _, b in blocks]) == fit.sample_plausibilities(
        ...     5, seed=0)).all())
        True
        """
        worlds = as_worlds(worlds, 8.0)  # streamed by blocks: only the world numbers are kept
        key = as_seed(seed)
        step = block_rows(1, memory_budget, bytes_per_unit=self._bytes_per_world())
        for start in range(0, len(worlds), step):
            yield start, self._plausibility_block(key, worlds[start : start + step])

    def sample_plausibilities(
        self,
        worlds: int | np.ndarray,
        *,
        seed: int | np.random.Generator | None,
        memory_budget: float = MEMORY_BUDGET,
    ) -> np.ndarray:
        """Plausibility matrices of the worlds: ``(n_worlds, n_items, n_classes)``.

        Row ``[w, i]`` is a distribution over :attr:`classes`: the truth of item ``i`` in world
        ``w`` as the model's own uncertainty allows it (see the model's docstring). Its
        expectation over worlds is :attr:`posterior` for a point posterior and for PrIRN; under
        parameter draws (Dawid–Skene and kin) it is the posterior averaged over the drawn
        parameters, close to but not equal to the plug-in posterior. Computed in blocks of
        worlds sized from ``memory_budget`` bytes (:meth:`plausibility_blocks`, which gives
        them one block at a time); the returned array holds them all (8 bytes per world, item
        and class).

        Parameters
        ----------
        worlds : int or array of int
            A count ``n`` (worlds ``0 .. n-1``) or the world numbers to draw.
        seed : int, numpy.random.Generator or None
            The seed of the keyed draws (a Generator gives one; None: fresh entropy).
        memory_budget : float
            Working memory of one block of worlds, in bytes.
        """
        worlds = as_worlds(worlds, 8.0 + 8.0 * len(self.items) * len(self.classes))
        out = np.empty((len(worlds), len(self.items), len(self.classes)))
        for start, block in self.plausibility_blocks(worlds, seed=seed,
                                                     memory_budget=memory_budget):
            out[start : start + len(block)] = block
        return out

    def sample_labels(
        self,
        worlds: int | np.ndarray,
        *,
        seed: int | np.random.Generator | None,
        memory_budget: float = MEMORY_BUDGET,
        encoding: str = "node",
    ) -> np.ndarray:
        """One class per item per world: ``(n_worlds, n_items)`` node indices into
        ``taxonomy.nodes`` (the encoding of the annotator worlds), or positions in
        :attr:`classes` with ``encoding="class"``.

        Item ``i``'s label in world ``w`` is the inverse-CDF draw, on the keyed uniform of
        (``i``'s id, ``w``), from that world's plausibility row
        (:meth:`sample_plausibilities`, same seed), so labels and plausibilities describe the
        same worlds. (PrIRN draws them from its posterior mean instead: the same law, since
        its items are independent, at a fraction of the cost; see its docstring.)
        """
        worlds = as_worlds(worlds, 8.0 + 4.0 * len(self.items))  # numbers, int16/32 labels
        key = as_seed(seed)
        # independent draws read the cumulative posterior in place: a world costs its labels
        direct = self._point_posterior or self._labels_from_mean
        per_world = 16.0 * len(self.items) if direct else self._bytes_per_world()
        step = block_rows(1, memory_budget, bytes_per_unit=per_world)
        check_choice("encoding", encoding, ("node", "class"))
        columns = (self.taxonomy.indices(self.classes) if encoding == "node"
                   else np.arange(len(self.classes)))
        dtype = np.int16 if len(self.taxonomy) < 2**15 else np.int32
        out = np.empty((len(worlds), len(self.items)), dtype=dtype)
        for start in range(0, len(worlds), step):
            block = worlds[start : start + step]
            out[start : start + len(block)] = self._label_block(key, block,
                                                                columns.astype(dtype))
        return out

    # ------------------------------------------------------------------ model hooks
    def _bytes_per_world(self) -> float:
        """Working memory of one world of :meth:`_plausibility_block`, in bytes."""
        return 3.0 * 8 * len(self.items) * len(self.classes)

    def _plausibility_block(self, seed: int, worlds: np.ndarray) -> np.ndarray:
        """``(n_worlds, n_items, n_classes)`` plausibilities; a point posterior by default."""
        return np.broadcast_to(self.posterior, (len(worlds), *self.posterior.shape))

    def _label_block(self, seed: int, worlds: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``(n_worlds, n_items)`` ``values`` of the classes drawn (one per class position),
        from the block's plausibilities with the classes walked in name order (as the
        annotator worlds walk the nodes, :func:`~fuzzytruth._order.name_order`: the same
        seed, the same labels, whatever the taxonomy's order)."""
        order = self._name_order
        law = (self.posterior if self._point_posterior or self._labels_from_mean
               else self._plausibility_block(seed, worlds))  # one table per world
        return categorical_draws(seed, LABEL_STREAM, self.item_keys, law, worlds, order=order,
                                 values=values[order]).T

    @cached_property
    def _name_order(self) -> np.ndarray:
        """Class positions sorted by class name."""
        return name_order(self.classes)

    def __repr__(self) -> str:
        state = "converged" if self.convergence.converged else "NOT converged"
        return (
            f"{type(self).__name__}({self.name!r}, {len(self.items)} items × "
            f"{len(self.classes)} classes, {state} after {self.convergence.iterations} "
            "iterations)"
        )


def as_annotations(data: Any, *, model: str | None = None) -> Annotations:
    """Annotations as given, or the annotations of partial rankings (each reader's top
    group; :meth:`fuzzytruth.io.rankings.Rankings.annotations`).

    ``model`` names a model that estimates each annotator: it is warned of rankings whose
    reader ids are positions within each item (selectors), which it would pool across items
    as if reader ``r`` were one person everywhere.
    """
    if isinstance(data, Annotations):
        return data
    from fuzzytruth.io.rankings import Rankings

    if isinstance(data, Rankings):
        if model is not None and data.anonymous_readers:
            warn(
                f"{model} estimates each annotator, but these rankings' reader ids are "
                "positions within each item (selectors name no readers): reader r of every "
                "item is taken for one annotator. Give rankings with reader ids (a long table "
                "item_id, reader_id, class, rank_group), or fit shares, irn or prirn",
                AnonymousReadersWarning,
            )
        return data.annotations()
    raise ValueError(
        f"annotations must be an Annotations (or Rankings); got {type(data).__name__}"
        f"{labels_hint(data)}"
    )


def used_classes(annotations: Annotations) -> tuple[np.ndarray, np.ndarray]:
    """The label columns actually used (taxonomy order) and each vote's position among them."""
    _, _, label, _ = annotations.codes()
    used = np.unique(label)
    return used, np.searchsorted(used, label)
