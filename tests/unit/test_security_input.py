"""Input an attacker controls: body size, nesting, string and list lengths, duplicate deals.

- A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is a 413, JSON nested deeper than a few levels a
  400 ``parse_error`` (it was a 500 from a RecursionError, even on the anonymous sign-in).
- Every string and every list of every request body has a cap the schema states, and rule set
  names are short labels: a 2 MB ``rules.name`` was stored on the match and rewritten with
  every move.
- Duplicate deals are for house bots only: a person playing the second deal of a pair has
  seen both hands and the stock from the other seat.
- A property test sends random oversized and deeply nested bodies to every operation of the
  schema: never a 5xx.
"""

from __future__ import annotations

import io
import json
import random

import hypothesis
import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import Player
from common.parsers import MAX_DEPTH, JSONParser, RequestTooLarge, loads
from games import services as play
from games.models import Deal, Game, Match
from games.selectors import game_view
from ladders import services as ladders
from tests.factories import BotFactory, PlayerFactory
from tests.live import Socket, fresh_layer, run, token_for
from tests.play import pick
from tournaments import services as events

pytestmark = pytest.mark.django_db


def nested(depth: int, leaf=1, kind: str = "list"):
    """``depth`` levels of arrays (or objects) around ``leaf``, built without recursion."""
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    return value


def post_raw(client: APIClient, path: str, body: str):
    return client.generic("POST", path, body, content_type="application/json")


# --- nesting and size -------------------------------------------------------------------------


def test_json_nested_a_thousand_deep_on_the_anonymous_sign_in_is_a_parse_error(client):
    body = '{"username": ' + "[" * 1000 + "]" * 1000 + ', "password": "x"}'

    response = post_raw(client, "/api/auth/login", body)

    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_json_one_level_deeper_than_the_limit_is_a_parse_error(alice_client, kind):
    body = json.dumps({"opponent": 1, "rules": nested(MAX_DEPTH, kind=kind)})

    response = post_raw(alice_client, "/api/matches", body)

    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"
    assert Match.objects.count() == 0


def test_json_at_the_depth_limit_reaches_validation(alice_client):
    body = json.dumps({"opponent": 1, "rules": nested(MAX_DEPTH - 1, kind="dict")})

    response = post_raw(alice_client, "/api/matches", body)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"  # parsed; refused by the serializer


