"""How the timing loop's bound family hands policies their state (golden.cache.bound_hooks.level_refs)."""

from collections import namedtuple

import numba as nb
import numpy as np

from golden.cache.bound_hooks import level_refs
from golden.cache.by_ref import TupleRef, by_ref

State = namedtuple("State", ["counts", "scale"])


@nb.njit
def _hook(state, i):
    # A hook as the policies write them: fields by name, and by_ref on the state it was given.
    ps = by_ref(state)
    ps.counts[i] += ps.scale
    return ps.counts[i]


@nb.njit
def _inner(h, i):
    return _hook(h[0], i)


@nb.njit
def _entry(h, i):
    return _inner(level_refs(h), i)


@nb.njit
def _level_type(h):
    return level_refs(h)


def test_a_named_tuple_state_goes_by_reference_and_writes_reach_the_callers_arrays():
    counts = np.zeros(4, np.int64)
    assert _entry((State(counts, 3),), 2) == 3
    assert _entry((State(counts, 3),), 2) == 6
    assert counts.tolist() == [0, 0, 6, 0]
    sig = _inner.signatures[0]
    assert isinstance(sig[0].types[0], TupleRef)  # a pointer, not the tuple's words


def test_a_plain_tuple_state_goes_by_value_and_none_stays_none():
    counts = np.zeros(2, np.int64)
    out = _level_type(((counts, np.int64(1)),))
    assert isinstance(out, tuple) and len(out) == 1
    out[0][0][1] = 5
    assert counts[1] == 5  # borrowed: the same memory
    assert _level_type(None) is None
