"""Loaders of public collections, on tiny fixtures written in exactly the published formats."""

import bz2
import lzma
import re
import zipfile

import numpy as np
import pytest

from fuzzytruth.collection import agreement, agreement_by_level
from fuzzytruth.datasets import (
    CIFAR10_CLASSES,
    read_cifar10h_counts,
    read_cifar10h_raw,
    read_crowd_relevance,
)

# cifar10h-raw.csv's header, in the file's order (README of jcpeterson/cifar-10h)
RAW_HEADER = (
    "annotator_id,trial_index,is_attn_check,true_category,chosen_category,true_label,"
    "chosen_label,correct_guess,cifar10_test_test_idx,image_filename,subcategory,"
    "reaction_time,time_elapsed"
)
# (annotator, image, chosen class); image -99999 marks an attention check, whose true class
# is "truck" (for the other trials the fixture's true class is the chosen one)
TRIALS = [
    (0, 0, "cat"), (0, 1, "ship"), (0, -99999, "truck"), (0, 2, "deer"),
    (1, 0, "dog"), (1, 1, "ship"), (1, -99999, "frog"), (1, 2, "deer"), (1, -99999, "truck"),
    (2, 0, "cat"), (2, 1, "automobile"), (2, 2, "horse"),
]


def raw_csv(trials=TRIALS, header=RAW_HEADER):
    lines = [header]
    for trial, (annotator, image, chosen) in enumerate(trials):
        label = CIFAR10_CLASSES.index(chosen) if chosen in CIFAR10_CLASSES else 99
        check = int(image < 0)
        true, true_label = ("truck", 9) if check else (chosen, label)
        lines.append(
            f"{annotator},{trial},{check},{true},{chosen},{true_label},{label},"
            f"{int(true == chosen)},{image},"
            f"{chosen}_{image}.png,{chosen},1234.5,{1000 * (trial + 1)}"
        )
    return "\n".join(lines) + "\n"


def counts_of(trials=TRIALS):
    counts = np.zeros((3, 10), dtype=np.int64)
    for _, image, chosen in trials:
        if image >= 0:
            counts[image, CIFAR10_CLASSES.index(chosen)] += 1
    return counts


@pytest.fixture
def cifar_files(tmp_path):
    (tmp_path / "cifar10h-raw.csv").write_text(raw_csv())
    with zipfile.ZipFile(tmp_path / "cifar10h-raw.zip", "w") as archive:
        archive.writestr("cifar10h-raw.csv", raw_csv())
    np.save(tmp_path / "cifar10h-counts.npy", counts_of().astype(float))  # published as float
    return tmp_path


def test_cifar10h_raw_reads_labels_without_attention_checks(cifar_files):
    data = read_cifar10h_raw(cifar_files / "cifar10h-raw.csv")
    frame = data.annotations.to_frame()
    assert len(frame) == 9 and data.annotations.n_annotators == 3
    assert data.counts.loc[0, "cat"] == 2 and data.counts.loc[1, "ship"] == 2
    checks = data.attention_checks.set_index("annotator_id")
    assert checks["n_checks"].to_dict() == {0: 1, 1: 2}
    assert checks["check_accuracy"].to_dict() == {0: 1.0, 1: 0.5}


def test_cifar10h_zip_and_readme_column_name(cifar_files, tmp_path):
    from_zip = read_cifar10h_raw(cifar_files / "cifar10h-raw.zip")
    assert from_zip.counts.equals(read_cifar10h_raw(cifar_files / "cifar10h-raw.csv").counts)
    readme_named = tmp_path / "readme.csv"
    readme_named.write_text(raw_csv(header=RAW_HEADER.replace("test_test", "test_set")))
    assert read_cifar10h_raw(readme_named).counts.equals(from_zip.counts)


def test_cifar10h_counts_and_raw_give_the_same_agreement(cifar_files):
    # kappa and alpha depend on the label counts only, so the counts file (annotators unknown)
    # and the raw file (annotators known) must give identical coefficients at every level
    counts = read_cifar10h_counts(cifar_files / "cifar10h-counts.npy")
    raw = read_cifar10h_raw(cifar_files / "cifar10h-raw.csv")
    np.testing.assert_array_equal(counts.counts.to_numpy(), raw.counts.to_numpy())
    a = agreement(counts.annotations, n_resamples=0).to_frame()
    b = agreement(raw.annotations, n_resamples=0).to_frame()
    np.testing.assert_allclose(a["value"], b["value"], rtol=1e-12)
    levels = agreement_by_level(raw.annotations, n_resamples=0).to_frame()
    # animal vs vehicle only: images 0 (animals) and 2 (animals) agree, image 1 (vehicles) too
    depth1 = levels.query("depth == 1 and measure == 'fleiss_kappa'")["value"].item()
    assert depth1 == pytest.approx(1.0)


