"""``treeboost explain``: a model's importances, its rules or one tree's text, or SHAP values
for the rows of a file."""

from __future__ import annotations

import sys
from typing import Any

from ._files import _check_output
from ._messages import UserError, _flush_notes, _pandas
from ._models import _count, _set_threads, _trees_of
from ._predict import _cli_info, _load_model, _read_model_input
from ._writing import _write_csv


def explain(args):
    if args.top < 1:
        raise UserError(f"--top must be at least 1, got {args.top}")
    if args.shap and args.data is None:
        raise UserError(
            "--shap needs a DATA.csv whose rows to explain: treeboost explain MODEL DATA.csv --shap"
        )
    if args.id is not None and args.data is None:
        raise UserError(
            "--id names the rows of a DATA.csv: treeboost explain MODEL DATA.csv --shap --id COL"
        )
    if args.output not in (None, "-"):
        _check_output(args.output, inputs=[args.model] + ([args.data] if args.data else []))
    _set_threads(args)
    model = _load_model(args.model)
    _set_threads(args, model)
    if args.data is not None:
        return _explain_rows(model, args)
    return _explain_model(model, args)


def _write_table(table, args, what):
    """``table`` (a DataFrame) as CSV to ``-o`` (``-`` for standard output), and a line
    saying so."""
    _write_csv(table, args, args.output)
    if args.output != "-":
        print(f"{what} written to {args.output}", file=sys.stderr)
    return 0


def _explain_rows(model, args):
    """Each row's largest SHAP values (see :mod:`treeboost._cli_shap`)."""
    from .._cli_shap import shap_lines

    try:
        from ..inspection import shap_values
    except ImportError as exc:  # a build without the SHAP module
        raise UserError(f"SHAP values are not available in this treeboost ({exc})") from None
    data = _read_model_input(model, args.data, args.id, args)
    _flush_notes()
    try:
        values, expected = shap_values(model, data.X)
    except (ValueError, TypeError) as exc:
        raise UserError(
            f"cannot compute SHAP values of {args.model} on {args.data}: {exc}"
        ) from None
    names = None
    if data.ids is not None:
        names = [f"{args.id} {v}" for v in data.ids.fillna("(missing)").astype(str)]
    target = _cli_info(model).get("target") or "y"
    if args.output is not None:
        return _write_table(
            _shap_table(model, data, values, expected, target, args),
            args,
            f"SHAP values of {len(data.X)} rows",
        )
    for line in shap_lines(
        model,
        data.X,
        values,
        expected,
        top=args.top,
        row_names=names,
        target=target,
        source=args.data,
    ):
        print(line)
    return 0


def _shap_table(model, data, values, expected, target, args):
    """One row per row of the data: its id (``--id``), the output explained, one column
    of SHAP values per feature, the expected value and the output (their sum)."""
    from .._cli_shap import explained_output

    pd = _pandas()
    shap = explained_output(model, data.X, values, expected, target)
    table = pd.DataFrame(shap.values, columns=[str(c) for c in data.X.columns])
    if data.ids is not None:
        table.insert(0, args.id, data.ids.to_numpy())
    table.insert(1 if data.ids is not None else 0, "explained_output", shap.label)
    table["expected_value"] = shap.expected
    table["output"] = shap.output
    return table


