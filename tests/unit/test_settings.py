"""Settings come from the environment and stop start-up loudly on bad values."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings import env_bool, env_int, env_list

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "x7Jq2pVd9LmR4tWz8YcN3bKf6HsG1aEo5UiTyXrQvBnMlPkZjDw0",
    "ALLOWED_HOSTS": "rummy.example.org",
}


def manage(*args: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """Run manage.py in a fresh process with a clean project environment plus ``env``."""
    ours = {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "CELERY_BROKER_URL"}
    base = {k: v for k, v in os.environ.items() if k not in ours and not k.startswith("SECURE_")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, "VAR_DIR": str(tmp_path), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_env_bool_reads_the_usual_spellings(monkeypatch):
    for raw, value in [("1", True), ("Yes", True), ("on", True), ("0", False), ("FALSE", False)]:
        monkeypatch.setenv("FLAG", raw)
        assert env_bool("FLAG", not value) is value
    monkeypatch.setenv("FLAG", "")
    assert env_bool("FLAG", True) is True


def test_env_bool_names_the_variable_on_a_bad_value(monkeypatch):
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG='maybe' is not a boolean"):
        env_bool("FLAG", False)


def test_env_int_checks_type_and_minimum(monkeypatch):
    monkeypatch.setenv("COUNT", "12")
    assert env_int("COUNT", 1) == 12
    monkeypatch.setenv("COUNT", "twelve")
    with pytest.raises(ImproperlyConfigured, match="COUNT='twelve' is not an integer"):
        env_int("COUNT", 1)
    monkeypatch.setenv("COUNT", "-1")
    with pytest.raises(ImproperlyConfigured, match="COUNT=-1 is too small"):
        env_int("COUNT", 1, minimum=0)


def test_env_list_splits_on_commas(monkeypatch):
    monkeypatch.setenv("HOSTS", " a.example , b.example,, ")
    assert env_list("HOSTS", []) == ["a.example", "b.example"]
    monkeypatch.delenv("HOSTS")
    assert env_list("HOSTS", ["x"]) == ["x"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DEBUG": "0"}, "SECRET_KEY is not set"),
        ({**PRODUCTION, "ALLOWED_HOSTS": ""}, "ALLOWED_HOSTS is not set"),
        ({"DEBUG": "maybe"}, "DEBUG='maybe' is not a boolean"),
        ({"DEBUG": "1", "DATABASE_URL": "nosuchdb://x/y"}, "DATABASE_URL is not a usable"),
        ({"DEBUG": "1", "TOKEN_TTL_HOURS": "ten"}, "TOKEN_TTL_HOURS='ten' is not an integer"),
        (
            {"DEBUG": "1", "CELERY_VISIBILITY_TIMEOUT": "60"},
            "CELERY_VISIBILITY_TIMEOUT (60 s) must exceed CELERY_TASK_TIME_LIMIT (180 s)",
        ),
        ({"DEBUG": "1", "EMBEDDED_WORKER": "eager"}, "EMBEDDED_WORKER='eager' is not a worker"),
    ],
    ids=[
        "no-secret-key",
        "no-hosts",
        "bad-bool",
        "bad-db-url",
        "bad-int",
        "short-visibility",
        "bad-worker",
    ],
)
def test_bad_settings_stop_start_up_naming_the_variable(tmp_path, env, message):
    result = manage("check", tmp_path=tmp_path, **env)

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def test_production_settings_pass_the_deployment_checklist(tmp_path):
    result = manage("check", "--deploy", "--fail-level", "WARNING", tmp_path=tmp_path, **PRODUCTION)

    assert result.returncode == 0, result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


EMAIL_SETTINGS = (
    "from django.conf import settings as s; "
    "print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_HOST_USER, "
    "s.EMAIL_HOST_PASSWORD, s.EMAIL_USE_TLS, s.DEFAULT_FROM_EMAIL, sep='|')"
)


def test_e_mail_goes_to_the_console_without_an_smtp_host(tmp_path):
    result = manage("shell", "--no-imports", "-c", EMAIL_SETTINGS, tmp_path=tmp_path, DEBUG="1")
    assert result.returncode == 0, result.stderr
    backend = result.stdout.strip().split("|")[0]
    assert backend == "django.core.mail.backends.console.EmailBackend"


def test_e_mail_goes_through_smtp_from_the_environment(tmp_path):
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        EMAIL_SETTINGS,
        tmp_path=tmp_path,
        DEBUG="1",
        EMAIL_HOST="smtp.example.org",
        EMAIL_PORT="2525",
        EMAIL_HOST_USER="mailer",
        EMAIL_HOST_PASSWORD="s3cret",
        EMAIL_USE_TLS="off",
        DEFAULT_FROM_EMAIL="Rummy <rummy@example.org>",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().split("|") == [
        "django.core.mail.backends.smtp.EmailBackend",
        "smtp.example.org",
        "2525",
        "mailer",
        "s3cret",
        "False",
        "Rummy <rummy@example.org>",
    ]


def test_a_bad_e_mail_port_stops_start_up(tmp_path):
    result = manage("check", tmp_path=tmp_path, DEBUG="1", EMAIL_PORT="smtp")
    assert result.returncode != 0
    assert "EMAIL_PORT='smtp' is not an integer" in result.stderr


SITE_URL = "from django.conf import settings as s; print(s.SITE_URL)"


def test_the_site_url_for_e_mail_links_defaults_to_the_first_host_over_https(tmp_path):
    production = {**PRODUCTION, "ALLOWED_HOSTS": ".example.org,rummy.example.org"}
    result = manage("shell", "--no-imports", "-c", SITE_URL, tmp_path=tmp_path, **production)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "https://rummy.example.org"
    given = {**PRODUCTION, "SITE_URL": "https://cards.example.org:8443/"}
    result = manage("shell", "--no-imports", "-c", SITE_URL, tmp_path=tmp_path, **given)
    assert result.stdout.strip() == "https://cards.example.org:8443"


def test_a_site_url_without_http_or_https_stops_start_up(tmp_path):
    result = manage("check", tmp_path=tmp_path, DEBUG="1", SITE_URL="rummy.example.org")
    assert result.returncode != 0
    assert "SITE_URL must be the site's address with http:// or https://" in result.stderr


def test_the_redis_channel_layer_outwaits_its_own_blocking_receive(tmp_path):
    # A consumer's receive blocks in BZPOPMIN for the layer's brpop_timeout; a read timeout
    # no longer than that ends the wait with an error, and the consumer and its socket die.
    check = (
        "from channels.layers import get_channel_layer; "
        "from channels_redis.utils import create_pool; "
        "layer = get_channel_layer(); "
        "pool = create_pool(layer.hosts[0]); "
        "print('timeouts', pool.connection_kwargs['socket_timeout'], layer.brpop_timeout)"
    )
    done = manage(
        "shell",
        "-c",
        check,
        tmp_path=tmp_path,
        DEBUG="1",
        REDIS_URL="redis://127.0.0.1:6379/9",
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("timeouts "))
    socket_timeout, blocking = (float(x) for x in line.split()[1:])
    assert socket_timeout > blocking + 5


def test_the_pub_sub_channel_layer_is_kept_apart_by_database_number(tmp_path):
    # Redis's pub/sub channels are server-wide: two services on databases 3 and 4 of one Redis
    # must not hear each other's pushes, so the prefix names the database.
    check = (
        "from django.conf import settings; "
        "c = settings.CHANNEL_LAYERS['default']; "
        "print('layer', c['BACKEND'], c['CONFIG']['prefix'])"
    )
    prefixes = set()
    for db in (3, 4):
        done = manage(
            "shell",
            "-c",
            check,
            tmp_path=tmp_path,
            DEBUG="1",
            REDIS_URL=f"redis://127.0.0.1:6379/{db}",
            CHANNEL_LAYER="pubsub",
        )
        assert done.returncode == 0, done.stderr
        line = next(x for x in done.stdout.splitlines() if x.startswith("layer "))
        backend, prefix = line.split()[1:]
        assert backend == "channels_redis.pubsub.RedisPubSubChannelLayer"
        prefixes.add(prefix)
    assert len(prefixes) == 2


def test_an_unknown_channel_layer_stops_start_up(tmp_path):
    result = manage("check", tmp_path=tmp_path, DEBUG="1", CHANNEL_LAYER="kafka")
    assert result.returncode != 0
    assert "CHANNEL_LAYER='kafka' is not one of: lists, pubsub" in result.stderr
