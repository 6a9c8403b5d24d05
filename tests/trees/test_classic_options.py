"""Mitchell's options of the classic trees and the figures of the books: attribute costs,
the class tie-break of the book's 42.9 %, Mitchell's reduced-error pruning against a
brute-force greedy search, rule post-pruning on a validation set, the chi-square test,
missing values filled by the most common value, and the per-value Gini table."""

import copy
import doctest
from math import log2

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency

from treeboost.datasets import load_watermelon
from treeboost.inspection.rules import _categories, _condition_mask
from treeboost.persistence import load, save
from treeboost.trees import attribute_costs
from treeboost.trees import classic
from treeboost.trees.chi_square import chi_square
from treeboost.trees.classic import C45Classifier, ID3Classifier
from treeboost.trees.gini_report import gini_report
from treeboost.trees.pruning import (
    mitchell_reduced_error_pruning,
    pre_pruning,
    reduced_error_pruning,
)
from treeboost.trees.rules import RuleListClassifier


@pytest.fixture(scope="module")
def melons():
    return load_watermelon()


def book_split(m):
    tr = np.isin(m.ids, m.book_train_ids)
    va = np.isin(m.ids, m.book_validation_ids)
    return m.data[tr], m.target[tr], m.data[va], m.target[va], m.ids[va]


def H(*counts):
    n = sum(counts)
    return -sum(c / n * log2(c / n) for c in counts if c)


# -- attribute costs -------------------------------------------------------------------
# A separates the classes; B (cheap) nearly; C not at all.
COSTS_TABLE = pd.DataFrame(
    {
        "A": pd.Categorical(list("aaaabbbb")),
        "B": pd.Categorical(list("aaabbbbb")),
        "C": pd.Categorical(list("abababab")),
    }
)
COSTS_Y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
GAIN_A = 1.0
GAIN_B = 1.0 - 5 / 8 * H(1, 4)  # 0.5488


def _chosen(clf):
    rep = clf.split_report(0)
    return rep.loc[rep.chosen, "feature"].item(), rep.set_index("feature")


def test_id3_costs_change_the_chosen_attribute():
    assert _chosen(ID3Classifier().fit(COSTS_TABLE, COSTS_Y))[0] == "A"
    costs = {"A": 4.0}
    ts = ID3Classifier(feature_costs=costs).fit(COSTS_TABLE, COSTS_Y)
    name, rep = _chosen(ts)
    assert name == "B"
    # Tan and Schlimmer: Gain^2 / Cost
    assert rep.loc["A", "score"] == pytest.approx(GAIN_A**2 / 4)  # 0.25
    assert rep.loc["B", "score"] == pytest.approx(GAIN_B**2 / 1)  # 0.301
    assert rep.loc["A", "cost"] == 4.0 and rep.loc["B", "cost"] == 1.0
    # Nunez: (2^Gain - 1) / (Cost + 1)^w
    nz = ID3Classifier(feature_costs=[4.0, 1.0, 1.0], cost_measure="nunez").fit(
        COSTS_TABLE, COSTS_Y
    )
    name, rep = _chosen(nz)
    assert name == "B"
    assert rep.loc["A", "score"] == pytest.approx((2**GAIN_A - 1) / 5)  # 0.2
    assert rep.loc["B", "score"] == pytest.approx((2**GAIN_B - 1) / 2)  # 0.2315
    # w = 0 ignores the costs
    assert (
        _chosen(
            ID3Classifier(feature_costs=costs, cost_measure="nunez", cost_weight=0.0).fit(
                COSTS_TABLE, COSTS_Y
            )
        )[0]
        == "A"
    )
    # the expensive attribute is still used where it pays: below B, A finishes the job
    assert ts.score(COSTS_TABLE, COSTS_Y) == 1.0


