"""``treeboost demo``: a single tree against the ensembles on the bundled Titanic data."""

from __future__ import annotations

from ._files import _check_output_directory
from ._messages import UserError

FEATURES = ["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]


# -- demo ------------------------------------------------------------------------------------
def _titanic_features():
    """Titanic features as a DataFrame when pandas is there, else a numpy object array
    with Sex and Embarked declared categorical (the demo needs no optional package)."""
    import importlib.util

    from ..datasets import load_titanic

    if importlib.util.find_spec("pandas") is None:
        data = load_titanic(as_frame=False)
        cols = [data.feature_names.index(c) for c in FEATURES]
        return data.data[:, cols], data.target, [1, 6]
    data = load_titanic(as_frame=True)
    return data.data[FEATURES], data.target, None


def demo(args):
    from ..demo import run_demo

    if args.folds < 2:
        raise UserError(f"--folds must be at least 2, got {args.folds}")
    if args.n_estimators < 1:
        raise UserError(f"--n-estimators must be at least 1, got {args.n_estimators}")
    if not args.no_plots:
        _check_output_directory(args.out)
    X, y, categorical = _titanic_features()
    try:
        return run_demo(
            X,
            y,
            categorical,
            FEATURES,
            out=args.out,
            folds=args.folds,
            n_estimators=args.n_estimators,
            plots=not args.no_plots,
        )
    except OSError as exc:  # the folder vanished or filled up during the run
        raise UserError(f"cannot write the pictures to {args.out}: {exc.strerror or exc}") from None
