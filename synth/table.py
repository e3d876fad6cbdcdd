"""The area table: each unit's Yosys figures beside the overhead its paper reports."""

from __future__ import annotations

from pathlib import Path

from catalog.registry import get_unit, policy_for
from golden.configs.schema import GPUConfig
from synth.yosys import SynthReport, synthesize

__all__ = ["synth_units", "overhead_bits", "format_area_table"]


def synth_units(names: list[str], gpu: GPUConfig, out_dir: str | Path) -> list[SynthReport]:
    """Verilog and Yosys statistics for each catalog unit, each in ``out_dir/<unit>/``.

    The units are built for ``gpu``'s caches with its ``policy_params``.
    """
    reports = []
    for name in names:
        spec = get_unit(name)
        policy = policy_for(spec, gpu) if spec.policy is not None else None
        reports.append(synthesize(spec.rtl(gpu, policy), Path(out_dir) / name, name=name))
    return reports


def overhead_bits(report: SynthReport) -> int | None:
    """Storage bits of the memories the paper counts as the unit's overhead.

    Its flip-flops for a unit without memories (``UnitSpec.overhead_in_flip_flops``); None when
    the paper gives no bits.

    Raises
    ------
    ValueError
        If one of those memories is not in the synthesized unit (renamed or removed).
    """
    spec = get_unit(report.unit)
    if spec.overhead_bits is None:
        return None
    if spec.overhead_in_flip_flops:
        return report.flip_flops
    missing = [m for m in spec.overhead_memories if m not in report.storage_bits]
    if missing:
        raise ValueError(f"unit {report.unit}: the overhead memories {', '.join(missing)} are not in the "
                         f"synthesized unit (it has {', '.join(report.storage_bits) or 'none'})")
    return sum(report.storage_bits[m] for m in spec.overhead_memories)


def format_area_table(reports: list[SynthReport]) -> str:
    """A Markdown table: storage (all, and the paper's overhead part), logic, and the paper's figure."""
    head = ("| unit | storage bits (all) | overhead bits (ours) | paper overhead | flip-flops | "
            "NAND2 eq. (logic+FF) | depth | paper source |")
    lines = [head, "|" + "---|" * 8]
    for r in reports:
        spec = get_unit(r.unit)
        ours, paper_bits = overhead_bits(r), spec.overhead_bits
        ours_text = "—" if ours is None else f"{ours} ({ours / 8:g} B)"
        paper_text = "—" if paper_bits is None else f"{paper_bits} ({paper_bits / 8:g} B)"
        lines.append(f"| {r.unit} | {r.total_storage_bits} | {ours_text} | "
                     f"{paper_text} | {r.flip_flops} | {r.nand2_equivalent:.0f} | "
                     f"{r.depth} | {spec.overhead_source} |")
    return "\n".join(lines)
