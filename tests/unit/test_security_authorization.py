"""Object-level authorisation on every route that takes an id, found by walking the URL map.

The cast: alice owns things (a game in play against a bot, a challenge to bob, an event entry,
a tournament match against bob, a ladder rating); dora waits in a ladder queue; mallory, a
signed-in player with no part in any of it, tries every method of every route on their ids,
and so does an anonymous client. A route the walk finds and ``RULES`` does not know fails the
test, so a new endpoint cannot be forgotten. Every attempt must be refused (or, for public
reads, answered without anything private) and must change nothing.

The admin's routes with an object id are walked the same way: for a signed-in non-staff
user every one of them is a redirect to the admin's sign-in, whatever the method.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from accounts.models import Player
from accounts.services import bot_register, bot_token_issue
from games import seeks, tables
from games import services as play
from games.models import Game, Match, Seek, TableHand
from ladders import services as ladders
from ladders.models import QueueEntry
from tests.factories import BotFactory, PlayerFactory
from tests.ladders import make_ladder, play_ladder_match
from tests.unit.test_security_hidden_info import hidden_cards, leaked
from tournaments import services as events
from tournaments.models import Entry, Event, Pairing

pytestmark = pytest.mark.django_db

METHODS = ["get", "post", "put", "patch", "delete"]


def walk(patterns=None, prefix: str = "", namespace: str | None = None):
    """(route, name, pattern) of every URL pattern, resolvers followed."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(
                pattern.url_patterns, prefix + str(pattern.pattern), pattern.namespace or namespace
            )
        elif isinstance(pattern, URLPattern):
            name = f"{namespace}:{pattern.name}" if namespace else (pattern.name or "")
            yield prefix + str(pattern.pattern), name, pattern


def takes_an_id(route: str) -> bool:
    return "<" in route or "(?P<" in route


def id_routes(kind: str) -> dict[str, str]:
    """Name -> route of every route of this kind (api, web, admin) that takes an id."""
    found = {}
    for route, name, _ in walk():
        if not takes_an_id(route):
            continue
        if kind == "admin" and route.startswith("admin/"):
            found[name or route] = route
        elif (kind == "api" and route.startswith("api/")) or (
            kind == "web" and name.startswith(("web:", "organise:"))
        ):
            # The organiser's pages are included in the web namespace: web:organise:<page>.
            found[name if kind == "api" or name.startswith("web:") else f"web:{name}"] = route
    return found


# --- the world ------------------------------------------------------------------------------


@pytest.fixture
def world(db):
    alice = PlayerFactory(user__username="alice", name="Alice")
    bob = PlayerFactory(user__username="bob", name="Bob")
    dora = PlayerFactory(user__username="dora", name="Dora")
    mallory = PlayerFactory(user__username="mallory", name="Mallory")
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    vs_bot = play.challenge_create(
        challenger=alice, opponent=gus, time_control=play.TimeControl(base_seconds=600)
    )
    challenge = play.challenge_create(challenger=alice, opponent=bob)
    ladder = make_ladder(name="Main")
    play_ladder_match(ladder, alice, bob)
    ladders.queue_join(ladder=ladder, player=dora)
    draft = events.event_create(name="Draft", format="single_elim")
    # A running event with a human tournament match alice v bob, waiting for them to show up.
    cup = events.event_create(name="Cup", format="single_elim", best_of=1, target=50)
    events.event_open_registration(event=cup)
    for player in (alice, bob):
        events.entry_register(event=cup, player=player)
    events.event_start(event=cup)
    open_event = events.event_create(name="Open", format="single_elim")
    events.event_open_registration(event=open_event)
    events.entry_register(event=open_event, player=alice)
    cup_match = Pairing.objects.filter(event=cup).exclude(match=None).first().match
    # A match at a table: its hands are entered by alice or bob, nobody else.
    at_table = tables.table_match_create(
        player_a=alice, player_b=bob, rules=None, table=1, source=Match.Source.CHALLENGE
    )
    robo = bot_register(owner=alice, name="Robo")
    # Dora's open game, for ratings of 2000 and up: mallory (1500) may read it, not take it.
    seek = seeks.seek_create(poster=dora, rating_min=2000)
    return {
        "seek": seek,
        "robo": robo,
        "robo_token": bot_token_issue(bot=robo)[0],
        "alice": alice,
        "bob": bob,
        "dora": dora,
        "mallory": mallory,
        "vs_bot": vs_bot,
        "game": Game.objects.get(match=vs_bot, status=Game.Status.ACTIVE),
        "challenge": challenge,
        "ladder": ladder,
        "draft": draft,
        "cup": cup,
        "cup_match": cup_match,
        "at_table": at_table,
        "open": open_event,
    }


