"""The evaluation arguments of ``fit`` (``eval_set``, ``eval_names``, ``eval_metric``,
``eval_sample_weight``, ``callbacks``), checked once and named."""

from typing import NamedTuple

from ._offsets import check_offsets
from .evaluation import check_metrics


class EvalRequest(NamedTuple):
    eval_set: list
    names: list
    metrics: list
    sample_weights: list
    callbacks: list
    #: one offset (``init_score``) or None per set
    init_scores: list

    @classmethod
    def of(
        cls, eval_set, eval_names, eval_metric, eval_sample_weight, callbacks, eval_init_score=None
    ):
        """The request, or None when no argument is given; ValueError/TypeError naming
        the argument otherwise."""
        if eval_set is None and callbacks is None:
            for name, v in (
                ("eval_names", eval_names),
                ("eval_metric", eval_metric),
                ("eval_init_score", eval_init_score),
            ):
                if v is not None:
                    raise ValueError(f"{name} is given without eval_set.")
            return None
        if isinstance(eval_set, tuple):
            eval_set = [eval_set]
        eval_set = list(eval_set or ())
        for i, pair in enumerate(eval_set):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"eval_set[{i}] must be a pair (X, y), got {type(pair).__name__}.")
        n = len(eval_set)
        names = [f"valid_{i}" for i in range(n)] if eval_names is None else list(eval_names)
        if len(names) != n or len(set(names)) != n:
            raise ValueError(
                f"eval_names must name each of the {n} eval_set entries once, got {names!r}."
            )
        weights = [None] * n if eval_sample_weight is None else list(eval_sample_weight)
        if len(weights) != n:
            raise ValueError(
                f"eval_sample_weight must hold one entry per eval_set entry ({n}), "
                f"got {len(weights)}."
            )
        for c in callbacks or ():
            if not callable(c):
                raise TypeError(f"callbacks must hold callables, got {c!r}.")
        return cls(
            eval_set,
            names,
            check_metrics(eval_metric),
            weights,
            list(callbacks or ()),
            check_offsets(eval_init_score, n),
        )
