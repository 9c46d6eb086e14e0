from __future__ import annotations

from typing import Any

from channels.security.websocket import OriginValidator
from django.conf import settings


class BrowserOriginValidator(OriginValidator):
    """Refuse cross-site browser handshakes; let non-browser clients, which send no Origin, in.

    A page on another site could otherwise ride a logged-in person's session cookie. Agents
    authenticate with a bearer token and send no Origin header, so there is nothing to ride.
    """

    def __init__(self, application: Any) -> None:
        hosts = list(settings.ALLOWED_HOSTS) or ["localhost", "127.0.0.1", "[::1]"]
        super().__init__(application, hosts)

    def valid_origin(self, parsed_origin: Any) -> bool:
        if parsed_origin is None:
            return True
        return self.validate_origin(parsed_origin)
