from a2e.core.plugins.interface import (
    A2EPlugin
)
from a2e.core.plugins.schema import (
    PluginConfig
)
from a2e.core.plugins.registry import (
    PluginRegistry
)


__all__ = [
    "A2EPlugin",
    "PluginRegistry",
    "PluginConfig"
]
