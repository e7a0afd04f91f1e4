"""The Content-Security-Policy on every page, no inline script anywhere, and the API docs'
audience: public only when ``API_DOCS_PUBLIC`` says so."""

from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games import services
from games.models import Match
from tests.conftest import sign_in
from tests.factories import BotFactory
from tests.unit.test_settings import PRODUCTION, manage

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"


def policy(response) -> dict[str, list[str]]:
    """The answer's Content-Security-Policy, directive by directive."""
    header = response.headers["Content-Security-Policy"]
    directives = (part.split() for part in header.split(";") if part.strip())
    return {name: values for name, *values in directives}


class InlineScripts(HTMLParser):
    """Collects what a page would run that is not a script file of its own site."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name, value in attrs.items():
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            if name in ("href", "src", "action") and (value or "").startswith("javascript:"):
                self.found.append(f"<{tag} {name}=javascript:...>")
        if tag == "script" and not attrs.get("src") and attrs.get("type") != "application/json":
            self.found.append("<script> with inline code")


def inline_scripts(html: str) -> list[str]:
    parser = InlineScripts()
    parser.feed(html)
    return parser.found


@pytest.fixture
def alice_web(alice) -> Client:
    client = Client()
    client.force_login(alice.user)
    return client


@pytest.fixture
def finished_match(db) -> Match:
    a = BotFactory(name="Ada", bot_strategy="greedy")
    b = BotFactory(name="Bea", bot_strategy="greedy")
    match = services.match_create(player_a=a, player_b=b, best_of=1, target=50, seed=42)
    services.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    return match


def pages(alice, match: Match) -> list[str]:
    game = match.games.first()
    return [
        "/",
        "/lobby",
        "/events",
        "/leaderboard",
        f"/players/{alice.pk}",
        f"/matches/{match.pk}",
        f"/matches/{match.pk}/replay",
        f"/games/{game.pk}",
    ]


# --- the policy -----------------------------------------------------------------------------


def test_every_page_has_a_policy_that_forbids_inline_script(alice_web, alice, finished_match):
    for url in pages(alice, finished_match):
        response = alice_web.get(url)
        assert response.status_code == 200, url
        directives = policy(response)
        assert directives["script-src"] == ["'self'"], url
        assert directives["default-src"] == ["'self'"], url
        assert directives["object-src"] == ["'none'"], url
        assert directives["frame-ancestors"] == ["'none'"], url
        assert "'unsafe-inline'" not in response.headers["Content-Security-Policy"], url
        assert "'unsafe-eval'" not in response.headers["Content-Security-Policy"], url


def test_pages_allow_sockets_to_their_own_host_only(alice_web):
    directives = policy(alice_web.get("/lobby"))

    assert directives["connect-src"] == ["'self'", "ws://testserver", "wss://testserver"]


def test_over_https_sockets_must_be_secure_too(alice_web, settings):
    settings.SECURE_SSL_REDIRECT = False
    directives = policy(alice_web.get("/lobby", secure=True))

    assert directives["connect-src"] == ["'self'", "wss://testserver"]


def test_pages_for_visitors_and_errors_have_the_policy_too():
    web = Client()
    for url in ["/login", "/signup", "/events", "/nope", "/admin/login/"]:
        assert policy(web.get(url))["script-src"] == ["'self'"], url


def test_no_page_runs_inline_script(alice_web, alice, finished_match):
    for url in pages(alice, finished_match):
        assert inline_scripts(alice_web.get(url).content.decode()) == [], url
    web = Client()
    for url in ["/login", "/signup", "/admin/login/"]:
        assert inline_scripts(web.get(url).content.decode()) == [], url


def test_no_template_has_inline_script_or_handlers():
    for template in TEMPLATES.rglob("*.html"):
        assert inline_scripts(template.read_text()) == [], template.name


def test_the_checker_sees_inline_script():
    assert inline_scripts("<script>alert(1)</script>") == ["<script> with inline code"]
    assert inline_scripts('<button onclick="go()">') == ["<button onclick=...>"]
    assert inline_scripts('<a href="javascript:go()">') == ["<a href=javascript:...>"]
    assert inline_scripts('<script type="module" src="/static/x.js"></script>') == []


def test_the_admin_works_under_the_policy(admin_client):
    response = admin_client.get("/admin/accounts/player/")

    assert response.status_code == 200
    assert policy(response)["script-src"] == ["'self'"]
    assert inline_scripts(response.content.decode()) == []


# --- the API docs ---------------------------------------------------------------------------


def test_the_docs_page_loads_its_start_up_script_from_a_file(client):
    response = client.get("/api/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    assert inline_scripts(html) == []
    assert policy(response)["script-src"] == ["'self'"]
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()
    assert "/api/schema/" in script.content.decode()


def test_the_docs_are_public_when_the_setting_says_so(client, settings):
    settings.API_DOCS_PUBLIC = True

    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/docs/").status_code == 200


@pytest.mark.parametrize("url", ["/api/schema/", "/api/docs/", "/api/docs/?script="])
def test_the_docs_are_for_staff_when_the_setting_is_off(url, settings, alice, admin_client):
    settings.API_DOCS_PUBLIC = False
    player = APIClient()
    sign_in(player, "alice")
    web = Client()
    web.force_login(alice.user)

    assert APIClient().get(url).status_code == 401
    assert player.get(url).status_code == 403
    assert web.get(url).status_code == 403
    assert admin_client.get(url).status_code == 200


@pytest.mark.parametrize(
    ("env", "public"),
    [
        ({"DEBUG": "1"}, "True"),
        (PRODUCTION, "False"),
        ({**PRODUCTION, "API_DOCS_PUBLIC": "1"}, "True"),
        ({"DEBUG": "1", "API_DOCS_PUBLIC": "0"}, "False"),
    ],
)
def test_the_docs_are_public_by_default_only_with_debug(env, public, tmp_path):
    show = "from django.conf import settings; print(settings.API_DOCS_PUBLIC)"

    result = manage("shell", "-c", show, tmp_path=tmp_path, **env)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == public


@pytest.mark.parametrize("secure", [False, True])
def test_the_header_built_once_is_the_one_django_csp_builds(secure, settings):
    """Answers that share a host and scheme reuse one header: each is the header django-csp
    builds for it (with this site's sockets); another host gets its own."""
    from django.http import HttpResponse
    from django.test import RequestFactory

    from common.csp import CSPMiddleware

    settings.ALLOWED_HOSTS = ["one.example", "two.example"]
    middleware = CSPMiddleware(lambda request: HttpResponse("ok"))
    factory = RequestFactory()

    def answered(host, *, full=False):
        request = factory.get("/api/games/1", HTTP_HOST=host, secure=secure)
        response = HttpResponse("ok")
        if full:  # django-csp's own path, which builds the header every time
            response._csp_update = {}
            return super(CSPMiddleware, middleware).process_response(request, response)
        return middleware.process_response(request, response)

    built_before = middleware._built.copy()
    for host in ("one.example", "one.example", "two.example", "one.example"):
        built = answered(host).headers["Content-Security-Policy"]
        assert built == answered(host, full=True).headers["Content-Security-Policy"]
        scheme = "wss" if secure else "ws"
        assert f"{scheme}://{host}" in built and "example" in built
    one = answered("one.example").headers["Content-Security-Policy"]
    assert "two.example" not in one
    assert len(middleware._built) == len(built_before) + 2  # one header for each host
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": ["'none'"]}}
    assert "default-src 'none'" in answered("one.example").headers["Content-Security-Policy"]
