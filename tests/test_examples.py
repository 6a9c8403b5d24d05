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
    three = [l for l in r["hand_gamma"] if (r["leaves"] == l).sum() == 3
             and r["y"][r["leaves"] == l].all()]
    assert three and abs(r["gamma"][three[0]] - 1.5) < 1e-12


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
