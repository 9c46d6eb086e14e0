"""Roles and what each may do: the table of docs/contract.md, in one place."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    AGENT = "agent"
    ENVIRONMENT = "environment"
    ANNOTATOR = "annotator"
    REVIEWER = "reviewer"
    MANAGER = "manager"
    ADMIN = "admin"
    # A person in a project they are not a member of: they may do nothing there.
    NONE = "none"


MACHINE_ROLES = frozenset({Role.AGENT, Role.ENVIRONMENT})
# A person's role in a project (core.projects.models.Membership); `admin` is a site admin's.
PROJECT_ROLES = frozenset({Role.ANNOTATOR, Role.REVIEWER, Role.MANAGER})
HUMAN_ROLES = PROJECT_ROLES | {Role.ADMIN}
EVERYONE = MACHINE_ROLES | HUMAN_ROLES
MACHINES_AND_ADMIN = MACHINE_ROLES | {Role.ADMIN}
DECIDERS = frozenset({Role.REVIEWER, Role.MANAGER, Role.ADMIN})
REFINERS = MACHINE_ROLES | DECIDERS


class Action(StrEnum):
    FEEDBACK = "submit feedback"
    EXPERIENCE = "store experiences"
    ADAPT = "adapt routing"
    STATS = "read stats"
    PLAN = "plan refinements"
    REVIEW = "review refinements"
    APPLY = "apply refinements"
    ROLLBACK = "roll back refinements"
    HISTORY = "read refinement history"
    SUBMIT_TURNS = "submit turns"
    IMPORT_TURNS = "import turns from a file"
    READ_TURNS = "read turns"
    SUBMIT_COMPARISONS = "submit comparisons"
    READ_LEADERBOARD = "read the leaderboard"
    DECIDE = "approve or reject refinements"
    MANAGE_STEPS = "change step settings"
    REPORT_RUNS = "report step runs"
    READ_SKILLS = "read the learning store"
    QUEUE = "take turns to rate from the queue"
    EXPLORE = "explore feedback"
    LIST_FEEDBACK = "list feedback over the API"
    EXPORT = "export feedback"
    SEE_ALL_RATINGS = "see every person's ratings"
    REVIEW_RATINGS = "review people's ratings"
    MANAGE_GOLD = "mark gold items and read people's accuracy on them"
    READ_AGREEMENT = "read annotator agreement"
    MANAGE_ACCOUNTS = "manage people and tokens"
    MANAGE_WEBHOOKS = "manage webhook endpoints"
    MANAGE_PROJECT = "manage a project's settings and members"
    MANAGE_PROJECTS = "make projects"


ALLOWED: dict[Action, frozenset[Role]] = {
    Action.FEEDBACK: EVERYONE,
    Action.EXPERIENCE: MACHINES_AND_ADMIN,
    Action.ADAPT: MACHINES_AND_ADMIN,
    Action.STATS: EVERYONE,
    Action.PLAN: REFINERS,
    Action.REVIEW: REFINERS,
    Action.APPLY: REFINERS,
    Action.ROLLBACK: REFINERS,
    Action.HISTORY: REFINERS,
    Action.SUBMIT_TURNS: MACHINES_AND_ADMIN,
    # A team bringing its own turns (a JSONL, CSV or dataset file: feedback.turn_import).
    Action.IMPORT_TURNS: DECIDERS,
    Action.READ_TURNS: EVERYONE,
    # Candidates side by side (feedback.comparisons): sent by the agents or a project's manager;
    # the leaderboard names components and models, which annotators judge blind to.
    Action.SUBMIT_COMPARISONS: MACHINE_ROLES | {Role.MANAGER, Role.ADMIN},
    Action.READ_LEADERBOARD: MACHINE_ROLES | DECIDERS,
    Action.DECIDE: DECIDERS,
    Action.MANAGE_STEPS: frozenset({Role.ADMIN}),
    Action.REPORT_RUNS: MACHINES_AND_ADMIN,
    Action.READ_SKILLS: EVERYONE,
    Action.QUEUE: HUMAN_ROLES,
    # The people's side (docs/contract.md): the explorer is for people; an annotator is blind
    # to other people's ratings, reviewers and admins see all.
    Action.EXPLORE: HUMAN_ROLES,
    # GET /api/feedback/: people read the explorer's list; an agent or an environment reads
    # only the feedback it sent itself (feedback.selectors.visibility.seen_by).
    Action.LIST_FEEDBACK: EVERYONE,
    Action.EXPORT: DECIDERS,
    Action.SEE_ALL_RATINGS: DECIDERS,
    # A second pass over people's ratings (feedback.reviews): accepted, or rejected with a reason.
    Action.REVIEW_RATINGS: DECIDERS,
    Action.READ_AGREEMENT: DECIDERS,
    # Gold items (feedback.gold): their answers are kept from the people they measure.
    Action.MANAGE_GOLD: frozenset({Role.MANAGER, Role.ADMIN}),
    Action.MANAGE_ACCOUNTS: frozenset({Role.ADMIN}),
    Action.MANAGE_WEBHOOKS: frozenset({Role.ADMIN}),
    Action.MANAGE_PROJECT: frozenset({Role.MANAGER, Role.ADMIN}),
    Action.MANAGE_PROJECTS: frozenset({Role.ADMIN}),
}