def fingerprint(world: dict) -> dict:
    """Everything the attacks could change, read afresh."""
    matches = Match.objects.filter(
        pk__in=[
            world["vs_bot"].pk,
            world["challenge"].pk,
            world["cup_match"].pk,
            world["at_table"].pk,
        ]
    )
    return {
        "matches": sorted(matches.values_list("pk", "status", "ply", "winner_id")),
        "games": sorted(Game.objects.values_list("pk", "ply", "status")),
        "entries": sorted(Entry.objects.values_list("pk", "status", "checked_in_at")),
        "events": sorted(Event.objects.values_list("pk", "status")),
        "queue": sorted(QueueEntry.objects.values_list("player_id", "ladder_id")),
        "players": sorted(Player.objects.values_list("pk", "name")),
        "pairings": sorted(Pairing.objects.values_list("pk", "ready_a_at", "ready_b_at")),
        "hands": sorted(TableHand.objects.values_list("pk", "match_id", "number")),
        "confirmations": sorted(Match.objects.values_list("pk", "confirmation")),
        "seeks": sorted(Seek.objects.values_list("pk", "status", "match_id")),
    }


# --- what each route may answer to someone it does not belong to ---------------------------


@dataclass(frozen=True)
class Rule:
    """How to fill a route's ids from the world, and what mallory may get per method.

    ``reads`` are the statuses a GET may answer (200 for public data); every other method the
    view allows must be refused with one of ``refusals``.
    """

    ids: Callable[[dict], dict]
    reads: frozenset[int] = frozenset({200})
    refusals: frozenset[int] = frozenset({403, 404, 409})
    #: The route acts on the caller's own row (joining a queue): checked apart.
    own_row: bool = False


ALICE = lambda w: {"pk": w["alice"].pk}  # noqa: E731
GAME = lambda w: {"pk": w["game"].pk}  # noqa: E731
VS_BOT = lambda w: {"pk": w["vs_bot"].pk}  # noqa: E731
CHALLENGE = lambda w: {"pk": w["challenge"].pk}  # noqa: E731
LADDER = lambda w: {"pk": w["ladder"].pk}  # noqa: E731
DRAFT = lambda w: {"pk": w["draft"].pk}  # noqa: E731
OPEN = lambda w: {"pk": w["open"].pk}  # noqa: E731
ROBO = lambda w: {"pk": w["robo"].pk}  # noqa: E731
AT_TABLE = lambda w: {"pk": w["at_table"].pk}  # noqa: E731
SEEK = lambda w: {"pk": w["seek"].pk}  # noqa: E731
AT_TABLE_HAND = lambda w: {"pk": w["at_table"].pk, "number": 0}  # noqa: E731

