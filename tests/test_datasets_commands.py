"""The data sets' small commands and loaders tell a user what to do (issue 22, small fixes):
``--out`` folders are created, ``python -m`` runs each module once, and a missing CIFAR-10H
file says where to download it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fuzzytruth.datasets import read_cifar10h_counts, read_cifar10h_raw
from fuzzytruth.datasets.generate_image_collection import main as generate


@pytest.mark.parametrize(("reader", "file_name"), [
    (read_cifar10h_counts, "cifar10h-counts.npy"),
    (read_cifar10h_raw, "cifar10h-raw.zip"),
])
def test_missing_cifar10h_file_says_where_to_get_it(tmp_path, reader, file_name):
    path = tmp_path / file_name
    with pytest.raises(FileNotFoundError) as error:
        reader(path)
    message = str(error.value)
    assert message.startswith(f"{path}: no such file.")
    assert f"https://github.com/jcpeterson/cifar-10h: download data/{file_name}" in message
    assert "CC BY-NC-SA 4.0" in message


def test_generate_creates_a_missing_out_folder(tmp_path, capsys):
    out = tmp_path / "new" / "nested"
    generate(["--out", str(out)])
    written = sorted(p.name for p in out.iterdir())
    assert "image_collection_annotations.csv" in written
    assert capsys.readouterr().out.count("wrote ") == len(written)


def test_generate_out_must_be_a_folder(tmp_path, capsys):
    file = tmp_path / "file.txt"
    file.write_text("x")
    with pytest.raises(SystemExit) as stop:
        generate(["--out", str(file)])
    assert stop.value.code == 2
    assert f"--out must be a folder; {str(file)!r} exists and is not one" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("module", ["generate_image_collection", "convert_real"])
def test_python_m_runs_the_module_once(module):
    """runpy warned that the module was already in sys.modules (imported by the package)."""
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-m", f"fuzzytruth.datasets.{module}",
         "--help"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "RuntimeWarning" not in done.stderr
    assert f"python -m fuzzytruth.datasets.{module}" in done.stdout
