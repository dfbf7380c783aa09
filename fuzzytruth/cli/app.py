"""The ``fuzzytruth`` command: one module per sub-command, parsers built from the library.

Each command is a module of :mod:`fuzzytruth.cli` (listed in :data:`COMMANDS`) with

* ``HELP``: its one-line summary, and ``EXAMPLES``: the epilog of its ``--help``
  (``DESCRIPTION`` optionally);
* ``add_arguments(parser, flags)``: its options, built with :mod:`fuzzytruth.cli._options`
  (defaults read from the library's signatures, choices from its tables), each library
  parameter's flag recorded in ``flags``;
* ``run(args) -> int``: the work; it prints its whole output at once and returns the exit
  status.

A command's options are added when that command is parsed or its help is asked for, so
``fuzzytruth --help`` imports none of the library. Adding a command is one module and one
entry of :data:`COMMANDS`.

User errors (a bad option, a missing or malformed file, an unknown measure) print one line on
stderr naming a flag and exit with status 2; library warnings print as ``fuzzytruth: note:
...`` lines; Ctrl-C prints one line and exits with status 130.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from fuzzytruth import __version__
from fuzzytruth.cli._errors import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Flags,
    UserError,
    one_line,
)

__all__ = [
    "COMMANDS",
    "UserError",
    "add_command",
    "build_parser",
    "command_parsers",
    "console",
    "main",
]

COMMANDS = ("evaluate", "compare", "classify", "agreement", "displacement", "repro", "demo")
"""The sub-commands, each a module ``fuzzytruth.cli.<name>``, in the order ``--help`` lists."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose options are added on first use (``fill``), and whose errors
    are one line."""

    def __init__(self, *args: Any, fill: Callable[[argparse.ArgumentParser], None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._fill = fill
        self._intermixing = False

    def _filled(self) -> None:
        if self._fill is not None:
            fill, self._fill = self._fill, None
            fill(self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """A command's options and its positional files in any order, as trec_eval users
        write them (``evaluate QRELS -m map RUN``): argparse's intermixed parsing (which calls
        this method again, then plainly) for a command that takes a list of files; not for
        ``--help``, which intermixed parsing would print with its positionals switched off."""
        self._filled()
        files = any(a.nargs == "*" for a in self._get_positional_actions())
        if args is not None and not self._intermixing:
            args = self._trec_eval_spelling(list(args))
        if (self._intermixing or not files or args is None
                or any(a in ("-h", "--help") for a in args)):
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return super().parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False

    def _trec_eval_spelling(self, args: list[str]) -> list[str]:
        """``args`` with trec_eval's long options (:data:`~fuzzytruth.cli._options.
        TREC_EVAL_LONG`) spelled as this command's flags, those it has."""
        from fuzzytruth.cli._options import TREC_EVAL_LONG

        out = list(args)
        for i, arg in enumerate(args):
            name, equals, value = arg.partition("=")
            ours = TREC_EVAL_LONG.get(name)
            if ours is not None and ours in self._option_string_actions:
                out[i] = ours + equals + value
        return out

    def format_help(self) -> str:
        self._filled()
        return super().format_help()

    def format_usage(self) -> str:
        self._filled()
        return super().format_usage()

    def error(self, message: str) -> NoReturn:
        hint = _meant_choice(message) + _trec_eval_only(message)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}{hint} (see {self.prog} --help)\n")


_TREC_EVAL_ONLY = {
    "-v": "trec_eval's -v prints its version; fuzzytruth --version prints this tool's",
    "-D": "trec_eval's -D sets its debug level; fuzzytruth has no debug output",
}
"""trec_eval's flags that have no counterpart here, and what to say to a user who types one
(its other flags are this command's own, or spelled as its long options:
:data:`~fuzzytruth.cli._options.TREC_EVAL_LONG`)."""


def _trec_eval_only(message: str) -> str:
    """What argparse's "unrecognized arguments: ..." means for a trec_eval flag among them
    that fuzzytruth does not have (:data:`_TREC_EVAL_ONLY`), else ''.

    >>> _trec_eval_only("unrecognized arguments: -v")
    " (trec_eval's -v prints its version; fuzzytruth --version prints this tool's)"
    >>> _trec_eval_only("unrecognized arguments: -x")
    ''
    """
    if not message.startswith("unrecognized arguments: "):
        return ""
    given = message.removeprefix("unrecognized arguments: ").split()
    said = [text for flag, text in _TREC_EVAL_ONLY.items()
            if any(g[:2] == flag for g in given)]  # -D3: getopt's value joined
    return "".join(f" ({text})" for text in said)


def _meant_choice(message: str) -> str:
    """``did_you_mean``'s offer for argparse's "invalid choice: 'x' (choose from ...)" (a
    command or a flag's value: 'evalute' for evaluate, 'ttest' for t), else ''.

    >>> _meant_choice("argument COMMAND: invalid choice: 'evalute' (choose from 'evaluate', "
    ...               "'compare')")
    " (did you mean 'evaluate'?)"
    >>> _meant_choice("argument --method: invalid choice: 'ttest' (choose from t, bootstrap)")
    " (did you mean 't'?)"
    """
    from fuzzytruth._validation import did_you_mean  # on the error's path only: NumPy

    found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if found is None:
        return ""
    # the choices quoted (Python 3.11's argparse) or not (later versions): either way
    return did_you_mean(found[1], [c.strip("'\"") for c in found[2].split(", ")])


def _command(name: str) -> ModuleType:
    return importlib.import_module(f"fuzzytruth.cli.{name}")


def _fill(parser: argparse.ArgumentParser, module: ModuleType) -> None:
    flags = Flags()
    module.add_arguments(parser, flags)
    parser.set_defaults(handler=module.run, flags=flags)


def add_command(subparsers: Any, name: str) -> argparse.ArgumentParser:
    """Add command ``name`` (one of :data:`COMMANDS`) to ``subparsers`` (what
    ``parser.add_subparsers()`` returned): its options are added when it is first parsed if the
    sub-parsers are this module's, at once otherwise.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="tool")
    >>> _ = add_command(parser.add_subparsers(), "repro")
    >>> parser.parse_args(["repro", "section4"]).handler.__module__
    'fuzzytruth.cli.repro'
    """
    module = _command(name)
    options = {
        "help": module.HELP,
        "description": getattr(module, "DESCRIPTION", module.HELP),
        "epilog": module.EXAMPLES,
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }
    if subparsers._parser_class is _Parser:
        return subparsers.add_parser(name, fill=lambda p: _fill(p, module), **options)
    parser = subparsers.add_parser(name, **options)
    _fill(parser, module)
    return parser


def _agreement_parsers(subparsers: Any) -> None:
    """``fuzzytruth.cli_collection.add_parsers``, kept for one release."""
    add_command(subparsers, "agreement")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``fuzzytruth`` command (options added on first use)."""
    parser = _Parser(
        prog="fuzzytruth",
        description="Evaluate and compare retrieval systems when the ground truth is uncertain.",
        epilog="Run 'fuzzytruth COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"fuzzytruth {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=_Parser)
    for name in COMMANDS:
        add_command(sub, name)
    return parser


def command_parsers(parser: argparse.ArgumentParser | None = None) -> dict[str, Any]:
    """Every command's parser, its options added (this imports the library), by name.

    Its ``flags`` default (:class:`~fuzzytruth.cli._errors.Flags`) says which flag sets which
    library parameter: ``command_parsers()["evaluate"].get_default("flags")``.
    """
    parser = parser or build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command in sub.choices.values():
        command.format_usage()  # adds the options
    return dict(sub.choices)


def _check_inputs_exist(args: argparse.Namespace) -> None:
    """Every input file named on the command line exists and is not a folder (the output
    folder need not exist); a pipe such as ``<(zcat run.gz)`` is a file here, read once. The
    message names the flag, or the place in trec_eval's form (``QRELS``, ``RUN``)."""
    positional = getattr(args, "trec_eval_names", {})
    for name, value in vars(args).items():
        paths = value if isinstance(value, list) else [value]
        for path in paths:
            if name == "out" or not isinstance(path, Path):
                continue
            flag = positional.get(name, f"--{name.replace('_', '-')}")
            if not path.exists():
                raise UserError(f"no such file: {path} ({flag})")
            if path.is_dir():
                raise UserError(f"{path} is a folder, not a file ({flag})")


@contextlib.contextmanager
def _notes(flags: Flags) -> Iterator[None]:
    """Library warnings printed as ``fuzzytruth: note: ...``, one line each, naming flags, each
    message once."""
    seen: set[str] = set()

    def show(message: Warning | str, *_: object, **__: object) -> None:
        text = flags.translate(one_line(message))
        if text not in seen:
            seen.add(text)
            print(f"fuzzytruth: note: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("always", UserWarning)  # once per message (seen), not per line
        warnings.showwarning = show
        yield


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fuzzytruth`` command; returns the exit status (130 after a
    Ctrl-C, whatever the work did after it)."""
    status = None
    with _ctrl_c() as pressed:
        try:
            status = _main(argv)
        except KeyboardInterrupt:
            pass
        except Exception as err:
            if not (pressed() or _interrupted(err)):
                raise
    if status is not None and not pressed():
        return status
    print("fuzzytruth: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def _interrupted(err: BaseException | None) -> bool:
    """Whether ``err`` comes from a Ctrl-C: an extension module interrupted while it loads
    raises an ImportError caused by the KeyboardInterrupt."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return False


@contextlib.contextmanager
def _ctrl_c() -> Iterator[Callable[[], bool]]:
    """Inside the block, a Ctrl-C is remembered (the block gets a function that says whether
    one came) and not lost. A Ctrl-C can land where Python cannot raise it: in a callback of
    the import system or a finaliser, which prints "Exception ignored" and goes on with the
    work, or in an extension module that is loading, which may then fail later with an error
    that does not name the KeyboardInterrupt ('type "ObjSense" is already registered' from
    scipy's HiGHS module, seen under load: a traceback and status 1). The first is delivered
    again 10 ms later (raised in the hook that reports it, it would be lost the same way),
    and any error after a Ctrl-C is the interruption's. Outside the main thread, or when the
    program that calls :func:`main` has its own SIGINT handler, nothing changes."""
    import _thread
    import signal
    import threading

    pressed = threading.Event()
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield pressed.is_set
        return
    again: list[threading.Timer] = []
    previous_hook = sys.unraisablehook
    main_thread = threading.main_thread().ident

    def on_sigint(signum: int, frame: Any) -> None:
        pressed.set()
        signal.default_int_handler(signum, frame)

    def deliver() -> None:  # a real signal wakes a blocking call (interrupt_main does not)
        if hasattr(signal, "pthread_kill"):
            signal.pthread_kill(main_thread, signal.SIGINT)
        else:  # Windows
            _thread.interrupt_main(signal.SIGINT)

    def unraisable(event: Any) -> None:
        if isinstance(event.exc_value, KeyboardInterrupt):
            pressed.set()
            again.append(threading.Timer(0.01, deliver))
            again[-1].start()
        else:
            previous_hook(event)

    signal.signal(signal.SIGINT, on_sigint)
    sys.unraisablehook = unraisable
    try:
        yield pressed.is_set
    finally:
        for timer in again:
            timer.cancel()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = previous_hook


def console() -> NoReturn:
    """The ``fuzzytruth`` script: :func:`main`, then exit with its status.

    After a Ctrl-C the process ends at once (``os._exit``, the output flushed): a library
    interrupted half-way through loading an extension module can crash the interpreter's
    shutdown.
    """
    status = main()
    if status == EXIT_INTERRUPTED:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    flags: Flags = args.flags
    try:
        with _notes(flags):
            prepare = getattr(args, "prepare", None)  # options read together (_options)
            if prepare is not None:
                prepare(args)
            _check_inputs_exist(args)
            return args.handler(args)
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stderr.close()
        return 0
    except MemoryError:
        print(f"fuzzytruth {args.command}: error: not enough memory for this work",
              file=sys.stderr)
        return EXIT_USAGE
    except (UserError, ValueError, OSError) as err:
        message = flags.translate(one_line(err))
        if getattr(args, "trec_eval_names", None) and str(args.qrels) in message and (
                "whitespace-separated fields 'qid iter docno rel'; got 6:" in message):
            # a run's six fields where the qrels' four go: the files' order, likely
            message += " (trec_eval's form: the qrels file first, then the run files)"
        print(f"fuzzytruth {args.command}: error: {message}", file=sys.stderr)
        return EXIT_USAGE
