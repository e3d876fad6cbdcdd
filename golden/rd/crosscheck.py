"""Cross-checks of the RD model against the cache simulator, and a slot for the timing model.

* :func:`serial_check`: the parallel model in its serial limit (one bank,
  one port, one L2 partition, a miss filled at the end of its own step) is
  exact LRU, so its hits must equal those of :class:`golden.cache.Cache`
  fed the same accesses in the same order, access by access, at both
  levels. Fully associative (one set) or with the configured sets and
  associativity (exact per-set counting).
* :func:`counting_gap`: rdgc's shared counters (one stack per bank, hit
  below the bank's blocks: a fully associative bank) against exact
  per-set counting, in the full parallel model.
* :func:`compare`: the RD model's hit ratios beside any *reference* model
  that maps ``(workload, gpu)`` to hit ratios: :func:`simulator_reference`
  (the interleaver and :class:`golden.cache.Hierarchy`) or
  :func:`timing_reference` (the cycle-level timing model, ``golden/gpu``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from golden.cache import Cache, Hierarchy
from golden.configs.schema import CacheConfig, GPUConfig
from golden.rd.model import RDOptions, RDResult, analyse
from golden.rd.parallel import Latency
from golden.trace.interleave import interleave
from golden.trace.model import Workload

__all__ = ["serial_machine", "serial_check", "counting_gap", "Reference", "simulator_reference",
           "timing_reference", "rd_reference", "compare"]

#: A reference model: ``(workload, gpu) -> {"l1_read_hit_ratio": r, "l2_hit_ratio": r, ...}``.
Reference = Callable[[Workload, GPUConfig], dict]


def _serial_cache(cfg: CacheConfig, fully_associative: bool) -> CacheConfig:
    if fully_associative:
        # One set, so the index function picks nothing; fermi cannot hash 1 set: mod stands in.
        index = "mod" if cfg.index in ("mod", "smod", "fermi") else cfg.index
        cfg = cfg.replace(assoc=cfg.lines, index=index, smod_shift=0, slices=0)
    return cfg.replace(banks=1, ports=1, replacement="lru")


def serial_machine(gpu: GPUConfig, fully_associative: bool = True) -> tuple[GPUConfig, RDOptions]:
    """The machine and options of the serial limit (see the module docstring)."""
    g = gpu.replace(l1=_serial_cache(gpu.l1, fully_associative),
                    l2=_serial_cache(gpu.l2, fully_associative), l2_partitions=1)
    return g, RDOptions(latency=Latency("fixed", fixed=1), counting="per-set", l1_mshrs=1, l2_mshrs=1,
                        l2_mshr_sets=1)


def serial_check(workload: Workload, gpu: GPUConfig, fully_associative: bool = True) -> dict:
    """Hits of the serial-limit RD model against the cache simulator, access by access.

    Returns
    -------
    dict
        Per level ``{"accesses", "rd_hits", "sim_hits", "mismatches"}``; the level agrees
        exactly when ``mismatches`` is 0.
    """
    g, opts = serial_machine(gpu, fully_associative)
    res = analyse(workload, g, opts, keep_streams=True)
    out = {}
    for level, cfg, streams in (("l1", g.l1, res.streams["l1"]), ("l2", g.l2, [res.streams["l2"]])):
        acc = rd = sim = bad = 0
        for lines, writes, found, _ in streams:
            hit = Cache(cfg).access(lines.astype(np.int64), np.where(writes, 2, 1))
            acc += lines.size
            rd += int(found.sum())
            sim += int(hit.sum())
            bad += int(np.count_nonzero(hit != found))
        out[level] = {"accesses": acc, "rd_hits": rd, "sim_hits": sim, "mismatches": bad}
    return out


def counting_gap(workload: Workload, gpu: GPUConfig, options: RDOptions | None = None) -> dict:
    """Read hit ratios with rdgc's shared counters and with exact per-set counting.

    Returns
    -------
    dict
        ``{"shared": RDResult, "per_set": RDResult}``.
    """
    o = options or RDOptions()
    kw = {f: getattr(o, f) for f in o.__dataclass_fields__ if f != "counting"}
    return {"shared": analyse(workload, gpu, RDOptions(counting="shared", **kw)),
            "per_set": analyse(workload, gpu, RDOptions(counting="per-set", **kw))}


def simulator_reference(workload: Workload, gpu: GPUConfig) -> dict:
    """Hit ratios of the interleaver and the cache hierarchy (the fixed-order golden model)."""
    h = Hierarchy(gpu)
    for part in interleave(workload, gpu):
        h.run(part.accesses)
    st = h.stats()
    l1 = st["l1"]
    return {"l1_read_hit_ratio": l1["read_hits"] / l1["reads"] if l1["reads"] else float("nan"),
            "l2_hit_ratio": st["l2"]["hit_rate"]}


def timing_reference(workload: Workload, gpu: GPUConfig, fixed_latency: int = -1) -> dict:
    """Hit ratios of the cycle-level timing model (``golden/gpu``, dependences ``next-memory``).

    ``l1_read_hit_ratio`` and ``l2_hit_ratio`` have the definitions of
    :func:`simulator_reference` over the requests that looked up the cache: a
    request merged into a pending miss (an MSHR merge) never does, so it is in
    neither count. ``l1_read_hit_ratio_merged`` counts L1 merges as hits, as
    rdgc's parallel model does. Also the merges, cycles, IPC and the mean load
    latency in cycles. ``fixed_latency`` >= 0 gives the model ideal memory with
    that latency (no MSHRs, queues or bandwidth limits: every access runs
    through the hierarchy when it is sent, so no miss is in flight and nothing
    merges).
    """
    from golden.gpu.run import simulate_timed

    r = simulate_timed(workload, gpu, fixed_latency=fixed_latency)
    l1, l2, t = r["caches"]["l1"], r["caches"]["l2"], r["timing"]
    merges = t["l1"]["mshr_merges"]
    reads = l1["reads"] + merges
    return {"l1_read_hit_ratio": l1["read_hits"] / l1["reads"] if l1["reads"] else float("nan"),
            "l1_read_hit_ratio_merged": (l1["read_hits"] + merges) / reads if reads else float("nan"),
            "l2_hit_ratio": l2["hit_rate"], "l1_mshr_merges": merges, "cycles": t["cycles"], "ipc": t["ipc"],
            "avg_load_latency": t["avg_load_latency"]}


def compare(workload: Workload, gpu: GPUConfig, reference: Reference = simulator_reference,
            options: RDOptions | None = None) -> dict:
    """The RD model's L1 read and L2 hit ratios beside a reference model's.

    Returns
    -------
    dict
        ``{"rd": {...}, "reference": {...}}`` with the keys of :data:`Reference`.
    """
    return {"rd": rd_reference(workload, gpu, options), "reference": reference(workload, gpu)}


def rd_reference(workload: Workload, gpu: GPUConfig, options: RDOptions | None = None) -> dict:
    """The RD model's L1 read and L2 hit ratios, with the keys of :data:`Reference`."""
    res: RDResult = analyse(workload, gpu, options)
    return {"l1_read_hit_ratio": res.l1.read_hit_ratio if res.l1 else float("nan"),
            "l2_hit_ratio": res.l2.hit_ratio}