def test_cifar10h_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "raw.csv"
    bad.write_text(raw_csv([*TRIALS[:2], (0, 5, "kitten")]))
    with pytest.raises(ValueError, match=r"raw\.csv, line 4: chosen_category must be one of"):
        read_cifar10h_raw(bad)
    np.save(tmp_path / "c.npy", np.zeros((3, 9)))
    with pytest.raises(ValueError, match=r"c\.npy: expected an \(images, 10\) array"):
        read_cifar10h_counts(tmp_path / "c.npy")


@pytest.mark.parametrize(
    ("image", "message"),
    [
        ("2.5", "must hold whole numbers; got '2.5'"),
        ("1e20", "must hold whole numbers; got '1e20'"),
        ("10000", r"must hold an image index 0 to 9999 \(-99999 for attention checks\)"),
    ],
)
def test_cifar10h_raw_refuses_an_image_index_outside_the_test_set(tmp_path, image, message):
    # 2.5 was read as image 2, 1e20 as image -2**63 (with a RuntimeWarning) and 10000 as an
    # image the 10,000-image CIFAR-10 test set does not have
    path = tmp_path / "raw.csv"
    path.write_text(raw_csv([(0, 7, "cat")]).replace(",7,cat_7.png", f",{image},cat_7.png"))
    with pytest.raises(ValueError, match=rf"raw\.csv, line 2: column 'cifar10_test_test_idx' "
                       rf"{message}"):
        read_cifar10h_raw(path)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("annotator_id", "a7", "column 'annotator_id' must hold finite numbers; got 'a7'"),
        ("is_attn_check", "2", "column 'is_attn_check' must hold 0 or 1; got '2'"),
        ("true_category", "trucks", r"true_category must be one of \(.*\); got 'trucks'"),
    ],
)
def test_cifar10h_raw_refuses_values_it_cannot_use(tmp_path, column, value, message):
    # line 4 is annotator 0's attention check. Before: 'a7' failed in pd.to_numeric without the
    # file's name; is_attn_check 2 made the check a normal trial of image -99999 (an error
    # about the image index); a true class 'trucks' scored the check as missed, silently.
    # The README of jcpeterson/cifar-10h: integer annotator ids, is_attn_check 0 or 1.
    lines = raw_csv().splitlines()
    header = lines[0].split(",")
    fields = lines[3].split(",")
    fields[header.index(column)] = value
    lines[3] = ",".join(fields)
    path = tmp_path / "raw.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=rf"raw\.csv, line 4: {message}$"):
        read_cifar10h_raw(path)


def test_cifar10h_raw_errors_name_the_repeated_judgment(tmp_path):
    # a second judgment of an image by one annotator, and a file of attention checks only,
    # failed in Annotations.from_frame without the file's name (the first suggesting a
    # duplicates= option read_cifar10h_raw does not have)
    path = tmp_path / "raw.csv"
    path.write_text(raw_csv([*TRIALS, (2, 1, "ship")]))
    with pytest.raises(ValueError, match=r"raw\.csv, line 14: annotator 2 judged image 1 a "
                       r"second time \(first on line 12\)$"):
        read_cifar10h_raw(path)
    path.write_text(raw_csv([(0, -99999, "truck")]))
    with pytest.raises(ValueError, match=r"raw\.csv: no trial outside the attention checks$"):
        read_cifar10h_raw(path)


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (np.ones((3, 10)) + 1j, "label counts must be real numbers; got complex values"),
        (np.zeros((0, 10)), r"no label counts \(the array is empty or all 0\)"),
        (np.zeros((3, 10)), r"no label counts \(the array is empty or all 0\)"),
        (np.full((3, 10), 1e300), "label counts must be non-negative whole numbers"),
    ],
)
def test_cifar10h_counts_refuses_what_it_cannot_count(tmp_path, counts, message):
    # complex counts lost their imaginary part with a warning, 1e300 cast to a negative int,
    # and an empty or all-0 array failed without the file's name
    path = tmp_path / "cifar10h-counts.npy"
    np.save(path, counts)
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}: {message}$"):
        read_cifar10h_counts(path)


