"""--query-categories reads through the shared decoder: compressed by content, BOM, file:line."""

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Annotations, Membership, Run, Taxonomy, evaluate
from fuzzytruth.cli import main as cli_main
from fuzzytruth.io import write_trec_run

TAX = {"all": {"a": ["a1", "a2"], "b": ["b1"]}}


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(4)
    items = [f"i{i}" for i in range(10)]
    rows = [(i, f"s{a}", rng.choice(["a1", "a2", "b1"])) for i in items for a in range(3)]
    labels = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    labels.to_csv(tmp_path / "labels.csv", index=False)
    (tmp_path / "tax.json").write_text(json.dumps(TAX))
    run = Run.from_dataframe(pd.DataFrame(
        [(q, d, rng.random()) for q in ("x", "y") for d in items],
        columns=["query_id", "doc_id", "score"]), name="sys")
    write_trec_run(run, tmp_path / "run.txt")
    membership = Membership.from_annotations(
        Annotations.from_frame(labels, taxonomy=Taxonomy.from_nested(TAX)))
    return tmp_path, run, membership


def run_cli(path, categories, capsys):
    code = cli_main(["evaluate", "--taxonomy", str(path / "tax.json"), "--annotations",
                     str(path / "labels.csv"), "--run", str(path / "run.txt"),
                     "--query-categories", str(categories), "-m", "P@5", "-m", "R@5",
                     "--n-worlds", "0", "--format", "json"])
    out = capsys.readouterr()
    return code, out


def test_a_gzip_file_named_csv_with_a_bom_gives_evaluate_s_numbers(files, capsys):
    path, run, membership = files
    target = path / "categories.csv"  # gzip content under a .csv name, with a UTF-8 BOM
    target.write_bytes(gzip.compress("\ufeffquery_id,category\nx,a\ny,b1\n".encode()))
    code, out = run_cli(path, target, capsys)
    assert code == 0, out.err
    got = pd.DataFrame(json.loads(out.out)).set_index("measure")["value"]
    expected = evaluate(run, membership, ["P@5", "R@5"], n_worlds=0,
                        query_categories={"x": "a", "y": "b1"}).aggregate()
    np.testing.assert_allclose(got[expected["measure"]], expected["value"], atol=1e-12)


def test_a_query_given_twice_names_the_file_line_and_the_flag(files, capsys):
    path, _, _ = files
    target = path / "categories.tsv"
    target.write_text("query_id\tcategory\nx\ta\ny\tb1\nx\tb1\n")
    code, out = run_cli(path, target, capsys)
    assert code != 0
    assert "categories.tsv, line 4: query 'x' has a second category" in out.err
    assert "--query-categories" in out.err


def test_a_missing_column_names_the_file(files, capsys):
    path, _, _ = files
    target = path / "categories.csv"
    target.write_text("query,category\nx,a\n")
    code, out = run_cli(path, target, capsys)
    assert code != 0 and "categories.csv" in out.err and "query_id" in out.err
