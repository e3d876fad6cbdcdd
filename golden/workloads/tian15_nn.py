"""tian15 nn: Rodinia OpenCL nearest neighbour, kernel ``NearestNeighbor``.

Follows ``opencl/nn/nearestNeighbor_kernel.cl`` and the launch in
``opencl/nn/nearestNeighbor.cpp`` of Rodinia (the OpenCL twin of CUDA
``euclid`` in ``cuda/nn/nn_cuda.cu``: the same statement per record). One
work-item per record computes the Euclidean distance of its
``LatLong {float lat; float lng;}`` to the query point; the global size is
rounded up to a multiple of 64 and the local size is left to the runtime
(``NULL``), which is taken as 64 here (docs/workloads/tian15_a.md).

The record values do not change any address or branch of the kernel (the
host picks the nearest records afterwards), so the trace needs no input data
and ``seed`` is unused.

tian15 Table 2: nn, 342080 records, MI 130.4.
"""

from __future__ import annotations

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled

__all__ = ["build", "nearest_neighbor_kernel", "RECORDS", "WORK_GROUP"]

#: Records at scale 1.0 (tian15 Table 2: 342080).
RECORDS = 342_080
#: The host rounds the global size up to a multiple of 64; the local size is the runtime's.
WORK_GROUP = 64

# Compute instructions: the operators the source writes between memory instructions
# (docs/workloads/tian15_a.md, "compute-count rule").
_PROLOGUE = 2 + 2  # get_global_id; if (globalId < numRecords) (pointer sums: address formation)
_DISTANCE = 2 + 1 + 1 + 1  # lat - lat_, lng - lng_ (each once), product, FMA, sqrt


def nearest_neighbor_kernel(name: str, n: int, block: int, mem: DeviceMemory, pcs: PCs,
                            regs_per_thread: int = 0) -> KernelTrace:
    """One launch of the distance kernel over ``n`` records in CTAs of ``block`` threads.

    The statement of OpenCL ``NearestNeighbor`` and of CUDA ``euclid``
    (``cuda/nn/nn_cuda.cu``): ``dist[g] = sqrt((lat - loc[g].lat)^2 + (lng - loc[g].lng)^2)``
    for ``g < n``, with ``g`` the thread's index in the launch (CUDA's
    ``blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x`` is the same
    linear index for its 1-D grids of up to 65535 CTAs). Allocates
    ``d_locations`` (8 B per record) and ``d_distances`` (4 B) in ``mem``.
    """
    locations = mem.alloc("d_locations", 8 * n)
    distances = mem.alloc("d_distances", 4 * n)
    kb = KernelBuilder(name, grid=(-(-n // block),), block=(block,),
                       regs_per_thread=regs_per_thread)
    gid = kb.gtid
    live = gid < n
    kb.compute(_PROLOGUE)
    # latLong->lat and latLong->lng are each read twice in the statement: loaded once.
    kb.load(pcs("ld_lat"), locations + 8 * gid, active=live)
    kb.load(pcs("ld_lng"), locations + 8 * gid + 4, active=live)
    kb.compute(_DISTANCE, active=live)
    kb.store(pcs("st_dist"), distances + 4 * gid, active=live)
    return kb.build()


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Trace of one ``NearestNeighbor`` launch.

    Parameters
    ----------
    scale : float
        Records ``= 342080 * scale`` (at least 1).
    seed : int
        Unused (the addresses do not depend on the records).

    Returns
    -------
    Workload
        One launch of ``NearestNeighbor``.
    """
    n = scaled(RECORDS, scale)
    mem = DeviceMemory()
    kernel = nearest_neighbor_kernel("NearestNeighbor", n, WORK_GROUP, mem, PCs())
    return Workload(
        name="tian15/nn",
        kernels=[kernel],
        params={"records": n, "work_group": WORK_GROUP, "arrays": dict(mem.arrays)},
        source=_SOURCE,
    )


_SOURCE = "Rodinia opencl/nn/nearestNeighbor_kernel.cl (NearestNeighbor) with nearestNeighbor.cpp"

register_workload("tian15", "nn", build, source=_SOURCE, mi=130.4, size="342080 records",
                  description=("Euclidean distance of 342080 lat/long records to a query "
                               "point, one per thread"))
