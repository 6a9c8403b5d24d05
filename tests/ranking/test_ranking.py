"""HistGradientBoostingRanker, its losses and metrics against direct computations."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.metrics import ndcg_score as sk_ndcg

from treeboost.ensembles.ranking import HistGradientBoostingRanker
from treeboost.losses.ranking import LambdaRankLoss, PairwiseRankLoss
from treeboost.metrics import map_score, ndcg_score
from treeboost.metrics._groups import query_offsets


def _brute_lambdas(labels, raw, sizes, loss):
    """Each pair's lambda, written from the formula of treeboost.losses.ranking."""
    g, h = np.zeros(raw.size), np.zeros(raw.size)
    start = 0
    ndcg = isinstance(loss, LambdaRankLoss)
    for n in sizes:
        idx = np.arange(start, start + n)
        start += n
        order = idx[np.argsort(-raw[idx], kind="stable")]
        rank = {int(d): r for r, d in enumerate(order)}
        gain = loss.label_gain if ndcg else None
        if ndcg:
            ideal = np.sort(gain[labels[idx]])[::-1][: loss.truncation_level]
            idcg = sum(v / np.log2(i + 2) for i, v in enumerate(ideal))
            if idcg == 0:
                continue
        gq, hq, total = {d: 0.0 for d in idx}, {d: 0.0 for d in idx}, 0.0
        for i in idx:
            for j in idx:
                if labels[i] <= labels[j]:
                    continue
                ri, rj = rank[int(i)], rank[int(j)]
                if ndcg and min(ri, rj) >= loss.truncation_level:
                    continue
                d = raw[i] - raw[j]
                w = 1.0
                if ndcg:
                    w = (
                        (gain[labels[i]] - gain[labels[j]])
                        * abs(1 / np.log2(ri + 2) - 1 / np.log2(rj + 2))
                        / idcg
                    )
                    if loss.norm and raw[idx].max() != raw[idx].min():
                        w /= 0.01 + abs(d)
                p = 1 / (1 + np.exp(loss.sigma * d))
                gq[i] -= loss.sigma * w * p
                gq[j] += loss.sigma * w * p
                hq[i] += loss.sigma**2 * w * p * (1 - p)
                hq[j] += loss.sigma**2 * w * p * (1 - p)
                total += 2 * loss.sigma * w * p
        f = np.log2(1 + total) / total if ndcg and loss.norm and total > 0 else 1.0
        for d in idx:
            g[d], h[d] = gq[d] * f, hq[d] * f
    return g, h


@st.composite
def _queries(draw):
    sizes = draw(st.lists(st.integers(1, 7), min_size=1, max_size=4))
    n = sum(sizes)
    labels = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    # scores on a coarse grid: ties occur, and break by row order in both
    raw = np.array(draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n))) / 2.0
    return np.array(sizes), labels, raw


@settings(max_examples=60, deadline=None)
@given(
    _queries(),
    st.sampled_from(["pairwise", "ndcg"]),
    st.integers(1, 8),
    st.booleans(),
    st.floats(0.5, 2.0),
)
def test_gradients_equal_brute_force_lambdas(data, kind, truncation, norm, sigma):
    sizes, labels, raw = data
    loss = (
        LambdaRankLoss(truncation, None, sigma, norm) if kind == "ndcg" else PairwiseRankLoss(sigma)
    )
    loss.bind(labels, query_offsets(labels.size, sizes))
    g, h = loss.gradient_hessian(labels, raw)
    g_ref, h_ref = _brute_lambdas(labels, raw, sizes, loss)
    np.testing.assert_allclose(g, g_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(h, h_ref, rtol=1e-9, atol=1e-12)


def _direct_ndcg(labels, scores, sizes, k, gain):
    values = []
    start = 0
    for n in sizes:
        y, s = labels[start : start + n], scores[start : start + n]
        start += n
        order = np.argsort(-s, kind="stable")
        dcg = sum(gain[y[o]] / np.log2(i + 2) for i, o in enumerate(order[:k]))
        best = sum(v / np.log2(i + 2) for i, v in enumerate(np.sort(gain[y])[::-1][:k]))
        values.append(dcg / best if best > 0 else 1.0)
    return np.mean(values)


@settings(max_examples=60, deadline=None)
@given(_queries(), st.integers(1, 8))
def test_ndcg_equals_direct_computation(data, k):
    sizes, labels, scores = data
    gain = 2.0 ** np.arange(31) - 1
    got = ndcg_score(labels, scores, group=sizes, k=k)
    assert got == pytest.approx(_direct_ndcg(labels, scores, sizes, k, gain))


def test_ndcg_equals_sklearn_with_linear_gains():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, size=(6, 9))
    y[:, 0] = 1  # every query has a relevant document (sklearn scores 0 otherwise)
    s = rng.normal(size=(6, 9))  # no ties (sklearn averages tied gains)
    for k in (3, 5, None):
        ours = ndcg_score(y.ravel(), s.ravel(), group=[9] * 6, k=k, label_gain=range(4))
        assert ours == pytest.approx(sk_ndcg(y, s, k=k))


