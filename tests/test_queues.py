"""The timing model's event heap: events leave by time, then in the order they came."""

from __future__ import annotations

import numpy as np

from golden.gpu.queues import NEVER, heap_pop, heap_push, heap_top_time, new_heap


def test_events_leave_by_time_then_first_in_first_out():
    # Random pushes and pops, many of one time, against a sorted reference.
    rng = np.random.default_rng(3)
    key, val, meta = new_heap(600)
    ref: list[tuple[int, int, int]] = []  # (time, arrival, value)
    arrival = 0
    now = 0
    for _ in range(20000):
        if ref and (len(ref) >= 500 or rng.random() < 0.45):
            ref.sort()
            t, _, v = ref.pop(0)
            assert heap_top_time(key, meta) == t
            assert heap_pop(key, val, meta) == v
            now = t
        else:
            t = now + int(rng.choice([0, 0, 1, 2, 3, 8, 40, 300]))
            v = int(rng.integers(1 << 40))
            assert heap_push(key, val, meta, t, v)
            ref.append((t, arrival, v))
            arrival += 1
        assert meta[0] == len(ref)
    assert heap_top_time(key, meta) == (min(ref)[0] if ref else NEVER)


def test_a_full_heap_refuses_an_event():
    key, val, meta = new_heap(3)
    assert all(heap_push(key, val, meta, 5, i) for i in range(3))
    assert not heap_push(key, val, meta, 1, 9) and meta[0] == 3
    assert [heap_pop(key, val, meta) for _ in range(3)] == [0, 1, 2]
    assert heap_top_time(key, meta) == NEVER
