"""No principal of one project sees or changes anything of another, on any path: every URL
pattern and every learn/* message type, walked by a principal of each role of `default` with
the ids of project `alpha`'s own things (docs/contract.md, "Teams: projects").

Alpha holds one of everything, each of its names and texts carrying a secret word; what
`default`'s principals get back must never carry one of them that their request did not (an
error may say back the id it was asked for), and alpha's rows must be as they were. Every URL pattern has a rule here:
one added without a rule fails `test_every_url_pattern_has_an_isolation_rule`, so that a new
path is thought about before it ships. The site's own pages (the admin, people and tokens) are
a site admin's by design: there only a site admin may look, and the others are refused.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

import orjson
import pytest
from asgiref.sync import sync_to_async
from django.apps import apps
from django.test import override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from core.accounts.models import ApiToken, User
from core.accounts.principals import principal_for_token
from core.projects.models import Project
from core.projects.services import member_set, project_add
from feedback.exports import FORMATS
from feedback.rubrics.defaults import default_rubric
from learnportal.dispatch import HANDLERS
from refinement.models import Plan, Refinement
from tests.builders import (
    adapt_req,
    apply_req,
    experience,
    experience_req,
    feedback,
    feedback_req,
    file_proposal,
    history_req,
    plan_req,
    review_req,
    rollback_req,
    stats_req,
    weight_proposal,
)
from tests.factories import DeliveryFactory, EndpointFactory, PlanFactory, ProposalInputFactory
from tests.harness import WS_TIMEOUT, Actor, http_send, human_actor, token_actor, ws_communicator
from tests.learnportal.a2e.communicator import a2e_send

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from django.test import Client

    from tests.harness import Send

pytestmark = pytest.mark.django_db

SECRET = "zqx7secret"  # in every one of alpha's texts; in no answer to anyone else
COMPONENT = f"search-{SECRET}"
CORRELATION = f"turn-{SECRET}"
STEP = f"step-{SECRET}"
SESSION = f"conv-{SECRET}"
# Pages that name what they show in the query (an id of any text), and the alpha id they take.
QUERY_ROUTES = {"sessions/": ("id", SESSION)}
SKILL = "learnings/_global/SKILL.md"
RUBRIC_QUESTION = {"kind": "text", "key": "why", "label": f"Why {SECRET}"}  # its own rubric

# Each URL pattern's rule: `project` (what it shows and changes is the project's: the other
# project's principals get nothing of alpha's and change nothing of it) or `site` (the site
# admin's own pages: anyone else is refused; the admin sees the whole site by design).
SITE_PREFIXES = ("admin/", "accounts/")
PROJECT = "project"
SITE = "site"
PUBLIC = "public"  # no data: the sign-in pages and the API's description
PUBLIC_ROUTES = {
    "login/",
    "logout/",
    "welcome/<uidb64>/<token>/",  # an invitation's link: the token is the credential
    "api/schema/",
    "api/docs/",
    "^api/",
}
ADMIN_LISTS = {"api/projects/"}  # every project and its settings, to the site admin by design
METHODS = ("get", "post", "put", "patch", "delete")


def rule_of(route: str) -> str:
    if route in PUBLIC_ROUTES:
        return PUBLIC
    if route.startswith(SITE_PREFIXES):
        return SITE
    return PROJECT


def routes() -> list[tuple[str, URLPattern]]:
    """Every URL pattern of the site, as (its route, the pattern)."""

    def walk(resolver: URLResolver, prefix: str) -> Iterator[tuple[str, URLPattern]]:
        for pattern in resolver.url_patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                yield from walk(pattern, route)
            else:
                yield route, pattern

    return list(walk(get_resolver(), ""))


# --- alpha: one of everything, and its principals --------------------------------------------


@pytest.fixture
def alpha() -> dict[str, Any]:
    """Alpha's things made as its principals make them, and the ids a URL or message names."""
    project = project_add(slug="alpha", name="Alpha")
    agent = token_actor(f"agent-{SECRET}", "agent", project="alpha")
    ann = human_actor(f"ann-{SECRET}", "annotator", project="alpha")
    rev = human_actor(f"rev-{SECRET}", "reviewer", project="alpha")
    boss = human_actor(f"boss-{SECRET}", "manager", project="alpha")
    turn = {"prompt": f"asks {SECRET}?", "response": f"answers {SECRET}.", "model": "m"}
    steps = [
        {"step_id": f"span-{SECRET}", "name": f"plan {SECRET}", "kind": "agent"},
        {
            "step_id": "b7",
            "parent_id": f"span-{SECRET}",
            "name": "search",
            "kind": "tool",
            "input": f"looks up {SECRET}",
            "attributes": {"tool.name": f"search-{SECRET}"},
        },
    ]
    sent = agent.rest(
        "post",
        "/api/turns/",
        {
            "turns": [
                {
                    "correlation_id": CORRELATION,
                    "session_id": SESSION,
                    "rated_turn": turn,
                    "steps": steps,
                }
            ]
        },
    )
    assert sent.status_code == 201, sent.content
    turn_id = agent.rest("get", f"/api/turns/?correlation_id={CORRELATION}").json()["results"][0][
        "id"
    ]
    rated = ann.rest(
        "post",
        "/api/ratings/",
        {"turn": str(turn_id), "answers": {"correctness": 0.5}, "comment": f"because {SECRET}"},
    )
    assert rated.status_code == 201, rated.content
    questions = [*default_rubric().model_dump(mode="json")["questions"], RUBRIC_QUESTION]
    rubric = boss.rest("put", "/api/projects/alpha/rubric/", {"questions": questions})
    assert rubric.status_code == 200, rubric.content
    stored = agent.learn(experience_req(*(experience(COMPONENT, reward=0.5) for _ in range(3))))
    assert stored.status_code == 200, stored.content
    scored = agent.learn(
        feedback_req(feedback(component_name=COMPONENT, comment=f"scored {SECRET}", source="self"))
    )
    assert scored.status_code == 200, scored.content
    applied = agent.learn(apply_req(weight_proposal(COMPONENT, 0.5, 0.55)))
    assert applied.status_code == 200, applied.content
    skill = rev.learn(apply_req(file_proposal(SKILL, None, f"# Skill {SECRET}\n")))
    assert skill.status_code == 200, skill.content
    ran = agent.rest(
        "post", f"/api/steps/{STEP}/runs/", {"description": f"a run {SECRET}", "edits": []}
    )
    assert ran.status_code == 200, ran.content
    rules = {"guidelines": f"# Rules {SECRET}", "questions": {"correctness": f"check {SECRET}"}}
    wrote = boss.rest("put", "/api/projects/alpha/guidelines/", rules)
    assert wrote.status_code == 200, wrote.content
    read = ann.rest("post", "/api/projects/alpha/guidelines/acknowledge/", {"version": 1})
    assert read.status_code == 200, read.content
    principal = principal_for_token(agent.token)
    assert principal is not None
    plan = PlanFactory.create(
        by=principal, proposals=[ProposalInputFactory.build(component=f"other-{SECRET}")]
    )
    with override_settings(LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE=True):  # nothing listens on :9
        endpoint = EndpointFactory.create(
            project=project.pk,
            url=f"http://127.0.0.1:9/hook-{SECRET}",
            description=f"hook {SECRET}",
        )
    delivery = DeliveryFactory.create(
        endpoint=endpoint, body=orjson.dumps({"said": SECRET}).decode()
    )
    refinement = Refinement.objects.filter(project=project).order_by("id").first()
    assert refinement is not None
    annotator = User.objects.get(username=f"ann-{SECRET}")
    invited = boss.rest(
        "post",
        "/api/projects/alpha/invitations/",
        {"username": f"new-{SECRET}", "role": "annotator"},
    )
    assert invited.status_code == 201, invited.content
    compared = agent.rest(
        "post",
        "/api/comparisons/",
        {
            "comparisons": [
                {
                    "comparison_id": f"cmp-{SECRET}",
                    "prompt": turn["prompt"],
                    "candidates": [
                        {"response": f"this {SECRET}", "component_name": COMPONENT},
                        {"turn": CORRELATION},
                    ],
                }
            ]
        },
    )
    assert compared.status_code == 201, compared.content
    comparison = compared.json()["comparisons"][0]["id"]
    best = compared.json()["comparisons"][0]["candidates"][0]
    ann_name = f"ann-{SECRET}"
    judged = ann.rest(
        "post",
        f"/api/comparisons/{comparison}/judgments/",
        {"preference": 1, "rationale": f"since {SECRET}"},
    )
    assert judged.status_code == 201, judged.content
    # The quality things a manager keeps: an intake rule, a part of the queue kept for someone,
    # a gold comparison, a person marked as a judge.
    quality: list[tuple[str, str, dict[str, Any]]] = [
        ("post", "/api/intake-rules/", {"name": f"rule {SECRET}", "rate": 1}),
        ("post", "/api/queue-assignments/", {"component": COMPONENT, "usernames": [ann_name]}),
        ("put", f"/api/comparisons/{comparison}/gold/", {"best": best}),
        ("post", "/api/judges/marked/", {"username": ann_name}),
    ]
    for method, url, body in quality:
        kept = boss.rest(method, url, body)
        assert kept.status_code in (200, 201), kept.content
    ids: dict[str, Any] = {
        "comparison": comparison,
        "slug": "alpha",
        "pk": turn_id,
        "kind": [*FORMATS, "answers", "comparisons"],
        "path": SKILL,
        "step_id": STEP,
        "plan_id": plan.plan_id,
        "proposal_id": plan.proposals.get().proposal_id,
        "refinement_id": refinement.refinement_id,
        "decision": ["approve", "reject", "apply"],
        "name": COMPONENT,
        "username": annotator.username,
        "person_id": annotator.pk,
        "token_id": ApiToken.objects.get(name=f"agent-{SECRET}").pk,
        "token": "none",
        "uidb64": urlsplit(invited.json()["url"]).path.split("/")[2],
        "endpoint_id": endpoint.pk,
        "delivery_id": delivery.pk,
        "object_id": project.pk,
        "content_type_id": 1,
        "id": annotator.pk,
        "url": "",
        "app_label": "projects",
        "version": 1,
    }
    strings = alphas_strings(project)
    tokens = {"agent_token": agent.token, "reviewer_token": rev.token}
    return {"project": project, "ids": ids, "strings": strings, **tokens}


