"""Hypothesis runs derandomized by default, so that the suite gives the same answer on
every machine (CI included) for the same code.  ``--hypothesis-profile=explore`` draws
new examples on each run, to look for what the fixed ones miss."""

from hypothesis import settings

settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("ci")


import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _seed_numpy_global_rng():
    """Seed numpy's global generator before each test: an estimator with
    ``random_state=None`` draws its seed from it (and ties between equally good splits
    are drawn with that seed), so every machine gets the trees this one got."""
    np.random.seed(0)