def test_c45_costs_weigh_the_gain_ratio_of_the_eligible():
    iv_b = H(3, 5)
    ratio_b = GAIN_B / iv_b
    assert _chosen(C45Classifier().fit(COSTS_TABLE, COSTS_Y))[0] == "A"
    name, rep = _chosen(C45Classifier(feature_costs={"A": 4.0}).fit(COSTS_TABLE, COSTS_Y))
    assert name == "B"
    assert rep.loc["A", "score"] == pytest.approx(1.0**2 / 4)
    assert rep.loc["B", "score"] == pytest.approx(ratio_b**2)  # 0.3307
    assert rep.loc["C", "score"] == -np.inf  # below the average gain


def test_cost_measures_and_bad_costs():
    np.testing.assert_allclose(
        attribute_costs.cost_sensitive_score([0.5, 1.0], [2.0, 3.0], "nunez", 0.5),
        [(2**0.5 - 1) / 3**0.5, 1 / 2],
    )
    for bad, match in [
        ({"A": -1.0}, "feature_costs\\['A'\\]"),
        ({"Z": 1.0}, "unknown column 'Z'"),
        ([1.0, 2.0], "one cost per column"),
        ([1.0, np.inf, 1.0], "finite"),
    ]:
        with pytest.raises(ValueError, match=match):
            ID3Classifier(feature_costs=bad).fit(COSTS_TABLE, COSTS_Y)


# -- the class tie-break and the book's figures ------------------------------------------
def test_first_seen_tie_break_gives_the_books_pre_pruning_root(melons):
    Xt, yt, Xv, yv, ids = book_split(melons)
    sorted_rule = ID3Classifier(tie_break=["脐部"]).fit(Xt, yt)
    _, report = pre_pruning(sorted_rule, Xv, yv, return_report=True)
    assert report[0]["accuracy_before"] == pytest.approx(4 / 7)  # 57.1 %: the root says 否
    for rule in ("first_seen", ["是"]):
        book = ID3Classifier(tie_break=["脐部"], class_tie_break=rule).fit(Xt, yt)
        pruned, report = pre_pruning(book, Xv, yv, return_report=True)
        assert report[0]["accuracy_before"] == pytest.approx(3 / 7)  # the book's 42.9 %
        assert report[0]["accuracy_after"] == pytest.approx(5 / 7)
        correct = ids[pruned.predict(Xv) == yv.to_numpy()]
        assert set(correct) == {4, 5, 8, 11, 12}
        # the tied 2:2 branch 脐部 = 稍凹 is labelled 好瓜, as in the book's figure 4.6
        assert pruned.predict(Xv[Xv["脐部"] == "稍凹"]).tolist() == ["是", "是"]
    with pytest.raises(ValueError, match="class_tie_break names '好'"):
        ID3Classifier(class_tie_break=["好"]).fit(Xt, yt)


def test_docstring_examples_run():
    for obj in (classic.ID3Classifier, gini_report):
        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        for test in finder.find(obj, obj.__name__, globs={}):
            runner.run(test)
        result = runner.summarize(verbose=False)
        assert result.attempted >= 2 and result.failed == 0


def test_gini_per_value_table(melons):
    table = gini_report(melons.data, melons.target).set_index(["feature", "value"])
    # 浅白: 1 good of 5; the other 12: 7 good; Gini(D, 色泽=浅白) = 0.437 (the book prints 0.426)
    by_hand = 5 / 17 * (1 - (1 / 5) ** 2 - (4 / 5) ** 2) + 12 / 17 * (
        1 - (7 / 12) ** 2 - (5 / 12) ** 2
    )
    assert table.loc[("色泽", "浅白"), "gini_split"] == pytest.approx(by_hand)
    assert round(by_hand, 3) == 0.437
    # 纹理 = 稍糊 has the same counts, and the book prints 0.437 there
    assert table.loc[("纹理", "稍糊"), "gini_split"] == pytest.approx(by_hand)
    # the multiway Gini_index of 纹理 is the smallest (Zhou, 4.2.3)
    index = table.groupby(level=0)["gini_index"].first()
    assert index.idxmin() == "纹理"
    assert table.attrs["gini"] == pytest.approx(1 - (8 / 17) ** 2 - (9 / 17) ** 2)


