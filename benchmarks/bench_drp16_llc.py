"""LLC accesses per second of each drp16 LLC policy on a synthetic stream-labelled 4C1G stream.

The stream (seeded): 3 million rows, 40 % CPU (4 cores, each a mix of a hot
set of 4096 lines and a 64 K-line scan, 25 % stores, 64 PCs) and 60 % GPU
(colour and depth writes and reads over a 32 K-line frame buffer, texture
reads over 256 K lines with 50 % of them on a 16 K-line hot part, shader
reads and writes, a few blits and vertices). The full model (private
caches, inclusion) runs every online policy; the recorded LLC trace is then
replayed for OPT, OPT+Bypass and Baseline+Bypass, as drp16 runs them. One
warm-up run on 10 000 rows compiles each policy first; the timed run is the
whole stream on a fresh model. Prints wall-clock LLC accesses per second.

Run: ``PYTHONPATH=. python benchmarks/bench_drp16_llc.py [rows [policy ...]]``
"""

from __future__ import annotations

import sys
import time

import numpy as np

from golden.llc.model import LLC_TRACE_DTYPE, LLCModel
from golden.llc.streams import BLITTER, COLOR, DEPTH, OTHER, SHADER, TEXTURE
from golden.policies import get_policy

ONLINE = ("baseline", "drp16-baseline", "drp16-nru", "drp16-drrip", "drp16-tadrrip", "drp16-ship-mem",
          "drp16-ship-hybrid", "drp16-helm", "drp16-drp-rm", "drp16-drp-rm-rh", "drp16-drp")
OFFLINE = ("drp16-opt", "drp16-opt-bypass", "drp16-baseline-bypass")


def synthetic(n: int, seed: int = 1) -> np.ndarray:
    """A seeded 4C1G stream (see the module docstring)."""
    rng = np.random.default_rng(seed)
    t = np.zeros(n, LLC_TRACE_DTYPE)
    cpu = rng.random(n) < 0.4
    core = rng.integers(0, 4, n)
    hot = rng.random(n) < 0.5
    cpu_line = np.where(hot, rng.integers(0, 4096, n), np.arange(n) % 65536) + (core.astype(np.int64) << 24)
    gstream = rng.choice([COLOR, DEPTH, TEXTURE, SHADER, BLITTER, OTHER], n, p=[.2, .2, .4, .1, .05, .05])
    tex = np.where(rng.random(n) < 0.5, rng.integers(0, 16384, n), rng.integers(0, 262144, n))
    fb = rng.integers(0, 32768, n)
    gline = np.where(gstream == TEXTURE, (1 << 30) + tex, np.where(gstream == SHADER, (2 << 30) + fb % 8192,
                                                                     (3 << 30) + fb))
    t["stream"] = np.where(cpu, core, gstream)
    t["line"] = np.where(cpu, cpu_line, gline)
    t["op"] = np.where(cpu, np.where(rng.random(n) < 0.25, 2, 1),
                       np.where((gstream == TEXTURE) | (rng.random(n) < 0.5), 1, 2))
    t["pc"] = np.where(cpu, rng.integers(0, 64, n) * 4 + 0x400000, 0)
    return t


def main(n: int = 3_000_000, names: tuple[str, ...] = ONLINE + OFFLINE) -> None:
    """Run each policy of ``names`` (offline ones need ``drp16-baseline`` before them) on ``n`` rows."""
    trace = synthetic(n)
    recorded = None
    print(f"{n} rows; LLC accesses per second (wall clock), LLC read misses")
    for name in names:
        offline = name in OFFLINE
        rows = recorded if offline else trace
        warm = get_policy(name)
        if offline:
            warm.prepare(rows[:10000])
        LLCModel(4, warm, private=not offline).run(rows[:10000])
        p = get_policy(name)
        if offline:
            p.prepare(rows)
        m = LLCModel(4, p, private=not offline)
        t0 = time.perf_counter()
        rec = m.run(rows, record=name == "drp16-baseline")
        dt = time.perf_counter() - t0
        if rec is not None:
            recorded = rec
        s = m.stats()
        print(f"{name:24s} {m.llc_accesses / dt / 1e6:6.2f} M/s  {m.llc_accesses} accesses in {dt:5.2f} s  "
              f"read misses {s['read_misses']} (CPU {s['cpu_read_misses']}, GPU {s['gpu_read_misses']})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3_000_000, tuple(sys.argv[2:]) or ONLINE + OFFLINE)
