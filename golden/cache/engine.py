"""The compiled per-access loop of the cache model.

State
    All levels of a hierarchy live in one ``int64`` buffer
    (:class:`EngineState`): a header with each level's parameters and the
    offsets of its arrays, then the arrays (tags, dirty bits, replacement
    state, random-generator states, counters). :class:`LevelState` gives
    numpy views of one level's arrays for inspection. The engine gets a raw
    pointer to the buffer: the buffer is owned by the Python caller for the
    whole run, so the reference counting numba would do around every call
    for an array argument is not needed.

Engine
    :func:`_access` performs one request at level ``L`` (0 = first level):
    tag lookup, counters, replacement update, write policy, policy hooks,
    and the requests to level ``L + 1``, which it makes by calling itself.
    The level is a run-time value, so one compiled function serves every
    level and the recursion keeps a single signature (which numba caches
    reliably). The demand loop inlines a copy of it for the first level, so a
    first-level hit costs no call. :func:`run_loads` is a specialised loop
    for loads through one baseline level (``Cache.access`` without ops).

Hooks
    Each level's policy hooks come as a tuple (the fields of
    :class:`golden.cache.hooks.LevelHooks`) or ``None`` for the baseline; the
    three levels' hooks are separate arguments. numba compiles the engine
    once per distinct combination of hook functions, and ``if h is None`` is
    decided at compile time, so a baseline level pays nothing. With every
    hook ``None`` nothing in the types refers to a Python function and the
    engine is cached on disk (the baseline family). When every hook is a
    module-level function of the ``golden`` package (the built-in policies),
    a bound family calls them by global name (:mod:`golden.cache.bound_hooks`,
    as the timing model's loop does) and is cached on disk too, one entry per
    set of hook functions. Other hooks (plugins, tests) use a copy of the same
    functions compiled in memory only (the hooked family): numba keys a
    function-typed argument by the identity of the function object, so a
    disk cache would never be hit and would grow by one entry per process.
    Every hook receives the policy's state and one per-access context
    (:data:`golden.cache.hooks.Access`); the per-level dispatchers
    (``_on_hit`` ...) are generated from :data:`golden.cache.hooks.HOOK_SPECS`.

The exact order of events and hook calls is documented in ``docs/cache.md``.
"""

from __future__ import annotations

import types as pytypes
import warnings

import numba as nb
import numpy as np
from numba.core import types
from numba.core.errors import NumbaExperimentalFeatureWarning
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array

from golden.cache.by_ref import array_data
from golden.cache.hooks import HOOK_SPECS, Access, at_level, dispatcher_source
from golden.cache.indexing import index_params, set_index
from golden.cache.replacement import (
    choose_victim,
    insert,
    insert_at,
    invalidate,
    replacement_kind,
    seed_states,
    touch,
    touch_at,
)
from golden.cache.stats import (
    C_BYPASSES,
    C_EVICTIONS,
    C_FILLS,
    C_READ_HITS,
    C_READ_MISSES,
    C_WRITE_HITS,
    C_WRITE_MISSES,
    C_WRITEBACKS,
    N_COUNTERS,
)
from golden.configs.schema import WRITE_POLICIES, CacheConfig
from golden.trace.model import Op

__all__ = [
    "LOAD",
    "STORE",
    "ATOMIC",
    "MEMORY",
    "BYPASSED",
    "MAX_LEVELS",
    "WRITE_THROUGH",
    "WRITE_EVICT",
    "WRITE_BACK",
    "EngineState",
    "LevelState",
    "run",
    "run_loads",
    "buffer_pointer",
    "engine_hooks",
    "step_function",
    "family_globals",
    "PHASES",
    "ACCESS",
]

LOAD, STORE, ATOMIC = int(Op.LOAD), int(Op.STORE), int(Op.ATOMIC)
#: Outcome code of an access served by main memory (levels are 1, 2, 3).
MEMORY = 4
#: Outcome bit set when the first level bypassed the access.
BYPASSED = 0x80
#: Deepest hierarchy the engine runs.
MAX_LEVELS = 3
#: Engine codes of the write policies, in the order of ``WRITE_POLICIES``.
WRITE_THROUGH, WRITE_EVICT, WRITE_BACK = range(3)

# Header: one row of NP words per level.
(P_SETS, P_WAYS, P_INDEX, P_MASK, P_LOG2SETS, P_PRIME, P_SHIFT, P_SLICES, P_SLICE_MAP, P_REPL, P_WRITE,
 P_LSHIFT, P_N, O_TAG, O_DIRTY, O_STAMP, O_FREQ, O_TREE, O_RNG, O_CTR, O_CLOCK, P_HAS_NEXT, NP) = range(23)
