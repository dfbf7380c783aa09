"""Helpers shared by the tests that iterate over the whole measure registry."""

from fuzzytruth.measures import Measure, families


def package_families():
    """Every ranking family the package registers (not those other tests register on the fly,
    nor the classifier families, which read a classifier's classes instead of a run)."""
    return {n: f for n, f in families().items()
            if f.kernel.__module__.startswith("fuzzytruth.") and f.reads == "ranking"}


def classifier_families():
    """Every classifier family the package registers (``reads="classes"``)."""
    return {n: f for n, f in families().items()
            if f.kernel.__module__.startswith("fuzzytruth.") and f.reads == "classes"}


def resolve_default(name, fam):
    """A family with default parameters; a required at-parameter gets 10 or 0.5 (a rank
    cutoff or a recall level)."""
    for at in (10, 0.5) if fam.at_required else (None,):
        try:
            measure = Measure(name, **({fam.at: at} if at is not None else {}))
        except ValueError:
            continue
        for preset in ("trec", "psb"):
            try:
                return measure.resolve(preset)
            except ValueError:
                continue
    raise AssertionError(f"no preset resolves {name}")
