"""`pip install ./clients/python` gives the client and the protocol models, and no Django.

The wheel is built from the checkout as pip builds it (hatchling, no download: the build
backend is pinned in the dev dependencies), then imported from where it was unpacked alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from email.parser import Parser
from typing import TYPE_CHECKING

from tests.processes import REPO

if TYPE_CHECKING:
    from pathlib import Path

    from tests.conftest import InstalledClient

USE = """
import json, sys
from learnportal_client import Experience, LearnClient, LearnError, choose
import learnportal.protocol
experience = Experience(action={"component_name": "c"}, reward=1.0)
print(json.dumps({
    "protocol": learnportal.protocol.__file__,
    "server_modules": sorted(m for m in sys.modules if m.split(".")[0] in {"django", "rest_framework", "channels", "feedback", "refinement"}),
}))
"""


def test_the_wheel_holds_the_client_and_the_protocol_models_of_this_checkout(
    installed_client: InstalledClient,
) -> None:
    names = zipfile.ZipFile(installed_client.wheel).namelist()
    packages = {n.split("/")[0] for n in names if not n.startswith("learnportal_client-")}
    assert packages == {"learnportal_client", "learnportal"}
    protocol = sorted(n for n in names if n.startswith("learnportal/"))
    assert protocol == sorted(
        f"learnportal/protocol/{p.name}" for p in (REPO / "learnportal" / "protocol").glob("*.py")
    )
    assert "learnportal/__init__.py" not in names  # a namespace portion: never the server's


def test_the_wheel_depends_on_no_django(installed_client: InstalledClient) -> None:
    with zipfile.ZipFile(installed_client.wheel) as archive:
        (metadata,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        requires = Parser().parsestr(archive.read(metadata).decode()).get_all("Requires-Dist")
    assert sorted(r.split("==")[0].lower() for r in requires or []) == [
        "httpx",
        "jiter",
        "pydantic",
        "websockets",
    ]


def test_the_unpacked_wheel_alone_imports_and_runs(
    installed_client: InstalledClient, tmp_path: Path
) -> None:
    site = installed_client.site
    result = subprocess.run(
        [sys.executable, "-c", USE],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    said = json.loads(result.stdout)
    assert said["protocol"].startswith(str(site))
    assert said["server_modules"] == []
