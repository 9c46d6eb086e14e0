"""What the comparisons' endpoints answer, each answer one pydantic model (as feedback.answers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from learnportal_protocol.models import Answer

if TYPE_CHECKING:
    from feedback.comparisons.queue import ComparisonHeld


class StoredComparison(Answer):
    id: int = Field(description="the host's id: the judgments' URL names it")
    comparison_id: str
    candidates: list[str] = Field(description="each candidate's candidate_id, in the order sent")


class ComparisonsCreated(Answer):
    received: int = Field(description="comparisons in the request")
    created: int = Field(description="comparisons new to the queue (a known comparison_id is kept)")
    comparisons: list[StoredComparison] = Field(description="each one sent, in the order sent")


class ShownCandidate(Answer):
    candidate_id: str
    response: str


class LeasedComparison(Answer):
    """What a judge sees: not the sender's `comparison_id`, which may name the candidates'
    models (a judgment is blind to them)."""

    id: int
    prompt: str
    candidates: list[ShownCandidate] = Field(
        description="in the order shown to you (shuffled per person): a `preference` is read in it"
    )


class QueueLeasedComparison(Answer):
    """A comparison leased to the caller (asked for with `?kind=comparison`), to judge until
    `lease_expires`."""

    comparison: LeasedComparison
    lease_expires: float = Field(
        description="epoch seconds; after it the comparison may go to another"
    )

    @classmethod
    def of(cls, held: ComparisonHeld) -> QueueLeasedComparison:
        comparison = LeasedComparison(
            id=held.comparison.pk,
            prompt=held.comparison.prompt,
            candidates=[ShownCandidate(candidate_id=c, response=r) for c, r in held.shown],
        )
        return cls(comparison=comparison, lease_expires=held.expires)


class JudgmentCreated(Answer):
    judgment_id: str
    ranking: list[str] = Field(description="the candidates best first (a tie: in the order shown)")
    tie: bool = Field(description="whether the two candidates were judged equal")


class LeaderboardEntry(Answer):
    name: str
    strength: float = Field(description="Bradley-Terry log strength; the entries' mean is zero")
    interval: tuple[float, float] = Field(description="95%, from the Fisher information")
    wins: int
    losses: int
    ties: int
    judgments: int = Field(description="judgments in which it met another entry")


class Leaderboard(Answer):
    by: str
    entries: list[LeaderboardEntry] = Field(description="strongest first")
    position_bias: float | None = Field(
        description="of the decisive pairs judged, the share won by the candidate shown first "
        "(0.5: no bias); null with none"
    )
    position_bias_interval: tuple[float, float] | None = Field(
        default=None,
        description="its 95% (Wilson) interval: a bias worth a look when 0.5 lies outside",
    )
    pairs: int = Field(description="pairs judged (a ranking of k candidates is k(k-1)/2)")
