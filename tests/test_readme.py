"""The README quickstart runs as written and prints what its comments say."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_starts_with_the_two_setup_commands():
    text = README.read_text()
    first_block = re.search(r"```sh\n(.*?)```", text, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines() if line.strip()]
    assert commands == ["make demo", "make test"]


def test_quickstart_runs_and_prints_its_comments():
    code = re.search(r"## Quickstart\n\n```python\n(.*?)```", README.read_text(), re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {})
    printed = out.getvalue().splitlines()
    # the values the quickstart's comments announce
    assert printed[0] == "0.6"
    assert printed[1] == "0.6 (0.5, 1.0)"
    assert printed[-1] == "1.0 0.304"
