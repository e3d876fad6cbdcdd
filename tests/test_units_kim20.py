"""kim20's golden unit models (MRMU, WOMU, BDU, the per-SM unit) on directed stimulus."""

import numpy as np
import pytest

from golden.units.bdu import Bdu, BduParams, decide, quantize
from golden.units.kim20_bypass import EV_LOAD, EV_READY, EV_START, TRANSACTION_DTYPE, TwoLevelBypass
from golden.units.mrmu import Mrmu, saturated
from golden.units.womu import Womu, sum_bits

P = BduParams(window=10, warps=8, q_l=64, q_h=192, q_w=128, min_accesses=4)


def test_mrmu_saturates_and_clears():
    u = Mrmu(count_width=2, bits=3)
    outs = [u.step(en=1, loads=3, misses=2) for _ in range(4)]
    assert [o["accesses"] for o in outs] == [0, 3, 6, 7] and [o["miss_count"] for o in outs] == [0, 2, 4, 6]
    assert u.step(clear=1, loads=1, misses=0) == {"accesses": 7, "miss_count": 7}
    assert u.step() == {"accesses": 1, "miss_count": 0}
    assert saturated(10_000, 13) == 8191 and saturated(5, 13) == 5


def test_womu_sums_while_enabled():
    u = Womu(window=5000, warps=32)
    assert u.bits == sum_bits(5000, 32) == 18
    for r in (3, 4, 5):
        u.step(en=1, ready=r)
    u.step(en=0, ready=30)
    assert u.step()["total"] == 12


@pytest.mark.parametrize("acc, miss, occ, mode", [
    (3, 0, 0, 1),      # few accesses: B
    (100, 24, 0, 0),   # 24% < 25%: C whatever the occupancy
    (100, 76, 10**6, 1),  # 76% > 75%: B
    (100, 50, 39, 1),  # ambiguous, occupancy 39 < 50% of 8 warps x 10 cycles = 40: B
    (100, 50, 40, 0),  # ambiguous, occupancy 50%: C
])
def test_decide_rules(acc, miss, occ, mode):
    assert decide(acc, miss, occ, P.q_l, P.q_h, P.occ_limit, P.min_accesses) == mode


def test_miss_rate_only_is_the_same_rule():
    k = quantize(0.9, "k")
    # 0.9 is 230/256 = 0.898: 90% exceeds it, 89% does not.
    assert decide(100, 90, 0, k, k, 0, 0) == 1 and decide(100, 89, 0, k, k, 0, 0) == 0


def test_bdu_window_and_mode_latency():
    b = Bdu(P)
    outs = [b.step(start=1)] + [b.step(accesses=100, miss_count=90) for _ in range(10)]
    assert [o["sampling"] for o in outs] == [0] + [1] * 9 + [0]
    assert [o["bypass"] for o in outs] == [0] * 10 + [1]
    assert b.step(start=1) == {"sampling": 0, "bypass": 1}
    assert b.step() == {"sampling": 1, "bypass": 0}


def test_params_are_checked_by_name():
    with pytest.raises(ValueError, match="threshold_w"):
        quantize(1.5, "threshold_w")
    with pytest.raises(ValueError, match="threshold_l"):
        BduParams(window=10, warps=8, q_l=200, q_h=100, q_w=0, min_accesses=0)
    with pytest.raises(ValueError, match="window"):
        BduParams(window=0, warps=8, q_l=0, q_h=0, q_w=0, min_accesses=0)


def test_cycle_log_of_monitor_events():
    u = TwoLevelBypass(P, ports=1)
    tx = np.array([(100, EV_START, 0), (100, EV_READY, 8), (101, EV_LOAD, 1), (101, EV_LOAD, 0),
                   (103, EV_READY, 2)] + [(104 + i, EV_LOAD, 1) for i in range(5)], TRANSACTION_DTYPE)
    with pytest.raises(ValueError, match="ports"):
        u.cycle_log(tx)
    u = TwoLevelBypass(P, ports=2)
    log = u.cycle_log(tx)
    assert log["ctx_cycle"].tolist() == list(range(100, 111))
    assert log["ready"].tolist() == [8, 8, 8, 2, 2, 2, 2, 2, 2, 2, 2]
    assert log["loads"].tolist() == [0, 2, 0, 0, 1, 1, 1, 1, 1, 0, 0]
    # 7 accesses, 6 misses (86% > 75%): B mode shows after the window's 10 cycles.
    assert log["exp_bypass"].tolist() == [0] * 10 + [1]
    assert u.mrmu.accesses == 7 and u.mrmu.miss_count == 6 and u.womu.total == 8 * 3 + 2 * 7
