"""Fixtures for every test: the cast (alice, bob, charlie), API clients, clean throttles."""

from pathlib import Path

import pytest
from django.core.cache import cache
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

from tests.factories import PASSWORD, PlayerFactory

INTEGRATION_DIR = Path(__file__).parent / "integration"

# Property tests hold on a busy machine: an example is never failed for its wall-clock time
# (Hypothesis' default deadline is 200 ms an example, and a slow data generation is a health
# check failure), since another program on the same cores stretches both. How fast the code
# is lives in bench/, where it is measured on purpose. Loaded here, before any test module
# builds its own @settings from the default profile.
hypothesis_settings.register_profile(
    "suite", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("suite")


def pytest_collection_modifyitems(items):
    """Everything under tests/integration/ is an integration test."""
    for item in items:
        if INTEGRATION_DIR in Path(item.path).parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """Throttle counters live in the cache; each test starts with none used."""
    cache.clear()
    yield


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """A cheap hasher: PBKDF2's deliberate slowness would dominate the suite's run time."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_background_fair_play(settings):
    """Rated matches between people are not analysed for fair play in the background (each
    would take a core for minutes); the fair-play tests turn it on."""
    settings.FAIRPLAY_ANALYSE = False


@pytest.fixture
def password() -> str:
    return PASSWORD


@pytest.fixture
def alice(db):
    return PlayerFactory(user__username="alice", name="Alice")


@pytest.fixture
def bob(db):
    return PlayerFactory(user__username="bob", name="Bob")


@pytest.fixture
def charlie(db):
    return PlayerFactory(user__username="charlie", name="Charlie")


@pytest.fixture
def client() -> APIClient:
    """An anonymous API client."""
    return APIClient()


def sign_in(client: APIClient, username: str, password: str = PASSWORD) -> str:
    """Sign in through the API and send the token with every later request."""
    response = client.post(
        "/api/auth/login", {"username": username, "password": password}, format="json"
    )
    assert response.status_code == 200, response.content
    token = response.json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return token


@pytest.fixture
def alice_client(alice) -> APIClient:
    """An API client signed in as alice with a real token."""
    client = APIClient()
    sign_in(client, "alice")
    return client


@pytest.fixture
def bob_client(bob) -> APIClient:
    """An API client signed in as bob."""
    client = APIClient()
    sign_in(client, "bob")
    return client


@pytest.fixture
def charlie_client(charlie) -> APIClient:
    """An API client signed in as charlie."""
    client = APIClient()
    sign_in(client, "charlie")
    return client
