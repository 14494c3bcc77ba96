"""Zary settings, read from the environment only.

Development needs no variables at all: SQLite in the project folder, a
server-less Celery transport in ``var/``, a random secret key per checkout.
Production sets at least DEBUG=0, SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL and
CELERY_BROKER_URL (see README.md).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from config.env import development_secret_key, env_bool, env_int, env_list, env_rate, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("ZARY_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", True)

SECRET_KEY = env_str("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = development_secret_key(VAR_DIR / "secret_key")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "django_countries",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "outbox",
    "idempotency",
    # Before clubs: clubs.admin.signin replaces axes' page of attempts.
    "axes",
    # Second factor (TOTP and recovery codes) for officials: clubs/second_factor.py.
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "clubs",
    "games",
    "ratings",
    "analysis",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "base.nul.RefuseNulCharacters",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Public pages kept whole for anonymous visitors, served before the rest (base.pagecache).
    "base.pagecache.AnonymousPageCache",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Whether this session gave a second factor (django-otp), and an official's
    # powers withheld until it has (clubs.second_factor).
    "django_otp.middleware.OTPMiddleware",
    "clubs.second_factor.SecondFactorMiddleware",
    # A retried API write with an Idempotency-Key gets the first answer (idempotency/).
    "idempotency.middleware.IdempotencyKeyMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as axes asks: turns a sign-in that met a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tournaments.navigation.staff_menu",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0 if DEBUG else 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves the web server and the Celery worker at once.
    # WAL lets readers work while one connection writes; IMMEDIATE makes every
    # transaction take the write lock when it begins, so a transaction that read
    # first never finds the lock taken when it wants to write (SQLite answers that
    # with "database is locked" at once, without waiting); the busy timeout makes
    # the others wait their turn instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": env_int("SQLITE_BUSY_TIMEOUT", 30),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        }
    )
# Rendered fragments and other short-lived values (base.httpcache): Redis when
# CACHE_URL names one (shared by every worker process), else each process's memory,
# which needs no server.  Entries are keyed by versions, so they only have to expire.
CACHE_URL = env_str("CACHE_URL", "")
CACHE_TIMEOUT = env_int("CACHE_TIMEOUT", 3600)
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {
        "default": {
            "BACKEND": "base.redis_cache.RedisCache",
            "LOCATION": CACHE_URL,
            "TIMEOUT": CACHE_TIMEOUT,
            "KEY_PREFIX": "zary",
        }
    }
elif CACHE_URL:
    raise ImproperlyConfigured(f"CACHE_URL={CACHE_URL!r} is not a redis:// address")
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "TIMEOUT": CACHE_TIMEOUT,
            # Django's default (300) would not hold one busy event's pages.
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    }
# How long a public page is kept whole for anonymous visitors (seconds; 0: never),
# base.pagecache.  A kept page is dropped as soon as what it shows changes; this
# bounds what has no version (a federation's name) and the memory used.  Off without
# a shared cache: each process's own memory would not hear of the others' changes.
PAGE_CACHE_TIMEOUT = env_int("PAGE_CACHE_TIMEOUT", 300 if CACHE_URL else 0)
# PostgreSQL: the longest a service waits for a row lock (seconds) before it answers
# "busy, try again" (base.locking).
DATABASE_LOCK_TIMEOUT = env_int("DATABASE_LOCK_TIMEOUT", 5)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = env_str("LANGUAGE_CODE", "ru")
LANGUAGES = [("ru", _("Russian")), ("en", _("English"))]
if LANGUAGE_CODE not in {code for code, _name in LANGUAGES}:
    raise ImproperlyConfigured(f"LANGUAGE_CODE={LANGUAGE_CODE!r} is not one of ru, en")
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Europe/Moscow")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "static")))
if DEBUG:
    # collectstatic is for production; WhiteNoise still wants the folder to exist.
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
WHITENOISE_USE_FINDERS = DEBUG
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
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
MEDIA_URL = "media/"
# Uploaded archives of match files (games.models.ArchiveStorage): kept out of
# MEDIA_ROOT, which is served, since a federation's matches are not public files.
ARCHIVE_ROOT = Path(env_str("ARCHIVE_ROOT", str(VAR_DIR / "archives")))
# Jobs that import one archive at once (each file is read and checked in Python:
# one job per worker process the import may use; README "Running in production").
ARCHIVE_IMPORT_JOBS = max(1, env_int("ARCHIVE_IMPORT_JOBS", 2))
# The analysis of recorded matches (analysis.services): which analyser, how deep
# (plies, 1 = the network's own evaluation), the most decisions one match may
# take, and whether a result made official owes its match's analysis.
ANALYSIS_ANALYSER = env_str("ANALYSIS_ANALYSER", "bgsage")
ANALYSIS_DEPTH = max(1, env_int("ANALYSIS_DEPTH", 1))
ANALYSIS_MAX_DECISIONS = max(1, env_int("ANALYSIS_MAX_DECISIONS", 3000))
ANALYSIS_ON_RESULT = env_bool("ANALYSIS_ON_RESULT", True)

# --- Failed sign-ins (django-axes, the policy in clubs/lockout.py; README "Failed
# sign-ins").  axes' backend comes first: it refuses a locked-out sign-in before
# the password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# An account is locked after this many failures from anywhere...
SIGNIN_ACCOUNT_FAILURES = max(1, env_int("SIGNIN_ACCOUNT_FAILURES", 5))
# ...and an address after this many on any accounts (or password reset requests):
# higher, since a club's or a school's members may share one address.
SIGNIN_ADDRESS_FAILURES = max(1, env_int("SIGNIN_ADDRESS_FAILURES", 30))
# The first lockout's length; it doubles for every further limit's worth of failures.
SIGNIN_LOCKOUT_MINUTES = max(1, env_int("SIGNIN_LOCKOUT_MINUTES", 5))
SIGNIN_LOCKOUT_MAX_HOURS = max(1, env_int("SIGNIN_LOCKOUT_MAX_HOURS", 24))
# Proxies in front of the server that append to X-Forwarded-For (clubs.lockout.
# client_address); 0: the client is REMOTE_ADDR.
SIGNIN_PROXY_COUNT = max(0, env_int("SIGNIN_PROXY_COUNT", 0))
# The API's Basic credentials (a password per request) for a legacy client; off, the
# API takes tokens (clubs.tokens) and the site's own session only.
API_BASIC_AUTH = env_bool("API_BASIC_AUTH", False)
AXES_HANDLER = "clubs.lockout.SignInLockoutHandler"
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_FAILURE_LIMIT = SIGNIN_ACCOUNT_FAILURES
# Not the lockout's length (clubs.lockout.cool_off): how long failures are remembered
# after the last one, so that a lockout's successor is longer.  Never shorter than
# the longest lockout.
AXES_COOLOFF_TIME = timedelta(
    hours=max(SIGNIN_LOCKOUT_MAX_HOURS, env_int("SIGNIN_FAILURE_MEMORY_HOURS", 24))
)
AXES_RESET_ON_SUCCESS = True
# A sign-in refused during a lockout is not counted: knocking on a locked account
# does not lengthen its owner's wait.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "clubs.lockout.lockout_response"
AXES_CLIENT_IP_CALLABLE = "clubs.lockout.client_address"
# Successful sign-ins are not logged (the table would grow without end); lockouts
# and their lifting are in the audit log.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False

# Accounts holding a staff, organizer, arbiter, club or federation admin role act
# with those powers only in a session that gave a second factor (clubs.second_factor).
SECOND_FACTOR_FOR_OFFICIALS = env_bool("SECOND_FACTOR_FOR_OFFICIALS", True)
# The issuer an authenticator app shows next to the account's codes.
OTP_TOTP_ISSUER = "Zary"

LOGIN_URL = "clubs:login"
LOGIN_REDIRECT_URL = "clubs:account"
LOGOUT_REDIRECT_URL = "home"

EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "zary@localhost")

# --- Security: strict whenever DEBUG is off; each can be relaxed from the environment.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# --- Celery: a broker that needs no server unless CELERY_BROKER_URL says otherwise.
CELERY_QUEUE_DIR = VAR_DIR / "celery"
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
CELERY_RESULT_BACKEND = env_str(
    "CELERY_RESULT_BACKEND",
    CELERY_BROKER_URL
    if CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
    else f"file://{CELERY_QUEUE_DIR / 'results'}",
)
if CELERY_BROKER_URL.startswith("filesystem://"):
    # The server-less transport needs its folders before anyone publishes.
    for _folder in ("queue", "processed", "control", "results"):
        (CELERY_QUEUE_DIR / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_QUEUE_DIR / "queue"),
        "data_folder_out": str(CELERY_QUEUE_DIR / "queue"),
        "processed_folder": str(CELERY_QUEUE_DIR / "processed"),
        "control_folder": str(CELERY_QUEUE_DIR / "control"),
        "store_processed": False,
    }
CELERY_BROKER_CONNECTION_TIMEOUT = env_int("CELERY_BROKER_CONNECTION_TIMEOUT", 3)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Work is queued through the outbox (outbox.services), which keeps what could not
# be sent and sends it later: a request need not wait long for an absent broker.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 0.5,
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    # Work that could not reach the broker when it was owed (outbox.services).
    "drain-outbox": {"task": "outbox.drain", "schedule": 60},
    "confirm-overdue-results": {"task": "games.confirm_overdue_reports", "schedule": 15 * 60},
    # The rating lists of the 1st of the month, shortly after midnight (local time).
    "publish-monthly-rating-lists": {
        "task": "ratings.publish_monthly_lists",
        "schedule": crontab(minute=15, hour=0, day_of_month=1),
    },
    "expire-idempotency-keys": {"task": "idempotency.expire_keys", "schedule": 60 * 60},
}

# Webhooks may target loopback and private addresses only in development:
# in production an organizer must not make the server call inside its network.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env_bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", DEBUG)

# A reported result not answered within this many hours becomes official.
RESULT_CONFIRMATION_HOURS = env_int("RESULT_CONFIRMATION_HOURS", 48)
# An API write's Idempotency-Key is remembered this long (a retry gets the first answer).
IDEMPOTENCY_KEY_TTL_HOURS = env_int("IDEMPOTENCY_KEY_TTL_HOURS", 24)
# Uploaded match files (.mat, or its text through the API) above this size are refused unread.
MATCH_FILE_MAX_BYTES = env_int("MATCH_FILE_MAX_BYTES", 1024 * 1024)

# Request bodies above this many bytes are refused before they are read (the API
# answers 413, base.parsers; a form 400).  Files in a multipart body do not count.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 2_621_440)

# Request rates (base.throttles), "<count>/<s|m|h|d>" or "off".  Counted in the default
# cache: only a shared one (CACHE_URL, Redis) holds a limit across gunicorn workers.
# Reads are generous: a club hall's players share one address.  Writes that cost
# are counted per user (per address when signed out) and shared by the API and the pages.
THROTTLE_RATES: dict[str, str | None] = {
    # API requests without credentials, per address: 50 phones behind one NAT
    # each polling every 3 seconds stay below it.
    "anon": env_rate("THROTTLE_ANON_RATE", "1200/m"),
    # API requests of one signed-in user or token: ten a second, above any person
    # and a scoreboard or a federation site that mirrors lists.
    "user": env_rate("THROTTLE_USER_RATE", "600/m"),
    # Result reports (API and page; the engine checks a game log or .mat text).
    "reports": env_rate("THROTTLE_REPORTS_RATE", "120/h"),
    # Accounts made from one address: a hall's newcomers signing up at once.
    "signup": env_rate("THROTTLE_SIGNUP_RATE", "60/h"),
    # Password reset requests (each sends an e-mail), per address.
    "password_reset": env_rate("THROTTLE_PASSWORD_RESET_RATE", "20/h"),
    # Second-factor codes typed (signing in, setting up, turning off), per user or address.
    "second_factor": env_rate("THROTTLE_SECOND_FACTOR_RATE", "60/h"),
    # Single .mat/.xg files imported as matches, and whole archives uploaded.
    "imports": env_rate("THROTTLE_IMPORTS_RATE", "60/h"),
    "archives": env_rate("THROTTLE_ARCHIVES_RATE", "10/h"),
    # Analysis requested by hand (the admin's backlog button, "analyse again"):
    # each may queue thousands of matches' worth of a worker's CPU.
    "analysis": env_rate("THROTTLE_ANALYSIS_RATE", "30/h"),
}

REST_FRAMEWORK = {
    "DEFAULT_PARSER_CLASSES": [
        "base.parsers.JSONParser",
        "base.parsers.FormParser",
        "base.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "base.parsers.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # Tokens first: DRF answers missing or wrong credentials with the first class's
    # challenge (401, WWW-Authenticate: Bearer).  Basic reads API_BASIC_AUTH per request.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "clubs.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
        "clubs.authentication.BasicAuthentication",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "base.filters.SearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    # Numbered pages of 100 rows, ?page_size= up to 500 (the sizes live in the class).
    "DEFAULT_PAGINATION_CLASS": "base.pagination.ApiPagination",
    # Rates in THROTTLE_RATES, read per request (base.throttles).
    "DEFAULT_THROTTLE_CLASSES": [
        "base.throttles.AnonymousRateThrottle",
        "base.throttles.SignedInRateThrottle",
        "base.throttles.WriteRateThrottle",
    ],
    # Limits per address count the client the sign-in lockout counts (one setting
    # for both): behind N proxies, N entries from the right of X-Forwarded-For.
    "NUM_PROXIES": SIGNIN_PROXY_COUNT,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Zary API",
    "DESCRIPTION": "Nardy tournaments, clubs, matches and ratings.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Side, winner, loser, proposer...: one schema name for "player 1 or player 2".
    "ENUM_NAME_OVERRIDES": {"PlayerEnum": "games.models.PLAYER_CHOICES"},
    # Setting hooks replaces drf-spectacular's default list: its enum hook comes first.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "idempotency.schema.document_idempotency_key",
        "base.throttles.document_throttling",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # axes writes an INFO line for every failed sign-in it counts or refuses: a guesser
    # would fill the log (and spend the server's time on it); lockouts themselves are
    # in the audit log (clubs.lockout).
    "loggers": {"axes": {"level": env_str("SIGNIN_LOG_LEVEL", "WARNING")}},
}
