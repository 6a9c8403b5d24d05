"""Datetime columns mean instants: seconds since the epoch whatever the unit or the time
zone (treeboost._input.datetimes), NaT as missing, checked at predict and in model files."""

import numpy as np
import pytest

import treeboost
from treeboost.trees import FeatureEncoder
from treeboost._input.datetimes import to_epoch_seconds

from .._model_files import read_parts, used_only, write_parts

pd = pytest.importorskip("pandas")


def _data(n=400, seed=0):
    """A datetime column (microseconds, some NaT) and a number; y depends on both."""
    rng = np.random.default_rng(seed)
    t = np.datetime64("2023-01-01T00:00:00", "us") + rng.integers(0, 365 * 86400 * 10**6, n).astype(
        "timedelta64[us]"
    )
    t[::17] = np.datetime64("NaT")
    x = rng.normal(size=n)
    late = t > np.datetime64("2023-07-01")
    y = (late ^ (x > 1.0)).astype(int)
    return pd.DataFrame({"when": t, "x": x}), y


def _seconds_frame(X):
    """The encoding by hand: (t - 1970-01-01) / 1 s with NaN for NaT."""
    secs = (X["when"] - pd.Timestamp("1970-01-01")) / pd.Timedelta(seconds=1)
    return X.assign(when=secs.to_numpy(dtype=np.float64, na_value=np.nan))


def test_conversion_by_hand_and_nat_is_missing():
    X, y = _data()
    enc = FeatureEncoder().fit(X)
    np.testing.assert_array_equal(enc.transform(X), _seconds_frame(X).to_numpy())
    assert enc.datetime_zones_ == ["naive", None]
    # known numbers: 1970-01-02T00:00:01.5 is 86401.5 s
    t = np.array(["1970-01-02T00:00:01.5", "NaT", "1969-12-31T23:59:59"], dtype="datetime64[ms]")
    np.testing.assert_array_equal(to_epoch_seconds(t), [86401.5, np.nan, -1.0])
    np.testing.assert_array_equal(
        to_epoch_seconds(t.astype("datetime64[D]")), [86400.0, np.nan, -86400.0]
    )


def test_the_model_equals_one_fitted_on_seconds():
    """A datetime column is exactly its seconds since the epoch, NaT a missing value."""
    X, y = _data()
    a = treeboost.GradientBoostingClassifier(n_estimators=10).fit(X, y)
    b = treeboost.GradientBoostingClassifier(n_estimators=10).fit(_seconds_frame(X), y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(_seconds_frame(X)))
    assert np.isnan(a._encoder.transform(X)[::17, 0]).all()


@pytest.mark.parametrize("fit_unit", ["s", "ns"])
def test_every_unit_gives_the_same_predictions(fit_unit):
    X, y = _data()
    X["when"] = X["when"].dt.floor("s")  # representable in seconds
    model = treeboost.DecisionTreeClassifier(max_depth=4).fit(
        X.assign(when=X["when"].astype(f"datetime64[{fit_unit}]")), y
    )
    expect = model.predict_proba(X)
    for unit in ("s", "ms", "us", "ns"):
        Xu = X.assign(when=X["when"].astype(f"datetime64[{unit}]"))
        np.testing.assert_array_equal(model.predict_proba(Xu), expect)
    # a numpy datetime64 matrix too, of another unit than the frame's
    num = np.column_stack([X["when"].to_numpy().astype("datetime64[ms]")] * 2)
    m2 = treeboost.DecisionTreeClassifier(max_depth=4).fit(num, y)
    np.testing.assert_array_equal(
        m2.predict_proba(num.astype("datetime64[ns]")), m2.predict_proba(num)
    )
    np.testing.assert_array_equal(
        m2._encoder.transform(num)[:, 0], _seconds_frame(X)["when"].to_numpy()
    )


def test_time_zones_compare_instants():
    X, y = _data()
    utc = X.assign(when=X["when"].dt.tz_localize("UTC"))
    paris = utc.assign(when=utc["when"].dt.tz_convert("Europe/Paris"))
    model = treeboost.RandomForestClassifier(5, max_depth=4, random_state=0).fit(utc, y)
    np.testing.assert_array_equal(model.predict_proba(paris), model.predict_proba(utc))
    other = treeboost.RandomForestClassifier(5, max_depth=4, random_state=0).fit(paris, y)
    np.testing.assert_array_equal(other.predict_proba(utc), model.predict_proba(utc))
    # the zone-aware instants are the naive UTC ones
    naive = treeboost.RandomForestClassifier(5, max_depth=4, random_state=0).fit(X, y)
    np.testing.assert_array_equal(naive.predict_proba(X), model.predict_proba(utc))
    assert model._encoder.datetime_zones_ == ["UTC", None]


