"""Machine configurations from a preset name or a TOML/JSON file.

A config file holds the fields of :class:`~golden.configs.schema.GPUConfig`
at the top level and those of :class:`~golden.configs.schema.CacheConfig`
in the tables ``[l1]``, ``[l2]`` and ``[l3]``::

    base = "tian15"          # optional: start from a preset, override what follows
    name = "tian15-32k"
    n_sm = 16

    [l1]
    size = 32768             # the other L1 fields stay tian15's

    [policy_params.ciao]
    vta_ways = 16

Without ``base``, ``n_sm``, ``[l1]`` and ``[l2]`` (with at least ``size``,
``assoc`` and ``line_size``) are required. ``l3 = false`` (JSON: ``null``)
removes the base's L3. The same layout as JSON is an object with nested
objects ``"l1"``, ``"l2"``, ``"l3"``.

Every mistake raises :class:`~golden.errors.InputError` with one line that
names the file, the line and the field::

    my.toml:7: l1.assoc: must be a positive integer, not 0

Neither ``tomllib`` nor ``json`` reports where a key is, so the line of a
key is found by scanning the text for it within its table.

A config is validated as a whole before it is returned (see
:mod:`golden.configs.schema` for the ranges and the engine's limits): the
parameters of every policy gpucache has are checked by building the policy
from the registry and attaching it to each cache level, so a config that
loads runs with any policy whose parameters it gives. A file larger than
:data:`MAX_CONFIG_BYTES` or nested deeper than the parsers allow is refused.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
import os
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from golden.configs.presets import PRESETS, preset
from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError

__all__ = ["load_config", "config_from_dict", "config_to_dict", "dump_toml", "MAX_CONFIG_BYTES"]

#: Largest config file read, in bytes (the largest preset is under 2 kB).
MAX_CONFIG_BYTES = 1 << 20

_LEVELS = ("l1", "l2", "l3")
_CACHE_FIELDS = {f.name: f.type for f in dataclasses.fields(CacheConfig)}
_GPU_FIELDS = {f.name: f.type for f in dataclasses.fields(GPUConfig) if f.name not in _LEVELS}
_REQUIRED_CACHE = ("size", "assoc", "line_size")


def load_config(spec: str | os.PathLike, check: Callable[[GPUConfig], None] | None = None) -> GPUConfig:
    """A preset by name, or the config in a ``.toml`` or ``.json`` file.

    Parameters
    ----------
    spec : str or path-like
        A preset name (``"tian15"``) or the path of a config file.
    check : callable, optional
        A further check of the config for what the caller will run (the timing model's:
        :func:`golden.gpu.state.check_timing_config`); it raises ``ValueError("field: why")``,
        reported like the file's other mistakes, with file and line.

    Raises
    ------
    InputError
        For an unknown preset, a missing or unreadable file, a syntax error,
        an unknown field, a value of the wrong type or an invalid value; the
        message is one line naming file, line and field.
    """
    spec = os.fspath(spec)
    if spec in PRESETS:
        return _checked(_Where(spec, {}), preset(spec), check)
    path = Path(spec)
    if not path.is_file():
        if path.suffix.lower() in (".toml", ".json") or os.sep in spec:
            raise InputError(f"{spec}: no such config file")
        close = difflib.get_close_matches(spec, PRESETS, 2)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise InputError(f"unknown config {spec!r}: neither a preset ({', '.join(PRESETS)}) "
                         f"nor a file{hint}")
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("toml", "json"):
        raise InputError(f"{spec}: a config file must end in .toml or .json")
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise InputError(f"{spec}: a config file is at most {MAX_CONFIG_BYTES:,} bytes, this one has "
                             f"{path.stat().st_size:,}")
        with open(path, encoding="utf-8") as f:
            text = f.read(MAX_CONFIG_BYTES + 1)
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{spec}: cannot read the config file ({e})") from None
    if len(text) > MAX_CONFIG_BYTES:
        raise InputError(f"{spec}: a config file is at most {MAX_CONFIG_BYTES:,} bytes")
    data = _parse(spec, fmt, text)
    try:
        lines = _toml_key_lines(text) if fmt == "toml" else _json_key_lines(text)
    except RecursionError:
        raise InputError(f"{spec}: the config is nested too deeply") from None
    return config_from_dict(data, origin=spec, lines=lines, default_name=path.stem, fmt=fmt, check=check)


def _parse(spec: str, fmt: str, text: str) -> dict:
    try:
        return _parse_text(spec, fmt, text)
    except RecursionError:
        raise InputError(f"{spec}: the config is nested too deeply") from None


def _parse_text(spec: str, fmt: str, text: str) -> dict:
    if fmt == "toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            msg = str(e)
            m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)
            if m:
                raise InputError(f"{spec}:{m[1]}: invalid TOML: {msg[:m.start()]} "
                                 f"(column {m[2]})") from None
            msg = msg.replace(" (at end of document)", "")
            raise InputError(f"{spec}:{text.count(chr(10)) + 1}: invalid TOML: {msg} "
                             f"(at the end of the file)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{spec}:{e.lineno}: invalid JSON: {e.msg} (column {e.colno})") from None
    if not isinstance(data, dict):
        raise InputError(f"{spec}:1: the config must be a JSON object, not {_kind(data)}")
    return data


class _Where:
    """Turns a field path into the ``file:line: field: `` prefix of an error."""

    def __init__(self, origin: str, lines: dict[tuple, int]) -> None:
        self.origin = origin
        self.lines = lines

    def error(self, path: tuple[str, ...], why: str) -> InputError:
        # The key itself, else the nearest enclosing table that appears in the file.
        line = next((self.lines[path[:n]] for n in range(len(path), 0, -1)
                     if path[:n] in self.lines), None)
        at = f"{self.origin}:{line}" if line is not None else self.origin
        return InputError(f"{at}: {'.'.join(path)}: {why}")


def config_from_dict(
    data: dict,
    origin: str = "<config>",
    lines: dict[tuple, int] | None = None,
    default_name: str = "custom",
    fmt: str = "toml",
    check: Callable[[GPUConfig], None] | None = None,
) -> GPUConfig:
    """Build a validated GPUConfig from the parsed content of a config file.

    Parameters
    ----------
    data : dict
        Top-level fields, ``l1``/``l2``/``l3`` sub-dicts, optional ``base``.
    origin : str
        Name of the file (or other source) used in error messages.
    lines : dict, optional
        Line of each key path (``("l1", "assoc") -> 7``), for error messages.
    default_name : str
        ``name`` when neither the data nor a base gives one.
    fmt : str
        ``"toml"`` or ``"json"``: words used in messages (table or object).
    check : callable, optional
        See :func:`load_config`.

    Raises
    ------
    InputError
        See :func:`load_config`.
    """
    where = _Where(origin, lines or {})
    data = dict(data)
    base = None
    if "base" in data:
        name = data.pop("base")
        if not isinstance(name, str) or name not in PRESETS:
            raise where.error(("base",), f"must be one of {', '.join(PRESETS)}, not {name!r}")
        base = preset(name)

    top: dict[str, Any] = {}
    levels: dict[str, CacheConfig | None] = {}
    for key, value in data.items():
        if key in _LEVELS:
            levels[key] = _cache_level(where, key, value, base, fmt)
        elif key in _GPU_FIELDS:
            top[key] = _typed(where, (key,), _GPU_FIELDS[key], value, fmt)
        else:
            raise where.error((key,), _unknown(key, list(_GPU_FIELDS) + list(_LEVELS)))

    for pol, params in top.get("policy_params", {}).items():
        if not isinstance(params, dict):
            raise where.error(("policy_params", pol), f"must be {_table(fmt)}, not {_kind(params)}")
    if "policy_params" in top and base is not None:
        # Per policy, the file's parameters override the base's one by one.
        merged = dict(base.policy_params)
        for pol, params in top["policy_params"].items():
            merged[pol] = {**merged.get(pol, {}), **params}
        top["policy_params"] = merged

    if base is None:
        for key in ("n_sm", "l1", "l2"):
            if key not in top and key not in levels:
                raise where.error((key,), "missing (give it, or start from a preset with "
                                          f"base = one of {', '.join(PRESETS)})")
        top.setdefault("name", default_name)
        top.setdefault("source", origin)
    else:
        top.setdefault("name", default_name)
        top.setdefault("source", f"{origin}, based on {base.name} ({base.source})")
    fields = {**top, **levels}
    try:
        gpu = base.replace(**fields) if base is not None else GPUConfig(**fields)
    except ValueError as e:
        raise _schema_error(where, (), e) from None
    _check_policies(where, gpu)
    return _checked(where, gpu, check)


def _checked(where: _Where, gpu: GPUConfig, check: Callable[[GPUConfig], None] | None) -> GPUConfig:
    """``gpu``, once the caller's ``check`` (see :func:`load_config`) has passed it."""
    if check is not None:
        try:
            check(gpu)
        except ValueError as e:
            raise _schema_error(where, (), e) from None
    return gpu


