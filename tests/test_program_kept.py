"""Kept timing-model programs (:func:`golden.gpu.program.keep_programs`): built once, same results."""

from __future__ import annotations

import gc

import numpy as np

from golden.configs.presets import preset
from golden.experiments.ciao18 import run_point
from golden.gpu import program
from golden.gpu.program import SharedBanks, keep_programs, kernel_program
from golden.workloads import registry


def _same(a: program.Program, b: program.Program) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in
               ("op", "space", "pc", "gap", "req_ptr", "req_line", "req_sec", "warp_ptr", "tail",
                "req_chunks", "smem_cycles"))


def test_a_kept_kernel_builds_its_program_once_per_machine_and_gives_the_same_run(monkeypatch, tmp_path):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    wl = registry.build("ciao18/atax", 0.02)
    k = wl.kernels[0]
    # The ciao18 preset's programs: 128-byte lines without sectors, stores' chunks noted
    # (write_packet "segment"), shared rows' bank accesses (32 banks, one part, every word broadcast).
    banks = SharedBanks(32, 32, "all")
    fresh = kernel_program(k, 32, 128, 0, True, shared_banks=banks)
    assert kernel_program(k, 32, 128, 0, True, shared_banks=banks) is not fresh  # not kept: built every time
    g = preset("ciao18")
    before = run_point(wl, g, "gto")
    keep_programs(wl.kernels)
    kept = kernel_program(k, 32, 128, 0, True, shared_banks=banks)
    assert kernel_program(k, 32, 128, 0, True, shared_banks=banks) is kept and _same(kept, fresh)
    assert kernel_program(k, 32, 128, 32) is not kept  # another machine's program is another entry
    assert kernel_program(k, 32, 128, 0, shared_banks=banks) is not kept  # so is one without the chunks
    assert kernel_program(k, 32, 128, 0, True) is not kept  # or without the bank accesses
    assert kernel_program(k, 64, 128, 0).n_warps < kept.n_warps
    builds = []
    real = program._build
    monkeypatch.setattr(program, "_build", lambda *a: builds.append(a[1:]) or real(*a))
    assert run_point(wl, g, "gto") == before  # a run on kept programs: equal in every field
    assert run_point(wl, g, "gto") == before
    assert len(builds) == len(wl.kernels) - 1  # kernel 0's was kept above; each other once
    del wl, k, kept, fresh
    gc.collect()
    assert len(program._KEPT) == 0  # the programs go with their kernels


def test_programs_keep_the_traces_narrow_columns(monkeypatch, tmp_path):
    """A kept program stays small: op, space and sector masks one byte, PC and gap four (a PVC-sized
    program with int64 columns cost a worker 2.3 GiB more at the paper's size), for trace warps and
    for wavefronts alike; the values are the trace's."""
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    k = registry.build("ciao18/atax", 0.02).kernels[0]
    narrow = {"op": np.uint8, "space": np.uint8, "req_sec": np.uint8, "pc": np.uint32, "gap": np.uint32,
              "req_line": np.int64, "req_ptr": np.int64}
    for warp_size in (32, 64):
        p = kernel_program(k, warp_size, 128, 32)
        for name, dtype in narrow.items():
            col = getattr(p, name)
            assert col.dtype == dtype and col.flags.c_contiguous, (warp_size, name, col.dtype)
    p = kernel_program(k, 32, 128, 32)
    assert np.array_equal(p.op, k.insts["op"]) and np.array_equal(p.pc, k.insts["pc"])
    assert np.array_equal(p.gap, k.insts["gap"]) and np.array_equal(p.space, k.insts["space"])
    assert p.req_sec.min() > 0 and p.req_sec.max() <= 0xF  # 4 sectors of 32 B per 128 B line
