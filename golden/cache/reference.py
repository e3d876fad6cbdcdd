"""A plain-Python cache model, written independently of the engine, for tests.

It follows the rules of ``docs/cache.md`` with the most direct data
structures: a list of lines per set, recency and fill-order lists instead of
time stamps, a list of tree bits, and Python integers for the random
generator. It is slow (a Python loop per access) and is only meant to check
the compiled engine on small random configurations and traces.
"""

from __future__ import annotations

from golden.configs.schema import CacheConfig

__all__ = ["RefCache", "RefHierarchy"]

_M64 = (1 << 64) - 1
_LOAD, _STORE, _ATOMIC = 1, 2, 3


def _is_prime(p: int) -> bool:
    return p >= 2 and all(p % d for d in range(2, p))


def _splitmix(seed: int, c: int) -> int:
    z = (seed + (c + 1) * 0x9E3779B97F4A7C15) % (1 << 64)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % (1 << 64)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % (1 << 64)
    z = z ^ (z >> 31)
    return z if z else 1


class RefCache:
    """``n`` instances of one cache level.

    Members
    -------
    lines : list
        ``lines[c][s][w]``: line number held, or None.
    dirty : list
        ``dirty[c][s][w]``: bool.
    counters : list of dict
        Per instance: ``read_hits``, ``read_misses``, ``write_hits``,
        ``write_misses``, ``fills``, ``bypasses``, ``evictions``, ``writebacks``.
    """

    def __init__(self, cfg: CacheConfig, n: int = 1) -> None:
        self.cfg = cfg
        sets, ways = cfg.sets, cfg.assoc
        self.sets, self.ways = sets, ways
        self.prime = max([p for p in range(1, sets + 1) if _is_prime(p)], default=1)
        # Slices: the explicit count, else one (mod) or the fewest slices whose set count is a
        # power of two (xor).
        self.slices = cfg.slices or min(n for n in range(1, sets + 1)
                                        if sets % n == 0 and (sets // n).bit_count() == 1)
        self.lines = [[[None] * ways for _ in range(sets)] for _ in range(n)]
        self.dirty = [[[False] * ways for _ in range(sets)] for _ in range(n)]
        self.recency = [[[] for _ in range(sets)] for _ in range(n)]  # least recent first
        self.order = [[[] for _ in range(sets)] for _ in range(n)]  # oldest fill first
        self.uses = [[[0] * ways for _ in range(sets)] for _ in range(n)]
        self.bits = [[[0] * max(ways - 1, 0) for _ in range(sets)] for _ in range(n)]
        self.rng = [_splitmix(cfg.seed, c) for c in range(n)]
        self.counters = [dict.fromkeys(("read_hits", "read_misses", "write_hits", "write_misses", "fills",
                                        "bypasses", "evictions", "writebacks"), 0) for _ in range(n)]

    def slice_of(self, line: int) -> tuple[int, int]:
        """``(line number inside the slice, slice)`` of a line number."""
        if self.cfg.slice_map == "gtx480":
            # GPGPU-Sim's addrdec_tlx "gap" path on the byte address: the channel is divided out
            # of the bits from 8 up; the lowest bank bit, bit 8 of what is left, picks the
            # sub-partition, and partition_address packs that bit out.
            addr, channels = line * self.cfg.line_size, self.slices // 2
            chip = (addr >> 8) % channels
            rest = (((addr >> 8) // channels) << 8) | (addr & 0xFF)
            part = ((rest >> 9) << 8) | (rest & 0xFF)
            return part // self.cfg.line_size, 2 * chip + ((rest >> 8) & 1)
        return divmod(line, self.slices)

    def set_of(self, line: int) -> int:
        """The set of a line number."""
        cfg, sets = self.cfg, self.sets
        if cfg.index == "mod":
            # Slice line % slices holds the lines q * slices + slice; within it, q indexes linearly.
            q, slice_ = self.slice_of(line)
            per = sets // self.slices
            return slice_ * per + q % per
        if cfg.index == "xor":
            # Slice line % slices holds the lines q * slices + slice; within it, q is XOR-indexed.
            q, slice_ = self.slice_of(line)
            per = sets // self.slices
            return slice_ * per + ((q % per) ^ ((q // per) % per))
        if cfg.index == "prime":
            return line % self.prime
        if cfg.index == "fermi":
            # GPGPU-Sim's FERMI_HASH_SET_FUNCTION on the slice's byte address.
            q, slice_ = self.slice_of(line)
            per = sets // self.slices
            addr = q * cfg.line_size
            bit = [(addr >> b) & 1 for b in range(20)]
            upper = bit[13] + 2 * bit[14] + 4 * bit[15] + 8 * bit[17] + 16 * bit[19]
            h = (q % 32) ^ upper
            if per == 64:
                h += 32 * bit[12]
            return slice_ * per + h
        return (line // 2**cfg.smod_shift) % sets

    def find(self, c: int, line: int) -> tuple[int, int | None]:
        """``(set, way)`` of a line, way None when absent."""
        s = self.set_of(line)
        ways = self.lines[c][s]
        return s, ways.index(line) if line in ways else None

    def _plru_point_away(self, c: int, s: int, w: int) -> None:
        if self.cfg.replacement != "plru":
            return
        bits = self.bits[c][s]
        node, lo, hi = 0, 0, self.ways
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if w < mid:
                bits[node] = 1
                node, hi = 2 * node + 1, mid
            else:
                bits[node] = 0
                node, lo = 2 * node + 2, mid

    def touch(self, c: int, s: int, w: int) -> None:
        """A hit on way ``w``."""
        rec = self.recency[c][s]
        rec.remove(w)
        rec.append(w)
        self.uses[c][s][w] += 1
        self._plru_point_away(c, s, w)

    def victim(self, c: int, s: int) -> int:
        """The way a fill of set ``s`` replaces."""
        ways = self.lines[c][s]
        if None in ways:
            return ways.index(None)
        kind = self.cfg.replacement
        if kind == "lru":
            return self.recency[c][s][0]
        if kind == "fifo":
            return self.order[c][s][0]
        if kind == "lfu":
            rec = self.recency[c][s]
            return min(range(self.ways), key=lambda w: (self.uses[c][s][w], rec.index(w)))
        if kind == "plru":
            bits = self.bits[c][s]
            node, lo, hi = 0, 0, self.ways
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if bits[node]:
                    node, lo = 2 * node + 2, mid
                else:
                    node, hi = 2 * node + 1, mid
            return lo
        x = self.rng[c]  # xorshift64*
        x ^= x >> 12
        x ^= (x << 25) & _M64
        x ^= x >> 27
        self.rng[c] = x
        return (((x * 0x2545F4914F6CDD1D) & _M64) >> 32) % self.ways

    def remove(self, c: int, s: int, w: int) -> None:
        """Take the line out of way ``w``."""
        self.lines[c][s][w] = None
        self.dirty[c][s][w] = False
        self.uses[c][s][w] = 0
        for lst in (self.recency[c][s], self.order[c][s]):
            if w in lst:
                lst.remove(w)

    def install(self, c: int, s: int, w: int, line: int, dirty: bool) -> None:
        """Put ``line`` in the (empty) way ``w``."""
        self.lines[c][s][w] = line
        self.dirty[c][s][w] = dirty
        self.uses[c][s][w] = 1
        self.recency[c][s].append(w)
        self.order[c][s].append(w)
        self._plru_point_away(c, s, w)


class RefHierarchy:
    """Levels from the first (``n`` instances) to the last (shared), then memory.

    Parameters
    ----------
    configs : list of CacheConfig
        First level first.
    n_first : int
        Instances of the first level (SMs).
    """

    def __init__(self, configs: list[CacheConfig], n_first: int = 1) -> None:
        self.levels = [RefCache(cfg, n_first if k == 0 else 1) for k, cfg in enumerate(configs)]

    def access(self, c: int, line: int, op: int) -> int:
        """One demand access; returns the outcome code (1-3 level, 4 memory)."""
        return self._request(0, c, line, op, True)

    def _below(self, k: int, line: int) -> int:
        here, there = self.levels[k].cfg.line_size, self.levels[k + 1].cfg.line_size
        return line * here // there

    def _send(self, k: int, line: int, op: int) -> int:
        if k + 1 == len(self.levels):
            return 4
        return self._request(k + 1, 0, self._below(k, line), op, False)

    def _fill(self, k: int, c: int, s: int, line: int, dirty: bool) -> int:
        lvl = self.levels[k]
        served = self._send(k, line, _LOAD)
        w = lvl.victim(c, s)
        old = lvl.lines[c][s][w]
        if old is not None:
            lvl.counters[c]["evictions"] += 1
            if lvl.dirty[c][s][w]:
                lvl.counters[c]["writebacks"] += 1
                self._send(k, old, _STORE)
            lvl.remove(c, s, w)
        lvl.install(c, s, w, line, dirty)
        lvl.counters[c]["fills"] += 1
        return served

    def _request(self, k: int, c: int, line: int, op: int, demand: bool) -> int:
        lvl = self.levels[k]
        cnt = lvl.counters[c]
        s, w = lvl.find(c, line)
        if op == _LOAD:
            if w is not None:
                cnt["read_hits"] += 1
                lvl.touch(c, s, w)
                return k + 1
            cnt["read_misses"] += 1
            return self._fill(k, c, s, line, False)
        atomic_here = demand and op == _ATOMIC
        write = "write-through" if atomic_here else lvl.cfg.write
        if w is not None:
            cnt["write_hits"] += 1
            lvl.touch(c, s, w)
            if write == "write-back":
                lvl.dirty[c][s][w] = True
                return k + 1
            if write == "write-evict":
                cnt["evictions"] += 1
                lvl.remove(c, s, w)
            below = self._send(k, line, op)
            return below if atomic_here else k + 1
        cnt["write_misses"] += 1
        if write == "write-back":
            return self._fill(k, c, s, line, True)
        return self._send(k, line, op)
