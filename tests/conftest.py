"""pytest configuration: ``slow`` tests (whole workloads, paper sizes) run only when asked.

Set ``GPUCACHE_SLOW=1`` to run them; CI runs the representative fast subset.
"""

import os

import pytest


def pytest_collection_modifyitems(config, items):
    if os.environ.get("GPUCACHE_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: set GPUCACHE_SLOW=1 to run")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
