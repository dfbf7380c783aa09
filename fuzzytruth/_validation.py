"""Checks of the arguments shared across the library: one function and one message each.

Every public function validates its shared arguments here, so that the same mistake gets the
same message wherever it is made: the parameter's name, what is allowed, what was received.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real

__all__ = [
    "check_choice",
    "check_confidence_level",
    "check_int",
    "check_n_worlds",
]


def check_choice(name: str, value: object, allowed: Sequence[object]) -> object:
    """Return ``value`` if it is one of ``allowed``, else raise a ValueError naming all three.

    Examples
    --------
    >>> check_choice("ties", "docid_desc", ("docid_desc", "average"))
    'docid_desc'
    >>> check_choice("ties", "random", ("docid_desc", "average"))
    Traceback (most recent call last):
    ...
    ValueError: ties must be one of ['docid_desc', 'average']; got 'random'
    """
    try:
        ok = value in allowed
    except TypeError:  # an unhashable value against a set-like
        ok = False
    if not ok or isinstance(value, bool) != any(isinstance(a, bool) for a in allowed):
        raise ValueError(f"{name} must be one of {list(allowed)}; got {value!r}")
    return value


def check_confidence_level(confidence_level: object, name: str = "confidence_level") -> float:
    """Validate a confidence level strictly between 0 and 1; return it as a float.

    Examples
    --------
    >>> check_confidence_level(0.9)
    0.9
    >>> check_confidence_level(95)
    Traceback (most recent call last):
    ...
    ValueError: confidence_level must be a number strictly between 0 and 1; got 95
    """
    if (
        isinstance(confidence_level, bool)
        or not isinstance(confidence_level, Real)
        or not 0 < float(confidence_level) < 1
    ):
        raise ValueError(
            f"{name} must be a number strictly between 0 and 1; got {confidence_level!r}"
        )
    return float(confidence_level)


def check_int(name: str, value: object, *, minimum: int = 0) -> int:
    """Validate an integer ``>= minimum`` (bools are refused); return it as an int.

    Examples
    --------
    >>> check_int("n_worlds", 10, minimum=1)
    10
    >>> check_int("n_worlds", 2.5)
    Traceback (most recent call last):
    ...
    ValueError: n_worlds must be an integer >= 0; got 2.5
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or int(value) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def check_n_worlds(n_worlds: object, *, minimum: int = 0) -> int:
    """The one check of a number of sampled worlds: an integer >= ``minimum`` (0 means "no
    worlds, exact forms only" where that is allowed; samplers need at least one).

    Examples
    --------
    >>> check_n_worlds(0)
    0
    >>> check_n_worlds(0, minimum=1)
    Traceback (most recent call last):
    ...
    ValueError: n_worlds must be a positive integer; got 0
    """
    if minimum == 1:
        if isinstance(n_worlds, bool) or not isinstance(n_worlds, Integral) or n_worlds < 1:
            raise ValueError(f"n_worlds must be a positive integer; got {n_worlds!r}")
        return int(n_worlds)
    return check_int("n_worlds", n_worlds, minimum=minimum)
