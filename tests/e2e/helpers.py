"""Helpers for the browser tests: sign in, read the table, play simple turns."""

from __future__ import annotations

from django.conf import settings
from django.test import Client

POINTS = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}


def sign_in(context, live: str, user) -> None:
    """Put a signed-in session cookie for ``user`` into the browser context."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": live}])


def card_points(code: str) -> int:
    return POINTS.get(code[0]) or int(code[0])


def ply(page) -> int:
    return int(page.locator("#table").get_attribute("data-ply") or -1)


def wait_for_my_turn(page) -> None:
    """Until it is the player's turn at this table (or the game is over)."""
    page.wait_for_function(
        "() => document.getElementById('table').dataset.yourTurn === 'true'"
        " || document.getElementById('table').dataset.status === 'finished'"
    )


def wait_past(page, before: int) -> None:
    """Until the table shows a ply after ``before`` (or the game is over)."""
    page.wait_for_function(
        f"() => Number(document.getElementById('table').dataset.ply) > {before}"
        " || document.getElementById('table').dataset.status === 'finished'"
    )


def click_and_wait(page, locator) -> None:
    """Click, then wait until the table has moved on from this ply."""
    before = ply(page)
    locator.click()
    wait_past(page, before)


def play_one_turn(page) -> None:
    """A simple player: gin or knock when allowed, pass the upcard, draw from the stock,
    throw the highest deadwood card."""
    actions = page.locator("#actions")
    for ending in ("big_gin", "gin", "knock"):
        button = actions.locator(f'button[data-action="{ending}"]')
        if button.count():
            before = ply(page)
            button.click()
            choices = page.locator("#seat-bottom .card.choice")
            if ply(page) == before and choices.count():
                click_and_wait(page, choices.first)  # several cards could go face down
            else:
                # One card could: the click sent the move. Until its answer arrives the
                # table still shows this turn, and the caller would play it a second time.
                wait_past(page, before)
            return
    for move in ("pass", "draw_stock"):
        button = actions.locator(f'button[data-action="{move}"]')
        if button.count():
            click_and_wait(page, button)
            return
    cards = page.locator("#seat-bottom .deadwood .card.playable")
    if not cards.count():
        cards = page.locator("#seat-bottom .card.playable")
    codes = [cards.nth(i).get_attribute("data-card") for i in range(cards.count())]
    best = max(codes, key=card_points)
    click_and_wait(page, page.locator(f'#seat-bottom .card[data-card="{best}"]'))
