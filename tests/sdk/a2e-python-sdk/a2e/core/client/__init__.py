from a2e.core.client.client import (
    A2EClient,
    A2EClientError
)


__all__ = [
    "A2EClientError",
    "A2EClient"
]
