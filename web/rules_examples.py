"""The worked examples of the "How to play" page, computed by the engine.

Every number the page shows about a hand, a game or a rule set comes from here, and here from
:mod:`games.engine`: deals set up card by card and played (``Deal.arranged``), hands as a
score pad enters them (``EnteredHand.score``), games scored hand by hand (``Game.enter``) and
the rule sets' own options. Nothing is typed by hand, so the page cannot drift from the rules
the site plays. Everything is deterministic: built once per process (:func:`examples`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop, pgettext_lazy

from games.engine import (
    HOLLYWOOD,
    OKLAHOMA,
    STANDARD,
    STRAIGHT,
    Action,
    CardSet,
    Deal,
    EnteredHand,
    EntryError,
    HandKind,
    RuleSet,
    card_index,
    card_name,
    parse_cards,
)
from games.engine.cards import cards_of
from games.engine.game import Game, GameResult
from games.engine.melds import arrange
from games.engine.rules import PRESETS

#: The presets in the order the page explains them.
PRESET_ORDER = ("standard", "oklahoma", "straight", "hollywood")
PRESET_TITLES = {
    "standard": _("Standard gin"),
    "oklahoma": _("Oklahoma gin"),
    "straight": _("Straight gin"),
    "hollywood": _("Hollywood scoring"),
}
#: How a hand ended, in the page's words.
WORDS = {
    "knock": pgettext_lazy("how a hand ended", "knock"),
    "undercut": pgettext_lazy("how a hand ended", "undercut"),
    "gin": pgettext_lazy("how a hand ended", "gin"),
    "big_gin": pgettext_lazy("how a hand ended", "big gin"),
}
#: The engine's refusal of a knock in straight gin, in the words the page quotes it (the
#: engine's own text when it says exactly this, so the page shows it translated).
STRAIGHT_REFUSAL = gettext_noop("no knocking in straight gin: only gin or big gin ends the hand")
#: Options that say which variant a rule set is, rather than a number of it.
NAMING_OPTIONS = frozenset({"name", "oklahoma", "straight", "scoring"})


def _names(mask: int) -> list[str]:
    return [card_name(c) for c in cards_of(mask)]


@dataclass(frozen=True)
class DealExample:
    """A deal set up card by card and played to its end by the engine."""

    title: str
    knocker_hand: list[str]  # the ten cards of the player who ends the deal
    defender_hand: list[str]
    upcard: str
    ending: str  # how the player who ends the deal does it, in words
    face_down: str | None  # the card put face down (none for big gin)
    termination: str
    knocker_melds: list[list[str]]
    knocker_deadwood: list[str]
    knocker_points: int
    defender_melds: list[list[str]]
    defender_deadwood: list[str]
    defender_points: int
    layoffs: list[tuple[str, list[str]]]
    points: int
    bonus: int  # the gin, big gin or undercut bonus in the points (0 for a knock)
    winner_is_knocker: bool


@dataclass(frozen=True)
class EnteredExample:
    """A hand as a score pad writes it down, scored by the engine."""

    what: str
    knocker_deadwood: int
    defender_deadwood: int
    termination: str
    points: int
    winner_is_knocker: bool
    upcard: str | None = None
    multiplier: int = 1
    knock_limit: int = 10  # the hand's: Oklahoma's is set by the upcard


@dataclass(frozen=True)
class GameExample:
    """A game scored hand by hand to its end: the hands, running totals and the result."""

    title: str
    rules: RuleSet
    hands: list[dict[str, Any]]
    result: GameResult
    doubled_hand_points: bool
    base_points: tuple[int, int] = (0, 0)  # hand points before a shutout doubled them


@dataclass(frozen=True)
class PresetSummary:
    key: str
    title: str
    rules: RuleSet
    differences: list[tuple[str, Any, Any]] = field(
        default_factory=list
    )  # option, preset, standard


@dataclass(frozen=True)
class Examples:
    """Everything the page needs, computed."""

    standard: RuleSet
    card_points: list[tuple[str, int]]
    arranged_hand: list[str]
    arranged_melds: list[list[str]]
    arranged_deadwood: list[str]
    arranged_points: int
    hand_total: int
    deals: dict[str, DealExample]
    entered: dict[str, EnteredExample]
    oklahoma_limits: list[tuple[str, int, int]]  # upcard, knock limit, multiplier
    straight_refusal: str
    games: dict[str, GameExample]
    hollywood_hands: list[dict[str, Any]]
    presets: list[PresetSummary]


def _deal_example(
    title: str,
    knocker_hand: str,
    defender_hand: str,
    upcard: str,
    actions: list[str],
    ending: str,
    rules: RuleSet = STANDARD,
) -> DealExample:
    """Seat 1 (the non-dealer, first to act) takes the upcard and ends the deal with
    ``actions``."""
    deal = Deal.arranged(
        hands=(parse_cards(defender_hand), parse_cards(knocker_hand)),
        upcard=card_index(upcard),
        rules=rules,
    )
    for text in actions:
        deal.apply(Action.parse(text))
    out = deal.outcome
    assert out is not None and out.knocker == 1, title
    base = out.points // out.multiplier
    if out.termination.value == "knock":
        bonus = 0
    elif out.termination.value == "undercut":
        bonus = base - (out.knocker_points - out.defender_points)
    else:
        bonus = base - out.defender_points
    return DealExample(
        title=title,
        knocker_hand=knocker_hand.split(),
        defender_hand=defender_hand.split(),
        upcard=upcard,
        ending=ending,
        face_down=None if out.knock_card is None else card_name(out.knock_card),
        termination=out.termination.value,
        knocker_melds=[_names(m) for m in out.knocker_melds],
        knocker_deadwood=_names(out.knocker_deadwood),
        knocker_points=out.knocker_points,
        defender_melds=[_names(m) for m in out.defender_melds],
        defender_deadwood=_names(out.defender_deadwood),
        defender_points=out.defender_points,
        layoffs=[(card_name(lo.card), _names(lo.onto)) for lo in out.layoffs],
        points=out.points,
        bonus=bonus,
        winner_is_knocker=out.winner == out.knocker,
    )


def _entered(what: str, hand: EnteredHand, rules: RuleSet = STANDARD) -> EnteredExample:
    out = hand.score(rules)
    assert hand.knocker is not None
    knocker_count = hand.deadwood[hand.knocker]
    defender_count = hand.deadwood[1 - hand.knocker]
    assert knocker_count is not None and defender_count is not None
    return EnteredExample(
        what=what,
        knocker_deadwood=knocker_count,
        defender_deadwood=defender_count,
        termination=out.termination.value,
        points=out.points,
        winner_is_knocker=out.winner == out.knocker,
        upcard=None if hand.upcard is None else card_name(hand.upcard),
        multiplier=out.multiplier,
        knock_limit=rules.knock_limit
        if hand.upcard is None
        else rules.knock_limit_for(hand.upcard),
    )


def _game_example(title: str, rules: RuleSet, hands: list[EnteredHand]) -> GameExample:
    """Enter ``hands`` into a new game (the first dealer player 1, so player 0 starts) until
    it is over; every running total and the result are the engine's."""
    game = Game.new(seed=1, first_dealer=1, rules=rules)
    rows = []
    for hand in hands:
        if game.is_over:
            break
        record = game.enter(hand)
        out = record.outcome
        assert out is not None
        rows.append(
            {
                "winner": record.winner_player,
                "termination": out.termination.value,
                "how": WORDS[out.termination.value],
                "points": out.points,
                "knocker": out.knocker,
                "deadwood": (hand.deadwood[0], hand.deadwood[1]),
                "totals": tuple(game.scores),
            }
        )
    assert game.is_over, f"{title}: the hands do not finish the game"
    result = game.results[0]
    doubled = result.shutout and rules.shutout.value == "double_hand_points"
    base = list(result.hand_points)
    if doubled:
        base[result.winner] //= 2
    return GameExample(title, rules, rows, result, doubled, (base[0], base[1]))


