"""The timing model's event queue: events leave by time, then in the order they came."""

from __future__ import annotations

import numpy as np
import pytest

from golden.gpu.queues import (
    NEVER,
    WHEEL,
    event_advance,
    event_due,
    event_pop,
    event_push,
    event_top_time,
    new_events,
)


def _drive(q, rng, steps: int, delays: list[int], drain: int = 0) -> int:
    """Run the queue as the cycle loop does, against a sorted reference; returns the events taken.

    ``steps`` cycles add events, the ``drain`` cycles after them only take.
    """
    node, bucket, ovf, meta = q
    ref: list[tuple[int, int, int]] = []  # (time, arrival, value)
    arrival = taken = 0
    clock = int(meta[2])
    for step in range(steps + drain):
        event_advance(node, bucket, ovf, meta, clock)
        # Every event due by now leaves, earliest first, then first in, first out.
        while event_due(bucket, meta):
            ref.sort()
            t, _, v = ref.pop(0)
            assert t <= clock
            assert event_pop(node, bucket, meta) == v
            taken += 1
        assert not ref or min(ref)[0] > clock
        # New events, some of them at this cycle (after its events were taken: they leave next cycle).
        for _ in range(int(rng.integers(0, 4)) if step < steps else 0):
            if len(ref) >= node.shape[1]:
                break
            t = clock + int(rng.choice(delays))
            v = int(rng.integers(1 << 40))
            assert event_push(node, bucket, ovf, meta, t, v)
            ref.append((t, arrival, v))
            arrival += 1
        assert meta[0] == len(ref)
        top = event_top_time(node, bucket, ovf, meta)
        assert top == (max(min(ref)[0], clock) if ref else NEVER)
        # The loop's next cycle: the next one, or (nothing happened) the earliest event.
        if ref and rng.random() < 0.5:
            clock = top if top > clock else clock + 1
        else:
            clock += 1
    return taken


def test_events_leave_by_time_then_first_in_first_out():
    rng = np.random.default_rng(3)
    q = new_events(600)
    taken = _drive(q, rng, 20000, [0, 0, 1, 2, 3, 8, 40, 300])
    assert taken > 10000


def test_events_beyond_the_wheel_keep_their_order():
    # Far events wait in the overflow heap and join their cycle's list ahead of later arrivals.
    rng = np.random.default_rng(5)
    q = new_events(400)
    delays = [0, 1, 2, WHEEL - 1, WHEEL, WHEEL + 1, 2 * WHEEL + 7, 3 * WHEEL]
    assert _drive(q, rng, 40000, delays, drain=4 * WHEEL) > 30000
    assert q[3][0] == 0


@pytest.mark.parametrize("arrivals", [(1 << 24) - 2, (1 << 32) - 2])
def test_order_holds_past_a_wrap_of_the_arrival_number(arrivals):
    # The binary heap this queue replaced keyed events time << 24 | arrival and misordered two
    # events of one cycle queued across the arrival number's wrap. Arrival numbers order the
    # overflow heap: events beyond the wheel, numbered across 2**24 and 2**32, keep their order.
    node, bucket, ovf, meta = new_events(8)
    meta[4] = arrivals
    at = 5 + WHEEL
    for v in (7, 8, 9, 10):
        assert event_push(node, bucket, ovf, meta, at, v)
    assert meta[3] == 4  # all four in the overflow heap
    event_advance(node, bucket, ovf, meta, at)
    assert [event_pop(node, bucket, meta) for _ in range(4)] == [7, 8, 9, 10]


@pytest.mark.parametrize("far", [False, True])
def test_a_full_queue_refuses_an_event(far):
    node, bucket, ovf, meta = new_events(3)
    at = 5 + (WHEEL if far else 0)
    assert all(event_push(node, bucket, ovf, meta, at, i) for i in range(3))
    assert not event_push(node, bucket, ovf, meta, 1, 9) and meta[0] == 3
    event_advance(node, bucket, ovf, meta, at)
    assert [event_pop(node, bucket, meta) for _ in range(3)] == [0, 1, 2]
    assert event_top_time(node, bucket, ovf, meta) == NEVER


def test_an_event_before_the_clock_is_refused():
    node, bucket, ovf, meta = new_events(4)
    event_advance(node, bucket, ovf, meta, 10)
    assert not event_push(node, bucket, ovf, meta, 9, 1) and meta[0] == 0