FIGURE_EIGHT_HEADER = (
    "_unit_id,_created_at,_id,_started_at,_tainted,_channel,_trust,_worker_id,_country,"
    "_region,_city,_ip,hiddeninput,relevance,bin,doc_len,document_body,document_id,"
    "document_title,hiddeninput_gold,index,rel,relevance_gold,topic,topic_description,"
    "topic_query"
)


def figure_eight_row(worker, topic, doc, judgment):
    body = '"<p>First paragraph.</p>\n<p>Second, on a new line.</p>"'
    return (
        f"1444000758,11/8/2017 16:02:40,3009380843,11/8/2017 16:02:03,False,prodege,1.0,"
        f"{worker},CAN,ON,Scarborough,191.228.31.224,,{judgment},1,196,{body},{doc},"
        f"A title,,1,1,,{topic},Describe a cult.,Cult Lifestyles"
    )


def test_crowd_relevance_from_a_figure_eight_report(tmp_path):
    rows = [
        ("w1", 325, 1173003, "relevant"),
        ("w2", 325, 1173003, "not_relevant"),
        ("w3", 325, 1173003, "relevant"),
        ("w4", 325, 1173003, "relevant"),
        ("w1", 325, 1173004, "not_relevant"),
        ("w2", 325, 1173004, "not_relevant"),
        ("w1", 330, 1173003, "relevant"),
    ]
    path = tmp_path / "f1205678_anonymized.csv"
    path.write_text("\n".join([FIGURE_EIGHT_HEADER] + [figure_eight_row(*r) for r in rows]) + "\n")
    crowd = read_crowd_relevance(path)
    table = crowd.qrels.to_dataframe()
    assert list(zip(table["query_id"], table["doc_id"], table["probability"], strict=True)) == [
        ("325", "1173003", 0.75), ("325", "1173004", 0.0), ("330", "1173003", 1.0)
    ]
    assert crowd.annotations.n_items == 3 and crowd.annotations.n_annotators == 4
    # one disagreeing pair among the items with two or more workers
    assert agreement(crowd.annotations, n_resamples=0).value("krippendorff_alpha") < 1
    with pytest.raises(ValueError, match=r"none of the judgments is one of relevant=\['yes'\]"):
        read_crowd_relevance(path, relevant=["yes"])


@pytest.mark.parametrize(("rows", "message"), [
    # a repeated judgment: the error came from Annotations.from_frame, with the file but no
    # line, and a duplicates= option that read_crowd_relevance does not have
    ("w1,325,d1,relevant\nw2,325,d1,relevant\nw1,325,d1,not_relevant\n",
     r"judgments\.csv, line 4: annotator 'w1' judged query-document pair '325/d1' a second "
     r"time \(first on line 2\)$"),
    # query 'a/b' with document 'c' and query 'a' with document 'b/c' were two qrels but one
    # item 'a/b/c' of the annotations: agreement saw one item judged by both workers
    ("w1,a/b,c,relevant\nw2,a,b/c,not_relevant\n",
     r"judgments\.csv, line 3: query 'a' with document 'b/c' has the item id 'a/b/c' of "
     r"query 'a/b' with document 'c'"),
], ids=["repeated judgment", "pairs with a slash"])
def test_crowd_relevance_errors_name_the_line(tmp_path, rows, message):
    path = tmp_path / "judgments.csv"
    path.write_text("_worker_id,topic,document_id,relevance\n" + rows)
    with pytest.raises(ValueError, match=message):
        read_crowd_relevance(path)


@pytest.mark.parametrize("suffix", [".tsv.bz2", ".tsv.xz", ".TSV"])
def test_crowd_relevance_reads_any_tsv_name_as_tab_separated(tmp_path, suffix):
    # only '.tsv' and '.tsv.gz' were read as TSV: a '.tsv.bz2' file was split on commas and
    # its header reported as missing every column
    text = "_worker_id\ttopic\tdocument_id\trelevance\nw1\t325\td1\trelevant\n"
    compress = {".tsv.bz2": bz2.compress, ".tsv.xz": lzma.compress}.get(suffix, bytes)
    path = tmp_path / f"judgments{suffix}"
    path.write_bytes(compress(text.encode()))
    assert read_crowd_relevance(path).qrels.probability.tolist() == [1.0]
