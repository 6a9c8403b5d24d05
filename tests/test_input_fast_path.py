"""The short way through a prediction's input checks (``treeboost._input.fast_path``)
against the full checks: for every X, the same result bit for bit (the same array, dtype
and layout), or the same exception with the same words, and the same warnings."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import treeboost as tb
from treeboost._input import estimator_input, fast_path

N_FEATURES = 4


def _fit(make, categorical=False, names=False):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, N_FEATURES))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    if categorical:
        X = pd.DataFrame(X, columns=list("abcd"))
        X["d"] = pd.Categorical(np.where(X["d"] > 0, "u", "v"))
    elif names:
        X = pd.DataFrame(X, columns=list("abcd"))
    return make().fit(X, y)


MODELS = {
    "hgb": lambda: _fit(lambda: tb.HistGradientBoostingClassifier(max_iter=5)),
    "hgb_regressor": lambda: _fit(lambda: tb.HistGradientBoostingRegressor(max_iter=5)),
    "forest": lambda: _fit(lambda: tb.RandomForestRegressor(n_estimators=3, random_state=0)),
    "tree": lambda: _fit(lambda: tb.DecisionTreeClassifier(max_depth=3)),
    "gb": lambda: _fit(lambda: tb.GradientBoostingClassifier(n_estimators=3)),
    "names": lambda: _fit(lambda: tb.DecisionTreeRegressor(max_depth=3), names=True),
    "categorical": lambda: _fit(lambda: tb.DecisionTreeClassifier(max_depth=3), categorical=True),
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def model(request):
    return MODELS[request.param]()


def _outcome(call, X):
    """``(kind, value, warnings)`` of ``call(X)``: the result, or the exception's type
    and message."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got = ("result", call(X))
        except Exception as exc:  # noqa: BLE001 - the exception is what is compared
            got = ("error", (type(exc), str(exc)))
    return got + ([(w.category, str(w.message)) for w in caught],)


def _same(model, X):
    """The short way's outcome equals the full checks' one, for the encoded X and the
    prediction."""
    calls = {"encode": lambda X: model._encode_X(X, reset=False), "predict": model.predict}
    for what, call in calls.items():
        fast = _outcome(call, X)
        with pytest.MonkeyPatch.context() as m:
            m.setattr(estimator_input, "numeric_rows", lambda est, X: None)
            full = _outcome(call, X)
        assert fast[0] == full[0], (what, fast, full)
        assert fast[2] == full[2], (what, fast[2], full[2])
        if fast[0] == "error":
            assert fast[1] == full[1]
            continue
        a, b = fast[1], full[1]
        assert a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides
        assert a.tobytes() == b.tobytes()  # bit for bit, NaN included


def _base():
    return np.random.default_rng(1).normal(size=(7, N_FEATURES))


def _with(value):
    X = _base()
    X[2, 1] = value
    return X


INPUTS = {
    "float64": _base,
    "one_row": lambda: _base()[:1].copy(),
    "float32": lambda: _base().astype(np.float32),
    "float16": lambda: _base().astype(np.float16),
    "fortran": lambda: np.asfortranarray(_base()),
    "strided": lambda: np.random.default_rng(1).normal(size=(14, 2 * N_FEATURES))[::2, ::2],
    "read_only": _base,
    "big_endian": lambda: _base().astype(">f8"),
    "nan": lambda: _with(np.nan),
    "inf": lambda: _with(np.inf),
    "minus_inf": lambda: _with(-np.inf),
    "all_nan": lambda: np.full((3, N_FEATURES), np.nan),
    "huge": lambda: np.array([[1e308, 1e308, -1e308, 1.0]]),
    "huge_and_inf": lambda: np.array([[1e308, 1e308, np.inf, 1.0]]),
    "int64": lambda: np.arange(3 * N_FEATURES).reshape(3, N_FEATURES),
    "bool": lambda: np.ones((3, N_FEATURES), bool),
    "complex": lambda: _base().astype(complex),
    "object_numbers": lambda: _base().astype(object),
    "object_text": lambda: np.array([["a", "b", "c", "d"]], dtype=object),
    "strings": lambda: np.array([["1", "2", "3", "4"]]),
    "list": lambda: _base().tolist(),
    "one_d": lambda: _base()[0],
    "three_d": lambda: _base()[None],
    "scalar": lambda: np.float64(1.0),
    "no_rows": lambda: np.zeros((0, N_FEATURES)),
    "too_few_features": lambda: _base()[:, :-1],
    "too_many_features": lambda: np.hstack([_base(), _base()]),
    "no_features": lambda: np.zeros((3, 0)),
    "matrix": lambda: np.asmatrix(_base()),
    "masked": lambda: np.ma.masked_array(_base(), mask=np.zeros((7, N_FEATURES), bool)),
    "frame": lambda: pd.DataFrame(_base(), columns=list("abcd")),
    "frame_other_names": lambda: pd.DataFrame(_base(), columns=list("wxyz")),
    "datetime": lambda: np.zeros((2, N_FEATURES), "datetime64[s]"),
}


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_same_outcome_as_the_full_checks(model, name):
    X = INPUTS[name]()
    if name == "read_only":
        X.setflags(write=False)
    _same(model, X)


_DRAWN = {}


@settings(max_examples=40, deadline=None)
@given(
    X=hnp.arrays(
        dtype=st.sampled_from([np.float64, np.float32]),
        shape=st.tuples(st.integers(0, 5), st.integers(N_FEATURES - 1, N_FEATURES + 1)),
        elements=st.floats(allow_nan=True, allow_infinity=True, width=32),
    ),
    order=st.sampled_from("CF"),
)
def test_same_outcome_on_drawn_arrays(X, order):
    if not _DRAWN:  # fitted once (a fixture is not drawn again by hypothesis)
        _DRAWN.update((k, MODELS[k]()) for k in ("hgb", "forest", "names"))
    X = np.asarray(X, order=order)
    for model in _DRAWN.values():
        _same(model, X)


def test_the_short_way_is_taken(model):
    """The short way answers for a plain numeric ndarray of a numeric model fitted without
    names, and refuses an infinity where the model does (else the tests above would
    compare the full checks with themselves)."""
    X = _base()
    numeric = "feature_names_in_" not in vars(model) and not model._encoder.is_categorical_.any()
    assert (fast_path.numeric_rows(model, X) is X) == numeric
    takes_inf = numeric and model._encoder.allow_infinite
    assert (fast_path.numeric_rows(model, _with(np.inf)) is not None) == takes_inf
