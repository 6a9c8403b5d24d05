"""The treeboost command: demo, fit -> predict round trip, explain, and user errors."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from treeboost.cli import main

from ._helpers import cli_error as _error

TITANIC = Path(__file__).resolve().parents[1] / "treeboost" / "datasets" / "data" / "titanic.csv"


def test_demo_runs_and_prints_the_table(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "treeboost",
            "demo",
            "--folds",
            "3",
            "--n-estimators",
            "10",
            "--out",
            str(tmp_path / "demo"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "| CART tree |" in out.stdout and "| GradientBoosting |" in out.stdout
    assert (tmp_path / "demo" / "roc_curves.png").exists()


@pytest.fixture
def titanic_csv(tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(TITANIC).drop(columns=["PassengerId", "Name", "Ticket", "Cabin"])
    path = tmp_path / "titanic.csv"
    frame.to_csv(path, index=False)
    return path, frame


@pytest.mark.parametrize("model", ["gbdt", "tree"])
def test_fit_then_predict_reproduces_python_predictions(titanic_csv, tmp_path, capsys, model):
    import pandas as pd
    import treeboost

    path, frame = titanic_csv
    model_path = tmp_path / "m.tbm"
    assert (
        main(
            [
                "fit",
                str(path),
                "--target",
                "Survived",
                "--model",
                model,
                "--param",
                "random_state=0",
                "-o",
                str(model_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "accuracy" in out and "ROC AUC" in out
    pred_path = tmp_path / "pred.csv"
    assert main(["predict", str(model_path), str(path), "-o", str(pred_path)]) == 0
    written = pd.read_csv(pred_path)
    loaded = treeboost.load(model_path)
    X = frame.drop(columns=["Survived"])
    for col in X.columns:
        if X[col].dtype == object:
            X[col] = X[col].astype("category")
    np.testing.assert_array_equal(written["prediction"].to_numpy(), loaded.predict(X))
    np.testing.assert_allclose(
        written["proba_1"].to_numpy(), loaded.predict_proba(X)[:, 1], rtol=1e-12
    )
    assert main(["explain", str(model_path)]) == 0
    out = capsys.readouterr().out
    assert "Rules of tree 0" in out and "Feature importances" in out


def test_regression_is_detected(titanic_csv, tmp_path, capsys):
    path, _ = titanic_csv
    assert (
        main(
            ["fit", str(path), "--target", "Fare", "--model", "gbdt", "-o", str(tmp_path / "r.tbm")]
        )
        == 0
    )
    assert "R2" in capsys.readouterr().out


def test_user_errors_give_one_line_and_status_2(titanic_csv, tmp_path, capsys):
    path, frame = titanic_csv
    assert "no such file" in _error(
        ["fit", str(tmp_path / "nope.csv"), "--target", "Survived", "-o", str(tmp_path / "m")],
        capsys,
    )
    assert "not in" in _error(
        ["fit", str(path), "--target", "Nope", "-o", str(tmp_path / "m")], capsys
    )
    one = tmp_path / "one.csv"
    frame.assign(Survived=1).to_csv(one, index=False)
    assert "single value" in _error(
        ["fit", str(one), "--target", "Survived", "-o", str(tmp_path / "m")], capsys
    )
    junk = tmp_path / "junk.tbm"
    junk.write_bytes(b"not a model at all")
    assert "not a treeboost model" in _error(["predict", str(junk), str(path)], capsys)
    model_path = tmp_path / "m.tbm"
    main(["fit", str(path), "--target", "Survived", "--model", "tree", "-o", str(model_path)])
    capsys.readouterr()
    other = tmp_path / "other.csv"
    frame.drop(columns=["Age"]).assign(Extra=1).to_csv(other, index=False)
    assert "differ from training" in _error(["predict", str(model_path), str(other)], capsys)
    assert "out of range" in _error(["explain", str(model_path), "--tree", "5"], capsys)


NO_PANDAS = """
import builtins, importlib.util, sys
real_import, real_find = builtins.__import__, importlib.util.find_spec
def fake_import(name, *a, **k):
    if name == "pandas" or name.startswith("pandas."):
        raise ImportError("no pandas")
    return real_import(name, *a, **k)
