"""The OpenSpiel and RLCard adapters: the card mapping always; each peer's own decisions,
position by position, where the peer is installed (the peers are not dependencies of the
client: ``pip install open-spiel rlcard`` beside it, as ``bench/.venv`` has them).

The peer tests play the peer's own game with its own agent and ask the adapter the same
question through a service-shaped view of each position: the adapter must give the answer
the peer gives on its own state (OpenSpiel), or build exactly the state the peer's
environment hands its agent (RLCard).
"""

from __future__ import annotations

import importlib.util
import random

import pytest
from ginrummy_bot.adapters import cards, openspiel_bot, rlcard_agent

HAVE_PYSPIEL = importlib.util.find_spec("pyspiel") is not None
HAVE_RLCARD = importlib.util.find_spec("rlcard") is not None
needs_pyspiel = pytest.mark.skipif(
    not HAVE_PYSPIEL, reason="OpenSpiel is not installed (pip install open-spiel==2.0.2)"
)
needs_rlcard = pytest.mark.skipif(
    not HAVE_RLCARD, reason="RLCard is not installed (pip install rlcard==1.2.0)"
)


# --- the mapping, always --------------------------------------------------------------------


def test_card_names_map_to_each_peers_numbers_and_back():
    assert len(set(cards.DECK)) == 52
    assert [cards.to_openspiel(c) for c in ("AS", "KS", "AC", "AD", "AH", "KH")] == [
        0,
        12,
        13,
        26,
        39,
        51,
    ]
    assert [cards.to_rlcard(c) for c in ("AS", "KS", "AH", "AD", "AC", "KC")] == [
        0,
        12,
        13,
        26,
        39,
        51,
    ]
    assert sorted(cards.to_openspiel(c) for c in cards.DECK) == list(range(52))
    assert sorted(cards.to_rlcard(c) for c in cards.DECK) == list(range(52))
    for card in cards.DECK:
        assert cards.from_openspiel(cards.to_openspiel(card)) == card
        assert cards.from_rlcard(cards.to_rlcard(card)) == card
    for bad in ("10S", "1S", "AX", "", "as"):
        with pytest.raises(ValueError):
            cards.to_openspiel(bad)
    with pytest.raises(ValueError):
        cards.from_rlcard(52)


def a_view(legal, *, hand=(), pile=("9C",), known=(), upcard="9C", knock_limit=10):
    return {
        "hand": list(hand),
        "legal_actions": list(legal),
        "opponent": {"known_cards": list(known)},
        "deal": {"discard_pile": list(pile), "upcard": upcard, "knock_limit": knock_limit},
    }


def test_openspiel_decisions_map_to_the_services_legal_actions():
    first = a_view([{"type": "take_upcard"}, {"type": "pass"}])
    assert openspiel_bot.to_service_action(first, draw_upcard=True) == {"type": "take_upcard"}
    assert openspiel_bot.to_service_action(first, draw_upcard=False) == {"type": "pass"}
    draw = a_view([{"type": "draw_stock"}, {"type": "draw_discard"}])
    assert openspiel_bot.to_service_action(draw, draw_upcard=False) == {"type": "draw_stock"}
    assert openspiel_bot.to_service_action(draw, draw_upcard=True) == {"type": "draw_discard"}
    discard = a_view(
        [
            {"type": "discard", "card": "KD"},
            {"type": "discard", "card": "2C"},
            {"type": "knock", "card": "KD"},
            {"type": "gin", "card": "2C"},
        ]
    )
    action = openspiel_bot.to_service_action
    assert action(discard, discard="KD") == {"type": "discard", "card": "KD"}
    assert action(discard, discard="KD", knock=True) == {"type": "knock", "card": "KD"}
    # OpenSpiel goes gin by knocking with no deadwood: the service's gin.
    assert action(discard, discard="2C", knock=True) == {"type": "gin", "card": "2C"}
    with pytest.raises(ValueError):
        action(discard, discard="QS")