@pytest.fixture
def default_cast(db: None) -> dict[str, Actor]:
    """A principal of each role of `default`, which alpha's principals are not."""
    manager = human_actor("dmanager", "annotator")
    member_set(
        project=Project.objects.get(slug="default"),
        person=User.objects.get(username="dmanager"),
        role="manager",
    )
    return {
        "agent": token_actor("dagent", "agent"),
        "environment": token_actor("denv", "environment"),
        "annotator": human_actor("dann", "annotator"),
        "reviewer": human_actor("drev", "reviewer"),
        "manager": manager,
        "admin": human_actor("dadmin", "admin"),
    }


def alphas_strings(project: Project) -> set[str]:
    """Every text of alpha's rows that carries the secret: what no answer to another may show."""
    found: set[str] = set()
    for rows in alphas_rows(project).values():
        for row in rows:
            found.update(text for text in _texts(row) if SECRET in text and len(text) < 2000)
    found.update(name for name in User.objects.values_list("username", flat=True) if SECRET in name)
    return found


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
        if value.startswith(("{", "[")):
            with contextlib.suppress(orjson.JSONDecodeError):
                yield from _texts(orjson.loads(value))
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


def alphas_rows(project: Project) -> dict[str, list[dict[str, Any]]]:
    """Every stored row of alpha's, by model: what nobody else may change."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for model in apps.get_models():
        names = {f.name for f in model._meta.get_fields()}
        rows_of = model._default_manager
        if "project" in names:
            query = rows_of.filter(project=project)
        elif "turn" in names:
            query = rows_of.filter(turn__project=project)
        elif "proposal" in names and model._meta.label != "refinement.Refinement":
            query = rows_of.filter(proposal__project=project)
        elif "entry" in names:
            query = rows_of.filter(entry__project=project)
        elif "endpoint" in names:
            query = rows_of.filter(endpoint__project=project)
        else:
            continue
        rows[model._meta.label] = sorted(
            (orjson.loads(orjson.dumps(r, default=str)) for r in query.values()),
            key=lambda r: orjson.dumps(r, option=orjson.OPT_SORT_KEYS),
        )
    return rows


def urls_of(route: str, pattern: URLPattern, ids: dict[str, Any]) -> list[str]:
    """The route with each of its parameters filled with alpha's ids (every value where an id
    has several, as the export kinds and decisions do)."""
    names = list(pattern.pattern.regex.groupindex)
    urls = [route]
    for name in names:
        values = ids[name] if isinstance(ids[name], list) else [ids[name]]
        filled = []
        for url in urls:
            for value in values:
                for marker in (
                    f"<{name}>",
                    *(f"<{c}:{name}>" for c in ("str", "int", "path", "component")),
                ):
                    url_with = url.replace(marker, str(value))
                    if url_with != url:
                        break
                else:
                    url_with = url
                filled.append(url_with)
        urls = filled
    if route in QUERY_ROUTES:
        name, value = QUERY_ROUTES[route]
        urls = [f"{url}?{urlencode({name: value})}" for url in urls]
    return ["/" + url.lstrip("^").rstrip("$") for url in urls if "(?P" not in url]


def clients(actor: Actor, route: str) -> list[Client | Any]:
    """How a principal reaches a path: the API by its token; a page by a person's signed-in
    session (a token is not signed in there: its refusal is one more probe)."""
    if route.startswith("api/") or not User.objects.filter(username=actor.name).exists():
        return [actor.client]
    return [actor.browser()]


def methods_of(rule: str) -> tuple[str, ...]:
    """The site's own pages refuse anyone but a site admin: a read and a write show it."""
    return ("get", "post") if rule == SITE else METHODS


