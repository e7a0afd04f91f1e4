"""Event pages as a player reads them, on a desktop (1280 px) and a phone (390x844): brackets
with whole names, lines from each match to the match its winner goes to, later rounds centred
between their feeders, a cue when the bracket scrolls sideways, one round at a time on a
phone; Swiss and round-robin rounds that fit a phone; "Your match" for a registered player,
the show-up countdown, and the entry list before the start."""

from __future__ import annotations

import re

import pytest
from django.db.models import Q
from django.test import Client
from playwright.sync_api import expect

from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.helpers import open_event, settle, sign_in
from tests.factories import BotFactory, PlayerFactory
from tests.tournaments import by_seed, decide, humans
from tournaments import live as event_live
from tournaments import services
from tournaments.models import Event, Pairing

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
#: Long names, as people and bots have them (up to 40 characters): never cut.
NAMES = [
    "MAXIMILIAN WOLFGANG DEADWOOD-MEISTER",
    "Ada",
    "Wilhelmina Undercut Specialist",
    "Bo",
    "Konstantin Deadwood Counter",
    "Greta (greedy)",
    "Esmeralda Lay-off Artiste",
    "Max",
]


def run_event(name: str, format: str, players, **options) -> Event:
    event = open_event(name, players, format, **options)
    services.event_start(event=event)
    settle()
    event.refresh_from_db()
    return event


def bots(count: int) -> list:
    return [
        BotFactory(name=f"{NAMES[n % len(NAMES)]} {n + 1}", bot_strategy="greedy")
        for n in range(count)
    ]


@pytest.fixture
def open_page(browser, live, screenshots, request):
    """``open_page(viewport)``: a new page in its own context at that size; no script may fail."""
    opened = []

    def make(viewport, user=None):
        context = browser.new_context(base_url=live, viewport=viewport)
        context.set_default_timeout(TIMEOUT_MS)
        if user is not None:
            sign_in(context, live, user)
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


# What the page shows, measured in the browser: boxes, names, lines.
MEASURE = """(part) => {
  const rect = (node) => {
    const r = node.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, cy: r.top + r.height / 2};
  };
  const boxes = {};
  for (const box of part.querySelectorAll('.pairing')) {
    boxes[box.dataset.key] = {...rect(box), to: box.dataset.to};
  }
  const svg = part.querySelector('svg.connectors');
  const origin = svg ? svg.getBoundingClientRect() : null;
  const lines = [...part.querySelectorAll('svg.connectors path.connector')].map((path) => {
    const start = path.getPointAtLength(0);
    const end = path.getPointAtLength(path.getTotalLength());
    return {from: path.dataset.from, to: path.dataset.to,
      x1: origin.left + start.x, y1: origin.top + start.y,
      x2: origin.left + end.x, y2: origin.top + end.y};
  });
  return {boxes, lines};
}"""

# Names shown cut: wider than their box, drawn with an ellipsis, or a link past the edge.
NAMES_CUT = """(root) => [...root.querySelectorAll('.slot .name, td.player')]
  .filter((n) => n.offsetParent !== null)
  .filter((n) => n.scrollWidth > n.clientWidth + 1
    || getComputedStyle(n).textOverflow === 'ellipsis'
    || [...n.querySelectorAll('a')].some(
      (a) => a.getBoundingClientRect().right > n.getBoundingClientRect().right + 1))
  .map((n) => n.textContent)"""


def check_bracket_part(part, expected_lines: int) -> dict:
    """Every line joins a match to the match its winner goes to, and every later match sits
    centred between the matches it takes its players from."""
    seen = part.evaluate(MEASURE)
    boxes, lines = seen["boxes"], seen["lines"]
    fed = {key: [k for k, b in boxes.items() if b["to"] == key] for key in boxes}
    wanted = {(k, b["to"]) for k, b in boxes.items() if b["to"] in boxes}
    assert {(line["from"], line["to"]) for line in lines} == wanted
    assert len(lines) == expected_lines
    for line in lines:
        source, target = boxes[line["from"]], boxes[line["to"]]
        assert abs(line["x1"] - source["right"]) <= 1.5, line
        assert abs(line["y1"] - source["cy"]) <= 1.5, line
        assert abs(line["x2"] - target["left"]) <= 1.5, line
        assert abs(line["y2"] - target["cy"]) <= 1.5, line
        assert target["left"] > source["right"]  # left to right, in order of play
    for key, feeders in fed.items():
        if feeders:
            middle = sum(boxes[f]["cy"] for f in feeders) / len(feeders)
            assert abs(boxes[key]["cy"] - middle) <= 3, (key, feeders)
    return seen


