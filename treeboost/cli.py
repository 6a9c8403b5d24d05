"""The ``treeboost`` command (also ``python -m treeboost``).

For now one job, ``treeboost demo``: fit a CART tree on the bundled Titanic data, print
its 5-fold cross-validated accuracy next to scikit-learn's tree, and the tree's rules.
"""
import argparse
import sys
import time


FEATURES = ["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]


def _titanic_features():
    """Titanic features as a DataFrame when pandas is there, else a numpy object array
    with Sex and Embarked declared categorical (the demo needs no optional package)."""
    from .datasets import load_titanic
    try:
        import pandas  # noqa: F401  (only checks that it is installed)
    except ImportError:
        data = load_titanic(as_frame=False)
        cols = [data.feature_names.index(c) for c in FEATURES]
        return data.data[:, cols], data.target, [1, 6]
    data = load_titanic(as_frame=True)
    return data.data[FEATURES], data.target, None


def demo(args):
    import numpy as np
    from sklearn.model_selection import cross_val_score, StratifiedKFold

    from . import DecisionTreeClassifier
    from .trees.export import export_rules

    X, y, categorical = _titanic_features()
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    tree = DecisionTreeClassifier(max_depth=args.max_depth, min_samples_leaf=5, random_state=0,
                                  categorical_features=categorical)
    t = time.perf_counter()
    scores = cross_val_score(tree, X, y, cv=cv)
    elapsed = time.perf_counter() - t
    print(f"Titanic: {len(y)} passengers, features {', '.join(FEATURES)}")
    print(f"treeboost DecisionTreeClassifier(max_depth={args.max_depth}, min_samples_leaf=5): "
          f"5-fold CV accuracy {scores.mean():.3f} ± {scores.std():.3f} ({elapsed:.2f} s)")
    try:
        from sklearn.tree import DecisionTreeClassifier as SkTree
        Xsk = np.asarray(tree.fit(X, y)._encoder.transform(X))   # categories as codes
        sk = cross_val_score(SkTree(max_depth=args.max_depth, min_samples_leaf=5,
                                    random_state=0), Xsk, y, cv=cv)
        print(f"scikit-learn DecisionTreeClassifier (same settings, Sex/Embarked as codes): "
              f"{sk.mean():.3f} ± {sk.std():.3f}")
    except Exception as exc:  # the comparison is a courtesy; never fail the demo on it
        print(f"(scikit-learn comparison skipped: {exc})")
    tree.fit(X, y)
    print(f"\nRules of the tree fitted on all {len(y)} passengers "
          f"(class 1 = survived):")
    for rule in export_rules(tree, feature_names=FEATURES, target_name="Survived"):
        print("  " + rule)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="treeboost",
                                     description="Decision trees and tree ensembles.")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("demo", help="fit a tree on the bundled Titanic data")
    p.add_argument("--max-depth", type=int, default=3)
    args = parser.parse_args(argv)
    if args.command in (None, "demo"):
        if args.command is None:
            args = parser.parse_args(["demo"] + (argv or []))
        return demo(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
