"""Machine configurations: the schema, the papers' presets and the TOML/JSON loader.

Re-exports the public names of the subpackage.
"""

from golden.configs.loader import config_from_dict, config_to_dict, dump_toml, load_config
from golden.configs.presets import PRESETS, preset, preset_names
from golden.configs.schema import CacheConfig, GPUConfig

__all__ = [
    "PRESETS",
    "CacheConfig",
    "GPUConfig",
    "config_from_dict",
    "config_to_dict",
    "dump_toml",
    "load_config",
    "preset",
    "preset_names",
]
