"""Export to Accel-Sim traces: the importer reads every exported workload back to the same kernels."""

import numpy as np
import pytest

from cli.main import main
from golden.errors import InputError
from golden.trace.accelsim import read_accelsim
from golden.trace.accelsim_export import opcode, write_accelsim
from golden.trace.builder import KernelBuilder
from golden.trace.model import Op, Space, Workload, lane_addresses
from golden.workloads import registry


@pytest.fixture(autouse=True)
def trace_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path_factory.getbasetemp() / "trace-cache"))


def assert_same(a: Workload, b: Workload) -> None:
    """Same kernels, rows and lane addresses; a tail may be one longer where it was 0 (the EXIT)."""
    assert len(a.kernels) == len(b.kernels)
    for ka, kb in zip(a.kernels, b.kernels, strict=True):
        assert (ka.name, ka.grid, ka.block, ka.shared_bytes, ka.regs_per_thread) == (
            kb.name, kb.grid, kb.block, kb.shared_bytes, kb.regs_per_thread)
        for f in ("cta", "warp", "pc", "op", "space", "width", "mask", "gap"):
            assert np.array_equal(ka.insts[f], kb.insts[f]), f
        assert np.array_equal(lane_addresses(ka), lane_addresses(kb))
        grown = kb.tail.astype(np.int64) - ka.tail.astype(np.int64)
        assert np.array_equal(grown, (ka.tail == 0) & (np.diff(ka.warp_ptr) > 0))


# Shared memory and barriers (backprop), 2-D blocks (matrixmul, srad), atomics (histogram),
# scattered lanes (bfs), several kernels (bicg).
@pytest.mark.parametrize("name, scale", [("tian15/matrixmul", 0.05), ("rdgc/bp", 0.05), ("tian15/bfs", 0.01),
                                         ("tian15/histogram", 0.02), ("rdgc/bicg", 0.05),
                                         ("rdgc/srad", 0.05)])
def test_round_trip_of_built_in_workloads(name, scale, tmp_path):
    wl = registry.build(name, scale)
    s = write_accelsim(wl, tmp_path / "t")
    assert s.kernels == len(wl.kernels) and (tmp_path / "t" / "kernelslist.g").is_file()
    assert s.warp_instructions == wl.n_instructions + s.appended_exits
    assert_same(wl, read_accelsim(tmp_path / "t"))


def tiny() -> Workload:
    """Two warps of one CTA: a load, a store of the loaded value, a scattered load, a barrier."""
    b = KernelBuilder("tiny", grid=(1, 1, 1), block=(40, 1, 1))
    t = np.arange(40)
    b.load(0x10, 0x1000 + 4 * t)
    b.compute(2)
    b.store(0x20, 0x2000 + 8 * t, width=8)
    b.load(0x30, 0x3000 + 4 * ((t * 7) % 40))
    b.barrier()
    return Workload("tiny", [b.build()])


def test_lines_dependences_and_address_modes(tmp_path):
    write_accelsim(tiny(), tmp_path)
    text = (tmp_path / "kernel-1.traceg").read_text().splitlines()
    warp0 = text[text.index("warp = 0") + 2:text.index("warp = 1")]
    # The load writes R10; after two compute instructions the store (the next memory instruction)
    # reads it; the scattered load writes R10 again and the barrier consumes it; then EXIT.
    assert warp0 == [
        "0010 ffffffff 1 R10 LDG.E 0 4 1 0x0000000000001000 4",
        "0020 ffffffff 0 IMAD 0 0",
        "0030 ffffffff 0 IMAD 0 0",
        "0020 ffffffff 0 STG.E.64 1 R10 8 1 0x0000000000002000 8",
        "0030 ffffffff 1 R10 LDG.E 0 4 0 " + " ".join(f"0x{0x3000 + 4 * (t * 7 % 40):016x}"
                                                       for t in range(32)),
        "0000 ffffffff 0 BAR.SYNC 1 R10 0",  # barrier rows carry PC 0
        "0010 ffffffff 0 EXIT 0 0",
    ]
    warp1 = text[text.index("warp = 1") + 1:text.index("#END_TB")]
    assert warp1[0] == "insts = 7"
    assert warp1[1] == "0010 000000ff 1 R10 LDG.E 0 4 1 0x0000000000001080 4"


def test_no_dependences(tmp_path):
    write_accelsim(tiny(), tmp_path, dependences="none")
    text = (tmp_path / "kernel-1.traceg").read_text()
    assert " R10" not in text and "0010 ffffffff 0 LDG.E 0 4 1 0x0000000000001000 4" in text


def test_opcodes():
    assert opcode(Op.LOAD, Space.GLOBAL, 16) == "LDG.E.128"
    assert opcode(Op.STORE, Space.SHARED, 1) == "STS.U8"
    assert opcode(Op.ATOMIC, Space.GLOBAL, 4) == "ATOMG.E.ADD"
    assert opcode(Op.BARRIER, Space.NONE, 0) == "BAR.SYNC"
    with pytest.raises(InputError, match="no Accel-Sim opcode for a store in texture memory"):
        opcode(Op.STORE, Space.TEXTURE, 4)
    with pytest.raises(InputError, match="no Accel-Sim opcode for a 3-byte access"):
        opcode(Op.LOAD, Space.GLOBAL, 3)


def test_cli_export(tmp_path, capsys):
    out = tmp_path / "bicg"
    assert main(["trace", "export", "--workload", "rdgc/bicg", "--scale", "0.05", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"{out}: 2 kernels, ")
    assert main(["trace", "export", "--workload", "rdgc/bicg", "--dependences", "x", str(out)]) == 2
    assert "argument --dependences: invalid choice: 'x'" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    status = main(["trace", "export", "--workload", "rdgc/bicg", "--scale", "0.05", str(tmp_path / "file")])
    err = capsys.readouterr().err
    assert status == 2 and err.strip().endswith("is a regular file, not a directory") and err.count("\n") == 1
