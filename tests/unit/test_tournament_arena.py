"""Arena events through the API and the services: pairing at once, streaks, berserk, pauses,
the end (no new match, matches in play still count), and bot arenas run to their champion."""

from __future__ import annotations

import itertools
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as play
from games.engine.actions import Action as EngineAction
from games.models import Game, Match
from tests.tournaments import bots, event_with
from tournaments import services
from tournaments.models import Entry, Event, Pairing
from tournaments.services import arena as arenas

pytestmark = pytest.mark.django_db

TIMED = {"base_seconds": 300, "increment_seconds": 0}


def error(response) -> tuple[int, str]:
    body = response.json()
    assert set(body) >= {"detail", "code"}
    return response.status_code, body["code"]


def arena(players, **options) -> Event:
    event = event_with(players, "arena", seeding="manual", **{**TIMED, **options})
    for seed, player in enumerate(players, start=1):
        Entry.objects.filter(event=event, player=player).update(seed=seed)
    return services.event_start(event=event)


def playing(event: Event) -> list[Pairing]:
    return list(
        Pairing.objects.filter(event=event, status=Pairing.Status.PLAYING)
        .select_related("match", "entry_a__player", "entry_b__player")
        .order_by("pk")
    )


def opponents(event: Event, player) -> set:
    """The opponents of ``player``'s match in play, as players."""
    found = set()
    for p in playing(event):
        sides = {p.entry_a.player, p.entry_b.player}
        if player in sides:
            found |= sides - {player}
    return found


def win(event: Event, winner) -> None:
    """``winner``'s match in play ends with them winning (the opponent resigns)."""
    for p in playing(event):
        if winner in (p.entry_a.player, p.entry_b.player):
            loser = p.entry_b.player if p.entry_a.player == winner else p.entry_a.player
            play.match_forfeit(match=p.match, loser=loser, reason="resigned")
            return
    raise AssertionError(f"{winner} has no match in play")


def standings(client, event: Event) -> dict[str, dict]:
    body = client.get(f"/api/events/{event.pk}/standings").json()
    assert body["format"] == "arena"
    return {row["player"]["name"]: row for row in body["rows"]}


@pytest.fixture
def cast(alice, bob, charlie):
    from tests.factories import PlayerFactory

    return [alice, bob, charlie, PlayerFactory(user__username="dora", name="Dora")]


# --- pairing ---------------------------------------------------------------------------------


def test_the_start_pairs_every_player_at_once_by_standing(cast):
    alice, bob, charlie, dora = cast
    event = arena(cast)
    assert event.status == Event.Status.RUNNING and event.ends_at is not None
    assert event.ends_at - event.started_at == timedelta(minutes=arenas.DEFAULT_MINUTES)
    assert opponents(event, alice) == {bob} and opponents(event, charlie) == {dora}
    for p in playing(event):
        assert p.match.status == Match.Status.ACTIVE  # no waiting to show up: the clocks run
    assert [p.key for p in playing(event)] == ["A1", "A2"]


def test_a_free_player_is_not_paired_with_their_last_opponent(cast):
    alice, bob, charlie, dora = cast
    event = arena(cast)
    win(event, alice)
    arenas.arena_pass(event_id=event.pk)
    assert playing(event) and opponents(event, alice) == set()  # bob is free, but played her
    win(event, charlie)
    arenas.arena_pass(event_id=event.pk)
    assert opponents(event, alice) in ({charlie}, {dora})
    assert opponents(event, bob) in ({charlie}, {dora})


def test_two_wins_in_a_row_then_each_win_scores_double(client, cast):
    alice, bob, charlie, dora = cast
    event = arena(cast)
    win(event, alice)  # 2
    win(event, charlie)
    arenas.arena_pass(event_id=event.pk)
    win(event, alice)  # 2
    win(event, bob if opponents(event, bob) else dora)
    arenas.arena_pass(event_id=event.pk)
    win(event, alice)  # 4: on fire
    rows = standings(client, event)
    assert rows["Alice"]["sheet"] == [2, 2, 4] and rows["Alice"]["points"] == 8
    assert rows["Alice"]["streak"] == 3 and rows["Alice"]["on_fire"] is True
    assert rows["Alice"]["rank"] == 1
    assert {rows[name]["points"] for name in ("Bob", "Charlie", "Dora")} <= {0, 2}


