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


# The suite runs the timing model's generic build, compiled once for its many small machines; a
# specialised build compiles per machine (golden.gpu.specialise). tests/test_specialise.py checks
# that both give the same bits.
os.environ.setdefault("GPUCACHE_COMPILE", "generic")
