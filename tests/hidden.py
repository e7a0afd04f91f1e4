"""What a viewer may not know of a match in play, and a search for it in any answer.

``Secrets.of(match, viewer)`` gathers every secret of the live deal for one viewer, in the
forms the code base gives them:

- the cards the viewer may not know: the opponent's hand (but for the cards known to have
  been picked up from the pile) and the whole stock, for anyone else both hands;
- the seeds: the match's (``Match.seed``, secret until the match is finished), the seeds
  derived from it (``games.engine.game.derive_seed``: the cut, every game, every deal) and
  every seed stored on the match's games and deals;
- the masks (``games.engine.cards``: 52-bit ints, ``suit * 13 + rank``) of the hands, the
  stock and what is hidden.

``Secrets.leaks(answer)`` searches one answer (a JSON body, a socket message, a page) for any
of them in any encoding the code base uses:

- card names as the API writes them (``"TS"``, ``"7H"``), as the pages write them
  (``10♠``, ``7♥``) and as screen readers get them (``ten of spades``);
- card indices 0..51, but only inside a card field (``hand``, ``cards``, ``stock``,
  ``discard_pile``, ``melds``, ...; not ``hand_sizes`` or ``card_count``) of JSON or of an
  element's ``data-`` attribute, where a small number is a card and nowhere else;
- seeds and masks as decimal, hex (``0x`` or not, any case, zero-padded) and masks in
  binary; numbers below a million are left out (ids, scores and times give such numbers
  all the time, and no real seed or mask of a live deal is that small);
- the JSON embedded in pages (``<script type="application/json">``) as JSON.

``last_deal`` (the reveal of the deal before) shows both hands of a finished deal, cards
that may be hidden in the live one: it is checked against the database instead (it must be a
finished deal of this match, shown as it was recorded) and then left out of the card
search, unless that finished deal was dealt from the live deal's seed (a duplicate deal),
whose reveal gives away the live hands.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from games.engine.cards import FULL_DECK, card_index, card_name, cards_of, mask_of
from games.engine.game import derive_seed
from games.engine.match import Match as EngineMatch
from games.models import Deal, Match

#: A card named as the API writes it: rank and suit ("TS", "7H"), standing alone.
CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][SHDC])(?![A-Za-z0-9])")
#: A card as the pages show it (web/templatetags/cards.py): "7♥", "10♠".
SYMBOL = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])([♣♦♥♠])")
#: A card as screen readers get it: "7 of hearts", "queen of spades".
LABEL = re.compile(
    r"\b(ace|[2-9]|ten|jack|queen|king) of (clubs|diamonds|hearts|spades)\b", re.IGNORECASE
)
_SUIT_OF = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
_RANK_OF = {"ace": "A", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "10": "T"}

#: A JSON key or data- attribute that holds cards; a number 0..51 under it is a card index.
CARD_FIELD = re.compile(r"card|hand|stock|deck|discard|meld|deadwood|known|reveal|upcard|pile")
#: Keys that name cards but hold counts, sizes or points.
NOT_CARDS = re.compile(r"size|count|points|won|number|score")
#: Seeds and masks smaller than this are not searched for (see the module's docstring).
MIN_NUMBER = 10**6
#: Deals a game may have, and games a match may have, for the seeds derived ahead.
DEALS_AHEAD, GAMES_AHEAD = 64, 16

#: Texts that name a card the same way whatever the deal: an error's example of the format.
FIXED_TEXTS = ("e.g. 'TS'",)

_JSON_SCRIPT = re.compile(
    r"<script[^>]*type=\"application/json\"[^>]*>(.*?)</script>", re.DOTALL | re.IGNORECASE
)
_DATA_ATTR = re.compile(r"\sdata-([A-Za-z0-9_-]+)=\"([^\"]*)\"")
_DECIMAL = re.compile(r"[0-9]+")
_HEX = re.compile(r"[0-9A-Fa-f]+")


def cards_named(text: str) -> set[int]:
    """Every card index the text names, by name, symbol or spoken label."""
    for fixed in FIXED_TEXTS:
        text = text.replace(fixed, " ")
    found = {card_index(name) for name in CARD.findall(text)}
    for rank, suit in SYMBOL.findall(text):
        found.add(card_index(_RANK_OF.get(rank, rank) + _SUIT_OF[suit]))
    for rank, suit in LABEL.findall(text):
        rank = rank.lower()
        found.add(card_index(_RANK_OF.get(rank, rank.upper()) + suit[0].upper()))
    return found


def _is_card_field(key: str) -> bool:
    key = key.lower()
    return bool(CARD_FIELD.search(key)) and not NOT_CARDS.search(key)


def indices_in(data: Any, under_card_field: bool = False) -> set[int]:
    """Ints 0..51 found inside card fields of JSON data."""
    found: set[int] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            found |= indices_in(value, under_card_field or _is_card_field(str(key)))
    elif isinstance(data, list):
        for value in data:
            found |= indices_in(value, under_card_field)
    elif under_card_field and type(data) is int and 0 <= data < 52:  # not a bool
        found.add(data)
    return found


@dataclass
class Secrets:
    """Every secret of a match in play for one viewer, and the reveals it may see."""

    cards: frozenset[int] = frozenset()
    seeds: frozenset[int] = frozenset()
    masks: frozenset[int] = frozenset()
    #: The ``last_deal`` (as canonical JSON) of every finished deal whose reveal gives
    #: nothing of the live deal away.
    reveals: frozenset[str] = frozenset()
    #: The same for finished deals dealt from the live deal's seed: their reveal is the
    #: live hands.
    duplicate_reveals: frozenset[str] = frozenset()

    @classmethod
    def of(cls, match: Match, viewer: int | None) -> Secrets:
        """The secrets of ``match`` for player index ``viewer`` (0 = A, 1 = B) or anyone else.

        None at all once the match is finished (its seed and every deal are published then).
        """
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED or match.state is None:
            return cls()
        seeds = {match.seed, derive_seed(match.seed, "cut")}
        for g in range(GAMES_AHEAD):
            game_seed = derive_seed(match.seed, "game", g)
            seeds.add(game_seed)
            seeds |= {derive_seed(game_seed, "deal", n) for n in range(DEALS_AHEAD)}
        for game in match.games.all():
            seeds.add(game.seed)
            seeds |= {derive_seed(game.seed, "deal", n) for n in range(DEALS_AHEAD)}
        deals = list(Deal.objects.filter(game__match=match))
        seeds |= {d.seed for d in deals}

        cards = 0
        masks: set[int] = set()
        live_seed = None
        engine = EngineMatch.from_snapshot(match.state)
        if not engine.is_over and match.status == Match.Status.ACTIVE:
            game = engine.game
            deal = game.deal
            live_seed = deal.seed
            stock = mask_of(deal.stock)
            hands, known = deal.hands, deal.known
            own = None if viewer is None else viewer ^ game.deal_swap
            cards = stock
            for seat in (0, 1):
                if seat != own:
                    cards |= hands[seat] & ~known[seat]
            candidates = {
                stock,
                cards,
                hands[0],
                hands[1],
                hands[0] | hands[1],
                hands[0] & ~known[0],
                hands[1] & ~known[1],
                hands[0] | stock,
                hands[1] | stock,
                FULL_DECK & ~stock,
            }
            masks = {m for m in candidates if m & cards and m >= MIN_NUMBER}

        reveals, duplicates = set(), set()
        for d in deals:
            if d.status == Deal.Status.FINISHED and d.outcome is not None:
                (duplicates if d.seed == live_seed else reveals).add(_recorded_reveal(d))
        return cls(
            cards=frozenset(cards_of(cards)),
            seeds=frozenset(s for s in seeds if s >= MIN_NUMBER),
            masks=frozenset(masks),
            reveals=frozenset(reveals),
            duplicate_reveals=frozenset(duplicates),
        )

    @property
    def card_names(self) -> set[str]:
        return {card_name(c) for c in self.cards}

    # --- searching -------------------------------------------------------------------------

    def leaks(self, answer: str | bytes | dict | list, *, sent: Iterable[str] = ()) -> list[str]:
        """What of the secrets ``answer`` gives away, each as a short description.

        ``sent``: card names the viewer wrote in the request itself (an error may quote them).
        """
        if isinstance(answer, bytes):
            answer = answer.decode(errors="replace")
        sent_cards = {card_index(c) for c in sent}
        if isinstance(answer, str):
            try:
                data = json.loads(answer)
            except ValueError:
                return self._page_leaks(answer, sent_cards)
            if not isinstance(data, dict | list):
                return self._text_leaks(answer, sent_cards)
            answer = data
        return self._json_leaks(answer, sent_cards)

    def _json_leaks(self, data: dict | list, sent: set[int]) -> list[str]:
        found: list[str] = []
        searched = self._without_reveals(data, found)
        # Numbers anywhere (the reveals too: a seed or mask has no business there either).
        found += self._number_leaks(json.dumps(data, default=str))
        text = json.dumps(searched, ensure_ascii=False, default=str)
        found += self._card_leaks(cards_named(text) - sent, "named")
        found += self._card_leaks(indices_in(searched), "as an index in a card field")
        return found

    def _page_leaks(self, page: str, sent: set[int]) -> list[str]:
        found: list[str] = []
        scripts = _JSON_SCRIPT.findall(page)
        outside = _JSON_SCRIPT.sub(" ", page)
        for script in scripts:
            found += self._json_leaks(json.loads(html.unescape(script)), sent)
        found += self._text_leaks(html.unescape(outside), sent)
        for name, value in _DATA_ATTR.findall(outside):
            if _is_card_field(name):
                numbers = {int(n) for n in re.findall(r"(?<![0-9])[0-9]{1,2}(?![0-9])", value)}
                found += self._card_leaks(
                    {n for n in numbers if n < 52}, f"as an index in data-{name}"
                )
        return found

    def _text_leaks(self, text: str, sent: set[int]) -> list[str]:
        return self._number_leaks(text) + self._card_leaks(cards_named(text) - sent, "named")

    def _card_leaks(self, cards: set[int], how: str) -> list[str]:
        hidden = sorted(cards & self.cards)
        return [f"hidden card {card_name(c)} {how}" for c in hidden]

    def _number_leaks(self, text: str) -> list[str]:
        secrets = {n: "seed" for n in self.seeds} | {m: "mask" for m in self.masks}
        if not secrets:
            return []
        found = []
        for token in set(_DECIMAL.findall(text)):
            if int(token) in secrets:
                found.append(f"{secrets[int(token)]} {token} in decimal")
        for token in set(_HEX.findall(text)):
            if len(token) >= 5 and int(token, 16) in secrets:
                found.append(f"{secrets[int(token, 16)]} {int(token, 16)} in hex ({token})")
        for mask in self.masks:
            if re.search(rf"(?<![01])0*{mask:b}(?![01])", text):
                found.append(f"mask {mask} in binary")
        return found

    def _without_reveals(self, data: Any, found: list[str]) -> Any:
        """The data without each ``last_deal`` that shows a finished deal as recorded.

        A ``last_deal`` that shows anything else is reported, and one that shows a deal
        dealt from the live deal's seed is kept in, for the card search to find.
        """
        if isinstance(data, list):
            return [self._without_reveals(v, found) for v in data]
        if not isinstance(data, dict):
            return data
        out = {}
        for key, value in data.items():
            if key == "last_deal" and isinstance(value, dict):
                shown = _canonical(value)
                if shown in self.reveals:
                    continue
                if shown not in self.duplicate_reveals and (self.cards or self.seeds):
                    found.append(f"last_deal shows what no finished deal recorded: {value}")
            out[key] = self._without_reveals(value, found)
        return out


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, default=str)


def _recorded_reveal(deal: Deal) -> str:
    """The ``last_deal`` a finished deal gives, from its row: per player (0 = A, 1 = B)."""
    swap = deal.swap
    outcome = {k: v for k, v in deal.outcome.items() if k != "hands"}
    for key in ("winner", "knocker"):
        if outcome.get(key) is not None:
            outcome[key] ^= swap
    hands = deal.outcome.get("hands")
    return _canonical(
        {
            "number": deal.number,
            "dealer": deal.dealer ^ swap,
            "outcome": outcome,
            "hands": None if hands is None else [hands[0 ^ swap], hands[1 ^ swap]],
        }
    )


# --- the card-name helpers older tests use ---------------------------------------------------


def hidden_cards(match: Match, viewer_index: int | None) -> set[str]:
    """The names of the cards of the deal in play that this viewer may not know."""
    return Secrets.of(match, viewer_index).card_names


def cards_in(text: str) -> set[str]:
    """Card names (as the API writes them) in any text."""
    return set(CARD.findall(text))


def leaked(text: str, hidden: set[str], sent: Iterable[str] = frozenset()) -> set[str]:
    """Hidden card names in ``text``, but for those the caller named itself."""
    return (cards_in(text) & hidden) - set(sent)
