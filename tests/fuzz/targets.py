"""Fuzz targets of gpucache's loaders: bytes in, a loaded object or an InputError out.

Each target writes its input to a file and calls one loader. The promise
checked is the command line's: a damaged file gives an
:class:`~golden.errors.InputError` (one line, exit 2) and nothing else. An
input that loads is then *used* the way ``gpucache run`` uses it, on a small
machine, because an accepted file that crashes the run later breaks the same
promise.

Targets (:data:`TARGETS`):

``npz``
    the bytes are a whole ``.npz`` trace file (the zip container included);
``npz-members``
    the bytes are the members of a trace file, joined by :data:`SEPARATOR`,
    written into a valid zip: mutations reach the ``.npy`` headers, the meta
    JSON and the arrays instead of stopping at the zip's checksums;
``toml``, ``json``
    a machine config file;
``accelsim``
    one Accel-Sim ``kernel-*.traceg`` file.

Used by ``tests/test_fuzz_properties.py`` (hypothesis, bounded examples) and
``tests/fuzz/run_fuzz.py`` (atheris, coverage-guided, long runs).
"""

from __future__ import annotations

import io
import os
import tempfile
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

from golden.configs.loader import dump_toml, load_config
from golden.configs.presets import PRESETS, preset
from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError
from golden.trace.builder import KernelBuilder
from golden.trace.io import save_workload
from golden.trace.model import Space, Workload

__all__ = ["TARGETS", "SEPARATOR", "seeds", "run_target", "SMALL_GPU"]

#: Joins the members of an ``npz-members`` input (name, then the .npy bytes).
SEPARATOR = b"\n@@member@@"

ROOT = Path(__file__).resolve().parents[2]

#: The machine an accepted trace is run on: small, so a fuzz input runs in microseconds.
SMALL_GPU = GPUConfig(name="fuzz", n_sm=2, l1=CacheConfig(size=1024, assoc=4, line_size=64),
                      l2=CacheConfig(size=4096, assoc=4, line_size=64))

