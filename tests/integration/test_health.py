"""/api/health on PostgreSQL and Redis."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def test_health_reports_postgresql_and_redis(client):
    response = client.get("/api/health")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}


@pytest.mark.django_db(transaction=True)  # no test transaction to break by reconnecting
def test_health_is_503_when_postgresql_does_not_answer(client):
    # A port where no PostgreSQL listens: the check must report, not crash.
    connection.close()
    original = connection.settings_dict["PORT"]
    connection.settings_dict["PORT"] = "1"
    try:
        response = client.get("/api/health")
    finally:
        connection.close()
        connection.settings_dict["PORT"] = original

    assert response.status_code == 503
    assert response.json()["database"].startswith("error: OperationalError")
    assert response.json()["broker"] == "ok"
