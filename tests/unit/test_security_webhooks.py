"""Webhooks cannot be turned against the service: where they may point, what they follow,
what they keep, how they retry, and how a receiver refuses a replayed delivery.

An organiser picks the URL, so a webhook is a request made on a stranger's behalf from inside
the service's network. Each story is one way an attacker would try it.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.exceptions import ValidationError

from common import embedded
from tournaments import services, tasks, webhooks
from tournaments.models import Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db

PUBLIC = "93.184.216.34"  # a public address (documentation ranges are not "global")


@pytest.fixture(autouse=True)
def production_rules(settings):
    """The production defaults: https only, public addresses only."""
    settings.WEBHOOK_ALLOW_HTTP = False
    settings.WEBHOOK_ALLOW_PRIVATE = False


class FakeDNS:
    """Names resolved as the test says, one answer per lookup (the last one repeats).

    Literal addresses and ``localhost`` go to the real resolver, any other name fails: no
    test here depends on the network.
    """

    def __init__(self) -> None:
        self.answers: dict[str, list[list[str]]] = {}
        self.lookups: list[str] = []
        self.real = socket.getaddrinfo

    def set(self, host: str, *answers: list[str]) -> None:
        self.answers[host] = list(answers)

    def __call__(self, host, port, *args, **kwargs):
        if host in self.answers:
            self.lookups.append(host)
            queue = self.answers[host]
            addresses = queue.pop(0) if len(queue) > 1 else queue[0]
            return [
                (
                    socket.AF_INET6 if ":" in a else socket.AF_INET,
                    socket.SOCK_STREAM,
                    socket.IPPROTO_TCP,
                    "",
                    (a, port),
                )
                for a in addresses
            ]
        literal = host == "localhost" or str(host).isdigit()
        try:
            ipaddress.ip_address(str(host).strip("[]"))
            literal = True
        except ValueError:
            pass
        if literal:
            return self.real(host, port, *args, **kwargs)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


@pytest.fixture
def dns(monkeypatch):
    fake = FakeDNS()
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake


class Server:
    """A local HTTP server that records every request (any method) and answers as told."""

    def __init__(self, status=200, headers=(), body=b"ok"):
        self.requests: list[tuple[str, str, dict, bytes]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body_in = self.rfile.read(length) if length else b""
                server.requests.append((self.command, self.path, dict(self.headers), body_in))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.http.server_port
        self.thread = threading.Thread(
            target=self.http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.http.shutdown()
        self.http.server_close()


def delivery_to(url: str) -> WebhookDelivery:
    """A pending delivery to ``url``, saved as an old row or a direct write would be."""
    event = services.event_create(name="E", format="swiss")
    hook = Webhook.objects.create(event=event, url=url)
    return WebhookDelivery.objects.create(webhook=hook, event_type="event.started", payload={})


def refusal(url: str) -> str:
    with pytest.raises(webhooks.UnsafeWebhookURL) as caught:
        webhooks.url_check(url)
    assert caught.value.status == 400 and caught.value.code == "webhook_url_refused"
    return str(caught.value)


# --- where a webhook may point -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://127.0.0.1/hook", "a loopback address"),
        ("https://localhost:8000/admin/", "a loopback address"),
        ("https://[::1]/hook", "a loopback address"),
        ("https://2130706433/hook", "a loopback address"),  # 127.0.0.1 as one number
        ("https://[::ffff:127.0.0.1]/hook", "a loopback address"),  # IPv4 inside IPv6
        ("https://[2002:7f00:1::]/hook", "a loopback address"),  # 6to4 of 127.0.0.1
        ("https://[64:ff9b::a00:1]/hook", "a private address"),  # NAT64 of 10.0.0.1
        ("https://169.254.169.254/latest/meta-data/", "a link-local address"),
        ("https://[fe80::1]/hook", "a link-local address"),
        ("https://[fec0::1]/x", "a site-local address"),  # deprecated, yet counted as global
        ("https://[feff:ffff::1]/x", "a site-local address"),  # the top of fec0::/10
        ("https://10.0.0.5/hook", "a private address"),
        ("https://172.16.3.4/hook", "a private address"),
        ("https://192.168.1.1/hook", "a private address"),
        ("https://[fd00::1]/hook", "a private address"),
        ("https://100.64.0.1/hook", "not a public address"),  # carrier-grade NAT
        ("https://224.0.0.1/hook", "a multicast address"),
        ("https://240.0.0.1/hook", "a reserved address"),
        ("https://0.0.0.0/hook", "an unspecified address"),
        ("https://[::]/hook", "an unspecified address"),
    ],
)
def test_a_webhook_to_an_internal_address_is_refused_naming_why(dns, url, reason):
    assert reason in refusal(url)


def test_a_public_address_is_accepted_and_is_where_the_delivery_connects(dns):
    dns.set("hooks.example.test", [PUBLIC])
    target = webhooks.url_check("https://hooks.example.test/in?x=1#frag")
    assert (target.address, target.port, target.host) == (PUBLIC, 443, "hooks.example.test")
    assert target.path == "/in?x=1"


def test_a_name_resolving_to_a_private_address_is_refused(dns):
    dns.set("intranet.example.test", ["10.1.2.3"])
    message = refusal("https://intranet.example.test/hook")
    assert "intranet.example.test resolves to 10.1.2.3, a private address" in message


def test_one_internal_address_among_public_ones_is_enough_to_refuse(dns):
    dns.set("mixed.example.test", [PUBLIC, "127.0.0.1"])
    assert "127.0.0.1, a loopback address" in refusal("https://mixed.example.test/hook")


def test_a_name_that_does_not_resolve_is_refused(dns):
    assert "does not resolve" in refusal("https://nowhere.example.test/hook")


def test_only_https_unless_plain_http_is_allowed(dns, settings):
    dns.set("hooks.example.test", [PUBLIC])
    assert "must use https" in refusal("http://hooks.example.test/hook")
    assert "must use https" in refusal("ftp://hooks.example.test/hook")
    assert "must use https" in refusal("file:///etc/passwd")
    settings.WEBHOOK_ALLOW_HTTP = True
    assert webhooks.url_check("http://hooks.example.test/hook").port == 80
    assert "must use https" in refusal("gopher://hooks.example.test/hook")


def test_credentials_in_the_url_are_refused(dns):
    dns.set("hooks.example.test", [PUBLIC])
    assert "user name or password" in refusal("https://user:password@hooks.example.test/hook")


def test_the_private_setting_lets_loopback_through_but_never_cloud_metadata(dns, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    assert webhooks.url_check("https://127.0.0.1:8443/hook").address == "127.0.0.1"
    assert webhooks.url_check("https://[::1]/hook").address == "::1"
    assert webhooks.url_check("https://10.0.0.5/hook").address == "10.0.0.5"
    assert "a link-local address" in refusal("https://169.254.169.254/latest/meta-data/")
    assert "a site-local address" in refusal("https://[fec0::1]/x")
    assert "an unspecified address" in refusal("https://0.0.0.0/hook")
    assert "a multicast address" in refusal("https://224.0.0.1/hook")


def test_saving_a_webhook_checks_its_url(dns):
    event = services.event_create(name="E", format="swiss")
    with pytest.raises(ValidationError) as caught:
        Webhook(event=event, url="https://169.254.169.254/latest/meta-data/").full_clean()
    [message] = caught.value.message_dict["url"]
    assert "169.254.169.254, a link-local address" in message
    dns.set("hooks.example.test", [PUBLIC])
    Webhook(event=event, url="https://hooks.example.test/hook").full_clean()


def test_the_admin_refuses_a_webhook_to_loopback_with_a_form_error(admin_client, dns):
    event = services.event_create(name="E", format="swiss")
    form = {
        "event": event.pk,
        "url": "https://127.0.0.1:8000/admin/",
        "events": '["event.started"]',
        "active": "on",
        "deliveries-TOTAL_FORMS": 0,
        "deliveries-INITIAL_FORMS": 0,
    }
    response = admin_client.post("/admin/tournaments/webhook/add/", form)
    assert response.status_code == 200
    assert "127.0.0.1, a loopback address" in response.content.decode()
    assert not Webhook.objects.exists()
    dns.set("hooks.example.test", [PUBLIC])
    form["url"] = "https://hooks.example.test/hook"
    response = admin_client.post("/admin/tournaments/webhook/add/", form)
    assert response.status_code == 302, response.content.decode()
    assert Webhook.objects.get().url == "https://hooks.example.test/hook"


def test_the_events_webhook_inline_refuses_a_private_address_too(admin_client, dns):
    from tests.unit.test_tournament_admin import EVENT_FORM

    form = {
        **EVENT_FORM,
        "webhooks-TOTAL_FORMS": 1,
        "webhooks-0-url": "https://10.0.0.1/hook",
        "webhooks-0-events": '["event.started"]',
        "webhooks-0-active": "on",
    }
    response = admin_client.post("/admin/tournaments/event/add/", form)
    assert response.status_code == 200
    assert "10.0.0.1, a private address" in response.content.decode()
    assert not Webhook.objects.exists()


# --- at delivery time --------------------------------------------------------------------------


def test_a_delivery_to_loopback_saved_before_the_check_is_refused_and_nothing_is_sent(settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    with Server() as server:
        delivery = delivery_to(f"http://127.0.0.1:{server.port}/admin/")
        assert webhooks.deliver(delivery.pk) is False
    assert server.requests == []
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.attempts == 1
    assert delivery.error.startswith("Refused: ") and "a loopback address" in delivery.error


def test_a_rebinding_name_is_checked_once_and_the_checked_address_is_the_one_dialled(
    dns, monkeypatch
):
    # Public when checked, loopback on any later lookup: a rebinding DNS server's trick.
    dns.set("rebind.example.test", [PUBLIC], ["127.0.0.1"])
    dialled = []

    def create_connection(address, *args, **kwargs):
        dialled.append(address)
        raise ConnectionRefusedError("not on this test's network")

    monkeypatch.setattr(socket, "create_connection", create_connection)
    delivery = delivery_to("https://rebind.example.test/hook")
    assert webhooks.deliver(delivery.pk) is False
    assert dns.lookups == ["rebind.example.test"]
    assert dialled == [(PUBLIC, 443)]


def test_a_delivery_reaches_the_checked_address_under_the_urls_host_name(dns, settings):
    # The name exists only in the fake resolver, so only a connection to the checked address
    # (never a second lookup by a library) can reach the server.
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE = True
    dns.set("receiver.example.test", ["127.0.0.1"])
    with Server() as server:
        delivery = delivery_to(f"http://receiver.example.test:{server.port}/in")
        assert webhooks.deliver(delivery.pk) is True
    [(method, path, headers, _)] = server.requests
    assert (method, path) == ("POST", "/in")
    assert headers["Host"] == f"receiver.example.test:{server.port}"
    assert dns.lookups == ["receiver.example.test"]


def test_https_dials_the_checked_address_and_verifies_the_certificate_for_the_host(
    dns, monkeypatch
):
    dns.set("hooks.example.test", [PUBLIC])
    dialled, handshakes = [], []

    class Raw:
        def close(self):
            pass

    def create_connection(address, *args, **kwargs):
        dialled.append(address)
        return Raw()

    def wrap_socket(sock, server_hostname=None, **kwargs):
        handshakes.append(server_hostname)
        raise ssl.SSLCertVerificationError("certificate verify failed")

    def tls_context():
        context = ssl.create_default_context()
        context.wrap_socket = wrap_socket
        return context

    monkeypatch.setattr(socket, "create_connection", create_connection)
    monkeypatch.setattr(webhooks, "tls_context", tls_context)
    delivery = delivery_to("https://hooks.example.test/hook")
    assert webhooks.deliver(delivery.pk) is False
    assert dialled == [(PUBLIC, 443)] and handshakes == ["hooks.example.test"]
    delivery.refresh_from_db()
    assert "certificate verify failed" in delivery.error


def test_the_default_tls_context_checks_certificates_and_host_names():
    context = webhooks.tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def test_a_redirect_is_a_failed_delivery_and_is_not_followed(settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE = True
    with Server(status=302, headers=[("Location", "/internal/secrets")]) as server:
        delivery = delivery_to(f"http://127.0.0.1:{server.port}/hook")
        assert webhooks.deliver(delivery.pk) is False
    assert [(m, p) for m, p, _, _ in server.requests] == [("POST", "/hook")]
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.response_status == 302
    assert delivery.error == "HTTP 302 (redirects are not followed)"


def test_a_receiver_that_drips_its_answer_is_cut_off_at_the_deadline(settings, monkeypatch):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE = True
    monkeypatch.setattr(webhooks, "DEADLINE", 0.5)
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    drip_bytes, every = 100, 0.1  # one byte every 0.1 s: 10 s at least, each read in time

    def drip():
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % drip_bytes)
            for _ in range(drip_bytes):
                if stop.wait(every):
                    return
                try:
                    conn.sendall(b"x")
                except OSError:
                    return

    thread = threading.Thread(target=drip, daemon=True)
    thread.start()
    try:
        delivery = delivery_to(f"http://127.0.0.1:{listener.getsockname()[1]}/hook")
        started = time.monotonic()
        assert webhooks.deliver(delivery.pk) is False
        elapsed = time.monotonic() - started
    finally:
        stop.set()
        thread.join(5)
        listener.close()
    # Cut off long before the whole answer could have come (a busy machine only slows the drip).
    assert elapsed < drip_bytes * every / 2, f"{elapsed:.1f} s"
    delivery.refresh_from_db()
    assert delivery.error == "No complete answer within 0.5 s"
    assert delivery.status == "pending" and delivery.response_status is None


def test_an_international_host_name_is_resolved_in_its_ascii_form(dns):
    dns.set("xn--bcher-kva.example.test", [PUBLIC])
    target = webhooks.url_check("https://bücher.example.test/hook")
    assert (target.host, target.address) == ("xn--bcher-kva.example.test", PUBLIC)


# --- what is kept of the answer ----------------------------------------------------------------


def test_only_a_short_escaped_excerpt_of_the_answer_is_kept_and_the_admin_escapes_it(
    settings, admin_client
):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE = True
    answer = b"<script>alert('pwned')</script>\x1b[2J\r\nline two " + b"x" * 5000
    with Server(body=answer) as server:
        delivery = delivery_to(f"http://127.0.0.1:{server.port}/hook")
        assert webhooks.deliver(delivery.pk) is True
    delivery.refresh_from_db()
    kept = delivery.response_body
    assert len(kept) <= webhooks.EXCERPT_LIMIT
    assert kept.startswith("<script>alert('pwned')</script>\\x1b[2J\\r\\nline two xxx")
    assert kept.isprintable() and kept.endswith("…")
    page = admin_client.get(f"/admin/tournaments/webhookdelivery/{delivery.pk}/change/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in html
    assert "<script>alert" not in html


def test_the_admin_shows_an_old_long_answer_only_as_an_escaped_excerpt(admin_client):
    delivery = delivery_to("https://hooks.example.test/hook")
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        response_body="<img src=x onerror=alert(1)>" + "y" * 3000
    )
    html = admin_client.get(f"/admin/tournaments/webhookdelivery/{delivery.pk}/change/")
    html = html.content.decode()
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img src=x" not in html
    assert "y" * webhooks.EXCERPT_LIMIT not in html


# --- retries ---------------------------------------------------------------------------------


def test_embedded_retries_wait_the_same_backoff_as_a_worker(settings, monkeypatch):
    """On the in-process worker each retry is queued with its countdown (5, 10, 20, 40, 80 s,
    up to 20% jitter), not rerun at once as Celery reruns an eager retry."""
    settings.EMBEDDED_WORKER = "threads"
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE = True
    queued = []
    monkeypatch.setattr(
        embedded,
        "submit",
        lambda task, args, kwargs, **options: queued.append((task, args, options)),
    )
    countdowns = []
    with Server(status=503) as server:
        delivery = delivery_to(f"http://127.0.0.1:{server.port}/hook")
        assert tasks.deliver_webhook.apply(args=(delivery.pk,)).get() is False
        while queued:
            task, args, options = queued.pop()
            assert task.name == "tournaments.deliver_webhook" and tuple(args) == (delivery.pk,)
            countdowns.append(options["countdown"])
            # What the worker's timer thread does once the countdown is over.
            task.apply(args, retries=options["retries"]).get()
            assert len(server.requests) == len(countdowns) + 1
    for retry, countdown in enumerate(countdowns):
        base = 5 * 2**retry
        assert base <= countdown <= base * 1.2, (retry, countdowns)
    assert len(countdowns) == webhooks.MAX_RETRIES
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.attempts == webhooks.MAX_RETRIES + 1


# --- the receiver's side: replayed deliveries ---------------------------------------------------


SECRET = "receiver-secret"
BODY = b'{"id":"d1","type":"match.finished"}'


def signed_at(offset: int) -> str:
    return webhooks.sign(SECRET, int(time.time()) + offset, BODY)


def test_a_fresh_signature_verifies():
    assert webhooks.verify(SECRET, signed_at(0), BODY)
    assert webhooks.verify(SECRET, signed_at(-290), BODY)
    assert webhooks.verify(SECRET, signed_at(+290), BODY)


def test_a_replayed_delivery_with_a_stale_timestamp_is_refused():
    assert not webhooks.verify(SECRET, signed_at(-301), BODY)
    assert not webhooks.verify(SECRET, signed_at(-86400), BODY)
    assert webhooks.verify(SECRET, signed_at(-301), BODY, tolerance=600)


def test_a_timestamp_from_the_future_is_refused():
    assert not webhooks.verify(SECRET, signed_at(+301), BODY)
    assert not webhooks.verify(SECRET, signed_at(+86400), BODY)


@pytest.mark.parametrize(
    "header",
    ["", "v1=abc", "t=,v1=abc", "t=soon,v1=abc", "garbage", "t=1,v1"],
)
def test_a_malformed_signature_header_is_refused(header):
    assert not webhooks.verify(SECRET, header, BODY)


def test_a_signature_moved_to_a_fresh_timestamp_is_refused():
    stale = signed_at(-3600)
    mac = stale.split("v1=", 1)[1]
    assert not webhooks.verify(SECRET, f"t={int(time.time())},v1={mac}", BODY)
