"""Experiences and components are per project, as turns and feedback are: every experience
belongs to the project of the credential that sent it, its experience_id is the project's own
(another project may use the same and gets a row of its own), and a component is the project's:
its record (learn/stats, learn/adapt's answer, the components pages, the explorer's and the
turns page's choices) counts only that project's calls and feedback, and its owner for
attribution is the agent of that project that reported it first (docs/contract.md, "Teams:
projects").

Two projects throughout: `default` (the `agent` fixture's token) and `alpha`, each with its
agent, its environment, an annotator and a reviewer, and one component name, "search", that
both call with different figures; "translate" is alpha's alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from core.projects.services import project_add
from feedback.models import Experience, Feedback
from tests.builders import adapt_req, experience, experience_req, feedback, feedback_req, stats_req
from tests.harness import Actor, http_send, human_actor, ok, refused, token_actor

if TYPE_CHECKING:
    from pytest_django import Settings

    from tests.harness import Send

pytestmark = pytest.mark.django_db

SEARCH, TRANSLATE = "search", "translate"  # both projects call search; only alpha translate
T_DEFAULT = 1_700_000_000.0  # when default's calls were made (one second apart from here)
T_ALPHA = 1_700_100_000.0  # and alpha's


# --- sending ----------------------------------------------------------------------------------


def stored(actor: Actor, *items: dict[str, Any]) -> None:
    """learn/experience/req over HTTP, which must store (or count as stored) every item."""
    response = actor.learn(experience_req(*items))
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["type"], body["stored"]) == ("learn/experience/resp", len(items)), body


def called(
    actor: Actor, component: str, durations: list[float], successes: list[bool], *, start: float
) -> None:
    """One call of `component` a duration, the i-th at `start + i + 1` and succeeding as
    `successes[i]` says."""
    stored(
        actor,
        *(
            experience(
                component,
                action={"duration_ms": ms, "success": success},
                reward=0.5 if success else -0.5,
                ts=start + i + 1,
            )
            for i, (ms, success) in enumerate(zip(durations, successes, strict=True))
        ),
    )


def scored(actor: Actor, component: str, score: float, feedback_id: str, **fields: Any) -> Any:
    """One feedback on `component` over learn/feedback (confidence 1): the reply's new_score."""
    polarity = "positive" if score > 0 else "negative"
    item = feedback(
        feedback_id=feedback_id, component_name=component, polarity=polarity, score=score, **fields
    )
    response = actor.learn(feedback_req(item))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["recorded"] == 1, body
    return body["new_score"]


# --- reading ----------------------------------------------------------------------------------


def stats(send: Send, actor: Actor, component: str = "") -> list[dict[str, Any]]:
    """The components of learn/stats/resp for this actor (all of them, or the one named)."""
    body = ok(send(actor, stats_req(component)))
    assert body["type"] == "learn/stats/resp", body
    components: list[dict[str, Any]] = body["components"]
    return components


def record(
    name: str,
    durations: list[float],
    successes: list[bool],
    avg_score: float,
    start: float,
) -> dict[str, Any]:
    """The ComponentPerformanceRecord of `called(...)`'s calls, with feedback averaging
    `avg_score`; p95 within 1% of the exact percentile (docs/contract.md)."""
    return {
        "component_name": name,
        "calls_total": len(durations),
        "calls_success": sum(successes),
        "calls_failed": len(successes) - sum(successes),
        "avg_duration_ms": sum(durations) / len(durations),
        "avg_score": avg_score,
        "last_called": start + len(durations),
        "p95_duration_ms": pytest.approx(float(np.percentile(durations, 95)), rel=0.01),
    }


def experience_owners(experience_id: str) -> list[str]:
    return sorted(
        Experience.objects.filter(experience_id=experience_id).values_list("owner", flat=True)
    )


# --- the two teams and their figures -------------------------------------------------------------


@pytest.fixture
def teams(agent: Actor) -> dict[str, Actor]:
    """Each project's agent, environment, annotator and reviewer, members of it alone."""
    project_add(slug="alpha", name="Alpha")
    return {
        "default-agent": agent,
        "default-env": token_actor("gym-d", "environment"),
        "default-ann": human_actor("dana", "annotator"),
        "default-rev": human_actor("dre", "reviewer"),
        "alpha-agent": token_actor("alpha-agent", "agent", project="alpha"),
        "alpha-env": token_actor("gym-a", "environment", project="alpha"),
        "alpha-ann": human_actor("aria", "annotator", project="alpha"),
        "alpha-rev": human_actor("rene", "reviewer", project="alpha"),
    }


