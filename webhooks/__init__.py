"""Signed webhooks: admins' endpoints, an outbox written with the change, a worker that sends it.

An app that imports no other: `core.events.broadcast_on_commit` (which every service already
calls inside its transaction) sends the `announced` signal, and this app's `ready` connects the
outbox to it, so no app imports this package and the apps' code has no second hook to keep in
step.
"""
