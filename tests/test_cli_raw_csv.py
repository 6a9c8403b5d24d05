"""The treeboost command on a CSV file as downloaded (Kaggle's Titanic train.csv, with
PassengerId, Name, Ticket and Cabin), its help, closed pipes and SHAP output."""

import importlib
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from treeboost.cli import _parser, identifier_columns, main

from ._helpers import cli_error as _error

ROOT = Path(__file__).resolve().parents[1]
TITANIC = ROOT / "treeboost" / "datasets" / "data" / "titanic.csv"
FEATURES = ["Pclass", "Sex", "Age", "SibSp", "Parch", "Ticket", "Fare", "Cabin", "Embarked"]
QUICK = ["--param", "n_estimators=20"]


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """The raw file fitted once with the default model (gradient boosting)."""
    pytest.importorskip("pandas")
    path = tmp_path_factory.mktemp("raw") / "model.tbm"
    out, err = io.StringIO(), io.StringIO()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(["fit", str(TITANIC), "--target", "Survived", *QUICK, "-o", str(path)])
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    assert code == 0, err.getvalue()
    return path, out.getvalue() + err.getvalue()  # the notes go to standard error


def _frame_as_model_reads_it(columns):
    import pandas as pd

    frame = pd.read_csv(TITANIC)[columns].copy()
    for col in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[col]):
            frame[col] = frame[col].astype("category")
    return frame


# -- fit on the raw file ------------------------------------------------------------------------
def test_raw_titanic_fits_with_the_default_model(fitted):
    import treeboost

    path, out = fitted
    notice = [line for line in out.splitlines() if "identify rows" in line]
    assert len(notice) == 1
    assert "PassengerId, Name" in notice[0]
    for kept in ("Ticket", "Cabin", "Fare", "Age"):
        assert kept not in notice[0]
    assert "GradientBoostingClassifier fitted on 712 rows x 9 columns" in out
    for metric in ("accuracy", "ROC AUC", "log loss"):
        assert f"  {metric}" in out
    # held-out categories the training part never saw (counted by hand: 118 tickets and
    # 24 of the 44 cabins); none of Sex or Embarked
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert notes == [
        "note: 118 of the 179 held-out values of Ticket never occur in the training part; "
        "the model reads them as missing values",
        "note: 24 of the 44 held-out values of Cabin never occur in the training part; "
        "the model reads them as missing values",
    ]
    model = treeboost.load(path)
    assert list(model.feature_names_in_) == FEATURES


def test_raw_titanic_fits_with_gbdt_and_tree(tmp_path, capsys):
    import treeboost

    for model, name in [("gbdt", "GradientBoostingClassifier"), ("tree", "DecisionTreeClassifier")]:
        path = tmp_path / f"{model}.tbm"
        params = QUICK if model == "gbdt" else ["--param", "max_depth=4"]
        assert (
            main(
                [
                    "fit",
                    str(TITANIC),
                    "--target",
                    "Survived",
                    "--model",
                    model,
                    *params,
                    "-o",
                    str(path),
                ]
            )
            == 0
        )
        out, err = capsys.readouterr()
        assert f"{name} fitted" in out and "identify rows" in err
        assert list(treeboost.load(path).feature_names_in_) == FEATURES


