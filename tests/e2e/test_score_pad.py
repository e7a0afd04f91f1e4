"""The score pad on phones (390 x 844), in Chromium: an 8-player Swiss at tables played from
its first round to its champion, every match entered hand by hand on one player's phone and
confirmed on the other's, the other phone and the event page following each change live; a
refusal shown next to the count that caused it, a hand taken back, a dispute settled by the
organiser; and the Oklahoma card picker and Hollywood's three columns on a phone."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import Permission
from playwright.sync_api import expect

from games import tables
from games.models import Match
from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.helpers import settle, sign_in
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import Event, Pairing

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
NAMES = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
DASH, TIMES = "\u2013", "\u00d7"  # as the pages write scores and multipliers


@pytest.fixture
def open_page(browser, live, screenshots, request):
    """``open_page(user, viewport)``: a page in a context of its own, signed in as ``user``
    (None: anonymous), on a phone unless told; no script may fail on it."""
    opened = []

    def make(user=None, viewport=PHONE):
        phone = viewport == PHONE
        context = browser.new_context(
            base_url=live, viewport=viewport, is_mobile=phone, has_touch=phone
        )
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
        assert not errors, f"JavaScript errors on page {n}: {errors}"


def no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.viewport_size["width"]
    assert width <= viewport, f"the page scrolls sideways ({width} px on {viewport})"


def pad(page):
    return page.locator("#pad")


def hands_shown(page) -> int:
    return int(pad(page).get_attribute("data-hands"))


def mark(page) -> None:
    """Mark the page's window: a reload would lose the mark (see :func:`not_reloaded`)."""
    page.evaluate("window.stillTheSamePage = true")


def not_reloaded(page) -> None:
    assert page.evaluate("window.stillTheSamePage === true"), "the page was loaded again"


def type_count(page, side: int, count: int) -> None:
    """Choose player ``side``'s deadwood and type ``count`` on the number pad."""
    page.locator(f'#entry [data-side="{side}"]').click()
    page.locator('#entry [data-key="clear"]').click()
    for digit in str(count):
        page.locator(f'#entry [data-digit="{digit}"]').click()
    expect(page.locator(f"#count-{side}")).to_have_text(str(count))


def fill_hand(page, kind: str, knocker: int | None = None, counts=None, upcard=None) -> None:
    """Fill the pad for one hand as it ended (``counts``: player index -> deadwood)."""
    page.locator(f'#entry [data-kind="{kind}"]').click()
    if kind == "drawn":
        return
    page.locator(f'#entry [data-knocker="{knocker}"]').click()
    for side, count in (counts or {}).items():
        type_count(page, side, count)
    if upcard:
        page.locator(f'#entry [data-rank="{upcard[0]}"]').click()
        page.locator(f'#entry [data-suit="{upcard[1]}"]').click()


def enter_hand(page, kind: str, knocker: int | None = None, counts=None, upcard=None) -> None:
    """Enter one hand on the pad and wait for the sheet to show it."""
    before = hands_shown(page)
    fill_hand(page, kind, knocker, counts, upcard)
    page.locator("#enter-hand").click()
    expect(pad(page)).to_have_attribute("data-hands", str(before + 1))


# --- an 8-player Swiss at tables, from the phones ---------------------------------------------


def club_swiss(people) -> Event:
    event = services.event_create(
        name="Tuesday club Swiss",
        format="swiss",
        best_of=1,
        target=50,
        base_seconds=None,
        seeding="random",
        seeding_seed=11,
        venue="tables",
    )
    services.event_open_registration(event=event)
    for player in people:
        services.entry_add(event=event, player=player)
    services.event_start(event=event)
    return event


def round_matches(event: Event, number: int) -> list[Match]:
    """The table matches of round ``number``, by table, once it is paired."""
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while True:
        settle()
        found = list(
            Match.objects.filter(
                pk__in=Pairing.objects.filter(
                    event=event, round__number=number, match__isnull=False
                ).values("match_id")
            )
            .select_related("player_a", "player_b")
            .order_by("table")
        )
        if found:
            return found
        assert time.monotonic() < deadline, f"round {number} was not paired"
        time.sleep(0.2)


