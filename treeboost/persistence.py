"""A safe, portable model file: JSON for the structure, ``.npz`` for the arrays.

``save(model, path)`` writes a ZIP archive with ``model.json`` (the estimator's
parameters and fitted attributes, with type tags) and ``arrays.npz`` (every numeric array,
read back with ``allow_pickle=False``).  ``load(path)`` rebuilds only classes from an
allow-list of treeboost classes, never imports or calls anything named in the file, and
checks every tree (children in range, each node reached once, features in range) before
returning the model, so a crafted file cannot run code, crash or loop at predict time.

Three kinds of model part are checked on load: the binary :class:`~treeboost.engine.tree.Tree`
of the CART learners and ensembles (:func:`validate_tree`), the multiway
:class:`~treeboost.trees.classic.MultiwayTree` of ``ID3Classifier`` / ``C45Classifier`` with
the columns it tests (:func:`validate_multiway_tree`, :func:`validate_columns`), and the rule
list of ``RuleListClassifier`` (:func:`validate_rule_list`).  Every estimator's
hyperparameters are checked against its constraints, and the fitted attributes of the CART
trees and ensembles against each other (:func:`_validate_fitted`: the gradient-boosting
loss, initial score and trees per iteration; the members, their columns, classes and
weights of forests, bagging and AdaBoost).  A rule is stored as data (the
:class:`~treeboost.trees.export.Rule` and ``Condition`` dataclasses: numbers, strings and
category labels), never as code.
"""
import inspect
import io
import json
import zipfile

import numpy as np

FORMAT = "treeboost-model"
#: 2: Bagging keeps its draw counts as ``_draw_counts`` (``estimators_samples_`` became a
#: property) and forests ``_bootstrap_draws``; version-1 files are migrated on load
FORMAT_VERSION = 2
#: attributes rebuilt after loading instead of stored (caches)
_TRANSIENT = {"_packed", "_edge_table"}


def _allowed_classes():
    """Classes a model file may name: treeboost's estimators and their parts."""
    import treeboost
    from . import losses
    from .engine.binning import BinMapper
    from .trees.encoding import FeatureEncoder
    from .engine.tree import Tree
    from .trees.classic import _Column
    from .trees.export import Condition, Rule
    # Rule / Condition: the plain dataclasses a RuleListClassifier's rules are made of
    classes = [BinMapper, FeatureEncoder, Tree, _Column, Condition, Rule]
    classes += [getattr(losses, n) for n in losses.__all__]
    classes += [getattr(treeboost, n) for n in treeboost.__all__
                if isinstance(getattr(treeboost, n), type)]
    for extra in ("ensembles", "trees"):
        mod = getattr(treeboost, extra, None)
        for n in getattr(mod, "__all__", []):
            obj = getattr(mod, n, None)
            if isinstance(obj, type):
                classes.append(obj)
    allowed = {f"{c.__module__}.{c.__qualname__}": c for c in classes}
    # files written before the engine became its own package name its classes by their
    # old modules
    for old, new in _MOVED_MODULES.items():
        for name, cls in list(allowed.items()):
            if name.startswith(new + "."):
                allowed.setdefault(old + name[len(new):], cls)
    return allowed


#: modules that moved, old name -> new name (files keep naming the old one)
_MOVED_MODULES = {f"treeboost.trees.{m}": f"treeboost.engine.{m}"
                  for m in ("binning", "tree", "grower", "statistics")}


class _Encoder:
    def __init__(self):
        self.arrays = {}
        # canonical names come first; the aliases of moved modules are for reading only
        self.allowed = {v: k for k, v in reversed(list(_allowed_classes().items()))}
        self.objects = {}       # id -> reference number: shared parts stay shared

    def array(self, a):
        key = f"a{len(self.arrays)}"
        self.arrays[key] = a
        return {"__array__": key}

    def __call__(self, obj, where="model"):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, (int, float)) and not isinstance(obj, bool):
            if isinstance(obj, float) and not np.isfinite(obj):
                return {"__float__": repr(obj)}
            return obj
        if isinstance(obj, np.generic):
            return {"__scalar__": obj.dtype.str, "v": self(obj.item(), where)}
        if isinstance(obj, np.dtype) or (isinstance(obj, type) and issubclass(obj, np.generic)):
            return {"__dtype__": np.dtype(obj).str}
        if isinstance(obj, np.ndarray):
            if obj.dtype.kind in "biufc":
                return self.array(obj)
            if obj.dtype.kind in "UO":
                return {"__objarray__": [self(v, where) for v in obj.ravel().tolist()],
                        "shape": list(obj.shape), "dtype": obj.dtype.str}
            raise TypeError(f"{where}: arrays of dtype {obj.dtype} cannot be saved.")
        if isinstance(obj, tuple):
            return {"__tuple__": [self(v, where) for v in obj]}
        if isinstance(obj, list):
            return [self(v, f"{where}[{i}]") for i, v in enumerate(obj)]
        if isinstance(obj, dict):
            if not all(isinstance(k, str) for k in obj):
                return {"__items__": [[self(k, where), self(v, where)] for k, v in obj.items()]}
            return {"__dict__": {k: self(v, f"{where}.{k}") for k, v in obj.items()}}
        if isinstance(obj, np.random.RandomState):
            return {"__randomstate__": self(obj.get_state(), where)}
        if id(obj) in self.objects:
            return {"__ref__": self.objects[id(obj)]}
        name = self.allowed.get(type(obj))
        if name is None:
            raise TypeError(
                f"{where}: a {type(obj).__module__}.{type(obj).__qualname__} cannot be saved in "
                f"the safe format (only treeboost's own classes can); use pickle or joblib "
                f"for this model.")
        ref = len(self.objects)
        self.objects[id(obj)] = ref
        state = {k: self(v, f"{where}.{k}") for k, v in vars(obj).items()
                 if k not in _TRANSIENT}
        return {"__object__": name, "ref": ref, "state": state}


def save(model, path):
    """Write ``model`` to ``path`` in the safe format (see the module docstring)."""
    from . import __version__
    enc = _Encoder()
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "treeboost_version": __version__,
           "model": enc(model)}
    buf = io.BytesIO()
    np.savez(buf, **enc.arrays)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.json", json.dumps(doc))
        zf.writestr("arrays.npz", buf.getvalue())
    return path


