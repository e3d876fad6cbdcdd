"""The area table: each unit's Yosys figures beside the overhead its paper reports."""

from __future__ import annotations

from pathlib import Path

from golden.configs.schema import GPUConfig
from synth.units import PAPER_OVERHEAD, PredictorParams, build_unit
from synth.yosys import SynthReport, synthesize

__all__ = ["synth_units", "format_area_table"]


def synth_units(names: list[str], gpu: GPUConfig, out_dir: str | Path,
                params: PredictorParams | None = None) -> list[SynthReport]:
    """Verilog and Yosys statistics for each unit, each in ``out_dir/<unit>/``."""
    return [synthesize(build_unit(n, gpu, params), Path(out_dir) / n, name=n) for n in names]


def overhead_bits(report: SynthReport) -> int:
    """Storage bits of the structures the paper counts as overhead."""
    _, _, structures = PAPER_OVERHEAD[report.unit]
    return sum(bits for name, bits in report.storage_bits.items() if name in structures)


def format_area_table(reports: list[SynthReport]) -> str:
    """A Markdown table: storage (all, and the paper's overhead part), logic, and the paper's figure."""
    head = ("| unit | storage bits (all) | overhead bits (ours) | paper overhead | flip-flops | "
            "NAND2 eq. (logic+FF) | depth | paper source |")
    lines = [head, "|" + "---|" * 8]
    for r in reports:
        paper_bits, source, _ = PAPER_OVERHEAD[r.unit]
        ours = overhead_bits(r)
        lines.append(f"| {r.unit} | {r.total_storage_bits} | {ours} ({ours / 8:g} B) | "
                     f"{paper_bits} ({paper_bits / 8:g} B) | {r.flip_flops} | {r.nand2_equivalent:.0f} | "
                     f"{r.depth} | {source} |")
    return "\n".join(lines)
