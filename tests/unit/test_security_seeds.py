"""Seeds stay secret while they matter.

A match's seed (and each game's and deal's, derived from it) deals every card: staff see only
its commitment in the admin until the match is finished. An event's seeding seed gives the
whole bracket away: it is drawn at the start and published only after it.
"""

from __future__ import annotations

import json
import random

import pytest
from django.test import Client

from games import services as play
from games.models import Deal, Game, Match
from tests.live import Socket, fresh_layer, run
from tests.tournaments import event_with, humans
from tournaments import consumers, services
from tournaments.models import Event
from tournaments.services import start

pytestmark = pytest.mark.django_db

MATCH_SEED = 0x5EED_C0DE_1234_ABC  # large enough not to turn up in a page by chance
FIXED_SEEDING_SEED = 4_242_424_242_4242


def encodings(seed: int) -> set[str]:
    """The ways a page could spell a seed: decimal, hex, with separators."""
    return {str(seed), f"{seed:x}", f"{seed:X}", f"{seed:,}", f"{seed:_}"}


def assert_hidden(seed: int, text: str, where: str) -> None:
    for spelled in encodings(seed):
        assert spelled not in text, f"{where} shows the seed as {spelled}"


@pytest.fixture
def live_match(alice, bob):
    match = play.match_create(player_a=alice, player_b=bob, seed=MATCH_SEED, best_of=3)
    assert match.status == Match.Status.ACTIVE
    return match


def admin_pages(match: Match) -> dict[str, str]:
    game = Game.objects.get(match=match)
    deal = Deal.objects.get(game=game)
    return {
        "match list": "/admin/games/match/",
        "match page": f"/admin/games/match/{match.pk}/change/",
        "game list": "/admin/games/game/",
        "game page": f"/admin/games/game/{game.pk}/change/",
        "deal list": "/admin/games/deal/",
        "deal page": f"/admin/games/deal/{deal.pk}/change/",
    }


def secrets_of(match: Match) -> list[int]:
    game = Game.objects.get(match=match)
    return [match.seed, game.seed, *Deal.objects.filter(game=game).values_list("seed", flat=True)]


# --- a live match in the admin ------------------------------------------------------------


def test_staff_see_only_the_commitment_of_a_live_match(admin_client, live_match):
    seeds = secrets_of(live_match)

    pages = {where: admin_client.get(url) for where, url in admin_pages(live_match).items()}

    for where, response in pages.items():
        assert response.status_code == 200, where
        for seed in seeds:
            assert_hidden(seed, response.content.decode(), where)
    match_page = pages["match page"].content.decode()
    assert live_match.seed_commitment in match_page
    assert "hidden until the match ends" in match_page
    assert "hidden until the match ends" in pages["game page"].content.decode()
    assert "hidden until the match ends" in pages["deal page"].content.decode()
    found = admin_client.get(f"/admin/games/match/?q={MATCH_SEED}").content.decode()
    assert f"/admin/games/match/{live_match.pk}/change/" not in found  # the seed is no search key


def test_a_live_match_has_no_seed_field_to_edit(admin_client, live_match):
    for where, url in admin_pages(live_match).items():
        page = admin_client.get(url).content.decode()
        assert 'name="seed"' not in page, where
        assert 'name="state"' not in page, where


@pytest.mark.parametrize(
    ("model", "lookup"),
    [
        ("match", "seed__lt"),
        ("match", "seed"),
        ("match", "state__icontains"),
        ("game", "seed__gte"),
        ("deal", "seed__startswith"),
        ("webhook", "secret__startswith"),
    ],
)
def test_the_admin_takes_no_lookup_on_a_secret(admin_client, live_match, model, lookup):
    # Django's admin filters a changelist by any lookup on the model's own fields: on the seed
    # it answers a binary search (is it below 2**62? below 2**61? ...) in 63 requests.
    app = "tournaments" if model == "webhook" else "games"

    response = admin_client.get(f"/admin/{app}/{model}/?{lookup}=4")

    assert response.status_code == 400


def test_a_finished_match_shows_its_seeds(admin_client, live_match, bob):
    play.match_forfeit(match=live_match, loser=bob, reason="test")
    live_match.refresh_from_db()
    game = Game.objects.get(match=live_match)

    match_page = admin_client.get(f"/admin/games/match/{live_match.pk}/change/").content.decode()
    game_page = admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()

    assert live_match.status == Match.Status.FINISHED
    assert str(MATCH_SEED) in match_page and str(game.seed) in game_page


# --- an event's seeding seed --------------------------------------------------------------


@pytest.fixture
def drawn(monkeypatch):
    """The seeding seeds the tournaments draw (62 bits), in order; match seeds as ever."""
    draws = iter([1111, 2222, 3333])
    taken = []
    real = start.secrets.randbits

    def randbits(bits):
        if bits != 62:
            return real(bits)
        taken.append(next(draws))
        return taken[-1]

    monkeypatch.setattr(start.secrets, "randbits", randbits)
    return taken


def test_seeding_during_registration_records_no_seed_and_the_start_draws_it(drawn, admin_user):
    event = event_with(humans(6), "single_elim", seeding="random")

    services.event_seed(event=event, by=admin_user)
    event.refresh_from_db()
    assert event.seeding_seed is None  # the provisional order came from a seed thrown away

    services.event_start(event=event)
    event.refresh_from_db()
    assert drawn == [1111, 2222] and event.seeding_seed == 2222
    order = sorted(event.entries.all(), key=lambda e: e.pk)
    random.Random(2222).shuffle(order)
    assert [e.pk for e in event.entries.order_by("seed")] == [e.pk for e in order]


def test_no_seeding_seed_is_published_before_the_start(client, alice_client, admin_client):
    event = event_with(humans(4), "single_elim", seeding_seed=FIXED_SEEDING_SEED)
    services.event_seed(event=event)

    answers = {
        "event (anonymous)": client.get(f"/api/events/{event.pk}"),
        "event (player)": alice_client.get(f"/api/events/{event.pk}"),
        "event (staff)": admin_client.get(f"/api/events/{event.pk}"),
        "events": client.get("/api/events"),
        "entries": client.get(f"/api/events/{event.pk}/entries"),
        "bracket": client.get(f"/api/events/{event.pk}/bracket"),
        "standings": client.get(f"/api/events/{event.pk}/standings"),
        "page": Client().get(f"/events/{event.pk}"),
    }

    for where, response in answers.items():
        assert response.status_code == 200, where
        assert_hidden(FIXED_SEEDING_SEED, response.content.decode(), where)
    assert answers["event (anonymous)"].json()["seeding_seed"] is None

    services.event_start(event=event)
    assert client.get(f"/api/events/{event.pk}").json()["seeding_seed"] == FIXED_SEEDING_SEED


@pytest.mark.django_db(transaction=True)
def test_the_event_socket_shows_no_seeding_seed_before_the_start(monkeypatch):
    fresh_layer()
    consumers._feeds.clear()
    monkeypatch.setattr(consumers, "RENDER_INTERVAL", 0.0)
    event = event_with(humans(3), "single_elim", seeding_seed=FIXED_SEEDING_SEED)
    services.event_seed(event=event)

    async def scenario():
        socket = await Socket.open(f"/ws/events/{event.pk}")
        first = await socket.receive("event")
        await socket.close()
        return first

    first = run(scenario)

    assert Event.objects.get(pk=event.pk).status == Event.Status.REGISTRATION
    assert first["event"]["seeding_seed"] is None
    assert_hidden(FIXED_SEEDING_SEED, json.dumps(first), "the event socket")
