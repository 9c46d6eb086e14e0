from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.webhooks.receiver import Receiver, serve

if TYPE_CHECKING:
    from collections.abc import Iterator


@pytest.fixture(autouse=True)
def _private_addresses_allowed(settings: Any) -> None:
    # The receivers of these tests listen on 127.0.0.1, which production refuses.
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = True
    settings.LEARNPORTAL_WEBHOOK_TIMEOUT_SECONDS = 2.0


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    me = serve()
    yield me
    me.server.shutdown()
    me.server.server_close()
