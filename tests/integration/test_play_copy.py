"""The bulk write of a bot match's actions (COPY on PostgreSQL) round-trips every column,
and the action log's keys hold without constraints of the database."""

import pytest
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.utils import timezone

from games import services
from games.models import Action, Deal, Game, Match
from games.services.bots import write_actions
from tests.factories import BotFactory

pytestmark = pytest.mark.django_db


def test_copied_actions_read_back_with_melds_cards_and_time():
    a, b = BotFactory(bot_strategy="greedy"), BotFactory(bot_strategy="greedy")
    match = services.match_create(player_a=a, player_b=b, start=False)
    game = Game.objects.create(match=match, number=0, seed=1, first_dealer=0)
    deal = Deal.objects.create(game=game, number=0, seed=1, dealer=0)
    now = timezone.now()
    rows = [
        (deal.pk, 0, 1, b.pk, "pass", "", None),
        (deal.pk, 1, 0, a.pk, "knock", "9C", [["AS", "2S", "3S"], ["KC", "KD", "KH"]]),
    ]
    with transaction.atomic():
        write_actions(rows, now)
    written = list(Action.objects.filter(deal=deal).order_by("ply"))
    assert [(x.ply, x.seat, x.player_id, x.kind, x.card) for x in written] == [
        (0, 1, b.pk, "pass", ""),
        (1, 0, a.pk, "knock", "9C"),
    ]
    assert written[0].melds is None
    assert written[1].melds == [["AS", "2S", "3S"], ["KC", "KD", "KH"]]
    assert written[1].text == "knock 9C [AS 2S 3S] [KC KD KH]"
    assert all(x.created_at == now and x.auto is False for x in written)
    assert Match.objects.filter(pk=match.pk).exists()


def test_copy_keeps_one_action_per_ply():
    a, b = BotFactory(bot_strategy="greedy"), BotFactory(bot_strategy="greedy")
    match = services.match_create(player_a=a, player_b=b, start=False)
    game = Game.objects.create(match=match, number=0, seed=1, first_dealer=0)
    deal = Deal.objects.create(game=game, number=0, seed=1, dealer=0)
    row = (deal.pk, 0, 1, b.pk, "pass", "", None)
    with pytest.raises(IntegrityError), transaction.atomic():
        write_actions([row, row], timezone.now())
    assert not Action.objects.exists()


def test_the_action_log_keys_hold_without_database_constraints():
    """The action table's keys are not foreign-key constraints of PostgreSQL (a check per row
    written): Django's ``on_delete`` keeps them. A deleted match takes its actions with it,
    and a player who has moved cannot be deleted."""
    a, b = BotFactory(bot_strategy="greedy"), BotFactory(bot_strategy="greedy")
    match = services.match_create(player_a=a, player_b=b, best_of=1, start=False)
    assert services.match_play_bots(match_id=match.pk)
    actions = Action.objects.filter(deal__game__match=match)
    assert actions.count() == Match.objects.get(pk=match.pk).ply > 0
    assert set(actions.values_list("player_id", flat=True)) == {a.pk, b.pk}
    with pytest.raises(ProtectedError) as refused, transaction.atomic():
        a.delete()
    assert any(isinstance(row, Action) for row in refused.value.protected_objects)
    assert actions.count() > 0
    Match.objects.filter(pk=match.pk).delete()
    assert not Game.objects.filter(match_id=match.pk).exists()
    assert not Deal.objects.filter(game__match_id=match.pk).exists()
    # Every action of the match went with its deal: none is left pointing at nothing.
    assert not Action.objects.exclude(deal_id__in=Deal.objects.values("pk")).exists()


def test_the_engine_state_reads_back_from_jsonb_as_stored():
    """The JSON columns of play are written and read with orjson: on PostgreSQL's jsonb
    every value comes back as it went in, those orjson refuses (an integer beyond 64 bits)
    through the standard library, and the column still answers lookups into it."""
    a, b = BotFactory(bot_strategy="greedy"), BotFactory(bot_strategy="greedy")
    state = {"seed": 2**62 + 5, "deal": {"actions": ["draw_stock", "discard TS"]}, "x": [1.5]}
    huge = {"n": 2**70, "t": "\u00e9\u2028", "1": None}
    match = services.match_create(player_a=a, player_b=b, start=False)
    Match.objects.filter(pk=match.pk).update(state=state)
    match.state = huge
    match.save(update_fields=["state"])
    assert Match.objects.get(pk=match.pk).state == huge
    match.state = state
    match.save(update_fields=["state"])
    assert Match.objects.get(pk=match.pk).state == state
    assert Match.objects.filter(state__seed=2**62 + 5).get().pk == match.pk
    assert Match.objects.filter(state__deal__actions__1="discard TS").exists()
