"""Swept config fields: ``FIELD=V1,V2,...`` with the config files' dotted field names.

A field is named as in a config file, with dots between tables: a GPU
field (``n_sm``, ``scheduler``, ``warp_limit``), a cache level's field
(``l1.size``, ``l2.assoc``) or a policy parameter
(``policy_params.pc-bypass.threshold``). Each value is read like a TOML
value (``16384``, ``0.9``, ``true``, ``"text"``), a bare word as a string
(``gto``) and an integer may end in ``K`` or ``M`` (``16K`` is 16384).

Names and values are not checked here: :func:`apply` puts them into a
config's plain data and :func:`golden.configs.loader.config_from_dict`
validates the result exactly as it validates a config file, so a sweep
accepts what a config file accepts and refuses it with the same one-line
message (``--set: l1.assoc: must be a positive integer, not 0``).
"""

from __future__ import annotations

import copy
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from golden.errors import InputError

__all__ = ["SweptField", "parse_set", "parse_value", "apply"]

_SIZE = re.compile(r"([0-9]+)\s*([KkMm])[Bb]?")
_NAME = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)?|policy_params\.[A-Za-z0-9_.+-]+\.[A-Za-z0-9_]+")


@dataclass(frozen=True)
class SweptField:
    """A config field and the values a sweep gives it, in the order given.

    Members
    -------
    name : str
        Dotted field name (``"l1.size"``, ``"policy_params.pc-bypass.threshold"``).
    values : tuple
        Its values (int, float, bool or str), without repeats.
    """

    name: str
    values: tuple

    @property
    def path(self) -> tuple[str, ...]:
        """The name as a key path: ``("policy_params", "pc-bypass", "threshold")``."""
        if self.name.startswith("policy_params."):
            policy, _, key = self.name.removeprefix("policy_params.").rpartition(".")
            return ("policy_params", policy, key)
        return tuple(self.name.split("."))

    @property
    def policy(self) -> str | None:
        """The policy whose parameter this is, else None."""
        return self.path[1] if self.path[0] == "policy_params" else None


def parse_value(text: str) -> Any:
    """One value of ``--set``: a TOML value, ``16K``/``4M`` sizes, else the text as a string."""
    text = text.strip()
    if m := _SIZE.fullmatch(text):
        return int(m[1]) << (10 if m[2] in "Kk" else 20)
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_set(text: str) -> SweptField:
    """``"l1.size=16K,32K"`` as ``SweptField("l1.size", (16384, 32768))``.

    Raises
    ------
    InputError
        For a missing ``=``, an empty value or a malformed field name.
    """
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise InputError(f"--set: expected FIELD=V1,V2,... not {text!r}")
    if not _NAME.fullmatch(name):
        raise InputError(f"--set: {name}: not a field name (examples: l1.size, scheduler, "
                         "policy_params.pc-bypass.threshold)")
    parts = [v.strip() for v in values.split(",")]
    if not all(parts):
        raise InputError(f"--set: {name}: empty value in {values!r}")
    out: list = []
    for v in map(parse_value, parts):
        if not any(type(v) is type(w) and v == w for w in out):
            out.append(v)
    return SweptField(name, tuple(out))


def apply(data: dict, values: dict[tuple[str, ...], Any]) -> dict:
    """A deep copy of a config's plain data with each key path set to its value.

    Parameters
    ----------
    data : dict
        ``golden.configs.loader.config_to_dict`` of the base config.
    values : dict
        Key path (``("l1", "size")``) -> value.

    Raises
    ------
    InputError
        When a path goes through a field that is not a table (``n_sm.x``) or
        a table the config does not have (``l4.size``, ``l3.size`` without an L3).
    """
    out = copy.deepcopy(data)
    for path, value in values.items():
        node = out
        for i, key in enumerate(path[:-1]):
            child = node.get(key)
            if child is None and path[0] == "policy_params":
                child = node[key] = {}
            if not isinstance(child, dict):
                raise InputError(f"--set: {'.'.join(path)}: {'.'.join(path[:i + 1])} is not a table "
                                 "of this config")
            node = child
        node[path[-1]] = value
    return out
