"""Player views leak nothing: no opponent hidden card, never the stock order."""

import json
import random
import re

from games.engine.cards import card_index, cards_of
from games.engine.deal import Deal
from games.engine.views import view_for

from .helpers import choose

CARD = re.compile(r"^(?:[A2-9TJQK][CDHS])$")


def cards_in(data) -> set[int]:
    """Every card name anywhere in a JSON-ready structure."""
    found: set[int] = set()

    def walk(value):
        if isinstance(value, str) and CARD.match(value):
            found.add(card_index(value))
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)

    walk(data)
    return found


def check_views(deal: Deal) -> None:
    over = deal.is_over
    stock = set(deal.stock)
    for seat in (0, 1, None):
        view = view_for(deal, seat)
        data = json.loads(json.dumps(view.to_json()))
        seen = cards_in(data)
        assert not seen & stock, "the stock is never shown"
        if seat is not None:
            assert view.hand == deal.hands[seat]
            opponent = 1 - seat
            hidden = set(cards_of(deal.hands[opponent] & ~deal.known[opponent]))
            if not over:
                assert not seen & hidden, f"seat {seat} sees opponent cards"
                assert view.revealed is None
            assert view.legal_actions == (
                tuple(deal.legal_actions()) if deal.to_act == seat and not over else ()
            )
        else:
            assert view.hand == 0 and data["hand"] is None
            if not over:
                for s in (0, 1):
                    hidden = set(cards_of(deal.hands[s] & ~deal.known[s]))
                    assert not seen & hidden, "a spectator sees no hidden card"
        if over:
            assert view.revealed == (deal.hands[0], deal.hands[1])


def test_views_of_thousands_of_random_deals_leak_nothing():
    rng = random.Random(2024)
    for n in range(2000):
        deal = Deal.new(rng.getrandbits(40), n % 2)
        # Every ply of the first deals; a few random plies of the rest.
        check_at = None if n < 50 else {rng.randrange(60) for _ in range(4)}
        while not deal.is_over:
            if check_at is None or deal.ply in check_at:
                check_views(deal)
            deal.apply(choose(deal.legal_actions(), rng, ending_bias=0.5))
        check_views(deal)


def test_a_view_shows_what_the_player_may_know():
    deal = Deal.new(77, 0)
    deal.apply(deal.legal_actions()[0])  # the non-dealer takes the upcard
    upcard = deal.upcard
    view = view_for(deal, 0)
    assert view.opponent_known == 1 << upcard
    assert view.hand_sizes == (10, 11) and view.stock_size == 31
    assert view.top_discard is None and not view.my_turn
    mine = view_for(deal, 1)
    assert mine.my_turn and mine.forbidden_discard == upcard
    data = mine.to_json()
    assert data["deadwood_points"] >= 0 and data["hand"] and data["melds"] is not None
    assert data["history"] == [{"seat": 1, "type": "take_upcard", "card": data["upcard"]}]


def test_stock_draws_never_show_their_card_in_the_history():
    deal = Deal.new(78, 0)
    for action in ("pass", "pass", "draw_stock"):
        deal.apply(next(a for a in deal.legal_actions() if str(a) == action))
    for seat in (0, 1, None):
        assert view_for(deal, seat).history[-1].card is None


def test_a_view_built_ply_by_ply_matches_one_built_from_the_whole_log():
    rng = random.Random(7)
    for n in range(40):
        deal = Deal.new(rng.getrandbits(40), n % 2)
        while not deal.is_over:
            for seat in (0, 1, None):
                view_for(deal, seat)  # the deal keeps the history built so far
            deal.apply(choose(deal.legal_actions(), rng, ending_bias=0.2))
        fresh = Deal.replay(deal.seed, deal.dealer, deal.actions)
        for seat in (0, 1, None):
            assert view_for(deal, seat) == view_for(fresh, seat)


def test_a_copied_deal_keeps_its_own_history_once_the_two_part():
    rng = random.Random(11)
    deal = Deal.new(99, 0)
    for _ in range(8):
        deal.apply(choose(deal.legal_actions(), rng, ending_bias=0.0))
    view_for(deal, 0)
    other = deal.copy()
    while not deal.is_over:
        deal.apply(choose(deal.legal_actions(), rng, ending_bias=0.3))
        view_for(deal, 1)
    while not other.is_over:
        other.apply(choose(other.legal_actions(), rng, ending_bias=0.3))
    for d in (deal, other):
        fresh = Deal.replay(d.seed, d.dealer, d.actions)
        assert view_for(d, 0).history == view_for(fresh, 0).history
