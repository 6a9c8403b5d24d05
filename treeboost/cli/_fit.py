"""``treeboost fit``: read the file, decide the features and the task, fit, report the
held-out score against the baseline and save the model."""

from __future__ import annotations

import time
import warnings

from ._columns import (
    _feature_columns,
    _is_numeric,
    _prepare_features,
    _refuse_infinity,
    _row_number,
)
from ._csv import (
    STRAY_TEXT_SHARE,
    _as_numbers,
    _duplicate_columns,
    _read_csv,
    _reading,
    _refuse_duplicate_columns,
)
from ._dates import _parse_dates, _refuse_non_dates
from ._files import _check_output
from ._messages import UserError, _flush_notes, _names, _note, _pandas, _quoted, _shorten, _warn
from ._models import MODELS, _base_params, _make_model, _set_threads, _trees_of
from ._task import _detect_task


def _target(frame, args):
    """``(y, task)`` with y as a numpy array; text labels as Python str."""
    import numpy as np

    y = frame[args.target]
    task = args.task
    if task == "auto":
        task, reason = _detect_task(y, args.target)
        if _is_numeric(y):  # text labels cannot be a regression
            other = "regression" if task == "classification" else "classification"
            reason += f"; use --task {other} to change"
        _note(f"{task}: {reason}")
    if task == "regression":
        if not _is_numeric(y):
            example = y.dropna().iloc[0]
            raise UserError(
                f"--task regression needs numbers in the target {_quoted(args.target)}, "
                f"but it holds text such as {_quoted(example)}; use --task "
                f"classification"
            )
        values = y.to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise UserError(
                f"the target {_quoted(args.target)} holds {values[bad[0]]} in data row "
                f"{_row_number(frame, bad[0])}"
            )
        return values, task
    if _is_numeric(y):
        values = y.to_numpy()
        if values.dtype.kind == "f" and np.all(np.mod(values, 1) == 0):
            # 0/1 read as floats because of an empty cell: the classes stay 0 and 1
            values = values.astype(np.int64)
        return values, task
    if y.dtype == bool:
        return y.to_numpy(dtype=bool), task
    # pandas 3 reads text as its `str` dtype; the model's classes_ (and the predictions
    # written later) are plain Python strings
    return y.astype(str).to_numpy(dtype=object), task