def test_a_tables_swiss_is_played_on_phones_from_the_first_hand_to_the_champion(
    open_page, screenshots
):
    # Ada, the first, wins every match she plays: the champion.
    people = [PlayerFactory(user__username=name.lower(), name=name) for name in NAMES]
    order = {player.pk: n for n, player in enumerate(people)}
    olga = PlayerFactory(user__username="olga", name="Olga").user
    olga.is_staff = True
    olga.save()
    olga.user_permissions.add(
        Permission.objects.get(content_type__app_label="games", codename="change_match")
    )
    event = club_swiss(people)
    phones = {player.pk: open_page(player.user) for player in people}
    desk = open_page(olga, DESKTOP)  # the organiser's laptop
    watcher = open_page(None, DESKTOP)  # the event page on the club's screen
    watcher.goto(f"/events/{event.pk}")
    mark(watcher)
    expect(watcher.locator("#event")).to_have_attribute("data-live", "socket")

    plays = 0
    for number in (1, 2, 3):
        matches = round_matches(event, number)
        assert [m.table for m in matches] == [1, 2, 3, 4]
        for match in matches:
            a, b = match.player_a, match.player_b
            winner = 0 if order[a.pk] < order[b.pk] else 1
            # The winner's phone enters every other match, the loser's the others.
            enters = winner if plays % 2 == 0 else 1 - winner
            writer = phones[(a, b)[enters].pk]
            reader = phones[(a, b)[1 - enters].pk]
            # Each player comes from the event page: "Your match" opens the score pad.
            for page in (writer, reader):
                page.goto(f"/events/{event.pk}")
                link = page.locator("#your-match a", has_text="Open the score pad")
                expect(link).to_have_attribute("href", f"/matches/{match.pk}/pad")
                link.click()
                expect(pad(page)).to_have_attribute("data-live", "socket")
                expect(page.locator("h1")).to_contain_text(f"Table {match.table}")
                mark(page)
            play_match(writer, reader, winner, plays, screenshots, watcher, match, desk)
            plays += 1
            for page in (writer, reader):
                expect(pad(page)).to_have_attribute("data-status", "finished")
                not_reloaded(page)
        if number == 1:
            # The laptop's event page followed the round without being loaded again.
            rows = watcher.locator("#rounds tr[data-key]")
            won = rows.filter(has_text=f"1{DASH}0").or_(rows.filter(has_text=f"0{DASH}1"))
            expect(won).to_have_count(4)
            not_reloaded(watcher)

    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    assert event.champion_id == people[0].pk
    assert all(m.status == Match.Status.FINISHED for m in Match.objects.all())
    assert Match.objects.filter(confirmation="confirmed").count() == 12
    champion = phones[people[0].pk]
    champion.goto(f"/events/{event.pk}")
    expect(champion.locator(".champion")).to_contain_text("Ada")
    no_sideways_scroll(champion)
    expect(watcher.locator(".champion")).to_contain_text("Ada")  # live, too
    not_reloaded(watcher)


