"""Label Studio 1.23.2, the peer of the ingest comparison: its own venv under var/bench/ (never
the project's), a fresh SQLite data dir, a user, a token and a project made through its CLI
and API, and the same rated turns as its tasks with annotations.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import TYPE_CHECKING, Any

import httpx

from bench.annotation.compare import Side
from bench.annotation.data import BATCH
from bench.harness.databases import ROOT, BenchError
from bench.harness.peers import peer_command, peer_data, peer_serving
from bench.harness.report import log
from bench.harness.servers import free_port

if TYPE_CHECKING:
    from collections.abc import Iterator


LABEL_STUDIO = "label-studio==1.23.2"
LS_VENV = ROOT / "var" / "bench" / "label-studio-venv"
LS_CONFIG = """<View>
  <Text name="prompt" value="$prompt"/>
  <Text name="response" value="$response"/>
  <Choices name="polarity" toName="response" choice="single">
    <Choice value="positive"/><Choice value="negative"/><Choice value="neutral"/>
    <Choice value="corrective"/>
  </Choices>
  <Number name="score" toName="response" min="-1" max="1" step="0.01"/>
  <Choices name="dimension" toName="response" choice="single">
    <Choice value="helpfulness"/><Choice value="correctness"/><Choice value="safety"/>
    <Choice value="tone"/><Choice value="plan_quality"/>
  </Choices>
  <Number name="confidence" toName="response" min="0" max="1" step="0.01"/>
  <TextArea name="comment" toName="response"/>
  <TextArea name="correction" toName="response"/>
</View>"""


def ls_tasks(items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The same rated turns as Label Studio tasks, each with its one annotation."""

    def result(name: str, kind: str, value: dict[str, Any]) -> dict[str, Any]:
        return {"from_name": name, "to_name": "response", "type": kind, "value": value}

    tasks = []
    for i in items:
        t, r = i["turn"], i["rating"]
        values = [
            result("polarity", "choices", {"choices": [r["polarity"]]}),
            result("score", "number", {"number": r["score"]}),
            result("dimension", "choices", {"choices": [r["dimension"]]}),
            result("confidence", "number", {"number": r["confidence"]}),
        ]
        if r["comment"]:
            values.append(result("comment", "textarea", {"text": [r["comment"]]}))
        if r["correction"]:
            values.append(result("correction", "textarea", {"text": [r["correction"]]}))
        data = {k: t[k] for k in ("correlation_id", "session_id", "component_name", "prompt")}
        tasks.append(
            {
                "data": data | {"response": t["response"], "model": t["model"]},
                "annotations": [{"result": values}],
            }
        )
    return [tasks[s : s + BATCH] for s in range(0, len(tasks), BATCH)]


class LabelStudioUnavailable(BenchError):
    pass


@contextlib.contextmanager
def label_studio_server() -> Iterator[tuple[str, str]]:
    """Label Studio on a free loopback port with a fresh SQLite data dir: (base URL, token)."""
    binary = peer_command(LS_VENV, LABEL_STUDIO, "label-studio", LabelStudioUnavailable)
    data = peer_data("label-studio")
    port = free_port()
    token = os.urandom(20).hex()
    settings = {
        "LABEL_STUDIO_BASE_DATA_DIR": str(data),
        "LATEST_VERSION_CHECK": "false",
        "COLLECT_ANALYTICS": "false",
        "SECRET_KEY": os.urandom(24).hex(),
        "DEBUG": "false",  # its default in `label-studio start`, said here for the record
    }
    command = [
        str(binary), "start", "--no-browser", "--internal-host", "127.0.0.1",
        "--port", str(port), "--data-dir", str(data),
        "--username", "bench@example.com", "--password", "bench-pass-123",
        "--user-token", token, "--enable-legacy-api-token",
    ]  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    with peer_serving("label-studio", command, settings, data, f"{base}/health",
                      LabelStudioUnavailable):  # fmt: skip
        yield base, token


@contextlib.contextmanager
def label_studio_side(items: list[dict[str, Any]]) -> Iterator[Side]:
    batches = ls_tasks(items)
    log("label studio: starting (its own venv, SQLite data dir under var/bench/)")
    with (
        label_studio_server() as (base, token),
        httpx.Client(
            base_url=base, headers={"Authorization": f"Token {token}"}, timeout=900
        ) as client,
    ):
        made = client.post(
            "/api/projects/", json={"title": "LearnPortal bench", "label_config": LS_CONFIG}
        )
        if made.status_code != 201:
            raise LabelStudioUnavailable(f"project: {made.status_code} {made.text[:300]}")
        project = made.json()["id"]
        version = client.get("/api/version/").json().get("release", "?")

        def send(n: int) -> float:
            t0 = time.perf_counter()
            response = client.post(f"/api/projects/{project}/import", json=batches[n])
            seconds = time.perf_counter() - t0
            if response.status_code != 201:
                raise LabelStudioUnavailable(
                    f"import: {response.status_code} {response.text[:300]}"
                )
            return seconds

        def check() -> None:
            state = client.get(f"/api/projects/{project}/").json()
            stored = (state.get("task_number"), state.get("total_annotations_number"))
            if stored != (len(items), len(items)):
                raise BenchError(f"label studio stored {state}, expected {len(items)} of each")

        yield Side(
            send,
            check,
            {"version": version, "server": "`label-studio start` (its Django server), SQLite"},
        )
