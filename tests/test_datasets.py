"""The bundled data sets: shapes, the published figures, and both return paths."""

import sys

import numpy as np
import pytest

from treeboost.datasets import load_titanic, load_watermelon

WATERMELON_FEATURES = ["色泽", "根蒂", "敲声", "纹理", "脐部", "触感"]


def _entropy(labels):
    _, counts = np.unique(np.asarray(labels), return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def test_titanic_known_figures():
    pytest.importorskip("pandas")
    b = load_titanic()
    assert b.data.shape == (891, 10)
    assert b.frame.shape == (891, 11)
    assert b.feature_names == [
        "Pclass",
        "Name",
        "Sex",
        "Age",
        "SibSp",
        "Parch",
        "Ticket",
        "Fare",
        "Cabin",
        "Embarked",
    ]
    assert list(b.data.columns) == b.feature_names
    assert int(b.target.sum()) == 342 and int((b.target == 0).sum()) == 549
    assert int(b.data["Age"].isna().sum()) == 177
    assert int(b.data["Cabin"].isna().sum()) == 687
    assert int(b.data["Embarked"].isna().sum()) == 2
    assert str(b.data["Sex"].dtype) == "category"
    assert str(b.data["Embarked"].dtype) == "category"
    assert b.data["Age"].dtype == np.float64 and b.data["Fare"].dtype == np.float64
    for col in ("Name", "Ticket", "Cabin"):
        assert b.data[col].dtype == object
    assert list(b.target_names) == [0, 1]
    assert "Encyclopedia Titanica" in b.DESCR


def test_titanic_numpy_path():
    b = load_titanic(as_frame=False)
    assert b.frame is None
    assert isinstance(b.data, np.ndarray) and b.data.dtype == object
    assert b.data.shape == (891, 10)
    assert isinstance(b.target, np.ndarray) and b.target.dtype.kind == "i"
    assert b.target.sum() == 342
    j = b.feature_names.index
    assert np.isnan(b.data[:, j("Age")].astype(float)).sum() == 177
    assert sum(v != v for v in b.data[:, j("Cabin")]) == 687  # NaN != NaN
    assert sum(v != v for v in b.data[:, j("Embarked")]) == 2


def test_titanic_return_X_y():
    X, y = load_titanic(as_frame=False, return_X_y=True)
    assert X.shape == (891, 10) and y.shape == (891,)
    pytest.importorskip("pandas")
    X, y = load_titanic(return_X_y=True)
    assert X.shape == (891, 10) and int(y.sum()) == 342


def test_watermelon_known_figures():
    pytest.importorskip("pandas")
    b = load_watermelon()
    assert b.data.shape == (17, 6)
    assert list(b.data.columns) == WATERMELON_FEATURES == b.feature_names
    assert all(str(dt) == "category" for dt in b.data.dtypes)
    assert int((b.target == "是").sum()) == 8
    assert round(_entropy(b.target), 3) == 0.998
    assert list(b.ids) == list(range(1, 18))
    assert b.frame.shape == (17, 7)
    assert "Zhou Zhihua" in b.DESCR


def test_watermelon_numpy_path():
    b = load_watermelon(as_frame=False)
    assert b.frame is None
    assert isinstance(b.data, np.ndarray) and b.data.shape == (17, 6)
    assert b.data.dtype == object
    assert isinstance(b.target, np.ndarray) and set(b.target) == {"是", "否"}
    assert round(_entropy(b.target), 3) == 0.998
    X, y = load_watermelon(as_frame=False, return_X_y=True)
    assert X.shape == (17, 6) and y.shape == (17,)


def test_watermelon_book_split_partitions_ids():
    b = load_watermelon(as_frame=False)
    train, val = set(b.book_train_ids), set(b.book_validation_ids)
    assert not train & val
    assert train | val == set(range(1, 18)) == set(b.ids.tolist())
    assert len(b.book_train_ids) == 10 and len(b.book_validation_ids) == 7


def test_as_frame_without_pandas_raises(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # makes `import pandas` fail
    with pytest.raises(ImportError, match="pandas is required for as_frame=True"):
        load_titanic()
    with pytest.raises(ImportError, match="as_frame=False"):
        load_watermelon()
    assert load_watermelon(as_frame=False).data.shape == (17, 6)
