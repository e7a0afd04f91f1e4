"""A queryset compiled once and run again gives the objects the queryset itself gives."""

from __future__ import annotations

import pytest
from django.db.models import Model

from accounts.models import Player
from common.compiled import CompiledQuery
from games import services
from games.models import Game, Match
from games.services.base import with_deal_in_play

pytestmark = pytest.mark.django_db

NO_ID = -918_273_645


def fields(obj: Model) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def test_rows_with_their_related_objects_and_annotations_equal_the_querysets(alice, bob, charlie):
    for opponent in (bob, charlie):
        services.match_create(player_a=alice, player_b=opponent)
    build = lambda pk: with_deal_in_play(  # noqa: E731
        Game.objects.select_related("match", "match__player_a", "match__player_b").filter(pk=pk)
    )
    compiled = CompiledQuery(build, NO_ID)

    for game in Game.objects.all():
        expected = build(game.pk).get()
        got = compiled.get(game.pk)
        assert type(got) is Game and fields(got) == fields(expected)
        assert (got.deal_in_play, got.deal_in_play_number) == (
            expected.deal_in_play,
            expected.deal_in_play_number,
        )
        assert got.deal_in_play is not None
        assert fields(got.match) == fields(expected.match)
        assert isinstance(got.match.state, dict)  # the JSON column converted, as Django does
        for side in ("player_a", "player_b"):
            assert fields(getattr(got.match, side)) == fields(getattr(expected.match, side))
        assert not got._state.adding and got._state.db == "default"


def test_get_raises_as_querysets_do(alice, bob):
    services.match_create(player_a=alice, player_b=bob)
    one = CompiledQuery(lambda pk: Game.objects.filter(pk=pk), NO_ID)
    by_player = CompiledQuery(lambda pk: Match.objects.filter(player_a_id=pk), NO_ID)

    with pytest.raises(Game.DoesNotExist):
        one.get(10**6)
    assert one.all(2**70) == []  # beyond any id: no row, no database error
    services.match_create(player_a=alice, player_b=bob)
    with pytest.raises(Match.MultipleObjectsReturned):
        by_player.get(alice.pk)
    assert len(by_player.all(alice.pk)) == 2


def test_a_queryset_whose_sql_depends_on_the_value_is_refused_when_compiled(alice):
    # A placeholder the SQL does not carry as a parameter (None becomes IS NULL): refused,
    # rather than run later with SQL that ignores the caller's value.
    compiled = CompiledQuery(lambda owner: Player.objects.filter(owner=owner), None)

    with pytest.raises(ValueError, match="placeholder"):
        compiled.all(alice.pk)


def test_a_row_updated_is_the_row_save_writes(alice, bob):
    from django.db import DatabaseError

    from common.compiled import update_row

    match = services.match_create(player_a=alice, player_b=bob)
    game = Game.objects.get(match=match)
    game.ply, game.score_a, game.results = 7, 31, [{"winner": 1, "points": 40}]
    game.clock_charged_at = None
    update_row(game)
    match.ply, match.state = 7, {**match.state, "reason": "updated"}
    match.end_detail = "not written: not one of the fields named"
    update_row(match, ["ply", "state"])

    assert fields(Game.objects.get(pk=game.pk)) == fields(game)
    stored = Match.objects.get(pk=match.pk)
    assert (stored.ply, stored.state["reason"], stored.end_detail) == (7, "updated", "")
    game.pk = 10**6
    with pytest.raises(DatabaseError):
        update_row(game)


def test_a_row_inserted_is_the_row_save_inserts(alice, bob):
    from django.db import IntegrityError, transaction
    from django.utils import timezone

    from common.compiled import insert_row
    from games.models import Action, Deal

    match = services.match_create(player_a=alice, player_b=bob)
    deal = Deal.objects.get(game__match=match)
    made = {
        "deal_id": deal.pk,
        "ply": 0,
        "seat": 1,
        "player_id": bob.pk,
        "kind": "knock",
        "card": "KH",
        "melds": [["AS", "2S", "3S"]],
        "lag_ms": 12,
        "client_id": "c-1",
        "created_at": timezone.now(),
    }
    insert_row(Action(**made))
    Action.objects.create(**{**made, "ply": 1})

    inserted, saved = Action.objects.filter(deal=deal).order_by("ply")
    assert {k: v for k, v in fields(inserted).items() if k not in ("id", "ply")} == {
        k: v for k, v in fields(saved).items() if k not in ("id", "ply")
    }
    assert inserted.melds == [["AS", "2S", "3S"]] and inserted.auto is False
    with pytest.raises(IntegrityError), transaction.atomic():  # one action a ply of a deal
        insert_row(Action(**made))
