"""The API's and the sockets' refusals speak the caller's language (docs/translation.md).

A REST refusal is written in the request's language (``Accept-Language``, named back in
``Content-Language``); a socket's errors in its account's language, else its handshake's
``Accept-Language``; the engine's refusals are translated where they leave the engine
(``games.services.base.engine_text``).

The tests put their French into the French catalogue themselves (:func:`french`): they check
the wiring, whatever the compiled catalogue holds. The catalogue's own French is checked by
the catalogue tests (every entry translated).
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.utils import translation
from django.utils.translation import trans_real

from games import services
from games.engine.actions import Action as EngineAction
from games.engine.bots import make_bot
from games.engine.errors import EngineError
from games.engine.rules import RuleSet
from games.engine.table import EnteredHand, HandKind
from games.services.base import ENGINE_MESSAGES, engine_text
from tests.live import Socket, fresh_layer, run, token_for
from tests.play import active_game

db = database_sync_to_async


@pytest.fixture
def french(monkeypatch):
    """``french(msgid, msgstr)``: the French catalogue says ``msgstr`` for ``msgid`` during
    the test (put in front of whatever the compiled catalogue holds, taken out after)."""
    catalog = trans_real.translation("fr")._catalog._catalogs[0]

    def add(msgid: str, msgstr: str) -> None:
        monkeypatch.setitem(catalog, msgid, msgstr)

    yield add
    # A request's language stays active on the thread that served it (the test's): the next
    # test starts in the default language again.
    translation.deactivate()


# --- REST -----------------------------------------------------------------------------------

SAME_PLAYER = "a player cannot play against themselves"
SAME_PLAYER_FR = "un joueur ne peut pas jouer contre lui-même"


@pytest.mark.django_db
def test_a_rest_refusal_speaks_the_requests_accept_language(alice_client, alice, french):
    french(SAME_PLAYER, SAME_PLAYER_FR)
    response = alice_client.post(
        "/api/matches", {"opponent": alice.pk}, format="json", HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert response.status_code == 400
    assert response["Content-Language"] == "fr"
    assert response.json() == {"detail": SAME_PLAYER_FR, "code": "same_player"}


@pytest.mark.django_db
def test_without_accept_language_a_refusal_stays_english(alice_client, alice, french):
    french(SAME_PLAYER, SAME_PLAYER_FR)
    response = alice_client.post("/api/matches", {"opponent": alice.pk}, format="json")
    assert response["Content-Language"] == "en"
    assert response.json() == {"detail": SAME_PLAYER, "code": "same_player"}


@pytest.mark.django_db
def test_the_project_error_shape_speaks_french_too(client, french):
    french("Not found.", "Introuvable.")
    response = client.get("/api/no-such-thing", HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")
    assert response.status_code == 404
    assert response["Content-Language"] == "fr"
    assert response.json() == {"detail": "Introuvable.", "code": "not_found"}


@pytest.mark.django_db
def test_an_engines_refusal_is_translated_where_it_leaves_the_engine(
    alice_client, alice, bob, french
):
    french(
        "unknown card %(card)s: expected rank then suit, e.g. 'TS'",
        "carte inconnue %(card)s : le rang puis la couleur, par exemple 'TS'",
    )
    game = active_game(services.match_create(player_a=alice, player_b=bob))
    response = alice_client.post(
        f"/api/games/{game.pk}/actions",
        {"ply": 0, "type": "discard", "card": "ZZ"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="fr",
    )
    assert response.status_code == 400
    assert response.json() == {
        "detail": "carte inconnue 'ZZ' : le rang puis la couleur, par exemple 'TS'",
        "code": "invalid_card",
    }


# --- the engine's messages --------------------------------------------------------------------


def _sample(template: str) -> str:
    """The template filled with a distinct value per placeholder, as the engine would."""
    import re

    values = iter(range(101, 999))
    return re.sub(r"%\((\w+)\)s", lambda _m: str(next(values)), template)


@pytest.mark.parametrize("template", ENGINE_MESSAGES)
def test_every_engine_message_is_its_own_english_and_found_in_french(template, french):
    text = _sample(template)
    french(template, "FR " + template)
    with translation.override("en"):
        assert engine_text(EngineError(text)) == text  # English: the engine's own words
    with translation.override("fr"):
        assert engine_text(EngineError(text)) == "FR " + text


def _engine_errors() -> list[EngineError]:
    """Real refusals of the engine, of every kind that reaches a person."""
    errors = []
    attempts = [
        lambda: EngineAction.from_parts("fly"),
        lambda: EngineAction.from_parts("discard"),
        lambda: EngineAction.from_parts("pass", "TS"),
        lambda: EngineAction.from_parts("discard", "ZZ"),
        lambda: EngineAction.from_parts("discard", "TS", [["TS"]]),
        lambda: EngineAction.from_json({}),
        lambda: RuleSet.preset("bridge"),
        lambda: RuleSet.from_dict({"colour": 1}),
        lambda: RuleSet.from_dict({"knock_limit": "ten"}),
        lambda: RuleSet.from_dict({"knock_limit": 500}),
        lambda: make_bot("nobody"),
        lambda: EnteredHand.from_json({"kind": "knock", "knocker": 0, "deadwood": [4, 200]}),
        lambda: EnteredHand.from_json({"kind": "knock", "deadwood": [4, 20]}),
        lambda: EnteredHand.from_json({"kind": "gin", "knocker": 1, "deadwood": [20, 3]}),
        lambda: EnteredHand.from_json({"kind": "bust"}),
        lambda: EnteredHand.from_json({"kind": "knock", "knocker": 0, "deadwood": [30, 4]}).score(
            RuleSet()
        ),
        lambda: EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(6, 31)).score(
            RuleSet.preset("oklahoma")
        ),
    ]
    for attempt in attempts:
        try:
            attempt()
        except EngineError as error:
            errors.append(error)
        else:
            raise AssertionError("the engine accepted what it should refuse")
    return errors


def test_the_engines_real_refusals_are_all_known_templates(french):
    for template in ENGINE_MESSAGES:
        french(template, "FR " + template)
    with translation.override("fr"):
        for error in _engine_errors():
            assert engine_text(error).startswith("FR "), str(error)


# --- sockets ------------------------------------------------------------------------------

UNKNOWN_TYPE = "unknown message type; known: %(types)s"
UNKNOWN_TYPE_FR = "type de message inconnu ; connus : %(types)s"


@pytest.fixture
def _fresh_layer():
    fresh_layer()


@pytest.mark.django_db(transaction=True)
def test_a_sockets_errors_speak_its_handshakes_accept_language(_fresh_layer, french):
    french(UNKNOWN_TYPE, UNKNOWN_TYPE_FR)

    async def scenario():
        socket = await Socket.open("/ws/lobby", headers=[(b"accept-language", b"fr")])
        await socket.receive("seeks")
        await socket.send({"type": "dance"})
        error = await socket.receive("error")
        await socket.close()
        return error

    error = run(scenario)
    assert error["code"] == "unknown_type"
    assert error["detail"] == "type de message inconnu ; connus : ping, sync"


@pytest.mark.django_db(transaction=True)
def test_a_sockets_errors_stay_english_without_a_language(_fresh_layer, french):
    french(UNKNOWN_TYPE, UNKNOWN_TYPE_FR)

    async def scenario():
        socket = await Socket.open("/ws/lobby")
        await socket.receive("seeks")
        await socket.send({"type": "dance"})
        error = await socket.receive("error")
        await socket.close()
        return error

    assert run(scenario)["detail"] == "unknown message type; known: ping, sync"


@pytest.mark.django_db(transaction=True)
def test_the_accounts_language_beats_the_handshakes(_fresh_layer, alice, bob, french):
    french(UNKNOWN_TYPE, UNKNOWN_TYPE_FR)
    alice.language = "fr"
    alice.save(update_fields=["language"])
    token = token_for(alice)

    async def scenario():
        socket = await Socket.open("/ws/lobby", token=token, headers=[(b"accept-language", b"es")])
        await socket.receive("seeks")
        await socket.send({"type": "dance"})
        error = await socket.receive("error")
        await socket.close()
        return error

    assert run(scenario)["detail"] == "type de message inconnu ; connus : ping, sync"


@pytest.mark.django_db(transaction=True)
def test_a_services_refusal_on_a_socket_is_in_the_sockets_language(
    _fresh_layer, alice, bob, french
):
    """The service runs on the sockets' database thread: the language goes with it."""
    french(
        "stale ply %(ply)s: the game is at ply %(current)s",
        "coup périmé %(ply)s : la partie en est au coup %(current)s",
    )
    game = active_game(services.match_create(player_a=alice, player_b=bob))
    mover = alice if game.to_act == 0 else bob
    token = token_for(mover)

    async def scenario():
        socket = await Socket.open(
            f"/ws/games/{game.pk}", token=token, headers=[(b"accept-language", b"fr")]
        )
        await socket.receive("view")
        await socket.send({"type": "move", "id": "m1", "ply": 99, "action": {"type": "pass"}})
        error = await socket.receive("error")
        await socket.close()
        return error

    error = run(scenario)
    assert error["code"] == "stale_ply"
    assert error["detail"] == f"coup périmé 99 : la partie en est au coup {game.ply}"
