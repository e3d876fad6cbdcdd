"""The compiled row checks of trace files against a plain numpy reference, on corrupted rows."""

import numpy as np
import pytest

from golden.trace.io import _KNOWN_OPS, _KNOWN_SPACES, MAX_ADDRESS
from golden.trace.model import INST_DTYPE, WARP_SIZE, Op
from golden.trace.row_checks import CHECKS, first_failures

N_CTAS, WPC = 3, 2


def reference(insts: np.ndarray, lanes: np.ndarray) -> list[int]:
    """The first failing row of each check, lane by lane in numpy (the loader's former code)."""
    memory = insts["op"] != Op.BARRIER
    dx = insts["dx"].astype(np.int64)
    li = insts["lanes"].astype(np.int64)
    bad = {
        "cta": (insts["cta"] < 0) | (insts["cta"] >= N_CTAS),
        "warp": (insts["warp"] < 0) | (insts["warp"] >= WPC),
        "op": ~_KNOWN_OPS[insts["op"]],
        "space": ~_KNOWN_SPACES[insts["space"]],
        "width": memory & (insts["width"] == 0),
        "dx": (dx < 1) | (dx > WARP_SIZE),
        "lanes": (li < -1) | (li >= lanes.shape[0]),
    }
    gid = insts["cta"].astype(np.int64) * WPC + insts["warp"]
    bad["order"] = np.r_[False, np.diff(gid) < 0]
    lane = np.arange(WARP_SIZE, dtype=np.int64)
    safe_dx = np.clip(dx, 1, WARP_SIZE)[:, None]
    addr = (insts["base"].astype(np.int64)[:, None] + (lane % safe_dx) * insts["sx"].astype(np.int64)[:, None]
            + (lane // safe_dx) * insts["sy"].astype(np.int64)[:, None])
    sound = ~bad["dx"] & ~bad["lanes"]
    explicit = sound & (li >= 0)
    addr[explicit] = lanes[li[explicit]].astype(np.int64)
    active = ((insts["mask"][:, None] >> lane.astype(np.uint32)) & 1).astype(bool) & (memory & sound)[:, None]
    top = MAX_ADDRESS - insts["width"].astype(np.int64)[:, None]
    bad["address"] = (active & ((addr < 0) | (addr > top))).any(axis=1)
    return [int(np.flatnonzero(bad[c])[0]) if bad[c].any() else -1 for c in CHECKS]


def random_rows(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    insts = np.zeros(n, INST_DTYPE)
    gid = np.sort(rng.integers(0, N_CTAS * WPC, n))
    insts["cta"], insts["warp"] = gid // WPC, gid % WPC
    insts["op"] = rng.choice([int(Op.LOAD), int(Op.STORE), int(Op.BARRIER)], n)
    insts["space"] = 1
    insts["width"] = rng.choice([1, 4, 8, 16], n)
    insts["dx"] = rng.choice([1, 8, 16, 32], n)
    insts["mask"] = rng.integers(0, 2**32, n, dtype=np.uint32)
    insts["base"] = rng.integers(0, 1 << 40, n, dtype=np.uint64)
    insts["sx"] = rng.integers(-64, 64, n)
    insts["sy"] = rng.integers(0, 4096, n)
    lanes = rng.integers(0, 1 << 40, (4, WARP_SIZE), dtype=np.uint64)
    insts["lanes"] = np.where(rng.random(n) < 0.3, rng.integers(0, 4, n), -1)
    return insts, lanes


def corrupt(rng: np.random.Generator, insts: np.ndarray, lanes: np.ndarray) -> None:
    """One random field of one random row (or one lane-table entry) set to a bad or edge value."""
    r = int(rng.integers(insts.size))
    field = rng.choice(["cta", "warp", "op", "space", "width", "dx", "lanes", "base", "sx", "sy", "table",
                        "mask", "edge", "table edge"])
    just = int(rng.integers(2))  # 0: the last byte in range; 1: one byte past it
    if field == "edge":  # every active lane's last byte at the limit, or one past it
        insts["base"][r], insts["sx"][r], insts["sy"][r] = MAX_ADDRESS - int(insts["width"][r]) + just, 0, 0
        insts["lanes"][r] = -1
        return
    if field == "table edge":
        i = int(rng.integers(lanes.shape[0]))
        insts["lanes"][r], insts["width"][r] = i, 16
        insts["op"][r], insts["mask"][r] = int(Op.LOAD), 2**32 - 1
        lanes[i, rng.integers(WARP_SIZE)] = MAX_ADDRESS - 16 + just
        return
    if field == "table":
        edge = np.array([MAX_ADDRESS, MAX_ADDRESS - 1, 1 << 63, 2**64 - 1], np.uint64)
        lanes[rng.integers(lanes.shape[0]), rng.integers(WARP_SIZE)] = edge[rng.integers(edge.size)]
        return
    values = {"cta": [-1, N_CTAS, 0], "warp": [-1, WPC], "op": [7, 200, int(Op.BARRIER)], "space": [9, 255],
              "width": [0, 255], "dx": [0, 33, 255, 1], "lanes": [-2, 4, 3, -1], "mask": [0, 1, 2**31],
              "base": [MAX_ADDRESS - 4, MAX_ADDRESS, 2**64 - 1, 0],
              "sx": [-(2**31), 2**31 - 1, -1], "sy": [-(2**31), 2**31 - 1]}[field]
    insts[field][r] = values[int(rng.integers(len(values)))]


@pytest.mark.parametrize("seed", range(40))
def test_compiled_checks_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    insts, lanes = random_rows(rng, 64)
    for _ in range(int(rng.integers(0, 4))):
        corrupt(rng, insts, lanes)
    got = first_failures(insts, lanes, N_CTAS, WPC, _KNOWN_OPS, _KNOWN_SPACES, int(Op.BARRIER), WARP_SIZE,
                         MAX_ADDRESS)
    assert got.tolist() == reference(insts, lanes)


def test_an_inactive_lane_out_of_range_is_allowed_and_an_active_one_is_not():
    rng = np.random.default_rng(1)
    insts, lanes = random_rows(rng, 8)
    insts["op"], insts["lanes"], insts["mask"], insts["dx"] = int(Op.LOAD), -1, 1, 32
    insts["base"], insts["sx"], insts["sy"] = 0, 0, 0
    insts["sx"][5] = 2**31 - 1  # lane 31 at 31 * (2**31 - 1): within 2**57; lane 1 too
    insts["base"][6] = MAX_ADDRESS - 2  # lane 0 of a 4-byte row ends past the limit
    insts["width"][6] = 4
    got = first_failures(insts, lanes, N_CTAS, WPC, _KNOWN_OPS, _KNOWN_SPACES, int(Op.BARRIER), WARP_SIZE,
                         MAX_ADDRESS)
    assert got[CHECKS.index("address")] == 6
    insts["mask"][6] = 2  # only lane 1 active: still out of range (base + sx 0)
    insts["sx"][6] = -(2**31)
    got = first_failures(insts, lanes, N_CTAS, WPC, _KNOWN_OPS, _KNOWN_SPACES, int(Op.BARRIER), WARP_SIZE,
                         MAX_ADDRESS)
    assert got[CHECKS.index("address")] == -1  # lane 1 at MAX_ADDRESS - 2 - 2**31: in range
