"""A finished match's analysis in a browser, on a desktop and a 390 px phone: a player asks
for it on the replay, the page follows the work and shows each player's figures, the marked
moves with the better choice, and the deal's expected-score chart; and the fair-play flags
staff review, closing one or marking the account as assisted."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Match, MatchAnalysis
from ladders.models import FairPlayFlag, FairPlayRecord, Rating
from ladders.services import fairplay
from tests.e2e.helpers import browsing, fits_the_width, header_link
from tests.factories import PlayerFactory
from tests.ladders import make_ladder, play_ladder_match
from tests.play import play_out

SIGNS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


@pytest.fixture(autouse=True)
def _quick(settings):
    settings.ANALYSIS_SAMPLES = 4
    settings.ANALYSIS_STEP_SECONDS = 2  # several steps: the page shows the work under way


@pytest.fixture
def alice(transactional_db):
    return PlayerFactory(user__username="alice", name="Alice")


@pytest.fixture
def bob(transactional_db):
    return PlayerFactory(user__username="bob", name="Bob")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_player_asks_for_the_analysis_and_reads_it_in_the_replay(
    browser, live, alice, bob, size, screenshots
):
    match = services.match_create(player_a=alice, player_b=bob, best_of=1, target=50)
    match = play_out(match, {0: alice, 1: bob}, random.Random(8))
    assert match.status == Match.Status.FINISHED
    with browsing(browser, live, alice.user, size) as page:
        page.goto(f"/matches/{match.pk}/replay")
        expect(page.locator("#analysis")).to_contain_text("This match has not been analysed.")
        page.get_by_role("button", name="Analyse").click()
        page.wait_for_url(re.compile(rf"/matches/{match.pk}/replay\?game=0&deal=0$"))
        expect(page.locator(".message")).to_contain_text("The analysis is under way")
        # The page follows the work and shows the figures once it is done, without a click.
        summary = page.locator("table.analysis-summary")
        expect(summary).to_be_visible(timeout=120_000)
        analysis = MatchAnalysis.objects.get(match=match)
        assert analysis.status == MatchAnalysis.Status.DONE
        figures = analysis.result["players"]
        expect(summary.locator("thead th")).to_have_text(["Alice", "Bob"])
        accuracy = summary.locator("tbody tr").first
        expect(accuracy.locator("th")).to_have_text("Accuracy")
        expect(accuracy.locator("td")).to_have_text([f"{p['accuracy']}%" for p in figures])
        expect(page.get_by_role("button", name="Analyse")).to_have_count(0)
        fits_the_width(page)

        # A deal with a marked decision: the move list marks it, the move says what was better.
        marked = next(
            (deal, row)
            for game in analysis.result["games"]
            for deal in game["deals"]
            for row in deal["decisions"]
            if row["mark"]
        )
        deal, row = marked
        page.goto(f"/matches/{match.pk}/replay?game={deal['game']}&deal={deal['deal']}")
        move = page.locator(f'#move-list button[data-at="{row["ply"] + 1}"]')
        expect(move.locator(f".mark.{row['mark']}")).to_contain_text(SIGNS[row["mark"]])
        move.click()
        judgement = page.locator(f"#replay-action .judgement.{row['mark']}")
        expect(judgement).to_contain_text(row["mark"].capitalize())
        expect(judgement).to_contain_text("Better:")
        marks = sum(1 for r in deal["decisions"] if r["mark"])
        expect(page.locator("#move-list .mark")).to_have_count(marks)
        # The chart: one line through the deal, a dot per marked decision, a text for readers.
        chart = page.locator("#analysis-chart svg[role=img]")
        expect(chart).to_be_visible()
        expect(chart.locator("polyline.value")).to_have_count(1)
        expect(chart.locator("circle.dot")).to_have_count(marks)
        assert "Expected score for Alice" in chart.get_attribute("aria-label")
        fits_the_width(page)
        page.screenshot(path=str(screenshots / f"replay-analysis-{size}.png"), full_page=True)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_staff_review_a_fair_play_flag(browser, live, alice, django_user_model, size, screenshots):
    staff = django_user_model.objects.create_superuser("referee", "referee@example.com", "pw")
    ladder = make_ladder(name="Winter ladder")
    record = FairPlayRecord.objects.create(
        ladder=ladder, player=alice, draws=300, draws_agreed=240, discards=300, discards_agreed=300
    )
    flag = fairplay.fairplay_check(record=record)
    assert flag is not None
    with browsing(browser, live, staff, size) as page:
        page.goto("/")
        header_link(page, "Fair play").click()
        page.wait_for_url(re.compile(r"/fair-play$"))
        card = page.locator(f"#flag-{flag.pk}")
        expect(card.get_by_role("heading")).to_contain_text("Alice · Winter ladder")
        expect(card.locator("thead th")).to_have_text(["Draws", "Discards"])
        agreed = card.locator("tbody tr").nth(1)
        expect(agreed.locator("th")).to_have_text("Agreed with the expert")
        expect(agreed.locator("td")).to_have_text(["80.0%", "100.0%"])
        fits_the_width(page)
        page.screenshot(path=str(screenshots / f"fair-play-{size}.png"), full_page=True)
        card.get_by_label("Review note").fill("Checked the games: a strong player.")
        card.get_by_role("button", name="Close the flag: no action").click()
        expect(page.locator(".message")).to_contain_text("The flag of Alice is closed.")
        expect(page.locator("#no-flags")).to_be_visible()
    flag.refresh_from_db()
    assert flag.status == FairPlayFlag.Status.DISMISSED
    assert flag.note == "Checked the games: a strong player."


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_staff_mark_a_flagged_account_as_assisted(
    browser, live, alice, bob, django_user_model, size, screenshots
):
    staff = django_user_model.objects.create_superuser("referee", "referee@example.com", "pw")
    ladder = make_ladder(name="Winter ladder")
    for _ in range(2):
        play_ladder_match(ladder, alice, bob)
    lost = Rating.objects.get(ladder=ladder, player=bob).rating
    assert lost < ladder.newcomer()["rating"]
    record = FairPlayRecord.objects.create(
        ladder=ladder, player=alice, draws=300, draws_agreed=300, discards=300, discards_agreed=300
    )
    flag = fairplay.fairplay_check(record=record)
    with browsing(browser, live, staff, size) as page:
        page.goto("/fair-play")
        card = page.locator(f"#flag-{flag.pk}")
        expect(card).to_contain_text("takes back its rated results in every pool")
        card.get_by_label("Review note").fill("The same moves as the expert, every time.")
        card.get_by_role("button", name="Mark as assisted").click()
        expect(page.locator(".message")).to_contain_text(
            "Alice is marked as assisted. Rated matches taken back: 2; 1 opponent given back"
        )
        expect(page.locator("#no-flags")).to_be_visible()
        refunds = page.locator("#refunds li")
        expect(refunds).to_have_count(1)
        expect(refunds).to_contain_text("Alice · Winter ladder")
        expect(refunds).to_contain_text("Matches taken back: 2; 1 opponent given back")
        fits_the_width(page)
        page.screenshot(path=str(screenshots / f"fair-play-assisted-{size}.png"), full_page=True)
    flag.refresh_from_db()
    assert flag.status == FairPlayFlag.Status.ASSISTED
    assert Rating.objects.get(ladder=ladder, player=bob).rating == ladder.newcomer()["rating"]
