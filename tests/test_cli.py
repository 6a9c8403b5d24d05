"""The treeboost command: demo, fit -> predict round trip, explain, and user errors."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from treeboost.cli import main

TITANIC = Path(__file__).resolve().parents[1] / "treeboost" / "datasets" / "data" / "titanic.csv"


def test_demo_runs_and_prints_the_table(tmp_path):
    out = subprocess.run([sys.executable, "-m", "treeboost", "demo", "--folds", "3",
                          "--n-estimators", "10", "--out", str(tmp_path / "demo")],
                         capture_output=True, text=True, timeout=300)
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
    assert main(["fit", str(path), "--target", "Survived", "--model", model,
                 "--param", "random_state=0", "-o", str(model_path)]) == 0
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
    np.testing.assert_allclose(written["proba_1"].to_numpy(), loaded.predict_proba(X)[:, 1],
                               rtol=1e-12)
    assert main(["explain", str(model_path)]) == 0
    out = capsys.readouterr().out
    assert "Rules of tree 0" in out and "Feature importances" in out


def test_regression_is_detected(titanic_csv, tmp_path, capsys):
    path, _ = titanic_csv
    assert main(["fit", str(path), "--target", "Fare", "--model", "gbdt", "-o",
                 str(tmp_path / "r.tbm")]) == 0
    assert "R2" in capsys.readouterr().out


def _error(argv, capsys):
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("treeboost: error:"), err
    return err[0]


def test_user_errors_give_one_line_and_status_2(titanic_csv, tmp_path, capsys):
    path, frame = titanic_csv
    assert "no such file" in _error(["fit", str(tmp_path / "nope.csv"), "--target", "Survived",
                                     "-o", str(tmp_path / "m")], capsys)
    assert "not in" in _error(["fit", str(path), "--target", "Nope", "-o",
                               str(tmp_path / "m")], capsys)
    one = tmp_path / "one.csv"
    frame.assign(Survived=1).to_csv(one, index=False)
    assert "single value" in _error(["fit", str(one), "--target", "Survived", "-o",
                                     str(tmp_path / "m")], capsys)
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
    out = subprocess.run([sys.executable, "-c", NO_PANDAS], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "| Bagging |" in out.stdout and "| AdaBoost |" in out.stdout
