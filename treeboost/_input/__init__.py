"""What every estimator does to its input before the engine sees it.

* :mod:`.encoding` -- :class:`~treeboost.trees.FeatureEncoder`: pandas, sparse and numpy
  columns to the float matrix the engine bins (categories as codes, dates as seconds,
  missing values as NaN), and sample-weight checks;
* :mod:`.rare_categories` -- the grouping of rare or numerous categories into shared codes;
* :mod:`.datetimes` -- date and time columns as epoch seconds, and back for printing;
* :mod:`.targets` -- class labels, regression targets and class weights.

The package imports only the engine and persistence layers: the trees and the ensembles
import it, never the other way round.
"""
