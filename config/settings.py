"""Settings for the Gin Rummy service, read from the environment.

One module for every environment, long on purpose (as healthchecks' settings are): a deployer
reads every setting, its default and its check in one place. With nothing set, the service
runs *embedded*: SQLite in ``var/`` and Celery tasks run in-process (no broker). With
``DATABASE_URL`` and ``CELERY_BROKER_URL`` it runs on PostgreSQL and Redis with real workers.
Every variable is listed, with its default, in docs/configuration.md (a test keeps it so).

A bad value stops start-up with a message that names the variable (see the ``env_*`` helpers).
"""

import ipaddress
import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def env_str(name: str, default: str = "") -> str:
    """The variable's value, or ``default`` when it is unset or empty."""
    value = os.environ.get(name, "").strip()
    return value or default


def env_bool(name: str, default: bool) -> bool:
    """A yes/no variable: 1/0, true/false, yes/no, on/off (any case). Unset or empty: default."""
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={os.environ[name]!r} is not a boolean: use 1/0, true/false, yes/no or on/off"
    )


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    """An integer variable, at least ``minimum`` when given. Unset or empty: default."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} is too small: the minimum is {minimum}")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (any case). Unset or empty: default."""
    value = env_str(name, default).lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} is not one of: {', '.join(choices)}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; blanks around items and empty items are dropped."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


# --- Core -----------------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", False)

# Runtime files (SQLite database, collected static files, cluster pidfiles and logs).
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set it to a long random string in production, "
            "or set DEBUG=1 for local development (which uses a built-in development key)."
        )
    SECRET_KEY = "django-insecure-development-only-key-never-use-in-production"

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else []
)
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured(
        "ALLOWED_HOSTS is not set: with DEBUG off, list the host names this service answers "
        "to, comma-separated (e.g. ALLOWED_HOSTS=rummy.example.org)."
    )
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # Before staticfiles, so that runserver serves static files through WhiteNoise too.
    "whitenoise.runserver_nostatic",
    "config.admin_site.AdminConfig",  # django.contrib.admin, ordered for organisers
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "games",
    "tournaments",
    "ladders",
    "bots",
    "web",
    "axes",  # sign-in lockout
    "csp",  # the Content-Security-Policy header
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The page's language: the browser's Accept-Language (or the language cookie)...
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # ... unless the signed-in person chose one on their account (accounts/language.py).
    "accounts.language.AccountLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A database or Redis outage outside DRF's views is a 503, not a 500 (DRF's own views
    # answer it in common.api.exception_handler).
    "common.api.OutageMiddleware",
    # The Content-Security-Policy header on every answer (common/csp.py).
    "common.csp.CSPMiddleware",
    # Last: turns a sign-in refused for a lockout into the lockout answer (accounts/lockout.py).
    "axes.middleware.AxesMiddleware",
]
# Every request timed by its route for /metrics (common.metrics), outermost but for security.
MIDDLEWARE.insert(1, "common.metrics.RequestMetricsMiddleware")
# At most this many requests at once in a web process's middleware and views, the rest
# waiting their turn on its event loop (common/admission.py says why; 0: no limit). ASGI only.
WEB_VIEW_CONCURRENCY = env_int("WEB_VIEW_CONCURRENCY", 2, minimum=0)

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------

_DEFAULT_DATABASE_URL = f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
try:
    _database = dj_database_url.parse(env_str("DATABASE_URL", _DEFAULT_DATABASE_URL))
except ValueError as exc:  # unknown scheme or unparsable URL
    raise ImproperlyConfigured(f"DATABASE_URL is not a usable database URL: {exc}") from None

if _database["ENGINE"] == "django.db.backends.sqlite3":
    # Embedded mode: IMMEDIATE transactions take the write lock up front, so two writers wait
    # for each other (busy timeout) instead of failing with "database is locked" mid-transaction;
    # WAL lets readers go on while one writer works.
    _database["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        **_database.get("OPTIONS", {}),
    }
