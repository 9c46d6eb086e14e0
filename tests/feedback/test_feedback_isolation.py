"""Feedback is per project, as turns are: every feedback belongs to the project of the credential
that sent it, its feedback_id and correlation_id are the project's own (another project may use
the same and gets rows and turns of its own), and everything that reads feedback (the explorer,
a turn's ratings, every export, agreement, the queue's counts, undo) reads only the project the
principal acts in (docs/contract.md, "Teams: projects and rubrics").

Two projects throughout: `default` (the `agent` fixture's token) and `alpha`, each with its
agent, two annotators and a reviewer, and one correlation_id, SHARED, that both may queue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.core.management import CommandError, call_command

from core.accounts.models import User
from core.projects.services import member_set, project_add, project_named
from feedback.exports import ANSWERS, FORMATS
from feedback.models import Feedback, Retraction, Turn
from tests.builders import feedback, feedback_req
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from collections.abc import Callable

pytestmark = pytest.mark.django_db

SHARED = "shared-1"  # a correlation_id both projects queue a turn under
RATINGS_PER_TURN = 2  # so that two people's ratings are needed, and agreement has pairs
DEFAULT_TURN = {"prompt": "Default asks?", "response": "Default answers.", "model": "d-model"}
ALPHA_TURN = {"prompt": "Alpha asks?", "response": "Alpha answers.", "model": "a-model"}
ALPHA_ONLY_TURN = {"prompt": "Alpha only asks?", "response": "Alpha only.", "model": "a-model"}


# --- sending ----------------------------------------------------------------------------------


def queue(actor: Actor, key: str, rated_turn: dict[str, Any]) -> int:
    """Queue one turn through POST /api/turns/ (new to the actor's project), and its id there."""
    body = {"turns": [{"correlation_id": key, "rated_turn": rated_turn}]}
    response = actor.rest("post", "/api/turns/", body)
    assert response.status_code == 201, response.content
    assert response.json() == {"received": 1, "created": 1}, f"{key} was not queued anew"
    return turn_id(actor, key)


def turn_id(actor: Actor, key: str) -> int:
    """The id of the turn `key` as GET /api/turns/ lists it to this actor (its project's)."""
    response = actor.rest("get", f"/api/turns/?correlation_id={key}")
    assert response.status_code == 200, response.content
    (row,) = response.json()["results"]
    return int(row["id"])


def sent(actor: Actor, *items: dict[str, Any]) -> dict[str, Any]:
    """learn/feedback/req over HTTP, which must be stored."""
    response = actor.learn(feedback_req(*items))
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    assert body["type"] == "learn/feedback/resp", body
    assert body["recorded"] == len(items), body
    return body


def rated(actor: Actor, key: str, score: float, correction: str = "") -> str:
    """A rating through POST /api/ratings/ on the default rubric's helpfulness: the feedback_id
    of the feedback it is stored as (`<rating_id>.helpfulness`, feedback.services.ratings)."""
    body: dict[str, Any] = {"turn": key, "answers": {"helpfulness": score}}
    if correction:
        body["correction"] = correction
    response = actor.rest("post", "/api/ratings/", body)
    assert response.status_code == 201, response.content
    return f"{response.json()['rating_id']}.helpfulness"


# --- reading ----------------------------------------------------------------------------------


def stored_turn(project: str, key: str) -> Turn:
    return Turn.objects.get(project__slug=project, correlation_id=key)


def queue_fields(project: str, key: str) -> tuple[int, int]:
    """(ratings_needed, priority) of the project's turn `key`."""
    row = stored_turn(project, key)
    return row.ratings_needed, row.priority


def explored(actor: Actor) -> list[dict[str, Any]]:
    """Every feedback GET /api/feedback/ lists to this actor."""
    response = actor.client.get("/api/feedback/", {"limit": 500})
    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["next"] is None
    results: list[dict[str, Any]] = answer["results"]
    return results


def explored_ids(actor: Actor) -> list[str]:
    return sorted(item["feedback_id"] for item in explored(actor))


def agreement(actor: Actor) -> tuple[dict[str, Any], dict[str, Any]]:
    """Helpfulness in GET /api/agreement/: its row in `dimensions` and in `questions`."""
    response = actor.client.get("/api/agreement/")
    assert response.status_code == 200, response.content
    answer = response.json()
    (dimension,) = [row for row in answer["dimensions"] if row["dimension"] == "helpfulness"]
    (question,) = [row for row in answer["questions"] if row["key"] == "helpfulness"]
    return dimension, question


def rating_ids_on_pages(actor: Actor, pk: int) -> dict[str, list[str]]:
    """The feedback ids each page that shows a turn with its ratings lists for the turn `pk`."""
    client = actor.browser()
    shown = {}
    for url in (f"/explorer/turns/{pk}/", f"/turns/{pk}/", f"/turns/{pk}/rated/"):
        response = client.get(url)
        assert response.status_code == 200, url
        shown[url] = sorted(row.feedback_id for row, _ in response.context["ratings"])
    return shown


def retracted() -> list[tuple[str, str]]:
    return sorted(
        Retraction.objects.values_list("feedback__project__slug", "feedback__feedback_id")
    )


# --- the two teams ------------------------------------------------------------------------------


@pytest.fixture
def teams(agent: Actor, settings: Any) -> dict[str, Actor]:
    """`default` has queued SHARED and d-only; `alpha` only a-only: it has no SHARED yet."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = RATINGS_PER_TURN
    project_add(slug="alpha", name="Alpha")
    cast = {
        "default-agent": agent,
        "default-ann": human_actor("dana", "annotator"),
        "default-ann2": human_actor("dora", "annotator"),
        "default-rev": human_actor("dre", "reviewer"),
        "alpha-agent": token_actor("alpha-agent", "agent", project="alpha"),
        "alpha-ann": human_actor("aria", "annotator", project="alpha"),
        "alpha-ann2": human_actor("abe", "annotator", project="alpha"),
        "alpha-rev": human_actor("rene", "reviewer", project="alpha"),
    }
    queue(agent, SHARED, DEFAULT_TURN)
    queue(agent, "d-only", DEFAULT_TURN)
    queue(cast["alpha-agent"], "a-only", ALPHA_ONLY_TURN)
    assert queue_fields("default", SHARED) == (RATINGS_PER_TURN, 0)
    return cast


# --- 1. a correlation_id the other project queued -----------------------------------------------


def test_a_rated_turn_under_another_projects_correlation_id_queues_a_turn_of_ones_own(
    teams: dict[str, Actor],
) -> None:
    default_pk = turn_id(teams["default-agent"], SHARED)
    # Negative, unsure machine feedback: it raises the priority of the turn it rates.
    sent(
        teams["alpha-agent"],
        feedback(
            feedback_id="alpha-self",
            correlation_id=SHARED,
            rated_turn=ALPHA_TURN,
            polarity="negative",
            score=-0.8,
            confidence=0.3,
        ),
    )
    projects = sorted(
        Turn.objects.filter(correlation_id=SHARED).values_list("project__slug", flat=True)
    )
    assert projects == ["alpha", "default"]
    alpha_pk = turn_id(teams["alpha-agent"], SHARED)
    assert alpha_pk != default_pk
    assert turn_id(teams["default-agent"], SHARED) == default_pk
    alpha_turn, default_turn = stored_turn("alpha", SHARED), stored_turn("default", SHARED)
    assert (alpha_turn.prompt, alpha_turn.response) == ("Alpha asks?", "Alpha answers.")
    assert (default_turn.prompt, default_turn.response) == ("Default asks?", "Default answers.")
    # The feedback counted on alpha's turn (the default priorities of judged badly and unsure), not
    # on default's, whose queue fields are as they were.
    assert queue_fields("alpha", SHARED) == (RATINGS_PER_TURN, 3)
    assert queue_fields("default", SHARED) == (RATINGS_PER_TURN, 0)
    # And default's annotators are still offered default's turn, alpha's theirs.
    for role, pk in (("default-ann", default_pk), ("alpha-ann", alpha_pk)):
        response = teams[role].rest("post", "/api/queue/next/", {})
        assert response.status_code == 200, response.content
        lease = response.json()
        assert (lease["turn"]["id"], lease["turn"]["correlation_id"]) == (pk, SHARED)


# --- 2. a feedback_id the other project stored ------------------------------------------------


def test_a_feedback_id_stored_in_one_project_may_be_sent_by_another_with_other_content(
    teams: dict[str, Actor],
) -> None:
    ours = feedback(
        feedback_id="fb-reused", correlation_id="d-only", polarity="positive", score=0.5,
        comment="default's", source="self",
    )  # fmt: skip
    sent(teams["default-agent"], ours)
    theirs = feedback(
        feedback_id="fb-reused", correlation_id="a-only", polarity="negative", score=-0.5,
        comment="alpha's", source="self",
    )  # fmt: skip
    sent(teams["alpha-agent"], theirs)  # stored, not a conflict

    rows = Feedback.objects.filter(feedback_id="fb-reused").order_by("project__slug")
    assert [
        (row.project.slug, row.correlation_id, row.polarity, row.score, row.comment) for row in rows
    ] == [
        ("alpha", "a-only", "negative", -0.5, "alpha's"),
        ("default", "d-only", "positive", 0.5, "default's"),
    ]
    for role, comment in (("default-rev", "default's"), ("alpha-rev", "alpha's")):
        listed = [(i["feedback_id"], i["comment"]) for i in explored(teams[role])]
        assert listed == [("fb-reused", comment)], role
    # Within a project the id stays unique: the same content again is a safe retry, other
    # content a conflict naming it.
    sent(teams["alpha-agent"], theirs)
    response = teams["alpha-agent"].learn(feedback_req({**theirs, "score": -0.9}))
    assert (response.status_code, response.json()["code"]) == (409, "conflict")
    assert [d["loc"] for d in response.json()["details"]] == [["feedbacks", 0, "feedback_id"]]
    assert Feedback.objects.filter(feedback_id="fb-reused").count() == 2


# --- 3. the explorer, every export and agreement ---------------------------------------------


def test_each_projects_reviewer_reads_only_its_feedback_in_the_explorer_exports_and_agreement(
    teams: dict[str, Actor],
) -> None:
    queue(teams["alpha-agent"], SHARED, ALPHA_TURN)
    # In each project: its agent's correction sent without a rated turn (exports find the
    # project's queued turn of its correlation_id), and its two annotators' ratings.
    machine = {"polarity": "corrective", "score": -0.3, "source": "self"}
    sent(
        teams["default-agent"],
        feedback(feedback_id="d-agent", correlation_id=SHARED, correction="d fix", **machine),
    )
    sent(
        teams["alpha-agent"],
        feedback(feedback_id="a-agent", correlation_id=SHARED, correction="a fix", **machine),
    )
    default_ids = {
        "d-agent",
        rated(teams["default-ann"], SHARED, 1.0, "default fix by dana"),
        rated(teams["default-ann2"], SHARED, -1.0, "default fix by dora"),
    }
    alpha_ids = {
        "a-agent",
        rated(teams["alpha-ann"], SHARED, 1.0, "alpha fix by aria"),
        rated(teams["alpha-ann2"], SHARED, 0.5, "alpha fix by abe"),
        rated(teams["alpha-ann"], "a-only", -0.5, "alpha only fix by aria"),
        rated(teams["alpha-ann2"], "a-only", -1.0, "alpha only fix by abe"),
    }
    default_rev, alpha_rev = teams["default-rev"], teams["alpha-rev"]

    # The explorer's REST list.
    assert explored_ids(default_rev) == sorted(default_ids)
    assert explored_ids(alpha_rev) == sorted(alpha_ids)

    # Every export format: each line's prompt tells whose turn it is from.
    prompts: dict[str, Callable[[dict[str, Any]], str]] = {
        "preferences": lambda line: line["prompt"],
        "spec-preferences": lambda line: line["prompt"],
        "rewards": lambda line: line["prompt"],
        "trl": lambda line: line["prompt"],
        "openai-dpo": lambda line: line["input"]["messages"][0]["content"],
        "kto": lambda line: line["prompt"],
    }
    assert set(prompts) == set(FORMATS)
    d, a, a_only = DEFAULT_TURN["prompt"], ALPHA_TURN["prompt"], ALPHA_ONLY_TURN["prompt"]
    lines_each = {kind: 2 if kind == "kto" else 1 for kind in prompts}  # kto: two a correction
    for kind, prompt_of in prompts.items():
        n = lines_each[kind]
        assert sorted(map(prompt_of, default_rev.exported(kind))) == [d] * (3 * n), kind
        assert sorted(map(prompt_of, alpha_rev.exported(kind))) == sorted(
            [a] * (3 * n) + [a_only] * (2 * n)
        ), kind
    # The `answers` export: one line a rating on the rubric, the project's alone.
    for reviewer, ids in ((default_rev, default_ids), (alpha_rev, alpha_ids)):
        lines = reviewer.exported(ANSWERS)
        assert sorted(f"{line['rating_id']}.helpfulness" for line in lines) == sorted(
            ids - {"d-agent", "a-agent"}
        )

    # Agreement: default has one turn rated by two people, alpha two.
    dimension, question = agreement(default_rev)
    assert (dimension["turns"], dimension["ratings"]) == (1, 2)
    assert (question["units"], question["ratings"]) == (1, 2)
    dimension, question = agreement(alpha_rev)
    assert (dimension["turns"], dimension["ratings"]) == (2, 4)
    assert (question["units"], question["ratings"]) == (2, 4)


# --- 4. a turn's ratings ----------------------------------------------------------------------


def test_a_turns_detail_lists_only_its_own_projects_ratings_of_its_correlation_id(
    teams: dict[str, Actor],
) -> None:
    alpha_pk = queue(teams["alpha-agent"], SHARED, ALPHA_TURN)
    default_pk = turn_id(teams["default-agent"], SHARED)
    sent(teams["default-ann"], feedback(feedback_id="d-rating", correlation_id=SHARED))
    sent(teams["alpha-ann"], feedback(feedback_id="a-rating", correlation_id=SHARED))
    sent(
        teams["alpha-agent"],
        feedback(feedback_id="a-machine", correlation_id=SHARED, source="self", score=-0.5),
    )
    everywhere = ["/explorer/turns/{}/", "/turns/{}/", "/turns/{}/rated/"]
    for role, pk, ids in (
        ("default-rev", default_pk, ["d-rating"]),
        ("default-ann", default_pk, ["d-rating"]),  # rated it: no longer blind to it
        ("alpha-rev", alpha_pk, ["a-machine", "a-rating"]),
        ("alpha-ann", alpha_pk, ["a-machine", "a-rating"]),
    ):
        shown = rating_ids_on_pages(teams[role], pk)
        assert shown == {url.format(pk): ids for url in everywhere}, role
    count = teams["default-rev"].browser().get(f"/explorer/turns/{default_pk}/")
    assert (
        '<h2 id="ratings-title">Ratings <span class="count">1</span></h2>' in count.content.decode()
    )


# --- 5. people's ratings count in their project alone -------------------------------------------


def test_ratings_in_one_project_leave_the_other_projects_turn_of_that_id_needing_its_own(
    teams: dict[str, Actor],
) -> None:
    queue(teams["alpha-agent"], SHARED, ALPHA_TURN)
    # One of alpha's people rates over learn/feedback, the other through POST /api/ratings/.
    sent(teams["alpha-ann"], feedback(feedback_id="aria-says", correlation_id=SHARED))
    assert queue_fields("alpha", SHARED) == (RATINGS_PER_TURN - 1, 0)
    assert queue_fields("default", SHARED) == (RATINGS_PER_TURN, 0)
    rated(teams["alpha-ann2"], SHARED, 0.5)
    assert queue_fields("alpha", SHARED) == (0, 0)
    assert queue_fields("default", SHARED) == (RATINGS_PER_TURN, 0)
    # Default's turn still takes two people of default's, one from the queue and one direct.
    lease = teams["default-ann"].rest("post", "/api/queue/next/", {})
    assert lease.status_code == 200, lease.content
    assert lease.json()["turn"]["id"] == turn_id(teams["default-agent"], SHARED)
    sent(teams["default-ann"], feedback(feedback_id="dana-says", correlation_id=SHARED))
    assert queue_fields("default", SHARED) == (1, 0)
    rated(teams["default-ann2"], SHARED, -0.5)
    assert queue_fields("default", SHARED) == (0, 0)
    assert queue_fields("alpha", SHARED) == (0, 0)


# --- 6. undo ----------------------------------------------------------------------------------


def test_an_annotator_cannot_undo_another_projects_rating(teams: dict[str, Actor]) -> None:
    dana = teams["default-ann"]
    # dana annotates in both projects: a rating of hers in default is not hers to undo in alpha.
    member_set(
        project=project_named("alpha"), person=User.objects.get(username="dana"), role="annotator"
    )
    queue(teams["alpha-agent"], SHARED, ALPHA_TURN)
    sent(dana, feedback(feedback_id="dana-d", correlation_id=SHARED))  # her home: default
    assert queue_fields("default", SHARED) == (RATINGS_PER_TURN - 1, 0)

    response = dana.rest("post", "/api/queue/undo/?project=alpha", {"feedback_id": "dana-d"})
    assert response.status_code == 404, response.content
    assert response.json()["code"] == "not_found"
    assert [d["loc"] for d in response.json()["details"]] == [["feedback_id"]]
    assert retracted() == []
    assert queue_fields("default", SHARED) == (RATINGS_PER_TURN - 1, 0)
    assert queue_fields("alpha", SHARED) == (RATINGS_PER_TURN, 0)
    assert explored_ids(teams["default-rev"]) == ["dana-d"]
    assert explored_ids(teams["alpha-rev"]) == []
    # aria, of alpha alone, may not undo it either.
    response = teams["alpha-ann"].rest("post", "/api/queue/undo/", {"feedback_id": "dana-d"})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")
    assert retracted() == []
    # In default, the project it was given in, it is dana's to undo: the refusals were no
    # accident of the rating.
    response = dana.rest("post", "/api/queue/undo/?project=default", {"feedback_id": "dana-d"})
    assert response.status_code == 200, response.content
    assert response.json()["turn"]["id"] == turn_id(teams["default-agent"], SHARED)
    assert retracted() == [("default", "dana-d")]
    assert queue_fields("default", SHARED) == (RATINGS_PER_TURN, 0)


def test_an_undo_of_an_id_both_projects_hold_retracts_the_one_of_the_project_acted_in(
    teams: dict[str, Actor],
) -> None:
    dana = teams["default-ann"]
    member_set(
        project=project_named("alpha"), person=User.objects.get(username="dana"), role="annotator"
    )
    queue(teams["alpha-agent"], SHARED, ALPHA_TURN)
    sent(dana, feedback(feedback_id="dana-x", correlation_id=SHARED, score=0.5))  # default
    undo = dana.rest("post", "/api/queue/undo/?project=alpha", {"feedback_id": "dana-x"})
    assert undo.status_code == 404, undo.content  # alpha has no dana-x yet
    # The same id in alpha, from the rating page: dana's session chooses alpha (her token acts
    # in her home project, default).
    session = dana.browser()
    assert session.post("/choose-project/", {"project": "alpha"}).status_code == 302
    alpha_pk = turn_id(teams["alpha-agent"], SHARED)
    form = {
        "feedback_id": "dana-x",
        "polarity": "negative",
        "score": "-0.5",
        "dimension": "helpfulness",
        "confidence": "0.9",
    }
    page = session.post(f"/turns/{alpha_pk}/", form)
    assert (page.status_code, page["Location"]) == (302, f"/turns/{alpha_pk}/rated/")
    assert sorted(
        Feedback.objects.filter(feedback_id="dana-x").values_list("project__slug", "score")
    ) == [("alpha", -0.5), ("default", 0.5)]
    assert queue_fields("alpha", SHARED) == (RATINGS_PER_TURN - 1, 0)

    undo = dana.rest("post", "/api/queue/undo/?project=alpha", {"feedback_id": "dana-x"})
    assert undo.status_code == 200, undo.content
    assert undo.json()["turn"]["id"] == alpha_pk
    assert retracted() == [("alpha", "dana-x")]
    assert queue_fields("alpha", SHARED) == (RATINGS_PER_TURN, 0)
    assert queue_fields("default", SHARED) == (RATINGS_PER_TURN - 1, 0)
    assert explored_ids(teams["default-rev"]) == ["dana-x"]


# --- 8. the export commands ---------------------------------------------------------------------


def test_the_export_command_writes_the_project_it_is_given_and_refuses_an_unknown_one(
    teams: dict[str, Actor], capsys: pytest.CaptureFixture[str]
) -> None:
    sent(teams["default-agent"], feedback(correlation_id="d-only", feedback_id="d-said"))
    sent(teams["alpha-agent"], feedback(correlation_id="a-only", feedback_id="a-said"))

    def written(*options: str) -> list[str]:
        call_command("export_feedback", "-", "--format", "rewards", *options)
        lines = capsys.readouterr().out.splitlines()
        return sorted(orjson.loads(line)["prompt"] for line in lines)

    assert written() == [DEFAULT_TURN["prompt"]]
    assert written("--project", "alpha") == [ALPHA_ONLY_TURN["prompt"]]
    with pytest.raises(CommandError, match="--project: no project 'beta'"):
        written("--project", "beta")


def test_a_persons_token_sends_learn_messages_in_the_project_its_query_names(
    teams: dict[str, Actor],
) -> None:
    """A person in both projects posts to /api/learn/?project=alpha with their token: the
    feedback is alpha's; one who is not in alpha is refused as for a project that is not
    there, and nothing is stored."""
    both = teams["default-ann"]
    member_set(
        project=project_named("alpha"), person=User.objects.get(username="dana"), role="annotator"
    )
    item = feedback(feedback_id="f-named", correlation_id="a-only", source="human")
    response = both.client.post(
        "/api/learn/?project=alpha",
        data=orjson.dumps(feedback_req(item)),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert Feedback.objects.get(feedback_id="f-named").project.slug == "alpha"

    outsider = teams["default-ann2"]
    other = feedback(feedback_id="f-outsider", correlation_id="a-only", source="human")
    response = outsider.client.post(
        "/api/learn/?project=alpha",
        data=orjson.dumps(feedback_req(other)),
        content_type="application/json",
    )
    assert response.status_code == 404, response.content
    assert response.json()["code"] == "not_found"
    assert not Feedback.objects.filter(feedback_id="f-outsider").exists()