def test_map_by_hand():
    # ranks: rel, not, rel -> AP = (1/1 + 2/3) / 2
    assert map_score([1, 0, 1], [3.0, 2.0, 1.0]) == pytest.approx((1 + 2 / 3) / 2)
    assert map_score([1, 0, 1], [3.0, 2.0, 1.0], k=2) == pytest.approx(1 / 2)
    assert map_score([0, 0], [1.0, 2.0]) == 1.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({}, "group= .* or qid="),
        ({"group": [3, 3]}, "sum to 6, but X has 8"),
        ({"group": [8, 0]}, "at least 1"),
        ({"qid": [1, 1, 2, 2, 1, 1, 3, 3]}, "contiguous"),
        ({"group": [8], "qid": [0] * 8}, "not both"),
    ],
)
def test_bad_groups_are_refused(kwargs, match):
    X = np.zeros((8, 2))
    with pytest.raises(ValueError, match=match):
        HistGradientBoostingRanker(max_iter=2).fit(X, np.zeros(8, int), **kwargs)


def test_bad_labels_and_scoring_are_refused():
    X = np.zeros((4, 1))
    with pytest.raises(ValueError, match="integer relevance"):
        HistGradientBoostingRanker().fit(X, [0.5, 1, 0, 1], group=[4])
    with pytest.raises(ValueError, match="label_gain"):
        HistGradientBoostingRanker(label_gain=[0, 1]).fit(X, [0, 2, 0, 1], group=[4])
    with pytest.raises(ValueError, match="scoring"):
        HistGradientBoostingRanker(scoring="ndcg@0").fit(X, [0, 1, 0, 1], group=[4])
    with pytest.raises(ValueError, match="k must be"):
        ndcg_score([0, 1], [1.0, 2.0], k=0)


def _learnable(seed, n_queries=120):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 25, n_queries)
    X = rng.normal(size=(sizes.sum(), 4))
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + 1), 0, 4).astype(int)
    return X, y, sizes


@pytest.mark.parametrize("loss", ["lambdarank", "pairwise"])
def test_learns_a_simple_ranking(loss):
    X, y, sizes = _learnable(0)
    Xt, yt, st_ = _learnable(1)
    ranker = HistGradientBoostingRanker(loss=loss, max_iter=40).fit(X, y, group=sizes)
    assert ndcg_score(yt, ranker.predict(Xt), group=st_, k=10) > 0.95
    assert ranker.score(Xt, yt, group=st_) > 0.95


def test_qid_equals_group_and_early_stopping_on_queries():
    X, y, sizes = _learnable(2)
    qid = np.repeat(np.arange(sizes.size), sizes)
    a = HistGradientBoostingRanker(max_iter=10).fit(X, y, group=sizes)
    b = HistGradientBoostingRanker(max_iter=10).fit(X, y, qid=qid)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    es = HistGradientBoostingRanker(
        max_iter=300, early_stopping=True, scoring="map@5", n_iter_no_change=3, random_state=0
    ).fit(X, y, group=sizes)
    assert es.n_iter_ < 300
    assert len(es.validation_score_) == es.n_iter_ + 1
    Xv, yv, sv = _learnable(3, 30)
    ext = HistGradientBoostingRanker(max_iter=5, early_stopping=True).fit(
        X, y, group=sizes, X_val=Xv, y_val=yv, group_val=sv
    )
    expected = ndcg_score(yv, ext.predict(Xv), group=sv, k=10)
    assert ext.validation_score_[-1] == pytest.approx(expected)


def test_clone_get_params_and_save_load(tmp_path):
    from treeboost.persistence import load, save

    ranker = HistGradientBoostingRanker(loss="pairwise", sigma=2.0, max_iter=5)
    assert clone(ranker).get_params() == ranker.get_params()
    X, y, sizes = _learnable(4, 30)
    ranker.fit(X, y, group=sizes)
    path = tmp_path / "ranker.tbm"
    save(ranker, path)
    loaded = load(path)
    np.testing.assert_array_equal(loaded.predict(X), ranker.predict(X))


def test_lambdas_are_lightgbms():
    """One stump on a 0/1 feature: LightGBM's two leaves are -G/H of our lambdas on each
    side (to its sigmoid table's precision)."""
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(1)
    sizes = rng.integers(5, 40, 50)
    n = sizes.sum()
    y = rng.integers(0, 4, n)
    x = rng.integers(0, 2, n).astype(float)
    model = lgb.LGBMRanker(
        n_estimators=1,
        num_leaves=2,
        learning_rate=1.0,
        min_child_samples=1,
        min_child_weight=0,
        reg_lambda=0,
        verbose=-1,
    ).fit(x[:, None], y, group=sizes)
    loss = LambdaRankLoss()
    loss.bind(y, query_offsets(n, sizes))
    g, h = loss.gradient_hessian(y, np.zeros(n))
    leaves = model.predict(np.array([[0.0], [1.0]]))
    for value in (0, 1):
        side = x == value
        assert leaves[value] == pytest.approx(-g[side].sum() / h[side].sum(), rel=1e-6)


def test_default_trees_are_xgboosts_depth_six():
    """The defaults grow XGBoost's depth-6 trees (at most 2**6 leaves), deeper than the
    31 leaves of the other boosters."""
    ranker = HistGradientBoostingRanker()
    assert (ranker.max_depth, ranker.max_leaf_nodes) == (6, 64)
    X, y, sizes = _learnable(5, 300)
    ranker.set_params(max_iter=3, min_samples_leaf=1).fit(X, y, group=sizes)
    trees = [tree for trees in ranker.trees_ for tree in trees]
    assert max(tree.max_depth for tree in trees) <= 6
    assert max(tree.n_leaves for tree in trees) > 31
    assert max(tree.n_leaves for tree in trees) <= 64
