"""What ``treeboost fit`` decides on files as people download them (issue 57): numbers
written with a decimal comma or thousands separators, R's row names, a count target,
US and European dates, a score no better than its baseline; each decision and its note.

Each file is written here as such an export writes it (``;`` and ``1.234,5`` of a
European spreadsheet, the quoted ``"3,750"`` of a US one, R's ``write.csv`` row names)."""

import numpy as np
import pytest

from treeboost.cli import main

from ._helpers import cli_error

pd = pytest.importorskip("pandas")

TREE = ["--model", "tree", "--param", "max_depth=3"]


def _run(argv, capsys):
    """``(stdout, stderr)`` of a command that must succeed."""
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def _fit(path, target, tmp_path, capsys, *options):
    """Fit a small tree on ``path``: ``(model, stdout, stderr)``."""
    import treeboost

    model = tmp_path / "m.tbm"
    out, err = _run(
        ["fit", str(path), "--target", target, *TREE, *options, "-o", str(model)], capsys
    )
    return treeboost.load(model), out, err


def _numeric_features(model):
    """The feature names the model learned as numbers (not categories)."""
    flags = model._encoder.is_categorical_
    return [str(c) for c, flag in zip(model.feature_names_in_, flags) if not flag]


def _weather(n=200, seed=0):
    """Temperature, rain and wind with an ozone level that follows the temperature."""
    rng = np.random.default_rng(seed)
    temp = np.round(rng.uniform(-5, 35, n), 1)
    rain = np.round(rng.exponential(2.0, n), 2)
    wind = np.round(rng.uniform(0, 20, n), 1)
    ozone = np.round(20 + 3 * temp + rng.normal(0, 2, n), 1)
    return pd.DataFrame({"temp": temp, "rain": rain, "wind": wind, "ozone": ozone})


# -- numbers: decimal commas and thousands separators ----------------------------------------
def test_decimal_comma_with_semicolons_reads_numbers_and_says_so(tmp_path, capsys):
    frame = _weather()
    path = tmp_path / "wetter.csv"
    frame.to_csv(path, sep=";", decimal=",", index=False)
    assert "12,5" in path.read_text() or "," in path.read_text().splitlines()[1]
    model, out, err = _fit(path, "ozone", tmp_path, capsys)
    # every column is numbers, the target a regression (not one class per value)
    assert _numeric_features(model) == ["temp", "rain", "wind"]
    assert "R2" in out and "accuracy" not in out
    assert "makes no split" not in err
    note = next(line for line in err.splitlines() if "read with decimal" in line)
    assert note.startswith(
        f"treeboost: note: numbers of {path} read with decimal ',' and no thousands "
        "separator (detected: "
    )
    assert "sampled cells of column" in note and note.endswith("); --decimal . to change")
    assert "note: regression: the target 'ozone' holds numbers that are not integers" in err
    assert model.feature_importances_[0] > 0.5  # the temperature drives the ozone


def test_decimal_forced_and_a_target_of_numbers_as_text_is_refused(tmp_path, capsys):
    path = tmp_path / "wetter.csv"
    _weather().to_csv(path, sep=";", decimal=",", index=False)
    line = cli_error(
        ["fit", str(path), "--target", "ozone", "--decimal", ".", "-o", str(tmp_path / "m.tbm")],
        capsys,
    )
    # not a classification of one class per value, still running minutes later
    assert "distinct text values in 200 rows" in line and "one class per value" in line
    assert "--decimal , " in line and "--task regression" in line
    assert "--task classification to fit" in line
    # --decimal , given: read as numbers, no note of a detection
    model, out, err = _fit(path, "ozone", tmp_path, capsys, "--decimal", ",")
    assert _numeric_features(model) == ["temp", "rain", "wind"]
    assert "read with decimal" not in err
    assert cli_error(
        ["fit", str(path), "--target", "ozone", "--decimal", ",,", "-o", str(tmp_path / "m")],
        capsys,
    ).endswith("--decimal takes one character, got ',,'")


