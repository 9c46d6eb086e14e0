"""`/a2e`: the A2E SDK's HTTP transport (session, send, server-sent-event stream).

- `messages`: the A2E base messages the host reads and writes (handshake, pong, error).
- `host`: what one message sent on a session does, over the one learn/* dispatch.
- `sessions`: what a session and its outbox are, their bounds and the store's interface;
  `memorystore` keeps them in this process, `redisstore` in Redis (with REDIS_URL).
- `scope`: what a request's headers say, and the transport's own refusals.
- `consumers`: the three ASGI endpoints, routed in learnportal/routing.py.
"""
