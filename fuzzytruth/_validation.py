"""Checks of the arguments shared across the library: one function and one message each.

Every public function validates its shared arguments here, so that the same mistake gets the
same message wherever it is made: the parameter's name, what is allowed, what was received.
"""

from __future__ import annotations

import datetime
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np

from fuzzytruth._lazy import lazy_names

__all__ = [
    "SCALE_LIMIT",
    "by_labels",
    "check_choice",
    "check_columns",
    "check_confidence_level",
    "check_fits",
    "check_flag",
    "check_int",
    "check_memory_budget",
    "check_n_resamples",
    "check_n_worlds",
    "check_number",
    "check_real",
    "check_real_types",
    "check_type",
    "detached",
    "id_list",
    "id_text",
    "ids_text",
    "is_default_positions",
    "is_missing",
    "numeric_values",
    "one_real",
    "ordered_ids",
    "other_names",
    "physical_memory",
    "plain",
    "probability_tolerance",
    "real_array",
    "same_rows",
    "significance_level",
    "tail_levels",
    "text_names",
]


SCALE_LIMIT = 1e140
"""The largest magnitude of a number that the evaluation squares: a score the statistics
compare (and the reciprocal, the smallest largest one) and a gain (grades, gain maps), whose
sums over a list are the values of DCG and its kin. Variances square differences of values and
sum them over queries or worlds: with |value| at most 1e140 that stays below 1e300 for up to
1e19 of them. Above it a t statistic came out 0 and its p-value 1 (scores scaled by 1e200), and
the spread of DCG over the worlds of gains of 1e300 overflowed to inf behind a RuntimeWarning
(and before any limit, nDCG with gains of 1e308 was inf / inf and scored 0.0 where it is 0.77);
below the reciprocal the squares underflowed and every procedure returned NaN (scores scaled
by 1e-200). G, which reads differences of sums of gains, has a tighter limit of its own
(:data:`fuzzytruth.metrics.trec_gain.EXACT_COST`)."""

# as_generator moved to fuzzytruth._random; importable from here for one release
__getattr__, _ = lazy_names(
    "fuzzytruth._validation", {"as_generator": "fuzzytruth._random"}, globals()
)


def plain(value: object) -> object:
    """A NumPy scalar as the Python value it holds, for a message's ``!r``: ``1`` and ``inf``,
    not ``np.int64(1)`` and ``np.float64(inf)`` (what a pandas column's ``iloc`` gives).

    Examples
    --------
    >>> import numpy as np
    >>> f"{plain(np.int64(1))!r} {plain(np.float64('inf'))!r} {plain('q1')!r}"
    "1 inf 'q1'"
    """
    return value.item() if isinstance(value, np.generic) else value


def type_label(value: object) -> str:
    """The type of ``value`` as an error message names it: its name, with its library's when
    another library's class bears the name of one of ours (ranx's ``Run`` is ``ranx.Run``:
    "must be a Run; got Run" would say nothing).

    >>> import fuzzytruth
    >>> type_label(fuzzytruth.Run(["q"], ["d"], [1.0])), type_label({})
    ('Run', 'dict')
    """
    import fuzzytruth  # at call time: the package imports this module

    kind = type(value)
    top = kind.__module__.split(".")[0]
    if top == "fuzzytruth" or kind.__name__ not in fuzzytruth.__all__:
        return kind.__name__
    return f"{top}.{kind.__name__}"


def probability_tolerance(dtype: np.dtype) -> float:
    """How far a row's sum may be from 1 for probabilities of ``dtype``: ``sqrt(eps)``
    (scikit-learn's ``log_loss`` tolerance).

    Examples
    --------
    >>> probability_tolerance(np.dtype("float32")) > probability_tolerance(np.dtype("float64"))
    True
    """
    return float(np.sqrt(np.finfo(dtype).eps))


def check_type(value: object, name: str, kind: type, hint: str = "") -> None:
    """A ValueError naming ``name``, the type wanted and the type given (:func:`type_label`),
    then ``hint`` (how to make one), when ``value`` is not a ``kind``: the writers' check of
    what they are given, before any attribute of it is read.

    >>> check_type({}, "run", int, ": say how")
    Traceback (most recent call last):
    ...
    ValueError: run must be an int; got dict: say how
    """
    if not isinstance(value, kind):
        article = "an" if kind.__name__[0].lower() in "aeiou" else "a"
        raise ValueError(f"{name} must be {article} {kind.__name__}; got {type_label(value)}{hint}")


def record_fields(value: object) -> tuple[str, ...]:
    """The field names of ``value``'s records when it is a list or tuple of named tuples
    (ir_datasets' ``list(dataset.qrels_iter())``, ir_measures' ``Qrel`` and ``ScoredDoc``),
    else ``()``: what an error can offer to read them with.

    >>> from collections import namedtuple
    >>> Qrel = namedtuple("Qrel", "query_id doc_id relevance")
    >>> record_fields([Qrel("q1", "d1", 1)]), record_fields([("q1", "d1", 1)])
    (('query_id', 'doc_id', 'relevance'), ())
    """
    if isinstance(value, list | tuple) and value and isinstance(value[0], tuple):
        return tuple(getattr(value[0], "_fields", ()))
    return ()