def leaked(response: Any, strings: set[str], sent: str) -> list[str]:
    """Those of alpha's strings a response shows (`leaked_text`)."""
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    if SECRET.encode() not in raw:
        return []
    return leaked_text(raw.decode(errors="replace"), strings, sent)


def leaked_text(body: str, strings: set[str], sent: str) -> list[str]:
    """Those of alpha's strings the answer shows that the principal's requests did not carry,
    nor one it did carry (a component's name it sent is in its own weight's path)."""
    if SECRET not in body:
        return []
    unescaped = body.replace("&#x27;", "'").replace("&quot;", '"').replace("&amp;", "&")
    # The secret alone (a text of alpha's too) is in whatever carries it: it neither excuses
    # nor shows anything of its own; the texts it is part of do.
    texts = strings - {SECRET}
    carried = {text for text in texts if text in sent}
    return sorted(
        text
        for text in texts
        if (text in body or text in unescaped) and not any(c in text for c in carried)
    )


# --- the tests -------------------------------------------------------------------------------


def test_every_url_pattern_has_an_isolation_rule(alpha: dict[str, Any]) -> None:
    """Each pattern is a project's, the site admin's or public, and each of its parameters is
    one the matrix can fill with alpha's ids."""
    unknown = [
        f"{route}: {name}"
        for route, pattern in routes()
        for name in pattern.pattern.regex.groupindex
        if name not in alpha["ids"]
    ]
    assert unknown == []
    assert {rule_of(route) for route, _ in routes()} == {PROJECT, SITE, PUBLIC}


