"""Predictions as data: construction checks, the file readers and writers, and the
``fuzzytruth classify`` command."""

import json

import numpy as np
import pandas as pd
import pytest

from fuzzytruth.classify import Predictions
from fuzzytruth.cli import main
from fuzzytruth.io import read_predictions, write_predictions


def test_construction_checks_name_the_item_and_class():
    with pytest.raises(ValueError, match=r"item 'y', class 'b' is inf"):
        Predictions([[0.5, 0.5], [0.1, np.inf]], items=["x", "y"], classes=["a", "b"])
    with pytest.raises(ValueError, match=r"class ids must be unique; repeated: 'a'"):
        Predictions([[0.5, 0.5]], items=["x"], classes=["a", "a"])
    with pytest.raises(ValueError, match=r"shape \(n_items, n_classes\) = \(1, 3\)"):
        Predictions([[0.5, 0.5]], items=["x"], classes=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"within \[0, 1\]; item 'x' has -0.5"):
        Predictions([[1.5, -0.5]], items=["x"], classes=["a", "b"], probabilities=True)
    assert not Predictions([[1.5, -0.5]], items=["x"], classes=["a", "b"]).probabilities
    # float32 rows summing to 1 within sqrt(float32 eps) are probabilities
    p32 = np.array([[0.1, 0.2, 0.7]], dtype=np.float32)
    assert Predictions(p32, items=["x"], classes="abc").scores.dtype == np.float32
    assert Predictions(p32, items=["x"], classes="abc").probabilities


@pytest.mark.parametrize(("layout", "fmt"), [("long", "csv"), ("wide", "tsv"),
                                              ("long", "parquet"), ("wide", "parquet"),
                                              ("long", "npz")])
def test_files_round_trip(tmp_path, layout, fmt):
    p = Predictions(np.random.default_rng(0).dirichlet(np.ones(4), 5),
                    items=[f"i{i}" for i in range(5)], classes=["w", "x", "y", "z"], name="net")
    path = tmp_path / f"net.{fmt}"
    write_predictions(p, path, layout=layout)
    back = read_predictions(path)
    assert back.name == "net" and back.classes == p.classes and list(back.items) == list(p.items)
    assert back.scores == pytest.approx(p.scores, rel=1e-15)


def test_npy_needs_its_classes(tmp_path):
    path = tmp_path / "m.npy"
    np.save(path, np.eye(3))
    with pytest.raises(ValueError,
                       match=r"does not name its classes; give them \(argument 'classes'"):
        read_predictions(path)
    names = tmp_path / "classes.txt"
    names.write_text("a\nb\nc\n")
    p = read_predictions(path, classes=names, items=["x", "y", "z"])
    assert p.classes == ("a", "b", "c") and p.probabilities


def test_malformed_tables_name_file_and_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("item_id,class,score\nx,a,0.5\nx,b,0.5\ny,a,1\nx,a,0.2\n")
    with pytest.raises(ValueError, match=r"bad.csv, line 5: item 'x' has a second score for "
                                         r"class 'a' \(first at .*line 2\)"):
        read_predictions(path)
    path.write_text("item_id,class,score\nx,a,0.5\nx,b,0.5\ny,a,1\n")
    with pytest.raises(ValueError, match=r"bad.csv: item 'y' has no score for class 'b'"):
        read_predictions(path)
    path.write_text("item_id,a,b\nx,0.5,0.5\ny,nan,1\n")
    with pytest.raises(ValueError, match=r"bad.csv, line 3: column 'a' must hold finite"):
        read_predictions(path)
    path.write_text("id,a,b\nx,0.5,0.5\n")
    with pytest.raises(ValueError,
                       match=r"bad.csv, line 1: header must name the columns \['item_id'\]"):
        read_predictions(path)



