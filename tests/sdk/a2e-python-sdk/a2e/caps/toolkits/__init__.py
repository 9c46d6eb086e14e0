from a2e.caps.toolkits.protocol import (
    TOOLKIT_TYPE_MAP,
    ToolkitListRequest,
    ToolkitListResponse,
    ToolkitConfigureRequest,
    ToolkitConfigureResponse,
    ToolkitDefinition
)
from a2e.caps.toolkits.plugin import (
    ToolkitPlugin
)

__all__ = [
    "ToolkitPlugin",
    "ToolkitListResponse",
    "ToolkitListRequest",
    "ToolkitConfigureRequest",
    "ToolkitConfigureResponse",
    "ToolkitDefinition",
    "TOOLKIT_TYPE_MAP"
]