class _Decoder:
    def __init__(self, arrays):
        self.arrays = arrays
        self.allowed = _allowed_classes()
        self.objects = {}

    def __call__(self, obj):
        if isinstance(obj, list):
            return [self(v) for v in obj]
        if not isinstance(obj, dict):
            return obj
        if "__array__" in obj:
            key = obj["__array__"]
            if key not in self.arrays:
                raise ValueError(f"the model file refers to a missing array {key!r}.")
            return self.arrays[key]
        if "__float__" in obj:
            return float(obj["__float__"])
        if "__scalar__" in obj:
            return np.dtype(obj["__scalar__"]).type(self(obj["v"]))
        if "__dtype__" in obj:
            return np.dtype(obj["__dtype__"])
        if "__objarray__" in obj:
            values = [self(v) for v in obj["__objarray__"]]
            out = np.empty(len(values), dtype=object)
            out[:] = values
            return out.astype(np.dtype(obj["dtype"])).reshape(obj["shape"])
        if "__tuple__" in obj:
            return tuple(self(v) for v in obj["__tuple__"])
        if "__items__" in obj:
            return {self(k): self(v) for k, v in obj["__items__"]}
        if "__dict__" in obj:
            return {k: self(v) for k, v in obj["__dict__"].items()}
        if "__randomstate__" in obj:
            rs = np.random.RandomState()
            rs.set_state(self(obj["__randomstate__"]))
            return rs
        if "__ref__" in obj:
            ref = obj["__ref__"]
            if ref not in self.objects:
                raise ValueError(f"the model file refers to an unknown object {ref!r}.")
            return self.objects[ref]
        if "__object__" in obj:
            cls = self.allowed.get(obj["__object__"])
            if cls is None:
                raise ValueError(f"the model file names a class that treeboost does not load: "
                                 f"{obj['__object__']!r}.")
            state = obj.get("state")
            if not isinstance(state, dict):
                raise ValueError(f"the model file has an object of {obj['__object__']!r} "
                                 f"without a state.")
            for k in state:
                _check_state_key(cls, k)
            inst = cls.__new__(cls)
            self.objects[obj.get("ref")] = inst     # registered first: references may follow
            inst.__dict__.update({k: self(v) for k, v in state.items()})
            return inst
        raise ValueError(f"unrecognised entry in the model file: {sorted(obj)[:3]}")


def _check_state_key(cls, key):
    """Refuse a stored attribute that would shadow a method or property of ``cls``.

    An instance attribute named like a method (``predict``, ``_route`` ...) would replace
    it: the model would then fail (or behave differently) at predict time.  Nothing that
    :func:`save` writes has such a name, so only a crafted file is refused.
    """
    if not isinstance(key, str) or (key.startswith("__") and key.endswith("__")):
        raise ValueError(f"the model file gives {cls.__qualname__} an attribute named "
                         f"{key!r}, which treeboost does not load.")
    attr = inspect.getattr_static(cls, key, None)
    if attr is not None and hasattr(type(attr), "__get__"):
        raise ValueError(f"the model file gives {cls.__qualname__} an attribute {key!r} "
                         f"that would replace its method or property of that name.")


def load(path):
    """Read a model written by :func:`save`; refuses anything else with a ValueError."""
    try:
        with zipfile.ZipFile(path) as zf:
            doc = json.loads(zf.read("model.json").decode("utf-8"))
            raw = zf.read("arrays.npz")
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError, json.JSONDecodeError,
            EOFError) as exc:
        raise ValueError(f"{path} is not a treeboost model file ({exc}).") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path} is not a treeboost model file.")
    version = doc.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ValueError(f"{path} has model format version {version!r}; this treeboost reads "
                         f"versions up to {FORMAT_VERSION}: upgrade treeboost.")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"{path}: the arrays of the model file are unreadable ({exc}).") \
            from None
    try:
        if version < 2:
            _migrate_v1(doc["model"])
        model = _Decoder(arrays)(doc["model"])
        _validate(model)
        if hasattr(model, "_packer") and hasattr(model, "trees_"):
            model._packed = None
            model._packer()
    except (TypeError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError) as exc:
        # a value of the wrong type or shape somewhere in a hand-edited file: nothing was
        # run (the decoder only builds data), so this is one more malformed file
        raise ValueError(f"{path}: malformed model file ({type(exc).__name__}: {exc}).") \
            from None
    return model


def _migrate_v1(obj):
    """Version 1 stored a bagging ensemble's draw counts as ``estimators_samples_``, now a
    property (renamed to ``_draw_counts``).  Its forests lack ``_bootstrap_draws``: they
    load and predict, only their ``estimators_samples_`` is unknown."""
    if isinstance(obj, list):
        for v in obj:
            _migrate_v1(v)
    elif isinstance(obj, dict):
        state = obj.get("state")
        if isinstance(state, dict) and str(obj.get("__object__", "")).startswith(
                "treeboost.ensembles.bagging.") and "estimators_samples_" in state:
            state["_draw_counts"] = state.pop("estimators_samples_")
        for v in obj.values():
            _migrate_v1(v)


def _validate(model):
    """Check every estimator, tree and rule list reachable from the model; raise ValueError
    on inconsistency.

    Each estimator's parameters are checked against its constraints and its fitted
    attributes against each other (:func:`_validate_fitted`); each binary tree is checked
    against the number of features of the nearest estimator that holds it (a bagging
    member fitted on a subset of the columns predicts on that subset only).
    """
    from .trees.classic import BaseClassicTree, MultiwayTree
    from .trees.cart import DecisionTreeClassifier, DecisionTreeRegressor
    from .trees.encoding import FeatureEncoder
    from .trees.rules import RuleListClassifier
    from .engine.tree import Tree
    seen = set()

    def walk(obj, where, n_features):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, Tree):
            validate_tree(obj, n_features, where)
        elif isinstance(obj, MultiwayTree):
            # a multiway tree outside a classic estimator: its structure only
            validate_multiway_tree(obj, obj.n_features, where=where)
        elif isinstance(obj, (list, tuple)):
            for i, v in enumerate(obj):
                walk(v, f"{where}[{i}]", n_features)
        elif isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, f"{where}.{k}", n_features)
        elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("treeboost"):
            _check_feature_names(obj, where)
            if isinstance(obj, FeatureEncoder):
                _check_encoder(obj, where)
            # the parts every fitted estimator calls at predict must be of their class
            state = vars(obj)
            if "_encoder" in state and not isinstance(state["_encoder"], FeatureEncoder):
                raise ValueError(f"{where}._encoder: not an input encoder.")
            if isinstance(obj, (DecisionTreeClassifier, DecisionTreeRegressor)) and \
                    "tree_" in state and not isinstance(state["tree_"], Tree):
                raise ValueError(f"{where}.tree_: not a Tree.")
            _check_params(obj, where)
            _validate_fitted(obj, where)
            if isinstance(obj, BaseClassicTree):
                # its trees are checked against its columns and classes, then skipped
                for name in _validate_classic(obj, where):
                    seen.add(id(getattr(obj, name)))
            nf = state.get("n_features_in_", n_features)
            for k, v in vars(obj).items():
                walk(v, f"{where}.{k}", nf)
            if isinstance(obj, RuleListClassifier):
                validate_rule_list(obj, where)      # after its tree, which it reads
    walk(model, "model", getattr(model, "n_features_in_", None))


