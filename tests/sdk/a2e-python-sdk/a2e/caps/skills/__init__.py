from a2e.caps.skills.protocol import (
    SKILL_TYPE_MAP,
    SkillDefinition,
    SkillDiscoverRequest,
    SkillDiscoverResponse,
    SkillCallRequest,
    SkillCallResponse,
    SkillEvent,
    SkillErrorCode,
    MessageType,
    SkillResult,
)
from a2e.caps.skills.plugin import (
    SkillPlugin
)

__all__ = [
    "SKILL_TYPE_MAP",
    "SkillPlugin",
    "SkillDefinition",
    "SkillDiscoverRequest",
    "SkillDiscoverResponse",
    "SkillCallRequest",
    "SkillCallResponse",
    "SkillEvent",
    "SkillErrorCode",
    "SkillResult",
    "MessageType"
]
