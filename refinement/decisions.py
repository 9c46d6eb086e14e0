"""What a person sends with a decision on a proposal: a note on an approval, a reason for a
rejection. The REST views parse these bodies and the reviewers' forms validate with them, so
that the portal refuses what REST refuses, with the same message; the services judge the rest
(a blank reason, say)."""

from __future__ import annotations

from pydantic import Field

from learnportal_protocol.models import RequiredText, StrictModel, Text

NOTE_MAX_LENGTH = 5_000  # an approval's note, a rejection's reason


class Approve(StrictModel):
    note: Text = Field(default="", max_length=NOTE_MAX_LENGTH)


class Reject(StrictModel):
    reason: RequiredText = Field(max_length=NOTE_MAX_LENGTH, description="why; not blank")