def _check_params(est, where):
    """The hyperparameters of a loaded estimator, checked as ``fit`` checks them.

    ``fit`` would refuse a bad value only at the next (warm-start) fit; some are read
    elsewhere too (``voting``, ``learning_rate`` ...), so a file with one is refused now.
    """
    from sklearn.base import BaseEstimator
    from sklearn.utils._param_validation import InvalidParameterError
    if not isinstance(est, BaseEstimator) or not hasattr(type(est), "_parameter_constraints"):
        return
    try:
        est._validate_params()
    except InvalidParameterError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _validate_fitted(est, where):
    """Check the fitted attributes of a CART tree or an ensemble against each other.

    Only the estimator's own attributes: its trees and members are checked when the walk
    of :func:`_validate` reaches them.  Raises ValueError naming the attribute.
    """
    from .ensembles.adaboost import BaseAdaBoost
    from .ensembles.bagging import BaseBagging
    from .ensembles.forest import BaseForest
    from .ensembles.gradient_boosting import BaseGradientBoosting
    from .trees.cart import BaseDecisionTree
    if isinstance(est, BaseDecisionTree) and "tree_" in vars(est):
        _check_cart(est, where)
    elif isinstance(est, BaseGradientBoosting) and "trees_" in vars(est):
        _check_gradient_boosting(est, where)
    elif isinstance(est, (BaseForest, BaseBagging, BaseAdaBoost)) and \
            "estimators_" in vars(est):
        _check_members(est, where)
        if isinstance(est, BaseForest):
            _check_forest(est, where)
        elif isinstance(est, BaseBagging):
            _check_bagging(est, where)
        else:
            _check_adaboost(est, where)


def _check_classes(est, where, at_least=1):
    """``classes_`` (sorted distinct labels: predictions index it, searchsorted maps
    members' labels into it) and ``n_classes_``; returns the number of classes."""
    classes = vars(est).get("classes_")
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or \
            classes.size < at_least or not _labels_ok(classes):
        raise ValueError(f"{where}.classes_: must be a 1-dimensional array of at least "
                         f"{at_least} labels.")
    try:
        ordered = np.all(classes[1:] > classes[:-1])
    except TypeError:
        ordered = False
    if not ordered:
        raise ValueError(f"{where}.classes_: the labels must be sorted and distinct.")
    n = vars(est).get("n_classes_")
    if not _is_int(n) or n != classes.size:
        raise ValueError(f"{where}.n_classes_: must be the number of classes_ "
                         f"({classes.size}), got {n!r}.")
    return classes.size


def _tree_value(tree, where, width, finite):
    """The leaf values of a binary tree: ``width`` columns of numbers."""
    value = getattr(tree, "value", None)
    if not isinstance(value, np.ndarray) or value.ndim != 2 or value.shape[1] != width or \
            value.dtype.kind != "f" or (finite and not np.all(np.isfinite(value))):
        raise ValueError(f"{where}.value: must be a float array with {width} column(s)"
                         f"{' of finite numbers' if finite else ''}.")


def _check_cart(est, where):
    """A fitted CART tree: one value column per class (finite class fractions) or one
    column (the regression mean)."""
    from sklearn.base import ClassifierMixin
    if isinstance(est, ClassifierMixin):
        K = _check_classes(est, where)
        _tree_value(est.tree_, f"{where}.tree_", K, finite=True)
        value = est.tree_.value
        # predict_proba returns these rows (averaged by the ensembles) as they are
        if np.any(value < 0) or np.any(np.abs(value.sum(axis=1) - 1) > 1e-6):
            raise ValueError(f"{where}.tree_.value: class fractions must be >= 0 and sum "
                             f"to 1 in every node.")
    else:
        _tree_value(est.tree_, f"{where}.tree_", 1, finite=False)


def _known_losses():
    from . import losses
    # loss class -> the instance attributes it has (nothing else may be set: a stored
    # ``n_outputs`` would override the class's)
    return {losses.SquaredError: set(), losses.AbsoluteError: set(),
            losses.HuberLoss: {"alpha", "delta"}, losses.QuantileLoss: {"alpha"},
            losses.BinaryLogLoss: set(), losses.MultinomialLogLoss: {"n_classes", "n_outputs"}}


def _check_loss(loss, where, n_classes):
    """``_loss`` of a gradient-boosting model: a known loss of the right kind (binary or
    multinomial log-loss over ``n_classes`` for a classifier, a regression loss when
    ``n_classes`` is None) with valid parameters; returns its number of outputs."""
    from . import losses
    known = _known_losses()
    if type(loss) not in known or set(vars(loss)) != known[type(loss)]:
        raise ValueError(f"{where}: not one of treeboost's losses "
                         f"({', '.join(c.__name__ for c in known)}) with its attributes.")
    if n_classes is None:
        if loss.is_classification or type(loss) in (losses.BinaryLogLoss,
                                                    losses.MultinomialLogLoss):
            raise ValueError(f"{where}: a regressor needs a regression loss, got "
                             f"{type(loss).__name__}.")
    elif n_classes == 2:
        if type(loss) is not losses.BinaryLogLoss:
            raise ValueError(f"{where}: two classes need BinaryLogLoss, got "
                             f"{type(loss).__name__}.")
    elif type(loss) is not losses.MultinomialLogLoss or not _is_int(loss.n_classes) or \
            loss.n_classes != n_classes or loss.n_outputs != n_classes:
        raise ValueError(f"{where}: {n_classes} classes need MultinomialLogLoss with "
                         f"n_classes = n_outputs = {n_classes}.")
    if "alpha" in vars(loss) and not (_is_real(loss.alpha) and 0 < loss.alpha < 1):
        raise ValueError(f"{where}.alpha: must be a number in (0, 1), got {loss.alpha!r}.")
    if "delta" in vars(loss) and not (loss.delta is None or (
            _is_real(loss.delta) and np.isfinite(loss.delta) and loss.delta >= 0)):
        raise ValueError(f"{where}.delta: must be None or a finite number >= 0, got "
                         f"{loss.delta!r}.")
    return loss.n_outputs