API_RULES: dict[str, list[Rule]] = {
    "player-detail": [Rule(ALICE)],
    # Public matches read; another player's challenge is a 404, not a 403.
    "match-detail": [Rule(VS_BOT), Rule(CHALLENGE, reads=frozenset({404}))],
    "match-accept": [Rule(CHALLENGE), Rule(VS_BOT)],
    "match-decline": [Rule(CHALLENGE), Rule(VS_BOT)],
    "match-cancel": [Rule(CHALLENGE), Rule(VS_BOT)],
    "match-resign": [Rule(VS_BOT), Rule(CHALLENGE)],
    # Unfinished: no log for anyone.
    "match-replay": [Rule(VS_BOT, reads=frozenset({409})), Rule(CHALLENGE, reads=frozenset({404}))],
    # Read like the replay (404 not_analysed once finished); asked only by the players: 403.
    "match-analysis": [
        Rule(VS_BOT, reads=frozenset({404, 409})),
        Rule(CHALLENGE, reads=frozenset({404})),
    ],
    # A spectator's view (checked for hidden cards below).
    # A table match's sheet is public; its hands and result are its players' (and organisers').
    "match-sheet": [Rule(AT_TABLE), Rule(VS_BOT, reads=frozenset({409}))],
    "match-hands": [Rule(AT_TABLE), Rule(VS_BOT)],
    "match-hands-last": [Rule(AT_TABLE)],
    "match-hand": [Rule(AT_TABLE_HAND)],
    "match-confirm": [Rule(AT_TABLE)],
    "match-dispute": [Rule(AT_TABLE)],
    # An open game is public; joining one outside your rating range is a 409, and only its
    # poster cancels it.
    "seek-detail": [Rule(SEEK)],
    "seek-join": [Rule(SEEK)],
    "seek-cancel": [Rule(SEEK)],
    "game-detail": [Rule(GAME)],
    "game-actions": [Rule(GAME)],
    "game-continue": [Rule(GAME)],
    "ladder-detail": [Rule(LADDER)],
    # Only the caller's own place in the queue: dora's stays whatever mallory does.
    "ladder-queue": [Rule(LADDER, refusals=frozenset({201, 204, 403, 404, 409}), own_row=True)],
    "ladder-leaderboard": [Rule(LADDER)],
    "ladder-rating": [Rule(lambda w: {"pk": w["ladder"].pk, "player_id": w["alice"].pk})],
    "ladder-rating-history": [Rule(lambda w: {"pk": w["ladder"].pk, "player_id": w["alice"].pk})],
    "ladder-head-to-head": [Rule(LADDER, reads=frozenset({400}))],  # needs query parameters
    # Seasons are public to read; opening one is for staff (a 403 for mallory, nothing made).
    "ladder-seasons": [Rule(LADDER)],
    # No season has been played in the world: its standings are a 404 for everyone.
    "ladder-season-standings": [
        Rule(lambda w: {"pk": w["ladder"].pk, "number": 1}, reads=frozenset({404}))
    ],
    # Drafts are staff-only: a 404 for everyone else.
    "event-detail": [Rule(OPEN), Rule(DRAFT, reads=frozenset({404}))],
    "event-entries": [Rule(OPEN), Rule(DRAFT, reads=frozenset({404}))],
    "event-bracket": [Rule(OPEN), Rule(DRAFT, reads=frozenset({404}))],
    "event-standings": [Rule(OPEN), Rule(DRAFT, reads=frozenset({404}))],
    "event-standings-csv": [Rule(OPEN), Rule(DRAFT, reads=frozenset({404}))],
    "event-results-csv": [Rule(OPEN), Rule(DRAFT, reads=frozenset({404}))],
    # Mallory's own registration is hers to make: it must not touch alice's entry. Withdraw
    # and check-in act on the caller's own entry only (409: not registered).
    "event-register": [Rule(DRAFT), Rule(lambda w: {"pk": w["cup"].pk})],
    "event-withdraw": [Rule(OPEN)],
    "event-check-in": [Rule(OPEN)],
    # An arena's pause and rejoin act on the caller's own entry (409: not an arena, not
    # entered); berserk only in the caller's own match (403 for alice's, 409 outside arenas).
    "event-arena-pause": [Rule(OPEN), Rule(lambda w: {"pk": w["cup"].pk})],
    "event-arena-rejoin": [Rule(OPEN), Rule(lambda w: {"pk": w["cup"].pk})],
    "event-match-berserk": [
        Rule(lambda w: {"pk": w["cup"].pk, "match_id": w["cup_match"].pk}),
        Rule(lambda w: {"pk": w["open"].pk, "match_id": w["cup_match"].pk}),
    ],
    # Alice's bot and its tokens: a 404 for anyone else. The game stream takes only a bot's
    # token in its header (mallory signs in otherwise: 401), and only GET (405).
    "bot-detail": [Rule(ROBO, reads=frozenset({404}))],
    "bot-tokens": [Rule(ROBO, reads=frozenset({404}))],
    "bot-token-detail": [Rule(lambda w: {"pk": w["robo"].pk, "key": w["robo_token"].token_key})],
    "bot-stream-game": [
        Rule(
            lambda w: {"game_id": w["game"].pk},
            reads=frozenset({401}),
            refusals=frozenset({401, 405}),
        )
    ],
    "event-match-ready": [
        Rule(lambda w: {"pk": w["cup"].pk, "match_id": w["cup_match"].pk}),
        Rule(lambda w: {"pk": w["open"].pk, "match_id": w["cup_match"].pk}),
    ],
    # A Swiss or round robin's report: the open event is a bracket (400), the draft hidden.
    "event-trf": [Rule(OPEN, reads=frozenset({400})), Rule(DRAFT, reads=frozenset({404}))],
    # The organiser API: staff with the model permission only (403 before any lookup).
    **{
        name: [Rule(OPEN, reads=frozenset({403})), Rule(DRAFT, reads=frozenset({403}))]
        for name in (
            "event-open-registration",
            "event-close-registration",
            "event-players",
            "event-guests",
            "event-bots",
            "event-import",
            "event-seed",
            "event-start",
            "event-cancel",
            "event-log",
            "event-webhooks",
        )
    },
    **{
        name: [Rule(lambda w: {"pk": w["cup"].pk, "entry_id": w["cup"].entries.first().pk})]
        for name in (
            "event-entry-withdraw",
            "event-entry-disqualify",
            "event-entry-reinstate",
            "event-entry-check-in",
        )
    },
    **{
        name: [Rule(lambda w: {"pk": w["cup"].pk, "key": "R1.1"})]
        for name in ("event-pairing-override", "event-pairing-rerun", "event-pairing-table")
    },
    "event-webhook-deliveries": [
        Rule(lambda w: {"pk": w["cup"].pk, "webhook_id": 1}, reads=frozenset({403}))
    ],
    "event-webhook-resend": [
        Rule(lambda w: {"pk": w["cup"].pk, "webhook_id": 1, "delivery_id": 1})
    ],
    **{name: [Rule(LADDER)] for name in ("ladder-open", "ladder-close", "ladder-queue-bots")},
    # A guest's invitation link: organisers only (403 before any lookup).
    "player-invitation": [Rule(ALICE)],
}

