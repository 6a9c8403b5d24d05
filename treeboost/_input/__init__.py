"""What every estimator does to its input before the engine sees it.

* :mod:`.encoding` -- :class:`~treeboost.trees.FeatureEncoder`: pandas, polars, sparse and
  numpy columns to the float matrix the engine bins (categories as codes, dates as
  seconds, missing values as NaN);
* :mod:`.estimator_input` -- :class:`~.estimator_input.EncoderMixin`, the encoder as every
  estimator uses it (feature names and counts checked as scikit-learn does), and the
  int64 check of integer parameters;
* :mod:`.categorical_mask` -- which columns ``categorical_features`` makes categorical;
* :mod:`.columns` -- one column read: DataFrames, categorical dtypes, missing values and
  the error for a column that is not numeric;
* :mod:`.sparse_structure` -- a scipy.sparse X's indices checked, and its canonical form;
* :mod:`.encoder_state` -- an encoder read from a model file, checked;
* :mod:`.rare_categories` -- the grouping of rare or numerous categories into shared codes;
* :mod:`.datetimes` -- date and time columns as epoch seconds, and back for printing;
* :mod:`.weights` -- the checks of sample weights;
* :mod:`.targets` -- class labels, regression targets and class weights;
* :mod:`.fast_path` -- the short way through a prediction's checks for a plain float array;
* :mod:`.polars_frames` -- polars DataFrames read column by column.

The package imports only the engine and persistence layers: the trees and the ensembles
import it, never the other way round.
"""