def play_match(writer, reader, winner, plays, screenshots, watcher, match, desk):
    """One match: hands entered on ``writer`` (one player's phone), followed live on
    ``reader`` (the other's), whose player confirms. The first three matches show a refusal, a hand
    taken back and a dispute decided by the organiser; the others need one or two hands."""
    loser = 1 - winner
    if plays == 0:
        # A knock over the limit is refused, in words, next to the count that caused it.
        fill_hand(writer, "knock", winner, {winner: 15, loser: 40})
        writer.locator("#enter-hand").click()
        expect(writer.locator("#error-deadwood")).to_contain_text("over the knock limit of 10")
        expect(writer.locator("#step-deadwood")).to_have_class("pad-step invalid")
        assert hands_shown(writer) == 0 and hands_shown(reader) == 0
        type_count(writer, winner, 3)
        expect(writer.locator("#error-deadwood")).to_be_hidden()
        writer.locator("#enter-hand").click()
        expect(pad(writer)).to_have_attribute("data-hands", "1")
        expect(pad(reader)).to_have_attribute("data-hands", "1")  # live on the other phone
        expect(reader.locator('#sheet tr[data-hand="0"]')).to_contain_text("knocked 3 v 40")
        expect(reader.locator('#sheet tr[data-hand="0"]')).to_contain_text("+37")
        enter_hand(writer, "gin", winner, {loser: 20})
    elif plays == 1:
        # A hand entered wrongly on one phone is taken back on the other.
        enter_hand(writer, "knock", loser, {loser: 2, winner: 30})
        expect(pad(reader)).to_have_attribute("data-hands", "1")
        expect(reader.locator("#take-back")).to_have_text("Take back hand 1")
        reader.locator("#take-back").click()
        expect(reader.locator("#undo-question")).to_contain_text("knocked 2 v 30")
        reader.locator("#undo-yes").click()
        expect(pad(reader)).to_have_attribute("data-hands", "0")
        expect(pad(writer)).to_have_attribute("data-hands", "0")  # live
        enter_hand(writer, "knock", winner, {winner: 4, loser: 14})
        expect(reader.locator('#sheet tr[data-hand="0"]')).to_contain_text("+10")
        # The second hand, half entered: the pad on a phone, as a player sees it.
        fill_hand(writer, "big_gin", winner, {loser: 19})
        expect(writer.locator("#entry-summary")).to_contain_text("went big gin")
        no_sideways_scroll(writer)
        writer.screenshot(path=str(screenshots / "score-pad-phone.png"), full_page=True)
        writer.locator("#enter-hand").click()
        expect(pad(writer)).to_have_attribute("data-hands", "2")
    elif plays == 2:
        enter_hand(writer, "drawn")
        expect(reader.locator('#sheet tr[data-hand="0"]')).to_contain_text("Drawn")
        enter_hand(writer, "gin", winner, {loser: 31})
    elif plays % 2:
        enter_hand(writer, "knock", winner, {winner: 0 if plays % 3 else 5, loser: 9})
        enter_hand(writer, "gin", winner, {loser: 40})
    else:
        enter_hand(writer, "gin", winner, {loser: 25 + plays})

    # Decided: the writer waits, the reader is asked to confirm (live, without a reload).
    expect(pad(writer)).to_have_attribute("data-confirmation", "awaiting")
    expect(writer.locator("#confirm-actions")).to_be_hidden()
    expect(writer.locator("#pad-status")).to_contain_text("Waiting for")
    expect(reader.locator("#confirm-actions")).to_be_visible()
    expect(reader.locator("#entry")).to_be_hidden()
    if plays == 0:
        rows = watcher.locator("#rounds tr[data-key]", has_text="to confirm")
        expect(rows).to_have_count(1)  # live on the event page
    if plays == 2:
        dispute_and_decide(reader, writer, match, desk, loser, screenshots)
        return
    reader.locator("#confirm").click()
    expect(pad(reader)).to_have_attribute("data-status", "finished")
    expect(reader.locator("#pad-status")).to_contain_text("the result is confirmed")
    if plays == 0:
        no_sideways_scroll(reader)
        reader.screenshot(path=str(screenshots / "score-pad-confirmed-phone.png"), full_page=True)


def dispute_and_decide(reader, writer, match, desk, loser: int, screenshots) -> None:
    """The reader disputes, saying why (a dispute without a reason is refused next to its
    box); the organiser, on a laptop, corrects the disputed hand from the sheet and confirms,
    each with a reason for the event's log."""
    reader.locator("#dispute-open").click()
    reader.locator("#dispute-send").click()
    expect(reader.locator("#error-dispute")).to_be_visible()
    reader.locator("#dispute-reason").fill("The gin was against 35, not 31: we counted again.")
    reader.locator("#dispute-send").click()
    expect(pad(reader)).to_have_attribute("data-confirmation", "disputed")
    expect(pad(writer)).to_have_attribute("data-confirmation", "disputed")
    expect(writer.locator("#pad-status")).to_contain_text("we counted again")

    desk.goto(f"/matches/{match.pk}/pad")
    expect(pad(desk)).to_have_attribute("data-organiser", "true")
    # The organiser corrects hand 2 (the gin) from its row of the sheet: the form holds the
    # hand as entered, and saving it scores it again, live on both phones.
    expect(reader.locator("button[data-fix]")).to_have_count(0)  # players take back instead
    desk.locator('#sheet tr[data-hand="1"] button[data-fix]').click()
    expect(desk.locator("#entry-title")).to_contain_text("Correct hand 2")
    expect(desk.locator('#entry [data-kind="gin"]')).to_have_attribute("aria-pressed", "true")
    expect(desk.locator(f"#count-{loser}")).to_have_text("31")
    type_count(desk, loser, 35)
    desk.locator("#pad-reason").fill("Recounted at the desk: 35.")
    desk.screenshot(path=str(screenshots / "score-pad-correcting-desktop.png"), full_page=True)
    desk.locator("#enter-hand").click()
    expect(desk.locator("#entry")).to_be_hidden()
    for page in (reader, writer):
        expect(page.locator('#sheet tr[data-hand="1"]')).to_contain_text("+60")
    expect(pad(reader)).to_have_attribute("data-confirmation", "awaiting")
    desk.locator("#pad-reason").fill("")
    desk.locator("#confirm").click()
    expect(desk.locator("#error-reason")).to_contain_text("reason")  # the log needs one
    desk.locator("#pad-reason").fill("Both players agreed the count at the desk.")
    desk.locator("#confirm").click()
    expect(pad(desk)).to_have_attribute("data-status", "finished")
    expect(pad(reader)).to_have_attribute("data-status", "finished")


