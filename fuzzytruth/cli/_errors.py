"""How the command line speaks to its user: one line per error or note, naming flags.

The library's messages name Python parameters (``n_worlds must be ...``, ``pass
duplicates='max'``); a command-line user types flags. Each command records which flag feeds
which parameter (:class:`Flags`, filled by the option builders of
:mod:`fuzzytruth.cli._options`), and every message is rewritten through that table before it is
printed: ``n_worlds=5`` becomes ``--n-worlds 5``, ``ties='docid_desc' or 'input_order'``
becomes ``--ties docid_desc or input_order``, ``confidence_level must`` becomes
``--confidence-level must``, and a parameter whose name no English word shares (one with an
underscore: ``give them in query_categories``) becomes its flag wherever it stands.

Examples
--------
>>> flags = Flags()
>>> flags.add("duplicates", "--duplicates", choices=("error", "max", "first", "last"))
>>> flags.add("n_worlds", "--n-worlds")
>>> flags.translate("run.txt, line 3: pass duplicates='max', 'first' or 'last' to keep one")
'run.txt, line 3: pass --duplicates max, first or last to keep one'
>>> flags.translate("n_worlds must be an integer >= 0; got -3")
'--n-worlds must be an integer >= 0; got -3'
>>> flags.translate("pass duplicates='first', 'last' or 'split' to choose a policy")
'pass --duplicates first or last to choose a policy'
>>> flags.add("query_categories", "--query-categories")
>>> flags.translate("query 'q9' has no category: give it in query_categories")
"query 'q9' has no category: give it in --query-categories"

A message naming an input by the name the library knows it by (a run's tag) also gets the flag
and file it came from:

>>> flags.source("run 'bm25'", "--run runs/bm25.txt")
>>> flags.translate("document(s) 'd9' of run 'bm25' are not items of the membership")
"document(s) 'd9' of run 'bm25' (--run runs/bm25.txt) are not items of the membership"
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable

__all__ = ["EXIT_INTERRUPTED", "EXIT_USAGE", "Flags", "UserError", "note", "one_line"]

EXIT_USAGE = 2
"""Exit status of a mistake in the command line or its files (argparse's own)."""
EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as shells report it)."""

_QUOTED = r"'[^']*'|\"[^\"]*\""
_VALUE = rf"(?:{_QUOTED}|[^\s,;:()\[\]]+)"
_MORE = rf"(?:(?:,\s*|\s+or\s+)(?:{_QUOTED}))*"
_TYPED = r"(?<=-m )\S+"
"""What the user typed after ``-m`` (``-m Acc(k=0): ...``), quoted in a message as typed."""
# a bare parameter name the library uses as the subject of a sentence
_SUBJECT = r"(?=\s+(?:must|applies|needs|is only|has to)\b|\s*(?:[<>]=?|==)\s)"


class UserError(Exception):
    """A mistake in the command line or its files: reported in one line, exit status 2."""


class Flags:
    """Which command-line flag feeds which library parameter, and the rewriting of messages."""

    def __init__(self) -> None:
        self._flags: dict[str, str] = {}
        self._choices: dict[str, tuple[str, ...]] = {}
        self._switches: set[str] = set()
        self._sources: dict[str, str] = {}

    def add(self, param: str, flag: str, choices: Iterable[object] | None = None,
            switch: bool = False) -> None:
        """Record that ``flag`` sets the library's parameter ``param``; with ``choices``, a
        message listing values of ``param`` lists only those the flag accepts; a ``switch``
        takes no value (``complete=True`` is ``-c``, not ``-c True``).

        Examples
        --------
        >>> flags = Flags()
        >>> flags.add("complete", "--complete", switch=True)
        >>> flags.translate("complete=True evaluates every item; complete=False skips them")
        '--complete evaluates every item; without --complete skips them'
        """
        self._flags[param] = flag
        if choices is not None:
            self._choices[param] = tuple(map(str, choices))
        if switch:
            self._switches.add(param)

    def source(self, phrase: str, where: str) -> None:
        """Record that the input a message calls ``phrase`` (``run 'bm25'``, or ``of the
        runs``) came from ``where`` (``--run runs/bm25.txt``): its first mention as a whole
        phrase gets ``(where)``.

        Examples
        --------
        >>> flags = Flags()
        >>> flags.source("in the truth", "--qrels q.txt")
        >>> flags.translate("no query of the runs is in the truth; the truth's queries: 0")
        "no query of the runs is in the truth (--qrels q.txt); the truth's queries: 0"
        """
        self._sources[phrase] = where

    def items(self) -> list[tuple[str, str]]:
        """``(parameter, flag)`` pairs, in the order they were added."""
        return list(self._flags.items())

    def __contains__(self, param: object) -> bool:
        return param in self._flags

    def translate(self, message: str) -> str:
        """``message`` with every Python parameter it names replaced by its flag; what the
        user typed after ``-m`` is left as typed (``Acc(k=0)`` is not ``--certainty 0``).

        Examples
        --------
        >>> flags = Flags()
        >>> flags.add("k", "--certainty")
        >>> flags.translate("-m Acc(k=0): must be a positive integer; k must be at most 3")
        '-m Acc(k=0): must be a positive integer; --certainty must be at most 3'
        """
        spellings = re.findall(_TYPED, message)
        for i, spelling in enumerate(spellings):  # set aside, put back as they were
            message = message.replace(spelling, f"\0{i}\0", 1)
        message = self._translated(message)
        for i, spelling in enumerate(spellings):
            message = message.replace(f"\0{i}\0", spelling, 1)
        return message

    def _translated(self, message: str) -> str:
        for param, flag in sorted(self._flags.items(), key=lambda item: -len(item[0])):
            name = re.escape(param)
            message = re.sub(
                rf"(?<![\w.\-'`]){name}=({_VALUE}{_MORE})",
                lambda m, p=param: self._setting(p, m.group(1)),
                message,
            )
            message = re.sub(rf"(?<![\w.\-'`]){name}{_SUBJECT}", flag, message)
            message = message.replace(f"the {param} option", flag)
            if "_" in param:  # a Python identifier wherever it stands
                message = re.sub(rf"(?<![\w.\-'`]){name}(?![\w'`])", flag, message)
        for phrase, where in self._sources.items():  # its first mention, as a whole phrase
            message = re.sub(rf"(?<![\w']){re.escape(phrase)}(?![\w'])",
                             lambda m, w=where: f"{m.group(0)} ({w})", message, count=1)
        return message


    def _setting(self, param: str, text: str) -> str:
        """``param=text`` as typed: the flag and its value, or a switch on or off."""
        flag = self._flags[param]
        if param in self._switches and text in ("True", "False"):
            return flag if text == "True" else f"without {flag}"
        return f"{flag} {self._values(param, text)}"

    def _values(self, param: str, text: str) -> str:
        """``'max', 'first' or 'last'`` -> ``max, first or last``: values as typed on a command
        line, only those the flag accepts when it has choices."""
        values = [v[1:-1] for v in re.findall(_QUOTED, text)] or [text]
        allowed = self._choices.get(param)
        kept = [v for v in values if allowed is None or v in allowed] or values
        return kept[0] if len(kept) == 1 else f"{', '.join(kept[:-1])} or {kept[-1]}"


def one_line(message: object) -> str:
    """A message on one line (the library's messages may wrap)."""
    return " ".join(str(message).split())


def note(message: object, flags: Flags | None = None) -> None:
    """Print ``fuzzytruth: note: ...`` on stderr, in one line, naming flags."""
    text = one_line(message)
    if flags is not None:
        text = flags.translate(text)
    print(f"fuzzytruth: note: {text}", file=sys.stderr)
