"""The bad-input matrix: every public estimator against every kind of bad input.

Each case either works correctly (finite predictions of the right shape) or raises a
clear ValueError/TypeError; none crashes, hangs or returns NaN.
"""

import warnings

import numpy as np
import pytest

import treeboost
from sklearn.base import clone

rng = np.random.RandomState(0)


def _estimators():
    ests = [
        treeboost.DecisionTreeClassifier(random_state=0),
        treeboost.DecisionTreeRegressor(random_state=0),
        treeboost.GradientBoostingClassifier(n_estimators=5, random_state=0),
        treeboost.GradientBoostingRegressor(n_estimators=5, random_state=0),
    ]
    for name in (
        "RandomForestClassifier",
        "RandomForestRegressor",
        "ExtraTreesClassifier",
        "ExtraTreesRegressor",
        "BaggingClassifier",
        "BaggingRegressor",
        "AdaBoostClassifier",
        "AdaBoostRegressor",
    ):
        ests.append(getattr(treeboost, name)(n_estimators=5, random_state=0))
    ests += [
        treeboost.HistGradientBoostingClassifier(max_iter=5, random_state=0),
        treeboost.HistGradientBoostingRegressor(max_iter=5, random_state=0),
        treeboost.ExtraTreeClassifier(random_state=0),
        treeboost.ExtraTreeRegressor(random_state=0),
    ]
    # the classic multiway learners; ID3 gets continuous columns here, which it cuts
    # into quantile bins with n_bins (without it, see test_id3_continuous_column_...)
    ests += [
        treeboost.ID3Classifier(n_bins=4),
        treeboost.C45Classifier(),
        treeboost.RuleListClassifier(),
    ]
    # the ranker (its fit takes query groups: see _fit_kw) and the oblique learners
    ests += [
        treeboost.HistGradientBoostingRanker(max_iter=5, random_state=0),
        treeboost.ObliqueDecisionTreeClassifier(random_state=0),
        treeboost.ObliqueDecisionTreeRegressor(random_state=0),
        treeboost.ObliqueRandomForestClassifier(n_estimators=5, random_state=0),
        treeboost.ObliqueRandomForestRegressor(n_estimators=5, random_state=0),
    ]
    return ests


ESTIMATORS = _estimators()
IDS = [type(e).__name__ for e in ESTIMATORS]


def _is_classifier(est):
    return (
        getattr(est, "_estimator_type", None) == "classifier"
        or est.__sklearn_tags__().estimator_type == "classifier"
    )


def _is_ranker(est):
    return isinstance(est, treeboost.HistGradientBoostingRanker)


def _fit_kw(est, X):
    """What a fit of ``est`` on ``X`` needs besides X and y: a ranker's query groups, of
    10 rows each (the last one shorter)."""
    if not _is_ranker(est):
        return {}
    from sklearn.utils.validation import _num_samples

    n = _num_samples(X)
    return {"group": [10] * (n // 10) + ([n % 10] if n % 10 else [])}


def _data(est, n=60, d=3):
    # its own generator: the data must not depend on the order tests run in (with all
    # features constant, a y of exactly balanced classes stops AdaBoost, as scikit-learn's)
    rng = np.random.RandomState(0)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] > 0).astype(int) if _is_classifier(est) else X[:, 0] * 3 + rng.normal(size=n)
    if _is_ranker(est):
        y = np.digitize(y, [-2.0, 0.0, 2.0])  # relevance labels 0..3
    return X, y


def _check_ok(est, X, y, **fit):
    from sklearn.base import clone

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = clone(est).fit(X, y, **{**_fit_kw(est, X), **fit})
        pred = model.predict(X)
    assert pred.shape == (X.shape[0],)
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        assert np.all(np.isfinite(proba))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    else:
        assert np.all(np.isfinite(pred))
    return model


def test_the_matrix_covers_every_public_estimator():
    public = {
        name
        for name in treeboost.__all__
        if isinstance(getattr(treeboost, name), type) and hasattr(getattr(treeboost, name), "fit")
    }
    assert public == set(IDS)


