"""Which pages may open a socket: the ``Origin`` of a handshake against the site's own.

A browser sends ``Origin`` on every WebSocket handshake, with this site's cookies whatever
page opened it, so only the site's own origin (scheme, host and port as the handshake
reached it) and ``CSRF_TRUSTED_ORIGINS`` pass, under ``DEBUG`` as without it. Programs
send no ``Origin`` and still connect.
"""

from __future__ import annotations

import pytest

from common.sockets import origin_allowed
from games import services
from tests.live import Socket, fresh_layer, run
from tests.play import active_game


@pytest.fixture(autouse=True)
def _fresh_layer():
    fresh_layer()


@pytest.fixture
def table(alice, bob):
    match = services.match_create(player_a=alice, player_b=bob)
    return match, active_game(match)


def scope(origin: str | None, host: str = "127.0.0.1:8000", scheme: str = "ws", **more) -> dict:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    headers += [(name.encode(), value.encode()) for name, value in more.items()]
    return {"type": "websocket", "scheme": scheme, "headers": headers}


@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("http://127.0.0.1:8000", True),  # the site's own page (make run)
        ("HTTP://127.0.0.1:8000", True),  # case does not matter
        ("http://127.0.0.1:9999", False),  # another port: another site
        ("https://127.0.0.1:8000", False),  # another scheme
        ("https://127.0.0.1", False),
        ("http://127.0.0.1", False),  # the default port is not 8000
        ("http://evil.example.com:8000", False),  # another host
        ("http://127.0.0.1.evil.example.com:8000", False),
        ("http://localhost:8000", False),  # the same machine under another name
        ("null", False),  # a sandboxed frame, a file
        ("", False),
        ("http://127.0.0.1:8000/page", False),  # not an origin
        ("http://user@127.0.0.1:8000", False),
        ("ftp://127.0.0.1:8000", False),
        ("http://127.0.0.1:notaport", False),
        (None, True),  # a program: no Origin at all
    ],
)
def test_only_the_sites_own_origin_may_open_a_socket(settings, debug, origin, allowed):
    settings.DEBUG = debug
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    assert origin_allowed(scope(origin)) is allowed


def test_over_tls_the_origin_is_https_on_its_default_port(settings):
    settings.ALLOWED_HOSTS = ["rummy.example.org"]
    assert origin_allowed(scope("https://rummy.example.org", "rummy.example.org", "wss"))
    assert origin_allowed(scope("https://rummy.example.org:443", "rummy.example.org", "wss"))
    assert not origin_allowed(scope("http://rummy.example.org", "rummy.example.org", "wss"))
    assert not origin_allowed(scope("https://rummy.example.org", "rummy.example.org", "ws"))


def test_a_proxy_says_https_only_when_trusted_to(settings):
    settings.ALLOWED_HOSTS = ["rummy.example.org"]
    proxied = scope(
        "https://rummy.example.org", "rummy.example.org", "ws", **{"x-forwarded-proto": "https"}
    )
    assert not origin_allowed(proxied)  # a client may write that header itself
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert origin_allowed(proxied)
    assert not origin_allowed(
        scope(
            "http://rummy.example.org", "rummy.example.org", "ws", **{"x-forwarded-proto": "https"}
        )
    )


def test_a_host_not_allowed_has_no_origin_of_its_own(settings):
    settings.ALLOWED_HOSTS = ["rummy.example.org"]
    assert not origin_allowed(scope("http://evil.example.com", "evil.example.com"))
    assert not origin_allowed(scope("http://127.0.0.1:8000", "127.0.0.1:8000"))


def test_trusted_origins_pass_exactly_or_by_subdomain(settings):
    settings.ALLOWED_HOSTS = ["rummy.example.org"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example.net", "https://*.example.com"]
    site = ("rummy.example.org", "wss")
    assert origin_allowed(scope("https://play.example.net", *site))
    assert not origin_allowed(scope("http://play.example.net", *site))
    assert not origin_allowed(scope("https://play.example.net:8443", *site))
    assert not origin_allowed(scope("https://other.example.net", *site))
    assert origin_allowed(scope("https://a.example.com", *site))
    assert not origin_allowed(scope("https://example.com.evil.org", *site))


def test_two_origin_headers_are_refused(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    both = scope("http://127.0.0.1:8000")
    both["headers"].append((b"origin", b"http://evil.example.com"))
    assert not origin_allowed(both)


def test_the_handshake_is_refused_before_the_socket_opens(settings, table):
    settings.DEBUG = True
    _, game = table

    async def scenario():
        for origin, accepted in [
            (b"http://127.0.0.1:9999", False),
            (b"https://127.0.0.1:8000", False),
            (b"http://127.0.0.1:8000", True),
        ]:
            headers = [(b"host", b"127.0.0.1:8000"), (b"origin", origin)]
            socket = await Socket.open(f"/ws/games/{game.pk}", headers=headers)
            assert socket.connected is accepted, origin
            if accepted:
                await socket.close()
        program = await Socket.open(f"/ws/games/{game.pk}")  # no Origin: a program
        assert program.connected
        await program.close()

    run(scenario)