def _check_gradient_boosting(est, where):
    """``trees_`` (one list of K trees per iteration, one value column each), ``_loss``,
    ``_init_raw`` (K finite scores), ``n_estimators_`` and the score arrays."""
    from sklearn.base import ClassifierMixin
    from .engine.binning import BinMapper
    from .engine.tree import Tree
    state = vars(est)
    n_classes = _check_classes(est, where, at_least=2) \
        if isinstance(est, ClassifierMixin) else None
    if "_loss" not in state:
        raise ValueError(f"{where}: a fitted model without its _loss.")
    K = _check_loss(state["_loss"], f"{where}._loss", n_classes)
    init = state.get("_init_raw")
    if not isinstance(init, np.ndarray) or init.shape != (K,) or init.dtype.kind != "f" or \
            not np.all(np.isfinite(init)):
        raise ValueError(f"{where}._init_raw: must be {K} finite float score(s).")
    trees = state["trees_"]
    if not isinstance(trees, list) or any(
            not isinstance(t, list) or len(t) != K or
            not all(isinstance(tree, Tree) for tree in t) for t in trees):
        raise ValueError(f"{where}.trees_: must be a list holding, per iteration, a list of "
                         f"{K} Tree(s) (one per output).")
    for i, t in enumerate(trees):
        for k, tree in enumerate(t):
            _tree_value(tree, f"{where}.trees_[{i}][{k}]", 1, finite=False)
    n_iter = state.get("n_estimators_")
    if not _is_int(n_iter) or n_iter != len(trees):
        raise ValueError(f"{where}.n_estimators_: must be the number of iterations in "
                         f"trees_ ({len(trees)}), got {n_iter!r}.")
    for name, most in (("train_score_", len(trees)), ("validation_score_", len(trees))):
        a = state.get(name)
        if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "f" or \
                a.size > most or (name == "train_score_" and a.size != most):
            raise ValueError(f"{where}.{name}: must be a 1-dimensional float array of one "
                             f"score per iteration.")
    if not isinstance(state.get("bin_mapper_"), BinMapper):
        raise ValueError(f"{where}.bin_mapper_: not a BinMapper.")


def _check_members(est, where):
    """``estimators_`` of a forest, bagging or AdaBoost model: a non-empty list of fitted
    treeboost estimators of the ensemble's kind (classifier or regressor)."""
    from sklearn.base import BaseEstimator, ClassifierMixin, is_classifier, is_regressor
    members = vars(est)["estimators_"]
    if not isinstance(members, list) or not members:
        raise ValueError(f"{where}.estimators_: must be a non-empty list of estimators.")
    classifier = isinstance(est, ClassifierMixin)
    if classifier:
        _check_classes(est, where)
    for i, m in enumerate(members):
        kind_ok = isinstance(m, BaseEstimator) and (
            is_classifier(m) if classifier else is_regressor(m))
        if not kind_ok or "n_features_in_" not in vars(m):
            raise ValueError(f"{where}.estimators_[{i}]: not a fitted "
                             f"{'classifier' if classifier else 'regressor'}.")
        if classifier:
            mc = vars(m).get("classes_")
            # members' labels are mapped into classes_ with searchsorted
            if not isinstance(mc, np.ndarray) or mc.ndim != 1 or \
                    not set(_hashable_labels(mc)) <= set(_hashable_labels(est.classes_)):
                raise ValueError(f"{where}.estimators_[{i}].classes_: must be among the "
                                 f"ensemble's classes_.")


def _hashable_labels(a):
    return [v if _is_hashable(v) else repr(v) for v in a.tolist()]


def _check_same_input(est, m, where):
    """A member that predicts on the ensemble's encoded input directly (its tree reads
    it): same number of features, and the same classes for a classifier."""
    if m.n_features_in_ != est.n_features_in_:
        raise ValueError(f"{where}.n_features_in_: the member has {m.n_features_in_} "
                         f"features, the ensemble {est.n_features_in_}.")
    if "classes_" in vars(est) and not np.array_equal(m.classes_, est.classes_):
        raise ValueError(f"{where}.classes_: the member's classes differ from the "
                         f"ensemble's.")


def _check_forest(est, where):
    """Forest members are CART trees of the forest's kind on the forest's encoded input
    (their ``tree_`` is read directly); ``_oob_bits`` holds one packed mask per tree,
    ``_bootstrap_draws`` the size of its sample."""
    from sklearn.base import ClassifierMixin
    from .trees.cart import DecisionTreeClassifier, DecisionTreeRegressor
    cls = DecisionTreeClassifier if isinstance(est, ClassifierMixin) else DecisionTreeRegressor
    for i, m in enumerate(est.estimators_):
        if type(m) is not cls or "tree_" not in vars(m):
            raise ValueError(f"{where}.estimators_[{i}]: not a fitted {cls.__name__}.")
        _check_same_input(est, m, f"{where}.estimators_[{i}]")
    bits = vars(est).get("_oob_bits")
    if not isinstance(bits, list) or len(bits) != len(est.estimators_) or any(
            not isinstance(b, np.ndarray) or b.dtype != np.uint8 or b.ndim != 1
            for b in bits):
        raise ValueError(f"{where}._oob_bits: must hold one uint8 array per tree.")
    if "_bootstrap_draws" not in vars(est):
        return      # a version-1 file: it predicts; estimators_samples_ says it is unknown
    draws = est._bootstrap_draws
    if not isinstance(draws, np.ndarray) or draws.dtype.kind not in "iu" or \
            draws.shape != (len(est.estimators_), 2) or np.any(draws < 0) or \
            np.any(draws[:, 0] < 1) or any(b.size != (n + 7) // 8
                                           for b, n in zip(bits, draws[:, 0])):
        raise ValueError(f"{where}._bootstrap_draws: must hold (rows, draws) per tree, "
                         f"the rows matching its out-of-bag mask.")


