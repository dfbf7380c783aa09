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
    # the aggregate table: 3 systems x 2 measures, strong > medium > weak on both
    means = [float(line.split()[3]) for line in printed[1:7]]
    assert means[0] > means[2] > means[4] and means[1] > means[3] > means[5]
    # the comparison: every AP difference positive with an interval excluding 0
    for line in printed[8:11]:
        difference, low = float(line.split()[3]), float(line.split()[4])
        assert difference > 0 and low > 0
    assert printed[-2] == "0.667 (0.0, 1.0)"
    assert printed[-1] == "0.6"  # Santini's Figure 1 image, p(people)