_HEADER = MAX_LEVELS * NP
_NC = N_COUNTERS


@nb.njit(cache=True, nogil=True)
def level_set_index(p, line):
    """Set of ``line`` in the level whose header row is ``p`` (its index function's words)."""
    return set_index(line, p[P_INDEX], p[P_MASK], p[P_LOG2SETS], p[P_PRIME], p[P_SHIFT], p[P_SLICES],
                     p[P_SLICE_MAP])


class LevelState:
    """Views of one level's arrays in an :class:`EngineState` buffer.

    A level is ``n`` identical cache instances (the L1 of each SM, or one
    shared L2). Writing to these views changes the engine's state.

    Members
    -------
    cfg : CacheConfig
        Geometry and policies of every instance.
    n : int
        Number of instances.
    level : int
        1, 2 or 3: the outcome code of a hit at this level.
    tag : numpy.ndarray
        ``int64[n, sets, assoc]``: the full line number held by each way (in
        this level's line units), -1 when the way is invalid.
    dirty : numpy.ndarray
        ``int64[n, sets, assoc]``: 1 for a modified line, else 0.
    stamp, freq : numpy.ndarray
        ``int64[n, sets, assoc]``, tree : ``int64[n, sets]``, rng :
        ``uint64[n]``, clock : ``int64[1]``: replacement state, see
        :mod:`golden.cache.replacement`.
    counters : numpy.ndarray
        ``int64[n, N_COUNTERS]`` in :data:`golden.cache.stats.ENGINE_COUNTERS` order.
    """

    def __init__(self, cfg: CacheConfig, n: int, level: int, views: dict[str, np.ndarray]) -> None:
        self.cfg = cfg
        self.n = n
        self.level = level
        self.tag = views["tag"]
        self.dirty = views["dirty"]
        self.stamp = views["stamp"]
        self.freq = views["freq"]
        self.tree = views["tree"]
        self.rng = views["rng"]
        self.counters = views["counters"]
        self.clock = views["clock"]

    @property
    def valid(self) -> np.ndarray:
        """``bool[n, sets, assoc]``: which ways hold a line."""
        return self.tag >= 0

    def reset(self) -> None:
        """Invalidate every line and zero the replacement state and counters."""
        self.tag.fill(-1)
        for a in (self.dirty, self.stamp, self.freq, self.tree, self.clock, self.counters):
            a.fill(0)
        self.rng[:] = seed_states(self.cfg.seed, self.n)


