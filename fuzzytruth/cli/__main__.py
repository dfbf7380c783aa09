"""``python -m fuzzytruth.cli``: the command line, as the ``fuzzytruth`` script runs it."""

import sys

from fuzzytruth.cli.app import main

sys.exit(main())
