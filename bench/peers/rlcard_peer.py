"""RLCard's gin rummy (``rlcard==1.2.0``) as a bench contender.

* ``rlcard-env``: ``rlcard.make('gin-rummy')`` with two ``RandomAgent``s, one ``env.run()`` per
  deal (this path also encodes an observation for every step, as RLCard's training loop does);
* ``rlcard-game``: the ``GinRummyGame`` object directly: ``init_game()``, then a random choice
  among ``judge.get_legal_actions()`` passed to ``step()`` until ``is_over()``;
* 10 cards: ``melding.get_best_meld_clusters`` then ``utils.get_deadwood_count`` of the first
  best cluster (all deadwood when the hand holds no meld);
* 11 cards, exact: that 10-card path for each of the 11 discards, the minimum (the 11 ten-card
  sub-hands are built outside timing);
* 11 cards, informational: ``judge.get_going_out_cards(hand, 10)``, the single pass over the
  11-card meld clusters that RLCard's legal-action code uses to find knock and gin cards
  (it answers "which cards can be knocked", not a deadwood count).

RLCard's cards are ``Card(suit, rank)`` objects with suits ``S H D C``; hands are built from
RLCard's own deck objects (``utils.get_card``), as in its play.
"""

from __future__ import annotations

import random
from typing import Any

from . import Contender, Hand, Unavailable


def load() -> Contender:
    try:
        import numpy as np
        import rlcard
        from rlcard.agents import RandomAgent
        from rlcard.games.gin_rummy.game import GinRummyGame
        from rlcard.games.gin_rummy.judge import get_going_out_cards
        from rlcard.games.gin_rummy.utils import melding
        from rlcard.games.gin_rummy.utils import utils as gr_utils
    except ImportError as exc:
        raise Unavailable(f"rlcard: {type(exc).__name__}: {exc}") from None

    version = getattr(rlcard, "__version__", None) or _dist_version("rlcard")
    suit_index = {s: i for i, s in enumerate("SHDC")}
    rank_index = {r: i for i, r in enumerate("A23456789TJQK")}

    def to_cards(hand: Hand) -> list[Any]:
        return [gr_utils.get_card(rank_index[c[0]] + 13 * suit_index[c[1]]) for c in hand]

    get_best = melding.get_best_meld_clusters
    dw_count = gr_utils.get_deadwood_count
    dw_value = gr_utils.get_deadwood_value

    def md10(hand: list[Any]) -> int:
        best = get_best(hand)
        if best:
            return dw_count(hand, best[0])
        return sum(dw_value(c) for c in hand)

    def prepare_10(hands: list[Hand]) -> list[list[Any]]:
        return [to_cards(h) for h in hands]

    def run_10(prepared: list[list[Any]]) -> list[int]:
        return [md10(h) for h in prepared]

    def prepare_11(hands: list[Hand]) -> list[list[list[Any]]]:
        out = []
        for h in hands:
            cards = to_cards(h)
            out.append([cards[:i] + cards[i + 1 :] for i in range(len(cards))])
        return out

    def run_11(prepared: list[list[list[Any]]]) -> list[int]:
        return [min([md10(ten) for ten in subs]) for subs in prepared]

    def run_going_out(prepared: list[list[Any]]) -> list[int]:
        # Informational: count of cards that can be knocked or ginned (not a deadwood figure).
        out = []
        for h in prepared:
            knock, gin = get_going_out_cards(h, 10)
            out.append(len(knock) + len(gin))
        return out

    # --- whole deals --------------------------------------------------------------
    env_box: dict[str, Any] = {}

    def play_env(seed: int, count: bool = False) -> int:
        env = env_box.get("env")
        if env is None:
            env = rlcard.make("gin-rummy", config={"seed": 0})
            env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(2)])
            env_box["env"] = env
        np.random.seed(seed)  # RandomAgent draws from numpy's global generator
        env.seed(seed)
        env.run(is_training=False)
        return len(env.game.actions)

    game_box: dict[str, Any] = {}

    def play_game(seed: int, count: bool = False) -> int:
        game = game_box.get("game")
        if game is None:
            game = game_box["game"] = GinRummyGame()
        game.np_random.seed(seed)
        rng = random.Random(seed)
        choice = rng.choice
        legal = game.judge.get_legal_actions
        game.init_game()
        n = 0
        while not game.is_over():
            game.step(choice(legal()))
            n += 1
        return n

    lengths: dict[int, int] = {}  # seed -> player actions in the whole deal

    def memory_states(n: int, actions: int | None, hold: bool = True) -> list[Any]:
        held = []
        for seed in range(n):
            limit = actions
            if limit is not None and limit < 0:  # stop that many actions before the end
                if seed not in lengths:
                    lengths[seed] = play_game(seed)
                limit = max(0, lengths[seed] + limit)
            game = GinRummyGame()
            game.np_random.seed(seed)
            rng = random.Random(seed)
            game.init_game()
            done = 0
            while not game.is_over() and (limit is None or done < limit):
                game.step(rng.choice(game.judge.get_legal_actions()))
                done += 1
            if hold:
                held.append(game)
        return held

    return Contender(
        name="rlcard",
        version=version,
        deal_kinds={"rlcard-env": play_env, "rlcard-game": play_game},
        prepare_10=prepare_10,
        run_10=run_10,
        prepare_11=prepare_11,
        run_11=run_11,
        extra_11={"rlcard going-out cards (1 pass, not a deadwood)": (prepare_10, run_going_out)},
        memory_states=memory_states,
        notes=[
            "rlcard deals: no first-turn upcard offer (the non-dealer is dealt 11), "
            "so its deals are a little shorter than the rule book's",
        ],
    )


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"