else:
    # Persistent connections: about a minute, checked before reuse (measured on two cores:
    # 218 against 514 or more requests/s without and with them).
    _database["CONN_MAX_AGE"] = env_int("DB_CONN_MAX_AGE", 60, minimum=0)
    _database["CONN_HEALTH_CHECKS"] = True
    # A PostgreSQL that does not answer (a host gone from the network, a paused server) fails
    # a new connection after this many seconds (libpq's least is 2) instead of after minutes.
    # Not shorter: on two busy cores a local connection has taken over 3 s to be set up. The
    # health check has its own, shorter, and a web process's requests wait DB_POOL_TIMEOUT.
    _database.setdefault("OPTIONS", {})["connect_timeout"] = env_int(
        "DB_CONNECT_TIMEOUT", 10, minimum=2
    )
    # The hot path's statements (common/compiled.py: a move's reads and writes, the token's
    # sign-in) are prepared on each connection the first time they run: planning the joined
    # reads cost PostgreSQL several times their execution. Every other query keeps Django's
    # client-side binding and is never prepared. Off (0) behind a pooler that cannot keep
    # prepared statements (PgBouncer in transaction mode before 1.21).
    if env_bool("DB_PREPARED_STATEMENTS", True):
        _database["OPTIONS"].setdefault("prepare_threshold", 0)
    # A pool per process (psycopg's), for the ASGI web processes (deploy/gunicorn.conf.py
    # sets it): there every request and every socket's database call runs on a thread of its
    # own, and persistent connections, one per thread, would run PostgreSQL out of them.
    DB_POOL_MAX_SIZE = env_int("DB_POOL_MAX_SIZE", 0, minimum=0)
    if DB_POOL_MAX_SIZE:
        _database["CONN_MAX_AGE"] = 0  # the pool keeps the connections
        # CONN_HEALTH_CHECKS makes the pool check a connection before handing it out (one
        # empty query): after PostgreSQL restarts, the connections it kept are broken, and
        # each would otherwise fail a request once the database is back.
        _database["OPTIONS"]["pool"] = {
            "min_size": min(2, DB_POOL_MAX_SIZE),
            "max_size": DB_POOL_MAX_SIZE,
            # A request waits this long for a connection, then it is a 503 (OperationalError),
            # not a hang. A process's requests never need more connections at once than the
            # pool holds (its view slots and socket threads), so only a database that cannot
            # be reached makes one wait.
            "timeout": env_int("DB_POOL_TIMEOUT", 3, minimum=1),
            # A connection that cannot be made is tried again after 1 s and given up after
            # this long; the next request to wait for one starts a new attempt at once. With
            # psycopg's default (5 min, the pauses doubling) and requests holding their slots
            # for 10 s, a process answered 503 for 8 s or more after PostgreSQL was back.
            "reconnect_timeout": 2,
        }
DATABASES = {"default": _database}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache (DRF throttling counters live here) ----------------------------------------------

REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    # Shared by every web process, so throttling counts across gunicorn workers.
    CACHES = {
        "default": {
            "BACKEND": "common.cache.RedisCache",  # Django's, its clients kept
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "ginrummy",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Live play: the channel layer that carries pushes to sockets (common/live.py) --------------

# The Redis layer: "lists" (the default, Channels' RedisChannelLayer) copies a push into a
# list per socket, popped one round trip a message; "pubsub" sends a push with one PUBLISH
# per group and each process reads every message for its sockets from one subscription.
# Measured side by side (bench/live.py, same machine, same minutes): pub/sub brought a move
# to the opponent's socket in about half the time, but with 1,800 spectators opening sockets
# as the people played, most of the spectators' sockets failed to open in time while the
# lists layer opened all of them; so lists stays the default until that is understood.
# Pub/sub keeps nothing for a process that is not subscribed (Redis restarting): every push
# carries a sequence number, and a socket that misses one resynchronises.
CHANNEL_LAYER = env_choice("CHANNEL_LAYER", "lists", ("lists", "pubsub"))
# The "lists" layer (and the embedded one) drop a message for a socket whose channel holds
# this many unread ones. A busy table receives a few messages a second: 500 is minutes.
CHANNEL_CAPACITY = env_int("CHANNEL_CAPACITY", 500, minimum=10)
# REDIS_URL; without it, a Redis broker's URL (the workers publish through it too).
_broker = env_str("CELERY_BROKER_URL")
CHANNEL_REDIS_URL = REDIS_URL or (_broker if _broker.startswith(("redis://", "rediss://")) else "")
if CHANNEL_REDIS_URL and CHANNEL_LAYER == "pubsub":
    # Shared by every web process and worker: a push from any of them reaches every socket.
    # Redis's pub/sub channels belong to the whole server, not to a database number, so the
    # prefix names the database: two services on one Redis (databases 1 and 2) stay apart.
    _redis_db = urlsplit(CHANNEL_REDIS_URL).path.strip("/") or "0"
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [{"address": CHANNEL_REDIS_URL}],
                "prefix": f"ginrummy:live:{_redis_db}:",
            },
        }
    }