def _raw_score_note(model, index, target):
    """What the leaf values of a boosting tree are: raw scores, not probabilities."""
    import textwrap

    import numpy as np

    init = getattr(model, "init_score_", getattr(model, "_init_raw", None))
    per_iteration = len(model.trees_[0]) if getattr(model, "trees_", None) else 1
    iteration, k = divmod(index, per_iteration)
    total = "the sum"
    if init is not None:
        init = np.ravel(np.asarray(init, dtype=np.float64))
        total = f"the initial score {init[min(k, init.size - 1)]:.6f} plus the sum"
    if not hasattr(model, "classes_"):
        text = (
            f"Tree {index} is iteration {iteration}.  Leaf values are raw scores in the "
            f"target's units, learning rate included: a prediction is {total} of the "
            f"leaf values of every tree."
        )
    elif per_iteration == 1:
        text = (
            f"Tree {index} is iteration {iteration}.  Leaf values are raw scores, "
            f"log-odds of {target} = {model.classes_[-1]}, learning rate included, not "
            f"probabilities: the log-odds of a row are {total} of its leaf values over "
            f"all trees, and its probability is 1 / (1 + exp(-log-odds))."
        )
    else:
        text = (
            f"Tree {index} is iteration {iteration}, class {model.classes_[k]}.  Leaf "
            f"values are raw scores of {target} = {model.classes_[k]}, learning rate "
            f"included, not probabilities: a class's score is {total} of its trees' "
            f"leaf values, and softmax over the classes' scores gives the "
            f"probabilities."
        )
    # a long file or column name is moved whole to the next line, never cut
    return textwrap.fill(
        text,
        width=88,
        initial_indent="  ",
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def _explain_model(model, args):
    """One tree's rules, the feature importances and the boosting trace."""
    import numpy as np

    from ..inspection.rules import export_rules

    names = list(getattr(model, "feature_names_in_", [])) or None
    if args.output is not None:
        imp = getattr(model, "feature_importances_", None)
        if imp is None:
            raise UserError(f"{args.model} has no feature importances to write")
        names = names or [f"x{i}" for i in range(len(imp))]
        table = _pandas().DataFrame({"feature": names, "importance": imp})
        table = table.sort_values("importance", ascending=False, kind="stable")
        return _write_table(table, args, f"importances of {len(imp)} features")
    trees = _trees_of(model)
    if trees:
        if not 0 <= args.tree < len(trees):
            raise UserError(
                f"--tree {args.tree} is out of range: the model has {_count(len(trees), 'tree')}"
            )
        target = _cli_info(model).get("target")
        print(f"Rules of tree {args.tree} of {len(trees)}:")
        if hasattr(model, "trees_"):
            print(_raw_score_note(model, args.tree, target or "y"))
            k = len(model.trees_[0])
            index = (args.tree // k, args.tree % k)  # (iteration, class)
        else:
            index = args.tree
        # the exporters name a member's features itself (bagging may give it a subset)
        for rule in export_rules(model, target_name=target, tree_index=index):
            print("  " + rule)
    imp = getattr(model, "feature_importances_", None)
    if imp is not None:
        names = names or [f"x{i}" for i in range(len(imp))]
        print("\nFeature importances:")
        for i in np.argsort(imp)[::-1]:
            print(f"  {names[i]:<20} {imp[i]:.4f}")
    if hasattr(model, "train_score_") and len(getattr(model, "train_score_", [])):
        for line in _trace_lines(model):
            print(line)
    return 0


#: Iterations of the boosting trace printed first; the last one follows.
TRACE_HEAD = 5
#: What the losses' metric names mean, for the trace's heading.
_METRICS = {
    "binary_logloss": "log loss",
    "multi_logloss": "log loss",
    "l2/2": "half squared error",
    "l1": "absolute error",
}


def _trace_scale(model):
    """``(factor, name)``: ``train_score_`` is ``factor`` times the loss called ``name``
    (scikit-learn's GradientBoosting scores twice the log loss), or ``(1.0, None)``."""
    import numpy as np

    loss = getattr(model, "_loss", None)
    try:
        loss = loss if loss is not None else model._make_loss()
        scale = float(model._score_scale(loss))
    except Exception:  # a model without these helpers: its scores as they are
        return 1.0, None
    name: Any = getattr(loss, "metric_name", None)
    if not (np.isfinite(scale) and scale > 0):
        return 1.0, None
    return scale, _METRICS.get(name, name)


def _trace_lines(model):
    """The boosting trace: the first :data:`TRACE_HEAD` iterations and the last one, as
    the loss itself (``train_score_`` divided by its factor, said in the heading)."""
    scores = list(model.train_score_)
    val = list(getattr(model, "validation_score_", []))
    # HistGradientBoosting's early-stopping scores start before the first iteration
    first = 0 if len(scores) == getattr(model, "n_estimators_", -1) + 1 else 1
    scale, name = (1.0, None) if first == 0 else _trace_scale(model)
    if first == 0:
        what = "early-stopping score per iteration, 0 = before the first"
    elif name is None:
        what = "train_score_ per iteration"
    elif scale != 1:
        what = f"{name} per iteration: the model's train_score_ divided by {scale:g}"
    else:
        what = f"{name} per iteration (train_score_)"
    yield f"\nBoosting trace ({what}):"
    shown: list[int | None] = list(range(min(TRACE_HEAD, len(scores))))
    if len(scores) > TRACE_HEAD:
        if len(scores) > TRACE_HEAD + 1:
            shown.append(None)
        shown.append(len(scores) - 1)
    for i in shown:
        if i is None:
            yield f"  ... ({len(scores) - TRACE_HEAD - 1} iterations not shown)"
            continue
        v = f"  validation {val[i] / scale:.6f}" if len(val) > i else ""
        yield f"  [{i + first}] training {scores[i] / scale:.6f}{v}"