builtins.__import__ = fake_import
importlib.util.find_spec = lambda n, *a: None if n == "pandas" else real_find(n, *a)
from treeboost.cli import main
sys.exit(main(["demo", "--folds", "2", "--n-estimators", "5", "--no-plots"]))
"""


def test_demo_runs_without_pandas():
    """The README's first command installs no pandas: the demo must not need it."""
    out = subprocess.run(
        [sys.executable, "-c", NO_PANDAS], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "| Bagging |" in out.stdout and "| AdaBoost |" in out.stdout


# -- CSV files as people download them; pandas 3 reads their text as the `str` dtype ------------
CSV = """age,income,city,member,label
34,52000,Paris,yes,buy
51,,Lyon,no,skip
23,31000,,yes,buy
45,61000,Paris,,skip
38,47000,Nice,yes,buy
29,,Lyon,no,skip
62,83000,Nice,yes,buy
41,39000,Paris,no,skip
33,58000,,yes,buy
57,72000,Lyon,no,skip
26,29000,Nice,yes,buy
48,66000,Paris,no,skip
"""


@pytest.fixture
def text_csv(tmp_path):
    pytest.importorskip("pandas")
    path = tmp_path / "customers.csv"
    header, *rows = CSV.splitlines()
    path.write_text("\n".join([header] + rows * 3) + "\n")
    return path


def test_text_labels_and_text_columns_with_empty_cells(text_csv, tmp_path, capsys):
    import pandas as pd
    import treeboost

    model_path = tmp_path / "m.tbm"
    assert (
        main(["fit", str(text_csv), "--target", "label", "--model", "tree", "-o", str(model_path)])
        == 0
    )
    assert "accuracy" in capsys.readouterr().out
    model = treeboost.load(model_path)
    assert list(model.classes_) == ["buy", "skip"]
    pred_path = tmp_path / "pred.csv"
    assert main(["predict", str(model_path), str(text_csv), "-o", str(pred_path)]) == 0
    written = pd.read_csv(pred_path)
    assert set(written["prediction"]) <= {"buy", "skip"}
    assert list(written.columns) == ["prediction", "proba_buy", "proba_skip"]
    # a new file in which a text column happens to hold no text is read as text
    capsys.readouterr()
    new = tmp_path / "new.csv"
    new.write_text("age,income,city,member\n30,40000,75001,yes\n50,,,no\n")
    assert main(["predict", str(model_path), str(new)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "prediction,proba_buy,proba_skip"


def test_outputs_are_checked_before_fitting(text_csv, tmp_path, capsys, monkeypatch):
    import treeboost

    def no_fit(*args, **kwargs):
        raise AssertionError("fit ran before the output was checked")

    monkeypatch.setattr(treeboost.DecisionTreeClassifier, "fit", no_fit)
    before = text_csv.read_bytes()
    fit = ["fit", str(text_csv), "--target", "label", "--model", "tree", "-o"]
    assert "is the input" in _error(fit + [str(text_csv)], capsys)
    assert "is the input" in _error(fit + [str(tmp_path / "." / text_csv.name)], capsys)
    link = tmp_path / "link.csv"
    os.link(text_csv, link)  # a hard link
    assert "is the input" in _error(fit + [str(link)], capsys)
    link = tmp_path / "symlink.csv"
    link.symlink_to(text_csv)
    assert "is the input" in _error(fit + [str(link)], capsys)
    assert text_csv.read_bytes() == before
    assert "does not exist" in _error(fit + [str(tmp_path / "nope" / "m.tbm")], capsys)
    assert "is not a directory" in _error(fit + [str(text_csv / "m.tbm")], capsys)
    assert "is a directory" in _error(fit + [str(tmp_path)], capsys)
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        assert "cannot write" in _error(fit + [str(locked / "m.tbm")], capsys)
    assert not list(tmp_path.glob("**/*.tbm"))


def test_predict_refuses_to_overwrite_its_inputs(text_csv, tmp_path, capsys):
    model_path = tmp_path / "m.tbm"
    assert (
        main(["fit", str(text_csv), "--target", "label", "--model", "tree", "-o", str(model_path)])
        == 0
    )
    model_bytes, data_bytes = model_path.read_bytes(), text_csv.read_bytes()
    capsys.readouterr()  # the fit's notes
    for out in (text_csv, model_path):
        assert "is the input" in _error(
            ["predict", str(model_path), str(text_csv), "-o", str(out)], capsys
        )
    assert model_path.read_bytes() == model_bytes and text_csv.read_bytes() == data_bytes


def test_a_failed_write_leaves_the_old_file(text_csv, tmp_path, capsys, monkeypatch):
    """Outputs go through a temporary file and os.replace: a write that dies midway (disk
    full) keeps the old model or predictions and leaves no temporary file."""
    import pandas as pd

    model_path, pred_path = tmp_path / "m.tbm", tmp_path / "pred.csv"
    fit = ["fit", str(text_csv), "--target", "label", "--model", "tree", "-o", str(model_path)]
    predict = ["predict", str(model_path), str(text_csv), "-o", str(pred_path)]
    assert main(fit) == 0 and main(predict) == 0
    old_model, old_pred = model_path.read_bytes(), pred_path.read_bytes()
    assert oct(model_path.stat().st_mode & 0o777) != oct(0o600)  # not mkstemp's mode

    def disk_full(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(zipfile.ZipFile, "writestr", disk_full)
    capsys.readouterr()
    # the notes of the fit come before it starts, the error after: the error ends stderr
    assert main(fit) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("treeboost: error:") and "No space left on device" in err[-1]
    assert all(line.startswith("treeboost: note:") for line in err[:-1])
    monkeypatch.setattr(pd.DataFrame, "to_csv", disk_full)
    assert "No space left on device" in _error(predict, capsys)
    assert model_path.read_bytes() == old_model and pred_path.read_bytes() == old_pred
    assert sorted(p.name for p in tmp_path.iterdir()) == ["customers.csv", "m.tbm", "pred.csv"]


@pytest.mark.parametrize(
    "case",
    [
        "param-type",
        "param-range",
        "test-size-0",
        "test-size-1.5",
        "inf",
        "two-rows",
        "regression-on-text",
    ],
)
def test_fit_mistakes_are_one_line(case, text_csv, tmp_path, capsys):
    data = text_csv
    args = ["--model", "tree"]
    expected = {
        "param-type": "max_depth",
        "param-range": "min_samples_leaf",
        "test-size-0": "--test-size",
        "test-size-1.5": "--test-size",
        "inf": "'income'",
        "two-rows": "2 rows",
        "regression-on-text": "--task regression",
    }[case]
    if case == "param-type":
        args += ["--param", "max_depth=abc"]
    elif case == "param-range":
        args += ["--param", "min_samples_leaf=-3"]
    elif case.startswith("test-size"):
        args += ["--test-size", case.split("-")[-1]]
    elif case == "inf":
        data = tmp_path / "inf.csv"
        data.write_text(CSV.replace("52000", "inf", 1))
    elif case == "two-rows":
        data = tmp_path / "two.csv"
        data.write_text("\n".join(CSV.splitlines()[:3]) + "\n")
    else:
        args += ["--task", "regression"]
    line = _error(
        ["fit", str(data), "--target", "label", *args, "-o", str(tmp_path / "m.tbm")], capsys
    )
    assert expected in line
    assert not (tmp_path / "m.tbm").exists()


def test_predict_and_model_mistakes_are_one_line(text_csv, tmp_path, capsys):
    model_path = tmp_path / "m.tbm"
    assert (
        main(["fit", str(text_csv), "--target", "label", "--model", "tree", "-o", str(model_path)])
        == 0
    )
    capsys.readouterr()
    bad = tmp_path / "bad.csv"
    bad.write_text("age,income,city,member\n30,40000,Paris,yes\n31,lots,Lyon,no\n")
    line = _error(["predict", str(model_path), str(bad)], capsys)
    assert "'income'" in line and "'lots'" in line and "row 2" in line
    bad.write_text("age,income,city,member\n30,-inf,Paris,yes\n")
    assert "'income'" in _error(["predict", str(model_path), str(bad)], capsys)
    assert "is a directory" in _error(["predict", str(tmp_path), str(text_csv)], capsys)
    assert "is a directory" in _error(["explain", str(tmp_path)], capsys)
    # crafted files: a ZIP whose model.json is not a model, one whose entry uses a
    # compression method that zipfile does not know, a truncated model
    crafted = tmp_path / "crafted.tbm"
    with zipfile.ZipFile(crafted, "w") as zf:
        zf.writestr("model.json", '{"format": "treeboost-model", "model": [[[[[]]]]]}')
        zf.writestr("arrays.npz", b"")
    _error(["predict", str(crafted), str(text_csv)], capsys)
    raw = bytearray(model_path.read_bytes())
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):
        at = raw.find(sig)
        while at >= 0:
            # compression method field: 8 bytes into a local header, 10 into a central one
            offset = 8 if sig == b"PK\x03\x04" else 10
            raw[at + offset : at + offset + 2] = (97).to_bytes(2, "little")
            at = raw.find(sig, at + 4)
    crafted.write_bytes(bytes(raw))
    _error(["predict", str(crafted), str(text_csv)], capsys)
    crafted.write_bytes(model_path.read_bytes()[:200])
    _error(["predict", str(crafted), str(text_csv)], capsys)


def test_demo_out_that_cannot_be_written(tmp_path, capsys):
    afile = tmp_path / "a-file"
    afile.write_text("")
    assert "not a directory" in _error(
        ["demo", "--folds", "2", "--n-estimators", "2", "--out", str(afile / "pictures")], capsys
    )
    assert "not a directory" in _error(
        ["demo", "--folds", "2", "--n-estimators", "2", "--out", str(afile)], capsys
    )
    assert "--folds" in _error(["demo", "--folds", "1"], capsys)


def test_demo_table_auc_is_the_pooled_out_of_fold_auc(capsys):
    """The table's ROC AUC is the one the ROC picture shows: that of the pooled
    out-of-fold probabilities (not the mean of the folds' AUCs)."""
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from treeboost.cli import FEATURES, _titanic_features
    from treeboost.demo import demo_models, run_demo

    X, y, categorical = _titanic_features()
    y = np.asarray(y)
    run_demo(X, y, categorical, FEATURES, folds=3, n_estimators=5, plots=False)
    out = capsys.readouterr().out
    assert "| ROC AUC (pooled out-of-fold) |" in out
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    for label, est in demo_models(categorical, 5)[:2]:
        proba = cross_val_predict(est, X, y, cv=cv, method="predict_proba")[:, 1]
        row = next(line for line in out.splitlines() if line.startswith(f"| {label} |"))
        assert row.split("|")[3].strip() == f"{roc_auc_score(y, proba):.3f}", row


def test_explain_names_a_bagging_members_column_subset(tmp_path, capsys):
    # a member fitted on 3 of the 6 columns is named by the model's columns (the CLI's
    # own stand-in of a tree once passed all 6 names to it and failed)
    import numpy as np
    import pandas as pd
    from treeboost.cli import main

    rng = np.random.RandomState(0)
    df = pd.DataFrame(rng.rand(200, 6), columns=list("abcdef"))
    df["y"] = (df.a + df.b > 1).astype(int)
    df.to_csv(tmp_path / "t.csv", index=False)
    assert (
        main(
            [
                "fit",
                str(tmp_path / "t.csv"),
                "--target",
                "y",
                "--model",
                "bagging",
                "--param",
                "max_features=0.5",
                "--param",
                "random_state=0",
                "-o",
                str(tmp_path / "b.tbm"),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["explain", str(tmp_path / "b.tbm"), "--tree", "2"]) == 0
    rules = [line for line in capsys.readouterr().out.splitlines() if "IF " in line]
    assert rules
    used = {tok for line in rules for tok in line.replace("(", " ").split() if tok in "abcdef"}
    assert 0 < len(used) <= 3


def test_compile_refuses_bad_jobs(capsys, monkeypatch):
    """`treeboost compile` checks what it is given before it compiles anything."""
    from treeboost import _prebuild

    monkeypatch.setattr(
        _prebuild, "prebuild", lambda **kw: pytest.fail("compiled despite a bad argument")
    )
    assert "--jobs must be at least 1, got 0" in _error(["compile", "--jobs", "0"], capsys)


def test_compile_reports_what_the_build_did(capsys, monkeypatch, tmp_path):
    """It names the folder it wrote (the user's cache folder, not the package), the
    kernels it compiled, and says so when there was nothing to compile."""
    from treeboost import _prebuild

    folder = str(tmp_path / "layer")
    report = _prebuild.PrebuildReport
    monkeypatch.setattr(_prebuild, "prebuild", lambda jobs: report(12.0, 0, 40, None, folder))
    assert main(["compile", "--jobs", "1"]) == 0
    assert f"Done in 12 s (40 kernels): {folder}" in capsys.readouterr().out
    monkeypatch.setattr(_prebuild, "prebuild", lambda jobs: report(0.0, 0, 0, folder, folder))
    assert main(["compile"]) == 0
    assert f"Nothing to compile: the kernels of this source and machine are in {folder}" in (
        capsys.readouterr().out
    )
    monkeypatch.setattr(_prebuild, "prebuild", lambda jobs: report(12.0, 1, 3, None, folder))
    assert main(["compile"]) == 1
    out = capsys.readouterr().out
    assert f"failed to compile (see above); the kernels of the others are in {folder}" in out
