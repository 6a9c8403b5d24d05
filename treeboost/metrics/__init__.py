"""Metrics of learning to rank over query groups: :func:`ndcg_score`, :func:`map_score`."""

from .ranking import map_score, ndcg_score

__all__ = ["map_score", "ndcg_score"]