class EngineState:
    """The state of a chain of cache levels in one buffer.

    Parameters
    ----------
    levels : list of (str, CacheConfig, int)
        Each level's name (for messages), configuration and number of
        instances, first level first. Only the first level may have more
        than one instance; the levels below it are shared (instance 0 serves
        every request).

    Members
    -------
    levels : list of LevelState
        Views of each level's arrays.
    buf : numpy.ndarray
        The ``int64`` buffer the engine runs on.

    Raises
    ------
    ValueError
        If there are no levels or more than :data:`MAX_LEVELS`, a lower level
        has more than one instance or smaller lines than the level above, or
        tree pseudo-LRU is asked for more than 64 ways.
    """

    def __init__(self, levels: list[tuple[str, CacheConfig, int]]) -> None:
        if not 1 <= len(levels) <= MAX_LEVELS:
            raise ValueError(f"levels: must be 1 to {MAX_LEVELS} cache levels, not {len(levels)}")
        for k, (name, cfg, n) in enumerate(levels):
            if not isinstance(n, int) or n < 1 or (k and n != 1):
                raise ValueError(f"{name}: instances must be a positive integer (1 below the first "
                                 f"level), not {n!r}")
            if cfg.replacement == "plru" and cfg.assoc > 64:
                raise ValueError(f"{name}.replacement: tree pseudo-LRU supports at most 64 ways, "
                                 f"not {cfg.assoc}")
            if k and cfg.line_size < levels[k - 1][1].line_size:
                upper, ucfg, _ = levels[k - 1]
                raise ValueError(f"{name}.line_size: must be at least {upper}'s {ucfg.line_size} bytes, "
                                 f"not {cfg.line_size}")
        header = np.zeros(_HEADER, np.int64)
        sizes = []
        offset = _HEADER
        for k, (_, cfg, n) in enumerate(levels):
            lines = n * cfg.sets * cfg.assoc
            parts = {"tag": lines, "dirty": lines, "stamp": lines, "freq": lines, "tree": n * cfg.sets,
                     "rng": n, "counters": n * _NC, "clock": 1}
            row = header[k * NP:(k + 1) * NP]
            row[[P_SETS, P_WAYS]] = cfg.sets, cfg.assoc
            row[[P_INDEX, P_MASK, P_LOG2SETS, P_PRIME, P_SHIFT, P_SLICES, P_SLICE_MAP]] = index_params(cfg)
            row[P_REPL] = replacement_kind(cfg.replacement)
            row[P_WRITE] = WRITE_POLICIES.index(cfg.write)
            row[P_LSHIFT] = cfg.line_size.bit_length() - 1
            row[P_N] = n
            row[P_HAS_NEXT] = k + 1 < len(levels)
            starts = {}
            for slot, (name, size) in zip((O_TAG, O_DIRTY, O_STAMP, O_FREQ, O_TREE, O_RNG, O_CTR, O_CLOCK),
                                          parts.items(), strict=True):
                row[slot] = starts[name] = offset
                offset += size
            sizes.append(starts)
        self.buf = np.zeros(offset, np.int64)
        self.buf[:_HEADER] = header
        self.levels = []
        for k, ((_, cfg, n), starts) in enumerate(zip(levels, sizes, strict=True)):
            shapes = {"tag": (n, cfg.sets, cfg.assoc), "dirty": (n, cfg.sets, cfg.assoc),
                      "stamp": (n, cfg.sets, cfg.assoc), "freq": (n, cfg.sets, cfg.assoc),
                      "tree": (n, cfg.sets), "rng": (n,), "counters": (n, _NC), "clock": (1,)}
            views = {name: self.buf[starts[name]:starts[name] + int(np.prod(shape))].reshape(shape)
                     for name, shape in shapes.items()}
            views["rng"] = views["rng"].view(np.uint64)
            state = LevelState(cfg, n, k + 1, views)
            state.reset()
            self.levels.append(state)

    def header(self) -> np.ndarray:
        """A copy of the levels' headers (``MAX_LEVELS * NP`` words: geometry, policies, array offsets)."""
        return self.buf[:_HEADER].copy()


@intrinsic
def _at(typingctx, ptr, offset):
    """``ptr + offset`` (elements) as a pointer to int64."""
    if not isinstance(ptr, types.CPointer):
        return None

    def codegen(context, builder, sig, args):
        return builder.gep(args[0], [args[1]])

    return types.CPointer(types.int64)(ptr, types.intp), codegen