# How far a part's rounds reach beyond its box; a pixel or two is rounding, not a round.
HIDDEN_WIDTH = "(s) => s.scrollWidth - s.clientWidth"


def expect_cue_where_wider(part) -> None:
    """The cue shows where a part's rounds are wider than the page, and only there. (Which
    names reach the later rounds, and so how wide those are, depends on how the bots played.)"""
    if part.locator(".bracket-scroll").evaluate(HIDDEN_WIDTH) > 2:
        expect(part.locator(".scroll-cue")).to_be_visible()
        expect(part).to_have_attribute("data-scroll", "more")
    else:
        expect(part.locator(".scroll-cue")).to_be_hidden()
        expect(part).to_have_attribute("data-scroll", "none")


def click_and_wait_for_scroll_end(scroll, button) -> None:
    """Click ``button`` and wait until the smooth scroll it starts in ``scroll`` has ended
    (a scroll takes longer on a busy machine: a fixed wait would read it half-way)."""
    scroll.evaluate(
        "(s) => { s.dataset.scrolled = 'no';"
        " s.addEventListener('scrollend', () => { s.dataset.scrolled = 'yes'; }, {once: true}); }"
    )
    button.click()
    expect(scroll).to_have_attribute("data-scrolled", "yes")


def after_frames(page, frames: int = 3) -> None:
    """Until the page has drawn ``frames`` more frames (work it put off to the next one done)."""
    page.evaluate(
        "(n) => new Promise((done) => {"
        " const next = (k) => (k ? requestAnimationFrame(() => next(k - 1)) : done()); next(n); })",
        frames,
    )


def test_a_double_elimination_on_a_desktop_reads_like_a_bracket(open_page, screenshots):
    event = run_event("Winter double", "double_elim", bots(16))
    assert event.status == Event.Status.FINISHED
    page = open_page(DESKTOP)
    page.goto(f"/events/{event.pk}")

    parts = page.locator("#bracket .bracket-part")
    expect(parts.locator(".part-title")).to_have_text(
        ["Winners bracket", "Losers bracket", "Finals"]
    )
    expect(page.locator("#bracket")).to_have_attribute("data-layout", "wide")
    assert page.evaluate(NAMES_CUT, page.locator("#bracket").element_handle()) == []
    winners, losers, finals = parts.nth(0), parts.nth(1), parts.nth(2)
    # 8 + 4 + 2 lines into winners rounds 2-4; 4 + 4 + 2 + 2 + 1 in the losers bracket (the
    # other slot of a losers match is a drop from the winners bracket); the grand final to
    # its reset.
    check_bracket_part(winners, 14)
    check_bracket_part(losers, 13)
    check_bracket_part(finals, 1)

    # Six losers rounds do not fit 1280 px: the cue says so, and takes the reader there.
    # Wherever a part is wider than the page, and only there, the cue shows.
    for part in parts.all():
        expect_cue_where_wider(part)
    cue = losers.locator(".scroll-cue")
    expect(cue).to_be_visible()
    expect(cue).to_contain_text("More rounds")
    expect(losers).to_have_attribute("data-scroll", "more")
    expect(finals.locator(".scroll-cue")).to_be_hidden()
    expect(finals).to_have_attribute("data-scroll", "none")
    page.screenshot(path=str(screenshots / "double-elim-desktop.png"), full_page=True)
    scroll = losers.locator(".bracket-scroll")
    for _ in range(4):  # each click brings most of a screen more into view
        if losers.get_attribute("data-scroll") == "end":
            break
        before = scroll.evaluate("(s) => s.scrollLeft")
        click_and_wait_for_scroll_end(scroll, cue)
        assert scroll.evaluate("(s) => s.scrollLeft") > before
    expect(losers).to_have_attribute("data-scroll", "end")
    expect(cue).to_contain_text("First rounds")
    last = losers.locator(".round").last
    box = last.bounding_box()
    assert box["x"] + box["width"] <= DESKTOP["width"]
    page.screenshot(path=str(screenshots / "double-elim-desktop-scrolled.png"), full_page=True)

    # The window narrowed to a phone's and widened again (a tablet turned and turned back):
    # the reader is still at the end of the losers bracket.
    page.set_viewport_size(PHONE)
    expect(page.locator("#bracket")).to_have_attribute("data-layout", "phone")
    page.set_viewport_size(DESKTOP)
    expect(page.locator("#bracket")).to_have_attribute("data-layout", "wide")
    expect(losers).to_have_attribute("data-scroll", "end")

    # A change pushed redraws the bracket (here a player took a new name): the reader stays
    # where they had scrolled to.
    page.evaluate("document.querySelector('#bracket .bracket-part').dataset.old = 'yes'")
    renamed = Pairing.objects.get(event=event, key="L1.1").entry_a.player
    renamed.name = "Newly renamed player"
    renamed.save(update_fields=["name"])
    event_live.event_changed(event)
    expect(page.locator("#bracket .bracket-part[data-old]")).to_have_count(0)
    expect(losers.locator('.pairing[data-key="L1.1"]')).to_contain_text("Newly renamed player")
    expect(losers).to_have_attribute("data-scroll", "end")
    check_bracket_part(losers, 13)