def _check_bagging(est, where):
    """``_draw_counts`` (each member's draw counts) and ``estimators_features_`` (the
    columns each member reads: in range, as many as the member has features) match
    ``estimators_`` one for one."""
    state = vars(est)
    members = est.estimators_
    n = len(members)
    samples, feats = state.get("_draw_counts"), state.get("estimators_features_")
    if not isinstance(samples, list) or len(samples) != n or any(
            not isinstance(c, np.ndarray) or c.ndim != 1 or c.dtype.kind not in "iu" or
            c.shape != samples[0].shape or np.any(c < 0) for c in samples):
        raise ValueError(f"{where}._draw_counts: must hold one array of "
                         f"non-negative counts per member, all of the same length.")
    if not isinstance(feats, list) or len(feats) != n:
        raise ValueError(f"{where}.estimators_features_: must hold one array of column "
                         f"indices per member.")
    p = est.n_features_in_
    for i, (m, f) in enumerate(zip(members, feats)):
        w = f"{where}.estimators_features_[{i}]"
        if not isinstance(f, np.ndarray) or f.ndim != 1 or f.dtype.kind not in "iu" or \
                f.size < 1 or np.any(f < 0) or np.any(f >= p):
            raise ValueError(f"{w}: must be a non-empty array of column indices in "
                             f"[0, {p}).")
        if m.n_features_in_ != f.size:
            raise ValueError(f"{w}: the member reads {f.size} column(s) but has "
                             f"{m.n_features_in_} features.")
        full = f.size == p and np.array_equal(f, np.arange(p))
        if full and getattr(m, "_encoder", None) is est._encoder and \
                getattr(m, "tree_", None) is not None:
            _check_same_input(est, m, f"{where}.estimators_[{i}]")


def _check_adaboost(est, where):
    """``estimator_weights_`` (one positive finite weight per member: the vote and the
    weighted median divide by their running sum) and ``estimator_errors_``."""
    from .trees.cart import BaseDecisionTree
    state = vars(est)
    n = len(est.estimators_)
    weights, errors = state.get("estimator_weights_"), state.get("estimator_errors_")
    if not isinstance(weights, np.ndarray) or weights.shape != (n,) or \
            weights.dtype.kind != "f" or not np.all(np.isfinite(weights)) or \
            np.any(weights <= 0):
        raise ValueError(f"{where}.estimator_weights_: must hold {n} finite positive "
                         f"weight(s), one per member.")
    if not isinstance(errors, np.ndarray) or errors.shape != (n,) or \
            errors.dtype.kind != "f":
        raise ValueError(f"{where}.estimator_errors_: must hold {n} error(s), one per "
                         f"member.")
    for i, m in enumerate(est.estimators_):
        w = f"{where}.estimators_[{i}]"
        if isinstance(m, BaseDecisionTree) and getattr(m, "_encoder", None) is est._encoder:
            _check_same_input(est, m, w)       # its tree reads the ensemble's input
        elif m.n_features_in_ != est.n_features_in_:
            raise ValueError(f"{w}.n_features_in_: the member has {m.n_features_in_} "
                             f"features, the ensemble {est.n_features_in_}.")


def _check_encoder(enc, where):
    """A fitted :class:`FeatureEncoder`: one flag and one category array (or None) per
    column, the categories being labels (they are sorted and searched at predict)."""
    state = vars(enc)
    if "is_categorical_" not in state:
        return                   # not fitted
    flags, cats = enc.is_categorical_, state.get("categories_")
    if not isinstance(flags, np.ndarray) or flags.dtype != bool or flags.ndim != 1 or \
            not isinstance(cats, list) or len(cats) != flags.shape[0]:
        raise ValueError(f"{where}: the input encoder needs one categorical flag and one "
                         f"category list per column.")
    for f, (flag, c) in enumerate(zip(flags.tolist(), cats)):
        if (c is None) == flag or (flag and (not isinstance(c, np.ndarray) or c.ndim != 1
                                             or not _labels_ok(c))):
            raise ValueError(f"{where}: column {f} of the input encoder has malformed "
                             f"categories.")


def _check_feature_names(obj, where):
    """``n_features_in_`` / ``feature_names_in_`` of a fitted estimator (read by
    scikit-learn's input checks at every predict)."""
    state = vars(obj)
    if "n_features_in_" in state and (not _is_int(obj.n_features_in_)
                                      or obj.n_features_in_ < 1):
        raise ValueError(f"{where}: n_features_in_ must be a positive integer.")
    enc = state.get("_encoder")
    flags = vars(enc).get("is_categorical_") if hasattr(enc, "__dict__") else None
    if "n_features_in_" in state and isinstance(flags, np.ndarray) and \
            flags.shape[:1] != (obj.n_features_in_,):
        # the encoder emits one column per feature it learned; the trees read them
        raise ValueError(f"{where}.n_features_in_: {obj.n_features_in_} features, but the "
                         f"input encoder has {flags.shape[0] if flags.ndim else 0} columns.")
    if "feature_names_in_" in state:
        names = obj.feature_names_in_
        if not isinstance(names, np.ndarray) or names.ndim != 1 or \
                names.shape[0] != state.get("n_features_in_") or \
                not all(isinstance(v, str) for v in names.tolist()):
            raise ValueError(f"{where}: feature_names_in_ must hold one name (a string) "
                             f"per feature.")
    if "classes_" in state and (not isinstance(obj.classes_, np.ndarray)
                                or obj.classes_.ndim != 1 or obj.classes_.size < 1):
        raise ValueError(f"{where}: classes_ must be a non-empty 1-dimensional array.")


