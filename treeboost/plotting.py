"""Pictures of fitted models (needs matplotlib: ``pip install treeboost[plot]``).

``plot_importance`` (bar chart of ``feature_importances_``), ``plot_learning_curve``
(the boosting trace, or staged scores of any ensemble on given data) and ``plot_tree``
(a drawing of one tree).
"""
import numpy as np


def _plt():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("treeboost.plotting needs matplotlib: pip install treeboost[plot]") \
            from None
    return plt


def plot_importance(model, feature_names=None, max_features=20, ax=None, title=None):
    """Horizontal bar chart of ``model.feature_importances_``, largest on top.

    Returns the matplotlib Axes.
    """
    plt = _plt()
    imp = np.asarray(model.feature_importances_)
    if feature_names is None:
        feature_names = getattr(model, "feature_names_in_", None)
    if feature_names is None:
        feature_names = [f"x{i}" for i in range(imp.size)]
    if len(feature_names) != imp.size:
        raise ValueError(f"feature_names has {len(feature_names)} names, the model has "
                         f"{imp.size} features.")
    order = np.argsort(imp)[::-1][:max_features][::-1]
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 0.35 * len(order) + 1.2))
    ax.barh(np.arange(len(order)), imp[order], color="tab:blue")
    ax.set_yticks(np.arange(len(order)))
    ax.set_yticklabels([str(feature_names[i]) for i in order])
    ax.set_xlabel("importance (normalised impurity decrease)")
    ax.set_title(title or f"{type(model).__name__}: feature importances")
    ax.figure.tight_layout()
    return ax


def plot_learning_curve(model, X=None, y=None, scoring=None, ax=None, title=None):
    """Score against the number of trees.

    Without data: a boosting model's ``train_score_`` (and ``validation_score_``) loss per
    iteration.  With ``X, y``: the staged predictions of the model (``staged_predict`` of
    boosting, or the running average of the trees of a forest/bagging ensemble) scored by
    ``scoring(y, prediction)`` (accuracy for classifiers, R² for regressors by default).
    Returns the matplotlib Axes.
    """
    plt = _plt()
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 4))
    if X is None:
        if not hasattr(model, "train_score_"):
            raise ValueError("plot_learning_curve without X, y needs a boosting model "
                             "(train_score_); pass X and y for other ensembles.")
        it = np.arange(1, len(model.train_score_) + 1)
        ax.plot(it, model.train_score_, label="training loss")
        if len(getattr(model, "validation_score_", [])):
            ax.plot(it, model.validation_score_, label="validation loss")
        ax.set_ylabel("loss")
    else:
        from sklearn.metrics import accuracy_score, r2_score
        classifier = hasattr(model, "classes_")
        scoring = scoring or (accuracy_score if classifier else r2_score)
        stages = _staged(model, X, classifier)
        if stages is None:
            raise ValueError(f"{type(model).__name__} has no staged predictions.")
        ax.plot(np.arange(1, len(stages) + 1), [scoring(y, p) for p in stages],
                label=type(model).__name__)
        ax.set_ylabel(getattr(scoring, "__name__", "score"))
    ax.set_xlabel("number of trees")
    ax.set_title(title or f"{type(model).__name__}: learning curve")
    ax.legend()
    ax.figure.tight_layout()
    return ax


def _staged(model, X, classifier):
    if hasattr(model, "staged_predict"):
        return list(model.staged_predict(X))
    estimators = getattr(model, "estimators_", None)
    if not estimators:
        return None
    features = getattr(model, "estimators_features_", None)
    out, total = [], None
    for i, est in enumerate(estimators):
        Xi = X if features is None else (X.iloc[:, features[i]] if hasattr(X, "iloc")
                                         else np.asarray(X)[:, features[i]])
        p = est.predict_proba(Xi) if classifier else est.predict(Xi)
        total = p if total is None else total + p
        avg = total / (i + 1)
        out.append(model.classes_[np.argmax(avg, axis=1)] if classifier else avg)
    return out


def plot_tree(model, **kwargs):
    """Draw one tree with matplotlib (see :func:`treeboost.trees.plotting.plot_tree`)."""
    from .trees import plotting
    return plotting.plot_tree(model, **kwargs)
