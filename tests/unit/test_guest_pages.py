"""A guest on the web pages: shown as a guest wherever players are listed, never offered to be
challenged, and on their page, for organisers, the button for their invitation link.

The cast: olga organises, bob plays, dora was entered as a guest.
"""

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from accounts import services
from games import services as play
from games.models import Match
from tests.factories import BotFactory, PlayerFactory
from web.templatetags.cards import kind_tag

pytestmark = pytest.mark.django_db

GUEST_TAG = '<span class="tag" title="entered by an organiser, without an account">guest</span>'


@pytest.fixture
def dora(db):
    return services.guest_create(name="Dora")


def signed_in(player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def olga() -> Client:
    user = PlayerFactory(user__username="olga").user
    user.is_staff = True
    user.save()
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label="tournaments", codename="change_event")
    )
    return signed_in(user.player)


def test_a_guests_page_says_guest_and_offers_no_challenge(dora, bob):
    page = signed_in(bob).get(f"/players/{dora.pk}").content.decode()

    assert GUEST_TAG in page
    assert "A guest, entered by an organiser" in page
    assert 'id="challenge"' not in page
    assert 'id="invite"' not in page  # bob organises nothing


def test_an_organiser_finds_the_invitation_button_on_a_guests_page_only(dora, bob):
    organiser = olga()

    assert 'id="invite"' in organiser.get(f"/players/{dora.pk}").content.decode()
    assert 'id="invite"' not in organiser.get(f"/players/{bob.pk}").content.decode()


def test_a_match_with_a_guest_shows_the_tag_and_is_nobodys_table_to_go_to(dora):
    match = play.match_create(player_a=dora, player_b=BotFactory(name="Randy"))

    page = Client().get(f"/matches/{match.pk}").content.decode()

    assert GUEST_TAG in page
    # An anonymous visitor has no user, nor has a guest: that is no seat at this table.
    assert "Watch the game in play" in page and "Go to the table" not in page


def test_a_players_recent_matches_mark_a_guest_opponent(dora, bob):
    match = play.match_create(player_a=bob, player_b=dora)
    play.match_forfeit(match=match, loser=dora, reason="left", end_reason=Match.EndReason.FORFEIT)

    page = Client().get(f"/players/{bob.pk}").content.decode()

    assert f"Dora</a> {GUEST_TAG}" in page


def test_the_kind_tag_reads_players_and_payloads(dora):
    assert "guest" in kind_tag(dora)
    assert "guest" in kind_tag({"id": 1, "name": "Dora", "kind": "guest"})
    assert ">bot<" in kind_tag({"kind": "bot"})
    assert kind_tag({"kind": "human"}) == "" and kind_tag({"kind": "external"}) == ""
