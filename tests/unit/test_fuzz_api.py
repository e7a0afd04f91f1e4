"""Schemathesis against /api/schema/, in-process: every operation, then stateful sequences.

The bounded form of the fuzzing in `make test` (bench/fuzz.py runs the long form against the
cluster). Each operation gets property-based requests, valid and invalid, from the schema,
sent as a signed-in player who has a game in play, a pending challenge, an event entry and a
ladder rating, so ids in paths hit real objects. Every answer must be:

- never a 5xx;
- a status code, content type, headers and body the schema documents;
- a 4xx for a request the schema calls invalid; a 401 without the token where one is needed;
- consistent: what was created can be read, what was deleted is gone.

The examples are derandomized (the same cases on every run, so CI cannot meet a new failure
by chance); bench/fuzz.py explores with fresh seeds. Excluded check: positive_data_acceptance,
which expects any schema-valid request to succeed, while some valid-looking requests are
refused by rules a schema cannot state (an unknown opponent id, a password Django finds too
common, a move that is not legal now); those answers are still checked against the schema.
"""

from __future__ import annotations

from pathlib import Path

import hypothesis
import pytest
import schemathesis
from django.core.cache import cache
from django.core.wsgi import get_wsgi_application
from django.db import transaction
from hypothesis import HealthCheck

from accounts import services as accounts
from accounts.models import Player
from games import services as play
from ladders.models import Ladder
from tests.factories import BotFactory, PlayerFactory
from tests.ladders import make_ladder, play_ladder_match
from tournaments import services as events

pytestmark = pytest.mark.django_db

#: The checks and their exceptions, shared with bench/fuzz.py (see the file's comments).
CONFIG = (Path(__file__).resolve().parents[2] / "schemathesis.toml").read_text()
#: Examples per operation in `make test` (41 operations; the whole file runs in about a minute).
MAX_EXAMPLES = 50
#: Steps of stateful scenarios (inferred links: an id from one answer used in the next call).
STATEFUL_EXAMPLES = 50


def build_world() -> dict:
    """Players, matches in every state, an event, a ladder: what the fuzzer's ids can hit.

    Returns the caller's token and the ids a test may want. Also used by bench/fuzz.py.
    """
    alice = accounts.player_register(
        username="alice", password="a-long-test-passphrase", name="Alice"
    )
    bob = PlayerFactory(user__username="bob", name="Bob")
    charlie = PlayerFactory(user__username="charlie", name="Charlie")
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    gil = BotFactory(name="Gil", bot_strategy="greedy")
    # Alice's game in play against a bot (timed), a challenge to her, one from her.
    in_play = play.challenge_create(
        challenger=alice,
        opponent=gus,
        time_control=play.TimeControl(base_seconds=600, increment_seconds=5),
    )
    play.challenge_create(challenger=bob, opponent=alice)
    play.challenge_create(challenger=alice, opponent=charlie)
    # Bob's game against a bot: alice may watch, never act or see his hand.
    play.challenge_create(challenger=bob, opponent=gil)
    finished = play.match_create(player_a=gus, player_b=gil, best_of=1, target=50)
    ladder = make_ladder(name="Main ladder")
    play_ladder_match(ladder, alice, bob)
    play_ladder_match(ladder, charlie, alice)
    event = events.event_create(name="Open", format="single_elim", best_of=1, target=50)
    events.event_open_registration(event=event)
    events.entry_register(event=event, player=alice)
    events.entry_register(event=event, player=bob)
    _, token = accounts.token_issue(user=alice.user)
    return {
        "token": token,
        "alice": alice.pk,
        "match": in_play.pk,
        "finished": finished.pk,
        "ladder": ladder.pk,
        "event": event.pk,
        "players": list(Player.objects.values_list("pk", flat=True)),
        "ladders": list(Ladder.objects.values_list("pk", flat=True)),
    }


#: The signed-in caller of the test running now (set by the ``world`` fixture).
CALLER: dict = {}


@pytest.fixture
def world(db):
    CALLER.update(build_world())
    yield CALLER
    CALLER.clear()


def load_schema(app=None):
    """The schema as the service serves it, read through its WSGI application in-process."""
    config = schemathesis.config.SchemathesisConfig.from_str(CONFIG)
    return schemathesis.openapi.from_wsgi(
        "/api/schema/", app or get_wsgi_application(), config=config
    )


# Generating the schema touches no database: it can load while pytest collects.
schema = load_schema()

#: Sign-outs revoke the token they are sent with: each gets a token of its own.
REVOKING = {"/api/auth/logout", "/api/auth/logoutall"}


@schema.auth(refresh_interval=None)
class SignedIn:
    """Every request as the world's player, with a real token (the checks that try the
    request without it, or with a forged one, know this is the authentication)."""

    def get(self, case, context):
        if not CALLER:  # asked while pytest collects, before any world exists
            return "none-yet"
        if case.path in REVOKING:
            return accounts.token_issue(user=Player.objects.get(pk=CALLER["alice"]).user)[1]
        return CALLER["token"]

    def set(self, case, token, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Token {token}"}


@schema.parametrize()
@hypothesis.settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_as_its_schema_says(case, world):
    cache.clear()  # throttling counters: the fuzzer would hit 429s and test nothing else
    case.call_and_validate()


def test_each_operation_is_a_test_of_its_own(request):
    """Each operation's test has its own node id (tests/unit/conftest.py): pytest-xdist, which
    runs `make test-unit`, would otherwise run one of them and drop the rest unreported."""
    ids = [
        item.nodeid
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_every_operation_answers_as_its_schema_says"
    ]
    assert len(ids) == len(set(ids))


def test_stateful_sequences_answer_as_the_schema_says(world):
    machine = schema.as_state_machine()

    class Machine(machine):
        """Each scenario starts from the same world: what one scenario created or deleted
        is rolled back before the next, so replaying a scenario meets the same answers
        (Hypothesis refuses a scenario whose answers, and so whose next steps, changed)."""

        def __init__(self):
            super().__init__()
            self.savepoint = transaction.savepoint()

        def before_call(self, case):
            cache.clear()

        def teardown(self):
            transaction.savepoint_rollback(self.savepoint)
            cache.clear()
            super().teardown()

    Machine.run(
        settings=hypothesis.settings(
            max_examples=STATEFUL_EXAMPLES,
            stateful_step_count=6,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
    )
