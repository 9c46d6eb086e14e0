"""The buffers and the clients meet at Protocols (`ports.py`): neither imports the other's module.

A buffer sends through anything with `send` and `batch_limit`, so it runs here over a plain
recorder, with no HTTP and no client.
"""

from __future__ import annotations

import ast
import asyncio

from learnportal_client.buffer import AsyncLearnBuffer, LearnBuffer
from learnportal_protocol.messages import (
    Envelope,
    LearnExperienceRequest,
    LearnExperienceResponse,
    Response,
)
from tests.processes import REPO

PACKAGE = REPO / "clients/python/learnportal_client"
CLIENT_MODULES = {"learnportal_client.client", "learnportal_client.session"}


def imported(module: str) -> set[str]:
    """Every module `module` imports, for the type checker too (under TYPE_CHECKING)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    return names


def test_the_buffer_and_its_backlog_import_no_client_not_even_for_the_type_checker() -> None:
    for module in ("buffer", "backlog", "ports"):
        assert imported(module) & CLIENT_MODULES == set(), module
    assert "learnportal_client.buffer" in imported("client")  # the one direction


class Recorder:
    """A Sender that stores every experience batch it is given."""

    def __init__(self) -> None:
        self.sent: list[Envelope] = []

    def send(self, request: Envelope) -> Response:
        self.sent.append(request)
        return LearnExperienceResponse(req_id=request.id, stored=1)

    def batch_limit(self) -> int:
        return 2


class AsyncRecorder:
    """The same, awaited: an AsyncSender."""

    def __init__(self) -> None:
        self.recorder = Recorder()

    async def send(self, request: Envelope) -> Response:
        return self.recorder.send(request)

    async def batch_limit(self) -> int:
        return self.recorder.batch_limit()


def test_a_buffer_sends_through_any_sender_in_batches_of_its_limit() -> None:
    sender = Recorder()
    with LearnBuffer(sender, max_items=10, max_interval=60.0) as buffer:
        for n in range(3):
            buffer.add_experience({"action": {"component_name": f"c{n}"}, "reward": 1.0})
        buffer.flush(timeout=10)
    batches = [r.experiences for r in sender.sent if isinstance(r, LearnExperienceRequest)]
    assert [[e.action.component_name for e in batch] for batch in batches] == [["c0", "c1"], ["c2"]]


async def test_an_awaited_buffer_sends_through_any_awaited_sender() -> None:
    sender = AsyncRecorder()
    async with AsyncLearnBuffer(sender, max_items=10, max_interval=60.0) as buffer:
        buffer.add_experience({"action": {"component_name": "c"}, "reward": 1.0})
        await asyncio.wait_for(buffer.flush(), 10)
    assert [r.type for r in sender.recorder.sent] == ["learn/experience/req"]
