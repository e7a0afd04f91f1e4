"""OpenAPI post-processing: document the error answers every endpoint can give, and their codes.

drf-spectacular documents the success answers each view declares. The project's error shape
(``config.api.error_body``) comes from shared machinery instead: authentication, permissions,
throttling, validation, unknown objects, a database outage. This hook adds those answers to
every operation that can give them, so a client (or a fuzzer such as schemathesis) finds
every status code it can receive in the schema, including the web server's 414 for an
over-long URL. Each error answer's description names every ``code`` it can carry (also as
the extension ``x-error-codes``): the common ones (:data:`COMMON_CODES`) and the operation's
own (:data:`OPERATION_CODES`).

Two more corrections make the schema say what the server does:

- Optional query parameters get ``allowEmptyValue``: DRF and django-filter read ``?kind=``
  as if the parameter were left out, as HTML forms send it.
- Patterns written with ``\\w`` are dropped from the schema: Python's ``\\w`` takes every
  Unicode letter and digit (names such as "José" are allowed), while OpenAPI patterns are
  ECMA-262 regular expressions where ``\\w`` is ASCII only, so the schema would call valid
  names invalid. The rule stays in the field's description.
"""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Every error of the API: a summary, a machine-readable code, and for "
    "invalid input the messages per field.",
    "properties": {
        "detail": {"type": "string"},
        "code": {"type": "string"},
        "errors": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "required": ["detail", "code"],
}

DESCRIPTIONS = {
    "400": "Invalid input (query parameters or body): `errors` names the fields.",
    "401": "The token is missing, unknown, expired or revoked.",
    "403": "Signed in, but not allowed to do this.",
    "404": "No such object, or one you may not see; or a page past the end.",
    "415": "The body is not JSON (the API reads `application/json` only).",
    "409": "The request does not fit the current state (stale ply, already done, ...).",
    "413": "The body is larger than the server reads (`DATA_UPLOAD_MAX_MEMORY_SIZE`).",
    "429": "Too many requests: see `Retry-After`.",
    "503": "The database or Redis does not answer: try again after `Retry-After`.",
}
#: Answered by the web server (gunicorn's `limit_request_line`) before the API sees the request.
URI_TOO_LONG = {
    "description": "The URL is too long: the web server refuses a request line over 4 KiB "
    "(an HTML page, not the API's error shape).",
    "content": {"text/html": {"schema": {"type": "string"}}},
}

UNSAFE = {"post", "put", "patch", "delete"}

#: The codes the shared machinery answers with, by status: validation and parsing, sign-in,
#: permissions, unknown objects, the body's size and type, throttling, an outage.
COMMON_CODES: dict[str, list[str]] = {
    "400": ["invalid"],
    "401": ["not_authenticated", "authentication_failed"],
    "403": ["permission_denied", "bot_token_forbidden"],
    "404": ["not_found"],
    "413": ["request_too_large"],
    "415": ["unsupported_media_type"],
    "429": ["throttled"],
    "503": ["service_unavailable"],
}
#: Only where a body is read: malformed or too deeply nested JSON.
BODY_CODES = {"400": ["parse_error"]}

#: A refused move names the rule it broke (the engine's ``rule`` of the error).
MOVE_RULES = [
    "big_gin_needs_eleven_melded",
    "card_not_in_hand",
    "card_required",
    "deal_over",
    "discard_of_taken_card",
    "gin_needs_no_deadwood",
    "illegal_action",
    "invalid_action",
    "invalid_card",
    "invalid_melds",
    "knock_limit",
    "straight_gin_no_knock",
    "upcard_offer",
    "wrong_phase",
]

#: A refused hand of a table match names the rule it broke (``games.engine.table.ENTRY_RULES``
#: that are about the hand; those about the match's state answer 409).
HAND_RULES = [
    "invalid_entry",
    "invalid_card",
    "knocker_required",
    "drawn_hand_no_score",
    "deadwood_missing",
    "deadwood_range",
    "gin_with_deadwood",
    "upcard_required",
    "straight_gin_no_knock",
    "knock_limit",
    "duplicate_deals_at_table",
]
HAND_STATES = ["match_over", "game_over", "deal_in_progress"]
#: Refusals of the result of a table match (confirming, disputing).
RESULT_CONFLICTS = ["not_decided", "own_report", "match_over", "not_at_table"]

