"""Stand-ins for drp16's SPEC CPU2006 applications: seeded synthetic L1 access streams.

**These are not SPEC.** SPEC CPU2006 is licensed and not available here;
drp16 (Section 3) runs 13 memory-sensitive applications of it in
execution-driven mode. Each stand-in below is a mixture of three kinds of
data references, with footprints following the application's published
character (SPEC's own descriptions and the CPU2006 memory-behaviour
studies: Henning, "SPEC CPU2006 memory footprint", CAN 2007; Jaleel,
"Memory characterization of workloads using instrumentation-driven
simulation", 2007): the **kind** of each reference stream is what matters
to an LLC policy (streaming with no reuse, cyclic reuse beyond the LLC,
reuse within it, pointer chasing), and the footprints are sized relative
to drp16's 16 MB LLC. The figures are our choices, given per application
in :data:`PROFILES` and ``docs/drp16_workloads.md``.

Components (footprints in MB at scale 1, multiplied by ``scale`` with the LLC):

``stream``  a sequential sweep (a line's second reference is a store with
            probability ``2 x stores``: read-modify-write),
            restarting at the start when it reaches the footprint end;
``cyclic``  the same, over a footprint the sweep revisits (LRU thrashes when
            it exceeds the LLC: libquantum, sphinx3);
``chase``   uniformly random lines over the footprint (pointer chasing: mcf,
            omnetpp), a store with probability ``stores``;
``hot``     a small, often-reused working set (stack, globals, hot heap).

Each component has its own PCs (``pcs`` of them; a reference's PC is drawn
per access), so PC-based predictors (SHiP-PC) can tell them apart as they
could the real loads. Two references are emitted per 64-byte line visit
of a sweep (the private L1 filters the second), one per random visit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from golden.errors import InputError

__all__ = ["Component", "PROFILES", "cpu_stream", "footprint_lines"]

_MB_LINES = (1 << 20) // 64


class Component(NamedTuple):
    """One reference stream of an application: kind, footprint (MB at scale 1), share, stores, PCs."""

    kind: str
    mb: float
    share: float
    stores: float = 0.0
    pcs: int = 4


#: Stand-in profiles: SPEC CPU2006 application -> components (footprints in MB of a 16 MB-LLC system).
PROFILES: dict[str, tuple[Component, ...]] = {
    # mcf: network simplex on a large graph, pointer chasing over ~1.7 GB (the highest LLC MPKI of CPU2006).
    "mcf": (Component("chase", 1600, 0.7, 0.1, 8), Component("hot", 2, 0.3, 0.2)),
    # lbm: Lattice Boltzmann, two ~200 MB grids streamed each step (read one, write the other).
    "lbm": (Component("stream", 400, 0.95, 0.5, 4), Component("hot", 0.25, 0.05)),
    # libquantum: a ~32 MB register vector swept repeatedly, read-modify-write (thrashes LRU LLCs).
    "libquantum": (Component("cyclic", 32, 0.95, 0.5, 2), Component("hot", 0.25, 0.05)),
    # milc: lattice QCD, large strided sweeps over ~600 MB of fields.
    "milc": (Component("stream", 600, 0.75, 0.3, 8), Component("hot", 4, 0.25, 0.1)),
    # soplex pds-50: sparse LP, column sweeps plus irregular accesses to ~250 MB.
    "soplex.pds-50": (Component("stream", 200, 0.4, 0.1, 6), Component("chase", 48, 0.3, 0.05, 6),
                      Component("hot", 2, 0.3, 0.2)),
    # omnetpp: discrete-event simulation, pointer-heavy heap of ~120 MB with a reused core of ~10 MB.
    "omnetpp": (Component("chase", 10, 0.55, 0.2, 8), Component("chase", 100, 0.2, 0.1, 8),
                Component("hot", 1, 0.25, 0.2)),
    # sphinx3: speech recognition, acoustic models of ~12 MB scanned per frame (LLC-sized cyclic reuse).
    "sphinx3": (Component("cyclic", 12, 0.6, 0.0, 6), Component("hot", 1, 0.4, 0.2)),
    # gcc 166.i: compiler, irregular accesses to ~80 MB with a reused ~8 MB part.
    "gcc.166.i": (Component("chase", 8, 0.45, 0.3, 8), Component("chase", 80, 0.15, 0.3, 8),
                  Component("hot", 2, 0.4, 0.3)),
    # bzip2 source: block sorting of 900 KB blocks over ~200 MB of buffers.
    "bzip2.source": (Component("chase", 6, 0.5, 0.3, 6), Component("stream", 200, 0.2, 0.3, 4),
                     Component("hot", 1, 0.3, 0.2)),
    # wrf: weather model, stencil sweeps over ~700 MB with a reused ~4 MB part.
    "wrf": (Component("stream", 700, 0.5, 0.3, 8), Component("hot", 4, 0.5, 0.2)),
    # leslie3d: LES fluid dynamics, stencil sweeps over ~120 MB.
    "leslie3d": (Component("stream", 120, 0.8, 0.3, 8), Component("hot", 2, 0.2, 0.2)),
    # bwaves: blast waves, streaming over ~870 MB.
    "bwaves": (Component("stream", 870, 0.9, 0.2, 6), Component("hot", 1, 0.1, 0.2)),
    # zeusmp: MHD stencil over ~500 MB with a reused ~8 MB part.
    "zeusmp": (Component("stream", 500, 0.6, 0.3, 8), Component("hot", 8, 0.4, 0.2)),
}
PROFILES["leslie3D"] = PROFILES["leslie3d"]  # Table 3 spells it both ways


def footprint_lines(mb: float, scale: float) -> int:
    """Lines of a footprint of ``mb`` MB at ``scale`` (at least 64)."""
    return max(64, round(mb * _MB_LINES * scale))


def cpu_stream(app: str, n: int, scale: float = 1.0, seed: int = 0, base: int = 0) -> np.ndarray:
    """``n`` L1 references of a stand-in: ``(op, pc, line)`` rows (``op`` 1 load, 2 store).

    Parameters
    ----------
    app : str
        A key of :data:`PROFILES`.
    n : int
        References to emit.
    scale : float
        Footprint factor (the LLC's scale).
    seed : int
        Seed of every random choice.
    base : int
        First line of the application's address space (cores get disjoint spaces).

    Returns
    -------
    numpy.ndarray
        Structured rows ``op`` (u1), ``pc`` (u8), ``line`` (u8).

    Raises
    ------
    InputError
        For an application with no stand-in.
    """
    if app not in PROFILES:
        raise InputError(f"unknown CPU application {app!r}; stand-ins exist for "
                         f"{', '.join(sorted(PROFILES))}")
    comps = PROFILES[app]
    rng = np.random.default_rng(seed)
    which = rng.choice(len(comps), size=n, p=np.array([c.share for c in comps]) / sum(c.share for c in comps))
    out = np.zeros(n, [("op", "u1"), ("pc", "<u8"), ("line", "<u8")])
    at = base
    pc0 = 0x400000 + 0x10000 * (sum(map(ord, app)) % 64)
    for k, c in enumerate(comps):
        idx = np.flatnonzero(which == k)
        m = idx.size
        lines = footprint_lines(c.mb, scale)
        if c.kind in ("stream", "cyclic"):
            visit = np.arange(m) // 2  # two references per line visit
            rel = visit % lines
            # the second reference of a visit is the store (a share ``stores`` of all references)
            op = np.where((np.arange(m) % 2 == 1) & (rng.random(m) < 2 * c.stores), 2, 1)
        elif c.kind == "chase":
            rel = rng.integers(0, lines, m)
            op = np.where(rng.random(m) < c.stores, 2, 1)
        elif c.kind == "hot":
            rel = np.minimum((rng.pareto(1.2, m) * lines / 8).astype(np.int64), lines - 1)
            op = np.where(rng.random(m) < c.stores, 2, 1)
        else:  # pragma: no cover - PROFILES is fixed
            raise ValueError(c.kind)
        out["line"][idx] = at + rel
        out["op"][idx] = op
        out["pc"][idx] = pc0 + 0x100 * k + 4 * rng.integers(0, c.pcs, m)
        at += lines + 64
    return out