def test_a_wide_frame_names_a_value_that_is_not_a_number():
    """from_wide coerced 'oops' to NaN and the constructor then said "item 'y', class 'cat'
    is nan", a value the frame does not hold; a NaN given stays refused as such."""
    wide = pd.DataFrame({"cat": [0.9, "oops"], "dog": [0.1, 0.5]}, index=["x", "y"])
    with pytest.raises(ValueError, match=r"^frame must hold numbers; item 'y', class 'cat' is "
                       r"'oops'$"):
        Predictions.from_wide(wide)
    wide = pd.DataFrame({"cat": [0.9, np.nan], "dog": [0.1, 0.5]}, index=["x", "y"])
    with pytest.raises(ValueError, match=r"scores must be finite; item 'y', class 'cat' is nan"):
        Predictions.from_wide(wide)


@pytest.mark.parametrize("missing", [None, np.nan])
def test_a_missing_item_or_class_id_is_refused_with_its_row(tmp_path, missing):
    """A row whose item id was missing (None, NaN; pandas' str() keeps it missing) was
    factorized to -1 and its score written into the last item's cells: x below, which scores
    class 'a' only, came out as [0.7, 0.3] without a word."""
    frame = pd.DataFrame({"item_id": ["x", missing], "class": ["a", "b"], "score": [0.7, 0.3]})
    with pytest.raises(ValueError, match=r"^row 1: the item id must not be missing"):
        Predictions.from_frame(frame)
    frame = pd.DataFrame({"item_id": ["x", "x"], "class": ["a", missing], "score": [0.7, 0.3]})
    with pytest.raises(ValueError, match=r"^row 1: the class id must not be missing"):
        Predictions.from_frame(frame)
    path = tmp_path / "null.parquet"
    pd.DataFrame({"item_id": ["y", "y", "x", missing], "class": ["a", "b", "a", "b"],
                  "score": [0.5, 0.5, 0.7, 0.3]}).to_parquet(path)
    with pytest.raises(ValueError, match=r"null.parquet, row 4: the item id must not be missing"):
        read_predictions(path)


@pytest.mark.parametrize("as_path", [str, lambda p: p])
def test_a_long_table_takes_its_classes_order_from_a_file(tmp_path, as_path):
    """classes= may name a text file, one class per line: for a long table the path was
    split into its characters (a str: 'class ids must be unique; repeated: '/', ...') or
    refused by list() (a Path, as --prediction-classes gives it)."""
    table = tmp_path / "long.csv"
    table.write_text("item_id,class,score\nx,cat,0.9\nx,dog,0.1\ny,cat,0.2\ny,dog,0.8\n")
    names = tmp_path / "classes.txt"
    names.write_text("dog\ncat\n")
    from_file = read_predictions(table, classes=as_path(names))
    from_list = read_predictions(table, classes=["dog", "cat"])
    assert from_file.classes == from_list.classes == ("dog", "cat")
    assert from_file.scores.tolist() == from_list.scores.tolist() == [[0.1, 0.9], [0.8, 0.2]]


def test_a_wide_table_takes_the_order_of_its_class_columns_from_classes(tmp_path):
    """classes= was silently ignored for a wide table (the classifier hunt): an ordinal
    scale written low, high, medium was scored in that order by the Wasserstein distance.
    It orders the columns now, and must name each class column once."""
    table = tmp_path / "wide.csv"
    table.write_text("item_id,low,high,medium\nx,0.2,0.5,0.3\ny,0.6,0.1,0.3\n")
    ordered = read_predictions(table, classes=["low", "medium", "high"])
    assert ordered.classes == ("low", "medium", "high")
    assert ordered.scores.tolist() == [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]
    assert read_predictions(table).classes == ("low", "high", "medium")  # the header's order
    for wrong in (["low", "high"], ["low", "high", "medium", "extreme"],
                  ["low", "low", "high"]):
        with pytest.raises(ValueError, match=r"wide.csv: classes must name the table's class "
                           r"columns, each once, in the order wanted; got"):
            read_predictions(table, classes=wrong)


