"""Who may do what, as a Markdown table read from `core.accounts.roles.ALLOWED`."""

from __future__ import annotations

from core.accounts.roles import ALLOWED, EVERYONE, Role


def markdown() -> str:
    roles = [role for role in Role if role in EVERYONE]  # `none` may do nothing
    lines = [
        "| action | " + " | ".join(role.value for role in roles) + " |",
        "| --- |" + " :---: |" * len(roles),
    ]
    for action, allowed in ALLOWED.items():
        marks = " | ".join("✓" if role in allowed else "" for role in roles)
        lines.append(f"| {action.value} | {marks} |")
    return "\n".join(lines) + "\n"