# The rule for infinity in X is each estimator's scikit-learn twin's: the exact trees and
# the ensembles of them refuse it (scikit-learn's trees do, and a threshold halfway to
# infinity would be infinite); HistGradientBoosting takes it, as scikit-learn's
# HistGradientBoosting does, in its first and last bins (edges are finite).
HIST_GRADIENT_BOOSTING = {
    "HistGradientBoostingClassifier",
    "HistGradientBoostingRegressor",
    "HistGradientBoostingRanker",
}
#: the oblique learners take a dense numeric X only (a split is a weighted sum of columns)
NUMERIC_ONLY = {
    "ObliqueDecisionTreeClassifier",
    "ObliqueDecisionTreeRegressor",
    "ObliqueRandomForestClassifier",
    "ObliqueRandomForestRegressor",
}
TAKES_INFINITY = HIST_GRADIENT_BOOSTING


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_non_finite_targets_and_inputs_are_refused(est):
    X, y = _data(est)
    yf = y.astype(float)
    for bad in (np.nan, np.inf):
        yb = yf.copy()
        yb[3] = bad
        with pytest.raises(ValueError, match="NaN|infinity|Input y"):
            est.fit(X, yb, **_fit_kw(est, X))


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_infinity_in_X_follows_one_rule(est, sparse):
    import scipy.sparse as sp

    X, y = _data(est)
    big = X.copy()
    big[2, 1], big[5, 0] = 1e300, -1e300
    inf = X.copy()
    inf[2, 1], inf[5, 0] = np.inf, -np.inf
    if sparse:
        if type(est).__name__ in ("ID3Classifier", "C45Classifier", "RuleListClassifier"):
            pytest.skip("the classic learners take dense X only")
        if type(est).__name__ in NUMERIC_ONLY:
            with pytest.raises(TypeError, match="dense data is required"):
                clone(est).fit(sp.csr_matrix(X), y)
            return
        big, inf = sp.csr_matrix(big), sp.csr_matrix(inf)
    if type(est).__name__ not in TAKES_INFINITY:
        with pytest.raises(ValueError, match="infinity"):
            clone(est).fit(inf, y, **_fit_kw(est, inf))
        model = _check_ok(est, X, y)
        with pytest.raises(ValueError, match="infinity"):
            model.predict(inf)
        return
    # +-inf are the extreme values: the same bins, so the same model, as +-1e300
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        on_inf = clone(est).fit(inf, y, **_fit_kw(est, inf))
        on_big = clone(est).fit(big, y, **_fit_kw(est, big))
        np.testing.assert_array_equal(on_inf.predict(inf), on_big.predict(big))
        np.testing.assert_array_equal(on_inf.predict(X), on_big.predict(X))


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_values_near_the_largest_float_fit_without_warnings(est):
    """Regression: 1e308 and -1e308 in one X overflowed scikit-learn's first-pass sum
    in check_array ("invalid value encountered in reduce") on every estimator."""
    X, y = _data(est)
    X = np.clip(X, -1, 1) * 1e308  # sums of a few rows overflow both ways
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model = clone(est).fit(X, y, **_fit_kw(est, X))
        pred = model.predict(X)
    assert np.all(np.isfinite(np.asarray(pred, dtype=float)))


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_shape_errors(est):
    X, y = _data(est)
    with pytest.raises(ValueError, match="inconsistent|samples|labels for"):
        est.fit(X, y[:-1], **_fit_kw(est, X))
    with pytest.raises(ValueError, match="0 sample|group must be a non-empty"):
        est.fit(X[:0], y[:0], **_fit_kw(est, X[:0]))
    model = _check_ok(est, X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_pandas_columns_in_another_order_are_refused(est):
    pd = pytest.importorskip("pandas")
    X, y = _data(est)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    model = _check_ok(est, df, y)
    with pytest.raises(ValueError, match="feature names"):
        model.predict(df[["c", "b", "a"]])


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_degenerate_but_valid_data_works(est):
    X, y = _data(est)
    _check_ok(est, X[:, :1], y)  # one feature
    _check_ok(est, np.ones_like(X), y)  # all-constant features
    _check_ok(est, X * 1e300, y)  # huge feature values
    _check_ok(est, X, y, sample_weight=np.full(len(y), 1e-300))  # tiny weights
    Xn = X.copy()
    Xn[::3, 0] = np.nan  # missing values
    _check_ok(est, Xn, y)
    if not _is_classifier(est) and not _is_ranker(est):
        _huge_target_ok(est, X, y * 1e300)  # huge targets


def _huge_target_ok(est, X, y, **fit):
    """Huge regression targets: the trees, forests and AdaBoost fit them; gradient
    boosting refuses those whose loss overflows float64 (every iteration's training loss
    would be inf), with an error naming y."""
    boosting = (treeboost.GradientBoostingRegressor, treeboost.HistGradientBoostingRegressor)
    if isinstance(est, boosting):
        with pytest.raises(ValueError, match="y is too large for loss"):
            clone(est).fit(X, y, **fit)
        return
    _check_ok(est, X, y, **fit)


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_one_sample(est):
    X, y = _data(est)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = est.fit(X[:1], y[:1], **_fit_kw(est, X[:1]))
    except ValueError as exc:
        assert "class" in str(exc) or "sample" in str(exc)
        return
    assert np.all(np.isfinite(model.predict(X[:2])))


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_bad_weights(est):
    X, y = _data(est)
    with pytest.raises(ValueError, match="(?i)negative"):
        est.fit(X, y, **_fit_kw(est, X), sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="zero"):
        est.fit(X, y, **_fit_kw(est, X), sample_weight=np.zeros(len(y)))
    # a 0-d array: scikit-learn's TypeError, in its words
    with pytest.raises(TypeError, match="at least 1 dimension"):
        est.fit(X, y, **_fit_kw(est, X), sample_weight=np.array(0.0))


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_weights_out_of_range_are_refused_by_name(est):
    """Weights that would overflow (or underflow) the node sums are refused with an error
    naming sample_weight, never turned into NaN probabilities or an IndexError."""
    X, y = _data(est)
    n = len(y)
    for w, message in [
        (np.full(n, 1e308), "sample_weight sums to inf.*at most 1e"),
        (np.full(n, 1e299), "sample_weight sums to 6e.*at most 1e"),
        (np.r_[1e308, 1e308, np.ones(n - 2)], "sample_weight sums to inf"),
        (np.full(n, 5e-324), "sample_weight sums to .*at least 1e-300"),
        (np.r_[np.inf, np.ones(n - 1)], "sample_weight contains infinity"),
        (np.r_[np.nan, np.ones(n - 1)], "sample_weight contains NaN"),
        (np.r_[-1.0, np.ones(n - 1)], "(?i)negative.*sample_weight"),
        (np.array(["a"] * n), "sample_weight must hold numbers.*string"),
    ]:
        with pytest.raises(ValueError, match=message):
            est.fit(X, y, **_fit_kw(est, X), sample_weight=w)
    _check_ok(est, X, y, sample_weight=np.full(n, 1e297))  # large but usable
    _check_ok(est, X, y, sample_weight=np.r_[np.full(n - 1, 5e-324), 1e-300])


REGRESSORS = [e for e in ESTIMATORS if not _is_classifier(e) and not _is_ranker(e)]


@pytest.mark.parametrize("est", REGRESSORS, ids=[type(e).__name__ for e in REGRESSORS])
def test_weighted_regression_target_that_would_overflow_is_refused(est):
    """Regression: sum(w * |y|) above 1e306 overflows the node sums of w * y (NaN
    predictions before); within the bound the predictions stay finite."""
    X, y = _data(est)
    n = len(y)
    if isinstance(est, treeboost.AdaBoostRegressor):
        # AdaBoost.R2 normalises the weights every round: nothing to overflow
        _check_ok(est, X, y * 1e10, sample_weight=np.full(n, 1e298))
        return
    with pytest.raises(
        ValueError,
        match=r"sample_weight times \|y\| sums to inf|"
        r"y is too large for loss",
    ):
        est.fit(X, y * 1e10, sample_weight=np.full(n, 1e298))
    _huge_target_ok(est, X, y * 1e5, sample_weight=np.full(n, 1e298))
    _huge_target_ok(est, X, y * 1e300)  # unit weights


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_categorical_edge_cases(est):
    pd = pytest.importorskip("pandas")
    X, y = _data(est)
    if type(est).__name__ in NUMERIC_ONLY:
        df = pd.DataFrame({"c": pd.Categorical(["a", "b"] * 30), "x": X[:, 0]})
        with pytest.raises(ValueError, match="X must be numeric.*categorical"):
            clone(est).fit(df, y)
        return
    big = np.array([2**62, -(2**62), 7], dtype=np.int64)[rng.randint(0, 3, len(y))]
    df = pd.DataFrame({"code": pd.Categorical(big), "x": X[:, 0]})
    _check_ok(est, df, y)  # huge integer category labels
    many = pd.DataFrame(
        {"c": pd.Categorical([f"v{i}" for i in range(300)] * 2), "x": rng.normal(size=600)}
    )
    yy = np.arange(600) % 2 if _is_classifier(est) else rng.normal(size=600)
    if _is_ranker(est):
        yy = np.arange(600) % 3
    if type(est).__name__ in HIST_GRADIENT_BOOSTING:
        # a bin per category, as scikit-learn's HistGradientBoosting: at most max_bins
        with pytest.raises(ValueError, match="cardinality <= 255"):
            clone(est).fit(many, yy, **_fit_kw(est, many))
    else:
        _check_ok(est, many, yy)  # 300 categories: rare ones grouped
    obj = np.array([["a", 1.0], ["b", 2.0]] * 30, dtype=object)
    with pytest.raises(ValueError):
        est.fit(obj, y, **_fit_kw(est, obj))  # strings that are not declared


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_strings_in_a_numeric_column_name_the_column(est):
    """numpy's bare "could not convert string to float" becomes an error naming the
    column (its index, or its pandas name) and categorical_features, at fit and predict."""
    pd = pytest.importorskip("pandas")
    X, y = _data(est)
    obj = X.astype(object)
    obj[5, 2] = "oops"
    if type(est).__name__ in NUMERIC_ONLY:  # no categorical_features to declare
        with pytest.raises(ValueError, match="X must be numeric.*'oops'"):
            est.fit(obj, y)
        model = _check_ok(est, X, y)
        with pytest.raises(ValueError, match="X must be numeric.*'oops'"):
            model.predict(obj)
        return
    with pytest.raises(
        ValueError,
        match=r"Column 2 is not numeric \(could not convert "
        r"string to float: 'oops'\); declare it in "
        r"categorical_features \(e.g. "
        r"categorical_features=\[2\]\)",
    ):
        est.fit(obj, y, **_fit_kw(est, obj))
    with pytest.raises(ValueError, match=r"Column 1 is not numeric.*categorical_features"):
        est.fit([[0.5, "a", 1.0]] * len(y), y, **_fit_kw(est, X))  # a list of rows
    df = pd.DataFrame(X, columns=["a", "b", "c"]).astype({"b": object})
    df.loc[3, "b"] = "oops"
    if "categorical_features" in est.get_params():  # a frame with a declared column
        from sklearn.base import clone

        with pytest.raises(
            ValueError,
            match=r"Column 'b' is not numeric.*"
            r"categorical_features=\['b'\]",
        ):
            clone(est).set_params(categorical_features=[0]).fit(df, y, **_fit_kw(est, df))
    model = _check_ok(est, X, y)
    with pytest.raises(
        ValueError,
        match=r"Column 2 is not numeric.*fitted with it numeric"
        r".*refit with categorical_features=\[2\]",
    ):
        model.predict(obj)


def _string_dtypes():
    pd = pytest.importorskip("pandas")
    dtypes = ["object", "string", "category"]
    if pd.__version__ >= "3":
        dtypes.append("str")  # pandas 3's default for text
    try:
        import pyarrow  # noqa: F401

        dtypes.append("string[pyarrow]")
    except ImportError:
        pass
    return dtypes


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_text_columns_with_missing_values_are_categorical(est):
    """pd.NA, NaN and None in a text column of any pandas dtype are missing values (they
    raised "boolean value of NA is ambiguous"); fit and predict agree across the dtypes."""
    pd = pytest.importorskip("pandas")
    X, y = _data(est)
    text = np.where(X[:, 1] > 0, "hi", "lo").astype(object)
    text[::7], text[3::11], text[5::13] = pd.NA, None, np.nan
    if type(est).__name__ in NUMERIC_ONLY:
        df = pd.DataFrame({"x": X[:, 0], "t": pd.Series(text).astype("string")})
        with pytest.raises(ValueError, match="X must be numeric"):
            clone(est).fit(df, y)
        return
    first = None
    for dtype in _string_dtypes():
        df = pd.DataFrame({"x": X[:, 0], "t": pd.Series(text).astype(dtype)})
        assert df["t"].isna().sum() > 0
        model = _check_ok(est, df, y)
        pred = model.predict(df)
        if first is None:
            first = pred
        np.testing.assert_array_equal(pred, first, err_msg=dtype)
        # the model fitted on one text dtype predicts a frame of another
        other = df.assign(t=pd.Series(text, dtype=object))
        np.testing.assert_array_equal(model.predict(other), first, err_msg=dtype)


def test_text_of_numbers_in_a_numeric_column_at_predict():
    """A numeric feature given as text at predict: numbers are converted, anything else
    is a ValueError naming the column and the value."""
    pd = pytest.importorskip("pandas")
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    df = pd.DataFrame(X, columns=["a", "b"])
    model = treeboost.DecisionTreeClassifier(random_state=0).fit(df, y)
    as_text = df.assign(a=df["a"].map(repr).astype("string"))
    as_text.loc[2, "a"] = pd.NA
    expected = model.predict(df.assign(a=df["a"].where(df.index != 2)))
    np.testing.assert_array_equal(model.predict(as_text), expected)
    as_text.loc[4, "a"] = "n/a"
    with pytest.raises(
        ValueError,
        match=r"Column 'a' is not numeric.*'n/a'.*fitted with it "
        r"numeric",
    ):
        model.predict(as_text)


def test_single_class_and_a_class_only_in_the_validation_split():
    X = rng.normal(size=(50, 2))
    with pytest.raises(ValueError, match="one class"):
        treeboost.GradientBoostingClassifier().fit(X, np.zeros(50))
    y = np.zeros(50, int)
    y[0] = 1  # one sample of class 1: the stratified split refuses it, as scikit-learn
    for model in (
        treeboost.GradientBoostingClassifier(
            n_estimators=5, n_iter_no_change=2, validation_fraction=0.2, random_state=0
        ),
        treeboost.HistGradientBoostingClassifier(
            max_iter=5, early_stopping=True, validation_fraction=0.2
        ),
    ):
        with pytest.raises(ValueError, match="least populated class"):
            model.fit(X, y)


# -- the classic learners: their own parameters and inputs -----------------------------------

CLASSIC = [treeboost.ID3Classifier(n_bins=4), treeboost.C45Classifier()]
CLASSIC_IDS = [type(e).__name__ for e in CLASSIC]


def test_id3_continuous_column_is_refused_by_name():
    X, y = _data(treeboost.ID3Classifier())
    with pytest.raises(ValueError, match="column 'x1' is continuous.*n_bins"):
        treeboost.ID3Classifier().fit(np.column_stack([np.round(X[:, 0]), X[:, 1]]), y)
    Xi = np.round(X * 2)  # integer-valued: categorical
    _check_ok(treeboost.ID3Classifier(), Xi, y)


@pytest.mark.parametrize("est", CLASSIC, ids=CLASSIC_IDS)
def test_classic_bad_parameters_name_themselves(est):
    from sklearn.base import clone

    X, y = _data(est)
    for params, message in [
        ({"tie_break": [True]}, "tie_break .* got True"),
        ({"tie_break": [7]}, "tie_break index 7"),
        ({"tie_break": ["nope"]}, "tie_break names an unknown column"),
        ({"tie_break": "x0"}, "'tie_break' parameter"),
        ({"max_depth": 0}, "'max_depth' parameter"),
        ({"min_gain": np.nan}, "'min_gain' parameter"),
        ({"pruning": "later"}, "'pruning' parameter"),
        ({"confidence_factor": 0.9}, "'confidence_factor' parameter"),
        ({"validation_fraction": 1.0}, "'validation_fraction' param"),
    ]:
        with pytest.raises(ValueError, match=message):
            clone(est).set_params(**params).fit(X, y)


@pytest.mark.parametrize("est", CLASSIC, ids=CLASSIC_IDS)
def test_classic_validation_set_is_used_or_refused(est):
    from sklearn.base import clone

    X, y = _data(est)
    with pytest.raises(ValueError, match="X_val and y_val must be given together"):
        clone(est).set_params(pruning="post").fit(X, y, y_val=y[:10])
    for pruning in (None, "pessimistic"):  # a set they would ignore
        with pytest.raises(ValueError, match=f"pruning={pruning!r} does not use them"):
            clone(est).set_params(pruning=pruning).fit(X, y, X_val=X[:10], y_val=y[:10])
    with pytest.raises(ValueError, match="X_val has 10 rows but y_val has 9"):
        clone(est).set_params(pruning="pre").fit(X, y, X_val=X[:10], y_val=y[:9])
    with pytest.raises(ValueError, match="features"):
        clone(est).set_params(pruning="pre").fit(X, y, X_val=X[:10, :2], y_val=y[:10])
    _check_ok(clone(est).set_params(pruning="post"), X, y, X_val=X[:20], y_val=y[:20])


@pytest.mark.parametrize(
    "est", CLASSIC + [treeboost.RuleListClassifier()], ids=CLASSIC_IDS + ["RuleListClassifier"]
)
def test_huge_total_weight_is_refused_not_nan(est):
    X, y = _data(est)
    with pytest.raises(ValueError, match="sample_weight sums to inf"):
        est.fit(X, y, **_fit_kw(est, X), sample_weight=np.full(len(y), 1e308))
    _check_ok(est, X, y, sample_weight=np.full(len(y), 1e297))  # large but usable


@pytest.mark.parametrize("est", CLASSIC, ids=CLASSIC_IDS)
def test_split_report_node_out_of_range(est):
    X, y = _data(est)
    model = _check_ok(est, X, y)
    n = model.tree_.node_count
    for node in (n, -1, "0", 1.0, True):
        with pytest.raises(ValueError, match=rf"node must be a node id in \[0, {n}\)"):
            model.split_report(node)
    leaf = int(np.flatnonzero(model.tree_.is_leaf)[0])
    with pytest.raises(ValueError, match=f"Node {leaf} is a leaf"):
        model.split_report(leaf)


def test_rule_list_bad_parameters():
    from sklearn.linear_model import LogisticRegression
    from sklearn.exceptions import NotFittedError

    X, y = _data(treeboost.RuleListClassifier())
    RL = treeboost.RuleListClassifier
    for est, message in [
        (LogisticRegression(), "treeboost tree classifier.*LogisticReg"),
        (treeboost.GradientBoostingClassifier(), "GradientBoosting"),
        (treeboost.C45Classifier, "the class C45Classifier"),
    ]:
        with pytest.raises(TypeError, match=message):
            RL(est).fit(X, y)
    with pytest.raises(ValueError, match="'estimator' parameter"):
        RL(treeboost.DecisionTreeRegressor()).fit(X, y)  # no predict_proba
    with pytest.raises(ValueError, match="'generalize' parameter"):
        RL(generalize="yes").fit(X, y)
    with pytest.raises(ValueError, match="'confidence_factor' parameter"):
        RL(confidence_factor=0).fit(X, y)
    with pytest.raises(NotFittedError):
        RL().predict(X)
    with pytest.warns(Warning, match="column-vector y"):  # flattened, as the tree does
        model = RL().fit(X, y[:, None])
    np.testing.assert_array_equal(model.predict(X), RL().fit(X, y).predict(X))
    _check_ok(RL(treeboost.DecisionTreeClassifier(max_depth=3)), X, y)


def test_ranker_with_every_query_tied_fits_a_constant_model():
    """No query has two labels: no pairs, every gradient and hessian 0 (the Newton step
    divided 0 by 0 in the grower, a ZeroDivisionError out of a numba kernel)."""
    X, _ = _data(treeboost.HistGradientBoostingRanker())
    y = np.repeat([0, 2, 1], 20)  # each query of 20 rows one label
    model = treeboost.HistGradientBoostingRanker(max_iter=3).fit(X, y, group=[20, 20, 20])
    pred = model.predict(X)
    assert np.all(np.isfinite(pred)) and np.unique(pred).size == 1
