"""The data model of GPU work: per-warp instruction streams, coalescing, files, imports.

Re-exports the public names of the subpackage.
"""

from golden.trace.accelsim import read_accelsim, read_kernel_trace
from golden.trace.builder import KernelBuilder
from golden.trace.coalesce import ACCESS_DTYPE, coalesce
from golden.trace.interleave import Interleaved, concurrent_ctas, interleave, interleave_kernel
from golden.trace.io import FORMAT_VERSION, load_workload, save_workload
from golden.trace.model import (
    INST_DTYPE,
    WARP_SIZE,
    KernelTrace,
    Op,
    Space,
    Workload,
    lane_addresses,
)

__all__ = [
    "ACCESS_DTYPE",
    "FORMAT_VERSION",
    "INST_DTYPE",
    "Interleaved",
    "WARP_SIZE",
    "KernelBuilder",
    "KernelTrace",
    "Op",
    "Space",
    "Workload",
    "coalesce",
    "concurrent_ctas",
    "interleave",
    "interleave_kernel",
    "lane_addresses",
    "load_workload",
    "read_accelsim",
    "read_kernel_trace",
    "save_workload",
]