def test_quoted_thousands_commas(tmp_path, capsys):
    rng = np.random.default_rng(1)
    n = 120
    grams = rng.integers(2_700, 6_300, n)  # penguins' body mass
    frame = pd.DataFrame(
        {
            "body_mass_g": [f"{g:,}" for g in grams],  # "3,750"
            "flipper": rng.integers(170, 230, n),
            "price": [f"{p:,.2f}" for p in rng.uniform(500, 2_000_000, n)],  # "1,234,567.89"
            "heavy": (grams > 4_500).astype(int),
        }
    )
    path = tmp_path / "penguins.csv"
    frame.to_csv(path, index=False)
    assert '"3,' in path.read_text() or '"4,' in path.read_text()
    model, out, err = _fit(path, "heavy", tmp_path, capsys)
    assert _numeric_features(model) == ["body_mass_g", "flipper", "price"]
    assert "and thousands ','" in err and "read with decimal '.'" in err
    assert "--thousands none to change" in err
    imp = dict(zip(model.feature_names_in_, model.feature_importances_))
    assert imp["body_mass_g"] > 0.9


@pytest.mark.parametrize(
    "group, example",
    [(".", "3.750,5"), (" ", "3 750,5")],
    ids=["dot", "space"],
)
def test_thousands_with_a_decimal_comma(group, example, tmp_path, capsys):
    rng = np.random.default_rng(2)
    n = 150
    amount = np.round(rng.uniform(100, 90_000, n), 1)

    def european(v):
        whole, frac = f"{v:,.1f}".split(".")
        return whole.replace(",", group) + "," + frac

    frame = pd.DataFrame(
        {
            "betrag": [european(v) for v in amount],
            "anteil": [f"{v:.2f}".replace(".", ",") for v in rng.uniform(0, 1, n)],
            "gross": (amount > 45_000).astype(int),
        }
    )
    frame.loc[0, "betrag"] = example
    amount[0] = 3750.5
    path = tmp_path / "export.csv"
    frame.to_csv(path, sep=";", index=False)
    model, out, err = _fit(path, "gross", tmp_path, capsys)
    assert _numeric_features(model) == ["betrag", "anteil"]
    assert f"read with decimal ',' and thousands {group!r}" in err
    assert "column 'betrag'" in err
    # the values themselves: predict reads the file the same way
    pred = tmp_path / "p.csv"
    _run(["predict", str(tmp_path / "m.tbm"), str(path), "-o", str(pred)], capsys)
    assert (pd.read_csv(pred)["prediction"].to_numpy() == (amount > 45_000)).mean() > 0.95


def test_a_dot_decimal_is_not_taken_for_thousands(tmp_path, capsys):
    """``3.750`` and ``1.234`` alone read as 3.75 and 1.234 (nothing tells otherwise), and
    a file whose dots are decimals is never read with thousands '.' (pandas would read
    ``3.14`` as 314)."""
    frame = _weather(60)
    frame["grams"] = ["3.750", "1.234"] * 30
    path = tmp_path / "plain.csv"
    frame.to_csv(path, sep=";", index=False)
    model, out, err = _fit(path, "ozone", tmp_path, capsys)
    assert "read with decimal" not in err
    assert _numeric_features(model) == ["temp", "rain", "wind", "grams"]


# -- row names and row numbers -----------------------------------------------------------------
def test_r_rownames_column_is_an_identifier(tmp_path, capsys):
    """A ``rownames`` column of the rows kept of a larger table (4 ... 9029, in order)."""
    rng = np.random.default_rng(3)
    n = 601
    frame = pd.DataFrame(
        {
            "rownames": np.sort(rng.choice(np.arange(4, 9030), n, replace=False)),
            "age": rng.integers(18, 70, n),
            "income": np.round(rng.uniform(10, 90, n), 1),
        }
    )
    frame["affair"] = (rng.uniform(size=n) < 0.25).astype(int)
    path = tmp_path / "Affairs.csv"
    frame.to_csv(path, index=False)
    model, out, err = _fit(path, "affair", tmp_path, capsys)
    assert list(model.feature_names_in_) == ["age", "income"]
    assert (
        "treeboost: note: not used as features, they identify rows (no value repeats): "
        "rownames (--keep-ids keeps them)"
    ) in err


