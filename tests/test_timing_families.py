"""The timing loop's families share the functions that reach no hook (golden.gpu.core.shared_functions)."""

from golden.gpu import core


def _hook_args(fn) -> set[str]:
    return {"h1", "h2", "h3"} & set(fn.__code__.co_varnames[:fn.__code__.co_argcount])


def test_shared_functions_take_no_hooks_and_call_no_family_code():
    shared = set(core.shared_functions())
    own = core._family_names()
    functions = {fn.__name__: fn for fn in core._FUNCTIONS}
    per_family = set(functions) - shared
    assert {"_pick", "_issue", "_dispatch", "_dram_schedule", "_event"} <= shared
    assert {"_l1_lookup", "_l1_fill", "_l2_serve", "_handle", "_loop"} <= per_family
    for name in shared:
        fn = functions[name]
        assert not _hook_args(fn), name
        assert not set(fn.__code__.co_names) & (own | per_family), name  # calls only shared code
    for name in per_family:  # each reaches a hook: it takes the hooks, or calls code that does
        fn = functions[name]
        assert _hook_args(fn) or set(fn.__code__.co_names) & (own | per_family), name
    # On this source, the functions that take hooks are exactly those compiled per family.
    assert per_family == {n for n, fn in functions.items() if _hook_args(fn)}
