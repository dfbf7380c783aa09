"""Scaling by powers of two: the one rule for bringing numbers near 1 before their sums or
squares are taken, without changing a bit of what is computed from them.

Multiplying by 2**-k is exact for every float above the subnormals, so sums, products and
ratios taken of the scaled numbers are those of the originals times a power of two, bit for
bit, wherever the originals did not overflow or underflow; where they did (weights of 1e308
summed, deviations of 1e200 squared, a metric of 5e-324 multiplied by fractions), the scaled
ones do not.
"""

from __future__ import annotations

import numpy as np

__all__ = ["binary_exponent"]


def binary_exponent(largest: np.ndarray | float) -> np.ndarray:
    """The k with ``2**(k - 1) <= |largest| < 2**k`` (``numpy.frexp``'s exponent), elementwise:
    ``np.ldexp(x, -binary_exponent(largest))`` brings every ``|x| <= |largest|`` below 1. 0
    where ``largest`` is 0 or not finite (nothing to scale, or nothing that scaling mends).

    Examples
    --------
    >>> binary_exponent(np.array([1e200, 0.75, 0.0, np.inf])).tolist()
    [665, 0, 0, 0]
    >>> float(np.ldexp(1e200, -int(binary_exponent(1e200))))
    0.6532100883151302
    """
    largest = np.asarray(largest, dtype=np.float64)
    return np.where(np.isfinite(largest), np.frexp(largest)[1], 0)