def test_a_bracket_on_a_phone_shows_a_round_at_a_time_with_whole_names(open_page, screenshots):
    event = run_event("Harbour cup", "single_elim", bots(8))
    desktop = open_page(DESKTOP)
    desktop.goto(f"/events/{event.pk}")
    bracket = desktop.locator("#bracket")
    expect(bracket.locator(".round > h3")).to_have_text(["Quarterfinals", "Semifinals", "Final"])
    check_bracket_part(bracket.locator(".bracket-part"), 6)
    assert desktop.evaluate(NAMES_CUT, bracket.element_handle()) == []
    expect_cue_where_wider(bracket.locator(".bracket-part"))
    desktop.screenshot(path=str(screenshots / "bracket-desktop.png"), full_page=True)

    page = open_page(PHONE)
    page.goto(f"/events/{event.pk}")
    bracket = page.locator("#bracket")
    expect(bracket).to_have_attribute("data-layout", "phone")
    tabs = bracket.get_by_role("tab")
    expect(tabs).to_have_text(["Quarterfinals", "Semifinals", "Final"])
    expect(tabs.last).to_have_attribute("aria-selected", "true")  # finished: the final
    expect(bracket.locator(".round:visible")).to_have_count(1)
    tabs.first.click()
    expect(tabs.first).to_have_attribute("aria-selected", "true")
    shown = bracket.locator(".round:visible")
    expect(shown).to_have_count(1)
    expect(shown.locator(".pairing")).to_have_count(4)
    for bot_name in Pairing.objects.filter(event=event, round__number=1).values_list(
        "entry_a__player__name", flat=True
    ):
        expect(shown.get_by_role("link", name=bot_name, exact=True)).to_be_visible()
    assert page.evaluate(NAMES_CUT, bracket.element_handle()) == []
    for box in shown.locator(".pairing").all():
        b = box.bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= PHONE["width"]
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(screenshots / "bracket-phone.png"), full_page=True)


def test_the_cue_and_the_lines_follow_the_bracket_without_a_window_resize(open_page):
    """The bracket's box narrows (a panel beside it, a scrollbar) or its text grows (a font
    that came late): the window keeps its size, and the cue and the lines follow all the same."""
    cup_bots = [BotFactory(name=f"Quay bot {n}", bot_strategy="greedy") for n in range(1, 9)]
    event = run_event("Quay cup", "single_elim", cup_bots)
    page = open_page(DESKTOP)
    page.goto(f"/events/{event.pk}")
    container = page.locator("#bracket")
    part = container.locator(".bracket-part")
    cue = part.locator(".scroll-cue")
    expect(part.locator(".round")).to_have_count(3)
    check_bracket_part(part, 6)
    expect(cue).to_be_hidden()  # three rounds of short names fit 1280 px
    expect(part).to_have_attribute("data-scroll", "none")

    container.evaluate("(box) => { box.style.width = '30rem'; }")
    expect(cue).to_be_visible()
    expect(cue).to_contain_text("More rounds")
    expect(part).to_have_attribute("data-scroll", "more")
    container.evaluate("(box) => { box.style.width = ''; }")
    expect(cue).to_be_hidden()
    expect(part).to_have_attribute("data-scroll", "none")

    # Wider names push the later rounds to the right: the lines are drawn again to reach them.
    before = part.locator(".round").last.bounding_box()["x"]
    container.evaluate("(box) => { box.style.letterSpacing = '0.5em'; }")
    after_frames(page)
    assert part.locator(".round").last.bounding_box()["x"] > before + 50
    check_bracket_part(part, 6)
    expect_cue_where_wider(part)