# --- the Oklahoma upcard and Hollywood's columns on a phone ---------------------------------


def test_oklahoma_takes_the_upcard_from_a_card_picker_and_hollywood_fits_a_phone(
    open_page, screenshots
):
    ada = PlayerFactory(user__username="ada", name="Ada Lovelace-Byron")
    bo = PlayerFactory(user__username="bo", name="Bo Undercut-Specialist")
    oklahoma = tables.table_match_create(
        player_a=ada, player_b=bo, rules={"name": "oklahoma", "best_of": 1}, table=5
    )
    hollywood = tables.table_match_create(
        player_a=ada, player_b=bo, rules={"name": "hollywood", "best_of": 1}, table=6
    )
    page = open_page(ada.user)

    page.goto(f"/matches/{oklahoma.pk}/pad")
    # A four up makes the limit four: a knock with five is refused, naming the upcard.
    fill_hand(page, "knock", 0, {0: 5, 1: 30}, upcard="4S")
    expect(page.locator("#upcard-chosen")).to_have_text("4♠")
    page.locator("#enter-hand").click()
    expect(page.locator("#error-deadwood")).to_contain_text("upcard 4S")
    type_count(page, 0, 4)
    page.locator("#enter-hand").click()
    expect(pad(page)).to_have_attribute("data-hands", "1")
    row = page.locator('#sheet tr[data-hand="0"]')
    expect(row).to_contain_text("upcard 4♠")
    expect(row).to_contain_text(f"{TIMES}2")  # a spade doubles
    expect(row).to_contain_text("+52")
    no_sideways_scroll(page)

    page.goto(f"/matches/{hollywood.pk}/pad")
    enter_hand(page, "knock", 0, {0: 5, 1: 40})
    enter_hand(page, "gin", 1, {0: 30})
    enter_hand(page, "knock", 0, {0: 5, 1: 60})
    expect(page.locator(".pad-game.hollywood thead")).to_contain_text("Game 3")
    third = page.locator('#sheet tr[data-hand="2"] td.scored')
    expect(third).to_have_count(2)  # Ada's second win counts in games 1 and 2
    no_sideways_scroll(page)
    page.screenshot(path=str(screenshots / "score-pad-hollywood-phone.png"), full_page=True)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_after_a_shutout_the_sheet_gives_the_hand_points_and_their_doubling_apart(
    open_page, screenshots, viewport
):
    """Two gins of 95 and 94 win a game to 100 without the other winning a hand: the sheet's
    hand points are the 189 the hands added up to, the shutout's doubling a line of its own
    (+189), then the bonuses and the total (378 + 100 + 2 x 25 = 528)."""
    ada = PlayerFactory(user__username="ada", name="Ada")
    bo = PlayerFactory(user__username="bo", name="Bo")
    match = tables.table_match_create(
        player_a=ada, player_b=bo, rules={"name": "standard", "best_of": 1, "target": 100}, table=2
    )
    for defender in (70, 69):  # gin: the defender's deadwood + 25
        tables.hand_enter(
            match_id=match.pk,
            player=ada,
            user=ada.user,
            kind="gin",
            knocker=ada.pk,
            deadwood={bo.pk: defender},
        )
    page = open_page(bo.user, viewport)
    page.goto(f"/matches/{match.pk}/pad")

    def cells(label: str):
        row = page.get_by_role("rowheader", name=label, exact=True)
        return pad(page).locator("tr", has=row).locator("td")

    expect(cells("Hand points")).to_have_text(["189", "0"])
    expect(cells("Shutout: hand points doubled")).to_have_text(["+189", ""])
    expect(cells("Game bonus")).to_have_text(["100", "0"])
    expect(cells("Box bonus")).to_have_text(["50", "0"])
    expect(cells("Total")).to_have_text(["528", "0"])
    no_sideways_scroll(page)
    name = "phone" if viewport == PHONE else "desktop"
    page.screenshot(path=str(screenshots / f"pad-shutout-{name}.png"), full_page=True)