D_SEARCH = ([100.0, 200.0, 300.0], [True, True, False])
A_SEARCH = ([10.0, 20.0, 30.0, 40.0, 50.0], [True, False, False, False, False])
A_TRANSLATE = ([7.0, 9.0], [True, True])
# Each project's agent scores search (`self`), and its annotator does (`human`).
D_SCORES = {"d-self": 0.5, "d-human": 1.0}
A_SCORES = {"a-self": -0.5, "a-human": -1.0}
DEFAULT_SEARCH = record(SEARCH, *D_SEARCH, avg_score=0.75, start=T_DEFAULT)
ALPHA_SEARCH = record(SEARCH, *A_SEARCH, avg_score=-0.75, start=T_ALPHA)
ALPHA_TRANSLATE = record(TRANSLATE, *A_TRANSLATE, avg_score=0.0, start=T_ALPHA)


@pytest.fixture
def figures(teams: dict[str, Actor]) -> dict[str, Actor]:
    """search called and scored in both projects, each its own numbers; translate in alpha."""
    called(teams["default-agent"], SEARCH, *D_SEARCH, start=T_DEFAULT)
    called(teams["alpha-agent"], SEARCH, *A_SEARCH, start=T_ALPHA)
    called(teams["alpha-agent"], TRANSLATE, *A_TRANSLATE, start=T_ALPHA)
    scored(teams["default-agent"], SEARCH, D_SCORES["d-self"], "d-self", source="self")
    scored(teams["default-ann"], SEARCH, D_SCORES["d-human"], "d-human")
    scored(teams["alpha-agent"], SEARCH, A_SCORES["a-self"], "a-self", source="self")
    scored(teams["alpha-ann"], SEARCH, A_SCORES["a-human"], "a-human")
    return teams


# --- 1. an experience_id the other project stored ----------------------------------------------


def test_an_experience_id_another_project_stored_is_stored_anew_as_the_projects_own(
    teams: dict[str, Actor],
) -> None:
    """alpha's agent sending the experience_id default stored is alpha's own experience, stored
    and counted in alpha, not "already stored"; within alpha the id is still unique."""
    item = experience(
        SEARCH,
        experience_id="exp-shared",
        action={"duration_ms": 100.0, "success": True},
        reward=0.5,
        ts=T_DEFAULT,
    )
    stored(teams["default-agent"], item)
    response = teams["alpha-agent"].learn(experience_req(item))  # the same body, from alpha
    assert (response.status_code, response.json().get("stored")) == (200, 1), response.json()
    assert experience_owners("exp-shared") == ["token:agent-1", "token:alpha-agent"]
    for project in ("default", "alpha"):
        (row,) = stats(http_send, teams[f"{project}-agent"], SEARCH)
        assert (row["calls_total"], row["calls_success"]) == (1, 1), project
    # Within a project the id stays unique: the same content again is a safe retry, stored
    # once; other content a conflict naming it.
    stored(teams["alpha-agent"], item)
    assert experience_owners("exp-shared") == ["token:agent-1", "token:alpha-agent"]
    assert stats(http_send, teams["alpha-agent"], SEARCH)[0]["calls_total"] == 1
    response = teams["alpha-agent"].learn(experience_req({**item, "reward": -0.5}))
    assert (response.status_code, response.json()["code"]) == (409, "conflict")
    assert [d["loc"] for d in response.json()["details"]] == [["experiences", 0, "experience_id"]]
    assert experience_owners("exp-shared") == ["token:agent-1", "token:alpha-agent"]


def test_a_feedback_correlated_to_an_experience_only_another_project_holds_rates_no_component(
    teams: dict[str, Actor],
) -> None:
    """The component of a feedback without component_name is that of its project's experience
    with its correlation_id: another project's experience of that id lends it none."""
    called(teams["default-agent"], SEARCH, [100.0], [True], start=T_DEFAULT)
    (default_exp,) = Experience.objects.values_list("experience_id", flat=True)
    item = feedback(
        feedback_id="a-on-d",
        correlation_id=default_exp,
        polarity="negative",
        score=-1.0,
        source="self",
    )
    response = teams["alpha-agent"].learn(feedback_req(item))
    assert response.status_code == 200, response.content
    assert (response.json()["recorded"], response.json()["new_score"]) == (1, None)
    row = Feedback.objects.get(project__slug="alpha", feedback_id="a-on-d")
    assert row.component_name == ""
    assert stats(http_send, teams["alpha-agent"]) == []
    assert stats(http_send, teams["default-agent"]) == [
        record(SEARCH, [100.0], [True], avg_score=0.0, start=T_DEFAULT)
    ]


