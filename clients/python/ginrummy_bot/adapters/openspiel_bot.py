"""OpenSpiel's ``SimpleGinRummyBot`` (``pyspiel.make_simple_gin_rummy_bot``) as an external bot.

Run it (with ``open-spiel`` installed beside this client)::

    ginrummy-bot --token "$BOT_TOKEN" --bot ginrummy_bot.adapters.openspiel_bot:OpenSpielSimple

OpenSpiel's bot decides from its own hand, the upcard, the knock card and the stock's size
(it decodes nothing else from its observation), so each decision is asked of a fresh bot on a
fresh OpenSpiel state dealt to match the service's view: the bot is player 0 with the bot's
hand, the opponent holds ten cards the bot has not seen, and

- taking the upcard or passing, drawing from the pile or the stock: the offered card is the
  first upcard (``take`` is OpenSpiel's draw-upcard action, anything else the stock or pass);
- discarding, knocking or going gin with eleven cards: both players pass the first upcard and
  the bot draws its eleventh card from the stock; OpenSpiel's knock is followed by the
  discard it then makes, which becomes the service's ``knock`` (or ``gin`` at no deadwood).

The knock card is the deal's ``knock_limit`` (Oklahoma's varies per deal). The mapping of a
decision back to one of ``view["legal_actions"]`` is :func:`to_service_action`.
"""

from __future__ import annotations

from typing import Any

from ginrummy_bot.adapters.cards import DECK, to_openspiel
from ginrummy_bot.bot import Bot

#: OpenSpiel's action numbers for gin rummy (``pyspiel.gin_rummy``): 0-51 discard a card.
DRAW_UPCARD, DRAW_STOCK, PASS, KNOCK = 52, 53, 54, 55


def to_service_action(
    view: dict[str, Any],
    *,
    draw_upcard: bool | None = None,
    discard: str | None = None,
    knock: bool = False,
) -> dict[str, Any]:
    """The legal action of ``view`` for OpenSpiel's decision: take the offered card or not
    (``draw_upcard``), or discard ``discard`` (after a knock: ``knock`` is True).

    A knock with no deadwood left is ``gin``; a decision the service does not offer (a knock
    where its rules allow none) falls back to the plain discard of the same card.
    """
    legal = view["legal_actions"]
    kinds = {action["type"]: action for action in legal}
    if draw_upcard is not None:
        want = ("take_upcard", "draw_discard") if draw_upcard else ("pass", "draw_stock")
        for kind in want:
            if kind in kinds:
                return kinds[kind]
        raise ValueError(f"no {' or '.join(want)} among {legal}")
    with_card = {(a["type"], a.get("card")): a for a in legal}
    order = ("gin", "knock", "discard") if knock else ("discard",)
    for kind in order:
        if (kind, discard) in with_card:
            return with_card[(kind, discard)]
    if knock and "big_gin" in kinds:
        return kinds["big_gin"]
    raise ValueError(f"no discard of {discard} among {legal}")


class OpenSpielSimple(Bot):
    """OpenSpiel's simple gin rummy bot, asked afresh for each decision."""

    name = "openspiel-simple"

    def __init__(self) -> None:
        import pyspiel  # an optional peer: imported only when this bot is used

        self.pyspiel = pyspiel
        self.games: dict[int, Any] = {}

    def _game(self, knock_card: int):
        if knock_card not in self.games:
            self.games[knock_card] = self.pyspiel.load_game("gin_rummy", {"knock_card": knock_card})
        return self.games[knock_card]

    def _deal(self, game, hand: list[str], upcard: str, avoid: set[str]):
        """A state in its first upcard phase: player 0 holds ``hand``, player 1 ten cards
        outside ``hand``, ``upcard`` and ``avoid``, and ``upcard`` is offered."""
        taken = {*hand, upcard, *avoid}
        other = [card for card in DECK if card not in taken][:10]
        state = game.new_initial_state()
        for card in [*hand, *other, upcard]:
            state.apply_action(to_openspiel(card))
        return state

    def choose(self, view: dict[str, Any]) -> dict[str, Any]:
        deal = view["deal"]
        hand = list(view["hand"])
        game = self._game(max(1, int(deal["knock_limit"])))
        kinds = {action["type"] for action in view["legal_actions"]}
        if kinds & {"take_upcard", "pass", "draw_stock", "draw_discard"}:
            offered = deal["discard_pile"][-1] if deal["discard_pile"] else deal["upcard"]
            state = self._deal(game, hand, offered, set())
            bot = self.pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 0)
            return to_service_action(view, draw_upcard=bot.step(state) == DRAW_UPCARD)
        # Eleven cards: the last one comes from the stock, after both pass the upcard.
        last = hand.pop()
        top = deal["discard_pile"][-1] if deal["discard_pile"] else deal["upcard"]
        upcard = next(card for card in DECK if card not in {*hand, last, top})
        state = self._deal(game, hand, upcard, {last})
        state.apply_action(PASS)
        state.apply_action(PASS)
        state.apply_action(DRAW_STOCK)
        state.apply_action(to_openspiel(last))
        bot = self.pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 0)
        action = bot.step(state)
        knock = action == KNOCK
        if knock:
            state.apply_action(KNOCK)
            action = bot.step(state)  # the discard of its knock
        card = DECK_BY_OPENSPIEL[action]
        try:
            return to_service_action(view, discard=card, knock=knock)
        except ValueError:
            # The card OpenSpiel throws is one the service forbids (the one just taken from
            # the pile): its next best is not known, so the first legal discard.
            return next(a for a in view["legal_actions"] if a["type"] == "discard")


#: Service card names by OpenSpiel's card number.
DECK_BY_OPENSPIEL = {to_openspiel(card): card for card in DECK}
