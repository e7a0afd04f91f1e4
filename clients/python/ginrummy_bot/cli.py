"""``ginrummy-bot --token TOKEN [--url URL] [--bot random]``: run a bot until interrupted."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import threading

from ginrummy_bot.bot import Bot, FirstLegalBot, RandomBot
from ginrummy_bot.client import ApiClient
from ginrummy_bot.runner import Runner

BOTS = {"random": RandomBot, "first-legal": FirstLegalBot}


def load_bot(spec: str) -> Bot:
    """``random``, ``first-legal``, or ``package.module:ClassName`` of your own."""
    if spec in BOTS:
        return BOTS[spec]()
    module, _, name = spec.partition(":")
    if not name:
        raise SystemExit(f"--bot: {spec!r} is neither {sorted(BOTS)} nor module:Class")
    return getattr(importlib.import_module(module), name)()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="ginrummy-bot", description=__doc__)
    parser.add_argument("--url", default=os.environ.get("GINRUMMY_URL", "http://localhost:8000"))
    parser.add_argument(
        "--token",
        default=os.environ.get("GINRUMMY_BOT_TOKEN"),
        help="the bot's token (or GINRUMMY_BOT_TOKEN)",
    )
    parser.add_argument("--bot", default="random", help="random, first-legal, or module:Class")
    parser.add_argument("--concurrency", type=int, default=8, help="games at once (default 8)")
    parser.add_argument("--challenge", type=int, metavar="PLAYER", help="challenge a player first")
    parser.add_argument(
        "--ladder", type=int, metavar="LADDER", help="join a ladder's queue, again after each match"
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("give --token or set GINRUMMY_BOT_TOKEN")
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(threadName)s %(message)s",
    )
    client = ApiClient(args.url, args.token)
    me = client.account()
    logging.info("connected as %s (player %s)", me["name"], me["id"])
    runner = Runner(client, load_bot(args.bot), concurrency=args.concurrency, ladder=args.ladder)
    if args.challenge:
        match = client.challenge(args.challenge)
        logging.info("challenged player %s: match %s", args.challenge, match["id"])
        if match.get("current_game"):
            runner.start_game(match["current_game"])
    signal.signal(signal.SIGTERM, lambda *_: runner.stop())
    thread = threading.Thread(target=runner.run, name="events", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.5)
    except KeyboardInterrupt:
        runner.stop()


if __name__ == "__main__":
    main()
