"""Fair play in rating pools: rated matches between people analysed in the background, each
account's agreement with the house expert counted once, implausible agreement flagged."""

import math
import random

import pytest

from games import services as games_services
from games.engine.bots.expert import ExpertBot
from games.engine.views import view_for
from games.models import Match, MatchAnalysis
from games.services import analysis as analysis_service
from games.services.base import engine_of
from ladders import services
from ladders.models import FairPlayFlag, FairPlayMatch, FairPlayRecord, Rating
from ladders.services import fairplay
from tests.ladders import bots, humans, make_ladder, play_ladder_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _small(settings):
    settings.ANALYSIS_SAMPLES = 1
    settings.ANALYSIS_STEP_SECONDS = 600
    settings.FAIRPLAY_MIN_DECISIONS = 20
    settings.FAIRPLAY_ANALYSE = True  # off for the other tests (tests/conftest.py)


def play_rated(ladder, a, b, choose_a, seed=1) -> Match:
    """A ladder match of ``a`` and ``b`` played to its end: ``a`` by ``choose_a(view)``, ``b``
    at random."""
    # The deal from a fixed seed too: a test of "enough decisions" must not depend on luck.
    match = services.ladder_match_create(ladder=ladder, player_a=a, player_b=b, seed=seed)
    services.ladder_match_start(match_id=match.pk)
    rng = random.Random(seed)
    for _ in range(5000):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return match
        engine = engine_of(match)
        game = engine.game
        player = game.to_act_player
        view = view_for(game.deal, game.seat_of_player(player))
        action = choose_a(view) if player == 0 else rng.choice(view.legal_actions)
        live = match.games.get(number=engine.game_index)
        games_services.action_submit(
            game_id=live.pk, player=(a, b)[player], ply=live.ply, action=action
        )
    raise AssertionError("the match did not end")


def analyse(match: Match) -> MatchAnalysis:
    analysis = MatchAnalysis.objects.get(match=match)
    while analysis_service.analysis_step(analysis_id=analysis.pk):
        pass
    analysis.refresh_from_db()
    return analysis


def test_a_binomial_tail_is_the_sum_of_its_terms():
    assert fairplay.binomial_tail(10, 8, 0.5) == pytest.approx((45 + 10 + 1) / 1024)
    assert fairplay.binomial_tail(10, 0, 0.3) == 1.0
    assert fairplay.binomial_tail(50, 50, 0.9) == pytest.approx(0.9**50)
    assert fairplay.binomial_tail(100, 30, 0.3) == pytest.approx(
        sum(math.comb(100, i) * 0.3**i * 0.7 ** (100 - i) for i in range(30, 101))
    )


def test_an_account_driven_by_the_expert_is_flagged_and_its_honest_opponent_is_not(settings):
    settings.FAIRPLAY_CEILING_DISCARDS = 0.6  # a game's discards are enough to show it
    ladder = make_ladder(target=100)
    assisted, honest = humans(2)
    expert = ExpertBot(0)
    match = play_rated(ladder, assisted, honest, expert.choose)
    assert match.status == Match.Status.FINISHED
    analysis = analyse(match)  # queued by the rating, in the background
    assert analysis.status == MatchAnalysis.Status.DONE and analysis.requested_by is None
    records = {r.player_id: r for r in FairPlayRecord.objects.filter(ladder=ladder)}
    mine, theirs = records[assisted.pk], records[honest.pk]
    rows = [r for g in analysis.result["games"] for d in g["deals"] for r in d["decisions"]]
    for index, record in enumerate((mine, theirs)):
        own = [r for r in rows if r["player"] == index]
        discards = [r for r in own if r["phase"] == "discard"]
        assert record.discards == len(discards) and record.draws == len(own) - len(discards)
        assert record.discards_agreed == sum(r["agrees_expert"] for r in discards)
        assert record.matches == 1
    assert mine.discards_agreed == mine.discards >= 20 and mine.draws_agreed == mine.draws
    assert theirs.discards_agreed < 0.6 * theirs.discards
    flag = FairPlayFlag.objects.get()
    assert flag.player_id == assisted.pk and flag.status == FairPlayFlag.Status.OPEN
    assert flag.evidence["matches"] == [match.pk]
    assert flag.evidence["phases"]["discards"]["agreement"] == 100.0
    assert flag.evidence["phases"]["discards"]["p"] < settings.FAIRPLAY_ALPHA / 2
    # Counted once: the signal again changes nothing.
    assert fairplay.fairplay_count(match=match, analysis=analysis) == []
    again = FairPlayRecord.objects.get(pk=mine.pk)
    assert (again.discards, again.matches) == (mine.discards, 1)


