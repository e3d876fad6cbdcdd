"""How the timing loop's bound family hands policies their state (golden.cache.bound_hooks.level_refs)."""

from collections import namedtuple

import numba as nb
import numpy as np

from golden.cache.bound_hooks import level_refs
from golden.cache.by_ref import Frozen, TupleRef, by_ref, frozen

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


@nb.njit
def _walk(S, n):
    # Stores into the arrays between reads of the tuple's fields: the reads may not be reordered
    # or stale, and the field loads are marked invariant (one descriptor load serves them all).
    for i in range(n):
        S.counts[i % 4] += S.scale
        S.counts[(i + 1) % 4] = S.counts[i % 4] - 1
    return S.counts[0]


@nb.njit
def _walk_entry(state, n):
    return _walk(by_ref(state), n)


@nb.njit
def _make_and_read(counts, n):
    # The tuple is built, stored and read in one function: each read must see the stored slot.
    ps = by_ref(State(counts, n))
    ps.counts[0] = ps.scale
    return ps.counts[0] + ps.scale


def _reference_walk(counts, scale, n):
    for i in range(n):
        counts[i % 4] += scale
        counts[(i + 1) % 4] = counts[i % 4] - 1
    return counts[0]


def test_field_loads_are_invariant_and_stores_between_them_are_seen():
    counts, ref = np.zeros(4, np.int64), np.zeros(4, np.int64)
    assert _walk_entry(State(counts, 7), 1001) == _reference_walk(ref, 7, 1001)
    assert counts.tolist() == ref.tolist()
    ir = next(iter(_walk.inspect_llvm().values()))
    assert "!invariant.load" in ir
    # The slot's pointer leaves through an asm statement that clobbers memory (after the store).
    entry_ir = next(iter(_walk_entry.inspect_llvm().values()))
    assert "asm sideeffect" in entry_ir and "~{memory}" in entry_ir
    assert _make_and_read(np.zeros(2, np.int64), 5) == 10


@nb.njit
def _sum_frozen(k, n):
    out = np.zeros(n, np.int64)
    total = 0
    for i in range(n):
        out[i] = k[i] * 2  # stores between the reads: k's values may stay in registers
        total += k[i] + out[i]
    return total


@nb.njit
def _frozen_entry(arr, n):
    return _sum_frozen(frozen(arr), n)


def test_a_frozen_vector_reads_its_array_with_invariant_loads():
    arr = np.arange(10, dtype=np.int64) * 3
    assert _frozen_entry(arr, 10) == int(arr.sum() * 3)
    assert isinstance(_sum_frozen.signatures[0][0], Frozen)
    assert "!invariant.load" in next(iter(_sum_frozen.inspect_llvm().values()))