def validate_tree(tree, n_features, where="tree"):
    """Raise ValueError unless ``tree`` is a well-formed binary tree over ``n_features``."""
    try:
        left = np.asarray(tree.children_left)
        right = np.asarray(tree.children_right)
        n = left.shape[0]
        arrays = {name: np.asarray(getattr(tree, name)) for name in tree._arrays}
    except AttributeError as exc:
        raise ValueError(f"{where}: incomplete tree ({exc}).") from None
    for name, a in arrays.items():
        if a.shape[0] != n:
            raise ValueError(f"{where}: {name} has {a.shape[0]} rows, the tree has {n} nodes.")
    if n == 0:
        raise ValueError(f"{where}: empty tree.")
    if left.dtype.kind not in "iu" or right.dtype.kind not in "iu":
        raise ValueError(f"{where}: children must be integers.")
    leaf = left == -1
    if np.any(leaf != (right == -1)):
        raise ValueError(f"{where}: a node has exactly one child.")
    ids = np.arange(n)
    internal = ~leaf
    # children come after their parent: no cycle is possible, and every id is in range
    for child in (left, right):
        c = child[internal]
        if np.any(c <= ids[internal]) or np.any(c >= n):
            raise ValueError(f"{where}: a child index is out of range or points backwards.")
    parents = np.concatenate([left[internal], right[internal]])
    if np.unique(parents).size != parents.size or parents.size != n - 1:
        raise ValueError(f"{where}: the nodes do not form a tree (a node with two parents or "
                         f"an unreachable node).")
    feature = arrays["feature"]
    nf = tree.n_features if n_features is None else n_features
    if np.any(feature[internal] < 0) or np.any(feature[internal] >= nf):
        raise ValueError(f"{where}: a split feature index is outside [0, {nf}).")
    if arrays["value"].ndim != 2:
        raise ValueError(f"{where}: value must be 2-dimensional.")
    if arrays["categories_left"].ndim != 2 or arrays["categories_left"].shape[1] != 4:
        raise ValueError(f"{where}: categories_left must have shape (n_nodes, 4).")


def _int_array(a, where, name, ndim=1):
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "iu" or a.ndim != ndim:
        raise ValueError(f"{where}: {name} must be a {ndim}-dimensional integer array.")
    return a


def _float_array(a, where, name, ndim=1, finite=True):
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "iuf" or a.ndim != ndim:
        raise ValueError(f"{where}: {name} must be a {ndim}-dimensional array of numbers.")
    if finite and not np.all(np.isfinite(a)):
        raise ValueError(f"{where}: {name} has NaN or infinite values.")
    return a


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_real(v):
    return isinstance(v, (int, float, np.integer, np.floating)) and \
        not isinstance(v, (bool, np.bool_))


#: keys of the split report of an internal multiway node (see classic._Grower._split)
_REPORT_ARRAYS = ("gain", "split_info", "admissible", "threshold", "rank")


def validate_multiway_tree(tree, n_features, n_classes=None, columns=None, where="tree"):
    """Raise ValueError unless ``tree`` is a well-formed :class:`MultiwayTree`.

    Parameters
    ----------
    tree : MultiwayTree
    n_features : int
        Number of input columns; every tested attribute must be below it.
    n_classes : int or None, default=None
        Number of classes of the estimator (the columns of ``value``).
    columns : list of _Column or None, default=None
        The estimator's columns (already checked by :func:`validate_columns`): a
        categorical node must test a categorical column and have one branch per category,
        a continuous node a continuous column, two branches and a finite threshold.
    where : str
        Where the tree sits in the model, for the error message.

    Notes
    -----
    Node ids must satisfy ``child > parent`` (the grower and :meth:`MultiwayTree.subtree`
    number parents first), and every node but the root must be the child of exactly one
    node.  Together these rule out cycles, shared and unreachable nodes, so that
    ``node_weights`` (one pass over the nodes in id order) and the pruning and rule
    walks visit each node once.
    """
    state = vars(tree)
    needed = ("n_features", "feature", "is_categorical", "threshold", "children",
              "branch_fraction", "value", "weighted_n_node_samples", "n_node_samples",
              "impurity", "depth", "parent", "report")
    missing = [k for k in needed if k not in state]
    if missing:
        raise ValueError(f"{where}: incomplete multiway tree (no {', '.join(missing)}).")
    if not _is_int(tree.n_features) or tree.n_features != n_features:
        raise ValueError(f"{where}: the tree has n_features={tree.n_features!r}, the model "
                         f"has {n_features} features.")
    feature = _int_array(tree.feature, where, "feature")
    n = feature.shape[0]
    if n == 0:
        raise ValueError(f"{where}: empty tree.")
    is_cat = tree.is_categorical
    if not isinstance(is_cat, np.ndarray) or is_cat.dtype != bool or is_cat.ndim != 1:
        raise ValueError(f"{where}: is_categorical must be a 1-dimensional boolean array.")
    per_node = {"is_categorical": is_cat,
                "threshold": _float_array(tree.threshold, where, "threshold", finite=False),
                "value": _float_array(tree.value, where, "value", ndim=2),
                "depth": _int_array(tree.depth, where, "depth"),
                "parent": _int_array(tree.parent, where, "parent")}
    for name in ("weighted_n_node_samples", "n_node_samples", "impurity"):
        per_node[name] = _float_array(getattr(tree, name), where, name)
    for name in ("children", "branch_fraction", "report"):
        if not isinstance(getattr(tree, name), list):
            raise ValueError(f"{where}: {name} must be a list (one entry per node).")
        per_node[name] = getattr(tree, name)
    if "node_map_" in state:
        per_node["node_map_"] = _int_array(tree.node_map_, where, "node_map_")
    for name, a in per_node.items():
        if len(a) != n:
            raise ValueError(f"{where}: {name} has {len(a)} entries, the tree has {n} nodes.")
    value = per_node["value"]
    if n_classes is not None and value.shape[1] != n_classes:
        raise ValueError(f"{where}: value has {value.shape[1]} columns, the model has "
                         f"{n_classes} classes.")
    if np.any(value < 0) or np.any(value.sum(axis=1) <= 0):
        raise ValueError(f"{where}: a node's class distribution is negative or empty.")
    threshold, depth, parent = per_node["threshold"], per_node["depth"], per_node["parent"]
    if parent[0] != -1 or depth[0] != 0:
        raise ValueError(f"{where}: the root (node 0) must have parent -1 and depth 0.")

    n_children = 0
    for i in range(n):
        kids, frac, rep = tree.children[i], tree.branch_fraction[i], tree.report[i]
        kids = _int_array(kids, where, f"children[{i}]")
        frac = _float_array(frac, where, f"branch_fraction[{i}]")
        f = int(feature[i])
        if f < 0:
            if f != -1 or kids.size or frac.size or is_cat[i] or not np.isnan(threshold[i]) \
                    or rep is not None:
                raise ValueError(f"{where}: leaf {i} must have feature -1, no children, no "
                                 f"branch fractions, no threshold and no split report.")
            continue
        if f >= n_features:
            raise ValueError(f"{where}: node {i} tests feature index {f}, outside "
                             f"[0, {n_features}).")
        if kids.size < 2:
            raise ValueError(f"{where}: internal node {i} has {kids.size} children (a split "
                             f"has at least two branches).")
        # children after their parent: no cycle is possible, and every id is in range
        if np.any(kids <= i) or np.any(kids >= n):
            raise ValueError(f"{where}: node {i} has a child index out of range or pointing "
                             f"backwards ({kids.tolist()}; the tree has {n} nodes).")
        if is_cat[i]:
            if not np.isnan(threshold[i]):
                raise ValueError(f"{where}: categorical node {i} has a threshold "
                                 f"({threshold[i]!r}); a categorical test has none.")
        elif kids.size != 2 or not np.isfinite(threshold[i]):
            raise ValueError(f"{where}: continuous node {i} must have two children and a "
                             f"finite threshold.")
        if columns is not None:
            col = columns[f]
            if is_cat[i] != (col.kind != "num"):
                raise ValueError(
                    f"{where}: node {i} makes a {'categorical' if is_cat[i] else 'threshold'} "
                    f"test on the {'continuous' if col.kind == 'num' else 'categorical'} "
                    f"column {f}.")
            if is_cat[i] and kids.size != len(col.categories):
                raise ValueError(f"{where}: categorical node {i} has {kids.size} branches, "
                                 f"column {f} has {len(col.categories)} categories (one "
                                 f"branch per category).")
        if frac.shape != kids.shape or np.any(frac < 0) or abs(frac.sum() - 1.0) > 1e-6:
            raise ValueError(f"{where}: branch_fraction[{i}] must hold one share >= 0 per "
                             f"branch ({kids.size}), summing to 1.")
        if np.any(parent[kids] != i) or np.any(depth[kids] != depth[i] + 1):
            raise ValueError(f"{where}: parent / depth of the children of node {i} do not "
                             f"match the children lists.")
        _check_report(rep, n_features, f, where, i)
        n_children += kids.size
    # each node but the root is the child of exactly one node: no shared or lost node
    parents_of = np.concatenate([np.asarray(tree.children[i]) for i in range(n)
                                 if feature[i] >= 0] or [np.empty(0, np.int64)])
    if n_children != n - 1 or np.unique(parents_of).size != parents_of.size:
        raise ValueError(f"{where}: the nodes do not form a tree (a node reachable twice, or "
                         f"an unreachable node).")


