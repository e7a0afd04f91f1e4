"""The e-mails about one's events on a phone (390 px): turned off and on from the account page,
and off from the link in an e-mail, which asks first and needs no sign-in."""

from __future__ import annotations

from playwright.sync_api import expect

from accounts import mail
from accounts.models import Player
from tests.e2e.helpers import sign_in
from tests.factories import PlayerFactory

PHONE = {"width": 390, "height": 844}


def fits_the_phone(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def email_events(player: Player) -> bool:
    return Player.objects.get(pk=player.pk).email_events


def test_the_account_page_turns_the_e_mails_off_and_on_on_a_phone(browser, live, screenshots):
    alice = PlayerFactory(user__username="alice", user__email="alice@example.org")
    context = browser.new_context(base_url=live, viewport=PHONE)
    sign_in(context, live, alice.user)
    page = context.new_page()
    page.goto("/account")
    box = page.get_by_label("E-mail me about my events")
    expect(box).to_be_checked()
    assert fits_the_phone(page)
    page.screenshot(path=str(screenshots / "account-email-events-phone.png"), full_page=True)
    box.uncheck()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("E-mails turned off.")).to_be_visible()
    expect(page.get_by_label("E-mail me about my events")).not_to_be_checked()
    assert email_events(alice) is False
    page.get_by_label("E-mail me about my events").check()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("You will be e-mailed about your events.")).to_be_visible()
    assert email_events(alice) is True
    context.close()


def test_the_link_in_an_e_mail_asks_then_turns_them_off_without_a_sign_in(
    browser, live, screenshots
):
    bob = PlayerFactory(user__username="bob", user__email="bob@example.org")
    link = "/unsubscribe/" + mail.unsubscribe_token(player=bob)
    context = browser.new_context(base_url=live, viewport=PHONE)
    page = context.new_page()
    page.goto(link)
    expect(page.get_by_role("heading", name="Stop e-mails about your events?")).to_be_visible()
    assert fits_the_phone(page)
    assert email_events(bob) is True
    page.get_by_role("button", name="Turn the e-mails off").click()
    expect(page.get_by_role("heading", name="E-mails turned off")).to_be_visible()
    assert fits_the_phone(page)
    page.screenshot(path=str(screenshots / "unsubscribe-done-phone.png"), full_page=True)
    assert email_events(bob) is False

    page.goto(link + "tampered")
    expect(page.get_by_role("heading", name="This link is not valid")).to_be_visible()
    context.close()