#: What an event's options can be refused with (creating, editing or starting it).
EVENT_OPTION_CODES = [
    "unknown_format",
    "unknown_seeding",
    "invalid_rules",
    "invalid_tiebreaks",
    "invalid_registration_window",
    "capacity",
    "invalid_groups",
    "invalid_arena_minutes",
    "invalid_venue",
    "duplicate_deals_at_table",
    "arena_online_only",
    "start_in_past",
    "registration_after_start",
    "check_in_needs_start",
    "check_in_too_long",
    "check_in_before_registration",
    "check_in_conflict",
    "description_too_long",
    "invalid_repeat_rule",
]
#: Entering a player (an organiser's add or import).
ENTER_CODES = ["unknown_bot", "duplicate_deals_need_bots"]
ENTER_CONFLICTS = [
    "already_registered",
    "disqualified",
    "event_full",
    "event_over",
    "registration_closed",
    "guests_and_bots",
]

#: The codes of each operation's own refusals (its service's), by status, beside the common
#: ones. ``tests/unit/test_api_contract.py`` checks that every code the code base can answer
#: with is named here or in the common codes.
OPERATION_CODES: dict[str, dict[str, list[str]]] = {
    "POST /api/auth/register": {"400": ["name_mixed_script", "name_confusable", "name_reserved"]},
    "POST /api/auth/login": {"429": ["locked_out"]},
    "PATCH /api/me": {"400": ["name_mixed_script", "name_confusable", "name_reserved"]},
    "DELETE /api/me": {"400": ["wrong_password"], "409": ["account_busy"]},
    "POST /api/auth/password": {"400": ["wrong_password"]},
    "PATCH /api/players/{id}": {"400": ["name_mixed_script", "name_confusable", "name_reserved"]},
    "POST /api/players/{id}/invitation": {"409": ["not_a_guest"]},
    "POST /api/matches": {
        "400": [
            "invalid_rules",
            "same_player",
            "unknown_bot",
            "bot_challenger",
            "duplicate_deals_need_bots",
        ],
        "409": ["in_ranked_match", "in_tournament_match", "player_deleted", "opponent_is_guest"],
    },
    "POST /api/seeks": {
        "400": [
            "invalid_rules",
            "bot_challenger",
            "duplicate_deals_need_bots",
            "rated_unavailable",
            "invalid_rating_range",
        ],
        "409": ["in_tournament_match", "too_many_seeks"],
    },
    "POST /api/seeks/{id}/join": {
        "400": ["invalid_rules", "duplicate_deals_need_bots"],
        "409": [
            "own_seek",
            "seek_taken",
            "seek_closed",
            "outside_rating_range",
            "in_ranked_match",
            "in_tournament_match",
        ],
    },
    "POST /api/seeks/{id}/cancel": {
        "403": ["not_a_player"],
        "409": ["seek_taken", "seek_closed"],
    },
    "POST /api/matches/{id}/accept": {
        "403": ["not_a_player"],
        "409": ["not_pending", "in_ranked_match", "in_tournament_match", "not_scheduled"],
    },
    "POST /api/matches/{id}/decline": {"403": ["not_a_player"], "409": ["not_pending"]},
    "POST /api/matches/{id}/cancel": {"403": ["not_a_player"], "409": ["too_late"]},
    "POST /api/matches/{id}/resign": {"403": ["not_a_player"], "409": ["too_late"]},
    "GET /api/matches/{id}/replay": {"409": ["not_finished"]},
    # Table matches: hands entered from a score pad, the sheet, the result.
    "GET /api/matches/{id}/sheet": {"409": ["not_at_table"]},
    "POST /api/matches/{id}/hands": {
        "400": ["reason_required", "not_in_match", *HAND_RULES],
        "403": ["not_a_player"],
        "409": ["stale_hand", "not_at_table", *HAND_STATES],
    },
    "PUT /api/matches/{id}/hands/{number}": {
        "400": ["reason_required", "not_in_match", *HAND_RULES],
        "403": ["not_a_player", "organisers_only"],
        "409": ["no_such_hand", "later_hand_refused", "not_at_table", *HAND_STATES],
    },
    "DELETE /api/matches/{id}/hands/last": {
        "400": ["reason_required"],
        "403": ["not_a_player"],
        "409": ["no_hands", "stale_hand", "match_over", "not_at_table"],
    },
    "POST /api/matches/{id}/confirm": {
        "400": ["reason_required"],
        "403": ["not_a_player"],
        "409": RESULT_CONFLICTS,
    },
    "POST /api/matches/{id}/dispute": {
        "400": ["reason_required"],
        "403": ["not_a_player"],
        "409": RESULT_CONFLICTS,
    },
    "POST /api/games/{id}/actions": {
        "400": MOVE_RULES,
        "403": ["not_a_player"],
        "409": ["stale_ply", "not_your_turn", "game_over", "paused"],
    },
    "POST /api/games/{id}/continue": {"403": ["not_a_player"], "409": ["game_over", "not_paused"]},
    "POST /api/events": {
        "400": [
            "unknown_format",
            "unknown_seeding",
            "invalid_rules",
            "invalid_tiebreaks",
            "invalid_registration_window",
            "capacity",
            "invalid_groups",
            "invalid_arena_minutes",
            "invalid_venue",
            "duplicate_deals_at_table",
            "arena_online_only",
            "start_in_past",
            "registration_after_start",
            "check_in_needs_start",
            "check_in_too_long",
            "check_in_before_registration",
            "check_in_conflict",
            "description_too_long",
            "invalid_repeat_rule",
        ],
    },
    "POST /api/events/{id}/register": {
        "400": ["unknown_bot", "duplicate_deals_need_bots"],
        "403": ["bots_only"],
        "409": [
            "already_registered",
            "disqualified",
            "event_full",
            "event_over",
            "registration_closed",
        ],
    },
    "POST /api/events/{id}/withdraw": {
        "409": ["not_registered", "already_withdrawn", "event_over"],
    },
    "POST /api/events/{id}/check-in": {
        "409": ["not_registered", "check_in_closed", "no_check_in"],
    },
    "POST /api/events/{id}/matches/{match_id}/ready": {
        "403": ["not_a_player"],
        "409": ["match_over", "too_late"],
    },
    # An arena's players: a break, coming back, half the clock for a point more.
    "POST /api/events/{id}/pause": {"409": ["not_arena", "event_not_running", "not_entered"]},
    "POST /api/events/{id}/rejoin": {
        "409": ["not_arena", "event_not_running", "not_entered", "arena_over"]
    },
    "POST /api/events/{id}/matches/{match_id}/berserk": {
        "403": ["not_a_player"],
        "409": [
            "not_arena",
            "berserk_not_allowed",
            "match_over",
            "not_timed",
            "berserk_already",
            "berserk_too_late",
        ],
    },
    # The organiser API (staff): the admin's actions.
    "PATCH /api/events/{id}": {
        "400": [*EVENT_OPTION_CODES, "guests_need_tables"],
        "409": ["event_started"],
    },
    "POST /api/events/{id}/open-registration": {"409": ["event_started", "event_repeats"]},
    "POST /api/events/{id}/close-registration": {"409": ["registration_closed"]},
    "POST /api/events/{id}/players": {
        "400": ENTER_CODES,
        "403": ["bots_only"],
        "409": [*ENTER_CONFLICTS, "guests_need_tables"],
    },
    "POST /api/events/{id}/guests": {
        "400": ["name_taken", "name_mixed_script", "name_confusable", "name_reserved"],
        "403": ["bots_only"],
        "409": [*ENTER_CONFLICTS, "guests_need_tables"],
    },
    "POST /api/events/{id}/bots": {
        "400": ["unknown_bot", "invalid_count"],
        "409": ENTER_CONFLICTS,
    },
    "POST /api/events/{id}/import": {
        "400": [
            "invalid_csv",
            "unknown_player",
            "duplicate_entry",
            "invalid_seed",
            "duplicate_seed",
            "too_many",
            *ENTER_CODES,
        ],
        "409": [*ENTER_CONFLICTS, "event_started", "guests_need_tables"],
    },
    "POST /api/events/{id}/seed": {
        "400": ["invalid_seed", "duplicate_seed", "unknown_entry", "incomplete_order"],
        "409": ["event_started", "same_stable"],
    },
    "POST /api/events/{id}/start": {
        "400": ["not_enough_entries", "unknown_bot", *EVENT_OPTION_CODES],
        "409": ["event_started", "same_stable", "event_repeats"],
    },
    "POST /api/events/{id}/cancel": {"409": ["event_over"]},
    "GET /api/events/{id}/trf": {"400": ["trf_format"], "409": ["not_started"]},
    "POST /api/events/{id}/entries/{entry_id}/withdraw": {
        "409": ["already_withdrawn", "event_over"]
    },
    "POST /api/events/{id}/entries/{entry_id}/disqualify": {
        "409": ["already_withdrawn", "event_over"]
    },
    "POST /api/events/{id}/entries/{entry_id}/reinstate": {
        "400": ["unknown_bot", "duplicate_deals_need_bots"],
        "403": ["bots_only"],
        "409": [
            "not_withdrawn",
            "event_over",
            "cannot_reinstate",
            "event_full",
            "guests_need_tables",
            "guests_and_bots",
        ],
    },
    "POST /api/events/{id}/entries/{entry_id}/check-in": {
        "409": ["not_registered", "check_in_closed", "no_check_in"]
    },
    "DELETE /api/events/{id}/entries/{entry_id}/check-in": {"409": ["check_in_closed"]},
    "POST /api/events/{id}/pairings/{key}/override": {
        "400": ["reason_required", "not_in_match"],
        "409": ["event_not_running", "no_match", "no_change", "playoff_started"],
    },
    "POST /api/events/{id}/pairings/{key}/table": {
        "409": [
            "not_mixed",
            "event_not_running",
            "no_match",
            "already_at_table",
            "match_started",
            "bots_play_online",
        ]
    },
    "POST /api/events/{id}/pairings/{key}/rerun": {
        "409": ["event_not_running", "no_match", "not_bots", "not_failed", "playoff_started"]
    },
    "POST /api/events/{id}/webhooks": {"400": ["webhook_url_refused"]},
    "POST /api/ladders/{id}/queue": {
        "400": ["unknown_bot"],
        "403": ["bots_only", "guest_cannot_queue"],
        "409": [
            "already_queued",
            "queued_elsewhere",
            "in_match",
            "match_in_progress",
            "ladder_closed",
            "not_a_ladder",
        ],
    },
    "DELETE /api/ladders/{id}/queue": {"409": ["not_queued"]},
    "POST /api/ladders/{id}/seasons": {"400": ["invalid_season"], "409": ["season_open"]},
    "POST /api/bots": {
        "400": ["name_mixed_script", "name_confusable", "name_reserved"],
        "403": ["not_a_person"],
        "409": ["too_many_bots"],
    },
    "PATCH /api/bots/{id}": {"400": ["name_mixed_script", "name_confusable", "name_reserved"]},
    "GET /api/bot/account": {"403": ["not_a_bot"]},
}

