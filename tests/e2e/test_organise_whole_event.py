"""An 8-player Swiss at tables, run from the organiser's pages from the first click to the
champion, on a phone; the organiser's clicks and typed fields are counted.

The players' part is played as their phones do it (the score pad's API: the loser enters the
winner's gin, the winner confirms), between the organiser's looks at the round control page.
The count is printed (``pytest -s``) as the steps an organiser takes."""

from __future__ import annotations

import time

from playwright.sync_api import expect
from rest_framework.test import APIClient

from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.helpers import sign_in
from tests.e2e.test_organise import SIZES, fits, organiser
from tests.factories import PlayerFactory
from tournaments.models import Event, Pairing

NAMES = [
    "Ada Archer",
    "Bo Baker",
    "Cy Cole",
    "Di Dunn",
    "Ed Eames",
    "Flo Ford",
    "Gus Gray",
    "Hal Hart",
]


class Organiser:
    """The organiser's hands on the page: every click and every field typed in, counted and
    listed by step."""

    def __init__(self, page) -> None:
        self.page = page
        self.steps: list[tuple[str, int, int]] = []
        self._clicks = self._typed = 0

    def click(self, locator) -> None:
        locator.click()
        self._clicks += 1

    def type(self, locator, text: str) -> None:
        locator.fill(text)
        self._typed += 1

    def choose(self, locator, value: str) -> None:
        locator.select_option(value)
        self._typed += 1

    def step(self, name: str) -> None:
        self.steps.append((name, self._clicks, self._typed))
        self._clicks = self._typed = 0

    @property
    def clicks(self) -> int:
        return sum(c for _, c, _ in self.steps)

    @property
    def typed(self) -> int:
        return sum(t for _, _, t in self.steps)


def phone(player) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=player.user)
    return client


def play_round(event: Event, number: int) -> int:
    """Every match of the round, as at the tables: the player seeded higher wins a gin against
    30 (one hand decides a game to 50); the loser enters it, the winner confirms on their
    phone. Returns how many matches were played."""
    pairings = list(
        Pairing.objects.filter(event=event, round__number=number, match__isnull=False)
        .select_related("match", "entry_a__player", "entry_b__player")
        .order_by("table")
    )
    for pairing in pairings:
        a, b = pairing.entry_a, pairing.entry_b
        winner, loser = (
            (a, b) if NAMES.index(a.player.name) < NAMES.index(b.player.name) else (b, a)
        )
        match = pairing.match
        hand = {"kind": "gin", "knocker": winner.player.pk, "deadwood": {str(loser.player.pk): 30}}
        entered = phone(loser.player).post(f"/api/matches/{match.pk}/hands", hand, format="json")
        assert entered.status_code == 201, entered.content
        confirmed = phone(winner.player).post(f"/api/matches/{match.pk}/confirm", {}, format="json")
        assert confirmed.status_code == 200, confirmed.content
    return len(pairings)


def settled(event: Event, number: int) -> None:
    """Wait until the round's results have moved the event on (the next round paired, or the
    event finished): what the organiser then sees."""
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while True:
        event.refresh_from_db()
        if event.status == Event.Status.FINISHED or event.rounds.filter(number=number + 1):
            return
        assert time.monotonic() < deadline, f"round {number}'s results did not move the event on"
        time.sleep(0.2)


def test_an_organiser_runs_an_eight_player_swiss_at_tables_to_its_champion_from_the_pages(
    browser, live, screenshots
):
    olga = organiser()
    for name in NAMES:
        PlayerFactory(user__username=name.split()[0].lower(), name=name)
    context = browser.new_context(base_url=live, viewport=SIZES["phone"], is_mobile=True)
    context.set_default_timeout(TIMEOUT_MS)
    sign_in(context, live, olga)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    hands = Organiser(page)
    try:
        page.goto("/")
        hands.click(page.locator("header.site .menu-button"))  # the header's menu, on a phone
        hands.click(page.get_by_role("link", name="Organise"))
        hands.click(page.get_by_role("link", name="New event"))
        form = page.locator("#event-form")
        hands.type(form.get_by_label("Name"), "Friday Swiss")
        hands.choose(form.get_by_label("Format"), "swiss")
        hands.choose(form.get_by_label("Where it is played"), "tables")
        hands.type(form.get_by_label("Best of (games)"), "1")
        hands.type(form.get_by_label("Game to (points)"), "50")
        hands.click(page.get_by_role("button", name="Create the event"))
        expect(page.get_by_role("heading", name="Add entrants")).to_be_visible()
        hands.step(
            "Create the event (Menu, Organise, New event; name, format, tables, best of, to)"
        )

        hands.type(page.locator("#import-csv"), "\n".join(NAMES))
        hands.click(page.get_by_role("button", name="Import"))
        expect(page.locator(".messages")).to_contain_text("8 entered from the list.")
        hands.step("Enter the 8 players (paste the list of names, Import)")

        hands.click(page.get_by_role("link", name="Check-in"))
        hands.click(page.get_by_role("button", name="Open check-in now (and registration)"))
        for name in NAMES:
            hands.click(page.locator(".desk-button", has_text=name))
            expect(page.locator(".desk-button", has_text=name)).to_have_attribute(
                "aria-pressed", "true"
            )
        expect(page.locator(".desk-count")).to_contain_text("0 missing")
        hands.step("Check-in desk (open it, tap each of the 8 as they arrive)")

        hands.click(page.get_by_role("link", name="Seeding and start"))
        hands.click(page.get_by_role("button", name="Start Friday Swiss"))
        expect(page.locator(".messages")).to_contain_text("has started")
        hands.step("Start (seeded by rating, the default)")

        event = Event.objects.get(name="Friday Swiss")
        rounds = event.rounds_planned
        assert rounds == 3
        for number in range(1, rounds + 1):
            cards = page.locator(".table-card")
            expect(cards).to_have_count(4)
            if number == 1:
                page.screenshot(path=str(screenshots / "organise-swiss-round-phone.png"))
                fits(page)
            assert play_round(event, number) == 4  # the players, at their tables
            settled(event, number)
            hands.click(page.get_by_role("link", name="Rounds"))  # the organiser looks again
            if number < rounds:
                expect(page.get_by_text(f"Round {number + 1}").first).to_be_visible()
            hands.step(f"Round {number}: look at the round control once its results are in")

        event.refresh_from_db()
        assert event.status == Event.Status.FINISHED
        assert event.champion.name == NAMES[0]
        hands.click(page.get_by_role("link", name="Overview"))
        expect(page.get_by_text(f"{NAMES[0]} is the champion")).to_be_visible()
        page.screenshot(path=str(screenshots / "organise-swiss-finished-phone.png"))
        fits(page)
        hands.step("The champion, on the overview")
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
    print(
        f"\nAn 8-player Swiss at tables from the organiser's pages ({hands.clicks} clicks, "
        f"{hands.typed} fields typed or chosen):"
    )
    for name, clicks, typed in hands.steps:
        print(f"  {name}: {clicks} clicks, {typed} fields")
    # Nothing but the steps above: creating, entering, checking in and starting take the
    # organiser under 20 clicks; the rounds run themselves.
    assert hands.clicks <= 8 + 2 + len(NAMES) + 2 + rounds + 1