@pytest.mark.parametrize(
    "role", ["agent", "environment", "annotator", "reviewer", "manager", "admin"]
)
def test_no_path_shows_or_changes_another_projects_things(
    role: str, alpha: dict[str, Any], default_cast: dict[str, Actor]
) -> None:
    """Each method of each path, by `default`'s principal of `role`, with alpha's ids: never a
    500, never a secret of alpha's in the answer (but the site admin on the site's own pages),
    and alpha's rows unchanged; a person naming `?project=alpha` is refused as for a project
    that does not exist."""
    actor = default_cast[role]
    before = alphas_rows(alpha["project"])
    problems = []
    sent = ""  # the paths asked so far: a write with alpha's id may make default a thing by it
    for route, pattern in routes():
        rule = rule_of(route)
        if role == "admin" and (
            rule == SITE or route in ADMIN_LISTS or "slug" in pattern.pattern.regex.groupindex
        ):
            continue  # the site's pages, and any project it names, are a site admin's by design
        for url in urls_of(route, pattern, alpha["ids"]):
            for client in clients(actor, route):
                for method in methods_of(rule):
                    # A site admin may enter any project, by design; a person of default
                    # who names alpha is refused, and so is a token (it has one project).
                    joined = "&" if "?" in url else "?"
                    naming = (
                        []
                        if role == "admin" or method != "get"
                        else [f"{url}{joined}project=alpha"]
                    )
                    for target in (url, *naming):
                        sent += target
                        call = getattr(client, method)
                        response = (
                            call(target)
                            if method == "get"
                            else call(target, data=b"{}", content_type="application/json")
                        )
                        if response.status_code >= 500:
                            problems.append(f"{method} {target}: {response.status_code}")
                        elif shown := leaked(response, alpha["strings"], sent):
                            problems.append(f"{method} {target}: shows {shown[:3]}")
    assert problems == []
    assert alphas_rows(alpha["project"]) == before


