"""``gpucache synth``: Verilog and Yosys area statistics of the RTL units."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from golden.configs.loader import load_config
from golden.files import atomic_write

__all__ = ["add_parser", "synth"]


def add_parser(sub) -> None:
    from catalog import unit_names


    p = sub.add_parser(
        "synth", help="write a unit's Verilog and its Yosys area statistics",
        description="Write each unit's Verilog and a Yosys report (storage bits per structure, "
                    "flip-flops, NAND2-equivalent gates, logic depth), and a table beside the overhead "
                    "its paper reports (area.md, area.json in --out).")
    p.add_argument("--unit", required=True, choices=unit_names() + ["all"], help="RTL unit, or all")
    p.add_argument("--config", default="tian15", metavar="PRESET|FILE", help="machine (default tian15)")
    p.add_argument("--out", default="build/synth", metavar="DIR", help="output directory")
    p.set_defaults(func=synth)


def synth(args: argparse.Namespace) -> int:
    from catalog import unit_names
    from synth.table import format_area_table, overhead_bits, synth_units
    from synth.yosys import require_yosys

    try:
        require_yosys()
    except RuntimeError as e:
        from golden.errors import InputError

        raise InputError(str(e)) from None
    gpu = load_config(args.config)
    names = unit_names() if args.unit == "all" else [args.unit]
    out = Path(args.out)
    reports = synth_units(names, gpu, out)
    for r in reports:
        print(r.format())
        print(f"  files             {out / r.unit}/top.v, yosys.log")
    table = format_area_table(reports)
    print()
    print(table)
    atomic_write(out / "area.md", lambda tmp: Path(tmp).write_text(table + "\n"))
    data = [{**r.as_dict(), "overhead_bits": overhead_bits(r)} for r in reports]
    atomic_write(out / "area.json", lambda tmp: Path(tmp).write_text(json.dumps(data, indent=2) + "\n"))
    return 0
