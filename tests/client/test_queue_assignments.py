"""Queue assignments through the client: a manager keeps a component's turns for named people,
changes and removes the assignment; the client reads what the host answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import feedback.assignments.answers as hosts
from learnportal_client import (
    ConflictError,
    InvalidError,
    LearnClient,
    NotFoundError,
    QueueAssignment,
    QueueAssignments,
)
from tests.client.conftest import person_token

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tests.client.conftest import Portal


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [(QueueAssignment, hosts.StoredAssignment), (QueueAssignments, hosts.AssignmentList)],
)
def test_the_clients_answers_read_only_fields_the_host_answers(
    mine: type[BaseModel], theirs: type[BaseModel]
) -> None:
    assert set(mine.model_fields) <= set(theirs.model_fields)


def test_a_manager_keeps_a_component_for_named_people(portal: Portal) -> None:
    person_token("ada", "annotator")
    person_token("bea", "annotator")
    with LearnClient(portal.url, person_token("lead", "manager")) as lead:
        made = lead.queue_assignment_add(component="legal", usernames=["ada"])
        assert (made.component, made.usernames, made.by) == ("legal", ["ada"], "lead")
        with pytest.raises(InvalidError):
            lead.queue_assignment_add(component="chat", usernames=["nobody"])
        with pytest.raises(ConflictError):
            lead.queue_assignment_add(component="legal", usernames=["bea"])
        changed = lead.queue_assignment_change(made.id, component="legal", usernames=["bea"])
        assert changed.usernames == ["bea"]
        assert [a.id for a in lead.queue_assignments().results] == [made.id]
        lead.queue_assignment_remove(made.id)
        with pytest.raises(NotFoundError):
            lead.queue_assignment_remove(made.id)