# --- 2. learn/stats ---------------------------------------------------------------------------


def test_learn_stats_lists_only_the_projects_components_each_with_its_own_calls_and_scores(
    transport: Send, figures: dict[str, Actor]
) -> None:
    """learn/stats for a token of one project lists its components alone, each record counting
    that project's calls and feedback; the other project's component is as unknown."""
    for who in ("default-agent", "default-env"):
        assert stats(transport, figures[who]) == [DEFAULT_SEARCH], who
        assert stats(transport, figures[who], SEARCH) == [DEFAULT_SEARCH], who
    for who in ("alpha-agent", "alpha-env"):
        assert stats(transport, figures[who]) == [ALPHA_SEARCH, ALPHA_TRANSLATE], who
        assert stats(transport, figures[who], SEARCH) == [ALPHA_SEARCH], who
        assert stats(transport, figures[who], TRANSLATE) == [ALPHA_TRANSLATE], who
    # translate, asked for by name in default, is answered as a component nobody called.
    default = figures["default-agent"]
    unknown = refused(transport(default, stats_req("no-such")), 404, "not_found")
    hidden = refused(transport(default, stats_req(TRANSLATE)), 404, "not_found")
    assert hidden["message"] == unknown["message"].replace("no-such", TRANSLATE)
    assert hidden["details"] == unknown["details"]


def test_a_feedbacks_new_score_is_the_average_of_its_own_projects_scores_of_the_component(
    teams: dict[str, Actor],
) -> None:
    """learn/feedback's new_score is the component's avg_score in the sender's project."""
    assert scored(teams["default-agent"], SEARCH, 0.5, "d-1", source="self") == 0.5
    assert scored(teams["alpha-agent"], SEARCH, -1.0, "a-1", source="self") == -1.0
    assert scored(teams["default-agent"], SEARCH, 1.0, "d-2", source="self") == 0.75
    assert scored(teams["alpha-ann"], SEARCH, -0.5, "a-2") == -0.75


# --- 3. who owns a component ------------------------------------------------------------------


def test_an_agent_owns_a_component_it_reports_first_in_its_project_though_another_project_has_it(
    teams: dict[str, Actor],
) -> None:
    """alpha's agent reporting search first makes it alpha's agent's in alpha alone: default's
    agent, first to report it in default, owns it there, its calls evidence it may adapt."""
    called(teams["alpha-agent"], SEARCH, *A_SEARCH, start=T_ALPHA)
    called(teams["default-agent"], SEARCH, [100.0, 200.0], [True, True], start=T_DEFAULT)
    attributed = Experience.objects.filter(owner="token:agent-1").values_list(
        "attributed", flat=True
    )
    assert list(attributed) == [True, True]
    body = ok(http_send(teams["default-agent"], adapt_req("epsilon_greedy", SEARCH)))
    assert [(r["component_name"], r["calls_total"]) for r in body["updated"]] == [(SEARCH, 2)]
    # alpha's agent still owns alpha's search.
    body = ok(http_send(teams["alpha-agent"], adapt_req("epsilon_greedy", SEARCH)))
    assert [(r["component_name"], r["calls_total"]) for r in body["updated"]] == [(SEARCH, 5)]
    # And within default, the first to report it still owns it: a second agent's calls are
    # not its to adapt.
    second = token_actor("agent-2", "agent")
    called(second, SEARCH, [50.0], [False], start=T_DEFAULT + 10)
    assert list(
        Experience.objects.filter(owner="token:agent-2").values_list("attributed", flat=True)
    ) == [False]
    body = refused(http_send(second, adapt_req("epsilon_greedy", SEARCH)), 403, "forbidden")
    assert body["details"][0]["loc"] == ["component_name"]


# --- 4. the components pages --------------------------------------------------------------------


def test_the_components_list_shows_a_member_only_the_projects_components_and_its_figures(
    figures: dict[str, Actor],
) -> None:
    """/components/ lists a member's project's components, with that project's figures."""
    # (name, calls, successes, avg_score, (people's scores, their mean)) of each row.
    expected = {
        "default-ann": [(SEARCH, 3, 2, 0.75, (1, 1.0))],
        "alpha-ann": [(SEARCH, 5, 1, -0.75, (1, -1.0)), (TRANSLATE, 2, 2, 0.0, (0, None))],
    }
    for who, rows in expected.items():
        page = figures[who].browser().get("/components/")
        assert page.status_code == 200, who
        shown = [
            (
                row["component_name"],
                row["calls_total"],
                row["calls_success"],
                row["avg_score"],
                (row["score"].count, row["score"].mean),
            )
            for row in page.context["rows"]
        ]
        assert shown == rows, who