def _check_policies(where: _Where, gpu: GPUConfig) -> None:
    """Build every registered policy that ``policy_params`` names and attach it to each level.

    Parameters for a policy gpucache does not have (yet) are kept as given;
    ``--policy`` with such a name is refused when the run starts.
    """
    if not gpu.policy_params:
        return
    from golden.policies.base import get_policy, policy_names

    known = set(policy_names())
    for name, params in gpu.policy_params.items():
        if name not in known:
            continue
        try:
            policy = get_policy(name, **params)
            for level, cfg in gpu.levels:
                policy.level_hooks(level, cfg, gpu.n_sm if level == "l1" else 1)
        except (TypeError, ValueError, OverflowError, MemoryError) as e:
            why = str(e).removeprefix(f"{name}: ")
            raise where.error(("policy_params", name), f"policy {name!r} refuses these parameters: {why}") \
                from None


def _cache_level(where: _Where, level: str, value: Any, base: GPUConfig | None,
                 fmt: str) -> CacheConfig | None:
    if level == "l3" and (value is False or value is None):
        return None
    if not isinstance(value, dict):
        raise where.error((level,), f"must be {_table(fmt)}, not {_kind(value)}")
    fields = {}
    for key, v in value.items():
        if key not in _CACHE_FIELDS:
            raise where.error((level, key), _unknown(key, list(_CACHE_FIELDS)))
        fields[key] = _typed(where, (level, key), _CACHE_FIELDS[key], v, fmt)
    start = getattr(base, level) if base is not None else None
    if start is None:
        for key in _REQUIRED_CACHE:
            if key not in fields:
                raise where.error((level, key), "missing (a new cache level needs "
                                                f"{', '.join(_REQUIRED_CACHE)})")
    try:
        return start.replace(**fields) if start is not None else CacheConfig(**fields)
    except ValueError as e:
        raise _schema_error(where, (level,), e) from None


