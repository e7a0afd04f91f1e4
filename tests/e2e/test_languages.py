"""The site in more than one language, in Chromium: every text of the main pages comes through
the translation catalogues (shown in a pseudo-language, nothing is left outside its brackets),
the pages in French and in Spanish keep no English text that the catalogue translates, and
``<html lang>`` names the language. Scripts' texts are checked as the pages show them (the
table, the lobby, the score pad and the screen build theirs in the browser)."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from accounts.models import Player
from games import services as games
from games.models import Match
from tests.e2e.helpers import sign_in
from tests.e2e.test_paper_pages import club_night
from tests.factories import BotFactory, PlayerFactory
from tests.play import active_game, play_out
from tests.pseudo import (
    PAGE_PIECES,
    PAGE_TEXTS,
    english_with_translation,
    pseudo_language,
    unmarked,
)
from tournaments.models import Event, Pairing


@pytest.fixture
def world(transactional_db):
    """An organiser who plays, a bot, a game in progress, a finished match, a club night."""
    olga = PlayerFactory(user__username="olga", name="Olga")
    get_user_model().objects.filter(pk=olga.user_id).update(is_staff=True, is_superuser=True)
    olga.user.refresh_from_db()
    greta = BotFactory(name="Greta (greedy)", bot_strategy="greedy")
    bob = PlayerFactory(user__username="bob", name="Bob")
    finished = games.match_create(player_a=olga, player_b=bob, best_of=1, target=50)
    play_out(finished, {0: olga, 1: bob}, random.Random(4))
    playing = games.match_create(player_a=olga, player_b=greta, best_of=1, target=100)
    game = active_game(playing)
    event = club_night()
    first = Pairing.objects.filter(event=event).order_by("table")[0]
    at_table = Match.objects.get(pk=first.match_id)
    return {
        "olga": olga,
        "pages": [
            "/",
            "/lobby",
            "/how-to-play",
            "/events",
            f"/events/{event.pk}",
            "/leaderboard",
            "/account",
            f"/players/{olga.pk}",
            f"/games/{game.pk}",
            f"/matches/{playing.pk}",
            f"/matches/{finished.pk}/replay",
            f"/matches/{at_table.pk}/pad",
            f"/events/{event.pk}/print/pairings",
            f"/events/{event.pk}/print/sheets",
            f"/events/{event.pk}/screen",
            "/organise/",
            f"/organise/{event.pk}",
            f"/organise/{event.pk}/entrants",
            f"/organise/{event.pk}/round",
        ],
    }


def names() -> list[str]:
    """The data the pages show that is not text of the site: names of people and events."""
    people = [p for p in Player.objects.values_list("name", flat=True)]
    users = list(get_user_model().objects.values_list("username", flat=True))
    events = list(Event.objects.values_list("name", flat=True))
    words = [word for name in [*people, *events] for word in name.split()]
    return [*people, *users, *events, *words]


def settled(page, path: str) -> None:
    page.goto(path)
    page.wait_for_load_state("networkidle")


def test_every_text_of_the_main_pages_comes_through_the_catalogues(browser, live, world, tmp_path):
    with pseudo_language(tmp_path) as pseudo:
        context = browser.new_context(
            base_url=live,
            viewport={"width": 1280, "height": 900},
            extra_http_headers={"Accept-Language": pseudo},
        )
        context.set_default_timeout(15_000)
        try:
            sign_in(context, live, world["olga"].user)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            left = {}
            for path in world["pages"]:
                settled(page, path)
                expect(page.locator("html")).to_have_attribute("lang", pseudo)
                if found := unmarked(page.evaluate(PAGE_TEXTS), names()):
                    left[path] = found
            assert not errors, f"script errors: {errors}"
        finally:
            context.close()
    assert not left, "texts that do not come through the catalogues:\n" + "\n".join(
        f"{path}: {texts}" for path, texts in left.items()
    )


@pytest.mark.parametrize("language", ["fr", "es"])
def test_the_main_pages_in_french_and_spanish_keep_no_english(
    browser, live, world, language, screenshots
):
    translated = english_with_translation(language)
    assert len(translated) > 500, "the catalogue is nearly empty"
    # A key's letter ("P" passes) is not a word.
    english = {text for text in translated if len(text) > 2}
    context = browser.new_context(
        base_url=live,
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        locale=language,
    )
    context.set_default_timeout(15_000)
    try:
        sign_in(context, live, world["olga"].user)
        page = context.new_page()
        left = {}
        for path in world["pages"]:
            settled(page, path)
            expect(page.locator("html")).to_have_attribute("lang", language)
            texts = page.evaluate(PAGE_PIECES)
            if found := sorted({t for t in texts if t in english}):
                left[path] = found
            if path in ("/lobby", "/how-to-play"):
                name = path.strip("/").replace("-", "_")
                page.screenshot(path=str(screenshots / f"{name}-{language}.png"), full_page=True)
    finally:
        context.close()
    assert not left, "English left:\n" + "\n".join(f"{p}: {t}" for p, t in left.items())