@intrinsic
def _at_u64(typingctx, ptr, offset):
    """``ptr + offset`` (elements) as a pointer to uint64 (same bits)."""
    if not isinstance(ptr, types.CPointer):
        return None
    u64p = types.CPointer(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.bitcast(builder.gep(args[0], [args[1]]), context.get_value_type(u64p))

    return u64p(ptr, types.intp), codegen


@intrinsic
def _params(typingctx, ptr, offset):
    """The ``NP`` header words of a level starting at ``ptr + offset``, as a tuple of ints.

    Values in a tuple stay in registers across the per-access loop; loads
    from the buffer would be repeated after every store into it.
    """
    if not isinstance(ptr, types.CPointer):
        return None
    tup = types.UniTuple(types.int64, NP)

    def codegen(context, builder, sig, args):
        ptr, base = args
        items = [builder.load(builder.gep(ptr, [builder.add(base, context.get_constant(types.intp, i))]))
                 for i in range(NP)]
        return context.make_tuple(builder, tup, items)

    return tup(ptr, types.intp), codegen


@intrinsic
def _ptr(typingctx, arr):
    """Raw pointer to the data of a contiguous array (owned by the caller)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        return array_data(context, builder, arr, args[0])

    return types.CPointer(arr.dtype)(arr), codegen


def borrowed(context, builder, tup, value):
    """Codegen: tuple ``value`` of type ``tup`` with every array a view without a reference count.

    Other items keep theirs (one more reference each). Shared by :func:`_borrow` and the timing
    loop's policy states (:func:`golden.cache.bound_hooks.level_refs`).
    """
    items = []
    for i, ty in enumerate(tup.types):
        v = builder.extract_value(value, i)
        if isinstance(ty, types.Array):
            src = make_array(ty)(context, builder, value=v)
            dst = make_array(ty)(context, builder)
            populate_array(dst, data=src.data, shape=src.shape, strides=src.strides,
                           itemsize=src.itemsize, meminfo=None)
            v = dst._getvalue()
        else:
            context.nrt.incref(builder, ty, v)
        items.append(v)
    return context.make_tuple(builder, tup, items)


@intrinsic
def _borrow(typingctx, tup):
    """The tuple with every array replaced by a view without a reference count.

    Used for the policies' state arrays, which hooks index as arrays.
    """
    if not isinstance(tup, types.BaseTuple):
        return None

    def codegen(context, builder, sig, args):
        return borrowed(context, builder, tup, args[0])

    return tup(tup), codegen


def _engine_hooks(h):
    """Hooks as the engine takes them: a plain tuple with the state borrowed; None stays None."""


# An overload picks the implementation from the argument type at compile time
# (one function returning None or a tuple would be typed as an optional tuple).
@overload(_engine_hooks, jit_options={"nogil": True})
def _ol_engine_hooks(h):
    if isinstance(h, types.NoneType):
        return lambda h: None
    return lambda h: (_borrow(h[0]),) + h[1:]


def _dispatcher(name: str):
    """The engine's dispatcher of hook ``name`` over the levels, generated from its spec.

    ``hK is None`` is decided at compile time because each ``hK`` is an argument.
    """
    spec = next(h for h in HOOK_SPECS if h.name == name)
    names: dict = {"np": np}
    exec(compile(dispatcher_source(spec, MAX_LEVELS), f"<engine dispatch_{name}>", "exec"), names)  # noqa: S102
    return nb.njit(nogil=True, inline="always")(names[f"dispatch_{name}"])


_on_hit = _dispatcher("on_hit")
_on_miss = _dispatcher("on_miss")
_on_request = _dispatcher("on_request")
_on_response = _dispatcher("on_response")
_victim = _dispatcher("victim")
_on_evict = _dispatcher("on_evict")
_on_fill = _dispatcher("on_fill")
_on_lookup = _dispatcher("on_lookup")
_on_smem = _dispatcher("on_smem")


def _find(buf, p, c, line):
    """Tag lookup of ``line`` in instance ``c``: ``(set, set id, first line index, way or -1)``."""
    ways = p[P_WAYS]
    tag = _at(buf, p[O_TAG])
    s = level_set_index(p, line)
    sid = c * p[P_SETS] + s
    base = sid * ways
    way = np.int64(-1)
    for w in range(ways):
        if tag[base + w] == line:
            way = np.int64(w)
            break
    return s, sid, base, way


def _hit(buf, p, h1, h2, h3, L, a, sid, base, is_load):
    """A lookup hit way ``a.way``: counter, replacement update, ``on_hit``."""
    ctr = _at(buf, p[O_CTR] + a.c * _NC)
    ctr[C_READ_HITS if is_load else C_WRITE_HITS] += 1
    touch(p[P_REPL], _at(buf, p[O_STAMP]), _at(buf, p[O_FREQ]), _at(buf, p[O_TREE]), _at(buf, p[O_CLOCK]),
          sid, base, a.way, p[P_WAYS])
    _on_hit(h1, h2, h3, L, a)


def _miss(buf, p, h1, h2, h3, L, a, is_load):
    """A lookup missed: counter and ``on_miss``; returns the request flags."""
    ctr = _at(buf, p[O_CTR] + a.c * _NC)
    ctr[C_READ_MISSES if is_load else C_WRITE_MISSES] += 1
    return _on_miss(h1, h2, h3, L, a)


def _respond(buf, p, h1, h2, h3, L, a, req, resp):
    """The missing line arrived: ``on_response``; True (and the bypass counter) when it bypasses."""
    if _on_response(h1, h2, h3, L, a, req, resp) != 0:
        _at(buf, p[O_CTR] + a.c * _NC)[C_BYPASSES] += 1
        return True
    return False


def _drop(buf, p, h1, h2, h3, L, a, base, way):
    """Remove the valid line in ``way`` (eviction counter, ``on_evict``); returns its dirty bit."""
    tag = _at(buf, p[O_TAG])
    dirty = _at(buf, p[O_DIRTY])
    _at(buf, p[O_CTR] + a.c * _NC)[C_EVICTIONS] += 1
    was_dirty = dirty[base + way]
    _on_evict(h1, h2, h3, L, a, way, tag[base + way], was_dirty)
    tag[base + way] = -1
    dirty[base + way] = 0
    return was_dirty


def _victimize(buf, p, h1, h2, h3, L, a, sid, base):
    """Choose the way to fill (replacement policy, then ``victim``) and evict its line.

    Returns ``(way, line to write back or -1)``; the way is left holding the
    old tag until :func:`_put` (the caller may write the old line back first).
    """
    ways = p[P_WAYS]
    tag = _at(buf, p[O_TAG])
    v = choose_victim(p[P_REPL], tag, _at(buf, p[O_STAMP]), _at(buf, p[O_FREQ]), _at(buf, p[O_TREE]),
                      _at_u64(buf, p[O_RNG]), a.c, sid, base, ways)
    v = _victim(h1, h2, h3, L, a, v)
    return v, _evict_way(buf, p, h1, h2, h3, L, a, base, v)


def _evict_way(buf, p, h1, h2, h3, L, a, base, v):
    """The line in way ``v`` (if any) is replaced: eviction counter, ``on_evict``; returns the line to
    write back, or -1. The way keeps the old tag until :func:`_put`."""
    old = _at(buf, p[O_TAG])[base + v]
    wb = np.int64(-1)
    if old >= 0:
        ctr = _at(buf, p[O_CTR] + a.c * _NC)
        ctr[C_EVICTIONS] += 1
        was_dirty = _at(buf, p[O_DIRTY])[base + v]
        _on_evict(h1, h2, h3, L, a, v, old, was_dirty)
        if was_dirty:
            ctr[C_WRITEBACKS] += 1
            wb = old
    return wb


def _put(buf, p, h1, h2, h3, L, a, sid, base, v, is_dirty):
    """Install ``a.line`` in way ``v`` (tag, dirty bit, replacement, fill counter, ``on_fill``).

    Returns the context with ``a.way = v``.
    """
    _at(buf, p[O_TAG])[base + v] = a.line
    _at(buf, p[O_DIRTY])[base + v] = is_dirty
    insert(p[P_REPL], _at(buf, p[O_STAMP]), _at(buf, p[O_FREQ]), _at(buf, p[O_TREE]), _at(buf, p[O_CLOCK]),
           sid, base, v, p[P_WAYS])
    _at(buf, p[O_CTR] + a.c * _NC)[C_FILLS] += 1
    a = at_level(a, a.c, a.op, a.line, a.set, v)
    _on_fill(h1, h2, h3, L, a)
    return a


def _access(buf, p, h1, h2, h3, L, a, flags):
    """One request at level ``L`` (0-based) of the chain in ``buf``; ``p`` is its header row.

    ``a`` is the request's :data:`~golden.cache.hooks.Access` at this level:
    ``a.c`` the instance (the SM at the first level, 0 below), ``a.line`` in
    this level's line units, ``a.op`` LOAD, STORE or ATOMIC (write-backs
    arrive as STORE); ``flags`` are the request flags of a fill request from
    the level above. At level 0 the request is a demand access from an SM;
    below, a request from the level above. Returns ``(served, resp)``: the
    outcome code (the first level whose lookup hit, ``MEMORY`` if none did,
    plus ``BYPASSED``) and, for a fill request, the response bits of
    ``on_request``.

    The phases (:func:`_find`, :func:`_hit`, :func:`_miss`, :func:`_respond`,
    :func:`_victimize`, :func:`_put`, :func:`_drop`) are shared with the
    timing model (``golden.gpu``), which runs them at different cycles. The
    next level is reached by calling ``_access`` (the name is bound to the
    cached or the hooked compiled copy, see the module docstring).
    """
    c, line, op = a.c, a.line, a.op
    demand = L == 0
    has_next = p[P_HAS_NEXT] != 0
    if demand and op == LOAD:
        # The policy may send the load past this level before any lookup (kim20's B mode).
        pre = _on_lookup(h1, h2, h3, L, a)
        if pre != 0:
            _at(buf, p[O_CTR] + c * _NC)[C_BYPASSES] += 1
            below_served = np.int64(MEMORY)
            if has_next:
                q, below = _below(buf, p, L, a, np.int64(LOAD), line)
                below_served, _ = _access(buf, q, h1, h2, h3, L + 1, below, pre)
            return below_served | BYPASSED, np.int64(0)
    s, sid, base, way = _find(buf, p, c, line)
    a = at_level(a, c, op, line, s, way)
    served = np.int64(L + 1)
    is_load = op == LOAD
    policy = p[P_WRITE]
    atomic_here = demand and op == ATOMIC
    if atomic_here:
        policy = WRITE_THROUGH  # atomics are performed below the first level
    forward = False  # the write goes on to the next level
    take_below = atomic_here  # the outcome is the next level's
    if way >= 0:
        _hit(buf, p, h1, h2, h3, L, a, sid, base, is_load)
        if not is_load:
            if policy == WRITE_BACK:
                _at(buf, p[O_DIRTY])[base + way] = 1
            else:
                forward = True
                if policy == WRITE_EVICT:
                    _drop(buf, p, h1, h2, h3, L, a, base, way)
                    invalidate(_at(buf, p[O_STAMP]), _at(buf, p[O_FREQ]), base, way)
    elif is_load or policy == WRITE_BACK:
        # Miss with allocation: fetch the line, then fill it unless the policy bypasses.
        req = _miss(buf, p, h1, h2, h3, L, a, is_load)
        resp = np.int64(0)
        if has_next:
            q, below = _below(buf, p, L, a, np.int64(LOAD), line)
            served, resp = _access(buf, q, h1, h2, h3, L + 1, below, req)
        else:
            served = np.int64(MEMORY)
        if _respond(buf, p, h1, h2, h3, L, a, req, resp):
            forward = not is_load  # a bypassed store is written below instead
            if demand:
                served |= BYPASSED
        else:
            v, wb = _victimize(buf, p, h1, h2, h3, L, a, sid, base)
            if wb >= 0 and has_next:
                q, wba = _below(buf, p, L, a, np.int64(STORE), wb)
                _access(buf, q, h1, h2, h3, L + 1, wba, np.int64(0))
            a = _put(buf, p, h1, h2, h3, L, a, sid, base, v, np.int64(0 if is_load else 1))
            way = v
    else:
        # Store miss without write-allocate. No fill request: on_miss's flags go nowhere.
        _miss(buf, p, h1, h2, h3, L, a, is_load)
        forward = True
        take_below = True
    if forward:
        below_served = np.int64(MEMORY)
        if has_next:
            q, fwd = _below(buf, p, L, a, op, line)
            below_served, _ = _access(buf, q, h1, h2, h3, L + 1, fwd, np.int64(0))
        if take_below:
            served = below_served
    resp_up = np.int64(0)
    if is_load and not demand:
        resp_up = _on_request(h1, h2, h3, L, at_level(a, c, op, line, s, way), flags)
    return served, resp_up


#: The phases of an access, compiled into each family (and into the timing model's loops).
def _below(buf, p, L, a, op, line):
    """The next level's header and ``a`` as that level's request ``op`` for this level's ``line``."""
    q = _params(buf, (L + 1) * NP)
    return q, at_level(a, np.int64(0), op, line >> (q[P_LSHIFT] - p[P_LSHIFT]), np.int64(-1), np.int64(-1))


