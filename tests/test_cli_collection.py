"""``fuzzytruth agreement``: each view in each output format against the library, flat labels
without a taxonomy, compressed input, and errors that name a command-line flag."""

import gzip
import io
import json

import pandas as pd
import pytest

from fuzzytruth import Taxonomy
from fuzzytruth.cli import main
from fuzzytruth.collection import (
    agreement,
    agreement_by_level,
    annotator_agreement,
    category_reliability,
)
from fuzzytruth.datasets import santini_illustrative
from fuzzytruth.io import read_annotations, write_annotations, write_taxonomy


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("agreement")
    data = santini_illustrative()
    write_taxonomy(data.taxonomy, folder / "tax.json")
    write_annotations(data.annotations, folder / "labels.csv")
    with gzip.open(folder / "labels.csv.gz", "wt") as handle:
        handle.write((folder / "labels.csv").read_text())
    return folder


def run(capsys, *args):
    status = main(["agreement", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_coefficients_csv_matches_the_library(files, capsys):
    status, out, err = run(
        capsys, "--taxonomy", str(files / "tax.json"), "--annotations", str(files / "labels.csv"),
        "--n-resamples", "200", "--seed", "3", "--format", "csv",
    )
    assert status == 0 and err == ""
    got = pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""])
    expected = agreement(santini_illustrative().annotations, n_resamples=200, rng=3).to_frame()
    assert got["measure"].tolist() == expected["measure"].tolist()
    for column in ("value", "ci_low", "ci_high"):
        pd.testing.assert_series_equal(got[column], expected[column], check_exact=False, rtol=1e-12)


@pytest.mark.parametrize(
    ("view", "function", "key"),
    [
        ("levels", agreement_by_level, "value"),
        ("reliability", category_reliability, "closed_kappa"),
        ("annotators", annotator_agreement, "mean_pairwise_kappa"),
    ],
)
def test_views_json_match_the_library(files, capsys, view, function, key):
    status, out, _ = run(
        capsys, view, "--taxonomy", str(files / "tax.json"), "--annotations",
        str(files / "labels.csv"), "--n-resamples", "0", "--format", "json",
    )
    assert status == 0
    rows = json.loads(out)
    kwargs = {"n_resamples": 0} if view == "levels" else {}
    expected = function(santini_illustrative().annotations, **kwargs).to_frame()
    got = pd.Series([r[key] for r in rows], dtype=float)
    pd.testing.assert_series_equal(got, expected[key].astype(float), check_names=False)


def test_text_output_and_flat_labels_from_a_compressed_file(files, capsys):
    status, out, _ = run(
        capsys, "--annotations", str(files / "labels.csv.gz"), "--n-resamples", "0"
    )
    assert status == 0 and out.splitlines()[0].split()[:3] == ["measure", "category", "value"]
    flat = read_annotations(files / "labels.csv", taxonomy=None)
    assert flat.taxonomy.leaves == tuple(sorted(santini_illustrative().taxonomy.nodes[1:]))
    kappa = agreement(flat, n_resamples=0).value("fleiss_kappa")
    line = next(s for s in out.splitlines() if s.strip().startswith("fleiss_kappa"))
    assert float(line.split()[1]) == pytest.approx(kappa, abs=5e-5)
    # on a flat label set the taxonomy metric is nominal: the two alphas coincide
    result = agreement(flat, n_resamples=0)
    assert result.value("taxonomy_alpha") == pytest.approx(result.value("krippendorff_alpha"))
    assert flat.taxonomy.root == Taxonomy.flat(["a"]).root  # the automatic root, not a label


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--n-resamples", "-1"], "--n-resamples"),
        (["--confidence-level", "1.5"], "--confidence-level"),
        (["--item-column", "image"], "--item-column"),
        (["--taxonomy", "missing.json"], "--taxonomy"),
        (["--taxonomy", "bad_tax.csv"], "--taxonomy"),
        (["--annotations", "dup.csv"], "--duplicates"),
        (["--annotations", "single.csv"], "--annotations"),
        (["--annotations", "latin1.csv"], "--encoding"),
    ],
)
def test_every_error_names_a_flag(files, capsys, monkeypatch, args, flag):
    monkeypatch.chdir(files)
    (files / "dup.csv").write_text("item_id,annotator_id,label\na,x,people\na,x,crowd\n")
    (files / "single.csv").write_text("item_id,annotator_id,label\na,x,people\nb,y,crowd\n")
    (files / "bad_tax.csv").write_text("child,parent\npeople,all\n")
    (files / "latin1.csv").write_bytes("item_id,annotator_id,label\né,x,people\n".encode("latin-1"))
    base = [] if "--annotations" in args else ["--annotations", "labels.csv"]
    status, out, err = run(capsys, *base, *args)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert flag in err, err
    for python_name in ("n_resamples", "confidence_level", "duplicates=", "item=", "encoding="):
        assert python_name not in err, err


@pytest.mark.parametrize(
    ("args", "flag"),
    [(["--metric", "cosine"], "--metric"), (["--duplicates", "split"], "--duplicates")],
)
def test_option_values_are_checked_by_the_parser(files, capsys, args, flag):
    with pytest.raises(SystemExit) as stop:
        main(["agreement", "--annotations", str(files / "labels.csv"), *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert flag in err and len(err.strip().splitlines()) == 1


def test_help_has_examples(capsys):
    with pytest.raises(SystemExit):
        main(["agreement", "--help"])
    out = capsys.readouterr().out
    assert "examples:" in out and "fuzzytruth agreement levels" in out
