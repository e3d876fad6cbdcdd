"""Kept timing-model programs (:func:`golden.gpu.program.keep_programs`): built once, same results."""

from __future__ import annotations

import gc

import numpy as np

from golden.configs.presets import preset
from golden.experiments.ciao18 import run_point
from golden.gpu import program
from golden.gpu.program import keep_programs, kernel_program
from golden.workloads import registry


def _same(a: program.Program, b: program.Program) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in
               ("op", "space", "pc", "gap", "req_ptr", "req_line", "req_sec", "warp_ptr", "tail"))


def test_a_kept_kernel_builds_its_program_once_per_machine_and_gives_the_same_run(monkeypatch, tmp_path):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    wl = registry.build("ciao18/atax", 0.02)
    k = wl.kernels[0]
    fresh = kernel_program(k, 32, 128, 0)
    assert kernel_program(k, 32, 128, 0) is not fresh  # not kept: built every time
    g = preset("ciao18")
    before = run_point(wl, g, "gto")
    keep_programs(wl.kernels)
    kept = kernel_program(k, 32, 128, 0)
    assert kernel_program(k, 32, 128, 0) is kept and _same(kept, fresh)
    assert kernel_program(k, 32, 128, 32) is not kept  # another machine's program is another entry
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