_PHASES = (_find, _hit, _miss, _respond, _drop, _evict_way, _victimize, _put, _below)

# Bound to each family's compiled copy of _access (inlined) by _compile_family.
_access_first = None


def _loop(buf, h1, h2, h3, acc, t0, out):
    p = _params(buf, 0)
    for i in range(acc.size):
        r = acc[i]
        a = Access(np.int64(r.sm), np.int64(r.sm), np.int64(r.warp), np.int64(r.cta), np.int64(r.kernel),
                   np.int64(r.pc), np.int64(r.op), np.int64(r.sectors), np.int64(r.line), np.int64(-1),
                   np.int64(-1), np.int64(r.cycle), np.int64(r.stream), t0 + i)
        served, _ = _access_first(buf, p, h1, h2, h3, 0, a, np.int64(0))
        out[i] = served


def _run(buf, h1, h2, h3, acc, t0, out):
    _loop(_ptr(buf), _engine_hooks(h1), _engine_hooks(h2), _engine_hooks(h3), acc, t0, out)


def _step(buf, h1, h2, h3, a):
    return _access_first(buf, _params(buf, 0), h1, h2, h3, 0, a, np.int64(0))[0]


# Bound in each bound family to golden.cache.bound_hooks.level_refs (which imports this module).
level_refs = None


