"""Accounts and the admin in a real browser: a forgotten password reset through the e-mailed
link, the event form showing only the chosen format's options, and a Glicko-2 leaderboard
with each rating's deviation."""

from __future__ import annotations

import math
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from playwright.sync_api import expect

from ladders import services as ladders
from tests.e2e.helpers import sign_in
from tests.factories import BotFactory, PlayerFactory
from tests.ladders import seed_ratings
from tournaments.models import Event

NEW_PASSWORD = "a new and long passphrase 42"


def test_a_forgotten_password_is_reset_through_the_e_mailed_link(page, live, screenshots):
    alice = PlayerFactory(user__username="alice", name="Alice")
    alice.user.email = "alice@example.org"
    alice.user.save()
    mail.outbox = []

    page.goto("/login")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Email").fill("alice@example.org")
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()

    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["alice@example.org"]
    link = re.search(r"https?://\S+/password-reset/\S+", mail.outbox[0].body).group(0)
    assert link.startswith(live)
    page.goto(link)
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.screenshot(path=str(screenshots / "password-reset.png"), full_page=True)
    page.get_by_role("button", name="Set the new password").click()
    expect(page.get_by_role("heading", name="Your password is changed")).to_be_visible()

    # The link worked once; the new password signs in.
    page.goto(link)
    expect(page.get_by_role("heading", name="This link does not work")).to_be_visible()
    page.goto("/login")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/lobby$"))


@pytest.fixture
def staff(live):
    return get_user_model().objects.create_superuser("olga", "olga@example.org", "x" * 12)


def row(page, field: str):
    return page.locator(f".form-row.field-{field}")


def test_the_event_form_shows_only_the_chosen_formats_options(
    page, context, live, staff, screenshots
):
    sign_in(context, live, staff)
    page.goto("/admin/tournaments/event/add/")
    format_select = page.locator("#id_format")

    format_select.select_option("single_elim")
    expect(row(page, "third_place")).to_be_visible()
    for hidden in ("bracket_reset", "swiss_rounds", "double_round_robin", "tiebreak_1"):
        expect(row(page, hidden)).to_be_hidden()

    format_select.select_option("swiss")
    for shown in ("swiss_rounds", "late_registration", "tiebreak_1", "tiebreak_unplayed"):
        expect(row(page, shown)).to_be_visible()
    for hidden in ("third_place", "bracket_reset", "double_round_robin"):
        expect(row(page, hidden)).to_be_hidden()
    expect(page.locator('textarea[name="rules"], textarea[name="tiebreaks"]')).to_have_count(0)

    page.locator("#id_name").fill("Thursday Swiss")
    page.locator("#id_rules_preset").select_option("oklahoma")
    page.get_by_text("Rule options").click()  # the collapsed group opens
    page.locator("#id_rule_gin_bonus").fill("30")
    page.locator("#id_tiebreak_1").select_option("margin")
    page.locator("#id_tiebreak_2").select_option("buchholz")
    for place in (3, 4):
        page.locator(f"#id_tiebreak_{place}").select_option("")
    page.locator("#id_swiss_rounds").fill("4")
    page.screenshot(path=str(screenshots / "admin-event-form.png"), full_page=True)
    page.locator('input[name="_continue"]').click()

    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    event = Event.objects.get(name="Thursday Swiss")
    assert event.rules == {"preset": "oklahoma", "gin_bonus": 30}
    assert event.tiebreaks == ["margin", "buchholz"] and event.swiss_rounds == 4
    # The saved event opens with its own format's options, and links to its public page.
    expect(row(page, "swiss_rounds")).to_be_visible()
    expect(row(page, "third_place")).to_be_hidden()
    expect(page.locator("#id_rules_preset")).to_have_value("oklahoma")
    page.get_by_role("link", name="View on site").click()
    expect(page).to_have_url(re.compile(rf"/events/{event.pk}$"))


def test_a_glicko_leaderboard_shows_each_ratings_deviation(page, live, screenshots):
    ladder = ladders.ladder_create(
        name="Glicko ladder", rating_system="glicko2", leaderboard_min_matches=1
    )
    players = [BotFactory(name=f"Glicko bot {n}", bot_strategy="greedy") for n in range(3)]
    ratings = seed_ratings(ladder, players, [1700, 1600, 1500])
    for rating, deviation in zip(ratings, [60, 85, 140], strict=True):
        rating.deviation, rating.volatility = deviation, 0.06
        rating.save(update_fields=["deviation", "volatility"])
    board = Client().get(f"/api/ladders/{ladder.pk}/leaderboard").json()["results"]

    page.goto(f"/leaderboard?ladder={ladder.pk}")
    table = page.locator("#board")
    expect(table.locator("thead th").nth(3)).to_have_text("Deviation")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(3)
    for n, entry in enumerate(board):
        shown = math.floor(entry["deviation"] + 0.5)  # as the page rounds (JavaScript's)
        expect(rows.nth(n).locator("td.deviation")).to_have_text(f"±{shown}")
    page.screenshot(path=str(screenshots / "leaderboard-glicko.png"), full_page=True)

    # An Elo ladder's board has no deviation column.
    elo = ladders.ladder_create(name="Elo ladder", leaderboard_min_matches=1)
    seed_ratings(elo, players[:1], [1500])
    page.goto(f"/leaderboard?ladder={elo.pk}")
    expect(table.locator("tbody tr")).to_have_count(1)
    expect(table.locator("thead")).not_to_contain_text("Deviation")
