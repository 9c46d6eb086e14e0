from a2e.caps.mcp.protocol import (
    MCP_TYPE_MAP,
    MCPServerListRequest,
    MCPServerListResponse,
    MCPServerRegisterRequest,
    MCPServerRegisterResponse,
    MCPServerUnregisterRequest,
    MCPServerUnregisterResponse,
    MCPResourceListRequest,
    MCPResourceListResponse,
    MCPPromptListRequest,
    MCPPromptListResponse,
    MCPRootsListRequest,
    MCPRootsListResponse,
    MCPServerInfo,
)
from a2e.caps.mcp.plugin import (
    MCPPlugin
)

__all__ = [
    "MCPPlugin",
    "MCP_TYPE_MAP",
    "MCPServerListRequest",
    "MCPServerListResponse",
    "MCPServerRegisterRequest",
    "MCPServerRegisterResponse",
    "MCPServerUnregisterRequest",
    "MCPServerUnregisterResponse",
    "MCPResourceListRequest",
    "MCPResourceListResponse",
    "MCPPromptListRequest",
    "MCPPromptListResponse",
    "MCPRootsListRequest",
    "MCPRootsListResponse",
    "MCPServerInfo",
]