def _check_report(rep, n_features, f, where, i):
    """The split report of internal node ``i`` (read by ``split_report`` / ``gains_``)."""
    bad = ValueError(f"{where}: the split report of node {i} is malformed.")
    if not isinstance(rep, dict) or not {"entropy", "chosen", *_REPORT_ARRAYS} <= set(rep):
        raise bad
    for name in _REPORT_ARRAYS:
        a = rep[name]
        if not isinstance(a, np.ndarray) or a.shape != (n_features,) or \
                a.dtype.kind not in ("b" if name == "admissible" else "iuf"):
            raise bad
    if not _is_real(rep["entropy"]) or not _is_int(rep["chosen"]) or rep["chosen"] != f:
        raise bad


_COLUMN_KINDS = ("cat", "int", "bin", "num")


def validate_columns(columns, n_features, allow_continuous=True, encoder=None,
                     where="model._columns"):
    """Raise ValueError unless ``columns`` describe ``n_features`` inputs of a classic tree.

    ``"cat"`` columns hold the encoder's categories (the codes it emits index the
    branches), ``"int"`` columns the sorted distinct values (found by binary search),
    ``"bin"`` columns sorted finite cut points and one label per interval, ``"num"``
    columns (C4.5 only) nothing.
    """
    from .trees.classic import _Column
    if not isinstance(columns, list) or len(columns) != n_features:
        raise ValueError(f"{where}: must be a list of {n_features} columns.")
    enc_cat = getattr(encoder, "is_categorical_", None)
    enc_cats = getattr(encoder, "categories_", None)
    for f, col in enumerate(columns):
        w = f"{where}[{f}]"
        if type(col) is not _Column or set(vars(col)) != {"kind", "categories", "edges"}:
            raise ValueError(f"{w}: not a column description.")
        if col.kind not in _COLUMN_KINDS:
            raise ValueError(f"{w}: unknown column kind {col.kind!r} (expected one of "
                             f"{', '.join(_COLUMN_KINDS)}).")
        if col.kind == "num":
            if not allow_continuous:
                raise ValueError(f"{w}: ID3 has no continuous columns.")
            if col.categories is not None or col.edges is not None:
                raise ValueError(f"{w}: a continuous column has no categories or edges.")
            continue
        cats = col.categories
        if not isinstance(cats, np.ndarray) or cats.ndim != 1 or not _labels_ok(cats):
            raise ValueError(f"{w}: the categories must be a 1-dimensional array of "
                             f"labels (strings or numbers).")
        if col.kind == "int":
            _float_array(cats, w, "categories")
            if col.edges is not None or np.any(np.diff(cats) <= 0):
                raise ValueError(f"{w}: integer values must be sorted and distinct.")
        elif col.kind == "bin":
            edges = _float_array(col.edges, w, "edges")
            if np.any(np.diff(edges) <= 0) or len(cats) != edges.size + 1:
                raise ValueError(f"{w}: bin edges must be sorted and distinct, with one "
                                 f"label per interval.")
        elif col.edges is not None:
            raise ValueError(f"{w}: a categorical column has no edges.")
        if encoder is not None:
            # the encoder turns categorical input into codes; the others stay numbers
            is_cat = col.kind == "cat"
            if enc_cat is None or enc_cats is None or len(enc_cat) != n_features or \
                    bool(enc_cat[f]) != is_cat or (is_cat and (
                        enc_cats[f] is None or len(enc_cats[f]) != len(cats)
                        or list(enc_cats[f]) != list(cats))):
                raise ValueError(f"{w}: the column does not match the input encoder.")


