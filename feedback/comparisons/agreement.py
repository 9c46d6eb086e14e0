"""How much the judges of comparisons agree (`GET /api/agreement/`, `comparisons`): Krippendorff's
alpha, a comparison a unit, by the rubrics' agreement (feedback.rubrics.agreement).

- `preference`, ordinal, on the five-point scale of the comparisons of two: each judgment read
  in the order the candidates were sent (a judge shown them the other way round said the
  opposite number), so that shuffled sides do not pass for disagreement.
- `winner`, nominal, on every comparison: the candidate ranked first (by its place in the
  order sent), or a tie.
- Each of the rubric's questions of candidates (`candidates: true`) but text's, at its kind's
  level, a candidate a unit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from feedback.comparisons.models import Candidate, Judgment, answers_of, judgment_readable
from feedback.rubrics.agreement import QuestionAgreement, level_of, question_agreement
from feedback.rubrics.questions import AnyQuestion, CategoricalQuestion
from feedback.services.rubrics import rubric_current

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
    questions = [
        q for q in rubric_current(project).rubric.questions if q.candidates and level_of(q)
    ]
    answered: dict[str, list[Rating]] = {q.key: [] for q in questions}
    judgments = Judgment.objects.filter(project_id=project).order_by("id")
    for comparison, shown, ranks, preference, answers in judgments.values_list(
        "comparison_id", "shown", "ranks", "preference", "answers"
    ).iterator(chunk_size=2000):
        if not judgment_readable(shown, ranks, preference):
            continue
        for candidate in shown:
            for key, answer in answers_of(answers, candidate).items():
                if key in answered:
                    answered[key].append((candidate, answer))
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
    return [
        question_agreement(PREFERENCE, preferences),
        question_agreement(winner, winners),
        *(_answers_agreement(q, answered[q.key]) for q in questions),
    ]


def _answers_agreement(question: AnyQuestion, ratings: list[Rating]) -> QuestionAgreement:
    """A question's agreement over the answers as stored: one its question no longer takes (a
    row of another time) is left out rather than fail the page."""
    try:
        return question_agreement(question, ratings)
    except (ValueError, TypeError):
        return question_agreement(question, [r for r in ratings if _takes(question, r[1])])


def _takes(question: AnyQuestion, answer: Any) -> bool:
    try:
        question_agreement(question, [("a", answer), ("a", answer)])
    except (ValueError, TypeError):
        return False
    return True