def _schema_error(where: _Where, prefix: tuple[str, ...], e: ValueError) -> InputError:
    """Re-raise the schema's ``"field: why"`` message with file, line and full field path."""
    field, sep, why = str(e).partition(": ")
    if not sep or not re.fullmatch(r"\w+(\.\w+)?", field):
        return where.error(prefix or ("config",), str(e))
    return where.error((*prefix, *field.split(".")), why)


def _typed(where: _Where, path: tuple[str, ...], ftype: str, value: Any, fmt: str) -> Any:
    """``value`` checked (and, for floats, converted) against the annotation ``ftype``."""
    if ftype == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise where.error(path, f"must be an integer, not {value!r}")
    elif ftype == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise where.error(path, f"must be a number, not {value!r}")
        try:
            value = float(value)
        except OverflowError:
            raise where.error(path, "is too large a number") from None
    elif ftype == "str":
        if not isinstance(value, str):
            raise where.error(path, f"must be a string, not {value!r}")
    elif ftype == "dict":
        if not isinstance(value, dict):
            raise where.error(path, f"must be {_table(fmt)}, not {_kind(value)}")
    return value


def _unknown(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, 1)
    return f"unknown field; did you mean {close[0]}?" if close else \
        f"unknown field (fields: {', '.join(known)})"


def _table(fmt: str) -> str:
    return "a table" if fmt == "toml" else "an object"


def _kind(value: Any) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), repr(value))


# --- where keys are: the parsers keep no positions --------------------------------------------