#: The organiser API's writes on an event: for its organisers only (its creator and
#: co-organisers, or those who may manage every event), anyone else 403 ``not_your_event``.
EVENT_WRITES = [
    "PATCH /api/events/{id}",
    "POST /api/events/{id}/open-registration",
    "POST /api/events/{id}/close-registration",
    "POST /api/events/{id}/players",
    "POST /api/events/{id}/guests",
    "POST /api/events/{id}/bots",
    "POST /api/events/{id}/import",
    "POST /api/events/{id}/seed",
    "POST /api/events/{id}/start",
    "POST /api/events/{id}/cancel",
    "POST /api/events/{id}/entries/{entry_id}/withdraw",
    "POST /api/events/{id}/entries/{entry_id}/disqualify",
    "POST /api/events/{id}/entries/{entry_id}/reinstate",
    "POST /api/events/{id}/entries/{entry_id}/check-in",
    "DELETE /api/events/{id}/entries/{entry_id}/check-in",
    "POST /api/events/{id}/pairings/{key}/override",
    "POST /api/events/{id}/pairings/{key}/rerun",
    "POST /api/events/{id}/pairings/{key}/table",
    "POST /api/events/{id}/webhooks",
    "POST /api/events/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/resend",
]
for _operation in EVENT_WRITES:
    _own = OPERATION_CODES.setdefault(_operation, {})
    _own["403"] = [*_own.get("403", []), "not_your_event"]
