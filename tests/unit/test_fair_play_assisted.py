"""An account marked as assisted (fair play): its rated results taken back exactly once, the
pool's ratings as a from-scratch replay without them, off the leaderboards, bots only."""

import random

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from accounts.models import Player
from games import seeks as lobby
from games import services as games_services
from games.matchmaking import Seeker, WindowPolicy, pair
from games.services.base import PlayError
from ladders import selectors, services
from ladders.models import FairPlayFlag, FairPlayRefund, Rating, RatingChange
from ladders.services.assisted import account_mark_assisted
from tests.factories import UserFactory
from tests.ladders import bots, humans, make_ladder, play_ladder_match
from tests.tournaments import event_with
from tournaments import services as events
from tournaments.services import TournamentError

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_farming_limit(settings):
    settings.RATING_PAIR_LIMIT = 1000  # the same pairs meet often here


def history(seed: int, people: int, cheater: int, length: int) -> list[tuple[int, int]]:
    """(winner, loser) indices: the cheater (index ``cheater``) wins most of its matches."""
    rng = random.Random(seed)
    out = []
    for _ in range(length):
        a, b = rng.sample(range(people), 2)
        if cheater in (a, b):
            other = b if a == cheater else a
            out.append((cheater, other) if rng.random() < 0.85 else (other, cheater))
        else:
            out.append((a, b))
    return out


def standings(ladder, players):
    rows = {r.player_id: r for r in Rating.objects.filter(ladder=ladder)}
    return [
        (
            round(rows[p.pk].rating, 6),
            rows[p.pk].matches_played,
            rows[p.pk].wins,
            rows[p.pk].losses,
            round(rows[p.pk].peak, 6),
        )
        for p in players
    ]


def test_the_refund_leaves_every_rating_as_a_replay_without_the_account_would():
    ladder, fresh = make_ladder(), make_ladder()
    people = humans(7)
    cheater, others = people[0], people[1:]
    played = history(seed=3, people=7, cheater=0, length=60)
    for w, loser in played:
        play_ladder_match(ladder, people[w], people[loser])
    # The same results, in the same order, without the cheater's, in a pool of their own.
    for w, loser in played:
        if 0 not in (w, loser):
            play_ladder_match(fresh, people[w], people[loser])
    for p in others:  # the members of the first pool are members of the second too
        services.membership_ensure(ladder=fresh, player=p)
    before = standings(ladder, others)
    assert before != standings(fresh, others)
    lost = {
        c.opponent_id: c.delta
        for c in RatingChange.objects.filter(ladder=ladder, player=cheater, won=True)
    }
    assert lost, "the cheater beat someone"

    refunds = account_mark_assisted(player=cheater, by=None, note="engine")

    assert standings(ladder, others) == standings(fresh, others)
    assert len(refunds) == 1
    refund = refunds[0]
    cheats = sum(1 for w, loser in played if 0 in (w, loser))
    assert (refund.ladder_id, refund.player_id, refund.matches) == (ladder.pk, cheater.pk, cheats)
    assert refund.opponents == len({p for w, lo in played if 0 in (w, lo) for p in (w, lo)}) - 1
    restored = {r["player"]: r["after"] - r["before"] for r in refund.report["opponents"]}
    assert sum(restored.values()) == pytest.approx(refund.points, abs=1e-2)
    mine = Rating.objects.get(ladder=ladder, player=cheater)
    assert (mine.matches_played, mine.last_active) == (0, None)
    cheater.refresh_from_db()
    assert cheater.assisted_at is not None
    assert RatingChange.objects.filter(ladder=ladder, voided=True).count() == 2 * cheats
    # Head to head counts rated matches only: those taken back are not.
    victim = Player.objects.get(pk=next(iter(lost)))
    assert selectors.head_to_head(pool=ladder, a=victim, b=cheater).matches == 0

    # Exactly once: marking again changes nothing and makes no second refund.
    again = account_mark_assisted(player=cheater, by=None)
    assert [r.pk for r in again] == [refund.pk]
    assert standings(ladder, others) == standings(fresh, others)
    assert FairPlayRefund.objects.filter(player=cheater).count() == 1

    # The history replays to the ratings, and so it does after later matches.
    play_ladder_match(ladder, others[0], others[1])
    play_ladder_match(fresh, others[0], others[1])
    assert standings(ladder, others) == standings(fresh, others)
    report = services.ratings_replay(pool=ladder)
    assert (report.mismatches, report.drifted, report.voided) == (0, 0, 2 * cheats)
    assert report.revised > 0


def test_a_marked_account_is_off_the_leaderboard_and_its_later_matches_do_not_count():
    ladder = make_ladder(leaderboard_min_matches=1)
    cheater, honest = humans(2)
    (bot,) = bots(["greedy"])
    for _ in range(3):
        play_ladder_match(ladder, cheater, honest)
    board = selectors.leaderboard_page(ladder=ladder, page=1, page_size=50)
    assert cheater.pk in {r.player_id for _, r in board.rows}
    account_mark_assisted(player=cheater, by=None)
    board = selectors.leaderboard_page(ladder=ladder, page=1, page_size=50)
    assert cheater.pk not in {r.player_id for _, r in board.rows}
    assert honest.pk not in {r.player_id for _, r in board.rows}  # its losses taken back too
    match = play_ladder_match(ladder, cheater, bot)
    changes = RatingChange.objects.filter(match=match)
    assert [c.k for c in changes] == [0.0, 0.0]
    assert Rating.objects.get(ladder=ladder, player=cheater).matches_played == 0


