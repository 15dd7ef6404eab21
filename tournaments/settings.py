"""One settings module, driven by environment variables that fail loudly when wrong."""

from __future__ import annotations

import os
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from tournaments import venue

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number")
    return int(raw)


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)

# The venue mode (`make venue`, manage.py venue): a laptop serves phones on the venue's
# network over plain HTTP, DEBUG off, with a secret key kept in the state directory.
VENUE = env_bool("VENUE", False)
STATE_DIR = venue.state_dir(os.environ)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY and VENUE:
    try:
        SECRET_KEY = venue.kept_secret_key(STATE_DIR)
    except (OSError, venue.VenueError) as exc:
        raise ImproperlyConfigured(f"the venue mode's secret key: {exc}") from exc
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (on a laptop at a venue: make venue;"
            " on a development install: DEBUG=1, as make run sets it)"
        )
    # Only ever reached with DEBUG=1 (make run, tests): never a production key.
    SECRET_KEY = "insecure-development-key-only-for-debug"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

# The address phones open, encoded in the event's QR code (http://192.168.1.23:8000);
# empty: the address the organizer's own browser used. The venue mode sets it.
PUBLIC_URL = os.environ.get("PUBLIC_URL", "")
if PUBLIC_URL:
    try:
        PUBLIC_URL = venue.public_origin(PUBLIC_URL, allowed_hosts=ALLOWED_HOSTS)
    except venue.VenueError as exc:
        raise ImproperlyConfigured(f"PUBLIC_URL={PUBLIC_URL!r} {exc}") from exc

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    "tournaments",
    "scoring",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "tournaments.middleware.SecurityHeaders",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Every text response is compressed (whitenoise serves static files pre-compressed
    # above this). BREACH: anonymous public pages carry no secret (base.html renders no
    # CSRF token for them); the logged-in pages and the forms do carry one, and compressing
    # them is safe enough because Django masks the CSRF token afresh in every response and
    # GZipMiddleware pads each response by a random length (its BREACH mitigation). The
    # session id travels only in the cookie, never in a body.
    "tournaments.middleware.Compress",
    # Outside the sessions: drops their Vary: Cookie from anonymous public pages.
    "tournaments.middleware.PublicCache",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The reader's language: the switcher's cookie, else the browser's Accept-Language;
    # on an event's pages, neither matching, the event's own (tournaments.locale).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "tournaments.middleware.DatabaseUnavailable",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "tournaments.urls"

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

WSGI_APPLICATION = "tournaments.wsgi.application"
ASGI_APPLICATION = "tournaments.asgi.application"

DATABASE_URL = os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
try:
    _database = dj_database_url.parse(DATABASE_URL, conn_max_age=60)
except ValueError as exc:  # an unknown scheme or a mangled URL
    raise ImproperlyConfigured(f"DATABASE_URL={DATABASE_URL!r}: {exc}") from exc
if _database["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets phones read while staff write; IMMEDIATE takes the write lock at BEGIN so
    # two result entries queue instead of failing half-way with "database is locked".
    _database["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        # Seconds a write waits for another write (tournaments.locking.LOCK_TIMEOUT_SECONDS).
        "timeout": 5,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    _database["CONN_MAX_AGE"] = 0
# PostgreSQL connections pooled per process (psycopg_pool), at most this many: under ASGI
# (the phones' pool) each request runs in a thread of its own, which would otherwise open
# a connection of its own. 0: one kept connection per thread (CONN_MAX_AGE), for WSGI.
DATABASE_POOL = env_int("DATABASE_POOL", 0)
if DATABASE_POOL and _database["ENGINE"] == "django.db.backends.postgresql":
    _database["CONN_MAX_AGE"] = 0  # Django's pool requires it: the pool keeps them
    _database.setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DATABASE_POOL,
        "timeout": 10,
    }
DATABASES = {"default": _database}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Render the busiest live fragments in the background after each write (tournaments/live.py).
LIVE_PREWARM = env_bool("LIVE_PREWARM", not DEBUG)
# Web Push (issue 29, tournaments/webpush.py): the server process sends the queued
# notifications from a thread of its own; `manage.py send_push` is the same sender apart.
PUSH_SENDER = env_bool("PUSH_SENDER", LIVE_PREWARM)
# The contact push services are given ("mailto:..." or "https://..."); empty: PUBLIC_URL
# when it is https, else a mailto: on the first allowed host (tournaments/vapid.py).
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "")
# Live pages' event streams (tournaments/stream.py) under a WSGI server hold a thread each:
# right for the development server, wrong for gunicorn's few threads, where pages poll.
# Under ASGI (production: gunicorn's uvicorn worker) streams are asynchronous and always on.
LIVE_STREAM_THREADS = env_bool("LIVE_STREAM_THREADS", DEBUG)
# Under ASGI (tournaments/asgi.py) the pages run in this many threads per process.
WEB_THREADS = env_int("WEB_THREADS", 8)
# Event streams one process holds (also bounded by its open-file limit, tournaments/
# stream.py), and from one client address once the process holds half of that: a venue's
# NAT puts every phone behind one address (2,000 phones with two pages open: 4,000
# streams), while one client opening thousands must not take the files the pages need
# (issue 24 item 6). A refused stream is not an error: the page polls instead.
STREAMS_PER_PROCESS = env_int("STREAMS_PER_PROCESS", 10_000)
STREAMS_PER_ADDRESS = env_int("STREAMS_PER_ADDRESS", 1_000)
# "What do I need?" (scoring/outlooks.py): simulations per round, and whether they run in a
# background thread after a write (False: in the writing request, after its commit).
OUTLOOK_SIMULATIONS = env_int("OUTLOOK_SIMULATIONS", 2000)
OUTLOOK_BACKGROUND = env_bool("OUTLOOK_BACKGROUND", True)
# Background runs of one event start at most this often (seconds); writes meanwhile wait
# for the next, which covers them all.
OUTLOOK_EVERY_SECONDS = env_int("OUTLOOK_EVERY_SECONDS", 10)

# Rendered live fragments and login-failure counters. Per process by default; with
# REDIS_URL (production, several gunicorn workers) one render per change serves them all.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    if not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(f"REDIS_URL={REDIS_URL!r} is not a redis:// URL")
    CACHES = {
        # Failures read as misses: a Redis restart costs render time, never a page.
        "default": {"BACKEND": "tournaments.cache.SoftRedisCache", "LOCATION": REDIS_URL}
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Players' rate-limit counters (tournaments/ratelimit.py) go to the cache when it is
# Redis. Without it a locmem cache is each worker's own, and the venue mode runs several
# workers: each counted its own limit, so two let 20 registrations a minute through
# instead of 10 (issue 24 item 12). There they go to a SQLite file in the state
# directory instead, shared by every worker (ratelimit.FileCounter says why not a cache).
RATELIMIT_FILE = os.environ.get("RATELIMIT_FILE", "") or (
    str(STATE_DIR / "ratelimit.sqlite3") if VENUE and not REDIS_URL else ""
)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# Languages shipped (issue 29): each a catalogue in locale/<code>/LC_MESSAGES/django.po,
# compiled (.mo) in the repository. Exports and the JSON API keep English field names.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("fr", "Français"),
    ("de", "Deutsch"),
    ("es", "Español"),
    ("it", "Italiano"),
    ("pt", "Português"),
    ("ja", "日本語"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The switcher's choice (Django's set_language view) outlives the session: a year.
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
# The server's zone (default: the machine's, tournaments.venue.local_zone_name): times the
# organizer reads are shown in an event's own zone (Tournament.time_zone), else in this.
TIME_ZONE = os.environ.get("TIME_ZONE") or venue.local_zone_name()
try:
    ZoneInfo(TIME_ZONE)
except (ValueError, ZoneInfoNotFoundError):
    raise ImproperlyConfigured(
        f"TIME_ZONE={TIME_ZONE!r} is not a time zone (e.g. Europe/Paris)"
    ) from None
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "manage_dashboard"  # "my tournaments", with the create form
LOGOUT_REDIRECT_URL = "home"

DATA_UPLOAD_MAX_MEMORY_SIZE = 20 * 1024 * 1024  # a 2,000-player event's backup

# Behind a TLS-terminating proxy (the production setup), the proxy says which requests
# came in over HTTPS. The header is trusted only when BEHIND_PROXY says a proxy sets it:
# otherwise any client could claim HTTPS.
BEHIND_PROXY = env_bool("BEHIND_PROXY", False)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# How many proxies in front of the app append the client's address to X-Forwarded-For
# (tournaments/clientaddress.py): the client is the entry the outermost one wrote. One
# (the README's nginx) behind a proxy, none otherwise: the header is then never read.
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 1 if BEHIND_PROXY else 0)
if TRUSTED_PROXIES and not BEHIND_PROXY:
    raise ImproperlyConfigured("TRUSTED_PROXIES is set without BEHIND_PROXY=1")

# Login failures (django-axes, counters in the database, so every worker shares them):
# five wrong passwords for one username from one address lock that pair for 15 minutes.
# Not the address alone (a venue's NAT or the TLS proxy would lock out every organizer)
# and not the username alone (anyone could lock out a known organizer).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
# 15 minutes, doubling with each repeated lockout (tournaments.views.auth.cool_off).
AXES_COOLOFF_TIME = "tournaments.views.auth.cool_off"
AXES_ENABLE_ACCESS_FAILURE_LOG = True
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "tournaments.views.auth.locked_out"
AXES_VERBOSE = False
# The client's address by the one rule every limiter uses (TRUSTED_PROXIES above).
AXES_CLIENT_IP_CALLABLE = "tournaments.clientaddress.for_axes"

# A page's address never leaves it: the Referer is the site's origin alone, to other sites
# and to this one (whose proxy logs Referers), as a private link's path holds its token.
# Not `no-referrer`: a form posted from such a page (before htmx loads, or without
# JavaScript) would then carry `Origin: null`, which Django's CSRF check refuses over
# HTTPS. strict-origin sends the origin on HTTPS, nothing on a downgrade to HTTP.
SECURE_REFERRER_POLICY = "strict-origin"

# Password reset needs mail; without a mail server it is not offered at all (the owner
# hands out a new password instead).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
    DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", f"tournaments@{EMAIL_HOST}")

if not DEBUG:
    # The venue mode is plain HTTP on a LAN (no certificate a phone would trust there):
    # a redirect to HTTPS or cookies sent only over HTTPS would lock everyone out.
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not VENUE)
    # The load balancer's and compose's health check speaks plain HTTP inside the network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", not VENUE)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if VENUE else "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# No private link's token in any log line (tournaments/logfilters.py). The loggers that
# write a refused request's path mask it at the source, so that Django's own handlers
# (runserver's request lines, mail to ADMINS) get it masked too; the root's handler masks
# whatever any other logger sends it. django.server is Django's default with the filter.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"mask_tokens": {"()": "tournaments.logfilters.MaskTokens"}},
    "formatters": {
        "django.server": {
            "()": "django.utils.log.ServerFormatter",
            "format": "[{server_time}] {message}",
            "style": "{",
        }
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["mask_tokens"]},
        "django.server": {
            "level": "INFO",
            "class": "logging.StreamHandler",
            "formatter": "django.server",
        },
    },
    "loggers": {
        "django.request": {"filters": ["mask_tokens"]},
        "django.security.csrf": {"filters": ["mask_tokens"]},
        "django.server": {
            "handlers": ["django.server"],
            "level": "INFO",
            "propagate": False,
            "filters": ["mask_tokens"],
        },
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