def test_a_body_over_the_size_cap_is_413_and_creates_nothing(alice_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    body = json.dumps({"opponent": 1, "rules": {"name": "x" * 5000}})

    response = post_raw(alice_client, "/api/matches", body)

    assert response.status_code == 413
    assert response.json()["code"] == "request_too_large"
    assert Match.objects.count() == 0


def test_a_body_over_the_size_cap_is_413_on_the_anonymous_sign_in(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    body = json.dumps({"username": "a" * 5000, "password": "x"})

    response = post_raw(client, "/api/auth/login", body)

    assert response.status_code == 413
    assert response.json() == {
        "detail": "A request body may be at most 4096 bytes.",
        "code": "request_too_large",
    }


def test_the_parser_itself_reads_no_more_than_the_cap(settings):
    # Django checks the size when it reads request.body first; the parser checks it when it
    # reads the stream itself.
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    parser = JSONParser()

    with pytest.raises(RequestTooLarge):
        parser.parse(io.BytesIO(json.dumps("x" * 1100).encode()), parser_context={})
    assert parser.parse(io.BytesIO(json.dumps("x" * 1000).encode()), parser_context={}) == (
        "x" * 1000
    )


def test_loads_refuses_deep_json_for_code_that_parses_it_itself():
    with pytest.raises(ValueError, match="nest at most"):
        loads("[" * 5000 + "]" * 5000)
    with pytest.raises(ValueError, match="nest at most"):
        loads(json.dumps(nested(MAX_DEPTH + 1)))
    assert loads(json.dumps(nested(MAX_DEPTH))) == nested(MAX_DEPTH)


@pytest.mark.parametrize(
    "text",
    ['"\\ud800"', '{"\\udc00": 1}', '["ok", "x\\ud83d"]', "NaN", "-Infinity", "1e999999"],
)
def test_loads_refuses_what_no_json_answer_could_echo(text):
    with pytest.raises(ValueError):
        loads(text)


def test_loads_takes_a_surrogate_pair_as_the_one_character_it_is():
    assert loads('"\\ud83c\\udca1"') == "\U0001f0a1"


@pytest.mark.django_db(transaction=True)
def test_a_socket_message_with_a_lone_surrogate_or_infinity_is_malformed_and_stays_open(alice):
    fresh_layer()

    async def scenario():
        socket = await Socket.open("/ws/me", token=await database_sync_to_async(token_for)(alice))
        await socket.receive("summary")
        for text in ('{"type": "ping", "t": "\\ud800"}', '{"type": "ping", "t": 1e999999}'):
            await socket.send(text)
            assert (await socket.receive("error"))["code"] == "malformed"
        await socket.send({"type": "ping", "t": 7})
        assert (await socket.receive("pong"))["t"] == 7
        await socket.close()

    run(scenario)


@pytest.mark.django_db(transaction=True)
def test_a_socket_message_nested_too_deep_is_malformed_and_the_socket_stays_open(alice):
    fresh_layer()

    async def scenario():
        socket = await Socket.open("/ws/me", token=await database_sync_to_async(token_for)(alice))
        await socket.receive("summary")
        await socket.send("[" * 5000 + "]" * 5000)  # within the socket's size cap
        assert (await socket.receive("error"))["code"] == "malformed"
        await socket.send({"type": "sync"})
        assert (await socket.receive("summary"))["challenges"] == []
        await socket.close()

    run(scenario)


def test_the_default_body_cap_is_small(settings):
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 64 * 1024


# --- strings and lists ------------------------------------------------------------------------


def test_a_long_rules_name_is_refused_and_stores_nothing(alice_client, bob):
    response = alice_client.post(
        "/api/matches",
        {"opponent": bob.pk, "rules": {"preset": "standard", "name": "x" * 41}},
        format="json",
    )

    assert response.status_code == 400
    assert "rules" in response.json()["errors"]
    assert Match.objects.count() == 0


def test_a_rules_name_of_forty_characters_is_a_label(alice_client, bob):
    response = alice_client.post(
        "/api/matches",
        {"opponent": bob.pk, "rules": {"preset": "standard", "name": "x" * 40}},
        format="json",
    )

    assert response.status_code == 201, response.content
    assert response.json()["rules"]["name"] == "x" * 40


def test_a_preset_name_given_as_a_long_string_is_refused(alice_client, bob):
    response = alice_client.post(
        "/api/matches", {"opponent": bob.pk, "rules": "s" * 41}, format="json"
    )

    assert response.status_code == 400
    assert "rules" in response.json()["errors"]


@pytest.mark.parametrize("value", [["standard"], {"deep": {"er": 1}}, "x" * 41, 1.5])
def test_a_rule_option_is_a_short_string_an_integer_or_a_boolean(alice_client, bob, value):
    response = alice_client.post(
        "/api/matches", {"opponent": bob.pk, "rules": {"name": value}}, format="json"
    )

    assert response.status_code == 400
    assert "rules" in response.json()["errors"]


def test_too_many_rule_options_are_refused(alice_client, bob):
    rules = {f"option_{i}": 1 for i in range(31)}

    response = alice_client.post(
        "/api/matches", {"opponent": bob.pk, "rules": rules}, format="json"
    )

    assert response.status_code == 400
    assert "rules" in response.json()["errors"]


def test_rules_build_refuses_a_long_name_from_any_caller():
    with pytest.raises(play.PlayError) as refused:
        play.rules_build({"preset": "standard", "name": "n" * 41})

    assert refused.value.code == "invalid_rules"
    assert play.rules_build({"preset": "standard", "name": "n" * 40}).name == "n" * 40


def test_an_event_with_a_long_rules_name_is_refused():
    with pytest.raises(events.TournamentError):
        events.event_create(
            name="Open", format="single_elim", rules={"preset": "standard", "name": "n" * 41}
        )


def request_schemas() -> dict[str, dict]:
    """Every request body's schema, by operation."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    found = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody")
            if body:
                ref = body["content"]["application/json"]["schema"]["$ref"]
                found[f"{method.upper()} {path}"] = components[ref.rsplit("/", 1)[1]]
    return found, components


def uncapped(node: dict, components: dict, where: str) -> list[str]:
    """Strings without maxLength (or an enum or a format) and arrays without maxItems."""
    if "$ref" in node:
        return uncapped(components[node["$ref"].rsplit("/", 1)[1]], components, where)
    problems = []
    for key in ("oneOf", "anyOf", "allOf"):
        for sub in node.get(key, []):
            problems += uncapped(sub, components, where)
    kind = node.get("type")
    if kind == "string" and not {"maxLength", "enum", "format"} & set(node):
        problems.append(f"{where}: a string without maxLength")
    if kind == "array":
        if "maxItems" not in node:
            problems.append(f"{where}: an array without maxItems")
        problems += uncapped(node.get("items", {}), components, f"{where}[]")
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        if "maxProperties" not in node:
            problems.append(f"{where}: an object of any size")
        problems += uncapped(node["additionalProperties"], components, f"{where}.*")
    for name, sub in node.get("properties", {}).items():
        problems += uncapped(sub, components, f"{where}.{name}")
    if not kind and not {"oneOf", "anyOf", "allOf", "$ref", "enum"} & set(node):
        problems.append(f"{where}: any JSON at all")
    return problems


def test_every_string_list_and_map_of_every_request_body_is_capped():
    bodies, components = request_schemas()
    assert len(bodies) >= 6

    problems = [p for name, body in bodies.items() for p in uncapped(body, components, name)]

    assert problems == []


# --- duplicate deals --------------------------------------------------------------------------

DUPLICATE = {"preset": "standard", "duplicate_deals": True}


def test_a_challenge_with_duplicate_deals_is_refused_naming_why(alice_client, bob):
    response = alice_client.post(
        "/api/matches", {"opponent": bob.pk, "rules": DUPLICATE}, format="json"
    )

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "duplicate_deals_need_bots"
    assert "both hands" in body["detail"]
    assert Match.objects.count() == 0


def test_a_person_may_not_play_duplicate_deals_against_a_bot_either(alice_client):
    gus = BotFactory(name="Gus", bot_strategy="greedy")

    response = alice_client.post(
        "/api/matches", {"opponent": gus.pk, "rules": DUPLICATE}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "duplicate_deals_need_bots"


def test_an_external_bot_is_not_a_house_bot_for_duplicate_deals():
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    owner = PlayerFactory(name="Owner")
    program = PlayerFactory(name="Program", kind=Player.Kind.EXTERNAL, owner=owner)

    with pytest.raises(play.PlayError) as refused:
        play.match_create(player_a=gus, player_b=program, rules=DUPLICATE)

    assert refused.value.code == "duplicate_deals_need_bots"


def test_bot_matches_keep_duplicate_deals(django_capture_on_commit_callbacks):
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    gil = BotFactory(name="Gil", bot_strategy="greedy")

    with django_capture_on_commit_callbacks(execute=True):
        match = play.match_create(player_a=gus, player_b=gil, rules=DUPLICATE, best_of=1, target=50)

    match.refresh_from_db()
    assert match.rules["duplicate_deals"] is True
    assert match.status == Match.Status.FINISHED


def test_a_person_cannot_enter_a_duplicate_deals_event(alice):
    event = events.event_create(name="Duplicate", format="round_robin", duplicate_deals=True)
    events.event_open_registration(event=event)

    with pytest.raises(events.TournamentError) as refused:
        events.entry_register(event=event, player=alice)
    with pytest.raises(events.TournamentError):
        events.entry_add(event=event, player=alice)

    assert refused.value.code == "duplicate_deals_need_bots"
    assert event.entries.count() == 0


def test_an_event_with_people_entered_cannot_turn_duplicate_deals_on(alice):
    event = events.event_create(name="Open", format="round_robin")
    events.event_open_registration(event=event)
    events.entry_register(event=event, player=alice)
    event.refresh_from_db()
    event.duplicate_deals = True  # what the admin's form would save

    with pytest.raises(events.TournamentError) as refused:
        events.event_validate(event)

    assert refused.value.code == "duplicate_deals_need_bots"


def test_a_person_registering_for_a_duplicate_deals_event_gets_a_400(alice, alice_client):
    event = events.event_create(name="Duplicate", format="round_robin", duplicate_deals=True)
    events.event_open_registration(event=event)

    response = alice_client.post(f"/api/events/{event.pk}/register")

    assert response.status_code == 400
    assert response.json()["code"] == "duplicate_deals_need_bots"


def test_bot_events_keep_duplicate_deals():
    event = events.event_create(
        name="Bots", format="round_robin", duplicate_deals=True, best_of=1, target=50
    )
    events.event_open_registration(event=event)

    entries = events.bots_add(event=event, count=3, strategy="greedy")

    assert len(entries) == 3


def test_a_ladder_cannot_play_duplicate_deals():
    with pytest.raises(ladders.LadderError) as refused:
        ladders.ladder_create(name="Duplicate ladder", rules=DUPLICATE)

    assert refused.value.code == "duplicate_deals_need_bots"


def test_last_deal_hides_the_hands_while_the_same_cards_are_dealt_again(alice, bob, charlie):
    # No person can be seated at such a match any more; the view refuses to tell even so,
    # to anyone (a spectator of a bot match would learn the hands of the deal in play).
    match = play.match_create(player_a=alice, player_b=bob, start=False, seed=5)
    Match.objects.filter(pk=match.pk).update(rules={**match.rules, "duplicate_deals": True})
    match.refresh_from_db()
    play.match_start(match=match)
    rng = random.Random(2)
    players = {0: alice, 1: bob}
    game = Game.objects.get(match=match)
    while not Deal.objects.filter(game=game, status=Deal.Status.FINISHED).exists():
        game.refresh_from_db()
        mover = players[game.to_act]
        data = game_view(game=game, viewer=mover)
        action = pick(data["legal_actions"], rng, data["hand"])
        from games.engine.actions import Action as EngineAction

        play.action_submit(
            game_id=game.pk, player=mover, ply=game.ply, action=EngineAction.from_json(action)
        )
    first = Deal.objects.get(game=game, number=0)
    second = Deal.objects.get(game=game, number=1)
    assert second.seed == first.seed and second.status == Deal.Status.ACTIVE

    game = Game.objects.get(pk=game.pk)  # the game and its match as they are now
    for viewer in (alice, bob, charlie):
        last = game_view(game=game, viewer=viewer)["last_deal"]
        assert last["number"] == 0
        assert last["hands"] is None
        assert last["outcome"] is not None


# --- property: random oversized and deep bodies on every operation ----------------------------


def operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (method.upper(), path)
        for path, ops in schema["paths"].items()
        for method in ops
        if method in {"get", "post", "put", "patch", "delete"}
    ]


def fill(path: str, world: dict) -> str:
    """Path parameters of real objects, so a body reaches the view behind them."""
    for name, value in world.items():
        path = path.replace("{" + name + "}", str(value))
    return path


def deep_text(depth: int, kind: str) -> str:
    """JSON text of ``depth`` nested arrays or objects (too deep for json.dumps to write)."""
    if kind == "list":
        return "[" * depth + "1" + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def bodies():
    """Random bodies the schema would never send: huge, deep, or both, as JSON text."""
    key = st.sampled_from(
        [
            "opponent",
            "rules",
            "name",
            "username",
            "password",
            "ply",
            "type",
            "card",
            "melds",
            "format",
            "tiebreaks",
            "time_control",
            "best_of",
            "capacity",
            "x",
        ]
    )
    deep = st.builds(deep_text, st.integers(MAX_DEPTH + 1, 3000), st.sampled_from(["list", "dict"]))
    huge_text = st.integers(10_000, 30_000).map(lambda n: json.dumps("é" * n))
    long_list = st.integers(100, 5_000).map(lambda n: json.dumps(["AS"] * n))
    big_int = st.integers(2**63, 2**200).map(str)
    value = st.one_of(deep, huge_text, long_list, big_int)
    fields = st.dictionaries(key, value, min_size=1, max_size=3).map(
        lambda d: "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in d.items()) + "}"
    )
    oversized = st.integers(65_537, 200_000).map(lambda n: json.dumps({"name": "x" * n}))
    return st.one_of(fields, oversized, deep)


@pytest.fixture
def staff_client(db):
    boss = PlayerFactory(user__username="boss", user__is_staff=True, user__is_superuser=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {accounts.token_issue(user=boss.user)[1]}")
    bob = PlayerFactory(user__username="bob", name="Bob")
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    match = play.match_create(player_a=boss, player_b=bob)
    event = events.event_create(name="Open", format="single_elim", best_of=1, target=50)
    events.event_open_registration(event=event)
    ladder = ladders.ladder_create(name="Main")
    game = Game.objects.get(match=match)
    client.world = {
        "id": match.pk,
        "match_id": match.pk,
        "player_id": bob.pk,
        "game": game.pk,
        "event": event.pk,
        "ladder": ladder.pk,
        "gus": gus.pk,
    }
    return client


@pytest.mark.parametrize(("method", "path"), operations())
@hypothesis.settings(
    max_examples=12,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(body=bodies())
def test_random_oversized_and_deep_bodies_never_give_a_5xx(staff_client, method, path, body):
    cache.clear()  # throttling would answer 429 and test nothing else
    world = staff_client.world
    ids = {"id": world["id"], "match_id": world["match_id"], "player_id": world["player_id"]}
    if path.startswith("/api/games/"):
        ids["id"] = world["game"]
    elif path.startswith("/api/events/"):
        ids["id"] = world["event"]
    elif path.startswith("/api/ladders/"):
        ids["id"] = world["ladder"]
    url = fill(path, ids)

    response = staff_client.generic(method, url, body, content_type="application/json")

    assert response.status_code < 500, (method, url, body[:200], response.content[:300])
