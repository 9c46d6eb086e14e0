"""The A2E reference SDK itself (tests/sdk/a2e-python-sdk, at a pinned commit), unchanged, in a
venv of its own (`make sdk-venv`; A2E_SDK_VENV names it): an agent drives every learn/* call
through `/a2e` with the SDK's A2EClient, HTTPTransport and LearnAPI (tests/sdk/learn_agent.py).

Skipped where that venv is missing, but never on CI, which makes it first (.ci/run).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from feedback.models import Experience, Feedback
from tests.builders import weight_proposal
from tests.conftest import IN_CI

if TYPE_CHECKING:
    from tests.harness import Actor

HERE = Path(__file__).resolve().parent
LEARN_CALLS = {
    "feedback", "experience", "stats", "adapt", "plan", "review", "apply", "rollback", "history",
}  # fmt: skip


def sdk_python() -> Path:
    venv = os.environ.get("A2E_SDK_VENV", "")
    python = Path(venv) / "bin" / "python"
    if not venv or not (Path(venv) / ".installed").exists():
        if IN_CI:
            pytest.fail(f"CI must run the SDK job, but its venv is missing: {venv or 'unset'}")
        pytest.skip("needs the SDK's venv: make sdk-venv (A2E_SDK_VENV names it)")
    return python


def run_agent(*args: str) -> dict[str, Any]:
    """tests/sdk/learn_agent.py with `args`, on the SDK's venv: its answer."""
    result = subprocess.run(
        [str(sdk_python()), str(HERE / "learn_agent.py"), *args],
        cwd=HERE,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    answers: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return answers


def test_the_sdk_drives_every_learn_call_through_a2e(asgi_server: str, agent: Actor) -> None:
    component = "sdk-tool"
    proposal = json.dumps(weight_proposal(component, 0.5, 0.55))
    answers = run_agent("calls", f"{asgi_server}/a2e", agent.token, component, proposal)
    assert set(answers) == {"workaround", *LEARN_CALLS}
    assert answers["workaround"] is True  # docs/how-to/a2e-sdk.md's workaround: still needed
    assert answers["feedback"] == 1
    assert answers["experience"] == 1
    assert component in answers["stats"]
    assert answers["apply"] == 1
    assert answers["rollback"] is True
    assert answers["history"] >= 1


def test_a_kept_item_resent_through_the_sdk_is_stored_once_and_answered_as_stored(
    asgi_server: str, agent: Actor
) -> None:
    component = "sdk-resent"
    answers = run_agent("resend", f"{asgi_server}/a2e", agent.token, component)
    assert answers == {"experience": [1, 1], "feedback": [1, 1]}
    assert Experience.objects.filter(experience_id=f"kept-{component}").count() == 1
    assert Feedback.objects.filter(feedback_id=f"kept-{component}").count() == 1


def test_the_client_installs_beside_the_sdk_and_leaves_its_pins_as_they_are() -> None:
    python = str(sdk_python())
    checked = subprocess.run(
        [python, "-m", "pip", "check"], capture_output=True, text=True, check=False, timeout=120
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    versions = subprocess.run(
        [python, "-c", "import a2e, learnportal_client, pydantic; print(pydantic.VERSION)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    pins = (HERE / "requirements.txt").read_text().splitlines()
    assert f"pydantic=={versions.stdout.strip()}" in pins  # the SDK's pin, not the client's pick


def test_the_sdk_survives_a_body_over_the_size_limit_refused_on_the_stream(
    asgi_server: str, agent: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_MAX_BODY_BYTES = 4096
    answers = run_agent("too-long", f"{asgi_server}/a2e", agent.token, "8192")
    assert answers == {"refused": "too_large", "alive": True, "next": True}