def _hollywood_hands() -> list[dict[str, Any]]:
    """A few hands of a Hollywood set: which of the three games each hand scores in."""
    game = Game.new(seed=1, first_dealer=1, rules=HOLLYWOOD)
    hands = [
        EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(4, 24)),
        EnteredHand(HandKind.GIN, knocker=1, deadwood=(18, None)),
        EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(6, 36)),
        EnteredHand(HandKind.GIN, knocker=0, deadwood=(None, 15)),
        EnteredHand(HandKind.KNOCK, knocker=1, deadwood=(22, 7)),
    ]
    rows = []
    for hand in hands:
        before = [list(col.scores) for col in game.columns]
        record = game.enter(hand)
        out = record.outcome
        assert out is not None and record.winner_player is not None
        after = [list(col.scores) for col in game.columns]
        rows.append(
            {
                "winner": record.winner_player,
                "termination": out.termination.value,
                "how": WORDS[out.termination.value],
                "points": out.points,
                "games": [i + 1 for i in range(3) if after[i] != before[i]],
                "columns": [tuple(scores) for scores in after],
            }
        )
    return rows


def _presets() -> list[PresetSummary]:
    standard = STANDARD.to_dict()
    out = []
    for key in PRESET_ORDER:
        rules = PRESETS[key]
        options = rules.to_dict()
        differences = [
            (option, value, standard[option])
            for option, value in options.items()
            if value != standard[option] and option not in NAMING_OPTIONS
        ]
        out.append(PresetSummary(key, PRESET_TITLES[key], rules, differences))
    return out