def id_text(value: object, name: str) -> str:
    r"""The text of one id, as ids are compared across the library: a str as it is, bytes
    decoded as UTF-8 (as Arrow reads them and the files are read), anything else through
    ``str``. Bytes that are not UTF-8 are a ValueError naming ``name``, never their ``repr``:
    ``b'a'`` would match no file's ``a``.

    Examples
    --------
    >>> id_text(b"caf\xc3\xa9", "doc_ids"), id_text(7, "doc_ids")
    ('café', '7')
    >>> id_text(b"\xff", "doc_ids")
    Traceback (most recent call last):
    ...
    ValueError: doc_ids given as bytes must be UTF-8 text; got b'\xff': decode them with the
    encoding they were written in
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):  # np.bytes_ too
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(
                f"{name} given as bytes must be UTF-8 text; got {bytes(value)!r}: decode them "
                "with the encoding they were written in"
            ) from None
    return str(value)


def id_list(values: Iterable[object], name: str, unit: str) -> list[object]:
    """``values``, several ids (of ``unit``), as a list: a str or bytes is one id, not a list
    of its characters, and is refused with a ValueError naming ``name`` and the list to pass.

    Examples
    --------
    >>> id_list(("a", "b"), "items", "item")
    ['a', 'b']
    >>> id_list("img01", "items", "item")
    Traceback (most recent call last):
    ...
    ValueError: items must be a sequence of item ids; got the string 'img01' (a list of one
    item: ['img01'])
    """
    if isinstance(values, str | bytes):
        raise ValueError(
            f"{name} must be a sequence of {unit} ids; got the string {values!r} (a list of one "
            f"{unit}: [{values!r}])"
        )
    return list(values)


def ordered_ids(values: Iterable[object], name: str,
                order: str = "of the rows or columns they name") -> Iterable[object]:
    """``values``, ids whose positions mean something (``order``: the rows or columns they
    name), unless they are a set, whose order is arbitrary (it changes with the process): a
    ValueError naming ``name``.

    >>> ordered_ids({"x"}, "items")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: items must be in the order of the rows or columns ... got a set, whose ...
    """
    if isinstance(values, set | frozenset):
        raise ValueError(f"{name} must be in the order {order} (a list, a tuple or an array); "
                         "got a set, whose order is arbitrary")
    return values


def ids_text(values: Any, name: str) -> np.ndarray:
    """:func:`id_text` of each of ``values`` (1-D), as an object array of str: str ids as
    they are, others through NumPy's cast to str where no value is bytes (it would decode
    NumPy bytes as ASCII and write a Python bytes object as its ``repr``). (A cast of str
    ids would drop their final NUL characters: "a\\x00" would be the id "a".)

    Examples
    --------
    >>> ids_text(np.array([b"a", b"b"]), "items").tolist(), ids_text([1, "x"], "items").tolist()
    (['a', 'b'], ['1', 'x'])
    >>> tuples = np.empty(1, dtype=object)
    >>> tuples[0] = ("img", 1)  # one id
    >>> ids_text(tuples, "items").tolist()
    ["('img', 1)"]
    >>> ids_text(np.array(["a\\x00", "a"], dtype=object), "items").tolist()
    ['a\\x00', 'a']
    >>> ids_text(np.array(["a\\x00", 0], dtype=object), "items").tolist()
    ['a\\x00', '0']
    """
    import pandas as pd  # its C scan of the types; the module is imported without pandas

    arr = np.asarray(values)
    if arr.dtype == object and pd.api.types.infer_dtype(arr, skipna=False) == "string":
        return arr.copy()  # str (or a subclass, NumPy's str_: the same text and hash)
    if arr.dtype.kind == "S" or (arr.dtype == object and _may_hold_bytes(arr)):
        return _each_text(arr, name)
    try:
        if arr.dtype == object:  # str ids beside others: NumPy's variable-width strings keep
            # a final NUL that its fixed-width cast drops ("\x00" beside 0 was the id "")
            if _VARIABLE_STRINGS is None:  # NumPy 1.x: one id at a time
                return _each_text(arr, name)
            return arr.astype(_VARIABLE_STRINGS()).astype(object)
        return arr.astype(str).astype(object)
    except ValueError:  # an id that is a tuple: NumPy reads it as a sequence, not one value
        return _each_text(arr, name)


_VARIABLE_STRINGS = getattr(np.dtypes, "StringDType", None)
"""NumPy's variable-width string dtype (NumPy 2), or None."""


def _each_text(arr: np.ndarray, name: str) -> np.ndarray:
    """:func:`id_text` of each element of ``arr``, one at a time."""
    out = np.empty(arr.shape, dtype=object)
    out[...] = [id_text(v, name) for v in arr.flat] if arr.ndim else id_text(arr.item(), name)
    return out


def detached(array: np.ndarray, given: object) -> np.ndarray:
    """``array``, made from what a caller ``given``, as a read-only array that no one can
    write through: a copy unless ``array`` is new already (made from a list, or by a cast) or
    no array it views is writeable (a NumPy view of Arrow's immutable buffers, as the file
    readers give), so that an object holding it cannot be changed by a later edit of the
    caller's array or column, nor change it (the caller's array keeps its own writeable flag).

    Examples
    --------
    >>> given = np.array([1.0, 2.0])
    >>> held = detached(given, given)
    >>> given[0] = 5.0
    >>> held.tolist(), held.flags.writeable, given.flags.writeable
    ([1.0, 2.0], False, True)
    """
    shared = array is given or array.base is not None or (
        isinstance(given, np.ndarray) and np.may_share_memory(array, given))
    if shared and _writable_through(array):
        array = array.copy()
    array.flags.writeable = False
    return array


def _writable_through(array: np.ndarray) -> bool:
    """Whether ``array`` or an array it views (its chain of bases) is writeable."""
    while isinstance(array, np.ndarray):
        if array.flags.writeable:
            return True
        array = array.base
    return isinstance(array, memoryview | bytearray) or type(array).__name__ == "mmap"


def _may_hold_bytes(arr: np.ndarray) -> bool:
    """Whether an object array may hold a bytes value: pandas' C scan of the types says no for
    all-str or all-int arrays (a Python pass over 1 M ids costs 0.1 s), else each is looked at."""
    pandas = sys.modules.get("pandas")
    if pandas is not None and pandas.api.types.infer_dtype(arr.ravel(), skipna=False) in (
            "string", "integer", "empty"):
        return False
    return any(isinstance(v, bytes) for v in arr.flat)


def same_rows(columns: Mapping[str, Any]) -> None:
    """Refuse pandas Series among ``columns`` (name → values read together, row by row) whose
    indexes differ: rows are read by position, so a Series sorted on its own, or taken from
    another table, would pair values of different rows without a word. Columns of different
    lengths are left to the caller's length check.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"q": ["a", "b"], "s": [1.0, 2.0]})
    >>> same_rows({"query_ids": frame["q"], "scores": frame["s"]})
    >>> same_rows({"query_ids": frame["q"], "scores": frame["s"].sort_values(ascending=False)})
    Traceback (most recent call last):
    ...
    ValueError: query_ids and scores are pandas Series with different indexes: their rows are
    read together by position, which would pair values of different rows; pass columns of one
    DataFrame (or align them first, e.g. scores.reindex(query_ids.index)), or arrays to pair
    them by position
    """
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return
    series = [(name, v) for name, v in columns.items() if isinstance(v, pandas.Series)]
    for name, values in series[1:]:
        first, other = series[0]
        if len(values) == len(other) and not values.index.equals(other.index):
            raise ValueError(
                f"{first} and {name} are pandas Series with different indexes: their rows are "
                "read together by position, which would pair values of different rows; pass "
                f"columns of one DataFrame (or align them first, e.g. "
                f"{name}.reindex({first}.index)), or arrays to pair them by position"
            )