@pytest.mark.parametrize("fmt", ["parquet", "npy", "npz"])
def test_corrupt_binary_files_are_one_error_naming_the_file(tmp_path, fmt):
    path = tmp_path / f"broken.{fmt}"
    path.write_bytes(b"not a real file\n")
    with pytest.raises(ValueError, match=rf"broken.{fmt}: not a readable"):
        read_predictions(path, classes=["a", "b"])


def test_compressed_csv_and_npy_read_through_the_shared_cap(tmp_path):
    import gzip

    p = Predictions([[0.25, 0.75], [1.0, 0.0]], items=["x", "y"], classes=["a", "b"], name="n")
    write_predictions(p, tmp_path / "n.csv.gz")
    assert read_predictions(tmp_path / "n.csv.gz").scores.tolist() == p.scores.tolist()
    np.save(tmp_path / "m.npy", p.scores)
    (tmp_path / "m.npy.gz").write_bytes(gzip.compress((tmp_path / "m.npy").read_bytes()))
    assert read_predictions(tmp_path / "m.npy.gz", classes=["a", "b"]).scores.tolist() == \
        p.scores.tolist()
    with pytest.raises(ValueError, match=r"m.npy.gz: .*max_decompressed_bytes"):
        read_predictions(tmp_path / "m.npy.gz", classes=["a", "b"], max_decompressed_bytes=10)

def test_an_npz_archive_inflates_only_within_the_cap(tmp_path):
    """The .npz path skipped the decompression cap: a 1 MB archive whose member inflated to
    a 1 GB array (2**27 items) was unpacked and the process was killed for memory at 24 GB.
    The members' declared sizes are now held to the cap before anything is inflated."""
    path = tmp_path / "zeros.npz"
    np.savez_compressed(path, scores=np.zeros((100, 100)), classes=np.arange(100).astype(str))
    assert path.stat().st_size < 2_000  # 80 KB of zeros
    assert read_predictions(path).scores.shape == (100, 100)
    with pytest.raises(ValueError, match=r"zeros.npz: this .npz file decompresses to more than "
                       r"10,000 bytes \(max_decompressed_bytes\); if it is genuine"):
        read_predictions(path, max_decompressed_bytes=10_000)


@pytest.mark.parametrize("fmt", ["npy", "npz"])
def test_an_array_header_that_declares_more_than_the_file_holds_is_refused(tmp_path, fmt):
    """numpy allocates what the header declares before reading: a 64-byte .npy declaring
    10**6 x 10**6 raised MemoryError ('Unable to allocate 7.28 TiB') out of the reader."""
    import io
    import zipfile

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)})
    payload = header.getvalue() + bytes(64)
    path = tmp_path / f"huge.{fmt}"
    if fmt == "npy":
        path.write_bytes(payload)
        what = "the array"
    else:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("scores.npy", payload)
        what = "its member 'scores.npy'"
    with pytest.raises(ValueError, match=rf"huge.{fmt}: {what} declares shape \(1000000, "
                       r"1000000\) of float64 \(8,000,000,000,000 bytes\) but holds 64 bytes"):
        read_predictions(path, classes=["a", "b"])


def test_an_npz_with_an_unknown_compression_method_names_the_file(tmp_path):
    """Found by benchmarks/hostile_inputs.py at 4,000 files per format: a flipped byte in a
    member's compression method made zipfile raise NotImplementedError out of the reader."""
    path = tmp_path / "net.npz"
    write_predictions(Predictions([[0.5, 0.5]], items=["x"], classes=["a", "b"]), path)
    data = bytearray(path.read_bytes())
    data[8] = 0x63  # the first local header's compression method: 99 (AES), unsupported
    start = data.rindex(b"PK\x01\x02")  # and the central directory's record of it
    data[start + 10] = 0x63
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"net.npz: not a readable .npz file \(.*compression"):
        read_predictions(path)


