"""Conventions every endpoint shares: error shape, schema and docs, admin, health."""

import pytest
from django.core.management import call_command

from config.celery import app

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/nope", "/api/players/1/nope", "/api", "/api/auth/"])
def test_unknown_api_routes_are_404_in_the_error_shape(client, path):
    response = client.get(path)

    assert response.status_code == 404
    assert response.headers["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not found.", "code": "not_found"}


def test_unknown_routes_outside_the_api_stay_html(client):
    response = client.get("/nope")

    assert response.status_code == 404
    assert response.headers["Content-Type"].startswith("text/html")


def test_openapi_schema_lists_the_endpoints(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in ["/api/auth/register", "/api/auth/login", "/api/me", "/api/players/{id}"]:
        assert path in paths


def test_interactive_docs_are_served_without_a_cdn(client):
    response = client.get("/api/docs/")

    assert response.status_code == 200
    assert b"swagger-ui" in response.content
    assert b"cdn.jsdelivr.net" not in response.content


def test_admin_sign_in_page_renders(client):
    assert client.get("/admin/login/").status_code == 200


def test_health_reports_database_and_embedded_broker(client):
    response = client.get("/api/health")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "embedded"}


def test_health_is_503_when_the_broker_does_not_answer(client, settings, monkeypatch):
    settings.CELERY_EMBEDDED = False
    # Port 1 on loopback: nothing listens there, the connection is refused at once.
    monkeypatch.setattr(app.conf, "broker_url", "redis://127.0.0.1:1/0")

    response = client.get("/api/health")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error"
    assert body["database"] == "ok"
    assert body["broker"].startswith("error: ")


def test_openapi_schema_generates_without_warnings(tmp_path):
    # Guards every later endpoint too: an undocumentable view fails here, not in the docs.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml"))

    assert "/api/players" in (tmp_path / "s.yml").read_text()


def test_pages_leave_for_another_page_through_one_function():
    """The socket, a poll and a button's answer can all learn of the same new table at once;
    each going there itself would start a second load that cancels the first (a page that
    flickers, and a navigation reported as aborted). Only api.js's goTo assigns a location."""
    from pathlib import Path

    scripts = Path(__file__).resolve().parents[2] / "web" / "static" / "web" / "js"
    offenders = [
        f"{path.name}:{number}"
        for path in sorted(scripts.glob("*.js"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "location.assign(" in line
        and (path.name, line.strip()) != ("api.js", "window.location.assign(url);")
    ]
    assert offenders == []
