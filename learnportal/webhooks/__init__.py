"""Signed webhooks: admins' endpoints, an outbox written with the change, a worker that sends it.

A base-layer app, like accounts: `learnportal.events.broadcast_on_commit` (which every service
already calls inside its transaction) writes the outbox through `outbox.outbox_write`, so no app
imports this package and the apps' code has no second hook to keep in step.
"""