@pytest.fixture
def collection(tmp_path):
    rng = np.random.default_rng(0)
    classes = ["cat", "dog", "cow"]
    truth = rng.integers(0, 3, 40)
    rows = [(f"i{i}", f"a{a}", classes[t if rng.random() < 0.7 else rng.integers(3)])
            for i, t in enumerate(truth) for a in range(3)]
    pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]).to_csv(
        tmp_path / "labels.csv", index=False)
    (tmp_path / "tax.json").write_text(json.dumps({"animal": {c: {} for c in classes}}))
    for name, strength in (("good", 2.0), ("weak", 0.5)):
        logits = rng.normal(size=(40, 3))
        logits[np.arange(40), truth] += strength
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        write_predictions(Predictions(p, items=[f"i{i}" for i in range(40)], classes=classes,
                                      name=name), tmp_path / f"{name}.csv")
    return tmp_path


def run_cli(capsys, *argv):
    status = main(["classify", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def test_classify_command(collection, capsys):
    d = collection
    status, out, err = run_cli(capsys, "--predictions", d / "good.csv", "--predictions",
                               d / "weak.csv", "--annotations", d / "labels.csv", "--taxonomy",
                               d / "tax.json", "-m", "top1", "-m", "CE", "--format", "csv",
                               "--human", "--n-worlds", "50")
    assert status == 0, err
    table = pd.read_csv(pd.io.common.StringIO(out))
    assert set(table["system"]) == {"good", "weak", "annotators (leave-one-out)"}
    assert set(table["measure"]) == {"Acc", "CE"}
    value = table.set_index(["system", "measure"])["value"]
    assert value["good", "Acc"] > value["weak", "Acc"]
    status, out, _ = run_cli(capsys, "--predictions", d / "good.csv", "--predictions",
                             d / "weak.csv", "--annotations", d / "labels.csv", "--taxonomy",
                             d / "tax.json", "--truth-model", "dawid-skene", "--compare",
                             "--n-worlds", "50", "--format", "json")
    assert status == 0
    rows = json.loads(out)
    assert rows[0]["system_a"] == "good"
    assert rows[0]["estimand"] == "collection (truth model: dawid-skene)"


def test_classify_reports_top5_by_default_only_above_five_classes(collection, capsys):
    """Without -m: Acc, and top-5 accuracy only where every classifier has more than 5
    classes (over 3 classes it is 1 whatever the scores, and warns: a default would show a
    warning and a meaningless 1.0 on every such collection)."""
    d = collection
    base = ["--annotations", d / "labels.csv", "--taxonomy", d / "tax.json", "--format", "csv"]
    status, out, err = run_cli(capsys, "--predictions", d / "good.csv", *base)
    assert status == 0, err
    assert pd.read_csv(pd.io.common.StringIO(out))["measure"].tolist() == ["Acc"]
    assert "top 5" not in err
    classes = [f"c{j}" for j in range(6)]
    rows = [(f"i{i}", f"a{a}", classes[(i + a) % 6]) for i in range(12) for a in range(3)]
    pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]).to_csv(
        d / "six.csv", index=False)
    (d / "six.json").write_text(json.dumps({"root": {c: {} for c in classes}}))
    scores = np.random.default_rng(1).dirichlet(np.ones(6), size=12)
    write_predictions(Predictions(scores, items=[f"i{i}" for i in range(12)], classes=classes,
                                  name="six"), d / "six_pred.csv")
    status, out, err = run_cli(capsys, "--predictions", d / "six_pred.csv", "--annotations",
                               d / "six.csv", "--taxonomy", d / "six.json", "--format", "csv")
    assert status == 0, err
    assert pd.read_csv(pd.io.common.StringIO(out))["measure"].tolist() == ["Acc", "Acc@5"]
    assert "top 5" not in err
    status, _, err = run_cli(capsys, "--predictions", d / "good.csv", *base, "-m", "top5")
    assert status == 0  # asked for: warned, in the library's words (k is no flag here)
    assert "measure 'Acc@5': its top 5 holds all 3 classes of the predictions 'good'" in err