def test_rlcard_ids_of_the_services_actions_and_back():
    legal = [
        {"type": "discard", "card": "TS"},
        {"type": "knock", "card": "TS"},
        {"type": "gin", "card": "AC"},
        {"type": "big_gin"},
    ]
    view = a_view(legal)
    by_id = rlcard_agent.legal_by_id(view)
    assert sorted(by_id) == [rlcard_agent.GIN, 6 + 9, 58 + 9]
    assert rlcard_agent.to_service_action(view, 58 + 9) == {"type": "knock", "card": "TS"}
    assert rlcard_agent.to_service_action(view, rlcard_agent.GIN) == {"type": "big_gin"}
    draw = a_view([{"type": "pass"}, {"type": "take_upcard"}])
    assert rlcard_agent.to_service_action(draw, 2) == {"type": "pass"}
    assert rlcard_agent.to_service_action(draw, 3) == {"type": "take_upcard"}
    with pytest.raises(ValueError):
        rlcard_agent.to_service_action(draw, 6)


def test_rlcard_planes_hold_the_hand_the_pile_and_what_is_known():
    view = a_view(
        [{"type": "draw_stock"}],
        hand=["AS", "2S", "3S"],
        pile=["9C", "4H", "KD"],
        known=["4H"],
    )
    hand, top, dead, known, unknown = rlcard_agent.planes(view)
    on = [[cards.from_rlcard(i) for i, bit in enumerate(p) if bit] for p in (hand, top, dead)]
    assert [sorted(x) for x in on] == [["2S", "3S", "AS"], ["KD"], ["4H", "9C"]]
    assert [cards.from_rlcard(i) for i, bit in enumerate(known) if bit] == ["4H"]
    assert sum(unknown) == 52 - 3 - 3  # the known 4H is in the pile, so counted once
    assert all(sum(column) <= 1 for column in zip(hand, top, dead, unknown, strict=True))


# --- OpenSpiel, where installed -------------------------------------------------------------


def openspiel_view(state, player, utils):
    """The service's view of an OpenSpiel position, for ``player`` to act."""
    phase = str(state.current_phase()).split(".")[-1]
    hand = [cards.from_openspiel(c) for c in state.hands()[player]]
    pile = [cards.from_openspiel(c) for c in state.discard_pile()]
    if state.upcard() is not None:
        pile.append(cards.from_openspiel(state.upcard()))
    legal = state.legal_actions()
    knock_card = state.knock_card()
    if phase in ("FIRST_UPCARD", "DRAW"):
        take, other = (
            ("take_upcard", "pass") if phase == "FIRST_UPCARD" else ("draw_discard", "draw_stock")
        )
        actions = [{"type": take}, {"type": other}]
    else:
        actions = []
        ints = list(state.hands()[player])
        for card in [c for c in legal if c < 52]:
            actions.append({"type": "discard", "card": cards.from_openspiel(card)})
            rest = [c for c in ints if c != card]
            deadwood = utils.min_deadwood(rest)
            if deadwood == 0:
                actions.append({"type": "gin", "card": cards.from_openspiel(card)})
            elif deadwood <= knock_card:
                actions.append({"type": "knock", "card": cards.from_openspiel(card)})
    return {
        "hand": hand,
        "legal_actions": actions,
        "opponent": {"known_cards": []},
        "deal": {
            "discard_pile": pile,
            "upcard": pile[-1] if pile else None,
            "knock_limit": knock_card,
        },
    }


def openspiel_answer(pyspiel, game, state, player):
    """What OpenSpiel's bot does on its own state, in the service's terms."""
    bot = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player)
    action = bot.step(state)
    if action in (52, 53, 54):
        return {52: "take"}.get(action, "other"), None
    if action == 55:
        after = state.clone()
        after.apply_action(55)
        return "knock", cards.from_openspiel(bot.step(after))
    return "discard", cards.from_openspiel(action)


