"""The command line's truth models: ``--truth-model``, ``--reliability``, ``--rankings`` and
``--classes`` on ``evaluate``, ``compare`` and ``agreement reliability``.

Oracles: the library called directly on the same files (the same numbers, the model named beside
the estimand); one-line errors naming the flags; the non-convergence warning as one note.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import fuzzytruth as ft
from fuzzytruth.cli import main
from fuzzytruth.datasets import dermatology, image_collection
from fuzzytruth.io import write_annotations, write_rankings, write_taxonomy, write_trec_run
from fuzzytruth.runs import Run
from fuzzytruth.truth.models import DawidSkene, PrIRN


def run(capsys, *args):
    """``fuzzytruth args`` in this process: (status, stdout, stderr)."""
    try:
        status = main(list(args))
    except SystemExit as stop:
        status = stop.code
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The image collection (12 queries, two systems) and 150 dermatology cases with two
    systems ranking the cases against each other (query-by-example)."""
    folder = tmp_path_factory.mktemp("truth_models")
    collection = image_collection()
    write_taxonomy(collection.taxonomy, folder / "taxonomy.json")
    write_annotations(collection.annotations, folder / "labels.csv")
    queries = sorted(collection.runs["strong"]["query_id"].unique())[:12]
    for name in ("strong", "weak"):
        frame = collection.run_objects()[name].to_dataframe()
        write_trec_run(Run.from_dataframe(frame[frame["query_id"].isin(queries)], name=name),
                       folder / f"{name}.txt")
    derm = dermatology()
    cases = derm.rankings.frame[derm.rankings.frame["item_id"] < 150]
    small = ft.Rankings.from_frame(cases, taxonomy=derm.taxonomy, classes=derm.conditions)
    write_rankings(small, folder / "derm.json")
    write_taxonomy(derm.taxonomy, folder / "derm_taxonomy.json")
    (folder / "conditions.txt").write_text("\n".join(derm.conditions) + "\n")
    items = [str(i) for i in range(150)]
    rng = np.random.default_rng(3)
    for name in ("a", "b"):
        write_trec_run(Run(np.repeat(items[:15], 150), np.tile(items, 15),
                           rng.random(15 * 150), name=name), folder / f"derm_{name}.txt")
    return folder, small


@pytest.fixture
def here(files, monkeypatch):
    monkeypatch.chdir(files[0])
    return files


IMAGES = ["--taxonomy", "taxonomy.json", "--annotations", "labels.csv", "--run", "strong.txt",
          "--run", "weak.txt"]
DERM = ["--taxonomy", "derm_taxonomy.json", "--rankings", "derm.json", "--classes",
        "conditions.txt", "--run", "derm_a.txt", "--run", "derm_b.txt"]


def test_evaluate_names_the_model_and_gives_the_library_s_numbers(capsys, here):
    status, out, err = run(capsys, "evaluate", *IMAGES, "-m", "P@10", "--n-worlds", "100",
                           "--truth-model", "dawid-skene", "--format", "csv")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out))
    assert set(table["estimand"]) == {"collection (truth model: dawid-skene)"}
    collection = image_collection()
    runs = {name: ft.read_trec_run(here[0] / f"{name}.txt") for name in ("strong", "weak")}
    expected = ft.evaluate(runs, DawidSkene().fit(collection.annotations), "P@10",
                           n_worlds=100, rng=0).aggregate()
    np.testing.assert_allclose(table["value"], expected["value"], rtol=0, atol=1e-12)
    # the default model is the shares, and it is named too
    _, out, _ = run(capsys, "evaluate", *IMAGES, "-m", "P@10", "--n-worlds", "50",
                    "--format", "csv")
    assert set(pd.read_csv(io.StringIO(out))["estimand"]) == {
        "collection (truth model: shares)"}


def test_compare_prints_the_model_in_its_estimand(capsys, here):
    status, out, err = run(capsys, "compare", *IMAGES, "-m", "P@10", "--n-worlds", "50",
                           "--truth-model", "one-coin")
    assert status == 0, err
    assert 'estimand "collection (truth model: one-coin)"' in " ".join(out.split())


def test_rankings_with_prirn_at_a_reliability(capsys, here):
    status, out, err = run(capsys, "evaluate", *DERM, "-m", "P@10", "--n-worlds", "50",
                           "--truth-model", "prirn", "--reliability", "3", "--format", "csv")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out))
    assert set(table["estimand"]) == {"collection (truth model: prirn)"}
    fit = PrIRN(temperature=3).fit(here[1])
    runs = {name: ft.read_trec_run(here[0] / f"derm_{name}.txt") for name in ("a", "b")}
    expected = ft.evaluate(runs, fit, "P@10", n_worlds=50, rng=0).aggregate()
    np.testing.assert_allclose(table["value"], expected["value"], rtol=0, atol=1e-12)
    assert table["method"].eq("exact").all()  # PrIRN's labels: independent items