_TOML_HEADER = re.compile(r"^\s*\[\s*([^\[\]#]+?)\s*\]\s*(?:#.*)?$")
_TOML_KEY = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
                       r"""(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""")
_TOML_INLINE_KEY = re.compile(r"""[{,]\s*([A-Za-z0-9_-]+|"[^"]*"|'[^']*')\s*=""")


_MAX_SCANNED_LINE = 4096


def _toml_path(dotted: str) -> tuple[str, ...]:
    parts = re.findall(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""", dotted)
    return tuple(p.strip("\"'") for p in parts)


def _toml_key_lines(text: str) -> dict[tuple, int]:
    """First line of every key path and table header of a TOML text."""
    out: dict[tuple, int] = {}
    table: tuple[str, ...] = ()
    for n, line in enumerate(text.splitlines(), start=1):
        if len(line) > _MAX_SCANNED_LINE:
            continue  # inside a long string: no key; the regular expressions would be quadratic
        if m := _TOML_HEADER.match(line):
            table = _toml_path(m[1])
            out.setdefault(table, n)
        elif m := _TOML_KEY.match(line):
            path = table + _toml_path(m[1])
            out.setdefault(path, n)
            # One level of inline table: l1 = { size = 16384, assoc = 8 }
            rest = line[m.end():]
            if rest.lstrip().startswith("{"):
                for k in _TOML_INLINE_KEY.finditer(rest):
                    out.setdefault(path + _toml_path(k[1]), n)
    return out


def _json_key_lines(text: str) -> dict[tuple, int]:
    """Line of every object key path of a (valid) JSON text."""
    out: dict[tuple, int] = {}
    decoder = json.JSONDecoder()
    ws = re.compile(r"\s*")

    def line(i: int) -> int:
        return text.count("\n", 0, i) + 1

    def value(i: int, path: tuple) -> int:
        i = ws.match(text, i).end()
        if text[i] == "{":
            i = ws.match(text, i + 1).end()
            while text[i] != "}":
                key, j = json.decoder.scanstring(text, i + 1)
                out.setdefault((*path, key), line(i))
                j = ws.match(text, j).end() + 1  # the colon
                i = ws.match(text, value(j, (*path, key))).end()
                if text[i] == ",":
                    i = ws.match(text, i + 1).end()
            return i + 1
        if text[i] == "[":
            i = ws.match(text, i + 1).end()
            while text[i] != "]":
                i = ws.match(text, value(i, path)).end()
                if text[i] == ",":
                    i += 1
                i = ws.match(text, i).end()
            return i + 1
        return decoder.raw_decode(text, i)[1]

    value(0, ())
    return out


# --- writing a config back out ----------------------------------------------------------------

def config_to_dict(gpu: GPUConfig) -> dict:
    """The config as plain data: the layout :func:`config_from_dict` reads back."""
    return dataclasses.asdict(gpu)


def dump_toml(gpu: GPUConfig) -> str:
    """The config as a complete TOML file that :func:`load_config` reads back unchanged."""
    d = config_to_dict(gpu)
    out = [f"# gpucache machine config {gpu.name!r}", ""]
    tables = {}
    for key, value in d.items():
        if isinstance(value, dict) or (key == "l3" and value is None):
            tables[key] = value
        else:
            out.append(f"{key} = {_toml_value(value)}")
    if tables.get("l3", 0) is None:
        out.append("l3 = false")
    sections = [(level, tables[level]) for level in _LEVELS if tables.get(level)]
    sections += [(f"policy_params.{_toml_key(p)}", v) for p, v in tables.get("policy_params", {}).items()]
    for header, fields in sections:
        out += ["", f"[{header}]"] + [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in fields.items()]
    return "\n".join(out) + "\n"


def _toml_key(k: str) -> str:
    """A bare key when TOML allows one, else a quoted key."""
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else _toml_str(k)


def _toml_str(v: str) -> str:
    """A TOML basic string: quote, backslash and every control character escaped."""
    body = "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F
                   else "\\" + c if c in '"\\' else c for c in v)
    return f'"{body}"'


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else {"inf": "inf", "-inf": "-inf"}.get(repr(v), "nan")
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise ValueError(f"Value {v!r} of type {type(v).__name__} has no TOML form")