#: Pages: public to read, never with a hidden card (they are shells fed by the API).
WEB_RULES: dict[str, list[Rule]] = {
    "web:table": [Rule(GAME, reads=frozenset({200, 302}))],
    "web:match": [
        Rule(VS_BOT, reads=frozenset({200, 302})),
        Rule(CHALLENGE, reads=frozenset({404})),
    ],
    "web:replay": [
        Rule(VS_BOT, reads=frozenset({200, 302, 409})),
        Rule(CHALLENGE, reads=frozenset({404})),
    ],
    # Asking for an analysis, closing a fair-play flag, marking an account: POST only (GET: 405).
    "web:analyse": [Rule(VS_BOT, reads=frozenset({405}))],
    "web:fair_play_dismiss": [Rule(ALICE, reads=frozenset({405}))],
    "web:fair_play_assisted": [Rule(ALICE, reads=frozenset({405}))],
    # A score pad is a table match's: an online match or someone else's challenge has none.
    "web:pad": [
        Rule(VS_BOT, reads=frozenset({404})),
        Rule(CHALLENGE, reads=frozenset({404})),
    ],
    "web:event": [Rule(OPEN, reads=frozenset({200, 302})), Rule(DRAFT, reads=frozenset({404}))],
    "web:player": [Rule(ALICE, reads=frozenset({200, 302}))],
    # Printed pages and the projector's screen: an event's public pages, a draft hidden.
    **{
        f"web:{page}": [Rule(OPEN), Rule(DRAFT, reads=frozenset({404}))]
        for page in (
            "print_pairings",
            "print_sheets",
            "print_standings",
            "print_bracket",
            "screen",
            "screen_panels",
        )
    },
    # An invitation link that is not one: a page that says so, nothing else.
    "web:guest_claim": [Rule(lambda w: {"token": "not-a-token"}, reads=frozenset({404}))],
    # The organiser's pages: for staff the organiser API lets act (a player gets 403).
    **{
        f"web:organise:{page}": [
            Rule(OPEN, reads=frozenset({403})),
            Rule(DRAFT, reads=frozenset({403})),
        ]
        for page in ("event", "edit", "entrants", "check_in", "start", "round")
    },
    # An unsubscribe link that is not one (forged or altered): 400, nothing turned off.
    "web:unsubscribe": [Rule(lambda w: {"token": "not-a-token"}, reads=frozenset({400}))],
    # Someone else's reset link without its token: the page says the link does not work.
    "web:password_reset_confirm": [
        Rule(lambda w: {"uidb64": _uid(w["alice"].user), "token": "set-password"}),
        Rule(lambda w: {"uidb64": _uid(w["alice"].user), "token": "bogus-token"}),
    ],
}