def is_default_positions(labels: Any) -> bool:
    """Whether a pandas axis holds pandas' default labels ``0 .. n - 1`` (no labels given)."""
    pandas = sys.modules.get("pandas")
    return (pandas is not None and isinstance(labels, pandas.RangeIndex)
            and labels.start == 0 and labels.step == 1)


def by_labels(
    values: Any,
    name: str,
    *,
    rows: tuple[str, Iterable[object] | None] | None = None,
    columns: tuple[str, Iterable[object] | None] | None = None,
) -> Any:
    """``values`` as given, or, when it is a pandas DataFrame, with the rows and columns put in
    the order of the ids given for them (``rows``, ``columns``: what they are, in the plural,
    and the ids; None, or ids None: that axis as it is). Labels are matched as ids are
    across the library, as text (:func:`id_text`); an axis with pandas' default labels
    ``0 .. n - 1`` is taken by position; labels that are not the ids given are a ValueError
    naming ``name``: a labelled table is never read by position against other names.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame([[1, 2], [3, 4]], index=["y", "x"], columns=["b", "a"])
    >>> by_labels(frame, "scores", rows=("items", ["x", "y"]), columns=("classes", ["a", "b"]))
       a  b
    x  4  3
    y  2  1
    >>> by_labels(frame, "scores", rows=("items", ["x", "z"]))
    Traceback (most recent call last):
    ...
    ValueError: scores is a DataFrame whose index does not name the items given: it lacks 'z'
    and has 'y' instead (a DataFrame's rows and columns are matched to the ids given by their
    labels; pass an array to match them by position)
    """
    pandas = sys.modules.get("pandas")
    if pandas is None or not isinstance(values, pandas.DataFrame):
        return values
    take: list[Any] = []
    for axis, labels, spec in (("index", values.index, rows), ("columns", values.columns,
                                                                columns)):
        if spec is None or spec[1] is None or is_default_positions(labels):
            take.append(slice(None))
            continue
        what, ids = spec
        given = pandas.Index([id_text(v, what) for v in ids], dtype=object)
        named = pandas.Index([id_text(v, f"the {axis} of {name}") for v in labels],
                             dtype=object)
        if named.has_duplicates:
            raise ValueError(f"the {axis} of {name} must name each of the {what} once; repeated: "
                             f"{sorted(set(named[named.duplicated()]))[:5]!r}")
        missing, extra = given[~given.isin(named)], named[~named.isin(given)]
        if len(missing) or len(extra):
            lacks, has = (", ".join(map(repr, ids[:5])) + (", …" if len(ids) > 5 else "")
                          for ids in (missing, extra))
            differ = (f"it lacks {lacks} and has {has} instead" if len(missing) and len(extra)
                      else f"it lacks {lacks}" if len(missing)
                      else f"{has} {'is' if len(extra) == 1 else 'are'} not among them")
            raise ValueError(
                f"{name} is a DataFrame whose {axis} {'does' if axis == 'index' else 'do'} not "
                f"name the {what} given: {differ} (a DataFrame's rows and columns are matched "
                "to the ids given by their labels; pass an array to match them by position)"
            )
        take.append(named.get_indexer(given))
    return values.iloc[take[0], take[1]]


