"""rdgc's physical model (Section 4.2, Algorithms 1-3): where and in which order accesses reach a cache.

* **CTA-to-SM mapping** (rdgc Table 2): ``rr`` (CTA ``b`` on SM ``b % P``),
  ``bpart1``/``bpart2`` (partitions of 4/8 consecutive CTAs dealt round
  robin), ``rand`` (a seeded random permutation of the CTAs dealt round
  robin, so every SM gets ``ceil`` or ``floor`` of ``NB / P``). An SM runs
  its CTAs in ascending CTA order.
* **Residency** (Algorithm 3): ``CB`` and ``Nitr`` from
  :func:`golden.trace.interleave.concurrent_ctas`, the interleaver's code.
* **Order** (Algorithm 2): for each iteration ``i``, access number ``j``,
  resident CTA ``k`` and scheduler group ``l`` (warps ``l * n_scheduler``
  to ``(l + 1) * n_scheduler - 1`` of the CTA), one access list ``W``: the
  lines of those warps' ``j``-th accesses. Lists without lines are skipped.
* **Banks and sets** (two-level mapping): the cache's index function over
  all its sets picks a line's set, and set ``s`` lives in bank
  ``s % (Q * B)`` of a cache of ``Q`` partitions with ``B`` banks each (for
  the L1, ``Q = 1``). rdgc's L2 uses a two-level interleaving it does not
  spell out (its Figure 1b); see docs/rd.md for why the plain low-order
  split of the line number was rejected.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from golden.cache.indexing import set_indices
from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError
from golden.rd.logical import LogicalTrace, pack_keys
from golden.trace.interleave import concurrent_ctas

__all__ = ["MAPPINGS", "Placement", "cta_to_sm", "place", "bank_map"]

#: CTA-to-SM mapping policies (rdgc Table 2).
MAPPINGS = ("rr", "bpart1", "bpart2", "rand")
_PART = {"bpart1": 4, "bpart2": 8}


def cta_to_sm(n_ctas: int, n_sm: int, mapping: str = "rr", seed: int = 0) -> np.ndarray:
    """SM of every CTA under ``mapping`` (see the module docstring).

    Raises
    ------
    InputError
        For an unknown mapping.
    """
    b = np.arange(n_ctas, dtype=np.int64)
    if mapping == "rr":
        return b % n_sm
    if mapping in _PART:
        return (b // _PART[mapping]) % n_sm
    if mapping == "rand":
        out = np.empty(n_ctas, np.int64)
        out[np.random.default_rng(seed).permutation(n_ctas)] = b % n_sm
        return out
    raise InputError(f"mapping: unknown CTA-to-SM mapping {mapping!r} (one of {', '.join(MAPPINGS)})")


@dataclass(eq=False)
class Placement:
    """The line accesses of one kernel, per SM in Algorithm 2's order.

    Members
    -------
    lines, write, warp : numpy.ndarray
        Per line access: line number, write flag, warp index in its CTA (the list priority).
    list_ptr : numpy.ndarray
        CSR of the access lists over the access arrays.
    sm_lists : numpy.ndarray
        ``int64[n_sm + 1]``: SM ``s``'s lists are ``sm_lists[s]:sm_lists[s + 1]``.
    active_sms : int
        SMs with at least one CTA.
    """

    lines: np.ndarray
    write: np.ndarray
    warp: np.ndarray
    list_ptr: np.ndarray
    sm_lists: np.ndarray
    active_sms: int

    def sm_range(self, s: int) -> tuple[int, int]:
        """Access index range of SM ``s``."""
        return int(self.list_ptr[self.sm_lists[s]]), int(self.list_ptr[self.sm_lists[s + 1]])


@nb.njit(cache=True, nogil=True)
def _expand(order, counts, ptr, lines, write, wid, total):
    """Line-level arrays of the records ``order`` (``counts[r]`` lines each), in one pass."""
    out_lines = np.empty(total, lines.dtype)
    out_write = np.empty(total, np.bool_)
    out_warp = np.empty(total, np.int64)
    o = 0
    for r in range(order.size):
        rec = order[r]
        a = ptr[rec]
        for t in range(counts[r]):
            out_lines[o] = lines[a + t]
            out_write[o] = write[rec]
            out_warp[o] = wid[rec]
            o += 1
    return out_lines, out_write, out_warp


def place(lt: LogicalTrace, gpu: GPUConfig, mapping: str = "rr", seed: int = 0) -> Placement:
    """Algorithms 1-3 up to the L1: map the CTAs, form the waves and order the access lists.

    Parameters
    ----------
    lt : LogicalTrace
        The kernel's logical model.
    gpu : GPUConfig
        SMs (``P``), ``n_scheduler``, ``MAXCB``, ``MAXCW`` and the thread limit.
    mapping : str
        One of :data:`MAPPINGS`.
    seed : int
        Seed of ``rand``.
    """
    n_sm = gpu.n_sm
    sm_of = cta_to_sm(lt.n_ctas, n_sm, mapping, seed)
    # Position of each CTA among its SM's CTAs (ascending CTA order) and the SM's CB.
    bsm = np.bincount(sm_of, minlength=n_sm)
    by_sm = np.argsort(sm_of, kind="stable")
    pos = np.empty(lt.n_ctas, np.int64)
    first = np.zeros(n_sm, np.int64)
    np.cumsum(bsm[:-1], out=first[1:])
    pos[by_sm] = np.arange(lt.n_ctas) - first[sm_of[by_sm]]
    cb = np.array([max(1, concurrent_ctas(int(n), lt.warps_per_cta, lt.threads_per_cta, gpu)[0])
                   for n in bsm], np.int64)
    rsm = sm_of[lt.bid]
    rpos = pos[lt.bid]
    it = rpos // cb[rsm]
    k = rpos % cb[rsm]
    grp = lt.wid // gpu.schedulers_per_sm
    # One sort on (sm, iteration, AN, resident CTA, scheduler group, warp): the fields packed
    # into one integer when they fit, a lexsort otherwise.
    fields = [rsm, it, lt.an, k, grp, lt.wid]
    key, list_key = pack_keys(fields, list_fields=5)
    if key is not None:
        order = np.argsort(key, kind="stable")
    else:
        order = np.lexsort(fields[::-1])
    counts = (lt.ptr[1:] - lt.ptr[:-1])[order]
    keep = counts > 0
    order, counts = order[keep], counts[keep]
    if key is not None:
        lk = list_key[order]
        new_list = np.r_[True, lk[1:] != lk[:-1]][: order.size]
    else:
        keys = np.stack([f[order] for f in fields[:5]])
        new_list = np.r_[True, (keys[:, 1:] != keys[:, :-1]).any(axis=0)][: order.size]
    # Line-level arrays: each record's lines in their coalesced order.
    total = int(counts.sum())
    rec_start = np.zeros(order.size + 1, np.int64)
    np.cumsum(counts, out=rec_start[1:])
    i64 = {"dtype": np.int64, "copy": False}
    lines, write, warp = _expand(order.astype(**i64), counts.astype(**i64), lt.ptr, lt.lines, lt.write,
                                 lt.wid.astype(**i64), total)
    list_ptr = np.r_[rec_start[:-1][new_list], total].astype(np.int64)
    list_sm = rsm[order][new_list]
    sm_lists = np.searchsorted(list_sm, np.arange(n_sm + 1)).astype(np.int64)
    return Placement(lines=lines, write=write, warp=warp, list_ptr=list_ptr, sm_lists=sm_lists,
                     active_sms=int(np.count_nonzero(bsm)))


def bank_map(cfg: CacheConfig, partitions: int, lines: np.ndarray, per_set: bool
             ) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Bank and stack (group) of every line, the hit limit and the number of banks.

    Two-level mapping: the cache's index function (``cfg.index`` over all ``cfg.sets``
    sets, e.g. rdgc's PRI) picks the line's set, and set ``s`` lives in bank ``s % (Q * B)``
    (partition ``bank // B``). A banked cache thus has exactly the sets of the unbanked one.

    Parameters
    ----------
    cfg : CacheConfig
        The whole cache (all partitions and banks).
    partitions : int
        Partitions (1 for an L1).
    lines : array of int
        Line numbers.
    per_set : bool
        Exact per-set stacks (group = set, hit when the distance is below the associativity)
        instead of rdgc's one stack per bank (hit when the distance is below the bank's
        blocks).

    Returns
    -------
    bank, group : numpy.ndarray
        ``int64`` per line.
    hit_limit : int
        Blocks per stack.
    n_banks : int
        ``partitions * cfg.banks``.

    Raises
    ------
    InputError
        If there are more banks than sets.
    """
    n_banks = partitions * cfg.banks
    if n_banks > cfg.sets:
        raise InputError(f"banks: {partitions} partitions x {cfg.banks} banks exceed the {cfg.sets} sets")
    sets = set_indices(cfg, np.asarray(lines, dtype=np.int64))
    bank = sets % n_banks if n_banks > 1 else np.zeros(sets.size, np.int64)
    if per_set:
        return bank, sets, cfg.assoc, n_banks
    # Blocks of a bank: its share of the sets (the nominal capacity, as a size sweep counts it).
    return bank, bank, -(-cfg.sets // n_banks) * cfg.assoc, n_banks
