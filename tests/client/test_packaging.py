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

from packaging.requirements import Requirement

import learnportal_client
from tests.processes import REPO

if TYPE_CHECKING:
    from email.message import Message
    from pathlib import Path

    from tests.conftest import InstalledClient

USE = """
import json, sys
from learnportal_client import Experience, LearnClient, LearnError, choose
import learnportal_protocol
experience = Experience(action={"component_name": "c"}, reward=1.0)
print(json.dumps({
    "protocol": learnportal_protocol.__file__,
    "server_modules": sorted(m for m in sys.modules if m.split(".")[0] in {"django", "rest_framework", "channels", "feedback", "refinement"}),
}))
"""


def test_the_wheel_holds_the_client_and_the_protocol_models_of_this_checkout(
    installed_client: InstalledClient,
) -> None:
    names = zipfile.ZipFile(installed_client.wheel).namelist()
    packages = {n.split("/")[0] for n in names if not n.startswith("learnportal_client-")}
    assert packages == {"learnportal_client", "learnportal_protocol"}
    protocol = sorted(n for n in names if n.startswith("learnportal_protocol/"))
    sources = [
        *(REPO / "learnportal_protocol").glob("*.py"),
        REPO / "learnportal_protocol/py.typed",
    ]
    assert protocol == sorted(f"learnportal_protocol/{p.name}" for p in sources)
    assert "learnportal_client/py.typed" in names  # both packages are typed for an agent's mypy


def metadata(installed_client: InstalledClient) -> Message:
    with zipfile.ZipFile(installed_client.wheel) as archive:
        (name,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(archive.read(name).decode())


def test_the_wheels_version_is_the_packages_and_its_description_the_clients_readme(
    installed_client: InstalledClient,
) -> None:
    wheel = metadata(installed_client)
    assert wheel["Version"] == learnportal_client.__version__
    assert wheel.get_payload() == (REPO / "clients/python/README.md").read_text()


# What the A2E reference SDK (a2eprotocol/python-sdk, pyproject.toml) pins of what the client
# needs too: the client must install beside it.
SDK_PINS = {"pydantic": "2.12.5"}


def requirements(installed_client: InstalledClient) -> list[Requirement]:
    requires = metadata(installed_client).get_all("Requires-Dist")
    return [Requirement(r) for r in requires or []]


def test_the_wheel_depends_on_no_django(installed_client: InstalledClient) -> None:
    assert sorted(r.name.lower() for r in requirements(installed_client)) == [
        "httpx",
        "jiter",
        "pydantic",
        "websockets",
    ]


def test_the_wheel_asks_lower_bounds_that_admit_the_sdks_pins(
    installed_client: InstalledClient,
) -> None:
    for requirement in requirements(installed_client):
        assert all(spec.operator == ">=" for spec in requirement.specifier), requirement
        pinned = SDK_PINS.get(requirement.name.lower())
        if pinned is not None:
            assert requirement.specifier.contains(pinned), requirement


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