def test_mismatches_at_predict_are_refused():
    X, y = _data()
    naive = treeboost.DecisionTreeClassifier(max_depth=3).fit(X, y)
    with pytest.raises(ValueError, match="'when' held datetimes in fit"):
        naive.predict(_seconds_frame(X))
    with pytest.raises(ValueError, match="zone-aware datetimes .* fitted with naive"):
        naive.predict(X.assign(when=X["when"].dt.tz_localize("UTC")))
    aware = treeboost.DecisionTreeClassifier(max_depth=3).fit(
        X.assign(when=X["when"].dt.tz_localize("UTC")), y
    )
    with pytest.raises(ValueError, match="naive datetimes .* fitted with zone-aware"):
        aware.predict(X)
    numeric = treeboost.DecisionTreeClassifier(max_depth=3).fit(_seconds_frame(X), y)
    with pytest.raises(ValueError, match="'when' holds datetimes .* fitted with it numeric"):
        numeric.predict(X)
    num = np.column_stack([X["x"].to_numpy()] * 2)
    dates = np.column_stack([X["when"].to_numpy()] * 2)
    with pytest.raises(ValueError, match="holds datetimes"):
        treeboost.DecisionTreeClassifier(max_depth=3).fit(num, y).predict(dates)
    with pytest.raises(ValueError, match="held datetimes in fit"):
        treeboost.DecisionTreeClassifier(max_depth=3).fit(dates, y).predict(num)


def test_model_file_round_trip(tmp_path):
    X, y = _data()
    X = X.assign(when=X["when"].dt.tz_localize("UTC"))
    model = treeboost.GradientBoostingClassifier(n_estimators=5).fit(X, y)
    loaded = treeboost.load(model.save(tmp_path / "m.tbm"))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded._encoder.datetime_zones_ == ["UTC", None]
    with pytest.raises(ValueError, match="naive datetimes"):
        loaded.predict(X.assign(when=X["when"].dt.tz_localize(None)))


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda st: st["datetime_zones_"].__setitem__(1, "Europe/Paris"),
            "datetime_zones_: must be a list of 2 entries, each None, 'naive' or 'UTC'",
        ),
        (
            lambda st: st["datetime_zones_"].__setitem__(1, 1),
            "datetime_zones_: must be a list of 2 entries",
        ),
        (
            lambda st: st["datetime_zones_"].append(None),
            "datetime_zones_: must be a list of 2 entries",
        ),
        (
            lambda st: st.__setitem__("datetime_zones_", {"__tuple__": ["naive", None]}),
            "datetime_zones_: must be a list of 2 entries",
        ),
    ],
)
def test_crafted_datetime_state_is_refused(tmp_path, edit, message):
    X, y = _data()
    model = treeboost.DecisionTreeClassifier(max_depth=3).fit(X, y)
    doc, arrays = read_parts(model.save(tmp_path / "m.tbm"))
    edit(doc["model"]["state"]["_encoder"]["state"])
    write_parts(tmp_path / "bad.tbm", doc, used_only(doc, arrays))
    with pytest.raises(ValueError, match="bad.tbm") as info:
        treeboost.load(tmp_path / "bad.tbm")
    assert message in str(info.value), str(info.value)


def test_datetime_flag_on_a_categorical_column_is_refused():
    enc = FeatureEncoder([0]).fit(np.array([["a", 1.0], ["b", 2.0]], dtype=object))
    enc.datetime_zones_[0] = "naive"
    with pytest.raises(ValueError, match="a categorical column is not a datetime column"):
        enc._validate_state()


def test_format_threshold():
    X, y = _data()
    enc = FeatureEncoder().fit(X)
    day = (np.datetime64("2023-09-20", "s") - np.datetime64("1970-01-01", "s")) / np.timedelta64(
        1, "s"
    )
    assert enc.format_threshold(0, day) == "2023-09-20"
    assert enc.format_threshold(0, day + 43200) == "2023-09-20 12:00:00"
    assert enc.format_threshold(0, day + 43200.5) == "2023-09-20 12:00:00.500"
    assert enc.format_threshold(0, day + 1.25e-4) == "2023-09-20 00:00:00.000125"
    assert enc.format_threshold(0, -86400.0) == "1969-12-31"
    assert enc.format_threshold(0, np.inf) is None
    assert enc.format_threshold(1, 0.5) is None  # a numeric column
    aware = FeatureEncoder().fit(X.assign(when=X["when"].dt.tz_localize("Asia/Tokyo")))
    assert aware.format_threshold(0, day) == "2023-09-20 UTC"
    with pytest.raises(ValueError, match="f must be a column index"):
        enc.format_threshold(2, day)
    # the threshold a tree learned is midway between two instants, printed as a date
    # (the datetime column alone: a number that splits the four rows as well would tie)
    model = treeboost.DecisionTreeClassifier(max_depth=1).fit(
        X.iloc[:4][["when"]].assign(
            when=pd.to_datetime(["2023-09-19", "2023-09-20", "2023-09-22", "2023-09-23"]).as_unit(
                "us"
            )
        ),
        [0, 0, 1, 1],
    )
    text = model._encoder.format_threshold(0, model.tree_.threshold[0])
    assert text == "2023-09-21"
