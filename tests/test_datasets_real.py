"""ImageNet ReaL: the published .npz format, its conversion, the bundled copy, and the
collection analyses on it checked against statsmodels and krippendorff."""

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

from fuzzytruth.collection import agreement, annotator_agreement
from fuzzytruth.collection._counts import label_counts
from fuzzytruth.datasets.convert_real import main, read_real_npz, write_real_tables
from fuzzytruth.datasets.imagenet_real import imagenet_real, read_imagenet_real


@pytest.fixture(scope="module")
def real():
    return imagenet_real()


def fname(i):
    return f"ILSVRC2012_val_{i:08d}.JPEG"


def write_npz(path, answers, info, ids):
    """A file in the published format: tensor (R, N, 3) one-hot no/maybe/yes, -1 = no answer."""
    answers = np.asarray(answers)
    tensor = np.zeros((*answers.shape, 3))
    r, n = np.nonzero(answers >= 0)
    tensor[r, n, answers[r, n]] = 1.0
    np.savez_compressed(path, tensor=tensor, info=np.array(info), ids=np.array(ids))


@pytest.fixture
def published(tmp_path):
    """Three questions, three raters; the second question is the golden one."""
    info = [(fname(7), "5"), (fname(7), "12"), (fname(9), "5")]
    write_npz(tmp_path / "raters.npz", [[0, 2, -1], [1, 2, 0], [-1, 0, 0]], info, [30, 31, 32])
    write_npz(tmp_path / "golden.npz", [[2], [2], [0]], [info[1]], [1, 2, 3])
    write_npz(tmp_path / "raters_golden.npz", [[2], [0]], [info[1]], [31, 30])
    return tmp_path


def test_reads_the_published_format(published):
    tables = read_real_npz(published)
    assert tables["questions"].to_dict("list") == {
        "question_id": [0, 1, 2],
        "image": [7, 7, 9],
        "class_id": [5, 12, 5],
        "golden": [False, True, False],
    }
    votes = tables["votes"]
    assert list(zip(votes["question_id"], votes["rater_id"], votes["answer"], strict=True)) == [
        (0, 30, 0), (0, 31, 1), (1, 30, 2), (1, 31, 2), (1, 32, 0), (2, 31, 0), (2, 32, 0)
    ]
    assert tables["golden_votes"]["question_id"].tolist() == [1, 1]
    assert tables["expert_votes"]["answer"].tolist() == [2, 2, 0]