@pytest.mark.parametrize("name", ["", "X", "index"])
def test_write_csv_row_names_are_identifiers(name, tmp_path, capsys):
    """R's ``write.csv`` (a nameless first column, which pandas reads as ``Unnamed: 0``;
    ``X`` once read back by R) on a small file, where no count rule applies."""
    rng = np.random.default_rng(4)
    n = 16
    frame = pd.DataFrame(
        {
            "mpg": np.round(rng.uniform(10, 34, n), 1),
            "cyl": rng.choice([4, 6, 8], n),
            "am": np.tile([0, 1], n // 2),
        }
    )
    # R's row numbers after a sample (shuffled) or 1..n as read.csv numbers them
    frame.insert(0, name, np.arange(1, n + 1) if name == "X" else rng.permutation(n) * 7 + 3)
    path = tmp_path / "mtcars.csv"
    frame.to_csv(path, index=False)
    model, out, err = _fit(path, "am", tmp_path, capsys)
    shown = "Unnamed: 0" if name == "" else name
    assert list(model.feature_names_in_) == ["mpg", "cyl"]
    assert f"identify rows (no value repeats): {shown} (--keep-ids" in err


def test_x_elsewhere_or_not_row_numbers_stays_a_feature(tmp_path, capsys):
    rng = np.random.default_rng(5)
    n = 16
    frame = pd.DataFrame(
        {"a": rng.uniform(size=n), "X": rng.permutation(n), "y": np.tile([0, 1], n // 2)}
    )
    path = tmp_path / "x.csv"
    frame.to_csv(path, index=False)
    model, out, err = _fit(path, "y", tmp_path, capsys)
    assert list(model.feature_names_in_) == ["a", "X"]
    assert "identify rows" not in err


# -- the task ------------------------------------------------------------------------------------
def test_a_count_target_is_a_regression_and_the_task_is_said(tmp_path, capsys):
    rng = np.random.default_rng(6)
    n = 300
    x = rng.uniform(0, 1, n)
    counts = np.array([0, 1, 2, 3, 7, 12])
    frame = pd.DataFrame({"x": x, "z": rng.uniform(size=n)})
    frame["count"] = counts[np.minimum((x * 6).astype(int), 5)]
    path = tmp_path / "counts.csv"
    frame.to_csv(path, index=False)
    model, out, err = _fit(path, "count", tmp_path, capsys)
    assert type(model).__name__ == "DecisionTreeRegressor"
    assert "R2" in out
    assert (
        "treeboost: note: regression: the target 'count' has 6 integer values "
        "(0, 1, 2, 3, 7, 12), with gaps, as counts or amounts have; use --task "
        "classification to change"
    ) in err
    # consecutive integers are classes, and the note says so too
    frame["count"] = np.minimum((x * 4).astype(int), 3) + 1
    frame.to_csv(path, index=False)
    model, out, err = _fit(path, "count", tmp_path, capsys)
    assert type(model).__name__ == "DecisionTreeClassifier"
    assert (
        "treeboost: note: classification: the target 'count' has 4 consecutive integer "
        "values (1, 2, 3, 4); use --task regression to change"
    ) in err
    # --task given: taken, nothing to say
    model, out, err = _fit(path, "count", tmp_path, capsys, "--task", "regression")
    assert type(model).__name__ == "DecisionTreeRegressor"
    assert "use --task" not in err


# -- scores no better than their baseline -------------------------------------------------------
def test_scores_no_better_than_the_baseline_are_warned(tmp_path, capsys):
    rng = np.random.default_rng(7)
    n = 200
    x = rng.uniform(-1, 1, n)
    train = pd.DataFrame({"x": x, "y": (x > 0.4).astype(int)})
    # the validation file's labels run the other way: the model is worse than a guess
    valid = pd.DataFrame({"x": x, "y": (x <= 0.4).astype(int)})
    train.to_csv(tmp_path / "train.csv", index=False)
    valid.to_csv(tmp_path / "valid.csv", index=False)
    model, out, err = _fit(
        tmp_path / "train.csv", "y", tmp_path, capsys, "--valid", str(tmp_path / "valid.csv")
    )
    lines = err.splitlines()
    accuracy = next(line for line in lines if "warning: the accuracy" in line)
    assert accuracy.startswith("treeboost: warning: the accuracy 0.0000 is below the baseline")
    assert "of always predicting 0" in accuracy
    assert any(
        line.startswith("treeboost: warning: the ROC AUC 0.0000 is below 0.5") for line in lines
    )
    # a regression whose target is noise: R2 below 0
    noise = pd.DataFrame({"x": rng.uniform(size=n), "y": rng.normal(size=n)})
    noise.to_csv(tmp_path / "noise.csv", index=False)
    model, out, err = _fit(tmp_path / "noise.csv", "y", tmp_path, capsys)
    assert "treeboost: warning: the R2 -" in err and "is not above 0" in err
    # a model that beats its baseline: no warning
    model, out, err = _fit(tmp_path / "train.csv", "y", tmp_path, capsys)
    assert "warning" not in err


# -- dates ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fmt, words",
    [
        ("%m/%d/%Y", "month/day/year: a second field above 12"),
        ("%d.%m.%Y", "day.month.year: a first field above 12"),
        ("%d/%m/%Y", "day/month/year: a first field above 12"),
        ("%m/%d/%Y %H:%M", "month/day/year: a second field above 12"),
    ],
    ids=["us", "german", "british", "us-with-time"],
)
def test_us_and_european_dates_are_dates(fmt, words, tmp_path, capsys):
    rng = np.random.default_rng(8)
    n = 120
    days = pd.Timestamp("2012-01-01") + pd.to_timedelta(rng.permutation(n) * 3, unit="D")
    frame = pd.DataFrame(
        {
            "date": days.strftime(fmt),
            "dep_delay": rng.integers(-10, 60, n),
            "late": (days > pd.Timestamp("2012-06-01")).astype(int),
        }
    )
    path = tmp_path / "flights.csv"
    frame.to_csv(path, index=False)
    model, out, err = _fit(path, "late", tmp_path, capsys)
    assert list(model.feature_names_in_) == ["date", "dep_delay"]  # not an identifier
    assert model._encoder.datetime_zones_[0] is not None
    assert f"treeboost: note: read as dates: date ({words}" in err
    assert "identify rows" not in err
    # a file to predict whose days are all 12 or less is read as the model's dates were
    few = frame[days.day <= 12].head(10)
    few.to_csv(tmp_path / "few.csv", index=False)
    pred = tmp_path / "p.csv"
    _run(["predict", str(tmp_path / "m.tbm"), str(tmp_path / "few.csv"), "-o", str(pred)], capsys)
    expected = (days[days.day <= 12][:10] > pd.Timestamp("2012-06-01")).astype(int)
    assert pd.read_csv(pred)["prediction"].tolist() == list(expected)


def test_dates_no_field_tells_and_disagreeing_fields(tmp_path, capsys):
    n = 40
    frame = pd.DataFrame(
        {
            "d": [f"{1 + k % 12:02d}/{1 + k % 12:02d}/2020" for k in range(n)],
            "x": np.arange(n) % 7,
            "y": np.tile([0, 1], n // 2),
        }
    )
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    model, out, err = _fit(path, "y", tmp_path, capsys)
    assert "read as dates: d (month/day/year: no field above 12 tells; '/' taken for month" in err
    # 13/01 and 01/13 in one column: not dates (categories)
    frame.loc[0, "d"], frame.loc[1, "d"] = "13/01/2020", "01/13/2020"
    frame.to_csv(path, index=False)
    model, out, err = _fit(path, "y", tmp_path, capsys)
    assert "read as dates" not in err


def test_german_dates_beside_dot_thousands_stay_dates(tmp_path, capsys):
    """``15.06.2012`` beside ``1.234,50``: pandas read with thousands '.' would take the
    dates for the numbers 15062012; they are read as text, then as dates."""
    rng = np.random.default_rng(9)
    n = 90
    days = pd.Timestamp("2012-01-01") + pd.to_timedelta(rng.permutation(n) * 3, unit="D")
    amount = np.round(rng.uniform(100, 9_000, n), 2)
    frame = pd.DataFrame(
        {
            "datum": days.strftime("%d.%m.%Y"),
            "betrag": [
                f"{v:,.2f}".replace(",", " ").replace(".", ",").replace(" ", ".") for v in amount
            ],
            "spaet": (days > pd.Timestamp("2012-06-01")).astype(int),
        }
    )
    path = tmp_path / "buchungen.csv"
    frame.to_csv(path, sep=";", index=False)
    model, out, err = _fit(path, "spaet", tmp_path, capsys)
    assert "read with decimal ',' and thousands '.'" in err
    assert "read as dates: datum (day.month.year" in err
    assert model._encoder.datetime_zones_[0] is not None
    assert _numeric_features(model) == ["datum", "betrag"]
