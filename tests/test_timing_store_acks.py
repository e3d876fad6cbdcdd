"""Store acknowledgements (``store_acks = "l2"``): GPGPU-Sim's ``WRITE_ACK`` and ``stores_done``.

GPGPU-Sim's L2 answers every store with a one-flit packet, and a warp exits only when all its
stores are acknowledged (``shd_warp_t::stores_done``): its slot, and its CTA's resources, stay
taken for the round trip. Closed-form figures on ``tests/test_timing.py``'s test GPU: a store of a
128-byte line is a 2-flit request (header and data in 128-byte flits), its acknowledgement 1 flit.
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.configs.schema import GPUConfig
from golden.gpu.core import LOG_LOAD_DONE
from golden.trace.builder import KernelBuilder
from tests.test_timing import DRAM_LATENCY, ICNT, L2_HIT_LATENCY, L2_LAT, LINE, gpu, run


def stores(n_lines: int) -> KernelBuilder:
    """One warp storing to ``n_lines`` lines (one store instruction), then nothing."""
    kb = KernelBuilder("stores", (1,), (32,))
    kb.store(0x10, (np.arange(32) // (32 // n_lines)) * LINE * 7)
    return kb


def _cycles(kb: KernelBuilder, g: GPUConfig) -> int:
    return run([kb], g)[1][0].cycles


@pytest.mark.parametrize("n_lines", [1, 4])
def test_a_warp_exits_when_its_stores_are_acknowledged(n_lines):
    # Without acknowledgements the kernel ends the cycle after the L2 looked the last store up.
    # With them, each store's 1-flit acknowledgement leaves the L2 its latency after the lookup
    # and reaches the SM the crossbar's latency and a flit later: the stores reach the L2 two
    # cycles apart (2 flits each) and so do their acknowledgements, the last one L2_LAT + ICNT + 1
    # cycles after the last lookup.
    plain = _cycles(stores(n_lines), gpu())
    acked = _cycles(stores(n_lines), gpu(store_acks="l2"))
    assert plain == 9 + 2 * (n_lines - 1)
    assert acked - plain == L2_LAT + ICNT + 1
    # A store that hits the L2 (the same kernel again) is acknowledged as one that missed.
    _, results = run([stores(n_lines), stores(n_lines)], gpu(store_acks="l2"))
    assert results[1].cycles == acked


def test_an_acknowledgement_is_one_header_flit_per_l2_sector():
    # 32-byte sectors and 32-byte flits: a store of a whole line is 5 flits (header and 4
    # sectors) and is acknowledged with 4 (GPGPU-Sim's sectored L2 acknowledges each sector
    # request), a store of one sector 2 flits, acknowledged with 1.
    g = gpu(store_acks="l2", icnt_flit_bytes=32, l1={"sector_size": 32}, l2={"sector_size": 32})
    whole = KernelBuilder("whole", (1,), (32,))
    whole.store(0x10, np.arange(32) * 4 + 7 * LINE)
    one = KernelBuilder("one", (1,), (32,))
    one.store(0x10, np.arange(32) % 8 * 4 + 7 * LINE)
    plain = gpu(icnt_flit_bytes=32, l1={"sector_size": 32}, l2={"sector_size": 32})
    assert _cycles(whole, g) - _cycles(whole, plain) == L2_LAT + ICNT + 4
    assert _cycles(one, g) - _cycles(one, plain) == L2_LAT + ICNT + 1


def three_ctas() -> KernelBuilder:
    """CTA 0 loads line 7 (a DRAM miss); CTA 1, 10 cycles later, stores to line 7 while its fill is
    on its way; CTA 2 loads line 9. One CTA per SM on two SMs: CTA 2 starts when one exits."""
    kb = KernelBuilder("three", (3,), (32,))
    kb.load(0x10, np.full(96, 7 * LINE), active=kb.bx == 0)
    kb.compute(10, active=kb.bx == 1)
    kb.store(0x20, np.full(96, 7 * LINE), active=kb.bx == 1)
    kb.load(0x30, np.full(96, 9 * LINE), active=kb.bx == 2)
    kb.compute(1)
    return kb


def _cta2_start(**changes) -> tuple[int, dict]:
    """The cycle CTA 2 issued its load (its data comes DRAM_LATENCY later), and the counters."""
    g = gpu(n_sm=2, max_ctas_per_sm=1, **changes)
    tm, (r,) = run([three_ctas()], g, log_ldst=True)
    done = [int(c) for c, _, _, row, what in tm.ldst_log() if what == LOG_LOAD_DONE and row == 2]
    assert len(done) == 1 and r.cycles == done[0] + 1
    return done[0] - DRAM_LATENCY, r.counters


@pytest.mark.parametrize("write_allocate", ["lazy", "fetch"])
def test_a_store_to_a_line_on_its_way(write_allocate):
    # CTA 1's store (issued at 10) reaches the L2 while line 7's fill is on its way (a merge).
    # Without acknowledgements CTA 1 exits two cycles after its issue, when the LD/ST unit has
    # sent the store, and CTA 2 takes its SM then. Lazily allocated (GPGPU-Sim's lazy
    # fetch-on-read marks the reserved line and acknowledges at once), the store is acknowledged
    # its L2 latency after the lookup: its round trip is a load hit's. Under "fetch" it waits for
    # the line's fill (77) and its 1-flit acknowledgement leaves behind the load's 2-flit data:
    # it reaches SM 1 at 84, after CTA 0 has exited SM 0 (83, its load's data), where CTA 2 starts.
    plain, c = _cta2_start(l2={"write_allocate": write_allocate})
    acked, c_acked = _cta2_start(store_acks="l2", l2={"write_allocate": write_allocate})
    assert plain == 12
    assert c["l2_mshr_merges"] == c_acked["l2_mshr_merges"] == 1
    assert acked == (10 + L2_HIT_LATENCY if write_allocate == "lazy" else DRAM_LATENCY)


def test_store_acks_is_checked():
    with pytest.raises(ValueError, match="store_acks: must be one of none, l2, not 'yes'"):
        gpu(store_acks="yes")
