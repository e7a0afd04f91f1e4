"""The compose stack's front door: only the proxy says who a client is.

deploy/compose.yaml's web settings are read from the file itself (its ``${NAME:-default}``
values resolved as compose resolves them) and served the way the stack serves them:
deploy/gunicorn.conf.py's ``forwarded_allow_ips`` under that environment, handed by gunicorn's
configuration to uvicorn, whose ``Config.load`` wraps the ASGI application in its
``ProxyHeadersMiddleware``. A client that is not the proxy writes ``X-Forwarded-For`` in vain:
``/metrics`` stays closed without the token and the throttles count it by its own address.
"""

from __future__ import annotations

import ipaddress
import json
import re
import runpy
from pathlib import Path

import pytest
import yaml
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator

from config.settings import metrics_networks

#: Each request's view runs on a thread of its own (common/admission.py), as in the server.
pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "compose.yaml"

#: What an operator puts in deploy/.env; everything else keeps the file's defaults.
OPERATOR_ENV = {
    "SECRET_KEY": "stack-test-" + "k3Jd8Qw2Lz5Xv7Nb" * 4,
    "ALLOWED_HOSTS": "testserver",
    "METRICS_TOKEN": "stack-metrics-token",
}
#: A client somewhere on the internet, and another.
CLIENT, OTHER_CLIENT = "203.0.113.9", "198.51.100.4"
#: Another container on the stack's network (a worker, say): not the proxy either.
NEIGHBOUR = "172.30.57.23"

_VARIABLE = re.compile(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}")


def interpolate(value: str, env: dict[str, str]) -> str:
    """``${NAME}``, ``${NAME:-default}`` and ``${NAME:?error}`` as compose resolves them."""

    def one(match: re.Match) -> str:
        name, kind, rest = match.groups()
        if env.get(name):
            return env[name]
        if kind == ":?":
            raise LookupError(f"{name}: {rest}")
        return rest if kind == ":-" else ""

    return _VARIABLE.sub(one, value)


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())  # merge keys (<<) resolved by the loader


def web_environment(env: dict[str, str] = OPERATOR_ENV) -> dict[str, str]:
    """The web service's environment, resolved against ``env``."""
    raw = compose()["services"]["web"]["environment"]
    return {name: interpolate(str(value), env) for name, value in raw.items()}


@pytest.fixture
def stack(settings, monkeypatch):
    """The ASGI application as the stack's gunicorn serves it, with the stack's settings."""
    import uvicorn
    from django.core.asgi import get_asgi_application
    from gunicorn.config import Config as GunicornConfig

    environment = web_environment()
    # What gunicorn's configuration reads from the environment (the settings follow below).
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", environment["FORWARDED_ALLOW_IPS"])
    monkeypatch.setenv("DB_POOL_MAX_SIZE", "16")  # the conf file sets it when unset
    conf = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))
    gunicorn = GunicornConfig()
    gunicorn.set("forwarded_allow_ips", conf["forwarded_allow_ips"])
    # uvicorn_worker.UvicornWorker hands gunicorn's value to uvicorn's Config.
    server = uvicorn.Config(
        get_asgi_application(),
        forwarded_allow_ips=gunicorn.forwarded_allow_ips,
        lifespan="off",
        log_config=None,
    )
    server.load()

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "NUM_PROXIES": int(environment["NUM_PROXIES"]),
    }
    settings.METRICS_TOKEN = environment["METRICS_TOKEN"]
    allowed = environment.get("METRICS_ALLOWED_IPS", "127.0.0.1,::1").split(",")
    settings.METRICS_ALLOWED_NETWORKS = metrics_networks(allowed)
    return server.loaded_app


def proxy_address() -> str:
    """The address the stack trusts as its proxy (FORWARDED_ALLOW_IPS: one address)."""
    trusted = web_environment()["FORWARDED_ALLOW_IPS"]
    assert "," not in trusted and "/" not in trusted, trusted
    return str(ipaddress.ip_address(trusted))


