"""The command line's grammar: subcommands, their options and their help."""

from __future__ import annotations

import argparse
from typing import Any

from ._columns import MIN_IDENTIFIER_VALUES
from ._compile import compile_kernels
from ._demo import demo
from ._explain import explain
from ._fit import fit
from ._models import MODELS
from ._predict import predict
from ._task import MAX_INTEGER_CLASSES


# -- entry point ------------------------------------------------------------------------------
class _HelpFormatter(argparse.HelpFormatter):
    """Each option's default after its help (when it has one: not for flags, required
    options or options that are off unless given)."""

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if not (
            default is None
            or default is False
            or default == argparse.SUPPRESS
            or action.required
            or "%(default)" in text
        ):
            text += " (default: %(default)s)"
        return text


class _MainHelpFormatter(_HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """The examples after the command list keep their lines."""


def _add_reading_options(p):
    """``--sep``, ``--encoding`` and ``--threads``, common to fit, predict and explain."""
    p.add_argument(
        "--sep",
        metavar="CHAR",
        help="the field separator of the CSV files (default: guessed from the "
        "first lines among comma, semicolon, tab and |)",
    )
    p.add_argument(
        "--decimal",
        metavar="CHAR",
        help="the decimal mark of the numbers in the CSV files, e.g. , (default: "
        "detected from the first lines: a comma where cells such as 12,5 or 1.234,5 "
        "read as numbers only so)",
    )
    p.add_argument(
        "--thousands",
        metavar="CHAR",
        help='the character that groups thousands in the numbers, e.g. , in "3,750", '
        ". in 3.750,5 or a space; none for no grouping (default: detected from the "
        "first lines)",
    )
    p.add_argument(
        "--encoding",
        default="utf-8",
        metavar="NAME",
        help="the text encoding of the CSV files read and written, e.g. latin-1",
    )
    p.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="threads of the engine and jobs of an ensemble (default: all cores)",
    )


def _add_writing_option(p):
    """``--no-escape-formulas``, for the commands that write CSV files."""
    p.add_argument(
        "--no-escape-formulas",
        action="store_true",
        help="write text cells and column names that start with = + - @, a tab, CR or LF "
        "as they are; by default a ' is put before them (numbers such as -1.5 stay "
        "numbers), so that a spreadsheet opening the file runs no formula",
    )


def _add_demo(sub, fmt):
    """The ``demo`` subcommand."""
    p = _subcommand(
        sub,
        fmt,
        "demo",
        demo,
        help="a single tree against the ensembles on Titanic",
        description="Cross-validate a single CART tree and every ensemble "
        "on the bundled Titanic data: one table, and three pictures.",
    )
    p.add_argument(
        "--out",
        default="treeboost-demo",
        metavar="DIR",
        help="folder for the pictures (created if needed)",
    )
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (>= 2)")
    _number_option(p, "--n-estimators", 100, "N", "trees per ensemble")
    p.add_argument("--no-plots", action="store_true", help="print the table only")


def _subcommand(sub, fmt, name, func, help, description):
    """The subparser of command ``name``, which runs ``func``."""
    p = sub.add_parser(name, help=help, description=description, **fmt)
    p.set_defaults(func=func)
    return p


def _number_option(p, flag, default, metavar, help):
    """An option of one number, of the type of its ``default`` (int or float)."""
    p.add_argument(flag, type=type(default), default=default, metavar=metavar, help=help)


def _add_fit(sub, fmt):
    """The ``fit`` subcommand."""
    p = _subcommand(
        sub,
        fmt,
        "fit",
        fit,
        help="fit a model on a CSV file and save it",
        description="Fit a model on a CSV file, print its metrics on a held-out part "
        "(accuracy, ROC AUC, log loss; or R2, MAE, RMSE) and save the model fitted on the "
        "rest (or, with --valid, on that file, fitting on all of DATA.csv).  Text columns "
        "become categorical, dates (2024-03-01, 06/15/2012, 15.06.2012) dates, empty "
        "cells stay missing; rows with an empty target are left out; decimal commas and "
        "thousands separators are detected.  Columns that identify rows (R's rownames "
        "or Unnamed: 0, text or integers counting rows, increasing down the file or named "
        f"as keys, in which no value repeats, at least {MIN_IDENTIFIER_VALUES} values: an "
        "id, a name) are not used as features.  A line on standard error names each of "
        "these decisions, and warns of a score no better than its baseline.  gbdt starts "
        "from "
        "LightGBM-style trees: 31 leaves grown best-first, second-order gain, "
        "min_samples_leaf=20 but at most a tenth of the training rows (so that a small "
        "file is learned from); the other models from their estimator's defaults.  "
        "--param overrides any of them.",
    )
    p.add_argument("data", metavar="DATA.csv", help="the training data, one row per sample")
    p.add_argument("--target", required=True, metavar="COL", help="the column to predict")
    p.add_argument(
        "--model",
        choices=sorted(MODELS),
        default="gbdt",
        help="gbdt: gradient boosting, rf: random forest, extratrees, bagging, "
        "adaboost, tree: one CART tree",
    )
    p.add_argument(
        "--param",
        action="append",
        metavar="KEY=VALUE",
        help="a parameter of the estimator, e.g. learning_rate=0.05 "
        "(repeatable; values are Python literals)",
    )
    p.add_argument(
        "--drop",
        action="append",
        metavar="COL[,COL]",
        help="columns not to use as features (repeatable)",
    )
    p.add_argument(
        "--keep-ids", action="store_true", help="use the identifier columns as features too"
    )
    _number_option(
        p, "--test-size", 0.2, "FRACTION", "fraction of the rows held out for the printed metrics"
    )
    p.add_argument(
        "--task",
        choices=["auto", "classification", "regression"],
        default="auto",
        help=f"auto: classification for text, booleans, two integers or at most "
        f"{MAX_INTEGER_CLASSES} consecutive integers (0..k, 1..k) in the target, else "
        "regression (counts with gaps, amounts, fractions); a note says which and why",
    )
    _number_option(p, "--random-state", 0, "SEED", "seed of the hold-out split")
    p.add_argument(
        "--valid",
        metavar="VALID.csv",
        help="score on this file (same columns) instead of holding out a part "
        "of DATA.csv; the model is then fitted on all of DATA.csv",
    )
    p.add_argument(
        "--weight",
        metavar="COL",
        help="a column of sample weights (numbers >= 0), not used as a feature",
    )
    _add_reading_options(p)
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="MODEL",
        help="the model file to write (e.g. model.tbm)",
    )