def _bound_run(buf, h1, h2, h3, acc, t0, out):
    _loop(_ptr(buf), level_refs(h1), level_refs(h2), level_refs(h3), acc, t0, out)


def _compile_family(cache: bool, hooks: list | None = None,
                    family: str | None = None) -> pytypes.SimpleNamespace:
    """Compile ``_access``, its first-level copy, ``_loop`` and ``_run`` as one family.

    The functions find each other through module-level names; each family
    gets its own copy of the globals with those names bound to its members.
    With ``hooks`` (a bound family, :mod:`golden.cache.bound_hooks`) the
    dispatchers call those hook functions by global name, ``_run`` takes each
    level's ``(state,)`` and the copies are named ``family.<name>``, so that
    numba keeps one disk-cache entry per set of hook functions.
    """
    names = dict(globals())
    opts = {"nogil": True, "cache": cache}
    if hooks is not None:
        from golden.cache.bound_hooks import bind, level_refs  # it imports this module

        names.update(bind(hooks, MAX_LEVELS), level_refs=level_refs)

    def copy(fn, name=None):
        f = pytypes.FunctionType(fn.__code__, names, fn.__name__, fn.__defaults__, fn.__closure__)
        if family is not None:
            f.__qualname__ = f"{family}.{name or fn.__name__}"
        return f

    # Called only from compiled code: no Python or C entry wrappers (less to compile).
    inner = dict(opts, no_cpython_wrapper=True, no_cfunc_wrapper=True)
    for fn in _PHASES:
        names[fn.__name__] = nb.njit(inline="always", **opts)(copy(fn))
    names["_access"] = nb.njit(**inner)(copy(_access))
    # The disk-cached families (baseline and bound) inline the first level into the loop: a
    # first-level hit then costs no call, and a loop loaded from the disk cache that calls the
    # recursive _access instead calls address 0 in a fresh process. The hooked family, compiled
    # in every process, skips that to halve its compile time.
    names["_access_first"] = nb.njit(inline="always", **opts)(copy(_access)) if cache else names["_access"]
    names["_loop"] = nb.njit(**inner)(copy(_loop))
    names["_run"] = nb.njit(**opts)(copy(_run if hooks is None else _bound_run, "_run"))
    names["_step"] = nb.njit(**opts)(copy(_step))
    return pytypes.SimpleNamespace(run=names["_run"], step=names["_step"], names=names)


