"""Arrays an object holds read-only stay read-only through ``pickle`` and ``copy.deepcopy``.

NumPy gives a pickled or deep-copied array its own writeable buffer: a ``Run`` loaded from a
pickle, or deep-copied, would let ``run.scores[0] = x`` change it, and a ``Membership`` a
matrix whose root column is no longer 1. :class:`ReadOnlyArrays` records which of an object's
array attributes are read-only when it is pickled or copied, and makes them read-only again.

Examples
--------
>>> import copy
>>> import numpy as np
>>> class Held(ReadOnlyArrays):
...     def __init__(self):
...         self.values = np.arange(3.0)
...         self.values.flags.writeable = False
>>> copy.deepcopy(Held()).values.flags.writeable
False
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["ReadOnlyArrays", "readonly"]

_KEY = "_read_only_arrays"


class ReadOnlyArrays:
    """Mixin of classes that hold read-only NumPy arrays as attributes (in ``__dict__``)."""

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state[_KEY] = tuple(name for name, value in state.items()
                            if isinstance(value, np.ndarray) and not value.flags.writeable)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        frozen = state.pop(_KEY, ())
        self.__dict__.update(state)  # as pickle does, past a frozen dataclass's __setattr__
        for name in frozen:
            self.__dict__[name].flags.writeable = False


def readonly(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (no copy).

    The compiled kernels take their input arrays through it: numba compiles one signature per
    writeable flag, so a frozen array (a Membership's matrix) and a fresh one of the same type
    (a replicate's) would each cost a compilation.

    >>> readonly(np.arange(3)).flags.writeable
    False
    """
    view = array.view()
    view.flags.writeable = False
    return view
