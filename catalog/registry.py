"""The registry of RTL units (see the package docstring)."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field

from amaranth.lib import wiring

from golden.configs.schema import GPUConfig
from golden.errors import InputError
from golden.plugins import registry_loader
from golden.policies.base import Policy
from golden.policies.base import policy_for as base_policy_for
from golden.units.base import UnitModel

__all__ = ["UnitSpec", "register_unit", "get_unit", "unit_names", "policy_for", "require_policy"]


@dataclass(frozen=True)
class UnitSpec:
    """One RTL unit and everything needed to build, check and cost it.

    Parameters
    ----------
    name : str
        Unit name (``gpucache cosim --unit NAME``).
    paper : str
        Short name of the paper it comes from (``"tian15"``).
    policy : str or None
        Registry name of the golden policy that implements the technique and
        records the unit's transactions; None while the technique's policy is
        not built: the unit is synthesized and checked against its unit model
        (``tests/``), but has no whole-workload co-simulation
        (:func:`require_policy`).
    recorder : str or None
        Which of the policy's transaction logs (``Policy.take_transactions`` key) is the unit's
        (None with no policy).
    rtl : callable
        ``rtl(gpu, policy) -> wiring.Component``: the RTL for ``gpu`` with the
        policy's parameters (an unattached policy is enough; None for a unit without a policy).
    model : callable
        ``model(gpu, policy) -> UnitModel``: the golden unit model with the same
        ports, latency and state; its ``cycle_log`` lays out the recorded transactions.
    overhead_bits : int or None
        The storage overhead the paper reports for one instance of the unit, in bits
        (None when the paper gives no bit count, e.g. only an area in mm^2 or a gate count).
    overhead_source : str
        Where the paper says so.
    overhead_memories : tuple of str
        The unit's memories (Yosys memory names, as the RTL's submodules name them)
        that make up that overhead; the rest the baseline already has. Every name
        must exist in the synthesized unit, so a renamed memory is an error, not
        silently missing bits.
    description : str
        One line: what the unit is.
    overhead_in_flip_flops : bool
        The unit's overhead is its flip-flops (registers and counters, no memories): the area
        table sets all of them beside the paper's bits.
    record : callable, optional
        ``record(workload, gpu, policy, progress) -> (transactions, stats)``: how the unit's
        transactions are recorded when the interleaver's run (``tb.cosim.record_transactions``,
        the default) is not the place, e.g. units fed by the timing model's monitors.
    """

    name: str
    paper: str
    policy: str | None
    recorder: str | None
    rtl: Callable[[GPUConfig, Policy | None], wiring.Component]
    model: Callable[[GPUConfig, Policy | None], UnitModel]
    overhead_bits: int | None
    overhead_source: str
    overhead_memories: tuple[str, ...] = field(default_factory=tuple)
    description: str = ""
    overhead_in_flip_flops: bool = False
    record: Callable | None = None


_REGISTRY: dict[str, UnitSpec] = {}


def register_unit(spec: UnitSpec) -> UnitSpec:
    """Add a unit; a second registration under the same name is an error."""
    if spec.name in _REGISTRY:
        raise ValueError(f"Unit {spec.name!r} is registered twice")
    _REGISTRY[spec.name] = spec
    return spec


_load_all = registry_loader("catalog")


def unit_names() -> list[str]:
    """Names of every registered unit, sorted."""
    _load_all()
    return sorted(_REGISTRY)


def get_unit(name: str) -> UnitSpec:
    """The unit registered as ``name``.

    Raises
    ------
    InputError
        If there is none; the message suggests close names.
    """
    _load_all()
    if name not in _REGISTRY:
        close = difflib.get_close_matches(name, list(_REGISTRY), 3)
        hint = (f"; did you mean {', '.join(close)}?" if close
                else f"; units are {', '.join(sorted(_REGISTRY))}")
        raise InputError(f"unknown unit {name!r}{hint}")
    return _REGISTRY[name]


def require_policy(spec: UnitSpec) -> str:
    """The unit's policy name.

    Raises
    ------
    InputError
        If the unit has no golden policy yet (no transactions to co-simulate).
    """
    if spec.policy is None:
        raise InputError(f"unit {spec.name}: no golden policy records its transactions yet ({spec.paper}'s "
                         "policies are not built); it is synthesized and checked against its unit model, "
                         "not co-simulated on a workload")
    return spec.policy


def policy_for(spec: UnitSpec, gpu: GPUConfig, name: str | None = None, **extra) -> Policy:
    """A new instance of the unit's policy with ``gpu``'s ``policy_params`` for it, plus ``extra``.

    ``name`` picks another policy that records the unit (its ``units()`` name it,
    e.g. ciao18's CIAO-T instead of CIAO-C).

    Raises
    ------
    InputError
        If the unit has no policy (:func:`require_policy`), or ``name`` does not record it.
    """
    require_policy(spec)
    name = spec.policy if name is None else name
    policy = base_policy_for(name, gpu, **extra)
    if name != spec.policy and spec.name not in policy.units():
        raise InputError(f"--policy {name} does not record unit {spec.name} (its units: "
                         f"{', '.join(policy.units()) or 'none'})")
    return policy
