"""The web pages without a browser: sign-up and sign-in with sessions, who sees which page,
and the replay's frames re-dealt from the log."""

import json

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import Player
from games import selectors, services
from games.engine.cards import card_name, cards_of
from games.engine.deal import Deal
from games.engine.rules import RuleSet
from games.models import Game, Match
from tests.factories import PASSWORD, BotFactory, PlayerFactory
from tournaments import services as tournament_services
from web.replay import deal_frames, deal_index
from web.templatetags.cards import card, card_label, card_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def web() -> Client:
    return Client()


@pytest.fixture
def alice_web(alice) -> Client:
    client = Client()
    client.force_login(alice.user)
    return client


@pytest.fixture
def greta(db):
    return BotFactory(name="Greta (greedy)", bot_strategy="greedy")


@pytest.fixture
def bot_match(db) -> Match:
    """A finished bot-vs-bot match."""
    a = BotFactory(name="Ada", bot_strategy="greedy")
    b = BotFactory(name="Bea", bot_strategy="greedy")
    match = services.match_create(player_a=a, player_b=b, best_of=1, target=50, seed=42)
    services.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


# --- signing up and in -----------------------------------------------------------------------


def test_signing_up_creates_a_player_and_signs_in(web):
    response = web.post(
        "/signup",
        {"username": "dora", "name": "Dora", "password": PASSWORD, "password_again": PASSWORD},
    )

    assert response.status_code == 302 and response["Location"] == "/lobby"
    player = Player.objects.get(name="Dora")
    assert player.user.username == "dora" and player.kind == Player.Kind.HUMAN
    lobby = web.get("/lobby")
    assert lobby.status_code == 200
    assert f'<a href="/players/{player.pk}">Dora</a>' in lobby.content.decode()  # signed in


def test_sign_up_shows_every_problem_and_creates_nothing(web, alice):
    response = web.post(
        "/signup",
        {"username": "alice", "name": "", "password": "123", "password_again": "456"},
    )

    assert response.status_code == 200
    page = response.content.decode()
    assert "The two passwords differ." in page
    assert Player.objects.count() == 1


def test_sign_up_reports_the_accounts_services_errors_per_field(web, alice):
    response = web.post(
        "/signup",
        {"username": "alice", "name": "Dora", "password": PASSWORD, "password_again": PASSWORD},
    )

    assert "A user with this username already exists." in response.content.decode()


def test_sign_up_asks_for_a_display_name_rather_than_showing_the_username(web):
    response = web.post(
        "/signup", {"username": "dora", "password": PASSWORD, "password_again": PASSWORD}
    )

    assert response.status_code == 200  # the form again
    assert "This field is required." in response.content.decode()
    assert not Player.objects.exists()


def test_signing_in_goes_back_to_the_page_that_asked(web, alice):
    response = web.post("/login", {"username": "alice", "password": PASSWORD, "next": "/games/7"})
    assert response.status_code == 302 and response["Location"] == "/games/7"


def test_sign_in_never_redirects_off_site(web, alice):
    response = web.post(
        "/login", {"username": "alice", "password": PASSWORD, "next": "https://evil.example/"}
    )
    assert response["Location"] == "/lobby"


def test_an_expired_session_is_told_so_on_the_sign_in_page(web):
    page = web.get("/login?next=/games/3&expired=1").content.decode()
    assert "Your session has expired" in page
    assert 'name="next" value="/games/3"' in page


def test_the_lobby_sends_strangers_to_sign_in_and_back(web):
    response = web.get("/lobby")
    assert response.status_code == 302
    assert response["Location"] == "/login?next=/lobby"


def test_signing_out_takes_a_post(alice_web):
    assert alice_web.get("/logout").status_code == 405
    assert ">Alice</a>" in alice_web.get("/lobby").content.decode()  # still signed in
    assert alice_web.post("/logout").status_code == 302
    assert alice_web.get("/lobby")["Location"] == "/login?next=/lobby"


# --- pages -----------------------------------------------------------------------------------


def test_the_lobby_lists_bots_and_my_current_and_recent_matches(alice_web, alice, greta):
    current = services.challenge_create(challenger=alice, opponent=greta)
    finished = services.challenge_create(challenger=alice, opponent=greta)
    services.match_forfeit(match=finished, loser=alice, reason="resigned")
    game = Game.objects.get(match=current, status=Game.Status.ACTIVE)

    page = alice_web.get("/lobby").content.decode()

    assert "Greta (greedy)" in page
    assert f'href="/games/{game.pk}"' in page
    assert f'href="/matches/{finished.pk}/replay"' in page
    assert "Lost" in page