def learn_probes(ids: dict[str, Any]) -> list[dict[str, Any]]:
    """A message of each learn/* type naming alpha's component, ids, plan and refinement."""
    messages = [
        feedback_req(feedback(correlation_id=CORRELATION, score=-1.0, polarity="negative")),
        experience_req(experience(COMPONENT, reward=-1.0)),
        stats_req(COMPONENT),
        stats_req(),
        adapt_req("ucb1", COMPONENT),
        plan_req(COMPONENT),
        review_req(weight_proposal(COMPONENT, 0.55, 0.1, plan_id=ids["plan_id"])),
        apply_req(weight_proposal(COMPONENT, 0.55, 0.1, proposal_id=ids["proposal_id"])),
        apply_req(file_proposal(SKILL, f"# Skill {SECRET}\n", None)),
        rollback_req(ids["refinement_id"]),
        history_req(),
    ]
    assert {m["type"] for m in messages} == set(HANDLERS)  # a new message type needs a probe
    return messages


def probe_learn(send: Send, actor: Actor, alpha: dict[str, Any]) -> None:
    """Send each probe as `actor`: no answer shows alpha's, and alpha's rows stay."""
    before = alphas_rows(alpha["project"])
    problems = []
    sent = ""  # what default's own messages named: its own things, made from them, may show it
    for message in learn_probes(alpha["ids"]):
        sent += orjson.dumps(message).decode()
        status, reply = send(actor, message)
        body = orjson.dumps(reply).decode()
        if status >= 500:
            problems.append(f"{message['type']}: {status}")
        elif shown := leaked_text(body, alpha["strings"], sent):
            problems.append(f"{message['type']}: shows {shown[:3]}")
    assert problems == []
    assert alphas_rows(alpha["project"]) == before
    assert Plan.objects.filter(project=alpha["project"]).count() == 1


