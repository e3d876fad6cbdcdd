"""Cache-management policies, plugged into the cache model through per-level hooks.

Re-exports the policy protocol, the hook interface and the registry; each
technique lives in its own module and registers itself with
:func:`register_policy`.
"""

from golden.policies.base import (
    ACCESS_FIELDS,
    BASELINE_HOOKS,
    Access,
    Baseline,
    LevelHooks,
    Policy,
    get_policy,
    make_hooks,
    policy_names,
    register_policy,
)

__all__ = [
    "ACCESS_FIELDS",
    "Access",
    "BASELINE_HOOKS",
    "Baseline",
    "LevelHooks",
    "Policy",
    "get_policy",
    "make_hooks",
    "policy_names",
    "register_policy",
]