elif CHANNEL_REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # A consumer waits for its messages with BZPOPMIN for up to 5 s; redis-py's
                # default read timeout (5 s) would end that wait, and the socket with it,
                # whenever the answer comes a hair late (a busy machine).
                "hosts": [{"address": CHANNEL_REDIS_URL, "socket_timeout": 30}],
                "prefix": "ginrummy:live",
                "capacity": CHANNEL_CAPACITY,
                "expiry": 60,
                "group_expiry": 24 * 3600,
            },
        }
    }
else:
    # Embedded: one process serves every socket.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "common.live.InMemoryChannelLayer",
            "CONFIG": {"capacity": CHANNEL_CAPACITY, "expiry": 60},
        }
    }
# A socket message larger than this is refused (error "too_large"), and one socket may send
# at most this many messages a second (more are answered "throttled").
SOCKET_MAX_MESSAGE_BYTES = env_int("SOCKET_MAX_MESSAGE_BYTES", 16_384, minimum=256)
SOCKET_RATE_PER_SECOND = env_int("SOCKET_RATE_PER_SECOND", 20, minimum=1)
# Sockets one web process holds open at once for one client address (as the throttles see
# it) and for one signed-in user; one more is closed with 4429. 0: no cap.
SOCKET_MAX_PER_ADDRESS = env_int("SOCKET_MAX_PER_ADDRESS", 64, minimum=0)
SOCKET_MAX_PER_USER = env_int("SOCKET_MAX_PER_USER", 16, minimum=0)
# Threads of a web process that do its sockets' database work (moves, views on connect).
# 0: Channels' default, one thread.
SOCKET_DB_THREADS = env_int("SOCKET_DB_THREADS", 4, minimum=0)
# How long a socket trusts the last check of its sign-in. Revocations are pushed to the
# sockets they end (common.sockets); this bounds how late one whose push was lost (the channel
# layer down) is noticed. 0: every message checks the token or session again.
SOCKET_SIGNIN_RECHECK_SECONDS = env_int("SOCKET_SIGNIN_RECHECK_SECONDS", 60, minimum=0)
# The class that checks a socket's "Authorization: Token <token>" (common/sockets.py): the
# REST API's token authentication, so a socket and a request sign in with the same tokens.
SOCKET_AUTHENTICATION = "accounts.auth.TokenAuthentication"
# Bot API streams (NDJSON): an empty line this often keeps each one alive; at most this many
# open at once per bot (one more is a 429); a stream not seen for the stale time is gone.
BOT_STREAM_KEEPALIVE_SECONDS = env_int("BOT_STREAM_KEEPALIVE_SECONDS", 5, minimum=1)
BOT_STREAMS_MAX = env_int("BOT_STREAMS_MAX", 16, minimum=2)
BOT_STREAM_STALE_SECONDS = 4 * BOT_STREAM_KEEPALIVE_SECONDS
# Match analysis (games.services.analysis, docs/analysis.md): samples of the hidden cards per
# decision, and the CPU seconds one step of the batch task spends before it saves its rows
# and queues the next step.
ANALYSIS_SAMPLES = env_int("ANALYSIS_SAMPLES", 16, minimum=1)
ANALYSIS_STEP_SECONDS = env_int("ANALYSIS_STEP_SECONDS", 20, minimum=1)
# Fair play in rating pools (ladders.services.fairplay, docs/fair-play.md): every rated match
# between people analysed in the background; an account whose agreement with the house expert
# is implausible for its rating band is flagged for review. The default ceilings come from
# `make bench-fairplay` (simulated honest players of every strength).
FAIRPLAY_ANALYSE = env_bool("FAIRPLAY_ANALYSE", True)
FAIRPLAY_ALPHA = 1e-4
FAIRPLAY_MIN_DECISIONS = env_int("FAIRPLAY_MIN_DECISIONS", 30, minimum=1)
FAIRPLAY_CEILING_DRAWS = 0.965
FAIRPLAY_CEILING_DISCARDS = 0.956
FAIRPLAY_BAND = env_int("FAIRPLAY_BAND", 150, minimum=1)
FAIRPLAY_BAND_ACCOUNTS = env_int("FAIRPLAY_BAND_ACCOUNTS", 20, minimum=2)