def test_a_double_elimination_on_a_phone_has_tabs_for_each_part(open_page, screenshots):
    event = run_event("Pocket double", "double_elim", bots(8))
    page = open_page(PHONE)
    page.goto(f"/events/{event.pk}")
    parts = page.locator("#bracket .bracket-part")
    expect(parts).to_have_count(3)
    for n in range(3):
        expect(parts.nth(n).locator(".round:visible")).to_have_count(1)
        expect(parts.nth(n).get_by_role("tab", selected=True)).to_have_count(1)
    # Finished: each part opens on its last round played (not a reset that was not needed).
    reset_played = Pairing.objects.filter(event=event, key="GF2").exclude(status="skipped")
    final = "Grand final reset" if reset_played.exists() else "Grand final"
    expect(parts.nth(2).get_by_role("tab", selected=True)).to_have_text(final)
    parts.nth(1).get_by_role("tab").first.click()
    expect(parts.nth(1).locator(".round:visible > h3")).to_have_text("Losers round 1")
    assert page.evaluate(NAMES_CUT, page.locator("#bracket").element_handle()) == []
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(screenshots / "double-elim-phone.png"), full_page=True)


@pytest.mark.parametrize("format", ["swiss", "round_robin"])
def test_round_tables_fit_a_phone(open_page, screenshots, format):
    options = {"swiss_rounds": 3} if format == "swiss" else {}
    event = run_event(f"Phone {format}", format, bots(6), **options)
    page = open_page(PHONE)
    page.goto(f"/events/{event.pk}")
    tables = page.locator("#rounds table")
    expect(tables).to_have_count(event.rounds.count())
    # All the tables' boxes in one read: a push re-draws the rounds, and a box read a call
    # at a time can land on a table the page has just replaced (no box at all).
    found = page.evaluate(
        "() => [...document.querySelectorAll('#rounds table')].map((t) => {"
        " const r = t.getBoundingClientRect(); return {x: r.x, width: r.width}; })"
    )
    assert len(found) == event.rounds.count()
    for box in found:
        assert box["width"] > 0 and box["x"] >= 0, box
        assert box["x"] + box["width"] <= PHONE["width"], box
    assert page.evaluate(NAMES_CUT, page.locator("#rounds").element_handle()) == []
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    name = "swiss-round-phone.png" if format == "swiss" else "round-robin-phone.png"
    page.screenshot(path=str(screenshots / name), full_page=True)


def test_a_registered_player_finds_their_match_and_the_time_left_to_show_up(
    open_page, live, screenshots
):
    alice = PlayerFactory(user__username="alice", name="Alice Longname-Player")
    event = run_event("Evening cup", "single_elim", [alice, *bots(3)], grace_seconds=600)
    pairing = Pairing.objects.get(
        Q(entry_a__player=alice) | Q(entry_b__player=alice), event=event, round__number=1
    )
    opponent = pairing.entry_b if pairing.entry_a.player_id == alice.pk else pairing.entry_a
    page = open_page(DESKTOP, alice.user)
    page.goto(f"/events/{event.pk}")

    yours = page.locator("#your-match")
    expect(yours.get_by_role("heading", name="Your match")).to_be_visible()
    expect(yours).to_contain_text(f"Semifinals: you against {opponent.player.name}")
    expect(yours).to_contain_text("Ready: waiting for both players to show up")
    countdown = yours.locator(".countdown")
    expect(countdown).to_have_text(re.compile(r"^(10:00|9:\d\d)$"))
    first = countdown.text_content()
    expect(countdown).not_to_have_text(first)  # it counts down
    expect(page.locator(f'.pairing.yours[data-key="{pairing.key}"]')).to_be_visible()
    page.screenshot(path=str(screenshots / "event-your-match.png"), full_page=True)

    # The lobby's row of that match names the event.
    page.goto("/lobby")
    row = page.locator("ul.matches li").filter(has_text=opponent.player.name)
    expect(row.get_by_role("link", name="Evening cup")).to_be_visible()

    page.goto(f"/events/{event.pk}")
    yours.get_by_role("link", name="Go to your match").click()
    expect(page).to_have_url(re.compile(rf"/matches/{pairing.match_id}$"))
    left = page.locator("#show-up-left")
    expect(left).to_have_text(re.compile(r"^(10:00|9:\d\d)$"))
    first = left.text_content()
    expect(left).not_to_have_text(first)
    expect(page.locator("main")).to_contain_text(re.compile(r"show up within \d+:\d\d or forfeit"))
    expect(page.locator("main")).not_to_contain_text("UTC")
    page.screenshot(path=str(screenshots / "match-show-up-countdown.png"))

    page.get_by_role("button", name="I am here: start the match").click()
    expect(page).to_have_url(re.compile(r"/games/\d+$"))
    page.goto(f"/events/{event.pk}")
    expect(yours).to_contain_text("In play.")
    expect(yours.get_by_role("link", name="Go to the table")).to_have_attribute(
        "href", re.compile(r"^/games/\d+$")
    )

    # On a phone, too, and a spectator sees no "Your match".
    phone = open_page(PHONE, alice.user)
    phone.goto(f"/events/{event.pk}")
    expect(phone.locator("#your-match")).to_contain_text("In play.")
    assert phone.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    phone.screenshot(path=str(screenshots / "event-your-match-phone.png"))
    spectator = open_page(DESKTOP)
    spectator.goto(f"/events/{event.pk}")
    expect(spectator.locator("#bracket .pairing").first).to_be_visible()
    expect(spectator.locator("#your-match")).to_be_hidden()


