from a2e.caps.tools.protocol import (
    TOOL_TYPE_MAP,
    ToolListRequest,
    ToolListResponse,
    ToolCallRequest,
    ToolCallResponse,
    ToolDefinition,
    ToolResult,
    ToolParameter,
    ToolEvent
)
from a2e.caps.tools.plugin import (
    ToolPlugin
)

__all__ = [
    "ToolPlugin",
    "ToolListResponse",
    "ToolListRequest",
    "ToolCallRequest",
    "ToolCallResponse",
    "ToolDefinition",
    "ToolResult",
    "ToolParameter",
    "ToolEvent",
    "TOOL_TYPE_MAP"
]