@pytest.mark.parametrize(
    "role", ["agent", "environment", "annotator", "reviewer", "manager", "admin"]
)
def test_no_learn_message_shows_or_changes_another_projects_things(
    role: str, alpha: dict[str, Any], default_cast: dict[str, Actor]
) -> None:
    """Every learn/* message type over HTTP, by `default`'s principal of `role`."""
    probe_learn(http_send, default_cast[role], alpha)


def test_no_learn_message_over_either_transport_shows_another_projects_things(
    transport: Send, alpha: dict[str, Any], default_cast: dict[str, Actor]
) -> None:
    """The same probes by default's agent over HTTP and over a WebSocket (one dispatch)."""
    probe_learn(transport, default_cast["agent"], alpha)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("role", ["agent", "environment"])
def test_no_learn_message_over_a2e_shows_or_changes_another_projects_things(
    role: str, alpha: dict[str, Any], default_cast: dict[str, Actor]
) -> None:
    """The same probes over the A2E SDK's transport (/a2e), by default's agent and environment."""
    probe_learn(a2e_send, default_cast[role], alpha)


# --- /ws/events/ -------------------------------------------------------------------------------

QUIET = 1.0  # longer than the events' flush interval (core.events.FLUSH_SECONDS)


async def events_heard(token: str, query: str, act: Callable[[], None]) -> tuple[Any, str]:
    """What a socket on /ws/events/ (`?query`) hears while `act` runs: the code it was closed
    with (None if it stayed open), and every frame, joined."""
    communicator = ws_communicator(token=token, query=query, path="/ws/events/")
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected  # a refusal is a close after the accept: a browser sees why
    await sync_to_async(act)()
    frames: list[str] = []
    while not await communicator.receive_nothing(timeout=QUIET):
        output = await communicator.receive_output(timeout=WS_TIMEOUT)
        if output["type"] == "websocket.close":
            return output.get("code"), "".join(frames)
        frames.append(output.get("text") or "")
    await communicator.disconnect()
    return None, "".join(frames)


def alpha_acts(alpha: dict[str, Any]) -> Callable[[], None]:
    """Alpha's agent queues a turn and rates it: each an event of alpha's, by a name with the
    secret in it."""
    agent = Actor(f"agent-{SECRET}", APIClient(), alpha["agent_token"])
    agent.client.credentials(HTTP_AUTHORIZATION=f"Bearer {alpha['agent_token']}")
    count = iter(range(1_000_000))

    def act() -> None:
        n = next(count)
        turn = {"prompt": f"more {SECRET}?", "response": "yes.", "model": "m"}
        queued = agent.rest(
            "post", "/api/turns/", {"turns": [{"correlation_id": f"e-{n}", "rated_turn": turn}]}
        )
        assert queued.status_code == 201, queued.content
        sent = agent.learn(feedback_req(feedback(correlation_id=f"e-{n}", source="self")))
        assert sent.status_code == 200, sent.content

    return act


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "role", ["agent", "environment", "annotator", "reviewer", "manager", "admin"]
)
async def test_no_events_socket_hears_another_projects_events(
    role: str, alpha: dict[str, Any], default_cast: dict[str, Actor]
) -> None:
    """/ws/events/ of default's principal of `role` hears none of alpha's events; one naming
    alpha closes as one naming no project does (a site admin's may enter alpha by design)."""
    token = default_cast[role].token
    act = alpha_acts(alpha)
    _, heard_in_alpha = await events_heard(alpha["reviewer_token"], "", act)
    assert SECRET in heard_in_alpha  # what alpha's own people hear, and the others must not
    code, heard = await events_heard(token, "", act)
    assert (code, SECRET in heard) == (None, False)  # open in its own project, hearing none
    if role == "admin":
        return
    unknown, _ = await events_heard(token, "project=no-such-project", act)
    named, heard_named = await events_heard(token, "project=alpha", act)
    assert named is not None and named == unknown
    assert SECRET not in heard_named