def test_a_win_after_going_berserk_scores_a_point_more_and_halves_the_clock(alice_client, cast):
    alice = cast[0]
    event = arena(cast)
    match = playing(event)[0].match
    index = match.index_of(alice.pk)
    answer = alice_client.post(f"/api/events/{event.pk}/matches/{match.pk}/berserk")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["berserk"][index] is True
    game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
    assert game.clock_ms(index) == 150_000 and game.clock_ms(1 - index) == 300_000
    again = alice_client.post(f"/api/events/{event.pk}/matches/{match.pk}/berserk")
    assert error(again) == (409, "berserk_already")
    win(event, alice)
    rows = standings(alice_client, event)
    assert rows["Alice"]["points"] == 3 and rows["Alice"]["berserk_wins"] == 1


def test_berserk_is_refused_after_your_first_move_in_someone_elses_match_or_if_not_allowed(
    alice_client, bob_client, charlie_client, cast
):
    alice = cast[0]
    event = arena(cast)
    match = playing(event)[0].match  # alice v bob
    url = f"/api/events/{event.pk}/matches/{match.pk}/berserk"
    assert error(charlie_client.post(url)) == (403, "not_a_player")
    game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
    mover = match.player_a if game.to_act == 0 else match.player_b
    play.action_submit(
        game_id=game.pk, player=mover, ply=game.ply, action=EngineAction.from_parts("pass", None)
    )
    assert error((alice_client if mover == alice else bob_client).post(url)) == (
        409,
        "berserk_too_late",
    )
    match.refresh_from_db()
    assert not (match.berserk_a or match.berserk_b)


def test_berserk_is_refused_in_an_arena_that_does_not_allow_it(alice_client, alice, bob):
    calm = arena([alice, bob], berserk=False)
    match = playing(calm)[0].match
    answer = alice_client.post(f"/api/events/{calm.pk}/matches/{match.pk}/berserk")
    assert error(answer) == (409, "berserk_not_allowed")
    match.refresh_from_db()
    assert not (match.berserk_a or match.berserk_b)


def test_a_paused_player_is_not_paired_until_they_rejoin(alice_client, cast):
    alice, bob, charlie, dora = cast
    event = arena(cast)
    answer = alice_client.post(f"/api/events/{event.pk}/pause")
    assert answer.status_code == 200 and Entry.objects.get(event=event, player=alice).paused_at
    assert opponents(event, alice) == {bob}  # the match in play goes on
    win(event, bob)
    win(event, charlie)
    arenas.arena_pass(event_id=event.pk)
    assert opponents(event, alice) == set()
    assert opponents(event, bob) in ({charlie}, {dora})
    win(event, bob)
    answer = alice_client.post(f"/api/events/{event.pk}/rejoin")
    assert answer.status_code == 200 and answer.json()["status"] == "registered"
    arenas.arena_pass(event_id=event.pk)
    assert opponents(event, alice) != set()


def test_pausing_is_refused_outside_a_running_arena_or_without_an_entry(
    alice_client, charlie_client, alice, bob
):
    cup = event_with([alice, bob], "single_elim")
    services.event_start(event=cup)
    assert error(alice_client.post(f"/api/events/{cup.pk}/pause")) == (409, "not_arena")
    event = arena([alice, bob])
    assert error(charlie_client.post(f"/api/events/{event.pk}/pause")) == (409, "not_entered")
    waiting = event_with([alice, bob], "arena")
    assert error(alice_client.post(f"/api/events/{waiting.pk}/rejoin")) == (
        409,
        "event_not_running",
    )


def test_a_player_who_loses_on_time_without_a_move_is_paused_as_away(alice, bob):
    event = arena([alice, bob])
    match = playing(event)[0].match
    game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
    away = match.player_a if game.to_act == 0 else match.player_b
    play.clock_settle(match_id=match.pk, now=timezone.now() + timedelta(hours=1))
    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.TIMEOUT and match.winner != away
    entries = {e.player: e for e in Entry.objects.filter(event=event)}
    assert entries[away].paused_at is not None  # not paired again until they rejoin
    assert entries[alice if away == bob else bob].paused_at is None


# --- the end -----------------------------------------------------------------------------------


