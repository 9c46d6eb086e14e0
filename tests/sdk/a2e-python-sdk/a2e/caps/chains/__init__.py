from a2e.caps.chains.protocol import (
    CHAIN_TYPE_MAP
)

__all__ = [
    "CHAIN_TYPE_MAP"
]
