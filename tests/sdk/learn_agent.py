"""An agent on the A2E reference SDK, unchanged, talking to LearnPortal through `/a2e`.

Run by tests/sdk/test_a2e_sdk.py with the SDK venv's Python (the SDK is no dependency of the
product), it prints one JSON object:
- `learn_agent.py calls BASE_URL TOKEN COMPONENT PROPOSAL` (a weight proposal for the component,
  as JSON): what each learn/* call answered, and whether `LearnAPI` needed the workaround for
  its `NameError`;
- `learn_agent.py too-long BASE_URL TOKEN BYTES`: the code an experience of about BYTES was
  refused with, and whether the transport and the next call survived it;
- `learn_agent.py resend BASE_URL TOKEN COMPONENT`: what sending one kept experience and one
  kept feedback twice answered (the SDK stamps a fresh `ts` on each send).
"""

from __future__ import annotations

import json
import logging
import sys
from typing import TYPE_CHECKING, Any

from a2e.caps.learn import LEARN_TYPE_MAP
from a2e.caps.learn import client as learn_client
from a2e.caps.learn.protocol import Feedback, LearnFeedbackRequest
from a2e.core.client import A2EClient
from a2e.core.client.client import A2EClientError
from a2e.core.transports.http import HTTPTransport

if TYPE_CHECKING:
    from collections.abc import Callable


def learn_api(client: Any) -> tuple[Any, bool]:
    """The SDK's LearnAPI, and whether it needed the workaround: its module uses
    LEARN_TYPE_MAP without importing it (NameError), so give the module that name."""
    try:
        return learn_client.LearnAPI(client), False
    except NameError:
        learn_client.LEARN_TYPE_MAP = LEARN_TYPE_MAP
        return learn_client.LearnAPI(client), True


def calls(base_url: str, token: str, component: str, proposal: str) -> dict[str, Any]:
    log = logging.getLogger("sdk-agent")
    transport = HTTPTransport(base_url, log)
    with A2EClient(transport, log, auth_token=token, agent_caps=["learning"]) as client:
        learn, workaround = learn_api(client)
        answers: dict[str, Any] = {"workaround": workaround}
        answers["feedback"] = learn.feedback(
            polarity="positive", score=0.8, source="self", response="The answer is 42."
        ).recorded
        step = {"action": {"component_name": component}, "reward": 0.5}
        answers["experience"] = learn.experience([step])
        answers["stats"] = [record.component_name for record in learn.stats()]
        answers["plan"] = learn.refine(action="plan")["status"]
        weight = json.loads(proposal)
        answers["review"] = learn.refine(action="review", proposal=weight)["risk_level"]
        applied = learn.refine(action="apply", proposal=weight)
        answers["apply"] = applied["applied_edits"]
        rollback = learn.refine(action="rollback", refinement_id=applied["refinement_id"])
        answers["rollback"] = rollback["rolled_back"]
        answers["history"] = len(learn.refine(action="history")["entries"])
        answers["adapt"] = [record.component_name for record in learn.adapt()]  # moves weights
        return answers


def too_long(base_url: str, token: str, size: str) -> dict[str, Any]:
    log = logging.getLogger("sdk-agent")
    transport = HTTPTransport(base_url, log)
    with A2EClient(transport, log, auth_token=token, agent_caps=["learning"]) as client:
        learn, _ = learn_api(client)
        answers: dict[str, Any] = {}
        try:
            learn.experience([{"state": {"text": "x" * int(size)}}])
        except A2EClientError as refused:
            answers["refused"] = refused.code
        answers["alive"] = transport.alive()
        answers["next"] = isinstance(learn.stats(), list)
        return answers


def resend(base_url: str, token: str, component: str) -> dict[str, Any]:
    log = logging.getLogger("sdk-agent")
    transport = HTTPTransport(base_url, log)
    with A2EClient(transport, log, auth_token=token, agent_caps=["learning"]) as client:
        learn, _ = learn_api(client)
        kept = {
            "experience_id": f"kept-{component}",
            "action": {"component_name": component},
            "reward": 0.5,
        }
        rating = {
            "feedback_id": f"kept-{component}",
            "rated_turn": None,
            "polarity": "positive",
            "source": "self",
        }

        def send_rating() -> int:  # a new model each time, as the SDK's own calls make
            request = LearnFeedbackRequest(feedbacks=[Feedback(**rating)])
            recorded: int = client.rpc(request, timeout=10).recorded
            return recorded

        return {
            "experience": [learn.experience([kept]) for _ in range(2)],
            "feedback": [send_rating() for _ in range(2)],
        }


MODES: dict[str, Callable[..., dict[str, Any]]] = {
    "calls": calls,
    "too-long": too_long,
    "resend": resend,
}

if __name__ == "__main__":
    mode, *args = sys.argv[1:]
    print(json.dumps(MODES[mode](*args)))
