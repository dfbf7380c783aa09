"""``python -m fuzzytruth.cli``: the command line, as the ``fuzzytruth`` script runs it."""

from fuzzytruth.cli.app import console

console()