def test_classify_command_errors_are_one_line(collection, capsys):
    d = collection
    status, _, err = run_cli(capsys, "--predictions", d / "good.csv", "--annotations",
                             d / "labels.csv")
    assert status == 2 and "--annotations needs --taxonomy" in err
    status, _, err = run_cli(capsys, "--predictions", d / "good.csv", "--annotations",
                             d / "labels.csv", "--taxonomy", d / "tax.json", "--truth-model",
                             "irn")
    assert status == 2 and "--truth-model irn needs partial rankings" in err
    status, _, err = run_cli(capsys, "--predictions", d / "good.csv", "--annotations",
                             d / "labels.csv", "--taxonomy", d / "tax.json", "-m", "AP")
    assert status == 2 and "reads a ranked run" in err and len(err.strip().splitlines()) == 1
    status, _, err = run_cli(capsys, "--predictions", d / "good.csv", "--predictions",
                             d / "good.csv", "--annotations", d / "labels.csv", "--taxonomy",
                             d / "tax.json")
    assert status == 2 and "two classifiers are named 'good'" in err


def test_classify_compare_text_is_the_compare_command_s(collection, capsys):
    """--compare prints the report's comparison text, as fuzzytruth compare does: the
    procedure and estimand in words, the worlds and the seed, no B for a t test."""
    d = collection
    status, out, err = run_cli(capsys, "--predictions", d / "good.csv", "--predictions",
                               d / "weak.csv", "--annotations", d / "labels.csv", "--taxonomy",
                               d / "tax.json", "-m", "Acc", "--compare", "--n-worlds", "50")
    assert status == 0, err
    text = " ".join(out.split())
    assert "paired t test" in text and "50 sampled ground-truth worlds, seed 0" in text
    assert "B =" not in text


def test_classify_takes_the_issue_s_and_scikit_learn_s_spellings(collection, capsys):
    """Issue 21's own example (-m top1 -m top5 -m ce) and scikit-learn's names run, and give
    the canonical measures' numbers."""
    d = collection
    base = ["--predictions", d / "good.csv", "--annotations", d / "labels.csv", "--taxonomy",
            d / "tax.json", "--n-worlds", "20", "--format", "csv"]
    status, out, err = run_cli(capsys, *base, "-m", "top1", "-m", "top5", "-m", "ce",
                               "-m", "brier", "-m", "ece")
    assert status == 0, err
    aliased = pd.read_csv(pd.io.common.StringIO(out))
    assert list(aliased["measure"]) == ["Acc", "Acc@5", "CE", "Brier", "ECE"]
    status, out, err = run_cli(capsys, *base, "-m", "accuracy", "-m", "log_loss", "-m", "Brier")
    sklearn = pd.read_csv(pd.io.common.StringIO(out)).set_index("measure")["value"]
    status, out, err = run_cli(capsys, *base, "-m", "Acc", "-m", "CE", "-m", "Brier")
    canonical = pd.read_csv(pd.io.common.StringIO(out)).set_index("measure")["value"]
    assert sklearn.to_dict() == canonical.to_dict()
    assert aliased.set_index("measure")["value"]["CE"] == canonical["CE"]


