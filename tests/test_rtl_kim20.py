"""kim20's per-SM unit (MRMU, WOMU, BDU) RTL against its golden model, cycle by cycle."""

import numpy as np
import pytest

from golden.units.bdu import BduParams
from golden.units.kim20_bypass import TwoLevelBypass as GoldenUnit
from rtl.bypass import Bdu, Mrmu, TwoLevelBypass, Womu
from tb.amaranth_sim import replay_amaranth
from tb.stimulus import record
from tests.mutants import mutant

SMALL = dict(window=12, warps=8, q_l=64, q_h=192, q_w=128, min_accesses=3)


def rtl(module=None, ports=2, **kw):
    params = {**SMALL, **kw}
    cls = module.TwoLevelBypass if module is not None else TwoLevelBypass
    return cls(ports=ports, **params)


def golden(ports=2, **kw):
    return GoldenUnit(BduParams(**{**SMALL, **kw}), ports=ports)


def random_inputs(rng, *, warps=8, ports=2, p_start=0.02, p_miss=0.5, p_load=0.6):
    """Per cycle: a window start now and then, a random ready count, up to ``ports`` loads."""
    def gen(unit):
        loads = int(rng.binomial(ports, p_load))
        return {"start": int(rng.random() < p_start), "ready": int(rng.integers(0, warps + 1)),
                "loads": loads, "misses": int(rng.binomial(loads, p_miss))}
    return gen


@pytest.mark.parametrize("seed, p_miss", [(0, 0.5), (2, 0.9), (3, 0.6)])
def test_random_stimulus(seed, p_miss):
    rng = np.random.default_rng(seed)
    log = record(golden(), 1000, random_inputs(rng, p_miss=p_miss, p_start=0.03))
    assert log["exp_bypass"].any() and log["exp_sampling"].any()
    r = replay_amaranth(rtl(), log)
    assert r.ok, r.mismatch


def test_every_rule_is_exercised_and_matches():
    """Directed windows: few accesses, low, high and ambiguous miss rates at low and high occupancy."""
    rows = []
    for loads, misses, ready in ((0, 0, 8), (2, 0, 8), (2, 2, 8), (2, 1, 2), (2, 1, 7)):
        rows.append({"start": 1, "ready": ready, "loads": loads, "misses": misses})
        rows += [{"ready": ready, "loads": loads, "misses": misses}] * 11 + [{}] * 3
    gen = iter(rows)
    log = record(golden(), len(rows), lambda u: next(gen))
    ends = log["exp_bypass"][12::15].tolist()
    assert ends == [1, 0, 1, 1, 0]
    r = replay_amaranth(rtl(), log)
    assert r.ok, r.mismatch


def test_saturation_and_restart():
    """A window longer than the counters count: both saturate; a start inside a window restarts it."""
    kw = dict(window=40, min_accesses=0)
    rows = [{"start": 1, "ready": 8, "loads": 3, "misses": 3}] + [{"ready": 8, "loads": 3, "misses": 1}] * 20
    rows += [{"start": 1, "ready": 0, "loads": 1, "misses": 0}] + [{"loads": 1}] * 45
    gen = iter(rows)
    g = GoldenUnit(BduParams(**{**SMALL, **kw}), ports=3)
    log = record(g, len(rows), lambda u: next(gen))
    r = replay_amaranth(TwoLevelBypass(ports=3, **{**SMALL, **kw}), log)
    assert r.ok, r.mismatch


def test_paper_sizes():
    u = TwoLevelBypass()
    assert (u.mrmu.bits, u.womu.bits, u.bdu.timer_bits) == (13, 18, 13)
    with pytest.raises(ValueError, match="q_w"):
        Bdu(q_w=300)
    with pytest.raises(ValueError, match="window"):
        Womu(window=0)
    with pytest.raises(ValueError, match="bits"):
        Mrmu(bits=0)


def saturating_log():
    """A 3,000-cycle window of 9,000 lookups, half misses, full occupancy: the access counter saturates
    (miss rate 55%, ambiguous, high occupancy: C mode); a wrapping counter would read 808 accesses."""
    rows = [{"start": 1, "ready": 8, "loads": 3, "misses": 1}]
    rows += [{"ready": 8, "loads": 3, "misses": 1 + i % 2} for i in range(3005)]
    gen = iter(rows)
    g = GoldenUnit(BduParams(**{**SMALL, "window": 3000, "min_accesses": 0}), ports=3)
    log = record(g, len(rows), lambda u: next(gen))
    assert log["exp_bypass"][-1] == 0 and g.mrmu.accesses == 8191
    return log


@pytest.mark.parametrize("old, new", [
    ("decision.eq(few | (~low & (high | idle)))", "decision.eq(few | (~low & high))"),
    ("return Mux(total > top, top, total)[:len(value)]", "return total[:len(value)]"),
    ("next_left.eq(Mux(self.start, self.window - 1, left - 1))",
     "next_left.eq(Mux(self.start, self.window, left - 1))"),
])
def test_broken_unit_fails(old, new):
    """Each injected bug (a rule dropped, a wrapping counter, a window one cycle long) is caught."""
    broken = mutant("rtl.bypass.kim20", old, new)
    if "Mux(total" in old:
        log = saturating_log()
        dut = broken.TwoLevelBypass(ports=3, **{**SMALL, "window": 3000, "min_accesses": 0})
    else:
        log = record(golden(window=40, min_accesses=0), 2000,
                     random_inputs(np.random.default_rng(7), p_miss=0.5, p_start=0.03))
        dut = rtl(broken, window=40, min_accesses=0)
    assert replay_amaranth(rtl(**({"window": 3000, "min_accesses": 0, "ports": 3} if "Mux(total" in old
                                  else {"window": 40, "min_accesses": 0})), log).ok
    assert not replay_amaranth(dut, log).ok
