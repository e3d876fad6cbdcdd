"""How often an SM has warps left to issue and every one of them stalled by the scheduler.

Runs one ciao18 benchmark on the timing model with a scheduler (CIAO-T by default) and samples,
after every slice of cycles (``golden.gpu.model.SLICE``), each SM's warps that still have
instructions to issue and how many of them the policy blocks. Prints the histogram of unblocked
such warps over the samples of busy SMs, the IPC, and the model's releases of policy blocks
(``timing.policy_releases``). An SM sampled with 0 unblocked warps issues nothing: ciao18's epochs
are counted in the SM's instructions (``docs/policies/ciao18.md``, "Stalled SMs").

Usage::

    python benchmarks/ciao18_stalled_sms.py gesummv [--scale 0.25] [--policy ciao-t]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from golden.cache.hierarchy import Hierarchy
from golden.configs.presets import preset
from golden.gpu.model import TimingModel
from golden.gpu.state import row
from golden.policies import get_policy
from golden.workloads import registry


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload", help="a ciao18 benchmark (gesummv, syr2k, ...)")
    ap.add_argument("--scale", type=float, default=0.25)
    ap.add_argument("--policy", default="ciao-t")
    args = ap.parse_args()
    gpu = preset("ciao18")
    wl = registry.build(args.workload if "/" in args.workload else f"ciao18/{args.workload}", args.scale)
    policy = get_policy(args.policy)
    if hasattr(policy, "attach_gpu"):
        policy.attach_gpu(gpu)
    tm = TimingModel(gpu, Hierarchy(gpu, policy))
    w = tm.state.w
    slots = gpu.max_warps_per_sm
    left_rows, blocked_rows = [], []

    def sample(*_) -> None:
        left = (w[row("w", "w_active")] != 0) & (w[row("w", "w_done")] == 0)
        blocked = left & (w[row("w", "ctl_blocked")] != 0)
        left_rows.append(left.reshape(-1, slots)[:gpu.n_sm].sum(1))
        blocked_rows.append(blocked.reshape(-1, slots)[:gpu.n_sm].sum(1))

    cycles = instructions = released_sm = released_gpu = 0
    for i, kernel in enumerate(wl.kernels):
        t = tm.run_kernel(kernel, i, sample)
        cycles += t.end - t.start
        instructions += t.counters["instructions"]
        released_sm += t.counters.get("policy_releases_sm", 0)  # 0 before the counters existed
        released_gpu += t.counters.get("policy_releases_gpu", 0)
    left, blocked = np.array(left_rows), np.array(blocked_rows)
    busy = left > 0
    free = (left - blocked)[busy]
    hist = dict(zip(*(v.tolist() for v in np.unique(free, return_counts=True)), strict=True))
    print(f"{wl.name} scale {args.scale:g} {args.policy}: IPC {instructions / max(cycles, 1):.4f}, "
          f"{cycles:,} cycles, {len(left_rows)} samples")
    print(f"  busy-SM samples {int(busy.sum())}; with no unblocked warp {hist.get(0, 0)} "
          f"({hist.get(0, 0) / max(int(busy.sum()), 1):.1%}); unblocked warps: {hist}")
    print(f"  policy blocks released: per SM {released_sm}, whole GPU {released_gpu}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
