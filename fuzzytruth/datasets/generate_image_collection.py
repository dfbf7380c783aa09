"""Generate the bundled ``image_collection`` data set (a SIMULATED multi-annotator collection).

Run ``python -m fuzzytruth.datasets.generate_image_collection --out DIR`` to write the files
into the directory ``DIR`` (required: the bundled copies in ``fuzzytruth/datasets/data/`` are
never overwritten by default). The bundled files are read back by
:func:`fuzzytruth.datasets.image_collection`. Nothing in the data comes from real
images or real people: every number is drawn from the generative model below, with one
``numpy.random.default_rng(SEED)`` (``SEED`` = 20260607), so that the latent truth is known and
the methods of fuzzytruth can be checked against it.

Generative model
----------------
1. **Taxonomy** (:data:`TAXONOMY`): the root ``image`` and 4 top-level categories with 3–5
   leaves each, 21 nodes on 3 levels::

       image ─ people  ─ portrait, group, crowd
             ─ animals ─ dog, cat, bird, horse
             ─ scenery ─ city, village, beach, mountain, forest
             ─ objects ─ car, bicycle, furniture, food

2. **Latent truth.** Leaf prevalences π ~ Dirichlet(20, …, 20) over the 16 leaves (a mildly
   unbalanced collection); each of the :data:`N_ITEMS` = 500 items ``img0001``… draws its true
   leaf from π.

3. **Annotators.** A pool of 10 annotators ``a01``…``a10``. Each annotator *a* has a profile,
   drawn once: the probability ``p_coarse`` ~ U(0.04, 0.14) of stopping at the parent of the
   true leaf (a coarser, still correct label), ``p_sibling`` ~ U(0.03, 0.08) of choosing
   another leaf of the same branch (spread evenly over the siblings), and ``p_other`` ~
   U(0.005, 0.02) of choosing a leaf of another branch (spread evenly over those leaves). The
   two careless annotators :data:`CARELESS_ANNOTATORS` (``a03``, ``a08``) also have
   ``p_random`` ~ U(0.5, 0.7): with that probability they pick any non-root node uniformly at
   random, otherwise they behave like careful annotators; careful annotators have
   ``p_random`` = 0.

4. **Intrinsically confusable siblings** (:data:`CONFUSABLE_PAIRS`: group/crowd,
   city/village, mountain/forest). When the true leaf belongs to such a pair, every annotator
   moves an extra :data:`AMBIGUITY` = 0.30 of probability from the true leaf to its partner
   and an extra :data:`AMBIGUITY_COARSE` = 0.05 to the parent (hedging). These six categories
   therefore come out ambiguous: their annotators agree much less than on the other leaves.

5. **Labels.** Each item gets 5, 6 or 7 annotators (uniformly), a uniformly random subset of
   the pool, so items have different numbers of annotators and every annotator labels about
   300 items. Each annotator labels each of its items once, independently, from the
   distribution of points 3–4 given the item's true leaf. The root is never a label.

6. **Latent features** (dimension :data:`FEATURE_DIM` = 32). Each top-level category has a
   centre ~ N(0, I); each leaf a centre = its branch centre + N(0, 0.7² I), except the second
   leaf of a confusable pair, whose centre = its partner's centre + N(0, 0.45² I) (images that
   people confuse also look alike); each item a feature = its true leaf's centre +
   N(0, 0.6² I). So items of the same leaf are close, of the same branch at medium distance,
   and of other branches far.

7. **Systems** (:data:`SYSTEM_NOISE`): query-by-example retrieval. :data:`N_QUERIES` = 100
   query items are drawn uniformly without replacement (the run files list them in id
   order). A system sees every item through its own noisy embedding ``z = feature +
   N(0, τ² I)`` with τ = 0.35 (``strong``), 0.9 (``medium``) or 1.5 (``weak``); the noise of an
   item is the same for every query (a badly embedded image is badly placed for every query).
   The score of item *d* for query *q* is the cosine similarity of ``z_q`` and ``z_d``,
   rounded to 8 decimals. Each query's own item is excluded from its list, the other 499
   items are ranked by score and the top :data:`DEPTH` = 100 are written as a TREC run
   (``qid Q0 docno rank score tag``, tag = system name). Scores within a query are checked to
   be distinct both as written and in float32 (trec_eval's precision), so no tie policy
   changes any ranking; generation raises an error if a seed would produce a tie.

Random draws are made in the order of the points above (prevalences, true leaves, annotator
profiles, annotator subsets, label draws, feature centres and item features, queries, then
one embedding noise per system in the order strong, medium, weak), all from one generator.

Files written (all UTF-8, ``\\n`` line ends; the CSVs start with ``#`` comment lines, read
with ``pandas.read_csv(..., comment="#")``):

``image_collection_taxonomy.csv``      ``child,parent`` (the root's parent is empty)
``image_collection_annotations.csv``   ``item_id,annotator_id,label``
``image_collection_truth.csv``         ``item_id,true_label`` (the latent truth)
``image_collection_annotators.csv``    the latent annotator profiles of point 3
``image_collection_run_<system>.txt``  the TREC runs (about 0.4 MB each, not compressed)

Reproducibility: running the generator twice writes byte-identical files (a test regenerates
them and compares with the bundled ones). numpy documents that ``Generator`` streams may
change between numpy versions, and a different BLAS could move a cosine by one unit in the
last place and so, very rarely, the 8th decimal of a score; the bundled files are the
reference.
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fuzzytruth.datasets._commands import make_folder
from fuzzytruth.taxonomy import Taxonomy

__all__ = [
    "AMBIGUITY",
    "AMBIGUITY_COARSE",
    "ANNOTATORS_PER_ITEM",
    "ANNOTATOR_POOL",
    "CARELESS_ANNOTATORS",
    "CONFUSABLE_PAIRS",
    "DEPTH",
    "FEATURE_DIM",
    "N_ITEMS",
    "N_QUERIES",
    "SEED",
    "SYSTEM_NOISE",
    "TAXONOMY",
    "main",
    "simulate_image_collection",
    "write_image_collection",
]

#: Seed of the one random generator behind every bundled file.
SEED = 20260607
#: The category tree: root, 4 top-level categories, 16 leaves.
TAXONOMY = {
    "image": {
        "people": ["portrait", "group", "crowd"],
        "animals": ["dog", "cat", "bird", "horse"],
        "scenery": ["city", "village", "beach", "mountain", "forest"],
        "objects": ["car", "bicycle", "furniture", "food"],
    }
}
#: Sibling leaves that annotators (and systems) intrinsically confuse.
CONFUSABLE_PAIRS = (("group", "crowd"), ("city", "village"), ("mountain", "forest"))
#: Extra probability moved from a confusable true leaf to its partner, and to the parent.
AMBIGUITY = 0.30
AMBIGUITY_COARSE = 0.05
N_ITEMS = 500
N_QUERIES = 100
#: Length of each ranked list in the runs.
DEPTH = 100
ANNOTATOR_POOL = tuple(f"a{i:02d}" for i in range(1, 11))
CARELESS_ANNOTATORS = ("a03", "a08")
#: Possible numbers of annotators of an item (drawn uniformly).
ANNOTATORS_PER_ITEM = (5, 6, 7)
FEATURE_DIM = 32
#: Standard deviation of each system's embedding noise, best system first.
SYSTEM_NOISE = {"strong": 0.35, "medium": 0.9, "weak": 1.5}

_PREVALENCE_CONCENTRATION = 20.0
_PROFILE_RANGES = {
    "p_coarse": (0.04, 0.14),
    "p_sibling": (0.03, 0.08),
    "p_other": (0.005, 0.02),
    "p_random": (0.5, 0.7),  # careless annotators only
}
_BRANCH_SD, _LEAF_SD, _PARTNER_SD, _ITEM_SD = 1.0, 0.7, 0.45, 0.6
_SCORE_DECIMALS = 8
_HEADER = (
    "# SIMULATED data: fuzzytruth.datasets.generate_image_collection (seed={seed}).\n"
    "# Regenerate with: python -m fuzzytruth.datasets.generate_image_collection\n"
)


def simulate_image_collection(
    *,
    seed: int = SEED,
    n_items: int = N_ITEMS,
    n_queries: int = N_QUERIES,
    depth: int = DEPTH,
) -> dict[str, pd.DataFrame]:
    """Draw the whole collection from the generative model of this module.

    Parameters
    ----------
    seed : int, default SEED
        Seed of the one ``numpy.random.default_rng`` behind every draw.
    n_items : int, default 500
        Number of items (at least 2).
    n_queries : int, default 100
        Number of query items, at most ``n_items``.
    depth : int, default 100
        Length of each ranked list, at most ``n_items - 1`` (a query never retrieves itself).

    Returns
    -------
    dict of str to pandas.DataFrame
        Keyed by file name: ``image_collection_taxonomy.csv`` (``child``, ``parent``),
        ``image_collection_annotations.csv`` (``item_id``, ``annotator_id``, ``label``),
        ``image_collection_truth.csv`` (``item_id``, ``true_label``),
        ``image_collection_annotators.csv`` (``annotator_id``, ``careless``, ``p_coarse``,
        ``p_sibling``, ``p_other``, ``p_random``) and one
        ``image_collection_run_<system>.txt`` per system (``query_id``, ``doc_id``, ``rank``,
        ``score``, ``tag``).

    Raises
    ------
    ValueError
        When a size is out of range.
    RuntimeError
        When two documents of one query get the same written score (not the case for the
        default seed).

    Examples
    --------
    >>> data = simulate_image_collection(n_items=40, n_queries=3, depth=5)
    >>> data["image_collection_truth.csv"].shape
    (40, 2)
    >>> run = data["image_collection_run_strong.txt"]
    >>> run.shape, run["query_id"].nunique()
    ((15, 5), 3)
    """
    _check_size("n_items", n_items, 2, None)
    _check_size("n_queries", n_queries, 1, n_items)
    _check_size("depth", depth, 1, n_items - 1)
    rng = np.random.default_rng(seed)
    tax = Taxonomy.from_nested(TAXONOMY)
    leaves = list(tax.leaves)
    items = np.array([f"img{i:04d}" for i in range(1, n_items + 1)], dtype=object)

    prevalence = rng.dirichlet(np.full(len(leaves), _PREVALENCE_CONCENTRATION))
    truth = rng.choice(len(leaves), size=n_items, p=prevalence)
    profiles = _annotator_profiles(rng)
    annotations = _annotations(rng, tax, truth, profiles, items)
    features = _features(rng, tax, truth)
    queries = np.sort(rng.choice(n_items, size=n_queries, replace=False))

    frames = {
        "image_collection_taxonomy.csv": tax.to_frame(),
        "image_collection_annotations.csv": annotations,
        "image_collection_truth.csv": pd.DataFrame(
            {"item_id": items, "true_label": np.array(leaves, dtype=object)[truth]}
        ),
        "image_collection_annotators.csv": profiles,
    }
    for system, noise in SYSTEM_NOISE.items():
        embedding = features + noise * rng.standard_normal(features.shape)
        frames[f"image_collection_run_{system}.txt"] = _run(
            embedding, queries, items, depth, system
        )
    return frames


def _check_size(name: str, value: object, low: int, high: int | None) -> None:
    integer = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not integer or value < low or (high is not None and value > high):
        bound = f"an integer >= {low}" + ("" if high is None else f" and <= {high}")
        raise ValueError(f"{name} must be {bound}; got {value!r}")


def _annotator_profiles(rng: np.random.Generator) -> pd.DataFrame:
    n = len(ANNOTATOR_POOL)
    careless = np.isin(ANNOTATOR_POOL, CARELESS_ANNOTATORS)
    columns = {}
    for name, (low, high) in _PROFILE_RANGES.items():
        columns[name] = np.round(rng.uniform(low, high, size=n), 4)
    columns["p_random"] = np.where(careless, columns["p_random"], 0.0)
    return pd.DataFrame({"annotator_id": ANNOTATOR_POOL, "careless": careless, **columns})


def _label_probabilities(tax: Taxonomy, profiles: pd.DataFrame) -> np.ndarray:
    """``(n_annotators, n_leaves, n_nodes)``: p(label | annotator, true leaf)."""
    nodes = list(tax.nodes)
    leaves = list(tax.leaves)
    partner = {a: b for pair in CONFUSABLE_PAIRS for a, b in (pair, pair[::-1])}
    true_, parent, sibling, other, confused = (
        np.zeros((len(leaves), len(nodes))) for _ in range(5)
    )
    ambiguity = np.zeros(len(leaves))
    for t, leaf in enumerate(leaves):
        (branch,) = tax.parents(leaf)
        siblings = [s for s in tax.children(branch) if s != leaf]
        others = [x for x in leaves if tax.parents(x)[0] != branch]
        true_[t, tax.index(leaf)] = 1.0
        parent[t, tax.index(branch)] = 1.0
        sibling[t, tax.indices(siblings)] = 1.0 / len(siblings)
        other[t, tax.indices(others)] = 1.0 / len(others)
        if leaf in partner:
            confused[t, tax.index(partner[leaf])] = 1.0
            ambiguity[t] = 1.0
    uniform = np.ones(len(nodes)) / (len(nodes) - 1)
    uniform[tax.index(tax.root)] = 0.0

    def column(name: str) -> np.ndarray:
        return profiles[name].to_numpy()[:, None, None]

    coarse = column("p_coarse") + AMBIGUITY_COARSE * ambiguity[None, :, None]
    swap = AMBIGUITY * ambiguity[None, :, None]
    keep = 1.0 - coarse - swap - column("p_sibling") - column("p_other")
    careful = (
        keep * true_
        + coarse * parent
        + swap * confused
        + column("p_sibling") * sibling
        + column("p_other") * other
    )
    return (1.0 - column("p_random")) * careful + column("p_random") * uniform


def _annotations(
    rng: np.random.Generator,
    tax: Taxonomy,
    truth: np.ndarray,
    profiles: pd.DataFrame,
    items: np.ndarray,
) -> pd.DataFrame:
    n_items, pool = len(truth), len(ANNOTATOR_POOL)
    counts = rng.choice(ANNOTATORS_PER_ITEM, size=n_items)
    # a uniformly random subset of k annotators per item: the first k of a random permutation
    permutation = np.argsort(rng.random((n_items, pool)), axis=1)
    chosen = np.where(np.arange(pool)[None, :] < counts[:, None], permutation, pool)
    chosen = np.sort(chosen, axis=1)  # annotators of an item in id order, unused slots last
    item_idx, slot = np.nonzero(chosen < pool)
    annot_idx = chosen[item_idx, slot]
    probs = _label_probabilities(tax, profiles)[annot_idx, truth[item_idx]]
    cdf = np.cumsum(probs, axis=1)
    u = rng.random(len(item_idx)) * cdf[:, -1]
    # first node whose cumulative probability exceeds u: it has positive probability
    label = (cdf <= u[:, None]).sum(axis=1)
    return pd.DataFrame(
        {
            "item_id": items[item_idx],
            "annotator_id": np.array(ANNOTATOR_POOL, dtype=object)[annot_idx],
            "label": np.array(tax.nodes, dtype=object)[label],
        }
    )


def _features(rng: np.random.Generator, tax: Taxonomy, truth: np.ndarray) -> np.ndarray:
    branches = list(tax.children(tax.root))
    leaves = list(tax.leaves)
    branch_centre = _BRANCH_SD * rng.standard_normal((len(branches), FEATURE_DIM))
    leaf_offset = rng.standard_normal((len(leaves), FEATURE_DIM))
    leaf_centre = np.empty((len(leaves), FEATURE_DIM))
    for t, leaf in enumerate(leaves):
        leaf_centre[t] = branch_centre[branches.index(tax.parents(leaf)[0])]
        leaf_centre[t] += _LEAF_SD * leaf_offset[t]
    for first, second in CONFUSABLE_PAIRS:
        a, b = leaves.index(first), leaves.index(second)
        leaf_centre[b] = leaf_centre[a] + _PARTNER_SD * leaf_offset[b]
    return leaf_centre[truth] + _ITEM_SD * rng.standard_normal((len(truth), FEATURE_DIM))


def _run(
    embedding: np.ndarray, queries: np.ndarray, items: np.ndarray, depth: int, system: str
) -> pd.DataFrame:
    unit = embedding / np.linalg.norm(embedding, axis=1, keepdims=True)
    similarity = unit[queries] @ unit.T
    similarity[np.arange(len(queries)), queries] = -np.inf  # a query never retrieves itself
    order = np.argsort(-similarity, axis=1, kind="stable")[:, :depth]
    scores = np.round(np.take_along_axis(similarity, order, axis=1), _SCORE_DECIMALS)
    for values in (scores, scores.astype(np.float32)):
        tied = ~(np.diff(values, axis=1) < 0).all(axis=1)
        if tied.any():
            raise RuntimeError(
                f"system {system!r}: query {items[queries[tied][0]]!r} has two documents with "
                "the same written score; choose another seed"
            )
    n_queries = len(queries)
    return pd.DataFrame(
        {
            "query_id": np.repeat(items[queries], depth),
            "doc_id": items[order.ravel()],
            "rank": np.tile(np.arange(1, depth + 1), n_queries),
            "score": scores.ravel(),
            "tag": system,
        }
    )


def write_image_collection(out_dir: str | Path, *, seed: int = SEED) -> list[Path]:
    """Simulate the collection and write its files into ``out_dir``.

    Parameters
    ----------
    out_dir : str or pathlib.Path
        An existing directory.
    seed : int, default SEED
        Seed of the random generator.

    Returns
    -------
    list of pathlib.Path
        The files written, in the order of :func:`simulate_image_collection`'s keys.

    Raises
    ------
    ValueError
        When ``out_dir`` is not an existing directory.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as out:
    ...     names = [p.name for p in write_image_collection(out)]
    >>> names[:2]
    ['image_collection_taxonomy.csv', 'image_collection_annotations.csv']
    """
    out = Path(out_dir)
    if not out.is_dir():
        raise ValueError(f"out_dir must be an existing directory; got {str(out_dir)!r}")
    paths = []
    for name, frame in simulate_image_collection(seed=seed).items():
        buffer = io.StringIO()
        if name.endswith(".txt"):
            trec = frame.assign(Q0="Q0")[["query_id", "Q0", "doc_id", "rank", "score", "tag"]]
            trec.to_csv(
                buffer,
                sep=" ",
                header=False,
                index=False,
                lineterminator="\n",
                float_format=f"%.{_SCORE_DECIMALS}f",
            )
        else:
            buffer.write(_HEADER.format(seed=seed))
            frame.to_csv(buffer, index=False, lineterminator="\n", float_format="%.4f")
        path = out / name
        path.write_bytes(buffer.getvalue().encode("utf-8"))
        paths.append(path)
    return paths


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``python -m fuzzytruth.datasets.generate_image_collection --out DIR``.

    ``--out`` is required: the command never writes over the bundled package data unless
    that folder is named explicitly.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).
    """
    bundled = Path(__file__).resolve().parent / "data"
    parser = argparse.ArgumentParser(
        prog="python -m fuzzytruth.datasets.generate_image_collection",
        description="Write the simulated image_collection data set (seed and model documented "
        "in the module docstring).",
    )
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        help=f"output directory, created if missing (the bundled copy lives in {bundled})",
    )
    args = parser.parse_args(argv)
    make_folder(parser, args.out)
    for path in write_image_collection(args.out):
        print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