def test_before_the_start_the_event_lists_its_entries_not_standings(open_page, screenshots):
    players = [PlayerFactory(user__username=f"p{n}", name=NAMES[n]) for n in range(4)]
    event = open_event("Spring open", players)
    page = open_page(DESKTOP)
    page.goto(f"/events/{event.pk}")
    entries = page.locator("#entries li")
    expect(entries).to_have_count(4)
    for player in players:
        expect(entries.get_by_role("link", name=player.name, exact=True)).to_be_visible()
    expect(page.locator("#standings-section")).to_be_hidden()
    expect(page.locator("#event")).to_have_attribute("data-live", "socket")
    page.screenshot(path=str(screenshots / "event-entries.png"), full_page=True)

    services.event_start(event=event)  # pushed: the standings take the entries' place

    expect(page.locator("#standings tbody tr")).to_have_count(4)
    expect(page.locator("#entries-section")).to_be_hidden()


def test_a_knocked_out_player_reads_where_they_finish_the_same_on_every_page(
    open_page, screenshots
):
    """An eight-player knockout with a third-place match, after the quarterfinals and one
    semifinal: 3 rounds (the third-place match is played beside the final); a quarterfinal
    loser is out and reads the round reached and the place shared with the other three; the
    semifinal's loser plays on for third place; the event page, the standings API and the
    printed standings give the same ranks."""
    event = open_event("Knockout cup", humans(8), third_place=True)
    services.event_start(event=event)
    event.refresh_from_db()
    s = by_seed(event)
    for key, seed in (("R1.1", 1), ("R1.2", 4), ("R1.3", 2), ("R1.4", 3)):
        decide(event, key, s[seed])
    decide(event, "R2.1", s[1])
    settle()
    api = Client()
    rows = api.get(f"/api/events/{event.pk}/standings").json()["rows"]
    ranks = [row["rank"] for row in rows]
    assert ranks == [1, 1, 1, 3, 5, 5, 5, 5]
    reached = {row["seed"]: row["reached"] for row in rows}
    assert reached[1] == "Final" and reached[4] == "Third place"
    assert reached[2] == reached[3] == "Semifinals" and reached[8] == "Quarterfinals"

    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = open_page(viewport, s[8].user)  # knocked out by the top seed
        page.goto(f"/events/{event.pk}")
        expect(page.locator("#event-summary")).to_have_text("8 players · 3 rounds")
        expect(page.get_by_role("heading", name="Bracket", exact=True)).to_have_count(1)
        yours = page.locator("#your-match")
        expect(yours).to_have_attribute("data-state", "out")
        expect(yours).to_contain_text(
            "You are out of the event. Reached: Quarterfinals; place 5\u20138."
        )
        expect(yours).not_to_contain_text("Your next one")
        expect(page.get_by_role("button", name="Withdraw")).to_have_count(0)
        expect(page.locator("#standings tbody tr td:first-child")).to_have_text(
            [str(rank) for rank in ranks]
        )
        assert page.evaluate("document.scrollingElement.scrollWidth") <= viewport["width"]
        page.screenshot(path=str(screenshots / f"event-knocked-out-{size}.png"), full_page=True)

    # The semifinal's loser is not out: the third-place match waits for them.
    loser = open_page(PHONE, s[4].user)
    loser.goto(f"/events/{event.pk}")
    yours = loser.locator("#your-match")
    expect(yours).to_contain_text("Third place: you against an opponent still to be decided.")
    expect(yours).to_have_attribute("data-state", "waiting")
    expect(loser.get_by_role("button", name="Withdraw")).to_be_visible()

    printed = open_page(DESKTOP)
    printed.goto(f"/events/{event.pk}/print/standings")
    expect(printed.locator("table.standings tbody tr td:first-child")).to_have_text(
        [str(rank) for rank in ranks]
    )
