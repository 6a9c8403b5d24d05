"""polars frames as input (String, Categorical and Enum columns as categories) and the
estimators' tags for categorical and string input."""

import subprocess
import sys

import numpy as np
import pytest
from sklearn.utils import get_tags

import treeboost as tb

pl = pytest.importorskip("polars")
pd = pytest.importorskip("pandas")


def _frames(n=240, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    s = rng.choice(["a", "b", "c"], n).astype(object)
    s[x > 1.2] = None
    c = rng.choice(["u", "v"], n)
    e = rng.choice(["lo", "mid", "hi"], n)
    k = rng.integers(0, 4, n)
    y = (x > 0) ^ (s == "a") ^ (e == "hi")
    plf = pl.DataFrame(
        {
            "x": x,
            "s": s.tolist(),
            "c": pl.Series(c.tolist(), dtype=pl.Categorical),
            "e": pl.Series(e.tolist(), dtype=pl.Enum(["lo", "mid", "hi"])),
            "k": k,
        }
    )
    pdf = pd.DataFrame(
        {
            "x": x,
            "s": pd.Series(s, dtype=object),
            "c": pd.Series(c, dtype=object),
            "e": pd.Categorical(e, categories=["lo", "mid", "hi"]),
            "k": k,
        }
    )
    return plf, pdf, y


MODELS = [
    lambda: tb.HistGradientBoostingClassifier(max_iter=15, random_state=0),
    lambda: tb.DecisionTreeClassifier(random_state=0),
    lambda: tb.RandomForestClassifier(n_estimators=5, random_state=0),
]


@pytest.mark.parametrize("make", MODELS)
def test_polars_frame_is_read_as_the_pandas_frame(make):
    plf, pdf, y = _frames()
    m_pl, m_pd = make().fit(plf, y), make().fit(pdf, y)
    assert list(m_pl.feature_names_in_) == ["x", "s", "c", "e", "k"]
    enc = m_pl._encoder
    assert enc.is_categorical_.tolist() == [False, True, True, True, False]
    # an Enum keeps its declared order, as a pandas category dtype does
    assert list(enc.categories_[3]) == ["lo", "mid", "hi"]
    assert list(enc.categories_[1]) == ["a", "b", "c"]
    np.testing.assert_array_equal(m_pl.predict_proba(plf), m_pd.predict_proba(pdf))
    # the model reads either kind of frame at predict
    np.testing.assert_array_equal(m_pl.predict_proba(pdf), m_pl.predict_proba(plf))


def test_polars_names_in_categorical_features():
    plf, _, y = _frames()
    m = tb.HistGradientBoostingClassifier(
        max_iter=5, categorical_features=["s", "c", "e", "k"]
    ).fit(plf, y)
    assert m._encoder.is_categorical_.tolist() == [False, True, True, True, True]
    assert list(m._encoder.categories_[4]) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="not a valid feature name"):
        tb.HistGradientBoostingClassifier(categorical_features=["nope"]).fit(plf, y)


def test_polars_text_column_declared_numeric_is_named():
    plf, _, y = _frames()
    with pytest.raises(ValueError, match="Column 's' is not numeric"):
        tb.DecisionTreeClassifier(categorical_features=[2, 3]).fit(plf, y)


def test_polars_nulls_are_missing():
    plf, _, y = _frames()
    m = tb.DecisionTreeClassifier(random_state=0).fit(plf, y)
    Xe = m._encode_X(plf, reset=False)
    assert np.array_equal(np.isnan(Xe[:, 1]), plf["s"].is_null().to_numpy())
    ints = pl.DataFrame({"a": [1, None, 3, 4], "b": [0.5, 1.0, None, 2.0]})
    m = tb.DecisionTreeRegressor().fit(ints, [1.0, 2.0, 3.0, 4.0])
    assert np.isnan(m._encode_X(ints, reset=False)[[1], 0]).all()


def test_numpy_and_pandas_input_do_not_import_polars():
    code = (
        "import sys, numpy as np, treeboost as tb\n"
        "tb.DecisionTreeClassifier().fit(np.eye(4), [0, 1, 0, 1])\n"
        "print('polars' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize(
    "est",
    [
        tb.DecisionTreeClassifier(),
        tb.HistGradientBoostingRegressor(),
        tb.RandomForestClassifier(),
        tb.GradientBoostingClassifier(),
        tb.C45Classifier(),
        tb.BaggingClassifier(),
    ],
    ids=lambda e: type(e).__name__,
)
def test_tags_say_categorical_and_string(est):
    tags = get_tags(est).input_tags
    assert tags.categorical and tags.string and tags.allow_nan


def test_selection_over_a_frame_with_a_string_column():
    """SelectFromModel hands the frame to the estimator (its tags promise strings);
    RFE converts every X to numbers first, for scikit-learn's own estimators too."""
    from sklearn.ensemble import HistGradientBoostingClassifier as SkHGB
    from sklearn.feature_selection import RFE, SelectFromModel

    _, pdf, y = _frames()
    sel = SelectFromModel(tb.RandomForestClassifier(n_estimators=10, random_state=0))
    sel.fit(pdf, y)
    kept = sel.get_feature_names_out()
    assert "s" in kept and sel.transform(pdf).shape[1] == len(kept)
    for est in (tb.HistGradientBoostingClassifier(max_iter=5), SkHGB(max_iter=5)):
        with pytest.raises(ValueError, match="could not convert string to float"):
            RFE(est, n_features_to_select=2).fit(pdf, y)
