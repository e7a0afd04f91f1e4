"""Table matches: events played with real cards at numbered tables, hands entered from phones.

The cast: alice and bob play at a table; carol and dave play at the next one; eve watches;
olga organises (staff who may change matches and pairings, and manage every event: the events
here are nobody's).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import services as accounts
from games.engine.match import Match as EngineMatch
from games.engine.rules import RuleSet
from games.engine.table import EnteredHand, HandKind
from games.models import Deal, Game, Match, TableHand
from ladders.models import RatingChange
from tests.factories import BotFactory, PlayerFactory
from tests.tournaments import event_with, pairing
from tournaments import services
from tournaments.models import Event, EventLog, Pairing

pytestmark = pytest.mark.django_db


def client_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=user)
    return client


def staff(username: str, *permissions: str):
    user = PlayerFactory(user__username=username).user
    user.is_staff = True
    user.save()
    for name in permissions:
        app_label, codename = name.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return type(user).objects.get(pk=user.pk)  # permissions are cached on the user


@pytest.fixture
def cast(db):
    names = ["alice", "bob", "carol", "dave", "eve"]
    people = {name: PlayerFactory(user__username=name, name=name.capitalize()) for name in names}
    people["olga"] = staff(
        "olga",
        "games.change_match",
        "tournaments.change_pairing",
        "tournaments.manage_all_events",
    )
    return people


def clients(cast) -> dict[str, APIClient]:
    found = {name: client_of(p.user) for name, p in cast.items() if name != "olga"}
    found["olga"] = client_of(cast["olga"])
    return found


def table_event(players, format: str = "swiss", **options) -> Event:
    """A started event at tables whose first round pairs the players given two by two (the
    first two at table 1): seeded by hand, the top half of a Swiss meeting the bottom half."""
    options.setdefault("seeding", "manual")
    event = event_with(players, format, venue="tables", **options)
    half = len(players) // 2
    for place, player in enumerate(players):
        seed = place // 2 + 1 + (half if place % 2 else 0)
        event.entries.filter(player=player).update(seed=seed)
    services.event_start(event=event)
    event.refresh_from_db()
    return event


def match_of(event: Event, a, b) -> Match:
    found = Match.objects.filter(player_a__in=[a, b], player_b__in=[a, b])
    return found.filter(pk__in=Pairing.objects.filter(event=event).values("match_id")).get()


def knock(match: Match, knocker, a: int, b: int, **extra) -> dict:
    """A knock's body: ``a`` and ``b`` the deadwood of the match's players A and B."""
    return {
        "kind": "knock",
        "knocker": knocker.pk,
        "deadwood": {str(match.player_a_id): a, str(match.player_b_id): b},
        **extra,
    }


def gin(match: Match, knocker, defender_deadwood: int, **extra) -> dict:
    defender = match.player_b_id if knocker.pk == match.player_a_id else match.player_a_id
    return {"kind": "gin", "knocker": knocker.pk, "deadwood": {str(defender): defender_deadwood}}


def enter(client: APIClient, match: Match, body: dict):
    return client.post(f"/api/matches/{match.pk}/hands", body, format="json")


def hands(match: Match) -> int:
    return TableHand.objects.filter(match=match).count()


# --- pairing at tables ---------------------------------------------------------------------------


def test_a_tables_swiss_round_is_paired_at_numbered_tables_with_no_clock_and_no_show_up(cast):
    people = [cast[n] for n in ("alice", "bob", "carol", "dave")]
    event = table_event(people)

    round_one = Pairing.objects.filter(event=event, round__number=1).select_related("match")
    matches = [p.match for p in round_one.order_by("table")]
    assert [m.table for m in matches] == [1, 2]
    for match in matches:
        assert match.venue == Match.Venue.TABLE and match.status == Match.Status.ACTIVE
        assert match.start_deadline is None and not match.is_timed
        assert not Deal.objects.filter(game__match=match).exists()
    # Long past any grace period, nobody is forfeited for not opening the site.
    assert services.no_shows_sweep(now=timezone.now() + timedelta(hours=3)) == 0
    still = Match.objects.filter(pk__in=[m.pk for m in matches])
    assert all(m.status == Match.Status.ACTIVE for m in still)
    # Wherever the pairing is shown, so is its table.
    bracket = client_of(cast["eve"].user).get(f"/api/events/{event.pk}/bracket").json()
    shown = bracket["rounds"][0]["pairings"]
    assert [(p["match_venue"], p["match_table"]) for p in shown] == [("table", 1), ("table", 2)]
    answer = client_of(cast["eve"].user).get(f"/api/matches/{matches[1].pk}").json()
    assert (answer["venue"], answer["table"]) == ("table", 2)


def test_bots_of_a_tables_event_play_online_and_people_at_tables(
    cast, django_capture_on_commit_callbacks
):
    people = [cast["alice"], cast["bob"], *[BotFactory(bot_strategy="greedy") for _ in range(2)]]
    with django_capture_on_commit_callbacks(execute=True):
        event = table_event(people, seeding="manual")

    table_match = match_of(event, cast["alice"], cast["bob"])
    assert table_match.venue == Match.Venue.TABLE and table_match.table == 1
    bot_pairing = Pairing.objects.filter(event=event, round__number=1).exclude(match=table_match)
    bot_match = bot_pairing.get().match
    assert bot_match.venue == Match.Venue.ONLINE and bot_match.table is None
    assert bot_match.status == Match.Status.FINISHED  # played whole by the worker


def test_a_match_played_online_is_unchanged(cast):
    event = event_with([cast["alice"], cast["bob"]], "single_elim")
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    assert match.venue == Match.Venue.ONLINE and match.table is None
    assert match.start_deadline is not None and match.status == Match.Status.SCHEDULED
    alice = client_of(cast["alice"].user)
    assert alice.get(f"/api/matches/{match.pk}").json()["venue"] == "online"
    assert alice.get(f"/api/matches/{match.pk}/sheet").json()["code"] == "not_at_table"
    refused = enter(alice, match, knock(match, cast["alice"], 5, 30))
    assert refused.status_code == 409 and refused.json()["code"] == "not_at_table"


# --- entering hands ------------------------------------------------------------------------------


@pytest.fixture
def table(cast):
    """Alice v Bob at table 1 of a best-of-one Swiss to 50 (Carol v Dave at table 2)."""
    people = [cast[n] for n in ("alice", "bob", "carol", "dave")]
    event = table_event(people)
    return {"event": event, "match": match_of(event, cast["alice"], cast["bob"]), **clients(cast)}


def test_a_knock_is_scored_by_the_engine_and_the_sheet_shows_it(cast, table):
    match, alice = table["match"], table["alice"]
    sheet = enter(alice, match, knock(match, cast["alice"], 5, 30, number=0))

    assert sheet.status_code == 201, sheet.content
    body = sheet.json()
    (hand,) = body["hands"]
    a = match.index_of(cast["alice"].pk)
    assert hand["termination"] == "knock" and hand["winner"] == a and hand["points"] == 25
    assert hand["columns"][0][a] == 25 and body["next_hand"] == 1
    assert body["next_dealer"] in (0, 1) and not body["decided"]
    match.refresh_from_db()
    game = Game.objects.get(match=match, number=0)
    assert (game.score_a, game.score_b)[a] == 25 and game.ply == 1


def test_an_undercut_is_worked_out_from_the_counts(cast, table):
    match, bob = table["match"], table["bob"]
    body = enter(bob, match, knock(match, cast["alice"], 8, 6)).json()
    hand = body["hands"][0]
    assert hand["termination"] == "undercut"
    assert hand["winner"] == match.index_of(cast["bob"].pk)


def test_the_deciding_hand_waits_for_the_opponent_to_confirm(cast, table):
    match, alice, bob = table["match"], table["alice"], table["bob"]
    decided = enter(alice, match, gin(match, cast["alice"], 40)).json()
    assert decided["decided"] and decided["confirmation"] == "awaiting"
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.reported_by == cast["alice"]
    assert (match.games_won_a, match.games_won_b)[match.index_of(cast["alice"].pk)] == 1
    assert not Pairing.objects.get(match=match).result  # not counted until confirmed

    own = alice.post(f"/api/matches/{match.pk}/confirm", {}, format="json")
    assert own.status_code == 409 and own.json()["code"] == "own_report"
    after = enter(bob, match, knock(match, cast["bob"], 2, 30))
    assert after.status_code == 409 and after.json()["code"] == "match_over"

    confirmed = bob.post(f"/api/matches/{match.pk}/confirm", {}, format="json")
    assert confirmed.status_code == 200, confirmed.content
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.winner == cast["alice"]
    assert match.confirmation == Match.Confirmation.CONFIRMED
    assert match.end_reason == Match.EndReason.GAMES
    # The match reads as an online one: games won, margin, the game's result.
    engine = EngineMatch(match.seed, RuleSet.from_dict(match.rules))
    engine.enter(EnteredHand(HandKind.GIN, match.index_of(cast["alice"].pk), (0, 40)[::1]))
    game = Game.objects.get(match=match)
    assert game.status == Game.Status.FINISHED and game.winner_index == engine.winner
    assert game.results == [r.to_json() for r in engine.results]
    assert match.margin_a == engine.margins[0]
    recorded = Pairing.objects.get(match=match)
    assert recorded.result == Pairing.Result.PLAYED and recorded.winner.player == cast["alice"]
    late = bob.delete(f"/api/matches/{match.pk}/hands/last")
    assert late.status_code == 409 and late.json()["code"] == "match_over"


def test_a_swiss_advances_and_rates_when_its_table_results_are_confirmed(cast):
    people = [cast[n] for n in ("alice", "bob", "carol", "dave")]
    event = table_event(people, rated=True, swiss_rounds=2)
    c = clients(cast)
    for winner, loser in (("alice", "bob"), ("carol", "dave")):
        match = match_of(event, cast[winner], cast[loser])
        assert enter(c[loser], match, gin(match, cast[winner], 40)).status_code == 201
        assert c[winner].post(f"/api/matches/{match.pk}/confirm").status_code == 200
        assert RatingChange.objects.filter(match=match).count() == 2
    round_two = Pairing.objects.filter(event=event, round__number=2).select_related("match")
    assert round_two.count() == 2
    assert sorted(p.match.table for p in round_two) == [1, 2]
    standings = client_of(cast["eve"].user).get(f"/api/events/{event.pk}/standings").json()
    leaders = {row["player"]["name"] for row in standings["rows"][:2]}
    assert leaders == {"Alice", "Carol"}


def test_an_event_that_accepts_entered_results_finishes_on_the_deciding_hand(cast):
    people = [cast[n] for n in ("alice", "bob", "carol", "dave")]
    event = table_event(people, accept_entered_results=True)
    match = match_of(event, cast["alice"], cast["bob"])
    assert enter(client_of(cast["bob"].user), match, gin(match, cast["alice"], 40)).json()
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.winner == cast["alice"]
    assert Pairing.objects.get(match=match).result == Pairing.Result.PLAYED


# --- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body_of", "code"),
    [
        (lambda m, a, b: knock(m, a, 11, 30), "knock_limit"),
        (lambda m, a, b: knock(m, a, 99, 30), "deadwood_range"),
        (lambda m, a, b: knock(m, a, -1, 30), "deadwood_range"),
        (
            lambda m, a, b: {**gin(m, a, 20), "deadwood": {str(a.pk): 4, str(b.pk): 20}},
            "gin_with_deadwood",
        ),
        (lambda m, a, b: {"kind": "gin", "knocker": a.pk}, "deadwood_missing"),
        (
            lambda m, a, b: {"kind": "knock", "deadwood": {str(a.pk): 3, str(b.pk): 9}},
            "knocker_required",
        ),
        (lambda m, a, b: {"kind": "drawn", "knocker": a.pk}, "drawn_hand_no_score"),
        (lambda m, a, b: {**knock(m, a, 5, 30), "upcard": "ZZ"}, "invalid_card"),
    ],
)
def test_an_impossible_hand_is_refused_with_the_rule_and_writes_nothing(cast, table, body_of, code):
    match = table["match"]
    response = enter(table["alice"], match, body_of(match, cast["alice"], cast["bob"]))
    assert response.status_code == 400, response.content
    assert response.json()["code"] == code
    assert hands(match) == 0


def test_a_knocker_or_a_count_of_someone_else_is_not_in_the_match(cast, table):
    match, alice = table["match"], table["alice"]
    stranger = knock(match, cast["carol"], 5, 30)
    assert enter(alice, match, stranger).json()["code"] == "not_in_match"
    counted = {**knock(match, cast["alice"], 5, 30), "deadwood": {str(cast["carol"].pk): 9}}
    assert enter(alice, match, counted).json()["code"] == "not_in_match"
    assert hands(match) == 0


def test_deadwood_of_more_than_two_players_is_refused(cast, table):
    match, alice = table["match"], table["alice"]
    body = knock(match, cast["alice"], 5, 30)
    body["deadwood"] = {**body["deadwood"], str(cast["carol"].pk): 9}
    response = enter(alice, match, body)
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert "two players" in response.content.decode()
    assert hands(match) == 0


def test_oklahoma_needs_the_upcard_and_its_knock_limit(cast):
    people = [cast[n] for n in ("alice", "bob", "carol", "dave")]
    event = table_event(people, rules={"preset": "oklahoma"})
    match = match_of(event, cast["alice"], cast["bob"])
    alice = client_of(cast["alice"].user)
    assert enter(alice, match, knock(match, cast["alice"], 3, 30)).json()["code"] == (
        "upcard_required"
    )
    over = enter(alice, match, knock(match, cast["alice"], 5, 30, upcard="4S"))
    assert over.status_code == 400 and over.json()["code"] == "knock_limit"
    doubled = enter(alice, match, knock(match, cast["alice"], 3, 30, upcard="4S"))
    assert doubled.status_code == 201
    assert doubled.json()["hands"][0]["multiplier"] == 2


def test_straight_gin_refuses_a_knock(cast):
    people = [cast[n] for n in ("alice", "bob", "carol", "dave")]
    event = table_event(people, rules={"preset": "straight"})
    match = match_of(event, cast["alice"], cast["bob"])
    response = enter(client_of(cast["alice"].user), match, knock(match, cast["alice"], 3, 30))
    assert response.status_code == 400 and response.json()["code"] == "straight_gin_no_knock"


def test_the_same_hand_entered_twice_is_written_once(cast, table):
    match = table["match"]
    first = enter(table["alice"], match, knock(match, cast["alice"], 5, 30, number=0))
    second = enter(table["bob"], match, knock(match, cast["alice"], 5, 30, number=0))
    assert first.status_code == 201
    assert second.status_code == 409
    assert second.json()["code"] == "stale_hand" and second.json()["hand"] == 1
    assert hands(match) == 1


def test_only_the_players_and_organisers_enter_hands(cast, table):
    match = table["match"]
    body = knock(match, cast["alice"], 5, 30)
    for who in ("eve", "carol"):  # a spectator; a player of another match
        refused = enter(table[who], match, body)
        assert refused.status_code == 403 and refused.json()["code"] == "not_a_player"
    anonymous = enter(APIClient(), match, body)
    assert anonymous.status_code == 401
    owner = cast["alice"]
    robot = accounts.bot_register(owner=owner, name="Robot")
    _, token = accounts.token_issue(user=robot.user)
    bot = APIClient()
    bot.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    refused = enter(bot, match, body)
    assert refused.status_code == 403 and refused.json()["code"] == "bot_token_forbidden"
    assert bot.get(f"/api/matches/{match.pk}/sheet").status_code == 200  # reading is public
    assert hands(match) == 0


# --- taking back, disputes, organisers ------------------------------------------------------------


def test_the_last_hand_is_taken_back_until_the_result_is_confirmed(cast, table):
    match, alice, bob = table["match"], table["alice"], table["bob"]
    nothing = alice.delete(f"/api/matches/{match.pk}/hands/last")
    assert nothing.status_code == 409 and nothing.json()["code"] == "no_hands"
    enter(alice, match, knock(match, cast["alice"], 5, 30))
    enter(alice, match, gin(match, cast["alice"], 40))
    match.refresh_from_db()
    assert (
        match.confirmation == Match.Confirmation.AWAITING
        and Game.objects.filter(match=match, status=Game.Status.FINISHED).exists()
    )

    stale = bob.delete(f"/api/matches/{match.pk}/hands/last?number=0")
    assert stale.status_code == 409 and stale.json()["code"] == "stale_hand"
    sheet = bob.delete(f"/api/matches/{match.pk}/hands/last?number=1")
    assert sheet.status_code == 200, sheet.content
    assert sheet.json()["next_hand"] == 1 and not sheet.json()["decided"]
    match.refresh_from_db()
    assert match.confirmation == "" and match.reported_by is None and match.ply == 1
    assert Game.objects.get(match=match).status == Game.Status.ACTIVE
    assert not Pairing.objects.get(match=match).result


def test_a_dispute_waits_for_the_organiser_who_corrects_and_confirms(cast, table):
    event, match = table["event"], table["match"]
    alice, bob, olga = table["alice"], table["bob"], table["olga"]
    enter(alice, match, gin(match, cast["alice"], 40))

    why = bob.post(f"/api/matches/{match.pk}/dispute", {}, format="json")
    assert why.status_code == 400 and why.json()["code"] == "reason_required"
    mine = alice.post(f"/api/matches/{match.pk}/dispute", {"reason": "x"}, format="json")
    assert mine.status_code == 409 and mine.json()["code"] == "own_report"
    disputed = bob.post(f"/api/matches/{match.pk}/dispute", {"reason": "it was 30"}, format="json")
    assert disputed.json()["confirmation"] == "disputed"
    assert disputed.json()["dispute_reason"] == "it was 30"

    # The organiser corrects the hand, always saying why, and confirms.
    unexplained = olga.delete(f"/api/matches/{match.pk}/hands/last")
    assert unexplained.status_code == 400 and unexplained.json()["code"] == "reason_required"
    assert olga.delete(f"/api/matches/{match.pk}/hands/last?reason=miscounted").status_code == 200
    corrected = {**gin(match, cast["alice"], 30), "reason": "recounted at the table"}
    assert enter(olga, match, corrected).status_code == 201
    confirmed = olga.post(f"/api/matches/{match.pk}/confirm", {"reason": "both agree"})
    assert confirmed.status_code == 200, confirmed.content
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.winner == cast["alice"]
    assert TableHand.objects.get(match=match).deadwood == (
        (0, 30) if match.player_a == cast["alice"] else (30, 0)
    )
    log = list(EventLog.objects.filter(event=event).order_by("id"))
    lines = [(line.action, line.actor, line.reason) for line in log if "table" in line.action]
    assert lines == [
        ("table_result_disputed", cast["bob"].user, "it was 30"),
        ("table_hand_taken_back", cast["olga"], "miscounted"),
        ("table_hand_entered", cast["olga"], "recounted at the table"),
        ("table_result_confirmed", cast["olga"], "both agree"),
    ]


def correct(client: APIClient, match: Match, number: int, body: dict):
    return client.put(f"/api/matches/{match.pk}/hands/{number}", body, format="json")


def test_an_organiser_corrects_an_earlier_hand_and_the_later_ones_are_scored_again(cast, table):
    event, match = table["event"], table["match"]
    alice, bob, olga = table["alice"], table["bob"], table["olga"]
    a = match.index_of(cast["alice"].pk)
    for body in (knock(match, cast["alice"], 5, 10), knock(match, cast["bob"], 9, 3)):
        assert enter(alice, match, body).status_code == 201
    before = bob.get(f"/api/matches/{match.pk}/sheet").json()
    assert [h["points"] for h in before["hands"]] == [5, 6]
    assert before["hands"][1]["columns"][0][a] == 5

    # Hand 0 was 5 against 20, not 10: the knock is worth 15, and hand 1 follows on from it.
    fixed = {**knock(match, cast["alice"], 5, 20), "reason": "bob recounted his deadwood"}
    answer = correct(olga, match, 0, fixed)
    assert answer.status_code == 200, answer.content
    sheet = answer.json()
    assert [h["points"] for h in sheet["hands"]] == [15, 6] and sheet["next_hand"] == 2
    assert sheet["hands"][1]["columns"][0][a] == 15
    assert sheet["hands"][1]["columns"][0][1 - a] == 6
    game = Game.objects.get(match=match, number=0)
    assert (game.score_a, game.score_b) == ((15, 6) if a == 0 else (6, 15))
    row = TableHand.objects.get(match=match, number=0)
    assert row.deadwood[1 - a] == 20 and row.entered_by is None
    assert row.entered_by_user == cast["olga"]
    (line,) = EventLog.objects.filter(event=event, action="table_hand_corrected")
    assert (line.actor, line.reason) == (cast["olga"], "bob recounted his deadwood")


def test_only_an_organiser_with_a_reason_corrects_a_hand_that_exists(cast, table):
    match, alice, eve, olga = table["match"], table["alice"], table["eve"], table["olga"]
    enter(alice, match, knock(match, cast["alice"], 5, 10))
    body = knock(match, cast["alice"], 5, 20)

    mine = correct(alice, match, 0, body)
    assert mine.status_code == 403 and mine.json()["code"] == "organisers_only"
    theirs = correct(eve, match, 0, body)
    assert theirs.status_code == 403 and theirs.json()["code"] == "not_a_player"
    unexplained = correct(olga, match, 0, body)
    assert unexplained.status_code == 400 and unexplained.json()["code"] == "reason_required"
    missing = correct(olga, match, 1, {**body, "reason": "x"})
    assert missing.status_code == 409 and missing.json()["code"] == "no_such_hand"
    assert missing.json()["hand"] == 1
    over_limit = correct(olga, match, 0, {**knock(match, cast["alice"], 11, 20), "reason": "x"})
    assert over_limit.status_code == 400 and over_limit.json()["code"] == "knock_limit"
    row = TableHand.objects.get(match=match, number=0)
    assert sorted(row.deadwood) == [5, 10]  # nothing refused was written


def test_a_correction_that_a_later_hand_no_longer_fits_is_refused(cast, table):
    match, alice, olga = table["match"], table["alice"], table["olga"]
    enter(alice, match, knock(match, cast["alice"], 5, 10))
    enter(alice, match, knock(match, cast["alice"], 5, 10))
    # A gin worth 25 + 40 as hand 0 ends the one game to 50, and with it the match: hand 1
    # would follow a match already decided.
    refused = correct(olga, match, 0, {**gin(match, cast["alice"], 40), "reason": "it was gin"})
    assert refused.status_code == 409 and refused.json()["code"] == "later_hand_refused"
    assert refused.json()["hand"] == 1
    assert [r.kind for r in TableHand.objects.filter(match=match)] == ["knock", "knock"]
    match.refresh_from_db()
    assert match.confirmation == Match.Confirmation.NONE

    # Taking the later hand back first, the correction decides the match.
    assert (
        olga.delete(f"/api/matches/{match.pk}/hands/last?reason=entered twice").status_code == 200
    )
    decided = correct(olga, match, 0, {**gin(match, cast["alice"], 40), "reason": "it was gin"})
    assert decided.status_code == 200 and decided.json()["decided"]
    assert decided.json()["confirmation"] == "awaiting"


def test_an_organiser_decides_a_table_match_without_making_up_scores(cast, table):
    event, match = table["event"], table["match"]
    enter(table["alice"], match, knock(match, cast["alice"], 5, 30))
    response = table["olga"].post(
        f"/api/events/{event.pk}/pairings/{Pairing.objects.get(match=match).key}/override",
        {"winner": cast["bob"].pk, "reason": "alice left"},
        format="json",
    )
    assert response.status_code == 200, response.content
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.winner == cast["bob"]
    assert match.end_reason == Match.EndReason.ADMIN
    assert (match.games_won_a, match.games_won_b, match.margin_a) == (0, 0, 0)
    assert Game.objects.get(match=match).results == []
    assert Pairing.objects.get(match=match).result == Pairing.Result.OVERRIDE


def test_a_table_match_resigned_ends_as_its_hands_stand(cast, table):
    match = table["match"]
    enter(table["alice"], match, knock(match, cast["alice"], 5, 30))
    resigned = table["alice"].post(f"/api/matches/{match.pk}/resign")
    assert resigned.status_code == 200, resigned.content
    match.refresh_from_db()
    assert match.winner == cast["bob"] and match.end_reason == Match.EndReason.RESIGNED
    assert Game.objects.get(match=match).status == Game.Status.FINISHED


# --- the sheet -----------------------------------------------------------------------------------


def test_a_hollywood_sheet_has_three_columns(cast):
    people = [cast[n] for n in ("alice", "bob", "carol", "dave")]
    event = table_event(people, rules={"preset": "hollywood"}, target=100)
    match = match_of(event, cast["alice"], cast["bob"])
    alice = client_of(cast["alice"].user)
    enter(alice, match, knock(match, cast["alice"], 5, 30))
    sheet = enter(alice, match, knock(match, cast["alice"], 2, 12)).json()
    a = match.index_of(cast["alice"].pk)
    assert len(sheet["games"][0]["columns"]) == 3
    # Alice's first win counts in the first column; her second in the first two.
    assert [column["scores"][a] for column in sheet["games"][0]["columns"]] == [35, 10, 0]
    assert sheet["hands"][0]["columns"][0][a] == 25
    assert sheet["hands"][1]["columns"] == [c["scores"] for c in sheet["games"][0]["columns"]]


# --- mixed events and the event's options ---------------------------------------------------------


def test_an_organiser_moves_a_match_of_a_mixed_event_to_the_next_free_table(cast):
    people = [cast[n] for n in ("alice", "bob", "carol", "dave")]
    event = event_with(people, "swiss", venue="mixed")
    services.event_start(event=event)
    olga = client_of(cast["olga"])
    first, second = Pairing.objects.filter(event=event).order_by("table").select_related("match")
    assert first.match.venue == second.match.venue == Match.Venue.ONLINE
    assert second.match.start_deadline is not None

    moved = olga.post(f"/api/events/{event.pk}/pairings/{second.key}/table")
    assert moved.status_code == 200, moved.content
    assert (moved.json()["match_venue"], moved.json()["match_table"]) == ("table", 1)
    match = Match.objects.get(pk=second.match_id)
    assert match.status == Match.Status.ACTIVE and match.start_deadline is None
    assert services.no_shows_sweep(now=timezone.now() + timedelta(hours=1)) == 1  # the other
    assert Match.objects.get(pk=second.match_id).status == Match.Status.ACTIVE
    again = olga.post(f"/api/events/{event.pk}/pairings/{second.key}/table")
    assert again.status_code == 409 and again.json()["code"] == "already_at_table"
    line = EventLog.objects.get(event=event, action="to_table")
    assert line.actor == cast["olga"] and line.detail["table"] == 1
    player = client_of(cast["alice"].user).post(
        f"/api/events/{event.pk}/pairings/{first.key}/table"
    )
    assert player.status_code == 403


def test_only_a_mixed_event_moves_single_matches(cast):
    event = table_event([cast[n] for n in ("alice", "bob", "carol", "dave")])
    key = Pairing.objects.filter(event=event).first().key
    refused = client_of(cast["olga"]).post(f"/api/events/{event.pk}/pairings/{key}/table")
    assert refused.status_code == 409 and refused.json()["code"] == "not_mixed"


def test_an_events_venue_and_trust_are_set_and_shown_and_checked(cast):
    organiser = client_of(staff("ella", "tournaments.add_event", "tournaments.change_event"))
    created = organiser.post(
        "/api/events",
        {
            "name": "Club night",
            "format": "swiss",
            "venue": "tables",
            "accept_entered_results": True,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["venue"] == "tables" and created.json()["accept_entered_results"]
    duplicate = organiser.post(
        "/api/events",
        {"name": "x", "format": "swiss", "venue": "tables", "duplicate_deals": True},
        format="json",
    )
    assert duplicate.status_code == 400 and duplicate.json()["code"] == "duplicate_deals_at_table"
    arena = organiser.post(
        "/api/events", {"name": "x", "format": "arena", "venue": "mixed"}, format="json"
    )
    assert arena.status_code == 400 and arena.json()["code"] == "arena_online_only"
    edited = organiser.patch(
        f"/api/events/{created.json()['id']}", {"duplicate_deals": True}, format="json"
    )
    assert edited.status_code == 400 and edited.json()["code"] == "duplicate_deals_at_table"
    unknown = organiser.post(
        "/api/events", {"name": "x", "format": "swiss", "venue": "moon"}, format="json"
    )
    assert unknown.status_code == 400 and "venue" in unknown.json()["errors"]


def test_a_bracket_at_tables_numbers_each_rounds_tables_and_advances_on_confirmation(cast):
    people = [cast[n] for n in ("alice", "bob", "carol", "dave")]
    event = event_with(people, "single_elim", venue="tables", seeding="manual")
    for seed, name in enumerate(("alice", "carol", "dave", "bob"), start=1):  # 1v4, 2v3
        event.entries.filter(player=cast[name]).update(seed=seed)
    services.event_start(event=event)
    c = clients(cast)
    semis = [pairing(event, "R1.1").match, pairing(event, "R1.2").match]
    assert [m.table for m in semis] == [1, 2]
    assert pairing(event, "R2.1").match is None  # the final waits for both semifinals
    for winner, loser, match in (("alice", "bob", semis[0]), ("carol", "dave", semis[1])):
        enter(c[winner], match, gin(match, cast[winner], 40))
        assert pairing(event, "R2.1").match is None  # not counted until confirmed
        assert c[loser].post(f"/api/matches/{match.pk}/confirm").status_code == 200
    final = pairing(event, "R2.1").match
    assert final.venue == Match.Venue.TABLE and final.table == 1
    assert {final.player_a, final.player_b} == {cast["alice"], cast["carol"]}


def test_taking_back_the_hand_that_ended_a_game_reopens_it(cast):
    people = [cast[n] for n in ("alice", "bob", "carol", "dave")]
    event = table_event(people, best_of=3)
    match = match_of(event, cast["alice"], cast["bob"])
    alice = client_of(cast["alice"].user)
    sheet = enter(alice, match, gin(match, cast["alice"], 40)).json()
    assert [g["status"] for g in sheet["games"]] == ["finished", "in_play"]
    assert Game.objects.filter(match=match).count() == 2
    match.refresh_from_db()
    assert (match.games_won_a + match.games_won_b, match.confirmation) == (1, "")

    sheet = alice.delete(f"/api/matches/{match.pk}/hands/last").json()
    assert [g["status"] for g in sheet["games"]] == ["in_play"]
    assert list(Game.objects.filter(match=match).values_list("status", flat=True)) == ["active"]
    match.refresh_from_db()
    assert (match.games_won_a, match.games_won_b, match.margin_a) == (0, 0, 0)


def test_a_player_told_of_their_table_match_is_told_its_table(cast):
    from tournaments.live import match_ready_message

    event = table_event([cast[n] for n in ("alice", "bob", "carol", "dave")])
    p = Pairing.objects.select_related("event", "round", "entry_a", "entry_b").get(
        event=event, table=2
    )
    message = match_ready_message(pairing=p, match=p.match, player=p.match.player_a)
    assert (message["venue"], message["table"], message["deadline"]) == ("table", 2, None)


def test_a_finished_table_matchs_replay_enters_its_hands_again_to_the_same_scores(cast, table):
    match, alice, bob = table["match"], table["alice"], table["bob"]
    enter(alice, match, knock(match, cast["alice"], 8, 6))  # an undercut: bob scores
    enter(alice, match, gin(match, cast["alice"], 40))
    bob.post(f"/api/matches/{match.pk}/confirm")

    log = client_of(cast["eve"].user).get(f"/api/matches/{match.pk}/replay").json()
    replayed = EngineMatch.replay(log)
    assert [deal["hand"]["kind"] for deal in log["games"][0]["deals"]] == ["knock", "gin"]
    assert [r.to_json() for r in replayed.results] == Game.objects.get(match=match).results
    assert log["winner"] == replayed.winner == match.index_of(cast["alice"].pk)