def test_matches_with_a_bot_or_a_guest_are_not_analysed_for_fair_play():
    ladder = make_ladder(target=50)
    person = humans(1)[0]
    bot = bots(["greedy"])[0]
    match = play_ladder_match(ladder, person, bot)
    assert match.status == Match.Status.FINISHED
    assert not MatchAnalysis.objects.filter(match=match).exists()


def record(ladder, player, draws, draws_agreed, discards, discards_agreed):
    return FairPlayRecord.objects.create(
        ladder=ladder,
        player=player,
        draws=draws,
        draws_agreed=draws_agreed,
        discards=discards,
        discards_agreed=discards_agreed,
    )


def test_the_test_flags_implausible_agreement_by_phase_and_keeps_one_open_flag(settings):
    ladder = make_ladder()
    a, b, c = humans(3)
    # Below the default ceilings (96.5% draws, 95.6% discards): plausible.
    assert fairplay.fairplay_check(record=record(ladder, a, 400, 380, 400, 376)) is None
    # Every discard the expert's over 400: P(Bin(400, 0.956) >= 400) is about 2e-8.
    flagged = record(ladder, b, 400, 300, 400, 400)
    flag = fairplay.fairplay_check(record=flagged)
    assert flag is not None and flag.evidence["phases"]["draws"]["agreement"] == 75.0
    assert fairplay.fairplay_check(record=flagged) is None  # one open flag at a time
    fairplay.flag_dismiss(flag=flag, by=None, note="a strong player")
    assert fairplay.fairplay_check(record=flagged) is not None
    # Too few decisions of the phase: never flagged, whatever the agreement.
    assert fairplay.fairplay_check(record=record(ladder, c, 10, 10, 19, 19)) is None


def test_a_band_of_strong_honest_players_raises_the_ceiling(settings):
    ladder = make_ladder()
    settings.FAIRPLAY_BAND_ACCOUNTS = 5
    people = humans(7)
    for p in people:
        Rating.objects.update_or_create(
            ladder=ladder, player=p, defaults={"rating": 1500, "peak": 1500}
        )
    for p in people[:6]:  # the band agrees with the expert on 99% of its discards
        record(ladder, p, 400, 300, 400, 396)
    suspect = record(ladder, people[6], 400, 300, 400, 398)
    ceilings = fairplay.band_ceilings(record=suspect)
    assert ceilings["discards"] > 0.99 and ceilings["draws"] == settings.FAIRPLAY_CEILING_DRAWS
    assert fairplay.fairplay_check(record=suspect) is None
    # Alone in its band (the others rated far away), the default ceiling applies: flagged.
    Rating.objects.filter(player__in=people[:6]).update(rating=1900)
    assert fairplay.band_ceilings(record=suspect)["discards"] == settings.FAIRPLAY_CEILING_DISCARDS
    assert fairplay.fairplay_check(record=suspect) is not None


def test_fair_play_counts_only_matches_a_pool_rated():
    person_a, person_b = humans(2)
    match = games_services.match_create(
        player_a=person_a, player_b=person_b, seed=2, target=25, best_of=1
    )
    games_services.match_forfeit(
        match=match, loser=person_b, reason="forfeited", end_reason=Match.EndReason.FORFEIT
    )
    match.refresh_from_db()
    analysis = MatchAnalysis.objects.create(match=match, seed=1, samples=1, result={"games": []})
    assert fairplay.fairplay_count(match=match, analysis=analysis) == []
    assert not FairPlayMatch.objects.exists() and not FairPlayRecord.objects.exists()


def test_staff_review_the_flags_on_their_page_and_others_may_not(admin_client, client):
    ladder = make_ladder(name="Spring ladder")
    suspect, other = humans(2)
    flag = fairplay.fairplay_check(record=record(ladder, suspect, 400, 300, 400, 400))
    page = admin_client.get("/fair-play")
    html = page.content.decode()
    assert page.status_code == 200 and f'id="flag-{flag.pk}"' in html
    assert suspect.name in html and "Spring ladder" in html and "100.0%" in html
    assert 'href="/fair-play"' in html  # in the menu for staff who review
    answer = admin_client.post(f"/fair-play/{flag.pk}/dismiss", {"note": "a strong player"})
    assert answer.status_code == 302
    flag.refresh_from_db()
    assert flag.status == FairPlayFlag.Status.DISMISSED and flag.note == "a strong player"
    assert flag.reviewed_by.is_superuser and flag.reviewed_at is not None
    assert 'id="no-flags"' in admin_client.get("/fair-play").content.decode()
    # A person who is not staff: refused, and the flag is not reopened.
    client.force_login(other.user)
    assert client.get("/fair-play").status_code == 403
    assert client.post(f"/fair-play/{flag.pk}/dismiss").status_code == 403
    assert 'href="/fair-play"' not in client.get("/lobby").content.decode()
