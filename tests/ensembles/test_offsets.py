"""Per-row offsets (``fit(..., init_score=...)``) and raw scores of every booster:
against LightGBM's ``init_score`` on the same bins (integer features of fewer values
than ``max_bins``), against brute force (an offset of the squared error is a shift of
y; a ranker's offset constant within each query changes no pair), and their checks."""

import numpy as np
import pytest
from scipy.special import expit
from sklearn.model_selection import train_test_split

from treeboost import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRanker,
    HistGradientBoostingRegressor,
)

from tests._helpers import lightgbm_on_our_bins


def _exposure_data(n=2000, seed=0):
    """Integer features (one bin a value in both libraries), an exposure per row and
    counts / amounts of mean ``exposure * exp(0.1 x0 - 0.05 x1)``."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 12, size=(n, 5)).astype(float)
    exposure = rng.uniform(0.2, 3.0, n)
    mu = exposure * np.exp(0.1 * X[:, 0] - 0.05 * X[:, 1])
    return X, exposure, mu, rng


def _regression(n=600, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 4))
    y = 2.0 * X[:, 0] + np.sin(3 * X[:, 1]) + rng.normal(0, 0.3, n)
    return X, y, rng


# -- LightGBM's init_score ------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["poisson", "gamma"])
def test_log_exposure_offset_is_lightgbms_init_score(loss):
    """LightGBM with ``init_score`` does not boost from the average: its trees start at
    the offsets alone, as ours.  Small trees with a minimum leaf size that binds: LightGBM
    counts a leaf's rows from its hessian sum, exact only where the hessian is constant,
    so larger trees of these losses split differently now and then."""
    X, exposure, mu, rng = _exposure_data()
    y = rng.poisson(mu).astype(float) if loss == "poisson" else rng.gamma(2.0, mu / 2.0)
    offset = np.log(exposure)
    # LightGBM's Poisson hessian is exp(F + poisson_max_delta_step): a step near 0 is ours
    extra = {"poisson_max_delta_step": 1e-12} if loss == "poisson" else {}
    ref = lightgbm_on_our_bins(
        objective=loss,
        n_estimators=20,
        num_leaves=7,
        min_child_samples=40,
        learning_rate=0.1,
        reg_lambda=0.0,
        **extra,
    ).fit(X, y, init_score=offset)
    ours = HistGradientBoostingRegressor(
        loss=loss, max_iter=20, max_leaf_nodes=7, min_samples_leaf=40, early_stopping=False
    ).fit(X, y, init_score=offset)
    np.testing.assert_array_equal(ours.init_score_, [0.0])
    raw = ours.predict(X, raw_score=True)
    np.testing.assert_allclose(raw, ref.predict(X, raw_score=True), atol=1e-6)
    # the offset is the caller's: the model's own mean is exp of its raw score
    np.testing.assert_allclose(ours.predict(X), np.exp(raw), rtol=1e-12)


# -- brute force ---------------------------------------------------------------------------


def _splits(model):
    return [
        (t.feature[t.children_left != -1].tolist(), t.threshold[t.children_left != -1].tolist())
        for trees in model.trees_
        for t in trees
    ]


@pytest.mark.parametrize("make", [HistGradientBoostingRegressor, GradientBoostingRegressor])
@pytest.mark.parametrize("kind", ["constant", "per_row"])
def test_squared_error_offset_is_a_shift_of_y(make, kind):
    """``F = o + f`` on ``y`` has the gradients ``o + f - y`` of ``f`` on ``y - o``:
    the same trees, and ``predict + o`` the same (up to the rounding of the sums)."""
    X, y, rng = _regression()
    offset = np.full(y.shape, 3.0) if kind == "constant" else rng.normal(0, 2.0, y.shape)
    n_iter = {"max_iter": 20} if make is HistGradientBoostingRegressor else {"n_estimators": 20}
    kw = dict(random_state=0, **n_iter)
    if make is HistGradientBoostingRegressor:
        kw["early_stopping"] = False
    shifted_kw = dict(kw) if make is HistGradientBoostingRegressor else dict(kw, init="zero")
    a = make(**kw).fit(X, y, init_score=offset)
    if make is HistGradientBoostingRegressor:
        b = make(**shifted_kw).fit(X, y - offset, init_score=np.zeros_like(y))
    else:
        b = make(**shifted_kw).fit(X, y - offset)
    assert _splits(a) == _splits(b)
    np.testing.assert_allclose(a.predict(X) + offset, b.predict(X) + offset, atol=1e-10)
    np.testing.assert_array_equal(a.init_score_, [0.0])


def test_binary_first_tree_is_the_newton_step_at_the_offsets():
    """One iteration of the log-loss from offsets ``o``: every leaf is
    ``lr * sum (y - p) / sum p (1 - p)`` with ``p = expit(o)`` of its rows."""
    X, y_reg, rng = _regression()
    y = (y_reg > 0).astype(int)
    offset = rng.normal(0, 1.5, y.shape)
    m = HistGradientBoostingClassifier(max_iter=1, early_stopping=False, learning_rate=0.5)
    m.fit(X, y, init_score=offset)
    p = expit(offset)
    leaves = m.apply(X)[:, 0, 0]
    tree = m.trees_[0][0]
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        step = np.sum(y[rows] - p[rows]) / np.sum(p[rows] * (1 - p[rows]))
        np.testing.assert_allclose(tree.value[leaf, 0], 0.5 * step, rtol=1e-9)
    # decision_function is the trees' score alone: the caller adds the offsets
    np.testing.assert_allclose(m.decision_function(X), tree.value[leaves, 0], rtol=1e-12)


def test_multiclass_offsets_one_column_per_class():
    X, y_reg, rng = _regression()
    y = np.digitize(y_reg, [-1.0, 1.0])
    offset = rng.normal(0, 1.0, (y.shape[0], 3))
    kw = dict(max_iter=5, early_stopping=False)
    a = HistGradientBoostingClassifier(**kw).fit(X, y, init_score=offset)
    # softmax is invariant to a shift shared by the classes: a (n,) offset, on every
    # class, changes nothing
    b = HistGradientBoostingClassifier(**kw).fit(X, y, init_score=np.zeros(y.shape[0]))
    c = HistGradientBoostingClassifier(**kw).fit(X, y, init_score=np.full(y.shape[0], 5.0))
    np.testing.assert_allclose(b.decision_function(X), c.decision_function(X), atol=1e-9)
    assert a.decision_function(X).shape == (y.shape[0], 3)
    assert not np.allclose(a.decision_function(X), b.decision_function(X))
    with pytest.raises(ValueError, match=r"init_score must be of shape \(600,\) or \(600, 3\)"):
        HistGradientBoostingClassifier(**kw).fit(X, y, init_score=offset[:, :2])


def test_held_out_rows_keep_their_offsets():
    """Early stopping's split, external validation rows and eval sets: their scores
    with offsets are those of the shifted target without them (squared error)."""
    X, y, rng = _regression(1000)
    offset = rng.normal(0, 2.0, y.shape)
    zeros = np.zeros_like(y)
    kw = dict(max_iter=15, early_stopping=True, n_iter_no_change=100, random_state=0)
    a = HistGradientBoostingRegressor(**kw).fit(X, y, init_score=offset)
    b = HistGradientBoostingRegressor(**kw).fit(X, y - offset, init_score=zeros)
    np.testing.assert_allclose(a.validation_score_, b.validation_score_, rtol=1e-9)
    # the held-out rows' first score is the loss at their offsets
    seed = np.random.RandomState(0).randint(np.iinfo(np.uint32).max, dtype="u8")
    _, val = train_test_split(np.arange(y.shape[0]), test_size=0.1, random_state=seed)
    np.testing.assert_allclose(a.validation_score_[0], -a._loss(y[val], offset[val]), rtol=1e-12)
    Xv, yv, rv = _regression(300, seed=1)
    ov = rv.normal(0, 2.0, yv.shape)
    ext = dict(kw, validation_fraction=None)
    a = HistGradientBoostingRegressor(**ext).fit(
        X,
        y,
        init_score=offset,
        X_val=Xv,
        y_val=yv,
        init_score_val=ov,
        eval_set=[(Xv, yv)],
        eval_init_score=[ov],
        eval_metric="l2",
    )
    b = HistGradientBoostingRegressor(**ext).fit(
        X,
        y - offset,
        init_score=zeros,
        X_val=Xv,
        y_val=yv - ov,
        init_score_val=np.zeros_like(yv),
        eval_set=[(Xv, yv - ov)],
        eval_metric="l2",
    )
    np.testing.assert_allclose(a.validation_score_, b.validation_score_, rtol=1e-9)
    np.testing.assert_allclose(
        a.evals_result_["valid_0"]["l2"], b.evals_result_["valid_0"]["l2"], rtol=1e-9
    )


def test_gradient_boosting_eval_set_offsets_and_warm_start():
    X, y, rng = _regression()
    offset = rng.normal(0, 2.0, y.shape)
    kw = dict(n_estimators=10, init="zero", random_state=0)
    a = GradientBoostingRegressor(**kw).fit(
        X, y, init_score=offset, eval_set=[(X, y)], eval_init_score=[offset], eval_metric="l2"
    )
    b = GradientBoostingRegressor(**kw).fit(
        X, y - offset, eval_set=[(X, y - offset)], eval_metric="l2"
    )
    np.testing.assert_allclose(
        a.evals_result_["valid_0"]["l2"], b.evals_result_["valid_0"]["l2"], rtol=1e-9
    )
    # a warm start continues from the offsets plus the trees so far
    warm = GradientBoostingRegressor(n_estimators=5, warm_start=True, random_state=0)
    warm.fit(X, y, init_score=offset).set_params(n_estimators=10).fit(X, y, init_score=offset)
    whole = GradientBoostingRegressor(n_estimators=10, random_state=0).fit(X, y, init_score=offset)
    assert _splits(warm) == _splits(whole)
    np.testing.assert_allclose(warm.predict(X), whole.predict(X), atol=1e-10)


def test_ranker_offsets_constant_within_a_query_change_no_pair():
    """LambdaRank's gradients depend on the score differences within a query: offsets
    constant within each query give the same gradients (up to rounding), hence the same
    first tree.  (Later trees may differ: ``offset + score`` rounds two scores that
    differ in their last bits to one, which changes the ranks of tied documents.)"""
    rng = np.random.RandomState(0)
    group = [20] * 40
    X = rng.normal(size=(800, 4))
    y = np.clip(np.round(X[:, 0] + rng.normal(0, 0.5, 800)), 0, 3).astype(int)
    per_query = np.repeat(rng.normal(0, 3.0, 40), 20)
    kw = dict(max_iter=1, early_stopping=True, n_iter_no_change=100, random_state=0)
    a = HistGradientBoostingRanker(**kw).fit(X, y, group=group)
    b = HistGradientBoostingRanker(**kw).fit(X, y, group=group, init_score=per_query)
    assert _splits(a) == _splits(b)
    np.testing.assert_allclose(a.predict(X), b.predict(X), atol=1e-12)
    # before the first tree: every score of a held-out query ties, with or without offsets
    assert a.validation_score_[0] == b.validation_score_[0]
    # an offset that differs within the queries does change the ranking model
    c = HistGradientBoostingRanker(**kw).fit(X, y, group=group, init_score=-2 * X[:, 0])
    assert not np.allclose(a.predict(X), c.predict(X))


# -- raw scores ----------------------------------------------------------------------------


def test_raw_score_of_every_regressor_and_classifier():
    X, y_reg, _ = _regression()
    gb = GradientBoostingRegressor(n_estimators=10).fit(X, y_reg)
    np.testing.assert_array_equal(gb.predict(X, raw_score=True), gb.predict(X))
    np.testing.assert_array_equal(
        gb.predict(X, raw_score=True, num_iteration=3), gb.predict(X, num_iteration=3)
    )
    hgb = HistGradientBoostingRegressor(loss="poisson", max_iter=10).fit(X, np.exp(y_reg / 3))
    np.testing.assert_allclose(hgb.predict(X, raw_score=True), np.log(hgb.predict(X)), rtol=1e-12)
    for y in ((y_reg > 0).astype(int), np.digitize(y_reg, [-1.0, 1.0])):
        for make in (GradientBoostingClassifier, HistGradientBoostingClassifier):
            m = make(random_state=0).set_params(
                **({"n_estimators": 5} if make is GradientBoostingClassifier else {"max_iter": 5})
            )
            m.fit(X, y)
            np.testing.assert_array_equal(m.predict(X, raw_score=True), m.decision_function(X))
            np.testing.assert_array_equal(
                m.predict(X, raw_score=True, num_iteration=2), m.decision_function(X, 2)
            )


# -- the checks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, error, match",
    [
        (np.zeros(5), ValueError, r"init_score must be of shape \(600,\) or \(600, 1\)"),
        (np.zeros((600, 2)), ValueError, r"init_score must be of shape"),
        (np.r_[np.zeros(599), np.nan], ValueError, r"init_score must be finite: row 599"),
        (np.r_[np.inf, np.zeros(599)], ValueError, r"init_score must be finite: row 0"),
        (["a"] * 600, TypeError, r"init_score must be an array of numbers"),
    ],
)
@pytest.mark.parametrize("make", [GradientBoostingRegressor, HistGradientBoostingRegressor])
def test_bad_offsets_are_refused_by_name(make, bad, error, match):
    X, y, _ = _regression()
    with pytest.raises(error, match=match):
        make().fit(X, y, init_score=bad)


def test_bad_validation_and_eval_offsets_are_refused_by_name():
    X, y, _ = _regression()
    o = np.zeros_like(y)
    m = HistGradientBoostingRegressor(max_iter=2, early_stopping=True)
    with pytest.raises(ValueError, match="init_score_val is given without X_val"):
        m.fit(X, y, init_score=o, init_score_val=o)
    with pytest.raises(ValueError, match="init_score and init_score_val go together"):
        m.fit(X, y, init_score=o, X_val=X, y_val=y)
    with pytest.raises(ValueError, match=r"init_score_val must be of shape \(600,\)"):
        m.fit(X, y, init_score=o, X_val=X, y_val=y, init_score_val=o[:5])
    with pytest.raises(ValueError, match=r"eval_init_score must hold one entry per eval_set"):
        m.fit(X, y, eval_set=[(X, y)], eval_init_score=[o, o])
    with pytest.raises(TypeError, match=r"eval_init_score must be a list"):
        m.fit(X, y, eval_set=[(X, y)], eval_init_score=o)
    with pytest.raises(ValueError, match=r"eval_init_score\[0\] must be finite"):
        m.fit(X, y, eval_set=[(X, y)], eval_init_score=[np.full_like(y, np.nan)])
    with pytest.raises(ValueError, match="eval_init_score is given without eval_set"):
        m.fit(X, y, eval_init_score=[o])
    # a scorer predicts the rows without their offsets
    scored = HistGradientBoostingRegressor(max_iter=2, early_stopping=True, scoring="r2")
    with pytest.raises(ValueError, match="init_score with early stopping needs scoring='loss'"):
        scored.fit(X, y, init_score=o)
    # without early stopping the scorer is not used
    scored.set_params(early_stopping=False).fit(X, y, init_score=o)


def test_dask_booster_refuses_offsets_by_name():
    pytest.importorskip("distributed")
    from treeboost.dask import DaskHistGradientBoostingRegressor

    X, y, _ = _regression()
    for name in ("init_score", "init_score_val"):
        with pytest.raises(ValueError, match=f"does not support {name} "):
            DaskHistGradientBoostingRegressor().fit(X, y, **{name: np.zeros_like(y)})