def one_real(x: object, name: str) -> float:
    """``x``, one real number (Python's or NumPy's; inf and NaN allowed), as a float; else a
    ValueError naming ``name``: an array, a distribution or a bool has no single answer where
    one number is asked for.

    Examples
    --------
    >>> one_real(np.float32(0.5), "q"), one_real(2, "x")
    (0.5, 2.0)
    >>> one_real([0.1, 0.9], "q")
    Traceback (most recent call last):
    ...
    ValueError: q must be one real number; got an array of shape (2,)
    """
    if isinstance(x, bool | np.bool_) or not isinstance(x, Real):
        got = (f"an array of shape {np.shape(x)}" if np.ndim(x)
               else f"a {type(x).__name__}" if hasattr(x, "__dict__") or hasattr(x, "__slots__")
               else repr(x))
        raise ValueError(f"{name} must be one real number; got {got}")
    return float(x)


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

    A text close to one allowed (another case, ``_`` for ``-``, a typo) is named:

    >>> check_choice("truth_model", "Dawid_Skene", ("shares", "dawid-skene"))
    Traceback (most recent call last):
    ...
    ValueError: truth_model must be one of ['shares', 'dawid-skene']; got 'Dawid_Skene' (did
    you mean 'dawid-skene'?)
    """
    try:
        ok = value in allowed
    except (TypeError, ValueError):  # an unhashable value against a set-like; an array,
        ok = False  # whose == is elementwise and has no single truth value
    if not ok or isinstance(value, bool) != any(isinstance(a, bool) for a in allowed):
        raise ValueError(f"{name} must be one of {list(allowed)}; got {value!r}"
                         + did_you_mean(value, allowed))
    return value


_OTHER_SPELLINGS = {
    "fdr-bh": "bh", "benjamini-hochberg": "bh", "fdr-by": "by", "benjamini-yekutieli": "by",
    "holm-bonferroni": "holm", "ttest": "t", "t-test": "t", "ttest-rel": "t", "paired-t": "t",
    "student": "t", "permutation": "randomization", "permutation-test": "randomization",
    "sign-flip": "randomization", "bootstrap-t": "bootstrap", "studentized": "bootstrap",
    "signed-rank": "wilcoxon", "wilcoxon-signed-rank": "wilcoxon", "binomial": "sign",
    "ds": "dawid-skene", "onecoindawidskene": "one-coin", "one-coin-dawid-skene": "one-coin",
}
"""Other libraries' names of the choices (statsmodels' ``fdr_bh``, scipy's ``ttest_rel``,
crowd-kit's ``ds`` and ``OneCoinDawidSkene``), folded as :func:`did_you_mean` folds them, each
with the choice it means here."""


def did_you_mean(value: object, allowed: Sequence[object]) -> str:
    """`` (did you mean 'x'?)`` for a text that is an allowed one but for case, ``_``, ``-`` and
    spaces, or another library's name of one (:data:`_OTHER_SPELLINGS`: statsmodels'
    ``fdr_bh`` is ``bh``), or else close to one (difflib's ratio at least 0.8: the closest),
    else ''."""
    texts = [a for a in allowed if isinstance(a, str)]
    if not isinstance(value, str) or not texts:
        return ""
    import difflib

    def folded(text: str) -> str:
        return text.lower().replace("_", "-").replace(" ", "-")

    forms = [folded(t) for t in texts]
    other = _OTHER_SPELLINGS.get(folded(value))
    close = ([folded(value)] if folded(value) in forms
             else [other] if other in forms
             else difflib.get_close_matches(folded(value), forms, n=1, cutoff=0.8))
    return f" (did you mean {texts[forms.index(close[0])]!r}?)" if close else ""


def check_flag(name: str, value: object, *, none: bool = False) -> bool | None:
    """Return ``value`` as a bool when it is one (Python's or NumPy's), or None when ``none``
    allows it; anything else (a str such as "no", whose truth value is True; 0 or 1) is a
    ValueError naming ``name``.

    Examples
    --------
    >>> check_flag("robust", True)
    True
    >>> check_flag("progress", None, none=True) is None
    True
    >>> check_flag("robust", "no")
    Traceback (most recent call last):
    ...
    ValueError: robust must be True or False; got 'no'
    """
    if value is None and none:
        return None
    if not isinstance(value, bool | np.bool_):
        allowed = "True, False or None" if none else "True or False"
        raise ValueError(f"{name} must be {allowed}; got {value!r}")
    return bool(value)


def check_real(values: object, name: str) -> None:
    """A ValueError naming ``name`` when ``values`` (an array, Series or DataFrame) holds
    complex numbers, dates or durations: numpy's cast to float drops the imaginary parts of
    complex numbers with only a ComplexWarning, and turns dates and durations into counts of
    their time unit without a word. It reads the dtype, never the values (:func:`real_array`
    also sees the elements of a list), and touches no global state
    (``warnings.catch_warnings`` would, which is unsafe in threads).

    Examples
    --------
    >>> import numpy as np
    >>> check_real(np.array([1 + 2j]), "scores")
    Traceback (most recent call last):
    ...
    ValueError: scores must be real numbers; got complex values
    >>> check_real(np.array(["2024-05-01"], dtype="datetime64[D]"), "scores")
    Traceback (most recent call last):
    ...
    ValueError: scores must be real numbers; got dates or durations (datetime64[D])
    """
    for dtype in _dtypes(values):
        kind = getattr(dtype, "kind", "")
        if kind == "c":
            raise _complex_values(name)
        if kind in ("m", "M"):
            raise _dates(name, str(dtype))


def check_real_types(types: Iterable[type], name: str) -> None:
    """A ValueError naming ``name`` when one of ``types``, those of values given as Python
    objects, is a complex number or a date or duration (Python's, numpy's or pandas'): the
    check :func:`check_real` makes of a dtype, for values numpy would hold as objects or
    read one by one. Pass the distinct types (``set(map(type, values))``, one pass in C).

    Examples
    --------
    >>> import datetime
    >>> check_real_types({float, int}, "scores")
    >>> check_real_types({float, np.complex64}, "scores")
    Traceback (most recent call last):
    ...
    ValueError: scores must be real numbers; got complex values
    >>> check_real_types({datetime.datetime}, "relevance")
    Traceback (most recent call last):
    ...
    ValueError: relevance must be real numbers; got dates or durations (datetime)
    """
    for kind in types:
        if issubclass(kind, complex | np.complexfloating):
            raise _complex_values(name)
        if issubclass(kind, _DATES):
            raise _dates(name, kind.__name__)


_DATES = (datetime.date, datetime.timedelta, np.datetime64, np.timedelta64)
"""Types of dates and durations; pandas' Timestamp and Timedelta derive from Python's."""


def numeric_values(values: Any, name: str) -> Any:
    """A table's column (a pandas Series) or columns (a DataFrame) as numbers, refusing
    complex numbers, dates and durations however they are held.

    Text holding numbers is read as numbers (a table read without types) and text that is not
    one becomes NaN, for the caller to report with its row. ``pandas.to_numeric`` alone
    passes complex values on and turns dates into nanoseconds since 1970, which a cast to float
    then keeps as numbers (1.7e18 for a 2024 date) without a word: they are refused here,
    held in their own dtypes or as Python objects among numbers (complex numbers written as
    text are not numbers to ``pandas.to_numeric``: NaN).

    Examples
    --------
    >>> import pandas as pd
    >>> numeric_values(pd.Series(["0.5", 2, "n/a"]), "score").tolist()
    [0.5, 2.0, nan]
    >>> numeric_values(pd.Series(pd.to_datetime(["2024-05-01"])), "score")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: score must be real numbers; got dates or durations (datetime64[...])
    >>> numeric_values(pd.DataFrame({"a": [0.5, "0.25"], "b": [0.5, 1 + 2j]}), "frame")
    Traceback (most recent call last):
    ...
    ValueError: frame must be real numbers; got complex values
    """
    import pandas as pd

    check_real(values, name)  # in their own dtypes
    columns = values.items() if isinstance(values, pd.DataFrame) else [(None, values)]
    for _, column in columns:
        if column.dtype == object:  # as Python objects among numbers
            check_real_types(set(map(type, column.to_numpy())), name)
    if isinstance(values, pd.DataFrame):
        numbers = values.apply(pd.to_numeric, errors="coerce")
    else:
        numbers = pd.to_numeric(values, errors="coerce")
    return numbers


def real_array(
    values: object, name: str, *, expected: str = "numbers", copy: bool = False
) -> np.ndarray:
    """``values`` as a float64 array, or a ValueError naming ``name``: complex numbers are
    refused (numpy's cast would keep their real parts with only a warning), so are dates and
    durations (the cast would count their time units), and values numpy cannot read as
    numbers are refused as not ``expected``.

    An array, Series or DataFrame is checked by its dtype (:func:`check_real`) and cast as it
    is (a pandas column's missing values become NaN, as numpy's cast makes them). Anything
    else (a list, a tuple, a scalar) is first made an array of the type numpy finds for it,
    so that a complex number or a date among its elements, Python's or numpy's, is seen: that
    costs what the cast costs (numpy reads each element once either way). Values numpy can
    only hold as objects (numbers mixed with None, a column of dtype object) have their types
    read (:func:`check_real_types`). The result shares memory with ``values`` when it can,
    unless ``copy``.

    Examples
    --------
    >>> import numpy as np
    >>> real_array([1, None, np.float32(2.5)], "scores").tolist()
    [1.0, nan, 2.5]
    >>> real_array([2.0, np.complex128(1 + 2j)], "grades")
    Traceback (most recent call last):
    ...
    ValueError: grades must be real numbers; got complex values
    >>> real_array([1.0, np.datetime64("2024-05-01")], "scores")
    Traceback (most recent call last):
    ...
    ValueError: scores must be real numbers; got dates or durations (datetime64)
    >>> real_array([0.01, {"p": 0.2}], "pvalues")
    Traceback (most recent call last):
    ...
    ValueError: pvalues must be numbers; numpy could not read them: float() argument must be
    a string or a real number, not 'dict'
    """
    check_real(values, name)
    listed = not (hasattr(values, "dtype") or hasattr(values, "dtypes"))
    if listed or "O" in _dtype_kinds(values):
        try:
            values = np.asarray(values)
        except (TypeError, ValueError) as err:  # rows of unequal length
            raise _unreadable(name, expected, err) from None
        check_real(values, name)
        if values.dtype == object:
            check_real_types(set(map(type, values.flat)), name)
        copy = copy and not listed  # a list's array is new already
    try:
        return np.array(values, dtype=np.float64, copy=True if copy else None)
    except (TypeError, ValueError) as err:  # text, None in a pandas column of objects...
        raise _unreadable(name, expected, err) from None


def _dtypes(values: object) -> list[object]:
    """The dtypes of an array, Series or DataFrame; [None] for anything else."""
    dtypes = getattr(values, "dtypes", None)
    if dtypes is None or hasattr(dtypes, "kind"):  # an array, a Series: one dtype
        return [getattr(values, "dtype", None)]
    return list(dtypes)


def _dtype_kinds(values: object) -> set[str]:
    """The kinds (numpy's one-letter codes) of the dtypes of an array, Series or DataFrame;
    none for anything else."""
    return {getattr(dtype, "kind", "") for dtype in _dtypes(values)}


def _complex_values(name: str) -> ValueError:
    return ValueError(f"{name} must be real numbers; got complex values")


def _dates(name: str, received: str) -> ValueError:
    return ValueError(f"{name} must be real numbers; got dates or durations ({received})")


def _unreadable(name: str, expected: str, err: Exception) -> ValueError:
    return ValueError(
        f"{name} must be {expected}; numpy could not read them: {str(err).splitlines()[0]}"
    )


def check_columns(
    frame: object,
    name: str,
    columns: Sequence[str] | Mapping[str, str],
    *,
    rows: bool = True,
    hint: str = "",
    nested: str = "",
) -> None:
    """Check that ``frame`` is a DataFrame (pandas, or one with ``columns``: Dask's) holding
    ``columns`` and, with ``rows``, at least one row; else a ValueError naming ``name``, the
    columns missing and those found.

    ``columns`` is the required names, or a mapping from the caller's parameters to the
    columns they name (``{"score_col": "score"}``): then the message names the parameter.
    ``hint`` follows the required columns in the message (how to rename them...). A mapping
    given for ``frame`` is told how it becomes a table: ``nested`` (the caller's reader of
    pytrec_eval's ``{query: {document: value}}``) when its values are mappings, else
    ``pd.DataFrame``.

    Examples
    --------
    >>> import pandas as pd
    >>> check_columns(pd.DataFrame({"a": [1]}), "table", ["a", "b"])
    Traceback (most recent call last):
    ...
    ValueError: table must have columns ['a', 'b']; missing ['b'], found ['a']
    >>> check_columns(pd.DataFrame({"a": [1]}), "df", {"score_col": "points"})
    Traceback (most recent call last):
    ...
    ValueError: score_col='points' is not a column of the DataFrame df; columns are ['a']
    >>> check_columns(pd.DataFrame({"a": []}), "table", ["a"])
    Traceback (most recent call last):
    ...
    ValueError: table must not be empty
    >>> check_columns(pd.DataFrame([[1, 2]], columns=["a", "a"]), "table", ["a"])
    Traceback (most recent call last):
    ...
    ValueError: table has 2 columns named 'a'; each column read must be one
    """
    found = getattr(frame, "columns", None)
    if found is None:
        how = ""
        inner = isinstance(frame, Mapping) and any(isinstance(v, Mapping) for v in frame.values())
        if inner and nested:
            how = f": a mapping {{query: {{document: value}}}} (pytrec_eval's) is {nested}"
        elif isinstance(frame, Mapping) and not inner:
            how = ": a mapping of column name to values is pd.DataFrame(mapping)"
        elif type(frame).__name__ == "Series" and hasattr(frame, "reset_index"):
            how = ": a Series (its ids in the index) becomes one with series.reset_index()"
        raise ValueError(f"{name} must be a pandas DataFrame; got {type(frame).__name__}{how}")
    found = list(found)
    indexed = [n for n in getattr(getattr(frame, "index", None), "names", ()) if n is not None]
    if isinstance(columns, Mapping):
        for param, column in columns.items():
            if column not in found:
                raise ValueError(
                    f"{param}={column!r} is not a column of the DataFrame {name}; "
                    f"columns are {found}"
                    + (_in_index(column, name) if column in indexed
                       else other_names(columns, found))
                )
    else:
        missing = [c for c in columns if c not in found]
        if missing:
            raise ValueError(
                f"{name} must have columns {list(columns)}{' ' + hint if hint else ''}; "
                f"missing {missing}, found {found}"
                + (_in_index(missing[0], name) if missing[0] in indexed else "")
            )
    wanted = list(columns.values()) if isinstance(columns, Mapping) else list(columns)
    twice = [c for c in dict.fromkeys(wanted) if found.count(c) > 1]
    if twice:  # frame[c] would be a DataFrame, refused later as "not one-dimensional"
        raise ValueError(f"{name} has {found.count(twice[0])} columns named {twice[0]!r}; "
                         "each column read must be one")
    if rows and len(frame) == 0:
        raise ValueError(f"{name} must not be empty")


def _in_index(column: object, name: str) -> str:
    """The hint for a column read from the index of the frame called ``name`` (``set_index``
    put it there)."""
    return f": {column!r} is in the index; pass {name}.reset_index()"


COLUMN_NAMES = {
    "query_col": ("qid", "query", "topic", "topic_id", "q_id", "query_id"),
    "doc_col": ("docno", "docid", "doc", "document", "document_id", "doc_id"),
    "score_col": ("score", "similarity", "sim"),
    "relevance_col": ("label", "rel", "grade", "judgment", "judgement", "relevance"),
    "item": ("task", "item", "item_id", "task_id", "example", "example_id"),
    "annotator": ("worker", "annotator", "annotator_id", "worker_id", "rater", "rater_id",
                  "performer"),
    "label": ("label", "category", "class", "answer", "response"),
    "system": ("system", "system_id", "run", "run_id", "model", "classifier"),
}
"""What a column of each role is called across the tools (PyTerrier: qid, docno, score,
label; ranx: q_id; crowd-kit: task, worker, label), keyed by the parameter that names it:
offered when a parameter's column is missing, and read as axis names by
:func:`fuzzytruth.stats._validation.check_axes`."""


def other_names(columns: Mapping[str, str], found: list[object]) -> str:
    """``": pass query_col='qid', ..."`` when every missing column of ``columns`` is in
    ``found`` under another tool's name (:data:`COLUMN_NAMES`), else ``""``."""
    present = set(map(str, found))
    offered = {
        param: next((n for n in COLUMN_NAMES.get(param, ()) if n in present), None)
        for param, column in columns.items() if column not in found
    }
    if not offered or None in offered.values():
        return ""
    return ": pass " + ", ".join(f"{param}={name!r}" for param, name in offered.items())


def check_confidence_level(confidence_level: object, name: str = "confidence_level") -> float:
    """Validate a confidence level strictly between 0 and 1; return it as a float.

    A NumPy float of less than double precision (float16, float32) is read as the shortest
    decimal that rounds to it in its own precision, the number that was typed:
    ``np.float32(0.95)`` is stored as 0.949999988..., and taken as such it would make alpha
    0.050000012 in every output, and a p-value of exactly 0.05 significant. Every decimal
    within that precision's rounding of the value names the same float32, so the shortest is
    no less faithful than the binary expansion, and it is the one the user meant. Double
    precision floats (Python's, ``np.float64``) are taken as they are.

    Examples
    --------
    >>> check_confidence_level(0.9)
    0.9
    >>> float(np.float32(0.95)), check_confidence_level(np.float32(0.95))
    (0.949999988079071, 0.95)
    >>> check_confidence_level(95)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: confidence_level must be ... got 95 (a percentage? 95% is confidence_level=0.95)
    """
    if (
        isinstance(confidence_level, bool)
        or not isinstance(confidence_level, Real)
        or not 0 < float(confidence_level) < 1
    ):
        percent = (isinstance(confidence_level, Real) and not isinstance(confidence_level, bool)
                   and 50 <= float(confidence_level) < 100)
        raise ValueError(
            f"{name} must be a number strictly between 0 and 1; got {confidence_level!r}"
            + (f" (a percentage? {float(confidence_level):g}% is "
               f"{name}={float(confidence_level) / 100:g})" if percent else "")
        )
    if isinstance(confidence_level, np.floating) and confidence_level.dtype.itemsize < 8:
        return float(str(confidence_level))  # NumPy prints the shortest round-trip decimal
    return float(confidence_level)


def float_ids_error(name: str, example: object) -> ValueError:
    """The error for ids given as floating-point numbers: ids are matched as text, and the
    float 1.0 reads "1.0" where a TREC file or an int says "1" (pandas reads a column of
    integers with a missing value as floats), so every document would go unjudged."""
    shown = repr(float(example)) if isinstance(example, float | np.floating) else "..."
    return ValueError(
        f"{name} must be str or int; got floating-point numbers such as {shown}: ids "
        'are matched as text, and 1.0 reads "1.0" where a file or an int says "1"; convert '
        "them (astype(int) or astype(str))"
    )


def refuse_float_ids(ids: Any, name: str) -> None:
    """A ValueError (:func:`float_ids_error`, naming ``name``) when ``ids`` (1-D: an array,
    a pandas Index or Series, a list) hold a floating-point number: an annotations table or
    a membership keyed by 1.0 would match no document "1" of a run, which refuses float ids.

    >>> refuse_float_ids(["a", 1], "items")
    >>> refuse_float_ids(["a", 2.5], "items")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: items must be str or int; got floating-point numbers such as 2.5: ...
    >>> refuse_float_ids(np.array([1.0, 2.0]), "items")
    Traceback (most recent call last):
    ...
    ValueError: items must be str or int; got floating-point numbers such as 1.0: ids are
    matched as text, and 1.0 reads "1.0" where a file or an int says "1"; convert them
    (astype(int) or astype(str))
    """
    import pandas as pd  # its C scan of the types; the module is imported without pandas

    if isinstance(ids, list | tuple):  # NumPy would make ["a", 1.0] the text "1.0"
        example = next((v for v in ids if isinstance(v, float | np.floating)), None)
        if example is not None:
            raise float_ids_error(name, example)
        return
    arr = np.asarray(ids)
    if arr.dtype.kind == "f" and arr.size:
        raise float_ids_error(name, arr.flat[0])
    if arr.dtype == object and pd.api.types.infer_dtype(arr.ravel(), skipna=False) in (
            "floating", "mixed-integer-float", "mixed"):
        example = next((v for v in arr.flat if isinstance(v, float | np.floating)), None)
        if example is not None:
            raise float_ids_error(name, example)


def text_names(mapping: Mapping[Any, Any], name: str, unit: str) -> list[str]:
    """The keys of ``mapping`` as text (``str``), in order: systems and classifiers are named
    by text, so two keys equal as text (``1`` and ``"1"``) would be one name and are refused
    with a ValueError naming ``name`` and the keys.

    >>> text_names({1: "a", "b": "c"}, "runs", "system")
    ['1', 'b']
    >>> text_names({1: "a", "1": "b"}, "runs", "system")
    Traceback (most recent call last):
    ...
    ValueError: runs must name each system once as text; got [1, '1']
    """
    missing = [key for key in mapping if is_missing(key)]
    if missing:  # str() would name the system "None" or "nan"
        raise ValueError(f"{name} must name each {unit} by an id; got {missing[0]!r}")
    names = [id_text(key, name) for key in mapping]
    if len(set(names)) < len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"{name} must name each {unit} once as text; got "
                         f"{[key for key in mapping if id_text(key, name) == twice]!r}")
    return names


def is_missing(value: object) -> bool:
    """Whether ``value`` is a missing value (None, NaN, pandas' NA or NaT) rather than an id.

    >>> [is_missing(v) for v in (None, float("nan"), np.float32("nan"), 0, "nan")]
    [True, True, True, False, False]
    """
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float | np.floating) and bool(np.isnan(value))


def significance_level(confidence_level: float) -> float:
    """``alpha = 1 - confidence_level``, rounded to 12 decimals: the one level every test,
    interval and star of :mod:`fuzzytruth.stats` and each system's interval of
    :meth:`~fuzzytruth.evaluation.Evaluation.aggregate` use, so that a test rejects (``p < alpha``)
    exactly when its interval excludes the null value.

    Without the rounding ``1 - 0.95`` is ``0.05000000000000004``, and a Monte Carlo p-value of
    exactly 0.05 (``(b + 1) / (B + 1)`` with B = 999 and b = 49) would fall below the interval's
    level but not below the star's 0.05.

    A level within 5e-13 of 1 (or of 0) would round alpha to 0 (or 1): such a level is refused
    with a ValueError naming ``confidence_level`` (the t interval came out NaN beside
    ``alpha=0.0``, and the resampling procedures failed on an ``alpha`` nobody had given).

    Examples
    --------
    >>> 1 - 0.95 == 0.05, significance_level(0.95) == 0.05
    (False, True)
    """
    alpha = round(1.0 - float(confidence_level), 12)
    if not 0.0 < alpha < 1.0:
        raise ValueError(
            "confidence_level must differ from 0 and from 1 by more than 5e-13: every test "
            "rejects when p < alpha, 1 - confidence_level rounded to 12 decimals, which would "
            f"be {alpha:g}; got {confidence_level!r}"
        )
    return alpha


def tail_levels(confidence_level: float) -> tuple[float, float]:
    """The quantile levels ``(alpha / 2, 1 - alpha / 2)`` of an equal-tailed interval, with
    ``alpha`` from :func:`significance_level`: the one rule for every percentile interval
    (bootstrap replicates, sampled truths, a distribution's quantiles), so that each reads its
    ends at the same levels as the tests and t intervals beside it.

    Examples
    --------
    >>> (1 - 0.95) / 2, tail_levels(0.95)
    (0.025000000000000022, (0.025, 0.975))
    """
    alpha = significance_level(confidence_level) / 2.0
    return alpha, 1.0 - alpha


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


MAX_RESAMPLES = 10**8
"""The most resamples (bootstrap replicates, permutations, sign flips) any entry point runs.

A hundred times the 10**6 that a careful study uses: at 10**8 the Monte Carlo standard error
of any p-value is below 5e-5 and its resolution 1e-8, far below any level a correction asks
for, while one paired bootstrap of 25 queries takes about 10 minutes on one core (3.5 s per
10**6) and keeps 0.8 GB per pair. Beyond it the count is a typo (10**12 would run for weeks
in bounded memory), and it is refused before anything is drawn."""


def check_n_resamples(
    n_resamples: object,
    *,
    minimum: int = 1,
    bytes_per_resample: float | None = None,
    memory: float | None = None,
) -> int:
    """The one check of a number of resamples: an integer from ``minimum`` to
    ``MAX_RESAMPLES`` whose kept values fit in memory; return it.

    With ``bytes_per_resample`` (what is kept per resample, e.g. ``8 * n_systems`` bootstrap
    means), a count whose values could not fit in ``memory`` (default: this machine's physical
    memory) is refused with the size it asks for and the most that fits, rather than failing
    later in an allocation (or being killed for memory), as :func:`check_n_worlds` does.

    Examples
    --------
    >>> check_n_resamples(10**6)
    1000000
    >>> check_n_resamples(10**8, bytes_per_resample=8 * 50, memory=16e9)
    Traceback (most recent call last):
    ...
    ValueError: n_resamples=100000000 would keep 40 GB of resampled values (400 bytes per \
resample), more than the 16 GB of memory; at most 40000000 resamples fit
    >>> check_n_resamples(10**12)
    Traceback (most recent call last):
    ...
    ValueError: n_resamples must be an integer from 1 to 100000000 (10**8, MAX_RESAMPLES: the \
Monte Carlo error of a p-value is then below 5e-5); got 1000000000000
    """
    n_resamples = check_int("n_resamples", n_resamples, minimum=minimum)
    if n_resamples > MAX_RESAMPLES:
        raise ValueError(
            f"n_resamples must be an integer from {minimum} to {MAX_RESAMPLES} (10**8, "
            "MAX_RESAMPLES: the Monte Carlo error of a p-value is then below 5e-5); got "
            f"{n_resamples}"
        )
    if bytes_per_resample is not None:
        check_fits("n_resamples", n_resamples, bytes_per_resample, memory,
                    "resampled values", "resample")
    return n_resamples


def check_number(
    name: str,
    value: object,
    *,
    minimum: float = 0.0,
    maximum: float | None = None,
    strict: bool = False,
    none: bool = False,
) -> float | None:
    """Validate a finite real number ``>= minimum`` (``> minimum`` with ``strict``) and, when
    given, ``<= maximum``; return it as a float, or None when ``none`` allows it. Python's and
    NumPy's ints and floats are numbers; bools (True is not 1.0 here) and strings are refused.

    Examples
    --------
    >>> check_number("tol", np.float32(0.5)), check_number("prior", np.int64(0))
    (0.5, 0.0)
    >>> check_number("tol", True)
    Traceback (most recent call last):
    ...
    ValueError: tol must be a finite number >= 0; got True
    >>> check_number("temperature", 0, strict=True)
    Traceback (most recent call last):
    ...
    ValueError: temperature must be a finite number > 0; got 0
    >>> check_number("min_kappa", "0.4", minimum=-1, maximum=1)
    Traceback (most recent call last):
    ...
    ValueError: min_kappa must be a number within [-1, 1]; got '0.4'
    >>> check_number("smoothing", None, none=True) is None
    True
    """
    if value is None and none:
        return None
    ok = not isinstance(value, bool | np.bool_) and isinstance(value, Real)
    if ok:
        number = float(value)
        ok = (np.isfinite(number) and (number > minimum if strict else number >= minimum)
              and (maximum is None or number <= maximum))
    if not ok:
        if maximum is None:
            rule = f"a finite number {'>' if strict else '>='} {minimum:g}"
        else:
            rule = f"a number within {'(' if strict else '['}{minimum:g}, {maximum:g}]"
        raise ValueError(f"{name} must be {'None or ' if none else ''}{rule}; got {value!r}")
    return number


def check_memory_budget(memory_budget: object, name: str = "memory_budget") -> float:
    """Validate a memory budget, a number of bytes > 0 (bools are refused); return it as a
    float.

    Examples
    --------
    >>> check_memory_budget(64e6)
    64000000.0
    >>> check_memory_budget(0)
    Traceback (most recent call last):
    ...
    ValueError: memory_budget must be a number of bytes > 0; got 0
    """
    if (isinstance(memory_budget, bool) or not isinstance(memory_budget, Real)
            or not memory_budget > 0 or memory_budget == float("inf")):
        raise ValueError(f"{name} must be a number of bytes > 0; got {memory_budget!r}")
    return float(memory_budget)


def physical_memory() -> float | None:
    """Bytes of physical memory of this machine, or None where the system does not say.

    >>> physical_memory() is None or physical_memory() > 0
    True
    """
    try:
        return float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return None


def check_n_worlds(
    n_worlds: object,
    *,
    minimum: int = 0,
    bytes_per_world: float | None = None,
    memory: float | None = None,
    name: str = "n_worlds",
) -> int:
    """The one check of a number of sampled worlds: an integer >= ``minimum`` (0 means "no
    worlds, exact forms only" where that is allowed; samplers need at least one) whose kept
    values fit in memory; return it.

    Every measure of every system on every query is kept for each world (one float64 each), so
    the size of the work is known before anything is drawn: ``n_worlds * bytes_per_world``.
    With ``bytes_per_world``, a count whose values could not fit in ``memory`` (default: this
    machine's physical memory, :func:`physical_memory`; no limit where it is unknown) is
    refused with the size it asks for and the most that fits, rather than failing later in an
    allocation.

    Parameters
    ----------
    n_worlds : int
        Number of worlds.
    minimum : {0, 1}
        The fewest allowed.
    bytes_per_world : float, optional
        Bytes kept per world, e.g. ``8 * n_measures * n_systems * n_queries``.
    memory : float, optional
        Bytes available.
    name : str
        The parameter's name in messages.

    Examples
    --------
    >>> check_n_worlds(0), check_n_worlds(1000, bytes_per_world=8 * 3 * 2 * 50, memory=16e9)
    (0, 1000)
    >>> check_n_worlds(0, minimum=1)
    Traceback (most recent call last):
    ...
    ValueError: n_worlds must be a positive integer; got 0
    >>> check_n_worlds(10**12, bytes_per_world=2400, memory=16e9)
    Traceback (most recent call last):
    ...
    ValueError: n_worlds=1000000000000 would keep 2400 TB of world values (2400 bytes per \
world), more than the 16 GB of memory; at most 6666666 worlds fit
    """
    if minimum == 1:
        if isinstance(n_worlds, bool) or not isinstance(n_worlds, Integral) or n_worlds < 1:
            raise ValueError(f"{name} must be a positive integer; got {n_worlds!r}")
        n = int(n_worlds)
    else:
        n = check_int(name, n_worlds, minimum=minimum)
    if bytes_per_world is not None:
        check_fits(name, n, bytes_per_world, memory, "world values", "world")
    return n


def check_fits(name: str, n: int, bytes_each: float, memory: float | None, kept: str,
               unit: str) -> None:
    """``n`` units of ``bytes_each`` kept bytes fit in ``memory`` (default: the physical
    memory; no limit where it is unknown), else an error with the size asked and the most
    units that fit."""
    if memory is None:
        memory = physical_memory()
    need = n * float(bytes_each)
    if memory is not None and need > memory:
        most = int(memory // max(float(bytes_each), 1.0))
        raise ValueError(
            f"{name}={n} would keep {_bytes(need)} of {kept} ({bytes_each:.0f} bytes per "
            f"{unit}), more than the {_bytes(memory)} of memory; at most {most} {unit}s fit"
        )


def check_table_fits(need: float, what: str, advice: str = "",
                     memory: float | None = None) -> None:
    """``need`` bytes of dense tables fit in ``memory`` (default: the physical memory; no
    limit where it is unknown), else a ValueError: ``what`` (the tables, e.g. "a membership of
    100 items x 5 taxonomy nodes is two dense tables") with their size and the memory, then
    ``advice``. Called before the tables are made, where numpy's MemoryError, or the kernel's
    OOM killer, would name an array shape or nothing.

    >>> check_table_fits(80e9, "two dense tables", "; use fewer", memory=24e9)
    Traceback (most recent call last):
    ...
    ValueError: two dense tables of 80 GB, more than the 24 GB of memory; use fewer
    """
    memory = physical_memory() if memory is None else memory
    if memory is not None and need > memory:
        raise ValueError(f"{what} of {_bytes(need)}, more than the {_bytes(memory)} of "
                         f"memory{advice}")


def _bytes(size: float) -> str:
    """A size in bytes in the largest decimal unit that keeps it >= 1 (kB, MB, GB, TB).

    >>> _bytes(512), _bytes(2.5e9), _bytes(3e16)
    ('512 bytes', '2.5 GB', '30000 TB')
    """
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            digits = ".3g" if size < 1000 * scale else ".0f"
            return f"{size / scale:{digits}} {unit}"
    return f"{size:.0f} bytes"