def _uid(user) -> str:
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    return urlsafe_base64_encode(force_bytes(user.pk))


def test_every_api_route_with_an_id_has_an_authorisation_rule():
    assert set(id_routes("api")) == set(API_RULES), "classify the new route in API_RULES"


def test_every_page_with_an_id_has_an_authorisation_rule():
    assert set(id_routes("web")) == set(WEB_RULES), "classify the new page in WEB_RULES"


def url(route_name: str, ids: dict) -> str:
    from django.urls import reverse

    return reverse(route_name, kwargs=ids)


def allowed_methods(route_name: str) -> list[str]:
    for _, name, pattern in walk():
        if name == route_name:
            view = getattr(pattern.callback, "view_class", None) or getattr(
                pattern.callback, "cls", None
            )
            actions = getattr(pattern.callback, "actions", None)
            if actions:  # a viewset: the methods it maps
                return [m for m in METHODS if m in actions]
            if view is None:
                return ["get", "post"]
            return [m for m in METHODS if hasattr(view, m)]
    raise AssertionError(route_name)


def mallory_client(world) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=world["mallory"].user)
    return client


def check_no_hidden_card(world: dict, text: str, what: str) -> None:
    hidden = hidden_cards(world["vs_bot"], None)
    assert not leaked(text, hidden), f"{what} shows hidden cards {leaked(text, hidden)}"


@pytest.mark.parametrize(
    ("route_name", "rule_index"),
    [(name, i) for name, rules in API_RULES.items() for i in range(len(rules))],
)
def test_a_stranger_cannot_read_or_change_what_is_not_theirs(world, route_name, rule_index):
    rule = API_RULES[route_name][rule_index]
    path = url(route_name, rule.ids(world))
    before = fingerprint(world)
    for who, client in (("mallory", mallory_client(world)), ("anonymous", APIClient())):
        for method in allowed_methods(route_name):
            response = getattr(client, method)(path, {}, format="json")
            what = f"{method.upper()} {path} as {who}"
            if method == "get":
                expected = rule.reads | ({401} if who == "anonymous" else set())
                assert response.status_code in expected, f"{what}: {response.status_code}"
                check_no_hidden_card(world, response.content.decode(), what)
            elif who == "anonymous":
                assert response.status_code == 401, f"{what}: {response.status_code}"
            else:
                assert response.status_code in rule.refusals, (
                    f"{what}: {response.status_code} {response.content[:200]}"
                )
            if not rule.own_row:
                assert fingerprint(world) == before, f"{what} changed something"


