"""LearnPortal settings: one module, driven by environment variables (see README)."""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

from learnportal.env import (
    ConfigError,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_str,
)
from refinement.strategies import check_params as check_strategy_params

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("LEARNPORTAL_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ConfigError("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is not 1")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
ALLOWED_HOSTS = [
    host.strip()
    for host in env_str("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",")
    if host.strip()
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
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
    "learnportal.accounts",
    "feedback",
    "refinement",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "learnportal.urls"
ASGI_APPLICATION = "learnportal.asgi.application"
WSGI_APPLICATION = "learnportal.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"

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


def _database() -> dict:
    url = env_str("DATABASE_URL")
    if url:
        config = dj_database_url.parse(url)
        if config["ENGINE"] == "django.db.backends.postgresql":
            config.setdefault("OPTIONS", {})["pool"] = {"min_size": 1, "max_size": 16}
        return config
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": VAR_DIR / "learnportal.sqlite3",
        "OPTIONS": {
            # One writer at a time: take the write lock up front and wait for it, rather than
            # failing half-way through a batch with "database is locked".
            "transaction_mode": "IMMEDIATE",
            "timeout": env_float("LEARNPORTAL_SQLITE_TIMEOUT", 5.0, minimum=0.0),
            "init_command": (
                "PRAGMA journal_mode=WAL;"
                "PRAGMA synchronous=NORMAL;"
                "PRAGMA foreign_keys=ON;"
                "PRAGMA cache_size=-65536;"
            ),
        },
        # One file per test run, so that runs side by side never share a database.
        "TEST": {"NAME": VAR_DIR / f"test-learnportal-{os.getpid()}.sqlite3"},
    }


DATABASES = {"default": _database()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
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

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "learnportal.accounts.authentication.BearerTokenAuthentication",
        "learnportal.accounts.authentication.PrincipalSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # The API is JSON: no browsable HTML renderer (it cannot render the views that read their
    # body raw), and a client asking for another type still gets JSON.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "learnportal.api.negotiation.JSONForEveryClient",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "learnportal.api.errors.exception_handler",
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
ADAPT_STRATEGY_NAMES = ("ppo", "ucb1", "epsilon_greedy", "softmax", "custom")
RISK_LEVELS = ("none", "low", "medium", "high")

LEARNPORTAL_MAX_BATCH = env_int("LEARNPORTAL_MAX_BATCH", 1000, minimum=1)
LEARNPORTAL_MAX_BODY_BYTES = env_int("LEARNPORTAL_MAX_BODY_BYTES", 64 * 1024 * 1024, minimum=1024)
LEARNPORTAL_EXPERIENCE_LIMIT = env_int("LEARNPORTAL_EXPERIENCE_LIMIT", 1_000_000, minimum=1)
LEARNPORTAL_EXPERIENCE_OVERFLOW = env_choice(
    "LEARNPORTAL_EXPERIENCE_OVERFLOW", "evict", ("evict", "reject")
)
LEARNPORTAL_ADAPT_STRATEGIES = env_list(
    "LEARNPORTAL_ADAPT_STRATEGIES", ",".join(ADAPT_STRATEGY_NAMES), ADAPT_STRATEGY_NAMES
)
LEARNPORTAL_CUSTOM_STRATEGY = env_str("LEARNPORTAL_CUSTOM_STRATEGY")
LEARNPORTAL_AUTO_APPLY_MAX_RISK = env_choice("LEARNPORTAL_AUTO_APPLY_MAX_RISK", "low", RISK_LEVELS)
LEARNPORTAL_FORWARD_ENV_REWARDS = env_bool("LEARNPORTAL_FORWARD_ENV_REWARDS", True)
# How many of the newest experiences an adapt or a plan learns from (a replay window).
LEARNPORTAL_ADAPT_WINDOW = env_int("LEARNPORTAL_ADAPT_WINDOW", 1_000_000, minimum=1)
# Requests per second per principal (a token bucket with this refill rate and a burst of 2x);
# 0 turns rate limiting off.
LEARNPORTAL_RATE_LIMIT = env_float("LEARNPORTAL_RATE_LIMIT", 2000.0, minimum=0.0)
LEARNPORTAL_STRATEGY_PARAMS = {
    "epsilon": env_float("LEARNPORTAL_EPSILON", 0.1, minimum=0.0, maximum=1.0),
    "temperature": env_float("LEARNPORTAL_SOFTMAX_TEMPERATURE", 1.0, minimum=1e-6),
    "ucb_c": env_float("LEARNPORTAL_UCB_C", 2**0.5, minimum=0.0),
    "ppo_clip": env_float("LEARNPORTAL_PPO_CLIP", 0.2, minimum=0.0, maximum=1.0),
    "ppo_epochs": env_int("LEARNPORTAL_PPO_EPOCHS", 10, minimum=1),
    "ppo_lr": env_float("LEARNPORTAL_PPO_LR", 1.0, minimum=1e-9),
    "ppo_entropy": env_float("LEARNPORTAL_PPO_ENTROPY", 0.01, minimum=0.0),
    "seed": env_int("LEARNPORTAL_STRATEGY_SEED", 0, minimum=0),
}
try:
    check_strategy_params(LEARNPORTAL_STRATEGY_PARAMS)
except ValueError as exc:
    raise ConfigError(f"strategy parameters: {exc}") from None

DATA_UPLOAD_MAX_MEMORY_SIZE = LEARNPORTAL_MAX_BODY_BYTES
WHITENOISE_USE_FINDERS = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LEARNPORTAL_LOG_LEVEL", "WARNING")},
}