del _operation, _own


def operation_codes(path: str, method: str, operation: dict[str, Any]) -> dict[str, list[str]]:
    """Every code the operation can answer with, by status (common ones and its own)."""
    statuses = _codes(path, method, operation)
    if operation.get("requestBody"):
        statuses.add("413")
    codes: dict[str, list[str]] = {}
    for status in sorted(statuses):
        codes[status] = list(COMMON_CODES.get(status, []))
        if operation.get("requestBody"):
            codes[status] += BODY_CODES.get(status, [])
    for status, own in OPERATION_CODES.get(f"{method.upper()} {path}", {}).items():
        codes.setdefault(status, [])
        codes[status] += [code for code in own if code not in codes[status]]
    return {status: found for status, found in codes.items() if found}


def _codes(path: str, method: str, operation: dict[str, Any]) -> set[str]:
    codes = {"404", "429", "503"}  # any /api/ path may be unknown; throttling; an outage
    if any(operation.get("security") or []):  # [{}] alone means "anonymous is fine"
        codes |= {"401", "403"}
    if operation.get("parameters") or operation.get("requestBody") or method in UNSAFE:
        codes.add("400")
    if method in UNSAFE:
        codes |= {"403", "409"}
    if operation.get("requestBody"):
        codes.add("415")
    return codes