def request(
    app,
    method: str,
    path: str,
    peer: str,
    forwarded_for: str | None = None,
    headers: dict[str, str] | None = None,
    body: dict | None = None,
) -> tuple[int, bytes]:
    """One HTTP request to ``app`` from a connection whose peer is ``peer``."""
    raw_headers = [(b"host", b"testserver")]
    if forwarded_for is not None:
        raw_headers.append((b"x-forwarded-for", forwarded_for.encode()))
    for name, value in (headers or {}).items():
        raw_headers.append((name.lower().encode(), value.encode()))
    content = json.dumps(body).encode() if body is not None else b""
    if body is not None:
        raw_headers.append((b"content-type", b"application/json"))
        raw_headers.append((b"content-length", str(len(content)).encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": raw_headers,
        "client": (peer, 50000),
        "server": ("172.30.57.10", 8000),
    }

    async def exchange():
        communicator = ApplicationCommunicator(app, scope)
        await communicator.send_input({"type": "http.request", "body": content})
        start = await communicator.receive_output(10)
        assert start["type"] == "http.response.start", start
        chunks = []
        while True:
            message = await communicator.receive_output(10)
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        await communicator.wait(1)
        return start["status"], b"".join(chunks)

    return async_to_sync(exchange)()


def test_the_stack_needs_a_metrics_token_and_trusts_no_forwarding_header_of_its_own():
    env = web_environment()
    with pytest.raises(LookupError, match="METRICS_TOKEN"):
        web_environment({k: v for k, v in OPERATOR_ENV.items() if k != "METRICS_TOKEN"})
    assert env["FORWARDED_ALLOW_IPS"] not in ("", "*")
    assert env["NUM_PROXIES"] == "0"
    # The trusted proxy is the gateway of the stack's own network (the host).
    (network,) = compose()["networks"]["default"]["ipam"]["config"]
    assert proxy_address() == network["gateway"]
    assert ipaddress.ip_address(network["gateway"]) in ipaddress.ip_network(network["subnet"])


def published_host_addresses(ports: list) -> list[str]:
    """The host address each port mapping of a service listens on ("" for every one)."""
    addresses = []
    for port in ports:
        if isinstance(port, dict):  # the long syntax
            addresses.append(str(port.get("host_ip", "")))
            continue
        text = str(port)
        if text.startswith("["):  # [::1]:8000:8000
            addresses.append(text[1 : text.index("]")])
            continue
        parts = text.split(":")
        addresses.append(parts[0] if len(parts) == 3 else "")
    return addresses


def test_the_compose_file_publishes_no_port_beyond_the_hosts_loopback():
    services = compose()["services"]
    assert published_host_addresses(services["web"]["ports"]) == ["127.0.0.1"]
    for name, service in services.items():
        for address in published_host_addresses(service.get("ports", [])):
            assert address and ipaddress.ip_address(address).is_loopback, (name, address)
    assert published_host_addresses(["8000:8000", "0.0.0.0:8000:8000"]) == ["", "0.0.0.0"]


@pytest.mark.parametrize("peer", [CLIENT, NEIGHBOUR])
def test_a_forged_forwarded_for_does_not_open_metrics(stack, peer):
    token = {"authorization": f"Bearer {OPERATOR_ENV['METRICS_TOKEN']}"}
    # Straight to web, claiming to be loopback: not believed.
    assert request(stack, "GET", "/metrics", peer, "127.0.0.1")[0] == 404
    assert request(stack, "GET", "/metrics", peer, f"127.0.0.1, {peer}")[0] == 404
    # Through the proxy, which appends the address it took the connection from.
    proxy = proxy_address()
    assert request(stack, "GET", "/metrics", proxy, f"127.0.0.1, {peer}")[0] == 404
    assert request(stack, "GET", "/metrics", proxy)[0] == 404  # the proxy itself: no token
    # A client on the proxy's own host, through the proxy: loopback, and still no token.
    assert request(stack, "GET", "/metrics", proxy, "127.0.0.1")[0] == 404
    # The token opens it, from anywhere.
    assert request(stack, "GET", "/metrics", peer, "127.0.0.1", token)[0] == 200


def register(app, peer: str, forwarded_for: str, n: int) -> int:
    body = {"username": f"user{n}", "password": "correct horse battery staple"}
    return request(app, "POST", "/api/auth/register", peer, forwarded_for, body=body)[0]


def test_the_throttles_count_the_real_address_not_the_claimed_one(stack):
    """Registration allows 10 an hour per address (THROTTLE_REGISTER_RATE)."""
    # A client straight to web, writing a new X-Forwarded-For each time: one address.
    straight = [register(stack, NEIGHBOUR, f"10.9.0.{n}", n) for n in range(12)]
    assert straight == [201] * 10 + [429] * 2
    proxy = proxy_address()
    # Through the proxy, the client's own entries are passed over: one address again.
    through = [register(stack, proxy, f"10.8.0.{n}, {CLIENT}", 100 + n) for n in range(12)]
    assert through == [201] * 10 + [429] * 2
    # And another client behind the same proxy is counted apart.
    assert register(stack, proxy, OTHER_CLIENT, 200) == 201