def test_npy_predictions_take_item_ids_from_a_file(collection, tmp_path, capsys):
    d = collection
    p = read_predictions(d / "good.csv")
    np.save(tmp_path / "net.npy", p.scores)
    (tmp_path / "classes.txt").write_text("\n".join(p.classes) + "\n")
    (tmp_path / "items.txt").write_text("\n".join(map(str, p.items)) + "\n")
    back = read_predictions(tmp_path / "net.npy", classes=tmp_path / "classes.txt",
                            items=tmp_path / "items.txt")
    assert list(back.items) == list(p.items) and back.scores.tolist() == p.scores.tolist()
    argv = ["--annotations", d / "labels.csv", "--taxonomy", d / "tax.json", "-m", "Acc",
            "--n-worlds", "0", "--format", "csv"]
    status, out, err = run_cli(capsys, "--predictions", tmp_path / "net.npy",
                               "--prediction-classes", tmp_path / "classes.txt",
                               "--prediction-items", tmp_path / "items.txt", *argv)
    assert status == 0, err
    status, reference, _ = run_cli(capsys, "--predictions", d / "good.csv", *argv)
    assert out.replace("net,", "good,") == reference
    # without the item ids the rows are 0, 1, ...: no item of the truth, one clear error
    status, _, err = run_cli(capsys, "--predictions", tmp_path / "net.npy",
                             "--prediction-classes", tmp_path / "classes.txt", *argv)
    assert status == 2 and "no item of the predictions is in the truth" in err
    status, _, err = run_cli(capsys, "--predictions", d / "good.csv", "--prediction-items",
                             tmp_path / "items.txt", *argv)
    assert status == 2 and "--prediction-items applies to a NumPy matrix" in err


def test_complete_is_named_as_the_switch_it_is(collection, capsys):
    d = collection
    p = read_predictions(d / "good.csv")
    write_predictions(p.subset(list(p.items)[:30]), d / "short.csv")
    argv = ["--predictions", d / "short.csv", "--annotations", d / "labels.csv", "--taxonomy",
            d / "tax.json", "-m", "Acc", "--n-worlds", "0", "--format", "csv"]
    status, out, err = run_cli(capsys, *argv, "-c")
    assert status == 2
    assert "--complete evaluates every item of the truth, and there are 10 item(s)" in err
    assert "True" not in err
    status, out, err = run_cli(capsys, *argv)
    assert status == 0
    assert "10 item(s) of the truth missing from the predictions" in err
    assert "not evaluated (without --complete)" in err
    assert pd.read_csv(pd.io.common.StringIO(out))["n_items"].tolist() == [30]


def test_classify_text_says_what_its_intervals_mean(collection, capsys):
    """Issue 22: the text table of classify printed no notes, where evaluate's does; the
    notes are the report's (system_notes), read off the evaluation, items for queries."""
    d = collection
    status, out, err = run_cli(capsys, "--predictions", d / "good.csv", "--predictions",
                               d / "weak.csv", "--annotations", d / "labels.csv", "--taxonomy",
                               d / "tax.json", "-m", "Acc", "--n-worlds", "50")
    assert status == 0, err
    text = " ".join(out.split())
    assert ('ci_low, ci_high: the 95% t interval over the 40 items (estimand "collection '
            '(truth model: shares)"): where the mean would fall with new items like these') in text
    assert ("truth_low, truth_high: the middle 95% of the mean over 50 sampled ground-truth "
            "worlds, the items held fixed") in text
    status, out, err = run_cli(capsys, "--predictions", d / "good.csv", "--annotations",
                               d / "labels.csv", "--taxonomy", d / "tax.json", "-m", "Acc",
                               "--n-worlds", "50", "--format", "csv")
    assert status == 0 and "truth_low" in out.splitlines()[0] and "t interval" not in out