_TMP = Path(tempfile.mkdtemp(prefix="gpucache-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))


def _file(name: str, data: bytes) -> Path:
    path = _TMP / name
    path.write_bytes(data)
    return path


def _use_workload(wl: Workload, gpu: GPUConfig = SMALL_GPU, policy=None) -> None:
    """Run ``wl`` through the interleaver and the hierarchy, as ``gpucache run`` does."""
    from golden.cache import Hierarchy
    from golden.trace.interleave import interleave

    h = Hierarchy(gpu, policy=policy)
    for il in interleave(wl, gpu):
        h.run(il.accesses)


def tiny_workload() -> Workload:
    """Three kernels: affine and explicit lanes, global, shared, a barrier; one without rows."""
    kb = KernelBuilder("affine", grid=(2, 1, 1), block=(48, 1, 1), shared_bytes=256)
    kb.load(0x100, 0x1000_0000 + kb.gtid * 4)
    kb.compute(2)
    kb.barrier()
    kb.store(0x108, kb.tid * 4, space=Space.SHARED)
    k1 = kb.build()
    kb = KernelBuilder("gather", grid=(1, 2, 1), block=(8, 4, 1))
    kb.load(0x200, 0x2000_0000 + (kb.gtid * 7919 % 1000) * 8, width=8)
    kb.store(0x208, 0x3000_0000 + kb.gtid * 4)
    k2 = kb.build()
    empty = KernelBuilder("empty", grid=(1, 1, 1), block=(1, 1, 1)).build()  # no rows, one warp
    return Workload(name="fuzz/tiny", kernels=[k1, k2, empty], params={"n": 96}, source="targets.py")


def _npz_bytes(wl: Workload) -> bytes:
    path = _TMP / "seed.npz"
    save_workload(path, wl)
    return path.read_bytes()


def _members(npz: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(npz)) as z:
        return b"".join(SEPARATOR + info.filename.encode() + b"\n" + z.read(info) for info in z.infolist())


def _npz_from_members(data: bytes) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        warnings.simplefilter("ignore")  # a mutation may repeat a member name: the zip keeps both
        for part in data.split(SEPARATOR):
            name, sep, body = part.partition(b"\n")
            if sep and name and b"\0" not in name:
                z.writestr(name.decode("latin-1"), body)
    return buf.getvalue()


def load_npz(data: bytes) -> None:
    """Target ``npz``."""
    from golden.trace.io import load_workload

    _use_workload(load_workload(_file("t.npz", data)))


def load_npz_members(data: bytes) -> None:
    """Target ``npz-members``."""
    load_npz(_npz_from_members(data))


def load_toml(data: bytes) -> None:
    """Target ``toml``: load, then run a small workload on it with each of its policies."""
    _use_config(load_config(_file("c.toml", data)))


def load_json(data: bytes) -> None:
    """Target ``json``."""
    _use_config(load_config(_file("c.json", data)))


def _use_config(gpu: GPUConfig) -> None:
    from golden.policies.base import get_policy, policy_names

    # The config must also write out and load back unchanged (gpucache configs show).
    again = load_config(_file("again.toml", dump_toml(gpu).encode()))
    if again != gpu:
        raise AssertionError(f"configs show does not round-trip: {gpu!r} -> {again!r}")
    wl = _config_workload()
    _use_workload(wl, gpu)
    for name in sorted(set(gpu.policy_params) & set(policy_names())):
        _use_workload(wl, gpu, get_policy(name, **gpu.policy_params[name]))


_WL: list[Workload] = []


def _config_workload() -> Workload:
    if not _WL:
        _WL.append(tiny_workload())
    return _WL[0]


def load_accelsim(data: bytes) -> None:
    """Target ``accelsim``: one kernel file, then run it."""
    from golden.trace.accelsim import read_kernel_trace

    kernel = read_kernel_trace(_file("kernel-1.traceg", data))
    _use_workload(Workload(name="fuzz/accelsim", kernels=[kernel]))


#: name -> function(bytes); every one may raise only InputError.
TARGETS: dict[str, Callable[[bytes], None]] = {
    "npz": load_npz,
    "npz-members": load_npz_members,
    "toml": load_toml,
    "json": load_json,
    "accelsim": load_accelsim,
}


def seeds(target: str) -> list[bytes]:
    """Valid inputs of ``target`` that the mutations start from."""
    if target == "npz":
        return [_npz_bytes(tiny_workload())]
    if target == "npz-members":
        return [_members(_npz_bytes(tiny_workload()))]
    if target == "toml":
        return [dump_toml(preset(n)).encode() for n in PRESETS] + [
            b'base = "tian15"\nn_sm = 4\n[l1]\nsize = 32768\n[policy_params.pc-bypass]\nthreshold = 4\n']
    if target == "json":
        return [b'{"base": "tian15", "n_sm": 4, "l1": {"size": 32768, "assoc": 4},\n'
                b' "l3": null, "policy_params": {"counter-bypass": {"algorithm": "aip"}}}\n',
                b'{"n_sm": 2, "l1": {"size": 1024, "assoc": 2, "line_size": 32},\n'
                b' "l2": {"size": 8192, "assoc": 8, "line_size": 64, "index": "xor"}}\n']
    if target == "accelsim":
        data = ROOT / "tests" / "data" / "accelsim"
        empty = b"-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 3\n"
        return [p.read_bytes() for p in sorted(data.glob("v*/kernel-*.traceg"))] + [empty]
    raise KeyError(target)


def run_target(target: str, data: bytes) -> bool:
    """Run ``target`` on ``data``: True if it loaded, False on an InputError; anything else propagates."""
    try:
        TARGETS[target](data)
    except InputError:
        return False
    return True


if __name__ == "__main__":  # a quick self-check: every seed loads
    for t in TARGETS:
        print(t, [run_target(t, s) for s in seeds(t)])
