"""Area statistics of a unit with Yosys: flip-flops, storage bits, logic, NAND2 equivalents, depth.

Method (stated in every report):

1. The component's Verilog (``amaranth.back.verilog``) is read by Yosys,
   flattened and taken through ``synth -run coarse``; ``memory -nomap``
   keeps every memory as one ``$mem_v2`` cell. Memories are counted as
   **storage bits** (SRAM or register-file bits: width x depth), per
   structure, apart from logic.
2. The rest is mapped to gates with ``techmap`` and ``abc -g NAND``, giving
   two-input NANDs and inverters, and flip-flops.
3. NAND2 equivalents = NAND2 + 0.67 x NOT + 5.67 x flip-flop bits; the
   weights are the cell areas of the NanGate 45 nm open cell library
   relative to NAND2_X1 (INV_X1 0.532 um2, DFF_X1 4.522 um2, NAND2_X1
   0.798 um2). Storage bits are reported separately and not included.
4. Logic depth is Yosys's ``ltp -noff``: the longest path of gates between
   flip-flops, memory ports and ports.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

from amaranth.lib import wiring

from synth.verilog import write_verilog

__all__ = ["SynthReport", "synthesize", "require_yosys", "NAND2_WEIGHTS"]

#: NAND2-equivalent weight of each counted cell (NanGate 45 nm areas relative to NAND2_X1).
NAND2_WEIGHTS = {"nand2": 1.0, "not": 0.532 / 0.798, "ff": 4.522 / 0.798}

_SCRIPT = """read_verilog top.v
hierarchy -top top
proc; flatten; opt_clean
synth -top top -run coarse
memory -nomap
opt -full
techmap; opt
abc -g NAND
opt_clean
tee -q -o gates.txt stat
tee -q -o ltp.txt ltp -noff
write_json net.json
"""


@dataclass
class SynthReport:
    """Yosys statistics of one unit (see the module docstring for the method)."""

    unit: str
    flip_flops: int
    storage_bits: dict[str, int]
    nand2: int
    inverters: int
    other_cells: dict[str, int] = field(default_factory=dict)
    depth: int = 0

    @property
    def total_storage_bits(self) -> int:
        return sum(self.storage_bits.values())

    @property
    def nand2_equivalent(self) -> float:
        w = NAND2_WEIGHTS
        return self.nand2 * w["nand2"] + self.inverters * w["not"] + self.flip_flops * w["ff"]

    def as_dict(self) -> dict:
        d = asdict(self)
        d.update(total_storage_bits=self.total_storage_bits,
                 nand2_equivalent=round(self.nand2_equivalent, 1),
                 method="yosys synth -run coarse, memory -nomap, abc -g NAND; NanGate45 weights "
                        "NOT 0.67, DFF 5.67 NAND2")
        return d

    def format(self) -> str:
        lines = [f"unit {self.unit}",
                 f"  storage bits      {self.total_storage_bits:>10}  ({self.total_storage_bits / 8:.1f} B)"]
        for name, bits in self.storage_bits.items():
            lines.append(f"    {name:<16}{bits:>10}")
        lines += [f"  flip-flops        {self.flip_flops:>10}",
                  f"  NAND2 / NOT       {self.nand2:>10} / {self.inverters}",
                  f"  NAND2-equivalent  {self.nand2_equivalent:>10.0f}  "
                  "(logic and flip-flops; storage apart)",
                  f"  logic depth       {self.depth:>10}  gates"]
        if self.other_cells:
            lines.append("  other cells       " + ", ".join(f"{k} {v}" for k, v in self.other_cells.items()))
        return "\n".join(lines)


def require_yosys() -> str:
    """Path of ``yosys``; RuntimeError with what to install when it is missing."""
    exe = shutil.which("yosys")
    if not exe:
        raise RuntimeError("yosys is not installed: run 'make test' as root or 'apt-get install yosys'")
    return exe


def _cells(stat: str) -> dict[str, int]:
    cells = {}
    for m in re.finditer(r"^\s+(\$\S+)\s+(\d+)\s*$", stat, re.M):
        cells[m.group(1)] = int(m.group(2))
    return cells


def synthesize(component: wiring.Component, out_dir: str | Path, *, name: str = "unit") -> SynthReport:
    """Write the Verilog of ``component`` to ``out_dir`` and measure it with Yosys.

    Files written: ``top.v``, ``synth.ys``, ``yosys.log``, ``gates.txt``,
    ``ltp.txt``, ``net.json``.
    """
    exe = require_yosys()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_verilog(component, out / "top.v")
    (out / "synth.ys").write_text(_SCRIPT)
    proc = subprocess.run([exe, "-q", "-l", "yosys.log", "synth.ys"], cwd=out, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"yosys failed on {name}; see {out / 'yosys.log'}")
    cells = _cells((out / "gates.txt").read_text())
    net = json.loads((out / "net.json").read_text())
    storage = {}
    for cell in net["modules"]["top"]["cells"].values():
        if cell["type"] == "$mem_v2":
            p = cell["parameters"]
            storage[p["MEMID"].lstrip("\\")] = int(p["WIDTH"], 2) * int(p["SIZE"], 2)
    ffs = sum(n for t, n in cells.items() if "DFF" in t)
    depth = re.search(r"length=(\d+)", (out / "ltp.txt").read_text())
    other = {t: n for t, n in cells.items() if t not in ("$_NAND_", "$_NOT_", "$mem_v2") and "DFF" not in t}
    return SynthReport(unit=name, flip_flops=ffs, storage_bits=storage, nand2=cells.get("$_NAND_", 0),
                       inverters=cells.get("$_NOT_", 0), other_cells=other,
                       depth=int(depth.group(1)) if depth else 0)
