import numpy as np
import pytest

from treeboost.datasets import load_titanic, load_watermelon


def test_titanic_known_figures():
    pytest.importorskip("pandas")
    b = load_titanic()
    assert b.data.shape == (891, 10)
    assert int(b.target.sum()) == 342
    assert int(b.data["Age"].isna().sum()) == 177
    assert int(b.data["Cabin"].isna().sum()) == 687
    assert int(b.data["Embarked"].isna().sum()) == 2
    assert str(b.data["Sex"].dtype) == "category"


def test_titanic_without_pandas_objects():
    X, y = load_titanic(as_frame=False, return_X_y=True)
    assert isinstance(X, np.ndarray) and X.shape == (891, 10)
    assert y.dtype.kind == "i" and y.sum() == 342
    age = X[:, 3].astype(float)
    assert np.isnan(age).sum() == 177


def test_watermelon_known_figures():
    pytest.importorskip("pandas")
    b = load_watermelon()
    assert b.data.shape == (17, 6)
    assert list(b.data.columns) == ["色泽", "根蒂", "敲声", "纹理", "脐部", "触感"]
    assert int((b.target == "是").sum()) == 8
    p = np.array([8, 9]) / 17
    assert round(-(p * np.log2(p)).sum(), 3) == 0.998
    assert sorted(b.book_train_ids + b.book_validation_ids) == list(range(1, 18))
    assert list(b.ids) == list(range(1, 18))


def test_watermelon_numpy():
    X, y = load_watermelon(as_frame=False, return_X_y=True)
    assert X.shape == (17, 6) and X.dtype == object
    assert set(y) == {"是", "否"}