def test_hold_out_metrics_are_those_of_the_hold_out(tmp_path, capsys):
    """The printed accuracy and ROC AUC equal scikit-learn's on the same split."""
    import treeboost
    from sklearn.metrics import accuracy_score, roc_auc_score
    from sklearn.model_selection import train_test_split

    path = tmp_path / "m.tbm"
    assert (
        main(
            [
                "fit",
                str(TITANIC),
                "--target",
                "Survived",
                "--model",
                "tree",
                "--drop",
                "Ticket,Cabin",
                "-o",
                str(path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    model = treeboost.load(path)
    X = _frame_as_model_reads_it(list(model.feature_names_in_))
    y = _frame_as_model_reads_it(["Survived"])["Survived"].to_numpy()
    _, Xte, _, yte = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    assert "Scores on the 179 held-out rows (--test-size 0.2)" in out
    assert "baseline  0.6145  (accuracy of always predicting 0" in out  # 110 / 179
    # the saved model is the one fitted on the training part: its hold-out scores
    assert f"accuracy  {accuracy_score(yte, model.predict(Xte)):.4f}" in out
    assert f"ROC AUC   {roc_auc_score(yte, model.predict_proba(Xte)[:, 1]):.4f}" in out


def test_drop(tmp_path, capsys):
    import treeboost

    path = tmp_path / "m.tbm"
    assert (
        main(
            [
                "fit",
                str(TITANIC),
                "--target",
                "Survived",
                "--model",
                "tree",
                "--drop",
                "Ticket,Cabin",
                "--drop",
                "Embarked",
                "-o",
                str(path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "not used as features (--drop): Ticket, Cabin, Embarked" in out
    assert list(treeboost.load(path).feature_names_in_) == [
        "Pclass",
        "Sex",
        "Age",
        "SibSp",
        "Parch",
        "Fare",
    ]
    line = _error(
        [
            "fit",
            str(TITANIC),
            "--target",
            "Survived",
            "--drop",
            "Cabin,Nope",
            "-o",
            str(tmp_path / "x.tbm"),
        ],
        capsys,
    )
    assert "--drop Nope" in line
    assert "target" in _error(
        [
            "fit",
            str(TITANIC),
            "--target",
            "Survived",
            "--drop",
            "Survived",
            "-o",
            str(tmp_path / "x.tbm"),
        ],
        capsys,
    )
    assert not (tmp_path / "x.tbm").exists()


def test_keep_ids(tmp_path, capsys):
    import treeboost

    path = tmp_path / "m.tbm"
    assert (
        main(
            [
                "fit",
                str(TITANIC),
                "--target",
                "Survived",
                "--model",
                "tree",
                "--keep-ids",
                "--drop",
                "Name,Ticket,Cabin",
                "-o",
                str(path),
            ]
        )
        == 0
    )
    assert "identify rows" not in capsys.readouterr().err
    assert "PassengerId" in treeboost.load(path).feature_names_in_


def test_identifier_columns_rule():
    pd = pytest.importorskip("pandas")
    n = 30
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "id": np.arange(100, 100 + n),  # integers, all distinct
            "name": [f"passenger {i}" for i in range(n)],  # text, all distinct
            "code": [f"c{i}" if i % 3 else None for i in range(n)],  # distinct where present
            "weight": rng.normal(70, 10, n),  # floats, all distinct
            "whole_floats": np.arange(n, dtype=np.float64),  # still a measurement
            "group": [f"g{i % 5}" for i in range(n)],  # text that repeats
            "count": np.arange(n) // 2,  # integers that repeat
            "flag": [True, False] * (n // 2),
            "y": np.arange(n),  # the target: excluded
        }
    )
    assert identifier_columns(frame, exclude=["y"]) == ["id", "name", "code"]
    # fewer than 20 values: distinct by chance, kept
    assert identifier_columns(frame.head(19), exclude=["y"]) == []
    assert identifier_columns(pd.read_csv(TITANIC), exclude=["Survived"]) == ["PassengerId", "Name"]


# -- predict on the raw file ------------------------------------------------------------------
def test_predict_carries_the_id_through(fitted, tmp_path, capsys):
    import pandas as pd
    import treeboost

    path, _ = fitted
    out_path = tmp_path / "pred.csv"
    assert (
        main(["predict", str(path), str(TITANIC), "--id", "PassengerId", "-o", str(out_path)]) == 0
    )
    out = capsys.readouterr().out
    assert "the model does not use: Name\n" in out  # nor the target, nor the id
    written = pd.read_csv(out_path)
    raw = pd.read_csv(TITANIC)
    assert list(written.columns) == ["PassengerId", "prediction", "proba_0", "proba_1"]
    assert len(written) == len(raw) == 891
    np.testing.assert_array_equal(written["PassengerId"], raw["PassengerId"])
    model = treeboost.load(path)
    X = _frame_as_model_reads_it(FEATURES)
    np.testing.assert_array_equal(written["prediction"], model.predict(X))
    np.testing.assert_allclose(written["proba_1"], model.predict_proba(X)[:, 1], rtol=1e-12)


def test_predict_id_is_written_as_in_the_file(fitted, tmp_path, capsys):
    """An id such as ``007`` keeps its zeros; rows without the target are predicted."""
    import pandas as pd

    path, _ = fitted
    raw = pd.read_csv(TITANIC, dtype={"PassengerId": str}).head(5)
    raw["PassengerId"] = ["007", "008", "x9", "", "11"]
    raw = raw.drop(columns=["Survived"])  # as Kaggle's test.csv
    data = tmp_path / "test.csv"
    raw.to_csv(data, index=False)
    assert main(["predict", str(path), str(data), "--id", "PassengerId"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("PassengerId,prediction,")
    assert [line.split(",")[0] for line in lines[1:]] == ["007", "008", "x9", "", "11"]
    assert "--id Nope" in _error(["predict", str(path), str(data), "--id", "Nope"], capsys)
    raw.drop(columns=["Cabin"]).to_csv(data, index=False)
    assert "missing ['Cabin']" in _error(["predict", str(path), str(data)], capsys)


# -- errors, help, pipes ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "model,param,target",
    [
        ("gbdt", "learning_rate=-1", "Survived"),
        ("gbdt", "learning_rate=-1", "Fare"),
        ("adaboost", "learning_rate=-1", "Survived"),
        ("adaboost", "learning_rate=-1", "Fare"),
        ("rf", "n_estimators=0", "Survived"),
        ("extratrees", "max_features=-2", "Fare"),
        ("bagging", "max_samples=-1", "Survived"),
        ("tree", "max_depth=0", "Fare"),
        ("tree", "criterion='nope'", "Survived"),
        ("gbdt", "no_such_parameter=1", "Survived"),
        ("bagging", "estimator__max_depth=-1", "Survived"),
    ],
)
def test_bad_parameters_are_one_line(model, param, target, tmp_path, capsys):
    line = _error(
        [
            "fit",
            str(TITANIC),
            "--target",
            target,
            "--model",
            model,
            "--param",
            param,
            "-o",
            str(tmp_path / "m.tbm"),
        ],
        capsys,
    )
    assert "--param" in line and param.split("=")[0].split("__")[-1] in line
    assert not (tmp_path / "m.tbm").exists()


def test_every_option_is_described_in_help(capsys):
    parser = _parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert set(commands) == {"demo", "fit", "predict", "explain", "compile"}
    for name, sub in commands.items():
        with pytest.raises(SystemExit) as exit_:
            main([name, "--help"])
        assert exit_.value.code == 0
        text = " ".join(capsys.readouterr().out.split())
        for action in sub._actions:
            if action.dest == "help":
                continue
            assert action.help, f"{name} {action.dest} has no help"
            if action.option_strings:
                assert action.option_strings[-1] in text, (name, action.option_strings)
            else:
                assert action.metavar in text
            assert " ".join(action.help.split()) in text
            if action.default not in (None, False) and not action.required:
                assert f"(default: {action.default})" in text, (name, action.dest)


class _ClosedPipe(io.StringIO):
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self):
        raise io.UnsupportedOperation("no file descriptor")


def test_a_closed_pipe_ends_quietly(fitted, monkeypatch, capsys):
    path, _ = fitted
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    # the status a shell reports for `cat` killed by SIGPIPE; the process itself dies of it
    assert main(["explain", str(path)]) == 141
    assert main(["predict", str(path), str(TITANIC)]) == 141


def test_a_closed_pipe_in_a_shell_prints_nothing(fitted):
    path, _ = fitted
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for command in ("explain", "explain --tree 3"):
        out = subprocess.run(
            f"'{sys.executable}' -m treeboost {command} '{path}' | head -1",
            shell=True,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert out.stdout.startswith("Rules of tree")
        assert out.stderr == "", out.stderr


def test_explain_says_boosting_leaves_are_raw_scores(fitted, capsys):
    import treeboost

    path, _ = fitted
    assert main(["explain", str(path), "--tree", "2"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Leaf values are raw scores, log-odds of Survived = 1" in text
    assert "not probabilities" in text
    model = treeboost.load(path)
    # the initial score printed is the one every row's log-odds start from
    init = float(np.ravel(model.init_score_)[0])
    assert f"initial score {init:.6f}" in text


# -- SHAP -------------------------------------------------------------------------------------
def _shap_available():
    try:
        importlib.import_module("treeboost.inspection._shap")
    except ImportError:
        return False
    return True


needs_shap = pytest.mark.skipif(
    not _shap_available(), reason="treeboost.inspection._shap has not landed"
)


@needs_shap
@pytest.mark.parametrize("top", [1, 3])
def test_explain_shap_prints_each_rows_largest_values(fitted, tmp_path, capsys, top):
    import pandas as pd
    import treeboost
    from treeboost.inspection import shap_values

    path, _ = fitted
    data = tmp_path / "rows.csv"
    pd.read_csv(TITANIC).head(6).to_csv(data, index=False)
    assert (
        main(["explain", str(path), str(data), "--shap", "--top", str(top), "--id", "PassengerId"])
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    model = treeboost.load(path)
    X = _frame_as_model_reads_it(FEATURES).head(6)
    values, expected = shap_values(model, X)
    assert f"expected value: {float(expected):.6f}" in out
    decision = model.decision_function(X)
    for i in range(6):
        at = next(k for k, line in enumerate(out) if line.startswith(f"PassengerId {i + 1}:"))
        assert f"log-odds(Survived = 1) = {decision[i]:.6f}" in out[at]
        shown = out[at + 1 : at + 1 + top]
        assert all(line.startswith("  ") for line in shown)
        assert at + 1 + top == len(out) or not out[at + 1 + top].startswith("  ")
        best = np.argsort(-np.abs(values[i]), kind="stable")[:top]
        for line, j in zip(shown, best):
            assert line.split()[0] == FEATURES[j]
            assert line.endswith(f"{values[i, j]:+.6f}")


@needs_shap
def test_explain_shap_of_a_forest_on_probabilities(tmp_path, capsys):
    import pandas as pd

    path = tmp_path / "rf.tbm"
    assert (
        main(
            [
                "fit",
                str(TITANIC),
                "--target",
                "Survived",
                "--model",
                "rf",
                "--param",
                "n_estimators=10",
                "-o",
                str(path),
            ]
        )
        == 0
    )
    data = tmp_path / "rows.csv"
    pd.read_csv(TITANIC).head(3).to_csv(data, index=False)
    capsys.readouterr()
    assert main(["explain", str(path), str(data), "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "outputs are predicted probabilities" in " ".join(out.split())
    assert "row 1: probability(Survived = 1) = " in out


def test_explain_shap_mistakes(fitted, capsys):
    path, _ = fitted
    assert "--shap needs" in _error(["explain", str(path), "--shap"], capsys)
    assert "--top" in _error(["explain", str(path), str(TITANIC), "--top", "0"], capsys)
    assert "--id" in _error(["explain", str(path), "--id", "PassengerId"], capsys)


@needs_shap
@pytest.mark.parametrize(
    "target,model", [("Fare", "gbdt"), ("Embarked", "tree"), ("Embarked", "gbdt")]
)
def test_explain_shap_output_is_the_models(target, model, tmp_path, capsys):
    """Regression: the prediction; K classes: each row's predicted class, on the output
    the SHAP values add up to (probability for a tree, raw score for boosting)."""
    import pandas as pd
    import treeboost

    path = tmp_path / "m.tbm"
    assert (
        main(
            [
                "fit",
                str(TITANIC),
                "--target",
                target,
                "--model",
                model,
                "--param",
                "n_estimators=5" if model == "gbdt" else "max_depth=3",
                "--drop",
                "Cabin",
                "-o",
                str(path),
            ]
        )
        == 0
    )
    rows = pd.read_csv(TITANIC).head(8)
    data = tmp_path / "rows.csv"
    rows.to_csv(data, index=False)
    capsys.readouterr()
    assert main(["explain", str(path), str(data), "--top", "1"]) == 0
    heads = [line for line in capsys.readouterr().out.splitlines() if line.startswith("row ")]
    fitted = treeboost.load(path)
    X = _frame_as_model_reads_it(list(fitted.feature_names_in_)).head(8)
    assert len(heads) == 8
    if target == "Fare":
        expect = [f"predicted Fare = {v:.6f}" for v in fitted.predict(X)]
    else:
        out = fitted.predict_proba(X) if model == "tree" else fitted.decision_function(X)
        kind = "probability" if model == "tree" else "raw score"
        k = out.argmax(axis=1)
        expect = [
            f"{kind}(Embarked = {fitted.classes_[j]}) = {out[i, j]:.6f}" for i, j in enumerate(k)
        ]
    for head, text in zip(heads, expect):
        assert text in head, (head, text)
