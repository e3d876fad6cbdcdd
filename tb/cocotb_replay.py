"""Replay a transaction log into the generated Verilog with cocotb 2 and Icarus Verilog.

The cocotb half of this module (``ReplayTB`` and the ``replay_log`` test)
runs inside the simulator; :func:`replay_cocotb` is the Python half that
writes the Verilog, builds it with ``cocotb_tools.runner`` in its own build
directory and runs the test. The log and the port lists reach the
simulator through files named by environment variables, and the result
comes back as JSON.

Timing per row: inputs are driven after the falling clock edge, outputs are
sampled in the read-only phase before the next rising edge (where the
unit's combinational outputs have settled), then the rising edge applies
the row's updates.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from tb.log import Mismatch, unit_layout

__all__ = ["replay_cocotb", "require_icarus"]

_ENV_LOG = "GPUCACHE_COCOTB_LOG"
_ENV_PORTS = "GPUCACHE_COCOTB_PORTS"
_ENV_RESULT = "GPUCACHE_COCOTB_RESULT"


def require_icarus() -> str:
    """Path of ``iverilog``; RuntimeError with what to install when it is missing."""
    exe = shutil.which("iverilog")
    if not exe:
        raise RuntimeError("iverilog is not installed: run 'make test' as root or 'apt-get install iverilog'")
    return exe


try:  # the simulator-side half: importable only where cocotb runs
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
except ImportError:  # pragma: no cover - cocotb is a test dependency
    cocotb = None


class ReplayTB:
    """Clock, reset, driver, monitor and an in-order scoreboard for one unit.

    Parameters
    ----------
    dut : cocotb handle
        The toplevel (generated Verilog module ``top``).
    inputs, outputs : list of str
        Port names, as in the log and the Verilog (nested members flattened, ``a__b``).
    """

    def __init__(self, dut, inputs: list[str], outputs: list[str]) -> None:
        self.dut = dut
        self.inputs = inputs
        self.outputs = outputs
        self.errors = 0
        self.first: tuple[int, dict[str, int]] | None = None

    async def reset(self) -> None:
        cocotb.start_soon(Clock(self.dut.clk, 10, unit="ns").start())
        self.dut.rst.value = 1
        for p in self.inputs:
            getattr(self.dut, p).value = 0
        await RisingEdge(self.dut.clk)
        await FallingEdge(self.dut.clk)
        self.dut.rst.value = 0

    def drive(self, row: dict[str, int]) -> None:
        for p in self.inputs:
            getattr(self.dut, p).value = row[p]

    def sample(self) -> dict[str, int]:
        out = {}
        for p in self.outputs:
            v = getattr(self.dut, p).value
            out[p] = int(v) if v.is_resolvable else -1  # -1 stands for x/z
        return out

    def score(self, i: int, expected: dict[str, int], actual: dict[str, int]) -> None:
        if expected != actual:
            self.errors += 1
            if self.first is None:
                self.first = (i, actual)

    async def run(self, log: np.ndarray) -> int:
        """Replay every row; stop at the first mismatch. Returns rows checked."""
        cols_in = {p: log[p].tolist() for p in self.inputs}
        cols_out = {p: log[f"exp_{p}"].tolist() for p in self.outputs}
        for i in range(len(log)):
            self.drive({p: cols_in[p][i] for p in self.inputs})
            await ReadOnly()
            self.score(i, {p: cols_out[p][i] for p in self.outputs}, self.sample())
            if self.errors:
                return i
            await RisingEdge(self.dut.clk)
            await FallingEdge(self.dut.clk)
        return len(log)


if cocotb is not None:

    @cocotb.test()
    async def replay_log(dut):
        """Replay the log named by $GPUCACHE_COCOTB_LOG; assert zero scoreboard errors."""
        log = np.load(os.environ[_ENV_LOG])
        ports = json.loads(Path(os.environ[_ENV_PORTS]).read_text())
        tb = ReplayTB(dut, ports["inputs"], ports["outputs"])
        await tb.reset()
        rows = await tb.run(log)
        result = {"rows": rows, "errors": tb.errors,
                  "first": None if tb.first is None else [tb.first[0], tb.first[1]]}
        Path(os.environ[_ENV_RESULT]).write_text(json.dumps(result))
        assert tb.errors == 0, f"{tb.errors} mismatches, first at row {rows}"


def replay_cocotb(dut, log: np.ndarray, build_dir: str | Path):
    """Write ``dut`` as Verilog, build it with Icarus via cocotb's runner and replay ``log``.

    Returns a :class:`tb.amaranth_sim.ReplayResult`.
    """
    from cocotb_tools.runner import get_runner

    from synth.verilog import write_verilog
    from tb.amaranth_sim import ReplayResult

    require_icarus()
    build_dir = Path(build_dir).resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    layout = unit_layout(log, dut)
    src = write_verilog(dut, build_dir / "top.v")
    log_path, ports_path, result_path = (build_dir / n for n in ("log.npy", "ports.json", "result.json"))
    np.save(log_path, log)
    ports_path.write_text(json.dumps({"inputs": list(layout.inputs), "outputs": list(layout.outputs)}))
    result_path.unlink(missing_ok=True)
    runner = get_runner("icarus")
    runner.build(sources=[src], hdl_toplevel="top", build_dir=build_dir, always=True,
                 timescale=("1ns", "1ps"))
    try:
        runner.test(test_module="tb.cocotb_replay", hdl_toplevel="top", build_dir=build_dir,
                    test_dir=build_dir, extra_env={_ENV_LOG: str(log_path), _ENV_PORTS: str(ports_path),
                                                   _ENV_RESULT: str(result_path)})
    except SystemExit:
        pass  # the runner exits on a failed test; the result file says why
    if not result_path.is_file():
        raise RuntimeError(f"cocotb run produced no result; see {build_dir}")
    res = json.loads(result_path.read_text())
    if res["first"] is None:
        return ReplayResult(res["rows"], None)
    row, actual = res["first"]
    return ReplayResult(row, Mismatch.at(log, layout, row, actual))
