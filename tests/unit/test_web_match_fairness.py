"""The match page keeps the shuffle's proof for those who check it: the seed's commitment
behind a "Check the shuffle" disclosure, the seed there too once the match is over."""

import re

import pytest
from django.test import Client

from games import services
from tests.factories import BotFactory

pytestmark = pytest.mark.django_db


def fairness(client: Client, match) -> str:
    page = client.get(f"/matches/{match.pk}").content.decode()
    found = re.search(r'<details class="meta fairness" id="fairness">(.*?)</details>', page, re.S)
    assert found, "the seed's proof is behind a closed disclosure"
    outside = page.replace(found[0], "")
    assert match.seed_commitment not in outside and "SHA-256" not in outside
    return found[1]


def test_the_commitment_is_behind_a_disclosure_and_the_seed_only_after_the_end(alice):
    greta = BotFactory(name="Greta (greedy)", bot_strategy="greedy")
    match = services.challenge_create(challenger=alice, opponent=greta)
    client = Client()
    client.force_login(alice.user)
    shown = fairness(client, match)
    assert "<summary>Check the shuffle</summary>" in shown
    assert match.seed_commitment in shown
    assert str(match.seed) not in shown and 'id="seed"' not in shown
    services.match_forfeit(match=match, loser=alice, reason="test")
    match.refresh_from_db()
    shown = fairness(client, match)
    assert f'<code id="seed">{match.seed}</code>' in shown