@needs_pyspiel
def test_the_openspiel_adapter_decides_as_openspiels_bot_on_its_own_game():
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    assert [cards.to_openspiel(c) for c in cards.DECK] == list(
        utils.card_strings_to_card_ints([c[0] + c[1].lower() for c in cards.DECK])
    )
    adapter = openspiel_bot.OpenSpielSimple()
    rng = random.Random(7)
    compared = {"take": 0, "other": 0, "discard": 0, "knock": 0}
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.legal_actions()))
                continue
            player = state.current_player()
            phase = str(state.current_phase()).split(".")[-1]
            if phase not in ("FIRST_UPCARD", "DRAW", "DISCARD"):
                break  # a knock: laying melds is the server's work
            if phase == "DRAW" and state.stock_size() <= 2:
                break  # the wall: the service's rules end the deal there
            kind, card = openspiel_answer(pyspiel, game, state, player)
            view = openspiel_view(state, player, utils)
            got = adapter.choose(view)
            if kind in ("take", "other"):
                want = view["legal_actions"][0 if kind == "take" else 1]
                assert got == want, (kind, view)
            elif kind == "knock":
                assert got["type"] in ("knock", "gin") and got["card"] == card, (got, card)
            else:
                assert got == {"type": "discard", "card": card}, (got, card, view["hand"])
            compared[kind] += 1
            bot = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player)
            state.apply_action(bot.step(state))
    assert all(compared.values()), compared  # every kind of decision was compared


# --- RLCard, where installed ----------------------------------------------------------------


def rlcard_view(env):
    """The service's view of the position RLCard's environment is in, for its player."""
    from rlcard.games.gin_rummy.utils import utils as gr_utils
    from rlcard.games.gin_rummy.utils.action_event import (
        DiscardAction,
        DrawCardAction,
        GinAction,
        KnockAction,
        PickUpDiscardAction,
    )

    game = env.game
    player = game.get_current_player()
    opponent = game.round.players[(player.player_id + 1) % 2]
    name = lambda card: cards.from_rlcard(gr_utils.get_card_id(card))  # noqa: E731
    actions = []
    for event in game.judge.get_legal_actions():
        if isinstance(event, DrawCardAction):
            actions.append({"type": "draw_stock"})
        elif isinstance(event, PickUpDiscardAction):
            actions.append({"type": "draw_discard"})
        elif isinstance(event, GinAction):
            actions.append({"type": "gin", "card": name(player.hand[0])})
        elif isinstance(event, DiscardAction):
            actions.append({"type": "discard", "card": name(event.card)})
        elif isinstance(event, KnockAction):
            actions.append({"type": "knock", "card": name(event.card)})
        else:
            return None  # declare a dead hand: the service's rules have none
    return {
        "hand": [name(c) for c in player.hand],
        "legal_actions": actions,
        "opponent": {"known_cards": [name(c) for c in opponent.known_cards]},
        "deal": {"discard_pile": [name(c) for c in game.round.dealer.discard_pile]},
    }


@needs_rlcard
def test_the_rlcard_adapter_hands_the_agent_the_state_rlcards_environment_does():
    import numpy as np
    import rlcard
    from rlcard.games.gin_rummy.utils import utils as gr_utils

    assert [str(gr_utils.get_card(cards.to_rlcard(c))) for c in cards.DECK] == [
        c for c in cards.DECK
    ]
    env = rlcard.make("gin-rummy", config={"seed": 3})
    adapter = rlcard_agent.RLCardNovice(seed=3)
    compared = 0
    for _ in range(4):
        state, _ = env.reset()
        while not env.is_over():
            view = rlcard_view(env)
            if view is None:
                break
            built = rlcard_agent.rlcard_state(view)
            assert np.array_equal(built["obs"], state["obs"])
            assert sorted(built["legal_actions"]) == sorted(state["legal_actions"])
            chosen = adapter.choose(view)
            assert chosen in view["legal_actions"]
            compared += 1
            action = rlcard_agent.action_id(chosen)
            state, _ = env.step(action)
    assert compared > 50