# --- Auth -----------------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Sign-in tokens (django-rest-knox): stored hashed, expire, revocable one by one or all at once.
# Sign-in lockout (django-axes): after SIGN_IN_FAILURE_LIMIT wrong passwords for one username
# from one client address, further sign-ins for it from there are refused (429 locked_out),
# and after SIGN_IN_ADDRESS_FAILURE_LIMIT from one address, whatever the usernames, every
# sign-in from there is, until SIGN_IN_COOLOFF_MINUTES have passed since the last counted
# failure: the web sign-in, the admin's and the API's alike. A username alone is never locked,
# or anyone could lock anyone out. Failures are rows in the database, in both modes; a success
# does not wipe them (it would let one's own account reset an address's count).
AUTHENTICATION_BACKENDS = [
    "accounts.lockout.LockoutBackend",  # django-axes's
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("SIGN_IN_FAILURE_LIMIT", 5, minimum=1)
SIGN_IN_ADDRESS_FAILURE_LIMIT = env_int("SIGN_IN_ADDRESS_FAILURE_LIMIT", 20, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("SIGN_IN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]  # the pair; the address
AXES_HANDLER = "accounts.lockout.LockoutHandler"  # the address's own limit
AXES_RESET_ON_SUCCESS = False
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the cool-down is a fixed time
AXES_CLIENT_IP_CALLABLE = "accounts.lockout.client_address"  # the throttles' (NUM_PROXIES)
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
AXES_DISABLE_ACCESS_LOG = True  # failures only, not a row for every successful sign-in
AXES_VERBOSE = False

# Password reset by e-mail (Django's own views and tokens): a link is good for this long, and
# once (a token is bound to the password it resets).
PASSWORD_RESET_TIMEOUT = 3600 * env_int("PASSWORD_RESET_HOURS", 24, minimum=1)

# --- E-mail ---------------------------------------------------------------------------------

# Without EMAIL_HOST (the embedded default) mail is written to the console (the process's
# output); with it, sent over SMTP.
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Gin Rummy <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# The site's own address, for the links in e-mails (a mail has no request to take it from).
# Default: https:// and the first plain host of ALLOWED_HOSTS; with DEBUG, the development
# server's http://localhost:8000.
_site_host = next((h for h in ALLOWED_HOSTS if h and not h.startswith((".", "*"))), "")
SITE_URL = env_str(
    "SITE_URL",
    "http://localhost:8000" if DEBUG or not _site_host else f"https://{_site_host}",
).rstrip("/")
if urlsplit(SITE_URL).scheme not in ("http", "https") or not urlsplit(SITE_URL).netloc:
    raise ImproperlyConfigured(
        f"SITE_URL must be the site's address with http:// or https:// (got {SITE_URL!r}), "
        "e.g. SITE_URL=https://rummy.example.org"
    )

REST_KNOX = {
    "TOKEN_TTL": timedelta(hours=env_int("TOKEN_TTL_HOURS", 10, minimum=1)),
    "TOKEN_LIMIT_PER_USER": None,
    "AUTO_REFRESH": False,
}

# --- Ratings ---------------------------------------------------------------------------------

# Rating farming: of the rated matches between the same two humans in a pool within the
# window, only the first RATING_PAIR_LIMIT count (ladders.services.farmed).
RATING_PAIR_LIMIT = env_int("RATING_PAIR_LIMIT", 3, minimum=1)
RATING_PAIR_WINDOW_HOURS = env_int("RATING_PAIR_WINDOW_HOURS", 24, minimum=1)
# A rated match resigned before each player has made this many moves of their own is
# recorded without counting (ladders.services.rating_exemption).
RATING_MIN_MOVES = env_int("RATING_MIN_MOVES", 4, minimum=0)

# --- Internationalisation -------------------------------------------------------------------

# The site speaks these; a page's language is the account's choice, else the browser's
# Accept-Language, else English. The catalogues are locale/<lang>/LC_MESSAGES/*.po, compiled
# to .mo by make (docs/translation.md).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files (served by WhiteNoise) ----------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns about a missing directory before collectstatic
# In development WhiteNoise serves straight from the apps' static folders (no collectstatic);
# decided here, from the environment, because test runners switch settings.DEBUG off later.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed files in production; needs `manage.py collectstatic`.
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- HTTPS and security headers (production defaults; `check --deploy` is clean) ------------

SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# Load balancers probe over plain HTTP; the health report must not bounce to HTTPS.
SECURE_REDIRECT_EXEMPT = [r"^api/health$"]
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    # Only behind a proxy that sets this header itself; otherwise clients could forge it.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Scripts, styles, images and fonts from this site only, never inline (the pages' scripts are
# files in web/static/web/js); API calls and sockets to this origin only (common/csp.py adds
# ws:// and wss:// of the page's own host); no frames, plugins or foreign form targets.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# --- REST API -------------------------------------------------------------------------------

# The largest request body read, in bytes: forms (Django) and the API's JSON (common.parsers,
# which answers 413 over it). The API's bodies are a few hundred bytes.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_REQUEST_BODY_BYTES", 64 * 1024, minimum=1024)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # knox's tokens; an external bot's token only on the routes a bot may use.
        "accounts.auth.TokenAuthentication",
        # The web pages added later sign in with sessions.
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Anonymous users read public data only.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_RENDERER_CLASSES": [
        # DRF's JSON renderer, written by orjson (common/json_codec.py).
        "common.json_codec.JSONRenderer",
        *(["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
    ],
    # JSON bodies only: one format to validate and document (the pages send JSON too).
    # Bounded size and nesting (common/parsers.py).
    "DEFAULT_PARSER_CLASSES": ["common.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "common.api.PageNumberPagination",
    "PAGE_SIZE": env_int("API_PAGE_SIZE", 20, minimum=1),
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
        "rest_framework.throttling.ScopedRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("THROTTLE_ANON_RATE", "120/min"),
        "user": env_str("THROTTLE_USER_RATE", "600/min"),
        "sign-in": env_str("THROTTLE_SIGN_IN_RATE", "10/min"),
        "register": env_str("THROTTLE_REGISTER_RATE", "10/hour"),
        "password-reset": env_str("THROTTLE_PASSWORD_RESET_RATE", "5/hour"),
        "play": env_str("THROTTLE_PLAY_RATE", "300/min"),
    },
    # Proxies in front that append to X-Forwarded-For; 0 uses the peer address, so a client
    # cannot pick its own throttling identity by sending the header itself.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0, minimum=0),
    "EXCEPTION_HANDLER": "common.api.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

# The schema (/api/schema/) and the interactive docs (/api/docs/): public when set, else for
# staff only (signed in to the admin, or with a staff user's token).
API_DOCS_PUBLIC = env_bool("API_DOCS_PUBLIC", DEBUG)

SPECTACULAR_SETTINGS = {
    "TITLE": "Gin Rummy service API",
    "DESCRIPTION": "Players and accounts, play (challenges, matches, moves, replays), "
    "tournaments and ladders. Every error answers as `Error`; each operation lists the codes "
    "it can give per status. Programs play as external bots over the Bot API: its NDJSON "
    "streams (`/api/bot/stream/event`, `/api/bot/game/stream/{game}`) are described in "
    "docs/bots.md (Write a bot) in the repository.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Request bodies get components of their own: read-only fields are not asked for, and
    # required text fields say they may not be empty (minLength 1).
    "COMPONENT_SPLIT_REQUEST": True,
    # Every operation also lists the error answers it can give (common/schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.schema.document_errors",
    ],
    # Swagger UI from the installed sidecar package: the docs work without a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several models have a "status"; give each choice set its own schema name.
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "games.models.Match.Status",
        "GameStatusEnum": "games.models.Game.Status",
        "HealthStatusEnum": ["ok", "error"],
        "PlayerKindEnum": "accounts.models.Player.Kind",
        "LadderKindEnum": "ladders.models.Ladder.Kind",
        "MatchVenueEnum": "games.models.Match.Venue",
        "EventVenueEnum": "tournaments.models.Venue",
        "TableHandKindEnum": "games.models.TableHand.Kind",
    },
}

# --- Metrics (common/metrics.py) -------------------------------------------------------------

# /metrics answers these addresses or networks, and anyone with "Authorization: Bearer
# <METRICS_TOKEN>" when that is set; everyone else gets a 404. "none": no address, the token
# only (behind a proxy, whose clients on its own host arrive as loopback).
METRICS_ALLOWED_IPS = env_list("METRICS_ALLOWED_IPS", ["127.0.0.1", "::1"])


def metrics_networks(items: list[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The networks of ``METRICS_ALLOWED_IPS`` (none for ``none``); a bad one stops start-up."""
    if [item.lower() for item in items] == ["none"]:
        return []
    try:
        return [ipaddress.ip_network(item, strict=False) for item in items]
    except ValueError as error:
        raise ImproperlyConfigured(f"METRICS_ALLOWED_IPS: {error}") from None


METRICS_ALLOWED_NETWORKS = metrics_networks(METRICS_ALLOWED_IPS)
METRICS_TOKEN = env_str("METRICS_TOKEN")

# --- Celery (see config/celery.py and docs/operations.md) ------------------------------------

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
# Embedded mode: no broker, tasks run in-process. `task.delay_on_commit(...)` is the one code
# path either way: embedded, the task runs after the commit on the in-process worker's threads
# (common/embedded.py), or with EMBEDDED_WORKER=inline right after the commit in the same thread.
CELERY_EMBEDDED = not CELERY_BROKER_URL
CELERY_TASK_ALWAYS_EAGER = CELERY_EMBEDDED
CELERY_TASK_EAGER_PROPAGATES = CELERY_EMBEDDED
# "threads": background threads in two lanes, so no request waits for the work it queued;
# "inline": in the committing thread (the unit tests: their transactions never commit).
EMBEDDED_WORKER = env_str("EMBEDDED_WORKER", "threads")
if EMBEDDED_WORKER not in ("threads", "inline"):
    raise ImproperlyConfigured(
        f"EMBEDDED_WORKER={EMBEDDED_WORKER!r} is not a worker kind: use threads or inline"
    )
# Who waits for a task decides where it runs. *Interactive*: a person waits (a bot's reply to
# them, a clock settled, matchmaking and ladder starts, pushes); *batch*: nobody does (whole
# bot matches, event advancement, webhooks, rating replays). Each app declares its play tasks
# (common.lanes.play_tasks, from its AppConfig.ready); this setting, when set, replaces them
# all (names or fnmatch patterns; every other task is batch). Embedded these are the
# in-process worker's two lanes; distributed, the two Celery queues of the same names
# (config.celery.route_task), each with workers of its own so batch work never holds up a
# person (deploy/cluster.py, deploy/compose.yaml).
INTERACTIVE_TASKS = env_list("INTERACTIVE_TASKS", [])
EMBEDDED_INTERACTIVE_THREADS = env_int("EMBEDDED_INTERACTIVE_THREADS", 2, minimum=1)
EMBEDDED_BATCH_THREADS = env_int("EMBEDDED_BATCH_THREADS", 2, minimum=1)
CELERY_RESULT_BACKEND = (
    env_str(
        "CELERY_RESULT_BACKEND", CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else ""
    )
    or None
)
CELERY_RESULT_EXPIRES = 3600
# Tasks not named in INTERACTIVE_TASKS (and a client that names no queue) go to "batch".
CELERY_TASK_DEFAULT_QUEUE = "batch"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
# At least once: ack after the task ran, requeue it if its worker process dies mid-task
# (without reject-on-worker-lost such a task is lost). Tasks must therefore be idempotent.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker that loses the broker stops its running tasks (they cannot be acknowledged any more;
# the broker hands them out again) and reconnects, at start-up too, for as long as it takes.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# kombu's Redis transport, fixed so that a worker survives a Redis restart (common/broker.py).
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT = "common.broker:Transport"
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 120, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 180, minimum=1)
# Redis hands an unacknowledged message to another worker after this many seconds. It must
# outlast the longest task and the longest countdown, or healthy tasks run twice.
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 300, minimum=1)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    # kombu looks for messages past their visibility timeout when a worker starts and then
    # only every interval x throttle seconds (10 x 10 by default): a worker restarted at once
    # after a crash would wait up to 100 s more for the dead worker's task. Look often.
    "unacked_restore_interval": max(1, min(10, CELERY_VISIBILITY_TIMEOUT // 4)),
    "unacked_restore_throttle": 1,
    # A worker on both queues (-Q interactive,batch) always takes interactive work first;
    # kombu's default takes from its queues in turn.
    "queue_order_strategy": "priority",
}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
if CELERY_TASK_SOFT_TIME_LIMIT > CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured(
        f"CELERY_TASK_SOFT_TIME_LIMIT ({CELERY_TASK_SOFT_TIME_LIMIT} s) must not exceed "
        f"CELERY_TASK_TIME_LIMIT ({CELERY_TASK_TIME_LIMIT} s)"
    )
if CELERY_VISIBILITY_TIMEOUT <= CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured(
        f"CELERY_VISIBILITY_TIMEOUT ({CELERY_VISIBILITY_TIMEOUT} s) must exceed "
        f"CELERY_TASK_TIME_LIMIT ({CELERY_TASK_TIME_LIMIT} s): otherwise Redis hands a task "
        "that is still running to a second worker"
    )
# Keep a worker's database connection across tasks. Celery's Django fix-up closes it around
# every task unless this is set; it then closes it only every this-many tasks. Between tasks
# config/celery.py also applies CONN_MAX_AGE and the health check, as Django does per request.
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 1000, minimum=0)
# A task redelivered this many times (its worker died each time) is dropped with an error log,
# so one poison message cannot crash workers forever. See config.celery.Task.
CELERY_TASK_MAX_REDELIVERIES = env_int("CELERY_TASK_MAX_REDELIVERIES", 5, minimum=1)
# Embedded mode has no beat: each web process runs the periodic tasks the apps declare
# (common.periodic: expired clocks, lost bot work, ladder and tournament catch-up) itself, most
# once a second; see common/embedded.py. Distributed, beat runs the same schedule
# (config.celery sets beat_schedule from it).
EMBEDDED_CLOCK_SWEEP = env_bool("EMBEDDED_CLOCK_SWEEP", True)
# A change queues a countdown task to its game's deadline (games.settle_clock, a shortcut)
# only when the deadline is at most this many seconds away: the clocks' sweep (every second)
# settles every deadline anyway, and a farther one nearly always moves first (the player
# moves), so its countdown would cost a task for nothing. 0: no countdowns.
CLOCK_COUNTDOWN_SECONDS = env_int("CLOCK_COUNTDOWN_SECONDS", 10, minimum=0)

# --- Webhooks -------------------------------------------------------------------------------

# Webhooks go only to https URLs on public addresses (tournaments/webhooks.py). Plain http is
# for local development; loopback and private addresses only for a receiver on this machine
# (development and tests), never in production: they would let an organiser reach internals.
WEBHOOK_ALLOW_HTTP = env_bool("WEBHOOK_ALLOW_HTTP", DEBUG)
WEBHOOK_ALLOW_PRIVATE = env_bool("WEBHOOK_ALLOW_PRIVATE", False)

# --- Logging --------------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # django-axes logs every failed sign-in at INFO; its warnings (each lockout) are enough.
    "loggers": {"axes": {"level": "WARNING"}},
}
