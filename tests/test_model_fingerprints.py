"""The default models stay what they were: their predictions' digests against the recorded
ones (``tests/fingerprints.py``), on the CPU they were recorded on."""

import json

import pytest

from tests import fingerprints


def test_default_models_are_unchanged_bit_for_bit():
    saved = json.loads(fingerprints.FILE.read_text())
    if saved["cpu"] != fingerprints.cpu():
        pytest.skip(f"digests recorded on {saved['cpu']}, this CPU is {fingerprints.cpu()}")
    digests = fingerprints.compute()
    changed = sorted(n for n, d in digests.items() if saved["digests"].get(n) != d)
    assert not changed, f"predictions changed: {changed} (fingerprints.py --save if meant)"
    assert set(saved["digests"]) == set(digests)