def test_the_lobby_offers_other_active_people_to_challenge(alice_web, alice, bob, greta):
    gone = PlayerFactory(user__username="gone", name="Gone Away")
    gone.user.is_active = False
    gone.user.save()

    page = alice_web.get("/lobby").content.decode()

    people = page.split('label="Players (they accept or decline)"')[1].split("</optgroup>")[0]
    assert f'<option value="{bob.pk}">Bob</option>' in people
    assert "Alice" not in people and "Gone Away" not in people and "Greta" not in people


def people_in(page: str) -> str:
    return page.split('label="Players (they accept or decline)"')[1].split("</optgroup>")[0]


def test_the_lobby_finds_people_by_part_of_their_name(alice_web, alice, bob):
    dora = PlayerFactory(user__username="dora", name="Dora Bobbins")
    PlayerFactory(user__username="eve", name="Eve")

    page = alice_web.get("/lobby", {"find": "  BOB "}).content.decode()

    people = people_in(page)
    assert f'<option value="{bob.pk}" selected>Bob</option>' in people  # the first found
    assert f'<option value="{dora.pk}">Dora Bobbins</option>' in people
    assert "Eve" not in people
    assert 'value="BOB"' in page and "Show everyone" in page


def test_a_search_that_finds_nobody_says_so(alice_web, alice, bob):
    page = alice_web.get("/lobby", {"find": "zz<b>"}).content.decode()
    assert "Nobody's name contains \u201czz&lt;b&gt;\u201d." in page
    assert 'label="Players (they accept or decline)"' not in page
    long = alice_web.get("/lobby", {"find": "x" * 500})
    assert long.status_code == 200 and 'value="' + "x" * 40 + '"' in long.content.decode()


def test_a_players_page_links_to_the_lobby_with_them_chosen(alice_web, alice, web):
    far = PlayerFactory(user__username="far", name="Far Away")

    theirs = alice_web.get(f"/players/{far.pk}").content.decode()
    assert f'href="/lobby?opponent={far.pk}"' in theirs and "Challenge Far Away" in theirs
    assert 'id="challenge"' not in alice_web.get(f"/players/{alice.pk}").content.decode()
    assert 'id="challenge"' not in web.get(f"/players/{far.pk}").content.decode()

    page = alice_web.get("/lobby", {"opponent": far.pk}).content.decode()
    assert f'<option value="{far.pk}" selected>Far Away</option>' in people_in(page)


def test_a_bot_can_be_chosen_by_link_too(alice_web, greta):
    page = alice_web.get("/lobby", {"opponent": greta.pk}).content.decode()
    assert f'<option value="{greta.pk}" selected>Greta (greedy)</option>' in page


@pytest.mark.parametrize("raw", ["x", "-1", "1.5", "\u00b2", "9" * 30, "999999", ""])
def test_a_lobby_link_to_nobody_is_ignored(alice_web, alice, bob, raw):
    response = alice_web.get("/lobby", {"opponent": raw})
    assert response.status_code == 200
    assert " selected>" not in people_in(response.content.decode())


def test_a_lobby_link_never_offers_yourself_or_an_inactive_account(alice_web, alice):
    gone = PlayerFactory(user__username="gone", name="Gone Away")
    gone.user.is_active = False
    gone.user.save()
    for pk in (alice.pk, gone.pk):
        page = alice_web.get("/lobby", {"opponent": pk}).content.decode()
        assert "Gone Away" not in page and ">Alice</option>" not in page


def test_a_staff_account_without_a_player_is_told_it_cannot_play(web, django_user_model):
    web.force_login(django_user_model.objects.create_user("boss", password=PASSWORD))
    response = web.get("/lobby")
    assert response.status_code == 403
    assert "This account has no player" in response.content.decode()


def test_the_table_is_a_shell_for_players_and_spectators(alice_web, web, alice, greta):
    match = services.challenge_create(challenger=alice, opponent=greta)
    game = Game.objects.get(match=match, status=Game.Status.ACTIVE)

    mine = alice_web.get(f"/games/{game.pk}").content.decode()
    theirs = web.get(f"/games/{game.pk}").content.decode()

    assert 'data-you="0"' in mine and 'id="resign"' in mine
    assert 'data-you=""' in theirs and 'id="resign"' not in theirs
    assert "web/js/table.js" in mine


def test_someone_elses_challenge_has_no_page(web, alice, bob):
    match = services.challenge_create(challenger=alice, opponent=bob)
    response = web.get(f"/matches/{match.pk}")
    assert response.status_code == 404
    assert "Alice" not in response.content.decode() and "Bob" not in response.content.decode()


