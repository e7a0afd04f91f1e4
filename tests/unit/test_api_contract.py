"""The API keeps the contract its schema and docs/api.md state.

- Every integer and id field of every request body takes a JSON integer only: ``"23"`` and
  ``23.5`` (and ``23.0``) are a 400 naming the field, never read as 23. Driven by the schema,
  so a field added later is checked too.
- Every error code the code base can answer with is named by the schema (per operation and
  status) and by the error table of docs/api.md; the schema names no code that nothing
  answers with.
- The schema describes the service as it is.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.cache import cache
from drf_spectacular.generators import SchemaGenerator
from rest_framework import exceptions
from rest_framework.test import APIClient

from accounts import services as accounts
from common import schema as schema_docs
from games import services as play
from games.models import Game, Match
from ladders import services as ladders
from tests.factories import PlayerFactory
from tournaments import services as events

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def openapi() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def resolve(node: dict, components: dict) -> dict:
    while "$ref" in node:
        node = components[node["$ref"].rsplit("/", 1)[1]]
    if "allOf" in node and len(node["allOf"]) == 1:
        return resolve(node["allOf"][0], components)
    return node


def integer_fields(node: dict, components: dict, prefix: str = "") -> list[tuple[str, dict]]:
    """Dotted paths of the integer properties of a body schema, nested objects included."""
    node = resolve(node, components)
    found = []
    for name, sub in node.get("properties", {}).items():
        sub = resolve(sub, components)
        path = f"{prefix}{name}"
        if sub.get("type") == "integer":
            found.append((path, sub))
        elif "properties" in sub:
            found += integer_fields(sub, components, f"{path}.")
    return found


def body_cases(fields_of) -> list[tuple[str, str, str]]:
    """(method, path, field) for each field ``fields_of(schema, components)`` finds in each
    JSON request body of the schema."""
    schema = openapi()
    components = schema["components"]["schemas"]
    cases = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = (operation.get("requestBody") or {}).get("content", {})
            if "application/json" not in content:
                continue
            fields = fields_of(content["application/json"]["schema"], components)
            cases += [(method.upper(), path, field) for field in fields]
    return cases


def integer_cases() -> list[tuple[str, str, str]]:
    return body_cases(lambda body, components: [f for f, _ in integer_fields(body, components)])


def body_with(field: str, value) -> dict:
    body: dict = {}
    node = body
    *parents, last = field.split(".")
    for name in parents:
        node = node.setdefault(name, {})
    node[last] = value
    return body


@pytest.fixture
def world(db):
    """A staff player with a game in play, an event and a ladder: what the bodies reach."""
    boss = PlayerFactory(user__username="boss", user__is_staff=True, user__is_superuser=True)
    bob = PlayerFactory(user__username="bob", name="Bob")
    match = play.match_create(player_a=boss, player_b=bob)
    event = events.event_create(name="Open", format="single_elim", best_of=1, target=50)
    ladder = ladders.ladder_create(name="Main")
    robot = accounts.bot_register(owner=boss, name="Robot")
    entry = events.entry_add(event=event, player=bob)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {accounts.token_issue(user=boss.user)[1]}")
    return {
        "client": client,
        "robot": robot,
        "entry": entry,
        "bob": bob,
        "match": match,
        "game": Game.objects.get(match=match),
        "event": event,
        "ladder": ladder,
    }


def url_for(path: str, world: dict) -> str:
    ids = {"match": world["match"].pk, "games": world["game"].pk, "events": world["event"].pk}
    ids["ladders"] = world["ladder"].pk
    ids["bots"] = world["robot"].pk
    section = path.split("/")[2]
    return (
        path.replace("{id}", str(ids.get(section, world["match"].pk)))
        .replace("{match_id}", str(world["match"].pk))
        .replace("{player_id}", str(world["bob"].pk))
        .replace("{entry_id}", str(world["entry"].pk))
        .replace("{number}", "0")
    )


def test_the_schema_has_integer_fields_to_check():
    fields = {(method, path, field) for method, path, field in integer_cases()}

    assert ("POST", "/api/matches", "opponent") in fields
    assert ("POST", "/api/matches", "time_control.base_seconds") in fields
    assert ("POST", "/api/games/{id}/actions", "ply") in fields


@pytest.mark.parametrize(("method", "path", "field"), integer_cases())
@pytest.mark.parametrize("kind", ["string", "float", "whole float"])
def test_every_integer_field_of_every_body_takes_a_json_integer_only(
    world, method, path, field, kind
):
    cache.clear()
    schema = dict(integer_fields_of(method, path))[field]
    good = world["bob"].pk if field == "opponent" else max(schema.get("minimum", 1), 1)
    bad = {"string": str(good), "float": good + 0.5, "whole float": float(good)}[kind]

    response = world["client"].generic(
        method, url_for(path, world), _json(body_with(field, bad)), content_type="application/json"
    )

    assert response.status_code == 400, (field, bad, response.content)
    assert field in response.json().get("errors", {}), response.json()


def integer_fields_of(method: str, path: str) -> list[tuple[str, dict]]:
    schema = openapi()
    operation = schema["paths"][path][method.lower()]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    return integer_fields(body, schema["components"]["schemas"])


def _json(value) -> str:
    import json

    return json.dumps(value)


def test_an_opponent_given_as_a_string_of_digits_creates_no_match(world):
    client = world["client"]
    bob = world["bob"]
    before = Match.objects.count()

    for opponent in (str(bob.pk), bob.pk + 0.5, float(bob.pk), True):
        response = client.post("/api/matches", {"opponent": opponent}, format="json")
        assert response.status_code == 400, opponent
        assert "opponent" in response.json()["errors"]

    assert Match.objects.count() == before


def test_an_opponent_id_past_any_database_integer_is_a_400(world):
    response = world["client"].post("/api/matches", {"opponent": 2**70}, format="json")

    assert response.status_code == 400
    assert "opponent" in response.json()["errors"]


# --- text the answer could not echo -----------------------------------------------------------


def string_fields(node: dict, components: dict, prefix: str = "") -> list[str]:
    """Dotted paths of the string and number properties of a body schema, nested included."""
    node = resolve(node, components)
    found = []
    for name, sub in node.get("properties", {}).items():
        sub = resolve(sub, components)
        path = f"{prefix}{name}"
        if "properties" in sub:
            found += string_fields(sub, components, f"{path}.")
        else:
            found.append(path)
    return found


def body_field_cases() -> list[tuple[str, str, str]]:
    return body_cases(lambda body, components: string_fields(body, components) or ["x"])


#: JSON text a Python JSON reader accepts and no UTF-8 JSON answer can echo.
NOT_TEXT = {
    "lone surrogate": '"a\\udfffb"',
    "huge exponent": "1e999999",
    "nan": "NaN",
}


def test_the_schema_has_body_fields_to_check():
    fields = set(body_field_cases())

    assert ("POST", "/api/matches", "time_control.timeout_policy") in fields
    assert ("POST", "/api/games/{id}/actions", "type") in fields


@pytest.mark.parametrize(("method", "path", "field"), body_field_cases())
@pytest.mark.parametrize("kind", sorted(NOT_TEXT))
def test_no_body_field_takes_a_lone_surrogate_or_a_non_finite_number(
    world, method, path, field, kind
):
    cache.clear()
    body = _json(body_with(field, "VALUE")).replace('"VALUE"', NOT_TEXT[kind])

    response = world["client"].generic(
        method, url_for(path, world), body, content_type="application/json"
    )

    assert response.status_code == 400, (field, body, response.content)
    assert response.json()["code"] == "parse_error", response.json()


@pytest.mark.parametrize("path", ["/api/events", "/api/matches"])
def test_an_unknown_key_holding_a_lone_surrogate_is_a_parse_error(world, path):
    cache.clear()
    response = world["client"].generic(
        "POST", path, '{"name": "Open", "\\ud800": 1}', content_type="application/json"
    )

    assert response.status_code == 400, response.content
    assert response.json()["code"] == "parse_error"


# --- error codes ------------------------------------------------------------------------------

#: Where the API's refusals are raised: services, views, the parser and the token check.
SOURCES = [
    *sorted(ROOT.glob("*/services.py")),
    *sorted(ROOT.glob("*/services/*.py")),
    *sorted(ROOT.glob("*/api.py")),
    *sorted(ROOT.glob("*/api/*.py")),
    ROOT / "games" / "tables.py",
    ROOT / "games" / "table_api.py",
    ROOT / "games" / "seeks.py",
    *sorted((ROOT / "tournaments" / "organiser_api").glob("*.py")),
    ROOT / "tournaments" / "interchange.py",
    ROOT / "tournaments" / "webhooks.py",
    ROOT / "tournaments" / "webhook_urls.py",
    ROOT / "accounts" / "deletion.py",
    ROOT / "accounts" / "auth.py",
    ROOT / "accounts" / "names.py",
    ROOT / "accounts" / "lockout.py",
    ROOT / "common" / "parsers.py",
]
#: Where codes are named constants (``LOCKED_OUT = "locked_out"``).
CONSTANTS = {"names.py", "lockout.py"}
#: Codes in those files that never reach an API answer as such, and why.
NOT_ANSWERED = {
    "unique": "a Django ValidationError's code: the answer is 400 invalid with the messages",
    "conflict": "the default of the Conflict classes: every refusal names its own code",
    "server_error": "the 500 handler's: no operation may answer a 5xx",
    "other_pool": "rating a finished match into a pool, done by the rated events' hook",
}
CODE = re.compile(r'\b(?:code|default_code)\s*=\s*"([a-z_]+)"')
ERROR_BODY = re.compile(r'error_body\(\s*(?:f?"[^"]*"\s*)+,\s*"([a-z_]+)"')
CONSTANT = re.compile(r'^[A-Z_]+ = "([a-z_]+)"$', re.MULTILINE)


def codes_in_source() -> set[str]:
    found = set()
    for path in SOURCES:
        assert path.exists(), f"{path} is gone: name where its refusals moved in SOURCES"
        text = path.read_text()
        found |= set(CODE.findall(text)) | set(ERROR_BODY.findall(text))
        if path.name in CONSTANTS:
            found |= set(CONSTANT.findall(text))
    return found - set(NOT_ANSWERED) - {"invalid"}


def engine_rules() -> set[str]:
    """The rules a refused move can name (the engine's errors; not its command line's, nor a
    hand entered at a table's: those are :func:`entry_rules`)."""
    rules = set()
    for path in (ROOT / "games" / "engine").glob("*.py"):
        if path.name in {"__main__.py", "arena.py", "table.py"}:
            continue
        text = _without_entry_errors(path.read_text())
        rules |= set(re.findall(r'\brule\s*=\s*"([a-z_]+)"', text))
        rules |= set(re.findall(r'"(upcard_offer|wrong_phase)"', text))
    # Not a move's refusal (invalid_entry: the default of an entered hand's refusal).
    return rules - {"invalid_rules", "unknown_bot", "not_your_turn", "invalid_entry"}


def _without_entry_errors(text: str) -> str:
    """The source with every ``EntryError(...)`` call left out (an entered hand's refusal)."""
    import ast

    spans = [
        (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "EntryError"
    ]
    lines = text.splitlines(keepends=True)
    for start, col, end, end_col in sorted(spans, reverse=True):
        head = "".join(lines[: start - 1]) + lines[start - 1][:col]
        tail = lines[end - 1][end_col:] + "".join(lines[end:])
        lines = (head + "None" + tail).splitlines(keepends=True)
    return "".join(lines)


def entry_rules() -> set[str]:
    """The rules a refused hand of a table match can name."""
    from games.engine.table import ENTRY_RULES

    return set(ENTRY_RULES)


def codes_in_schema() -> dict[str, set[str]]:
    """Every code the schema names, with the operations naming it."""
    named: dict[str, set[str]] = {}
    for path, operations in openapi()["paths"].items():
        for method, operation in operations.items():
            for status, response in operation.get("responses", {}).items():
                for code in response.get("x-error-codes", []):
                    named.setdefault(code, set()).add(f"{method.upper()} {path} {status}")
    return named


def test_the_schema_names_every_code_the_code_base_can_answer_with():
    named = codes_in_schema()

    missing = (codes_in_source() | engine_rules() | entry_rules()) - set(named)

    assert missing == set()


def test_the_schema_names_no_code_that_nothing_answers_with():
    drf = {
        cls.default_code
        for cls in vars(exceptions).values()
        if isinstance(cls, type) and issubclass(cls, exceptions.APIException)
    }
    known = codes_in_source() | engine_rules() | entry_rules() | drf
    known |= {"invalid", "service_unavailable"}

    assert set(codes_in_schema()) - known == set()


def test_a_refused_move_names_every_rule_in_the_schema():
    actions = openapi()["paths"]["/api/games/{id}/actions"]["post"]["responses"]

    assert engine_rules() <= set(actions["400"]["x-error-codes"])
    assert {"stale_ply", "not_your_turn", "paused", "game_over"} <= set(
        actions["409"]["x-error-codes"]
    )
    assert "not_a_player" in actions["403"]["x-error-codes"]
    assert "`card_not_in_hand`" in actions["400"]["description"]


def test_a_refused_hand_of_a_table_match_names_every_rule_in_the_schema():
    hands = openapi()["paths"]["/api/matches/{id}/hands"]["post"]["responses"]

    named = set(hands["400"]["x-error-codes"]) | set(hands["409"]["x-error-codes"])
    assert entry_rules() <= named
    assert {"match_over", "stale_hand"} <= set(hands["409"]["x-error-codes"])
    assert "not_a_player" in hands["403"]["x-error-codes"]


def test_each_operation_names_its_own_codes_under_their_status():
    paths = openapi()["paths"]

    withdraw = paths["/api/events/{id}/withdraw"]["post"]["responses"]
    assert "already_withdrawn" in withdraw["409"]["x-error-codes"]
    matches = paths["/api/matches"]["post"]["responses"]
    assert "duplicate_deals_need_bots" in matches["400"]["x-error-codes"]
    assert "parse_error" in matches["400"]["x-error-codes"]
    assert "request_too_large" in matches["413"]["x-error-codes"]
    assert "throttled" in matches["429"]["x-error-codes"]
    health = paths["/api/health"]["get"]["responses"]
    assert all("x-error-codes" not in response for response in health.values())


#: The API's reference; its section "## Errors" holds the one table of every error code.
API_DOC = ROOT / "docs" / "api.md"


def error_table() -> str:
    """The rows of the error table of docs/api.md (the section "## Errors")."""
    text = API_DOC.read_text()
    section = text.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    return "\n".join(line for line in section.splitlines() if line.startswith("|"))


def test_every_code_of_the_schema_is_in_the_error_table_of_the_api_doc():
    table = error_table()

    missing = sorted(code for code in codes_in_schema() if f"`{code}`" not in table)

    assert missing == [], (
        f"add these codes to the error table of docs/api.md (section Errors), on the row of "
        f"their status: {missing}"
    )


def test_the_api_doc_names_the_play_throttle():
    assert "`THROTTLE_PLAY_RATE`" in API_DOC.read_text()


def test_the_schema_describes_the_service_as_it_is():
    info = openapi()["info"]

    assert "later releases" not in info["description"]
    for part in ("play", "tournaments", "ladders"):
        assert part in info["description"]


def test_every_declaration_of_error_codes_reaches_an_operation():
    paths = SchemaGenerator().parse(None, True)  # before the hook takes the declarations out
    reached = {
        operation[schema_docs.OWN_CODES]["view"]
        for operations in paths.values()
        for operation in operations.values()
        if schema_docs.OWN_CODES in operation
    }

    assert set(schema_docs.declared_error_codes()) - reached == set()