def test_classify_certainty_is_annotation_certainty_s_mean_over_the_items(collection, capsys):
    """--certainty K adds the truth's rank-K annotation certainty: its mean over the truth's
    items with the t interval of the per-item values (-q: the values themselves), the numbers
    of annotation_certainty on the same fit with the same seed."""
    from scipy import stats

    from fuzzytruth import Annotations, Taxonomy
    from fuzzytruth.classify import annotation_certainty
    from fuzzytruth.truth.models import DawidSkene

    d = collection
    base = ["--predictions", d / "good.csv", "--annotations", d / "labels.csv", "--taxonomy",
            d / "tax.json", "--truth-model", "dawid-skene", "-m", "Acc", "--n-worlds", "200",
            "--seed", "3", "--format", "csv"]
    status, out, err = run_cli(capsys, *base, "--certainty", "1", "--certainty", "2")
    assert status == 0, err
    table = pd.read_csv(pd.io.common.StringIO(out)).set_index(["system", "measure"])
    rows = table.loc["truth (annotation certainty)"]
    assert list(rows.index) == ["certainty@1", "certainty@2"]
    ann = Annotations.from_frame(pd.read_csv(d / "labels.csv"),
                                 taxonomy=Taxonomy.from_nested(json.loads(
                                     (d / "tax.json").read_text())))
    fit = DawidSkene().fit(ann)
    for k in (1, 2):
        values = annotation_certainty(fit, k=k, n_worlds=200, rng=3).certainty.to_numpy()
        row = rows.loc[f"certainty@{k}"]
        half = stats.t.ppf(0.975, 39) * values.std(ddof=1) / np.sqrt(40)  # scipy's quantile
        assert row["value"] == pytest.approx(values.mean(), abs=1e-12)
        assert row["ci_high"] - row["value"] == pytest.approx(half, rel=1e-9)
        assert row["value"] - row["ci_low"] == pytest.approx(half, rel=1e-9)
        assert row["n_items"] == 40 and row["method"] == "worlds"
        assert (values >= 1 / 3).all() and (values <= 1).all()
    assert rows.loc["certainty@1", "value"] > rows.loc["certainty@2", "value"]
    status, out, err = run_cli(capsys, *base, "--certainty", "1", "-q")
    assert status == 0, err
    per_item = pd.read_csv(pd.io.common.StringIO(out))
    mine = per_item[per_item["system"] == "truth (annotation certainty)"]
    expected = annotation_certainty(fit, k=1, n_worlds=200, rng=3).certainty
    assert mine["item_id"].tolist() == list(expected.index)
    assert mine["mean"].to_numpy() == pytest.approx(expected.to_numpy(), abs=1e-12)


def test_classify_certainty_errors_name_the_flag(collection, capsys):
    """--certainty's errors name the flag, the allowed values and what was given; a measure
    spelled with k= in -m keeps its spelling in its own message (the flag of k is
    --certainty); a text table says what the rows mean."""
    d = collection
    base = ["--predictions", d / "good.csv", "--annotations", d / "labels.csv", "--taxonomy",
            d / "tax.json", "-m", "Acc", "--n-worlds", "50"]
    status, out, err = run_cli(capsys, *base, "--certainty", "1")
    assert status == 0, err
    assert "certainty@K: per item, the largest share" in " ".join(out.split())
    for extra, message in (
        (["--certainty", "0"], "--certainty must be a rank of at least 1 (1 = the most "
                               "plausible class); got 0"),
        (["--certainty", "4"], "--certainty must be at most the number of classes (3); "
                               "got 4"),
        (["--certainty", "1", "--compare"], "--certainty describes the truth"),
        (["-m", "Acc(k=0)"], "-m Acc(k=0): parameter 'k' of measure 'Acc': must be a "
                             "positive integer; got '0'"),
    ):
        status, _, err = run_cli(capsys, *base, *extra)
        assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
    status, _, err = run_cli(capsys, "--predictions", d / "good.csv", "--qrels",
                             d / "labels.csv", "--certainty", "1")
    assert status == 2 and "--certainty needs a categorical truth" in err


def test_a_parquet_file_with_broken_pandas_metadata_is_one_error_naming_it(tmp_path):
    # found by benchmarks/hostile_inputs.py (1,500 files per format): a flipped byte in the
    # pandas metadata of a predictions Parquet file raised KeyError 'index_columns' from
    # pyarrow's to_pandas instead of the readers' one ValueError naming the file
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(pd.DataFrame({"item_id": ["x"], "class": ["a"],
                                               "score": [1.0]}))
    pandas_meta = json.loads(table.schema.metadata[b"pandas"])
    del pandas_meta["index_columns"]
    path = tmp_path / "pred.parquet"
    pq.write_table(table.replace_schema_metadata({b"pandas": json.dumps(pandas_meta)}), path)
    with pytest.raises(ValueError, match=rf"^{path}: not a readable Parquet file \("):
        read_predictions(path)


