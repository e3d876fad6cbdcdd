"""rdgc CFD: Rodinia 3.1 cfd (euler3d) flux kernel on a 193474-element mesh (RDGC Table 4: L = 83).

Follows ``cuda/cfd/euler3d.cu``: ``compute_flux`` launches
``cuda_compute_flux`` with one thread per element (``nelr / 192`` CTAs of
192 threads). Each thread reads its own five flow variables, then for each
of its 4 faces (``NNB``) the neighbour index and the face normal, and the
neighbour's five variables when the face is shared with another element,
and writes its five fluxes. RDGC Table 4 analyses this kernel only; one
launch is emitted (every launch of the solver's ``2000 x 3`` reads the same
addresses).

Rodinia's input ``fvcorr.domn.193K`` (193474 tetrahedra around a wing) is
not distributed with gpucache; :func:`tet_mesh` generates a tetrahedral mesh
of the same size and structure (docs/workloads/rdgc_rodinia.md).
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._program import Program

__all__ = ["build", "tet_mesh", "flux_kernel", "SIZE", "WING", "FAR_FIELD"]

#: Elements of Rodinia's fvcorr.domn.193K at scale 1.0 (RDGC Table 4: "0.2M").
SIZE = 193_474
#: Neighbour codes after euler3d.cu's input conversion: a wing face, a far-field face.
WING, FAR_FIELD = -1, -2

SOURCE = "Rodinia 3.1 cuda/cfd/euler3d.cu"

BLOCK_SIZE = 192  # euler3d.cu
NNB, NDIM, NVAR = 4, 3, 5
_F4 = 4

#: Kuhn subdivision of a cube into 6 tetrahedra, one per permutation of the axes.
_PERMS = np.array([(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)])


def _perm_index(perms: np.ndarray) -> np.ndarray:
    """Index in ``_PERMS`` of each row of ``perms`` (``[..., 3]``)."""
    first = np.select([perms[..., 0] == k for k in range(3)], [0, 2, 4])
    return first + (perms[..., 1] > perms[..., 2])


def tet_mesh(n_elements: int, seed: int = 0) -> np.ndarray:
    """Face neighbours of a tetrahedral mesh around a plate wing, in euler3d.cu's convention.

    The domain is a box of ``nx x m x m`` unit cubes (``nx`` about ``2m``), each
    cut into 6 tetrahedra along its main diagonal (Kuhn subdivision, a
    conforming mesh in which every tetrahedron has 4 face neighbours). A
    one-cube-thick plate of cubes, a quarter of the box long, half of it wide
    and touching the ``z = 0`` side, is removed: it is the wing. Elements are
    numbered cube by cube (x fastest, then y, then z) and 6 per cube, so face
    neighbours are near in number as in a generated mesh file; the first
    ``n_elements`` are kept (faces towards dropped elements become far-field
    faces). The order of each element's 4 faces is shuffled with
    ``default_rng(seed)``, as a mesh file lists faces in no particular order.

    Parameters
    ----------
    n_elements : int
        Elements to generate.
    seed : int
        Seed of the face-order shuffle.

    Returns
    -------
    numpy.ndarray
        ``int32[n_elements, 4]``: a neighbour element (0-based), :data:`WING` or
        :data:`FAR_FIELD` per face.

    Raises
    ------
    ValueError
        If ``n_elements`` is not a positive integer.
    """
    if int(n_elements) != n_elements or n_elements < 1:
        raise ValueError(f"n_elements: must be a positive integer, not {n_elements}")
    m = max(2, int(np.ceil((n_elements / 12) ** (1 / 3))))

    def wing_of(nx):
        return max(1, nx // 4), m // 2  # chord (x) and span (z) in cubes

    nx = 1
    while True:  # the shortest box that holds n_elements after the wing is cut out
        chord, span = wing_of(nx)
        if 6 * (nx * m * m - chord * span) >= n_elements:
            break
        nx += 1
    dims = np.array([nx, m, m])
    x0, y0 = nx // 4, m // 2
    cube = np.arange(nx * m * m)
    xyz = np.stack([cube % nx, (cube // nx) % m, cube // (nx * m)], axis=1)
    in_wing = ((xyz[:, 0] >= x0) & (xyz[:, 0] < x0 + chord) & (xyz[:, 1] == y0)
               & (xyz[:, 2] < span))

    # For tetrahedron (p0, p1, p2) of a cube: the face opposite v0 is shared with
    # tetrahedron (p1, p2, p0) of the cube at +e_p0, the face opposite v3 with
    # (p2, p0, p1) at -e_p2; the faces opposite v1 and v2 with (p1, p0, p2) and
    # (p0, p2, p1) of the same cube.
    p = _PERMS
    face_perm = np.stack([p[:, [1, 2, 0]], p[:, [1, 0, 2]], p[:, [0, 2, 1]], p[:, [2, 0, 1]]],
                         axis=1)  # [6, 4, 3]
    step = np.zeros((6, 4, 3), dtype=np.int64)
    step[np.arange(6), 0, p[:, 0]] = 1
    step[np.arange(6), 3, p[:, 2]] = -1
    nb_xyz = xyz[:, None, None, :] + step[None]  # [cubes, 6, 4, 3]
    outside = np.any((nb_xyz < 0) | (nb_xyz >= dims), axis=-1)
    nb_cube = np.where(outside, 0, nb_xyz[..., 0] + nx * (nb_xyz[..., 1] + m * nb_xyz[..., 2]))
    old_id = nb_cube * 6 + _perm_index(face_perm)[None]
    # Renumber: wing cubes hold no elements.
    keep = np.repeat(~in_wing, 6)
    new_id = np.cumsum(keep) - 1
    nb = np.where(keep[old_id], new_id[old_id], WING)
    nb = np.where(outside, FAR_FIELD, nb)
    nb = nb.reshape(-1, 4)[keep][:n_elements]
    nb = np.where(nb >= n_elements, FAR_FIELD, nb)
    nb = np.random.default_rng(seed).permuted(nb, axis=1)
    return nb.astype(np.int32)


def flux_kernel(neighbours: np.ndarray, *, mem: DeviceMemory | None = None,
                pcs: PCs | None = None) -> KernelTrace:
    """One launch of ``cuda_compute_flux`` over a mesh.

    Arrays are allocated as euler3d.cu's ``main`` does, padded to ``nelr``, a
    multiple of 192; the padding elements repeat the last element's neighbours.

    Parameters
    ----------
    neighbours : numpy.ndarray
        ``int[nel, 4]`` face neighbours in euler3d.cu's convention (:func:`tet_mesh`).
    mem : DeviceMemory, optional
        Allocator to place the arrays with (a new one when None).
    pcs : PCs, optional
        PC numbering (a new one when None).
    """
    nel = len(neighbours)
    nelr = BLOCK_SIZE * -(-nel // BLOCK_SIZE)
    mem = DeviceMemory() if mem is None else mem
    pcs = PCs() if pcs is None else pcs
    mem.alloc("areas", nelr * _F4)
    ese = mem.alloc("elements_surrounding_elements", nelr * NNB * _F4)
    normals = mem.alloc("normals", nelr * NDIM * NNB * _F4)
    variables = mem.alloc("variables", nelr * NVAR * _F4)
    mem.alloc("old_variables", nelr * NVAR * _F4)
    fluxes = mem.alloc("fluxes", nelr * NVAR * _F4)
    mem.alloc("step_factors", nelr * _F4)
    nb_all = np.concatenate([neighbours, np.repeat(neighbours[-1:], nelr - nel, axis=0)])

    kb = KernelBuilder("cuda_compute_flux", grid=(nelr // BLOCK_SIZE,), block=(BLOCK_SIZE,))
    p = Program(kb, pcs, kb.name)
    i = kb.bx * BLOCK_SIZE + kb.tx
    p.compute(2)  # blockDim.x * blockIdx.x + threadIdx.x
    for v in range(NVAR):  # density, momentum x, y, z, density_energy
        p.load(f"ld_var{v}", variables + (i + v * nelr) * _F4)
    # velocity (3 /), speed_sqd (5), sqrtf, pressure (4), speed of sound (3),
    # flux contributions (13), five zeroed accumulators.
    p.compute(34)
    # `#pragma unroll`: each face has its own PCs.
    for j in range(NNB):
        nb = nb_all[kb.gtid, j]
        p.load(f"ld_nb{j}", ese + (i + j * nelr) * _F4)
        for k in range(NDIM):
            p.load(f"ld_normal{j}_{k}", normals + (i + (j + k * NNB) * nelr) * _F4)
        p.compute(8)  # normal_len (5 and sqrtf), nb >= 0 and branch
        inner = nb >= 0
        for v in range(NVAR):
            p.load(f"ld_nbvar{j}_{v}", variables + (np.maximum(nb, 0) + v * nelr) * _F4,
                   active=inner)
        # velocity, speed_sqd, pressure, speed of sound (15), flux contributions (13),
        # artificial viscosity (7 + 15), three normal components (3 x 16).
        p.compute(98, active=inner)
        p.compute(2, active=~inner)  # nb == -1 and branch
        p.compute(6, active=nb == WING)  # three fused multiply-adds of normal * pressure
        p.compute(2, active=(nb < 0) & (nb != WING))  # nb == -2 and branch
        # Far-field constants are __constant__ operands of the arithmetic, not loads.
        p.compute(48, active=nb == FAR_FIELD)
    for v in range(NVAR):  # density, momentum x, y, z, density_energy
        p.store(f"st_flux{v}", fluxes + (i + v * nelr) * _F4)
    return p.build()


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """The flux kernel on a generated mesh of ``SIZE * scale`` elements (at least one CTA's).

    ``seed`` shuffles the order of each element's faces (:func:`tet_mesh`).
    """
    nel = scaled(SIZE, scale, minimum=BLOCK_SIZE)
    neighbours = tet_mesh(nel, seed)
    kernel = flux_kernel(neighbours, mem=DeviceMemory(), pcs=PCs())
    counts = {int(k): int(v) for k, v in zip(*np.unique(np.minimum(neighbours, 0),
                                                        return_counts=True), strict=True)}
    return Workload(name="rdgc/cfd", kernels=[kernel],
                    params={"elements": nel, "nelr": kernel.n_ctas * BLOCK_SIZE,
                            "mesh": "kuhn-box-wing-v1",
                            "faces": {"interior": counts.get(0, 0), "wing": counts.get(WING, 0),
                                      "far_field": counts.get(FAR_FIELD, 0)}},
                    source=SOURCE)


register_workload("rdgc", "cfd", build, source=SOURCE, L=83, N=SIZE, size="0.2M", kernels="Flux",
                  description="cfd euler3d: flux kernel over a generated 193474-element tetrahedral mesh")
