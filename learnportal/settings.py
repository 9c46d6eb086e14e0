"""LearnPortal settings: one module, driven by environment variables.

Each variable has its row in docs/reference/settings.md, which a test holds to this module.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import dj_database_url
from csp.constants import NONE, SELF

from core.accounts.roles import Role
from core.env import (
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_origins,
    env_proxy_ssl_header,
    env_secret_key,
    env_str,
    load_env_file,
)
from learnportal_protocol.messages import STRATEGY_NAMES
from learnportal_protocol.models import RiskLevel
from refinement.strategies.base import PARAMS as strategy_params

BASE_DIR = Path(__file__).resolve().parent.parent
# The dev env file `make` writes (DJANGO_DEBUG=1 and a generated key), so that manage.py typed
# in a plain shell runs as `make run` does. It never overrides the environment; without the
# file (production) nothing changes. An empty LEARNPORTAL_ENV_FILE reads none.
load_env_file(env_str("LEARNPORTAL_ENV_FILE", str(BASE_DIR / ".env")))
VAR_DIR = Path(env_str("LEARNPORTAL_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DJANGO_DEBUG", False)
# Production refuses a missing or short (< 50 characters) key, with a message saying why.
SECRET_KEY = env_secret_key("DJANGO_SECRET_KEY", debug=DEBUG)
ALLOWED_HOSTS = [
    host.strip()
    for host in env_str("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",")
    if host.strip()
]

INSTALLED_APPS = [
    "daphne",
    "core.accounts.admin_apps.PortalAdminConfig",  # django.contrib.admin, for admins only
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "csp",
    "axes",
    "core.accounts",
    "core.projects",
    "webhooks",
    "feedback",
    "refinement",
    "learnportal",  # the wiring, on top of both apps: seed_demo, the OpenAPI extensions
]

MIDDLEWARE = [
    # First: nosniff and a Content-Security-Policy on every answer, the others' error pages too.
    "learnportal.baseline.BaselineHeadersMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.csp.PortalCSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Counts every request but the API's (DRF counts those) and static files (served above).
    "learnportal.pagelimit.PageRateLimitMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a refused login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    # First: refuses every login of a locked-out account or client before a password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "learnportal.urls"
ASGI_APPLICATION = "learnportal.asgi.application"
WSGI_APPLICATION = "learnportal.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
# How long an invitation's link to choose a password stays good (core.projects.invitations).
PASSWORD_RESET_TIMEOUT = 7 * 24 * 3600

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def _sqlite_tuned(config: dict[str, Any]) -> dict[str, Any]:
    """The one SQLite tuning, for every SQLite database however it is named.

    Options the DATABASE_URL gives itself (`?timeout=...`) win over these.
    """
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    options = {
        # One writer at a time: take the write lock up front and wait for it, rather than
        # failing half-way through a batch with "database is locked".
        "transaction_mode": "IMMEDIATE",
        "timeout": env_float("LEARNPORTAL_SQLITE_TIMEOUT", 5.0, minimum=0.0),
        "init_command": (
            "PRAGMA journal_mode=WAL;"
            "PRAGMA synchronous=NORMAL;"
            "PRAGMA foreign_keys=ON;"
            "PRAGMA cache_size=-65536;"
            # Checkpoint every 10000 WAL pages (40 MiB), not SQLite's 1000: at 2M stored rows a
            # commit of 1000 experiences writes ~1600 pages (one leaf a row of the random-key id
            # index), so the default checkpointed at every commit; every few commits, a page
            # that several wrote goes back to the file once (BENCHMARKS.md, "Ingest as the
            # tables grow").
            "PRAGMA wal_autocheckpoint=10000;"
        ),
    }
    return {
        **config,
        # Django's SQLite backend, with connections handed back to a pool at the end of a
        # request instead of closed (core/sqlite/base.py).
        "ENGINE": "core.sqlite",
        "OPTIONS": {**options, **config.get("OPTIONS", {})},
        # One file per test run, so that runs side by side never share a database.
        "TEST": {"NAME": VAR_DIR / f"test-learnportal-{os.getpid()}.sqlite3"},
    }


def _database() -> dict[str, Any]:
    url = env_str("DATABASE_URL")
    config: dict[str, Any]
    if not url:
        config = {"ENGINE": "django.db.backends.sqlite3", "NAME": VAR_DIR / "learnportal.sqlite3"}
    else:
        config = dict(dj_database_url.parse(url))
    if config["ENGINE"] == "django.db.backends.sqlite3":
        return _sqlite_tuned(config)
    if config["ENGINE"] == "django.db.backends.postgresql":
        # Django's native psycopg pool. With health checks a connection is checked when taken
        # (Django passes psycopg_pool's check_connection), so that one the server closed (a
        # restart, an idle timeout) is replaced instead of failing a request.
        config.setdefault("OPTIONS", {})["pool"] = {"min_size": 1, "max_size": 16}
        config["CONN_HEALTH_CHECKS"] = True
    return config


DATABASES = {"default": _database()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


def _redis_db(url: str) -> str:
    return urlparse(url).path.strip("/") or "0"


REDIS_URL = env_str("REDIS_URL")
# The cache is an optimisation that does without Redis when it is down (core.outage):
# give up quickly rather than hang.
REDIS_CACHE_OPTIONS = {"socket_connect_timeout": 1, "socket_timeout": 1}
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            # Pub/sub channels are server-wide, whatever the database number: name them by it,
            # so that deployments (or test runs) on one Redis never hear each other.
            "CONFIG": {"hosts": [REDIS_URL], "prefix": f"learnportal.{_redis_db(REDIS_URL)}"},
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": REDIS_CACHE_OPTIONS,
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise serves from finders until collectstatic

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# HTTPS behind a proxy: each off unless set (HSTS is sticky in browsers: turn it on knowingly).
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", False)
# Trust the proxy's word that a request came over HTTPS (e.g. X-Forwarded-Proto: https).
SECURE_PROXY_SSL_HEADER = env_proxy_ssl_header("DJANGO_SECURE_PROXY_SSL_HEADER")
# Other origins that may post forms and open WebSockets here (e.g. the public https name).
CSRF_TRUSTED_ORIGINS = env_origins("DJANGO_CSRF_TRUSTED_ORIGINS")

# No inline script or style anywhere: each page loads its own file from static/<app>/.
# core.csp adds the page's own ws:// or wss:// origin to connect-src.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "core.accounts.authentication.BearerTokenAuthentication",
        "core.accounts.authentication.PrincipalSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # The API is JSON: no browsable HTML renderer (it cannot render the views that read their
    # body raw), and a client asking for another type still gets JSON.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "learnportal.api.negotiation.JSONForEveryClient",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "learnportal.api.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["core.ratelimit.RateThrottle"],
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "LearnPortal API",
    "DESCRIPTION": "The host side of the learn/* protocol: feedback, experiences, stats, adapt "
    "and refinements, plus the turns queue, routing weights and the learning store.",
    "VERSION": "1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "OAS_VERSION": "3.1.0",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Every error answer is the learn/error envelope, written once (learnportal.api.schema).
    # (drf-spectacular's enum hook is left out: the pydantic models name their own enums.)
    "POSTPROCESSING_HOOKS": ["learnportal.api.schema.document_errors"],
}

# --- learn/* host limits and policy -------------------------------------------------------
ADAPT_STRATEGY_NAMES = STRATEGY_NAMES  # every strategy the host knows, the protocol's names

LEARNPORTAL_MAX_BATCH = env_int("LEARNPORTAL_MAX_BATCH", 1000, minimum=1)
LEARNPORTAL_MAX_BODY_BYTES = env_int("LEARNPORTAL_MAX_BODY_BYTES", 64 * 1024 * 1024, minimum=1024)
# Turns from a file (the import page and `manage.py import_turns`): the largest file, and the
# most rows one file may hold; a file over either is refused whole, before any row is stored.
LEARNPORTAL_IMPORT_MAX_BYTES = env_int(
    "LEARNPORTAL_IMPORT_MAX_BYTES", 64 * 1024 * 1024, minimum=1024
)
LEARNPORTAL_IMPORT_MAX_ROWS = env_int("LEARNPORTAL_IMPORT_MAX_ROWS", 100_000, minimum=1)
LEARNPORTAL_EXPERIENCE_LIMIT = env_int("LEARNPORTAL_EXPERIENCE_LIMIT", 1_000_000, minimum=1)
LEARNPORTAL_EXPERIENCE_OVERFLOW = env_choice(
    "LEARNPORTAL_EXPERIENCE_OVERFLOW", "evict", ("evict", "reject")
)
LEARNPORTAL_ADAPT_STRATEGIES = env_list(
    "LEARNPORTAL_ADAPT_STRATEGIES", ",".join(ADAPT_STRATEGY_NAMES), ADAPT_STRATEGY_NAMES
)
LEARNPORTAL_CUSTOM_STRATEGY = env_str("LEARNPORTAL_CUSTOM_STRATEGY")
LEARNPORTAL_AUTO_APPLY_MAX_RISK = RiskLevel(
    env_choice("LEARNPORTAL_AUTO_APPLY_MAX_RISK", RiskLevel.LOW, RiskLevel)
)
# The highest review risk a reviewer may approve, apply or roll back; above it only an admin may.
LEARNPORTAL_REVIEWER_MAX_RISK = RiskLevel(
    env_choice("LEARNPORTAL_REVIEWER_MAX_RISK", RiskLevel.HIGH, RiskLevel)
)
# A high-risk proposal is applied only after two distinct people approved it (applying is the
# applier's approval): one approves, another approves or applies.
LEARNPORTAL_HIGH_RISK_TWO_REVIEWERS = env_bool("LEARNPORTAL_HIGH_RISK_TWO_REVIEWERS", False)
# The largest skill file a proposal may write (its new_value's UTF-8 bytes): over it `invalid`.
# Its review risk grows with size well below this (refinement.review).
LEARNPORTAL_SKILL_FILE_MAX_BYTES = env_int(
    "LEARNPORTAL_SKILL_FILE_MAX_BYTES", 256 * 1024, minimum=1024
)
# The most a learn/refinement/history reply (and GET /api/refinements/history/) holds of
# entries, in bytes of JSON, however few the entries; the rest is a `next_cursor` away.
LEARNPORTAL_HISTORY_REPLY_BYTES = env_int(
    "LEARNPORTAL_HISTORY_REPLY_BYTES", 1024 * 1024, minimum=64 * 1024
)
# How much machines may move one routing weight in all within this many seconds: the step of
# the auto-apply risk (refinement.trust_region); past it, an apply waits for a person.
LEARNPORTAL_TRUST_WINDOW_SECONDS = env_int("LEARNPORTAL_TRUST_WINDOW_SECONDS", 3600, minimum=1)
# How often machines (applies and adapts alike) may change one path within this many seconds;
# past that many changes, the next one waits for a person (refinement.trust_window). 30 a minute:
# a runtime adapting every two seconds is never held (and 10 steps of 0.1 already span a
# weight's range, so repeated adapts converge well within it); a runaway burst is.
LEARNPORTAL_PATH_CHANGES_MAX = env_int("LEARNPORTAL_PATH_CHANGES_MAX", 30, minimum=1)
LEARNPORTAL_PATH_CHANGES_SECONDS = env_int("LEARNPORTAL_PATH_CHANGES_SECONDS", 60, minimum=1)
# Whose experiences count for every component (feedback.attribution); any other principal's count
# only for the components it reported calls of first, and its adapts move only those.
LEARNPORTAL_SPEAK_FOR_ALL_ROLES = env_list(
    "LEARNPORTAL_SPEAK_FOR_ALL_ROLES", "environment,reviewer,admin", [r.value for r in Role]
)
LEARNPORTAL_FORWARD_ENV_REWARDS = env_bool("LEARNPORTAL_FORWARD_ENV_REWARDS", True)
# How many of the newest experiences an adapt or a plan learns from (each component's count and
# reward sum over them are kept at ingest: feedback.rewards), and the most of them PPO and a
# custom strategy read one by one (a bounded replay window).
LEARNPORTAL_ADAPT_WINDOW = env_int("LEARNPORTAL_ADAPT_WINDOW", 1_000_000, minimum=1)
LEARNPORTAL_REPLAY_WINDOW = env_int("LEARNPORTAL_REPLAY_WINDOW", 10_000, minimum=1)
# A machine judge's weight (feedback.judges.weights): the items it shares with people before it
# counts as measured, and how long a measured weight holds before it is measured again.
LEARNPORTAL_JUDGE_MIN_ITEMS = env_int("LEARNPORTAL_JUDGE_MIN_ITEMS", 20, minimum=2)
LEARNPORTAL_JUDGE_WEIGHT_SECONDS = env_float("LEARNPORTAL_JUDGE_WEIGHT_SECONDS", 300.0, minimum=0.0)
# The annotators' queue (feedback.queue): human ratings from distinct people each turn needs, how
# long a lease on a turn lasts, and how long a person may undo their own rating.
LEARNPORTAL_RATINGS_PER_TURN = env_int("LEARNPORTAL_RATINGS_PER_TURN", 1, minimum=1)
LEARNPORTAL_LEASE_SECONDS = env_int("LEARNPORTAL_LEASE_SECONDS", 600, minimum=1)
LEARNPORTAL_UNDO_SECONDS = env_int("LEARNPORTAL_UNDO_SECONDS", 60, minimum=0)
# A comparison (feedback.comparisons): the most candidates judged side by side.
LEARNPORTAL_MAX_CANDIDATES = env_int("LEARNPORTAL_MAX_CANDIDATES", 8, minimum=2)
# A project's rubric (feedback.rubrics): the most questions it holds, options a categorical
# question (or span labels a spans question) offers, characters a text answer holds, and spans
# one answer marks.
# A turn's steps (feedback.traces): how many one turn holds, how deep their tree goes, and the
# JSON bytes of one step's attributes.
LEARNPORTAL_MAX_STEPS = env_int("LEARNPORTAL_MAX_STEPS", 1000, minimum=1)
LEARNPORTAL_MAX_STEP_DEPTH = env_int("LEARNPORTAL_MAX_STEP_DEPTH", 64, minimum=1)
LEARNPORTAL_MAX_STEP_ATTRIBUTES_BYTES = env_int(
    "LEARNPORTAL_MAX_STEP_ATTRIBUTES_BYTES", 64 * 1024, minimum=256
)
LEARNPORTAL_RUBRIC_MAX_QUESTIONS = env_int("LEARNPORTAL_RUBRIC_MAX_QUESTIONS", 50, minimum=1)
LEARNPORTAL_RUBRIC_MAX_OPTIONS = env_int("LEARNPORTAL_RUBRIC_MAX_OPTIONS", 50, minimum=2)
LEARNPORTAL_RUBRIC_MAX_TEXT = env_int("LEARNPORTAL_RUBRIC_MAX_TEXT", 10_000, minimum=1)
LEARNPORTAL_RUBRIC_MAX_SPANS = env_int("LEARNPORTAL_RUBRIC_MAX_SPANS", 100, minimum=1)
# Requests per second per principal (per client address without one), on every API endpoint,
# learn/* message and page, counted in fixed windows in the cache: shared by all processes when REDIS_URL
# is set. 0 turns rate limiting off.
LEARNPORTAL_RATE_LIMIT = env_float("LEARNPORTAL_RATE_LIMIT", 2000.0, minimum=0.0)
# The A2E SDK's HTTP transport at /a2e (learnportal.a2e): a session ends after this many idle
# seconds (no request and no open stream), its stream sends a keep-alive comment this often, and
# its outbox keeps at most this many replies and bytes (unread, or written but not acknowledged).
# A principal may hold this many sessions at once, a client address this many not yet bound to
# a credential.
LEARNPORTAL_A2E_IDLE_SECONDS = env_int("LEARNPORTAL_A2E_IDLE_SECONDS", 900, minimum=1)
LEARNPORTAL_A2E_KEEPALIVE_SECONDS = env_float(
    "LEARNPORTAL_A2E_KEEPALIVE_SECONDS", 15.0, minimum=0.05
)
LEARNPORTAL_A2E_MAX_QUEUED = env_int("LEARNPORTAL_A2E_MAX_QUEUED", 1000, minimum=1)
LEARNPORTAL_A2E_MAX_QUEUED_BYTES = env_int(
    "LEARNPORTAL_A2E_MAX_QUEUED_BYTES", 4 * 1024 * 1024, minimum=64 * 1024
)
LEARNPORTAL_A2E_MAX_SESSIONS = env_int("LEARNPORTAL_A2E_MAX_SESSIONS", 32, minimum=1)
LEARNPORTAL_A2E_MAX_UNBOUND_SESSIONS = env_int(
    "LEARNPORTAL_A2E_MAX_UNBOUND_SESSIONS", 20, minimum=1
)
RATELIMIT_FAIL_OPEN = True  # a count the cache lost is not a reason to refuse
RATELIMIT_CACHE_PREFIX = "rl:"  # django-ratelimit's default (the tests give each run its own)

# Login lockout (django-axes, in the database): after this many failed logins for one username
# or from one client address, logins are refused for the cool-off; a successful login resets.
AXES_FAILURE_LIMIT = env_int("LEARNPORTAL_LOGIN_FAILURES", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LEARNPORTAL_LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the cool-off ends when it said it would
AXES_CLIENT_IP_CALLABLE = "core.ratelimit.client_address"
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_HTTP_RESPONSE_CODE = 429

# Strategy parameters: read here, judged by refinement's system check (refinement/checks.py)
# against their ranges, at `manage.py check` and at every start-up (learnportal/asgi.py). The
# defaults are the strategies' own (refinement.strategies.base.PARAMS), chosen by the loop
# benchmark (bench/loop.py). The variables, by parameter, so that the check's error names the
# one to fix.
LEARNPORTAL_STRATEGY_VARIABLES = {
    "epsilon": "LEARNPORTAL_EPSILON",
    "temperature": "LEARNPORTAL_SOFTMAX_TEMPERATURE",
    "ucb_c": "LEARNPORTAL_UCB_C",
    "ucb_horizon": "LEARNPORTAL_UCB_HORIZON",
    "ppo_clip": "LEARNPORTAL_PPO_CLIP",
    "ppo_epochs": "LEARNPORTAL_PPO_EPOCHS",
    "ppo_lr": "LEARNPORTAL_PPO_LR",
    "ppo_entropy": "LEARNPORTAL_PPO_ENTROPY",
    "seed": "LEARNPORTAL_STRATEGY_SEED",
}
LEARNPORTAL_STRATEGY_PARAMS: dict[str, float] = {
    name: env_int(variable, int(spec.default))
    if spec.integer
    else env_float(variable, spec.default)
    for name, variable in LEARNPORTAL_STRATEGY_VARIABLES.items()
    for spec in [strategy_params[name]]
}

DATA_UPLOAD_MAX_MEMORY_SIZE = LEARNPORTAL_MAX_BODY_BYTES
WHITENOISE_USE_FINDERS = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LEARNPORTAL_LOG_LEVEL", "WARNING")},
}
# Webhooks (webhooks): endpoints on loopback, private or link-local addresses are
# refused unless allowed; each attempt's timeout (in all; a worker's lease is derived from it); retries back off exponentially from the base
# to the cap, and a delivery fails after the most attempts.
LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = env_bool("LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE", False)
LEARNPORTAL_WEBHOOK_TIMEOUT_SECONDS = env_float(
    "LEARNPORTAL_WEBHOOK_TIMEOUT_SECONDS", 10.0, minimum=0.1
)
LEARNPORTAL_WEBHOOK_BACKOFF_SECONDS = env_float(
    "LEARNPORTAL_WEBHOOK_BACKOFF_SECONDS", 10.0, minimum=0.0
)
LEARNPORTAL_WEBHOOK_BACKOFF_CAP_SECONDS = env_float(
    "LEARNPORTAL_WEBHOOK_BACKOFF_CAP_SECONDS", 3600.0, minimum=0.0
)
LEARNPORTAL_WEBHOOK_MAX_ATTEMPTS = env_int("LEARNPORTAL_WEBHOOK_MAX_ATTEMPTS", 10, minimum=1)
# A worker's attempts in flight at once, and at most so many of them to any one endpoint, so
# that a slow endpoint holds back only its own deliveries.
LEARNPORTAL_WEBHOOK_CONCURRENCY = env_int("LEARNPORTAL_WEBHOOK_CONCURRENCY", 8, minimum=1)
LEARNPORTAL_WEBHOOK_PER_ENDPOINT = env_int("LEARNPORTAL_WEBHOOK_PER_ENDPOINT", 2, minimum=1)
# Delivered and failed deliveries are pruned this many days after their last attempt.
LEARNPORTAL_WEBHOOK_RETENTION_DAYS = env_float(
    "LEARNPORTAL_WEBHOOK_RETENTION_DAYS", 30.0, minimum=0.0
)
