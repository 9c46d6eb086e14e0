"""`/a2e`: the A2E SDK's HTTP transport (session, send, server-sent-event stream).

- `messages`: the A2E base messages the host reads and writes (handshake, pong, error).
- `host`: what one message sent on a session does, over the one learn/* dispatch.
- `sessions`: where sessions and their outboxes live (this process, or Redis with REDIS_URL).
- `consumers`: the three ASGI endpoints, routed in learnportal/routing.py.
"""
