"""Hypothesis runs derandomized by default, so that the suite gives the same answer on
every machine (CI included) for the same code.  ``--hypothesis-profile=explore`` draws
new examples on each run, to look for what the fixed ones miss."""
from hypothesis import settings

settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("ci")