# Hooks reach the engine as first-class functions, which numba labels experimental on every
# compile; the engine relies on the feature on purpose, so the warning says nothing to a user.
warnings.filterwarnings("ignore", message="First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)

_CACHED = _compile_family(cache=True)
_HOOKED = _compile_family(cache=False)


def run(state: EngineState, hooks: list, accesses: np.ndarray, t0: int) -> np.ndarray:
    """Run demand accesses through the levels of ``state``.

    Parameters
    ----------
    state : EngineState
        The levels; updated in place.
    hooks : list
        One entry per level: a ``LevelHooks`` or None (baseline).
    accesses : numpy.ndarray
        Contiguous rows of :data:`~golden.trace.coalesce.ACCESS_DTYPE`; ``line``
        in first-level units, ``sm`` the first-level instance.
    t0 : int
        Index of the first access in the whole stream (the hooks' ``a.t``).

    Returns
    -------
    numpy.ndarray
        ``uint8`` outcome per access.
    """
    h = list(hooks) + [None] * (MAX_LEVELS - len(hooks))
    family, args = _family(h)
    out = np.empty(accesses.size, np.uint8)
    family.run(state.buf, args[0], args[1], args[2], accesses, np.int64(t0), out)
    return out


_BOUND: dict[str, pytypes.SimpleNamespace] = {}


def _family(h: list) -> tuple[pytypes.SimpleNamespace, list]:
    """The compiled family for the levels' hooks ``h``, and what its ``run`` takes for them.

    The baseline family when no level has hooks; a bound family, compiled once
    per set of hook functions and cached on disk, when every hook is a
    module-level function of the ``golden`` package (then ``run`` takes each
    level's ``(state,)``); else the in-memory hooked family, which takes the
    hooks themselves and is compiled again in every process.
    """
    from golden.cache.bound_hooks import hook_key, level_states  # it imports this module

    if all(x is None for x in h):
        return _CACHED, h
    key = hook_key(h)
    if key is None:
        return _HOOKED, h
    if key not in _BOUND:
        _BOUND[key] = _compile_family(cache=True, hooks=h, family=f"engine_{key}")
    return _BOUND[key], level_states(h)


#: ``buffer_pointer(buf)`` (compiled): the raw pointer an :class:`EngineState` buffer is run through.
buffer_pointer = _ptr
#: ``engine_hooks(h)`` (compiled): a ``LevelHooks`` (or None) as ``step`` takes it.
engine_hooks = _engine_hooks


def step_function(hooked: bool):
    """The compiled one-request entry of the engine, for drivers written in numba.

    ``step(ptr, h1, h2, h3, a) -> served`` performs one demand access ``a``
    (an :data:`~golden.cache.hooks.Access` whose ``c`` is the first-level
    instance) exactly as :func:`run` does for one row, and returns its
    outcome code. ``ptr`` is ``buffer_pointer(state.buf)`` and each ``hK``
    is ``engine_hooks(level hooks or None)``, both taken inside the caller's
    compiled code; the caller keeps ``state`` alive. A driver that must act
    between accesses (``golden.llc``: private caches, back-invalidation)
    calls this in its own loop.

    Parameters
    ----------
    hooked : bool
        True for hierarchies with policy hooks (the in-memory family), False
        when every level is the baseline (the disk-cached family).
    """
    return (_HOOKED if hooked else _CACHED).step


#: The phases (plain Python functions), for compiled code that builds its own copies of them.
PHASES = _PHASES
#: ``_access`` as a plain Python function (recursive through the global name ``_access``).
ACCESS = _access


def family_globals(hooked: bool) -> dict:
    """The module globals of one compiled family, for compiled code built on the engine's phases.

    ``_access`` and the phases (``_find``, ``_hit``, ``_miss``, ``_respond``,
    ``_drop``, ``_evict_way``, ``_victimize``, ``_put``) are bound to that family's compiled
    copies. The timing model (``golden.gpu``) compiles its loop against
    these, so it runs exactly the functional engine's steps, split in time.
    """
    return (_HOOKED if hooked else _CACHED).names


_choose_victim_inline = nb.njit(nogil=True, inline="always")(choose_victim.py_func)


@nb.njit(cache=True, nogil=True)
def _loads(buf_arr, line, hit):
    # The load path of _access for one baseline level in front of memory (no hooks, no
    # level below, instance 0), written out once more so that the loop carries nothing
    # else; it shares the index and replacement functions. The level clock and the
    # counters live in locals for the loop: in memory, every access would wait for the
    # previous one's store.
    buf = _ptr(buf_arr)
    p = _params(buf, 0)
    ways, repl = p[P_WAYS], p[P_REPL]
    tag, dirty = _at(buf, p[O_TAG]), _at(buf, p[O_DIRTY])
    stamp, freq, tree = _at(buf, p[O_STAMP]), _at(buf, p[O_FREQ]), _at(buf, p[O_TREE])
    rng, ctr, clock = _at_u64(buf, p[O_RNG]), _at(buf, p[O_CTR]), _at(buf, p[O_CLOCK])
    now = clock[0]
    hits = evictions = writebacks = 0
    for i in range(line.size):
        x = line[i]
        s = level_set_index(p, x)
        base = s * ways
        way = -1
        for w in range(ways):
            if tag[base + w] == x:
                way = w
                break
        if way >= 0:
            hits += 1
            now = touch_at(repl, stamp, freq, tree, now, s, base, way, ways)
            hit[i] = True
        else:
            v = _choose_victim_inline(repl, tag, stamp, freq, tree, rng, 0, s, base, ways)
            if tag[base + v] >= 0:
                evictions += 1
                writebacks += dirty[base + v]
            tag[base + v] = x
            dirty[base + v] = 0
            now = insert_at(repl, stamp, freq, tree, now, s, base, v, ways)
            hit[i] = False
    clock[0] = now
    ctr[C_READ_HITS] += hits
    ctr[C_READ_MISSES] += line.size - hits
    ctr[C_FILLS] += line.size - hits
    ctr[C_EVICTIONS] += evictions
    ctr[C_WRITEBACKS] += writebacks


def run_loads(state: EngineState, line: np.ndarray) -> np.ndarray:
    """Loads through a single baseline level (the fast path of ``Cache.load``).

    The same state changes as :func:`run` with every ``op`` a load, for an
    :class:`EngineState` of one level with one instance.

    Returns
    -------
    numpy.ndarray
        ``bool`` per access: the lookup hit.

    Raises
    ------
    ValueError
        If ``state`` is not one level of one instance.
    """
    if len(state.levels) != 1 or state.levels[0].n != 1:
        raise ValueError("state: the load fast path takes one level of one instance")
    hit = np.empty(line.size, np.bool_)
    _loads(state.buf, line, hit)
    return hit
