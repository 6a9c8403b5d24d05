"""Uses of the single trees, the pruning functions, treeboost.inspection and
treeboost.plotting that a type checker accepts, and mistakes it refuses.

mypy checks this file (``mypy.ini``); it is never run.  A line marked
``# type: ignore[code]`` is a mistake the hints must catch: with ``warn_unused_ignores``
a hint that stopped catching it fails the check.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from numpy.typing import NDArray
from typing_extensions import assert_type

from treeboost import (
    C45Classifier,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
    ID3Classifier,
    RandomForestClassifier,
    RuleListClassifier,
)
from treeboost.inspection import (
    Condition,
    Rule,
    export_graphviz,
    export_rules,
    export_text,
    extract_rules,
    rule_coverage,
    shap_values,
    trees_to_dataframe,
)
from treeboost.plotting import plot_importance, plot_shap_summary, plot_tree
from treeboost.trees import (
    MultiwayTree,
    cost_complexity_pruning_path,
    pessimistic_pruning,
    pre_pruning,
    prune_ccp,
    reduced_error_pruning,
)

X = np.zeros((4, 2))
y = np.array([0, 1, 0, 1])

# fit returns the estimator, typed as its own class
clf = DecisionTreeClassifier(max_depth=3, splitter="random", class_weight=[{0: 1.0}]).fit(X, y)
assert_type(clf, DecisionTreeClassifier)
assert_type(clf.predict_proba(X), NDArray[np.float64] | list[NDArray[np.float64]])
assert_type(clf.apply(X), NDArray[np.int64])
assert_type(clf.get_depth(), int)
assert_type(clf.get_n_leaves(), int)
assert_type(clf.feature_importances_, NDArray[np.float64])
reg = DecisionTreeRegressor(criterion="poisson", max_features="sqrt", monotonic_cst=[1, 0])
assert_type(reg.fit(X, y, sample_weight=np.ones(4)).predict(X), NDArray[np.float64])
assert_type(ExtraTreeClassifier(class_weight="balanced").fit(X, y), ExtraTreeClassifier)
assert_type(ExtraTreeRegressor(max_bins=None).fit(X, y), ExtraTreeRegressor)

c45 = C45Classifier(pruning="pessimistic", tie_break=["a", 0]).fit(X, y)
assert_type(c45, C45Classifier)
assert_type(c45.apply(X), NDArray[np.intp])
tree: MultiwayTree = c45.tree_
assert_type(tree.subtree([1]), MultiwayTree)
assert_type(tree.predict_proba(X), NDArray[np.float64])
assert_type(ID3Classifier(n_bins=4, pruning="post").fit(X, y, X_val=X, y_val=y), ID3Classifier)
rule_list = RuleListClassifier(estimator=C45Classifier(), generalize=False).fit(X, y)
assert_type(rule_list, RuleListClassifier)
assert_type(rule_list.export_text(), str)

# pruning returns a copy of the estimator's class, and its steps with return_report=True
assert_type(pessimistic_pruning(c45, confidence_factor=0.1), C45Classifier)
pruned, steps = reduced_error_pruning(c45, X, y, tie="keep", return_report=True)
assert_type(pruned, C45Classifier)
assert_type(steps, list[dict[str, Any]])
assert_type(pre_pruning(clf, X, y), DecisionTreeClassifier)
assert_type(pre_pruning(clf, X, y, True), tuple[DecisionTreeClassifier, list[dict[str, Any]]])
assert_type(pessimistic_pruning(c45, return_report=True)[0], C45Classifier)
assert_type(prune_ccp(clf, 0.01), DecisionTreeClassifier)
path = cost_complexity_pruning_path(clf)

# the inspection functions, on a tree or one tree of an ensemble
assert_type(export_text(clf, feature_names=["a", "b"]), str)
assert_type(export_rules(clf, tree_index=0), list[str])
rules = extract_rules(clf, class_names=["no", "yes"])
assert_type(rules, list[Rule])
assert_type(rules[0].conditions, list[Condition])
assert_type(rules[0].text(), str)
assert_type(rule_coverage(clf, X, rules), NDArray[np.bool_])
assert_type(export_graphviz(clf, "tree.dot", rankdir="LR"), str)
values, expected = shap_values(clf, X)
assert_type(values, NDArray[np.float64])
frame = trees_to_dataframe(RandomForestClassifier(n_estimators=2).fit(X, y))

# the pictures return matplotlib's Axes
ax = plot_tree(clf, max_depth=2)
assert_type(ax, Axes)
assert_type(plot_importance(clf, ax=ax), Axes)
assert_type(plot_shap_summary(values, X, max_display=5), Axes)

# mistakes the hints catch
DecisionTreeClassifier(criterion="squared_error")  # type: ignore[arg-type]
DecisionTreeRegressor(criterion="gini")  # type: ignore[arg-type]
DecisionTreeClassifier(splitter="fast")  # type: ignore[arg-type]
C45Classifier(pruning="post-hoc")  # type: ignore[arg-type]
reduced_error_pruning(c45, X, y, tie="never")  # type: ignore[call-overload]
export_text(clf, decimals="3")  # type: ignore[arg-type]
export_rules(clf, tree_index="0")  # type: ignore[arg-type]
plot_tree(clf, ax="left")  # type: ignore[arg-type]
