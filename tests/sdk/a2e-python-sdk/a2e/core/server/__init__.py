from a2e.core.server.server import A2EServer
from a2e.core.server.executor import A2EServerRuntimeExecutor
from a2e.core.server.session import Session
from a2e.core.server.session_manager import SessionManager


__all__ = [
    "A2EServer",
    "A2EServerRuntimeExecutor",
    "SessionManager",
    "Session"
]