# -- Mitchell's reduced-error pruning -----------------------------------------------------
def brute_force_greedy(est, X_val, y_val):
    """Mitchell's loop, literally: try every internal node of the current tree, keep
    the removal of best validation accuracy (ties: smallest node id) while it does not
    lower the accuracy."""
    tree = est.tree_
    cut = set()

    def pruned(c):
        out = copy.copy(est)
        out.tree_ = tree.subtree(c)
        return out

    current = pruned(cut).score(X_val, y_val)
    while True:
        alive = pruned(cut).tree_
        nodes = alive.node_map_[alive.feature >= 0]
        if not nodes.size:
            return cut
        scores = [pruned(cut | {int(n)}).score(X_val, y_val) for n in nodes]
        k = int(np.argmax(np.asarray(scores) >= max(scores) - 1e-12))
        if scores[k] < current - 1e-12:
            return cut
        current = scores[k]
        cut.add(int(nodes[k]))


def _random_table(seed, n):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, (n, 4))
    X = pd.DataFrame({f"a{j}": pd.Categorical(codes[:, j], categories=[0, 1, 2]) for j in range(4)})
    y = ((codes[:, 0] + codes[:, 1] + rng.integers(0, 2, n)) % 3).astype(np.int64)
    return X, y


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([ID3Classifier, C45Classifier]))
def test_mitchell_pruning_is_the_greedy_search(seed, Est):
    X, y = _random_table(seed, 40)
    Xv, yv = _random_table(seed + 1, 15)
    est = Est(max_depth=3).fit(X, y)
    pruned, report = mitchell_reduced_error_pruning(est, Xv, yv, return_report=True)
    cut = brute_force_greedy(est, Xv, yv)
    expected = est.tree_.subtree(cut)
    np.testing.assert_array_equal(pruned.tree_.node_map_, expected.node_map_)
    assert pruned.score(Xv, yv) >= est.score(Xv, yv) - 1e-12
    assert [r["decision"] for r in report].count("prune") == len(cut)


def test_mitchell_and_zhou_on_the_book(melons):
    Xt, yt, Xv, yv, _ = book_split(melons)
    clf = ID3Classifier(tie_break=["脐部"], class_tie_break="first_seen").fit(Xt, yt)
    mitchell, report = mitchell_reduced_error_pruning(clf, Xv, yv, return_report=True)
    zhou = reduced_error_pruning(clf, Xv, yv)
    assert mitchell.score(Xv, yv) == pytest.approx(5 / 7)
    assert zhou.score(Xv, yv) == pytest.approx(5 / 7)
    assert report[-1]["decision"].startswith("keep")
    via_fit = ID3Classifier(
        tie_break=["脐部"], class_tie_break="first_seen", pruning="mitchell"
    ).fit(Xt, yt, X_val=Xv, y_val=yv)
    np.testing.assert_array_equal(via_fit.predict(Xv), mitchell.predict(Xv))


# -- rule post-pruning on a validation set --------------------------------------------------
def test_rule_post_pruning_on_a_validation_set(melons):
    Xt, yt, Xv, yv, _ = book_split(melons)
    rl = RuleListClassifier(ID3Classifier(), accuracy_estimate="validation").fit(
        Xt, yt, X_val=Xv, y_val=yv
    )
    est = rl.estimator_
    Xe = est._transform(Xv)
    cats = _categories(est)
    accs = []
    for r in rl.rules_:
        cover = np.ones(len(yv), bool)
        for c in r.conditions:
            cover &= _condition_mask(c, Xe, cats)
        acc = (yv.to_numpy()[cover] == r.prediction).mean() if cover.any() else 0.0
        assert r.extra["estimated_accuracy"] == pytest.approx(acc)
        accs.append(acc)
    assert accs == sorted(accs, reverse=True)
    # the rules are no worse on the validation set than the tree they came from
    assert rl.score(Xv, yv) >= est.score(Xv, yv)
    with pytest.raises(ValueError, match="accuracy_estimate='validation' only"):
        RuleListClassifier().fit(Xt, yt, X_val=Xv, y_val=yv)
    # without X_val a share is held out, and the tree sees only the rest
    held = RuleListClassifier(ID3Classifier(), accuracy_estimate="validation", random_state=0).fit(
        melons.data, melons.target
    )
    assert held.estimator_.tree_.weighted_n_node_samples[0] < 17