def test_a_marked_account_is_paired_with_bots_only():
    policy = WindowPolicy()
    marked = Seeker(1, 10, 1500, 60, bots_only=True)
    person = Seeker(2, 20, 1500, 60)
    bot = Seeker(3, 30, 1510, 60, is_bot=True)
    assert pair([marked, person], policy) == []
    assert {frozenset((a.player, b.player)) for a, b in pair([marked, person, bot], policy)} == {
        frozenset((10, 30))
    }
    # The same after the first round (the marked seeker free in a later round).
    other = Seeker(4, 40, 1500, 60)
    pairs = pair([marked, person, other, bot], policy)
    assert {frozenset((a.player, b.player)) for a, b in pairs} == {
        frozenset((20, 40)),
        frozenset((10, 30)),
    }


def test_a_marked_account_cannot_challenge_or_meet_people_in_the_lobby():
    cheater, honest = humans(2)
    (bot,) = bots(["greedy"])
    account_mark_assisted(player=cheater, by=None)
    cheater.refresh_from_db()
    with pytest.raises(PlayError) as refused:
        games_services.challenge_create(challenger=cheater, opponent=honest)
    assert (refused.value.code, refused.value.status) == ("assisted_account", 403)
    with pytest.raises(PlayError) as refused:
        games_services.challenge_create(challenger=honest, opponent=cheater)
    assert refused.value.code == "assisted_account"
    assert "plays against bots only" in str(refused.value)
    match = games_services.challenge_create(challenger=cheater, opponent=bot)
    assert match.pk
    with pytest.raises(PlayError) as refused:
        lobby.seek_create(poster=cheater)
    assert refused.value.code == "assisted_account"
    seek = lobby.seek_create(poster=honest)
    with pytest.raises(PlayError) as refused:
        lobby.seek_join(seek=seek, player=cheater)
    assert refused.value.code == "assisted_account"


def test_only_a_person_can_be_marked():
    (bot,) = bots(["expert"])
    with pytest.raises(services.LadderError) as refused:
        account_mark_assisted(player=bot, by=None)
    assert refused.value.code == "not_a_person"
    assert Player.objects.get(pk=bot.pk).assisted_at is None


def staff(*perms: str):
    user = UserFactory(is_staff=True)
    for perm in perms:
        app, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app, codename=codename)
        )
    return user


def test_staff_mark_a_flagged_account_from_the_fair_play_page():
    client = Client()
    ladder = make_ladder()
    cheater, honest = humans(2)
    for _ in range(2):
        play_ladder_match(ladder, cheater, honest)
    flag = FairPlayFlag.objects.create(
        ladder=ladder,
        player=cheater,
        evidence={
            "phases": {
                "draws": {
                    "decisions": 40,
                    "agreed": 40,
                    "agreement": 100.0,
                    "ceiling": 96.5,
                    "p": 1e-6,
                },
                "discards": {
                    "decisions": 40,
                    "agreed": 40,
                    "agreement": 100.0,
                    "ceiling": 95.6,
                    "p": 1e-6,
                },
            },
            "matches": [],
            "matches_counted": 2,
            "average_loss": 0.1,
        },
    )
    reviewer = staff("ladders.change_fairplayflag")
    client.force_login(reviewer)
    page = client.get("/fair-play")
    assert "Mark as assisted" not in page.content.decode()
    assert client.post(f"/fair-play/{flag.pk}/assisted", {"note": "x"}).status_code == 403
    assert Player.objects.get(pk=cheater.pk).assisted_at is None

    judge = staff("ladders.change_fairplayflag", "ladders.add_fairplayrefund")
    client.force_login(judge)
    assert "Mark as assisted" in client.get("/fair-play").content.decode()
    answer = client.post(f"/fair-play/{flag.pk}/assisted", {"note": "same moves"})
    assert answer.status_code == 302
    answer = client.get(answer.url)
    text = answer.content.decode()
    assert answer.status_code == 200
    assert "Rated matches taken back: 2; 1 opponent given back" in text
    assert "Matches taken back: 2; 1 opponent given back" in text
    flag.refresh_from_db()
    assert (flag.status, flag.note, flag.reviewed_by_id) == ("assisted", "same moves", judge.pk)
    assert Rating.objects.get(ladder=ladder, player=honest).matches_played == 0
    # A second press: the flag is reviewed already, nothing more is done.
    again = client.post(f"/fair-play/{flag.pk}/assisted", {"note": ""}, follow=True)
    assert "already reviewed" in again.content.decode()
    assert FairPlayRefund.objects.filter(player=cheater).count() == 1


def test_a_marked_account_cannot_enter_an_event_of_people():
    cheater, honest = humans(2)
    event = event_with([honest], "swiss")
    account_mark_assisted(player=cheater, by=None)
    cheater.refresh_from_db()
    for enter in (events.entry_register, events.entry_add):
        with pytest.raises(TournamentError) as refused:
            enter(event=event, player=cheater)
        assert (refused.value.code, refused.value.status) == ("assisted_account", 403)
    assert not event.entries.filter(player=cheater).exists()
