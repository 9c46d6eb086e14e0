"""How much the judges of comparisons agree (`GET /api/agreement/`, `comparisons`): Krippendorff's
alpha, a comparison a unit, by the rubrics' agreement (feedback.rubrics.agreement).

- `preference`, ordinal, on the five-point scale of the comparisons of two: each judgment read
  in the order the candidates were sent (a judge shown them the other way round said the
  opposite number), so that shuffled sides do not pass for disagreement.
- `winner`, nominal, on every comparison: the candidate ranked first (by its place in the
  order sent), or a tie.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from feedback.comparisons.models import Candidate, Judgment, judgment_readable
from feedback.rubrics.agreement import QuestionAgreement, question_agreement
from feedback.rubrics.questions import CategoricalQuestion

if TYPE_CHECKING:
    from feedback.rubrics.agreement import Rating

TIE = "tie"
PREFERENCE = CategoricalQuestion(
    key="preference", label="Preference", options=["-2", "-1", "0", "1", "2"], ordered=True
)


def comparison_agreement(project: int) -> list[QuestionAgreement]:
    """The agreement on the preference of two, and on the winner, over the project's
    comparisons judged by two people or more."""
    sent = dict(
        Candidate.objects.filter(comparison__project_id=project).values_list(
            "candidate_id", "position"
        )
    )
    preferences: list[Rating] = []
    winners: list[Rating] = []
    judgments = Judgment.objects.filter(project_id=project).order_by("id")
    for comparison, shown, ranks, preference in judgments.values_list(
        "comparison_id", "shown", "ranks", "preference"
    ).iterator(chunk_size=2000):
        if not judgment_readable(shown, ranks, preference):
            continue
        if preference is not None and len(shown) == 2:
            as_sent = preference if sent.get(shown[0], 0) == 0 else -preference
            preferences.append((comparison, str(as_sent)))
        best = [candidate for candidate, rank in zip(shown, ranks, strict=True) if rank == 0]
        winners.append((comparison, str(sent.get(best[0], 0)) if len(best) == 1 else TIE))
    # Built, not validated: as many options as candidates, which the rubrics' bound need not fit.
    places = [TIE, *(str(place) for place in range(max(sent.values(), default=0) + 1))]
    winner = CategoricalQuestion.model_construct(
        key="winner", label="Winner", options=places, multiple=False, ordered=False
    )
    return [question_agreement(PREFERENCE, preferences), question_agreement(winner, winners)]
