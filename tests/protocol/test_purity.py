"""The protocol package is pure: a Python client can import it without Django."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import sys
import learnportal_protocol
from learnportal_protocol import errors, ids, messages, models, wire
assert learnportal_protocol.parse_request is wire.parse_request
leaked = sorted(name for name in sys.modules if name == "django" or name.startswith("django."))
assert not leaked, leaked
assert "rest_framework" not in sys.modules
assert "channels" not in sys.modules
print("pure")
"""


def test_the_protocol_package_imports_nothing_from_django() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "pure"
