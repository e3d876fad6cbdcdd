"""Register dependences: an Accel-Sim trace's registers give each load its consumer.

The importer turns each memory row's destination registers into a consumer
distance (``KernelTrace.consumers``: the first later instruction of the warp
that reads or overwrites one of them); the timing model's ``registers`` rule
holds the warp at that instruction until that load is back, and only that
load. Expected figures are worked out by hand from the trace lines, or from
the latencies of ``tests/test_timing.py``'s test GPU.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from golden.cache.hierarchy import Hierarchy
from golden.errors import InputError
from golden.gpu.model import TimingModel
from golden.gpu.run import resolve_dependences, simulate_timed
from golden.trace import accelsim
from golden.trace.accelsim import read_accelsim, read_kernel_trace
from golden.trace.accelsim_export import write_accelsim
from golden.trace.builder import KernelBuilder
from golden.trace.io import load_workload, save_workload
from golden.trace.model import Workload
from golden.workloads import registry
from tests.test_timing import DRAM_LATENCY, LINE, gpu

DATA = Path(__file__).parent / "data" / "accelsim"


# -- the importer ---------------------------------------------------------------------------


def test_consumer_distances_of_the_version_3_4_5_traces():
    """Worked by hand from tests/data/accelsim (position of the consumer minus the load's)."""
    (k3,) = read_accelsim(DATA / "v3").kernels
    # Block 0 warp 0: LDG R4 at 2, read by STG (R2 R4) at 6: 4. LDG R5 and LDS R6: never read.
    # Warp 1: LDG.E.64 R4 at 1, STG at 3: 2. Block 1: LDG R4 then EXIT: none.
    assert k3.consumers.tolist() == [4, -1, -1, -1, 2, -1, -1, -1]
    k4a, k4b = read_accelsim(DATA / "v4").kernels
    assert k4a.consumers.tolist() == [1, -1, -1, -1, 1, -1]
    assert k4b.consumers.tolist() == [-1, -1, -1]
    (k5,) = read_accelsim(DATA / "v5").kernels
    assert k5.consumers.tolist() == [3, -1, 2, -1, -1]


def _random_trace(rng, n_ctas: int, wpc: int, n_inst: int) -> tuple[str, list[int]]:
    """A version-4 trace of random loads, stores, compute and barriers over registers R0..R7,
    and its consumer distances by the rule, worked out here line by line."""
    lines = [f"-grid dim = ({n_ctas},1,1)", f"-block dim = ({32 * wpc},1,1)",
             "-accelsim tracer version = 4", ""]
    expected = []
    for c in range(n_ctas):
        lines += ["#BEGIN_TB", f"thread block = {c},0,0"]
        for w in range(wpc):
            body, pending = [], {}  # register -> (row of expected, position)
            for pos in range(n_inst):
                kind = rng.choice(["ld", "ld", "st", "alu", "alu", "alu", "bar"])
                dst = [int(rng.integers(8))] if kind in ("ld", "alu") else []
                src = [int(v) for v in rng.integers(0, 8, int(rng.integers(0, 3)))]
                for r in src + dst:
                    if r in pending:
                        row, at = pending.pop(r)
                        if expected[row] < 0:
                            expected[row] = pos - at
                regs = f"{len(dst)} {''.join(f'R{r} ' for r in dst)}"
                srcs = f"{len(src)} {''.join(f'R{r} ' for r in src)}"
                addr = f"0x{0x7F0000000000 + 4096 * (c * wpc + w) + 128 * pos:x}"
                if kind == "ld":
                    body.append(f"{16 * pos:04x} ffffffff {regs}LDG.E {srcs}4 1 {addr} 4")
                    expected.append(-1)
                    for r in dst:
                        pending[r] = (len(expected) - 1, pos)
                elif kind == "st":
                    body.append(f"{16 * pos:04x} ffffffff {regs}STG.E {srcs}4 1 {addr} 4")
                    expected.append(-1)
                elif kind == "bar":
                    body.append(f"{16 * pos:04x} ffffffff {regs}BAR.SYNC {srcs}0")
                    expected.append(-1)
                else:
                    body.append(f"{16 * pos:04x} ffffffff {regs}IMAD {srcs}0")
                    for r in dst:
                        pending.pop(r, None)
            lines += [f"warp = {w}", f"insts = {n_inst}", *body]
        lines.append("#END_TB")
    return "\n".join(lines) + "\n", expected


@pytest.mark.parametrize("batch", [3, 1 << 16])
def test_consumer_distances_follow_the_rule_across_batches_and_chunks(tmp_path, monkeypatch, batch):
    # Small batches and chunks put a load and its consumer in different scanner calls.
    monkeypatch.setattr(accelsim, "_BATCH", batch)
    monkeypatch.setattr(accelsim, "_CHUNK", 97)
    text, expected = _random_trace(np.random.default_rng(5), 3, 2, 40)
    (tmp_path / "kernel-1.traceg").write_text(text)
    k = read_kernel_trace(tmp_path / "kernel-1.traceg")
    assert len(expected) == len(k.insts) and (np.array(expected) > 0).sum() > 20
    assert k.consumers.tolist() == expected


@pytest.mark.parametrize("line, message", [
    ("0000 ffffffff 1 UR4 IMAD 0 0", "destination register 'UR4' is not a register R0..R255"),
    ("0000 ffffffff 0 IMAD 1 R256 0", "source register 'R256' is not a register R0..R255"),
    ("0000 ffffffff 0 IMAD 1 R-1 0", "source register 'R-1' is not a register R0..R255"),
    ("0000 ffffffff 33 " + "R1 " * 33 + "IMAD 0 0", "destination count '33' is more than 32"),
])
def test_a_bad_register_is_a_one_line_error(tmp_path, line, message):
    # Header lines 1-3, then #BEGIN_TB, the block, the warp and its count: the instruction is line 8.
    (tmp_path / "kernel-1.traceg").write_text(
        "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n#BEGIN_TB\n"
        f"thread block = 0,0,0\nwarp = 0\ninsts = 1\n{line}\n#END_TB\n")
    with pytest.raises(InputError) as e:
        read_kernel_trace(tmp_path / "kernel-1.traceg")
    assert str(e.value) == f"{tmp_path / 'kernel-1.traceg'}:8: {message}"


def test_consumers_survive_a_trace_file_and_bad_ones_are_refused(tmp_path):
    wl = read_accelsim(DATA / "v3")
    save_workload(tmp_path / "v3.npz", wl)
    (k,) = load_workload(tmp_path / "v3.npz").kernels
    assert k.consumers.tolist() == wl.kernels[0].consumers.tolist()
    for bad in (0, -2):
        use = wl.kernels[0].consumers.copy()
        use[1] = bad
        broken = Workload("x", [dataclasses.replace(wl.kernels[0], consumers=use)])
        save_workload(tmp_path / "bad.npz", broken)
        with pytest.raises(InputError, match=rf"kernel 0: member 'k0_consumers' row 1: consumer distance "
                                             rf"{bad} is not -1 or 1\.\."):
            load_workload(tmp_path / "bad.npz")


# -- the timing model ------------------------------------------------------------------------


def _load_then_compute(use: int) -> object:
    """One warp: a load of a line from DRAM, then 20 compute instructions; the load's consumer ``use`` on."""
    kb = KernelBuilder("one", (1,), (32,))
    kb.load(0x10, np.full(32, 0, np.int64))
    kb.compute(20)
    return dataclasses.replace(kb.build(), consumers=np.array([use]))


def _cycles(kernel, dependences: str, **options) -> int:
    g = gpu()
    tm = TimingModel(g, Hierarchy(g), dependences=dependences, **options)
    return tm.run_kernel(kernel, 0).cycles


def test_the_warp_waits_at_the_consumer_not_before():
    # Without a consumer the warp issues its 20 compute instructions while the load is out and
    # ends when it is back (DRAM_LATENCY > 20). With the consumer d instructions on, the d - 1
    # before it issue meanwhile, the consumer in the cycle the data arrives (as GPGPU-Sim's
    # scoreboard releases the register at writeback), and the 20 - d after it one a cycle.
    assert DRAM_LATENCY > 20
    base = _cycles(_load_then_compute(-1), "registers")
    assert base == _cycles(_load_then_compute(-1), "none") == _cycles(_load_then_compute(-1), "next-memory")
    for d in (1, 5, 15, 20):
        assert _cycles(_load_then_compute(d), "registers") - base == 20 - d
    # next-instruction is the consumer at 1.
    assert _cycles(_load_then_compute(-1), "next-instruction") == _cycles(_load_then_compute(1), "registers")


def _two_loads(b_waits_for_a: bool) -> object:
    """Warm line 0; miss on line 1 (A) and hit line 0 (B); B's consumer, 30 compute, A's consumer."""
    kb = KernelBuilder("two", (1,), (32,))
    kb.load(0x10, np.full(32, 0, np.int64))  # row 0: brings line 0 in, used at once
    kb.compute(1)
    kb.load(0x20, np.full(32, LINE, np.int64))  # row 1, A: a DRAM miss
    kb.load(0x30, np.full(32, 0, np.int64))  # row 2, B: an L1 hit
    kb.compute(32)
    # Positions: row 0 at 0, compute 1, A at 2, B at 3, compute 4..35. B's consumer is at 4, A's at
    # 35 (the last) or, when B waits for A, at 4 too.
    use = [1, 2 if b_waits_for_a else 33, 1]
    return dataclasses.replace(kb.build(), consumers=np.array(use))


def test_a_consumer_waits_for_its_own_load_only():
    alone = _cycles(_two_loads(False), "registers")
    both = _cycles(_two_loads(True), "registers")
    # Waiting for A at position 4 delays the 31 instructions after it past A's return.
    assert both - alone == 31
    # Under next-memory B itself waits for A (it is the next memory instruction).
    assert _cycles(_two_loads(False), "next-memory") > alone + 20


def test_registers_reproduce_next_memory_on_an_exported_workload(tmp_path):
    # The exporter writes next-memory's dependences as registers (each load's result read by the
    # warp's next memory or barrier instruction), so the import under 'registers' runs exactly as
    # the import under 'next-memory': shared memory, barriers and 3 kernels (ciao18/backprop).
    wl = registry.build("ciao18/backprop", 0.02, 0)
    write_accelsim(wl, tmp_path / "t", dependences="next-memory")
    imported = read_accelsim(tmp_path / "t")
    g = gpu(n_sm=2, l2_partitions=2)
    regs = simulate_timed(imported, g, dependences="auto")
    plain = simulate_timed(imported, g, dependences="next-memory")
    assert regs["timing"]["dependences"] == "registers" and plain["timing"]["dependences"] == "next-memory"
    assert regs["totals"] == plain["totals"]
    assert {k: v for k, v in regs["timing"].items() if k != "dependences"} == \
        {k: v for k, v in plain["timing"].items() if k != "dependences"}
    # Without registers (dependences none) the import's loads block nothing: faster.
    write_accelsim(wl, tmp_path / "n", dependences="none")
    free = simulate_timed(read_accelsim(tmp_path / "n"), g)
    assert free["totals"]["cycles"] < regs["totals"]["cycles"]


def test_auto_takes_registers_only_where_the_trace_has_them():
    built = registry.build("rdgc/bicg", 0.01, 0)
    assert resolve_dependences(built, "auto") == "next-memory"
    assert resolve_dependences(read_accelsim(DATA / "v4"), "auto") == "registers"
    assert resolve_dependences(built, "none") == "none"
    with pytest.raises(ValueError, match=r"^dependences: 'registers' needs a trace with registers \(an "
                                         r"Accel-Sim import\); kernel 'bicg_kernel1' of rdgc/bicg has none$"):
        resolve_dependences(built, "registers")
    with pytest.raises(ValueError, match="^dependences: must be auto or one of"):
        resolve_dependences(built, "later")


def test_cli_registers_on_a_built_in_workload_is_a_one_line_error(capsys):
    code = main(["run", "--workload", "rdgc/bicg", "--scale", "0.01", "--config", "kim20",
                 "--dependences", "registers"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == ["gpucache: error: dependences: 'registers' needs a trace with registers (an "
                                 "Accel-Sim import); kernel 'bicg_kernel1' of rdgc/bicg has none"]
