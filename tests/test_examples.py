"""The examples run, and the Titanic GBDT walkthrough prints the model's own numbers."""

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))


def test_titanic_walkthrough_model_equals_hand_formula():
    pytest.importorskip("pandas")
    from titanic_gbdt import walkthrough

    r = walkthrough(verbose=False)
    assert abs(r["F0"] - np.log(4 / 2)) < 1e-12
    assert abs(r["p0"] - 2 / 3) < 1e-12
    np.testing.assert_allclose(r["residuals"], r["y"] - 2 / 3, atol=1e-12)
    for leaf, gamma in r["hand_gamma"].items():
        assert abs(r["gamma"][leaf] - gamma) < 1e-12
    np.testing.assert_allclose(r["F1"], r["hand_F1"], atol=1e-12)
    np.testing.assert_allclose(r["p1"], expit(r["hand_F1"]), atol=1e-12)
    # the leaf of three survivors: 1/0.6667 = 1.5 exactly, not the slide's 4.29
    three = [
        l
        for l in r["hand_gamma"]
        if (r["leaves"] == l).sum() == 3 and r["y"][r["leaves"] == l].all()
    ]
    assert three and abs(r["gamma"][three[0]] - 1.5) < 1e-12
    # the public names give the same numbers: F0 is init_score_, the leaves are apply's
    np.testing.assert_array_equal(r["model"].init_score_, [r["F0"]])
    tree = r["tree"]
    assert r["model"].apply(r["X"]).shape == (6, 1, 1)
    f = int(tree.feature[0])
    np.testing.assert_array_equal(
        r["leaves"],
        np.where(
            r["X"].iloc[:, f].to_numpy() <= tree.threshold[0],
            tree.children_left[0],
            tree.children_right[0],
        ),
    )


def test_titanic_walkthrough_shap_values_add_up_to_the_decision_function():
    pytest.importorskip("pandas")
    from titanic_gbdt import walkthrough

    r = walkthrough(verbose=False)
    shap, expected = r["shap"], r["expected_value"]
    assert shap.shape == (6, 4)
    # the six passengers' SHAP values add up to F1 = F0 + 0.1 gamma(leaf)
    np.testing.assert_allclose(expected + shap.sum(axis=1), r["F1"], atol=1e-12)
    np.testing.assert_allclose(expected + shap.sum(axis=1), r["hand_F1"], atol=1e-12)
    # one split on Fare: the other features get nothing, Fare the leaf's deviation from
    # the cover-weighted mean of the leaf values (3 and 3 passengers of equal p(1-p): F0)
    fare = list(r["X"].columns).index("Fare")
    np.testing.assert_allclose(np.delete(shap, fare, axis=1), 0.0, atol=1e-15)
    assert abs(expected - r["F0"]) < 1e-12
    np.testing.assert_allclose(shap[:, fare], r["tree"].value[r["leaves"], 0], atol=1e-12)


def test_titanic_example_script_runs(capsys):
    from titanic_gbdt import main

    sys_argv = sys.argv
    sys.argv = ["titanic_gbdt.py", "--folds", "2", "--n-estimators", "10"]
    try:
        main()
    finally:
        sys.argv = sys_argv
    out = capsys.readouterr().out
    assert "4.29" in out and "| treeboost |" in out
    assert "value (raw score): 0.15" in out and "SHAP values" in out


def test_single_tree_vs_ensembles_quick(tmp_path):
    pytest.importorskip("matplotlib")
    from single_tree_vs_ensembles import main

    main(["--quick", "--out", str(tmp_path)])
    assert (tmp_path / "error_vs_trees.png").exists() and (tmp_path / "variance.png").exists()


def test_parallel_forest_quick(tmp_path, capsys):
    from parallel_forest import main

    main(["--quick", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "n_jobs=1" in out
    if "Dask LocalCluster" in out:
        assert "equal the local fit's: True" in out