def test_a_components_page_shows_a_member_the_projects_own_figures_of_it(
    figures: dict[str, Actor],
) -> None:
    """/components/search/ shows each project's member its own calls, scores, durations, hours
    and feedback of search."""
    for who, (durations, successes), avg, people, feedback_ids in (
        ("default-ann", D_SEARCH, 0.75, (1, 1.0), sorted(D_SCORES)),
        ("alpha-ann", A_SEARCH, -0.75, (1, -1.0), sorted(A_SCORES)),
    ):
        page = figures[who].browser().get(f"/components/{SEARCH}/")
        assert page.status_code == 200, who
        shown = page.context["record"]
        assert (shown["calls_total"], shown["calls_success"], shown["avg_score"]) == (
            len(durations),
            sum(successes),
            avg,
        ), who
        assert shown["avg_duration_ms"] == sum(durations) / len(durations), who
        assert (page.context["score"].count, page.context["score"].mean) == people, who
        # The duration histogram and the hours' calls are the project's calls alone.
        assert page.context["durations"]["figures"].count == len(durations), who
        hours = page.context["score_numbers"].rows
        assert sum(int(row[3].text) for row in hours) == len(durations), who
        # Its feedback (already one project's: feedback is per project).
        assert sorted(row["feedback_id"] for row in page.context["feedback"]) == feedback_ids


def test_a_component_only_another_project_has_is_not_found_on_its_page_as_an_unknown_one(
    figures: dict[str, Actor],
) -> None:
    """/components/translate/ answers default's member 404, as a component nobody called."""
    session = figures["default-ann"].browser()
    assert session.get("/components/no-such/").status_code == 404
    assert session.get(f"/components/{TRANSLATE}/").status_code == 404
    # It is there for alpha's members: the 404 was no accident of the name.
    assert figures["alpha-ann"].browser().get(f"/components/{TRANSLATE}/").status_code == 200


# --- 5. the explorer's and the turns page's choices -------------------------------------------


def test_the_explorer_and_turns_pages_offer_only_the_projects_components_to_filter_by(
    figures: dict[str, Actor],
) -> None:
    """The component choices of /explorer/ and /turns/ are the project's components alone."""
    for who, names in (
        ("default-rev", [SEARCH]),
        ("default-ann", [SEARCH]),
        ("alpha-rev", [SEARCH, TRANSLATE]),
        ("alpha-ann", [SEARCH, TRANSLATE]),
    ):
        session = figures[who].browser()
        for url in ("/explorer/", "/turns/"):
            page = session.get(url)
            assert page.status_code == 200, (who, url)
            assert page.context["components"] == names, (who, url)


# --- 6. an environment's forwarded rewards --------------------------------------------------------


def test_an_environments_forwarded_rewards_count_in_its_projects_stats_alone(
    teams: dict[str, Actor], settings: Settings
) -> None:
    """An environment's rewards, forwarded as env feedback, score the component in the
    environment's project alone, and its calls count there alone."""
    settings.LEARNPORTAL_FORWARD_ENV_REWARDS = True
    rewarded = {"default-env": [1.0, 0.5], "alpha-env": [-1.0]}
    for who, rewards in rewarded.items():
        start = T_DEFAULT if who == "default-env" else T_ALPHA
        stored(
            teams[who],
            *(experience(SEARCH, reward=r, ts=start + i + 1) for i, r in enumerate(rewards)),
        )
    # The feedback they are forwarded as is each project's (already so: feedback is per project).
    assert sorted(
        Feedback.objects.filter(source="env").values_list(
            "project__slug", "component_name", "score"
        )
    ) == [("alpha", SEARCH, -1.0), ("default", SEARCH, 0.5), ("default", SEARCH, 1.0)]
    # Without success, a call succeeded when its reward is >= 0 (docs/contract.md).
    (default_search,) = stats(http_send, teams["default-agent"])
    assert (
        default_search["component_name"],
        default_search["calls_total"],
        default_search["calls_success"],
        default_search["avg_score"],
    ) == (SEARCH, 2, 2, 0.75)
    (alpha_search,) = stats(http_send, teams["alpha-agent"])
    assert (
        alpha_search["component_name"],
        alpha_search["calls_total"],
        alpha_search["calls_failed"],
        alpha_search["avg_score"],
    ) == (SEARCH, 1, 1, -1.0)
