"""scikit-learn's progress table of ``GradientBoosting*`` with ``verbose > 0``::

          Iter       Train Loss      OOB Improve   Remaining Time
             1           1.2184           0.0345            0.11s

One line per iteration for ``verbose > 1``; for ``verbose=1`` every iteration up to 10,
then every 10th up to 100, every 100th ... (the interval grows by powers of 10).
"""

from time import time


class VerboseReporter:
    """Prints the table for one fit.

    Parameters
    ----------
    verbose : int
    oob : bool
        Whether the table has the ``OOB Improve`` column (``subsample < 1``).
    n_estimators : int
        The iteration the fit runs to, for the remaining time.
    begin_at_stage : int
        The first iteration of this fit (a warm start continues).
    """

    def __init__(self, verbose, oob, n_estimators, begin_at_stage=0):
        self.verbose = verbose
        self.oob = oob
        self.n_estimators = n_estimators
        self.begin_at_stage = begin_at_stage
        header = ["Iter", "Train Loss"] + (["OOB Improve"] if oob else []) + ["Remaining Time"]
        fmt = ["{iter:>10d}", "{train_score:>16.4f}"] + (["{oob_impr:>16.4f}"] if oob else [])
        self.fmt = " ".join(fmt + ["{remaining_time:>16s}"])
        print(("%10s " + "%16s " * (len(header) - 1)) % tuple(header))
        self.verbose_mod = 1
        self.start_time = time()

    def update(self, j, train_score, oob_improvement=0.0):
        """Report iteration ``j`` (0-based, counted from the first fit)."""
        i = j - self.begin_at_stage
        if (i + 1) % self.verbose_mod:
            return
        remaining = (self.n_estimators - (j + 1)) * (time() - self.start_time) / (i + 1)
        remaining = f"{remaining / 60:.2f}m" if remaining > 60 else f"{remaining:.2f}s"
        print(
            self.fmt.format(
                iter=j + 1,
                train_score=train_score,
                oob_impr=oob_improvement,
                remaining_time=remaining,
            )
        )
        if self.verbose == 1 and (i + 1) // (self.verbose_mod * 10) > 0:
            self.verbose_mod *= 10