def test_conversion_round_trip(published, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    main([str(published), "--out", str(out)])
    from_npz = read_imagenet_real(published)
    assert sorted(p.name for p in out.iterdir()) == [
        "real_expert_votes.parquet", "real_golden_votes.parquet", "real_questions.parquet",
        "real_votes.parquet",
    ]
    back = pd.read_parquet(out / "real_votes.parquet")
    pd.testing.assert_frame_equal(back, read_real_npz(published)["votes"])
    assert from_npz.golden_answers().to_dict() == {1: "yes"}
    accuracy = from_npz.golden_accuracy().set_index("annotator_id")["golden_accuracy"]
    assert accuracy.to_dict() == {30: 0.0, 31: 1.0}  # expert majority: yes


def test_errors_name_the_file(published, tmp_path):
    (published / "golden.npz").unlink()
    with pytest.raises(ValueError, match=r"missing \['golden\.npz'\]"):
        read_real_npz(published)
    with pytest.raises(ValueError, match="out_dir must be an existing directory"):
        write_real_tables({}, tmp_path / "nowhere")
    np.savez_compressed(published / "golden.npz", tensor=np.zeros((1, 1, 3)))
    with pytest.raises(ValueError, match=r"golden\.npz: expected an array named 'info'"):
        read_real_npz(published)


def test_each_file_is_located_by_its_own_info(published):
    # raters_golden.npz's questions were taken to be golden.npz's, in golden.npz's order,
    # without reading its own 'info' (the README: every file has its own): listed in the other
    # order, rater 31's answers were scored against the wrong questions
    info = [(fname(7), "12"), (fname(9), "5")]
    write_npz(published / "golden.npz", [[2, 0], [2, 0], [0, 0]], info, [1, 2, 3])
    write_npz(published / "raters_golden.npz", [[0, 2], [2, 0]], info[::-1], [31, 30])
    accuracy = read_imagenet_real(published).golden_accuracy()
    assert accuracy.set_index("annotator_id")["golden_accuracy"].to_dict() == {30: 0.0, 31: 1.0}


def _one_hot(answers):
    return np.eye(3)[answers]


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        # one-hot rows that sum to 1 were read by argmax: (0.5, 0, 0.5) as "no"
        ({"tensor": np.array([[[0.5, 0, 0.5]]])}, r"rater 30 has an answer that is neither "
         r"0 nor 1 \(found 0\.5\)"),
        ({"tensor": np.array([[[np.nan, 0, 0]]])}, r"neither 0 nor 1 \(found nan\)"),
        # an 'info' longer than the tensor added questions no one was asked
        ({"info": np.array([(fname(7), "5"), (fname(8), "5")])}, r"'tensor' must be a "
         r"C-ordered array of numbers of shape \(raters, questions, 3\) = \(1, 2, 3\)"),
        ({"ids": np.array([30, 31])}, r"shape \(raters, questions, 3\) = \(2, 1, 3\)"),
        ({"ids": np.array([30, 30]), "tensor": _one_hot([[0], [1]])},
         r"'ids' must list each rater once; got \[30, 30\]"),
        ({"info": np.array([(fname(7), "x")])}, r"'info' must hold \(file name, class index "
         r"0-999\) pairs"),
        ({"info": np.array([(fname(7), "5"), (fname(7), "5")]), "tensor": _one_hot([[0, 1]])},
         "'info' asks about class 5 of image 7 twice"),
    ],
)
def test_published_format_violations_name_the_file(tmp_path, arrays, message):
    # before: silently read (the first three), or zip(), int() and pandas errors without
    # the file's name
    arrays = {"tensor": _one_hot([[0]]), "info": np.array([(fname(7), "5")]),
              "ids": np.array([30]), **arrays}
    np.savez_compressed(tmp_path / "raters.npz", **arrays)
    write_npz(tmp_path / "golden.npz", [[0]], [(fname(7), "5")], [1])
    write_npz(tmp_path / "raters_golden.npz", [[0]], [(fname(7), "5")], [30])
    with pytest.raises(ValueError, match=rf"raters\.npz: .*{message}"):
        read_real_npz(tmp_path)


def test_a_file_that_is_not_a_zip_archive_is_named(published):
    (published / "raters_golden.npz").write_bytes(b"")
    with pytest.raises(ValueError, match=r"raters_golden\.npz: not a readable \.npz file"):
        read_real_npz(published)


def test_bundled_copy_matches_the_published_totals(real):
    # totals of raters.npz (commit bcd006f): tensor.sum(axis=(0, 1)) and its shape
    frame = real.annotations.to_frame()
    assert frame["label"].value_counts().to_dict() == {"no": 729424, "yes": 116444, "maybe": 78942}
    assert real.annotations.n_items == 184962 and real.annotations.n_annotators == 85
    assert (frame.groupby("item_id").size() == 5).all()
    assert real.questions["class_id"].between(0, 999).all()
    assert real.golden_annotations.n_annotators == 78
    assert real.expert_answers["answer"].isin(["no", "yes"]).all()


def test_agreement_on_real_matches_statsmodels_and_krippendorff(real):
    krippendorff = pytest.importorskip("krippendorff")
    # dense, without the root column (never a label)
    counts = label_counts(real.annotations).toarray()[:, 1:]
    res = agreement(real.annotations, n_resamples=0)
    assert res.value("fleiss_kappa") == pytest.approx(fleiss_kappa(counts), abs=1e-12)
    alpha = krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    assert res.value("krippendorff_alpha") == pytest.approx(alpha, abs=1e-12)


def test_the_careless_rater_is_found(real):
    accuracy = real.golden_accuracy()
    scores = annotator_agreement(real.annotations).to_frame().merge(accuracy, on="annotator_id")
    worst = scores.sort_values("golden_accuracy").iloc[0]
    assert worst["annotator_id"] == 145 and worst["golden_accuracy"] == pytest.approx(243 / 1135)
    assert scores["majority_agreement"].idxmin() == scores["golden_accuracy"].idxmin()
    assert scores["majority_agreement"].corr(scores["golden_accuracy"]) > 0.5


def test_bundled_tables_stay_small():
    from importlib import resources

    folder = resources.files("fuzzytruth.datasets").joinpath("data")
    names = [f"real_{n}.parquet" for n in ("questions", "votes", "golden_votes", "expert_votes")]
    assert sum(folder.joinpath(n).stat().st_size for n in names) < 3_500_000
