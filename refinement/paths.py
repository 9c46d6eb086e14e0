"""What a proposal may point at: the three targets of docs/contract.md and their path grammar."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

NAME = r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,199}"
STEP = r"[A-Za-z0-9][A-Za-z0-9_\-]{0,199}"
SKILL_PATHS = [
    re.compile(r"^learnings/_global/SKILL\.md$"),
    re.compile(rf"^learnings/_global/references/{NAME}\.md$"),
    re.compile(rf"^learnings/_global/scripts/{NAME}$"),
    re.compile(rf"^learnings/(?!_global/)(?P<step>{STEP})/SKILL\.md$"),
    re.compile(rf"^learnings/(?!_global/)(?P<step>{STEP})/main\.py$"),
]
# A component name: up to 200 characters, none of them a control character (a newline, say).
WEIGHT_PATH = re.compile(r"^router\.weights\.(?P<component>[^\x00-\x1f\x7f-\x9f]{1,200})$")
STEP_PATH = re.compile(
    rf"^steps\.(?P<step>{STEP})\.(?P<field>learnings_access|learning_objective|lock_learnings)$"
)
WEIGHT_PREFIX = "router.weights."
UNWEIGHTED = 0.5


class Target(StrEnum):
    ROUTER_WEIGHT = "router_weight"
    SKILL_FILE = "skill_file"
    STEP_CONFIG = "step_config"


@dataclass(frozen=True)
class Location:
    target: Target
    path: str
    step_id: str = ""  # the step whose folder or config this is, if any
    field: str = ""  # for step_config
    component: str = ""  # for router_weight

    @property
    def is_code(self) -> bool:
        return self.path.endswith("/main.py") or "/scripts/" in self.path

    @property
    def is_skill_index(self) -> bool:
        return self.path.endswith("/SKILL.md")


def locate(target: Target, path: str) -> Location | None:
    """The location a path names for a target, or None if the path is not one it may write."""
    # fullmatch: `$` alone would also accept the path followed by a newline.
    if target is Target.ROUTER_WEIGHT:
        match = WEIGHT_PATH.fullmatch(path)
        return match and Location(target, path, component=match["component"])
    if target is Target.STEP_CONFIG:
        match = STEP_PATH.fullmatch(path)
        return match and Location(target, path, step_id=match["step"], field=match["field"])
    if ".." in path.split("/"):
        return None
    for pattern in SKILL_PATHS:
        if match := pattern.fullmatch(path):
            return Location(target, path, step_id=match.groupdict().get("step") or "")
    return None


def weight_path(component: str) -> str:
    return WEIGHT_PREFIX + component


def routable(component: str) -> bool:
    """Whether a component's name can be a routing weight's path (older hosts stored others)."""
    return locate(Target.ROUTER_WEIGHT, weight_path(component)) is not None


def step_path(step_id: str, field: str) -> str:
    return f"steps.{step_id}.{field}"


def is_markdown(path: str) -> bool:
    return path.endswith(".md")
