"""Helpers for the browser tests: sign in, read the table, play simple turns."""

from __future__ import annotations

from contextlib import contextmanager

from django.conf import settings
from django.test import Client

POINTS = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}

#: The two screens every page is tried on: a desktop and a 390 px phone.
SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}


def sign_in(context, live: str, user) -> None:
    """Put a signed-in session cookie for ``user`` into the browser context."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": live}])


def header_link(page, name: str):
    """A link of the site header, through its Menu button where the menu is folded (a
    phone)."""
    menu = page.locator("header.site .menu-button")
    if menu.is_visible():
        menu.click()
    return page.get_by_role("navigation", name="Main").get_by_role("link", name=name, exact=True)


def open_event(name: str, players, format: str = "single_elim", **options):
    """An untimed event open for registration with ``players`` entered."""
    from tournaments import services

    event = services.event_create(
        name=name,
        format=format,
        best_of=1,
        target=100,
        seeding="random",
        seeding_seed=7,
        base_seconds=None,
        **options,
    )
    services.event_open_registration(event=event)
    for player in players:
        services.entry_add(event=event, player=player)
    return event


def settle(timeout: float = 120) -> None:
    """Until the embedded worker has done all it was given (set-ups that play bot matches)."""
    from common.embedded import wait_idle

    assert wait_idle(timeout), "the embedded worker is still busy"


class SocketLog:
    """What a page sends and receives on its table socket (attach before ``page.goto``)."""

    def __init__(self, page) -> None:
        self.sent: list[dict] = []
        self.received: list[dict] = []
        self.sockets = []
        page.on("websocket", self._opened)

    def _opened(self, socket) -> None:
        import json

        self.sockets.append(socket)
        socket.on("framesent", lambda payload: self.sent.append(json.loads(payload)))
        socket.on("framereceived", lambda payload: self.received.append(json.loads(payload)))

    def sent_of(self, kind: str) -> list[dict]:
        return [m for m in self.sent if m.get("type") == kind]


def card_points(code: str) -> int:
    return POINTS.get(code[0]) or int(code[0])


def ply(page) -> int:
    return int(page.locator("#table").get_attribute("data-ply") or -1)


def wait_for_my_turn(page) -> None:
    """Until it is the player's turn at this table (or the game is over, or a deal is and
    the table waits for Continue)."""
    page.wait_for_function(
        "() => document.getElementById('table').dataset.yourTurn === 'true'"
        " || document.getElementById('table').dataset.status === 'finished'"
        " || document.getElementById('continue') !== null"
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


@contextmanager
def browsing(browser, live, user=None, size="desktop", **options):
    """A page at one of :data:`SIZES`, signed in as ``user`` (None: nobody), with the
    browser context's other ``options`` (a colour scheme, say); fails on a script error or
    a failed request."""
    context = browser.new_context(base_url=live, **SIZES[size], **options)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    failed: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    # A request cut short by leaving the page (net::ERR_ABORTED) is not a failure.
    page.on(
        "requestfailed",
        lambda r: None if "ERR_ABORTED" in (r.failure or "") else failed.append(f"{r.url}"),
    )
    try:
        if user is not None:
            sign_in(context, live, user)
        yield page
        assert not failed, f"failed requests: {failed}"
        assert not errors, f"errors in the console: {errors}"
    finally:
        context.close()


def fits_the_width(page) -> None:
    """The page is no wider than the screen: nothing scrolls sideways."""
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width} px wide"
