"""The lobby's open games in a browser, on a 390 px phone and a desktop: Alice posts one with
the short form, Bob's lobby (another browser) shows it appear live, without a reload, with
her name, rating and settings; one tap on Join starts the match and opens the table for both
(Alice's page hears it on the lobby socket). A game cancelled, or left behind by its poster
closing the lobby, disappears from the other lobby."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import seeks
from games.models import Match, Seek
from tests.e2e.helpers import SIZES, sign_in
from tests.factories import PlayerFactory


@pytest.fixture(params=list(SIZES))
def size(request):
    return request.param


@pytest.fixture
def pages(browser, live, size):
    """Two people's pages at the parametrised size, each in its own browser context; fails
    on a script error."""
    errors: list[str] = []
    contexts, opened = [], []
    for _ in range(2):
        context = browser.new_context(base_url=live, **SIZES[size])
        context.set_default_timeout(15_000)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        contexts.append(context)
        opened.append(page)
    yield contexts, opened
    for context in contexts:
        context.close()
    assert not errors, errors


@pytest.fixture
def cast(transactional_db):
    return {
        name: PlayerFactory(user__username=name.lower(), name=name)
        for name in ("Alice", "Bob", "Charlie")
    }


def tap(size: str, locator) -> None:
    if size == "phone":
        locator.tap()
    else:
        locator.click()


def fits(page, size: str) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= SIZES[size]["viewport"]["width"], f"the page scrolls sideways ({width}px)"


def test_an_open_game_appears_live_in_another_lobby_and_one_tap_joins_it(
    pages, live, cast, size, screenshots
):
    (alice_context, bob_context), (alice_page, bob_page) = pages
    alice, bob, charlie = cast["Alice"], cast["Bob"], cast["Charlie"]
    # Charlie's game waits already (posted by a program: no lobby socket of his to close).
    seeks.seek_create(poster=charlie, rules="oklahoma", target=250, best_of=1)
    sign_in(alice_context, live, alice.user)
    sign_in(bob_context, live, bob.user)
    bob_page.goto("/lobby")
    listed = bob_page.locator("#seek-list .seek")
    expect(listed).to_have_count(1)
    expect(listed.first).to_contain_text("Charlie (1500)")
    expect(listed.first).to_contain_text("Oklahoma · untimed · one game to 250 · casual")

    alice_page.goto("/lobby")
    form = alice_page.locator("#seek-form")
    form.get_by_label("Clock").select_option("3+2")
    tap(size, form.get_by_role("button", name="Post an open game"))
    mine = alice_page.locator("#seek-list .seek.mine")
    expect(mine).to_contain_text("You (1500)")
    expect(mine.get_by_role("button", name="Cancel")).to_be_visible()
    posted = Seek.objects.get(poster=alice, status=Seek.Status.OPEN)

    # Bob's lobby shows it without a reload, after Charlie's.
    theirs = bob_page.locator(f'#seek-list .seek[data-seek="{posted.pk}"]')
    expect(theirs).to_contain_text("Alice (1500)")
    expect(theirs).to_contain_text("Standard, knock at 10 · 3 min + 2 s · one game to 100 · casual")
    expect(listed).to_have_count(2)
    fits(bob_page, size)
    bob_page.locator("#open-games").screenshot(
        path=str(screenshots / f"lobby-open-games-{size}.png")
    )

    tap(size, theirs.get_by_role("button", name="Join"))
    expect(bob_page).to_have_url(re.compile(r"/games/\d+$"))
    expect(alice_page).to_have_url(re.compile(r"/games/\d+$"))
    assert alice_page.url == bob_page.url, "both open the same table"
    match = Match.objects.get(player_a=alice, player_b=bob)
    assert match.status == Match.Status.ACTIVE
    assert (match.best_of, match.target, match.base_seconds, match.increment_seconds) == (
        1,
        100,
        180,
        2,
    )
    expect(bob_page.locator("#seat-bottom .hand .card")).to_have_count(10)
    assert Seek.objects.get(pk=posted.pk).status == Seek.Status.TAKEN


def test_a_cancelled_game_and_a_departed_posters_game_leave_the_other_lobby(
    pages, live, cast, size
):
    (alice_context, bob_context), (alice_page, bob_page) = pages
    alice, bob = cast["Alice"], cast["Bob"]
    sign_in(alice_context, live, alice.user)
    sign_in(bob_context, live, bob.user)
    bob_page.goto("/lobby")
    alice_page.goto("/lobby")
    form = alice_page.locator("#seek-form")
    listed = bob_page.locator("#seek-list .seek")

    tap(size, form.get_by_role("button", name="Post an open game"))
    expect(listed).to_have_count(1)
    tap(size, alice_page.locator("#seek-list .seek.mine").get_by_role("button", name="Cancel"))
    expect(listed).to_have_count(0)
    expect(bob_page.locator("#seek-empty")).to_be_visible()

    tap(size, form.get_by_role("button", name="Post an open game"))
    expect(listed).to_have_count(1)
    alice_page.goto("/how-to-play")  # Alice leaves the lobby: her game goes with her
    expect(listed).to_have_count(0)
    assert not Seek.objects.filter(status=Seek.Status.OPEN).exists()