def test_a_stranger_sees_a_spectators_view_of_a_game(world):
    response = mallory_client(world).get(f"/api/games/{world['game'].pk}")

    body = response.json()
    assert response.status_code == 200
    assert body["you"] is None and body["hand"] is None and body["opponent"] is None
    assert body["legal_actions"] == []


def test_a_stranger_cannot_move_in_anothers_game(world):
    game = world["game"]
    game.refresh_from_db()

    response = mallory_client(world).post(
        f"/api/games/{game.pk}/actions", {"ply": game.ply, "type": "pass"}, format="json"
    )

    assert response.status_code == 403
    assert response.json()["code"] == "not_a_player"
    assert Game.objects.get(pk=game.pk).ply == game.ply


def test_a_stranger_cannot_withdraw_anothers_entry(world):
    entry = Entry.objects.get(event=world["open"], player=world["alice"])

    response = mallory_client(world).post(f"/api/events/{world['open'].pk}/withdraw")

    assert response.status_code == 409
    assert response.json()["code"] == "not_registered"
    assert Entry.objects.get(pk=entry.pk).status == entry.status


def test_a_stranger_cannot_take_anothers_place_in_a_queue(world):
    ladder, dora = world["ladder"], world["dora"]

    left = mallory_client(world).delete(f"/api/ladders/{ladder.pk}/queue")
    status = mallory_client(world).get(f"/api/ladders/{ladder.pk}/queue").json()

    assert left.status_code == 409 and left.json()["code"] == "not_queued"
    assert status["status"] == "idle"  # her own status, not dora's
    assert QueueEntry.objects.filter(ladder=ladder, player=dora).exists()


def test_a_player_cannot_take_staff_actions(world):
    client = mallory_client(world)

    created = client.post("/api/events", {"name": "Mine", "format": "swiss"}, format="json")

    assert created.status_code == 403
    assert not Event.objects.filter(name="Mine").exists()


@pytest.mark.parametrize(
    ("route_name", "rule_index"),
    [(name, i) for name, rules in WEB_RULES.items() for i in range(len(rules))],
)
def test_pages_show_a_stranger_nothing_private(world, client, route_name, rule_index):
    rule = WEB_RULES[route_name][rule_index]
    client.force_login(world["mallory"].user)
    path = url(route_name, rule.ids(world))

    response = client.get(path)

    assert response.status_code in rule.reads, f"GET {path}: {response.status_code}"
    check_no_hidden_card(world, response.content.decode(), f"GET {path}")


def test_the_admin_turns_away_every_non_staff_user_on_every_object_route(world, client):
    client.force_login(world["mallory"].user)
    routes = id_routes("admin")
    assert len(routes) > 40  # every model admin's change/delete/history pages, and more
    for route in routes.values():
        path = "/" + (
            route.replace("<path:object_id>", "1")
            .replace("<path:content_type_id>", "1")
            .replace("<id>", "1")
            .replace("^", "")
            .replace("$", "")
        )
        if "(?P<" in path:
            path = "/admin/games/"  # the app list and the catch-all: any such path
        for method in ("get", "post"):
            response = getattr(client, method)(path)
            assert response.status_code in (302, 404), f"{method.upper()} {path}"
            if response.status_code == 302:
                assert "/admin/login/" in response["Location"], f"{method.upper()} {path}"
    assert json.dumps(fingerprint(world), default=str)  # the world is still readable
