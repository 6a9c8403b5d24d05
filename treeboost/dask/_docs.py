"""Docstring paragraphs that the Dask estimators share (put in by
:func:`treeboost._docstrings.insert_docs`)."""

#: the start of a Dask regressor's example: a local cluster and a regression problem on
#: dask arrays of four partitions
REGRESSION_DATA_EXAMPLE = """
>>> from dask.distributed import Client, LocalCluster  # doctest: +SKIP
>>> import dask.array as da  # doctest: +SKIP
>>> client = Client(LocalCluster(n_workers=2))  # doctest: +SKIP
>>> X = da.random.random((100_000, 10), chunks=25_000)  # doctest: +SKIP
>>> y = X[:, 0] * 3 + X[:, 1]  # doctest: +SKIP
"""

#: the rows of a Dask estimator's ``fit``
FIT_ROWS = """
X : dask array or dask DataFrame of shape (n_samples, n_features)
y : dask array or dask Series of shape (n_samples,)
    Partitioned as X (a dask array is rechunked to X's row chunks).
sample_weight : dask array or dask Series, default=None
"""
