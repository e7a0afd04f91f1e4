"""A walk-in on a phone (390 px): the organiser makes the guest's invitation link on the guest's
page, and the person opens it on their own phone and signs up, taking the guest over."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from accounts import services
from accounts.models import Player
from tests.e2e.helpers import sign_in

PHONE = {"width": 390, "height": 844}
PASSWORD = "a long enough passphrase 42"


def fits_the_phone(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_guest_is_invited_and_signs_up_on_a_phone(browser, live, screenshots):
    olga = get_user_model().objects.create_superuser("olga", "olga@example.org", "x" * 12)
    dora = services.guest_create(name="Dora")

    organiser = browser.new_context(base_url=live, viewport=PHONE)
    sign_in(organiser, live, olga)
    desk = organiser.new_page()
    desk.goto(f"/players/{dora.pk}")
    expect(desk.locator("h1 .tag")).to_have_text("guest")
    desk.get_by_role("button", name="Invitation link").click()
    shown = desk.locator("#invitation-url")
    expect(shown).to_have_text(re.compile(r"/join/"))
    link = shown.get_attribute("href")
    assert shown.inner_text() == link  # printed in full
    assert fits_the_phone(desk)
    desk.screenshot(path=str(screenshots / "guest-invitation-phone.png"), full_page=True)
    organiser.close()

    visitor = browser.new_context(base_url=live, viewport=PHONE)
    phone = visitor.new_page()
    phone.goto(link)
    expect(phone.get_by_role("heading", name="Your results as Dora")).to_be_visible()
    assert fits_the_phone(phone)
    phone.get_by_label("Username").fill("dora")
    phone.get_by_label("Password", exact=True).fill(PASSWORD)
    phone.get_by_label("Password again").fill(PASSWORD)
    phone.screenshot(path=str(screenshots / "guest-claim-phone.png"), full_page=True)
    phone.get_by_role("button", name="Create my account").click()
    expect(phone).to_have_url(re.compile(rf"/players/{dora.pk}$"))
    expect(phone.locator("h1")).to_have_text("Dora")  # no guest tag any more

    dora = Player.objects.get(pk=dora.pk)
    assert dora.kind == Player.Kind.HUMAN and dora.user.username == "dora"
    phone.goto(link)
    expect(phone.get_by_role("heading", name="This invitation has been used")).to_be_visible()
    visitor.close()