# -- the chi-square test --------------------------------------------------------------------
def test_chi_square_statistic_and_pre_pruning(melons):
    table = np.array([[7.0, 2.0], [1.0, 4.0], [0.0, 3.0]])  # 纹理 at the root
    got = chi_square(table)
    stat, p, dof, _ = chi2_contingency(table, correction=False)
    assert got.statistic == pytest.approx(stat) and got.p_value == pytest.approx(p)
    assert got.dof == dof
    full = C45Classifier().fit(melons.data, melons.target)
    rep = full.split_report(0).set_index("feature")
    assert rep.loc["纹理", "p_value"] == pytest.approx(p)
    pruned = C45Classifier(chi2_alpha=0.05).fit(melons.data, melons.target)
    assert 1 < pruned.tree_.node_count < full.tree_.node_count
    for node in np.flatnonzero(pruned.tree_.feature >= 0):
        r = pruned.split_report(int(node))
        assert r.loc[r.chosen, "p_value"].item() < 0.05
    assert C45Classifier(chi2_alpha=1e-6).fit(melons.data, melons.target).tree_.node_count == 1


# -- missing values by the most common value ------------------------------------------------
def test_missing_value_filled_by_the_most_common_value(melons):
    X = melons.data.copy()
    y = melons.target
    X.loc[[0, 9, 12], "纹理"] = np.nan  # a good melon (清晰), two bad ones
    stump = ID3Classifier(missing="most_common", max_depth=1).fit(X, y)
    common = X["纹理"].value_counts().idxmax()  # 清晰
    filled = X.fillna({"纹理": common})
    ref = ID3Classifier(max_depth=1).fit(filled, y)
    np.testing.assert_allclose(stump.split_report(0).gain, ref.split_report(0).gain)
    # at prediction a missing value follows the most common value's branch
    np.testing.assert_array_equal(stump.predict_proba(X), ref.predict_proba(filled))
    # by class: each missing value takes its class's most common value
    by_class = ID3Classifier(missing="most_common_class", max_depth=1).fit(X, y)
    fill = {k: X.loc[(y == k).to_numpy(), "纹理"].value_counts().idxmax() for k in np.unique(y)}
    filled_c = X.copy()
    miss = X["纹理"].isna()
    filled_c.loc[miss, "纹理"] = [fill[k] for k in y[miss]]
    ref_c = ID3Classifier(max_depth=1).fit(filled_c, y)
    np.testing.assert_allclose(by_class.split_report(0).gain, ref_c.split_report(0).gain)


def test_options_survive_save_and_load(melons, tmp_path):
    Xt, yt, Xv, yv, _ = book_split(melons)
    clf = ID3Classifier(
        tie_break=["脐部"], class_tie_break="first_seen", feature_costs={"纹理": 2.0}
    ).fit(Xt, yt)
    back = load(save(clf, tmp_path / "m.tb"))
    np.testing.assert_array_equal(back.class_rank_, clf.class_rank_)
    np.testing.assert_array_equal(back.predict(Xv), clf.predict(Xv))
    back.class_rank_ = np.array([0, 0])
    with pytest.raises(ValueError, match="class_rank_"):
        back._validate_state()