def _add_predict(sub, fmt):
    """The ``predict`` subcommand."""
    p = _subcommand(
        sub,
        fmt,
        "predict",
        predict,
        help="predict a CSV file with a saved model",
        description="Predict every row of a CSV file: one prediction column and, for "
        "classifiers, one probability column per class.  The file must hold the columns "
        "the model was fitted with; its other columns are ignored.",
    )
    _add_model_and_data(p, "the rows to predict")
    p.add_argument(
        "--id",
        metavar="COL",
        help="a column copied into the output, first (to join the predictions back), "
        "e.g. PassengerId: as written in the file, but for the ' before a cell a "
        "spreadsheet would run as a formula (see --no-escape-formulas)",
    )
    _add_csv_output(
        p,
        "where to write the predictions; - or none: standard output.  A device "
        "or FIFO (/dev/null) is written in place, a symbolic link's target "
        "is rewritten and the link kept",
    )


def _add_model_and_data(p, data_help, nargs=None):
    """The positional MODEL and DATA.csv of ``predict`` and ``explain``."""
    p.add_argument("model", metavar="MODEL", help="a model file written by fit")
    p.add_argument("data", metavar="DATA.csv", nargs=nargs, help=data_help)


def _add_csv_output(p, help):
    """``-o OUT.csv`` with the options of the CSV file written and of those read."""
    p.add_argument("-o", "--output", metavar="OUT.csv", help=help)
    _add_writing_option(p)
    _add_reading_options(p)


def _add_explain(sub, fmt):
    """The ``explain`` subcommand."""
    p = _subcommand(
        sub,
        fmt,
        "explain",
        explain,
        help="rules, importances and trace of a saved model; SHAP values of rows",
        description="Without DATA.csv: the rules of one tree, the feature importances and "
        "the boosting trace.  With DATA.csv (and --shap): for each row, the features with "
        "the largest SHAP values (exact TreeSHAP: the row's output is the expected value "
        "plus the sum of its features' SHAP values).",
    )
    _add_model_and_data(p, "rows to explain with SHAP values", nargs="?")
    _number_option(p, "--tree", 0, "N", "which tree's rules to print (0 = the first)")
    p.add_argument(
        "--shap", action="store_true", help="print each row's SHAP values (implied by DATA.csv)"
    )
    _number_option(p, "--top", 5, "K", "SHAP values shown per row: the K largest in absolute value")
    p.add_argument("--id", metavar="COL", help="a column of DATA.csv that names each row")
    _add_csv_output(
        p,
        "write a CSV file instead of printing (- for standard output): "
        "with DATA.csv, every feature's SHAP value of every row; without, "
        "the feature importances",
    )


def _add_compile(sub, fmt):
    """The ``compile`` subcommand."""
    p = _subcommand(
        sub,
        fmt,
        "compile",
        compile_kernels,
        help="compile the engine's kernels for this machine, once",
        description="Compile the numba kernels of the common fits into treeboost's own "
        "folder, so that a first fit loads them instead of compiling them.  Installing "
        "treeboost from its source does this; run it after installing a wheel built on "
        "another machine, or after an upgrade of numba.  The folder must be writable.",
    )
    _number_option(p, "--jobs", 2, "N", "processes that compile side by side")


def _parser():
    """The whole grammar: the program's options and one subparser per command."""
    fmt: dict[str, Any] = {"formatter_class": _HelpFormatter}
    parser = argparse.ArgumentParser(
        prog="treeboost",
        description="Decision trees and tree ensembles: fit a model on a\n"
        "CSV file, predict, explain; or run the demo.",
        epilog="Run `treeboost COMMAND --help` for a command's options.  Example:\n"
        "  treeboost fit train.csv --target Survived -o model.tbm\n"
        "  treeboost predict model.tbm test.csv --id PassengerId -o pred.csv\n"
        "  treeboost explain model.tbm test.csv --shap --top 3",
        formatter_class=_MainHelpFormatter,
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"treeboost {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_demo(sub, fmt)
    _add_fit(sub, fmt)
    _add_predict(sub, fmt)
    _add_explain(sub, fmt)
    _add_compile(sub, fmt)
    return parser
