"""Open sockets end with the sign-in: signing out everywhere, a new password (changed or
reset) and a deleted account close the user's sockets (4401) at once; signing one token or
session out closes the sockets opened with it; and a socket whose revocation was not pushed
to it checks its token or session again once ``SOCKET_SIGNIN_RECHECK_SECONDS`` have passed."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.tokens import default_token_generator
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from knox.models import AuthToken
from rest_framework.test import APIClient

from games import services
from tests.conftest import PASSWORD, sign_in
from tests.live import Socket, fresh_layer, run
from tests.play import active_game

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async
NEW_PASSWORD = "a new and long passphrase 9"


@pytest.fixture(autouse=True)
def _fresh_layer():
    fresh_layer()


@pytest.fixture
def game(bob, charlie):
    """Bob v Charlie, public: alice may watch it."""
    return active_game(services.match_create(player_a=bob, player_b=charlie))


def api_client(username: str) -> tuple[APIClient, str]:
    client = APIClient()
    return client, sign_in(client, username)


async def sockets_of(token: str, game) -> tuple[Socket, Socket]:
    """A table socket (watching ``game``) and a ``ws/me`` socket, both past their first news."""
    table = await Socket.open(f"/ws/games/{game.pk}", token=token)
    assert table.connected
    await table.receive("view")
    me = await Socket.open("/ws/me", token=token)
    assert me.connected
    await me.receive("summary")
    return table, me


async def closed_now(socket: Socket) -> None:
    """The socket is told its sign-in ended and closed with 4401, without asking first."""
    told = await socket.receive("error", timeout=3)
    assert told["code"] == "not_authenticated"
    assert (await socket.receive("closed", timeout=3))["code"] == 4401


def test_signing_out_everywhere_closes_the_open_sockets_at_once(alice, game):
    client, token = api_client("alice")

    async def scenario():
        table, me = await sockets_of(token, game)
        response = await db(client.post)("/api/auth/logoutall")
        assert response.status_code == 204
        await closed_now(table)
        await closed_now(me)

    run(scenario)


def test_a_password_change_closes_the_sockets_of_every_sign_in(alice, game):
    client, _ = api_client("alice")
    _, other_token = api_client("alice")

    async def scenario():
        table, me = await sockets_of(other_token, game)
        response = await db(client.post)(
            "/api/auth/password",
            {"old_password": PASSWORD, "new_password": NEW_PASSWORD},
            format="json",
        )
        assert response.status_code == 200, response.content
        await closed_now(table)
        await closed_now(me)

    run(scenario)


def test_a_password_reset_closes_the_sockets(alice, game):
    _, token = api_client("alice")
    user = alice.user
    user.refresh_from_db()  # signing in stamped last_login, which the reset token covers
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    reset_token = default_token_generator.make_token(user)

    def reset() -> int:
        browser = Client()
        form = browser.get(f"/password-reset/{uid}/{reset_token}")
        assert form.status_code == 302, form.status_code  # the token goes into the session
        answer = browser.post(
            form["Location"], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
        )
        return answer.status_code

    async def scenario():
        table, me = await sockets_of(token, game)
        assert await db(reset)() == 302
        await closed_now(table)
        await closed_now(me)

    run(scenario)


def test_deleting_the_account_closes_its_sockets(alice, game):
    client, token = api_client("alice")

    async def scenario():
        table, me = await sockets_of(token, game)
        response = await db(client.delete)("/api/me", {"password": PASSWORD}, format="json")
        assert response.status_code == 204, response.content
        await closed_now(table)
        await closed_now(me)

    run(scenario)


def test_deleting_the_account_closes_its_bots_sockets(alice, game):
    from accounts.services import bot_register, bot_token_issue

    client, _ = api_client("alice")
    robo = bot_register(owner=alice, name="Robo")
    _, bot_token = bot_token_issue(bot=robo)

    async def scenario():
        watching = await Socket.open(f"/ws/games/{game.pk}", token=bot_token)
        assert watching.connected
        await watching.receive("view")
        response = await db(client.delete)("/api/me", {"password": PASSWORD}, format="json")
        assert response.status_code == 204, response.content
        await closed_now(watching)

    run(scenario)


def test_another_users_sockets_stay_open(alice, bob, game):
    client, _ = api_client("alice")
    _, bob_token = api_client("bob")

    async def scenario():
        table, me = await sockets_of(bob_token, game)
        assert (await db(client.post)("/api/auth/logoutall")).status_code == 204
        await table.send({"type": "sync"})
        assert (await table.receive("view"))["seq"] >= 0
        await me.send({"type": "sync"})
        assert (await me.receive("summary"))["type"] == "summary"
        await table.close()
        await me.close()

    run(scenario)


@pytest.mark.parametrize("path", ["table", "me"])
def test_signing_one_token_out_closes_its_sockets_at_once_and_no_others(alice, game, path):
    """A token revoked on its own (``/api/auth/logout``) closes the sockets opened with it,
    without their asking; a socket of the same user opened with another token stays open."""
    client, token = api_client("alice")
    _, other_token = api_client("alice")

    async def scenario():
        table, me = await sockets_of(token, game)
        other_table, other_me = await sockets_of(other_token, game)
        socket, other = (table, other_table) if path == "table" else (me, other_me)
        assert (await db(client.post)("/api/auth/logout")).status_code == 204
        await closed_now(socket)
        await other.send({"type": "sync"})
        assert (await other.receive())["type"] in {"view", "summary"}
        for still_open in (other_table, other_me):
            await still_open.close()

    run(scenario)


@pytest.mark.parametrize("path", ["table", "me"])
def test_a_token_gone_without_its_push_is_refused_at_the_next_check(alice, game, path, settings):
    """The push of a revocation can be lost (the channel layer down): a socket checks its
    token again once ``SOCKET_SIGNIN_RECHECK_SECONDS`` have passed, and is refused then."""
    settings.SOCKET_SIGNIN_RECHECK_SECONDS = 0  # every message checks, as after the interval
    _client, token = api_client("alice")

    def delete_without_signals() -> int:
        tokens = AuthToken.objects.filter(user=alice.user)
        return tokens._raw_delete(tokens.db)  # no post_delete: nothing is pushed

    async def scenario():
        table, me = await sockets_of(token, game)
        socket = table if path == "table" else me
        assert await db(delete_without_signals)() == 1
        await socket.send({"type": "sync"})
        refused = await socket.receive()
        assert refused["type"] == "error" and refused["code"] == "not_authenticated"
        assert (await socket.receive("closed"))["code"] == 4401

    run(scenario)


def test_a_socket_trusts_its_sign_in_until_the_recheck_interval(alice, game, settings):
    """Between checks a message costs no database work for the sign-in: a token deleted
    without its push still answers until the interval has passed, then is refused."""
    settings.SOCKET_SIGNIN_RECHECK_SECONDS = 1
    _client, token = api_client("alice")

    def delete_without_signals() -> int:
        tokens = AuthToken.objects.filter(user=alice.user)
        return tokens._raw_delete(tokens.db)

    async def scenario():
        socket = await Socket.open(f"/ws/games/{game.pk}", token=token)
        await socket.receive("view")
        assert await db(delete_without_signals)() == 1
        await socket.send({"type": "sync"})
        assert (await socket.receive())["type"] == "view"
        await asyncio.sleep(1.1)
        await socket.send({"type": "sync"})
        refused = await socket.receive()
        assert refused["type"] == "error" and refused["code"] == "not_authenticated"
        assert (await socket.receive("closed"))["code"] == 4401

    run(scenario)


def test_a_session_socket_ends_with_its_session(alice, game):
    """Signing a session out closes the sockets opened with it at once."""
    browser = Client()
    browser.force_login(alice.user)
    cookie = f"sessionid={browser.cookies['sessionid'].value}".encode()

    async def scenario():
        socket = await Socket.open(f"/ws/games/{game.pk}", headers=[(b"cookie", cookie)])
        assert socket.connected
        await socket.receive("view")
        await socket.send({"type": "sync"})
        assert (await socket.receive())["type"] == "view"
        await db(browser.logout)()
        await closed_now(socket)

    run(scenario)


def test_a_session_deleted_on_the_server_closes_its_sockets_at_once(alice, game):
    """A session that ends on the server without a sign-out (expired and cleared, removed
    by hand) closes the sockets opened with it too."""
    browser = Client()
    browser.force_login(alice.user)
    key = browser.cookies["sessionid"].value
    cookie = f"sessionid={key}".encode()

    async def scenario():
        socket = await Socket.open(f"/ws/games/{game.pk}", headers=[(b"cookie", cookie)])
        await socket.receive("view")
        await db(lambda: Session.objects.filter(pk=key).delete())()
        await closed_now(socket)

    run(scenario)


def test_a_session_gone_without_its_push_is_refused_at_the_next_check(alice, game, settings):
    settings.SOCKET_SIGNIN_RECHECK_SECONDS = 0
    browser = Client()
    browser.force_login(alice.user)
    key = browser.cookies["sessionid"].value
    cookie = f"sessionid={key}".encode()

    def delete_without_signals() -> int:
        sessions = Session.objects.filter(pk=key)
        return sessions._raw_delete(sessions.db)

    async def scenario():
        socket = await Socket.open(f"/ws/games/{game.pk}", headers=[(b"cookie", cookie)])
        await socket.receive("view")
        assert await db(delete_without_signals)() == 1
        await socket.send({"type": "sync"})
        refused = await socket.receive()
        assert refused["type"] == "error" and refused["code"] == "not_authenticated"
        assert (await socket.receive("closed"))["code"] == 4401

    run(scenario)


def test_a_password_change_on_the_account_page_closes_the_other_sessions_sockets(alice, game):
    """The page a password is changed on stays signed in (its session gets a new key); a
    socket of another session of the user closes at once."""
    other = Client()
    other.force_login(alice.user)
    cookie = f"sessionid={other.cookies['sessionid'].value}".encode()
    browser = Client()
    browser.force_login(alice.user)

    def change() -> int:
        answer = browser.post(
            "/account/password",
            {
                "old_password": PASSWORD,
                "new_password1": NEW_PASSWORD,
                "new_password2": NEW_PASSWORD,
            },
        )
        return answer.status_code

    async def scenario():
        socket = await Socket.open(f"/ws/games/{game.pk}", headers=[(b"cookie", cookie)])
        await socket.receive("view")
        assert await db(change)() == 302
        await closed_now(socket)

    run(scenario)
