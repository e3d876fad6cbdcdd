"""Throughput of the golden L1 model against pycachesim on the same trace.

Both simulate one 16 KB, 8-way, 64-byte-line LRU cache with modulo indexing
(32 sets) over the same 5-million-access load trace; the script checks that
they count the same hits and misses and prints both throughputs and their
ratio.

The trace (``make_trace``, seeded) mixes three kinds of access, each access
drawing its kind at random:

* 50 % *hot*: uniform over 192 lines (three quarters of the cache), mostly hits;
* 25 % *streaming*: consecutive line numbers, each touched once (misses);
* 25 % *scattered*: uniform over 65 536 lines (almost always misses).

Timing: each simulator runs the whole trace ``--repeat`` times on a fresh
cache, the two alternating, and the best time counts, both wall-clock (``time.perf_counter``) and
CPU time of the process (``time.process_time``; on a shared machine this one
is less disturbed by other processes). The golden model is warmed up
first on a short trace, so numba compilation (or loading from its disk
cache) is excluded. pycachesim's batched ``CacheSimulator.load`` takes a
Python iterable of byte addresses; it gets a list built before timing (its
fastest input: a numpy array is iterated element by element, several times
slower). The golden model gets the int64 line numbers.

Run: ``python benchmarks/bench_l1_vs_pycachesim.py [--accesses N] [--repeat R] [--seed S]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from golden.cache import Cache
from golden.configs.schema import CacheConfig

CONFIG = CacheConfig(size=16 * 1024, assoc=8, line_size=64, index="mod", replacement="lru")


def make_trace(n: int, seed: int) -> np.ndarray:
    """The benchmark trace: ``n`` int64 line numbers (see the module docstring)."""
    rng = np.random.default_rng(seed)
    kind = rng.choice(3, size=n, p=[0.5, 0.25, 0.25])
    hot = rng.integers(0, 192, n)
    stream = (1 << 20) + np.cumsum(kind == 1)  # the next new line each time
    scattered = (1 << 24) + rng.integers(0, 1 << 16, n)
    return np.choose(kind, [hot, stream, scattered]).astype(np.int64)


def run_golden(lines: np.ndarray) -> tuple[float, float, int, int]:
    """Wall and CPU seconds, hits and misses of the golden L1 on ``lines``."""
    cache = Cache(CONFIG)
    t0, c0 = time.perf_counter(), time.process_time()
    hits = cache.access(lines)
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    n_hits = int(hits.sum())
    return dt, dc, n_hits, lines.size - n_hits


def run_pycachesim(addresses: list[int]) -> tuple[float, float, int, int]:
    """Wall and CPU seconds, hits and misses of pycachesim on byte ``addresses``."""
    from cachesim import Cache as PyCache
    from cachesim import CacheSimulator, MainMemory

    memory = MainMemory()
    l1 = PyCache("L1", CONFIG.sets, CONFIG.assoc, CONFIG.line_size, replacement_policy="LRU")
    memory.load_to(l1)
    memory.store_from(l1)
    sim = CacheSimulator(l1, memory)
    t0, c0 = time.perf_counter(), time.process_time()
    sim.load(addresses)
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    return dt, dc, int(l1.backend.HIT_count), int(l1.backend.MISS_count)


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; exit status 1 if the hit or miss counts differ."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--accesses", type=int, default=5_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    lines = make_trace(args.accesses, args.seed)
    addresses = (lines * CONFIG.line_size).tolist()
    run_golden(lines[:1000])  # compile or load the engine

    golden, pycs = [], []
    for _ in range(args.repeat):  # alternate, so that both see the same machine load
        golden.append(run_golden(lines))
        pycs.append(run_pycachesim(addresses))
    n = lines.size
    print(f"trace: {n} accesses, seed {args.seed}; cache: {CONFIG.size // 1024} KB, {CONFIG.assoc}-way, "
          f"{CONFIG.line_size} B lines, {CONFIG.sets} sets, LRU, mod indexing; best of {args.repeat}")
    best = {}
    for name, runs in (("golden L1", golden), ("pycachesim", pycs)):
        wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
        best[name] = (wall, cpu)
        print(f"{name:11s}: {runs[0][2]} hits, {runs[0][3]} misses, {n / wall / 1e6:6.1f} M accesses/s wall, "
              f"{n / cpu / 1e6:6.1f} M accesses/s CPU")
    wall_ratio = best["pycachesim"][0] / best["golden L1"][0]
    cpu_ratio = best["pycachesim"][1] / best["golden L1"][1]
    print(f"ratio golden / pycachesim: {wall_ratio:.2f}x wall, {cpu_ratio:.2f}x CPU "
          f"(target >= 2x: {'met' if min(wall_ratio, cpu_ratio) >= 2 else 'NOT met'})")
    if {r[2:] for r in golden + pycs} != {golden[0][2:]}:
        print("MISMATCH: hit/miss counts differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