def test_a_predictions_parquet_file_goes_through_the_decompression_cap(tmp_path):
    # the predictions reader had its own Parquet reading, without the cap that the other
    # Parquet readers check against the size the footer declares
    frame = pd.DataFrame({"item_id": [f"i{k}" for k in range(2_000)], "a": 0.5, "b": 0.5})
    path = tmp_path / "wide.parquet"
    frame.to_parquet(path)
    assert read_predictions(path).n_items == 2_000  # the default cap: 256 MiB at least
    with pytest.raises(ValueError, match=rf"^{path}: this Parquet file decodes to about "
                                         r"[\d,]+ bytes, more than 4,096"):
        read_predictions(path, max_decompressed_bytes=4_096)


def test_a_parquet_string_that_is_not_utf8_names_the_file(tmp_path):
    """Found by benchmarks/hostile_inputs.py at 6,000 files per format: pyarrow's Parquet
    reader does not check that text is UTF-8, so a flipped byte in a string page was read and
    failed later, outside the reader's handler, as pyarrow.ArrowException ('Wrapping ...
    failed'). The table is now validated as it is read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "net.parquet"
    table = pa.table({"item_id": ["x", "y"], "class": ["zebra", "zebra"], "score": [1.0, 1.0]})
    pq.write_table(table, path, compression="none", use_dictionary=False,
                   write_statistics=False)
    data = path.read_bytes()
    assert data.count(b"zebra") == 2
    path.write_bytes(data.replace(b"zebra", b"\xcaebra", 1))
    with pytest.raises(ValueError, match=r"net.parquet: column 'class' holds bytes that are not "
                       r"valid UTF-8 text"):
        read_predictions(path)


def test_tables_written_by_pandas_or_under_other_names_say_how_they_read(tmp_path):
    """A wide table saved with pandas' default to_csv(index=True) has an unnamed first column
    and no item_id: the error says how to name it (and the named table reads); a long table
    under other column names, read as wide, says so where a class name is not a number, but
    not where a wide table holds a NaN."""
    frame = pd.DataFrame({"cat": [0.9, 0.2], "dog": [0.1, 0.8]}, index=["x", "y"])
    path = tmp_path / "wide.csv"
    frame.to_csv(path)
    with pytest.raises(ValueError, match=r"wide.csv, line 1: header must name the columns "
                                         r"\['item_id'\]; .*: an unnamed first column is a "
                                         r"pandas DataFrame's index as to_csv writes it; name "
                                         r"it, to_csv\(path, index_label='item_id'\)"):
        read_predictions(path)
    frame.to_csv(path, index_label="item_id")
    assert read_predictions(path).scores.tolist() == [[0.9, 0.1], [0.2, 0.8]]
    long = tmp_path / "long.csv"
    long.write_text("item_id,label,prob\nx,cat,0.9\nx,dog,0.1\n")
    with pytest.raises(ValueError, match=r"line 2: column 'label' must hold finite numbers; got "
                                         r"'cat' \(read as a wide table, one column per class: "
                                         r"the header does not name a long table's columns "
                                         r"\['item_id', 'class', 'score'\]\)$"):
        read_predictions(long)
    with pytest.raises(ValueError, match=r"got 'cat'$"):
        read_predictions(long, layout="wide")
    assert read_predictions(long, cls="label", score="prob").classes == ("cat", "dog")
    path.write_text("item_id,a,b\nx,0.5,0.5\ny,nan,1\n")
    with pytest.raises(ValueError, match=r"line 3: column 'a' must hold finite numbers; got "
                                         r"'nan'$"):
        read_predictions(path)