def test_agreement_reliability_under_a_model(capsys, here):
    status, out, err = run(capsys, "agreement", "reliability", "--taxonomy", "taxonomy.json",
                           "--annotations", "labels.csv", "--truth-model", "dawid-skene",
                           "--format", "csv")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out))
    expected = ft.category_reliability(image_collection().annotations,
                                       truth_model="dawid-skene").to_frame()
    np.testing.assert_allclose(table["size"], expected["size"], rtol=1e-12)
    status, out, err = run(capsys, "agreement", "reliability", "--taxonomy",
                           "derm_taxonomy.json", "--rankings", "derm.json", "--classes",
                           "conditions.txt", "--truth-model", "irn", "--format", "csv")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("category")
    membership = ft.fit_truth(here[1], "irn").membership
    assert table.loc["high risk", "size"] == pytest.approx(
        membership.category_size("high risk"), abs=1e-9)
    # the columns that count one label per reader are left out, and said so (they were NaN,
    # 0 and empty on every row)
    library = ft.category_reliability(membership).to_frame().set_index("category")
    assert list(table.columns) == [c for c in library.columns if c not in (
        "closed_kappa", "n_confusions", "confused_with")]
    assert "closed_kappa, n_confusions and confused_with are left out" in err
    assert table["ambiguous"].equals(library["ambiguous"])


@pytest.mark.parametrize(("args", "flags"), [
    (["evaluate", *IMAGES, "--truth-model", "irn"], ("--truth-model irn", "--rankings")),
    (["evaluate", *IMAGES, "--truth-model", "dawid-skene", "--reliability", "2"],
     ("--reliability", "--truth-model dawid-skene")),
    (["evaluate", *DERM, "--truth-model", "prirn", "--reliability", "-1"],
     ("--reliability must be a finite number > 0",)),
    (["evaluate", "--qrels", "labels.csv", "--run", "strong.txt", "--truth-model", "mace"],
     ("--truth-model mace", "--qrels")),
    (["evaluate", "--taxonomy", "derm_taxonomy.json", "--rankings", "derm.json", "--run",
      "derm_a.txt", "--truth-model", "irn"], ("--rankings", "--classes")),
    (["agreement", "--taxonomy", "taxonomy.json", "--annotations", "labels.csv",
      "--truth-model", "mace"], ("--truth-model goes with the reliability view",)),
    (["agreement", "reliability", "--taxonomy", "taxonomy.json", "--annotations",
      "labels.csv", "--truth-model", "prirn"], ("--truth-model prirn", "--rankings")),
    (["compare", *IMAGES, "--truth-model", "nonsense"], ("--truth-model", "dawid-skene")),
])
def test_a_model_that_does_not_fit_the_input_is_one_line_naming_the_flag(capsys, here, args,
                                                                         flags):
    status, out, err = run(capsys, *args)
    assert status == 2 and not out
    assert len(err.strip().splitlines()) == 1, err
    for flag in flags:
        assert flag in err, err


def test_non_convergence_is_one_note(capsys, tmp_path):
    """6 items x 3 annotators on which Dawid–Skene's EM stops at 1,000 iterations."""
    from test_truth_models_evaluate import slow_annotations

    annotations = slow_annotations()
    write_annotations(annotations, tmp_path / "slow.csv")
    write_taxonomy(annotations.taxonomy, tmp_path / "tax.json")
    items = list(annotations.items)
    write_trec_run(Run(np.repeat(items, 6), np.tile(items, 6), np.arange(36.0), name="s"),
                   tmp_path / "s.txt")
    status, out, err = run(capsys, "evaluate", "--taxonomy", str(tmp_path / "tax.json"),
                           "--annotations", str(tmp_path / "slow.csv"), "--run",
                           str(tmp_path / "s.txt"), "-m", "P@3", "--truth-model",
                           "dawid-skene", "--n-worlds", "20")
    assert status == 0 and "dawid-skene" in out
    notes = [line for line in err.splitlines() if "did not converge" in line]
    assert len(notes) == 1 and notes[0].startswith("fuzzytruth: note: dawid-skene did not "
                                                   "converge: after 1000 iterations")