def _unicode_patterns(node: Any) -> None:
    """Drop ``\\w`` patterns (see the module's docstring), in place, everywhere below."""
    if isinstance(node, dict):
        pattern = node.get("pattern")
        if isinstance(pattern, str) and "\\w" in pattern:
            del node["pattern"]
            rule = f"Letters (any alphabet), digits and the characters of `{pattern}`."
            node["description"] = f"{node['description']} {rule}" if "description" in node else rule
        for value in node.values():
            _unicode_patterns(value)
    elif isinstance(node, list):
        for value in node:
            _unicode_patterns(value)


def document_errors(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    reference = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, operations in result.get("paths", {}).items():
        if path == "/api/health":
            continue  # answers 200 or 503 with its own body, never an error shape
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            for code, names in operation_codes(path, method, operation).items():
                if code not in responses:
                    responses[code] = {"content": reference, "description": DESCRIPTIONS[code]}
                response = responses[code]
                listed = ", ".join(f"`{name}`" for name in names)
                description = response.get("description") or DESCRIPTIONS.get(code, "")
                response["description"] = f"{description} Codes: {listed}.".strip()
                response["x-error-codes"] = names
            responses.setdefault("414", URI_TOO_LONG)
            for code, response in responses.items():
                # An error a view declared by its description only answers in the error shape.
                if str(code).startswith(("4", "5")) and not response.get("content"):
                    response["content"] = reference
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and not parameter.get("required"):
                    parameter["allowEmptyValue"] = True
    _unicode_patterns(result.get("components", {}).get("schemas", {}))
    return result