def test_after_the_end_no_match_starts_and_the_matches_in_play_still_count(client, cast):
    alice, dora = cast[0], cast[3]
    event = arena(cast)
    win(event, alice)
    Event.objects.filter(pk=event.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    before = Pairing.objects.filter(event=event).count()
    arenas.arenas_sweep()
    assert Pairing.objects.filter(event=event).count() == before  # alice and bob wait
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING  # charlie v dora is still in play
    win(event, dora)
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    rows = standings(client, event)
    assert rows["Dora"]["points"] == 2 and rows["Alice"]["points"] == 2
    assert event.champion in (alice, dora)
    ranks = sorted(Entry.objects.filter(event=event).values_list("final_rank", flat=True))
    assert ranks == [1, 2, 3, 4]


def test_a_pass_that_reaches_the_end_while_it_pairs_starts_no_match(cast):
    """The time a pass takes counts: one that begins a moment before the end and is still
    pairing at the end starts nothing (a slow pass once started matches after the end)."""
    alice, charlie = cast[0], cast[2]
    event = arena(cast)
    win(event, alice)
    win(event, charlie)
    event.refresh_from_db()
    before = Pairing.objects.filter(event=event).count()
    moment = timedelta(microseconds=1)
    arenas.arena_pass(event_id=event.pk, now=event.ends_at - moment)
    assert Pairing.objects.filter(event=event).count() == before
    arenas.arena_pass(event_id=event.pk, now=event.ends_at - timedelta(seconds=30))
    assert Pairing.objects.filter(event=event).count() > before  # there was a pair to make


def test_a_sweep_that_reaches_an_arena_late_reads_the_clock_there_and_starts_nothing_after_its_end(
    cast, monkeypatch
):
    """The sweep passes over every running arena in turn; one reached after its end (the passes
    before it took the time) starts no match, though the sweep began before that end."""
    alice, charlie = cast[0], cast[2]
    event = arena(cast)
    win(event, alice)
    win(event, charlie)  # four free players: a pass now would pair them
    before = Pairing.objects.filter(event=event).count()
    ends_at = timezone.now() + timedelta(milliseconds=200)
    Event.objects.filter(pk=event.pk).update(ends_at=ends_at)
    real_pass = arenas.arena_pass

    def reached_late(*, event_id, now=None):
        time.sleep(0.4)  # the arenas before this one in the sweep
        return real_pass(event_id=event_id, now=now)

    monkeypatch.setattr(arenas, "arena_pass", reached_late)
    arenas.arenas_sweep()
    started = Pairing.objects.filter(event=event).exclude(match__created_at__lt=ends_at)
    assert not started.exists(), "a match started after the arena's end"
    assert Pairing.objects.filter(event=event).count() == before


def test_an_arena_whose_time_is_up_with_nobody_playing_finishes_at_the_next_sweep(alice, bob):
    event = arena([alice, bob])
    win(event, alice)
    Event.objects.filter(pk=event.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert arenas.arenas_sweep() == {"paired": 0, "finished": 1}
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and event.champion == alice


# --- creating ----------------------------------------------------------------------------------


def test_staff_create_an_arena_with_its_minutes_and_berserk(admin_client):
    answer = admin_client.post(
        "/api/events",
        {"name": "Friday arena", "format": "arena", "arena_minutes": 45, "berserk": False},
        content_type="application/json",
    )
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["format"] == "arena" and body["arena_minutes"] == 45 and body["berserk"] is False


@pytest.mark.parametrize("minutes", [0, -5, 100000])
def test_an_arena_of_no_time_or_more_than_a_day_is_a_400(admin_client, minutes):
    answer = admin_client.post(
        "/api/events",
        {"name": "Arena", "format": "arena", "arena_minutes": minutes},
        content_type="application/json",
    )
    assert answer.status_code == 400 and "arena_minutes" in str(answer.json())
    assert not Event.objects.filter(name="Arena").exists()


# --- bot arenas --------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_bot_arena_pairs_again_and_again_until_its_time_is_up_and_ranks_everyone():
    field = bots(6)
    event = arena(field, base_seconds=None)
    started = event.started_at
    for second in range(1, 6):  # the sweep, once a second; the matches are played on commit
        arenas.arenas_sweep(now=started + timedelta(seconds=second))
    Event.objects.filter(pk=event.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    arenas.arenas_sweep()
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    pairings = list(Pairing.objects.filter(event=event).order_by("pk"))
    assert len(pairings) == 3 * 6 and all(p.status == Pairing.Status.FINISHED for p in pairings)
    history: dict[int, list[int]] = {}
    for p in pairings:
        history.setdefault(p.entry_a_id, []).append(p.entry_b_id)
        history.setdefault(p.entry_b_id, []).append(p.entry_a_id)
    for entry, met in history.items():
        assert all(x != y for x, y in itertools.pairwise(met)), f"entry {entry} met {met}"
    ranks = sorted(Entry.objects.filter(event=event).values_list("final_rank", flat=True))
    assert ranks == list(range(1, 7))
    assert Entry.objects.get(event=event, final_rank=1).player == event.champion
