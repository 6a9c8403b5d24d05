"""The ``treeboost`` command (also ``python -m treeboost``).

    treeboost demo [--out DIR]                      single tree against the ensembles
    treeboost fit DATA.csv --target COL [--model gbdt|rf|tree|bagging|adaboost|extratrees]
                  [--param k=v ...] [--test-size 0.2] [--task auto] -o MODEL
    treeboost predict MODEL DATA.csv [-o OUT.csv]
    treeboost explain MODEL [--tree N]

Mistakes (a missing file, an unknown column, a one-valued target, a file that is not a
treeboost model, columns that differ from training) print one ``treeboost: error:`` line
and exit with status 2; they never print a traceback.
"""
import argparse
import ast
import sys
import time

FEATURES = ["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]

MODELS = {
    "tree": ("DecisionTreeClassifier", "DecisionTreeRegressor"),
    "gbdt": ("GradientBoostingClassifier", "GradientBoostingRegressor"),
    "rf": ("RandomForestClassifier", "RandomForestRegressor"),
    "extratrees": ("ExtraTreesClassifier", "ExtraTreesRegressor"),
    "bagging": ("BaggingClassifier", "BaggingRegressor"),
    "adaboost": ("AdaBoostClassifier", "AdaBoostRegressor"),
}


class UserError(Exception):
    """A mistake of the user's, reported as one line."""


# -- demo ------------------------------------------------------------------------------------
def _titanic_features():
    """Titanic features as a DataFrame when pandas is there, else a numpy object array
    with Sex and Embarked declared categorical (the demo needs no optional package)."""
    from .datasets import load_titanic
    import importlib.util
    if importlib.util.find_spec("pandas") is None:
        data = load_titanic(as_frame=False)
        cols = [data.feature_names.index(c) for c in FEATURES]
        return data.data[:, cols], data.target, [1, 6]
    data = load_titanic(as_frame=True)
    return data.data[FEATURES], data.target, None


def demo(args):
    from .demo import run_demo
    X, y, categorical = _titanic_features()
    return run_demo(X, y, categorical, FEATURES, out=args.out, folds=args.folds,
                    n_estimators=args.n_estimators, plots=not args.no_plots)


# -- fit / predict / explain ------------------------------------------------------------------
def _read_csv(path):
    try:
        import pandas as pd
    except ImportError:
        raise UserError("reading CSV files needs pandas: pip install pandas") from None
    try:
        return pd.read_csv(path)
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {path} as CSV ({exc})") from None


def _prepare_features(frame):
    """Object columns become categorical; missing values stay missing."""
    for col in frame.columns:
        if frame[col].dtype == object or str(frame[col].dtype) in ("string", "bool"):
            frame[col] = frame[col].astype("category")
    return frame


def _detect_task(y):
    import numpy as np
    if y.dtype == object or str(y.dtype) in ("category", "bool", "string"):
        return "classification"
    values = y.dropna().to_numpy()
    if np.all(np.mod(values, 1) == 0) and np.unique(values).size <= 10:
        return "classification"
    return "regression"


def _parse_params(pairs):
    params = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise UserError(f"--param takes key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        try:
            params[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            params[key] = value
    return params


def fit(args):
    import numpy as np
    import treeboost
    from sklearn import metrics
    from sklearn.model_selection import train_test_split

    frame = _read_csv(args.data)
    if args.target not in frame.columns:
        raise UserError(f"column {args.target!r} is not in {args.data} (columns: "
                        f"{', '.join(map(str, frame.columns))})")
    frame = frame.dropna(subset=[args.target])
    y = frame[args.target]
    if y.nunique() < 2:
        raise UserError(f"the target {args.target!r} has a single value; nothing to learn")
    X = _prepare_features(frame.drop(columns=[args.target]))
    task = _detect_task(y) if args.task == "auto" else args.task
    name = MODELS[args.model][0 if task == "classification" else 1]
    cls = getattr(treeboost, name, None)
    if cls is None:
        raise UserError(f"--model {args.model} is not available in this treeboost")
    try:
        model = cls(**_parse_params(args.param))
    except TypeError as exc:
        raise UserError(f"bad --param for {name}: {exc}") from None
    if task == "classification":
        y = y.astype(str) if y.dtype == object else y
    stratify = y if task == "classification" and y.value_counts().min() >= 2 else None
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=args.test_size, stratify=stratify,
                                          random_state=args.random_state)
    t = time.perf_counter()
    model.fit(Xtr, ytr)
    fit_time = time.perf_counter() - t
    print(f"{name} fitted on {len(ytr)} rows x {X.shape[1]} columns in {fit_time:.2f} s; "
          f"hold-out {len(yte)} rows:")
    pred = model.predict(Xte)
    if task == "classification":
        print(f"  accuracy  {metrics.accuracy_score(yte, pred):.4f}")
        if hasattr(model, "predict_proba"):
            proba = model.predict_proba(Xte)
            if proba.shape[1] == 2:
                print(f"  ROC AUC   {metrics.roc_auc_score(yte == model.classes_[1], proba[:, 1]):.4f}")
            print(f"  log loss  {metrics.log_loss(yte, proba, labels=model.classes_):.4f}")
    else:
        print(f"  R2        {metrics.r2_score(yte, pred):.4f}")
        print(f"  MAE       {metrics.mean_absolute_error(yte, pred):.4f}")
        print(f"  RMSE      {np.sqrt(metrics.mean_squared_error(yte, pred)):.4f}")
    model.treeboost_cli_ = {"target": args.target, "task": task,
                            "columns": [str(c) for c in X.columns]}
    treeboost.save(model, args.output)
    print(f"model saved to {args.output}")
    return 0


def _load_model(path):
    import treeboost
    try:
        return treeboost.load(path)
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except ValueError as exc:
        raise UserError(str(exc)) from None


def predict(args):
    model = _load_model(args.model)
    info = getattr(model, "treeboost_cli_", {})
    frame = _read_csv(args.data)
    frame = frame.drop(columns=[info.get("target")], errors="ignore")
    columns = info.get("columns") or list(getattr(model, "feature_names_in_", frame.columns))
    missing = [c for c in columns if c not in frame.columns]
    extra = [c for c in frame.columns if c not in columns]
    if missing or extra:
        raise UserError(f"the columns of {args.data} differ from training: "
                        + "; ".join(p for p in (f"missing {missing}" if missing else "",
                                                f"unexpected {extra}" if extra else "") if p))
    X = _prepare_features(frame[columns])
    out = frame[[]].copy()
    out["prediction"] = model.predict(X)
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        for k, c in enumerate(model.classes_):
            out[f"proba_{c}"] = proba[:, k]
    if args.output:
        out.to_csv(args.output, index=False)
        print(f"{len(out)} predictions written to {args.output}")
    else:
        out.to_csv(sys.stdout, index=False)
    return 0


def explain(args):
    import numpy as np
    from .trees.export import export_rules
    model = _load_model(args.model)
    names = list(getattr(model, "feature_names_in_", [])) or None
    trees = _trees_of(model)
    if trees:
        if not 0 <= args.tree < len(trees):
            raise UserError(f"--tree {args.tree} is out of range: the model has {len(trees)} "
                            f"trees")
        view = _TreeView(model, trees[args.tree])
        target = getattr(model, "treeboost_cli_", {}).get("target")
        print(f"Rules of tree {args.tree} of {len(trees)}:")
        for rule in export_rules(view, feature_names=names, target_name=target):
            print("  " + rule)
    imp = getattr(model, "feature_importances_", None)
    if imp is not None:
        names = names or [f"x{i}" for i in range(len(imp))]
        print("\nFeature importances:")
        for i in np.argsort(imp)[::-1]:
            print(f"  {names[i]:<20} {imp[i]:.4f}")
    if hasattr(model, "train_score_") and len(getattr(model, "train_score_", [])):
        val = getattr(model, "validation_score_", [])
        print("\nBoosting trace (loss per iteration):")
        for i, tr in enumerate(model.train_score_):
            v = f"  validation {val[i]:.6f}" if len(val) > i else ""
            print(f"  [{i + 1}] training {tr:.6f}{v}")
    return 0


def _trees_of(model):
    """The fitted trees of any treeboost model, in order."""
    if hasattr(model, "tree_"):
        return [model.tree_]
    if hasattr(model, "trees_"):
        return [t for trees in model.trees_ for t in trees]
    return [e.tree_ for e in getattr(model, "estimators_", []) if hasattr(e, "tree_")]


class _TreeView:
    """What the exporters need of one tree of a model."""

    def __init__(self, model, tree):
        self.tree_ = tree
        self._encoder = getattr(model, "_encoder", None)
        self.bin_mapper_ = getattr(model, "bin_mapper_", None)
        classes = getattr(model, "classes_", None)
        if classes is not None and tree.value.shape[1] == len(classes):
            self.classes_ = classes


# -- entry point ------------------------------------------------------------------------------
def _parser():
    parser = argparse.ArgumentParser(prog="treeboost",
                                     description="Decision trees and tree ensembles.")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("demo", help="a single tree against the ensembles on Titanic")
    p.add_argument("--out", default="treeboost-demo", help="folder for the pictures")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--n-estimators", type=int, default=100)
    p.add_argument("--no-plots", action="store_true")
    p.set_defaults(func=demo)
    p = sub.add_parser("fit", help="fit a model on a CSV file and save it")
    p.add_argument("data")
    p.add_argument("--target", required=True)
    p.add_argument("--model", choices=sorted(MODELS), default="gbdt")
    p.add_argument("--param", action="append", metavar="KEY=VALUE")
    p.add_argument("--test-size", type=float, default=0.2)
    p.add_argument("--task", choices=["auto", "classification", "regression"], default="auto")
    p.add_argument("--random-state", type=int, default=0)
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=fit)
    p = sub.add_parser("predict", help="predict a CSV file with a saved model")
    p.add_argument("model")
    p.add_argument("data")
    p.add_argument("-o", "--output")
    p.set_defaults(func=predict)
    p = sub.add_parser("explain", help="rules, importances and trace of a saved model")
    p.add_argument("model")
    p.add_argument("--tree", type=int, default=0)
    p.set_defaults(func=explain)
    return parser


def main(argv=None):
    parser = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv or ["demo"])
    try:
        return args.func(args)
    except UserError as exc:
        print(f"treeboost: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
