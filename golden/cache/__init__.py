"""Set-associative caches and the GPU cache hierarchy (the golden cache model).

Re-exports the public names of the subpackage; ``docs/cache.md`` describes
the model.
"""

from golden.cache.engine import ATOMIC, BYPASSED, LOAD, MEMORY, STORE, EngineState, LevelState
from golden.cache.hierarchy import OUTCOME_BYPASSED, Cache, Hierarchy, check_accesses
from golden.cache.indexing import largest_prime_le, set_indices
from golden.cache.replacement import seed_states
from golden.cache.stats import COUNTERS, counter_dict

__all__ = [
    "ATOMIC",
    "BYPASSED",
    "COUNTERS",
    "LOAD",
    "MEMORY",
    "OUTCOME_BYPASSED",
    "STORE",
    "Cache",
    "EngineState",
    "Hierarchy",
    "LevelState",
    "check_accesses",
    "counter_dict",
    "largest_prime_le",
    "seed_states",
    "set_indices",
]