def test_the_replay_waits_for_the_end_of_the_match(web, alice, greta):
    match = services.challenge_create(challenger=alice, opponent=greta)
    response = web.get(f"/matches/{match.pk}/replay")
    assert response.status_code == 409
    page = response.content.decode()
    assert (
        f"Match {match.pk}: no replay yet" in page
        and "published when the match is finished" in page
    )
    assert str(match.seed) not in page and 'id="replay-data"' not in page


def test_the_replay_page_embeds_the_frames_of_the_chosen_deal(web, bot_match):
    response = web.get(f"/matches/{bot_match.pk}/replay?game=0&deal=1")

    assert response.status_code == 200
    page = response.content.decode()
    start = page.index('<script id="replay-data" type="application/json">') + 49
    data = json.loads(page[start : page.index("</script>", start)])
    assert data["players"] == ["Ada", "Bea"] and (data["game"], data["deal"]) == (0, 1)
    assert len(data["frames"]) >= 2
    assert web.get(f"/matches/{bot_match.pk}/replay?game=0&deal=999").status_code == 404
    assert web.get(f"/matches/{bot_match.pk}/replay?game=x").status_code == 404


def test_replayed_frames_end_with_the_hands_the_log_recorded(bot_match):
    log = selectors.match_log(match=bot_match)
    index = deal_index(log)
    assert [d["number"] for d in index[0]["deals"]] == list(range(len(log["games"][0]["deals"])))
    deals = bot_match.games.get().deals.order_by("number")
    for deal_log, deal_row in zip(log["games"][0]["deals"], deals, strict=True):
        replayed = deal_frames(rules=log["rules"], deal=deal_log)
        frames = replayed["frames"]
        assert len(frames) == len(deal_log["actions"]) + 1
        assert frames[0]["stock_size"] == 31 and frames[0]["action"] is None
        if deal_row.outcome is None:
            continue
        last = frames[-1]
        for player in (0, 1):
            shown = last["hands"][player]
            cards = sorted([c for meld in shown["melds"] for c in meld] + shown["deadwood"])
            seat = player ^ deal_row.swap
            assert cards == sorted(deal_row.outcome["hands"][seat])
        assert replayed["outcome"]["points"] == deal_row.points


def test_frames_agree_with_the_engine_replaying_the_same_actions(bot_match):
    log = selectors.match_log(match=bot_match)
    deal_log = log["games"][0]["deals"][0]
    frames = deal_frames(rules=log["rules"], deal=deal_log)["frames"]
    engine = Deal.replay(
        deal_log["seed"], deal_log["dealer"], deal_log["actions"], RuleSet.from_dict(log["rules"])
    )
    assert frames[-1]["discard_pile"] == [card_name(c) for c in engine.discards]
    assert frames[-1]["stock_size"] == engine.stock_size
    swap = deal_log["swap"]
    shown = frames[-1]["hands"][0]
    assert sorted([c for m in shown["melds"] for c in m] + shown["deadwood"]) == sorted(
        card_name(c) for c in cards_of(engine.hands[0 ^ swap])
    )


def test_events_leaderboard_and_player_pages_render(web, greta):
    event = tournament_services.event_create(name="Spring cup", format="single_elim")
    tournament_services.event_open_registration(event=event)

    assert "Spring cup" in web.get("/events").content.decode()
    page = web.get(f"/events/{event.pk}").content.decode()
    assert "<h1>Spring cup</h1>" in page and f'data-event="{event.pk}"' in page
    assert "Single elimination · Registration · best of" in page
    board = web.get("/leaderboard").content.decode()
    assert "<h1>Leaderboard</h1>" in board and "web/js/leaderboard.js" in board
    assert "Greta (greedy)" in web.get(f"/players/{greta.pk}").content.decode()


def test_a_draft_event_is_for_staff_only(web):
    event = tournament_services.event_create(name="Secret cup", format="swiss")
    assert web.get(f"/events/{event.pk}").status_code == 404
    assert "Secret cup" not in web.get("/events").content.decode()


def test_static_files_are_served(web):
    for path, kind in [
        ("web/css/site.css", "text/css"),
        ("web/js/table.js", "text/javascript"),
        ("web/js/api.js", "text/javascript"),
    ]:
        response = web.get(f"/static/{path}")
        assert response.status_code == 200, path
        assert response["Content-Type"].startswith(kind), (path, response["Content-Type"])
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert body == (settings.BASE_DIR / "web" / "static" / path).read_bytes(), path


# --- cards as text ---------------------------------------------------------------------------


def test_cards_read_as_text_and_symbols_with_their_names():
    assert card_text("7H") == "7♥" and card_text("TS") == "10♠" and card_text("AC") == "A♣"
    assert card_label("QD") == "queen of diamonds"
    html = str(card("7H"))
    assert "7♥" in html and "7 of hearts" in html and "suit-h" in html
