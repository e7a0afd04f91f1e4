"""OpenSpiel's ``gin_rummy`` (``open-spiel==2.0.2``, through ``pyspiel``) as a bench contender.

* deals: ``pyspiel.load_game("gin_rummy")``, ``new_initial_state()``, then a uniformly random
  choice among ``legal_actions()`` (at chance nodes these are the dealing outcomes, all equally
  likely) until ``is_terminal()``;
* 10 cards: the bound ``pyspiel.gin_rummy.GinRummyUtils(13, 4, 10).min_deadwood(hand)`` (C++);
* 11 cards, exact: ``min_deadwood`` of each of the 11 ten-card sub-hands, the minimum (the
  sub-hands are built outside timing, so this is the fastest the C++ call allows);
* 11 cards, informational: ``min_deadwood`` called on the 11 cards directly, OpenSpiel's own
  shortcut, which is a heuristic (e.g. ``3C 3D 6D 4C 4H 5C 5H 6H 6C AH 5D`` gives 11 where the
  exact best discard leaves 9).

OpenSpiel numbers cards ``suit * 13 + rank`` with suits in the order ``s c d h``; hands are
converted with its own ``card_strings_to_card_ints``. The C++ state's memory is not visible to
tracemalloc, so its memory figure is a resident-set-size difference.
"""

from __future__ import annotations

import random
from typing import Any

from . import Contender, Hand, Unavailable


def load() -> Contender:
    try:
        import pyspiel
    except ImportError as exc:
        raise Unavailable(f"pyspiel: {type(exc).__name__}: {exc}") from None
    try:
        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    except AttributeError as exc:
        raise Unavailable(f"pyspiel.gin_rummy.GinRummyUtils not bound: {exc}") from None

    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        version = dist_version("open_spiel")
    except PackageNotFoundError:
        version = "?"

    game = pyspiel.load_game("gin_rummy")
    to_ints = utils.card_strings_to_card_ints
    min_deadwood = utils.min_deadwood

    def to_os(hand: Hand) -> list[int]:
        # OpenSpiel spells cards rank + lower-case suit: 'Ts', 'Ac'.
        return list(to_ints([c[0] + c[1].lower() for c in hand]))

    def prepare_10(hands: list[Hand]) -> list[list[int]]:
        return [to_os(h) for h in hands]

    def run_10(prepared: list[list[int]]) -> list[int]:
        return [min_deadwood(h) for h in prepared]

    def prepare_11(hands: list[Hand]) -> list[list[list[int]]]:
        out = []
        for h in hands:
            ints = to_os(h)
            out.append([ints[:i] + ints[i + 1 :] for i in range(len(ints))])
        return out

    def run_11(prepared: list[list[list[int]]]) -> list[int]:
        return [min([min_deadwood(ten) for ten in subs]) for subs in prepared]

    def run_11_shortcut(prepared: list[list[int]]) -> list[int]:
        return [min_deadwood(h) for h in prepared]

    def play(seed: int, count: bool = False) -> int:
        rng = random.Random(seed)
        choice = rng.choice
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
        if count:  # outside timing: player actions, not chance outcomes (deals, stock draws)
            return sum(1 for h in state.full_history() if h.player >= 0)
        return 0

    lengths: dict[int, int] = {}  # seed -> player actions in the whole deal

    def memory_states(n: int, actions: int | None, hold: bool = True) -> list[Any]:
        held = []
        for seed in range(n):
            limit = actions
            if limit is not None and limit < 0:  # stop that many player actions before the end
                if seed not in lengths:
                    lengths[seed] = play(seed, count=True)
                limit = max(0, lengths[seed] + limit)
            rng = random.Random(seed)
            state = game.new_initial_state()
            done = 0
            while not state.is_terminal() and (limit is None or done < limit):
                chance = state.is_chance_node()
                state.apply_action(rng.choice(state.legal_actions()))
                if not chance:
                    done += 1
            if hold:
                held.append(state)
        return held

    return Contender(
        name="openspiel",
        version=version,
        deal_kinds={"openspiel": play},
        prepare_10=prepare_10,
        run_10=run_10,
        prepare_11=prepare_11,
        run_11=run_11,
        extra_11={"openspiel min_deadwood on 11 cards (heuristic)": (prepare_10, run_11_shortcut)},
        memory_states=memory_states,
        memory_method="rss",
    )
