"""The rubric builder, `/projects/<slug>/rubric/`: a project's managers and site admins write its
next rubric version through the one rule REST shares (`rubric_replace`), beside a preview drawn
by the rating form's own partial; its other members read it, and may not change it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.test import Client, override_settings

from core.projects.services import project_add
from feedback.models import RubricVersion
from feedback.rubrics.questions import rubric_from
from feedback.services.rubrics import rubric_current
from learnportal.people.rubric_draft import draft_max_bytes
from tests.builders import turn
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from core.projects.models import Project

pytestmark = pytest.mark.django_db

PAGE = "/projects/alpha/rubric/"
PREVIEW = "/projects/alpha/rubric/preview/"
QUALITY: dict[str, Any] = {
    "kind": "numeric",
    "key": "quality",
    "label": "Quality",
    "min": 1,
    "max": 5,
    "step": 1,
    "hotkeys": ["1", "2", "3", "4", "5"],
}
VERDICT: dict[str, Any] = {
    "kind": "categorical",
    "key": "verdict",
    "label": "Verdict",
    "options": ["wrong", "right"],
    "hotkeys": ["w", "r"],
}


@pytest.fixture
def alpha(db: None) -> Project:
    return project_add(slug="alpha", name="Alpha")


@pytest.fixture
def lead(alpha: Project) -> Actor:
    return human_actor("lead", "manager", project="alpha")


def browser_of(actor: Actor) -> Client:
    return actor.browser()


def written(lead: Actor, *questions: dict[str, Any]) -> None:
    answer = lead.rest("put", "/api/projects/alpha/rubric/", {"questions": list(questions)})
    assert answer.status_code == 200, answer.content


def form_of(*questions: dict[str, Any], do: str = "save") -> dict[str, Any]:
    """The builder's form, as a browser posts it: a card a question, its kind's fields only."""
    data: dict[str, Any] = {"do": do, "question": [str(i) for i in range(1, len(questions) + 1)]}
    for token, question in enumerate(questions, start=1):
        for name, value in question.items():
            field = f"card-{token}-{name}"
            if isinstance(value, bool):
                if value:
                    data[field] = "on"
            elif isinstance(value, list):
                data[field] = ("\n" if name == "options" else " ").join(map(str, value))
            else:
                data[field] = str(value)
    return data


def versions(alpha: Project) -> list[int]:
    return sorted(RubricVersion.objects.filter(project=alpha).values_list("version", flat=True))


# Reading ------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["annotator", "reviewer"])
def test_other_members_read_the_rubric_with_every_field_disabled_and_no_save(
    lead: Actor, role: str
) -> None:
    written(lead, QUALITY)
    member = human_actor("member", role, project="alpha")
    response = browser_of(member).get(PAGE)
    assert response.status_code == 200
    body = response.content.decode()
    assert 'value="quality"' in body
    assert '<fieldset class="card-fields" disabled>' in body
    assert 'value="save"' not in body
    assert "rubric_builder.js" not in body
    assert response.context["editable"] is False


@pytest.mark.parametrize("role", ["annotator", "reviewer"])
def test_other_members_are_refused_a_save_and_the_rubric_stays(
    lead: Actor, alpha: Project, role: str
) -> None:
    member = human_actor("member", role, project="alpha")
    response = browser_of(member).post(PAGE, form_of(QUALITY))
    assert response.status_code == 403
    assert versions(alpha) == []
    assert browser_of(member).post(PREVIEW, form_of(QUALITY)).json()["code"] == "forbidden"


def test_a_project_that_wrote_none_shows_the_default_rubric_as_version_1(lead: Actor) -> None:
    response = browser_of(lead).get(PAGE)
    assert response.status_code == 200
    assert [c.values["key"] for c in response.context["cards"]][:2] == [
        "correctness",
        "helpfulness",
    ]
    assert [v["version"] for v in response.context["versions"]] == [1]
    assert response.context["editable"] is True
    assert "rate on the five-dimension form" in response.content.decode()


def test_another_projects_rubric_is_not_found_as_one_that_does_not_exist(alpha: Project) -> None:
    project_add(slug="beta", name="Beta")
    outsider = human_actor("outsider", "manager", project="beta")
    for url in (PAGE, PREVIEW, "/projects/nowhere/rubric/"):
        assert browser_of(outsider).get(url).status_code in (404, 405)
        assert browser_of(outsider).post(url, form_of(QUALITY)).status_code == 404
    assert versions(alpha) == []


# Saving -------------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["manager", "admin"])
def test_a_manager_or_a_site_admin_saves_the_next_version(
    alpha: Project, lead: Actor, who: str
) -> None:
    actor = lead if who == "manager" else human_actor("root", "admin")
    response = browser_of(actor).post(PAGE, form_of(QUALITY, VERDICT))
    assert response.status_code == 302, response.content[:500]
    stored = rubric_current(alpha.pk)
    assert stored.version == 2
    assert stored.rubric == rubric_from({"questions": [QUALITY, VERDICT]})  # as REST reads it
    page = browser_of(actor).get(PAGE)
    assert [(v["version"], v["by"]) for v in page.context["versions"]] == [
        (2, actor.name),
        (1, ""),
    ]


def test_a_question_ticked_as_asked_of_each_candidate_is_saved_so(
    alpha: Project, lead: Actor
) -> None:
    factual = {"kind": "boolean", "key": "factual", "label": "Factual?", "candidates": True}
    response = browser_of(lead).post(PAGE, form_of(QUALITY, factual))
    assert response.status_code == 302, response.content[:500]
    assert rubric_current(alpha.pk).rubric.by_key()["factual"].candidates is True
    assert 'name="card-2-candidates"' in browser_of(lead).get(PAGE).content.decode()


def test_a_bad_field_is_shown_next_to_its_question_and_nothing_changes(
    alpha: Project, lead: Actor
) -> None:
    written(lead, QUALITY)
    bad = {**VERDICT, "options": ["only one"]}
    response = browser_of(lead).post(
        PAGE, form_of(QUALITY, {**QUALITY, "key": "x", "max": "0"}, bad)
    )
    assert response.status_code == 400
    cards = response.context["cards"]
    assert "max" in cards[1].errors and "must be above min" in cards[1].errors["max"]
    assert "options" in cards[2].errors
    assert cards[0].errors == {}
    assert 'id="card-2-max-numeric-error"' in response.content.decode()
    assert versions(alpha) == [2]


def test_a_number_that_is_no_number_is_refused_by_its_field(lead: Actor, alpha: Project) -> None:
    response = browser_of(lead).post(PAGE, form_of({**QUALITY, "step": "one"}))
    assert response.status_code == 400
    assert "step" in response.context["cards"][0].errors
    assert versions(alpha) == []


def test_a_conflict_on_an_answered_question_is_shown_next_to_it(
    alpha: Project, lead: Actor
) -> None:
    written(lead, QUALITY, VERDICT)
    agent = token_actor("alpha-agent", "agent", project="alpha")
    agent.rest("post", "/api/turns/", {"turns": [{"correlation_id": "t-1", "rated_turn": turn()}]})
    rater = human_actor("rater", "annotator", project="alpha")
    answers = {"quality": 3, "verdict": "right"}
    rated = rater.rest("post", "/api/ratings/", {"turn": "t-1", "answers": answers})
    assert rated.status_code == 201, rated.content
    page = browser_of(lead).get(PAGE)
    assert [c.answered for c in page.context["cards"]] == [True, True]
    assert 'value="remove:2"' not in page.content.decode()  # retire it, not remove it

    narrowed = {**VERDICT, "options": ["wrong", "partly"]}
    response = browser_of(lead).post(PAGE, form_of(QUALITY, narrowed))
    assert response.status_code == 409
    card = response.context["cards"][1]
    assert "verdict has answers" in card.error and "'right'" in card.error
    assert versions(alpha) == [2]

    retired = browser_of(lead).post(PAGE, form_of(QUALITY, {**VERDICT, "retired": True}))
    assert retired.status_code == 302
    assert rubric_current(alpha.pk).rubric.by_key()["verdict"].retired is True


def test_an_answered_question_is_not_removed_by_its_button(lead: Actor, alpha: Project) -> None:
    written(lead, QUALITY, VERDICT)
    agent = token_actor("alpha-agent", "agent", project="alpha")
    agent.rest("post", "/api/turns/", {"turns": [{"correlation_id": "t-1", "rated_turn": turn()}]})
    rater = human_actor("rater", "annotator", project="alpha")
    answers = {"quality": 3, "verdict": "right"}
    assert (
        rater.rest("post", "/api/ratings/", {"turn": "t-1", "answers": answers}).status_code == 201
    )
    response = browser_of(lead).post(PAGE, form_of(QUALITY, VERDICT, do="remove:2"))
    cards = response.context["cards"]
    assert [c.values["key"] for c in cards] == ["quality", "verdict"]
    assert "retire it" in cards[1].error


# The buttons, without script ---------------------------------------------------------------


def test_the_buttons_add_move_and_remove_a_question_in_the_draft_only(
    lead: Actor, alpha: Project
) -> None:
    client = browser_of(lead)
    added = client.post(PAGE, {**form_of(QUALITY, do="add"), "add_kind": "spans"})
    assert added.status_code == 200
    assert [(c.token, c.kind) for c in added.context["cards"]] == [("1", "numeric"), ("2", "spans")]
    moved = client.post(PAGE, form_of(QUALITY, VERDICT, do="up:2"))
    assert [c.values["key"] for c in moved.context["cards"]] == ["verdict", "quality"]
    removed = client.post(PAGE, form_of(QUALITY, VERDICT, do="remove:1"))
    assert [c.values["key"] for c in removed.context["cards"]] == ["verdict"]
    assert versions(alpha) == []


def test_preview_without_script_draws_the_drafts_rating_form_into_the_frame(lead: Actor) -> None:
    response = browser_of(lead).post(PAGE, form_of(QUALITY, VERDICT, do="preview"))
    assert response.status_code == 200
    preview = response.context["preview"]
    assert 'id="rubric-form"' in preview
    assert 'name="q-verdict" value="wrong"' in preview
    # In the frame's srcdoc, escaped once: the browser reads it back as the document.
    assert 'srcdoc="&lt;!doctype html&gt;' in response.content.decode()


def test_an_older_version_is_shown_read_only(lead: Actor) -> None:
    written(lead, QUALITY)
    written(lead, QUALITY, VERDICT)
    response = browser_of(lead).get(PAGE + "?version=2")
    assert response.status_code == 200
    assert [c.values["key"] for c in response.context["cards"]] == ["quality"]
    assert response.context["editable"] is False
    assert "Back to the current version" in response.content.decode()
    for missing in ("9", "x", "9" * 5000):
        assert browser_of(lead).get(f"{PAGE}?version={missing}").status_code == 404


# The preview endpoint -----------------------------------------------------------------------


def test_the_preview_answers_the_rating_forms_partial_of_the_draft(lead: Actor) -> None:
    response = browser_of(lead).post(PREVIEW, form_of(QUALITY, VERDICT))
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="rubric-form"' in body
    assert 'data-hotkey="w"' in body
    assert 'id="response-text"' in body  # a sample response to mark spans in
    assert "feedback/rubric.js" in body


def test_the_preview_of_a_bad_draft_is_invalid_naming_the_question_and_field(lead: Actor) -> None:
    response = browser_of(lead).post(PREVIEW, form_of(QUALITY, {**VERDICT, "key": "Bad Key"}))
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert [d["loc"] for d in body["details"]] == [["questions", 1, "key"]]


def test_the_preview_and_the_page_refuse_a_draft_larger_than_any_rubric(
    lead: Actor, alpha: Project
) -> None:
    huge = form_of({**QUALITY, "description": "x" * draft_max_bytes()})
    response = browser_of(lead).post(PREVIEW, huge)
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"
    page = browser_of(lead).post(PAGE, huge)
    assert page.status_code == 413
    assert "at most" in page.context["error"]
    assert versions(alpha) == []


def test_a_field_longer_than_any_question_takes_is_refused_and_shown_back_cut(
    lead: Actor, alpha: Project
) -> None:
    long_label = {**QUALITY, "label": "L" * 5000}
    preview = browser_of(lead).post(PREVIEW, form_of(long_label))
    assert preview.status_code == 400
    assert preview.json()["details"][0]["loc"] == ["questions", 0, "label"]
    page = browser_of(lead).post(PAGE, form_of(long_label))
    assert page.status_code == 400
    card = page.context["cards"][0]
    assert "label" in card.errors
    assert len(card.values["label"]) <= 121
    assert versions(alpha) == []


def test_more_cards_than_questions_allowed_are_refused(lead: Actor) -> None:
    with override_settings(LEARNPORTAL_RUBRIC_MAX_QUESTIONS=1):
        response = browser_of(lead).post(PREVIEW, form_of(QUALITY, VERDICT))
    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["questions"]


# The preference question --------------------------------------------------------------------

ORDERED_VERDICT = {**VERDICT, "ordered": True}


def test_the_builder_saves_the_preference_question_and_shows_it_again(
    alpha: Project, lead: Actor
) -> None:
    form = {**form_of(QUALITY, ORDERED_VERDICT), "preference": "verdict"}
    assert browser_of(lead).post(PAGE, form).status_code == 302
    assert rubric_current(alpha.pk).rubric.preference == "verdict"
    page = browser_of(lead).get(PAGE)
    assert page.context["preference"] == "verdict"
    assert page.context["scored_keys"] == ["quality", "verdict"]
    assert 'name="preference" id="rubric-preference" value="verdict"' in page.content.decode()


def test_a_preference_question_without_a_score_is_refused_beside_its_field(
    alpha: Project, lead: Actor
) -> None:
    written(lead, QUALITY)
    response = browser_of(lead).post(PAGE, {**form_of(QUALITY, VERDICT), "preference": "verdict"})
    assert response.status_code == 400
    assert "a question of turns with a score" in response.context["preference_error"]
    assert 'id="preference-error"' in response.content.decode()
    assert response.context["error"] == ""  # said beside the field, not above the cards
    assert versions(alpha) == [2]
    assert rubric_current(alpha.pk).rubric.preference == ""


def test_the_rubric_page_leads_to_the_guidelines_beside_it(lead: Actor) -> None:
    body = browser_of(lead).get(PAGE).content.decode()
    assert 'href="/projects/alpha/guidelines/"' in body


def test_a_rubric_with_nothing_to_score_is_refused_above_the_questions(
    lead: Actor, alpha: Project
) -> None:
    notes = {"kind": "text", "key": "notes", "label": "Notes"}
    response = browser_of(lead).post(PAGE, form_of(notes, {**VERDICT, "multiple": True}))
    assert response.status_code == 400
    shown = response.content.decode()
    assert 'id="builder-error" data-field="questions">' in shown
    assert "its ratings become training data" in shown
    assert versions(alpha) == []
