import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from sklearn.datasets import load_breast_cancer  # noqa: E402

from treeboost import DecisionTreeClassifier, GradientBoostingClassifier  # noqa: E402
from treeboost.plotting import plot_importance, plot_learning_curve  # noqa: E402


def test_plot_importance_and_learning_curves(tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    gb = GradientBoostingClassifier(n_estimators=20, n_iter_no_change=50).fit(X, y)
    ax = plot_importance(gb, max_features=5)
    assert len(ax.patches) == 5
    ax.figure.savefig(tmp_path / "imp.png")
    ax = plot_learning_curve(gb)
    assert [l.get_label() for l in ax.get_lines()] == ["training loss", "validation loss"]
    ax = plot_learning_curve(gb, X, y)
    assert len(ax.get_lines()[0].get_xdata()) == 20
    from treeboost import HistGradientBoostingClassifier

    hist = HistGradientBoostingClassifier(max_iter=5, early_stopping=True).fit(X, y)
    ax = plot_learning_curve(hist)  # scores, the one before the first iteration first
    assert [l.get_label() for l in ax.get_lines()] == ["training score", "validation score"]
    assert list(ax.get_lines()[0].get_xdata()) == list(range(hist.n_iter_ + 1))
    with pytest.raises(ValueError, match="boosting"):
        plot_learning_curve(DecisionTreeClassifier().fit(X, y))
    with pytest.raises(ValueError, match="feature_names"):
        plot_importance(gb, feature_names=["a"])
    matplotlib.pyplot.close("all")


def test_plot_tree_entry_point_draws_a_tree(tmp_path):
    from treeboost import RandomForestClassifier
    from treeboost.plotting import plot_tree

    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y)
    ax = plot_tree(forest, tree_index=1)
    ax.figure.savefig(tmp_path / "tree.png")
    assert (tmp_path / "tree.png").stat().st_size > 0
    matplotlib.pyplot.close("all")


def test_plots_draw_on_an_axes_of_a_subfigure(tmp_path):
    """A subfigure has no tight_layout of its own: the plots draw there all the same."""
    import matplotlib.pyplot as plt

    X, y = load_breast_cancer(return_X_y=True)
    gb = GradientBoostingClassifier(n_estimators=5).fit(X, y)
    fig = plt.figure()
    left, right = fig.subfigures(1, 2)
    ax = plot_importance(gb, max_features=3, ax=left.subplots())
    assert len(ax.patches) == 3
    ax = plot_learning_curve(gb, ax=right.subplots())
    assert ax.get_lines()
    fig.savefig(tmp_path / "sub.png")
    plt.close(fig)
