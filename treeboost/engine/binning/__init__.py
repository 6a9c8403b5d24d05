"""Stage 1, binning: X discretised once into small integer codes that every tree shares.

* :mod:`.mapper`: :class:`BinMapper`, the bin edges and categories of each feature;
* :mod:`.codes`: the bin code of one value, the rule every binning kernel applies;
* :mod:`.quantile_edges`: a numeric column's quantile edges by selection, in linear time;
* :mod:`.sparse_columns`: binning a scipy.sparse X column by column;
* :mod:`.sparse_codes`: the codes of a sparse X, stored as its non-zeros are.

Importing this package imports none of them.
"""