@lru_cache(maxsize=1)
def examples() -> Examples:
    """Every worked example of the page, computed by the engine (once per process)."""
    text = "AS 2S 3S 4H 5H 6H KD KC KS 9C"
    hand = CardSet.parse(text)
    arrangement = arrange(hand.mask)
    card_points = [
        (code, CardSet.parse(code).points) for code in ("AH", "7C", "TD", "JS", "QH", "KC")
    ]

    knocker = "AS 2S 3S 4H 5H 6H KD KC KS 9C"
    deals = {
        "knock": _deal_example(
            _("A knock, and the defender lays off"),
            knocker,
            "7H 8H QC QH JD 3C 5C 5D 9D TS",
            "2D",
            ["take_upcard", "knock 9C"],
            pgettext_lazy("what the player who ends the deal does", "knocks"),
        ),
        "undercut": _deal_example(
            _("An undercut"),
            knocker,
            "7D 8D 9D QC QH QS 2C 3D AH 7H",
            "8C",
            ["take_upcard", "knock 9C"],
            pgettext_lazy("what the player who ends the deal does", "knocks"),
        ),
        "gin": _deal_example(
            pgettext_lazy("rules example", "Gin"),
            knocker,
            "7D 8D 9D QC QH QS 3C 5C 2H TS",
            "7H",
            ["take_upcard", "gin 9C"],
            pgettext_lazy("what the player who ends the deal does", "goes gin"),
        ),
        "big_gin": _deal_example(
            pgettext_lazy("rules example", "Big gin"),
            "AS 2S 3S 4H 5H 6H KD KC KS 7H",
            "7D 8D 9D QC QH QS 3C 5C 2H TS",
            "8H",
            ["take_upcard", "big_gin"],
            pgettext_lazy(
                "what the player who ends the deal does", "lays down all eleven cards: big gin"
            ),
        ),
    }
    entered = {
        "knock": _entered(_("a knock"), EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(6, 31))),
        "undercut": _entered(
            _("an undercut"), EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(8, 5))
        ),
        "gin": _entered(
            pgettext_lazy("a hand", "gin"),
            EnteredHand(HandKind.GIN, knocker=0, deadwood=(None, 12)),
        ),
        "big_gin": _entered(
            pgettext_lazy("a hand", "big gin"),
            EnteredHand(HandKind.BIG_GIN, knocker=0, deadwood=(None, 12)),
        ),
        "oklahoma": _entered(
            _("a knock in Oklahoma, the first upcard a spade"),
            EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(3, 20), upcard=card_index("4S")),
            OKLAHOMA,
        ),
    }
    oklahoma_limits = [
        (
            code,
            OKLAHOMA.knock_limit_for(card_index(code)),
            OKLAHOMA.multiplier_for(card_index(code)),
        )
        for code in ("KD", "7H", "3C", "AC", "9S")
    ]
    try:
        EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(5, 20)).score(STRAIGHT)
    except EntryError as error:
        straight_refusal = _(STRAIGHT_REFUSAL) if str(error) == STRAIGHT_REFUSAL else str(error)
    else:  # pragma: no cover - the engine refuses it
        raise AssertionError("straight gin took a knock")

    games = {
        "game": _game_example(
            _("A game to 250"),
            STANDARD,
            [
                EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(5, 40)),
                EnteredHand(HandKind.GIN, knocker=1, deadwood=(30, None)),
                EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(2, 60)),
                EnteredHand(HandKind.BIG_GIN, knocker=0, deadwood=(None, 50)),
                EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(9, 4)),
                EnteredHand(HandKind.GIN, knocker=0, deadwood=(None, 55)),
            ],
        ),
        "shutout": _game_example(
            _("A shutout"),
            STANDARD,
            [
                EnteredHand(HandKind.GIN, knocker=0, deadwood=(None, 70)),
                EnteredHand(HandKind.BIG_GIN, knocker=0, deadwood=(None, 63)),
                EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(4, 70)),
            ],
        ),
    }
    return Examples(
        standard=STANDARD,
        card_points=card_points,
        arranged_hand=text.split(),
        arranged_melds=arrangement.meld_names(),
        arranged_deadwood=arrangement.deadwood_names(),
        arranged_points=arrangement.points,
        hand_total=hand.points,
        deals=deals,
        entered=entered,
        oklahoma_limits=oklahoma_limits,
        straight_refusal=straight_refusal,
        games=games,
        hollywood_hands=_hollywood_hands(),
        presets=_presets(),
    )