def _validate_classic(est, where):
    """Check a fitted ID3 / C4.5 estimator: columns, classes and its tree(s).

    Returns the names of the tree attributes it checked.
    """
    from .trees.classic import MultiwayTree
    names = [k for k in ("tree_", "unpruned_tree_") if k in vars(est)]
    if not names:
        return names             # not fitted: check_is_fitted refuses it at predict
    n_features = getattr(est, "n_features_in_", None)
    classes = getattr(est, "classes_", None)
    if not _is_int(n_features) or n_features < 1:
        raise ValueError(f"{where}: n_features_in_ must be a positive integer.")
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size < 1:
        raise ValueError(f"{where}: classes_ must be a 1-dimensional array.")
    if getattr(est, "n_classes_", None) != classes.size:
        raise ValueError(f"{where}: n_classes_ does not match classes_.")
    encoder = getattr(est, "_encoder", None)
    if encoder is None or "_columns" not in vars(est):
        raise ValueError(f"{where}: a fitted tree without its input encoder or columns.")
    validate_columns(est._columns, n_features, type(est)._allow_continuous, encoder,
                     f"{where}._columns")
    for name in names:
        tree = getattr(est, name)
        if type(tree) is not MultiwayTree:
            raise ValueError(f"{where}.{name}: not a MultiwayTree.")
        validate_multiway_tree(tree, n_features, classes.size, est._columns,
                               f"{where}.{name}")
    return names


def validate_rule_list(model, where="model"):
    """Raise ValueError unless a loaded :class:`RuleListClassifier` has well-formed rules.

    Every rule must be a :class:`~treeboost.trees.export.Rule` of
    :class:`~treeboost.trees.export.Condition` (nothing else, and no extra attributes),
    test a feature in range (a category test only on a column with categories), predict
    one of ``classes_``, and carry a finite class distribution over ``classes_``.
    """
    import dataclasses

    from .trees.export import Condition, Rule
    from .trees.rules import _categories
    state = vars(model)
    if "rules_" not in state:
        return                   # not fitted: check_is_fitted refuses it at predict
    est = state.get("estimator_")
    classes = state.get("classes_")
    if est is None or not hasattr(est, "_transform") or "tree_" not in vars(est):
        raise ValueError(f"{where}: a rule list needs its fitted tree (estimator_).")
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or \
            not np.array_equal(classes, est.classes_):
        raise ValueError(f"{where}: classes_ must be the classes of estimator_.")
    n_features = state.get("n_features_in_")
    if not _is_int(n_features) or n_features != est.n_features_in_:
        raise ValueError(f"{where}: n_features_in_ does not match estimator_.")
    try:
        cats = _categories(est)
    except AttributeError:
        raise ValueError(f"{where}.estimator_: a fitted tree without its encoder.") from None
    K = classes.size
    labels = set(classes.tolist())

    def distribution(d, w):
        if not isinstance(d, np.ndarray) or d.shape != (K,) or d.dtype.kind != "f" or \
                not np.all(np.isfinite(d)) or np.any(d < 0):
            raise ValueError(f"{w}: the class distribution must be {K} finite "
                             f"non-negative numbers.")

    def same_fields(obj, cls, w):
        if type(obj) is not cls or set(vars(obj)) != {f.name for f in dataclasses.fields(cls)}:
            raise ValueError(f"{w}: not a {cls.__name__} (or with other attributes).")

    rules = state["rules_"]
    if not isinstance(rules, list):
        raise ValueError(f"{where}.rules_: must be a list of rules.")
    for j, r in enumerate(rules):
        w = f"{where}.rules_[{j}]"
        same_fields(r, Rule, w)
        if not isinstance(r.conditions, list):
            raise ValueError(f"{w}: conditions must be a list.")
        for c in r.conditions:
            same_fields(c, Condition, w)
            if not _is_int(c.feature) or not 0 <= c.feature < n_features:
                raise ValueError(f"{w}: a condition tests feature index {c.feature!r}, "
                                 f"outside [0, {n_features}).")
            if not isinstance(c.name, str) or not _is_int(c.decimals) or \
                    not isinstance(c.missing, (bool, np.bool_)):
                raise ValueError(f"{w}: a condition has a malformed name, decimals or "
                                 f"missing flag.")
            if not _is_real(c.low) or not _is_real(c.high) or np.isnan(c.low) or \
                    np.isnan(c.high):
                raise ValueError(f"{w}: a condition's interval bounds must be numbers.")
            if c.categories is not None:
                if cats[c.feature] is None:
                    raise ValueError(f"{w}: a category test on feature {c.feature}, which "
                                     f"has no categories.")
                if not _labels_ok(cats[c.feature]):     # looked up in a dict at predict
                    raise ValueError(f"{w}: the categories of feature {c.feature} must be "
                                     f"labels (strings or numbers).")
                if not isinstance(c.categories, list) or not _labels_ok(c.categories):
                    raise ValueError(f"{w}: a condition's categories must be a list of "
                                     f"labels.")
        if not _is_hashable(r.prediction) or r.prediction not in labels:
            raise ValueError(f"{w}: predicts {r.prediction!r}, which is not one of "
                             f"classes_.")
        if not isinstance(r.extra, dict) or not {"distribution", "estimated_accuracy",
                                                 "coverage", "dropped"} <= set(r.extra):
            raise ValueError(f"{w}: extra must hold distribution, estimated_accuracy, "
                             f"coverage and dropped.")
        distribution(r.extra["distribution"], w)
        if not _is_real(r.extra["estimated_accuracy"]) or not _is_real(r.extra["coverage"]):
            raise ValueError(f"{w}: estimated_accuracy and coverage must be numbers.")
        if not (r.confidence is None or _is_real(r.confidence)) or not _is_int(r.leaf) or \
                not _is_int(r.n_samples) or not _is_real(r.weight) or \
                not isinstance(r.target_name, str) or not _is_int(r.decimals):
            raise ValueError(f"{w}: malformed confidence, leaf, n_samples, weight, "
                             f"target_name or decimals.")
    distribution(state.get("default_distribution_"), f"{where}.default_distribution_")
    default = state.get("default_class_")
    if not _is_hashable(default) or default not in labels:
        raise ValueError(f"{where}: default_class_ {default!r} is not one of classes_.")


def _labels_ok(values):
    """Whether every element is a category label (str, number, numpy scalar or None)."""
    items = values.ravel().tolist() if isinstance(values, np.ndarray) else list(values)
    return all(v is None or isinstance(v, (str, int, float, np.generic)) for v in items)


def _is_hashable(v):
    try:
        hash(v)
    except TypeError:
        return False
    return True


class PersistenceMixin:
    """``save(path)`` on every treeboost estimator (see :func:`treeboost.load`)."""

    def save(self, path):
        """Write the fitted model to ``path`` in treeboost's safe format (no pickle)."""
        return save(self, path)