def _split(X, y, task, args, n_rows, weight=None):
    """Training and held-out parts: ``Xtr, Xte, ytr, yte, wtr``."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    stratify = None
    if task == "classification":
        _, counts = np.unique(y, return_counts=True)
        stratify = y if counts.min() >= 2 else None
    arrays = [X, y] + ([] if weight is None else [weight])
    try:
        parts = train_test_split(
            *arrays, test_size=args.test_size, stratify=stratify, random_state=args.random_state
        )
    except ValueError as exc:
        raise UserError(
            f"{args.data} has {n_rows} rows with a target: too few to hold out "
            f"--test-size {args.test_size} ({exc})"
        ) from None
    Xtr, Xte, ytr, yte = parts[:4]
    if np.unique(ytr).size < 2:
        raise UserError(
            f"{args.data} has {n_rows} rows with a target: the training part "
            f"({len(ytr)} rows after holding out --test-size {args.test_size}) "
            f"has a single target value; nothing to learn"
        )
    return Xtr, Xte, ytr, yte, (parts[4] if weight is not None else None)


def _report(model, task, yte, pred, Xte, ytr):
    """Print the held-out scores; a warning for each that is no better than what
    predicting without the features scores (:func:`_no_better`)."""
    import numpy as np
    from sklearn import metrics
    from sklearn.exceptions import UndefinedMetricWarning

    scores = {}

    def show(label, score):
        # a metric undefined on this hold-out (one class in it) is said, not warned
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", UndefinedMetricWarning)
                value = score()
        except (ValueError, UndefinedMetricWarning):
            print(f"  {label:<9} undefined on this hold-out")
            return
        scores[label] = value
        print(f"  {label:<9} {value:.4f}")

    common = None
    if task == "classification":
        show("accuracy", lambda: metrics.accuracy_score(yte, pred))
        # what accuracy means here: that of always answering the training's commonest class
        labels, counts = np.unique(ytr, return_counts=True)
        common = labels[np.argmax(counts)]
        scores["baseline"] = float(np.mean(yte == common))
        print(
            f"  {'baseline':<9} {scores['baseline']:.4f}  (accuracy of always "
            f"predicting {_shorten(common)}, the most frequent class)"
        )
        if hasattr(model, "predict_proba"):
            proba = model.predict_proba(Xte)
            if proba.shape[1] == 2:
                show(
                    "ROC AUC", lambda: metrics.roc_auc_score(yte == model.classes_[1], proba[:, 1])
                )
            show("log loss", lambda: metrics.log_loss(yte, proba, labels=model.classes_))
    else:
        show("R2", lambda: metrics.r2_score(yte, pred))
        show("MAE", lambda: metrics.mean_absolute_error(yte, pred))
        show("RMSE", lambda: np.sqrt(metrics.mean_squared_error(yte, pred)))
    for line in _no_better(scores, common):
        _warn(line)


def _no_better(scores, common):
    """The warnings for the scores (``{label: value}``) no better than a guess: an
    accuracy at most the baseline's, a ROC AUC at most 0.5 (a coin's), an R2 at most 0
    (that of predicting the held-out rows' mean)."""
    accuracy, baseline = scores.get("accuracy"), scores.get("baseline")
    if accuracy is not None and baseline is not None and accuracy <= baseline:
        yield (
            f"the accuracy {accuracy:.4f} is {'below' if accuracy < baseline else 'that of'} "
            f"the baseline {baseline:.4f} of always predicting {_shorten(common)}: the model "
            f"does no better on these rows than ignoring the features"
        )
    auc = scores.get("ROC AUC")
    if auc is not None and auc <= 0.5:
        yield (
            f"the ROC AUC {auc:.4f} is {'below' if auc < 0.5 else 'that of'} 0.5, that of a "
            f"random ranking: the model ranks these rows no better than chance"
        )
    r2 = scores.get("R2")
    if r2 is not None and r2 <= 0:
        yield (
            f"the R2 {r2:.4f} is not above 0, that of always predicting the mean of these "
            f"rows: the model does no better on them than ignoring the features"
        )


#: A categorical column is named after the scores when at least this share of its held-out
#: values (and at least ``UNSEEN_MIN_ROWS`` of them) never occur in the training part.
UNSEEN_SHARE = 0.2
UNSEEN_MIN_ROWS = 5


def _unseen_categories(Xtr, Xte):
    """Lines naming the categorical columns whose held-out values the training part mostly
    never saw: the model reads an unseen category as a missing value, which is what the
    held-out scores then measure."""
    lines = []
    for col in Xte.columns:
        if not hasattr(Xte[col], "cat"):
            continue
        held = Xte[col].dropna()
        unseen = int((~held.isin(Xtr[col].dropna().unique())).sum())
        if unseen >= UNSEEN_MIN_ROWS and unseen >= UNSEEN_SHARE * len(held):
            lines.append(
                f"note: {unseen} of the {len(held)} held-out values of {_shorten(col)} never "
                f"occur in the training part; the model reads them as missing "
                f"values"
            )
    return lines


def _check_fit_options(args):
    if not 0 < args.test_size < 1:
        raise UserError(
            f"--test-size must be a fraction strictly between 0 and 1, got {args.test_size}"
        )
    if args.output == "-":
        raise UserError(
            "-o -: a model file is binary and is not written to standard "
            "output; give a file name such as model.tbm"
        )
    if args.weight is not None and args.weight == args.target:
        raise UserError(f"--weight {_shorten(args.weight)}: that is the target")
    _check_output(args.output, inputs=[args.data] + ([args.valid] if args.valid else []))


def _rows_with_target(frame, path, args):
    """``frame`` without its rows whose target is empty (a line says how many)."""
    if len(frame) == 0:
        raise UserError(f"{path} has a header but no data rows")
    if args.target not in frame.columns:
        raise UserError(
            f"column {_quoted(args.target)} is not in {path} (columns: {_names(frame.columns)})"
        )
    empty = int(frame[args.target].isna().sum())
    if empty == len(frame):
        raise UserError(f"the target {_quoted(args.target)} is empty in every row of {path}")
    if empty:
        _note(
            f"{empty} of the {len(frame)} rows of {path} have no {_shorten(args.target)} (an empty "
            f"cell): left out"
        )
    return frame.dropna(subset=[args.target])


def _note_text_in_numbers(frame, columns, fmt):
    """Name each column read as categories because a few of its cells are not numbers (a
    stray ``n/a``, a typo): its numbers lose their order, and the cells are worth fixing."""
    pd = _pandas()
    for col in columns:
        series = frame[col]
        if (
            _is_numeric(series)
            or pd.api.types.is_bool_dtype(series.dtype)
            or pd.api.types.is_datetime64_any_dtype(series.dtype)
        ):
            continue
        values = series.dropna()
        text = _as_numbers(values, fmt).isna().to_numpy()
        if 0 < text.sum() <= max(1, STRAY_TEXT_SHARE * len(values)) < len(values):
            i = int(text.argmax())
            _note(
                f"column {_quoted(col)} is read as categories, not numbers: "
                f"{int(text.sum())} of its {len(values)} cells are not numbers "
                f"({_quoted(values.iloc[i])} in data row {int(values.index[i]) + 1}); "
                f"correct or empty them to use its numbers"
            )


def _weights(frame, args):
    """The ``--weight`` column as finite, non-negative floats."""
    import numpy as np

    if args.weight is None:
        return None
    w = frame[args.weight]
    if not _is_numeric(w):
        raise UserError(f"--weight {_shorten(args.weight)}: the column holds text, not numbers")
    values = w.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
    if bad.size:
        raise UserError(
            f"--weight {_shorten(args.weight)}: weights must be finite numbers >= 0, got "
            f"{values[bad[0]]} in data row {_row_number(frame, bad[0])}"
        )
    if not values.sum() > 0:
        raise UserError(f"--weight {_shorten(args.weight)}: every weight is 0")
    return values


def _warn_if_constant(model, n_train):
    """A model none of whose trees splits predicts the same for every row: say so."""
    trees = _trees_of(model)
    if trees and all(t.node_count <= 1 for t in trees):
        params = model.get_params(deep=False)
        leaf = params.get("min_samples_leaf")
        _warn(
            f"the fitted model makes no split: it predicts the same for every row "
            f"({n_train} training rows"
            + (f", min_samples_leaf={leaf}" if leaf else "")
            + "); try --param min_samples_leaf=1 or more rows"
        )


def _read_fit_csv(path, args):
    """A file ``fit`` learns from; one that names two columns alike is refused."""
    frame = _read_csv(path, args)
    _refuse_duplicate_columns(
        _duplicate_columns(frame, path, args),
        path,
        "the model would learn them as different features told apart only by their order "
        "in this file, and predict a file with them swapped wrongly",
    )
    return frame


def fit(args):
    import treeboost

    pd = _pandas()
    _check_fit_options(args)
    _set_threads(args)
    frame = _rows_with_target(_read_fit_csv(args.data, args), args.data, args)
    if frame.shape[1] < 2:
        raise UserError(f"{args.data} has no column besides the target {_quoted(args.target)}")
    # before the identifiers are picked: a column of distinct dates is a feature
    dates = _parse_dates(frame, [c for c in frame.columns if c not in (args.target, args.weight)])
    features = _feature_columns(frame, args)
    dates = {c: fmt for c, fmt in dates.items() if c in features}
    if dates:
        _note(
            "read as dates: "
            + _names((f"{_shorten(c)} ({fmt.words})" for c, fmt in dates.items()), show=str)
        )
    used = features + [args.target] + ([args.weight] if args.weight else [])
    n_train = len(frame)
    if args.valid is not None:
        valid = _rows_with_target(_read_fit_csv(args.valid, args), args.valid, args)
        missing = [c for c in used if c not in valid.columns]
        if missing:
            raise UserError(
                f"--valid {args.valid} lacks the columns {_names(missing)} of {args.data}"
            )
        _refuse_non_dates(valid, list(dates), args.valid, {c: f.format for c, f in dates.items()})
        # one frame, so that both files' columns get the same types and categories
        frame = pd.concat([frame[used], valid[used]])
    else:
        frame = frame[used]
    if frame[args.target].iloc[:n_train].nunique() < 2:
        raise UserError(
            f"the target {_quoted(args.target)} has a single value in {args.data}; nothing to learn"
        )
    _note_text_in_numbers(frame, features, _reading(args.data, args)[2])
    _refuse_infinity(frame, features, args.data)
    y, task = _target(frame, args)
    weight = _weights(frame, args)
    X = _prepare_features(frame[features].copy())
    name = MODELS[args.model][0 if task == "classification" else 1]
    cls = getattr(treeboost, name, None)
    if cls is None:
        raise UserError(f"--model {args.model} is not available in this treeboost")
    if args.valid is not None:
        Xtr, Xte, ytr, yte = X.iloc[:n_train], X.iloc[n_train:], y[:n_train], y[n_train:]
        wtr = None if weight is None else weight[:n_train]
        where = f"the {len(yte)} rows of --valid {args.valid}"
    else:
        Xtr, Xte, ytr, yte, wtr = _split(X, y, task, args, len(y), weight)
        where = f"the {len(yte)} held-out rows (--test-size {args.test_size:g})"
    model = _make_model(name, cls, args.param, _base_params(args.model, len(ytr)))
    _set_threads(args, model)
    _flush_notes()
    t = time.perf_counter()
    try:
        model.fit(Xtr, ytr, **({} if wtr is None else {"sample_weight": wtr}))
    except (ValueError, TypeError) as exc:
        raise UserError(f"cannot fit {name} on {args.data}: {exc}") from None
    fit_time = time.perf_counter() - t
    print(f"{name} fitted on {len(ytr)} rows x {X.shape[1]} columns in {fit_time:.2f} s.")
    _warn_if_constant(model, len(ytr))
    print(
        f"Scores on {where}, which the fit did not see"
        + (" (unweighted)" if weight is not None else "")
        + ":"
    )
    _report(model, task, yte, model.predict(Xte), Xte, ytr)
    for line in _unseen_categories(Xtr, Xte):
        print(line)
    model.treeboost_cli_ = {
        "target": args.target,
        "task": task,
        "columns": [str(c) for c in X.columns],
    }
    if dates:  # predict reads a file's dates as these were read, whatever its days tell
        model.treeboost_cli_["date_formats"] = {str(c): f.format for c, f in dates.items()}
    try:
        treeboost.save(model, args.output)  # atomic: a failure keeps the old file
    except OSError as exc:
        raise UserError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    print(f"model saved to {args.output}")
    return 0
