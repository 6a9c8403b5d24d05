"""The command line on outputs that are not plain files, on broken or closed standard
output, and on what it decides about the data: it says so, in one line, and never destroys
a device, a FIFO or a link."""

import os
import signal
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest

from treeboost.cli import main

from ._helpers import cli_error

pd = pytest.importorskip("pandas")


def _frame(n=60, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "z": rng.normal(size=n).round(1), "y": (x > 0).astype(int)})


@pytest.fixture(scope="module")
def model_and_data(tmp_path_factory):
    """A fitted CLI model (one CART tree) and the CSV it reads."""
    folder = tmp_path_factory.mktemp("cli")
    data = folder / "data.csv"
    _frame().to_csv(data, index=False)
    model = folder / "m.tbm"
    assert main(["fit", str(data), "--target", "y", "--model", "tree", "-o", str(model)]) == 0
    return model, data


# -- item 8: outputs that are not regular files -----------------------------------------------
def test_predict_through_a_symlink_rewrites_its_target_and_keeps_the_link(
    model_and_data, tmp_path, capsys
):
    model, data = model_and_data
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert main(["predict", str(model), str(data), "-o", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert len(pd.read_csv(target)) == 60
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640  # the file's mode is kept
    assert "60 predictions written" in capsys.readouterr().out


def test_model_save_through_a_symlink_keeps_the_link(model_and_data, tmp_path):
    import treeboost

    model, _ = model_and_data
    fitted = treeboost.load(model)
    target = tmp_path / "real.tbm"
    link = tmp_path / "link.tbm"
    link.symlink_to(target)  # dangling: the save creates the target
    fitted.save(link)
    assert link.is_symlink() and target.is_file()
    assert type(treeboost.load(target)) is type(fitted)


def test_predict_into_a_fifo_writes_through_it(model_and_data, tmp_path, capsys):
    model, data = model_and_data
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    assert main(["predict", str(model), str(data), "-o", str(fifo)]) == 0
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still a FIFO, not a file
    assert received and received[0].startswith("prediction,")
    assert received[0].count("\n") == 61
    # the lines about the run go beside the data, not into the FIFO
    assert "predictions written" in capsys.readouterr().err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_device_is_one_error_line_and_stays_a_device(model_and_data, tmp_path, capsys):
    from treeboost._atomic import output_kind

    model, data = model_and_data
    link = tmp_path / "full.csv"
    link.symlink_to("/dev/full")
    # the device is only reached through a link in tmp_path, and only once the writer is
    # known to write it in place: a writer that replaced it would break the machine
    assert output_kind("/dev/full") == ("through", "/dev/full")
    assert output_kind(link) == ("through", str(link))
    line = cli_error(["predict", str(model), str(data), "-o", str(link)], capsys)
    assert "No space left on device" in line and str(link) in line
    assert "predictions written" not in capsys.readouterr().out
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert link.is_symlink()


def test_dash_is_standard_output_for_predict_and_refused_for_a_model(
    model_and_data, capsys, tmp_path
):
    model, data = model_and_data
    assert main(["predict", str(model), str(data), "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("prediction,") and out.count("\n") == 61
    assert not os.path.exists("-")
    line = cli_error(["fit", str(data), "--target", "y", "-o", "-"], capsys)
    assert "standard output" in line


# -- item 9: one line, not a traceback ---------------------------------------------------------
def test_shap_on_a_header_only_file_is_one_line(model_and_data, tmp_path, capsys):
    model, _ = model_and_data
    empty = tmp_path / "empty.csv"
    empty.write_text("x,z,y\n")
    line = cli_error(["explain", str(model), str(empty), "--shap"], capsys)
    assert "no data rows" in line
    line = cli_error(["predict", str(model), str(empty)], capsys)
    assert "no data rows" in line


def _cli(args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "treeboost", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,
    )


@pytest.mark.skipif(not hasattr(signal, "SIGPIPE"), reason="POSIX pipes")
def test_closed_and_broken_standard_output(model_and_data):
    model, data = model_and_data
    # started with no standard output at all (`treeboost predict ... >&-`)
    closed = subprocess.run(
        [sys.executable, "-m", "treeboost", "predict", str(model), str(data)],
        stdout=None,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.close(1),
    )
    assert closed.returncode == 2, closed.stderr
    assert closed.stderr.strip() == (
        "treeboost: error: standard output is closed: give an output file with -o FILE"
    )
    # a reader that stops after one line: no traceback, the death of `cat` or `grep`
    proc = subprocess.Popen(
        [sys.executable, "-m", "treeboost", "explain", str(model)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    # (a process that wrote everything into the pipe's buffer before the reader closed it
    # ends normally: the race is the pipe's, not the command's)
    assert proc.returncode in (-signal.SIGPIPE, 0), err
    assert err == ""


# -- item 10: what the command decides, it says -----------------------------------------------
def _small(n=40, seed=1):
    """Rows with a row number, an integer measurement of distinct values, a float, a
    number column with one stray text cell and a target that depends on x."""
    rng = np.random.RandomState(seed)
    x = rng.normal(size=n).round(3)
    frame = pd.DataFrame(
        {
            "row": np.arange(1, n + 1),
            "generation": rng.choice(np.arange(1000, 900000), n, replace=False),
            "x": x,
            "num": rng.normal(size=n).round(2).astype(object),
            "y": (x > 0).astype(int),
        }
    )
    frame.loc[3, "num"] = "n/a?"
    return frame


def test_fit_notes_ids_stray_text_and_empty_targets(tmp_path, capsys):
    import treeboost

    frame = _small().astype({"y": object})
    frame.loc[[5, 9], "y"] = None
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    model = tmp_path / "m.tbm"
    assert main(["fit", str(data), "--target", "y", "--model", "tree", "-o", str(model)]) == 0
    err = capsys.readouterr().err
    # the row number is an identifier, the distinct integer measurement is not
    assert "identify rows (no value repeats): row (" in err
    assert list(treeboost.load(model).feature_names_in_) == ["generation", "x", "num"]
    assert (
        "column 'num' is read as categories, not numbers: 1 of its 38 cells are not "
        "numbers ('n/a?' in data row 4)"
    ) in err
    assert "2 of the 40 rows of " in err and "have no y (an empty cell): left out" in err


def test_a_header_only_file_has_no_data_rows(tmp_path, capsys):
    data = tmp_path / "h.csv"
    data.write_text("a,b,y\n")
    line = cli_error(["fit", str(data), "--target", "y", "-o", str(tmp_path / "m.tbm")], capsys)
    assert "no data rows" in line and "single value" not in line


def test_default_boosting_learns_a_small_file_and_a_constant_model_is_warned(tmp_path, capsys):
    import treeboost

    data = tmp_path / "d.csv"
    _small(32).drop(columns=["num"]).to_csv(data, index=False)
    model = tmp_path / "m.tbm"
    assert main(["fit", str(data), "--target", "y", "-o", str(model)]) == 0
    assert "makes no split" not in capsys.readouterr().err
    fitted = treeboost.load(model)
    assert any(t.node_count > 1 for trees in fitted.trees_ for t in trees)
    assert (
        main(
            ["fit", str(data), "--target", "y", "--param", "min_samples_leaf=20", "-o", str(model)]
        )
        == 0
    )
    assert (
        "warning: the fitted model makes no split: it predicts the same for every "
        "row (25 training rows, min_samples_leaf=20)"
    ) in capsys.readouterr().err


# -- item 11: what users of other command lines expect -----------------------------------------
def test_version_and_a_bare_command_print_and_run_nothing(tmp_path, capsys, monkeypatch):
    import treeboost

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"treeboost {treeboost.__version__}"
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: treeboost") and "demo" in out
    assert list(tmp_path.iterdir()) == []  # no demo pictures here


def test_help_imports_nothing_heavy():
    code = (
        "import sys\nfrom treeboost.cli import main\n"
        "try:\n    main(['fit', '--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('numpy', 'pandas', 'sklearn', 'numba') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr
    # the estimators are still there, as attributes and to import
    import treeboost

    assert "RandomForestClassifier" in dir(treeboost) and "load" in treeboost.__all__
    from treeboost import RandomForestClassifier

    assert treeboost.RandomForestClassifier is RandomForestClassifier


def test_separator_encoding_and_dates(tmp_path, capsys):
    import treeboost

    frame = _small(30).drop(columns=["num"])
    frame["city"] = np.where(frame["x"] > 1, "Liège", "Namur")
    frame["day"] = pd.date_range("2024-01-01", periods=30).strftime("%Y-%m-%d")
    semicolon = tmp_path / "semi.csv"
    frame.to_csv(semicolon, sep=";", index=False, encoding="latin-1")
    model = tmp_path / "m.tbm"
    line = cli_error(["fit", str(semicolon), "--target", "y", "-o", str(model)], capsys)
    assert "--encoding" in line
    assert (
        main(
            [
                "fit",
                str(semicolon),
                "--target",
                "y",
                "--model",
                "tree",
                "--encoding",
                "latin-1",
                "-o",
                str(model),
            ]
        )
        == 0
    )
    assert "read as dates: day" in capsys.readouterr().err
    fitted = treeboost.load(model)
    assert list(fitted.feature_names_in_) == ["generation", "x", "city", "day"]
    assert fitted._encoder.datetime_zones_[3] is not None
    tab = tmp_path / "tab.tsv"
    frame.to_csv(tab, sep="\t", index=False)
    assert main(["predict", str(model), str(tab), "-o", str(tmp_path / "p.csv")]) == 0
    assert (
        main(["predict", str(model), str(tab), "--sep", "\\t", "-o", str(tmp_path / "q.csv")]) == 0
    )
    assert (tmp_path / "p.csv").read_text() == (tmp_path / "q.csv").read_text()
    frame.loc[2, "day"] = "soon"
    frame.to_csv(tab, sep="\t", index=False)
    line = cli_error(["predict", str(model), str(tab)], capsys)
    assert "column 'day'" in line and "'soon'" in line


def test_validation_file_weights_and_threads(tmp_path, capsys):
    import treeboost
    from treeboost import DecisionTreeClassifier

    frame = _small(40).drop(columns=["num"])
    frame["w"] = np.random.RandomState(3).uniform(0.1, 3, len(frame)).round(2)
    train, valid = tmp_path / "train.csv", tmp_path / "valid.csv"
    frame.iloc[:30].to_csv(train, index=False)
    frame.iloc[30:].to_csv(valid, index=False)
    model = tmp_path / "m.tbm"
    assert (
        main(
            [
                "fit",
                str(train),
                "--target",
                "y",
                "--model",
                "tree",
                "--valid",
                str(valid),
                "--weight",
                "w",
                "--threads",
                "1",
                "--param",
                "random_state=0",
                "-o",
                str(model),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "fitted on 30 rows x 2 columns" in out
    assert f"Scores on the 10 rows of --valid {valid}" in out
    fitted = treeboost.load(model)
    X = frame.iloc[:30][["generation", "x"]]
    expected = DecisionTreeClassifier(random_state=0).fit(
        X, frame.iloc[:30]["y"], sample_weight=frame.iloc[:30]["w"].to_numpy()
    )
    np.testing.assert_array_equal(fitted.tree_.value, expected.tree_.value)
    frame.loc[1, "w"] = -1
    frame.to_csv(train, index=False)
    line = cli_error(
        [
            "fit",
            str(train),
            "--target",
            "y",
            "--weight",
            "w",
            "--drop",
            "row",
            "--model",
            "tree",
            "-o",
            str(model),
        ],
        capsys,
    )
    assert "--weight w" in line and "-1.0 in data row 2" in line
    assert "--threads" in cli_error(["predict", str(model), str(valid), "--threads", "0"], capsys)


def test_shap_values_and_importances_to_csv(model_and_data, tmp_path, capsys):
    import treeboost

    model, data = model_and_data
    shap_csv = tmp_path / "shap.csv"
    assert main(["explain", str(model), str(data), "-o", str(shap_csv)]) == 0
    table = pd.read_csv(shap_csv)
    assert list(table.columns) == ["explained_output", "x", "z", "expected_value", "output"]
    np.testing.assert_allclose(
        table[["x", "z"]].sum(axis=1) + table["expected_value"], table["output"], atol=1e-9
    )
    assert len(table) == 60
    imp_csv = tmp_path / "imp.csv"
    assert main(["explain", str(model), "-o", str(imp_csv)]) == 0
    imp = pd.read_csv(imp_csv)
    fitted = treeboost.load(model)
    assert (
        list(imp["feature"])
        == ["x", "z"][
            :: 1 if fitted.feature_importances_[0] >= fitted.feature_importances_[1] else -1
        ]
    )
    np.testing.assert_allclose(imp["importance"].sum(), 1.0)
    assert "written to" in capsys.readouterr().err


# -- item 12: words that mislead ---------------------------------------------------------------
def test_install_hints_name_the_package_to_install():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = list((root / "treeboost").rglob("*.py")) + list((root / "examples").glob("*.py"))
    # treeboost is installed from its source: an extra of a package on PyPI is no hint
    found = [str(f) for f in files if "pip install treeboost[" in f.read_text()]
    assert found == []


def test_boosting_trace_says_what_it_prints_and_prints_a_few():
    from sklearn.metrics import log_loss

    from treeboost import GradientBoostingClassifier
    from treeboost.cli import _trace_lines

    frame = _small(80).drop(columns=["num", "row"])
    X, y = frame[["generation", "x"]], frame["y"]
    model = GradientBoostingClassifier(n_estimators=12, max_depth=2, random_state=0).fit(X, y)
    lines = list(_trace_lines(model))
    assert lines[0] == (
        "\nBoosting trace (log loss per iteration: the model's train_score_ divided by 2):"
    )
    rows = [line for line in lines if line.startswith("  [")]
    assert [r.split("]")[0] for r in rows] == ["  [1", "  [2", "  [3", "  [4", "  [5", "  [12"]
    assert "  ... (6 iterations not shown)" in lines
    last = float(rows[-1].split()[-1])
    assert last == pytest.approx(log_loss(y, model.predict_proba(X)), abs=2e-6)


def test_one_tree_is_not_one_trees_and_a_long_path_is_not_cut(model_and_data, tmp_path, capsys):
    model, data = model_and_data
    line = cli_error(["explain", str(model), "--tree", "3"], capsys)
    assert line.endswith("the model has 1 tree")
    folder = tmp_path / ("a_long_folder_name_without_any_space_" * 3)
    folder.mkdir()
    long = folder / "rows.csv"
    long.write_bytes(data.read_bytes())
    assert main(["explain", str(model), str(long), "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert any(str(long) in row for row in out.splitlines())


def test_trees_to_dataframe_says_what_a_boosting_trees_impurity_is():
    from treeboost import HistGradientBoostingClassifier
    from treeboost.inspection import trees_to_dataframe

    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 3))
    model = HistGradientBoostingClassifier(max_iter=2).fit(X, (X[:, 0] > 0).astype(int))
    frame = trees_to_dataframe(model)
    tree = frame[frame["tree_index"] == 0].set_index("node")
    root = tree.loc[0]
    children = tree.loc[[int(root["left_child"]), int(root["right_child"])], "impurity"]
    assert (tree["impurity"] <= 1e-12).all()  # not a Gini index or a variance
    assert root["gain"] == pytest.approx(root["impurity"] - children.sum())
    assert "second-order objective" in " ".join(trees_to_dataframe.__doc__.split())


def test_rule_words_no_signed_zero_and_no_empty_set():
    from treeboost.inspection import Condition
    from treeboost.inspection._tree_view import _fmt

    # a leaf value or bound that rounds to zero keeps its digits, and zero has no sign
    assert [_fmt(v, 3) for v in (-0.0, -0.0004, 0.00012345, 1.5, -2.0)] == [
        "0",
        "-0.0004",
        "0.000123",
        "1.5",
        "-2",
    ]
    # category tests along a path that leave no category: only a missing value gets there
    assert Condition(0, "sex", categories=[], missing=True).text() == "sex is missing"
    assert "{}" not in Condition(0, "sex", categories=[], missing=True).text()
    assert (
        Condition(0, "sex", categories=["male"], missing=True).text() == "sex = male (or missing)"
    )


@pytest.mark.skipif(not os.path.islink("/dev/stdout"), reason="needs /dev/stdout")
def test_dev_stdout_is_written_through(model_and_data):
    from treeboost._atomic import output_kind

    model, data = model_and_data
    # only once the writer is known to write it in place (replacing it would break the
    # machine's /dev/stdout)
    assert output_kind("/dev/stdout") == ("through", "/dev/stdout")
    out = _cli(["predict", model, data, "-o", "/dev/stdout"])
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("prediction,") and out.stdout.count("\n") == 61
    assert "60 predictions written to /dev/stdout" in out.stderr
    assert os.path.islink("/dev/stdout")


# -- issue 56, items 5-8: outputs safe for the tools that read them ---------------------------
def test_text_utf8_cannot_encode_is_one_line_naming_where_it_is(model_and_data, tmp_path, capsys):
    import treeboost

    model, data = model_and_data
    # a model file holds any string JSON can, a lone surrogate too: it is refused at load,
    # not met as a traceback of the writer
    fitted = treeboost.load(model)
    fitted.classes_ = np.array(["0", "\ud800"], dtype=object)
    crafted = tmp_path / "surrogate.tbm"
    treeboost.save(fitted, crafted)
    for argv in (
        ["predict", crafted, data, "-o", tmp_path / "p.csv"],
        ["predict", crafted, data],
        ["explain", crafted, data, "--shap"],
        ["explain", crafted],
    ):
        line = cli_error([str(a) for a in argv], capsys)
        assert "\\ud800" in line and "class" in line, line
    assert not (tmp_path / "p.csv").exists()
    # a file that decodes to one (utf-7 can): the column and the row are named
    odd = tmp_path / "utf7.csv"
    odd.write_bytes(b"x,z,y\n1,2,+2AA-\n3,4,b\n")
    line = cli_error(
        ["fit", str(odd), "--target", "y", "--encoding", "utf-7", "-o", str(tmp_path / "m.tbm")],
        capsys,
    )
    assert "column 'y' ('\\ud800' in data row 1) is not text" in line


def _write_ids(path, ids, n=60):
    """The test frame with an id column, every field quoted (so that a CR in an id is one
    field of the file, as a careful writer leaves it)."""
    import csv

    frame = _frame(n)
    frame.insert(0, "id", [str(i) for i in range(n)])
    frame.loc[: len(ids) - 1, "id"] = ids
    frame.to_csv(path, index=False, quoting=csv.QUOTE_ALL)


def test_csv_outputs_escape_formulas_keep_numbers_and_quote_a_bare_cr(
    model_and_data, tmp_path, capsys
):
    import csv

    model, _ = model_and_data
    ids = ["=cmd|' /C calc'!A0", "+1+2", "-x", "@SUM(A1)", "\tx", "-1.5", "+3", "-2e-05", "a\rb"]
    data = tmp_path / "ids.csv"
    _write_ids(data, ids)
    out = tmp_path / "p.csv"
    assert main(["predict", str(model), str(data), "--id", "id", "-o", str(out)]) == 0
    back = pd.read_csv(out, dtype={"id": str})
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert len(back) == 60 and len(rows) == 61  # the CR did not split a row
    expected = ["'" + v for v in ids[:5]] + ids[5:]  # numbers stay numbers
    assert back["id"].tolist()[: len(ids)] == expected
    assert [r[0] for r in rows[1 : len(ids) + 1]] == expected
    assert out.read_bytes().count(b"\n") == 61 and b"\r\n" not in out.read_bytes()
    # kept as they are on request; the CR is still quoted
    raw = tmp_path / "raw.csv"
    argv = ["predict", str(model), str(data), "--id", "id", "--no-escape-formulas", "-o", str(raw)]
    assert main(argv) == 0
    assert pd.read_csv(raw, dtype={"id": str})["id"].tolist()[: len(ids)] == ids
    # standard output and the SHAP table too
    capsys.readouterr()
    assert main(["predict", str(model), str(data), "--id", "id", "-o", "-"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("'=cmd|' /C calc'!A0,")
    shap = tmp_path / "shap.csv"
    assert main(["explain", str(model), str(data), "--id", "id", "-o", str(shap)]) == 0
    assert pd.read_csv(shap, dtype={"id": str})["id"].tolist()[: len(ids)] == expected
    # column names are cells too: a feature named as a formula, in the SHAP table's header
    # and the importances' cells
    named = tmp_path / "named.csv"
    _frame().rename(columns={"x": "=HYPERLINK(x)"}).to_csv(named, index=False)
    fitted = tmp_path / "named.tbm"
    assert main(["fit", str(named), "--target", "y", "--model", "tree", "-o", str(fitted)]) == 0
    assert main(["explain", str(fitted), str(named), "-o", str(shap)]) == 0
    assert "'=HYPERLINK(x)" in pd.read_csv(shap).columns
    imp = tmp_path / "imp.csv"
    assert main(["explain", str(fitted), "-o", str(imp)]) == 0
    assert "'=HYPERLINK(x)" in pd.read_csv(imp)["feature"].tolist()


def test_outputs_are_written_in_the_declared_encoding(tmp_path, capsys):
    frame = _frame()
    frame["y"] = np.where(frame["y"] == 1, "Łódź", "Liège")
    data, model = tmp_path / "d.csv", tmp_path / "m.tbm"
    frame.to_csv(data, index=False)
    assert main(["fit", str(data), "--target", "y", "--model", "tree", "-o", str(model)]) == 0
    out = tmp_path / "p.csv"
    assert main(["predict", str(model), str(data), "-o", str(out)]) == 0
    assert "Łódź".encode() in out.read_bytes()  # UTF-8, whatever the locale
    capsys.readouterr()  # the fit's notes
    # a file read and written as latin-1, which has no Ł: one line naming the column
    latin = tmp_path / "latin.csv"
    frame.drop(columns="y").to_csv(latin, index=False, encoding="latin-1")
    line = cli_error(
        ["predict", str(model), str(latin), "--encoding", "latin-1", "-o", str(out)], capsys
    )
    assert "column 'prediction' ('Łódź' in data row" in line and "latin-1" in line, line
    assert "Łódź".encode() in out.read_bytes()  # the old file is left as it was


def test_a_name_given_to_two_columns_is_refused_where_it_is_read(model_and_data, tmp_path, capsys):
    model, _ = model_and_data
    frame = _frame()
    twice = tmp_path / "twice.csv"
    frame.assign(w=frame["z"][::-1].to_numpy()).rename(columns={"w": "z"}).to_csv(
        twice, index=False
    )
    line = cli_error(["fit", str(twice), "--target", "y", "-o", str(tmp_path / "m.tbm")], capsys)
    assert "'z' (columns 2, 4)" in line and not (tmp_path / "m.tbm").exists()
    # the model reads z: which of the two would depend on their order
    line = cli_error(["predict", str(model), str(twice)], capsys)
    assert "'z' (columns 2, 4)" in line
    # a name given twice to columns the model does not read is left with them
    unused = tmp_path / "unused.csv"
    frame.assign(a=1, b=2).rename(columns={"b": "a"}).to_csv(unused, index=False)
    assert main(["predict", str(model), str(unused), "-o", str(tmp_path / "p.csv")]) == 0


def test_an_error_line_is_short_whatever_the_header_holds(tmp_path, capsys):
    frame = _frame()
    huge = "N" * 2_000_000
    many = pd.DataFrame(0, index=frame.index, columns=[f"column_{i}" for i in range(100)])
    wide = pd.concat([frame, many], axis=1)
    wide.rename(columns={"z": huge, "column_7": "esc\x1b[2J"}).to_csv(
        tmp_path / "wide.csv", index=False
    )
    line = cli_error(
        ["fit", str(tmp_path / "wide.csv"), "--target", "nope", "-o", str(tmp_path / "m.tbm")],
        capsys,
    )
    assert len(line) < 2000, len(line)
    assert "NNN...NNN" in line and "... and 83 more" in line
    assert "\x1b" not in line and "esc\\x1b[2J" in line
