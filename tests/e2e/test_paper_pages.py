"""An event on paper and on a projector, in Chromium: the printed pairings and score sheets
rendered to PDF on A4 and on US Letter and their text read back (names, tables, round), the
same pages on a phone (390 px) and a desktop, and the screen view cycling through its panels
and updating when a result comes in, at 1920 x 1080 and on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Match
from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.pdf_text import pdf_pages, squeeze
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import Event, Pairing

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1920, "height": 1080}
PAPERS = ("A4", "Letter")
NAMES = [
    "MAXIMILIAN WOLFGANG DEADWOOD-MEISTER",
    "Ada",
    "Wilhelmina Undercut Specialist",
    "Bo",
    "Konstantin Deadwood Counter",
    "Greta Gardner",
    "Esmeralda Lay-off Artiste",
    "Max",
]


def club_night(format: str = "swiss") -> Event:
    """Eight people at tables, the first round paired: each match at its board, numbered in
    pairing order (as pairing a tables event does)."""
    event = services.event_create(
        name="Thursday club night",
        format=format,
        best_of=3,
        target=100,
        base_seconds=None,
        seeding="random",
        seeding_seed=5,
        venue="tables",
    )
    services.event_open_registration(event=event)
    for n, name in enumerate(NAMES):
        services.entry_add(event=event, player=PlayerFactory(user__username=f"p{n}", name=name))
    services.event_start(event=event)
    pairings = Pairing.objects.filter(event=event, match__isnull=False).order_by("table")
    for board, p in enumerate(pairings, start=1):
        if Match.objects.get(pk=p.match_id).table is None:
            Match.objects.filter(pk=p.match_id).update(venue="table", table=board)
    event.refresh_from_db()
    return event


def tables(event: Event) -> list[tuple[int, str, str]]:
    """(board, player A, player B) of the first round, by board."""
    pairings = Pairing.objects.filter(event=event, round__number=1).select_related(
        "match", "entry_a__player", "entry_b__player"
    )
    return sorted((p.match.table, p.entry_a.player.name, p.entry_b.player.name) for p in pairings)


@pytest.fixture
def open_page(browser, live, screenshots, request):
    """``open_page(viewport)``: a new page in its own context; no script may fail."""
    opened = []

    def make(viewport):
        context = browser.new_context(base_url=live, viewport=viewport)
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        opened.append((context, page, errors))
        return page

    yield make
    failed = getattr(request.node, "report_call", None)
    for n, (context, page, errors) in enumerate(opened):
        if failed is not None and failed.failed:
            page.screenshot(path=str(screenshots / f"failed-{request.node.name}-{n}.png"))
        context.close()
        assert not errors, f"JavaScript errors on the page: {errors}"


def no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{width} px wide in a {page.viewport_size}"


def test_printed_pairings_and_score_sheets_read_the_same_on_a4_and_letter(open_page, screenshots):
    event = club_night()
    boards = tables(event)
    assert [board for board, *_ in boards] == [1, 2, 3, 4]
    page = open_page(DESKTOP)

    page.goto(f"/events/{event.pk}/print/pairings")
    expect(page.get_by_role("button", name="Print")).to_be_visible()
    page.emulate_media(media="print")
    printed = page.locator("body").inner_text()
    assert "Print" not in printed and "Score sheets" not in printed  # the tools stay on screen
    for paper in PAPERS:
        pages = pdf_pages(page.pdf(format=paper))
        (screenshots / f"pairings-{paper}.txt").write_text(pages[0])  # what the PDF says
        assert len(pages) == 1, paper
        text = squeeze(pages[0])
        assert squeeze("Thursday club night Pairings by table · Round 1") in text, paper
        for board, a, b in boards:  # each row: the board, one player, "v", the other
            assert squeeze(f"{board} {a} v {b}") in text, (paper, board)

    page.emulate_media(media="screen")
    page.goto(f"/events/{event.pk}/print/sheets")
    expect(page.locator("article.sheet")).to_have_count(4)
    page.emulate_media(media="print")
    page.locator("article.sheet").first.screenshot(path=str(screenshots / "score-sheet.png"))
    for paper in PAPERS:
        pages = pdf_pages(page.pdf(format=paper))
        (screenshots / f"score-sheets-{paper}.txt").write_text("\f".join(pages))
        assert len(pages) == 4, paper  # one sheet a page
        for text, (board, a, b) in zip(pages, boards, strict=True):
            text = squeeze(text)
            assert text.startswith(squeeze(f"Table {board} Thursday club night · Round 1")), paper
            assert squeeze(f"A {a} v B {b}") in text, (paper, board)
            assert squeeze("Standard · knock at 10 or less") in text, paper
            assert squeeze("best of 3 to 100") in text, paper

    # On screen, at a phone's width and a desktop's: nothing wider than the screen.
    for viewport in (PHONE, DESKTOP):
        screen = open_page(viewport)
        for path in ("pairings", "sheets", "standings", "bracket"):
            screen.goto(f"/events/{event.pk}/print/{path}")
            no_sideways_scroll(screen)
    screen.goto(f"/events/{event.pk}/print/sheets")
    screen.screenshot(path=str(screenshots / "score-sheets-desktop.png"))


def test_the_screen_view_cycles_and_shows_a_result_as_it_comes_in(open_page, screenshots):
    event = club_night("single_elim")
    first = Pairing.objects.select_related("entry_b__player").get(event=event, key="R1.1")
    winner = first.entry_b.player
    page = open_page(PROJECTOR)
    phone = open_page(PHONE)

    page.goto(f"/events/{event.pk}/screen?every=5")
    phone.goto(f"/events/{event.pk}/screen")
    screen = page.locator("#screen")
    expect(screen).to_have_attribute("data-live", "socket")
    expect(phone.locator("#screen")).to_have_attribute("data-live", "socket")
    expect(screen).to_have_attribute("data-panel", "pairings")
    rows = page.locator('[data-panel="pairings"] tbody tr')
    expect(rows).to_have_count(4)
    for n, (board, a, b) in enumerate(tables(event)):
        expect(rows.nth(n)).to_contain_text(re.compile(rf"^\s*{board}\s+{re.escape(a)}\s+v\s+"))
        expect(rows.nth(n)).to_contain_text(b)
    assert page.evaluate("document.documentElement.scrollWidth") <= PROJECTOR["width"]
    page.screenshot(path=str(screenshots / "screen-view-pairings.png"))
    # Every five seconds the next panel: the standings, then the bracket.
    expect(screen).to_have_attribute("data-panel", "standings", timeout=8000)
    expect(screen).to_have_attribute("data-panel", "bracket", timeout=8000)
    page.screenshot(path=str(screenshots / "screen-view-bracket.png"))

    admin = PlayerFactory(user__username="organiser", user__is_staff=True)
    services.pairing_override(
        pairing=first, winner=winner, reason="result entered on paper", by=admin.user
    )

    expect(screen).to_have_attribute("data-updates", "1")
    expect(page.locator("#screen-updated")).to_have_text(re.compile(r"^Updated "))
    expect(page.locator("#screen-updated")).to_have_class(re.compile(r"\bfresh\b"))
    match = page.locator('[data-panel="bracket"] .bracket-match[data-key="R1.1"]')
    expect(match.locator(".slot.winner")).to_contain_text(winner.name)
    expect(page.locator('[data-panel="bracket"] .bracket-match[data-key="R2.1"]')).to_contain_text(
        winner.name
    )
    page.screenshot(path=str(screenshots / "screen-view-updated.png"))
    page.get_by_role("button", name="Pairings").click()
    expect(page.locator('[data-panel="pairings"] tr[data-key="R1.1"] .winner')).to_contain_text(
        winner.name
    )
    page.screenshot(path=str(screenshots / "screen-view.png"))

    expect(phone.locator("#screen")).to_have_attribute("data-updates", "1")
    no_sideways_scroll(phone)
    phone.screenshot(path=str(screenshots / "screen-view-phone.png"))
    for panel in ("Standings", "Bracket"):
        phone.get_by_role("button", name=panel).click()
        no_sideways_scroll(phone)
